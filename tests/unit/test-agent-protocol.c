/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's request lines without devices: inputs the fuzzer (tests/fuzz/fuzz-agent.c)
 * found, kept as regressions. Nothing here needs root or touches a disk: the agent is in
 * dry-run with an allow-list that names nothing. */

#include "agent/agent.h"
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

int main(void) {
        TEST_RUN(test_not_json_has_null_id);
        TEST_RUN(test_run_timeout_range);
        return test_result();
}
