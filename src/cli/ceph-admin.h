/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The cluster as the controller reaches it: the `ceph` CLI run on the layout's admin host
 * through that host's agent ("run" op; argv exec'd, never a shell). One request at a time;
 * usable from several threads. */

#include <json-c/json.h>
#include <pthread.h>
#include <stdbool.h>

#include "basic/error.h"
#include "layout/layout.h"
#include "transport/transport.h"

#define CEPH_ADMIN_TIMEOUT 120

typedef struct CephAdmin {
        const Host *host;
        const char *cluster;
        Transport *transport;
        AgentChannel *channel;
        pthread_mutex_t mu;
} CephAdmin;

/* Connects to the layout's admin host (its agent, configured with an empty allow-list:
 * it touches no disk there). */
int ceph_admin_open(const Layout *l, CephAdmin **ret, Error *err);
CephAdmin *ceph_admin_close(CephAdmin *a);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephAdmin *, ceph_admin_close);

/* Runs `ceph --cluster C ARGS... [-f json]` (args NULL-terminated). A non-zero exit is an
 * error whose code is ceph's own (it exits with the errno, e.g. 16 EBUSY, 2 ENOENT) and
 * whose message carries ceph's stderr. With json, *ret_json gets the parsed stdout (NULL
 * when stdout is empty); ret_out (may be NULL) gets stdout as text. */
int ceph_admin_run(CephAdmin *a, char * const *args, bool json, json_object **ret_json, char **ret_out, Error *err);
/* With data on ceph's stdin (for `-i -`). */
int ceph_admin_run_stdin(CephAdmin *a, char * const *args, const char *stdin_data, bool json, json_object **ret_json,
                         char **ret_out, Error *err);
/* Same with the arguments inline, NULL-terminated. */
int ceph_admin_runl(CephAdmin *a, bool json, json_object **ret_json, Error *err, const char *arg, ...)
        __attribute__((sentinel));

/* From `ceph osd dump -f json`: the entry of osd.id, NULL when absent. */
json_object *ceph_osd_dump_find(json_object *dump, int id);
bool ceph_osd_dump_up(json_object *osd);
bool ceph_osd_dump_in(json_object *osd);
bool ceph_osd_dump_has_state(json_object *osd, const char *state);

/* The controller's lock in the cluster's config-key store (docs/ceph.md "The lock"), taken
 * on top of the local journal lock: get (free when absent) → set → get again and compare
 * the holder. A lock held by this machine is stale when we hold the local lock (its holder
 * died: kill -9, power loss): it is taken over, with a notice. A lock held by another
 * machine is refused (EBUSY) naming holder, command and time. */
typedef struct CephClusterLock {
        CephAdmin *admin;
        char *key;
        char *holder;
        bool held;
} CephClusterLock;

int ceph_cluster_lock(CephAdmin *a, const char *command, CephClusterLock *ret, Error *err);
/* Releases (config-key rm) when held; for _cleanup_. */
void ceph_cluster_unlock(CephClusterLock *l);
