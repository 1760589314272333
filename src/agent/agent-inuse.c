/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "In use": who else holds a block device, and the claim every destructive op takes
 * before it writes. A running raw-mode BlueStore OSD opens its device O_RDWR|O_DIRECT and
 * flock()s it, without O_EXCL: mounts, swaps, holders and an O_EXCL open all pass for it.
 * So a claim opens the device (O_EXCL), confirms with fstat() that the descriptor is the
 * device that was resolved, takes flock(LOCK_EX) and an OFD write lock on it, and only then
 * looks for other users — of the device, of its partitions (a disk) or of its whole disk
 * (a partition): mounts (btrfs included, whose mountinfo says 0:N), swap, holders, bcache
 * registration, loop devices backed by it, locks and writable descriptors of every
 * process (/proc/PID/fd + fdinfo, /proc/locks), ceph-osd processes whose command line or
 * data directory names it. The op writes through that descriptor while it holds it, so
 * nobody that honours any of these (a mount, md, BlueStore's flock, another cephprov) can
 * take the device between the check and the write. Last, what the plan saw of the device
 * (the request's "expect") is compared with what is on it now. */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <blkid/blkid.h>

#include "agent-internal.h"
#include "basic/clock-util.h"

/* ---- what the plan saw ---- */

static int expect_field(json_object *o, const char *key, bool *ret_has, const char **ret, const char *what,
                        Error *err) {
        json_object *v;
        if (!json_object_object_get_ex(o, key, &v))
                return 0;
        if (v && !json_object_is_type(v, json_type_string))
                return error_set(err, EINVAL, "%s: expect.%s must be a string or null", what, key);
        *ret_has = true;
        *ret = v ? json_object_get_string(v) : NULL;
        return 0;
}

int dev_expect_parse(json_object *args, const char *key, const char *what, DevExpect *ret, Error *err) {
        *ret = (DevExpect) {};
        json_object *o;
        if (!json_object_object_get_ex(args, key, &o) || !o)
                return 0; /* an older controller: nothing to compare */
        if (!json_object_is_type(o, json_type_object))
                return error_set(err, EINVAL, "%s: key '%s' must be an object", what, key);
        DevExpect e = { .present = true };
        int r;
        if ((r = expect_field(o, "type", &e.has_type, &e.type, what, err)) < 0 ||
            (r = expect_field(o, "uuid", &e.has_uuid, &e.uuid, what, err)) < 0 ||
            (r = expect_field(o, "pttype", &e.has_pttype, &e.pttype, what, err)) < 0 ||
            (r = expect_field(o, "ptuuid", &e.has_ptuuid, &e.ptuuid, what, err)) < 0)
                return r;
        r = json_get_u64(o, "size", false, &e.size, what, err);
        if (r < 0 && r != -ENOENT)
                return r;
        e.has_size = r >= 0;
        r = json_get_u64(o, "start", false, &e.start, what, err);
        if (r < 0 && r != -ENOENT)
                return r;
        e.has_start = r >= 0;
        bool has;
        if ((r = expect_field(o, "identity", &has, &e.identity, what, err)) < 0 ||
            (r = expect_field(o, "partuuid", &has, &e.partuuid, what, err)) < 0)
                return r;
        e.whoami = -1;
        json_object *osd;
        if (json_object_object_get_ex(o, "osd", &osd) && osd) {
                if (!json_object_is_type(osd, json_type_object))
                        return error_set(err, EINVAL, "%s: expect.osd must be an object", what);
                if ((r = expect_field(osd, "osd_uuid", &has, &e.osd_uuid, what, err)) < 0 ||
                    (r = expect_field(osd, "ceph_fsid", &has, &e.ceph_fsid, what, err)) < 0)
                        return r;
                r = json_get_int(osd, "whoami", false, &e.whoami, what, err);
                if (r < 0 && r != -ENOENT)
                        return r;
                if (r < 0)
                        e.whoami = -1;
        }
        *ret = e;
        return 0;
}

static bool expect_set(const char *s) {
        return s && s[0];
}

/* Identity: whose device is this (its disk, for a partition)? Compared only when both
 * sides have one: a device without WWN, serial or backing file is known by its path only,
 * as in the plan (docs/plan.md, "Identity"). */
static int expect_identity(const BlockDev *d, const DevExpect *e, Error *err) {
        if (!expect_set(e->identity))
                return 0;
        _cleanup_(freep) char *now = NULL;
        int r = agent_device_identity(d->disk_name, &now);
        if (r < 0)
                return error_set(err, r, "cannot read the identity of '%s': %s", d->path, strerror(-r));
        if (!expect_set(now) || streq(now, e->identity))
                return 0;
        if (d->is_partition)
                return error_set(err, ESTALE, "'%s' is not on the device the plan saw: its disk '/dev/%s' is %s, the "
                                              "plan saw %s; re-run plan", d->path, d->disk_name, now, e->identity);
        return error_set(err, ESTALE, "'%s' is not the device the plan saw: it is %s, the plan saw %s; re-run plan",
                         d->path, now, e->identity);
}

static int expect_partition(const char *what, const char *partuuid, uint64_t start, const DevExpect *e, Error *err) {
        if (expect_set(e->partuuid) && (!partuuid || strcasecmp(partuuid, e->partuuid) != 0))
                return error_set(err, ESTALE, "%s is not the partition the plan saw: its PARTUUID is %s, the plan saw "
                                              "%s; re-run plan", what, partuuid ?: "none", e->partuuid);
        if (e->has_start && start != e->start)
                return error_set(err, ESTALE, "%s is not the partition the plan saw: it starts at byte %" PRIu64 ", the "
                                              "plan saw %" PRIu64 "; re-run plan", what, start, e->start);
        return 0;
}

/* The BlueStore label at `off` of fd, against the one the plan saw there. */
static int expect_osd(int fd, uint64_t off, const char *what, const DevExpect *e, Error *err) {
        if (!expect_set(e->osd_uuid))
                return 0;
        uint8_t buf[4096];
        InvOsd l = { .id = -1 };
        /* read from the disk, not from its page cache: a disk's cache and a partition's are
         * the kernel's two caches, so what BlueStore wrote through the partition (its DB
         * label) was not in the disk's, where pages read or written before (the partition's
         * creation zeroes its start) still said "no label" on the uml guest */
        (void) posix_fadvise(fd, (off_t) off, sizeof(buf), POSIX_FADV_DONTNEED);
        int r = read_exact_at(fd, buf, sizeof(buf), off);
        if (r < 0)
                return error_set(err, r, "cannot read the OSD label of %s: %s", what, strerror(-r));
        bool found = bluestore_label_parse(buf, sizeof(buf), &l) > 0;
        bool same = found && l.osd_fsid && strcasecmp(l.osd_fsid, e->osd_uuid) == 0 &&
                    (e->whoami < 0 || l.id == e->whoami) &&
                    (!expect_set(e->ceph_fsid) || (l.cluster_fsid && strcasecmp(l.cluster_fsid, e->ceph_fsid) == 0));
        char now[160] = "no OSD label";
        if (found)
                snprintf(now, sizeof(now), "the label of osd.%d (osd uuid %s, cluster %s)", l.id,
                         l.osd_fsid ?: "none", l.cluster_fsid ?: "none");
        inv_osd_done(&l);
        if (same)
                return 0;
        char was[160];
        snprintf(was, sizeof(was), "osd.%" PRId64 "'s (osd uuid %s, cluster %s)", e->whoami, e->osd_uuid,
                 expect_set(e->ceph_fsid) ? e->ceph_fsid : "?");
        return error_set(err, ESTALE, "%s is not the device the plan saw: it carries %s, the plan saw %s; re-run plan",
                         what, now, was);
}

/* libblkid's PARTUUID of the partition open at fd (it reads its disk's table, as the
 * inventory's probe of the disk does); NULL when there is none. */
static int probe_partuuid(int fd, char **ret) {
        *ret = NULL;
        blkid_probe pr;
        int r = agent_blkid_probe(fd, 0, 0, AGENT_BLKID_OFF, BLKID_PARTS_ENTRY_DETAILS, &pr);
        if (r < 0)
                return r;
        const char *v = NULL;
        if (blkid_do_safeprobe(pr) == 0 && blkid_probe_lookup_value(pr, "PART_ENTRY_UUID", &v, NULL) == 0 && v)
                *ret = strdup(v);
        blkid_free_probe(pr);
        return v && !*ret ? -ENOMEM : 0;
}

int dev_expect_check_entry(int fd, const BlockDev *disk, unsigned partno, const GptEntry *ge, const DevExpect *e,
                           Error *err) {
        if (!e || !e->present)
                return 0;
        int r = expect_identity(disk, e, err);
        if (r < 0)
                return r;
        unsigned lss = disk->logical_sector_size ?: 512;
        uint64_t start = ge->first_lba * lss, size = (ge->last_lba - ge->first_lba + 1) * lss;
        char guid[37], what[PATH_MAX + 32];
        guid_to_string(ge->uuid, guid);
        snprintf(what, sizeof(what), "partition %u of '%s'", partno, disk->path);
        if ((r = expect_partition(what, guid, start, e, err)) < 0)
                return r;
        if (e->has_size && size != e->size)
                return error_set(err, ESTALE, "%s is not the partition the plan saw: it has %" PRIu64 " bytes, the plan "
                                              "saw %" PRIu64 "; re-run plan", what, size, e->size);
        return expect_osd(fd, start, what, e, err);
}

static void lookup_dup(blkid_probe pr, const char *name, char **ret) {
        const char *v = NULL;
        if (blkid_probe_lookup_value(pr, name, &v, NULL) == 0 && v)
                *ret = strdup(v);
}

/* The same probe as the inventory's (agent-probe.c), so that what the plan saw and what is
 * seen here compare equal for an unchanged device. */
static int probe_identity(int fd, bool whole, char **type, char **uuid, char **pttype, char **ptuuid) {
        blkid_probe pr;
        int r = agent_blkid_probe(fd, 0, 0, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL,
                                  whole ? BLKID_PARTS_ENTRY_DETAILS : AGENT_BLKID_OFF, &pr);
        if (r < 0)
                return r;
        r = blkid_do_safeprobe(pr);
        if (r == 0) {
                lookup_dup(pr, "TYPE", type);
                lookup_dup(pr, "UUID", uuid);
                if (whole) {
                        lookup_dup(pr, "PTTYPE", pttype);
                        lookup_dup(pr, "PTUUID", ptuuid);
                }
        } else if (r == -2)
                *type = strdup("ambivalent");
        blkid_free_probe(pr);
        return 0;
}

static void diff_add(char *buf, size_t len, const char *field, const char *now, const char *was, const char *none) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "%s%s %s, was %s", n ? ", " : "", field, now ? now : none, was ? was : none);
}

int dev_expect_check(int fd, const BlockDev *d, const DevExpect *e, Error *err) {
        if (!e || !e->present)
                return 0;
        /* who it is, then what is on it: a swapped disk is named as such */
        int r = expect_identity(d, e, err);
        if (r < 0)
                return r;
        char what[PATH_MAX + 2];
        snprintf(what, sizeof(what), "'%s'", d->path);
        if (d->is_partition && (expect_set(e->partuuid) || e->has_start)) {
                _cleanup_(freep) char *partuuid = NULL;
                if ((r = probe_partuuid(fd, &partuuid)) < 0)
                        return error_set(err, r, "cannot probe '%s': %s", d->path, strerror(-r));
                if ((r = expect_partition(what, partuuid, d->start, e, err)) < 0)
                        return r;
        }
        if ((r = expect_osd(fd, 0, what, e, err)) < 0)
                return r;
        _cleanup_(freep) char *type = NULL, *uuid = NULL, *pttype = NULL, *ptuuid = NULL;
        (void) posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); /* what is on the disk (see expect_osd()) */
        r = probe_identity(fd, !d->is_partition, &type, &uuid, &pttype, &ptuuid);
        if (r < 0)
                return error_set(err, r, "cannot probe '%s': %s", d->path, strerror(-r));
        uint64_t size = 0;
        if (ioctl(fd, BLKGETSIZE64, &size) < 0)
                return error_set(err, errno, "cannot read the size of '%s': %m", d->path);

        char diff[768] = "";
        if (e->has_type && !streq_ptr(type, e->type))
                diff_add(diff, sizeof(diff), "type", type, e->type, "empty");
        if (e->has_uuid && !streq_ptr(uuid, e->uuid))
                diff_add(diff, sizeof(diff), "uuid", uuid, e->uuid, "none");
        if (e->has_pttype && !streq_ptr(pttype, e->pttype))
                diff_add(diff, sizeof(diff), "partition table", pttype, e->pttype, "none");
        if (e->has_ptuuid && !streq_ptr(ptuuid, e->ptuuid))
                diff_add(diff, sizeof(diff), "partition table uuid", ptuuid, e->ptuuid, "none");
        if (e->has_size && size != e->size) {
                char now[32], was[32];
                snprintf(now, sizeof(now), "%" PRIu64, size);
                snprintf(was, sizeof(was), "%" PRIu64, e->size);
                diff_add(diff, sizeof(diff), "size", now, was, "?");
        }
        if (diff[0])
                return error_set(err, ESTALE, "'%s' changed since the plan: %s; re-run plan", d->path, diff);
        return 0;
}

/* ---- the devices one claim covers ---- */

typedef struct Member {
        dev_t devnum;
        char *name;              /* kernel name */
        const char *relation;    /* NULL: the device itself; "its partition", "its disk" */
} Member;

typedef struct Members {
        Member *m;
        size_t n;
} Members;

static void members_done(Members *ms) {
        for (size_t i = 0; i < ms->n; i++)
                free(ms->m[i].name);
        free(ms->m);
        *ms = (Members) {};
}

static int members_add(Members *ms, const char *name, const char *relation) {
        _cleanup_(freep) char *s = NULL;
        unsigned maj, min;
        if (sysfs_read_string(name, "dev", &s) < 0 || sscanf(s, "%u:%u", &maj, &min) != 2)
                return 0; /* vanished meanwhile: nobody can hold it */
        Member *n = realloc(ms->m, (ms->n + 1) * sizeof(Member));
        if (!n)
                return -ENOMEM;
        ms->m = n;
        char *nm = strdup(name);
        if (!nm)
                return -ENOMEM;
        ms->m[ms->n++] = (Member) { .devnum = makedev(maj, min), .name = nm, .relation = relation };
        return 0;
}

static const Member *members_find(const Members *ms, dev_t d) {
        for (size_t i = 0; i < ms->n; i++)
                if (ms->m[i].devnum == d)
                        return &ms->m[i];
        return NULL;
}

/* "'/dev/sdb' is in use: its partition '/dev/sdb2' is locked by pid 12 (ceph-osd)" */
static int busy(const BlockDev *d, const Member *m, const char *what, Error *err, const char *fmt, ...)
        _printf_(5, 6);
static int busy(const BlockDev *d, const Member *m, const char *what, Error *err, const char *fmt, ...) {
        char reason[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(reason, sizeof(reason), fmt, ap);
        va_end(ap);
        if (m && m->relation)
                return error_set(err, EBUSY, "'%s' is in use: %s '/dev/%s' is %s; refusing to %s it", d->path,
                                 m->relation, m->name, reason, what);
        return error_set(err, EBUSY, "'%s' is in use: %s; refusing to %s it", d->path, reason, what);
}

/* ---- kernel users: mounts, swap, holders, bcache, loop devices ---- */

/* A member of a mounted btrfs: /sys/fs/btrfs/<fsid>/devices/<name> exists only while it
 * is mounted, for every member device (mountinfo names just one, with a 0:N number). */
static bool btrfs_member(const char *name, char *ret_fsid, size_t len) {
        DIR *dir = opendir("/sys/fs/btrfs");
        if (!dir)
                return false;
        bool found = false;
        struct dirent *de;
        while (!found && (de = readdir(dir))) {
                if (de->d_name[0] == '.' || strlen(de->d_name) != 36)
                        continue;
                char p[PATH_MAX];
                snprintf(p, sizeof(p), "/sys/fs/btrfs/%s/devices/%s", de->d_name, name);
                if (access(p, F_OK) == 0) {
                        snprintf(ret_fsid, len, "%s", de->d_name);
                        found = true;
                }
        }
        closedir(dir);
        return found;
}

/* The loop device backed by block device `d`, if any (the kernel holds its file, no
 * process does). */
static bool loop_backed_by(dev_t d, char *ret_loop, size_t len) {
        DIR *dir = opendir("/sys/block");
        if (!dir)
                return false;
        bool found = false;
        struct dirent *de;
        while (!found && (de = readdir(dir))) {
                if (!startswith(de->d_name, "loop"))
                        continue;
                _cleanup_(freep) char *file = NULL;
                char p[PATH_MAX];
                snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", de->d_name);
                if (file_read_string(p, &file) < 0)
                        continue;
                struct stat st;
                if (stat(file, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == d) {
                        snprintf(ret_loop, len, "%s", de->d_name);
                        found = true;
                }
        }
        closedir(dir);
        return found;
}

static int check_kernel_users(const BlockDev *d, const Members *ms, const ClaimOptions *o, Error *err) {
        _cleanup_(usage_table_done) UsageTable t = {};
        int r = usage_table_load(&t);
        if (r < 0)
                return error_set(err, r, "cannot read mounts and swaps: %s", strerror(-r));
        for (size_t i = 0; i < ms->n; i++) {
                const Member *m = &ms->m[i];
                const char *mp = usage_table_mountpoint(&t, m->devnum);
                if (mp)
                        return busy(d, m, o->what, err, "mounted on '%s'", mp);
                char buf[NAME_MAX + 1];
                if (btrfs_member(m->name, buf, sizeof(buf)))
                        return busy(d, m, o->what, err, "a member of the mounted btrfs %s", buf);
                if (usage_table_swap(&t, m->devnum))
                        return busy(d, m, o->what, err, m->relation ? "an active swap" : "active swap");
                _cleanup_strv_free_ char **h = block_holders(m->name);
                STRV_FOREACH(x, h)
                        if (!o->own_holder || !streq(*x, o->own_holder))
                                return busy(d, m, o->what, err, "held by %s", *x);
                /* a registered backing or cache device has its own bcache/ directory (a cache
                 * device no holder); /dev/bcacheN has a link there, to its backing device's */
                char p[PATH_MAX];
                struct stat st;
                snprintf(p, sizeof(p), "/sys/class/block/%s/bcache", m->name);
                if (!o->own_holder && lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
                        return busy(d, m, o->what, err, "registered with bcache");
                if (loop_backed_by(m->devnum, buf, sizeof(buf)))
                        return busy(d, m, o->what, err, "the backing device of /dev/%s", buf);
        }
        return 0;
}

/* ---- processes: locks, writers, ceph-osd ---- */

static void proc_comm(pid_t pid, char *buf, size_t len) {
        char p[64];
        _cleanup_(freep) char *s = NULL;
        snprintf(p, sizeof(p), "/proc/%d/comm", (int) pid);
        snprintf(buf, len, "%s", file_read_string(p, &s) >= 0 ? s : "?");
}

/* fdinfo of one descriptor: open for writing, and does it carry a lock. */
static void fd_info(int pid_dir, const char *fd, bool *ret_write, bool *ret_lock) {
        char p[NAME_MAX + 16];
        snprintf(p, sizeof(p), "fdinfo/%s", fd);
        int f = openat(pid_dir, p, O_RDONLY | O_CLOEXEC);
        *ret_write = *ret_lock = false;
        if (f < 0)
                return;
        char buf[4096];
        ssize_t n = read(f, buf, sizeof(buf) - 1);
        close(f);
        if (n <= 0)
                return;
        buf[n] = 0;
        const char *fl = strstr(buf, "flags:");
        if (fl) {
                unsigned long v = strtoul(fl + 6, NULL, 8);
                *ret_write = (v & O_ACCMODE) == O_WRONLY || (v & O_ACCMODE) == O_RDWR;
        }
        /* "lock:\t1: FLOCK  ADVISORY  WRITE 1234 00:05:567 0 EOF": an exclusive lock. A shared
         * (READ) one is a reader's: udev's workers take one while they probe a device */
        for (const char *l = strstr(buf, "\nlock:"); l; l = strstr(l + 1, "\nlock:")) {
                const char *e = strchr(l + 1, '\n');
                const char *w = strstr(l, " WRITE ");
                if (w && (!e || w < e))
                        *ret_lock = true;
        }
}

/* Command line of a process as an argv (NUL-separated in /proc). */
static char **proc_cmdline(int pid_dir) {
        int f = openat(pid_dir, "cmdline", O_RDONLY | O_CLOEXEC);
        if (f < 0)
                return NULL;
        char buf[8192];
        ssize_t n = read(f, buf, sizeof(buf) - 1);
        close(f);
        if (n <= 0)
                return NULL;
        buf[n] = 0;
        char **l = calloc(1, sizeof(char *));
        for (ssize_t i = 0; l && i < n; i += (ssize_t) strlen(buf + i) + 1)
                if (strv_extend(&l, buf + i) < 0)
                        l = strv_free(l);
        return l;
}

/* systemd-udevd and its workers ("(udev-worker)" since systemd 251, "systemd-udevd" before)
 * flock() the whole disk while they process an event on it: after every partition change,
 * for as long as probing takes (seconds on a slow or emulated disk). */
static bool comm_is_udev(const char *comm) {
        return streq(comm, "(udev-worker)") || streq(comm, "systemd-udevd");
}

static bool pid_is_udev(pid_t pid) {
        char comm[64];
        if (pid <= 0)
                return false;
        proc_comm(pid, comm, sizeof(comm));
        return comm_is_udev(comm);
}

static const Member *path_member(const Members *ms, const char *path) {
        struct stat st;
        if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode))
                return NULL;
        return members_find(ms, st.st_rdev);
}

/* path_member() of a path as process `pid` sees it: through /proc/PID/root, its own mount
 * namespace. A ceph-osd in a container or another mount namespace names paths of its own:
 * its /var/lib/ceph/osd/ceph-7/block is not ours (seen on the lab: two fake hosts' osd.7,
 * each data directory private to its host, and the agent took the other host's OSD for
 * the user of its own device). */
static const Member *proc_path_member(const Members *ms, pid_t pid, const char *path) {
        char p[PATH_MAX + 32];
        if (path[0] != '/' || snprintf(p, sizeof(p), "/proc/%d/root%s", (int) pid, path) >= (int) sizeof(p))
                return NULL;
        return path_member(ms, p);
}

/* A ceph-osd naming a member: on its command line, or as block, block.db, block.wal of its
 * data directory (an OSD that is starting has not opened its devices yet). Not the data
 * directory of a one-shot run (ceph-volume's `ceph-osd --mkfs`, `--check-*`, `--get-*`):
 * while ceph-volume prepares, that directory is being made and its links can still be
 * those of a run that failed there before (seen: a prepare of osd.0 on one device refused
 * another device that a failed earlier osd.0 had named); a one-shot run that writes has
 * the device open for writing, which the descriptor scan sees. */
static const Member *ceph_osd_member(const Members *ms, pid_t pid, char **argv, int *ret_id, char *ret_via,
                                     size_t len) {
        const char *cluster = "ceph", *data = NULL;
        int id = -1;
        bool one_shot = false;
        for (char **a = argv; a && *a; a++)
                if (streq(*a, "--mkfs") || startswith(*a, "--check-") || startswith(*a, "--get-") ||
                    startswith(*a, "--dump-") || streq(*a, "--mkkey") || streq(*a, "--mkjournal"))
                        one_shot = true;
        for (char **a = argv; a && *a; a++) {
                const char *v = NULL;
                if ((streq(*a, "--id") || streq(*a, "-i")) && a[1])
                        v = a[1];
                else if (startswith(*a, "--id="))
                        v = *a + 5;
                if (v && isdigit((unsigned char) v[0]))
                        id = atoi(v);
                if (streq(*a, "--cluster") && a[1])
                        cluster = a[1];
                if ((streq(*a, "--osd-data") || streq(*a, "--osd_data")) && a[1])
                        data = a[1];
                const Member *m = **a == '/' ? proc_path_member(ms, pid, *a) : NULL;
                if (m) {
                        snprintf(ret_via, len, "its command line");
                        *ret_id = id;
                        return m;
                }
        }
        *ret_id = id;
        if (one_shot)
                return NULL;
        char dir[PATH_MAX];
        if (data)
                snprintf(dir, sizeof(dir), "%s", data);
        else if (id >= 0)
                snprintf(dir, sizeof(dir), "/var/lib/ceph/osd/%s-%d", cluster, id);
        else
                return NULL;
        static const char *const links[] = { "block", "block.db", "block.wal" };
        for (size_t i = 0; i < ELEMENTSOF(links); i++) {
                char p[PATH_MAX + 16];
                snprintf(p, sizeof(p), "%s/%s", dir, links[i]);
                const Member *m = proc_path_member(ms, pid, p);
                if (m) {
                        snprintf(ret_via, len, "'%s'", p);
                        return m;
                }
        }
        return NULL;
}

static bool osd_allowed(const ClaimOptions *o, int id) {
        return id >= 0 && (id == o->allow_osd_id[0] || id == o->allow_osd_id[1]);
}

/* Locks on the node inode (dev, ino) in /proc/locks by another process: the view of locks
 * that a read-only (dry-run) claim, which takes none itself, has. */
static pid_t proc_locks_holder(dev_t dev, ino_t ino, bool shared_too) {
        _cleanup_(fclosep) FILE *f = fopen("/proc/locks", "re");
        if (!f)
                return 0;
        char line[512];
        while (fgets(line, sizeof(line), f)) {
                /* "1: FLOCK  ADVISORY  WRITE 1234 00:05:567 0 EOF" ("->" marks waiters) */
                if (strstr(line, "->"))
                        continue;
                char kind[16], mode[16], rw[16];
                int pid;
                unsigned maj, min;
                unsigned long long i;
                if (sscanf(line, "%*d: %15s %15s %15s %d %x:%x:%llu", kind, mode, rw, &pid, &maj, &min, &i) != 7)
                        continue;
                if (!shared_too && !streq(rw, "WRITE"))
                        continue;
                if (makedev(maj, min) == dev && (ino_t) i == ino && pid != getpid())
                        return pid; /* -1 for OFD locks: the owner is a file, not a process */
        }
        return 0;
}

/* -EAGAIN (err set as -EBUSY would be) when the only user found is another cephprov agent
 * holding the lock of the device's disk or of another partition of it: a partition change
 * of the same host's plan (create-partition beside an OSD creation), over in a moment;
 * -EINPROGRESS (err set the same way) when it is a udev worker with the device open for
 * writing: an event being handled, over in a moment too */
static int check_processes(const BlockDev *d, const Members *ms, const ClaimOptions *o, const int *own_fds,
                           bool *ret_found_allowed, Error *err) {
        DIR *proc = opendir("/proc");
        if (!proc)
                return error_set(err, errno, "cannot list processes: %m");
        pid_t self = getpid();
        int r = 0;
        bool agent_lock = false, agent_self = false;
        char agent_why[2 * PATH_MAX] = "", udev_why[2 * PATH_MAX] = "";
        const Member *agent_hit = NULL, *udev_hit = NULL;
        struct dirent *de;
        while (r == 0 && (de = readdir(proc))) {
                if (!isdigit((unsigned char) de->d_name[0]))
                        continue;
                pid_t pid = (pid_t) atoi(de->d_name);
                int pd = openat(dirfd(proc), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (pd < 0)
                        continue; /* gone */
                char comm[64];
                proc_comm(pid, comm, sizeof(comm));
                bool is_osd = streq(comm, "ceph-osd");
                int osd_id = -1;
                const Member *hit = NULL;
                char why[2 * PATH_MAX] = "";

                if (is_osd) {
                        _cleanup_strv_free_ char **argv = proc_cmdline(pd);
                        char via[PATH_MAX + 32];
                        hit = ceph_osd_member(ms, pid, argv, &osd_id, via, sizeof(via));
                        if (hit)
                                snprintf(why, sizeof(why), "used by ceph-osd pid %d (osd.%d, through %s)", (int) pid,
                                         osd_id, via);
                }
                int fdd = hit ? -1 : openat(pd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                DIR *fds = fdd >= 0 ? fdopendir(fdd) : NULL;
                if (!fds && fdd >= 0)
                        close(fdd);
                /* an agent's claim is its lock plus the descriptors it writes through
                 * (libparted opens the disk once more, without the lock): whichever of them
                 * the listing shows first, they are one claim */
                bool is_agent = streq(comm, "cephprov");
                const Member *agent_lock_m = NULL, *agent_write_m = NULL;
                struct dirent *fe;
                while (fds && !hit && (fe = readdir(fds))) {
                        if (!isdigit((unsigned char) fe->d_name[0]))
                                continue;
                        int n = atoi(fe->d_name);
                        if (pid == self && (n == own_fds[0] || n == own_fds[1]))
                                continue;
                        struct stat st;
                        if (fstatat(dirfd(fds), fe->d_name, &st, 0) < 0 || !S_ISBLK(st.st_mode))
                                continue;
                        const Member *m = members_find(ms, st.st_rdev);
                        if (!m)
                                continue;
                        bool w, lock;
                        fd_info(pd, fe->d_name, &w, &lock);
                        if (lock && !w && comm_is_udev(comm))
                                continue; /* udev's probe lock: waited for in block_claim() */
                        if (w && comm_is_udev(comm)) {
                                /* a udev worker handling an event of the device (the watch after
                                 * a write was closed, bcache's rules): over in a moment, waited
                                 * for as udev's lock is (CI: destroy's wipe of a backing device
                                 * just torn down, refused for "(udev-worker)") */
                                udev_hit = m;
                                snprintf(udev_why, sizeof(udev_why), "open for writing by pid %d (%s)", (int) pid, comm);
                                continue;
                        }
                        if (is_agent && (lock || (w && m->relation))) {
                                /* another agent's claim of the disk (or a sibling partition):
                                 * exclusive, open for writing (create-partition's); or its
                                 * lock on the device itself (the agent of a killed run, on
                                 * its way out: BLOCK_AGENT_LOCK_WAIT_MS) */
                                if (lock) {
                                        agent_lock_m = m;
                                        agent_self |= !m->relation;
                                } else if (!agent_write_m)
                                        agent_write_m = m;
                                continue;
                        }
                        if (lock)
                                snprintf(why, sizeof(why), "locked by pid %d (%s)", (int) pid, comm);
                        else if (w)
                                snprintf(why, sizeof(why), "open for writing by pid %d (%s)", (int) pid, comm);
                        else if (proc_locks_holder(st.st_dev, st.st_ino, false) == pid)
                                snprintf(why, sizeof(why), "locked by pid %d (%s)", (int) pid, comm); /* POSIX lock via another fd */
                        else
                                continue; /* readers (blkid, udev) do not change it */
                        hit = m;
                }
                if (fds)
                        closedir(fds);
                close(pd);
                if (!hit && agent_lock_m) {
                        agent_lock = true;
                        agent_hit = agent_lock_m;
                        snprintf(agent_why, sizeof(agent_why), "locked by pid %d (%s)", (int) pid, comm);
                        continue;
                }
                if (!hit && agent_write_m) {
                        hit = agent_write_m; /* written without the agents' lock: not a claim */
                        snprintf(why, sizeof(why), "open for writing by pid %d (%s)", (int) pid, comm);
                }
                if (!hit)
                        continue;
                if (is_osd && osd_allowed(o, osd_id)) {
                        *ret_found_allowed = true; /* the very OSD the request is about */
                        continue;
                }
                r = busy(d, hit, o->what, err, "%s", why);
        }
        closedir(proc);
        if (r == 0 && agent_lock) {
                busy(d, agent_hit, o->what, err, "%s", agent_why);
                return agent_self ? -EALREADY : -EAGAIN;
        }
        if (r == 0 && udev_hit) {
                busy(d, udev_hit, o->what, err, "%s", udev_why);
                return -EINPROGRESS;
        }
        return r;
}

/* ---- the claim ---- */

static void sleep_ms(unsigned ms) {
        struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

void block_claim_done(BlockClaim *c) {
        if (!c)
                return;
        if (c->fd >= 0)
                close(c->fd);
        if (c->excl_fd >= 0)
                close(c->excl_fd);
        *c = (BlockClaim) { .fd = -1, .excl_fd = -1 };
}

void block_claim_drop_excl(BlockClaim *c) {
        if (c->excl_fd >= 0)
                close(c->excl_fd);
        c->excl_fd = -1;
}

static int fd_is(int fd, const BlockDev *d, Error *err) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return error_set(err, errno, "cannot stat '%s': %m", d->path);
        if (!S_ISBLK(st.st_mode) || st.st_rdev != d->devnum)
                return error_set(err, ESTALE, "'%s' changed while it was opened: it is %u:%u now, %u:%u was checked",
                                 d->path, major(st.st_rdev), minor(st.st_rdev), major(d->devnum), minor(d->devnum));
        return 0;
}

/* Take flock(LOCK_EX) and an OFD write lock over the whole device; false when another
 * process holds either (its pid, if the kernel says, in *ret_pid). */
static bool lock_device(int fd, pid_t *ret_pid) {
        *ret_pid = 0;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0)
                return false;
        struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
        if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
                return true;
        fl = (struct flock) { .l_type = F_WRLCK, .l_whence = SEEK_SET };
        if (fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
                *ret_pid = fl.l_pid;
        return false;
}

/* A lock held by someone, seen without taking one (dry run): OFD/POSIX via F_OFD_GETLK,
 * flock via /proc/locks. */
static bool lock_test(int fd, pid_t *ret_pid) {
        struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
        *ret_pid = 0;
        if (fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK) {
                *ret_pid = fl.l_pid;
                return true;
        }
        struct stat st;
        if (fstat(fd, &st) == 0 && (*ret_pid = proc_locks_holder(st.st_dev, st.st_ino, false)) != 0)
                return true;
        return false;
}

/* A disk whose partitions are claimed (mounted, md, O_EXCL) cannot be claimed itself, and
 * then nobody else can claim it either (the kernel marks the disk as partition-claimed). */
static bool some_partition_claimed(const BlockDev *d) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_(freep) unsigned *nums = NULL;
        size_t n = 0;
        if (d->is_partition || block_list_partitions(d->name, &names, &nums, &n) < 0)
                return false;
        for (size_t i = 0; i < n; i++) {
                char node[PATH_MAX];
                snprintf(node, sizeof(node), "/dev/%s", names[i]);
                int fd = open(node, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);
                if (fd < 0 && errno == EBUSY)
                        return true;
                if (fd >= 0)
                        close(fd);
        }
        return false;
}

/* The claim's exclusive open of `d` into c->excl_fd: *ret_refused when the kernel refused it
 * (EBUSY: someone holds it exclusively); other failures are errors. */
static int open_excl(const BlockDev *d, const ClaimOptions *o, BlockClaim *c, bool *ret_refused, Error *err) {
        c->excl_fd = open(d->node, O_RDONLY | O_EXCL | O_CLOEXEC);
        if (c->excl_fd < 0 && errno != EBUSY)
                return error_set(err, errno, "cannot open '%s' to %s it: %m", d->path, o->what);
        *ret_refused = c->excl_fd < 0;
        return c->excl_fd >= 0 ? fd_is(c->excl_fd, d, err) : 0;
}

int block_claim(const BlockDev *d, const ClaimOptions *o, BlockClaim *ret, Error *err) {
        _cleanup_(block_claim_done) BlockClaim c = { .fd = -1, .excl_fd = -1 };
        _cleanup_(members_done) Members ms = {};
        bool excl_refused = false;
        int r;

        /* 1. the descriptor the op writes through; read-only when nothing is written through
         * it (a check only: closing a descriptor open for writing makes udev probe again) */
        int mode = o->read_only || o->check_only ? O_RDONLY : O_RDWR;
        if (o->read_only)
                c.fd = open(d->node, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        else if (o->handoff || o->no_excl)
                c.fd = open(d->node, mode | O_CLOEXEC);
        else {
                c.fd = open(d->node, mode | O_EXCL | O_CLOEXEC);
                if (c.fd < 0 && errno == EBUSY) {
                        excl_refused = true;
                        c.fd = open(d->node, mode | O_CLOEXEC); /* to find out who, below */
                }
        }
        if (c.fd < 0)
                return error_set(err, errno, "cannot open '%s' to %s it: %m", d->path, o->what);
        r = fd_is(c.fd, d, err);
        if (r < 0)
                return r;
        if (o->handoff && !o->no_excl && !o->read_only) {
                if ((r = open_excl(d, o, &c, &excl_refused, err)) < 0)
                        return r;
        }

        /* 2. its locks */
        pid_t lock_pid = 0;
        bool locked_by_other;
        if (o->read_only)
                locked_by_other = lock_test(c.fd, &lock_pid);
        else if (o->check_only) /* flock works read-only, an OFD write lock does not: tested */
                locked_by_other = flock(c.fd, LOCK_EX | LOCK_NB) < 0 || lock_test(c.fd, &lock_pid);
        else
                locked_by_other = !lock_device(c.fd, &lock_pid);

        /* 3. everybody else */
        r = members_add(&ms, d->name, NULL);
        if (r >= 0 && d->is_partition)
                r = members_add(&ms, d->disk_name, "its disk");
        if (r >= 0 && !d->is_partition && !o->partitions_in_use_ok) {
                _cleanup_strv_free_ char **names = NULL;
                _cleanup_(freep) unsigned *nums = NULL;
                size_t n = 0;
                if (block_list_partitions(d->name, &names, &nums, &n) >= 0)
                        for (size_t i = 0; r >= 0 && i < n; i++)
                                r = members_add(&ms, names[i], "its partition");
        }
        if (r < 0)
                return error_set(err, ENOMEM, "out of memory");
        r = check_kernel_users(d, &ms, o, err);
        if (r < 0)
                return r;
        bool allowed_osd = false;
        int own[2] = { c.fd, c.excl_fd };
        /* another agent changing the partitions of this device's disk (the same host's plan
         * runs an OSD creation beside a partition creation on one SSD) holds the disk's lock
         * for a moment: waited for as a reader's lock is, then refused naming it */
        /* the bounds are wall time (a scan of /proc under load or the sanitizers can take
         * far longer than the 50 ms between them: counted in sleeps, an asan run in CI waited
         * past its test's bound) */
        uint64_t t_wait = clock_mono_ms();
        for (uint64_t waited = 0;; waited = clock_mono_ms() - t_wait) {
                r = check_processes(d, &ms, o, own, &allowed_osd, err);
                if (r != -EAGAIN && r != -EINPROGRESS && r != -EALREADY)
                        break;
                /* -EINPROGRESS: a udev worker, given udev's longer bound; -EALREADY: another
                 * agent's lock on the device itself, the bound of an agent on its way out */
                unsigned bound = r == -EINPROGRESS ? BLOCK_UDEV_LOCK_WAIT_MS
                                 : r == -EALREADY  ? BLOCK_AGENT_LOCK_WAIT_MS
                                                   : BLOCK_LOCK_WAIT_MS;
                if (waited >= bound || o->read_only || agent_lease_over()) {
                        r = -EBUSY;
                        break;
                }
                error_reset(err);
                sleep_ms(50);
        }
        if (r < 0)
                return r;
        /* Nobody above holds an exclusive lock or writes, yet a lock is held: a reader's
         * shared lock, gone in a moment (3 s at most), or udev's lock while it processes an
         * event on the disk, waited for longer (bounded: a stuck worker is still refused). */
        unsigned bound = BLOCK_LOCK_WAIT_MS;
        t_wait = clock_mono_ms();
        for (uint64_t waited = 0; locked_by_other && !o->read_only && !allowed_osd; waited = clock_mono_ms() - t_wait) {
                struct stat st;
                pid_t holder = lock_pid > 0 ? lock_pid
                               : fstat(c.fd, &st) == 0 ? proc_locks_holder(st.st_dev, st.st_ino, true) : 0;
                /* none found: the holder let go between our try and this look (seen under
                 * the sanitizers: a udev worker's lock, then the reader's 3 s bound applied
                 * to it once it was gone), so its bound is the one it had */
                if (holder != 0)
                        bound = pid_is_udev(holder) ? BLOCK_UDEV_LOCK_WAIT_MS : BLOCK_LOCK_WAIT_MS;
                if (waited >= bound)
                        break;
                /* never past the request's lease: refused below, for the lease */
                if (agent_lease_over())
                        break;
                sleep_ms(50);
                if (o->check_only)
                        locked_by_other = flock(c.fd, LOCK_EX | LOCK_NB) < 0 || lock_test(c.fd, &lock_pid);
                else
                        locked_by_other = !lock_device(c.fd, &lock_pid);
        }
        /* The kernel refused the exclusive open, and nobody above was named: an exclusive
         * reader of a moment (seen in CI under the sanitizers: a whole-disk wipe right after
         * its partitions' wipes, while udev handled their events). Retried as a reader's lock
         * is waited for; a holder that stays is refused below. */
        bool excl_ignored = excl_refused && ((allowed_osd && o->check_only) ||
                                             (o->partitions_in_use_ok && some_partition_claimed(d)));
        t_wait = clock_mono_ms();
        for (uint64_t waited = 0; excl_refused && !excl_ignored && !locked_by_other && waited < BLOCK_LOCK_WAIT_MS &&
                                  !agent_lease_over();
             waited = clock_mono_ms() - t_wait) {
                sleep_ms(50);
                if ((r = open_excl(d, o, &c, &excl_refused, err)) < 0)
                        return r;
        }
        /* the request's lease (docs/agent.md "The lease"): checked once the locks are ours (or
         * waited for in vain), right before the descriptor is handed out to write through */
        if (!o->read_only && (r = agent_lease_start(o->what, d->path, err)) < 0) {
                if (locked_by_other) {
                        char comm[64] = "?";
                        struct stat st;
                        if (lock_pid <= 0 && fstat(c.fd, &st) == 0)
                                lock_pid = proc_locks_holder(st.st_dev, st.st_ino, true);
                        if (lock_pid > 0)
                                proc_comm(lock_pid, comm, sizeof(comm));
                        error_prefix(err, r, "while waiting for the lock on '%s' (held by pid %d (%s))", d->path,
                                     (int) lock_pid, comm);
                }
                return r;
        }
        if (locked_by_other && !(allowed_osd && o->check_only)) {
                struct stat st;
                if (lock_pid <= 0 && fstat(c.fd, &st) == 0)
                        lock_pid = proc_locks_holder(st.st_dev, st.st_ino, true);
                if (lock_pid > 0) {
                        char comm[64];
                        proc_comm(lock_pid, comm, sizeof(comm));
                        return busy(d, NULL, o->what, err, "locked by pid %d (%s)", (int) lock_pid, comm);
                }
                return busy(d, NULL, o->what, err, "locked by another process");
        }
        /* the running OSD allowed above holds its device exclusively (BlueStore opens it
         * O_EXCL): for a check on its behalf, that is its own claim, not someone else's */
        if (excl_refused && !excl_ignored)
                return busy(d, NULL, o->what, err, "claimed exclusively by another user (the kernel refused an exclusive open)");
        c.exclusive = !excl_refused && !o->read_only && !o->no_excl;

        /* 4. what the plan saw */
        r = dev_expect_check(c.fd, d, o->expect, err);
        if (r < 0)
                return r;

        *ret = c;
        c = (BlockClaim) { .fd = -1, .excl_fd = -1 };
        return 0;
}

int block_check_node(const char *path, const ClaimOptions *o, Error *err) {
        _cleanup_(block_dev_done) BlockDev d = {};
        _cleanup_(block_claim_done) BlockClaim c = { .fd = -1, .excl_fd = -1 };
        int r = block_dev_resolve(path, &d, err);
        if (r < 0)
                return r;
        return block_claim(&d, o, &c, err);
}

/* ---- osd-create: its data and DB/WAL devices, before ceph-volume runs ---- */

static int bcache_of(const BlockDev *backing, char **ret_name) {
        char link[PATH_MAX], target[PATH_MAX];
        snprintf(link, sizeof(link), "/sys/class/block/%s/bcache/dev", backing->name);
        ssize_t n = readlink(link, target, sizeof(target) - 1);
        if (n < 0)
                return -errno;
        target[n] = 0;
        const char *b = strrchr(target, '/');
        *ret_name = strdup(b ? b + 1 : target);
        return *ret_name ? 0 : -ENOMEM;
}

int agent_osd_check_devices(AgentState *s, json_object *args, Error *err) {
        const char *data = NULL;
        bool is_bcache = false;
        int64_t id = -1;
        int r = json_get_string(args, "device", false, &data, "osd-create", err);
        if (r == -ENOENT)
                r = json_get_string(args, "data", true, &data, "osd-create", err);
        if (r < 0)
                return r;
        if ((r = json_get_bool(args, "data_is_bcache", false, &is_bcache, "osd-create", err)) < 0 && r != -ENOENT)
                return r;
        if ((r = json_get_int(args, "osd_id", false, &id, "osd-create", err)) < 0 && r != -ENOENT)
                return r;

        ClaimOptions o = {
                .what = "create an OSD on",
                .read_only = s->dry_run,
                .check_only = true,
                .allow_osd_id = { id >= 0 && id <= INT_MAX ? (int) id : -1, -1 },
        };
        DevExpect e;
        r = dev_expect_parse(args, "expect", "osd-create", &e, err);
        if (r < 0)
                return r;

        /* the data device: a running OSD of this id (or of the id in its label: an adopted
         * OSD) is this request's own, re-sent after a lost answer */
        _cleanup_(block_dev_done) BlockDev d = {};
        r = block_dev_resolve(data, &d, err);
        if (r < 0)
                return r;
        {
                _cleanup_(closep) int fd = open(d.node, O_RDONLY | O_CLOEXEC);
                uint8_t buf[4096];
                InvOsd label = { .id = -1 };
                if (fd >= 0 && read_exact_at(fd, buf, sizeof(buf), 0) >= 0 &&
                    bluestore_label_parse(buf, sizeof(buf), &label) > 0)
                        o.allow_osd_id[1] = label.id;
                free(label.osd_fsid);
                free(label.cluster_fsid);
                free(label.role);
                free(label.objectstore);
        }
        _cleanup_(freep) char *bname = NULL;
        if (is_bcache && bcache_of(&d, &bname) >= 0) {
                /* the OSD goes on /dev/bcacheN, which holds the backing device by design */
                o.own_holder = bname;
                o.no_excl = true;
        }
        o.expect = &e;
        _cleanup_(block_claim_done) BlockClaim c = { .fd = -1, .excl_fd = -1 };
        r = block_claim(&d, &o, &c, err);
        if (r < 0)
                return r;
        block_claim_done(&c);
        if (bname) {
                _cleanup_(freep) char *node = strprintf("/dev/%s", bname);
                ClaimOptions ob = o;
                ob.own_holder = NULL;
                ob.no_excl = false;
                ob.expect = NULL;
                if (!node)
                        return error_set(err, ENOMEM, "out of memory");
                r = block_check_node(node, &ob, err);
                if (r < 0)
                        return r;
        }

        /* DB and WAL partitions, by GPT name on their fast device */
        static const char *const keys[][3] = {
                { "db_device", "db_partname", "db_expect" },
                { "wal_device", "wal_partname", "wal_expect" },
        };
        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                const char *dev = NULL, *part = NULL;
                if ((r = json_get_string(args, keys[i][0], false, &dev, "osd-create", err)) < 0 && r != -ENOENT)
                        return r;
                if ((r = json_get_string(args, keys[i][1], false, &part, "osd-create", err)) < 0 && r != -ENOENT)
                        return r;
                if (!dev || !part)
                        continue;
                _cleanup_(freep) char *node = NULL;
                r = agent_resolve_partname(s, dev, part, &node, err);
                if (r < 0)
                        return r;
                DevExpect pe;
                if ((r = dev_expect_parse(args, keys[i][2], "osd-create", &pe, err)) < 0)
                        return r;
                ClaimOptions op = o;
                op.own_holder = NULL;
                op.no_excl = false;
                op.expect = &pe;
                r = block_check_node(node, &op, err);
                if (r < 0)
                        return r;
        }
        return 0;
}
