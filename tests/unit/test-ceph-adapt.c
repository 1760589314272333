/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The adaptive throttle's decision rule (src/ceph/ceph-adapt.h): percentiles of a probe
 * window, the ladders, the configuration checks, the traces of tests/data/throttle-traces
 * replayed window by window (synthetic, one per defect of issue 31, see its README), the
 * budget's confidence bounds, which slow ops count (on the OSDs being refilled only), the
 * record of the last drain's rung, and properties over many random traces: the rung never
 * leaves its bounds nor goes below the slow preset's without the brake, a trip brakes in the
 * window that shows it and one failed op never does, a raise or a lower is one rung and only
 * where the horizon's bounds say so, a release goes to the rung below the brake's. */

#include <errno.h>
#include <math.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/strv.h"
#include "ceph/ceph-adapt.h"
#include "fixture.h"
#include "test.h"

/* a window of n ops, `over` of them over the target */
static CephLatencyWindow winv(size_t n, size_t over, size_t errors, double p99) {
        return (CephLatencyWindow) { .n = n, .n_errors = errors, .p50_ms = p99 / 2, .p95_ms = p99 * 0.9,
                                     .p99_ms = p99, .max_ms = p99 * 1.2, .n_over = over };
}

static CephLatencyWindow win(size_t n, size_t errors, double p99) {
        return winv(n, 0, errors, p99);
}

static void test_percentiles(void) {
        double v[100];
        for (int i = 0; i < 100; i++)
                v[i] = 100 - i; /* 100 .. 1, unsorted on purpose */
        CephLatencyWindow w;
        Error err = {};
        CHECK_INTEQ(ceph_latency_window(v, 100, 2, &w, &err), 0);
        CHECK(w.n == 100 && w.n_errors == 2);
        CHECK(w.p50_ms == 50 && w.p95_ms == 95 && w.p99_ms == 99 && w.max_ms == 100);
        CHECK(v[0] == 100); /* the input is not sorted in place */
        _cleanup_(freep) char *s = ceph_latency_window_format(&w);
        CHECK_STREQ(s, "p50 50.0 ms, p95 95.0 ms, p99 99.0 ms, max 100.0 ms over 100 ops, 2 errors");

        double one = 7.5;
        CHECK_INTEQ(ceph_latency_window(&one, 1, 0, &w, &err), 0);
        CHECK(w.p50_ms == 7.5 && w.p99_ms == 7.5 && w.max_ms == 7.5);

        /* 10 values: p99 is the largest (nearest rank 10), p50 the 5th */
        double ten[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
        CHECK_INTEQ(ceph_latency_window(ten, 10, 0, &w, &err), 0);
        CHECK(w.p50_ms == 5 && w.p95_ms == 10 && w.p99_ms == 10);

        CHECK_INTEQ(ceph_latency_window(NULL, 0, 3, &w, &err), 0);
        CHECK(w.n == 0 && w.p99_ms == 0 && w.n_errors == 3);
        _cleanup_(freep) char *z = ceph_latency_window_format(&w);
        CHECK_STREQ(z, "no op completed, 3 errors");

        CHECK_INTEQ(ceph_latency_count_above(v, 100, 90), 10);
        CHECK_INTEQ(ceph_latency_count_above(v, 100, 100), 0);
        CHECK_INTEQ(ceph_latency_count_above(NULL, 0, 1), 0);

        double bad[] = { 1, -2 };
        CephLatencyWindow keep = { .n = 42 };
        CHECK_INTEQ(ceph_latency_window(bad, 2, 0, &keep, &err), -EINVAL);
        CHECK(keep.n == 42);
        CHECK(strstr(err.message, "probe latency 2 of 2") != NULL);
        error_reset(&err);
        double nan_[] = { NAN };
        CHECK_INTEQ(ceph_latency_window(nan_, 1, 0, &keep, &err), -EINVAL);
}

static void test_ladders(void) {
        CHECK_INTEQ(ceph_adapt_n_rungs(CEPH_SCHEDULER_WPQ), 7);
        CHECK_INTEQ(ceph_adapt_n_rungs(CEPH_SCHEDULER_MCLOCK), 3);
        CephConfigOp *ops = NULL;
        size_t n = 0;
        Error err = {};
        CHECK_INTEQ(ceph_adapt_rung_settings(CEPH_SCHEDULER_WPQ, 0, &ops, &n, &err), 0);
        CHECK_INTEQ(n, 4);
        CHECK_STREQ(ops[0].key, "osd_max_backfills");
        CHECK_STREQ(ops[0].value, "1");
        CHECK_STREQ(ops[3].key, "osd_recovery_sleep");
        CHECK_STREQ(ops[3].value, "0.2");
        CHECK_STREQ(ops[2].who, "osd");
        ceph_config_ops_free(ops, n);
        /* the fast preset's rung is the fast preset's limits */
        CHECK_INTEQ(ceph_adapt_rung_settings(CEPH_SCHEDULER_WPQ, 4, &ops, &n, &err), 0);
        CHECK_STREQ(ops[0].value, "4");
        CHECK_STREQ(ops[1].value, "4");
        CHECK_STREQ(ops[2].value, "4");
        CHECK_STREQ(ops[3].value, "0");
        ceph_config_ops_free(ops, n);
        CHECK_INTEQ(ceph_adapt_rung_settings(CEPH_SCHEDULER_MCLOCK, 2, &ops, &n, &err), 0);
        CHECK_INTEQ(n, 1);
        CHECK_STREQ(ops[0].key, "osd_mclock_profile");
        CHECK_STREQ(ops[0].value, "high_recovery_ops");
        ceph_config_ops_free(ops, n);

        ops = NULL;
        CHECK_INTEQ(ceph_adapt_rung_settings(CEPH_SCHEDULER_MCLOCK, 3, &ops, &n, &err), -EINVAL);
        CHECK(ops == NULL);
        CHECK_STREQ(err.message, "throttle rung 3 is not on the mClock ladder (0..2)");
        error_reset(&err);
        CHECK_INTEQ(ceph_adapt_rung_settings(CEPH_SCHEDULER_WPQ, -1, &ops, &n, &err), -EINVAL);

        const char *const *keys = ceph_adapt_keys(CEPH_SCHEDULER_WPQ);
        CHECK_INTEQ(strv_length((char *const *) keys), 4);
        CHECK(strv_contains((char *const *) keys, "osd_recovery_sleep"));
        CHECK_INTEQ(strv_length((char *const *) ceph_adapt_keys(CEPH_SCHEDULER_MCLOCK)), 1);

        _cleanup_(freep) char *c = ceph_adapt_rung_change_format(CEPH_SCHEDULER_WPQ, 5, 6);
        CHECK_STREQ(c, "osd_max_backfills 6 → 8, osd_recovery_max_active 6 → 8");
        _cleanup_(freep) char *same = ceph_adapt_rung_change_format(CEPH_SCHEDULER_MCLOCK, 1, 1);
        CHECK_STREQ(same, "osd_mclock_profile balanced");
        CHECK(ceph_adapt_rung_change_format(CEPH_SCHEDULER_WPQ, 0, 7) == NULL);
}

static void test_config(void) {
        CephLatencyWindow base = win(200, 0, 4);
        CephAdaptConfig c;
        Error err = {};
        CephAdapt *a = NULL;

        /* without an SLO: 2 × the idle baseline's p99 (issue 31), the ceiling 3 × that */
        ceph_adapt_config_default(CEPH_SCHEDULER_WPQ, &c);
        CHECK_INTEQ(ceph_adapt_new(&c, &base, &a, &err), 0);
        CHECK(ceph_adapt_target_ms(a) == 8 && ceph_adapt_ceiling_ms(a) == 24);
        CHECK_INTEQ(ceph_adapt_rung(a), 1);
        CHECK(!ceph_adapt_brake(a));
        a = ceph_adapt_free(a);

        /* a small baseline: the floor (p99 + 2 ms) sets the target, not the factor */
        CephLatencyWindow fast = win(200, 0, 1);
        CHECK_INTEQ(ceph_adapt_new(&c, &fast, &a, &err), 0);
        CHECK(ceph_adapt_target_ms(a) == 3);
        a = ceph_adapt_free(a);

        /* the operator's SLO and ceiling win; no baseline needed then */
        c.target_ms = 30;
        c.ceiling_ms = 100;
        CHECK_INTEQ(ceph_adapt_new(&c, NULL, &a, &err), 0);
        CHECK(ceph_adapt_target_ms(a) == 30 && ceph_adapt_ceiling_ms(a) == 100);
        a = ceph_adapt_free(a);

        /* a resume that finds the brake on starts braked at the bottom, and releases to its
         * start rung (the killed run's end rung: where its release would have gone) after 3
         * windows */
        ceph_adapt_config_default(CEPH_SCHEDULER_WPQ, &c);
        c.start_braked = true;
        c.rung_start = 3;
        CHECK_INTEQ(ceph_adapt_new(&c, &base, &a, &err), 0);
        CHECK(ceph_adapt_brake(a) && ceph_adapt_rung(a) == 0);
        CHECK_INTEQ(ceph_adapt_end_rung(a), 3);
        for (int i = 0; i < 3; i++) {
                CephLatencyWindow calm = win(200, 0, 2);
                CephAdaptDecision d = {};
                CHECK_INTEQ(ceph_adapt_step(a, &calm, 0, &d, &err), 0);
                CHECK(d.action == (i == 2 ? CEPH_ADAPT_RELEASE : CEPH_ADAPT_HOLD));
                ceph_adapt_decision_done(&d);
        }
        CHECK(!ceph_adapt_brake(a) && ceph_adapt_rung(a) == 3);
        a = ceph_adapt_free(a);

        /* zeros and negatives mean "the default" */
        CephAdaptConfig z = { .scheduler = CEPH_SCHEDULER_MCLOCK, .rung_min = -1, .rung_max = -1, .rung_start = -1 };
        CHECK_INTEQ(ceph_adapt_new(&z, &base, &a, &err), 0);
        CHECK_INTEQ(ceph_adapt_rung(a), 0);
        a = ceph_adapt_free(a);

        /* each refusal names what is wrong */
#define REFUSED(field, value, text)                                                          \
        do {                                                                                 \
                CephAdaptConfig cfg_;                                                          \
                ceph_adapt_config_default(CEPH_SCHEDULER_WPQ, &cfg_);                          \
                cfg_.field = (value);                                                          \
                Error e_ = {};                                                               \
                CephAdapt *ad_ = NULL;                                                        \
                CHECK_INTEQ(ceph_adapt_new(&cfg_, &base, &ad_, &e_), -EINVAL);                  \
                CHECK(ad_ == NULL);                                                          \
                if (!strstr(e_.message, (text)))                                             \
                        fprintf(stderr, "message: %s\n", e_.message);                        \
                CHECK(strstr(e_.message, (text)) != NULL);                                   \
        } while (0)
        REFUSED(rung_max, 7, "the wpq ladder has rungs 0..6");
        REFUSED(rung_min, 3, "rung_start 1 is outside rung_min..rung_max (3..4)");
        REFUSED(rung_start, 5, "rung_start 5 is outside rung_min..rung_max (0..4)");
        REFUSED(budget, 0.6, "budget 0.6 is not a fraction of the ops in (0, 0.5]");
        REFUSED(confidence_z, 11, "confidence z 11 is not in (0, 10]");
        REFUSED(load_change, 0.5, "a load change of 0.5 × is out of bounds");
        REFUSED(target_ms, -1, "each must be positive");
        REFUSED(ceiling_ms, 7, "the ceiling 7.0 ms is not above the target 8.0 ms");
#undef REFUSED
        CephAdaptConfig mm;
        ceph_adapt_config_default(CEPH_SCHEDULER_WPQ, &mm);
        mm.rung_min = 3;
        mm.rung_max = 2;
        CHECK_INTEQ(ceph_adapt_new(&mm, &base, &a, &err), -EINVAL);
        CHECK_STREQ(err.message, "throttle: rung_min 3 is above rung_max 2");
        error_reset(&err);
        CephLatencyWindow thin = win(5, 0, 4);
        ceph_adapt_config_default(CEPH_SCHEDULER_WPQ, &mm);
        CHECK_INTEQ(ceph_adapt_new(&mm, &thin, &a, &err), -EINVAL);
        CHECK_STREQ(err.message,
                    "throttle: no p99 target given and the baseline has 5 probe ops (at least 20 needed to set one)");
        CHECK(a == NULL);
}

static bool action_from(const char *s, CephAdaptAction *ret) {
        for (int a = CEPH_ADAPT_HOLD; a <= CEPH_ADAPT_RELEASE; a++)
                if (streq(s, ceph_adapt_action_to_string((CephAdaptAction) a))) {
                        *ret = (CephAdaptAction) a;
                        return true;
                }
        return false;
}

/* Replays one trace file; returns the number of windows replayed (0 on a format error). */
static size_t replay(const char *name) {
        const char *dir = getenv("TEST_DATA");
        _cleanup_(freep) char *path = strprintf("%s/throttle-traces/%s", dir ? dir : "tests/data", name);
        _cleanup_(fclosep) FILE *f = path ? fopen(path, "re") : NULL;
        if (!f) {
                fprintf(stderr, "cannot open '%s'\n", path ? path : name);
                CHECK(f != NULL);
                return 0;
        }
        CephAdaptConfig c;
        CephLatencyWindow base = {};
        _cleanup_(ceph_adapt_freep) CephAdapt *a = NULL;
        char line[1024];
        size_t lineno = 0, windows = 0;
        while (fgets(line, sizeof line, f)) {
                lineno++;
                line[strcspn(line, "\n")] = 0;
                if (line[0] == '#' || line[0] == 0)
                        continue;
                if (strncmp(line, "config ", 7) == 0) {
                        char sched[16] = "";
                        if (sscanf(line, "config scheduler=%15s", sched) != 1) {
                                fprintf(stderr, "%s:%zu: config needs scheduler= first\n", name, lineno);
                                CHECK(false);
                                return 0;
                        }
                        ceph_adapt_config_default(streq(sched, "wpq") ? CEPH_SCHEDULER_WPQ : CEPH_SCHEDULER_MCLOCK, &c);
                        base = win(0, 0, 0);
                        for (char *tok = strtok(line + 7, " "); tok; tok = strtok(NULL, " ")) {
                                double v;
                                char key[32];
                                if (sscanf(tok, "%31[^=]=%lf", key, &v) != 2)
                                        continue;
                                if (streq(key, "baseline_p99"))
                                        base.p99_ms = v;
                                else if (streq(key, "baseline_ops"))
                                        base.n = (size_t) v;
                                else if (streq(key, "target"))
                                        c.target_ms = v;
                                else if (streq(key, "ceiling"))
                                        c.ceiling_ms = v;
                                else if (streq(key, "dwell"))
                                        c.dwell = (unsigned) v;
                                else if (streq(key, "rung_start"))
                                        c.rung_start = (int) v;
                                else if (streq(key, "rung_min"))
                                        c.rung_min = (int) v;
                                else if (streq(key, "rung_max"))
                                        c.rung_max = (int) v;
                                else {
                                        fprintf(stderr, "%s:%zu: unknown config key '%s'\n", name, lineno, key);
                                        CHECK(false);
                                }
                        }
                        a = ceph_adapt_free(a);
                        Error err = {};
                        CHECK_INTEQ(ceph_adapt_new(&c, &base, &a, &err), 0);
                        if (!a)
                                return 0;
                        continue;
                }
                /* "top=V*K,V*K,...,rest=V" before "->": the window's largest latencies (K
                 * copies of V), the rest of the ops at most `rest` (the ones it kept: up to
                 * CEPH_LATENCY_TOP in all) */
                double top[CEPH_LATENCY_TOP];
                size_t n_top = 0;
                double fill = 0;
                bool have_top = false;
                char *arrow = strstr(line, "->"), *tp = strstr(line, " top=");
                if (tp && arrow && tp < arrow) {
                        have_top = true;
                        char *q = tp + 5;
                        while (q < arrow && *q != ' ') {
                                double v;
                                unsigned k = 1;
                                int len = 0;
                                if (strncmp(q, "rest=", 5) == 0 && sscanf(q + 5, "%lf%n", &fill, &len) == 1)
                                        q += 5 + len;
                                else if (sscanf(q, "%lf*%u%n", &v, &k, &len) == 2 || sscanf(q, "%lf%n", &v, &len) == 1) {
                                        for (unsigned i = 0; i < k && n_top < CEPH_LATENCY_TOP; i++)
                                                top[n_top++] = v;
                                        q += len;
                                } else {
                                        fprintf(stderr, "%s:%zu: bad top= list\n", name, lineno);
                                        CHECK(false);
                                        return 0;
                                }
                                if (*q == ',')
                                        q++;
                        }
                        for (char *b = tp; b < q; b++)
                                *b = ' ';
                }
                /* " rate=R" before "->": the clients' op rate in the window */
                double rate = 0;
                char *rp = strstr(line, " rate=");
                if (rp && arrow && rp < arrow) {
                        int len = 0;
                        if (sscanf(rp + 6, "%lf%n", &rate, &len) != 1) {
                                fprintf(stderr, "%s:%zu: bad rate=\n", name, lineno);
                                CHECK(false);
                                return 0;
                        }
                        memset(rp, ' ', 6 + (size_t) len);
                }
                /* " peering" before "->": the PGs of OSDs just marked out peered in the window */
                bool peering = false;
                char *pp = strstr(line, " peering");
                if (pp && arrow && pp < arrow) {
                        peering = true;
                        memset(pp, ' ', 8);
                }
                unsigned long ops = 0, over = 0, errors = 0;
                unsigned slow = 0;
                double p99 = 0;
                char act[16], brake[8];
                int rung, used = 0;
                /* "none SLOW_OPS -> ...": no reading (the probe call failed) */
                bool none = strncmp(line, "none ", 5) == 0;
                if (none && a && sscanf(line, "none %u -> %15s %d %7s %n", &slow, act, &rung, brake, &used) >= 4)
                        ;
                else if (none || !a || sscanf(line, "%lu %lu %lu %lf %u -> %15s %d %7s %n", &ops, &over, &errors, &p99, &slow, act,
                                 &rung, brake, &used) < 8) {
                        fprintf(stderr, "%s:%zu: not a window line: %s\n", name, lineno, line);
                        CHECK(false);
                        return 0;
                }
                CephAdaptAction want = CEPH_ADAPT_HOLD;
                CHECK(action_from(act, &want));
                const char *reason = used > 0 && line[used] ? line + used : NULL;
                CephLatencyWindow w = winv(ops, over, errors, p99);
                w.client_ops_sec = rate;
                w.peering = peering;
                if (have_top) {
                        w.n_top = MIN((size_t) ops, (size_t) CEPH_LATENCY_TOP);
                        for (size_t i = 0; i < w.n_top; i++)
                                w.top_ms[i] = i < n_top ? top[i] : fill;
                }
                CephAdaptDecision d = {};
                Error err = {};
                CHECK_INTEQ(ceph_adapt_step(a, none ? NULL : &w, slow, &d, &err), 0);
                windows++;
                bool ok = d.action == want && d.rung_after == rung && d.brake_after == streq(brake, "on") &&
                          d.rung_after == ceph_adapt_rung(a) && d.brake_after == ceph_adapt_brake(a) &&
                          (!reason || streq(reason, d.reason));
                if (!ok)
                        fprintf(stderr, "%s:%zu: got %s %d %s \"%s\", expected %s %d %s%s%s%s\n", name, lineno,
                                ceph_adapt_action_to_string(d.action), d.rung_after, d.brake_after ? "on" : "off",
                                d.reason, act, rung, brake, reason ? " \"" : "", reason ? reason : "",
                                reason ? "\"" : "");
                CHECK(ok);
                ceph_adapt_decision_done(&d);
        }
        return windows;
}

static void test_value_eq(void) {
        CHECK(ceph_config_value_eq("0", "0.000000"));
        CHECK(ceph_config_value_eq("0.2", "0.200000"));
        CHECK(ceph_config_value_eq("balanced", "balanced"));
        CHECK(!ceph_config_value_eq("0.2", "0.3"));
        CHECK(!ceph_config_value_eq("1", "1x"));
        CHECK(!ceph_config_value_eq(NULL, "1"));
        CHECK(ceph_config_value_eq(NULL, NULL));
}

static void test_json(void) {
        CephAdaptConfig c;
        ceph_adapt_config_default(CEPH_SCHEDULER_WPQ, &c);
        CephLatencyWindow base = win(200, 0, 4);
        _cleanup_(ceph_adapt_freep) CephAdapt *a = NULL;
        Error err = {};
        CHECK_INTEQ(ceph_adapt_new(&c, &base, &a, &err), 0);
        _cleanup_json_ json_object *o0 = ceph_adapt_to_json(a);
        CHECK(o0 != NULL);
        json_object *v = NULL;
        CHECK(json_object_object_get_ex(o0, "last_window", &v) && v == NULL);
        CHECK(json_object_object_get_ex(o0, "last_change_reason", &v) && v == NULL);

        CephLatencyWindow spike = winv(200, 150, 0, 30);
        CephAdaptDecision d = {};
        CHECK_INTEQ(ceph_adapt_step(a, &spike, 0, &d, &err), 0);
        CHECK(d.action == CEPH_ADAPT_BRAKE);
        _cleanup_json_ json_object *o = ceph_adapt_to_json(a);
        const char *s = NULL;
        int64_t i = -1;
        bool b = false;
        CHECK(json_get_string(o, "scheduler", true, &s, "adapt", &err) == 0 && streq(s, "wpq"));
        CHECK(json_get_int(o, "rung", true, &i, "adapt", &err) == 0 && i == 0);
        CHECK(json_get_bool(o, "brake", true, &b, "adapt", &err) == 0 && b);
        CHECK(json_get_string(o, "setting", true, &s, "adapt", &err) == 0 && streq(s, "osd_max_backfills 1"));
        CHECK(json_get_string(o, "last_change", true, &s, "adapt", &err) == 0 && streq(s, "brake"));
        CHECK(json_get_string(o, "last_change_reason", true, &s, "adapt", &err) == 0 && streq(s, d.reason));
        json_object *settings = NULL;
        CHECK(json_get_object(o, "settings", true, &settings, "adapt", &err) == 0);
        CHECK(json_get_string(settings, "osd_recovery_sleep", true, &s, "settings", &err) == 0 && streq(s, "0.2"));
        json_object *last = NULL;
        CHECK(json_get_object(o, "last_window", true, &last, "adapt", &err) == 0);
        CHECK(fabs(json_object_get_double(json_object_object_get(last, "p99_ms")) - 30) < 1e-9);
        CHECK(fabs(json_object_get_double(json_object_object_get(o, "target_p99_ms")) - 8) < 1e-9);
        /* the brake started a new horizon (what was measured at the rung before says nothing
         * of this one), and the release goes to the rung the brake was put on at, the slow
         * preset's: the end rung */
        CHECK(fabs(json_object_get_double(json_object_object_get(o, "budget")) - 0.01) < 1e-12);
        CHECK(json_get_int(o, "horizon_windows", true, &i, "adapt", &err) == 0 && i == 0);
        CHECK(json_get_int(o, "horizon_ops", true, &i, "adapt", &err) == 0 && i == 0);
        CHECK(json_get_int(o, "horizon_over", true, &i, "adapt", &err) == 0 && i == 0);
        CHECK(json_get_int(o, "end_rung", true, &i, "adapt", &err) == 0 && i == 1);
        CHECK(json_get_int(o, "rung_floor", true, &i, "adapt", &err) == 0 && i == 1);
        /* the run's account: the tripped window is the brake's, not the rung's */
        _cleanup_(freep) char *sum0 = ceph_adapt_run_summary(o);
        CHECK_STREQ(sum0, "the SLO over the run: 0 of 0 probe ops over the 8.0 ms target at a rung (0.00 %, budget 1 %); "
                          "150 of 200 in braked, tripped or peering windows");
        _cleanup_(ceph_adapt_freep) CephAdapt *b2 = NULL;
        CHECK_INTEQ(ceph_adapt_new(&c, &base, &b2, &err), 0);
        CephLatencyWindow some = winv(300, 2, 1, 7);
        CephAdaptDecision d2 = {};
        CHECK_INTEQ(ceph_adapt_step(b2, &some, 0, &d2, &err), 0);
        ceph_adapt_decision_done(&d2);
        _cleanup_json_ json_object *o2 = ceph_adapt_to_json(b2);
        _cleanup_(freep) char *sum = ceph_adapt_run_summary(o2);
        CHECK_STREQ(sum, "the SLO over the run: 3 of 301 probe ops over the 8.0 ms target at a rung (1.00 %, budget 1 %); "
                         "0 of 0 in braked, tripped or peering windows");
        CHECK(ceph_adapt_run_summary(NULL) == NULL);
        ceph_adapt_decision_done(&d);
        CHECK(d.reason == NULL);
}

static char *ops_string(const CephConfigOp *ops, size_t n) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%s%s %s %s", i ? "; " : "", ops[i].who, ops[i].key, ops[i].value ? ops[i].value : "(rm)");
        fclose(f);
        return buf;
}

static void test_traces(void) {
        /* issue 31's defects, one trace each (synthetic: tests/data/throttle-traces/README.md) */
        CHECK_INTEQ(replay("brake-release.trace"), 14);
        CHECK_INTEQ(replay("single-events.trace"), 13);
        CHECK_INTEQ(replay("lower-one.trace"), 3);
        CHECK_INTEQ(replay("raise-budget.trace"), 7);
        CHECK_INTEQ(replay("no-reading.trace"), 5);
        CHECK_INTEQ(replay("load-change.trace"), 15);
        CHECK_INTEQ(replay("load-change-blind.trace"), 10);
        CHECK_INTEQ(replay("mclock-ladder.trace"), 14);
        CHECK_INTEQ(replay("raise-backoff.trace"), 196);
        CHECK_INTEQ(replay("peering.trace"), 17);
}

/* xorshift: the same traces every run */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void) {
        rnd_state ^= rnd_state << 13;
        rnd_state ^= rnd_state >> 7;
        rnd_state ^= rnd_state << 17;
        return rnd_state;
}

/* Over 2,000 random traces of 200 windows each, on both ladders and random bounds, the rule
 * as ceph-adapt.h states it, with the horizon counted here again apart from the controller:
 *   - the rung stays within [rung_min, rung_max], and at or above the slow preset's rung
 *     while the brake is off;
 *   - the brake goes on only on a trip (2 ops and 5 % of a window over the ceiling or failed,
 *     the p99 over it twice in a row, slow ops on refilled OSDs 2 windows in a row), in the
 *     window of the trip; one failed op alone never brakes;
 *   - a lower is one rung, only while the horizon's lower bound is over the budget; a raise
 *     one rung, only while its upper bound is under; neither with the brake on;
 *   - a release comes after `dwell` windows without a trip, to the rung below the brake's. */
static void test_properties(void) {
        size_t violations = 0, raises = 0, lowers = 0, brakes = 0, releases = 0, single_errors = 0;
        for (int t = 0; t < 2000; t++) {
                CephScheduler s = t % 2 ? CEPH_SCHEDULER_WPQ : CEPH_SCHEDULER_MCLOCK;
                CephAdaptConfig c;
                ceph_adapt_config_default(s, &c);
                int top = ceph_adapt_n_rungs(s) - 1;
                c.rung_min = (int) (rnd() % (uint64_t) (top + 1));
                c.rung_max = c.rung_min + (int) (rnd() % (uint64_t) (top - c.rung_min + 1));
                c.rung_start = c.rung_min + (int) (rnd() % (uint64_t) (c.rung_max - c.rung_min + 1));
                c.horizon = 4 + (unsigned) (rnd() % 16);
                CephLatencyWindow base = win(100, 0, 2 + (double) (rnd() % 20));
                _cleanup_(ceph_adapt_freep) CephAdapt *a = NULL;
                Error err = {};
                if (ceph_adapt_new(&c, &base, &a, &err) < 0) {
                        fprintf(stderr, "config refused: %s\n", err.message);
                        violations++;
                        continue;
                }
                const double target = ceph_adapt_target_ms(a), ceiling = ceph_adapt_ceiling_ms(a);
                const int floor = MIN(MAX(c.rung_min, ceph_adapt_slow_rung(s)), c.rung_max);
                const unsigned settle = (unsigned) ceil(c.effect_lag_sec / c.window_sec - 1e-9);
                /* the horizon as the rule states it: windows counted at this setting and load */
                size_t hn[64], ho[64];
                double hr[64];
                unsigned hlen = 0, since = settle, slow_run = 0, untripped = 0;
                int brake_point = c.rung_start;
                bool prev_over = false;
                for (int i = 0; i < 200; i++) {
                        uint64_t k = rnd() % 100;
                        size_t n = rnd() % 10 == 0 ? rnd() % 30 : 50 + rnd() % 200;
                        double p99 = k < 95 ? target * 2 * (double) (rnd() % 1000) / 1000.0
                                            : ceiling * (1 + (double) (rnd() % 1000) / 1000.0);
                        size_t over = 0;
                        if (n && p99 > target)
                                over = 1 + rnd() % (n / 20 + 1);
                        else if (n && rnd() % 4 == 0)
                                over = rnd() % 2;
                        size_t errors = rnd() % 40 == 0 ? 1 : 0;
                        unsigned slow = rnd() % 20 == 0 ? 2 : 0;
                        double rate = rnd() % 30 == 0 ? 0 : (rnd() % 8 == 0 ? 400 : 50);
                        CephLatencyWindow w = winv(n, over, errors, n ? p99 : 0);
                        w.client_ops_sec = rate;
                        CephAdaptDecision d = {};
                        if (ceph_adapt_step(a, &w, slow, &d, &err) < 0) {
                                violations++;
                                break;
                        }
                        /* the trip, counted here */
                        slow_run = slow ? slow_run + 1 : 0;
                        bool p99_over = (n > 0 && w.p99_ms > ceiling) || errors > 0;
                        size_t n_ceil = !n ? 0 : w.p95_ms > ceiling ? (n * 5 + 99) / 100 : w.p99_ms > ceiling ? MAX((size_t) 1, (n + 99) / 100) : 0;
                        size_t bad = n_ceil + errors, total = n + errors;
                        bool trip = slow_run >= 2 || (bad >= 2 && bad * 20 >= total) || (p99_over && prev_over);
                        const bool prev_before = prev_over;
                        prev_over = p99_over;
                        /* the horizon, counted here */
                        double lower = 0, upper = 1;
                        if (!trip) {
                                double mean = 0;
                                unsigned nr = 0;
                                for (unsigned j = 0; j < hlen; j++)
                                        if (hr[j] > 0) {
                                                mean += hr[j];
                                                nr++;
                                        }
                                mean = nr ? mean / nr : 0;
                                if (rate > 0 && mean > 0 && (rate > 2 * mean || rate * 2 < mean))
                                        hlen = 0;
                                bool settling = since + 1 <= settle && !d.brake_before;
                                if (n >= c.min_ops && !settling) {
                                        if (hlen == c.horizon) {
                                                memmove(hn, hn + 1, (hlen - 1) * sizeof(size_t));
                                                memmove(ho, ho + 1, (hlen - 1) * sizeof(size_t));
                                                memmove(hr, hr + 1, (hlen - 1) * sizeof(double));
                                                hlen--;
                                        }
                                        hn[hlen] = total;
                                        ho[hlen] = MIN(over, n) + errors;
                                        hr[hlen] = rate;
                                        hlen++;
                                }
                                size_t sn = 0, so = 0;
                                for (unsigned j = 0; j < hlen; j++) {
                                        sn += hn[j];
                                        so += ho[j];
                                }
                                ceph_budget_bounds(so, sn, c.confidence_z, &lower, &upper);
                                untripped++;
                        } else
                                untripped = 0;
                        bool bad_d = d.rung_after < c.rung_min || d.rung_after > c.rung_max || !d.reason ||
                                     (!d.brake_after && d.rung_after < floor);
                        if (trip && !d.brake_before)
                                bad_d |= d.action != CEPH_ADAPT_BRAKE || d.rung_after != c.rung_min;
                        if (d.action == CEPH_ADAPT_BRAKE)
                                bad_d |= !trip;
                        if (errors == 1 && n >= 40 && !slow_run && !prev_before && !(n > 0 && w.p99_ms > ceiling) &&
                            bad < 2) {
                                single_errors++;
                                bad_d |= d.brake_after && !d.brake_before;
                        }
                        if (d.action == CEPH_ADAPT_LOWER)
                                bad_d |= d.brake_before || d.rung_after != d.rung_before - 1 || !(lower > c.budget);
                        if (d.action == CEPH_ADAPT_RAISE)
                                bad_d |= d.brake_before || d.rung_after != d.rung_before + 1 || !(upper < c.budget) ||
                                         lower > c.budget;
                        if (d.action == CEPH_ADAPT_RELEASE)
                                bad_d |= !d.brake_before || d.brake_after || untripped < c.dwell ||
                                         d.rung_after != MAX(floor, MIN(brake_point - 1, c.rung_max));
                        if (d.action == CEPH_ADAPT_HOLD)
                                bad_d |= d.rung_after != d.rung_before || d.brake_after != d.brake_before;
                        if (bad_d) {
                                if (violations < 5)
                                        fprintf(stderr,
                                                "trace %d window %d: p99 %.1f n %zu over %zu err %zu slow %u trip %d prev %d → %s %d→%d %s: %s\n",
                                                t, i, w.p99_ms, n, over, errors, slow, trip, prev_before,
                                                ceph_adapt_action_to_string(d.action), d.rung_before, d.rung_after,
                                                d.brake_after ? "brake" : "", d.reason);
                                violations++;
                        }
                        if (d.action == CEPH_ADAPT_BRAKE)
                                brake_point = d.rung_before;
                        if (d.action != CEPH_ADAPT_HOLD) {
                                hlen = 0;
                                since = 0;
                                untripped = 0;
                        } else
                                since++;
                        raises += d.action == CEPH_ADAPT_RAISE;
                        lowers += d.action == CEPH_ADAPT_LOWER;
                        brakes += d.action == CEPH_ADAPT_BRAKE;
                        releases += d.action == CEPH_ADAPT_RELEASE;
                        ceph_adapt_decision_done(&d);
                }
        }
        CHECK_INTEQ(violations, 0);
        /* the traces exercised every kind of change, or the properties prove nothing */
        CHECK(raises > 100 && lowers > 100 && brakes > 100 && releases > 100 && single_errors > 100);
        fprintf(stderr, "properties: %zu raises, %zu lowers, %zu brakes, %zu releases, %zu single failed ops\n", raises,
                lowers, brakes, releases, single_errors);
}

/* A pinned controller (the benchmark's static rungs) judges every window and changes
 * nothing: no raise, lower, brake or release, and says what it would have done */
static void test_pinned(void) {
        CephAdaptConfig c;
        ceph_adapt_config_default(CEPH_SCHEDULER_WPQ, &c);
        c.pinned = true;
        c.rung_start = 3;
        CephLatencyWindow base = win(200, 0, 4), calm = win(200, 0, 3), spike = winv(200, 150, 0, 30),
                          over = winv(200, 20, 0, 9);
        _cleanup_(ceph_adapt_freep) CephAdapt *a = NULL;
        Error err = {};
        CHECK_INTEQ(ceph_adapt_new(&c, &base, &a, &err), 0);
        const CephLatencyWindow *seq[] = { &calm, &calm, &calm, &spike, &spike, &over, &over, &calm };
        bool said_brake = false, said_raise = false, said_lower = false;
        for (size_t i = 0; i < ELEMENTSOF(seq); i++) {
                CephAdaptDecision d = {};
                CHECK_INTEQ(ceph_adapt_step(a, seq[i], 0, &d, &err), 0);
                CHECK(d.action == CEPH_ADAPT_HOLD && d.rung_after == 3 && !d.brake_after);
                said_brake |= strstr(d.reason, "pinned at rung 3, would brake") != NULL;
                said_raise |= strstr(d.reason, "pinned at rung 3, would raise") != NULL;
                said_lower |= strstr(d.reason, "pinned at rung 3, would lower") != NULL;
                ceph_adapt_decision_done(&d);
        }
        CHECK(said_brake && said_raise && said_lower);
        CHECK(ceph_adapt_rung(a) == 3 && !ceph_adapt_brake(a));
}

/* Wilson's interval against values computed by hand */
static void test_budget_bounds(void) {
        double lo, hi;
        ceph_budget_bounds(0, 0, 1.96, &lo, &hi);
        CHECK(lo == 0 && hi == 1);
        ceph_budget_bounds(0, 400, 1.96, &lo, &hi);
        CHECK(lo == 0 && fabs(hi - 0.009508) < 1e-5); /* z²/(n + z²) */
        ceph_budget_bounds(10, 200, 1.96, &lo, &hi);
        CHECK(fabs(lo - 0.02738) < 1e-4 && fabs(hi - 0.08966) < 1e-4);
        ceph_budget_bounds(6, 1400, 1.96, &lo, &hi);
        CHECK(hi < 0.01 && lo > 0.001);
        ceph_budget_bounds(5, 3, 1.96, &lo, &hi); /* more over than ops: all of them */
        CHECK(hi == 1);
}

static CephHealth *health_of(const char *json) {
        CephHealth *h = NULL;
        Error err = {};
        CHECK_INTEQ(ceph_health_parse(json, &h, &err), 0);
        return h;
}

/* SLOW_OPS counts only when it is on an OSD being refilled (up, not acting) */
static void test_refill_slow_ops(void) {
        /* pg 1.0 moves from [0,1] to [0,3] (osd.3 is refilled), 1.1 is clean on [1,9] */
        const char *pgs_json =
                "{\"pg_ready\":true,\"pg_stats\":["
                "{\"pgid\":\"1.0\",\"state\":\"active+remapped+backfilling\",\"up\":[0,3],\"acting\":[0,1],"
                "\"up_primary\":0,\"acting_primary\":0},"
                "{\"pgid\":\"1.1\",\"state\":\"active+clean\",\"up\":[1,9],\"acting\":[1,9],\"up_primary\":1,"
                "\"acting_primary\":1}]}";
        _cleanup_(ceph_pg_dump_freep) CephPgDump *pgs = NULL;
        Error err = {};
        CHECK_INTEQ(ceph_pg_dump_parse(pgs_json, &pgs, &err), 0);
        _cleanup_(freep) char *two = fixture_ceph("synthetic-health-detail-slow-ops.json");     /* osd.1, osd.9 */
        _cleanup_(freep) char *one = fixture_ceph("synthetic-health-detail-slow-ops-one.json"); /* osd.3 */
        _cleanup_(ceph_health_freep) CephHealth *h_elsewhere = health_of(two), *h_refill = health_of(one),
                                                *h_ok = health_of("{\"status\":\"HEALTH_OK\",\"checks\":{},\"mutes\":[]}");
        /* osd.1 is the source of the move and osd.9 is not moving: elsewhere */
        CHECK_INTEQ(ceph_adapt_refill_slow_ops(h_elsewhere, pgs), 0);
        CHECK_INTEQ(ceph_adapt_refill_slow_ops(h_refill, pgs), 4);
        CHECK_INTEQ(ceph_adapt_refill_slow_ops(h_ok, pgs), 0);
        /* daemons that cannot be told (the summary names the first 10 and "...") count */
        _cleanup_(ceph_health_freep) CephHealth *h_many = health_of(
                "{\"status\":\"HEALTH_WARN\",\"checks\":{\"SLOW_OPS\":{\"severity\":\"HEALTH_WARN\",\"summary\":"
                "{\"message\":\"90 slow ops, oldest one blocked for 40 sec, daemons [osd.10,osd.11,osd.12,osd.13,"
                "osd.14,osd.15,osd.16,osd.17,osd.18,osd.19]... have slow ops.\",\"count\":90},\"detail\":[],"
                "\"muted\":false}},\"mutes\":[]}");
        CHECK_INTEQ(ceph_adapt_refill_slow_ops(h_many, pgs), 90);
        /* a monitor's slow ops are not the refilled OSDs' */
        _cleanup_(ceph_health_freep) CephHealth *h_mon = health_of(
                "{\"status\":\"HEALTH_WARN\",\"checks\":{\"SLOW_OPS\":{\"severity\":\"HEALTH_WARN\",\"summary\":"
                "{\"message\":\"3 slow ops, oldest one blocked for 31 sec, mon.a has slow ops\",\"count\":3},"
                "\"detail\":[],\"muted\":false}},\"mutes\":[]}");
        CHECK_INTEQ(ceph_adapt_refill_slow_ops(h_mon, pgs), 0);
}

/* The rung the last drain ended on: kept from the published state, the next one starts there
 * (within the slow preset's rung and rung_max, on the same scheduler only) */
static void test_last_rung(void) {
        CephAdaptConfig c;
        ceph_adapt_config_default(CEPH_SCHEDULER_WPQ, &c);
        CephLatencyWindow base = win(200, 0, 4);
        c.rung_start = 3;
        _cleanup_(ceph_adapt_freep) CephAdapt *a = NULL;
        Error err = {};
        CHECK_INTEQ(ceph_adapt_new(&c, &base, &a, &err), 0);
        /* a spike brakes it at 3: the end rung is the release's, 2 */
        CephLatencyWindow spike = winv(200, 150, 0, 30);
        CephAdaptDecision d = {};
        CHECK_INTEQ(ceph_adapt_step(a, &spike, 0, &d, &err), 0);
        CHECK(d.action == CEPH_ADAPT_BRAKE);
        ceph_adapt_decision_done(&d);
        _cleanup_json_ json_object *state = ceph_adapt_to_json(a);
        _cleanup_json_ json_object *last = ceph_adapt_last_from_state(state);
        CHECK(last != NULL);
        CHECK_STREQ(json_object_to_json_string_ext(last, JSON_C_TO_STRING_PLAIN),
                    "{\"scheduler\":\"wpq\",\"rung\":2,\"target_p99_ms\":8.0}");
        CephAdaptConfig next;
        ceph_adapt_config_default(CEPH_SCHEDULER_WPQ, &next);
        CHECK_INTEQ(ceph_adapt_start_rung(last, &next), 2);
        /* no record, another scheduler, a rung out of bounds */
        CHECK_INTEQ(ceph_adapt_start_rung(NULL, &next), 1);
        CephAdaptConfig mc;
        ceph_adapt_config_default(CEPH_SCHEDULER_MCLOCK, &mc);
        CHECK_INTEQ(ceph_adapt_start_rung(last, &mc), 0);
        _cleanup_json_ json_object *high = json_tokener_parse("{\"scheduler\":\"wpq\",\"rung\":6}"),
                                   *low = json_tokener_parse("{\"scheduler\":\"wpq\",\"rung\":0}"),
                                   *junk = json_tokener_parse("{\"scheduler\":\"wpq\",\"rung\":\"x\"}");
        CHECK_INTEQ(ceph_adapt_start_rung(high, &next), 4);
        CHECK_INTEQ(ceph_adapt_start_rung(low, &next), 1);
        CHECK_INTEQ(ceph_adapt_start_rung(junk, &next), 1);
        _cleanup_json_ json_object *no_end = json_tokener_parse("{\"scheduler\":\"wpq\",\"rung\":3}");
        CHECK(ceph_adapt_last_from_state(no_end) == NULL);
}

/* the restore record covers every key of the ladder, from the captured config dump */
static void test_plan(void) {
        _cleanup_(freep) char *cd = fixture_ceph("config-dump.json");
        _cleanup_(ceph_config_dump_freep) CephConfigDump *before = NULL;
        Error err = {};
        CHECK_INTEQ(ceph_config_dump_parse(cd, &before, &err), 0);
        _cleanup_(ceph_throttle_plan_freep) CephThrottlePlan *p = NULL;
        CHECK_INTEQ(ceph_adapt_plan(CEPH_SCHEDULER_WPQ, 1, before, &p, &err), 0);
        if (!p)
                return;
        _cleanup_(freep) char *apply = ops_string(p->apply, p->n_apply);
        CHECK_STREQ(apply, "osd osd_max_backfills 1; osd osd_recovery_max_active 1; osd osd_recovery_max_single_start 1; "
                           "osd osd_recovery_sleep 0");
        _cleanup_(freep) char *restore = ops_string(p->restore, p->n_restore);
        CHECK_STREQ(restore, "osd osd_recovery_sleep (rm); osd osd_recovery_max_single_start (rm); "
                             "osd osd_recovery_max_active (rm); osd osd_max_backfills 1");
        CHECK_INTEQ(strv_length(p->warnings), 0);
        _cleanup_(freep) char *rec = ceph_throttle_restore_format(p);
        CephConfigOp *back = NULL;
        size_t n_back = 0;
        CHECK_INTEQ(ceph_throttle_restore_parse(rec, &back, &n_back, &err), 0);
        _cleanup_(freep) char *back_s = ops_string(back, n_back);
        CHECK_STREQ(back_s, restore);
        ceph_config_ops_free(back, n_back);

        _cleanup_(freep) char *ov = fixture_ceph("synthetic-config-dump-overrides.json");
        _cleanup_(ceph_config_dump_freep) CephConfigDump *before2 = NULL;
        CHECK_INTEQ(ceph_config_dump_parse(ov, &before2, &err), 0);
        _cleanup_(ceph_throttle_plan_freep) CephThrottlePlan *m = NULL;
        CHECK_INTEQ(ceph_adapt_plan(CEPH_SCHEDULER_MCLOCK, 0, before2, &m, &err), 0);
        if (!m)
                return;
        _cleanup_(freep) char *mapply = ops_string(m->apply, m->n_apply);
        CHECK_STREQ(mapply, "osd osd_mclock_profile high_client_ops");
        CHECK_INTEQ(m->n_restore, 1);
        CHECK_STREQ(m->restore[0].value, "high_client_ops"); /* what the dump had */
        CHECK_INTEQ(strv_length(m->warnings), 0);           /* its overrides are of limits, not the profile */

        CephThrottlePlan *none = NULL;
        CHECK_INTEQ(ceph_adapt_plan(CEPH_SCHEDULER_WPQ, 9, before, &none, &err), -EINVAL);
        CHECK(none == NULL);
        CHECK_INTEQ(ceph_adapt_plan(CEPH_SCHEDULER_WPQ, 1, NULL, &none, &err), -EINVAL);
}

/* `cephprov pause`: the brake goes on in the window the pause is seen, stays on through calm
 * windows while paused, and comes off only after `dwell` calm windows once resumed */
static void test_pause(void) {
        CephLatencyWindow base = win(200, 0, 4), calm = win(200, 0, 2);
        CephAdaptConfig c;
        Error err = {};
        _cleanup_(ceph_adapt_freep) CephAdapt *a = NULL;
        ceph_adapt_config_default(CEPH_SCHEDULER_WPQ, &c);
        CHECK_INTEQ(ceph_adapt_new(&c, &base, &a, &err), 0);
        CephAdaptDecision d = {};
        ceph_adapt_set_paused(a, true);
        CHECK_INTEQ(ceph_adapt_step(a, &calm, 0, &d, &err), 0);
        CHECK(d.action == CEPH_ADAPT_BRAKE && d.brake_after && d.rung_after == 0);
        CHECK(strstr(d.reason, "paused by the operator (cephprov pause): brake on (nobackfill)") == d.reason);
        ceph_adapt_decision_done(&d);
        for (int i = 0; i < 6; i++) {
                CHECK_INTEQ(ceph_adapt_step(a, &calm, 0, &d, &err), 0);
                CHECK(d.action == CEPH_ADAPT_HOLD && d.brake_after);
                CHECK(strstr(d.reason, "the brake stays on") != NULL);
                ceph_adapt_decision_done(&d);
        }
        _cleanup_json_ json_object *o = ceph_adapt_to_json(a);
        CHECK(o && json_object_get_boolean(json_object_object_get(o, "paused")));
        ceph_adapt_set_paused(a, false);
        for (int i = 0; i < 3; i++) {
                CHECK_INTEQ(ceph_adapt_step(a, &calm, 0, &d, &err), 0);
                CHECK(d.action == (i == 2 ? CEPH_ADAPT_RELEASE : CEPH_ADAPT_HOLD));
                CHECK(d.brake_after == (i < 2));
                ceph_adapt_decision_done(&d);
        }
}

int main(void) {
        TEST_RUN(test_percentiles);
        TEST_RUN(test_pause);
        TEST_RUN(test_ladders);
        TEST_RUN(test_config);
        TEST_RUN(test_traces);
        TEST_RUN(test_properties);
        TEST_RUN(test_budget_bounds);
        TEST_RUN(test_pinned);
        TEST_RUN(test_refill_slow_ops);
        TEST_RUN(test_last_rung);
        TEST_RUN(test_json);
        TEST_RUN(test_plan);
        TEST_RUN(test_value_eq);
        return test_result();
}
