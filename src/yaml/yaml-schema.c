/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Schema-walk helpers shared by the layout, playbook and step-argument parsers (see
 * yaml-schema.h). Moved here from the layout parser; the messages are unchanged. */

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/strv.h"
#include "yaml-schema.h"

void yaml_diags_done(YamlDiags *d) {
        if (!d)
                return;
        for (size_t i = 0; i < d->n; i++)
                free(d->items[i].message);
        free(d->items);
        *d = (YamlDiags) {};
}

/* Appends a message; the same message at the same place twice (a walk that looks at a node
 * again after an error) is kept once. */
int yaml_diags_add(YamlDiags *d, bool warning, YamlMark m, const char *prefix, const char *msg) {
        _cleanup_(freep) char *s = NULL;
        if (asprintf(&s, "%s%s", prefix ?: "", msg) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < d->n; i++)
                if (d->items[i].warning == warning && d->items[i].mark.line == m.line &&
                    d->items[i].mark.column == m.column && streq(d->items[i].message, s))
                        return 0;
        YamlDiag *a = realloc(d->items, (d->n + 1) * sizeof(YamlDiag));
        if (!a)
                return -ENOMEM;
        d->items = a;
        d->items[d->n++] = (YamlDiag) { .warning = warning, .mark = m, .message = TAKE_PTR(s) };
        if (!warning)
                d->n_errors++;
        return 0;
}

static int diag_cmp(const void *a, const void *b) {
        const YamlDiag *x = a, *y = b;
        if (x->mark.line != y->mark.line)
                return x->mark.line < y->mark.line ? -1 : 1;
        if (x->mark.column != y->mark.column)
                return x->mark.column < y->mark.column ? -1 : 1;
        return 0;
}

void yaml_diags_sort(YamlDiags *d) {
        /* Insertion sort: stable, and there are a handful of messages. */
        for (size_t i = 1; i < d->n; i++)
                for (size_t j = i; j > 0 && diag_cmp(&d->items[j - 1], &d->items[j]) > 0; j--) {
                        YamlDiag t = d->items[j];
                        d->items[j] = d->items[j - 1];
                        d->items[j - 1] = t;
                }
}

static int fail_v(const YamlCtx *c, YamlMark m, const char *fmt, va_list ap) _printf_(3, 0);
static int fail_v(const YamlCtx *c, YamlMark m, const char *fmt, va_list ap) {
        char msg[900];
        vsnprintf(msg, sizeof msg, fmt, ap);
        if (c->all_errors && c->diags && yaml_diags_add(c->diags, false, m, c->prefix, msg) < 0)
                return yaml_oom(c);
        return error_set(c->err, EINVAL, "%s:%u:%u: %s%s", c->name, m.line, m.column, c->prefix ?: "", msg);
}

int yaml_keep_going(const YamlCtx *c, int r) {
        return r == -EINVAL && c->all_errors && c->diags ? 0 : r;
}

static int warn_v(const YamlCtx *c, YamlMark m, const char *fmt, va_list ap) _printf_(3, 0);
static int warn_v(const YamlCtx *c, YamlMark m, const char *fmt, va_list ap) {
        char msg[900];
        if (!c->diags)
                return 0;
        vsnprintf(msg, sizeof msg, fmt, ap);
        return yaml_diags_add(c->diags, true, m, c->prefix, msg) < 0 ? yaml_oom(c) : 0;
}

int yaml_warn(const YamlCtx *c, const YamlNode *n, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = warn_v(c, n->mark, fmt, ap);
        va_end(ap);
        return r;
}

int yaml_warn_at(const YamlCtx *c, YamlMark m, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = warn_v(c, m, fmt, ap);
        va_end(ap);
        return r;
}

int yaml_fail(const YamlCtx *c, const YamlNode *n, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = fail_v(c, n->mark, fmt, ap);
        va_end(ap);
        return r;
}

int yaml_fail_at(const YamlCtx *c, YamlMark m, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = fail_v(c, m, fmt, ap);
        va_end(ap);
        return r;
}

int yaml_oom(const YamlCtx *c) {
        return error_set(c->err, ENOMEM, "%s: out of memory", c->name);
}

YamlQuoted yaml_quote(const char *v) {
        YamlQuoted q;
        size_t i = 0;
        for (; v[i] && i < 48; i++)
                q.s[i] = (unsigned char) v[i] < 0x20 || v[i] == 0x7f ? '?' : v[i];
        if (v[i]) {
                memcpy(q.s + i, "...", 3);
                i += 3;
        }
        q.s[i] = 0;
        return q;
}

const char *yaml_describe(const YamlNode *n, YamlQuoted *buf) {
        if (n->type == YAML_NODE_MAPPING)
                return "a mapping";
        if (n->type == YAML_NODE_SEQUENCE)
                return "a list";
        if (yaml_node_is_null(n))
                return "empty";
        *buf = yaml_quote(n->value);
        size_t l = strlen(buf->s);
        /* wrap in quotes: "'value'" */
        if (l + 3 > sizeof buf->s)
                l = sizeof buf->s - 3;
        memmove(buf->s + 1, buf->s, l);
        buf->s[0] = '\'';
        buf->s[l + 1] = '\'';
        buf->s[l + 2] = 0;
        return buf->s;
}

int yaml_wrong_type(const YamlCtx *c, const YamlNode *k, const YamlNode *v, const char *expected) {
        YamlQuoted q;
        /* An empty value has no position of its own worth showing: point at the key. */
        return yaml_fail(c, yaml_node_is_null(v) ? k : v, "wrong type for '%s': %s (expected %s)", YQ(k->value),
                         yaml_describe(v, &q), expected);
}

int yaml_bad_value(const YamlCtx *c, const YamlNode *k, const YamlNode *v, const char *expected) {
        return yaml_fail(c, v, "invalid value '%s' for '%s' (expected %s)", YQ(v->value), YQ(k->value), expected);
}

int yaml_missing(const YamlCtx *c, const YamlNode *map, const char *key, const char *expected) {
        return yaml_fail(c, map, "missing key '%s' (expected %s)", key, expected);
}

char *yaml_join_names(const char * const *names, size_t n) {
        size_t len = 1;
        for (size_t i = 0; i < n; i++)
                len += strlen(names[i]) + 2;
        char *s = malloc(len), *p = s;
        if (!s)
                return NULL;
        for (size_t i = 0; i < n; i++)
                p += sprintf(p, "%s%s", i ? ", " : "", names[i]);
        *p = 0;
        return s;
}

int yaml_unknown_name(const YamlCtx *c, const YamlNode *n, const char *what, const char * const *names,
                      size_t n_names) {
        const char *best = yaml_closest_match(n->value, names, n_names);
        if (best)
                return yaml_fail(c, n, "unknown %s '%s' (did you mean '%s'?)", what, YQ(n->value), best);
        if (n_names == 0)
                return yaml_fail(c, n, "unknown %s '%s' (none is defined)", what, YQ(n->value));
        _cleanup_(freep) char *all = yaml_join_names(names, n_names);
        if (!all)
                return yaml_oom(c);
        return yaml_fail(c, n, "unknown %s '%s' (expected one of: %s)", what, YQ(n->value), all);
}

int yaml_fields_read(const YamlCtx *c, const YamlNode *map, const char * const *names, size_t n,
                     const char *what, YamlFields *f) {
        if (!what)
                what = "key";
        if (n > YAML_FIELDS_MAX)
                abort(); /* a programming error: the table is too large */
        *f = (YamlFields) { .names = names, .n = n };
        for (size_t i = 0; i + 1 < map->n_children; i += 2) {
                const YamlNode *k = map->children[i], *v = map->children[i + 1];
                size_t j;
                for (j = 0; j < n; j++)
                        if (streq(k->value, names[j]))
                                break;
                int r;
                if (j == n) {
                        /* With all_errors the unknown key is reported and skipped. */
                        if ((r = yaml_keep_going(c, yaml_unknown_name(c, k, what, names, n))) < 0)
                                return r;
                        continue;
                }
                if (f->key[j]) {
                        r = yaml_fail(c, k, "duplicate %s '%s' (first given at line %u, column %u)", what,
                                      names[j], f->key[j]->mark.line, f->key[j]->mark.column);
                        if ((r = yaml_keep_going(c, r)) < 0)
                                return r;
                        continue;
                }
                f->key[j] = k;
                f->value[j] = v;
        }
        return 0;
}

static size_t field_index(const YamlFields *f, const char *name) {
        for (size_t i = 0; i < f->n; i++)
                if (streq(f->names[i], name))
                        return i;
        abort(); /* a programming error: the name is not in the table */
}

const YamlNode *yaml_field_key(const YamlFields *f, const char *name) {
        return f->key[field_index(f, name)];
}

const YamlNode *yaml_field_value(const YamlFields *f, const char *name) {
        return f->value[field_index(f, name)];
}

int yaml_expect_mapping(const YamlCtx *c, const YamlNode *k, const YamlNode *v) {
        return v->type == YAML_NODE_MAPPING ? 0 : yaml_wrong_type(c, k, v, "a mapping");
}

int yaml_expect_scalar(const YamlCtx *c, const YamlNode *k, const YamlNode *v, const char *expected) {
        if (v->type != YAML_NODE_SCALAR || yaml_node_is_null(v))
                return yaml_wrong_type(c, k, v, expected);
        return 0;
}

int yaml_get_string(const YamlCtx *c, const YamlNode *k, const YamlNode *v, const char *expected, char **ret) {
        int r = yaml_expect_scalar(c, k, v, expected);
        if (r < 0)
                return r;
        if (v->value[0] == 0)
                return yaml_bad_value(c, k, v, expected);
        for (const char *p = v->value; *p; p++)
                if ((unsigned char) *p < 0x20 || *p == 0x7f)
                        return yaml_fail(c, v, "control character in '%s' (expected %s)", YQ(k->value), expected);
        char *s = strdup(v->value);
        if (!s)
                return yaml_oom(c);
        free(*ret);
        *ret = s;
        return 0;
}

bool yaml_name_valid(const char *s, const char *extra, size_t max) {
        size_t l = strlen(s);
        if (l == 0 || l > max)
                return false;
        for (const char *p = s; *p; p++)
                if (!isalnum((unsigned char) *p) && !strchr(extra, *p))
                        return false;
        return true;
}

int yaml_get_name(const YamlCtx *c, const YamlNode *k, const YamlNode *v, const char *extra, size_t max,
                  const char *expected, char **ret) {
        int r = yaml_expect_scalar(c, k, v, expected);
        if (r < 0)
                return r;
        if (!yaml_name_valid(v->value, extra, max))
                return yaml_bad_value(c, k, v, expected);
        return yaml_get_string(c, k, v, expected, ret);
}

int yaml_parse_uint(const char *s, uint64_t *ret) {
        uint64_t v = 0;
        if (!isdigit((unsigned char) *s))
                return -EINVAL;
        /* "022" is octal in YAML 1.1 and decimal in 1.2: refused rather than guessed. */
        if (s[0] == '0' && s[1])
                return -EINVAL;
        for (; *s; s++) {
                if (!isdigit((unsigned char) *s))
                        return -EINVAL;
                unsigned d = (unsigned) (*s - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        *ret = v;
        return 0;
}

int yaml_get_uint(const YamlCtx *c, const YamlNode *k, const YamlNode *v, unsigned min, unsigned max,
                  unsigned *ret) {
        char expected[64];
        snprintf(expected, sizeof expected, "an integer from %u to %u", min, max);
        int r = yaml_expect_scalar(c, k, v, expected);
        if (r < 0)
                return r;
        uint64_t u;
        /* A quoted "22" is a string in YAML: refused like any other string, saying so. */
        if (!v->plain && yaml_parse_uint(v->value, &u) >= 0 && u >= min && u <= max)
                return yaml_fail(c, v, "invalid value '%s' for '%s' (expected %s, got the string \"%s\": remove the quotes)",
                                 YQ(v->value), YQ(k->value), expected, YQ(v->value));
        const char *d = v->value;
        while (d[0] == '0' && isdigit((unsigned char) d[1]))
                d++;
        if (v->plain && d != v->value && yaml_parse_uint(d, &u) >= 0 && u >= min && u <= max)
                return yaml_fail(c, v, "invalid value '%s' for '%s' (expected %s without a leading zero: write %s, as YAML 1.1 reads '%s' as an octal number)",
                                 YQ(v->value), YQ(k->value), expected, d, YQ(v->value));
        if (!v->plain || yaml_parse_uint(v->value, &u) < 0 || u < min || u > max)
                return yaml_bad_value(c, k, v, expected);
        *ret = (unsigned) u;
        return 0;
}

int yaml_get_bool(const YamlCtx *c, const YamlNode *k, const YamlNode *v, bool *ret) {
        int r = yaml_expect_scalar(c, k, v, "true or false");
        if (r < 0)
                return r;
        if (v->plain && (streq(v->value, "true") || streq(v->value, "True") || streq(v->value, "TRUE")))
                *ret = true;
        else if (v->plain && (streq(v->value, "false") || streq(v->value, "False") || streq(v->value, "FALSE")))
                *ret = false;
        else
                return yaml_bad_value(c, k, v, "true or false");
        return 0;
}

int yaml_get_enum(const YamlCtx *c, const YamlNode *k, const YamlNode *v, const char * const *names, size_t n,
                  int *ret) {
        _cleanup_(freep) char *all = yaml_join_names(names, n);
        if (!all)
                return yaml_oom(c);
        char expected[512];
        snprintf(expected, sizeof expected, "one of: %s", all);
        int r = yaml_expect_scalar(c, k, v, expected);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (streq(v->value, names[i])) {
                        *ret = (int) i;
                        return 0;
                }
        return yaml_bad_value(c, k, v, expected);
}

int yaml_get_duration(const YamlCtx *c, const YamlNode *k, const YamlNode *v, unsigned *ret) {
        static const char expected[] = "a duration from 1s to 7 days: seconds or a number with s, m or h";
        int r = yaml_expect_scalar(c, k, v, expected);
        if (r < 0)
                return r;
        size_t l = strlen(v->value);
        uint64_t mult = 1, u;
        char buf[32];
        if (l == 0 || l >= sizeof buf)
                return yaml_bad_value(c, k, v, expected);
        memcpy(buf, v->value, l + 1);
        switch (buf[l - 1]) {
        case 's': mult = 1; buf[l - 1] = 0; break;
        case 'm': mult = 60; buf[l - 1] = 0; break;
        case 'h': mult = 3600; buf[l - 1] = 0; break;
        default:
                if (!v->plain)
                        return yaml_bad_value(c, k, v, expected);
        }
        if (yaml_parse_uint(buf, &u) < 0 || u == 0 || u > YAML_DURATION_MAX / mult)
                return yaml_bad_value(c, k, v, expected);
        *ret = (unsigned) (u * mult);
        return 0;
}

int yaml_get_float(const YamlCtx *c, const YamlNode *k, const YamlNode *v, double min, double max, double *ret) {
        char expected[96];
        snprintf(expected, sizeof expected, "a number from %g to %g", min, max);
        int r = yaml_expect_scalar(c, k, v, expected);
        if (r < 0)
                return r;
        const char *s = v->value;
        char *end;
        if (!v->plain || !isdigit((unsigned char) s[0]))
                return yaml_bad_value(c, k, v, expected);
        errno = 0;
        double d = strtod(s, &end);
        if (errno != 0 || *end || !isfinite(d) || d < min || d > max)
                return yaml_bad_value(c, k, v, expected);
        for (const char *p = s; *p; p++) /* refuse hex floats, exponents, "inf" */
                if (!isdigit((unsigned char) *p) && *p != '.')
                        return yaml_bad_value(c, k, v, expected);
        *ret = d;
        return 0;
}

int yaml_get_latency_ms(const YamlCtx *c, const YamlNode *k, const YamlNode *v, double min_ms, double max_ms,
                        double *ret) {
        char expected[128];
        snprintf(expected, sizeof expected, "a latency from %gms to %gs: a number with ms or s (50ms, 0.2s)", min_ms,
                 max_ms / 1000);
        int r = yaml_expect_scalar(c, k, v, expected);
        if (r < 0)
                return r;
        const char *s = v->value;
        size_t l = strlen(s), digits;
        double mult;
        if (l > 2 && streq(s + l - 2, "ms")) {
                digits = l - 2;
                mult = 1;
        } else if (l > 1 && s[l - 1] == 's') {
                digits = l - 1;
                mult = 1000;
        } else
                return yaml_bad_value(c, k, v, expected);
        char buf[32];
        if (!v->plain || digits >= sizeof buf || !isdigit((unsigned char) s[0]))
                return yaml_bad_value(c, k, v, expected);
        memcpy(buf, s, digits);
        buf[digits] = 0;
        for (const char *p = buf; *p; p++) /* no exponents, hex or "inf" */
                if (!isdigit((unsigned char) *p) && *p != '.')
                        return yaml_bad_value(c, k, v, expected);
        char *end;
        errno = 0;
        double d = strtod(buf, &end) * mult;
        if (errno != 0 || *end || !isfinite(d) || d < min_ms || d > max_ms)
                return yaml_bad_value(c, k, v, expected);
        *ret = d;
        return 0;
}

size_t yaml_edit_distance(const char *a, const char *b) {
        size_t la = strlen(a), lb = strlen(b);
        /* Names compared here are short; longer input is never a plausible typo. */
        if (la > 64 || lb > 64)
                return SIZE_MAX;

        size_t d[65][65];
        for (size_t i = 0; i <= la; i++)
                d[i][0] = i;
        for (size_t j = 0; j <= lb; j++)
                d[0][j] = j;
        for (size_t i = 1; i <= la; i++)
                for (size_t j = 1; j <= lb; j++) {
                        size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
                        size_t v = MIN(d[i - 1][j] + 1, d[i][j - 1] + 1);
                        v = MIN(v, d[i - 1][j - 1] + cost);
                        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                                v = MIN(v, d[i - 2][j - 2] + 1); /* transposition */
                        d[i][j] = v;
                }
        return d[la][lb];
}

const char *yaml_closest_match(const char *s, const char * const *candidates, size_t n) {
        const char *best = NULL;
        size_t best_d = SIZE_MAX;
        bool tie = false;

        for (size_t i = 0; i < n; i++) {
                size_t d = yaml_edit_distance(s, candidates[i]);
                if (d < best_d) {
                        best_d = d;
                        best = candidates[i];
                        tie = false;
                } else if (d == best_d)
                        tie = true;
        }
        /* With two equally close names ("node3" vs node1 and node2) any pick would be a
         * guess: the caller lists them all instead. */
        if (!best || tie)
                return NULL;
        /* Plausible typo: up to 2 edits, and fewer than half of the word changed. */
        size_t l = strlen(best);
        if (best_d == 0 || best_d > 2 || best_d * 2 >= l)
                return NULL;
        return best;
}
