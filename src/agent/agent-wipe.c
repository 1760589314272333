/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Wipe: every signature libblkid knows (the blkid_do_probe/blkid_do_wipe loop, as wipefs
 * does), the whole GPT (primary and backup, not just their magic), and the whole bcache
 * superblock. Refuses devices outside the allow-list and devices in use (agent-inuse.c),
 * written only through the claimed descriptor. On a partition only its content is wiped;
 * on a whole device the kernel first forgets its partitions (BLKPG_DEL_PARTITION, never a
 * re-read; refused with nothing written when one is busy), then its partitions' contents
 * and the device's own signatures go. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <blkid/blkid.h>

#include "agent-internal.h"

/* Wipe (or, dry, list) the signatures of [off, off+size) of fd. Names are appended to
 * `names`, prefixed with `prefix` ("loop3p2:") when given. */
static int wipe_region(int fd, uint64_t off, uint64_t size, const char *prefix, bool dry, char ***names,
                       bool *ret_gpt) {
        blkid_probe pr;
        int r = agent_blkid_probe(fd, off, size, BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_TYPE | BLKID_SUBLKS_BADCSUM,
                                  BLKID_PARTS_MAGIC | BLKID_PARTS_FORCE_GPT, &pr);
        if (r < 0)
                return r;
        for (unsigned guard = 0; guard < 64 && blkid_do_probe(pr) == 0; guard++) {
                const char *t = NULL;
                if (blkid_probe_lookup_value(pr, "TYPE", &t, NULL) < 0 &&
                    blkid_probe_lookup_value(pr, "PTTYPE", &t, NULL) < 0)
                        t = "unknown";
                if (ret_gpt && (streq(t, "gpt") || streq(t, "PMBR")))
                        *ret_gpt = true;
                _cleanup_(freep) char *n = prefix ? strprintf("%s:%s", prefix, t) : strdup(t);
                if (!n || (!strv_contains(*names, n) && strv_extend(names, n) < 0)) {
                        r = -ENOMEM;
                        break;
                }
                if (blkid_do_wipe(pr, dry) < 0) {
                        r = errno > 0 ? -errno : -EIO;
                        break;
                }
        }
        blkid_free_probe(pr);
        return r;
}

/* The bcache superblock is 4 KiB at 4 KiB; libblkid erases only its magic. One with the
 * magic but not valid (bad checksum) goes too. */
static int wipe_bcache(int fd, uint64_t off, const char *prefix, bool dry, char ***names) {
        uint8_t sb[BCACHE_SB_SIZE];
        uint64_t at;
        if (__builtin_add_overflow(off, (uint64_t) BCACHE_SB_OFFSET, &at) ||
            read_exact_at(fd, sb, sizeof(sb), at) < 0)
                return 0; /* shorter than 8 KiB: no superblock */
        BcacheSb s;
        if (bcache_sb_decode(sb, sizeof(sb), &s, NULL) == 0)
                return 0;
        _cleanup_(freep) char *n = prefix ? strprintf("%s:bcache", prefix) : strdup("bcache");
        if (!n)
                return -ENOMEM;
        if (!strv_contains(*names, n) && strv_extend(names, n) < 0)
                return -ENOMEM;
        return dry ? 0 : zero_range(fd, at, BCACHE_SB_SIZE);
}

/* Zero [lba, lba+n) clipped to the device. */
static int zero_lbas(int fd, unsigned lss, uint64_t n_lba, uint64_t lba, uint64_t n) {
        if (lba >= n_lba)
                return 0;
        n = MIN(n, n_lba - lba);
        return zero_range(fd, lba * lss, n * lss);
}

/* Zero both GPT copies completely (header + entry array): wiping the magic alone leaves
 * tables that recovery tools happily resurrect. The standard places always (the first 34
 * and the last 33 sectors: MBR, header and 128 × 128-byte entries); with a valid header
 * (gpt_read_header() bounds its array to 4 MiB inside the device) also its array and the
 * backup header where they really are, the backup array just before the backup header.
 * Never more: a crafted header cannot make this wipe the data between the tables. */
static int wipe_gpt(int fd, unsigned lss, uint64_t dev_size, const GptHeader *h) {
        uint64_t n_lba = dev_size / lss;
        int r = zero_lbas(fd, lss, n_lba, 0, 34);
        if (r >= 0)
                r = zero_lbas(fd, lss, n_lba, n_lba - MIN(n_lba, (uint64_t) 33), 33);
        if (r >= 0 && h) {
                uint64_t arr = gpt_entries_sectors(h, lss);
                r = zero_lbas(fd, lss, n_lba, h->entries_lba, arr);
                if (r >= 0)
                        r = zero_lbas(fd, lss, n_lba, h->alternate_lba, 1);
                /* the backup array, when it lies between the usable area and the backup header */
                if (r >= 0 && h->alternate_lba > h->last_usable && h->alternate_lba - h->last_usable > arr)
                        r = zero_lbas(fd, lss, n_lba, h->alternate_lba - arr, arr);
        }
        return r;
}

typedef struct KernelParts {
        char **names;
        unsigned *numbers;
        uint64_t *start, *size; /* bytes, to put them back */
        size_t n;
} KernelParts;

static void kernel_parts_done(KernelParts *k) {
        strv_free(k->names);
        free(k->numbers);
        free(k->start);
        free(k->size);
        *k = (KernelParts) {};
}

static int kernel_parts_load(const BlockDev *d, KernelParts *k) {
        int r = block_list_partitions(d->name, &k->names, &k->numbers, &k->n);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        k->start = calloc(k->n + 1, sizeof(uint64_t));
        k->size = calloc(k->n + 1, sizeof(uint64_t));
        if (!k->start || !k->size)
                return -ENOMEM;
        for (size_t i = 0; i < k->n; i++) {
                sysfs_read_u64(k->names[i], "start", &k->start[i]);
                sysfs_read_u64(k->names[i], "size", &k->size[i]);
                k->start[i] *= 512;
                k->size[i] *= 512;
        }
        return 0;
}

static void sleep_ms(unsigned ms) {
        struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* The kernel forgets the disk's partitions before a byte is written: BLKPG_DEL_PARTITION
 * fails with EBUSY while anyone has one open (a BlueStore OSD that takes no O_EXCL claim
 * included), and once a partition is gone nobody can open it again. On EBUSY the ones
 * already removed are put back and the wipe is refused with nothing written. udev's
 * probes open partitions for a moment: an EBUSY is retried for about a second. */
static int kernel_parts_remove(int fd, const BlockDev *d, const KernelParts *k, Error *err) {
        for (size_t i = 0; i < k->n; i++) {
                Error e = {};
                int r = 0;
                for (int t = 0; t < 20; t++) {
                        error_reset(&e);
                        r = blkpg_del_partition(fd, d->path, k->numbers[i], &e);
                        if (r != -EBUSY)
                                break;
                        sleep_ms(50);
                }
                if (r >= 0)
                        continue;
                for (size_t j = i; j > 0; j--)
                        (void) blkpg_add_partition(fd, d->path, k->numbers[j - 1], k->start[j - 1], k->size[j - 1], NULL);
                if (r == -EBUSY)
                        return error_set(err, EBUSY,
                                         "'%s' is in use: its partition '/dev/%s' is open (the kernel refused to remove it); refusing to wipe it",
                                         d->path, k->names[i]);
                return error_set(err, -r, "%s", e.message);
        }
        return 0;
}

static const char *kernel_parts_name(const KernelParts *k, unsigned no) {
        for (size_t i = 0; i < k->n; i++)
                if (k->numbers[i] == no)
                        return k->names[i];
        return NULL;
}

int agent_op_wipe(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err) {
        _cleanup_(block_dev_done) BlockDev d = {};
        _cleanup_(block_claim_done) BlockClaim c = { .fd = -1, .excl_fd = -1 };
        _cleanup_(kernel_parts_done) KernelParts kp = {};
        _cleanup_strv_free_ char **names = calloc(1, sizeof(char *));
        const char *path;
        DevExpect e;
        int r;

        if (!names)
                return error_set(err, ENOMEM, "out of memory");
        r = json_get_string(args, "device", true, &path, "wipe", err);
        if (r < 0)
                return r;
        r = dev_expect_parse(args, "expect", "wipe", &e, err);
        if (r < 0)
                return r;
        if (!agent_device_allowed(s, path))
                return error_set(err, EPERM, "refusing to wipe '%s' on '%s': not in the allow-list", path, agent_host(s));
        r = block_dev_resolve(path, &d, err);
        if (r < 0)
                return r;
        bool release_lvm = false;
        if ((r = json_get_bool(args, "release_lvm", false, &release_lvm, "wipe", err)) < 0 && r != -ENOENT)
                return r;

        bool dry = s->dry_run;
        _cleanup_json_ json_object *lvm = NULL;
        if (release_lvm && !d.is_partition && !dry) {
                /* a ceph-volume OSD's volume group on the disk (its OSD destroyed, stopped):
                 * device-mapper holds the disk until it goes. The disk is checked to be the
                 * one the plan saw first, read-only, as it was (the removal changes it). */
                if (e.present) {
                        _cleanup_(closep) int rfd = open(d.node, O_RDONLY | O_CLOEXEC);
                        struct stat st;
                        if (rfd < 0 || fstat(rfd, &st) < 0)
                                return error_set(err, errno, "cannot open '%s': %m", d.path);
                        if (!S_ISBLK(st.st_mode) || st.st_rdev != d.devnum)
                                return error_set(err, ESTALE, "'%s' changed while it was opened; re-run plan", d.path);
                        if ((r = dev_expect_check(rfd, &d, &e, err)) < 0)
                                return r;
                }
                if (!(lvm = json_object_new_object()))
                        return error_set(err, ENOMEM, "out of memory");
                if ((r = agent_release_osd_lvm(s, d.name, -1, lvm, err)) < 0)
                        return error_prefix(err, r, "refusing to wipe '%s'", d.path);
        }
        bool released = lvm && json_object_object_length(lvm) > 0;
        /* held (O_EXCL, flock, OFD lock) until the wipe is on disk: see agent-inuse.c (its
         * content checked above when an LVM went: who it is and its size are, here) */
        DevExpect who = e;
        if (released) {
                who.has_type = who.has_uuid = who.has_pttype = who.has_ptuuid = false;
                who.osd_uuid = who.ceph_fsid = NULL;
                who.whoami = -1;
        }
        r = block_claim(&d, &(ClaimOptions) { .what = "wipe", .read_only = dry, .expect = &who, .allow_osd_id = { -1, -1 } },
                        &c, err);
        if (r < 0)
                return r;
        int fd = c.fd;

        if (!d.is_partition) {
                r = kernel_parts_load(&d, &kp);
                if (r < 0)
                        return error_set(err, r, "cannot list the partitions of '%s': %s", d.path, strerror(-r));
                if (!dry) {
                        r = kernel_parts_remove(fd, &d, &kp, err);
                        if (r < 0)
                                return r;
                }
        }

        json_object *removed = json_object_new_array();
        if (!removed)
                return error_set(err, ENOMEM, "out of memory");

        if (!d.is_partition) {
                /* the partitions' contents first, from the table (kernel nodes or not) */
                blkid_probe pr = NULL;
                if (agent_blkid_probe(fd, 0, 0, AGENT_BLKID_OFF, 0, &pr) >= 0) {
                        blkid_partlist pl = blkid_probe_get_partitions(pr);
                        int n = pl ? blkid_partlist_numof_partitions(pl) : 0;
                        for (int i = 0; i < n && r >= 0; i++) {
                                blkid_partition par = blkid_partlist_get_partition(pl, i);
                                unsigned no = (unsigned) blkid_partition_get_partno(par);
                                /* from the table on disk: libblkid checks them against the
                                 * device, multiply with care all the same */
                                blkid_loff_t ps = blkid_partition_get_start(par), pz = blkid_partition_get_size(par);
                                uint64_t start, size;
                                if (ps < 0 || pz < 0 || __builtin_mul_overflow((uint64_t) ps, 512, &start) ||
                                    __builtin_mul_overflow((uint64_t) pz, 512, &size) || start > d.size ||
                                    size > d.size - start) {
                                        r = error_set(err, ERANGE,
                                                      "refusing to wipe '%s': its partition %u (%lld+%lld sectors) lies outside the device",
                                                      d.path, no, (long long) ps, (long long) pz);
                                        break;
                                }
                                const char *kname = kernel_parts_name(&kp, no);
                                _cleanup_(freep) char *prefix = kname ? strdup(kname) : strprintf("%s#%u", d.name, no);
                                if (!prefix)
                                        r = -ENOMEM;
                                if (r >= 0)
                                        r = wipe_region(fd, start, size, prefix, dry, &names, NULL);
                                if (r >= 0)
                                        r = wipe_bcache(fd, start, prefix, dry, &names);
                                agent_progress(p, (uint64_t) i + 1, (uint64_t) n + 1, "wiped partition %u of '%s'", no,
                                               d.path);
                        }
                }
                if (pr)
                        blkid_free_probe(pr);
                if (r < 0) {
                        json_object_put(removed);
                        return error_set(err, r, "cannot wipe the partitions of '%s': %s", d.path, strerror(-r));
                }
        }

        /* the GPT's geometry, before libblkid erases the header's magic */
        GptHeader gh;
        bool have_gh = !d.is_partition && gpt_read_header(fd, d.logical_sector_size, 1, &gh, NULL, NULL) >= 0;
        bool gpt = false;
        r = wipe_region(fd, 0, 0, NULL, dry, &names, &gpt);
        if (r >= 0)
                r = wipe_bcache(fd, 0, NULL, dry, &names);
        if (r >= 0 && gpt && !d.is_partition && !dry)
                r = wipe_gpt(fd, d.logical_sector_size, d.size, have_gh ? &gh : NULL);
        /* the LVM gone: the OSD's label lay 1 MiB in (the LV's start), where no signature
         * probe looks: zeroed as bcache-teardown zeroes a backing device's start */
        if (r >= 0 && released && zero_range(fd, 0, MIN((uint64_t) BCACHE_TEARDOWN_ZERO, d.size)) < 0)
                r = -errno;
        if (r >= 0 && !dry && fsync(fd) < 0)
                r = -errno;
        if (r < 0) {
                json_object_put(removed);
                return error_set(err, r, "cannot wipe '%s': %s", d.path, strerror(-r));
        }
        if (!dry)
                (void) ioctl(fd, BLKFLSBUF, 0); /* drop cached blocks: the next probe reads the disk */

        for (size_t i = 0; !dry && i < kp.n; i++)
                json_object_array_add(removed, json_object_new_string(kp.names[i]));

        json_object *o = json_object_new_object();
        json_object *w = json_array_new_strv(names);
        if (!o || !w) {
                json_object_put(o);
                json_object_put(w);
                json_object_put(removed);
                return error_set(err, ENOMEM, "out of memory");
        }
        json_add(o, "wiped", w);
        json_add(o, "partitions_removed", removed);
        if (released)
                json_add(o, "lvm", TAKE_PTR(lvm));
        if (dry)
                json_add_bool(o, "dry_run", true);
        *ret = o;
        return 0;
}
