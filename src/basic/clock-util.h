/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>
#include <time.h>

/* The one clock of the tree. Durations, timeouts and deadlines use the monotonic clock
 * (never moves back with the wall clock); the wall clock only for what is written down or
 * compared with another host's time (lease records, journal lines). */

/* Seconds on CLOCK_MONOTONIC, with nanosecond precision. */
double clock_mono_sec(void);

/* Milliseconds on CLOCK_MONOTONIC, rounded down. */
uint64_t clock_mono_ms(void);

/* Seconds since the epoch on CLOCK_REALTIME, with nanosecond precision. */
double clock_wall_sec(void);

/* The time `ms` from now on clock `id`, as pthread_cond_timedwait() takes it (CLOCK_REALTIME,
 * or the clock the condition variable was made with). */
struct timespec clock_after_ms(clockid_t id, uint64_t ms);
