/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A streaming JSON writer: values go to the FILE as they are given, so a large document
 * (a plan of 24,000 OSDs is ~70 MB) never exists as one tree in memory. The output is byte
 * for byte what json_to_pretty() prints for the same tree (json-c's pretty, spaced form:
 * two-space indent, "key": value, a newline before every closing bracket, no slash
 * escaping), so a document can move from a json_object tree to the writer unchanged.
 *
 * Inside an object every value takes a key; inside an array (and at the top) the key is
 * NULL. Write errors are sticky: json_writer_finish() reports them once. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_WRITER_MAX_DEPTH 32

typedef struct JsonWriter {
        FILE *f;
        unsigned depth;                          /* open containers */
        bool has_children[JSON_WRITER_MAX_DEPTH + 1];
        bool failed;                             /* too deep or unbalanced */
        bool write_failed;
        size_t len;                              /* bytes in buf: written in large blocks, as
                                                    stdio's per-call cost dominated */
        char buf[64 * 1024];
} JsonWriter;

void json_writer_init(JsonWriter *w, FILE *f);

void json_writer_begin_object(JsonWriter *w, const char *key);
void json_writer_end_object(JsonWriter *w);
void json_writer_begin_array(JsonWriter *w, const char *key);
void json_writer_end_array(JsonWriter *w);

/* A NULL string omits the member (like json_add_string()). */
void json_writer_string(JsonWriter *w, const char *key, const char *value);
void json_writer_u64(JsonWriter *w, const char *key, uint64_t value);
void json_writer_int(JsonWriter *w, const char *key, int64_t value);
void json_writer_bool(JsonWriter *w, const char *key, bool value);
/* An array of strings (NULL: an empty array). */
void json_writer_strv(JsonWriter *w, const char *key, char * const *l);
/* A json_object tree, indented to where it goes (for small parts built as trees). */
void json_writer_tree(JsonWriter *w, const char *key, json_object *o);

/* After the last value: a final newline, flush; 0, -EIO on a write error, -EINVAL when the
 * containers were not balanced. */
int json_writer_finish(JsonWriter *w);
