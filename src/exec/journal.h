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

/* Resume for the wave executor (exec/waves.h): the keys of the steps that the runs of the
 * procedure `waves_id` recorded as done ("wave-step-done" or "wave-step-earlier"), minus
 * keys whose latest record is a failure. Records belong to one run ("run"); a run is the
 * procedure's when one of its records names `waves_id`. Keys end, in journal order:
 *   - all of them at a "waves-end" of the procedure with status "ok" (a finished procedure
 *     starts over);
 *   - those of host H ("host:H:...") and every key outside a host's list (before, gates,
 *     after) at a record of any other run that acted on H, one of the procedure's hosts:
 *     a run of another playbook (drain --cancel, destroy, replace), of the same playbook on
 *     other hosts or another device, or apply (a record with "host": H, or a waves-start
 *     whose "hosts" names H). What that run did to H is not what the procedure's records
 *     say: the procedure starts over on H, and its steps find the real state again.
 * A missing journal file gives an empty list. Keys in the order they were first done. */
int journal_done_step_keys(const char *path, const char *waves_id, char ***ret_keys, Error *err);

/* ---- The OSD records of apply (controller/apply-osds.h) and their queries ----
 *
 * Records: {"host", "device", "osd_id" (when known), "osd_fsid" (when known), and one
 * extra field} under the events osd-allocating (a uuid about to be given `ceph osd new`),
 * osd-allocated (an id decided for host:device), osd-half-made-owned /
 * osd-half-made-refused (a half-made OSD proven cephprov's, or not), osd-phase,
 * osd-created, osd-failed, osd-id-recreated, osd-released, osd-resumed,
 * osd-resume-failed, osd-wait-up, osd-all-up. The executor's step records (wave-step-start
 * and its outcome; step-start from an older cephprov) carry "host", "kind" and "device". Nothing outside this module parses
 * journal records: the flow asks the queries below. */

/* Appends an OSD record: host and device (NULL: left out), osd_id when id >= 0, osd_fsid
 * when fsid is not NULL, and extra_key: extra when both are given. A lost record makes a
 * resume worse, not the run wrong: errors are not reported. j NULL: nothing. */
void journal_append_osd(Journal *j, const char *event, const char *host, const char *device, int id, const char *fsid,
                        const char *extra_key, const char *extra);

/* The records of a journal file as they were when read (a run reads the journal once,
 * before it appends its own). path NULL or a missing file: no records. */
typedef struct JournalSnapshot JournalSnapshot;
int journal_snapshot(const char *path, JournalSnapshot **ret, Error *err);
JournalSnapshot *journal_snapshot_free(JournalSnapshot *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(JournalSnapshot *, journal_snapshot_free);
size_t journal_snapshot_size(const JournalSnapshot *s);

/* Steps of `kind` ("create-osd") whose latest record for their host and device is a
 * start: a run died while they ran. Reads every record with "kind" == kind, "host" and
 * "device": a wave-step-start (or step-start) adds host:device (once, where it first
 * started), any other event for it (its outcome) removes it. Two NULL-terminated lists of equal length, in the
 * order they started. */
int journal_unfinished_steps(const JournalSnapshot *s, const char *kind, char ***ret_hosts, char ***ret_devices,
                             Error *err);

/* An OSD id an earlier run decided for host:device, in journal order. From osd-allocated
 * records with an osd_id (fsid NULL, pending false), and from osd-allocating records with an
 * osd_fsid (pending: `ceph osd new` with that uuid may have run without its osd-allocated
 * record; id is the record's osd_id, which osd-allocating never carries: -1, so the
 * caller looks the uuid up in the OSD map). Records without host or device are skipped. */
typedef struct JournalOsdAllocation {
        const char *host;           /* borrowed from the snapshot */
        const char *device;
        const char *fsid;
        int id;
        bool pending;
} JournalOsdAllocation;
int journal_osd_allocations(const JournalSnapshot *s, JournalOsdAllocation **ret, size_t *ret_n, Error *err);

/* Did a run of cephprov start the OSD on host:device? True when a record for that very
 * host and device names its uuid `fsid` (case-insensitive; osd-allocating,
 * osd-half-made-owned or osd-created), or, with id >= 0, its id (osd-allocated or
 * osd-half-made-owned). */
bool journal_osd_started(const JournalSnapshot *s, const char *host, const char *device, const char *fsid, int id);
