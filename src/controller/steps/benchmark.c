/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The benchmark of a host's OSDs (`tell osd.N bench`) and its gate. */

#include "controller/steps/steps-internal.h"

/* ---- benchmark ------------------------------------------------------------------- */

/* One `osd bench` of osd.ID: its rate (small: IOPS, large: MB/s). */
static int osd_bench(ClusterSteps *cs, int id, bool small, double *ret, Error *err) {
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(cs->admin,
                               ceph_argv_osd_bench(cs_cli(cs), id, small ? CEPH_BENCH_SMALL_TOTAL : CEPH_BENCH_LARGE_TOTAL,
                                                   small ? CEPH_BENCH_SMALL_BLOCK : CEPH_BENCH_LARGE_BLOCK, err),
                               NULL, &out, err);
        if (r < 0)
                return r;
        CephOsdBench b;
        if ((r = ceph_osd_bench_parse(out, &b, err)) < 0)
                return error_prefix(err, r, "osd.%d", id);
        *ret = small ? b.iops : b.bytes_per_sec / 1e6;
        return 0;
}

/* Measures each OSD `rounds` times with both sizes, the best round of each into *ret
 * (ceph_bench_best(): seen in CI, the median of 5 rounds of an unchanged OSD 56 % below its
 * first measurement while three labs ran beside it). */
static int bench_osds(ClusterSteps *cs, WaveCall *c, const int *ids, size_t n, unsigned rounds, CephBench *ret,
                      Error *err) {
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        int r = cs_osd_dump(cs, &dump, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                const CephDumpOsd *o = ceph_osd_dump_find_osd(dump, ids[i]);
                if (!o || !o->up)
                        return error_set(err, EHOSTDOWN, "osd.%d is %s: it cannot be benchmarked", ids[i],
                                         o ? "down" : "not in the OSD map");
        }
        if (!(ret->osds = calloc(n ? n : 1, sizeof(CephBenchOsd))))
                return error_set(err, ENOMEM, "out of memory");
        ret->rounds = rounds;
        _cleanup_(freep) double *small = calloc(rounds, sizeof(double)), *large = calloc(rounds, sizeof(double));
        if (!small || !large)
                return error_set(err, ENOMEM, "out of memory");
        double t0 = clock_mono_sec();
        size_t done = 0, total = n * rounds;
        for (size_t i = 0; i < n; i++) {
                for (unsigned k = 0; k < rounds; k++) {
                        if (c && wave_call_cancelled(c))
                                return error_set(err, ECANCELED, "benchmark: cancelled");
                        _cleanup_(freep) char *text = strprintf("osd.%d round %u of %u", ids[i], k + 1, rounds);
                        double el = clock_mono_sec() - t0;
                        if (c)
                                wave_call_progress(c, (double) done / (double) total,
                                                   done ? el / (double) done * (double) (total - done) : -1, text);
                        if ((r = osd_bench(cs, ids[i], true, &small[k], err)) < 0 ||
                            (r = osd_bench(cs, ids[i], false, &large[k], err)) < 0)
                                return r;
                        done++;
                }
                ret->osds[ret->n_osds++] = (CephBenchOsd) { .id = ids[i],
                                                            .small_iops = ceph_bench_best(small, rounds),
                                                            .large_mbps = ceph_bench_best(large, rounds) };
        }
        return 0;
}

/* a label that can be part of a config-key name */
static bool label_valid(const char *s) {
        static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.";
        return !isempty(s) && strlen(s) <= 64 && s[strspn(s, ok)] == 0;
}

static char *bench_record_name(const char *host, const char *label) {
        return host ? strprintf("benchmark/%s/%s", host, label) : strprintf("benchmark/%s", label);
}

int cluster_step_benchmark(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        const char *label = NULL, *compare_to = NULL, *host = c ? wave_call_host(c) : NULL;
        uint64_t rounds = 5, max_regression = 100;
        bool canary_only = true;
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        int r;
        if ((r = json_get_string(args, "label", true, &label, "benchmark", err)) < 0 ||
            (r = cs_osds_arg(args, &ids, &n, err)) < 0)
                return r;
        (void) json_get_string(args, "compare_to", false, &compare_to, "benchmark", NULL);
        (void) json_get_u64(args, "rounds", false, &rounds, "benchmark", NULL);
        (void) json_get_u64(args, "max_regression", false, &max_regression, "benchmark", NULL);
        (void) json_get_bool(args, "canary_only", false, &canary_only, "benchmark", NULL);
        if (!label_valid(label) || (compare_to && !label_valid(compare_to)))
                return error_set(err, EINVAL, "benchmark: label '%s' / compare_to '%s': letters, digits, '-', '_' and "
                                              "'.' only", label, compare_to ? compare_to : "");
        _cleanup_(freep) char *where = host ? strprintf(" of host '%s'", host) : strdup("");
        if (!where)
                return error_set(err, ENOMEM, "out of memory");
        if ((r = cs_result_new(ret, err)) < 0)
                return r;
        unsigned wave = c ? wave_call_wave(c) : 0;
        if (host && canary_only && wave > 1) {
                json_add_string(*ret, "skipped", "not the canary: only the first wave is measured (canary_only)");
                return 0;
        }
        if (n == 0)
                return error_set(err, EINVAL, "benchmark '%s'%s: no OSD to measure", label, where);
        rounds = MAX(1u, MIN(rounds, 20u));

        /* the earlier measurement first: a missing one fails before minutes of benchmarking */
        _cleanup_(ceph_bench_done) CephBench before = {}, now = {};
        _cleanup_(freep) char *name = bench_record_name(host, label), *before_name = NULL;
        if (!name)
                return error_set(err, ENOMEM, "out of memory");
        if (compare_to) {
                _cleanup_json_ json_object *rec = NULL;
                if (!(before_name = bench_record_name(host, compare_to)))
                        return error_set(err, ENOMEM, "out of memory");
                if ((r = cs_record_get_json(cs->admin, before_name, &rec, err)) < 0)
                        return r;
                if (r == 0)
                        return error_set(err, ENOENT, "benchmark '%s': no measurement '%s'%s recorded in the cluster "
                                                      "(config-key cephprov/%s/%s) to compare with",
                                         label, compare_to, where, cs->admin->cluster, before_name);
                _cleanup_(freep) char *what = strprintf("the record cephprov/%s/%s", cs->admin->cluster, before_name);
                if ((r = ceph_bench_from_json(rec, what ? what : "benchmark record", &before, err)) < 0)
                        return r;
        }

        if ((r = bench_osds(cs, c, ids, n, (unsigned) rounds, &now, err)) < 0)
                return error_prefix(err, r, "benchmark '%s'%s", label, where);

        /* A verdict of "slower" is confirmed before it stops a rolling conversion: as many
         * rounds again, the best of all of them kept. Others' load only ever slows a round
         * down (ceph_bench_best()), so a passing spell of it is outlived by the second pass
         * (seen in CI: an unchanged OSD's 4 MiB writes -51 % while a UML guest created OSDs
         * beside it), and a device that got slower is slower in every round of both. */
        _cleanup_(ceph_bench_verdict_done) CephBenchVerdict v = {};
        bool confirmed = false;
        if (compare_to) {
                if ((r = ceph_bench_compare(&before, &now, (unsigned) max_regression, &v, err)) < 0)
                        return r;
                if (v.regressed) {
                        _cleanup_(ceph_bench_done) CephBench more = {};
                        log_notice("benchmark '%s' against '%s'%s: slower than the limit (4 KiB writes %+.0f%%, "
                                   "4 MiB writes %+.0f%%): measuring %u rounds more to confirm",
                                   label, compare_to, where, (1 / v.small_slowdown - 1) * 100,
                                   (1 / v.large_slowdown - 1) * 100, (unsigned) rounds);
                        if ((r = bench_osds(cs, c, ids, n, (unsigned) rounds, &more, err)) < 0)
                                return error_prefix(err, r, "benchmark '%s'%s", label, where);
                        ceph_bench_merge_best(&now, &more);
                        ceph_bench_verdict_done(&v);
                        if ((r = ceph_bench_compare(&before, &now, (unsigned) max_regression, &v, err)) < 0)
                                return r;
                        confirmed = true;
                }
        }
        now.time = (int64_t) time(NULL);
        ceph_bench_sort(&now);
        if (!(now.label = strdup(label)) || (host && !(now.host = strdup(host))))
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_json_ json_object *m = ceph_bench_to_json(&now);
        if (!m)
                return error_set(err, ENOMEM, "out of memory");
        if ((r = cs_record_set(cs->admin, name, m, err)) < 0)
                return r;
        json_add(*ret, "measurement", json_object_get(m));
        for (size_t i = 0; i < now.n_osds; i++)
                log_notice("benchmark '%s'%s: osd.%d %.0f IOPS (4 KiB writes), %.1f MB/s (4 MiB writes), best of %u rounds",
                         label, where, now.osds[i].id, now.osds[i].small_iops,
                         now.osds[i].large_mbps, now.rounds);
        if (!compare_to)
                return 0;

        json_add_string(*ret, "compared_to", compare_to);
        json_add_bool(*ret, "regressed", v.regressed);
        json_add_bool(*ret, "remeasured", confirmed);
        json_add(*ret, "small_change_pct", json_object_new_double(round((1 / v.small_slowdown - 1) * 1000) / 10));
        json_add(*ret, "large_change_pct", json_object_new_double(round((1 / v.large_slowdown - 1) * 1000) / 10));
        json_add(*ret, "limit_pct", json_object_new_double(round((1 / v.limit - 1) * 1000) / 10));
        json_add_string(*ret, "table", v.text);
        if (!v.regressed)
                log_notice("benchmark '%s' against '%s'%s:\n%s", label, compare_to, where, v.text);
        else {
                /* the table to the log, the error one line (it is repeated in the reports) */
                log_error("benchmark '%s' against '%s'%s:\n%s", label, compare_to, where, v.text);
                return error_set(err, EDQUOT, "benchmark '%s' against '%s'%s: the OSDs are slower than "
                                              "max_regression %" PRIu64 "%% allows (4 KiB writes %+.0f%%, 4 MiB writes "
                                              "%+.0f%%, the limit %.0f%%): stopping before the next host",
                                 label, compare_to, where, max_regression, (1 / v.small_slowdown - 1) * 100,
                                 (1 / v.large_slowdown - 1) * 100, (1 / v.limit - 1) * 100);
        }
        return 0;
}
