/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* On-disk formats the agent reads and patches: the GPT (UEFI 2.10 §5.3), the bcache
 * superblock (include/uapi/linux/bcache.h), the BlueStore label
 * (src/os/bluestore/bluestore_types.cc), the FileStore journal header
 * (src/os/filestore/FileJournal.h) and a FileStore OSD's data directory files. Pure code: every decoder takes bytes the caller
 * read and says whether they are valid; no I/O, no allocation, so a crafted disk can cost
 * at most the few MiB a valid table may have (the limits below). Tested on captured and
 * crafted images in the unit suite (tests/unit/test-ondisk.c) and fuzzed
 * (tests/fuzz/fuzz-ondisk.c). Messages name the structure and the field, not the device:
 * the caller, which knows the device, prefixes it. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"

/* ---- checksums and GUIDs ---------------------------------------------------------- */

/* Reflected CRC-32 (polynomial 0xedb88320), as GPT and zlib use it. */
uint32_t crc32_ieee(uint32_t crc, const void *data, size_t len);
/* Ceph's ceph_crc32c(): Castagnoli, the seed as given, no final inversion. */
uint32_t crc32c_ceph(uint32_t seed, const void *data, size_t len);
/* bcache's bch_crc64(): ECMA-182, MSB first, initial and final value all ones. */
uint64_t crc64_bcache(const void *data, size_t len);

/* GPT GUIDs: on-disk (first three fields little-endian) ↔ text, lowercase. */
int guid_from_string(const char *s, uint8_t out[16]);
void guid_to_string(const uint8_t in[16], char out[37]);
/* On-disk GPT GUID bytes ↔ plain big-endian (RFC 4122, libuuid's uuid_t) bytes: the first
 * three fields swapped; its own inverse. libparted >= 3.6's ped_partition_set_type_uuid()
 * takes a uuid_t and swaps it for the disk itself. */
void guid_swap_rfc(const uint8_t in[16], uint8_t out[16]);
/* Plain big-endian UUID bytes (bcache, BlueStore) to text. */
void uuid_to_string(const uint8_t in[16], char out[37]);

/* ---- GPT -------------------------------------------------------------------------- */

/* What a header may say and still be used. The UEFI spec asks for entries of 128 × 2^n
 * bytes and at least 16 KiB of array; tools write 128 entries of 128 bytes. The caps keep
 * a crafted header from asking for gigabytes (libfdisk and the kernel cap the same way). */
#define GPT_HEADER_SIZE_MIN 92u
#define GPT_ENTRY_SIZE_MIN 128u
#define GPT_ENTRY_SIZE_MAX 4096u
#define GPT_ENTRIES_MAX 1024u
/* n_entries × entry_size of a valid header is at most this (4 MiB) */
#define GPT_ENTRIES_BYTES_MAX ((uint64_t) GPT_ENTRIES_MAX * GPT_ENTRY_SIZE_MAX)

typedef struct GptHeader {
        uint64_t my_lba, alternate_lba, first_usable, last_usable, entries_lba;
        uint32_t n_entries, entry_size, header_size;
        uint32_t entries_crc;
} GptHeader;

/* Decode the header in `sector` (one logical sector of `lss` bytes, read from LBA `lba`
 * of a device of `n_lba` sectors) and check everything that can be checked without the
 * entries: signature, header size (92..lss), header CRC, my_lba == lba, entry size (a
 * multiple of 128, at most 4096), entry count (1..1024), usable area inside the device,
 * the alternate header inside the device and outside the usable area, and the entry array
 * inside the device, clear of this header and of the usable area.
 * Returns 0, -ENOENT when there is no "EFI PART" signature, -EBADMSG naming the first
 * check that failed. *ret is untouched on failure. */
int gpt_header_decode(const uint8_t *sector, size_t lss, uint64_t lba, uint64_t n_lba, GptHeader *ret,
                      Error *err);

/* Bytes and sectors of the entry array of a decoded header. */
static inline uint64_t gpt_entries_bytes(const GptHeader *h) {
        return (uint64_t) h->n_entries * h->entry_size;
}
static inline uint64_t gpt_entries_sectors(const GptHeader *h, size_t lss) {
        return (gpt_entries_bytes(h) + lss - 1) / lss;
}

/* The entry array (gpt_entries_bytes(h) bytes) matches the header's CRC: 0 or -EBADMSG. */
int gpt_entries_check(const GptHeader *h, const uint8_t *entries, size_t len, Error *err);

typedef struct GptEntry {
        uint8_t type[16];
        uint8_t uuid[16];
        uint64_t first_lba, last_lba;
        char name[36 * 3 + 1];   /* UTF-8 (BMP only; surrogates become '?') */
        bool used;               /* type GUID not all zero */
} GptEntry;

/* Decode one entry (at least 128 bytes). */
void gpt_entry_decode(const uint8_t *e, GptEntry *ret);

/* ---- bcache superblock ------------------------------------------------------------ */

/* The superblock is 4 KiB at byte 4096 of the device (sector 8). */
#define BCACHE_SB_OFFSET 4096u
#define BCACHE_SB_SIZE 4096u

typedef enum BcacheSbRole {
        BCACHE_SB_CACHE,
        BCACHE_SB_BACKING,
} BcacheSbRole;

enum { BDEV_STATE_NONE, BDEV_STATE_CLEAN, BDEV_STATE_DIRTY, BDEV_STATE_STALE };

typedef struct BcacheSb {
        BcacheSbRole role;
        uint64_t version;
        char uuid[37];
        char set_uuid[37];       /* "" when all zero; backing: "" when not attached */
        unsigned bdev_state;     /* backing: BDEV_STATE_* */
} BcacheSb;

/* Decode the superblock block (`len` ≥ BCACHE_SB_SIZE bytes from BCACHE_SB_OFFSET) as the
 * kernel's read_super() does: magic, offset == sector 8, a known version, at most 256
 * journal buckets, and the crc64 over the used part. Returns 1 valid, 0 no bcache magic,
 * -EBADMSG for a superblock with the magic that is not valid (err says why). */
int bcache_sb_decode(const uint8_t *sb, size_t len, BcacheSb *ret, Error *err);

/* ---- BlueStore label -------------------------------------------------------------- */

/* Ceph reads the label from the first 4 KiB of the device. */
#define BLUESTORE_LABEL_SIZE 4096u

typedef struct BluestoreLabel {
        char osd_uuid[37];       /* from the text line: "" when it is not a UUID */
        bool valid;              /* the encoded part decoded and its crc32c matched */
        /* only when valid: */
        char description[32];    /* "main", "bluefs db", "bluefs wal" (cut to 31 bytes) */
        char ceph_fsid[37];      /* meta "ceph_fsid" when a UUID, else "" */
        int whoami;              /* meta "whoami", -1 when absent or not a number */
        bool ready;              /* meta "ready" = "ready": OSD::mkfs writes it last, so a main
                                    label without it is an mkfs killed (or failed) half-way */
        uint64_t size;
} BluestoreLabel;

/* Decode a label: "bluestore block device\n<uuid>\n", then bluestore_bdev_label_t
 * (struct_v, compat, length, uuid, size, btime, description, meta map) and its crc32c.
 * Returns 1 when the text line is there (ret->valid says whether the rest is), 0 when it
 * is not a BlueStore label. Never reads past `len`. */
int bluestore_label_decode(const uint8_t *buf, size_t len, BluestoreLabel *ret);

/* ---- FileStore (filestore.c) ---------------------------------------------------------- */

/* FileJournal's header_t at byte 0 of the journal (file or partition). */
#define FILESTORE_JOURNAL_HEADER_SIZE 4096u

typedef struct FilestoreJournalHeader {
        unsigned version;        /* struct version: 2..4 */
        char fsid[37];           /* the OSD's fsid (FileStore's `fsid` file), lowercase */
        uint32_t block_size;
        uint32_t alignment;
        uint64_t max_size;
        uint64_t start;
        uint64_t flags;
} FilestoreJournalHeader;

/* Decode the header as FileJournal::header_t::decode() does for version 2..4: u32 version,
 * u32 length of the encoded part, then flags, fsid (16 raw bytes), block_size, alignment,
 * max_size, start [, committed_up_to (v3), start_seq (v4)], all little-endian. The header
 * has no magic and no checksum (FileJournal checks only that its fsid is the store's), so
 * "valid" is every field in the range FileJournal writes: block size and alignment powers
 * of two from 512 to 64 KiB, flags only FLAG_CRC, max_size above the first block, start
 * inside the ring, a non-zero fsid. Returns 1 valid, 0 not a journal header (pre-0.40
 * version 0/1 headers included: they kept only 64 bits of the fsid). Never reads past
 * `len`. A valid header says "a FileStore journal of the OSD with this fsid", never which
 * OSD id. */
int filestore_journal_header_decode(const uint8_t *buf, size_t len, FilestoreJournalHeader *ret);

typedef struct FilestoreOsdDir {
        int id;                  /* `whoami` */
        char osd_fsid[37];       /* `fsid`, lowercase */
        char cluster_fsid[37];   /* `ceph_fsid`, lowercase */
        char cluster[64];        /* CLUSTER of the directory's name CLUSTER-ID ("ceph") */
} FilestoreOsdDir;

/* Whether the files of a mounted data directory `dir` (its path: ceph-disk and the OSD
 * mount it at /var/lib/ceph/osd/CLUSTER-ID) make it a FileStore OSD: `type` is
 * "filestore", `whoami` a decimal id equal to the ID of the directory's name, `fsid` and
 * `ceph_fsid` UUIDs. The contents are as read (NULL: the file is missing; a trailing
 * newline is fine). Returns 1 a FileStore OSD, 0 not FileStore (no `type`, or another
 * store), -EBADMSG when `type` says filestore but another file is missing or malformed or
 * the name disagrees with `whoami` (err says which): an OSD directory this cannot vouch
 * for. *ret is untouched unless 1 is returned. */
int filestore_osd_dir_parse(const char *dir, const char *type, const char *whoami, const char *fsid,
                            const char *ceph_fsid, FilestoreOsdDir *ret, Error *err);
