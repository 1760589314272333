/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GPT partitioning with libparted: a fresh GPT on a blank device, one partition at an
 * exact offset and size with a name and a type GUID. The kernel learns about the new
 * partition through BLKPG_ADD_PARTITION only: never a re-read of the whole table (on a
 * kernel without a partition parser, or with partitions in use, a re-read makes every
 * partition vanish or fails). Existing partitions are never moved or changed. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <blkid/blkid.h>
#include <dlfcn.h>
#include <parted/parted.h>

#include "agent-internal.h"
#include "basic/size.h"
#include "ondisk/part-types.h"

/* ---- libparted glue ---- */

/* libparted is loaded on first use, not linked: Debian's libparted runs
 * `sh -c "dmidecode -s system-manufacturer"` from its library constructor (ped_disk_gpt_init,
 * looking for Apple hardware), so every process linking it — the controller, an agent that
 * only inventories — would fork a shell and dmidecode at start (~10 ms), and that
 * constructor also reads past a heap buffer (AddressSanitizer stops every sanitized binary
 * linking it before main()). Only the ops that partition pay for it now. */
static struct {
        bool loaded;
        __typeof__(ped_constraint_destroy) *constraint_destroy;
        __typeof__(ped_constraint_exact) *constraint_exact;
        __typeof__(ped_device_destroy) *device_destroy;
        __typeof__(ped_device_get) *device_get;
        __typeof__(ped_disk_add_partition) *disk_add_partition;
        __typeof__(ped_disk_commit_to_dev) *disk_commit_to_dev;
        __typeof__(ped_disk_delete_partition) *disk_delete_partition;
        __typeof__(ped_disk_get_partition) *disk_get_partition;
        __typeof__(ped_disk_destroy) *disk_destroy;
        __typeof__(ped_disk_new) *disk_new;
        __typeof__(ped_disk_new_fresh) *disk_new_fresh;
        __typeof__(ped_disk_type_get) *disk_type_get;
        __typeof__(ped_exception_set_handler) *exception_set_handler;
        __typeof__(ped_geometry_destroy) *geometry_destroy;
        __typeof__(ped_geometry_new) *geometry_new;
        __typeof__(ped_partition_destroy) *partition_destroy;
        __typeof__(ped_partition_new) *partition_new;
        __typeof__(ped_partition_set_name) *partition_set_name;
        /* libparted >= 3.6 only: sets a GPT type GUID itself (NULL before) */
        int (*partition_set_type_uuid)(PedPartition *part, const uint8_t *uuid);
} P;

/* libparted reports problems through an exception handler (its default one prints and
 * may ask questions): keep the last message so the error names it, and never choose
 * "Fix" — a table that needs fixing is refused, not rewritten behind the operator's back. */
static char ped_last_message[512];

static PedExceptionOption ped_handler(PedException *ex) {
        snprintf(ped_last_message, sizeof(ped_last_message), "%s", ex->message ? ex->message : "?");
        if (ex->type == PED_EXCEPTION_INFORMATION && (ex->options & PED_EXCEPTION_OK))
                return PED_EXCEPTION_OK;
        if (ex->options & PED_EXCEPTION_CANCEL)
                return PED_EXCEPTION_CANCEL;
        return PED_EXCEPTION_UNHANDLED;
}

static int ped_setup(AgentState *s, Error *err) {
        ped_last_message[0] = 0;
        if (P.loaded)
                return 0;

        void *h = dlopen(LIBPARTED_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (!h)
                return error_set(err, ENOENT, "cannot load libparted on '%s': %s", agent_host(s), dlerror());
#define LOAD(field, sym)                                                                         \
        do {                                                                                     \
                *(void **) &P.field = dlsym(h, sym);                                             \
                if (!P.field)                                                                    \
                        return error_set(err, ENOENT, "libparted on '%s' lacks %s", agent_host(s), sym); \
        } while (0)
        LOAD(constraint_destroy, "ped_constraint_destroy");
        LOAD(constraint_exact, "ped_constraint_exact");
        LOAD(device_destroy, "ped_device_destroy");
        LOAD(device_get, "ped_device_get");
        LOAD(disk_add_partition, "ped_disk_add_partition");
        LOAD(disk_commit_to_dev, "ped_disk_commit_to_dev");
        LOAD(disk_delete_partition, "ped_disk_delete_partition");
        LOAD(disk_get_partition, "ped_disk_get_partition");
        LOAD(disk_destroy, "ped_disk_destroy");
        LOAD(disk_new, "ped_disk_new");
        LOAD(disk_new_fresh, "ped_disk_new_fresh");
        LOAD(disk_type_get, "ped_disk_type_get");
        LOAD(exception_set_handler, "ped_exception_set_handler");
        LOAD(geometry_destroy, "ped_geometry_destroy");
        LOAD(geometry_new, "ped_geometry_new");
        LOAD(partition_destroy, "ped_partition_destroy");
        LOAD(partition_new, "ped_partition_new");
        LOAD(partition_set_name, "ped_partition_set_name");
#undef LOAD
        *(void **) &P.partition_set_type_uuid = dlsym(h, "ped_partition_set_type_uuid");
        P.exception_set_handler(ped_handler);
        P.loaded = true; /* the handle stays open for the life of the process */
        return 0;
}

int agent_libparted_load(AgentState *s, Error *err) {
        return ped_setup(s, err);
}

static const char *ped_message(void) {
        return ped_last_message[0] ? ped_last_message : "libparted gave no reason";
}

static void ped_device_destroyp(PedDevice **d) {
        if (*d)
                P.device_destroy(*d); /* drops libparted's cache: the next call re-reads the size */
}

static void ped_disk_destroyp(PedDisk **d) {
        if (*d)
                P.disk_destroy(*d);
}

/* libparted's view of the partitioned disk `d`: its device and its table as on disk. */
static int ped_open(AgentState *s, const BlockDev *d, PedDevice **ret_dev, PedDisk **ret_disk, Error *err) {
        int r = ped_setup(s, err);
        if (r < 0)
                return r;
        _cleanup_(ped_device_destroyp) PedDevice *dev = P.device_get(d->node);
        if (!dev)
                return error_set(err, EIO, "libparted cannot open '%s': %s", d->path, ped_message());
        _cleanup_(ped_disk_destroyp) PedDisk *disk = P.disk_new(dev);
        if (!disk)
                return error_set(err, EIO, "libparted cannot read the GPT of '%s': %s", d->path, ped_message());
        *ret_disk = TAKE_PTR(disk);
        *ret_dev = TAKE_PTR(dev);
        return 0;
}

/* ---- reading and patching the GPT directly ---- */

static void put_le32(uint8_t *p, uint32_t v) {
        for (int i = 0; i < 4; i++)
                p[i] = (uint8_t) (v >> (8 * i));
}

/* The primary table: header + all entries (malloc'd, gpt_entries_bytes(h) ≤ 4 MiB), both
 * checked (gpt_read_header). */
static int gpt_load(int fd, unsigned lss, GptHeader *h, uint8_t **ret_entries, Error *err) {
        return gpt_read_header(fd, lss, 1, h, ret_entries, err);
}

/* Set the type GUID of entry `idx` in the table whose header is at `lba`, then fix the
 * entry-array CRC (header offset 88) and the header CRC (offset 16, over header_size
 * bytes with the field zeroed). `expect_first` guards against patching the wrong entry. */
static int gpt_patch_one(int fd, unsigned lss, uint64_t lba, unsigned idx, const uint8_t type[16],
                         uint64_t expect_first, Error *err) {
        GptHeader h;
        _cleanup_(freep) uint8_t *e = NULL;
        int r = gpt_read_header(fd, lss, lba, &h, &e, err);
        if (r < 0)
                return r;
        if (idx >= h.n_entries)
                return error_set(err, ERANGE, "the GPT at LBA %" PRIu64 " has only %" PRIu32 " entries", lba,
                                 h.n_entries);
        size_t len = (size_t) gpt_entries_bytes(&h);
        _cleanup_(freep) uint8_t *hdr = malloc(lss);
        if (!hdr)
                return error_set(err, ENOMEM, "out of memory");
        if ((r = read_exact_at(fd, hdr, lss, lba * lss)) < 0)
                return error_set(err, r, "cannot read LBA %" PRIu64 ": %s", lba, strerror(-r));
        uint8_t *ent = e + (size_t) idx * h.entry_size;
        GptEntry cur;
        gpt_entry_decode(ent, &cur);
        if (cur.first_lba != expect_first)
                return error_set(err, ESTALE, "entry %u of the GPT at LBA %" PRIu64 " starts at %" PRIu64
                                 ", not %" PRIu64, idx + 1, lba, cur.first_lba, expect_first);
        memcpy(ent, type, 16);
        put_le32(hdr + 88, crc32_ieee(0, e, len));
        put_le32(hdr + 16, 0);
        put_le32(hdr + 16, crc32_ieee(0, hdr, h.header_size));
        if ((r = write_exact_at(fd, e, len, h.entries_lba * lss)) < 0 ||
            (r = write_exact_at(fd, hdr, lss, lba * lss)) < 0)
                return error_set(err, r, "cannot write the GPT at LBA %" PRIu64 ": %s", lba, strerror(-r));
        return 0;
}

/* libparted 3.5 has no API for a partition's type GUID (3.6 added
 * ped_partition_set_type_uuid(); its flags map only to a few fixed GUIDs — ESP, BIOS boot,
 * RAID, LVM, swap, home — none of them Ceph's or bcache's). So after
 * P.disk_commit_to_dev() has written the table, the type GUID of the new entry is set
 * in both the primary and the backup table, with the entry-array and header CRC32s
 * recomputed — the same bytes sgdisk --typecode writes. Primary first: a crash between
 * the two leaves two valid tables that differ only in this type, and the re-run repairs
 * it (see agent_op_create_partition). */
static int gpt_set_type(int fd, const char *node, unsigned lss, unsigned partno, const uint8_t type[16],
                        uint64_t first_lba, Error *err) {
        GptHeader h;
        Error e = {};
        int r = gpt_read_header(fd, lss, 1, &h, NULL, &e);
        if (r >= 0)
                r = gpt_patch_one(fd, lss, 1, partno - 1, type, first_lba, &e);
        if (r >= 0)
                r = gpt_patch_one(fd, lss, h.alternate_lba, partno - 1, type, first_lba, &e);
        if (r >= 0 && fsync(fd) < 0)
                r = error_set(&e, errno, "fsync: %s", strerror(errno));
        if (r < 0)
                return error_set(err, r, "cannot set the type of partition %u on '%s': %s", partno, node,
                                 e.message);
        return 0;
}

/* ---- create-gpt ---- */

/* Every signature libblkid knows on the device (partition tables included), joined. */
static int device_signatures(int fd, char **ret) {
        blkid_probe pr;
        int r = agent_blkid_probe(fd, 0, 0, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_BADCSUM,
                                  BLKID_PARTS_MAGIC, &pr);
        if (r < 0)
                return r;

        _cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
        while (l && blkid_do_probe(pr) == 0) {
                const char *t = NULL;
                if (blkid_probe_lookup_value(pr, "TYPE", &t, NULL) < 0 &&
                    blkid_probe_lookup_value(pr, "PTTYPE", &t, NULL) < 0)
                        t = "unknown";
                if (!strv_contains(l, t) && strv_extend(&l, t) < 0)
                        break;
        }
        blkid_free_probe(pr);
        if (!l)
                return -ENOMEM;
        *ret = strv_join(l, ", ");
        return *ret ? 0 : -ENOMEM;
}

static int whole_device_arg(AgentState *s, json_object *args, const char *op, BlockDev *ret, Error *err) {
        const char *path;
        int r = json_get_string(args, "device", true, &path, op, err);
        if (r < 0)
                return r;
        if (!agent_device_allowed(s, path))
                return error_set(err, EPERM, "%s: '%s' on '%s' is not in the allow-list", op, path, agent_host(s));
        r = block_dev_resolve(path, ret, err);
        if (r < 0)
                return r;
        if (ret->is_partition)
                return error_set(err, EINVAL, "%s: '%s' is a partition, not a whole device", op, path);
        return 0;
}

/* libparted opens the device itself, by its node: that node must still be the claimed
 * device (the claim is held across libparted's write). */
static int node_is_claimed(const BlockDev *d, const BlockClaim *c, Error *err) {
        struct stat a, b;
        if (stat(d->node, &a) < 0 || fstat(c->fd, &b) < 0)
                return error_set(err, errno, "cannot stat '%s': %m", d->path);
        if (!S_ISBLK(a.st_mode) || a.st_rdev != b.st_rdev)
                return error_set(err, ESTALE, "'%s' is no longer the device that was checked", d->node);
        return 0;
}

int agent_op_create_gpt(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err) {
        _cleanup_(block_dev_done) BlockDev d = {};
        _cleanup_(block_claim_done) BlockClaim c = { .fd = -1, .excl_fd = -1 };
        DevExpect e;
        int r = whole_device_arg(s, args, "create-gpt", &d, err);
        if (r < 0)
                return r;
        if ((r = dev_expect_parse(args, "expect", "create-gpt", &e, err)) < 0)
                return r;
        /* Claimed (O_EXCL, flock, OFD lock) until libparted's write is done. Partitions in
         * use are no reason to refuse a device that already has its GPT (a no-op); one
         * without a table has none, the kernel's stale ones are refused below. */
        r = block_claim(&d,
                        &(ClaimOptions) { .what = "create a GPT on", .read_only = s->dry_run, .expect = &e,
                                          .partitions_in_use_ok = true, .allow_osd_id = { -1, -1 } },
                        &c, err);
        if (r < 0)
                return r;

        _cleanup_(freep) char *sigs = NULL;
        r = device_signatures(c.fd, &sigs);
        if (r < 0)
                return error_set(err, r, "cannot probe '%s': %s", d.path, strerror(-r));
        json_object *o = json_object_new_object();
        if (!o)
                return error_set(err, ENOMEM, "out of memory");
        /* an existing GPT (and only that: blkid also reports its protective MBR as "PMBR") */
        if (streq(sigs, "gpt") || streq(sigs, "gpt, PMBR") || streq(sigs, "PMBR, gpt")) {
                json_add_bool(o, "created", false);
                *ret = o;
                return 0;
        }
        if (sigs[0]) {
                json_object_put(o);
                return error_set(err, EEXIST, "refusing to create a GPT on '%s': it carries %s (wipe it first)",
                                 d.path, sigs);
        }
        _cleanup_strv_free_ char **kn = NULL;
        _cleanup_(freep) unsigned *knum = NULL;
        size_t nk = 0;
        if (block_list_partitions(d.name, &kn, &knum, &nk) >= 0 && nk > 0) {
                json_object_put(o);
                return error_set(err, EBUSY,
                                 "refusing to create a GPT on '%s': it has no partition table but the kernel still has its partition '/dev/%s'",
                                 d.path, kn[0]);
        }
        json_add_bool(o, "created", true);
        if (s->dry_run) {
                json_add_bool(o, "dry_run", true);
                *ret = o;
                return 0;
        }
        r = node_is_claimed(&d, &c, err);
        if (r < 0) {
                json_object_put(o);
                return r;
        }

        r = ped_setup(s, err);
        if (r < 0) {
                json_object_put(o);
                return r;
        }
        _cleanup_(ped_device_destroyp) PedDevice *dev = P.device_get(d.node);
        PedDiskType *gpt = P.disk_type_get("gpt");
        _cleanup_(ped_disk_destroyp) PedDisk *disk = dev && gpt ? P.disk_new_fresh(dev, gpt) : NULL;
        if (!disk || !P.disk_commit_to_dev(disk)) {
                json_object_put(o);
                return error_set(err, EIO, "cannot write a GPT to '%s': %s", d.path, ped_message());
        }
        *ret = o;
        return 0;
}

/* ---- create-partition ---- */

static void sleep_ms(unsigned ms) {
        struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* udev's events for the disk handled first. When a write to a disk's table (the previous
 * op's) is closed, udev's watch re-reads the table (BLKRRPART): its partitions' nodes go and
 * come back, and an op that starts meanwhile finds its partition gone (seen on the uml guest,
 * whose SSD had no partition in use to stop the re-read: "cannot access '/dev/ubdb5'"). No
 * udevadm (no udev): nothing to wait for. */
static void udev_settle(AgentState *s) {
        char *argv[] = { (char *) "udevadm", (char *) "settle", (char *) "--timeout=10", NULL };
        _cleanup_(run_result_done) RunResult rr = {};
        Error ignored = {};
        (void) agent_spawn(s, argv, NULL, NULL, 15, &rr, &ignored);
}

/* Make sure the kernel has partition `partno` exactly at start/size; add it with BLKPG if
 * it has none; return its node. */
static int kernel_partition_ensure(int fd, const BlockDev *d, unsigned partno, uint64_t start, uint64_t size,
                                   char **ret_node, Error *err) {
        _cleanup_(freep) char *kname = block_partition_name(d->name, partno);
        if (kname) {
                uint64_t kstart = 0, ksize = 0;
                sysfs_read_u64(kname, "start", &kstart);
                sysfs_read_u64(kname, "size", &ksize);
                if (kstart * 512 != start || ksize * 512 != size)
                        return error_set(err, EBUSY,
                                         "the kernel's partition '%s' (start %" PRIu64 ", size %" PRIu64
                                         ") differs from partition %u of '%s' on disk: refusing to guess",
                                         kname, kstart * 512, ksize * 512, partno, d->path);
        } else {
                int r = blkpg_add_partition(fd, d->path, partno, start, size, err);
                if (r < 0)
                        return r;
                for (int i = 0; i < 40 && !kname; i++) {
                        kname = block_partition_name(d->name, partno);
                        if (!kname)
                                sleep_ms(25);
                }
                if (!kname)
                        return error_set(err, ENODEV, "the kernel did not list partition %u of '%s'", partno, d->path);
        }
        /* devtmpfs creates the node; give it a moment */
        _cleanup_(freep) char *node = strprintf("/dev/%s", kname);
        if (!node)
                return error_set(err, ENOMEM, "out of memory");
        for (int i = 0; i < 80 && access(node, F_OK) < 0; i++)
                sleep_ms(25);
        *ret_node = TAKE_PTR(node);
        return 0;
}

static int result_partition(const char *partuuid, const char *node, bool created, bool repaired, json_object **ret,
                            Error *err) {
        json_object *o = json_object_new_object();
        if (!o)
                return error_set(err, ENOMEM, "out of memory");
        json_add_bool(o, "created", created);
        if (repaired)
                json_add_bool(o, "repaired", true);
        json_add_string(o, "partuuid", partuuid);
        json_add_string(o, "node", node);
        *ret = o;
        return 0;
}

int agent_op_create_partition(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err) {
        _cleanup_(block_dev_done) BlockDev d = {};
        uint64_t number, offset, size;
        const char *name, *type_str;
        uint8_t type[16], linux_data[16];
        int r;

        if ((r = json_get_u64(args, "number", true, &number, "create-partition", err)) < 0 ||
            (r = json_get_u64(args, "offset", true, &offset, "create-partition", err)) < 0 ||
            (r = json_get_u64(args, "size", true, &size, "create-partition", err)) < 0 ||
            (r = json_get_string(args, "name", true, &name, "create-partition", err)) < 0 ||
            (r = json_get_string(args, "type_guid", true, &type_str, "create-partition", err)) < 0)
                return r;
        if (guid_from_string(type_str, type) < 0)
                return error_set(err, EINVAL, "create-partition: type_guid '%s' is not a GUID", type_str);
        guid_from_string(LINUX_DATA_GUID, linux_data);
        if (number < 1 || number > 128)
                return error_set(err, EINVAL, "create-partition: number %" PRIu64 " is not in 1..128", number);
        if (strlen(name) > 36)
                return error_set(err, EINVAL, "create-partition: name '%s' is longer than GPT's 36 characters", name);
        r = whole_device_arg(s, args, "create-partition", &d, err);
        if (r < 0)
                return r;
        udev_settle(s);

        unsigned lss = d.logical_sector_size;
        if (size == 0 || offset % lss != 0 || size % lss != 0)
                return error_set(err, EINVAL,
                                 "create-partition: offset %" PRIu64 " and size %" PRIu64
                                 " must be non-zero multiples of the %u-byte sectors of '%s'",
                                 offset, size, lss, d.path);
        /* offset + size from the request: a sum that wraps would pass every bound below */
        uint64_t end;
        if (__builtin_add_overflow(offset, size, &end) || end > d.size)
                return error_set(err, ENOSPC,
                                 "create-partition: partition %" PRIu64 " at %" PRIu64 "+%" PRIu64
                                 " ends beyond the %" PRIu64 " bytes of '%s'",
                                 number, offset, size, d.size, d.path);
        uint64_t first = offset / lss, last = end / lss - 1;
        unsigned partno = (unsigned) number;

        /* Claimed (flock, OFD lock, O_EXCL unless partitions of the disk are claimed, as the
         * OS's may be) for the whole op: the other partitions may be in use, the disk itself
         * not. What is on disk now is read through it (libparted cannot tell type GUIDs). */
        DevExpect ex;
        if ((r = dev_expect_parse(args, "expect", "create-partition", &ex, err)) < 0)
                return r;
        _cleanup_(block_claim_done) BlockClaim c = { .fd = -1, .excl_fd = -1 };
        r = block_claim(&d,
                        &(ClaimOptions) { .what = "partition", .read_only = s->dry_run, .partitions_in_use_ok = true,
                                          .expect = &ex, .allow_osd_id = { -1, -1 } },
                        &c, err);
        if (r < 0)
                return r;
        int fd = c.fd;
        GptHeader h;
        _cleanup_(freep) uint8_t *entries = NULL;
        Error gerr = {};
        r = gpt_load(fd, lss, &h, &entries, &gerr);
        if (r == -ENOENT)
                return error_set(err, ENOENT, "'%s' has no GPT: create one first (create-gpt)", d.path);
        if (r == -EBADMSG)
                return error_set(err, EBADMSG, "'%s' has no valid GPT, refusing to partition it: %s", d.path,
                                 gerr.message);
        if (r < 0)
                return error_set(err, r, "cannot read the GPT of '%s': %s", d.path, gerr.message);
        if (partno > h.n_entries)
                return error_set(err, EINVAL, "the GPT of '%s' has only %u entries", d.path, h.n_entries);
        if (first < h.first_usable || last > h.last_usable)
                return error_set(err, ENOSPC,
                                 "partition %u (%" PRIu64 "+%" PRIu64 ") lies outside the usable area of '%s' "
                                 "(%" PRIu64 "..%" PRIu64 ")",
                                 partno, offset, size, d.path, h.first_usable * lss, (h.last_usable + 1) * lss - 1);

        for (unsigned i = 0; i < h.n_entries; i++) {
                GptEntry e;
                gpt_entry_decode(entries + (size_t) i * h.entry_size, &e);
                if (!e.used)
                        continue;
                /* an entry the overlap test below cannot judge: refuse rather than guess */
                if (e.first_lba > e.last_lba || e.first_lba < h.first_usable || e.last_lba > h.last_usable)
                        return error_set(err, EBADMSG,
                                         "the GPT of '%s' is not valid: entry %u (LBA %" PRIu64 "..%" PRIu64
                                         ") lies outside the usable area %" PRIu64 "..%" PRIu64,
                                         d.path, i + 1, e.first_lba, e.last_lba, h.first_usable, h.last_usable);
                char pu[37];
                guid_to_string(e.uuid, pu);
                if (i == partno - 1) {
                        bool same_geo = e.first_lba == first && e.last_lba == last;
                        bool same_name = streq(e.name, name);
                        if (same_geo && same_name && memcmp(e.type, type, 16) == 0) {
                                _cleanup_(freep) char *node = NULL;
                                if (s->dry_run)
                                        return result_partition(pu, NULL, false, false, ret, err);
                                r = kernel_partition_ensure(fd, &d, partno, offset, size, &node, err);
                                if (r < 0)
                                        return r;
                                return result_partition(pu, node, false, false, ret, err);
                        }
                        if (same_geo && same_name && memcmp(e.type, linux_data, 16) == 0) {
                                /* an earlier run died between libparted's commit and the type
                                 * patch: our name at our place, libparted's default type */
                                if (s->dry_run)
                                        return result_partition(pu, NULL, false, true, ret, err);
                                r = gpt_set_type(fd, d.path, lss, partno, type, first, err);
                                if (r < 0)
                                        return r;
                                _cleanup_(freep) char *node = NULL;
                                r = kernel_partition_ensure(fd, &d, partno, offset, size, &node, err);
                                if (r < 0)
                                        return r;
                                return result_partition(pu, node, false, true, ret, err);
                        }
                        char t[37];
                        guid_to_string(e.type, t);
                        return error_set(err, EEXIST,
                                         "partition %u of '%s' already exists and differs: it is '%s' at %" PRIu64
                                         "+%" PRIu64 " type %s, asked '%s' at %" PRIu64 "+%" PRIu64 " type %s",
                                         partno, d.path, e.name, e.first_lba * lss, (e.last_lba - e.first_lba + 1) * lss,
                                         t, name, offset, size, type_str);
                }
                if (e.first_lba <= last && first <= e.last_lba)
                        return error_set(err, EEXIST,
                                         "partition %u of '%s' (%" PRIu64 "+%" PRIu64 ") would overlap partition %u '%s' "
                                         "(%" PRIu64 "+%" PRIu64 ")",
                                         partno, d.path, offset, size, i + 1, e.name, e.first_lba * lss,
                                         (e.last_lba - e.first_lba + 1) * lss);
        }

        if (s->dry_run) {
                json_object *o = NULL;
                r = result_partition(NULL, NULL, true, false, &o, err);
                if (r >= 0)
                        json_add_bool(o, "dry_run", true);
                *ret = o;
                return r;
        }

        /* the kernel must not already have a different partition with this number */
        _cleanup_(freep) char *stale = block_partition_name(d.name, partno);
        if (stale)
                return error_set(err, EBUSY, "the kernel has a partition '%s' that is not in the GPT of '%s'", stale,
                                 d.path);

        r = node_is_claimed(&d, &c, err);
        if (r < 0)
                return r;
        _cleanup_(ped_device_destroyp) PedDevice *dev = NULL;
        _cleanup_(ped_disk_destroyp) PedDisk *disk = NULL;
        r = ped_open(s, &d, &dev, &disk, err);
        if (r < 0)
                return r;
        if (!streq(disk->type->name, "gpt"))
                return error_set(err, EINVAL, "'%s' has a %s partition table, not GPT", d.path, disk->type->name);
        if (dev->sector_size != lss)
                return error_set(err, EINVAL, "libparted sees %lld-byte sectors on '%s', the kernel %u",
                                 dev->sector_size, d.path, lss);

        PedPartition *part = P.partition_new(disk, PED_PARTITION_NORMAL, NULL, (PedSector) first, (PedSector) last);
        if (!part)
                return error_set(err, EIO, "cannot create partition %u on '%s': %s", partno, d.path, ped_message());
        /* libparted keeps a number that is already set (gpt_partition_enumerate) */
        part->num = (int) partno;
        PedGeometry *geom = P.geometry_new(dev, (PedSector) first, (PedSector) (last - first + 1));
        PedConstraint *exact = geom ? P.constraint_exact(geom) : NULL;
        bool ok = exact && P.disk_add_partition(disk, part, exact);
        if (exact)
                P.constraint_destroy(exact);
        if (geom)
                P.geometry_destroy(geom);
        if (!ok) {
                P.partition_destroy(part);
                return error_set(err, EIO, "cannot add partition %u at %" PRIu64 "+%" PRIu64 " on '%s': %s", partno,
                                 offset, size, d.path, ped_message());
        }
        if (part->num != (int) partno || part->geom.start != (PedSector) first || part->geom.end != (PedSector) last)
                return error_set(err, EIO, "libparted placed partition %u of '%s' elsewhere than asked", partno, d.path);
        if (!P.partition_set_name(part, name))
                return error_set(err, EIO, "cannot name partition %u of '%s': %s", partno, d.path, ped_message());
        /* libparted >= 3.6 writes the type GUID in the same commit; it takes a uuid_t (RFC
         * byte order) and swaps it for the disk, so it gets the swapped copy of our on-disk
         * bytes (given as they are, the type read back swapped: seen on Debian 13's 3.6) */
        uint8_t type_rfc[16];
        guid_swap_rfc(type, type_rfc);
        if (P.partition_set_type_uuid && !P.partition_set_type_uuid(part, type_rfc))
                return error_set(err, EIO, "cannot set the type of partition %u of '%s': %s", partno, d.path,
                                 ped_message());
        agent_progress(p, 0, 3, "writing partition %u '%s' to '%s'", partno, name, d.path);
        /* commit_to_dev, NOT commit_to_os: the latter makes libparted resync every partition
         * with the kernel (and re-read the table where BLKPG is missing) */
        if (!P.disk_commit_to_dev(disk))
                return error_set(err, EIO, "cannot write the GPT of '%s': %s", d.path, ped_message());
        P.disk_destroy(TAKE_PTR(disk));
        P.device_destroy(TAKE_PTR(dev));

        /* test hook (tests/block): die like a power cut between the two writes */
        const char *crash = getenv("CEPHPROV_TEST_CRASH_AFTER_COMMIT");
        if (crash && (unsigned) atoi(crash) == partno)
                raise(SIGKILL);

        /* libparted < 3.6 wrote its default type (Linux data): patch it on disk */
        if (!P.partition_set_type_uuid) {
                agent_progress(p, 1, 3, "setting type %s on partition %u of '%s'", type_str, partno, d.path);
                r = gpt_set_type(fd, d.path, lss, partno, type, first, err);
                if (r < 0)
                        return r;
        }

        /* read back what is on disk: PARTUUID (libparted made it) and the type we set */
        free(TAKE_PTR(entries));
        r = gpt_load(fd, lss, &h, &entries, &gerr);
        if (r < 0)
                return error_set(err, r, "cannot read back the GPT of '%s': %s", d.path, gerr.message);
        GptEntry e;
        gpt_entry_decode(entries + (size_t) (partno - 1) * h.entry_size, &e);
        if (e.first_lba != first || e.last_lba != last)
                return error_set(err, EIO, "partition %u of '%s' reads back at sectors %" PRIu64 "-%" PRIu64
                                 ", written at %" PRIu64 "-%" PRIu64, partno, d.path, (uint64_t) e.first_lba,
                                 (uint64_t) e.last_lba, (uint64_t) first, (uint64_t) last);
        if (memcmp(e.type, type, 16) != 0) {
                char got[37];
                guid_to_string(e.type, got);
                return error_set(err, EIO, "partition %u of '%s' reads back with type %s, written with %s%s", partno,
                                 d.path, got, type_str,
                                 P.partition_set_type_uuid ? " (libparted >= 3.6 set it)" : "");
        }
        if (!streq(e.name, name))
                return error_set(err, EIO, "partition %u of '%s' reads back named '%s', written as '%s'", partno,
                                 d.path, e.name, name);
        char pu[37];
        guid_to_string(e.uuid, pu);

        agent_progress(p, 2, 3, "adding partition %u of '%s' to the kernel", partno, d.path);
        _cleanup_(freep) char *node = NULL;
        r = kernel_partition_ensure(fd, &d, partno, offset, size, &node, err);
        if (r < 0)
                return r;
        return result_partition(pu, node, true, false, ret, err);
}

/* ---- delete-partition (destroy: what cephprov owns on a disk that keeps other partitions) ---- */

/* What the kernel has as partition `partno` of `d` (its node `kname`) must be the bytes the
 * GPT entry names, `start`/`size`: the signatures are zeroed through the kernel's node, so a
 * table changed behind the kernel's back (sgdisk on a disk in use, whose re-read failed)
 * would have us erase whatever the kernel's partition covers — another partition's data. */
static int delete_check_kernel(const BlockDev *d, const char *kname, unsigned partno, uint64_t start,
                               uint64_t size, Error *err) {
        /* sysfs counts 512-byte sectors, whatever the logical sector size */
        uint64_t kstart, ksize;
        int r;
        if ((r = sysfs_read_u64(kname, "start", &kstart)) < 0 || (r = sysfs_read_u64(kname, "size", &ksize)) < 0)
                return error_set(err, r, "cannot read where the kernel has partition %u of '%s' ('%s'): %s", partno,
                                 d->path, kname, strerror(-r));
        if (kstart > UINT64_MAX / 512 || ksize > UINT64_MAX / 512)
                return error_set(err, ERANGE, "the kernel's partition '%s' of '%s' is out of range", kname, d->path);
        kstart *= 512;
        ksize *= 512;
        if (kstart == start && ksize == size)
                return 0;
        char gs[SIZE_FORMAT_MAX], gl[SIZE_FORMAT_MAX], ks[SIZE_FORMAT_MAX], kl[SIZE_FORMAT_MAX];
        return error_set(err, EBUSY,
                         "partition %u of '%s': the GPT puts it at %s, %s long (%" PRIu64 "+%" PRIu64
                         "), the kernel ('%s') at %s, %s long (%" PRIu64 "+%" PRIu64
                         "): refusing to delete it (re-read the partition table with partprobe first)",
                         partno, d->path, size_format(start, gs, sizeof gs), size_format(size, gl, sizeof gl), start,
                         size, kname, size_format(kstart, ks, sizeof ks), size_format(ksize, kl, sizeof kl), kstart,
                         ksize);
}

/* The entry is a place on this disk: first <= last, inside the GPT's usable area and the
 * device (the size and the bytes zeroed are computed from it: last < first would wrap). */
static int delete_check_entry(const BlockDev *d, const GptHeader *h, unsigned partno, const GptEntry *e,
                              Error *err) {
        unsigned lss = d->logical_sector_size;
        uint64_t n_lba = d->size / lss;
        if (e->first_lba > e->last_lba)
                return error_set(err, EBADMSG,
                                 "partition %u of '%s' ends (LBA %" PRIu64 ") before it starts (LBA %" PRIu64
                                 ") in the GPT: refusing to delete it",
                                 partno, d->path, e->last_lba, e->first_lba);
        if (e->first_lba < h->first_usable || e->last_lba > h->last_usable)
                return error_set(err, EBADMSG,
                                 "partition %u of '%s' (LBA %" PRIu64 "..%" PRIu64 ") lies outside the GPT's usable area "
                                 "(LBA %" PRIu64 "..%" PRIu64 "): refusing to delete it",
                                 partno, d->path, e->first_lba, e->last_lba, h->first_usable, h->last_usable);
        if (e->last_lba >= n_lba)
                return error_set(err, EBADMSG,
                                 "partition %u of '%s' (LBA %" PRIu64 "..%" PRIu64 ") ends beyond the device's %" PRIu64
                                 " sectors: refusing to delete it",
                                 partno, d->path, e->first_lba, e->last_lba, n_lba);
        return 0;
}

/* Deletes partition `number` of `device`, which must be named `name` (the request says what
 * it deletes: a renumbered or foreign partition is refused). Before anything is written, dry
 * run or not, the entry must be a place on the disk and the kernel's partition of that
 * number, if it has one, exactly that place (delete_check_entry, delete_check_kernel). The
 * disk is claimed as for create-partition (its other partitions may be in use); the
 * partition itself is claimed exclusively and its first and last MiB zeroed through that
 * claim (signatures: a BlueFS or bcache superblock must not come back with a later
 * partition at the same place); then the kernel's partition goes (BLKPG: fails if anyone
 * opened it since), then the GPT entry (libparted, both copies), read back. A partition already gone is success ("deleted":
 * false), also after a crash between the two. */
int agent_op_delete_partition(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err) {
        _cleanup_(block_dev_done) BlockDev d = {};
        uint64_t number;
        const char *name;
        int r;

        if ((r = json_get_u64(args, "number", true, &number, "delete-partition", err)) < 0 ||
            (r = json_get_string(args, "name", true, &name, "delete-partition", err)) < 0)
                return r;
        if (number < 1 || number > 128)
                return error_set(err, EINVAL, "delete-partition: number %" PRIu64 " is not in 1..128", number);
        DevExpect ex;
        if ((r = dev_expect_parse(args, "expect", "delete-partition", &ex, err)) < 0)
                return r;
        r = whole_device_arg(s, args, "delete-partition", &d, err);
        if (r < 0)
                return r;
        udev_settle(s);
        unsigned partno = (unsigned) number, lss = d.logical_sector_size;
        /* destroy's own partitions (the controller asks): an encrypted OSD's DB/WAL mapping,
         * left open when its OSD stopped, holds the partition */
        bool close_dmcrypt = false;
        if ((r = json_get_bool(args, "close_dmcrypt", false, &close_dmcrypt, "delete-partition", err)) < 0 && r != -ENOENT)
                return r;
        _cleanup_json_ json_object *closed = json_object_new_array();
        if (!closed)
                return error_set(err, ENOMEM, "out of memory");

        _cleanup_(block_claim_done) BlockClaim c = { .fd = -1, .excl_fd = -1 };
        r = block_claim(&d,
                        &(ClaimOptions) { .what = "delete a partition of", .read_only = s->dry_run,
                                          .partitions_in_use_ok = true, .allow_osd_id = { -1, -1 } },
                        &c, err);
        if (r < 0)
                return r;
        GptHeader h;
        _cleanup_(freep) uint8_t *entries = NULL;
        Error gerr = {};
        r = gpt_load(c.fd, lss, &h, &entries, &gerr);
        if (r < 0)
                return error_set(err, r == -ENOENT ? ENOENT : r, "cannot read the GPT of '%s': %s", d.path, gerr.message);
        if (partno > h.n_entries)
                return error_set(err, EINVAL, "the GPT of '%s' has only %u entries", d.path, h.n_entries);
        GptEntry e;
        gpt_entry_decode(entries + (size_t) (partno - 1) * h.entry_size, &e);
        _cleanup_(freep) char *kname = block_partition_name(d.name, partno);
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o)
                return error_set(err, ENOMEM, "out of memory");
        json_add_string(o, "device", d.path);
        json_add_u64(o, "number", partno);
        if (!e.used) {
                /* gone already; a kernel node left by a crash between the two deletes goes too */
                if (kname && !s->dry_run && (r = blkpg_del_partition(c.fd, d.path, partno, err)) < 0)
                        return r;
                json_add_bool(o, "deleted", false);
                *ret = TAKE_PTR(o);
                return 0;
        }
        if (!streq(e.name, name))
                return error_set(err, EEXIST, "partition %u of '%s' is named '%s', not '%s': refusing to delete it",
                                 partno, d.path, e.name, name);
        if ((r = delete_check_entry(&d, &h, partno, &e, err)) < 0)
                return r;
        /* the partition the plan saw, read through the disk's claim before any byte changes */
        if ((r = dev_expect_check_entry(c.fd, &d, partno, &e, &ex, err)) < 0)
                return r;
        uint64_t start = e.first_lba * lss, size = (e.last_lba - e.first_lba + 1) * lss;
        /* (after the checks of what it is: the mapping goes only over the partition planned) */
        if (close_dmcrypt && kname && (r = dmcrypt_close_holders(s, kname, closed, err)) < 0)
                return r;
        if (json_object_array_length(closed) > 0 && json_add(o, "dmcrypt_closed", json_object_get(closed)) < 0)
                return error_set(err, ENOMEM, "out of memory");
        if (kname && (r = delete_check_kernel(&d, kname, partno, start, size, err)) < 0)
                return r;
        json_add_string(o, "name", e.name);
        json_add_u64(o, "bytes", size);
        if (s->dry_run) {
                json_add_bool(o, "deleted", false);
                json_add_bool(o, "dry_run", true);
                *ret = TAKE_PTR(o);
                return 0;
        }

        /* the partition: nobody else has it; its signatures go through our exclusive claim.
         * The disk's claim is let go meanwhile (a claim of the partition counts locks on its
         * disk as users) and taken again below, where the entry is checked once more. */
        block_claim_done(&c);
        if (kname) {
                _cleanup_(freep) char *node = strprintf("/dev/%s", kname);
                _cleanup_(block_dev_done) BlockDev pd = {};
                if (!node)
                        return error_set(err, ENOMEM, "out of memory");
                /* (a re-read of the table by udev may have its node away for a moment) */
                for (int i = 0; i < 80 && access(node, F_OK) < 0; i++)
                        sleep_ms(25);
                if ((r = block_dev_resolve(node, &pd, err)) < 0)
                        return r;
                _cleanup_(block_claim_done) BlockClaim pc = { .fd = -1, .excl_fd = -1 };
                r = block_claim(&pd, &(ClaimOptions) { .what = "delete", .allow_osd_id = { -1, -1 } }, &pc, err);
                if (r < 0)
                        return r;
                /* once more, now that the node is ours: the disk was not claimed in between */
                if ((r = delete_check_kernel(&d, kname, partno, start, size, err)) < 0)
                        return r;
                agent_progress(p, 0, 3, "erasing the signatures of partition %u of '%s'", partno, d.path);
                uint64_t head = MIN(size, (uint64_t) 1 << 20), tail = MIN(size, (uint64_t) 1 << 20);
                if (zero_range(pc.fd, 0, head) < 0 || zero_range(pc.fd, size - tail, tail) < 0 || fsync(pc.fd) < 0)
                        return error_set(err, errno, "cannot erase partition %u of '%s': %m", partno, d.path);
                block_claim_done(&pc);
        }
        r = block_claim(&d,
                        &(ClaimOptions) { .what = "delete a partition of", .partitions_in_use_ok = true,
                                          .allow_osd_id = { -1, -1 } },
                        &c, err);
        if (r < 0)
                return r;
        free(TAKE_PTR(entries));
        r = gpt_load(c.fd, lss, &h, &entries, &gerr);
        if (r < 0)
                return error_set(err, r, "cannot read the GPT of '%s': %s", d.path, gerr.message);
        GptEntry again;
        gpt_entry_decode(entries + (size_t) (partno - 1) * h.entry_size, &again);
        if (!again.used || !streq(again.name, name) || again.first_lba != e.first_lba || again.last_lba != e.last_lba ||
            memcmp(again.uuid, e.uuid, sizeof(e.uuid)) != 0)
                return error_set(err, ESTALE, "partition %u of '%s' changed while it was being deleted", partno, d.path);
        _cleanup_(freep) char *kname_now = kname ? NULL : block_partition_name(d.name, partno);
        if (kname_now)
                /* its bytes would go through the disk, unchecked against the kernel's node */
                return error_set(err, ESTALE,
                                 "partition %u of '%s' changed while it was being deleted: the kernel added '%s'",
                                 partno, d.path, kname_now);
        if (kname) {
                agent_progress(p, 1, 3, "removing partition %u of '%s' from the kernel", partno, d.path);
                if ((r = blkpg_del_partition(c.fd, d.path, partno, err)) < 0)
                        return r;
        } else if (zero_range(c.fd, start, MIN(size, (uint64_t) 1 << 20)) < 0 || fsync(c.fd) < 0)
                /* no kernel node: the bytes through the disk's own claim */
                return error_set(err, errno, "cannot erase partition %u of '%s': %m", partno, d.path);

        agent_progress(p, 2, 3, "deleting partition %u '%s' from the GPT of '%s'", partno, name, d.path);
        _cleanup_(ped_device_destroyp) PedDevice *dev = NULL;
        _cleanup_(ped_disk_destroyp) PedDisk *disk = NULL;
        r = ped_open(s, &d, &dev, &disk, err);
        if (r < 0)
                return r;
        PedPartition *part = P.disk_get_partition(disk, (int) partno);
        if (!part || part->geom.start != (PedSector) e.first_lba || part->geom.end != (PedSector) e.last_lba)
                return error_set(err, EIO, "libparted does not see partition %u of '%s' where the GPT has it", partno,
                                 d.path);
        if (!P.disk_delete_partition(disk, part) || !P.disk_commit_to_dev(disk))
                return error_set(err, EIO, "cannot delete partition %u of '%s': %s", partno, d.path, ped_message());
        P.disk_destroy(TAKE_PTR(disk));
        P.device_destroy(TAKE_PTR(dev));

        free(TAKE_PTR(entries));
        r = gpt_load(c.fd, lss, &h, &entries, &gerr);
        if (r < 0)
                return error_set(err, r, "cannot read back the GPT of '%s': %s", d.path, gerr.message);
        gpt_entry_decode(entries + (size_t) (partno - 1) * h.entry_size, &e);
        if (e.used)
                return error_set(err, EIO, "partition %u of '%s' is still in its GPT after the delete", partno, d.path);
        json_add_bool(o, "deleted", true);
        *ret = TAKE_PTR(o);
        return 0;
}

/* ---- partitions by GPT name ---- */

int agent_resolve_partname(AgentState *s, const char *device, const char *partname, char **ret_node, Error *err) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        int r = agent_inventory(s, false, &inv, err);
        if (r < 0)
                return r;

        _cleanup_(block_dev_done) BlockDev want = {};
        if (device) {
                r = block_dev_resolve(device, &want, err);
                if (r < 0)
                        return r;
        }
        const InvPartition *found = NULL;
        const InvDevice *on = NULL;
        for (size_t i = 0; i < inv->n_devices; i++) {
                const InvDevice *d = &inv->devices[i];
                if (device && !streq(d->name, want.name))
                        continue;
                for (size_t k = 0; k < d->n_partitions; k++) {
                        if (!streq_ptr(d->partitions[k].name, partname))
                                continue;
                        if (found)
                                return error_set(err, EINVAL, "partition name '%s' is on both '%s' and '%s'", partname,
                                                 on->path, d->path);
                        found = &d->partitions[k];
                        on = d;
                }
        }
        if (!found)
                return error_set(err, ENOENT, "no partition named '%s' on %s%s%s of '%s'", partname,
                                 device ? "'" : "the allowed devices", device ? device : "", device ? "'" : "",
                                 agent_host(s));
        if (!found->node)
                return error_set(err, ENODEV, "partition %u '%s' of '%s' has no kernel node", found->number, partname,
                                 on->path);
        *ret_node = strdup(found->node);
        return *ret_node ? 0 : error_set(err, ENOMEM, "out of memory");
}
