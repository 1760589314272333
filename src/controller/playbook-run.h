/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Runs a job's playbook (src/playbook) on its hosts of a layout (job_run(), controller/job.h,
 * loads the playbook and calls here): connects to the cluster and the
 * hosts, finds each host's OSDs by its CRUSH host bucket (never by a name pattern), prints
 * the plan per host (and the drain check's projection when the playbook has one: a refusal
 * there ends the run before anything changed), asks for a destructive playbook, takes the
 * cluster lock, then runs the steps in waves (src/exec/waves.h) with the cluster steps of
 * controller/cluster-steps.h. Every step is journaled; the same command again resumes:
 * steps done earlier are skipped, waits and restores run again. What a job adds (its OSDs,
 * its records, its own host steps' context) comes through its hooks (controller/job.h): the
 * engine knows no job by name. */

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "basic/error.h"
#include "controller/ceph-admin.h"
#include "controller/job.h"
#include "exec/waves.h"
#include "layout/layout.h"
#include "playbook/playbook.h"

typedef struct PlaybookRunResult {
        json_object *plan;          /* the plan (playbook_plan_to_json) and "drain_checks" */
        WaveReport *report;         /* NULL when nothing ran (dry run, refused, not confirmed) */
        bool refused;               /* the drain check refused: nothing changed */
        bool ok;                    /* what was asked is done (a dry run: the plan is valid) */
} PlaybookRunResult;

PlaybookRunResult *playbook_run_result_free(PlaybookRunResult *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(PlaybookRunResult *, playbook_run_result_free);
int playbook_run_result_to_json(const PlaybookRunResult *r, json_object **ret);

/* Runs the job's playbook pb with o's options: 0 with *ret filled whenever the run could be
 * planned (see ret->ok), a negative errno (and *ret untouched) when it could not: unknown
 * host, unreachable cluster, lock held. */
int playbook_run(const Playbook *pb, Job *job, const JobRunOptions *o, PlaybookRunResult **ret, Error *err);

/* The wave class a playbook step runs in: its registry entry's concurrency, except that a
 * per-device step given `owned: true` (every device cephprov owns on the host) is
 * WAVE_CLASS_HOST_SERIAL: it overlaps no other step of its host. */
WaveClass playbook_step_class(const StepEntry *e, json_object *args);
