/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Small ownership helpers in the style of systemd's src/basic/macro.h. */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _unused_ __attribute__((unused))
#define _noreturn_ __attribute__((noreturn))
#define _warn_unused_result_ __attribute__((warn_unused_result))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* Take ownership of a pointer held by a _cleanup_ variable. */
#define TAKE_PTR(p)                          \
        ({                                   \
                __typeof__(p) _tp_ = (p);    \
                (p) = NULL;                  \
                _tp_;                        \
        })

#define TAKE_FD(fd)                          \
        ({                                   \
                int _tf_ = (fd);             \
                (fd) = -1;                   \
                _tf_;                        \
        })

#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)          \
        static inline void func##p(type *p) {            \
                if (*p)                                  \
                        func(*p);                        \
        }

static inline void freep(void *p) {
        free(*(void **) p);
}

static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}

static inline void closep(int *fd) {
        if (*fd >= 0)
                close(*fd);
}

#define streq(a, b) (strcmp((a), (b)) == 0)
/* A function, not a macro: clang's -Wstring-compare rejects comparing a pointer with a literal. */
static inline bool streq_ptr(const char *a, const char *b) {
        return a == b || (a && b && strcmp(a, b) == 0);
}
#define isempty(s) (!(s) || !(s)[0])

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
