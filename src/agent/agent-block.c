/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Block-device plumbing shared by the agent's ops: sysfs, mounts and swaps, holders,
 * BLKPG, raw I/O, reading GPT headers (decoded by src/ondisk). */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/blkpg.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "agent-internal.h"

int agent_blkid_probe(int fd, uint64_t off, uint64_t size, int sb_flags, int part_flags, blkid_probe *ret) {
        blkid_probe pr = blkid_new_probe();
        if (!pr)
                return -ENOMEM;
        if (blkid_probe_set_device(pr, fd, (blkid_loff_t) off, (blkid_loff_t) size) < 0) {
                blkid_free_probe(pr);
                return -EIO;
        }
        blkid_probe_enable_superblocks(pr, sb_flags != AGENT_BLKID_OFF);
        if (sb_flags > 0)
                blkid_probe_set_superblocks_flags(pr, sb_flags);
        blkid_probe_enable_partitions(pr, part_flags != AGENT_BLKID_OFF);
        if (part_flags > 0)
                blkid_probe_set_partitions_flags(pr, part_flags);
        *ret = pr;
        return 0;
}

void block_dev_done(BlockDev *d) {
        if (!d)
                return;
        free(d->path);
        free(d->node);
        free(d->name);
        free(d->disk_name);
        *d = (BlockDev) {};
}

int file_read_string(const char *path, char **ret) {
        _cleanup_(fclosep) FILE *f = fopen(path, "re");
        if (!f)
                return -errno;
        char buf[4096];
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        if (ferror(f))
                return -EIO;
        buf[n] = 0;
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
                buf[--n] = 0;
        char *s = strdup(buf);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

char *kernel_module_file(const char *relpath) {
        struct utsname u;
        if (uname(&u) < 0)
                return NULL;
        static const char *const suffixes[] = { "", ".xz", ".zst", ".gz" };
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                char *path = strprintf("/lib/modules/%s/kernel/%s.ko%s", u.release, relpath, suffixes[i]);
                if (!path || access(path, F_OK) == 0)
                        return path;
                free(path);
        }
        return NULL;
}

int file_write_string(const char *path, const char *value) {
        _cleanup_(closep) int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        size_t len = strlen(value);
        ssize_t n = write(fd, value, len);
        if (n < 0)
                return -errno;
        if ((size_t) n != len)
                return -EIO;
        return 0;
}

int sysfs_read_string(const char *name, const char *attr, char **ret) {
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "/sys/class/block/%s/%s", name, attr);
        return file_read_string(path, ret);
}

int sysfs_read_u64(const char *name, const char *attr, uint64_t *ret) {
        _cleanup_(freep) char *s = NULL;
        int r = sysfs_read_string(name, attr, &s);
        if (r < 0)
                return r;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno != 0 || end == s)
                return -EINVAL;
        *ret = v;
        return 0;
}

int block_dev_resolve(const char *path, BlockDev *ret, Error *err) {
        struct stat st;
        if (stat(path, &st) < 0)
                return error_set(err, errno, "cannot access '%s': %s", path, strerror(errno));
        if (!S_ISBLK(st.st_mode))
                return error_set(err, ENODEV, "'%s' is not a block device", path);

        char link[PATH_MAX], real[PATH_MAX];
        snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
        if (!realpath(link, real))
                return error_set(err, errno, "'%s' (%u:%u) is unknown to the kernel: %s", path,
                                 major(st.st_rdev), minor(st.st_rdev), strerror(errno));

        _cleanup_(block_dev_done) BlockDev d = { .devnum = st.st_rdev };
        const char *base = strrchr(real, '/');
        d.path = strdup(path);
        d.name = strdup(base + 1);
        if (!d.path || !d.name)
                return error_set(err, ENOMEM, "out of memory");
        d.node = strprintf("/dev/%s", d.name);

        uint64_t v;
        if (sysfs_read_u64(d.name, "partition", &v) >= 0) {
                d.is_partition = true;
                d.partno = (unsigned) v;
                if (sysfs_read_u64(d.name, "start", &v) >= 0)
                        d.start = v * 512;
                /* the parent directory is the whole disk */
                char *slash = strrchr(real, '/');
                *slash = 0;
                slash = strrchr(real, '/');
                d.disk_name = strdup(slash + 1);
        } else
                d.disk_name = strdup(d.name);
        if (!d.node || !d.disk_name)
                return error_set(err, ENOMEM, "out of memory");
        if (sysfs_read_u64(d.name, "size", &v) >= 0)
                d.size = v * 512;
        d.logical_sector_size = 512;
        if (sysfs_read_u64(d.disk_name, "queue/logical_block_size", &v) >= 0 && v > 0)
                d.logical_sector_size = (unsigned) v;

        *ret = d;
        d = (BlockDev) {};
        return 0;
}

char *block_partition_name(const char *disk_name, unsigned partno) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_(freep) unsigned *numbers = NULL;
        size_t n = 0;
        if (block_list_partitions(disk_name, &names, &numbers, &n) < 0)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (numbers[i] == partno)
                        return strdup(names[i]);
        return NULL;
}

int block_list_partitions(const char *disk_name, char ***ret_names, unsigned **ret_numbers, size_t *ret_n) {
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "/sys/class/block/%s", disk_name);
        DIR *dir = opendir(path);
        if (!dir)
                return -errno;

        _cleanup_strv_free_ char **names = NULL;
        _cleanup_(freep) unsigned *numbers = NULL;
        size_t n = 0;
        struct dirent *de;
        while ((de = readdir(dir))) {
                if (de->d_name[0] == '.' || !startswith(de->d_name, disk_name))
                        continue;
                char sub[PATH_MAX];
                snprintf(sub, sizeof(sub), "%s/%s", disk_name, de->d_name);
                uint64_t no;
                if (sysfs_read_u64(sub, "partition", &no) < 0)
                        continue;
                unsigned *nn = realloc(numbers, (n + 1) * sizeof(unsigned));
                if (!nn) {
                        closedir(dir);
                        return -ENOMEM;
                }
                numbers = nn;
                if (strv_extend(&names, de->d_name) < 0) {
                        closedir(dir);
                        return -ENOMEM;
                }
                numbers[n++] = (unsigned) no;
        }
        closedir(dir);

        /* insertion sort by number: a disk has at most a few hundred partitions */
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && numbers[j - 1] > numbers[j]; j--) {
                        unsigned t = numbers[j];
                        numbers[j] = numbers[j - 1];
                        numbers[j - 1] = t;
                        char *ts = names[j];
                        names[j] = names[j - 1];
                        names[j - 1] = ts;
                }
        if (!names && !(names = calloc(1, sizeof(char *))))
                return -ENOMEM;
        *ret_names = TAKE_PTR(names);
        *ret_numbers = TAKE_PTR(numbers);
        *ret_n = n;
        return 0;
}

void usage_table_done(UsageTable *t) {
        free(t->mount_dev);
        strv_free(t->mount_point);
        free(t->swap_dev);
        *t = (UsageTable) {};
}

/* mountinfo escapes blanks as \040 etc. */
static void unescape_octal(char *s) {
        char *w = s;
        for (char *p = s; *p; p++) {
                if (p[0] == '\\' && p[1] >= '0' && p[1] <= '7' && p[2] >= '0' && p[2] <= '7' &&
                    p[3] >= '0' && p[3] <= '7') {
                        *w++ = (char) ((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
                        p += 3;
                } else
                        *w++ = *p;
        }
        *w = 0;
}

static int usage_table_add_mount(UsageTable *t, dev_t d, const char *mp) {
        dev_t *nd = realloc(t->mount_dev, (t->n_mounts + 1) * sizeof(dev_t));
        if (!nd)
                return -ENOMEM;
        t->mount_dev = nd;
        if (strv_extend(&t->mount_point, mp) < 0)
                return -ENOMEM;
        t->mount_dev[t->n_mounts++] = d;
        return 0;
}

/* Every member device of the mounted btrfs whose device `source` is (its
 * /sys/fs/btrfs/<fsid>/devices/ directory), with the mount point. */
static int usage_table_add_btrfs(UsageTable *t, dev_t source, const char *mp) {
        char link[PATH_MAX], real[PATH_MAX];
        snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(source), minor(source));
        if (!realpath(link, real))
                return 0;
        const char *name = strrchr(real, '/') + 1;
        DIR *dir = opendir("/sys/fs/btrfs");
        if (!dir)
                return 0;
        int r = 0;
        struct dirent *de;
        while (r >= 0 && (de = readdir(dir))) {
                char p[PATH_MAX];
                snprintf(p, sizeof(p), "/sys/fs/btrfs/%.64s/devices", de->d_name);
                DIR *devs = opendir(p);
                if (!devs)
                        continue;
                bool mine = false;
                struct dirent *dd;
                while ((dd = readdir(devs)))
                        if (streq(dd->d_name, name))
                                mine = true;
                rewinddir(devs);
                while (mine && r >= 0 && (dd = readdir(devs))) {
                        _cleanup_(freep) char *dev = NULL;
                        unsigned maj, min;
                        if (dd->d_name[0] == '.' || streq(dd->d_name, name))
                                continue;
                        if (sysfs_read_string(dd->d_name, "dev", &dev) >= 0 && sscanf(dev, "%u:%u", &maj, &min) == 2)
                                r = usage_table_add_mount(t, makedev(maj, min), mp);
                }
                closedir(devs);
        }
        closedir(dir);
        return r;
}

int usage_table_load(UsageTable *t) {
        *t = (UsageTable) {};
        _cleanup_(fclosep) FILE *f = fopen("/proc/self/mountinfo", "re");
        if (!f)
                return -errno;
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, f) > 0) {
                unsigned maj, min;
                char mp[4096], fstype[64] = "", source[4096] = "";
                /* id parent major:minor root mountpoint ... - fstype source options */
                if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min, mp) != 3)
                        continue;
                const char *sep = strstr(line, " - ");
                if (sep)
                        (void) sscanf(sep + 3, "%63s %4095s", fstype, source);
                unescape_octal(mp);
                unescape_octal(source);
                dev_t d = makedev(maj, min);
                if (maj == 0) {
                        /* btrfs (and other multi-device file systems) report an anonymous
                         * 0:N; the source names the device */
                        struct stat st;
                        if (source[0] != '/' || stat(source, &st) < 0 || !S_ISBLK(st.st_mode))
                                continue; /* virtual file systems */
                        d = st.st_rdev;
                }
                int r = usage_table_add_mount(t, d, mp);
                if (r >= 0 && streq(fstype, "btrfs"))
                        r = usage_table_add_btrfs(t, d, mp);
                if (r < 0) {
                        free(line);
                        return r;
                }
        }
        free(line);
        fclose(TAKE_PTR(f));

        f = fopen("/proc/swaps", "re");
        if (!f)
                return 0; /* no swap support compiled in */
        line = NULL;
        cap = 0;
        bool header = true;
        while (getline(&line, &cap, f) > 0) {
                if (header) {
                        header = false;
                        continue;
                }
                char fn[4096];
                if (sscanf(line, "%4095s", fn) != 1)
                        continue;
                unescape_octal(fn);
                struct stat st;
                if (stat(fn, &st) < 0 || !S_ISBLK(st.st_mode))
                        continue; /* swap files do not hold a device */
                dev_t *nd = realloc(t->swap_dev, (t->n_swaps + 1) * sizeof(dev_t));
                if (!nd) {
                        free(line);
                        return -ENOMEM;
                }
                t->swap_dev = nd;
                t->swap_dev[t->n_swaps++] = st.st_rdev;
        }
        free(line);
        return 0;
}

const char *usage_table_mountpoint(const UsageTable *t, dev_t d) {
        for (size_t i = 0; i < t->n_mounts; i++)
                if (t->mount_dev[i] == d)
                        return t->mount_point[i];
        return NULL;
}

bool usage_table_swap(const UsageTable *t, dev_t d) {
        for (size_t i = 0; i < t->n_swaps; i++)
                if (t->swap_dev[i] == d)
                        return true;
        return false;
}

char **block_holders(const char *name) {
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "/sys/class/block/%s/holders", name);
        char **l = calloc(1, sizeof(char *));
        if (!l)
                return NULL;
        DIR *dir = opendir(path);
        if (!dir)
                return l;
        struct dirent *de;
        while ((de = readdir(dir)))
                if (de->d_name[0] != '.' && strv_extend(&l, de->d_name) < 0) {
                        closedir(dir);
                        return strv_free(l);
                }
        closedir(dir);
        return l;
}

int blkpg_add_partition(int fd, const char *disk, unsigned partno, uint64_t start, uint64_t size, Error *err) {
        struct blkpg_partition p = {
                .start = (long long) start,
                .length = (long long) size,
                .pno = (int) partno,
        };
        struct blkpg_ioctl_arg a = {
                .op = BLKPG_ADD_PARTITION,
                .datalen = sizeof(p),
                .data = &p,
        };
        if (ioctl(fd, BLKPG, &a) < 0)
                return error_set(err, errno, "cannot tell the kernel about partition %u of '%s': %s",
                                 partno, disk, strerror(errno));
        return 0;
}

int blkpg_del_partition(int fd, const char *disk, unsigned partno, Error *err) {
        struct blkpg_partition p = { .pno = (int) partno };
        struct blkpg_ioctl_arg a = {
                .op = BLKPG_DEL_PARTITION,
                .datalen = sizeof(p),
                .data = &p,
        };
        if (ioctl(fd, BLKPG, &a) < 0)
                return error_set(err, errno, "cannot remove the kernel's partition %u of '%s': %s",
                                 partno, disk, strerror(errno));
        return 0;
}

/* pread into rbuf, or pwrite from wbuf (the other NULL), all len bytes at off: a short
 * transfer goes on, EINTR is retried, end of device is -EIO */
static int exact_at(int fd, void *rbuf, const void *wbuf, size_t len, uint64_t off) {
        size_t done = 0;
        while (done < len) {
                ssize_t n = rbuf ? pread(fd, (uint8_t *) rbuf + done, len - done, (off_t) (off + done))
                                 : pwrite(fd, (const uint8_t *) wbuf + done, len - done, (off_t) (off + done));
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        return -EIO;
                done += (size_t) n;
        }
        return 0;
}

int read_exact_at(int fd, void *buf, size_t len, uint64_t off) {
        return exact_at(fd, buf, NULL, len, off);
}

int write_exact_at(int fd, const void *buf, size_t len, uint64_t off) {
        return exact_at(fd, NULL, buf, len, off);
}

int zero_range(int fd, uint64_t off, uint64_t len) {
        static const uint8_t zeros[65536];
        while (len > 0) {
                size_t n = (size_t) MIN(len, (uint64_t) sizeof(zeros));
                int r = write_exact_at(fd, zeros, n, off);
                if (r < 0)
                        return r;
                off += n;
                len -= n;
        }
        return 0;
}

int fd_device_size(int fd, uint64_t *ret) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISREG(st.st_mode)) {
                *ret = (uint64_t) st.st_size;
                return 0;
        }
        uint64_t size;
        if (ioctl(fd, BLKGETSIZE64, &size) < 0)
                return -errno;
        *ret = size;
        return 0;
}

int gpt_read_header(int fd, unsigned lss, uint64_t lba, GptHeader *ret, uint8_t **ret_entries, Error *err) {
        uint64_t dev_size, off;
        int r = fd_device_size(fd, &dev_size);
        if (r < 0)
                return error_set(err, -r, "cannot get the size of the device: %s", strerror(-r));
        if (lss < 512 || lss > 65536 || __builtin_mul_overflow(lba, (uint64_t) lss, &off))
                return error_set(err, EINVAL, "GPT header at LBA %" PRIu64 " with %u-byte sectors is out of range",
                                 lba, lss);
        _cleanup_(freep) uint8_t *sector = malloc(lss);
        if (!sector)
                return error_set(err, ENOMEM, "out of memory");
        r = read_exact_at(fd, sector, lss, off);
        if (r < 0)
                return error_set(err, -r, "cannot read LBA %" PRIu64 ": %s", lba, strerror(-r));

        GptHeader h;
        r = gpt_header_decode(sector, lss, lba, dev_size / lss, &h, err);
        if (r < 0)
                return r;
        /* decoded: the array is at most GPT_ENTRIES_BYTES_MAX and inside the device */
        size_t len = (size_t) gpt_entries_bytes(&h);
        _cleanup_(freep) uint8_t *e = malloc(len);
        if (!e)
                return error_set(err, ENOMEM, "out of memory");
        r = read_exact_at(fd, e, len, h.entries_lba * lss);
        if (r < 0)
                return error_set(err, -r, "cannot read the GPT entries at LBA %" PRIu64 ": %s", h.entries_lba,
                                 strerror(-r));
        r = gpt_entries_check(&h, e, len, err);
        if (r < 0)
                return r;
        *ret = h;
        if (ret_entries)
                *ret_entries = TAKE_PTR(e);
        return 0;
}
