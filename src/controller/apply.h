/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* `cephprov apply`: make the selected hosts match the layout. In order: the journal (and
 * its local lock), the cluster lock, hosts `cephprov destroy` destroyed left out (unless
 * taken back), connect + inventory + plan, the OSD stage's cluster state (creations an
 * interrupted run left running, prepared OSDs not running, ids left allocated, drained
 * hosts left as they are), the preflight, the plan shown, the question, the steps
 * (exec_run), the OSDs made and waited for (controller/apply-osds.h), and a verification
 * against a fresh inventory. The plan is printed to ApplyOptions.out before asking, the
 * steps' output and their report (exec_report_print) as they end, before the OSDs are
 * waited for; what ran is the result. */

#include <stdbool.h>
#include <stdio.h>

#include "basic/error.h"
#include "controller/apply-osds.h"
#include "controller/preflight.h"
#include "exec/exec.h"
#include "layout/layout.h"

typedef struct ApplyOptions {
        const Layout *layout;
        const char *layout_arg;     /* LAYOUT as given (journal, messages); NULL: layout->path */
        char * const *hosts;        /* --hosts (NULL: every host with a profile) */
        char * const *take_back;    /* destroyed hosts to provision again (their record removed) */
        const char *stage;          /* "disks", "osds", "all" (NULL: all) */
        unsigned parallel;          /* OSD creations per host at once; 0: the layout's (at least 1) */
        bool dry_run;               /* plan and requests, nothing changed, no journal, no lock */
        bool yes;                   /* run without asking */
        bool (*confirm)(const char *question); /* NULL: refuse what needs asking */
        FILE *out;                  /* plan and per-host step output for people; NULL: none (--json) */
        FILE *progress;             /* live progress (a tty), or NULL */
        unsigned plan_print_flags;  /* for plan_print() (PLAN_PRINT_UTF8: the caller knows the locale) */
} ApplyOptions;

typedef struct ApplyResult {
        char *stage;                /* as asked (NULL: all) */
        unsigned stages;            /* STAGE_* */
        bool dry_run;
        bool nothing_to_do;         /* no step, no OSD to start, no id to release: nothing ran */
        bool converged;             /* done, verified by a fresh inventory (a dry run: false),
                                     * or, when nothing was to do, every host reached and accepted */
        bool ok;                    /* the exit status is 0 (a dry run that could plan is ok) */
        size_t n_steps;             /* steps of the selected stages */
        size_t n_plan_steps;        /* steps of every stage in the plan */
        size_t unreachable_hosts;
        size_t refused_hosts;       /* by the preflight, and destroyed hosts left out */
        char **destroyed_hosts;     /* left out: destroyed (cephprov destroy), not taken back */
        char **drained_hosts;       /* left as the drain left them (cephprov drain) */
        size_t n_resume;            /* prepared OSDs found not running */
        size_t n_dangling;          /* OSD ids an interrupted run left allocated */
        size_t steps_left;          /* planned again after the run (verification) */
        PreflightReport *preflight;
        ExecReport *report;         /* NULL when nothing ran */
        OsdOutcomes *osds;          /* NULL without an OSD stage */
        char **errors;              /* why it did not converge after running (not yet logged) */
} ApplyResult;

ApplyResult *apply_result_free(ApplyResult *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(ApplyResult *, apply_result_free);

/* The --json object (docs/schema/apply.json), the same keys whether anything ran or not:
 * exec_report_to_json()'s (hosts, done, failed, skipped, seconds, converged) with steps,
 * unreachable_hosts, refused_hosts, preflight, steps_left and osds ([] without an OSD stage)
 * added; with nothing to do, hosts and osds are [] and the counts 0. */
int apply_result_to_json(const ApplyResult *r, json_object **ret);
/* For people, after what controller_apply() printed to ApplyOptions.out (the plan, the
 * steps' output and their report): the OSDs and the last line ("converged: ...",
 * "nothing to do ...", "dry run: nothing changed"). */
void apply_result_print(const ApplyResult *r, FILE *out);

/* 0 with *ret whenever the steps could be planned and were run or found unneeded (see
 * ret->ok and ret->errors); a negative errno with *ret untouched when apply could not get
 * that far: a --take-back host not in the layout, the journal or cluster lock held, no host
 * left, planning failed, the question not confirmed (nothing changed then). */
int controller_apply(const ApplyOptions *o, ApplyResult **ret, Error *err);
