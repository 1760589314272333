/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The drained and destroyed records of a host (issue 26 item 3), through the cluster client
 * as the controller runs them: cluster_drained_set() refuses "drained" while an OSD of the
 * host is in, up or in a PG's up or acting set, and purge-osd in a host's list (run by the
 * wave executor) never purges a recorded id that now belongs to another host. The admin
 * host's agent is a FAKE in-process dispatcher (the local transport's hook) that answers
 * `ceph ...` with Pacific's captures of a 4-OSD lab (node1: osd.0 osd.1, node2: osd.2
 * osd.3), changed as each case needs, and records every command it was given. */

#include <errno.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "controller/ceph-admin.h"
#include "controller/cluster-steps.h"
#include "exec/waves.h"
#include "layout/layout.h"
#include "capture.h"
#include "fake-host.h"
#include "test.h"

typedef struct Fake {
        json_object *dump, *tree, *md, *pgs;
        char **commands;   /* the ceph command words, "-f json" and the prefix left out */
        bool pg_dump_fails;
} Fake;
static Fake fake;

static void fake_reset(void) {
        json_object_put(fake.dump);
        json_object_put(fake.tree);
        json_object_put(fake.md);
        json_object_put(fake.pgs);
        strv_free(fake.commands);
        fake = (Fake) {};
        fake.dump = capture_pacific("osd-dump.out");
        fake.tree = capture_pacific("osd-tree.out");
        fake.md = capture_pacific("osd-metadata.out");
        fake.pgs = capture_pacific("pg-dump-pgs-brief-clean.out");
}

static json_object *dump_osd(int id) {
        json_object *osds = json_object_object_get(fake.dump, "osds");
        for (size_t i = 0; i < json_object_array_length(osds); i++) {
                json_object *o = json_object_array_get_idx(osds, i);
                if (json_object_get_int(json_object_object_get(o, "osd")) == id)
                        return o;
        }
        return NULL;
}

static void set_osd(int id, bool up, bool in) {
        json_object *o = dump_osd(id);
        CHECK(o != NULL);
        if (!o)
                return;
        json_object_object_add(o, "up", json_object_new_int(up));
        json_object_object_add(o, "in", json_object_new_int(in));
        json_object_object_add(o, "weight", json_object_new_double(in ? 1 : 0));
}

/* osd `id` out of the OSD map and CRUSH (what `osd purge` does) */
static void purge(int id) {
        json_object *osds = json_object_object_get(fake.dump, "osds");
        for (size_t i = 0; i < json_object_array_length(osds); i++)
                if (json_object_get_int(json_object_object_get(json_object_array_get_idx(osds, i), "osd")) == id) {
                        json_object_array_del_idx(osds, i, 1);
                        break;
                }
        json_object *nodes = json_object_object_get(fake.tree, "nodes");
        for (size_t i = 0; i < json_object_array_length(nodes); i++) {
                json_object *n = json_object_array_get_idx(nodes, i);
                json_object *ch = json_object_object_get(n, "children");
                if (json_object_get_int(json_object_object_get(n, "id")) == id) {
                        json_object_array_del_idx(nodes, i--, 1);
                        continue;
                }
                for (size_t k = 0; ch && k < json_object_array_length(ch); k++)
                        if (json_object_get_int(json_object_array_get_idx(ch, k)) == id)
                                json_object_array_del_idx(ch, k--, 1);
        }
}

/* osd `id` placed under host bucket `host` instead (an id given to a new OSD there) */
static void move_to(int id, const char *host) {
        json_object *nodes = json_object_object_get(fake.tree, "nodes");
        for (size_t i = 0; i < json_object_array_length(nodes); i++) {
                json_object *n = json_object_array_get_idx(nodes, i);
                json_object *ch = json_object_object_get(n, "children");
                if (!streq(json_object_get_string(json_object_object_get(n, "type")), "host"))
                        continue;
                for (size_t k = 0; k < json_object_array_length(ch); k++)
                        if (json_object_get_int(json_object_array_get_idx(ch, k)) == id)
                                json_object_array_del_idx(ch, k--, 1);
                if (streq(json_object_get_string(json_object_object_get(n, "name")), host))
                        json_object_array_add(ch, json_object_new_int(id));
        }
}

/* every PG's up and acting: `from` becomes `to` */
static void move_pgs(int from, int to) {
        json_object *l = json_object_object_get(fake.pgs, "pg_stats");
        for (size_t i = 0; i < json_object_array_length(l); i++)
                for (const char *const *s = (const char *const[]) { "up", "acting", NULL }; *s; s++) {
                        json_object *a = json_object_object_get(json_object_array_get_idx(l, i), *s);
                        for (size_t k = 0; k < json_object_array_length(a); k++)
                                if (json_object_get_int(json_object_array_get_idx(a, k)) == from)
                                        json_object_array_put_idx(a, k, json_object_new_int(to));
                }
}

static bool called(const char *words) {
        return strv_contains(fake.commands, words);
}

static bool called_prefix(const char *prefix) {
        for (char **c = fake.commands; c && *c; c++)
                if (startswith(*c, prefix))
                        return true;
        return false;
}

static bool called_with(const char *words) {
        for (char **c = fake.commands; c && *c; c++)
                if (strstr(*c, words))
                        return true;
        return false;
}

/* `ceph` as the fake admin host runs it: the words after "--connect-timeout N" */
static void answer(char **argv, int *ret_exit, char **ret_out) {
        size_t i = 0;
        while (argv[i] && !streq(argv[i], "--connect-timeout"))
                i++;
        i = argv[i] ? i + 2 : 1;
        _cleanup_strv_free_ char **w = NULL;
        for (; argv[i]; i++)
                if (streq(argv[i], "-f") && argv[i + 1])
                        i++;
                else
                        strv_extend(&w, argv[i]);
        _cleanup_(freep) char *cmd = w ? strv_join(w, " ") : strdup("");
        strv_extend(&fake.commands, cmd);
        *ret_exit = 0;
        json_object *o = NULL;
        if (streq(cmd, "osd dump"))
                o = fake.dump;
        else if (streq(cmd, "osd tree"))
                o = fake.tree;
        else if (streq(cmd, "osd metadata"))
                o = fake.md;
        else if (streq(cmd, "pg dump pgs_brief")) {
                if (fake.pg_dump_fails) {
                        *ret_exit = 110;
                        *ret_out = strdup("");
                        return;
                }
                o = fake.pgs;
        } else if (startswith(cmd, "osd safe-to-destroy")) {
                json_object *s = json_object_new_object(), *ids = json_object_new_array();
                for (size_t k = 2; w[k]; k++)
                        json_object_array_add(ids, json_object_new_int(atoi(w[k])));
                json_add(s, "safe_to_destroy", ids);
                json_add(s, "active", json_object_new_array());
                json_add(s, "missing_stats", json_object_new_array());
                json_add(s, "stored_pgs", json_object_new_array());
                *ret_out = strdup(json_object_to_json_string(s));
                json_object_put(s);
                return;
        } else if (startswith(cmd, "osd purge "))
                purge(atoi(w[2]));
        else if (startswith(cmd, "auth get ")) {
                *ret_exit = ENOENT;
                *ret_out = strdup("");
                return;
        } else if (streq(cmd, "versions")) {
                *ret_out = strdup("{}");
                return;
        }
        *ret_out = strdup(o ? json_object_to_json_string(o) : "");
}

/* the answer to a "run" of the CLI's argv (ceph-as-run.h hands it each "ceph-command") */
static json_object *run_answer(json_object *args, void *userdata, int *ret_errno, char **ret_error) {
        json_object *res = json_object_new_object();
        _cleanup_strv_free_ char **argv = NULL;
        json_object *a = json_object_object_get(args, "argv");
        for (size_t i = 0; i < json_object_array_length(a); i++)
                strv_extend(&argv, json_object_get_string(json_object_array_get_idx(a, i)));
        int code = 0;
        _cleanup_(freep) char *out = NULL;
        answer(argv, &code, &out);
        json_add_int(res, "exit", code);
        json_add_string(res, "stdout", out ? out : "");
        json_add_string(res, "stderr", code ? "fake: failed" : "");
        return res;
}

static Layout *layout(void) {
        return fake_admin_layout("unit", "admin", "", "[/dev/disk/by-id/unit-a]");
}

/* issue 26: the drain again after a cancel skipped its steps and would have recorded node2
 * drained with its OSDs in, up and holding data */
static void test_drained_refused(void) {
        _cleanup_(layout_freep) Layout *l = layout();
        if (!l)
                return;
        _cleanup_(ceph_admin_closep) CephAdmin *a = NULL;
        Error err = {};
        CHECK_INTEQ(ceph_admin_open(l, &a, &err), 0);
        const int node2[] = { 2, 3 };

        /* "draining" is recorded as it is: nothing to verify */
        fake_reset();
        CHECK_INTEQ(cluster_drained_set(a, "node2", "draining", node2, 2, &err), 0);
        CHECK(called_with("config-key set cephprov/unit/drained/node2"));
        CHECK(!called("pg dump pgs_brief"));

        /* in, up, holding PGs: refused, each OSD named, nothing recorded */
        fake_reset();
        CHECK_INTEQ(cluster_drained_set(a, "node2", "drained", node2, 2, &err), -EBUSY);
        CHECK(strstr(err.message, "refusing to record host 'node2' drained: osd.2 is in, up, in the up or acting set of"));
        CHECK(strstr(err.message, "osd.3 is in, up,"));
        CHECK(!called_with("config-key set"));

        /* out and down, the data not moved yet: refused */
        fake_reset();
        set_osd(2, false, false);
        set_osd(3, false, false);
        error_reset(&err);
        CHECK_INTEQ(cluster_drained_set(a, "node2", "drained", node2, 2, &err), -EBUSY);
        CHECK(strstr(err.message, "osd.2 is in the up or acting set of"));
        CHECK(!called_with("config-key set"));

        /* the PG map unreadable: refused (never recorded on a guess) */
        fake.pg_dump_fails = true;
        error_reset(&err);
        CHECK(cluster_drained_set(a, "node2", "drained", node2, 2, &err) < 0);
        CHECK(strstr(err.message, "refusing to record host 'node2' drained: its OSDs' state cannot be read"));
        CHECK(!called_with("config-key set"));
        fake.pg_dump_fails = false;

        /* out, down, in no PG: recorded */
        move_pgs(2, 0);
        move_pgs(3, 1);
        error_reset(&err);
        CHECK_INTEQ(cluster_drained_set(a, "node2", "drained", node2, 2, &err), 0);
        CHECK(called_with("config-key set cephprov/unit/drained/node2"));
        fake_reset();
}

/* A destroy of node1 killed after it purged osd.1; then apply made a new OSD on node2 that
 * got id 1 and is down just now (Ceph's own purge refuses only an OSD that is up). The
 * destroy again, its record naming 0 and 1, purges osd.0 and leaves node2's osd.1. */
static void test_purge_reused_id(void) {
        _cleanup_(layout_freep) Layout *l = layout();
        if (!l)
                return;
        _cleanup_(ceph_admin_closep) CephAdmin *a = NULL;
        Error err = {};
        CHECK_INTEQ(ceph_admin_open(l, &a, &err), 0);
        fake_reset();
        set_osd(0, false, false);
        set_osd(1, false, true);
        move_to(1, "node2");

        /* the record's ids, as a destroy run reads them */
        const int rec[] = { 0, 1, 7 };
        _cleanup_(freep) int *own = NULL;
        _cleanup_strv_free_ char **other = NULL;
        size_t n_own = 0;
        CHECK_INTEQ(cluster_osds_of_host(a, "node1", rec, 3, &own, &n_own, &other, &err), 0);
        CHECK_INTEQ(n_own, 2); /* 0 (node1's), 7 (purged: nothing to act on) */
        CHECK(own && own[0] == 0 && own[1] == 7);
        CHECK_INTEQ(strv_length(other), 1);
        CHECK_STREQ(other ? other[0] : NULL, "osd.1 (now node2's)");

        /* purge-osd in node1's list, given both ids */
        _cleanup_(cluster_steps_done) ClusterSteps cs = {};
        CHECK_INTEQ(cluster_steps_init(&cs, a, l, &err), 0);
        _cleanup_json_ json_object *args = json_tokener_parse("{\"osds\":[0,1]}");
        WaveStep steps[] = { { .name = "purge-osd", .target = WAVE_TARGET_CLUSTER, .class = WAVE_CLASS_CLUSTER_SERIAL,
                               .args = args, .destructive = true } };
        WaveHost h[] = { { "node1", steps, 1 } };
        WavePlan p = { .id = "destroy-node:node1", .hosts = h, .n_hosts = 1 };
        ClusterLink cl = { .call = cluster_steps_call, .userdata = &cs };
        WaveOptions o = { .cluster = &cl, .tick_ms = 1 };
        _cleanup_(wave_report_freep) WaveReport *rep = NULL;
        CHECK_INTEQ(waves_run(&p, &o, &rep, &err), 0);
        CHECK(rep && rep->status == WAVE_STATUS_OK);
        CHECK(called("osd purge 0 --yes-i-really-mean-it"));
        CHECK(!called_prefix("osd purge 1"));
        CHECK(dump_osd(1) != NULL);
        json_object *np = NULL;
        CHECK(rep && rep->steps[0].result && json_object_object_get_ex(rep->steps[0].result, "not_purged", &np));
        CHECK_STREQ(np ? json_object_get_string(json_object_array_get_idx(np, 0)) : NULL, "osd.1 (now node2's)");
        fake_reset();
}

int main(void) {
        fake_admin_install(run_answer);
        TEST_RUN(test_drained_refused);
        TEST_RUN(test_purge_reused_id);
        fake_reset();
        json_object_put(fake.dump);
        json_object_put(fake.tree);
        json_object_put(fake.md);
        json_object_put(fake.pgs);
        strv_free(fake.commands);
        return test_result();
}
