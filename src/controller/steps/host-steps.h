/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The steps by name (table.c): the body of every step of the registry
 * (src/registry/step-table.c) — a cluster step's function (controller/cluster-steps.h), a
 * host step the controller does itself (below), or, for every other host step, the agent
 * op the registry names. The wave executor's host link calls host_step_call(), its cluster
 * link cluster_steps_call(). */

#include <json-c/json.h>
#include <stddef.h>

#include "basic/error.h"
#include "controller/cluster-steps.h"
#include "controller/convert-steps.h"
#include "controller/hosts.h"
#include "inventory/inventory.h"

/* What a host step of a playbook run acts with: the host's session and the run's context. */
typedef struct HostStepCtx {
        HostSession *session;
        ClusterSteps *cs;
        const int *osds;          /* the host's OSDs (its CRUSH bucket's, its record's), for the destroy plan */
        size_t n_osds;
        const char *fsid;         /* the cluster's: only its OSDs' labels are ours to wipe */
        ConvertStepCtx conv;      /* a conversion: the host's plan (conv.plan NULL otherwise) */
        const Inventory *conv_inv; /* a conversion: the host's inventory its plan was computed from */
} HostStepCtx;

/* host_step_call()'s signature, that of a host step the controller does itself */
typedef int (*HostStepFn)(HostStepCtx *h, const char *name, json_object *args, json_object **ret, Error *err);
/* a cluster step's body */
typedef int (*ClusterStepFn)(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err);

typedef struct StepBody {
        const char *name;        /* the registry's name */
        ClusterStepFn cluster;   /* a cluster step's body */
        HostStepFn host;         /* a host step done here (NULL: the registry's agent op, or with
                                  * `owned: true` the owned wipe or teardown, host_step_owned()) */
} StepBody;

/* The body of the step called `name`, NULL when none; the whole table (for its unit test). */
const StepBody *step_body_find(const char *name);
const StepBody *step_bodies(size_t *ret_n);

/* A host step of a playbook run (the wave executor's HostLink call; userdata a HostStepCtx) */
int host_step_call(void *userdata, const char *op, json_object *args, json_object **ret_result, Error *err);

/* owned-wipe.c: `wipe` / `bcache-teardown` with owned: true, what cephprov owns on the host
 * (the destroy plan of a fresh inventory, each act checked against it); `wipe-replaced`. */
int host_step_owned(HostStepCtx *h, const char *op, json_object *args, json_object **ret_result, Error *err);
int host_step_wipe_replaced(HostStepCtx *h, json_object *args, json_object **ret_result, Error *err);
