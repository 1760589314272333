/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cluster layer of src/ceph (ceph-cluster.h): argv builders, the parsers of osd df tree,
 * pools, CRUSH rules, erasure-code profiles, balancer, osd perf and recovery counters, and
 * the drain check, drain progress, throttle plans and slow-node report built on them.
 * Captured Pacific output where tests/data/ceph has it, synthetic-* fixtures (following the
 * Ceph source named in tests/data/ceph/README.md) where it does not yet. */

#include <errno.h>
#include <math.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/strv.h"
#include "ceph/ceph-cluster.h"
#include "fixture.h"
#include "test.h"

#define GiB_KB (1024ULL * 1024ULL)

static bool strv_has_prefix(char **l, const char *prefix) {
        STRV_FOREACH(s, l)
                if (startswith(*s, prefix))
                        return true;
        return false;
}

static void test_argv(void) {
        Error err = {};
        char *host[] = { (char *) "node4", NULL }, *osds[] = { (char *) "osd.3", (char *) "osd.9", NULL };
        check_argv(ceph_argv_osd_set_group(NULL, "noout", host, &err), "ceph osd set-group noout node4");
        check_argv(ceph_argv_osd_unset_group(NULL, "noout,noin", osds, &err), "ceph osd unset-group noout,noin osd.3 osd.9");
        check_argv(ceph_argv_balancer_status(NULL, &err), "ceph balancer status -f json");
        check_argv(ceph_argv_balancer_off(NULL, &err), "ceph balancer off");
        check_argv(ceph_argv_balancer_on(NULL, &err), "ceph balancer on");
        check_argv(ceph_argv_balancer_mode(NULL, "upmap", &err), "ceph balancer mode upmap");
        check_argv(ceph_argv_osd_pool_get(NULL, "rbd", "pg_autoscale_mode", &err),
                   "ceph osd pool get rbd pg_autoscale_mode -f json");
        check_argv(ceph_argv_osd_pool_set_autoscale_mode(NULL, "rbd", "off", &err),
                   "ceph osd pool set rbd pg_autoscale_mode off");
        check_argv(ceph_argv_osd_pool_noautoscale(NULL, true, &err), "ceph osd pool set noautoscale");
        check_argv(ceph_argv_osd_pool_noautoscale(NULL, false, &err), "ceph osd pool unset noautoscale");
        check_argv(ceph_argv_osd_pool_get_noautoscale(NULL, &err), "ceph osd pool get noautoscale");
        check_argv(ceph_argv_osd_crush_reweight(NULL, 7, 0.5, &err), "ceph osd crush reweight osd.7 0.50000");
        check_argv(ceph_argv_osd_crush_reweight(NULL, 7, 0, &err), "ceph osd crush reweight osd.7 0.00000");
        check_argv(ceph_argv_osd_crush_rm(NULL, "node4", &err), "ceph osd crush rm node4");
        check_argv(ceph_argv_osd_df_tree(NULL, &err), "ceph osd df tree -f json");
        check_argv(ceph_argv_osd_pool_ls_detail(NULL, &err), "ceph osd pool ls detail -f json");
        check_argv(ceph_argv_osd_crush_rule_dump(NULL, &err), "ceph osd crush rule dump -f json");
        check_argv(ceph_argv_osd_ec_profile_get(NULL, "ec21", &err), "ceph osd erasure-code-profile get ec21 -f json");
        check_argv(ceph_argv_osd_perf(NULL, &err), "ceph osd perf -f json");
        /* the existing builders the cluster steps use as well */
        check_argv(ceph_argv_osd_destroy(NULL, 9, &err), "ceph osd destroy 9 --yes-i-really-mean-it");
        check_argv(ceph_argv_osd_purge(NULL, 9, &err), "ceph osd purge 9 --yes-i-really-mean-it");
        CephConfigOp set = { .who = (char *) "osd", .key = (char *) "osd_max_backfills", .value = (char *) "4" },
                     rm = { .who = (char *) "osd", .key = (char *) "osd_recovery_max_active" };
        check_argv(ceph_argv_config_op(NULL, &set, &err), "ceph config set osd osd_max_backfills 4");
        check_argv(ceph_argv_config_op(NULL, &rm, &err), "ceph config rm osd osd_recovery_max_active");
        CephCli cli = { .cluster = "lab", .connect_timeout = 30 };
        check_argv(ceph_argv_osd_set_group(&cli, "noout", host, &err),
                   "ceph --cluster lab --connect-timeout 30 osd set-group noout node4");
        CHECK_INTEQ(err.code, 0);

        /* CRUSH weight down in steps: 1.8 → 0 by at most 0.5 is 4 equal steps */
        double *w = NULL;
        size_t nw = 0;
        CHECK_INTEQ(ceph_crush_reweight_steps(1.8, 0, 0.5, &w, &nw, &err), 0);
        CHECK(nw == 4 && w && w[0] == 1.35 && w[1] == 0.9 && fabs(w[2] - 0.45) < 1e-12 && w[3] == 0);
        free(w);
        CHECK_INTEQ(ceph_crush_reweight_steps(0.09765625, 0, 1, &w, &nw, &err), 0);
        CHECK(nw == 1 && w[0] == 0);
        free(w);
        /* back up, and an exact multiple of the step */
        CHECK_INTEQ(ceph_crush_reweight_steps(0, 1, 0.25, &w, &nw, &err), 0);
        CHECK(nw == 4 && w[0] == 0.25 && w[3] == 1);
        free(w);
        CHECK_INTEQ(ceph_crush_reweight_steps(0.5, 0.5, 0.1, &w, &nw, &err), 0);
        CHECK(nw == 0);
        free(w);
        /* rounded to what the argv prints */
        CHECK_INTEQ(ceph_crush_reweight_steps(1, 0, 0.3, &w, &nw, &err), 0);
        CHECK(nw == 4 && w[0] == 0.75);
        check_argv(ceph_argv_osd_crush_reweight(NULL, 3, w[0], &err), "ceph osd crush reweight osd.3 0.75000");
        free(w);
        {
                Error re = {};
                w = NULL;
                CHECK(ceph_crush_reweight_steps(1, 0, 0, &w, &nw, &re) == -EINVAL && w == NULL);
                error_reset(&re);
                CHECK(ceph_crush_reweight_steps(-1, 0, 0.1, &w, &nw, &re) == -EINVAL);
                error_reset(&re);
                CHECK(ceph_crush_reweight_steps(1000, 0, 0.1, &w, &nw, &re) == -EINVAL && strstr(re.message, "1000 steps"));
        }

        /* refusals name what is wrong */
        static const char *const bad_flags[] = { "nobackfill", "noout,noout", "noout,", ",noout", "", "noout noin", "-x" };
        for (size_t i = 0; i < ELEMENTSOF(bad_flags); i++) {
                Error e = {};
                CHECK(ceph_argv_osd_set_group(NULL, bad_flags[i], host, &e) == NULL);
                CHECK(e.code == EINVAL && strstr(e.message, "invalid flags"));
        }
        Error e = {};
        char *none[] = { NULL }, *dash[] = { (char *) "--yes-i-really-mean-it", NULL };
        CHECK(ceph_argv_osd_set_group(NULL, "noout", none, &e) == NULL && e.code == EINVAL);
        error_reset(&e);
        CHECK(ceph_argv_osd_set_group(NULL, "noout", dash, &e) == NULL && strstr(e.message, "--yes"));
        error_reset(&e);
        CHECK(ceph_argv_balancer_mode(NULL, "fast", &e) == NULL && strstr(e.message, "'fast'"));
        error_reset(&e);
        CHECK(ceph_argv_osd_pool_set_autoscale_mode(NULL, "rbd", "maybe", &e) == NULL && strstr(e.message, "'maybe'"));
        error_reset(&e);
        CHECK(ceph_argv_osd_pool_set_autoscale_mode(NULL, "-rbd", "on", &e) == NULL);
        error_reset(&e);
        CHECK(ceph_argv_osd_crush_reweight(NULL, 1, -0.1, &e) == NULL && e.code == EINVAL);
        error_reset(&e);
        CHECK(ceph_argv_osd_crush_reweight(NULL, 1, NAN, &e) == NULL);
        error_reset(&e);
        CHECK(ceph_argv_osd_crush_reweight(NULL, -1, 1, &e) == NULL);
        error_reset(&e);
        CHECK(ceph_argv_osd_crush_rm(NULL, "node 4", &e) == NULL && strstr(e.message, "'node 4'"));
        error_reset(&e);
        CHECK(ceph_argv_osd_ec_profile_get(NULL, "", &e) == NULL);
}

static void test_df_tree(void) {
        Error err = {};
        _cleanup_(freep) char *s = fixture_ceph("synthetic-osd-df-tree-4hosts.json");
        _cleanup_(ceph_osd_df_tree_freep) CephOsdDfTree *t = NULL;
        CHECK_INTEQ(ceph_osd_df_tree_parse(s, &t, &err), 0);
        if (!t)
                return;
        CHECK_INTEQ(t->n_nodes, 1 + 4 + 12);
        const CephDfNode *o = ceph_osd_df_tree_find(t, 10);
        CHECK(o && str_eq(o->name, "osd.10") && str_eq(o->type, "osd") && str_eq(o->device_class, "hdd"));
        CHECK(o && str_eq(o->host, "node4") && o->up && o->in && o->status == CEPH_DF_STATUS_UP);
        CHECK(o && o->kb == 100 * GiB_KB && o->kb_used == 31 * GiB_KB && o->kb_used_data == 30 * GiB_KB);
        CHECK(o && fabs(o->crush_weight - 100.0 / 1024) < 1e-9 && o->reweight == 1 && o->pgs == 33);
        const CephDfNode *h = ceph_osd_df_tree_find_name(t, "node4");
        CHECK(h && h->id < 0 && h->n_children == 3 && str_eq(h->type, "host") && !h->device_class);
        /* a bucket's weight is the sum of its OSDs' (osd df prints none for buckets) */
        CHECK(h && fabs(h->crush_weight - 3 * 100.0 / 1024) < 1e-9);
        const CephDfNode *root = ceph_osd_df_tree_find_name(t, "default");
        CHECK(root && !root->has_parent && fabs(root->crush_weight - 12 * 100.0 / 1024) < 1e-9);
        CHECK(h && root && ceph_osd_df_tree_is_under(t, 10, h->id) && ceph_osd_df_tree_is_under(t, 10, root->id));
        CHECK(h && !ceph_osd_df_tree_is_under(t, 0, h->id));
        CHECK(ceph_osd_df_tree_find_name(t, "osd.0") == ceph_osd_df_tree_find(t, 0));
        CHECK(ceph_osd_df_tree_find(t, 12) == NULL);
        CHECK(t->total_kb == 1200 * GiB_KB && t->total_kb_used == 372 * GiB_KB);
        CHECK(fabs(t->average_utilization - 31.0) < 1e-9);
        t = ceph_osd_df_tree_free(t);

        _cleanup_(freep) char *out = fixture_ceph("synthetic-osd-df-tree-4hosts-out.json");
        CHECK_INTEQ(ceph_osd_df_tree_parse(out, &t, &err), 0);
        o = ceph_osd_df_tree_find(t, 11);
        CHECK(o && !o->in && o->up && o->reweight == 0);

        /* no status member (older releases): up when the OSD reports statistics */
        const char *old = "{\"nodes\":[{\"id\":-1,\"name\":\"default\",\"type\":\"root\",\"type_id\":10,\"children\":[-2]},"
                          "{\"id\":-2,\"name\":\"a\",\"type\":\"host\",\"type_id\":1,\"children\":[0,1]},"
                          "{\"id\":0,\"name\":\"osd.0\",\"type\":\"osd\",\"type_id\":0,\"crush_weight\":1,"
                          "\"reweight\":1.000000,\"kb\":100,\"kb_used\":10,\"pgs\":1},"
                          "{\"id\":1,\"name\":\"osd.1\",\"type\":\"osd\",\"type_id\":0,\"crush_weight\":1,"
                          "\"reweight\":1,\"kb\":0,\"kb_used\":0,\"pgs\":0}],\"stray\":[{\"id\":5,\"name\":\"osd.5\","
                          "\"type\":\"osd\",\"type_id\":0,\"crush_weight\":0,\"reweight\":0,\"kb\":0,\"status\":\"down\"}]}";
        _cleanup_(ceph_osd_df_tree_freep) CephOsdDfTree *t2 = NULL;
        CHECK_INTEQ(ceph_osd_df_tree_parse(old, &t2, &err), 0);
        o = ceph_osd_df_tree_find(t2, 0);
        CHECK(o && o->up && o->status == CEPH_DF_STATUS_UNKNOWN && o->kb_used_data == 10 && str_eq(o->host, "a"));
        o = ceph_osd_df_tree_find(t2, 1);
        CHECK(o && !o->up);
        o = ceph_osd_df_tree_find(t2, 5);
        CHECK(o && o->stray && !o->host && o->status == CEPH_DF_STATUS_DOWN && !o->has_parent);

        static const char *const bad[] = {
                "{}", "[]", "{\"nodes\":{}}",
                "{\"nodes\":[{\"id\":0,\"name\":\"osd.0\"}]}",                                          /* no type */
                "{\"nodes\":[{\"id\":0,\"name\":\"osd.0\",\"type\":\"osd\",\"reweight\":\"1\"}]}",       /* string */
                "{\"nodes\":[{\"id\":0,\"name\":\"osd.0\",\"type\":\"osd\",\"kb\":-5}]}",                /* negative */
                "{\"nodes\":[{\"id\":0,\"name\":\"osd.0\",\"type\":\"osd\"},{\"id\":0,\"name\":\"osd.0\",\"type\":\"osd\"}]}",
                ("{\"nodes\":[{\"id\":-1,\"name\":\"a\",\"type\":\"host\",\"children\":[0]},"
                 "{\"id\":-2,\"name\":\"b\",\"type\":\"host\",\"children\":[0]},{\"id\":0,\"name\":\"osd.0\",\"type\":\"osd\"}]}"), /* two parents */
                "{\"nodes\":[{\"id\":-1,\"name\":\"a\",\"type\":\"host\",\"children\":[-1]}]}",     /* own child */
                "{\"nodes\":[{\"id\":0,\"name\":\"osd.0\",\"type\":\"osd\",\"crush_weight\":-1}]}",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                CephOsdDfTree *x = NULL;
                Error e = {};
                CHECK(ceph_osd_df_tree_parse(bad[i], &x, &e) < 0);
                CHECK(x == NULL && e.code != 0 && e.message[0]);
        }
}

static void test_pools_rules_profiles(void) {
        Error err = {};
        _cleanup_(freep) char *ls = fixture_ceph("synthetic-osd-pool-ls-detail-ec.json"), *dump = fixture_ceph("osd-dump.json");
        _cleanup_(ceph_pool_list_freep) CephPoolList *l = NULL;
        CHECK_INTEQ(ceph_pool_list_parse(ls, &l, &err), 0);
        CHECK(l && l->n_pools == 2);
        const CephPool *p = ceph_pool_list_find(l, "ecpool");
        CHECK(p && p->id == 3 && p->type == CEPH_POOL_ERASURE && p->size == 3 && p->min_size == 2 && p->crush_rule == 1);
        CHECK(p && str_eq(p->erasure_code_profile, "ec21") && str_eq(p->pg_autoscale_mode, "off") && p->pg_num == 32);
        p = ceph_pool_list_find(l, "device_health_metrics");
        CHECK(p && p->type == CEPH_POOL_REPLICATED && !p->erasure_code_profile && str_eq(p->pg_autoscale_mode, "on"));
        CHECK(str_eq(ceph_pool_type_to_string(CEPH_POOL_ERASURE), "erasure"));
        l = ceph_pool_list_free(l);

        /* the captured `osd dump` of Pacific carries the same pool objects */
        CHECK_INTEQ(ceph_pool_list_parse(dump, &l, &err), 0);
        CHECK(l && l->n_pools == 2 && l->pools[0].id == 1 && str_eq(l->pools[0].name, "data") && l->pools[0].size == 2);
        CHECK(l && str_eq(l->pools[1].pg_autoscale_mode, "off") && l->pools[1].crush_rule == 0);

        static const char *const bad_pools[] = {
                "{}", "[{\"pool_id\":1}]",
                "[{\"pool_id\":1,\"pool_name\":\"a\",\"type\":3,\"size\":3,\"min_size\":2,\"crush_rule\":0,"
                "\"erasure_code_profile\":\"\"}]", /* erasure without a profile */
                "[{\"pool_id\":1,\"pool_name\":\"a\",\"type\":2,\"size\":3,\"min_size\":2,\"crush_rule\":0}]",
                "[{\"pool_id\":1,\"pool_name\":\"a\",\"type\":1,\"size\":3,\"min_size\":2,\"crush_rule\":-1}]",
                "[{\"pool_id\":1,\"pool_name\":\"a\",\"type\":1,\"size\":3,\"min_size\":2,\"crush_rule\":0},"
                "{\"pool_id\":1,\"pool_name\":\"b\",\"type\":1,\"size\":3,\"min_size\":2,\"crush_rule\":0}]",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad_pools); i++) {
                CephPoolList *x = NULL;
                Error e = {};
                CHECK(ceph_pool_list_parse(bad_pools[i], &x, &e) < 0 && x == NULL && e.message[0]);
        }

        _cleanup_(freep) char *rd = fixture_ceph("synthetic-osd-crush-rule-dump.json");
        _cleanup_(ceph_crush_rules_freep) CephCrushRules *rules = NULL;
        CHECK_INTEQ(ceph_crush_rules_parse(rd, &rules, &err), 0);
        CHECK(rules && rules->n_rules == 3);
        const CephCrushRule *r = ceph_crush_rules_find(rules, 1);
        CHECK(r && str_eq(r->name, "ecpool") && r->type == 3 && r->n_steps == 5);
        CHECK(r && r->steps[0].op == CEPH_CRUSH_OP_OTHER && str_eq(r->steps[0].op_name, "set_chooseleaf_tries"));
        CHECK(r && r->steps[3].op == CEPH_CRUSH_OP_CHOOSELEAF_INDEP && str_eq(r->steps[3].type, "host"));
        CephCrushPlacement pl;
        CHECK_INTEQ(ceph_crush_rule_placement(r, 3, &pl, &err), 0);
        CHECK(str_eq(pl.root, "default") && pl.device_class[0] == 0 && str_eq(pl.failure_domain, "host"));
        CHECK_INTEQ(pl.n_needed, 3);
        r = ceph_crush_rules_find(rules, 2);
        CHECK(r && r->steps[0].op == CEPH_CRUSH_OP_TAKE && r->steps[0].item == -2);
        CHECK_INTEQ(ceph_crush_rule_placement(r, 2, &pl, &err), 0);
        CHECK(str_eq(pl.root, "default") && str_eq(pl.device_class, "hdd") && pl.n_needed == 2 && !pl.several_steps);
        CHECK(ceph_crush_rules_find(rules, 7) == NULL);

        /* num: > 0 that many (at most size), < 0 size minus it; several steps flagged */
        const char *multi = "{\"rule_id\":5,\"rule_name\":\"racks\",\"type\":1,\"steps\":[{\"op\":\"take\",\"item\":-1,"
                            "\"item_name\":\"default\"},{\"op\":\"choose_firstn\",\"num\":2,\"type\":\"rack\"},"
                            "{\"op\":\"chooseleaf_firstn\",\"num\":-1,\"type\":\"host\"},{\"op\":\"emit\"}]}";
        _cleanup_(ceph_crush_rules_freep) CephCrushRules *one = NULL;
        CHECK_INTEQ(ceph_crush_rules_parse(multi, &one, &err), 0);
        CHECK(one && one->n_rules == 1);
        if (one) {
                CHECK_INTEQ(ceph_crush_rule_placement(&one->rules[0], 4, &pl, &err), 0);
                CHECK(pl.several_steps && str_eq(pl.failure_domain, "host") && pl.n_needed == 3);
        }
        Error e = {};
        const char *no_choose = "[{\"rule_id\":0,\"rule_name\":\"odd\",\"steps\":[{\"op\":\"take\",\"item\":-1,"
                                "\"item_name\":\"default\"},{\"op\":\"emit\"}]}]";
        _cleanup_(ceph_crush_rules_freep) CephCrushRules *odd = NULL;
        CHECK_INTEQ(ceph_crush_rules_parse(no_choose, &odd, &err), 0);
        CHECK(odd && ceph_crush_rule_placement(&odd->rules[0], 3, &pl, &e) == -EINVAL && strstr(e.message, "'odd'"));
        static const char *const bad_rules[] = {
                "3", "[{\"rule_id\":0}]", "[{\"rule_id\":0,\"rule_name\":\"a\",\"steps\":[{\"op\":\"take\"}]}]",
                "[{\"rule_id\":0,\"rule_name\":\"a\",\"steps\":[{\"op\":\"chooseleaf_firstn\",\"num\":0}]}]",
                "[{\"rule_id\":0,\"rule_name\":\"a\",\"steps\":[]},{\"rule_id\":0,\"rule_name\":\"b\",\"steps\":[]}]",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad_rules); i++) {
                CephCrushRules *x = NULL;
                Error be = {};
                CHECK(ceph_crush_rules_parse(bad_rules[i], &x, &be) < 0 && x == NULL && be.message[0]);
        }

        _cleanup_(freep) char *ec = fixture_ceph("synthetic-osd-erasure-code-profile-get-ec21.json");
        _cleanup_(ceph_ec_profile_list_freep) CephEcProfileList *profiles = NULL, *fromdump = NULL;
        CHECK_INTEQ(ceph_ec_profile_parse(ec, "ec21", &profiles, &err), 0);
        const CephEcProfile *prof = ceph_ec_profile_list_find(profiles, "ec21");
        CHECK(prof && prof->k == 2 && prof->m == 1 && str_eq(prof->failure_domain, "host") && str_eq(prof->root, "default"));
        CHECK(prof && !prof->device_class && str_eq(prof->plugin, "jerasure"));
        /* the captured default profile names no failure domain: Ceph's default is host */
        CHECK_INTEQ(ceph_ec_profiles_parse_osd_dump(dump, &fromdump, &err), 0);
        prof = ceph_ec_profile_list_find(fromdump, "default");
        CHECK(prof && prof->k == 2 && prof->m == 2 && str_eq(prof->failure_domain, "host") && !prof->root);
        CHECK_INTEQ(ceph_ec_profile_list_merge(&profiles, TAKE_PTR(fromdump)), 0);
        CHECK(profiles && profiles->n_profiles == 2 && ceph_ec_profile_list_find(profiles, "default") &&
              ceph_ec_profile_list_find(profiles, "ec21"));
        static const char *const bad_ec[] = { "{\"k\":\"2\"}", "{\"k\":\"0\",\"m\":\"1\"}", "{\"k\":2,\"m\":1}",
                                              "{\"k\":\"2x\",\"m\":\"1\"}", "{\"k\":\"-2\",\"m\":\"1\"}", "[]" };
        for (size_t i = 0; i < ELEMENTSOF(bad_ec); i++) {
                CephEcProfileList *x = NULL;
                Error be = {};
                CHECK(ceph_ec_profile_parse(bad_ec[i], "p", &x, &be) < 0 && x == NULL && strstr(be.message, "'p'"));
        }

        CephFullRatios fr;
        CHECK_INTEQ(ceph_full_ratios_parse(dump, &fr, &err), 0);
        CHECK(fabs(fr.full - 0.95) < 1e-6 && fabs(fr.backfillfull - 0.90) < 1e-6 && fabs(fr.nearfull - 0.85) < 1e-6);
        error_reset(&e);
        CHECK(ceph_full_ratios_parse("{\"full_ratio\":0.95,\"backfillfull_ratio\":1.5,\"nearfull_ratio\":0.85}", &fr, &e) ==
                      -EINVAL &&
              strstr(e.message, "backfillfull_ratio"));
}

static void test_balancer_perf_recovery(void) {
        Error err = {};
        _cleanup_(freep) char *on = fixture_ceph("synthetic-balancer-status.json"), *off = fixture_ceph("synthetic-balancer-status-off.json");
        CephBalancerStatus b;
        CHECK_INTEQ(ceph_balancer_status_parse(on, &b, &err), 0);
        CHECK(b.active && str_eq(b.mode, "upmap"));
        CHECK_INTEQ(ceph_balancer_status_parse(off, &b, &err), 0);
        CHECK(!b.active && str_eq(b.mode, "crush-compat"));
        Error e = {};
        CHECK(ceph_balancer_status_parse("{\"active\":\"yes\",\"mode\":\"upmap\"}", &b, &e) < 0);

        _cleanup_(freep) char *perf = fixture_ceph("synthetic-osd-perf.json"), *ms = fixture_ceph("synthetic-osd-perf-ms-only.json");
        _cleanup_(ceph_osd_perf_freep) CephOsdPerf *p = NULL;
        CHECK_INTEQ(ceph_osd_perf_parse(perf, &p, &err), 0);
        CHECK(p && p->n_osds == 12 && p->osds[0].id == 0 && p->osds[11].id == 11); /* sorted */
        const CephOsdPerfEntry *x = ceph_osd_perf_find(p, 8);
        CHECK(x && fabs(x->commit_latency_ms - 450.123456) < 1e-9 && fabs(x->apply_latency_ms - 450.123456) < 1e-9);
        p = ceph_osd_perf_free(p);
        CHECK_INTEQ(ceph_osd_perf_parse(ms, &p, &err), 0);
        x = ceph_osd_perf_find(p, 8);
        CHECK(x && x->commit_latency_ms == 450);
        error_reset(&e);
        CHECK(ceph_osd_perf_parse("{\"osdstats\":{\"osd_perf_infos\":[{\"id\":1,\"perf_stats\":{}}]}}", &p, &e) < 0);
        CHECK(strstr(e.message, "osd.1") != NULL);

        /* captured while osd.0 was going out (pg stat and status of the same moment) */
        _cleanup_(freep) char *bf = fixture_ceph("pg-stat-backfill.json"), *st = fixture_ceph("status-backfill.json"),
                             *clean = fixture_ceph("pg-stat-clean.json");
        CephRecovery r1, r2, rc;
        CHECK_INTEQ(ceph_recovery_parse(bf, &r1, &err), 0);
        CHECK(r1.num_pgs == 33 && r1.pgs_not_clean == 14 && r1.degraded_objects == 44 && r1.misplaced_objects == 7);
        CHECK(r1.degraded_total == 704 && r1.recovering_bytes_per_sec == 2129270 && r1.data_bytes == 188219392);
        CHECK_INTEQ(ceph_recovery_parse(st, &r2, &err), 0);
        CHECK(memcmp(&r1, &r2, sizeof r1) == 0);
        CHECK_INTEQ(ceph_recovery_parse(clean, &rc, &err), 0);
        CHECK(rc.pgs_not_clean == 0 && rc.recovering_bytes_per_sec == 0 && rc.misplaced_total == 0);
}

typedef struct Cluster {
        CephOsdDfTree *tree;
        CephPoolList *pools;
        CephCrushRules *rules;
        CephEcProfileList *profiles;
        CephFullRatios ratios;
} Cluster;

static void cluster_done(Cluster *c) {
        ceph_osd_df_tree_free(c->tree);
        ceph_pool_list_free(c->pools);
        ceph_crush_rules_free(c->rules);
        ceph_ec_profile_list_free(c->profiles);
}

/* the inputs of a drain check; ratios from the captured osd dump (0.95/0.90/0.85) */
static Cluster cluster_load(const char *df, const char *pools, bool with_ec_profile) {
        Error err = {};
        Cluster c = {};
        _cleanup_(freep) char *d = fixture_ceph(df), *p = fixture_ceph(pools), *r = fixture_ceph("synthetic-osd-crush-rule-dump.json"),
                             *dump = fixture_ceph("osd-dump.json"), *ec = fixture_ceph("synthetic-osd-erasure-code-profile-get-ec21.json");
        CHECK_INTEQ(ceph_osd_df_tree_parse(d, &c.tree, &err), 0);
        CHECK_INTEQ(ceph_pool_list_parse(p, &c.pools, &err), 0);
        CHECK_INTEQ(ceph_crush_rules_parse(r, &c.rules, &err), 0);
        CHECK_INTEQ(ceph_full_ratios_parse(dump, &c.ratios, &err), 0);
        if (with_ec_profile)
                CHECK_INTEQ(ceph_ec_profile_parse(ec, "ec21", &c.profiles, &err), 0);
        return c;
}

/* the check of these hosts gone at once */
static CephDrainCheck *drain_hosts(const Cluster *c, char * const *hosts) {
        Error err = {};
        CephDrainCheck *d = NULL;
        CHECK_INTEQ(ceph_drain_check(c->tree, c->pools, c->rules, c->profiles, &c->ratios, hosts, &d, &err), 0);
        if (err.code)
                fprintf(stderr, "drain check: %s\n", err.message);
        return d;
}

static CephDrainCheck *drain(const Cluster *c, const char *host) {
        return drain_hosts(c, (char * const[]) { (char *) host, NULL });
}

static const CephDrainDest *dest(const CephDrainCheck *d, int id) {
        for (size_t i = 0; d && i < d->n_dests; i++)
                if (d->dests[i].id == id)
                        return &d->dests[i];
        return NULL;
}

static void test_drain_check(void) {
        /* 4 hosts × 3 OSDs of 100 GiB holding 30 GiB each; size-3 pools on host */
        Cluster c = cluster_load("synthetic-osd-df-tree-4hosts.json", "synthetic-osd-pool-ls-detail.json", false);
        _cleanup_(ceph_drain_check_freep) CephDrainCheck *d = drain(&c, "node4");
        CHECK(d && d->ok && strv_length(d->reasons) == 0);
        if (d) {
                CHECK(d->n_osds == 3 && d->osds[0] == 9 && d->osds[2] == 11 && d->n_osds_out == 0);
                CHECK(d->bytes_to_move == 90 * GiB_KB * 1024);
                CHECK_INTEQ(d->n_dests, 9);
                for (size_t i = 0; i < d->n_dests; i++) {
                        CHECK(d->dests[i].kb_incoming == 10 * GiB_KB); /* 90 GiB over 9 equal OSDs */
                        CHECK(fabs(d->dests[i].util_after - 0.41) < 1e-9 && !d->dests[i].over_backfillfull);
                }
                CHECK(dest(d, 9) == NULL && dest(d, 0) && str_eq(dest(d, 0)->host, "node1"));
                CHECK(d->n_pools == 2 && d->pools[1].left == 3 && d->pools[1].needed == 3 && d->pools[1].ok);
                CHECK(str_eq(d->pools[1].failure_domain, "host") && str_eq(d->pools[1].rule, "replicated_rule"));
        }
        _cleanup_(freep) char *text = ceph_drain_check_format(d);
        CHECK(text && startswith(text, "drain node4: 90 GiB to move from osd.9 osd.10 osd.11 to 9 OSDs\n"));
        CHECK(text && strstr(text, "fullest afterwards: osd.0 (node1) 41.0 % (now 31.0 %, backfillfull 90 %)"));
        CHECK(text && strstr(text, "pool rbd: 3 of 3 host domains left under rule replicated_rule\n"));
        _cleanup_json_ json_object *j = ceph_drain_check_to_json(d);
        json_object *v;
        CHECK(j && json_object_object_get_ex(j, "ok", &v) && json_object_get_boolean(v));
        CHECK(j && json_object_object_get_ex(j, "bytes_to_move", &v) && json_object_get_int64(v) == 96636764160LL);
        CHECK(j && json_object_object_get_ex(j, "destinations", &v) && json_object_array_length(v) == 9);

        /* an absent host is an error naming it, not a refusal */
        Error e = {};
        CephDrainCheck *none = NULL;
        CHECK(ceph_drain_check(c.tree, c.pools, c.rules, NULL, &c.ratios, (char * const[]) { (char *) "node9", NULL }, &none, &e) == -ENOENT);
        {
                /* what the controller uses for a host without a bucket (destroyed already) */
                _cleanup_(ceph_drain_check_freep) CephDrainCheck *nb = ceph_drain_check_no_bucket((char * const[]) { (char *) "node9", NULL });
                CHECK(nb && nb->ok && nb->n_osds == 0 && nb->n_pools == 0 && nb->bytes_to_move == 0);
                CHECK(nb && nb->warnings[0] && strstr(nb->warnings[0], "no host bucket") && !nb->reasons[0]);
                _cleanup_(freep) char *t = nb ? ceph_drain_check_format(nb) : NULL;
                CHECK(t && strstr(t, "node9"));
                _cleanup_json_ json_object *nj = nb ? ceph_drain_check_to_json(nb) : NULL;
                CHECK(nj != NULL);
        }
        CHECK(none == NULL && strstr(e.message, "'node9'"));
        error_reset(&e);
        CHECK(ceph_drain_check(c.tree, c.pools, c.rules, NULL, &c.ratios, (char * const[]) { (char *) "osd.3", NULL }, &none, &e) == -ENOENT);
        cluster_done(&c);

        /* one OSD near full: refused, naming it, its projection and the ratio */
        c = cluster_load("synthetic-osd-df-tree-4hosts-nearfull.json", "synthetic-osd-pool-ls-detail.json", false);
        d = ceph_drain_check_free(d);
        d = drain(&c, "node4");
        CHECK(d && !d->ok && strv_length(d->reasons) == 1);
        if (d && d->reasons[0])
                CHECK_STREQ(d->reasons[0], "osd.5 (node2) would be 91.0 % full after the drain (now 81.0 %), past the "
                                           "backfillfull ratio 90 %");
        CHECK(dest(d, 5) && dest(d, 5)->over_backfillfull && dest(d, 4) && !dest(d, 4)->over_backfillfull);
        /* the cluster as a whole has room: only the per-OSD projection refuses */
        CHECK(c.tree && c.tree->total_kb_used + 0 < (uint64_t) (0.9 * (double) c.tree->total_kb));
        cluster_done(&c);

        /* uneven weights: the 200 GiB OSDs of node1 take twice the share */
        c = cluster_load("synthetic-osd-df-tree-4hosts-uneven.json", "synthetic-osd-pool-ls-detail.json", false);
        d = ceph_drain_check_free(d);
        d = drain(&c, "node4");
        CHECK(d && d->ok);
        CHECK(dest(d, 0) && dest(d, 0)->kb_incoming == 15 * GiB_KB);
        CHECK(dest(d, 3) && dest(d, 3)->kb_incoming == 15 * GiB_KB / 2);
        CHECK(dest(d, 0) && fabs(dest(d, 0)->util_after - (31.0 + 15.0) / 200) < 1e-9);
        cluster_done(&c);

        /* an OSD already out on the host moves nothing more; one out elsewhere takes nothing */
        c = cluster_load("synthetic-osd-df-tree-4hosts-out.json", "synthetic-osd-pool-ls-detail.json", false);
        d = ceph_drain_check_free(d);
        d = drain(&c, "node4");
        CHECK(d && d->ok && d->n_osds == 3 && d->n_osds_out == 1 && d->osds_out[0] == 11);
        CHECK(d && d->bytes_to_move == 60 * GiB_KB * 1024 && d->n_dests == 8);
        CHECK(dest(d, 2) == NULL && dest(d, 11) == NULL);
        CHECK(dest(d, 0) && dest(d, 0)->kb_incoming == 15 * GiB_KB / 2);
        _cleanup_(freep) char *text_out = ceph_drain_check_format(d);
        CHECK(text_out && strstr(text_out, "osd.9 osd.10 osd.11 (already out: osd.11) to 8 OSDs"));
        cluster_done(&c);

        /* out but still holding PGs: its data is on the move and counted */
        c = cluster_load("synthetic-osd-df-tree-4hosts-moving.json", "synthetic-osd-pool-ls-detail.json", false);
        d = ceph_drain_check_free(d);
        d = drain(&c, "node4");
        CHECK(d && d->ok && d->n_osds_out == 0 && d->bytes_to_move == 90 * GiB_KB * 1024);
        CHECK(d && strv_contains(d->warnings, "osd.11 is out but still holds 12 PGs: its data is counted as still to move"));
        cluster_done(&c);

        /* a down OSD of the host reports no statistics: estimated from the cluster's fill
         * per CRUSH weight (30 GiB per 100 GiB OSD here), not taken as empty */
        c = cluster_load("synthetic-osd-df-tree-4hosts-down.json", "synthetic-osd-pool-ls-detail.json", false);
        d = ceph_drain_check_free(d);
        d = drain(&c, "node4");
        CHECK(d && d->ok && d->bytes_to_move == 90 * GiB_KB * 1024 && d->n_dests == 9);
        CHECK(d && strv_contains(d->warnings, "osd.10 reports no statistics (down): its data is estimated at 30 GiB "
                                              "from the cluster's fill per CRUSH weight"));
        cluster_done(&c);

        /* 3 hosts: a size-3 pool would be left on 2 */
        c = cluster_load("synthetic-osd-df-tree-3hosts.json", "synthetic-osd-pool-ls-detail.json", false);
        d = ceph_drain_check_free(d);
        d = drain(&c, "node3");
        CHECK(d && !d->ok && strv_length(d->reasons) == 2);
        CHECK(d && strv_contains(d->reasons, "pool 'rbd' (replicated, size 3) needs 3 hosts under rule "
                                             "'replicated_rule'; 2 would be left without node3"));
        CHECK(d && d->n_pools == 2 && !d->pools[1].ok && d->pools[1].left == 2);
        /* the space would do: 90 GiB over 6 OSDs */
        CHECK(dest(d, 0) && dest(d, 0)->kb_incoming == 15 * GiB_KB && !dest(d, 0)->over_backfillfull);
        ceph_pool_list_free(c.pools);
        c.pools = NULL;
        /* size 2 (the captured pools) on 2 hosts is fine */
        _cleanup_(freep) char *dump = fixture_ceph("osd-dump.json");
        Error err = {};
        CHECK_INTEQ(ceph_pool_list_parse(dump, &c.pools, &err), 0);
        d = ceph_drain_check_free(d);
        d = drain(&c, "node3");
        CHECK(d && d->ok && d->pools[0].left == 2 && d->pools[0].needed == 2);
        cluster_done(&c);

        /* EC 2+1 on 3 hosts: refused; on 4: fine; without the profile: refused */
        c = cluster_load("synthetic-osd-df-tree-3hosts.json", "synthetic-osd-pool-ls-detail-ec.json", true);
        d = ceph_drain_check_free(d);
        d = drain(&c, "node3");
        CHECK(d && !d->ok && strv_length(d->reasons) == 1);
        if (d && d->reasons[0])
                CHECK_STREQ(d->reasons[0], "pool 'ecpool' (erasure 2+1) needs 3 hosts under rule 'ecpool'; 2 would be "
                                           "left without node3");
        cluster_done(&c);
        c = cluster_load("synthetic-osd-df-tree-4hosts.json", "synthetic-osd-pool-ls-detail-ec.json", true);
        d = ceph_drain_check_free(d);
        d = drain(&c, "node4");
        CHECK(d && d->ok && d->pools[1].type == CEPH_POOL_ERASURE && d->pools[1].needed == 3 && d->pools[1].left == 3);
        ceph_ec_profile_list_free(c.profiles);
        c.profiles = NULL;
        d = ceph_drain_check_free(d);
        d = drain(&c, "node4");
        CHECK(d && !d->ok && strv_has_prefix(d->reasons, "pool 'ecpool' uses erasure-code profile 'ec21', which was "
                                                         "not read"));
        cluster_done(&c);

        /* a device-class rule: placement under default~hdd */
        c = cluster_load("synthetic-osd-df-tree-4hosts.json", "synthetic-osd-pool-ls-detail-hdd.json", false);
        d = ceph_drain_check_free(d);
        d = drain(&c, "node1");
        CHECK(d && d->ok && d->n_dests == 9 && d->pools[0].needed == 2 && d->pools[0].left == 3);
        CHECK(d && str_eq(d->pools[0].rule, "replicated_hdd"));
        cluster_done(&c);
}

/* Several hosts drained together (issue 26): their data off at once, each alone fine */
static void test_drain_check_together(void) {
        char *both[] = { (char *) "node3", (char *) "node4", NULL };

        /* redundancy: size-3 pools on 4 hosts lose one host fine, two not */
        Cluster c = cluster_load("synthetic-osd-df-tree-4hosts.json", "synthetic-osd-pool-ls-detail.json", false);
        _cleanup_(ceph_drain_check_freep) CephDrainCheck *d3 = drain(&c, "node3"), *d4 = drain(&c, "node4"),
                                                          *d = drain_hosts(&c, both);
        CHECK(d3 && d3->ok && d4 && d4->ok);
        CHECK(d && !d->ok && strv_length(d->hosts) == 2 && str_eq(d->names, "node3 and node4"));
        CHECK(d && d->n_osds == 6 && d->osds[0] == 6 && d->osds[5] == 11 && d->n_dests == 6);
        CHECK(d && d->bytes_to_move == 180 * GiB_KB * 1024);
        CHECK(d && d->n_pools == 2 && d->pools[1].left == 2 && d->pools[1].needed == 3 && !d->pools[1].ok);
        CHECK(d && strv_contains(d->reasons, "pool 'rbd' (replicated, size 3) needs 3 hosts under rule "
                                             "'replicated_rule'; 2 would be left without node3 and node4"));
        _cleanup_(freep) char *text = ceph_drain_check_format(d);
        CHECK(text && startswith(text, "drain node3 and node4 together: 180 GiB to move from osd.6 osd.7 osd.8 "
                                       "osd.9 osd.10 osd.11 to 6 OSDs\n"));
        _cleanup_json_ json_object *j = ceph_drain_check_to_json(d);
        json_object *v;
        CHECK(j && json_object_object_get_ex(j, "hosts", &v) && json_object_array_length(v) == 2);
        cluster_done(&c);

        /* capacity: each alone leaves osd.5 at 69 %, both together push it to 96 % */
        c = cluster_load("synthetic-osd-df-tree-4hosts-together.json", "synthetic-osd-pool-ls-detail-hdd.json", false);
        d3 = ceph_drain_check_free(d3), d4 = ceph_drain_check_free(d4), d = ceph_drain_check_free(d);
        d3 = drain(&c, "node3"), d4 = drain(&c, "node4"), d = drain_hosts(&c, both);
        CHECK(d3 && d3->ok && d4 && d4->ok);
        CHECK(d4 && dest(d4, 5) && fabs(dest(d4, 5)->util_after - (56.0 + 120.0 / 9) / 100) < 1e-6);
        CHECK(d && !d->ok && d->pools[0].ok && strv_length(d->reasons) == 1);
        if (d && d->reasons[0])
                CHECK_STREQ(d->reasons[0], "osd.5 (node2) would be 96.0 % full after the drain of node3 and node4 "
                                           "(now 56.0 %), past the backfillfull ratio 90 %");
        CHECK(d && dest(d, 4) && !dest(d, 4)->over_backfillfull && fabs(dest(d, 4)->util_after - 0.81) < 1e-6);

        /* a host that is no bucket among them: an error naming it */
        Error e = {};
        CephDrainCheck *none = NULL;
        CHECK(ceph_drain_check(c.tree, c.pools, c.rules, NULL, &c.ratios,
                               (char * const[]) { (char *) "node3", (char *) "node9", NULL }, &none, &e) == -ENOENT);
        CHECK(none == NULL && strstr(e.message, "'node9'"));
        cluster_done(&c);

        /* hosts without a bucket: nothing to move, a warning for each */
        _cleanup_(ceph_drain_check_freep) CephDrainCheck *nb =
                ceph_drain_check_no_bucket((char * const[]) { (char *) "node8", (char *) "node9", NULL });
        CHECK(nb && nb->ok && strv_length(nb->warnings) == 2 && strstr(nb->warnings[1], "'node9'"));
}

static void test_drain_progress(void) {
        Error err = {};
        _cleanup_(freep) char *bf = fixture_ceph("pg-stat-backfill.json"), *clean = fixture_ceph("pg-stat-clean.json");
        CephRecovery now, done;
        CHECK_INTEQ(ceph_recovery_parse(bf, &now, &err), 0); /* 44 degraded + 7 misplaced, 14 PGs */
        CHECK_INTEQ(ceph_recovery_parse(clean, &done, &err), 0);
        CephRecovery start = { .misplaced_objects = 100, .degraded_objects = 2 };
        CephRecovery prev = { .misplaced_objects = 50, .degraded_objects = 11 };
        CephDrainProgress p;
        ceph_drain_progress(&start, &prev, &now, 10, 1000, &p);
        CHECK(p.objects_left == 51 && p.pgs_left == 14 && !p.done);
        CHECK(fabs(p.objects_per_sec - 1.0) < 1e-9 && fabs(p.eta_sec - 51) < 1e-9);
        CHECK(fabs(p.fraction_done - 0.5) < 1e-9 && p.bytes_left == 500 && p.bytes_per_sec == 2129270);
        _cleanup_(freep) char *s = ceph_drain_progress_format(&p);
        CHECK_STREQ(s, "14 PGs, 51 objects left (500 B), 2.0 MiB/s, 50 % done, ETA 0m51s");

        /* no earlier sample, no object rate from the cluster (Pacific printed 0): by bytes */
        ceph_drain_progress(&start, NULL, &now, 0, 1000, &p);
        CHECK(p.objects_per_sec == 0 && p.eta_sec > 0 && fabs(p.eta_sec - 500.0 / 2129270) < 1e-12);
        /* nothing moved between the samples: the cluster's own object rate */
        now.recovering_objects_per_sec = 3;
        ceph_drain_progress(NULL, &now, &now, 5, 0, &p);
        CHECK(p.objects_per_sec == 3 && fabs(p.eta_sec - 17) < 1e-9 && p.bytes_left == 0 && p.fraction_done == 0);
        /* nothing at all known: ETA unknown */
        now.recovering_objects_per_sec = 0;
        now.recovering_bytes_per_sec = 0;
        ceph_drain_progress(NULL, NULL, &now, 0, 0, &p);
        CHECK(p.eta_sec < 0);
        _cleanup_(freep) char *unknown = ceph_drain_progress_format(&p);
        CHECK(unknown && endswith(unknown, "ETA unknown"));

        ceph_drain_progress(&start, &now, &done, 10, 1000, &p);
        CHECK(p.done && p.objects_left == 0 && p.pgs_left == 0 && p.eta_sec == 0 && p.fraction_done == 1);
        _cleanup_(freep) char *d = ceph_drain_progress_format(&p);
        CHECK_STREQ(d, "done: every PG active+clean");
}

static void check_ops(const CephConfigOp *ops, size_t n, const char *expected) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%s%s %s %s", i ? "; " : "", ops[i].who, ops[i].key, ops[i].value ? ops[i].value : "(rm)");
        fclose(f);
        CHECK_STREQ(buf, expected);
        free(buf);
}

/* A mixed cluster on an mClock release: FileStore OSDs and those whose osd_op_queue is wpq
 * run wpq; a profile-only plan gets their preset limits per OSD, restored per OSD. */
static void test_throttle_mixed(void) {
        Error err = {};
        char o0[] = "bluestore", o1[] = "filestore";
        CephOsdMetadata ms[] = { { .id = 0, .objectstore = o0 }, { .id = 1, .objectstore = o1 },
                                 { .id = 2, .objectstore = o0 }, { .id = 3, .objectstore = o0 } };
        CephOsdMetadataList meta = { .osds = ms, .n_osds = 4 };
        _cleanup_(ceph_config_dump_freep) CephConfigDump *before = NULL;
        CHECK_INTEQ(ceph_config_dump_parse(
                            "[{\"section\":\"osd.2\",\"name\":\"osd_op_queue\",\"value\":\"wpq\",\"mask\":\"\"},"
                            "{\"section\":\"osd.1\",\"name\":\"osd_max_backfills\",\"value\":\"2\",\"mask\":\"\"}]",
                            &before, &err),
                    0);
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        CHECK_INTEQ(ceph_wpq_osds(CEPH_RELEASE_REEF, before, &meta, &ids, &n), 0);
        CHECK(n == 2 && ids && ids[0] == 1 && ids[1] == 2);
        /* Pacific: every OSD runs wpq (its default) */
        free(ids);
        ids = NULL;
        CHECK_INTEQ(ceph_wpq_osds(CEPH_RELEASE_PACIFIC, before, &meta, &ids, &n), 0);
        CHECK_INTEQ((int) n, 4);
        /* Reef, all BlueStore and no wpq entry: none */
        free(ids);
        ids = NULL;
        CephOsdMetadata bs[] = { { .id = 0, .objectstore = o0 }, { .id = 5, .objectstore = o0 } };
        CephOsdMetadataList allbs = { .osds = bs, .n_osds = 2 };
        CHECK_INTEQ(ceph_wpq_osds(CEPH_RELEASE_REEF, NULL, &allbs, &ids, &n), 0);
        CHECK(n == 0 && ids == NULL);

        CHECK_INTEQ(ceph_wpq_osds(CEPH_RELEASE_REEF, before, &meta, &ids, &n), 0);
        _cleanup_(ceph_throttle_plan_freep) CephThrottlePlan *plan = NULL;
        CHECK_INTEQ(ceph_throttle_plan(CEPH_THROTTLE_SLOW, CEPH_SCHEDULER_MCLOCK, false, before, &plan, &err), 0);
        if (!plan || n != 2)
                return;
        CHECK_INTEQ(ceph_throttle_plan_add_wpq_osds(plan, ids, n, before), 0);
        check_ops(plan->apply, plan->n_apply,
                  "osd osd_mclock_profile high_client_ops; osd.1 osd_max_backfills 1; osd.1 osd_recovery_max_active 1; "
                  "osd.1 osd_recovery_max_single_start 1; osd.2 osd_max_backfills 1; osd.2 osd_recovery_max_active 1; "
                  "osd.2 osd_recovery_max_single_start 1");
        /* restored in reverse; osd.1's own osd_max_backfills 2 comes back, the rest removed */
        check_ops(plan->restore, plan->n_restore,
                  "osd.2 osd_recovery_max_single_start (rm); osd.2 osd_recovery_max_active (rm); osd.2 osd_max_backfills (rm); "
                  "osd.1 osd_recovery_max_single_start (rm); osd.1 osd_recovery_max_active (rm); osd.1 osd_max_backfills 2; "
                  "osd osd_mclock_profile (rm)");
        /* the record round-trips */
        _cleanup_(freep) char *rec = ceph_throttle_restore_format(plan);
        CephConfigOp *back = NULL;
        size_t n_back = 0;
        CHECK_INTEQ(ceph_throttle_restore_parse(rec, &back, &n_back, &err), 0);
        CHECK_INTEQ((int) n_back, 7);
        ceph_config_ops_free(back, n_back);
}

static void test_throttle(void) {
        Error err = {};
        CephConfigOp *ops = NULL;
        size_t n = 0;
        CHECK_INTEQ(ceph_throttle_settings(CEPH_THROTTLE_FAST, CEPH_SCHEDULER_WPQ, false, &ops, &n, &err), 0);
        check_ops(ops, n, "osd osd_max_backfills 4; osd osd_recovery_max_active 4; osd osd_recovery_max_single_start 4");
        ceph_config_ops_free(ops, n);
        CHECK_INTEQ(ceph_throttle_settings(CEPH_THROTTLE_SLOW, CEPH_SCHEDULER_WPQ, false, &ops, &n, &err), 0);
        check_ops(ops, n, "osd osd_max_backfills 1; osd osd_recovery_max_active 1; osd osd_recovery_max_single_start 1");
        ceph_config_ops_free(ops, n);
        CHECK_INTEQ(ceph_throttle_settings(CEPH_THROTTLE_DEFAULT, CEPH_SCHEDULER_WPQ, false, &ops, &n, &err), 0);
        check_ops(ops, n, "osd osd_max_backfills 1; osd osd_recovery_max_active 3; osd osd_recovery_max_single_start 1");
        ceph_config_ops_free(ops, n);
        /* mClock: the profile alone; with explicit limits, the limits only after the override */
        CHECK_INTEQ(ceph_throttle_settings(CEPH_THROTTLE_FAST, CEPH_SCHEDULER_MCLOCK, false, &ops, &n, &err), 0);
        check_ops(ops, n, "osd osd_mclock_profile high_recovery_ops");
        ceph_config_ops_free(ops, n);
        CHECK_INTEQ(ceph_throttle_settings(CEPH_THROTTLE_FAST, CEPH_SCHEDULER_MCLOCK, true, &ops, &n, &err), 0);
        check_ops(ops, n,
                  "osd osd_mclock_profile high_recovery_ops; osd osd_mclock_override_recovery_settings true; "
                  "osd osd_max_backfills 4; osd osd_recovery_max_active 4; osd osd_recovery_max_single_start 4");
        ceph_config_ops_free(ops, n);
        CHECK_INTEQ(ceph_throttle_settings(CEPH_THROTTLE_SLOW, CEPH_SCHEDULER_MCLOCK, false, &ops, &n, &err), 0);
        check_ops(ops, n, "osd osd_mclock_profile high_client_ops");
        ceph_config_ops_free(ops, n);
        CHECK_INTEQ(ceph_throttle_settings(CEPH_THROTTLE_SLOW, CEPH_SCHEDULER_MCLOCK, true, &ops, &n, &err), 0);
        CHECK(n == 5 && str_eq(ops[0].value, "high_client_ops") && str_eq(ops[2].value, "1"));
        ceph_config_ops_free(ops, n);
        /* wpq: explicit limits change nothing of the preset's keys */
        CHECK_INTEQ(ceph_throttle_settings(CEPH_THROTTLE_SLOW, CEPH_SCHEDULER_WPQ, true, &ops, &n, &err), 0);
        check_ops(ops, n, "osd osd_max_backfills 1; osd osd_recovery_max_active 1; osd osd_recovery_max_single_start 1");
        ceph_config_ops_free(ops, n);
        CHECK_INTEQ(ceph_throttle_settings(CEPH_THROTTLE_DEFAULT, CEPH_SCHEDULER_MCLOCK, false, &ops, &n, &err), 0);
        check_ops(ops, n, "osd osd_mclock_profile balanced");
        ceph_config_ops_free(ops, n);
        Error e = {};
        CHECK(ceph_throttle_settings((CephThrottlePreset) 7, CEPH_SCHEDULER_WPQ, false, &ops, &n, &e) == -EINVAL);

        CHECK(ceph_scheduler_for(CEPH_RELEASE_PACIFIC, NULL) == CEPH_SCHEDULER_WPQ);
        CHECK(ceph_scheduler_for(CEPH_RELEASE_REEF, NULL) == CEPH_SCHEDULER_MCLOCK);
        CHECK(ceph_scheduler_for(CEPH_RELEASE_REEF, "wpq") == CEPH_SCHEDULER_WPQ);
        CHECK(ceph_scheduler_for(CEPH_RELEASE_PACIFIC, "mclock_scheduler") == CEPH_SCHEDULER_MCLOCK);
        CephVersion tentacle;
        CHECK_INTEQ(ceph_version_parse("ceph version 20.2.4 (abc) tentacle (stable)", &tentacle, &err), 0);
        CHECK(ceph_scheduler_for(tentacle.release, NULL) == CEPH_SCHEDULER_MCLOCK);
        /* the captured osd_op_queue of Pacific */
        _cleanup_(freep) char *q = fixture_ceph("config-get-osd-op-queue.json"), *qv = NULL;
        CHECK_INTEQ(ceph_config_value_parse(q, &qv, &err), 0);
        CHECK(ceph_scheduler_for(CEPH_RELEASE_UNKNOWN, qv) == CEPH_SCHEDULER_WPQ);

        CephThrottlePreset pr;
        CHECK(ceph_throttle_preset_from_string("fast", &pr, &err) == 0 && pr == CEPH_THROTTLE_FAST);
        error_reset(&e);
        CHECK(ceph_throttle_preset_from_string("ludicrous", &pr, &e) == -EINVAL && strstr(e.message, "'ludicrous'"));
        CHECK(str_eq(ceph_throttle_preset_to_string(CEPH_THROTTLE_DEFAULT), "default"));
        const char *const *keys = ceph_throttle_keys(CEPH_THROTTLE_DEFAULT, CEPH_SCHEDULER_MCLOCK, false);
        CHECK(keys && str_eq(keys[0], "osd_mclock_profile") && !keys[1]);

        /* restore from the captured config dump: osd_max_backfills 1 was set, the rest absent */
        _cleanup_(freep) char *cd = fixture_ceph("config-dump.json");
        _cleanup_(ceph_config_dump_freep) CephConfigDump *before = NULL;
        CHECK_INTEQ(ceph_config_dump_parse(cd, &before, &err), 0);
        _cleanup_(ceph_throttle_plan_freep) CephThrottlePlan *plan = NULL;
        CHECK_INTEQ(ceph_throttle_plan(CEPH_THROTTLE_FAST, CEPH_SCHEDULER_WPQ, false, before, &plan, &err), 0);
        if (!plan)
                return;
        check_ops(plan->restore, plan->n_restore,
                  "osd osd_recovery_max_single_start (rm); osd osd_recovery_max_active (rm); osd osd_max_backfills 1");
        CHECK_INTEQ(strv_length(plan->warnings), 0);
        _cleanup_(freep) char *rec = ceph_throttle_restore_format(plan);
        /* each entry: the value before and what the preset writes there */
        CHECK_STREQ(rec, "{\"preset\":\"fast\",\"scheduler\":\"wpq\",\"restore\":[{\"who\":\"osd\",\"key\":"
                         "\"osd_recovery_max_single_start\",\"value\":null,\"wrote\":[\"4\"]},{\"who\":\"osd\",\"key\":"
                         "\"osd_recovery_max_active\",\"value\":null,\"wrote\":[\"4\"]},{\"who\":\"osd\",\"key\":"
                         "\"osd_max_backfills\",\"value\":\"1\",\"wrote\":[\"4\"]}]}");
        CephConfigOp *back = NULL;
        size_t n_back = 0;
        CHECK_INTEQ(ceph_throttle_restore_parse(rec, &back, &n_back, &err), 0);
        check_ops(back, n_back,
                  "osd osd_recovery_max_single_start (rm); osd osd_recovery_max_active (rm); osd osd_max_backfills 1");
        ceph_config_ops_free(back, n_back);
        static const char *const bad_rec[] = {
                "{}", "{\"restore\":[{\"who\":\"osd\",\"key\":\"k\"}]}",
                "{\"restore\":[{\"who\":\"osd\",\"key\":\"k\",\"value\":3}]}",
                "{\"restore\":[{\"who\":\"osd\",\"key\":\"--yes\",\"value\":null}]}",
                "{\"restore\":[{\"who\":\"osd\",\"key\":\"k\",\"value\":\"-1\"}]}",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad_rec); i++) {
                Error be = {};
                back = NULL;
                CHECK(ceph_throttle_restore_parse(bad_rec[i], &back, &n_back, &be) < 0 && back == NULL && be.message[0]);
        }

        /* mClock, with entries more specific than "osd" that the preset cannot override */
        _cleanup_(freep) char *ov = fixture_ceph("synthetic-config-dump-overrides.json");
        _cleanup_(ceph_config_dump_freep) CephConfigDump *before2 = NULL;
        CHECK_INTEQ(ceph_config_dump_parse(ov, &before2, &err), 0);
        plan = ceph_throttle_plan_free(plan);
        CHECK_INTEQ(ceph_throttle_plan(CEPH_THROTTLE_FAST, CEPH_SCHEDULER_MCLOCK, true, before2, &plan, &err), 0);
        if (!plan)
                return;
        check_ops(plan->restore, plan->n_restore,
                  "osd osd_recovery_max_single_start (rm); osd osd_recovery_max_active (rm); osd osd_max_backfills 2; "
                  "osd osd_mclock_override_recovery_settings (rm); osd osd_mclock_profile high_client_ops");
        CHECK_INTEQ(strv_length(plan->warnings), 2);
        CHECK(strv_contains(plan->warnings, "osd.3 has its own osd_max_backfills = 6, which the preset does not change"));
        CHECK(strv_contains(plan->warnings,
                            "osd/class:ssd has its own osd_recovery_max_active = 8, which the preset does not change"));
        error_reset(&e);
        CHECK(ceph_throttle_plan(CEPH_THROTTLE_FAST, CEPH_SCHEDULER_WPQ, false, NULL, &plan, &e) == -EINVAL);
}

typedef struct Slow {
        CephHealth *health;
        CephOsdPerf *perf;
        CephOsdTree *tree;
        CephSlowReport *report;
        char *sentence;
} Slow;

static Slow slow_run(const char *health, const char *perf, const CephSlowOptions *opts) {
        Error err = {};
        Slow s = {};
        _cleanup_(freep) char *h = fixture_ceph(health), *p = perf ? fixture_ceph(perf) : NULL, *t = fixture_ceph("osd-tree.json");
        CHECK_INTEQ(ceph_health_parse(h, &s.health, &err), 0);
        if (perf)
                CHECK_INTEQ(ceph_osd_perf_parse(p, &s.perf, &err), 0);
        CHECK_INTEQ(ceph_osd_tree_parse(t, &s.tree, &err), 0);
        CHECK_INTEQ(ceph_slow_report(s.health, s.perf, s.tree, opts, &s.report, &err), 0);
        s.sentence = ceph_slow_report_sentence(s.report);
        return s;
}

static void slow_done(Slow *s) {
        ceph_health_free(s->health);
        ceph_osd_perf_free(s->perf);
        ceph_osd_tree_free(s->tree);
        ceph_slow_report_free(s->report);
        free(s->sentence);
}

static void test_slow(void) {
        /* the captured osd tree: node1 0 2 7 10 11, node2 3 4 5, node3 1 6 8 9 */
        Slow s = slow_run("synthetic-health-detail-slow-ops.json", NULL, NULL);
        CHECK_STREQ(s.sentence, "slow ops on osd.1 and osd.9, both on host node3");
        CHECK(s.report && s.report->n_slow_ops == 23 && s.report->oldest_blocked_sec == 67 && !s.report->truncated);
        CHECK(s.report && str_eq(s.report->standout, "node3") && s.report->n_osds == 2 && s.report->osds[0].slow_ops);
        CHECK(s.report && s.report->osds[0].commit_ms < 0); /* no osd perf given */
        slow_done(&s);

        /* with latencies: node3's median stands out too */
        s = slow_run("synthetic-health-detail-slow-ops.json", "synthetic-osd-perf.json", NULL);
        CHECK_STREQ(s.sentence, "slow ops on osd.1 and osd.9, both on host node3; median commit latency 405 ms against "
                                "3 ms on the other hosts");
        CHECK(s.report && s.report->osds[1].id == 9 && fabs(s.report->osds[1].commit_ms - 397.123456) < 1e-9);
        _cleanup_json_ json_object *j = s.report ? ceph_slow_report_to_json(s.report) : NULL;
        json_object *v;
        CHECK(j && json_object_object_get_ex(j, "standout_host", &v) && str_eq(json_object_get_string(v), "node3"));
        CHECK(j && json_object_object_get_ex(j, "osds", &v) && json_object_array_length(v) == 2);
        CHECK(j && json_object_object_get_ex(j, "hosts", &v) && json_object_array_length(v) == 3);
        slow_done(&s);

        /* one OSD: "osd.3 has slow ops" */
        s = slow_run("synthetic-health-detail-slow-ops-one.json", NULL, NULL);
        CHECK_STREQ(s.sentence, "slow ops on osd.3, on host node2");
        CHECK(s.report && s.report->n_slow_ops == 4 && str_eq(s.report->standout, "node2"));
        slow_done(&s);

        /* spread over hosts, a mon among them, more than 10: no host by slow ops, node3 by latency */
        s = slow_run("synthetic-health-detail-slow-ops-spread.json", "synthetic-osd-perf.json", NULL);
        CHECK_STREQ(s.sentence, "slow ops on osd.0 (node1), osd.1 (node3), osd.2 (node1), osd.3 (node2), osd.4 (node2), "
                                "osd.5 (node2), osd.6 (node3), osd.10 (node1) and osd.11 (node1) (and more: SLOW_OPS "
                                "names the first 10); also mon.admin; host node3 stands out: median commit latency 405 "
                                "ms against 3 ms on the other hosts");
        CHECK(s.report && s.report->truncated && strv_length(s.report->other_daemons) == 1);
        slow_done(&s);
        /* the same without latencies: nothing stands out */
        s = slow_run("synthetic-health-detail-slow-ops-spread.json", NULL, NULL);
        CHECK(s.report && !s.report->standout && s.sentence && !strstr(s.sentence, "stands out"));
        slow_done(&s);
        /* a higher bar: 405 ms is not 200 × 3 ms */
        CephSlowOptions strict = { .factor = 200, .floor_ms = 20 };
        s = slow_run("synthetic-health-detail-slow-ops-spread.json", "synthetic-osd-perf.json", &strict);
        CHECK(s.report && !s.report->standout);
        slow_done(&s);

        /* BlueStore's own alert (Squid+) names OSDs in detail lines */
        s = slow_run("synthetic-health-detail-bluestore-slow.json", NULL, NULL);
        CHECK_STREQ(s.sentence, "slow ops on osd.6 and osd.8, both on host node3");
        CHECK(s.report && s.report->osds[0].bluestore_slow && !s.report->osds[0].slow_ops);
        slow_done(&s);

        /* healthy: no slow ops; a latency outlier is still named */
        s = slow_run("health-detail-ok.json", NULL, NULL);
        CHECK_STREQ(s.sentence, "no slow ops");
        CHECK(s.report && !s.report->standout && s.report->n_hosts == 3);
        slow_done(&s);
        s = slow_run("health-detail-ok.json", "synthetic-osd-perf.json", NULL);
        CHECK_STREQ(s.sentence, "no slow ops; host node3 stands out: median commit latency 405 ms against 3 ms on the "
                                "other hosts");
        slow_done(&s);

        Error e = {};
        CephSlowReport *r = NULL;
        CHECK(ceph_slow_report(NULL, NULL, NULL, NULL, &r, &e) == -EINVAL && r == NULL);

        /* malformed summaries (found by fuzz-ceph: a stray ']' once looped forever) */
        static const char *const odd[] = {
                "4 slow ops, oldest one blocked for 35 sec, o]sd.3 has slow ops",
                "4 slow ops, oldest one blocked for 35 sec, daemons [osd.3,,osd.x,osd.99999999999] have slow ops.",
                "slow ops [", "",
        };
        _cleanup_(freep) char *t = fixture_ceph("osd-tree.json");
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *tree = NULL;
        CHECK_INTEQ(ceph_osd_tree_parse(t, &tree, &e), 0);
        for (size_t i = 0; i < ELEMENTSOF(odd); i++) {
                _cleanup_json_ json_object *h = json_object_new_object(), *checks = json_object_new_object(),
                                           *so = json_object_new_object(), *sum = json_object_new_object();
                json_object_object_add(sum, "message", json_object_new_string(odd[i]));
                json_object_object_add(so, "severity", json_object_new_string("HEALTH_WARN"));
                json_object_object_add(so, "summary", TAKE_PTR(sum));
                json_object_object_add(checks, "SLOW_OPS", TAKE_PTR(so));
                json_object_object_add(h, "status", json_object_new_string("HEALTH_WARN"));
                json_object_object_add(h, "checks", TAKE_PTR(checks));
                _cleanup_(ceph_health_freep) CephHealth *health = NULL;
                CHECK_INTEQ(ceph_health_parse(json_object_to_json_string(h), &health, &e), 0);
                _cleanup_(ceph_slow_report_freep) CephSlowReport *rep = NULL;
                CHECK_INTEQ(ceph_slow_report(health, NULL, tree, NULL, &rep, &e), 0);
                _cleanup_(freep) char *sentence = ceph_slow_report_sentence(rep);
                CHECK(sentence != NULL);
                if (i == 1)
                        CHECK(rep && rep->n_osds == 1 && rep->osds[0].id == 3 && strv_length(rep->other_daemons) == 2);
        }
}

/* ---- restores: only what is still cephprov's ----------------------------------------- */

static void test_node_flags(void) {
        Error err = {};
        _cleanup_(freep) char *plain = fixture_ceph("osd-dump.json"), *flagged = fixture_ceph("synthetic-osd-dump-node-flags.json");
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL, *f = NULL;
        CHECK_INTEQ(ceph_osd_dump_parse(plain, &d, &err), 0);
        CHECK_INTEQ(ceph_osd_dump_parse(flagged, &f, &err), 0);
        CHECK(d && !ceph_osd_dump_has_node_flag(d, "node1", "noout"));
        CHECK(f && ceph_osd_dump_has_node_flag(f, "node1", "noout"));
        CHECK(f && !ceph_osd_dump_has_node_flag(f, "node1", "noin"));
        CHECK(f && ceph_osd_dump_has_node_flag(f, "node2", "noin") && ceph_osd_dump_has_node_flag(f, "node2", "noout"));
        CHECK(f && !ceph_osd_dump_has_node_flag(f, "node", "noout") && !ceph_osd_dump_has_node_flag(f, "node3", "noout"));
        /* a host's flag is not the cluster's */
        CHECK(f && !ceph_osd_dump_has_flag(f, "noout"));
}

static CephConfigDump *config_now(const char *entries) {
        _cleanup_(freep) char *json = strprintf("[%s]", entries);
        CephConfigDump *d = NULL;
        Error err = {};
        CHECK_INTEQ(ceph_config_dump_parse(json, &d, &err), 0);
        return d;
}

#define CFG(who, key, value)                                                                                        \
        "{\"section\":\"" who "\",\"name\":\"" key "\",\"value\":\"" value "\",\"level\":\"advanced\","              \
        "\"can_update_at_runtime\":true,\"mask\":\"\"}"

static char *decide(const char *record, const char *now_entries, json_object **ret_left) {
        _cleanup_(ceph_config_dump_freep) CephConfigDump *now = config_now(now_entries);
        CephConfigOp *ops = NULL;
        size_t n = 0;
        Error err = {};
        *ret_left = NULL;
        if (!now || ceph_throttle_restore_decide(record, now, &ops, &n, ret_left, &err) < 0) {
                fprintf(stderr, "  decide: %s\n", err.message);
                return NULL;
        }
        _cleanup_strv_free_ char **l = NULL;
        for (size_t i = 0; i < n; i++)
                strv_consume(&l, strprintf("%s %s %s", ops[i].who, ops[i].key, ops[i].value ? ops[i].value : "(rm)"));
        ceph_config_ops_free(ops, n);
        return l ? strv_join(l, "; ") : strdup("");
}

static char *left_text(json_object *left) {
        _cleanup_strv_free_ char **l = NULL;
        for (size_t i = 0; left && i < json_object_array_length(left); i++) {
                json_object *e = json_object_array_get_idx(left, i);
                const char *v = json_object_get_string(json_object_object_get(e, "value"));
                strv_consume(&l, strprintf("%s %s %s", json_object_get_string(json_object_object_get(e, "who")),
                                           json_object_get_string(json_object_object_get(e, "key")), v ? v : "(unset)"));
        }
        return l ? strv_join(l, "; ") : strdup("");
}

static void test_restore_rules(void) {
        /* slow under wpq, over a cluster whose osd_max_backfills was 3 and the others unset */
        static const char rec[] =
                "{\"preset\":\"slow\",\"scheduler\":\"wpq\",\"run\":\"1-2\",\"since\":1,\"restore\":["
                "{\"who\":\"osd\",\"key\":\"osd_recovery_max_single_start\",\"value\":null,\"wrote\":[\"1\"]},"
                "{\"who\":\"osd\",\"key\":\"osd_recovery_max_active\",\"value\":null,\"wrote\":[\"1\"]},"
                "{\"who\":\"osd\",\"key\":\"osd_max_backfills\",\"value\":\"3\",\"wrote\":[\"1\"]}]}";
        json_object *left = NULL;
        char *ops = NULL, *lt = NULL;

        /* all still cephprov's: every key back */
        ops = decide(rec, CFG("osd", "osd_recovery_max_single_start", "1") "," CFG("osd", "osd_recovery_max_active", "1")
                          "," CFG("osd", "osd_max_backfills", "1"), &left);
        CHECK_STREQ(ops, "osd osd_recovery_max_single_start (rm); osd osd_recovery_max_active (rm); osd osd_max_backfills 3");
        CHECK_INTEQ((int) json_object_array_length(left), 0);
        json_object_put(left);
        free(ops);

        /* the operator set osd_max_backfills 2 since, and removed max_active: both theirs,
         * left and named (the removed one is as it was before already: nothing to name) */
        ops = decide(rec, CFG("osd", "osd_recovery_max_single_start", "1") "," CFG("osd", "osd_max_backfills", "2"), &left);
        CHECK_STREQ(ops, "osd osd_recovery_max_single_start (rm)");
        lt = left_text(left);
        CHECK_STREQ(lt, "osd osd_max_backfills 2");
        CHECK_STREQ(json_object_get_string(json_object_object_get(json_object_array_get_idx(left, 0), "before")), "3");
        json_object_put(left);
        free(ops);
        free(lt);

        /* a number as the database keeps it ("1.000000") is still "1" */
        ops = decide(rec, CFG("osd", "osd_recovery_max_single_start", "1.000000"), &left);
        CHECK_STREQ(ops, "osd osd_recovery_max_single_start (rm)");
        lt = left_text(left);
        /* osd_max_backfills removed by someone (unset, not 1): theirs */
        CHECK_STREQ(lt, "osd osd_max_backfills (unset)");
        json_object_put(left);
        free(ops);
        free(lt);

        /* a record of an older cephprov (no "wrote"): what its preset writes counts */
        static const char old[] = "{\"preset\":\"slow\",\"scheduler\":\"wpq\",\"restore\":["
                                  "{\"who\":\"osd\",\"key\":\"osd_recovery_max_active\",\"value\":null},"
                                  "{\"who\":\"osd\",\"key\":\"osd_max_backfills\",\"value\":\"3\"}]}";
        ops = decide(old, CFG("osd", "osd_recovery_max_active", "1") "," CFG("osd", "osd_max_backfills", "2"), &left);
        CHECK_STREQ(ops, "osd osd_recovery_max_active (rm)");
        lt = left_text(left);
        CHECK_STREQ(lt, "osd osd_max_backfills 2");
        json_object_put(left);
        free(ops);
        free(lt);
        /* ... a custom value the old record cannot say it wrote: left, with "wrote" null */
        static const char old_custom[] = "{\"preset\":\"default\",\"scheduler\":\"wpq\",\"restore\":["
                                         "{\"who\":\"osd\",\"key\":\"osd_max_backfills\",\"value\":\"3\"}]}";
        ops = decide(old_custom, CFG("osd", "osd_max_backfills", "7"), &left);
        CHECK_STREQ(ops, "");
        lt = left_text(left);
        CHECK_STREQ(lt, "osd osd_max_backfills 7");
        json_object_put(left);
        free(ops);
        free(lt);
        /* ... the adaptive throttle's old record: any rung of its ladder is cephprov's */
        static const char old_adaptive[] = "{\"preset\":\"adaptive\",\"scheduler\":\"wpq\",\"restore\":["
                                           "{\"who\":\"osd\",\"key\":\"osd_max_backfills\",\"value\":\"1\"}]}";
        ops = decide(old_adaptive, CFG("osd", "osd_max_backfills", "4"), &left);
        CHECK_STREQ(ops, "osd osd_max_backfills 1");
        json_object_put(left);
        free(ops);
        ops = decide(old_adaptive, CFG("osd", "osd_max_backfills", "37"), &left);
        CHECK_STREQ(ops, "");
        CHECK_INTEQ((int) json_object_array_length(left), 1);
        json_object_put(left);
        free(ops);
        ops = NULL;

        /* a bad record is refused as before */
        _cleanup_(ceph_config_dump_freep) CephConfigDump *now = config_now("");
        CephConfigOp *o = NULL;
        size_t n = 0;
        Error e = {};
        CHECK(ceph_throttle_restore_decide("{}", now, &o, &n, &left, &e) < 0 && e.message[0]);
}

static void test_restore_take_over(void) {
        Error err = {};
        /* a run killed months ago left: osd_max_backfills was 3 before it, it wrote 1; its
         * osd_recovery_max_active (was unset, it wrote 1) was set to 5 by the operator since */
        static const char old[] =
                "{\"preset\":\"slow\",\"scheduler\":\"wpq\",\"run\":\"100-1\",\"since\":100,\"restore\":["
                "{\"who\":\"osd\",\"key\":\"osd_recovery_max_active\",\"value\":null,\"wrote\":[\"1\"]},"
                "{\"who\":\"osd\",\"key\":\"osd_max_backfills\",\"value\":\"3\",\"wrote\":[\"1\"]},"
                "{\"who\":\"osd.4\",\"key\":\"osd_max_backfills\",\"value\":\"2\",\"wrote\":[\"1\"]}]}";
        _cleanup_(ceph_config_dump_freep) CephConfigDump *now =
                config_now(CFG("osd", "osd_recovery_max_active", "5") "," CFG("osd", "osd_max_backfills", "1") ","
                           CFG("osd.4", "osd_max_backfills", "1"));
        /* this run (fast): its own record, values before = now */
        _cleanup_(ceph_throttle_plan_freep) CephThrottlePlan *plan = NULL;
        CHECK_INTEQ(ceph_throttle_plan(CEPH_THROTTLE_FAST, CEPH_SCHEDULER_WPQ, false, now, &plan, &err), 0);
        if (!plan)
                return;
        _cleanup_(freep) char *text = ceph_throttle_restore_format(plan);
        _cleanup_json_ json_object *rec = json_tokener_parse(text), *taken = NULL;
        CHECK_INTEQ(ceph_throttle_record_take_over(rec, old, now, &taken, &err), 0);
        _cleanup_(freep) char *t = NULL;
        _cleanup_strv_free_ char **tl = NULL;
        for (size_t i = 0; taken && i < json_object_array_length(taken); i++)
                strv_extend(&tl, json_object_get_string(json_object_array_get_idx(taken, i)));
        t = tl ? strv_join(tl, "; ") : strdup("");
        CHECK_STREQ(t, "osd osd_max_backfills; osd.4 osd_max_backfills");
        /* restored after this run (which wrote 4/4/4): osd_max_backfills to 3 (before the old
         * run), max_active to the operator's 5, single_start removed, osd.4's back to 2 */
        _cleanup_(ceph_config_dump_freep) CephConfigDump *after =
                config_now(CFG("osd", "osd_recovery_max_single_start", "4") "," CFG("osd", "osd_recovery_max_active", "4")
                           "," CFG("osd", "osd_max_backfills", "4") "," CFG("osd.4", "osd_max_backfills", "1"));
        CephConfigOp *ops = NULL;
        size_t n = 0;
        json_object *left = NULL;
        const char *s = json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN);
        CHECK_INTEQ(ceph_throttle_restore_decide(s, after, &ops, &n, &left, &err), 0);
        _cleanup_strv_free_ char **l = NULL;
        for (size_t i = 0; i < n; i++)
                strv_consume(&l, strprintf("%s %s %s", ops[i].who, ops[i].key, ops[i].value ? ops[i].value : "(rm)"));
        _cleanup_(freep) char *got = l ? strv_join(l, "; ") : NULL;
        CHECK_STREQ(got, "osd osd_recovery_max_single_start (rm); osd osd_recovery_max_active 5; "
                         "osd osd_max_backfills 3; osd.4 osd_max_backfills 2");
        CHECK_INTEQ((int) json_object_array_length(left), 0);
        ceph_config_ops_free(ops, n);
        json_object_put(left);
}

int main(void) {
        TEST_RUN(test_argv);
        TEST_RUN(test_df_tree);
        TEST_RUN(test_pools_rules_profiles);
        TEST_RUN(test_balancer_perf_recovery);
        TEST_RUN(test_drain_check);
        TEST_RUN(test_drain_check_together);
        TEST_RUN(test_drain_progress);
        TEST_RUN(test_throttle);
        TEST_RUN(test_throttle_mixed);
        TEST_RUN(test_slow);
        TEST_RUN(test_node_flags);
        TEST_RUN(test_restore_rules);
        TEST_RUN(test_restore_take_over);
        return test_result();
}
