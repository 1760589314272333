/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The copies-left gate (ceph_copies_check, issue 26): before an in-place destroy and before
 * each wipe, no PG may be left without a readable copy, counting every OSD down now. On
 * Pacific's captured `osd dump` and `pg dump pgs_brief` of a 4-OSD lab (pool `data` size 2,
 * min_size 1), with OSDs marked down and pools turned erasure in the JSON before parsing. */

#include <errno.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/strv.h"
#include "ceph/ceph-cluster.h"
#include "capture.h"
#include "test.h"

static void set_up(json_object *dump, int osd, bool up) {
        json_object *osds = json_object_object_get(dump, "osds");
        for (size_t i = 0; i < json_object_array_length(osds); i++) {
                json_object *o = json_object_array_get_idx(osds, i);
                if (json_object_get_int(json_object_object_get(o, "osd")) == osd)
                        json_object_object_add(o, "up", json_object_new_int(up));
        }
}

typedef struct Cluster {
        CephPgDump *pgs;
        CephOsdDump *dump;
        CephPoolList *pools;
        CephEcProfileList *ec;
} Cluster;

static void cluster_done(Cluster *c) {
        ceph_pg_dump_free(c->pgs);
        ceph_osd_dump_free(c->dump);
        ceph_pool_list_free(c->pools);
        ceph_ec_profile_list_free(c->ec);
}

static void cluster_parse(json_object *dump, json_object *pgs, Cluster *ret) {
        Error err = {};
        const char *d = json_object_to_json_string(dump), *p = json_object_to_json_string(pgs);
        *ret = (Cluster) {};
        CHECK_INTEQ(ceph_pg_dump_parse(p, &ret->pgs, &err), 0);
        CHECK_INTEQ(ceph_osd_dump_parse(d, &ret->dump, &err), 0);
        CHECK_INTEQ(ceph_pool_list_parse(d, &ret->pools, &err), 0);
        CHECK_INTEQ(ceph_ec_profiles_parse_osd_dump(d, &ret->ec, &err), 0);
}

static bool lost(const CephCopies *c, const char *pgid) {
        for (size_t i = 0; i < c->n_lost; i++)
                if (streq(c->lost[i].pgid, pgid))
                        return true;
        return false;
}

/* the PGs of the capture whose acting set is exactly {a, b} in some order */
static size_t pgs_on(json_object *pgs, int a, int b) {
        json_object *l = json_object_object_get(pgs, "pg_stats");
        size_t n = 0;
        for (size_t i = 0; i < json_object_array_length(l); i++) {
                json_object *acting = json_object_object_get(json_object_array_get_idx(l, i), "acting");
                int x = json_object_get_int(json_object_array_get_idx(acting, 0)),
                    y = json_object_get_int(json_object_array_get_idx(acting, 1));
                if (json_object_array_length(acting) == 2 && ((x == a && y == b) || (x == b && y == a)))
                        n++;
        }
        return n;
}

static void test_clean(void) {
        _cleanup_json_ json_object *dump = capture_pacific("osd-dump.out"), *pgs = capture_pacific("pg-dump-pgs-brief-clean.out");
        Cluster c;
        cluster_parse(dump, pgs, &c);
        Error err = {};
        _cleanup_(ceph_copies_freep) CephCopies *r = NULL;
        /* osd.0 alone: every PG of pool data (size 2) has its other copy up */
        CHECK_INTEQ(ceph_copies_check(c.pgs, c.dump, c.pools, c.ec, (const int[]) { 0 }, 1, &r, &err), 0);
        CHECK_INTEQ(r->n_lost, 0);
        CHECK_INTEQ(r->n_pgs, 33);
        CHECK_INTEQ(r->n_down, 0);
        /* min_size 1: one copy left keeps them active */
        CHECK_INTEQ(r->n_below_min_size, 0);
        cluster_done(&c);
}

/* The scenario of issue 26 (a): the run stopped osd.0 and osd.1 (its host), was killed, and
 * then osd.2 went down (a second failure). ok-to-stop of 0 and 1 says yes (their PGs'
 * acting sets no longer list them); the copies left say no for every PG on {0,2} and {1,2}. */
static void test_second_failure(void) {
        _cleanup_json_ json_object *dump = capture_pacific("osd-dump.out"), *pgs = capture_pacific("pg-dump-pgs-brief-clean.out");
        set_up(dump, 0, false);
        set_up(dump, 1, false);
        set_up(dump, 2, false);
        Cluster c;
        cluster_parse(dump, pgs, &c);
        Error err = {};
        _cleanup_(ceph_copies_freep) CephCopies *r = NULL;
        CHECK_INTEQ(ceph_copies_check(c.pgs, c.dump, c.pools, c.ec, (const int[]) { 0, 1 }, 2, &r, &err), 0);
        size_t want = pgs_on(pgs, 0, 2) + pgs_on(pgs, 1, 2);
        CHECK(want > 0);
        CHECK_INTEQ(r->n_lost, want);
        CHECK(lost(r, "1.1f"));  /* acting [0,2] */
        CHECK(lost(r, "1.b"));   /* acting [1,2] */
        CHECK(!lost(r, "1.1e")); /* acting [1,3]: osd.3 is up */
        CHECK_INTEQ(r->n_down, 1);
        CHECK_INTEQ(r->down[0], 2);
        _cleanup_(freep) char *d = ceph_copies_describe(r, 2);
        CHECK(d && strstr(d, "would be left without a readable copy"));
        CHECK(d && strstr(d, "(0 of 1)"));
        CHECK(d && strstr(d, "more"));
        CHECK(d && strstr(d, "OSDs down now besides these: osd.2"));

        cluster_done(&c);

        /* a target still up counts as gone too: osd.3 destroyed while osd.1 alone is down */
        set_up(dump, 0, true);
        set_up(dump, 2, true);
        cluster_parse(dump, pgs, &c);
        ceph_copies_free(TAKE_PTR(r));
        CHECK_INTEQ(ceph_copies_check(c.pgs, c.dump, c.pools, c.ec, (const int[]) { 3 }, 1, &r, &err), 0);
        CHECK(pgs_on(pgs, 1, 3) > 0);
        CHECK_INTEQ(r->n_lost, pgs_on(pgs, 1, 3));
        cluster_done(&c);
}

/* An erasure pool needs k shards, not one: pool `data` made 2+2 (the capture's "default"
 * profile): a PG with one shard up is lost, CRUSH_ITEM_NONE holes count for nothing. */
static void test_erasure(void) {
        _cleanup_json_ json_object *dump = capture_pacific("osd-dump.out"), *pgs = capture_pacific("pg-dump-pgs-brief-clean.out");
        json_object *pool = json_object_array_get_idx(json_object_object_get(dump, "pools"), 0);
        json_object_object_add(pool, "type", json_object_new_int(3));
        json_object_object_add(pool, "erasure_code_profile", json_object_new_string("default"));
        json_object *pg = json_object_array_get_idx(json_object_object_get(pgs, "pg_stats"), 0); /* 1.1f */
        json_object *acting = json_object_new_array();
        json_object_array_add(acting, json_object_new_int(0));
        json_object_array_add(acting, json_object_new_int(2147483647));
        json_object_array_add(acting, json_object_new_int(2));
        json_object_object_add(pg, "acting", acting);
        Cluster c;
        cluster_parse(dump, pgs, &c);
        Error err = {};
        _cleanup_(ceph_copies_freep) CephCopies *r = NULL;
        CHECK_INTEQ(ceph_copies_check(c.pgs, c.dump, c.pools, c.ec, (const int[]) { 0 }, 1, &r, &err), 0);
        /* every PG of pool 1 has 2 OSDs: one left of k=2 */
        CHECK(lost(r, "1.1f"));
        CHECK_INTEQ(r->lost[0].needed, 2);
        CHECK_INTEQ(r->lost[0].readable, 1);
        CHECK(!lost(r, "2.0")); /* device_health_metrics stays replicated */
        cluster_done(&c);

        /* a profile the map does not list: no guess */
        json_object_object_add(pool, "erasure_code_profile", json_object_new_string("gone"));
        cluster_parse(dump, pgs, &c);
        ceph_copies_free(TAKE_PTR(r));
        CHECK_INTEQ(ceph_copies_check(c.pgs, c.dump, c.pools, c.ec, (const int[]) { 0 }, 1, &r, &err), -EBADMSG);
        CHECK(strstr(err.message, "'gone'") != NULL);
        cluster_done(&c);
}

/* A PG of a pool the OSD map read does not have (made since): asked again, never skipped */
static void test_unknown_pool(void) {
        _cleanup_json_ json_object *dump = capture_pacific("osd-dump.out"), *pgs = capture_pacific("pg-dump-pgs-brief-clean.out");
        json_object *pg = json_object_array_get_idx(json_object_object_get(pgs, "pg_stats"), 0);
        json_object_object_add(pg, "pgid", json_object_new_string("9.0"));
        Cluster c;
        cluster_parse(dump, pgs, &c);
        Error err = {};
        _cleanup_(ceph_copies_freep) CephCopies *r = NULL;
        CHECK_INTEQ(ceph_copies_check(c.pgs, c.dump, c.pools, c.ec, (const int[]) { 0 }, 1, &r, &err), -EAGAIN);
        CHECK(strstr(err.message, "9.0") != NULL);
        cluster_done(&c);
}

int main(void) {
        TEST_RUN(test_clean);
        TEST_RUN(test_second_failure);
        TEST_RUN(test_erasure);
        TEST_RUN(test_unknown_pool);
        return test_result();
}
