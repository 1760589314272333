/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* ceph-volume on a storage host: argv builders for creating OSDs one by one (`lvm batch`
 * refuses partitions for DB/WAL) and parsers of its listings, so the agent can tell which
 * OSD sits on which device. Pure code, like ceph.h. */

#include <stdbool.h>
#include <stddef.h>

#include "basic/error.h"
#include "basic/macro.h"

/* ceph-volume 16.2.15 crashes on loop devices (UnboundLocalError: device_slaves) unless
 * this is in its environment; the lab needs it, real disks do not. */
#define CEPH_VOLUME_ENV_ALLOW_LOOP "CEPH_VOLUME_ALLOW_LOOP_DEVICES=1"

typedef struct CephVolumePrepare {
        const char *data;         /* required: the data device ("/dev/sdc", a bcache device) */
        const char *db;           /* optional block.db partition (by PARTUUID path preferred) */
        const char *wal;          /* optional block.wal */
        int osd_id;               /* -1: let `osd new` pick; else reuse a *destroyed* id */
        const char *crush_device_class; /* optional: set at creation ("hdd" behind bcache) */
        bool dmcrypt;             /* --dmcrypt: LUKS on data, DB and WAL, keys in the mon's
                                   * config-key store (dm-crypt/osd/OSD_FSID/luks) */
} CephVolumePrepare;

/* `ceph-volume raw prepare --bluestore --data D [--block.db P] [--block.wal P]
 *  [--osd-id N] [--crush-device-class C]`. --osd-id must name a destroyed id (or one the
 * cluster does not know): an id still "new" from `osd new` fails with EINVAL "id N
 * already in use and does not match uuid". On failure after `osd new` ceph-volume runs
 * `osd purge-new`: a destroyed id's CRUSH slot is then gone (docs/ceph.md). */
char **ceph_volume_argv_raw_prepare(const CephVolumePrepare *p, Error *err);
/* Whether a failed `raw prepare` / `lvm create` (its stdout and stderr) failed only because
 * another block device of the machine vanished while ceph-volume listed them all (it reads
 * every /sys/block entry before it prepares: a partition another tool removed meanwhile is a
 * FileNotFoundError on its sysfs path), before it asked the cluster for anything (no `osd
 * new` ran). Such a run touched nothing and may run again; a failure that names `data`'s own
 * sysfs entry, or came after `osd new`, is not this. */
bool ceph_volume_failed_on_vanished_device(const char *out, const char *err_text, const char *data);
/* `ceph-volume lvm create --bluestore ...` with the same options (prepare + activate, where
 * LVM and device-mapper exist). */
char **ceph_volume_argv_lvm_create(const CephVolumePrepare *p, Error *err);
/* `ceph-volume raw activate --device D [--block.db P] [--block.wal P] --no-systemd`
 * (16.2.15 refuses without --no-systemd: "systemd support not yet implemented"); start
 * the daemon afterwards with `systemctl start ceph-osd@N`. */
char **ceph_volume_argv_raw_activate(const char *data, const char *db, const char *wal, Error *err);
/* `ceph-volume raw list [DEVICE] --format json` (with a DEVICE, 16.2.15 omits the
 * device_db of that OSD: list all and filter). */
char **ceph_volume_argv_raw_list(const char *device, Error *err);
char **ceph_volume_argv_lvm_list(const char *device, Error *err);
/* `ceph-volume lvm zap [--destroy] DEVICE` (works for raw devices and partitions too) */
char **ceph_volume_argv_zap(const char *device, bool destroy, Error *err);

typedef enum CephVolumeSource {
        CEPH_VOLUME_RAW,
        CEPH_VOLUME_LVM,
} CephVolumeSource;

typedef struct CephVolumeOsd {
        int osd_id;
        char *osd_uuid;   /* osd fsid */
        char *ceph_fsid;  /* cluster fsid: raw list shows every BlueStore label it finds,
                           * other clusters' included; compare with the cluster's */
        char *type;       /* "bluestore" | "filestore" */
        char *device;     /* data: the raw device, or for LVM the PV under the block LV */
        char *device_db;  /* NULL without one; LVM: the PV or partition holding the DB */
        char *device_wal;
        char *lv_path;    /* LVM only: "/dev/ceph-x/osd-block-y" */
        char *crush_device_class; /* LVM tag ceph.crush_device_class, when set */
        CephVolumeSource source;
} CephVolumeOsd;

typedef struct CephVolumeList {
        CephVolumeOsd *osds; /* sorted by osd id, then uuid */
        size_t n_osds;
} CephVolumeList;

int ceph_volume_raw_list_parse(const char *json, CephVolumeList **ret, Error *err);
int ceph_volume_lvm_list_parse(const char *json, CephVolumeList **ret, Error *err);
CephVolumeList *ceph_volume_list_free(CephVolumeList *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephVolumeList *, ceph_volume_list_free);

/* The OSD whose data, DB or WAL is `device` (exact path), of cluster `fsid` (NULL: any).
 * NULL when none. */
const CephVolumeOsd *ceph_volume_list_find_device(const CephVolumeList *l, const char *device,
                                                  const char *fsid);
const CephVolumeOsd *ceph_volume_list_find_osd(const CephVolumeList *l, int osd_id, const char *fsid);
