/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "json-util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int get_typed(json_object *o, const char *key, bool required, json_type type,
                     json_object **ret, const char *what, Error *err) {
        json_object *v;
        if (!json_object_is_type(o, json_type_object))
                return error_set(err, EINVAL, "%s: expected an object", what);
        if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null)) {
                if (required)
                        return error_set(err, EINVAL, "%s: missing key '%s'", what, key);
                return -ENOENT;
        }
        if (type == json_type_double ? !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))
                                     : !json_object_is_type(v, type))
                return error_set(err, EINVAL, "%s: key '%s' has type %s, expected %s", what, key,
                                 json_type_to_name(json_object_get_type(v)), json_type_to_name(type));
        *ret = v;
        return 0;
}

int json_get_string(json_object *o, const char *key, bool required, const char **ret, const char *what, Error *err) {
        json_object *v;
        int r = get_typed(o, key, required, json_type_string, &v, what, err);
        if (r < 0)
                return r;
        *ret = json_object_get_string(v);
        return 0;
}

int json_get_u64(json_object *o, const char *key, bool required, uint64_t *ret, const char *what, Error *err) {
        json_object *v;
        int r = get_typed(o, key, required, json_type_int, &v, what, err);
        if (r < 0)
                return r;
        errno = 0;
        uint64_t u = json_object_get_uint64(v);
        if (json_object_get_int64(v) < 0)
                return error_set(err, ERANGE, "%s: key '%s' is negative", what, key);
        *ret = u;
        return 0;
}

int json_get_int(json_object *o, const char *key, bool required, int64_t *ret, const char *what, Error *err) {
        json_object *v;
        int r = get_typed(o, key, required, json_type_int, &v, what, err);
        if (r < 0)
                return r;
        *ret = json_object_get_int64(v);
        return 0;
}

int json_get_bool(json_object *o, const char *key, bool required, bool *ret, const char *what, Error *err) {
        json_object *v;
        int r = get_typed(o, key, required, json_type_boolean, &v, what, err);
        if (r < 0)
                return r;
        *ret = json_object_get_boolean(v);
        return 0;
}

int json_get_array(json_object *o, const char *key, bool required, json_object **ret, const char *what, Error *err) {
        return get_typed(o, key, required, json_type_array, ret, what, err);
}

int json_get_object(json_object *o, const char *key, bool required, json_object **ret, const char *what, Error *err) {
        return get_typed(o, key, required, json_type_object, ret, what, err);
}

int json_add(json_object *o, const char *key, json_object *value) {
        if (!value)
                return -ENOMEM;
        if (json_object_object_add(o, key, value) < 0) {
                json_object_put(value);
                return -ENOMEM;
        }
        return 0;
}

int json_add_string(json_object *o, const char *key, const char *value) {
        if (!value)
                return 0;
        return json_add(o, key, json_object_new_string(value));
}

int json_add_u64(json_object *o, const char *key, uint64_t value) {
        return json_add(o, key, json_object_new_uint64(value));
}

int json_add_int(json_object *o, const char *key, int64_t value) {
        return json_add(o, key, json_object_new_int64(value));
}

int json_add_bool(json_object *o, const char *key, bool value) {
        return json_add(o, key, json_object_new_boolean(value));
}

json_object *json_array_new_strv(char * const *l) {
        json_object *a = json_object_new_array();
        if (!a)
                return NULL;
        for (char * const *s = l; s && *s; s++) {
                json_object *v = json_object_new_string(*s);
                if (!v || json_object_array_add(a, v) < 0) {
                        json_object_put(v);
                        json_object_put(a);
                        return NULL;
                }
        }
        return a;
}

json_object *json_array_add_object(json_object *a) {
        json_object *o = json_object_new_object();
        if (!o || json_object_array_add(a, o) < 0) {
                json_object_put(o);
                return NULL;
        }
        return o;
}

json_object *json_array_new_ints(const int *ids, size_t n) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; a && i < n; i++) {
                json_object *v = json_object_new_int(ids[i]);
                if (!v || json_object_array_add(a, v) < 0) {
                        json_object_put(v);
                        json_object_put(a);
                        return NULL;
                }
        }
        return a;
}

int json_get_int_array(json_object *o, const char *key, bool required, int **ret, size_t *ret_n, const char *what,
                       Error *err) {
        json_object *a = NULL;
        int r = json_get_array(o, key, required, &a, what, err);
        if (r < 0)
                return r;
        size_t n = json_object_array_length(a);
        int *ids = calloc(n ? n : 1, sizeof(int));
        if (!ids)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                json_object *v = json_object_array_get_idx(a, i);
                if (!json_object_is_type(v, json_type_int)) {
                        free(ids);
                        return error_set(err, EINVAL, "%s: '%s' must be a list of integers (item %zu is not)", what, key,
                                         i + 1);
                }
                ids[i] = json_object_get_int(v);
        }
        *ret = ids;
        *ret_n = n;
        return 0;
}

const char *json_to_pretty(json_object *o) {
        return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE);
}

int json_parse_file(const char *path, json_object **ret, Error *err) {
        _cleanup_(fclosep) FILE *f = fopen(path, "re");
        if (!f)
                return error_set(err, errno, "cannot open '%s': %s", path, strerror(errno));

        _cleanup_(json_tokener_freep) json_tokener *tok = json_tokener_new();
        if (!tok)
                return error_set(err, ENOMEM, "out of memory");

        char buf[65536];
        json_object *o = NULL;
        enum json_tokener_error jerr = json_tokener_continue;
        size_t n;
        while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
                o = json_tokener_parse_ex(tok, buf, (int) n);
                jerr = json_tokener_get_error(tok);
                if (jerr != json_tokener_continue)
                        break;
        }
        if (ferror(f))
                return error_set(err, EIO, "cannot read '%s'", path);
        if (jerr == json_tokener_continue)
                o = json_tokener_parse_ex(tok, "", -1), jerr = json_tokener_get_error(tok);
        if (jerr != json_tokener_success || !o) {
                json_object_put(o);
                return error_set(err, EINVAL, "'%s': invalid JSON near offset %zu: %s", path,
                                 json_tokener_get_parse_end(tok), json_tokener_error_desc(jerr));
        }
        *ret = o;
        return 0;
}

/* ---- streaming: the top object's members one by one ---- */

#define READER_EOF 256 /* not a byte */

typedef struct JsonReader {
        FILE *f;
        const char *path;
        size_t pos, len;
        size_t offset;           /* of buf[0] in the file */
        bool eof;
        char buf[65536];
} JsonReader;

/* Make sure there is a byte to look at; false at the end of the file. */
static int reader_fill(JsonReader *r, Error *err) {
        if (r->pos < r->len)
                return 1;
        if (r->eof)
                return 0;
        r->offset += r->len;
        r->pos = 0;
        r->len = fread(r->buf, 1, sizeof(r->buf), r->f);
        if (r->len == 0) {
                r->eof = true;
                if (ferror(r->f))
                        return error_set(err, EIO, "cannot read '%s'", r->path);
                return 0;
        }
        return 1;
}

/* The next byte that is not white space (not consumed), READER_EOF, or a negative errno. */
static int reader_peek(JsonReader *r, Error *err) {
        for (;;) {
                int k = reader_fill(r, err);
                if (k <= 0)
                        return k < 0 ? k : READER_EOF;
                char c = r->buf[r->pos];
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
                        return (unsigned char) c;
                r->pos++;
        }
}

static int reader_error(JsonReader *r, const char *what, Error *err) {
        return error_set(err, EINVAL, "'%s': invalid JSON near offset %zu: %s", r->path, r->offset + r->pos, what);
}

/* Expect byte c next (after white space) and consume it. */
static int reader_expect(JsonReader *r, char c, const char *what, Error *err) {
        int k = reader_peek(r, err);
        if (k < 0)
                return k;
        if (k != (unsigned char) c)
                return reader_error(r, what, err);
        r->pos++;
        return 0;
}

/* One complete value, fed to the tokener chunk by chunk. */
static int reader_value(JsonReader *r, json_tokener *tok, json_object **ret, Error *err) {
        int k = reader_peek(r, err);
        if (k < 0)
                return k;
        if (k == READER_EOF)
                return reader_error(r, "unexpected end of file", err);
        json_tokener_reset(tok);
        for (;;) {
                k = reader_fill(r, err);
                if (k < 0)
                        return k;
                json_object *o = k == 0 ? json_tokener_parse_ex(tok, "", -1)
                                        : json_tokener_parse_ex(tok, r->buf + r->pos, (int) (r->len - r->pos));
                enum json_tokener_error e = json_tokener_get_error(tok);
                if (e == json_tokener_continue && k > 0) {
                        r->pos = r->len;
                        continue;
                }
                if (e != json_tokener_success) {
                        json_object_put(o);
                        if (k > 0)
                                r->pos += json_tokener_get_parse_end(tok);
                        return reader_error(r, json_tokener_error_desc(e), err);
                }
                if (k > 0)
                        r->pos += json_tokener_get_parse_end(tok);
                *ret = o;
                return 0;
        }
}

int json_parse_file_each(const char *path, const char *array_key, json_each_func each, void *userdata,
                         json_object **ret_rest, bool *ret_seen, Error *err) {
        /* "-": standard input (`plan --inventory -`, as `validate -`) */
        bool in = streq(path, "-");
        _cleanup_(fclosep) FILE *f = in ? NULL : fopen(path, "re");
        if (!in && !f)
                return error_set(err, errno, "cannot open '%s': %s", path, strerror(errno));
        _cleanup_(freep) JsonReader *r = calloc(1, sizeof(JsonReader));
        _cleanup_(json_tokener_freep) json_tokener *tok = json_tokener_new();
        _cleanup_json_ json_object *rest = json_object_new_object();
        if (!r || !tok || !rest)
                return error_set(err, ENOMEM, "out of memory");
        r->f = in ? stdin : f;
        r->path = in ? "standard input" : path;
        bool seen = false;
        int k;

        if ((k = reader_expect(r, '{', "expected an object", err)) < 0)
                return k;
        for (size_t n = 0;; n++) {
                k = reader_peek(r, err);
                if (k < 0)
                        return k;
                if (k == '}') {
                        r->pos++;
                        break;
                }
                if (n > 0 && (k = reader_expect(r, ',', "expected ',' or '}'", err)) < 0)
                        return k;
                json_object *key = NULL;
                if ((k = reader_value(r, tok, &key, err)) < 0)
                        return k;
                if (!json_object_is_type(key, json_type_string)) {
                        json_object_put(key);
                        return reader_error(r, "expected a key", err);
                }
                _cleanup_(freep) char *name = strdup(json_object_get_string(key));
                json_object_put(key);
                if (!name)
                        return error_set(err, ENOMEM, "out of memory");
                if ((k = reader_expect(r, ':', "expected ':'", err)) < 0)
                        return k;
                k = reader_peek(r, err);
                if (k < 0)
                        return k;
                if (streq(name, array_key) && k == '[' && !seen) {
                        r->pos++;
                        seen = true;
                        for (size_t i = 0;; i++) {
                                k = reader_peek(r, err);
                                if (k < 0)
                                        return k;
                                if (k == ']') {
                                        r->pos++;
                                        break;
                                }
                                if (i > 0 && (k = reader_expect(r, ',', "expected ',' or ']'", err)) < 0)
                                        return k;
                                json_object *v = NULL;
                                if ((k = reader_value(r, tok, &v, err)) < 0)
                                        return k;
                                k = each(v, i, userdata, err);
                                json_object_put(v);
                                if (k < 0)
                                        return k;
                        }
                        continue;
                }
                json_object *v = NULL;
                if ((k = reader_value(r, tok, &v, err)) < 0)
                        return k;
                if (json_object_object_add(rest, name, v) < 0) {
                        json_object_put(v);
                        return error_set(err, ENOMEM, "out of memory");
                }
        }
        k = reader_peek(r, err);
        if (k < 0)
                return k;
        if (k != READER_EOF)
                return reader_error(r, "unexpected data after the object", err);
        *ret_rest = TAKE_PTR(rest);
        *ret_seen = seen;
        return 0;
}
