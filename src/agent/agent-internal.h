/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by the agent's op files; not a public API. */

#include <stdint.h>
#include <sys/types.h>

#include "agent.h"
#include "basic/json-util.h"
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
int agent_op_wipe(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_make_bcache(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_bcache_register(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_bcache_attach(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_bcache_tune(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_bcache_teardown(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_run(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);
int agent_op_osd_create(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err);

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
/* Resolve a path (node or symlink) to the kernel's view; errors name the path. */
int block_dev_resolve(const char *path, BlockDev *ret, Error *err);

/* /sys/class/block/<name>/<attr> as a trimmed string / number. */
int sysfs_read_string(const char *name, const char *attr, char **ret);
int sysfs_read_u64(const char *name, const char *attr, uint64_t *ret);
int file_read_string(const char *path, char **ret);
int file_write_string(const char *path, const char *value);

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

/* Refuse a device that is mounted, held or active swap (and, for a disk, any of its
 * partitions): EBUSY naming the device and the reason. */
int block_check_unused(const BlockDev *d, const char *what, Error *err);

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
/* fork + execvp(argv) (no shell), optional stdin data, extra env "K=V", timeout seconds
 * (0: none). Errors only when the command cannot be started. */
int agent_spawn(char * const *argv, const char *stdin_data, char * const *env_extra, unsigned timeout,
                RunResult *ret, Error *err);

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

/* ---- BlueStore label (agent-probe.c) ---- */
/* Parses a label read from the start of a device: returns 1 found, 0 not a label. */
int bluestore_label_parse(const uint8_t *buf, size_t len, InvOsd *ret);
