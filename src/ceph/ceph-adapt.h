/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The adaptive backfill throttle's decision rule (issue 12): from one probe window of client
 * latency at a time (4 KiB ops at queue depth 1 on objects that cover the moving OSDs) and
 * the SLOW_OPS tripwire, decide whether to raise the backfill knobs a rung, lower them, put
 * the brake on or take it off. Pure: no I/O and no clock — the caller samples, applies the
 * rung's `config set` operations and the brake flag, and logs the reason.
 *
 * The rule (docs/ceph.md "The adaptive throttle"):
 *   - a window with an op error or timeout, slow ops, or over the ceiling — its p95 above
 *     it (5 % of its ops), its p99 above it two windows in a row, or a thin window (fewer
 *     than `min_ops`) with its p99 above it — puts the brake on (`osd set nobackfill`:
 *     lowering a limit does not pre-empt reservations already granted) and drops to the
 *     lowest rung. One window's p99 alone is not enough: at ~150 ops a window it is the
 *     second-largest op, and single slow ops pass the ceiling every minute or two at any
 *     rung (a window like that still counts against the error budget below);
 *   - the rest steers by an error budget: p99 ≤ target means at most `budget` (1 %) of the
 *     ops above the target. The ops of the last `horizon` windows (a minute) are counted
 *     (a window of 5 s at queue depth 1 holds a few dozen ops: its own p99 is its maximum,
 *     too noisy to steer by); `n_over` of each window is counted by the caller against
 *     ceph_adapt_target_ms();
 *   - a window with ops over the target while the horizon holds more than the budget
 *     allows (plus `grace_ops`) lowers the rung multiplicatively (rung × decrease, at least
 *     one rung down), every such window: backing off is fast;
 *   - a window with at most budget × (1 − hysteresis) of its ops over, `dwell` such windows
 *     in a row and `dwell` windows since the last change, takes the brake off, or raises one
 *     rung when the horizon too is that far under its budget: additive, and slower than the
 *     knob's effect lag, so a change is judged only once it acts;
 *   - between the two (over ops within the budget, or a horizon still repaying) nothing
 *     changes; neither does a window with too few ops to judge, unless one of them is over
 *     the ceiling (at queue depth 1 a thin window is itself a sign of slow ops: the probe
 *     counts an op still outstanding past the ceiling at the end of a window as an error);
 *   - the rung never leaves [rung_min, rung_max].
 *
 * The target, and the anchor to the slow preset. Without an explicit target it is first the
 * baseline's p99 × target_factor (at least + target_floor_ms), measured before data moved.
 * That says what clients had with no recovery at all, and on slow disks even the gentlest
 * recovery costs more: the slow preset's own p99 was above it on the slowed lab (baseline
 * p99 105 ms, target 158 ms, slow preset 200 ms), so the rule lowered below the slow preset
 * and stayed there. So a controller that starts at the slow preset's rung measures what that
 * rung costs before it trusts the baseline's target to hold it back:
 *   - the anchor: the pooled p99 of the first `anchor_windows` (3) judged windows at the slow
 *     preset's rung, brake off — not the run's first window (data starts moving only after
 *     the steps that follow `throttle`) nor the first after a change of rung. The target
 *     becomes max(the baseline's target, that p99 × anchor_factor (1.05)); the ceiling, when
 *     not given, 3 × the new target. The ops over the target of the windows the error
 *     budget holds, this one included, and the calm windows in a row, are counted again
 *     against the new target (from each window's largest latencies, top_ms), so the first
 *     raise can come in the window the anchor is set: those windows were at the slow rung
 *     for longer than the dwell already;
 *   - until then (anchor pending) the baseline's target is not trusted below the slow rung:
 *     at the slow rung a window over the budget holds instead of lowering; above it a lower
 *     stops at the slow rung; below it (after a brake) windows without a trip count as calm,
 *     so the rule goes back to the slow rung to measure it. Trips brake as always, and a raise
 *     above the slow rung still needs windows calm against the baseline's target (then the
 *     slow preset costs no more than that target and the anchor is not needed);
 *   - why this keeps clients no worse off than under the slow preset: at the slow rung about
 *     1 % of the ops are over its p99, by definition; the rule climbs only while at most
 *     budget × (1 − hysteresis) = 0.8 % are over 1.05 × that p99, so it climbs only where
 *     going faster does not fatten the tail past the slow preset's p99 + 5 %, and lowers as
 *     soon as 1 % (+ grace) are over it. Where the slow preset's tail is smooth (≈ 0.8 % of
 *     its ops between p99 and 1.05 × p99) it holds at the slow preset: that is the price of
 *     the p99 promise, not a failure;
 *   - off with an explicit target, `no_anchor`, or a start rung other than the slow preset's;
 *     a target that would not stay below an explicit ceiling is not taken.
 *
 * Rungs: wpq   0: osd_max_backfills 1, osd_recovery_max_active 1, osd_recovery_max_single_start
 *                 1, osd_recovery_sleep 0.2 (gentler than the slow preset)
 *              1: 1/1/1, osd_recovery_sleep 0 (the slow preset; the per-class sleeps apply)
 *              2: 2/2/2   3: 3/3/3   4: 4/4/4 (the fast preset)   5: 6/6/4   6: 8/8/4
 *        mClock 0: osd_mclock_profile high_client_ops  1: balanced  2: high_recovery_ops
 * The mClock ladder moves the profile only: the limits under mClock need the override flag
 * and belong to an operator's explicit throttle (ceph-cluster.h). */

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "basic/error.h"
#include "ceph/ceph-cluster.h"

/* ---- one probe window ------------------------------------------------------------- */

/* A window keeps its largest latencies: the pooled p99 of a few windows is then exact up to
 * 100 × CEPH_LATENCY_TOP ops, and ops over a new, higher target can be counted again */
#define CEPH_LATENCY_TOP 100

typedef struct CephLatencyWindow {
        size_t n;         /* ops that completed in the window */
        size_t n_errors;  /* ops that failed or timed out (counted apart, not in the percentiles) */
        double p50_ms, p95_ms, p99_ms, max_ms; /* nearest-rank percentiles of the n; 0 when n is 0 */
        size_t n_over;    /* of the n, ops above the controller's target (ceph_latency_count_above()) */
        size_t n_top;     /* min(n, CEPH_LATENCY_TOP) from ceph_latency_window(); 0: not known */
        double top_ms[CEPH_LATENCY_TOP]; /* the n_top largest latencies, largest first */
} CephLatencyWindow;

/* The percentiles of `n` latencies in milliseconds (not modified; order does not matter), and
 * the largest of them (top_ms). EINVAL for a negative or non-finite latency, ENOMEM. */
int ceph_latency_window(const double *ms, size_t n, size_t n_errors, CephLatencyWindow *ret, Error *err);

/* How many of `n` latencies are above `limit_ms` */
size_t ceph_latency_count_above(const double *ms, size_t n, double limit_ms);

/* "p50 2.1 ms, p95 4.0 ms, p99 6.3 ms, max 9.0 ms over 512 ops" (", 3 errors" when any) */
char *ceph_latency_window_format(const CephLatencyWindow *w);

/* ---- the controller --------------------------------------------------------------- */

typedef struct CephAdaptConfig {
        CephScheduler scheduler;
        double target_ms;      /* p99 target; 0: the baseline's p99 × target_factor, and at
                                * least the baseline's p99 + target_floor_ms */
        double target_factor;  /* 0: 1.5 */
        double target_floor_ms; /* 0: 2 */
        double ceiling_ms;     /* the latency that puts the brake on (see the rule); 0: target × 3 */
        double hysteresis;     /* 0: 0.2; raise only with at most budget × (1 − hysteresis) over */
        double budget;         /* 0: 0.01; the fraction of ops allowed over the target (p99) */
        unsigned horizon;      /* 0: 12; windows the budget is counted over */
        double grace_ops;      /* 0: 2; ops over the budget before a lower */
        double decrease;       /* 0: 0.5; a lowered rung is rung × decrease (at least one down) */
        unsigned dwell;        /* 0: 3; windows calm in a row before a raise or a release */
        double window_sec;     /* the probe window (for the dwell check); 0: 5 */
        double effect_lag_sec; /* how long a knob takes to act; dwell × window must exceed it; 0: 10 */
        size_t min_ops;        /* 0: 20; fewer ops in a window (and no error): not judged */
        int rung_min;          /* < 0: 0 */
        int rung_max;          /* < 0: the fast preset's rung (wpq 4, mClock 2) */
        int rung_start;        /* < 0: the slow preset's rung (wpq 1, mClock 0) */
        bool start_braked;     /* start with the brake on, at rung_min (a resume finds it on) */
        bool no_anchor;        /* do not anchor the target to the slow preset's p99 (see above) */
        unsigned anchor_windows; /* 0: 3; judged windows at the slow preset's rung pooled for its p99 */
        double anchor_factor;  /* 0: 1.05; the target is at least the slow preset's p99 × this */
} CephAdaptConfig;

/* A CephAdaptConfig with every field at its default for `scheduler` */
void ceph_adapt_config_default(CephScheduler scheduler, CephAdaptConfig *ret);

typedef enum CephAdaptAction {
        CEPH_ADAPT_HOLD,
        CEPH_ADAPT_RAISE,
        CEPH_ADAPT_LOWER,
        CEPH_ADAPT_BRAKE,   /* brake on; rung to rung_min */
        CEPH_ADAPT_RELEASE, /* brake off; rung stays */
} CephAdaptAction;

const char *ceph_adapt_action_to_string(CephAdaptAction a); /* "hold", "raise", "lower", "brake", "release" */

typedef struct CephAdaptDecision {
        CephAdaptAction action;
        int rung_before, rung_after;
        bool brake_before, brake_after;
        bool anchored; /* the anchor was set in this window (the reason starts with it; the
                        * target may have changed even when the action is hold: log it) */
        double target_before, target_after; /* the p99 target before and after the window */
        char *reason; /* "p99 41.0 ms > 30.0 ms target: osd_max_backfills 3 → 1, ..." (always set) */
} CephAdaptDecision;

void ceph_adapt_decision_done(CephAdaptDecision *d);

typedef struct CephAdapt CephAdapt;

/* A controller at cfg's start rung, brake off, judging against `baseline` (the window
 * measured before data moved; its p99 sets the target when cfg has none). EINVAL names the
 * field: a rung outside the ladder, min > max, start outside [min, max], dwell × window not
 * above the effect lag, a hysteresis or decrease outside (0, 1), a ceiling not above the
 * target, no target and a baseline without ops. */
int ceph_adapt_new(const CephAdaptConfig *cfg, const CephLatencyWindow *baseline, CephAdapt **ret, Error *err);
CephAdapt *ceph_adapt_free(CephAdapt *a);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephAdapt *, ceph_adapt_free);

/* Judge one window (`slow_ops`: SLOW_OPS is raised now, with that many ops; 0: not). The
 * controller moves to decision.rung_after / brake_after; the caller applies
 * ceph_adapt_rung_settings() of the new rung when it changed and the brake flag when that
 * changed. ENOMEM only (the controller is then unchanged). */
int ceph_adapt_step(CephAdapt *a, const CephLatencyWindow *w, unsigned slow_ops, CephAdaptDecision *ret,
                    Error *err);

int ceph_adapt_rung(const CephAdapt *a);
bool ceph_adapt_brake(const CephAdapt *a);
/* The operator's pause (`cephprov pause`): while set, every window puts the brake on (or
 * keeps it on) and counts as not calm, so the release after it waits for `dwell` calm
 * windows like any other. */
void ceph_adapt_set_paused(CephAdapt *a, bool paused);
double ceph_adapt_target_ms(const CephAdapt *a);
double ceph_adapt_ceiling_ms(const CephAdapt *a);

typedef enum CephAdaptAnchor {
        CEPH_ADAPT_ANCHOR_OFF,     /* explicit target, no_anchor, or not started at the slow rung */
        CEPH_ADAPT_ANCHOR_PENDING, /* the slow preset's p99 not measured yet */
        CEPH_ADAPT_ANCHOR_SET,     /* measured (ceph_adapt_slow_p99_ms()); the target follows it or stays */
} CephAdaptAnchor;

CephAdaptAnchor ceph_adapt_anchor(const CephAdapt *a);
/* The slow preset's pooled p99 the anchor measured; 0 until it is set */
double ceph_adapt_slow_p99_ms(const CephAdapt *a);
/* The slow preset's rung of a ladder (wpq 1, mClock 0): where the controller starts */
int ceph_adapt_slow_rung(CephScheduler scheduler);

/* The controller's state for `status --json`: scheduler, rung, its settings, brake, target,
 * ceiling, the anchor (pending / set / off, the slow preset's p99, the baseline's target),
 * baseline, last window, windows judged, last change and its reason. */
json_object *ceph_adapt_to_json(const CephAdapt *a);

/* ---- the ladder ------------------------------------------------------------------- */

/* Rungs of a scheduler's ladder (wpq 7, mClock 3) */
int ceph_adapt_n_rungs(CephScheduler scheduler);

/* The `config set` operations (who "osd") of one rung, in order. EINVAL: no such rung. */
int ceph_adapt_rung_settings(CephScheduler scheduler, int rung, CephConfigOp **ret, size_t *ret_n, Error *err);

/* Every key any rung sets (record their values before the first change, to restore them
 * after), NULL-terminated, static. */
const char *const *ceph_adapt_keys(CephScheduler scheduler);

/* "osd_max_backfills 3 → 1, osd_recovery_max_active 3 → 1, osd_recovery_max_single_start 3 → 1"
 * (the keys that differ between the two rungs); "osd_max_backfills 2" when from == to */
char *ceph_adapt_rung_change_format(CephScheduler scheduler, int from, int to);

/* The throttle plan of the adaptive mode: `apply` is `rung`'s settings, `restore` puts back
 * what `before` (`config dump`, taken before any change) had for every key of the ladder (or
 * removes it), in reverse; warnings name entries more specific than "osd" (a per-daemon or
 * masked value) that win over the rungs. ceph_throttle_restore_format() records it. */
int ceph_adapt_plan(CephScheduler scheduler, int rung, const CephConfigDump *before, CephThrottlePlan **ret,
                    Error *err);

/* ---- the brake -------------------------------------------------------------------- */

/* The flag the brake sets while on: "nobackfill" (recovery of degraded objects goes on) */
#define CEPH_ADAPT_BRAKE_FLAG "nobackfill"
