/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "lock-file.h"

#include <errno.h>
#include <sys/file.h>
#include <time.h>

#include "clock-util.h"
#include "macro.h"

int lock_file_wait(int fd, uint64_t timeout_ms, uint64_t progress_every_ms, LockWaitProgressFn progress,
                   void *userdata) {
        uint64_t start = clock_mono_ms(), next_progress = start + progress_every_ms;
        unsigned step = 10;
        for (;;) {
                if (flock(fd, LOCK_EX | LOCK_NB) == 0)
                        return 0;
                if (errno == EINTR)
                        continue;
                if (errno != EWOULDBLOCK)
                        return -errno;
                uint64_t t = clock_mono_ms();
                if (t - start >= timeout_ms)
                        return -ETIMEDOUT;
                if (progress && progress_every_ms && t >= next_progress) {
                        progress(t - start, userdata);
                        next_progress = t + progress_every_ms;
                }
                /* polling, not a blocking flock: the bound must hold without signals or
                 * threads; 10 ms to 0.5 s between tries costs nothing next to the holder */
                uint64_t left = timeout_ms - (t - start);
                uint64_t ms = MIN((uint64_t) step, left);
                if (progress && progress_every_ms)
                        ms = MAX(MIN(ms, next_progress - t), (uint64_t) 1);
                struct timespec ts = { .tv_sec = (time_t) (ms / 1000), .tv_nsec = (long) (ms % 1000) * 1000000 };
                while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                        ;
                step = MIN(step * 2, 500u);
        }
}
