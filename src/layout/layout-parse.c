/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The schema walk: YamlNode tree → Layout, validating everything (see docs/layout.md).
 *
 * Message form: "NAME:LINE:COL: what is wrong (what was expected)". Unknown keys point at
 * the key, bad values at the value, missing keys at the mapping that lacks them. */

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/size.h"
#include "basic/strv.h"
#include "layout-internal.h"
#include "yaml/yaml-schema.h"

typedef YamlCtx Ctx;

/* Short local names for the shared schema helpers (yaml/yaml-schema.h). */
#define FK(f, name) yaml_field_key((f), (name))
#define FV(f, name) yaml_field_value((f), (name))

/* Sizes: "30G", "60GiB", "4096"; with allow_share also "5%" of the fast device. */
static int get_size(Ctx *c, const YamlNode *k, const YamlNode *v, bool allow_share, bool allow_zero, SizeSpec *ret) {
        const char *expected = allow_share
                ? "a size such as 30G or 512M, or a share of the fast device such as 5%"
                : "a size such as 30G or 512M";
        int r = yaml_expect_scalar(c, k, v, expected);
        if (r < 0)
                return r;
        const char *s = v->value;
        if (allow_share && endswith(s, "%")) {
                double d;
                r = share_parse(s, &d);
                if (r == -ERANGE)
                        return yaml_bad_value(c, k, v, "a share greater than 0% and at most 100%");
                if (r < 0)
                        return yaml_bad_value(c, k, v, expected);
                *ret = (SizeSpec) { .kind = SIZE_SHARE, .share = d };
                return 0;
        }
        uint64_t b;
        r = size_parse(s, &b);
        if (r == -ERANGE)
                return yaml_bad_value(c, k, v, "a size below 16 EiB");
        if (r < 0 || isspace((unsigned char) s[0]))
                return yaml_bad_value(c, k, v, expected);
        if (b == 0 && !allow_zero)
                return yaml_bad_value(c, k, v, "a size greater than 0");
        *ret = (SizeSpec) { .kind = SIZE_BYTES, .bytes = b };
        return 0;
}

static bool path_valid(const char *s) {
        if (s[0] != '/')
                return false;
        for (const char *p = s; *p; p++)
                if ((unsigned char) *p <= 0x20 || *p == 0x7f)
                        return false;
        return true;
}

/* A list of absolute paths or globs, without duplicates, not empty. */
static int get_paths(Ctx *c, const YamlNode *k, const YamlNode *v, const char *expected_item, char ***ret) {
        char expected[128];
        snprintf(expected, sizeof expected, "a list of %s", expected_item);
        if (v->type != YAML_NODE_SEQUENCE)
                return yaml_wrong_type(c, k, v, expected);
        if (v->n_children == 0)
                return yaml_fail(c, v, "empty list '%s' (expected at least one entry)", YQ(k->value));

        _cleanup_strv_free_ char **l = NULL;
        for (size_t i = 0; i < v->n_children; i++) {
                const YamlNode *it = v->children[i];
                if (it->type != YAML_NODE_SCALAR || yaml_node_is_null(it)) {
                        YamlQuoted q;
                        return yaml_fail(c, yaml_node_is_null(it) ? v : it, "wrong type for an entry of '%s': %s (expected %s)",
                                    YQ(k->value), yaml_describe(it, &q), expected_item);
                }
                if (!path_valid(it->value))
                        return yaml_fail(c, it, "invalid path '%s' in '%s' (expected %s)", YQ(it->value), YQ(k->value),
                                    expected_item);
                for (size_t j = 0; j < i; j++)
                        if (streq(v->children[j]->value, it->value))
                                return yaml_fail(c, it, "duplicate entry '%s' in '%s' (first given at line %u, column %u)",
                                            YQ(it->value), YQ(k->value), v->children[j]->mark.line,
                                            v->children[j]->mark.column);
                if (strv_extend(&l, it->value) < 0)
                        return yaml_oom(c);
        }
        strv_free(*ret);
        *ret = TAKE_PTR(l);
        return 0;
}

/* ---- sections ------------------------------------------------------------------------- */

static const char * const objectstore_names[] = { "bluestore", "filestore" };
static const char * const host_key_names[] = { "strict", "accept-new" };
static const char * const transport_names[] = { "ssh", "local" };
static const char * const cache_mode_names[] = { "writeback", "writethrough", "writearound", "none" };
static const char * const spread_names[] = { "balanced", "fill" };
static const char * const preset_names[] = { "default", "slow", "fast" };

/* The SSH keys shared by the `ssh` section and host entries, applied onto `o`. */
static int parse_ssh_overrides(Ctx *c, const YamlFields *f, SshOptions *o) {
        const YamlNode *k, *v;
        int r, e;

        if ((v = FV(f, "user"))) {
                r = yaml_get_name(c, FK(f, "user"), v, "._-", 32, "a user name: letters, digits, '.', '_' and '-'", &o->user);
                if (r < 0)
                        return r;
        }
        if ((v = FV(f, "port")) && (r = yaml_get_uint(c, FK(f, "port"), v, 1, 65535, &o->port)) < 0)
                return r;
        /* `~` in identity and known_hosts stays literal here: the transport expands it for
         * the user running cephprov, when it opens the file. The layout stays pure text. */
        if ((v = FV(f, "identity")) && (r = yaml_get_string(c, FK(f, "identity"), v, "a path to a private key file", &o->identity)) < 0)
                return r;
        if ((v = FV(f, "known_hosts")) && (r = yaml_get_string(c, FK(f, "known_hosts"), v, "a path to a known_hosts file", &o->known_hosts)) < 0)
                return r;
        if ((v = FV(f, "agent_path"))) {
                r = yaml_get_string(c, FK(f, "agent_path"), v, "an absolute path for the agent binary on the host", &o->agent_path);
                if (r < 0)
                        return r;
                if (o->agent_path[0] != '/')
                        return yaml_fail(c, v, "agent_path '%s' is not an absolute path (expected a path starting with '/')",
                                    o->agent_path);
        }
        if ((v = FV(f, "host_key_checking"))) {
                k = FK(f, "host_key_checking");
                r = yaml_get_enum(c, k, v, host_key_names, ELEMENTSOF(host_key_names), &e);
                if (r < 0)
                        return r;
                o->host_key_policy = (HostKeyPolicy) e;
        }
        if ((v = FV(f, "connect_timeout")) && (r = yaml_get_duration(c, FK(f, "connect_timeout"), v, &o->connect_timeout_sec)) < 0)
                return r;
        if ((v = FV(f, "command_timeout")) && (r = yaml_get_duration(c, FK(f, "command_timeout"), v, &o->command_timeout_sec)) < 0)
                return r;
        return 0;
}

static int parse_ssh(Ctx *c, const YamlNode *k, const YamlNode *v, Layout *l) {
        static const char * const keys[] = {
                "user", "port", "identity", "known_hosts", "host_key_checking", "connect_timeout",
                "command_timeout", "concurrency", "agent_path",
        };
        YamlFields f;
        int r = yaml_expect_mapping(c, k, v);
        if (r < 0)
                return r;
        r = yaml_fields_read(c, v, keys, ELEMENTSOF(keys), NULL, &f);
        if (r < 0)
                return r;
        r = parse_ssh_overrides(c, &f, &l->ssh);
        if (r < 0)
                return r;
        if (FV(&f, "concurrency") && (r = yaml_get_uint(c, FK(&f, "concurrency"), FV(&f, "concurrency"), 1, 1024, &l->concurrency)) < 0)
                return r;
        return 0;
}

static int parse_throttle(Ctx *c, const YamlNode *k, const YamlNode *v, Throttle *t) {
        static const char * const keys[] = {
                "preset", "osd_max_backfills", "osd_recovery_max_active", "osd_recovery_max_single_start",
                "osd_recovery_sleep",
        };
        YamlFields f;
        int r = yaml_expect_mapping(c, k, v);
        if (r < 0)
                return r;
        r = yaml_fields_read(c, v, keys, ELEMENTSOF(keys), NULL, &f);
        if (r < 0)
                return r;

        int preset = THROTTLE_DEFAULT;
        if (FV(&f, "preset") && (r = yaml_get_enum(c, FK(&f, "preset"), FV(&f, "preset"), preset_names, ELEMENTSOF(preset_names), &preset)) < 0)
                return r;
        throttle_preset_values((ThrottlePreset) preset, t);

        unsigned *dst[] = { &t->osd_max_backfills, &t->osd_recovery_max_active, &t->osd_recovery_max_single_start };
        unsigned n_explicit = 0;
        for (size_t i = 0; i < 3; i++)
                if (f.value[i + 1]) {
                        r = yaml_get_uint(c, f.key[i + 1], f.value[i + 1], 1, 1000, dst[i]);
                        if (r < 0)
                                return r;
                        n_explicit++;
                }
        /* All three values without a preset: that is a custom throttle. With a preset the
         * explicit values override the preset's and the preset's name is kept. */
        if (!FV(&f, "preset") && n_explicit == 3)
                t->preset = THROTTLE_CUSTOM;

        if (FV(&f, "osd_recovery_sleep") &&
            (r = yaml_get_float(c, FK(&f, "osd_recovery_sleep"), FV(&f, "osd_recovery_sleep"), 0, 60, &t->osd_recovery_sleep)) < 0)
                return r;
        return 0;
}

static const char * const selector_keys[] = {
        "devices", "rotational", "size", "model", "serial", "vendor", "limit",
        /* fast only, must stay last (see parse_selector) */
        "keep_partitions", "data_per_fast", "spread",
};
#define SELECTOR_COMMON_KEYS 7

/* "MIN..MAX", "MIN..", "..MAX" */
static int get_size_range(Ctx *c, const YamlNode *k, const YamlNode *v, uint64_t *ret_min, uint64_t *ret_max) {
        static const char expected[] = "a size range MIN..MAX, MIN.. or ..MAX, e.g. 1T..8T";
        int r = yaml_expect_scalar(c, k, v, expected);
        if (r < 0)
                return r;
        const char *dots = strstr(v->value, "..");
        if (!dots || (dots == v->value && dots[2] == 0))
                return yaml_bad_value(c, k, v, expected);
        uint64_t lo = 0, hi = 0;
        if (dots > v->value) {
                _cleanup_(freep) char *a = strndup(v->value, (size_t) (dots - v->value));
                if (!a)
                        return yaml_oom(c);
                if (size_parse(a, &lo) < 0 || isspace((unsigned char) a[0]))
                        return yaml_bad_value(c, k, v, expected);
        }
        if (dots[2]) {
                if (size_parse(dots + 2, &hi) < 0 || isspace((unsigned char) dots[2]) || hi == 0)
                        return yaml_bad_value(c, k, v, expected);
        }
        if (hi != 0 && lo > hi)
                return yaml_fail(c, v, "invalid size range '%s': minimum is larger than maximum (expected MIN <= MAX)",
                            YQ(v->value));
        *ret_min = lo;
        *ret_max = hi;
        return 0;
}

static int parse_keep_partitions(Ctx *c, const YamlNode *k, const YamlNode *v, Profile *p) {
        if (v->type != YAML_NODE_SEQUENCE)
                return yaml_wrong_type(c, k, v, "a list of partition numbers");
        if (v->n_children == 0)
                return yaml_fail(c, v, "empty list '%s' (expected at least one entry)", YQ(k->value));
        unsigned *a = calloc(v->n_children, sizeof(unsigned));
        if (!a)
                return yaml_oom(c);
        free(p->keep_partitions);
        p->keep_partitions = a;
        p->n_keep_partitions = 0;
        for (size_t i = 0; i < v->n_children; i++) {
                const YamlNode *it = v->children[i];
                unsigned n;
                if (it->type != YAML_NODE_SCALAR || yaml_node_is_null(it)) {
                        YamlQuoted q;
                        return yaml_fail(c, yaml_node_is_null(it) ? v : it,
                                    "wrong type for an entry of 'keep_partitions': %s (expected a partition number from 1 to 128)",
                                    yaml_describe(it, &q));
                }
                int r = yaml_get_uint(c, k, it, 1, 128, &n);
                if (r < 0)
                        return r;
                for (size_t j = 0; j < i; j++)
                        if (a[j] == n)
                                return yaml_fail(c, it, "duplicate partition %u in 'keep_partitions' (first given at line %u, column %u)",
                                            n, v->children[j]->mark.line, v->children[j]->mark.column);
                a[i] = n;
                p->n_keep_partitions++;
        }
        return 0;
}

static int parse_selector(Ctx *c, const YamlNode *k, const YamlNode *v, bool fast, Profile *p) {
        DeviceSelector *s = fast ? &p->fast : &p->data;
        YamlFields f;
        int r = yaml_expect_mapping(c, k, v);
        if (r < 0)
                return r;
        r = yaml_fields_read(c, v, selector_keys, fast ? ELEMENTSOF(selector_keys) : SELECTOR_COMMON_KEYS, NULL, &f);
        if (r < 0)
                return r;

        s->set = true;
        s->mark = k->mark;
        if (FV(&f, "devices") &&
            (r = get_paths(c, FK(&f, "devices"), FV(&f, "devices"), "device paths such as /dev/sdc or /dev/disk/by-id/...", &s->devices)) < 0)
                return r;
        if (FV(&f, "rotational")) {
                bool b;
                r = yaml_get_bool(c, FK(&f, "rotational"), FV(&f, "rotational"), &b);
                if (r < 0)
                        return r;
                s->rotational = b;
        }
        if (FV(&f, "size") && (r = get_size_range(c, FK(&f, "size"), FV(&f, "size"), &s->size_min, &s->size_max)) < 0)
                return r;
        static const char glob[] = "a glob pattern such as \"ST2000*\"";
        if (FV(&f, "model") && (r = yaml_get_string(c, FK(&f, "model"), FV(&f, "model"), glob, &s->model)) < 0)
                return r;
        if (FV(&f, "serial") && (r = yaml_get_string(c, FK(&f, "serial"), FV(&f, "serial"), glob, &s->serial)) < 0)
                return r;
        if (FV(&f, "vendor") && (r = yaml_get_string(c, FK(&f, "vendor"), FV(&f, "vendor"), glob, &s->vendor)) < 0)
                return r;
        if (FV(&f, "limit") && (r = yaml_get_uint(c, FK(&f, "limit"), FV(&f, "limit"), 1, 4096, &s->limit)) < 0)
                return r;
        if (!fast)
                return 0;

        if (FV(&f, "keep_partitions") && (r = parse_keep_partitions(c, FK(&f, "keep_partitions"), FV(&f, "keep_partitions"), p)) < 0)
                return r;
        if (FV(&f, "data_per_fast") && (r = yaml_get_uint(c, FK(&f, "data_per_fast"), FV(&f, "data_per_fast"), 0, 4096, &p->data_per_fast)) < 0)
                return r;
        if (FV(&f, "spread")) {
                int e;
                r = yaml_get_enum(c, FK(&f, "spread"), FV(&f, "spread"), spread_names, ELEMENTSOF(spread_names), &e);
                if (r < 0)
                        return r;
                p->spread = (SpreadMode) e;
        }
        return 0;
}

static int parse_bcache(Ctx *c, const YamlNode *k, const YamlNode *v, BcacheOptions *b) {
        static const char * const keys[] = { "cache_size", "cache_mode", "sequential_cutoff", "writeback_percent" };
        YamlFields f;
        int r;

        if (v->type == YAML_NODE_SCALAR && v->plain &&
            (streq(v->value, "false") || streq(v->value, "False") || streq(v->value, "FALSE"))) {
                b->enabled = false;
                return 0;
        }
        if (v->type != YAML_NODE_MAPPING) {
                if (v->type == YAML_NODE_SCALAR && !yaml_node_is_null(v))
                        return yaml_bad_value(c, k, v, "a mapping or false");
                return yaml_wrong_type(c, k, v, "a mapping or false");
        }
        r = yaml_fields_read(c, v, keys, ELEMENTSOF(keys), NULL, &f);
        if (r < 0)
                return r;
        b->enabled = true;
        if (!FV(&f, "cache_size"))
                return yaml_missing(c, v, "cache_size", "the cache size per data device, e.g. 60G");
        r = get_size(c, FK(&f, "cache_size"), FV(&f, "cache_size"), true, false, &b->cache_size);
        if (r < 0)
                return r;
        if (FV(&f, "cache_mode")) {
                int e;
                r = yaml_get_enum(c, FK(&f, "cache_mode"), FV(&f, "cache_mode"), cache_mode_names, ELEMENTSOF(cache_mode_names), &e);
                if (r < 0)
                        return r;
                b->cache_mode = (BcacheCacheMode) e;
        }
        if (FV(&f, "sequential_cutoff")) {
                SizeSpec s;
                r = get_size(c, FK(&f, "sequential_cutoff"), FV(&f, "sequential_cutoff"), false, true, &s);
                if (r < 0)
                        return r;
                b->sequential_cutoff = s.bytes;
        }
        if (FV(&f, "writeback_percent") &&
            (r = yaml_get_uint(c, FK(&f, "writeback_percent"), FV(&f, "writeback_percent"), 0, 100, &b->writeback_percent)) < 0)
                return r;
        return 0;
}

static int parse_osd(Ctx *c, const YamlNode *k, const YamlNode *v, OsdOptions *o, const YamlNode **ret_per_device) {
        static const char * const keys[] = { "objectstore", "device_class", "per_device", "parallel" };
        YamlFields f;
        int r = yaml_expect_mapping(c, k, v);
        if (r < 0)
                return r;
        r = yaml_fields_read(c, v, keys, ELEMENTSOF(keys), NULL, &f);
        if (r < 0)
                return r;
        if (FV(&f, "objectstore")) {
                int e;
                r = yaml_get_enum(c, FK(&f, "objectstore"), FV(&f, "objectstore"), objectstore_names, ELEMENTSOF(objectstore_names), &e);
                if (r < 0)
                        return r;
                o->objectstore = (Objectstore) e;
        }
        if (FV(&f, "device_class")) {
                _cleanup_(freep) char *s = NULL;
                r = yaml_get_name(c, FK(&f, "device_class"), FV(&f, "device_class"), "_-", 32,
                             "auto or a CRUSH device class: letters, digits, '_' and '-'", &s);
                if (r < 0)
                        return r;
                free(o->device_class);
                o->device_class = streq(s, "auto") ? NULL : TAKE_PTR(s);
        }
        if (FV(&f, "per_device") && (r = yaml_get_uint(c, FK(&f, "per_device"), FV(&f, "per_device"), 1, 8, &o->per_device)) < 0)
                return r;
        *ret_per_device = FV(&f, "per_device");
        if (FV(&f, "parallel") && (r = yaml_get_uint(c, FK(&f, "parallel"), FV(&f, "parallel"), 1, 64, &o->parallel)) < 0)
                return r;
        return 0;
}

static const char name_chars_expected[] = "letters, digits, '.', '_' and '-'";

static int parse_profile(Ctx *c, const YamlNode *k, const YamlNode *v, Objectstore cluster_os, Profile *p) {
        static const char * const keys[] = {
                "allow", "data", "fast", "db_size", "wal_size", "journal_size", "bcache", "osd", "wipe",
        };
        YamlFields f;
        int r;

        p->mark = k->mark;
        p->data.rotational = p->fast.rotational = -1;
        p->bcache.cache_mode = BCACHE_MODE_WRITEBACK;
        p->bcache.writeback_percent = 10;
        p->osd.objectstore = cluster_os;
        p->osd.per_device = 1;
        p->osd.parallel = 4;

        if (!yaml_name_valid(k->value, "._-", 64))
                return yaml_fail(c, k, "invalid profile name '%s' (expected %s)", YQ(k->value), name_chars_expected);
        p->name = strdup(k->value);
        if (!p->name)
                return yaml_oom(c);

        r = yaml_expect_mapping(c, k, v);
        if (r < 0)
                return r;
        r = yaml_fields_read(c, v, keys, ELEMENTSOF(keys), NULL, &f);
        if (r < 0)
                return r;

        if (FV(&f, "allow") && (r = get_paths(c, FK(&f, "allow"), FV(&f, "allow"), "absolute device paths or globs such as /dev/sd[c-f]", &p->allow)) < 0)
                return r;
        if (!FV(&f, "data"))
                return yaml_fail(c, v, "missing key 'data' in profile '%s' (expected the data devices)", YQ(p->name));
        r = parse_selector(c, FK(&f, "data"), FV(&f, "data"), false, p);
        if (r < 0)
                return r;
        if (FV(&f, "fast") && (r = parse_selector(c, FK(&f, "fast"), FV(&f, "fast"), true, p)) < 0)
                return r;
        if (FV(&f, "db_size") && (r = get_size(c, FK(&f, "db_size"), FV(&f, "db_size"), true, false, &p->db_size)) < 0)
                return r;
        if (FV(&f, "wal_size") && (r = get_size(c, FK(&f, "wal_size"), FV(&f, "wal_size"), true, false, &p->wal_size)) < 0)
                return r;
        if (FV(&f, "journal_size") && (r = get_size(c, FK(&f, "journal_size"), FV(&f, "journal_size"), true, false, &p->journal_size)) < 0)
                return r;
        const YamlNode *per_device = NULL;
        if (FV(&f, "bcache") && (r = parse_bcache(c, FK(&f, "bcache"), FV(&f, "bcache"), &p->bcache)) < 0)
                return r;
        if (FV(&f, "osd") && (r = parse_osd(c, FK(&f, "osd"), FV(&f, "osd"), &p->osd, &per_device)) < 0)
                return r;
        if (FV(&f, "wipe") && (r = yaml_get_bool(c, FK(&f, "wipe"), FV(&f, "wipe"), &p->wipe)) < 0)
                return r;

        /* Consistency of the profile as a whole. */
        static const char * const on_fast[] = { "db_size", "wal_size", "journal_size", "bcache" };
        if (!p->fast.set)
                for (size_t i = 0; i < ELEMENTSOF(on_fast); i++) {
                        const YamlNode *key = FK(&f, on_fast[i]);
                        if (!key || (streq(on_fast[i], "bcache") && !p->bcache.enabled))
                                continue;
                        return yaml_fail(c, key, "'%s' given without 'fast' in profile '%s' (expected a 'fast' section to hold it)",
                                    on_fast[i], YQ(p->name));
                }
        if (p->osd.objectstore == OBJECTSTORE_FILESTORE) {
                if (FK(&f, "db_size"))
                        return yaml_fail(c, FK(&f, "db_size"), "'db_size' with objectstore filestore in profile '%s' (expected 'journal_size' for filestore)",
                                    YQ(p->name));
                if (FK(&f, "wal_size"))
                        return yaml_fail(c, FK(&f, "wal_size"), "'wal_size' with objectstore filestore in profile '%s' (expected 'journal_size' for filestore)",
                                    YQ(p->name));
        } else if (FK(&f, "journal_size"))
                return yaml_fail(c, FK(&f, "journal_size"), "'journal_size' with objectstore bluestore in profile '%s' (expected 'db_size' and 'wal_size' for bluestore)",
                            YQ(p->name));
        if (p->osd.per_device > 1 && (p->db_size.kind != SIZE_UNSET || p->wal_size.kind != SIZE_UNSET || p->bcache.enabled))
                return yaml_fail(c, per_device, "'per_device' %u with DB, WAL or bcache partitions in profile '%s' (expected 1)",
                            p->osd.per_device, YQ(p->name));
        if (p->fast.set && p->data.devices && p->fast.devices)
                STRV_FOREACH(d, p->fast.devices)
                        if (strv_contains(p->data.devices, *d))
                                return yaml_fail(c, FK(&f, "fast"), "device '%s' is both a data and a fast device in profile '%s' (expected separate devices)",
                                            YQ(*d), YQ(p->name));
        /* Shares of one fast device: what one data device takes, times how many share it. */
        if (p->data_per_fast > 0) {
                double share = 0;
                const SizeSpec *sizes[] = { &p->db_size, &p->wal_size, &p->journal_size, &p->bcache.cache_size };
                for (size_t i = 0; i < ELEMENTSOF(sizes); i++)
                        if (sizes[i]->kind == SIZE_SHARE)
                                share += sizes[i]->share;
                if (share * p->data_per_fast > 1.0 + 1e-9)
                        return yaml_fail(c, FK(&f, "fast"), "shares of the fast device add up to %.0f%% with data_per_fast %u in profile '%s' (expected at most 100%%)",
                                    share * p->data_per_fast * 100.0, p->data_per_fast, YQ(p->name));
        }
        return 0;
}

static int parse_profiles(Ctx *c, const YamlNode *k, const YamlNode *v, Layout *l) {
        int r = yaml_expect_mapping(c, k, v);
        if (r < 0)
                return r;
        size_t n = v->n_children / 2;
        l->profiles = calloc(n ? n : 1, sizeof(Profile));
        if (!l->profiles)
                return yaml_oom(c);
        for (size_t i = 0; i < n; i++) {
                const YamlNode *pk = v->children[2 * i];
                for (size_t j = 0; j < i; j++)
                        if (streq(l->profiles[j].name, pk->value))
                                return yaml_fail(c, pk, "duplicate profile '%s' (first given at line %u, column %u)",
                                            YQ(pk->value), l->profiles[j].mark.line, l->profiles[j].mark.column);
                l->n_profiles++;
                r = parse_profile(c, pk, v->children[2 * i + 1], l->objectstore, &l->profiles[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static bool selector_by_filter(const DeviceSelector *s) {
        return s->set && !s->devices;
}

static int parse_host(Ctx *c, const YamlNode *k, const YamlNode *v, Layout *l, Host *h) {
        static const char * const keys[] = {
                "user", "port", "identity", "known_hosts", "host_key_checking", "connect_timeout",
                "command_timeout", "agent_path", /* the SSH overrides, read by parse_ssh_overrides() */
                "name", "profile", "address", "transport", "allow",
        };
        YamlFields f;
        int r;

        h->mark = v->mark;
        if (v->type != YAML_NODE_MAPPING) {
                YamlQuoted q;
                return yaml_fail(c, yaml_node_is_null(v) ? k : v, "wrong type for an entry of 'hosts': %s (expected a mapping with 'name')",
                            yaml_describe(v, &q));
        }
        r = yaml_fields_read(c, v, keys, ELEMENTSOF(keys), NULL, &f);
        if (r < 0)
                return r;
        if (!FV(&f, "name"))
                return yaml_missing(c, v, "name", "the host's name");
        r = yaml_get_name(c, FK(&f, "name"), FV(&f, "name"), "._-", 253, name_chars_expected, &h->name);
        if (r < 0)
                return r;
        for (Host *o = l->hosts; o < h; o++)
                if (streq(o->name, h->name))
                        return yaml_fail(c, FV(&f, "name"), "duplicate host name '%s' (first given at line %u, column %u)",
                                    YQ(h->name), o->mark.line, o->mark.column);

        /* SSH: defaults, then this host's overrides. */
        h->ssh = l->ssh;
        h->ssh.user = strdup_null(l->ssh.user);
        h->ssh.identity = strdup_null(l->ssh.identity);
        h->ssh.known_hosts = strdup_null(l->ssh.known_hosts);
        h->ssh.agent_path = strdup_null(l->ssh.agent_path);
        if ((l->ssh.user && !h->ssh.user) || (l->ssh.identity && !h->ssh.identity) ||
            (l->ssh.known_hosts && !h->ssh.known_hosts) || (l->ssh.agent_path && !h->ssh.agent_path))
                return yaml_oom(c);
        r = parse_ssh_overrides(c, &f, &h->ssh);
        if (r < 0)
                return r;

        if (FV(&f, "address")) {
                r = yaml_get_name(c, FK(&f, "address"), FV(&f, "address"), ".:-_%", 253,
                             "a host name or IP address", &h->address);
                if (r < 0)
                        return r;
        } else if (!(h->address = strdup(h->name)))
                return yaml_oom(c);

        if (FV(&f, "transport")) {
                int e;
                r = yaml_get_enum(c, FK(&f, "transport"), FV(&f, "transport"), transport_names, ELEMENTSOF(transport_names), &e);
                if (r < 0)
                        return r;
                h->transport = (TransportKind) e;
        }

        if (FV(&f, "profile")) {
                const YamlNode *pv = FV(&f, "profile");
                r = yaml_expect_scalar(c, FK(&f, "profile"), pv, "the name of a profile");
                if (r < 0)
                        return r;
                h->profile = layout_find_profile(l, pv->value);
                if (!h->profile) {
                        _cleanup_(freep) const char **names = calloc(l->n_profiles + 1, sizeof(char *));
                        if (!names)
                                return yaml_oom(c);
                        for (size_t i = 0; i < l->n_profiles; i++)
                                names[i] = l->profiles[i].name;
                        return yaml_unknown_name(c, pv, "profile", names, l->n_profiles);
                }
        }

        if (FV(&f, "allow")) {
                r = get_paths(c, FK(&f, "allow"), FV(&f, "allow"), "absolute device paths or globs such as /dev/sd[c-f]", &h->allow);
                if (r < 0)
                        return r;
        } else if (h->profile && h->profile->allow) {
                h->allow = strv_copy(h->profile->allow);
                if (!h->allow)
                        return yaml_oom(c);
        }

        /* A selector without explicit devices picks among the allowed devices: without an
         * allow-list it would pick among all disks of the host. Refused. */
        if (h->profile && !h->allow &&
            (selector_by_filter(&h->profile->data) || selector_by_filter(&h->profile->fast)))
                return yaml_fail(c, FV(&f, "profile"),
                            "host '%s' has no allow-list but profile '%s' selects devices by filters (expected 'allow' in the host or the profile, or explicit 'devices')",
                            YQ(h->name), YQ(h->profile->name));
        return 0;
}

static int parse_hosts(Ctx *c, const YamlNode *k, const YamlNode *v, Layout *l) {
        if (v->type != YAML_NODE_SEQUENCE)
                return yaml_wrong_type(c, k, v, "a list of hosts");
        if (v->n_children == 0)
                return yaml_fail(c, v, "empty list 'hosts' (expected at least one host)");
        l->hosts = calloc(v->n_children, sizeof(Host));
        if (!l->hosts)
                return yaml_oom(c);
        for (size_t i = 0; i < v->n_children; i++) {
                l->n_hosts++;
                int r = parse_host(c, k, v->children[i], l, &l->hosts[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static bool uuid_valid(const char *s) {
        static const char pattern[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
        if (strlen(s) != strlen(pattern))
                return false;
        for (size_t i = 0; pattern[i]; i++)
                if (pattern[i] == '-' ? s[i] != '-' : !isxdigit((unsigned char) s[i]))
                        return false;
        return true;
}

int layout_from_tree(const char *name, const YamlNode *root, Layout **ret, Error *err) {
        static const char * const keys[] = { "cluster", "ssh", "throttle", "profiles", "hosts" };
        static const char * const cluster_keys[] = { "name", "admin_host", "objectstore", "fsid" };
        Ctx ctx = { .name = name, .err = err }, *c = &ctx;
        YamlFields f, cf;
        int r;

        if (!root || yaml_node_is_null(root))
                return error_set(err, EINVAL, "%s:1:1: empty layout (expected a mapping with 'cluster' and 'hosts')", name);
        if (root->type != YAML_NODE_MAPPING) {
                YamlQuoted q;
                return yaml_fail(c, root, "wrong type for the layout: %s (expected a mapping with 'cluster' and 'hosts')",
                            yaml_describe(root, &q));
        }

        _cleanup_(layout_freep) Layout *l = calloc(1, sizeof(Layout));
        if (!l)
                return yaml_oom(c);
        l->objectstore = OBJECTSTORE_BLUESTORE;
        l->concurrency = 32;
        l->ssh.port = 22;
        l->ssh.host_key_policy = HOST_KEY_STRICT;
        l->ssh.connect_timeout_sec = 10;
        l->ssh.command_timeout_sec = 600;
        throttle_preset_values(THROTTLE_DEFAULT, &l->throttle);
        if (!(l->cluster_name = strdup("ceph")) || !(l->ssh.user = strdup("root")) ||
            !(l->ssh.known_hosts = strdup("~/.ssh/known_hosts")))
                return yaml_oom(c);

        r = yaml_fields_read(c, root, keys, ELEMENTSOF(keys), NULL, &f);
        if (r < 0)
                return r;
        if (!FV(&f, "cluster"))
                return yaml_missing(c, root, "cluster", "a 'cluster' section with at least 'admin_host'");
        if (!FV(&f, "hosts"))
                return yaml_missing(c, root, "hosts", "a list of hosts");

        /* cluster */
        const YamlNode *ck = FK(&f, "cluster"), *cv = FV(&f, "cluster");
        if ((r = yaml_expect_mapping(c, ck, cv)) < 0)
                return r;
        if ((r = yaml_fields_read(c, cv, cluster_keys, ELEMENTSOF(cluster_keys), NULL, &cf)) < 0)
                return r;
        if (FV(&cf, "name") &&
            (r = yaml_get_name(c, FK(&cf, "name"), FV(&cf, "name"), "_-", 64, "letters, digits, '_' and '-'", &l->cluster_name)) < 0)
                return r;
        if (FV(&cf, "objectstore")) {
                int e;
                r = yaml_get_enum(c, FK(&cf, "objectstore"), FV(&cf, "objectstore"), objectstore_names, ELEMENTSOF(objectstore_names), &e);
                if (r < 0)
                        return r;
                l->objectstore = (Objectstore) e;
        }
        if (FV(&cf, "fsid")) {
                r = yaml_get_string(c, FK(&cf, "fsid"), FV(&cf, "fsid"), "a UUID such as 8a9c6f2e-...", &l->fsid);
                if (r < 0)
                        return r;
                if (!uuid_valid(l->fsid))
                        return yaml_bad_value(c, FK(&cf, "fsid"), FV(&cf, "fsid"), "a UUID: 8-4-4-4-12 hexadecimal digits");
        }
        if (FV(&cf, "admin_host") &&
            (r = yaml_get_name(c, FK(&cf, "admin_host"), FV(&cf, "admin_host"), "._-", 253, "the name of a host in 'hosts'", &l->admin_host)) < 0)
                return r;

        if (FV(&f, "ssh") && (r = parse_ssh(c, FK(&f, "ssh"), FV(&f, "ssh"), l)) < 0)
                return r;
        if (FV(&f, "throttle") && (r = parse_throttle(c, FK(&f, "throttle"), FV(&f, "throttle"), &l->throttle)) < 0)
                return r;
        if (FV(&f, "profiles") && (r = parse_profiles(c, FK(&f, "profiles"), FV(&f, "profiles"), l)) < 0)
                return r;
        if ((r = parse_hosts(c, FK(&f, "hosts"), FV(&f, "hosts"), l)) < 0)
                return r;

        /* admin_host: required as soon as one host is reached over SSH, and must be a host. */
        if (l->admin_host) {
                if (!layout_find_host(l, l->admin_host)) {
                        _cleanup_(freep) const char **names = calloc(l->n_hosts + 1, sizeof(char *));
                        if (!names)
                                return yaml_oom(c);
                        for (size_t i = 0; i < l->n_hosts; i++)
                                names[i] = l->hosts[i].name;
                        const YamlNode *v = FV(&cf, "admin_host");
                        const char *best = yaml_closest_match(v->value, names, l->n_hosts);
                        if (best)
                                return yaml_fail(c, v, "admin_host '%s' is not in 'hosts' (did you mean '%s'?)", YQ(v->value), best);
                        _cleanup_(freep) char *all = yaml_join_names(names, l->n_hosts);
                        if (!all)
                                return yaml_oom(c);
                        return yaml_fail(c, v, "admin_host '%s' is not in 'hosts' (expected one of: %s)", YQ(v->value), all);
                }
        } else
                for (size_t i = 0; i < l->n_hosts; i++)
                        if (l->hosts[i].transport == TRANSPORT_SSH)
                                return yaml_missing(c, cv, "admin_host",
                                               "the name of the host where the ceph CLI runs, required when hosts use ssh");

        *ret = TAKE_PTR(l);
        return 0;
}
