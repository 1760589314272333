/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Waiting for a flock(2) with a bound: no lock wait in cephprov blocks forever. */

#include <stdint.h>

/* Called about every `progress_every_ms` while waiting, with the time waited so far. */
typedef void (*LockWaitProgressFn)(uint64_t waited_ms, void *userdata);

/* flock(fd, LOCK_EX), polled with LOCK_NB until `timeout_ms` has passed (0: try once).
 * 0 when locked; -ETIMEDOUT when it was still held at the bound; another -errno when
 * flock() itself fails. */
int lock_file_wait(int fd, uint64_t timeout_ms, uint64_t progress_every_ms, LockWaitProgressFn progress,
                   void *userdata);
