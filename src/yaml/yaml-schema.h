/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Helpers for schema walks over a YamlNode tree (layouts, playbooks, step arguments), so
 * every file cephprov reads reports its mistakes the same way:
 *
 *   NAME:LINE:COL: [PREFIX]what is wrong (what was expected)
 *
 * Unknown keys point at the key, bad values at the value (at the key when the value is
 * empty), missing keys at the mapping that lacks them. Every helper returns 0 or a negative
 * errno with the message in ctx->err; nothing is logged. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "yaml-tree.h"

typedef struct YamlCtx {
        const char *name;   /* the file name in messages */
        Error *err;
        const char *prefix; /* NULL, or put after "NAME:LINE:COL: ", e.g. "step 'wait-clean': " */
        YamlDiags *diags;   /* NULL, or where warnings (and with all_errors, errors) are kept */
        bool all_errors;    /* record every error in diags and let the walk go on (see yaml_keep_going) */
} YamlCtx;

/* Sets ctx->err (the first error wins) and, with all_errors, records the error in
 * ctx->diags. Returns -EINVAL. */
int yaml_fail(const YamlCtx *c, const YamlNode *n, const char *fmt, ...) _printf_(3, 4);
/* Like yaml_fail() at an explicit position. */
int yaml_fail_at(const YamlCtx *c, YamlMark m, const char *fmt, ...) _printf_(3, 4);
int yaml_oom(const YamlCtx *c);

/* After a failed value: 0 when the error was recorded (all_errors) so the walk may go on
 * with the next key, else r. Out of memory always stops. */
int yaml_keep_going(const YamlCtx *c, int r);

/* The walks' check of one key: a bad value returns from the walk unless yaml_keep_going()
 * says to go on. Expects the walk's YamlCtx as `c`. */
#define TRY(expr)                                                    \
        do {                                                         \
                int _r = yaml_keep_going(c, (expr));                 \
                if (_r < 0)                                          \
                        return _r;                                   \
        } while (0)

/* A warning at n: recorded in ctx->diags (dropped without one). 0 or -ENOMEM. */
int yaml_warn(const YamlCtx *c, const YamlNode *n, const char *fmt, ...) _printf_(3, 4);
int yaml_warn_at(const YamlCtx *c, YamlMark m, const char *fmt, ...) _printf_(3, 4);

/* Appends prefix (may be NULL) and msg as one diagnostic at m; the same message at the same
 * place twice (a walk that looks at a node again after an error) is kept once. 0 or -ENOMEM. */
int yaml_diags_add(YamlDiags *d, bool warning, YamlMark m, const char *prefix, const char *msg);

/* Sorts the diagnostics into file order (line, then column; equal positions keep the order
 * they were found in). */
void yaml_diags_sort(YamlDiags *d);

/* A value for quoting in messages: at most 48 characters, control characters shown as '?'. */
typedef struct YamlQuoted {
        char s[64];
} YamlQuoted;
YamlQuoted yaml_quote(const char *v);
#define YQ(v) (yaml_quote(v).s)

/* "a mapping", "a list", "empty" or the quoted scalar ('value'), written into *buf. */
const char *yaml_describe(const YamlNode *n, YamlQuoted *buf);

/* "wrong type for 'KEY': a list (expected EXPECTED)" */
int yaml_wrong_type(const YamlCtx *c, const YamlNode *k, const YamlNode *v, const char *expected);
/* "invalid value 'V' for 'KEY' (expected EXPECTED)" */
int yaml_bad_value(const YamlCtx *c, const YamlNode *k, const YamlNode *v, const char *expected);
/* "missing key 'KEY' (expected EXPECTED)", at the mapping */
int yaml_missing(const YamlCtx *c, const YamlNode *map, const char *key, const char *expected);

/* "unknown WHAT 'NAME' (did you mean 'X'?)", "(expected one of: A, B)" or "(none is defined)" */
int yaml_unknown_name(const YamlCtx *c, const YamlNode *n, const char *what, const char * const *names,
                      size_t n_names);
/* "a, b, c" (malloc'd; NULL on ENOMEM) */
char *yaml_join_names(const char * const *names, size_t n);

/* A mapping's keys checked against a fixed set of names (at most YAML_FIELDS_MAX). */
#define YAML_FIELDS_MAX 24
typedef struct YamlFields {
        const char * const *names;
        size_t n;
        const YamlNode *key[YAML_FIELDS_MAX];
        const YamlNode *value[YAML_FIELDS_MAX];
} YamlFields;

/* Check `map` (a mapping) against the allowed key names: an unknown key is
 * "unknown WHAT 'K' (did you mean ...)" (`what` NULL: "key"), a second one "duplicate WHAT
 * 'K' (first given at line L, column C)". Fills f->key/value by name index. */
int yaml_fields_read(const YamlCtx *c, const YamlNode *map, const char * const *names, size_t n,
                     const char *what, YamlFields *f);
/* The key or value node given for `name`, NULL when absent. `name` must be one of the
 * names passed to yaml_fields_read() (abort() otherwise: a programming error). */
const YamlNode *yaml_field_key(const YamlFields *f, const char *name);
const YamlNode *yaml_field_value(const YamlFields *f, const char *name);

/* ---- scalar conversions: `k` is the key node (named in messages), `v` its value ------- */

int yaml_expect_mapping(const YamlCtx *c, const YamlNode *k, const YamlNode *v);
int yaml_expect_scalar(const YamlCtx *c, const YamlNode *k, const YamlNode *v, const char *expected);

/* Non-empty text without control characters. Replaces *ret (freeing what was there). */
int yaml_get_string(const YamlCtx *c, const YamlNode *k, const YamlNode *v, const char *expected, char **ret);
/* Letters, digits and the characters of `extra`, 1 to `max` characters. */
bool yaml_name_valid(const char *s, const char *extra, size_t max);
int yaml_get_name(const YamlCtx *c, const YamlNode *k, const YamlNode *v, const char *extra, size_t max,
                  const char *expected, char **ret);

/* Decimal digits only, no leading zero ("022" is octal in YAML 1.1): -EINVAL, -ERANGE. */
int yaml_parse_uint(const char *s, uint64_t *ret);
/* A plain (unquoted) integer from min to max. */
int yaml_get_uint(const YamlCtx *c, const YamlNode *k, const YamlNode *v, unsigned min, unsigned max,
                  unsigned *ret);
/* true/True/TRUE, false/False/FALSE, plain. */
int yaml_get_bool(const YamlCtx *c, const YamlNode *k, const YamlNode *v, bool *ret);
/* One of names; *ret is its index. */
int yaml_get_enum(const YamlCtx *c, const YamlNode *k, const YamlNode *v, const char * const *names, size_t n,
                  int *ret);

/* Durations: integer seconds, or with a unit: "10s", "5m", "1h"; 1 s to 7 days. */
#define YAML_DURATION_MAX (7U * 24 * 3600)
int yaml_get_duration(const YamlCtx *c, const YamlNode *k, const YamlNode *v, unsigned *ret);
/* Latencies: a decimal number with "ms" or "s" ("50ms", "0.2s"), from min_ms to max_ms; *ret
 * in milliseconds. */
int yaml_get_latency_ms(const YamlCtx *c, const YamlNode *k, const YamlNode *v, double min_ms, double max_ms,
                        double *ret);
/* Plain decimal numbers ("0.5"), no exponents or hex. */
int yaml_get_float(const YamlCtx *c, const YamlNode *k, const YamlNode *v, double min, double max, double *ret);

/* Optimal-string-alignment edit distance, for "did you mean" suggestions. */
size_t yaml_edit_distance(const char *a, const char *b);
/* The candidate closest to s if close enough to be a plausible typo (and not tied), else NULL. */
const char *yaml_closest_match(const char *s, const char * const *candidates, size_t n);
