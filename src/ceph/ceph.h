/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What cephprov asks a Ceph cluster and how it reads the answers.
 *
 * Pure code: the parsers take the text the `ceph` CLI printed (with `-f json`) and build
 * small structs; the argv builders return NULL-terminated argv arrays to exec directly
 * (never a shell string). Running the commands is someone else's job (the agent's "run"
 * op on the admin host). Every parser was written against captured output of a real
 * cluster (tests/data/ceph/, Ceph 16.2.15 Pacific); docs/ceph.md says how to read it.
 *
 * Ownership: every `*_parse` returns a new object through `ret` (untouched on failure);
 * free it with the matching `*_free` (NULL-safe, returns NULL). */

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "basic/macro.h"

/* The ceph CLI exits with EBUSY (16) when a gate (ok-to-stop, safe-to-destroy, a device
 * class already bound) says "not now", with ENOENT (2) for a missing key. */
#define CEPH_EXIT_EBUSY 16
#define CEPH_EXIT_ENOENT 2

/* ---- releases ---------------------------------------------------------------------- */

typedef enum CephRelease {
        CEPH_RELEASE_UNKNOWN = 0,
        CEPH_RELEASE_LUMINOUS = 12,
        CEPH_RELEASE_MIMIC = 13,
        CEPH_RELEASE_NAUTILUS = 14,
        CEPH_RELEASE_OCTOPUS = 15,
        CEPH_RELEASE_PACIFIC = 16,
        CEPH_RELEASE_QUINCY = 17,
        CEPH_RELEASE_REEF = 18,
        CEPH_RELEASE_SQUID = 19,
        CEPH_RELEASE_TENTACLE = 20,
} CephRelease;

/* "pacific", NULL for an unknown release */
const char *ceph_release_to_string(CephRelease r);
/* "pacific" → CEPH_RELEASE_PACIFIC; CEPH_RELEASE_UNKNOWN when not known */
CephRelease ceph_release_from_string(const char *name);
/* Quincy and later schedule recovery with mClock: osd_max_backfills and friends are
 * ignored unless osd_mclock_override_recovery_settings; throttle with mClock profiles. */
bool ceph_release_uses_mclock(CephRelease r);

typedef struct CephVersion {
        unsigned major, minor, patch;
        CephRelease release; /* from the major number */
} CephVersion;

/* "ceph version 16.2.15 (618f...) pacific (stable)" or "16.2.15" → {16, 2, 15, PACIFIC} */
int ceph_version_parse(const char *s, CephVersion *ret, Error *err);

/* `ceph versions -f json`: every daemon's version string, counted per daemon type. */
typedef struct CephVersions {
        CephVersion oldest;  /* lowest version running anywhere ("overall") */
        CephVersion newest;  /* highest */
        unsigned n_distinct; /* > 1: an upgrade is in progress (mixed versions) */
        unsigned n_mon, n_mgr, n_osd, n_mds; /* daemons reporting */
} CephVersions;

int ceph_versions_parse(const char *json, CephVersions *ret, Error *err);

/* ---- health ------------------------------------------------------------------------ */

typedef enum CephHealthStatus {
        CEPH_HEALTH_UNKNOWN,
        CEPH_HEALTH_OK,
        CEPH_HEALTH_WARN,
        CEPH_HEALTH_ERR,
} CephHealthStatus;

const char *ceph_health_status_to_string(CephHealthStatus s); /* "HEALTH_OK" */
CephHealthStatus ceph_health_status_from_string(const char *s);

typedef struct CephHealthCheck {
        char *code;     /* "OSD_DOWN", "OSDMAP_FLAGS", "PG_DEGRADED" ... */
        CephHealthStatus severity;
        char *summary;  /* "1 osds down" */
        uint64_t count; /* summary.count (0 when absent) */
        bool muted;
        char **details; /* detail[].message, NULL-terminated, may be empty (never NULL) */
} CephHealthCheck;

typedef struct CephHealth {
        CephHealthStatus status;
        CephHealthCheck *checks; /* sorted by code */
        size_t n_checks;
} CephHealth;

/* `ceph health detail -f json`, or `ceph status -f json` (its "health" member). */
int ceph_health_parse(const char *json, CephHealth **ret, Error *err);
CephHealth *ceph_health_free(CephHealth *h);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephHealth *, ceph_health_free);
const CephHealthCheck *ceph_health_find(const CephHealth *h, const char *code);

/* ---- osd tree ---------------------------------------------------------------------- */

typedef enum CephOsdTreeStatus {
        CEPH_OSD_TREE_UP,
        CEPH_OSD_TREE_DOWN,
        CEPH_OSD_TREE_DESTROYED, /* `osd destroy`: the id is kept for reuse (--osd-id) */
} CephOsdTreeStatus;

/* "up", "down", "destroyed": the words `ceph osd tree` prints */
const char *ceph_osd_tree_status_to_string(CephOsdTreeStatus s);

typedef struct CephTreeOsd {
        int id;
        char *device_class; /* NULL: none bound (after rm-device-class, or a stray) */
        char *host;         /* CRUSH host bucket; NULL for a stray (not in CRUSH) */
        CephOsdTreeStatus status;
        bool in;            /* reweight > 0 */
        double reweight;    /* 0 = out, 1 = in */
        double crush_weight;
        bool stray;         /* in the "stray" list: exists but not placed in CRUSH */
} CephTreeOsd;

typedef struct CephTreeHost {
        int bucket_id; /* negative CRUSH id */
        char *name;
        int *osds;     /* ids, in the order ceph lists them */
        size_t n_osds;
} CephTreeHost;

typedef struct CephOsdTree {
        CephTreeHost *hosts;
        size_t n_hosts;
        CephTreeOsd *osds; /* sorted by id, placed and stray */
        size_t n_osds;
} CephOsdTree;

int ceph_osd_tree_parse(const char *json, CephOsdTree **ret, Error *err);
CephOsdTree *ceph_osd_tree_free(CephOsdTree *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephOsdTree *, ceph_osd_tree_free);
const CephTreeOsd *ceph_osd_tree_find_osd(const CephOsdTree *t, int id);
const CephTreeHost *ceph_osd_tree_find_host(const CephOsdTree *t, const char *name);

/* ---- osd dump ---------------------------------------------------------------------- */

typedef struct CephDumpOsd {
        int id;
        char *uuid;      /* the OSD's fsid, as given to `osd new UUID` */
        bool up, in;
        bool exists;     /* state "exists" */
        bool is_new;     /* state "new": allocated by `osd new`, never booted */
        bool destroyed;  /* state "destroyed" */
        double weight;   /* the in/out weight (reweight) */
        uint64_t up_from; /* epoch the OSD last booted in; 0: it never booted */
} CephDumpOsd;

typedef struct CephDumpPool {
        int id;
        char *name;
        unsigned size, min_size, pg_num;
} CephDumpPool;

typedef struct CephOsdDump {
        uint64_t epoch;
        char *fsid;
        char **flags;               /* "noout", "norebalance", ... NULL-terminated, never NULL */
        char **node_flags;          /* "NODE FLAG" per flag of a CRUSH node (osd set-group), never NULL */
        CephRelease require_osd_release;
        CephDumpOsd *osds;          /* sorted by id */
        size_t n_osds;
        CephDumpPool *pools;
        size_t n_pools;
        int max_osd;
} CephOsdDump;

int ceph_osd_dump_parse(const char *json, CephOsdDump **ret, Error *err);
CephOsdDump *ceph_osd_dump_free(CephOsdDump *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephOsdDump *, ceph_osd_dump_free);
const CephDumpOsd *ceph_osd_dump_find_osd(const CephOsdDump *d, int id);
const CephDumpOsd *ceph_osd_dump_find_uuid(const CephOsdDump *d, const char *uuid);
bool ceph_osd_dump_has_flag(const CephOsdDump *d, const char *flag);
/* the flag set on CRUSH node `node` itself (`osd set-group FLAG NODE`: "crush_node_flags") */
bool ceph_osd_dump_has_node_flag(const CephOsdDump *d, const char *node, const char *flag);
/* 0 when every id exists in the map, else -ENOENT naming the first missing one. Ask this
 * before a gate: ok-to-stop and safe-to-destroy answer "yes" for ids that do not exist. */
int ceph_osd_dump_check_ids(const CephOsdDump *d, const int *ids, size_t n, Error *err);

/* The OSD map's identities, as an osd-create request carries them ("osd_map",
 * docs/agent.md): {"fsid": F, "epoch": E, "osds": [{"osd": N, "uuid": U, "destroyed": B},
 * ...]}, every OSD of the map — what an agent needs to tell whether the OSD of a BlueStore
 * label is still the cluster's. NULL when out of memory. */
json_object *ceph_osd_dump_identities_to_json(const CephOsdDump *d);
/* Reads that object back: a CephOsdDump with only epoch, fsid and each OSD's id, uuid and
 * destroyed (exists set; no flags, no pools). An error naming `what` when it is not that. */
int ceph_osd_dump_identities_from_json(json_object *o, const char *what, CephOsdDump **ret, Error *err);

/* ---- osd metadata ------------------------------------------------------------------ */

typedef struct CephOsdMetadata {
        int id;
        char *hostname;           /* the daemon's host name (not necessarily its CRUSH host) */
        char *objectstore;        /* "bluestore" | "filestore" */
        char *ceph_release;       /* "pacific" */
        char *osd_data;           /* "/var/lib/ceph/osd/ceph-0" */
        char *default_device_class; /* what the OSD would pick: "hdd" | "ssd" */
        char **devices;           /* kernel names of every device used: "sdc", "sdb", NULL-terminated;
                                   * NULL when not reported (an OSD that never booted is listed
                                   * with its id only) */
        char **device_ids;        /* "sdc=ST2000NM0135_ZFL01410K", as the OSD reported them (its
                                   * disks' model_serial); NULL when not reported */
        /* BlueStore */
        char *bdev_type;          /* bluestore_bdev_type "hdd" | "ssd" */
        char *bdev_path;          /* bluestore_bdev_partition_path "/dev/sdc" ("/dev/bcache0" on bcache,
                                   * "/dev/dm-3" on a ceph-volume logical volume) */
        char **bdev_devices;      /* bluestore_bdev_devices: the kernel names under the data device
                                   * ("sdc"; "bcache0" under an LV on bcache: Ceph follows
                                   * device-mapper's slaves), NULL-terminated; NULL: not reported */
        uint64_t bdev_size;       /* bluestore_bdev_size, bytes; 0: not reported */
        char *filestore_path;     /* backend_filestore_partition_path (FileStore's data device) */
        bool dedicated_db;        /* bluefs_dedicated_db == "1" */
        char *db_path;            /* bluefs_db_partition_path, NULL without a dedicated DB */
        char *db_type;            /* bluefs_db_type */
        uint64_t db_size;         /* bluefs_db_size, bytes (the DB device or partition); 0: none */
        bool dedicated_wal;
        char *wal_path;           /* bluefs_wal_partition_path */
        uint64_t wal_size;        /* bluefs_wal_size, bytes; 0: none */
        /* FileStore */
        char *journal_path;       /* backend_filestore_journal_partition_path / osd_journal */
        char *journal_partition;  /* backend_filestore_journal_partition_path only: the block device
                                   * the journal is ("/dev/sdb1"), as the OSD found it when it
                                   * booted; NULL when absent or "unknown" (a journal file) */
        char *journal_link;       /* osd_journal: the journal's path in the OSD's configuration
                                   * ("/var/lib/ceph/osd/ceph-3/journal", a symlink) */
} CephOsdMetadata;

typedef struct CephOsdMetadataList {
        CephOsdMetadata *osds; /* sorted by id */
        size_t n_osds;
} CephOsdMetadataList;

/* `ceph osd metadata -f json` (an array) or `ceph osd metadata N -f json` (one object).
 * OSDs that never booted are listed with their id only: every other field NULL/false. */
int ceph_osd_metadata_parse(const char *json, CephOsdMetadataList **ret, Error *err);
CephOsdMetadataList *ceph_osd_metadata_list_free(CephOsdMetadataList *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephOsdMetadataList *, ceph_osd_metadata_list_free);
const CephOsdMetadata *ceph_osd_metadata_find(const CephOsdMetadataList *l, int id);

/* ---- placement groups -------------------------------------------------------------- */

typedef struct CephPgStateCount {
        char *state; /* "active+undersized+degraded" */
        uint64_t count;
} CephPgStateCount;

typedef struct CephPgStat {
        uint64_t num_pgs;
        CephPgStateCount *states;
        size_t n_states;
        uint64_t degraded_objects, misplaced_objects, unfound_objects;
        uint64_t client_ops_sec; /* read_op_per_sec + write_op_per_sec (absent when idle: 0) */
} CephPgStat;

/* `ceph pg stat -f json` (pg_summary.num_pg_by_state) or `ceph status -f json`
 * (pgmap.pgs_by_state). */
int ceph_pg_stat_parse(const char *json, CephPgStat **ret, Error *err);
CephPgStat *ceph_pg_stat_free(CephPgStat *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephPgStat *, ceph_pg_stat_free);

/* Every PG is exactly "active+clean", the counts add up to num_pgs, and no object is
 * degraded, misplaced or unfound (a cluster with no PGs is clean). */
bool ceph_pg_stat_all_active_clean(const CephPgStat *s);
/* PGs whose state has every flag of `flags` ("degraded", "backfilling",
 * "active+remapped"); "!active" counts the PGs that lack "active" (inactive). */
uint64_t ceph_pg_stat_count(const CephPgStat *s, const char *flags);

/* true when `state` ("active+clean+scrubbing") has the flag `flag` ("clean") */
bool ceph_pg_state_has(const char *state, const char *flag);

typedef struct CephPgBrief {
        char *pgid;  /* "1.1f" */
        char *state;
        int *up;
        size_t n_up;
        int *acting;
        size_t n_acting;
} CephPgBrief;

typedef struct CephPgDump {
        CephPgBrief *pgs;
        size_t n_pgs;
} CephPgDump;

/* `ceph pg dump pgs_brief -f json` (Pacific: {"pg_ready":..,"pg_stats":[..]}; older
 * releases print the bare array: both accepted). */
int ceph_pg_dump_parse(const char *json, CephPgDump **ret, Error *err);
CephPgDump *ceph_pg_dump_free(CephPgDump *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephPgDump *, ceph_pg_dump_free);
/* After `osd out` of `osds`: the PGs not peered yet at the map that has them out. A PG with
 * one of them in its up set (its stats are of an earlier map), or any PG not active, or
 * peering, or stale: the out re-peers PGs that no longer have them in any set too (the lab,
 * seconds after `osd out 4 5`: 20 PGs peering with neither in up nor acting). */
size_t ceph_pg_dump_count_unpeered(const CephPgDump *d, const int *osds, size_t n_osds);
/* PGs with `osd` in their up or acting set that are not active+clean */
size_t ceph_pg_dump_count_unclean_on_osd(const CephPgDump *d, int osd);

/* ---- gates: ok-to-stop, safe-to-destroy -------------------------------------------- */

/* Both gates answer "not now" with exit status 16 (EBUSY) and lag a few seconds behind
 * the cluster: callers poll with a timeout, and after safe-to-destroy still wait for
 * every PG to be active+clean (it says "safe" while PGs recover: see docs/ceph.md). */

typedef struct CephOkToStop {
        bool ok;
        int *osds;                    /* the OSDs asked about */
        size_t n_osds;
        uint64_t num_ok_pgs, num_not_ok_pgs;
        size_t n_become_inactive;     /* PGs that would go inactive (the reason for "no") */
        size_t n_become_degraded;     /* ok_become_degraded + ok_become_more_degraded */
        char *message;                /* the CLI's stderr line, e.g. "unsafe to stop osd(s) ..." */
} CephOkToStop;

/* From the exit status and both streams of `ceph osd ok-to-stop IDS -f json`:
 * exit 0 → ok; exit 16 → not ok (the JSON on stdout, when there is one, says why); any
 * other exit, or a JSON that contradicts the exit status, is an error naming stderr; so is
 * exit 0 without a JSON answer. It says ok for an id that does not exist: check the ids
 * against the OSD map. */
int ceph_ok_to_stop_parse(int exit_status, const char *out, const char *err_text, CephOkToStop **ret,
                          Error *err);
CephOkToStop *ceph_ok_to_stop_free(CephOkToStop *o);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephOkToStop *, ceph_ok_to_stop_free);

typedef struct CephSafeToDestroy {
        int *safe, *active, *missing_stats, *stored_pgs;
        size_t n_safe, n_active, n_missing_stats, n_stored_pgs;
        char *message; /* stderr (plain form: "Error EBUSY: OSD(s) 0 have 19 pgs ...") */
} CephSafeToDestroy;

/* `ceph osd safe-to-destroy IDS [-f json]`. Careful: with -f json Pacific exits 0 even
 * when nothing is safe ({"safe_to_destroy":[],"active":[0],...}); without it, it exits 16.
 * Both are accepted; ask ceph_safe_to_destroy_is_safe(), never the exit status alone. Safe
 * are only the ids the answer names: those of "safe_to_destroy", or of the plain line "OSD(s)
 * 0,3 are safe to destroy ..." (on stderr, exit 0). It fails closed: exit 0 with nothing on
 * stdout or stderr, or a line that is not that one, is EBADMSG, never "safe". */
int ceph_safe_to_destroy_parse(int exit_status, const char *out, const char *err_text,
                               const int *osds, size_t n_osds, CephSafeToDestroy **ret, Error *err);
CephSafeToDestroy *ceph_safe_to_destroy_free(CephSafeToDestroy *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephSafeToDestroy *, ceph_safe_to_destroy_free);
bool ceph_safe_to_destroy_is_safe(const CephSafeToDestroy *s, int osd);

/* ---- small answers ----------------------------------------------------------------- */

/* `ceph osd new UUID [ID]` prints "4\n"; with -f json {"osdid":4}. */
int ceph_osd_new_parse(const char *out, int *ret_id, Error *err);

/* `ceph config get WHO KEY [-f json]` prints the bare value even with -f json ("wpq\n",
 * "3\n"), a JSON string on some releases: both give the value without quotes/newline. */
int ceph_config_value_parse(const char *out, char **ret, Error *err);
int ceph_config_value_parse_u64(const char *out, uint64_t *ret, Error *err);

/* `ceph config dump -f json`: the options set explicitly in the mon's config database.
 * An option absent here runs at its default: to restore it after a throttle, `config rm`
 * it rather than setting the default value. */
typedef struct CephConfigEntry {
        char *section; /* "osd", "osd.3", "global" */
        char *name;    /* "osd_max_backfills" */
        char *value;
        char *mask;    /* "host:node1", "class:hdd" or NULL */
} CephConfigEntry;

typedef struct CephConfigDump {
        CephConfigEntry *entries;
        size_t n_entries;
} CephConfigDump;

int ceph_config_dump_parse(const char *json, CephConfigDump **ret, Error *err);
CephConfigDump *ceph_config_dump_free(CephConfigDump *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephConfigDump *, ceph_config_dump_free);
/* the entry for exactly this section and name without a mask, NULL when unset */
/* The config database keeps a float option as the mon prints it ("0" is stored as
 * "0.000000"): equal when the strings are, or when both are whole numbers that compare equal. */
bool ceph_config_value_eq(const char *a, const char *b);
const CephConfigEntry *ceph_config_dump_find(const CephConfigDump *d, const char *section, const char *name);

/* `ceph config show WHO -f json`: the options a running daemon has away from their
 * defaults, each with where its value comes from: "file", "mon" (the config database),
 * "override" (injectargs, or `ceph tell WHO config set`: it masks the config database until
 * the daemon restarts or `ceph tell WHO config unset NAME`), ... */
typedef struct CephConfigShowEntry {
        char *name;
        char *value;
        char *source;
} CephConfigShowEntry;

typedef struct CephConfigShow {
        CephConfigShowEntry *entries;
        size_t n_entries;
} CephConfigShow;

int ceph_config_show_parse(const char *json, CephConfigShow **ret, Error *err);
CephConfigShow *ceph_config_show_free(CephConfigShow *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephConfigShow *, ceph_config_show_free);
const CephConfigShowEntry *ceph_config_show_find(const CephConfigShow *s, const char *name);

/* ---- the cluster lock (docs/ceph.md "The lock") ------------------------------------- */

/* The lock itself is the cephx entity "client.cephprov-lock.<cluster>" (no caps: it can do
 * nothing) whose key is the owner's random token: `auth add` with that key is the
 * compare-and-set (exit 0 when absent or already ours, exit 17 EEXIST "exists but key does
 * not match" when another owner's). Takeovers of an expired lease are serialized by a second
 * entity, "client.cephprov-lock.<cluster>.takeover". The lease of each owner is a record in
 * config-key under "cephprov/lock/<cluster>/<token id>", written by that owner only. */
#define CEPH_EXIT_EEXIST 17
#define CEPH_LOCK_SECRET_SIZE 16

typedef struct CephLock {
        char *host;      /* controller's host name */
        int pid;
        char *command;   /* "apply", "lock hold" ... */
        char *since;     /* ISO 8601 UTC, when it was taken */
        int64_t expires; /* lease end, Unix seconds (the writer's clock) */
} CephLock;

/* A lease record as `config-key get` prints it; host, pid and expires are required. */
int ceph_lock_parse(const char *out, CephLock **ret, Error *err);
CephLock *ceph_lock_free(CephLock *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephLock *, ceph_lock_free);
/* the value to store, one line of JSON (adds "expires_at", ISO 8601, for people) */
char *ceph_lock_format(const CephLock *l);

/* "client.cephprov-lock.<cluster>" / "...<cluster>.takeover"; NULL (EINVAL) for a cluster
 * name that is not [A-Za-z0-9_.-]+ */
char *ceph_lock_entity(const char *cluster, Error *err);
char *ceph_lock_takeover_entity(const char *cluster, Error *err);
/* "cephprov/lock/<cluster>/": where the lease records are */
char *ceph_lock_record_prefix(const char *cluster, Error *err);
/* "cephprov/lock/<cluster>/<16 hex digits of SHA-256(key)>": the record of the owner of `key` */
char *ceph_lock_record_key(const char *cluster, const char *key, Error *err);

/* A cephx secret as `ceph-authtool --gen-print-key` prints it: base64 of type 1 (AES),
 * created (seconds, 0 ns), length 16 and the 16 secret bytes (little endian). */
char *ceph_cephx_key_format(const uint8_t secret[CEPH_LOCK_SECRET_SIZE], uint32_t created);
/* "[ENTITY]\n\tkey = KEY\n": a keyring for `auth add -i -` (no caps) */
char *ceph_keyring_format(const char *entity, const char *key);

/* `auth get ENTITY -f json`: [{"entity":E,"key":K,"caps":{...}}] → K (the entry named
 * `entity`); ret_n_caps (may be NULL) gets the number of caps. */
int ceph_auth_get_parse(const char *out, const char *entity, char **ret_key, size_t *ret_n_caps, Error *err);
/* Whether a failed `config-key get KEY` or `auth get ENTITY` says there is no such key or
 * entity, from ceph's own answer only: exit status 2 (ENOENT) and stderr "Error ENOENT: ..."
 * (the CLI's form of the monitor's -ENOENT). Anything else, a `ceph` that did not run or did
 * not reach the monitors among it, is not an answer about the key. */
bool ceph_answer_no_such_key(int exit_status, const char *err_text);
/* `config-key ls`: a JSON array of keys → strv */
int ceph_config_key_ls_parse(const char *out, char ***ret, Error *err);

/* A lease length in seconds, "2" to "3600" (CEPHPROV_LOCK_LEASE); errors name the value. */
int ceph_lock_lease_parse(const char *s, unsigned *ret, Error *err);

/* What is left of a lease whose deadline is `deadline` at `now` (both seconds on one
 * monotonic clock), in whole milliseconds rounded down; 0 once it is over. What a
 * destructive agent request carries as `lease_left_ms` (docs/agent.md "The lease"). */
int64_t ceph_lock_lease_left_ms(double now, double deadline);

/* The monitors' clock against ours: `mon` (Unix seconds) was read by a command sent at
 * `sent` and answered at `answered` (our wall clock, Unix seconds). The skew is mon minus the
 * middle of that window, known to within half the window; *ret_skew (may be NULL) gets it.
 * ETIME when even the smallest skew the window allows is more than a quarter of `lease`
 * (the lock's margin: the lease records are compared across controllers' clocks), naming
 * both clocks. A slow answer never refuses by itself: it only widens the window. */
int ceph_lock_skew_check(double sent, double answered, double mon, unsigned lease, double *ret_skew, Error *err);

/* `report`: its "timestamp", the monitor's clock when it answered ("2026-12-05T10:11:12.345678+0000",
 * with or without an offset, 'T' or ' '), as Unix seconds. Pacific, Reef and Tentacle. */
int ceph_report_time_parse(const char *out, double *ret, Error *err);
/* "2026-12-05T10:11:12.345678+0000" (utime_t's form; "Z", no offset (UTC) or a space for 'T'
 * are accepted) → Unix seconds; EINVAL otherwise. */
int ceph_time_parse(const char *s, double *ret);

/* ---- commands ------------------------------------------------------------------------ */

/* Where a command goes: the monitors, the active manager, or one OSD (`ceph tell osd.N`). */
typedef enum CephTarget {
        CEPH_TARGET_MON,
        CEPH_TARGET_MGR,
        CEPH_TARGET_OSD,
} CephTarget;

/* A command as librados sends it (rados_mon_command, rados_mgr_command, rados_osd_command):
 * the JSON the `ceph` CLI would have built from the same words. */
typedef struct CephCommand {
        CephTarget target;
        int osd;          /* CEPH_TARGET_OSD: its id; else -1 */
        json_object *cmd; /* {"prefix": ..., the arguments by Ceph's names, "format": "json"} */
        bool input;       /* the words had "-i -": the caller's input goes as the input buffer */
        char *words;      /* the command as an operator types it, without the connection options */
} CephCommand;
void ceph_command_done(CephCommand *c);

/* The command an argv builder's argv stands for (ceph-command.c: one table of the
 * signatures cephprov uses, Ceph's argument names and types), skipping the n_prefix words
 * of ceph_argv_cli(). EINVAL, naming the words, for words no signature matches or
 * arguments of the wrong kind. */
int ceph_command_from_argv(char *const *argv, size_t n_prefix, CephCommand *ret, Error *err);
/* The words of `c` again (argv without the connection options: "-i -", "tell osd.N", the
 * prefix, each argument in order, "--yes-i-really-mean-it", "-f json"); for the unit
 * tests' stand-ins, which answer by words. NULL on ENOMEM or a value no word can carry. */
char **ceph_command_to_words(const CephCommand *c);
const char *ceph_target_name(CephTarget t);
/* What the CLI prints on stderr for a command's return code and status string:
 * "Error ENOENT: STATUS\n" when rc < 0, else the status (and a newline) or "". */
char *ceph_answer_stderr(int rc, const char *status);

/* ---- argv builders ----------------------------------------------------------------- */

/* How to reach the cluster; NULL means `ceph` with its defaults. */
typedef struct CephCli {
        const char *binary;  /* default "ceph" */
        const char *cluster; /* --cluster */
        const char *conf;    /* -c */
        const char *name;    /* -n client.admin */
        const char *keyring; /* -k */
        unsigned connect_timeout; /* --connect-timeout SECONDS, 0 = CLI default */
} CephCli;

/* The words every builder starts with: the binary and the connection options. */
char **ceph_argv_cli(const CephCli *cli, Error *err);

/* Every builder returns a new NULL-terminated argv (free with strv_free), or NULL with
 * `err` set: EINVAL for an argument that is not a valid id/uuid/name (names never start
 * with '-', so a value cannot turn into an option), ENOMEM. Query commands end with
 * "-f json". */
char **ceph_argv_status(const CephCli *cli, Error *err);
char **ceph_argv_health_detail(const CephCli *cli, Error *err);
char **ceph_argv_osd_tree(const CephCli *cli, Error *err);
char **ceph_argv_osd_dump(const CephCli *cli, Error *err);
char **ceph_argv_osd_metadata(const CephCli *cli, int id /* -1: all */, Error *err);
char **ceph_argv_pg_stat(const CephCli *cli, Error *err);
char **ceph_argv_pg_dump_pgs_brief(const CephCli *cli, Error *err);
char **ceph_argv_versions(const CephCli *cli, Error *err);
char **ceph_argv_ok_to_stop(const CephCli *cli, const int *ids, size_t n, Error *err);
char **ceph_argv_safe_to_destroy(const CephCli *cli, const int *ids, size_t n, Error *err);
/* `osd new UUID [ID]` (id -1: next free); with_secrets adds "-i -" (cephx secrets JSON on
 * stdin, as ceph-volume does). The same UUID again returns the same id. */
char **ceph_argv_osd_new(const CephCli *cli, const char *uuid, int id, bool with_secrets, Error *err);
char **ceph_argv_osd_destroy(const CephCli *cli, int id, Error *err);
char **ceph_argv_osd_purge(const CephCli *cli, int id, Error *err);
char **ceph_argv_osd_out(const CephCli *cli, const int *ids, size_t n, Error *err);
char **ceph_argv_osd_in(const CephCli *cli, const int *ids, size_t n, Error *err);
char **ceph_argv_osd_down(const CephCli *cli, const int *ids, size_t n, Error *err);
char **ceph_argv_osd_crush_remove(const CephCli *cli, int id, Error *err);
/* flags: noout, noin, nobackfill, norebalance, norecover, noscrub, nodeep-scrub, pause */
char **ceph_argv_osd_set(const CephCli *cli, const char *flag, Error *err);
char **ceph_argv_osd_unset(const CephCli *cli, const char *flag, Error *err);
/* set-device-class refuses (EBUSY) while a class is bound: rm-device-class first */
char **ceph_argv_osd_crush_rm_device_class(const CephCli *cli, int id, Error *err);
char **ceph_argv_osd_crush_set_device_class(const CephCli *cli, const char *cls, int id, Error *err);
char **ceph_argv_config_get(const CephCli *cli, const char *who, const char *key, Error *err);
char **ceph_argv_config_set(const CephCli *cli, const char *who, const char *key, const char *value,
                            Error *err);
char **ceph_argv_config_dump(const CephCli *cli, Error *err);
/* `config show WHO -f json` (WHO a daemon: "osd.3") */
char **ceph_argv_config_show(const CephCli *cli, const char *who, Error *err);
char **ceph_argv_config_rm(const CephCli *cli, const char *who, const char *key, Error *err);
char **ceph_argv_config_key_get(const CephCli *cli, const char *key, Error *err);
/* `-i - config-key set KEY`: the value goes on stdin, as it is (the CLI refuses an argument
 * with characters outside ASCII, "invalid chars", and one that starts with '-') */
char **ceph_argv_config_key_set(const CephCli *cli, const char *key, Error *err);
char **ceph_argv_config_key_rm(const CephCli *cli, const char *key, Error *err);
char **ceph_argv_config_key_exists(const CephCli *cli, const char *key, Error *err);
char **ceph_argv_config_key_ls(const CephCli *cli, Error *err);
/* `-i - auth add ENTITY` (the keyring on stdin), `auth get ENTITY -f json`, `auth rm ENTITY` */
char **ceph_argv_auth_add(const CephCli *cli, const char *entity, Error *err);
char **ceph_argv_auth_get(const CephCli *cli, const char *entity, Error *err);
/* `report -f json`: the monitors' whole report; cephprov reads only its timestamp */
char **ceph_argv_report(const CephCli *cli, Error *err);
char **ceph_argv_auth_rm(const CephCli *cli, const char *entity, Error *err);

/* `systemctl VERB ceph-osd@ID` (start, stop, restart, enable, disable, is-active) */
char **ceph_argv_systemctl_osd(const char *verb, int id, Error *err);

/* Validators the builders use (exported for the agent and the plan). */
bool ceph_uuid_is_valid(const char *s);
bool ceph_name_is_valid(const char *s); /* [A-Za-z0-9_.-]+, not starting with '-' */
