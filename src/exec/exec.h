/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* apply's disk plan, run by the wave executor (waves.h): steps with bounded parallelism per
 * host and across hosts. Steps that change a device's partition table or bcache state run
 * one at a time per host; OSD creations run up to `parallel_osds` at once per host. A failed
 * step skips the steps that depend on it on that host, not the other hosts. Each host's
 * messages are buffered and printed whole when that host finishes, so output never
 * interleaves. Every step's start and outcome goes to the journal (fsynced) before and after
 * it runs, as the wave executor's records ("wave-step-start", ...) with the step's "kind",
 * "device" and "partname". */

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "basic/error.h"
#include "exec/journal.h"
#include "plan/plan.h"

/* How the executor reaches one host's agent: one call per request (see docs/agent.md).
 * `call` may be invoked from several threads at once for the same host. */
typedef struct HostLink {
        const char *host;
        int (*call)(void *userdata, const char *op, json_object *args, json_object **ret_result, Error *err);
        void *userdata;
} HostLink;

/* Turns one plan step into an agent request: {"op": NAME, "args": {...}}. */
typedef int (*StepRequestFn)(const Step *s, json_object **ret_request, Error *err);

typedef enum StageMask {
        STAGE_DISKS = 1 << 0, /* steps of STEP_CLASS_DISK: wipe, gpt, partitions, bcache */
        STAGE_OSDS  = 1 << 1, /* steps of STEP_CLASS_OSD: create-osd */
        STAGE_ALL   = STAGE_DISKS | STAGE_OSDS,
} StageMask;

typedef struct ExecOptions {
        unsigned parallel_hosts;   /* hosts at once (layout's concurrency) */
        unsigned parallel_osds;    /* OSD creations at once per host */
        unsigned stages;           /* StageMask */
        bool dry_run;              /* print the requests instead of sending them */
        FILE *progress;            /* live progress for people (a tty), or NULL */
        FILE *out;                 /* per-host reports; NULL = quiet */
        Journal *journal;          /* may be NULL */
        StepRequestFn step_request;
        /* checked before every step is sent (the cluster lock's lease): a failure fails
         * the step with its error; NULL = none */
        int (*guard)(void *userdata, Error *err);
        void *guard_userdata;
} ExecOptions;

typedef struct HostReport {
        char *host;
        size_t n_done, n_failed, n_skipped;
        double seconds;
        char *first_error;         /* NULL when all converged */
} HostReport;

typedef struct ExecReport {
        HostReport *hosts;
        size_t n_hosts;
        double seconds;
        size_t n_done, n_failed, n_skipped;
} ExecReport;

ExecReport *exec_report_free(ExecReport *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(ExecReport *, exec_report_free);

/* links[i] must exist for every host plan with steps (matched by name). Returns 0 when every
 * selected step succeeded, -EIO when some failed (details in the report), other negative
 * errno for setup errors. */
int exec_run(const Plan *p, const HostLink *links, size_t n_links, const ExecOptions *o,
             ExecReport **ret, Error *err);

/* Summary table: host, done, failed, skipped, time, first error. */
void exec_report_print(const ExecReport *r, FILE *f);
int exec_report_to_json(const ExecReport *r, json_object **ret);

bool step_in_stages(const Step *s, unsigned stages);

/* FAULT INJECTION for the kill tests only (CEPHPROV_TEST_HOLD_STEP, journal.c): hold step
 * `name` a while once its start is journaled (after: once it has acted). */
void exec_test_hold(const char *name, bool after);
