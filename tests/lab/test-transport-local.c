/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* transport_quote_argv() and the local transport, for real: hostile arguments are quoted,
 * handed to /bin/sh (what sshd does with a command line) and must come back unchanged. */

#include <errno.h>
#include <string.h>
#include <time.h>

#include "test.h"
#include "transport/fanout.h"
#include "transport/transport.h"

static const char *const hostile[] = {
        "plain",
        "with space",
        "it's",
        "''",
        "x;touch /tmp/cephprov-quote-pwned",
        "$(touch /tmp/cephprov-quote-pwned)",
        "`touch /tmp/cephprov-quote-pwned`",
        "new\nline",
        "*",
        "\\",
        "\"dq\"",
        "a|b&c>d<e",
        "${HOME}",
        "-n",
        "",
        "tab\there",
};

static Host local_host(void) {
        return (Host) { .name = (char *) "localhost", .transport = TRANSPORT_LOCAL,
                        .ssh = { .command_timeout_sec = 60 } };
}

static void test_quote_roundtrip(void) {
        char *argv[ELEMENTSOF(hostile) + 3];
        argv[0] = (char *) "printf";
        argv[1] = (char *) "%s\\0";
        for (size_t i = 0; i < ELEMENTSOF(hostile); i++)
                argv[i + 2] = (char *) hostile[i];
        argv[ELEMENTSOF(hostile) + 2] = NULL;

        char *quoted = transport_quote_argv(argv);
        CHECK(quoted);

        Host h = local_host();
        Transport *t = NULL;
        Error err = {};
        CHECK_INTEQ(transport_open(&h, &t, &err), 0);
        char *sh[] = { (char *) "/bin/sh", (char *) "-c", quoted, NULL };
        TransportExecResult res = {};
        CHECK_INTEQ(transport_exec(t, sh, NULL, 0, 10, &res, &err), 0);
        CHECK_INTEQ(res.exit_status, 0);

        /* The shell printed every argument NUL-terminated: compare one by one. */
        size_t off = 0;
        for (size_t i = 0; i < ELEMENTSOF(hostile); i++) {
                CHECK(off < res.out_size);
                if (off >= res.out_size)
                        break;
                CHECK_STREQ(res.out + off, hostile[i]);
                off += strlen(res.out + off) + 1;
        }
        CHECK_INTEQ(off, res.out_size);
        CHECK(access("/tmp/cephprov-quote-pwned", F_OK) < 0);
        transport_exec_result_done(&res);
        transport_close(t);
        free(quoted);

        char *one[] = { (char *) "it's", NULL };
        quoted = transport_quote_argv(one);
        CHECK_STREQ(quoted, "'it'\\''s'");
        free(quoted);
        CHECK(transport_quote_argv((char *[]) { NULL }) == NULL);
}

static void test_local_exec(void) {
        Host h = local_host();
        Transport *t = NULL;
        Error err = {};
        CHECK_INTEQ(transport_open(&h, &t, &err), 0);

        TransportExecResult res = {};
        char *cat[] = { (char *) "cat", NULL };
        CHECK_INTEQ(transport_exec(t, cat, "hello\n", 6, 10, &res, &err), 0);
        CHECK_STREQ(res.out, "hello\n");
        transport_exec_result_done(&res);

        char *fail[] = { (char *) "sh", (char *) "-c", (char *) "echo oops >&2; exit 3", NULL };
        CHECK_INTEQ(transport_exec(t, fail, NULL, 0, 10, &res, &err), 0);
        CHECK_INTEQ(res.exit_status, 3);
        CHECK_STREQ(res.err, "oops\n");
        transport_exec_result_done(&res);

        char *missing[] = { (char *) "/nonexistent/cephprov-test", NULL };
        CHECK_INTEQ(transport_exec(t, missing, NULL, 0, 10, &res, &err), 0);
        CHECK_INTEQ(res.exit_status, 127);
        transport_exec_result_done(&res);

        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        char *sleep100[] = { (char *) "sleep", (char *) "100", NULL };
        error_reset(&err);
        CHECK_INTEQ(transport_exec(t, sleep100, NULL, 0, 1, &res, &err), -ETIME);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double s = (double) (b.tv_sec - a.tv_sec) + (double) (b.tv_nsec - a.tv_nsec) / 1e9;
        CHECK(s < 2.5);
        CHECK(strstr(err.message, "timed out") != NULL);
        CHECK(strstr(err.message, "localhost") != NULL);

        /* no in-process agent registered in this test: a clear refusal */
        AgentChannel *c = NULL;
        error_reset(&err);
        CHECK_INTEQ(transport_agent_start(t, &c, &err), -EOPNOTSUPP);
        CHECK(strstr(err.message, "localhost") != NULL);
        transport_close(t);
}

/* A fake in-process dispatcher, to test the local agent channel's plumbing (the real
 * one is agent_dispatch() in src/agent). */
static int fake_state;
static void *fake_new(void) {
        return &fake_state;
}
static void fake_free(void *s) {
        (void) s;
}
static int fake_dispatch(void *state, json_object *req, json_object **ret,
                         void (*progress)(json_object *, void *), void *userdata) {
        json_object *id = NULL, *op = NULL, *args = NULL;
        json_object_object_get_ex(req, "id", &id);
        json_object_object_get_ex(req, "op", &op);
        json_object_object_get_ex(req, "args", &args);
        json_object *p = json_object_new_object();
        json_object_object_add(p, "id", json_object_get(id));
        json_object_object_add(p, "progress", json_object_new_object());
        progress(p, userdata);
        json_object_put(p);
        json_object *r = json_object_new_object();
        json_object_object_add(r, "id", json_object_get(id));
        if (strcmp(json_object_get_string(op), "echo") == 0) {
                json_object_object_add(r, "ok", json_object_new_boolean(1));
                json_object_object_add(r, "result", json_object_get(args));
        } else {
                json_object *e = json_object_new_object();
                json_object_object_add(e, "errno", json_object_new_string("EBUSY"));
                json_object_object_add(e, "code", json_object_new_int(EBUSY));
                json_object_object_add(e, "message", json_object_new_string("busy"));
                json_object_object_add(r, "ok", json_object_new_boolean(0));
                json_object_object_add(r, "error", e);
        }
        *ret = r;
        return 0;
}
static const TransportLocalAgent fake_agent = { fake_new, fake_free, fake_dispatch };

static void count_progress(json_object *p, void *userdata) {
        (*(int *) userdata)++;
}

static void test_local_agent_channel(void) {
        transport_set_local_agent(&fake_agent);
        Host h = local_host();
        Transport *t = NULL;
        Error err = {};
        CHECK_INTEQ(transport_open(&h, &t, &err), 0);
        AgentChannel *c = NULL;
        CHECK_INTEQ(transport_agent_start(t, &c, &err), 0);
        json_object *proto = NULL;
        CHECK(json_object_object_get_ex(agent_channel_hello(c), "protocol", &proto));
        CHECK_INTEQ(json_object_get_int(proto), 1);

        json_object *args = json_tokener_parse("{\"x\":[1,2]}"), *res = NULL;
        int n = 0;
        CHECK_INTEQ(agent_channel_call(c, "echo", args, 5, count_progress, &n, &res, &err), 0);
        CHECK_INTEQ(n, 1);
        CHECK_STREQ(json_object_to_json_string_ext(res, JSON_C_TO_STRING_PLAIN), "{\"x\":[1,2]}");
        json_object_put(res);
        res = NULL;
        CHECK_INTEQ(agent_channel_call(c, "other", NULL, 5, NULL, NULL, &res, &err), -EBUSY);
        CHECK_STREQ(err.message, "localhost: other: busy");
        json_object_put(args);
        agent_channel_close(c);
        transport_close(t);
        transport_set_local_agent(NULL);
}

static int fanout_fn(const Host *h, void *userdata, json_object **ret, Error *err) {
        if (strcmp(h->name, "bad") == 0)
                return error_set(err, EHOSTDOWN, "host '%s' is down", h->name);
        *ret = json_object_new_string(h->name);
        return 0;
}

static void test_fanout(void) {
        Host hs[20];
        const Host *hp[20];
        char names[20][8];
        for (int i = 0; i < 20; i++) {
                snprintf(names[i], sizeof(names[i]), i == 7 ? "bad" : "h%d", i);
                hs[i] = (Host) { .name = names[i] };
                hp[i] = &hs[i];
        }
        FanoutHostResult *res = NULL;
        Error err = {};
        FanoutOptions o = { .concurrency = 4 };
        CHECK_INTEQ(fanout_run(hp, 20, &o, fanout_fn, NULL, &res, &err), 0);
        CHECK_INTEQ(fanout_results_failed(res, 20), 1);
        for (int i = 0; i < 20; i++) {
                CHECK(res[i].host == &hs[i]);
                if (i == 7) {
                        CHECK_INTEQ(res[i].r, -EHOSTDOWN);
                        CHECK_STREQ(res[i].error.message, "host 'bad' is down");
                } else
                        CHECK_STREQ(json_object_get_string(res[i].result), names[i]);
        }
        fanout_results_free(res, 20);
}

int main(void) {
        TEST_RUN(test_quote_roundtrip);
        TEST_RUN(test_local_exec);
        TEST_RUN(test_local_agent_channel);
        TEST_RUN(test_fanout);
        return test_result();
}
