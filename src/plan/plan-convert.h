/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The convert planner: which OSDs `cephprov convert` would rebuild in the layout's shape,
 * keeping their ids, and what that does to the fast devices (pure, no I/O).
 *
 * Inputs: the layout, the hosts' inventories, and the cluster's word on its OSDs: `ceph osd
 * tree` (which OSDs a CRUSH host bucket holds) and `ceph osd metadata` (objectstore, data
 * device, DB/WAL partitions and sizes, FileStore's journal partition). A host of the layout
 * is the CRUSH host bucket of exactly its name: never a name pattern (node1 is not node11),
 * never the hostname an OSD reports.
 *
 * Per host, every OSD of its bucket whose data device is one of the layout's data devices
 * is compared with what the layout wants for that device (slot): objectstore; DB and WAL on
 * the slot's fast device, and their sizes; bcache or not. One that differs is listed with
 * each difference in words (an OSD the tree shows destroyed, its id kept, is a conversion
 * under way: a note, not planned again):
 *   - another objectstore (FileStore → BlueStore): rebuilt;
 *   - the same objectstore in another shape (a changed db_size, a DB or WAL added or
 *     dropped, bcache added or removed): "needs --reshape", rebuilt only with
 *     ConvertOptions.reshape, so that one edit of the layout cannot quietly rebuild a
 *     cluster.
 * For the OSDs rebuilt, the partitions the cluster names as theirs (FileStore's journal
 * partition: metadata backend_filestore_journal_partition_path; BlueStore's DB and WAL
 * partitions) are replaced: deleted, and the layout's DB [+ WAL] [+ bcache cache]
 * partitions are created in the space they free (first fit, lowest free partition numbers).
 * A partition counts as an old journal only when the cluster names it: never by its GPT
 * type GUID, its name or the label the inventory read. The old journals are the only
 * partitions convert deletes that are not cephprov's; every other partition of a fast
 * device (keep_partitions, foreign ones, journals no OSD names) is kept, untouched, and
 * listed. A journal the cluster names that keep_partitions lists is replaced all the same,
 * and the plan says so (scenario 3 keeps the journals for apply's sake until convert). */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "basic/error.h"
#include "basic/json-writer.h"
#include "ceph/ceph.h"
#include "inventory/inventory.h"
#include "layout/layout.h"
#include "plan/plan.h"

typedef enum ConvertAction {
        CONVERT_REBUILD,         /* destroyed (id kept) and created again in the layout's shape */
        CONVERT_NEEDS_RESHAPE,   /* BlueStore in another shape: rebuilt only with --reshape */
        _CONVERT_ACTION_MAX,
} ConvertAction;

/* A partition the conversion deletes (the old journal, DB or WAL of an OSD it rebuilds) or
 * creates (the layout's new DB, WAL or bcache cache of a slot). */
typedef struct ConvertPart {
        char *device;            /* the whole fast device, as in the inventory */
        unsigned partnum;
        char *partname;          /* GPT name: the old one (may be NULL), or cp:ROLE:SLOT:HOST */
        char *node;              /* old ones: the partition's node (/dev/sda1) */
        uint64_t offset, size;   /* bytes */
        PartRole role;
        int osd;                 /* the OSD it was or will be for */
        unsigned slot;           /* new ones: the OSD slot */
        bool kept_listed;        /* old ones: keep_partitions lists it (replaced all the same) */
        char *planned_device;    /* `device` when it was planned, when convert_plan_follow() found
                                    it under another name since; else NULL */
} ConvertPart;

/* An OSD's shape as fields (what ConvertOsd.from and .to say for people): now, from its
 * metadata; wanted, from the layout. Sizes in bytes, 0: none; strings NULL: none or unknown. */
typedef struct ConvertShape {
        char *objectstore;       /* "filestore" | "bluestore" */
        bool bcache;             /* on a bcache device (now), or to be (wanted) */
        char *journal;           /* now, FileStore: its journal partition or link */
        uint64_t cache_size;     /* wanted: the bcache cache partition */
        uint64_t db_size, wal_size;
        char *db_device, *wal_device; /* now: the DB/WAL paths of its metadata */
        char *fast_device;       /* wanted: the fast device of the slot's DB/WAL/cache */
} ConvertShape;

/* A partition of a fast device left as it is (ConvertHost.kept for people). */
typedef enum ConvertKeptWhy { CONVERT_KEPT_LISTED, CONVERT_KEPT_OURS, CONVERT_KEPT_OTHER } ConvertKeptWhy;
typedef struct ConvertKept {
        char *device;
        unsigned partnum;
        char *partname;          /* NULL: none */
        uint64_t size;
        ConvertKeptWhy why;      /* in keep_partitions, cephprov's, or neither */
        bool looks_like_journal; /* named or typed like one, and no OSD's metadata names it */
} ConvertKept;

typedef struct ConvertOsd {
        int id;
        ConvertAction action;
        char *data_device;       /* the whole data device (/dev/sdc) */
        unsigned slot;
        char *from;              /* the OSD now: "filestore, journal /dev/sda1" */
        char *to;                /* the layout's shape: "bluestore, DB 60 GiB on /dev/sda" */
        char **reasons;          /* each difference in words, NULL-terminated, at least one */
        ConvertShape now, wanted; /* from and to as fields */
        bool rebuilt;            /* in this plan: action REBUILD, or NEEDS_RESHAPE with reshape */
        bool parts_replaced;     /* set by the controller from the journal before convert_plan_follow():
                                    the run under way deleted this OSD's old partitions (its phase
                                    'wiped' or later), so one named as planned at their number is
                                    the run's own new partition, not someone else's */
        bool on_bcache;          /* its data device is a bcache device now */
        char *planned_device;    /* data_device when it was planned (the name the saved inventory
                                    has it under), when convert_plan_follow() found it under
                                    another name since; else NULL */
} ConvertOsd;

typedef struct ConvertHost {
        char *host;              /* the layout's name = the CRUSH host bucket's */
        bool in_crush;           /* the bucket exists */
        ConvertOsd *osds;        /* in slot order */
        size_t n_osds;
        ConvertPart *replaced;   /* deleted, by fast device (natural path order) and partition number */
        size_t n_replaced;
        ConvertPart *created;    /* per fast device, in slot order, DB/WAL/cache */
        size_t n_created;
        char **kept;             /* partitions of the fast devices left as they are, for people */
        ConvertKept *kept_parts; /* the same as fields */
        size_t n_kept_parts;
        char **notes;            /* what the plan leaves alone and why, for people */
        size_t n_unchanged;      /* OSDs of the bucket already in the layout's shape */
} ConvertHost;

typedef struct ConvertPlan {
        ConvertHost *hosts;      /* in layout order */
        size_t n_hosts;
        char **missing_hosts;    /* layout hosts without inventory (NULL-terminated; NULL: none) */
        bool reshape;
        char *replace_host;      /* a replacement's (ConvertOptions.replace_device), else NULL */
        char *replace_device;    /* the device replaced, as the host's inventory names it */
} ConvertPlan;

typedef struct ConvertOptions {
        char * const *hosts;     /* only these hosts (NULL-terminated; NULL: every host with a profile) */
        bool reshape;            /* rebuild BlueStore OSDs whose shape differs too */
        /* A replacement (`cephprov replace LAYOUT HOST DEVICE`): `hosts` names that one host,
         * and the plan takes only the OSDs of its CRUSH bucket that depend on this device (a
         * path or any link the host's inventory knows): the OSD whose data device it is
         * (from its metadata: its data path, or what lies under its logical volume,
         * bluestore_bdev_devices; with that device gone from the host, the one OSD of the
         * bucket down whose data device is gone), or, for a fast device, every OSD whose slot the layout puts
         * there or whose metadata lists it among its devices. Each is rebuilt in the layout's
         * shape with its id whatever it is now (the new device is blank: there is nothing to
         * compare), its old DB/WAL partitions that are still there replaced as in a
         * conversion. Refused, err naming host and device: a host without inventory or CRUSH
         * host bucket; a device the inventory does not have, or that the layout selects
         * neither as data nor as fast device; a device no OSD depends on; two OSDs down with
         * their data devices gone; a fast device lacking the partitions keep_partitions lists (a new disk: they are not cephprov's to make); a data device
         * carrying anything but its own OSD's label, unless the profile says wipe: true. */
        const char *replace_device;
} ConvertOptions;

/* Refuses (err names host and device) when the cluster and the inventory disagree on what a
 * device is (the metadata names a device that now carries another OSD: the names moved since
 * that OSD booted), when an OSD's journal or DB partition is on a device the layout does not
 * select as fast device, or when the new partitions do not fit. opts may be NULL. */
int plan_convert(const Layout *l, const InventorySet *inv, const CephOsdTree *tree, const CephOsdMetadataList *meta,
                 const ConvertOptions *opts, ConvertPlan **ret, Error *err);
ConvertPlan *convert_plan_free(ConvertPlan *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(ConvertPlan *, convert_plan_free);

/* A saved plan carried out later (a re-run after a kill, a host rebooted meanwhile): the
 * kernel names in p are those of `saved`, the inventories it was planned from, and may now be
 * other disks. On every host of p with an OSD to rebuild, each device the plan names is
 * found in `fresh` (the hosts' inventories now) by its stable identity
 * (plan_device_identity(): WWN, else model and serial, else a loop device's backing file)
 * and p is renamed to where it is now; each partition it replaces is found by its PARTUUID
 * (else GPT name, start and size) on that device, one gone being one deleted already. A
 * device without identity is taken only at its name and when nothing about it changed but
 * what the conversion does (its size; a data device's partition table as saved, blank, or
 * the rebuilt OSD's BlueStore label; a fast device's GPT disk GUID). *ret_changes (may be
 * NULL; NULL-terminated, NULL when nothing moved): one line per device or partition followed,
 * for people. Refused, p then half-renamed (throw it away), err naming the host, what the
 * plan uses the device for, its identity and both names ("osd.0's data device wwn X was
 * /dev/sdc when the convert was planned; /dev/sdc is now serial Y and wwn X is not on the
 * host: refusing"): an identity on no device or on two, a size changed, a device without
 * identity gone or changed, two devices of the plan on one name now, a host without fresh
 * inventory. */
int convert_plan_follow(ConvertPlan *p, const InventorySet *saved, const InventorySet *fresh, char ***ret_changes,
                        Error *err);

/* The plan's host of that name, NULL when it has none. */
const ConvertHost *convert_plan_host(const ConvertPlan *p, const char *host);

/* OSDs the plan rebuilds, and those that need --reshape and are not rebuilt. */
size_t convert_plan_count(const ConvertPlan *p, bool rebuilt);

const char *convert_action_to_string(ConvertAction a); /* "rebuild", "needs-reshape" */

/* The plan's new partition of `role` for OSD `id` on host h, NULL when it has none. */
const ConvertPart *convert_host_created(const ConvertHost *h, int id, PartRole role);

/* 0 when the steps can carry out every rebuild of plan p on hosts (NULL: all of them), checked
 * before anything changes, so that no OSD is destroyed for a rebuild that stops after it:
 * -ENOTSUP naming the first OSD to rebuild onto bcache that has no cache partition planned
 * (a partition of that name kept, not made). Rebuilds onto and from bcache are built. */
int convert_plan_check_built(const ConvertPlan *p, char * const *hosts, Error *err);

/* For people: per host the OSDs with their reasons, the partitions replaced, created and
 * kept, the notes; then the totals. Plain ASCII unless flags has PLAN_PRINT_UTF8. */
void convert_plan_print(const ConvertPlan *p, FILE *f, unsigned flags);
/* {"format": 1, "reshape": .., "hosts": [...], "n_rebuilt": .., "n_needs_reshape": ..,
 * "missing_hosts": [...]} members written into the object the caller opened on w. */
void convert_plan_write_json(const ConvertPlan *p, JsonWriter *w);
/* The whole document on f: {members}\n. 0 or -EIO. */
int convert_plan_print_json(const ConvertPlan *p, FILE *f);

/* How far a conversion of plan p got, from its journal's `convert-phase` records (a JSON
 * array of records, those of this conversion only): {"hosts_done": [..], "current": HOST or
 * absent, "hosts_left": [..], "osds": [{"id", "host", "phase" (the last journaled, absent
 * when none)}]}. A host is done when each OSD it rebuilds reached "converted", current when
 * some OSD of it has a phase and it is not done (the first such in plan order), left
 * otherwise. NULL on ENOMEM. */
json_object *convert_progress_json(const ConvertPlan *p, json_object *records);
