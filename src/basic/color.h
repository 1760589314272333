/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Colour on a terminal, only where it helps an operator's eye: the "error:" and "warning:"
 * prefixes and the words that say something was refused or failed. The mode is set once by
 * main() from --color; NO_COLOR (https://no-color.org) turns "auto" off. */

#include <stdbool.h>
#include <stdio.h>

typedef enum ColorMode {
        COLOR_AUTO,   /* colour when the stream is a terminal and NO_COLOR is unset or empty */
        COLOR_ALWAYS, /* colour even into a pipe, whatever NO_COLOR says (an explicit request) */
        COLOR_NEVER,
} ColorMode;

typedef enum ColorKind {
        COLOR_ERROR,   /* red: "error:", "refused", "FAILED" */
        COLOR_WARNING, /* yellow: "warning:" */
} ColorKind;

/* "auto", "always" or "never" into *ret; -EINVAL (ret untouched) for anything else. */
int color_mode_from_string(const char *s, ColorMode *ret);
void color_set_mode(ColorMode mode);
ColorMode color_get_mode(void);

/* Whether text written to f gets colour under the current mode. */
bool color_enabled(FILE *f);

/* The escape sequence that starts kind on f, and the one that ends it: "" when f gets no
 * colour, so they can always be printed around a word. */
const char *color_on(FILE *f, ColorKind kind);
const char *color_off(FILE *f);
