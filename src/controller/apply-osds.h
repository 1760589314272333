/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The OSD part of `apply`, around the executor:
 *
 *  1. wait for OSD creations still running on the hosts from an interrupted run (their
 *     agents hold a lock per data device until ceph-volume is done);
 *  2. OSD ids decided up front, one at a time in plan order (hosts, slots), recorded in the
 *     journal: the lowest ids the cluster does not have, created by ceph-volume itself with
 *     `--osd-id N --crush-device-class C` (`ceph osd new FSID N`, atomic on the monitor:
 *     two creations can never share an id, and ids follow the plan, not timing); an id an
 *     interrupted run left in the cluster (never booted, on no disk) is reused for its device
 *     after `ceph osd destroy` (ceph-volume 16.2 takes --osd-id only for an id that does not
 *     exist or is destroyed) or released. This runs in a thread while the executor already
 *     creates the OSDs whose ids are ready;
 *  3. the executor's create-osd steps go through osd_flow_links(): the request gets its
 *     osd_id and runs on one of up to `parallel` extra agent channels per host, opened on
 *     first use (each a HostChannel of controller/hosts.h, its own SSH session and agent
 *     process: a libssh2 session serves one thread and an agent handles one request at a
 *     time, so parallel creations need parallel channels; the fleet's channel stays free
 *     for the host's disk steps); after
 *     a failed creation whose ceph-volume rollback purged a reused (destroyed) id, the id is
 *     recreated, and the creation retried once;
 *  4. OSDs found prepared on disk but not running (interrupted between prepare and start)
 *     are activated and started;
 *  5. wait until every OSD made or started is up and in, with its planned device class;
 *     ids allocated but not used are released (`ceph osd purge`). */

#include <stdio.h>

#include "controller/ceph-admin.h"
#include "exec/exec.h"
#include "controller/hosts.h"
#include "controller/osd-progress.h"
#include "inventory/inventory.h"
#include "plan/plan.h"

typedef struct OsdFlow OsdFlow;

int osd_flow_new(const Layout *l, Fleet *fleet, CephAdmin *admin, Journal *j, unsigned parallel, OsdFlow **ret,
                 Error *err);
/* Each OSD creation reports its states there (controller/osd-progress.h; NULL: nowhere).
 * Borrowed: it must outlive the flow. */
void osd_flow_set_progress(OsdFlow *f, OsdProgress *progress);
OsdFlow *osd_flow_free(OsdFlow *f);
DEFINE_TRIVIAL_CLEANUP_FUNC(OsdFlow *, osd_flow_free);

/* 1. Waits for the OSD creations an interrupted run left running (by their lock on the
 * host). Returns 1 when there were any — waited for or already over: either way they may
 * have changed the disks since the caller's inventory, which it then takes again — else 0. */
int osd_flow_wait_inflight(OsdFlow *f, Error *err);

/* Create-osd steps of `p` the executor will run with these stages (their dependencies
 * selected too). */
size_t osd_flow_count_steps(const Plan *p, unsigned stages);

/* Read-only: prepared OSDs that do not run (for 4.) and ids of interrupted runs. */
int osd_flow_scan(OsdFlow *f, const InventorySet *inv, size_t *ret_resume, size_t *ret_dangling, Error *err);
/* The hosts drained by `cephprov drain` (as osd_flow_scan() read them; NULL before): apply
 * leaves their OSDs down and out and makes no OSD there. */
char * const *osd_flow_drained(const OsdFlow *f);
/* 2. Changes the cluster: after the operator confirmed. */
int osd_flow_allocate(OsdFlow *f, const Plan *p, unsigned stages, Error *err);

/* 2'. Instead of osd_flow_allocate(), for a conversion: each device gets the id it had
 * (destroyed in the cluster, its CRUSH place kept), with its device class. */
typedef struct OsdKeep {
        const char *host, *device, *device_class;
        int id;
} OsdKeep;
int osd_flow_keep_ids(OsdFlow *f, const OsdKeep *keep, size_t n, Error *err);

/* 3. Links for exec_run(): the fleet's, wrapped. Free with free(). */
int osd_flow_links(OsdFlow *f, HostLink **ret, size_t *ret_n);

/* 4. and 5. Returns 0 when every OSD is up and in with its class, else a negative errno
 * with the first problem. */
int osd_flow_finish(OsdFlow *f, unsigned timeout_sec, Error *err);

/* What became of each OSD of the flow, copied out of it (the flow holds connections; the
 * outcomes outlive it in a command's result): the allocations in plan order, then the
 * prepared OSDs started (4.). */
typedef struct OsdOutcome {
        char *host;
        char *device;
        char *device_class;  /* NULL for a resumed OSD */
        char *error;         /* why it was not made or started, or NULL */
        int id;              /* the OSD on the device, else the id allocated for it */
        bool adopted;        /* made, but the device kept the OSD already on it (another id) */
        bool resumed;        /* found prepared on disk and not running (4.) */
        bool created;        /* made (resumed: activated and started) */
        bool reused_id;      /* the id of an interrupted run */
        bool recreated_id;   /* purged by a ceph-volume rollback and made again */
        double seconds;
} OsdOutcome;

typedef struct OsdOutcomes {
        OsdOutcome *osds;
        size_t n;
} OsdOutcomes;

int osd_flow_outcomes(const OsdFlow *f, OsdOutcomes **ret);
OsdOutcomes *osd_outcomes_free(OsdOutcomes *o);
DEFINE_TRIVIAL_CLEANUP_FUNC(OsdOutcomes *, osd_outcomes_free);
/* Per OSD: host, device, id, seconds, outcome (nothing without OSDs). */
void osd_outcomes_print(const OsdOutcomes *o, FILE *out);
/* [{host, device, osd_id, device_class, seconds, created, reused_id, recreated_id, error}
 *  ..., {host, device, osd_id, resumed: true, created, error} ...] */
int osd_outcomes_to_json(const OsdOutcomes *o, json_object **ret);
