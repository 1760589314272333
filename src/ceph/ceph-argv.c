/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* argv builders for the ceph CLI: arrays to exec directly, never a shell string. */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "basic/strv.h"
#include "ceph-internal.h"
#include "ceph.h"

bool ceph_uuid_is_valid(const char *s) {
        if (!s || strlen(s) != 36)
                return false;
        for (size_t i = 0; i < 36; i++) {
                if (i == 8 || i == 13 || i == 18 || i == 23) {
                        if (s[i] != '-')
                                return false;
                } else if (!isxdigit((unsigned char) s[i]))
                        return false;
        }
        return true;
}

bool ceph_name_is_valid(const char *s) {
        if (isempty(s) || s[0] == '-' || strlen(s) > 255)
                return false;
        for (const char *p = s; *p; p++)
                if (!isalnum((unsigned char) *p) && !strchr("_.-", *p))
                        return false;
        return true;
}

/* a config-key key: names joined by '/' ("cephprov/lock/lab") */
static bool key_is_valid(const char *s) {
        if (isempty(s) || s[0] == '-' || s[0] == '/' || strlen(s) > 1024)
                return false;
        for (const char *p = s; *p; p++)
                if (!isalnum((unsigned char) *p) && !strchr("_.-/", *p))
                        return false;
        return !strstr(s, "//");
}

/* a value ceph accepts as one argument: printable, no leading '-' (it would be read as an
 * option), may contain spaces and JSON punctuation */
static bool value_is_valid(const char *s) {
        if (!s || s[0] == '-' || strlen(s) > 65536)
                return false;
        for (const char *p = s; *p; p++)
                if ((unsigned char) *p < 0x20 || *p == 0x7f)
                        return false;
        return true;
}

/* "osd.3" style or "osd"/"mon"/"global"/"client.x" for `config` WHO */
static bool who_is_valid(const char *s) {
        return ceph_name_is_valid(s);
}

static char **argv_start(const CephCli *cli, Error *err) {
        _cleanup_strv_free_ char **a = NULL;
        if (strv_extend(&a, cli && cli->binary ? cli->binary : "ceph") < 0)
                goto oom;
        if (cli) {
                if (cli->cluster && (strv_extend(&a, "--cluster") < 0 || strv_extend(&a, cli->cluster) < 0))
                        goto oom;
                if (cli->conf && (strv_extend(&a, "-c") < 0 || strv_extend(&a, cli->conf) < 0))
                        goto oom;
                if (cli->name && (strv_extend(&a, "-n") < 0 || strv_extend(&a, cli->name) < 0))
                        goto oom;
                if (cli->keyring && (strv_extend(&a, "-k") < 0 || strv_extend(&a, cli->keyring) < 0))
                        goto oom;
                if (cli->connect_timeout > 0 &&
                    (strv_extend(&a, "--connect-timeout") < 0 ||
                     strv_consume(&a, strprintf("%u", cli->connect_timeout)) < 0))
                        goto oom;
        }
        return TAKE_PTR(a);
oom:
        error_set(err, ENOMEM, "out of memory");
        return NULL;
}

char **ceph_argv_cli(const CephCli *cli, Error *err) {
        return argv_start(cli, err);
}

/* ceph CLI argv: the cli prefix, then the NULL-terminated words */
static char **argv_build(const CephCli *cli, Error *err, ...) {
        _cleanup_strv_free_ char **a = argv_start(cli, err);
        if (!a)
                return NULL;
        va_list ap;
        va_start(ap, err);
        for (const char *w; (w = va_arg(ap, const char *));)
                if (strv_extend(&a, w) < 0) {
                        va_end(ap);
                        error_set(err, ENOMEM, "out of memory");
                        return NULL;
                }
        va_end(ap);
        return TAKE_PTR(a);
}

static int append_ids(char ***a, const int *ids, size_t n, const char *what, Error *err) {
        if (!ids || n == 0)
                return error_set(err, EINVAL, "%s: no osd ids", what);
        for (size_t i = 0; i < n; i++) {
                if (ids[i] < 0)
                        return error_set(err, EINVAL, "%s: invalid osd id %d", what, ids[i]);
                if (strv_consume(a, strprintf("%d", ids[i])) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

static int append_json(char ***a, Error *err) {
        if (strv_extend(a, "-f") < 0 || strv_extend(a, "json") < 0)
                return error_set(err, ENOMEM, "out of memory");
        return 0;
}

static char **argv_ids(const CephCli *cli, const char *w1, const char *w2, const int *ids, size_t n,
                       bool json, Error *err) {
        _cleanup_strv_free_ char **a = argv_build(cli, err, w1, w2, NULL);
        if (!a)
                return NULL;
        char what[64];
        snprintf(what, sizeof what, "%s %s", w1, w2);
        if (append_ids(&a, ids, n, what, err) < 0)
                return NULL;
        if (json && append_json(&a, err) < 0)
                return NULL;
        return TAKE_PTR(a);
}

static char **argv_one_id(const CephCli *cli, Error *err, const char *w1, const char *w2, int id,
                          const char *tail) {
        if (id < 0) {
                error_set(err, EINVAL, "%s %s: invalid osd id %d", w1, w2, id);
                return NULL;
        }
        _cleanup_(freep) char *s = strprintf("%d", id);
        if (!s) {
                error_set(err, ENOMEM, "out of memory");
                return NULL;
        }
        return argv_build(cli, err, w1, w2, s, tail, NULL);
}

char **ceph_argv_status(const CephCli *cli, Error *err) {
        return argv_build(cli, err, "status", "-f", "json", NULL);
}

char **ceph_argv_health_detail(const CephCli *cli, Error *err) {
        return argv_build(cli, err, "health", "detail", "-f", "json", NULL);
}

char **ceph_argv_osd_tree(const CephCli *cli, Error *err) {
        return argv_build(cli, err, "osd", "tree", "-f", "json", NULL);
}

char **ceph_argv_osd_dump(const CephCli *cli, Error *err) {
        return argv_build(cli, err, "osd", "dump", "-f", "json", NULL);
}

char **ceph_argv_osd_metadata(const CephCli *cli, int id, Error *err) {
        if (id < 0)
                return argv_build(cli, err, "osd", "metadata", "-f", "json", NULL);
        _cleanup_(freep) char *s = strprintf("%d", id);
        if (!s) {
                error_set(err, ENOMEM, "out of memory");
                return NULL;
        }
        return argv_build(cli, err, "osd", "metadata", s, "-f", "json", NULL);
}

char **ceph_argv_pg_stat(const CephCli *cli, Error *err) {
        return argv_build(cli, err, "pg", "stat", "-f", "json", NULL);
}

char **ceph_argv_pg_dump_pgs_brief(const CephCli *cli, Error *err) {
        return argv_build(cli, err, "pg", "dump", "pgs_brief", "-f", "json", NULL);
}

char **ceph_argv_versions(const CephCli *cli, Error *err) {
        return argv_build(cli, err, "versions", "-f", "json", NULL);
}

char **ceph_argv_ok_to_stop(const CephCli *cli, const int *ids, size_t n, Error *err) {
        return argv_ids(cli, "osd", "ok-to-stop", ids, n, true, err);
}

char **ceph_argv_safe_to_destroy(const CephCli *cli, const int *ids, size_t n, Error *err) {
        return argv_ids(cli, "osd", "safe-to-destroy", ids, n, true, err);
}

char **ceph_argv_osd_new(const CephCli *cli, const char *uuid, int id, bool with_secrets, Error *err) {
        if (!ceph_uuid_is_valid(uuid)) {
                error_set(err, EINVAL, "osd new: invalid uuid '%s'", strnull(uuid));
                return NULL;
        }
        if (id < -1) {
                error_set(err, EINVAL, "osd new: invalid osd id %d", id);
                return NULL;
        }
        _cleanup_strv_free_ char **a = argv_start(cli, err);
        if (!a)
                return NULL;
        if ((with_secrets && (strv_extend(&a, "-i") < 0 || strv_extend(&a, "-") < 0)) ||
            strv_extend(&a, "osd") < 0 || strv_extend(&a, "new") < 0 || strv_extend(&a, uuid) < 0 ||
            (id >= 0 && strv_consume(&a, strprintf("%d", id)) < 0)) {
                error_set(err, ENOMEM, "out of memory");
                return NULL;
        }
        return TAKE_PTR(a);
}

char **ceph_argv_osd_destroy(const CephCli *cli, int id, Error *err) {
        return argv_one_id(cli, err, "osd", "destroy", id, "--yes-i-really-mean-it");
}

char **ceph_argv_osd_purge(const CephCli *cli, int id, Error *err) {
        return argv_one_id(cli, err, "osd", "purge", id, "--yes-i-really-mean-it");
}

char **ceph_argv_osd_out(const CephCli *cli, const int *ids, size_t n, Error *err) {
        return argv_ids(cli, "osd", "out", ids, n, false, err);
}

char **ceph_argv_osd_in(const CephCli *cli, const int *ids, size_t n, Error *err) {
        return argv_ids(cli, "osd", "in", ids, n, false, err);
}

char **ceph_argv_osd_down(const CephCli *cli, const int *ids, size_t n, Error *err) {
        return argv_ids(cli, "osd", "down", ids, n, false, err);
}

char **ceph_argv_osd_crush_remove(const CephCli *cli, int id, Error *err) {
        if (id < 0) {
                error_set(err, EINVAL, "osd crush remove: invalid osd id %d", id);
                return NULL;
        }
        _cleanup_(freep) char *s = strprintf("osd.%d", id);
        if (!s) {
                error_set(err, ENOMEM, "out of memory");
                return NULL;
        }
        return argv_build(cli, err, "osd", "crush", "remove", s, NULL);
}

static const char *const osd_flags[] = {
        "noout", "noin", "nobackfill", "norebalance", "norecover", "noscrub", "nodeep-scrub", "pause", "noup", "nodown",
};

static bool osd_flag_is_valid(const char *flag) {
        for (size_t i = 0; flag && i < ELEMENTSOF(osd_flags); i++)
                if (strcmp(osd_flags[i], flag) == 0)
                        return true;
        return false;
}

char **ceph_argv_osd_set(const CephCli *cli, const char *flag, Error *err) {
        if (!osd_flag_is_valid(flag)) {
                error_set(err, EINVAL, "osd set: unknown flag '%s'", strnull(flag));
                return NULL;
        }
        return argv_build(cli, err, "osd", "set", flag, NULL);
}

char **ceph_argv_osd_unset(const CephCli *cli, const char *flag, Error *err) {
        if (!osd_flag_is_valid(flag)) {
                error_set(err, EINVAL, "osd unset: unknown flag '%s'", strnull(flag));
                return NULL;
        }
        return argv_build(cli, err, "osd", "unset", flag, NULL);
}

char **ceph_argv_osd_crush_rm_device_class(const CephCli *cli, int id, Error *err) {
        if (id < 0) {
                error_set(err, EINVAL, "osd crush rm-device-class: invalid osd id %d", id);
                return NULL;
        }
        _cleanup_(freep) char *s = strprintf("osd.%d", id);
        if (!s) {
                error_set(err, ENOMEM, "out of memory");
                return NULL;
        }
        return argv_build(cli, err, "osd", "crush", "rm-device-class", s, NULL);
}

char **ceph_argv_osd_crush_set_device_class(const CephCli *cli, const char *cls, int id, Error *err) {
        if (!ceph_name_is_valid(cls)) {
                error_set(err, EINVAL, "osd crush set-device-class: invalid device class '%s'", strnull(cls));
                return NULL;
        }
        if (id < 0) {
                error_set(err, EINVAL, "osd crush set-device-class: invalid osd id %d", id);
                return NULL;
        }
        _cleanup_(freep) char *s = strprintf("osd.%d", id);
        if (!s) {
                error_set(err, ENOMEM, "out of memory");
                return NULL;
        }
        return argv_build(cli, err, "osd", "crush", "set-device-class", cls, s, NULL);
}

char **ceph_argv_config_get(const CephCli *cli, const char *who, const char *key, Error *err) {
        if (!who_is_valid(who) || !ceph_name_is_valid(key)) {
                error_set(err, EINVAL, "config get: invalid target '%s' or option '%s'", strnull(who), strnull(key));
                return NULL;
        }
        return argv_build(cli, err, "config", "get", who, key, NULL);
}

char **ceph_argv_config_set(const CephCli *cli, const char *who, const char *key, const char *value,
                            Error *err) {
        if (!who_is_valid(who) || !ceph_name_is_valid(key)) {
                error_set(err, EINVAL, "config set: invalid target '%s' or option '%s'", strnull(who), strnull(key));
                return NULL;
        }
        if (!value_is_valid(value) || isempty(value)) {
                error_set(err, EINVAL, "config set %s %s: invalid value '%s'", who, key, strnull(value));
                return NULL;
        }
        return argv_build(cli, err, "config", "set", who, key, value, NULL);
}

char **ceph_argv_config_show(const CephCli *cli, const char *who, Error *err) {
        if (!who_is_valid(who) || !strchr(who, '.')) {
                error_set(err, EINVAL, "config show: invalid daemon '%s' (like osd.3)", strnull(who));
                return NULL;
        }
        return argv_build(cli, err, "config", "show", who, "-f", "json", NULL);
}

char **ceph_argv_config_dump(const CephCli *cli, Error *err) {
        return argv_build(cli, err, "config", "dump", "-f", "json", NULL);
}

char **ceph_argv_config_rm(const CephCli *cli, const char *who, const char *key, Error *err) {
        if (!who_is_valid(who) || !ceph_name_is_valid(key)) {
                error_set(err, EINVAL, "config rm: invalid target '%s' or option '%s'", strnull(who), strnull(key));
                return NULL;
        }
        return argv_build(cli, err, "config", "rm", who, key, NULL);
}

static char **argv_config_key(const CephCli *cli, const char *verb, const char *key, Error *err) {
        if (!key_is_valid(key)) {
                error_set(err, EINVAL, "config-key %s: invalid key '%s'", verb, strnull(key));
                return NULL;
        }
        return argv_build(cli, err, "config-key", verb, key, NULL);
}

char **ceph_argv_config_key_get(const CephCli *cli, const char *key, Error *err) {
        return argv_config_key(cli, "get", key, err);
}

char **ceph_argv_config_key_rm(const CephCli *cli, const char *key, Error *err) {
        return argv_config_key(cli, "rm", key, err);
}

char **ceph_argv_config_key_exists(const CephCli *cli, const char *key, Error *err) {
        return argv_config_key(cli, "exists", key, err);
}

char **ceph_argv_config_key_set(const CephCli *cli, const char *key, Error *err) {
        if (!key_is_valid(key)) {
                error_set(err, EINVAL, "config-key set: invalid key '%s'", strnull(key));
                return NULL;
        }
        return argv_build(cli, err, "-i", "-", "config-key", "set", key, NULL);
}

char **ceph_argv_config_key_ls(const CephCli *cli, Error *err) {
        return argv_build(cli, err, "config-key", "ls", NULL);
}

/* an auth entity: TYPE.ID, e.g. "client.cephprov-lock.lab" */
static bool entity_is_valid(const char *s) {
        return ceph_name_is_valid(s) && strchr(s, '.') && s[strlen(s) - 1] != '.';
}

char **ceph_argv_auth_add(const CephCli *cli, const char *entity, Error *err) {
        if (!entity_is_valid(entity)) {
                error_set(err, EINVAL, "auth add: invalid entity '%s'", strnull(entity));
                return NULL;
        }
        return argv_build(cli, err, "-i", "-", "auth", "add", entity, NULL);
}

char **ceph_argv_auth_get(const CephCli *cli, const char *entity, Error *err) {
        if (!entity_is_valid(entity)) {
                error_set(err, EINVAL, "auth get: invalid entity '%s'", strnull(entity));
                return NULL;
        }
        return argv_build(cli, err, "auth", "get", entity, "-f", "json", NULL);
}

char **ceph_argv_report(const CephCli *cli, Error *err) {
        return argv_build(cli, err, "report", "-f", "json", NULL);
}

char **ceph_argv_auth_rm(const CephCli *cli, const char *entity, Error *err) {
        if (!entity_is_valid(entity)) {
                error_set(err, EINVAL, "auth rm: invalid entity '%s'", strnull(entity));
                return NULL;
        }
        return argv_build(cli, err, "auth", "rm", entity, NULL);
}

char **ceph_argv_systemctl_osd(const char *verb, int id, Error *err) {
        static const char *const verbs[] = { "start", "stop", "restart", "enable", "disable", "is-active" };
        bool ok = false;
        for (size_t i = 0; verb && i < ELEMENTSOF(verbs); i++)
                ok = ok || strcmp(verbs[i], verb) == 0;
        if (!ok) {
                error_set(err, EINVAL, "systemctl: unsupported verb '%s'", strnull(verb));
                return NULL;
        }
        if (id < 0) {
                error_set(err, EINVAL, "systemctl %s: invalid osd id %d", verb, id);
                return NULL;
        }
        _cleanup_strv_free_ char **a = NULL;
        if (strv_extend(&a, "systemctl") < 0 || strv_extend(&a, verb) < 0 ||
            strv_consume(&a, strprintf("ceph-osd@%d", id)) < 0) {
                error_set(err, ENOMEM, "out of memory");
                return NULL;
        }
        return TAKE_PTR(a);
}
