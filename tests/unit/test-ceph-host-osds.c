/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A host's OSDs as its records claim them (issue 26 item 3): "drained" is recorded only
 * once the OSDs are out, down and in no PG's up or acting set (ceph_osds_emptied), and a
 * destroy run again purges a recorded id only while it is still the host's
 * (ceph_osd_of_host). On Pacific's captures of a 4-OSD lab (node1: osd.0 osd.1, node2:
 * osd.2 osd.3, all up and in, 33 PGs active+clean), changed in the JSON before parsing. */

#include <errno.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/strv.h"
#include "ceph/ceph-cluster.h"
#include "ceph/ceph.h"
#include "capture.h"
#include "test.h"

/* osd dump: osd `id` up/in as given; gone from the map when `gone` */
static void set_osd(json_object *dump, int id, bool up, bool in, bool gone) {
        json_object *osds = json_object_object_get(dump, "osds");
        for (size_t i = 0; i < json_object_array_length(osds); i++) {
                json_object *o = json_object_array_get_idx(osds, i);
                if (json_object_get_int(json_object_object_get(o, "osd")) != id)
                        continue;
                if (gone) {
                        json_object_array_del_idx(osds, i, 1);
                        return;
                }
                json_object_object_add(o, "up", json_object_new_int(up));
                json_object_object_add(o, "in", json_object_new_int(in));
                json_object_object_add(o, "weight", json_object_new_double(in ? 1 : 0));
        }
}

/* pg dump: every `from` in up and acting becomes `to` (the PGs moved off `from`); only
 * PGs whose id is `pgid` when it is given */
static void move_pgs(json_object *pgs, int from, int to, const char *pgid) {
        json_object *l = json_object_object_get(pgs, "pg_stats");
        for (size_t i = 0; i < json_object_array_length(l); i++) {
                json_object *pg = json_object_array_get_idx(l, i);
                if (pgid && !streq(json_object_get_string(json_object_object_get(pg, "pgid")), pgid))
                        continue;
                const char *sets[] = { "up", "acting" };
                for (size_t s = 0; s < 2; s++) {
                        json_object *a = json_object_object_get(pg, sets[s]);
                        for (size_t k = 0; k < json_object_array_length(a); k++)
                                if (json_object_get_int(json_object_array_get_idx(a, k)) == from)
                                        json_object_array_put_idx(a, k, json_object_new_int(to));
                }
        }
}

static int emptied(json_object *dump, json_object *pgs, const int *ids, size_t n, Error *err) {
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        _cleanup_(ceph_pg_dump_freep) CephPgDump *p = NULL;
        Error e = {};
        CHECK_INTEQ(ceph_osd_dump_parse(json_object_to_json_string(dump), &d, &e), 0);
        CHECK_INTEQ(ceph_pg_dump_parse(json_object_to_json_string(pgs), &p, &e), 0);
        return d && p ? ceph_osds_emptied(d, p, ids, n, err) : -EINVAL;
}

/* The drain of issue 26: killed late, cancelled, run again and skipping its steps, it
 * would have recorded node2 drained with its OSDs in, up and holding data. */
static void test_emptied(void) {
        _cleanup_json_ json_object *dump = capture_pacific("osd-dump.out"), *pgs = capture_pacific("pg-dump-pgs-brief-clean.out");
        const int node2[] = { 2, 3 };
        Error err = {};

        /* in, up, holding PGs: refused, each OSD named with what it still is */
        CHECK_INTEQ(emptied(dump, pgs, node2, 2, &err), -EBUSY);
        CHECK(strstr(err.message, "osd.2 is in, up, in the up or acting set of ") != NULL);
        CHECK(strstr(err.message, "osd.3 is in, up, in the up or acting set of ") != NULL);

        /* out and down, but PGs still map to them (data not moved yet): refused */
        set_osd(dump, 2, false, false, false);
        set_osd(dump, 3, false, false, false);
        error_reset(&err);
        CHECK_INTEQ(emptied(dump, pgs, node2, 2, &err), -EBUSY);
        CHECK(strstr(err.message, "osd.2 is in the up or acting set of ") != NULL);
        CHECK(strstr(err.message, "osd.2 is in,") == NULL);

        /* every PG moved off osd.2 and osd.3 but one, whose acting set still has osd.3 */
        move_pgs(pgs, 2, 0, NULL);
        move_pgs(pgs, 3, 1, NULL);
        json_object *pg0 = json_object_array_get_idx(json_object_object_get(pgs, "pg_stats"), 0);
        const char *pgid = json_object_get_string(json_object_object_get(pg0, "pgid"));
        json_object_array_put_idx(json_object_object_get(pg0, "acting"), 1, json_object_new_int(3));
        error_reset(&err);
        CHECK_INTEQ(emptied(dump, pgs, node2, 2, &err), -EBUSY);
        CHECK(strstr(err.message, "osd.2") == NULL);
        _cleanup_(freep) char *want = strprintf("osd.3 is in the up or acting set of 1 PG (%s)", pgid);
        CHECK(want && strstr(err.message, want) != NULL);

        /* emptied: recorded */
        move_pgs(pgs, 3, 1, pgid);
        error_reset(&err);
        CHECK_INTEQ(emptied(dump, pgs, node2, 2, &err), 0);

        /* up again (started by hand), though holding nothing: refused */
        set_osd(dump, 3, true, false, false);
        error_reset(&err);
        CHECK_INTEQ(emptied(dump, pgs, node2, 2, &err), -EBUSY);
        CHECK(strstr(err.message, "osd.3 is up") != NULL);

        /* purged: holds nothing */
        set_osd(dump, 3, false, false, true);
        error_reset(&err);
        CHECK_INTEQ(emptied(dump, pgs, node2, 2, &err), 0);
}

typedef struct Owners {
        CephOsdTree *tree;
        CephOsdMetadataList *md;
} Owners;

static void owners_parse(json_object *tree, json_object *md, Owners *ret) {
        Error e = {};
        *ret = (Owners) {};
        CHECK_INTEQ(ceph_osd_tree_parse(json_object_to_json_string(tree), &ret->tree, &e), 0);
        CHECK_INTEQ(ceph_osd_metadata_parse(json_object_to_json_string(md), &ret->md, &e), 0);
}

static void owners_done(Owners *o) {
        ceph_osd_tree_free(o->tree);
        ceph_osd_metadata_list_free(o->md);
}

/* moves osd `id` in the tree from its host bucket to `to` (NULL: out of CRUSH, a stray) */
static void tree_move(json_object *tree, int id, const char *to) {
        json_object *nodes = json_object_object_get(tree, "nodes");
        json_object *osd = NULL;
        for (size_t i = 0; i < json_object_array_length(nodes); i++) {
                json_object *n = json_object_array_get_idx(nodes, i);
                json_object *ch = json_object_object_get(n, "children");
                if (json_object_get_int(json_object_object_get(n, "id")) == id && !osd) {
                        osd = json_object_get(n);
                        json_object_array_del_idx(nodes, i, 1);
                        i--;
                        continue;
                }
                if (!streq(json_object_get_string(json_object_object_get(n, "type")), "host"))
                        continue;
                for (size_t k = 0; k < json_object_array_length(ch); k++)
                        if (json_object_get_int(json_object_array_get_idx(ch, k)) == id) {
                                json_object_array_del_idx(ch, k, 1);
                                break;
                        }
                if (to && streq(json_object_get_string(json_object_object_get(n, "name")), to))
                        json_object_array_add(ch, json_object_new_int(id));
        }
        CHECK(osd != NULL);
        json_object_array_add(to ? nodes : json_object_object_get(tree, "stray"), osd);
}

static void set_hostname(json_object *md, int id, const char *host) {
        for (size_t i = 0; i < json_object_array_length(md); i++) {
                json_object *m = json_object_array_get_idx(md, i);
                if (json_object_get_int(json_object_object_get(m, "id")) == id)
                        json_object_object_add(m, "hostname", json_object_new_string(host));
        }
}

/* A destroy of node1 killed after it purged osd.1; apply then made a new OSD on node2 that
 * got id 1. The record of node1 still names 1: it is node2's now, never node1's to purge. */
static void test_owner(void) {
        _cleanup_json_ json_object *tree = capture_pacific("osd-tree.out"), *md = capture_pacific("osd-metadata.out");
        Owners o;
        owners_parse(tree, md, &o);
        CHECK(ceph_osd_of_host(o.tree, o.md, 1, "node1"));
        CHECK(!ceph_osd_of_host(o.tree, o.md, 1, "node2"));
        CHECK(ceph_osd_of_host(o.tree, o.md, 2, "node2"));
        CHECK(!ceph_osd_of_host(o.tree, o.md, 9, "node1")); /* no such OSD: nobody's */
        CHECK(ceph_osd_host_of(o.tree, o.md, 9) == NULL);
        owners_done(&o);

        /* the id reused on node2 (its CRUSH bucket, its daemon's hostname) */
        tree_move(tree, 1, "node2");
        set_hostname(md, 1, "node2");
        owners_parse(tree, md, &o);
        CHECK(!ceph_osd_of_host(o.tree, o.md, 1, "node1"));
        CHECK(ceph_osd_of_host(o.tree, o.md, 1, "node2"));
        CHECK_STREQ(ceph_osd_host_of(o.tree, o.md, 1), "node2");
        owners_done(&o);

        /* CRUSH decides over a stale hostname */
        set_hostname(md, 1, "node1");
        owners_parse(tree, md, &o);
        CHECK(!ceph_osd_of_host(o.tree, o.md, 1, "node1"));
        owners_done(&o);

        /* out of CRUSH: the daemon's hostname decides; without one, nobody's */
        tree_move(tree, 0, NULL);
        owners_parse(tree, md, &o);
        CHECK(ceph_osd_of_host(o.tree, o.md, 0, "node1"));
        CHECK(!ceph_osd_of_host(o.tree, NULL, 0, "node1"));
        owners_done(&o);
        set_hostname(md, 0, "node3");
        owners_parse(tree, md, &o);
        CHECK(!ceph_osd_of_host(o.tree, o.md, 0, "node1"));
        CHECK_STREQ(ceph_osd_host_of(o.tree, o.md, 0), "node3");
        owners_done(&o);
}

int main(void) {
        TEST_RUN(test_emptied);
        TEST_RUN(test_owner);
        return test_result();
}
