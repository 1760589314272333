/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Transport: how the controller reaches a host. One small interface for two kinds:
 *
 *   ssh    libssh2, non-blocking with poll() and a deadline on every step (connect,
 *          handshake, auth, exec, agent reads); host keys checked against known_hosts
 *          (strict by default, accept-new records unknown keys, a changed key is always
 *          refused); auth by identity file or ssh-agent.
 *   local  this machine: commands fork/exec'd directly, the agent channel dispatched in
 *          process (see transport_set_local_agent()).
 *
 * A Transport is used by one thread at a time. Different Transports may be used from
 * different threads at once (see fanout.h). Every error names the host. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "basic/error.h"
#include "basic/macro.h"
#include "layout/layout.h"

#define TRANSPORT_AGENT_PROTOCOL 1
#define TRANSPORT_AGENT_PATH_DEFAULT LAYOUT_AGENT_PATH_DEFAULT

typedef struct Transport Transport;
typedef struct AgentChannel AgentChannel;

typedef struct TransportExecResult {
        int exit_status;     /* the command's exit code; -1 if it died by a signal */
        char *exit_signal;   /* signal name ("KILL") when it died by one, else NULL */
        char *out;           /* stdout, NUL-terminated (may contain NULs before) */
        size_t out_size;
        char *err;           /* stderr, NUL-terminated */
        size_t err_size;
} TransportExecResult;

void transport_exec_result_done(TransportExecResult *r);

/* Global set-up (libssh2_init). Idempotent and thread-safe; transport_open() calls it,
 * but a program that opens transports from several threads may call it first. */
int transport_global_init(void);

/* Connect to the host (ssh: TCP connect with retry/backoff on refused/reset, handshake,
 * host key check, auth; local: nothing). Options come from host->ssh with defaults for
 * unset fields. */
int transport_open(const Host *host, Transport **ret, Error *err);
Transport *transport_close(Transport *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(Transport *, transport_close);

const char *transport_host_name(const Transport *t);

/* Run argv on the host and collect its exit status and output. ssh: argv is quoted for
 * the remote shell (every argument single-quoted, see transport_quote_argv()), so
 * arguments are never interpreted; local: argv is exec'd directly. stdin_data may be
 * NULL. timeout_sec 0 means the host's command_timeout. On timeout returns -ETIME (the
 * remote command is also bounded by `timeout` on the host so it does not linger).
 * A non-zero exit status is not an error: the caller looks at ret->exit_status. */
int transport_exec(Transport *t, char * const *argv, const char *stdin_data, size_t stdin_size,
                   unsigned timeout_sec, TransportExecResult *ret, Error *err);

/* Quote argv for a POSIX shell: each argument in single quotes, ' as '\''; joined with
 * spaces. Returns NULL on ENOMEM or an empty argv. */
char *transport_quote_argv(char * const *argv);

/* Make sure the host's agent binary (host->ssh.agent_path) is the same build as
 * local_path (NULL: /proc/self/exe), comparing sha256; upload it over SFTP to a temporary
 * name and rename it into place (atomic, mode 0755) when it differs. *ret_uploaded tells
 * whether an upload happened. For local transports nothing is done. */
int transport_ensure_agent(Transport *t, const char *local_path, bool *ret_uploaded, Error *err);

/* SHA-256 of this running binary (/proc/self/exe), computed once per process. */
int transport_self_sha256(char ret_hex[static 65], Error *err);

/* SHA-256 of a local file as 64 lowercase hex digits plus NUL. */
int transport_sha256_file(const char *path, char ret_hex[static 65], Error *err);

/* The agent channel: start `<agent_path> agent` on the host (ssh) or an in-process
 * dispatcher (local), read its hello and refuse a protocol other than
 * TRANSPORT_AGENT_PROTOCOL. Every read has a deadline. */
int transport_agent_start(Transport *t, AgentChannel **ret, Error *err);
/* transport_agent_start(), making sure the agent is this very build: when the hello of
 * the agent in place names another build (or none starts), the binary is pushed with
 * transport_ensure_agent() and started again. *ret_uploaded tells whether it was pushed. */
int transport_agent_start_current(Transport *t, AgentChannel **ret, bool *ret_uploaded, Error *err);

/* Sends "exit" (best effort) and closes. */
AgentChannel *agent_channel_close(AgentChannel *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(AgentChannel *, agent_channel_close);

/* The hello object ({"agent":..,"protocol":1,..}), owned by the channel. */
json_object *agent_channel_hello(AgentChannel *c);

typedef void (*AgentChannelProgressFn)(json_object *progress, void *userdata);

/* One request: sends {"id":N,"op":op,"args":args} (args may be NULL = {}; a reference
 * is taken, the caller keeps its own), passes progress objects to `progress` (may be
 * NULL), and returns the result object on success. An {"ok":false} answer returns the
 * negative errno of its "code" and fills err with "<host>: <op>: <message>".
 * timeout_sec 0 means the host's command_timeout. */
int agent_channel_call(AgentChannel *c, const char *op, json_object *args, unsigned timeout_sec,
                       AgentChannelProgressFn progress, void *userdata, json_object **ret_result,
                       Error *err);

/* Lower level, for pipelining: send a request (returns its id in *ret_id), then receive
 * the next line from the agent (a progress or a response object of any id). */
int agent_channel_send(AgentChannel *c, const char *op, json_object *args, unsigned *ret_id, Error *err);
int agent_channel_recv(AgentChannel *c, unsigned timeout_sec, json_object **ret, Error *err);

/* In-process agent for `local` transports. src/agent registers its dispatcher here
 * (the transport does not link the agent): state_new() makes one AgentState,
 * dispatch() is agent_dispatch(). Without one, transport_agent_start() on a local
 * transport fails with -EOPNOTSUPP. */
typedef struct TransportLocalAgent {
        void *(*state_new)(void);
        void (*state_free)(void *state);
        int (*dispatch)(void *state, json_object *request, json_object **ret_response,
                        void (*progress)(json_object *progress, void *userdata), void *userdata);
} TransportLocalAgent;

void transport_set_local_agent(const TransportLocalAgent *a);
