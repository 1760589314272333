/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The adaptive throttle's decision rule: probe windows in, rung and brake out (ceph-adapt.h). */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph-adapt.h"
#include "ceph-internal.h"

/* ---- one probe window ------------------------------------------------------------- */

static int double_cmp(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

/* nearest rank: the smallest value with at least p % of the values at or below it */
static double rank(const double *sorted, size_t n, double p) {
        size_t k = (size_t) ceil(p / 100.0 * (double) n);
        return sorted[k == 0 ? 0 : k - 1];
}

int ceph_latency_window(const double *ms, size_t n, size_t n_errors, CephLatencyWindow *ret, Error *err) {
        CephLatencyWindow w = { .n = n, .n_errors = n_errors };
        if (n == 0) {
                *ret = w;
                return 0;
        }
        for (size_t i = 0; i < n; i++)
                if (!isfinite(ms[i]) || ms[i] < 0)
                        return error_set(err, EINVAL, "probe latency %zu of %zu is %g ms: not a duration", i + 1, n,
                                         ms[i]);
        _cleanup_(freep) double *s = malloc(n * sizeof(double));
        if (!s)
                return -ENOMEM;
        memcpy(s, ms, n * sizeof(double));
        qsort(s, n, sizeof(double), double_cmp);
        w.p50_ms = rank(s, n, 50);
        w.p95_ms = rank(s, n, 95);
        w.p99_ms = rank(s, n, 99);
        w.max_ms = s[n - 1];
        w.n_top = MIN(n, (size_t) CEPH_LATENCY_TOP);
        for (size_t i = 0; i < w.n_top; i++)
                w.top_ms[i] = s[n - 1 - i];
        *ret = w;
        return 0;
}

size_t ceph_latency_count_above(const double *ms, size_t n, double limit_ms) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                k += ms[i] > limit_ms;
        return k;
}

char *ceph_latency_window_format(const CephLatencyWindow *w) {
        char errs[48] = "";
        if (w->n_errors)
                snprintf(errs, sizeof errs, ", %zu error%s", w->n_errors, w->n_errors == 1 ? "" : "s");
        if (w->n == 0)
                return strprintf("no op completed%s", errs);
        return strprintf("p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms over %zu op%s%s", w->p50_ms, w->p95_ms,
                         w->p99_ms, w->max_ms, w->n, w->n == 1 ? "" : "s", errs);
}

/* ---- the ladder ------------------------------------------------------------------- */

#define K_BACKFILLS "osd_max_backfills"
#define K_ACTIVE "osd_recovery_max_active"
#define K_SINGLE "osd_recovery_max_single_start"
#define K_SLEEP "osd_recovery_sleep"
#define K_PROFILE "osd_mclock_profile"

static const char *const wpq_keys[] = { K_BACKFILLS, K_ACTIVE, K_SINGLE, K_SLEEP, NULL };
static const char *const mclock_keys[] = { K_PROFILE, NULL };

/* values of wpq_keys per rung */
static const char *const wpq_rungs[][4] = {
        { "1", "1", "1", "0.2" },
        { "1", "1", "1", "0" },
        { "2", "2", "2", "0" },
        { "3", "3", "3", "0" },
        { "4", "4", "4", "0" },
        { "6", "6", "4", "0" },
        { "8", "8", "4", "0" },
};
static const char *const mclock_rungs[][1] = {
        { "high_client_ops" },
        { "balanced" },
        { "high_recovery_ops" },
};

int ceph_adapt_n_rungs(CephScheduler scheduler) {
        return scheduler == CEPH_SCHEDULER_WPQ ? (int) ELEMENTSOF(wpq_rungs) : (int) ELEMENTSOF(mclock_rungs);
}

const char *const *ceph_adapt_keys(CephScheduler scheduler) {
        return scheduler == CEPH_SCHEDULER_WPQ ? wpq_keys : mclock_keys;
}

static const char *rung_value(CephScheduler scheduler, int rung, size_t key) {
        return scheduler == CEPH_SCHEDULER_WPQ ? wpq_rungs[rung][key] : mclock_rungs[rung][key];
}

static bool rung_valid(CephScheduler scheduler, int rung) {
        return rung >= 0 && rung < ceph_adapt_n_rungs(scheduler);
}

int ceph_adapt_rung_settings(CephScheduler scheduler, int rung, CephConfigOp **ret, size_t *ret_n, Error *err) {
        if (!rung_valid(scheduler, rung))
                return error_set(err, EINVAL, "throttle rung %d is not on the %s ladder (0..%d)", rung,
                                 scheduler == CEPH_SCHEDULER_WPQ ? "wpq" : "mClock",
                                 ceph_adapt_n_rungs(scheduler) - 1);
        const char *const *keys = ceph_adapt_keys(scheduler);
        size_t n = strv_length((char *const *) keys);
        CephConfigOp *ops = calloc(n, sizeof(CephConfigOp));
        if (!ops)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                ops[i].who = strdup("osd");
                ops[i].key = strdup(keys[i]);
                ops[i].value = strdup(rung_value(scheduler, rung, i));
                if (!ops[i].who || !ops[i].key || !ops[i].value) {
                        ceph_config_ops_free(ops, n);
                        return -ENOMEM;
                }
        }
        *ret = ops;
        *ret_n = n;
        return 0;
}

char *ceph_adapt_rung_change_format(CephScheduler scheduler, int from, int to) {
        if (!rung_valid(scheduler, from) || !rung_valid(scheduler, to))
                return NULL;
        const char *const *keys = ceph_adapt_keys(scheduler);
        if (from == to)
                return strprintf("%s %s", keys[0], rung_value(scheduler, to, 0));
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        bool first = true;
        for (size_t i = 0; keys[i]; i++) {
                const char *a = rung_value(scheduler, from, i), *b = rung_value(scheduler, to, i);
                if (streq(a, b))
                        continue;
                fprintf(f, "%s%s %s → %s", first ? "" : ", ", keys[i], a, b);
                first = false;
        }
        return ceph_memstream_done(f, &buf);
}

/* ---- the controller --------------------------------------------------------------- */

struct CephAdapt {
        CephAdaptConfig cfg;   /* resolved: no zero defaults left */
        CephLatencyWindow baseline;
        double target_ms, ceiling_ms;
        int floor;             /* the slow preset's rung within the bounds: the lowest without the brake */
        unsigned settle;       /* windows after a change of setting that are not counted */
        /* the horizon: windows at the current setting and load since it started (at most
         * cfg.horizon, a ring of each one's ops and ops over, errors included) */
        size_t *ring_n, *ring_over;
        double *ring_rate;
        unsigned ring_len, ring_pos;
        size_t h_n, h_over;
        unsigned h_windows;    /* windows counted in this horizon, not capped at cfg.horizon */
        unsigned *overruns;    /* per rung: its overruns at this load (lowers from it, brakes after a raise to it) */
        int rung;
        bool brake;
        int brake_point;       /* the rung the brake was put on at */
        bool paused;           /* the operator's pause: the brake on, no release while it lasts */
        bool over_ceiling;     /* the last window with a reading had an op past the ceiling:
                                * its p99 over it, or an op that failed or timed out */
        unsigned slow_run;     /* windows in a row with slow ops on refilled OSDs */
        unsigned untripped;    /* windows in a row without a trip (the release's count) */
        unsigned since_change; /* windows since the last change of rung or brake */
        size_t n_windows;
        /* the whole run's probe ops: at a rung (brake off, no trip), and in braked or tripped
         * windows (what the controller answered rather than caused) */
        size_t run_n, run_over, run_n_braked, run_over_braked;
        bool have_last;
        CephLatencyWindow last;
        CephAdaptAction last_action; /* of the last change (not hold) */
        char *last_reason;           /* of the last change, NULL before one */
};

static const char *const action_names[] = {
        [CEPH_ADAPT_HOLD] = "hold",
        [CEPH_ADAPT_RAISE] = "raise",
        [CEPH_ADAPT_LOWER] = "lower",
        [CEPH_ADAPT_BRAKE] = "brake",
        [CEPH_ADAPT_RELEASE] = "release",
};

const char *ceph_adapt_action_to_string(CephAdaptAction a) {
        return (size_t) a < ELEMENTSOF(action_names) ? action_names[a] : NULL;
}

void ceph_adapt_config_default(CephScheduler scheduler, CephAdaptConfig *ret) {
        *ret = (CephAdaptConfig) {
                .scheduler = scheduler,
                .target_factor = 2,
                .target_floor_ms = 2,
                .budget = 0.01,
                .confidence_z = 1.96,
                .horizon = 24,
                .dwell = 3,
                .slow_windows = 2,
                .load_change = 2,
                .window_sec = 5,
                .effect_lag_sec = 10,
                .min_ops = 20,
                .rung_min = 0,
                .rung_max = scheduler == CEPH_SCHEDULER_WPQ ? 4 : 2,
                .rung_start = ceph_adapt_slow_rung(scheduler),
        };
}

int ceph_adapt_slow_rung(CephScheduler scheduler) {
        return scheduler == CEPH_SCHEDULER_WPQ ? 1 : 0;
}

static void resolve(const CephAdaptConfig *in, CephAdaptConfig *out) {
        CephAdaptConfig d;
        ceph_adapt_config_default(in->scheduler, &d);
        *out = *in;
#define DEF(field) \
        if (out->field == 0) \
                out->field = d.field
        DEF(target_factor);
        DEF(target_floor_ms);
        DEF(budget);
        DEF(confidence_z);
        DEF(horizon);
        DEF(dwell);
        DEF(slow_windows);
        DEF(load_change);
        DEF(window_sec);
        DEF(effect_lag_sec);
        DEF(min_ops);
#undef DEF
        if (out->rung_min < 0)
                out->rung_min = d.rung_min;
        if (out->rung_max < 0)
                out->rung_max = d.rung_max;
        if (out->rung_start < 0)
                out->rung_start = MIN(MAX(d.rung_start, out->rung_min), out->rung_max);
}

CephAdapt *ceph_adapt_free(CephAdapt *a) {
        if (!a)
                return NULL;
        free(a->last_reason);
        free(a->ring_n);
        free(a->ring_over);
        free(a->ring_rate);
        free(a->overruns);
        free(a);
        return NULL;
}

int ceph_adapt_new(const CephAdaptConfig *cfg, const CephLatencyWindow *baseline, CephAdapt **ret, Error *err) {
        CephAdaptConfig c;
        resolve(cfg, &c);
        int top = ceph_adapt_n_rungs(c.scheduler) - 1;
        if (c.rung_min > top || c.rung_max > top)
                return error_set(err, EINVAL, "throttle: rung_min %d / rung_max %d: the %s ladder has rungs 0..%d",
                                 c.rung_min, c.rung_max, c.scheduler == CEPH_SCHEDULER_WPQ ? "wpq" : "mClock", top);
        if (c.rung_min > c.rung_max)
                return error_set(err, EINVAL, "throttle: rung_min %d is above rung_max %d", c.rung_min, c.rung_max);
        if (c.rung_start < c.rung_min || c.rung_start > c.rung_max)
                return error_set(err, EINVAL, "throttle: rung_start %d is outside rung_min..rung_max (%d..%d)",
                                 c.rung_start, c.rung_min, c.rung_max);
        if (!(c.budget > 0 && c.budget <= 0.5))
                return error_set(err, EINVAL, "throttle: budget %g is not a fraction of the ops in (0, 0.5]", c.budget);
        if (!(c.confidence_z > 0 && c.confidence_z <= 10))
                return error_set(err, EINVAL, "throttle: confidence z %g is not in (0, 10]", c.confidence_z);
        if (c.horizon > 10000 || c.dwell > 1000 || c.slow_windows > 1000 || !(c.load_change > 1))
                return error_set(err, EINVAL,
                                 "throttle: a horizon of %u windows, a dwell of %u, %u slow-op windows or a load "
                                 "change of %g × is out of bounds (1..10000, 1..1000, 1..1000, above 1)",
                                 c.horizon, c.dwell, c.slow_windows, c.load_change);
        if (!(c.window_sec > 0) || !(c.effect_lag_sec > 0) || !(c.target_factor >= 1) || c.target_floor_ms < 0 ||
            c.target_ms < 0 || c.ceiling_ms < 0)
                return error_set(err, EINVAL,
                                 "throttle: window %g s, effect lag %g s, target factor %g, target floor %g ms, "
                                 "target %g ms, ceiling %g ms: each must be positive (the factor at least 1)",
                                 c.window_sec, c.effect_lag_sec, c.target_factor, c.target_floor_ms, c.target_ms,
                                 c.ceiling_ms);

        double target = c.target_ms;
        if (target == 0) {
                if (!baseline || baseline->n < c.min_ops)
                        return error_set(err, EINVAL,
                                         "throttle: no p99 target given and the baseline has %zu probe ops "
                                         "(at least %zu needed to set one)",
                                         baseline ? baseline->n : 0, c.min_ops);
                target = MAX(baseline->p99_ms * c.target_factor, baseline->p99_ms + c.target_floor_ms);
        }
        double ceiling = c.ceiling_ms > 0 ? c.ceiling_ms : target * 3;
        if (!(ceiling > target))
                return error_set(err, EINVAL, "throttle: the ceiling %.1f ms is not above the target %.1f ms", ceiling,
                                 target);

        _cleanup_(ceph_adapt_freep) CephAdapt *a = calloc(1, sizeof(CephAdapt));
        if (!a || !(a->ring_n = calloc(c.horizon, sizeof(size_t))) ||
            !(a->ring_over = calloc(c.horizon, sizeof(size_t))) || !(a->ring_rate = calloc(c.horizon, sizeof(double))) ||
            !(a->overruns = calloc((size_t) ceph_adapt_n_rungs(c.scheduler), sizeof(unsigned))))
                return -ENOMEM;
        a->cfg = c;
        if (baseline)
                a->baseline = *baseline;
        a->target_ms = target;
        a->ceiling_ms = ceiling;
        a->floor = MIN(MAX(c.rung_min, ceph_adapt_slow_rung(c.scheduler)), c.rung_max);
        a->settle = (unsigned) ceil(c.effect_lag_sec / c.window_sec - 1e-9);
        /* never below the slow preset's rung without the brake */
        a->brake_point = MAX(c.rung_start, a->floor);
        if (c.start_braked) /* braked before: its release goes to the start rung */
                a->brake_point = MIN(a->brake_point + 1, c.rung_max + 1);
        a->rung = c.start_braked ? c.rung_min : a->brake_point;
        a->brake = c.start_braked;
        a->since_change = a->settle; /* the start rung has been in force since before the baseline */
        *ret = TAKE_PTR(a);
        return 0;
}

int ceph_adapt_rung(const CephAdapt *a) {
        return a->rung;
}

bool ceph_adapt_brake(const CephAdapt *a) {
        return a->brake;
}

/* where a release goes: the rung below the brake point, not below the slow preset's */
static int release_rung(const CephAdapt *a) {
        return MAX(a->floor, MIN(a->brake_point - 1, a->cfg.rung_max));
}

int ceph_adapt_end_rung(const CephAdapt *a) {
        return a->brake ? release_rung(a) : a->rung;
}

void ceph_adapt_set_paused(CephAdapt *a, bool paused) {
        a->paused = paused;
}

double ceph_adapt_target_ms(const CephAdapt *a) {
        return a->target_ms;
}

double ceph_adapt_ceiling_ms(const CephAdapt *a) {
        return a->ceiling_ms;
}

void ceph_adapt_decision_done(CephAdaptDecision *d) {
        if (!d)
                return;
        free(d->reason);
        d->reason = NULL;
}

void ceph_budget_bounds(size_t k, size_t n, double z, double *ret_lower, double *ret_upper) {
        if (n == 0) {
                *ret_lower = 0;
                *ret_upper = 1;
                return;
        }
        double nn = (double) n, p = (double) MIN(k, n) / nn, z2 = z * z;
        double centre = p + z2 / (2 * nn), half = z * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
        *ret_lower = MAX(0.0, (centre - half) / (1 + z2 / nn));
        *ret_upper = MIN(1.0, (centre + half) / (1 + z2 / nn));
}

/* "osd_max_backfills 3 → 1", or "osd_max_backfills 1" when the rung does not move */
static char *change(const CephAdapt *a, int to) {
        return ceph_adapt_rung_change_format(a->cfg.scheduler, a->rung, to);
}

/* Ops of `w` over the ceiling: counted from its largest latencies when they tell (it kept
 * all its ops, or fewer are over than it kept), else from its percentiles (p95 over: 5 % of
 * them; p99 over: 1 %), at least one when its p99 is over */
static size_t over_ceiling(const CephLatencyWindow *w, double ceiling) {
        if (w->n == 0)
                return 0;
        if (w->n_top > 0) {
                size_t c = ceph_latency_count_above(w->top_ms, w->n_top, ceiling);
                if (c < w->n_top || w->n_top >= w->n)
                        return c;
        }
        if (w->p95_ms > ceiling)
                return (w->n * 5 + 99) / 100;
        if (w->p99_ms > ceiling)
                return MAX((size_t) 1, (w->n + 99) / 100);
        return 0;
}

static void horizon_reset(CephAdapt *a) {
        a->ring_len = a->ring_pos = a->h_windows = 0;
        a->h_n = a->h_over = 0;
}

static double horizon_rate(const CephAdapt *a) {
        double s = 0;
        unsigned k = 0;
        for (unsigned i = 0; i < a->ring_len; i++)
                if (a->ring_rate[i] > 0) {
                        s += a->ring_rate[i];
                        k++;
                }
        return k ? s / k : 0;
}

static void horizon_add(CephAdapt *a, size_t n, size_t over, double rate) {
        if (a->ring_len == a->cfg.horizon) {
                a->h_n -= a->ring_n[a->ring_pos];
                a->h_over -= a->ring_over[a->ring_pos];
        } else
                a->ring_len++;
        a->ring_n[a->ring_pos] = n;
        a->ring_over[a->ring_pos] = over;
        a->ring_rate[a->ring_pos] = rate;
        a->ring_pos = (a->ring_pos + 1) % a->cfg.horizon;
        a->h_windows++;
        a->h_n += n;
        a->h_over += over;
}

/* The back-off of a raise to `rung`: the counted windows at the rung below it first, 0 when it
 * never overran the budget at this load, else the horizon, doubled at each overrun after the
 * first (at most 16 horizons). The bounds can say a rung is within the budget from its probe
 * ops; when the rung above overran it anyway, the raise back costs the effect lag and a window
 * or two over the budget each time, and a retry after every 4 clean windows spent a third of
 * a steady run there (the slo bench, 7 December): each retry waits longer. */
static unsigned raise_backoff(const CephAdapt *a, int rung) {
        unsigned k = a->overruns[rung];
        return k == 0 ? 0 : a->cfg.horizon << MIN(k - 1, 4u);
}

int ceph_adapt_step(CephAdapt *a, const CephLatencyWindow *w, unsigned slow_ops, CephAdaptDecision *ret,
                    Error *err) {
        (void) err;
        CephAdaptDecision d = {
                .action = CEPH_ADAPT_HOLD,
                .rung_before = a->rung,
                .rung_after = a->rung,
                .brake_before = a->brake,
                .brake_after = a->brake,
        };
        _cleanup_(freep) char *why = NULL, *what = NULL, *now = change(a, a->rung), *to = NULL, *reading = NULL;
        if (!now)
                return -ENOMEM;
        /* the new state, committed once every string is made */
        /* a peering window is not judged unless a probe op failed or timed out: the stall of
         * a peering is seconds (5 s in the lab), an op past the probe's timeout is more */
        const bool peering = w && w->peering && w->n_errors == 0;
        const unsigned slow_run = slow_ops > 0 && !peering ? a->slow_run + 1 : 0;
        /* an op past the ceiling in this window: its p99 over it, or an op that failed or
         * timed out (at queue depth 1 an op stuck on a slow OSD times out, and the window's
         * other ops are fast: its p99 does not show it) */
        const bool p99_over = w && ((w->n > 0 && w->p99_ms > a->ceiling_ms) || w->n_errors > 0);
        const size_t n = w ? w->n : 0, errors = w ? w->n_errors : 0, over = w ? MIN(w->n_over, w->n) + errors : 0;
        const size_t bad = w ? over_ceiling(w, a->ceiling_ms) + errors : 0, total = n + errors;
        /* the ceiling: what cannot be one late op — 2 ops and 5 % of the window over it or
         * failed, or an op past it two windows in a row */
        const bool ceiling_trip = !peering && ((bad >= 2 && bad * 20 >= total) || (p99_over && a->over_ceiling));
        const bool slow_trip = slow_run >= a->cfg.slow_windows;
        bool reset = false, counted = false;
        double lower = 0, upper = 1;
        size_t h_n = a->h_n, h_over = a->h_over;
        unsigned untripped = a->untripped;

        if (a->paused || slow_trip || ceiling_trip) {
                untripped = 0;
                if (a->paused)
                        why = strprintf("paused by the operator (cephprov pause)");
                else if (slow_trip)
                        why = strprintf("%u slow op%s on the OSDs being refilled, %u windows in a row", slow_ops,
                                        slow_ops == 1 ? "" : "s", slow_run);
                else if (bad >= 2 && bad * 20 >= total)
                        why = strprintf("%zu of %zu probe ops over the %.1f ms ceiling or failed (p99 %.1f ms)", bad,
                                        total, a->ceiling_ms, w->p99_ms);
                else if (w->n > 0 && w->p99_ms > a->ceiling_ms)
                        why = strprintf("p99 %.1f ms > %.1f ms ceiling, two windows in a row", w->p99_ms, a->ceiling_ms);
                else
                        why = strprintf("an op past the %.1f ms ceiling or failed, two windows in a row (%zu failed "
                                        "or timed out in this one)",
                                        a->ceiling_ms, errors);
                if (!a->brake) {
                        d.action = CEPH_ADAPT_BRAKE;
                        d.brake_after = true;
                        d.rung_after = a->cfg.rung_min;
                        if (d.rung_after != a->rung) {
                                if (!(to = change(a, d.rung_after)))
                                        return -ENOMEM;
                                what = strprintf("brake on (%s), %s", CEPH_ADAPT_BRAKE_FLAG, to);
                        } else
                                what = strprintf("brake on (%s)", CEPH_ADAPT_BRAKE_FLAG);
                } else
                        what = strprintf("the brake stays on");
        } else if (peering) {
                why = strprintf("p99 %.1f ms, %zu of %zu probe ops over the %.1f ms target, while PGs peered after OSDs "
                                "went out (the stall is the peering's)",
                                w->p99_ms, over, total, a->target_ms);
                what = strprintf("not judged (%s%s)", a->brake ? "the brake stays on, " : "", now);
        } else if (!w) {
                why = strprintf("no reading (the probe call failed)%s",
                                slow_ops ? "; slow ops on the OSDs being refilled, one window so far" : "");
                what = strprintf("holding (%s)", now);
        } else {
                untripped++;
                const double rate = w->client_ops_sec, h_rate = horizon_rate(a);
                _cleanup_(freep) char *load = NULL;
                if (rate > 0 && h_rate > 0 &&
                    (rate > h_rate * a->cfg.load_change || rate * a->cfg.load_change < h_rate)) {
                        reset = true;
                        h_n = h_over = 0;
                        if (!(load = strprintf("client load %.0f → %.0f op/s, the budget counted again from here; ",
                                               h_rate, rate)))
                                return -ENOMEM;
                }
                const bool settling = a->since_change + 1 <= a->settle && !a->brake;
                if (n >= a->cfg.min_ops && !settling) {
                        counted = true;
                        h_n += total;
                        h_over += over;
                        if (!reset && a->ring_len == a->cfg.horizon) {
                                size_t old = a->ring_pos;
                                h_n -= a->ring_n[old];
                                h_over -= a->ring_over[old];
                        }
                }
                ceph_budget_bounds(h_over, h_n, a->cfg.confidence_z, &lower, &upper);
                /* the raise's back-off (another load clears it) and this horizon's counted windows */
                const unsigned backoff = reset || a->rung >= a->cfg.rung_max ? 0 : raise_backoff(a, a->rung + 1);
                const unsigned h_win = (reset ? 0 : a->h_windows) + (counted ? 1 : 0);
                reading = strprintf("%sp99 %.1f ms, %zu of %zu op%s over the %.1f ms target%s; %zu of %zu over in "
                                    "this horizon, %.2f..%.2f %% at 95 %%, budget %g %%",
                                    load ? load : "", w->p99_ms, over, total, total == 1 ? "" : "s", a->target_ms,
                                    errors ? " (failed ones included)" : "", h_over, h_n, 100 * lower, 100 * upper,
                                    100 * a->cfg.budget);
                if (!reading)
                        return -ENOMEM;
                if (a->brake) {
                        why = TAKE_PTR(reading);
                        if (untripped >= a->cfg.dwell) {
                                d.action = CEPH_ADAPT_RELEASE;
                                d.brake_after = false;
                                d.rung_after = release_rung(a);
                                if (!(to = change(a, d.rung_after)))
                                        return -ENOMEM;
                                what = strprintf("%u windows without a trip: brake off (%s unset), %s (the rung below "
                                                 "the brake's %d)",
                                                 untripped, CEPH_ADAPT_BRAKE_FLAG, to, a->brake_point);
                        } else
                                what = strprintf("the brake stays on (%u of %u windows without a trip)", untripped,
                                                 a->cfg.dwell);
                } else if (n < a->cfg.min_ops) {
                        why = TAKE_PTR(reading);
                        what = strprintf("not judged: %zu probe op%s in the window (fewer than %zu) (%s)", n,
                                         n == 1 ? "" : "s", a->cfg.min_ops, now);
                } else if (settling) {
                        why = TAKE_PTR(reading);
                        what = strprintf("not counted: the last change is taking effect (%s)", now);
                } else if (lower > a->cfg.budget) {
                        why = TAKE_PTR(reading);
                        if (a->rung > a->floor) {
                                d.action = CEPH_ADAPT_LOWER;
                                d.rung_after = a->rung - 1;
                                what = change(a, d.rung_after);
                        } else
                                what = strprintf("over the budget at the slow preset's rung, the lowest without the "
                                                 "brake: holding (%s)",
                                                 now);
                } else if (upper < a->cfg.budget && a->rung < a->cfg.rung_max && h_win < backoff) {
                        why = TAKE_PTR(reading);
                        what = strprintf("within the budget, but rung %d overran it %u time%s at this load: a raise "
                                         "after %u counted windows here (%u so far) (%s)",
                                         a->rung + 1, a->overruns[a->rung + 1], a->overruns[a->rung + 1] == 1 ? "" : "s",
                                         backoff, h_win, now);
                } else if (upper < a->cfg.budget && a->rung < a->cfg.rung_max && backoff > 0 &&
                           upper >= a->cfg.budget / 2) {
                        /* a rung that overran the budget at this load overruns it again while
                         * the rung below uses over half of it (the slo bench's steady run of 7
                         * December: 9 of 2,400 probe ops over at rung 1, 0.20..0.71 %, then the
                         * raise back to rung 2 braked) */
                        why = TAKE_PTR(reading);
                        what = strprintf("within the budget, but rung %d overran it at this load and this rung may use "
                                         "over half of it (upper bound %.2f %% ≥ %g %%): holding (%s)",
                                         a->rung + 1, 100 * upper, 100 * a->cfg.budget / 2, now);
                } else if (upper < a->cfg.budget && a->rung < a->cfg.rung_max) {
                        why = TAKE_PTR(reading);
                        d.action = CEPH_ADAPT_RAISE;
                        d.rung_after = a->rung + 1;
                        what = change(a, d.rung_after);
                } else {
                        why = TAKE_PTR(reading);
                        what = a->rung >= a->cfg.rung_max && upper < a->cfg.budget
                                       ? strprintf("at the highest rung allowed (%s)", now)
                                       : strprintf("within the budget's bounds: holding (%s)", now);
                }
        }
        if (!why || !what)
                return -ENOMEM;
        if (a->cfg.pinned && d.action != CEPH_ADAPT_HOLD) {
                /* what it would have done, said, and not done */
                char *w2 = strprintf("pinned at rung %d, would %s (%s)", a->rung, ceph_adapt_action_to_string(d.action),
                                     what);
                if (!w2)
                        return -ENOMEM;
                free(what);
                what = w2;
                d.action = CEPH_ADAPT_HOLD;
                d.rung_after = a->rung;
                d.brake_after = a->brake;
                reset = false;
        }
        d.reason = strprintf("%s: %s", why, what);
        if (!d.reason)
                return -ENOMEM;

        /* an overrun of the rung it leaves: a lower for the budget, or a trip of the brake at a rung
         * raised to less than a horizon of counted windows ago (the raise did it; a pause does not) */
        const bool overrun = d.action == CEPH_ADAPT_LOWER ||
                             (d.action == CEPH_ADAPT_BRAKE && !a->paused && a->last_action == CEPH_ADAPT_RAISE &&
                              a->h_windows < a->cfg.horizon);
        bool changed = d.action != CEPH_ADAPT_HOLD;
        if (changed) {
                char *r = strdup(d.reason);
                if (!r) {
                        free(d.reason);
                        return -ENOMEM;
                }
                free(a->last_reason);
                a->last_reason = r;
                a->last_action = d.action;
        }
        if (reset) { /* another load: what overran at the last one may not at this */
                horizon_reset(a);
                memset(a->overruns, 0, (size_t) ceph_adapt_n_rungs(a->cfg.scheduler) * sizeof(unsigned));
        }
        if (overrun)
                a->overruns[d.rung_before]++;
        if (counted)
                horizon_add(a, total, over, w->client_ops_sec);
        if (changed)
                horizon_reset(a);
        if (d.action == CEPH_ADAPT_BRAKE)
                a->brake_point = a->rung;
        a->rung = d.rung_after;
        a->brake = d.brake_after;
        if (w) /* no reading says nothing of the ceiling, nor does a peering window */
                a->over_ceiling = p99_over && !peering;
        a->slow_run = slow_run;
        a->untripped = changed ? 0 : untripped;
        a->since_change = changed ? 0 : a->since_change + 1;
        a->n_windows++;
        if (w && (d.brake_before || d.action == CEPH_ADAPT_BRAKE || peering)) { /* not the rung's */
                a->run_n_braked += total;
                a->run_over_braked += over;
        } else if (w) {
                a->run_n += total;
                a->run_over += over;
        }
        if (w) {
                a->last = *w;
                a->have_last = true;
        }
        *ret = d;
        return 0;
}

unsigned ceph_adapt_refill_slow_ops(const CephHealth *health, const CephPgDump *pgs) {
        const CephHealthCheck *c = health ? ceph_health_find(health, "SLOW_OPS") : NULL;
        if (!c)
                return 0;
        unsigned count = c->count ? (unsigned) MIN(c->count, (uint64_t) UINT_MAX) : 1;
        CephOsdTree tree = {};
        _cleanup_(ceph_slow_report_freep) CephSlowReport *r = NULL;
        Error e = {};
        if (ceph_slow_report(health, NULL, &tree, NULL, &r, &e) < 0 || r->truncated)
                return count; /* the daemons cannot be told: the slow ops count */
        size_t named = 0;
        for (size_t i = 0; i < r->n_osds; i++) {
                if (!r->osds[i].slow_ops)
                        continue;
                named++;
                int id = r->osds[i].id;
                for (size_t p = 0; pgs && p < pgs->n_pgs; p++) {
                        const CephPgBrief *b = &pgs->pgs[p];
                        bool up = false, acting = false;
                        for (size_t k = 0; k < b->n_up; k++)
                                up |= b->up[k] == id;
                        for (size_t k = 0; k < b->n_acting; k++)
                                acting |= b->acting[k] == id;
                        if (up && !acting)
                                return count;
                }
        }
        return named == 0 && (!r->other_daemons || !r->other_daemons[0]) ? count : 0;
}

json_object *ceph_adapt_last_from_state(json_object *state) {
        const char *sched = NULL;
        int64_t rung = -1;
        json_object *v;
        if (!state || json_get_string(state, "scheduler", false, &sched, "throttle state", NULL) < 0 || !sched ||
            !json_object_object_get_ex(state, "end_rung", &v) || !json_object_is_type(v, json_type_int))
                return NULL;
        rung = json_object_get_int64(v);
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o || json_add_string(o, "scheduler", sched) < 0 || json_add_int(o, "rung", rung) < 0)
                return NULL;
        if (json_object_object_get_ex(state, "target_p99_ms", &v) &&
            json_add(o, "target_p99_ms", json_object_new_double(json_object_get_double(v))) < 0)
                return NULL;
        return TAKE_PTR(o);
}

int ceph_adapt_start_rung(json_object *last, const CephAdaptConfig *cfg) {
        CephAdaptConfig c;
        resolve(cfg, &c);
        const char *sched = NULL;
        json_object *v;
        if (!last || json_get_string(last, "scheduler", false, &sched, "throttle-last", NULL) < 0 || !sched ||
            !streq(sched, c.scheduler == CEPH_SCHEDULER_WPQ ? "wpq" : "mclock") ||
            !json_object_object_get_ex(last, "rung", &v) || !json_object_is_type(v, json_type_int))
                return c.rung_start;
        int64_t r = json_object_get_int64(v);
        int floor = MIN(MAX(c.rung_min, ceph_adapt_slow_rung(c.scheduler)), c.rung_max);
        return (int) MAX((int64_t) floor, MIN(r, (int64_t) c.rung_max));
}

static json_object *window_to_json(const CephLatencyWindow *w) {
        json_object *o = json_object_new_object();
        if (!o)
                return NULL;
        if (json_add_u64(o, "ops", w->n) < 0 || json_add_u64(o, "errors", w->n_errors) < 0 ||
            json_add_u64(o, "over_target", w->n_over) < 0 ||
            json_add(o, "p50_ms", json_object_new_double(w->p50_ms)) < 0 ||
            json_add(o, "p95_ms", json_object_new_double(w->p95_ms)) < 0 ||
            json_add(o, "p99_ms", json_object_new_double(w->p99_ms)) < 0 ||
            json_add(o, "max_ms", json_object_new_double(w->max_ms)) < 0 ||
            (w->client_ops_sec > 0 && json_add(o, "client_ops_sec", json_object_new_double(w->client_ops_sec)) < 0)) {
                json_object_put(o);
                return NULL;
        }
        return o;
}

/* json_add, or a JSON null when `value` is NULL because there is nothing to say */
static int add_or_null(json_object *o, const char *key, bool present, json_object *value) {
        if (!present)
                return json_object_object_add(o, key, NULL) < 0 ? -ENOMEM : 0;
        return json_add(o, key, value);
}

json_object *ceph_adapt_to_json(const CephAdapt *a) {
        _cleanup_(json_object_putp) json_object *o = json_object_new_object();
        _cleanup_(freep) char *setting = change(a, a->rung);
        if (!o || !setting)
                return NULL;
        json_object *settings = json_object_new_object();
        if (json_add(o, "settings", settings) < 0)
                return NULL;
        const char *const *keys = ceph_adapt_keys(a->cfg.scheduler);
        for (size_t i = 0; keys[i]; i++)
                if (json_add_string(settings, keys[i], rung_value(a->cfg.scheduler, a->rung, i)) < 0)
                        return NULL;
        double lower, upper;
        ceph_budget_bounds(a->h_over, a->h_n, a->cfg.confidence_z, &lower, &upper);
        if (json_add_string(o, "scheduler", a->cfg.scheduler == CEPH_SCHEDULER_WPQ ? "wpq" : "mclock") < 0 ||
            json_add_int(o, "rung", a->rung) < 0 || json_add_int(o, "rung_min", a->cfg.rung_min) < 0 ||
            json_add_int(o, "rung_floor", a->floor) < 0 || json_add_int(o, "rung_max", a->cfg.rung_max) < 0 ||
            json_add_int(o, "end_rung", ceph_adapt_end_rung(a)) < 0 || json_add_string(o, "setting", setting) < 0 ||
            json_add_bool(o, "brake", a->brake) < 0 || json_add_bool(o, "paused", a->paused) < 0 ||
            json_add(o, "target_p99_ms", json_object_new_double(a->target_ms)) < 0 ||
            json_add(o, "budget", json_object_new_double(a->cfg.budget)) < 0 ||
            json_add_u64(o, "horizon_windows", a->ring_len) < 0 || json_add_u64(o, "horizon_ops", a->h_n) < 0 ||
            json_add_u64(o, "horizon_over", a->h_over) < 0 ||
            json_add(o, "horizon_lower", json_object_new_double(lower)) < 0 ||
            json_add(o, "horizon_upper", json_object_new_double(upper)) < 0 ||
            json_add(o, "ceiling_p99_ms", json_object_new_double(a->ceiling_ms)) < 0 ||
            json_add_u64(o, "run_ops", a->run_n) < 0 || json_add_u64(o, "run_over", a->run_over) < 0 ||
            json_add_u64(o, "run_ops_braked", a->run_n_braked) < 0 ||
            json_add_u64(o, "run_over_braked", a->run_over_braked) < 0 ||
            json_add(o, "baseline", window_to_json(&a->baseline)) < 0 ||
            add_or_null(o, "last_window", a->have_last, a->have_last ? window_to_json(&a->last) : NULL) < 0 ||
            json_add_u64(o, "windows", a->n_windows) < 0 ||
            add_or_null(o, "last_change", a->last_reason,
                        a->last_reason ? json_object_new_string(ceph_adapt_action_to_string(a->last_action))
                                       : NULL) < 0 ||
            add_or_null(o, "last_change_reason", a->last_reason,
                        a->last_reason ? json_object_new_string(a->last_reason) : NULL) < 0)
                return NULL;
        return TAKE_PTR(o);
}

char *ceph_adapt_run_summary(json_object *state) {
        uint64_t n = 0, over = 0, nb = 0, ob = 0;
        json_object *t, *b;
        if (!state || json_get_u64(state, "run_ops", true, &n, "throttle state", NULL) < 0 ||
            json_get_u64(state, "run_over", true, &over, "throttle state", NULL) < 0 ||
            json_get_u64(state, "run_ops_braked", true, &nb, "throttle state", NULL) < 0 ||
            json_get_u64(state, "run_over_braked", true, &ob, "throttle state", NULL) < 0 ||
            !json_object_object_get_ex(state, "target_p99_ms", &t) || !json_object_object_get_ex(state, "budget", &b))
                return NULL;
        return strprintf("the SLO over the run: %" PRIu64 " of %" PRIu64 " probe ops over the %.1f ms target at a rung "
                         "(%.2f %%, budget %g %%); %" PRIu64 " of %" PRIu64 " in braked, tripped or peering windows",
                         over, n, json_object_get_double(t), n ? 100.0 * (double) over / (double) n : 0.0,
                         100 * json_object_get_double(b), ob, nb);
}

/* ---- the restore record ----------------------------------------------------------- */

static int op_dup(CephConfigOp *op, const char *key, const char *value) {
        op->who = strdup("osd");
        op->key = strdup(key);
        op->value = value ? strdup(value) : NULL;
        return op->who && op->key && (!value || op->value) ? 0 : -ENOMEM;
}

int ceph_adapt_plan(CephScheduler scheduler, int rung, const CephConfigDump *before, CephThrottlePlan **ret,
                    Error *err) {
        if (!before)
                return error_set(err, EINVAL, "throttle: the config dump taken before is needed to restore");
        _cleanup_(ceph_throttle_plan_freep) CephThrottlePlan *p = calloc(1, sizeof(CephThrottlePlan));
        if (!p || !(p->warnings = calloc(1, sizeof(char *))))
                return -ENOMEM;
        p->preset = CEPH_THROTTLE_SLOW; /* the nearest fixed preset: the rungs start there */
        p->scheduler = scheduler;
        int r = ceph_adapt_rung_settings(scheduler, rung, &p->apply, &p->n_apply, err);
        if (r < 0)
                return r;
        const char *const *keys = ceph_adapt_keys(scheduler);
        size_t n = strv_length((char *const *) keys);
        if (!(p->restore = calloc(n, sizeof(CephConfigOp))))
                return -ENOMEM;
        for (size_t i = n; i-- > 0;) {
                const CephConfigEntry *e = ceph_config_dump_find(before, "osd", keys[i]);
                if (op_dup(&p->restore[p->n_restore++], keys[i], e ? e->value : NULL) < 0)
                        return -ENOMEM;
        }
        /* entries more specific than "osd" win over every rung */
        for (size_t i = 0; i < before->n_entries; i++) {
                const CephConfigEntry *e = &before->entries[i];
                if (!strv_contains((char *const *) keys, e->name) || (streq(e->section, "osd") && !e->mask))
                        continue;
                if (strv_consume(&p->warnings, strprintf("%s%s%s has its own %s = %s, which the adaptive throttle "
                                                         "does not change",
                                                         e->section, e->mask ? "/" : "", e->mask ? e->mask : "",
                                                         e->name, e->value)) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(p);
        return 0;
}
