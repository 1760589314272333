/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "controller/playbook-run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "controller/step-requests.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/strv.h"
#include "controller/cluster-lock.h"
#include "controller/cluster-steps.h"
#include "controller/hosts.h"
#include "controller/steps/host-steps.h"
#include "exec/journal.h"
#include "plan/plan-destroy.h"

PlaybookRunResult *playbook_run_result_free(PlaybookRunResult *r) {
        if (!r)
                return NULL;
        json_object_put(r->plan);
        wave_report_free(r->report);
        free(r);
        return NULL;
}

int playbook_run_result_to_json(const PlaybookRunResult *r, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        json_add_bool(o, "ok", r->ok);
        json_add_bool(o, "refused", r->refused);
        if (r->plan)
                json_add(o, "plan", json_object_get(r->plan));
        if (r->report) {
                json_object *rep = NULL;
                if (wave_report_to_json(r->report, &rep) < 0)
                        return -ENOMEM;
                json_add(o, "report", rep);
        }
        *ret = TAKE_PTR(o);
        return 0;
}

/* ---- building the wave plan --------------------------------------------------------- */

static WaveClass wave_class(StepConcurrency c) {
        switch (c) {
        case STEP_CONCURRENCY_HOST_SERIAL:
                return WAVE_CLASS_HOST_SERIAL;
        case STEP_CONCURRENCY_DEVICE_EXCLUSIVE:
        case STEP_CONCURRENCY_OSD_PARALLEL:
                return WAVE_CLASS_PARALLEL;
        case STEP_CONCURRENCY_CLUSTER_SERIAL:
                return WAVE_CLASS_CLUSTER_SERIAL;
        default:
                return WAVE_CLASS_WAIT;
        }
}

WaveClass playbook_step_class(const StepEntry *e, json_object *args) {
        /* A per-device step given `owned: true` acts on every device cephprov owns on the
         * host, not on one: it overlaps no other step of the host. (destroy's bcache-teardown
         * and wipe, both per-device, ran at once on the uml guest: the wipe found a backing
         * disk still held by the bcache device the teardown was flushing, and failed.) */
        bool owned = false;
        if (e->concurrency == STEP_CONCURRENCY_DEVICE_EXCLUSIVE &&
            json_get_bool(args, "owned", false, &owned, e->name, NULL) >= 0 && owned)
                return WAVE_CLASS_HOST_SERIAL;
        return wave_class(e->concurrency);
}

typedef struct Built {
        WaveStep *steps;
        size_t n;
} Built;

static void built_done(Built *b) {
        for (size_t i = 0; b && i < b->n; i++)
                json_object_put(b->steps[i].args);
        if (b)
                free(b->steps);
}

static int build_steps(const Playbook *pb, PlaybookSection sec, const StepFacts *facts, Job *job, Built *ret,
                       Error *err) {
        size_t n = pb->n_steps[sec];
        WaveStep *s = calloc(n ? n : 1, sizeof(WaveStep));
        if (!s)
                return error_set(err, ENOMEM, "out of memory");
        *ret = (Built) { s, 0 };
        for (size_t i = 0; i < n; i++) {
                const PlaybookStep *ps = &pb->steps[sec][i];
                json_object *args = NULL;
                int r = step_args_substitute(ps->entry, ps->args, facts, &args, err);
                if (r < 0)
                        return r;
                if (job->ops->step_args && (r = job->ops->step_args(job, sec, ps->entry->name, args, err)) < 0) {
                        json_object_put(args);
                        return r;
                }
                s[i] = (WaveStep) {
                        .name = ps->entry->name,
                        .target = ps->entry->target == STEP_TARGET_HOST ? WAVE_TARGET_HOST : WAVE_TARGET_CLUSTER,
                        .class = playbook_step_class(ps->entry, args),
                        .args = args,
                        /* waits check the real state again on a re-run */
                        .rerun = ps->entry->concurrency == STEP_CONCURRENCY_WAIT,
                        .destructive = ps->entry->destructive,
                };
                ret->n++;
        }
        return 0;
}

/* ---- the run ---------------------------------------------------------------------- */

/* The cluster link: the cluster steps, then what the job records of one that succeeded. */
typedef struct JobLink {
        ClusterSteps *cs;
        Job *job;
        const JobRun *run;
} JobLink;

static int job_cluster_call(void *userdata, const char *step, json_object *args, WaveCall *c, json_object **ret_result,
                            Error *err) {
        JobLink *jl = userdata;
        int r = cluster_steps_call(jl->cs, step, args, c, ret_result, err);
        if (r >= 0 && jl->job->ops->step_done)
                jl->job->ops->step_done(jl->job, jl->run, step, args, wave_call_host(c));
        return r;
}

typedef struct HostState {
        const Host *host;
        JobHostOsds o;            /* the job's facts */
        int *ids;                 /* o.osds, for the host link, then o.more (the destroy plan's) */
        size_t n_ids;
        Built steps;
} HostState;

static WaveTickAction tick(void *userdata, const WaveTick *t) {
        return WAVE_TICK_RUN;
}

static int lock_guard(void *userdata, Error *err) {
        return ceph_cluster_lock_check(userdata, err);
}

/* A host step that acts on what cephprov owns on the host (destroy's wipe and teardown). */
static bool playbook_has_owned_step(const Playbook *pb) {
        for (size_t i = 0; i < pb->n_steps[PLAYBOOK_PER_HOST]; i++) {
                bool owned = false;
                const PlaybookStep *ps = &pb->steps[PLAYBOOK_PER_HOST][i];
                if (ps->entry->target == STEP_TARGET_HOST && ps->args &&
                    json_get_bool(ps->args, "owned", false, &owned, "step", NULL) >= 0 && owned)
                        return true;
        }
        return false;
}

static const PlaybookStep *playbook_find_step(const Playbook *pb, const char *name) {
        for (int s = 0; s < _PLAYBOOK_SECTION_MAX; s++)
                for (size_t i = 0; i < pb->n_steps[s]; i++)
                        if (streq(pb->steps[s][i].entry->name, name))
                                return &pb->steps[s][i];
        return NULL;
}

static bool playbook_has_step(const Playbook *pb, const char *name) {
        return playbook_find_step(pb, name) != NULL;
}

/* Everything a run holds, freed in one place (returns happen anywhere). */
typedef struct Run {
        size_t n;
        HostState *hs;
        PlaybookHostFacts *facts;
        const Host **hosts;
        CephAdmin *admin;
        CephOsdTree *tree;
        PlaybookRunResult *res;
        Journal *j;
        CephClusterLock *lock;
        Fleet *fleet;
        HostStepCtx *rh;
        HostLink *links;
        Built before, gate, after;
        WaveHost *wh;
        PlaybookWaves *pw;
        unsigned *wave_of;
        char *id;
        char *fsid;
        char **done;
        JobRun run;               /* what the job's hooks see */
} Run;

static void run_done(Run *r) {
        for (size_t i = 0; r->hs && i < r->n; i++) {
                free(r->hs[i].o.osds);
                free(r->hs[i].o.more);
                free(r->hs[i].ids);
                built_done(&r->hs[i].steps);
        }
        built_done(&r->before);
        built_done(&r->gate);
        built_done(&r->after);
        free(r->hs);
        free(r->facts);
        free(r->hosts);
        free(r->rh);
        free(r->links);
        free(r->wh);
        playbook_waves_free(r->pw);
        free(r->wave_of);
        free(r->id);
        free(r->fsid);
        strv_free(r->done);
        fleet_close(r->fleet);
        ceph_cluster_unlock(r->lock);
        journal_close(r->j);
        playbook_run_result_free(r->res);
        ceph_osd_tree_free(r->tree);
        ceph_admin_close(r->admin);
}

int playbook_run(const Playbook *pb, Job *job, const JobRunOptions *o, PlaybookRunResult **ret, Error *err) {
        const Layout *l = job->layout;
        const JobOps *ops = job->ops;
        _cleanup_(run_done) Run R = { .n = strv_length(job->hosts) };
        size_t n = R.n;
        int r;

        if (n == 0)
                return error_set(err, EINVAL, "playbook '%s': no host given", pb->name);
        if (!l->admin_host)
                return error_set(err, EINVAL, "layout '%s' names no admin_host: playbooks act on the cluster through it",
                                 l->path ? l->path : "");
        R.hs = calloc(n, sizeof(HostState));
        R.facts = calloc(n, sizeof(PlaybookHostFacts));
        R.hosts = calloc(n, sizeof(Host *));
        R.res = calloc(1, sizeof(PlaybookRunResult));
        if (!R.hs || !R.facts || !R.hosts || !R.res)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                R.hs[i].host = R.hosts[i] = layout_find_host(l, job->hosts[i]);
                if (!R.hs[i].host)
                        return error_set(err, ENOENT, "host '%s' is not in the layout '%s'", job->hosts[i],
                                         l->path ? l->path : "");
        }

        if ((r = ceph_admin_open(l, &R.admin, err)) < 0)
                return r;
        /* declared after R: its controller thread stops before R closes the admin client */
        _cleanup_(cluster_steps_done) ClusterSteps cs = {};
        if ((r = cluster_steps_init(&cs, R.admin, l, err)) < 0)
                return r;
        cs.log = o->out;

        /* each host's OSDs: those under its CRUSH host bucket */
        if ((r = ceph_admin_osd_tree(R.admin, &R.tree, err)) < 0)
                return r;
        R.run = (JobRun) { .layout = l, .admin = R.admin, .tree = R.tree };
        for (size_t i = 0; i < n; i++) {
                HostState *h = &R.hs[i];
                if ((r = ops->facts ? ops->facts(job, &R.run, h->host->name, &h->o, err)
                                    : job_host_osds_bucket(&R.run, h->host->name, &h->o, err)) < 0)
                        return r;
                h->n_ids = h->o.n_osds + h->o.n_more;
                if (!(h->ids = calloc(h->n_ids ? h->n_ids : 1, sizeof(int))))
                        return error_set(err, ENOMEM, "out of memory");
                for (size_t k = 0; k < h->o.n_osds; k++)
                        h->ids[k] = (int) h->o.osds[k];
                for (size_t k = 0; k < h->o.n_more; k++)
                        h->ids[h->o.n_osds + k] = h->o.more[k];
                R.facts[i] = (PlaybookHostFacts) { .host = h->host->name, .osds = h->o.osds, .n_osds = h->o.n_osds };
        }

        if (playbook_plan_to_json(pb, R.facts, n, &R.res->plan) < 0)
                return error_set(err, ENOMEM, "out of memory");
        if (o->out)
                playbook_print_plan(pb, R.facts, n, o->out);

        /* the drain check before anything changes, with its projection in the plan */
        const PlaybookStep *drain_check = playbook_find_step(pb, "drain-check");
        if (drain_check) {
                /* as the step will run: the run's hosts (or those it names) gone at once, or
                 * each alone with together: false */
                bool together = true;
                (void) json_get_bool(drain_check->args, "together", false, &together, "drain-check", NULL);
                _cleanup_strv_free_ char **names = NULL;
                json_object *given = NULL;
                if (json_object_object_get_ex(drain_check->args, "hosts", &given) &&
                    json_object_is_type(given, json_type_array)) {
                        for (size_t i = 0; i < json_object_array_length(given); i++)
                                if (strv_extend(&names, json_object_get_string(json_object_array_get_idx(given, i))) < 0)
                                        return error_set(err, ENOMEM, "out of memory");
                } else
                        for (size_t i = 0; i < n; i++)
                                if (strv_extend(&names, R.hs[i].host->name) < 0)
                                        return error_set(err, ENOMEM, "out of memory");
                json_object *checks = json_object_new_array();
                json_add(R.res->plan, "drain_checks", checks);
                size_t n_checks = together ? 1 : strv_length(names);
                for (size_t i = 0; names && i < n_checks; i++) {
                        char *one[] = { names[i], NULL };
                        _cleanup_(ceph_drain_check_freep) CephDrainCheck *dc = NULL;
                        if ((r = cluster_steps_drain_check(&cs, together ? names : one, &dc, err)) < 0)
                                return r;
                        json_object_array_add(checks, ceph_drain_check_to_json(dc));
                        if (o->out) {
                                _cleanup_(freep) char *text = ceph_drain_check_format(dc);
                                fprintf(o->out, "%s\n", text ? text : "");
                        }
                        if (!dc->ok)
                                R.res->refused = true;
                }
                if (R.res->refused) {
                        if (o->out)
                                fprintf(o->out, "refused: nothing was changed\n");
                        *ret = TAKE_PTR(R.res);
                        return 0;
                }
        }
        /* what cephprov owns on each host and would take off it: from the hosts' agents */
        if (playbook_has_owned_step(pb)) {
                _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
                if ((r = ceph_admin_osd_dump(R.admin, &dump, err)) < 0)
                        return r;
                if (!dump->fsid || !(R.fsid = strdup(dump->fsid)))
                        return error_set(err, dump->fsid ? ENOMEM : EBADMSG,
                                         "'ceph osd dump' gave no cluster fsid: '%s' wipes only this cluster's OSDs "
                                         "and cannot tell them", pb->name);
                if ((r = fleet_open(l, R.hosts, n, o->dry_run, o->progress != NULL, &R.fleet, err)) < 0)
                        return r;
                for (size_t i = 0; i < n; i++)
                        if (R.fleet->sessions[i].r < 0)
                                return error_set(err, -R.fleet->sessions[i].r,
                                                 "host '%s' cannot be reached (%s): '%s' wipes what cephprov owns there "
                                                 "through its agent", R.hs[i].host->name,
                                                 R.fleet->sessions[i].error.message, pb->name);
                json_object *plans = json_object_new_array();
                json_add(R.res->plan, "destroy", plans);
                for (size_t i = 0; i < n; i++) {
                        _cleanup_(inventory_freep) Inventory *inv = NULL;
                        _cleanup_(destroy_plan_freep) DestroyPlan *dp = NULL;
                        json_object *pj = NULL;
                        if ((r = host_session_inventory(&R.fleet->sessions[i], &inv, err)) < 0 ||
                            (r = plan_destroy(inv, R.fsid, R.hs[i].ids, R.hs[i].n_ids, true, &dp, err)) < 0)
                                return r;
                        if (destroy_plan_to_json(dp, &pj) < 0 || json_object_array_add(plans, pj) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                        if (o->out)
                                destroy_plan_print(dp, o->out);
                }
        }
        if (o->dry_run) {
                R.res->ok = true;
                *ret = TAKE_PTR(R.res);
                return 0;
        }
        if (pb->destructive && !o->yes) {
                _cleanup_(freep) char *q = strprintf("run the destructive playbook '%s' on %zu host%s?", pb->name, n,
                                                     n == 1 ? "" : "s");
                if (!o->confirm || !q || !o->confirm(q))
                        return error_set(err, ECANCELED, "not confirmed: nothing changed (give --yes to run without asking, "
                                                         "--dry-run to see the plan)");
        }

        /* the journal (this machine's runs one at a time), then the cluster's lock */
        {
                _cleanup_(freep) char *dir = NULL;
                _cleanup_(freep) char *cmd = strprintf("%s %s", job->command, pb->name);
                if ((r = journal_default_dir(&dir, err)) < 0 || (r = journal_open(dir, l->cluster_name, cmd, &R.j, err)) < 0)
                        return r;
                /* every record this run leaves in the cluster names it */
                cs.run_id = R.j->run_id;
                _cleanup_(freep) char *token = strprintf("%s.cluster-lock", R.j->path);
                if (!token)
                        return error_set(err, ENOMEM, "out of memory");
                if ((r = ceph_cluster_lock(l, job->command, token, &R.lock, err)) < 0)
                        return r;
        }
        ceph_admin_set_lock(R.admin, R.lock);
        R.run.journal = R.j;

        /* the hosts' agents, for the host steps, and for the job's `before`: what a host lacks
         * for the steps (convert onto bcache: the module, make-bcache) is asked there, before
         * anything changes */
        if (!R.fleet && (r = fleet_open(l, R.hosts, n, false, o->progress != NULL, &R.fleet, err)) < 0)
                return r;
        /* each destructive agent request carries the lease, and none goes once it is lost:
         * also between the devices of one step's loop (owned wipe and teardown, wipe-replaced) */
        fleet_set_lock(R.fleet, R.lock);
        R.run.fleet = R.fleet;
        if (ops->before && (r = ops->before(job, &R.run, R.facts, n, err)) < 0)
                return r;
        R.rh = calloc(n, sizeof(HostStepCtx));
        R.links = calloc(n, sizeof(HostLink));
        R.wh = calloc(n, sizeof(WaveHost));
        R.wave_of = calloc(n, sizeof(unsigned));
        if (!R.rh || !R.links || !R.wh || !R.wave_of)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                R.rh[i] = (HostStepCtx) { .session = &R.fleet->sessions[i], .cs = &cs, .osds = R.hs[i].ids,
                                      .n_osds = R.hs[i].n_ids, .fsid = R.fsid };
                if (ops->host_ctx)
                        ops->host_ctx(job, &R.run, &R.fleet->sessions[i], &R.rh[i]);
                R.links[i] = (HostLink) { .host = R.hs[i].host->name, .call = host_step_call, .userdata = &R.rh[i] };
        }

        /* the steps, their references filled in per host */
        StepFacts all = { .hosts = job->hosts };
        if ((r = build_steps(pb, PLAYBOOK_BEFORE, &all, job, &R.before, err)) < 0 ||
            (r = build_steps(pb, PLAYBOOK_GATE, &all, job, &R.gate, err)) < 0 ||
            (r = build_steps(pb, PLAYBOOK_AFTER, &all, job, &R.after, err)) < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                StepFacts f = { .host = R.hs[i].host->name, .osds = R.hs[i].o.osds, .n_osds = R.hs[i].o.n_osds,
                                .hosts = job->hosts };
                if ((r = build_steps(pb, PLAYBOOK_PER_HOST, &f, job, &R.hs[i].steps, err)) < 0)
                        return r;
                R.wh[i] = (WaveHost) { .name = R.hs[i].host->name, .steps = R.hs[i].steps.steps,
                                       .n_steps = R.hs[i].steps.n };
        }

        /* the waves as the plan printed them */
        if (playbook_waves(pb, R.facts, n, &R.pw) < 0)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t w = 0; w < R.pw->n_waves; w++)
                for (size_t k = R.pw->start[w]; k < R.pw->start[w + 1]; k++)
                        R.wave_of[R.pw->hosts[k]] = (unsigned) w + 1;

        _cleanup_(freep) char *joined = strv_join(job->hosts, ",");
        R.id = !joined ? NULL
             : job->run_tag ? strprintf("%s:%s:%s", pb->name, joined, job->run_tag)
                          : strprintf("%s:%s", pb->name, joined);
        if (!R.id)
                return error_set(err, ENOMEM, "out of memory");
        if ((r = journal_done_step_keys(R.j->path, R.id, &R.done, err)) < 0)
                return r;
        WavePlan plan = {
                .id = R.id,
                .hosts = R.wh,
                .n_hosts = n,
                .before = R.before.steps, .n_before = R.before.n,
                .gate = R.gate.steps, .n_gate = R.gate.n,
                .after = R.after.steps, .n_after = R.after.n,
                .on_failure = pb->on_failure == PLAYBOOK_ON_FAILURE_STOP ? WAVE_ON_FAILURE_STOP : WAVE_ON_FAILURE_CONTINUE,
                .waves = R.wave_of,
                .done_keys = R.done,
        };
        /* a run killed while the adaptive throttle steered: it steers again from the start */
        if (playbook_has_step(pb, "throttle") && (r = cluster_steps_resume_adaptive(&cs, err)) < 0)
                return r;
        JobLink jl = { .cs = &cs, .job = job, .run = &R.run };
        ClusterLink cl = { .call = job_cluster_call, .userdata = &jl };
        WaveOptions wo = {
                .parallel_hosts = l->concurrency ? l->concurrency : 1,
                .parallel_steps = 4,
                .host_links = R.links,
                .n_host_links = n,
                .cluster = &cl,
                .journal = R.j,
                .out = o->out,
                .progress = o->progress,
                .tick_ms = 1000,
                .tick = tick,
                .tick_userdata = NULL,
                .cancel = o->cancel,
                .guard = lock_guard,
                .guard_userdata = R.lock,
        };
        if ((r = waves_run(&plan, &wo, &R.res->report, err)) < 0)
                return r;
        R.res->ok = R.res->report->status == WAVE_STATUS_OK;
        if (R.res->ok && ops->after && (r = ops->after(job, &R.run, R.facts, n, err)) < 0)
                return r;
        *ret = TAKE_PTR(R.res);
        return 0;
}
