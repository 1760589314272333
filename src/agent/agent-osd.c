/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The "osd-create" op: one BlueStore OSD with a given (pre-allocated) id, made with
 * ceph-volume and started the way the host starts OSDs (`systemctl start ceph-osd@N`).
 *
 * ceph-volume `lvm create` where LVM works (lvm binary and device-mapper present), else
 * `raw prepare` + `raw activate`. Idempotent: an OSD already on the data device (BlueStore
 * label) is not prepared again, only activated and started; a running OSD is left alone.
 * Two osd-create on one data device (two agents, e.g. a re-run while the ceph-volume of a
 * killed controller still runs) are serialised by a lock file per device. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent-internal.h"
#include "basic/clock-util.h"
#include "basic/lock-file.h"
#include "ceph/ceph-volume.h"
#include "ceph/ceph.h"

#define OSD_LOCK_DIR "/run/cephprov"
#define CEPH_VOLUME_TIMEOUT 1800 /* bitmap allocator mkfs on big HDDs takes minutes */
#define SYSTEMCTL_TIMEOUT 120
/* waiting for another osd-create on the device: well below the controller's 3600 s for
 * the whole call, which still has to prepare after the wait */
#define OSD_LOCK_TIMEOUT 1200

typedef struct OsdArgs {
        const char *data;          /* the data device as planned (backing device when bcache) */
        bool data_is_bcache;
        bool encrypted;            /* ceph-volume's --dmcrypt */
        const char *db_device, *db_partname;
        const char *wal_device, *wal_partname;
        const char *device_class;
        const char *objectstore;
        const char *redo_osd_fsid; /* the controller proved this half-made OSD is cephprov's */
        CephOsdDump *osd_map;      /* "osd_map": the cluster's OSDs by uuid (NULL: not sent) */
        int64_t osd_id;
} OsdArgs;

static void osd_args_done(OsdArgs *a) {
        a->osd_map = ceph_osd_dump_free(a->osd_map);
}

/* The last `max` bytes of a command's stderr (or stdout), for messages: ceph-volume puts
 * the reason at the end. */
static const char *tail(const char *s, size_t max) {
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
                n--;
        const char *p = n > max ? s + n - max : s;
        return p;
}

static int run_checked(AgentState *s, char **argv, char **env, unsigned timeout, RunResult *ret, Error *err);

/* A prepare (raw prepare, lvm create) on `data`, run again (twice, 1 s apart) when it failed
 * only because another block device vanished while ceph-volume listed them all
 * (ceph_volume_failed_on_vanished_device: before `osd new`, nothing touched). */
static int run_prepare(AgentState *s, char **argv, char **env, const char *data, RunResult *ret, Error *err) {
        for (unsigned attempt = 0;; attempt++) {
                int r = run_checked(s, argv, env, CEPH_VOLUME_TIMEOUT, ret, err);
                if (r >= 0 || attempt >= 2 || ret->timed_out ||
                    !ceph_volume_failed_on_vanished_device(ret->out, ret->err, data))
                        return r;
                log_notice("%s: ceph-volume failed because another block device vanished while it listed them "
                           "(%s); trying again", agent_host(s), err->message);
                run_result_done(ret);
                error_reset(err);
                sleep(1);
        }
}

static int run_checked(AgentState *s, char **argv, char **env, unsigned timeout, RunResult *ret, Error *err) {
        int r = agent_spawn(s, argv, NULL, env, timeout, ret, err);
        if (r < 0)
                return r;
        if (ret->timed_out)
                return error_set(err, ETIMEDOUT, "'%s %s' on '%s' timed out after %u s", argv[0], argv[1] ? argv[1] : "",
                                 agent_host(s), timeout);
        if (ret->exit_status != 0) {
                _cleanup_(freep) char *cmd = strv_join(argv, " ");
                const char *why = ret->err && ret->err[0] ? ret->err : ret->out;
                bool cv = streq(argv[0], "ceph-volume");
                _cleanup_(freep) char *t = NULL;
                if (cv) {
                        /* ceph-volume's own summary lines ("--> ..."); the cause is in its log */
                        _cleanup_strv_free_ char **lines = strv_split(why ? why : "", "\n");
                        _cleanup_strv_free_ char **keep = calloc(1, sizeof(char *));
                        STRV_FOREACH(l, lines)
                                /* "Executable selinuxenabled not in PATH" and the like are noise */
                                if (startswith(*l, "--> ") && !startswith(*l, "--> Executable ") && keep)
                                        (void) strv_extend(&keep, *l + 4);
                        t = keep && keep[0] ? strv_join(keep, "; ") : NULL;
                }
                if (!t)
                        t = strdup(tail(why ? why : "", 600));
                /* keep the message on one line */
                for (char *c = t; c && *c; c++)
                        if (*c == '\n')
                                *c = ' ';
                return error_set(err, EIO, "'%s' on '%s' failed (exit %d): %s%s", cmd ? cmd : argv[0], agent_host(s),
                                 ret->exit_status, t ? t : "", cv ? " (details in /var/log/ceph/ceph-volume.log)" : "");
        }
        return 0;
}

#define LABEL_BLOCK 4096

/* The BlueStore label at the start of `dev`: 1 found (ret filled), 0 none; the block read
 * in `buf`. */
static int read_label_block(const char *dev, uint8_t buf[static LABEL_BLOCK], InvOsd *ret, Error *err) {
        _cleanup_(closep) int fd = open(dev, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return error_set(err, errno, "cannot open '%s': %m", dev);
        int r = read_exact_at(fd, buf, LABEL_BLOCK, 0);
        if (r < 0)
                return error_set(err, -r, "cannot read '%s': %s", dev, strerror(-r));
        *ret = (InvOsd) { .id = -1 };
        return bluestore_label_parse(buf, LABEL_BLOCK, ret);
}

static int read_label(const char *dev, InvOsd *ret, Error *err) {
        uint8_t buf[LABEL_BLOCK];
        return read_label_block(dev, buf, ret, err);
}

/* The bcache device (/dev/bcacheN) registered for backing device `dev`. */
static int bcache_device_of(const char *dev, char **ret, Error *err) {
        _cleanup_(block_dev_done) BlockDev d = {};
        int r = block_dev_resolve(dev, &d, err);
        if (r < 0)
                return r;
        _cleanup_(freep) char *link = strprintf("/sys/class/block/%s/bcache/dev", d.name);
        char target[PATH_MAX];
        ssize_t n = link ? readlink(link, target, sizeof(target) - 1) : -1;
        if (n < 0)
                return error_set(err, ENODEV, "'%s' has no registered bcache device (%s missing)", dev,
                                 link ? link : "sysfs");
        target[n] = 0;
        const char *b = strrchr(target, '/');
        *ret = strprintf("/dev/%s", b ? b + 1 : target);
        return *ret ? 0 : error_set(err, ENOMEM, "out of memory");
}

/* A partition by GPT name on `device`, referred to by PARTUUID when udev made the link
 * (names like sdb3 move between boots; the OSD's block.db symlink keeps what we pass). */
static int resolve_part(AgentState *s, const char *device, const char *partname, char **ret, Error *err) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        int r = agent_inventory(s, false, &inv, err);
        if (r < 0)
                return r;
        const InvDevice *d = inventory_find_device(inv, device);
        if (!d)
                return error_set(err, ENOENT, "device '%s' is not among the allowed devices of '%s'", device, agent_host(s));
        for (size_t i = 0; i < d->n_partitions; i++) {
                const InvPartition *p = &d->partitions[i];
                if (!streq_ptr(p->name, partname))
                        continue;
                if (!p->node)
                        return error_set(err, ENODEV, "partition %u '%s' of '%s' has no kernel node", p->number, partname,
                                         device);
                if (p->partuuid) {
                        _cleanup_(freep) char *link = strprintf("/dev/disk/by-partuuid/%s", p->partuuid);
                        char a[PATH_MAX], b[PATH_MAX];
                        if (link && realpath(link, a) && realpath(p->node, b) && streq(a, b)) {
                                *ret = TAKE_PTR(link);
                                return 0;
                        }
                }
                *ret = strdup(p->node);
                return *ret ? 0 : error_set(err, ENOMEM, "out of memory");
        }
        return error_set(err, ENOENT, "no partition named '%s' on '%s' of '%s'", partname, device, agent_host(s));
}

/* The DB/WAL partitions of an existing OSD, by their BlueStore labels (for an OSD that is
 * prepared but not running, when the request does not name them). */
static int find_osd_parts(AgentState *s, const char *osd_fsid, char **ret_db, char **ret_wal, Error *err) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        int r = agent_inventory(s, false, &inv, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < inv->n_devices; i++) {
                const InvDevice *d = &inv->devices[i];
                for (size_t k = 0; k < d->n_partitions; k++) {
                        const InvPartition *p = &d->partitions[k];
                        const InvOsd *o = &p->content.osd;
                        if (!p->node || !streq_ptr(o->osd_fsid, osd_fsid))
                                continue;
                        char **dst = (o->role && streq(o->role, "block.db")) ? ret_db : (o->role && streq(o->role, "block.wal")) ? ret_wal : NULL;
                        if (!dst || *dst)
                                continue;
                        r = resolve_part(s, d->path, p->name, dst, err);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

/* BlueStore's label copies on a main device: 0, then (newer releases) 1 GiB, 10 GiB,
 * 100 GiB, 1000 GiB; a DB/WAL device has one, at 0. */
static const uint64_t label_offsets[] = { 0, 1ULL << 30, 10ULL << 30, 100ULL << 30, 1000ULL << 30 };

/* Erases the labels of the half-made OSD `osd_fsid` on `dev`: only label blocks that carry
 * that uuid, so nothing of another OSD (or anything else) is touched. Returns how many. */
static int erase_half_made_labels(const char *dev, const char *osd_fsid, Error *err) {
        _cleanup_(closep) int fd = open(dev, O_RDWR | O_CLOEXEC);
        if (fd < 0)
                return error_set(err, errno, "cannot open '%s': %m", dev);
        uint64_t size = 0;
        struct stat st;
        if (fstat(fd, &st) < 0 || (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &size) < 0))
                return error_set(err, errno, "cannot get the size of '%s': %m", dev);
        int n = 0;
        for (size_t i = 0; i < ELEMENTSOF(label_offsets); i++) {
                uint64_t off = label_offsets[i];
                uint8_t buf[4096];
                if (off + sizeof(buf) > size || read_exact_at(fd, buf, sizeof(buf), off) < 0)
                        continue;
                _cleanup_(inv_osd_done) InvOsd o = { .id = -1 };
                if (bluestore_label_parse(buf, sizeof(buf), &o) != 1 || !streq_ptr(o.osd_fsid, osd_fsid))
                        continue;
                memset(buf, 0, sizeof(buf));
                int r = write_exact_at(fd, buf, sizeof(buf), off);
                if (r < 0)
                        return error_set(err, -r, "cannot erase the label at %llu of '%s': %s", (unsigned long long) off, dev,
                                         strerror(-r));
                n++;
        }
        if (n > 0 && fsync(fd) < 0)
                return error_set(err, errno, "cannot sync '%s': %m", dev);
        return n;
}

int agent_label_erasable(const InvOsd *label, const char *redo_osd_fsid, const CephOsdDump *map, const char *part,
                         const char *role, const char *data, const char *host, Error *err) {
        const char *uuid = label->osd_fsid;
        const CephDumpOsd *o = map && uuid ? ceph_osd_dump_find_uuid(map, uuid) : NULL;
        int id = o ? o->id : label->id;
        char who[32] = "an OSD";
        if (id >= 0)
                snprintf(who, sizeof(who), "osd.%d", id);
        char what[512];
        snprintf(what, sizeof(what),
                 "'%s' (%s partition for the OSD on '%s' of '%s') carries the BlueStore label of %s (uuid %s)", part,
                 role, data, host, who, uuid ? uuid : "unreadable");

        /* a label of another cluster is never this plan's to erase, whatever its uuid */
        if (map && map->fsid && label->cluster_fsid && strcasecmp(label->cluster_fsid, map->fsid) != 0)
                return error_set(err, EEXIST, "%s of another cluster (%s, this one is %s): refusing to erase it", what,
                                 label->cluster_fsid, map->fsid);
        if (!uuid)
                return error_set(err, EEXIST, "%s: without its uuid nothing shows that OSD gone, refusing to erase it",
                                 what);
        if (redo_osd_fsid && strcasecmp(uuid, redo_osd_fsid) == 0)
                return AGENT_LABEL_ERASABLE_REDO;
        if (!map)
                return error_set(err, EEXIST,
                                 "%s, and the request carries no OSD map to show that OSD gone (an older controller, "
                                 "or no cluster reachable): refusing to erase it; run apply again with the cluster "
                                 "reachable",
                                 what);
        if (!o)
                return AGENT_LABEL_ERASABLE_GONE;
        if (o->destroyed)
                return AGENT_LABEL_ERASABLE_DESTROYED;
        return error_set(err, EEXIST,
                         "%s, which the cluster still has and which is not destroyed (osd map epoch %llu): refusing to "
                         "erase it; if '%s' replaced %s's disk, run `cephprov replace LAYOUT %s %s`",
                         what, (unsigned long long) map->epoch, data, who, host, data);
}

/* A BlueStore label at the start of a DB/WAL partition given for an OSD whose data device
 * carries none. It is there when a prepare was killed before it wrote the data device's
 * label, when the partition was made anew over an old one's bytes (a partition deleted by
 * hand, an SSD reused without zeroing) — and when the OSD it belongs to lost its data
 * device and a blank disk took its place: that OSD's DB is the only copy of its metadata,
 * not stale at all. `ceph-volume raw prepare` says "Raw device ... is already prepared",
 * exits 0 and makes nothing over any of them, so osd-create erases one first, but only
 * when agent_label_erasable() says its OSD is gone. Returns 1 with the block read into
 * `buf` (and `ret`) when there is an erasable label, 0 when there is no label, else the
 * refusal. */
static int stale_label_check(const char *dev, const char *role, const OsdArgs *a, const char *host,
                             uint8_t buf[static LABEL_BLOCK], InvOsd *ret, Error *err) {
        /* read-only: opened for writing, a device's close makes udev's watch probe it */
        int r = read_label_block(dev, buf, ret, err);
        if (r <= 0)
                return r;
        char node[PATH_MAX];
        const char *part = realpath(dev, node) ? node : dev;
        r = agent_label_erasable(ret, a->redo_osd_fsid, a->osd_map, part, role, a->data, host, err);
        if (r < 0)
                return r;
        static const char *const why[] = {
                [AGENT_LABEL_ERASABLE_REDO] = "the half-made OSD this request redoes",
                [AGENT_LABEL_ERASABLE_GONE] = "not in the OSD map",
                [AGENT_LABEL_ERASABLE_DESTROYED] = "destroyed in the OSD map",
        };
        log_info("'%s' carries a stale BlueStore label (osd uuid %s: %s) while the data device has none: erasing it",
                 part, ret->osd_fsid, why[r]);
        return 1;
}

/* Zeroes the label block at the start of `dev`, provided it still holds the bytes that
 * were judged (`expect`): a block that changed since is another writer's, left alone. */
static int erase_label_block(const char *dev, const uint8_t expect[static LABEL_BLOCK], Error *err) {
        _cleanup_(closep) int fd = open(dev, O_RDWR | O_CLOEXEC);
        if (fd < 0)
                return error_set(err, errno, "cannot open '%s': %m", dev);
        uint8_t buf[LABEL_BLOCK];
        int r = read_exact_at(fd, buf, sizeof(buf), 0);
        if (r < 0)
                return error_set(err, -r, "cannot read '%s': %s", dev, strerror(-r));
        if (memcmp(buf, expect, sizeof(buf)) != 0)
                return error_set(err, EAGAIN,
                                 "the BlueStore label of '%s' changed while osd-create looked at it: left alone", dev);
        memset(buf, 0, sizeof(buf));
        if ((r = write_exact_at(fd, buf, sizeof(buf), 0)) < 0)
                return error_set(err, -r, "cannot erase the stale label of '%s': %s", dev, strerror(-r));
        if (fsync(fd) < 0)
                return error_set(err, errno, "cannot sync '%s': %m", dev);
        return 0;
}

/* LVM needs the lvm tools and device-mapper in the kernel. /dev/mapper/control alone proves
 * nothing: libdevmapper makes that node whenever an lvm command runs (`ceph-volume lvm list`
 * does), also on a kernel without device-mapper, where every lvcreate then fails. The
 * kernel's misc device says device-mapper is there (built in or loaded); its module in the
 * running kernel's tree says it can be (lvm loads it on first use). */
static bool have_device_mapper(void) {
        if (access("/sys/class/misc/device-mapper", F_OK) == 0)
                return true;
        _cleanup_(freep) char *path = kernel_module_file("drivers/md/dm-mod");
        return path != NULL;
}

static bool have_lvm(void) {
        return (access("/sbin/lvm", X_OK) == 0 || access("/usr/sbin/lvm", X_OK) == 0) && have_device_mapper();
}

typedef struct LockWait {
        AgentProgress *p;
        const char *data;
} LockWait;

static void lock_wait_progress(uint64_t waited_ms, void *userdata) {
        LockWait *w = userdata;
        agent_progress(w->p, 0, 4, "waiting for another OSD creation on %s (%" PRIu64 " s)", w->data, waited_ms / 1000);
}

/* The per-device lock, waited for at most `timeout` seconds: the holder is another
 * osd-create whose ceph-volume is bounded itself, so a lock held longer than that is
 * stuck, and saying so beats waiting for ever. */
static int osd_lock(const char *data, unsigned timeout, int *ret_fd, AgentProgress *p, Error *err) {
        _cleanup_(block_dev_done) BlockDev d = {};
        int r = block_dev_resolve(data, &d, err);
        if (r < 0)
                return r;
        (void) mkdir(OSD_LOCK_DIR, 0755);
        /* not the device node itself: BlueStore flock()s its block device */
        _cleanup_(freep) char *path = strprintf(OSD_LOCK_DIR "/osd-create-%s.lock", d.name);
        if (!path)
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_(closep) int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
                return error_set(err, errno, "cannot open lock '%s': %m", path);
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                if (errno != EWOULDBLOCK)
                        return error_set(err, errno, "cannot lock '%s': %m", path);
                agent_progress(p, 0, 4, "waiting for another OSD creation on %s", data);
                LockWait w = { .p = p, .data = data };
                r = lock_file_wait(fd, (uint64_t) timeout * 1000, 30000, lock_wait_progress, &w);
                if (r == -ETIMEDOUT)
                        return error_set(err, ETIMEDOUT,
                                         "another OSD creation on '%s' of '%s' still holds '%s' after %u s "
                                         "(see lslocks on the host)",
                                         data, agent_host(NULL), path, timeout);
                if (r < 0)
                        return error_set(err, -r, "cannot lock '%s': %s", path, strerror(-r));
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* `raw activate` of Tentacle (20.2) ignores --block.db/--block.wal and makes no block.db
 * link in the OSD's directory, so the OSD aborts opening BlueFS (docs/ceph.md, "Releases"):
 * make each missing link ourselves, owned by ceph as ceph-volume makes them. A link that is
 * there and names another device is refused: that directory is not this OSD's. Returns 1 when
 * it made the link (the result says so: "links_made"), 0 when it was there. */
static int ensure_osd_link(AgentState *s, int osd, const char *name, const char *target, Error *err) {
        char path[PATH_MAX];
        struct stat st;

        if (!target)
                return 0;
        snprintf(path, sizeof path, "/var/lib/ceph/osd/ceph-%d/%s", osd, name);
        if (lstat(path, &st) == 0) {
                _cleanup_(freep) char *have = realpath(path, NULL);
                _cleanup_(freep) char *want = realpath(target, NULL);
                if (!have || !want || !streq(have, want))
                        return error_set(err, EEXIST, "'%s' on '%s' names '%s', not the planned '%s'",
                                         path, agent_host(s), have ? have : "nothing", target);
                return 0;
        }
        if (errno != ENOENT)
                return error_set(err, errno, "cannot read '%s' on '%s': %m", path, agent_host(s));
        if (symlink(target, path) < 0)
                return error_set(err, errno, "cannot link '%s' to '%s' on '%s': %m", path, target, agent_host(s));
        struct passwd *pw = getpwnam("ceph");
        if (pw && lchown(path, pw->pw_uid, pw->pw_gid) < 0)
                return error_set(err, errno, "cannot give '%s' on '%s' to ceph: %m", path, agent_host(s));
        if (pw && chown(target, pw->pw_uid, pw->pw_gid) < 0)
                return error_set(err, errno, "cannot give '%s' on '%s' to ceph: %m", target, agent_host(s));
        return 1;
}

static bool osd_running(AgentState *s, int id) {
        _cleanup_(freep) char *unit = strprintf("ceph-osd@%d", id);
        char *argv[] = { (char *) "systemctl", (char *) "is-active", (char *) "--quiet", unit, NULL };
        _cleanup_(run_result_done) RunResult rr = {};
        Error e = {};
        if (!unit || agent_spawn(s, argv, NULL, NULL, SYSTEMCTL_TIMEOUT, &rr, &e) < 0)
                return false;
        return rr.exit_status == 0;
}

static int systemctl(AgentState *s, const char *verb, int id, Error *err) {
        _cleanup_(freep) char *unit = strprintf("ceph-osd@%d", id);
        char *argv[] = { (char *) "systemctl", (char *) verb, unit, NULL };
        _cleanup_(run_result_done) RunResult rr = {};
        if (!unit)
                return error_set(err, ENOMEM, "out of memory");
        return run_checked(s, argv, NULL, SYSTEMCTL_TIMEOUT, &rr, err);
}

/* After osd.`osd` is made with LVM: the boot activations of the OSDs that had its id before
 * (an OSD made again under the same id, on another disk: `replace`, a conversion) disabled,
 * so that a boot does not try to activate a disk that is gone. Its current one is named by
 * its fsid (/var/lib/ceph/osd/ceph-N/fsid, written by the activation). Each disabled unit is
 * added to `done`; what cannot be done is said in `*ret_problem` (NULL when none) and does
 * not fail the creation: the OSD is made and runs. No systemctl here, no fsid: nothing. */
static void disable_stale_volume_units(AgentState *s, int osd, json_object *done, char **ret_problem) {
        _cleanup_(freep) char *path = strprintf("/var/lib/ceph/osd/ceph-%d/fsid", osd);
        char buf[64] = "";
        *ret_problem = NULL;
        _cleanup_(fclosep) FILE *f = path ? fopen(path, "re") : NULL;
        if (!f || !fgets(buf, sizeof buf, f))
                return;
        buf[strcspn(buf, " \n")] = 0;
        char *argv[] = { (char *) "systemctl", (char *) "show", (char *) "--property=Wants", (char *) "--value",
                         (char *) "multi-user.target", NULL };
        _cleanup_(run_result_done) RunResult rr = {};
        Error e = {};
        if (agent_spawn(s, argv, NULL, NULL, SYSTEMCTL_TIMEOUT, &rr, &e) < 0 || rr.timed_out || rr.exit_status != 0) {
                if (!(e.code == ENOENT || (!e.code && rr.exit_status == 127)))
                        *ret_problem = strprintf("cannot list the boot units (systemctl show multi-user.target): %s",
                                                 e.code ? e.message : rr.timed_out ? "timed out" : rr.err ? rr.err : "failed");
                error_reset(&e);
                return;
        }
        _cleanup_strv_free_ char **units = osd_stale_volume_units(rr.out, osd, buf);
        if (!units) {
                *ret_problem = strdup("out of memory");
                return;
        }
        _cleanup_(freep) char *why = strprintf("the boot activation of an earlier osd.%d", osd);
        if (!why || agent_disable_units(s, units, why, done, &e) < 0) {
                *ret_problem = strdup(why ? e.message : "out of memory");
                error_reset(&e);
        }
}

static int parse_args(json_object *args, OsdArgs *a, Error *err) {
        int r;
        *a = (OsdArgs) { .osd_id = -1 };
        /* "device" is what agent_request_from_step() sends; "data" is accepted too */
        r = json_get_string(args, "device", false, &a->data, "osd-create", err);
        if (r == -ENOENT)
                r = json_get_string(args, "data", true, &a->data, "osd-create", err);
        if (r < 0)
                return r;
        r = json_get_int(args, "osd_id", true, &a->osd_id, "osd-create", err);
        if (r < 0)
                return r;
        if (a->osd_id < 0 || a->osd_id > INT_MAX)
                return error_set(err, EINVAL, "osd-create: osd_id %lld is out of range", (long long) a->osd_id);
        json_object *map = NULL;
        r = json_get_object(args, "osd_map", false, &map, "osd-create", err);
        if (r < 0 && r != -ENOENT)
                return r;
        if (map && (r = ceph_osd_dump_identities_from_json(map, "osd-create: osd_map", &a->osd_map, err)) < 0)
                return r;
        struct { const char *key; const char **ret; } opt[] = {
                { "db_device", &a->db_device }, { "db_partname", &a->db_partname },
                { "wal_device", &a->wal_device }, { "wal_partname", &a->wal_partname },
                { "device_class", &a->device_class }, { "objectstore", &a->objectstore },
                { "redo_osd_fsid", &a->redo_osd_fsid },
        };
        for (size_t i = 0; i < ELEMENTSOF(opt); i++) {
                r = json_get_string(args, opt[i].key, false, opt[i].ret, "osd-create", err);
                if (r < 0 && r != -ENOENT)
                        return r;
        }
        r = json_get_bool(args, "data_is_bcache", false, &a->data_is_bcache, "osd-create", err);
        if (r < 0 && r != -ENOENT)
                return r;
        r = json_get_bool(args, "encrypted", false, &a->encrypted, "osd-create", err);
        if (r < 0 && r != -ENOENT)
                return r;
        if (a->objectstore && !streq(a->objectstore, "bluestore"))
                return error_set(err, EOPNOTSUPP, "osd-create: objectstore '%s' is not supported (only bluestore)",
                                 a->objectstore);
        if (!!a->db_partname != !!a->db_device || !!a->wal_partname != !!a->wal_device)
                return error_set(err, EINVAL, "osd-create: a DB/WAL partition name needs its device and vice versa");
        return 0;
}

int agent_op_osd_create(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err) {
        _cleanup_(osd_args_done) OsdArgs a = {};
        int r = parse_args(args, &a, err);
        if (r < 0)
                return r;
        int id = (int) a.osd_id;
        double t0 = clock_mono_sec();

        if (!agent_device_allowed(s, a.data))
                return error_set(err, EPERM, "device '%s' is not in the allow-list of '%s'", a.data, agent_host(s));
        if (a.db_device && !agent_device_allowed(s, a.db_device))
                return error_set(err, EPERM, "device '%s' is not in the allow-list of '%s'", a.db_device, agent_host(s));
        if (a.wal_device && !agent_device_allowed(s, a.wal_device))
                return error_set(err, EPERM, "device '%s' is not in the allow-list of '%s'", a.wal_device, agent_host(s));
        /* held until we return; every command below is gone by then, its whole process
         * group included (agent_spawn), so a second osd-create never overlaps a first.
         * Taken before the devices are checked: an agent whose controller is gone (a
         * hang-up) is still stopping its ceph-volume, whose mkfs holds the device
         * exclusively, and a re-run's check must wait for that, not refuse the device
         * (seen in the kill sweep's hangup point: "claimed exclusively by another user"). */
        _cleanup_(closep) int lock_fd = -1;
        int64_t lock_timeout = OSD_LOCK_TIMEOUT;
        r = json_get_int(args, "lock_timeout", false, &lock_timeout, "osd-create", err);
        if (r < 0 && r != -ENOENT)
                return r;
        if (lock_timeout < 0 || lock_timeout > UINT_MAX)
                return error_set(err, EINVAL, "osd-create: lock_timeout %" PRId64 " is out of range", lock_timeout);
        if (!s->dry_run && (r = osd_lock(a.data, (unsigned) lock_timeout, &lock_fd, p, err)) < 0)
                return r; /* the planned device: the controller waits on its name */
        double t_lock = clock_mono_sec();

        /* a creation of this id killed inside `ceph-volume lvm create` (a conversion's, whose
         * controller proved the id destroyed and its data device made afresh by the run):
         * its volume group holds the device; it goes when every LV in it is that id's */
        int64_t redo_lvm = -1;
        if ((r = json_get_int(args, "redo_lvm_osd_id", false, &redo_lvm, "osd-create", err)) < 0 && r != -ENOENT)
                return r;
        if (redo_lvm >= 0 && redo_lvm == a.osd_id && have_lvm() && !s->dry_run) {
                _cleanup_(freep) char *top = NULL;
                _cleanup_(block_dev_done) BlockDev td = {};
                _cleanup_json_ json_object *gone = json_object_new_object();
                if (!gone)
                        return error_set(err, ENOMEM, "out of memory");
                r = a.data_is_bcache ? bcache_device_of(a.data, &top, err)
                                     : (top = strdup(a.data)) ? 0 : error_set(err, ENOMEM, "out of memory");
                if (r >= 0)
                        r = block_dev_resolve(top, &td, err);
                if (r >= 0)
                        r = agent_release_osd_lvm(s, td.name, (int) redo_lvm, gone, err);
                if (r < 0)
                        return error_prefix(err, r, "'%s' on '%s': the half-made osd.%d", a.data, agent_host(s), id);
                if (json_object_object_length(gone) > 0)
                        agent_progress(p, 0, 4, "removed the volume group of the half-made osd.%d on %s", id, top);
        }
        /* nobody else uses them, and they are what the plan saw (agent-inuse.c) */
        if ((r = agent_osd_check_devices(s, args, err)) < 0)
                return r;

        _cleanup_(freep) char *data = NULL, *db = NULL, *wal = NULL;
        if (a.data_is_bcache)
                r = bcache_device_of(a.data, &data, err);
        else
                r = (data = strdup(a.data)) ? 0 : error_set(err, ENOMEM, "out of memory");
        if (r < 0)
                return r;
        if (a.db_partname && (r = resolve_part(s, a.db_device, a.db_partname, &db, err)) < 0)
                return r;
        if (a.wal_partname && (r = resolve_part(s, a.wal_device, a.wal_partname, &wal, err)) < 0)
                return r;

        if (s->dry_run) {
                json_object *o = json_object_new_object();
                if (!o)
                        return error_set(err, ENOMEM, "out of memory");
                json_add_int(o, "osd_id", id);
                json_add_string(o, "data", data);
                json_add_string(o, "block_db", db);
                json_add_string(o, "block_wal", wal);
                json_add_bool(o, "dry_run", true);
                *ret = o;
                return 0;
        }


        bool lvm = have_lvm();
        /* ceph-volume 16.2's `raw activate` opens no LUKS device: an encrypted raw OSD would
         * be prepared and never start. Refused before anything is written. */
        if (a.encrypted && !lvm)
                return error_set(err, EOPNOTSUPP,
                                 "'%s' on '%s': an encrypted OSD needs LVM and device-mapper on the host "
                                 "(ceph-volume lvm create --dmcrypt); this host has no LVM",
                                 data, agent_host(s));
        bool loop = startswith(data, "/dev/loop");
        char *env_loop[] = { (char *) CEPH_VOLUME_ENV_ALLOW_LOOP, NULL };
        char **env = loop ? env_loop : NULL;
        _cleanup_(run_result_done) RunResult rr = {};
        _cleanup_(inv_osd_done) InvOsd label = { .id = -1 };
        bool prepared = false, activated = false, adopted = false;
        int links_made = 0;
        const CephVolumePrepare prepare = {
                .data = data, .db = db, .wal = wal, .osd_id = id, .crush_device_class = a.device_class,
                .dmcrypt = a.encrypted,
        };

        /* 1. prepare, unless the device already carries an OSD */
        r = read_label(data, &label, err);
        if (r < 0)
                return r;
        /* An mkfs that never finished: redo it only when the controller proved (journal + OSD
         * map) that a run of cephprov started it; anyone else's stays untouched. The proof
         * stands for that osd uuid even if a leftover mkfs finished the label since the plan:
         * the controller has taken back its id for this creation, so that OSD can never run. */
        bool redo = r == 1 && a.redo_osd_fsid && streq_ptr(label.osd_fsid, a.redo_osd_fsid);
        if (r == 1 && (label.incomplete || redo)) {
                if (!redo)
                        return error_set(err, EEXIST,
                                         "'%s' on '%s' carries a half-made BlueStore OSD (osd uuid %s, its mkfs never finished) "
                                         "that cephprov did not start: refusing to touch it",
                                         data, agent_host(s), label.osd_fsid ? label.osd_fsid : "unknown");
                if (label.id >= 0 && osd_running(s, label.id))
                        return error_set(err, EBUSY, "'%s' on '%s': the half-made osd.%d is running: refusing to touch it",
                                         data, agent_host(s), label.id);
                agent_progress(p, 1, 4, "erasing the half-made OSD %s on %s", label.osd_fsid, data);
                const char *devs[] = { data, db, wal };
                for (size_t i = 0; i < ELEMENTSOF(devs); i++)
                        if (devs[i] && (r = erase_half_made_labels(devs[i], label.osd_fsid, err)) < 0)
                                return r;
                inv_osd_done(&label);
                r = read_label(data, &label, err);
                if (r < 0)
                        return r;
                if (r == 1)
                        return error_set(err, EIO, "'%s' on '%s' still carries a BlueStore label after erasing the half-made OSD",
                                         data, agent_host(s));
        }
        int stale_erased = 0;
        if (r == 0) {
                /* both judged before either is erased: a refusal leaves every byte as it was */
                const char *parts[2] = { db, wal }, *roles[2] = { "DB", "WAL" };
                uint8_t blocks[2][LABEL_BLOCK];
                bool stale[2] = {};
                for (size_t i = 0; i < 2; i++) {
                        if (!parts[i] || (i == 1 && db && streq(db, wal)))
                                continue;
                        _cleanup_(inv_osd_done) InvOsd o = { .id = -1 };
                        int e = stale_label_check(parts[i], roles[i], &a, agent_host(s), blocks[i], &o, err);
                        if (e < 0)
                                return e;
                        stale[i] = e > 0;
                }
                for (size_t i = 0; i < 2; i++) {
                        if (!stale[i])
                                continue;
                        int e = erase_label_block(parts[i], blocks[i], err);
                        if (e < 0)
                                return e;
                        stale_erased++;
                }
        }
        /* normally made by the ceph-osd package; ceph-volume does not create the parent */
        if (mkdir("/var/lib/ceph/osd", 0755) < 0 && errno != EEXIST)
                return error_set(err, errno, "cannot create '/var/lib/ceph/osd' on '%s': %m", agent_host(s));
        if (r == 0) {
                /* lvm create = prepare + activate (+ its systemd units) */
                agent_progress(p, 1, 4, "ceph-volume %s osd.%d on %s", lvm ? "lvm create" : "raw prepare", id, data);
                _cleanup_strv_free_ char **argv = lvm ? ceph_volume_argv_lvm_create(&prepare, err)
                                                      : ceph_volume_argv_raw_prepare(&prepare, err);
                if (!argv)
                        return -err->code;
                r = run_prepare(s, argv, env, data, &rr, err);
                if (r < 0)
                        return r;
                run_result_done(&rr);
                prepared = true;
                if (lvm) {
                        activated = true;
                        label.id = id;
                } else {
                        inv_osd_done(&label);
                        r = read_label(data, &label, err);
                        if (r < 0)
                                return r;
                        if (r == 0)
                                return error_set(err, EIO, "ceph-volume raw prepare reported success but '%s' on '%s' has no BlueStore label",
                                                 data, agent_host(s));
                }
        }
        if (label.id < 0)
                return error_set(err, EIO, "'%s' on '%s' carries a BlueStore label without an OSD id", data, agent_host(s));
        if (!prepared && !lvm && !a.db_partname && !a.wal_partname && label.osd_fsid &&
            (r = find_osd_parts(s, label.osd_fsid, &db, &wal, err)) < 0)
                return r;
        if (label.id != id)
                /* prepared earlier with another id (e.g. by a run that was killed): that OSD is the
                 * one to finish; the controller releases the id it allocated for this call */
                adopted = true;
        int osd = label.id;
        double t_prep = clock_mono_sec();

        /* 2. activate (raw), unless the daemon already runs */
        bool running = osd_running(s, osd);
        if (!running && !activated && !lvm) {
                agent_progress(p, 2, 4, "ceph-volume raw activate osd.%d", osd);
                _cleanup_strv_free_ char **argv = ceph_volume_argv_raw_activate(data, db, wal, err);
                if (!argv)
                        return -err->code;
                r = run_checked(s, argv, env, CEPH_VOLUME_TIMEOUT, &rr, err);
                if (r < 0)
                        return r;
                run_result_done(&rr);
                activated = true;
                if ((r = ensure_osd_link(s, osd, "block.db", db, err)) < 0)
                        return r;
                links_made += r;
                if ((r = ensure_osd_link(s, osd, "block.wal", wal, err)) < 0)
                        return r;
                links_made += r;
        }
        double t_act = clock_mono_sec();

        /* 3. enable and start, the way this host starts OSDs */
        agent_progress(p, 3, 4, "systemctl start ceph-osd@%d", osd);
        r = systemctl(s, "enable", osd, err);
        if (r < 0)
                return r;
        if (!running && (r = systemctl(s, "start", osd, err)) < 0)
                return r;
        double t_end = clock_mono_sec();
        _cleanup_json_ json_object *stale_units = json_object_new_array();
        _cleanup_(freep) char *stale_problem = NULL;
        if (!stale_units)
                return error_set(err, ENOMEM, "out of memory");
        if (lvm)
                disable_stale_volume_units(s, osd, stale_units, &stale_problem);

        json_object *o = json_object_new_object();
        if (!o)
                return error_set(err, ENOMEM, "out of memory");
        json_add_int(o, "osd_id", osd);
        json_add_string(o, "osd_fsid", label.osd_fsid);
        json_add_string(o, "cluster_fsid", label.cluster_fsid);
        json_add_string(o, "data", data);
        json_add_string(o, "block_db", db);
        json_add_string(o, "block_wal", wal);
        json_add_string(o, "method", lvm ? "lvm" : "raw");
        json_add_bool(o, "encrypted", a.encrypted);
        json_add_bool(o, "prepared", prepared);
        json_add_bool(o, "activated", activated);
        json_add_bool(o, "started", !running);
        json_add_bool(o, "adopted", adopted);
        json_add_int(o, "links_made", links_made);
        json_add_int(o, "stale_labels_erased", stale_erased);
        json_add(o, "stale_units_disabled", TAKE_PTR(stale_units));
        if (stale_problem)
                json_add_string(o, "stale_units_problem", stale_problem);
        json_add(o, "seconds_lock_wait", json_object_new_double(t_lock - t0));
        json_add(o, "seconds_prepare", json_object_new_double(t_prep - t_lock));
        json_add(o, "seconds_activate", json_object_new_double(t_act - t_prep));
        json_add(o, "seconds_start", json_object_new_double(t_end - t_act));
        *ret = o;
        return 0;
}
