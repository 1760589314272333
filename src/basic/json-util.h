/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Small json-c helpers: typed getters that report the missing or mistyped key. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "macro.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(json_object *, json_object_put);
DEFINE_TRIVIAL_CLEANUP_FUNC(json_tokener *, json_tokener_free);
#define _cleanup_json_ _cleanup_(json_object_putp)

/* Getters: return 0 and set *ret, -ENOENT when the key is absent (and `required` is false,
 * *ret untouched), -EINVAL when the type is wrong; errors name `what` and the key. */
int json_get_string(json_object *o, const char *key, bool required, const char **ret, const char *what, Error *err);
int json_get_u64(json_object *o, const char *key, bool required, uint64_t *ret, const char *what, Error *err);
int json_get_int(json_object *o, const char *key, bool required, int64_t *ret, const char *what, Error *err);
int json_get_bool(json_object *o, const char *key, bool required, bool *ret, const char *what, Error *err);
int json_get_array(json_object *o, const char *key, bool required, json_object **ret, const char *what, Error *err);
int json_get_object(json_object *o, const char *key, bool required, json_object **ret, const char *what, Error *err);

/* Adders that ignore NULL strings (the key is then omitted). Return 0 or -ENOMEM. */
int json_add_string(json_object *o, const char *key, const char *value);
int json_add_u64(json_object *o, const char *key, uint64_t value);
int json_add_int(json_object *o, const char *key, int64_t value);
int json_add_bool(json_object *o, const char *key, bool value);
/* Takes ownership of value even on failure. */
int json_add(json_object *o, const char *key, json_object *value);

/* A new empty object appended to the array a (which owns it); NULL on ENOMEM. */
json_object *json_array_add_object(json_object *a);
/* A JSON array of the strings of l (NULL: an empty array); NULL on ENOMEM. */
json_object *json_array_new_strv(char * const *l);
/* A JSON array of the n integers of ids; NULL on ENOMEM. */
json_object *json_array_new_ints(const int *ids, size_t n);
/* The integer array under `key` as a newly allocated array (never NULL on success, also for
 * an empty array); a member that is not an integer is -EINVAL naming `what` and the key. */
int json_get_int_array(json_object *o, const char *key, bool required, int **ret, size_t *ret_n, const char *what,
                       Error *err);

/* Pretty, stable output (two-space indent, no slash escaping). */
const char *json_to_pretty(json_object *o);

/* Read and parse a JSON file; errors name the file and the parser's message. */
int json_parse_file(const char *path, json_object **ret, Error *err);

/* Called with each element of the streamed array; the element is freed after the call
 * (take a reference to keep it). A negative return stops the parse and is returned. */
typedef int (*json_each_func)(json_object *element, size_t index, void *userdata, Error *err);

/* Parse a JSON file whose top level is an object, handing each element of the array under
 * `array_key` to `each` as soon as it is parsed, so that a file of thousands of inventories
 * never exists as one tree (the tree of a 13 MB file takes ~100 MB). The other members are
 * returned in *ret_rest (an array_key that is not an array stays there too); *ret_seen says
 * whether the array was streamed. Errors name the file and the byte offset. */
int json_parse_file_each(const char *path, const char *array_key, json_each_func each, void *userdata,
                         json_object **ret_rest, bool *ret_seen, Error *err);
