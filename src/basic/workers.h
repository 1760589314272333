/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

/* The one worker pool of the executors: worker(userdata) on n threads at once, n - 1 started
 * here and the calling thread itself, all joined before it returns. The workers share their
 * work through userdata (each takes the next item under its lock until none is left), so a
 * thread that cannot be started changes how many run at once, not the outcome. n 0 is 1. */
void workers_run(unsigned n, void *(*worker)(void *userdata), void *userdata);
/* The same with each started thread's stack of stack_bytes (0: the default): many workers
 * that mostly wait (the transport's fan-out to hundreds of hosts). */
void workers_run_stack(unsigned n, size_t stack_bytes, void *(*worker)(void *userdata), void *userdata);
