/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The pure Ceph layer under the cluster steps of drain, destroy and status: argv builders for
 * the commands those steps run, parsers of what the commands print, and the analyses made
 * from them (can this host be drained, how far along is the drain, which throttle settings to
 * apply and how to undo them, which host is sick).
 *
 * Same rules as ceph.h: no I/O; every `*_parse` returns a new object through `ret`
 * (untouched on failure) freed with the matching `*_free` (NULL-safe, returns NULL); argv
 * builders return a NULL-terminated argv (strv_free) or NULL with `err` set (EINVAL for an
 * argument that could be read as an option or is not a valid name, ENOMEM).
 *
 * Formats: where tests/data/ceph has no capture of a command yet, its parser was written
 * against the Ceph source that prints it and tested on `synthetic-*` fixtures that follow
 * that source (tests/data/ceph/README.md names the function). */

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "basic/macro.h"
#include "ceph/ceph.h"

/* ---- argv builders ----------------------------------------------------------------- */

/* `osd set-group FLAGS WHO...` / `osd unset-group FLAGS WHO...`: flags for one host (a CRUSH
 * bucket name) or some OSDs ("osd.3") only. FLAGS is a comma-separated subset of
 * noup,nodown,noin,noout (the only flags the mon accepts per group); WHO are bucket names
 * or "osd.N". */
char **ceph_argv_osd_set_group(const CephCli *cli, const char *flags, char *const *who, Error *err);
char **ceph_argv_osd_unset_group(const CephCli *cli, const char *flags, char *const *who, Error *err);

/* `balancer status -f json` (the mgr module prints JSON whatever -f says), `balancer on`,
 * `balancer off`, `balancer mode MODE` (none, crush-compat, upmap; read and upmap-read from
 * Squid). Turning the balancer off does not cancel the upmap items it already made. */
char **ceph_argv_balancer_status(const CephCli *cli, Error *err);
char **ceph_argv_balancer_on(const CephCli *cli, Error *err);
char **ceph_argv_balancer_off(const CephCli *cli, Error *err);
char **ceph_argv_balancer_mode(const CephCli *cli, const char *mode, Error *err);

/* `osd pool get POOL VAR -f json` ({"pool":"rbd","pool_id":1,"pg_autoscale_mode":"on"}) and
 * `osd pool set POOL pg_autoscale_mode on|off|warn`. Pausing the autoscaler pool by pool and
 * restoring each pool's own mode works on every release. */
char **ceph_argv_osd_pool_get(const CephCli *cli, const char *pool, const char *var, Error *err);
/* `osd pool create POOL N N` (replicated, the cluster's default size): an existing pool is
 * not an error to the mon (it answers "already exists", exit 0) */
char **ceph_argv_osd_pool_create(const CephCli *cli, const char *pool, unsigned pg_num, Error *err);
/* `osd pool application enable POOL APP` (a pool without one raises POOL_APP_NOT_ENABLED) */
char **ceph_argv_osd_pool_application_enable(const CephCli *cli, const char *pool, const char *app, Error *err);
char **ceph_argv_osd_pool_set_autoscale_mode(const CephCli *cli, const char *pool, const char *mode, Error *err);

/* `osd pool set noautoscale` / `osd pool unset noautoscale` / `osd pool get noautoscale`: the
 * pg_autoscaler module's global switch (from Pacific 16.2.8, ceph PR 44540). Careful: up to
 * Pacific (16.2.15 checked) `set` turns every pool's pg_autoscale_mode off and `unset` turns
 * every pool on, losing each pool's own mode; only after ceph PR 52442 (Reef 18.2.1, and its
 * Quincy backport) is it a flag in the OSD map (`osd set noautoscale`) that keeps the pools'
 * modes. Prefer per-pool modes where they must be restored exactly. */
char **ceph_argv_osd_pool_noautoscale(const CephCli *cli, bool set, Error *err);
char **ceph_argv_osd_pool_get_noautoscale(const CephCli *cli, Error *err);

/* `osd crush reweight osd.N W` (W ≥ 0, printed with 5 decimals as `osd tree` shows them) */
char **ceph_argv_osd_crush_reweight(const CephCli *cli, int id, double weight, Error *err);
/* osd crush create-or-move osd.N WEIGHT host=HOST (the bucket exists: no root needed): an id a ceph-volume rollback
 * purged, put back under its host bucket with its weight from before (a conversion) */
char **ceph_argv_osd_crush_create_or_move(const CephCli *cli, int id, double weight, const char *host, Error *err);
/* The weights a crush-reweight in steps goes through from `from` to `to` (either way), each
 * step at most `max_step` (> 0) and rounded to the 5 decimals the argv carries; the last is
 * `to` exactly, `from` itself is not listed (none when they are equal). EINVAL for negative
 * or non-finite weights or a step that would need more than 1000 steps. */
int ceph_crush_reweight_steps(double from, double to, double max_step, double **ret, size_t *ret_n, Error *err);
/* `osd crush rm NAME`: a bucket (the empty host bucket after a destroy) or "osd.N". The mon
 * refuses (ENOTEMPTY) to remove a bucket that still has items. ("osd crush remove" is the
 * deprecated spelling; ceph_argv_osd_crush_remove() in ceph.h uses it for one OSD.) */
char **ceph_argv_osd_crush_rm(const CephCli *cli, const char *name, Error *err);

/* Queries, all ending in -f json. */
char **ceph_argv_osd_df_tree(const CephCli *cli, Error *err);        /* osd df tree */
char **ceph_argv_osd_pool_ls_detail(const CephCli *cli, Error *err); /* osd pool ls detail */
char **ceph_argv_osd_crush_rule_dump(const CephCli *cli, Error *err); /* osd crush rule dump */
char **ceph_argv_osd_ec_profile_get(const CephCli *cli, const char *name, Error *err); /* osd erasure-code-profile get NAME */
char **ceph_argv_osd_perf(const CephCli *cli, Error *err);           /* osd perf */

/* ---- osd df tree ------------------------------------------------------------------- */

typedef enum CephDfStatus {
        CEPH_DF_STATUS_UNKNOWN, /* no "status" member (older releases): see `up` */
        CEPH_DF_STATUS_UP,
        CEPH_DF_STATUS_DOWN,
        CEPH_DF_STATUS_DESTROYED,
        CEPH_DF_STATUS_DNE,     /* "DNE": in CRUSH, not in the OSD map */
} CephDfStatus;

typedef struct CephDfNode {
        int id;               /* ≥ 0 an OSD, < 0 a CRUSH bucket */
        char *name;           /* "osd.3", "node1", "default" */
        char *type;           /* "osd", "host", "rack", "root" ... */
        char *device_class;   /* OSDs; NULL when none is bound (and for buckets) */
        double crush_weight;  /* OSDs: the CRUSH weight; buckets: the sum of their OSDs' */
        double reweight;      /* OSDs: 0 = out .. 1 = in; buckets: -1 */
        uint64_t kb, kb_used, kb_avail; /* KiB; 0 for an OSD that reports no statistics (down) */
        uint64_t kb_used_data;  /* object data (kb_used_data + kb_used_omap); kb_used when absent */
        double utilization;   /* percent, as printed */
        uint64_t pgs;
        CephDfStatus status;
        bool up;              /* status "up", or (no status member) the OSD reports statistics */
        bool in;              /* reweight > 0 */
        bool stray;           /* listed under "stray": exists, not placed in CRUSH */
        bool has_parent;
        int parent;           /* the bucket that lists it as a child (when has_parent) */
        int *children;        /* buckets: ids as listed */
        size_t n_children;
        char *host;           /* OSDs: the nearest ancestor of type "host" (NULL: none) */
} CephDfNode;

typedef struct CephOsdDfTree {
        CephDfNode *nodes;    /* in the order printed (stray ones last) */
        size_t n_nodes;
        uint64_t total_kb, total_kb_used, total_kb_avail; /* "summary" (0 when absent) */
        double average_utilization;
} CephOsdDfTree;

/* `osd df tree -f json` (also plain `osd df -f json`: OSDs without buckets) */
int ceph_osd_df_tree_parse(const char *json, CephOsdDfTree **ret, Error *err);
CephOsdDfTree *ceph_osd_df_tree_free(CephOsdDfTree *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephOsdDfTree *, ceph_osd_df_tree_free);
const CephDfNode *ceph_osd_df_tree_find(const CephOsdDfTree *t, int id);
/* a bucket by name, or an OSD by "osd.N" */
const CephDfNode *ceph_osd_df_tree_find_name(const CephOsdDfTree *t, const char *name);
/* true when `id` is `ancestor` or lies below it */
bool ceph_osd_df_tree_is_under(const CephOsdDfTree *t, int id, int ancestor);

/* ---- pools, CRUSH rules, erasure-code profiles, full ratios --------------------------- */

typedef enum CephPoolType {
        CEPH_POOL_REPLICATED = 1, /* pg_pool_t::TYPE_REPLICATED */
        CEPH_POOL_ERASURE = 3,    /* pg_pool_t::TYPE_ERASURE */
} CephPoolType;

const char *ceph_pool_type_to_string(CephPoolType t); /* "replicated", "erasure" */

typedef struct CephPool {
        int id;
        char *name;
        CephPoolType type;
        unsigned size, min_size, pg_num;
        int crush_rule;
        char *erasure_code_profile; /* NULL for a replicated pool */
        char *pg_autoscale_mode;    /* "on", "off", "warn"; NULL when not printed */
} CephPool;

typedef struct CephPoolList {
        CephPool *pools; /* sorted by id */
        size_t n_pools;
} CephPoolList;

/* `osd pool ls detail -f json` (an array of {"pool_id","pool_name", pg_pool_t::dump}) or
 * `osd dump -f json` (its "pools", keyed "pool"). */
int ceph_pool_list_parse(const char *json, CephPoolList **ret, Error *err);
CephPoolList *ceph_pool_list_free(CephPoolList *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephPoolList *, ceph_pool_list_free);
const CephPool *ceph_pool_list_find(const CephPoolList *l, const char *name);

typedef enum CephCrushOp {
        CEPH_CRUSH_OP_OTHER,  /* noop, set_choose_tries, ... (kept by name) */
        CEPH_CRUSH_OP_TAKE,
        CEPH_CRUSH_OP_CHOOSE_FIRSTN,
        CEPH_CRUSH_OP_CHOOSE_INDEP,
        CEPH_CRUSH_OP_CHOOSELEAF_FIRSTN,
        CEPH_CRUSH_OP_CHOOSELEAF_INDEP,
        CEPH_CRUSH_OP_EMIT,
} CephCrushOp;

typedef struct CephCrushStep {
        CephCrushOp op;
        char *op_name;   /* as printed: "take", "chooseleaf_firstn" */
        int item;        /* take: the bucket id (a shadow bucket for a device class) */
        char *item_name; /* take: "default", or "default~hdd" for a device class */
        char *type;      /* choose*: the bucket type chosen ("host") */
        int num;         /* choose*: 0 = pool size, < 0 = size - |num|, > 0 = that many */
} CephCrushStep;

typedef struct CephCrushRule {
        int id;
        char *name;
        int type;        /* 1 replicated, 3 erasure (msr types from Squid: 4, 5) */
        CephCrushStep *steps;
        size_t n_steps;
} CephCrushRule;

typedef struct CephCrushRules {
        CephCrushRule *rules; /* sorted by id */
        size_t n_rules;
} CephCrushRules;

/* `osd crush rule dump -f json`: an array of rules (CrushWrapper::dump_rules), or one rule
 * object (`osd crush rule dump NAME`). */
int ceph_crush_rules_parse(const char *json, CephCrushRules **ret, Error *err);
CephCrushRules *ceph_crush_rules_free(CephCrushRules *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephCrushRules *, ceph_crush_rules_free);
const CephCrushRule *ceph_crush_rules_find(const CephCrushRules *r, int id);

/* Where a rule puts a pool's copies, from its first take and its last choose step. */
typedef struct CephCrushPlacement {
        char root[256];         /* the bucket taken, shadow suffix removed ("default") */
        char device_class[64];  /* "hdd" from "default~hdd"; "" for any class */
        char failure_domain[64]; /* the last choose step's type ("host", "osd", "rack") */
        unsigned n_needed;      /* buckets of that type the pool needs (from num and size) */
        bool several_steps;     /* more than one choose step: only the last one is checked */
} CephCrushPlacement;

/* `size`: the pool's size (k+m for an erasure pool). EINVAL naming the rule when it has no
 * take or no choose step. */
int ceph_crush_rule_placement(const CephCrushRule *rule, unsigned size, CephCrushPlacement *ret, Error *err);

typedef struct CephEcProfile {
        char *name;
        unsigned k, m;
        char *failure_domain; /* crush-failure-domain; "host" (Ceph's default) when absent */
        char *root;           /* crush-root; NULL when absent (default) */
        char *device_class;   /* crush-device-class; NULL when absent or empty */
        char *plugin;
} CephEcProfile;

typedef struct CephEcProfileList {
        CephEcProfile *profiles;
        size_t n_profiles;
} CephEcProfileList;

/* `osd erasure-code-profile get NAME -f json`: {"k":"2","m":"1","crush-failure-domain":...}
 * (every value a string). `name` is the profile's name (not in the output). */
int ceph_ec_profile_parse(const char *json, const char *name, CephEcProfileList **ret, Error *err);
/* every profile of `osd dump -f json` ("erasure_code_profiles") */
int ceph_ec_profiles_parse_osd_dump(const char *json, CephEcProfileList **ret, Error *err);
/* Move every profile of *from (freed) to the end of *to (created when NULL). */
int ceph_ec_profile_list_merge(CephEcProfileList **to, CephEcProfileList *from);
CephEcProfileList *ceph_ec_profile_list_free(CephEcProfileList *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephEcProfileList *, ceph_ec_profile_list_free);
const CephEcProfile *ceph_ec_profile_list_find(const CephEcProfileList *l, const char *name);

/* ---- copies left: the gate before an in-place destroy and before a wipe --------------- */

typedef struct CephCopiesLost {
        char *pgid;
        unsigned readable; /* acting OSDs up now and not among the targets */
        unsigned needed;   /* 1 for a replicated pool, k for an erasure pool */
} CephCopiesLost;

typedef struct CephCopies {
        CephCopiesLost *lost;     /* PGs left without a readable copy: refuse */
        size_t n_lost;
        size_t n_below_min_size;  /* PGs left under their pool's min_size (inactive until recovery) */
        size_t n_pgs;
        int *down;                /* OSDs that exist and are down now, the targets left out */
        size_t n_down;
} CephCopies;

/* Which PGs would have no readable copy once `targets` are gone: a PG keeps one while at
 * least one (replicated) or k (erasure) of its acting OSDs is up in `dump` and not a target.
 * Every OSD down now counts, not only the targets. `pools` from the same osd dump (the PG's
 * pool id); `ec` the OSD map's erasure-code profiles. A PG of a pool not in `pools` is
 * EAGAIN (read again), an erasure pool whose profile is not listed EBADMSG: never a guess. */
int ceph_copies_check(const CephPgDump *pgs, const CephOsdDump *dump, const CephPoolList *pools,
                      const CephEcProfileList *ec, const int *targets, size_t n_targets, CephCopies **ret,
                      Error *err);
CephCopies *ceph_copies_free(CephCopies *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephCopies *, ceph_copies_free);
/* "N PG(s) would be left without a readable copy ...: 1.3 (0 of 1), ...; OSDs down now
 * besides these: osd.2 osd.3", at most max_pgs PGs named. NULL when out of memory. */
char *ceph_copies_describe(const CephCopies *c, size_t max_pgs);

/* ---- a host's OSDs, as a drained or destroyed record claims them ------------------- */

/* 0 when every OSD of ids is out, down and in no PG's up or acting set (`pgs` from `pg
 * dump pgs_brief` read before `dump`); an id not in the map (purged) holds nothing. Else
 * EBUSY naming each OSD and what it still is: "osd.6 is in, up, in the up or acting set of
 * 12 PGs (2.1f, ...)". What a drain verifies before it records a host "drained". */
int ceph_osds_emptied(const CephOsdDump *dump, const CephPgDump *pgs, const int *ids, size_t n, Error *err);
/* Does OSD `id` belong to `host`? Its CRUSH host bucket decides when it has one; an OSD
 * outside CRUSH is the host's when its daemon reported `host` as its hostname (metadata;
 * md may be NULL). Neither: not the host's (an id of no known host is never claimed). */
bool ceph_osd_of_host(const CephOsdTree *tree, const CephOsdMetadataList *md, int id, const char *host);
/* The host it belongs to by the same rule, NULL when none is known (for messages). */
const char *ceph_osd_host_of(const CephOsdTree *tree, const CephOsdMetadataList *md, int id);

typedef struct CephFullRatios {
        double full, backfillfull, nearfull; /* fractions: 0.95, 0.90, 0.85 by default */
} CephFullRatios;

/* `osd dump -f json`: full_ratio, backfillfull_ratio, nearfull_ratio (all required, 0..1) */
int ceph_full_ratios_parse(const char *json, CephFullRatios *ret, Error *err);

/* ---- balancer, osd perf, recovery -------------------------------------------------- */

typedef struct CephBalancerStatus {
        bool active;
        char mode[32]; /* "upmap", "crush-compat", "none", "read", "upmap-read" */
} CephBalancerStatus;

/* `balancer status -f json` (mgr/balancer: "active", "mode", plans, last_optimize_*) */
int ceph_balancer_status_parse(const char *json, CephBalancerStatus *ret, Error *err);

typedef struct CephOsdPerfEntry {
        int id;
        double commit_latency_ms, apply_latency_ms;
} CephOsdPerfEntry;

typedef struct CephOsdPerf {
        CephOsdPerfEntry *osds; /* sorted by id */
        size_t n_osds;
} CephOsdPerf;

/* `osd perf -f json`: {"osdstats":{"osd_perf_infos":[{"id":N,"perf_stats":{...}}]}}
 * (PGMap::dump_osd_perf_stats). Latencies from commit_latency_ns/apply_latency_ns when
 * printed (Mimic+), else the *_ms members (integers up to Reef, floats later). */
int ceph_osd_perf_parse(const char *json, CephOsdPerf **ret, Error *err);
CephOsdPerf *ceph_osd_perf_free(CephOsdPerf *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephOsdPerf *, ceph_osd_perf_free);
const CephOsdPerfEntry *ceph_osd_perf_find(const CephOsdPerf *p, int id);

typedef struct CephRecovery {
        uint64_t num_pgs;
        uint64_t pgs_not_clean;      /* PGs not plainly active+clean (remapped, degraded, ...) */
        uint64_t degraded_objects, degraded_total;
        uint64_t misplaced_objects, misplaced_total;
        uint64_t unfound_objects;
        uint64_t recovering_objects_per_sec, recovering_bytes_per_sec; /* 0 when not printed */
        uint64_t data_bytes;         /* pg stat num_bytes / status data_bytes */
} CephRecovery;

/* `pg stat -f json` (pg_summary) or `status -f json` (pgmap): the recovery counters that
 * PGMap::print_summary / dump prints only while something recovers. */
int ceph_recovery_parse(const char *json, CephRecovery *ret, Error *err);

/* ---- drain: can the rest of the cluster take the hosts' data? ---------------------- */

typedef struct CephDrainDest {
        int id;                 /* an OSD that stays and receives data */
        char *host;
        double crush_weight, reweight;
        uint64_t kb, kb_used;   /* now */
        uint64_t kb_incoming;   /* projected share of the hosts' data */
        double util_now, util_after; /* fractions */
        bool over_backfillfull, over_nearfull;
} CephDrainDest;

typedef struct CephDrainPool {
        int id;
        char *name;
        CephPoolType type;
        unsigned needed;        /* failure domains the pool needs: size, or k+m */
        unsigned left;          /* failure domains under its rule with weight > 0 without the hosts */
        char *failure_domain;   /* "host" */
        char *rule;             /* rule name ("replicated_rule"); NULL when the rule is missing */
        bool ok;
} CephDrainPool;

typedef struct CephDrainCheck {
        bool ok;                /* no reason to refuse */
        char **hosts;           /* the hosts drained together, as asked */
        char *names;            /* them for people: "node4", "node3 and node4" */
        char **reasons;         /* why the drain is refused, one sentence each (never NULL) */
        char **warnings;        /* worth saying, not a refusal (nearfull, assumptions) */
        int *osds;              /* the hosts' OSDs (sorted) */
        size_t n_osds;
        int *osds_out;          /* of those, out and holding no PG: their data is not counted again */
        size_t n_osds_out;
        uint64_t bytes_to_move; /* data of the hosts' other OSDs (a down one's estimated) */
        CephDrainDest *dests;   /* the OSDs that stay, sorted by id */
        size_t n_dests;
        CephDrainPool *pools;   /* sorted by id */
        size_t n_pools;
        CephFullRatios ratios;
} CephDrainCheck;

/* The check of hosts without a CRUSH host bucket (destroyed, or never given an OSD):
 * nothing to move, ok, with a warning per host that says so. NULL on ENOMEM. */
CephDrainCheck *ceph_drain_check_no_bucket(char * const *hosts);

/* Project where the data of `hosts` (a strv, at least one) goes when all their OSDs are taken
 * out at once, and refuse when
 *  - an OSD that stays would pass the backfillfull ratio: each of the hosts' OSDs (but those
 *    out with no PG left) sends its data (kb_used_data; for a down OSD without statistics the
 *    cluster's data per CRUSH weight × its weight) to the OSDs that stay under the rules of the pools it
 *    serves (same root, the rule's device class, up, in, CRUSH weight > 0, on none of `hosts`),
 *    in proportion to CRUSH weight × reweight; when an OSD serves pools of several rules
 *    each destination is charged the largest of those shares (the split by pool is not in
 *    `osd df`), so the projection errs towards refusing;
 *  - a pool would lose redundancy: the buckets of its rule's failure-domain type that still
 *    hold such an OSD number fewer than size (replicated) or k+m (erasure);
 *  - a pool's rule or erasure-code profile is not known.
 * Each reason names the hosts when there are several ("... 2 would be left without node3 and
 * node4", "osd.5 (node2) would be 93.0 % full after the drain of node3 and node4 ...").
 * Hosts each fine alone can be refused together: that is the point (a drain of several hosts
 * keeps all of them out until its end).
 * Errors (not refusals): ENOENT naming the first of `hosts` that is no host bucket of `t`;
 * EINVAL for missing inputs. `ec_profiles` may be NULL when no pool is erasure coded. */
int ceph_drain_check(const CephOsdDfTree *t, const CephPoolList *pools, const CephCrushRules *rules,
                     const CephEcProfileList *ec_profiles, const CephFullRatios *ratios, char * const *hosts,
                     CephDrainCheck **ret, Error *err);
CephDrainCheck *ceph_drain_check_free(CephDrainCheck *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephDrainCheck *, ceph_drain_check_free);
/* For the plan print, a few lines: "drain node4: 90 GiB to move from osd.9 osd.10 osd.11 to 9
 * OSDs" ("drain node3 and node4 together: ..." for several), the fullest OSD afterwards, each pool's failure domains left, then every reason
 * ("refused: ...") and warning. NULL on ENOMEM. */
char *ceph_drain_check_format(const CephDrainCheck *c);
json_object *ceph_drain_check_to_json(const CephDrainCheck *c);

/* ---- drain progress ---------------------------------------------------------------- */

typedef struct CephDrainProgress {
        uint64_t objects_left;     /* misplaced + degraded object copies */
        uint64_t pgs_left;         /* PGs not active+clean */
        uint64_t bytes_left;       /* estimated: bytes_total × objects_left / objects at start */
        double objects_per_sec;    /* from the two samples; the cluster's rate when they show none */
        double bytes_per_sec;      /* recovering_bytes_per_sec of the newer sample */
        double eta_sec;            /* < 0: unknown (nothing moving yet) */
        double fraction_done;      /* 0..1 against `start` */
        bool done;                 /* nothing left and every PG active+clean */
} CephDrainProgress;

/* `start`: the first sample after data began to move (for the fraction and bytes_left; may
 * be NULL); `prev` and `now`: two samples taken `dt_sec` apart (prev may be NULL: rates from
 * the cluster's own counters); `bytes_total`: CephDrainCheck.bytes_to_move (0: unknown). */
void ceph_drain_progress(const CephRecovery *start, const CephRecovery *prev, const CephRecovery *now, double dt_sec,
                         uint64_t bytes_total, CephDrainProgress *ret);
/* "14 PGs, 51 objects left (500 B), 2.0 MiB/s, 50 % done, ETA 0m51s" ("ETA unknown" while
 * nothing moves; "done: every PG active+clean") */
char *ceph_drain_progress_format(const CephDrainProgress *p);

/* ---- throttle presets -------------------------------------------------------------- */

typedef enum CephThrottlePreset {
        CEPH_THROTTLE_SLOW,
        CEPH_THROTTLE_DEFAULT,
        CEPH_THROTTLE_FAST,
} CephThrottlePreset;

const char *ceph_throttle_preset_to_string(CephThrottlePreset p); /* "slow", "default", "fast" */
int ceph_throttle_preset_from_string(const char *s, CephThrottlePreset *ret, Error *err);

typedef enum CephScheduler {
        CEPH_SCHEDULER_WPQ,
        CEPH_SCHEDULER_MCLOCK,
} CephScheduler;

/* From `config get osd osd_op_queue` ("wpq", "mclock_scheduler"; NULL when not asked): the
 * value wins; without one, the release's default (mClock from Quincy, and for a release
 * ceph.h does not know, which is a newer one).
 * Ask osd_op_queue: an operator may run wpq on a newer release. */
CephScheduler ceph_scheduler_for(CephRelease release, const char *osd_op_queue);

typedef struct CephConfigOp {
        char *who;   /* "osd" */
        char *key;
        char *value; /* NULL: `config rm WHO KEY` */
} CephConfigOp;

typedef struct CephThrottlePlan {
        CephThrottlePreset preset;
        CephScheduler scheduler;
        CephConfigOp *apply;     /* in order */
        size_t n_apply;
        CephConfigOp *restore;   /* in order (the reverse of apply): set back, or rm when absent before */
        size_t n_restore;
        char **warnings;         /* e.g. a per-daemon "osd.3" entry that overrides the preset */
} CephThrottlePlan;

/* The `config set` operations of a preset, who "osd":
 *   wpq    slow    osd_max_backfills 1, osd_recovery_max_active 1, osd_recovery_max_single_start 1
 *          default 1 / 3 / 1 (the Luminous defaults), fast 4 / 4 / 4
 *   mClock slow    osd_mclock_profile high_client_ops
 *          default osd_mclock_profile balanced
 *          fast    osd_mclock_profile high_recovery_ops
 * mClock steers recovery by its profile; the limits are mClock's own business unless the
 * operator gives explicit values (`limits`: the layout's throttle names
 * osd_max_backfills & co.): then osd_mclock_override_recovery_settings true and the preset's
 * wpq limits follow the profile (the caller puts the explicit values in). Without the
 * override the OSDs delete the limits from the mon store at once (docs/ceph.md
 * "Throttles"); Quincy before 17.2.6 lacks that option: `config set` of it fails there.
 * Under wpq `limits` changes nothing. */
int ceph_throttle_settings(CephThrottlePreset preset, CephScheduler scheduler, bool limits, CephConfigOp **ret,
                           size_t *ret_n, Error *err);
/* The keys a preset touches (read them first: `config dump`), NULL-terminated, static. */
const char *const *ceph_throttle_keys(CephThrottlePreset preset, CephScheduler scheduler, bool limits);
/* The settings plus how to restore what `before` (`config dump -f json`, taken before any
 * change) had: each key the preset sets goes back to its "osd"-section value, or is removed
 * when it had none. */
int ceph_throttle_plan(CephThrottlePreset preset, CephScheduler scheduler, bool limits, const CephConfigDump *before,
                       CephThrottlePlan **ret, Error *err);
/* The OSDs of `meta` that run wpq in a cluster that otherwise runs mClock: a FileStore OSD
 * (from Quincy on, Ceph's make_scheduler() gives FileStore wpq whatever osd_op_queue says),
 * or one whose osd_op_queue (`before`: its "osd.N" entry, else the "osd" one, else the
 * release's default) is wpq. *ret sorted, NULL when none; -ENOMEM. */
int ceph_wpq_osds(CephRelease release, const CephConfigDump *before, const CephOsdMetadataList *meta, int **ret,
                  size_t *ret_n);
/* A mixed cluster under a profile-only mClock plan (no explicit limits): the wpq OSDs'
 * limits of the preset, set per OSD ("osd.N": the "osd" section's limits would be removed
 * again by the mClock OSDs), appended to the plan with their restore (each "osd.N" key back
 * to its value in `before`, or removed). An OSD's own entry of those keys is overwritten for
 * the window and put back after it. -ENOMEM. */
int ceph_throttle_plan_add_wpq_osds(CephThrottlePlan *p, const int *ids, size_t n, const CephConfigDump *before);
CephThrottlePlan *ceph_throttle_plan_free(CephThrottlePlan *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephThrottlePlan *, ceph_throttle_plan_free);
void ceph_config_ops_free(CephConfigOp *ops, size_t n);

/* The restore list as one line of JSON, to keep in the cluster (config-key) so another
 * admin machine can restore: {"preset":"fast","restore":[{"who":"osd","key":K,"value":V|null}]} */
char *ceph_throttle_restore_format(const CephThrottlePlan *p);
int ceph_throttle_restore_parse(const char *json, CephConfigOp **ret, size_t *ret_n, Error *err);
/* Each entry of the record also says what cephprov wrote there ("wrote": the values it set;
 * ceph_throttle_restore_format() fills it from the plan's apply list, and
 * ceph_throttle_record_set_ladder() with every value of the adaptive ladder of `sched`).
 * A record written before cephprov kept it has no "wrote": its preset and scheduler say
 * what that preset sets (the adaptive one: any rung); a key they do not say (a custom value)
 * is not known to be cephprov's. -EINVAL: not a record, -ENOMEM. */
int ceph_throttle_record_set_ladder(json_object *rec, CephScheduler sched);
/* What restore-throttle does with `record`, given the config database now: *ret_ops puts
 * back the value before (in the record's order) where the key still holds what cephprov
 * wrote; a key already at its value before needs nothing; every other one (someone changed
 * it since, or what cephprov wrote is not known) is left as it is and is an entry of
 * *ret_left: {"who", "key", "value": now (null: absent), "before", "wrote": [..] | null}. */
int ceph_throttle_restore_decide(const char *record, const CephConfigDump *now, CephConfigOp **ret_ops,
                                 size_t *ret_n, json_object **ret_left, Error *err);
/* A throttle that finds the record `old` of an earlier run, not restored, makes `rec` (its
 * own record, whose values before are the config database now) take it over: where a key
 * still holds what the earlier run wrote, the value before that run is the one to go back to
 * (it replaces rec's, or is appended when rec does not set that key); where it does not,
 * someone set it since and its value now (rec's) is. *ret_taken: "WHO KEY" of each entry
 * taken from `old`. */
int ceph_throttle_record_take_over(json_object *rec, const char *old, const CephConfigDump *now,
                                   json_object **ret_taken, Error *err);
/* `config set WHO KEY VALUE`, or `config rm WHO KEY` when value is NULL */
char **ceph_argv_config_op(const CephCli *cli, const CephConfigOp *op, Error *err);

/* ---- which node is sick ------------------------------------------------------------ */

typedef struct CephSlowOptions {
        double factor;   /* a host stands out when its median commit latency > factor × the
                          * median of the other hosts' OSDs (default 3) ... */
        double floor_ms; /* ... and > floor_ms (default 20) */
} CephSlowOptions;

typedef struct CephSlowOsd {
        int id;
        char *host;             /* NULL: not in the tree */
        bool slow_ops;          /* named by SLOW_OPS */
        bool bluestore_slow;    /* BLUESTORE_SLOW_OP_ALERT / DB_DEVICE_STALLED_READ_ALERT (Squid+) */
        double commit_ms, apply_ms; /* < 0: not in osd perf */
} CephSlowOsd;

typedef struct CephSlowHost {
        char *name;
        size_t n_osds;           /* OSDs in the tree */
        size_t n_slow;           /* of those, with slow ops or a BlueStore alert */
        double median_commit_ms; /* < 0: no latency known */
        bool stands_out;
} CephSlowHost;

typedef struct CephSlowReport {
        CephSlowOsd *osds;      /* the slow OSDs, sorted by id */
        size_t n_osds;
        CephSlowHost *hosts;    /* every host of the tree, by name */
        size_t n_hosts;
        char *standout;         /* the host that stands out, NULL when none */
        char *why;              /* why it stands out ("all 2 OSDs with slow ops are on it", ...) */
        uint64_t n_slow_ops;    /* from the SLOW_OPS summary */
        uint64_t oldest_blocked_sec;
        bool truncated;         /* SLOW_OPS named only the first 10 daemons */
        char **other_daemons;   /* "mon.a" ... with slow ops (never NULL) */
} CephSlowReport;

/* From `health detail` (SLOW_OPS: "N slow ops, oldest one blocked for S sec, daemons
 * [osd.3,osd.9] have slow ops." or "osd.3 has slow ops"; BLUESTORE_SLOW_OP_ALERT and
 * DB_DEVICE_STALLED_READ_ALERT detail lines "osd.3 observed ..."), `osd perf` (may be NULL)
 * and `osd tree`; `opts` NULL: the defaults. A host stands out when every slow OSD is on it
 * (and the cluster has more than one host), or by latency as CephSlowOptions says. */
int ceph_slow_report(const CephHealth *health, const CephOsdPerf *perf, const CephOsdTree *tree,
                     const CephSlowOptions *opts, CephSlowReport **ret, Error *err);
CephSlowReport *ceph_slow_report_free(CephSlowReport *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephSlowReport *, ceph_slow_report_free);
/* "slow ops on osd.3 and osd.9, both on host node3"; "no slow ops" when there are none */
char *ceph_slow_report_sentence(const CephSlowReport *r);
json_object *ceph_slow_report_to_json(const CephSlowReport *r);
