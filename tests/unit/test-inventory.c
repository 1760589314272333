/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The inventory model's JSON form: round trip on every saved inventory, lookups, errors. */
#include <errno.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "inventory/inventory.h"
#include "test.h"

static const char *const files[] = {
        "inventory-scenario-1-hyperconverged.json",
        "inventory-scenario-1-hyperconverged-converged.json",
        "inventory-scenario-2-bulk-nvme.json",
        "inventory-scenario-2-bulk-nvme-converged.json",
        "inventory-scenario-3-filestore.json",
        "inventory-scenario-3-filestore-converged.json",
        "inventory-all-flash.json",
        "inventory-all-flash-converged.json",
};

static char *data_path(const char *name) {
        const char *dir = getenv("TEST_DATA");
        if (!dir)
                test_skip("TEST_DATA not set (run through meson test)");
        return strprintf("%s/%s", dir, name);
}

static InventorySet *load(const char *name) {
        _cleanup_(freep) char *p = data_path(name);
        InventorySet *s = NULL;
        Error err = {};
        int r = inventory_set_load_file(p, &s, &err);
        if (r < 0)
                fprintf(stderr, "%s: %s\n", name, err.message);
        CHECK(r == 0);
        return s;
}

static char *set_text(const InventorySet *s) {
        _cleanup_json_ json_object *o = NULL;
        if (inventory_set_to_json(s, &o) < 0)
                return NULL;
        return strdup(json_to_pretty(o));
}

static void test_round_trip(void) {
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_(inventory_set_freep) InventorySet *s = load(files[i]);
                if (!s)
                        continue;
                _cleanup_(freep) char *a = set_text(s);
                CHECK(a != NULL);

                /* text → parse → set → text */
                _cleanup_json_ json_object *o = json_tokener_parse(a);
                CHECK(o != NULL);
                _cleanup_(inventory_set_freep) InventorySet *s2 = NULL;
                Error err = {};
                CHECK_INTEQ(inventory_set_from_json(o, &s2, &err), 0);
                if (!s2)
                        continue;
                _cleanup_(freep) char *b = set_text(s2);
                CHECK_STREQ(a, b);
                CHECK_INTEQ(s->n_hosts, s2->n_hosts);
        }
}

/* The saved file itself and our re-serialisation carry the same data (json-c compares
 * objects regardless of key order). */
static void test_file_matches_model(void) {
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_(freep) char *p = data_path(files[i]);
                _cleanup_json_ json_object *file = NULL, *ours = NULL;
                Error err = {};
                CHECK_INTEQ(json_parse_file(p, &file, &err), 0);
                _cleanup_(inventory_set_freep) InventorySet *s = load(files[i]);
                if (!s || !file)
                        continue;
                CHECK_INTEQ(inventory_set_to_json(s, &ours), 0);
                bool same = json_object_equal(file, ours);
                if (!same)
                        fprintf(stderr, "%s differs from its model's JSON form\n", files[i]);
                CHECK(same);
        }
}

static void test_lookups(void) {
        _cleanup_(inventory_set_freep) InventorySet *s = load("inventory-scenario-1-hyperconverged.json");
        if (!s)
                return;
        CHECK_INTEQ(s->n_hosts, 3);
        const Inventory *inv = inventory_set_find(s, "node2");
        CHECK(inv != NULL);
        CHECK(inventory_set_find(s, "node9") == NULL);
        if (!inv)
                return;
        const InvDevice *a = inventory_find_device(inv, "/dev/sda");
        CHECK(a != NULL);
        CHECK(inventory_find_device(inv, "sda") == a);
        CHECK(a && a->links && inventory_find_device(inv, a->links[0]) == a);
        CHECK(inventory_find_device(inv, "/dev/sdz") == NULL);
        if (!a)
                return;
        CHECK_INTEQ(a->n_partitions, 3);
        CHECK_INTEQ(a->partitions[1].number, 2);
        CHECK_STREQ(a->partitions[1].content.fstype, "linux_raid_member");
        CHECK(strv_contains(a->partitions[1].content.holders, "md0"));
        CHECK_INTEQ(a->partitions[2].size, UINT64_C(256) * 1024 * 1024 * 1024);
        CHECK_INTEQ(a->content.osd.id, -1);
        CHECK_INTEQ(a->content.bcache.role, BCACHE_ROLE_NONE);
        const InvDevice *c = inventory_find_device(inv, "/dev/sdc");
        CHECK(c && c->rotational && c->logical_sector_size == 4096);

        _cleanup_(inventory_set_freep) InventorySet *conv = load("inventory-scenario-1-hyperconverged-converged.json");
        inv = conv ? inventory_set_find(conv, "node1") : NULL;
        c = inv ? inventory_find_device(inv, "/dev/sdc") : NULL;
        CHECK(c != NULL);
        if (c) {
                CHECK_INTEQ(c->content.bcache.role, BCACHE_ROLE_BACKING);
                CHECK_STREQ(c->content.bcache.cache_mode, "writeback");
                CHECK_INTEQ(c->content.bcache.writeback_percent, 10);
                const InvDevice *b = inventory_find_device(inv, c->content.bcache.bcache_device);
                CHECK(b && b->content.osd.id >= 0);
        }
}

static int parse_one(const char *text, Error *err) {
        _cleanup_json_ json_object *o = json_tokener_parse(text);
        if (!o)
                return -EBADMSG;
        _cleanup_(inventory_set_freep) InventorySet *s = NULL;
        return inventory_set_from_json(o, &s, err);
}

static void test_errors(void) {
        Error err = {};
        CHECK_INTEQ(parse_one("{\"format\": 2, \"inventories\": []}", &err), -EPROTONOSUPPORT);
        CHECK_STREQ(err.message, "inventory set: unsupported format 2 (expected 1)");

        err = (Error) {};
        CHECK_INTEQ(parse_one("{\"format\": 1, \"inventories\": [{\"host\": \"n1\", \"devices\": "
                              "[{\"name\": \"sdb\"}]}]}", &err), -EINVAL);
        CHECK_STREQ(err.message, "inventory of 'n1': device 'sdb': missing key 'size'");

        err = (Error) {};
        CHECK_INTEQ(parse_one("{\"format\": 1, \"inventories\": [{\"host\": \"n1\", \"devices\": "
                              "[{\"name\": \"sdb\", \"size\": 1048576, \"partitions\": "
                              "[{\"number\": 1, \"start\": 524288, \"size\": 1048576}]}]}]}", &err), -ERANGE);
        CHECK_STREQ(err.message, "inventory of 'n1': device 'sdb': partition 1 extends past the end of the device");

        err = (Error) {};
        CHECK_INTEQ(parse_one("{\"format\": 1, \"inventories\": [{\"host\": \"n1\", \"devices\": []},"
                              "{\"host\": \"n1\", \"devices\": []}]}", &err), -EINVAL);
        CHECK_STREQ(err.message, "inventory set: duplicate host 'n1'");

        err = (Error) {};
        CHECK_INTEQ(parse_one("{\"format\": 1, \"inventories\": [{\"host\": \"n1\", \"devices\": "
                              "[{\"name\": \"sdb\", \"size\": \"big\"}]}]}", &err), -EINVAL);
        CHECK_STREQ(err.message, "inventory of 'n1': device 'sdb': key 'size' has type string, expected int");

        /* defaults: path from the name, sectors 512, nothing known about bcache/OSD */
        _cleanup_json_ json_object *o = json_tokener_parse(
                "{\"format\": 1, \"inventories\": [{\"host\": \"n1\", \"devices\": [{\"name\": \"loop3\", \"size\": 4096}]}]}");
        _cleanup_(inventory_set_freep) InventorySet *s = NULL;
        CHECK_INTEQ(inventory_set_from_json(o, &s, NULL), 0);
        if (s) {
                const InvDevice *d = &s->hosts[0]->devices[0];
                CHECK_STREQ(d->path, "/dev/loop3");
                CHECK_INTEQ(d->logical_sector_size, 512);
                CHECK_INTEQ(d->content.osd.id, -1);
                CHECK_INTEQ(d->content.bcache.writeback_percent, -1);
                CHECK(!d->allowed);
        }

        _cleanup_(inventory_set_freep) InventorySet *none = NULL;
        err = (Error) {};
        CHECK_INTEQ(inventory_set_load_file("/nonexistent/inventory.json", &none, &err), -ENOENT);
        CHECK(strstr(err.message, "'/nonexistent/inventory.json'") != NULL);
}

/* The file is read one inventory at a time (json_parse_file_each): the same result and the
 * same refusals as the tree, with the file named. */
static int load_text(const char *text, InventorySet **ret, Error *err) {
        _cleanup_(freep) char *path = strprintf("%s/cephprov-test-inventory.XXXXXX", getenv("TMPDIR") ?: "/tmp");
        int fd = path ? mkstemp(path) : -1;
        if (fd < 0)
                return -errno;
        FILE *f = fdopen(fd, "w");
        fputs(text, f);
        fclose(f);
        *err = (Error) {};
        int r = inventory_set_load_file(path, ret, err);
        unlink(path);
        return r;
}

static void test_load_streamed(void) {
        static const char one[] = "{\"host\": \"n1\", \"devices\": [{\"name\": \"sdb\", \"size\": 1000}]}";
        InventorySet *s = NULL;
        Error err;
        _cleanup_(freep) char *ok = strprintf("{\"format\": 1, \"inventories\": [%s, %s]}", one,
                                              "{\"host\": \"n2\", \"devices\": []}");
        CHECK_INTEQ(load_text(ok, &s, &err), 0);
        CHECK(s && s->n_hosts == 2 && streq(s->hosts[0]->devices[0].path, "/dev/sdb") && streq(s->hosts[1]->host, "n2"));
        s = inventory_set_free(s);
        /* members in any order, white space anywhere */
        _cleanup_(freep) char *late = strprintf(" {\n\"inventories\" :\n [ %s ] ,\"format\":1 }\n", one);
        CHECK_INTEQ(load_text(late, &s, &err), 0);
        CHECK(s && s->n_hosts == 1);
        s = inventory_set_free(s);
        CHECK_INTEQ(load_text("{\"format\": 1, \"inventories\": []}", &s, &err), 0);
        CHECK(s && s->n_hosts == 0);
        s = inventory_set_free(s);

        CHECK_INTEQ(load_text("{\"format\": 2, \"inventories\": []}", &s, &err), -EPROTONOSUPPORT);
        CHECK(strstr(err.message, "': inventory set: unsupported format 2 (expected 1)") != NULL);
        CHECK_INTEQ(load_text("{\"inventories\": []}", &s, &err), -EINVAL);
        CHECK(strstr(err.message, "format") != NULL);
        CHECK_INTEQ(load_text("{\"format\": 1}", &s, &err), -EINVAL);
        CHECK(strstr(err.message, "inventories") != NULL);
        CHECK_INTEQ(load_text("{\"format\": 1, \"inventories\": {}}", &s, &err), -EINVAL);
        _cleanup_(freep) char *dup = strprintf("{\"format\": 1, \"inventories\": [%s, %s]}", one, one);
        CHECK_INTEQ(load_text(dup, &s, &err), -EINVAL);
        CHECK(strstr(err.message, "': inventory set: duplicate host 'n1'") != NULL);
        _cleanup_(freep) char *cut = strprintf("{\"format\": 1, \"inventories\": [%s", one);
        CHECK_INTEQ(load_text(cut, &s, &err), -EINVAL);
        CHECK(strstr(err.message, "invalid JSON near offset") != NULL);
        CHECK_INTEQ(load_text("{\"format\": 1, \"inventories\": [] } x", &s, &err), -EINVAL);
        CHECK(strstr(err.message, "unexpected data after the object") != NULL);
        CHECK_INTEQ(load_text("[1]", &s, &err), -EINVAL);
        CHECK_INTEQ(load_text("{\"format\": 1, \"inventories\": [{\"devices\": []}]}", &s, &err), -EINVAL);
        CHECK(strstr(err.message, "/cephprov-test-inventory.") && strstr(err.message, "host"));
        CHECK(s == NULL);
}

/* status's warnings on one bcache backing device */
static void test_bcache_warnings(void) {
        char set[] = "5b1e0d2c-9f1b-4c57-a1f0-7d1c6a4e2b90", dev[] = "/dev/bcache0", wb[] = "writeback",
             clean[] = "clean", nocache[] = "no cache", incons[] = "inconsistent";
        InvBcache ok = { .role = BCACHE_ROLE_BACKING, .set_uuid = set, .bcache_device = dev, .cache_mode = wb,
                         .state = clean, .sequential_cutoff = 0, .hit_ratio = 0.99 };
        char **w = NULL;

        CHECK_INTEQ(inv_bcache_warnings(&ok, &w), 0);
        CHECK(w == NULL);

        InvBcache cache = ok;
        cache.role = BCACHE_ROLE_CACHE;
        cache.sequential_cutoff = 4 << 20;
        CHECK_INTEQ(inv_bcache_warnings(&cache, &w), 0);
        CHECK(w == NULL); /* a cache device has no sequential_cutoff of its own to judge */

        InvBcache cut = ok;
        cut.sequential_cutoff = 4 << 20; /* the kernel's default */
        CHECK_INTEQ(inv_bcache_warnings(&cut, &w), 0);
        CHECK_INTEQ((int) strv_length(w), 1);
        CHECK(w && strstr(w[0], "sequential_cutoff is 4 MiB, not 0") != NULL);
        w = strv_free(w);

        InvBcache detached = ok;
        detached.set_uuid = NULL;
        detached.state = nocache;
        CHECK_INTEQ(inv_bcache_warnings(&detached, &w), 0);
        CHECK_INTEQ((int) strv_length(w), 1);
        CHECK(w && strstr(w[0], "no cache attached") != NULL);
        w = strv_free(w);

        InvBcache bad = cut;
        bad.state = incons;
        bad.bcache_device = NULL;
        CHECK_INTEQ(inv_bcache_warnings(&bad, &w), 0);
        CHECK_INTEQ((int) strv_length(w), 3);
        CHECK(w && strstr(w[0], "inconsistent") && strstr(w[1], "not registered") && strstr(w[2], "sequential_cutoff"));
        w = strv_free(w);
}

int main(void) {
        TEST_RUN(test_round_trip);
        TEST_RUN(test_bcache_warnings);
        TEST_RUN(test_load_streamed);
        TEST_RUN(test_file_matches_model);
        TEST_RUN(test_lookups);
        TEST_RUN(test_errors);
        return test_result();
}
