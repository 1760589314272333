/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The inventory model: what the agent reports for one host. Pure data plus its JSON form
 * (documented in docs/inventory.md). Probing real devices lives in the
 * agent (src/agent/), not here. Sizes and offsets are bytes. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "basic/macro.h"

#define INVENTORY_FORMAT_VERSION 1

typedef enum BcacheRole {
        BCACHE_ROLE_NONE,
        BCACHE_ROLE_BACKING,
        BCACHE_ROLE_CACHE,
} BcacheRole;

typedef struct InvBcache {
        BcacheRole role;
        char *set_uuid;          /* cache set UUID (cache: its own; backing: attached set, NULL if none) */
        char *dev_uuid;          /* the superblock's device UUID */
        char *bcache_device;     /* backing: /dev/bcacheN when registered, else NULL */
        char *cache_mode;        /* backing, registered: "writeback", ... */
        char *state;             /* backing: "clean", "dirty", "no cache", "inconsistent" */
        uint64_t dirty_bytes;
        uint64_t sequential_cutoff;
        int writeback_percent;   /* -1 unknown */
        double hit_ratio;        /* 0..1, -1 unknown */
} InvBcache;

typedef struct InvOsd {
        int id;                  /* -1: not an OSD device */
        char *osd_fsid;
        char *cluster_fsid;
        char *role;              /* "block", "block.db", "block.wal", "journal", "data" (filestore) */
        char *objectstore;       /* "bluestore", "filestore" */
        bool incomplete;         /* a BlueStore main label whose mkfs never finished (no "ready" in
                                    its meta, maybe no whoami): a half-made OSD, not an OSD */
        bool unconfirmed;        /* FileStore seen only from outside (an unmounted "ceph data"
                                    partition, a journal header): a hint, id -1, never proof */
        bool encrypted;          /* read through a dm-crypt (LUKS) mapping over the device: an OSD
                                    made with ceph-volume's dmcrypt, its mapping open */
        bool id_from_map;        /* `id` named by the controller from the OSD map (a DB/WAL label
                                    carries no whoami: plan_inventory_set_label_id()), not read
                                    from the label: never expected on the label itself */
} InvOsd;

/* Frees what `o` owns and leaves it empty (id -1). */
void inv_osd_done(InvOsd *o);

/* What a device or partition holds and who uses it. */
typedef struct InvContent {
        char *fstype;            /* blkid TYPE: xfs, ext4, swap, linux_raid_member, LVM2_member,
                                    bcache, ceph_bluestore, ... NULL when no signature */
        char *uuid;              /* blkid UUID */
        char *label;
        char *mountpoint;        /* first mount point, NULL if not mounted */
        char **holders;          /* /sys/.../holders: md0, dm-1, bcache0 */
        bool swap_active;
        InvBcache bcache;
        InvOsd osd;
} InvContent;

typedef struct InvPartition {
        unsigned number;
        uint64_t start;          /* bytes from device start */
        uint64_t size;
        char *node;              /* /dev/sdb3, /dev/loop0p3; NULL when the kernel has no node */
        char *partuuid;
        char *name;              /* GPT partition name */
        char *type_guid;         /* lowercase */
        InvContent content;
} InvPartition;

typedef struct InvDevice {
        char *name;              /* kernel name: sdb, loop3, nvme0n1 */
        char *path;              /* /dev/sdb */
        char **links;            /* /dev/disk/by-id/..., by-path; may be empty */
        uint64_t size;
        unsigned logical_sector_size;
        unsigned physical_sector_size;
        bool rotational;
        bool readonly;
        bool removable;
        char *model;
        char *serial;
        char *vendor;
        char *wwn;
        char *backing_file;      /* loop devices: the file behind it (their stable identity), else NULL */
        char *pttype;            /* "gpt", "dos", NULL when none */
        char *ptuuid;
        uint64_t first_usable;   /* GPT first/last usable byte (inclusive); 0/0 when no table */
        uint64_t last_usable;
        InvContent content;      /* whole-device signature, mounts, holders */
        InvPartition *partitions;
        size_t n_partitions;
        bool allowed;            /* in the host's allow-list */
} InvDevice;

typedef struct Inventory {
        char *host;              /* the layout's host name */
        char *hostname;          /* what the host calls itself */
        char *agent_version;
        bool bcache_available;   /* /sys/fs/bcache exists */
        bool udev_available;     /* udev data present (ID_* properties, by-id links) */
        InvDevice *devices;
        size_t n_devices;
} Inventory;

typedef struct InventorySet {
        Inventory **hosts;
        size_t n_hosts;
} InventorySet;

Inventory *inventory_free(Inventory *inv);
DEFINE_TRIVIAL_CLEANUP_FUNC(Inventory *, inventory_free);
InventorySet *inventory_set_free(InventorySet *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(InventorySet *, inventory_set_free);

void inv_content_done(InvContent *c);
void inv_device_done(InvDevice *d);

int inventory_to_json(const Inventory *inv, json_object **ret);
int inventory_from_json(json_object *o, Inventory **ret, Error *err);

/* File form: {"format": 1, "inventories": [ {inventory}, ... ]}. */
int inventory_set_to_json(const InventorySet *s, json_object **ret);
int inventory_set_from_json(json_object *o, InventorySet **ret, Error *err);
int inventory_set_load_file(const char *path, InventorySet **ret, Error *err);
/* Takes ownership of inv. */
int inventory_set_add(InventorySet *s, Inventory *inv);

const Inventory *inventory_set_find(const InventorySet *s, const char *host);
/* Find a device by path, kernel name or any of its links. */
const InvDevice *inventory_find_device(const Inventory *inv, const char *path_or_link);
/* `path` (an OSD's metadata names it) is partition `p`: its node, its PARTUUID link
 * (/dev/disk/by-partuuid/...), or a device-mapper node /dev/dm-N that holds it (an encrypted
 * OSD's DB/WAL: ceph-volume's LUKS mapping over the partition) */
bool inventory_partition_is(const InvPartition *p, const char *path);

/* A device's stable identity: "wwn 0x5000c500a1b2c3d4", else "serial MODEL SERIAL" (what
 * by-id names are made of), else, for a loop device, "file /path/of/the/backing/file"; NULL
 * when it has none (malloc'd; NULL too when out of memory). The one rule for the planner
 * (plan_device_identity(), partition names) and the agent (a destructive op's "expect"). */
char *inventory_device_identity(const InvDevice *d);

const char *bcache_role_to_string(BcacheRole r);

/* What an operator must hear about one bcache backing device (status): no cache attached,
 * not registered (no /dev/bcacheN), an inconsistent or dirty-without-cache state, a
 * sequential_cutoff that is not 0 (an OSD's writes look sequential to bcache and bypass the
 * cache). *ret gets a strv of sentences, NULL when there is nothing to say; -ENOMEM. */
int inv_bcache_warnings(const InvBcache *b, char ***ret);
