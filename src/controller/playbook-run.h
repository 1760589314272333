/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Runs a playbook (src/playbook) on hosts of a layout: connects to the cluster and the
 * hosts, finds each host's OSDs by its CRUSH host bucket (never by a name pattern), prints
 * the plan per host (and the drain check's projection when the playbook has one: a refusal
 * there ends the run before anything changed), asks for a destructive playbook, takes the
 * cluster lock, then runs the steps in waves (src/exec/waves.h) with the cluster steps of
 * controller/cluster-steps.h. Every step is journaled; the same command again resumes:
 * steps done earlier are skipped, waits and restores run again. */

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "basic/error.h"
#include "controller/ceph-admin.h"
#include "exec/waves.h"
#include "layout/layout.h"
#include "playbook/playbook.h"

typedef struct PlaybookRunHooks {
        /* after the lock is taken and before the first step; and after every step succeeded */
        int (*before)(void *userdata, CephAdmin *a, const PlaybookHostFacts *hosts, size_t n, Error *err);
        int (*after)(void *userdata, CephAdmin *a, const PlaybookHostFacts *hosts, size_t n, Error *err);
        void *userdata;
} PlaybookRunHooks;

typedef struct PlaybookRunOptions {
        const Layout *layout;
        const Playbook *playbook;
        char * const *hosts;        /* NULL-terminated names of layout hosts */
        const char *command;        /* for the lock and the journal: "drain", "run" */
        bool dry_run;               /* the plan, nothing else */
        bool yes;                   /* a destructive playbook runs without asking */
        bool (*confirm)(const char *question); /* NULL: refuse what needs asking */
        FILE *out;                  /* plan and report for people; NULL: none (--json) */
        FILE *progress;             /* live progress (a tty), or NULL */
        const volatile sig_atomic_t *cancel;
        bool recorded_osds;         /* a host's OSDs are also those its drain record names (destroy:
                                     * the purged ones, when it runs again after a kill) */
        PlaybookRunHooks hooks;
        /* A conversion (cephprov convert): the convert plan computed before anything changed.
         * A host's OSDs (${host.osds}) are then the OSDs its plan rebuilds, the conversion's
         * host steps (unmount-filestore, wipe-replaced, rebuild-osds) act on its plan, and
         * each OSD's phase is journaled (controller/convert-steps.h). */
        const struct ConvertPlan *convert;
        /* The inventories `convert` was computed from (saved before the first change): what
         * wipe-replaced's wipes and deletions expect (docs/agent.md, "expect"). NULL: they
         * carry none. */
        const struct InventorySet *convert_inventory;
        /* What the health-gates of `before` allow besides their own `allow` (a resumed
         * conversion: the flags, down OSDs and degraded PGs the interrupted run left, which
         * only going on clears). NULL: nothing more. */
        const struct PlaybookHealthAllow *health_allow;
        /* Added to the run's id in the journal ("PLAYBOOK:HOSTS:TAG"), whose steps done a re-run
         * skips: a replacement names its device, so that another device's replacement on the
         * same host never takes a failed earlier one's steps for its own. NULL: none. */
        const char *run_tag;
} PlaybookRunOptions;

/* A widened health gate: the codes it lets pass, and the only OSDs that may be down while it
 * does (health-gate's `allow_down`): the OSDs the interrupted run itself stopped. Any other
 * OSD down fails the gate at once, naming the OSDs and the PGs left without a readable copy:
 * a second failure since the kill is the operator's to look at, not the resume's to pass. */
typedef struct PlaybookHealthAllow {
        char * const *codes; /* NULL-terminated */
        const int *down;
        size_t n_down;
} PlaybookHealthAllow;

typedef struct PlaybookRunResult {
        json_object *plan;          /* the plan (playbook_plan_to_json) and "drain_checks" */
        WaveReport *report;         /* NULL when nothing ran (dry run, refused, not confirmed) */
        bool refused;               /* the drain check refused: nothing changed */
        bool ok;                    /* what was asked is done (a dry run: the plan is valid) */
} PlaybookRunResult;

PlaybookRunResult *playbook_run_result_free(PlaybookRunResult *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(PlaybookRunResult *, playbook_run_result_free);
int playbook_run_result_to_json(const PlaybookRunResult *r, json_object **ret);

/* 0 with *ret filled whenever the run could be planned (see ret->ok), a negative errno
 * (and *ret untouched) when it could not: unknown host, unreachable cluster, lock held. */
int playbook_run(const PlaybookRunOptions *o, PlaybookRunResult **ret, Error *err);

/* The wave class a playbook step runs in: its registry entry's concurrency, except that a
 * per-device step given `owned: true` (every device cephprov owns on the host) is
 * WAVE_CLASS_HOST_SERIAL: it overlaps no other step of its host. */
WaveClass playbook_step_class(const StepEntry *e, json_object *args);
