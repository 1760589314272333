/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The commands cephprov sends a cluster, as librados takes them (ceph.h "Commands"): the
 * words of an argv builder matched against one table of signatures — Ceph's own, from
 * MonCommands.h, MgrCommands.h and the mgr modules, for the commands cephprov speaks —
 * into the JSON command the `ceph` CLI would have sent, and the daemon it goes to. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph-internal.h"
#include "ceph.h"

/* A signature: the words that name the command (matched longest first), the JSON prefix
 * when it differs from the words, where it goes, and its arguments in the CLI's order, each
 * "name:TYPE" (s string, i integer, f float, o an OSD name "osd.N" or "N" sent as N, s* the
 * remaining words as a list of strings; a trailing '?' makes it optional) or "name=VALUE"
 * (a constant the words imply: `health detail` is {"prefix":"health","detail":"detail"}).
 * `--yes-i-really-mean-it` anywhere is {"yes_i_really_mean_it": true}; "-f json" is
 * {"format":"json"}. */
typedef struct Signature {
        const char *words;
        const char *prefix;
        CephTarget target;
        const char *args;
} Signature;

static const Signature signatures[] = {
        /* the monitors */
        { "status", NULL, CEPH_TARGET_MON, "" },
        { "health detail", "health", CEPH_TARGET_MON, "detail=detail" },
        { "versions", NULL, CEPH_TARGET_MON, "" },
        { "report", NULL, CEPH_TARGET_MON, "" },
        { "osd tree", NULL, CEPH_TARGET_MON, "" },
        { "osd dump", NULL, CEPH_TARGET_MON, "" },
        { "osd metadata", NULL, CEPH_TARGET_MON, "id:o?" },
        { "osd new", NULL, CEPH_TARGET_MON, "uuid:s id:o?" },
        { "osd out", NULL, CEPH_TARGET_MON, "ids:s*" },
        { "osd in", NULL, CEPH_TARGET_MON, "ids:s*" },
        { "osd down", NULL, CEPH_TARGET_MON, "ids:s*" },
        { "osd set", NULL, CEPH_TARGET_MON, "key:s" },
        { "osd unset", NULL, CEPH_TARGET_MON, "key:s" },
        { "osd set-group", NULL, CEPH_TARGET_MON, "flags:s who:s*" },
        { "osd unset-group", NULL, CEPH_TARGET_MON, "flags:s who:s*" },
        { "osd crush remove", NULL, CEPH_TARGET_MON, "name:s" },
        { "osd crush rm", NULL, CEPH_TARGET_MON, "name:s" },
        { "osd crush rm-device-class", NULL, CEPH_TARGET_MON, "ids:s*" },
        { "osd crush set-device-class", NULL, CEPH_TARGET_MON, "class:s ids:s*" },
        { "osd crush reweight", NULL, CEPH_TARGET_MON, "name:s weight:f" },
        { "osd crush create-or-move", NULL, CEPH_TARGET_MON, "id:o weight:f args:s*" },
        { "osd crush rule dump", NULL, CEPH_TARGET_MON, "" },
        { "osd erasure-code-profile get", NULL, CEPH_TARGET_MON, "name:s" },
        { "osd pool ls detail", "osd pool ls", CEPH_TARGET_MON, "detail=detail" },
        { "osd pool get", NULL, CEPH_TARGET_MON, "pool:s var:s" },
        { "osd pool set", NULL, CEPH_TARGET_MON, "pool:s var:s val:s" },
        { "osd pool create", NULL, CEPH_TARGET_MON, "pool:s pg_num:i pgp_num:i" },
        { "osd pool application enable", NULL, CEPH_TARGET_MON, "pool:s app:s" },
        { "config get", NULL, CEPH_TARGET_MON, "who:s key:s" },
        { "config set", NULL, CEPH_TARGET_MON, "who:s name:s value:s" },
        { "config rm", NULL, CEPH_TARGET_MON, "who:s name:s" },
        { "config dump", NULL, CEPH_TARGET_MON, "" },
        { "config-key get", NULL, CEPH_TARGET_MON, "key:s" },
        { "config-key set", NULL, CEPH_TARGET_MON, "key:s" }, /* the value as input (-i -) */
        { "config-key rm", NULL, CEPH_TARGET_MON, "key:s" },
        { "config-key exists", NULL, CEPH_TARGET_MON, "key:s" },
        { "config-key ls", NULL, CEPH_TARGET_MON, "" },
        { "auth add", NULL, CEPH_TARGET_MON, "entity:s" }, /* the keyring as input (-i -) */
        { "auth get", NULL, CEPH_TARGET_MON, "entity:s" },
        { "auth rm", NULL, CEPH_TARGET_MON, "entity:s" },
        /* the manager (MgrCommands.h) and its modules (balancer, pg_autoscaler) */
        { "pg stat", NULL, CEPH_TARGET_MGR, "" },
        { "pg dump", NULL, CEPH_TARGET_MGR, "dumpcontents:s*" },
        { "osd ok-to-stop", NULL, CEPH_TARGET_MGR, "ids:s*" },
        { "osd safe-to-destroy", NULL, CEPH_TARGET_MGR, "ids:s*" },
        /* the manager asks safe-to-destroy itself, then the monitors' destroy-actual */
        { "osd destroy", NULL, CEPH_TARGET_MGR, "id:o" },
        { "osd purge", NULL, CEPH_TARGET_MGR, "id:o" },
        { "osd df tree", "osd df", CEPH_TARGET_MGR, "output_method=tree" },
        { "osd perf", NULL, CEPH_TARGET_MGR, "" },
        { "config show", NULL, CEPH_TARGET_MGR, "who:s key:s?" },
        { "balancer status", NULL, CEPH_TARGET_MGR, "" },
        { "balancer on", NULL, CEPH_TARGET_MGR, "" },
        { "balancer off", NULL, CEPH_TARGET_MGR, "" },
        { "balancer mode", NULL, CEPH_TARGET_MGR, "mode:s" },
        { "osd pool get noautoscale", NULL, CEPH_TARGET_MGR, "" },
        { "osd pool set noautoscale", NULL, CEPH_TARGET_MGR, "" },
        { "osd pool unset noautoscale", NULL, CEPH_TARGET_MGR, "" },
        /* an OSD (`ceph tell osd.N ...`) */
        { "bench", NULL, CEPH_TARGET_OSD, "count:i size:i" },
};

void ceph_command_done(CephCommand *c) {
        json_object_put(c->cmd);
        free(c->words);
        *c = (CephCommand) { .osd = -1 };
}

/* How many of `words` (space-separated) argv starts with; 0 when not all of them. */
static size_t match(const char *words, char *const *argv, size_t n) {
        size_t k = 0;
        for (const char *p = words; *p; k++) {
                size_t len = strcspn(p, " ");
                if (k >= n || strlen(argv[k]) != len || strncmp(argv[k], p, len) != 0)
                        return 0;
                p += len;
                p += strspn(p, " ");
        }
        return k;
}

static int osd_id(const char *s, int64_t *ret) {
        if (startswith(s, "osd."))
                s += 4;
        char *end = NULL;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno || end == s || *end || v < 0 || v > INT32_MAX)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int add_arg(json_object *cmd, const char *name, size_t name_len, char type, const char *word, const char *what,
                   Error *err) {
        _cleanup_(freep) char *key = strndup(name, name_len);
        if (!key)
                return error_set(err, ENOMEM, "out of memory");
        json_object *v = NULL;
        char *end = NULL;
        switch (type) {
        case 's':
                v = json_object_new_string(word);
                break;
        case 'i': {
                errno = 0;
                long long n = strtoll(word, &end, 10);
                if (errno || end == word || *end)
                        return error_set(err, EINVAL, "ceph %s: %s '%s' is not an integer", what, key, word);
                v = json_object_new_int64(n);
                break;
        }
        case 'f': {
                errno = 0;
                double d = strtod(word, &end);
                if (errno || end == word || *end || !isfinite(d))
                        return error_set(err, EINVAL, "ceph %s: %s '%s' is not a number", what, key, word);
                v = json_object_new_double_s(d, word); /* sent as the builder wrote it */
                break;
        }
        case 'o': {
                int64_t id;
                if (osd_id(word, &id) < 0)
                        return error_set(err, EINVAL, "ceph %s: %s '%s' is not an OSD", what, key, word);
                v = json_object_new_int64(id);
                break;
        }
        default:
                return error_set(err, EINVAL, "ceph %s: bad signature type '%c'", what, type);
        }
        if (!v || json_object_object_add(cmd, key, v) < 0) {
                json_object_put(v);
                return error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

/* The arguments of `sig` from `argv` (the words after the signature's own), into `cmd`. */
static int add_args(const Signature *sig, char *const *argv, size_t n, json_object *cmd, const char *what,
                    Error *err) {
        size_t i = 0;
        int r;
        for (const char *p = sig->args; *p;) {
                size_t len = strcspn(p, " ");
                const char *colon = memchr(p, ':', len), *eq = memchr(p, '=', len);
                if (eq) {
                        _cleanup_(freep) char *key = strndup(p, (size_t) (eq - p)),
                                             *val = strndup(eq + 1, len - (size_t) (eq - p) - 1);
                        if (!key || !val || json_add_string(cmd, key, val) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                } else if (colon) {
                        size_t name_len = (size_t) (colon - p);
                        char type = colon[1];
                        bool rest = colon + 2 < p + len && colon[2] == '*';
                        bool optional = p[len - 1] == '?';
                        if (rest) {
                                if (i >= n && !optional)
                                        return error_set(err, EINVAL, "ceph %s: no %.*s given", what, (int) name_len, p);
                                _cleanup_json_ json_object *list = json_object_new_array();
                                if (!list)
                                        return error_set(err, ENOMEM, "out of memory");
                                for (; i < n; i++)
                                        if (json_object_array_add(list, json_object_new_string(argv[i])) < 0)
                                                return error_set(err, ENOMEM, "out of memory");
                                _cleanup_(freep) char *key = strndup(p, name_len);
                                if (!key || json_object_object_add(cmd, key, json_object_get(list)) < 0)
                                        return error_set(err, ENOMEM, "out of memory");
                        } else if (i < n) {
                                if ((r = add_arg(cmd, p, name_len, type, argv[i++], what, err)) < 0)
                                        return r;
                        } else if (!optional)
                                return error_set(err, EINVAL, "ceph %s: no %.*s given", what, (int) name_len, p);
                } else
                        return error_set(err, EINVAL, "ceph %s: bad signature '%.*s'", what, (int) len, p);
                p += len;
                p += strspn(p, " ");
        }
        if (i < n)
                return error_set(err, EINVAL, "ceph %s: '%s' is more than the command takes", what, argv[i]);
        return 0;
}

int ceph_command_from_argv(char *const *argv, size_t n_prefix, CephCommand *ret, Error *err) {
        _cleanup_(ceph_command_done) CephCommand c = { .osd = -1 };
        size_t n = strv_length((char **) argv);
        if (n_prefix > n)
                return error_set(err, EINVAL, "ceph command: shorter than its connection options");
        /* the words an operator would type: no connection options */
        if (!(c.words = strv_join((char **) argv + n_prefix, " ")))
                return error_set(err, ENOMEM, "out of memory");

        _cleanup_strv_free_ char **w = NULL; /* the words without the options of the CLI itself */
        bool json = false, sure = false;
        for (size_t i = n_prefix; i < n; i++) {
                if (streq(argv[i], "-i") && i + 1 < n && streq(argv[i + 1], "-")) {
                        c.input = true;
                        i++;
                } else if (streq(argv[i], "-f") && i + 1 < n) {
                        if (!streq(argv[i + 1], "json"))
                                return error_set(err, EINVAL, "ceph %s: output format '%s' (json only)", c.words,
                                                 argv[i + 1]);
                        json = true;
                        i++;
                } else if (streq(argv[i], "--yes-i-really-mean-it"))
                        sure = true;
                else if (argv[i][0] == '-' && argv[i][1] == '-')
                        return error_set(err, EINVAL, "ceph %s: option '%s' has no place in a command", c.words, argv[i]);
                else if (strv_extend(&w, argv[i]) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        size_t nw = strv_length(w), skip = 0;
        CephTarget want = CEPH_TARGET_MON;
        if (nw >= 2 && streq(w[0], "tell")) {
                int64_t id;
                if (!startswith(w[1], "osd.") || osd_id(w[1], &id) < 0)
                        return error_set(err, EINVAL, "ceph %s: tell goes to an OSD here (osd.N), not '%s'", c.words,
                                         w[1]);
                c.osd = (int) id;
                want = CEPH_TARGET_OSD;
                skip = 2;
        }

        const Signature *best = NULL;
        size_t best_len = 0;
        for (size_t i = 0; i < ELEMENTSOF(signatures); i++) {
                if ((signatures[i].target == CEPH_TARGET_OSD) != (want == CEPH_TARGET_OSD))
                        continue;
                size_t k = match(signatures[i].words, w + skip, nw - skip);
                if (k > best_len) {
                        best = &signatures[i];
                        best_len = k;
                }
        }
        if (!best)
                return error_set(err, EINVAL, "ceph %s: not a command cephprov knows the signature of", c.words);

        if (!(c.cmd = json_object_new_object()) ||
            json_add_string(c.cmd, "prefix", best->prefix ? best->prefix : best->words) < 0)
                return error_set(err, ENOMEM, "out of memory");
        int r = add_args(best, w + skip + best_len, nw - skip - best_len, c.cmd, c.words, err);
        if (r < 0)
                return r;
        if ((sure && json_add_bool(c.cmd, "yes_i_really_mean_it", true) < 0) ||
            (json && json_add_string(c.cmd, "format", "json") < 0))
                return error_set(err, ENOMEM, "out of memory");
        c.target = best->target;
        *ret = c;
        c = (CephCommand) { .osd = -1 };
        return 0;
}

const char *ceph_target_name(CephTarget t) {
        switch (t) {
        case CEPH_TARGET_MON:
                return "mon";
        case CEPH_TARGET_MGR:
                return "mgr";
        case CEPH_TARGET_OSD:
                return "osd";
        }
        return "?";
}

char *ceph_answer_stderr(int rc, const char *status) {
        /* the CLI: "Error ENOENT: <status>" on a failure, the status alone otherwise */
        if (rc < 0)
                return strprintf("Error %s: %s\n", errno_name(-rc), status ? status : "");
        return status && *status ? strprintf("%s\n", status) : strdup("");
}

/* One JSON value as the CLI word(s) it came from. */
static int value_words(char ***w, const char *key, json_object *v) {
        char buf[64];
        switch (json_object_get_type(v)) {
        case json_type_boolean: {
                if (!json_object_get_boolean(v))
                        return 0;
                _cleanup_(freep) char *flag = strprintf("--%s", key);
                if (!flag)
                        return -ENOMEM;
                for (char *p = flag; *p; p++)
                        if (*p == '_')
                                *p = '-';
                return strv_extend(w, flag);
        }
        case json_type_int:
                snprintf(buf, sizeof buf, "%" PRId64, json_object_get_int64(v));
                return strv_extend(w, buf);
        case json_type_double: /* as it was written (json_object_new_double_s) */
                return strv_extend(w, json_object_get_string(v));
        case json_type_string:
                return strv_extend(w, json_object_get_string(v));
        case json_type_array:
                for (size_t i = 0; i < json_object_array_length(v); i++) {
                        int r = value_words(w, key, json_object_array_get_idx(v, i));
                        if (r < 0)
                                return r;
                }
                return 0;
        default:
                return -EINVAL;
        }
}

char **ceph_command_to_words(const CephCommand *c) {
        _cleanup_strv_free_ char **w = NULL;
        const char *prefix = json_object_get_string(json_object_object_get(c->cmd, "prefix"));
        if (!prefix)
                return NULL;
        if (c->input && (strv_extend(&w, "-i") < 0 || strv_extend(&w, "-") < 0))
                return NULL;
        if (c->target == CEPH_TARGET_OSD &&
            (strv_extend(&w, "tell") < 0 || strv_consume(&w, strprintf("osd.%d", c->osd)) < 0))
                return NULL;
        _cleanup_strv_free_ char **p = strv_split(prefix, " ");
        STRV_FOREACH(x, p)
                if (strv_extend(&w, *x) < 0)
                        return NULL;
        bool json = false;
        json_object_object_foreach(c->cmd, key, v) {
                if (streq(key, "prefix"))
                        continue;
                if (streq(key, "format")) {
                        json = true;
                        continue;
                }
                if (value_words(&w, key, v) < 0)
                        return NULL;
        }
        if (json && (strv_extend(&w, "-f") < 0 || strv_extend(&w, "json") < 0))
                return NULL;
        if (!w && !(w = calloc(1, sizeof(char *))))
                return NULL;
        return TAKE_PTR(w);
}
