/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The jobs that rebuild OSDs by a convert plan (src/plan/plan-convert.h): `convert` (the
 * convert-filestore playbooks) and `replace` (replace-device). The plan's inputs are saved
 * before the first change (controller/convert.h) so that a re-run after a kill finishes the
 * same plan; a host's OSDs are the ones its plan rebuilds; the conversion's host steps act on
 * the host's plan (controller/convert-steps.h) and each OSD's phase is journaled. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/size.h"
#include "basic/strv.h"
#include "ceph/ceph.h"
#include "controller/convert-steps.h"
#include "controller/convert.h"
#include "controller/job.h"
#include "controller/steps/host-steps.h"
#include "plan/plan-convert.h"

typedef struct ConvertJob {
        ConvertInputs *in;
        ConvertPlan *plan;
        InventorySet *inv;        /* the inventories the plan saw: what its destructive acts expect */
        bool resumed;             /* planned from saved inputs */
        bool replace;             /* a replacement: one host's OSDs that depend on a device */
        bool drain_first;
        bool stop_after_host;
        int *own;                 /* a resumed conversion: the OSDs it may find down */
        size_t n_own;
} ConvertJob;

static void *convert_job_free(void *data) {
        ConvertJob *cj = data;
        if (!cj)
                return NULL;
        convert_inputs_free(cj->in);
        convert_plan_free(cj->plan);
        inventory_set_free(cj->inv);
        free(cj->own);
        free(cj);
        return NULL;
}

/* ---- facts ------------------------------------------------------------------------------ */

/* The OSDs the host's plan rebuilds, and only those. */
static int convert_facts(Job *job, const JobRun *run, const char *host, JobHostOsds *ret, Error *err) {
        ConvertJob *cj = job->data;
        const ConvertHost *ch = convert_plan_host(cj->plan, host);
        for (size_t k = 0; ch && k < ch->n_osds; k++)
                if (ch->osds[k].rebuilt && job_host_osds_add(ret, (unsigned) ch->osds[k].id) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        return 0;
}

/* ---- the plan ----------------------------------------------------------------------------- */

static int print_plan(const ConvertPlan *p, const JobPlanOptions *o, Error *err) {
        if (o->json) {
                if (convert_plan_print_json(p, o->out) < 0)
                        return error_set(err, EIO, "cannot write the plan: %s", strerror(errno));
        } else
                convert_plan_print(p, o->out, o->print_flags);
        if (fflush(o->out) != 0)
                return error_set(err, EIO, "cannot write the plan: %s", strerror(errno));
        return 0;
}

/* The mode and what it costs, per host converted: the data its rebuilt OSDs hold now (`ceph
 * osd df tree`), which comes back onto the new OSDs from the other copies. Without the
 * sizes when the cluster cannot tell. */
static void print_mode_cost(const Layout *l, const ConvertPlan *p, char * const *hosts, bool drain_first, FILE *out) {
        _cleanup_(ceph_admin_closep) CephAdmin *admin = NULL;
        _cleanup_(freep) char *text = NULL;
        _cleanup_(ceph_osd_df_tree_freep) CephOsdDfTree *df = NULL;
        Error e = {};
        if (ceph_admin_open(l, &admin, &e) < 0 ||
            ceph_admin_run(admin, ceph_argv_osd_df_tree(ceph_admin_cli(admin), &e), NULL, &text, &e) < 0 ||
            ceph_osd_df_tree_parse(text, &df, &e) < 0)
                log_debug("no data sizes for the conversion's cost: %s", e.message);
        if (drain_first)
                fprintf(out, "mode: drain first (playbook convert-filestore-drain): a host's data moves off its OSDs before "
                             "they are destroyed (ids and CRUSH places kept) and back onto the new ones: no PG degraded, the "
                             "data moved twice, and the rest of the cluster must hold it meanwhile (drain-check refuses "
                             "before anything changes), one host at a time\n");
        else
                fprintf(out, "mode: in place (playbook convert-filestore): a host's OSDs are destroyed at once, their ids "
                             "and CRUSH places kept, and their data comes back onto the new OSDs from the other copies: PGs "
                             "degraded (one copy fewer) until then, the data moved once, one host at a time\n");
        STRV_FOREACH(h, hosts) {
                const ConvertHost *ch = convert_plan_host(p, *h);
                size_t n = 0;
                uint64_t kib = 0;
                for (size_t k = 0; ch && k < ch->n_osds; k++) {
                        if (!ch->osds[k].rebuilt)
                                continue;
                        n++;
                        const CephDfNode *d = df ? ceph_osd_df_tree_find(df, ch->osds[k].id) : NULL;
                        kib += d ? d->kb_used_data : 0;
                }
                char sz[SIZE_FORMAT_MAX];
                if (df)
                        fprintf(out, "  %s: %zu OSD%s, %s of data to %s\n", *h, n, n == 1 ? "" : "s",
                                size_format(kib * 1024, sz, sizeof(sz)), drain_first ? "move off and back" : "rebuild");
                else
                        fprintf(out, "  %s: %zu OSD%s\n", *h, n, n == 1 ? "" : "s");
        }
        fflush(out);
}

/* What the run needs that the plan does not say: the inventories the plan saw, and, resumed,
 * the OSDs the interrupted run may have left down. */
static int ready(Job *job, Error *err) {
        ConvertJob *cj = job->data;
        int r = convert_inputs_inventory(cj->in, &cj->inv, err);
        if (r < 0)
                return r;
        if (cj->resumed && !cj->replace && (r = convert_own_osds(job->layout, cj->plan, &cj->own, &cj->n_own, err)) < 0)
                return r;
        return 1;
}

static int convert_plan(Job *job, const JobPlanOptions *o, Error *err) {
        ConvertJob *cj = job->data;
        Error ignored = {};
        (void) print_plan(cj->plan, o, &ignored);
        if (strv_length(job->hosts) == 0) {
                if (!o->json)
                        fprintf(o->out, "nothing to convert\n");
                int r = convert_inputs_remove(job->layout, err);
                return r < 0 ? r : 0;
        }
        if (!o->json)
                print_mode_cost(job->layout, cj->plan, job->hosts, cj->drain_first, o->out);
        if (cj->stop_after_host && strv_length(job->hosts) > 1) {
                /* the plan's order is the playbook's (serial, the first one the canary) */
                _cleanup_(freep) char *rest = strv_join(job->hosts + 1, ", ");
                log_notice("--stop-after-host: converting host '%s' only; left for a later run: %s", job->hosts[0],
                           rest ? rest : "?");
                for (size_t i = 1; job->hosts[i]; i++) {
                        free(job->hosts[i]);
                        job->hosts[i] = NULL;
                }
        }
        /* the plan is printed (what it would do), but not started when a step cannot finish it
         * (on stderr: with --json, stdout has the plan's one document) */
        int r = convert_plan_check_built(cj->plan, job->hosts, err);
        if (r < 0) {
                job->report_plain = true;
                return r;
        }
        if (o->dry_run)
                return 0;
        return ready(job, err);
}

static int replace_plan(Job *job, const JobPlanOptions *o, Error *err) {
        ConvertJob *cj = job->data;
        int r = print_plan(cj->plan, o, err);
        if (r < 0)
                return r;
        if (convert_plan_count(cj->plan, true) == 0) {
                /* every OSD that depends on the device is up on it in the layout's shape */
                if (!o->json)
                        fprintf(o->out, "nothing to replace\n");
                r = replace_inputs_remove(job->layout, err);
                return r < 0 ? r : 0;
        }
        if (o->dry_run)
                return 0;
        if (!o->json) {
                fprintf(o->out, "mode: in place (playbook replace-device): the OSDs above are destroyed (ids and CRUSH "
                                "places kept) and made again on the new device; their data comes back from the other "
                                "copies\n");
                fflush(o->out);
        }
        return ready(job, err);
}

/* ---- before, per step, after ---------------------------------------------------------------- */

/* The inputs saved once the operator confirmed and the lock is taken, before the first change
 * (a resumed run's are there already). */
static int convert_before(Job *job, const JobRun *run, const PlaybookHostFacts *hosts, size_t n, Error *err) {
        ConvertJob *cj = job->data;
        /* a host whose OSDs go onto bcache has what bcache needs, or nothing is destroyed:
         * rebuild-osds would find out only after the host's OSDs were gone */
        for (size_t i = 0; cj->plan && i < cj->plan->n_hosts; i++) {
                const ConvertHost *h = &cj->plan->hosts[i];
                bool bcache = false;
                for (size_t k = 0; k < h->n_osds; k++)
                        bcache = bcache || (h->osds[k].rebuilt && h->osds[k].wanted.bcache);
                if (!bcache || !strv_contains(job->hosts, h->host))
                        continue;
                HostSession *session = NULL;
                for (size_t k = 0; run->fleet && k < run->fleet->n; k++)
                        if (streq(run->fleet->sessions[k].host->name, h->host))
                                session = &run->fleet->sessions[k];
                if (!session)
                        return error_set(err, EIO, "host '%s': no agent to ask what bcache needs: nothing changed", h->host);
                int r = convert_bcache_ready(session, err);
                if (r < 0)
                        return error_prefix(err, r, "the conversion puts OSDs on bcache: nothing changed");
        }
        return cj->resumed ? 0 : convert_inputs_save(job->layout, cj->in, err);
}

/* A resumed conversion left its host degraded, its OSDs down and its noout flag on: only going
 * on clears that, so the opening health gate lets those pass (`allow`) — while the only OSDs
 * down are the ones of the host it was converting (`allow_down`). Any other OSD down fails the
 * gate at once: a second failure since the kill is the operator's to look at. */
static int convert_step_args(Job *job, PlaybookSection section, const char *step, json_object *args, Error *err) {
        static const char * const resumed_health[] = { "OSD_FLAGS", "OSDMAP_FLAGS", "OSD_DOWN", "OSD_HOST_DOWN",
                                                       "PG_DEGRADED", "PG_AVAILABILITY" };
        ConvertJob *cj = job->data;
        if (!cj->resumed || cj->replace || section != PLAYBOOK_BEFORE || !streq(step, "health-gate"))
                return 0;
        json_object *down = json_object_new_array();
        if (!down || json_add(args, "allow_down", down) < 0)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < cj->n_own; i++)
                if (json_object_array_add(down, json_object_new_int(cj->own[i])) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        json_object *allow = NULL;
        if (!json_object_object_get_ex(args, "allow", &allow)) {
                if (!(allow = json_object_new_array()) || json_add(args, "allow", allow) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        for (size_t c = 0; c < ELEMENTSOF(resumed_health); c++) {
                bool there = false;
                for (size_t i = 0; i < json_object_array_length(allow); i++)
                        there = there || streq(json_object_get_string(json_object_array_get_idx(allow, i)), resumed_health[c]);
                if (!there && json_object_array_add(allow, json_object_new_string(resumed_health[c])) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

/* The conversion's host steps (unmount-filestore, wipe-replaced, rebuild-osds) act on the
 * host's plan, and expect what the plan's inventory saw. */
static void convert_host_ctx(Job *job, const JobRun *run, HostSession *session, HostStepCtx *h) {
        ConvertJob *cj = job->data;
        const char *host = session->host->name;
        h->conv = (ConvertStepCtx) {
                .layout = job->layout, .admin = run->admin, .fleet = run->fleet, .session = session,
                .j = run->journal, .plan = convert_plan_host(cj->plan, host), .before = run->tree,
        };
        if (cj->inv)
                h->conv_inv = inventory_set_find(cj->inv, host);
}

/* The OSDs' phases journaled: destroyed after destroy-osd; converted after a host's wait-clean
 * that finds the OSD BlueStore and in (the drain-first playbook also waits for clean before
 * it stops the OSDs, and finds them out; in a reshape, BlueStore already). */
static void convert_step_done(Job *job, const JobRun *run, const char *step, json_object *args, const char *host) {
        ConvertJob *cj = job->data;
        const ConvertHost *ch = host ? convert_plan_host(cj->plan, host) : NULL;
        bool destroyed = streq(step, "destroy-osd"), clean = streq(step, "wait-clean");
        if (!ch || (!destroyed && !clean))
                return;
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        if (destroyed && json_get_int_array(args, "osds", false, &ids, &n, step, NULL) < 0)
                return;
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *meta = NULL;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        Error me = {};
        if (clean && (ceph_admin_osd_metadata(run->admin, &meta, &me) < 0 || ceph_admin_osd_dump(run->admin, &dump, &me) < 0))
                log_debug("host '%s': no OSD metadata or map to see which OSDs are converted: %s", host, me.message);
        for (size_t i = 0; i < ch->n_osds; i++) {
                const ConvertOsd *o = &ch->osds[i];
                const CephOsdMetadata *m = meta ? ceph_osd_metadata_find(meta, o->id) : NULL;
                const CephDumpOsd *d = dump ? ceph_osd_dump_find_osd(dump, o->id) : NULL;
                bool listed = clean && o->rebuilt && m && streq_ptr(m->objectstore, "bluestore") && d && d->in;
                for (size_t k = 0; k < n; k++)
                        listed = listed || ids[k] == o->id;
                if (listed)
                        convert_phase(run->journal, host, o->data_device, o->id, destroyed ? "destroyed" : "converted");
        }
}

/* The saved inputs removed when the job is done. */
static int convert_after(Job *job, const JobRun *run, const PlaybookHostFacts *hosts, size_t n, Error *err) {
        ConvertJob *cj = job->data;
        return cj->replace ? replace_inputs_remove(job->layout, err) : convert_inputs_remove(job->layout, err);
}

static int job_plan_convert(Job *job, const JobPlanOptions *o, Error *err) {
        ConvertJob *cj = job->data;
        return cj->replace ? replace_plan(job, o, err) : convert_plan(job, o, err);
}

static const JobOps convert_ops = {
        .facts = convert_facts,
        .plan = job_plan_convert,
        .before = convert_before,
        .step_args = convert_step_args,
        .host_ctx = convert_host_ctx,
        .step_done = convert_step_done,
        .after = convert_after,
        .free_data = convert_job_free,
};

/* A plan from saved inputs made to act on the disks it was planned for. */
static int resume(const Layout *l, ConvertJob *cj, const char *what, Error *err) {
        if (!cj->resumed)
                return 0;
        log_notice("resuming the %s planned before it started (its inputs were saved); the steps see how far it got",
                   what);
        /* the saved plan's kernel names may be other disks now (a reboot since) */
        return convert_inputs_follow(l, cj->in, cj->plan, err);
}

/* ---- the jobs ------------------------------------------------------------------------------- */

int job_convert_new(const Layout *l, const ConvertJobOptions *o, Job **ret, Error *err) {
        _cleanup_(freep) ConvertJob *cj = calloc(1, sizeof(ConvertJob));
        if (!cj)
                return error_set(err, ENOMEM, "out of memory");
        cj->drain_first = o->drain_first;
        cj->stop_after_host = o->stop_after_host;
        int r = convert_inputs_load(l, o->hosts, o->reshape, o->drain_first, &cj->in, &cj->resumed, err);
        if (r >= 0)
                r = convert_inputs_plan(l, cj->in, &cj->plan, err);
        if (r >= 0)
                r = resume(l, cj, "conversion", err);
        /* the hosts with OSDs to rebuild */
        _cleanup_strv_free_ char **hosts = NULL;
        for (size_t i = 0; r >= 0 && i < cj->plan->n_hosts; i++) {
                bool any = false;
                for (size_t k = 0; k < cj->plan->hosts[i].n_osds; k++)
                        any = any || cj->plan->hosts[i].osds[k].rebuilt;
                if (any && strv_extend(&hosts, cj->plan->hosts[i].host) < 0)
                        r = error_set(err, ENOMEM, "out of memory");
        }
        if (r < 0) {
                convert_job_free(TAKE_PTR(cj));
                return r;
        }
        return job_new(l, o->drain_first ? "convert-filestore-drain" : "convert-filestore", "convert", hosts,
                       &convert_ops, TAKE_PTR(cj), ret, err);
}

int job_replace_new(const Layout *l, const char *host, const char *device, Job **ret, Error *err) {
        _cleanup_(freep) ConvertJob *cj = calloc(1, sizeof(ConvertJob));
        if (!cj)
                return error_set(err, ENOMEM, "out of memory");
        cj->replace = true;
        int r = replace_inputs_load(l, host, device, &cj->in, &cj->resumed, err);
        if (r >= 0 && (r = convert_inputs_plan(l, cj->in, &cj->plan, err)) < 0 && cj->resumed)
                /* a plan that cannot be made from saved inputs cannot be finished either */
                error_prefix(err, -err->code, "the replacement under way (saved plan)");
        if (r >= 0)
                r = resume(l, cj, "replacement", err);
        if (r < 0) {
                convert_job_free(TAKE_PTR(cj));
                return r;
        }
        char *hosts[] = { (char *) host, NULL };
        _cleanup_(job_freep) Job *job = NULL;
        if ((r = job_new(l, "replace-device", "replace", hosts, &convert_ops, TAKE_PTR(cj), &job, err)) < 0)
                return r;
        /* another device's replacement on the same host never takes a failed earlier one's
         * steps for its own */
        if (!(job->run_tag = strdup(device)))
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(job);
        return 0;
}
