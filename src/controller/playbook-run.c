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
#include "controller/convert-steps.h"
#include "controller/hosts.h"
#include "controller/steps/host-steps.h"
#include "exec/journal.h"
#include "plan/plan-convert.h"
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

/* health-gate's `allow` with the run's extra codes, and its `allow_down`
 * (PlaybookRunOptions.health_allow). */
static int health_allow_add(json_object *args, const PlaybookHealthAllow *ha) {
        json_object *down = json_object_new_array();
        if (!down || json_add(args, "allow_down", down) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < ha->n_down; i++)
                if (json_object_array_add(down, json_object_new_int(ha->down[i])) < 0)
                        return -ENOMEM;
        char * const *extra = ha->codes;
        json_object *allow = NULL;
        if (!json_object_object_get_ex(args, "allow", &allow)) {
                if (!(allow = json_object_new_array()) || json_add(args, "allow", allow) < 0)
                        return -ENOMEM;
        }
        for (char * const *c = extra; c && *c; c++) {
                bool there = false;
                for (size_t i = 0; i < json_object_array_length(allow); i++)
                        there = there || streq(json_object_get_string(json_object_array_get_idx(allow, i)), *c);
                if (!there && json_object_array_add(allow, json_object_new_string(*c)) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static int build_steps(const Playbook *pb, PlaybookSection sec, const StepFacts *facts,
                       const PlaybookHealthAllow *health_allow,
                       Built *ret, Error *err) {
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
                if (health_allow && streq(ps->entry->name, "health-gate") && health_allow_add(args, health_allow) < 0) {
                        json_object_put(args);
                        return error_set(err, ENOMEM, "out of memory");
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

/* The cluster link of a conversion: the cluster steps, with the OSDs' phases journaled
 * (destroyed after destroy-osd; converted after a host's wait-clean that finds the OSD
 * BlueStore: the drain-first playbook also waits for clean before it stops the OSDs). */
typedef struct ConvertLink {
        ClusterSteps *cs;
        CephAdmin *admin;
        const ConvertPlan *plan;
        Journal *j;
} ConvertLink;

static int convert_cluster_call(void *userdata, const char *step, json_object *args, WaveCall *c,
                                json_object **ret_result, Error *err) {
        ConvertLink *cl = userdata;
        int r = cluster_steps_call(cl->cs, step, args, c, ret_result, err);
        const char *host = wave_call_host(c);
        if (r < 0 || !host)
                return r;
        const ConvertHost *ch = NULL;
        for (size_t i = 0; i < cl->plan->n_hosts; i++)
                if (streq(cl->plan->hosts[i].host, host))
                        ch = &cl->plan->hosts[i];
        if (!ch)
                return r;
        bool destroyed = streq(step, "destroy-osd"), clean = streq(step, "wait-clean");
        if (!destroyed && !clean)
                return r;
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        if (destroyed && json_get_int_array(args, "osds", false, &ids, &n, step, NULL) < 0)
                return r;
        /* converted: BlueStore and in (the drain-first playbook's wait before the stop finds
         * the OSDs out, and, in a reshape, BlueStore already) */
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *meta = NULL;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        Error me = {};
        if (clean && (ceph_admin_osd_metadata(cl->admin, &meta, &me) < 0 || ceph_admin_osd_dump(cl->admin, &dump, &me) < 0))
                log_debug("host '%s': no OSD metadata or map to see which OSDs are converted: %s", host, me.message);
        for (size_t i = 0; i < ch->n_osds; i++) {
                const ConvertOsd *o = &ch->osds[i];
                const CephOsdMetadata *m = meta ? ceph_osd_metadata_find(meta, o->id) : NULL;
                const CephDumpOsd *d = dump ? ceph_osd_dump_find_osd(dump, o->id) : NULL;
                bool listed = clean && o->rebuilt && m && streq_ptr(m->objectstore, "bluestore") && d && d->in;
                for (size_t k = 0; k < n; k++)
                        listed = listed || ids[k] == o->id;
                if (listed)
                        convert_phase(cl->j, host, o->data_device, o->id, destroyed ? "destroyed" : "converted");
        }
        return r;
}

typedef struct HostState {
        const Host *host;
        unsigned *osds;
        size_t n_osds;
        int *ids;                 /* the same, for the host link, then the ids its record names
                                   * that are now another host's (only the destroy plan's) */
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

/* Adds id to the host's OSDs unless there already. */
static int host_add_osd(HostState *h, unsigned id) {
        for (size_t k = 0; k < h->n_osds; k++)
                if (h->osds[k] == id)
                        return 0;
        unsigned *n = realloc(h->osds, (h->n_osds + 1) * sizeof(unsigned));
        if (!n)
                return -ENOMEM;
        h->osds = n;
        h->osds[h->n_osds++] = id;
        return 0;
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
} Run;

static void run_done(Run *r) {
        for (size_t i = 0; r->hs && i < r->n; i++) {
                free(r->hs[i].osds);
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

int playbook_run(const PlaybookRunOptions *o, PlaybookRunResult **ret, Error *err) {
        const Layout *l = o->layout;
        const Playbook *pb = o->playbook;
        _cleanup_(run_done) Run R = { .n = strv_length(o->hosts) };
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
                R.hs[i].host = R.hosts[i] = layout_find_host(l, o->hosts[i]);
                if (!R.hs[i].host)
                        return error_set(err, ENOENT, "host '%s' is not in the layout '%s'", o->hosts[i],
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
        for (size_t i = 0; i < n; i++) {
                const CephTreeHost *th = ceph_osd_tree_find_host(R.tree, R.hs[i].host->name);
                const ConvertHost *ch = o->convert ? convert_plan_host(o->convert, R.hs[i].host->name) : NULL;
                if (o->convert) {
                        /* a conversion: the OSDs the host's plan rebuilds, and only those */
                        for (size_t k = 0; ch && k < ch->n_osds; k++)
                                if (ch->osds[k].rebuilt && host_add_osd(&R.hs[i], (unsigned) ch->osds[k].id) < 0)
                                        return error_set(err, ENOMEM, "out of memory");
                } else if (th && th->n_osds > 0) {
                        if (!(R.hs[i].osds = calloc(th->n_osds, sizeof(unsigned))))
                                return error_set(err, ENOMEM, "out of memory");
                        for (size_t k = 0; k < th->n_osds; k++)
                                R.hs[i].osds[k] = (unsigned) th->osds[k];
                        R.hs[i].n_osds = th->n_osds;
                }
                _cleanup_(freep) int *others = NULL; /* the record's ids now another host's */
                size_t n_others = 0;
                if (o->recorded_osds) {
                        /* and those its record names (purged already, when destroy runs again),
                         * while they are still this host's: a purged id may have been given to
                         * another host's new OSD since. Those are no step's to act on; only the
                         * destroy plan knows them, for this host's disks that still carry them. */
                        _cleanup_(freep) char *state = NULL;
                        _cleanup_(freep) int *ids = NULL, *own = NULL;
                        _cleanup_strv_free_ char **other = NULL;
                        size_t n_ids = 0, n_own = 0;
                        if ((r = cluster_drained_get(R.admin, R.hs[i].host->name, &state, &ids, &n_ids, err)) < 0)
                                return r;
                        if (r == 0)
                                n_ids = 0;
                        if ((r = cluster_osds_of_host(R.admin, R.hs[i].host->name, ids, n_ids, &own, &n_own, &other,
                                                      err)) < 0)
                                return r;
                        for (size_t k = 0; k < n_own; k++)
                                if (own[k] >= 0 && host_add_osd(&R.hs[i], (unsigned) own[k]) < 0)
                                        return error_set(err, ENOMEM, "out of memory");
                        if (other) {
                                _cleanup_(freep) char *list = strv_join(other, ", ");
                                log_notice("host '%s': its record names %s: left alone", R.hs[i].host->name,
                                           list ? list : "");
                                if (!(others = calloc(n_ids, sizeof(int))))
                                        return error_set(err, ENOMEM, "out of memory");
                                for (size_t k = 0; k < n_ids; k++) {
                                        bool mine = false;
                                        for (size_t m = 0; m < n_own; m++)
                                                mine = mine || own[m] == ids[k];
                                        if (!mine && ids[k] >= 0)
                                                others[n_others++] = ids[k];
                                }
                        }
                }
                R.hs[i].n_ids = R.hs[i].n_osds + n_others;
                if (!(R.hs[i].ids = calloc(R.hs[i].n_ids ? R.hs[i].n_ids : 1, sizeof(int))))
                        return error_set(err, ENOMEM, "out of memory");
                for (size_t k = 0; k < R.hs[i].n_osds; k++)
                        R.hs[i].ids[k] = (int) R.hs[i].osds[k];
                for (size_t k = 0; k < n_others; k++)
                        R.hs[i].ids[R.hs[i].n_osds + k] = others[k];
                R.facts[i] = (PlaybookHostFacts) { .host = R.hs[i].host->name, .osds = R.hs[i].osds,
                                                   .n_osds = R.hs[i].n_osds };
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
                _cleanup_(freep) char *cmd = strprintf("%s %s", o->command, pb->name);
                if ((r = journal_default_dir(&dir, err)) < 0 || (r = journal_open(dir, l->cluster_name, cmd, &R.j, err)) < 0)
                        return r;
                /* every record this run leaves in the cluster names it */
                cs.run_id = R.j->run_id;
                _cleanup_(freep) char *token = strprintf("%s.cluster-lock", R.j->path);
                if (!token)
                        return error_set(err, ENOMEM, "out of memory");
                if ((r = ceph_cluster_lock(l, o->command, token, &R.lock, err)) < 0)
                        return r;
        }
        ceph_admin_set_lock(R.admin, R.lock);
        if (o->hooks.before && (r = o->hooks.before(o->hooks.userdata, R.admin, R.facts, n, err)) < 0)
                return r;

        /* the hosts' agents, for the host steps */
        if (!R.fleet && (r = fleet_open(l, R.hosts, n, false, o->progress != NULL, &R.fleet, err)) < 0)
                return r;
        /* each destructive agent request carries the lease, and none goes once it is lost:
         * also between the devices of one step's loop (owned wipe and teardown, wipe-replaced) */
        fleet_set_lock(R.fleet, R.lock);
        R.rh = calloc(n, sizeof(HostStepCtx));
        R.links = calloc(n, sizeof(HostLink));
        R.wh = calloc(n, sizeof(WaveHost));
        R.wave_of = calloc(n, sizeof(unsigned));
        if (!R.rh || !R.links || !R.wh || !R.wave_of)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                R.rh[i] = (HostStepCtx) { .session = &R.fleet->sessions[i], .cs = &cs, .osds = R.hs[i].ids,
                                      .n_osds = R.hs[i].n_ids, .fsid = R.fsid };
                if (o->convert)
                        R.rh[i].conv = (ConvertStepCtx) {
                                .layout = l, .admin = R.admin, .fleet = R.fleet, .session = &R.fleet->sessions[i],
                                .j = R.j, .plan = convert_plan_host(o->convert, R.hs[i].host->name), .before = R.tree,
                        };
                if (o->convert && o->convert_inventory)
                        R.rh[i].conv_inv = inventory_set_find(o->convert_inventory, R.hs[i].host->name);
                R.links[i] = (HostLink) { .host = R.hs[i].host->name, .call = host_step_call, .userdata = &R.rh[i] };
        }

        /* the steps, their references filled in per host */
        StepFacts all = { .hosts = o->hosts };
        if ((r = build_steps(pb, PLAYBOOK_BEFORE, &all, o->health_allow, &R.before, err)) < 0 ||
            (r = build_steps(pb, PLAYBOOK_GATE, &all, NULL, &R.gate, err)) < 0 ||
            (r = build_steps(pb, PLAYBOOK_AFTER, &all, NULL, &R.after, err)) < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                StepFacts f = { .host = R.hs[i].host->name, .osds = R.hs[i].osds, .n_osds = R.hs[i].n_osds,
                                .hosts = o->hosts };
                if ((r = build_steps(pb, PLAYBOOK_PER_HOST, &f, NULL, &R.hs[i].steps, err)) < 0)
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

        _cleanup_(freep) char *joined = strv_join((char **) o->hosts, ",");
        R.id = !joined ? NULL
             : o->run_tag ? strprintf("%s:%s:%s", pb->name, joined, o->run_tag)
                          : strprintf("%s:%s", pb->name, joined);
        if (!R.id)
                return error_set(err, ENOMEM, "out of memory");
        if ((r = journal_done_step_keys(R.j->path, R.id, &R.done, err)) < 0)
                return r;
        WavePlan plan = {
                .id = R.id,
                .hosts = R.wh,
                .n_hosts = n,
                .strategy = pb->strategy == PLAYBOOK_HOSTS_BATCH            ? WAVE_STRATEGY_BATCH
                          : pb->strategy == PLAYBOOK_HOSTS_FAILURE_DOMAIN ? WAVE_STRATEGY_FAILURE_DOMAIN
                                                                          : WAVE_STRATEGY_SERIAL,
                .batch_size = pb->batch,
                .canary_first = pb->canary,
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
        ClusterLink cl = { .call = cluster_steps_call, .userdata = &cs };
        ConvertLink convl = { .cs = &cs, .admin = R.admin, .plan = o->convert, .j = R.j };
        if (o->convert)
                cl = (ClusterLink) { .call = convert_cluster_call, .userdata = &convl };
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
        if (R.res->ok && o->hooks.after && (r = o->hooks.after(o->hooks.userdata, R.admin, R.facts, n, err)) < 0)
                return r;
        *ret = TAKE_PTR(R.res);
        return 0;
}
