/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* osd-create and a BlueStore label on the DB/WAL partition given for a data device that
 * carries none (issue 25), on real loop devices: the label is erased only when its OSD is
 * the request's redo or the request's "osd_map" does not have it or has it destroyed;
 * refused — every byte of both devices unchanged, ceph-volume never run — for an OSD the
 * map still has (a dead HDD's osd.1 replaced by a blank disk: its DB is on the SSD), for any
 * OSD when no map came, and for another cluster's label; DB and WAL are judged together.
 *
 * ceph-volume is never run for real: PATH starts with a directory whose `ceph-volume`
 * records its arguments and fails, so an erasable label is erased and the op then fails at
 * prepare. Run as root; skipped (77) otherwise. */

#include <fcntl.h>

#include "agent/agent.h"
#include "agent-call.h"
#include "basic/json-util.h"
#include "basic/sha256.h"
#include "block-util.h"

#define MiB (1024ULL * 1024ULL)
#define FSID "5881fcfd-4408-49eb-8f72-3158a118d6ab"
#define OTHER_FSID "8a9c0b1d-2e3f-4051-8263-748596a7b8c9"
#define OSD1 "471fabbf-fde8-4700-a3aa-c45140101d74"
#define OSD2 "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"
#define GONE "9e8d7c6b-5a49-4837-a625-140312f0e1d2"

static char fake_log[512];
/* an erased label lets osd-create go on to prepare, which first makes /var/lib/ceph/osd
 * (the ceph-osd package's) when it is missing: not on a machine without it */
static bool prepare_ok;

/* A BlueStore label block as BlueStore writes a DB/WAL device's (description "bluefs db" or
 * "bluefs wal"); `cluster_fsid` adds a ceph_fsid to the meta (NULL: an empty meta). */
static void label_block(uint8_t buf[4096], const char *osd_uuid, const char *description, const char *cluster_fsid) {
        const char *const meta[] = { "ceph_fsid", cluster_fsid, NULL };
        bluestore_label(buf, osd_uuid, 16 * MiB, description, cluster_fsid ? meta : NULL);
}

static void write_block(const char *dev, const uint8_t buf[4096]) {
        int fd = open(dev, O_WRONLY);
        CHECK(fd >= 0 && pwrite(fd, buf, 4096, 0) == 4096);
        CHECK(fd >= 0 && fsync(fd) == 0);
        if (fd >= 0)
                close(fd);
}

static bool block_is(const char *dev, const uint8_t want[4096]) {
        uint8_t have[4096];
        int fd = open(dev, O_RDONLY);
        bool ok = fd >= 0 && pread(fd, have, sizeof(have), 0) == (ssize_t) sizeof(have) && memcmp(have, want, 4096) == 0;
        if (fd >= 0)
                close(fd);
        return ok;
}

static bool block_zero(const char *dev) {
        static const uint8_t zero[4096];
        return block_is(dev, zero);
}

/* how many times the fake ceph-volume ran since the last call */
static int fake_runs(void) {
        char *n = sh_out("cat '%s' 2>/dev/null | wc -l", fake_log);
        int v = atoi(n);
        free(n);
        sh("rm -f '%s'", fake_log);
        return v;
}

typedef struct Rig {
        const char *hdd, *ssd;  /* the blank data device; the fast device with db-a, wal-a */
        char db[80], wal[80];   /* their partitions' nodes */
        AgentState *s;
        char *hdd_before, *ssd_before; /* sha256 of each device before the request */
} Rig;

static void rig_up(Rig *r) {
        r->hdd = bu_loop(64, true);
        r->ssd = bu_loop(64, false);
        CHECK(sh("sgdisk -n 1:2048:+16M -c 1:db-a -n 2:0:+16M -c 2:wal-a %s >/dev/null && partx -a %s 2>/dev/null; "
                 "partx -u %s",
                 r->ssd, r->ssd, r->ssd) == 0);
        snprintf(r->db, sizeof(r->db), "%sp1", r->ssd);
        snprintf(r->wal, sizeof(r->wal), "%sp2", r->ssd);
        CHECK(access(r->db, F_OK) == 0 && access(r->wal, F_OK) == 0);
        r->s = agent_for2(r->hdd, r->ssd, false);
        r->hdd_before = r->ssd_before = NULL;
}

/* Both devices as they are now, for check_refused(). */
static void rig_hash(Rig *r) {
        r->hdd_before = dev_hash(r->hdd, 0, 0);
        r->ssd_before = dev_hash(r->ssd, 0, 0);
}

static void rig_down(Rig *r) {
        agent_state_free(r->s);
        free(r->hdd_before);
        free(r->ssd_before);
}

/* osd-create of osd.4 on the blank HDD with its DB (and WAL when `wal`) on the SSD; `extra`
 * is appended to the request's arguments (",\"osd_map\":{...}"). */
static json_object *create(Rig *r, bool wal, const char *extra) {
        char walargs[128] = "";
        if (wal)
                snprintf(walargs, sizeof(walargs), ",\"wal_device\":\"%s\",\"wal_partname\":\"wal-a\"", r->ssd);
        return call(r->s, "osd-create",
                    "{\"device\":\"%s\",\"osd_id\":4,\"db_device\":\"%s\",\"db_partname\":\"db-a\"%s,\"lock_timeout\":5%s}",
                    r->hdd, r->ssd, walargs, extra);
}

/* the cluster of osd-dump-noout-osd-down.json: osd.1 down, not destroyed; osd.2 destroyed
 * with its uuid kept (Ceph zeroes it; the rule holds either way) */
#define MAP ",\"osd_map\":{\"fsid\":\"" FSID "\",\"epoch\":40,\"osds\":[" \
            "{\"osd\":0,\"uuid\":\"7c1a0f8e-5d3b-4c2a-9e8f-1a2b3c4d5e6f\",\"destroyed\":false}," \
            "{\"osd\":1,\"uuid\":\"" OSD1 "\",\"destroyed\":false}," \
            "{\"osd\":2,\"uuid\":\"" OSD2 "\",\"destroyed\":true}]}"

/* refused: EEXIST, the message, no byte of either device changed, ceph-volume not run */
static void check_refused(Rig *r, json_object *resp, const char *msg) {
        CHECK(!resp_ok(resp));
        CHECK_STREQ(jstr(resp, "error.errno"), "EEXIST");
        if (!strstr(jstr(resp, "error.message"), msg))
                fprintf(stderr, "  expected in the message: %s\n", msg);
        CHECK(strstr(jstr(resp, "error.message"), msg) != NULL);
        char *h = dev_hash(r->hdd, 0, 0), *s = dev_hash(r->ssd, 0, 0);
        CHECK_STREQ(h, r->hdd_before);
        CHECK_STREQ(s, r->ssd_before);
        free(h);
        free(s);
        CHECK_INTEQ(fake_runs(), 0);
}

/* erased: the DB label block zero, prepare reached (the fake failed it), nothing refused */
static void check_erased_then_prepare(Rig *r, json_object *resp) {
        CHECK(!resp_ok(resp));
        CHECK(strstr(jstr(resp, "error.message"), "fake ceph-volume") != NULL);
        CHECK(block_zero(r->db));
        CHECK_INTEQ(fake_runs(), 1);
}

/* The incident: osd.1 (in the map, not destroyed) lost its HDD; its DB label stays. */
static void test_live_osd_refused(void) {
        Rig r;
        rig_up(&r);
        uint8_t label[4096];
        label_block(label, OSD1, "bluefs db", NULL);
        write_block(r.db, label);
        rig_hash(&r);
        json_object *resp = create(&r, false, MAP);
        char want[512];
        snprintf(want, sizeof(want),
                 "'%s' (DB partition for the OSD on '%s' of 'node1') carries the BlueStore label of osd.1 (uuid " OSD1
                 "), which the cluster still has and which is not destroyed (osd map epoch 40): refusing to erase it; if "
                 "'%s' replaced osd.1's disk, run `cephprov replace LAYOUT node1 %s`",
                 r.db, r.hdd, r.hdd, r.hdd);
        check_refused(&r, resp, want);
        CHECK(block_is(r.db, label));
        json_object_put(resp);
        rig_down(&r);
}

/* No "osd_map" (an older controller, no cluster): no label but the redo's is erased. */
static void test_no_map_refused(void) {
        Rig r;
        rig_up(&r);
        uint8_t label[4096];
        label_block(label, GONE, "bluefs db", FSID);
        write_block(r.db, label);
        rig_hash(&r);
        json_object *resp = create(&r, false, "");
        check_refused(&r, resp, "carries the BlueStore label of an OSD (uuid " GONE "), and the request carries no OSD map");
        CHECK(block_is(r.db, label));
        json_object_put(resp);

        /* the redo's own label goes without a map */
        if (prepare_ok) {
                resp = create(&r, false, ",\"redo_osd_fsid\":\"" GONE "\"");
                check_erased_then_prepare(&r, resp);
                json_object_put(resp);
        }
        rig_down(&r);
}

static void test_other_cluster_refused(void) {
        Rig r;
        rig_up(&r);
        uint8_t label[4096];
        label_block(label, GONE, "bluefs db", OTHER_FSID);
        write_block(r.db, label);
        rig_hash(&r);
        json_object *resp = create(&r, false, MAP);
        check_refused(&r, resp, "of another cluster (" OTHER_FSID ", this one is " FSID "): refusing to erase it");
        json_object_put(resp);
        rig_down(&r);
}

/* Erasable: destroyed in the map, not in the map at all, the redo's. */
static void test_erasable(void) {
        Rig r;
        rig_up(&r);
        uint8_t label[4096];
        label_block(label, OSD2, "bluefs db", FSID);
        write_block(r.db, label);
        json_object *resp = create(&r, false, MAP);
        check_erased_then_prepare(&r, resp);
        json_object_put(resp);

        label_block(label, GONE, "bluefs db", NULL);
        write_block(r.db, label);
        resp = create(&r, false, MAP);
        check_erased_then_prepare(&r, resp);
        json_object_put(resp);

        /* osd.1 is live, but the controller proved this half-made OSD cephprov's */
        label_block(label, OSD1, "bluefs db", FSID);
        write_block(r.db, label);
        resp = create(&r, false, MAP ",\"redo_osd_fsid\":\"" OSD1 "\"");
        check_erased_then_prepare(&r, resp);
        json_object_put(resp);
        rig_down(&r);
}

/* DB erasable, WAL not: neither is erased. */
static void test_judged_together(void) {
        Rig r;
        rig_up(&r);
        uint8_t db[4096], wal[4096];
        label_block(db, GONE, "bluefs db", NULL);
        label_block(wal, OSD1, "bluefs wal", NULL);
        write_block(r.db, db);
        write_block(r.wal, wal);
        rig_hash(&r);
        json_object *resp = create(&r, true, MAP);
        char want[256];
        snprintf(want, sizeof(want), "'%s' (WAL partition for the OSD on '%s' of 'node1') carries the BlueStore label of osd.1",
                 r.wal, r.hdd);
        check_refused(&r, resp, want);
        CHECK(block_is(r.db, db) && block_is(r.wal, wal));
        json_object_put(resp);
        rig_down(&r);
}

int main(void) {
        bu_init();
        prepare_ok = access("/var/lib/ceph/osd", F_OK) == 0;
        /* the fake ceph-volume, first in PATH for every command the agent runs */
        char bin[512];
        snprintf(bin, sizeof(bin), "%s/bin", bu_dir);
        snprintf(fake_log, sizeof(fake_log), "%s/ceph-volume.log", bu_dir);
        CHECK(sh("mkdir -p '%s' && printf '#!/bin/sh\\necho \"$*\" >> %s\\n"
                 "echo \"--> fake ceph-volume (block test): not run\" >&2\\nexit 1\\n' "
                 "> '%s/ceph-volume' && chmod 755 '%s/ceph-volume'",
                 bin, fake_log, bin, bin) == 0);
        const char *path = getenv("PATH");
        char newpath[4096];
        snprintf(newpath, sizeof(newpath), "%s:%s", bin, path ? path : "/usr/sbin:/usr/bin:/sbin:/bin");
        setenv("PATH", newpath, 1);
        /* never the real one: it would ask the machine's cluster for an OSD */
        if (sh("command -v ceph-volume | grep -q '^%s/'", bin) != 0) {
                fprintf(stderr, "the fake ceph-volume is not first in PATH: not running osd-create\n");
                return 1;
        }

        TEST_RUN(test_live_osd_refused);
        TEST_RUN(test_no_map_refused);
        TEST_RUN(test_other_cluster_refused);
        if (prepare_ok)
                TEST_RUN(test_erasable);
        else
                fprintf(stderr, "skip test_erasable: no /var/lib/ceph/osd on this machine\n");
        TEST_RUN(test_judged_together);
        return test_result();
}
