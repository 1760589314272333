/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The cluster steps' own helpers, shared by the files of src/controller/steps/ (one file per
 * concern; table.c maps each registry step to its body). Not for use outside that folder:
 * the rest of the controller goes through controller/cluster-steps.h. */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/clock-util.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/strv.h"
#include "ceph/ceph-bench.h"
#include "ceph/ceph-cluster.h"
#include "controller/cluster-steps.h"
#include "controller/hosts.h"
#include "controller/throttle-adapt.h"

#define SAVED_PREFIX "saved/"

#include "controller/steps/host-steps.h"

/* What cs_probe_clean() (and wait-safe-to-destroy's probe) keep between polls: the recovery
 * counters at the start and at the last poll, for objects left, rate and ETA. */
typedef struct RecoveryProbe {
        const int *osds;
        size_t n_osds;
        bool have_start, have_prev;
        CephRecovery start, prev;
        double t_prev;
        uint64_t bytes_total;
        bool safe;               /* wait-safe-to-destroy: the gate said yes */
} RecoveryProbe;

/* common.c */
const CephCli *cs_cli(ClusterSteps *cs);
int cs_record_get(CephAdmin *a, const char *name, char **ret, Error *err);
int cs_record_set(CephAdmin *a, const char *name, json_object *value, Error *err);
int cs_record_rm(CephAdmin *a, const char *name, Error *err);
int cs_config_key_ls(CephAdmin *a, char ***ret, Error *err);
int cs_record_get_json(CephAdmin *a, const char *name, json_object **ret, Error *err);
int cs_record_stamp(ClusterSteps *cs, json_object *rec);
bool cs_record_of_other_run(ClusterSteps *cs, json_object *rec);
char *cs_record_origin(json_object *rec);
void cs_restore_left_notice(ClusterSteps *cs, const char *step, const char *what);
int cs_osds_arg(json_object *args, int **ret, size_t *ret_n, Error *err);
char *cs_osds_text(const int *ids, size_t n);
unsigned cs_arg_timeout(json_object *args, unsigned def);
int cs_result_new(json_object **ret, Error *err);

/* waits.c */
int cs_wait_for(ClusterSteps *cs, WaveCall *c, const char *what, unsigned timeout_sec, int (*probe)(ClusterSteps *cs, WaveCall *c, void *userdata, Error *err), void *userdata, Error *err);
/* cs_wait_for polling every poll_ms (cs->poll_ms, when set, wins: the tests' fast polls) */
int cs_wait_for_every(ClusterSteps *cs, WaveCall *c, const char *what, unsigned timeout_sec, unsigned poll_ms, int (*probe)(ClusterSteps *cs, WaveCall *c, void *userdata, Error *err), void *userdata, Error *err);
int cs_probe_clean(ClusterSteps *cs, WaveCall *c, void *userdata, Error *err);
int cluster_step_drain_check(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
int cluster_step_wait_clean(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
int cluster_step_wait_peered(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
/* throttle.c: tells the adaptive throttle, if one runs, that a wait-peered runs (or ended) */
void cs_adapt_peering(ClusterSteps *cs, bool peering);
int cluster_step_wait_safe_to_destroy(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
int cluster_step_wait_ok_to_stop(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
int cluster_step_health_gate(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);

/* osd-state.c */
int cs_existing_osds(ClusterSteps *cs, int *ids, size_t *n, Error *err);
int cluster_step_out(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
int cluster_step_in(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
int cs_osd_dump(ClusterSteps *cs, CephOsdDump **ret, Error *err);
int cluster_step_purge(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
int cluster_step_destroy(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
int cluster_step_crush_remove_host(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
int cluster_step_crush_reweight(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);

/* throttle.c */
int cluster_step_throttle(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
int cluster_step_restore_throttle(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);

/* flags.c */
int cluster_step_pause_balancer(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
int cluster_step_restore_balancer(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
int cs_pools(ClusterSteps *cs, CephPoolList **ret, Error *err);
int cluster_step_pause_autoscaler(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
int cluster_step_restore_autoscaler(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
int cs_flag_step(ClusterSteps *cs, json_object *args, bool set, json_object **ret, Error *err);
int cluster_step_set_flag(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
int cluster_step_unset_flag(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);

/* benchmark.c */
int cluster_step_benchmark(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);
