/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `run PLAYBOOK LAYOUT --hosts …`, `drain LAYOUT HOST [--cancel]` and `destroy LAYOUT
 * HOST`: parse, make the job (controller/job.h), run it, print; and cli_job(), which
 * convert and replace share. */
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
#include "controller/job.h"
#include "controller/playbook-run.h"
#include "plan/plan.h"
#include "options.h"

static volatile sig_atomic_t cancelled;

static void on_sigint(int sig) {
        cancelled = 1;
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

int cli_job(Job *job, const CliOptions *o) {
        int (*report)(const Error *) = o->json ? cli_report_json : cli_report;
        Error err = {};
        JobPlanOptions po = { .out = stdout, .json = o->json, .print_flags = cli_locale_is_utf8() ? PLAN_PRINT_UTF8 : 0,
                              .dry_run = o->dry_run };
        int r = job_plan(job, &po, &err);
        if (r <= 0)
                return r == 0 ? 0 : job->report_plain ? cli_report(&err) : report(&err);

        struct sigaction sa = { .sa_handler = on_sigint }, old_int, old_term;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        JobRunOptions ro = {
                .dry_run = o->dry_run,
                .yes = o->yes,
                .confirm = cli_confirm,
                .out = o->json ? NULL : stdout,
                .progress = isatty(STDERR_FILENO) && !o->json ? stderr : NULL,
                .cancel = &cancelled,
        };
        _cleanup_(playbook_run_result_freep) PlaybookRunResult *res = NULL;
        r = job_run(job, &ro, &res, &err);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        if (r < 0)
                return report(&err);
        fflush(stdout);
        if (!o->json)
                print_freed(res);
        return print_result(res, o->json, job->command);
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
        _cleanup_(job_freep) Job *job = NULL;
        if (layout_load_file(o.args[1], &l, &err) < 0 || job_playbook_new(l, o.args[0], o.hosts, &job, &err) < 0)
                return o.json ? cli_report_json(&err) : cli_report(&err);
        return cli_job(job, &o);
}

/* ---- drain, destroy ------------------------------------------------------------------- */

/* The verbs on one host of a layout: LAYOUT HOST, and the job (controller/job.h) that runs
 * its shipped playbook and records the host's state. */
static int host_verb(const char *name, int argc, char *argv[], unsigned accepted) {
        const Verb *v = verb_find(name);
        _cleanup_(cli_options_done) CliOptions o = {};
        int r = cli_options_parse(v, argc, argv, accepted, &o);
        if (r != 0)
                return r;
        if (o.n_args != 2)
                return verb_usage_error(v, "expected LAYOUT and HOST");
        Error err = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        _cleanup_(job_freep) Job *job = NULL;
        if (layout_load_file(o.args[0], &l, &err) < 0)
                return o.json ? cli_report_json(&err) : cli_report(&err);
        r = streq(name, "destroy") ? job_destroy_new(l, o.args[1], &job, &err)
                                   : job_drain_new(l, o.args[1], o.cancel, &job, &err);
        if (r < 0)
                return o.json ? cli_report_json(&err) : cli_report(&err);
        return cli_job(job, &o);
}

int verb_drain(int argc, char *argv[]) {
        return host_verb("drain", argc, argv, OPT_JSON | OPT_DRY_RUN | OPT_YES | OPT_CANCEL);
}

int verb_destroy(int argc, char *argv[]) {
        return host_verb("destroy", argc, argv, OPT_JSON | OPT_DRY_RUN | OPT_YES);
}
