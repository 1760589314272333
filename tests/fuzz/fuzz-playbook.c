/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: any bytes through the whole playbook parser and the step registry's
 * argument checks. A successful load is also printed as JSON and as a plan for three hosts
 * (one with OSDs known, in two failure domains), and every step's arguments get their
 * references filled in: a per-host step's with a host's facts, any other with the run's
 * alone, which must work for every playbook the parser accepted. */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "basic/json-util.h"
#include "playbook/playbook.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        Error err = {};
        _cleanup_(playbook_freep) Playbook *pb = NULL;

        (void) playbook_text_is_playbook((const char *) data, size);
        if (playbook_load_string("fuzz.yaml", (const char *) data, size, &pb, &err) < 0) {
                /* Every failure must say where: "fuzz.yaml:LINE:COL: ..." (or out of memory). */
                if (strncmp(err.message, "fuzz.yaml:", 10) != 0)
                        __builtin_trap();
                return 0;
        }

        _cleanup_json_ json_object *j = NULL;
        if (playbook_to_json(pb, &j) < 0)
                __builtin_trap();
        (void) json_to_pretty(j);

        static const unsigned osds[] = { 0, 7 };
        const PlaybookHostFacts hosts[] = {
                { .host = "node1", .failure_domain = "rack1", .osds = osds, .n_osds = 2 },
                { .host = "node2", .failure_domain = "rack2" },
                { .host = "node3", .failure_domain = "rack1" },
        };
        FILE *f = fopen("/dev/null", "we");
        if (!f || playbook_print_plan(pb, hosts, 3, f) < 0)
                __builtin_trap();
        fclose(f);
        _cleanup_json_ json_object *plan = NULL;
        if (playbook_plan_to_json(pb, hosts, 3, &plan) < 0)
                __builtin_trap();
        (void) json_to_pretty(plan);

        char *names[] = { (char *) "node1", (char *) "node2", (char *) "node3", NULL };
        const StepFacts run = { .hosts = names };
        const StepFacts host = { .host = "node1", .osds = osds, .n_osds = 2, .hosts = names };
        for (size_t s = 0; s < _PLAYBOOK_SECTION_MAX; s++)
                for (size_t i = 0; i < pb->n_steps[s]; i++) {
                        _cleanup_json_ json_object *resolved = NULL;
                        const PlaybookStep *st = &pb->steps[s][i];
                        if (step_args_substitute(st->entry, st->args, s == PLAYBOOK_PER_HOST ? &host : &run,
                                                 &resolved, &err) < 0)
                                __builtin_trap(); /* a reference the parser let through where it cannot be filled */
                }
        return 0;
}
