/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The adaptive backfill throttle's decision rule (issues 12 and 31): from one probe window of
 * client latency at a time (4 KiB ops at queue depth 1 on objects that cover the moving OSDs),
 * the client op rate and the slow ops on the OSDs being refilled, decide whether to raise the
 * backfill knobs a rung, lower them, put the brake on or take it off. Pure: no I/O and no
 * clock — the caller samples, applies the rung's `config set` operations and the brake flag,
 * and logs the reason.
 *
 * The operator states a client SLO, a p99 (`throttle: {preset: adaptive, client_p99: 50ms}`);
 * without one it is the idle baseline's p99 × 2 (at least + 2 ms). A p99 is an error budget:
 * at most `budget` (1 %) of the ops over it. The rule (docs/ceph.md "The adaptive throttle"):
 *   - the budget is judged over a horizon: the last `horizon` (24) windows at the current
 *     setting and load. A change of rung or brake starts a new horizon (what was measured at
 *     another setting says nothing of this one), and so does a change of the client op rate
 *     by more than 2 × (a busy spell after a quiet one); the first windows after a change of
 *     setting, while the knobs take effect (effect_lag_sec), are not counted. An op that
 *     failed or timed out counts as an op over;
 *   - raise one rung while the upper bound of the budget's 95 % confidence interval (Wilson)
 *     over the horizon is below the budget; lower ONE rung while its lower bound is above
 *     it; hold between. The bounds need no per-window threshold: at ~150 ops a window one op
 *     over is 0.7 %, noise, and the horizon's count decides;
 *   - a raise back to a rung that overran the budget at this load (a lower from it, or a brake
 *     tripped there less than a horizon of counted windows after the raise to it) waits for
 *     `horizon` counted windows at the rung below, doubled at each further overrun (at most 16
 *     horizons); a change of the client load clears it. The probe's bounds can call a rung
 *     within the budget when the clients' share over is higher than the probe's. A raise
 *     back also needs the upper bound at the rung below under half the budget: while that
 *     rung uses over half of it, the rung above overruns it again;
 *   - a window in which PGs peered after OSDs were marked out (a drain's wait-peered), and no
 *     probe op failed or timed out, is not judged: neither a trip nor the budget; the stall is
 *     the peering's (seconds, not past the probe's timeout), the same with backfill
 *     held back or not (docs/ceph.md "Out, then peered"), and a brake would only hold back the
 *     backfill after it;
 *   - never below the slow preset's rung (wpq 1, mClock 0) unless the brake is on: adaptive is
 *     never slower than the slow preset;
 *   - the brake (`osd set nobackfill` and the bottom rung: lowering a limit does not pre-empt
 *     reservations already granted) goes on only on a ceiling — at least 2 ops and 5 % of a
 *     window's ops over it or failed, or an op past it (its p99 over it, or an op that failed
 *     or timed out) two windows in a row — or on slow
 *     ops on the OSDs being refilled that persist `slow_windows` (2) windows in a row, or on
 *     the operator's pause. One late op, one failed probe call (no reading: a NULL window)
 *     or SLOW_OPS elsewhere in the cluster (the caller counts only the refilled OSDs': see
 *     ceph_adapt_refill_slow_ops()) is not a brake;
 *   - the release comes after `dwell` (3) windows in a row without a trip, to the rung below
 *     the one the brake was put on at (never below the slow preset's), not to the bottom;
 *   - the controller starts at `rung_start`: the rung the last drain of the cluster ended on
 *     (its record: ceph_adapt_last_to_json(), ceph_adapt_start_rung()), else the slow preset's.
 *
 * Rungs: wpq   0: osd_max_backfills 1, osd_recovery_max_active 1, osd_recovery_max_single_start
 *                 1, osd_recovery_sleep 0.2 (gentler than the slow preset: the brake's rung)
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
        double client_ops_sec; /* the clients' op rate during the window (pgmap); 0: not known */
        bool peering;     /* PGs of OSDs just marked out peered during the window (wait-peered) */
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
        double target_ms;      /* the client SLO, a p99; 0: the baseline's p99 × target_factor,
                                * and at least the baseline's p99 + target_floor_ms */
        double target_factor;  /* 0: 2 */
        double target_floor_ms; /* 0: 2 */
        double ceiling_ms;     /* the latency that puts the brake on (see the rule); 0: target × 3 */
        double budget;         /* 0: 0.01; the fraction of ops allowed over the target (p99) */
        double confidence_z;   /* 0: 1.96; the budget's bounds are Wilson's at this z (95 %) */
        unsigned horizon;      /* 0: 24; windows the budget is counted over, at most */
        unsigned dwell;        /* 0: 3; windows without a trip before a release */
        unsigned slow_windows; /* 0: 2; windows in a row with slow ops on refilled OSDs that brake */
        double load_change;    /* 0: 2; a client op rate this many times the horizon's, or below
                                * it by as much, starts a new horizon */
        double window_sec;     /* the probe window; 0: 5 */
        double effect_lag_sec; /* how long a knob takes to act: the windows after a change within
                                * it are not counted; 0: 10 */
        size_t min_ops;        /* 0: 20; fewer ops in a window (and no trip): not judged */
        int rung_min;          /* < 0: 0; the brake's rung */
        int rung_max;          /* < 0: the fast preset's rung (wpq 4, mClock 2) */
        int rung_start;        /* < 0: the slow preset's rung (wpq 1, mClock 0) */
        bool start_braked;     /* start with the brake on, at rung_min (a resume finds it on);
                                * the release goes to rung_start */
        bool pinned;           /* judge and log every window, change nothing: a static rung
                                * that pays the same probe and baseline as the controller (the
                                * benchmark's static modes, tests/bench/bench-throttle-slo.sh) */
} CephAdaptConfig;

/* A CephAdaptConfig with every field at its default for `scheduler` */
void ceph_adapt_config_default(CephScheduler scheduler, CephAdaptConfig *ret);

typedef enum CephAdaptAction {
        CEPH_ADAPT_HOLD,
        CEPH_ADAPT_RAISE,
        CEPH_ADAPT_LOWER,
        CEPH_ADAPT_BRAKE,   /* brake on; rung to rung_min */
        CEPH_ADAPT_RELEASE, /* brake off; rung to the one below the brake point */
} CephAdaptAction;

const char *ceph_adapt_action_to_string(CephAdaptAction a); /* "hold", "raise", "lower", "brake", "release" */

typedef struct CephAdaptDecision {
        CephAdaptAction action;
        int rung_before, rung_after;
        bool brake_before, brake_after;
        char *reason; /* "p99 41.0 ms, 9 of 150 ops over the 30.0 ms target; ...: osd_max_backfills 3 → 2, ..." (always set) */
} CephAdaptDecision;

void ceph_adapt_decision_done(CephAdaptDecision *d);

typedef struct CephAdapt CephAdapt;

/* A controller at cfg's start rung, brake off, judging against `baseline` (the window
 * measured before data moved; its p99 sets the target when cfg has none). EINVAL names the
 * field: a rung outside the ladder, min > max, start outside [min, max], a budget, z, horizon
 * or load change out of bounds, a ceiling not above the target, no target and a baseline
 * without ops. */
int ceph_adapt_new(const CephAdaptConfig *cfg, const CephLatencyWindow *baseline, CephAdapt **ret, Error *err);
CephAdapt *ceph_adapt_free(CephAdapt *a);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephAdapt *, ceph_adapt_free);

/* Judge one window. `w` NULL: no reading (the probe call failed): nothing is judged, only a
 * trip of the slow ops or the pause acts. `slow_ops`: slow ops on the OSDs being refilled now
 * (ceph_adapt_refill_slow_ops(); 0: none). w->client_ops_sec is the client op rate (0: not
 * known). The controller moves to decision.rung_after / brake_after; the caller applies
 * ceph_adapt_rung_settings() of the new rung when it changed and the brake flag when that
 * changed. ENOMEM only (the controller is then unchanged). */
int ceph_adapt_step(CephAdapt *a, const CephLatencyWindow *w, unsigned slow_ops, CephAdaptDecision *ret,
                    Error *err);

int ceph_adapt_rung(const CephAdapt *a);
bool ceph_adapt_brake(const CephAdapt *a);
/* The rung the controller would run at without the brake: the rung, or while braked the one
 * its release goes to. What the cluster's record of the last drain keeps. */
int ceph_adapt_end_rung(const CephAdapt *a);
/* The operator's pause (`cephprov pause`): while set, every window puts the brake on (or
 * keeps it on) and counts as a trip, so the release after it waits for `dwell` windows. */
void ceph_adapt_set_paused(CephAdapt *a, bool paused);
double ceph_adapt_target_ms(const CephAdapt *a);
double ceph_adapt_ceiling_ms(const CephAdapt *a);
/* The slow preset's rung of a ladder (wpq 1, mClock 0): the floor without the brake */
int ceph_adapt_slow_rung(CephScheduler scheduler);

/* Wilson's score interval of `k` ops over of `n` at `z`: the lower and upper bounds of the
 * share over (0 and 1 when n is 0). */
void ceph_budget_bounds(size_t k, size_t n, double z, double *ret_lower, double *ret_upper);

/* The slow ops of SLOW_OPS (`health`) that are on an OSD being refilled: one in a PG's up set
 * and not in its acting set (`pgs`, `pg dump pgs_brief`). SLOW_OPS names its daemons in its
 * summary ("daemons [osd.3,osd.9] have slow ops.", "osd.3 has slow ops"); when it names
 * only the first 10 ("...") or none, the slow ops cannot be placed and count. 0 when none. */
unsigned ceph_adapt_refill_slow_ops(const CephHealth *health, const CephPgDump *pgs);

/* The record of the last drain (config-key cephprov/CLUSTER/throttle-last):
 * {"scheduler": "wpq", "rung": N, "target_p99_ms": X} from a controller's published state
 * (ceph_adapt_to_json(): its end_rung). NULL when the state says too little, or no memory. */
json_object *ceph_adapt_last_from_state(json_object *state);
/* The rung to start at from that record: its rung within [the slow preset's rung, rung_max]
 * when its scheduler is `cfg`'s; cfg->rung_start (resolved) when not, or without a record. */
int ceph_adapt_start_rung(json_object *last, const CephAdaptConfig *cfg);

/* The controller's state for `status --json`: scheduler, rung, its settings, end_rung, brake,
 * target, ceiling, budget, the horizon (windows, ops, over, bounds), the run's probe ops and
 * those over the target at a rung (run_ops, run_over: brake off, no trip) and in braked or
 * tripped windows (run_ops_braked, run_over_braked), baseline, last window, windows judged,
 * last change and its reason. */
json_object *ceph_adapt_to_json(const CephAdapt *a);
/* "the SLO over the run: 3 of 1200 probe ops over the 200.0 ms target at a rung (0.25 %,
 * budget 1 %); 40 of 90 in braked, tripped or peering windows" from that state; NULL when it says
 * too little or out of memory */
char *ceph_adapt_run_summary(json_object *state);

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
