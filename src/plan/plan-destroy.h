/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What destroying a host's OSDs takes off its disks: only what cephprov owns there, from
 * the host's inventory (pure, no I/O). Owned means
 *   - a data device (in the allow-list) whose BlueStore label names one of the OSDs and this
 *     cluster (`cluster_fsid`; NULL: any), itself or through the bcache device it backs: the
 *     bcache is torn down first (flushing its dirty data), then the device is wiped; a label
 *     of another cluster with one of the ids is listed as kept, untouched;
 *   - a cephprov partition (GPT name cp:ROLE:SLOT:HOST of this host, plan_partition_name())
 *     on an allowed fast device that holds the DB, WAL or journal of one of the OSDs, or the
 *     bcache cache of a backing device torn down above; with `whole_host`, every cephprov
 *     partition of the host (also ones no OSD ever used).
 * A fast device left with nothing but such partitions is wiped whole (blank, as apply found
 * it); one that also holds other partitions keeps them: only the owned ones are deleted,
 * the others are listed as kept. Devices outside the allow-list are never named. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "basic/error.h"
#include "inventory/inventory.h"

typedef enum DestroyActionKind {
        DESTROY_BCACHE_TEARDOWN,  /* `device` is a bcache backing device: detach, stop, unregister */
        DESTROY_WIPE_DEVICE,      /* `device` whole: signatures and partition table */
        DESTROY_DELETE_PARTITION, /* partition `partnum` (`partname`) of `device` */
        _DESTROY_ACTION_MAX,
} DestroyActionKind;

typedef struct DestroyAction {
        DestroyActionKind kind;
        char *device;             /* the whole device, as in the inventory */
        unsigned partnum;         /* DESTROY_DELETE_PARTITION */
        char *partname;
        uint64_t size;            /* bytes freed (the partition, or the device) */
        int osd;                  /* the OSD it belonged to, -1: none known */
        char *reason;             /* for people */
} DestroyAction;

typedef struct DestroyPlan {
        char *host;
        DestroyAction *actions;   /* in the order to run them: teardowns, wipes of data
                                   * devices, partition deletions, wipes of fast devices */
        size_t n_actions;
        char **kept;              /* left as they are: "/dev/sda partition 1 'bios' 1.0 MiB", another
                                   * cluster's OSD with one of the ids */
        int *missing;             /* OSDs of the request whose data device is not in the inventory */
        size_t n_missing;
        uint64_t bytes_freed;
} DestroyPlan;

int plan_destroy(const Inventory *inv, const char *cluster_fsid, const int *osds, size_t n_osds, bool whole_host,
                 DestroyPlan **ret, Error *err);
DestroyPlan *destroy_plan_free(DestroyPlan *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(DestroyPlan *, destroy_plan_free);

const char *destroy_action_kind_to_string(DestroyActionKind k); /* "bcache-teardown", "wipe", "delete-partition" */
void destroy_plan_print(const DestroyPlan *p, FILE *f);
int destroy_plan_to_json(const DestroyPlan *p, json_object **ret);
