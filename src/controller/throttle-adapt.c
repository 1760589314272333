/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The adaptive throttle's thread: probe, judge, act (throttle-adapt.h). */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/clock-util.h"
#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph/ceph-hash.h"
#include "controller/hosts.h"
#include "controller/throttle-adapt.h"

struct ThrottleAdapt {
        CephAdmin *admin;
        HostChannel ch;
        CephAdapt *ctl;
        char **objects; /* the probe's objects, spread over every PG of its pool */
        ThrottleAdaptOptions o;
        pthread_t thread;
        bool started;
        pthread_mutex_t mu; /* ctl, stop, counters, last_error */
        pthread_cond_t cv;
        bool stop;
        size_t n_probes, n_probe_failures;
        char *last_error;
        bool publish_failed; /* said once on the log, until a publication works again */
        bool peering;        /* a wait-peered runs (throttle_adapt_set_peering) */
        bool peering_seen;   /* ... or ran at some time in the current window (set with it) */
        double peering_since; /* when the last one started (clock_mono_sec) */
};

/* The windows a wait-peered keeps from being judged: those that start less than this after
 * it started. The peering after an out stalled client ops about 5 s in the lab, and
 * wait-peered took 10-13 s (the mgr's stats lag); a stall past it is judged, whatever waits:
 * the brake must see a disk that fails while PGs peer (drain-adaptive's spike comes a second
 * after the out, and a window on a disk that slow lasts 10 s and more, so a count of windows
 * kept the brake off for 50 s) */
#define PEERING_SEC 10.0

int throttle_adapt_pool_ensure(CephAdmin *admin, Error *err) {
        const CephCli *cli = ceph_admin_cli(admin);
        int r = ceph_admin_run(admin, ceph_argv_osd_pool_create(cli, THROTTLE_ADAPT_POOL, THROTTLE_ADAPT_PG_NUM, err),
                               NULL, NULL, err);
        if (r < 0)
                return r;
        return ceph_admin_run(admin, ceph_argv_osd_pool_application_enable(cli, THROTTLE_ADAPT_POOL, "cephprov", err),
                              NULL, NULL, err);
}

/* The probe's objects: THROTTLE_ADAPT_N_OBJECTS or more, the same number on every PG of the
 * probe pool (its pg_num read from the OSD map: a pool made by an older cephprov has 8), so
 * the probe meets every OSD that is the primary of one of its PGs, the OSDs being refilled
 * among them, and none more often than another */
static int probe_objects(CephAdmin *admin, char ***ret, Error *err) {
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        int r = ceph_admin_osd_dump(admin, &dump, err);
        if (r < 0)
                return r;
        unsigned pg_num = 0;
        for (size_t i = 0; i < dump->n_pools; i++)
                if (streq(dump->pools[i].name, THROTTLE_ADAPT_POOL))
                        pg_num = dump->pools[i].pg_num;
        if (pg_num == 0)
                return error_set(err, ENOENT, "the probe pool '%s' is not in the OSD map", THROTTLE_ADAPT_POOL);
        unsigned per_pg = MAX(1u, (THROTTLE_ADAPT_N_OBJECTS + pg_num - 1) / pg_num);
        return ceph_object_names_per_pg(THROTTLE_ADAPT_POOL, pg_num, per_pg, ret, err);
}

static json_object *probe_args(CephAdmin *admin, char **objects, unsigned seconds) {
        _cleanup_json_ json_object *a = json_object_new_object();
        json_object *objs = json_object_new_array();
        if (!a || json_add(a, "objects", objs) < 0)
                return NULL;
        STRV_FOREACH(o, objects)
                if (json_object_array_add(objs, json_object_new_string(*o)) < 0)
                        return NULL;
        if (json_add_string(a, "pool", THROTTLE_ADAPT_POOL) < 0 || json_add_string(a, "mode", "mixed") < 0 ||
            json_add_int(a, "seconds", seconds) < 0 || json_add_int(a, "op_timeout", 10) < 0 ||
            json_add_int(a, "rate", THROTTLE_ADAPT_PROBE_RATE) < 0 ||
            json_add_int(a, "inflight", THROTTLE_ADAPT_PROBE_INFLIGHT) < 0 ||
            json_add_string(a, "cluster", admin->cluster ? admin->cluster : "ceph") < 0)
                return NULL;
        return TAKE_PTR(a);
}

/* the probe's answer → one window (writes and reads together: a VM does both), its ops over
 * `over_ms` counted (0: not counted) */
static int window_from(json_object *res, double over_ms, CephLatencyWindow *ret, Error *err) {
        uint64_t errors = 0;
        json_object *w = NULL, *rd = NULL;
        int r;
        if ((r = json_get_u64(res, "errors", true, &errors, "rados-probe answer", err)) < 0 ||
            (r = json_get_array(res, "write_ms", true, &w, "rados-probe answer", err)) < 0 ||
            (r = json_get_array(res, "read_ms", true, &rd, "rados-probe answer", err)) < 0)
                return r;
        size_t nw = json_object_array_length(w), nr = json_object_array_length(rd);
        _cleanup_(freep) double *v = malloc((nw + nr + 1) * sizeof(double));
        if (!v)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < nw; i++)
                v[i] = json_object_get_double(json_object_array_get_idx(w, i));
        for (size_t i = 0; i < nr; i++)
                v[nw + i] = json_object_get_double(json_object_array_get_idx(rd, i));
        r = ceph_latency_window(v, nw + nr, (size_t) errors, ret, err);
        if (r >= 0 && over_ms > 0)
                ret->n_over = ceph_latency_count_above(v, nw + nr, over_ms);
        return r;
}

static int probe_on(CephAdmin *admin, HostChannel *ch, char **objects, unsigned seconds, double over_ms,
                    CephLatencyWindow *ret, Error *err) {
        _cleanup_json_ json_object *args = probe_args(admin, objects, seconds), *res = NULL;
        if (!args)
                return error_set(err, ENOMEM, "out of memory");
        if (!ch->channel)
                return error_set(err, ENOTCONN, "no probe channel to the admin host '%s'", admin->host->name);
        /* the window, plus one op that may take its whole timeout, plus connecting */
        int r = agent_channel_call(ch->channel, "rados-probe", args, seconds + 40, NULL, NULL, &res, err);
        if (r < 0)
                return r;
        return window_from(res, over_ms, ret, err);
}

int throttle_adapt_probe(CephAdmin *admin, unsigned seconds, CephLatencyWindow *ret, Error *err) {
        _cleanup_strv_free_ char **objects = NULL;
        HostChannel ch = {};
        int r = probe_objects(admin, &objects, err);
        if (r < 0)
                return r;
        r = host_channel_open(admin->host, HOST_CHANNEL_ADMIN, &ch, NULL, err);
        if (r < 0)
                return r;
        r = probe_on(admin, &ch, objects, seconds, 0, ret, err);
        host_channel_close(&ch);
        return r;
}

/* a rung's settings, checked in `config dump` */
static int apply_rung(CephAdmin *admin, CephScheduler scheduler, int rung, Error *err) {
        CephConfigOp *ops = NULL;
        size_t n = 0;
        int r = ceph_adapt_rung_settings(scheduler, rung, &ops, &n, err);
        if (r >= 0)
                r = ceph_admin_config_apply(admin, ops, n, "throttle", err);
        ceph_config_ops_free(ops, n);
        return r;
}

/* The slow ops on the OSDs being refilled (SLOW_OPS elsewhere, often the recovery pushes'
 * own on throttled disks, is not the clients' pain) and the clients' op rate, from `ceph
 * status` and `pg dump pgs_brief`. A reading that fails is none: the probe is the sensor,
 * and a missed tripwire reading is not a spike. */
static unsigned cluster_reading(CephAdmin *admin, double *ret_client_ops) {
        _cleanup_(ceph_health_freep) CephHealth *h = NULL;
        _cleanup_(ceph_pg_stat_freep) CephPgStat *st = NULL;
        Error e = {};
        *ret_client_ops = 0;
        if (ceph_admin_status(admin, &h, &st, &e) < 0)
                return 0;
        *ret_client_ops = (double) st->client_ops_sec;
        if (!ceph_health_find(h, "SLOW_OPS"))
                return 0;
        _cleanup_(freep) char *out = NULL;
        _cleanup_(ceph_pg_dump_freep) CephPgDump *pgs = NULL;
        if (ceph_admin_run(admin, ceph_argv_pg_dump_pgs_brief(ceph_admin_cli(admin), &e), NULL, &out, &e) < 0 ||
            ceph_pg_dump_parse(out ? out : "", &pgs, &e) < 0)
                return 0;
        return ceph_adapt_refill_slow_ops(h, pgs);
}

/* "throttle: PREFIX TEXT" as one write */
static void log_line(ThrottleAdapt *t, const char *prefix, const char *text) {
        if (t->o.log) {
                fprintf(t->o.log, "throttle: %s%s\n", prefix, text);
                fflush(t->o.log);
        }
}

static void set_error(ThrottleAdapt *t, const char *msg) {
        pthread_mutex_lock(&t->mu);
        free(t->last_error);
        t->last_error = strdup(msg);
        pthread_mutex_unlock(&t->mu);
}

static bool stopping(ThrottleAdapt *t) {
        pthread_mutex_lock(&t->mu);
        bool s = t->stop;
        pthread_mutex_unlock(&t->mu);
        return s;
}

/* Waits up to `seconds` or until stopped; true when stopped. */
static bool wait_or_stop(ThrottleAdapt *t, unsigned seconds) {
        struct timespec until = clock_after_ms(CLOCK_REALTIME, (uint64_t) seconds * 1000);
        pthread_mutex_lock(&t->mu);
        while (!t->stop && pthread_cond_timedwait(&t->cv, &t->mu, &until) == 0)
                ;
        bool s = t->stop;
        pthread_mutex_unlock(&t->mu);
        return s;
}

/* the controller's state to status (t->o.publish), said once on the log when it fails */
static void publish_state(ThrottleAdapt *t) {
        if (!t->o.publish)
                return;
        _cleanup_json_ json_object *st = throttle_adapt_state(t);
        Error e = {};
        if (!st || json_add_int(st, "updated", (int64_t) time(NULL)) < 0)
                error_set(&e, ENOMEM, "out of memory");
        else
                (void) t->o.publish(t->o.publish_userdata, st, &e);
        if (e.code) {
                set_error(t, e.message);
                if (!t->publish_failed)
                        log_line(t, "cannot publish the state for status: ", e.message);
        }
        t->publish_failed = e.code != 0;
}

static void *adapt_thread(void *userdata) {
        ThrottleAdapt *t = userdata;
        unsigned seconds = (unsigned) (t->o.config.window_sec > 0 ? t->o.config.window_sec : 5);
        while (!stopping(t)) {
                CephLatencyWindow w = {};
                Error err = {};
                const double window_start = clock_mono_sec();
                pthread_mutex_lock(&t->mu);
                t->peering_seen = t->peering;
                pthread_mutex_unlock(&t->mu);
                int r = probe_on(t->admin, &t->ch, t->objects, seconds, ceph_adapt_target_ms(t->ctl), &w, &err);
                if (r < 0) {
                        /* a probe call that failed is no reading, not a spike: the controller
                         * judges nothing in that window (slow ops still count). A new channel
                         * for the next window, after a window's pause (a broken channel fails
                         * at once: no spinning) */
                        set_error(t, err.message);
                        log_line(t, "probe failed (no reading): ", err.message);
                        host_channel_close(&t->ch);
                        if (wait_or_stop(t, seconds))
                                break;
                        Error oe = {};
                        if (host_channel_open(t->admin->host, HOST_CHANNEL_ADMIN, &t->ch, NULL, &oe) < 0)
                                log_line(t, "probe channel: ", oe.message);
                }
                if (stopping(t))
                        break;
                double client_ops = 0;
                unsigned slow = cluster_reading(t->admin, &client_ops);
                if (r >= 0)
                        w.client_ops_sec = client_ops;
                int paused = -1;
                if (t->o.paused) {
                        Error pe = {};
                        if ((paused = t->o.paused(t->o.paused_userdata, &pe)) < 0)
                                log_line(t, "cannot read the pause record: ", pe.message);
                }
                CephAdaptDecision d = {};
                pthread_mutex_lock(&t->mu);
                w.peering = t->peering_seen && window_start < t->peering_since + PEERING_SEC;
                if (paused >= 0)
                        ceph_adapt_set_paused(t->ctl, paused > 0);
                t->n_probes++;
                if (r < 0)
                        t->n_probe_failures++;
                int s = ceph_adapt_step(t->ctl, r < 0 ? NULL : &w, slow, &d, &err);
                pthread_mutex_unlock(&t->mu);
                if (s < 0)
                        continue;
                if (d.action != CEPH_ADAPT_HOLD) {
                        Error e = {};
                        int a = 0;
                        /* brake first when it goes on, last when it comes off */
                        if (d.brake_after && !d.brake_before && t->o.brake)
                                a = t->o.brake(t->o.brake_userdata, true, &e);
                        /* status shows a brake the moment it holds: the rung's `config set`
                         * and their check in `config dump` take seconds more */
                        if (d.action == CEPH_ADAPT_BRAKE)
                                publish_state(t);
                        if (a >= 0 && d.rung_after != d.rung_before)
                                a = apply_rung(t->admin, t->o.config.scheduler, d.rung_after, &e);
                        if (a >= 0 && !d.brake_after && d.brake_before && t->o.brake)
                                a = t->o.brake(t->o.brake_userdata, false, &e);
                        log_line(t, "", d.reason);
                        if (a < 0) {
                                set_error(t, e.message);
                                log_line(t, "could not carry it out: ", e.message);
                        }
                }
                /* a brake just put on was published before the rung's settings */
                if (d.action != CEPH_ADAPT_BRAKE &&
                    (d.action != CEPH_ADAPT_HOLD || t->n_probes % 6 == 1))
                        publish_state(t);
                ceph_adapt_decision_done(&d);
        }
        return NULL;
}

ThrottleAdapt *throttle_adapt_stop(ThrottleAdapt *t) {
        if (!t)
                return NULL;
        if (t->started) {
                pthread_mutex_lock(&t->mu);
                t->stop = true;
                pthread_cond_broadcast(&t->cv);
                pthread_mutex_unlock(&t->mu);
                pthread_join(t->thread, NULL);
        }
        host_channel_close(&t->ch);
        ceph_adapt_free(t->ctl);
        strv_free(t->objects);
        free(t->last_error);
        pthread_mutex_destroy(&t->mu);
        pthread_cond_destroy(&t->cv);
        free(t);
        return NULL;
}

int throttle_adapt_start(CephAdmin *admin, const ThrottleAdaptOptions *o, ThrottleAdapt **ret, Error *err) {
        ThrottleAdapt *t = calloc(1, sizeof(ThrottleAdapt));
        if (!t)
                return error_set(err, ENOMEM, "out of memory");
        pthread_mutex_init(&t->mu, NULL);
        pthread_cond_init(&t->cv, NULL);
        t->admin = admin;
        t->o = *o;
        int r = ceph_adapt_new(&o->config, &o->baseline, &t->ctl, err);
        if (r >= 0)
                r = probe_objects(admin, &t->objects, err);
        if (r >= 0)
                r = host_channel_open(admin->host, HOST_CHANNEL_ADMIN, &t->ch, NULL, err);
        if (r >= 0 && (r = -pthread_create(&t->thread, NULL, adapt_thread, t)) < 0)
                error_set(err, -r, "cannot start the throttle controller: %s", strerror(-r));
        if (r < 0) {
                throttle_adapt_stop(t);
                return r;
        }
        t->started = true;
        *ret = t;
        return 0;
}

void throttle_adapt_set_peering(ThrottleAdapt *t, bool peering) {
        if (!t)
                return;
        pthread_mutex_lock(&t->mu);
        if (peering && !t->peering)
                t->peering_since = clock_mono_sec();
        t->peering = peering;
        if (peering)
                t->peering_seen = true;
        pthread_mutex_unlock(&t->mu);
}

json_object *throttle_adapt_state(ThrottleAdapt *t) {
        pthread_mutex_lock(&t->mu);
        json_object *o = ceph_adapt_to_json(t->ctl);
        if (o && (json_add_u64(o, "probes", t->n_probes) < 0 || json_add_u64(o, "probe_failures", t->n_probe_failures) < 0 ||
                  (t->last_error && json_add_string(o, "last_error", t->last_error) < 0))) {
                json_object_put(o);
                o = NULL;
        }
        pthread_mutex_unlock(&t->mu);
        return o;
}

double throttle_adapt_target_ms(ThrottleAdapt *t) {
        return ceph_adapt_target_ms(t->ctl);
}

double throttle_adapt_ceiling_ms(ThrottleAdapt *t) {
        return ceph_adapt_ceiling_ms(t->ctl);
}
