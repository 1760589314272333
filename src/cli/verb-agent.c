/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `cephprov agent`: the host side of the controller's SSH connection — the JSON-lines
 * protocol of docs/agent.md on stdin/stdout, logs on stderr. */

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "basic/log.h"
#include "cli.h"

int verb_agent(int argc, char *argv[]) {
        const Verb *v = verb_find("agent");
        if (argc > 1 && v)
                return verb_usage_error(v, "takes no arguments");
        if (isatty(STDIN_FILENO))
                log_warning("the agent speaks JSON lines on stdin; it is started by the controller over SSH");

        /* a controller that goes away must end us with EPIPE on write, not a signal */
        signal(SIGPIPE, SIG_IGN);
        int r = agent_serve(STDIN_FILENO, STDOUT_FILENO);
        if (r < 0) {
                Error err = {};
                error_set(&err, r, "agent: %s", strerror(-r));
                return cli_report(&err);
        }
        return 0;
}
