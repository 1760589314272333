/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "controller/cluster-steps.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph/ceph-bench.h"
#include "ceph/ceph-cluster.h"
#include "basic/log.h"
#include "controller/hosts.h"
#include "controller/throttle-adapt.h"

#define SAVED_PREFIX "saved/"

static double now_sec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static const CephCli *cli(ClusterSteps *cs) {
        return ceph_admin_cli(cs->admin);
}

/* cephprov/CLUSTER/NAME: our records in the cluster's config-key store */
static char *record_key(CephAdmin *a, const char *name) {
        return strprintf("cephprov/%s/%s", a->cluster, name);
}

/* 1 and the value, 0 when there is no record: only when ceph itself says the key does not
 * exist. A `ceph` that did not run or did not answer is an error, never "no record". */
static int record_get(CephAdmin *a, const char *name, char **ret, Error *err) {
        _cleanup_(freep) char *key = record_key(a, name);
        if (!key)
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_(ceph_answer_done) CephAnswer ans = {};
        int r = ceph_admin_ask(a, ceph_argv_config_key_get(ceph_admin_cli(a), key, err), NULL, &ans, err);
        if (r < 0)
                return r;
        if (ans.exit_status == 0) {
                *ret = TAKE_PTR(ans.out);
                return 1;
        }
        if (ceph_answer_no_such_key(ans.exit_status, ans.err)) {
                *ret = NULL;
                return 0;
        }
        return ceph_answer_error(a, &ans, err);
}

static int record_set(CephAdmin *a, const char *name, json_object *value, Error *err) {
        _cleanup_(freep) char *key = record_key(a, name);
        if (!key)
                return error_set(err, ENOMEM, "out of memory");
        const char *v = json_object_to_json_string_ext(value, JSON_C_TO_STRING_PLAIN);
        return ceph_admin_run(a, ceph_argv_config_key_set(ceph_admin_cli(a), key, err), v, NULL, err);
}

static int record_rm(CephAdmin *a, const char *name, Error *err) {
        _cleanup_(freep) char *key = record_key(a, name);
        if (!key)
                return error_set(err, ENOMEM, "out of memory");
        Error e = {};
        int r = ceph_admin_run(a, ceph_argv_config_key_rm(ceph_admin_cli(a), key, &e), NULL, NULL, &e);
        if (r < 0 && r != -ENOENT)
                return error_set(err, -r, "%s", e.message);
        return 0;
}

static int record_get_json(CephAdmin *a, const char *name, json_object **ret, Error *err) {
        _cleanup_(freep) char *v = NULL;
        int r = record_get(a, name, &v, err);
        if (r <= 0) {
                *ret = NULL;
                return r;
        }
        json_object *o = json_tokener_parse(v);
        if (!o)
                return error_set(err, EBADMSG, "the record cephprov/%s/%s in the cluster is not JSON: '%s'", a->cluster,
                                 name, v);
        *ret = o;
        return 1;
}

/* Every restore record (saved/...) says which run left it and since when: "run" (the
 * journal's run id of the run that wrote it), "since" (epoch seconds). */
static int record_stamp(ClusterSteps *cs, json_object *rec) {
        return json_add_string(rec, "run", cs->run_id ? cs->run_id : "(no run)") < 0 ||
                               json_add_int(rec, "since", (int64_t) time(NULL)) < 0
                       ? -ENOMEM
                       : 0;
}

/* A record this run did not write: one an earlier run left (killed, failed, or abandoned
 * long ago). A record without "run" is from before cephprov kept one: never this run's. */
static bool record_of_other_run(ClusterSteps *cs, json_object *rec) {
        const char *run = json_object_get_string(json_object_object_get(rec, "run"));
        return !run || !cs->run_id || !streq(run, cs->run_id);
}

/* "run R, 3h ago" for messages about a record another run left */
static char *record_origin(json_object *rec) {
        const char *run = json_object_get_string(json_object_object_get(rec, "run"));
        int64_t since = 0;
        (void) json_get_int(rec, "since", false, &since, "record", NULL);
        if (!since)
                return strprintf("run %s", run ? run : "unknown (a record of an older cephprov)");
        int64_t age = (int64_t) time(NULL) - since;
        return strprintf("run %s, %lld s ago", run ? run : "unknown", (long long) age);
}

/* A value a restore left alone because someone changed it since cephprov wrote it: a notice
 * on the log (and stderr), and the entry in the step's result */
static void restore_left_notice(ClusterSteps *cs, const char *step, const char *what) {
        if (!cs->log) {
                log_notice("%s: %s", step, what);
                return;
        }
        fprintf(cs->log, "%s: %s\n", step, what);
        fflush(cs->log);
}

static int osd_dump(ClusterSteps *cs, CephOsdDump **ret, Error *err);

static int osds_arg(json_object *args, int **ret, size_t *ret_n, Error *err) {
        return json_get_int_array(args, "osds", true, ret, ret_n, "step arguments", err);
}

static char *osds_text(const int *ids, size_t n) {
        _cleanup_strv_free_ char **l = NULL;
        for (size_t i = 0; i < n; i++)
                if (strv_consume(&l, strprintf("osd.%d", ids[i])) < 0)
                        return NULL;
        return l ? strv_join(l, " ") : strdup("no OSD");
}

static unsigned arg_timeout(json_object *args, unsigned def) {
        uint64_t t = def;
        (void) json_get_u64(args, "timeout", false, &t, "step arguments", NULL);
        return (unsigned) t;
}

static int result_new(json_object **ret, Error *err) {
        *ret = json_object_new_object();
        return *ret ? 0 : error_set(err, ENOMEM, "out of memory");
}

/* ---- waits ------------------------------------------------------------------------- */

/* Polls `probe` (1: done, 0: not yet, < 0: error) until done, cancelled or timed out;
 * `probe` reports progress itself. */
static int wait_for(ClusterSteps *cs, WaveCall *c, const char *what, unsigned timeout_sec,
                    int (*probe)(ClusterSteps *cs, WaveCall *c, void *userdata, Error *err), void *userdata,
                    Error *err) {
        double t0 = now_sec();
        unsigned poll = cs->poll_ms ? cs->poll_ms : 2000;
        for (;;) {
                int r = probe(cs, c, userdata, err);
                if (r != 0)
                        return r < 0 ? r : 0;
                if (c && wave_call_cancelled(c))
                        return error_set(err, ECANCELED, "%s: cancelled", what);
                if (now_sec() - t0 >= timeout_sec)
                        return error_set(err, ETIMEDOUT, "%s: still not done after %u s", what, timeout_sec);
                for (unsigned slept = 0; slept < poll; slept += 100) {
                        if (c && wave_call_cancelled(c))
                                break;
                        struct timespec ts = { 0, 100 * 1000000L };
                        nanosleep(&ts, NULL);
                }
        }
}

typedef struct RecoveryProbe {
        const int *osds;
        size_t n_osds;
        bool have_start, have_prev;
        CephRecovery start, prev;
        double t_prev;
        uint64_t bytes_total;
        bool safe;               /* wait-safe-to-destroy: the gate said yes */
} RecoveryProbe;

/* Samples the recovery counters and reports objects left, rate and ETA. */
static int recovery_sample(ClusterSteps *cs, WaveCall *c, RecoveryProbe *p, CephDrainProgress *ret, Error *err) {
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(cs->admin, ceph_argv_pg_stat(cli(cs), err), NULL, &out, err);
        if (r < 0)
                return r;
        CephRecovery now;
        Error e = {};
        if ((r = ceph_recovery_parse(out, &now, &e)) < 0)
                return error_set(err, EBADMSG, "'ceph pg stat' on '%s': %s", cs->admin->host->name, e.message);
        double t = now_sec();
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

static int probe_clean(ClusterSteps *cs, WaveCall *c, void *userdata, Error *err) {
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
        r = ceph_admin_ask(cs->admin, ceph_argv_safe_to_destroy(cli(cs), p->osds, p->n_osds, err), NULL, &ans, err);
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
        int r = ceph_admin_ask(cs->admin, ceph_argv_ok_to_stop(cli(cs), p->osds, p->n_osds, err), NULL, &ans, err);
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
        if ((r = osd_dump(cs, &d, err)) < 0)
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
        int r = osd_dump(cs, &d, err);
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
        _cleanup_(freep) char *others = osds_text(other, n), *own = osds_text(hp->allow_down, hp->n_allow_down);
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

/* ---- the steps ---------------------------------------------------------------------- */

typedef int (*StepFn)(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);

int cluster_steps_drain_check(ClusterSteps *cs, char * const *hosts, CephDrainCheck **ret, Error *err) {
        _cleanup_(freep) char *df = NULL, *pools = NULL, *rules = NULL, *dump = NULL;
        _cleanup_(freep) char *names = strv_join(hosts, ", ");
        int r;
        if (!names)
                return error_set(err, ENOMEM, "out of memory");
        if ((r = ceph_admin_run(cs->admin, ceph_argv_osd_df_tree(cli(cs), err), NULL, &df, err)) < 0 ||
            (r = ceph_admin_run(cs->admin, ceph_argv_osd_pool_ls_detail(cli(cs), err), NULL, &pools, err)) < 0 ||
            (r = ceph_admin_run(cs->admin, ceph_argv_osd_crush_rule_dump(cli(cs), err), NULL, &rules, err)) < 0 ||
            (r = ceph_admin_run(cs->admin, ceph_argv_osd_dump(cli(cs), err), NULL, &dump, err)) < 0)
                return r;
        _cleanup_(ceph_osd_df_tree_freep) CephOsdDfTree *t = NULL;
        _cleanup_(ceph_pool_list_freep) CephPoolList *pl = NULL;
        _cleanup_(ceph_crush_rules_freep) CephCrushRules *cr = NULL;
        _cleanup_(ceph_ec_profile_list_freep) CephEcProfileList *ec = NULL;
        CephFullRatios ratios;
        Error e = {};
        if ((r = ceph_osd_df_tree_parse(df, &t, &e)) < 0 || (r = ceph_pool_list_parse(pools, &pl, &e)) < 0 ||
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
static int step_drain_check(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
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
        if ((r = result_new(&res, err)) < 0)
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

/* Keeps those of ids[0..*n) that are in the OSD map: an OSD purged already (destroy, run
 * again after a kill) has nothing left to mark or to wait for. */
static int existing_osds(ClusterSteps *cs, int *ids, size_t *n, Error *err) {
        if (*n == 0)
                return 0;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        int r = osd_dump(cs, &d, err);
        if (r < 0)
                return r;
        size_t k = 0;
        for (size_t i = 0; i < *n; i++)
                if (ceph_osd_dump_find_osd(d, ids[i]))
                        ids[k++] = ids[i];
        *n = k;
        return 0;
}

static int step_out_in(ClusterSteps *cs, json_object *args, bool out, json_object **ret, Error *err) {
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        int r = osds_arg(args, &ids, &n, err);
        if (r < 0 || (r = existing_osds(cs, ids, &n, err)) < 0)
                return r;
        if (n > 0 && (r = ceph_admin_run(cs->admin, out ? ceph_argv_osd_out(cli(cs), ids, n, err)
                                                        : ceph_argv_osd_in(cli(cs), ids, n, err),
                                         NULL, NULL, err)) < 0)
                return r;
        /* checked: the OSD map says so */
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        if (n > 0 && (r = osd_dump(cs, &d, err)) < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                const CephDumpOsd *o = ceph_osd_dump_find_osd(d, ids[i]);
                if (o && o->in == out)
                        return error_set(err, EIO, "after 'osd %s': the OSD map still has osd.%d %s", out ? "out" : "in",
                                         ids[i], out ? "in" : "out");
        }
        return result_new(ret, err);
}

static int step_out(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        return step_out_in(cs, args, true, ret, err);
}

static int step_in(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        return step_out_in(cs, args, false, ret, err);
}

static int step_wait_clean(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        RecoveryProbe p = {};
        int r = wait_for(cs, c, "waiting for every PG to be active+clean", arg_timeout(args, 86400), probe_clean, &p,
                         err);
        return r < 0 ? r : result_new(ret, err);
}

/* The waits on a gate about the step's OSDs ("safe to destroy", "ok to stop"). */
static int wait_osds(ClusterSteps *cs, json_object *args, WaveCall *c, const char *state, unsigned default_timeout,
                     int (*probe)(ClusterSteps *cs, WaveCall *c, void *userdata, Error *err), json_object **ret,
                     Error *err) {
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        int r = osds_arg(args, &ids, &n, err);
        if (r < 0)
                return r;
        if ((r = existing_osds(cs, ids, &n, err)) < 0)
                return r;
        if (n == 0)
                return result_new(ret, err);
        RecoveryProbe p = { .osds = ids, .n_osds = n };
        _cleanup_(freep) char *list = osds_text(ids, n);
        _cleanup_(freep) char *what = strprintf("waiting until %s %s %s", list ? list : "", n == 1 ? "is" : "are", state);
        r = wait_for(cs, c, what ? what : state, arg_timeout(args, default_timeout), probe, &p, err);
        return r < 0 ? r : result_new(ret, err);
}

static int step_wait_safe_to_destroy(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        return wait_osds(cs, args, c, "safe to destroy", 86400, probe_safe_to_destroy, ret, err);
}

static int step_wait_ok_to_stop(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        return wait_osds(cs, args, c, "ok to stop", 1800, probe_ok_to_stop, ret, err);
}

static int step_health_gate(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        const char *max = "HEALTH_OK";
        (void) json_get_string(args, "max_status", false, &max, "health-gate", NULL);
        HealthProbe hp = { .max = ceph_health_status_from_string(max) };
        (void) json_get_array(args, "allow", false, &hp.allow, "health-gate", NULL);
        int r = json_get_int_array(args, "allow_down", false, &hp.allow_down, &hp.n_allow_down, "health-gate", err);
        if (r < 0 && r != -ENOENT)
                return r;
        hp.has_allow_down = r >= 0;
        r = wait_for(cs, c, "waiting for the cluster's health", arg_timeout(args, 1800), probe_health, &hp, err);
        if (r == -ETIMEDOUT && hp.last)
                r = error_prefix(err, r, "still blocking: %s", hp.last);
        free(hp.last);
        free(hp.allow_down);
        return r < 0 ? r : result_new(ret, err);
}

/* The scheduler the OSDs use: ask, the release's default otherwise. */
static CephScheduler scheduler(ClusterSteps *cs) {
        _cleanup_(freep) char *out = NULL, *v = NULL;
        Error e = {};
        if (ceph_admin_run(cs->admin, ceph_argv_config_get(cli(cs), "osd", "osd_op_queue", &e), NULL, &out, &e) >= 0)
                (void) ceph_config_value_parse(out, &v, &e);
        return ceph_scheduler_for(cs->release, v);
}

static int flag_step(ClusterSteps *cs, json_object *args, bool set, json_object **ret, Error *err);

/* the adaptive throttle's brake: nobackfill, recorded as set-flag records it */
static int adapt_brake(void *userdata, bool on, Error *err) {
        ClusterSteps *cs = userdata;
        _cleanup_json_ json_object *args = json_object_new_object(), *res = NULL;
        if (!args || json_add_string(args, "flag", CEPH_ADAPT_BRAKE_FLAG) < 0)
                return error_set(err, ENOMEM, "out of memory");
        return flag_step(cs, args, on, &res, err);
}

static int adapt_paused(void *userdata, Error *err) {
        ClusterSteps *cs = userdata;
        _cleanup_(freep) char *v = NULL;
        return record_get(cs->admin, CLUSTER_PAUSE_RECORD, &v, err);
}

static int adapt_publish(void *userdata, json_object *state, Error *err) {
        ClusterSteps *cs = userdata;
        return record_set(cs->admin, "throttle-state", state, err);
}

int cluster_throttle_state(CephAdmin *a, json_object **ret, Error *err) {
        return record_get_json(a, "throttle-state", ret, err);
}

static void adapt_config(ClusterSteps *cs, CephScheduler scheduler, CephAdaptConfig *ret) {
        ceph_adapt_config_default(scheduler, ret);
        ret->target_ms = cs->layout->throttle.target_p99_ms;
        ret->ceiling_ms = cs->layout->throttle.ceiling_p99_ms;
        if (cs->adapt_window_sec)
                ret->window_sec = cs->adapt_window_sec;
        /* the knobs act within a few seconds; the dwell must stay longer than that lag */
        ret->effect_lag_sec = MIN(10.0, ret->window_sec * ret->dwell * 0.9);
}

static int window_from_json(json_object *o, CephLatencyWindow *w) {
        uint64_t n = 0, errors = 0;
        if (!o || json_get_u64(o, "ops", true, &n, "baseline", NULL) < 0)
                return -EINVAL;
        (void) json_get_u64(o, "errors", false, &errors, "baseline", NULL);
        *w = (CephLatencyWindow) {
                .n = n,
                .n_errors = errors,
                .p50_ms = json_object_get_double(json_object_object_get(o, "p50_ms")),
                .p95_ms = json_object_get_double(json_object_object_get(o, "p95_ms")),
                .p99_ms = json_object_get_double(json_object_object_get(o, "p99_ms")),
                .max_ms = json_object_get_double(json_object_object_get(o, "max_ms")),
        };
        return 0;
}

/* Starts the controller unless it runs or restore-throttle ran. */
static int adapt_launch(ClusterSteps *cs, CephScheduler scheduler, const CephLatencyWindow *baseline, bool braked,
                        Error *err) {
        pthread_mutex_lock(&cs->adapt_mu);
        int r = 0;
        if (!cs->adapt && !cs->adapt_finished) {
                ThrottleAdaptOptions o = {
                        .baseline = *baseline,
                        .log = cs->log,
                        .brake = adapt_brake,
                        .brake_userdata = cs,
                        .publish = adapt_publish,
                        .publish_userdata = cs,
                        .paused = adapt_paused,
                        .paused_userdata = cs,
                };
                adapt_config(cs, scheduler, &o.config);
                o.config.start_braked = braked;
                r = throttle_adapt_start(cs->admin, &o, &cs->adapt, err);
                if (r >= 0 && cs->log) {
                        _cleanup_(freep) char *b = ceph_latency_window_format(baseline);
                        fprintf(cs->log, "throttle: adaptive, baseline %s; target p99 %.1f ms, ceiling %.1f ms%s\n",
                                b ? b : "?", throttle_adapt_target_ms(cs->adapt), throttle_adapt_ceiling_ms(cs->adapt),
                                braked ? "; the brake is on (nobackfill, from the run before)" : "");
                        fflush(cs->log);
                }
        }
        pthread_mutex_unlock(&cs->adapt_mu);
        return r;
}

/* 1 when the brake's record is in the cluster (it went on and did not come off) */
static int adapt_brake_recorded(ClusterSteps *cs, Error *err) {
        _cleanup_json_ json_object *rec = NULL;
        int r = record_get_json(cs->admin, SAVED_PREFIX "flag-" CEPH_ADAPT_BRAKE_FLAG, &rec, err);
        return r < 0 ? r : rec != NULL;
}

/* The OSDs that mask the throttle: a runtime override (injectargs, `ceph tell osd.N config
 * set`) of one of `keys` wins over the config database until the OSD restarts, so what the
 * throttle set does not act there. Each is one line on the log and an entry of the result's
 * "overridden" (osd, key, value); not a failure: data still moves, only not at the pace
 * asked on those OSDs. An OSD that does not answer is left out. The manager's view, which
 * `config show` reads, follows each OSD's reports (mgr_stats_period, 5 s by default): an
 * override set in the last seconds may not be seen yet. */
static void throttle_overrides(ClusterSteps *cs, const char *const *keys, size_t n_keys, json_object *res) {
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        Error e = {};
        json_object *list = json_object_new_array();
        if (!list || json_add(res, "overridden", list) < 0 || n_keys == 0 || osd_dump(cs, &d, &e) < 0)
                return;
        /* one request for all of them, asked side by side on the admin host (Ceph has no
         * one command for every daemon's runtime values: `config dump` is the database) */
        _cleanup_(freep) char ***argvs = calloc(d->n_osds + 1, sizeof(char **));
        _cleanup_(freep) size_t *which = calloc(d->n_osds + 1, sizeof(size_t));
        size_t n = 0;
        if (!argvs || !which)
                return;
        for (size_t i = 0; i < d->n_osds; i++) {
                if (!d->osds[i].up)
                        continue;
                char who[32];
                snprintf(who, sizeof who, "osd.%d", d->osds[i].id);
                which[n] = i;
                if (!(argvs[n++] = ceph_argv_config_show(cli(cs), who, &e))) {
                        for (size_t k = 0; k < n - 1; k++)
                                strv_free(argvs[k]);
                        return;
                }
        }
        if (n == 0)
                return;
        _cleanup_(freep) CephAnswer *answers = calloc(n, sizeof(CephAnswer));
        if (!answers) {
                for (size_t k = 0; k < n; k++)
                        strv_free(argvs[k]);
                return;
        }
        if (ceph_admin_ask_many(cs->admin, argvs, n, answers, &e) < 0)
                return;
        for (size_t j = 0; j < n; j++) {
                size_t i = which[j];
                char who[32];
                snprintf(who, sizeof who, "osd.%d", d->osds[i].id);
                _cleanup_(ceph_config_show_freep) CephConfigShow *s = NULL;
                Error qe = {};
                int pr = answers[j].exit_status != 0 ? -EIO : ceph_config_show_parse(answers[j].out, &s, &qe);
                ceph_answer_done(&answers[j]);
                if (pr < 0)
                        continue;
                for (size_t k = 0; k < n_keys; k++) {
                        const CephConfigShowEntry *en = ceph_config_show_find(s, keys[k]);
                        if (!en || !streq(en->source, "override"))
                                continue;
                        json_object *o = json_object_new_object();
                        json_add_int(o, "osd", d->osds[i].id);
                        json_add_string(o, "key", keys[k]);
                        json_add_string(o, "value", en->value);
                        json_object_array_add(list, o);
                        if (cs->log) {
                                fprintf(cs->log,
                                        "throttle: %s: %s is %s from a runtime override (injectargs or `ceph tell %s "
                                        "config set`), which masks the config database until the OSD restarts: "
                                        "`ceph tell %s config unset %s` removes it\n",
                                        who, keys[k], en->value, who, who, keys[k]);
                                fflush(cs->log);
                        }
                }
        }
}

static int throttle_record(ClusterSteps *cs, const CephThrottlePlan *plan, json_object *adaptive,
                           const CephConfigDump *now, json_object *res, Error *err);

/* throttle with preset adaptive: record every key of the ladder (and the baseline, measured
 * now, before data moves), apply the start rung, start the controller */
static int step_throttle_adaptive(ClusterSteps *cs, WaveCall *c, json_object **ret, Error *err) {
        CephScheduler sched = scheduler(cs);
        CephAdaptConfig cfg;
        adapt_config(cs, sched, &cfg);
        _cleanup_json_ json_object *have = NULL, *res = NULL;
        int r = record_get_json(cs->admin, SAVED_PREFIX "throttle", &have, err);
        if (r < 0 || (r = result_new(&res, err)) < 0)
                return r;
        CephLatencyWindow base = {};
        const char *preset = NULL;
        bool adaptive_rec = have &&
                            json_get_string(have, "preset", false, &preset, "throttle record", NULL) >= 0 && preset &&
                            streq(preset, "adaptive") &&
                            window_from_json(json_object_object_get(have, "baseline"), &base) >= 0;
        if (have && !record_of_other_run(cs, have) && !adaptive_rec)
                return error_set(err, EEXIST,
                                 "throttle: this run already recorded another throttle (preset '%s'): "
                                 "restore it first (restore-throttle)",
                                 preset ? preset : "?");
        if (!have || record_of_other_run(cs, have)) {
                /* a new record; one an earlier run left is taken over key by key (and its
                 * baseline kept: data may be moving now) */
                _cleanup_(ceph_config_dump_freep) CephConfigDump *before = NULL;
                if ((r = ceph_admin_config_dump(cs->admin, &before, err)) < 0)
                        return r;
                _cleanup_(ceph_throttle_plan_freep) CephThrottlePlan *plan = NULL;
                if ((r = ceph_adapt_plan(sched, cfg.rung_start, before, &plan, err)) < 0)
                        return r;
                if ((r = throttle_adapt_pool_ensure(cs->admin, err)) < 0)
                        return error_prefix(err, -r, "throttle: the probe pool '%s'", THROTTLE_ADAPT_POOL);
                if (!adaptive_rec) {
                        if (c) {
                                _cleanup_(freep) char *what = strprintf(
                                        "measuring the baseline client latency (2 × %g s)", cfg.window_sec);
                                wave_call_progress(c, -1, -1, what);
                        }
                        /* two windows: the first also warms the pool's PGs up */
                        if ((r = throttle_adapt_probe(cs->admin, (unsigned) cfg.window_sec, &base, err)) < 0 ||
                            (r = throttle_adapt_probe(cs->admin, (unsigned) cfg.window_sec, &base, err)) < 0)
                                return error_prefix(err, -r, "throttle: the baseline probe");
                        if (base.n_errors > 0 || base.n < cfg.min_ops)
                                return error_set(err, EIO,
                                                 "throttle: the baseline probe had %zu ops and %zu errors: the cluster "
                                                 "does not answer small I/O well enough to steer by it",
                                                 base.n, base.n_errors);
                }
                _cleanup_(freep) char *s = ceph_throttle_restore_format(plan);
                _cleanup_json_ json_object *rec = s ? json_tokener_parse(s) : NULL;
                json_object *b = json_object_new_object();
                if (!rec || json_add(rec, "baseline", b) < 0 || json_add_u64(b, "ops", base.n) < 0 ||
                    json_add_u64(b, "errors", base.n_errors) < 0 ||
                    json_add(b, "p50_ms", json_object_new_double(base.p50_ms)) < 0 ||
                    json_add(b, "p95_ms", json_object_new_double(base.p95_ms)) < 0 ||
                    json_add(b, "p99_ms", json_object_new_double(base.p99_ms)) < 0 ||
                    json_add(b, "max_ms", json_object_new_double(base.max_ms)) < 0 ||
                    json_add_string(rec, "preset", "adaptive") < 0 || ceph_throttle_record_set_ladder(rec, sched) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                if ((r = throttle_record(cs, NULL, rec, before, res, err)) < 0)
                        return r;
                for (size_t i = 0; plan->warnings[i]; i++)
                        if (cs->log)
                                fprintf(cs->log, "throttle: warning: %s\n", plan->warnings[i]);
        }
        /* a re-run that finds the brake on starts braked, at the bottom rung */
        int braked = adapt_brake_recorded(cs, err);
        if (braked < 0)
                return braked;
        CephConfigOp *ops = NULL;
        size_t n = 0;
        if ((r = ceph_adapt_rung_settings(sched, braked ? cfg.rung_min : cfg.rung_start, &ops, &n, err)) < 0)
                return r;
        r = ceph_admin_config_apply(cs->admin, ops, n, "throttle", err);
        ceph_config_ops_free(ops, n);
        if (r < 0 || (r = adapt_launch(cs, sched, &base, braked, err)) < 0)
                return r;
        json_object *set = json_array_new_strv((char **) ceph_adapt_keys(sched));
        if (json_add(res, "set", set) < 0 || json_add_string(res, "preset", "adaptive") < 0 ||
            json_add(res, "baseline_p99_ms", json_object_new_double(base.p99_ms)) < 0)
                return error_set(err, ENOMEM, "out of memory");
        const char *const *akeys = ceph_adapt_keys(sched);
        throttle_overrides(cs, akeys, strv_length((char **) akeys), res);
        *ret = TAKE_PTR(res);
        return 0;
}

int cluster_steps_resume_adaptive(ClusterSteps *cs, Error *err) {
        if (cs->layout->throttle.preset != THROTTLE_ADAPTIVE)
                return 0;
        _cleanup_json_ json_object *rec = NULL;
        int r = record_get_json(cs->admin, SAVED_PREFIX "throttle", &rec, err);
        if (r <= 0)
                return r;
        const char *preset = NULL;
        CephLatencyWindow base;
        if (json_get_string(rec, "preset", false, &preset, "throttle record", NULL) < 0 || !preset ||
            !streq(preset, "adaptive") || window_from_json(json_object_object_get(rec, "baseline"), &base) < 0)
                return 0;
        int braked = adapt_brake_recorded(cs, err);
        if (braked < 0)
                return braked;
        if ((r = adapt_launch(cs, scheduler(cs), &base, braked, err)) < 0)
                return r;
        return 1;
}

void cluster_steps_done(ClusterSteps *cs) {
        pthread_mutex_lock(&cs->adapt_mu);
        cs->adapt = throttle_adapt_stop(cs->adapt);
        pthread_mutex_unlock(&cs->adapt_mu);
        pthread_mutex_destroy(&cs->adapt_mu);
}

/* Records the throttle's values before and what it writes (`plan`; the adaptive throttle's
 * `adaptive` record: every rung's values, its baseline), with this run's id. A record this
 * run wrote stays as it is. One an earlier run left is not restored blindly nor kept as the
 * truth: where a key still holds what that run wrote, the value before that run is the one to
 * go back to; where it does not, someone set it since and its value now (`now`) is — and
 * keys that run set and this one does not are kept to be restored. res: "took_over". */
static int throttle_record(ClusterSteps *cs, const CephThrottlePlan *plan, json_object *adaptive,
                           const CephConfigDump *now, json_object *res, Error *err) {
        _cleanup_json_ json_object *have = NULL;
        int r = record_get_json(cs->admin, SAVED_PREFIX "throttle", &have, err);
        if (r < 0)
                return r;
        if (have && !record_of_other_run(cs, have))
                return 0;
        _cleanup_json_ json_object *rec = NULL;
        if (adaptive)
                rec = json_object_get(adaptive);
        else {
                _cleanup_(freep) char *text = ceph_throttle_restore_format(plan);
                rec = text ? json_tokener_parse(text) : NULL;
        }
        if (!rec || record_stamp(cs, rec) < 0)
                return error_set(err, ENOMEM, "out of memory");
        if (have) {
                _cleanup_json_ json_object *taken = NULL;
                const char *old = json_object_to_json_string_ext(have, JSON_C_TO_STRING_PLAIN);
                Error e = {};
                if ((r = ceph_throttle_record_take_over(rec, old, now, &taken, &e)) < 0)
                        return error_set(err, -r, "the throttle record an earlier run left in the cluster: %s",
                                         e.message);
                _cleanup_(freep) char *origin = record_origin(have);
                _cleanup_(freep) char *msg = strprintf(
                        "the record of %s was not restored: %zu of its values are still what it wrote and go back "
                        "to their values before it; the others are as someone set them since",
                        origin ? origin : "?", json_object_array_length(taken));
                restore_left_notice(cs, "throttle", msg ? msg : "took over an earlier run's record");
                json_object *t = json_object_new_object(), *run = json_object_object_get(have, "run"),
                            *since = json_object_object_get(have, "since");
                /* null run and since: a record of an older cephprov */
                if (!t || json_add(res, "took_over", t) < 0 ||
                    json_object_object_add(t, "run", run ? json_object_get(run) : NULL) < 0 ||
                    json_object_object_add(t, "since", since ? json_object_get(since) : NULL) < 0 ||
                    json_add(t, "keys", TAKE_PTR(taken)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        return record_set(cs->admin, SAVED_PREFIX "throttle", rec, err);
}

static int step_throttle(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        const char *name = "layout";
        (void) json_get_string(args, "preset", false, &name, "throttle", NULL);
        Throttle lt = cs->layout->throttle;
        if ((streq(name, "layout") && lt.preset == THROTTLE_ADAPTIVE) || streq(name, "adaptive")) {
                if (lt.preset != THROTTLE_ADAPTIVE)
                        return error_set(err, EINVAL, "throttle: preset 'adaptive' is set in the layout "
                                                      "(throttle: {preset: adaptive}), not in a playbook");
                return step_throttle_adaptive(cs, c, ret, err);
        }
        unsigned over[3] = { 0, 0, 0 };
        static const char *const keys[3] = { "osd_max_backfills", "osd_recovery_max_active",
                                             "osd_recovery_max_single_start" };
        CephThrottlePreset preset;
        int r;
        if (streq(name, "layout")) {
                preset = lt.preset == THROTTLE_SLOW ? CEPH_THROTTLE_SLOW
                       : lt.preset == THROTTLE_FAST ? CEPH_THROTTLE_FAST
                                                    : CEPH_THROTTLE_DEFAULT;
                if (lt.preset == THROTTLE_CUSTOM) {
                        over[0] = lt.osd_max_backfills;
                        over[1] = lt.osd_recovery_max_active;
                        over[2] = lt.osd_recovery_max_single_start;
                }
        } else if (streq(name, "custom"))
                preset = CEPH_THROTTLE_DEFAULT;
        else if ((r = ceph_throttle_preset_from_string(name, &preset, err)) < 0)
                return r;
        for (int i = 0; i < 3; i++) {
                uint64_t v;
                if (json_get_u64(args, keys[i], false, &v, "throttle", NULL) >= 0)
                        over[i] = (unsigned) v;
        }

        _cleanup_(ceph_config_dump_freep) CephConfigDump *before = NULL;
        if ((r = ceph_admin_config_dump(cs->admin, &before, err)) < 0)
                return r;
        _cleanup_(ceph_throttle_plan_freep) CephThrottlePlan *plan = NULL;
        /* explicit values: under mClock the override and the limits as well as the profile */
        const bool limits = over[0] || over[1] || over[2];
        const CephScheduler sched = scheduler(cs);
        if ((r = ceph_throttle_plan(preset, sched, limits, before, &plan, err)) < 0)
                return r;
        /* a mixed cluster (FileStore OSDs, or osd_op_queue wpq on some): the profile steers the
         * mClock OSDs, per-OSD limits the wpq ones (with explicit limits, the "osd" section's
         * override and limits act on both) */
        if (sched == CEPH_SCHEDULER_MCLOCK && !limits) {
                _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *meta = NULL;
                _cleanup_(freep) int *wpq = NULL;
                size_t n_wpq = 0;
                if ((r = ceph_admin_osd_metadata(cs->admin, &meta, err)) < 0)
                        return r;
                if (ceph_wpq_osds(cs->release, before, meta, &wpq, &n_wpq) < 0 ||
                    (n_wpq > 0 && ceph_throttle_plan_add_wpq_osds(plan, wpq, n_wpq, before) < 0))
                        return error_set(err, ENOMEM, "out of memory");
                if (n_wpq > 0 && cs->log) {
                        _cleanup_(freep) char *list = osds_text(wpq, n_wpq);
                        fprintf(cs->log, "throttle: %s run%s wpq (FileStore, or osd_op_queue wpq): preset '%s' sets "
                                         "their recovery limits per OSD, the mClock profile steers the others\n",
                                list ? list : "?", n_wpq == 1 ? "s" : "", ceph_throttle_preset_to_string(preset));
                        fflush(cs->log);
                }
        }
        for (int i = 0; i < 3; i++) {
                if (!over[i])
                        continue;
                bool found = false;
                for (size_t k = 0; k < plan->n_apply; k++)
                        if (streq(plan->apply[k].key, keys[i]) && plan->apply[k].value) {
                                free(plan->apply[k].value);
                                plan->apply[k].value = strprintf("%u", over[i]);
                                found = true;
                        }
                if (!found)
                        return error_set(err, EINVAL,
                                         "throttle: preset '%s' does not set %s with this cluster's scheduler "
                                         "(give slow or fast to set recovery limits under mClock)",
                                         ceph_throttle_preset_to_string(preset), keys[i]);
        }

        _cleanup_json_ json_object *res = NULL;
        if ((r = result_new(&res, err)) < 0)
                return r;
        /* what was there before, and what this run writes: recorded before the change */
        if ((r = throttle_record(cs, plan, NULL, before, res, err)) < 0)
                return r;
        json_object *set = json_object_new_array();
        json_add(res, "set", set);
        json_add_string(res, "preset", ceph_throttle_preset_to_string(preset));
        for (size_t k = 0; k < plan->n_apply; k++)
                json_object_array_add(set, json_object_new_string(plan->apply[k].key));
        if ((r = ceph_admin_config_apply(cs->admin, plan->apply, plan->n_apply, "throttle", err)) < 0)
                return r;
        _cleanup_(freep) const char **applied = calloc(plan->n_apply + 1, sizeof(char *));
        if (!applied)
                return error_set(err, ENOMEM, "out of memory");
        size_t n_applied = 0;
        for (size_t k = 0; k < plan->n_apply; k++)
                if (plan->apply[k].value) /* a key the preset sets (not one it removes) */
                        applied[n_applied++] = plan->apply[k].key;
        throttle_overrides(cs, applied, n_applied, res);
        *ret = TAKE_PTR(res);
        return 0;
}

static int step_restore_throttle(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        /* the adaptive throttle stops for good before its knobs go back */
        pthread_mutex_lock(&cs->adapt_mu);
        cs->adapt = throttle_adapt_stop(cs->adapt);
        cs->adapt_finished = true;
        pthread_mutex_unlock(&cs->adapt_mu);
        /* its brake, if it was on when it stopped (or when a run was killed) */
        _cleanup_json_ json_object *brake = NULL;
        int r = record_get_json(cs->admin, SAVED_PREFIX "flag-" CEPH_ADAPT_BRAKE_FLAG, &brake, err);
        if (r < 0)
                return r;
        /* ... unless the operator paused: then it stays on until `cephprov resume` */
        _cleanup_(freep) char *paused = NULL;
        if (brake && (r = record_get(cs->admin, CLUSTER_PAUSE_RECORD, &paused, err)) < 0)
                return r;
        if (brake && paused && cs->log) {
                fprintf(cs->log, "throttle: the brake (%s) stays on: paused by the operator; "
                                 "`cephprov resume` takes it off\n", CEPH_ADAPT_BRAKE_FLAG);
                fflush(cs->log);
        }
        if ((brake && !paused && (r = adapt_brake(cs, false, err)) < 0) ||
            (r = record_rm(cs->admin, "throttle-state", err)) < 0)
                return r;
        _cleanup_(freep) char *rec = NULL;
        r = record_get(cs->admin, SAVED_PREFIX "throttle", &rec, err);
        if (r < 0)
                return r;
        _cleanup_json_ json_object *res = NULL;
        if ((r = result_new(&res, err)) < 0)
                return r;
        json_add_bool(res, "restored", rec != NULL);
        if (rec) {
                /* the value before goes back only where the key still holds what cephprov
                 * wrote: what someone set since is theirs, left and named */
                _cleanup_(ceph_config_dump_freep) CephConfigDump *now = NULL;
                if ((r = ceph_admin_config_dump(cs->admin, &now, err)) < 0)
                        return r;
                CephConfigOp *ops = NULL;
                size_t n = 0;
                json_object *left = NULL;
                Error e = {};
                if ((r = ceph_throttle_restore_decide(rec, now, &ops, &n, &left, &e)) < 0)
                        return error_set(err, EBADMSG, "the throttle record in the cluster: %s", e.message);
                json_add(res, "left", left);
                _cleanup_json_ json_object *o = json_tokener_parse(rec);
                json_object *run = o ? json_object_object_get(o, "run") : NULL,
                            *since = o ? json_object_object_get(o, "since") : NULL;
                json_object_object_add(res, "run", run ? json_object_get(run) : NULL);
                json_object_object_add(res, "since", since ? json_object_get(since) : NULL);
                for (size_t i = 0; i < json_object_array_length(left); i++) {
                        json_object *l = json_object_array_get_idx(left, i);
                        json_object *w = json_object_object_get(l, "wrote");
                        const char *now_v = json_object_get_string(json_object_object_get(l, "value"));
                        const char *before_v = json_object_get_string(json_object_object_get(l, "before"));
                        _cleanup_(freep) char *wrote = NULL;
                        if (w && json_object_array_length(w) > 0) {
                                _cleanup_strv_free_ char **ws = NULL;
                                for (size_t k = 0; k < json_object_array_length(w); k++)
                                        (void) strv_extend(&ws, json_object_get_string(json_object_array_get_idx(w, k)));
                                wrote = strv_join(ws, " or ");
                        }
                        _cleanup_(freep) char *msg = strprintf(
                                "%s %s is %s, not %s as cephprov set it: someone changed it since, left as it is "
                                "(it was %s before cephprov)",
                                json_object_get_string(json_object_object_get(l, "who")),
                                json_object_get_string(json_object_object_get(l, "key")), now_v ? now_v : "unset",
                                wrote ? wrote : "what (an older record does not say)", before_v ? before_v : "unset");
                        restore_left_notice(cs, "restore-throttle", msg ? msg : "a value left as it is");
                }
                json_object *put = json_object_new_array();
                json_add(res, "put_back", put);
                for (size_t i = 0; put && i < n; i++) {
                        _cleanup_(freep) char *t = strprintf("%s %s", ops[i].who, ops[i].key);
                        if (t)
                                json_object_array_add(put, json_object_new_string(t));
                }
                r = ceph_admin_config_apply(cs->admin, ops, n, "restore-throttle", err);
                ceph_config_ops_free(ops, n);
                if (r < 0)
                        return r;
                if ((r = record_rm(cs->admin, SAVED_PREFIX "throttle", err)) < 0)
                        return r;
        }
        *ret = TAKE_PTR(res);
        return 0;
}

/* `balancer status` says active as wanted: what pause- and restore-balancer check they did. */
static int balancer_check(ClusterSteps *cs, bool active, const char *what, Error *err) {
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(cs->admin, ceph_argv_balancer_status(cli(cs), err), NULL, &out, err);
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
        int r = ceph_admin_run(cs->admin, ceph_argv_balancer_status(cli(cs), err), NULL, &out, err);
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
static int step_pause_balancer(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        _cleanup_json_ json_object *have = NULL, *rec = NULL;
        int r = record_get_json(cs->admin, SAVED_PREFIX "balancer", &have, err);
        if (r < 0)
                return r;
        if (!have || record_of_other_run(cs, have)) {
                CephBalancerStatus st;
                if ((r = balancer_status(cs, &st, err)) < 0)
                        return r;
                bool before = st.active;
                if (have && !st.active) {
                        /* still off as the earlier run left it: its value before is the one */
                        (void) json_get_bool(have, "active", false, &before, "balancer record", NULL);
                        _cleanup_(freep) char *origin = record_origin(have);
                        _cleanup_(freep) char *msg = strprintf("the record of %s was not restored: the balancer is "
                                                               "still off as it left it, and goes back %s",
                                                               origin ? origin : "?", before ? "on" : "off");
                        restore_left_notice(cs, "pause-balancer", msg ? msg : "took over an earlier run's record");
                }
                if (!(rec = json_object_new_object()) || json_add_bool(rec, "active", before) < 0 ||
                    json_add_string(rec, "mode", st.mode) < 0 || json_add_bool(rec, "wrote_active", false) < 0 ||
                    record_stamp(cs, rec) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                if ((r = record_set(cs->admin, SAVED_PREFIX "balancer", rec, err)) < 0)
                        return r;
        }
        if ((r = ceph_admin_run(cs->admin, ceph_argv_balancer_off(cli(cs), err), NULL, NULL, err)) < 0 ||
            (r = balancer_check(cs, false, "pause-balancer", err)) < 0)
                return r;
        return result_new(ret, err);
}

/* Turns the balancer back on only when it was on before and is still off as cephprov left
 * it; one someone turned on since stays on, and is named. */
static int step_restore_balancer(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        _cleanup_json_ json_object *rec = NULL, *res = NULL;
        int r = record_get_json(cs->admin, SAVED_PREFIX "balancer", &rec, err);
        if (r < 0 || (r = result_new(&res, err)) < 0)
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
                        if ((r = ceph_admin_run(cs->admin, before ? ceph_argv_balancer_on(cli(cs), err)
                                                                  : ceph_argv_balancer_off(cli(cs), err),
                                                NULL, NULL, err)) < 0 ||
                            (r = balancer_check(cs, before, "restore-balancer", err)) < 0)
                                return r;
                } else if (st.active != before) {
                        json_object *l = json_object_new_object();
                        if (!l || json_object_array_add(left, l) < 0 || json_add_string(l, "what", "balancer") < 0 ||
                            json_add_bool(l, "active", st.active) < 0 || json_add_bool(l, "before", before) < 0 ||
                            json_add_bool(l, "wrote", wrote) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                        restore_left_notice(cs, "restore-balancer",
                                            st.active ? "the balancer is on, not off as cephprov set it: someone "
                                                        "turned it on since, left on"
                                                      : "the balancer is off, not as cephprov set it: left off");
                }
                if ((r = record_rm(cs->admin, SAVED_PREFIX "balancer", err)) < 0)
                        return r;
        }
        json_add_bool(res, "restored", rec != NULL);
        *ret = TAKE_PTR(res);
        return 0;
}

/* The autoscaler is paused pool by pool (pg_autoscale_mode off): the same on every
 * release (the global noautoscale flag exists only from Quincy). */
static int pools(ClusterSteps *cs, CephPoolList **ret, Error *err) {
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(cs->admin, ceph_argv_osd_pool_ls_detail(cli(cs), err), NULL, &out, err);
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
        int r = pools(cs, &pl, err);
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

/* saved/autoscaler = {"pools": {POOL: MODE before}, "wrote": "off", "run", "since"}. A record
 * of an older cephprov is the pools' map alone: pause-autoscaler only ever wrote "off". */
static json_object *autoscaler_pools(json_object *rec) {
        json_object *p = NULL;
        if (json_object_object_get_ex(rec, "pools", &p) && json_object_is_type(p, json_type_object))
                return p;
        return rec;
}

static int step_pause_autoscaler(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        _cleanup_(ceph_pool_list_freep) CephPoolList *pl = NULL;
        int r = pools(cs, &pl, err);
        if (r < 0)
                return r;
        _cleanup_json_ json_object *have = NULL;
        if ((r = record_get_json(cs->admin, SAVED_PREFIX "autoscaler", &have, err)) < 0)
                return r;
        if (!have || record_of_other_run(cs, have)) {
                _cleanup_json_ json_object *rec = json_object_new_object();
                json_object *before = json_object_new_object();
                if (!rec || !before || json_add(rec, "pools", before) < 0 || json_add_string(rec, "wrote", "off") < 0 ||
                    record_stamp(cs, rec) < 0)
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
                        _cleanup_(freep) char *origin = record_origin(have);
                        _cleanup_(freep) char *msg = strprintf(
                                "the record of %s was not restored: %zu pool%s still off as it left them go back to "
                                "their mode before it",
                                origin ? origin : "?", taken, taken == 1 ? "" : "s");
                        restore_left_notice(cs, "pause-autoscaler", msg ? msg : "took over an earlier run's record");
                }
                if ((r = record_set(cs->admin, SAVED_PREFIX "autoscaler", rec, err)) < 0)
                        return r;
        }
        for (size_t i = 0; i < pl->n_pools; i++)
                if (!streq_ptr(pl->pools[i].pg_autoscale_mode, "off") &&
                    (r = ceph_admin_run(cs->admin,
                                        ceph_argv_osd_pool_set_autoscale_mode(cli(cs), pl->pools[i].name, "off", err),
                                        NULL, NULL, err)) < 0)
                        return r;
        if ((r = autoscaler_check(cs, NULL, "pause-autoscaler", err)) < 0)
                return r;
        return result_new(ret, err);
}

/* Each pool back to its mode before only while it is still off as cephprov set it; a pool
 * someone set since keeps its mode, and is named. */
static int step_restore_autoscaler(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        _cleanup_json_ json_object *rec = NULL, *res = NULL, *want = NULL;
        int r = record_get_json(cs->admin, SAVED_PREFIX "autoscaler", &rec, err);
        if (r < 0 || (r = result_new(&res, err)) < 0)
                return r;
        json_object *left = json_object_new_array();
        if (!left || json_add(res, "left", left) < 0 || !(want = json_object_new_object()))
                return error_set(err, ENOMEM, "out of memory");
        if (rec) {
                const char *wrote = "off";
                (void) json_get_string(rec, "wrote", false, &wrote, "autoscaler record", NULL);
                _cleanup_(ceph_pool_list_freep) CephPoolList *pl = NULL;
                if ((r = pools(cs, &pl, err)) < 0)
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
                                restore_left_notice(cs, "restore-autoscaler", msg ? msg : "a pool left as it is");
                                continue;
                        }
                        if (json_add_string(want, pool, m) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                        if ((r = ceph_admin_run(cs->admin, ceph_argv_osd_pool_set_autoscale_mode(cli(cs), pool, m, err),
                                                NULL, NULL, err)) < 0)
                                return r;
                }
                if ((r = autoscaler_check(cs, want, "restore-autoscaler", err)) < 0 ||
                    (r = record_rm(cs->admin, SAVED_PREFIX "autoscaler", err)) < 0)
                        return r;
        }
        json_add_bool(res, "restored", rec != NULL);
        *ret = TAKE_PTR(res);
        return 0;
}

static int osd_dump(ClusterSteps *cs, CephOsdDump **ret, Error *err) {
        return ceph_admin_osd_dump(cs->admin, ret, err);
}

static int step_purge_destroy(ClusterSteps *cs, json_object *args, bool purge, json_object **ret, Error *err) {
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        int r = osds_arg(args, &ids, &n, err);
        if (r < 0)
                return r;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        if ((r = osd_dump(cs, &d, err)) < 0)
                return r;
        _cleanup_json_ json_object *res = NULL;
        if ((r = result_new(&res, err)) < 0)
                return r;
        json_object *done = json_object_new_array();
        json_add(res, purge ? "purged" : "destroyed", done);
        /* those still to do; Ceph's own purge and destroy refuse only an OSD that is up: one
         * that still holds the only copy of a PG is refused here, as safe-to-destroy says */
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
                const CephDumpOsd *o = ceph_osd_dump_find_osd(d, ids[i]);
                if (!o || (!purge && o->destroyed))
                        continue; /* done already (a re-run) */
                if (o->up)
                        return error_set(err, EBUSY, "osd.%d is up: refusing to %s it (stop it first)", ids[i],
                                         purge ? "purge" : "destroy");
                ids[k++] = ids[i];
        }
        n = k;
        /* in place (a conversion): the OSDs were stopped after ok-to-stop and their data comes
         * back from the other copies onto the same ids; safe-to-destroy would wait for ever */
        bool in_place = false;
        (void) json_get_bool(args, "in_place", false, &in_place, "destroy-osd", NULL);
        if (n > 0 && in_place && !purge) {
                /* asked now, at the act, on every run: no PG may be left without a readable
                 * copy, counting every OSD down now (another host failed since ok-to-stop, or
                 * since the run that stopped these OSDs was killed) */
                _cleanup_(freep) char *list = osds_text(ids, n);
                _cleanup_(freep) char *act = strprintf("destroy %s in place", list ? list : "the OSDs");
                if ((r = ceph_admin_copies_gate(cs->admin, ids, n, act ? act : "destroy in place", err)) < 0)
                        return r;
        }
        if (n > 0 && !(in_place && !purge)) {
                _cleanup_(freep) char *out = NULL;
                _cleanup_(ceph_safe_to_destroy_freep) CephSafeToDestroy *sd = NULL;
                Error e = {};
                r = ceph_admin_run(cs->admin, ceph_argv_safe_to_destroy(cli(cs), ids, n, &e), NULL, &out, &e);
                if (r == -EBUSY || r == -EAGAIN)
                        return error_set(err, EBUSY, "refusing to %s: not safe to destroy yet (%s)",
                                         purge ? "purge" : "destroy", e.message);
                if (r < 0)
                        return error_set(err, -r, "%s", e.message);
                if ((r = ceph_safe_to_destroy_parse(0, out, "", ids, n, &sd, &e)) < 0)
                        return error_set(err, -r, "'ceph osd safe-to-destroy' on '%s': %s", cs->admin->host->name,
                                         e.message);
                for (size_t i = 0; i < n; i++)
                        if (!ceph_safe_to_destroy_is_safe(sd, ids[i]))
                                return error_set(err, EBUSY, "osd.%d is not safe to destroy (its PGs have no other "
                                                             "copy yet): refusing to %s it", ids[i],
                                                 purge ? "purge" : "destroy");
        }
        for (size_t i = 0; i < n; i++) {
                r = ceph_admin_run(cs->admin, purge ? ceph_argv_osd_purge(cli(cs), ids[i], err)
                                                    : ceph_argv_osd_destroy(cli(cs), ids[i], err),
                                   NULL, NULL, err);
                if (r < 0)
                        return r;
                json_object_array_add(done, json_object_new_int(ids[i]));
        }
        /* checked: purged, gone from the OSD map, CRUSH and auth; destroyed, marked so */
        if (n > 0) {
                _cleanup_(ceph_osd_dump_freep) CephOsdDump *after = NULL;
                _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = NULL;
                if ((r = osd_dump(cs, &after, err)) < 0 || (purge && (r = ceph_admin_osd_tree(cs->admin, &t, err)) < 0))
                        return r;
                for (size_t i = 0; i < n; i++) {
                        const CephDumpOsd *o = ceph_osd_dump_find_osd(after, ids[i]);
                        if (!purge) {
                                if (!o || !o->destroyed)
                                        return error_set(err, EIO, "after 'osd destroy': osd.%d is not marked destroyed",
                                                         ids[i]);
                                continue;
                        }
                        if (o || ceph_osd_tree_find_osd(t, ids[i]))
                                return error_set(err, EIO, "after 'osd purge': osd.%d is still in the %s", ids[i],
                                                 o ? "OSD map" : "CRUSH map");
                        char entity[32];
                        snprintf(entity, sizeof entity, "osd.%d", ids[i]);
                        Error e = {};
                        r = ceph_admin_run(cs->admin, ceph_argv_auth_get(cli(cs), entity, &e), NULL, NULL, &e);
                        if (r != -ENOENT)
                                return error_set(err, EIO, "after 'osd purge': %s %s", entity,
                                                 r >= 0 ? "still has a key" : e.message);
                }
        }
        *ret = TAKE_PTR(res);
        return 0;
}

/* Which of ids[0..n) are still `host`'s (ceph_osd_of_host(): its CRUSH bucket, else its
 * metadata hostname) or no longer in the OSD map (purged: nothing left to act on): *ret_own
 * gets those, *ret_other the rest, each as osd.N of the host that has it now ("osd.9 (now
 * node2's)"). A destroy's record keeps the ids it purged; once purged, an id can be given to
 * another host's new OSD, which is never that record's to act on. */
static int osds_of_host(CephAdmin *a, const char *host, const int *ids, size_t n, int **ret_own, size_t *ret_n_own,
                        char ***ret_other, Error *err) {
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = NULL;
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *md = NULL;
        _cleanup_(freep) int *own = calloc(n ? n : 1, sizeof(int));
        _cleanup_strv_free_ char **other = NULL;
        size_t k = 0;
        int r;
        if (!own)
                return error_set(err, ENOMEM, "out of memory");
        if (n > 0 && ((r = ceph_admin_osd_dump(a, &d, err)) < 0 || (r = ceph_admin_osd_tree(a, &t, err)) < 0))
                return r;
        for (size_t i = 0; i < n; i++) {
                const CephTreeOsd *to = ceph_osd_tree_find_osd(t, ids[i]);
                if (ceph_osd_dump_find_osd(d, ids[i]) && (!to || !to->host) && !md &&
                    (r = ceph_admin_osd_metadata(a, &md, err)) < 0)
                        return r;
                if (!ceph_osd_dump_find_osd(d, ids[i]) || ceph_osd_of_host(t, md, ids[i], host)) {
                        own[k++] = ids[i];
                        continue;
                }
                const char *now = ceph_osd_host_of(t, md, ids[i]);
                if (strv_consume(&other, now ? strprintf("osd.%d (now %s's)", ids[i], now)
                                             : strprintf("osd.%d (of no known host)", ids[i])) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        *ret_own = TAKE_PTR(own);
        *ret_n_own = k;
        *ret_other = other;
        other = NULL;
        return 0;
}

int cluster_osds_of_host(CephAdmin *a, const char *host, const int *ids, size_t n, int **ret_own, size_t *ret_n_own,
                         char ***ret_other, Error *err) {
        return osds_of_host(a, host, ids, n, ret_own, ret_n_own, ret_other, err);
}

/* In a host's list, purge only the OSDs that are still that host's (osds_of_host()): the
 * others are left alone and named in the result ("not_purged"), never purged. */
static int step_purge(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        const char *host = c ? wave_call_host(c) : NULL;
        if (!host)
                return step_purge_destroy(cs, args, true, ret, err);
        _cleanup_(freep) int *ids = NULL, *own = NULL;
        _cleanup_strv_free_ char **other = NULL;
        size_t n = 0, n_own = 0;
        int r = osds_arg(args, &ids, &n, err);
        if (r < 0 || (r = osds_of_host(cs->admin, host, ids, n, &own, &n_own, &other, err)) < 0)
                return r;
        _cleanup_json_ json_object *a2 = NULL;
        if (json_object_deep_copy(args, &a2, NULL) < 0 || json_add(a2, "osds", json_array_new_ints(own, n_own)) < 0)
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_json_ json_object *res = NULL;
        if ((r = step_purge_destroy(cs, a2, true, &res, err)) < 0)
                return r;
        if (other) {
                _cleanup_(freep) char *list = strv_join(other, ", ");
                if (cs->log)
                        fprintf(cs->log, "purge-osd on %s: %s not purged: no longer this host's\n", host,
                                list ? list : "");
                json_add(res, "not_purged", json_array_new_strv(other));
        }
        *ret = TAKE_PTR(res);
        return 0;
}

static int step_destroy(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        return step_purge_destroy(cs, args, false, ret, err);
}

static int step_crush_remove_host(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        const char *host = NULL;
        int r = json_get_string(args, "host", true, &host, "crush-remove-host", err);
        if (r < 0)
                return r;
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = NULL;
        if ((r = ceph_admin_osd_tree(cs->admin, &t, err)) < 0)
                return r;
        const CephTreeHost *h = ceph_osd_tree_find_host(t, host);
        if (h && h->n_osds > 0)
                return error_set(err, ENOTEMPTY, "host bucket '%s' still holds %zu OSD%s: refusing to remove it", host,
                                 h->n_osds, h->n_osds == 1 ? "" : "s");
        if (h && (r = ceph_admin_run(cs->admin, ceph_argv_osd_crush_rm(cli(cs), host, err), NULL, NULL, err)) < 0)
                return r;
        bool removed = h != NULL;
        if (removed) {
                /* checked: no bucket of that name is left */
                t = ceph_osd_tree_free(t);
                if ((r = ceph_admin_osd_tree(cs->admin, &t, err)) < 0)
                        return r;
                if (ceph_osd_tree_find_host(t, host))
                        return error_set(err, EIO, "after 'osd crush rm %s': the host bucket is still there", host);
        }
        if ((r = result_new(ret, err)) < 0)
                return r;
        json_add_bool(*ret, "removed", removed);
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
        int r = osd_dump(cs, &d, err);
        if (r < 0)
                return r;
        *ret = host ? ceph_osd_dump_has_node_flag(d, host, flag) : ceph_osd_dump_has_flag(d, flag);
        return 0;
}

static int flag_change(ClusterSteps *cs, const char *flag, const char *host, bool set, Error *err) {
        char *who[] = { (char *) host, NULL };
        char **argv = host ? (set ? ceph_argv_osd_set_group(cli(cs), flag, who, err)
                                  : ceph_argv_osd_unset_group(cli(cs), flag, who, err))
                           : (set ? ceph_argv_osd_set(cli(cs), flag, err) : ceph_argv_osd_unset(cli(cs), flag, err));
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
        int r = record_get_json(cs->admin, name, &rec, err);
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
                        restore_left_notice(cs, "unset-flag", msg ? msg : "a flag left as it is");
                        json_object *l = json_object_new_object();
                        if (!l || json_object_array_add(left, l) < 0 || json_add_string(l, "flag", flag) < 0 ||
                            (host && json_add_string(l, "host", host) < 0) ||
                            json_add_string(l, "reason", rec ? "set before cephprov" : "no record of cephprov's") < 0)
                                return error_set(err, ENOMEM, "out of memory");
                }
        } else if ((r = flag_change(cs, flag, host, false, err)) < 0)
                return r;
        if (rec && (r = record_rm(cs->admin, name, err)) < 0)
                return r;
        return 0;
}

/* unset-flag FLAG with scope host in before/gate/after: every host a record says cephprov
 * set it on (this run's, or one a failed or killed run left) */
static int flag_unset_every_host(ClusterSteps *cs, const char *flag, bool restore, json_object *res, Error *err) {
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(cs->admin, ceph_argv_config_key_ls(cli(cs), err), NULL, &out, err);
        if (r < 0)
                return r;
        _cleanup_strv_free_ char **keys = NULL;
        Error e = {};
        if ((r = ceph_config_key_ls_parse(out, &keys, &e)) < 0)
                return error_set(err, EBADMSG, "'ceph config-key ls': %s", e.message);
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

static int flag_step(ClusterSteps *cs, json_object *args, bool set, json_object **ret, Error *err) {
        const char *flag = NULL, *scope = "cluster", *host = NULL;
        bool restore = true;
        int r = json_get_string(args, "flag", true, &flag, "flag step", err);
        if (r < 0)
                return r;
        (void) json_get_string(args, "scope", false, &scope, "flag step", NULL);
        (void) json_get_string(args, "host", false, &host, "flag step", NULL);
        (void) json_get_bool(args, "restore", false, &restore, "flag step", NULL);
        _cleanup_json_ json_object *res = NULL;
        if ((r = result_new(&res, err)) < 0)
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
        if ((r = record_get_json(cs->admin, name, &have, err)) < 0)
                return r;
        bool was_set = false;
        if (!have || record_of_other_run(cs, have)) {
                bool now = false;
                if ((r = flag_now(cs, flag, host, &now, err)) < 0)
                        return r;
                was_set = now;
                if (have && now) {
                        /* still set as an earlier run left it: whether it was set before that run */
                        (void) json_get_bool(have, "was_set", false, &was_set, "flag record", NULL);
                        _cleanup_(freep) char *origin = record_origin(have);
                        _cleanup_(freep) char *msg = strprintf("the record of %s (%s%s%s) was not restored: the flag is "
                                                               "still set as it left it, and was %s before it",
                                                               origin ? origin : "?", flag, host ? " on " : "",
                                                               host ? host : "", was_set ? "set" : "not set");
                        restore_left_notice(cs, "set-flag", msg ? msg : "took over an earlier run's record");
                }
                _cleanup_json_ json_object *rec = json_object_new_object();
                if (!rec || json_add_bool(rec, "was_set", was_set) < 0 || record_stamp(cs, rec) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                if ((r = record_set(cs->admin, name, rec, err)) < 0)
                        return r;
        } else
                (void) json_get_bool(have, "was_set", false, &was_set, "flag record", NULL);
        if ((r = flag_change(cs, flag, host, true, err)) < 0)
                return r;
        json_add_bool(res, "was_set", was_set);
        *ret = TAKE_PTR(res);
        return 0;
}

static int step_set_flag(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        return flag_step(cs, args, true, ret, err);
}

static int step_unset_flag(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        return flag_step(cs, args, false, ret, err);
}

/* crush-reweight: each OSD's CRUSH weight towards `weight`, by at most `step` at a time,
 * every PG active+clean between steps. The weights are read from the cluster each round, so
 * a re-run after a kill goes on from where they are. */
static int step_crush_reweight(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        int r = osds_arg(args, &ids, &n, err);
        if (r < 0 || (r = existing_osds(cs, ids, &n, err)) < 0)
                return r;
        json_object *v = NULL;
        if (!json_object_object_get_ex(args, "weight", &v) ||
            !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
                return error_set(err, EINVAL, "crush-reweight: 'weight' must be a number");
        double target = json_object_get_double(v), step = 0;
        if (json_object_object_get_ex(args, "step", &v) && v)
                step = json_object_get_double(v);
        if (!(target >= 0) || !(step >= 0))
                return error_set(err, EINVAL, "crush-reweight: invalid weight %g or step %g", target, step);
        unsigned timeout = arg_timeout(args, 43200);
        _cleanup_json_ json_object *res = NULL;
        if ((r = result_new(&res, err)) < 0)
                return r;
        json_object *from = json_object_new_object();
        json_add(res, "from", from);
        unsigned rounds = 0;
        for (;;) {
                _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = NULL;
                if ((r = ceph_admin_osd_tree(cs->admin, &t, err)) < 0)
                        return r;
                size_t moved = 0;
                for (size_t i = 0; i < n; i++) {
                        const CephTreeOsd *o = ceph_osd_tree_find_osd(t, ids[i]);
                        if (!o)
                                continue;
                        char name[32];
                        snprintf(name, sizeof name, "osd.%d", ids[i]);
                        if (rounds == 0)
                                json_object_object_add(from, name, json_object_new_double(o->crush_weight));
                        /* CRUSH keeps weights in 16.16 fixed point: within one unit is there */
                        double cur = o->crush_weight;
                        if (fabs(cur - target) <= 1.0 / 65536 + 1e-9)
                                continue;
                        double next = target;
                        if (step > 0 && fabs(cur - target) > step)
                                next = cur > target ? cur - step : cur + step;
                        if ((r = ceph_admin_run(cs->admin, ceph_argv_osd_crush_reweight(cli(cs), ids[i], next, err), NULL,
                                                NULL, err)) < 0)
                                return r;
                        moved++;
                }
                if (moved == 0)
                        break;
                if (++rounds > 1000)
                        return error_set(err, ELOOP, "crush-reweight towards %.5f: still not there after 1000 rounds "
                                                     "(is the step too small?)", target);
                /* the mgr's PG statistics trail the OSD map by up to a report period (5 s):
                 * probed at once, the PGs would still look clean */
                nanosleep(&(struct timespec) { .tv_sec = 5 }, NULL);
                RecoveryProbe p = {};
                _cleanup_(freep) char *what = strprintf("CRUSH weights towards %.5f (round %u): waiting for every PG to "
                                                        "be active+clean", target, rounds);
                if ((r = wait_for(cs, c, what ? what : "crush-reweight", timeout, probe_clean, &p, err)) < 0)
                        return r;
        }
        json_add(res, "weight", json_object_new_double(target));
        json_add_u64(res, "rounds", rounds);
        *ret = TAKE_PTR(res);
        return 0;
}

/* ---- benchmark ------------------------------------------------------------------- */

/* One `osd bench` of osd.ID: its rate (small: IOPS, large: MB/s). */
static int osd_bench(ClusterSteps *cs, int id, bool small, double *ret, Error *err) {
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(cs->admin,
                               ceph_argv_osd_bench(cli(cs), id, small ? CEPH_BENCH_SMALL_TOTAL : CEPH_BENCH_LARGE_TOTAL,
                                                   small ? CEPH_BENCH_SMALL_BLOCK : CEPH_BENCH_LARGE_BLOCK, err),
                               NULL, &out, err);
        if (r < 0)
                return r;
        CephOsdBench b;
        if ((r = ceph_osd_bench_parse(out, &b, err)) < 0)
                return error_prefix(err, r, "osd.%d", id);
        *ret = small ? b.iops : b.bytes_per_sec / 1e6;
        return 0;
}

/* Measures each OSD `rounds` times with both sizes, the medians into *ret. */
static int bench_osds(ClusterSteps *cs, WaveCall *c, const int *ids, size_t n, unsigned rounds, CephBench *ret,
                      Error *err) {
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        int r = osd_dump(cs, &dump, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                const CephDumpOsd *o = ceph_osd_dump_find_osd(dump, ids[i]);
                if (!o || !o->up)
                        return error_set(err, EHOSTDOWN, "osd.%d is %s: it cannot be benchmarked", ids[i],
                                         o ? "down" : "not in the OSD map");
        }
        if (!(ret->osds = calloc(n ? n : 1, sizeof(CephBenchOsd))))
                return error_set(err, ENOMEM, "out of memory");
        ret->rounds = rounds;
        _cleanup_(freep) double *small = calloc(rounds, sizeof(double)), *large = calloc(rounds, sizeof(double));
        if (!small || !large)
                return error_set(err, ENOMEM, "out of memory");
        double t0 = now_sec();
        size_t done = 0, total = n * rounds;
        for (size_t i = 0; i < n; i++) {
                for (unsigned k = 0; k < rounds; k++) {
                        if (c && wave_call_cancelled(c))
                                return error_set(err, ECANCELED, "benchmark: cancelled");
                        _cleanup_(freep) char *text = strprintf("osd.%d round %u of %u", ids[i], k + 1, rounds);
                        double el = now_sec() - t0;
                        if (c)
                                wave_call_progress(c, (double) done / (double) total,
                                                   done ? el / (double) done * (double) (total - done) : -1, text);
                        if ((r = osd_bench(cs, ids[i], true, &small[k], err)) < 0 ||
                            (r = osd_bench(cs, ids[i], false, &large[k], err)) < 0)
                                return r;
                        done++;
                }
                ret->osds[ret->n_osds++] = (CephBenchOsd) { .id = ids[i],
                                                            .small_iops = ceph_bench_median(small, rounds),
                                                            .large_mbps = ceph_bench_median(large, rounds) };
        }
        return 0;
}

/* a label that can be part of a config-key name */
static bool label_valid(const char *s) {
        static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.";
        return !isempty(s) && strlen(s) <= 64 && s[strspn(s, ok)] == 0;
}

static char *bench_record_name(const char *host, const char *label) {
        return host ? strprintf("benchmark/%s/%s", host, label) : strprintf("benchmark/%s", label);
}

static int step_benchmark(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        const char *label = NULL, *compare_to = NULL, *host = c ? wave_call_host(c) : NULL;
        uint64_t rounds = 5, max_regression = 100;
        bool canary_only = true;
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        int r;
        if ((r = json_get_string(args, "label", true, &label, "benchmark", err)) < 0 ||
            (r = osds_arg(args, &ids, &n, err)) < 0)
                return r;
        (void) json_get_string(args, "compare_to", false, &compare_to, "benchmark", NULL);
        (void) json_get_u64(args, "rounds", false, &rounds, "benchmark", NULL);
        (void) json_get_u64(args, "max_regression", false, &max_regression, "benchmark", NULL);
        (void) json_get_bool(args, "canary_only", false, &canary_only, "benchmark", NULL);
        if (!label_valid(label) || (compare_to && !label_valid(compare_to)))
                return error_set(err, EINVAL, "benchmark: label '%s' / compare_to '%s': letters, digits, '-', '_' and "
                                              "'.' only", label, compare_to ? compare_to : "");
        _cleanup_(freep) char *where = host ? strprintf(" of host '%s'", host) : strdup("");
        if (!where)
                return error_set(err, ENOMEM, "out of memory");
        if ((r = result_new(ret, err)) < 0)
                return r;
        unsigned wave = c ? wave_call_wave(c) : 0;
        if (host && canary_only && wave > 1) {
                json_add_string(*ret, "skipped", "not the canary: only the first wave is measured (canary_only)");
                return 0;
        }
        if (n == 0)
                return error_set(err, EINVAL, "benchmark '%s'%s: no OSD to measure", label, where);
        rounds = MAX(1u, MIN(rounds, 20u));

        /* the earlier measurement first: a missing one fails before minutes of benchmarking */
        _cleanup_(ceph_bench_done) CephBench before = {}, now = {};
        _cleanup_(freep) char *name = bench_record_name(host, label), *before_name = NULL;
        if (!name)
                return error_set(err, ENOMEM, "out of memory");
        if (compare_to) {
                _cleanup_json_ json_object *rec = NULL;
                if (!(before_name = bench_record_name(host, compare_to)))
                        return error_set(err, ENOMEM, "out of memory");
                if ((r = record_get_json(cs->admin, before_name, &rec, err)) < 0)
                        return r;
                if (r == 0)
                        return error_set(err, ENOENT, "benchmark '%s': no measurement '%s'%s recorded in the cluster "
                                                      "(config-key cephprov/%s/%s) to compare with",
                                         label, compare_to, where, cs->admin->cluster, before_name);
                _cleanup_(freep) char *what = strprintf("the record cephprov/%s/%s", cs->admin->cluster, before_name);
                if ((r = ceph_bench_from_json(rec, what ? what : "benchmark record", &before, err)) < 0)
                        return r;
        }

        if ((r = bench_osds(cs, c, ids, n, (unsigned) rounds, &now, err)) < 0)
                return error_prefix(err, r, "benchmark '%s'%s", label, where);
        now.time = (int64_t) time(NULL);
        ceph_bench_sort(&now);
        if (!(now.label = strdup(label)) || (host && !(now.host = strdup(host))))
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_json_ json_object *m = ceph_bench_to_json(&now);
        if (!m)
                return error_set(err, ENOMEM, "out of memory");
        if ((r = record_set(cs->admin, name, m, err)) < 0)
                return r;
        json_add(*ret, "measurement", json_object_get(m));
        for (size_t i = 0; i < now.n_osds; i++)
                log_notice("benchmark '%s'%s: osd.%d %.0f IOPS (4 KiB writes), %.1f MB/s (4 MiB writes), medians of %u",
                         label, where, now.osds[i].id, now.osds[i].small_iops,
                         now.osds[i].large_mbps, now.rounds);
        if (!compare_to)
                return 0;

        _cleanup_(ceph_bench_verdict_done) CephBenchVerdict v = {};
        if ((r = ceph_bench_compare(&before, &now, (unsigned) max_regression, &v, err)) < 0)
                return r;
        json_add_string(*ret, "compared_to", compare_to);
        json_add_bool(*ret, "regressed", v.regressed);
        json_add(*ret, "small_change_pct", json_object_new_double(round((1 / v.small_slowdown - 1) * 1000) / 10));
        json_add(*ret, "large_change_pct", json_object_new_double(round((1 / v.large_slowdown - 1) * 1000) / 10));
        json_add(*ret, "limit_pct", json_object_new_double(round((1 / v.limit - 1) * 1000) / 10));
        json_add_string(*ret, "table", v.text);
        if (!v.regressed)
                log_notice("benchmark '%s' against '%s'%s:\n%s", label, compare_to, where, v.text);
        else {
                /* the table to the log, the error one line (it is repeated in the reports) */
                log_error("benchmark '%s' against '%s'%s:\n%s", label, compare_to, where, v.text);
                return error_set(err, EDQUOT, "benchmark '%s' against '%s'%s: the OSDs are slower than "
                                              "max_regression %" PRIu64 "%% allows (4 KiB writes %+.0f%%, 4 MiB writes "
                                              "%+.0f%%, the limit %.0f%%): stopping before the next host",
                                 label, compare_to, where, max_regression, (1 / v.small_slowdown - 1) * 100,
                                 (1 / v.large_slowdown - 1) * 100, (1 / v.limit - 1) * 100);
        }
        return 0;
}

static const struct {
        const char *name;
        StepFn fn;
} steps[] = {
        { "drain-check", step_drain_check },
        { "set-flag", step_set_flag },
        { "unset-flag", step_unset_flag },
        { "pause-balancer", step_pause_balancer },
        { "restore-balancer", step_restore_balancer },
        { "pause-autoscaler", step_pause_autoscaler },
        { "restore-autoscaler", step_restore_autoscaler },
        { "out", step_out },
        { "in", step_in },
        { "wait-ok-to-stop", step_wait_ok_to_stop },
        { "wait-safe-to-destroy", step_wait_safe_to_destroy },
        { "wait-clean", step_wait_clean },
        { "destroy-osd", step_destroy },
        { "purge-osd", step_purge },
        { "crush-remove-host", step_crush_remove_host },
        { "crush-reweight", step_crush_reweight },
        { "throttle", step_throttle },
        { "restore-throttle", step_restore_throttle },
        { "health-gate", step_health_gate },
        { "benchmark", step_benchmark },
};

int cluster_steps_call(void *userdata, const char *step, json_object *args, WaveCall *c, json_object **ret_result,
                       Error *err) {
        ClusterSteps *cs = userdata;
        for (size_t i = 0; i < ELEMENTSOF(steps); i++)
                if (streq(steps[i].name, step))
                        return steps[i].fn(cs, args, c, ret_result, err);
        return error_set(err, ENOTSUP, "cluster step '%s' is not implemented yet", step);
}

int cluster_steps_init(ClusterSteps *cs, CephAdmin *admin, const Layout *layout, Error *err) {
        *cs = (ClusterSteps) { .admin = admin, .layout = layout };
        pthread_mutex_init(&cs->adapt_mu, NULL);
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(admin, ceph_argv_versions(ceph_admin_cli(admin), err), NULL, &out, err);
        if (r < 0)
                return r;
        CephVersions v;
        Error e = {};
        if (ceph_versions_parse(out, &v, &e) >= 0)
                cs->release = v.oldest.release;
        return 0;
}

/* ---- drained hosts ------------------------------------------------------------------ */

/* A host is recorded "drained" only once its OSDs are out, down and in no PG's up or
 * acting set, read now: the PGs first (`pg dump pgs_brief`), then the OSD map. The mgr's PG
 * map lags the OSD map by a few seconds: asked up to three times, 2 s apart, then refused
 * naming each OSD and what it still is. An answer that cannot be read refuses too. */
static int drained_verify(CephAdmin *a, const char *host, const int *osds, size_t n, Error *err) {
        if (n == 0)
                return 0;
        for (unsigned attempt = 0;; attempt++) {
                _cleanup_(freep) char *pg_out = NULL;
                _cleanup_(ceph_pg_dump_freep) CephPgDump *pgs = NULL;
                _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
                Error e = {};
                int r = ceph_admin_run(a, ceph_argv_pg_dump_pgs_brief(ceph_admin_cli(a), &e), NULL, &pg_out, &e);
                if (r >= 0 && (r = ceph_pg_dump_parse(pg_out ? pg_out : "", &pgs, &e)) < 0)
                        error_prefix(&e, r, "'ceph pg dump pgs_brief'");
                if (r >= 0)
                        r = ceph_admin_osd_dump(a, &dump, &e);
                if (r < 0)
                        return error_set(err, -r, "refusing to record host '%s' drained: its OSDs' state cannot be read: %s",
                                         host, e.message);
                if ((r = ceph_osds_emptied(dump, pgs, osds, n, &e)) != -EBUSY) {
                        if (r < 0)
                                return error_set(err, -r, "%s", e.message);
                        return 0;
                }
                if (attempt >= 2)
                        return error_set(err, EBUSY, "refusing to record host '%s' drained: %s", host, e.message);
                struct timespec ts = { 2, 0 };
                nanosleep(&ts, NULL);
        }
}

int cluster_drained_set(CephAdmin *a, const char *host, const char *state, const int *osds, size_t n_osds,
                        Error *err) {
        int r;
        if (streq(state, "drained") && (r = drained_verify(a, host, osds, n_osds, err)) < 0)
                return r;
        _cleanup_(freep) char *name = strprintf("drained/%s", host);
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!name || !o)
                return error_set(err, ENOMEM, "out of memory");
        json_add_string(o, "state", state);
        json_add(o, "osds", json_array_new_ints(osds, n_osds));
        json_add_int(o, "since", (int64_t) time(NULL));
        return record_set(a, name, o, err);
}

int cluster_drained_rm(CephAdmin *a, const char *host, Error *err) {
        _cleanup_(freep) char *name = strprintf("drained/%s", host);
        if (!name)
                return error_set(err, ENOMEM, "out of memory");
        return record_rm(a, name, err);
}

int cluster_drained_get(CephAdmin *a, const char *host, char **ret_state, int **ret_osds, size_t *ret_n,
                        Error *err) {
        _cleanup_(freep) char *name = strprintf("drained/%s", host);
        if (!name)
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_json_ json_object *o = NULL;
        int r = record_get_json(a, name, &o, err);
        if (r <= 0)
                return r;
        const char *state = NULL;
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        _cleanup_(freep) char *what = strprintf("the record cephprov/%s/%s", a->cluster, name);
        if (!what)
                return error_set(err, ENOMEM, "out of memory");
        if ((r = json_get_string(o, "state", true, &state, what, err)) < 0 ||
            (r = json_get_int_array(o, "osds", true, &ids, &n, what, err)) < 0)
                return r;
        char *st = strdup(state);
        if (!st)
                return error_set(err, ENOMEM, "out of memory");
        *ret_state = st;
        *ret_osds = TAKE_PTR(ids);
        *ret_n = n;
        return 1;
}

int cluster_destroyed_hosts(CephAdmin *a, char ***ret, Error *err) {
        _cleanup_strv_free_ char **all = NULL, **out = NULL;
        int r = cluster_drained_hosts(a, &all, err);
        if (r < 0)
                return r;
        for (char **h = all; *h; h++) {
                _cleanup_(freep) char *state = NULL;
                _cleanup_(freep) int *ids = NULL;
                size_t n = 0;
                if ((r = cluster_drained_get(a, *h, &state, &ids, &n, err)) < 0)
                        return r;
                if (r > 0 && startswith(state, "destroy") && strv_extend(&out, *h) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        if (!out && !(out = calloc(1, sizeof(char *))))
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(out);
        return 0;
}

int cluster_restore_records(CephAdmin *a, json_object **ret, Error *err) {
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(a, ceph_argv_config_key_ls(ceph_admin_cli(a), err), NULL, &out, err);
        if (r < 0)
                return r;
        _cleanup_strv_free_ char **keys = NULL;
        Error e = {};
        if ((r = ceph_config_key_ls_parse(out, &keys, &e)) < 0)
                return error_set(err, EBADMSG, "'ceph config-key ls': %s", e.message);
        _cleanup_(freep) char *prefix = strprintf("cephprov/%s/", a->cluster);
        _cleanup_json_ json_object *list = json_object_new_array();
        if (!prefix || !list)
                return error_set(err, ENOMEM, "out of memory");
        /* config-key ls lists keys sorted */
        for (char **k = keys; k && *k; k++) {
                if (!startswith(*k, prefix) || !startswith(*k + strlen(prefix), SAVED_PREFIX))
                        continue;
                const char *name = *k + strlen(prefix);
                _cleanup_json_ json_object *v = NULL;
                if ((r = record_get_json(a, name, &v, err)) < 0)
                        return r;
                if (!v)
                        continue; /* removed meanwhile */
                json_object *o = json_object_new_object();
                if (!o || json_object_array_add(list, o) < 0 || json_add_string(o, "record", name) < 0)
                        return json_object_put(o), error_set(err, ENOMEM, "out of memory");
                int64_t since = 0;
                json_object *run = json_object_object_get(v, "run");
                (void) json_get_int(v, "since", false, &since, "record", NULL);
                json_object_object_add(o, "run", run ? json_object_get(run) : NULL);
                json_object_object_add(o, "since", since ? json_object_new_int64(since) : NULL);
                json_object_object_add(o, "age_sec", since ? json_object_new_int64((int64_t) time(NULL) - since) : NULL);
                json_add(o, "value", TAKE_PTR(v));
        }
        *ret = TAKE_PTR(list);
        return 0;
}

int cluster_drained_hosts(CephAdmin *a, char ***ret, Error *err) {
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(a, ceph_argv_config_key_ls(ceph_admin_cli(a), err), NULL, &out, err);
        if (r < 0)
                return r;
        _cleanup_strv_free_ char **keys = NULL, **hosts = NULL;
        Error e = {};
        if ((r = ceph_config_key_ls_parse(out, &keys, &e)) < 0)
                return error_set(err, EBADMSG, "'ceph config-key ls': %s", e.message);
        _cleanup_(freep) char *prefix = strprintf("cephprov/%s/drained/", a->cluster);
        if (!prefix)
                return error_set(err, ENOMEM, "out of memory");
        for (char **k = keys; k && *k; k++)
                if (startswith(*k, prefix) && strv_extend(&hosts, *k + strlen(prefix)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        if (!hosts && !(hosts = calloc(1, sizeof(char *))))
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(hosts);
        return 0;
}

/* ---- OSD services on a host -------------------------------------------------------- */

typedef struct UpProbe {
        const int *osds;
        size_t n;
        bool up;
} UpProbe;

static int probe_up_down(ClusterSteps *cs, WaveCall *c, void *userdata, Error *err) {
        UpProbe *p = userdata;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        int r = osd_dump(cs, &d, err);
        if (r < 0)
                return r;
        size_t left = 0;
        for (size_t i = 0; i < p->n; i++) {
                const CephDumpOsd *o = ceph_osd_dump_find_osd(d, p->osds[i]);
                if (o && o->up != p->up)
                        left++;
        }
        if (c && left) {
                _cleanup_(freep) char *t = strprintf("%zu OSD%s still %s", left, left == 1 ? "" : "s", p->up ? "down" : "up");
                wave_call_progress(c, (double) (p->n - left) / (double) p->n, -1, t);
        }
        return left == 0 ? 1 : 0;
}

int cluster_steps_osd_service(ClusterSteps *cs, HostSession *s, bool start, const int *osds, size_t n_osds,
                              unsigned timeout_sec, WaveCall *c, json_object **ret_result, Error *err) {
        const char *const verbs_stop[] = { "stop", "disable" }, *const verbs_start[] = { "enable", "start" };
        const char *const *verbs = start ? verbs_start : verbs_stop;
        int r;
        for (size_t i = 0; i < n_osds; i++)
                for (int k = 0; k < 2; k++) {
                        _cleanup_strv_free_ char **argv = ceph_argv_systemctl_osd(verbs[k], osds[i], err);
                        if (!argv)
                                return -err->code;
                        _cleanup_json_ json_object *req = NULL, *res = NULL;
                        if (agent_run_args(argv, NULL, 120, &req) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                        if ((r = host_session_call(s, "run", req, 150, &res, err)) < 0)
                                return r;
                        int64_t code = -1;
                        const char *er = "";
                        (void) json_get_int(res, "exit", true, &code, "run result", NULL);
                        (void) json_get_string(res, "stderr", false, &er, "run result", NULL);
                        if (code != 0)
                                return error_set(err, EIO, "'systemctl %s ceph-osd@%d' on '%s' failed (exit %lld): %s",
                                                 verbs[k], osds[i], s->host->name, (long long) code, er);
                }
        UpProbe p = { osds, n_osds, start };
        _cleanup_(freep) char *list = osds_text(osds, n_osds);
        _cleanup_(freep) char *what = strprintf("waiting until %s %s %s in the OSD map", list ? list : "",
                                                n_osds == 1 ? "is" : "are", start ? "up" : "down");
        if ((r = wait_for(cs, c, what ? what : "osd state", timeout_sec, probe_up_down, &p, err)) < 0)
                return r;
        return result_new(ret_result, err);
}

/* ---- the operator's pause ---------------------------------------------------------- */

int cluster_pause_get(CephAdmin *a, json_object **ret, Error *err) {
        return record_get_json(a, CLUSTER_PAUSE_RECORD, ret, err);
}

int cluster_pause(ClusterSteps *cs, const char *by, json_object **ret, Error *err) {
        _cleanup_json_ json_object *rec = NULL, *res = NULL, *brake = NULL;
        int r = record_get_json(cs->admin, CLUSTER_PAUSE_RECORD, &rec, err);
        if (r < 0)
                return r;
        bool already = rec != NULL;
        if (!rec) {
                if (!(rec = json_object_new_object()) || json_add_string(rec, "by", by ? by : "?") < 0 ||
                    json_add_int(rec, "since", (int64_t) time(NULL)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                /* the record first: an adaptive throttle that reads it keeps the brake on */
                if ((r = record_set(cs->admin, CLUSTER_PAUSE_RECORD, rec, err)) < 0)
                        return r;
        }
        /* the brake now, through its record (what was set before is what comes back) */
        if ((r = adapt_brake(cs, true, err)) < 0 ||
            (r = record_get_json(cs->admin, SAVED_PREFIX "flag-" CEPH_ADAPT_BRAKE_FLAG, &brake, err)) < 0)
                return r;
        bool was_set = false;
        if (brake)
                (void) json_get_bool(brake, "was_set", false, &was_set, "flag record", NULL);
        if ((r = result_new(&res, err)) < 0)
                return r;
        if (json_add_bool(res, "paused", true) < 0 || json_add_bool(res, "already", already) < 0 ||
            json_add_string(res, "flag", CEPH_ADAPT_BRAKE_FLAG) < 0 ||
            json_add_bool(res, "flag_was_set_before", was_set) < 0 ||
            json_add(res, "record", json_object_get(rec)) < 0)
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(res);
        return 0;
}

/* an adaptive throttle publishes at least every 6 windows (30 s): older than this, none runs */
#define THROTTLE_STATE_STALE_SEC 120

int cluster_resume(ClusterSteps *cs, json_object **ret, Error *err) {
        _cleanup_json_ json_object *rec = NULL, *state = NULL, *res = NULL, *brake = NULL;
        int r;
        if ((r = record_get_json(cs->admin, CLUSTER_PAUSE_RECORD, &rec, err)) < 0 ||
            (r = record_get_json(cs->admin, "throttle-state", &state, err)) < 0 ||
            (r = record_get_json(cs->admin, SAVED_PREFIX "flag-" CEPH_ADAPT_BRAKE_FLAG, &brake, err)) < 0)
                return r;
        int64_t updated = 0;
        if (state)
                (void) json_get_int(state, "updated", false, &updated, "throttle state", NULL);
        bool controller = state && (int64_t) time(NULL) - updated <= THROTTLE_STATE_STALE_SEC;
        if (rec && (r = record_rm(cs->admin, CLUSTER_PAUSE_RECORD, err)) < 0)
                return r;
        /* no controller to release it when calm: the brake comes off now (an operator's own
         * nobackfill, set before the pause, stays: the flag record says so) */
        const char *brake_now = "none";
        if (brake && !controller) {
                if ((r = adapt_brake(cs, false, err)) < 0)
                        return r;
                brake_now = "released";
        } else if (brake)
                brake_now = "left to the adaptive throttle";
        if ((r = result_new(&res, err)) < 0)
                return r;
        if (json_add_bool(res, "was_paused", rec != NULL) < 0 || json_add_bool(res, "adaptive_running", controller) < 0 ||
            json_add_string(res, "brake", brake_now) < 0)
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(res);
        return 0;
}
