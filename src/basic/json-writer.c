/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "json-writer.h"

#include <errno.h>
#include <string.h>

#include "json-util.h"

void json_writer_init(JsonWriter *w, FILE *f) {
        w->f = f;
        w->depth = 0;
        w->has_children[0] = false;
        w->failed = w->write_failed = false;
        w->len = 0;
}

static void flush_buf(JsonWriter *w) {
        if (w->len > 0 && fwrite(w->buf, 1, w->len, w->f) != w->len)
                w->write_failed = true;
        w->len = 0;
}

static inline void put(JsonWriter *w, const char *s, size_t n) {
        if (n > sizeof(w->buf) - w->len) {
                flush_buf(w);
                if (n > sizeof(w->buf)) {
                        if (fwrite(s, 1, n, w->f) != n)
                                w->write_failed = true;
                        return;
                }
        }
        memcpy(w->buf + w->len, s, n);
        w->len += n;
}

static inline void put_c(JsonWriter *w, char c) {
        if (w->len == sizeof(w->buf))
                flush_buf(w);
        w->buf[w->len++] = c;
}

static void put_s(JsonWriter *w, const char *s) {
        put(w, s, strlen(s));
}

static void indent(JsonWriter *w, unsigned level) {
        static const char spaces[] = "                                                                ";
        size_t n = 2 * (size_t) level;
        while (n > 0) {
                size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
                put(w, spaces, k);
                n -= k;
        }
}

/* json-c's json_escape_str() with JSON_C_TO_STRING_NOSLASHESCAPE: the short escapes, other
 * control characters as \u00XX, everything else (UTF-8, DEL) as is. */
static void put_string(JsonWriter *w, const char *s) {
        static const char hex[] = "0123456789abcdef";
        const char *run = s;

        put_c(w, '"');
        for (;;) {
                s += strcspn(s, "\"\\\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"
                                "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f");
                if (!*s)
                        break;
                unsigned char c = (unsigned char) *s;
                const char *esc = NULL;
                switch (c) {
                case '"': esc = "\\\""; break;
                case '\\': esc = "\\\\"; break;
                case '\b': esc = "\\b"; break;
                case '\f': esc = "\\f"; break;
                case '\n': esc = "\\n"; break;
                case '\r': esc = "\\r"; break;
                case '\t': esc = "\\t"; break;
                default: break;
                }
                put(w, run, s - run);
                if (esc)
                        put_s(w, esc);
                else {
                        char u[] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf] };
                        put(w, u, sizeof(u));
                }
                run = ++s;
        }
        put(w, run, s - run);
        put_c(w, '"');
}

/* What goes before a value: the separator, the newline and indent, the key. */
static void member(JsonWriter *w, const char *key) {
        if (w->depth > 0) {
                if (w->has_children[w->depth])
                        put_c(w, ',');
                put_c(w, '\n');
                w->has_children[w->depth] = true;
                indent(w, w->depth);
        }
        if (key) {
                put_string(w, key);
                put(w, ": ", 2);
        }
}

static void open_container(JsonWriter *w, const char *key, char c) {
        member(w, key);
        put_c(w, c);
        if (w->depth >= JSON_WRITER_MAX_DEPTH) {
                w->failed = true;
                return;
        }
        w->depth++;
        w->has_children[w->depth] = false;
}

static void close_container(JsonWriter *w, char c) {
        if (w->depth == 0) {
                w->failed = true;
                return;
        }
        w->depth--;
        /* json-c puts the closing bracket on its own line, also for an empty container */
        put_c(w, '\n');
        indent(w, w->depth);
        put_c(w, c);
}

void json_writer_begin_object(JsonWriter *w, const char *key) {
        open_container(w, key, '{');
}

void json_writer_end_object(JsonWriter *w) {
        close_container(w, '}');
}

void json_writer_begin_array(JsonWriter *w, const char *key) {
        open_container(w, key, '[');
}

void json_writer_end_array(JsonWriter *w) {
        close_container(w, ']');
}

void json_writer_string(JsonWriter *w, const char *key, const char *value) {
        if (!value)
                return;
        member(w, key);
        put_string(w, value);
}

static void put_u64(JsonWriter *w, uint64_t v) {
        char b[24];
        size_t i = sizeof(b);
        do {
                b[--i] = (char) ('0' + v % 10);
                v /= 10;
        } while (v > 0);
        put(w, b + i, sizeof(b) - i);
}

void json_writer_u64(JsonWriter *w, const char *key, uint64_t value) {
        member(w, key);
        put_u64(w, value);
}

void json_writer_int(JsonWriter *w, const char *key, int64_t value) {
        member(w, key);
        if (value < 0) {
                put_c(w, '-');
                put_u64(w, (uint64_t) 0 - (uint64_t) value);
        } else
                put_u64(w, (uint64_t) value);
}

void json_writer_bool(JsonWriter *w, const char *key, bool value) {
        member(w, key);
        put_s(w, value ? "true" : "false");
}

void json_writer_strv(JsonWriter *w, const char *key, char * const *l) {
        json_writer_begin_array(w, key);
        for (char * const *s = l; s && *s; s++)
                json_writer_string(w, NULL, *s);
        json_writer_end_array(w);
}

void json_writer_tree(JsonWriter *w, const char *key, json_object *o) {
        member(w, key);
        const char *s = o ? json_to_pretty(o) : "null";
        /* the tree's own lines, shifted to this depth: json-c escapes newlines in strings,
         * so every raw newline is a line break of the layout */
        for (const char *nl; (nl = strchr(s, '\n')); s = nl + 1) {
                put(w, s, nl - s + 1);
                indent(w, w->depth);
        }
        put_s(w, s);
}

int json_writer_finish(JsonWriter *w) {
        put_c(w, '\n');
        flush_buf(w);
        if (fflush(w->f) != 0 || ferror(w->f) || w->write_failed)
                return -EIO;
        if (w->failed || w->depth != 0)
                return -EINVAL;
        return 0;
}
