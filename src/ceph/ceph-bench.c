/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The canary's benchmark: `osd bench`, the best round, the comparison (ceph-bench.h). */

#include "ceph/ceph-bench.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph-internal.h"

char **ceph_argv_osd_bench(const CephCli *cli, int id, uint64_t total, uint64_t block, Error *err) {
        if (id < 0 || block == 0 || total < block) {
                error_set(err, EINVAL, "osd bench: osd.%d, %" PRIu64 " bytes in blocks of %" PRIu64 ": invalid", id,
                          total, block);
                return NULL;
        }
        _cleanup_strv_free_ char **a = ceph_argv_cli(cli, err);
        if (!a)
                return NULL;
        char who[32], t[32], b[32];
        snprintf(who, sizeof who, "osd.%d", id);
        snprintf(t, sizeof t, "%" PRIu64, total);
        snprintf(b, sizeof b, "%" PRIu64, block);
        const char *words[] = { "tell", who, "bench", t, b, "-f", "json" };
        for (size_t i = 0; i < ELEMENTSOF(words); i++)
                if (strv_extend(&a, words[i]) < 0) {
                        error_set(err, ENOMEM, "out of memory");
                        return NULL;
                }
        return TAKE_PTR(a);
}

/* a JSON number (integer or double) */
static int get_number(json_object *o, const char *key, bool required, double *ret, const char *what, Error *err) {
        json_object *v = NULL;
        if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null)) {
                if (required)
                        return error_set(err, EBADMSG, "%s: no '%s'", what, key);
                return -ENOENT;
        }
        if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
                return error_set(err, EBADMSG, "%s: '%s' is not a number", what, key);
        double d = json_object_get_double(v);
        if (!isfinite(d) || d < 0)
                return error_set(err, EBADMSG, "%s: '%s' is %g, not a non-negative number", what, key, d);
        *ret = d;
        return 0;
}

int ceph_osd_bench_parse(const char *json, CephOsdBench *ret, Error *err) {
        const char *what = "ceph tell osd bench";
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, what, &root, err);
        if (r < 0)
                return r;
        if (!json_object_is_type(root, json_type_object))
                return error_set(err, EBADMSG, "%s: not a JSON object", what);
        CephOsdBench b = {};
        double written = 0, block = 0;
        if ((r = get_number(root, "bytes_written", true, &written, what, err)) < 0 ||
            (r = get_number(root, "blocksize", true, &block, what, err)) < 0 ||
            (r = get_number(root, "bytes_per_sec", true, &b.bytes_per_sec, what, err)) < 0)
                return r;
        if ((r = get_number(root, "elapsed_sec", false, &b.elapsed_sec, what, err)) < 0 && r != -ENOENT)
                return r;
        if ((r = get_number(root, "iops", false, &b.iops, what, err)) < 0 && r != -ENOENT)
                return r;
        if (block < 1 || written < block || b.bytes_per_sec <= 0)
                return error_set(err, EBADMSG, "%s: %.0f bytes in blocks of %.0f at %g bytes/s: not a measurement",
                                 what, written, block, b.bytes_per_sec);
        b.bytes_written = (uint64_t) written;
        b.block_size = (uint64_t) block;
        if (b.iops <= 0)
                b.iops = b.bytes_per_sec / block;
        *ret = b;
        return 0;
}

double ceph_bench_median(double *v, size_t n) {
        if (n == 0)
                return 0;
        qsort(v, n, sizeof(double), ceph_double_cmp);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double ceph_bench_best(const double *v, size_t n) {
        double best = 0;
        for (size_t i = 0; i < n; i++)
                if (v[i] > best)
                        best = v[i];
        return best;
}

void ceph_bench_done(CephBench *b) {
        if (!b)
                return;
        free(b->label);
        free(b->host);
        free(b->osds);
        *b = (CephBench) {};
}

json_object *ceph_bench_to_json(const CephBench *b) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *osds = json_object_new_array();
        if (!o || json_add(o, "osds", osds) < 0 || json_add_string(o, "label", b->label) < 0 ||
            (b->host && json_add_string(o, "host", b->host) < 0) || json_add_int(o, "time", b->time) < 0 ||
            json_add_u64(o, "rounds", b->rounds) < 0)
                return NULL;
        for (size_t i = 0; i < b->n_osds; i++) {
                json_object *e = json_array_add_object(osds);
                if (!e)
                        return NULL;
                if (json_add_int(e, "id", b->osds[i].id) < 0 ||
                    json_add(e, "small_iops", json_object_new_double(round(b->osds[i].small_iops * 10) / 10)) < 0 ||
                    json_add(e, "large_mbps", json_object_new_double(round(b->osds[i].large_mbps * 100) / 100)) < 0)
                        return NULL;
        }
        return TAKE_PTR(o);
}

static int osd_cmp(const void *a, const void *b) {
        return ceph_int_cmp(&((const CephBenchOsd *) a)->id, &((const CephBenchOsd *) b)->id);
}

void ceph_bench_sort(CephBench *b) {
        qsort(b->osds, b->n_osds, sizeof(CephBenchOsd), osd_cmp);
}

int ceph_bench_from_json(json_object *o, const char *what, CephBench *ret, Error *err) {
        _cleanup_(ceph_bench_done) CephBench b = {};
        const char *label = NULL, *host = NULL;
        json_object *osds = NULL;
        uint64_t rounds = 0;
        int r;
        if (!json_object_is_type(o, json_type_object))
                return error_set(err, EBADMSG, "%s: not a JSON object", what);
        if ((r = json_get_string(o, "label", true, &label, what, err)) < 0 ||
            (r = json_get_int(o, "time", true, &b.time, what, err)) < 0 ||
            (r = json_get_u64(o, "rounds", true, &rounds, what, err)) < 0 ||
            (r = json_get_array(o, "osds", true, &osds, what, err)) < 0)
                return r;
        if ((r = json_get_string(o, "host", false, &host, what, err)) < 0 && r != -ENOENT)
                return r;
        b.rounds = (unsigned) MIN(rounds, 1000u);
        if (!(b.label = strdup(label)) || (host && !(b.host = strdup(host))))
                return error_set(err, ENOMEM, "out of memory");
        size_t n = json_object_array_length(osds);
        if (!(b.osds = calloc(n ? n : 1, sizeof(CephBenchOsd))))
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(osds, i);
                int64_t id = -1;
                CephBenchOsd *d = &b.osds[b.n_osds++];
                if (!json_object_is_type(e, json_type_object) || json_get_int(e, "id", true, &id, what, err) < 0 ||
                    id < 0 || id > INT32_MAX || get_number(e, "small_iops", true, &d->small_iops, what, err) < 0 ||
                    get_number(e, "large_mbps", true, &d->large_mbps, what, err) < 0)
                        return error_set(err, EBADMSG, "%s: osds[%zu] is not {\"id\",\"small_iops\",\"large_mbps\"}",
                                         what, i);
                d->id = (int) id;
        }
        ceph_bench_sort(&b);
        for (size_t i = 1; i < b.n_osds; i++)
                if (b.osds[i].id == b.osds[i - 1].id)
                        return error_set(err, EBADMSG, "%s: osd.%d is there twice", what, b.osds[i].id);
        *ret = b;
        b = (CephBench) {};
        return 0;
}

void ceph_bench_verdict_done(CephBenchVerdict *v) {
        if (v) {
                free(v->text);
                *v = (CephBenchVerdict) {};
        }
}

static const CephBenchOsd *find_osd(const CephBench *b, int id) {
        for (size_t i = 0; i < b->n_osds; i++)
                if (b->osds[i].id == id)
                        return &b->osds[i];
        return NULL;
}

void ceph_bench_merge_best(CephBench *b, const CephBench *more) {
        for (size_t i = 0; i < b->n_osds; i++) {
                const CephBenchOsd *m = find_osd(more, b->osds[i].id);
                if (m) {
                        b->osds[i].small_iops = MAX(b->osds[i].small_iops, m->small_iops);
                        b->osds[i].large_mbps = MAX(b->osds[i].large_mbps, m->large_mbps);
                }
        }
        b->rounds += more->rounds;
}

/* after ÷ before − 1 as a signed percentage */
static double change_pct(double before, double after) {
        return before > 0 ? (after / before - 1) * 100 : 0;
}

int ceph_bench_compare(const CephBench *before, const CephBench *after, unsigned max_regression_pct,
                       CephBenchVerdict *ret, Error *err) {
        _cleanup_(ceph_bench_verdict_done) CephBenchVerdict v = { .limit = 1 + max_regression_pct / 100.0 };
        _cleanup_strv_free_ char **lines = NULL, **missing = NULL;
        double log_small = 0, log_large = 0;
        if (strv_consume(&lines,
                         strprintf("%-10s %28s   %28s", "", "4 KiB writes (IOPS)", "4 MiB writes (MB/s)")) < 0 ||
            strv_consume(&lines, strprintf("%-10s %9s %9s %8s   %9s %9s %8s", "", "before", "after", "change", "before",
                                           "after", "change")) < 0)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < after->n_osds; i++) {
                const CephBenchOsd *a = &after->osds[i], *b = find_osd(before, a->id);
                if (!b || b->small_iops <= 0 || b->large_mbps <= 0 || a->small_iops <= 0 || a->large_mbps <= 0) {
                        if (strv_consume(&missing, strprintf("osd.%d", a->id)) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                        continue;
                }
                v.n_common++;
                log_small += log(b->small_iops / a->small_iops);
                log_large += log(b->large_mbps / a->large_mbps);
                if (strv_consume(&lines, strprintf("osd.%-6d %9.0f %9.0f %+7.0f%%   %9.1f %9.1f %+7.0f%%", a->id,
                                                   b->small_iops, a->small_iops, change_pct(b->small_iops, a->small_iops),
                                                   b->large_mbps, a->large_mbps,
                                                   change_pct(b->large_mbps, a->large_mbps))) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < before->n_osds; i++)
                if (!find_osd(after, before->osds[i].id) &&
                    strv_consume(&missing, strprintf("osd.%d", before->osds[i].id)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        if (v.n_common == 0)
                return error_set(err, EINVAL, "benchmark '%s' against '%s': no OSD measured both times", after->label,
                                 before->label);
        v.small_slowdown = exp(log_small / (double) v.n_common);
        v.large_slowdown = exp(log_large / (double) v.n_common);
        v.regressed = v.small_slowdown > v.limit || v.large_slowdown > v.limit;
        double floor_pct = (1 / v.limit - 1) * 100;
        if (strv_consume(&lines, strprintf("%-10s %9s %9s %+7.0f%%   %9s %9s %+7.0f%%", "all", "", "",
                                           (1 / v.small_slowdown - 1) * 100, "", "",
                                           (1 / v.large_slowdown - 1) * 100)) < 0 ||
            strv_consume(&lines, strprintf("%s: %s (the limit is %.0f%%, max_regression %u%%)",
                                           v.regressed ? "slower" : "within the limit",
                                           v.regressed ? "the OSDs as a whole are slower than the limit allows"
                                                       : "no regression past the limit",
                                           floor_pct, max_regression_pct)) < 0)
                return error_set(err, ENOMEM, "out of memory");
        if (missing) {
                _cleanup_(freep) char *m = strv_join(missing, " ");
                if (!m || strv_consume(&lines, strprintf("not compared (measured only once): %s", m)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        if (!(v.text = strv_join(lines, "\n")))
                return error_set(err, ENOMEM, "out of memory");
        *ret = v;
        v = (CephBenchVerdict) {};
        return 0;
}
