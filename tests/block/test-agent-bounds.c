/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Offsets and sizes the agent must not trust, on real loop devices: a create-partition
 * request whose offset + size wraps around 2^64, GPT headers crafted to ask for huge
 * entry arrays or to put their array in the middle of the data, and a delete-partition of
 * an entry the kernel sees elsewhere or that is no place on the disk. Each is refused (or
 * wipes only what the table really occupies) and the bytes of the disk say so. Run as
 * root; skipped (77) otherwise. */

#include <fcntl.h>

#include "agent/agent.h"
#include "agent-call.h"
#include "basic/json-util.h"
#include "basic/sha256.h"
#include "block-util.h"
#include "ondisk/ondisk.h"
#include "plan/plan.h"

#define MiB (1024ULL * 1024ULL)


static void put32(uint8_t *p, uint32_t v) {
        for (int i = 0; i < 4; i++)
                p[i] = (uint8_t) (v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v) {
        for (int i = 0; i < 8; i++)
                p[i] = (uint8_t) (v >> (8 * i));
}

static uint32_t le32(const uint8_t *p) {
        return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static uint64_t le64(const uint8_t *p) {
        return (uint64_t) le32(p) | (uint64_t) le32(p + 4) << 32;
}

/* Rewrite the primary GPT header of `dev` through `patch`, with a correct header CRC:
 * crafted, not corrupted. */
static void craft_header(const char *dev, void (*patch)(uint8_t *h, int fd)) {
        int fd = open(dev, O_RDWR | O_CLOEXEC);
        uint8_t h[512];
        CHECK(fd >= 0 && pread(fd, h, sizeof(h), 512) == (ssize_t) sizeof(h));
        patch(h, fd);
        put32(h + 16, 0);
        put32(h + 16, crc32_ieee(0, h, 92));
        CHECK(pwrite(fd, h, sizeof(h), 512) == (ssize_t) sizeof(h));
        CHECK(fsync(fd) == 0);
        close(fd);
        sh("blockdev --flushbufs %s", dev);
}

/* --- create-partition: offset + size that wraps around 2^64 --- */
static void test_partition_wrap(void) {
        const char *L = bu_loop(64, false);
        AgentState *s = agent_for(L, false);
        json_object *r;
        CHECK(call_ok(s, "create-gpt", "{\"device\":\"%s\"}", L));
        char *before = dev_hash(L, 0, 0);

        /* offset + size = 2^64 + 4096: without checked arithmetic the end is LBA 7, which
         * passes the usable-area and overlap checks; a dry run then said "created" */
        static const struct {
                unsigned long long offset, size;
        } wraps[] = {
                { 18446744073709547520ULL, 8192 },           /* 2^64 - 4096 */
                { 1 * MiB, 18446744073709551104ULL },        /* 2^64 - 512 */
                { 9223372036854775808ULL, 9223372036854775808ULL }, /* 2^63 + 2^63 = 0 */
        };
        for (int dry = 1; dry >= 0; dry--) {
                AgentState *a = agent_for(L, dry);
                for (size_t i = 0; i < ELEMENTSOF(wraps); i++) {
                        r = call(a, "create-partition",
                                 "{\"device\":\"%s\",\"number\":1,\"offset\":%llu,\"size\":%llu,\"name\":\"cp:db:0:node1\","
                                 "\"type_guid\":\"%s\"}",
                                 L, wraps[i].offset, wraps[i].size, CEPH_GUID_BLOCK_DB);
                        CHECK_STREQ(jstr(r, "error.errno"), "ENOSPC");
                        const char *m = jstr(r, "error.message");
                        CHECK(strstr(m, "partition 1") && strstr(m, "ends beyond") && strstr(m, L));
                        if (!strstr(m, "ends beyond"))
                                fprintf(stderr, "  response: %s\n", json_object_to_json_string(r));
                        json_object_put(r);
                }
                agent_state_free(a);
        }
        CHECK(dev_same(L, before));
        free(before);
        CHECK(sh("sgdisk -v %s | grep -q 'No problems found'", L) == 0);
        agent_state_free(s);
}

/* --- GPT headers from disk: entry size and count bounded, array where it says --- */
static void p_huge_entries(uint8_t *h, int fd) {
        put32(h + 84, 1 << 20);   /* 1 MiB per entry: 128 MiB of array, twice the disk */
        put64(h + 40, 100000);    /* first usable: an old wipe zeroed everything before it */
}

static uint64_t array_lba = 50000;

static void p_array_inside(uint8_t *h, int fd) {
        /* the array moved to LBA 50000 (the first usable LBA after it), with a CRC that
         * matches what is there: valid by the spec, and only 32 sectors of table */
        uint8_t arr[128 * 128];
        CHECK(pread(fd, arr, sizeof(arr), (off_t) (array_lba * 512)) == (ssize_t) sizeof(arr));
        put64(h + 72, array_lba);
        put64(h + 40, array_lba + 32);
        put32(h + 88, crc32_ieee(0, arr, sizeof(arr)));
}

static void test_gpt_crafted(void) {
        const char *L = bu_loop(64, false);
        uint64_t size = 64 * MiB, n_lba = size / 512;
        CHECK(sh("dd if=/dev/urandom of=%s bs=1M count=64 status=none && sgdisk -o %s >/dev/null", L, L) == 0);
        craft_header(L, p_huge_entries);
        char *data_before = dev_hash(L, 34 * 512, size - 67 * 512);

        /* create-partition: "no valid GPT", naming the entry size, nothing allocated by it */
        AgentState *s = agent_for(L, false);
        json_object *r = call(s, "create-partition",
                              "{\"device\":\"%s\",\"number\":1,\"offset\":%llu,\"size\":%llu,\"name\":\"x\",\"type_guid\":\"%s\"}",
                              L, 60 * MiB, 1 * MiB, CEPH_GUID_BLOCK_DB);
        CHECK_STREQ(jstr(r, "error.errno"), "EBADMSG");
        CHECK(strstr(jstr(r, "error.message"), "no valid GPT") &&
              strstr(jstr(r, "error.message"), "entry size 1048576"));
        json_object_put(r);
        char *h = dev_hash(L, 34 * 512, size - 67 * 512);
        CHECK_STREQ(h, data_before);
        free(h);

        /* wipe: the standard table areas, not the 48 MiB before "first usable" */
        CHECK(call_ok(s, "wipe", "{\"device\":\"%s\"}", L));
        h = dev_hash(L, 34 * 512, size - 67 * 512);
        CHECK_STREQ(h, data_before);
        free(h);
        free(data_before);
        char *sig = sh_out("blkid -p %s", L);
        CHECK_STREQ(sig, "");
        free(sig);

        /* a valid header whose array sits at LBA 50000: exactly that array is wiped too
         * (fresh random bytes: zeros left by a wrong wipe above would hide a second one) */
        CHECK(sh("dd if=/dev/urandom of=%s bs=1M count=64 status=none && sgdisk -o %s >/dev/null", L, L) == 0);
        craft_header(L, p_array_inside);
        char *low_before = dev_hash(L, 34 * 512, (array_lba - 34) * 512);
        char *high_before = dev_hash(L, (array_lba + 32) * 512, (n_lba - 33 - array_lba - 32) * 512);
        CHECK(call_ok(s, "wipe", "{\"device\":\"%s\"}", L));
        char *low = dev_hash(L, 34 * 512, (array_lba - 34) * 512);
        char *high = dev_hash(L, (array_lba + 32) * 512, (n_lba - 33 - array_lba - 32) * 512);
        CHECK_STREQ(low, low_before);
        CHECK_STREQ(high, high_before);
        char *zeros = sh_out("dd if=%s bs=512 skip=%llu count=32 status=none | tr -d '\\000' | wc -c", L,
                             (unsigned long long) array_lba);
        CHECK_STREQ(zeros, "0");
        free(zeros);
        free(low);
        free(low_before);
        free(high);
        free(high_before);
        agent_state_free(s);
}

/* Set the bounds of entry `idx` (0-based) in both GPT copies of `dev` (512-byte sectors),
 * with the entry-array and header CRCs recomputed, and tell the kernel nothing: a table
 * changed behind its back, or crafted, not corrupted. */
static void craft_entry(const char *dev, unsigned idx, uint64_t first, uint64_t last) {
        int fd = open(dev, O_RDWR | O_CLOEXEC);
        uint8_t h[512];
        CHECK(fd >= 0 && pread(fd, h, sizeof(h), 512) == (ssize_t) sizeof(h));
        uint64_t lbas[2] = { 1, le64(h + 32) };
        for (int i = 0; i < 2; i++) {
                CHECK(pread(fd, h, sizeof(h), (off_t) (lbas[i] * 512)) == (ssize_t) sizeof(h));
                uint64_t arr_lba = le64(h + 72);
                uint32_t n = le32(h + 80), esz = le32(h + 84), hsz = le32(h + 12);
                CHECK(idx < n && esz >= 128 && (size_t) n * esz <= 128 * 128);
                uint8_t arr[128 * 128];
                size_t len = (size_t) n * esz;
                CHECK(pread(fd, arr, len, (off_t) (arr_lba * 512)) == (ssize_t) len);
                put64(arr + (size_t) idx * esz + 32, first);
                put64(arr + (size_t) idx * esz + 40, last);
                put32(h + 88, crc32_ieee(0, arr, len));
                put32(h + 16, 0);
                put32(h + 16, crc32_ieee(0, h, hsz));
                CHECK(pwrite(fd, arr, len, (off_t) (arr_lba * 512)) == (ssize_t) len);
                CHECK(pwrite(fd, h, sizeof(h), (off_t) (lbas[i] * 512)) == (ssize_t) sizeof(h));
        }
        CHECK(fsync(fd) == 0);
        close(fd);
        sh("blockdev --flushbufs %s", dev);
}

/* sha256 of `len` bytes at `off` of `dev`, as on the device: writes through a partition's
 * node do not reach the disk node's page cache */
static char *disk_hash(const char *dev, uint64_t off, uint64_t len) {
        sh("blockdev --flushbufs %s", dev);
        return dev_hash(dev, off, len);
}

static json_object *delete_part(AgentState *s, const char *dev, unsigned no, const char *name) {
        return call(s, "delete-partition", "{\"device\":\"%s\",\"number\":%u,\"name\":\"%s\"}", dev, no, name);
}

/* A GPT with partition 1 'cp:db:0:node1' at 8 MiB, 16 MiB long (the kernel's too), and
 * random bytes everywhere else the tests look. */
static AgentState *disk_with_partition(const char *L) {
        AgentState *s = agent_for(L, false);
        CHECK(call_ok(s, "create-gpt", "{\"device\":\"%s\"}", L));
        CHECK(call_ok(s, "create-partition",
                 "{\"device\":\"%s\",\"number\":1,\"offset\":%llu,\"size\":%llu,\"name\":\"cp:db:0:node1\","
                 "\"type_guid\":\"%s\"}",
                 L, 8 * MiB, 16 * MiB, CEPH_GUID_BLOCK_DB));
        CHECK(sh("test -b %sp1", L) == 0);
        CHECK(sh("dd if=/dev/urandom of=%s bs=1M seek=1 count=62 oflag=direct status=none", L) == 0);
        return s;
}

/* --- delete-partition: the GPT entry and the kernel's partition disagree (the table was
 *     rewritten, the kernel not told): refused, dry run or not, nothing zeroed; once the
 *     kernel re-reads that partition, the GPT's place goes and nothing else --- */
static void test_delete_kernel_differs(void) {
        const char *L = bu_loop(64, false);
        AgentState *s = disk_with_partition(L);
        char kname[64];
        snprintf(kname, sizeof kname, "%sp1", L + 5);

        static const struct {
                uint64_t first, last; /* LBAs the GPT says; the kernel has 8 MiB + 16 MiB */
                const char *gpt, *kernel;
        } cases[] = {
                { 24 * MiB / 512, 40 * MiB / 512 - 1, "the GPT puts it at 24 MiB, 16 MiB long",
                  "at 8 MiB, 16 MiB long" },
                { 8 * MiB / 512, 20 * MiB / 512 - 1, "the GPT puts it at 8 MiB, 12 MiB long",
                  "at 8 MiB, 16 MiB long" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                craft_entry(L, 0, cases[i].first, cases[i].last);
                char *before = disk_hash(L, 0, 0);
                char *head = dev_hash(L, 8 * MiB, 1 * MiB); /* the kernel's partition's first MiB */
                for (int dry = 1; dry >= 0; dry--) {
                        AgentState *a = agent_for(L, dry);
                        json_object *r = delete_part(a, L, 1, "cp:db:0:node1");
                        const char *m = jstr(r, "error.message");
                        CHECK_STREQ(jstr(r, "error.errno"), "EBUSY");
                        CHECK(strstr(m, "partition 1 of") && strstr(m, L) && strstr(m, cases[i].gpt) &&
                              strstr(m, kname) && strstr(m, cases[i].kernel) && strstr(m, "refusing to delete it"));
                        if (!strstr(m, cases[i].gpt))
                                fprintf(stderr, "  response: %s\n", json_object_to_json_string(r));
                        json_object_put(r);
                        agent_state_free(a);
                }
                char *after = disk_hash(L, 0, 0);
                char *head_after = dev_hash(L, 8 * MiB, 1 * MiB);
                CHECK_STREQ(head_after, head);
                CHECK_STREQ(after, before);
                CHECK(sh("test -b %sp1", L) == 0);
                CHECK(sh("sgdisk -i 1 %s | grep -q 'cp:db:0:node1'", L) == 0);
                free(before);
                free(after);
                free(head);
                free(head_after);
        }

        /* the kernel told (one partition, never the whole table): the GPT's place is erased,
         * the bytes where the kernel had it are not */
        craft_entry(L, 0, 24 * MiB / 512, 40 * MiB / 512 - 1);
        CHECK(sh("partx -d --nr 1 %s && partx -a --nr 1 %s", L, L) == 0);
        CHECK(sh("test $(cat /sys/class/block/%s/start) = %llu", kname, 24 * MiB / 512) == 0);
        char *old_place = disk_hash(L, 8 * MiB, 16 * MiB);
        json_object *r = delete_part(s, L, 1, "cp:db:0:node1");
        CHECK(resp_ok(r));
        json_object_put(r);
        char *old_after = disk_hash(L, 8 * MiB, 16 * MiB);
        CHECK_STREQ(old_after, old_place);
        char *nz = sh_out("dd if=%s bs=1M skip=24 count=1 iflag=direct status=none | tr -d '\\000' | wc -c", L);
        CHECK_STREQ(nz, "0");
        CHECK(sh("test -e %sp1", L) != 0);
        free(nz);
        free(old_place);
        free(old_after);
        agent_state_free(s);
}

/* --- delete-partition: an entry that is no place on the disk (it ends before it starts,
 *     or starts on the GPT header), in both copies with valid CRCs: refused, with or
 *     without the kernel's node, nothing zeroed --- */
static void test_delete_entry_insane(void) {
        const char *L = bu_loop(64, false);
        AgentState *s = disk_with_partition(L);

        static const struct {
                uint64_t first, last;
                bool kernel_node;
                const char *why;
        } cases[] = {
                { 40 * MiB / 512, 8 * MiB / 512, true, "ends (LBA 16384) before it starts (LBA 81920)" },
                { 40 * MiB / 512, 8 * MiB / 512, false, "ends (LBA 16384) before it starts (LBA 81920)" },
                { 1, 8 * MiB / 512, false, "lies outside the GPT's usable area" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                if (!cases[i].kernel_node)
                        sh("partx -d --nr 1 %s 2>/dev/null", L);
                CHECK(sh("test -b %sp1", L) == (cases[i].kernel_node ? 0 : 1));
                craft_entry(L, 0, cases[i].first, cases[i].last);
                char *before = disk_hash(L, 0, 0);
                char *head = dev_hash(L, 8 * MiB, 1 * MiB);
                for (int dry = 1; dry >= 0; dry--) {
                        AgentState *a = agent_for(L, dry);
                        json_object *r = delete_part(a, L, 1, "cp:db:0:node1");
                        const char *m = jstr(r, "error.message");
                        CHECK_STREQ(jstr(r, "error.errno"), "EBADMSG");
                        CHECK(strstr(m, "partition 1 of") && strstr(m, L) && strstr(m, cases[i].why) &&
                              strstr(m, "refusing to delete it"));
                        if (!strstr(m, cases[i].why))
                                fprintf(stderr, "  response: %s\n", json_object_to_json_string(r));
                        json_object_put(r);
                        agent_state_free(a);
                }
                char *after = disk_hash(L, 0, 0);
                char *head_after = dev_hash(L, 8 * MiB, 1 * MiB);
                CHECK_STREQ(head_after, head);
                CHECK_STREQ(after, before);
                free(before);
                free(after);
                free(head);
                free(head_after);
        }
        agent_state_free(s);
}

int main(void) {
        bu_init();
        TEST_RUN(test_partition_wrap);
        TEST_RUN(test_gpt_crafted);
        TEST_RUN(test_delete_kernel_differs);
        TEST_RUN(test_delete_entry_insane);
        return test_result();
}
