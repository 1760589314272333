/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The on-disk decoders (src/ondisk) on captured images — a GPT written by sgdisk, bcache
 * superblocks written by make-bcache, a BlueStore label rewritten by ceph-bluestore-tool, a
 * FileStore journal header written by ceph-osd --mkjournal, and FileStore OSD directory files
 * (tests/data/ondisk/README.md) — and on crafted ones: every header that asks for too
 * much, lies about where it is, or has a bad checksum is refused by the decoder, before
 * the agent would allocate or wipe anything by it. */

#include <errno.h>
#include <stdio.h>

#include "ondisk/ondisk.h"
#include "test.h"

#define N_LBA 8192 /* the 4 MiB image the GPT fixtures come from */

static size_t load(const char *name, uint8_t *buf, size_t cap) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/ondisk/%s", getenv("TEST_DATA") ? getenv("TEST_DATA") : "tests/data", name);
        FILE *f = fopen(path, "rb");
        if (!f) {
                fprintf(stderr, "cannot open fixture '%s'\n", path);
                exit(1);
        }
        size_t n = fread(buf, 1, cap, f);
        fclose(f);
        return n;
}

static void put32(uint8_t *p, uint32_t v) {
        for (int i = 0; i < 4; i++)
                p[i] = (uint8_t) (v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v) {
        for (int i = 0; i < 8; i++)
                p[i] = (uint8_t) (v >> (8 * i));
}

/* Recompute a header's CRC, as a crafted (not corrupted) header would have it. */
static void gpt_fix_crc(uint8_t *hdr) {
        uint32_t size = (uint32_t) hdr[12] | (uint32_t) hdr[13] << 8;
        put32(hdr + 16, 0);
        put32(hdr + 16, crc32_ieee(0, hdr, size > 512 ? 512 : size));
}

static void test_checksums(void) {
        /* the catalogue's check values of "123456789" */
        CHECK_INTEQ(crc32_ieee(0, "123456789", 9), 0xcbf43926u);     /* CRC-32/ISO-HDLC */
        CHECK_INTEQ(~crc32c_ceph(~0u, "123456789", 9), 0xe3069283u); /* CRC-32/ISCSI */
        CHECK(crc64_bcache("123456789", 9) == 0x62ec59e3f1a4f00aULL); /* CRC-64/WE */

        uint8_t g[16];
        char s[37];
        CHECK(guid_from_string("30CD0809-C2B2-499C-8879-2D6B78529876", g) == 0);
        CHECK_INTEQ(g[0], 0x09); /* first field little-endian on disk */
        guid_to_string(g, s);
        CHECK_STREQ(s, "30cd0809-c2b2-499c-8879-2d6b78529876");
        /* the uuid_t libparted >= 3.6 takes: big-endian, as the text reads */
        uint8_t rfc[16], back[16];
        static const uint8_t want[16] = { 0x30, 0xcd, 0x08, 0x09, 0xc2, 0xb2, 0x49, 0x9c,
                                          0x88, 0x79, 0x2d, 0x6b, 0x78, 0x52, 0x98, 0x76 };
        guid_swap_rfc(g, rfc);
        CHECK(memcmp(rfc, want, 16) == 0);
        guid_swap_rfc(rfc, back);
        CHECK(memcmp(back, g, 16) == 0);
        CHECK(guid_from_string("30cd0809-c2b2-499c-8879-2d6b7852987", g) == -EINVAL);
        CHECK(guid_from_string("30cd0809xc2b2-499c-8879-2d6b78529876", g) == -EINVAL);
}

static void test_gpt_captured(void) {
        static uint8_t img[34 * 512], bak[33 * 512];
        CHECK_INTEQ(load("gpt-primary.bin", img, sizeof(img)), sizeof(img));
        CHECK_INTEQ(load("gpt-backup.bin", bak, sizeof(bak)), sizeof(bak));

        GptHeader h;
        Error err = {};
        CHECK_INTEQ(gpt_header_decode(img + 512, 512, 1, N_LBA, &h, &err), 0);
        CHECK_INTEQ(h.my_lba, 1);
        CHECK_INTEQ(h.alternate_lba, N_LBA - 1);
        CHECK_INTEQ(h.first_usable, 34);
        CHECK_INTEQ(h.last_usable, N_LBA - 34);
        CHECK_INTEQ(h.entries_lba, 2);
        CHECK_INTEQ(h.n_entries, 128);
        CHECK_INTEQ(h.entry_size, 128);
        CHECK_INTEQ(gpt_entries_sectors(&h, 512), 32);
        CHECK_INTEQ(gpt_entries_check(&h, img + 1024, 128 * 128, &err), 0);

        GptEntry e;
        char t[37];
        gpt_entry_decode(img + 1024, &e);
        CHECK(e.used);
        CHECK_STREQ(e.name, "ceph-db-0");
        CHECK_INTEQ(e.first_lba, 2048);
        CHECK_INTEQ(e.last_lba, 4095);
        guid_to_string(e.type, t);
        CHECK_STREQ(t, "30cd0809-c2b2-499c-8879-2d6b78529876");
        guid_to_string(e.uuid, t);
        CHECK_STREQ(t, "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee");
        gpt_entry_decode(img + 1024 + 128, &e);
        CHECK_STREQ(e.name, "bcache-cache-0");
        CHECK_INTEQ(e.first_lba, 4096);
        gpt_entry_decode(img + 1024 + 2 * 128, &e);
        CHECK(!e.used);

        /* the backup: header in the last sector, its array just before */
        GptHeader b;
        CHECK_INTEQ(gpt_header_decode(bak + 32 * 512, 512, N_LBA - 1, N_LBA, &b, &err), 0);
        CHECK_INTEQ(b.alternate_lba, 1);
        CHECK_INTEQ(b.entries_lba, N_LBA - 33);
        CHECK_INTEQ(gpt_entries_check(&b, bak, 32 * 512, &err), 0);
        CHECK(err.code == 0);

        /* read from the wrong place, or on a device smaller than the table says */
        CHECK_INTEQ(gpt_header_decode(bak + 32 * 512, 512, 1, N_LBA, &b, &err), -EBADMSG);
        error_reset(&err);
        CHECK_INTEQ(gpt_header_decode(img + 512, 512, 1, N_LBA / 2, &h, &err), -EBADMSG);
        CHECK(strstr(err.message, "usable area") != NULL);
        CHECK_INTEQ(gpt_header_decode(img, 512, 0, N_LBA, &h, NULL), -ENOENT); /* the MBR */
}

/* One crafted header: `patch` changes the primary header, the CRC is recomputed (or not),
 * and the decoder must refuse it with a message containing `why`, leaving *ret alone. */
static void crafted(const char *what, void (*patch)(uint8_t *hdr), bool fix_crc, const char *why) {
        static uint8_t img[34 * 512];
        load("gpt-primary.bin", img, sizeof(img));
        patch(img + 512);
        if (fix_crc)
                gpt_fix_crc(img + 512);
        GptHeader h = { .n_entries = 4242 };
        Error err = {};
        int r = gpt_header_decode(img + 512, 512, 1, N_LBA, &h, &err);
        if (r != -EBADMSG || !strstr(err.message, why))
                fprintf(stderr, "  crafted %s: r=%d message '%s'\n", what, r, err.message);
        CHECK_INTEQ(r, -EBADMSG);
        CHECK(strstr(err.message, why) != NULL);
        CHECK_INTEQ(h.n_entries, 4242);
}

static void p_huge_count(uint8_t *h) { put32(h + 80, 0x01000000); }            /* 16 M entries */
static void p_zero_count(uint8_t *h) { put32(h + 80, 0); }
static void p_huge_size(uint8_t *h) { put32(h + 84, 0x40000000); }             /* 1 GiB each */
static void p_odd_size(uint8_t *h) { put32(h + 84, 200); }
static void p_small_size(uint8_t *h) { put32(h + 84, 64); }
static void p_beyond(uint8_t *h) { put64(h + 72, N_LBA - 8); }                 /* array past the end */
static void p_wrapping(uint8_t *h) { put64(h + 72, UINT64_MAX - 4); }          /* entries_lba + size wraps */
static void p_over_data(uint8_t *h) { put64(h + 72, 2048); }                   /* array in the usable area */
static void p_over_header(uint8_t *h) { put64(h + 72, 1); }
static void p_header_size(uint8_t *h) { put32(h + 12, 4096); }
static void p_header_tiny(uint8_t *h) { put32(h + 12, 20); }
static void p_my_lba(uint8_t *h) { put64(h + 24, 7); }
static void p_alternate(uint8_t *h) { put64(h + 32, N_LBA + 100); }
static void p_usable(uint8_t *h) { put64(h + 48, N_LBA + 100); }
static void p_usable_inverted(uint8_t *h) { put64(h + 40, 5000); put64(h + 48, 4000); }
static void p_flip(uint8_t *h) { h[40] ^= 1; }                                 /* a bit rots */

static void test_gpt_crafted(void) {
        crafted("huge entry count", p_huge_count, true, "entries is not in 1..1024");
        crafted("no entries", p_zero_count, true, "entries is not in 1..1024");
        crafted("huge entry size", p_huge_size, true, "entry size 1073741824");
        crafted("entry size 200", p_odd_size, true, "not a multiple of 128");
        crafted("entry size 64", p_small_size, true, "not a multiple of 128");
        crafted("array beyond the device", p_beyond, true, "does not fit the device");
        crafted("array LBA that wraps", p_wrapping, true, "does not fit the device");
        crafted("array over the data", p_over_data, true, "overlaps the header or the usable area");
        crafted("array over the header", p_over_header, true, "does not fit");
        crafted("header size 4096", p_header_size, false, "header size 4096");
        crafted("header size 20", p_header_tiny, false, "header size 20");
        crafted("wrong my_lba", p_my_lba, true, "says it is at LBA 7");
        crafted("alternate beyond the device", p_alternate, true, "alternate header LBA");
        crafted("usable area beyond the device", p_usable, true, "usable area");
        crafted("usable area inverted", p_usable_inverted, true, "usable area");
        crafted("bad header CRC", p_flip, false, "bad header CRC");

        /* a header that is fine with an entry array that is not */
        static uint8_t img[34 * 512];
        load("gpt-primary.bin", img, sizeof(img));
        GptHeader h;
        Error err = {};
        CHECK_INTEQ(gpt_header_decode(img + 512, 512, 1, N_LBA, &h, &err), 0);
        img[1024 + 56] ^= 0x20; /* a letter of the first name */
        CHECK_INTEQ(gpt_entries_check(&h, img + 1024, 128 * 128, &err), -EBADMSG);
        CHECK(strstr(err.message, "bad CRC") != NULL);
        error_reset(&err);
        CHECK_INTEQ(gpt_entries_check(&h, img + 1024, 100, &err), -EBADMSG); /* shorter than the header says */

        /* the largest table a header may describe: 1024 entries of 4096 bytes = 4 MiB */
        h.n_entries = GPT_ENTRIES_MAX;
        h.entry_size = GPT_ENTRY_SIZE_MAX;
        CHECK(gpt_entries_bytes(&h) == GPT_ENTRIES_BYTES_MAX);
        CHECK(GPT_ENTRIES_BYTES_MAX == 4ULL << 20);
}

static void test_bcache(void) {
        static uint8_t sb[BCACHE_SB_SIZE];
        BcacheSb s;
        Error err = {};

        CHECK_INTEQ(load("bcache-backing.sb", sb, sizeof(sb)), sizeof(sb));
        CHECK_INTEQ(bcache_sb_decode(sb, sizeof(sb), &s, &err), 1);
        CHECK(s.role == BCACHE_SB_BACKING);
        CHECK_INTEQ(s.version, 1);
        CHECK_STREQ(s.uuid, "c58f69c2-b12d-4a9f-93c8-9e0e57384f32"); /* blkid -p says so */
        CHECK_STREQ(s.set_uuid, ""); /* made alone: not attached */
        CHECK_INTEQ(s.bdev_state, BDEV_STATE_NONE);

        CHECK_INTEQ(load("bcache-cache.sb", sb, sizeof(sb)), sizeof(sb));
        CHECK_INTEQ(bcache_sb_decode(sb, sizeof(sb), &s, &err), 1);
        CHECK(s.role == BCACHE_SB_CACHE);
        CHECK_STREQ(s.uuid, "ffe16a65-e07d-4457-a2c4-7387f07f23cb");
        CHECK_INTEQ(strlen(s.set_uuid), 36);

        /* attached: BDEV_STATE clean in the flags, checksum recomputed as the kernel does */
        load("bcache-backing.sb", sb, sizeof(sb));
        sb[111] |= 1 << 5; /* bit 61 */
        put64(sb, crc64_bcache(sb + 8, 200));
        CHECK_INTEQ(bcache_sb_decode(sb, sizeof(sb), &s, &err), 1);
        CHECK_INTEQ(s.bdev_state, BDEV_STATE_CLEAN);
        CHECK_INTEQ(strlen(s.set_uuid), 36);

        /* refused: a flipped bit, a wrong sector, too many journal buckets, a short buffer */
        load("bcache-cache.sb", sb, sizeof(sb));
        sb[50] ^= 1;
        CHECK_INTEQ(bcache_sb_decode(sb, sizeof(sb), &s, &err), -EBADMSG);
        CHECK(strstr(err.message, "bad checksum") != NULL);
        load("bcache-cache.sb", sb, sizeof(sb));
        put64(sb + 8, 16);
        put64(sb, crc64_bcache(sb + 8, 200));
        error_reset(&err);
        CHECK_INTEQ(bcache_sb_decode(sb, sizeof(sb), &s, &err), -EBADMSG);
        CHECK(strstr(err.message, "sector 16") != NULL);
        load("bcache-cache.sb", sb, sizeof(sb));
        sb[206] = 0xff, sb[207] = 0xff;
        error_reset(&err);
        CHECK_INTEQ(bcache_sb_decode(sb, sizeof(sb), &s, &err), -EBADMSG);
        CHECK(strstr(err.message, "journal buckets") != NULL);
        CHECK_INTEQ(bcache_sb_decode(sb, 128, &s, NULL), 0);
        memset(sb, 0, sizeof(sb));
        CHECK_INTEQ(bcache_sb_decode(sb, sizeof(sb), &s, NULL), 0);
}

static void test_bluestore(void) {
        static uint8_t buf[BLUESTORE_LABEL_SIZE];
        BluestoreLabel l;

        CHECK_INTEQ(load("bluestore-label.bin", buf, sizeof(buf)), sizeof(buf));
        CHECK_INTEQ(bluestore_label_decode(buf, sizeof(buf), &l), 1);
        CHECK(l.valid);
        CHECK_STREQ(l.osd_uuid, "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9");
        CHECK_STREQ(l.ceph_fsid, "8a9c0b1d-2e3f-4051-8263-748596a7b8c9");
        CHECK_STREQ(l.description, "main");
        CHECK_INTEQ(l.whoami, 12); /* set by ceph-bluestore-tool set-label-key */
        CHECK(l.size == 64ULL << 20);
        CHECK(!l.ready); /* no "ready" key: to the agent, the label of a half-made OSD */

        /* every prefix of the label: never read past it, never valid before the CRC */
        for (size_t n = 0; n < 300; n++) {
                uint8_t *cut = malloc(n ? n : 1);
                memcpy(cut, buf, n);
                int r = bluestore_label_decode(cut, n, &l);
                CHECK(r == (n >= 60 ? 1 : 0));
                if (r > 0 && l.valid)
                        CHECK(n >= 200);
                free(cut);
        }

        /* a flipped bit in the meta: the text line still says BlueStore and which OSD */
        load("bluestore-label.bin", buf, sizeof(buf));
        buf[150] ^= 1;
        CHECK_INTEQ(bluestore_label_decode(buf, sizeof(buf), &l), 1);
        CHECK(!l.valid);
        CHECK_STREQ(l.osd_uuid, "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9");
        CHECK_INTEQ(l.whoami, -1);
        CHECK_STREQ(l.ceph_fsid, "");

        /* a struct length that points past the buffer */
        load("bluestore-label.bin", buf, sizeof(buf));
        put32(buf + 62, 0xfffffff0u);
        CHECK_INTEQ(bluestore_label_decode(buf, sizeof(buf), &l), 1);
        CHECK(!l.valid);

        /* not a UUID on the text line */
        load("bluestore-label.bin", buf, sizeof(buf));
        buf[30] = 'z';
        CHECK_INTEQ(bluestore_label_decode(buf, sizeof(buf), &l), 1);
        CHECK_STREQ(l.osd_uuid, "");
        memset(buf, 0, sizeof(buf));
        CHECK_INTEQ(bluestore_label_decode(buf, sizeof(buf), &l), 0);
}

static void test_filestore_journal(void) {
        static uint8_t buf[FILESTORE_JOURNAL_HEADER_SIZE], img[FILESTORE_JOURNAL_HEADER_SIZE];
        FilestoreJournalHeader h;

        CHECK_INTEQ(load("filestore-journal-header.bin", img, sizeof(img)), sizeof(img));
        CHECK_INTEQ(filestore_journal_header_decode(img, sizeof(img), &h), 1);
        CHECK_STREQ(h.fsid, "ff813a1a-045a-40e3-9567-9abba679bd1c"); /* the store's `fsid` */
        CHECK_INTEQ(h.version, 4);
        CHECK_INTEQ(h.block_size, 4096);
        CHECK_INTEQ(h.alignment, 4096);
        CHECK(h.max_size == 5ULL << 30);
        CHECK(h.start == 4096);
        CHECK(h.flags == 1);

        /* osd.0's journal partition in the FileStore lab (tests/data/ceph/README.md): a block
         * device journal after 50 objects were written through it */
        memset(buf, 0, sizeof(buf));
        CHECK_INTEQ(load("../ceph/pacific/filestore-journal-header-0.out", buf, sizeof(buf)), sizeof(buf));
        CHECK_INTEQ(filestore_journal_header_decode(buf, sizeof(buf), &h), 1);
        CHECK_STREQ(h.fsid, "0377f0b8-d1db-45e6-948d-9f5521d6d24b"); /* osd.0's uuid in filestore-osd-dump */
        CHECK(h.max_size == 60ULL << 20);                              /* the partition */
        CHECK(h.start > 4096 && h.start < h.max_size);                 /* the ring has moved on */

        /* every prefix: never read past it, valid only once the whole v4 part is there */
        for (size_t n = 0; n < 100; n++) {
                uint8_t *cut = malloc(n ? n : 1);
                memcpy(cut, img, n);
                CHECK_INTEQ(filestore_journal_header_decode(cut, n, &h), n >= 8 + 64 ? 1 : 0);
                free(cut);
        }

        /* each field out of what FileJournal writes: not a journal header */
        struct { size_t off; int width; uint64_t v; const char *what; } bad[] = {
                { 0, 4, 0, "version 0 (pre-0.40: 64-bit fsid only)" },
                { 0, 4, 1, "version 1" },
                { 0, 4, 5, "version 5" },
                { 4, 4, 56, "v4 with the v3 length" },
                { 4, 4, 0xfffffff0u, "length past the block" },
                { 8, 8, 2, "unknown flag" },
                { 32, 4, 0, "block size 0" },
                { 32, 4, 4097, "block size not a power of two" },
                { 32, 4, 1u << 20, "block size 1 MiB" },
                { 36, 4, 256, "alignment 256" },
                { 40, 8, 4096, "max_size one block" },
                { 40, 8, UINT64_MAX, "max_size negative" },
                { 48, 8, 0, "start 0" },
                { 48, 8, 5ULL << 30, "start at max_size" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                memcpy(buf, img, sizeof(buf));
                if (bad[i].width == 4)
                        put32(buf + bad[i].off, (uint32_t) bad[i].v);
                else
                        put64(buf + bad[i].off, bad[i].v);
                if (filestore_journal_header_decode(buf, sizeof(buf), &h) != 0)
                        fprintf(stderr, "accepted: %s\n", bad[i].what);
                CHECK_INTEQ(filestore_journal_header_decode(buf, sizeof(buf), &h), 0);
        }
        memcpy(buf, img, sizeof(buf));
        memset(buf + 16, 0, 16);
        CHECK_INTEQ(filestore_journal_header_decode(buf, sizeof(buf), &h), 0); /* no fsid */

        /* version 3 (no start_seq), as Firefly-era journals were */
        memcpy(buf, img, sizeof(buf));
        put32(buf, 3);
        put32(buf + 4, 56);
        CHECK_INTEQ(filestore_journal_header_decode(buf, sizeof(buf), &h), 1);
        CHECK_INTEQ(h.version, 3);

        /* what other things start with: the MBR and GPT of a disk, zeros, a BlueStore label */
        memset(buf, 0, sizeof(buf));
        CHECK_INTEQ(filestore_journal_header_decode(buf, sizeof(buf), &h), 0);
        CHECK_INTEQ(load("gpt-primary.bin", buf, sizeof(buf)), sizeof(buf));
        CHECK_INTEQ(filestore_journal_header_decode(buf, sizeof(buf), &h), 0);
        CHECK_INTEQ(load("bluestore-label.bin", buf, sizeof(buf)), sizeof(buf));
        CHECK_INTEQ(filestore_journal_header_decode(buf, sizeof(buf), &h), 0);
}

static void test_filestore_dir(void) {
        FilestoreOsdDir d = { .id = 99 };
        Error err = {};
        const char *U = "d701884d-32c6-51e3-99e7-68ba0e64e168\n", *C = "5D1E4F0A-8B2C-4E6D-9F3A-7C1B2D3E4F50\n";

        /* as ceph-osd --mkfs and ceph-disk leave it: each file one line */
        CHECK_INTEQ(filestore_osd_dir_parse("/var/lib/ceph/osd/ceph-0", "filestore\n", "0\n", U, C, &d, &err), 1);
        CHECK_INTEQ(d.id, 0);
        CHECK_STREQ(d.osd_fsid, "d701884d-32c6-51e3-99e7-68ba0e64e168");
        CHECK_STREQ(d.cluster_fsid, "5d1e4f0a-8b2c-4e6d-9f3a-7c1b2d3e4f50"); /* lowercased */
        CHECK_STREQ(d.cluster, "ceph");
        CHECK_INTEQ(filestore_osd_dir_parse("/srv/osd/backup-cluster-17/", "filestore", "17", U, C, &d, &err), 1);
        CHECK_INTEQ(d.id, 17);
        CHECK_STREQ(d.cluster, "backup-cluster");

        /* not FileStore: no type, another store (a BlueStore tmpfs directory) */
        d = (FilestoreOsdDir) { .id = 99 };
        CHECK_INTEQ(filestore_osd_dir_parse("/var/lib/ceph/osd/ceph-0", NULL, "0", U, C, &d, &err), 0);
        CHECK_INTEQ(filestore_osd_dir_parse("/var/lib/ceph/osd/ceph-0", "bluestore\n", "0", U, C, &d, &err), 0);
        CHECK_INTEQ(filestore_osd_dir_parse("/var/lib/ceph/osd/ceph-0", "filestorex", "0", U, C, &d, &err), 0);
        CHECK_INTEQ(d.id, 99); /* untouched */

        /* says filestore, but cannot be vouched for */
        struct { const char *dir, *whoami, *fsid, *ceph_fsid, *msg; } bad[] = {
                { "/var/lib/ceph/osd/ceph-0", NULL, U, C, "FileStore OSD directory without a 'whoami' file" },
                { "/var/lib/ceph/osd/ceph-0", "-1", U, C, "FileStore OSD directory: 'whoami' is not an OSD id" },
                { "/var/lib/ceph/osd/ceph-0", "0x0", U, C, "FileStore OSD directory: 'whoami' is not an OSD id" },
                { "/var/lib/ceph/osd/ceph-0", "", U, C, "FileStore OSD directory: 'whoami' is not an OSD id" },
                { "/var/lib/ceph/osd/ceph-1", "99999999999", U, C, "FileStore OSD directory: 'whoami' is not an OSD id" },
                { "/var/lib/ceph/osd/ceph-0", "0", NULL, C, "FileStore OSD directory: no 'fsid' file" },
                { "/var/lib/ceph/osd/ceph-0", "0", "d701884d-32c6-51e3-99e7-68ba0e64e16", C, "FileStore OSD directory: 'fsid' is not a UUID" },
                { "/var/lib/ceph/osd/ceph-0", "0", "d701884d+32c6-51e3-99e7-68ba0e64e168", C, "FileStore OSD directory: 'fsid' is not a UUID" },
                { "/var/lib/ceph/osd/ceph-0", "0", U, NULL, "FileStore OSD directory: no 'ceph_fsid' file" },
                { "/var/lib/ceph/osd/ceph-0", "0", U, "5d1e4f0a-8b2c-4e6d-9f3a-7c1b2d3e4f5g", "FileStore OSD directory: 'ceph_fsid' is not a UUID" },
                { "/var/lib/ceph/osd/ceph-1", "0", U, C, "FileStore OSD directory: its name says osd.1, 'whoami' says osd.0" },
                { "/var/lib/ceph/osd/ceph-01", "1", U, C, "FileStore OSD directory: its name says osd.01, 'whoami' says osd.1" },
                { "/mnt/backup", "0", U, C, "FileStore OSD directory: its name is not CLUSTER-ID" },
                { "/mnt/-0", "0", U, C, "FileStore OSD directory: its name is not CLUSTER-ID" },
                { NULL, "0", U, C, "FileStore OSD directory: its name is not CLUSTER-ID" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                err = (Error) {};
                d = (FilestoreOsdDir) { .id = 99 };
                CHECK_INTEQ(filestore_osd_dir_parse(bad[i].dir, "filestore\n", bad[i].whoami, bad[i].fsid,
                                                    bad[i].ceph_fsid, &d, &err), -EBADMSG);
                CHECK_STREQ(err.message, bad[i].msg);
                CHECK_INTEQ(d.id, 99);
        }
}

int main(void) {
        TEST_RUN(test_checksums);
        TEST_RUN(test_gpt_captured);
        TEST_RUN(test_gpt_crafted);
        TEST_RUN(test_bcache);
        TEST_RUN(test_bluestore);
        TEST_RUN(test_filestore_journal);
        TEST_RUN(test_filestore_dir);
        return test_result();
}
