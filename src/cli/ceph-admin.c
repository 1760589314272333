/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ceph-admin.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/strv.h"
#include "ceph/ceph.h"

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

        int r = transport_open(h, &a->transport, err);
        if (r < 0)
                return error_prefix(err, r, "admin host '%s'", h->name);
        r = transport_agent_start_current(a->transport, &a->channel, NULL, err);
        if (r < 0)
                return error_prefix(err, r, "admin host '%s'", h->name);

        _cleanup_json_ json_object *args = json_object_new_object(), *res = NULL;
        if (!args || json_add_string(args, "host", h->name) < 0 || json_add(args, "allow", json_object_new_array()) < 0)
                return error_set(err, ENOMEM, "out of memory");
        r = agent_channel_call(a->channel, "configure", args, 30, NULL, NULL, &res, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(a);
        return 0;
}

CephAdmin *ceph_admin_close(CephAdmin *a) {
        if (!a)
                return NULL;
        agent_channel_close(a->channel);
        transport_close(a->transport);
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

int ceph_admin_run(CephAdmin *a, char * const *args, bool json, json_object **ret_json, char **ret_out, Error *err) {
        return ceph_admin_run_stdin(a, args, NULL, json, ret_json, ret_out, err);
}

int ceph_admin_run_stdin(CephAdmin *a, char * const *args, const char *stdin_data, bool json, json_object **ret_json,
                         char **ret_out, Error *err) {
        _cleanup_json_ json_object *req = json_object_new_object(), *res = NULL;
        json_object *argv = json_object_new_array();
        if (!req || !argv || json_add(req, "argv", argv) < 0)
                return error_set(err, ENOMEM, "out of memory");
        const char *pre[] = { "ceph", "--cluster", a->cluster, "--connect-timeout", "30" };
        for (size_t i = 0; i < ELEMENTSOF(pre); i++)
                json_object_array_add(argv, json_object_new_string(pre[i]));
        STRV_FOREACH(s, args)
                json_object_array_add(argv, json_object_new_string(*s));
        if (json) {
                json_object_array_add(argv, json_object_new_string("-f"));
                json_object_array_add(argv, json_object_new_string("json"));
        }
        json_add_int(req, "timeout", CEPH_ADMIN_TIMEOUT);
        json_add_string(req, "stdin", stdin_data);

        pthread_mutex_lock(&a->mu);
        int r = agent_channel_call(a->channel, "run", req, CEPH_ADMIN_TIMEOUT + 10, NULL, NULL, &res, err);
        pthread_mutex_unlock(&a->mu);
        _cleanup_(freep) char *cmd = strv_join((char **) args, " ");
        if (r < 0)
                return error_prefix(err, r, "'ceph %s' on '%s'", cmd ? cmd : "", a->host->name);

        int64_t code = -1;
        const char *out = "", *er = "";
        (void) json_get_int(res, "exit", true, &code, "run result", NULL);
        (void) json_get_string(res, "stdout", false, &out, "run result", NULL);
        (void) json_get_string(res, "stderr", false, &er, "run result", NULL);
        if (code != 0) {
                _cleanup_(freep) char *msg = one_line(er[0] ? er : out);
                int e = code > 0 && code < 134 ? (int) code : EIO;
                return error_set(err, e, "'ceph %s' on '%s' failed (exit %lld): %s", cmd ? cmd : "", a->host->name,
                                 (long long) code, msg ? msg : "");
        }
        if (json && ret_json) {
                *ret_json = NULL;
                if (strspn(out, " \t\r\n") != strlen(out)) {
                        enum json_tokener_error jerr;
                        json_object *j = json_tokener_parse_verbose(out, &jerr);
                        if (!j)
                                return error_set(err, EBADMSG, "'ceph %s' on '%s' printed no valid JSON: %s", cmd ? cmd : "",
                                                 a->host->name, json_tokener_error_desc(jerr));
                        *ret_json = j;
                }
        }
        if (ret_out && !(*ret_out = strdup(out)))
                return error_set(err, ENOMEM, "out of memory");
        return 0;
}

int ceph_admin_runl(CephAdmin *a, bool json, json_object **ret_json, Error *err, const char *arg, ...) {
        char *args[32];
        size_t n = 0;
        va_list ap;
        va_start(ap, arg);
        for (const char *s = arg; s && n < ELEMENTSOF(args) - 1; s = va_arg(ap, const char *))
                args[n++] = (char *) s;
        va_end(ap);
        args[n] = NULL;
        return ceph_admin_run(a, args, json, ret_json, NULL, err);
}

json_object *ceph_osd_dump_find(json_object *dump, int id) {
        json_object *osds = NULL;
        if (!dump || !json_object_object_get_ex(dump, "osds", &osds) || !json_object_is_type(osds, json_type_array))
                return NULL;
        for (size_t i = 0; i < json_object_array_length(osds); i++) {
                json_object *o = json_object_array_get_idx(osds, i), *v;
                if (json_object_object_get_ex(o, "osd", &v) && json_object_get_int(v) == id)
                        return o;
        }
        return NULL;
}

bool ceph_osd_dump_up(json_object *osd) {
        json_object *v;
        return osd && json_object_object_get_ex(osd, "up", &v) && json_object_get_int(v) == 1;
}

bool ceph_osd_dump_in(json_object *osd) {
        json_object *v;
        return osd && json_object_object_get_ex(osd, "in", &v) && json_object_get_int(v) == 1;
}

bool ceph_osd_dump_has_state(json_object *osd, const char *state) {
        json_object *st;
        if (!osd || !json_object_object_get_ex(osd, "state", &st) || !json_object_is_type(st, json_type_array))
                return false;
        for (size_t i = 0; i < json_object_array_length(st); i++)
                if (streq_ptr(json_object_get_string(json_object_array_get_idx(st, i)), state))
                        return true;
        return false;
}

static char *lock_get(CephAdmin *a, const char *key, CephLock **ret, Error *err) {
        _cleanup_(freep) char *out = NULL;
        char *args[] = { (char *) "config-key", (char *) "get", (char *) key, NULL };
        Error e = {};
        int r = ceph_admin_run(a, args, false, NULL, &out, &e);
        *ret = NULL;
        if (r == -ENOENT)
                return strdup(""); /* free */
        if (r < 0) {
                error_set(err, -r, "%s", e.message);
                return NULL;
        }
        r = ceph_lock_parse(out, ret, err);
        if (r < 0) {
                error_prefix(err, r, "cannot read the lock '%s' of cluster '%s'", key, a->cluster);
                return NULL;
        }
        return strdup("");
}

static char *holder_host(const char *holder) {
        const char *c = strrchr(holder, ':');
        return c ? strndup(holder, (size_t) (c - holder)) : strdup(holder);
}

int ceph_cluster_lock(CephAdmin *a, const char *command, CephClusterLock *ret, Error *err) {
        char host[256] = "";
        if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
                snprintf(host, sizeof(host), "localhost");
        _cleanup_(freep) char *key = ceph_lock_key(a->cluster, err);
        _cleanup_(freep) char *holder = strprintf("%s:%d", host, (int) getpid());
        if (!key || !holder)
                return key ? error_set(err, ENOMEM, "out of memory") : -EINVAL;

        _cleanup_(ceph_lock_freep) CephLock *cur = NULL;
        _cleanup_(freep) char *ok = lock_get(a, key, &cur, err);
        if (!ok)
                return -err->code;
        if (cur) {
                _cleanup_(freep) char *h = holder_host(cur->holder);
                if (!h || !streq(h, host))
                        return error_set(err, EBUSY,
                                         "cluster '%s' is locked by cephprov on '%s' (%s, since %s): another controller acts on it; "
                                         "if it is gone, remove the lock with 'ceph config-key rm %s'",
                                         a->cluster, cur->holder, cur->command ? cur->command : "?",
                                         cur->since ? cur->since : "?", key);
                /* this machine: we hold the local lock, so that holder is dead */
                log_notice("taking over the lock of cluster '%s' left by '%s' (%s, since %s), which is no longer running",
                           a->cluster, cur->holder, cur->command ? cur->command : "?", cur->since ? cur->since : "?");
        }

        char since[40];
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%SZ", &tm);
        CephLock mine = { .holder = holder, .since = since, .command = (char *) command };
        _cleanup_(freep) char *value = ceph_lock_format(&mine);
        if (!value)
                return error_set(err, ENOMEM, "out of memory");
        char *set[] = { (char *) "config-key", (char *) "set", key, value, NULL };
        int r = ceph_admin_run(a, set, false, NULL, NULL, err);
        if (r < 0)
                return r;

        /* no compare-and-set in config-key: read back, the last writer wins */
        _cleanup_(ceph_lock_freep) CephLock *after = NULL;
        _cleanup_(freep) char *ok2 = lock_get(a, key, &after, err);
        if (!ok2)
                return -err->code;
        if (!after || !streq(after->holder, holder))
                return error_set(err, EBUSY, "cluster '%s': another controller (%s) took the lock at the same time",
                                 a->cluster, after ? after->holder : "?");

        *ret = (CephClusterLock) { .admin = a, .key = TAKE_PTR(key), .holder = TAKE_PTR(holder), .held = true };
        return 0;
}

void ceph_cluster_unlock(CephClusterLock *l) {
        if (l->held && l->admin) {
                char *args[] = { (char *) "config-key", (char *) "rm", l->key, NULL };
                Error e = {};
                if (ceph_admin_run(l->admin, args, false, NULL, NULL, &e) < 0)
                        log_warning("cannot release the cluster lock '%s': %s", l->key, e.message);
        }
        free(l->key);
        free(l->holder);
        *l = (CephClusterLock) {};
}
