/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The adaptive throttle's decision rule: probe windows in, rung and brake out (ceph-adapt.h). */

#include <errno.h>
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
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* ---- the controller --------------------------------------------------------------- */

struct CephAdapt {
        CephAdaptConfig cfg;   /* resolved: no zero defaults left */
        CephLatencyWindow baseline;
        double target_ms, ceiling_ms;
        double base_target_ms; /* the target before the anchor (the baseline's, or the given one) */
        bool ceiling_given;    /* cfg.ceiling_ms was set: the anchor does not move it */
        /* the error budget's horizon: the last windows (a ring of cfg.horizon; each one's
         * n_over is its count against the target in force, counted again when the anchor
         * raises the target) and their sums */
        CephLatencyWindow *ring;
        unsigned ring_len, ring_pos;
        size_t h_n, h_over;
        int rung;
        bool brake;
        bool paused;           /* the operator's pause: the brake on, no release while it lasts */
        bool over_ceiling;     /* the last window's p99 was over the ceiling */
        unsigned calm;         /* calm windows in a row (at most budget × (1 − hysteresis) over) */
        unsigned since_change; /* windows since the last change of rung or brake */
        size_t n_windows;
        bool have_last;
        CephLatencyWindow last;
        CephAdaptAction last_action; /* of the last change (not hold) */
        char *last_reason;           /* of the last change, NULL before one */
        /* the anchor to the slow preset (ceph-adapt.h) */
        CephAdaptAnchor anchor;
        int slow_rung;
        unsigned anchor_n_windows; /* windows pooled so far */
        size_t anchor_n;           /* their ops */
        double anchor_p99_sum;     /* Σ ops × p99 of each (the estimate when the tops fall short) */
        bool anchor_tops_complete; /* every pooled window carried its largest latencies */
        double *anchor_top;        /* their largest latencies (anchor_windows × CEPH_LATENCY_TOP) */
        size_t anchor_n_top;
        double slow_p99_ms;        /* the pooled p99, once set */
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
                .target_factor = 1.5,
                .target_floor_ms = 2,
                .hysteresis = 0.2,
                .budget = 0.01,
                .horizon = 12,
                .grace_ops = 2,
                .decrease = 0.5,
                .dwell = 3,
                .window_sec = 5,
                .effect_lag_sec = 10,
                .min_ops = 20,
                .rung_min = 0,
                .rung_max = scheduler == CEPH_SCHEDULER_WPQ ? 4 : 2,
                .rung_start = ceph_adapt_slow_rung(scheduler),
                .anchor_windows = 3,
                .anchor_factor = 1.05,
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
        DEF(hysteresis);
        DEF(budget);
        DEF(horizon);
        DEF(grace_ops);
        DEF(decrease);
        DEF(dwell);
        DEF(window_sec);
        DEF(effect_lag_sec);
        DEF(min_ops);
        DEF(anchor_windows);
        DEF(anchor_factor);
#undef DEF
        if (out->rung_min < 0)
                out->rung_min = d.rung_min;
        if (out->rung_max < 0)
                out->rung_max = d.rung_max;
        if (out->rung_start < 0)
                out->rung_start = MAX(d.rung_start, out->rung_min);
}

CephAdapt *ceph_adapt_free(CephAdapt *a) {
        if (!a)
                return NULL;
        free(a->last_reason);
        free(a->ring);
        free(a->anchor_top);
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
        if (!(c.hysteresis > 0 && c.hysteresis < 1))
                return error_set(err, EINVAL, "throttle: hysteresis %g is not between 0 and 1", c.hysteresis);
        if (!(c.decrease > 0 && c.decrease < 1))
                return error_set(err, EINVAL, "throttle: decrease %g is not between 0 and 1", c.decrease);
        if (!(c.budget > 0 && c.budget <= 0.5))
                return error_set(err, EINVAL, "throttle: budget %g is not a fraction of the ops in (0, 0.5]", c.budget);
        if (c.horizon > 10000 || !(c.grace_ops >= 0))
                return error_set(err, EINVAL, "throttle: a horizon of %u windows or a grace of %g ops is out of bounds "
                                 "(1..10000 windows, grace at least 0)", c.horizon, c.grace_ops);
        if (!(c.window_sec > 0) || !(c.effect_lag_sec > 0) || !(c.target_factor >= 1) || c.target_floor_ms < 0 ||
            c.target_ms < 0 || c.ceiling_ms < 0)
                return error_set(err, EINVAL,
                                 "throttle: window %g s, effect lag %g s, target factor %g, target floor %g ms, "
                                 "target %g ms, ceiling %g ms: each must be positive (the factor at least 1)",
                                 c.window_sec, c.effect_lag_sec, c.target_factor, c.target_floor_ms, c.target_ms,
                                 c.ceiling_ms);
        if (c.anchor_windows > 1000 || !(c.anchor_factor >= 1 && c.anchor_factor <= 10))
                return error_set(err, EINVAL,
                                 "throttle: an anchor of %u windows or an anchor factor of %g is out of bounds "
                                 "(1..1000 windows, factor 1..10)", c.anchor_windows, c.anchor_factor);
        if (!((double) c.dwell * c.window_sec > c.effect_lag_sec))
                return error_set(err, EINVAL,
                                 "throttle: a dwell of %u windows of %g s (%g s) is not longer than the knobs' "
                                 "effect lag of %g s: a change would be judged before it acts",
                                 c.dwell, c.window_sec, (double) c.dwell * c.window_sec, c.effect_lag_sec);

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
        if (!a || !(a->ring = calloc(c.horizon, sizeof(CephLatencyWindow))))
                return -ENOMEM;
        a->cfg = c;
        if (baseline)
                a->baseline = *baseline;
        a->target_ms = a->base_target_ms = target;
        a->ceiling_ms = ceiling;
        a->ceiling_given = c.ceiling_ms > 0;
        a->slow_rung = ceph_adapt_slow_rung(c.scheduler);
        if (!c.no_anchor && c.target_ms == 0 && c.rung_start == a->slow_rung) {
                if (!(a->anchor_top = calloc((size_t) c.anchor_windows * CEPH_LATENCY_TOP, sizeof(double))))
                        return -ENOMEM;
                a->anchor = CEPH_ADAPT_ANCHOR_PENDING;
                a->anchor_tops_complete = true;
        }
        a->rung = c.start_braked ? c.rung_min : c.rung_start;
        a->brake = c.start_braked;
        a->since_change = c.dwell; /* the start rung has been in force since before the baseline */
        *ret = TAKE_PTR(a);
        return 0;
}

int ceph_adapt_rung(const CephAdapt *a) {
        return a->rung;
}

bool ceph_adapt_brake(const CephAdapt *a) {
        return a->brake;
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

CephAdaptAnchor ceph_adapt_anchor(const CephAdapt *a) {
        return a->anchor;
}

double ceph_adapt_slow_p99_ms(const CephAdapt *a) {
        return a->slow_p99_ms;
}

void ceph_adapt_decision_done(CephAdaptDecision *d) {
        if (!d)
                return;
        free(d->reason);
        d->reason = NULL;
}

/* "osd_max_backfills 3 → 1", or "osd_max_backfills 1" when the rung does not move */
static char *change(const CephAdapt *a, int to) {
        return ceph_adapt_rung_change_format(a->cfg.scheduler, a->rung, to);
}

static int lowered(const CephAdapt *a) {
        int r = (int) floor((double) a->rung * a->cfg.decrease);
        return MAX(a->cfg.rung_min, MIN(r, a->rung - 1));
}

static int double_cmp_desc(const void *a, const void *b) {
        return double_cmp(b, a);
}

/* The ops of `w` over `limit_ms`, a target at least the one they were counted against: from
 * its largest latencies when they tell (it kept all its ops, or fewer of them are over than
 * it kept), else its count as it was (never more than that: the limit is not lower) */
static size_t recount_over(const CephLatencyWindow *w, double limit_ms) {
        size_t over = MIN(w->n_over, w->n);
        if (w->n_top == 0)
                return over;
        size_t c = ceph_latency_count_above(w->top_ms, w->n_top, limit_ms);
        return c < w->n_top || w->n_top >= w->n ? MIN(c, over) : over;
}

/* The ring's windows from the newest back: i = 1 is the last one judged */
static const CephLatencyWindow *ring_back(const CephAdapt *a, unsigned i) {
        return &a->ring[(a->ring_pos + a->cfg.horizon - i) % a->cfg.horizon];
}

/* The anchor's measurement (ceph-adapt.h): the pooled nearest-rank p99 of the windows taken
 * at the slow rung. Exact from their largest latencies while that op's rank from the top is
 * within what each window kept (up to 100 × CEPH_LATENCY_TOP ops); otherwise (a caller
 * without them) the ops-weighted mean of the windows' p99s. The pool's order changes. */
static double anchor_p99(CephAdapt *a, size_t n, size_t n_top, double p99_sum, bool complete, bool *ret_exact) {
        size_t from_top = n - (99 * n + 99) / 100 + 1; /* n − ⌈0.99 n⌉ + 1 */
        if (complete && from_top <= CEPH_LATENCY_TOP && from_top <= n_top) {
                qsort(a->anchor_top, n_top, sizeof(double), double_cmp_desc);
                *ret_exact = true;
                return a->anchor_top[from_top - 1];
        }
        *ret_exact = false;
        return n ? p99_sum / (double) n : 0;
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
                .target_before = a->target_ms,
                .target_after = a->target_ms,
        };
        _cleanup_(freep) char *why = NULL, *what = NULL, *now = change(a, a->rung), *to = NULL, *note = NULL;
        if (!now)
                return -ENOMEM;
        unsigned calm = 0;
        const double p99 = w->p99_ms;
        size_t over = MIN(w->n_over, w->n);
        /* this window joins the horizon (every window: the brake's and a thin one's ops are
         * what clients saw too); the ring is updated only once the decision is made */
        const bool evict = a->ring_len == a->cfg.horizon;
        size_t h_n = a->h_n + w->n, h_over = a->h_over + over;
        if (evict) {
                h_n -= a->ring[a->ring_pos].n;
                h_over -= a->ring[a->ring_pos].n_over;
        }
        const unsigned h_windows = MIN(a->ring_len + 1, a->cfg.horizon);
        /* the anchor, committed with the rest once the decision is made */
        bool pending = a->anchor == CEPH_ADAPT_ANCHOR_PENDING, taken = false, anchored = false;
        unsigned an_windows = a->anchor_n_windows;
        size_t an_n = a->anchor_n, an_top = a->anchor_n_top;
        double an_sum = a->anchor_p99_sum, new_target = a->target_ms, new_ceiling = a->ceiling_ms, slow_p99 = 0;
        bool an_complete = a->anchor_tops_complete;

        /* the ceiling brakes on what cannot be one slow op: a window's p95 over it (5 % of its
         * ops), its p99 over it two windows in a row, or a thin window with an op over it. A
         * window's p99 alone is its second-largest op at the ~150 ops a slowed lab gives a
         * window: it passes the ceiling every minute or two at any rung, the slow preset's
         * too, and each brake costs its dwell and the climb back (stop 20's benchmark) */
        const bool p99_over = w->n > 0 && p99 > a->ceiling_ms;
        const bool ceiling_trip = p99_over && (w->p95_ms > a->ceiling_ms || a->over_ceiling || w->n < a->cfg.min_ops);
        if (a->paused || slow_ops > 0 || w->n_errors > 0 || ceiling_trip) {
                if (a->paused)
                        why = strprintf("paused by the operator (cephprov pause)");
                else if (slow_ops > 0)
                        why = strprintf("%u slow op%s", slow_ops, slow_ops == 1 ? "" : "s");
                else if (w->n_errors > 0)
                        why = w->n > 0 ? strprintf("%zu probe op%s failed or timed out (p99 %.1f ms over %zu ops)", w->n_errors,
                                                   w->n_errors == 1 ? "" : "s", p99, w->n)
                                       : strprintf("%zu probe op%s failed or timed out", w->n_errors,
                                                   w->n_errors == 1 ? "" : "s");
                else if (w->p95_ms > a->ceiling_ms)
                        why = strprintf("p95 %.1f ms > %.1f ms ceiling", w->p95_ms, a->ceiling_ms);
                else if (a->over_ceiling)
                        why = strprintf("p99 %.1f ms > %.1f ms ceiling, two windows in a row", p99, a->ceiling_ms);
                else
                        why = strprintf("p99 %.1f ms > %.1f ms ceiling in a window of %zu op%s", p99, a->ceiling_ms,
                                        w->n, w->n == 1 ? "" : "s");
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
        } else if (w->n < a->cfg.min_ops) {
                why = strprintf("%zu probe op%s in the window (fewer than %zu)", w->n, w->n == 1 ? "" : "s",
                                a->cfg.min_ops);
                what = strprintf("not judged (%s)", now);
        } else {
                const double calm_share = a->cfg.budget * (1 - a->cfg.hysteresis);
                unsigned prev_calm = a->calm;
                /* the anchor takes a judged window at the slow rung, brake off, once the rung
                 * has been in force a whole window (not the run's first: data starts moving
                 * after the steps that follow `throttle`) */
                if (pending && a->rung == a->slow_rung && !a->brake && a->n_windows >= 1 && a->since_change >= 1) {
                        taken = true;
                        an_windows++;
                        an_n += w->n;
                        an_sum += (double) w->n * p99;
                        size_t k = MIN(w->n_top, (size_t) CEPH_LATENCY_TOP);
                        an_complete = an_complete && w->n_top == MIN(w->n, (size_t) CEPH_LATENCY_TOP);
                        memcpy(a->anchor_top + an_top, w->top_ms, k * sizeof(double));
                        an_top += k;
                }
                if (taken && an_windows >= a->cfg.anchor_windows) {
                        bool exact = false;
                        anchored = true;
                        pending = false;
                        slow_p99 = anchor_p99(a, an_n, an_top, an_sum, an_complete, &exact);
                        const double cand = slow_p99 * a->cfg.anchor_factor;
                        _cleanup_(freep) char *measured = strprintf(
                                "the slow preset's p99 is %s%.1f ms over %u windows (%zu ops)", exact ? "" : "about ",
                                slow_p99, an_windows, an_n);
                        if (!measured)
                                return -ENOMEM;
                        if (!(cand > a->target_ms))
                                note = strprintf("%s; × %g = %.1f ms is not above the %.1f ms target, which stays",
                                                 measured, a->cfg.anchor_factor, cand, a->target_ms);
                        else if (a->ceiling_given && !(cand < a->ceiling_ms))
                                note = strprintf("%s; × %g = %.1f ms is not below the %.1f ms ceiling: the %.1f ms "
                                                 "target stays",
                                                 measured, a->cfg.anchor_factor, cand, a->ceiling_ms, a->target_ms);
                        else {
                                new_target = cand;
                                if (!a->ceiling_given)
                                        new_ceiling = 3 * cand;
                                note = new_ceiling != a->ceiling_ms
                                               ? strprintf("%s: target %.1f → %.1f ms (× %g), ceiling %.1f → %.1f ms",
                                                           measured, a->target_ms, new_target, a->cfg.anchor_factor,
                                                           a->ceiling_ms, new_ceiling)
                                               : strprintf("%s: target %.1f → %.1f ms (× %g)", measured, a->target_ms,
                                                           new_target, a->cfg.anchor_factor);
                        }
                        if (!note)
                                return -ENOMEM;
                        if (new_target != a->target_ms) {
                                /* the horizon and the calm windows in a row, against the new target */
                                over = recount_over(w, new_target);
                                h_over = over;
                                for (unsigned i = 1; i <= a->ring_len - (evict ? 1 : 0); i++)
                                        h_over += recount_over(ring_back(a, i), new_target);
                                prev_calm = 0;
                                for (unsigned i = 1; i <= MIN(a->since_change, a->ring_len); i++) {
                                        const CephLatencyWindow *x = ring_back(a, i);
                                        if (x->n < a->cfg.min_ops || x->n_errors > 0 ||
                                            (double) recount_over(x, new_target) > calm_share * (double) x->n)
                                                break;
                                        prev_calm++;
                                }
                        }
                }
                const double target = new_target, allowed = a->cfg.budget * (double) h_n;
                /* before the anchor, below the slow rung only trips count: back to the slow
                 * rung to measure it */
                const bool untrusted = pending && !a->brake && a->rung < a->slow_rung;
                const bool window_calm = untrusted || (double) over <= calm_share * (double) w->n;
                const bool horizon_calm = untrusted || (double) h_over <= calm_share * (double) h_n;
                _cleanup_(freep) char *reading = strprintf(
                        "p99 %.1f ms, %zu of %zu op%s over the %.1f ms target; %zu of %zu (%.1f %%) in the last %u "
                        "window%s, budget %g %%",
                        p99, over, w->n, w->n == 1 ? "" : "s", target, h_over, h_n,
                        h_n ? 100.0 * (double) h_over / (double) h_n : 0.0, h_windows, h_windows == 1 ? "" : "s",
                        100 * a->cfg.budget);
                if (!reading)
                        return -ENOMEM;
                if (!untrusted && over > 0 && (double) h_over > allowed + a->cfg.grace_ops) {
                        why = TAKE_PTR(reading);
                        if (a->brake)
                                what = strprintf("the brake stays on");
                        else if (pending && a->rung <= a->slow_rung)
                                what = taken ? strprintf("measuring the slow preset's p99 before the target is trusted "
                                                         "below it (window %u of %u): holding (%s)",
                                                         an_windows, a->cfg.anchor_windows, now)
                                             : strprintf("the slow preset's p99 is measured from the next window "
                                                         "before the target is trusted below it: holding (%s)",
                                                         now);
                        else if (a->rung > a->cfg.rung_min) {
                                d.action = CEPH_ADAPT_LOWER;
                                d.rung_after = pending ? MAX(lowered(a), a->slow_rung) : lowered(a);
                                if (!(to = change(a, d.rung_after)))
                                        return -ENOMEM;
                                what = pending && d.rung_after != lowered(a)
                                               ? strprintf("%s (not below the slow preset before its p99 is measured)", to)
                                               : strdup(to);
                        } else
                                what = strprintf("already at the lowest rung (%s)", now);
                } else if (!window_calm) {
                        why = TAKE_PTR(reading);
                        what = strprintf("within the budget: holding (%s)", now);
                } else {
                        calm = prev_calm + 1;
                        why = untrusted ? strprintf("%s; %u window%s without a trip below the slow preset, whose p99 "
                                                    "is not measured yet",
                                                    reading, calm, calm == 1 ? "" : "s")
                                        : strprintf("%s; %u calm window%s", reading, calm, calm == 1 ? "" : "s");
                        bool settled = calm >= a->cfg.dwell && a->since_change + 1 >= a->cfg.dwell;
                        if (a->brake && settled) {
                                d.action = CEPH_ADAPT_RELEASE;
                                d.brake_after = false;
                                what = strprintf("brake off (%s unset), %s", CEPH_ADAPT_BRAKE_FLAG, now);
                        } else if (!a->brake && a->rung >= a->cfg.rung_max)
                                what = strprintf("at the highest rung allowed (%s)", now);
                        else if (!a->brake && settled && horizon_calm) {
                                d.action = CEPH_ADAPT_RAISE;
                                d.rung_after = a->rung + 1;
                                what = change(a, d.rung_after);
                        } else if (!a->brake && settled)
                                what = strprintf("holding until the last %u windows are under %g %% (%s)",
                                                 a->cfg.horizon, 100 * calm_share, now);
                        else if (taken && pending)
                                what = strprintf("measuring the slow preset's p99 (window %u of %u); waiting for %u "
                                                 "calm windows in a row",
                                                 an_windows, a->cfg.anchor_windows, a->cfg.dwell);
                        else if (untrusted)
                                what = strprintf("waiting for %u in a row", a->cfg.dwell);
                        else
                                what = strprintf("waiting for %u calm window%s in a row", a->cfg.dwell,
                                                 a->cfg.dwell == 1 ? "" : "s");
                }
        }
        if (!why || !what)
                return -ENOMEM;
        d.reason = note ? strprintf("%s; %s: %s", note, why, what) : strprintf("%s: %s", why, what);
        if (!d.reason)
                return -ENOMEM;

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
        if (taken) {
                a->anchor_n_windows = an_windows;
                a->anchor_n = an_n;
                a->anchor_n_top = an_top;
                a->anchor_p99_sum = an_sum;
                a->anchor_tops_complete = an_complete;
        }
        if (anchored) {
                a->anchor = CEPH_ADAPT_ANCHOR_SET;
                a->slow_p99_ms = slow_p99;
                if (new_target != a->target_ms)
                        for (unsigned i = 1; i <= a->ring_len; i++) {
                                CephLatencyWindow *x = &a->ring[(a->ring_pos + a->cfg.horizon - i) % a->cfg.horizon];
                                x->n_over = recount_over(x, new_target);
                        }
                a->target_ms = new_target;
                a->ceiling_ms = new_ceiling;
                d.anchored = true;
                d.target_after = new_target;
        }
        a->ring[a->ring_pos] = *w;
        a->ring[a->ring_pos].n_over = over;
        a->ring_pos = (a->ring_pos + 1) % a->cfg.horizon;
        a->ring_len = h_windows;
        a->h_n = h_n;
        a->h_over = h_over;
        a->rung = d.rung_after;
        a->brake = d.brake_after;
        a->over_ceiling = p99_over;
        a->calm = changed ? 0 : calm;
        a->since_change = changed ? 0 : a->since_change + 1;
        a->n_windows++;
        a->last = *w;
        a->have_last = true;
        *ret = d;
        return 0;
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
            json_add(o, "max_ms", json_object_new_double(w->max_ms)) < 0) {
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

static const char *const anchor_names[] = {
        [CEPH_ADAPT_ANCHOR_OFF] = "off",
        [CEPH_ADAPT_ANCHOR_PENDING] = "pending",
        [CEPH_ADAPT_ANCHOR_SET] = "set",
};

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
        if (json_add_string(o, "scheduler", a->cfg.scheduler == CEPH_SCHEDULER_WPQ ? "wpq" : "mclock") < 0 ||
            json_add_int(o, "rung", a->rung) < 0 || json_add_int(o, "rung_min", a->cfg.rung_min) < 0 ||
            json_add_int(o, "rung_max", a->cfg.rung_max) < 0 || json_add_string(o, "setting", setting) < 0 ||
            json_add_bool(o, "brake", a->brake) < 0 || json_add_bool(o, "paused", a->paused) < 0 ||
            json_add(o, "target_p99_ms", json_object_new_double(a->target_ms)) < 0 ||
            json_add(o, "budget", json_object_new_double(a->cfg.budget)) < 0 ||
            json_add_u64(o, "horizon_windows", a->ring_len) < 0 || json_add_u64(o, "horizon_ops", a->h_n) < 0 ||
            json_add_u64(o, "horizon_over", a->h_over) < 0 ||
            json_add(o, "ceiling_p99_ms", json_object_new_double(a->ceiling_ms)) < 0 ||
            json_add_string(o, "anchor", anchor_names[a->anchor]) < 0 ||
            add_or_null(o, "slow_p99_ms", a->anchor == CEPH_ADAPT_ANCHOR_SET,
                        a->anchor == CEPH_ADAPT_ANCHOR_SET ? json_object_new_double(a->slow_p99_ms) : NULL) < 0 ||
            json_add(o, "baseline_target_p99_ms", json_object_new_double(a->base_target_ms)) < 0 ||
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
