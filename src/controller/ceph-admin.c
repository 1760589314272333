/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "controller/ceph-admin.h"
#include "controller/cluster-lock.h"
#include "controller/hosts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/strv.h"

int ceph_admin_open(const Layout *l, CephAdmin **ret, Error *err) {
        if (!l->admin_host)
                return error_set(err, EINVAL, "layout '%s' names no admin_host: the Ceph steps need one",
                                 l->path ? l->path : "?");
        const Host *h = layout_find_host(l, l->admin_host);
        if (!h)
                return error_set(err, ENOENT, "admin host '%s' is not among the hosts of layout '%s'", l->admin_host,
                                 l->path ? l->path : "?");

        _cleanup_(ceph_admin_closep) CephAdmin *a = calloc(1, sizeof(CephAdmin));
        if (!a)
                return error_set(err, ENOMEM, "out of memory");
        pthread_mutex_init(&a->mu, NULL);
        a->host = h;
        a->cluster = l->cluster_name ? l->cluster_name : "ceph";
        a->cli = (CephCli) { .cluster = a->cluster, .connect_timeout = 30 };
        _cleanup_strv_free_ char **prefix = ceph_argv_cli(&a->cli, err);
        if (!prefix)
                return error_set(err, ENOMEM, "out of memory");
        a->n_prefix = strv_length(prefix);

        int r = host_channel_open(h, HOST_CHANNEL_ADMIN, &a->ch, NULL, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(a);
        return 0;
}

/* the agent's librados connection made ahead: a "ceph-command" with no command, with the
 * arguments every request of ceph_admin_ask() carries (the agent keys its connection on them) */
static void admin_warm(HostChannel *ch, void *userdata) {
        const char *cluster = userdata;
        _cleanup_json_ json_object *req = json_object_new_object(), *res = NULL;
        Error e = {};
        if (!req || json_add_string(req, "cluster", cluster) < 0 || json_add_int(req, "timeout", CEPH_ADMIN_TIMEOUT) < 0 ||
            json_add(req, "commands", json_object_new_array()) < 0)
                return;
        if (agent_channel_call(ch->channel, "ceph-command", req, CEPH_ADMIN_TIMEOUT, NULL, NULL, &res, &e) < 0)
                log_debug("admin host: connecting to the cluster ahead: %s", e.message);
}

void ceph_admin_prewarm(const Layout *l, unsigned n) {
        const Host *h = l->admin_host ? layout_find_host(l, l->admin_host) : NULL;
        if (!h)
                return;
        for (unsigned i = 0; i < n; i++)
                host_channel_prewarm(h, HOST_CHANNEL_ADMIN, admin_warm, (void *) (l->cluster_name ? l->cluster_name : "ceph"));
}

CephAdmin *ceph_admin_close(CephAdmin *a) {
        if (!a)
                return NULL;
        host_channel_close(&a->ch);
        pthread_mutex_destroy(&a->mu);
        free(a);
        return NULL;
}

static char *one_line(const char *s) {
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
                n--;
        if (n > 500) {
                s += n - 500;
                n = 500;
        }
        char *t = strndup(s, n);
        for (char *c = t; c && *c; c++)
                if (*c == '\n')
                        *c = ' ';
        return t;
}

void ceph_admin_set_lock(CephAdmin *a, CephClusterLock *lock) {
        a->lock = lock;
}

int ceph_admin_lock_check(CephAdmin *a, Error *err) {
        return a ? ceph_cluster_lock_check(a->lock, err) : 0;
}

const CephCli *ceph_admin_cli(const CephAdmin *a) {
        return &a->cli;
}

/* "osd dump" for "ceph --cluster C --connect-timeout 30 osd dump -f json": messages name a
 * command by its words, without the connection prefix and the output format */
static char *command_words(const CephAdmin *a, char * const *argv) {
        size_t n = strv_length((char **) argv), first = MIN(a->n_prefix, n), end = n;
        if (end >= first + 2 && streq(argv[end - 2], "-f") && streq(argv[end - 1], "json"))
                end -= 2;
        _cleanup_(freep) char **words = calloc(end - first + 1, sizeof(char *));
        if (!words)
                return NULL;
        memcpy(words, argv + first, (end - first) * sizeof(char *));
        return strv_join(words, " ");
}

void ceph_answer_done(CephAnswer *ans) {
        free(ans->cmd);
        free(ans->out);
        free(ans->err);
        *ans = (CephAnswer) {};
}

int ceph_answer_error(const CephAdmin *a, const CephAnswer *ans, Error *err) {
        _cleanup_(freep) char *msg = one_line(ans->err && ans->err[0] ? ans->err : ans->out ? ans->out : "");
        int e = ans->exit_status > 0 && ans->exit_status < 134 ? ans->exit_status : EIO;
        return error_set(err, e, "'ceph %s' on '%s' failed (exit %d): %s", ans->cmd ? ans->cmd : "", a->host->name,
                         ans->exit_status, msg ? msg : "");
}

/* No answer from the cluster: the agent, librados or the connection to the cluster failed.
 * The agent's ENOENT (no librados on the admin host) must never read as the ENOENT a
 * command answers for "no such key" or "no such entity" (callers take that as an answer). */
static int no_answer(CephAdmin *a, const char *cmd, int r, Error *err) {
        r = error_prefix(err, r, "'ceph %s' on '%s'", cmd, a->host->name);
        if (r == -ENOENT) {
                if (err)
                        err->code = ENOEXEC;
                r = -ENOEXEC;
        }
        return r;
}

/* The agent's "ceph-command" request for `cmds` (built from argvs) */
static int command_request(CephAdmin *a, const CephCommand *cmds, size_t n, const char *input, json_object **ret) {
        _cleanup_json_ json_object *req = json_object_new_object(), *list = json_object_new_array_ext((int) n);
        if (!req || !list || json_add_string(req, "cluster", a->cluster) < 0 ||
            json_add_int(req, "timeout", CEPH_ADMIN_TIMEOUT) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                json_object *c = json_array_add_object(list);
                if (!c)
                        return -ENOMEM;
                if (json_add_string(c, "target", ceph_target_name(cmds[i].target)) < 0 ||
                    (cmds[i].target == CEPH_TARGET_OSD && json_add_int(c, "osd", cmds[i].osd) < 0) ||
                    json_add(c, "cmd", json_object_get(cmds[i].cmd)) < 0 ||
                    (cmds[i].input && json_add_string(c, "input", input ? input : "") < 0))
                        return -ENOMEM;
        }
        if (json_add(req, "commands", TAKE_PTR(list)) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(req);
        return 0;
}

/* One answer of the agent's "ceph-command" as the CLI would have given it: exit status
 * the errno, stdout the output, stderr "Error ENOENT: STATUS" (ceph_answer_stderr). */
static int answer_from(CephAdmin *a, json_object *ans, char *cmd, CephAnswer *ret, Error *err) {
        _cleanup_(freep) char *words = cmd;
        const char *message = NULL, *out = "", *status = "";
        int64_t rc = 0;
        if (json_get_string(ans, "error", false, &message, "ceph-command answer", NULL) >= 0 && message)
                return error_set(err, EIO, "'ceph %s' on '%s': %s", words ? words : "", a->host->name, message);
        if (json_get_int(ans, "rc", true, &rc, "ceph-command answer", NULL) < 0 || rc > 0 || rc < -4095)
                return error_set(err, EPROTO, "'ceph %s' on '%s': the agent's answer has no return code",
                                 words ? words : "", a->host->name);
        (void) json_get_string(ans, "out", false, &out, "ceph-command answer", NULL);
        (void) json_get_string(ans, "status", false, &status, "ceph-command answer", NULL);
        CephAnswer r = { .exit_status = rc < 0 ? (int) MIN(-rc, (int64_t) 255) : 0, .cmd = TAKE_PTR(words),
                         .out = strdup(out), .err = ceph_answer_stderr((int) rc, status) };
        if (!r.out || !r.err) {
                ceph_answer_done(&r);
                return error_set(err, ENOMEM, "out of memory");
        }
        double ms = 0;
        json_object *m = json_object_object_get(ans, "ms");
        if (m)
                ms = json_object_get_double(m);
        if (rc < 0)
                log_info("ceph %s: %s (%.1f ms)", r.cmd, errno_name((int) -rc), ms);
        else
                log_info("ceph %s (%.1f ms)", r.cmd, ms);
        *ret = r;
        return 0;
}

int ceph_admin_ask_many(CephAdmin *a, char ***argvs, size_t n, CephAnswer *ret, Error *err) {
        _cleanup_(freep) CephCommand *cmds = calloc(n ? n : 1, sizeof(CephCommand));
        int r = 0;
        if (!cmds) {
                for (size_t i = 0; i < n; i++)
                        strv_free(argvs[i]);
                return error_set(err, ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < n; i++) {
                _cleanup_strv_free_ char **args = argvs[i];
                argvs[i] = NULL;
                if (r < 0)
                        continue;
                if (!args)
                        r = err && err->code ? -err->code : error_set(err, EINVAL, "no ceph command");
                else if ((r = ceph_command_from_argv(args, a->n_prefix, &cmds[i], err)) >= 0) {
                        /* the message's words: as ceph_admin_run() names a command, no "-f json" */
                        free(cmds[i].words);
                        cmds[i].words = command_words(a, args);
                        if (!cmds[i].words)
                                r = error_set(err, ENOMEM, "out of memory");
                }
        }
        _cleanup_json_ json_object *req = NULL, *res = NULL;
        if (r >= 0 && (r = ceph_admin_lock_check(a, err)) >= 0 && command_request(a, cmds, n, NULL, &req) < 0)
                r = error_set(err, ENOMEM, "out of memory");
        if (r >= 0) {
                pthread_mutex_lock(&a->mu);
                /* the agent starts no command past CEPH_ADMIN_TIMEOUT; the last one started is
                 * bounded by it again */
                r = agent_channel_call(a->ch.channel, "ceph-command", req, 2 * CEPH_ADMIN_TIMEOUT + 10, NULL, NULL,
                                       &res, err);
                pthread_mutex_unlock(&a->mu);
                if (r < 0)
                        r = no_answer(a, n ? cmds[0].words : "", r, err);
        }
        json_object *answers = NULL;
        if (r >= 0 && (json_get_array(res, "answers", true, &answers, "ceph-command result", NULL) < 0 ||
                       json_object_array_length(answers) != n))
                r = error_set(err, EPROTO, "'ceph %s' on '%s': the agent's answer has not one answer per command",
                              n ? cmds[0].words : "", a->host->name);
        for (size_t i = 0; r >= 0 && i < n; i++)
                if ((r = answer_from(a, json_object_array_get_idx(answers, i), TAKE_PTR(cmds[i].words), &ret[i], err)) <
                    0)
                        for (size_t k = 0; k < i; k++)
                                ceph_answer_done(&ret[k]);
        for (size_t i = 0; i < n; i++)
                ceph_command_done(&cmds[i]);
        return r;
}

int ceph_admin_ask(CephAdmin *a, char **argv, const char *stdin_data, CephAnswer *ret, Error *err) {
        _cleanup_strv_free_ char **args = argv;
        if (!args)
                return err && err->code ? -err->code : error_set(err, EINVAL, "no ceph command");
        int r = ceph_admin_lock_check(a, err);
        if (r < 0)
                return r;
        _cleanup_(ceph_command_done) CephCommand c = { .osd = -1 };
        if ((r = ceph_command_from_argv(args, a->n_prefix, &c, err)) < 0)
                return r;
        _cleanup_(freep) char *cmd = command_words(a, args);
        _cleanup_json_ json_object *req = NULL, *res = NULL;
        if (!cmd || command_request(a, &c, 1, stdin_data, &req) < 0)
                return error_set(err, ENOMEM, "out of memory");

        pthread_mutex_lock(&a->mu);
        r = agent_channel_call(a->ch.channel, "ceph-command", req, CEPH_ADMIN_TIMEOUT + 10, NULL, NULL, &res, err);
        pthread_mutex_unlock(&a->mu);
        if (r < 0)
                return no_answer(a, cmd, r, err);
        json_object *answers = NULL;
        if (json_get_array(res, "answers", true, &answers, "ceph-command result", NULL) < 0 ||
            json_object_array_length(answers) != 1)
                return error_set(err, EPROTO, "'ceph %s' on '%s': the agent's answer has no answer", cmd,
                                 a->host->name);
        return answer_from(a, json_object_array_get_idx(answers, 0), TAKE_PTR(cmd), ret, err);
}

int ceph_admin_run(CephAdmin *a, char **argv, const char *stdin_data, char **ret_out, Error *err) {
        _cleanup_(ceph_answer_done) CephAnswer ans = {};
        int r = ceph_admin_ask(a, argv, stdin_data, &ans, err);
        if (r < 0)
                return r;
        if (ans.exit_status != 0)
                return ceph_answer_error(a, &ans, err);
        if (ret_out)
                *ret_out = TAKE_PTR(ans.out);
        return 0;
}

int ceph_admin_get(CephAdmin *a, char **argv, char **ret_out, Error *err) {
        _cleanup_(ceph_answer_done) CephAnswer ans = {};
        int r = ceph_admin_ask(a, argv, NULL, &ans, err);
        if (r < 0)
                return r;
        if (ans.exit_status == 0) {
                *ret_out = TAKE_PTR(ans.out);
                return 1;
        }
        if (ceph_answer_no_such_key(ans.exit_status, ans.err)) {
                *ret_out = NULL;
                return 0;
        }
        return ceph_answer_error(a, &ans, err);
}

/* Runs a query: its stdout (not blank) and the command's words for messages. */
static int query(CephAdmin *a, char **argv, char **ret_out, char **ret_cmd, Error *err) {
        _cleanup_(freep) char *cmd = argv ? command_words(a, argv) : NULL;
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(a, argv, NULL, &out, err);
        if (r < 0)
                return r;
        if (strspn(out, " \t\r\n") == strlen(out))
                return error_set(err, EBADMSG, "'ceph %s' printed nothing", cmd ? cmd : "");
        *ret_out = TAKE_PTR(out);
        *ret_cmd = TAKE_PTR(cmd);
        return 0;
}

/* A parser refused the answer `e`: EBADMSG naming the command and the host. */
static int bad_answer(CephAdmin *a, const char *cmd, int r, const Error *e, Error *err) {
        if (r == -ENOMEM)
                return error_set(err, ENOMEM, "out of memory");
        return error_set(err, EBADMSG, "'ceph %s' on '%s': %s", cmd ? cmd : "", a->host->name, e->message);
}

int ceph_admin_osd_dump(CephAdmin *a, CephOsdDump **ret, Error *err) {
        _cleanup_(freep) char *out = NULL, *cmd = NULL;
        int r = query(a, ceph_argv_osd_dump(&a->cli, err), &out, &cmd, err);
        if (r < 0)
                return r;
        Error e = {};
        r = ceph_osd_dump_parse(out, ret, &e);
        return r < 0 ? bad_answer(a, cmd, r, &e, err) : 0;
}

int ceph_admin_copies(CephAdmin *a, const int *targets, size_t n_targets, CephCopies **ret, Error *err) {
        _cleanup_(freep) char *pg_out = NULL, *pg_cmd = NULL, *dump_out = NULL, *dump_cmd = NULL;
        int r;
        /* the PGs first: an OSD that went down after them is then seen down in the map */
        if ((r = query(a, ceph_argv_pg_dump_pgs_brief(&a->cli, err), &pg_out, &pg_cmd, err)) < 0 ||
            (r = query(a, ceph_argv_osd_dump(&a->cli, err), &dump_out, &dump_cmd, err)) < 0)
                return r;
        _cleanup_(ceph_pg_dump_freep) CephPgDump *pgs = NULL;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        _cleanup_(ceph_pool_list_freep) CephPoolList *pools = NULL;
        _cleanup_(ceph_ec_profile_list_freep) CephEcProfileList *ec = NULL;
        Error e = {};
        if ((r = ceph_pg_dump_parse(pg_out, &pgs, &e)) < 0)
                return bad_answer(a, pg_cmd, r, &e, err);
        if ((r = ceph_osd_dump_parse(dump_out, &dump, &e)) < 0 || (r = ceph_pool_list_parse(dump_out, &pools, &e)) < 0 ||
            (r = ceph_ec_profiles_parse_osd_dump(dump_out, &ec, &e)) < 0)
                return bad_answer(a, dump_cmd, r, &e, err);
        if ((r = ceph_copies_check(pgs, dump, pools, ec, targets, n_targets, ret, &e)) < 0)
                return error_set(err, -r, "on '%s': %s", a->host->name, e.message);
        return 0;
}

int ceph_admin_copies_gate(CephAdmin *a, const int *targets, size_t n_targets, const char *act, Error *err) {
        if (n_targets == 0)
                return 0;
        _cleanup_(freep) char *what = NULL;
        for (unsigned attempt = 0;; attempt++) {
                _cleanup_(ceph_copies_freep) CephCopies *c = NULL;
                Error e = {};
                int r = ceph_admin_copies(a, targets, n_targets, &c, &e);
                if (r >= 0 && c->n_lost == 0) {
                        if (c->n_below_min_size > 0)
                                log_notice("%s: %zu PG(s) will be under their pool's min_size (inactive) until "
                                           "their copies come back", act, c->n_below_min_size);
                        return 0;
                }
                if (r < 0 && r != -EAGAIN)
                        return error_set(err, -r, "refusing to %s: the copies left could not be counted: %s", act,
                                         e.message);
                /* a PG peering, an OSD map newer than the PG stats: asked again a few times */
                if (attempt >= 2) {
                        if (r < 0)
                                return error_set(err, -r, "refusing to %s: %s", act, e.message);
                        _cleanup_(freep) char *d = ceph_copies_describe(c, 12);
                        return error_set(err, EBUSY, "refusing to %s: %s", act, d ? d : "out of memory");
                }
                struct timespec ts = { 2, 0 };
                nanosleep(&ts, NULL);
        }
}

int ceph_admin_config_dump(CephAdmin *a, CephConfigDump **ret, Error *err) {
        _cleanup_(freep) char *out = NULL, *cmd = NULL;
        int r = query(a, ceph_argv_config_dump(&a->cli, err), &out, &cmd, err);
        if (r < 0)
                return r;
        Error e = {};
        r = ceph_config_dump_parse(out, ret, &e);
        return r < 0 ? bad_answer(a, cmd, r, &e, err) : 0;
}

int ceph_admin_config_apply(CephAdmin *a, const CephConfigOp *ops, size_t n, const char *what, Error *err) {
        int r;
        for (size_t k = 0; k < n; k++)
                if ((r = ceph_admin_run(a, ceph_argv_config_op(&a->cli, &ops[k], err), NULL, NULL, err)) < 0)
                        return r;
        if (n == 0)
                return 0;
        _cleanup_(ceph_config_dump_freep) CephConfigDump *d = NULL;
        if ((r = ceph_admin_config_dump(a, &d, err)) < 0)
                return r;
        for (size_t k = 0; k < n; k++) {
                const char *have = NULL;
                for (size_t i = 0; i < d->n_entries; i++)
                        if (!d->entries[i].mask && streq(d->entries[i].section, ops[k].who) &&
                            streq(d->entries[i].name, ops[k].key))
                                have = d->entries[i].value;
                if (!ceph_config_value_eq(have, ops[k].value))
                        return error_set(err, EIO, "after %s: config %s %s is %s, not %s", what, ops[k].who, ops[k].key,
                                         have ? have : "unset", ops[k].value ? ops[k].value : "unset");
        }
        return 0;
}

int ceph_admin_osd_tree(CephAdmin *a, CephOsdTree **ret, Error *err) {
        _cleanup_(freep) char *out = NULL, *cmd = NULL;
        int r = query(a, ceph_argv_osd_tree(&a->cli, err), &out, &cmd, err);
        if (r < 0)
                return r;
        Error e = {};
        r = ceph_osd_tree_parse(out, ret, &e);
        return r < 0 ? bad_answer(a, cmd, r, &e, err) : 0;
}

int ceph_admin_osd_metadata(CephAdmin *a, CephOsdMetadataList **ret, Error *err) {
        _cleanup_(freep) char *out = NULL, *cmd = NULL;
        int r = query(a, ceph_argv_osd_metadata(&a->cli, -1, err), &out, &cmd, err);
        if (r < 0)
                return r;
        Error e = {};
        r = ceph_osd_metadata_parse(out, ret, &e);
        return r < 0 ? bad_answer(a, cmd, r, &e, err) : 0;
}

int ceph_admin_status(CephAdmin *a, CephHealth **ret_health, CephPgStat **ret_pgs, Error *err) {
        _cleanup_(freep) char *out = NULL, *cmd = NULL;
        int r = query(a, ceph_argv_status(&a->cli, err), &out, &cmd, err);
        if (r < 0)
                return r;
        _cleanup_(ceph_health_freep) CephHealth *h = NULL;
        _cleanup_(ceph_pg_stat_freep) CephPgStat *pgs = NULL;
        Error e = {};
        if ((r = ceph_health_parse(out, &h, &e)) < 0 || (r = ceph_pg_stat_parse(out, &pgs, &e)) < 0)
                return bad_answer(a, cmd, r, &e, err);
        if (ret_health)
                *ret_health = TAKE_PTR(h);
        if (ret_pgs)
                *ret_pgs = TAKE_PTR(pgs);
        return 0;
}
