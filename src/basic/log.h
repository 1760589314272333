/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Logging to stderr. Only the top level reports errors, once. */

#include "macro.h"

typedef enum LogLevel {
        LOG_LEVEL_ERROR,
        LOG_LEVEL_WARNING,
        LOG_LEVEL_NOTICE,
        LOG_LEVEL_INFO,
        LOG_LEVEL_DEBUG,
} LogLevel;

void log_set_level(LogLevel level);
LogLevel log_get_level(void);

void log_msg(LogLevel level, const char *fmt, ...) _printf_(2, 3);

#define log_error(...) log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_LEVEL_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_LEVEL_NOTICE, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)
