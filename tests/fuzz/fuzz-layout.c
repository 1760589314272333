/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: any bytes through the whole layout parser. A successful load is also
 * turned into JSON and its hosts looked up, so the resolved structs get walked too. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "basic/json-util.h"
#include "layout/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The collecting walk goes on after errors, through half-filled structs: it must not crash,
 * must agree with the first-error walk on whether the file is valid, and every error it
 * found must have a position, in file order. */
static void check_all_errors(const uint8_t *data, size_t size, bool valid) {
        Error err = {};
        YamlDiags d = {};
        Layout *l = NULL;
        int r = layout_load_string_all("fuzz.yaml", (const char *) data, size, &l, &d, &err);
        if ((r >= 0) != valid && r != -ENOMEM)
                __builtin_trap();
        if (r == -EINVAL && (d.n_errors == 0 || strncmp(err.message, "fuzz.yaml:", 10) != 0))
                __builtin_trap();
        for (size_t i = 0; i < d.n; i++) {
                if (d.items[i].mark.line == 0 || !d.items[i].message)
                        __builtin_trap();
                if (i > 0 && (d.items[i - 1].mark.line > d.items[i].mark.line ||
                              (d.items[i - 1].mark.line == d.items[i].mark.line &&
                               d.items[i - 1].mark.column > d.items[i].mark.column)))
                        __builtin_trap();
        }
        layout_free(l);
        yaml_diags_done(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        Error err = {};
        _cleanup_(layout_freep) Layout *l = NULL;

        if (layout_load_string("fuzz.yaml", (const char *) data, size, &l, &err) < 0) {
                /* Every failure must say where: "fuzz.yaml:LINE:COL: ..." (or out of memory). */
                if (strncmp(err.message, "fuzz.yaml:", 10) != 0)
                        __builtin_trap();
                check_all_errors(data, size, false);
                return 0;
        }
        check_all_errors(data, size, true);

        _cleanup_json_ json_object *j = NULL;
        if (layout_to_json(l, &j) < 0)
                __builtin_trap();
        (void) json_to_pretty(j);
        for (size_t i = 0; i < l->n_hosts; i++) {
                if (layout_find_host(l, l->hosts[i].name) == NULL)
                        __builtin_trap();
                if (l->hosts[i].profile && layout_find_profile(l, l->hosts[i].profile->name) != l->hosts[i].profile)
                        __builtin_trap();
        }
        return 0;
}
