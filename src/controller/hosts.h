/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The controller's connections. Every connection to a host — the fleet's session per
 * host, the cluster client on the admin host (controller/ceph-admin.h), the extra channels
 * of the OSD stage (controller/apply-osds.h) — is a HostChannel opened by
 * host_channel_open(): its own transport and agent process, configured. A libssh2 session
 * serves one thread and an agent one request at a time, so N requests at once on a host
 * take N channels. The fleet opens one per host in parallel, with the host's allow-list,
 * and gives the executor a HostLink per host. A host that cannot be reached is recorded
 * with its error; the others go on. */

#include <pthread.h>

#include "controller/preflight.h"
#include "exec/exec.h"
#include "plan/plan.h"
#include "inventory/inventory.h"
#include "layout/layout.h"
#include "transport/transport.h"

/* One agent channel to a host: a transport (an SSH session, or this process for a local
 * host) and the agent started on it. */
typedef struct HostChannel {
        Transport *transport;
        AgentChannel *channel;
} HostChannel;

typedef enum HostChannelFlags {
        HOST_CHANNEL_DRY_RUN = 1 << 0, /* the agent refuses every change */
        HOST_CHANNEL_ADMIN   = 1 << 1, /* the cluster client: the agent allows no device; the connection's
                                        * and the agent start's errors say "admin host 'NAME': ..." */
} HostChannelFlags;

/* Connects to h, starts the agent there (pushing this build's when the host lacks it:
 * *ret_uploaded, may be NULL) and sends "configure" with the host's name and allow-list
 * (none with HOST_CHANNEL_ADMIN). On failure nothing stays open and *ret is zeroed. */
int host_channel_open(const Host *h, unsigned flags, HostChannel *ret, bool *ret_uploaded, Error *err);
/* What a channel opened ahead does next, on its thread (the cluster client connects to
 * the cluster: ceph_admin_prewarm()); its failure is the later request's to find. */
typedef void (*HostChannelWarm)(HostChannel *ch, void *userdata);

/* Opens a channel as host_channel_open(h, flags) would, ahead, on a thread of its own: the
 * next host_channel_open() of the same host and flags takes it (waiting for it, and
 * getting its error as its own). A command starts the connections it will need while it
 * does something else first (apply takes the cluster's lock, status inventories the hosts):
 * an SSH handshake and an agent start is ~0.1 s a host. Connecting reads no state, so a
 * channel opened before the cluster's lock is held is as good as one opened after.
 * host_channel_prewarm_end() closes those nobody took; call it before the layout goes. */
void host_channel_prewarm(const Host *h, unsigned flags, HostChannelWarm warm, void *warm_userdata);
void host_channel_prewarm_end(void);
static inline void prewarm_endp(bool *b) {
        if (*b)
                host_channel_prewarm_end();
}

/* Closes the agent, then the transport; a zeroed channel is left alone. Zeroes *c. */
void host_channel_close(HostChannel *c);

struct CephClusterLock;

typedef struct HostSession {
        const Host *host;
        HostChannel ch;
        pthread_mutex_t mu;      /* one request at a time on the channel */
        struct CephClusterLock *lock; /* fleet_set_lock(): its lease goes with each destructive request */
        bool uploaded;           /* the agent binary was pushed this time */
        int r;                   /* 0, or why the host is unusable */
        Error error;
} HostSession;

typedef struct Fleet {
        const Layout *layout;
        HostSession *sessions;
        size_t n;
        bool dry_run;
} Fleet;

/* Hosts of the layout that have a profile, restricted to `only` (NULL: all). */
int hosts_select(const Layout *l, char * const *only, const Host ***ret, size_t *ret_n, Error *err);

/* Connects to every host at once (up to the layout's concurrency), delivers the agent when
 * needed, starts it and sends "configure". Returns 0 even when some hosts failed (see
 * fleet_failed()); a negative errno only when nothing could be tried. */
int fleet_open(const Layout *l, const Host * const *hosts, size_t n, bool dry_run, bool progress, Fleet **ret, Error *err);
Fleet *fleet_close(Fleet *f);
DEFINE_TRIVIAL_CLEANUP_FUNC(Fleet *, fleet_close);
size_t fleet_failed(const Fleet *f);
/* Prints each unusable host with its reason to stderr. */
void fleet_report_failures(const Fleet *f);

/* From now on every destructive request to the fleet's hosts (host_op_destructive())
 * carries the lock's lease (host_lease_args()), and none is sent once the lock is lost.
 * NULL: none (a dry run, or a layout without admin host). */
void fleet_set_lock(Fleet *f, struct CephClusterLock *lock);

/* The agent ops that change a host: wipe, create-gpt, create-partition, delete-partition,
 * make-bcache, bcache-register, bcache-attach, bcache-tune, bcache-teardown, osd-create. */
bool host_op_destructive(const char *op);

/* For a destructive `op` under `lock`: a copy of `args` (NULL: none) with "lease_left_ms",
 * what is left of the lease measured now (call it right before sending), in *ret_args;
 * ENOLCK (nothing to send) once the lock is lost or its lease ran out. For any other op, or
 * without a lock, *ret_args is NULL: send `args` as they are. */
int host_lease_args(struct CephClusterLock *lock, const char *op, json_object *args, json_object **ret_args,
                    Error *err);

/* The arguments of the agent's "configure" op for host h: its name and allow-list. */
int host_configure_args(const Host *h, bool dry_run, json_object **ret);
/* The arguments of the agent's "run" op: argv exec'd directly on the host (never through a
 * shell), stdin_data may be NULL. */
int agent_run_args(char * const *argv, const char *stdin_data, unsigned timeout_sec, json_object **ret);

/* One request to one host's agent; a destructive one carries the session's lease (see
 * fleet_set_lock()) and is not sent once the lock is lost. */
int host_session_call(HostSession *s, const char *op, json_object *args, unsigned timeout_sec,
                      json_object **ret_result, Error *err);

/* argv on the host through the agent's `run` (never a shell): its exit status in *ret_exit
 * (a nonzero one is not an error here). */
int host_session_run(HostSession *s, char **argv, unsigned timeout_sec, int64_t *ret_exit, Error *err);

/* The inventory of one host, named as in the layout. */
int host_session_inventory(HostSession *s, Inventory **ret, Error *err);

/* Inventories every usable host (in parallel); hosts that fail are marked unusable. */
int fleet_inventory(Fleet *f, InventorySet **ret, Error *err);

/* HostLinks for the executor, one per usable host; free with free(). */
int fleet_links(Fleet *f, HostLink **ret, size_t *ret_n);

/* Connects to the selected hosts (`only`: NULL = every host with a profile) and inventories
 * them. Unreachable hosts are reported on stderr and left out of *ret; *ret_failed counts
 * them. With ret_fleet the connections stay open for the caller. */
int controller_inventory(const Layout *l, char * const *only, bool dry_run, bool quiet, Fleet **ret_fleet,
                  InventorySet **ret, size_t *ret_failed, Error *err);

/* controller_inventory() then plan_compute() over the hosts that answered. */
int controller_plan_live(const Layout *l, char * const *only, bool dry_run, bool quiet, Fleet **ret_fleet,
                  Plan **ret, size_t *ret_failed, Error *err);
/* The same, also handing back the inventories (ret_inv may be NULL). */
int controller_plan_live_inventory(const Layout *l, char * const *only, bool dry_run, bool quiet, Fleet **ret_fleet,
                            Plan **ret, InventorySet **ret_inv, size_t *ret_failed, Error *err);
/* The same for `plan` and `apply`: a host the planner refuses is named in (*ret)->refused and
 * the other hosts are still planned (apply leaves a refused host untouched, goes on with the
 * others and ends non-zero). */
int controller_plan_live_all(const Layout *l, char * const *only, bool quiet, Fleet **ret_fleet, Plan **ret,
                             InventorySet **ret_inv, size_t *ret_failed, Error *err);
int controller_plan_live_keep_going(const Layout *l, char * const *only, bool dry_run, bool quiet, Fleet **ret_fleet,
                                    Plan **ret, InventorySet **ret_inv, size_t *ret_failed, Error *err);

/* The preflight (src/controller/preflight.h) of every host of `p` with steps in `stages`,
 * over the fleet's connections. A refused host is then unusable like an unreachable one
 * (nothing more is sent to it, its reasons are its error); with `drop`, its plan is also
 * removed from `p`, so that nothing is allocated, counted or run for it. */
int controller_preflight(Fleet *f, Plan *p, const InventorySet *inv, unsigned stages, bool load_modules, bool drop,
                  PreflightReport **ret, Error *err);
