/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `cephprov agent`: the host side, started by the controller over SSH; and the in-process
 * agent behind `local` transports. */

#include <string.h>

#include "agent/agent.h"
#include "basic/log.h"
#include "cli.h"
#include "transport/transport.h"

int verb_agent(int argc, char *argv[]) {
        int r = agent_serve(0, 1);
        if (r < 0) {
                log_error("agent: %s", strerror(-r));
                return 1;
        }
        return 0;
}

static void *local_state_new(void) {
        return agent_state_new();
}

static void local_state_free(void *s) {
        agent_state_free(s);
}

static int local_dispatch(void *state, json_object *request, json_object **ret_response,
                          void (*progress)(json_object *progress, void *userdata), void *userdata) {
        return agent_dispatch(state, request, ret_response, progress, userdata);
}

void cli_register_local_agent(void) {
        static const TransportLocalAgent a = {
                .state_new = local_state_new,
                .state_free = local_state_free,
                .dispatch = local_dispatch,
        };
        transport_set_local_agent(&a);
}
