/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Test helper: drive the agent without the CLI.
 *   agent-tool serve                    the protocol on stdin/stdout (as `cephprov agent`)
 *   agent-tool call REQUEST...          in-process agent_dispatch() of each JSON request,
 *                                       one response (and progress) line each on stdout */

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "basic/json-util.h"

static void print_line(json_object *o, void *userdata) {
        puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        fflush(stdout);
}

int main(int argc, char **argv) {
        if (argc >= 2 && strcmp(argv[1], "serve") == 0)
                return agent_serve(STDIN_FILENO, STDOUT_FILENO) < 0 ? 1 : 0;
        if (argc < 3 || strcmp(argv[1], "call") != 0) {
                fprintf(stderr, "usage: agent-tool serve | agent-tool call REQUEST...\n");
                return 2;
        }
        _cleanup_(agent_state_freep) AgentState *s = agent_state_new();
        int failed = 0;
        for (int i = 2; i < argc; i++) {
                _cleanup_json_ json_object *req = json_tokener_parse(argv[i]);
                _cleanup_json_ json_object *resp = NULL;
                if (!req) {
                        fprintf(stderr, "not JSON: %s\n", argv[i]);
                        return 2;
                }
                if (agent_dispatch(s, req, &resp, print_line, NULL) < 0)
                        return 1;
                print_line(resp, NULL);
                json_object *ok;
                if (!json_object_object_get_ex(resp, "ok", &ok) || !json_object_get_boolean(ok))
                        failed = 1;
        }
        return failed;
}
