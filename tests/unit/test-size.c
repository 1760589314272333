/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "basic/macro.h"
#include "basic/size.h"
#include "test.h"

static void test_size_parse_valid(void) {
        static const struct {
                const char *in;
                uint64_t out;
        } cases[] = {
                { "0", 0 },
                { "4096", 4096 },
                { "4096B", 4096 },
                { "1K", 1024 },
                { "1KiB", 1024 },
                { "1kb", 1024 },
                { "30G", 30 * GiB },
                { "30 GiB", 30 * GiB },
                { "60GB", 60 * GiB },
                { "512M", 512 * MiB },
                { "1.5T", 3 * TiB / 2 },
                { "7.68T", (uint64_t) 768 * TiB / 100 + 0 }, /* checked below separately */
                { "0.5K", 512 },
                { "2P", 2 * TiB * 1024 },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint64_t v = 0;
                int r = size_parse(cases[i].in, &v);
                if (i == 11) { /* 7.68T is not a whole number of bytes? 7.68 * 2^40 = 8444249301319.68 */
                        CHECK_INTEQ(r, -EINVAL);
                        continue;
                }
                CHECK_INTEQ(r, 0);
                if (r == 0 && v != cases[i].out)
                        fprintf(stderr, "  for '%s'\n", cases[i].in);
                CHECK(v == cases[i].out);
        }
}

static void test_size_parse_invalid(void) {
        static const char *bad[] = {
                "", " ", "-1", "+1", "G", "30X", "30GG", "30 G B", "1e3", ".5G", "5.G",
                "30Gi", "1,5G", "0x10", "abc", "30G extra",
                "99999999999999999999", "20000000P",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                uint64_t v = 12345;
                int r = size_parse(bad[i], &v);
                if (r >= 0)
                        fprintf(stderr, "  accepted '%s'\n", bad[i]);
                CHECK(r == -EINVAL || r == -ERANGE);
                CHECK(v == 12345);
        }
}

static void test_size_format(void) {
        char buf[SIZE_FORMAT_MAX];
        CHECK_STREQ(size_format(0, buf, sizeof buf), "0 B");
        CHECK_STREQ(size_format(512, buf, sizeof buf), "512 B");
        CHECK_STREQ(size_format(30 * GiB, buf, sizeof buf), "30 GiB");
        CHECK_STREQ(size_format(3 * TiB / 2, buf, sizeof buf), "1.5 TiB");
        CHECK_STREQ(size_format(MiB, buf, sizeof buf), "1 MiB");
}

static void test_share_parse(void) {
        double d;
        CHECK_INTEQ(share_parse("25%", &d), 0);
        CHECK(d > 0.2499 && d < 0.2501);
        CHECK_INTEQ(share_parse("100%", &d), 0);
        CHECK(share_parse("0%", &d) < 0);
        CHECK(share_parse("101%", &d) < 0);
        CHECK(share_parse("25", &d) < 0);
        CHECK(share_parse("%", &d) < 0);
        CHECK(share_parse("-5%", &d) < 0);
        CHECK(share_parse("5%%", &d) < 0);
}

static void test_align(void) {
        CHECK_INTEQ(align_up(1, MiB), MiB);
        CHECK_INTEQ(align_up(MiB, MiB), MiB);
        CHECK_INTEQ(align_down(MiB + 5, MiB), MiB);
}

int main(void) {
        TEST_RUN(test_size_parse_valid);
        TEST_RUN(test_size_parse_invalid);
        TEST_RUN(test_size_format);
        TEST_RUN(test_share_parse);
        TEST_RUN(test_align);
        return test_result();
}
