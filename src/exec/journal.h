/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The journal: an append-only JSON-lines file per cluster on the controller. Every record
 * is written with one write() and fsync()ed, so a crash leaves at most a torn last line,
 * which journal_open() cuts off (readers skip it too). A lock (flock on a sibling file) keeps two controllers on this
 * machine from acting on one cluster at once. */

#include <json-c/json.h>
#include <pthread.h>
#include <stdbool.h>

#include "basic/error.h"
#include "basic/macro.h"

typedef struct Journal {
        char *path;
        int fd;
        int lock_fd;
        char *run_id;
        uint64_t torn_bytes;     /* cut off by journal_open(): a record torn by a crash */
        pthread_mutex_t mutex;
} Journal;

/* Default directory: $CEPHPROV_STATE_DIR, else /var/lib/cephprov when root, else
 * $XDG_STATE_HOME/cephprov or ~/.local/state/cephprov. */
int journal_default_dir(char **ret, Error *err);

/* Opens (creating) DIR/<cluster>.journal and takes DIR/<cluster>.lock without waiting;
 * a held lock is refused naming the holder's pid and command recorded in the lock file.
 * A torn last line (a crash in the middle of a write) is truncated away first, so that the
 * next record starts on a line of its own; torn_bytes says how much was cut. */
int journal_open(const char *dir, const char *cluster, const char *command, Journal **ret, Error *err);
Journal *journal_close(Journal *j);
DEFINE_TRIVIAL_CLEANUP_FUNC(Journal *, journal_close);

/* Appends {"time":..,"run":..,"event":event, ...fields}; takes ownership of fields (may be NULL). */
int journal_append(Journal *j, const char *event, json_object *fields, Error *err);

/* Reads every complete record of a journal file, oldest first; a torn last line is skipped. */
int journal_read(const char *path, json_object **ret_array, Error *err);

/* Resume for the wave executor (exec/waves.h): the keys of the steps that the runs named
 * `waves_id` recorded as done ("wave-step-done" or "wave-step-earlier") since the last of
 * those runs that ended with status "ok" (a finished procedure starts over), minus keys
 * whose latest record is a failure. A missing journal file gives an empty list. Keys in
 * the order they were first done. */
int journal_done_step_keys(const char *path, const char *waves_id, char ***ret_keys, Error *err);
