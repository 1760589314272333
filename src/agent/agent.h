/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The host agent: the JSON-lines protocol of docs/agent.md (one request per line on
 * stdin, responses and progress events on stdout) and the host operations behind it —
 * inventory (libudev + libblkid), GPT partitioning (libparted), wipe (libblkid), bcache
 * (sysfs + make-bcache) and running commands. The same dispatch function serves the
 * `cephprov agent` process and in-process use by the local transport. */

#include <json-c/json.h>
#include <stdbool.h>

#include "basic/error.h"
#include "basic/macro.h"
#include "inventory/inventory.h"

#define AGENT_PROTOCOL 1

/* Per-controller state: set by "configure", enforced by every later op. */
typedef struct AgentState {
        char *host;              /* the layout's name for this host (messages, inventory) */
        char **allow;            /* device paths or fnmatch globs of paths (NULL-terminated) */
        bool dry_run;            /* destructive ops only say what they would do */
        bool configured;
        bool exit_requested;     /* set by the "exit" op */
        int cancel_fd;           /* the connection to the controller (agent_serve's input), -1:
                                  * none; its hang-up kills the command an op runs */
} AgentState;

AgentState *agent_state_new(void);
AgentState *agent_state_free(AgentState *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(AgentState *, agent_state_free);

/* Configure directly (what the "configure" op does). `allow` is copied. */
int agent_state_configure(AgentState *s, const char *host, char * const *allow, bool dry_run);

typedef void (*AgentProgressFn)(json_object *progress, void *userdata);

/* Handle one parsed request {"id","op","args"}. Always produces a response object in
 * *ret_response (success or a structured error) unless memory runs out (-ENOMEM).
 * Progress events ({"id","progress":{...}}) go to `progress` (may be NULL) before the
 * response; the callback does not own the object. */
int agent_dispatch(AgentState *s, json_object *request, json_object **ret_response,
                   AgentProgressFn progress, void *userdata);

/* One request line as read from the stream: parsed, then agent_dispatch(); a line that is
 * not JSON gets an error response with a null id. */
int agent_handle_line(AgentState *s, const char *line, json_object **ret_response, AgentProgressFn progress,
                      void *userdata);

/* The `cephprov agent` verb: hello line, then requests until EOF or "exit".
 * Returns 0 on a clean end, negative errno if the streams fail. */
int agent_serve(int in_fd, int out_fd);

/* The hello object {"hello":{...}} (also used by tests and the local transport). */
int agent_hello(json_object **ret, Error *err);

/* Inventory of this host: the allowed devices, or all block devices when `all` (those
 * not allowed marked allowed=false). Reads only; no subprocesses. */
int agent_inventory(AgentState *s, bool all, Inventory **ret, Error *err);

/* True if `path` (or one of its udev links) is in the allow-list; for a partition, also
 * when its whole device is. */
bool agent_device_allowed(AgentState *s, const char *path);
