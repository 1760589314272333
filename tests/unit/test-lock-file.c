/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lock_file_wait(): a held lock fails with -ETIMEDOUT at its bound, with progress on the
 * way; a lock released while waiting is taken. */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "basic/lock-file.h"
#include "test.h"

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void count_progress(uint64_t waited_ms, void *userdata) {
        (*(int *) userdata)++;
}

static void test_lock_wait(void) {
        char path[] = "/tmp/cephprov-test-lock-XXXXXX";
        int holder = mkstemp(path);
        CHECK(holder >= 0);
        CHECK(flock(holder, LOCK_EX | LOCK_NB) == 0);
        int fd = open(path, O_RDWR | O_CLOEXEC); /* another open file description: conflicts */
        CHECK(fd >= 0);

        int calls = 0;
        double t0 = now_s();
        CHECK_INTEQ(lock_file_wait(fd, 600, 100, count_progress, &calls), -ETIMEDOUT);
        double dt = now_s() - t0;
        CHECK(dt >= 0.59 && dt < 1.2);
        CHECK(calls >= 4 && calls <= 6); /* about every 100 ms */
        CHECK_INTEQ(lock_file_wait(fd, 0, 0, NULL, NULL), -ETIMEDOUT); /* try once */

        /* released by its holder (another process) while we wait: taken */
        pid_t pid = fork();
        if (pid == 0) {
                usleep(300 * 1000);
                _exit(0); /* the holder's copy of the description closes with it */
        }
        close(holder);
        t0 = now_s();
        CHECK_INTEQ(lock_file_wait(fd, 5000, 0, NULL, NULL), 0);
        CHECK(now_s() - t0 < 1.5);
        waitpid(pid, NULL, 0);
        close(fd);
        unlink(path);
}

int main(void) {
        TEST_RUN(test_lock_wait);
        return test_result();
}
