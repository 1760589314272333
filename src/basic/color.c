/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "color.h"

#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "macro.h"

static ColorMode color_mode = COLOR_AUTO;

int color_mode_from_string(const char *s, ColorMode *ret) {
        static const char *names[] = { [COLOR_AUTO] = "auto", [COLOR_ALWAYS] = "always", [COLOR_NEVER] = "never" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (s && streq(s, names[i])) {
                        *ret = (ColorMode) i;
                        return 0;
                }
        return -EINVAL;
}

void color_set_mode(ColorMode mode) {
        color_mode = mode;
}

ColorMode color_get_mode(void) {
        return color_mode;
}

bool color_enabled(FILE *f) {
        switch (color_mode) {
        case COLOR_ALWAYS:
                return true;
        case COLOR_NEVER:
                return false;
        case COLOR_AUTO:
        default: {
                const char *no = getenv("NO_COLOR");
                if (no && *no)
                        return false;
                /* a terminal that says it cannot show colour */
                const char *term = getenv("TERM");
                if (term && streq(term, "dumb"))
                        return false;
                int fd = f ? fileno(f) : -1;
                return fd >= 0 && isatty(fd);
        }
        }
}

const char *color_on(FILE *f, ColorKind kind) {
        if (!color_enabled(f))
                return "";
        return kind == COLOR_WARNING ? "\033[1;33m" : "\033[1;31m";
}

const char *color_off(FILE *f) {
        return color_enabled(f) ? "\033[0m" : "";
}
