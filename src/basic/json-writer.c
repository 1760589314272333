/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "json-writer.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "json-util.h"

void json_writer_init(JsonWriter *w, FILE *f) {
        *w = (JsonWriter) { .f = f };
}

static void indent(JsonWriter *w, unsigned level) {
        for (unsigned i = 0; i < level; i++)
                fputs("  ", w->f);
}

/* json-c's json_escape_str() with JSON_C_TO_STRING_NOSLASHESCAPE: the short escapes, other
 * control characters as \u00XX, everything else (UTF-8, DEL) as is. */
static void put_string(JsonWriter *w, const char *s) {
        static const char hex[] = "0123456789abcdef";
        const char *run = s;

        fputc('"', w->f);
        for (; *s; s++) {
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
                default:
                        if (c >= 0x20)
                                continue;
                }
                fwrite(run, 1, s - run, w->f);
                if (esc)
                        fputs(esc, w->f);
                else
                        fprintf(w->f, "\\u00%c%c", hex[c >> 4], hex[c & 0xf]);
                run = s + 1;
        }
        fwrite(run, 1, s - run, w->f);
        fputc('"', w->f);
}

/* What goes before a value: the separator, the newline and indent, the key. */
static void member(JsonWriter *w, const char *key) {
        if (w->depth > 0) {
                if (w->has_children[w->depth])
                        fputc(',', w->f);
                fputc('\n', w->f);
                w->has_children[w->depth] = true;
                indent(w, w->depth);
        }
        if (key) {
                put_string(w, key);
                fputs(": ", w->f);
        }
}

static void open_container(JsonWriter *w, const char *key, char c) {
        member(w, key);
        fputc(c, w->f);
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
        fputc('\n', w->f);
        indent(w, w->depth);
        fputc(c, w->f);
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

void json_writer_u64(JsonWriter *w, const char *key, uint64_t value) {
        member(w, key);
        fprintf(w->f, "%" PRIu64, value);
}

void json_writer_int(JsonWriter *w, const char *key, int64_t value) {
        member(w, key);
        fprintf(w->f, "%" PRId64, value);
}

void json_writer_bool(JsonWriter *w, const char *key, bool value) {
        member(w, key);
        fputs(value ? "true" : "false", w->f);
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
                fwrite(s, 1, nl - s + 1, w->f);
                indent(w, w->depth);
        }
        fputs(s, w->f);
}

int json_writer_finish(JsonWriter *w) {
        fputc('\n', w->f);
        if (fflush(w->f) != 0 || ferror(w->f))
                return -EIO;
        if (w->failed || w->depth != 0)
                return -EINVAL;
        return 0;
}
