/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the agent's protocol as it reads stdin — lines split as agent_serve()
 * splits them, each parsed and dispatched (agent_handle_line → agent_dispatch → the op's
 * argument parsing and validation), with the state carried from line to line.
 *
 * It must never touch a disk, and it runs as root: the harness keeps the agent in dry-run
 * with an allow-list that names nothing that exists (whatever a fuzzed "configure" asked
 * for), and takes out the two arguments that would reach past validation in dry-run:
 * "run"'s and "ceph-command"'s read_only (a dry-run agent runs read-only commands, and a
 * cluster command would reach for a cluster) and "inventory"'s all
 * (reads every disk of the machine). Beyond that each op runs as the agent runs it.
 *
 * Checked: every response is an object with the request's id (or null) and "ok"; a
 * failure has an errno name and a message; and no op that changes a device ever succeeds,
 * since nothing is allowed. */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "basic/json-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *safe_allow[] = {
        (char *) "/nonexistent-cephprov-fuzz/disk",
        (char *) "/nonexistent-cephprov-fuzz/by-id/ata-?[0-9]*",
        NULL,
};

static const char *const destructive_ops[] = {
        "create-gpt", "create-partition", "wipe", "make-bcache", "bcache-register",
        "bcache-attach", "bcache-tune", "bcache-teardown", "osd-create", "delete-partition",
        "rados-probe", /* writes objects in a pool */
        "ceph-command", /* a dry-run agent sends only what is marked read_only (taken out) */
};

static void on_progress(json_object *progress, void *userdata) {
        if (!json_object_is_type(progress, json_type_object))
                __builtin_trap();
        (*(unsigned *) userdata)++;
}

static const char *request_op(json_object *req) {
        json_object *op;
        if (!json_object_is_type(req, json_type_object) || !json_object_object_get_ex(req, "op", &op) ||
            !json_object_is_type(op, json_type_string))
                return NULL;
        return json_object_get_string(op);
}

/* Keep a parsed request inside validation (see the top). */
static void defuse(json_object *req) {
        const char *op = request_op(req);
        json_object *args;
        if (!op || !json_object_object_get_ex(req, "args", &args) || !json_object_is_type(args, json_type_object))
                return;
        if (streq(op, "run") || streq(op, "ceph-command"))
                json_object_object_del(args, "read_only");
        else if (streq(op, "inventory"))
                json_object_object_del(args, "all");
}

static void check_response(json_object *resp, const char *op) {
        json_object *ok, *e, *v;
        if (!json_object_is_type(resp, json_type_object) || !json_object_object_get_ex(resp, "id", NULL) ||
            !json_object_object_get_ex(resp, "ok", &ok) || !json_object_is_type(ok, json_type_boolean))
                __builtin_trap();
        if (!json_object_get_boolean(ok)) {
                if (!json_object_object_get_ex(resp, "error", &e) || !json_object_object_get_ex(e, "errno", &v) ||
                    !json_object_is_type(v, json_type_string) || !json_object_object_get_ex(e, "message", &v) ||
                    !json_object_is_type(v, json_type_string) || !json_object_get_string(v)[0])
                        __builtin_trap();
                return;
        }
        if (!json_object_object_get_ex(resp, "result", NULL))
                __builtin_trap();
        for (size_t i = 0; op && i < ELEMENTSOF(destructive_ops); i++)
                if (streq(op, destructive_ops[i]))
                        __builtin_trap(); /* succeeded on a device that is not allowed */
}

static void handle(AgentState *s, const char *line) {
        _cleanup_json_ json_object *resp = NULL;
        _cleanup_json_ json_object *req = json_tokener_parse(line);
        unsigned n_progress = 0;
        int r;

        if (req) {
                defuse(req);
                r = agent_dispatch(s, req, &resp, on_progress, &n_progress);
        } else
                r = agent_handle_line(s, line, &resp, on_progress, &n_progress);
        if (r < 0)
                return; /* out of memory: the only failure agent_dispatch may report */
        check_response(resp, req ? request_op(req) : NULL);

        /* whatever "configure" said: dry-run, nothing allowed */
        if (s->configured && agent_state_configure(s, s->host, safe_allow, true) < 0)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(agent_state_freep) AgentState *s = agent_state_new();
        char *buf = malloc(size + 1);
        if (!s || !buf) {
                free(buf);
                return 0;
        }
        memcpy(buf, data, size);
        buf[size] = 0;

        /* As agent_serve(): one request per '\n'-terminated line, blank lines skipped, a last
         * line without newline still a request; a NUL ends the line's text. */
        char *p = buf, *end = buf + size;
        while (p < end && !s->exit_requested) {
                char *nl = memchr(p, '\n', (size_t) (end - p));
                char *stop = nl ? nl : end;
                *stop = 0;
                if (strspn(p, " \t\r") != strlen(p))
                        handle(s, p);
                p = stop + 1;
        }
        free(buf);
        return 0;
}
