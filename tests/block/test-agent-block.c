/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent on real loop devices: probe, GPT partitioning, wipe, refusals, crash and
 * re-run, bcache without the module, the protocol loop, FileStore OSDs. Results are checked against
 * blkid, sgdisk and sha256 of the bytes. Run as root; skipped (77) otherwise. */

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <time.h>

#include "agent/agent.h"
#include "agent-call.h"
#include "controller/step-requests.h"
#include "basic/json-util.h"
#include "basic/sha256.h"
#include "block-util.h"
#include "plan/plan.h"

#define DB_GUID CEPH_GUID_BLOCK_DB
#define MiB (1024ULL * 1024ULL)

static uint64_t dev_size(const char *dev) {
        char *s = sh_out("blockdev --getsize64 %s", dev);
        uint64_t v = strtoull(s, NULL, 10);
        free(s);
        return v;
}

/* blkid -p value for a device ("" if none). */
static char *blkid_val(const char *dev, const char *tag) {
        return sh_out("blkid -p -o value -s %s %s 2>/dev/null", tag, dev);
}

/* --- sha256 against sha256sum and the FIPS vectors --- */
static void test_sha256(void) {
        uint8_t d[32];
        char hex[65];
        sha256_buffer("abc", 3, d);
        sha256_to_hex(d, hex);
        CHECK_STREQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        sha256_buffer("", 0, d);
        sha256_to_hex(d, hex);
        CHECK_STREQ(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        sha256_buffer(m, strlen(m), d);
        sha256_to_hex(d, hex);
        CHECK_STREQ(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");

        _cleanup_json_ json_object *h = NULL;
        Error err = {};
        CHECK(agent_hello(&h, &err) == 0);
        char *want = sh_out("sha256sum /proc/%d/exe | cut -d' ' -f1", (int) getpid());
        CHECK_STREQ(jstr(h, "hello.build"), want);
        CHECK_INTEQ(json_object_get_int(jget(h, "hello.protocol")), 1);
        CHECK_STREQ(jstr(h, "hello.agent"), "cephprov");
        free(want);
}

/* --- the protocol loop over pipes --- */
static void test_serve(void) {
        int in[2], out[2];
        CHECK(pipe(in) == 0 && pipe(out) == 0);
        pid_t pid = fork();
        if (pid == 0) {
                close(in[1]);
                close(out[0]);
                _exit(agent_serve(in[0], out[1]) < 0 ? 1 : 0);
        }
        close(in[0]);
        close(out[1]);
        const char *reqs =
                "{\"id\":1,\"op\":\"inventory\"}\n"
                "this is not json\n"
                "{\"id\":2,\"op\":\"configure\",\"args\":{\"host\":\"n9\",\"allow\":[]}}\n"
                "{\"id\":3,\"op\":\"frobnicate\"}\n"
                "{\"id\":4,\"op\":\"run\",\"args\":{\"argv\":[\"cat\"],\"stdin\":\"hello\\n\"}}\n"
                "{\"id\":5,\"op\":\"exit\"}\n"
                "{\"id\":6,\"op\":\"inventory\"}\n";
        CHECK(write(in[1], reqs, strlen(reqs)) == (ssize_t) strlen(reqs));
        /* stdin stays open until the answers are in: EOF means the controller went away,
         * and the agent kills what an op runs then */
        FILE *f = fdopen(out[0], "r");
        char *line = NULL;
        size_t cap = 0;
        json_object *lines[16] = {};
        int n = 0;
        while (n < 16 && getline(&line, &cap, f) > 0)
                lines[n++] = json_tokener_parse(line);
        free(line);
        fclose(f);
        close(in[1]);
        int st;
        waitpid(pid, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);

        CHECK_INTEQ(n, 7); /* hello + 6 responses, none after exit */
        CHECK(jget(lines[0], "hello") != NULL);
        CHECK_STREQ(jstr(lines[1], "error.errno"), "EPERM");          /* not configured yet */
        CHECK(json_object_get_type(jget(lines[2], "id")) == json_type_null); /* unparseable */
        CHECK_STREQ(jstr(lines[2], "error.errno"), "EINVAL");
        CHECK(jbool(lines[3], "ok"));
        CHECK_STREQ(jstr(lines[4], "error.errno"), "EOPNOTSUPP");
        CHECK(strstr(jstr(lines[4], "error.message"), "frobnicate") != NULL);
        CHECK_STREQ(jstr(lines[5], "result.stdout"), "hello\n");
        CHECK_INTEQ(json_object_get_int(jget(lines[5], "result.exit")), 0);
        CHECK_INTEQ(json_object_get_int(jget(lines[6], "id")), 5);
        for (int i = 0; i < n; i++)
                json_object_put(lines[i]);
}

static void test_run(void) {
        AgentState *s = agent_configured("[]", false);
        json_object *r = call(s, "run", "{\"argv\":[\"sh\",\"-c\",\"echo $X; echo err >&2; exit 3\"],\"env\":{\"X\":\"42\"}}");
        CHECK(resp_ok(r));
        CHECK_STREQ(jstr(r, "result.stdout"), "42\n");
        CHECK_STREQ(jstr(r, "result.stderr"), "err\n");
        CHECK_INTEQ(json_object_get_int(jget(r, "result.exit")), 3);
        json_object_put(r);
        r = call(s, "run", "{\"argv\":[\"sleep\",\"10\"],\"timeout\":1}");
        CHECK_STREQ(jstr(r, "error.errno"), "ETIMEDOUT");
        json_object_put(r);
        /* a daemon keeping stdout open does not hold the answer back */
        r = call(s, "run", "{\"argv\":[\"sh\",\"-c\",\"echo started; sleep 5 & exit 0\"],\"timeout\":30}");
        CHECK(resp_ok(r));
        CHECK_STREQ(jstr(r, "result.stdout"), "started\n");
        json_object_put(r);
        r = call(s, "run", "{\"argv\":[\"/nonexistent/cmd\"]}");
        CHECK_STREQ(jstr(r, "error.errno"), "ENOENT");
        json_object_put(r);
        agent_state_free(s);

        /* dry run: only commands marked read_only run */
        s = agent_configured("[]", true);
        r = call(s, "run", "{\"argv\":[\"true\"]}");
        CHECK_STREQ(jstr(r, "error.errno"), "EPERM");
        json_object_put(r);
        r = call(s, "run", "{\"argv\":[\"echo\",\"q\"],\"read_only\":true}");
        CHECK(resp_ok(r));
        CHECK_STREQ(jstr(r, "result.stdout"), "q\n");
        json_object_put(r);
        agent_state_free(s);
}

/* Find partition `no` of device `dev` in an inventory result. */
static json_object *inv_part(json_object *inv, const char *dev, unsigned no) {
        json_object *devs = jget(inv, "result.devices");
        for (size_t i = 0; devs && i < json_object_array_length(devs); i++) {
                json_object *d = json_object_array_get_idx(devs, i);
                if (!streq(jstr(d, "path"), dev))
                        continue;
                if (no == 0)
                        return d;
                json_object *parts = jget(d, "partitions");
                for (size_t k = 0; parts && k < json_object_array_length(parts); k++) {
                        json_object *p = json_object_array_get_idx(parts, k);
                        if ((unsigned) json_object_get_int(jget(p, "number")) == no)
                                return p;
                }
        }
        return NULL;
}

/* sgdisk's "First sector: N" etc. for partition `no`. */
static uint64_t sgdisk_field(const char *dev, unsigned no, const char *field) {
        char *s = sh_out("sgdisk -i %u %s | sed -n 's/^%s: \\([0-9]*\\).*/\\1/p'", no, dev, field);
        uint64_t v = strtoull(s, NULL, 10);
        free(s);
        return v;
}

static void check_part_matches_tools(json_object *inv, const char *dev, unsigned no) {
        json_object *p = inv_part(inv, dev, no);
        CHECK(p != NULL);
        if (!p)
                return;
        char node[64];
        snprintf(node, sizeof(node), "%sp%u", dev, no);
        CHECK_STREQ(jstr(p, "node"), node);
        CHECK_INTEQ(json_object_get_int64(jget(p, "start")), sgdisk_field(dev, no, "First sector") * 512);
        CHECK_INTEQ(json_object_get_int64(jget(p, "size")),
                    (sgdisk_field(dev, no, "Last sector") - sgdisk_field(dev, no, "First sector") + 1) * 512);
        const char *tags[][2] = { { "PART_ENTRY_UUID", "partuuid" }, { "PART_ENTRY_NAME", "name" },
                                  { "PART_ENTRY_TYPE", "type_guid" }, { "TYPE", "content.fstype" },
                                  { "UUID", "content.uuid" }, { "LABEL", "content.label" } };
        for (size_t i = 0; i < ELEMENTSOF(tags); i++) {
                char *want = blkid_val(node, tags[i][0]);
                CHECK_STREQ(jstr(p, tags[i][1]), want);
                free(want);
        }
}

/* --- probe: GPT + BIOS boot + xfs + swap + bcache cache, compared with blkid/sgdisk --- */
static void test_probe(void) {
        const char *L = bu_loop(1024, false);
        CHECK(sh("sgdisk -n 1:2048:+1M -t 1:ef02 -c 1:bios -n 2:0:+400M -t 2:8300 -c 2:data "
                 "-n 3:0:+64M -t 3:8200 -c 3:swap -n 4:0:+64M -c 4:cache %s >/dev/null && partx -a %s", L, L) == 0);
        CHECK(sh("mkfs.xfs -q -f -L cpxfs %sp2 && mkswap -q -L cpswap %sp3 >/dev/null", L, L) == 0);
        bool have_bcache = sh("make-bcache -C %sp4 >/dev/null 2>&1", L) == 0;

        AgentState *s = agent_configured("[]", false);
        char allow[128];
        snprintf(allow, sizeof(allow), "[\"%s\"]", L);
        json_object *r = call(s, "inventory", "{}");
        CHECK(resp_ok(r));
        CHECK(inv_part(r, L, 0) == NULL); /* not allowed → not listed */
        json_object_put(r);
        r = call(s, "inventory", "{\"all\":true}");
        CHECK(inv_part(r, L, 0) != NULL && !jbool(inv_part(r, L, 0), "allowed"));
        CHECK_INTEQ(json_object_array_length(jget(inv_part(r, L, 0), "partitions")), 4);
        json_object_put(r);
        agent_state_free(s);

        s = agent_configured(allow, false);
        r = call(s, "inventory", "{}");
        CHECK(resp_ok(r));
        json_object *d = inv_part(r, L, 0);
        CHECK(d && jbool(d, "allowed"));
        CHECK_STREQ(jstr(d, "pttype"), "gpt");
        char *ptuuid = blkid_val(L, "PTUUID");
        CHECK_STREQ(jstr(d, "ptuuid"), ptuuid);
        free(ptuuid);
        CHECK_INTEQ(json_object_get_int64(jget(d, "size")), 1024 * MiB);
        CHECK(!jbool(d, "rotational"));
        char *fu = sh_out("sgdisk -p %s | sed -n 's/^First usable sector is \\([0-9]*\\), last usable sector is \\([0-9]*\\)$/\\1 \\2/p'", L);
        unsigned long long f1 = 0, f2 = 0;
        CHECK(sscanf(fu, "%llu %llu", &f1, &f2) == 2);
        free(fu);
        CHECK_INTEQ(json_object_get_int64(jget(d, "first_usable")), f1 * 512);
        CHECK_INTEQ(json_object_get_int64(jget(d, "last_usable")), (f2 + 1) * 512 - 1);
        CHECK_INTEQ(json_object_array_length(jget(d, "partitions")), 4);
        for (unsigned i = 1; i <= 3; i++)
                check_part_matches_tools(r, L, i);
        CHECK_STREQ(jstr(inv_part(r, L, 1), "type_guid"), "21686148-6449-6e6f-744e-656564454649");
        CHECK_STREQ(jstr(inv_part(r, L, 2), "content.fstype"), "xfs");
        CHECK_STREQ(jstr(inv_part(r, L, 3), "content.fstype"), "swap");
        if (have_bcache) {
                char node[64];
                snprintf(node, sizeof(node), "%sp4", L);
                json_object *p4 = inv_part(r, L, 4);
                CHECK_STREQ(jstr(p4, "content.fstype"), "bcache");
                CHECK_STREQ(jstr(p4, "content.bcache.role"), "cache");
                char *uuid = sh_out("bcache-super-show %s | sed -n 's/^dev.uuid[[:space:]]*//p'", node);
                char *set = sh_out("bcache-super-show %s | sed -n 's/^cset.uuid[[:space:]]*//p'", node);
                CHECK_STREQ(jstr(p4, "content.bcache.dev_uuid"), uuid);
                CHECK_STREQ(jstr(p4, "content.bcache.set_uuid"), set);
                free(uuid);
                free(set);
        }
        /* what the agent sends is what the planner reads: it parses and re-encodes the same */
        Inventory *parsed = NULL;
        Error perr = {};
        CHECK(inventory_from_json(jget(r, "result"), &parsed, &perr) == 0);
        if (parsed) {
                json_object *again = NULL;
                CHECK(inventory_to_json(parsed, &again) == 0);
                CHECK(json_object_equal(again, jget(r, "result")));
                json_object_put(again);
                inventory_free(parsed);
        } else
                fprintf(stderr, "  %s\n", perr.message);
        json_object_put(r);

        /* usage: an active swap and a mount show up */
        char node[64], mnt[300];
        snprintf(node, sizeof(node), "%sp3", L);
        bool swapped = swapon(node, 0) == 0;
        snprintf(mnt, sizeof(mnt), "%s/mnt", bu_dir);
        mkdir(mnt, 0755);
        bool mounted = sh("mount %sp2 %s", L, mnt) == 0;
        CHECK(swapped);
        CHECK(mounted);
        r = call(s, "inventory", "{}");
        CHECK(jbool(inv_part(r, L, 3), "content.swap_active"));
        CHECK(!jbool(inv_part(r, L, 2), "content.swap_active"));
        CHECK_STREQ(jstr(inv_part(r, L, 2), "content.mountpoint"), mnt);
        json_object_put(r);

        /* wipe refuses a mounted partition, an active swap, and the disk holding them */
        char dev2[64];
        snprintf(dev2, sizeof(dev2), "%sp2", L);
        /* p2 is mounted (xfs writes its log) and p3 is swap: hash the rest */
        json_object *inv = call(s, "inventory", "{}");
        uint64_t p2_start = (uint64_t) json_object_get_int64(jget(inv_part(inv, L, 2), "start"));
        uint64_t p4_start = (uint64_t) json_object_get_int64(jget(inv_part(inv, L, 4), "start"));
        json_object_put(inv);
        char *before = dev_hash(L, 0, p2_start);
        char *before4 = dev_hash(L, p4_start, 0);
        r = call(s, "wipe", "{\"device\":\"%s\"}", dev2);
        CHECK_STREQ(jstr(r, "error.errno"), "EBUSY");
        CHECK(strstr(jstr(r, "error.message"), "mounted on") && strstr(jstr(r, "error.message"), dev2));
        json_object_put(r);
        r = call(s, "wipe", "{\"device\":\"%s\"}", node);
        CHECK_STREQ(jstr(r, "error.errno"), "EBUSY");
        CHECK(strstr(jstr(r, "error.message"), "swap") != NULL);
        json_object_put(r);
        r = call(s, "wipe", "{\"device\":\"%s\"}", L);
        CHECK_STREQ(jstr(r, "error.errno"), "EBUSY");
        CHECK(strstr(jstr(r, "error.message"), L) != NULL);
        json_object_put(r);
        r = call(s, "create-gpt", "{\"device\":\"%s\"}", L);
        CHECK(resp_ok(r) && !jbool(r, "result.created")); /* already GPT */
        json_object_put(r);
        if (mounted)
                sh("umount %s", mnt);
        if (swapped)
                swapoff(node);
        char *after = dev_hash(L, 0, p2_start), *after4 = dev_hash(L, p4_start, 0);
        CHECK_STREQ(before, after);
        CHECK_STREQ(before4, after4);
        free(before);
        free(after);
        free(before4);
        free(after4);

        /* wipe a partition: its content only, the table stays */
        r = call(s, "wipe", "{\"device\":\"%s\"}", node);
        CHECK(resp_ok(r));
        CHECK_STREQ(json_object_get_string(json_object_array_get_idx(jget(r, "result.wiped"), 0)), "swap");
        json_object_put(r);
        char *t = blkid_val(node, "TYPE");
        CHECK_STREQ(t, "");
        free(t);
        t = blkid_val(dev2, "TYPE");
        CHECK_STREQ(t, "xfs");
        free(t);
        CHECK(sh("sgdisk -v %s | grep -q 'No problems found'", L) == 0);

        /* wipe the whole disk: partition contents, GPT (both copies), kernel partitions */
        r = call(s, "wipe", "{\"device\":\"%s\"}", L);
        CHECK(resp_ok(r));
        const char *w = json_object_to_json_string(jget(r, "result.wiped"));
        CHECK(strstr(w, "xfs") && strstr(w, "gpt"));
        CHECK_INTEQ(json_object_array_length(jget(r, "result.partitions_removed")), 4);
        json_object_put(r);
        char *sig = sh_out("wipefs -n %s; blkid -p %s", L, L);
        CHECK_STREQ(sig, "");
        free(sig);
        CHECK(access(dev2, F_OK) < 0 || sh("test -e /sys/class/block/%s/%sp2", L + 5, L + 5) != 0);
        /* no GPT header in the last sectors either */
        char *tail = sh_out("dd if=%s bs=512 skip=%llu count=1 2>/dev/null | head -c 8", L,
                            (unsigned long long) (dev_size(L) / 512 - 1));
        CHECK(strcmp(tail, "EFI PART") != 0);
        free(tail);
        agent_state_free(s);
}

static json_object *create_part(AgentState *s, const char *dev, unsigned no, uint64_t off, uint64_t size,
                                const char *name, const char *guid) {
        return call(s, "create-partition",
                    "{\"device\":\"%s\",\"number\":%u,\"offset\":%llu,\"size\":%llu,\"name\":\"%s\",\"type_guid\":\"%s\"}",
                    dev, no, (unsigned long long) off, (unsigned long long) size, name, guid);
}

/* --- a BlueStore label (written here in Ceph's encoding, cross-checked with
 *     ceph-bluestore-tool when installed) is read back: OSD id, fsids, role --- */
/* ready: the label of a finished mkfs (OSD::mkfs writes "ready" last); without it, the
 * label of an mkfs killed half-way */
static void bluestore_label_check(bool ready) {
        const char *L = bu_loop(64, true);
        const char *osd_uuid = "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9";
        const char *fsid = "8a9c0b1d-2e3f-4051-8263-748596a7b8c9";
        const char *const meta[] = { "ceph_fsid", fsid, "type", "bluestore", "whoami", "7",
                                     ready ? "ready" : NULL, "ready", NULL };
        uint8_t buf[4096];
        bluestore_label(buf, osd_uuid, 64 * MiB, "main", meta);
        int fd = open(L, O_WRONLY);
        CHECK(fd >= 0 && pwrite(fd, buf, sizeof(buf), 0) == (ssize_t) sizeof(buf));
        fsync(fd);
        close(fd);

        if (sh("command -v ceph-bluestore-tool >/dev/null") == 0) {
                char *who = sh_out("ceph-bluestore-tool show-label --dev %s 2>/dev/null | "
                                   "sed -n 's/.*\"whoami\": \"\\(.*\\)\".*/\\1/p'", L);
                CHECK_STREQ(who, "7"); /* Ceph's own tool decodes our fixture */
                free(who);
        }
        char allow[128];
        snprintf(allow, sizeof(allow), "[\"%s\"]", L);
        AgentState *s = agent_configured(allow, false);
        json_object *r = call(s, "inventory", "{}");
        json_object *d = inv_part(r, L, 0);
        CHECK_STREQ(jstr(d, "content.fstype"), "ceph_bluestore");
        CHECK_INTEQ(json_object_get_int(jget(d, "content.osd.id")), 7);
        CHECK_STREQ(jstr(d, "content.osd.osd_fsid"), osd_uuid);
        CHECK_STREQ(jstr(d, "content.osd.cluster_fsid"), fsid);
        CHECK_STREQ(jstr(d, "content.osd.role"), "block");
        CHECK_STREQ(jstr(d, "content.osd.objectstore"), "bluestore");
        CHECK_INTEQ(jget(d, "content.osd.incomplete") != NULL, !ready);
        char *u = blkid_val(L, "UUID");
        CHECK_STREQ(jstr(d, "content.uuid"), u);
        free(u);
        json_object_put(r);
        if (!ready) {
                /* a half-made OSD is touched only with the controller's proof for its uuid */
                r = call(s, "osd-create", "{\"device\":\"%s\",\"osd_id\":7}", L);
                CHECK(!resp_ok(r) && strstr(jstr(r, "error.message"), "half-made BlueStore OSD (osd uuid 0b1c2d3e-"));
                json_object_put(r);
                r = call(s, "osd-create", "{\"device\":\"%s\",\"osd_id\":7,\"redo_osd_fsid\":\"%s\"}", L, fsid);
                CHECK(!resp_ok(r) && strstr(jstr(r, "error.message"), "refusing to touch it"));
                json_object_put(r);
                uint8_t after[4096];
                fd = open(L, O_RDONLY);
                CHECK(fd >= 0 && pread(fd, after, sizeof(after), 0) == (ssize_t) sizeof(after));
                close(fd);
                CHECK(memcmp(buf, after, sizeof(buf)) == 0);
        }
        agent_state_free(s);
}

static void test_bluestore_label(void) {
        bluestore_label_check(true);
        bluestore_label_check(false);
}

/* --- fresh GPT and Ceph partitions, checked with sgdisk and blkid --- */
static void test_create(void) {
        const char *L = bu_loop(512, false);
        char allow[128];
        snprintf(allow, sizeof(allow), "[\"%s\"]", L);

        AgentState *dry = agent_configured(allow, true);
        json_object *r = call(dry, "create-gpt", "{\"device\":\"%s\"}", L);
        CHECK(resp_ok(r) && jbool(r, "result.dry_run"));
        json_object_put(r);
        char *sig = sh_out("blkid -p %s", L);
        CHECK_STREQ(sig, ""); /* dry run wrote nothing */
        free(sig);
        agent_state_free(dry);

        AgentState *s = agent_configured(allow, false);
        r = call(s, "create-gpt", "{\"device\":\"%s\"}", L);
        CHECK(resp_ok(r) && jbool(r, "result.created"));
        json_object_put(r);
        r = call(s, "create-gpt", "{\"device\":\"%s\"}", L);
        CHECK(resp_ok(r) && !jbool(r, "result.created"));
        json_object_put(r);

        /* a dry run of a partition: validated, said, not written */
        dry = agent_configured(allow, true);
        char *gpt_only = dev_hash(L, 0, 0);
        r = create_part(dry, L, 1, 1 * MiB, 64 * MiB, "cp:db:0:node1", CEPH_GUID_BLOCK_DB);
        CHECK(resp_ok(r) && jbool(r, "result.created") && jbool(r, "result.dry_run"));
        json_object_put(r);
        r = create_part(dry, L, 1, 1 * MiB, 1024 * MiB, "cp:db:0:node1", CEPH_GUID_BLOCK_DB);
        CHECK_STREQ(jstr(r, "error.errno"), "ENOSPC"); /* checks still apply */
        json_object_put(r);
        char *still = dev_hash(L, 0, 0);
        CHECK_STREQ(gpt_only, still);
        free(gpt_only);
        free(still);
        agent_state_free(dry);

        static const struct {
                unsigned no;
                uint64_t off, size;
                const char *name, *guid, *sgdisk_name;
        } parts[] = {
                { 1, 1 * MiB, 64 * MiB, "cp:db:0:node1", CEPH_GUID_BLOCK_DB, "Ceph block DB" },
                { 2, 65 * MiB, 16 * MiB, "cp:wal:0:node1", CEPH_GUID_BLOCK_WAL, "Ceph block write-ahead log" },
                { 3, 81 * MiB, 100 * MiB, "cp:cache:0:node1", BCACHE_GUID, NULL },
                { 5, 200 * MiB, 10 * MiB, "cp:journal:1:node1", CEPH_GUID_JOURNAL, "Ceph journal" },
        };
        for (size_t i = 0; i < ELEMENTSOF(parts); i++) {
                r = create_part(s, L, parts[i].no, parts[i].off, parts[i].size, parts[i].name, parts[i].guid);
                CHECK(resp_ok(r) && jbool(r, "result.created"));
                char node[64];
                snprintf(node, sizeof(node), "%sp%u", L, parts[i].no);
                CHECK_STREQ(jstr(r, "result.node"), node);
                CHECK(access(node, F_OK) == 0);
                char *pu = blkid_val(node, "PART_ENTRY_UUID");
                CHECK_STREQ(jstr(r, "result.partuuid"), pu);
                free(pu);
                json_object_put(r);

                char *code = sh_out("sgdisk -i %u %s | sed -n 's/^Partition GUID code: \\([^ ]*\\).*/\\1/p' | tr A-F a-f",
                                    parts[i].no, L);
                CHECK_STREQ(code, parts[i].guid);
                free(code);
                if (parts[i].sgdisk_name) {
                        char *full = sh_out("sgdisk -i %u %s | sed -n 's/^Partition GUID code: [^ ]* (\\(.*\\))$/\\1/p'",
                                            parts[i].no, L);
                        CHECK_STREQ(full, parts[i].sgdisk_name);
                        free(full);
                }
                char *name = sh_out("sgdisk -i %u %s | sed -n \"s/^Partition name: '\\(.*\\)'$/\\1/p\"", parts[i].no, L);
                CHECK_STREQ(name, parts[i].name);
                free(name);
                CHECK_INTEQ(sgdisk_field(L, parts[i].no, "First sector"), parts[i].off / 512);
                CHECK_INTEQ(sgdisk_field(L, parts[i].no, "Last sector"), (parts[i].off + parts[i].size) / 512 - 1);
                char *bt = blkid_val(node, "PART_ENTRY_TYPE");
                CHECK_STREQ(bt, parts[i].guid);
                free(bt);
                /* the kernel's view: sysfs start/size */
                char *ks = sh_out("cat /sys/class/block/%s/start", node + 5);
                CHECK_INTEQ(strtoull(ks, NULL, 10), parts[i].off / 512);
                free(ks);
        }
        CHECK(sh("sgdisk -v %s | grep -q 'No problems found'", L) == 0);
        /* the backup table carries the same entries (types included) as the primary */
        char *backup = sh_out("dd if=%s bs=512 skip=%llu count=32 2>/dev/null | sha256sum | cut -c1-64", L,
                              (unsigned long long) (dev_size(L) / 512 - 33));
        char *primary = sh_out("dd if=%s bs=512 skip=2 count=32 2>/dev/null | sha256sum | cut -c1-64", L);
        CHECK_STREQ(primary, backup); /* identical entry arrays */
        free(backup);
        free(primary);

        /* idempotent: the same requests change nothing */
        char *before = dev_hash(L, 0, 0);
        for (size_t i = 0; i < ELEMENTSOF(parts); i++) {
                r = create_part(s, L, parts[i].no, parts[i].off, parts[i].size, parts[i].name, parts[i].guid);
                CHECK(resp_ok(r) && !jbool(r, "result.created"));
                json_object_put(r);
        }
        CHECK(dev_same(L, before));

        /* conflicts are errors naming the partition, and change nothing */
        r = create_part(s, L, 2, 65 * MiB, 32 * MiB, "cp:wal:0:node1", CEPH_GUID_BLOCK_WAL);
        CHECK_STREQ(jstr(r, "error.errno"), "EEXIST");
        CHECK(strstr(jstr(r, "error.message"), "partition 2") != NULL);
        json_object_put(r);
        r = create_part(s, L, 4, 100 * MiB, 8 * MiB, "cp:db:9:node1", DB_GUID);
        CHECK_STREQ(jstr(r, "error.errno"), "EEXIST");
        CHECK(strstr(jstr(r, "error.message"), "overlap partition 3") != NULL);
        json_object_put(r);
        r = create_part(s, L, 4, 500 * MiB, 100 * MiB, "cp:db:9:node1", DB_GUID);
        CHECK_STREQ(jstr(r, "error.errno"), "ENOSPC");
        json_object_put(r);
        r = create_part(s, L, 4, 300 * MiB + 100, 8 * MiB, "x", DB_GUID);
        CHECK_STREQ(jstr(r, "error.errno"), "EINVAL");
        json_object_put(r);
        CHECK(dev_same(L, before));
        free(before);

        /* plan steps go through agent_request_from_step() unchanged */
        Step st = { .id = 1, .kind = STEP_CREATE_PARTITION, .device = (char *) L, .partnum = 4,
                    .offset = 220 * MiB, .size = 20 * MiB, .partname = (char *) "cp:db:1:node1",
                    .type_guid = CEPH_GUID_BLOCK_DB };
        _cleanup_json_ json_object *req = NULL;
        CHECK(agent_request_from_step(&st, &req) == 0);
        json_object_object_add(req, "id", json_object_new_int(999));
        json_object *resp = NULL;
        CHECK(agent_dispatch(s, req, &resp, NULL, NULL) == 0);
        CHECK(resp_ok(resp) && jbool(resp, "result.created"));
        json_object_put(resp);
        agent_state_free(s);
}

/* --- 4Kn: 4096-byte logical sectors (LBA arithmetic, the GPT patch) --- */
static void test_4kn(void) {
        char img[300];
        snprintf(img, sizeof(img), "%s/4kn.img", bu_dir);
        CHECK(sh("truncate -s 256M '%s'", img) == 0);
        char *dev = sh_out("losetup -f --show -P -b 4096 '%s'", img);
        if (!startswith(dev, "/dev/loop")) {
                fprintf(stderr, "  cannot attach a 4Kn loop device\n");
                CHECK(0);
                free(dev);
                return;
        }
        snprintf(bu_loops[bu_n_loops++], sizeof(bu_loops[0]), "%s", dev);
        free(dev);
        const char *L = bu_loops[bu_n_loops - 1];
        char allow[128];
        snprintf(allow, sizeof(allow), "[\"%s\"]", L);
        AgentState *s = agent_configured(allow, false);
        json_object *r;
        CHECK(call_ok(s, "create-gpt", "{\"device\":\"%s\"}", L));
        r = create_part(s, L, 1, 1 * MiB, 64 * MiB, "cp:cache:0:node1", BCACHE_GUID);
        CHECK(resp_ok(r) && jbool(r, "result.created"));
        json_object_put(r);
        r = create_part(s, L, 2, 65 * MiB, 32 * MiB, "cp:db:0:node1", CEPH_GUID_BLOCK_DB);
        CHECK(resp_ok(r) && jbool(r, "result.created"));
        json_object_put(r);
        r = create_part(s, L, 3, 97 * MiB + 512, 4 * MiB, "x", CEPH_GUID_BLOCK_DB);
        CHECK_STREQ(jstr(r, "error.errno"), "EINVAL"); /* not a multiple of 4096 */
        json_object_put(r);
        CHECK(sh("sgdisk -v %s | grep -q 'No problems found'", L) == 0);
        CHECK_INTEQ(sgdisk_field(L, 1, "First sector"), 1 * MiB / 4096);
        CHECK_INTEQ(sgdisk_field(L, 2, "Last sector"), 97 * MiB / 4096 - 1);
        char *code = sh_out("sgdisk -i 2 %s | sed -n 's/^Partition GUID code: \\([^ ]*\\).*/\\1/p' | tr A-F a-f", L);
        CHECK_STREQ(code, CEPH_GUID_BLOCK_DB);
        free(code);
        r = call(s, "inventory", "{}");
        json_object *d = inv_part(r, L, 0);
        CHECK_INTEQ(json_object_get_int(jget(d, "logical_sector_size")), 4096);
        CHECK_INTEQ(json_object_get_int64(jget(inv_part(r, L, 2), "start")), 65 * MiB);
        CHECK_INTEQ(json_object_get_int64(jget(inv_part(r, L, 2), "size")), 32 * MiB);
        CHECK_STREQ(jstr(inv_part(r, L, 1), "type_guid"), BCACHE_GUID);
        json_object_put(r);
        CHECK(call_ok(s, "wipe", "{\"device\":\"%s\"}", L));
        char *sig = sh_out("blkid -p %s; dd if=%s bs=4096 skip=%llu count=1 2>/dev/null | head -c 8", L, L,
                           (unsigned long long) (dev_size(L) / 4096 - 1));
        CHECK_STREQ(sig, ""); /* no table left, backup header included */
        free(sig);
        agent_state_free(s);
}

/* --- scenario 1, scaled: an SSD with BIOS boot, OS and swap gets DB and cache partitions --- */
static void test_scenario_ssd(void) {
        const char *L = bu_loop(1024, false);
        CHECK(sh("sgdisk -n 1:2048:+1M -t 1:ef02 -c 1:bios -n 2:0:+96M -t 2:fd00 -c 2:os "
                 "-n 3:0:+48M -t 3:fd00 -c 3:swap %s >/dev/null && partx -a %s", L, L) == 0);
        for (unsigned i = 1; i <= 3; i++)
                CHECK(sh("dd if=/dev/urandom of=%sp%u bs=1M count=%u 2>/dev/null", L, i, i == 1 ? 1 : i == 2 ? 96 : 48) == 0);

        uint64_t size = dev_size(L);
        char *info_before[4], *hash_before[4];
        for (unsigned i = 1; i <= 3; i++) {
                char node[64];
                snprintf(node, sizeof(node), "%sp%u", L, i);
                info_before[i] = sh_out("sgdisk -i %u %s", i, L);
                hash_before[i] = dev_hash(node, 0, 0);
        }
        /* every byte outside the two GPT copies (LBA 0-33, last 33 LBAs) */
        char *outside_before = dev_hash(L, 34 * 512, size - 67 * 512);
        char *lba0_before = dev_hash(L, 0, 446); /* boot code of the protective MBR */

        char allow[128];
        snprintf(allow, sizeof(allow), "[\"%s\"]", L);
        AgentState *s = agent_configured(allow, false);
        json_object *inv = call(s, "inventory", "{}");
        CHECK(resp_ok(inv));
        /* the planner's free space: after partition 3, 1 MiB aligned */
        json_object *p3 = inv_part(inv, L, 3);
        uint64_t free_start = (uint64_t) json_object_get_int64(jget(p3, "start")) +
                              (uint64_t) json_object_get_int64(jget(p3, "size"));
        free_start = (free_start + MiB - 1) / MiB * MiB;
        json_object_put(inv);

        static const struct {
                const char *name, *guid;
                uint64_t size;
        } want[] = {
                { "cp:db:0:node1", CEPH_GUID_BLOCK_DB, 96 * MiB },
                { "cp:cache:0:node1", BCACHE_GUID, 192 * MiB },
                { "cp:db:1:node1", CEPH_GUID_BLOCK_DB, 96 * MiB },
                { "cp:cache:1:node1", BCACHE_GUID, 192 * MiB },
        };
        for (int run = 0; run < 2; run++) {
                uint64_t off = free_start;
                for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                        json_object *r = create_part(s, L, 4 + (unsigned) i, off, want[i].size, want[i].name, want[i].guid);
                        CHECK(resp_ok(r));
                        CHECK(jbool(r, "result.created") == (run == 0));
                        json_object_put(r);
                        off += want[i].size;
                }
        }

        for (unsigned i = 1; i <= 3; i++) {
                char node[64];
                snprintf(node, sizeof(node), "%sp%u", L, i);
                char *info = sh_out("sgdisk -i %u %s", i, L);
                char *hash = dev_hash(node, 0, 0);
                CHECK_STREQ(info, info_before[i]);
                CHECK_STREQ(hash, hash_before[i]);
                free(info);
                free(hash);
                free(info_before[i]);
                free(hash_before[i]);
        }
        char *outside = dev_hash(L, 34 * 512, size - 67 * 512);
        CHECK_STREQ(outside, outside_before);
        char *lba0 = dev_hash(L, 0, 446);
        CHECK_STREQ(lba0, lba0_before);
        free(outside);
        free(outside_before);
        free(lba0);
        free(lba0_before);
        CHECK(sh("sgdisk -v %s | grep -q 'No problems found'", L) == 0);
        for (unsigned i = 4; i <= 7; i++) {
                char node[64];
                snprintf(node, sizeof(node), "%sp%u", L, i);
                CHECK(access(node, F_OK) == 0);
        }
        agent_state_free(s);
}

/* --- refusals leave the bytes alone --- */
static void test_refusals(void) {
        const char *L = bu_loop(512, true);
        CHECK(sh("mkfs.xfs -q -f %s", L) == 0);
        char *before = dev_hash(L, 0, 0);

        /* outside the allow-list: every destructive op refuses, naming the device */
        AgentState *s = agent_configured("[\"/dev/nonexistent-disk\", \"/dev/disk/by-id/none-*\"]", false);
        const char *ops[][2] = { { "create-gpt", "device" }, { "wipe", "device" } };
        for (size_t i = 0; i < ELEMENTSOF(ops); i++) {
                json_object *r = call(s, ops[i][0], "{\"%s\":\"%s\"}", ops[i][1], L);
                CHECK_STREQ(jstr(r, "error.errno"), "EPERM");
                CHECK(strstr(jstr(r, "error.message"), L) && strstr(jstr(r, "error.message"), "allow-list"));
                json_object_put(r);
        }
        json_object *r = create_part(s, L, 1, MiB, MiB, "x", DB_GUID);
        CHECK_STREQ(jstr(r, "error.errno"), "EPERM");
        json_object_put(r);
        agent_state_free(s);

        /* allowed through a symlink glob: create-gpt still refuses a device with data */
        char link[300], allow[700];
        snprintf(link, sizeof(link), "%s/by-test-hdd0", bu_dir);
        CHECK(symlink(L, link) == 0);
        snprintf(allow, sizeof(allow), "[\"%s/by-test-hdd*\"]", bu_dir);
        s = agent_configured(allow, false);
        r = call(s, "create-gpt", "{\"device\":\"%s\"}", L);
        CHECK_STREQ(jstr(r, "error.errno"), "EEXIST");
        CHECK(strstr(jstr(r, "error.message"), "xfs") && strstr(jstr(r, "error.message"), L));
        json_object_put(r);
        CHECK(dev_same(L, before));

        /* dry run: says what it would wipe, wipes nothing */
        agent_state_free(s);
        s = agent_configured(allow, true);
        r = call(s, "wipe", "{\"device\":\"%s\"}", link);
        CHECK(resp_ok(r));
        CHECK_STREQ(json_object_get_string(json_object_array_get_idx(jget(r, "result.wiped"), 0)), "xfs");
        json_object_put(r);
        CHECK(dev_same(L, before));
        free(before);

        /* asked for real: wiped, then a GPT goes on */
        agent_state_free(s);
        s = agent_configured(allow, false);
        CHECK(call_ok(s, "wipe", "{\"device\":\"%s\"}", link));
        char *sig = sh_out("blkid -p %s", L);
        CHECK_STREQ(sig, "");
        free(sig);
        r = call(s, "create-gpt", "{\"device\":\"%s\"}", link);
        CHECK(resp_ok(r) && jbool(r, "result.created"));
        json_object_put(r);
        agent_state_free(s);
}

/* --- killed in the middle of a multi-partition creation, then re-run --- */
static void create_three(const char *L, const char *allow) {
        AgentState *s = agent_configured(allow, false);
        for (unsigned i = 1; i <= 3; i++) {
                char name[32];
                snprintf(name, sizeof(name), "cp:db:%u:node1", i - 1);
                json_object *r = create_part(s, L, i, i * 32 * MiB, 32 * MiB, name, DB_GUID);
                if (getenv("BLOCK_TEST_CHILD"))
                        fprintf(stderr, "child: partition %u %s\n", i, resp_ok(r) ? "done" : "failed");
                json_object_put(r);
        }
        agent_state_free(s);
}

static void test_crash_rerun(void) {
        const char *L = bu_loop(256, false);
        char allow[128];
        snprintf(allow, sizeof(allow), "[\"%s\"]", L);
        AgentState *s = agent_configured(allow, false);
        json_object *r;
        CHECK(call_ok(s, "create-gpt", "{\"device\":\"%s\"}", L));

        /* 1: SIGKILL from outside after the first partition (a pipe says when) */
        int pfd[2];
        CHECK(pipe(pfd) == 0);
        pid_t pid = fork();
        if (pid == 0) {
                close(pfd[0]);
                AgentState *c = agent_configured(allow, false);
                json_object *cr = create_part(c, L, 1, 32 * MiB, 32 * MiB, "cp:db:0:node1", DB_GUID);
                ssize_t _unused_ n = write(pfd[1], resp_ok(cr) ? "1" : "0", 1);
                for (;;)
                        pause(); /* "busy" with the next one until killed */
        }
        close(pfd[1]);
        char c = 0;
        CHECK(read(pfd[0], &c, 1) == 1 && c == '1');
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(pfd[0]);

        /* 2: a process that dies by SIGKILL between libparted's commit and the type GUID patch
         * of partition 2 (the hook raises SIGKILL at exactly that point) */
        pid = fork();
        if (pid == 0) {
                setenv("CEPHPROV_TEST_CRASH_AFTER_COMMIT", "2", 1);
                setenv("BLOCK_TEST_CHILD", "1", 1);
                create_three(L, allow);
                _exit(0);
        }
        int st;
        waitpid(pid, &st, 0);
        CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
        char *code = sh_out("sgdisk -i 2 %s | sed -n 's/^Partition GUID code: \\([^ ]*\\).*/\\1/p' | tr A-F a-f", L);
        CHECK_STREQ(code, LINUX_DATA_GUID); /* the crash left libparted's default type */
        free(code);

        /* the re-run completes: 1 exists, 2 repaired, 3 created */
        for (unsigned i = 1; i <= 3; i++) {
                char name[32];
                snprintf(name, sizeof(name), "cp:db:%u:node1", i - 1);
                r = create_part(s, L, i, i * 32 * MiB, 32 * MiB, name, DB_GUID);
                CHECK(resp_ok(r));
                CHECK(jbool(r, "result.created") == (i == 3));
                CHECK(jbool(r, "result.repaired") == (i == 2));
                json_object_put(r);
                code = sh_out("sgdisk -i %u %s | sed -n 's/^Partition GUID code: \\([^ ]*\\).*/\\1/p' | tr A-F a-f", i, L);
                CHECK_STREQ(code, DB_GUID);
                free(code);
                char node[64];
                snprintf(node, sizeof(node), "%sp%u", L, i);
                CHECK(access(node, F_OK) == 0);
        }
        CHECK(sh("sgdisk -v %s | grep -q 'No problems found'", L) == 0);
        agent_state_free(s);
}

/* --- bcache without the kernel module: ENODEV naming host and module --- */
static void test_bcache_unavailable(void) {
        if (access("/sys/fs/bcache", F_OK) == 0) {
                fprintf(stderr, "  (bcache is loaded here: the vm tier tests the real lifecycle)\n");
                CHECK(1);
                return;
        }
        const char *L = bu_loop(64, true);
        char allow[128];
        snprintf(allow, sizeof(allow), "[\"%s\"]", L);
        AgentState *s = agent_configured(allow, false);
        char a_dev[128], a_attach[256], a_tune[256], a_backing[128];
        snprintf(a_dev, sizeof(a_dev), "{\"device\":\"%s\",\"role\":\"backing\"}", L);
        snprintf(a_attach, sizeof(a_attach), "{\"backing\":\"%s\",\"cache\":\"%s\"}", L, L);
        snprintf(a_tune, sizeof(a_tune), "{\"backing\":\"%s\",\"cache_mode\":\"writeback\",\"sequential_cutoff\":0}", L);
        snprintf(a_backing, sizeof(a_backing), "{\"backing\":\"%s\"}", L);
        struct {
                const char *op;
                const char *args;
        } ops[] = {
                { "make-bcache", a_dev },
                { "bcache-register", a_dev },
                { "bcache-attach", a_attach },
                { "bcache-tune", a_tune },
                { "bcache-teardown", a_backing },
        };
        char *before = dev_hash(L, 0, 0);
        for (size_t i = 0; i < ELEMENTSOF(ops); i++) {
                json_object *r = call(s, ops[i].op, "%s", ops[i].args);
                CHECK_STREQ(jstr(r, "error.errno"), "ENODEV");
                CHECK_STREQ(jstr(r, "error.message"),
                            "bcache is not available on host 'node1': kernel module 'bcache' not loaded (/sys/fs/bcache missing)");
                json_object_put(r);
        }
        json_object *r = call(s, "inventory", "{}");
        CHECK(resp_ok(r) && !jbool(r, "result.bcache_available"));
        json_object_put(r);
        CHECK(dev_same(L, before));
        free(before);
        agent_state_free(s);
}


/* osd-create waits for the per-device lock a bounded time and then says who holds what */
static void test_osd_lock_bounded(void) {
        const char *L = bu_loop(64, true);
        char allow[128];
        snprintf(allow, sizeof(allow), "[\"%s\"]", L);
        AgentState *s = agent_configured(allow, false);
        (void) mkdir("/run/cephprov", 0755);
        char lock[256];
        snprintf(lock, sizeof(lock), "/run/cephprov/osd-create-%s.lock", strrchr(L, '/') + 1);
        int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        CHECK(flock(fd, LOCK_EX | LOCK_NB) == 0); /* "another osd-create" holds it */
        char *before = dev_hash(L, 0, 0);
        double t0 = bu_now_s();
        json_object *r = call(s, "osd-create", "{\"device\":\"%s\",\"osd_id\":0,\"lock_timeout\":1}", L);
        double dt = bu_now_s() - t0;
        CHECK_STREQ(jstr(r, "error.errno"), "ETIMEDOUT");
        CHECK(strstr(jstr(r, "error.message"), "another OSD creation on") != NULL);
        CHECK(strstr(jstr(r, "error.message"), lock) != NULL);
        CHECK(strstr(jstr(r, "error.message"), "after 1 s") != NULL);
        CHECK(dt >= 0.95 && dt < 3.0);
        json_object_put(r);
        CHECK(dev_same(L, before));
        free(before);
        close(fd);
        unlink(lock);
        agent_state_free(s);
}

/* --- a signature written through a partition's node while the partition is held open
 *     (bcache holds its cache partition for good): a held partition keeps its disk open, so
 *     what the disk's page cache read before stays there; the inventory still sees the new
 *     signature, as `blkid -p` of the partition does (seen in the vm tier: 3 of 4 bcache
 *     cache partitions read as blank) --- */
static void test_probe_held_partition(void) {
        const char *L = bu_loop(64, false);
        CHECK(sh("sgdisk -n 1:2048:+16M -c 1:cache %s >/dev/null && partx -a %s 2>/dev/null; udevadm settle 2>/dev/null; "
                 "test -b %sp1", L, L, L) == 0);
        char p1[64], allow[128];
        snprintf(p1, sizeof(p1), "%sp1", L);
        snprintf(allow, sizeof(allow), "[\"%s\"]", L);
        int held = open(p1, O_RDONLY | O_CLOEXEC); /* the holder: keeps p1, and so the disk, open */
        CHECK(held >= 0);

        AgentState *s = agent_configured(allow, false);
        json_object *r = call(s, "inventory", "{}");
        CHECK(resp_ok(r));
        CHECK_STREQ(jstr(inv_part(r, L, 1), "content.fstype"), ""); /* blank, and now in the disk's cache */
        json_object_put(r);
        /* any earlier reader of the disk (udev, blkid) leaves the partition's head in the
         * disk's cache; then the signature is written through the partition */
        CHECK(sh("dd if=%s bs=4096 skip=256 count=4 of=/dev/null 2>/dev/null", L) == 0);
        CHECK(sh("mkswap -q -L cpheld %s >/dev/null && sync", p1) == 0);
        /* the disk's cache really is stale: reading through the disk (the old way) is blind */
        _cleanup_(freep) char *via_disk = sh_out("dd if=%s bs=4096 skip=256 count=1 2>/dev/null | tail -c 10 | tr -d '\\0'", L);
        CHECK_STREQ(via_disk, "");

        r = call(s, "inventory", "{}");
        CHECK(resp_ok(r));
        CHECK_STREQ(jstr(inv_part(r, L, 1), "content.fstype"), "swap");
        CHECK_STREQ(jstr(inv_part(r, L, 1), "content.label"), "cpheld");
        json_object_put(r);
        agent_state_free(s);
        close(held);
}

#define RUN(fn)                                                                 \
        do {                                                                    \
                double t0_ = bu_now_s();                                        \
                TEST_RUN(fn);                                                   \
                fprintf(stderr, "     %s took %.2f s\n", #fn, bu_now_s() - t0_); \
        } while (0)

/* --- delete-partition: only the named partition goes (its signatures, the kernel's node, the
 *     GPT entry); the others stay byte-identical; by name only; idempotent; a held one refused --- */
static void test_delete_partition(void) {
        const char *L = bu_loop(64, false);
        char allow[512];
        snprintf(allow, sizeof allow, "[\"%s\"]", L);
        AgentState *s = agent_configured(allow, false);
        json_object *r;
        CHECK(call_ok(s, "create-gpt", "{\"device\":\"%s\"}", L));
        const uint64_t M = 1024 * 1024;
        r = create_part(s, L, 1, 1 * M, 8 * M, "os", "0fc63daf-8483-4772-8e79-3d69d8477de4");
        CHECK(resp_ok(r));
        json_object_put(r);
        r = create_part(s, L, 2, 9 * M, 16 * M, "cp:db:0:node1", "30cd0809-c2b2-499c-8879-2d6b78529876");
        CHECK(resp_ok(r));
        json_object_put(r);
        r = create_part(s, L, 3, 25 * M, 8 * M, "cp:cache:0:node1", "c6b0f3a9-3ae3-4dd0-98bb-6e54b7b7b9f6");
        CHECK(resp_ok(r));
        json_object_put(r);
        /* data in the kept partition, a "signature" at the start of the one to delete */
        CHECK(sh("dd if=/dev/urandom of=%sp1 bs=1M count=8 oflag=direct status=none", L) == 0);
        CHECK(sh("printf 'bluefs label' | dd of=%sp2 conv=notrunc,fsync status=none", L) == 0);
        _cleanup_(freep) char *sum1 = sh_out("sha256sum < %sp1", L), *sum3 = sh_out("sha256sum < %sp3", L);

        /* by name only */
        r = call(s, "delete-partition", "{\"device\":\"%s\",\"number\":2,\"name\":\"cp:db:1:node1\"}", L);
        CHECK(!resp_ok(r) && streq(jstr(r, "error.errno"), "EEXIST"));
        json_object_put(r);
        /* held open exclusively by someone else: refused, nothing changed */
        pid_t holder = fork();
        if (holder == 0) {
                char node[64];
                snprintf(node, sizeof node, "%sp2", L);
                int fd = open(node, O_RDONLY | O_EXCL);
                if (fd < 0)
                        _exit(1);
                pause();
                _exit(0);
        }
        usleep(200000);
        r = call(s, "delete-partition", "{\"device\":\"%s\",\"number\":2,\"name\":\"cp:db:0:node1\"}", L);
        CHECK(!resp_ok(r) && streq(jstr(r, "error.errno"), "EBUSY"));
        json_object_put(r);
        kill(holder, SIGKILL);
        waitpid(holder, NULL, 0);
        CHECK(sh("test -b %sp2", L) == 0);
        /* an exclusive reader of a moment (nobody the agent can name): waited for, not refused */
        holder = fork();
        if (holder == 0) {
                char node[64];
                snprintf(node, sizeof node, "%s", L);
                int fd = open(node, O_RDONLY | O_EXCL);
                if (fd < 0)
                        _exit(1);
                usleep(800000);
                _exit(0);
        }
        usleep(200000);
        r = call(s, "delete-partition", "{\"device\":\"%s\",\"number\":2,\"name\":\"cp:db:0:node1\"}", L);
        CHECK(resp_ok(r) && jbool(r, "result.deleted"));
        json_object_put(r);
        int st = -1;
        waitpid(holder, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0); /* it did hold the disk */
        CHECK(sh("test -e %sp2", L) != 0);                          /* the kernel's node is gone */
        CHECK(sh("sgdisk -i 2 %s 2>/dev/null | grep -q 'does not exist'", L) == 0);
        CHECK(sh("sgdisk -v %s 2>&1 | grep -q 'No problems found'", L) == 0); /* both GPT copies agree */
        CHECK(sh("dd if=%s bs=1M skip=9 count=1 status=none | grep -q 'bluefs label'", L) != 0); /* signature gone */
        _cleanup_(freep) char *after1 = sh_out("sha256sum < %sp1", L), *after3 = sh_out("sha256sum < %sp3", L);
        CHECK_STREQ(after1, sum1);
        CHECK_STREQ(after3, sum3);
        /* again: already gone is success */
        r = call(s, "delete-partition", "{\"device\":\"%s\",\"number\":2,\"name\":\"cp:db:0:node1\"}", L);
        CHECK(resp_ok(r) && !jbool(r, "result.deleted"));
        json_object_put(r);
        agent_state_free(s);
}

/* --- FileStore: a data partition is an OSD only by the files of its mounted directory; its
 *     journal partition by that directory's journal link (or journal_uuid), never against
 *     the journal's own header; unmounted "ceph data" and journal headers are hints --- */

/* FileJournal's header_t, version 4, for the OSD fsid `uuid`, written at the start of `node` */
static bool write_journal_header(const char *node, const char *uuid) {
        uint8_t h[4096] = {};
        uint64_t v[] = { 4 | (uint64_t) 64 << 32, 1 }; /* version 4, 64 bytes follow; flags FLAG_CRC */
        for (int i = 0; i < 8; i++) {
                h[i] = (uint8_t) (v[0] >> (8 * i));
                h[8 + i] = (uint8_t) (v[1] >> (8 * i));
        }
        for (int i = 0, k = 0; uuid[k] && i < 16; k++) {
                if (uuid[k] == '-')
                        continue;
                unsigned x;
                if (sscanf(uuid + k, "%2x", &x) != 1)
                        return false;
                h[16 + i++] = (uint8_t) x;
                k++;
        }
        uint64_t f[] = { 4096 | (uint64_t) 4096 << 32, 64 * MiB, 4096, 0, 0 }; /* block, align; max; start */
        for (int j = 0; j < 5; j++)
                for (int i = 0; i < 8; i++)
                        h[32 + 8 * j + i] = (uint8_t) (f[j] >> (8 * i));
        int fd = open(node, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        bool ok = pwrite(fd, h, sizeof(h), 0) == (ssize_t) sizeof(h) && fsync(fd) == 0;
        close(fd);
        return ok;
}

/* "id osd_fsid cluster_fsid role objectstore [unconfirmed]" of partition `no`, "none" */
static char *osd_of(json_object *inv, const char *dev, unsigned no) {
        json_object *p = inv_part(inv, dev, no), *o = jget(p, "content.osd"), *id = jget(o, "id");
        if (!o)
                return strdup("none");
        return strprintf("%s %s %s %s %s%s", id ? json_object_get_string(id) : "(no id)", jstr(o, "osd_fsid"),
                         jstr(o, "cluster_fsid"), jstr(o, "role"), jstr(o, "objectstore"),
                         jbool(o, "unconfirmed") ? " unconfirmed" : "");
}

#define CHECK_OSD(inv, dev, no, ...)                                    \
        do {                                                            \
                char *g_ = osd_of(inv, dev, no), *w_ = strprintf(__VA_ARGS__); \
                CHECK_STREQ(g_, w_);                                    \
                free(g_);                                               \
                free(w_);                                               \
        } while (0)

static void test_filestore(void) {
        const char *L = bu_loop(1024, false);
        const char *U = "d701884d-32c6-51e3-99e7-68ba0e64e168", *V = "0678ab8f-3fa8-54b8-9039-6bdfb5f1a02f",
                   *J = "2df52aaf-08e0-5a46-8c5a-69c504932b72", *C = "5d1e4f0a-8b2c-4e6d-9f3a-7c1b2d3e4f50";
        /* as ceph-disk made them: "ceph data" with the OSD's uuid as PARTUUID, "ceph journal"s */
        CHECK(sh("sgdisk -n 1:2048:+320M -t 1:4fbd7e29-9d25-41b8-afd0-062c0ceff05d -c '1:ceph data' -u 1:%s "
                 "-n 2:0:+64M -t 2:45b0969e-9b03-4f30-b4c6-b4b80ceff106 -c '2:ceph journal' -u 2:%s "
                 "-n 3:0:+64M -t 3:45b0969e-9b03-4f30-b4c6-b4b80ceff106 -c '3:ceph journal' "
                 "-n 4:0:+320M -t 4:8300 -c 4:other %s >/dev/null && partx -a %s",
                 U, J, L, L) == 0);
        char p1[64], p2[64], p3[64], p4[64];
        snprintf(p1, sizeof p1, "%sp1", L);
        snprintf(p2, sizeof p2, "%sp2", L);
        snprintf(p3, sizeof p3, "%sp3", L);
        snprintf(p4, sizeof p4, "%sp4", L);
        CHECK(sh("mkfs.xfs -q -f %s && mkfs.xfs -q -f %s", p1, p4) == 0);
        CHECK(write_journal_header(p2, U));
        CHECK(write_journal_header(p3, V)); /* another OSD's journal, its data nowhere here */

        char allow[128];
        snprintf(allow, sizeof allow, "[\"%s\"]", L);
        AgentState *s = agent_configured(allow, false);

        /* nothing mounted: hints only, no id */
        json_object *r = call(s, "inventory", "{}");
        CHECK(resp_ok(r));
        CHECK_OSD(r, L, 1, "-1 %s  data filestore unconfirmed", U);
        CHECK_OSD(r, L, 2, "-1 %s  journal filestore unconfirmed", U);
        CHECK_OSD(r, L, 3, "-1 %s  journal filestore unconfirmed", V);
        CHECK_OSD(r, L, 4, "none"); /* plain xfs: nothing */
        CHECK(jget(inv_part(r, L, 0), "content.osd") == NULL); /* the disk's MBR+GPT is no journal */
        json_object_put(r);

        /* mounted as ceph-osd would have it: the OSD and its journal */
        char dir[400], dir9[400];
        snprintf(dir, sizeof dir, "%s/osd/ceph-7", bu_dir);
        snprintf(dir9, sizeof dir9, "%s/osd/ceph-9", bu_dir);
        bool m1 = sh("mkdir -p %s && mount %s %s", dir, p1, dir) == 0;
        bool m4 = sh("mkdir -p %s && mount %s %s", dir9, p4, dir9) == 0;
        CHECK(m1 && m4);
        CHECK(sh("cd %s && echo filestore > type && echo 7 > whoami && echo %s > fsid && echo %s > ceph_fsid && "
                 "ln -s %s journal && echo %s > journal_uuid", dir, U, C, p2, J) == 0);
        /* a mount whose files do not agree with its name (whoami 3 in ceph-9): not an OSD */
        CHECK(sh("cd %s && echo filestore > type && echo 3 > whoami && echo %s > fsid && echo %s > ceph_fsid",
                 dir9, V, C) == 0);
        r = call(s, "inventory", "{}");
        CHECK(resp_ok(r));
        CHECK_OSD(r, L, 1, "7 %s %s data filestore", U, C);
        CHECK_OSD(r, L, 2, "7 %s %s journal filestore", U, C);
        CHECK_OSD(r, L, 3, "-1 %s  journal filestore unconfirmed", V);
        CHECK_OSD(r, L, 4, "none");
        CHECK_STREQ(jstr(inv_part(r, L, 4), "content.mountpoint"), dir9);
        json_object_put(r);

        /* the link to a journal whose header names another OSD: the link is not believed */
        CHECK(sh("ln -sfn %s %s/journal", p3, dir) == 0);
        r = call(s, "inventory", "{}");
        CHECK_OSD(r, L, 2, "-1 %s  journal filestore unconfirmed", U);
        CHECK_OSD(r, L, 3, "-1 %s  journal filestore unconfirmed", V);
        json_object_put(r);

        /* no link (no /dev/disk/by-partuuid on this host, say): journal_uuid names it */
        CHECK(sh("rm %s/journal", dir) == 0);
        r = call(s, "inventory", "{}");
        CHECK_OSD(r, L, 2, "7 %s %s journal filestore", U, C);
        json_object_put(r);

        /* neither link nor journal_uuid: the one journal whose header is this OSD's */
        CHECK(sh("rm %s/journal_uuid", dir) == 0);
        r = call(s, "inventory", "{}");
        CHECK_OSD(r, L, 2, "7 %s %s journal filestore", U, C);
        CHECK_OSD(r, L, 3, "-1 %s  journal filestore unconfirmed", V);
        json_object_put(r);
        /* ... and not when two journals carry that header (a copy left behind): neither. (The
         * agent reads through the disk, whose page cache does not see writes through the
         * partition's node: drop it.) */
        CHECK(write_journal_header(p3, U));
        CHECK(sh("blockdev --flushbufs %s", L) == 0);
        r = call(s, "inventory", "{}");
        CHECK_OSD(r, L, 2, "-1 %s  journal filestore unconfirmed", U);
        CHECK_OSD(r, L, 3, "-1 %s  journal filestore unconfirmed", U);
        json_object_put(r);
        /* a journal file in the data directory: no partition is its journal */
        CHECK(write_journal_header(p3, V));
        CHECK(sh("blockdev --flushbufs %s", L) == 0);
        CHECK(sh("dd if=/dev/zero of=%s/journal bs=1M count=1 status=none", dir) == 0);
        r = call(s, "inventory", "{}");
        CHECK_OSD(r, L, 2, "-1 %s  journal filestore unconfirmed", U);
        json_object_put(r);
        CHECK(sh("rm %s/journal", dir) == 0);

        /* not FileStore any more (type says bluestore): the partition is only mounted */
        CHECK(sh("echo bluestore > %s/type", dir) == 0);
        r = call(s, "inventory", "{}");
        CHECK_OSD(r, L, 1, "none");
        CHECK_STREQ(jstr(inv_part(r, L, 1), "content.mountpoint"), dir);
        json_object_put(r);

        if (m1)
                sh("umount %s", dir);
        if (m4)
                sh("umount %s", dir9);
        agent_state_free(s);
}

int main(void) {
        bu_init();
        RUN(test_sha256);
        RUN(test_serve);
        RUN(test_run);
        RUN(test_probe);
        RUN(test_probe_held_partition);
        RUN(test_bluestore_label);
        RUN(test_create);
        RUN(test_4kn);
        RUN(test_scenario_ssd);
        RUN(test_refusals);
        RUN(test_crash_rerun);
        RUN(test_bcache_unavailable);
        RUN(test_osd_lock_bounded);
        RUN(test_delete_partition);
        RUN(test_filestore);
        return test_result();
}
