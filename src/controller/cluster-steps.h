/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The cluster steps of the registry (src/registry/step-table.c), carried out through the
 * cluster client: the ClusterLink of the wave executor (src/exec/waves.h). Every command is
 * built and every answer parsed by src/ceph. What a step changes and must give back later
 * (throttle values, the balancer, the autoscaler, flags) is recorded in the cluster itself,
 * under config-key cephprov/CLUSTER/saved/..., before the change: another admin machine, or
 * the next run after a kill, restores from there. Each record holds the value before, the
 * value cephprov wrote, the run that wrote it ("run": the journal's run id) and when
 * ("since"). A step that finds this run's record keeps it; one an earlier run left is taken
 * over where its key still holds what that run wrote (the value before that run is the one
 * to go back to) and replaced where someone changed it since (the operator's value now is).
 * A restore puts the value before back only where the value now is still the one cephprov
 * wrote; every other one is left as it is and named (a notice, and "left" in the step's
 * result). docs/ceph.md "What a restore puts back". */

#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>

#include "basic/error.h"
#include "ceph/ceph.h"
#include "ceph/ceph-cluster.h"
#include "controller/ceph-admin.h"
#include "exec/waves.h"
#include "layout/layout.h"

struct ThrottleAdapt;

typedef struct ClusterSteps {
        CephAdmin *admin;
        const Layout *layout;
        CephRelease release;       /* of the OSDs (`ceph versions`), for the scheduler */
        unsigned poll_ms;          /* between polls of a wait; 0: 2000 */
        FILE *log;                 /* the adaptive throttle's lines; may be NULL */
        unsigned adapt_window_sec; /* the adaptive throttle's probe window; 0: 5 */
        pthread_mutex_t adapt_mu;
        struct ThrottleAdapt *adapt; /* the adaptive throttle, while it runs */
        bool adapt_finished;       /* restore-throttle ran: nothing starts it again */
        const char *run_id;        /* the journal's run id (exec/journal.h), kept in every record this
                                    * run writes; NULL: none (e.g. `cephprov pause`) */
} ClusterSteps;

/* Reads the cluster's release. */
int cluster_steps_init(ClusterSteps *cs, CephAdmin *admin, const Layout *layout, Error *err);
/* Stops the adaptive throttle if it runs (its settings stay until restore-throttle). */
void cluster_steps_done(ClusterSteps *cs);
/* The adaptive throttle's last published state (cephprov/CLUSTER/throttle-state), NULL when
 * none runs (its restore removes it). */
int cluster_throttle_state(CephAdmin *a, json_object **ret, Error *err);
/* A run that resumes one whose `throttle` step set the adaptive throttle (its record is in
 * the cluster): starts the controller again from the recorded baseline. 0 when there is
 * nothing to resume, 1 when started. */
int cluster_steps_resume_adaptive(ClusterSteps *cs, Error *err);

/* The operator's pause, config-key cephprov/CLUSTER/pause = {"by": HOST, "since": EPOCH}.
 * cluster_pause records it, then puts the brake on (nobackfill, through the brake's record,
 * so what was set before is what comes back): no new backfill starts, and an adaptive
 * throttle that runs keeps the brake on while the record is there; restore-throttle leaves
 * the brake on then. Needs no cluster lock (it must work while a drain holds it).
 * ret: {"paused", "already", "flag", "flag_was_set_before", "record"}.
 * cluster_resume removes the record; when no adaptive throttle runs (its state is older
 * than 2 minutes or absent) it takes the brake off at once, otherwise the controller does,
 * after calm windows. ret: {"was_paused", "adaptive_running", "brake": "released" | "left
 * to the adaptive throttle" | "none"}. */
#define CLUSTER_PAUSE_RECORD "pause"
int cluster_pause(ClusterSteps *cs, const char *by, json_object **ret, Error *err);
int cluster_resume(ClusterSteps *cs, json_object **ret, Error *err);
/* the pause record, NULL when not paused */
int cluster_pause_get(CephAdmin *a, json_object **ret, Error *err);

/* ClusterLink.call: runs cluster step `step` with its validated, resolved arguments. */
int cluster_steps_call(void *userdata, const char *step, json_object *args, WaveCall *c, json_object **ret_result,
                       Error *err);

/* The drain check of `hosts` (a strv) gone at once, as the step runs it (also for the plan
 * print before a run): ceph_drain_check() of those with a CRUSH host bucket, a warning for
 * each without one (nothing to move; all without: ceph_drain_check_no_bucket()). */
int cluster_steps_drain_check(ClusterSteps *cs, char * const *hosts, CephDrainCheck **ret, Error *err);

/* Every restore record (config-key cephprov/CLUSTER/saved/...) in the cluster, for
 * `status`: [{"record": NAME, "run": RUN | null, "since": EPOCH | null, "age_sec": N | null,
 * "value": the record}], sorted by name (never NULL on success). */
int cluster_restore_records(CephAdmin *a, json_object **ret, Error *err);

/* Records of drained hosts: config-key cephprov/CLUSTER/drained/HOST = {"state":
 * "draining"|"drained"|"destroying"|"destroyed", "osds":[..], "since":..}. apply leaves a
 * drained host's OSDs down and out and refuses a destroyed one; `drain --cancel` and
 * `apply --take-back` remove the record. "drained" is recorded only once `osds` are verified
 * out, down and in no PG's up or acting set (read then); otherwise EBUSY naming each OSD and
 * what it still is, and nothing is recorded. */
int cluster_drained_set(CephAdmin *a, const char *host, const char *state, const int *osds, size_t n_osds,
                        Error *err);
int cluster_drained_rm(CephAdmin *a, const char *host, Error *err);
/* ret: NULL-terminated host names with a record (never NULL on success) */
int cluster_drained_hosts(CephAdmin *a, char ***ret, Error *err);
/* 1 and the record's state and OSD ids, 0 when the host has none */
int cluster_drained_get(CephAdmin *a, const char *host, char **ret_state, int **ret_osds, size_t *ret_n,
                        Error *err);
/* Of ids[0..n) (a record's), those still `host`'s — under its CRUSH host bucket, else
 * reported by a daemon whose metadata hostname is `host` — or gone from the OSD map
 * (purged): *ret_own. The others (an id purged there since given to another host's new
 * OSD) are named in *ret_other ("osd.9 (now node2's)"; NULL when none). purge-osd in a
 * host's list purges only the host's own the same way. */
int cluster_osds_of_host(CephAdmin *a, const char *host, const int *ids, size_t n, int **ret_own, size_t *ret_n_own,
                         char ***ret_other, Error *err);
/* The hosts whose record says destroying or destroyed (never NULL on success). */
int cluster_destroyed_hosts(CephAdmin *a, char ***ret, Error *err);

/* `systemctl stop|start ceph-osd@N` for each OSD through the host's agent, then waits (up to
 * timeout_sec) until the OSD map says down (stop) or up (start). */
struct HostSession;
int cluster_steps_osd_service(ClusterSteps *cs, struct HostSession *s, bool start, const int *osds, size_t n_osds,
                              unsigned timeout_sec, WaveCall *c, json_object **ret_result, Error *err);
