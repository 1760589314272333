/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Devices in use are never written, on real loop devices: a helper process holds a loop
 * the way a raw-mode BlueStore OSD does (O_RDWR|O_DIRECT and flock, no O_EXCL), or with an
 * OFD lock, or open for writing without a lock, or a partition of it; a loop stacked on
 * it; a mounted btrfs (one and two devices); a process named ceph-osd whose data directory
 * names it; and a device that changed since the plan (a real plan of its inventory). Each
 * destructive op is refused naming the device and the holder, and the bytes — both GPT
 * copies included — are compared by sha256 before and after. Run as root; skipped (77)
 * otherwise. */

#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "agent/agent.h"
#include "agent/agent-internal.h"
#include "agent-call.h"
#include "controller/step-requests.h"
#include "basic/json-util.h"
#include "basic/sha256.h"
#include "block-util.h"
#include "layout/layout.h"
#include "plan/plan.h"

#define MiB (1024ULL * 1024ULL)

static json_object *wipe(AgentState *s, const char *dev) {
        return call(s, "wipe", "{\"device\":\"%s\"}", dev);
}

/* ---- holders: child processes that keep a device the way an OSD would ---- */

typedef enum HoldHow {
        HOLD_FLOCK,          /* BlueStore's KernelDevice: O_RDWR|O_DIRECT + flock(LOCK_EX|LOCK_NB) */
        HOLD_OFD,            /* O_RDWR + an OFD write lock over the whole device */
        HOLD_WRITE,          /* O_WRONLY, no lock */
        HOLD_READ,           /* O_RDONLY, no lock: not "in use", but keeps a partition open */
} HoldHow;

/* A child holding `dev`; it waits until killed. Returns its pid. */
static pid_t hold(const char *dev, HoldHow how) {
        int p[2];
        if (pipe(p) < 0)
                exit(1);
        pid_t pid = fork();
        if (pid == 0) {
                close(p[0]);
                prctl(PR_SET_NAME, "bstore-like");
                int flags = how == HOLD_FLOCK ? O_RDWR | O_DIRECT : how == HOLD_OFD ? O_RDWR : how == HOLD_WRITE ? O_WRONLY : O_RDONLY;
                int fd = open(dev, flags);
                bool ok = fd >= 0;
                if (ok && how == HOLD_FLOCK)
                        ok = flock(fd, LOCK_EX | LOCK_NB) == 0;
                if (ok && how == HOLD_OFD) {
                        struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
                        ok = fcntl(fd, F_OFD_SETLK, &fl) == 0;
                }
                ssize_t _unused_ n = write(p[1], ok ? "1" : "0", 1);
                for (;;)
                        pause();
        }
        close(p[1]);
        char c = 0;
        CHECK(read(p[0], &c, 1) == 1 && c == '1');
        close(p[0]);
        return pid;
}

static void unhold(pid_t pid) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
}

/* "<what> pid N (bstore-like)", as the agent names a holder */
static char *pidstr(const char *what, pid_t pid) {
        return strprintf("%s pid %d (bstore-like)", what, (int) pid);
}

/* --- a BlueStore-like flock: wipe, dry-run wipe, create-gpt refused; bytes unchanged --- */
static void test_flock(void) {
        const char *L = bu_loop(64, true);
        CHECK(sh("dd if=/dev/urandom of=%s bs=1M count=64 2>/dev/null", L) == 0);
        char *before = dev_hash(L, 0, 0);
        pid_t pid = hold(L, HOLD_FLOCK);
        _cleanup_(freep) char *who = pidstr("locked by", pid);

        AgentState *s = agent_for(L, false);
        json_object *r;
        CHECK(refused_put(wipe(s, L), "EBUSY", L, who, "is in use", NULL));
        CHECK(refused_put(call(s, "create-gpt", "{\"device\":\"%s\"}", L), "EBUSY", L, who, NULL));
        agent_state_free(s);

        /* a dry run takes no lock, and still sees this one (/proc/locks, fdinfo) */
        s = agent_for(L, true);
        CHECK(refused_put(wipe(s, L), "EBUSY", L, who, NULL));
        agent_state_free(s);

        CHECK(dev_same(L, before));

        /* let go: the same wipe goes through */
        unhold(pid);
        s = agent_for(L, false);
        CHECK(call_ok(s, "create-gpt", "{\"device\":\"%s\"}", L));
        r = call(s, "wipe", "{\"device\":\"%s\"}", L);
        CHECK(resp_ok(r));
        json_object_put(r);
        agent_state_free(s);
        free(before);
}

/* A process named `comm` holding `dev` `ms` milliseconds (0: until killed): a reader's
 * flock(LOCK_SH) (what systemd-udevd's worker takes on a disk while it processes an event),
 * or with `claim` a claim as block_claim() takes it (open for writing, flock(LOCK_EX)). */
static pid_t hold_lock(const char *dev, const char *comm, unsigned ms, bool claim) {
        int p[2];
        if (pipe(p) < 0)
                exit(1);
        pid_t pid = fork();
        if (pid == 0) {
                close(p[0]);
                prctl(PR_SET_NAME, comm);
                int fd = open(dev, claim ? O_RDWR : O_RDONLY);
                bool ok = fd >= 0 && flock(fd, (claim ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0;
                ssize_t _unused_ n = write(p[1], ok ? "1" : "0", 1);
                if (ms > 0) {
                        struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
                        nanosleep(&ts, NULL);
                        _exit(0);
                }
                for (;;)
                        pause();
        }
        close(p[1]);
        char c = 0;
        CHECK(read(p[0], &c, 1) == 1 && c == '1');
        close(p[0]);
        return pid;
}

/* A process named `comm` holding the device as an agent's claim does (create-partition's):
 * the lock on one descriptor and libparted's own descriptor, open for writing without a
 * lock, opened before or after it; or (CLAIM_WRITE_ONLY) open for writing, no lock: an agent
 * outside any claim, or a udev worker handling an event. ms 0: held until killed. */
typedef enum { CLAIM_LOCK_FIRST, CLAIM_WRITE_FIRST, CLAIM_WRITE_ONLY } ClaimHow;

static pid_t hold_agent(const char *dev, const char *comm, unsigned ms, ClaimHow how) {
        int p[2];
        if (pipe(p) < 0)
                exit(1);
        pid_t pid = fork();
        if (pid == 0) {
                close(p[0]);
                prctl(PR_SET_NAME, comm);
                int w = how != CLAIM_LOCK_FIRST ? open(dev, O_RDWR) : -1;
                bool ok = true;
                if (how != CLAIM_WRITE_ONLY) {
                        int fd = open(dev, O_RDWR);
                        ok = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0;
                }
                if (how == CLAIM_LOCK_FIRST)
                        w = open(dev, O_RDWR);
                ok = ok && w >= 0;
                ssize_t _unused_ n = write(p[1], ok ? "1" : "0", 1);
                if (ms > 0) {
                        struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
                        nanosleep(&ts, NULL);
                        _exit(0);
                }
                for (;;)
                        pause();
        }
        close(p[1]);
        char c = 0;
        CHECK(read(p[0], &c, 1) == 1 && c == '1');
        close(p[0]);
        return pid;
}

static pid_t hold_shared(const char *dev, const char *comm, unsigned ms) {
        return hold_lock(dev, comm, ms, false);
}

/* --- udev's lock on a disk (right after the previous partition) is waited for, bounded;
 *     the same lock held by anyone else is refused, as before --- */
static void test_udev_lock(void) {
        const char *L = bu_loop(64, false);
        AgentState *s = agent_for(L, false);
        json_object *r;
        CHECK(call_ok(s, "create-gpt", "{\"device\":\"%s\"}", L));

        /* a udev worker with the disk open for writing for 1 s (an event of it handled, as
         * after bcache's teardown): waited for, not refused */
        {
                pid_t w = hold_agent(L, "(udev-worker)", 1000, CLAIM_WRITE_ONLY);
                double w0 = bu_now_s();
                CHECK(call_ok(s, "create-gpt", "{\"device\":\"%s\"}", L));
                CHECK(bu_now_s() - w0 >= 0.5);
                waitpid(w, NULL, 0);
        }

        /* a udev worker busy for 5 s (longer than the 3 s any reader gets): waited for */
        pid_t pid = hold_shared(L, "(udev-worker)", 5000);
        double t0 = bu_now_s();
        r = call(s, "wipe", "{\"device\":\"%s\"}", L);
        double dt = bu_now_s() - t0;
        CHECK(resp_ok(r));
        CHECK(dt >= 3.0 && dt < 20.0);
        json_object_put(r);
        waitpid(pid, NULL, 0);

        /* the same 5 s shared lock by another process: refused after 3 s, naming it */
        char *before = dev_hash(L, 0, 0);
        pid = hold_shared(L, "bstore-like", 5000);
        _cleanup_(freep) char *who = pidstr("locked by", pid);
        CHECK(refused_put(call(s, "create-gpt", "{\"device\":\"%s\"}", L), "EBUSY", L, who, "is in use", NULL));
        waitpid(pid, NULL, 0);

        /* a udev worker that never lets go: refused too, once the bound is reached */
        pid = hold_shared(L, "(udev-worker)", 0);
        _cleanup_(freep) char *udev_who = strprintf("locked by pid %d ((udev-worker))", (int) pid);
        t0 = bu_now_s();
        r = call(s, "create-gpt", "{\"device\":\"%s\"}", L);
        dt = bu_now_s() - t0;
        CHECK(refused(r, "EBUSY", L, udev_who, NULL));
        CHECK(dt >= BLOCK_UDEV_LOCK_WAIT_MS / 1000.0 - 0.5 && dt < BLOCK_UDEV_LOCK_WAIT_MS / 1000.0 + 10);
        json_object_put(r);
        unhold(pid);
        CHECK(dev_same(L, before));
        free(before);
        agent_state_free(s);
}

/* --- the cluster lock's lease (issue 26 item 5, docs/agent.md "The lease"): a request that
 *     arrives with none left is refused; one whose lease runs out while it waits for the
 *     device's lock is refused for the lease, before any write; with time left it runs --- */
static void test_lease(void) {
        const char *L = bu_loop(64, false);
        CHECK(sh("mkfs.ext4 -q -F %s >/dev/null 2>&1", L) == 0);
        char *before = dev_hash(L, 0, 0);
        AgentState *s = agent_for(L, false);

        /* arrived past its lease: nothing done, whatever the op */
        static const char *const ops[] = { "wipe", "create-gpt", "delete-partition", "bcache-teardown" };
        for (size_t i = 0; i < ELEMENTSOF(ops); i++) {
                json_object *r = call(s, ops[i], "{\"device\":\"%s\",\"backing\":\"%s\",\"number\":1,\"lease_left_ms\":0}", L, L);
                CHECK(refused_put(r, "ENOLCK", "arrived after the cluster lock's lease had run out (lease_left_ms 0)",
                                  "nothing done on", NULL));
        }
        json_object *r;
        CHECK(refused_put(call(s, "wipe", "{\"device\":\"%s\",\"lease_left_ms\":-5}", L), "ENOLCK",
                          "lease_left_ms -5", NULL));
        r = call(s, "wipe", "{\"device\":\"%s\",\"lease_left_ms\":\"soon\"}", L);
        CHECK_STREQ(jstr(r, "error.errno"), "EINVAL");
        json_object_put(r);

        /* a reader's shared lock held 2.5 s (shorter than the 3 s any reader gets): with 1 s of
         * lease left, the wait ends at the lease, refused for it, naming the holder */
        pid_t pid = hold_shared(L, "slow-reader", 2500);
        _cleanup_(freep) char *who = strprintf("held by pid %d (slow-reader)", (int) pid);
        double t0 = bu_now_s();
        r = call(s, "wipe", "{\"device\":\"%s\",\"lease_left_ms\":1000}", L);
        double dt = bu_now_s() - t0;
        CHECK(refused(r, "ENOLCK", "while waiting for the lock on", L, who, "refusing to wipe",
                      "the cluster lock's lease ran out (the request arrived with 1000 ms of it left", NULL));
        CHECK(dt >= 0.95 && dt < 2.4);
        json_object_put(r);
        waitpid(pid, NULL, 0);
        CHECK(dev_same(L, before));

        /* the same wait with 10 s left: the lock comes free in time, the wipe runs */
        pid = hold_shared(L, "slow-reader", 1500);
        CHECK(call_ok(s, "wipe", "{\"device\":\"%s\",\"lease_left_ms\":10000}", L));
        waitpid(pid, NULL, 0);
        char *after = dev_hash(L, 0, 0);
        CHECK(!streq(before, after));
        free(after);
        /* and without a lease (older controllers, reads): as before */
        CHECK(call_ok(s, "create-gpt", "{\"device\":\"%s\"}", L));
        free(before);
        agent_state_free(s);
}

/* --- an OFD lock, and a writer without any lock --- */
static void test_ofd_and_writer(void) {
        const char *L = bu_loop(64, true);
        CHECK(sh("mkfs.ext4 -q -F %s >/dev/null 2>&1", L) == 0);
        char *before = dev_hash(L, 0, 0);
        AgentState *s = agent_for(L, false);

        pid_t pid = hold(L, HOLD_OFD);
        _cleanup_(freep) char *who = pidstr("locked by", pid);
        CHECK(refused_put(wipe(s, L), "EBUSY", L, who, NULL));
        unhold(pid);

        pid = hold(L, HOLD_WRITE);
        _cleanup_(freep) char *w = pidstr("open for writing by", pid);
        CHECK(refused_put(wipe(s, L), "EBUSY", L, w, NULL));
        unhold(pid);

        /* a reader (blkid, udev) is no reason to refuse */
        CHECK(dev_same(L, before));
        pid = hold(L, HOLD_READ);
        CHECK(call_ok(s, "wipe", "{\"device\":\"%s\"}", L));
        unhold(pid);
        agent_state_free(s);
        free(before);
}

/* A loop with a GPT and two partitions, p2 full of random bytes. */
static const char *gpt_loop(void) {
        const char *L = bu_loop(128, true);
        CHECK(sh("sgdisk -n 1:2048:+32M -c 1:one -n 2:0:+64M -c 2:two %s >/dev/null && partx -a %s", L, L) == 0);
        CHECK(sh("dd if=/dev/urandom of=%sp2 bs=1M count=64 2>/dev/null", L) == 0);
        return L;
}

/* --- a held partition: the whole-device wipe is refused, GPT (both copies) and data intact --- */
static void test_partition_held(void) {
        const char *L = gpt_loop();
        char p1[64], p2[64];
        snprintf(p1, sizeof(p1), "%sp1", L);
        snprintf(p2, sizeof(p2), "%sp2", L);
        char *before = dev_hash(L, 0, 0);
        AgentState *s = agent_for(L, false);

        pid_t pid = hold(p2, HOLD_FLOCK);
        _cleanup_(freep) char *who = pidstr("locked by", pid);
        CHECK(refused_put(wipe(s, L), "EBUSY", L, "its partition", p2, who, NULL));
        CHECK(refused_put(wipe(s, p2), "EBUSY", p2, who, NULL));
        CHECK(dev_same(L, before));
        CHECK(sh("sgdisk -v %s | grep -q 'No problems found'", L) == 0);
        CHECK(access(p1, F_OK) == 0 && access(p2, F_OK) == 0);
        unhold(pid);

        /* a partition merely open (not "in use" by the scan) still stops the wipe before a
         * byte is written: the kernel refuses to drop it, and p1, dropped already, is back */
        pid = hold(p2, HOLD_READ);
        CHECK(refused_put(wipe(s, L), "EBUSY", L, p2, "the kernel refused to remove it", NULL));
        CHECK(dev_same(L, before));
        CHECK(sh("test -e /sys/class/block/%s/%sp1 && test -e /sys/class/block/%s/%sp2", L + 5, L + 5, L + 5, L + 5) == 0);
        unhold(pid);

        /* the disk held as a whole: a partition of it is refused */
        pid = hold(L, HOLD_WRITE);
        CHECK(refused_put(wipe(s, p1), "EBUSY", p1, "its disk", L, "open for writing", NULL));
        unhold(pid);
        CHECK(dev_same(L, before));
        agent_state_free(s);
        free(before);
}

/* --- another agent's claim of a disk (a partition change of the same host's plan: its
 *     flock of the whole disk) while a partition of that disk is checked, as an OSD creation
 *     checks its DB partition beside a create-partition on one SSD: waited for (the 3 s a
 *     reader gets), not refused at once; held past that, refused naming the disk and the
 *     agent (CI: tentacle's apply refused osd.0 with "its disk ... locked by pid N
 *     (cephprov)") --- */
static void test_agent_disk_lock(void) {
        const char *L = gpt_loop();
        char p1[64];
        snprintf(p1, sizeof(p1), "%sp1", L);
        AgentState *s = agent_for(L, false);

        pid_t pid = hold_lock(L, "cephprov", 1000, true);
        double t0 = bu_now_s();
        json_object *r = call(s, "wipe", "{\"device\":\"%s\"}", p1);
        double dt = bu_now_s() - t0;
        CHECK(resp_ok(r));
        CHECK(dt >= 0.5 && dt < 20.0);
        json_object_put(r);
        waitpid(pid, NULL, 0);

        /* the claim with libparted's descriptor beside it, listed before or after the
         * locked one (CI: pacific's apply refused osd.2 with "its disk ... is open for
         * writing by pid N (cephprov)" while create-partition ran on the same SSD) */
        for (ClaimHow how = CLAIM_LOCK_FIRST; how <= CLAIM_WRITE_FIRST; how++) {
                pid = hold_agent(L, "cephprov", 1000, how);
                t0 = bu_now_s();
                r = call(s, "wipe", "{\"device\":\"%s\"}", p1);
                dt = bu_now_s() - t0;
                CHECK(resp_ok(r));
                CHECK(dt >= 0.5 && dt < 20.0);
                json_object_put(r);
                waitpid(pid, NULL, 0);
        }

        /* an agent writing the disk without the lock is no claim: refused at once, naming it */
        pid = hold_agent(L, "cephprov", 0, CLAIM_WRITE_ONLY);
        _cleanup_(freep) char *writer = strprintf("its disk '%s' is open for writing by pid %d (cephprov)", L, (int) pid);
        t0 = bu_now_s();
        r = call(s, "wipe", "{\"device\":\"%s\"}", p1);
        dt = bu_now_s() - t0;
        CHECK(refused(r, "EBUSY", p1, writer, NULL));
        CHECK(dt < BLOCK_LOCK_WAIT_MS / 1000.0 - 0.5);
        json_object_put(r);
        unhold(pid);

        pid = hold_lock(L, "cephprov", 0, true);
        _cleanup_(freep) char *who = strprintf("its disk '%s' is locked by pid %d (cephprov)", L, (int) pid);
        t0 = bu_now_s();
        r = call(s, "wipe", "{\"device\":\"%s\"}", p1);
        dt = bu_now_s() - t0;
        CHECK(refused(r, "EBUSY", p1, who, NULL));
        CHECK(dt >= BLOCK_LOCK_WAIT_MS / 1000.0 - 0.5 && dt < 20.0);
        json_object_put(r);
        unhold(pid);

        /* another agent's lock on the device itself: the agent of a killed run killing its
         * ceph-volume on the way out while the re-run's agent claims the same device (CI:
         * convert-kill's re-run after a kill at 'created'): waited for, longer than a
         * reader (its SIGTERM-to-SIGKILL grace), then refused naming it */
        pid = hold_lock(L, "cephprov", 4000, true);
        t0 = bu_now_s();
        r = call(s, "wipe", "{\"device\":\"%s\"}", L);
        dt = bu_now_s() - t0;
        CHECK(resp_ok(r));
        CHECK(dt >= 3.5 && dt < 20.0);
        json_object_put(r);
        waitpid(pid, NULL, 0);
        pid = hold_lock(L, "cephprov", 0, true);
        free(who);
        who = strprintf("locked by pid %d (cephprov)", (int) pid);
        t0 = bu_now_s();
        r = call(s, "wipe", "{\"device\":\"%s\"}", L);
        dt = bu_now_s() - t0;
        CHECK(refused(r, "EBUSY", L, who, NULL));
        CHECK(dt >= BLOCK_AGENT_LOCK_WAIT_MS / 1000.0 - 0.5 && dt < 30.0);
        json_object_put(r);
        unhold(pid);
        agent_state_free(s);
}

/* --- create-partition: refused on a held disk, not for a held partition (an OSD's DB) --- */
static void test_create_partition(void) {
        const char *L = gpt_loop();
        char p2[64];
        snprintf(p2, sizeof(p2), "%sp2", L);
        char *table = sh_out("sgdisk -p %s", L);
        char *before = dev_hash(L, 0, 0);
        AgentState *s = agent_for(L, false);

        pid_t pid = hold(L, HOLD_FLOCK);
        _cleanup_(freep) char *who = pidstr("locked by", pid);
        json_object *r = call(s, "create-partition",
                              "{\"device\":\"%s\",\"number\":3,\"offset\":%llu,\"size\":%llu,\"name\":\"cp:db:0:node1\","
                              "\"type_guid\":\"%s\"}",
                              L, 100 * MiB, 16 * MiB, CEPH_GUID_BLOCK_DB);
        CHECK(refused_put(r, "EBUSY", L, who, NULL));
        unhold(pid);
        char *t2 = sh_out("sgdisk -p %s", L), *after = dev_hash(L, 0, 0);
        CHECK_STREQ(table, t2);
        CHECK_STREQ(before, after);
        free(t2);
        free(after);

        pid = hold(p2, HOLD_FLOCK);
        CHECK(call_ok(s, "create-partition",
                 "{\"device\":\"%s\",\"number\":3,\"offset\":%llu,\"size\":%llu,\"name\":\"cp:db:0:node1\","
                 "\"type_guid\":\"%s\"}",
                 L, 100 * MiB, 16 * MiB, CEPH_GUID_BLOCK_DB));
        unhold(pid);
        CHECK(sh("sgdisk -v %s | grep -q 'No problems found'", L) == 0);
        agent_state_free(s);
        free(table);
        free(before);
}

/* --- a loop device stacked on it (the kernel holds the file, no process does) --- */
static void test_loop_stacked(void) {
        const char *L = bu_loop(64, true);
        char *top = sh_out("losetup -f --show %s", L);
        CHECK(startswith(top, "/dev/loop"));
        AgentState *s = agent_for(L, false);
        CHECK(refused_put(wipe(s, L), "EBUSY", L, "the backing device of", top + 5, NULL));
        agent_state_free(s);
        if (startswith(top, "/dev/loop"))
                sh("losetup -d %s", top);
        free(top);
}

/* Starts SCRIPT as `ceph-osd -f --cluster ceph --id ID --osd-data DIR` in a process group of
 * its own and returns once it runs under that name. With `other` set, in a mount namespace
 * of its own where DIR is an empty tmpfs whose block link names `other`. */
static pid_t stand_in_osd(const char *script, const char *id, const char *dir, const char *other) {
        int p[2];
        CHECK(pipe(p) == 0);
        pid_t pid = fork();
        if (pid == 0) {
                setpgid(0, 0);
                close(p[0]);
                if (other) {
                        char link[340];
                        snprintf(link, sizeof(link), "%s/block", dir);
                        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
                            mount("tmpfs", dir, "tmpfs", 0, NULL) < 0 || symlink(other, link) < 0)
                                _exit(126);
                }
                fcntl(p[1], F_SETFD, FD_CLOEXEC);
                execl(script, script, "-f", "--cluster", "ceph", "--id", id, "--osd-data", dir, (char *) NULL);
                _exit(127);
        }
        close(p[1]);
        char c;
        CHECK(read(p[0], &c, 1) == 0); /* EOF: exec'd */
        close(p[0]);
        for (int i = 0; i < 100; i++) {
                _cleanup_(freep) char *comm = sh_out("cat /proc/%d/comm", (int) pid);
                if (streq(comm, "ceph-osd"))
                        break;
                usleep(10000);
        }
        return pid;
}

/* --- a process named ceph-osd whose data directory names the device (an OSD starting,
 *     not yet holding it) — a shell script stand-in: a real ceph-osd needs a cluster --- */
static void test_ceph_osd(void) {
        const char *L = bu_loop(64, true);
        char dir[300], script[300];
        snprintf(dir, sizeof(dir), "%s/osd-7", bu_dir);
        snprintf(script, sizeof(script), "%s/ceph-osd", bu_dir);
        CHECK(sh("mkdir -p %s && ln -sf %s %s/block && printf '#!/bin/sh\\nsleep 600\\n' >%s && chmod +x %s", dir, L,
                 dir, script, script) == 0);
        pid_t pid = stand_in_osd(script, "7", dir, NULL);
        int p[2];
        _cleanup_(freep) char *who = strprintf("used by ceph-osd pid %d (osd.7", (int) pid);

        AgentState *s = agent_for(L, false);
        CHECK(refused_put(wipe(s, L), "EBUSY", L, who, NULL));
        agent_state_free(s);
        /* osd-create for that very OSD (a re-sent request) passes the check; another id not */
        s = agent_for(L, true);
        CHECK(call_ok(s, "osd-create", "{\"device\":\"%s\",\"osd_id\":7}", L));
        CHECK(refused_put(call(s, "osd-create", "{\"device\":\"%s\",\"osd_id\":8}", L), "EBUSY", L, who, NULL));
        agent_state_free(s);
        kill(-pid, SIGKILL);
        waitpid(pid, NULL, 0);

        /* the same OSD once it holds its device the way BlueStore does, O_EXCL (a re-run
         * whose inventory saw it stopped, the daemon started by a killed run a moment
         * later, seen in the long kill sweep): still its own; another id still refused.
         * "held" goes out in one write: print() under PYTHONUNBUFFERED=1 (set on these
         * machines) writes "held" and "\n" apart, the second after we closed the pipe, and
         * the stand-in died of EPIPE while the check ran (a CI run failed so) */
        CHECK(sh("printf '#!/usr/bin/python3\nimport os, sys, time\nfd = os.open(\"%s\", os.O_RDWR | os.O_EXCL)\n"
                 "os.write(1, b\"held\")\nos.close(1)\ntime.sleep(600)\n' >%s && chmod +x %s", L, script, script) == 0);
        CHECK(pipe(p) == 0);
        pid = fork();
        if (pid == 0) {
                setpgid(0, 0);
                close(p[0]);
                dup2(p[1], 1);
                close(p[1]);
                execl(script, script, "-f", "--cluster", "ceph", "--id", "7", "--osd-data", dir, (char *) NULL);
                _exit(127);
        }
        close(p[1]);
        char held[8] = "";
        CHECK(read(p[0], held, sizeof(held) - 1) > 0 && startswith(held, "held")); /* it has the device */
        close(p[0]);
        free(who);
        who = strprintf("used by ceph-osd pid %d (osd.7", (int) pid);
        /* osd-create's check itself, as a real (not dry) run makes it: a dry run opens
         * without O_EXCL, and a real osd-create would go on to run ceph-volume */
        s = agent_for(L, false);
        for (int id = 7; id <= 8; id++) {
                _cleanup_json_ json_object *args = json_tokener_parse("{}");
                json_object_object_add(args, "device", json_object_new_string(L));
                json_object_object_add(args, "osd_id", json_object_new_int(id));
                Error e = {};
                int rc = agent_osd_check_devices(s, args, &e);
                if (id == 7)
                        CHECK_INTEQ(rc, 0);
                else
                        CHECK(rc == -EBUSY && strstr(e.message, who));
                if (rc < 0 && id == 7)
                        fprintf(stderr, "  osd.7's own check: %s\n", e.message);
        }
        CHECK(refused_put(wipe(s, L), "EBUSY", L, who, NULL));
        agent_state_free(s);
        kill(-pid, SIGKILL);
        waitpid(pid, NULL, 0);
}

/* --- a ceph-osd of another mount namespace (a container, another fake host of the lab)
 *     whose data directory has the same path as one of ours: its block link is its own, not
 *     ours; the agent must read it through /proc/PID/root (seen on the lab: another lab's
 *     osd.7 refused this lab's device that our /var/lib/ceph/osd/ceph-7/block names) --- */
static void test_ceph_osd_other_namespace(void) {
        const char *L = bu_loop(64, true), *other = bu_loop(64, true);
        char dir[300], script[300];
        snprintf(dir, sizeof(dir), "%s/osd-9", bu_dir);
        snprintf(script, sizeof(script), "%s/ceph-osd", bu_dir);
        /* here, the data directory names L */
        CHECK(sh("mkdir -p %s && ln -sf %s %s/block && printf '#!/bin/sh\\nsleep 600\\n' >%s && chmod +x %s", dir, L,
                 dir, script, script) == 0);
        /* there, the same path is a directory of its own whose block names `other` */
        pid_t pid = stand_in_osd(script, "9", dir, other);
        _cleanup_(freep) char *comm = sh_out("cat /proc/%d/comm", (int) pid);
        CHECK(streq(comm, "ceph-osd")); /* the stand-in runs, in its own mount namespace */

        /* L is ours and nobody's: a wipe passes; `other` is the stand-in's: refused */
        AgentState *s = agent_for(L, false);
        json_object *r = call(s, "wipe", "{\"device\":\"%s\"}", L);
        CHECK(resp_ok(r));
        if (!resp_ok(r))
                fprintf(stderr, "  %s\n", json_object_to_json_string(r));
        json_object_put(r);
        agent_state_free(s);
        _cleanup_(freep) char *who = strprintf("used by ceph-osd pid %d (osd.9", (int) pid);
        s = agent_for(other, false);
        CHECK(refused_put(wipe(s, other), "EBUSY", other, who, NULL));
        agent_state_free(s);
        kill(-pid, SIGKILL);
        waitpid(pid, NULL, 0);
}

/* --- btrfs (mountinfo says 0:N): one device, and the second device of a two-device fs --- */
static void test_btrfs(void) {
        if (sh("command -v mkfs.btrfs >/dev/null") != 0 || sh("grep -qw btrfs /proc/filesystems") != 0) {
                fprintf(stderr, "  (no mkfs.btrfs or no btrfs in this kernel: skipped)\n");
                CHECK(1);
                return;
        }
        const char *A = bu_loop(300, true), *B = bu_loop(300, true);
        char mnt[300];
        snprintf(mnt, sizeof(mnt), "%s/mnt-btrfs", bu_dir);
        mkdir(mnt, 0755);
        CHECK(sh("mkfs.btrfs -q -f %s >/dev/null && mount %s %s", A, A, mnt) == 0);
        /* a mounted btrfs writes to its device itself: its identity is compared, not bytes */
        char *before = sh_out("blkid -p -o value -s TYPE -s UUID %s", A);
        AgentState *s = agent_for2(A, B, false);
        json_object *r;
        CHECK(refused_put(wipe(s, A), "EBUSY", A, "mounted on", mnt, NULL));
        /* the inventory sees the mount too */
        r = call(s, "inventory", "{}");
        json_object *devs = jget(r, "result.devices");
        const char *mp = "";
        for (size_t i = 0; devs && i < json_object_array_length(devs); i++)
                if (streq(jstr(json_object_array_get_idx(devs, i), "path"), A))
                        mp = jstr(json_object_array_get_idx(devs, i), "content.mountpoint");
        CHECK_STREQ(mp, mnt);
        json_object_put(r);
        sh("umount %s", mnt);
        char *after = sh_out("blkid -p -o value -s TYPE -s UUID %s", A);
        CHECK(strstr(before, "btrfs") != NULL);
        CHECK_STREQ(before, after);
        free(before);
        free(after);

        /* mountinfo names only the first device of a multi-device btrfs */
        CHECK(sh("mkfs.btrfs -q -f -d single -m single %s %s >/dev/null && mount %s %s", A, B, A, mnt) == 0);
        before = sh_out("blkid -p -o value -s TYPE -s UUID %s", B);
        CHECK(refused_put(wipe(s, B), "EBUSY", B, "mounted on", mnt, NULL));
        sh("umount %s", mnt);
        after = sh_out("blkid -p -o value -s TYPE -s UUID %s", B);
        CHECK(strstr(before, "btrfs") != NULL);
        CHECK_STREQ(before, after);
        free(before);
        free(after);
        agent_state_free(s);
}

/* --- changed since the plan: a real plan of the agent's inventory, its requests sent after
 *     the device changed --- */
static Plan *plan_of_profile(AgentState *s, const char *profile);

static Plan *plan_of(AgentState *s, const char *L) {
        _cleanup_(freep) char *p = strprintf("    allow: ['%s']\n"
                                             "    data: {devices: ['%s']}\n"
                                             "    wipe: true\n",
                                             L, L);
        return plan_of_profile(s, p);
}

static Plan *plan_of_profile(AgentState *s, const char *profile) {
        json_object *r = call(s, "inventory", "{}");
        Inventory *inv = NULL;
        Error err = {};
        CHECK(inventory_from_json(jget(r, "result"), &inv, &err) == 0);
        json_object_put(r);
        InventorySet *set = calloc(1, sizeof(InventorySet));
        CHECK(set && inv && inventory_set_add(set, inv) == 0);
        _cleanup_(freep) char *y = strprintf("cluster: {name: ceph, admin_host: node1}\n"
                                             "profiles:\n"
                                             "  p:\n"
                                             "%s"
                                             "hosts:\n"
                                             "  - {name: node1, profile: p, transport: local}\n",
                                             profile);
        Layout *l = NULL;
        CHECK(layout_load_string("test.yaml", y, strlen(y), &l, &err) == 0);
        Plan *p = NULL;
        if (l && plan_compute(l, set, &p, &err) < 0)
                fprintf(stderr, "  %s\n", err.message);
        CHECK(p != NULL);
        layout_free(l);
        inventory_set_free(set);
        return p;
}

static const Step *plan_step(const Plan *p, StepKind k) {
        for (size_t i = 0; p && i < p->n_hosts; i++)
                for (size_t j = 0; j < p->hosts[i].n_steps; j++)
                        if (p->hosts[i].steps[j].kind == k)
                                return &p->hosts[i].steps[j];
        return NULL;
}

static void test_changed_since_plan(void) {
        const char *L = bu_loop(512, true);
        CHECK(sh("mkfs.xfs -q -f %s", L) == 0);
        AgentState *s = agent_for(L, false);
        _cleanup_(plan_freep) Plan *p = plan_of(s, L);
        const Step *w = plan_step(p, STEP_WIPE);
        CHECK(w != NULL);
        if (!w)
                return;
        json_object *req = NULL;
        CHECK(agent_request_from_step(w, &req) == 0);
        CHECK_STREQ(jstr(req, "args.expect.type"), "xfs");
        CHECK_INTEQ(json_object_get_int64(jget(req, "args.expect.size")), 512 * MiB);

        /* someone put another file system there since */
        CHECK(sh("mkfs.ext4 -q -F %s >/dev/null 2>&1", L) == 0);
        char *before = dev_hash(L, 0, 0);
        json_object *r;
        CHECK(refused_put(call_req(s, req), "ESTALE", L, "changed since the plan: type ext4, was xfs",
                          "re-run plan", NULL));
        json_object_put(req);
        CHECK(dev_same(L, before));
        free(before);

        /* planned as blank, an OSD appeared meanwhile: osd-create is refused before ceph-volume
         * (dry run: it would stop right before ceph-volume anyway) */
        CHECK(call_ok(s, "wipe", "{\"device\":\"%s\"}", L));
        plan_free(p);
        p = plan_of(s, L);
        const Step *o = plan_step(p, STEP_CREATE_OSD);
        CHECK(o != NULL);
        if (!o)
                return;
        req = NULL;
        CHECK(agent_request_from_step(o, &req) == 0);
        CHECK(jget(req, "args.expect") && json_object_get_type(jget(req, "args.expect.type")) == json_type_null);
        json_object_object_add(jget(req, "args"), "osd_id", json_object_new_int(7));
        CHECK(sh("printf 'bluestore block device\\n0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9\\n' | dd of=%s conv=notrunc 2>/dev/null",
                 L) == 0);
        AgentState *dry = agent_for(L, true);
        r = call_req(dry, req);
        CHECK(refused(r, "ESTALE", L, "changed since the plan: type ceph_bluestore, was empty; re-run plan", NULL));
        json_object_put(r);
        /* the same request without what the plan saw (an older controller) is not refused */
        json_object_object_del(jget(req, "args"), "expect");
        CHECK(call_req_ok(dry, req));
        json_object_put(req);
        agent_state_free(dry);
        agent_state_free(s);
}

/* A blank SSD with an empty GPT and an HDD, an agent allowed both, and the profile that puts
 * the HDD's DB (64M) on the SSD. */
static AgentState *ssd_and_hdd(const char **ret_ssd, const char **ret_hdd, char **ret_profile) {
        const char *ssd = bu_loop(256, false), *hdd = bu_loop(256, true);
        CHECK(sh("sgdisk -o %s >/dev/null", ssd) == 0);
        *ret_ssd = ssd;
        *ret_hdd = hdd;
        *ret_profile = strprintf("    allow: ['%s', '%s']\n"
                                 "    data: {devices: ['%s']}\n"
                                 "    fast: {devices: ['%s']}\n"
                                 "    db_size: 64M\n",
                                 ssd, hdd, hdd, ssd);
        return agent_for2(ssd, hdd, false);
}

/* --- an unchanged device passes: a plan's disk steps sent in order, each carrying what the
 *     plan saw (a GPT with its disk GUID, a partition this plan adds), then osd-create --- */
static void test_unchanged_passes(void) {
        const char *ssd, *hdd;
        _cleanup_(freep) char *prof = NULL;
        AgentState *s = ssd_and_hdd(&ssd, &hdd, &prof);
        for (int round = 0; round < 2; round++) {
                Plan *p = plan_of_profile(s, prof);
                size_t n_osd = 0, n_part = 0;
                for (size_t i = 0; p && i < p->n_hosts; i++)
                        for (size_t j = 0; j < p->hosts[i].n_steps; j++) {
                                const Step *st = &p->hosts[i].steps[j];
                                json_object *req = NULL;
                                CHECK(agent_request_from_step(st, &req) == 0);
                                CHECK(jget(req, "args.expect") != NULL);
                                if (st->kind == STEP_CREATE_PARTITION) {
                                        n_part++;
                                        _cleanup_(freep) char *g = sh_out("sgdisk -p %s | sed -n 's/^Disk identifier (GUID): //p' | tr A-F a-f", ssd);
                                        CHECK_STREQ(jstr(req, "args.expect.ptuuid"), g);
                                }
                                AgentState *a = s;
                                if (st->kind == STEP_CREATE_OSD) {
                                        n_osd++;
                                        /* round 1: the DB partition exists now and is seen whole */
                                        json_object *de = jget(req, "args.db_expect");
                                        CHECK(de && json_object_object_get_ex(de, "size", NULL));
                                        CHECK(json_object_object_get_ex(de, "type", NULL) == (round == 1));
                                        json_object_object_add(jget(req, "args"), "osd_id", json_object_new_int(3));
                                        a = agent_for2(ssd, hdd, true);
                                }
                                CHECK(call_req_ok(a, req));
                                json_object_put(req);
                                if (a != s)
                                        agent_state_free(a);
                        }
                CHECK_INTEQ(n_osd, 1);
                CHECK_INTEQ(n_part, round == 0 ? 1 : 0);
                plan_free(p);
        }
        agent_state_free(s);
}

/* --- act-time identity: the device at hand is not the one the plan saw (issue 25, item 3) --- */

static char *loop_backing(const char *L) {
        return sh_out("cat /sys/block/%s/loop/backing_file", L + 5);
}

/* Puts `img` behind the loop node `L` (its old file detached): another disk at the same
 * name, as after a swap and a rescan. */
static int loop_swap(const char *L, const char *img) {
        return sh("losetup -d %s && for i in $(seq 50); do losetup -P %s '%s' 2>/dev/null && exit 0; sleep 0.1; done; exit 1",
                  L, L, img);
}

/* A disk swapped for a copy of itself (same size, same bytes, another backing file) between
 * plan and wipe: refused by its identity, not one byte changed. */
static void test_identity_swapped(void) {
        const char *L = bu_loop(512, true);
        CHECK(sh("mkfs.xfs -q -f %s", L) == 0);
        AgentState *s = agent_for(L, false);
        _cleanup_(plan_freep) Plan *p = plan_of(s, L);
        const Step *w = plan_step(p, STEP_WIPE);
        CHECK(w != NULL);
        if (!w)
                return;
        _cleanup_(freep) char *orig = loop_backing(L);
        _cleanup_(freep) char *ident = strprintf("file %s", orig);
        json_object *req = NULL;
        CHECK(agent_request_from_step(w, &req) == 0);
        CHECK_STREQ(jstr(req, "args.expect.identity"), ident);

        _cleanup_(freep) char *copy = strprintf("%s/swapped.img", bu_dir);
        CHECK(sh("cp --sparse=always '%s' '%s'", orig, copy) == 0);
        CHECK(loop_swap(L, copy) == 0);
        char *before = dev_hash(L, 0, 0);
        json_object *r = call_req(s, req);
        _cleanup_(freep) char *now = strprintf("it is file %s, the plan saw %s; re-run plan", copy, ident);
        CHECK(refused(r, "ESTALE", L, "is not the device the plan saw", now, NULL));
        json_object_put(r);
        CHECK(dev_same(L, before));
        free(before);

        /* the disk the plan saw is back: the same request wipes it */
        CHECK(loop_swap(L, orig) == 0);
        CHECK(call_req_ok(s, req));
        json_object_put(req);
        agent_state_free(s);
}

/* delete-partition carries the partition the plan saw (PARTUUID, start, size, the disk's
 * identity): one of the same number and name but another PARTUUID is refused, nothing
 * zeroed; the one the plan saw is deleted. */
static void test_delete_partition_identity(void) {
        const char *L = bu_loop(64, false);
        CHECK(sh("sgdisk -o -n 1:1M:+16M -c 1:olddb %s >/dev/null && partx -u %s", L, L) == 0);
        CHECK(sh("dd if=/dev/urandom of=%sp1 bs=1M count=1 conv=fsync 2>/dev/null", L) == 0);
        AgentState *s = agent_for(L, false);
        json_object *ir = call(s, "inventory", "{}");
        Inventory *inv = NULL;
        Error err = {};
        CHECK(inventory_from_json(jget(ir, "result"), &inv, &err) == 0);
        json_object_put(ir);
        const InvDevice *d = inv ? inventory_find_device(inv, L) : NULL;
        CHECK(d && d->n_partitions == 1 && d->partitions[0].partuuid);
        if (!d || d->n_partitions != 1 || !d->partitions[0].partuuid) {
                inventory_free(inv);
                agent_state_free(s);
                return;
        }
        StepSeen seen = {};
        json_object *e = NULL;
        CHECK(plan_seen_partition(&seen, d, &d->partitions[0]) == 0 && agent_expect_to_json(&seen, &e) == 0);
        plan_seen_done(&seen);
        _cleanup_(freep) char *was = strdup(d->partitions[0].partuuid);
        inventory_free(inv);

        /* the partition was made again meanwhile: same number, name, place and size */
        CHECK(sh("sgdisk -u 1:R %s >/dev/null; partx -u %s", L, L) == 0);
        _cleanup_(freep) char *other = sh_out("blkid -p -s PART_ENTRY_UUID -o value %sp1", L);
        char *before = dev_hash(L, 0, 0);
        json_object *req = json_object_new_object(), *a = json_object_new_object();
        json_object_object_add(req, "op", json_object_new_string("delete-partition"));
        json_object_object_add(req, "args", a);
        json_object_object_add(a, "device", json_object_new_string(L));
        json_object_object_add(a, "number", json_object_new_int(1));
        json_object_object_add(a, "name", json_object_new_string("olddb"));
        json_object_object_add(a, "expect", e);
        json_object *r = call_req(s, req);
        _cleanup_(freep) char *msg = strprintf("its PARTUUID is %s, the plan saw %s; re-run plan", other, was);
        CHECK(refused(r, "ESTALE", "partition 1 of", L, "is not the partition the plan saw", msg, NULL));
        json_object_put(r);
        CHECK(dev_same(L, before));
        free(before);

        /* the PARTUUID the plan saw again: deleted */
        CHECK(sh("sgdisk -u 1:%s %s >/dev/null; partx -u %s", was, L, L) == 0);
        CHECK(call_req_ok(s, req));
        json_object_put(req);
        agent_state_free(s);
}

/* osd-create whose DB partition is another one than the plan saw (recreated with the same
 * name, place and size): refused before ceph-volume runs. */
static void test_osd_create_db_partuuid(void) {
        const char *ssd, *hdd;
        _cleanup_(freep) char *prof = NULL;
        AgentState *s = ssd_and_hdd(&ssd, &hdd, &prof);
        /* the partition first (its own step), then a plan that sees it */
        Plan *p = plan_of_profile(s, prof);
        const Step *cp = plan_step(p, STEP_CREATE_PARTITION);
        json_object *req = NULL;
        CHECK(cp && agent_request_from_step(cp, &req) == 0);
        CHECK(call_req_ok(s, req));
        json_object_put(req);
        plan_free(p);
        p = plan_of_profile(s, prof);
        const Step *o = plan_step(p, STEP_CREATE_OSD);
        req = NULL;
        CHECK(o && agent_request_from_step(o, &req) == 0);
        if (!req) {
                plan_free(p);
                agent_state_free(s);
                return;
        }
        const char *was = jstr(req, "args.db_expect.partuuid");
        CHECK(was[0] != 0);
        json_object_object_add(jget(req, "args"), "osd_id", json_object_new_int(3));

        /* a fake ceph-volume first in PATH: it must not run */
        _cleanup_(freep) char *bin = strprintf("%s/fakebin", bu_dir), *log = strprintf("%s/fakebin/ran", bu_dir);
        CHECK(sh("mkdir -p '%s' && printf '#!/bin/sh\\necho \"$*\" >> %s\\nexit 1\\n' > '%s/ceph-volume' && "
                 "chmod 755 '%s/ceph-volume'", bin, log, bin, bin) == 0);
        _cleanup_(freep) char *oldpath = strdup(getenv("PATH") ?: "/usr/sbin:/usr/bin:/sbin:/bin");
        _cleanup_(freep) char *newpath = strprintf("%s:%s", bin, oldpath);
        setenv("PATH", newpath, 1);

        CHECK(sh("sgdisk -u 1:R %s >/dev/null; partx -u %s", ssd, ssd) == 0);
        char *b1 = dev_hash(ssd, 0, 0), *b2 = dev_hash(hdd, 0, 0);
        CHECK(refused_put(call_req(s, req), "ESTALE", "is not the partition the plan saw: its PARTUUID is", was,
                          "re-run plan", NULL));
        CHECK(access(log, F_OK) < 0);
        char *a1 = dev_hash(ssd, 0, 0), *a2 = dev_hash(hdd, 0, 0);
        CHECK_STREQ(b1, a1);
        CHECK_STREQ(b2, a2);
        free(b1), free(b2), free(a1), free(a2);
        setenv("PATH", oldpath, 1);
        json_object_put(req);
        plan_free(p);
        agent_state_free(s);
}

/* A BlueStore DB label as Ceph writes it: "bluefs db", no meta (no whoami, no ceph_fsid: those
 * are on the main label only), at the start of `dev`. */
static void put_db_label(const char *dev, const char *osd_uuid) {
        uint8_t buf[4096];
        bluestore_label(buf, osd_uuid, 16 * MiB, "bluefs db", NULL);
        int fd = open(dev, O_WRONLY);
        CHECK(fd >= 0 && pwrite(fd, buf, sizeof(buf), 0) == (ssize_t) sizeof(buf));
        fsync(fd);
        close(fd);
}

/* A DB partition whose label the controller named from the OSD map (its OSD's main label has
 * no whoami yet: an apply killed in mkfs; hosts.c name_orphan_labels()): what the plan saw of
 * it is what the label says, so the agent, which reads the label, finds it unchanged (it was
 * refused as "the label of osd.-1, the plan saw osd.4's" in the apply kill sweep); a DB label
 * of another OSD there is still refused, nothing written. */
static void test_db_label_named_from_map(void) {
        const char *L = bu_loop(64, false);
        CHECK(sh("sgdisk -o -n 1:1M:+16M -c 1:olddb %s >/dev/null && partx -u %s", L, L) == 0);
        const char *uuid_a = "11082d3e-4f50-4617-8293-a4b5c6d7e8f9", *uuid_b = "22082d3e-4f50-4617-8293-a4b5c6d7e8f9";
        _cleanup_(freep) char *P = strprintf("%sp1", L);
        put_db_label(P, uuid_a);
        AgentState *s = agent_for(L, false);
        json_object *ir = call(s, "inventory", "{}");
        Inventory *inv = NULL;
        Error err = {};
        CHECK(inventory_from_json(jget(ir, "result"), &inv, &err) == 0);
        json_object_put(ir);
        InvDevice *d = inv ? (InvDevice *) inventory_find_device(inv, L) : NULL;
        CHECK(d && d->n_partitions == 1);
        if (!d || d->n_partitions != 1) {
                inventory_free(inv);
                agent_state_free(s);
                return;
        }
        InvOsd *lab = &d->partitions[0].content.osd;
        CHECK(lab->osd_fsid && strcasecmp(lab->osd_fsid, uuid_a) == 0 && lab->id == -1);
        CHECK_STREQ(lab->role, "block.db");
        CHECK(plan_inventory_set_label_id(inv, uuid_a, 4) == 1 && lab->id == 4);
        StepSeen seen = {};
        json_object *e = NULL;
        CHECK(plan_seen_partition(&seen, d, &d->partitions[0]) == 0 && agent_expect_to_json(&seen, &e) == 0);
        CHECK(seen.osd_uuid && seen.whoami == -1);
        plan_seen_done(&seen);
        inventory_free(inv);

        json_object *req = json_object_new_object(), *a = json_object_new_object();
        json_object_object_add(req, "op", json_object_new_string("delete-partition"));
        json_object_object_add(req, "args", a);
        json_object_object_add(a, "device", json_object_new_string(L));
        json_object_object_add(a, "number", json_object_new_int(1));
        json_object_object_add(a, "name", json_object_new_string("olddb"));
        json_object_object_add(a, "expect", e);

        /* another OSD's DB label there now: refused, nothing changed */
        put_db_label(P, uuid_b);
        char *before = dev_hash(L, 0, 0);
        CHECK(refused_put(call_req(s, req), "ESTALE", "is not the device the plan saw", uuid_b, uuid_a, NULL));
        CHECK(dev_same(L, before));
        free(before);

        /* the label the plan saw: the partition is deleted */
        put_db_label(P, uuid_a);
        CHECK(call_req_ok(s, req));
        json_object_put(req);
        agent_state_free(s);
}

int main(void) {
        bu_init();
        TEST_RUN(test_flock);
        TEST_RUN(test_ofd_and_writer);
        TEST_RUN(test_udev_lock);
        TEST_RUN(test_lease);
        TEST_RUN(test_partition_held);
        TEST_RUN(test_create_partition);
        TEST_RUN(test_agent_disk_lock);
        TEST_RUN(test_loop_stacked);
        TEST_RUN(test_ceph_osd);
        TEST_RUN(test_ceph_osd_other_namespace);
        TEST_RUN(test_btrfs);
        TEST_RUN(test_changed_since_plan);
        TEST_RUN(test_unchanged_passes);
        TEST_RUN(test_identity_swapped);
        TEST_RUN(test_delete_partition_identity);
        TEST_RUN(test_osd_create_db_partuuid);
        TEST_RUN(test_db_label_named_from_map);
        return test_result();
}
