/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* plan_convert(): the OSDs `cephprov convert` would rebuild and the partitions that does to
 * the fast devices, on scenario 3 (layouts/scenario-3-filestore.yaml) with its saved
 * inventories and the cluster's word on its OSDs. The FileStore `ceph osd metadata` is
 * synthetic, built from Pacific's source (tests/data/ceph/gen-synthetic-convert.py), not
 * captured. Golden files: tests/data/convert-*.txt and .json; with UPDATE_GOLDEN=1 in the
 * environment they are written instead (tests/update-golden.sh). */

#include <errno.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/strv.h"
#include "ceph/ceph.h"
#include "inventory/inventory.h"
#include "layout/layout.h"
#include "plan/plan-convert.h"
#include "fixture.h"
#include "test.h"

static char *data_file(const char *name) {
        _cleanup_(freep) char *p = strprintf("%s/%s", fixture_dir("TEST_DATA"), name);
        char *s = fixture_read(p, NULL);
        if (!s) {
                fprintf(stderr, "cannot read %s\n", p);
                exit(1);
        }
        return s;
}

/* The scenario 3 layout, with each `from` replaced by `to` in its text (NULL: as shipped). */
static Layout *layout(const char *const *edits) {
        _cleanup_(freep) char *p = strprintf("%s/scenario-3-filestore.yaml", fixture_dir("LAYOUTS"));
        _cleanup_(freep) char *text = fixture_read(p, NULL);
        CHECK(text != NULL);
        for (const char *const *e = edits; e && e[0]; e += 2) {
                char *at = strstr(text, e[0]);
                CHECK(at != NULL);
                if (!at)
                        continue;
                char *n = strprintf("%.*s%s%s", (int) (at - text), text, e[1], at + strlen(e[0]));
                free(text);
                text = n;
        }
        Layout *l = NULL;
        Error err = {};
        if (layout_load_string("scenario-3-filestore.yaml", text, strlen(text), &l, &err) < 0) {
                fprintf(stderr, "%s\n", err.message);
                exit(1);
        }
        return l;
}

static InventorySet *inventories(const char *name) {
        _cleanup_(freep) char *p = strprintf("%s/%s", fixture_dir("TEST_DATA"), name);
        InventorySet *s = NULL;
        Error err = {};
        if (inventory_set_load_file(p, &s, &err) < 0) {
                fprintf(stderr, "%s\n", err.message);
                exit(1);
        }
        return s;
}

static CephOsdTree *tree_from(const char *json) {
        CephOsdTree *t = NULL;
        Error err = {};
        CHECK_INTEQ(ceph_osd_tree_parse(json, &t, &err), 0);
        return t;
}

static CephOsdMetadataList *meta_from(const char *json) {
        CephOsdMetadataList *m = NULL;
        Error err = {};
        CHECK_INTEQ(ceph_osd_metadata_parse(json, &m, &err), 0);
        return m;
}

/* Scenario 3's synthetic `ceph osd tree`, as captured (ceph/synthetic-osd-tree-scenario-3.json). */
static CephOsdTree *scenario_tree(void) {
        _cleanup_(freep) char *json = data_file("ceph/synthetic-osd-tree-scenario-3.json");
        return tree_from(json);
}

/* Scenario 3's synthetic `ceph osd metadata` of its OSDs as `state` has them: "filestore"
 * (before the conversion) or "converged" (after). */
static CephOsdMetadataList *scenario_meta(const char *state) {
        _cleanup_(freep) char *name = strprintf("ceph/synthetic-osd-metadata-scenario-3-%s.json", state);
        _cleanup_(freep) char *json = data_file(name);
        return meta_from(json);
}

/* `text` with every `from` replaced by `to` */
static char *replace_all(const char *text, const char *from, const char *to) {
        char *out = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&out, &len);
        for (const char *at; (at = strstr(text, from)); text = at + strlen(from)) {
                fwrite(text, 1, (size_t) (at - text), m);
                fputs(to, m);
        }
        fputs(text, m);
        fclose(m);
        return out;
}

static ConvertPlan *convert_ok(const Layout *l, const InventorySet *s, const CephOsdTree *t,
                               const CephOsdMetadataList *m, const ConvertOptions *o) {
        ConvertPlan *p = NULL;
        Error err = {};
        int r = plan_convert(l, s, t, m, o, &p, &err);
        if (r < 0)
                fprintf(stderr, "plan_convert: %s\n", err.message);
        CHECK_INTEQ(r, 0);
        if (!p)
                exit(1);
        return p;
}

/* plan_convert() refused with `rc` and made no plan: its message (in `err`). */
static const char *convert_refused(const Layout *l, const InventorySet *s, const CephOsdTree *t,
                                   const CephOsdMetadataList *m, const ConvertOptions *o, int rc, Error *err) {
        ConvertPlan *p = NULL;
        *err = (Error) {};
        CHECK_INTEQ(plan_convert(l, s, t, m, o, &p, err), rc);
        CHECK(p == NULL);
        convert_plan_free(p);
        return err->message;
}

static char *text_of(const ConvertPlan *p) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        convert_plan_print(p, f, 0);
        fclose(f);
        return buf;
}

static char *json_of(const ConvertPlan *p) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        CHECK_INTEQ(convert_plan_print_json(p, f), 0);
        fclose(f);
        return buf;
}

/* The GPT name the planner gives the `role` partition of data device `path` on `host`. */
static bool named_for(const InventorySet *s, const char *host, const char *path, PartRole role, const char *name) {
        const InvDevice *d = inventory_find_device(inventory_set_find(s, host), path);
        char tag[PLAN_TAG_MAX] = "@none";
        if (d)
                plan_device_tag(d, tag);
        _cleanup_(freep) char *want = plan_partition_name(host, role, tag);
        return want && streq_ptr(name, want);
}

static const ConvertHost *host_of(const ConvertPlan *p, const char *name) {
        for (size_t i = 0; i < p->n_hosts; i++)
                if (streq(p->hosts[i].host, name))
                        return &p->hosts[i];
        return NULL;
}

static bool has_osd(const ConvertHost *h, int id) {
        for (size_t i = 0; h && i < h->n_osds; i++)
                if (h->osds[i].id == id)
                        return true;
        return false;
}

static bool kept_has(const ConvertHost *h, const char *a, const char *b) {
        for (char **k = h ? h->kept : NULL; k && *k; k++)
                if (strstr(*k, a) && (!b || strstr(*k, b)))
                        return true;
        return false;
}

static bool notes_have(const ConvertHost *h, const char *s) {
        for (char **n = h ? h->notes : NULL; n && *n; n++)
                if (strstr(*n, s))
                        return true;
        return false;
}

#define GiB (UINT64_C(1) << 30)
#define MiB (UINT64_C(1) << 20)

static void check_progress(const ConvertPlan *p);

/* FileStore with journals on SSD partitions (scenario 3's "before"): every OSD is rebuilt as
 * BlueStore, the journals the cluster names are replaced by the DB partitions, in their place */
static void test_filestore_to_bluestore(void) {
        _cleanup_(layout_freep) Layout *l = layout(NULL);
        _cleanup_(inventory_set_freep) InventorySet *s = inventories("inventory-scenario-3-filestore.json");
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = scenario_tree();
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m = scenario_meta("filestore");
        _cleanup_(convert_plan_freep) ConvertPlan *p = convert_ok(l, s, t, m, NULL);

        CHECK_INTEQ(p->n_hosts, 3);
        CHECK_INTEQ(convert_plan_count(p, true), 18);
        CHECK_INTEQ(convert_plan_count(p, false), 0);
        const ConvertHost *h = host_of(p, "fs1");
        CHECK(h && h->in_crush && h->n_osds == 6 && h->n_replaced == 6 && h->n_created == 6 && h->n_unchanged == 0);
        if (!h || h->n_osds < 6 || h->n_replaced < 6 || h->n_created < 6)
                return;
        const ConvertOsd *o = &h->osds[0];
        CHECK(o->id == 0 && o->slot == 0 && o->action == CONVERT_REBUILD && o->rebuilt);
        CHECK_STREQ(o->data_device, "/dev/sdc");
        CHECK_STREQ(o->reasons[0], "filestore, the layout wants bluestore");
        CHECK_STREQ(o->from, "filestore, journal /dev/sda1");
        CHECK_STREQ(o->to, "bluestore, DB 60 GiB on /dev/sda");
        /* osd.0's journal, sda1, as the cluster says; listed in keep_partitions, replaced all the same */
        const ConvertPart *j = &h->replaced[0];
        CHECK(j->role == PART_ROLE_JOURNAL && j->osd == 0 && j->partnum == 1 && j->kept_listed);
        CHECK(streq(j->device, "/dev/sda") && streq(j->node, "/dev/sda1") && j->size == 60 * GiB);
        CHECK(notes_have(h, "partition 1 is in keep_partitions of profile 'filestore-legacy', but the cluster names "
                            "it osd.0's journal: replaced all the same"));
        /* the DB partitions in the journals' place: same offsets, the freed numbers */
        const ConvertPart *db = &h->created[0];
        CHECK(db->role == PART_ROLE_DB && db->osd == 0 && db->slot == 0 && db->partnum == 1);
        CHECK(streq(db->device, "/dev/sda") && named_for(s, "fs1", "/dev/sdc", PART_ROLE_DB, db->partname));
        CHECK(db->offset == 1 * MiB && db->size == 60 * GiB);
        CHECK(h->created[3].osd == 3 && streq(h->created[3].device, "/dev/sdb") && h->created[3].partnum == 1);
        CHECK(h->kept == NULL); /* every partition of both SSDs was a journal of a rebuilt OSD */

        /* fs2 and fs3: their own OSDs only */
        CHECK(has_osd(host_of(p, "fs2"), 6) && has_osd(host_of(p, "fs2"), 11) && !has_osd(host_of(p, "fs2"), 0));
        CHECK(has_osd(host_of(p, "fs3"), 17) && !has_osd(host_of(p, "fs3"), 11));

        _cleanup_(freep) char *txt = text_of(p), *js = json_of(p);
        fixture_check_golden("convert-scenario-3-filestore.txt", txt);
        fixture_check_golden("convert-scenario-3-filestore.json", js);
        /* determinism */
        _cleanup_(convert_plan_freep) ConvertPlan *p2 = convert_ok(l, s, t, m, NULL);
        _cleanup_(freep) char *js2 = json_of(p2);
        CHECK_STREQ(js, js2);
        check_progress(p);
}

/* How far a conversion got, from its journal's records: fs1 done (every OSD converted),
 * fs2 half-way (the first OSD created, the others wiped), fs3 not begun; records of other
 * events, hosts or OSDs count for nothing. */
static void check_progress(const ConvertPlan *p) {
        json_object *recs = json_object_new_array();
        for (int id = 0; id < 6; id++)
                for (const char *const *ph = (const char *const[]) { "stopped", "wiped", "converted", NULL }; *ph; ph++) {
                        _cleanup_(freep) char *r = strprintf(
                                "{\"event\":\"convert-phase\",\"host\":\"fs1\",\"osd_id\":%d,\"phase\":\"%s\"}", id, *ph);
                        json_object_array_add(recs, json_tokener_parse(r));
                }
        for (int id = 6; id < 12; id++) {
                _cleanup_(freep) char *r = strprintf(
                        "{\"event\":\"convert-phase\",\"host\":\"fs2\",\"osd_id\":%d,\"phase\":\"%s\"}", id,
                        id == 6 ? "created" : "wiped");
                json_object_array_add(recs, json_tokener_parse(r));
        }
        /* not phases of fs3: another event, and osd.12 named under another host */
        json_object_array_add(recs, json_tokener_parse("{\"event\":\"osd-created\",\"host\":\"fs3\",\"osd_id\":12}"));
        json_object_array_add(
                recs, json_tokener_parse("{\"event\":\"convert-phase\",\"host\":\"fs2\",\"osd_id\":12,\"phase\":\"stopped\"}"));

        json_object *o = convert_progress_json(p, recs);
        CHECK(o != NULL);
        const char *js = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : "";
        CHECK(strstr(js, "\"hosts_done\":[\"fs1\"]") != NULL);
        CHECK(strstr(js, "\"hosts_left\":[\"fs3\"]") != NULL);
        CHECK(strstr(js, "\"current\":\"fs2\"") != NULL);
        CHECK(strstr(js, "{\"id\":6,\"host\":\"fs2\",\"phase\":\"created\"}") != NULL);
        CHECK(strstr(js, "{\"id\":7,\"host\":\"fs2\",\"phase\":\"wiped\"}") != NULL);
        CHECK(strstr(js, "{\"id\":12,\"host\":\"fs3\"}") != NULL); /* no phase of its own */
        CHECK(strstr(js, "{\"id\":0,\"host\":\"fs1\",\"phase\":\"converted\"}") != NULL);
        json_object_put(o);

        /* nothing journaled yet: every host left, none current */
        json_object *none = json_object_new_array();
        o = convert_progress_json(p, none);
        js = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : "";
        CHECK(strstr(js, "\"hosts_done\":[]") && strstr(js, "\"hosts_left\":[\"fs1\",\"fs2\",\"fs3\"]") &&
              !strstr(js, "current"));
        json_object_put(o);
        json_object_put(none);
        json_object_put(recs);
}

/* After the conversion: BlueStore with the DB where the layout wants it: nothing to do. The
 * old journal partitions are still on the SSDs (kept_partitions), named "ceph journal" with
 * the journal type GUID, and no OSD's metadata names them: kept, not treated as journals. */
static void test_converged_nothing_to_do(void) {
        _cleanup_(layout_freep) Layout *l = layout(NULL);
        _cleanup_(inventory_set_freep) InventorySet *s = inventories("inventory-scenario-3-filestore-converged.json");
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = scenario_tree();
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m = scenario_meta("converged");
        for (int reshape = 0; reshape < 2; reshape++) {
                ConvertOptions o = { .reshape = reshape };
                _cleanup_(convert_plan_freep) ConvertPlan *p = convert_ok(l, s, t, m, &o);
                CHECK_INTEQ(convert_plan_count(p, true), 0);
                CHECK_INTEQ(convert_plan_count(p, false), 0);
                for (size_t i = 0; i < p->n_hosts; i++)
                        CHECK(p->hosts[i].n_unchanged == 6 && p->hosts[i].n_replaced == 0 && p->hosts[i].n_created == 0);
                const ConvertHost *h = host_of(p, "fs1");
                CHECK(kept_has(h, "/dev/sda partition 1 'ceph journal'", "no OSD's metadata names it"));
                CHECK(kept_has(h, "/dev/sda partition 4 'cp:db:", "cephprov's"));
        }
}

/* BlueStore whose DB is not the layout's size: needs --reshape, rebuilt only with it */
static void test_reshape_db_size(void) {
        static const char *const edits[] = { "db_size: 60G", "db_size: 30G", NULL };
        _cleanup_(layout_freep) Layout *l = layout(edits);
        _cleanup_(inventory_set_freep) InventorySet *s = inventories("inventory-scenario-3-filestore-converged.json");
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = scenario_tree();
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m = scenario_meta("converged");

        _cleanup_(convert_plan_freep) ConvertPlan *p = convert_ok(l, s, t, m, NULL);
        CHECK_INTEQ(convert_plan_count(p, true), 0);
        CHECK_INTEQ(convert_plan_count(p, false), 18);
        const ConvertHost *h = host_of(p, "fs1");
        CHECK(h && h->n_osds == 6 && h->n_replaced == 0 && h->n_created == 0);
        if (h && h->n_osds > 0) {
                CHECK(h->osds[0].action == CONVERT_NEEDS_RESHAPE && !h->osds[0].rebuilt);
                CHECK_STREQ(h->osds[0].reasons[0], "DB of 60 GiB, the layout's db_size is 30 GiB");
        }
        _cleanup_(freep) char *txt = text_of(p);
        CHECK(strstr(txt, "needs --reshape") && strstr(txt, "give --reshape"));

        ConvertOptions o = { .reshape = true };
        _cleanup_(convert_plan_freep) ConvertPlan *r = convert_ok(l, s, t, m, &o);
        CHECK_INTEQ(convert_plan_count(r, true), 18);
        CHECK_INTEQ(convert_plan_count(r, false), 0);
        h = host_of(r, "fs1");
        CHECK(h && h->n_replaced == 6 && h->n_created == 6);
        if (h && h->n_replaced == 6 && h->n_created == 6) {
                /* the old DB (cp:db:0:fs1, partition 4) goes, a 30 GiB one takes its number and place */
                CHECK(h->replaced[0].role == PART_ROLE_DB && h->replaced[0].partnum == 4 && !h->replaced[0].kept_listed);
                CHECK(h->created[0].partnum == 4 && h->created[0].size == 30 * GiB &&
                      h->created[0].offset == h->replaced[0].offset && named_for(s, "fs1", "/dev/sdc", PART_ROLE_DB, h->created[0].partname));
                /* the old journals stay: no OSD names them */
                CHECK(kept_has(h, "/dev/sda partition 2 'ceph journal'", "not a journal to replace"));
        }
        _cleanup_(freep) char *rtxt = text_of(r), *rjs = json_of(r);
        fixture_check_golden("convert-scenario-3-reshape.txt", rtxt);
        fixture_check_golden("convert-scenario-3-reshape.json", rjs);

        /* bcache added to the layout: the same, one more reason */
        static const char *const bc[] = {
                "    db_size: 60G\n", "    db_size: 60G\n    bcache:\n      cache_size: 4G\n", NULL,
        };
        _cleanup_(layout_freep) Layout *lb = layout(bc);
        _cleanup_(convert_plan_freep) ConvertPlan *b = convert_ok(lb, s, t, m, NULL);
        CHECK_INTEQ(convert_plan_count(b, false), 18);
        h = host_of(b, "fs1");
        CHECK(h && h->n_osds > 0 && strv_length(h->osds[0].reasons) == 1 &&
              strstr(h->osds[0].reasons[0], "not on bcache, the layout wants a 4 GiB bcache cache on /dev/sda"));
        /* with --reshape: the DB (the cluster names it) replaced, DB and cache made per slot,
         * in the space the DBs and the free end of the SSD leave (192.6 GiB for 192 GiB) */
        _cleanup_(convert_plan_freep) ConvertPlan *br = convert_ok(lb, s, t, m, &o);
        h = host_of(br, "fs1");
        CHECK(h && h->n_replaced == 6 && h->n_created == 12);
        if (h && h->n_created == 12) {
                CHECK(h->created[0].role == PART_ROLE_DB && h->created[1].role == PART_ROLE_CACHE);
                CHECK(named_for(s, "fs1", "/dev/sdc", PART_ROLE_CACHE, h->created[1].partname) && h->created[1].size == 4 * GiB);
                CHECK(h->created[5].offset + h->created[5].size <= UINT64_C(400088440319) + 1);
        }
        /* ... which the rebuild carries out (make-bcache, attach, tune, then the OSD on the
         * bcache device): not refused, and the plan says what it does */
        Error nb = {};
        CHECK_INTEQ(convert_plan_check_built(br, NULL, &nb), 0);
        CHECK_INTEQ(convert_plan_check_built(r, NULL, &nb), 0);
        CHECK_INTEQ(convert_plan_check_built(b, NULL, &nb), 0); /* needs --reshape: nothing rebuilt */
        h = host_of(br, "fs1");
        CHECK(h && h->n_osds > 0 && h->osds[0].wanted.bcache && !h->osds[0].on_bcache &&
              streq_ptr(h->osds[0].to, "bluestore on bcache (cache 4 GiB), DB 60 GiB on /dev/sda"));
        _cleanup_(freep) char *btxt = text_of(br), *bjs = json_of(br);
        fixture_check_golden("convert-scenario-3-reshape-bcache.txt", btxt);
        fixture_check_golden("convert-scenario-3-reshape-bcache.json", bjs);
        /* a cache of 5G does not fit: refused, naming the SSD and what is free */
        static const char *const big[] = {
                "    db_size: 60G\n", "    db_size: 60G\n    bcache:\n      cache_size: 5G\n", NULL,
        };
        _cleanup_(layout_freep) Layout *lbig = layout(big);
        Error e;
        CHECK_STREQ(convert_refused(lbig, s, t, m, &o, -ENOSPC, &e),
                    "host 'fs1': not enough free space on '/dev/sda' for the 5 GiB bcache cache partition "
                    "of osd.2 (slot 2, /dev/sde) after the old partitions are replaced: the largest free "
                    "extent is 2.6 GiB, 2.6 GiB is free in all");
}

/* Every fs1 OSD's DB behind a LUKS mapping dm-(10+i), as ceph-volume's dmcrypt makes it: its
 * metadata names the mapping, the mapping holds the partition, and BlueFS sees the mapping's
 * size, the partition's less LUKS2's 16 MiB header. Returns how many were mapped. */
static size_t map_dbs_encrypted(InventorySet *s, CephOsdMetadataList *m) {
        size_t mapped = 0;
        for (size_t i = 0; i < m->n_osds; i++) {
                CephOsdMetadata *o = &m->osds[i];
                for (size_t h = 0; o->db_path && streq_ptr(o->hostname, "fs1") && h < s->n_hosts; h++)
                        for (size_t d = 0; d < s->hosts[h]->n_devices; d++)
                                for (size_t k = 0; k < s->hosts[h]->devices[d].n_partitions; k++) {
                                        InvPartition *pt = &s->hosts[h]->devices[d].partitions[k];
                                        if (!streq_ptr(pt->node, o->db_path) || !streq(s->hosts[h]->host, "fs1"))
                                                continue;
                                        char dm[32];
                                        snprintf(dm, sizeof dm, "dm-%zu", 10 + i);
                                        CHECK(strv_extend(&pt->content.holders, dm) >= 0);
                                        free(o->db_path);
                                        o->db_path = strprintf("/dev/%s", dm);
                                        o->db_size = pt->size - 16 * 1024 * 1024;
                                        mapped++;
                                        goto next;
                                }
        next:;
        }
        return mapped;
}

/* An encrypted OSD (ceph-volume's dmcrypt): its DB is found as the partition its mapping
 * holds, and has the partition's size. On the UML guest the reshape plan said "is no partition
 * of this host's inventory: nothing to replace there" and left the old DBs behind, and once
 * that was fixed, every re-run converted the OSDs again ("DB of 496 MiB, the layout's db_size
 * is 512 MiB": the mapping's size) */
static void test_reshape_encrypted_db(void) {
        _cleanup_(layout_freep) Layout *l0 = layout(NULL);
        _cleanup_(inventory_set_freep) InventorySet *s0 = inventories("inventory-scenario-3-filestore-converged.json");
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = scenario_tree();
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m0 = scenario_meta("converged");
        CHECK_INTEQ(map_dbs_encrypted(s0, m0), 6);
        for (int reshape = 0; reshape < 2; reshape++) {
                ConvertOptions o = { .reshape = reshape };
                _cleanup_(convert_plan_freep) ConvertPlan *p = convert_ok(l0, s0, t, m0, &o);
                CHECK_INTEQ(convert_plan_count(p, true), 0);
                CHECK_INTEQ(convert_plan_count(p, false), 0);
        }

        static const char *const edits[] = { "db_size: 60G", "db_size: 30G", NULL };
        _cleanup_(layout_freep) Layout *l = layout(edits);
        _cleanup_(inventory_set_freep) InventorySet *s = inventories("inventory-scenario-3-filestore-converged.json");
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m = scenario_meta("converged");
        CHECK_INTEQ(map_dbs_encrypted(s, m), 6);
        ConvertOptions o = { .reshape = true };
        _cleanup_(convert_plan_freep) ConvertPlan *r = convert_ok(l, s, t, m, &o);
        const ConvertHost *h = host_of(r, "fs1");
        CHECK(h && h->n_replaced == 6 && h->n_created == 6);
        if (h && h->n_replaced == 6)
                CHECK(h->replaced[0].role == PART_ROLE_DB && h->replaced[0].partnum == 4);
        if (h && h->n_osds > 0)
                CHECK_STREQ(h->osds[0].reasons[0], "DB of 60 GiB, the layout's db_size is 30 GiB");
        _cleanup_(freep) char *txt = text_of(r);
        CHECK(!strstr(txt, "is no partition of this host's inventory"));
}

/* A host is its CRUSH bucket, by exact name: converting node1 never takes node11's OSDs,
 * even when their metadata says hostname node1 */
static void test_node1_node11(void) {
        static const char *const edits[] = {
                "admin_host: fs1", "admin_host: node1",
                "  - name: fs1\n", "  - name: node1\n",
                "  - name: fs2\n", "  - name: node11\n",
                NULL,
        };
        _cleanup_(layout_freep) Layout *l = layout(edits);
        _cleanup_(inventory_set_freep) InventorySet *s = inventories("inventory-scenario-3-filestore.json");
        for (size_t i = 0; i < s->n_hosts; i++) {
                const char *to = streq(s->hosts[i]->host, "fs1") ? "node1" : streq(s->hosts[i]->host, "fs2") ? "node11" : NULL;
                if (to) {
                        free(s->hosts[i]->host);
                        s->hosts[i]->host = strdup(to);
                }
        }
        _cleanup_(freep) char *tj0 = data_file("ceph/synthetic-osd-tree-scenario-3.json");
        _cleanup_(freep) char *tj1 = replace_all(tj0, "\"fs1\"", "\"node1\"");
        _cleanup_(freep) char *tj = replace_all(tj1, "\"fs2\"", "\"node11\"");
        /* every OSD of both hosts reports hostname "node1" */
        _cleanup_(freep) char *mj0 = data_file("ceph/synthetic-osd-metadata-scenario-3-filestore.json");
        _cleanup_(freep) char *mj1 = replace_all(mj0, "\"hostname\":\"fs1\"", "\"hostname\":\"node1\"");
        _cleanup_(freep) char *mj = replace_all(mj1, "\"hostname\":\"fs2\"", "\"hostname\":\"node1\"");
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = tree_from(tj);
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m = meta_from(mj);

        char *only1[] = { (char *) "node1", NULL };
        ConvertOptions o = { .hosts = only1 };
        _cleanup_(convert_plan_freep) ConvertPlan *p = convert_ok(l, s, t, m, &o);
        CHECK_INTEQ(p->n_hosts, 1);
        const ConvertHost *h = host_of(p, "node1");
        CHECK(h && h->n_osds == 6);
        for (int id = 0; id < 6; id++)
                CHECK(has_osd(h, id));
        for (int id = 6; id < 18; id++)
                CHECK(!has_osd(h, id));
        for (size_t i = 0; h && i < h->n_replaced; i++)
                CHECK(h->replaced[i].osd < 6);

        char *only11[] = { (char *) "node11", NULL };
        o.hosts = only11;
        _cleanup_(convert_plan_freep) ConvertPlan *q = convert_ok(l, s, t, m, &o);
        h = host_of(q, "node11");
        CHECK(q->n_hosts == 1 && h && h->n_osds == 6 && has_osd(h, 6) && !has_osd(h, 0));

        /* a bucket named like a host but not the layout's: none, nothing converted there; with
         * node1 the only host to convert, the layout and the cluster do not match: refused */
        _cleanup_(freep) char *tj2 = replace_all(tj, "\"node1\"", "\"node1-old\"");
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t2 = tree_from(tj2);
        o.hosts = only1;
        ConvertPlan *none = NULL;
        Error err = {};
        CHECK_INTEQ(plan_convert(l, s, t2, m, &o, &none, &err), -ENOENT);
        CHECK_STREQ(err.message, "no host of the layout to convert (node1) is a CRUSH host bucket of the cluster (its "
                                 "host buckets: node1-old, node11, fs3): hosts are matched by exact name; wrong layout "
                                 "or cluster? refusing");
        char *both[] = { (char *) "node1", (char *) "node11", NULL };
        o.hosts = both;
        _cleanup_(convert_plan_freep) ConvertPlan *r = convert_ok(l, s, t2, m, &o);
        h = host_of(r, "node1");
        CHECK(h && !h->in_crush && h->n_osds == 0 && notes_have(h, "no CRUSH host bucket 'node1'"));
        /* node1's disks carry OSDs of another bucket now: named, left alone */
        CHECK(notes_have(h, "/dev/sdc carries osd.0, which is not in CRUSH host 'node1' (it is in host 'node1-old')"));
}

/* A partition named and typed like a journal (even labelled as osd.0's) that no OSD's
 * metadata points to is not an old journal: kept, and the new DBs go elsewhere */
static void test_journal_lookalike_kept(void) {
        _cleanup_(layout_freep) Layout *l = layout(NULL);
        _cleanup_(inventory_set_freep) InventorySet *s = inventories("inventory-scenario-3-filestore.json");
        Inventory *inv = s->hosts[0];
        CHECK(streq(inv->host, "fs1") && streq(inv->devices[0].path, "/dev/sda"));
        InvDevice *d = &inv->devices[0];
        InvPartition *n = realloc(d->partitions, sizeof(InvPartition) * (d->n_partitions + 1));
        CHECK(n != NULL);
        if (!n)
                return;
        d->partitions = n;
        const InvPartition *last = &n[d->n_partitions - 1];
        n[d->n_partitions] = (InvPartition) {
                .number = 4, .start = last->start + last->size, .size = 10 * GiB, .node = strdup("/dev/sda4"),
                .partuuid = strdup("0e6b1c8a-7d44-4b0e-9a51-3c2f4e5d6a7b"), .name = strdup("ceph journal"),
                .type_guid = strdup(CEPH_GUID_JOURNAL),
                .content = { .osd = { .id = 0, .role = strdup("journal"), .objectstore = strdup("filestore") } },
        };
        d->n_partitions++;

        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = scenario_tree();
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m = scenario_meta("filestore");
        _cleanup_(convert_plan_freep) ConvertPlan *p = convert_ok(l, s, t, m, NULL);
        const ConvertHost *h = host_of(p, "fs1");
        CHECK(h && h->n_replaced == 6);
        for (size_t i = 0; h && i < h->n_replaced; i++)
                CHECK(!(streq(h->replaced[i].device, "/dev/sda") && h->replaced[i].partnum == 4));
        for (size_t i = 0; h && i < h->n_created; i++)
                CHECK(!(streq(h->created[i].device, "/dev/sda") && h->created[i].partnum == 4));
        CHECK(kept_has(h, "/dev/sda partition 4 'ceph journal' 10 GiB", "no OSD's metadata names it"));
        CHECK(h && h->n_created == 6 && h->created[0].partnum == 1 && h->created[2].partnum == 3);
}

/* BlueStore without a DB where the layout wants one; a journal file (no partition) */
static void test_db_missing_and_journal_file(void) {
        _cleanup_(layout_freep) Layout *l = layout(NULL);
        _cleanup_(inventory_set_freep) InventorySet *s = inventories("inventory-scenario-3-filestore-converged.json");
        _cleanup_(freep) char *tj = data_file("ceph/synthetic-osd-tree-scenario-3.json");
        _cleanup_(freep) char *mj0 = data_file("ceph/synthetic-osd-metadata-scenario-3-converged.json");
        /* osd.0 (the first entry) without its dedicated DB */
        char *at = strstr(mj0, "\"bluefs_dedicated_db\":\"1\"");
        CHECK(at != NULL);
        if (at)
                at[strlen("\"bluefs_dedicated_db\":\"")] = '0';
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = tree_from(tj);
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m = meta_from(mj0);
        ConvertOptions o = { .reshape = true };
        _cleanup_(convert_plan_freep) ConvertPlan *p = convert_ok(l, s, t, m, &o);
        const ConvertHost *h = host_of(p, "fs1");
        CHECK(h && h->n_osds == 1 && h->n_unchanged == 5);
        if (h && h->n_osds == 1) {
                CHECK_STREQ(h->osds[0].reasons[0], "DB on the data device, the layout wants a 60 GiB DB on /dev/sda");
                CHECK(h->osds[0].rebuilt && h->osds[0].action == CONVERT_NEEDS_RESHAPE);
        }
        /* cp:db:0:fs1 is there and no OSD's metadata names it: taken as it is, nothing replaced */
        CHECK(h && h->n_replaced == 0 && h->n_created == 0);
        CHECK(kept_has(h, "/dev/sda partition 4 'cp:db:", "cephprov's"));

        /* FileStore with its journal in a file: nothing to replace, said so */
        _cleanup_(inventory_set_freep) InventorySet *b = inventories("inventory-scenario-3-filestore.json");
        _cleanup_(freep) char *fj0 = data_file("ceph/synthetic-osd-metadata-scenario-3-filestore.json");
        _cleanup_(freep) char *fj = replace_all(fj0, "\"backend_filestore_journal_partition_path\":\"/dev/sda1\"",
                                                "\"backend_filestore_journal_partition_path\":\"unknown\"");
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *fm = meta_from(fj);
        _cleanup_(convert_plan_freep) ConvertPlan *q = convert_ok(l, b, t, fm, NULL);
        h = host_of(q, "fs1");
        CHECK(h && h->n_osds == 6 && h->n_replaced == 5 && h->n_created == 6);
        CHECK(notes_have(h, "osd.0's journal is /var/lib/ceph/osd/ceph-0/journal, no partition per its metadata"));
        /* sda1 is no journal of anyone now: kept, and the new DBs go around it */
        CHECK(kept_has(h, "/dev/sda partition 1 'ceph journal'", "in keep_partitions"));
        CHECK(h && h->n_created == 6 && h->created[0].partnum != 1 && h->created[0].offset != 1 * MiB);
}

/* The cluster and the disks disagree (device names moved since the OSD booted): refused */
static void test_names_moved(void) {
        _cleanup_(layout_freep) Layout *l = layout(NULL);
        _cleanup_(inventory_set_freep) InventorySet *s = inventories("inventory-scenario-3-filestore.json");
        _cleanup_(freep) char *tj = data_file("ceph/synthetic-osd-tree-scenario-3.json");
        _cleanup_(freep) char *mj0 = data_file("ceph/synthetic-osd-metadata-scenario-3-filestore.json");
        /* osd.0 says its data is /dev/sdd1, where the inventory reads osd.1's label */
        _cleanup_(freep) char *mj = replace_all(mj0, "\"backend_filestore_partition_path\":\"/dev/sdc1\"",
                                                "\"backend_filestore_partition_path\":\"/dev/sdd1\"");
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = tree_from(tj);
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m = meta_from(mj);
        Error err;
        CHECK_STREQ(convert_refused(l, s, t, m, NULL, -EEXIST, &err),
                    "host 'fs1': the cluster says osd.0 is on /dev/sdd1, but /dev/sdd carries osd.1: device "
                    "names changed since osd.0 booted? refusing to plan (restart osd.0 so that its metadata is "
                    "current)");
}

/* An OSD destroyed with its id kept (a conversion under way) is not planned again */
static void test_destroyed_osd(void) {
        _cleanup_(layout_freep) Layout *l = layout(NULL);
        _cleanup_(inventory_set_freep) InventorySet *s = inventories("inventory-scenario-3-filestore.json");
        _cleanup_(freep) char *tj0 = data_file("ceph/synthetic-osd-tree-scenario-3.json");
        /* the first OSD of the tree's fs1 bucket: osd.0 */
        char *at = strstr(tj0, "\"name\":\"osd.0\"");
        char *st = at ? strstr(at, "\"status\":\"up\"") : NULL;
        CHECK(st != NULL);
        _cleanup_(freep) char *tj = st ? strprintf("%.*s\"status\":\"destroyed\"%s", (int) (st - tj0), tj0,
                                                   st + strlen("\"status\":\"up\"")) : NULL;
        _cleanup_(freep) char *mj = data_file("ceph/synthetic-osd-metadata-scenario-3-filestore.json");
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = tree_from(tj ?: tj0);
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m = meta_from(mj);
        _cleanup_(convert_plan_freep) ConvertPlan *p = convert_ok(l, s, t, m, NULL);
        const ConvertHost *h = host_of(p, "fs1");
        CHECK(h && h->n_osds == 5 && !has_osd(h, 0) && h->n_replaced == 5);
        CHECK(notes_have(h, "osd.0 is destroyed (its id kept for a new OSD)"));
        /* its journal is nobody's now: kept, not replaced */
        CHECK(kept_has(h, "/dev/sda partition 1 'ceph journal'", "not a journal to replace"));
}

/* ---- a replacement (cephprov replace): the OSDs that depend on one device ---- */

/* The converged scenario 3 inventories with device `dev` of fs1 edited by `edit`. */
static InventorySet *inventories_edited(const char *name, const char *dev, void (*edit)(json_object *d)) {
        _cleanup_(freep) char *text = data_file(name);
        _cleanup_json_ json_object *o = json_tokener_parse(text);
        json_object *invs = NULL, *devs = NULL;
        CHECK(o && json_object_object_get_ex(o, "inventories", &invs));
        for (size_t i = 0; invs && i < json_object_array_length(invs); i++) {
                json_object *inv = json_object_array_get_idx(invs, i), *h = NULL;
                if (json_object_object_get_ex(inv, "host", &h) && streq(json_object_get_string(h), "fs1"))
                        json_object_object_get_ex(inv, "devices", &devs);
        }
        bool found = false;
        for (size_t i = 0; devs && i < json_object_array_length(devs); i++) {
                json_object *d = json_object_array_get_idx(devs, i), *pth = NULL;
                if (json_object_object_get_ex(d, "path", &pth) && streq(json_object_get_string(pth), dev)) {
                        edit(d);
                        found = true;
                }
        }
        CHECK(found);
        InventorySet *s = NULL;
        Error err = {};
        if (inventory_set_from_json(o, &s, &err) < 0) {
                fprintf(stderr, "%s\n", err.message);
                exit(1);
        }
        return s;
}

/* a new disk: no partition table, no partitions, no signature */
static void make_blank(json_object *d) {
        json_object_object_del(d, "pttype");
        json_object_object_del(d, "ptuuid");
        json_object_object_add(d, "first_usable", json_object_new_int(0));
        json_object_object_add(d, "last_usable", json_object_new_int(0));
        json_object_object_add(d, "partitions", json_object_new_array());
        json_object_object_add(d, "content", json_object_new_object());
}

static void make_xfs(json_object *d) {
        make_blank(d);
        json_object *c = json_object_new_object();
        json_object_object_add(c, "fstype", json_object_new_string("xfs"));
        json_object_object_add(d, "content", c);
}

/* The scenario 3 tree with `osd` ("osd.1") in `status` ("down"), as destroyed_osd does it */
static char *tree_with_status(const char *osd, const char *status) {
        _cleanup_(freep) char *tj0 = data_file("ceph/synthetic-osd-tree-scenario-3.json");
        _cleanup_(freep) char *name = strprintf("\"name\":\"%s\"", osd);
        char *at = strstr(tj0, name);
        char *st = at ? strstr(at, "\"status\":\"up\"") : NULL;
        CHECK(st != NULL);
        if (!st)
                exit(1);
        return strprintf("%.*s\"status\":\"%s\"%s", (int) (st - tj0), tj0, status, st + strlen("\"status\":\"up\""));
}

static const char *replace_tree; /* a tree text for replace_plan(); NULL: the shipped one */

static int replace_plan(const Layout *l, const InventorySet *s, const char *host, const char *dev, ConvertPlan **ret,
                        Error *err) {
        _cleanup_(freep) char *tj = replace_tree ? strdup(replace_tree) : data_file("ceph/synthetic-osd-tree-scenario-3.json");
        _cleanup_(freep) char *mj = data_file("ceph/synthetic-osd-metadata-scenario-3-converged.json");
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = tree_from(tj);
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m = meta_from(mj);
        char *hosts[] = { (char *) host, NULL };
        ConvertOptions o = { .hosts = hosts, .replace_device = dev };
        return plan_convert(l, s, t, m, &o, ret, err);
}

/* A failed HDD swapped for a new blank one (fs1's /dev/sdd, osd.1): osd.1 alone is rebuilt
 * with its id, its old DB partition (sda5, the cluster names it) replaced by the layout's in
 * its place and number; the other OSDs and partitions are not touched */
static void test_replace_hdd(void) {
        _cleanup_(layout_freep) Layout *l = layout(NULL);
        _cleanup_(inventory_set_freep) InventorySet *s = inventories("inventory-scenario-3-filestore-sdd-replaced.json");
        _cleanup_(convert_plan_freep) ConvertPlan *p = NULL;
        Error err = {};
        CHECK_INTEQ(replace_plan(l, s, "fs1", "/dev/sdd", &p, &err), 0);
        if (!p) {
                fprintf(stderr, "%s\n", err.message);
                return;
        }
        CHECK(p->n_hosts == 1 && streq_ptr(p->replace_host, "fs1") && streq_ptr(p->replace_device, "/dev/sdd"));
        CHECK_INTEQ(convert_plan_count(p, true), 1);
        const ConvertHost *h = host_of(p, "fs1");
        CHECK(h && h->n_osds == 1 && h->n_replaced == 1 && h->n_created == 1);
        if (h && h->n_osds == 1 && h->n_replaced == 1 && h->n_created == 1) {
                CHECK(h->osds[0].id == 1 && h->osds[0].rebuilt && h->osds[0].slot == 1 &&
                      streq(h->osds[0].data_device, "/dev/sdd"));
                CHECK_STREQ(h->osds[0].reasons[0], "its data device /dev/sdd is the device replaced (blank now)");
                CHECK(h->replaced[0].partnum == 5 && streq(h->replaced[0].node, "/dev/sda5") &&
                      h->replaced[0].role == PART_ROLE_DB && h->replaced[0].osd == 1);
                CHECK(h->created[0].partnum == 5 && h->created[0].offset == h->replaced[0].offset &&
                      h->created[0].size == 60 * GiB && named_for(s, "fs1", "/dev/sdd", PART_ROLE_DB, h->created[0].partname) &&
                      h->created[0].osd == 1 && h->created[0].slot == 1);
        }
        CHECK(kept_has(h, "/dev/sda partition 4 'cp:db:", "cephprov's"));
        CHECK(kept_has(h, "/dev/sda partition 1 'ceph journal'", "in keep_partitions"));
        _cleanup_(freep) char *txt = text_of(p), *js = json_of(p);
        fixture_check_golden("replace-scenario-3-hdd.txt", txt);
        fixture_check_golden("replace-scenario-3-hdd.json", js);
        CHECK(strstr(js, "\"replace\": {") != NULL);

        /* the device by one of its links: the same plan */
        _cleanup_(convert_plan_freep) ConvertPlan *q = NULL;
        CHECK_INTEQ(replace_plan(l, s, "fs1", "/dev/disk/by-id/ata-ST4000NM0035-1V4107_ZC101301R", &q, &err), 0);
        _cleanup_(freep) char *qtxt = q ? text_of(q) : NULL;
        CHECK_STREQ(qtxt, txt);
        /* planned again (a re-run from the saved inputs): the same plan */
        _cleanup_(convert_plan_freep) ConvertPlan *r = NULL;
        CHECK_INTEQ(replace_plan(l, s, "fs1", "/dev/sdd", &r, &err), 0);
        _cleanup_(freep) char *rjs = r ? json_of(r) : NULL;
        CHECK_STREQ(rjs, js);
        /* the old disk still there with its OSD's label, the OSD up (a device that did not
         * fail, or replaced already: replace again): nothing was replaced there, refused */
        _cleanup_(inventory_set_freep) InventorySet *c = inventories("inventory-scenario-3-filestore-converged.json");
        ConvertPlan *o = NULL;
        err = (Error) {};
        CHECK_INTEQ(replace_plan(l, c, "fs1", "/dev/sdd", &o, &err), -EEXIST);
        CHECK(o == NULL);
        CHECK_STREQ(err.message, "host 'fs1': nothing was replaced on '/dev/sdd': osd.1 (which depends on it) is up with "
                                 "its label intact: refusing (replace rebuilds the OSDs of a failed device swapped for a "
                                 "new one; an OSD in another shape than the layout's is convert --reshape's)");
        /* the same with another db_size in the layout: still nothing replaced (--reshape's) */
        static const char *const db30[] = { "    db_size: 60G\n", "    db_size: 30G\n", NULL };
        _cleanup_(layout_freep) Layout *l30 = layout(db30);
        err = (Error) {};
        CHECK_INTEQ(replace_plan(l30, c, "fs1", "/dev/sdd", &o, &err), -EEXIST);
        /* an SSD that did not fail: every OSD with its DB there is up, its DB partition labelled */
        err = (Error) {};
        CHECK_INTEQ(replace_plan(l, c, "fs1", "/dev/sda", &o, &err), -EEXIST);
        CHECK_STREQ(err.message, "host 'fs1': nothing was replaced on '/dev/sda': osd.0, osd.1, osd.2 (which depend on "
                                 "it) are up with their label intact: refusing (replace rebuilds the OSDs of a failed "
                                 "device swapped for a new one; an OSD in another shape than the layout's is convert "
                                 "--reshape's)");
        /* as BlueStore writes them, the DB labels carry no whoami (only the main label does):
         * the same refusal, the DB partitions recognised by their osd uuid (the lab's replace
         * of an SSD rebuilt both healthy OSDs without this) */
        {
                Inventory *fs1 = (Inventory *) inventory_set_find(c, "fs1");
                for (size_t i = 0; i < fs1->n_devices; i++)
                        for (size_t k = 0; k < fs1->devices[i].n_partitions; k++) {
                                InvOsd *lab = &fs1->devices[i].partitions[k].content.osd;
                                if (lab->role && streq(lab->role, "block.db"))
                                        lab->id = -1;
                        }
                err = (Error) {};
                CHECK_INTEQ(replace_plan(l, c, "fs1", "/dev/sda", &o, &err), -EEXIST);
                CHECK(startswith(err.message, "host 'fs1': nothing was replaced on '/dev/sda': osd.0, osd.1, osd.2"));
        }
        /* the same, osd.1 down (its disk failed, still readable): rebuilt, its data device wiped */
        _cleanup_(freep) char *down = tree_with_status("osd.1", "down");
        replace_tree = down;
        _cleanup_(convert_plan_freep) ConvertPlan *od = NULL;
        CHECK_INTEQ(replace_plan(l, c, "fs1", "/dev/sdd", &od, &err), 0);
        replace_tree = NULL;
        h = od ? host_of(od, "fs1") : NULL;
        CHECK(h && h->n_osds == 1 && h->osds[0].id == 1 && h->n_replaced == 1 && h->n_created == 1 &&
              streq(h->osds[0].reasons[0], "its data device /dev/sdd is the device replaced (it still carries this "
                                           "OSD's label: wiped)"));
}

/* fs1's partition whose node is `node` (the test's fixture has it) */
static InvPartition *fs1_partition(Inventory *fs1, const char *node) {
        for (size_t i = 0; i < fs1->n_devices; i++)
                for (size_t k = 0; k < fs1->devices[i].n_partitions; k++)
                        if (streq_ptr(fs1->devices[i].partitions[k].node, node))
                                return &fs1->devices[i].partitions[k];
        CHECK(!"no such partition");
        exit(1);
}

/* The replace plan of fs1's failed /dev/sdd (osd.1) with osd.1 encrypted (ceph-volume's
 * dmcrypt): its metadata names its DB as its LUKS mapping /dev/dm-11, which the boot without
 * the disk did not open, so no partition holds it (the UML guest's replace kept the dead
 * OSD's DB and cache partitions: "is no partition of this host's inventory"). `edit` changes
 * fs1's inventory first. */
static ConvertPlan *replace_encrypted_plan(const Layout *l, void (*edit)(Inventory *fs1)) {
        _cleanup_(inventory_set_freep) InventorySet *s = inventories("inventory-scenario-3-filestore-sdd-replaced.json");
        Inventory *fs1 = (Inventory *) inventory_set_find(s, "fs1");
        fs1_partition(fs1, "/dev/sda5")->content.fstype = strdup("crypto_LUKS");
        if (edit)
                edit(fs1);
        _cleanup_(freep) char *tj = replace_tree ? strdup(replace_tree) : data_file("ceph/synthetic-osd-tree-scenario-3.json");
        _cleanup_(freep) char *mj = data_file("ceph/synthetic-osd-metadata-scenario-3-converged.json");
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = tree_from(tj);
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m = meta_from(mj);
        for (size_t i = 0; i < m->n_osds; i++)
                if (m->osds[i].id == 1 && streq_ptr(m->osds[i].hostname, "fs1")) {
                        CHECK_STREQ(m->osds[i].db_path, "/dev/sda5");
                        free(m->osds[i].db_path);
                        m->osds[i].db_path = strdup("/dev/dm-11");
                }
        char *hosts[] = { (char *) "fs1", NULL };
        ConvertOptions o = { .hosts = hosts, .replace_device = "/dev/sdd" };
        ConvertPlan *p = NULL;
        Error err = {};
        CHECK_INTEQ(plan_convert(l, s, t, m, &o, &p, &err), 0);
        if (!p)
                fprintf(stderr, "%s\n", err.message);
        return p;
}

static void drop_luks(Inventory *fs1) {
        InvPartition *p = fs1_partition(fs1, "/dev/sda5");
        free(p->content.fstype);
        p->content.fstype = NULL;
}

/* another DB partition whose data device is gone too: sdb6 renamed to a tag of no device */
static void second_orphan(Inventory *fs1) {
        InvPartition *p = fs1_partition(fs1, "/dev/sdb6");
        free(p->name);
        p->name = strdup("cp:db:@00000000:fs1");
}

/* after a boot without the failed disk, osd.1's (down) /dev/dm-11 is another OSD's mapping:
 * the one over osd.0's DB partition sda4 */
static void dm11_over_sda4(Inventory *fs1) {
        CHECK(strv_extend(&fs1_partition(fs1, "/dev/sda4")->content.holders, "dm-11") >= 0);
}

/* the plan with `edit` made rebuilds osd.1, replaces no partition, and says `why` */
static bool replace_not_taken(const Layout *l, void (*edit)(Inventory *fs1), const char *why) {
        _cleanup_(convert_plan_freep) ConvertPlan *p = replace_encrypted_plan(l, edit);
        const ConvertHost *h = p ? host_of(p, "fs1") : NULL;
        _cleanup_(freep) char *txt = p ? text_of(p) : NULL;
        return h && h->n_osds == 1 && h->n_replaced == 0 && txt && strstr(txt, why);
}

/* ... its DB partition (sda5) found by its name: the tag of the gone disk, the only cephprov
 * DB partition of a data device no longer on the host, LUKS on it; taken with a note. Not
 * taken when it carries no LUKS, nor when two such tags are left (which is osd.1's is not
 * known): a note each, and nothing of another OSD is ever taken */
static void test_replace_hdd_encrypted(void) {
        _cleanup_(layout_freep) Layout *l = layout(NULL);
        _cleanup_(convert_plan_freep) ConvertPlan *p = replace_encrypted_plan(l, NULL);
        const ConvertHost *h = p ? host_of(p, "fs1") : NULL;
        CHECK(h && h->n_osds == 1 && h->osds[0].id == 1 && h->n_replaced == 1 && h->n_created == 1);
        if (h && h->n_replaced == 1)
                CHECK(h->replaced[0].partnum == 5 && streq_ptr(h->replaced[0].node, "/dev/sda5") &&
                      h->replaced[0].role == PART_ROLE_DB && h->replaced[0].osd == 1 &&
                      streq_ptr(h->replaced[0].partname, "cp:db:@ef45e769:fs1"));
        if (h && h->n_created == 1)
                CHECK(h->created[0].partnum == 5 && h->created[0].offset == h->replaced[0].offset);
        _cleanup_(freep) char *txt = p ? text_of(p) : NULL;
        CHECK(txt && strstr(txt, "osd.1's DB /dev/dm-11 (from its metadata: its LUKS mapping, not opened at the boot "
                                 "without its disk) is taken to be /dev/sda partition 5 'cp:db:@ef45e769:fs1'"));

        /* (a layout whose 10 GiB DB fits beside the old partitions: with the layout's 60 GiB,
         * the plan is refused for want of space, and the note is not seen) */
        static const char *const db10[] = { "    db_size: 60G\n", "    db_size: 10G\n", NULL };
        _cleanup_(layout_freep) Layout *l10 = layout(db10);
        /* osd.1 down, its metadata from before the boot: its /dev/dm-11 now holds osd.0's DB
         * partition sda4, which is never taken for osd.1's (the UML guest's replace refused
         * "no OSD depends on" the new disk once, the down OSD's stale /dev/dm-N data path
         * resolved the same way); sda5 is found by its name */
        _cleanup_(freep) char *down = tree_with_status("osd.1", "down");
        replace_tree = down;
        _cleanup_(convert_plan_freep) ConvertPlan *st = replace_encrypted_plan(l, dm11_over_sda4);
        replace_tree = NULL;
        h = st ? host_of(st, "fs1") : NULL;
        CHECK(h && h->n_osds == 1 && h->osds[0].id == 1 && h->n_replaced == 1);
        if (h && h->n_replaced == 1)
                CHECK_STREQ(h->replaced[0].node, "/dev/sda5");

        CHECK(replace_not_taken(l10, drop_luks, "/dev/sda partition 5 'cp:db:@ef45e769:fs1' of the gone data device "
                                                "carries no LUKS: not taken as its"));
        CHECK(replace_not_taken(l10, second_orphan, "the DB partitions of 2 data devices gone from the host are left: "
                                                    "which one is osd.1's is not known"));
}

/* A failed SSD swapped for a new blank one (fs1's /dev/sda): every OSD whose slot is there
 * (osd.0-2) rebuilt; their old DB partitions are gone with the old disk (notes); the new ones
 * made on a new GPT. With keep_partitions, refused: they are not on the new disk */
static void test_replace_ssd(void) {
        _cleanup_(inventory_set_freep) InventorySet *s =
                inventories_edited("inventory-scenario-3-filestore-converged.json", "/dev/sda", make_blank);
        _cleanup_(layout_freep) Layout *l = layout(NULL);
        ConvertPlan *none = NULL;
        Error err = {};
        CHECK_INTEQ(replace_plan(l, s, "fs1", "/dev/sda", &none, &err), -ENOENT);
        CHECK(none == NULL);
        CHECK_STREQ(err.message, "host 'fs1': '/dev/sda' has no partition 1, 2, 3, which profile 'filestore-legacy' "
                                 "keeps (keep_partitions) on its fast devices: on a new disk they do not exist, and "
                                 "replace does not make them (they are not cephprov's): make them first as they were, "
                                 "then replace places the DB partitions after them; or take them out of keep_partitions");

        static const char *const edits[] = {
                "      keep_partitions: [1, 2, 3]   # the FileStore journals, in use until every OSD is converted\n", "",
                NULL,
        };
        _cleanup_(layout_freep) Layout *lk = layout(edits);
        _cleanup_(convert_plan_freep) ConvertPlan *p = NULL;
        CHECK_INTEQ(replace_plan(lk, s, "fs1", "/dev/sda", &p, &err), 0);
        if (!p) {
                fprintf(stderr, "%s\n", err.message);
                return;
        }
        const ConvertHost *h = host_of(p, "fs1");
        CHECK(h && h->n_osds == 3 && h->n_replaced == 0 && h->n_created == 3);
        if (h && h->n_osds == 3 && h->n_created == 3) {
                for (int i = 0; i < 3; i++) {
                        CHECK(h->osds[i].id == i && h->osds[i].rebuilt);
                        CHECK(h->created[i].partnum == (unsigned) i + 1 && h->created[i].osd == i &&
                              h->created[i].offset == MiB + (uint64_t) i * 60 * GiB && streq(h->created[i].device, "/dev/sda"));
                }
                CHECK_STREQ(h->osds[0].reasons[0], "its DB on /dev/sda, the device replaced (the layout puts its slot there)");
        }
        CHECK(notes_have(h, "osd.0's DB /dev/sda4 (from its metadata) is no partition of this host's inventory"));
        CHECK(notes_have(h, "fast device /dev/sda has no partition table: a GPT is written on it first"));
        /* the other SSD's partitions are kept, untouched */
        CHECK(kept_has(h, "/dev/sdb partition 4 'cp:db:@", NULL));
        _cleanup_(freep) char *txt = text_of(p);
        CHECK(strstr(txt, "replace: /dev/sda on host fs1: 3 OSDs to rebuild with their ids\n") != NULL);
}

/* What a replacement refuses, naming host and device */
static void test_replace_refused(void) {
        _cleanup_(layout_freep) Layout *l = layout(NULL);
        _cleanup_(inventory_set_freep) InventorySet *s = inventories("inventory-scenario-3-filestore-sdd-replaced.json");
        ConvertPlan *p = NULL;
        Error err = {};
        CHECK_INTEQ(replace_plan(l, s, "fs1", "/dev/sdz", &p, &err), -ENOENT);
        CHECK_STREQ(err.message, "host 'fs1': device '/dev/sdz' is not in its inventory (no such device on the host, "
                                 "or not allowed there)");
        err = (Error) {};
        CHECK_INTEQ(replace_plan(l, s, "fs9", "/dev/sdd", &p, &err), -ENOENT);
        CHECK_STREQ(err.message, "host 'fs9' is not in the layout");
        err = (Error) {};
        /* a device the layout selects neither as data nor as fast device */
        static const char *const lim[] = { "      model: \"ST4000NM0035*\"\n",
                                           "      model: \"ST4000NM0035*\"\n      limit: 5\n", NULL };
        _cleanup_(layout_freep) Layout *ll = layout(lim);
        CHECK_INTEQ(replace_plan(ll, s, "fs1", "/dev/sdh", &p, &err), -EINVAL);
        CHECK_STREQ(err.message, "host 'fs1': device '/dev/sdh' is neither a data device nor a fast device of profile "
                                 "'filestore-legacy' there (data: /dev/sdc, /dev/sdd, /dev/sde, /dev/sdf, /dev/sdg; "
                                 "fast: /dev/sda, /dev/sdb)");
        err = (Error) {};
        /* no OSD depends on it: osd.1's metadata says its data is elsewhere */
        _cleanup_(freep) char *tj = data_file("ceph/synthetic-osd-tree-scenario-3.json");
        _cleanup_(freep) char *mj0 = data_file("ceph/synthetic-osd-metadata-scenario-3-converged.json");
        _cleanup_(freep) char *mj = replace_all(mj0, "\"bluestore_bdev_partition_path\":\"/dev/sdd\"",
                                                "\"bluestore_bdev_partition_path\":\"/dev/sdy\"");
        CHECK(!streq(mj, mj0));
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = tree_from(tj);
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m = meta_from(mj);
        char *hosts[] = { (char *) "fs1", NULL };
        ConvertOptions o = { .hosts = hosts, .replace_device = "/dev/sdd" };
        CHECK_INTEQ(plan_convert(l, s, t, m, &o, &p, &err), -ENOENT);
        CHECK_STREQ(err.message, "host 'fs1': no OSD depends on '/dev/sdd': no OSD of its CRUSH host bucket has its "
                                 "data there (per 'ceph osd metadata'): apply makes a new OSD on a blank data device");
        CHECK(p == NULL);
        err = (Error) {};
        /* the "new" disk carries a filesystem: refused unless wipe: true */
        _cleanup_(inventory_set_freep) InventorySet *x =
                inventories_edited("inventory-scenario-3-filestore-converged.json", "/dev/sdd", make_xfs);
        CHECK_INTEQ(replace_plan(l, x, "fs1", "/dev/sdd", &p, &err), -EEXIST);
        CHECK_STREQ(err.message, "host 'fs1': '/dev/sdd', the data device of osd.1 to replace, is not blank: it carries "
                                 "xfs (a new disk is blank; the layout's wipe: true lets replace wipe it)");
        err = (Error) {};
        static const char *const wipe[] = { "    db_size: 60G\n", "    db_size: 60G\n    wipe: true\n", NULL };
        _cleanup_(layout_freep) Layout *lw = layout(wipe);
        _cleanup_(convert_plan_freep) ConvertPlan *pw = NULL;
        CHECK_INTEQ(replace_plan(lw, x, "fs1", "/dev/sdd", &pw, &err), 0);
}

/* ---- OSDs on bcache: rebuilt from it, and a failed backing HDD replaced ---- */

#define BCACHE_SET "7a1c2e3f-0000-4000-8000-00000000b0c0"

/* fs1 of the converged scenario with osd.0 (its /dev/sdc) on bcache: sdc a backing device
 * attached to a cache set on a new partition 7 of sda (cp:cache named for sdc, as sda4 is its
 * cp:db), or (`backing` false) sdc a blank new disk and the set's cache partition left */
static void edit_bcache_fs1(json_object *d, bool backing) {
        json_object *pth = NULL;
        json_object_object_get_ex(d, "path", &pth);
        if (streq(json_object_get_string(pth), "/dev/sdc")) {
                if (!backing) {
                        make_blank(d);
                        return;
                }
                json_object *c = json_object_new_object(), *b = json_object_new_object();
                json_object_object_add(b, "role", json_object_new_string("backing"));
                json_object_object_add(b, "set_uuid", json_object_new_string(BCACHE_SET));
                json_object_object_add(b, "bcache_device", json_object_new_string("/dev/bcache0"));
                json_object_object_add(b, "cache_mode", json_object_new_string("writeback"));
                json_object_object_add(b, "state", json_object_new_string("clean"));
                json_object_object_add(c, "fstype", json_object_new_string("bcache"));
                json_object_object_add(c, "bcache", b);
                json_object_object_add(d, "content", c);
                return;
        }
        if (!streq(json_object_get_string(pth), "/dev/sda"))
                return;
        json_object *parts = NULL;
        json_object_object_get_ex(d, "partitions", &parts);
        json_object *pt = json_object_new_object(), *c = json_object_new_object(), *b = json_object_new_object();
        json_object_object_add(pt, "number", json_object_new_int(7));
        json_object_object_add(pt, "start", json_object_new_int64(INT64_C(386548105216)));
        json_object_object_add(pt, "size", json_object_new_int64(INT64_C(4294967296)));
        json_object_object_add(pt, "node", json_object_new_string("/dev/sda7"));
        json_object_object_add(pt, "partuuid", json_object_new_string("5b0c4a11-7e57-4c0d-9a7e-00000000ca07"));
        json_object_object_add(pt, "name", json_object_new_string("cp:cache:@6f153e61:fs1"));
        json_object_object_add(pt, "type_guid", json_object_new_string(BCACHE_GUID));
        json_object_object_add(b, "role", json_object_new_string("cache"));
        json_object_object_add(b, "set_uuid", json_object_new_string(BCACHE_SET));
        json_object_object_add(c, "fstype", json_object_new_string("bcache"));
        json_object_object_add(c, "bcache", b);
        json_object_object_add(pt, "content", c);
        json_object_array_add(parts, pt);
}

static void edit_bcache_backing(json_object *d) {
        edit_bcache_fs1(d, true);
}

static void edit_bcache_gone(json_object *d) {
        edit_bcache_fs1(d, false);
}

/* fs1's inventory edited on both its sda and sdc */
static InventorySet *bcache_inventories(void (*edit)(json_object *d)) {
        _cleanup_(freep) char *text = data_file("inventory-scenario-3-filestore-converged.json");
        _cleanup_json_ json_object *o = json_tokener_parse(text);
        json_object *invs = NULL, *devs = NULL;
        CHECK(o && json_object_object_get_ex(o, "inventories", &invs));
        for (size_t i = 0; invs && i < json_object_array_length(invs); i++) {
                json_object *inv = json_object_array_get_idx(invs, i), *h = NULL;
                if (json_object_object_get_ex(inv, "host", &h) && streq(json_object_get_string(h), "fs1"))
                        json_object_object_get_ex(inv, "devices", &devs);
        }
        for (size_t i = 0; devs && i < json_object_array_length(devs); i++)
                edit(json_object_array_get_idx(devs, i));
        InventorySet *s = NULL;
        Error err = {};
        if (inventory_set_from_json(o, &s, &err) < 0) {
                fprintf(stderr, "%s\n", err.message);
                exit(1);
        }
        return s;
}

/* the converged metadata with osd.0 (fs1's first OSD, on sdc) on a ceph-volume LV on bcache0:
 * its data path is the LV's /dev/dm-0, what lies under it bcache0 */
static CephOsdMetadataList *bcache_meta(void) {
        _cleanup_(freep) char *mj = data_file("ceph/synthetic-osd-metadata-scenario-3-converged.json");
        char *a = strstr(mj, "\"bluestore_bdev_devices\":\"sdc\""), *b = strstr(mj, "\"bluestore_bdev_partition_path\":\"/dev/sdc\"");
        CHECK(a && b && a < b);
        if (!a || !b)
                exit(1);
        _cleanup_(freep) char *out = strprintf("%.*s\"bluestore_bdev_devices\":\"bcache0\"%.*s\"bluestore_bdev_partition_path\":\"/dev/dm-0\"%s",
                                               (int) (a - mj), mj, (int) (b - a - strlen("\"bluestore_bdev_devices\":\"sdc\"")),
                                               a + strlen("\"bluestore_bdev_devices\":\"sdc\""),
                                               b + strlen("\"bluestore_bdev_partition_path\":\"/dev/sdc\""));
        return meta_from(out);
}

static void test_bcache_rebuilds(void) {
        static const char *const bc[] = {
                "    db_size: 60G\n", "    db_size: 60G\n    bcache:\n      cache_size: 4G\n", NULL,
        };
        _cleanup_(layout_freep) Layout *l = layout(NULL), *lb = layout(bc);
        _cleanup_(inventory_set_freep) InventorySet *s = bcache_inventories(edit_bcache_backing);
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = scenario_tree();
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m = bcache_meta();
        char *fs1[] = { (char *) "fs1", NULL };

        /* the layout with bcache: osd.0, found through its LV's bluestore_bdev_devices, is
         * on bcache as the layout wants it (unchanged); the 5 others need --reshape */
        ConvertOptions o = { .hosts = fs1 };
        _cleanup_(convert_plan_freep) ConvertPlan *pb = convert_ok(lb, s, t, m, &o);
        const ConvertHost *h = host_of(pb, "fs1");
        CHECK(h && h->n_unchanged == 1 && h->n_osds == 5);
        CHECK(h && h->n_osds > 0 && h->osds[0].id == 1);

        /* the layout without bcache, --reshape: osd.0 rebuilt from bcache, its DB (sda4) and
         * its cache set's partition (sda7) replaced, a DB made in their place */
        ConvertOptions r = { .hosts = fs1, .reshape = true };
        _cleanup_(convert_plan_freep) ConvertPlan *p = convert_ok(l, s, t, m, &r);
        h = host_of(p, "fs1");
        CHECK(h && h->n_osds == 1 && h->n_replaced == 2 && h->n_created == 1);
        if (h && h->n_osds == 1 && h->n_replaced == 2 && h->n_created == 1) {
                CHECK(h->osds[0].id == 0 && h->osds[0].on_bcache && h->osds[0].rebuilt && !h->osds[0].wanted.bcache &&
                      streq(h->osds[0].data_device, "/dev/sdc"));
                CHECK_STREQ(h->osds[0].reasons[0], "on bcache, the layout has no bcache");
                CHECK_STREQ(h->osds[0].from, "bluestore on bcache, DB 60 GiB on /dev/sda4");
                CHECK(h->replaced[0].partnum == 4 && h->replaced[0].role == PART_ROLE_DB && h->replaced[0].osd == 0);
                CHECK(h->replaced[1].partnum == 7 && h->replaced[1].role == PART_ROLE_CACHE && h->replaced[1].osd == 0 &&
                      streq_ptr(h->replaced[1].node, "/dev/sda7"));
                CHECK(h->created[0].role == PART_ROLE_DB && h->created[0].partnum == 4);
        }
        Error err = {};
        CHECK_INTEQ(convert_plan_check_built(p, NULL, &err), 0);
        _cleanup_(freep) char *txt = text_of(p);
        CHECK(strstr(txt, "bcache cache") != NULL);

        /* the backing HDD failed: osd.0 down, its LV and bcache device gone, a blank disk at
         * sdc. replace finds osd.0 (the only OSD down with its data device gone), replaces its
         * DB and the cache partition named for the same slot, and makes both again */
        _cleanup_(inventory_set_freep) InventorySet *g = bcache_inventories(edit_bcache_gone);
        _cleanup_(freep) char *down = tree_with_status("osd.0", "down");
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *td = tree_from(down);
        ConvertOptions ro = { .hosts = fs1, .replace_device = "/dev/sdc" };
        _cleanup_(convert_plan_freep) ConvertPlan *rp = convert_ok(lb, g, td, m, &ro);
        h = host_of(rp, "fs1");
        CHECK(h && h->n_osds == 1 && h->n_replaced == 2 && h->n_created == 2);
        if (h && h->n_osds == 1 && h->n_replaced == 2 && h->n_created == 2) {
                CHECK(h->osds[0].id == 0 && h->osds[0].rebuilt && h->osds[0].on_bcache && h->osds[0].wanted.bcache);
                CHECK_STREQ(h->osds[0].reasons[0], "its data device /dev/sdc is the device replaced (blank now)");
                CHECK(h->replaced[1].partnum == 7 && h->replaced[1].role == PART_ROLE_CACHE);
                CHECK(h->created[0].role == PART_ROLE_DB && h->created[0].partnum == 4 &&
                      h->created[1].role == PART_ROLE_CACHE && h->created[1].partnum == 7 &&
                      h->created[1].offset == h->replaced[1].offset);
        }
        CHECK(h && strv_length(h->notes) > 0 && strstr(h->notes[0], "osd.0 is down and its data device /dev/bcache0"));
        _cleanup_(freep) char *rtxt = text_of(rp);
        fixture_check_golden("replace-scenario-3-bcache-hdd.txt", rtxt);

}


/* ---- a saved plan carried out later: its devices found again by identity ---- */

/* fs1's devices in inventory JSON `o` */
static json_object *fs1_devices(json_object *o) {
        json_object *invs = NULL, *devs = NULL;
        CHECK(json_object_object_get_ex(o, "inventories", &invs));
        for (size_t i = 0; invs && i < json_object_array_length(invs); i++) {
                json_object *inv = json_object_array_get_idx(invs, i), *h = NULL;
                if (json_object_object_get_ex(inv, "host", &h) && streq(json_object_get_string(h), "fs1"))
                        json_object_object_get_ex(inv, "devices", &devs);
        }
        CHECK(devs != NULL);
        return devs;
}

static json_object *fs1_device(json_object *o, const char *path) {
        json_object *devs = fs1_devices(o);
        for (size_t i = 0; devs && i < json_object_array_length(devs); i++) {
                json_object *d = json_object_array_get_idx(devs, i), *pth = NULL;
                if (json_object_object_get_ex(d, "path", &pth) && streq(json_object_get_string(pth), path))
                        return d;
        }
        CHECK(!"no such device of fs1");
        return NULL;
}

/* the device now under another kernel name: path, name and partition nodes; its by-path link
 * (the port) would be another's, so links go */
static void set_path(json_object *d, const char *path) {
        json_object *parts = NULL;
        json_object_object_add(d, "path", json_object_new_string(path));
        json_object_object_add(d, "name", json_object_new_string(path + strlen("/dev/")));
        json_object_object_add(d, "links", json_object_new_array());
        if (json_object_object_get_ex(d, "partitions", &parts))
                for (size_t i = 0; i < json_object_array_length(parts); i++) {
                        json_object *pt = json_object_array_get_idx(parts, i), *n = NULL;
                        if (json_object_object_get_ex(pt, "number", &n)) {
                                _cleanup_(freep) char *node = strprintf("%s%d", path, json_object_get_int(n));
                                json_object_object_add(pt, "node", json_object_new_string(node));
                        }
                }
}

static void swap_paths(json_object *o, const char *a, const char *b) {
        json_object *x = fs1_device(o, a), *y = fs1_device(o, b);
        set_path(x, b);
        set_path(y, a);
}

static void set_string(json_object *d, const char *key, const char *value) {
        if (value)
                json_object_object_add(d, key, json_object_new_string(value));
        else
                json_object_object_del(d, key);
}

/* the scenario 3 FileStore inventories as JSON, to edit */
static json_object *filestore_json(void) {
        _cleanup_(freep) char *text = data_file("inventory-scenario-3-filestore.json");
        json_object *o = json_tokener_parse(text);
        CHECK(o != NULL);
        return o;
}

static InventorySet *set_of(json_object *o) {
        InventorySet *s = NULL;
        Error err = {};
        if (inventory_set_from_json(o, &s, &err) < 0) {
                fprintf(stderr, "%s\n", err.message);
                exit(1);
        }
        return s;
}

/* scenario 3's convert plan of fs1 from `saved` */
static ConvertPlan *fs1_plan(const Layout *l, const InventorySet *saved) {
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = scenario_tree();
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m = scenario_meta("filestore");
        char *only[] = { (char *) "fs1", NULL };
        ConvertOptions o = { .hosts = only };
        return convert_ok(l, saved, t, m, &o);
}

static const ConvertOsd *osd_of(const ConvertHost *h, int id) {
        for (size_t i = 0; h && i < h->n_osds; i++)
                if (h->osds[i].id == id)
                        return &h->osds[i];
        return NULL;
}

static bool strv_has(char **l, const char *s) {
        for (char **x = l; x && *x; x++)
                if (streq(*x, s))
                        return true;
        return false;
}

/* After a reboot fs1's disks came back under each other's names (sdc <-> sdd, sda <-> sdb):
 * the saved plan acts on each disk where it is now, by its WWN; its old journals by PARTUUID */
static void test_follow_names_moved(void) {
        _cleanup_(layout_freep) Layout *l = layout(NULL);
        _cleanup_json_ json_object *so = filestore_json(), *fo = filestore_json();
        swap_paths(fo, "/dev/sdc", "/dev/sdd");
        swap_paths(fo, "/dev/sda", "/dev/sdb");
        _cleanup_(inventory_set_freep) InventorySet *saved = set_of(so), *fresh = set_of(fo);
        _cleanup_(convert_plan_freep) ConvertPlan *p = fs1_plan(l, saved);
        _cleanup_strv_free_ char **changes = NULL;
        Error err = {};
        int r = convert_plan_follow(p, saved, fresh, &changes, &err);
        if (r < 0)
                fprintf(stderr, "%s\n", err.message);
        CHECK_INTEQ(r, 0);
        const ConvertHost *h = host_of(p, "fs1");
        CHECK(h && h->n_osds == 6 && h->n_replaced == 6 && h->n_created == 6);
        CHECK_STREQ(osd_of(h, 0)->data_device, "/dev/sdd");
        CHECK_STREQ(osd_of(h, 0)->planned_device, "/dev/sdc");
        CHECK_STREQ(osd_of(h, 1)->data_device, "/dev/sdc");
        CHECK_STREQ(osd_of(h, 2)->data_device, "/dev/sde");
        CHECK(osd_of(h, 2)->planned_device == NULL);
        /* osd.0's journal, sda1 when planned, is sdb1 now: same number, its PARTUUID's */
        const ConvertPart *j = NULL;
        for (size_t i = 0; h && i < h->n_replaced; i++)
                if (h->replaced[i].osd == 0)
                        j = &h->replaced[i];
        CHECK(j && streq(j->device, "/dev/sdb") && streq(j->node, "/dev/sdb1") && j->partnum == 1 &&
              streq_ptr(j->planned_device, "/dev/sda"));
        const ConvertPart *db = convert_host_created(h, 0, PART_ROLE_DB);
        CHECK(db && streq(db->device, "/dev/sdb"));
        /* its name is the data device's tag: the same disk, the same name */
        CHECK(db && named_for(saved, "fs1", "/dev/sdc", PART_ROLE_DB, db->partname));
        CHECK(strv_has(changes, "host 'fs1': osd.0's data device wwn 0x5000c500b0000010 was /dev/sdc when the convert "
                                "was planned and is /dev/sdd now (/dev/sdc is wwn 0x5000c500b0000011): followed"));
        CHECK(strv_has(changes, "host 'fs1': the fast device of osd.0, osd.1, osd.2 wwn 0x55cd2e4000000010 was /dev/sda "
                                "when the convert was planned and is /dev/sdb now (/dev/sda is wwn 0x55cd2e4000000011): "
                                "followed"));
        CHECK(strv_has(changes, "host 'fs1': osd.0's journal partition PARTUUID 2df52aaf-08e0-5a46-8c5a-69c504932b72 "
                                "was /dev/sda1 when the convert was planned and is /dev/sdb1 now: followed"));
        /* a fresh plan from what the hosts show now cannot be made (the OSDs' metadata names the
         * old names): the saved one is the one to finish */
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = scenario_tree();
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m = scenario_meta("filestore");
        ConvertPlan *q = NULL;
        err = (Error) {};
        CHECK_INTEQ(plan_convert(l, fresh, t, m, NULL, &q, &err), -EEXIST);

        /* nothing moved: nothing changes, nothing said */
        _cleanup_(convert_plan_freep) ConvertPlan *same = fs1_plan(l, saved);
        _cleanup_(freep) char *before = json_of(same);
        _cleanup_strv_free_ char **none = NULL;
        CHECK_INTEQ(convert_plan_follow(same, saved, saved, &none, &err), 0);
        _cleanup_(freep) char *after = json_of(same);
        CHECK(none == NULL);
        CHECK_STREQ(after, before);
}

/* The saved device's identity nowhere, another disk under its name: refused naming both */
static void test_follow_refused(void) {
        _cleanup_(layout_freep) Layout *l = layout(NULL);
        _cleanup_json_ json_object *so = filestore_json();
        _cleanup_(inventory_set_freep) InventorySet *saved = set_of(so);
        Error err = {};

        /* osd.0's disk gone; /dev/sdc is another disk (serial only), carrying xfs 'backup-data' */
        _cleanup_json_ json_object *fo = filestore_json();
        json_object *x = fs1_device(fo, "/dev/sdc");
        set_string(x, "wwn", NULL);
        set_string(x, "serial", "WD-WX11D1234567");
        set_string(x, "model", "WDC WD40EFRX");
        make_xfs(x);
        _cleanup_(inventory_set_freep) InventorySet *fresh = set_of(fo);
        _cleanup_(convert_plan_freep) ConvertPlan *p = fs1_plan(l, saved);
        CHECK_INTEQ(convert_plan_follow(p, saved, fresh, NULL, &err), -ENXIO);
        CHECK_STREQ(err.message, "host 'fs1': osd.0's data device wwn 0x5000c500b0000010 was /dev/sdc when the convert "
                                 "was planned; /dev/sdc is now serial WDC WD40EFRX WD-WX11D1234567 and wwn "
                                 "0x5000c500b0000010 is not on the host: refusing");

        /* the same with osd.0's disk back as /dev/sdi: followed there; the other disk is not
         * the plan's, nothing acts on it */
        json_object *devs = fs1_devices(fo);
        _cleanup_json_ json_object *copy = NULL;
        CHECK_INTEQ(json_object_deep_copy(fs1_device(so, "/dev/sdc"), &copy, NULL), 0);
        set_path(copy, "/dev/sdi");
        json_object_array_add(devs, TAKE_PTR(copy));
        _cleanup_(inventory_set_freep) InventorySet *back = set_of(fo);
        _cleanup_(convert_plan_freep) ConvertPlan *q = fs1_plan(l, saved);
        _cleanup_strv_free_ char **changes = NULL;
        err = (Error) {};
        CHECK_INTEQ(convert_plan_follow(q, saved, back, &changes, &err), 0);
        const ConvertHost *h = host_of(q, "fs1");
        CHECK_STREQ(osd_of(h, 0)->data_device, "/dev/sdi");
        for (size_t i = 0; h && i < h->n_osds; i++)
                CHECK(!streq(h->osds[i].data_device, "/dev/sdc"));
        CHECK(strv_has(changes, "host 'fs1': osd.0's data device wwn 0x5000c500b0000010 was /dev/sdc when the convert "
                                "was planned and is /dev/sdi now (/dev/sdc is serial WDC WD40EFRX WD-WX11D1234567): "
                                "followed"));

        /* osd.1's disk (by its WWN) of another size now */
        _cleanup_json_ json_object *zo = filestore_json();
        json_object_object_add(fs1_device(zo, "/dev/sdd"), "size", json_object_new_int64(INT64_C(6001175126016)));
        _cleanup_(inventory_set_freep) InventorySet *resized = set_of(zo);
        _cleanup_(convert_plan_freep) ConvertPlan *z = fs1_plan(l, saved);
        err = (Error) {};
        CHECK_INTEQ(convert_plan_follow(z, saved, resized, NULL, &err), -ESTALE);
        CHECK_STREQ(err.message, "host 'fs1': osd.1's data device wwn 0x5000c500b0000011 (/dev/sdd now) was 3.6 TiB "
                                 "when the convert was planned and is 5.5 TiB now: refusing");

        /* a WWN on two disks now */
        _cleanup_json_ json_object *to = filestore_json();
        set_string(fs1_device(to, "/dev/sde"), "wwn", "0x5000c500b0000010");
        _cleanup_(inventory_set_freep) InventorySet *twice = set_of(to);
        _cleanup_(convert_plan_freep) ConvertPlan *w = fs1_plan(l, saved);
        err = (Error) {};
        CHECK_INTEQ(convert_plan_follow(w, saved, twice, NULL, &err), -EEXIST);
        CHECK_STREQ(err.message, "host 'fs1': osd.0's data device wwn 0x5000c500b0000010 was /dev/sdc when the convert "
                                 "was planned; both /dev/sdc and /dev/sde are wwn 0x5000c500b0000010 now: refusing");

        /* a host that did not answer */
        _cleanup_json_ json_object *eo = json_object_new_object();
        json_object_object_add(eo, "format", json_object_new_int(1));
        json_object_object_add(eo, "inventories", json_object_new_array());
        _cleanup_(inventory_set_freep) InventorySet *empty = set_of(eo);
        _cleanup_(convert_plan_freep) ConvertPlan *e = fs1_plan(l, saved);
        err = (Error) {};
        CHECK_INTEQ(convert_plan_follow(e, saved, empty, NULL, &err), -ENOENT);
        CHECK_STREQ(err.message, "host 'fs1': no inventory now: its devices cannot be found again by identity: refusing");
}

static void strip_identity(json_object *o) {
        json_object *devs = fs1_devices(o);
        for (size_t i = 0; devs && i < json_object_array_length(devs); i++) {
                json_object *d = json_object_array_get_idx(devs, i);
                set_string(d, "wwn", NULL);
                set_string(d, "serial", NULL); /* the model stays: the layout selects by it */
        }
}

/* Devices with no stable identity: taken at their names only when nothing changed but what
 * the conversion does; a loop device is known by its backing file */
static void test_follow_no_identity(void) {
        _cleanup_(layout_freep) Layout *l = layout(NULL);
        _cleanup_json_ json_object *so = filestore_json();
        strip_identity(so);
        _cleanup_(inventory_set_freep) InventorySet *saved = set_of(so);
        Error err = {};

        /* as they were, or osd.0's disk wiped by the conversion: fine */
        _cleanup_json_ json_object *bo = filestore_json();
        strip_identity(bo);
        make_blank(fs1_device(bo, "/dev/sdc"));
        _cleanup_(inventory_set_freep) InventorySet *wiped = set_of(bo);
        _cleanup_(convert_plan_freep) ConvertPlan *p = fs1_plan(l, saved);
        _cleanup_strv_free_ char **changes = NULL;
        CHECK_INTEQ(convert_plan_follow(p, saved, saved, &changes, &err), 0);
        CHECK_INTEQ(convert_plan_follow(p, saved, wiped, &changes, &err), 0);
        CHECK(changes == NULL);

        /* sdc and sdd swapped: their partition tables say they are not the disks planned */
        _cleanup_json_ json_object *fo = filestore_json();
        strip_identity(fo);
        swap_paths(fo, "/dev/sdc", "/dev/sdd");
        _cleanup_(inventory_set_freep) InventorySet *swapped = set_of(fo);
        _cleanup_(convert_plan_freep) ConvertPlan *q = fs1_plan(l, saved);
        err = (Error) {};
        CHECK_INTEQ(convert_plan_follow(q, saved, swapped, NULL, &err), -ESTALE);
        CHECK_STREQ(err.message, "host 'fs1': osd.0's data device /dev/sdc has no stable identity (no WWN, serial or "
                                 "backing file) and changed since the convert was planned (its partition table was gpt "
                                 "604d1d04-3108-5658-9e16-114275aa8c3a, it is gpt ee6b26ff-9924-5fa3-b447-2570670abc7d): "
                                 "refusing to guess which disk it is");
        /* another size */
        _cleanup_json_ json_object *zo = filestore_json();
        strip_identity(zo);
        json_object_object_add(fs1_device(zo, "/dev/sda"), "size", json_object_new_int64(INT64_C(800166076416)));
        _cleanup_(inventory_set_freep) InventorySet *resized = set_of(zo);
        _cleanup_(convert_plan_freep) ConvertPlan *z = fs1_plan(l, saved);
        err = (Error) {};
        CHECK_INTEQ(convert_plan_follow(z, saved, resized, NULL, &err), -ESTALE);
        CHECK_STREQ(err.message, "host 'fs1': the fast device of osd.0, osd.1, osd.2 /dev/sda has no stable identity (no "
                                 "WWN, serial or backing file) and changed since the convert was planned (its size was "
                                 "372.6 GiB, it is 745.2 GiB): refusing to guess which disk it is");

        /* loop devices: the backing file is the identity, swapped names are followed */
        _cleanup_json_ json_object *lo = filestore_json(), *lf = filestore_json();
        strip_identity(lo);
        strip_identity(lf);
        set_string(fs1_device(lo, "/dev/sdc"), "backing_file", "/srv/lab/node1-hdd0.img");
        set_string(fs1_device(lo, "/dev/sdd"), "backing_file", "/srv/lab/node1-hdd1.img");
        set_string(fs1_device(lf, "/dev/sdc"), "backing_file", "/srv/lab/node1-hdd0.img");
        set_string(fs1_device(lf, "/dev/sdd"), "backing_file", "/srv/lab/node1-hdd1.img");
        swap_paths(lf, "/dev/sdc", "/dev/sdd");
        _cleanup_(inventory_set_freep) InventorySet *ls = set_of(lo), *lm = set_of(lf);
        _cleanup_(convert_plan_freep) ConvertPlan *lp = fs1_plan(l, ls);
        _cleanup_strv_free_ char **lc = NULL;
        err = (Error) {};
        CHECK_INTEQ(convert_plan_follow(lp, ls, lm, &lc, &err), 0);
        const ConvertHost *h = host_of(lp, "fs1");
        CHECK_STREQ(osd_of(h, 0)->data_device, "/dev/sdd");
        CHECK_STREQ(osd_of(h, 1)->data_device, "/dev/sdc");
        CHECK(strv_has(lc, "host 'fs1': osd.0's data device file /srv/lab/node1-hdd0.img was /dev/sdc when the convert "
                           "was planned and is /dev/sdd now (/dev/sdc is file /srv/lab/node1-hdd1.img): followed"));
}

/* A partition the plan replaces is the one of its PARTUUID, whatever its number says */
static void test_follow_partitions(void) {
        _cleanup_(layout_freep) Layout *l = layout(NULL);
        _cleanup_json_ json_object *so = filestore_json();
        _cleanup_(inventory_set_freep) InventorySet *saved = set_of(so);
        Error err = {};
        /* sda1 (osd.0's journal) is number 7 now */
        _cleanup_json_ json_object *fo = filestore_json();
        json_object *parts = NULL, *pt = NULL;
        CHECK(json_object_object_get_ex(fs1_device(fo, "/dev/sda"), "partitions", &parts));
        pt = parts ? json_object_array_get_idx(parts, 0) : NULL;
        CHECK(pt != NULL);
        json_object_object_add(pt, "number", json_object_new_int(7));
        json_object_object_add(pt, "node", json_object_new_string("/dev/sda7"));
        _cleanup_(inventory_set_freep) InventorySet *renumbered = set_of(fo);
        _cleanup_(convert_plan_freep) ConvertPlan *p = fs1_plan(l, saved);
        _cleanup_strv_free_ char **changes = NULL;
        CHECK_INTEQ(convert_plan_follow(p, saved, renumbered, &changes, &err), 0);
        const ConvertHost *h = host_of(p, "fs1");
        CHECK(h && h->n_replaced > 0 && h->replaced[0].osd == 0 && h->replaced[0].partnum == 7 &&
              streq(h->replaced[0].node, "/dev/sda7"));
        /* deleted already (a re-run after the wipe): nothing to follow, nothing refused */
        json_object_array_del_idx(parts, 0, 1);
        _cleanup_(inventory_set_freep) InventorySet *deleted = set_of(fo);
        _cleanup_(convert_plan_freep) ConvertPlan *q = fs1_plan(l, saved);
        CHECK_INTEQ(convert_plan_follow(q, saved, deleted, NULL, &err), 0);
        /* number 1 is another 'ceph journal' now: not the one planned */
        json_object *other = json_object_new_object();
        json_object_object_add(other, "number", json_object_new_int(1));
        json_object_object_add(other, "start", json_object_new_int64(1048576));
        json_object_object_add(other, "size", json_object_new_int64(INT64_C(64424509440)));
        json_object_object_add(other, "node", json_object_new_string("/dev/sda1"));
        json_object_object_add(other, "partuuid", json_object_new_string("11111111-2222-3333-4444-555555555555"));
        json_object_object_add(other, "name", json_object_new_string("ceph journal"));
        json_object_array_add(parts, other);
        _cleanup_(inventory_set_freep) InventorySet *another = set_of(fo);
        _cleanup_(convert_plan_freep) ConvertPlan *r = fs1_plan(l, saved);
        err = (Error) {};
        CHECK_INTEQ(convert_plan_follow(r, saved, another, NULL, &err), -ESTALE);
        CHECK_STREQ(err.message, "host 'fs1': osd.0's journal partition 1 'ceph journal' on /dev/sda is not the one "
                                 "planned (PARTUUID 11111111-2222-3333-4444-555555555555, was "
                                 "2df52aaf-08e0-5a46-8c5a-69c504932b72): refusing");
        /* the same, when the run under way deleted osd.0's old partitions ('wiped' in its
         * journal) before it was interrupted: the partition named as planned is its own new
         * one (the name follows the data device), followed, not refused (CI: a replace killed
         * after it made the new DB partition could not be resumed) */
        _cleanup_(convert_plan_freep) ConvertPlan *own = fs1_plan(l, saved);
        ConvertHost *oh = (ConvertHost *) host_of(own, "fs1");
        for (size_t k = 0; oh && k < oh->n_osds; k++)
                if (oh->osds[k].id == 0)
                        oh->osds[k].parts_replaced = true;
        _cleanup_strv_free_ char **oc = NULL;
        err = (Error) {};
        CHECK_INTEQ(convert_plan_follow(own, saved, another, &oc, &err), 0);
        CHECK(strv_has(oc, "host 'fs1': osd.0's journal partition 1 'ceph journal' on /dev/sda was made again by the run "
                           "under way (PARTUUID 11111111-2222-3333-4444-555555555555, was "
                           "2df52aaf-08e0-5a46-8c5a-69c504932b72): followed"));
}

/* The cluster's CRUSH host buckets match no host of the layout: refused, naming both sides */
static void test_crush_hosts_unmatched(void) {
        _cleanup_(layout_freep) Layout *l = layout(NULL);
        _cleanup_(inventory_set_freep) InventorySet *s = inventories("inventory-scenario-3-filestore.json");
        _cleanup_(freep) char *tj0 = data_file("ceph/synthetic-osd-tree-scenario-3.json");
        _cleanup_(freep) char *tj1 = replace_all(tj0, "\"fs1\"", "\"ceph-a\"");
        _cleanup_(freep) char *tj2 = replace_all(tj1, "\"fs2\"", "\"ceph-b\"");
        _cleanup_(freep) char *tj = replace_all(tj2, "\"fs3\"", "\"ceph-c\"");
        _cleanup_(freep) char *mj = data_file("ceph/synthetic-osd-metadata-scenario-3-filestore.json");
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = tree_from(tj);
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *m = meta_from(mj);
        Error err;
        CHECK_STREQ(convert_refused(l, s, t, m, NULL, -ENOENT, &err),
                    "no host of the layout to convert (fs1, fs2, fs3) is a CRUSH host bucket of the cluster "
                    "(its host buckets: ceph-a, ceph-b, ceph-c): hosts are matched by exact name; wrong "
                    "layout or cluster? refusing");
        /* one host of the layout in CRUSH: the others are noted, not refused */
        _cleanup_(freep) char *tk = replace_all(tj, "\"ceph-c\"", "\"fs3\"");
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t3 = tree_from(tk);
        _cleanup_(convert_plan_freep) ConvertPlan *q = convert_ok(l, s, t3, m, NULL);
        CHECK(notes_have(host_of(q, "fs1"), "no CRUSH host bucket 'fs1' in the OSD tree"));
        CHECK(has_osd(host_of(q, "fs3"), 12));
}

int main(void) {
        TEST_RUN(test_filestore_to_bluestore);
        TEST_RUN(test_converged_nothing_to_do);
        TEST_RUN(test_reshape_db_size);
        TEST_RUN(test_reshape_encrypted_db);
        TEST_RUN(test_node1_node11);
        TEST_RUN(test_journal_lookalike_kept);
        TEST_RUN(test_db_missing_and_journal_file);
        TEST_RUN(test_names_moved);
        TEST_RUN(test_destroyed_osd);
        TEST_RUN(test_replace_hdd);
        TEST_RUN(test_replace_hdd_encrypted);
        TEST_RUN(test_replace_ssd);
        TEST_RUN(test_replace_refused);
        TEST_RUN(test_bcache_rebuilds);
        TEST_RUN(test_follow_names_moved);
        TEST_RUN(test_follow_refused);
        TEST_RUN(test_follow_no_identity);
        TEST_RUN(test_follow_partitions);
        TEST_RUN(test_crush_hosts_unmatched);
        return test_result();
}
