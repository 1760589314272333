/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "color.h"

static LogLevel max_level = LOG_LEVEL_NOTICE;

void log_set_level(LogLevel level) {
        max_level = level;
}

LogLevel log_get_level(void) {
        return max_level;
}

void log_msg(LogLevel level, const char *fmt, ...) {
        if (level > max_level)
                return;

        static const char *prefix[] = {
                [LOG_LEVEL_ERROR] = "error: ",
                [LOG_LEVEL_WARNING] = "warning: ",
                [LOG_LEVEL_NOTICE] = "",
                [LOG_LEVEL_INFO] = "",
                [LOG_LEVEL_DEBUG] = "debug: ",
        };

        va_list ap;
        va_start(ap, fmt);
        fputs("cephprov: ", stderr);
        if (level <= LOG_LEVEL_WARNING) {
                /* only the word is coloured: the message stays plain to read and to grep */
                size_t n = strlen(prefix[level]) - 2; /* without ": " */
                fprintf(stderr, "%s%.*s%s: ", color_on(stderr, level == LOG_LEVEL_ERROR ? COLOR_ERROR : COLOR_WARNING),
                        (int) n, prefix[level], color_off(stderr));
        } else
                fputs(prefix[level], stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
}
