/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The wave executor: runs a playbook-shaped procedure over hosts in waves.
 *
 *   before (cluster steps, once)
 *   wave 1: hosts of the wave in parallel (at most parallel_hosts), each its own ordered steps
 *   gate    (cluster steps; after every wave but the last, unless gate_after_last)
 *   wave 2 …
 *   after   (cluster steps, always: at the end, after a failure, a cancel or a stop)
 *
 * Steps of one host run in their order, except that consecutive PARALLEL steps may overlap
 * (at most parallel_steps at once). CLUSTER_SERIAL steps take one global token, so two of
 * them never overlap anywhere. WAIT and HOST_SERIAL steps hold no global token.
 * A host list whose steps name their dependencies (WaveHost.by_deps: apply's disk plan) runs
 * by them instead: a step starts once the steps it depends on are done, one non-PARALLEL
 * step of the list at a time and up to parallel_steps PARALLEL ones beside it, and a failed
 * step leaves only the steps that depend on it not run (the list goes on).
 * A step names its target: HOST steps go to that host's HostLink as an agent operation,
 * CLUSTER steps to the ClusterLink (a host's list may hold both: "out the OSDs of this host"
 * is a cluster step in a host's list). The executor knows nothing of Ceph: what a step does
 * is its link's business; what runs when, beside what, and what is recorded is this file's.
 *
 * It is the one executor: playbooks build a WavePlan from the registry, and apply's disk
 * plan becomes one (exec_run(), exec.h) with a wave of its hosts and their steps by_deps. */

#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "basic/error.h"
#include "exec/exec.h"
#include "exec/journal.h"

typedef enum WaveTarget {
        WAVE_TARGET_HOST,    /* the host's agent (HostLink, op = step name) */
        WAVE_TARGET_CLUSTER, /* the cluster (ClusterLink) */
} WaveTarget;

/* What a step may run beside. */
typedef enum WaveClass {
        WAVE_CLASS_HOST_SERIAL,    /* one at a time in its host's list (the default) */
        WAVE_CLASS_PARALLEL,       /* consecutive PARALLEL steps of one list overlap, up to
                                    * parallel_steps, except those of one `exclusive` key */
        WAVE_CLASS_CLUSTER_SERIAL, /* one cluster mutation at a time across all hosts */
        WAVE_CLASS_WAIT,           /* waits/polls: holds no token; never skipped on resume */
} WaveClass;

/* One step as the registry resolved it; everything is borrowed for the run's duration. */
typedef struct WaveStep {
        const char *name;      /* registry name; a HOST step's agent operation */
        WaveTarget target;
        WaveClass class;
        json_object *args;     /* validated arguments (NULL: {}) */
        unsigned timeout_ms;   /* 0: none. A CLUSTER step sees its cancel check turn true at the
                                * deadline; any step that returns past it fails with ETIMEDOUT */
        bool rerun;            /* run again on resume even when done earlier (it re-checks state) */
        bool destructive;      /* loses data or an identity: a wait before it is asked again on
                                * resume until it is done (step_passed) */
        const char *exclusive; /* PARALLEL steps: of the overlapping ones, those with the same
                                * key (a device) run one at a time, in order; NULL: none */
        const size_t *deps;    /* by_deps lists: indexes (in this list) of the steps that must
                                * be done before this one starts */
        size_t n_deps;
        const char *title;     /* how the host's report lines name it; NULL: "<index> <name>" */
        json_object *record;   /* fields added to its journal records (borrowed); NULL: none */
} WaveStep;

typedef struct WaveHost {
        const char *name;
        const WaveStep *steps;      /* this host's steps, in order */
        size_t n_steps;
        bool by_deps;               /* run by the steps' deps, not in order (see the top) */
} WaveHost;

typedef enum WaveOnFailure {
        WAVE_ON_FAILURE_STOP,     /* a failed step stops every new step at once, and running
                                   * steps see wave_call_cancelled() (not those of `after`) */
        WAVE_ON_FAILURE_CONTINUE, /* the failed host stops; the wave's other hosts finish */
} WaveOnFailure;                  /* either way the next wave never starts and `after` runs */

/* The procedure. `id` names it in the journal (e.g. "drain-node:node3"): resume looks up
 * done steps by it (journal_done_step_keys()). */
typedef struct WavePlan {
        const char *id;
        const WaveHost *hosts;
        size_t n_hosts;
        const WaveStep *before;
        size_t n_before;
        const WaveStep *gate;
        size_t n_gate;
        bool gate_after_last;
        const WaveStep *after;         /* restore steps: run even after a failure or cancel */
        size_t n_after;
        WaveOnFailure on_failure;
        /* The 1-based wave of each host (n_hosts entries, every wave 1..max with a host):
         * exactly the waves a plan printed (a playbook's strategy cuts them:
         * playbook_waves()). NULL: one host per wave, in the order given. */
        const unsigned *waves;
        /* Resume: keys (waves_step_key()) done in an earlier run. A host step listed here is
         * not run and is reported "done earlier". WAIT steps, `rerun` steps, and every
         * before/gate/after step are run again regardless: they re-check or re-establish
         * real state (a gate asks the cluster again; `after` may have undone `before`). */
        char * const *done_keys;
} WavePlan;

/* Handed to a ClusterLink call: lets a long wait report progress and see a cancel. */
typedef struct WaveCall WaveCall;

/* True once the run is cancelled or stopped, or the step's deadline has passed: the link
 * should return soon (any error; the executor records the step as cancelled or timed out).
 * Always false for `after` steps except at their own deadline: restores run to the end. */
bool wave_call_cancelled(const WaveCall *c);
/* Progress of the running step: fraction in [0,1] or < 0 when unknown, eta in seconds or
 * < 0, text (copied; may be NULL). Forwarded to the tick and the progress line. */
void wave_call_progress(WaveCall *c, double fraction, double eta_seconds, const char *text);
/* The host a per-host step runs for; NULL in before/gate/after. */
const char *wave_call_host(const WaveCall *c);
/* 1-based wave; 0 in before and after (a gate carries the wave it follows). */
unsigned wave_call_wave(const WaveCall *c);

/* How the executor reaches the cluster. `call` may run from several threads at once (WAIT
 * steps beside each other); CLUSTER_SERIAL steps are serialized by the executor. */
typedef struct ClusterLink {
        int (*call)(void *userdata, const char *step, json_object *args, WaveCall *c,
                    json_object **ret_result, Error *err);
        void *userdata;
} ClusterLink;

typedef enum WavePhase {
        WAVE_PHASE_BEFORE,
        WAVE_PHASE_HOSTS,
        WAVE_PHASE_GATE,
        WAVE_PHASE_AFTER,
        _WAVE_PHASE_MAX,
} WavePhase;

/* What the tick sees, every tick_ms while the run lasts. */
typedef struct WaveTick {
        WavePhase phase;
        unsigned wave, n_waves;        /* current wave (1-based; 0 before the first) */
        size_t hosts_running;
        size_t steps_done, steps_total; /* steps finished any way / all steps of the run */
        double elapsed;                /* seconds since the run began */
        bool paused;                   /* as the previous tick left it */
        /* the latest progress a running step reported (wave_call_progress), or NULL/-1 */
        const char *progress_step, *progress_host, *progress_text;
        double progress_fraction, progress_eta;
} WaveTick;

typedef enum WaveTickAction {
        WAVE_TICK_RUN,   /* go on (ends a pause) */
        WAVE_TICK_PAUSE, /* start no new step until a later tick returns RUN */
        WAVE_TICK_STOP,  /* like a cancel: start nothing more, cancel running steps, run `after` */
} WaveTickAction;

typedef WaveTickAction (*WaveTickFn)(void *userdata, const WaveTick *t);

typedef struct WaveOptions {
        unsigned parallel_hosts;       /* hosts of a wave at once (0: 1) */
        unsigned parallel_steps;       /* consecutive PARALLEL steps at once per list (0: 1) */
        const HostLink *host_links;    /* matched by host name; needed for hosts with HOST steps */
        size_t n_host_links;
        const ClusterLink *cluster;    /* needed when any CLUSTER step exists */
        Journal *journal;              /* NULL: nothing recorded */
        FILE *out;                     /* per-list reports, each printed whole; NULL: quiet */
        FILE *progress;                /* a live line for people (tty) at each tick, or NULL */
        bool dry_run;                  /* print the steps instead of calling the links */
        unsigned tick_ms;              /* 0: 200 */
        WaveTickFn tick;               /* may be NULL */
        void *tick_userdata;
        /* Set to non-zero by the caller's SIGINT handler (async-signal-safe: the executor
         * only reads it). Stops new steps, cancels running ones through wave_call_cancelled(),
         * then runs `after`. NULL: not cancellable. */
        const volatile sig_atomic_t *cancel;
        /* checked before each step (the cluster lock's lease): failure fails the step */
        int (*guard)(void *userdata, Error *err);
        void *guard_userdata;
} WaveOptions;

typedef enum WaveStepState {
        WAVE_STEP_NOT_RUN,   /* never started: an earlier failure, a cancel or a stop */
        WAVE_STEP_DONE,
        WAVE_STEP_FAILED,    /* includes timed out (error ETIMEDOUT) */
        WAVE_STEP_CANCELLED, /* was running when the run was cancelled/stopped, and failed */
        WAVE_STEP_EARLIER,   /* done in an earlier run (resume), not run now */
        _WAVE_STEP_STATE_MAX,
} WaveStepState;

typedef enum WaveStatus {
        WAVE_STATUS_OK,
        WAVE_STATUS_FAILED,    /* a step failed (before, a host, a gate or after) */
        WAVE_STATUS_CANCELLED, /* the cancel flag */
        WAVE_STATUS_STOPPED,   /* a tick returned STOP */
        _WAVE_STATUS_MAX,
} WaveStatus;

typedef struct WaveStepReport {
        char *key;             /* waves_step_key() */
        const char *name;      /* borrowed from the plan */
        const char *host;      /* borrowed; NULL outside host lists */
        WavePhase phase;
        unsigned wave;         /* 1-based for host steps and gates, 0 for before/after */
        size_t index;          /* in its list */
        WaveStepState state;
        int error_code;        /* positive errno when FAILED/CANCELLED */
        char *error;
        double seconds;
        json_object *result;   /* the link's result when DONE (NULL otherwise) */
} WaveStepReport;

typedef struct WaveHostReport {
        const char *host;      /* borrowed */
        unsigned wave;
        size_t n_done, n_failed, n_not_run, n_earlier; /* cancelled counts as failed */
        double seconds;
        char *first_error;
} WaveHostReport;

typedef struct WaveWaveReport {
        size_t first_host, n_hosts;   /* wave_hosts[first_host ..] */
        bool started;
        bool failed;                  /* a host step or its gate failed */
        bool gate_ran, gate_failed;
} WaveWaveReport;

typedef struct WaveReport {
        WaveStatus status;
        char *error;                  /* the first failure, or why it stopped; NULL when OK */
        unsigned n_waves;
        WaveWaveReport *waves;
        size_t *wave_hosts;           /* host indexes grouped by wave, in wave order */
        WaveHostReport *hosts;        /* in input order */
        size_t n_hosts;
        WaveStepReport *steps;        /* before, hosts (input order), gates (wave order), after */
        size_t n_steps;
        size_t n_done, n_failed, n_not_run, n_earlier;
        bool before_failed, after_failed;
        double seconds;
} WaveReport;

WaveReport *wave_report_free(WaveReport *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(WaveReport *, wave_report_free);

/* The stable key of a step, as journaled and as resume matches it:
 *   "before:<i>:<name>", "host:<host>:<i>:<name>", "gate:<wave>:<i>:<name>", "after:<i>:<name>".
 * Host keys carry no wave number, so a re-run with other waves still finds them. */
char *waves_step_key(WavePhase phase, const char *host, unsigned wave, size_t index, const char *name);

/* Checks the waves the plan gives, or gives each host a wave of its own (pure).
 * ret_wave_of_host[i] is the 1-based wave of host i; the array has n_hosts entries. */
int waves_assign(const WavePlan *p, unsigned **ret_wave_of_host, unsigned *ret_n_waves, Error *err);

/* Runs the plan. Returns 0 whenever it ran (then *ret is filled and ret->status says how it
 * ended: a failed step is an outcome, not an error of this call); a negative errno with err
 * set only when it could not start (invalid plan, a missing link, no memory), *ret untouched. */
int waves_run(const WavePlan *p, const WaveOptions *o, WaveReport **ret, Error *err);

/* Text: per wave its hosts, per host done/failed/not run/earlier, time, first error; then
 * before/gates/after and the status. */
void wave_report_print(const WaveReport *r, FILE *f);
int wave_report_to_json(const WaveReport *r, json_object **ret);

const char *wave_status_to_string(WaveStatus s);
const char *wave_step_state_to_string(WaveStepState s);
const char *wave_phase_to_string(WavePhase p);
