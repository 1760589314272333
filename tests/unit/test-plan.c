/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The planner on the shipped layouts and their saved inventories.
 *
 * Golden files: tests/data/plan-<name>.txt and .json are compared exactly. With
 * UPDATE_GOLDEN=1 in the environment they are written instead (tests/update-golden.sh). */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/size.h"
#include "basic/strv.h"
#include "layout/layout.h"
#include "plan/plan.h"
#include "plan/plan-internal.h"
#include "fixture.h"
#include "test.h"

static const char *const scenarios[] = {
        "scenario-1-hyperconverged",
        "scenario-2-bulk-nvme",
        "scenario-3-filestore",
        "all-flash",
};

static Layout *load_layout(const char *name) {
        _cleanup_(freep) char *p = strprintf("%s/%s.yaml", fixture_dir("LAYOUTS"), name);
        Layout *l = NULL;
        Error err = {};
        int r = layout_load_file(p, &l, &err);
        if (r < 0)
                fprintf(stderr, "%s\n", err.message);
        CHECK(r == 0);
        if (!l)
                exit(1); /* nothing below can run */
        return l;
}

static InventorySet *load_inv(const char *name, const char *suffix) {
        _cleanup_(freep) char *p = strprintf("%s/inventory-%s%s.json", fixture_dir("TEST_DATA"), name, suffix);
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

static char *plan_text_flags(const Plan *p, unsigned flags) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        plan_print(p, f, flags);
        fclose(f);
        return buf;
}

/* The golden text is the ASCII form (LC_ALL=C). */
static char *plan_text(const Plan *p) {
        return plan_text_flags(p, 0);
}

static char *plan_json_text(const Plan *p) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        CHECK_INTEQ(plan_print_json(p, f), 0);
        fclose(f);
        return buf;
}

static Plan *plan_ok(const Layout *l, const InventorySet *s) {
        Plan *p = NULL;
        Error err = {};
        int r = plan_compute(l, s, &p, &err);
        if (r < 0)
                fprintf(stderr, "plan_compute: %s\n", err.message);
        CHECK_INTEQ(r, 0);
        return p;
}

/* Plan expected to be refused; returns the message. */
static const char *plan_refused(const Layout *l, const InventorySet *s, Error *err) {
        _cleanup_(plan_freep) Plan *p = NULL;
        *err = (Error) {};
        int r = plan_compute(l, s, &p, err);
        CHECK(r < 0);
        CHECK(p == NULL);
        return err->message;
}

static void test_golden(void) {
        for (size_t i = 0; i < ELEMENTSOF(scenarios); i++) {
                _cleanup_(layout_freep) Layout *l = load_layout(scenarios[i]);
                _cleanup_(inventory_set_freep) InventorySet *s = load_inv(scenarios[i], "");
                _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
                if (!p)
                        continue;
                _cleanup_(freep) char *txt = plan_text(p), *js = plan_json_text(p);
                _cleanup_(freep) char *ftxt = strprintf("plan-%s.txt", scenarios[i]);
                _cleanup_(freep) char *fjs = strprintf("plan-%s.json", scenarios[i]);
                fixture_check_golden(ftxt, txt);
                fixture_check_golden(fjs, js);
                CHECK(!plan_is_empty(p));
                CHECK_INTEQ(p->n_hosts, l->n_hosts);

                /* determinism: a second run gives the same JSON */
                _cleanup_(plan_freep) Plan *p2 = plan_ok(l, s);
                _cleanup_(freep) char *js2 = p2 ? plan_json_text(p2) : NULL;
                CHECK_STREQ(js, js2);
        }
}

static void test_converged_empty(void) {
        for (size_t i = 0; i < ELEMENTSOF(scenarios); i++) {
                _cleanup_(layout_freep) Layout *l = load_layout(scenarios[i]);
                _cleanup_(inventory_set_freep) InventorySet *s = load_inv(scenarios[i], "-converged");
                _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
                if (!p)
                        continue;
                CHECK(plan_is_empty(p));
                CHECK_INTEQ(plan_count_steps(p), 0);
                _cleanup_(freep) char *txt = plan_text(p);
                _cleanup_(freep) char *want = strprintf("host %s: nothing to do\n", l->hosts[0].name);
                CHECK(txt && startswith(txt, want));
                if (!plan_is_empty(p))
                        fprintf(stderr, "%s converged:\n%s", scenarios[i], txt);
        }
}

static const InvPartition *find_part(const InvDevice *d, unsigned number) {
        for (size_t i = 0; i < d->n_partitions; i++)
                if (d->partitions[i].number == number)
                        return &d->partitions[i];
        return NULL;
}

static bool overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) {
        return a < b + bn && b < a + an;
}

/* Scenario 1: partitions 1-3 untouched, new partitions aligned, inside the usable range,
 * never overlapping anything; 2 HDDs per SSD; 30G DB + 60G cache per HDD. */
static void test_scenario1(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
        if (!p)
                return;
        CHECK_INTEQ(p->n_hosts, 3);
        for (size_t h = 0; h < p->n_hosts; h++) {
                const HostPlan *hp = &p->hosts[h];
                const Inventory *inv = inventory_set_find(s, hp->host);
                size_t n_db = 0, n_cache = 0, n_osd = 0;
                CHECK(inv != NULL);

                for (size_t i = 0; i < hp->n_steps; i++) {
                        const Step *st = &hp->steps[i];
                        CHECK_INTEQ(st->id, i + 1);
                        for (size_t d = 0; d < st->n_deps; d++)
                                CHECK(st->deps[d] < st->id); /* valid order */
                        CHECK(st->kind != STEP_WIPE && st->kind != STEP_CREATE_GPT);
                        if (st->kind == STEP_CREATE_PARTITION || st->kind == STEP_MAKE_BCACHE_CACHE ||
                            st->kind == STEP_BCACHE_ATTACH)
                                CHECK(st->partnum > 3);
                        if (st->kind == STEP_CREATE_OSD) {
                                n_osd++;
                                CHECK_STREQ(st->device_class, "hdd");
                                CHECK(st->data_is_bcache);
                                CHECK(st->db_device && st->db_partname && !st->wal_device);
                        }
                        if (st->kind != STEP_CREATE_PARTITION)
                                continue;
                        const InvDevice *fd = inventory_find_device(inv, st->device);
                        CHECK(fd && !fd->rotational);
                        if (!fd)
                                continue;
                        CHECK_INTEQ(st->offset % PLAN_ALIGN, 0);
                        CHECK_INTEQ(st->size % PLAN_ALIGN, 0);
                        CHECK(st->offset >= fd->first_usable);
                        CHECK(st->offset + st->size - 1 <= fd->last_usable);
                        for (unsigned k = 1; k <= 3; k++) {
                                const InvPartition *kp = find_part(fd, k);
                                CHECK(kp != NULL);
                                if (kp)
                                        CHECK(!overlaps(st->offset, st->size, kp->start, kp->size));
                        }
                        for (size_t j = 0; j < i; j++) {
                                const Step *o = &hp->steps[j];
                                if (o->kind == STEP_CREATE_PARTITION && streq(o->device, st->device)) {
                                        CHECK(!overlaps(st->offset, st->size, o->offset, o->size));
                                        CHECK(o->partnum != st->partnum);
                                }
                        }
                        if (st->role == PART_ROLE_DB) {
                                n_db++;
                                CHECK_INTEQ(st->size, 30 * GiB);
                                CHECK_STREQ(st->type_guid, CEPH_GUID_BLOCK_DB);
                        } else if (st->role == PART_ROLE_CACHE) {
                                n_cache++;
                                CHECK_INTEQ(st->size, 60 * GiB);
                                CHECK_STREQ(st->type_guid, BCACHE_GUID);
                        } else
                                CHECK(false);
                        /* named by the tag of the data device of its slot */
                        const InvDevice *data = NULL;
                        for (size_t k = 0; k < hp->n_devices; k++)
                                if (!hp->devices[k].fast && hp->devices[k].slot == st->slot)
                                        data = inventory_find_device(inventory_set_find(s, hp->host), hp->devices[k].path);
                        CHECK(data != NULL);
                        char tag[PLAN_TAG_MAX] = "";
                        if (data)
                                plan_device_tag(data, tag);
                        _cleanup_(freep) char *name = plan_partition_name(hp->host, st->role, tag);
                        CHECK_STREQ(st->partname, name);
                }
                CHECK_INTEQ(n_db, 4);
                CHECK_INTEQ(n_cache, 4);
                CHECK_INTEQ(n_osd, 4);
                CHECK_INTEQ(strv_length(hp->osd_data), 4);

                /* two HDDs per SSD, balanced: sda ← sdc, sde; sdb ← sdd, sdf */
                CHECK_INTEQ(hp->n_fast, 2);
                if (hp->n_fast == 2) {
                        CHECK_STREQ(hp->fast[0].fast_device, "/dev/sda");
                        CHECK_INTEQ(strv_length(hp->fast[0].data_devices), 2);
                        CHECK_STREQ(hp->fast[0].data_devices[0], "/dev/sdc");
                        CHECK_STREQ(hp->fast[0].data_devices[1], "/dev/sde");
                        CHECK_STREQ(hp->fast[1].data_devices[0], "/dev/sdd");
                        CHECK_STREQ(hp->fast[1].data_devices[1], "/dev/sdf");
                        CHECK_INTEQ(hp->fast[0].used, 180 * GiB);
                }
        }
        _cleanup_(freep) char *utf8 = plan_text_flags(p, PLAN_PRINT_UTF8);
        CHECK(utf8 && strstr(utf8, "blast radius: /dev/sda \u2192 /dev/sdc, /dev/sde (2 OSDs)"));
        /* LC_ALL=C: nothing but ASCII */
        _cleanup_(freep) char *txt = plan_text(p);
        CHECK(txt && strstr(txt, "blast radius: /dev/sda -> /dev/sdc, /dev/sde (2 OSDs)"));
        bool ascii = txt != NULL;
        for (const char *c = txt; c && *c; c++)
                ascii = ascii && (unsigned char) *c < 0x80;
        CHECK(ascii);

        /* every device named as in the rack, kept partitions with names and sizes, totals */
        CHECK(txt && strstr(txt, "    /dev/sda         /dev/disk/by-id/ata-INTEL_SSDSC2KB480G8_PHYF810700480BGN, 447.1 GiB "
                                 "non-rotational, fast device; kept: 1 'BIOS boot' 1 MiB, 2 'os' (md0) 8 GiB, 3 'swap' (md1) 256 GiB\n"));
        CHECK(txt && strstr(txt, "    /dev/sdf         /dev/disk/by-id/ata-ST2000NM0135_ZFL01413K, 1.8 TiB rotational, data of slot 3\n"));
        CHECK(txt && strstr(txt, "  total: 4 new OSDs, 7.3 TiB raw (4 OSDs, 7.3 TiB raw after the plan); fast devices: "
                                 "360 GiB in cephprov partitions, 6.3 GiB free after\n"));
        CHECK(txt && strstr(txt, "\nplan: 84 steps on 3 hosts, 12 new OSDs, 21.8 TiB raw; fast devices: 1.1 TiB in cephprov "
                                 "partitions, 18.8 GiB free after\n"));
        const HostPlan *h0 = &p->hosts[0];
        CHECK_INTEQ(h0->n_devices, 6);
        CHECK_INTEQ(h0->n_new_osds, 4);
        CHECK_INTEQ(h0->raw_new, 4 * inventory_find_device(inventory_set_find(s, "node1"), "/dev/sdc")->size);
        if (h0->n_devices == 6) {
                CHECK_INTEQ(h0->devices[0].n_kept, 3);
                CHECK_INTEQ(h0->devices[2].n_kept, 0);
                CHECK(h0->devices[2].slot == 0 && !h0->devices[2].fast);
        }
}

/* No by-id link: serial and model instead. */
static void test_device_without_by_id(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        InvDevice *sdc = (InvDevice *) inventory_find_device(inventory_set_find(s, "node1"), "/dev/sdc");
        /* the allow-list matches by-id links; keep only the by-path one and allow by path */
        strv_free(sdc->links);
        sdc->links = strv_split("/dev/disk/by-path/pci-0000:00:1f.2-ata-3", " ");
        strv_extend(&l->hosts[0].allow, "/dev/sdc");
        _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
        if (!p)
                return;
        _cleanup_(freep) char *txt = plan_text(p);
        CHECK(txt && strstr(txt, "    /dev/sdc         (no by-id name) serial ZFL01410K, model ST2000NM0135, 1.8 TiB rotational, data of slot 0\n"));
}

static void test_partition_names(void) {
        _cleanup_(freep) char *a = plan_partition_name("node1", PART_ROLE_DB, "@3f9a01c2");
        CHECK_STREQ(a, "cp:db:@3f9a01c2:node1");
        _cleanup_(freep) char *b = plan_partition_name("a-very-long-host-name.rack12.example.net", PART_ROLE_CACHE, "@00000012");
        CHECK_STREQ(b, "cp:cache:@00000012:a-very-long-host-");
        CHECK_INTEQ(strlen(b), 36);
        PartRole role;
        unsigned slot;
        char tag[PLAN_TAG_MAX];
        CHECK(plan_partition_name_parse(b, &role, &slot, tag));
        CHECK_INTEQ(role, PART_ROLE_CACHE);
        CHECK_INTEQ(slot, UINT_MAX);
        CHECK_STREQ(tag, "@00000012");
        /* the names of before: a slot position, still read */
        _cleanup_(freep) char *c = plan_partition_name_legacy("node1", PART_ROLE_DB, 3);
        CHECK_STREQ(c, "cp:db:3:node1");
        CHECK(plan_partition_name_parse("cp:wal:0:x", &role, &slot, tag) && role == PART_ROLE_WAL && slot == 0 && !tag[0]);
        CHECK(!plan_partition_name_parse("ceph journal", NULL, NULL, NULL));
        CHECK(!plan_partition_name_parse("cp:foo:1:x", NULL, NULL, NULL));
        CHECK(!plan_partition_name_parse("cp:db:x:node1", NULL, NULL, NULL));
        CHECK(!plan_partition_name_parse("cp:db:1", NULL, NULL, NULL));
        CHECK(!plan_partition_name_parse("cp:db:@3F9A01C2:node1", NULL, NULL, NULL));
        CHECK(!plan_partition_name_parse("cp:db:@3f9a01:node1", NULL, NULL, NULL));

        /* identity: WWN, else model and serial, else a loop device's backing file, else none
         * (the tag then stands for the path) */
        InvDevice d = { .name = (char *) "sdc", .path = (char *) "/dev/sdc", .model = (char *) "ST2000NM0135",
                        .serial = (char *) "ZFL01410K", .wwn = (char *) "0x5000c50000000010" };
        _cleanup_(freep) char *i1 = plan_device_identity(&d);
        CHECK_STREQ(i1, "wwn 0x5000c50000000010");
        char t1[PLAN_TAG_MAX], t2[PLAN_TAG_MAX], t3[PLAN_TAG_MAX];
        plan_device_tag(&d, t1);
        d.path = (char *) "/dev/sdq"; /* moved: the same tag */
        plan_device_tag(&d, t2);
        CHECK_STREQ(t1, t2);
        CHECK_INTEQ(strlen(t1), 9);
        d.wwn = NULL;
        _cleanup_(freep) char *i2 = plan_device_identity(&d);
        CHECK_STREQ(i2, "serial ST2000NM0135 ZFL01410K");
        plan_device_tag(&d, t3);
        CHECK(!streq(t1, t3));
        InvDevice loop = { .name = (char *) "loop3", .path = (char *) "/dev/loop3",
                           .backing_file = (char *) "/var/lib/lab/node1-hdd0.img" };
        _cleanup_(freep) char *i3 = plan_device_identity(&loop);
        CHECK_STREQ(i3, "file /var/lib/lab/node1-hdd0.img");
        loop.backing_file = NULL;
        CHECK(plan_device_identity(&loop) == NULL);
}

/* ---- refusals and variations ---- */

static Profile *profile0(Layout *l) {
        return &l->profiles[0];
}

/* The GPT name the planner gives the `role` partition of data device `path` on `host`. */
static char *name_for(const InventorySet *s, const char *host, const char *path, PartRole role) {
        const InvDevice *d = inventory_find_device(inventory_set_find(s, host), path);
        char tag[PLAN_TAG_MAX] = "@none";
        if (d)
                plan_device_tag(d, tag);
        return plan_partition_name(host, role, tag);
}

static void test_free_space_refused(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        Error err;

        /* 2 × (40 + 60) GiB do not fit in what the kept partitions leave on a 480 GB SSD:
         * slot 0 takes 100 GiB, slot 2's DB fits, its cache does not */
        profile0(l)->db_size.bytes = 40 * GiB;
        const Inventory *inv = inventory_set_find(s, "node1");
        const InvDevice *sda = inventory_find_device(inv, "/dev/sda");
        const InvPartition *p3 = find_part(sda, 3);
        uint64_t free_start = align_up(p3->start + p3->size, PLAN_ALIGN);
        uint64_t free_end = align_down(sda->last_usable + 1, PLAN_ALIGN);
        uint64_t left = free_end - free_start - (40 + 60 + 40) * GiB;
        char buf[SIZE_FORMAT_MAX], all[SIZE_FORMAT_MAX];
        /* at the layout's cache_size (line 33), what this partition needs against the largest
         * hole, and what all the new partitions on the SSD need against its free space */
        _cleanup_(freep) char *want = strprintf(
                "%s:33:19: host 'node1': not enough free space on '/dev/sda' for the 60 GiB bcache cache partition of slot 2 "
                "(/dev/sde): it needs 60 GiB, the largest free extent is %s; the layout's new partitions there need 200 GiB "
                "in all, and %s is free before the plan",
                l->path, size_format(left, buf, sizeof(buf)), size_format(free_end - free_start, all, sizeof(all)));
        CHECK_STREQ(plan_refused(l, s, &err), want);
        CHECK_INTEQ(err.code, ENOSPC);
}

static void test_ratio_refused(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        Error err;
        profile0(l)->data_per_fast = 1;
        CHECK_STREQ(plan_refused(l, s, &err),
                    "host 'node1': 4 data devices but 2 fast devices with data_per_fast 1 give 2 slots");
}

static void check_fast(const HostPlan *hp, size_t idx, const char *dev, const char *const *data) {
        CHECK(idx < hp->n_fast);
        if (idx >= hp->n_fast)
                return;
        CHECK_STREQ(hp->fast[idx].fast_device, dev);
        _cleanup_(freep) char *got = strv_join(hp->fast[idx].data_devices, ",");
        _cleanup_(freep) char *want = strv_join((char **) data, ",");
        CHECK_STREQ(got, want);
}

static void test_spread_2_to_1(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");

        profile0(l)->spread = SPREAD_FILL;
        _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
        if (!p)
                return;
        check_fast(&p->hosts[0], 0, "/dev/sda", (const char *[]) { "/dev/sdc", "/dev/sdd", NULL });
        check_fast(&p->hosts[0], 1, "/dev/sdb", (const char *[]) { "/dev/sde", "/dev/sdf", NULL });
        /* each OSD's DB is on its assigned fast device */
        for (size_t i = 0; i < p->hosts[0].n_steps; i++) {
                const Step *st = &p->hosts[0].steps[i];
                if (st->kind == STEP_CREATE_OSD)
                        CHECK_STREQ(st->db_device, st->slot < 2 ? "/dev/sda" : "/dev/sdb");
        }
}

/* osd.encrypted: every create-osd step says so, in its reason, the step table and JSON */
static void test_encrypted(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        profile0(l)->osd.encrypted = true;
        _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
        if (!p)
                return;
        size_t n = 0;
        for (size_t i = 0; i < p->hosts[0].n_steps; i++) {
                const Step *st = &p->hosts[0].steps[i];
                if (st->kind != STEP_CREATE_OSD)
                        continue;
                n++;
                CHECK(st->encrypted && st->data_is_bcache);
                CHECK(startswith(st->reason, "encrypted bluestore OSD on the bcache device of "));
        }
        CHECK_INTEQ(n, 4);
        _cleanup_(freep) char *txt = plan_text(p), *js = plan_json_text(p);
        CHECK(txt && strstr(txt, " bluestore+dmcrypt"));
        CHECK(js && strstr(js, "\"encrypted\": true") && !strstr(js, "\"encrypted\": false"));
}

/* A converged host whose OSDs' encryption differs from the layout: nothing to do, and a note
 * per OSD saying it is left as it is (either way round). */
static void test_encrypted_existing(void) {
        for (int enc = 0; enc < 2; enc++) {
                _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
                _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "-converged");
                profile0(l)->osd.encrypted = enc == 0;
                size_t n_block = 0;
                for (size_t h = 0; h < s->n_hosts; h++)
                        for (size_t d = 0; d < s->hosts[h]->n_devices; d++) {
                                InvOsd *o = &s->hosts[h]->devices[d].content.osd;
                                if (o->role && streq(o->role, "block")) {
                                        o->encrypted = enc == 1;
                                        n_block++;
                                }
                        }
                CHECK(n_block >= 4);
                _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
                if (!p)
                        continue;
                CHECK(plan_is_empty(p));
                size_t n = 0;
                STRV_FOREACH(note, p->hosts[0].notes)
                        if (strstr(*note, enc ? " is encrypted, the layout says encrypted: false: left as it is"
                                              : " is not encrypted, the layout says encrypted: true: left as it is"))
                                n++;
                CHECK_INTEQ(n, 4);
        }
}

/* A second NVMe in scenario 2's hosts: 8 HDDs over 2 fast devices. */
static InventorySet *scenario2_two_nvme(void) {
        _cleanup_(freep) char *path = strprintf("%s/inventory-scenario-2-bulk-nvme.json", fixture_dir("TEST_DATA"));
        _cleanup_json_ json_object *o = NULL;
        CHECK_INTEQ(json_parse_file(path, &o, NULL), 0);
        json_object *invs = json_object_object_get(o, "inventories");
        for (size_t h = 0; h < json_object_array_length(invs); h++) {
                json_object *devs = json_object_object_get(json_object_array_get_idx(invs, h), "devices");
                json_object *nvme = json_object_array_get_idx(devs, json_object_array_length(devs) - 1);
                json_object *copy = NULL;
                CHECK_INTEQ(json_object_deep_copy(nvme, &copy, NULL), 0);
                json_object_object_add(copy, "name", json_object_new_string("nvme1n1"));
                json_object_object_add(copy, "path", json_object_new_string("/dev/nvme1n1"));
                json_object_object_add(copy, "links", json_object_new_array());
                json_object_array_add(devs, copy);
        }
        InventorySet *s = NULL;
        CHECK_INTEQ(inventory_set_from_json(o, &s, NULL), 0);
        if (!s)
                exit(1);
        return s;
}

static void test_spread_8_to_1(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-2-bulk-nvme");
        _cleanup_(inventory_set_freep) InventorySet *one = load_inv("scenario-2-bulk-nvme", "");
        _cleanup_(inventory_set_freep) InventorySet *two = scenario2_two_nvme();
        static const char *const all8[] = { "/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde",
                                            "/dev/sdf", "/dev/sdg", "/dev/sdh", "/dev/sdi", NULL };
        Profile *pr = profile0(l);

        /* 8:1 on one NVMe, balanced or fill alike */
        for (int mode = 0; mode < 2; mode++) {
                pr->spread = mode ? SPREAD_FILL : SPREAD_BALANCED;
                _cleanup_(plan_freep) Plan *p = plan_ok(l, one);
                if (p)
                        check_fast(&p->hosts[0], 0, "/dev/nvme0n1", (const char *const *) all8);
        }

        /* two NVMe, 4 per fast device */
        strv_free(pr->fast.devices);
        pr->fast.devices = strv_split("/dev/nvme0n1 /dev/nvme1n1", " ");
        free(l->hosts[0].allow[0]);
        l->hosts[0].allow[0] = strdup("/dev/*"); /* the copy has no by-id link */
        for (size_t h = 1; h < l->n_hosts; h++)
                l->hosts[h].profile = NULL; /* one host is enough here */
        static const char *const none[] = { NULL };
        const struct {
                SpreadMode spread;
                unsigned per_fast;
                const char *const *nvme0, *const *nvme1;
        } two_cases[] = {
                /* 4 per fast device, balanced: every other one */
                { SPREAD_BALANCED, 4, (const char *const[]) { "/dev/sdb", "/dev/sdd", "/dev/sdf", "/dev/sdh", NULL },
                  (const char *const[]) { "/dev/sdc", "/dev/sde", "/dev/sdg", "/dev/sdi", NULL } },
                /* 4 per fast device, fill: the first four on the first */
                { SPREAD_FILL, 4, (const char *const[]) { "/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde", NULL },
                  (const char *const[]) { "/dev/sdf", "/dev/sdg", "/dev/sdh", "/dev/sdi", NULL } },
                /* 8 per fast device, fill: all on the first, the second stays empty */
                { SPREAD_FILL, 8, all8, none },
        };
        for (size_t i = 0; i < ELEMENTSOF(two_cases); i++) {
                pr->spread = two_cases[i].spread;
                pr->data_per_fast = two_cases[i].per_fast;
                _cleanup_(plan_freep) Plan *p = plan_ok(l, two);
                if (p) {
                        check_fast(&p->hosts[0], 0, "/dev/nvme0n1", two_cases[i].nvme0);
                        check_fast(&p->hosts[0], 1, "/dev/nvme1n1", two_cases[i].nvme1);
                }
        }
        /* 3 per fast device: 8 > 2 × 3 */
        pr->data_per_fast = 3;
        Error err;
        CHECK_STREQ(plan_refused(l, two, &err),
                    "host 'bulk1': 8 data devices but 2 fast devices with data_per_fast 3 give 6 slots");
}

static void test_missing_device(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        Error err;
        profile0(l)->data.devices = strv_split("/dev/sdc /dev/sdx", " ");
        CHECK_STREQ(plan_refused(l, s, &err),
                    "host 'node1': device '/dev/sdx' listed in profile 'hc-1u' data not found");
        CHECK_INTEQ(err.code, ENODEV);

        /* no inventory for a host */
        strv_free(profile0(l)->data.devices);
        profile0(l)->data.devices = NULL;
        free(l->hosts[2].name);
        l->hosts[2].name = strdup("node7");
        CHECK_STREQ(plan_refused(l, s, &err), "host 'node7': no inventory");
}

static void test_not_allowed(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        Error err;

        /* node1 may only touch its SSDs and sdc-sde: selected by filters, sdf is simply not taken */
        strv_free(l->hosts[0].allow);
        l->hosts[0].allow = strv_split("/dev/disk/by-id/ata-INTEL_SSDSC2KB480G8_* /dev/sd[c-e]", " ");
        {
                _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
                if (p) {
                        CHECK_INTEQ(strv_length(p->hosts[0].osd_data), 3);
                        CHECK(!strv_contains(p->hosts[0].osd_data, "/dev/sdf"));
                }
        }
        /* listed explicitly: refused */
        profile0(l)->data.devices = strv_split("/dev/sdc /dev/disk/by-id/ata-ST2000NM0135_ZFL01413K", " ");
        CHECK_STREQ(plan_refused(l, s, &err),
                    "host 'node1': device '/dev/sdf' selected as data device is not in the allow-list");
        CHECK_INTEQ(err.code, EPERM);
}

static InvDevice *dev_mut(InventorySet *s, const char *host, const char *path) {
        return (InvDevice *) inventory_find_device(inventory_set_find(s, host), path);
}

/* keep_going: every refused host is listed with its own message, the others are planned;
 * without it the first refusal ends the plan */
static void test_keep_going(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        dev_mut(s, "node1", "/dev/sdd")->content.fstype = strdup("xfs");
        dev_mut(s, "node3", "/dev/sdc")->content.fstype = strdup("ext4");
        _cleanup_(plan_freep) Plan *p = NULL;
        Error err = {};
        PlanOptions po = { .keep_going = true };
        CHECK_INTEQ(plan_compute_ext(l, s, &po, &p, &err), 0);
        CHECK_INTEQ(err.code, 0);
        CHECK_INTEQ(p->n_hosts, 1);
        CHECK_STREQ(p->hosts[0].host, "node2");
        CHECK_INTEQ(p->hosts[0].n_steps, 28);
        CHECK_INTEQ(p->n_refused, 2);
        if (p->n_refused == 2) {
                CHECK_STREQ(p->refused[0].host, "node1");
                CHECK(startswith(p->refused[0].message, "host 'node1': data device '/dev/sdd' carries an existing xfs signature"));
                CHECK_STREQ(p->refused[1].host, "node3");
                CHECK(startswith(p->refused[1].message, "host 'node3': data device '/dev/sdc' carries an existing ext4 signature"));
        }
        /* both in the text and the JSON */
        _cleanup_(freep) char *text = NULL, *json = NULL;
        size_t n;
        FILE *f = open_memstream(&text, &n);
        plan_print(p, f, 0);
        fclose(f);
        CHECK(strstr(text, "host node1: not planned: refused: host 'node1': data device '/dev/sdd'"));
        CHECK(strstr(text, "plan: 28 steps on 1 host, 4 new OSDs, 7.3 TiB raw; fast devices: 360 GiB in cephprov partitions, 6.3 GiB free after; 2 hosts refused\n"));
        f = open_memstream(&json, &n);
        CHECK_INTEQ(plan_print_json(p, f), 0);
        fclose(f);
        CHECK(strstr(json, "\"refused_hosts\": [\n    {\n      \"host\": \"node1\",\n      \"message\": \"host 'node1': data device"));

        /* without keep_going: the first refusal, as before */
        CHECK(startswith(plan_refused(l, s, &err), "host 'node1': data device '/dev/sdd'"));
}

/* sizes in both units: disks are sold in powers of 1000, cephprov reads powers of 1024 */
static void test_size_both(void) {
        char b[80];
        CHECK_STREQ(plan_size_both(2000398934016, b, sizeof b), "2.00 TB = 1.82 TiB");
        CHECK_STREQ(plan_size_both(2 * TiB, b, sizeof b), "2.20 TB = 2 TiB");
        CHECK_STREQ(plan_size_both(480103981056, b, sizeof b), "480.10 GB = 447.13 GiB");
        CHECK_STREQ(plan_size_both(0, b, sizeof b), "0 B = 0 B");
}

static void test_foreign_signature(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        InvDevice *sdd = dev_mut(s, "node2", "/dev/sdd");
        Error err;

        sdd->content.fstype = strdup("xfs");
        CHECK_STREQ(plan_refused(l, s, &err),
                    "host 'node2': data device '/dev/sdd' carries an existing xfs signature; refusing to touch it "
                    "(set wipe: true in profile 'hc-1u' to wipe it)");
        CHECK_INTEQ(err.code, EEXIST);

        profile0(l)->wipe = true;
        _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
        if (!p)
                return;
        const HostPlan *hp = &p->hosts[1];
        CHECK(hp->n_steps > 0);
        if (hp->n_steps == 0)
                return;
        CHECK_INTEQ(hp->steps[0].kind, STEP_WIPE);
        CHECK_STREQ(hp->steps[0].device, "/dev/sdd");
        size_t n_wipe = 0;
        for (size_t i = 0; i < hp->n_steps; i++) {
                const Step *st = &hp->steps[i];
                n_wipe += st->kind == STEP_WIPE;
                if (st->kind == STEP_MAKE_BCACHE_BACKING && streq(st->device, "/dev/sdd"))
                        CHECK(st->n_deps == 1 && st->deps[0] == hp->steps[0].id);
        }
        CHECK_INTEQ(n_wipe, 1);
        /* the other hosts have nothing to wipe */
        CHECK(p->hosts[0].steps[0].kind != STEP_WIPE);
}

/* A BlueStore label whose mkfs never finished: not an OSD to keep, not foreign data to
 * refuse outright; the OSD step carries its uuid for apply to decide. A label that is
 * complete is an OSD (no step); unknown content is still refused. */
static void test_half_made_osd(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("all-flash");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("all-flash", "");
        InvDevice *d = dev_mut(s, "flash2", "/dev/nvme1n1");
        CHECK(d != NULL);
        if (!d)
                return;
        d->content.fstype = strdup("ceph_bluestore");
        d->content.osd = (InvOsd) { .id = -1, .osd_fsid = strdup("0b8c6a4e-8d6f-4f8e-9a57-3c1e5d2f7a10"),
                                    .role = strdup("block"), .objectstore = strdup("bluestore"), .incomplete = true };
        _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
        if (!p)
                return;
        const HostPlan *hp = &p->hosts[1];
        size_t n = 0;
        for (size_t i = 0; i < hp->n_steps; i++) {
                const Step *st = &hp->steps[i];
                if (st->kind != STEP_CREATE_OSD)
                        continue;
                if (streq(st->device, "/dev/nvme1n1")) {
                        CHECK_STREQ(st->half_made_osd_fsid, "0b8c6a4e-8d6f-4f8e-9a57-3c1e5d2f7a10");
                        n++;
                } else
                        CHECK(st->half_made_osd_fsid == NULL);
        }
        CHECK_INTEQ(n, 1);
        CHECK(hp->notes && hp->notes[0] && strstr(hp->notes[0], "half-made BlueStore OSD (osd uuid 0b8c6a4e-"));

        /* whoami written, "ready" not yet: still half-made, not "holds the block of osd.3" */
        d->content.osd.id = 3;
        Plan *p2 = plan_ok(l, s);
        CHECK(p2 && p2->hosts[1].n_steps == hp->n_steps);
        plan_free(p2);

        /* the same label complete: an OSD, nothing to do on that device */
        d->content.osd.incomplete = false;
        p2 = plan_ok(l, s);
        CHECK(p2 && p2->hosts[1].n_steps == hp->n_steps - 1);
        plan_free(p2);

        /* a label we cannot read past its magic: foreign, refused */
        d->content.osd.id = -1;
        Error err;
        CHECK(strstr(plan_refused(l, s, &err), "carries an existing ceph_bluestore signature; refusing to touch it") != NULL);
}

/* What the plan saw of each step's target (sent to the agent as "expect"): the inventory's
 * view, blank after the plan's own wipe, only the size where the plan changes it first. */
static void test_seen(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        InvDevice *sdd = dev_mut(s, "node2", "/dev/sdd");
        sdd->content.fstype = strdup("xfs");
        sdd->content.uuid = strdup("0d0e0f10-1112-4314-9516-171819202122");
        profile0(l)->wipe = true;
        _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
        if (!p)
                return;
        const HostPlan *hp = &p->hosts[1];
        size_t n = 0;
        for (size_t i = 0; i < hp->n_steps; i++) {
                const Step *st = &hp->steps[i];
                CHECK(st->seen.set || st->kind == STEP_BCACHE_ATTACH || st->kind == STEP_BCACHE_TUNE);
                /* who the target is travels with every step that writes a device */
                const InvDevice *sd = inventory_find_device(inventory_set_find(s, "node2"), st->device);
                _cleanup_(freep) char *ident = sd ? plan_device_identity(sd) : NULL;
                /* (a bcache cache's target is its partition, one this plan creates: size only) */
                if (st->seen.set && ident && st->kind != STEP_MAKE_BCACHE_CACHE)
                        CHECK_STREQ(st->seen.identity, ident);
                if (st->kind == STEP_WIPE) {
                        CHECK(ident && startswith(ident, "wwn ") && st->seen.identity);
                        CHECK(st->seen.content);
                        CHECK_STREQ(st->seen.type, "xfs");
                        CHECK_STREQ(st->seen.uuid, sdd->content.uuid);
                        CHECK_INTEQ(st->seen.size, sdd->size);
                        n++;
                }
                if (st->kind == STEP_MAKE_BCACHE_BACKING && streq(st->device, "/dev/sdd")) {
                        CHECK(st->seen.content && !st->seen.type && !st->seen.uuid && !st->seen.pttype);
                        n++;
                }
                if (st->kind == STEP_CREATE_PARTITION) {
                        const InvDevice *f = inventory_find_device(inventory_set_find(s, "node2"), st->device);
                        CHECK(f && st->seen.content && f->ptuuid);
                        if (f && f->ptuuid)
                                CHECK_STREQ(st->seen.ptuuid, f->ptuuid);
                }
                if (st->kind == STEP_CREATE_OSD && streq(st->device, "/dev/sdd")) {
                        /* bcache goes on first: only its size is known */
                        CHECK(st->seen.set && !st->seen.content && st->seen.size == sdd->size);
                        CHECK(st->seen.identity != NULL);
                        CHECK(st->db_seen.set && !st->db_seen.content && st->db_seen.size > 0);
                        /* a DB partition this plan creates: only its size */
                        CHECK(!st->db_seen.identity && !st->db_seen.partuuid && st->db_seen.start == 0);
                        n++;
                }
        }
        CHECK_INTEQ(n, 3);
}

/* An existing partition and a BlueStore label as seen: the disk's identity, PARTUUID,
 * start, size, and the label's osd uuid, whoami and cluster fsid. */
static void test_seen_partition_label(void) {
        InvDevice d = { .path = (char *) "/dev/sdb", .size = 1ULL << 40, .wwn = (char *) "0x5000c500a1b2c3d4" };
        InvPartition p = { .number = 4, .start = 1ULL << 20, .size = 64ULL << 20,
                           .partuuid = (char *) "8d3c1b2a-0f4e-4d5c-9a8b-7c6d5e4f3a2b" };
        p.content = (InvContent) { .fstype = (char *) "ceph_bluestore",
                                   .osd = { .id = 3, .osd_fsid = (char *) "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9",
                                            .cluster_fsid = (char *) "11111111-2222-4333-8444-555555555555",
                                            .role = (char *) "block.db" } };
        StepSeen s = {};
        CHECK(plan_seen_partition(&s, &d, &p) == 0);
        CHECK(s.set && s.content);
        CHECK_STREQ(s.identity, "wwn 0x5000c500a1b2c3d4");
        CHECK_STREQ(s.partuuid, p.partuuid);
        CHECK_INTEQ(s.start, 1ULL << 20);
        CHECK_INTEQ(s.size, 64ULL << 20);
        CHECK_STREQ(s.osd_uuid, "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9");
        CHECK_INTEQ(s.whoami, 3);
        CHECK_STREQ(s.ceph_fsid, "11111111-2222-4333-8444-555555555555");
        plan_seen_done(&s);

        /* a label further in (an OSD on the bcache device this backs) is not this target's */
        d.content = (InvContent) { .fstype = (char *) "bcache", .osd = p.content.osd };
        CHECK(plan_seen_device(&s, &d) == 0);
        CHECK(!s.osd_uuid && !s.partuuid && s.start == 0);
        CHECK_STREQ(s.identity, "wwn 0x5000c500a1b2c3d4");
        plan_seen_done(&s);

        /* no WWN, serial or backing file: no identity (known by its path only) */
        InvDevice bare = { .path = (char *) "/dev/vdb", .size = 1ULL << 30 };
        CHECK(plan_seen_device(&s, &bare) == 0);
        CHECK(s.set && !s.identity);
        plan_seen_done(&s);
}

static void test_mounted_refused(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        InvDevice *sdc = dev_mut(s, "node1", "/dev/sdc");
        Error err;

        sdc->content.fstype = strdup("xfs");
        sdc->content.mountpoint = strdup("/srv/backup");
        profile0(l)->wipe = true;
        CHECK_STREQ(plan_refused(l, s, &err), "host 'node1': data device '/dev/sdc' is in use (mounted at /srv/backup)");
        CHECK_INTEQ(err.code, EBUSY);

        /* held (an md member) is refused too */
        free(sdc->content.mountpoint);
        sdc->content.mountpoint = NULL;
        free(sdc->content.fstype);
        sdc->content.fstype = strdup("linux_raid_member");
        sdc->content.holders = strv_split("md5", " ");
        CHECK_STREQ(plan_refused(l, s, &err), "host 'node1': data device '/dev/sdc' is in use (held by md5)");

        /* an SSD carrying another OSD's DB is never taken as a data device, even with wipe */
        _cleanup_(layout_freep) Layout *af = load_layout("all-flash");
        _cleanup_(inventory_set_freep) InventorySet *fs = load_inv("all-flash", "-converged");
        InvDevice *n2 = dev_mut(fs, "flash1", "/dev/nvme2n1");
        inv_content_done(&n2->content);
        n2->content.osd.id = 7;
        n2->content.osd.role = strdup("block.db");
        profile0(af)->wipe = true;
        CHECK_STREQ(plan_refused(af, fs, &err), "host 'flash1': data device '/dev/nvme2n1' holds the block.db of osd.7");
}

static void test_keep_partitions(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        Profile *pr = profile0(l);
        Error err;

        pr->keep_partitions[2] = 4;
        CHECK_STREQ(plan_refused(l, s, &err),
                    "host 'node1': partition 4 listed in keep_partitions of profile 'hc-1u' not found on fast device '/dev/sda' (wrong device?)");

        /* an md member left out of keep_partitions: the hint is to keep it, not wipe: true
         * (which refuses a device with partitions to keep) */
        pr->n_keep_partitions = 2;
        CHECK_STREQ(plan_refused(l, s, &err),
                    "host 'node1': fast device '/dev/sda' carries partition 3 ('swap', 256 GiB) that is neither "
                    "cephprov's nor in keep_partitions; refusing to touch it (add 3 to keep_partitions in profile 'hc-1u' to keep it)");
        pr->keep_partitions[2] = 3;
        pr->n_keep_partitions = 3;

        /* without keep_partitions the md partitions are foreign: refused, and wipe cannot help
         * while they are in use */
        pr->n_keep_partitions = 0;
        CHECK_STREQ(plan_refused(l, s, &err),
                    "host 'node1': fast device '/dev/sda' carries partition 1 ('BIOS boot', 1 MiB) that is neither "
                    "cephprov's nor in keep_partitions; refusing to touch it (add 1 to keep_partitions in profile 'hc-1u' to keep it, "
                    "or set wipe: true there to wipe the whole device)");
        pr->wipe = true;
        CHECK_STREQ(plan_refused(l, s, &err),
                    "host 'node1': fast device '/dev/sda' partition 2 is in use (held by md0); refusing to wipe it");
}

/* A blank fast device gets a GPT first; partitions start at 1 MiB. */
static void test_blank_fast_device(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-2-bulk-nvme");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-2-bulk-nvme", "");
        _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
        if (!p)
                return;
        const HostPlan *hp = &p->hosts[0];
        CHECK(hp->n_steps > 2);
        CHECK_INTEQ(hp->steps[0].kind, STEP_CREATE_GPT);
        CHECK_STREQ(hp->steps[0].device, "/dev/nvme0n1");
        CHECK_INTEQ(hp->steps[1].kind, STEP_CREATE_PARTITION);
        CHECK_INTEQ(hp->steps[1].offset, PLAN_ALIGN);
        CHECK_INTEQ(hp->steps[1].partnum, 1);
        CHECK(hp->steps[1].n_deps == 1 && hp->steps[1].deps[0] == 1);
        /* 11 % of 7.68 TB, rounded down to MiB */
        CHECK_INTEQ(hp->steps[2].size, align_down((uint64_t) (7681501126656.0 * 0.11), PLAN_ALIGN));
        CHECK_INTEQ(hp->steps[2].role, PART_ROLE_CACHE);
        size_t n_osd = 0;
        for (size_t i = 0; i < hp->n_steps; i++)
                if (hp->steps[i].kind == STEP_CREATE_OSD) {
                        n_osd++;
                        CHECK_STREQ(hp->steps[i].device_class, "hdd");
                }
        CHECK_INTEQ(n_osd, 8);
        /* the OS disk, mounted and not allowed, is never selected */
        CHECK(!strv_contains(hp->osd_data, "/dev/sda"));
}

/* Scenario 3: journals kept, DBs after them; FileStore OSDs noted, not recreated. With
 * larger DBs the journals are in the way: refused. */
static void test_scenario3(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-3-filestore");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-3-filestore", "");
        {
                _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
                if (!p)
                        return;
                const HostPlan *hp = &p->hosts[0];
                CHECK_INTEQ(hp->n_steps, 6);
                CHECK_INTEQ(strv_length(hp->notes), 6);
                for (size_t i = 0; i < hp->n_steps; i++) {
                        CHECK_INTEQ(hp->steps[i].kind, STEP_CREATE_PARTITION);
                        CHECK(hp->steps[i].partnum >= 4);
                        CHECK(hp->steps[i].offset >= 180 * GiB + PLAN_ALIGN);
                }
                CHECK(hp->notes && strstr(hp->notes[0], "osd.0 on /dev/sdc is filestore"));
        }
        Error err;
        /* without keep_partitions the journals are foreign, and wipe cannot take them from
         * their live OSDs */
        size_t n_keep = profile0(l)->n_keep_partitions;
        profile0(l)->n_keep_partitions = 0;
        CHECK_STREQ(plan_refused(l, s, &err),
                    "host 'fs1': fast device '/dev/sda' carries partition 1 ('ceph journal', 60 GiB) that is neither "
                    "cephprov's nor in keep_partitions; refusing to touch it (add 1 to keep_partitions in profile 'filestore-legacy' to keep it, "
                    "or set wipe: true there to wipe the whole device)");
        profile0(l)->wipe = true;
        CHECK_STREQ(plan_refused(l, s, &err),
                    "host 'fs1': fast device '/dev/sda' partition 1 is in use (holds the journal of osd.0); refusing to wipe it");
        profile0(l)->wipe = false;
        profile0(l)->n_keep_partitions = n_keep;

        profile0(l)->db_size.bytes = 70 * GiB;
        const char *msg = plan_refused(l, s, &err);
        _cleanup_(freep) char *want70 = strprintf("%s:36:14: host 'fs1': not enough free space on '/dev/sda' for the 70 GiB DB "
                                                  "partition of slot 2 (/dev/sde): it needs 70 GiB", l->path);
        CHECK(startswith(msg, want70));

        /* osd.0's HDD blank while its DB partition carries osd.0's label: osd.0's, not a new
         * OSD's (a disk that lost its data, or a rebuild that died half-way) */
        profile0(l)->db_size.bytes = 60 * GiB;
        _cleanup_(inventory_set_freep) InventorySet *conv = load_inv("scenario-3-filestore", "-converged");
        InvDevice *sdc = dev_mut(conv, "fs1", "/dev/sdc");
        inv_content_done(&sdc->content);
        _cleanup_(freep) char *dbname = name_for(conv, "fs1", "/dev/sdc", PART_ROLE_DB);
        _cleanup_(freep) char *refused = strprintf(
                "host 'fs1': osd.0's data device is gone (its DB partition 4 '%s' on /dev/sda carries its label) and "
                "/dev/sdc (wwn %s) carries no OSD: cephprov builds no new OSD beside a dead one. If /dev/sdc took its "
                "place, `cephprov replace LAYOUT fs1 /dev/sdc` rebuilds osd.0 there with its id (a `cephprov convert` that "
                "was rebuilding it: run it again); if it is gone for good, purge it (`ceph osd purge 0`) and delete its "
                "partitions first", dbname, sdc->wwn);
        CHECK_STREQ(plan_refused(l, conv, &err), refused);
        /* mid-conversion: osd.0's HDD zapped, its new DB partition made (no label yet) → its
         * OSD is created on that DB partition */
        InvDevice *sda = dev_mut(conv, "fs1", "/dev/sda");
        for (size_t i = 0; i < sda->n_partitions; i++)
                if (streq_ptr(sda->partitions[i].name, dbname))
                        inv_osd_done(&sda->partitions[i].content.osd);
        _cleanup_(plan_freep) Plan *p = plan_ok(l, conv);
        if (!p)
                return;
        CHECK_INTEQ(p->hosts[0].n_steps, 1);
        CHECK_INTEQ(p->hosts[1].n_steps, 0);
        if (p->hosts[0].n_steps == 1) {
                const Step *st = &p->hosts[0].steps[0];
                CHECK_INTEQ(st->kind, STEP_CREATE_OSD);
                CHECK_STREQ(st->device, "/dev/sdc");
                CHECK_STREQ(st->db_partname, dbname);
                CHECK_INTEQ(st->db_partnum, 4);
                CHECK_INTEQ(st->n_deps, 0);
                CHECK(!st->data_is_bcache);
        }
}

/* What the agent reports of a FileStore OSD (docs/inventory.md) decides between "that OSD,
 * kept with a note" and "a mounted partition, refused": the mount alone never makes an OSD. */
static void test_filestore_mounted(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-3-filestore");
        Error err;

        /* the data partition mounted where a FileStore OSD would be, but its files did not
         * say FileStore (the agent left osd unset): refused exactly as any mount, with or
         * without wipe */
        {
                _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-3-filestore", "");
                InvDevice *sdc = dev_mut(s, "fs1", "/dev/sdc");
                InvContent *pc = &sdc->partitions[0].content;
                CHECK_STREQ(pc->mountpoint, "/var/lib/ceph/osd/ceph-0");
                inv_content_done(pc);
                pc->fstype = strdup("xfs");
                pc->mountpoint = strdup("/var/lib/ceph/osd/ceph-0");
                CHECK_STREQ(plan_refused(l, s, &err),
                            "host 'fs1': data device '/dev/sdc' partition 1 is in use (mounted at /var/lib/ceph/osd/ceph-0)");
                CHECK_INTEQ(err.code, EBUSY);
                profile0(l)->wipe = true;
                CHECK_STREQ(plan_refused(l, s, &err),
                            "host 'fs1': data device '/dev/sdc' partition 1 is in use (mounted at /var/lib/ceph/osd/ceph-0)");
                profile0(l)->wipe = false;

                /* what the agent says of an unmounted "ceph data" partition is a hint (no id):
                 * not an OSD to keep, foreign data to refuse */
                free(pc->mountpoint);
                pc->mountpoint = NULL;
                pc->osd.osd_fsid = strdup("d701884d-32c6-51e3-99e7-68ba0e64e168");
                pc->osd.role = strdup("data");
                pc->osd.objectstore = strdup("filestore");
                pc->osd.unconfirmed = true;
                CHECK(startswith(plan_refused(l, s, &err), "host 'fs1': data device '/dev/sdc' has a gpt partition table with 1 partition; refusing to touch it"));
                CHECK_INTEQ(err.code, EEXIST);
        }

        /* a recognised FileStore OSD on partition 1 does not vouch for a mount on partition 2 */
        {
                _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-3-filestore", "");
                InvDevice *sdd = dev_mut(s, "fs1", "/dev/sdd");
                InvPartition *np = realloc(sdd->partitions, sizeof(InvPartition) * (sdd->n_partitions + 1));
                CHECK(np != NULL);
                if (!np)
                        return;
                sdd->partitions = np;
                InvPartition *p2 = &sdd->partitions[sdd->n_partitions++];
                *p2 = (InvPartition) { .number = 2, .start = 2 * GiB, .size = GiB, .node = strdup("/dev/sdd2") };
                p2->content = (InvContent) { .osd = { .id = -1 }, .fstype = strdup("ext4"), .mountpoint = strdup("/srv/scratch") };
                CHECK_STREQ(plan_refused(l, s, &err),
                            "host 'fs1': data device '/dev/sdd' partition 2 is in use (mounted at /srv/scratch)");
                CHECK_INTEQ(err.code, EBUSY);
                /* unmounted, it is just there: the OSD on partition 1 is kept with its note */
                free(p2->content.mountpoint);
                p2->content.mountpoint = NULL;
                _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
                if (p)
                        CHECK(p->hosts[0].notes && strv_length(p->hosts[0].notes) == 6 &&
                              strstr(p->hosts[0].notes[1], "osd.1 on /dev/sdd is filestore"));
        }
}

/* Partly converged: tuning drifted on one device, an OSD missing on another. */
static void test_partial(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "-converged");
        InvDevice *sdc = dev_mut(s, "node1", "/dev/sdc");
        free(sdc->content.bcache.cache_mode);
        sdc->content.bcache.cache_mode = strdup("writethrough");
        sdc->content.bcache.sequential_cutoff = 4 * MiB;
        InvDevice *sde = dev_mut(s, "node1", "/dev/sde");
        InvDevice *bc = dev_mut(s, "node1", sde->content.bcache.bcache_device);
        inv_content_done(&bc->content);
        /* the OSD never made on its bcache device: its DB partition carries no label either */
        _cleanup_(freep) char *dbname = name_for(s, "node1", "/dev/sde", PART_ROLE_DB);
        InvDevice *sda = dev_mut(s, "node1", "/dev/sda");
        InvOsd *dblabel = NULL;
        for (size_t i = 0; i < sda->n_partitions; i++)
                if (streq_ptr(sda->partitions[i].name, dbname))
                        dblabel = &sda->partitions[i].content.osd;
        CHECK(dblabel && dblabel->id == 2);
        if (!dblabel)
                return;
        InvOsd saved = *dblabel;
        *dblabel = (InvOsd) { .id = -1 };

        _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
        if (!p)
                return;
        const HostPlan *hp = &p->hosts[0];
        CHECK_INTEQ(hp->n_steps, 2);
        _cleanup_(freep) char *txt = plan_text(p);
        if (hp->n_steps != 2)
                fprintf(stderr, "%s", txt);
        if (hp->n_steps == 2) {
                CHECK_INTEQ(hp->steps[0].kind, STEP_BCACHE_TUNE);
                CHECK_STREQ(hp->steps[0].device, "/dev/sdc");
                CHECK_INTEQ(hp->steps[1].kind, STEP_CREATE_OSD);
                CHECK_STREQ(hp->steps[1].device, "/dev/sde");
                CHECK(hp->steps[1].data_is_bcache);
                CHECK_STREQ(hp->steps[1].db_partname, dbname);
        }
        CHECK_INTEQ(p->hosts[1].n_steps, 0);

        /* its DB partition still labelled for osd.2: osd.2's, no new OSD there */
        *dblabel = saved;
        Error err0;
        const char *why = plan_refused(l, s, &err0);
        CHECK(why && startswith(why, "host 'node1': osd.2's data device is gone (its DB partition"));
        CHECK(why && strstr(why, "`cephprov replace LAYOUT node1 /dev/sde` rebuilds osd.2 there with its id"));

        /* OSDs of another cluster are refused when the layout names its fsid */
        l->fsid = strdup("0b0c0d0e-0000-4000-8000-000000000001");
        Error err;
        _cleanup_(freep) char *want = strprintf(
                "host 'node1': data device '/dev/sdc' carries osd.0 of another cluster (fsid %s, the layout says %s)",
                inventory_find_device(inventory_set_find(s, "node1"), "/dev/bcache0")->content.osd.cluster_fsid, l->fsid);
        CHECK_STREQ(plan_refused(l, s, &err), want);
}

static Layout *layout_str(const char *yaml) {
        Layout *l = NULL;
        Error err = {};
        int r = layout_load_string("test.yaml", yaml, strlen(yaml), &l, &err);
        if (r < 0)
                fprintf(stderr, "%s\n", err.message);
        CHECK_INTEQ(r, 0);
        if (!l)
                exit(1);
        return l;
}

/* ---- identity: a device is who it is, not where it sits (docs/plan.md "Identity") ---- */

static void drop_device(InventorySet *s, const char *host, const char *path) {
        Inventory *inv = (Inventory *) inventory_set_find(s, host);
        for (size_t i = 0; i < inv->n_devices; i++)
                if (streq(inv->devices[i].path, path)) {
                        inv_device_done(&inv->devices[i]);
                        memmove(&inv->devices[i], &inv->devices[i + 1], sizeof(InvDevice) * (inv->n_devices - i - 1));
                        inv->n_devices--;
                        return;
                }
        CHECK(false);
}

/* `path` becomes a new blank disk: no signature, no table, a serial and WWN of its own */
static void blank_device(InventorySet *s, const char *host, const char *path, const char *serial) {
        InvDevice *d = dev_mut(s, host, path);
        inv_content_done(&d->content);
        for (size_t i = 0; i < d->n_partitions; i++) {
                inv_content_done(&d->partitions[i].content);
                free(d->partitions[i].node);
                free(d->partitions[i].partuuid);
                free(d->partitions[i].name);
                free(d->partitions[i].type_guid);
        }
        free(d->partitions);
        d->partitions = NULL;
        d->n_partitions = 0;
        free(d->pttype);
        free(d->ptuuid);
        d->pttype = d->ptuuid = NULL;
        free(d->serial);
        d->serial = strdup(serial);
        free(d->wwn);
        d->wwn = NULL;
        strv_free(d->links);
        d->links = NULL;
        _cleanup_(freep) char *byid = strprintf("/dev/disk/by-id/ata-ST2000NM0135_%s", serial);
        strv_extend(&d->links, byid);
        /* the bcache device it backed is gone with it */
        Inventory *inv = (Inventory *) inventory_set_find(s, host);
        for (size_t i = 0; i < inv->n_devices; i++) {
                InvDevice *b = &inv->devices[i];
                bool backed = false;
                for (size_t k = 0; k < inv->n_devices; k++)
                        backed = backed || streq_ptr(inv->devices[k].content.bcache.bcache_device, b->path);
                if (startswith(b->name, "bcache") && !backed)
                        inv_content_done(&b->content);
        }
}

/* two devices trade kernel names (a reboot that renamed /dev/sdX) */
static void swap_names(InventorySet *s, const char *host, const char *a, const char *b) {
        InvDevice *x = dev_mut(s, host, a), *y = dev_mut(s, host, b);
        char *t = x->path; x->path = y->path; y->path = t;
        t = x->name; x->name = y->name; y->name = t;
        for (size_t i = 0; i < x->n_partitions || i < y->n_partitions; i++)
                CHECK(false); /* data devices without partitions only */
}

static void check_noop(const Layout *l, const InventorySet *s, const char *what) {
        _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
        if (!p)
                return;
        CHECK_INTEQ(plan_count_steps(p), 0);
        for (size_t i = 0; i < p->n_hosts; i++) {
                CHECK_INTEQ(p->hosts[i].n_drift, 0);
                CHECK_INTEQ(strv_length(p->hosts[i].notes), 0);
        }
        if (plan_count_steps(p) != 0 || p->hosts[0].n_drift != 0) {
                _cleanup_(freep) char *txt = plan_text(p);
                fprintf(stderr, "%s:\n%s", what, txt);
        }
}

static void test_identity(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        /* "-converged": partitions named by tag; "-converged-legacy": the same hosts converged by
         * a release before identity names (cp:db:SLOT:HOST) */
        static const char *const suffixes[] = { "-converged", "-converged-legacy" };
        for (size_t v = 0; v < ELEMENTSOF(suffixes); v++) {
                const char *sfx = suffixes[v];
                /* converged: a no-op, also with every HDD's /dev name moved */
                {
                        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", sfx);
                        check_noop(l, s, sfx);
                        swap_names(s, "node1", "/dev/sdc", "/dev/sdf");
                        swap_names(s, "node1", "/dev/sdd", "/dev/sde");
                        check_noop(l, s, "names moved");
                }
                /* osd.1's HDD (sdd) gone: osd.1 named, its partitions its own (not drift), no step;
                 * the healthy osd.3 (sdf, now third of three) keeps its partitions */
                {
                        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", sfx);
                        drop_device(s, "node1", "/dev/sdd");
                        _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
                        if (!p)
                                continue;
                        const HostPlan *h = &p->hosts[0];
                        CHECK_INTEQ(h->n_steps, 0);
                        CHECK_INTEQ(h->n_drift, 0);
                        CHECK_INTEQ(strv_length(h->notes), 1);
                        CHECK(h->notes && startswith(h->notes[0], "osd.1's data device is gone: its DB partition 4 'cp:db:"));
                        CHECK(h->notes && strstr(h->notes[0], "on /dev/sdb is kept for it (once a new disk is in, "
                                                              "`cephprov replace LAYOUT node1 DEVICE` rebuilds it there"));
                        CHECK_INTEQ(h->n_osds, 3);
                        /* blast radius as it is: sdb serves only sdf now */
                        CHECK(h->n_fast == 2 && strv_length(h->fast[1].data_devices) == 1 &&
                              streq(h->fast[1].data_devices[0], "/dev/sdf"));
                        _cleanup_(freep) char *txt = plan_text(p);
                        CHECK(txt && strstr(txt, "host node1: nothing to do\n"));
                        CHECK(txt && !strstr(txt, "drift"));
                }
                /* a blank disk with another serial where osd.1's was: refused, osd.1 and replace
                 * named; with keep_going the other hosts are planned */
                {
                        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", sfx);
                        blank_device(s, "node1", "/dev/sdd", "ZFL01411R");
                        Error err;
                        const char *why = plan_refused(l, s, &err);
                        CHECK(why && startswith(why, "host 'node1': osd.1's data device is gone (its DB partition 4 'cp:db:"));
                        CHECK(why && strstr(why, "on /dev/sdb carries its label) and /dev/sdd (serial ST2000NM0135 ZFL01411R) "
                                                 "carries no OSD: cephprov builds no new OSD beside a dead one. If /dev/sdd "
                                                 "took its place, `cephprov replace LAYOUT node1 /dev/sdd` rebuilds osd.1 "
                                                 "there with its id"));
                        /* as BlueStore writes them: a DB label has no whoami, the OSD is named by
                         * its uuid (and never taken for purged) */
                        {
                                InvDevice *sdb = dev_mut(s, "node1", "/dev/sdb");
                                InvOsd *lab = &sdb->partitions[3].content.osd;
                                CHECK(lab->id == 1 && lab->osd_fsid);
                                int id1 = lab->id;
                                lab->id = -1;
                                _cleanup_(freep) char *w = strprintf(
                                        "host 'node1': the OSD of osd uuid %s's data device is gone", lab->osd_fsid);
                                why = plan_refused(l, s, &err);
                                CHECK(why && startswith(why, w));
                                CHECK(why && strstr(why, "purge it (`ceph osd purge ID`, the id that `ceph osd dump` gives uuid"));
                                lab->id = id1;
                        }
                        Plan *p = NULL;
                        err = (Error) {};
                        CHECK(plan_compute_ext(l, s, &(PlanOptions) { .keep_going = true }, &p, &err) == 0);
                        CHECK(p && p->n_refused == 1 && streq(p->refused[0].host, "node1") && p->n_hosts == 2);
                        plan_free(p);
                        /* the same disk blanked in place (same serial): osd.1's DB label decides */
                        _cleanup_(inventory_set_freep) InventorySet *s2 = load_inv("scenario-1-hyperconverged", sfx);
                        blank_device(s2, "node1", "/dev/sdd", "ZFL01411K");
                        dev_mut(s2, "node1", "/dev/sdd")->wwn = strdup("0x5000c50000000011");
                        why = plan_refused(l, s2, &err);
                        CHECK(why && startswith(why, "host 'node1': osd.1's data device is gone"));
                        /* ... unless the cluster says osd.1 never booted (an apply killed in its
                         * mkfs): then the partition is that disk's, by its name, and the OSD is
                         * made there again (the agent decides on the label from the OSD map) */
                        {
                                Inventory *n1 = (Inventory *) inventory_set_find(s2, "node1");
                                InvOsd *dbl = &dev_mut(s2, "node1", "/dev/sdb")->partitions[3].content.osd;
                                const char *u = dbl->osd_fsid;
                                _cleanup_(freep) char *uuid = u ? strdup(u) : NULL;
                                /* as BlueStore writes it (no whoami) and blkid sees it, then named
                                 * from the OSD map as the controller does (name_orphan_labels()) */
                                InvContent *dbc = &dev_mut(s2, "node1", "/dev/sdb")->partitions[3].content;
                                free(dbc->fstype);
                                dbc->fstype = strdup("ceph_bluestore");
                                dbl->id = -1;
                                CHECK(uuid && plan_inventory_set_label_id(n1, uuid, 1) == 1);
                                CHECK(dbl->id == 1 && dbl->id_from_map);
                                CHECK(uuid && plan_inventory_mark_stale_label(n1, uuid) == 1);
                                /* its bcache device is gone: the cache set is still attached */
                                _cleanup_(plan_freep) Plan *pr = plan_ok(l, s2);
                                const HostPlan *h = pr ? &pr->hosts[0] : NULL;
                                CHECK(h && h->n_new_osds == 1);
                                for (size_t k = 0; h && k < h->n_steps; k++)
                                        if (h->steps[k].kind == STEP_CREATE_OSD) {
                                                CHECK_STREQ(h->steps[k].device, "/dev/sdd");
                                                CHECK_STREQ(h->steps[k].db_partname,
                                                            dev_mut(s2, "node1", "/dev/sdb")->partitions[3].name);
                                                /* what the plan saw of the DB partition is what its
                                                 * label says: its osd uuid, and no whoami (the id
                                                 * came from the OSD map, not from the label: the
                                                 * agent, which reads the label, must find it equal) */
                                                const StepSeen *ds = &h->steps[k].db_seen;
                                                CHECK(ds->set && ds->osd_uuid && strcasecmp(ds->osd_uuid, uuid) == 0);
                                                CHECK(ds->whoami == -1);
                                        }
                                CHECK(h && h->n_drift == 0);
                        }
                        /* the cluster purged osd.1: its partitions are drift (not reused: nothing
                         * says they are the new disk's), and the new disk's own do not fit
                         * beside them until they are deleted, as the refusal says */
                        int ids[] = { 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
                        p = NULL;
                        err = (Error) {};
                        CHECK(plan_compute_ext(l, s, &(PlanOptions) { .osd_ids_known = true, .osd_ids_in_use = ids,
                                                                      .n_osd_ids_in_use = ELEMENTSOF(ids) }, &p, &err) < 0);
                        CHECK(strstr(err.message, "host 'node1': not enough free space on '/dev/sdb' for the 30 GiB DB "
                                                  "partition of slot 1 (/dev/sdd)"));
                        plan_free(p);
                }
        }
}

/* data.count: a host with another number of data devices is refused with both numbers */
static void test_data_count(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "-converged");
        profile0(l)->data.count = 4;
        profile0(l)->data.count_mark = (YamlMark) { .line = 23, .column = 14 };
        {
                _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
                CHECK(p && plan_count_steps(p) == 0);
        }
        drop_device(s, "node1", "/dev/sdd");
        Error err;
        _cleanup_(freep) char *want = strprintf("%s:23:14: host 'node1': profile '%s' data selects 3 devices, its count says 4 "
                                                "(/dev/sdc, /dev/sde, /dev/sdf)", l->path, profile0(l)->name);
        CHECK_STREQ(plan_refused(l, s, &err), want);
}

/* FileStore journals and separate WAL partitions, on scenario 1's hosts (node1 only). */
static void test_journal_and_wal(void) {
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        static const char head[] =
                "cluster: {name: ceph, admin_host: node1, objectstore: %s}\n"
                "profiles:\n"
                "  p:\n"
                "    allow: ['/dev/sd*']\n"
                "    data: {devices: [/dev/sdc, /dev/sdd]}\n"
                "    fast: {devices: [/dev/disk/by-id/ata-INTEL_SSDSC2KB480G8_PHYF810700480BGN], keep_partitions: [1, 2, 3]}\n"
                "    %s\n"
                "    osd: {device_class: archive}\n"
                "hosts:\n"
                "  - {name: node1, profile: p, transport: local}\n";
        {
                _cleanup_(freep) char *y = strprintf(head, "filestore", "journal_size: 10G");
                _cleanup_(layout_freep) Layout *l = layout_str(y);
                _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
                if (p) {
                        const HostPlan *hp = &p->hosts[0];
                        CHECK_INTEQ(hp->n_steps, 4);
                        CHECK_STREQ(hp->steps[0].type_guid, CEPH_GUID_JOURNAL);
                        _cleanup_(freep) char *jn = name_for(s, "node1", "/dev/sdc", PART_ROLE_JOURNAL);
                        CHECK_STREQ(hp->steps[0].partname, jn);
                        CHECK_INTEQ(hp->steps[0].size, 10 * GiB);
                        CHECK_INTEQ(hp->steps[2].kind, STEP_CREATE_OSD);
                        CHECK_STREQ(hp->steps[2].journal_partname, jn);
                        CHECK(hp->steps[2].db_device == NULL);
                        CHECK_INTEQ(hp->steps[2].objectstore, OBJECTSTORE_FILESTORE);
                        CHECK_STREQ(hp->steps[2].device_class, "archive");
                        CHECK_STREQ(hp->fast[0].fast_device, "/dev/sda");
                }
        }
        {
                _cleanup_(freep) char *y = strprintf(head, "bluestore", "db_size: 1%\n    wal_size: 2G");
                _cleanup_(layout_freep) Layout *l = layout_str(y);
                _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
                if (p) {
                        const HostPlan *hp = &p->hosts[0];
                        CHECK_INTEQ(hp->n_steps, 6);
                        CHECK_INTEQ(hp->steps[0].role, PART_ROLE_DB);
                        CHECK_INTEQ(hp->steps[0].size, align_down(480103981056 / 100, PLAN_ALIGN));
                        CHECK_INTEQ(hp->steps[1].role, PART_ROLE_WAL);
                        CHECK_STREQ(hp->steps[1].type_guid, CEPH_GUID_BLOCK_WAL);
                        CHECK_INTEQ(hp->steps[1].offset, hp->steps[0].offset + hp->steps[0].size);
                        const Step *osd = &hp->steps[4];
                        CHECK_INTEQ(osd->kind, STEP_CREATE_OSD);
                        _cleanup_(freep) char *wn = name_for(s, "node1", "/dev/sdc", PART_ROLE_WAL);
                        CHECK_STREQ(osd->wal_partname, wn);
                        CHECK_INTEQ(osd->wal_partnum, 5);
                        /* its DB and WAL, then every partition step of its fast device (the
                         * last one: the partition steps of a device are a chain) */
                        CHECK(osd->n_deps == 3 && osd->deps[0] == 1 && osd->deps[1] == 2 && osd->deps[2] == 4);
                }
        }
        /* an existing cephprov partition smaller than wanted is refused, never resized */
        {
                _cleanup_(freep) char *y = strprintf(head, "bluestore", "db_size: 30G");
                _cleanup_(layout_freep) Layout *l = layout_str(y);
                InvDevice *sda = dev_mut(s, "node1", "/dev/sda");
                InvPartition *n = realloc(sda->partitions, sizeof(InvPartition) * (sda->n_partitions + 1));
                if (!n)
                        exit(1);
                sda->partitions = n;
                const InvPartition *last = &n[sda->n_partitions - 1];
                n[sda->n_partitions] = (InvPartition) {
                        .number = 4,
                        .start = align_up(last->start + last->size, PLAN_ALIGN),
                        .size = 20 * GiB,
                        .name = strdup("cp:db:0:node1"),
                        .type_guid = strdup(CEPH_GUID_BLOCK_DB),
                        .content = { .osd = { .id = -1 }, .bcache = { .writeback_percent = -1, .hit_ratio = -1 } },
                };
                sda->n_partitions++;
                Error err;
                CHECK_STREQ(plan_refused(l, s, &err),
                            "host 'node1': existing partition 4 'cp:db:0:node1' on '/dev/sda' is 20 GiB, the layout wants 30 GiB "
                            "(cephprov never resizes partitions)");
        }
}

static void test_bcache_unavailable_noted(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        ((Inventory *) inventory_set_find(s, "node3"))->bcache_available = false;
        _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
        if (!p)
                return;
        CHECK(p->hosts[0].notes == NULL);
        CHECK_INTEQ(strv_length(p->hosts[2].notes), 1);
        CHECK(p->hosts[2].notes && startswith(p->hosts[2].notes[0], "bcache is not available on this host"));
}

/* Cephprov partitions the layout no longer asks for are reported, with size and device,
 * in text and JSON; no step removes them. */
static void test_drift(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "-converged");
        /* bcache: false after the hosts were converged with bcache */
        profile0(l)->bcache.enabled = false;
        /* and a DB partition of a slot that no longer exists (a 5th HDD removed) */
        InvDevice *sdb = dev_mut(s, "node2", "/dev/sdb");
        InvPartition *n = realloc(sdb->partitions, sizeof(InvPartition) * (sdb->n_partitions + 1));
        if (!n)
                exit(1);
        sdb->partitions = n;
        uint64_t end = 0;
        for (size_t i = 0; i < sdb->n_partitions; i++)
                end = MAX(end, n[i].start + n[i].size);
        n[sdb->n_partitions++] = (InvPartition) {
                .number = 9, .start = align_up(end, PLAN_ALIGN), .size = 2 * GiB,
                .name = strdup("cp:db:5:node2"), .type_guid = strdup(CEPH_GUID_BLOCK_DB),
                .content = { .osd = { .id = -1 }, .bcache = { .writeback_percent = -1, .hit_ratio = -1 } },
        };
        _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
        if (!p)
                return;
        const HostPlan *h1 = &p->hosts[0], *h2 = &p->hosts[1];
        CHECK_INTEQ(h1->n_drift, 4); /* the 4 cache partitions */
        CHECK_INTEQ(h2->n_drift, 5);
        for (size_t i = 0; i < h1->n_drift; i++) {
                CHECK_INTEQ(h1->drift[i].role, PART_ROLE_CACHE);
                CHECK_INTEQ(h1->drift[i].size, 60 * GiB);
                /* the converged hosts' cache partitions are held by their bcache devices */
                CHECK(startswith(h1->drift[i].reason, "the profile has no bcache; it is held by bcache"));
        }
        if (h2->n_drift == 5) {
                const PlanDrift *d = &h2->drift[4];
                CHECK_STREQ(d->device, "/dev/sdb");
                CHECK_INTEQ(d->partnum, 9);
                CHECK_INTEQ(d->role, PART_ROLE_DB);
                CHECK_INTEQ(d->slot, 5);
                CHECK_INTEQ(d->size, 2 * GiB);
                CHECK_STREQ(d->reason, "slot 5 does not exist: the profile selects 4 data devices");
        }
        /* no step removes anything */
        for (size_t i = 0; i < p->n_hosts; i++)
                for (size_t k = 0; k < p->hosts[i].n_steps; k++)
                        CHECK(p->hosts[i].steps[k].kind != STEP_WIPE);

        _cleanup_(freep) char *txt = plan_text(p);
        /* the cache partitions are named by the tags of their HDDs */
        CHECK(txt && strstr(txt, "host node2: nothing to do\n"
                                 "  drift: /dev/sda partition 5 'cp:cache:@"));
        CHECK(txt && strstr(txt, ":node2' (cache, 60 GiB) is cephprov's but not in the "
                                 "layout: the profile has no bcache; it is held by bcache0; no step removes it"));
        CHECK(txt && strstr(txt, "  drift: /dev/sdb partition 9 'cp:db:5:node2' (db, 2 GiB) is cephprov's but not in the layout: "
                                 "slot 5 does not exist: the profile selects 4 data devices; no step removes it (apply never "
                                 "deletes a partition, and `cephprov destroy` takes a whole host: delete it by hand once nothing "
                                 "uses it)\n"));
        CHECK(txt && strstr(txt, "plan: nothing to do on 3 hosts; 13 drifted partitions\n"));
        CHECK(txt && strstr(txt, "  drift: /dev/sdb partition 5 'cp:cache:@"));
        CHECK(txt && strstr(txt, ":node2' (cache, 60 GiB) is cephprov's but not in the "
                                 "layout: the profile has no bcache; it is held by bcache1; no step removes it"));
        /* holding the DB of an OSD whose data device is not on the host: that OSD's, kept and
         * said so, not drift */
        sdb->partitions[sdb->n_partitions - 1].content.osd =
                (InvOsd) { .id = 12, .role = strdup("block.db"), .osd_fsid = strdup("0c0c0c0c-0000-4000-8000-000000000012") };
        Plan *p3 = plan_ok(l, s);
        CHECK(p3 && p3->hosts[1].n_drift == 4 && p3->hosts[1].n_steps == 0);
        CHECK(p3 && strv_length(p3->hosts[1].notes) == 1 &&
              startswith(p3->hosts[1].notes[0], "osd.12's data device is gone: its DB partition 9 'cp:db:5:node2' on "
                                                "/dev/sdb is kept for it"));
        plan_free(p3);
        /* the cluster says osd.12 is purged: the partition is drift again */
        int ids[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
        Plan *p4 = NULL;
        Error e4 = {};
        CHECK(plan_compute_ext(l, s, &(PlanOptions) { .osd_ids_known = true, .osd_ids_in_use = ids, .n_osd_ids_in_use = 12 },
                               &p4, &e4) == 0);
        CHECK(p4 && p4->hosts[1].n_drift == 5 &&
              streq(p4->hosts[1].drift[4].reason, "osd.12, whose block.db it held, is gone from the cluster and its data "
                                                   "device from the host; it holds the block.db of osd.12"));
        plan_free(p4);
        _cleanup_(freep) char *js = plan_json_text(p);
        CHECK(js && strstr(js, "\n      ],\n      \"drift\": [\n        {\n          \"device\": \"/dev/sda\",\n"));
        CHECK(js && strstr(js, "        {\n          \"device\": \"/dev/sdb\",\n          \"partnum\": 9,\n"
                                "          \"partname\": \"cp:db:5:node2\",\n          \"role\": \"db\",\n          \"slot\": 5,\n"
                                "          \"size\": 2147483648,\n"));

        /* a fast device the profile stops selecting: its partitions are drift too */
        profile0(l)->bcache.enabled = true;
        free(profile0(l)->fast.model);
        profile0(l)->fast.model = strdup("no such model");
        profile0(l)->db_size.kind = SIZE_UNSET;
        profile0(l)->bcache.enabled = false;
        Plan *p2 = plan_ok(l, s);
        CHECK(p2 && p2->hosts[0].n_drift == 8);
        if (p2 && p2->hosts[0].n_drift > 0)
                CHECK_STREQ(p2->hosts[0].drift[0].reason,
                            "the profile does not select /dev/sda as a fast device; it holds the block.db of osd.0");
        plan_free(p2);
}

/* Only the hosts asked for are planned: another host's refusal does not block them; hosts
 * without inventory are listed, not fatal. */
static void test_hosts_and_missing(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        dev_mut(s, "node1", "/dev/sdc")->content.fstype = strdup("xfs"); /* node1 is refused */
        Error err;
        CHECK(strstr(plan_refused(l, s, &err), "host 'node1': data device '/dev/sdc' carries an existing xfs signature"));

        char *only[] = { (char *) "node2", NULL };
        PlanOptions o = { .hosts = only };
        _cleanup_(plan_freep) Plan *p = NULL;
        err = (Error) {};
        CHECK_INTEQ(plan_compute_ext(l, s, &o, &p, &err), 0);
        CHECK(p && p->n_hosts == 1 && streq(p->hosts[0].host, "node2") && p->hosts[0].n_steps == 28);

        /* node3 missing from the inventories */
        Inventory *n3 = (Inventory *) inventory_set_find(s, "node3");
        free(n3->host);
        n3->host = strdup("node9");
        plan_free(TAKE_PTR(p));
        CHECK(strstr(plan_refused(l, s, &err), "no inventory") || strstr(err.message, "node1"));
        char *two[] = { (char *) "node2", (char *) "node3", NULL };
        o = (PlanOptions) { .hosts = two, .missing_ok = true };
        CHECK_INTEQ(plan_compute_ext(l, s, &o, &p, &err), 0);
        CHECK(p && p->n_hosts == 1 && strv_length(p->missing_hosts) == 1 && streq(p->missing_hosts[0], "node3"));
        _cleanup_(freep) char *txt = p ? plan_text(p) : NULL;
        CHECK(txt && strstr(txt, "\nhost node3: not planned: the inventory has no entry for it\n"
                                 "plan: 28 steps on 1 host, 4 new OSDs, 7.3 TiB raw; fast devices: 360 GiB in cephprov partitions, "
                                 "6.3 GiB free after; 1 host not planned (no inventory)\n"));
        _cleanup_(freep) char *js = p ? plan_json_text(p) : NULL;
        CHECK(js && strstr(js, "\n  ],\n  \"missing_hosts\": [\n    \"node3\"\n  ],\n  \"refused_hosts\": [\n  ],\n"
                               "  \"result\": \"incomplete\",\n  \"totals\": {\n    \"hosts_planned\": 1,\n"
                               "    \"hosts_missing\": 1,\n"));
        /* without missing_ok the missing host refuses the plan */
        o.missing_ok = false;
        plan_free(TAKE_PTR(p));
        err = (Error) {};
        CHECK(plan_compute_ext(l, s, &o, &p, &err) < 0);
        CHECK_STREQ(err.message, "host 'node3': no inventory");
}

typedef struct Seen {
        size_t n;
        char *text;              /* the hosts printed as the offline plan does */
        FILE *f;
} Seen;

static int seen_host(HostPlan *h, void *userdata, Error *err) {
        Seen *s = userdata;
        if (s->n++ > 0)
                fputc('\n', s->f);
        plan_print_host(h, s->f, 0);
        return 0;
}

/* One host at a time: the same text as the whole plan; a refused host stops the walk after
 * the hosts before it, with its error. */
static void test_compute_each(void) {
        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
        _cleanup_(freep) char *whole = p ? plan_text(p) : NULL;
        Seen seen = {};
        size_t len;
        seen.f = open_memstream(&seen.text, &len);
        PlanSummary sum = {};
        Error err = {};
        CHECK_INTEQ(plan_compute_each(l, s, NULL, seen_host, &seen, &sum, &err), 0);
        fclose(seen.f);
        CHECK_INTEQ(seen.n, 3);
        CHECK_INTEQ(sum.n_hosts, 3);
        CHECK_INTEQ(sum.n_steps, 84);
        CHECK(sum.missing_hosts == NULL);
        CHECK(whole && seen.text && startswith(whole, seen.text));
        free(seen.text);

        dev_mut(s, "node2", "/dev/sdd")->content.fstype = strdup("xfs");
        seen = (Seen) {};
        seen.f = open_memstream(&seen.text, &len);
        CHECK(plan_compute_each(l, s, NULL, seen_host, &seen, NULL, &err) < 0);
        fclose(seen.f);
        CHECK_INTEQ(seen.n, 1); /* node1 only */
        CHECK(strstr(err.message, "host 'node2': data device '/dev/sdd' carries an existing xfs signature") != NULL);
        free(seen.text);
}

static void test_osd_ids(void) {
        int *ids = NULL;
        size_t n = 0;
        Error err = {};
        CHECK_INTEQ(plan_parse_osd_ids("[0, 1, 2, 5, 3, 1]\n", &ids, &n, &err), 0);
        CHECK(n == 5 && ids && ids[0] == 0 && ids[3] == 3 && ids[4] == 5);
        free(ids);
        CHECK_INTEQ(plan_parse_osd_ids("0\n1\n7\n", &ids, &n, &err), 0);
        CHECK(n == 3 && ids[2] == 7);
        free(ids);
        CHECK_INTEQ(plan_parse_osd_ids("", &ids, &n, &err), 0);
        CHECK_INTEQ(n, 0);
        free(ids);
        CHECK(plan_parse_osd_ids("[0, x]", &ids, &n, &err) < 0);
        CHECK(plan_parse_osd_ids("[0, 1", &ids, &n, &err) < 0);
        CHECK(plan_parse_osd_ids("-3", &ids, &n, &err) < 0);

        _cleanup_(layout_freep) Layout *l = load_layout("scenario-1-hyperconverged");
        _cleanup_(inventory_set_freep) InventorySet *s = load_inv("scenario-1-hyperconverged", "");
        _cleanup_(plan_freep) Plan *p = plan_ok(l, s);
        if (!p)
                return;
        _cleanup_(freep) char *before = plan_text(p);
        CHECK(before && !strstr(before, "OSD ids"));
        /* ids 0-3 and 5 in use: the 12 new OSDs get 4, 6-16 */
        static const int in_use[] = { 0, 1, 2, 3, 5 };
        plan_assign_osd_ids(p, in_use, ELEMENTSOF(in_use));
        CHECK_INTEQ(p->hosts[0].steps[24].osd_id, 4);
        CHECK_INTEQ(p->hosts[0].steps[25].osd_id, 6);
        CHECK_INTEQ(p->hosts[2].steps[27].osd_id, 16);
        _cleanup_(freep) char *txt = plan_text(p);
        CHECK(txt && strstr(txt, "       0  bcache:/dev/sdc  /dev/sda4          -                  hdd    bluestore  osd.4\n"));
        CHECK(txt && strstr(txt, "\nOSD ids: 4, 6-16 (the lowest free ones, in plan order, if nothing else allocates first)\n"));
        _cleanup_(freep) char *js = plan_json_text(p);
        CHECK(js && strstr(js, "\"slot\": 0,\n          \"osd_id\": 4,\n          \"objectstore\""));
}

int main(void) {
        TEST_RUN(test_golden);
        TEST_RUN(test_encrypted);
        TEST_RUN(test_encrypted_existing);
        TEST_RUN(test_converged_empty);
        TEST_RUN(test_scenario1);
        TEST_RUN(test_partition_names);
        TEST_RUN(test_free_space_refused);
        TEST_RUN(test_keep_going);
        TEST_RUN(test_size_both);
        TEST_RUN(test_ratio_refused);
        TEST_RUN(test_spread_2_to_1);
        TEST_RUN(test_spread_8_to_1);
        TEST_RUN(test_missing_device);
        TEST_RUN(test_not_allowed);
        TEST_RUN(test_foreign_signature);
        TEST_RUN(test_half_made_osd);
        TEST_RUN(test_seen);
        TEST_RUN(test_seen_partition_label);
        TEST_RUN(test_mounted_refused);
        TEST_RUN(test_filestore_mounted);
        TEST_RUN(test_keep_partitions);
        TEST_RUN(test_blank_fast_device);
        TEST_RUN(test_scenario3);
        TEST_RUN(test_partial);
        TEST_RUN(test_identity);
        TEST_RUN(test_data_count);
        TEST_RUN(test_journal_and_wal);
        TEST_RUN(test_bcache_unavailable_noted);
        TEST_RUN(test_device_without_by_id);
        TEST_RUN(test_drift);
        TEST_RUN(test_hosts_and_missing);
        TEST_RUN(test_osd_ids);
        TEST_RUN(test_compute_each);
        return test_result();
}
