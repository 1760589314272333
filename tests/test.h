/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A minimal assertion harness: every check that fails prints file:line and what differed;
 * the test program exits 1 if any failed, 77 (meson's "skip") via test_skip(). */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures_;
static int test_checks_;

#define CHECK(cond)                                                                      \
        do {                                                                             \
                test_checks_++;                                                          \
                if (!(cond)) {                                                           \
                        fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
                                #cond);                                                  \
                        test_failures_++;                                                \
                }                                                                        \
        } while (0)

#define CHECK_STREQ(a, b)                                                                    \
        do {                                                                                 \
                const char *a_ = (a), *b_ = (b);                                             \
                test_checks_++;                                                              \
                if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                     \
                        fprintf(stderr, "%s:%d: check failed: %s == %s\n  got:      %s\n"    \
                                        "  expected: %s\n",                                  \
                                __FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)",               \
                                b_ ? b_ : "(null)");                                         \
                        test_failures_++;                                                    \
                }                                                                            \
        } while (0)

#define CHECK_INTEQ(a, b)                                                                    \
        do {                                                                                 \
                long long a_ = (long long) (a), b_ = (long long) (b);                        \
                test_checks_++;                                                              \
                if (a_ != b_) {                                                              \
                        fprintf(stderr, "%s:%d: check failed: %s == %s (%lld != %lld)\n",    \
                                __FILE__, __LINE__, #a, #b, a_, b_);                         \
                        test_failures_++;                                                    \
                }                                                                            \
        } while (0)

/* TEST_ONLY=NAME in the environment runs only the test function NAME (while working on it) */
#define TEST_RUN(fn)                                                   \
        do {                                                           \
                const char *only_ = getenv("TEST_ONLY");               \
                if (only_ && *only_ && strcmp(only_, #fn) != 0)        \
                        break;                                         \
                int before_ = test_failures_;                          \
                fn();                                                  \
                fprintf(stderr, "%s %s\n",                             \
                        test_failures_ == before_ ? "ok  " : "FAIL", #fn); \
        } while (0)

static inline int test_result(void) {
        fprintf(stderr, "%d checks, %d failed\n", test_checks_, test_failures_);
        if (test_checks_ == 0)
                return 1; /* a test that checked nothing is a defect */
        return test_failures_ ? 1 : 0;
}

static inline _Noreturn void test_skip(const char *why) {
        fprintf(stderr, "SKIP: %s\n", why);
        exit(77);
}
