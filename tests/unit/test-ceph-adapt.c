/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The adaptive throttle's decision rule (src/ceph/ceph-adapt.h): percentiles of a probe
 * window, the ladders, the configuration checks, the traces of tests/data/throttle-traces
 * replayed window by window (synthetic, see its README), and properties over many random
 * traces: the rung never leaves its bounds, a spike is answered in the window that shows it,
 * a raise never follows a window that was not calm. The anchor to the slow preset: a model
 * of the slowed lab (latency samples per rung, every window built from them as the thread
 * builds it) on which the rule climbs and keeps the clients' p99 within 1.1 × the slow
 * preset's while the rule without the anchor sits below the slow preset, and properties of
 * the anchor over random models. */

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

        ceph_adapt_config_default(CEPH_SCHEDULER_WPQ, &c);
        CHECK_INTEQ(ceph_adapt_new(&c, &base, &a, &err), 0);
        CHECK(ceph_adapt_target_ms(a) == 6 && ceph_adapt_ceiling_ms(a) == 18);
        CHECK_INTEQ(ceph_adapt_rung(a), 1);
        CHECK(!ceph_adapt_brake(a));
        a = ceph_adapt_free(a);

        /* a small baseline: the floor (p99 + 2 ms) sets the target, not the factor */
        CephLatencyWindow fast = win(200, 0, 1);
        CHECK_INTEQ(ceph_adapt_new(&c, &fast, &a, &err), 0);
        CHECK(ceph_adapt_target_ms(a) == 3);
        a = ceph_adapt_free(a);

        /* an explicit target and ceiling win; no baseline needed then */
        c.target_ms = 30;
        c.ceiling_ms = 100;
        CHECK_INTEQ(ceph_adapt_new(&c, NULL, &a, &err), 0);
        CHECK(ceph_adapt_target_ms(a) == 30 && ceph_adapt_ceiling_ms(a) == 100);
        a = ceph_adapt_free(a);

        /* a resume that finds the brake on starts braked at the bottom, and releases when calm */
        ceph_adapt_config_default(CEPH_SCHEDULER_WPQ, &c);
        c.start_braked = true;
        CHECK_INTEQ(ceph_adapt_new(&c, &base, &a, &err), 0);
        CHECK(ceph_adapt_brake(a) && ceph_adapt_rung(a) == 0);
        for (int i = 0; i < 3; i++) {
                CephLatencyWindow calm = win(200, 0, 2);
                CephAdaptDecision d = {};
                CHECK_INTEQ(ceph_adapt_step(a, &calm, 0, &d, &err), 0);
                CHECK(d.action == (i == 2 ? CEPH_ADAPT_RELEASE : CEPH_ADAPT_HOLD));
                ceph_adapt_decision_done(&d);
        }
        CHECK(!ceph_adapt_brake(a) && ceph_adapt_rung(a) == 0);
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
        REFUSED(hysteresis, 1.5, "hysteresis 1.5 is not between 0 and 1");
        REFUSED(decrease, 1, "decrease 1 is not between 0 and 1");
        REFUSED(budget, 0.6, "budget 0.6 is not a fraction of the ops in (0, 0.5]");
        REFUSED(grace_ops, -1, "a horizon of 12 windows or a grace of -1 ops is out of bounds");
        REFUSED(dwell, 2, "a dwell of 2 windows of 5 s (10 s) is not longer than the knobs' effect lag of 10 s");
        REFUSED(effect_lag_sec, 30, "is not longer than the knobs' effect lag of 30 s");
        REFUSED(target_ms, -1, "each must be positive");
        REFUSED(ceiling_ms, 5, "the ceiling 5.0 ms is not above the target 6.0 ms");
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
                unsigned long ops, over, errors;
                unsigned slow;
                double p99;
                char act[16], brake[8];
                int rung, used = 0;
                if (!a || sscanf(line, "%lu %lu %lu %lf %u -> %15s %d %7s %n", &ops, &over, &errors, &p99, &slow, act,
                                 &rung, brake, &used) < 8) {
                        fprintf(stderr, "%s:%zu: not a window line: %s\n", name, lineno, line);
                        CHECK(false);
                        return 0;
                }
                CephAdaptAction want = CEPH_ADAPT_HOLD;
                CHECK(action_from(act, &want));
                const char *reason = used > 0 && line[used] ? line + used : NULL;
                CephLatencyWindow w = winv(ops, over, errors, p99);
                if (have_top) {
                        w.n_top = MIN((size_t) ops, (size_t) CEPH_LATENCY_TOP);
                        for (size_t i = 0; i < w.n_top; i++)
                                w.top_ms[i] = i < n_top ? top[i] : fill;
                }
                CephAdaptDecision d = {};
                Error err = {};
                CHECK_INTEQ(ceph_adapt_step(a, &w, slow, &d, &err), 0);
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

static void test_traces(void) {
        CHECK_INTEQ(replay("calm-rise.trace"), 14);
        CHECK_INTEQ(replay("spike-lower.trace"), 20);
        CHECK_INTEQ(replay("spike-brake.trace"), 23);
        CHECK_INTEQ(replay("mclock-ladder.trace"), 12);
        CHECK_INTEQ(replay("anchor-slow.trace"), 38);
}

/* xorshift: the same traces every run */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void) {
        rnd_state ^= rnd_state << 13;
        rnd_state ^= rnd_state >> 7;
        rnd_state ^= rnd_state << 17;
        return rnd_state;
}

/* Over 2,000 random traces of 200 windows each, on both ladders and random bounds (the
 * error budget counted here again, apart from the controller's own count):
 *   - the rung stays within [rung_min, rung_max] and the brake is on only after a trip;
 *   - a window over the ceiling (p95 over it, p99 over it twice in a row, or a thin window
 *     with p99 over it), with slow ops or an error, when the brake is off, brakes in that
 *     window; one with ops over the target while the horizon is over its budget
 *     (+ grace), brake off and above the bottom rung, lowers;
 *   - a raise is one rung, only after `dwell` calm windows and `dwell` windows since the
 *     last change, with the horizon under budget × (1 − hysteresis), never with the brake on;
 *     a release only after `dwell` calm windows. */
static void test_properties(void) {
        size_t violations = 0, raises = 0, lowers = 0, brakes = 0, releases = 0;
        for (int t = 0; t < 2000; t++) {
                CephScheduler s = t % 2 ? CEPH_SCHEDULER_WPQ : CEPH_SCHEDULER_MCLOCK;
                CephAdaptConfig c;
                ceph_adapt_config_default(s, &c);
                /* the rule against a target from the baseline alone, as these properties state
                 * it; test_anchor_properties() covers the anchor */
                c.no_anchor = true;
                int top = ceph_adapt_n_rungs(s) - 1;
                c.rung_min = (int) (rnd() % (uint64_t) (top + 1));
                c.rung_max = c.rung_min + (int) (rnd() % (uint64_t) (top - c.rung_min + 1));
                c.rung_start = c.rung_min + (int) (rnd() % (uint64_t) (c.rung_max - c.rung_min + 1));
                c.dwell = 3 + (unsigned) (rnd() % 3);
                c.horizon = 4 + (unsigned) (rnd() % 16);
                CephLatencyWindow base = win(100, 0, 2 + (double) (rnd() % 20));
                _cleanup_(ceph_adapt_freep) CephAdapt *a = NULL;
                Error err = {};
                if (ceph_adapt_new(&c, &base, &a, &err) < 0) {
                        fprintf(stderr, "config refused: %s\n", err.message);
                        violations++;
                        continue;
                }
                double target = ceph_adapt_target_ms(a), ceiling = ceph_adapt_ceiling_ms(a);
                double share = c.budget * (1 - c.hysteresis);
                size_t hn[200] = { 0 }, ho[200] = { 0 };
                unsigned calm = 0, since = c.dwell;
                bool prev_over = false;
                for (int i = 0; i < 200; i++) {
                        /* mostly calm, with bursts over the target and rare spikes */
                        uint64_t k = rnd() % 100;
                        size_t n = rnd() % 10 == 0 ? rnd() % 30 : 50 + rnd() % 200;
                        double p99 = k < 95 ? target * 2 * (double) (rnd() % 1000) / 1000.0
                                            : ceiling * (1 + (double) (rnd() % 1000) / 1000.0);
                        size_t over = 0;
                        if (n && p99 > target)
                                over = 1 + rnd() % (n / 10 + 1);
                        else if (n && rnd() % 4 == 0)
                                over = rnd() % 2; /* one op over, the p99 under */
                        size_t errors = rnd() % 50 == 0 ? 1 : 0;
                        unsigned slow = rnd() % 60 == 0 ? 2 : 0;
                        CephLatencyWindow w = winv(n, over, errors, n ? p99 : 0);
                        hn[i] = n;
                        ho[i] = over;
                        size_t sum_n = 0, sum_o = 0;
                        for (int j = i; j >= 0 && j > i - (int) c.horizon; j--) {
                                sum_n += hn[j];
                                sum_o += ho[j];
                        }
                        CephAdaptDecision d = {};
                        if (ceph_adapt_step(a, &w, slow, &d, &err) < 0) {
                                violations++;
                                break;
                        }
                        bool p99_over = n > 0 && w.p99_ms > ceiling;
                        bool trip = slow || errors ||
                                    (p99_over && (w.p95_ms > ceiling || prev_over || n < c.min_ops));
                        prev_over = p99_over;
                        bool judged = !trip && n >= c.min_ops;
                        bool over_budget = over > 0 && (double) sum_o > c.budget * (double) sum_n + c.grace_ops;
                        bool bad = d.rung_after < c.rung_min || d.rung_after > c.rung_max || !d.reason;
                        if (trip && !d.brake_before)
                                bad |= d.action != CEPH_ADAPT_BRAKE || d.rung_after != c.rung_min;
                        if (judged && over_budget && !d.brake_before && d.rung_before > c.rung_min)
                                bad |= d.action != CEPH_ADAPT_LOWER || d.rung_after >= d.rung_before;
                        if (d.action == CEPH_ADAPT_LOWER)
                                bad |= !judged || !over_budget;
                        bool calm_now = judged && !over_budget && (double) over <= share * (double) n;
                        calm = calm_now ? calm + 1 : 0;
                        if (d.action == CEPH_ADAPT_RAISE)
                                bad |= d.rung_after != d.rung_before + 1 || d.brake_before || calm < c.dwell ||
                                       since + 1 < c.dwell || (double) sum_o > share * (double) sum_n;
                        if (d.action == CEPH_ADAPT_RELEASE)
                                bad |= !d.brake_before || d.brake_after || calm < c.dwell;
                        if (d.brake_after && !d.brake_before)
                                bad |= !trip;
                        if (d.action == CEPH_ADAPT_HOLD)
                                bad |= d.rung_after != d.rung_before || d.brake_after != d.brake_before;
                        if (bad) {
                                if (violations < 5)
                                        fprintf(stderr,
                                                "trace %d window %d: p99 %.1f n %zu over %zu err %zu slow %u → %s %d→%d %s: %s\n",
                                                t, i, w.p99_ms, n, over, errors, slow,
                                                ceph_adapt_action_to_string(d.action), d.rung_before, d.rung_after,
                                                d.brake_after ? "brake" : "", d.reason);
                                violations++;
                        }
                        if (d.action != CEPH_ADAPT_HOLD) {
                                calm = 0;
                                since = 0;
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
        CHECK(raises > 100 && lowers > 100 && brakes > 100 && releases > 100);
        fprintf(stderr, "properties: %zu raises, %zu lowers, %zu brakes, %zu releases\n", raises, lowers, brakes,
                releases);
}

/* ---- the anchor to the slow preset, on latency samples ----------------------------- */

/* A model of a cluster's client latency per rung, in the shape the slowed lab showed (every
 * disk at 150 IOPS, blkio throttling in slices of 100 ms): most ops take a few ms, a share
 * waits one slice (~100 ms), a smaller share two (~200 ms) or three (~300 ms). `tail[r]`:
 * the shares at ~100, ~200 and ~300 ms at rung r; rung -1: no data moving. */
typedef struct Plant {
        double quiet[3];
        double tail[7][3];
} Plant;

static double plant_op(const Plant *p, int rung) {
        const double *t = rung < 0 ? p->quiet : p->tail[rung];
        double u = (double) (rnd() % 1000000) / 1e6, jitter = (double) (rnd() % 1000) / 1000.0;
        if (u < t[2])
                return 300 + 8 * jitter;
        if (u < t[2] + t[1])
                return 200 + 8 * jitter;
        if (u < t[2] + t[1] + t[0])
                return 100 + 8 * jitter;
        return 1 + 4 * jitter;
}

/* one window of `n` ops at `rung`, built as the thread builds it: percentiles and largest
 * latencies from the samples, the ops over the controller's target counted */
static CephLatencyWindow plant_window(const Plant *p, int rung, size_t n, double target, double *ms) {
        for (size_t i = 0; i < n; i++)
                ms[i] = plant_op(p, rung);
        CephLatencyWindow w = {};
        Error err = {};
        CHECK_INTEQ(ceph_latency_window(ms, n, 0, &w, &err), 0);
        w.n_over = ceph_latency_count_above(ms, n, target);
        return w;
}

static double pooled_p99(const double *ms, size_t n) {
        CephLatencyWindow w = {};
        Error err = {};
        CHECK_INTEQ(ceph_latency_window(ms, n, 0, &w, &err), 0);
        return w.p99_ms;
}

/* Runs a drain of `windows` windows of 150 ops on the lab's model (the first window before
 * data moves); the clients' pooled p99 over the windows after the first and the mean rung */
static void plant_run(const Plant *p, bool anchor, size_t windows, double *ret_p99, double *ret_mean_rung,
                      int *ret_min_rung, CephAdapt **ret) {
        enum { N = 150, NB = 400 };
        double base_ms[NB];
        for (size_t i = 0; i < NB; i++)
                base_ms[i] = plant_op(p, -1);
        CephLatencyWindow base = {};
        Error err = {};
        CHECK_INTEQ(ceph_latency_window(base_ms, NB, 0, &base, &err), 0);
        CephAdaptConfig c;
        ceph_adapt_config_default(CEPH_SCHEDULER_WPQ, &c);
        c.no_anchor = !anchor;
        CephAdapt *a = NULL;
        CHECK_INTEQ(ceph_adapt_new(&c, &base, &a, &err), 0);
        _cleanup_(freep) double *all = malloc(windows * N * sizeof(double));
        size_t n_all = 0;
        double rung_sum = 0;
        int min_rung = 99;
        for (size_t i = 0; i < windows && a && all; i++) {
                int rung = ceph_adapt_rung(a);
                CephLatencyWindow w = plant_window(p, i == 0 ? -1 : rung, N, ceph_adapt_target_ms(a), all + n_all);
                if (i > 0) {
                        n_all += N;
                        rung_sum += rung;
                        min_rung = MIN(min_rung, rung);
                }
                CephAdaptDecision d = {};
                CHECK_INTEQ(ceph_adapt_step(a, &w, 0, &d, &err), 0);
                ceph_adapt_decision_done(&d);
        }
        *ret_p99 = all ? pooled_p99(all, n_all) : 0;
        *ret_mean_rung = rung_sum / (double) (windows - 1);
        *ret_min_rung = min_rung;
        *ret = a;
}

/* The slowed lab's model: the baseline's p99 is ~100 ms (target ~150 ms), the slow preset's
 * ~200 ms, the fast preset's ~300 ms; rungs 2 and 3 fatten the ~200 ms share and add a thin
 * ~300 ms one. Without the anchor the rule keeps lowering below the slow preset (what the
 * benchmark measured); with it the rule climbs, and the clients' p99 stays within 1.1 × the
 * slow preset's. */
static void test_anchor_lab(void) {
        const Plant lab = {
                .quiet = { 0.03, 0, 0 },
                .tail = {
                        { 0.025, 0.004, 0 },      /* 0: sleep 0.2 */
                        { 0.030, 0.013, 0 },      /* 1: the slow preset */
                        { 0.035, 0.016, 0.002 },  /* 2 */
                        { 0.040, 0.018, 0.005 },  /* 3 */
                        { 0.040, 0.020, 0.015 },  /* 4: the fast preset */
                        { 0.040, 0.020, 0.030 },
                        { 0.040, 0.020, 0.050 },
                },
        };
        rnd_state = 0x2545f4914f6cdd1dULL; /* this model's own draws, whatever ran before */
        /* the slow preset alone, as the benchmark runs it */
        enum { W = 120, N = 150 };
        _cleanup_(freep) double *slow = malloc(W * N * sizeof(double));
        for (size_t i = 0; slow && i < W * N; i++)
                slow[i] = plant_op(&lab, 1);
        double slow_p99 = slow ? pooled_p99(slow, W * N) : 0;
        CHECK(slow_p99 >= 200 && slow_p99 <= 208);

        double p99 = 0, mean = 0;
        int min_rung = 0;
        _cleanup_(ceph_adapt_freep) CephAdapt *a = NULL;
        plant_run(&lab, true, W, &p99, &mean, &min_rung, &a);
        CHECK(a && ceph_adapt_anchor(a) == CEPH_ADAPT_ANCHOR_SET);
        if (!a)
                return;
        /* the target follows the slow preset's p99 (its ops at ~200 ms), not the baseline's */
        CHECK(ceph_adapt_slow_p99_ms(a) >= 200 && ceph_adapt_slow_p99_ms(a) <= 208);
        CHECK(fabs(ceph_adapt_target_ms(a) - 1.05 * ceph_adapt_slow_p99_ms(a)) < 1e-9);
        CHECK(fabs(ceph_adapt_ceiling_ms(a) - 3 * ceph_adapt_target_ms(a)) < 1e-9);
        /* it never went below the slow preset, climbed past it, and kept the p99 promise */
        CHECK(min_rung >= 1);
        CHECK(mean >= 2);
        CHECK(p99 <= 1.1 * slow_p99);
        fprintf(stderr, "lab model, anchored: slow p99 %.1f ms, clients' p99 %.1f ms (%.2f ×), mean rung %.2f\n",
                slow_p99, p99, p99 / slow_p99, mean);

        _cleanup_(ceph_adapt_freep) CephAdapt *b = NULL;
        plant_run(&lab, false, W, &p99, &mean, &min_rung, &b);
        CHECK(b && ceph_adapt_anchor(b) == CEPH_ADAPT_ANCHOR_OFF);
        CHECK(mean < 1);
        fprintf(stderr, "lab model, baseline only: clients' p99 %.1f ms, mean rung %.2f\n", p99, mean);

        /* where recovery at the slow preset is as cheap as the idle cluster, the baseline's
         * target stands and the rule climbs to the fast preset */
        Plant cheap = lab;
        for (int r = 0; r < 7; r++) {
                cheap.tail[r][0] = 0.010;
                cheap.tail[r][1] = cheap.tail[r][2] = 0;
        }
        _cleanup_(ceph_adapt_freep) CephAdapt *e = NULL;
        plant_run(&cheap, true, 40, &p99, &mean, &min_rung, &e);
        CHECK(e && ceph_adapt_rung(e) == 4);
}

/* Properties of the anchor over 1,000 random models (the shares per rung drawn, spikes, thin
 * windows, slow ops and errors mixed in), the pooled p99 computed here from the samples:
 *   - the rung stays within its bounds, and a trip brakes in its window;
 *   - while the anchor is pending: no lower at or below the slow rung, and none to below it;
 *   - the target changes once, in the window that sets the anchor, the `anchor_windows`-th
 *     taken (judged, at the slow rung, brake off, not the run's first window nor the first
 *     after a change), to max(the target before, their pooled p99 × 1.05), the ceiling to
 *     3 × the new target;
 *   - a raise is one rung and follows a window calm against the target then in force (but
 *     below the slow rung before the anchor, where only trips count). */
static void test_anchor_properties(void) {
        enum { WINDOWS = 120, MAXN = 260 };
        size_t violations = 0, anchored = 0, raises = 0, held = 0;
        _cleanup_(freep) double *pool = malloc(3 * MAXN * sizeof(double));
        for (int t = 0; t < 1000 && pool; t++) {
                CephScheduler s = t % 3 ? CEPH_SCHEDULER_WPQ : CEPH_SCHEDULER_MCLOCK;
                CephAdaptConfig c;
                ceph_adapt_config_default(s, &c);
                int slow_rung = ceph_adapt_slow_rung(s), top = ceph_adapt_n_rungs(s) - 1;
                c.rung_min = (int) (rnd() % (uint64_t) (slow_rung + 1));
                c.rung_max = slow_rung + (int) (rnd() % (uint64_t) (top - slow_rung + 1));
                Plant p = { .quiet = { 0.005 + (double) (rnd() % 20) / 1000, 0, 0 } };
                double grow = (double) (rnd() % 100) / 100;
                for (int r = 0; r <= top; r++) {
                        p.tail[r][0] = 0.01 + (double) (rnd() % 30) / 1000;
                        p.tail[r][1] = (double) (rnd() % 20) / 1000 * (1 + grow * r);
                        p.tail[r][2] = (double) (rnd() % 10) / 1000 * grow * r;
                }
                double base_ms[200];
                for (size_t i = 0; i < 200; i++)
                        base_ms[i] = plant_op(&p, -1);
                CephLatencyWindow base = {};
                Error err = {};
                CHECK_INTEQ(ceph_latency_window(base_ms, 200, 0, &base, &err), 0);
                _cleanup_(ceph_adapt_freep) CephAdapt *a = NULL;
                if (ceph_adapt_new(&c, &base, &a, &err) < 0) {
                        fprintf(stderr, "config refused: %s\n", err.message);
                        violations++;
                        continue;
                }
                CHECK(ceph_adapt_anchor(a) == CEPH_ADAPT_ANCHOR_PENDING);
                size_t n_pool = 0, n_windows = 0;
                unsigned taken = 0, since = c.dwell;
                bool prev_over = false;
                for (int i = 0; i < WINDOWS; i++) {
                        double ms[MAXN];
                        int rung = ceph_adapt_rung(a);
                        bool brake = ceph_adapt_brake(a), pending = ceph_adapt_anchor(a) == CEPH_ADAPT_ANCHOR_PENDING;
                        double target = ceph_adapt_target_ms(a), ceiling = ceph_adapt_ceiling_ms(a);
                        size_t n = rnd() % 15 == 0 ? rnd() % 25 : 100 + rnd() % 150;
                        CephLatencyWindow w = plant_window(&p, i == 0 || brake ? -1 : rung, n, target, ms);
                        if (rnd() % 40 == 0 && n > 0) /* a spike: most ops far over the ceiling */
                                for (size_t k = 0; k < n; k++)
                                        ms[k] = rnd() % 10 ? ceiling * 1.5 : ms[k];
                        CHECK_INTEQ(ceph_latency_window(ms, n, rnd() % 80 == 0, &w, &err), 0);
                        w.n_over = ceph_latency_count_above(ms, n, target);
                        unsigned slow = rnd() % 80 == 0 ? 1 : 0;
                        bool p99_over = n > 0 && w.p99_ms > ceiling;
                        bool trip = slow || w.n_errors || (p99_over && (w.p95_ms > ceiling || prev_over || n < c.min_ops));
                        prev_over = p99_over;
                        bool judged = !trip && n >= c.min_ops;
                        bool take = pending && judged && rung == slow_rung && !brake && n_windows >= 1 && since >= 1;
                        if (take) {
                                memcpy(pool + n_pool, ms, n * sizeof(double));
                                n_pool += n;
                                taken++;
                        }
                        CephAdaptDecision d = {};
                        if (ceph_adapt_step(a, &w, slow, &d, &err) < 0) {
                                violations++;
                                break;
                        }
                        bool bad = d.rung_after < c.rung_min || d.rung_after > c.rung_max;
                        if (trip && !brake)
                                bad |= d.action != CEPH_ADAPT_BRAKE;
                        if (pending && !d.anchored && d.action == CEPH_ADAPT_LOWER)
                                bad |= rung <= slow_rung || d.rung_after < slow_rung;
                        held += pending && rung == slow_rung && d.action == CEPH_ADAPT_HOLD && w.n_over > 0;
                        bool want_anchor = take && taken == c.anchor_windows;
                        bad |= d.anchored != want_anchor;
                        if (d.anchored) {
                                double want = MAX(d.target_before, pooled_p99(pool, n_pool) * c.anchor_factor);
                                bad |= fabs(d.target_after - want) > 1e-9 || fabs(ceph_adapt_target_ms(a) - want) > 1e-9 ||
                                       (want != d.target_before &&
                                        fabs(ceph_adapt_ceiling_ms(a) - 3 * want) > 1e-9) ||
                                       ceph_adapt_anchor(a) != CEPH_ADAPT_ANCHOR_SET;
                                anchored++;
                        } else
                                bad |= d.target_after != d.target_before || ceph_adapt_target_ms(a) != target;
                        if (d.action == CEPH_ADAPT_RAISE) {
                                bool untrusted = pending && !brake && rung < slow_rung;
                                size_t over_now = ceph_latency_count_above(ms, n, d.target_after);
                                double share = c.budget * (1 - c.hysteresis);
                                bad |= d.rung_after != rung + 1 || brake ||
                                       (!untrusted && (double) over_now > share * (double) n);
                                raises++;
                        }
                        if (bad) {
                                if (violations < 5)
                                        fprintf(stderr, "anchor trace %d window %d: rung %d %s n %zu p99 %.1f → %s %d→%d "
                                                        "target %.1f→%.1f anchored %d (taken %u): %s\n",
                                                t, i, rung, pending ? "pending" : "", n, w.p99_ms,
                                                ceph_adapt_action_to_string(d.action), d.rung_before, d.rung_after,
                                                d.target_before, d.target_after, d.anchored, taken, d.reason);
                                violations++;
                        }
                        since = d.action != CEPH_ADAPT_HOLD ? 0 : since + 1;
                        n_windows++;
                        ceph_adapt_decision_done(&d);
                }
        }
        CHECK_INTEQ(violations, 0);
        CHECK(anchored > 500 && raises > 1000 && held > 100);
        fprintf(stderr, "anchor properties: %zu anchored, %zu raises, %zu holds instead of a lower\n", anchored, raises,
                held);
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
        CHECK(fabs(json_object_get_double(json_object_object_get(o, "target_p99_ms")) - 6) < 1e-9);
        /* the error budget's horizon holds the spike's window */
        CHECK(fabs(json_object_get_double(json_object_object_get(o, "budget")) - 0.01) < 1e-12);
        CHECK(json_get_int(o, "horizon_windows", true, &i, "adapt", &err) == 0 && i == 1);
        CHECK(json_get_int(o, "horizon_ops", true, &i, "adapt", &err) == 0 && i == 200);
        CHECK(json_get_int(o, "horizon_over", true, &i, "adapt", &err) == 0 && i == 150);
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
        TEST_RUN(test_anchor_lab);
        TEST_RUN(test_anchor_properties);
        TEST_RUN(test_json);
        TEST_RUN(test_plan);
        TEST_RUN(test_value_eq);
        return test_result();
}
