/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Fan-out: run one function per host on many hosts at once, at most `concurrency` at a
 * time (a pthread worker pool: libssh2 sessions are independent, each worker owns its
 * hosts' sessions). Every host gets its own result slot; output is never interleaved
 * because nothing is printed per host while running. A failing host is recorded and the
 * others go on. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "layout/layout.h"

/* Work for one host. Returns 0 or a negative errno with err filled; may set *ret_result
 * (ownership passes to the fleet) in either case. Called from worker threads: must not
 * touch shared state without its own locking. */
typedef int (*FleetHostFn)(const Host *host, void *userdata, json_object **ret_result, Error *err);

typedef struct FleetHostResult {
        const Host *host;
        int r;               /* 0 or negative errno */
        Error error;         /* message when r < 0 */
        json_object *result; /* what fn returned, may be NULL */
        uint64_t duration_ms;
} FleetHostResult;

typedef struct FleetOptions {
        unsigned concurrency; /* 0: 32 */
        bool progress;        /* "hosts done/total" on stderr, only if it is a tty */
} FleetOptions;

/* Results come back in the order of `hosts`. Returns 0 when every host ran (whatever
 * its own outcome), a negative errno when the pool itself failed. */
int fleet_run(const Host * const *hosts, size_t n_hosts, const FleetOptions *o, FleetHostFn fn, void *userdata,
              FleetHostResult **ret_results, Error *err);

size_t fleet_results_failed(const FleetHostResult *results, size_t n);
FleetHostResult *fleet_results_free(FleetHostResult *results, size_t n);
