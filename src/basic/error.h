/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Errors are values: a negative errno plus a message that names the subject.
 * Functions that can fail take an optional `Error *err` and return the negative errno;
 * the caller at the top reports the message once. */

#include <stdarg.h>

#include "macro.h"

typedef struct Error {
        int code;          /* positive errno, 0 when unset */
        char message[1024];
} Error;

/* Fill `err` (may be NULL) and return -code. Later calls do not overwrite a set error
 * unless error_reset() was called, so the innermost (most precise) message wins. */
int error_set(Error *err, int code, const char *fmt, ...) _printf_(3, 4);
int error_setv(Error *err, int code, const char *fmt, va_list ap) _printf_(3, 0);

/* Like error_set() but prefixes an already set message: "outer: inner". */
int error_prefix(Error *err, int code, const char *fmt, ...) _printf_(3, 4);

void error_reset(Error *err);

/* Short symbolic name of an errno value ("ENOENT"), "EUNKNOWN" when not known. */
const char *errno_name(int code);
