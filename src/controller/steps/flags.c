/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a job switches off and gives back: cluster and host flags, the balancer, the autoscaler. */

#include "controller/steps/steps-internal.h"

/* `balancer status` says active as wanted: what pause- and restore-balancer check they did. */
static int balancer_check(ClusterSteps *cs, bool active, const char *what, Error *err) {
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(cs->admin, ceph_argv_balancer_status(cs_cli(cs), err), NULL, &out, err);
        if (r < 0)
                return r;
        CephBalancerStatus st;
        Error e = {};
        if ((r = ceph_balancer_status_parse(out, &st, &e)) < 0)
                return error_set(err, EBADMSG, "'ceph balancer status': %s", e.message);
        if (st.active != active)
                return error_set(err, EIO, "after %s: the balancer is %s", what,
                                 st.active ? "still active" : "not active");
        return 0;
}

static int balancer_status(ClusterSteps *cs, CephBalancerStatus *ret, Error *err) {
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(cs->admin, ceph_argv_balancer_status(cs_cli(cs), err), NULL, &out, err);
        if (r < 0)
                return r;
        Error e = {};
        if ((r = ceph_balancer_status_parse(out, ret, &e)) < 0)
                return error_set(err, EBADMSG, "'ceph balancer status': %s", e.message);
        return 0;
}

/* saved/balancer = {"active": BEFORE, "mode": M, "wrote_active": false, "run", "since"}: a
 * record of an older cephprov has no "wrote_active", but pause-balancer only ever turned the
 * balancer off: that is what it wrote. */
int cluster_step_pause_balancer(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        _cleanup_json_ json_object *have = NULL, *rec = NULL;
        int r = cs_record_get_json(cs->admin, SAVED_PREFIX "balancer", &have, err);
        if (r < 0)
                return r;
        if (!have || cs_record_of_other_run(cs, have)) {
                CephBalancerStatus st;
                if ((r = balancer_status(cs, &st, err)) < 0)
                        return r;
                bool before = st.active;
                if (have && !st.active) {
                        /* still off as the earlier run left it: its value before is the one */
                        (void) json_get_bool(have, "active", false, &before, "balancer record", NULL);
                        _cleanup_(freep) char *origin = cs_record_origin(have);
                        _cleanup_(freep) char *msg = strprintf("the record of %s was not restored: the balancer is "
                                                               "still off as it left it, and goes back %s",
                                                               origin ? origin : "?", before ? "on" : "off");
                        cs_restore_left_notice(cs, "pause-balancer", msg ? msg : "took over an earlier run's record");
                }
                if (!(rec = json_object_new_object()) || json_add_bool(rec, "active", before) < 0 ||
                    json_add_string(rec, "mode", st.mode) < 0 || json_add_bool(rec, "wrote_active", false) < 0 ||
                    cs_record_stamp(cs, rec) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                if ((r = cs_record_set(cs->admin, SAVED_PREFIX "balancer", rec, err)) < 0)
                        return r;
        }
        if ((r = ceph_admin_run(cs->admin, ceph_argv_balancer_off(cs_cli(cs), err), NULL, NULL, err)) < 0 ||
            (r = balancer_check(cs, false, "pause-balancer", err)) < 0)
                return r;
        return cs_result_new(ret, err);
}

/* Turns the balancer back on only when it was on before and is still off as cephprov left
 * it; one someone turned on since stays on, and is named. */
int cluster_step_restore_balancer(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        _cleanup_json_ json_object *rec = NULL, *res = NULL;
        int r = cs_record_get_json(cs->admin, SAVED_PREFIX "balancer", &rec, err);
        if (r < 0 || (r = cs_result_new(&res, err)) < 0)
                return r;
        json_object *left = json_object_new_array();
        if (!left || json_add(res, "left", left) < 0)
                return error_set(err, ENOMEM, "out of memory");
        if (rec) {
                bool before = false, wrote = false;
                (void) json_get_bool(rec, "active", false, &before, "balancer record", NULL);
                (void) json_get_bool(rec, "wrote_active", false, &wrote, "balancer record", NULL);
                CephBalancerStatus st;
                if ((r = balancer_status(cs, &st, err)) < 0)
                        return r;
                if (st.active != before && st.active == wrote) {
                        if ((r = ceph_admin_run(cs->admin, before ? ceph_argv_balancer_on(cs_cli(cs), err)
                                                                  : ceph_argv_balancer_off(cs_cli(cs), err),
                                                NULL, NULL, err)) < 0 ||
                            (r = balancer_check(cs, before, "restore-balancer", err)) < 0)
                                return r;
                } else if (st.active != before) {
                        json_object *l = json_object_new_object();
                        if (!l || json_object_array_add(left, l) < 0 || json_add_string(l, "what", "balancer") < 0 ||
                            json_add_bool(l, "active", st.active) < 0 || json_add_bool(l, "before", before) < 0 ||
                            json_add_bool(l, "wrote", wrote) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                        cs_restore_left_notice(cs, "restore-balancer",
                                            st.active ? "the balancer is on, not off as cephprov set it: someone "
                                                        "turned it on since, left on"
                                                      : "the balancer is off, not as cephprov set it: left off");
                }
                if ((r = cs_record_rm(cs->admin, SAVED_PREFIX "balancer", err)) < 0)
                        return r;
        }
        json_add_bool(res, "restored", rec != NULL);
        *ret = TAKE_PTR(res);
        return 0;
}

/* The autoscaler is paused pool by pool (pg_autoscale_mode off): the same on every
 * release (the global noautoscale flag exists only from Quincy). */
int cs_pools(ClusterSteps *cs, CephPoolList **ret, Error *err) {
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(cs->admin, ceph_argv_osd_pool_ls_detail(cs_cli(cs), err), NULL, &out, err);
        if (r < 0)
                return r;
        Error e = {};
        if ((r = ceph_pool_list_parse(out, ret, &e)) < 0)
                return error_set(err, EBADMSG, "'ceph osd pool ls detail': %s", e.message);
        return 0;
}

/* `osd pool ls detail` shows each pool's autoscale mode as wanted (`want`: pool → mode;
 * NULL: every pool off): what pause- and restore-autoscaler check they did. Pools not in
 * `want` (made since the record, or left as someone set them) are not asked about. */
static int autoscaler_check(ClusterSteps *cs, json_object *want, const char *what, Error *err) {
        _cleanup_(ceph_pool_list_freep) CephPoolList *pl = NULL;
        int r = cs_pools(cs, &pl, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < pl->n_pools; i++) {
                json_object *m = NULL;
                if (want && !json_object_object_get_ex(want, pl->pools[i].name, &m))
                        continue;
                const char *w = want ? json_object_get_string(m) : "off";
                const char *have = pl->pools[i].pg_autoscale_mode ? pl->pools[i].pg_autoscale_mode : "on";
                if (!streq_ptr(have, w))
                        return error_set(err, EIO, "after %s: pool '%s' autoscales '%s', not '%s'", what,
                                         pl->pools[i].name, have, w);
        }
        return 0;
}

static const char *pool_mode(const CephPool *p) {
        return p->pg_autoscale_mode ? p->pg_autoscale_mode : "on";
}

/* saved/autoscaler = {"cs_pools": {POOL: MODE before}, "wrote": "off", "run", "since"}. A record
 * of an older cephprov is the cs_pools' map alone: pause-autoscaler only ever wrote "off". */
static json_object *autoscaler_pools(json_object *rec) {
        json_object *p = NULL;
        if (json_object_object_get_ex(rec, "cs_pools", &p) && json_object_is_type(p, json_type_object))
                return p;
        return rec;
}

int cluster_step_pause_autoscaler(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        _cleanup_(ceph_pool_list_freep) CephPoolList *pl = NULL;
        int r = cs_pools(cs, &pl, err);
        if (r < 0)
                return r;
        _cleanup_json_ json_object *have = NULL;
        if ((r = cs_record_get_json(cs->admin, SAVED_PREFIX "autoscaler", &have, err)) < 0)
                return r;
        if (!have || cs_record_of_other_run(cs, have)) {
                _cleanup_json_ json_object *rec = json_object_new_object();
                json_object *before = json_object_new_object();
                if (!rec || !before || json_add(rec, "cs_pools", before) < 0 || json_add_string(rec, "wrote", "off") < 0 ||
                    cs_record_stamp(cs, rec) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                json_object *old = have ? autoscaler_pools(have) : NULL;
                size_t taken = 0;
                for (size_t i = 0; i < pl->n_pools; i++) {
                        const char *m = pool_mode(&pl->pools[i]);
                        json_object *o = NULL;
                        /* still off as an earlier run left it: the mode before that run */
                        if (old && streq(m, "off") && json_object_object_get_ex(old, pl->pools[i].name, &o) &&
                            json_object_get_string(o)) {
                                m = json_object_get_string(o);
                                taken++;
                        }
                        if (json_add_string(before, pl->pools[i].name, m) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                }
                if (have) {
                        _cleanup_(freep) char *origin = cs_record_origin(have);
                        _cleanup_(freep) char *msg = strprintf(
                                "the record of %s was not restored: %zu pool%s still off as it left them go back to "
                                "their mode before it",
                                origin ? origin : "?", taken, taken == 1 ? "" : "s");
                        cs_restore_left_notice(cs, "pause-autoscaler", msg ? msg : "took over an earlier run's record");
                }
                if ((r = cs_record_set(cs->admin, SAVED_PREFIX "autoscaler", rec, err)) < 0)
                        return r;
        }
        for (size_t i = 0; i < pl->n_pools; i++)
                if (!streq_ptr(pl->pools[i].pg_autoscale_mode, "off") &&
                    (r = ceph_admin_run(cs->admin,
                                        ceph_argv_osd_pool_set_autoscale_mode(cs_cli(cs), pl->pools[i].name, "off", err),
                                        NULL, NULL, err)) < 0)
                        return r;
        if ((r = autoscaler_check(cs, NULL, "pause-autoscaler", err)) < 0)
                return r;
        return cs_result_new(ret, err);
}

/* Each pool back to its mode before only while it is still off as cephprov set it; a pool
 * someone set since keeps its mode, and is named. */
int cluster_step_restore_autoscaler(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        _cleanup_json_ json_object *rec = NULL, *res = NULL, *want = NULL;
        int r = cs_record_get_json(cs->admin, SAVED_PREFIX "autoscaler", &rec, err);
        if (r < 0 || (r = cs_result_new(&res, err)) < 0)
                return r;
        json_object *left = json_object_new_array();
        if (!left || json_add(res, "left", left) < 0 || !(want = json_object_new_object()))
                return error_set(err, ENOMEM, "out of memory");
        if (rec) {
                const char *wrote = "off";
                (void) json_get_string(rec, "wrote", false, &wrote, "autoscaler record", NULL);
                _cleanup_(ceph_pool_list_freep) CephPoolList *pl = NULL;
                if ((r = cs_pools(cs, &pl, err)) < 0)
                        return r;
                json_object_object_foreach(autoscaler_pools(rec), pool, mode) {
                        const CephPool *p = ceph_pool_list_find(pl, pool);
                        const char *m = json_object_get_string(mode);
                        if (!p || !m || streq(pool_mode(p), m))
                                continue; /* gone since, or as it was */
                        if (!streq(pool_mode(p), wrote)) {
                                json_object *l = json_object_new_object();
                                if (!l || json_object_array_add(left, l) < 0 || json_add_string(l, "pool", pool) < 0 ||
                                    json_add_string(l, "value", pool_mode(p)) < 0 || json_add_string(l, "before", m) < 0 ||
                                    json_add_string(l, "wrote", wrote) < 0)
                                        return error_set(err, ENOMEM, "out of memory");
                                _cleanup_(freep) char *msg = strprintf(
                                        "pool '%s' autoscales '%s', not '%s' as cephprov set it: someone changed it "
                                        "since, left as it is (it was '%s' before cephprov)",
                                        pool, pool_mode(p), wrote, m);
                                cs_restore_left_notice(cs, "restore-autoscaler", msg ? msg : "a pool left as it is");
                                continue;
                        }
                        if (json_add_string(want, pool, m) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                        if ((r = ceph_admin_run(cs->admin, ceph_argv_osd_pool_set_autoscale_mode(cs_cli(cs), pool, m, err),
                                                NULL, NULL, err)) < 0)
                                return r;
                }
                if ((r = autoscaler_check(cs, want, "restore-autoscaler", err)) < 0 ||
                    (r = cs_record_rm(cs->admin, SAVED_PREFIX "autoscaler", err)) < 0)
                        return r;
        }
        json_add_bool(res, "restored", rec != NULL);
        *ret = TAKE_PTR(res);
        return 0;
}

/* set-flag / unset-flag. saved/flag-FLAG (cluster scope) or saved/flag-FLAG-HOST (host
 * scope: osd set-group, read back from the OSD map's crush_node_flags) = {"was_set": BEFORE,
 * "run", "since"}: cephprov writes "set". set-flag records whether the flag was set before
 * (one an earlier run left and that is still set keeps its "was_set"; one whose flag someone
 * removed since is replaced); unset-flag with restore removes the flag only when it was not
 * set before cephprov set it: an operator's own flag stays, and is named. Without a record
 * (nothing of cephprov's to undo) a restoring unset-flag changes nothing. */
static char *flag_record_name(const char *flag, const char *host) {
        return strprintf(SAVED_PREFIX "flag-%s%s%s", flag, host ? "-" : "", host ? host : "");
}

static int flag_now(ClusterSteps *cs, const char *flag, const char *host, bool *ret, Error *err) {
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        int r = cs_osd_dump(cs, &d, err);
        if (r < 0)
                return r;
        *ret = host ? ceph_osd_dump_has_node_flag(d, host, flag) : ceph_osd_dump_has_flag(d, flag);
        return 0;
}

static int flag_change(ClusterSteps *cs, const char *flag, const char *host, bool set, Error *err) {
        char *who[] = { (char *) host, NULL };
        char **argv = host ? (set ? ceph_argv_osd_set_group(cs_cli(cs), flag, who, err)
                                  : ceph_argv_osd_unset_group(cs_cli(cs), flag, who, err))
                           : (set ? ceph_argv_osd_set(cs_cli(cs), flag, err) : ceph_argv_osd_unset(cs_cli(cs), flag, err));
        int r = ceph_admin_run(cs->admin, argv, NULL, NULL, err);
        if (r < 0)
                return r;
        /* checked: the OSD map's flags (crush_node_flags for a host) say so */
        bool now = !set;
        if ((r = flag_now(cs, flag, host, &now, err)) < 0)
                return r;
        if (now != set)
                return error_set(err, EIO, "after 'osd %s%s %s%s%s': the OSD map says otherwise", set ? "set" : "unset",
                                 host ? "-group" : "", flag, host ? " " : "", host ? host : "");
        return 0;
}

/* unset-flag of one flag (of one host): res "left" gets the flag when it stays */
static int flag_unset(ClusterSteps *cs, const char *flag, const char *host, bool restore, json_object *left,
                      Error *err) {
        _cleanup_(freep) char *name = flag_record_name(flag, host);
        if (!name)
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_json_ json_object *rec = NULL;
        int r = cs_record_get_json(cs->admin, name, &rec, err);
        if (r < 0)
                return r;
        bool was_set = false;
        if (rec)
                (void) json_get_bool(rec, "was_set", false, &was_set, "flag record", NULL);
        if (restore && (was_set || !rec)) {
                bool now = false;
                if ((r = flag_now(cs, flag, host, &now, err)) < 0)
                        return r;
                if (now) {
                        /* the operator's own flag (or one cephprov has no record of): it stays */
                        _cleanup_(freep) char *msg = strprintf(
                                "%s%s%s is set and stays: %s", flag, host ? " on host " : "", host ? host : "",
                                rec ? "it was set before cephprov set it" : "cephprov has no record of setting it");
                        cs_restore_left_notice(cs, "unset-flag", msg ? msg : "a flag left as it is");
                        json_object *l = json_object_new_object();
                        if (!l || json_object_array_add(left, l) < 0 || json_add_string(l, "flag", flag) < 0 ||
                            (host && json_add_string(l, "host", host) < 0) ||
                            json_add_string(l, "reason", rec ? "set before cephprov" : "no record of cephprov's") < 0)
                                return error_set(err, ENOMEM, "out of memory");
                }
        } else if ((r = flag_change(cs, flag, host, false, err)) < 0)
                return r;
        if (rec && (r = cs_record_rm(cs->admin, name, err)) < 0)
                return r;
        return 0;
}

/* unset-flag FLAG with scope host in before/gate/after: every host a record says cephprov
 * set it on (this run's, or one a failed or killed run left) */
static int flag_unset_every_host(ClusterSteps *cs, const char *flag, bool restore, json_object *res, Error *err) {
        _cleanup_strv_free_ char **keys = NULL;
        int r = cs_config_key_ls(cs->admin, &keys, err);
        if (r < 0)
                return r;
        _cleanup_(freep) char *prefix = strprintf("cephprov/%s/" SAVED_PREFIX "flag-%s-", cs->admin->cluster, flag);
        json_object *hosts = json_object_new_array(), *left = json_object_new_array();
        if (!prefix || !hosts || !left || json_add(res, "hosts", hosts) < 0 || json_add(res, "left", left) < 0)
                return error_set(err, ENOMEM, "out of memory");
        for (char **k = keys; k && *k; k++) {
                if (!startswith(*k, prefix))
                        continue;
                const char *host = *k + strlen(prefix);
                if (json_object_array_add(hosts, json_object_new_string(host)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                if ((r = flag_unset(cs, flag, host, restore, left, err)) < 0)
                        return r;
        }
        return 0;
}

int cs_flag_step(ClusterSteps *cs, json_object *args, bool set, json_object **ret, Error *err) {
        const char *flag = NULL, *scope = "cluster", *host = NULL;
        bool restore = true;
        int r = json_get_string(args, "flag", true, &flag, "flag step", err);
        if (r < 0)
                return r;
        (void) json_get_string(args, "scope", false, &scope, "flag step", NULL);
        (void) json_get_string(args, "host", false, &host, "flag step", NULL);
        (void) json_get_bool(args, "restore", false, &restore, "flag step", NULL);
        _cleanup_json_ json_object *res = NULL;
        if ((r = cs_result_new(&res, err)) < 0)
                return r;
        bool grouped = streq(scope, "host");
        if (grouped && !host) {
                if (set)
                        return error_set(err, EINVAL, "set-flag: scope host needs the host it runs for");
                if ((r = flag_unset_every_host(cs, flag, restore, res, err)) < 0)
                        return r;
                *ret = TAKE_PTR(res);
                return 0;
        }
        if (!grouped)
                host = NULL;
        if (!set) {
                json_object *left = json_object_new_array();
                if (!left || json_add(res, "left", left) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                if ((r = flag_unset(cs, flag, host, restore, left, err)) < 0)
                        return r;
                *ret = TAKE_PTR(res);
                return 0;
        }
        _cleanup_(freep) char *name = flag_record_name(flag, host);
        if (!name)
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_json_ json_object *have = NULL;
        if ((r = cs_record_get_json(cs->admin, name, &have, err)) < 0)
                return r;
        bool was_set = false;
        if (!have || cs_record_of_other_run(cs, have)) {
                bool now = false;
                if ((r = flag_now(cs, flag, host, &now, err)) < 0)
                        return r;
                was_set = now;
                if (have && now) {
                        /* still set as an earlier run left it: whether it was set before that run */
                        (void) json_get_bool(have, "was_set", false, &was_set, "flag record", NULL);
                        _cleanup_(freep) char *origin = cs_record_origin(have);
                        _cleanup_(freep) char *msg = strprintf("the record of %s (%s%s%s) was not restored: the flag is "
                                                               "still set as it left it, and was %s before it",
                                                               origin ? origin : "?", flag, host ? " on " : "",
                                                               host ? host : "", was_set ? "set" : "not set");
                        cs_restore_left_notice(cs, "set-flag", msg ? msg : "took over an earlier run's record");
                }
                _cleanup_json_ json_object *rec = json_object_new_object();
                if (!rec || json_add_bool(rec, "was_set", was_set) < 0 || cs_record_stamp(cs, rec) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                if ((r = cs_record_set(cs->admin, name, rec, err)) < 0)
                        return r;
        } else
                (void) json_get_bool(have, "was_set", false, &was_set, "flag record", NULL);
        if ((r = flag_change(cs, flag, host, true, err)) < 0)
                return r;
        json_add_bool(res, "was_set", was_set);
        *ret = TAKE_PTR(res);
        return 0;
}

int cluster_step_set_flag(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        return cs_flag_step(cs, args, true, ret, err);
}

int cluster_step_unset_flag(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        return cs_flag_step(cs, args, false, ret, err);
}
