/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: any bytes through the whole layout parser. A successful load is also
 * turned into JSON and its hosts looked up, so the resolved structs get walked too. */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "basic/json-util.h"
#include "layout/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        Error err = {};
        _cleanup_(layout_freep) Layout *l = NULL;

        if (layout_load_string("fuzz.yaml", (const char *) data, size, &l, &err) < 0) {
                /* Every failure must say where: "fuzz.yaml:LINE:COL: ..." (or out of memory). */
                if (strncmp(err.message, "fuzz.yaml:", 10) != 0)
                        __builtin_trap();
                return 0;
        }

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
