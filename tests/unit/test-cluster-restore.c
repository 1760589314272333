/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The record and restore rules of the cluster steps (issue 26 item 4) through the real
 * cluster client: cluster_steps_call() → CephAdmin → the admin host's agent "run" op. The
 * agent is a FAKE in-process dispatcher (the local transport's hook) that keeps a small
 * cluster's state — config-key store, config database, OSD map flags and crush_node_flags,
 * balancer, pools' autoscale modes — and answers the `ceph` argv cephprov sends with the
 * formats of the captures in tests/data/ceph (osd dump from osd-dump.json). An operator's
 * change is made on that state directly, between the steps, as `ceph` on another terminal
 * would. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "controller/ceph-admin.h"
#include "controller/cluster-steps.h"
#include "layout/layout.h"
#include "fake-host.h"
#include "fixture.h"
#include "test.h"

static struct {
        json_object *keys;    /* config-key store */
        json_object *config;  /* "SECTION KEY" -> value */
        char **flags;         /* cluster flags */
        json_object *nodes;   /* host -> [flags] */
        bool balancer;
        json_object *pools;   /* name -> mode */
        char *osd_dump;       /* osd-dump.json */
        char **unknown;       /* commands the fake does not know */
} C;

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char * const *) a, *(char * const *) b);
}

static void strv_drop(char **l, const char *s) {
        size_t k = 0;
        for (size_t i = 0; l && l[i]; i++) {
                if (streq(l[i], s))
                        free(l[i]);
                else
                        l[k++] = l[i];
        }
        if (l)
                l[k] = NULL;
}

/* a capture of tests/data/ceph, or NULL (the fake cluster then has none) */
static char *slurp(const char *name) {
        _cleanup_(freep) char *path = fixture_ceph_path(name);
        return path ? fixture_read(path, NULL) : NULL;
}

static void cluster_reset(void) {
        json_object_put(C.keys);
        json_object_put(C.config);
        json_object_put(C.nodes);
        json_object_put(C.pools);
        strv_free(C.flags);
        strv_free(C.unknown);
        free(C.osd_dump);
        memset(&C, 0, sizeof C);
        C.keys = json_object_new_object();
        C.config = json_object_new_object();
        C.nodes = json_object_new_object();
        C.pools = json_object_new_object();
        C.flags = strv_split("sortbitwise,recovery_deletes,purged_snapdirs,pglog_hardlimit", ",");
        C.osd_dump = slurp("osd-dump.json");
        json_add_string(C.pools, "data", "on");
        json_add_string(C.pools, "rbd", "warn");
}

/* what an operator does meanwhile */
static void config_set(const char *who, const char *key, const char *value) {
        _cleanup_(freep) char *k = strprintf("%s %s", who, key);
        if (value)
                json_add_string(C.config, k, value);
        else
                json_object_object_del(C.config, k);
}

static const char *config_get(const char *who, const char *key) {
        _cleanup_(freep) char *k = strprintf("%s %s", who, key);
        return json_object_get_string(json_object_object_get(C.config, k));
}

static bool node_flag(const char *host, const char *flag) {
        json_object *l = json_object_object_get(C.nodes, host);
        for (size_t i = 0; l && i < json_object_array_length(l); i++)
                if (streq(json_object_get_string(json_object_array_get_idx(l, i)), flag))
                        return true;
        return false;
}

static void node_flag_set(const char *host, const char *flag, bool on) {
        json_object *l = json_object_object_get(C.nodes, host), *n = json_object_new_array();
        for (size_t i = 0; l && i < json_object_array_length(l); i++) {
                const char *f = json_object_get_string(json_object_array_get_idx(l, i));
                if (!streq(f, flag))
                        json_object_array_add(n, json_object_new_string(f));
        }
        if (on)
                json_object_array_add(n, json_object_new_string(flag));
        if (json_object_array_length(n) == 0) {
                json_object_put(n);
                json_object_object_del(C.nodes, host);
        } else
                json_object_object_add(C.nodes, host, n);
}

static char *osd_dump_now(void) {
        _cleanup_json_ json_object *o = json_tokener_parse(C.osd_dump);
        _cleanup_(freep) char *flags = strv_join(C.flags, ",");
        json_add_string(o, "flags", flags);
        json_add(o, "crush_node_flags", json_object_get(C.nodes));
        return strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
}

/* Answers one `ceph` command: exit status, stdout */
static int ceph(char **w, const char *in, char **out) {
        size_t n = strv_length(w);
#define IS(i, s) (n > (i) && streq(w[i], s))
        *out = NULL;
        if (IS(0, "versions")) {
                *out = slurp("versions.json");
                return 0;
        }
        if (IS(0, "config-key") && n == 3 && IS(1, "get")) {
                json_object *v = json_object_object_get(C.keys, w[2]);
                if (!v)
                        return ENOENT;
                *out = strdup(json_object_get_string(v));
                return 0;
        }
        if (IS(0, "config-key") && n == 3 && IS(1, "set")) {
                json_add_string(C.keys, w[2], in ? in : "");
                return 0;
        }
        if (IS(0, "config-key") && n == 3 && IS(1, "rm")) {
                json_object_object_del(C.keys, w[2]);
                return 0;
        }
        if (IS(0, "config-key") && IS(1, "ls")) {
                _cleanup_strv_free_ char **l = NULL;
                json_object_object_foreach(C.keys, k, v) {
                        (void) v;
                        strv_extend(&l, k);
                }
                if (l)
                        qsort(l, strv_length(l), sizeof(char *), cmp_str);
                _cleanup_json_ json_object *a = json_array_new_strv(l ? l : (char *[]) { NULL });
                *out = strdup(json_object_to_json_string(a));
                return 0;
        }
        if (IS(0, "config") && IS(1, "dump")) {
                _cleanup_json_ json_object *a = json_object_new_array();
                json_object_object_foreach(C.config, k, v) {
                        const char *sp = strchr(k, ' ');
                        json_object *e = json_object_new_object();
                        _cleanup_(freep) char *section = strndup(k, (size_t) (sp - k));
                        json_add_string(e, "section", section);
                        json_add_string(e, "name", sp + 1);
                        json_add_string(e, "value", json_object_get_string(v));
                        json_add_string(e, "level", "advanced");
                        json_add_bool(e, "can_update_at_runtime", true);
                        json_add_string(e, "mask", "");
                        json_object_array_add(a, e);
                }
                *out = strdup(json_object_to_json_string(a));
                return 0;
        }
        if (IS(0, "config") && IS(1, "get") && n == 4) {
                const char *v = config_get(w[2], w[3]);
                if (!v && streq(w[3], "osd_op_queue"))
                        v = "wpq";
                *out = strprintf("\"%s\"", v ? v : "");
                return 0;
        }
        if (IS(0, "config") && IS(1, "set") && n == 5) {
                config_set(w[2], w[3], w[4]);
                return 0;
        }
        if (IS(0, "config") && IS(1, "rm") && n == 4) {
                config_set(w[2], w[3], NULL);
                return 0;
        }
        if (IS(0, "config") && IS(1, "show"))
                return ENOENT; /* no daemon to ask: throttle_overrides leaves it out */
        if (IS(0, "osd") && IS(1, "dump")) {
                *out = osd_dump_now();
                return 0;
        }
        if (IS(0, "osd") && (IS(1, "set") || IS(1, "unset")) && n == 3) {
                if (IS(1, "set") && !strv_contains(C.flags, w[2]))
                        strv_extend(&C.flags, w[2]);
                if (IS(1, "unset"))
                        strv_drop(C.flags, w[2]);
                return 0;
        }
        if (IS(0, "osd") && (IS(1, "set-group") || IS(1, "unset-group")) && n >= 4) {
                _cleanup_strv_free_ char **fl = strv_split(w[2], ",");
                for (size_t i = 3; i < n; i++)
                        for (char **f = fl; f && *f; f++)
                                node_flag_set(w[i], *f, IS(1, "set-group"));
                return 0;
        }
        if (IS(0, "balancer") && IS(1, "status")) {
                *out = strprintf("{\"active\":%s,\"mode\":\"upmap\",\"plans\":[],\"last_optimize_duration\":\"\","
                                 "\"last_optimize_started\":\"\",\"optimize_result\":\"\"}",
                                 C.balancer ? "true" : "false");
                return 0;
        }
        if (IS(0, "balancer") && (IS(1, "on") || IS(1, "off"))) {
                C.balancer = IS(1, "on");
                return 0;
        }
        if (IS(0, "osd") && IS(1, "pool") && IS(2, "ls")) {
                _cleanup_json_ json_object *a = json_object_new_array();
                int id = 1;
                json_object_object_foreach(C.pools, name, mode) {
                        json_object *p = json_object_new_object();
                        json_add_int(p, "pool_id", id++);
                        json_add_string(p, "pool_name", name);
                        json_add_int(p, "type", 1);
                        json_add_int(p, "size", 2);
                        json_add_int(p, "min_size", 1);
                        json_add_int(p, "crush_rule", 0);
                        json_add_int(p, "pg_num", 32);
                        json_add_string(p, "pg_autoscale_mode", json_object_get_string(mode));
                        json_object_array_add(a, p);
                }
                *out = strdup(json_object_to_json_string(a));
                return 0;
        }
        if (IS(0, "osd") && IS(1, "pool") && IS(2, "set") && n == 6 && IS(4, "pg_autoscale_mode")) {
                json_add_string(C.pools, w[3], w[5]);
                return 0;
        }
#undef IS
        _cleanup_(freep) char *all = strv_join(w, " ");
        strv_extend(&C.unknown, all);
        return EINVAL;
}

/* the answer to a "run" of the CLI's argv (ceph-as-run.h hands it each "ceph-command") */
static json_object *run_answer(json_object *args, void *userdata, int *ret_errno, char **ret_error) {
        json_object *result = json_object_new_object();
        /* the command's words: without the CLI's prefix options, `-i -` and `-f json` */
        json_object *argv = json_object_object_get(args, "argv");
        _cleanup_strv_free_ char **w = NULL;
        for (size_t i = 1; i < json_object_array_length(argv); i++) {
                const char *a = json_object_get_string(json_object_array_get_idx(argv, i));
                if (a[0] == '-' && (streq(a, "-i") || streq(a, "-f") || startswith(a, "--"))) {
                        i++;
                        continue;
                }
                strv_extend(&w, a);
        }
        const char *in = json_object_get_string(json_object_object_get(args, "stdin"));
        _cleanup_(freep) char *out = NULL;
        int code = ceph(w ? w : (char *[]) { NULL }, in, &out);
        json_add_int(result, "exit", code);
        json_add_string(result, "stdout", out ? out : "");
        /* as ceph says it (tests/data/ceph/config-key-get-missing.err): only this is "absent" */
        _cleanup_(freep) char *er = code == ENOENT ? strprintf("Error ENOENT: error obtaining '%s': (2) No "
                                                               "such file or directory\n",
                                                               w && strv_length(w) > 2 ? w[2] : "?")
                                  : strdup(code ? "Error EINVAL: not known to the fake cluster\n" : "");
        json_add_string(result, "stderr", er);
        return result;
}

static Layout *L;
static CephAdmin *A;

/* runs step `name` with `args` (JSON text) as run `run`: its result, NULL on error (*e) */
static json_object *step(const char *run, const char *name, const char *args, Error *e) {
        ClusterSteps cs = {};
        Error err = {};
        if (cluster_steps_init(&cs, A, L, &err) < 0) {
                fprintf(stderr, "  init: %s\n", err.message);
                return NULL;
        }
        cs.run_id = run;
        cs.poll_ms = 1;
        _cleanup_json_ json_object *a = json_tokener_parse(args ? args : "{}");
        json_object *res = NULL;
        int r = cluster_steps_call(&cs, name, a, NULL, &res, e ? e : &err);
        cluster_steps_done(&cs);
        if (r < 0 && !e)
                fprintf(stderr, "  %s: %s\n", name, err.message);
        return r < 0 ? NULL : res;
}

static size_t n_left(json_object *res) {
        json_object *l = res ? json_object_object_get(res, "left") : NULL;
        return l ? json_object_array_length(l) : 0;
}

static bool has_key(const char *name) {
        _cleanup_(freep) char *k = strprintf("cephprov/unit/%s", name);
        return json_object_object_get(C.keys, k) != NULL;
}

/* throttle then restore; meanwhile the operator sets osd_max_backfills 2: it stays, and is
 * named; the keys still cephprov's go back */
static void test_throttle_operator(void) {
        cluster_reset();
        config_set("osd", "osd_max_backfills", "3");
        _cleanup_json_ json_object *t = step("run-1", "throttle", "{\"preset\":\"slow\"}", NULL);
        CHECK(t != NULL);
        CHECK_STREQ(config_get("osd", "osd_max_backfills"), "1");
        CHECK(has_key("saved/throttle"));
        /* the record: value before, what cephprov wrote, run, time */
        _cleanup_json_ json_object *rec = json_tokener_parse(
                json_object_get_string(json_object_object_get(C.keys, "cephprov/unit/saved/throttle")));
        CHECK_STREQ(json_object_get_string(json_object_object_get(rec, "run")), "run-1");
        CHECK(json_object_get_int64(json_object_object_get(rec, "since")) > 0);
        CHECK(strstr(json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN), "\"wrote\":[\"1\"]") != NULL);

        config_set("osd", "osd_max_backfills", "2"); /* the operator */
        _cleanup_json_ json_object *r = step("run-1", "restore-throttle", NULL, NULL);
        CHECK(r != NULL);
        CHECK_STREQ(config_get("osd", "osd_max_backfills"), "2");
        CHECK(config_get("osd", "osd_recovery_max_active") == NULL);
        CHECK(config_get("osd", "osd_recovery_max_single_start") == NULL);
        CHECK_INTEQ((int) n_left(r), 1);
        json_object *l0 = r ? json_object_array_get_idx(json_object_object_get(r, "left"), 0) : NULL;
        CHECK_STREQ(json_object_get_string(json_object_object_get(l0, "key")), "osd_max_backfills");
        CHECK_STREQ(json_object_get_string(json_object_object_get(l0, "value")), "2");
        CHECK(!has_key("saved/throttle"));

        /* without a change meanwhile, the value before comes back */
        json_object_put(step("run-2", "throttle", "{\"preset\":\"fast\"}", NULL));
        CHECK_STREQ(config_get("osd", "osd_max_backfills"), "4");
        json_object *r2 = step("run-2", "restore-throttle", NULL, NULL);
        CHECK_STREQ(config_get("osd", "osd_max_backfills"), "2");
        CHECK_INTEQ((int) n_left(r2), 0);
        json_object_put(r2);
}

/* a record an earlier run left is taken over key by key, not kept blindly */
static void test_throttle_stale_record(void) {
        cluster_reset();
        /* run "old" (killed long ago): osd_max_backfills was 3, it wrote 1 */
        json_add_string(C.keys, "cephprov/unit/saved/throttle",
                        "{\"preset\":\"slow\",\"scheduler\":\"wpq\",\"run\":\"old\",\"since\":1000,\"restore\":["
                        "{\"who\":\"osd\",\"key\":\"osd_max_backfills\",\"value\":\"3\",\"wrote\":[\"1\"]}]}");
        /* the operator set 5 since */
        config_set("osd", "osd_max_backfills", "5");
        json_object_put(step("new", "throttle", "{\"preset\":\"slow\"}", NULL));
        CHECK_STREQ(config_get("osd", "osd_max_backfills"), "1");
        json_object *r = step("new", "restore-throttle", NULL, NULL);
        CHECK_STREQ(config_get("osd", "osd_max_backfills"), "5"); /* not the old run's 3 */
        json_object_put(r);

        /* the same, but the key still holds what the old run wrote: 3 was there before it */
        cluster_reset();
        json_add_string(C.keys, "cephprov/unit/saved/throttle",
                        "{\"preset\":\"slow\",\"scheduler\":\"wpq\",\"restore\":["
                        "{\"who\":\"osd\",\"key\":\"osd_max_backfills\",\"value\":\"3\"}]}"); /* an older format */
        config_set("osd", "osd_max_backfills", "1");
        json_object *t = step("new", "throttle", "{\"preset\":\"fast\"}", NULL);
        CHECK(t && json_object_object_get(t, "took_over"));
        json_object_put(t);
        json_object_put(step("new", "restore-throttle", NULL, NULL));
        CHECK_STREQ(config_get("osd", "osd_max_backfills"), "3");

        /* this run's own record is kept (a step run twice in one run) */
        cluster_reset();
        config_set("osd", "osd_max_backfills", "3");
        json_object_put(step("one", "throttle", "{\"preset\":\"slow\"}", NULL));
        json_object_put(step("one", "throttle", "{\"preset\":\"slow\"}", NULL));
        json_object_put(step("one", "restore-throttle", NULL, NULL));
        CHECK_STREQ(config_get("osd", "osd_max_backfills"), "3");
}

/* host-scoped flags: the operator's own noout stays; cephprov's goes, in `after` too */
static void test_host_flags(void) {
        cluster_reset();
        node_flag_set("node1", "noout", true); /* the operator's, before the run */
        json_object *s = step("r", "set-flag", "{\"flag\":\"noout\",\"scope\":\"host\",\"host\":\"node1\"}", NULL);
        CHECK(s && json_object_get_boolean(json_object_object_get(s, "was_set")));
        json_object_put(s);
        json_object *u = step("r", "unset-flag", "{\"flag\":\"noout\",\"scope\":\"host\",\"host\":\"node1\"}", NULL);
        CHECK(node_flag("node1", "noout"));
        CHECK_INTEQ((int) n_left(u), 1);
        CHECK(!has_key("saved/flag-noout-node1"));
        json_object_put(u);

        /* set by cephprov on node2 and node3 (a run that failed before its unset-flag); node1's
         * is the operator's: `after`'s unset-flag without a host unsets node2's and node3's */
        json_object_put(step("failed", "set-flag", "{\"flag\":\"noout\",\"scope\":\"host\",\"host\":\"node2\"}", NULL));
        json_object_put(step("failed", "set-flag", "{\"flag\":\"noout\",\"scope\":\"host\",\"host\":\"node3\"}", NULL));
        CHECK(node_flag("node2", "noout") && node_flag("node3", "noout"));
        CHECK(has_key("saved/flag-noout-node2"));
        json_object *a = step("next", "unset-flag", "{\"flag\":\"noout\",\"scope\":\"host\"}", NULL);
        CHECK(a != NULL);
        CHECK(!node_flag("node2", "noout") && !node_flag("node3", "noout"));
        CHECK(node_flag("node1", "noout"));
        CHECK(!has_key("saved/flag-noout-node2") && !has_key("saved/flag-noout-node3"));
        CHECK(!strv_contains(C.flags, "noout")); /* never the cluster-wide flag */
        json_object_put(a);

        /* a record of an earlier run whose flag someone removed since: replaced; a new
         * operator's flag set later is not removed by this run's unset */
        json_add_string(C.keys, "cephprov/unit/saved/flag-noout-node2", "{\"was_set\":true,\"run\":\"old\",\"since\":5}");
        json_object_put(step("r2", "set-flag", "{\"flag\":\"noout\",\"scope\":\"host\",\"host\":\"node2\"}", NULL));
        json_object_put(step("r2", "unset-flag", "{\"flag\":\"noout\",\"scope\":\"host\",\"host\":\"node2\"}", NULL));
        CHECK(!node_flag("node2", "noout"));

        /* cluster scope: as before, the operator's own flag stays */
        strv_extend(&C.flags, "noout");
        json_object_put(step("r3", "set-flag", "{\"flag\":\"noout\"}", NULL));
        json_object_put(step("r3", "unset-flag", "{\"flag\":\"noout\"}", NULL));
        CHECK(strv_contains(C.flags, "noout"));
}

static void test_balancer_autoscaler(void) {
        cluster_reset();
        /* off before; the operator turns it on meanwhile: it stays on, named */
        C.balancer = false;
        json_object_put(step("r", "pause-balancer", NULL, NULL));
        C.balancer = true;
        json_object *r = step("r", "restore-balancer", NULL, NULL);
        CHECK(r != NULL);
        CHECK(C.balancer);
        CHECK_INTEQ((int) n_left(r), 1);
        CHECK(!has_key("saved/balancer"));
        json_object_put(r);
        /* on before: back on */
        json_object_put(step("r", "pause-balancer", NULL, NULL));
        CHECK(!C.balancer);
        json_object_put(step("r", "restore-balancer", NULL, NULL));
        CHECK(C.balancer);
        /* a stale record of a run that found it off, while it is on now: on is the operator's */
        json_add_string(C.keys, "cephprov/unit/saved/balancer", "{\"active\":false,\"mode\":\"upmap\"}");
        json_object_put(step("r2", "pause-balancer", NULL, NULL));
        json_object_put(step("r2", "restore-balancer", NULL, NULL));
        CHECK(C.balancer);

        /* data on, rbd warn; the operator sets rbd on meanwhile: data back on, rbd stays on */
        json_object_put(step("r", "pause-autoscaler", NULL, NULL));
        CHECK_STREQ(json_object_get_string(json_object_object_get(C.pools, "rbd")), "off");
        json_add_string(C.pools, "rbd", "on");
        json_object *a = step("r", "restore-autoscaler", NULL, NULL);
        CHECK(a != NULL);
        CHECK_STREQ(json_object_get_string(json_object_object_get(C.pools, "data")), "on");
        CHECK_STREQ(json_object_get_string(json_object_object_get(C.pools, "rbd")), "on");
        CHECK_INTEQ((int) n_left(a), 1);
        CHECK(!has_key("saved/autoscaler"));
        json_object_put(a);
        /* an older record (the pools' map alone) is read */
        json_add_string(C.pools, "rbd", "off");
        json_add_string(C.keys, "cephprov/unit/saved/autoscaler", "{\"data\":\"on\",\"rbd\":\"warn\"}");
        json_object_put(step("r3", "restore-autoscaler", NULL, NULL));
        CHECK_STREQ(json_object_get_string(json_object_object_get(C.pools, "rbd")), "warn");
}

/* `status`: every open record with its run and age */
static void test_records(void) {
        cluster_reset();
        json_object_put(step("run-s", "throttle", "{\"preset\":\"slow\"}", NULL));
        json_object_put(step("run-s", "set-flag", "{\"flag\":\"noout\",\"scope\":\"host\",\"host\":\"node2\"}", NULL));
        json_add_string(C.keys, "cephprov/unit/saved/balancer", "{\"active\":true,\"mode\":\"upmap\"}");
        json_add_string(C.keys, "cephprov/unit/drained/node4", "{\"state\":\"drained\"}"); /* not a restore record */
        _cleanup_json_ json_object *l = NULL;
        Error err = {};
        CHECK_INTEQ(cluster_restore_records(A, &l, &err), 0);
        CHECK_INTEQ(l ? (int) json_object_array_length(l) : -1, 3);
        _cleanup_strv_free_ char **names = NULL;
        for (size_t i = 0; l && i < json_object_array_length(l); i++) {
                json_object *e = json_object_array_get_idx(l, i);
                const char *run = json_object_get_string(json_object_object_get(e, "run"));
                strv_consume(&names, strprintf("%s %s %s", json_object_get_string(json_object_object_get(e, "record")),
                                               run ? run : "-",
                                               json_object_object_get(e, "age_sec") ? "age" : "-"));
        }
        _cleanup_(freep) char *got = names ? strv_join(names, "; ") : NULL;
        CHECK_STREQ(got, "saved/balancer - -; saved/flag-noout-node2 run-s age; saved/throttle run-s age");
}

int main(void) {
        Error err = {};
        L = fake_admin_layout("unit", "node1", "throttle:\n  preset: slow\n", "[/dev/disk/by-id/unit-a]");
        if (!L)
                return test_result();
        fake_admin_install(run_answer);
        cluster_reset();
        if (ceph_admin_open(L, &A, &err) < 0) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
        }
        TEST_RUN(test_throttle_operator);
        TEST_RUN(test_throttle_stale_record);
        TEST_RUN(test_host_flags);
        TEST_RUN(test_balancer_autoscaler);
        TEST_RUN(test_records);
        CHECK(!C.unknown);
        for (char **u = C.unknown; u && *u; u++)
                fprintf(stderr, "  the fake cluster does not know: %s\n", *u);
        A = ceph_admin_close(A);
        L = layout_free(L);
        return test_result();
}
