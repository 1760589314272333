/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The convert plan of a live cluster (`cephprov convert LAYOUT` without --dry-run), and what
 * makes it survive a kill: the plan's inputs — the hosts' inventories, `ceph osd tree` and
 * `ceph osd metadata` as they were before the conversion changed anything — are saved in the
 * state directory (convert-CLUSTER.json, next to the journal) before the first change, and
 * a run that finds them plans from them again. A half-converted host no longer shows what
 * the plan must rebuild (its OSDs are destroyed, their journals deleted: plan_convert()
 * notes a destroyed OSD and plans nothing for it), so the plan of the interrupted run is
 * the one to finish; the steps look at the real state to see how far it got. The file is
 * removed when a conversion finishes. */

#include <stdbool.h>

#include "basic/error.h"
#include "layout/layout.h"
#include "plan/plan-convert.h"

typedef struct ConvertInputs ConvertInputs;

/* The inputs: saved ones when there are (*ret_resumed true; `only`, `reshape` and
 * `drain_first` of the saved run, which the caller's must then equal), else from the hosts and the cluster now. */
int convert_inputs_load(const Layout *l, char * const *only, bool reshape, bool drain_first, ConvertInputs **ret,
                        bool *ret_resumed, Error *err);
ConvertInputs *convert_inputs_free(ConvertInputs *in);
DEFINE_TRIVIAL_CLEANUP_FUNC(ConvertInputs *, convert_inputs_free);

int convert_inputs_plan(const Layout *l, const ConvertInputs *in, ConvertPlan **ret, Error *err);
/* The inventories the plan is computed from (the saved ones of a resumed run): what its
 * destructive acts expect to find (docs/agent.md, "expect"), never a read taken right
 * before the act. */
int convert_inputs_inventory(const ConvertInputs *in, InventorySet **ret, Error *err);

/* A resumed plan (planned from saved inputs) made to act on the disks it was planned for:
 * the hosts with OSDs to rebuild are inventoried now, and each device and partition of the
 * plan is found again by its stable identity (convert_plan_follow(), src/plan/plan-convert.h):
 * p is renamed where names moved (each move logged), and refused, err saying what changed,
 * when a device is gone, on another disk's name with its identity nowhere, resized, or has
 * no identity and changed. A device renamed keeps the name it was planned under in its
 * ConvertOsd/ConvertPart's planned_device, and in's saved inventory (in memory: the file
 * stays as saved) has what was saved of it under its name now, so that what the plan saw of
 * a device (convert_inputs_inventory(), the expect of wipe-replaced) is looked up by the
 * names the plan acts on. */
int convert_inputs_follow(const Layout *l, ConvertInputs *in, ConvertPlan *p, Error *err);

/* Saved (fsynced) before the first change; removed when the conversion is done. */
int convert_inputs_save(const Layout *l, const ConvertInputs *in, Error *err);
int convert_inputs_remove(const Layout *l, Error *err);

/* A replacement (`cephprov replace LAYOUT HOST DEVICE`): the same machinery on one host,
 * the plan restricted to the OSDs that depend on DEVICE (ConvertOptions.replace_device). Its
 * inputs are saved in replace-CLUSTER.json: a saved replacement of another host or device is
 * refused (finish it first), as is a conversion under way (and convert_inputs_load() refuses
 * while a replacement is under way). A fresh one refuses a cluster in HEALTH_ERR before it
 * reads anything else (err names the checks). */
int replace_inputs_load(const Layout *l, const char *host, const char *device, ConvertInputs **ret, bool *ret_resumed,
                        Error *err);
int replace_inputs_remove(const Layout *l, Error *err);

/* A conversion under way (its saved inputs are there: running, or stopped by a kill or a
 * failure): convert_progress_json() of its plan against the journal's records since the
 * inputs were saved, with "started" (that time) and "hosts" (its --hosts, absent: all).
 * Without one, a replacement under way the same way, with "replace": {"host", "device"}.
 * *ret NULL when neither is under way. */
int convert_status(const Layout *l, json_object **ret, Error *err);
/* The OSDs a resumed conversion (or replacement) of plan p may find down: those its plan
 * rebuilds on the host it was converting when it stopped (convert_status's "current"),
 * none when it stopped between hosts. */
int convert_own_osds(const Layout *l, const ConvertPlan *p, int **ret, size_t *ret_n, Error *err);
