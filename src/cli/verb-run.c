/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `run PLAYBOOK LAYOUT --hosts …`, `drain LAYOUT HOST [--cancel]` and `destroy LAYOUT
 * HOST`: parse, call the playbook engine (controller/playbook-run.h), print. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/size.h"
#include "basic/strv.h"
#include "cli.h"
#include "plan/plan-convert.h"
#include "controller/cluster-steps.h"
#include "controller/convert.h"
#include "controller/playbook-run.h"
#include "options.h"

static volatile sig_atomic_t cancelled;

static void on_sigint(int sig) {
        cancelled = 1;
}

/* Where the shipped playbooks are: $CEPHPROV_PLAYBOOK_DIR, the installed ones, or the
 * source tree's (an uninstalled build). */
static char *playbook_path(const char *name) {
        const char *dirs[] = { getenv("CEPHPROV_PLAYBOOK_DIR"), CEPHPROV_PLAYBOOK_DIR, CEPHPROV_SOURCE_PLAYBOOK_DIR };
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                if (!dirs[i] || !dirs[i][0])
                        continue;
                char *p = strprintf("%s/%s.yaml", dirs[i], name);
                if (p && access(p, R_OK) == 0)
                        return p;
                free(p);
        }
        return strprintf("%s/%s.yaml", CEPHPROV_PLAYBOOK_DIR, name);
}

static int print_result(const PlaybookRunResult *res, bool json, const char *kind) {
        if (json) {
                _cleanup_json_ json_object *o = NULL;
                if (playbook_run_result_to_json(res, &o) < 0)
                        return log_error("out of memory"), 1;
                if (cli_print_json_document(kind, o) != 0)
                        return 1;
        } else if (res->report)
                wave_report_print(res->report, stdout);
        if (res->refused)
                log_error("refused before anything changed (the reasons are in the plan above)");
        else if (res->report && !res->ok)
                log_error("%s", res->report->error ? res->report->error : "the playbook did not complete");
        return res->ok ? 0 : 1;
}

/* What destroy took off the hosts: the wipe and teardown steps' results. */
static void print_freed(const PlaybookRunResult *res) {
        if (!res->report)
                return;
        for (size_t i = 0; i < res->report->n_steps; i++) {
                const WaveStepReport *s = &res->report->steps[i];
                json_object *done = NULL;
                uint64_t freed = 0;
                if (!s->result || !s->host || json_get_array(s->result, "done", false, &done, "result", NULL) < 0 ||
                    json_get_u64(s->result, "bytes_freed", false, &freed, "result", NULL) < 0)
                        continue;
                char buf[SIZE_FORMAT_MAX];
                printf("%s on %s: %zu action%s, %s freed\n", s->name, s->host, json_object_array_length(done),
                       json_object_array_length(done) == 1 ? "" : "s", size_format(freed, buf, sizeof buf));
        }
}

static int run_playbook_convert(const char *path, const Layout *l, char * const *hosts, const char *command,
                                const CliOptions *o, bool recorded_osds, PlaybookRunHooks hooks,
                                const ConvertPlan *convert, const PlaybookHealthAllow *health_allow,
                                const char *run_tag) {
        Error err = {};
        /* a conversion's hooks carry its inputs (cli.h): the inventories the plan saw */
        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        const CliSaveInputs *sc = convert ? hooks.userdata : NULL;
        if (sc && sc->in && convert_inputs_inventory(sc->in, &inv, &err) < 0)
                return o->json ? cli_report_json(&err) : cli_report(&err);
        _cleanup_(playbook_freep) Playbook *pb = NULL;
        if (playbook_load(path, &pb, &err) < 0)
                return o->json ? cli_report_json(&err) : cli_report(&err);

        struct sigaction sa = { .sa_handler = on_sigint }, old_int, old_term;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        PlaybookRunOptions ro = {
                .layout = l,
                .playbook = pb,
                .hosts = hosts,
                .command = command,
                .dry_run = o->dry_run,
                .yes = o->yes,
                .confirm = cli_confirm,
                .out = o->json ? NULL : stdout,
                .progress = isatty(STDERR_FILENO) && !o->json ? stderr : NULL,
                .cancel = &cancelled,
                .recorded_osds = recorded_osds,
                .hooks = hooks,
                .convert = convert,
                .convert_inventory = inv,
                .health_allow = health_allow,
                .run_tag = run_tag,
        };
        _cleanup_(playbook_run_result_freep) PlaybookRunResult *res = NULL;
        int r = playbook_run(&ro, &res, &err);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        if (r < 0)
                return o->json ? cli_report_json(&err) : cli_report(&err);
        fflush(stdout);
        if (!o->json)
                print_freed(res);
        return print_result(res, o->json, command);
}

static int run_playbook(const char *path, const Layout *l, char * const *hosts, const char *command,
                        const CliOptions *o, bool recorded_osds, PlaybookRunHooks hooks) {
        return run_playbook_convert(path, l, hosts, command, o, recorded_osds, hooks, NULL, NULL, NULL);
}

int cli_run_convert(const Layout *l, char * const *hosts, const CliOptions *o, const ConvertPlan *plan,
                    PlaybookRunHooks hooks, const PlaybookHealthAllow *health_allow) {
        _cleanup_(freep) char *path = playbook_path(o->drain_first ? "convert-filestore-drain" : "convert-filestore");
        if (!path)
                return log_error("out of memory"), 1;
        return run_playbook_convert(path, l, hosts, "convert", o, false, hooks, plan, health_allow, NULL);
}

int cli_run_replace(const Layout *l, const char *host, const char *device, const CliOptions *o, const ConvertPlan *plan,
                    PlaybookRunHooks hooks) {
        _cleanup_(freep) char *path = playbook_path("replace-device");
        if (!path)
                return log_error("out of memory"), 1;
        char *hosts[] = { (char *) host, NULL };
        return run_playbook_convert(path, l, hosts, "replace", o, false, hooks, plan, NULL, device);
}

int verb_run(int argc, char *argv[]) {
        const Verb *v = verb_find("run");
        _cleanup_(cli_options_done) CliOptions o = {};
        int r = cli_options_parse(v, argc, argv, OPT_JSON | OPT_HOSTS | OPT_DRY_RUN | OPT_YES, &o);
        if (r != 0)
                return r;
        if (o.n_args != 2)
                return verb_usage_error(v, "expected PLAYBOOK and LAYOUT");
        if (!o.hosts)
                return verb_usage_error(v, "--hosts H1,H2 is required: a playbook acts on the hosts it is given");
        Error err = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        if (layout_load_file(o.args[1], &l, &err) < 0)
                return o.json ? cli_report_json(&err) : cli_report(&err);
        return run_playbook(o.args[0], l, o.hosts, "run", &o, false, (PlaybookRunHooks) {});
}

/* ---- drain --------------------------------------------------------------------------- */

/* A drained host stays drained (apply leaves its OSDs down and out) from its first step
 * until `drain --cancel`: recorded in the cluster, so every admin machine sees it. */
static int drain_record(CephAdmin *a, const PlaybookHostFacts *h, size_t n, const char *state, Error *err) {
        for (size_t i = 0; i < n; i++) {
                _cleanup_(freep) int *ids = calloc(h[i].n_osds ? h[i].n_osds : 1, sizeof(int));
                if (!ids)
                        return error_set(err, ENOMEM, "out of memory");
                for (size_t k = 0; k < h[i].n_osds; k++)
                        ids[k] = (int) h[i].osds[k];
                int r = cluster_drained_set(a, h[i].host, state, ids, h[i].n_osds, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int drain_before(void *userdata, CephAdmin *a, const PlaybookHostFacts *h, size_t n, Error *err) {
        return drain_record(a, h, n, "draining", err);
}

static int drain_after(void *userdata, CephAdmin *a, const PlaybookHostFacts *h, size_t n, Error *err) {
        return drain_record(a, h, n, "drained", err);
}

static int cancel_after(void *userdata, CephAdmin *a, const PlaybookHostFacts *h, size_t n, Error *err) {
        for (size_t i = 0; i < n; i++) {
                int r = cluster_drained_rm(a, h[i].host, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The verbs on one host of a layout (`drain`, `destroy`): LAYOUT HOST, and the shipped
 * playbook with the hooks that record the host's state, chosen by `choose` from the options. */
typedef struct HostVerb {
        const char *playbook;
        const char *command;
        bool recorded_osds;
        PlaybookRunHooks hooks;
} HostVerb;

static int host_verb(const char *name, int argc, char *argv[], unsigned accepted,
                     HostVerb (*choose)(const CliOptions *o)) {
        const Verb *v = verb_find(name);
        _cleanup_(cli_options_done) CliOptions o = {};
        int r = cli_options_parse(v, argc, argv, accepted, &o);
        if (r != 0)
                return r;
        if (o.n_args != 2)
                return verb_usage_error(v, "expected LAYOUT and HOST");
        Error err = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        if (layout_load_file(o.args[0], &l, &err) < 0)
                return o.json ? cli_report_json(&err) : cli_report(&err);
        char *hosts[] = { o.args[1], NULL };
        HostVerb hv = choose(&o);
        _cleanup_(freep) char *path = playbook_path(hv.playbook);
        if (!path)
                return log_error("out of memory"), 1;
        return run_playbook(path, l, hosts, hv.command, &o, hv.recorded_osds, hv.hooks);
}

static HostVerb drain_choose(const CliOptions *o) {
        if (o->cancel)
                return (HostVerb) { "drain-cancel", "drain --cancel", false, { .after = cancel_after } };
        return (HostVerb) { "drain-node", "drain", false, { .before = drain_before, .after = drain_after } };
}

int verb_drain(int argc, char *argv[]) {
        return host_verb("drain", argc, argv, OPT_JSON | OPT_DRY_RUN | OPT_YES | OPT_CANCEL, drain_choose);
}

/* ---- destroy ------------------------------------------------------------------------- */

/* The record says destroying from the first step (its OSD ids kept there: once purged, only
 * the record knows them) and destroyed at the end; apply refuses the host from the first
 * step on, until `apply --take-back HOST`. */
static int destroy_before(void *userdata, CephAdmin *a, const PlaybookHostFacts *h, size_t n, Error *err) {
        return drain_record(a, h, n, "destroying", err);
}

static int destroy_after(void *userdata, CephAdmin *a, const PlaybookHostFacts *h, size_t n, Error *err) {
        return drain_record(a, h, n, "destroyed", err);
}

static HostVerb destroy_choose(const CliOptions *o) {
        return (HostVerb) { "destroy-node", "destroy", true, { .before = destroy_before, .after = destroy_after } };
}

int verb_destroy(int argc, char *argv[]) {
        return host_verb("destroy", argc, argv, OPT_JSON | OPT_DRY_RUN | OPT_YES, destroy_choose);
}
