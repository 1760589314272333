/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The waits and gates: polls of the cluster until a condition holds (clean, safe to destroy, ok to stop, health), and the drain check. */

#include "controller/steps/steps-internal.h"

/* ---- waits ------------------------------------------------------------------------- */

/* Polls `probe` (1: done, 0: not yet, < 0: error) until done, cancelled or timed out;
 * `probe` reports progress itself. */
int cs_wait_for(ClusterSteps *cs, WaveCall *c, const char *what, unsigned timeout_sec,
                    int (*probe)(ClusterSteps *cs, WaveCall *c, void *userdata, Error *err), void *userdata,
                    Error *err) {
        return cs_wait_for_every(cs, c, what, timeout_sec, 2000, probe, userdata, err);
}

int cs_wait_for_every(ClusterSteps *cs, WaveCall *c, const char *what, unsigned timeout_sec, unsigned poll_ms,
                      int (*probe)(ClusterSteps *cs, WaveCall *c, void *userdata, Error *err), void *userdata,
                      Error *err) {
        double t0 = clock_mono_sec();
        unsigned poll = cs->poll_ms ? cs->poll_ms : poll_ms;
        for (;;) {
                int r = probe(cs, c, userdata, err);
                if (r != 0)
                        return r < 0 ? r : 0;
                if (c && wave_call_cancelled(c))
                        return error_set(err, ECANCELED, "%s: cancelled", what);
                if (clock_mono_sec() - t0 >= timeout_sec)
                        return error_set(err, ETIMEDOUT, "%s: still not done after %u s", what, timeout_sec);
                for (unsigned slept = 0; slept < poll; slept += 100) {
                        if (c && wave_call_cancelled(c))
                                break;
                        struct timespec ts = { 0, 100 * 1000000L };
                        nanosleep(&ts, NULL);
                }
        }
}

/* Samples the recovery counters and reports objects left, rate and ETA. */
static int recovery_sample(ClusterSteps *cs, WaveCall *c, RecoveryProbe *p, CephDrainProgress *ret, Error *err) {
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(cs->admin, ceph_argv_pg_stat(cs_cli(cs), err), NULL, &out, err);
        if (r < 0)
                return r;
        CephRecovery now;
        Error e = {};
        if ((r = ceph_recovery_parse(out, &now, &e)) < 0)
                return error_set(err, EBADMSG, "'ceph pg stat' on '%s': %s", cs->admin->host->name, e.message);
        double t = clock_mono_sec();
        if (!p->have_start && (now.misplaced_objects + now.degraded_objects) > 0) {
                p->start = now;
                p->have_start = true;
        }
        CephDrainProgress pr;
        ceph_drain_progress(p->have_start ? &p->start : NULL, p->have_prev ? &p->prev : NULL, &now,
                            p->have_prev ? t - p->t_prev : 0, p->bytes_total, &pr);
        p->prev = now;
        p->have_prev = true;
        p->t_prev = t;
        if (c) {
                _cleanup_(freep) char *text = ceph_drain_progress_format(&pr);
                wave_call_progress(c, pr.fraction_done, pr.eta_sec, text);
        }
        if (ret)
                *ret = pr;
        return 0;
}

int cs_probe_clean(ClusterSteps *cs, WaveCall *c, void *userdata, Error *err) {
        CephDrainProgress pr;
        int r = recovery_sample(cs, c, userdata, &pr, err);
        if (r < 0)
                return r;
        return pr.done ? 1 : 0;
}

/* Safe only for the ids the answer names (ceph_safe_to_destroy_parse): an empty or
 * unreadable answer is an error, never "safe". */
static int probe_safe_to_destroy(ClusterSteps *cs, WaveCall *c, void *userdata, Error *err) {
        RecoveryProbe *p = userdata;
        int r = recovery_sample(cs, c, p, NULL, err);
        if (r < 0)
                return r;
        _cleanup_(ceph_answer_done) CephAnswer ans = {};
        r = ceph_admin_ask(cs->admin, ceph_argv_safe_to_destroy(cs_cli(cs), p->osds, p->n_osds, err), NULL, &ans, err);
        if (r < 0)
                return r;
        if (ans.exit_status == EAGAIN)
                return 0; /* "not now" */
        _cleanup_(ceph_safe_to_destroy_freep) CephSafeToDestroy *s = NULL;
        Error e = {};
        if ((r = ceph_safe_to_destroy_parse(ans.exit_status, ans.out, ans.err, p->osds, p->n_osds, &s, &e)) < 0)
                return error_set(err, -r, "'ceph osd safe-to-destroy' on '%s': %s", cs->admin->host->name, e.message);
        for (size_t i = 0; i < p->n_osds; i++)
                if (!ceph_safe_to_destroy_is_safe(s, p->osds[i]))
                        return 0;
        return 1;
}

/* Done when ok-to-stop exits 0 and its answer says ok_to_stop true (ceph_ok_to_stop_parse:
 * the exit status and the answer agree, an empty answer is an error) naming every id asked,
 * and every id is still in the OSD map (ok-to-stop says yes for an id that does not exist). */
static int probe_ok_to_stop(ClusterSteps *cs, WaveCall *c, void *userdata, Error *err) {
        RecoveryProbe *p = userdata;
        const char *host = cs->admin->host->name;
        _cleanup_(ceph_answer_done) CephAnswer ans = {};
        int r = ceph_admin_ask(cs->admin, ceph_argv_ok_to_stop(cs_cli(cs), p->osds, p->n_osds, err), NULL, &ans, err);
        if (r < 0)
                return r;
        _cleanup_(ceph_ok_to_stop_freep) CephOkToStop *o = NULL;
        Error e = {};
        if (ans.exit_status != EAGAIN && (r = ceph_ok_to_stop_parse(ans.exit_status, ans.out, ans.err, &o, &e)) < 0)
                return error_set(err, -r, "'ceph osd ok-to-stop' on '%s': %s", host, e.message);
        if (!o || !o->ok) {
                if (c)
                        wave_call_progress(c, -1, -1, o && o->message ? o->message : "not ok to stop yet");
                return 0;
        }
        for (size_t i = 0; i < p->n_osds; i++) {
                bool named = false;
                for (size_t k = 0; k < o->n_osds && !named; k++)
                        named = o->osds[k] == p->osds[i];
                if (!named)
                        return error_set(err, EPROTO, "'ceph osd ok-to-stop' on '%s' answered ok_to_stop without "
                                                      "naming osd.%d: not taken as a yes for it", host, p->osds[i]);
        }
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        if ((r = cs_osd_dump(cs, &d, err)) < 0)
                return r;
        for (size_t i = 0; i < p->n_osds; i++)
                if (!ceph_osd_dump_find_osd(d, p->osds[i]))
                        return error_set(err, ENOENT, "osd.%d is not in the OSD map: 'ceph osd ok-to-stop' says yes for an "
                                                      "OSD that does not exist, so its yes says nothing", p->osds[i]);
        return 1;
}

typedef struct HealthProbe {
        CephHealthStatus max;
        json_object *allow; /* array of check codes, or NULL */
        int *allow_down;    /* given (has_allow_down): the only OSDs that may be down */
        size_t n_allow_down;
        bool has_allow_down;
        char *last;         /* what blocked the last time */
} HealthProbe;

static bool id_in(const int *v, size_t n, int x) {
        for (size_t i = 0; i < n; i++)
                if (v[i] == x)
                        return true;
        return false;
}

/* allow_down: any other OSD down fails the gate at once (not a wait: a second failure is the
 * operator's to look at), naming those OSDs and the PGs that have no readable copy left. */
static int check_allow_down(ClusterSteps *cs, const HealthProbe *hp, Error *err) {
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        int r = cs_osd_dump(cs, &d, err);
        if (r < 0)
                return r;
        _cleanup_(freep) int *other = calloc(d->n_osds ? d->n_osds : 1, sizeof(int));
        if (!other)
                return error_set(err, ENOMEM, "out of memory");
        size_t n = 0;
        for (size_t i = 0; i < d->n_osds; i++)
                if (d->osds[i].exists && !d->osds[i].up && !id_in(hp->allow_down, hp->n_allow_down, d->osds[i].id))
                        other[n++] = d->osds[i].id;
        if (n == 0)
                return 0;
        _cleanup_(freep) char *others = cs_osds_text(other, n), *own = cs_osds_text(hp->allow_down, hp->n_allow_down);
        _cleanup_(ceph_copies_freep) CephCopies *copies = NULL;
        Error e = {};
        _cleanup_(freep) char *pgs = NULL;
        if (ceph_admin_copies(cs->admin, hp->allow_down, hp->n_allow_down, &copies, &e) < 0)
                pgs = strprintf("the PGs could not be read: %s", e.message);
        else if (copies->n_lost > 0)
                pgs = ceph_copies_describe(copies, 12);
        else
                pgs = strdup("every PG still has a readable copy");
        return error_set(err, EBUSY,
                         "refusing to go on: %s down besides the OSDs this run stopped (%s): another failure "
                         "since it was interrupted; %s. Bring them back (or find out why they are down) and run "
                         "the same command again",
                         others ? others : "OSDs", own ? own : "none", pgs ? pgs : "out of memory");
}

static int probe_health(ClusterSteps *cs, WaveCall *c, void *userdata, Error *err) {
        HealthProbe *hp = userdata;
        int r;
        if (hp->has_allow_down && (r = check_allow_down(cs, hp, err)) < 0)
                return r;
        _cleanup_(ceph_health_freep) CephHealth *h = NULL;
        _cleanup_(ceph_pg_stat_freep) CephPgStat *pgs = NULL;
        r = ceph_admin_status(cs->admin, &h, &pgs, err);
        if (r < 0)
                return r;
        _cleanup_strv_free_ char **blocking = NULL;
        for (size_t i = 0; i < h->n_checks; i++) {
                const CephHealthCheck *k = &h->checks[i];
                if (k->muted || k->severity <= hp->max)
                        continue;
                bool allowed = false;
                for (size_t j = 0; hp->allow && j < json_object_array_length(hp->allow); j++)
                        if (streq(json_object_get_string(json_object_array_get_idx(hp->allow, j)), k->code))
                                allowed = true;
                if (!allowed && strv_consume(&blocking, strprintf("%s (%s)", k->code, k->summary ? k->summary : "")) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        if (!blocking && h->status == CEPH_HEALTH_UNKNOWN)
                return 0;
        if (!blocking)
                return 1;
        free(hp->last);
        hp->last = strv_join(blocking, ", ");
        if (c)
                wave_call_progress(c, -1, -1, hp->last);
        return 0;
}

int cluster_steps_drain_check(ClusterSteps *cs, char * const *hosts, CephDrainCheck **ret, Error *err) {
        _cleanup_(freep) char *df = NULL, *cs_pools = NULL, *rules = NULL, *dump = NULL;
        _cleanup_(freep) char *names = strv_join(hosts, ", ");
        int r;
        if (!names)
                return error_set(err, ENOMEM, "out of memory");
        if ((r = ceph_admin_run(cs->admin, ceph_argv_osd_df_tree(cs_cli(cs), err), NULL, &df, err)) < 0 ||
            (r = ceph_admin_run(cs->admin, ceph_argv_osd_pool_ls_detail(cs_cli(cs), err), NULL, &cs_pools, err)) < 0 ||
            (r = ceph_admin_run(cs->admin, ceph_argv_osd_crush_rule_dump(cs_cli(cs), err), NULL, &rules, err)) < 0 ||
            (r = ceph_admin_run(cs->admin, ceph_argv_osd_dump(cs_cli(cs), err), NULL, &dump, err)) < 0)
                return r;
        _cleanup_(ceph_osd_df_tree_freep) CephOsdDfTree *t = NULL;
        _cleanup_(ceph_pool_list_freep) CephPoolList *pl = NULL;
        _cleanup_(ceph_crush_rules_freep) CephCrushRules *cr = NULL;
        _cleanup_(ceph_ec_profile_list_freep) CephEcProfileList *ec = NULL;
        CephFullRatios ratios;
        Error e = {};
        if ((r = ceph_osd_df_tree_parse(df, &t, &e)) < 0 || (r = ceph_pool_list_parse(cs_pools, &pl, &e)) < 0 ||
            (r = ceph_crush_rules_parse(rules, &cr, &e)) < 0 || (r = ceph_ec_profiles_parse_osd_dump(dump, &ec, &e)) < 0 ||
            (r = ceph_full_ratios_parse(dump, &ratios, &e)) < 0)
                return error_set(err, EBADMSG, "drain check of %s: the cluster's answer: %s", names, e.message);

        /* a host without a bucket (destroy removed it, run again after a kill) has nothing
         * to move; the others are checked together */
        _cleanup_strv_free_ char **with = NULL, **without = NULL;
        for (char * const *h = hosts; h && *h; h++) {
                const CephDfNode *b = ceph_osd_df_tree_find_name(t, *h);
                if (strv_extend(b && b->id < 0 && streq(b->type, "host") ? &with : &without, *h) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        if (!with) {
                if (!(*ret = ceph_drain_check_no_bucket(without)))
                        return error_set(err, ENOMEM, "out of memory");
                return 0;
        }
        _cleanup_(ceph_drain_check_freep) CephDrainCheck *dc = NULL;
        if ((r = ceph_drain_check(t, pl, cr, ec, &ratios, with, &dc, &e)) < 0)
                return error_set(err, -r, "%s", e.message);
        for (char **h = without; h && *h; h++)
                if (strv_consume(&dc->warnings,
                                 strprintf("host '%s' has no host bucket in the CRUSH map: nothing to move", *h)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(dc);
        return 0;
}

/* The hosts' data off at once (together: a drain or destroy keeps every host's OSDs out to
 * its end), or each host alone (a rolling conversion brings each back before the next). */
int cluster_step_drain_check(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        json_object *hosts = NULL;
        int r = json_get_array(args, "hosts", true, &hosts, "drain-check", err);
        if (r < 0)
                return r;
        bool together = true;
        if ((r = json_get_bool(args, "together", false, &together, "drain-check", err)) < 0 && r != -ENOENT)
                return r;
        _cleanup_strv_free_ char **names = NULL;
        for (size_t i = 0; i < json_object_array_length(hosts); i++) {
                const char *h = json_object_get_string(json_object_array_get_idx(hosts, i));
                if (!h || strv_extend(&names, h) < 0)
                        return error_set(err, h ? ENOMEM : EINVAL, h ? "out of memory" : "drain-check: a host is not a name");
        }
        if (!names)
                return error_set(err, EINVAL, "drain-check: no host");
        _cleanup_json_ json_object *res = NULL;
        if ((r = cs_result_new(&res, err)) < 0)
                return r;
        json_object *checks = json_object_new_array();
        json_add(res, "checks", checks);
        size_t n = together ? 1 : strv_length(names);
        for (size_t i = 0; i < n; i++) {
                char *one[] = { names[i], NULL };
                _cleanup_(ceph_drain_check_freep) CephDrainCheck *dc = NULL;
                if ((r = cluster_steps_drain_check(cs, together ? names : one, &dc, err)) < 0)
                        return r;
                json_object_array_add(checks, ceph_drain_check_to_json(dc));
                if (!dc->ok) {
                        _cleanup_(freep) char *why = strv_join(dc->reasons, "; ");
                        _cleanup_(freep) char *list = strv_join(dc->hosts, "', '");
                        return error_set(err, ENOSPC, "draining '%s'%s is refused: %s", list ? list : "",
                                         strv_length(dc->hosts) > 1 ? " together" : "", why ? why : "");
                }
        }
        *ret = TAKE_PTR(res);
        return 0;
}

int cluster_step_wait_clean(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        RecoveryProbe p = {};
        int r = cs_wait_for(cs, c, "waiting for every PG to be active+clean", cs_arg_timeout(args, 86400), cs_probe_clean, &p,
                         err);
        return r < 0 ? r : cs_result_new(ret, err);
}

/* wait-peered: after the OSDs were marked out, every PG peered at the map that has them out
 * (ceph_pg_dump_count_unpeered), polled every second; the adaptive throttle does not judge
 * those seconds (docs/ceph.md "Out, then peered"). */
typedef struct PeerProbe {
        const int *osds;
        size_t n_osds;
        size_t first, left;
        const char *list;
} PeerProbe;

static int probe_peered(ClusterSteps *cs, WaveCall *c, void *userdata, Error *err) {
        PeerProbe *p = userdata;
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(cs->admin, ceph_argv_pg_dump_pgs_brief(cs_cli(cs), err), NULL, &out, err);
        if (r < 0)
                return r;
        _cleanup_(ceph_pg_dump_freep) CephPgDump *d = NULL;
        Error e = {};
        if ((r = ceph_pg_dump_parse(out ? out : "", &d, &e)) < 0)
                return error_set(err, EBADMSG, "'ceph pg dump pgs_brief' on '%s': %s", cs->admin->host->name, e.message);
        p->left = ceph_pg_dump_count_unpeered(d, p->osds, p->n_osds);
        if (p->first == 0)
                p->first = p->left;
        if (c && p->left > 0) {
                _cleanup_(freep) char *text = strprintf("%zu PG%s not peered yet since %s went out", p->left,
                                                        p->left == 1 ? "" : "s", p->list);
                wave_call_progress(c, p->first ? 1.0 - (double) p->left / (double) p->first : 0, -1, text);
        }
        return p->left == 0 ? 1 : 0;
}

int cluster_step_wait_peered(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        int r = cs_osds_arg(args, &ids, &n, err);
        if (r < 0 || (r = cs_existing_osds(cs, ids, &n, err)) < 0)
                return r;
        if (n == 0)
                return cs_result_new(ret, err);
        _cleanup_(freep) char *list = cs_osds_text(ids, n);
        PeerProbe p = { .osds = ids, .n_osds = n, .list = list ? list : "the OSDs" };
        _cleanup_(freep) char *what = strprintf("waiting until every PG has peered since %s went out", p.list);
        const unsigned timeout = cs_arg_timeout(args, 600);
        double t0 = clock_mono_sec();
        Error e = {};
        /* the adaptive throttle does not judge the windows this wait overlaps */
        cs_adapt_peering(cs, true);
        r = cs_wait_for_every(cs, c, what ? what : "waiting for peering", timeout, 1000, probe_peered, &p, &e);
        cs_adapt_peering(cs, false);
        if (r == -ETIMEDOUT)
                return error_set(err, ETIMEDOUT,
                                 "%zu PG%s still not peered %u s after %s went out (active, not peering nor stale, "
                                 "at the OSD map that has them out: ceph pg dump pgs_brief)",
                                 p.left, p.left == 1 ? "" : "s", timeout, p.list);
        if (r < 0)
                return error_set(err, e.code, "%s", e.message);
        _cleanup_json_ json_object *res = NULL;
        if ((r = cs_result_new(&res, err)) < 0)
                return r;
        json_add(res, "pgs_waited_for", json_object_new_int64((int64_t) p.first));
        json_add(res, "seconds", json_object_new_double(round((clock_mono_sec() - t0) * 10) / 10));
        *ret = TAKE_PTR(res);
        return 0;
}

/* The waits on a gate about the step's OSDs ("safe to destroy", "ok to stop"). */
static int wait_osds(ClusterSteps *cs, json_object *args, WaveCall *c, const char *state, unsigned default_timeout,
                     int (*probe)(ClusterSteps *cs, WaveCall *c, void *userdata, Error *err), json_object **ret,
                     Error *err) {
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        int r = cs_osds_arg(args, &ids, &n, err);
        if (r < 0)
                return r;
        if ((r = cs_existing_osds(cs, ids, &n, err)) < 0)
                return r;
        if (n == 0)
                return cs_result_new(ret, err);
        RecoveryProbe p = { .osds = ids, .n_osds = n };
        _cleanup_(freep) char *list = cs_osds_text(ids, n);
        _cleanup_(freep) char *what = strprintf("waiting until %s %s %s", list ? list : "", n == 1 ? "is" : "are", state);
        r = cs_wait_for(cs, c, what ? what : state, cs_arg_timeout(args, default_timeout), probe, &p, err);
        return r < 0 ? r : cs_result_new(ret, err);
}

int cluster_step_wait_safe_to_destroy(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        return wait_osds(cs, args, c, "safe to destroy", 86400, probe_safe_to_destroy, ret, err);
}

int cluster_step_wait_ok_to_stop(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        return wait_osds(cs, args, c, "ok to stop", 1800, probe_ok_to_stop, ret, err);
}

int cluster_step_health_gate(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        const char *max = "HEALTH_OK";
        (void) json_get_string(args, "max_status", false, &max, "health-gate", NULL);
        HealthProbe hp = { .max = ceph_health_status_from_string(max) };
        (void) json_get_array(args, "allow", false, &hp.allow, "health-gate", NULL);
        int r = json_get_int_array(args, "allow_down", false, &hp.allow_down, &hp.n_allow_down, "health-gate", err);
        if (r < 0 && r != -ENOENT)
                return r;
        hp.has_allow_down = r >= 0;
        r = cs_wait_for(cs, c, "waiting for the cluster's health", cs_arg_timeout(args, 1800), probe_health, &hp, err);
        if (r == -ETIMEDOUT && hp.last)
                r = error_prefix(err, r, "still blocking: %s", hp.last);
        free(hp.last);
        free(hp.allow_down);
        return r < 0 ? r : cs_result_new(ret, err);
}
