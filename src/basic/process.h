/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Running a command: fork + execvp (never a shell), its own process group, output
 * collected, a deadline that kills the whole group. The one implementation behind the
 * agent's "run" op, its ceph-volume / make-bcache calls and the local transport. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

#define PROCESS_TERM_GRACE_MS_DEFAULT 5000

typedef struct ProcessRun {
        char * const *argv;          /* argv[0] is looked up in PATH */
        const char *stdin_data;      /* NULL: stdin is at EOF at once */
        size_t stdin_size;
        char * const *env_extra;     /* "K=V", added to (or replacing in) our environment */
        uint64_t timeout_ms;         /* 0: no deadline */
        uint64_t term_grace_ms;      /* SIGTERM to SIGKILL; 0: PROCESS_TERM_GRACE_MS_DEFAULT */
        /* When set, end of file or a hang-up on cancel_fd (the agent's connection to its
         * controller) kills the group as a timeout does: nobody is left to act on the answer,
         * and a re-run must not race what this run left behind. */
        bool watch_cancel_fd;
        int cancel_fd;
} ProcessRun;

typedef struct ProcessResult {
        int status;                  /* waitpid() status of the command (argv[0]) */
        char *out, *err;             /* NUL-terminated, never NULL on success */
        size_t out_size, err_size;
        bool timed_out;              /* the deadline passed: the group was killed */
        bool cancelled;              /* cancel_fd hung up: the group was killed */
        pid_t pgid;                  /* the command's process group (its pid) */
} ProcessResult;

void process_result_done(ProcessResult *r);

/* Runs the command and returns 0 with `ret` filled when it ran, whatever its exit status;
 * a negative errno (ret untouched) when it could not be started, -ECONNABORTED when
 * cancel_fd had hung up already (nothing started).
 *
 * The command leads its own process group. When it exits by itself, members it left
 * behind are not touched (a daemon it started is meant to outlive it) and what it wrote
 * before exiting is collected. On a timeout or cancel, the whole group gets SIGTERM, then
 * SIGKILL after the grace, and process_run() returns only when no live member is left —
 * so a lock the caller holds across the call is released only after everything the
 * command started is gone. That last wait has no bound: SIGKILL cannot be refused, and
 * returning while a member still writes is what this function exists to prevent. */
int process_run(const ProcessRun *o, ProcessResult *ret, Error *err);

/* Has process group `pgid` a member that is not a zombie? (Zombies are dead: on hosts
 * whose PID 1 does not reap, orphaned members stay zombies for good.) */
bool process_group_alive(pid_t pgid);

/* SIGTERM to the group, SIGKILL after `grace_ms`, then wait until process_group_alive()
 * is false. Reaps members that are our children. */
void process_group_kill(pid_t pgid, uint64_t grace_ms);

/* From main(): SIGINT, SIGTERM and SIGHUP (unless ignored) SIGKILL the process groups of
 * all commands running, then end us as the signal would have. A command runs in its own
 * group, so a signal to ours (Ctrl-C) no longer reaches it by itself. */
void process_kill_on_signal(void);

/* "exit 3", "signal KILL": for messages. */
const char *process_status_string(int status, char buf[static 32]);
