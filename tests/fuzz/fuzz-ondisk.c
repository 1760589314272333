/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the on-disk decoders of src/ondisk, on bytes as a crafted disk would
 * hold them. The first byte picks the format:
 *   0  GPT: byte 1 the sector size (512 << (b % 4)), bytes 2-9 the device size in
 *      sectors (little-endian), then one header sector and the entry array
 *   1  bcache superblock (4 KiB)
 *   2  BlueStore label (up to 4 KiB)
 *   3  FileStore journal header (up to 4 KiB)
 *   4  FileStore OSD directory: the directory's path and the files type, whoami, fsid,
 *      ceph_fsid, separated by NUL bytes (fewer parts: the files missing)
 * Checked: whatever a decoder accepts satisfies the bounds the agent relies on when it
 * allocates, reads and wipes by it (ondisk.h), and nothing reads past the input. */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ondisk/ondisk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_gpt(const uint8_t *data, size_t size) {
        if (size < 10)
                return;
        size_t lss = (size_t) 512 << (data[0] % 4);
        uint64_t n_lba = 0;
        for (int i = 7; i >= 0; i--)
                n_lba = n_lba << 8 | data[1 + i];
        data += 9, size -= 9;
        if (size < lss)
                return;
        /* the header as if read from LBA 1 and from the last LBA */
        uint64_t lbas[2] = { 1, n_lba ? n_lba - 1 : 0 };
        for (size_t k = 0; k < 2; k++) {
                GptHeader h;
                Error err = {};
                int r = gpt_header_decode(data, lss, lbas[k], n_lba, &h, &err);
                if (r == -EBADMSG && !err.message[0])
                        __builtin_trap();
                if (r < 0)
                        continue;
                uint64_t arr = gpt_entries_sectors(&h, lss);
                if (gpt_entries_bytes(&h) > GPT_ENTRIES_BYTES_MAX || h.entry_size % 128 != 0 ||
                    h.entry_size < 128 || h.n_entries == 0)
                        __builtin_trap();
                if (h.entries_lba + arr > n_lba || h.last_usable >= n_lba || h.alternate_lba >= n_lba ||
                    h.first_usable > h.last_usable || h.my_lba != lbas[k])
                        __builtin_trap();
                if (h.entries_lba <= h.last_usable && h.entries_lba + arr > h.first_usable)
                        __builtin_trap(); /* the agent would wipe data as "the table" */
                size_t have = size - lss;
                (void) gpt_entries_check(&h, data + lss, have, &err);
                for (uint64_t i = 0; i < h.n_entries && (i + 1) * h.entry_size <= have; i++) {
                        GptEntry e;
                        gpt_entry_decode(data + lss + i * h.entry_size, &e);
                        if (strlen(e.name) >= sizeof(e.name))
                                __builtin_trap();
                }
        }
}

static void fuzz_bcache(const uint8_t *data, size_t size) {
        BcacheSb s;
        Error err = {};
        int r = bcache_sb_decode(data, size, &s, &err);
        if (r < 0 && !err.message[0])
                __builtin_trap();
        if (r > 0 && (strlen(s.uuid) != 36 || (s.set_uuid[0] && strlen(s.set_uuid) != 36) || s.bdev_state > 3))
                __builtin_trap();
}

static void fuzz_bluestore(const uint8_t *data, size_t size) {
        BluestoreLabel l;
        if (bluestore_label_decode(data, size, &l) <= 0)
                return;
        if ((l.osd_uuid[0] && strlen(l.osd_uuid) != 36) || (l.ceph_fsid[0] && strlen(l.ceph_fsid) != 36) ||
            strlen(l.description) >= sizeof(l.description) || l.whoami < -1)
                __builtin_trap();
        if (!l.valid && (l.whoami != -1 || l.ceph_fsid[0]))
                __builtin_trap(); /* nothing but the text line from a label that is not valid */
}

static void fuzz_journal(const uint8_t *data, size_t size) {
        FilestoreJournalHeader h;
        if (filestore_journal_header_decode(data, size, &h) <= 0)
                return;
        if (strlen(h.fsid) != 36 || h.version < 2 || h.version > 4 || h.block_size < 512 ||
            (h.block_size & (h.block_size - 1)) || h.start < h.block_size || h.start >= h.max_size ||
            h.max_size > INT64_MAX)
                __builtin_trap();
}

static void fuzz_filestore_dir(const uint8_t *data, size_t size) {
        /* NUL-separated strings; a copy with a final NUL so the last part ends too */
        char *text = malloc(size + 1);
        if (!text)
                return;
        memcpy(text, data, size);
        text[size] = 0;
        const char *part[5] = {};
        size_t n = 0;
        for (size_t i = 0; n < 5 && i <= size; n++) {
                part[n] = text + i;
                i += strlen(text + i) + 1;
        }
        FilestoreOsdDir d = { .id = -7 };
        Error err = {};
        int r = filestore_osd_dir_parse(part[0], part[1], part[2], part[3], part[4], &d, &err);
        if ((r < 0 && (r != -EBADMSG || !err.message[0])) || (r <= 0 && d.id != -7))
                __builtin_trap();
        if (r > 0 && (d.id < 0 || strlen(d.osd_fsid) != 36 || strlen(d.cluster_fsid) != 36 || !d.cluster[0]))
                __builtin_trap();
        free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1)
                return 0;
        /* a copy of exactly the input, so that ASan sees any read past it */
        uint8_t *buf = malloc(size - 1 ? size - 1 : 1);
        if (!buf)
                return 0;
        memcpy(buf, data + 1, size - 1);
        switch (data[0] % 5) {
        case 0: fuzz_gpt(buf, size - 1); break;
        case 1: fuzz_bcache(buf, size - 1); break;
        case 2: fuzz_bluestore(buf, size - 1); break;
        case 3: fuzz_journal(buf, size - 1); break;
        case 4: fuzz_filestore_dir(buf, size - 1); break;
        }
        free(buf);
        return 0;
}
