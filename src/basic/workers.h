/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The one worker pool of the executors: worker(userdata) on n threads at once, n - 1 started
 * here and the calling thread itself, all joined before it returns. The workers share their
 * work through userdata (each takes the next item under its lock until none is left), so a
 * thread that cannot be started changes how many run at once, not the outcome. n 0 is 1. */
void workers_run(unsigned n, void *(*worker)(void *userdata), void *userdata);
