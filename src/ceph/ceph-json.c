/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* JSON helpers, releases and versions, config values, `osd new`. */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph-internal.h"
#include "ceph.h"

char *ceph_memstream_done(FILE *f, char **buf) {
        if (fclose(f) != 0) {
                free(*buf);
                return NULL;
        }
        return *buf;
}

int ceph_json_parse(const char *text, const char *what, json_object **ret, Error *err) {
        if (!text)
                return error_set(err, EINVAL, "%s: no output", what);

        const char *s = text;
        while (isspace((unsigned char) *s))
                s++;
        if (!*s)
                return error_set(err, EINVAL, "%s: empty output", what);

        _cleanup_(json_tokener_freep) json_tokener *tok = json_tokener_new();
        if (!tok)
                return -ENOMEM;
        size_t len = strlen(s);
        json_object *o = json_tokener_parse_ex(tok, s, (int) len);
        enum json_tokener_error jerr = json_tokener_get_error(tok);
        if (!o && jerr == json_tokener_continue) /* a bare number needs the end of input */
                o = json_tokener_parse_ex(tok, "", 1);
        jerr = json_tokener_get_error(tok);
        if (!o || jerr != json_tokener_success) {
                json_object_put(o);
                return error_set(err, EINVAL, "%s: not JSON: %s", what,
                                 json_tokener_error_desc(jerr == json_tokener_success ? json_tokener_error_parse_eof : jerr));
        }
        size_t used = json_tokener_get_parse_end(tok);
        for (const char *p = s + MIN(used, len); *p; p++)
                if (!isspace((unsigned char) *p)) {
                        json_object_put(o);
                        return error_set(err, EINVAL, "%s: trailing text after the JSON value", what);
                }
        *ret = o;
        return 0;
}

int ceph_json_parse_array(const char *text, const char *what, json_object **ret, Error *err) {
        _cleanup_json_ json_object *o = NULL;
        int r = ceph_json_parse(text, what, &o, err);
        if (r < 0)
                return r;
        if (!json_object_is_type(o, json_type_array))
                return error_set(err, EINVAL, "%s: expected an array", what);
        *ret = TAKE_PTR(o);
        return 0;
}

int ceph_json_dup_string(json_object *o, const char *key, char **ret) {
        json_object *v;
        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string)) {
                *ret = NULL;
                return 0;
        }
        *ret = strdup(json_object_get_string(v));
        return *ret ? 0 : -ENOMEM;
}

int ceph_json_int_array(json_object *array, const char *what, int **ret, size_t *ret_n, Error *err) {
        size_t n = json_object_array_length(array);
        _cleanup_(freep) int *v = NULL;
        if (n > 0) {
                v = calloc(n, sizeof(int));
                if (!v)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(array, i);
                if (!json_object_is_type(e, json_type_int))
                        return error_set(err, EINVAL, "%s: element %zu is not an integer", what, i);
                int64_t x = json_object_get_int64(e);
                if (x < INT32_MIN || x > INT32_MAX)
                        return error_set(err, ERANGE, "%s: element %zu is out of range", what, i);
                v[i] = (int) x;
        }
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

int ceph_json_get_intish(json_object *o, const char *key, bool required, long long *ret, const char *what,
                         Error *err) {
        json_object *v;
        if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null)) {
                if (required)
                        return error_set(err, EINVAL, "%s: missing key '%s'", what, key);
                return -ENOENT;
        }
        if (json_object_is_type(v, json_type_int)) {
                *ret = json_object_get_int64(v);
                return 0;
        }
        if (json_object_is_type(v, json_type_string)) {
                const char *s = json_object_get_string(v);
                char *end;
                errno = 0;
                long long x = strtoll(s, &end, 10);
                if (errno == 0 && end != s && *end == 0) {
                        *ret = x;
                        return 0;
                }
        }
        return error_set(err, EINVAL, "%s: key '%s' is not an integer", what, key);
}

int ceph_int_cmp(const void *a, const void *b) {
        int x = *(const int *) a, y = *(const int *) b;
        return (x > y) - (x < y);
}

int ceph_double_cmp(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

char *ceph_first_line(const char *text) {
        if (!text)
                return NULL;
        const char *s = text;
        for (;;) {
                while (*s == '\n' || *s == '\r' || *s == ' ' || *s == '\t')
                        s++;
                if (!*s)
                        return NULL;
                size_t n = strcspn(s, "\n");
                /* skip the client library's own log lines ("2026-11-30T05:03:29.808+0000 ...") */
                if (n > 4 && isdigit((unsigned char) s[0]) && isdigit((unsigned char) s[3]) && s[4] == '-') {
                        s += n;
                        continue;
                }
                while (n > 0 && isspace((unsigned char) s[n - 1]))
                        n--;
                return strndup(s, n);
        }
}

/* ---- releases ---------------------------------------------------------------------- */

static const char *const release_names[] = {
        [CEPH_RELEASE_LUMINOUS] = "luminous", [CEPH_RELEASE_MIMIC] = "mimic",
        [CEPH_RELEASE_NAUTILUS] = "nautilus", [CEPH_RELEASE_OCTOPUS] = "octopus",
        [CEPH_RELEASE_PACIFIC] = "pacific",   [CEPH_RELEASE_QUINCY] = "quincy",
        [CEPH_RELEASE_REEF] = "reef",         [CEPH_RELEASE_SQUID] = "squid",
        [CEPH_RELEASE_TENTACLE] = "tentacle",
};

const char *ceph_release_to_string(CephRelease r) {
        if ((size_t) r >= ELEMENTSOF(release_names))
                return NULL;
        return release_names[r];
}

CephRelease ceph_release_from_string(const char *name) {
        if (!name)
                return CEPH_RELEASE_UNKNOWN;
        for (size_t i = 0; i < ELEMENTSOF(release_names); i++)
                if (release_names[i] && strcmp(release_names[i], name) == 0)
                        return (CephRelease) i;
        return CEPH_RELEASE_UNKNOWN;
}

bool ceph_release_uses_mclock(CephRelease r) {
        return r >= CEPH_RELEASE_QUINCY;
}

static CephRelease release_from_major(unsigned major) {
        if (major >= CEPH_RELEASE_LUMINOUS && major <= CEPH_RELEASE_TENTACLE)
                return (CephRelease) major;
        return CEPH_RELEASE_UNKNOWN;
}

int ceph_version_parse(const char *s, CephVersion *ret, Error *err) {
        if (!s)
                return error_set(err, EINVAL, "empty ceph version");
        const char *p = s;
        if (startswith(p, "ceph version "))
                p += strlen("ceph version ");
        unsigned v[3];
        for (int i = 0; i < 3; i++) {
                if (!isdigit((unsigned char) *p))
                        return error_set(err, EINVAL, "cannot parse ceph version '%s'", s);
                char *end;
                errno = 0;
                unsigned long x = strtoul(p, &end, 10);
                if (errno != 0 || x > 100000)
                        return error_set(err, EINVAL, "cannot parse ceph version '%s'", s);
                v[i] = (unsigned) x;
                p = end;
                if (i < 2) {
                        if (*p != '.')
                                return error_set(err, EINVAL, "cannot parse ceph version '%s'", s);
                        p++;
                }
        }
        /* "16.2.15-1~bpo" or "16.2.15 (sha) pacific (stable)" */
        if (*p && *p != ' ' && *p != '-' && *p != '+')
                return error_set(err, EINVAL, "cannot parse ceph version '%s'", s);

        CephRelease rel = release_from_major(v[0]);
        /* the release name after the sha wins when the major number is beyond our table */
        const char *close = strchr(p, ')');
        if (rel == CEPH_RELEASE_UNKNOWN && close) {
                char name[32];
                if (sscanf(close + 1, " %31[a-z]", name) == 1)
                        rel = ceph_release_from_string(name);
        }
        *ret = (CephVersion) { .major = v[0], .minor = v[1], .patch = v[2], .release = rel };
        return 0;
}

static int version_cmp(const CephVersion *a, const CephVersion *b) {
        if (a->major != b->major)
                return a->major < b->major ? -1 : 1;
        if (a->minor != b->minor)
                return a->minor < b->minor ? -1 : 1;
        if (a->patch != b->patch)
                return a->patch < b->patch ? -1 : 1;
        return 0;
}

static unsigned count_daemons(json_object *o, const char *key) {
        json_object *v;
        unsigned n = 0;
        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_object))
                return 0;
        json_object_object_foreach(v, k, c) {
                (void) k;
                if (json_object_is_type(c, json_type_int))
                        n += (unsigned) json_object_get_int64(c);
        }
        return n;
}

int ceph_versions_parse(const char *json, CephVersions *ret, Error *err) {
        _cleanup_json_ json_object *o = NULL;
        int r = ceph_json_parse(json, "ceph versions", &o, err);
        if (r < 0)
                return r;
        json_object *overall;
        r = json_get_object(o, "overall", true, &overall, "ceph versions", err);
        if (r < 0)
                return r;

        CephVersions v = {};
        bool any = false;
        json_object_object_foreach(overall, key, count) {
                (void) count;
                CephVersion cv;
                r = ceph_version_parse(key, &cv, err);
                if (r < 0)
                        return error_prefix(err, r, "ceph versions");
                if (!any || version_cmp(&cv, &v.oldest) < 0)
                        v.oldest = cv;
                if (!any || version_cmp(&cv, &v.newest) > 0)
                        v.newest = cv;
                any = true;
                v.n_distinct++;
        }
        if (!any)
                return error_set(err, EINVAL, "ceph versions: no daemon reported a version");
        v.n_mon = count_daemons(o, "mon");
        v.n_mgr = count_daemons(o, "mgr");
        v.n_osd = count_daemons(o, "osd");
        v.n_mds = count_daemons(o, "mds");
        *ret = v;
        return 0;
}

/* ---- config values ----------------------------------------------------------------- */

int ceph_config_value_parse(const char *out, char **ret, Error *err) {
        if (!out)
                return error_set(err, EINVAL, "config value: no output");
        const char *s = out;
        while (isspace((unsigned char) *s))
                s++;
        size_t n = strlen(s);
        while (n > 0 && isspace((unsigned char) s[n - 1]))
                n--;
        if (n == 0)
                return error_set(err, EINVAL, "config value: empty output");

        if (s[0] == '"') {
                _cleanup_json_ json_object *o = NULL;
                _cleanup_(freep) char *copy = strndup(s, n);
                if (!copy)
                        return -ENOMEM;
                int r = ceph_json_parse(copy, "config value", &o, err);
                if (r < 0)
                        return r;
                if (!json_object_is_type(o, json_type_string))
                        return error_set(err, EINVAL, "config value: not a string");
                char *v = strdup(json_object_get_string(o));
                if (!v)
                        return -ENOMEM;
                *ret = v;
                return 0;
        }
        if (memchr(s, '\n', n))
                return error_set(err, EINVAL, "config value: more than one line");
        char *v = strndup(s, n);
        if (!v)
                return -ENOMEM;
        *ret = v;
        return 0;
}

int ceph_config_value_parse_u64(const char *out, uint64_t *ret, Error *err) {
        _cleanup_(freep) char *v = NULL;
        int r = ceph_config_value_parse(out, &v, err);
        if (r < 0)
                return r;
        if (!isdigit((unsigned char) v[0]))
                return error_set(err, EINVAL, "config value '%s' is not a number", v);
        char *end;
        errno = 0;
        unsigned long long x = strtoull(v, &end, 10);
        if (errno != 0 || *end != 0)
                return error_set(err, EINVAL, "config value '%s' is not a number", v);
        *ret = x;
        return 0;
}

/* ---- config dump ------------------------------------------------------------------ */

CephConfigDump *ceph_config_dump_free(CephConfigDump *d) {
        if (!d)
                return NULL;
        for (size_t i = 0; i < d->n_entries; i++) {
                free(d->entries[i].section);
                free(d->entries[i].name);
                free(d->entries[i].value);
                free(d->entries[i].mask);
        }
        free(d->entries);
        free(d);
        return NULL;
}

int ceph_config_dump_parse(const char *json, CephConfigDump **ret, Error *err) {
        const char *what = "ceph config dump";
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse_array(json, what, &root, err);
        if (r < 0)
                return r;
        size_t n = json_object_array_length(root);
        _cleanup_(ceph_config_dump_freep) CephConfigDump *d = calloc(1, sizeof(CephConfigDump));
        if (!d)
                return -ENOMEM;
        d->entries = calloc(n ? n : 1, sizeof(CephConfigEntry));
        if (!d->entries)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(root, i);
                CephConfigEntry *c = &d->entries[d->n_entries++];
                const char *section, *name, *value;
                if ((r = json_get_string(e, "section", true, &section, what, err)) < 0 ||
                    (r = json_get_string(e, "name", true, &name, what, err)) < 0 ||
                    (r = json_get_string(e, "value", true, &value, what, err)) < 0)
                        return r;
                c->section = strdup(section);
                c->name = strdup(name);
                c->value = strdup(value);
                if (!c->section || !c->name || !c->value || ceph_json_dup_string(e, "mask", &c->mask) < 0)
                        return -ENOMEM;
                if (c->mask && !c->mask[0]) {
                        free(c->mask);
                        c->mask = NULL;
                }
        }
        *ret = TAKE_PTR(d);
        return 0;
}

const CephConfigEntry *ceph_config_dump_find(const CephConfigDump *d, const char *section, const char *name) {
        for (size_t i = 0; d && section && name && i < d->n_entries; i++)
                if (!d->entries[i].mask && strcmp(d->entries[i].section, section) == 0 &&
                    strcmp(d->entries[i].name, name) == 0)
                        return &d->entries[i];
        return NULL;
}

CephConfigShow *ceph_config_show_free(CephConfigShow *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_entries; i++) {
                free(s->entries[i].name);
                free(s->entries[i].value);
                free(s->entries[i].source);
        }
        free(s->entries);
        free(s);
        return NULL;
}

int ceph_config_show_parse(const char *json, CephConfigShow **ret, Error *err) {
        const char *what = "ceph config show";
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse_array(json, what, &root, err);
        if (r < 0)
                return r;
        size_t n = json_object_array_length(root);
        _cleanup_(ceph_config_show_freep) CephConfigShow *s = calloc(1, sizeof(CephConfigShow));
        if (!s || !(s->entries = calloc(n ? n : 1, sizeof(CephConfigShowEntry))))
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(root, i);
                CephConfigShowEntry *c = &s->entries[s->n_entries++];
                const char *name, *value, *source;
                if ((r = json_get_string(e, "name", true, &name, what, err)) < 0 ||
                    (r = json_get_string(e, "value", true, &value, what, err)) < 0 ||
                    (r = json_get_string(e, "source", true, &source, what, err)) < 0)
                        return r;
                if (!(c->name = strdup(name)) || !(c->value = strdup(value)) || !(c->source = strdup(source)))
                        return error_set(err, ENOMEM, "out of memory");
        }
        *ret = TAKE_PTR(s);
        return 0;
}

const CephConfigShowEntry *ceph_config_show_find(const CephConfigShow *s, const char *name) {
        for (size_t i = 0; s && name && i < s->n_entries; i++)
                if (strcmp(s->entries[i].name, name) == 0)
                        return &s->entries[i];
        return NULL;
}

/* ---- osd new ----------------------------------------------------------------------- */

int ceph_osd_new_parse(const char *out, int *ret_id, Error *err) {
        _cleanup_json_ json_object *o = NULL;
        int r = ceph_json_parse(out, "osd new", &o, err);
        if (r < 0)
                return r;
        int64_t id;
        if (json_object_is_type(o, json_type_int))
                id = json_object_get_int64(o);
        else if (json_object_is_type(o, json_type_object)) {
                r = json_get_int(o, "osdid", true, &id, "osd new", err);
                if (r < 0)
                        return r;
        } else
                return error_set(err, EINVAL, "osd new: expected an id, got %s",
                                 json_type_to_name(json_object_get_type(o)));
        if (id < 0 || id > INT32_MAX)
                return error_set(err, ERANGE, "osd new: id %" PRId64 " out of range", id);
        *ret_id = (int) id;
        return 0;
}
