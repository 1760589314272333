/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The canary's benchmark (src/ceph/ceph-bench.h): the `osd bench` argv and answer (a capture
 * of Pacific's, and the older form without elapsed_sec and iops), medians, the record's JSON
 * both ways, and the comparison: no change passes, a uniform slowdown past the limit fails,
 * one OSD a little slower does not, OSDs measured once are named and not counted. */

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/strv.h"
#include "ceph/ceph-bench.h"
#include "test.h"

static void test_argv(void) {
        CephCli cli = { .cluster = "ceph", .connect_timeout = 30 };
        Error err = {};
        _cleanup_strv_free_ char **a = ceph_argv_osd_bench(&cli, 7, CEPH_BENCH_SMALL_TOTAL, CEPH_BENCH_SMALL_BLOCK, &err);
        CHECK(a != NULL);
        _cleanup_(freep) char *s = a ? strv_join(a, " ") : NULL;
        CHECK_STREQ(s, "ceph --cluster ceph --connect-timeout 30 tell osd.7 bench 12288000 4096 -f json");
        CHECK(ceph_argv_osd_bench(&cli, -1, 4096, 4096, &err) == NULL && err.code == EINVAL);
        error_reset(&err);
        CHECK(ceph_argv_osd_bench(&cli, 1, 100, 4096, &err) == NULL && err.code == EINVAL);
        error_reset(&err);
}

/* a capture of tests/data/ceph (small: one read) */
static char *capture(const char *name) {
        const char *dir = getenv("TEST_DATA");
        _cleanup_(freep) char *p = strprintf("%s/ceph/%s", dir ? dir : "tests/data", name);
        _cleanup_(fclosep) FILE *f = p ? fopen(p, "re") : NULL;
        char *buf = calloc(1, 65536);
        if (!f || !buf || fread(buf, 1, 65535, f) == 0) {
                fprintf(stderr, "cannot read '%s'\n", p ? p : name);
                free(buf);
                return NULL;
        }
        return buf;
}

static void test_parse(void) {
        CephOsdBench b;
        Error err = {};
        _cleanup_(freep) char *cap = capture("pacific/osd-bench-small.out");
        CHECK(cap != NULL);
        if (cap) {
                CHECK_INTEQ(ceph_osd_bench_parse(cap, &b, &err), 0);
                CHECK(b.bytes_written == 12288000 && b.block_size == 4096);
                CHECK(b.iops > 0 && b.elapsed_sec > 0);
                CHECK(fabs(b.iops - b.bytes_per_sec / 4096) < 1);
        }
        _cleanup_(freep) char *large = capture("pacific/osd-bench-large.out");
        CHECK(large != NULL);
        if (large) {
                CHECK_INTEQ(ceph_osd_bench_parse(large, &b, &err), 0);
                CHECK(b.bytes_written == 64u << 20 && b.block_size == 4u << 20 && b.bytes_per_sec > 1e6);
        }
        /* before Octopus: no elapsed_sec, no iops: iops from the rate */
        CHECK_INTEQ(ceph_osd_bench_parse("\n{\"bytes_written\":12288000,\"blocksize\":4096,\"bytes_per_sec\":4096000}\n",
                                         &b, &err), 0);
        CHECK(b.iops == 1000 && b.elapsed_sec == 0);
        const char *bad[] = {
                "", "[]", "{\"blocksize\":4096,\"bytes_per_sec\":1}", "{\"bytes_written\":1,\"blocksize\":4096,\"bytes_per_sec\":1}",
                "{\"bytes_written\":4096,\"blocksize\":4096,\"bytes_per_sec\":0}",
                "{\"bytes_written\":4096,\"blocksize\":\"4096\",\"bytes_per_sec\":1}",
                "{\"bytes_written\":4096,\"blocksize\":4096,\"bytes_per_sec\":-5}",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                CHECK(ceph_osd_bench_parse(bad[i], &b, &err) < 0);
                CHECK(err.code != 0 && err.message && strstr(err.message, "osd bench"));
                error_reset(&err);
        }
}

static void test_median(void) {
        double a[] = { 5, 1, 3 }, b[] = { 4, 1, 3, 2 };
        CHECK(ceph_bench_median(a, 3) == 3);
        CHECK(ceph_bench_median(b, 4) == 2.5);
        CHECK(ceph_bench_median(NULL, 0) == 0);
        /* the best round: what the OSD can do, others' load aside */
        double c[] = { 900, 3955, 1200, 3800, 40 };
        CHECK(ceph_bench_best(c, 5) == 3955);
        CHECK(ceph_bench_best(c, 1) == 900);
        CHECK(ceph_bench_best(NULL, 0) == 0);
}

static CephBench bench(const char *label, const int *ids, const double *small, const double *large, size_t n) {
        CephBench b = { .label = strdup(label), .host = strdup("node1"), .time = 1700000000, .rounds = 3,
                        .osds = calloc(n, sizeof(CephBenchOsd)), .n_osds = n };
        for (size_t i = 0; i < n; i++)
                b.osds[i] = (CephBenchOsd) { .id = ids[i], .small_iops = small[i], .large_mbps = large[i] };
        return b;
}

static void test_json(void) {
        int ids[] = { 0, 3 };
        double s[] = { 2150.04, 1900 }, l[] = { 180.123, 95.5 };
        _cleanup_(ceph_bench_done) CephBench b = bench("before", ids, s, l, 2), back = {};
        _cleanup_json_ json_object *o = ceph_bench_to_json(&b);
        CHECK(o != NULL);
        Error err = {};
        CHECK_INTEQ(ceph_bench_from_json(o, "record", &back, &err), 0);
        CHECK_STREQ(back.label, "before");
        CHECK_STREQ(back.host, "node1");
        CHECK(back.time == 1700000000 && back.rounds == 3 && back.n_osds == 2);
        CHECK(back.n_osds == 2 && back.osds[1].id == 3 && fabs(back.osds[0].small_iops - 2150.0) < 1e-9 &&
              fabs(back.osds[0].large_mbps - 180.12) < 1e-9);

        const char *bad[] = {
                "[]", "{\"label\":\"x\",\"time\":1,\"rounds\":3}",
                "{\"label\":\"x\",\"time\":1,\"rounds\":3,\"osds\":[{\"id\":1,\"small_iops\":1}]}",
                "{\"label\":\"x\",\"time\":1,\"rounds\":3,\"osds\":[{\"id\":-1,\"small_iops\":1,\"large_mbps\":1}]}",
                "{\"label\":\"x\",\"time\":1,\"rounds\":3,\"osds\":[{\"id\":1,\"small_iops\":1,\"large_mbps\":1},"
                "{\"id\":1,\"small_iops\":1,\"large_mbps\":1}]}",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_json_ json_object *j = json_tokener_parse(bad[i]);
                _cleanup_(ceph_bench_done) CephBench x = {};
                CHECK(j != NULL);
                CHECK(ceph_bench_from_json(j, "record", &x, &err) < 0);
                CHECK(err.message && strstr(err.message, "record"));
                error_reset(&err);
        }
}

static void test_compare(void) {
        int ids[] = { 0, 1, 2 }, ids_after[] = { 0, 1, 5 };
        double s[] = { 2000, 1000, 1500 }, l[] = { 200, 100, 150 };
        double s_same[] = { 2100, 950, 1500 }, l_same[] = { 190, 105, 160 };
        double s_slow[] = { 900, 450, 700 }, l_slow[] = { 200, 100, 150 };
        double s_one[] = { 1300, 1000, 1500 }, l_one[] = { 200, 100, 150 }; /* one OSD −35 % */
        _cleanup_(ceph_bench_done) CephBench before = bench("before", ids, s, l, 3),
                                             same = bench("after", ids, s_same, l_same, 3),
                                             slow = bench("after", ids, s_slow, l_slow, 3),
                                             one = bench("after", ids, s_one, l_one, 3),
                                             other = bench("after", ids_after, s_same, l_same, 3),
                                             none = bench("after", ids_after + 2, s, l, 1);
        CephBenchVerdict v = {};
        Error err = {};

        CHECK_INTEQ(ceph_bench_compare(&before, &same, 50, &v, &err), 0);
        CHECK(!v.regressed && v.n_common == 3 && fabs(v.limit - 1.5) < 1e-12);
        CHECK(v.small_slowdown > 0.95 && v.small_slowdown < 1.05);
        CHECK(v.text && strstr(v.text, "within the limit") && strstr(v.text, "osd.1 "));
        ceph_bench_verdict_done(&v);

        CHECK_INTEQ(ceph_bench_compare(&before, &slow, 50, &v, &err), 0);
        CHECK(v.regressed && v.small_slowdown > 2.1 && v.small_slowdown < 2.3);
        CHECK(fabs(v.large_slowdown - 1) < 1e-9);
        CHECK(v.text && strstr(v.text, "slower: ") && strstr(v.text, "-55%") && strstr(v.text, "the limit is -33%"));
        ceph_bench_verdict_done(&v);
        /* a looser threshold lets the same figures pass */
        CHECK_INTEQ(ceph_bench_compare(&before, &slow, 150, &v, &err), 0);
        CHECK(!v.regressed);
        ceph_bench_verdict_done(&v);

        /* one OSD of three slower by 35 %: the canary as a whole is 13 % slower, within 50 % */
        CHECK_INTEQ(ceph_bench_compare(&before, &one, 50, &v, &err), 0);
        CHECK(!v.regressed && v.small_slowdown > 1.1 && v.small_slowdown < 1.2);
        ceph_bench_verdict_done(&v);

        /* osd.2 measured only before, osd.5 only after: named, not counted */
        CHECK_INTEQ(ceph_bench_compare(&before, &other, 50, &v, &err), 0);
        CHECK(v.n_common == 2 && v.text && strstr(v.text, "not compared (measured only once): osd.5 osd.2"));
        ceph_bench_verdict_done(&v);

        CHECK(ceph_bench_compare(&before, &none, 50, &v, &err) == -EINVAL);
        CHECK(err.message && strstr(err.message, "no OSD measured both times"));
        error_reset(&err);
}

/* a second pass: the better figure per OSD kept, the rounds added; an OSD only in the second
 * pass not added; a passing slow spell is outlived, a slower device stays slower */
static void test_merge_best(void) {
        int ids[] = { 0, 1 }, ids_more[] = { 1, 7 };
        double s[] = { 2000, 1000 }, l[] = { 200, 100 };
        double s_noisy[] = { 2000, 400 }, l_noisy[] = { 90, 100 };
        double s_more[] = { 1100, 900 }, l_more[] = { 180, 95 };
        double s_slow[] = { 900, 450 }, l_slow[] = { 200, 100 };
        _cleanup_(ceph_bench_done) CephBench before = bench("before", ids, s, l, 2),
                                             noisy = bench("after", ids, s_noisy, l_noisy, 2),
                                             more = bench("after", ids, s_more, l_more, 2),
                                             slow = bench("after", ids, s_slow, l_slow, 2),
                                             slow2 = bench("after", ids, s_slow, l_slow, 2),
                                             other = bench("after", ids_more, s_more, l_more, 2);
        CephBenchVerdict v = {};
        Error err = {};
        unsigned rounds = noisy.rounds;

        CHECK_INTEQ(ceph_bench_compare(&before, &noisy, 50, &v, &err), 0);
        CHECK(v.regressed);
        ceph_bench_verdict_done(&v);
        ceph_bench_merge_best(&noisy, &more);
        CHECK(noisy.rounds == rounds + more.rounds);
        CHECK(noisy.osds[0].small_iops == 2000 && noisy.osds[0].large_mbps == 180);
        CHECK(noisy.osds[1].small_iops == 900 && noisy.osds[1].large_mbps == 100);
        CHECK_INTEQ(ceph_bench_compare(&before, &noisy, 50, &v, &err), 0);
        CHECK(!v.regressed);
        ceph_bench_verdict_done(&v);

        ceph_bench_merge_best(&slow, &slow2);
        CHECK_INTEQ(ceph_bench_compare(&before, &slow, 50, &v, &err), 0);
        CHECK(v.regressed);
        ceph_bench_verdict_done(&v);

        ceph_bench_merge_best(&slow, &other);
        CHECK(slow.n_osds == 2 && slow.osds[0].id == 0 && slow.osds[1].id == 1);
        CHECK(slow.osds[0].small_iops == 900 && slow.osds[1].small_iops == 1100 && slow.osds[1].large_mbps == 180);
}

int main(void) {
        TEST_RUN(test_argv);
        TEST_RUN(test_parse);
        TEST_RUN(test_median);
        TEST_RUN(test_json);
        TEST_RUN(test_compare);
        TEST_RUN(test_merge_best);
        return test_result();
}
