/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The layout: a YAML file parsed with libyaml into these typed structs and validated
 * completely before anything else runs. Pure: no I/O but reading the file.
 *
 * Every error names file:line:column and says what was expected, e.g.
 *   layout.yaml:14:7: unknown key 'db_szie' (did you mean 'db_size'?)
 *
 * After a successful load every Host has its SSH options fully resolved (defaults merged
 * with the host's overrides) and points to its Profile (NULL for a host without disks,
 * e.g. an admin-only host). */

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "basic/macro.h"
#include "yaml/yaml-tree.h" /* YamlMark only: no link to the YAML parser needed */


/* where the agent binary is on a host unless the layout's ssh.agent_path says otherwise */
#define LAYOUT_AGENT_PATH_DEFAULT "/usr/local/lib/cephprov/cephprov"

typedef enum Objectstore {
        OBJECTSTORE_BLUESTORE,
        OBJECTSTORE_FILESTORE,
} Objectstore;

typedef enum TransportKind {
        TRANSPORT_SSH,
        TRANSPORT_LOCAL,
} TransportKind;

typedef enum HostKeyPolicy {
        HOST_KEY_STRICT,     /* default: unknown or changed key refused */
        HOST_KEY_ACCEPT_NEW, /* unknown key recorded, changed key refused */
} HostKeyPolicy;

typedef enum BcacheCacheMode {
        BCACHE_MODE_WRITEBACK, /* default */
        BCACHE_MODE_WRITETHROUGH,
        BCACHE_MODE_WRITEAROUND,
        BCACHE_MODE_NONE,
} BcacheCacheMode;

typedef enum SpreadMode {
        SPREAD_BALANCED, /* default: data device i goes to fast device i % n (round-robin) */
        SPREAD_FILL,     /* fill fast device 0 up to data_per_fast, then the next */
} SpreadMode;

typedef enum SizeKind {
        SIZE_UNSET,
        SIZE_BYTES, /* "30G" */
        SIZE_SHARE, /* "5%": a share of the fast device's total size */
} SizeKind;

typedef struct SizeSpec {
        SizeKind kind;
        uint64_t bytes;
        double share; /* 0 < share <= 1 */
        YamlMark mark; /* where the value is written (line 0: not from a file) */
} SizeSpec;

typedef enum ThrottlePreset {
        THROTTLE_DEFAULT, /* Luminous default: 1/3/1 */
        THROTTLE_SLOW,    /* 1/1/1 */
        THROTTLE_FAST,    /* 4/4/4 */
        THROTTLE_CUSTOM,  /* explicit values only */
        THROTTLE_ADAPTIVE, /* the adaptive controller (src/ceph/ceph-adapt.h) moves the knobs */
} ThrottlePreset;

typedef struct SshOptions {
        char *user;              /* default "root" */
        unsigned port;           /* default 22 */
        char *identity;          /* private key file; NULL: ssh-agent, then ~/.ssh/id_ed25519, id_ecdsa */
        YamlMark identity_mark;  /* where `identity` was given (the ssh section's for a host inheriting it) */
        char *known_hosts;       /* default ~/.ssh/known_hosts */
        HostKeyPolicy host_key_policy;
        unsigned connect_timeout_sec; /* default 10 */
        unsigned command_timeout_sec; /* default 600 */
        char *agent_path;        /* agent binary on the host; NULL: LAYOUT_AGENT_PATH_DEFAULT */
} SshOptions;

/* Which devices a role takes: explicit paths (or /dev/disk/by-id links), and/or filters.
 * With both, a device must be listed and match the filters. */
typedef struct DeviceSelector {
        bool set;              /* the role was given in the layout */
        char **devices;        /* NULL-terminated, or NULL: select by filters among allowed devices */
        int rotational;        /* -1 any, 0 non-rotational, 1 rotational */
        uint64_t size_min;     /* bytes, 0 = no lower bound */
        uint64_t size_max;     /* bytes, 0 = no upper bound */
        char *model;           /* fnmatch() globs; NULL = any */
        char *serial;
        char *vendor;
        unsigned limit;        /* take at most this many (0 = all) */
        unsigned count;        /* the host must have exactly this many (0 = any number) */
        YamlMark count_mark;
        YamlMark mark;
        YamlMark size_mark;    /* where `size` is written (line 0: none) */
        char *size_text;       /* `size` as written ("2T..4T"), NULL: none */
} DeviceSelector;

typedef struct BcacheOptions {
        bool enabled;
        SizeSpec cache_size;        /* per data device; required when enabled */
        BcacheCacheMode cache_mode; /* default writeback */
        uint64_t sequential_cutoff; /* bytes, default 0 (bcache's own 4M default is Ceph's object size) */
        unsigned writeback_percent; /* default 10 */
} BcacheOptions;

typedef struct OsdOptions {
        Objectstore objectstore;    /* default: the cluster's */
        char *device_class;         /* NULL = from the backing device (hdd/ssd/nvme), never from bcache */
        unsigned per_device;        /* OSDs per data device, default 1 */
        unsigned parallel;          /* OSD creations at once on one host, default 4 */
        bool encrypted;             /* ceph-volume's dmcrypt (LUKS, keys in the mon's config-key store), default false */
        YamlMark encrypted_mark;    /* where `encrypted` is written (line 0: not written) */
} OsdOptions;

typedef struct Profile {
        char *name;
        YamlMark mark;
        char **allow;                /* allow-list (paths or fnmatch globs of paths); NULL-terminated */
        bool allow_given;            /* 'allow' was written, even if it had errors (no "no allow-list" then) */
        bool placement;              /* 'placement' given: the hosts without 'profile' it selects get it */
        char *host_pattern;          /* placement: a glob of host names (fnmatch); NULL: any name */
        char **labels;               /* placement: labels the host must all have; NULL: none needed */
        DeviceSelector data;         /* data devices (HDDs, or SSDs in all-flash) */
        DeviceSelector fast;         /* fast devices carrying DB/WAL/cache; optional */
        unsigned *keep_partitions;   /* partition numbers on each fast device that must exist and stay */
        size_t n_keep_partitions;
        unsigned data_per_fast;      /* data devices per fast device; 0 = spread all evenly */
        SpreadMode spread;
        SizeSpec db_size;            /* per OSD; SIZE_UNSET = DB on the data device */
        SizeSpec wal_size;           /* per OSD; SIZE_UNSET = WAL with the DB */
        SizeSpec journal_size;       /* FileStore journal per OSD (scenario 3's "before" state) */
        BcacheOptions bcache;
        OsdOptions osd;
        bool wipe;                   /* default false: refuse devices carrying data */
} Profile;

typedef struct Host {
        char *name;
        YamlMark mark;
        YamlMark name_mark;          /* the 'name' value */
        char *address;               /* default: the name */
        YamlMark address_mark;       /* the 'address' value, or the 'name' value it defaults to */
        TransportKind transport;
        SshOptions ssh;              /* resolved: defaults + overrides */
        const Profile *profile;      /* NULL: no disks managed (e.g. admin host); its 'profile', or the
                                        one profile whose placement selects it */
        char **labels;               /* its labels (a profile's placement may select by them); NULL: none */
        char **allow;                /* resolved: the host's own list, else the profile's */
} Host;

typedef struct Throttle {
        ThrottlePreset preset;
        unsigned osd_max_backfills;
        unsigned osd_recovery_max_active;
        unsigned osd_recovery_max_single_start;
        double osd_recovery_sleep;   /* seconds; < 0 = leave as is */
        double target_p99_ms;        /* adaptive: the probe's p99 to stay under; 0 = from the baseline */
        double ceiling_p99_ms;       /* adaptive: the p99 that brakes; 0 = 3 × the target */
} Throttle;

typedef struct Layout {
        char *path;                  /* as given to layout_load_file(); NULL from layout_load_string() */
        char *cluster_name;          /* default "ceph" */
        char *admin_host;            /* a host name in hosts[]; required when hosts use ssh */
        char *fsid;                  /* optional: refuse to act on a cluster with another fsid */
        Objectstore objectstore;     /* default bluestore */
        SshOptions ssh;              /* defaults */
        unsigned concurrency;        /* hosts at once, default 32 */
        Throttle throttle;
        Profile *profiles;
        size_t n_profiles;
        Host *hosts;
        size_t n_hosts;
        YamlDiags warnings;          /* suspicious values, in file order (never errors) */
} Layout;

/* Ceph's guidance for the smallest sensible partitions, below which the layout warns (see
 * docs/layout.md "Sizes" for the sources). A DB is also advised to be 1 % to 4 % of its data
 * device (LAYOUT_DB_MIN_SHARE): the planner, which knows the devices, can check that. */
#define LAYOUT_DB_FLOOR          (UINT64_C(2) << 30) /* DB holding the WAL: 1 GiB WAL + 1 GiB first level */
#define LAYOUT_DB_FLOOR_WITH_WAL (UINT64_C(1) << 30) /* DB with a separate WAL */
#define LAYOUT_WAL_FLOOR         (UINT64_C(1) << 30) /* max_total_wal_size in bluestore_rocksdb_options */
#define LAYOUT_JOURNAL_FLOOR     (UINT64_C(1) << 30) /* 2 x 100 MB/s x filestore_max_sync_interval 5 s */
#define LAYOUT_DB_MIN_SHARE      0.01

/* Load and validate a layout, stopping at the first error: on failure err says
 * "FILE:LINE:COL: what is wrong (what was expected)". Warnings end up in (*ret)->warnings. */
int layout_load_file(const char *path, Layout **ret, Error *err);
/* `name` is used in messages in place of a file name. `data` need not be NUL-terminated.
 * On failure *ret is left untouched. */
int layout_load_string(const char *name, const char *data, size_t len, Layout **ret, Error *err);

/* Like layout_load_string(), but goes on after an error to find every error of the file, as
 * compilers do: *diags (initialized empty by the caller, freed with yaml_diags_done()) gets
 * every error and warning in file order, err the first error in file order. A YAML syntax
 * error ends the search (there is no tree to walk after it). */
int layout_load_string_all(const char *name, const char *data, size_t len, Layout **ret, YamlDiags *diags,
                           Error *err);
int layout_load_file_all(const char *path, Layout **ret, YamlDiags *diags, Error *err);

Layout *layout_free(Layout *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(Layout *, layout_free);

const Host *layout_find_host(const Layout *l, const char *name);
const Profile *layout_find_profile(const Layout *l, const char *name);

/* The resolved layout as JSON (for `validate --json`). */
int layout_to_json(const Layout *l, json_object **ret);

/* Values of a throttle preset. */
void throttle_preset_values(ThrottlePreset p, Throttle *ret);

/* Names as written in the layout. Inline: the planner and the agent use them without
 * linking the YAML parser. */
static inline const char *objectstore_to_string(Objectstore o) {
        switch (o) {
        case OBJECTSTORE_BLUESTORE: return "bluestore";
        case OBJECTSTORE_FILESTORE: return "filestore";
        }
        return "unknown";
}

static inline const char *bcache_cache_mode_to_string(BcacheCacheMode m) {
        switch (m) {
        case BCACHE_MODE_WRITEBACK: return "writeback";
        case BCACHE_MODE_WRITETHROUGH: return "writethrough";
        case BCACHE_MODE_WRITEAROUND: return "writearound";
        case BCACHE_MODE_NONE: return "none";
        }
        return "unknown";
}
const char *throttle_preset_to_string(ThrottlePreset p);
/* Resolve a size spec against a fast device size; 0 for SIZE_UNSET. */
uint64_t size_spec_resolve(const SizeSpec *s, uint64_t device_size);

const char *transport_kind_to_string(TransportKind t);
const char *host_key_policy_to_string(HostKeyPolicy p);
const char *spread_mode_to_string(SpreadMode s);
