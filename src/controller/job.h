/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A re-shaping job: what a verb that runs a playbook (`run`, `drain`, `destroy`, `convert`,
 * `replace`) brings to the playbook engine (controller/playbook-run.h), which runs any job
 * through this interface without knowing its name. A job is its playbook, its hosts, the
 * words of its lock and journal, and its hooks (JobOps, each optional):
 *
 *   facts      each host's OSDs (${host.osds}); default: those under its CRUSH host bucket
 *   plan       the job's own plan, printed before anything runs (the convert plan)
 *   before     after the lock is taken, before the first step (its records: the drain record,
 *              the saved convert inputs)
 *   per step   a step's arguments widened (step_args), the job's context for the host steps it
 *              owns (host_ctx), and what it records once a cluster step succeeded (step_done)
 *   after      after every step succeeded (its records: drained, destroyed, inputs removed)
 *
 * The jobs: job-drain.c (drain, drain --cancel, destroy), job-convert.c (convert, replace),
 * and job_playbook_new() below (`run PLAYBOOK`: no hooks). */

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "basic/error.h"
#include "basic/macro.h"
#include "controller/ceph-admin.h"
#include "layout/layout.h"
#include "playbook/playbook.h"

struct Fleet;
struct HostSession;
struct HostStepCtx;
struct Journal;
struct ClusterSteps;
struct PlaybookRunResult;

typedef struct Job Job;

/* What a job's hooks see of the run under way. */
typedef struct JobRun {
        const Layout *layout;
        CephAdmin *admin;
        const CephOsdTree *tree;   /* the OSD tree as the run found it, before any step */
        struct Fleet *fleet;       /* the hosts' agents (NULL until the steps are built) */
        struct Journal *journal;   /* NULL until the lock is taken */
} JobRun;

/* A host's OSDs as the job sees them. */
typedef struct JobHostOsds {
        unsigned *osds;            /* ${host.osds}: what the host's steps act on */
        size_t n_osds;
        int *more;                 /* ids only the host's destroy plan knows (its record's, now
                                    * another host's) */
        size_t n_more;
} JobHostOsds;

/* Adds id to h->osds unless there already: 0 or -ENOMEM. */
int job_host_osds_add(JobHostOsds *h, unsigned id);
/* The OSDs under the host's CRUSH host bucket in run->tree (the default facts). */
int job_host_osds_bucket(const JobRun *run, const char *host, JobHostOsds *h, Error *err);

typedef struct JobPlanOptions {
        FILE *out;
        bool json;                 /* as its JSON document */
        unsigned print_flags;      /* PLAN_PRINT_UTF8 */
        bool dry_run;
} JobPlanOptions;

typedef struct JobOps {
        int (*facts)(Job *job, const JobRun *run, const char *host, JobHostOsds *ret, Error *err);
        /* Prints the job's plan (JobPlanOptions); returns 1 when the job has steps to run, 0 when
         * it is done (nothing to do, or a dry run: the plan was all). */
        int (*plan)(Job *job, const JobPlanOptions *o, Error *err);
        int (*before)(Job *job, const JobRun *run, const PlaybookHostFacts *hosts, size_t n, Error *err);
        int (*step_args)(Job *job, PlaybookSection section, const char *step, json_object *args, Error *err);
        void (*host_ctx)(Job *job, const JobRun *run, struct HostSession *session, struct HostStepCtx *h);
        void (*step_done)(Job *job, const JobRun *run, const char *step, json_object *args, const char *host);
        int (*after)(Job *job, const JobRun *run, const PlaybookHostFacts *hosts, size_t n, Error *err);
        void *(*free_data)(void *data);
} JobOps;

struct Job {
        const JobOps *ops;
        const Layout *layout;
        char *playbook;            /* the playbook file */
        char *command;             /* for the lock, the journal and the --json document's kind */
        char **hosts;              /* NULL-terminated names of layout hosts; NULL: none */
        char *run_tag;             /* added to the run's id in the journal (a replacement's device) */
        bool report_plain;         /* the last error is for stderr only: stdout has the plan's
                                    * JSON document */
        void *data;                /* the job's own (ops->free_data frees it) */
};

/* A job of the shipped playbook `playbook` (its name: found in $CEPHPROV_PLAYBOOK_DIR, the
 * installed ones or the source tree's) on `hosts`; data is the job's from the call on. */
int job_new(const Layout *l, const char *playbook, const char *command, char * const *hosts, const JobOps *ops,
            void *data, Job **ret, Error *err);
Job *job_free(Job *job);
DEFINE_TRIVIAL_CLEANUP_FUNC(Job *, job_free);

/* `run PLAYBOOK LAYOUT --hosts ...`: the playbook file, no hooks. */
int job_playbook_new(const Layout *l, const char *path, char * const *hosts, Job **ret, Error *err);
/* job-drain.c: `drain LAYOUT HOST` (cancel: `drain --cancel`), `destroy LAYOUT HOST`. */
int job_drain_new(const Layout *l, const char *host, bool cancel, Job **ret, Error *err);
int job_destroy_new(const Layout *l, const char *host, Job **ret, Error *err);

/* job-convert.c: `convert LAYOUT` on the live cluster. The plan's inputs are saved before the
 * first change and a re-run finds them (controller/convert.h): it finishes the same plan, its
 * devices followed by identity, and its opening health gate lets pass what the interrupted run
 * left (its flags, its host's OSDs down, degraded PGs: only going on clears those), while the
 * only OSDs down are the ones of the host it was converting. */
typedef struct ConvertJobOptions {
        char * const *hosts;       /* --hosts (NULL: every host with a profile) */
        bool reshape;
        bool drain_first;          /* playbook convert-filestore-drain */
        bool stop_after_host;      /* the first host with OSDs to rebuild only */
} ConvertJobOptions;
int job_convert_new(const Layout *l, const ConvertJobOptions *o, Job **ret, Error *err);
/* `replace LAYOUT HOST DEVICE`: the OSDs that depend on DEVICE rebuilt, by the same machinery
 * (playbook replace-device). */
int job_replace_new(const Layout *l, const char *host, const char *device, Job **ret, Error *err);


/* The job's plan (JobOps.plan): 1 when there is something to run, 0 when not, or a negative
 * errno. A job without a plan of its own has something to run. */
int job_plan(Job *job, const JobPlanOptions *o, Error *err);

typedef struct JobRunOptions {
        bool dry_run;               /* the plan, nothing else */
        bool yes;                   /* a destructive playbook runs without asking */
        bool (*confirm)(const char *question); /* NULL: refuse what needs asking */
        FILE *out;                  /* plan and report for people; NULL: none (--json) */
        FILE *progress;             /* live progress (a tty), or NULL */
        const volatile sig_atomic_t *cancel;
} JobRunOptions;

/* Loads the job's playbook and runs it (playbook_run()): 0 with *ret filled whenever the run
 * could be planned (see ret->ok), a negative errno (*ret untouched) when it could not. */
int job_run(Job *job, const JobRunOptions *o, struct PlaybookRunResult **ret, Error *err);
