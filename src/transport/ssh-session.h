/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The libssh2 side of the ssh transport (internal to src/transport). Non-blocking:
 * every wait is a poll() on the socket bounded by a deadline. One thread at a time. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "basic/macro.h"
#include "layout/layout.h"
#include "transport.h"

typedef struct SshSession SshSession;
typedef struct SshStream SshStream;

int ssh_session_open(const char *host_name, const char *address, const SshOptions *o,
                     SshSession **ret, Error *err);
SshSession *ssh_session_free(SshSession *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(SshSession *, ssh_session_free);

/* Run a command line (already quoted for the remote shell). */
int ssh_session_exec(SshSession *s, const char *command, const char *stdin_data, size_t stdin_size,
                     unsigned timeout_sec, TransportExecResult *ret, Error *err);

/* Write a file atomically over SFTP: a temporary name in the same directory with a random
 * suffix, created O_EXCL with mode 0700, then chmod `mode` and rename over `path` with
 * `mv -f -T` (SFTP's own rename refuses an existing target). */
int ssh_session_upload(SshSession *s, const char *path, const void *data, size_t size,
                       unsigned mode, unsigned timeout_sec, Error *err);

/* A long-lived command (the agent): write to its stdin, read its stdout line by line. */
int ssh_session_spawn(SshSession *s, const char *command, unsigned timeout_sec, SshStream **ret, Error *err);
int ssh_stream_write(SshStream *st, const char *data, size_t size, uint64_t deadline_ms, Error *err);
/* Next line without its newline; -ETIME at the deadline, -EPIPE at EOF. */
int ssh_stream_read_line(SshStream *st, uint64_t deadline_ms, char **ret, Error *err);
/* A read timed out or failed, or the command exited: no point in talking to it. */
bool ssh_stream_is_broken(SshStream *st);
/* The last bytes the command wrote to stderr (for error messages), never NULL. */
const char *ssh_stream_stderr_tail(SshStream *st);
SshStream *ssh_stream_free(SshStream *st);
DEFINE_TRIVIAL_CLEANUP_FUNC(SshStream *, ssh_stream_free);
