/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Inventory: libudev for the device list and hardware facts (sysattrs always, ID_*
 * properties and links only when udevd runs), libblkid for partition tables and
 * signatures (works without udevd and without kernel partition nodes), sysfs and /proc
 * for holders, mounts and swaps, the bcache superblock and the BlueStore label read
 * directly, FileStore OSDs from their data directories and journal headers
 * (agent-filestore.c). No subprocesses. */

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <fcntl.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <blkid/blkid.h>
#include <libudev.h>

#include "agent-internal.h"

static void content_init(InvContent *c) {
        *c = (InvContent) {};
        c->osd.id = -1;
        c->bcache.writeback_percent = -1;
        c->bcache.hit_ratio = -1;
}

static char *dup_attr(struct udev_device *d, const char *attr) {
        const char *v = udev_device_get_sysattr_value(d, attr);
        if (!v)
                return NULL;
        /* sysfs model/vendor strings are blank-padded */
        size_t n = strlen(v);
        while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\n'))
                n--;
        while (n > 0 && *v == ' ')
                v++, n--;
        return n > 0 ? strndup(v, n) : NULL;
}

static uint64_t attr_u64(struct udev_device *d, const char *attr, uint64_t def) {
        const char *v = udev_device_get_sysattr_value(d, attr);
        if (!v)
                return def;
        char *end;
        unsigned long long x = strtoull(v, &end, 10);
        return end == v ? def : x;
}

static int lookup_dup(blkid_probe pr, const char *name, char **ret) {
        const char *v = NULL;
        if (blkid_probe_lookup_value(pr, name, &v, NULL) < 0 || !v)
                return 0;
        *ret = strdup(v);
        return *ret ? 0 : -ENOMEM;
}

/* BlueStore's label, decoded by bluestore_label_decode() (src/ondisk): the osd uuid from
 * its text line alone when the rest is not valid (it still says "BlueStore, this OSD"),
 * role, id and cluster only from a label whose crc32c matches, as Ceph reads it. */
int bluestore_label_parse(const uint8_t *buf, size_t len, InvOsd *ret) {
        BluestoreLabel l;
        if (bluestore_label_decode(buf, len, &l) == 0)
                return 0;

        free(ret->osd_fsid);
        ret->osd_fsid = l.osd_uuid[0] ? strdup(l.osd_uuid) : NULL;
        free(ret->objectstore);
        ret->objectstore = strdup("bluestore");
        if (!l.valid)
                return 1;

        const char *role = l.description;
        if (streq(role, "main"))
                role = "block";
        else if (streq(role, "bluefs db"))
                role = "block.db";
        else if (streq(role, "bluefs wal"))
                role = "block.wal";
        free(ret->role);
        ret->role = strdup(role);
        if (l.whoami >= 0)
                ret->id = l.whoami;
        if (l.ceph_fsid[0]) {
                free(ret->cluster_fsid);
                ret->cluster_fsid = strdup(l.ceph_fsid);
        }
        ret->incomplete = streq(role, "block") && !l.ready;
        return 1;
}

/* An OSD of `ceph-volume lvm create` on an LVM physical volume (a disk, a partition,
 * /dev/bcacheN): its logical volume, a device-mapper holder of the PV, starts with the
 * BlueStore label (LV tags say the same, but reading them needs lvm). The first holder
 * whose label is an OSD's main device is the OSD on this device. */
static int dm_label_read(const char *dm, InvOsd *ret) {
        _cleanup_(freep) char *node = strprintf("/dev/%s", dm);
        if (!node)
                return -ENOMEM;
        _cleanup_(closep) int fd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
                return 0;
        uint8_t buf[4096];
        if (read_exact_at(fd, buf, sizeof(buf), 0) < 0)
                return 0;
        *ret = (InvOsd) { .id = -1 };
        return bluestore_label_parse(buf, sizeof(buf), ret);
}

/* The BlueStore label under a dm-crypt mapping of device-mapper device or partition `name`:
 * ceph-volume's dmcrypt puts LUKS on the OSD's LV (and on its DB/WAL partitions) and opens
 * it as a holder of that device; the label starts the mapping. `role` NULL: any role. */
static int crypt_osd_read(const char *name, const char *role, InvOsd *ret) {
        _cleanup_strv_free_ char **holders = block_holders(name);
        STRV_FOREACH(h, holders) {
                if (!startswith(*h, "dm-"))
                        continue;
                InvOsd o = { .id = -1 };
                if (dm_label_read(*h, &o) > 0 && o.role && (!role || streq(o.role, role)) &&
                    (o.id >= 0 || !streq(o.role, "block"))) {
                        o.encrypted = true;
                        inv_osd_done(ret);
                        *ret = o;
                        return 1;
                }
                inv_osd_done(&o);
        }
        return 0;
}

int lvm_osd_read(char * const *holders, InvOsd *ret) {
        STRV_FOREACH(h, holders) {
                if (!startswith(*h, "dm-"))
                        continue;
                InvOsd o = { .id = -1 };
                if (dm_label_read(*h, &o) > 0 && o.role && streq(o.role, "block") && o.id >= 0) {
                        inv_osd_done(ret);
                        *ret = o;
                        return 1;
                }
                inv_osd_done(&o);
                /* an encrypted OSD: the LV holds LUKS, the label is on its open mapping */
                if (crypt_osd_read(*h, "block", ret) > 0)
                        return 1;
        }
        return 0;
}

/* Signatures of the region [off, off+size) of fd (size 0: to the end). */
static int probe_content(int fd, uint64_t off, uint64_t size, const char *name, dev_t devnum,
                         const UsageTable *ut, bool probe_fs, InvContent *c) {
        int r;

        if (probe_fs) {
                blkid_probe pr;
                r = agent_blkid_probe(fd, off, size, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL,
                                      AGENT_BLKID_OFF, &pr);
                if (r < 0)
                        return r;
                r = blkid_do_safeprobe(pr);
                if (r == 0) {
                        lookup_dup(pr, "TYPE", &c->fstype);
                        lookup_dup(pr, "UUID", &c->uuid);
                        lookup_dup(pr, "LABEL", &c->label);
                } else if (r == -2)
                        c->fstype = strdup("ambivalent"); /* several signatures: needs a wipe */
                blkid_free_probe(pr);
        }

        if (c->fstype && streq(c->fstype, "bcache")) {
                BcacheSuper sb;
                if (bcache_super_read(fd, off, &sb) > 0) {
                        c->bcache.role = sb.role;
                        c->bcache.dev_uuid = strdup(sb.uuid);
                        c->bcache.set_uuid = sb.set_uuid[0] ? strdup(sb.set_uuid) : NULL;
                        if (name)
                                bcache_fill_sysfs(name, &c->bcache);
                }
        }
        if (c->fstype && streq(c->fstype, "ceph_bluestore")) {
                uint8_t buf[4096];
                if (read_exact_at(fd, buf, sizeof(buf), off) >= 0)
                        bluestore_label_parse(buf, sizeof(buf), &c->osd);
        }

        if (!c->fstype)
                filestore_probe_journal(fd, off, c);

        if (name) {
                const char *mp = usage_table_mountpoint(ut, devnum);
                if (mp)
                        c->mountpoint = strdup(mp);
                c->swap_active = usage_table_swap(ut, devnum);
                c->holders = block_holders(name);
                filestore_probe_data(c);
        }
        if (c->fstype && streq(c->fstype, "LVM2_member") && c->osd.id < 0)
                lvm_osd_read(c->holders, &c->osd);
        /* an encrypted OSD's DB or WAL partition (or a raw encrypted data device) */
        if (name && c->fstype && streq(c->fstype, "crypto_LUKS") && c->osd.id < 0 && !c->osd.role)
                crypt_osd_read(name, NULL, &c->osd);
        if (!c->holders)
                c->holders = calloc(1, sizeof(char *));
        return 0;
}

static dev_t sysfs_devnum(const char *name) {
        _cleanup_(freep) char *s = NULL;
        unsigned maj, min;
        if (sysfs_read_string(name, "dev", &s) < 0 || sscanf(s, "%u:%u", &maj, &min) != 2)
                return 0;
        return makedev(maj, min);
}

/* Start reading the first and the last 512 KiB of the region, where partition tables,
 * superblocks and their backups live — ZFS's four 256 KiB labels (two at each end) are
 * what libblkid reads most: measured, its zfs_member prober is over half of an inventory. */
static void prefetch(int fd, uint64_t off, uint64_t size) {
        uint64_t head = MIN(size, (uint64_t) 512 << 10), tail = MIN(size, (uint64_t) 512 << 10);
        (void) readahead(fd, (off64_t) off, head);
        if (size > head)
                (void) readahead(fd, (off64_t) (off + size - tail), tail);
}

static int probe_partitions(int fd, InvDevice *d, blkid_probe pr, const UsageTable *ut) {
        blkid_partlist pl = blkid_probe_get_partitions(pr);
        if (!pl)
                return 0;
        int n = blkid_partlist_numof_partitions(pl);
        if (n <= 0)
                return 0;

        _cleanup_strv_free_ char **knames = NULL;
        _cleanup_(freep) unsigned *knums = NULL;
        size_t kn = 0;
        if (block_list_partitions(d->name, &knames, &knums, &kn) < 0)
                kn = 0;

        d->partitions = calloc((size_t) n, sizeof(InvPartition));
        if (!d->partitions)
                return -ENOMEM;
        /* queue all partitions' reads at once, before probing any */
        for (int i = 0; i < n; i++) {
                blkid_partition par = blkid_partlist_get_partition(pl, i);
                prefetch(fd, (uint64_t) blkid_partition_get_start(par) * 512,
                         (uint64_t) blkid_partition_get_size(par) * 512);
        }
        for (int i = 0; i < n; i++) {
                blkid_partition par = blkid_partlist_get_partition(pl, i);
                InvPartition *p = &d->partitions[d->n_partitions++];
                content_init(&p->content);
                p->number = (unsigned) blkid_partition_get_partno(par);
                p->start = (uint64_t) blkid_partition_get_start(par) * 512;
                p->size = (uint64_t) blkid_partition_get_size(par) * 512;
                const char *v;
                if ((v = blkid_partition_get_uuid(par)))
                        p->partuuid = strdup(v);
                if ((v = blkid_partition_get_name(par)))
                        p->name = strdup(v);
                if ((v = blkid_partition_get_type_string(par))) {
                        p->type_guid = strdup(v);
                        for (char *q = p->type_guid; q && *q; q++)
                                *q = (char) (*q >= 'A' && *q <= 'F' ? *q - 'A' + 'a' : *q);
                }

                const char *kname = NULL;
                for (size_t k = 0; k < kn; k++)
                        if (knums[k] == p->number)
                                kname = knames[k];
                if (kname)
                        p->node = strprintf("/dev/%s", kname);
                /* Through the partition's own node when the kernel has one, as `blkid -p` reads
                 * it: a partition held open (bcache holds its cache partition for good) keeps the
                 * whole disk open too, and the disk's page cache then keeps what was read before
                 * a tool wrote the superblock through the partition node — measured in the vm
                 * tier: 3 of 4 bcache cache partitions read as blank through the disk. */
                _cleanup_(closep) int pfd = p->node ? open(p->node, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
                int r = probe_content(pfd >= 0 ? pfd : fd, pfd >= 0 ? 0 : p->start, p->size, kname,
                                      kname ? sysfs_devnum(kname) : 0, ut, true, &p->content);
                if (r < 0)
                        return r;
                filestore_hint_data(p);
        }
        return 0;
}

/* The allow-list expanded once per inventory: the real paths its entries (globs, symlinks
 * such as /dev/disk/by-id/...) point to now. Matching a device is then fnmatch() on its
 * path and links plus a lookup here — no file system access per device. */
static char **allow_expand(AgentState *s) {
        char **l = calloc(1, sizeof(char *));
        STRV_FOREACH(e, s->allow) {
                glob_t g = {};
                if (glob(*e, GLOB_NOSORT | GLOB_NOESCAPE, NULL, &g) == 0)
                        for (size_t i = 0; l && i < g.gl_pathc; i++) {
                                char r[PATH_MAX];
                                if (realpath(g.gl_pathv[i], r) && !strv_contains(l, r) && strv_extend(&l, r) < 0)
                                        l = strv_free(l);
                        }
                globfree(&g);
        }
        return l;
}

static bool allow_match(AgentState *s, char * const *real, const char *path, char * const *links) {
        STRV_FOREACH(e, s->allow) {
                if (fnmatch(*e, path, FNM_PATHNAME) == 0)
                        return true;
                STRV_FOREACH(k, links)
                        if (fnmatch(*e, *k, FNM_PATHNAME) == 0)
                                return true;
        }
        return strv_contains(real, path);
}

/* bcacheN whose backing device (a "slave") is allowed: listed, not allowed itself — an
 * OSD on bcache is found there (docs/inventory.md). */
static bool bcache_of_allowed(AgentState *s, char * const *allow_real, const char *name) {
        if (!startswith(name, "bcache"))
                return false;
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "/sys/class/block/%s/slaves", name);
        DIR *dir = opendir(path);
        if (!dir)
                return false;
        bool found = false;
        struct dirent *de;
        while (!found && (de = readdir(dir))) {
                if (de->d_name[0] == '.')
                        continue;
                char node[PATH_MAX];
                snprintf(node, sizeof(node), "/dev/%s", de->d_name);
                found = allow_match(s, allow_real, node, NULL) || agent_device_allowed(s, node);
        }
        closedir(dir);
        return found;
}

/* What a device's identity (inventory_device_identity()) is made of: model, serial, WWN,
 * a loop device's backing file. The inventory and the act-time check read them here. */
static void probe_identity_facts(struct udev_device *ud, InvDevice *d) {
        const char *name = udev_device_get_sysname(ud), *v;
        d->model = dup_attr(ud, "device/model");
        if (!d->model && (v = udev_device_get_property_value(ud, "ID_MODEL")))
                d->model = strdup(v);
        if ((v = udev_device_get_property_value(ud, "ID_SERIAL_SHORT")) ||
            (v = udev_device_get_property_value(ud, "ID_SERIAL")))
                d->serial = strdup(v);
        if ((v = udev_device_get_property_value(ud, "ID_WWN")))
                d->wwn = strdup(v);
        if (name && startswith(name, "loop"))
                d->backing_file = dup_attr(ud, "loop/backing_file");
}

int agent_device_identity(const char *disk_name, char **ret) {
        struct udev *u = udev_new();
        if (!u)
                return -ENOMEM;
        struct udev_device *ud = udev_device_new_from_subsystem_sysname(u, "block", disk_name);
        if (!ud) {
                int r = errno > 0 ? -errno : -ENODEV;
                udev_unref(u);
                return r;
        }
        InvDevice d = {};
        probe_identity_facts(ud, &d);
        udev_device_unref(ud);
        udev_unref(u);
        char *id = inventory_device_identity(&d);
        bool some = (d.wwn && d.wwn[0]) || (d.serial && d.serial[0]) || (d.backing_file && d.backing_file[0]);
        free(d.model);
        free(d.serial);
        free(d.wwn);
        free(d.backing_file);
        if (some && !id)
                return -ENOMEM;
        *ret = id;
        return 0;
}

static int probe_disk(AgentState *s, char * const *allow_real, struct udev_device *ud, const UsageTable *ut, bool all,
                      InvDevice *d, bool *ret_include) {
        const char *name = udev_device_get_sysname(ud);
        const char *node = udev_device_get_devnode(ud);
        int r;

        *ret_include = false;
        uint64_t sectors = attr_u64(ud, "size", 0);
        if (sectors == 0)
                return 0; /* unattached loops, empty card readers */

        _cleanup_strv_free_ char **links = NULL;
        const char *devlinks = udev_device_get_property_value(ud, "DEVLINKS");
        links = devlinks ? strv_split(devlinks, " ") : calloc(1, sizeof(char *));
        if (!links)
                return -ENOMEM;

        _cleanup_(freep) char *path = node ? strdup(node) : strprintf("/dev/%s", name);
        if (!path)
                return -ENOMEM;
        bool allowed = allow_match(s, allow_real, path, links);
        if (!allowed && !all && !bcache_of_allowed(s, allow_real, name))
                return 0;

        *d = (InvDevice) {};
        content_init(&d->content);
        d->allowed = allowed;
        d->name = strdup(name);
        d->path = TAKE_PTR(path);
        d->links = TAKE_PTR(links);
        d->size = sectors * 512;
        d->logical_sector_size = (unsigned) attr_u64(ud, "queue/logical_block_size", 512);
        d->physical_sector_size = (unsigned) attr_u64(ud, "queue/physical_block_size", d->logical_sector_size);
        d->rotational = attr_u64(ud, "queue/rotational", 1) != 0;
        d->readonly = attr_u64(ud, "ro", 0) != 0;
        d->removable = attr_u64(ud, "removable", 0) != 0;
        probe_identity_facts(ud, d);
        d->vendor = dup_attr(ud, "device/vendor");
        if (!d->name)
                return -ENOMEM;
        *ret_include = true;

        _cleanup_(closep) int fd = open(d->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
                return 0; /* keep the sysfs facts; content unknown */
        /* libblkid reads dozens of small scattered blocks, and the kernel drops a block
         * device's page cache at its last close: without this, every one of them is a
         * separate synchronous I/O. Two large reads ahead of it cover the places where
         * partition tables and signatures live (start and end of the device). */
        prefetch(fd, 0, d->size);

        blkid_probe pr;
        r = agent_blkid_probe(fd, 0, 0, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL,
                              BLKID_PARTS_ENTRY_DETAILS, &pr);
        if (r == -EIO)
                return 0; /* libblkid does not take it: content unknown, as when it cannot be opened */
        if (r < 0)
                return r;
        r = blkid_do_safeprobe(pr);
        if (r == 0) {
                lookup_dup(pr, "PTTYPE", &d->pttype);
                lookup_dup(pr, "PTUUID", &d->ptuuid);
                lookup_dup(pr, "TYPE", &d->content.fstype);
                lookup_dup(pr, "UUID", &d->content.uuid);
                lookup_dup(pr, "LABEL", &d->content.label);
        } else if (r == -2)
                d->content.fstype = strdup("ambivalent");

        if (d->pttype) {
                r = probe_partitions(fd, d, pr, ut);
                if (r < 0) {
                        blkid_free_probe(pr);
                        return r;
                }
        }
        blkid_free_probe(pr);

        if (d->pttype && streq(d->pttype, "gpt")) {
                GptHeader h;
                if (gpt_read_header(fd, d->logical_sector_size, 1, &h, NULL, NULL) >= 0) {
                        d->first_usable = h.first_usable * d->logical_sector_size;
                        d->last_usable = (h.last_usable + 1) * d->logical_sector_size - 1;
                }
        }

        /* the whole-device signature was probed above: only read bcache/BlueStore and usage */
        return probe_content(fd, 0, 0, d->name, udev_device_get_devnum(ud), ut, false, &d->content);
}

static int device_cmp(const void *a, const void *b) {
        return strverscmp(((const InvDevice *) a)->name, ((const InvDevice *) b)->name);
}

int agent_inventory(AgentState *s, bool all, Inventory **ret, Error *err) {
        _cleanup_(inventory_freep) Inventory *inv = calloc(1, sizeof(Inventory));
        _cleanup_(usage_table_done) UsageTable ut = {};
        struct udev *u = NULL;
        struct udev_enumerate *e = NULL;
        int r;

        if (!inv)
                return error_set(err, ENOMEM, "out of memory");
        struct utsname un;
        inv->host = strdup(agent_host(s));
        inv->hostname = strdup(uname(&un) >= 0 ? un.nodename : "");
        inv->agent_version = strdup(CEPHPROV_VERSION);
        inv->bcache_available = access("/sys/fs/bcache", F_OK) >= 0;

        _cleanup_strv_free_ char **allow_real = allow_expand(s);
        if (!allow_real)
                return error_set(err, ENOMEM, "out of memory");
        r = usage_table_load(&ut);
        if (r < 0)
                return error_set(err, r, "cannot read mounts and swaps on '%s': %s", agent_host(s), strerror(-r));

        u = udev_new();
        if (!u)
                return error_set(err, ENOMEM, "cannot initialise libudev");
        e = udev_enumerate_new(u);
        if (!e) {
                udev_unref(u);
                return error_set(err, ENOMEM, "cannot initialise libudev");
        }
        udev_enumerate_add_match_subsystem(e, "block");
        udev_enumerate_add_match_property(e, "DEVTYPE", "disk");
        if (!all) {
                /* only the candidates: libudev then skips every other device without
                 * reading it (the whole point on hosts with hundreds of disks) */
                DIR *dir = opendir("/sys/class/block");
                struct dirent *de;
                bool any = false;
                while (dir && (de = readdir(dir))) {
                        if (de->d_name[0] == '.')
                                continue;
                        char node[PATH_MAX];
                        snprintf(node, sizeof(node), "/dev/%s", de->d_name);
                        if (allow_match(s, allow_real, node, NULL) || bcache_of_allowed(s, allow_real, de->d_name)) {
                                udev_enumerate_add_match_sysname(e, de->d_name);
                                any = true;
                        }
                }
                if (dir)
                        closedir(dir);
                if (!any)
                        udev_enumerate_add_match_sysname(e, "/"); /* nothing is allowed: match nothing */
        }
        r = udev_enumerate_scan_devices(e);
        if (r < 0) {
                udev_enumerate_unref(e);
                udev_unref(u);
                return error_set(err, r, "cannot list block devices on '%s': %s", agent_host(s), strerror(-r));
        }

        size_t cap = 0;
        struct udev_list_entry *le;
        r = 0;
        udev_list_entry_foreach(le, udev_enumerate_get_list_entry(e)) {
                struct udev_device *ud = udev_device_new_from_syspath(u, udev_list_entry_get_name(le));
                if (!ud)
                        continue;
                if (inv->n_devices == cap) {
                        size_t ncap = cap ? cap * 2 : 16;
                        InvDevice *nd = realloc(inv->devices, ncap * sizeof(InvDevice));
                        if (!nd) {
                                udev_device_unref(ud);
                                r = -ENOMEM;
                                break;
                        }
                        inv->devices = nd;
                        cap = ncap;
                }
                bool include = false;
                InvDevice *d = &inv->devices[inv->n_devices];
                r = probe_disk(s, allow_real, ud, &ut, all, d, &include);
                if (include) {
                        inv->n_devices++;
                        /* initialized = udevd has processed it (its database entry exists) */
                        if (udev_device_get_is_initialized(ud))
                                inv->udev_available = true;
                }
                udev_device_unref(ud);
                if (r < 0)
                        break;
        }
        udev_enumerate_unref(e);
        udev_unref(u);
        if (r < 0)
                return error_set(err, r, "cannot probe devices on '%s': %s", agent_host(s), strerror(-r));

        if (inv->n_devices > 1)
                qsort(inv->devices, inv->n_devices, sizeof(InvDevice), device_cmp);
        filestore_link_journals(inv);
        if (!inv->host || !inv->hostname || !inv->agent_version)
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(inv);
        return 0;
}

int agent_op_inventory(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err) {
        bool all = false;
        int r = json_get_bool(args, "all", false, &all, "inventory", err);
        if (r < 0 && r != -ENOENT)
                return r;

        _cleanup_(inventory_freep) Inventory *inv = NULL;
        r = agent_inventory(s, all, &inv, err);
        if (r < 0)
                return r;
        r = inventory_to_json(inv, ret);
        if (r < 0)
                return error_set(err, r, "cannot encode the inventory of '%s': %s", agent_host(s), strerror(-r));
        return 0;
}
