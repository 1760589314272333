/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Loop devices and shell helpers for the block tests. Every loop is attached here, with
 * partscan (-P, so BLKPG works), recorded, and detached at exit after `partx -d` (BLKPG
 * partitions outlive `losetup -d`). Never touches a loop it did not attach. */

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "basic/macro.h"
#include "basic/strv.h"
#include "test.h"

static char bu_dir[256];
static char bu_loops[32][64];
static int bu_n_loops;
static pid_t bu_owner;

static inline int sh(const char *fmt, ...) _printf_(1, 2);
static inline int sh(const char *fmt, ...) {
        char cmd[4096];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(cmd, sizeof(cmd), fmt, ap);
        va_end(ap);
        int st = system(cmd);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* stdout of a shell command, trailing newline cut; malloc'd ("" on failure). */
static inline char *sh_out(const char *fmt, ...) _printf_(1, 2);
static inline char *sh_out(const char *fmt, ...) {
        char cmd[4096];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(cmd, sizeof(cmd), fmt, ap);
        va_end(ap);
        FILE *f = popen(cmd, "r");
        size_t cap = 4096, len = 0;
        char *buf = calloc(1, cap);
        if (!f)
                return buf;
        size_t n;
        while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
                len += n;
                if (cap - len < 1024)
                        buf = realloc(buf, cap *= 2);
        }
        buf[len] = 0;
        pclose(f);
        while (len > 0 && buf[len - 1] == '\n')
                buf[--len] = 0;
        return buf;
}

/* Seconds on the monotonic clock, for timing what the agent waited. */
static inline double bu_now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static inline void bu_cleanup(void) {
        if (getpid() != bu_owner)
                return; /* forked children must not tear down */
        for (int i = bu_n_loops - 1; i >= 0; i--) {
                sh("umount -q %sp* 2>/dev/null; swapoff %sp* 2>/dev/null; partx -d %s 2>/dev/null; losetup -d %s",
                   bu_loops[i], bu_loops[i], bu_loops[i], bu_loops[i]);
        }
        if (bu_dir[0])
                sh("umount -q %s/mnt 2>/dev/null; rm -rf '%s'", bu_dir, bu_dir);
}

static inline void bu_fatal_signal(int sig) {
        bu_cleanup(); /* not async-signal-safe, but the process is dying anyway: free the loops */
        signal(sig, SIG_DFL);
        raise(sig);
}

static inline void bu_init(void) {
        if (geteuid() != 0)
                test_skip("block tests need root (loop devices)");
        if (access("/dev/loop-control", F_OK) < 0)
                test_skip("no /dev/loop-control: loop devices unavailable");
        const char *tools[] = { "losetup", "partx", "sgdisk", "blkid", "mkfs.xfs", "mkswap", "wipefs" };
        for (size_t i = 0; i < ELEMENTSOF(tools); i++)
                if (sh("command -v %s >/dev/null", tools[i]) != 0) {
                        char why[128];
                        snprintf(why, sizeof(why), "'%s' is not installed", tools[i]);
                        test_skip(why);
                }
        const char *tmp = getenv("TMPDIR");
        snprintf(bu_dir, sizeof(bu_dir), "%s/cephprov-block.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
        if (!mkdtemp(bu_dir)) {
                perror("mkdtemp");
                exit(1);
        }
        bu_owner = getpid();
        atexit(bu_cleanup);
        signal(SIGABRT, bu_fatal_signal);
        signal(SIGSEGV, bu_fatal_signal);
        signal(SIGTERM, bu_fatal_signal);
        signal(SIGINT, bu_fatal_signal);
}

/* A new loop device of `mib` MiB (sparse image), rotational or not. */
static inline const char *bu_loop(unsigned mib, bool rotational) {
        char img[512];
        snprintf(img, sizeof(img), "%s/disk%d.img", bu_dir, bu_n_loops);
        if (sh("truncate -s %uM '%s'", mib, img) != 0)
                exit(1);
        char *dev = sh_out("losetup -f --show -P '%s'", img);
        if (!startswith(dev, "/dev/loop")) {
                fprintf(stderr, "cannot attach a loop device for '%s'\n", img);
                exit(1);
        }
        snprintf(bu_loops[bu_n_loops++], sizeof(bu_loops[0]), "%s", dev);
        free(dev);
        const char *l = bu_loops[bu_n_loops - 1];
        sh("echo %d > /sys/block/%s/queue/rotational", rotational ? 1 : 0, l + 5);
        return l;
}
