/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by the agent's op files; not a public API. */

#include <blkid/blkid.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/strv.h"
#include "ondisk/ondisk.h"

/* Where progress events of the running request go. */
typedef struct AgentProgress {
        int64_t id;
        AgentProgressFn fn;
        void *userdata;
} AgentProgress;

void agent_progress(AgentProgress *p, uint64_t done, uint64_t total, const char *fmt, ...) _printf_(4, 5);

typedef int (*AgentOpFn)(AgentState *s, json_object *args, json_object **ret_result,
                         AgentProgress *p, Error *err);

int agent_op_inventory(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_create_gpt(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_create_partition(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_delete_partition(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_wipe(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_make_bcache(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_bcache_register(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_bcache_attach(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_bcache_tune(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_bcache_teardown(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_run(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_osd_create(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_preflight(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_rados_probe(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_ceph_command(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);

/* The lease of the request being served (its "lease_left_ms", docs/agent.md "The lease"):
 * true once it is over (false when the request carries none, or its op has started). */
bool agent_lease_over(void);
/* The op's first write is about to start: ENOLCK "refusing to WHAT 'PATH': the cluster
 * lock's lease ran out ..." when its lease is over; otherwise 0, and the lease is spent (the
 * op runs to its end; later claims of the same request are not checked again). No lease: 0.
 * block_claim() calls it once the device's locks are held, right before it hands out the
 * descriptor to write through. */
int agent_lease_start(const char *what, const char *path, Error *err);

/* Loads libparted (once per process, see agent-partition.c); errors name the host. */
int agent_libparted_load(AgentState *s, Error *err);
/* Where bcache-tune writes its udev rules ($CEPHPROV_UDEV_RULES_DIR, else /etc/udev/rules.d). */
const char *agent_udev_rules_dir(void);

/* Allow-list check of one path with its links (no partition → disk fallback). */
bool agent_path_allowed(AgentState *s, const char *path, char * const *links);

/* The host name used in messages: configured name, else uname's nodename. */
const char *agent_host(AgentState *s);

/* ---- block devices (agent-block.c) ---- */

/* A block device or partition as the kernel sees it. */
typedef struct BlockDev {
        char *path;              /* as given by the caller */
        char *node;              /* /dev/<name> */
        char *name;              /* kernel name: loop3, loop3p2, sdb */
        char *disk_name;         /* whole device's kernel name (== name for a disk) */
        dev_t devnum;
        bool is_partition;
        unsigned partno;         /* partitions */
        uint64_t start;          /* partitions: bytes from the disk's start */
        uint64_t size;           /* bytes */
        unsigned logical_sector_size;
} BlockDev;

void block_dev_done(BlockDev *d);

/* For agent_blkid_probe(): leave a chain off. */
#define AGENT_BLKID_OFF (-1)
/* A libblkid probe of [off, off+size) of fd (size 0: to the end), the one set-up of every
 * probe of the agent: the superblocks chain on with `sb_flags` and the partitions chain on
 * with `part_flags` (BLKID_SUBLKS_*, BLKID_PARTS_*; 0: libblkid's own flags), or either off
 * with AGENT_BLKID_OFF. -ENOMEM, or -EIO when libblkid does not take fd; the caller frees
 * *ret with blkid_free_probe(). */
int agent_blkid_probe(int fd, uint64_t off, uint64_t size, int sb_flags, int part_flags, blkid_probe *ret);
/* Resolve a path (node or symlink) to the kernel's view; errors name the path. */
int block_dev_resolve(const char *path, BlockDev *ret, Error *err);

/* /sys/class/block/<name>/<attr> as a trimmed string / number. */
int sysfs_read_string(const char *name, const char *attr, char **ret);
int sysfs_read_u64(const char *name, const char *attr, uint64_t *ret);
int file_read_string(const char *path, char **ret);
int file_write_string(const char *path, const char *value);
/* the running kernel's module RELPATH (e.g. "drivers/md/dm-crypt"), .ko plain or compressed,
 * when its tree has it: the path (free it), or NULL (also on ENOMEM) */
char *kernel_module_file(const char *relpath);

/* The kernel's partitions of a disk: name of partition `partno`, NULL if none. */
char *block_partition_name(const char *disk_name, unsigned partno);
/* All partition kernel names of a disk (sorted by number). */
int block_list_partitions(const char *disk_name, char ***ret_names, unsigned **ret_numbers, size_t *ret_n);

/* Mounts (major:minor → first mount point) and active swaps, read once per call. */
typedef struct UsageTable {
        dev_t *mount_dev;
        char **mount_point;
        size_t n_mounts;
        dev_t *swap_dev;
        size_t n_swaps;
} UsageTable;

void usage_table_done(UsageTable *t);
int usage_table_load(UsageTable *t);
const char *usage_table_mountpoint(const UsageTable *t, dev_t d);
bool usage_table_swap(const UsageTable *t, dev_t d);
/* Names in /sys/class/block/<name>/holders (NULL-terminated, may be empty). */
char **block_holders(const char *name);


/* ---- FileStore OSDs in the inventory (agent-filestore.c) ---- */

/* A mounted content whose directory holds a FileStore OSD's files: role data, its id and
 * fsids (filestore_osd_dir_parse()). Anything else mounted is left as it is. */
void filestore_probe_data(InvContent *c);
/* A content without a signature whose first block is a FileStore journal header: role
 * journal, the header's OSD fsid, unconfirmed (no id). */
void filestore_probe_journal(int fd, uint64_t off, InvContent *c);
/* An unmounted "ceph data" partition with a file system: role data, osd_fsid from its
 * PARTUUID, unconfirmed (ceph-disk's convention, not proof). */
void filestore_hint_data(InvPartition *p);
/* After every device is probed: each FileStore OSD's journal partition (its data
 * directory's `journal` link or `journal_uuid`; when the directory names none, the one
 * journal whose header carries the OSD's fsid) gets role journal with that OSD's id and
 * fsids, unless the journal's header names another OSD or it carries a signature. */
void filestore_link_journals(Inventory *inv);

/* ---- in use and claims (agent-inuse.c) ---- */

/* What the plan saw of a device or partition (a request's "expect" object, docs/agent.md):
 * each field is compared only when present; a NULL string means "none" (JSON null). */
typedef struct DevExpect {
        bool present;
        bool has_type, has_uuid, has_pttype, has_ptuuid, has_size, has_start;
        const char *type, *uuid, *pttype, *ptuuid; /* borrowed from the request */
        uint64_t size, start;
        /* who it is: the whole device's identity (a partition's: its disk's), a partition's
         * PARTUUID, the BlueStore label's osd uuid, whoami (-1: not compared) and cluster
         * fsid; NULL or "": not compared */
        const char *identity, *partuuid;
        const char *osd_uuid, *ceph_fsid;
        int64_t whoami;
} DevExpect;

/* args[key] → *ret (all false when the key is absent: older controllers). */
int dev_expect_parse(json_object *args, const char *key, const char *what, DevExpect *ret, Error *err);
/* ESTALE when the device open at `fd` (the descriptor the op writes through) is not the one
 * the plan saw — "'/dev/sdc' is not the device the plan saw: it is serial ST2000NM0135
 * ZFL01499X, the plan saw wwn 0x5000c500a1b2c3d4; re-run plan" (identity, PARTUUID, start,
 * OSD label) — or when what is on it differs: "'/dev/sdb2' changed since the plan: type
 * ceph_bluestore, was empty; re-run plan". */
int dev_expect_check(int fd, const BlockDev *d, const DevExpect *e, Error *err);
/* The same for partition `partno` of the disk `disk` open at `fd`, as its GPT entry `ge`
 * says (delete-partition, which writes through the disk): identity of the disk, PARTUUID,
 * start, size, and the OSD label at the partition's start. */
int dev_expect_check_entry(int fd, const BlockDev *disk, unsigned partno, const GptEntry *ge, const DevExpect *e,
                           Error *err);

typedef struct ClaimOptions {
        const char *what;              /* the op, for messages: "wipe", "create a GPT on" */
        bool read_only;                /* dry run: check only, open read-only, take no lock */
        bool check_only;               /* the caller closes the claim before writing (osd-create) */
        bool partitions_in_use_ok;     /* a disk whose other partitions may be in use (create-partition) */
        bool handoff;                  /* a tool opens the device itself (make-bcache, which wants O_EXCL):
                                        * the exclusive open is a second descriptor, see block_claim_drop_excl() */
        bool no_excl;                  /* claimed by the kernel by design (a bcache backing device) */
        const char *own_holder;        /* the one holder that is expected (its bcacheN) */
        int allow_osd_id[2];           /* check_only: a ceph-osd of these ids is the request's own (-1: none) */
        const DevExpect *expect;       /* NULL: nothing to compare */
} ClaimOptions;

typedef struct BlockClaim {
        int fd;                        /* O_RDWR (O_RDONLY in a dry run), flock + OFD write lock,
                                        * O_EXCL itself unless excl_fd is used */
        int excl_fd;                   /* handoff: the exclusive open, -1 otherwise */
        bool exclusive;                /* the kernel granted the exclusive open */
} BlockClaim;

/* How long block_claim() waits for a lock it finds held: any holder 3 s (a reader's shared
 * lock), systemd-udevd's worker 30 s (its flock on the disk while it processes an event:
 * seconds under load or emulation, measured in the vm tier). Then: EBUSY "locked by". */
#define BLOCK_LOCK_WAIT_MS 3000U
#define BLOCK_UDEV_LOCK_WAIT_MS 30000U
/* Another agent's lock on the very device: under the cluster lock, the agent of a run that
 * was killed (or lost its connection) mid-op, killing what it runs and exiting (SIGTERM, 5 s,
 * SIGKILL: PROCESS_TERM_GRACE_MS_DEFAULT) while the re-run's agent already claims the device
 * (docs/agent.md "run"). Waited for that long and more; held past it, refused naming it. */
#define BLOCK_AGENT_LOCK_WAIT_MS 15000U

void block_claim_done(BlockClaim *c);
void block_claim_drop_excl(BlockClaim *c);
/* Open `d` for writing, confirm with fstat() that it is `d`, lock it, then refuse (EBUSY,
 * naming the device and the holder) when anyone else uses it or, for a disk, one of its
 * partitions or, for a partition, its disk: a mount (btrfs included), swap, a holder,
 * bcache, a loop device, a lock or a writable descriptor of another process, a ceph-osd
 * naming it; and (ESTALE) when it is not what the plan saw. The caller writes through
 * ret->fd while it holds the claim. */
int block_claim(const BlockDev *d, const ClaimOptions *o, BlockClaim *ret, Error *err);
/* block_claim() of a path, released at once (a check before another program writes). */
int block_check_node(const char *path, const ClaimOptions *o, Error *err);
/* osd-create: the data device (and its bcache device), the DB and WAL partitions of the
 * request, checked like a claim before ceph-volume runs; a running ceph-osd of the
 * request's id is the request's own. */
int agent_osd_check_devices(AgentState *s, json_object *args, Error *err);

/* osd-create (agent-osd.c): may it erase `label`, found at the start of `part`, the `role`
 * ("DB", "WAL") partition given for the OSD on `data` (of `host`), a data device that
 * carries no label? Only a label whose osd uuid is `redo_osd_fsid` (the half-made OSD the
 * controller proved cephprov's), or whose OSD `map` (the request's "osd_map"; NULL: none
 * sent) does not have or has destroyed; never one of a cluster other than map's. Returns
 * why it may (AGENT_LABEL_ERASABLE_*), else -EEXIST with a message naming the partition,
 * the OSD, its uuid and the way out. Pure. */
enum {
        AGENT_LABEL_ERASABLE_REDO = 1,
        AGENT_LABEL_ERASABLE_GONE = 2,      /* not in the OSD map (purged, or `osd new` never ran) */
        AGENT_LABEL_ERASABLE_DESTROYED = 3,
};
struct CephOsdDump;
int agent_label_erasable(const InvOsd *label, const char *redo_osd_fsid, const struct CephOsdDump *map,
                         const char *part, const char *role, const char *data, const char *host, Error *err);

/* Tell the kernel about one partition of the disk open at `fd` (BLKPG, never a re-read). */
int blkpg_add_partition(int fd, const char *disk, unsigned partno, uint64_t start, uint64_t size, Error *err);
int blkpg_del_partition(int fd, const char *disk, unsigned partno, Error *err);

int read_exact_at(int fd, void *buf, size_t len, uint64_t off);
int write_exact_at(int fd, const void *buf, size_t len, uint64_t off);
/* Zero `len` bytes at `off`. */
int zero_range(int fd, uint64_t off, uint64_t len);

/* Bytes of the device (or image file) open at fd. */
int fd_device_size(int fd, uint64_t *ret);

/* The GPT header at `lba` of the disk open at `fd`, checked by gpt_header_decode()
 * against the device's size, and its entry array, checked against the header's CRC; the
 * array is returned in *ret_entries (malloc'd, gpt_entries_bytes() ≤ 4 MiB) unless that is
 * NULL. -ENOENT: no GPT signature; -EBADMSG: not a valid GPT, err says why. */
int gpt_read_header(int fd, unsigned lss, uint64_t lba, GptHeader *ret, uint8_t **ret_entries, Error *err);

/* The kernel node of the partition with GPT name `partname` on `device` (NULL: on any
 * allowed device; the name must then be unique). */
int agent_resolve_partname(AgentState *s, const char *device, const char *partname, char **ret_node, Error *err);

/* ---- run (agent-run.c) ---- */
typedef struct RunResult {
        int exit_status;         /* exit code, or 128+signal */
        char *out;
        char *err;
        bool timed_out;
} RunResult;
void run_result_done(RunResult *r);
/* process_run() of argv (no shell), optional stdin data, extra env "K=V", timeout seconds
 * (0: none). On a timeout the command's whole process group is gone when this returns
 * (timed_out set). Errors when the command cannot be started, and ECONNABORTED when the
 * controller hung up on s->cancel_fd while it ran (the group killed the same way). */
int agent_spawn(AgentState *s, char * const *argv, const char *stdin_data, char * const *env_extra,
                unsigned timeout, RunResult *ret, Error *err);

/* ---- bcache superblock (agent-bcache.c), used by probe and wipe ---- */
typedef struct BcacheSuper {
        BcacheRole role;
        uint64_t version;
        char uuid[37];
        char set_uuid[37];       /* "" when all zero; backing: "" when not attached */
        unsigned bdev_state;     /* backing: BDEV_STATE_* (none, clean, dirty, stale) */
} BcacheSuper;
/* Reads the superblock at `off`+4096 of fd; returns 1 found, 0 none (or not valid: see
 * bcache_sb_decode()), <0 error. */
int bcache_super_read(int fd, uint64_t off, BcacheSuper *ret);
/* Fill InvBcache from the superblock plus sysfs of the registered device `name`. */
void bcache_fill_sysfs(const char *name, InvBcache *b);
uint64_t bcache_parse_hsize(const char *s);
/* What bcache-teardown zeroes at the start of the backing device once bcache let go of it:
 * its superblock, and what lay at the start of /dev/bcacheN (8 KiB in: a BlueStore label, or
 * an LVM PV's label and metadata with the OSD's label 1 MiB further) */
#define BCACHE_TEARDOWN_ZERO (16u << 20)
/* how long a stopped bcacheN may take to let go of its backing device */
#define BCACHE_STOP_WAIT_MS 60000u
/* Is the volume group on bcache device `node` ceph-volume's, one bcache-teardown may
 * remove? `pvs_out`: the VG's PVs, one a line (`lvm pvs -o pv_name`); `lvs_out`: its LVs'
 * tags, one LV a line (`lvm lvs -o lv_tags`). 0 when the only PV is `node` and every LV
 * carries ceph.osd_id; else -EBUSY naming what is not (-ENOMEM on no memory, err unset). */
int bcache_lvm_check_osd_vg(const char *pvs_out, const char *lvs_out, const char *node, Error *err);
/* The boot units `ceph-volume lvm create` enabled for the OSD logical volumes of `lvs_out` (one
 * LV's tags a line): "ceph-volume@lvm-ID-FSID" from each line's ceph.osd_id and ceph.osd_fsid
 * (a line without both, or with anything else in them, names none). NULL: out of memory. */
char **bcache_lvm_volume_units(const char *lvs_out);
/* Of `wants` (`systemctl show --property=Wants --value multi-user.target`: unit names apart
 * by blanks), the boot activations of osd.`osd` that are not its current one: every
 * "ceph-volume@lvm-OSD-FSID.service" whose FSID is not `fsid` (an OSD made again under the
 * same id on another disk leaves the old disk's enabled, and at a boot it would try to
 * activate an OSD that is gone). Names as systemctl takes them, without ".service". NULL:
 * no memory. */
char **osd_stale_volume_units(const char *wants, int osd, const char *fsid);
/* `systemctl disable` of each of `units`, each added to `done`; `why` names them in an error
 * ("the boot activation of ..."). No systemctl on the host: nothing to disable (0). */
int agent_disable_units(AgentState *s, char **units, const char *why, json_object *done, Error *err);
/* The volume group of a ceph-volume OSD on device `name` (kernel name: bcacheN, or a disk)
 * removed, when device-mapper holds the device and the VG is that OSD's alone
 * (bcache_lvm_check_osd_vg()) — with only_osd_id >= 0, every LV of it tagged
 * ceph.osd_id=only_osd_id; its LUKS mappings closed first. 0 when device-mapper does not
 * hold it. What it removed is added to `o` ("lvm_removed", "dmcrypt_closed"). */
int agent_release_osd_lvm(AgentState *s, const char *name, int only_osd_id, json_object *o, Error *err);

/* inventory_device_identity() of the whole device `disk_name` (kernel name), read from udev
 * and sysfs as the inventory reads it: *ret NULL when it has none. */
int agent_device_identity(const char *disk_name, char **ret);

/* ---- BlueStore label (agent-probe.c) ---- */
/* Parses a label read from the start of a device: returns 1 found, 0 not a label. */
int bluestore_label_parse(const uint8_t *buf, size_t len, InvOsd *ret);
/* The OSD whose main BlueStore label starts one of the device-mapper `holders` (an LV of
 * `ceph-volume lvm create` on an LVM PV) into *ret: 1, or 0 when none is. */
int lvm_osd_read(char * const *holders, InvOsd *ret);

/* ---- dm-crypt (agent-dmcrypt.c) ---- */
/* Closes every dm-crypt mapping (device-mapper uuid CRYPT-...) that holds block device `name`
 * (sysfs holders), with `cryptsetup close`, each one's name appended to the JSON array
 * `closed`; a mapping held by something else, or still open (cryptsetup refuses), is EBUSY.
 * In dry-run, names what it would close. None: 0. */
int dmcrypt_close_holders(AgentState *s, const char *name, json_object *closed, Error *err);
