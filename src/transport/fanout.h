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
 * (ownership passes to fanout_run()) in either case. Called from worker threads: must not
 * touch shared state without its own locking. */
typedef int (*FanoutHostFn)(const Host *host, void *userdata, json_object **ret_result, Error *err);

typedef struct FanoutHostResult {
        const Host *host;
        int r;               /* 0 or negative errno */
        Error error;         /* message when r < 0 */
        json_object *result; /* what fn returned, may be NULL */
        uint64_t duration_ms;
} FanoutHostResult;

typedef struct FanoutOptions {
        unsigned concurrency; /* 0: 32 */
        bool progress;        /* "hosts done/total" on stderr, only if it is a tty */
} FanoutOptions;

/* Results come back in the order of `hosts`. Returns 0 when every host ran (whatever
 * its own outcome), a negative errno when the pool itself failed. */
int fanout_run(const Host * const *hosts, size_t n_hosts, const FanoutOptions *o, FanoutHostFn fn, void *userdata,
              FanoutHostResult **ret_results, Error *err);

size_t fanout_results_failed(const FanoutHostResult *results, size_t n);
FanoutHostResult *fanout_results_free(FanoutHostResult *results, size_t n);
