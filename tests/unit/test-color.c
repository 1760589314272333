/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* basic/color: the --color modes, NO_COLOR, and that a stream that is not a terminal gets
 * no escape under "auto" (the pseudo-terminal case is in the cli tier, cli-color). */
#include <stdlib.h>

#include "basic/color.h"
#include "test.h"

static void test_mode_from_string(void) {
        ColorMode m = COLOR_NEVER;
        CHECK(color_mode_from_string("auto", &m) == 0 && m == COLOR_AUTO);
        CHECK(color_mode_from_string("always", &m) == 0 && m == COLOR_ALWAYS);
        CHECK(color_mode_from_string("never", &m) == 0 && m == COLOR_NEVER);
        m = COLOR_ALWAYS;
        CHECK(color_mode_from_string("yes", &m) < 0);
        CHECK(color_mode_from_string("", &m) < 0);
        CHECK(color_mode_from_string(NULL, &m) < 0);
        CHECK(m == COLOR_ALWAYS); /* untouched on failure */
}

static void test_enabled(void) {
        /* a memory stream is no terminal */
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        CHECK(f != NULL);

        unsetenv("NO_COLOR");
        color_set_mode(COLOR_AUTO);
        CHECK(!color_enabled(f));
        CHECK_STREQ(color_on(f, COLOR_ERROR), "");
        CHECK_STREQ(color_off(f), "");

        color_set_mode(COLOR_ALWAYS);
        CHECK(color_enabled(f));
        CHECK_STREQ(color_on(f, COLOR_ERROR), "\033[1;31m");
        CHECK_STREQ(color_on(f, COLOR_WARNING), "\033[1;33m");
        CHECK_STREQ(color_off(f), "\033[0m");
        setenv("NO_COLOR", "1", 1);
        CHECK(color_enabled(f)); /* an explicit --color=always wins */
        CHECK(color_enabled(NULL));

        color_set_mode(COLOR_NEVER);
        unsetenv("NO_COLOR");
        CHECK(!color_enabled(f));
        CHECK(color_get_mode() == COLOR_NEVER);

        color_set_mode(COLOR_AUTO);
        CHECK(!color_enabled(NULL));
        fclose(f);
        free(buf);
}

int main(void) {
        TEST_RUN(test_mode_from_string);
        TEST_RUN(test_enabled);
        return test_result();
}
