/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's request lines without devices: inputs the fuzzer (tests/fuzz/fuzz-agent.c)
 * found, kept as regressions. Nothing here needs root or touches a disk: the agent is in
 * dry-run with an allow-list that names nothing. */

#include "agent/agent.h"
#include "controller/step-requests.h"
#include "basic/json-util.h"
#include "test.h"

static json_object *line(AgentState *s, const char *text) {
        json_object *resp = NULL;
        if (agent_handle_line(s, text, &resp, NULL, NULL) < 0)
                exit(1);
        return resp;
}

static const char *errno_of(json_object *resp) {
        json_object *e, *v;
        if (!json_object_object_get_ex(resp, "error", &e) || !json_object_object_get_ex(e, "errno", &v))
                return "";
        return json_object_get_string(v);
}

/* docs/agent.md: "A line that is not JSON gets an EINVAL answer with "id":null" — the
 * answer had no "id" at all (found by fuzz-agent) */
static void test_not_json_has_null_id(void) {
        _cleanup_(agent_state_freep) AgentState *s = agent_state_new();
        const char *bad[] = { "this is not json", "[1,2]", "{\"id\":-1}", "{\"id\":\"7\",\"op\":\"exit\"}" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_json_ json_object *r = line(s, bad[i]);
                json_object *id = (json_object *) 1;
                CHECK(json_object_object_get_ex(r, "id", &id));
                if (i < 2)
                        CHECK(id == NULL); /* JSON null: no request object to take it from */
                CHECK_STREQ(errno_of(r), "EINVAL");
                CHECK_STREQ(json_object_to_json_string_ext(json_object_object_get(r, "ok"), 0), "false");
        }
        /* and on the wire it reads "id":null */
        _cleanup_json_ json_object *r = line(s, "not json");
        CHECK(strstr(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN), "\"id\":null") != NULL);
}

/* run's timeout is unsigned seconds inside: 2^32 became 0, which means "no timeout" */
static void test_run_timeout_range(void) {
        _cleanup_(agent_state_freep) AgentState *s = agent_state_new();
        _cleanup_json_ json_object *c = line(s, "{\"id\":1,\"op\":\"configure\",\"args\":{\"allow\":[],\"dry_run\":true}}");
        CHECK_STREQ(json_object_to_json_string_ext(json_object_object_get(c, "ok"), 0), "true");
        static const char *bad[] = { "4294967296", "-1", "9223372036854775807" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char req[256];
                snprintf(req, sizeof(req), "{\"id\":2,\"op\":\"run\",\"args\":{\"argv\":[\"true\"],\"timeout\":%s}}", bad[i]);
                _cleanup_json_ json_object *r = line(s, req);
                CHECK_STREQ(errno_of(r), "EINVAL");
        }
        /* in range: validated, then refused by the dry run (not marked read_only) */
        _cleanup_json_ json_object *r = line(s, "{\"id\":3,\"op\":\"run\",\"args\":{\"argv\":[\"true\"],\"timeout\":4294967295}}");
        CHECK_STREQ(errno_of(r), "EPERM");
}

static const char *message_of(json_object *resp) {
        json_object *e, *v;
        if (!json_object_object_get_ex(resp, "error", &e) || !json_object_object_get_ex(e, "message", &v))
                return "";
        return json_object_get_string(v);
}

/* rados-probe checks every argument before anything (and a dry-run agent then refuses it:
 * it writes objects); nothing here loads librados or reaches a cluster */
static void test_rados_probe_args(void) {
        _cleanup_(agent_state_freep) AgentState *s = agent_state_new();
        _cleanup_json_ json_object *c = line(s, "{\"id\":1,\"op\":\"configure\",\"args\":{\"allow\":[],\"dry_run\":true}}");
        CHECK_STREQ(json_object_to_json_string_ext(json_object_object_get(c, "ok"), 0), "true");
        static const struct {
                const char *args, *errno_name, *message;
        } cases[] = {
                { "{\"objects\":[\"a\"]}", "EINVAL", "rados-probe: missing key 'pool'" },
                { "{\"pool\":\"p\"}", "EINVAL", "rados-probe: missing key 'objects'" },
                { "{\"pool\":\"p\",\"objects\":[]}", "EINVAL", "rados-probe: 0 objects (1..4096 wanted)" },
                { "{\"pool\":\"p\",\"objects\":[\"a b\"]}", "EINVAL", "rados-probe: objects[0] is not an object name" },
                { "{\"pool\":\"p\",\"objects\":[7]}", "EINVAL", "rados-probe: objects[0] is not an object name" },
                { "{\"pool\":\"\",\"objects\":[\"a\"]}", "EINVAL", "rados-probe: pool '' is not a pool name" },
                { "{\"pool\":\"p\",\"objects\":[\"a\"],\"mode\":\"fast\"}", "EINVAL",
                  "rados-probe: mode 'fast' is not mixed, write or read" },
                { "{\"pool\":\"p\",\"objects\":[\"a\"],\"seconds\":0}", "EINVAL", "rados-probe: seconds 0 is not in 1..600" },
                { "{\"pool\":\"p\",\"objects\":[\"a\"],\"op_timeout\":601}", "EINVAL",
                  "rados-probe: op_timeout 601 is not in 1..600 seconds" },
                { "{\"pool\":\"p\",\"objects\":[\"a\"],\"size\":4194305}", "EINVAL",
                  "rados-probe: size 4194305 is not in 1..4194304 bytes" },
                { "{\"pool\":\"p\",\"objects\":[\"a\"],\"rate\":-1}", "EINVAL",
                  "rados-probe: rate -1 is not in 0..1000 ops a second" },
                { "{\"pool\":\"p\",\"objects\":[\"a\"],\"rate\":20,\"inflight\":0}", "EINVAL",
                  "rados-probe: inflight 0 is not in 1..64" },
                { "{\"pool\":\"p\",\"objects\":[\"a\"],\"inflight\":65}", "EINVAL",
                  "rados-probe: inflight 65 is not in 1..64" },
                { "{\"pool\":\"p\",\"objects\":[\"a\"],\"client\":\"admin\"}", "EINVAL", "the client 'client.ID'" },
                { "{\"pool\":\"p\",\"objects\":[\"a\"],\"conf\":\"ceph.conf\"}", "EINVAL",
                  "rados-probe: conf and keyring must be absolute paths" },
                { "{\"pool\":\"rbd\",\"objects\":[\"a\",\"b\"],\"mode\":\"read\",\"seconds\":600}", "EPERM",
                  "not probing pool 'rbd' (the probe writes objects)" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char req[512];
                snprintf(req, sizeof(req), "{\"id\":%zu,\"op\":\"rados-probe\",\"args\":%s}", i + 2, cases[i].args);
                _cleanup_json_ json_object *r = line(s, req);
                CHECK_STREQ(errno_of(r), cases[i].errno_name);
                if (!strstr(message_of(r), cases[i].message))
                        fprintf(stderr, "case %zu: message '%s'\n", i, message_of(r));
                CHECK(strstr(message_of(r), cases[i].message) != NULL);
        }
}

/* ceph-command checks every command before it sends one (and a dry-run agent then sends
 * nothing not marked read_only); nothing here loads librados or reaches a cluster */
static void test_ceph_command_args(void) {
        _cleanup_(agent_state_freep) AgentState *s = agent_state_new();
        _cleanup_json_ json_object *c = line(s, "{\"id\":1,\"op\":\"configure\",\"args\":{\"allow\":[],\"dry_run\":true}}");
        CHECK_STREQ(json_object_to_json_string_ext(json_object_object_get(c, "ok"), 0), "true");
#define DUMP "{\"target\":\"mon\",\"cmd\":{\"prefix\":\"osd dump\"}}"
        static const struct {
                const char *args, *errno_name, *message;
        } cases[] = {
                { "{}", "EINVAL", "ceph-command: missing key 'commands'" },
                /* none: a connect ahead, which a dry-run agent makes only when read_only */
                { "{\"commands\":[]}", "EPERM", "not connecting to the cluster (not marked read_only)" },
                { "{\"commands\":[7]}", "EINVAL", "ceph-command: commands[0] is not an object" },
                { "{\"commands\":[{\"cmd\":{\"prefix\":\"osd dump\"}}]}", "EINVAL", "missing key 'target'" },
                { "{\"commands\":[{\"target\":\"mon\",\"cmd\":{}}]}", "EINVAL",
                  "ceph-command: commands[0]: the command has no prefix" },
                { "{\"commands\":[" DUMP ",{\"target\":\"mds\",\"cmd\":{\"prefix\":\"x\"}}]}", "EINVAL",
                  "ceph-command: commands[1]: target 'mds' is not mon, mgr or osd" },
                { "{\"commands\":[{\"target\":\"osd\",\"cmd\":{\"prefix\":\"bench\"}}]}", "EINVAL",
                  "missing key 'osd'" },
                { "{\"commands\":[{\"target\":\"osd\",\"osd\":-1,\"cmd\":{\"prefix\":\"bench\"}}]}", "EINVAL",
                  "osd -1 is not an OSD id" },
                { "{\"commands\":[" DUMP "],\"parallel\":0}", "EINVAL", "ceph-command: parallel 0 is not in 1..64" },
                { "{\"commands\":[" DUMP "],\"timeout\":0}", "EINVAL", "ceph-command: timeout 0 is not in 1..3600" },
                { "{\"commands\":[" DUMP "],\"client\":\"admin\"}", "EINVAL", "the client 'client.ID'" },
                { "{\"commands\":[" DUMP "],\"keyring\":\"k\"}", "EINVAL", "conf and keyring must be absolute paths" },
                { "{\"commands\":[" DUMP "]}", "EPERM", "dry run on" },
        };
#undef DUMP
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char req[512];
                snprintf(req, sizeof(req), "{\"id\":%zu,\"op\":\"ceph-command\",\"args\":%s}", i + 2, cases[i].args);
                _cleanup_json_ json_object *r = line(s, req);
                CHECK_STREQ(errno_of(r), cases[i].errno_name);
                if (!strstr(message_of(r), cases[i].message))
                        fprintf(stderr, "case %zu: message '%s'\n", i, message_of(r));
                CHECK(strstr(message_of(r), cases[i].message) != NULL);
        }
}

static const char *jpath(json_object *o, const char *a, const char *b, const char *c) {
        const char *k[] = { a, b, c };
        for (size_t i = 0; i < 3 && k[i] && o; i++)
                if (!json_object_object_get_ex(o, k[i], &o))
                        return NULL;
        return o ? json_object_get_string(o) : NULL;
}

/* What the plan saw travels as "expect": who the target is (identity, PARTUUID, start, the
 * OSD label) next to its content and size; a partition the plan creates: size only. */
static void test_request_identity(void) {
        Step st = { .kind = STEP_CREATE_OSD, .device = (char *) "/dev/sdc", .db_device = (char *) "/dev/sdb",
                    .db_partname = (char *) "cp:db:@3f9a01c2:node1", .wal_device = (char *) "/dev/sdb",
                    .wal_partname = (char *) "cp:wal:@3f9a01c2:node1", .objectstore = OBJECTSTORE_BLUESTORE };
        st.seen = (StepSeen) { .set = true, .content = true, .size = 4000787030016ULL,
                               .identity = (char *) "serial ST4000NM0035 ZC11A2B3", .whoami = -1 };
        st.db_seen = (StepSeen) { .set = true, .content = true, .type = (char *) "ceph_bluestore", .size = 64 << 20,
                                  .identity = (char *) "wwn 0x5000c500a1b2c3d4",
                                  .partuuid = (char *) "8d3c1b2a-0f4e-4d5c-9a8b-7c6d5e4f3a2b", .start = 1 << 20,
                                  .osd_uuid = (char *) "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9", .whoami = 3,
                                  .ceph_fsid = (char *) "11111111-2222-4333-8444-555555555555" };
        st.wal_seen = (StepSeen) { .set = true, .size = 8 << 20, .whoami = -1 };
        json_object *req = NULL;
        CHECK(agent_request_from_step(&st, &req) == 0);
        json_object *a = NULL;
        CHECK(req && json_object_object_get_ex(req, "args", &a));
        CHECK_STREQ(jpath(a, "expect", "identity", NULL), "serial ST4000NM0035 ZC11A2B3");
        CHECK(jpath(a, "expect", "partuuid", NULL) == NULL && jpath(a, "expect", "osd", NULL) == NULL);
        CHECK_STREQ(jpath(a, "db_expect", "identity", NULL), "wwn 0x5000c500a1b2c3d4");
        CHECK_STREQ(jpath(a, "db_expect", "partuuid", NULL), "8d3c1b2a-0f4e-4d5c-9a8b-7c6d5e4f3a2b");
        CHECK_STREQ(jpath(a, "db_expect", "start", NULL), "1048576");
        CHECK_STREQ(jpath(a, "db_expect", "osd", "osd_uuid"), "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9");
        CHECK_STREQ(jpath(a, "db_expect", "osd", "whoami"), "3");
        CHECK_STREQ(jpath(a, "db_expect", "osd", "ceph_fsid"), "11111111-2222-4333-8444-555555555555");
        /* a WAL partition this plan creates: nobody has seen it, only its size is known */
        CHECK_STREQ(jpath(a, "wal_expect", "size", NULL), "8388608");
        CHECK(jpath(a, "wal_expect", "identity", NULL) == NULL && jpath(a, "wal_expect", "partuuid", NULL) == NULL &&
              jpath(a, "wal_expect", "type", NULL) == NULL);
        json_object_put(req);
}

int main(void) {
        TEST_RUN(test_not_json_has_null_id);
        TEST_RUN(test_run_timeout_range);
        TEST_RUN(test_rados_probe_args);
        TEST_RUN(test_ceph_command_args);
        TEST_RUN(test_request_identity);
        return test_result();
}
