/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One controller at a time per cluster (docs/ceph.md "The lock").
 *
 * Taking it is a compare-and-set on the monitors: `ceph auth add client.cephprov-lock.C`
 * with this run's random key (the owner token); it fails with EEXIST when another owner's
 * entity is there. Beside it, in config-key, each owner keeps its lease record (host, pid,
 * command, expiry). A thread renews the lease every lease/3 after checking the entity still
 * carries our key; the controller gives up the lock by itself when it could not renew within
 * 3/4 of a lease. Another controller takes the lock over only once the lease has expired,
 * and only one taker at a time (a second entity, "...C.takeover", taken the same way).
 * Release removes the entity only while it is still ours and our lease has not run out.
 *
 * The lock keeps its own connection to the admin host, so renewals never queue behind the
 * flow's long commands. Lease length: CEPHPROV_LOCK_LEASE (seconds, default 60). */

#include <stdbool.h>
#include <stdint.h>

#include "basic/error.h"
#include "controller/ceph-admin.h"
#include "layout/layout.h"

#define CLUSTER_LOCK_LEASE_DEFAULT 60

typedef struct CephClusterLock CephClusterLock;

/* Takes the lock of the layout's cluster for `command` ("apply"). ETIME, before anything is
 * written, when this machine's clock and the monitors' (`ceph report`'s timestamp) differ by
 * more than a quarter of the lease (ceph_lock_skew_check()). EBUSY when another
 * controller holds it, naming holder, pid, command and lease end; with CEPHPROV_LOCK_WAIT
 * (seconds, default 0) it keeps trying that long first (a re-run right after a kill -9
 * gets the lock once the dead run's lease is over).
 * token_path (may be NULL): a file in the state directory, under its journal lock, where the
 * holder keeps its key while it holds the lock. A run that finds a key there (its
 * predecessor died holding the lock: the kernel released the journal lock we now hold) takes
 * that lock over at once instead of waiting out the lease: the dead run is proven dead by
 * this machine's own lock, not guessed from a host name. */
int ceph_cluster_lock(const Layout *l, const char *command, const char *token_path, CephClusterLock **ret, Error *err);

/* Cheap (no cluster round trip): 0 while the lease is ours, ENOLCK once it was lost (the
 * renewal found another owner or no entity, or the lease ran out unrenewed). Call it before
 * every change. NULL (no lock) is 0. Thread-safe. */
int ceph_cluster_lock_check(CephClusterLock *l, Error *err);

/* What is left of our lease (ms, > 0; measured now, against the deadline the holder gives up
 * by), for a destructive agent request to carry as `lease_left_ms` (docs/agent.md "The
 * lease"): ENOLCK like ceph_cluster_lock_check() once it is lost or run out. NULL (no lock):
 * 0 and *ret_ms = -1 (send none). Thread-safe. */
int ceph_cluster_lock_left_ms(CephClusterLock *l, int64_t *ret_ms, Error *err);

/* Called after each agent request `op` was answered; does nothing unless the test hook
 * CEPHPROV_TEST_LEASE_OUTLIVED_BY names `op`: then, after the first such request, the
 * renewals stop (as if the renewer hung) and this waits until the lease has run out, as if
 * that op had outlasted it (an hour's bcache flush, say). For the lab test of a lease lost
 * inside a host loop (tests/lab/test-cluster-lock.sh); never set it in production. */
void ceph_cluster_lock_op_done(CephClusterLock *l, const char *op);

/* Stops the renewal and releases the lock if it is still ours and our lease holds (never
 * another owner's). ENOLCK when it was not (lost, taken over, lease ran out: then it is left
 * to expire), or the error of the cluster. Once only; NULL or a released lock is 0. */
int ceph_cluster_lock_release(CephClusterLock *l, Error *err);
/* Releases (a failure is a warning) and frees. NULL-safe; returns NULL. */
CephClusterLock *ceph_cluster_unlock(CephClusterLock *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephClusterLock *, ceph_cluster_unlock);

/* What holds the lock now, for `cephprov lock status`. */
typedef struct ClusterLockStatus {
        bool held;           /* the entity exists */
        char *key_id;        /* its record's id (the last part of the record key) */
        CephLock *record;    /* its lease record, NULL when missing */
        bool expired;        /* record missing or its lease over */
        bool takeover;       /* a takeover entity exists (one in progress, or one that died) */
        CephLock *takeover_record;
        char *message;       /* one line for people */
} ClusterLockStatus;

int cluster_lock_status(CephAdmin *a, ClusterLockStatus *ret, Error *err);
void cluster_lock_status_done(ClusterLockStatus *s);

/* Removes the lock whoever holds it: both entities and every lease record of the cluster.
 * For an operator who knows the holder is gone; ret_removed counts what was there. */
int cluster_lock_break(CephAdmin *a, unsigned *ret_removed, Error *err);

/* The lease length in seconds from CEPHPROV_LOCK_LEASE, or the default; how long to wait
 * for a held lock from CEPHPROV_LOCK_WAIT (default 0). */
int cluster_lock_lease(unsigned *ret, Error *err);
int cluster_lock_wait(unsigned *ret, Error *err);
