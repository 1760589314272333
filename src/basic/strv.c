/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "strv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char **strv_free(char **l) {
        if (!l)
                return NULL;
        for (char **s = l; *s; s++)
                free(*s);
        free(l);
        return NULL;
}

size_t strv_length(char * const *l) {
        size_t n = 0;
        if (l)
                while (l[n])
                        n++;
        return n;
}

int strv_consume(char ***l, char *s) {
        if (!s)
                return -ENOMEM;
        size_t n = strv_length(*l);
        char **nl = realloc(*l, sizeof(char *) * (n + 2));
        if (!nl) {
                free(s);
                return -ENOMEM;
        }
        nl[n] = s;
        nl[n + 1] = NULL;
        *l = nl;
        return 0;
}

int strv_extend(char ***l, const char *s) {
        return strv_consume(l, strdup(s));
}

bool strv_contains(char * const *l, const char *s) {
        STRV_FOREACH(i, l)
                if (strcmp(*i, s) == 0)
                        return true;
        return false;
}

char **strv_copy(char * const *l) {
        char **r = calloc(strv_length(l) + 1, sizeof(char *));
        if (!r)
                return NULL;
        size_t k = 0;
        STRV_FOREACH(i, l) {
                r[k] = strdup(*i);
                if (!r[k])
                        return strv_free(r);
                k++;
        }
        return r;
}

char *strv_join(char * const *l, const char *sep) {
        size_t len = 1, seplen = strlen(sep);
        STRV_FOREACH(i, l)
                len += strlen(*i) + seplen;
        char *r = malloc(len), *p = r;
        if (!r)
                return NULL;
        STRV_FOREACH(i, l) {
                if (i != l) {
                        memcpy(p, sep, seplen);
                        p += seplen;
                }
                size_t n = strlen(*i);
                memcpy(p, *i, n);
                p += n;
        }
        *p = 0;
        return r;
}

char **strv_split(const char *s, const char *sep) {
        char **l = calloc(1, sizeof(char *));
        if (!l)
                return NULL;
        while (*s) {
                size_t skip = strspn(s, sep);
                s += skip;
                if (!*s)
                        break;
                size_t n = strcspn(s, sep);
                if (strv_consume(&l, strndup(s, n)) < 0)
                        return strv_free(l);
                s += n;
        }
        return l;
}

char *strprintf(const char *fmt, ...) {
        /* most strings are short: format once on the stack (vasprintf grows its buffer by
         * reallocating, which showed in the profile of a 24,000-OSD plan) */
        char buf[256];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        if (n < 0)
                return NULL;
        char *r = malloc((size_t) n + 1);
        if (!r)
                return NULL;
        if ((size_t) n < sizeof(buf))
                memcpy(r, buf, (size_t) n + 1);
        else {
                va_start(ap, fmt);
                vsnprintf(r, (size_t) n + 1, fmt, ap);
                va_end(ap);
        }
        return r;
}

char *strdup_null(const char *s) {
        return s ? strdup(s) : NULL;
}

bool startswith(const char *s, const char *prefix) {
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool endswith(const char *s, const char *suffix) {
        size_t a = strlen(s), b = strlen(suffix);
        return a >= b && strcmp(s + a - b, suffix) == 0;
}
