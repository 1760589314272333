/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The unit tests' fixtures, read one way: tests/data (TEST_DATA), layouts/ (LAYOUTS),
 * playbooks/ (PLAYBOOKS) and docs/ (DOCS) as meson test sets them; golden files; the
 * directories of invalid inputs, each NAME.yaml beside the one-line message it must give in
 * NAME.expected; and the comparisons the tests of src/ceph share. */

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/macro.h"
#include "basic/strv.h"
#include "test.h"

/* Both set and equal (streq_ptr compares pointers first: clang warns on literals). */
static inline bool str_eq(const char *a, const char *b) {
        return a && b && strcmp(a, b) == 0;
}

/* An argv builder's answer `a` (freed), joined by spaces, is `expected`. */
static inline void check_argv(char **a, const char *expected) {
        _cleanup_(freep) char *j = a ? strv_join(a, " ") : NULL;
        CHECK_STREQ(j, expected);
        strv_free(a);
}

/* The directory the environment variable `var` names; the test is skipped (77) without it. */
static inline const char *fixture_dir(const char *var) {
        const char *d = getenv(var);
        if (!d) {
                char why[128];
                snprintf(why, sizeof why, "%s is not set (run through meson test)", var);
                test_skip(why);
        }
        return d;
}

/* The whole file at `path`, NUL-terminated, its length in *ret_len when given; NULL when it
 * cannot be opened. */
static inline char *fixture_read(const char *path, size_t *ret_len) {
        _cleanup_(fclosep) FILE *f = fopen(path, "re");
        if (!f)
                return NULL;
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (!m)
                return NULL;
        char chunk[65536];
        size_t n;
        while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
                fwrite(chunk, 1, n, m);
        fclose(m);
        if (ret_len)
                *ret_len = len;
        return buf;
}

/* The path of a capture tests/data/ceph/NAME (tests/data when TEST_DATA is not set). */
static inline char *fixture_ceph_path(const char *name) {
        const char *dir = getenv("TEST_DATA");
        return strprintf("%s/ceph/%s", dir ? dir : "tests/data", name);
}

/* The whole capture tests/data/ceph/NAME; NULL and a failed check when it cannot be read. */
static inline char *fixture_ceph(const char *name) {
        _cleanup_(freep) char *p = fixture_ceph_path(name);
        char *s = p ? fixture_read(p, NULL) : NULL;
        if (!s)
                fprintf(stderr, "cannot open '%s'\n", p ? p : name);
        CHECK(s != NULL);
        return s;
}

/* `text` against the golden file TEST_DATA/FILE; with UPDATE_GOLDEN in the environment the
 * file is written instead (tests/update-golden.sh). */
static inline void fixture_check_golden(const char *file, const char *text) {
        _cleanup_(freep) char *p = strprintf("%s/%s", fixture_dir("TEST_DATA"), file);
        if (getenv("UPDATE_GOLDEN")) {
                _cleanup_(fclosep) FILE *f = fopen(p, "we");
                CHECK(f != NULL);
                if (f)
                        fputs(text, f);
                fprintf(stderr, "updated %s\n", file);
                return;
        }
        _cleanup_(freep) char *want = fixture_read(p, NULL);
        if (!want)
                fprintf(stderr, "missing golden file %s (tests/update-golden.sh writes it)\n", file);
        CHECK_STREQ(text, want);
}

static inline int fixture_cmp_str(const void *a, const void *b) {
        return strcmp(*(char * const *) a, *(char * const *) b);
}

/* One invalid input: its file name, its text and the message it must be refused with. */
typedef void (*FixtureCaseFn)(const char *name, const char *text, size_t len, const char *expected);

/* Every case of TEST_DATA/SUBDIR in name order, given to `check` from within that directory
 * (so that the name is also a relative path to load); checks that there are at least
 * `at_least` and that each NAME.yaml has its NAME.expected and no .expected is an orphan.
 * Returns how many cases ran. */
static inline size_t fixture_invalid_cases(const char *subdir, size_t at_least, FixtureCaseFn check) {
        char dir[PATH_MAX], cwd[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/%s", fixture_dir("TEST_DATA"), subdir);
        DIR *d = opendir(dir);
        CHECK(d != NULL);
        if (!d)
                return 0;
        _cleanup_strv_free_ char **names = NULL;
        size_t n_expected = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (endswith(de->d_name, ".yaml"))
                        CHECK_INTEQ(strv_extend(&names, de->d_name), 0);
                else if (endswith(de->d_name, ".expected"))
                        n_expected++;
        }
        closedir(d);
        size_t n = strv_length(names);
        CHECK(n >= at_least);
        CHECK_INTEQ(n, n_expected); /* every case has its expected message, and no orphans */
        qsort(names, n, sizeof(char *), fixture_cmp_str);

        CHECK(getcwd(cwd, sizeof cwd) != NULL);
        CHECK_INTEQ(chdir(dir), 0);
        STRV_FOREACH(name, names) {
                char exp_name[PATH_MAX];
                snprintf(exp_name, sizeof exp_name, "%.*s.expected", (int) (strlen(*name) - 5), *name);
                _cleanup_(freep) char *expected = fixture_read(exp_name, NULL);
                size_t len = 0;
                _cleanup_(freep) char *text = fixture_read(*name, &len);
                CHECK(expected && text);
                if (!expected || !text)
                        continue;
                expected[strcspn(expected, "\n")] = 0;
                check(*name, text, len, expected);
        }
        CHECK_INTEQ(chdir(cwd), 0);
        return n;
}
