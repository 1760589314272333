/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The layout language: valid layouts parse to the expected values and defaults, hosts are
 * resolved, and every invalid layout in tests/data/layout-invalid/ gives exactly the message
 * in its sibling .expected file. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/size.h"
#include "basic/strv.h"
#include "layout/layout.h"
#include "fixture.h"
#include "test.h"

static Layout *load(const char *name, const char *yaml) {
        Error err = {};
        Layout *l = NULL;
        int r = layout_load_string(name, yaml, strlen(yaml), &l, &err);
        if (r < 0)
                fprintf(stderr, "  unexpected error: %s\n", err.message);
        CHECK_INTEQ(r, 0);
        return l;
}

static Layout *load_valid_file(const char *file) {
        char path[PATH_MAX];
        Error err = {};
        Layout *l = NULL;
        snprintf(path, sizeof path, "%s/layout-valid/%s", fixture_dir("TEST_DATA"), file);
        int r = layout_load_file(path, &l, &err);
        if (r < 0)
                fprintf(stderr, "  %s: unexpected error: %s\n", file, err.message);
        CHECK_INTEQ(r, 0);
        if (l)
                CHECK_STREQ(l->path, path);
        return l;
}

static void test_minimal_defaults(void) {
        _cleanup_(layout_freep) Layout *l = load_valid_file("minimal.yaml");
        if (!l)
                return;
        CHECK_STREQ(l->cluster_name, "ceph");
        CHECK_STREQ(l->admin_host, "mon1");
        CHECK(l->fsid == NULL);
        CHECK_INTEQ(l->objectstore, OBJECTSTORE_BLUESTORE);
        CHECK_STREQ(l->ssh.user, "root");
        CHECK_INTEQ(l->ssh.port, 22);
        CHECK(l->ssh.identity == NULL);
        CHECK_STREQ(l->ssh.known_hosts, "~/.ssh/known_hosts");
        CHECK_INTEQ(l->ssh.host_key_policy, HOST_KEY_STRICT);
        CHECK_INTEQ(l->ssh.connect_timeout_sec, 10);
        CHECK_INTEQ(l->ssh.command_timeout_sec, 600);
        CHECK_INTEQ(l->concurrency, 32);
        CHECK_INTEQ(l->throttle.preset, THROTTLE_DEFAULT);
        CHECK_INTEQ(l->throttle.osd_max_backfills, 1);
        CHECK_INTEQ(l->throttle.osd_recovery_max_active, 3);
        CHECK_INTEQ(l->throttle.osd_recovery_max_single_start, 1);
        CHECK(l->throttle.osd_recovery_sleep < 0);
        CHECK_INTEQ(l->n_profiles, 0);
        CHECK_INTEQ(l->n_hosts, 1);
        const Host *h = &l->hosts[0];
        CHECK_STREQ(h->name, "mon1");
        CHECK_STREQ(h->address, "mon1");
        CHECK_INTEQ(h->transport, TRANSPORT_SSH);
        CHECK(h->profile == NULL);
        CHECK(h->allow == NULL);
        CHECK_STREQ(h->ssh.user, "root");
        CHECK(h->ssh.user != l->ssh.user); /* owned copies, not shared pointers */
        CHECK_INTEQ(h->ssh.port, 22);
        CHECK_INTEQ(h->mark.line, 5);
        CHECK_INTEQ(h->mark.column, 5);
        CHECK(layout_find_host(l, "mon1") == h);
        CHECK(layout_find_host(l, "mon2") == NULL);
        CHECK(layout_find_profile(l, "mon1") == NULL);
}

static void test_full(void) {
        _cleanup_(layout_freep) Layout *l = load_valid_file("full.yaml");
        if (!l)
                return;
        CHECK_STREQ(l->cluster_name, "lab-1");
        CHECK_STREQ(l->fsid, "8a9c6f2e-1234-4abc-9def-0123456789ab");
        CHECK_STREQ(l->ssh.user, "admin");
        CHECK_INTEQ(l->ssh.port, 2222);
        CHECK_STREQ(l->ssh.identity, "~/.ssh/id_ed25519"); /* `~` stays literal */
        CHECK_STREQ(l->ssh.known_hosts, "/etc/cephprov/known_hosts");
        CHECK_INTEQ(l->ssh.host_key_policy, HOST_KEY_ACCEPT_NEW);
        CHECK_INTEQ(l->ssh.connect_timeout_sec, 5);
        CHECK_INTEQ(l->ssh.command_timeout_sec, 20 * 60);
        CHECK_INTEQ(l->concurrency, 8);

        /* preset slow (1/1/1) with one explicit override */
        CHECK_INTEQ(l->throttle.preset, THROTTLE_SLOW);
        CHECK_INTEQ(l->throttle.osd_max_backfills, 2);
        CHECK_INTEQ(l->throttle.osd_recovery_max_active, 1);
        CHECK_INTEQ(l->throttle.osd_recovery_max_single_start, 1);
        CHECK(l->throttle.osd_recovery_sleep > 0.49 && l->throttle.osd_recovery_sleep < 0.51);

        CHECK_INTEQ(l->n_profiles, 2);
        const Profile *p = layout_find_profile(l, "hc-1u");
        CHECK(p == &l->profiles[0]);
        if (!p)
                return;
        CHECK_INTEQ(p->mark.line, 24);
        CHECK_INTEQ(p->mark.column, 3);
        CHECK_INTEQ(strv_length(p->allow), 2);
        CHECK_STREQ(p->allow[0], "/dev/disk/by-id/ata-SSD*");
        CHECK_STREQ(p->allow[1], "/dev/sd[c-f]");

        CHECK(p->data.set);
        CHECK_INTEQ(p->data.mark.line, 28);
        CHECK_INTEQ(p->data.mark.column, 5);
        CHECK_INTEQ(strv_length(p->data.devices), 4);
        CHECK_STREQ(p->data.devices[3], "/dev/sdf");
        CHECK_INTEQ(p->data.rotational, 1);
        CHECK(p->data.size_min == TiB);
        CHECK(p->data.size_max == 8 * TiB);
        CHECK_STREQ(p->data.model, "ST2000*");
        CHECK_STREQ(p->data.serial, "Z4*");
        CHECK_STREQ(p->data.vendor, "ATA*");
        CHECK_INTEQ(p->data.limit, 4);

        CHECK(p->fast.set);
        CHECK_INTEQ(strv_length(p->fast.devices), 2);
        CHECK_STREQ(p->fast.devices[0], "/dev/disk/by-id/ata-SSD1");
        CHECK_INTEQ(p->fast.rotational, 0);
        CHECK(p->fast.size_min == 400 * GiB);
        CHECK(p->fast.size_max == 0);
        CHECK_INTEQ(p->fast.limit, 0);
        CHECK(p->fast.model == NULL);
        CHECK_INTEQ(p->n_keep_partitions, 3);
        if (p->n_keep_partitions == 3)
                CHECK(p->keep_partitions[0] == 1 && p->keep_partitions[1] == 2 && p->keep_partitions[2] == 3);
        CHECK_INTEQ(p->data_per_fast, 2);
        CHECK_INTEQ(p->spread, SPREAD_FILL);

        CHECK_INTEQ(p->db_size.kind, SIZE_BYTES);
        CHECK(p->db_size.bytes == 30 * GiB);
        CHECK_INTEQ(p->wal_size.kind, SIZE_SHARE);
        CHECK(p->wal_size.share > 0.0099 && p->wal_size.share < 0.0101);
        CHECK_INTEQ(p->journal_size.kind, SIZE_UNSET);

        CHECK(p->bcache.enabled);
        CHECK_INTEQ(p->bcache.cache_size.kind, SIZE_BYTES);
        CHECK(p->bcache.cache_size.bytes == 60 * GiB);
        CHECK_INTEQ(p->bcache.cache_mode, BCACHE_MODE_WRITETHROUGH);
        CHECK(p->bcache.sequential_cutoff == 4 * MiB);
        CHECK_INTEQ(p->bcache.writeback_percent, 40);

        CHECK_INTEQ(p->osd.objectstore, OBJECTSTORE_BLUESTORE);
        CHECK_STREQ(p->osd.device_class, "hdd");
        CHECK_INTEQ(p->osd.per_device, 1);
        CHECK_INTEQ(p->osd.parallel, 8);
        CHECK(p->wipe);

        /* the second profile: everything defaulted; device_class auto → NULL */
        const Profile *a = layout_find_profile(l, "admin");
        CHECK(a == &l->profiles[1]);
        if (a) {
                CHECK(a->allow == NULL);
                CHECK_INTEQ(a->data.rotational, -1);
                CHECK(!a->fast.set);
                CHECK_INTEQ(a->fast.rotational, -1);
                CHECK(a->fast.devices == NULL);
                CHECK_INTEQ(a->n_keep_partitions, 0);
                CHECK_INTEQ(a->data_per_fast, 0);
                CHECK_INTEQ(a->spread, SPREAD_BALANCED);
                CHECK_INTEQ(a->db_size.kind, SIZE_UNSET);
                CHECK(!a->bcache.enabled);
                CHECK(a->osd.device_class == NULL);
                CHECK_INTEQ(a->osd.per_device, 1);
                CHECK_INTEQ(a->osd.parallel, 4);
                CHECK(!a->wipe);
        }
}

static void test_host_resolution(void) {
        _cleanup_(layout_freep) Layout *l = load_valid_file("full.yaml");
        if (!l)
                return;
        CHECK_INTEQ(l->n_hosts, 3);
        const Host *mon = layout_find_host(l, "mon1"), *n1 = layout_find_host(l, "node1"),
                   *n2 = layout_find_host(l, "node2");
        CHECK(mon && n1 && n2);
        if (!mon || !n1 || !n2)
                return;

        CHECK_INTEQ(mon->transport, TRANSPORT_LOCAL);
        CHECK(mon->profile == NULL);
        CHECK(mon->allow == NULL);

        /* node1: the ssh defaults, the profile's allow-list */
        CHECK_INTEQ(n1->transport, TRANSPORT_SSH);
        CHECK_STREQ(n1->address, "10.0.0.11");
        CHECK(n1->profile == layout_find_profile(l, "hc-1u"));
        CHECK_STREQ(n1->ssh.user, "admin");
        CHECK_INTEQ(n1->ssh.port, 2222);
        CHECK_STREQ(n1->ssh.identity, "~/.ssh/id_ed25519");
        CHECK_STREQ(n1->ssh.known_hosts, "/etc/cephprov/known_hosts");
        CHECK_INTEQ(n1->ssh.host_key_policy, HOST_KEY_ACCEPT_NEW);
        CHECK_INTEQ(n1->ssh.connect_timeout_sec, 5);
        CHECK_INTEQ(n1->ssh.command_timeout_sec, 1200);
        CHECK_INTEQ(strv_length(n1->allow), 2);
        CHECK(n1->allow != n1->profile->allow);
        CHECK_STREQ(n1->allow[1], "/dev/sd[c-f]");

        /* node2: every override, its own allow-list replaces the profile's */
        CHECK_STREQ(n2->address, "node2.example.org");
        CHECK_STREQ(n2->ssh.user, "ops");
        CHECK_INTEQ(n2->ssh.port, 22);
        CHECK_STREQ(n2->ssh.identity, "~/.ssh/node2");
        CHECK_STREQ(n2->ssh.known_hosts, "~/.ssh/known_hosts.lab");
        CHECK_INTEQ(n2->ssh.host_key_policy, HOST_KEY_STRICT);
        CHECK_INTEQ(n2->ssh.connect_timeout_sec, 30);
        CHECK_INTEQ(n2->ssh.command_timeout_sec, 3600);
        CHECK_INTEQ(strv_length(n2->allow), 2);
        CHECK_STREQ(n2->allow[0], "/dev/sdc");
        CHECK_STREQ(n2->allow[1], "/dev/sdd");
        CHECK_INTEQ(n2->mark.line, 68);
        CHECK_INTEQ(n2->mark.column, 5);

        /* the layout's defaults stay as given */
        CHECK_STREQ(l->ssh.user, "admin");
        CHECK_INTEQ(l->ssh.port, 2222);
}

/* placement (issue 30): host_pattern and labels give a host without 'profile' its profile */
static void test_placement(void) {
        _cleanup_(layout_freep) Layout *l = load_valid_file("placement.yaml");
        if (!l)
                return;
        static const struct {
                const char *host, *profile;
        } want[] = {
                { "mon1", NULL },        /* no pattern of a profile matches, no labels */
                { "osd-1", "hdd-nodes" }, /* osd-* and label hdd */
                { "osd-2", "hdd-nodes" }, /* extra labels do not matter */
                { "osd-3", NULL },       /* osd-* but no label hdd */
                { "fl-1", "flash" },     /* label flash, any name */
                { "osd-4", "flash" },    /* its own profile: wins over a placement that matches too */
        };
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                const Host *h = layout_find_host(l, want[i].host);
                CHECK(h != NULL);
                if (!h)
                        continue;
                const char *got = h->profile ? h->profile->name : NULL;
                if (!streq_ptr(got, want[i].profile))
                        fprintf(stderr, "  %s: profile %s, expected %s\n", want[i].host, got ? got : "(none)",
                                want[i].profile ? want[i].profile : "(none)");
                CHECK(streq_ptr(got, want[i].profile));
        }
        /* a placement-selected host gets the profile's allow-list, as a named one does */
        const Host *h = layout_find_host(l, "osd-1");
        CHECK(h && h->allow && streq(h->allow[0], "/dev/sd*"));
        CHECK(h && strv_contains(h->labels, "hdd"));
}

static void test_local_filters(void) {
        _cleanup_(layout_freep) Layout *l = load_valid_file("local-filters.yaml");
        if (!l)
                return;
        /* no admin_host: allowed because no host uses ssh */
        CHECK(l->admin_host == NULL);
        CHECK_STREQ(l->cluster_name, "single");
        /* all three values without a preset: custom */
        CHECK_INTEQ(l->throttle.preset, THROTTLE_CUSTOM);
        CHECK_INTEQ(l->throttle.osd_max_backfills, 2);
        CHECK_INTEQ(l->throttle.osd_recovery_max_active, 2);
        CHECK_INTEQ(l->throttle.osd_recovery_max_single_start, 1);
        const Profile *p = layout_find_profile(l, "flash");
        CHECK(p != NULL);
        if (!p)
                return;
        CHECK(p->data.devices == NULL);
        CHECK_INTEQ(p->data.rotational, 0);
        CHECK(p->data.size_min == 0);
        CHECK(p->data.size_max == 4 * TiB);
        CHECK_INTEQ(p->osd.per_device, 2);
        CHECK_STREQ(p->osd.device_class, "nvme");
        CHECK_STREQ(l->hosts[0].allow[0], "/dev/nvme*n1");
        CHECK(l->hosts[0].profile == p);
}

static void test_throttle_adaptive(void) {
        _cleanup_(layout_freep) Layout *l = load("adaptive.yaml", "cluster:\n  admin_host: a\nthrottle:\n  preset: adaptive\n"
                                                                   "  target_p99_ms: 25\n  ceiling_p99_ms: 80.5\nhosts:\n  - name: a\n");
        CHECK(l != NULL);
        if (!l)
                return;
        CHECK_INTEQ(l->throttle.preset, THROTTLE_ADAPTIVE);
        CHECK(l->throttle.target_p99_ms == 25 && l->throttle.ceiling_p99_ms == 80.5);
        CHECK_STREQ(throttle_preset_to_string(l->throttle.preset), "adaptive");
        /* it starts from the slow preset's values */
        CHECK_INTEQ(l->throttle.osd_max_backfills, 1);
        CHECK_INTEQ(l->throttle.osd_recovery_max_active, 1);
        _cleanup_(layout_freep) Layout *d = load("adaptive2.yaml", "cluster:\n  admin_host: a\nthrottle:\n  preset: adaptive\n"
                                                                    "hosts:\n  - name: a\n");
        CHECK(d && d->throttle.target_p99_ms == 0 && d->throttle.ceiling_p99_ms == 0);
        /* the SLO in the operator's words (issue 31): a latency with its unit */
        _cleanup_(layout_freep) Layout *w = load("adaptive3.yaml", "cluster:\n  admin_host: a\nthrottle:\n  preset: adaptive\n"
                                                                    "  client_p99: 50ms\n  ceiling: 0.25s\nhosts:\n  - name: a\n");
        CHECK(w && w->throttle.target_p99_ms == 50 && w->throttle.ceiling_p99_ms == 250);
        _cleanup_(layout_freep) Layout *f = load("adaptive4.yaml", "cluster:\n  admin_host: a\nthrottle:\n  preset: adaptive\n"
                                                                    "  client_p99: 7.5ms\nhosts:\n  - name: a\n");
        CHECK(f && f->throttle.target_p99_ms == 7.5 && f->throttle.ceiling_p99_ms == 0);
}

static void test_filestore(void) {
        _cleanup_(layout_freep) Layout *l = load_valid_file("filestore-journal.yaml");
        if (!l)
                return;
        CHECK_INTEQ(l->objectstore, OBJECTSTORE_FILESTORE);
        CHECK_INTEQ(l->throttle.preset, THROTTLE_FAST);
        CHECK_INTEQ(l->throttle.osd_max_backfills, 4);
        CHECK_INTEQ(l->throttle.osd_recovery_max_active, 4);
        CHECK_INTEQ(l->throttle.osd_recovery_max_single_start, 4);
        const Profile *p = layout_find_profile(l, "legacy");
        CHECK(p != NULL);
        if (!p)
                return;
        CHECK_INTEQ(p->osd.objectstore, OBJECTSTORE_FILESTORE); /* the cluster's */
        CHECK_INTEQ(p->journal_size.kind, SIZE_BYTES);
        CHECK(p->journal_size.bytes == 60 * GiB);
        CHECK(!p->bcache.enabled); /* bcache: false */
        CHECK_INTEQ(l->n_hosts, 3);
        CHECK(layout_find_host(l, "store2")->profile == p);
        /* flow-style host entries keep their marks */
        CHECK_INTEQ(layout_find_host(l, "store2")->mark.line, 20);
}

static void test_bulk_share(void) {
        _cleanup_(layout_freep) Layout *l = load_valid_file("bulk-bcache.yaml");
        if (!l)
                return;
        const Profile *p = layout_find_profile(l, "bulk");
        CHECK(p != NULL);
        if (!p)
                return;
        CHECK_INTEQ(p->bcache.cache_size.kind, SIZE_SHARE);
        CHECK_INTEQ(p->bcache.cache_mode, BCACHE_MODE_WRITEBACK);
        CHECK_INTEQ(p->bcache.writeback_percent, 10);
        CHECK(p->bcache.sequential_cutoff == 0);
        /* 12 % of a 7.68 TB NVMe */
        CHECK(size_spec_resolve(&p->bcache.cache_size, UINT64_C(7680000000000)) == UINT64_C(921600000000));
        CHECK_INTEQ(p->data.limit, 8);
        CHECK_INTEQ(p->osd.parallel, 16);
}

static void test_small_forms(void) {
        /* flow style, durations, quoted strings, YAML 1.2 booleans, size forms */
        _cleanup_(layout_freep) Layout *l = load("inline", "{cluster: {admin_host: 'a'}, ssh: {connect_timeout: 2m, command_timeout: 45s},"
                                                          " hosts: [{name: a, profile: p}],"
                                                          " profiles: {p: {data: {devices: [\"/dev/sdc\"]}, fast: {devices: [/dev/sda]},"
                                                          " db_size: 512M, wal_size: \"1 GiB\", wipe: True, bcache: {cache_size: 100%}}}}");
        if (!l)
                return;
        CHECK_INTEQ(l->ssh.connect_timeout_sec, 120);
        CHECK_INTEQ(l->ssh.command_timeout_sec, 45);
        const Profile *p = &l->profiles[0];
        CHECK(p->db_size.bytes == 512 * MiB);
        CHECK(p->wal_size.bytes == GiB);
        CHECK(p->wipe);
        CHECK(p->bcache.cache_size.kind == SIZE_SHARE && p->bcache.cache_size.share == 1.0);
        CHECK(l->path == NULL);
}

static void test_encrypted(void) {
        /* osd.encrypted (cephadm's word): default false, on bcache or not, in the JSON form */
        _cleanup_(layout_freep) Layout *l = load("encrypted.yaml",
                                                 "cluster: {admin_host: a}\n"
                                                 "profiles:\n"
                                                 "  enc:\n"
                                                 "    data: {devices: [/dev/sdc]}\n"
                                                 "    fast: {devices: [/dev/sda]}\n"
                                                 "    db_size: 1G\n"
                                                 "    bcache: {cache_size: 1G}\n"
                                                 "    osd: {encrypted: true}\n"
                                                 "  plain:\n"
                                                 "    data: {devices: [/dev/sdc]}\n"
                                                 "hosts: [{name: a, profile: enc}, {name: b, profile: plain}]\n");
        if (!l)
                return;
        const Profile *e = layout_find_profile(l, "enc"), *p = layout_find_profile(l, "plain");
        CHECK(e && e->osd.encrypted && e->bcache.enabled);
        CHECK(e && e->osd.encrypted_mark.line == 8 && e->osd.encrypted_mark.column == 22);
        CHECK(p && !p->osd.encrypted);
        _cleanup_(json_object_putp) json_object *j = NULL;
        CHECK_INTEQ(layout_to_json(l, &j), 0);
        json_object *profiles = NULL, *enc = NULL, *osd = NULL, *b = NULL;
        CHECK(json_object_object_get_ex(j, "profiles", &profiles));
        for (size_t i = 0; profiles && i < json_object_array_length(profiles); i++) {
                json_object *pi = json_object_array_get_idx(profiles, i), *name = NULL;
                if (json_object_object_get_ex(pi, "name", &name) && streq(json_object_get_string(name), "enc"))
                        enc = pi;
        }
        CHECK(enc && json_object_object_get_ex(enc, "osd", &osd) && json_object_object_get_ex(osd, "encrypted", &b) &&
              json_object_get_boolean(b));

        /* not a boolean, and with FileStore: refused at the value */
        Error err = {};
        Layout *bad = NULL;
        static const char yes[] = "cluster: {admin_host: a}\nprofiles:\n  p:\n    data: {devices: [/dev/sdc]}\n"
                                  "    osd: {encrypted: yes}\nhosts: [{name: a, profile: p}]\n";
        CHECK_INTEQ(layout_load_string("l.yaml", yes, sizeof yes - 1, &bad, &err), -EINVAL);
        CHECK(bad == NULL);
        CHECK_STREQ(err.message, "l.yaml:5:22: invalid value 'yes' for 'encrypted' (expected true or false)");
        error_reset(&err);
        static const char fs[] = "cluster: {admin_host: a, objectstore: filestore}\nprofiles:\n  p:\n"
                                 "    data: {devices: [/dev/sdc]}\n    osd:\n      encrypted: true\n"
                                 "hosts: [{name: a, profile: p}]\n";
        CHECK_INTEQ(layout_load_string("l.yaml", fs, sizeof fs - 1, &bad, &err), -EINVAL);
        CHECK_STREQ(err.message, "l.yaml:6:18: 'encrypted' with objectstore filestore in profile 'p' (expected bluestore: cephprov creates encrypted OSDs with ceph-volume's dmcrypt on BlueStore)");
        error_reset(&err);
}

static void test_json(void) {
        _cleanup_(layout_freep) Layout *l = load_valid_file("full.yaml");
        _cleanup_json_ json_object *j = NULL;
        if (!l)
                return;
        CHECK_INTEQ(layout_to_json(l, &j), 0);
        if (!j)
                return;
        json_object *v, *w;
        CHECK(json_object_object_get_ex(j, "cluster", &v));
        CHECK(json_object_object_get_ex(v, "admin_host", &w) && streq(json_object_get_string(w), "mon1"));
        CHECK(json_object_object_get_ex(j, "ssh", &v));
        CHECK(json_object_object_get_ex(v, "concurrency", &w) && json_object_get_int(w) == 8);
        CHECK(json_object_object_get_ex(j, "throttle", &v));
        CHECK(json_object_object_get_ex(v, "preset", &w) && streq(json_object_get_string(w), "slow"));
        CHECK(json_object_object_get_ex(j, "hosts", &v) && json_object_array_length(v) == 3);
        json_object *h2 = json_object_array_get_idx(v, 2);
        CHECK(json_object_object_get_ex(h2, "profile", &w) && streq(json_object_get_string(w), "hc-1u"));
        CHECK(json_object_object_get_ex(h2, "ssh", &w));
        json_object *port;
        CHECK(json_object_object_get_ex(w, "port", &port) && json_object_get_int(port) == 22);
        json_object *mon = json_object_array_get_idx(v, 0), *prof;
        /* JSON null for a host without profile */
        CHECK(json_object_object_get_ex(mon, "profile", &prof) && prof == NULL);
        CHECK(json_object_object_get_ex(j, "profiles", &v) && json_object_array_length(v) == 2);
        json_object *p0 = json_object_array_get_idx(v, 0), *db, *bytes;
        CHECK(json_object_object_get_ex(p0, "db_size", &db) && json_object_object_get_ex(db, "bytes", &bytes) &&
              json_object_get_int64(bytes) == (int64_t) (30 * GiB));
        CHECK(json_object_object_get_ex(p0, "bcache", &w) && w != NULL);
        json_object *p1 = json_object_array_get_idx(v, 1);
        CHECK(json_object_object_get_ex(p1, "bcache", &w) && w == NULL);
        /* the whole thing serializes */
        const char *s = json_to_pretty(j);
        CHECK(s && strstr(s, "\"known_hosts\": \"~/.ssh/known_hosts.lab\""));
}

static void test_helpers(void) {
        Throttle t;
        throttle_preset_values(THROTTLE_SLOW, &t);
        CHECK(t.preset == THROTTLE_SLOW && t.osd_max_backfills == 1 && t.osd_recovery_max_active == 1 &&
              t.osd_recovery_max_single_start == 1 && t.osd_recovery_sleep < 0);
        throttle_preset_values(THROTTLE_DEFAULT, &t);
        CHECK(t.osd_max_backfills == 1 && t.osd_recovery_max_active == 3 && t.osd_recovery_max_single_start == 1);
        throttle_preset_values(THROTTLE_FAST, &t);
        CHECK(t.osd_max_backfills == 4 && t.osd_recovery_max_active == 4 && t.osd_recovery_max_single_start == 4);

        CHECK_STREQ(objectstore_to_string(OBJECTSTORE_FILESTORE), "filestore");
        CHECK_STREQ(bcache_cache_mode_to_string(BCACHE_MODE_WRITEAROUND), "writearound");
        CHECK_STREQ(throttle_preset_to_string(THROTTLE_CUSTOM), "custom");
        CHECK_STREQ(transport_kind_to_string(TRANSPORT_LOCAL), "local");
        CHECK_STREQ(host_key_policy_to_string(HOST_KEY_ACCEPT_NEW), "accept-new");
        CHECK_STREQ(spread_mode_to_string(SPREAD_FILL), "fill");

        SizeSpec unset = { .kind = SIZE_UNSET }, bytes = { .kind = SIZE_BYTES, .bytes = 30 * GiB },
                 share = { .kind = SIZE_SHARE, .share = 0.05 };
        CHECK(size_spec_resolve(&unset, TiB) == 0);
        CHECK(size_spec_resolve(&bytes, TiB) == 30 * GiB);
        CHECK(size_spec_resolve(&share, 400 * GiB) == 20 * GiB);
        CHECK(size_spec_resolve(NULL, TiB) == 0);
        CHECK(layout_free(NULL) == NULL);
}

static void test_load_file_errors(void) {
        Error err = {};
        Layout *l = NULL;
        CHECK_INTEQ(layout_load_file("/nonexistent/layout.yaml", &l, &err), -ENOENT);
        CHECK_STREQ(err.message, "cannot open layout '/nonexistent/layout.yaml': No such file or directory");
        CHECK(l == NULL);

        error_reset(&err);
        CHECK_INTEQ(layout_load_file(fixture_dir("TEST_DATA"), &l, &err), -EISDIR);
        CHECK(l == NULL);

        /* embedded NUL bytes in the text are refused by the YAML reader, not read past */
        error_reset(&err);
        static const char nul[] = "cluster: {admin_host: a}\nhosts:\n  - name: a\0b\n";
        CHECK_INTEQ(layout_load_string("nul.yaml", nul, sizeof nul - 1, &l, &err), -EINVAL);
        CHECK_STREQ(err.message, "nul.yaml:3:12: invalid text: control characters are not allowed (expected UTF-8 or UTF-16 text)");
        CHECK(l == NULL);
}

/* From memory, named like the file, and from the file by a relative path: the same message. */
static void check_invalid_layout(const char *name, const char *yaml, size_t len, const char *expected) {
        Error err = {};
        Layout *l = (Layout *) 0x1; /* must stay untouched on failure */
        int r = layout_load_string(name, yaml, len, &l, &err);
        if (r != -EINVAL || !streq(err.message, expected))
                fprintf(stderr, "  case %s\n", name);
        CHECK_INTEQ(r, -EINVAL);
        CHECK_STREQ(err.message, expected);
        CHECK(l == (Layout *) 0x1);

        error_reset(&err);
        l = NULL;
        r = layout_load_file(name, &l, &err);
        CHECK_INTEQ(r, -EINVAL);
        CHECK_STREQ(err.message, expected);
        CHECK(l == NULL);
}

static void test_invalid_fixtures(void) {
        size_t n = fixture_invalid_cases("layout-invalid", 37, check_invalid_layout);
        fprintf(stderr, "  %zu invalid layouts checked\n", n);
}

static void test_valid_fixtures_and_shipped_layouts(void) {
        /* Every layout under tests/data/layout-valid/ and every shipped layout in layouts/ loads. */
        const char *dirs[2] = { NULL, getenv("LAYOUTS") };
        char valid[PATH_MAX];
        snprintf(valid, sizeof valid, "%s/layout-valid", fixture_dir("TEST_DATA"));
        dirs[0] = valid;
        size_t n_loaded = 0;
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                if (!dirs[i])
                        continue;
                DIR *d = opendir(dirs[i]);
                if (!d) {
                        CHECK(i == 1); /* layouts/ may not exist yet; our fixtures must */
                        continue;
                }
                struct dirent *de;
                while ((de = readdir(d))) {
                        if (!endswith(de->d_name, ".yaml"))
                                continue;
                        char path[PATH_MAX];
                        snprintf(path, sizeof path, "%s/%s", dirs[i], de->d_name);
                        Error err = {};
                        _cleanup_(layout_freep) Layout *l = NULL;
                        int r = layout_load_file(path, &l, &err);
                        if (r < 0)
                                fprintf(stderr, "  %s\n", err.message);
                        CHECK_INTEQ(r, 0);
                        _cleanup_json_ json_object *j = NULL;
                        if (l)
                                CHECK_INTEQ(layout_to_json(l, &j), 0);
                        n_loaded++;
                }
                closedir(d);
        }
        CHECK(n_loaded >= 5);
}

static int load_err(const char *yaml, Error *err) {
        Layout *l = (Layout *) 0x1;
        error_reset(err);
        int r = layout_load_string("t.yaml", yaml, strlen(yaml), &l, err);
        if (r >= 0)
                layout_free(l);
        else
                CHECK(l == (Layout *) 0x1);
        return r;
}

/* A profile with one size key set to `value`: the message for it, or "" when it loads. */
static const char *size_case(const char *key, const char *value, Error *err) {
        char yaml[512];
        snprintf(yaml, sizeof yaml,
                 "cluster: {admin_host: a}\nhosts: [{name: a, profile: p}]\n"
                 "profiles: {p: {data: {devices: [/dev/sdc]}, fast: {devices: [/dev/sda]}, %s: \"%s\"}}\n", key, value);
        return load_err(yaml, err) < 0 ? err->message : "";
}

static void test_size_units(void) {
        Error err = {};
        /* accepted: units as documented, one optional space (as cephprov prints sizes) */
        static const char * const ok[] = { "30G", "30GiB", "30GB", "30 GiB", "1.5T", "1M", "1048576B", "5%", "2.5%", "1P" };
        for (size_t i = 0; i < ELEMENTSOF(ok); i++) {
                const char *m = size_case("db_size", ok[i], &err);
                if (*m)
                        fprintf(stderr, "  %s: %s\n", ok[i], m);
                CHECK_STREQ(m, "");
        }
        CHECK_STREQ(size_case("db_size", "30", &err), "t.yaml:3:83: db_size: 30 has no unit: write 30G (or 30GiB), sizes need a unit");
        CHECK_STREQ(size_case("wal_size", "4096", &err), "t.yaml:3:84: wal_size: 4096 has no unit: write 4096G (or 4096GiB), sizes need a unit");
        CHECK_STREQ(size_case("db_size", "30g", &err), "t.yaml:3:83: invalid value '30g' for 'db_size': units are case-sensitive (write 30G)");
        CHECK_STREQ(size_case("db_size", "30 g", &err), "t.yaml:3:83: invalid value '30 g' for 'db_size': units are case-sensitive (write 30 G)");
        CHECK_STREQ(size_case("db_size", "30gib", &err), "t.yaml:3:83: invalid value '30gib' for 'db_size': units are case-sensitive (write 30GiB)");
        CHECK_STREQ(size_case("db_size", "30Gb", &err), "t.yaml:3:83: invalid value '30Gb' for 'db_size': units are case-sensitive (write 30GB)");
        static const char * const bad[] = { " 30G", "30G ", "30  G", "30 ", "30X", "G", "-1G", "0x10G" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                const char *m = size_case("db_size", bad[i], &err);
                if (!strstr(m, "(expected a size such as 30G or 512M, or a share of the fast device such as 5%)"))
                        fprintf(stderr, "  '%s': %s\n", bad[i], m);
                CHECK(strstr(m, "(expected a size such as 30G or 512M, or a share of the fast device such as 5%)") != NULL);
        }
        CHECK(strstr(size_case("db_size", "0G", &err), "(expected a size greater than 0)") != NULL);
        CHECK(strstr(size_case("db_size", "1023K", &err), "(expected a partition size of at least 1M: partitions are aligned to 1 MiB)") != NULL);
        CHECK(strstr(size_case("db_size", "1025T", &err), "(expected a partition size of at most 1P: no device is larger)") != NULL);
        CHECK(strstr(size_case("db_size", "18446744073709551615", &err), "write 18446744073709551615B if bytes are meant") != NULL);
        CHECK(strstr(size_case("db_size", "16384P", &err), "(expected a size below 16 EiB)") != NULL);

        /* size ranges: the same unit rules; bare bytes stay allowed there (not a partition) */
        CHECK_INTEQ(load_err("cluster: {admin_host: a}\nhosts: [{name: a, profile: p, allow: [/dev/sd*]}]\n"
                             "profiles: {p: {data: {size: 1000000000000..8T}}}\n", &err), 0);
        CHECK_INTEQ(load_err("cluster: {admin_host: a}\nhosts: [{name: a, profile: p, allow: [/dev/sd*]}]\n"
                             "profiles: {p: {data: {size: 1t..8T}}}\n", &err), -EINVAL);
        CHECK_STREQ(err.message, "t.yaml:3:29: invalid value '1t..8T' for 'size': units are case-sensitive (write 1T)");
        /* sequential_cutoff: 0 and bare bytes allowed */
        CHECK_INTEQ(load_err("cluster: {admin_host: a}\nhosts: [{name: a, profile: p}]\n"
                             "profiles: {p: {data: {devices: [/dev/sdc]}, fast: {devices: [/dev/sda]}, bcache: {cache_size: 1G, sequential_cutoff: 0}}}\n",
                             &err), 0);
}

static void test_warnings(void) {
        _cleanup_(layout_freep) Layout *l = load_valid_file("warnings.yaml");
        if (!l)
                return;
        CHECK_INTEQ(l->warnings.n, 4);
        CHECK_INTEQ(l->warnings.n_errors, 0);
        if (l->warnings.n != 4)
                return;
        static const unsigned lines[] = { 11, 12, 15, 23 };
        for (size_t i = 0; i < 4; i++) {
                CHECK(l->warnings.items[i].warning);
                CHECK_INTEQ(l->warnings.items[i].mark.line, lines[i]);
        }
        CHECK_STREQ(l->warnings.items[0].message,
                    "db_size 300 MiB is below 1 GiB: RocksDB's first level is 1 GiB (max_bytes_for_level_base since Reef), "
                    "and Ceph recommends a DB of 1% to 4% of the data device (10 GiB to 40 GiB per TB)");
        CHECK_STREQ(l->warnings.items[1].message,
                    "wal_size 64 MiB is below 1 GiB: BlueStore lets RocksDB's WAL grow to 1 GiB (max_total_wal_size in bluestore_rocksdb_options)");
        CHECK_STREQ(l->warnings.items[2].message,
                    "sequential_cutoff 4 MiB is not 0: bcache sends sequential writes of 4 MiB and more around the cache, "
                    "and Ceph writes whole 4 MiB objects: write 0");
        CHECK(strstr(l->warnings.items[3].message, "db_size 1.5 GiB is below 2 GiB without a separate WAL") == l->warnings.items[3].message);
        /* custom device classes and the allowed address forms */
        CHECK_STREQ(layout_find_profile(l, "tiny")->osd.device_class, "fast_hdd");
        CHECK_STREQ(layout_find_host(l, "node2")->address, "fe80::2%eth0");
        CHECK_INTEQ(layout_find_host(l, "node4")->ssh.port, 2222); /* same address, other port */
        CHECK_STREQ(layout_find_host(l, "node_5")->address, "node_5");

        /* journal_size below 1 GiB warns too */
        _cleanup_(layout_freep) Layout *j = load("j", "cluster: {admin_host: a, objectstore: filestore}\nhosts: [{name: a, profile: p}]\n"
                                                      "profiles: {p: {data: {devices: [/dev/sdc]}, fast: {devices: [/dev/sda]}, journal_size: 512M}}\n");
        CHECK(j && j->warnings.n == 1 && strstr(j->warnings.items[0].message, "journal_size 512 MiB is below 1 GiB"));
        /* at Ceph's guidance: no warning */
        _cleanup_(layout_freep) Layout *g = load("g", "cluster: {admin_host: a}\nhosts: [{name: a, profile: p}]\n"
                                                      "profiles: {p: {data: {devices: [/dev/sdc]}, fast: {devices: [/dev/sda]}, db_size: 2G, wal_size: 1G}}\n");
        CHECK(g && g->warnings.n == 0);
}

static void test_all_errors(void) {
        char path[PATH_MAX], exp[PATH_MAX];
        snprintf(path, sizeof path, "%s/layout-errors/several.yaml", fixture_dir("TEST_DATA"));
        snprintf(exp, sizeof exp, "%s/layout-errors/several.expected", fixture_dir("TEST_DATA"));

        /* the first-error API stops at the first one */
        Error err = {};
        Layout *l = (Layout *) 0x1;
        CHECK_INTEQ(layout_load_file(path, &l, &err), -EINVAL);
        CHECK(l == (Layout *) 0x1);
        CHECK(strstr(err.message, "several.yaml:4:16: invalid value 'bluestor' for 'objectstore'") != NULL);

        /* the collecting one finds all ten, in file order, and the same first */
        YamlDiags d = {};
        error_reset(&err);
        CHECK_INTEQ(layout_load_file_all(path, &l, &d, &err), -EINVAL);
        CHECK(l == (Layout *) 0x1);
        CHECK(strstr(err.message, "several.yaml:4:16: invalid value 'bluestor' for 'objectstore'") != NULL);
        CHECK_INTEQ(d.n_errors, 10);
        CHECK_INTEQ(d.n, 11); /* and the warning about sequential_cutoff */
        for (size_t i = 1; i < d.n; i++)
                CHECK(d.items[i - 1].mark.line < d.items[i].mark.line ||
                      (d.items[i - 1].mark.line == d.items[i].mark.line && d.items[i - 1].mark.column <= d.items[i].mark.column));
        /* each message is the one validate prints (several.expected, minus its prefixes) */
        _cleanup_(freep) char *expected = fixture_read(exp, NULL);
        CHECK(expected != NULL);
        for (size_t i = 0; expected && i < d.n; i++) {
                char line[1200];
                snprintf(line, sizeof line, "%sseveral.yaml:%u:%u: %s%s\n", d.items[i].warning ? "" : "cephprov: error: ",
                         d.items[i].mark.line, d.items[i].mark.column, d.items[i].warning ? "warning: " : "", d.items[i].message);
                if (!strstr(expected, line))
                        fprintf(stderr, "  not in several.expected: %s", line);
                CHECK(strstr(expected, line) != NULL);
        }
        yaml_diags_done(&d);
        CHECK(d.n == 0 && d.items == NULL);

        /* a YAML syntax error is one error, in the list too */
        static const char bad[] = "cluster: [\n";
        error_reset(&err);
        CHECK_INTEQ(layout_load_string_all("s.yaml", bad, strlen(bad), &l, &d, &err), -EINVAL);
        CHECK_INTEQ(d.n_errors, 1);
        CHECK(d.n == 1 && d.items[0].mark.line >= 1 && strncmp(err.message, "s.yaml:", 7) == 0);
        yaml_diags_done(&d);

        /* a valid layout: no errors, its warnings in the list and in the layout */
        error_reset(&err);
        snprintf(path, sizeof path, "%s/layout-valid/warnings.yaml", fixture_dir("TEST_DATA"));
        _cleanup_(layout_freep) Layout *ok = NULL;
        CHECK_INTEQ(layout_load_file_all(path, &ok, &d, &err), 0);
        CHECK(ok && d.n_errors == 0 && d.n == 4 && ok->warnings.n == 4);
        yaml_diags_done(&d);
}

int main(void) {
        TEST_RUN(test_minimal_defaults);
        TEST_RUN(test_full);
        TEST_RUN(test_host_resolution);
        TEST_RUN(test_placement);
        TEST_RUN(test_local_filters);
        TEST_RUN(test_throttle_adaptive);
        TEST_RUN(test_filestore);
        TEST_RUN(test_bulk_share);
        TEST_RUN(test_small_forms);
        TEST_RUN(test_encrypted);
        TEST_RUN(test_json);
        TEST_RUN(test_helpers);
        TEST_RUN(test_load_file_errors);
        TEST_RUN(test_invalid_fixtures);
        TEST_RUN(test_valid_fixtures_and_shipped_layouts);
        TEST_RUN(test_size_units);
        TEST_RUN(test_warnings);
        TEST_RUN(test_all_errors);
        return test_result();
}
