/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* apply's per-OSD progress for people at a terminal: one line per OSD creation each time its
 * state changes (waiting for its id, waiting for its disk, prepare, activate, start, created,
 * failed), and every few seconds a line for each one still running, with its elapsed time and
 * an ETA taken from the OSDs created before it in this run (their mean time, less its own
 * elapsed time). Written only where the caller gives a stream (a terminal, never with --json);
 * every function takes a NULL OsdProgress and does nothing then.
 *
 *   osd.4 node3 /dev/loop7: prepare, 3 s elapsed, ETA 9 s
 *   osd.4 node3 /dev/loop7: created in 12.4 s
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "basic/macro.h"

typedef struct OsdProgress OsdProgress;

/* NULL when `f` is NULL (no progress) or out of memory. interval_sec: seconds between the
 * lines of the OSDs still running (0: none, only the changes). Starts a thread for them. */
OsdProgress *osd_progress_new(FILE *f, unsigned interval_sec);
/* Stops the thread; the lines already written stay. */
OsdProgress *osd_progress_free(OsdProgress *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(OsdProgress *, osd_progress_free);

/* A creation begins: returns its handle (>= 0), or -1 (no progress, or out of memory; the
 * other calls ignore -1). id: -1 while not known yet. */
int osd_progress_begin(OsdProgress *p, const char *host, const char *device, int id, const char *state);
/* Its state changed (a line when it differs from the last one). */
void osd_progress_state(OsdProgress *p, int handle, int id, const char *state);
/* It ended: created (its time counts for the others' ETA) or failed. */
void osd_progress_end(OsdProgress *p, int handle, int id, bool created);

/* The ETA of a creation running for `elapsed` seconds when `n_done` others took `done_sum`
 * seconds together: their mean less its elapsed time, never below 0; -1 when none is done
 * yet (no figure to go by). */
double osd_progress_eta(double done_sum, size_t n_done, double elapsed);
