/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Decoders of the GPT, the bcache superblock and the BlueStore label (see ondisk.h).
 * Every offset and size read from the bytes is checked before it is used, with
 * overflow-checked arithmetic: the input is whatever is on a disk. */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "basic/macro.h"
#include "ondisk.h"

static uint16_t le16(const uint8_t *p) {
        return (uint16_t) (p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p) {
        return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static uint64_t le64(const uint8_t *p) {
        return (uint64_t) le32(p) | (uint64_t) le32(p + 4) << 32;
}

/* ---- checksums and GUIDs ---- */

/* The byte table of a reflected CRC-32 with polynomial poly (reversed form) */
static void crc32_table_fill(uint32_t table[static 256], uint32_t poly) {
        for (uint32_t i = 0; i < 256; i++) {
                uint32_t c = i;
                for (int k = 0; k < 8; k++)
                        c = c & 1 ? poly ^ (c >> 1) : c >> 1;
                table[i] = c;
        }
}

uint32_t crc32_ieee(uint32_t crc, const void *data, size_t len) {
        static uint32_t table[256];
        static bool ready;
        if (!ready) {
                crc32_table_fill(table, 0xedb88320u);
                ready = true;
        }
        const uint8_t *p = data;
        crc = ~crc;
        while (len--)
                crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
        return ~crc;
}

uint32_t crc32c_ceph(uint32_t crc, const void *data, size_t len) {
        static uint32_t table[256];
        static bool ready;
        if (!ready) {
                crc32_table_fill(table, 0x82f63b78u);
                ready = true;
        }
        const uint8_t *p = data;
        while (len--)
                crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
        return crc;
}

uint64_t crc64_bcache(const void *data, size_t len) {
        static uint64_t table[256];
        static bool ready;
        if (!ready) {
                for (uint64_t i = 0; i < 256; i++) {
                        uint64_t c = i << 56;
                        for (int k = 0; k < 8; k++)
                                c = c & (1ULL << 63) ? (c << 1) ^ 0x42f0e1eba9ea3693ULL : c << 1;
                        table[i] = c;
                }
                ready = true;
        }
        const uint8_t *p = data;
        uint64_t crc = ~0ULL;
        while (len--)
                crc = table[((crc >> 56) ^ *p++) & 0xff] ^ (crc << 8);
        return ~crc;
}

static int hexval(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* 36 characters 8-4-4-4-12 of hex digits into 16 bytes in text order. */
static int uuid_parse_text(const char *s, size_t len, uint8_t b[16]) {
        size_t k = 0;
        if (len != 36)
                return -EINVAL;
        for (size_t i = 0; i < 36;) {
                if (i == 8 || i == 13 || i == 18 || i == 23) {
                        if (s[i] != '-')
                                return -EINVAL;
                        i++;
                        continue;
                }
                int h = hexval(s[i]), l = hexval(s[i + 1]);
                if (h < 0 || l < 0)
                        return -EINVAL;
                b[k++] = (uint8_t) (h << 4 | l);
                i += 2;
        }
        return 0;
}

int guid_from_string(const char *s, uint8_t out[16]) {
        uint8_t b[16];
        if (!s || uuid_parse_text(s, strlen(s), b) < 0)
                return -EINVAL;
        /* GPT stores the first three fields little-endian */
        uint8_t o[16] = { b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6] };
        memcpy(o + 8, b + 8, 8);
        memcpy(out, o, 16);
        return 0;
}

void uuid_to_string(const uint8_t b[16], char out[37]) {
        snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                 b[14], b[15]);
}

void guid_swap_rfc(const uint8_t in[16], uint8_t out[16]) {
        uint8_t b[16] = { in[3], in[2], in[1], in[0], in[5], in[4], in[7], in[6] };
        memcpy(b + 8, in + 8, 8);
        memcpy(out, b, 16);
}

void guid_to_string(const uint8_t in[16], char out[37]) {
        uint8_t b[16];
        guid_swap_rfc(in, b);
        uuid_to_string(b, out);
}

/* A UUID in text (36 bytes, not NUL-terminated) copied lowercase into out, or "". */
static void uuid_text_copy(const char *s, size_t len, char out[37]) {
        uint8_t b[16];
        if (uuid_parse_text(s, len, b) < 0) {
                out[0] = 0;
                return;
        }
        uuid_to_string(b, out);
}

/* ---- GPT ---- */

static bool lba_in(uint64_t lba, uint64_t first, uint64_t last) {
        return lba >= first && lba <= last;
}

int gpt_header_decode(const uint8_t *sector, size_t lss, uint64_t lba, uint64_t n_lba, GptHeader *ret,
                      Error *err) {
        if (lss < 512 || lss > 65536)
                return error_set(err, EINVAL, "GPT header: %zu-byte sectors are not supported", lss);
        if (memcmp(sector, "EFI PART", 8) != 0)
                return -ENOENT;

        GptHeader h = {
                .header_size = le32(sector + 12),
                .my_lba = le64(sector + 24),
                .alternate_lba = le64(sector + 32),
                .first_usable = le64(sector + 40),
                .last_usable = le64(sector + 48),
                .entries_lba = le64(sector + 72),
                .n_entries = le32(sector + 80),
                .entry_size = le32(sector + 84),
                .entries_crc = le32(sector + 88),
        };
        if (h.header_size < GPT_HEADER_SIZE_MIN || h.header_size > lss)
                return error_set(err, EBADMSG, "GPT header at LBA %" PRIu64 ": header size %" PRIu32
                                 " is not in %u..%zu", lba, h.header_size, GPT_HEADER_SIZE_MIN, lss);
        /* the CRC covers header_size bytes with its own field zeroed */
        uint32_t stored = le32(sector + 16);
        static const uint8_t zero4[4];
        uint32_t crc = crc32_ieee(0, sector, 16);
        crc = crc32_ieee(crc, zero4, 4);
        crc = crc32_ieee(crc, sector + 20, h.header_size - 20);
        if (crc != stored)
                return error_set(err, EBADMSG, "GPT header at LBA %" PRIu64 ": bad header CRC (0x%08" PRIx32
                                 ", computed 0x%08" PRIx32 ")", lba, stored, crc);
        if (h.my_lba != lba)
                return error_set(err, EBADMSG, "GPT header at LBA %" PRIu64 " says it is at LBA %" PRIu64, lba,
                                 h.my_lba);
        if (h.entry_size < GPT_ENTRY_SIZE_MIN || h.entry_size > GPT_ENTRY_SIZE_MAX || h.entry_size % 128 != 0)
                return error_set(err, EBADMSG, "GPT header at LBA %" PRIu64 ": entry size %" PRIu32
                                 " is not a multiple of 128 in %u..%u", lba, h.entry_size, GPT_ENTRY_SIZE_MIN,
                                 GPT_ENTRY_SIZE_MAX);
        if (h.n_entries < 1 || h.n_entries > GPT_ENTRIES_MAX)
                return error_set(err, EBADMSG, "GPT header at LBA %" PRIu64 ": %" PRIu32
                                 " entries is not in 1..%u", lba, h.n_entries, GPT_ENTRIES_MAX);
        if (h.first_usable > h.last_usable || h.last_usable >= n_lba)
                return error_set(err, EBADMSG, "GPT header at LBA %" PRIu64 ": usable area %" PRIu64 "..%" PRIu64
                                 " does not fit the device's %" PRIu64 " sectors", lba, h.first_usable,
                                 h.last_usable, n_lba);
        if (lba_in(h.my_lba, h.first_usable, h.last_usable) || h.my_lba == 0)
                return error_set(err, EBADMSG, "GPT header at LBA %" PRIu64 " lies inside its usable area or on the MBR",
                                 lba);
        if (h.alternate_lba >= n_lba || h.alternate_lba == h.my_lba || h.alternate_lba == 0 ||
            lba_in(h.alternate_lba, h.first_usable, h.last_usable))
                return error_set(err, EBADMSG, "GPT header at LBA %" PRIu64 ": alternate header LBA %" PRIu64
                                 " is not a place for a header on a device of %" PRIu64 " sectors", lba,
                                 h.alternate_lba, n_lba);

        /* the array: at least LBA 2 (MBR and primary header come first), inside the device,
         * not over this header, not over the usable area */
        uint64_t arr = gpt_entries_sectors(&h, lss), arr_end;
        if (h.entries_lba < 2 || __builtin_add_overflow(h.entries_lba, arr, &arr_end) || arr_end > n_lba)
                return error_set(err, EBADMSG, "GPT header at LBA %" PRIu64 ": entry array at LBA %" PRIu64
                                 " (%" PRIu64 " sectors) does not fit the device's %" PRIu64 " sectors", lba,
                                 h.entries_lba, arr, n_lba);
        if (lba_in(h.my_lba, h.entries_lba, arr_end - 1) ||
            (h.entries_lba <= h.last_usable && h.first_usable <= arr_end - 1))
                return error_set(err, EBADMSG, "GPT header at LBA %" PRIu64 ": entry array at LBA %" PRIu64
                                 "..%" PRIu64 " overlaps the header or the usable area %" PRIu64 "..%" PRIu64,
                                 lba, h.entries_lba, arr_end - 1, h.first_usable, h.last_usable);
        *ret = h;
        return 0;
}

int gpt_entries_check(const GptHeader *h, const uint8_t *entries, size_t len, Error *err) {
        if (len < gpt_entries_bytes(h))
                return error_set(err, EBADMSG, "GPT entry array: %zu bytes, the header says %" PRIu64, len,
                                 gpt_entries_bytes(h));
        uint32_t crc = crc32_ieee(0, entries, (size_t) gpt_entries_bytes(h));
        if (crc != h->entries_crc)
                return error_set(err, EBADMSG, "GPT entry array at LBA %" PRIu64 ": bad CRC (0x%08" PRIx32
                                 ", computed 0x%08" PRIx32 ")", h->entries_lba, h->entries_crc, crc);
        return 0;
}

void gpt_entry_decode(const uint8_t *e, GptEntry *ret) {
        static const uint8_t zero[16];
        *ret = (GptEntry) {};
        memcpy(ret->type, e, 16);
        memcpy(ret->uuid, e + 16, 16);
        ret->first_lba = le64(e + 32);
        ret->last_lba = le64(e + 40);
        ret->used = memcmp(e, zero, 16) != 0;
        /* name: 36 UTF-16LE code units at 56 */
        char *w = ret->name;
        for (int i = 0; i < 36; i++) {
                unsigned c = le16(e + 56 + 2 * i);
                if (c == 0)
                        break;
                if (c >= 0xd800 && c <= 0xdfff)
                        c = '?';
                if (c < 0x80)
                        *w++ = (char) c;
                else if (c < 0x800) {
                        *w++ = (char) (0xc0 | c >> 6);
                        *w++ = (char) (0x80 | (c & 0x3f));
                } else {
                        *w++ = (char) (0xe0 | c >> 12);
                        *w++ = (char) (0x80 | ((c >> 6) & 0x3f));
                        *w++ = (char) (0x80 | (c & 0x3f));
                }
        }
        *w = 0;
}

/* ---- bcache ---- */

/* struct cache_sb: csum u64 @0, offset u64 @8, version u64 @16, magic[16] @24, uuid[16]
 * @40, set_uuid[16] @56, label[32] @72, flags u64 @104, ..., keys u16 @206, d[256] u64
 * @208: the journal buckets, `keys` of them in use. */
#define SB_OFF_KEYS 206
#define SB_OFF_D 208
#define SB_JOURNAL_BUCKETS 256
#define SB_SECTOR 8

static const uint8_t BCACHE_MAGIC[16] = {
        0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca,
        0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba, 0x6d, 0x81,
};

int bcache_sb_decode(const uint8_t *sb, size_t len, BcacheSb *ret, Error *err) {
        if (len < BCACHE_SB_SIZE || memcmp(sb + 24, BCACHE_MAGIC, 16) != 0)
                return 0;
        uint64_t offset = le64(sb + 8), version = le64(sb + 16);
        if (offset != SB_SECTOR)
                return error_set(err, EBADMSG, "bcache superblock: it says it is at sector %" PRIu64 ", not 8", offset);
        /* 0 cache, 1 backing, 3 cache with uuid, 4 backing with offset, 5/6 with features */
        if (version > 6 || version == 2)
                return error_set(err, EBADMSG, "bcache superblock: unknown version %" PRIu64, version);
        unsigned keys = le16(sb + SB_OFF_KEYS);
        if (keys > SB_JOURNAL_BUCKETS)
                return error_set(err, EBADMSG, "bcache superblock: %u journal buckets, at most %u", keys,
                                 SB_JOURNAL_BUCKETS);
        uint64_t stored = le64(sb), crc = crc64_bcache(sb + 8, SB_OFF_D + (size_t) keys * 8 - 8);
        if (stored != crc)
                return error_set(err, EBADMSG, "bcache superblock: bad checksum (0x%016" PRIx64 ", computed 0x%016"
                                 PRIx64 ")", stored, crc);

        BcacheSb s = { .version = version };
        s.role = version == 1 || version == 4 || version == 6 ? BCACHE_SB_BACKING : BCACHE_SB_CACHE;
        uuid_to_string(sb + 40, s.uuid);
        /* make-bcache writes the set uuid it generated into every superblock, a backing
         * device made alone included: there it names no cache set. A backing device is
         * attached only when BDEV_STATE (flags bits 61-62) is not NONE; the kernel sets it
         * when attaching and zeroes both when detaching. */
        uint64_t flags = le64(sb + 104);
        if (s.role == BCACHE_SB_BACKING)
                s.bdev_state = (unsigned) (flags >> 61) & 3;
        bool attached = s.role == BCACHE_SB_CACHE || s.bdev_state != BDEV_STATE_NONE;
        static const uint8_t zero[16];
        if (attached && memcmp(sb + 56, zero, 16) != 0)
                uuid_to_string(sb + 56, s.set_uuid);
        *ret = s;
        return 1;
}

/* ---- BlueStore ---- */

static const char BLUESTORE_MAGIC[] = "bluestore block device\n";

typedef struct Cursor {
        const uint8_t *p;
        size_t left;
} Cursor;

static bool cur_skip(Cursor *c, size_t n) {
        if (c->left < n)
                return false;
        c->p += n;
        c->left -= n;
        return true;
}

static bool cur_u32(Cursor *c, uint32_t *v) {
        if (c->left < 4)
                return false;
        *v = le32(c->p);
        return cur_skip(c, 4);
}

static bool cur_u64(Cursor *c, uint64_t *v) {
        if (c->left < 8)
                return false;
        *v = le64(c->p);
        return cur_skip(c, 8);
}

static bool cur_str(Cursor *c, const char **s, uint32_t *len) {
        if (!cur_u32(c, len) || c->left < *len)
                return false;
        *s = (const char *) c->p;
        return cur_skip(c, *len);
}

int bluestore_label_decode(const uint8_t *buf, size_t len, BluestoreLabel *ret) {
        const size_t ml = sizeof(BLUESTORE_MAGIC) - 1;
        if (len < ml + 37 || memcmp(buf, BLUESTORE_MAGIC, ml) != 0 || buf[ml + 36] != '\n')
                return 0;

        BluestoreLabel l = { .whoami = -1 };
        uuid_text_copy((const char *) buf + ml, 36, l.osd_uuid);

        /* ENCODE_START(2, 1): struct_v, compat, then `length` bytes of the struct */
        Cursor c = { buf + ml + 37, len - ml - 37 };
        uint32_t blen;
        if (!cur_skip(&c, 2) || !cur_u32(&c, &blen) || c.left < blen) {
                *ret = l;
                return 1;
        }
        /* the crc32c (seed -1) of everything before it follows the struct */
        size_t crc_off = (size_t) (c.p - buf) + blen;
        if (len - crc_off < 4 || le32(buf + crc_off) != crc32c_ceph(0xffffffffu, buf, crc_off)) {
                *ret = l;
                return 1;
        }

        Cursor b = { c.p, blen };
        const char *desc;
        uint32_t dlen, n;
        uint64_t size;
        /* uuid, size, btime (u32 sec, u32 nsec), description, meta */
        if (!cur_skip(&b, 16) || !cur_u64(&b, &size) || !cur_skip(&b, 8) || !cur_str(&b, &desc, &dlen) ||
            !cur_u32(&b, &n)) {
                *ret = l;
                return 1;
        }
        l.size = size;
        memcpy(l.description, desc, MIN(dlen, (uint32_t) sizeof(l.description) - 1));
        l.description[MIN(dlen, (uint32_t) sizeof(l.description) - 1)] = 0;
        for (uint32_t i = 0; i < n; i++) {
                const char *k, *v;
                uint32_t kl, vl;
                if (!cur_str(&b, &k, &kl) || !cur_str(&b, &v, &vl)) {
                        *ret = l;
                        return 1; /* a map shorter than its count: not valid */
                }
                if (kl == 6 && memcmp(k, "whoami", 6) == 0) {
                        int id = 0;
                        bool ok = vl > 0 && vl <= 9;
                        for (uint32_t j = 0; ok && j < vl; j++) {
                                ok = v[j] >= '0' && v[j] <= '9';
                                id = id * 10 + (v[j] - '0');
                        }
                        l.whoami = ok ? id : -1;
                } else if (kl == 9 && memcmp(k, "ceph_fsid", 9) == 0)
                        uuid_text_copy(v, vl, l.ceph_fsid);
                else if (kl == 5 && memcmp(k, "ready", 5) == 0)
                        l.ready = vl == 5 && memcmp(v, "ready", 5) == 0;
        }
        l.valid = true;
        *ret = l;
        return 1;
}
