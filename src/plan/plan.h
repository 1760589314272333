/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The planner: a pure function from (layout, inventories) to a plan — per host, an ordered
 * list of steps with their dependencies. Deterministic; planning against an inventory that
 * already matches the layout gives an empty plan. No I/O. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "basic/error.h"
#include "basic/json-writer.h"
#include "inventory/inventory.h"
#include "layout/layout.h"
#include "ondisk/part-types.h" /* the type GUIDs the plan's partitions get */

#define PLAN_ALIGN (1024 * 1024) /* partitions start and end on 1 MiB */

typedef enum StepKind {
        STEP_WIPE,               /* wipe signatures of `device` (only with wipe: true) */
        STEP_CREATE_GPT,         /* blank `device` → empty GPT */
        STEP_CREATE_PARTITION,   /* partition `partnum` at offset/size named partname */
        STEP_MAKE_BCACHE_BACKING,/* bcache backing superblock on `device` (a data device) */
        STEP_MAKE_BCACHE_CACHE,  /* bcache cache superblock on partition `partname` of `device` */
        STEP_BCACHE_ATTACH,      /* attach backing `device` to the cache set on `partname` */
        STEP_BCACHE_TUNE,        /* cache_mode, sequential_cutoff, writeback_percent + udev rule */
        STEP_CREATE_OSD,         /* OSD with data on `device` (or its bcache), DB/WAL on partitions */
        _STEP_KIND_MAX,
} StepKind;

/* How steps of a kind run on their host: disk steps one at a time (each rewrites a table or
 * a superblock the next one reads), OSD creations side by side (a BlueStore mkfs can take
 * minutes). The executor takes a step's stage and concurrency from its class, never from
 * its kind. */
typedef enum StepClass {
        STEP_CLASS_DISK,
        STEP_CLASS_OSD,
} StepClass;

typedef enum PartRole {
        PART_ROLE_NONE,
        PART_ROLE_DB,
        PART_ROLE_WAL,
        PART_ROLE_CACHE,
        PART_ROLE_JOURNAL,
        _PART_ROLE_MAX_,
} PartRole;

/* What the plan saw of a step's target: the inventory's view, or what the plan's own earlier
 * steps leave there. The agent gets it as the request's "expect" and refuses the step when
 * the device changed since the plan (docs/agent.md). */
typedef struct StepSeen {
        bool set;                /* false: nothing to send */
        bool content;            /* type, uuid, pttype and ptuuid are known (else only the size) */
        char *type, *uuid;       /* blkid TYPE and UUID; NULL: none */
        char *pttype, *ptuuid;   /* whole devices: the partition table; NULL: none */
        uint64_t size;           /* bytes */
        /* who the target is, which no step of the plan changes: plan_device_identity() of the
         * whole device (a partition's: of its disk), NULL when it has none; an existing
         * partition's PARTUUID; the BlueStore label blkid found on it (fstype
         * ceph_bluestore), osd_uuid NULL when none. A partition this plan creates has none
         * of them (only its size). */
        char *identity;
        char *partuuid;          /* an existing partition: its PARTUUID (NULL: none) */
        uint64_t start;          /* an existing partition: bytes from its disk's start (0: not known) */
        char *osd_uuid, *ceph_fsid;
        int whoami;              /* -1: the label names none (a half-made OSD) */
} StepSeen;

/* What the plan saw of a device as the inventory shows it, for a destructive act outside a
 * host plan (destroy's wipes and partition deletions). *s is emptied first; -ENOMEM. */
int plan_seen_device(StepSeen *s, const InvDevice *d);
/* Of an existing partition `p` of `disk` (identity of the disk, PARTUUID, start, size, ...). */
int plan_seen_partition(StepSeen *s, const InvDevice *disk, const InvPartition *p);
void plan_seen_done(StepSeen *s);

typedef struct Step {
        unsigned id;             /* 1-based, unique within the host plan; steps are in a valid order */
        StepKind kind;
        char *device;            /* the whole device the step acts on (path as in the inventory) */
        char *reason;            /* why, for people: "create DB partition for /dev/sdc" */

        /* STEP_CREATE_PARTITION; also names the partition for MAKE_BCACHE_CACHE/ATTACH */
        unsigned partnum;
        uint64_t offset;         /* bytes */
        uint64_t size;           /* bytes */
        char *partname;          /* GPT name, see plan_partition_name() */
        const char *type_guid;
        PartRole role;
        unsigned slot;           /* OSD slot on the host (index of the data device, from 0) */
        char *part_device;       /* STEP_BCACHE_ATTACH: the fast device holding partname */

        /* STEP_BCACHE_TUNE */
        BcacheOptions bcache;

        /* STEP_CREATE_OSD: DB/WAL partitions named by GPT name on their fast device;
         * the executor resolves them to PARTUUIDs. */
        bool data_is_bcache;     /* data goes on the bcache device backed by `device` */
        bool encrypted;          /* ceph-volume's dmcrypt (the profile's osd.encrypted) */
        char *db_device;         /* fast device path, NULL: DB on the data device */
        char *db_partname;
        unsigned db_partnum;     /* for people; the executor goes by db_partname */
        char *wal_device;
        char *wal_partname;
        unsigned wal_partnum;
        char *journal_device;    /* FileStore: journal partition, like db_* */
        char *journal_partname;
        unsigned journal_partnum;
        char *device_class;      /* explicit CRUSH class, always set */
        Objectstore objectstore;
        char *half_made_osd_fsid;/* the data device carries a half-made OSD with this osd uuid
                                    (what the plan saw; apply decides whether it is cephprov's) */
        int osd_id;              /* the id apply's allocator would take (the lowest free one, in
                                    plan order) when the ids in use were given; -1: unknown */

        /* the target (`device`, or partition `partname` for MAKE_BCACHE_CACHE), and the
         * STEP_CREATE_OSD DB/WAL partitions, as the plan saw them */
        StepSeen seen, db_seen, wal_seen;

        unsigned *deps;          /* ids of steps that must succeed first */
        size_t n_deps;
} Step;

/* Blast radius: which data devices (and so OSDs) fail with one fast device. */
typedef struct FastDeviceUse {
        char *fast_device;
        char **data_devices;     /* NULL-terminated */
        uint64_t used;           /* bytes of cephprov partitions (planned + existing) */
        uint64_t free_after;     /* largest free extent left after the plan */
        uint64_t free_total;     /* all free space left after the plan (usable range, 1 MiB aligned) */
} FastDeviceUse;

/* A partition a device keeps (keep_partitions, or an existing cephprov one), for people. */
typedef struct PlanKept {
        unsigned number;
        char *name;              /* GPT name, NULL: none */
        char *holder;            /* first holder (md0), NULL: none */
        uint64_t size;
} PlanKept;

/* A device the host plan selects, named as an operator finds it in the rack. */
typedef struct PlanDevice {
        char *path;              /* /dev/sdc, as in the steps */
        char *by_id;             /* a /dev/disk/by-id/ name (the model_serial one first, then wwn-); NULL: none */
        char *model, *serial;    /* NULL: unknown */
        uint64_t size;
        bool rotational;
        bool fast;               /* a fast device (DB/WAL/cache/journal), else a data device */
        unsigned slot;           /* data devices: the OSD slot */
        PlanKept *kept;          /* partitions left as they are */
        size_t n_kept;
} PlanDevice;

/* A cephprov partition (its GPT name is this host's, see plan_partition_name()) that the
 * layout no longer asks for: no step removes it (removal is destroy's), so the plan says so. */
typedef struct PlanDrift {
        char *device;            /* the whole device */
        unsigned partnum;
        char *partname;
        PartRole role;
        unsigned slot;
        uint64_t size;
        char *reason;            /* why it is not wanted, for people */
} PlanDrift;

typedef struct HostPlan {
        char *host;
        Step *steps;
        size_t n_steps;
        FastDeviceUse *fast;
        size_t n_fast;
        char **osd_data;         /* data devices that carry (or will carry) an OSD, in slot order */
        char **notes;            /* for people: what the plan leaves alone and why (NULL-terminated) */
        char **warnings;         /* what the plan does that an operator should look at twice (a DB
                                    size off Ceph's recommendation) (NULL-terminated) */
        PlanDevice *devices;     /* selected devices: fast ones, then data ones in slot order */
        size_t n_devices;
        PlanDrift *drift;
        size_t n_drift;
        /* totals, for people */
        unsigned n_osds;         /* OSDs on the host after the plan (existing + new) */
        unsigned n_new_osds;
        uint64_t raw_new;        /* bytes of the data devices of the new OSDs */
        uint64_t raw_total;      /* bytes of all OSD data devices */
        unsigned n_wipes;        /* devices the plan wipes (wipe: true) */
        uint64_t wipe_bytes;     /* their sizes */
} HostPlan;

/* A host the plan refused (with PlanOptions.keep_going): its name and why. */
typedef struct PlanRefusal {
        char *host;
        char *message;           /* as plan_compute() would have failed with it */
} PlanRefusal;

void plan_refusals_free(PlanRefusal *r, size_t n);

typedef struct Plan {
        HostPlan *hosts;
        size_t n_hosts;
        char **missing_hosts;    /* hosts of the layout (and of PlanOptions.hosts) with no inventory,
                                    with PlanOptions.missing_ok; NULL-terminated, NULL: none */
        bool osd_ids_known;      /* Step.osd_id was computed from the given ids in use */
        PlanRefusal *refused;    /* with PlanOptions.keep_going: the hosts refused, in layout order */
        size_t n_refused;
} Plan;

typedef struct PlanOptions {
        char * const *hosts;     /* plan only these hosts (NULL-terminated; NULL: every host) */
        bool missing_ok;         /* a host without inventory goes to Plan.missing_hosts instead of
                                    refusing the plan */
        const int *osd_ids_in_use; /* with osd_ids_known: the cluster's OSD ids (`ceph osd ls`),
                                      sorted; Step.osd_id is set as plan_assign_osd_ids() does */
        size_t n_osd_ids_in_use;
        bool osd_ids_known;
        bool keep_going;         /* a refused host goes to Plan.refused (PlanSummary.refused) with its
                                    message and the other hosts are planned, instead of the refusal
                                    ending the plan (only running out of memory still does) */
} PlanOptions;

/* Every host of the layout with a profile must have an inventory in `inv`.
 * Refuses impossible layouts with a reason naming host and device (not enough free space,
 * ratio cannot be met, device missing, device not allowed, device carries data). */
int plan_compute(const Layout *l, const InventorySet *inv, Plan **ret, Error *err);
/* The same with options: only some hosts, hosts without inventory listed rather than
 * refused. A host not selected is not planned at all, so its
 * refusal cannot block the others. opts may be NULL (= plan_compute()). */
int plan_compute_ext(const Layout *l, const InventorySet *inv, const PlanOptions *opts, Plan **ret, Error *err);

/* One host at a time, for callers that write as they go (a Plan of 1,000 hosts × 24 OSDs
 * takes ~100 MB; one HostPlan, ~100 KB): `each` gets every host plan in layout order and may
 * take it over (move it and leave *h zeroed); else it is freed after the call. A refused host
 * stops the walk with its error, after the hosts before it were handed out, so a caller that
 * must not print a partial plan walks twice (count, then print). *ret_summary (may be NULL)
 * gets the counts, the hosts without inventory (missing_ok; free with strv_free()) and the
 * refused ones (keep_going: those are not handed to `each`, and do not stop the walk). */
typedef struct PlanSummary {
        size_t n_hosts;
        size_t n_steps;
        char **missing_hosts;
        PlanRefusal *refused;    /* keep_going: free with plan_refusals_free() */
        size_t n_refused;
} PlanSummary;
typedef int (*plan_host_func)(HostPlan *h, void *userdata, Error *err);
int plan_compute_each(const Layout *l, const InventorySet *inv, const PlanOptions *opts, plan_host_func each,
                      void *userdata, PlanSummary *ret_summary, Error *err);

/* Set Step.osd_id of every create-osd step to the id apply's allocator would get if nothing
 * else allocates first: the lowest ids not in `in_use` (sorted), in plan order. */
void plan_assign_osd_ids(Plan *p, const int *in_use, size_t n_in_use);

/* Parse the cluster's OSD ids in use: `ceph osd ls -f json` ([0, 1, 5]) or plain `ceph osd
 * ls` (one id per line). Returns a malloc'd array, sorted, without duplicates. */
int plan_parse_osd_ids(const char *text, int **ret, size_t *ret_n, Error *err);

Plan *plan_free(Plan *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(Plan *, plan_free);

/* Keep only the plans of these hosts (NULL-terminated names). */
void plan_filter_hosts(Plan *p, char * const *hosts);

bool plan_is_empty(const Plan *p);
size_t plan_count_steps(const Plan *p);

#define PLAN_FORMAT_VERSION 1

/* The plan's JSON members ("format", "n_steps", "hosts", ...; docs/plan.md) written into the
 * object the caller opened on w, as they are produced: nothing is built as a tree. */
void plan_write_json(const Plan *p, JsonWriter *w);
/* The whole document on f: {members}\n. 0 or -EIO. */
int plan_print_json(const Plan *p, FILE *f);
/* The same members in pieces, for host plans written as they are computed
 * (plan_compute_each): begin (format, n_steps, the hosts array opened), each host, end
 * (the array closed, missing_hosts and refused_hosts, the result and the totals of the hosts
 * written, which the caller adds up with plan_totals_add()). */
struct PlanTotals;
void plan_write_json_begin(JsonWriter *w, size_t n_steps);
void plan_write_json_host(JsonWriter *w, const HostPlan *h, bool osd_ids);
void plan_write_json_end(JsonWriter *w, const struct PlanTotals *t, char * const *missing_hosts,
                         const PlanRefusal *refused, size_t n_refused);

typedef enum PlanPrintFlags {
        PLAN_PRINT_UTF8 = 1 << 0, /* arrows and multiplication signs; else plain ASCII */
        PLAN_PRINT_PREVIEW = 1 << 1, /* the OSD preview table and each host's summary, not every
                                      * step (plan --detail has them) */
} PlanPrintFlags;

/* A table per host (devices with their by-id names and kept partitions, new partitions,
 * steps, OSDs, blast radius, drift, totals), then the totals of the plan. Plain ASCII unless
 * flags has PLAN_PRINT_UTF8 (the caller decides from the locale). */
void plan_print(const Plan *p, FILE *f, unsigned flags);
/* The OSD preview (PLAN_PRINT_PREVIEW) piece by piece, for a plan printed one host at a
 * time: the header, a host's rows (returns how many), a host's summary (its step count,
 * blast radius, drift, notes, warnings). */
void plan_print_preview_header(FILE *f);
size_t plan_print_preview_rows(const HostPlan *h, FILE *f);
void plan_print_host_summary(const HostPlan *h, FILE *f, unsigned flags);

/* plan_print() in pieces: each host (separate them with an empty line), then the totals
 * gathered with plan_totals_add(). */
typedef struct PlanTotals {
        size_t n_hosts, n_steps, n_new, n_drift, n_wipes;
        uint64_t raw, used, left, wipe_bytes;
        int *ids;                /* OSD ids in plan order, when known */
        size_t n_ids, cap_ids;
        bool ids_lost;           /* out of memory: the ids line is left out */
} PlanTotals;
void plan_print_host(const HostPlan *h, FILE *f, unsigned flags);
void plan_totals_add(PlanTotals *t, const HostPlan *h);
void plan_print_totals(const PlanTotals *t, char * const *missing_hosts, const PlanRefusal *refused, size_t n_refused,
                       FILE *f);
void plan_totals_done(PlanTotals *t);

const char *step_kind_to_string(StepKind k);
StepClass step_kind_class(StepKind k);
const char *part_role_to_string(PartRole r);
/* The role as people read it in plans and messages ("DB", "WAL", "bcache cache", "journal");
 * "?" for none. */
const char *part_role_title(PartRole r);

/* The BlueStore DB/WAL labels on the host's cephprov partitions whose OSD is on none of the
 * host's data devices (an OSD whose data device is gone) and that carry no id (BlueStore
 * writes whoami on the main label only): the caller may name them with
 * plan_inventory_set_label_id() from the cluster's OSD map. */
size_t plan_inventory_unnamed_labels(const Inventory *inv);
/* Sets the id of every label with this osd uuid that has none; returns how many. */
size_t plan_inventory_set_label_id(Inventory *inv, const char *osd_fsid, int id);
/* Marks every DB/WAL label with this osd uuid incomplete: the cluster says its OSD never
 * booted (an apply killed in its mkfs) or does not have it. Such a label does not make its
 * partition a dead OSD's: the partition goes with the data device its name says (the
 * agent then decides whether that label may be erased, from the OSD map). */
size_t plan_inventory_mark_stale_label(Inventory *inv, const char *osd_fsid);

/* Some data device of the host carries OSD `id` (or the OSD of that uuid): on the device, a
 * partition, or the bcache device it backs. */
bool plan_inventory_has_osd(const Inventory *inv, int id, const char *osd_fsid);

/* A device's stable identity, for people and for its tag: "wwn 0x5000c500a1b2c3d4", else
 * "serial MODEL SERIAL", else (loop devices) "file /path/of/the/backing/file"; NULL when it
 * has none (malloc'd). */
char *plan_device_identity(const InvDevice *d);
#define PLAN_TAG_MAX 10
/* "@" and 8 hex digits of SHA-256 over plan_device_identity() (a device without one: over its
 * path, so that device is known by its name only). */
void plan_device_tag(const InvDevice *d, char ret[static PLAN_TAG_MAX]);

/* GPT name identifying a cephprov partition: "cp:<role>:<tag>:<host>" with the tag of the data
 * device it serves (plan_device_tag()), cut to 36 UTF-16 units (GPT's limit). Malloc'd. */
char *plan_partition_name(const char *host, PartRole role, const char *tag);
/* The name the planner gave before identity names: "cp:<role>:<slot>:<host>", slot a position
 * in the host's data devices. Still recognised as cephprov's; never given to a new partition. */
char *plan_partition_name_legacy(const char *host, PartRole role, unsigned slot);
/* Parse either form; returns false if it is not cephprov's. *ret_slot gets the legacy slot
 * (UINT_MAX for a tag name), ret_tag the tag ("" for a legacy name); each may be NULL. */
bool plan_partition_name_parse(const char *name, PartRole *ret_role, unsigned *ret_slot, char ret_tag[PLAN_TAG_MAX]);
