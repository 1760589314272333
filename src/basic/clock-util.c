/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "clock-util.h"

#include <time.h>

static struct timespec clock_now(clockid_t id) {
        struct timespec ts;
        clock_gettime(id, &ts);
        return ts;
}

double clock_mono_sec(void) {
        struct timespec ts = clock_now(CLOCK_MONOTONIC);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

uint64_t clock_mono_ms(void) {
        struct timespec ts = clock_now(CLOCK_MONOTONIC);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

double clock_wall_sec(void) {
        struct timespec ts = clock_now(CLOCK_REALTIME);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

struct timespec clock_after_ms(clockid_t id, uint64_t ms) {
        struct timespec ts = clock_now(id);
        ts.tv_sec += (time_t) (ms / 1000);
        ts.tv_nsec += (long) (ms % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
        }
        return ts;
}
