/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Helpers shared by the src/ceph parsers; not part of the module's interface. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "basic/error.h"

/* Closes f, an open_memstream() on *buf (which only the close makes final, hence the
 * pointer): the text, or NULL (the text freed) if the stream failed */
char *ceph_memstream_done(FILE *f, char **buf);

/* Parse the whole of `text` (the CLI prints a leading newline; surrounding whitespace is
 * fine, anything else after the value is not). Errors name `what`. */
int ceph_json_parse(const char *text, const char *what, json_object **ret, Error *err);
/* ceph_json_parse(), and the text must be a JSON array ("WHAT: expected an array" if not) */
int ceph_json_parse_array(const char *text, const char *what, json_object **ret, Error *err);

/* strdup of a string member, NULL when absent or not a string; -ENOMEM on failure only */
int ceph_json_dup_string(json_object *o, const char *key, char **ret);

/* An array of integers → new int array (NULL and 0 for an empty array). */
int ceph_json_int_array(json_object *array, const char *what, int **ret, size_t *ret_n, Error *err);

/* A JSON number or a string holding an integer ("1") → int64 */
int ceph_json_get_intish(json_object *o, const char *key, bool required, long long *ret, const char *what,
                         Error *err);

int ceph_int_cmp(const void *a, const void *b);
int ceph_double_cmp(const void *a, const void *b);

/* Trim a copy of the CLI's stderr to its first non-empty line, for messages. */
char *ceph_first_line(const char *text);

static inline const char *strnull(const char *s) {
        return s ? s : "(null)";
}
