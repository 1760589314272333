/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Whose BlueStore label may osd-create erase (issue 25): the controller's "osd_map" built
 * from a captured `ceph osd dump -f json` (tests/data/ceph), carried as text as on the wire,
 * read back by the agent, and agent_label_erasable()'s answer for a label on a DB/WAL
 * partition — refused for an OSD the cluster still has (the dead HDD's osd.1 whose DB is on
 * the SSD), for any OSD when no map came, for another cluster's label; allowed for the
 * redo's own, a purged and a destroyed OSD. */

#include <errno.h>

#include "agent/agent-internal.h"
#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph/ceph.h"
#include "fixture.h"
#include "test.h"

/* osd-dump-noout-osd-down.json: osd.1 down (it booted once), in, not destroyed */
#define FSID "5881fcfd-4408-49eb-8f72-3158a118d6ab"
#define OSD1 "471fabbf-fde8-4700-a3aa-c45140101d74"
#define GONE "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"
#define OTHER_FSID "8a9c0b1d-2e3f-4051-8263-748596a7b8c9"

/* What the agent gets: the controller's osd_map of a captured dump, as JSON text and back. */
static CephOsdDump *map_of(const char *fixture) {
        _cleanup_(freep) char *text = fixture_ceph(fixture);
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        Error err = {};
        CHECK(text && ceph_osd_dump_parse(text, &dump, &err) == 0);
        if (!dump)
                return NULL;
        _cleanup_json_ json_object *m = ceph_osd_dump_identities_to_json(dump);
        CHECK(m != NULL);
        _cleanup_json_ json_object *wire = m ? json_tokener_parse(json_object_to_json_string(m)) : NULL;
        CephOsdDump *back = NULL;
        CHECK(wire && ceph_osd_dump_identities_from_json(wire, "osd_map", &back, &err) == 0);
        return back;
}

static InvOsd db_label(const char *uuid, const char *cluster_fsid) {
        /* a DB label as BlueStore writes it: uuid and "bluefs db", no whoami */
        return (InvOsd) { .id = -1, .osd_fsid = (char *) uuid, .cluster_fsid = (char *) cluster_fsid,
                          .role = (char *) "block.db" };
}

static int judge(const InvOsd *l, const char *redo, const CephOsdDump *map, Error *err) {
        return agent_label_erasable(l, redo, map, "/dev/sdb4", "DB", "/dev/sdd", "node1", err);
}

/* The controller's side: every OSD of the map with its uuid and whether it is destroyed. */
static void test_identities(void) {
        _cleanup_(freep) char *text = fixture_ceph("osd-dump-destroyed-new.json");
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL, *back = NULL;
        Error err = {};
        CHECK(text && ceph_osd_dump_parse(text, &dump, &err) == 0);
        if (!dump)
                return;
        _cleanup_json_ json_object *m = ceph_osd_dump_identities_to_json(dump);
        CHECK_STREQ(json_object_get_string(json_object_object_get(m, "fsid")), "47cea18d-d74d-47e5-9d04-2cbb8817c889");
        CHECK_INTEQ(json_object_get_int64(json_object_object_get(m, "epoch")), 25);
        json_object *osds = json_object_object_get(m, "osds");
        CHECK_INTEQ(json_object_array_length(osds), 8);
        /* osd.8: `osd new` then `osd destroy`: Ceph zeroed its uuid */
        json_object *e8 = json_object_array_get_idx(osds, 6);
        CHECK_INTEQ(json_object_get_int(json_object_object_get(e8, "osd")), 8);
        CHECK_STREQ(json_object_get_string(json_object_object_get(e8, "uuid")), "00000000-0000-0000-0000-000000000000");
        CHECK(json_object_get_boolean(json_object_object_get(e8, "destroyed")));
        json_object *e9 = json_object_array_get_idx(osds, 7);
        CHECK_STREQ(json_object_get_string(json_object_object_get(e9, "uuid")), "d7ebcb3f-ba7c-461c-82aa-8fd4b08da666");
        CHECK(!json_object_get_boolean(json_object_object_get(e9, "destroyed")));
        /* exactly those keys: the request stays small (a few dozen bytes per OSD) */
        CHECK_INTEQ(json_object_object_length(e9), 3);

        CHECK_INTEQ(ceph_osd_dump_identities_from_json(m, "osd_map", &back, &err), 0);
        CHECK(back && back->n_osds == 8 && back->epoch == 25);
        const CephDumpOsd *o = back ? ceph_osd_dump_find_osd(back, 8) : NULL;
        CHECK(o && o->destroyed);
        o = back ? ceph_osd_dump_find_uuid(back, "D7EBCB3F-BA7C-461C-82AA-8FD4B08DA666") : NULL;
        CHECK(o && o->id == 9 && !o->destroyed);
}

static void test_identities_malformed(void) {
        static const char *const bad[] = {
                "[]",
                "{\"epoch\":1,\"osds\":[]}",
                "{\"fsid\":\"" FSID "\",\"epoch\":1}",
                "{\"fsid\":\"" FSID "\",\"epoch\":1,\"osds\":[{\"osd\":1,\"uuid\":\"" OSD1 "\"}]}",
                "{\"fsid\":\"" FSID "\",\"epoch\":1,\"osds\":[{\"osd\":-1,\"uuid\":\"" OSD1 "\",\"destroyed\":false}]}",
                "{\"fsid\":\"" FSID "\",\"epoch\":1,\"osds\":[{\"osd\":1,\"uuid\":7,\"destroyed\":false}]}",
                "{\"fsid\":\"" FSID "\",\"epoch\":1,\"osds\":[5]}",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_json_ json_object *j = json_tokener_parse(bad[i]);
                CephOsdDump *d = NULL;
                Error err = {};
                int r = ceph_osd_dump_identities_from_json(j, "osd-create: osd_map", &d, &err);
                if (r >= 0)
                        fprintf(stderr, "accepted: %s\n", bad[i]);
                CHECK(r < 0 && d == NULL && strstr(err.message, "osd-create: osd_map") != NULL);
        }
}

/* The incident: osd.1's HDD died, a blank disk took its place, its DB stays on the SSD. */
static void test_live_osd_refused(void) {
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *map = map_of("osd-dump-noout-osd-down.json");
        InvOsd l = db_label(OSD1, NULL);
        Error err = {};
        CHECK_INTEQ(judge(&l, NULL, map, &err), -EEXIST);
        CHECK_STREQ(err.message,
                    "'/dev/sdb4' (DB partition for the OSD on '/dev/sdd' of 'node1') carries the BlueStore label of osd.1 "
                    "(uuid " OSD1 "), which the cluster still has and which is not destroyed (osd map epoch 40): refusing "
                    "to erase it; if '/dev/sdd' replaced osd.1's disk, run `cephprov replace LAYOUT node1 /dev/sdd`");
        /* a redo of another OSD proves nothing about this one */
        Error e2 = {};
        CHECK_INTEQ(judge(&l, GONE, map, &e2), -EEXIST);
        /* upper-case uuid in the label: the same OSD */
        InvOsd up = db_label("471FABBF-FDE8-4700-A3AA-C45140101D74", FSID);
        Error e3 = {};
        CHECK_INTEQ(judge(&up, NULL, map, &e3), -EEXIST);
        CHECK(strstr(e3.message, "osd.1 ") != NULL);
}

static void test_redo_erasable(void) {
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *map = map_of("osd-dump-noout-osd-down.json");
        InvOsd l = db_label(OSD1, FSID);
        Error err = {};
        /* the controller proved it started this OSD's mkfs: its label goes, map or not */
        CHECK_INTEQ(judge(&l, OSD1, map, &err), AGENT_LABEL_ERASABLE_REDO);
        CHECK_INTEQ(judge(&l, "471FABBF-FDE8-4700-A3AA-C45140101D74", NULL, &err), AGENT_LABEL_ERASABLE_REDO);
}

static void test_gone_and_destroyed_erasable(void) {
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *map = map_of("osd-dump-noout-osd-down.json");
        InvOsd l = db_label(GONE, NULL);
        Error err = {};
        CHECK_INTEQ(judge(&l, NULL, map, &err), AGENT_LABEL_ERASABLE_GONE);
        InvOsd same = db_label(GONE, FSID);
        CHECK_INTEQ(judge(&same, NULL, map, &err), AGENT_LABEL_ERASABLE_GONE);

        /* destroyed: Ceph zeroes the uuid (osd-dump-destroyed-new.json), so such a label is
         * "gone"; a map that kept the uuid with the destroyed state says so itself */
        _cleanup_json_ json_object *j = json_tokener_parse(
                "{\"fsid\":\"" FSID "\",\"epoch\":41,\"osds\":[{\"osd\":1,\"uuid\":\"" OSD1 "\",\"destroyed\":true},"
                "{\"osd\":2,\"uuid\":\"" GONE "\",\"destroyed\":false}]}");
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dmap = NULL;
        CHECK_INTEQ(ceph_osd_dump_identities_from_json(j, "osd_map", &dmap, &err), 0);
        InvOsd one = db_label(OSD1, NULL);
        CHECK_INTEQ(judge(&one, NULL, dmap, &err), AGENT_LABEL_ERASABLE_DESTROYED);
        Error e2 = {};
        CHECK_INTEQ(judge(&l, NULL, dmap, &e2), -EEXIST);
        CHECK(strstr(e2.message, "BlueStore label of osd.2 (uuid " GONE ")") != NULL);

        _cleanup_(ceph_osd_dump_freep) CephOsdDump *zmap = map_of("osd-dump-destroyed-new.json");
        InvOsd zero = db_label("00000000-0000-0000-0000-000000000000", NULL);
        CHECK_INTEQ(judge(&zero, NULL, zmap, &err), AGENT_LABEL_ERASABLE_DESTROYED);
        /* osd.9: `osd new` ran, never booted, not destroyed: still the cluster's */
        InvOsd nine = db_label("d7ebcb3f-ba7c-461c-82aa-8fd4b08da666", NULL);
        Error e3 = {};
        CHECK_INTEQ(judge(&nine, NULL, zmap, &e3), -EEXIST);
        CHECK(strstr(e3.message, "osd.9") != NULL);
}

/* An older controller, or no cluster: nothing shows the OSD gone. */
static void test_no_map_refused(void) {
        InvOsd l = db_label(GONE, NULL);
        Error err = {};
        CHECK_INTEQ(judge(&l, NULL, NULL, &err), -EEXIST);
        CHECK(strstr(err.message, "'/dev/sdb4' (DB partition for the OSD on '/dev/sdd' of 'node1') carries the BlueStore "
                                  "label of an OSD (uuid " GONE ")") != NULL);
        CHECK(strstr(err.message, "no OSD map") != NULL);
        /* the id from a label that has one */
        InvOsd main = { .id = 3, .osd_fsid = (char *) GONE, .role = (char *) "block" };
        Error e2 = {};
        CHECK_INTEQ(agent_label_erasable(&main, NULL, NULL, "/dev/sdc1", "WAL", "/dev/sde", "node2", &e2), -EEXIST);
        CHECK(strstr(e2.message, "'/dev/sdc1' (WAL partition for the OSD on '/dev/sde' of 'node2') carries the BlueStore "
                                 "label of osd.3 (uuid " GONE ")") != NULL);
}

static void test_other_cluster_refused(void) {
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *map = map_of("osd-dump-noout-osd-down.json");
        InvOsd l = db_label(GONE, OTHER_FSID);
        Error err = {};
        CHECK_INTEQ(judge(&l, NULL, map, &err), -EEXIST);
        CHECK(strstr(err.message, "of another cluster (" OTHER_FSID ", this one is " FSID ")") != NULL);
        /* not even as the redo's: a proof of this cluster's journal is no proof for it */
        Error e2 = {};
        CHECK_INTEQ(judge(&l, GONE, map, &e2), -EEXIST);
}

static void test_no_uuid_refused(void) {
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *map = map_of("osd-dump-noout-osd-down.json");
        InvOsd l = db_label(NULL, NULL);
        Error err = {};
        CHECK_INTEQ(judge(&l, NULL, map, &err), -EEXIST);
        CHECK(strstr(err.message, "(uuid unreadable)") != NULL);
}

int main(void) {
        TEST_RUN(test_identities);
        TEST_RUN(test_identities_malformed);
        TEST_RUN(test_live_osd_refused);
        TEST_RUN(test_redo_erasable);
        TEST_RUN(test_gone_and_destroyed_erasable);
        TEST_RUN(test_no_map_refused);
        TEST_RUN(test_other_cluster_refused);
        TEST_RUN(test_no_uuid_refused);
        return test_result();
}
