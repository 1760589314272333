/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* NULL-terminated string vectors. */

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

typedef char **strv_t;

char **strv_free(char **l); /* returns NULL */
DEFINE_TRIVIAL_CLEANUP_FUNC(char **, strv_free);
#define _cleanup_strv_free_ _cleanup_(strv_freep)

size_t strv_length(char * const *l);
/* Append a copy of s. Returns 0 or -ENOMEM. */
int strv_extend(char ***l, const char *s);
/* Append s, taking ownership (freed on failure). */
int strv_consume(char ***l, char *s);
bool strv_contains(char * const *l, const char *s);
char **strv_copy(char * const *l);
/* Joins with sep into a new string. */
char *strv_join(char * const *l, const char *sep);
/* Split on any char in sep, dropping empty fields. */
char **strv_split(const char *s, const char *sep);

#define STRV_FOREACH(s, l) for (char * const *s = (l); s && *s; s++)

/* malloc-returning sprintf; NULL on ENOMEM. */
char *strprintf(const char *fmt, ...) _printf_(1, 2);
/* strdup that accepts NULL. */
char *strdup_null(const char *s);
bool startswith(const char *s, const char *prefix);
bool endswith(const char *s, const char *suffix);
