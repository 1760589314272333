/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* plan_destroy(): what destroying OSDs takes off a host, on the shipped converged
 * inventories (tests/data/inventory-*-converged.json). */

#include <errno.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/strv.h"
#include "inventory/inventory.h"
#include "plan/plan-destroy.h"
#include "test.h"

/* the cluster of the shipped inventories (their BlueStore labels' ceph_fsid) */
#define FSID "5d1e4f0a-8b2c-4e6d-9f3a-7c1b2d3e4f50"

static InventorySet *load(const char *name) {
        const char *dir = getenv("TEST_DATA");
        _cleanup_(freep) char *p = strprintf("%s/inventory-%s-converged.json", dir ? dir : "tests/data", name);
        InventorySet *s = NULL;
        Error err = {};
        int r = inventory_set_load_file(p, &s, &err);
        if (r < 0)
                fprintf(stderr, "%s\n", err.message);
        CHECK(r == 0);
        if (!s)
                exit(1);
        return s;
}

static size_t count(const DestroyPlan *p, DestroyActionKind k) {
        size_t n = 0;
        for (size_t i = 0; i < p->n_actions; i++)
                n += p->actions[i].kind == k;
        return n;
}

static const DestroyAction *find(const DestroyPlan *p, DestroyActionKind k, const char *dev, unsigned part) {
        for (size_t i = 0; i < p->n_actions; i++)
                if (p->actions[i].kind == k && streq(p->actions[i].device, dev) && p->actions[i].partnum == part)
                        return &p->actions[i];
        return NULL;
}

/* scenario 1: 2 SSDs with BIOS boot, os and swap partitions (kept), per HDD a DB and a
 * bcache cache partition on an SSD; OSDs on /dev/bcacheN */
static void test_hyperconverged_whole_host(void) {
        _cleanup_(inventory_set_freep) InventorySet *s = load("scenario-1-hyperconverged");
        const Inventory *inv = s->hosts[0];
        int osds[] = { 0, 1, 2, 3 };
        _cleanup_(destroy_plan_freep) DestroyPlan *p = NULL;
        Error e = {};
        CHECK_INTEQ(plan_destroy(inv, FSID, osds, 4, true, &p, &e), 0);
        /* 4 bcache teardowns first, then the 4 HDDs wiped, then 4 partitions per SSD deleted */
        CHECK_INTEQ(count(p, DESTROY_BCACHE_TEARDOWN), 4);
        CHECK_INTEQ(count(p, DESTROY_WIPE_DEVICE), 4);
        CHECK_INTEQ(count(p, DESTROY_DELETE_PARTITION), 8);
        CHECK(p->n_actions == 16 && p->actions[0].kind == DESTROY_BCACHE_TEARDOWN &&
              p->actions[4].kind == DESTROY_WIPE_DEVICE && p->actions[8].kind == DESTROY_DELETE_PARTITION);
        CHECK(find(p, DESTROY_WIPE_DEVICE, "/dev/sdc", 0) && find(p, DESTROY_BCACHE_TEARDOWN, "/dev/sdf", 0));
        const DestroyAction *db = find(p, DESTROY_DELETE_PARTITION, "/dev/sda", 4);
        CHECK(db && startswith(db->partname, "cp:db:@") && endswith(db->partname, ":node1") && db->osd == 0);
        CHECK(find(p, DESTROY_DELETE_PARTITION, "/dev/sdb", 7));
        /* the SSDs are never wiped: they hold the OS */
        CHECK(!find(p, DESTROY_WIPE_DEVICE, "/dev/sda", 0) && !find(p, DESTROY_WIPE_DEVICE, "/dev/sdb", 0));
        for (unsigned k = 1; k <= 3; k++)
                CHECK(!find(p, DESTROY_DELETE_PARTITION, "/dev/sda", k) && !find(p, DESTROY_DELETE_PARTITION, "/dev/sdb", k));
        CHECK_INTEQ(strv_length(p->kept), 6); /* BIOS boot, os, swap on each SSD */
        CHECK(strstr(p->kept[0], "'BIOS boot'") && strstr(p->kept[1], "'os'"));
        CHECK_INTEQ(p->n_missing, 0);
        /* bcache devices are not in the allow-list: never named */
        for (size_t i = 0; i < p->n_actions; i++)
                CHECK(!startswith(p->actions[i].device, "/dev/bcache"));
        /* freed: 4 HDDs + 4 × (30G DB + 60G cache) */
        CHECK(p->bytes_freed == 4 * 2000398934016ULL + 4 * (32212254720ULL + 64424509440ULL));
        _cleanup_json_ json_object *j = NULL;
        CHECK_INTEQ(destroy_plan_to_json(p, &j), 0);
        CHECK(j && json_object_array_length(json_object_object_get(j, "actions")) == 16);
}

/* one OSD only: its bcache, its HDD, its DB and its cache partition, nothing of the others */
static void test_hyperconverged_one_osd(void) {
        _cleanup_(inventory_set_freep) InventorySet *s = load("scenario-1-hyperconverged");
        int osds[] = { 2, 99 };
        _cleanup_(destroy_plan_freep) DestroyPlan *p = NULL;
        Error e = {};
        CHECK_INTEQ(plan_destroy(s->hosts[0], FSID, osds, 2, false, &p, &e), 0);
        CHECK_INTEQ(count(p, DESTROY_BCACHE_TEARDOWN), 1);
        CHECK_INTEQ(count(p, DESTROY_WIPE_DEVICE), 1);
        CHECK_INTEQ(count(p, DESTROY_DELETE_PARTITION), 2);
        CHECK(find(p, DESTROY_WIPE_DEVICE, "/dev/sde", 0));
        CHECK(find(p, DESTROY_DELETE_PARTITION, "/dev/sda", 6) && find(p, DESTROY_DELETE_PARTITION, "/dev/sda", 7));
        CHECK(!find(p, DESTROY_DELETE_PARTITION, "/dev/sda", 4) && !find(p, DESTROY_DELETE_PARTITION, "/dev/sda", 5));
        CHECK(p->n_missing == 1 && p->missing[0] == 99);
        CHECK_INTEQ(strv_length(p->kept), 5); /* sda's 3 OS partitions and its other DB and cache */
}

/* all-flash: data devices with no fast tier: every OSD's device wiped, nothing kept */
static void test_all_flash(void) {
        _cleanup_(inventory_set_freep) InventorySet *s = load("all-flash");
        const Inventory *inv = s->hosts[0];
        int ids[64];
        size_t n = 0;
        for (size_t i = 0; i < inv->n_devices && n < 64; i++)
                if (inv->devices[i].content.osd.id >= 0)
                        ids[n++] = inv->devices[i].content.osd.id;
        CHECK(n > 0);
        _cleanup_(destroy_plan_freep) DestroyPlan *p = NULL;
        Error e = {};
        CHECK_INTEQ(plan_destroy(inv, NULL, ids, n, true, &p, &e), 0);
        CHECK_INTEQ(count(p, DESTROY_WIPE_DEVICE), n);
        CHECK_INTEQ(count(p, DESTROY_BCACHE_TEARDOWN) + count(p, DESTROY_DELETE_PARTITION), 0);
        CHECK_INTEQ(strv_length(p->kept), 0);
}

/* the same ids, but the labels are another cluster's: nothing of theirs is wiped, each is
 * named as kept; the host's cephprov partitions of those OSDs are not theirs either */
static void test_other_cluster(void) {
        _cleanup_(inventory_set_freep) InventorySet *s = load("scenario-1-hyperconverged");
        int osds[] = { 0, 1, 2, 3 };
        _cleanup_(destroy_plan_freep) DestroyPlan *p = NULL;
        Error e = {};
        CHECK_INTEQ(plan_destroy(s->hosts[0], "00000000-1111-2222-3333-444444444444", osds, 4, false, &p, &e), 0);
        CHECK_INTEQ(count(p, DESTROY_WIPE_DEVICE), 0);
        CHECK_INTEQ(count(p, DESTROY_BCACHE_TEARDOWN), 0);
        CHECK_INTEQ(count(p, DESTROY_DELETE_PARTITION), 0);
        CHECK_INTEQ(p->n_missing, 4);
        /* whole host: the labelled DB partitions stay too (the unlabelled cache ones are
         * cephprov's of this host by their names) */
        _cleanup_(destroy_plan_freep) DestroyPlan *w = NULL;
        CHECK_INTEQ(plan_destroy(s->hosts[0], "00000000-1111-2222-3333-444444444444", osds, 4, true, &w, &e), 0);
        CHECK_INTEQ(count(w, DESTROY_WIPE_DEVICE), 0);
        for (size_t i = 0; i < w->n_actions; i++)
                CHECK(!w->actions[i].partname || !startswith(w->actions[i].partname, "cp:db:"));
        size_t foreign = 0;
        for (char **k = p->kept; k && *k; k++)
                foreign += strstr(*k, "of another cluster (" FSID ")") != NULL;
        CHECK_INTEQ(foreign, 4);
        /* upper case is the same uuid */
        _cleanup_(destroy_plan_freep) DestroyPlan *q = NULL;
        CHECK_INTEQ(plan_destroy(s->hosts[0], "5D1E4F0A-8B2C-4E6D-9F3A-7C1B2D3E4F50", osds, 4, true, &q, &e), 0);
        CHECK_INTEQ(count(q, DESTROY_WIPE_DEVICE), 4);
}

int main(void) {
        TEST_RUN(test_hyperconverged_whole_host);
        TEST_RUN(test_hyperconverged_one_osd);
        TEST_RUN(test_all_flash);
        TEST_RUN(test_other_cluster);
        return test_result();
}
