/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The cluster as the controller reaches it: librados on the layout's admin host, through
 * that host's agent ("ceph-command" op, docs/agent.md). The src/ceph argv builders say what
 * to ask in the words of the `ceph` CLI; ceph_command_from_argv() makes each the JSON
 * command the CLI would have sent, and the answers come back as the CLI would have printed
 * them (exit status, stdout, stderr), so the parsers read them as they always did. `-v`
 * logs each command as the `ceph ...` line an operator could type, with its time. One
 * request at a time; usable from several threads. */

#include <pthread.h>
#include <stdbool.h>

#include "basic/error.h"
#include "ceph/ceph.h"
#include "ceph/ceph-cluster.h"
#include "controller/hosts.h"
#include "layout/layout.h"
#include "transport/transport.h"

#define CEPH_ADMIN_TIMEOUT 120

struct CephClusterLock;

typedef struct CephAdmin {
        const Host *host;
        const char *cluster;
        HostChannel ch;  /* host_channel_open(HOST_CHANNEL_ADMIN) */
        CephCli cli;     /* what ceph_admin_cli() returns */
        size_t n_prefix; /* words of ceph_argv_cli(&cli) */
        pthread_mutex_t mu;
        struct CephClusterLock *lock; /* checked before every command; NULL = none */
} CephAdmin;

/* Connects to the layout's admin host (a HostChannel of controller/hosts.h: its agent,
 * configured with an empty allow-list: it touches no disk there). */
int ceph_admin_open(const Layout *l, CephAdmin **ret, Error *err);
/* Opens n admin connections ahead (host_channel_prewarm), each connected to the cluster
 * by its agent, for the next n ceph_admin_open() of this layout; nothing without an admin
 * host. host_channel_prewarm_end() closes those not taken. */
void ceph_admin_prewarm(const Layout *l, unsigned n);
CephAdmin *ceph_admin_close(CephAdmin *a);
DEFINE_TRIVIAL_CLEANUP_FUNC(CephAdmin *, ceph_admin_close);

/* Every command run through `a` (and ceph_admin_lock_check) first checks that the lease of
 * `lock` still holds (cluster-lock.h): a controller that lost the lock changes nothing more. */
void ceph_admin_set_lock(CephAdmin *a, struct CephClusterLock *lock);
int ceph_admin_lock_check(CephAdmin *a, Error *err);

/* How the src/ceph argv builders reach this cluster: `ceph --cluster C --connect-timeout 30`.
 * Every command the controller runs is built by them with this. */
const CephCli *ceph_admin_cli(const CephAdmin *a);

/* Runs `argv` (from a ceph_argv_* builder given ceph_admin_cli(a); consumed: freed here, NULL
 * when the builder failed and set `err`), with stdin_data (may be NULL, for `-i -`) on ceph's
 * stdin. A non-zero exit is an error whose code is ceph's own (it exits with the errno, e.g.
 * 16 EBUSY, 2 ENOENT) and whose message carries ceph's stderr. ret_out (may be NULL) gets
 * stdout. Messages name the command by its words after the prefix, without "-f json". A `ceph`
 * that could not run is ENOEXEC (see ceph_admin_ask()), so -ENOENT is only ceph's own exit 2. */
int ceph_admin_run(CephAdmin *a, char **argv, const char *stdin_data, char **ret_out, Error *err);

/* What ceph answered: its exit status (0..255), its command words (as in messages) and both
 * streams. */
typedef struct CephAnswer {
        int exit_status;
        char *cmd, *out, *err;
} CephAnswer;
void ceph_answer_done(CephAnswer *ans);

/* Runs `argv` as ceph_admin_run() does, but a non-zero exit is an answer, not an error: 0
 * whenever ceph ran and exited, with its status and streams in *ret; for the commands whose
 * failure says something (EBUSY "not now", ENOENT "no such key": ask ceph_answer_no_such_key()).
 * An error only when there is no answer from ceph: it did not run (no `ceph` binary or its
 * interpreter: ENOEXEC, never ENOENT), the agent or the connection to it failed, it timed
 * out, or the lease is lost. ceph_admin_run() returns the same errors, and ceph's own non-zero
 * exit as ceph_answer_error() puts it. */
int ceph_admin_ask(CephAdmin *a, char **argv, const char *stdin_data, CephAnswer *ret, Error *err);
/* `n` queries asked in one request, side by side on the admin host (what loops over OSDs
 * ask: `config show osd.N` of each): each argv consumed (argvs[i] set to NULL), ret[i] the
 * answer of argvs[i] as ceph_admin_ask() gives it. An error when any argv could not be
 * built or no answer came back; then no answer is left in ret. No input (-i -). */
int ceph_admin_ask_many(CephAdmin *a, char ***argvs, size_t n, CephAnswer *ret, Error *err);
/* A non-zero exit as an error: code = the exit status (ceph exits with the errno), message
 * "'ceph WORDS' on 'HOST' failed (exit N): STDERR". */
int ceph_answer_error(const CephAdmin *a, const CephAnswer *ans, Error *err);
/* Runs a `get` (`config-key get`, `auth get`, ...) as ceph_admin_run() does: 1 and its
 * stdout when ceph answered, 0 and NULL when ceph itself says there is no such key or entity
 * (ceph_answer_no_such_key()). A `ceph` that did not run or did not answer is an error, never
 * "none". */
int ceph_admin_get(CephAdmin *a, char **argv, char **ret_out, Error *err);

/* The cluster's answers, read by the src/ceph parsers (no other code reads them). An empty
 * answer, or one the parser refuses, is EBADMSG naming the command and the admin host. */
int ceph_admin_osd_dump(CephAdmin *a, CephOsdDump **ret, Error *err);
int ceph_admin_config_dump(CephAdmin *a, CephConfigDump **ret, Error *err);
/* The PGs that would be left without a readable copy once `targets` are gone, every OSD
 * down now counted (ceph_copies_check on `pg dump pgs_brief` and `osd dump`, read now). */
int ceph_admin_copies(CephAdmin *a, const int *targets, size_t n_targets, CephCopies **ret, Error *err);
/* The gate itself: 0 when no PG would be left without a readable copy, else EBUSY
 * "refusing to ACT: N PG(s) would be left without a readable copy ...: PGID (0 of 1), ...",
 * asked up to three times 2 s apart (peering settles). An answer that cannot be read
 * refuses too: the gate fails closed. */
int ceph_admin_copies_gate(CephAdmin *a, const int *targets, size_t n_targets, const char *act, Error *err);
/* `config set`/`config rm` of each op in order, then `config dump` checked: each op's value
 * there (section WHO, no mask; numbers as the database keeps them), or no entry for an rm.
 * A mismatch is EIO: "after WHAT: config WHO KEY is HAVE, not WANT". */
int ceph_admin_config_apply(CephAdmin *a, const CephConfigOp *ops, size_t n, const char *what, Error *err);
int ceph_admin_osd_tree(CephAdmin *a, CephOsdTree **ret, Error *err);
int ceph_admin_osd_metadata(CephAdmin *a, CephOsdMetadataList **ret, Error *err);
/* `ceph status`: its health and its PG states (either pointer may be NULL: not wanted) */
int ceph_admin_status(CephAdmin *a, CephHealth **ret_health, CephPgStat **ret_pgs, Error *err);
