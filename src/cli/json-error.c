/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A --json command that fails still answers in JSON: a program reading stdout gets an object
 * it can parse, people read the message on stderr as usual. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/json-writer.h"
#include "basic/log.h"
#include "cli.h"

/* The layout and playbook loaders say where: "FILE:LINE:COL: message". Finds the first
 * ":LINE:COL: " so that a file name with colons stays whole. */
static bool split_position(const char *m, size_t *ret_file_len, unsigned long *ret_line, unsigned long *ret_col,
                           const char **ret_rest) {
        for (const char *p = strchr(m, ':'); p; p = strchr(p + 1, ':')) {
                const char *q = p + 1;
                if (!isdigit((unsigned char) *q))
                        continue;
                char *e;
                unsigned long line = strtoul(q, &e, 10);
                if (*e != ':' || !isdigit((unsigned char) e[1]))
                        continue;
                unsigned long col = strtoul(e + 1, &e, 10);
                if (e[0] != ':' || e[1] != ' ' || p == m)
                        continue;
                *ret_file_len = (size_t) (p - m);
                *ret_line = line;
                *ret_col = col;
                *ret_rest = e + 2;
                return true;
        }
        return false;
}

void cli_print_json_error(const char *m) {
        size_t file_len;
        unsigned long line, col;
        const char *rest;
        static JsonWriter w; /* 64 KiB: not on the stack */

        json_writer_init(&w, stdout);
        json_writer_begin_object(&w, NULL);
        json_writer_int(&w, "format", 1);
        json_writer_string(&w, "kind", "error");
        json_writer_begin_object(&w, "error");
        if (split_position(m, &file_len, &line, &col, &rest)) {
                char *file = strndup(m, file_len);
                json_writer_string(&w, "message", rest);
                json_writer_string(&w, "file", file);
                json_writer_u64(&w, "line", line);
                json_writer_u64(&w, "column", col);
                free(file);
        } else
                json_writer_string(&w, "message", m);
        json_writer_end_object(&w);
        json_writer_end_object(&w);
        (void) json_writer_finish(&w);
}

int cli_report_json(const Error *err) {
        cli_print_json_error(err->code ? err->message : "unknown error");
        return cli_report(err);
}

int cli_print_json_document(const char *kind, json_object *j) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *format = NULL;
        if (!o || !j || json_add(o, "format", json_object_object_get_ex(j, "format", &format) ? json_object_get(format)
                                                                                             : json_object_new_int(1)) < 0 ||
            json_add_string(o, "kind", kind) < 0)
                return log_error("cannot format the %s as JSON: out of memory", kind), 1;
        json_object_object_foreach(j, key, val)
                if (!streq(key, "format") && !streq(key, "kind") && json_add(o, key, json_object_get(val)) < 0)
                        return log_error("cannot format the %s as JSON: out of memory", kind), 1;
        printf("%s\n", json_to_pretty(o));
        return 0;
}
