/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The commands cephprov sends through librados (issue 27): every argv builder's words made
 * into the JSON command the `ceph` CLI would send (Ceph's argument names and types, the
 * daemon it goes to), and back into the same words (nothing lost, nothing added). */

#include <errno.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph/ceph-bench.h"
#include "ceph/ceph-cluster.h"
#include "ceph/ceph.h"
#include "test.h"

static const CephCli cli = { .cluster = "ceph", .connect_timeout = 30 };
static size_t n_prefix;

/* argv → command; its JSON (plain) and target checked; the words back equal argv's */
static void expect(char **argv, const char *json, CephTarget target) {
        _cleanup_strv_free_ char **a = argv;
        CHECK(a != NULL);
        if (!a)
                return;
        _cleanup_(ceph_command_done) CephCommand c = { .osd = -1 };
        Error err = {};
        int r = ceph_command_from_argv(a, n_prefix, &c, &err);
        CHECK_INTEQ(r, 0);
        if (r < 0) {
                fprintf(stderr, "  %s\n", err.message);
                return;
        }
        if (json)
                CHECK_STREQ(json_object_to_json_string_ext(c.cmd, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), json);
        CHECK_INTEQ(c.target, target);
        _cleanup_strv_free_ char **back = ceph_command_to_words(&c);
        _cleanup_(freep) char *want = strv_join(a + n_prefix, " "), *got = back ? strv_join(back, " ") : NULL;
        CHECK_STREQ(c.words, want);
        /* an OSD name the CLI takes as "osd.N" or "N" goes as N, and comes back as N */
        if (json_object_object_get_ex(c.cmd, "id", NULL) && strstr(want, " osd."))
                return;
        CHECK_STREQ(got, want);
}

static void test_builders(void) {
        Error e = {};
        const int ids[] = { 3, 4 };
        char *who[] = { (char *) "node1", NULL };
        expect(ceph_argv_status(&cli, &e), "{\"prefix\":\"status\",\"format\":\"json\"}", CEPH_TARGET_MON);
        expect(ceph_argv_health_detail(&cli, &e), "{\"prefix\":\"health\",\"detail\":\"detail\",\"format\":\"json\"}",
               CEPH_TARGET_MON);
        expect(ceph_argv_osd_tree(&cli, &e), "{\"prefix\":\"osd tree\",\"format\":\"json\"}", CEPH_TARGET_MON);
        expect(ceph_argv_osd_dump(&cli, &e), "{\"prefix\":\"osd dump\",\"format\":\"json\"}", CEPH_TARGET_MON);
        expect(ceph_argv_osd_metadata(&cli, -1, &e), "{\"prefix\":\"osd metadata\",\"format\":\"json\"}", CEPH_TARGET_MON);
        expect(ceph_argv_osd_metadata(&cli, 7, &e), "{\"prefix\":\"osd metadata\",\"id\":7,\"format\":\"json\"}",
               CEPH_TARGET_MON);
        expect(ceph_argv_pg_stat(&cli, &e), "{\"prefix\":\"pg stat\",\"format\":\"json\"}", CEPH_TARGET_MGR);
        expect(ceph_argv_pg_dump_pgs_brief(&cli, &e),
               "{\"prefix\":\"pg dump\",\"dumpcontents\":[\"pgs_brief\"],\"format\":\"json\"}", CEPH_TARGET_MGR);
        expect(ceph_argv_versions(&cli, &e), NULL, CEPH_TARGET_MON);
        expect(ceph_argv_ok_to_stop(&cli, ids, 2, &e),
               "{\"prefix\":\"osd ok-to-stop\",\"ids\":[\"3\",\"4\"],\"format\":\"json\"}", CEPH_TARGET_MGR);
        expect(ceph_argv_safe_to_destroy(&cli, ids, 1, &e),
               "{\"prefix\":\"osd safe-to-destroy\",\"ids\":[\"3\"],\"format\":\"json\"}", CEPH_TARGET_MGR);
        expect(ceph_argv_osd_new(&cli, "0d1f2e3c-4b5a-6978-8a9b-0c1d2e3f4a5b", 5, true, &e),
               "{\"prefix\":\"osd new\",\"uuid\":\"0d1f2e3c-4b5a-6978-8a9b-0c1d2e3f4a5b\",\"id\":5}", CEPH_TARGET_MON);
        expect(ceph_argv_osd_new(&cli, "0d1f2e3c-4b5a-6978-8a9b-0c1d2e3f4a5b", -1, false, &e), NULL, CEPH_TARGET_MON);
        expect(ceph_argv_osd_destroy(&cli, 3, &e), "{\"prefix\":\"osd destroy\",\"id\":3,\"yes_i_really_mean_it\":true}",
               CEPH_TARGET_MGR);
        expect(ceph_argv_osd_purge(&cli, 3, &e), "{\"prefix\":\"osd purge\",\"id\":3,\"yes_i_really_mean_it\":true}",
               CEPH_TARGET_MGR);
        expect(ceph_argv_osd_out(&cli, ids, 2, &e), "{\"prefix\":\"osd out\",\"ids\":[\"3\",\"4\"]}", CEPH_TARGET_MON);
        expect(ceph_argv_osd_in(&cli, ids, 2, &e), NULL, CEPH_TARGET_MON);
        expect(ceph_argv_osd_down(&cli, ids, 2, &e), NULL, CEPH_TARGET_MON);
        expect(ceph_argv_osd_crush_remove(&cli, 3, &e), "{\"prefix\":\"osd crush remove\",\"name\":\"osd.3\"}",
               CEPH_TARGET_MON);
        expect(ceph_argv_osd_set(&cli, "noout", &e), "{\"prefix\":\"osd set\",\"key\":\"noout\"}", CEPH_TARGET_MON);
        expect(ceph_argv_osd_unset(&cli, "noout", &e), NULL, CEPH_TARGET_MON);
        expect(ceph_argv_osd_crush_rm_device_class(&cli, 3, &e),
               "{\"prefix\":\"osd crush rm-device-class\",\"ids\":[\"osd.3\"]}", CEPH_TARGET_MON);
        expect(ceph_argv_osd_crush_set_device_class(&cli, "hdd", 3, &e),
               "{\"prefix\":\"osd crush set-device-class\",\"class\":\"hdd\",\"ids\":[\"osd.3\"]}", CEPH_TARGET_MON);
        expect(ceph_argv_config_get(&cli, "osd", "osd_max_backfills", &e),
               "{\"prefix\":\"config get\",\"who\":\"osd\",\"key\":\"osd_max_backfills\"}", CEPH_TARGET_MON);
        /* a value with characters the CLI's own parsing refused ("invalid chars") goes as it is */
        expect(ceph_argv_config_set(&cli, "osd", "osd_max_backfills", "1 → 2", &e),
               "{\"prefix\":\"config set\",\"who\":\"osd\",\"name\":\"osd_max_backfills\",\"value\":\"1 → 2\"}",
               CEPH_TARGET_MON);
        expect(ceph_argv_config_show(&cli, "osd.3", &e),
               "{\"prefix\":\"config show\",\"who\":\"osd.3\",\"format\":\"json\"}", CEPH_TARGET_MGR);
        expect(ceph_argv_config_dump(&cli, &e), NULL, CEPH_TARGET_MON);
        expect(ceph_argv_config_rm(&cli, "osd", "osd_max_backfills", &e),
               "{\"prefix\":\"config rm\",\"who\":\"osd\",\"name\":\"osd_max_backfills\"}", CEPH_TARGET_MON);
        expect(ceph_argv_config_key_get(&cli, "cephprov/lock/ceph", &e),
               "{\"prefix\":\"config-key get\",\"key\":\"cephprov/lock/ceph\"}", CEPH_TARGET_MON);
        expect(ceph_argv_config_key_rm(&cli, "a/b", &e), NULL, CEPH_TARGET_MON);
        expect(ceph_argv_config_key_exists(&cli, "a/b", &e), NULL, CEPH_TARGET_MON);
        expect(ceph_argv_config_key_set(&cli, "a/b", &e), "{\"prefix\":\"config-key set\",\"key\":\"a/b\"}",
               CEPH_TARGET_MON);
        expect(ceph_argv_config_key_ls(&cli, &e), NULL, CEPH_TARGET_MON);
        expect(ceph_argv_auth_add(&cli, "client.cephprov-lock.ceph", &e),
               "{\"prefix\":\"auth add\",\"entity\":\"client.cephprov-lock.ceph\"}", CEPH_TARGET_MON);
        expect(ceph_argv_auth_get(&cli, "client.x", &e), NULL, CEPH_TARGET_MON);
        expect(ceph_argv_auth_rm(&cli, "client.x", &e), NULL, CEPH_TARGET_MON);
        expect(ceph_argv_report(&cli, &e), NULL, CEPH_TARGET_MON);
        expect(ceph_argv_osd_set_group(&cli, "noout,noin", who, &e),
               "{\"prefix\":\"osd set-group\",\"flags\":\"noout,noin\",\"who\":[\"node1\"]}", CEPH_TARGET_MON);
        expect(ceph_argv_osd_unset_group(&cli, "noout", who, &e), NULL, CEPH_TARGET_MON);
        expect(ceph_argv_balancer_status(&cli, &e), NULL, CEPH_TARGET_MGR);
        expect(ceph_argv_balancer_on(&cli, &e), NULL, CEPH_TARGET_MGR);
        expect(ceph_argv_balancer_off(&cli, &e), NULL, CEPH_TARGET_MGR);
        expect(ceph_argv_balancer_mode(&cli, "upmap", &e), "{\"prefix\":\"balancer mode\",\"mode\":\"upmap\"}",
               CEPH_TARGET_MGR);
        expect(ceph_argv_osd_pool_get(&cli, "data", "size", &e),
               "{\"prefix\":\"osd pool get\",\"pool\":\"data\",\"var\":\"size\",\"format\":\"json\"}", CEPH_TARGET_MON);
        expect(ceph_argv_osd_pool_create(&cli, "probe", 8, &e),
               "{\"prefix\":\"osd pool create\",\"pool\":\"probe\",\"pg_num\":8,\"pgp_num\":8}", CEPH_TARGET_MON);
        expect(ceph_argv_osd_pool_application_enable(&cli, "probe", "rados", &e), NULL, CEPH_TARGET_MON);
        expect(ceph_argv_osd_pool_set_autoscale_mode(&cli, "data", "off", &e),
               "{\"prefix\":\"osd pool set\",\"pool\":\"data\",\"var\":\"pg_autoscale_mode\",\"val\":\"off\"}",
               CEPH_TARGET_MON);
        /* the autoscaler module's own commands, not `osd pool set POOL VAR VAL` */
        expect(ceph_argv_osd_pool_noautoscale(&cli, true, &e), "{\"prefix\":\"osd pool set noautoscale\"}",
               CEPH_TARGET_MGR);
        expect(ceph_argv_osd_pool_noautoscale(&cli, false, &e), "{\"prefix\":\"osd pool unset noautoscale\"}",
               CEPH_TARGET_MGR);
        expect(ceph_argv_osd_pool_get_noautoscale(&cli, &e), "{\"prefix\":\"osd pool get noautoscale\"}", CEPH_TARGET_MGR);
        expect(ceph_argv_osd_crush_reweight(&cli, 3, 0.00977, &e),
               "{\"prefix\":\"osd crush reweight\",\"name\":\"osd.3\",\"weight\":0.00977}", CEPH_TARGET_MON);
        expect(ceph_argv_osd_crush_create_or_move(&cli, 3, 0.5, "node1", &e),
               "{\"prefix\":\"osd crush create-or-move\",\"id\":3,\"weight\":0.50000,\"args\":[\"host=node1\"]}",
               CEPH_TARGET_MON);
        expect(ceph_argv_osd_crush_rm(&cli, "node1", &e), NULL, CEPH_TARGET_MON);
        _cleanup_strv_free_ char **cm = ceph_argv_osd_crush_create_or_move(&cli, 3, 0.5, "node1", &e);
        _cleanup_(ceph_command_done) CephCommand c = { .osd = -1 };
        CHECK_INTEQ(ceph_command_from_argv(cm, n_prefix, &c, &e), 0);
        _cleanup_strv_free_ char **back = ceph_command_to_words(&c);
        _cleanup_(freep) char *got = strv_join(back, " ");
        CHECK_STREQ(got, "osd crush create-or-move 3 0.50000 host=node1");
        expect(ceph_argv_osd_df_tree(&cli, &e), "{\"prefix\":\"osd df\",\"output_method\":\"tree\",\"format\":\"json\"}",
               CEPH_TARGET_MGR);
        expect(ceph_argv_osd_pool_ls_detail(&cli, &e),
               "{\"prefix\":\"osd pool ls\",\"detail\":\"detail\",\"format\":\"json\"}", CEPH_TARGET_MON);
        expect(ceph_argv_osd_crush_rule_dump(&cli, &e), NULL, CEPH_TARGET_MON);
        expect(ceph_argv_osd_ec_profile_get(&cli, "default", &e), NULL, CEPH_TARGET_MON);
        expect(ceph_argv_osd_perf(&cli, &e), NULL, CEPH_TARGET_MGR);
}

static void test_tell(void) {
        Error e = {};
        _cleanup_strv_free_ char **a = ceph_argv_osd_bench(&cli, 4, 12582912, 4096, &e);
        _cleanup_(ceph_command_done) CephCommand c = { .osd = -1 };
        CHECK_INTEQ(ceph_command_from_argv(a, n_prefix, &c, &e), 0);
        CHECK_INTEQ(c.target, CEPH_TARGET_OSD);
        CHECK_INTEQ(c.osd, 4);
        CHECK_STREQ(json_object_to_json_string_ext(c.cmd, JSON_C_TO_STRING_PLAIN),
                    "{\"prefix\":\"bench\",\"count\":12582912,\"size\":4096,\"format\":\"json\"}");
        _cleanup_strv_free_ char **back = ceph_command_to_words(&c);
        _cleanup_(freep) char *got = strv_join(back, " ");
        CHECK_STREQ(got, "tell osd.4 bench 12582912 4096 -f json");
}

/* the input of -i - is the caller's; the words say only that there is one */
static void test_input(void) {
        Error e = {};
        _cleanup_strv_free_ char **a = ceph_argv_config_key_set(&cli, "k", &e);
        _cleanup_(ceph_command_done) CephCommand c = { .osd = -1 };
        CHECK_INTEQ(ceph_command_from_argv(a, n_prefix, &c, &e), 0);
        CHECK(c.input);
        _cleanup_strv_free_ char **b = ceph_argv_config_key_get(&cli, "k", &e);
        _cleanup_(ceph_command_done) CephCommand d = { .osd = -1 };
        CHECK_INTEQ(ceph_command_from_argv(b, n_prefix, &d, &e), 0);
        CHECK(!d.input);
}

/* words no signature takes: refused naming them, nothing sent */
static void test_refused(void) {
        static const struct {
                const char *words;
                const char *message;
        } bad[] = {
                { "osd frobnicate 3", "not a command cephprov knows" },
                { "osd destroy 3 4 --yes-i-really-mean-it", "'4' is more than the command takes" },
                { "osd destroy osd.x", "'osd.x' is not an OSD" },
                { "osd pool create p many many", "'many' is not an integer" },
                { "osd crush reweight osd.3 heavy", "'heavy' is not a number" },
                { "osd out", "no ids given" },
                { "osd dump -f plain", "json only" },
                { "osd dump --force", "has no place" },
                { "tell mon.a version", "tell goes to an OSD" },
                { "tell osd.3 frobnicate", "not a command cephprov knows" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_strv_free_ char **w = strv_split(bad[i].words, " ");
                _cleanup_strv_free_ char **a = ceph_argv_cli(&cli, NULL);
                STRV_FOREACH(x, w)
                        strv_extend(&a, *x);
                _cleanup_(ceph_command_done) CephCommand c = { .osd = -1 };
                Error e = {};
                CHECK_INTEQ(ceph_command_from_argv(a, n_prefix, &c, &e), -EINVAL);
                CHECK(c.cmd == NULL);
                if (!strstr(e.message, bad[i].message)) {
                        fprintf(stderr, "  '%s': %s\n", bad[i].words, e.message);
                        CHECK(false);
                }
        }
}

/* the CLI's stderr for an answer */
static void test_stderr(void) {
        _cleanup_(freep) char *a = ceph_answer_stderr(-ENOENT, "error obtaining 'k': (2) No such file or directory"),
                             *b = ceph_answer_stderr(0, "set osd.3 to destroyed"), *c = ceph_answer_stderr(0, "");
        CHECK_STREQ(a, "Error ENOENT: error obtaining 'k': (2) No such file or directory\n");
        CHECK_STREQ(b, "set osd.3 to destroyed\n");
        CHECK_STREQ(c, "");
        CHECK(ceph_answer_no_such_key(ENOENT, a));
}

int main(void) {
        _cleanup_strv_free_ char **p = ceph_argv_cli(&cli, NULL);
        n_prefix = strv_length(p);
        TEST_RUN(test_builders);
        TEST_RUN(test_tell);
        TEST_RUN(test_input);
        TEST_RUN(test_refused);
        TEST_RUN(test_stderr);
        return test_result();
}
