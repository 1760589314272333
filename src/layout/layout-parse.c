/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The schema walk: YamlNode tree → Layout, validating everything (see docs/layout.md).
 *
 * Message form: "NAME:LINE:COL: what is wrong (what was expected)". Unknown keys point at
 * the key, bad values at the value, missing keys at the mapping that lacks them. */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basic/size.h"
#include "basic/strv.h"
#include "layout-internal.h"
#include "yaml/yaml-schema.h"

typedef YamlCtx Ctx;

/* Short local names for the shared schema helpers (yaml/yaml-schema.h). */
#define FK(f, name) yaml_field_key((f), (name))
#define FV(f, name) yaml_field_value((f), (name))

/* An enum field of f: absent leaves *dst as it is; one of `names` sets *dst to its index; any
 * other value is an error, through TRY (collected in all-errors mode, *dst left as it is). */
#define TRY_ENUM_FIELD(f, key, names, dst)                                                                      \
        do {                                                                                                    \
                const YamlNode *_ev = FV((f), (key));                                                           \
                if (_ev) {                                                                                      \
                        int _e;                                                                                 \
                        int _er = yaml_get_enum(c, FK((f), (key)), _ev, (names), ELEMENTSOF(names), &_e);       \
                        if (_er >= 0)                                                                           \
                                *(dst) = (__typeof__(*(dst))) _e;                                               \
                        TRY(_er);                                                                               \
                }                                                                                               \
        } while (0)

/* The units a size may carry, exactly as written (case matters: 'b' would be bits, 'k' a
 * thousand). All are powers of 1024; see docs/layout.md. */
static const char * const size_units[] = {
        "B", "K", "KB", "KiB", "M", "MB", "MiB", "G", "GB", "GiB", "T", "TB", "TiB", "P", "PB", "PiB",
};

/* How a size key is used: what it may be and what is checked. */
typedef enum SizeUse {
        SIZE_USE_PARTITION, /* db/wal/journal/cache: unit required, share allowed, 1 MiB .. 1 PiB */
        SIZE_USE_CUTOFF,    /* sequential_cutoff: 0 allowed, bare bytes allowed */
} SizeUse;

/* Largest partition size accepted: no device is larger, and sums of a few thousand of them
 * stay far from overflowing 64 bits in the planner. */
#define PARTITION_SIZE_MAX (TiB * 1024)

/* Splits "30G", "1.5 TiB", "4096" into the number and its unit ("" when none). Refused:
 * leading or trailing blanks, more than one space, a space with no unit after it. Returns
 * 0, -EINVAL (not a size) or -EBADMSG (a unit in the wrong case: *ret_canonical is the
 * right spelling). */
static int size_split(const char *s, size_t *ret_number_len, const char **ret_unit, const char **ret_canonical) {
        const char *p = s;
        while (isdigit((unsigned char) *p))
                p++;
        if (p == s)
                return -EINVAL;
        if (*p == '.') {
                p++;
                if (!isdigit((unsigned char) *p))
                        return -EINVAL;
                while (isdigit((unsigned char) *p))
                        p++;
        }
        size_t number_len = (size_t) (p - s);
        if (*p == ' ') {
                p++;
                if (*p == 0)
                        return -EINVAL;
        }
        for (size_t i = 0; i < ELEMENTSOF(size_units); i++)
                if (streq(p, size_units[i])) {
                        *ret_number_len = number_len;
                        *ret_unit = p;
                        return 0;
                }
        if (*p == 0) {
                *ret_number_len = number_len;
                *ret_unit = p;
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(size_units); i++)
                if (strcasecmp(p, size_units[i]) == 0) {
                        *ret_number_len = (size_t) (p - s);
                        *ret_canonical = size_units[i];
                        return -EBADMSG;
                }
        return -EINVAL;
}

/* Parses a size string with the unit rules of size_split(). `expected` is for messages. */
static int parse_size_text(Ctx *c, const YamlNode *k, const YamlNode *v, const char *s, const char *expected,
                           bool *ret_has_unit, uint64_t *ret) {
        size_t nl = 0;
        const char *unit = NULL, *canonical = NULL;
        int r = size_split(s, &nl, &unit, &canonical);
        if (r == -EBADMSG)
                return yaml_fail(c, v, "invalid value '%s' for '%s': units are case-sensitive (write %.*s%s)",
                                 YQ(v->value), YQ(k->value), (int) nl, s, canonical);
        if (r < 0)
                return yaml_bad_value(c, k, v, expected);
        r = size_parse(s, ret);
        if (r == -ERANGE)
                return yaml_bad_value(c, k, v, "a size below 16 EiB");
        if (r < 0)
                return yaml_bad_value(c, k, v, expected);
        *ret_has_unit = unit[0] != 0;
        return 0;
}

/* Ceph's guidance for the smallest sensible partition of each role, warned about (not
 * refused) below; see docs/layout.md "Sizes". */
static int warn_small(Ctx *c, const YamlNode *k, const YamlNode *v, uint64_t bytes, bool wal_separate) {
        char a[SIZE_FORMAT_MAX];
        if (streq(k->value, "db_size")) {
                uint64_t floor = wal_separate ? LAYOUT_DB_FLOOR_WITH_WAL : LAYOUT_DB_FLOOR;
                if (bytes < floor)
                        return yaml_warn(c, v, "db_size %s is below %s%s: RocksDB's first level is 1 GiB (max_bytes_for_level_base since Reef)%s, "
                                         "and Ceph recommends a DB of 1%% to 4%% of the data device (10 GiB to 40 GiB per TB)",
                                         size_format(bytes, a, sizeof a), wal_separate ? "1 GiB" : "2 GiB",
                                         wal_separate ? "" : " without a separate WAL", wal_separate ? "" : " and its WAL up to 1 GiB (max_total_wal_size)");
        } else if (streq(k->value, "wal_size")) {
                if (bytes < LAYOUT_WAL_FLOOR)
                        return yaml_warn(c, v, "wal_size %s is below 1 GiB: BlueStore lets RocksDB's WAL grow to 1 GiB (max_total_wal_size in bluestore_rocksdb_options)",
                                         size_format(bytes, a, sizeof a));
        } else if (streq(k->value, "journal_size")) {
                if (bytes < LAYOUT_JOURNAL_FLOOR)
                        return yaml_warn(c, v, "journal_size %s is below 1 GiB: Ceph sizes a FileStore journal at 2 x throughput x filestore_max_sync_interval "
                                         "(about 1 GiB for 100 MB/s and 5 s; its default osd_journal_size is 5 GiB)",
                                         size_format(bytes, a, sizeof a));
        }
        return 0;
}

/* Sizes of partitions: "30G", "60GiB", "1.5 TiB", or "5%" of the fast device; a unit is
 * required. sequential_cutoff: also 0 and bare bytes. */
static int get_size(Ctx *c, const YamlNode *k, const YamlNode *v, SizeUse use, SizeSpec *ret) {
        bool partition = use == SIZE_USE_PARTITION;
        const char *expected = partition
                ? "a size such as 30G or 512M, or a share of the fast device such as 5%"
                : "a size such as 0, 512K or 4M";
        int r = yaml_expect_scalar(c, k, v, expected);
        if (r < 0)
                return r;
        const char *s = v->value;
        if (partition && endswith(s, "%")) {
                double d;
                r = share_parse(s, &d);
                if (r == -ERANGE)
                        return yaml_bad_value(c, k, v, "a share greater than 0% and at most 100%");
                if (r < 0)
                        return yaml_bad_value(c, k, v, expected);
                *ret = (SizeSpec) { .kind = SIZE_SHARE, .share = d, .mark = v->mark };
                return 0;
        }
        uint64_t b;
        bool has_unit;
        r = parse_size_text(c, k, v, s, expected, &has_unit, &b);
        if (r < 0)
                return r;
        if (partition) {
                if (b == 0)
                        return yaml_bad_value(c, k, v, "a size greater than 0");
                /* A small bare number is a forgotten G; a large one may be bytes. */
                if (!has_unit && b < MiB)
                        return yaml_fail(c, v, "%s: %s has no unit: write %sG (or %sGiB), sizes need a unit",
                                         YQ(k->value), YQ(s), YQ(s), YQ(s));
                if (!has_unit)
                        return yaml_fail(c, v, "%s: %s has no unit: write %sB if bytes are meant, sizes need a unit",
                                         YQ(k->value), YQ(s), YQ(s));
                if (b < MiB)
                        return yaml_bad_value(c, k, v, "a partition size of at least 1M: partitions are aligned to 1 MiB");
                if (b > PARTITION_SIZE_MAX)
                        return yaml_bad_value(c, k, v, "a partition size of at most 1P: no device is larger");
        }
        *ret = (SizeSpec) { .kind = SIZE_BYTES, .bytes = b, .mark = v->mark };
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
/* "custom" is not written (it is what three values make) */
static const char * const preset_names[] = { "default", "slow", "fast", "adaptive" };
static const ThrottlePreset preset_values[] = { THROTTLE_DEFAULT, THROTTLE_SLOW, THROTTLE_FAST, THROTTLE_ADAPTIVE };

/* A section that must be a mapping, with the keys `keys` (yaml_fields_read()) */
static int mapping_fields_read(Ctx *c, const YamlNode *k, const YamlNode *v, const char * const *keys, size_t n,
                               YamlFields *ret) {
        int r = yaml_expect_mapping(c, k, v);
        if (r < 0)
                return r;
        return yaml_fields_read(c, v, keys, n, NULL, ret);
}

/* The SSH keys shared by the `ssh` section and host entries, applied onto `o`. */
static int parse_ssh_overrides(Ctx *c, const YamlFields *f, SshOptions *o) {
        const YamlNode *v;
        int r;

        if ((v = FV(f, "user")))
                TRY(yaml_get_name(c, FK(f, "user"), v, "._-", 32, "a user name: letters, digits, '.', '_' and '-'", &o->user));
        if ((v = FV(f, "port")))
                TRY(yaml_get_uint(c, FK(f, "port"), v, 1, 65535, &o->port));
        /* `~` in identity and known_hosts stays literal here: the transport expands it for
         * the user running cephprov, when it opens the file. The layout stays pure text. */
        if ((v = FV(f, "identity"))) {
                r = yaml_get_string(c, FK(f, "identity"), v, "a path to a private key file", &o->identity);
                if (r >= 0)
                        o->identity_mark = v->mark;
                TRY(r);
        }
        if ((v = FV(f, "known_hosts")))
                TRY(yaml_get_string(c, FK(f, "known_hosts"), v, "a path to a known_hosts file", &o->known_hosts));
        if ((v = FV(f, "agent_path"))) {
                r = yaml_get_string(c, FK(f, "agent_path"), v, "an absolute path for the agent binary on the host", &o->agent_path);
                if (r >= 0 && o->agent_path[0] != '/')
                        r = yaml_fail(c, v, "agent_path '%s' is not an absolute path (expected a path starting with '/')",
                                      o->agent_path);
                TRY(r);
        }
        TRY_ENUM_FIELD(f, "host_key_checking", host_key_names, &o->host_key_policy);
        if ((v = FV(f, "connect_timeout")))
                TRY(yaml_get_duration(c, FK(f, "connect_timeout"), v, &o->connect_timeout_sec));
        if ((v = FV(f, "command_timeout")))
                TRY(yaml_get_duration(c, FK(f, "command_timeout"), v, &o->command_timeout_sec));
        return 0;
}

static int parse_ssh(Ctx *c, const YamlNode *k, const YamlNode *v, Layout *l) {
        static const char * const keys[] = {
                "user", "port", "identity", "known_hosts", "host_key_checking", "connect_timeout",
                "command_timeout", "concurrency", "agent_path",
        };
        YamlFields f;
        int r = mapping_fields_read(c, k, v, keys, ELEMENTSOF(keys), &f);
        if (r < 0)
                return r;
        TRY(parse_ssh_overrides(c, &f, &l->ssh));
        if (FV(&f, "concurrency"))
                TRY(yaml_get_uint(c, FK(&f, "concurrency"), FV(&f, "concurrency"), 1, 1024, &l->concurrency));
        return 0;
}

static int parse_throttle(Ctx *c, const YamlNode *k, const YamlNode *v, Throttle *t) {
        static const char * const keys[] = {
                "preset", "osd_max_backfills", "osd_recovery_max_active", "osd_recovery_max_single_start",
                "osd_recovery_sleep", "target_p99_ms", "ceiling_p99_ms", "client_p99", "ceiling",
        };
        YamlFields f;
        int r = mapping_fields_read(c, k, v, keys, ELEMENTSOF(keys), &f);
        if (r < 0)
                return r;

        int pi = 0;
        if (FV(&f, "preset"))
                TRY(yaml_get_enum(c, FK(&f, "preset"), FV(&f, "preset"), preset_names, ELEMENTSOF(preset_names), &pi));
        throttle_preset_values(preset_values[pi], t);

        unsigned *dst[] = { &t->osd_max_backfills, &t->osd_recovery_max_active, &t->osd_recovery_max_single_start };
        unsigned n_explicit = 0;
        for (size_t i = 0; i < 3; i++)
                if (f.value[i + 1]) {
                        TRY(yaml_get_uint(c, f.key[i + 1], f.value[i + 1], 1, 1000, dst[i]));
                        n_explicit++;
                }
        /* All three values without a preset: that is a custom throttle. With a preset the
         * explicit values override the preset's and the preset's name is kept. */
        if (!FV(&f, "preset") && n_explicit == 3)
                t->preset = THROTTLE_CUSTOM;

        if (FV(&f, "osd_recovery_sleep"))
                TRY(yaml_get_float(c, FK(&f, "osd_recovery_sleep"), FV(&f, "osd_recovery_sleep"), 0, 60, &t->osd_recovery_sleep));

        /* the adaptive controller's band: it moves the knobs itself, so fixed values make no sense */
        static const char *const adaptive_only[] = { "target_p99_ms", "ceiling_p99_ms", "client_p99", "ceiling" };
        for (size_t i = 0; i < ELEMENTSOF(adaptive_only); i++)
                if (f.value[5 + i] && t->preset != THROTTLE_ADAPTIVE)
                        return yaml_fail(c, f.key[5 + i], "'%s' needs 'preset: adaptive'", adaptive_only[i]);
        /* the SLO has two spellings: the operator's word (client_p99: 50ms) and the earlier
         * target_p99_ms: 50; one of them */
        if (FV(&f, "client_p99") && FV(&f, "target_p99_ms"))
                return yaml_fail(c, FK(&f, "target_p99_ms"), "'target_p99_ms' and 'client_p99' are the same SLO: give one");
        if (FV(&f, "ceiling") && FV(&f, "ceiling_p99_ms"))
                return yaml_fail(c, FK(&f, "ceiling_p99_ms"), "'ceiling_p99_ms' and 'ceiling' are the same: give one");
        if (t->preset == THROTTLE_ADAPTIVE)
                for (size_t i = 1; i <= 4; i++)
                        if (f.value[i])
                                return yaml_fail(c, f.key[i],
                                                     "'%s' cannot be fixed with 'preset: adaptive': the controller "
                                                     "moves it (set client_p99 and ceiling instead)",
                                                     keys[i]);
        if (FV(&f, "target_p99_ms"))
                TRY(yaml_get_float(c, FK(&f, "target_p99_ms"), FV(&f, "target_p99_ms"), 0.1, 60000, &t->target_p99_ms));
        if (FV(&f, "ceiling_p99_ms"))
                TRY(yaml_get_float(c, FK(&f, "ceiling_p99_ms"), FV(&f, "ceiling_p99_ms"), 0.1, 600000, &t->ceiling_p99_ms));
        if (FV(&f, "client_p99"))
                TRY(yaml_get_latency_ms(c, FK(&f, "client_p99"), FV(&f, "client_p99"), 0.1, 60000, &t->target_p99_ms));
        if (FV(&f, "ceiling"))
                TRY(yaml_get_latency_ms(c, FK(&f, "ceiling"), FV(&f, "ceiling"), 0.1, 600000, &t->ceiling_p99_ms));
        if (t->target_p99_ms > 0 && t->ceiling_p99_ms > 0 && t->ceiling_p99_ms <= t->target_p99_ms) {
                const bool new_words = FV(&f, "ceiling") != NULL;
                return yaml_fail(c, new_words ? FK(&f, "ceiling") : FK(&f, "ceiling_p99_ms"),
                                 "%s %gms must be above the SLO %s %gms", new_words ? "ceiling" : "ceiling_p99_ms",
                                 t->ceiling_p99_ms, FV(&f, "client_p99") ? "client_p99" : "target_p99_ms",
                                 t->target_p99_ms);
        }
        return 0;
}

static const char * const selector_keys[] = {
        "devices", "rotational", "size", "model", "serial", "vendor", "limit", "count",
        /* fast only, must stay last (see parse_selector) */
        "keep_partitions", "data_per_fast", "spread",
};
#define SELECTOR_COMMON_KEYS 8

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
        bool has_unit;
        if (dots > v->value) {
                _cleanup_(freep) char *a = strndup(v->value, (size_t) (dots - v->value));
                if (!a)
                        return yaml_oom(c);
                if ((r = parse_size_text(c, k, v, a, expected, &has_unit, &lo)) < 0)
                        return r;
        }
        if (dots[2]) {
                if ((r = parse_size_text(c, k, v, dots + 2, expected, &has_unit, &hi)) < 0)
                        return r;
                if (hi == 0)
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
        int r = mapping_fields_read(c, k, v, selector_keys, fast ? ELEMENTSOF(selector_keys) : SELECTOR_COMMON_KEYS, &f);
        if (r < 0)
                return r;

        s->set = true;
        s->mark = k->mark;
        if (FV(&f, "devices"))
                TRY(get_paths(c, FK(&f, "devices"), FV(&f, "devices"), "device paths such as /dev/sdc or /dev/disk/by-id/...", &s->devices));
        if (FV(&f, "rotational")) {
                bool b;
                r = yaml_get_bool(c, FK(&f, "rotational"), FV(&f, "rotational"), &b);
                if (r >= 0)
                        s->rotational = b;
                TRY(r);
        }
        if (FV(&f, "size")) {
                r = get_size_range(c, FK(&f, "size"), FV(&f, "size"), &s->size_min, &s->size_max);
                if (r >= 0) {
                        s->size_mark = FV(&f, "size")->mark;
                        free(s->size_text);
                        if (!(s->size_text = strdup(FV(&f, "size")->value)))
                                return yaml_oom(c);
                }
                TRY(r);
        }
        static const char glob[] = "a glob pattern such as \"ST2000*\"";
        if (FV(&f, "model"))
                TRY(yaml_get_string(c, FK(&f, "model"), FV(&f, "model"), glob, &s->model));
        if (FV(&f, "serial"))
                TRY(yaml_get_string(c, FK(&f, "serial"), FV(&f, "serial"), glob, &s->serial));
        if (FV(&f, "vendor"))
                TRY(yaml_get_string(c, FK(&f, "vendor"), FV(&f, "vendor"), glob, &s->vendor));
        if (FV(&f, "limit"))
                TRY(yaml_get_uint(c, FK(&f, "limit"), FV(&f, "limit"), 1, 4096, &s->limit));
        if (FV(&f, "count")) {
                s->count_mark = FV(&f, "count")->mark;
                TRY(yaml_get_uint(c, FK(&f, "count"), FV(&f, "count"), 1, 4096, &s->count));
        }
        if (!fast)
                return 0;

        if (FV(&f, "keep_partitions"))
                TRY(parse_keep_partitions(c, FK(&f, "keep_partitions"), FV(&f, "keep_partitions"), p));
        if (FV(&f, "data_per_fast"))
                TRY(yaml_get_uint(c, FK(&f, "data_per_fast"), FV(&f, "data_per_fast"), 0, 4096, &p->data_per_fast));
        TRY_ENUM_FIELD(&f, "spread", spread_names, &p->spread);
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
                TRY(yaml_missing(c, v, "cache_size", "the cache size per data device, e.g. 60G"));
        else
                TRY(get_size(c, FK(&f, "cache_size"), FV(&f, "cache_size"), SIZE_USE_PARTITION, &b->cache_size));
        TRY_ENUM_FIELD(&f, "cache_mode", cache_mode_names, &b->cache_mode);
        if (FV(&f, "sequential_cutoff")) {
                SizeSpec s;
                r = get_size(c, FK(&f, "sequential_cutoff"), FV(&f, "sequential_cutoff"), SIZE_USE_CUTOFF, &s);
                TRY(r);
                if (r >= 0) {
                        b->sequential_cutoff = s.bytes;
                        /* bcache's own default (4 MiB) is the size of Ceph's objects: with
                         * any cutoff the writes that matter bypass the cache. */
                        char a[SIZE_FORMAT_MAX];
                        if (s.bytes > 0 &&
                            (r = yaml_warn(c, FV(&f, "sequential_cutoff"),
                                           "sequential_cutoff %s is not 0: bcache sends sequential writes of %s and more around the cache, "
                                           "and Ceph writes whole 4 MiB objects: write 0",
                                           size_format(s.bytes, a, sizeof a), a)) < 0)
                                return r;
                }
        }
        if (FV(&f, "writeback_percent"))
                TRY(yaml_get_uint(c, FK(&f, "writeback_percent"), FV(&f, "writeback_percent"), 0, 100, &b->writeback_percent));
        return 0;
}

static int parse_osd(Ctx *c, const YamlNode *k, const YamlNode *v, OsdOptions *o, const YamlNode **ret_per_device) {
        static const char * const keys[] = { "objectstore", "device_class", "per_device", "parallel", "encrypted" };
        YamlFields f;
        int r = mapping_fields_read(c, k, v, keys, ELEMENTSOF(keys), &f);
        if (r < 0)
                return r;
        TRY_ENUM_FIELD(&f, "objectstore", objectstore_names, &o->objectstore);
        if (FV(&f, "device_class")) {
                /* CRUSH classes are case-sensitive: "HDD" would be a class of its own, with
                 * no rule taking it. Other custom classes are the operator's to define. */
                static const char * const conventional[] = { "auto", "hdd", "ssd", "nvme" };
                _cleanup_(freep) char *s = NULL;
                const YamlNode *dv = FV(&f, "device_class");
                r = yaml_get_name(c, FK(&f, "device_class"), dv, "_-", 32,
                                  "auto or a CRUSH device class: letters, digits, '_' and '-'", &s);
                for (size_t i = 0; r >= 0 && i < ELEMENTSOF(conventional); i++)
                        if (strcasecmp(s, conventional[i]) == 0 && !streq(s, conventional[i]))
                                r = yaml_fail(c, dv, "invalid value '%s' for 'device_class': CRUSH device classes are case-sensitive (did you mean '%s'?)",
                                              YQ(s), conventional[i]);
                if (r >= 0) {
                        free(o->device_class);
                        o->device_class = streq(s, "auto") ? NULL : TAKE_PTR(s);
                }
                TRY(r);
        }
        if (FV(&f, "per_device"))
                TRY(yaml_get_uint(c, FK(&f, "per_device"), FV(&f, "per_device"), 1, 8, &o->per_device));
        *ret_per_device = FV(&f, "per_device");
        if (FV(&f, "parallel"))
                TRY(yaml_get_uint(c, FK(&f, "parallel"), FV(&f, "parallel"), 1, 64, &o->parallel));
        if (FV(&f, "encrypted")) {
                TRY(yaml_get_bool(c, FK(&f, "encrypted"), FV(&f, "encrypted"), &o->encrypted));
                o->encrypted_mark = FV(&f, "encrypted")->mark;
        }
        return 0;
}

static const char name_chars_expected[] = "letters, digits, '.', '_' and '-'";

/* A list of labels (names as hosts have, cephadm's host labels: "osd", "rack-2"), each once. */
static int get_labels(Ctx *c, const YamlNode *k, const YamlNode *v, char ***ret) {
        if (v->type != YAML_NODE_SEQUENCE)
                return yaml_wrong_type(c, k, v, "a list of labels");
        _cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
        if (!l)
                return yaml_oom(c);
        for (size_t i = 0; i < v->n_children; i++) {
                const YamlNode *it = v->children[i];
                _cleanup_(freep) char *name = NULL;
                int r = yaml_get_name(c, k, it, "._-", 64, "a label: letters, digits, '.', '_' and '-'", &name);
                if (r < 0)
                        return r;
                for (size_t j = 0; j < i; j++)
                        if (streq(v->children[j]->value, it->value))
                                return yaml_fail(c, it, "duplicate label '%s' in '%s' (first given at line %u, column %u)",
                                                 YQ(it->value), YQ(k->value), v->children[j]->mark.line,
                                                 v->children[j]->mark.column);
                if (strv_consume(&l, TAKE_PTR(name)) < 0)
                        return yaml_oom(c);
        }
        strv_free(*ret);
        *ret = TAKE_PTR(l);
        return 0;
}

/* placement: {host_pattern: GLOB, labels: [...]}, as cephadm's: the hosts without 'profile'
 * whose name matches the pattern and that have every label get this profile */
static int parse_placement(Ctx *c, const YamlNode *k, const YamlNode *v, Profile *p) {
        static const char * const keys[] = { "host_pattern", "labels" };
        YamlFields f;
        int r = mapping_fields_read(c, k, v, keys, ELEMENTSOF(keys), &f);
        if (r < 0)
                return r;
        if (!FV(&f, "host_pattern") && !FV(&f, "labels"))
                return yaml_fail(c, v, "empty 'placement' in profile '%s' (expected 'host_pattern', 'labels' or both)",
                                 YQ(p->name));
        if (FV(&f, "host_pattern")) {
                TRY(yaml_get_string(c, FK(&f, "host_pattern"), FV(&f, "host_pattern"), "a glob of host names such as 'osd-*' or 'node[1-4]'",
                                    &p->host_pattern));
                if (p->host_pattern && (!p->host_pattern[0] || strspn(p->host_pattern, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-*?[]!") != strlen(p->host_pattern)))
                        TRY(yaml_fail(c, FV(&f, "host_pattern"), "invalid host_pattern '%s' (expected host name characters and the glob's * ? [ ] !)",
                                      YQ(p->host_pattern)));
        }
        if (FV(&f, "labels"))
                TRY(get_labels(c, FK(&f, "labels"), FV(&f, "labels"), &p->labels));
        p->placement = true;
        return 0;
}

static bool placement_selects(const Profile *p, const Host *h) {
        if (!p->placement || !h->name)
                return false;
        if (p->host_pattern && fnmatch(p->host_pattern, h->name, 0) != 0)
                return false;
        STRV_FOREACH(l, p->labels)
                if (!strv_contains(h->labels, *l))
                        return false;
        return true;
}

static int parse_profile(Ctx *c, const YamlNode *k, const YamlNode *v, Objectstore cluster_os, Profile *p) {
        static const char * const keys[] = {
                "allow", "data", "fast", "db_size", "wal_size", "journal_size", "bcache", "osd", "wipe", "placement",
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

        r = mapping_fields_read(c, k, v, keys, ELEMENTSOF(keys), &f);
        if (r < 0)
                return r;

        if (FV(&f, "placement"))
                TRY(parse_placement(c, FK(&f, "placement"), FV(&f, "placement"), p));
        p->allow_given = FV(&f, "allow");
        if (FV(&f, "allow"))
                TRY(get_paths(c, FK(&f, "allow"), FV(&f, "allow"), "absolute device paths or globs such as /dev/sd[c-f]", &p->allow));
        if (!FV(&f, "data"))
                TRY(yaml_fail(c, v, "missing key 'data' in profile '%s' (expected the data devices)", YQ(p->name)));
        else
                TRY(parse_selector(c, FK(&f, "data"), FV(&f, "data"), false, p));
        if (FV(&f, "fast"))
                TRY(parse_selector(c, FK(&f, "fast"), FV(&f, "fast"), true, p));
        static const char * const size_keys[] = { "db_size", "wal_size", "journal_size" };
        SizeSpec *size_dst[] = { &p->db_size, &p->wal_size, &p->journal_size };
        for (size_t i = 0; i < ELEMENTSOF(size_keys); i++)
                if (FV(&f, size_keys[i]))
                        TRY(get_size(c, FK(&f, size_keys[i]), FV(&f, size_keys[i]), SIZE_USE_PARTITION, size_dst[i]));
        const YamlNode *per_device = NULL;
        if (FV(&f, "bcache"))
                TRY(parse_bcache(c, FK(&f, "bcache"), FV(&f, "bcache"), &p->bcache));
        if (FV(&f, "osd"))
                TRY(parse_osd(c, FK(&f, "osd"), FV(&f, "osd"), &p->osd, &per_device));
        if (FV(&f, "wipe"))
                TRY(yaml_get_bool(c, FK(&f, "wipe"), FV(&f, "wipe"), &p->wipe));

        /* Below Ceph's guidance: warned, not refused (a lab may want tiny partitions). */
        for (size_t i = 0; i < ELEMENTSOF(size_keys); i++)
                if (size_dst[i]->kind == SIZE_BYTES &&
                    (r = warn_small(c, FK(&f, size_keys[i]), FV(&f, size_keys[i]), size_dst[i]->bytes,
                                    p->wal_size.kind != SIZE_UNSET)) < 0)
                        return r;

        /* Consistency of the profile as a whole. */
        static const char * const on_fast[] = { "db_size", "wal_size", "journal_size", "bcache" };
        if (!p->fast.set)
                for (size_t i = 0; i < ELEMENTSOF(on_fast); i++) {
                        const YamlNode *key = FK(&f, on_fast[i]);
                        if (!key || (streq(on_fast[i], "bcache") && !p->bcache.enabled))
                                continue;
                        TRY(yaml_fail(c, key, "'%s' given without 'fast' in profile '%s' (expected a 'fast' section to hold it)",
                                      on_fast[i], YQ(p->name)));
                }
        if (p->osd.objectstore == OBJECTSTORE_FILESTORE) {
                if (FK(&f, "db_size"))
                        TRY(yaml_fail(c, FK(&f, "db_size"), "'db_size' with objectstore filestore in profile '%s' (expected 'journal_size' for filestore)",
                                      YQ(p->name)));
                if (FK(&f, "wal_size"))
                        TRY(yaml_fail(c, FK(&f, "wal_size"), "'wal_size' with objectstore filestore in profile '%s' (expected 'journal_size' for filestore)",
                                      YQ(p->name)));
        } else if (FK(&f, "journal_size"))
                TRY(yaml_fail(c, FK(&f, "journal_size"), "'journal_size' with objectstore bluestore in profile '%s' (expected 'db_size' and 'wal_size' for bluestore)",
                              YQ(p->name)));
        /* cephprov creates FileStore OSDs only as a conversion's "before" (lab); ceph-volume's
         * dmcrypt of FileStore (a second LUKS device for the journal) is not one it makes */
        if (p->osd.encrypted && p->osd.objectstore == OBJECTSTORE_FILESTORE)
                TRY(yaml_fail_at(c, p->osd.encrypted_mark, "'encrypted' with objectstore filestore in profile '%s' (expected bluestore: cephprov creates encrypted OSDs with ceph-volume's dmcrypt on BlueStore)",
                                 YQ(p->name)));
        if (p->osd.per_device > 1 && (p->db_size.kind != SIZE_UNSET || p->wal_size.kind != SIZE_UNSET || p->bcache.enabled))
                TRY(yaml_fail(c, per_device, "'per_device' %u with DB, WAL or bcache partitions in profile '%s' (expected 1)",
                              p->osd.per_device, YQ(p->name)));
        if (p->fast.set && p->data.devices && p->fast.devices)
                STRV_FOREACH(d, p->fast.devices)
                        if (strv_contains(p->data.devices, *d)) {
                                TRY(yaml_fail(c, FK(&f, "fast"), "device '%s' is both a data and a fast device in profile '%s' (expected separate devices)",
                                              YQ(*d), YQ(p->name)));
                                break;
                        }
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
                bool dup = false;
                for (size_t j = 0; j < i && !dup; j++)
                        if (l->profiles[j].name && streq(l->profiles[j].name, pk->value)) {
                                TRY(yaml_fail(c, pk, "duplicate profile '%s' (first given at line %u, column %u)",
                                              YQ(pk->value), l->profiles[j].mark.line, l->profiles[j].mark.column));
                                dup = true;
                        }
                l->n_profiles++;
                if (dup)
                        continue; /* left without a name: hosts find the first one */
                TRY(parse_profile(c, pk, v->children[2 * i + 1], l->objectstore, &l->profiles[i]));
        }
        return 0;
}

static bool selector_by_filter(const DeviceSelector *s) {
        return s->set && !s->devices;
}

/* Whether s is a valid dotted-quad IPv4 address: four numbers 0..255, no leading zeros. */
static bool ipv4_valid(const char *s) {
        unsigned parts = 0;
        for (const char *p = s;; p++) {
                const char *q = p;
                unsigned v = 0;
                while (isdigit((unsigned char) *q)) {
                        v = v * 10 + (unsigned) (*q - '0');
                        if (v > 255 || q - p >= 3)
                                return false;
                        q++;
                }
                if (q == p || (q - p > 1 && *p == '0'))
                        return false;
                parts++;
                if (*q == 0)
                        return parts == 4;
                if (*q != '.' || parts == 4)
                        return false;
                p = q;
        }
}

/* Whether s is an IPv6 address (with an optional %zone). */
static bool ipv6_valid(const char *s) {
        char buf[INET6_ADDRSTRLEN + 1];
        struct in6_addr a;
        size_t n = strcspn(s, "%");
        if (n >= sizeof buf || (s[n] == '%' && !yaml_name_valid(s + n + 1, "._-", 32)))
                return false;
        memcpy(buf, s, n);
        buf[n] = 0;
        return inet_pton(AF_INET6, buf, &a) == 1;
}

/* RFC 1123 host names, also allowing '_' (names in /etc/hosts often have it): labels of 1 to
 * 63 letters, digits, '-' or '_', not starting or ending with '-'. */
static bool dns_name_valid(const char *s) {
        if (strlen(s) > 253)
                return false;
        for (const char *p = s;;) {
                size_t n = strcspn(p, ".");
                if (n == 0 || n > 63 || p[0] == '-' || p[n - 1] == '-')
                        return false;
                for (size_t i = 0; i < n; i++)
                        if (!isalnum((unsigned char) p[i]) && p[i] != '-' && p[i] != '_')
                                return false;
                if (p[n] == 0)
                        return true;
                p += n + 1;
        }
}

/* The address a host is reached at (explicit, or its name): an IPv4 or IPv6 address or a
 * DNS name, and no port (that is the 'port' key's). `k`/`v` are the key and value the address
 * came from ('address', or 'name' when it defaults to the name). */
static int check_address(Ctx *c, const YamlNode *k, const YamlNode *v, const char *a) {
        const char *colon = strchr(a, ':');
        if (colon && !strchr(colon + 1, ':')) {
                const char *port = colon + 1;
                if (*port && strspn(port, "0123456789") == strlen(port))
                        return yaml_fail(c, v, "%s %s has a port: write %s: %.*s and port: %s (in the host, or ssh.port for every host)",
                                         YQ(k->value), YQ(a), YQ(k->value), (int) (colon - a), a, port);
                return yaml_bad_value(c, k, v, "a host name or an IP address, without a port");
        }
        if (colon) {
                if (!ipv6_valid(a))
                        return yaml_bad_value(c, k, v, "an IPv6 address such as fd00::11");
                return 0;
        }
        if (strspn(a, "0123456789.") == strlen(a)) {
                if (!ipv4_valid(a))
                        return yaml_bad_value(c, k, v, "an IPv4 address of four numbers from 0 to 255 without leading zeros, such as 10.0.0.11");
                return 0;
        }
        if (!dns_name_valid(a))
                return yaml_bad_value(c, k, v, "a host name of dot-separated labels of 1 to 63 letters, digits, '-' or '_', not starting or ending with '-'");
        return 0;
}

/* `profiles_complete`: every profile was read with its name, so a name not found is unknown
 * (otherwise it may be one whose entry had an error, already reported). */
static int parse_host(Ctx *c, const YamlNode *k, const YamlNode *v, Layout *l, bool profiles_complete, Host *h) {
        static const char * const keys[] = {
                "user", "port", "identity", "known_hosts", "host_key_checking", "connect_timeout",
                "command_timeout", "agent_path", /* the SSH overrides, read by parse_ssh_overrides() */
                "name", "profile", "address", "transport", "allow", "labels",
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
        /* Without a valid name the rest of the entry cannot be named in messages: stop here. */
        if (!FV(&f, "name"))
                return yaml_missing(c, v, "name", "the host's name");
        r = yaml_get_name(c, FK(&f, "name"), FV(&f, "name"), "._-", 253, name_chars_expected, &h->name);
        if (r < 0)
                return r;
        h->name_mark = FV(&f, "name")->mark; /* a duplicate name is found once all are read */

        /* SSH: defaults, then this host's overrides. */
        h->ssh = l->ssh;
        h->ssh.user = strdup_null(l->ssh.user);
        h->ssh.identity = strdup_null(l->ssh.identity);
        h->ssh.known_hosts = strdup_null(l->ssh.known_hosts);
        h->ssh.agent_path = strdup_null(l->ssh.agent_path);
        if ((l->ssh.user && !h->ssh.user) || (l->ssh.identity && !h->ssh.identity) ||
            (l->ssh.known_hosts && !h->ssh.known_hosts) || (l->ssh.agent_path && !h->ssh.agent_path))
                return yaml_oom(c);
        TRY(parse_ssh_overrides(c, &f, &h->ssh));

        TRY_ENUM_FIELD(&f, "transport", transport_names, &h->transport);

        if (FV(&f, "address")) {
                r = yaml_get_name(c, FK(&f, "address"), FV(&f, "address"), ".:-_%", 253,
                                  "a host name or IP address", &h->address);
                if (r >= 0)
                        r = check_address(c, FK(&f, "address"), FV(&f, "address"), h->address);
                h->address_mark = FV(&f, "address")->mark;
                TRY(r);
        } else {
                if (!(h->address = strdup(h->name)))
                        return yaml_oom(c);
                h->address_mark = FV(&f, "name")->mark;
                /* The name is the address: it must be one, unless the host is this machine. */
                if (h->transport == TRANSPORT_SSH)
                        TRY(check_address(c, FK(&f, "name"), FV(&f, "name"), h->address));
        }
        if (!h->address && !(h->address = strdup(h->name)))
                return yaml_oom(c);

        if (FV(&f, "profile")) {
                const YamlNode *pv = FV(&f, "profile");
                r = yaml_expect_scalar(c, FK(&f, "profile"), pv, "the name of a profile");
                if (r >= 0) {
                        h->profile = layout_find_profile(l, pv->value);
                        if (!h->profile && profiles_complete) {
                                _cleanup_(freep) const char **names = calloc(l->n_profiles + 1, sizeof(char *));
                                if (!names)
                                        return yaml_oom(c);
                                size_t n = 0;
                                for (size_t i = 0; i < l->n_profiles; i++)
                                        if (l->profiles[i].name)
                                                names[n++] = l->profiles[i].name;
                                r = yaml_unknown_name(c, pv, "profile", names, n);
                        }
                }
                TRY(r);
        }

        if (FV(&f, "labels"))
                TRY(get_labels(c, FK(&f, "labels"), FV(&f, "labels"), &h->labels));
        /* no 'profile': the one profile whose placement selects the host, if any */
        if (!FV(&f, "profile") && profiles_complete) {
                const Profile *found = NULL;
                for (size_t i = 0; i < l->n_profiles; i++) {
                        const Profile *p = &l->profiles[i];
                        if (!placement_selects(p, h))
                                continue;
                        if (found)
                                return yaml_fail(c, FV(&f, "name"),
                                                 "host '%s' is selected by the placement of profile '%s' (line %u) and of profile '%s' (line %u) (expected one: give the host 'profile:', or narrow a placement)",
                                                 YQ(h->name), YQ(found->name), found->mark.line, YQ(p->name), p->mark.line);
                        found = p;
                }
                h->profile = found;
        }

        if (FV(&f, "allow"))
                TRY(get_paths(c, FK(&f, "allow"), FV(&f, "allow"), "absolute device paths or globs such as /dev/sd[c-f]", &h->allow));
        else if (h->profile && h->profile->allow) {
                h->allow = strv_copy(h->profile->allow);
                if (!h->allow)
                        return yaml_oom(c);
        }

        /* A selector without explicit devices picks among the allowed devices: without an
         * allow-list it would pick among all disks of the host. Refused. */
        if (h->profile && !h->allow && !FV(&f, "allow") && !h->profile->allow_given &&
            (selector_by_filter(&h->profile->data) || selector_by_filter(&h->profile->fast)))
                TRY(yaml_fail(c, FV(&f, "profile") ? FV(&f, "profile") : FV(&f, "name"),
                              "host '%s' has no allow-list but profile '%s' selects devices by filters (expected 'allow' in the host or the profile, or explicit 'devices')",
                              YQ(h->name), YQ(h->profile->name)));
        return 0;
}

/* The hosts sorted by a key, for the checks that compare every host with the others: a
 * sort, not a pass over the earlier hosts for each (validate of 200,000 hosts took 347 s). */
static const Host *sort_hosts;

static int by_name(const void *a, const void *b) {
        const Host *x = &sort_hosts[*(const size_t *) a], *y = &sort_hosts[*(const size_t *) b];
        int r = strcmp(x->name, y->name);
        return r ? r : (x < y ? -1 : x > y);
}

static int by_address(const void *a, const void *b) {
        const Host *x = &sort_hosts[*(const size_t *) a], *y = &sort_hosts[*(const size_t *) b];
        int r = strcasecmp(x->address, y->address);
        if (!r)
                r = (x->ssh.port > y->ssh.port) - (x->ssh.port < y->ssh.port);
        return r ? r : (x < y ? -1 : x > y);
}

/* The hosts (their indexes) that `keep` accepts, sorted with `cmp`, in *ret (n in *ret_n). */
static int hosts_sorted(const Layout *l, bool (*keep)(const Host *h), int (*cmp)(const void *, const void *),
                        size_t **ret, size_t *ret_n) {
        size_t *v = calloc(l->n_hosts + 1, sizeof(size_t)), n = 0;
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < l->n_hosts; i++)
                if (keep(&l->hosts[i]))
                        v[n++] = i;
        sort_hosts = l->hosts;
        qsort(v, n, sizeof(size_t), cmp);
        *ret = v;
        *ret_n = n;
        return 0;
}

static bool has_name(const Host *h) {
        return h->name;
}

static bool ssh_addressed(const Host *h) {
        return h->name && h->address && h->transport == TRANSPORT_SSH;
}

/* A host name given twice: the later ones are errors, in file order. */
static int check_names(Ctx *c, const Layout *l) {
        _cleanup_(freep) size_t *v = NULL, *first = NULL;
        size_t n = 0;
        if (hosts_sorted(l, has_name, by_name, &v, &n) < 0 || !(first = calloc(l->n_hosts + 1, sizeof(size_t))))
                return yaml_oom(c);
        for (size_t i = 0; i < l->n_hosts; i++)
                first[i] = SIZE_MAX;
        for (size_t k = 1; k < n; k++)
                if (streq(l->hosts[v[k]].name, l->hosts[v[k - 1]].name))
                        first[v[k]] = first[v[k - 1]] != SIZE_MAX ? first[v[k - 1]] : v[k - 1];
        for (size_t i = 0; i < l->n_hosts; i++) {
                if (first[i] == SIZE_MAX)
                        continue;
                const Host *h = &l->hosts[i], *o = &l->hosts[first[i]];
                TRY(yaml_fail_at(c, h->name_mark, "duplicate host name '%s' (first given at line %u, column %u)",
                                 YQ(h->name), o->mark.line, o->mark.column));
        }
        return 0;
}

/* Two hosts reached at the same address and port are one machine under two names: its
 * disks would be planned twice. Names compare without case, as DNS does. Each host is
 * named with the first earlier one at its address under another name (a duplicate name is
 * reported as such), in file order. */
static int check_addresses(Ctx *c, const Layout *l) {
        _cleanup_(freep) size_t *v = NULL, *other = NULL;
        size_t n = 0;
        if (hosts_sorted(l, ssh_addressed, by_address, &v, &n) < 0 || !(other = calloc(l->n_hosts + 1, sizeof(size_t))))
                return yaml_oom(c);
        for (size_t i = 0; i < l->n_hosts; i++)
                other[i] = SIZE_MAX;
        for (size_t run = 0; run < n;) {
                size_t end = run + 1;
                while (end < n && strcasecmp(l->hosts[v[run]].address, l->hosts[v[end]].address) == 0 &&
                       l->hosts[v[run]].ssh.port == l->hosts[v[end]].ssh.port)
                        end++;
                /* within a run, in file order (the sort's tie-break): the first earlier host of
                 * another name; runs are short (one machine's names) */
                for (size_t k = run + 1; k < end; k++)
                        for (size_t m = run; m < k; m++)
                                if (!streq(l->hosts[v[m]].name, l->hosts[v[k]].name)) {
                                        other[v[k]] = v[m];
                                        break;
                                }
                run = end;
        }
        for (size_t i = 0; i < l->n_hosts; i++) {
                if (other[i] == SIZE_MAX)
                        continue;
                const Host *h = &l->hosts[i], *o = &l->hosts[other[i]];
                TRY(yaml_fail_at(c, h->address_mark,
                                 "host '%s' has the same address '%s' and port %u as host '%s' (line %u, column %u): one machine would be managed twice",
                                 YQ(h->name), YQ(h->address), h->ssh.port, YQ(o->name), o->address_mark.line,
                                 o->address_mark.column));
        }
        return 0;
}

static int parse_hosts(Ctx *c, const YamlNode *k, const YamlNode *v, Layout *l, bool profiles_complete) {
        if (v->type != YAML_NODE_SEQUENCE)
                return yaml_wrong_type(c, k, v, "a list of hosts");
        if (v->n_children == 0)
                return yaml_fail(c, v, "empty list 'hosts' (expected at least one host)");
        l->hosts = calloc(v->n_children, sizeof(Host));
        if (!l->hosts)
                return yaml_oom(c);
        for (size_t i = 0; i < v->n_children; i++) {
                l->n_hosts++;
                TRY(parse_host(c, k, v->children[i], l, profiles_complete, &l->hosts[i]));
        }
        TRY(check_names(c, l));
        return check_addresses(c, l);
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

static int check_admin_host(Ctx *c, const Layout *l, const YamlNode *cv, const YamlNode *v) {
        /* admin_host: required as soon as one host is reached over SSH, and must be a host. */
        for (size_t i = 0; i < l->n_hosts; i++)
                if (!l->hosts[i].name)
                        return 0; /* an entry without a valid name (reported) may be the one meant */
        if (l->admin_host) {
                if (layout_find_host(l, l->admin_host))
                        return 0;
                _cleanup_(freep) const char **names = calloc(l->n_hosts + 1, sizeof(char *));
                if (!names)
                        return yaml_oom(c);
                size_t n = 0;
                for (size_t i = 0; i < l->n_hosts; i++)
                        if (l->hosts[i].name)
                                names[n++] = l->hosts[i].name;
                const char *best = yaml_closest_match(v->value, names, n);
                if (best)
                        return yaml_fail(c, v, "admin_host '%s' is not in 'hosts' (did you mean '%s'?)", YQ(v->value), best);
                _cleanup_(freep) char *all = yaml_join_names(names, n);
                if (!all)
                        return yaml_oom(c);
                return yaml_fail(c, v, "admin_host '%s' is not in 'hosts' (expected one of: %s)", YQ(v->value), all);
        }
        if (v)
                return 0; /* given but invalid: already reported */
        for (size_t i = 0; i < l->n_hosts; i++)
                if (l->hosts[i].transport == TRANSPORT_SSH)
                        return yaml_missing(c, cv, "admin_host",
                                            "the name of the host where the ceph CLI runs, required when hosts use ssh");
        return 0;
}

static int layout_walk(Ctx *c, const YamlNode *root, Layout *l) {
        static const char * const keys[] = { "cluster", "ssh", "throttle", "profiles", "hosts" };
        static const char * const cluster_keys[] = { "name", "admin_host", "objectstore", "fsid" };
        YamlFields f, cf;
        int r;

        r = yaml_fields_read(c, root, keys, ELEMENTSOF(keys), NULL, &f);
        if (r < 0)
                return r;
        if (!FV(&f, "cluster"))
                TRY(yaml_missing(c, root, "cluster", "a 'cluster' section with at least 'admin_host'"));
        if (!FV(&f, "hosts"))
                TRY(yaml_missing(c, root, "hosts", "a list of hosts"));

        /* cluster */
        const YamlNode *ck = FK(&f, "cluster"), *cv = FV(&f, "cluster");
        bool cluster_ok = cv && (r = yaml_expect_mapping(c, ck, cv)) >= 0;
        if (cv && !cluster_ok)
                TRY(r);
        if (cluster_ok && (r = yaml_fields_read(c, cv, cluster_keys, ELEMENTSOF(cluster_keys), NULL, &cf)) < 0) {
                TRY(r);
                cluster_ok = false;
        }
        if (cluster_ok) {
                if (FV(&cf, "name"))
                        TRY(yaml_get_name(c, FK(&cf, "name"), FV(&cf, "name"), "_-", 64, "letters, digits, '_' and '-'", &l->cluster_name));
                TRY_ENUM_FIELD(&cf, "objectstore", objectstore_names, &l->objectstore);
                if (FV(&cf, "fsid")) {
                        r = yaml_get_string(c, FK(&cf, "fsid"), FV(&cf, "fsid"), "a UUID such as 8a9c6f2e-...", &l->fsid);
                        if (r >= 0 && !uuid_valid(l->fsid))
                                r = yaml_bad_value(c, FK(&cf, "fsid"), FV(&cf, "fsid"), "a UUID: 8-4-4-4-12 hexadecimal digits");
                        TRY(r);
                }
                if (FV(&cf, "admin_host"))
                        TRY(yaml_get_name(c, FK(&cf, "admin_host"), FV(&cf, "admin_host"), "._-", 253, "the name of a host in 'hosts'", &l->admin_host));
        }

        if (FV(&f, "ssh"))
                TRY(parse_ssh(c, FK(&f, "ssh"), FV(&f, "ssh"), l));
        if (FV(&f, "throttle"))
                TRY(parse_throttle(c, FK(&f, "throttle"), FV(&f, "throttle"), &l->throttle));
        bool profiles_complete = true;
        if (FV(&f, "profiles")) {
                TRY(parse_profiles(c, FK(&f, "profiles"), FV(&f, "profiles"), l));
                if (FV(&f, "profiles")->type != YAML_NODE_MAPPING)
                        profiles_complete = false;
                for (size_t i = 0; i < l->n_profiles; i++)
                        if (!l->profiles[i].name)
                                profiles_complete = false;
        }
        if (!FV(&f, "hosts"))
                return 0;
        r = parse_hosts(c, FK(&f, "hosts"), FV(&f, "hosts"), l, profiles_complete);
        if (r < 0)
                return r;
        if (cluster_ok)
                return check_admin_host(c, l, cv, FV(&cf, "admin_host"));
        return 0;
}

int layout_from_tree(const char *name, const YamlNode *root, bool all_errors, YamlDiags *diags, Layout **ret,
                     Error *err) {
        _cleanup_(yaml_diags_done) YamlDiags local = {};
        Ctx ctx = { .name = name, .err = err, .diags = diags ?: &local, .all_errors = all_errors }, *c = &ctx;
        int r;

        if (!root || yaml_node_is_null(root))
                return yaml_fail_at(c, (YamlMark) { 1, 1 }, "empty layout (expected a mapping with 'cluster' and 'hosts')");
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

        r = layout_walk(c, root, l);
        if (r == -ENOMEM)
                return r;
        yaml_diags_sort(c->diags);
        if (r < 0)
                return r;
        if (c->diags->n_errors > 0) {
                /* The first in file order is the one the single-error API reports. */
                for (size_t i = 0; i < c->diags->n; i++)
                        if (!c->diags->items[i].warning) {
                                error_reset(err);
                                return error_set(err, EINVAL, "%s:%u:%u: %s", name, c->diags->items[i].mark.line,
                                                 c->diags->items[i].mark.column, c->diags->items[i].message);
                        }
        }

        /* Warnings stay with the layout, in file order, for whoever prints it. */
        for (size_t i = 0; i < c->diags->n; i++) {
                YamlDiag *d = &c->diags->items[i];
                YamlDiag *a = realloc(l->warnings.items, (l->warnings.n + 1) * sizeof(YamlDiag));
                if (!a)
                        return yaml_oom(c);
                l->warnings.items = a;
                a[l->warnings.n] = *d;
                if (!(a[l->warnings.n].message = strdup(d->message)))
                        return yaml_oom(c);
                l->warnings.n++;
        }
        *ret = TAKE_PTR(l);
        return 0;
}
