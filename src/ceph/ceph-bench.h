/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The canary's benchmark gate (issue 11, docs/playbooks.md "benchmark"): before the first
 * host of a conversion changes, and again after its backfill, each of its OSDs is measured
 * with Ceph's own `ceph tell osd.N bench` — small (4 KiB) writes, and large (4 MiB) writes —
 * a few times; the best round is kept per OSD. The "after" measurement is compared with the
 * "before" one of the same OSD ids; when the OSDs as a whole (the geometric mean of their
 * ratios) got slower by more than the playbook's threshold, the conversion stops before
 * the second host.
 *
 * Why `osd bench`: it measures exactly one OSD's object store (no network, no replicas, no
 * pool: nothing to create, nothing to delete on a cluster that forbids deleting pools), on
 * every OSD of the canary, which a probe through a pool cannot promise (the canary's OSDs
 * are the primaries of some of a pool's PGs only). What it does not see: reads, and the
 * latency of one op at a time — it queues every write at once and reports the rate.
 *
 * Pure: argv builder, parser, best round and median, comparison and its text; no I/O. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "basic/macro.h"
#include "ceph/ceph.h"

/* The two measurements of one `bench` round. 4 KiB × 3000 is the most `osd bench` takes
 * for small blocks with its defaults (osd_bench_small_size_max_iops 100 × osd_bench_duration
 * 30 s); 4 MiB × 16 keeps the large one to 64 MiB, seconds on a slow HDD. */
#define CEPH_BENCH_SMALL_BLOCK 4096u
#define CEPH_BENCH_SMALL_TOTAL (3000u * CEPH_BENCH_SMALL_BLOCK)
#define CEPH_BENCH_LARGE_BLOCK (4u << 20)
#define CEPH_BENCH_LARGE_TOTAL (16u * CEPH_BENCH_LARGE_BLOCK)

/* `tell osd.ID bench TOTAL BLOCK -f json` */
char **ceph_argv_osd_bench(const CephCli *cli, int id, uint64_t total, uint64_t block, Error *err);

typedef struct CephOsdBench {
        uint64_t bytes_written, block_size;
        double elapsed_sec;   /* 0 when the release does not say */
        double bytes_per_sec; /* > 0 */
        double iops;          /* bytes_per_sec / block_size when the release does not say */
} CephOsdBench;

/* `ceph tell osd.N bench ... -f json`: {"bytes_written","blocksize","elapsed_sec",
 * "bytes_per_sec","iops"} (elapsed_sec and iops since Octopus). EBADMSG names what is wrong. */
int ceph_osd_bench_parse(const char *json, CephOsdBench *ret, Error *err);

/* The median of v[0..n-1] (sorted in place); 0 for n == 0. */
double ceph_bench_median(double *v, size_t n);
/* The best of `n` rounds (0 for none): what the OSD can do. Others' load on the same disks
 * and CPUs only ever slows a round down, so the best round is the measurement least touched
 * by it; a device that got slower is slower in every round, the best one too. */
double ceph_bench_best(const double *v, size_t n);

typedef struct CephBenchOsd {
        int id;
        double small_iops; /* best of the rounds, 4 KiB writes per second */
        double large_mbps; /* best of the rounds, 4 MiB writes: MB (10^6 bytes) per second */
} CephBenchOsd;

/* One host's measurement, as recorded in the cluster (config-key) between the two steps. */
typedef struct CephBench {
        char *label;
        char *host;    /* NULL: not of one host */
        int64_t time;  /* when it was taken (Unix seconds) */
        unsigned rounds;
        CephBenchOsd *osds; /* sorted by id */
        size_t n_osds;
} CephBench;

void ceph_bench_done(CephBench *b);
/* The OSDs in id order */
void ceph_bench_sort(CephBench *b);

/* More rounds of the same OSDs into *b: per OSD id the better of each figure, the rounds
 * added (an OSD only in `more` is not added) */
void ceph_bench_merge_best(CephBench *b, const CephBench *more);

/* {"label","host","time","rounds","osds":[{"id","small_iops","large_mbps"}]}; NULL: ENOMEM */
json_object *ceph_bench_to_json(const CephBench *b);
/* The same back; EBADMSG names `what` and the field. */
int ceph_bench_from_json(json_object *o, const char *what, CephBench *ret, Error *err);

typedef struct CephBenchVerdict {
        size_t n_common;       /* OSDs measured both times (the others are named in the text) */
        double small_slowdown; /* geometric mean over them of before ÷ after small IOPS (> 1: slower) */
        double large_slowdown; /* the same for large throughput */
        double limit;          /* 1 + max_regression / 100 */
        bool regressed;        /* either slowdown above the limit */
        char *text;            /* a table: per OSD both figures side by side ("before" the earlier
                                * measurement, "after" the later), then the verdict */
} CephBenchVerdict;

void ceph_bench_verdict_done(CephBenchVerdict *v);

/* `after` against `before`: regressed when the small-write IOPS or the large-write throughput
 * of the OSDs measured both times is, as a geometric mean of their ratios, lower by more than
 * a factor 1 + max_regression_pct / 100 (50: after below two thirds of before). EINVAL when
 * no OSD was measured both times. */
int ceph_bench_compare(const CephBench *before, const CephBench *after, unsigned max_regression_pct,
                       CephBenchVerdict *ret, Error *err);
