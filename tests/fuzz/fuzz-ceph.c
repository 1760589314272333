/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the parsers of src/ceph (what the `ceph` CLI and ceph-volume print).
 * The first byte picks the parser, the rest is its text (NUL-terminated, as the callers
 * pass it). Every success is walked with the lookup functions the controller uses, and
 * every failure must carry a message: a parser that fails silently, reads past its input
 * or leaks is a crash here. Seeds: tests/data/ceph, prefixed with their parser's byte
 * (run-fuzz.sh builds the seed corpus). */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basic/strv.h"
#include "basic/json-util.h"
#include "ceph/ceph-cluster.h"
#include "ceph/ceph-volume.h"
#include "ceph/ceph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The parser numbers, also used by run-fuzz.sh to prefix the seeds: keep in step. */
enum {
        P_OSD_DUMP,
        P_OSD_TREE,
        P_OSD_METADATA,
        P_HEALTH,
        P_PG_STAT,
        P_PG_DUMP,
        P_VERSIONS,
        P_VERSION,
        P_OK_TO_STOP,
        P_SAFE_TO_DESTROY,
        P_OSD_NEW,
        P_CONFIG_VALUE,
        P_CONFIG_DUMP,
        P_LOCK,
        P_VOLUME_RAW_LIST,
        P_VOLUME_LVM_LIST,
        /* the cluster layer (ceph-cluster.h) */
        P_OSD_DF_TREE,
        P_POOL_LIST,
        P_CRUSH_RULES,
        P_EC_PROFILE,
        P_EC_PROFILES_DUMP,
        P_FULL_RATIOS,
        P_BALANCER,
        P_OSD_PERF,
        P_RECOVERY,
        P_THROTTLE_RESTORE,
        P_SLOW,
        P_CONFIG_SHOW,
        _P_MAX,
};

/* A failure must say why. */
static void check(int r, const Error *err) {
        if (r < 0 && (err->code == 0 || !err->message[0]))
                __builtin_trap();
}

static void fuzz_osd_dump(const char *text) {
        Error err = {};
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        int r = ceph_osd_dump_parse(text, &d, &err);
        check(r, &err);
        if (r < 0)
                return;
        if (!d->flags)
                __builtin_trap();
        int ids[4] = { 0, 1, -1, d->max_osd };
        for (size_t i = 0; i < d->n_osds; i++) {
                if (ceph_osd_dump_find_osd(d, d->osds[i].id) == NULL)
                        __builtin_trap();
                if (d->osds[i].uuid)
                        (void) ceph_osd_dump_find_uuid(d, d->osds[i].uuid);
                if (i > 0 && d->osds[i - 1].id > d->osds[i].id)
                        __builtin_trap(); /* promised: sorted by id */
        }
        (void) ceph_osd_dump_has_flag(d, "noout");
        Error e2 = {};
        check(ceph_osd_dump_check_ids(d, ids, 4, &e2), &e2);
}

static void fuzz_osd_tree(const char *text) {
        Error err = {};
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = NULL;
        int r = ceph_osd_tree_parse(text, &t, &err);
        check(r, &err);
        if (r < 0)
                return;
        for (size_t i = 0; i < t->n_osds; i++) {
                if (ceph_osd_tree_find_osd(t, t->osds[i].id) == NULL)
                        __builtin_trap();
                (void) ceph_osd_tree_status_to_string(t->osds[i].status);
        }
        for (size_t i = 0; i < t->n_hosts; i++)
                if (t->hosts[i].name && ceph_osd_tree_find_host(t, t->hosts[i].name) == NULL)
                        __builtin_trap();
}

static void fuzz_osd_metadata(const char *text) {
        Error err = {};
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *l = NULL;
        int r = ceph_osd_metadata_parse(text, &l, &err);
        check(r, &err);
        if (r < 0)
                return;
        for (size_t i = 0; i < l->n_osds; i++) {
                if (ceph_osd_metadata_find(l, l->osds[i].id) == NULL)
                        __builtin_trap();
                STRV_FOREACH(dev, l->osds[i].devices)
                        (void) strlen(*dev);
        }
}

static void fuzz_health(const char *text) {
        Error err = {};
        _cleanup_(ceph_health_freep) CephHealth *h = NULL;
        int r = ceph_health_parse(text, &h, &err);
        check(r, &err);
        if (r < 0)
                return;
        (void) ceph_health_status_to_string(h->status);
        for (size_t i = 0; i < h->n_checks; i++) {
                if (!h->checks[i].details)
                        __builtin_trap(); /* promised: never NULL */
                if (h->checks[i].code && ceph_health_find(h, h->checks[i].code) == NULL)
                        __builtin_trap();
        }
}

static void fuzz_pg_stat(const char *text) {
        Error err = {};
        _cleanup_(ceph_pg_stat_freep) CephPgStat *s = NULL;
        int r = ceph_pg_stat_parse(text, &s, &err);
        check(r, &err);
        if (r < 0)
                return;
        (void) ceph_pg_stat_all_active_clean(s);
        (void) ceph_pg_stat_count(s, "active+clean");
        (void) ceph_pg_stat_count(s, "!active");
        for (size_t i = 0; i < s->n_states; i++)
                (void) ceph_pg_state_has(s->states[i].state, "degraded");
}

static void fuzz_pg_dump(const char *text) {
        Error err = {};
        _cleanup_(ceph_pg_dump_freep) CephPgDump *d = NULL;
        int r = ceph_pg_dump_parse(text, &d, &err);
        check(r, &err);
        if (r < 0)
                return;
        (void) ceph_pg_dump_count_unclean_on_osd(d, 0);
        for (size_t i = 0; i < d->n_pgs && i < 8; i++)
                for (size_t k = 0; k < d->pgs[i].n_up; k++)
                        (void) ceph_pg_dump_count_unclean_on_osd(d, d->pgs[i].up[k]);
}

static void fuzz_versions(const char *text) {
        Error err = {};
        CephVersions v;
        check(ceph_versions_parse(text, &v, &err), &err);
}

static void fuzz_version(const char *text) {
        Error err = {};
        CephVersion v;
        int r = ceph_version_parse(text, &v, &err);
        check(r, &err);
        if (r >= 0)
                (void) ceph_release_to_string(v.release);
}

/* The gates read an exit status and two streams: the text is "STATUS\0OUT\0ERR" with the
 * status from the byte after the selector. */
static void split3(const char *text, size_t len, const char **out, const char **err_text) {
        const char *end = text + len;
        *out = text;
        const char *z = memchr(text, 0, len);
        *err_text = z && z + 1 < end ? z + 1 : "";
}

static void fuzz_ok_to_stop(uint8_t status, const char *text, size_t len) {
        const char *out, *etext;
        split3(text, len, &out, &etext);
        Error err = {};
        _cleanup_(ceph_ok_to_stop_freep) CephOkToStop *o = NULL;
        check(ceph_ok_to_stop_parse(status, out, etext, &o, &err), &err);
}

static void fuzz_safe_to_destroy(uint8_t status, const char *text, size_t len) {
        const char *out, *etext;
        split3(text, len, &out, &etext);
        static const int osds[] = { 0, 1, 3 };
        Error err = {};
        _cleanup_(ceph_safe_to_destroy_freep) CephSafeToDestroy *s = NULL;
        int r = ceph_safe_to_destroy_parse(status, out, etext, osds, ELEMENTSOF(osds), &s, &err);
        check(r, &err);
        if (r >= 0)
                for (size_t i = 0; i < ELEMENTSOF(osds); i++)
                        (void) ceph_safe_to_destroy_is_safe(s, osds[i]);
}

static void fuzz_small(unsigned which, const char *text) {
        Error err = {};
        int r;
        if (which == P_OSD_NEW) {
                int id = -1;
                r = ceph_osd_new_parse(text, &id, &err);
                check(r, &err);
                if (r >= 0 && id < 0)
                        __builtin_trap();
        } else if (which == P_CONFIG_VALUE) {
                _cleanup_(freep) char *v = NULL;
                uint64_t u;
                check(ceph_config_value_parse(text, &v, &err), &err);
                Error e2 = {};
                check(ceph_config_value_parse_u64(text, &u, &e2), &e2);
        } else if (which == P_CONFIG_DUMP) {
                _cleanup_(ceph_config_dump_freep) CephConfigDump *d = NULL;
                r = ceph_config_dump_parse(text, &d, &err);
                check(r, &err);
                if (r >= 0)
                        for (size_t i = 0; i < d->n_entries; i++)
                                if (d->entries[i].section && d->entries[i].name)
                                        (void) ceph_config_dump_find(d, d->entries[i].section, d->entries[i].name);
        } else if (which == P_CONFIG_SHOW) {
                _cleanup_(ceph_config_show_freep) CephConfigShow *s = NULL;
                r = ceph_config_show_parse(text, &s, &err);
                check(r, &err);
                if (r >= 0)
                        for (size_t i = 0; i < s->n_entries; i++)
                                if (ceph_config_show_find(s, s->entries[i].name) == NULL)
                                        __builtin_trap();
        } else if (which == P_LOCK) {
                _cleanup_(ceph_lock_freep) CephLock *l = NULL;
                r = ceph_lock_parse(text, &l, &err);
                check(r, &err);
                if (r >= 0) {
                        /* what is parsed can be written back and parsed again */
                        _cleanup_(freep) char *s = ceph_lock_format(l);
                        _cleanup_(ceph_lock_freep) CephLock *again = NULL;
                        Error e2 = {};
                        if (s && ceph_lock_parse(s, &again, &e2) < 0)
                                __builtin_trap();
                }
        }
}

static void fuzz_volume(unsigned which, const char *text) {
        Error err = {};
        _cleanup_(ceph_volume_list_freep) CephVolumeList *l = NULL;
        int r = which == P_VOLUME_RAW_LIST ? ceph_volume_raw_list_parse(text, &l, &err)
                                           : ceph_volume_lvm_list_parse(text, &l, &err);
        check(r, &err);
        if (r < 0)
                return;
        for (size_t i = 0; i < l->n_osds; i++) {
                if (l->osds[i].device)
                        (void) ceph_volume_list_find_device(l, l->osds[i].device, l->osds[i].ceph_fsid);
                (void) ceph_volume_list_find_osd(l, l->osds[i].osd_id, NULL);
        }
}


/* ---- the cluster layer --------------------------------------------------------------- */

/* Fixed inputs for the analyses run on what a fuzzed parser returns: a size-3 pool and an
 * EC 2+1 pool on host failure domains, a class rule, the default ratios, and a small tree. */
static const char fixed_pools[] =
        "[{\"pool_id\":1,\"pool_name\":\"rbd\",\"type\":1,\"size\":3,\"min_size\":2,\"crush_rule\":0},"
        "{\"pool_id\":2,\"pool_name\":\"ec\",\"type\":3,\"size\":3,\"min_size\":2,\"crush_rule\":1,"
        "\"erasure_code_profile\":\"ec21\"},"
        "{\"pool_id\":3,\"pool_name\":\"ssd\",\"type\":1,\"size\":2,\"min_size\":1,\"crush_rule\":2}]";
static const char fixed_rules[] =
        "[{\"rule_id\":0,\"rule_name\":\"r\",\"type\":1,\"steps\":[{\"op\":\"take\",\"item\":-1,\"item_name\":\"default\"},"
        "{\"op\":\"chooseleaf_firstn\",\"num\":0,\"type\":\"host\"},{\"op\":\"emit\"}]},"
        "{\"rule_id\":1,\"rule_name\":\"e\",\"type\":3,\"steps\":[{\"op\":\"take\",\"item\":-1,\"item_name\":\"default\"},"
        "{\"op\":\"chooseleaf_indep\",\"num\":0,\"type\":\"host\"},{\"op\":\"emit\"}]},"
        "{\"rule_id\":2,\"rule_name\":\"s\",\"type\":1,\"steps\":[{\"op\":\"take\",\"item\":-2,\"item_name\":\"default~ssd\"},"
        "{\"op\":\"choose_firstn\",\"num\":-1,\"type\":\"osd\"},{\"op\":\"emit\"}]}]";
static const char fixed_profile[] = "{\"k\":\"2\",\"m\":\"1\",\"crush-failure-domain\":\"host\"}";
static const char fixed_df[] =
        "{\"nodes\":[{\"id\":-1,\"name\":\"default\",\"type\":\"root\",\"children\":[-2,-3]},"
        "{\"id\":-2,\"name\":\"a\",\"type\":\"host\",\"children\":[0]},{\"id\":-3,\"name\":\"b\",\"type\":\"host\",\"children\":[1]},"
        "{\"id\":0,\"name\":\"osd.0\",\"type\":\"osd\",\"device_class\":\"hdd\",\"crush_weight\":1,\"reweight\":1,"
        "\"kb\":100,\"kb_used\":10,\"kb_used_data\":9,\"status\":\"up\"},"
        "{\"id\":1,\"name\":\"osd.1\",\"type\":\"osd\",\"device_class\":\"ssd\",\"crush_weight\":1,\"reweight\":1,"
        "\"kb\":100,\"kb_used\":10,\"kb_used_data\":9,\"status\":\"up\"}]}";
static const char fixed_tree[] =
        "{\"nodes\":[{\"id\":-1,\"name\":\"default\",\"type\":\"root\",\"type_id\":11,\"children\":[-2,-3]},"
        "{\"id\":-2,\"name\":\"a\",\"type\":\"host\",\"type_id\":1,\"children\":[0,1]},"
        "{\"id\":-3,\"name\":\"b\",\"type\":\"host\",\"type_id\":1,\"children\":[2]},"
        "{\"id\":0,\"device_class\":\"hdd\",\"name\":\"osd.0\",\"type\":\"osd\",\"type_id\":0,\"crush_weight\":1,"
        "\"status\":\"up\",\"reweight\":1},{\"id\":1,\"device_class\":\"hdd\",\"name\":\"osd.1\",\"type\":\"osd\","
        "\"type_id\":0,\"crush_weight\":1,\"status\":\"up\",\"reweight\":1},{\"id\":2,\"device_class\":\"hdd\","
        "\"name\":\"osd.2\",\"type\":\"osd\",\"type_id\":0,\"crush_weight\":1,\"status\":\"up\",\"reweight\":1}],\"stray\":[]}";
static const char fixed_perf[] =
        "{\"osdstats\":{\"osd_perf_infos\":[{\"id\":0,\"perf_stats\":{\"commit_latency_ms\":400,\"apply_latency_ms\":400}},"
        "{\"id\":1,\"perf_stats\":{\"commit_latency_ms\":300,\"apply_latency_ms\":300}},"
        "{\"id\":2,\"perf_stats\":{\"commit_latency_ms\":2,\"apply_latency_ms\":2}}]}}";

typedef struct Fixed {
        CephOsdDfTree *df;
        CephPoolList *pools;
        CephCrushRules *rules;
        CephEcProfileList *profiles;
        CephFullRatios ratios;
        CephOsdTree *tree;
        CephOsdPerf *perf;
} Fixed;

static void fixed_done(Fixed *f) {
        ceph_osd_df_tree_free(f->df);
        ceph_pool_list_free(f->pools);
        ceph_crush_rules_free(f->rules);
        ceph_ec_profile_list_free(f->profiles);
        ceph_osd_tree_free(f->tree);
        ceph_osd_perf_free(f->perf);
}

static Fixed fixed_load(void) {
        Fixed f = { .ratios = { .full = 0.95, .backfillfull = 0.90, .nearfull = 0.85 } };
        Error e = {};
        if (ceph_osd_df_tree_parse(fixed_df, &f.df, &e) < 0 || ceph_pool_list_parse(fixed_pools, &f.pools, &e) < 0 ||
            ceph_crush_rules_parse(fixed_rules, &f.rules, &e) < 0 ||
            ceph_ec_profile_parse(fixed_profile, "ec21", &f.profiles, &e) < 0 ||
            ceph_osd_tree_parse(fixed_tree, &f.tree, &e) < 0 || ceph_osd_perf_parse(fixed_perf, &f.perf, &e) < 0)
                __builtin_trap(); /* the fixed inputs are valid */
        return f;
}

/* every analysis result is printed both ways, and a refusal carries reasons */
static void drain_all(const CephOsdDfTree *df, const CephPoolList *pools, const CephCrushRules *rules,
                      const CephEcProfileList *profiles, const CephFullRatios *ratios) {
        for (size_t i = 0; i < df->n_nodes; i++) {
                if (df->nodes[i].id >= 0 || i > 16)
                        continue;
                Error err = {};
                _cleanup_(ceph_drain_check_freep) CephDrainCheck *c = NULL;
                int r = ceph_drain_check(df, pools, rules, profiles, ratios, (char * const[]) { df->nodes[i].name, NULL }, &c, &err);
                check(r, &err);
                if (r < 0)
                        continue;
                if (c->ok != (c->reasons[0] == NULL))
                        __builtin_trap();
                _cleanup_(freep) char *text = ceph_drain_check_format(c);
                _cleanup_json_ json_object *j = ceph_drain_check_to_json(c);
                if (!text || !j)
                        __builtin_trap();
        }
}

static void fuzz_cluster(unsigned which, const char *text) {
        _cleanup_(fixed_done) Fixed f = fixed_load();
        Error err = {};
        int r;
        switch (which) {
        case P_OSD_DF_TREE: {
                _cleanup_(ceph_osd_df_tree_freep) CephOsdDfTree *t = NULL;
                r = ceph_osd_df_tree_parse(text, &t, &err);
                check(r, &err);
                if (r < 0)
                        return;
                for (size_t i = 0; i < t->n_nodes; i++) {
                        if (ceph_osd_df_tree_find(t, t->nodes[i].id) != &t->nodes[i])
                                __builtin_trap(); /* promised: ids unique */
                        (void) ceph_osd_df_tree_is_under(t, t->nodes[i].id, -1);
                }
                drain_all(t, f.pools, f.rules, f.profiles, &f.ratios);
                break;
        }
        case P_POOL_LIST: {
                _cleanup_(ceph_pool_list_freep) CephPoolList *l = NULL;
                r = ceph_pool_list_parse(text, &l, &err);
                check(r, &err);
                if (r >= 0)
                        drain_all(f.df, l, f.rules, f.profiles, &f.ratios);
                break;
        }
        case P_CRUSH_RULES: {
                _cleanup_(ceph_crush_rules_freep) CephCrushRules *rules = NULL;
                r = ceph_crush_rules_parse(text, &rules, &err);
                check(r, &err);
                if (r < 0)
                        return;
                for (size_t i = 0; i < rules->n_rules; i++) {
                        CephCrushPlacement p;
                        Error e2 = {};
                        check(ceph_crush_rule_placement(&rules->rules[i], 3, &p, &e2), &e2);
                }
                drain_all(f.df, f.pools, rules, f.profiles, &f.ratios);
                break;
        }
        case P_EC_PROFILE:
        case P_EC_PROFILES_DUMP: {
                _cleanup_(ceph_ec_profile_list_freep) CephEcProfileList *l = NULL;
                r = which == P_EC_PROFILE ? ceph_ec_profile_parse(text, "ec21", &l, &err)
                                          : ceph_ec_profiles_parse_osd_dump(text, &l, &err);
                check(r, &err);
                if (r >= 0)
                        drain_all(f.df, f.pools, f.rules, l, &f.ratios);
                break;
        }
        case P_FULL_RATIOS: {
                CephFullRatios fr;
                r = ceph_full_ratios_parse(text, &fr, &err);
                check(r, &err);
                if (r >= 0)
                        drain_all(f.df, f.pools, f.rules, f.profiles, &fr);
                break;
        }
        case P_BALANCER: {
                CephBalancerStatus b;
                check(ceph_balancer_status_parse(text, &b, &err), &err);
                break;
        }
        case P_OSD_PERF:
        case P_SLOW: {
                _cleanup_(ceph_osd_perf_freep) CephOsdPerf *p = NULL;
                _cleanup_(ceph_health_freep) CephHealth *h = NULL;
                r = which == P_OSD_PERF ? ceph_osd_perf_parse(text, &p, &err) : ceph_health_parse(text, &h, &err);
                check(r, &err);
                if (r < 0)
                        return;
                _cleanup_(ceph_health_freep) CephHealth *ok = NULL;
                Error e2 = {};
                if (!h && ceph_health_parse("{\"status\":\"HEALTH_OK\"}", &ok, &e2) < 0)
                        __builtin_trap();
                _cleanup_(ceph_slow_report_freep) CephSlowReport *rep = NULL;
                Error e3 = {};
                r = ceph_slow_report(h ? h : ok, p ? p : f.perf, f.tree, NULL, &rep, &e3);
                check(r, &e3);
                if (r < 0)
                        return;
                _cleanup_(freep) char *s = ceph_slow_report_sentence(rep);
                _cleanup_json_ json_object *j = ceph_slow_report_to_json(rep);
                if (!s || !j)
                        __builtin_trap();
                break;
        }
        case P_RECOVERY: {
                CephRecovery rc;
                r = ceph_recovery_parse(text, &rc, &err);
                check(r, &err);
                if (r < 0)
                        return;
                CephDrainProgress pr;
                CephRecovery start = rc;
                start.misplaced_objects += 10;
                ceph_drain_progress(&start, &start, &rc, 5, 1 << 20, &pr);
                if (pr.fraction_done < 0 || pr.fraction_done > 1)
                        __builtin_trap();
                _cleanup_(freep) char *s = ceph_drain_progress_format(&pr);
                if (!s)
                        __builtin_trap();
                break;
        }
        case P_THROTTLE_RESTORE: {
                CephConfigOp *ops = NULL;
                size_t n = 0;
                r = ceph_throttle_restore_parse(text, &ops, &n, &err);
                check(r, &err);
                for (size_t i = 0; r >= 0 && i < n; i++) {
                        /* what the record says must build as an argv */
                        Error e2 = {};
                        char **a = ceph_argv_config_op(NULL, &ops[i], &e2);
                        if (!a)
                                __builtin_trap();
                        strv_free(a);
                }
                if (r >= 0)
                        ceph_config_ops_free(ops, n);
                break;
        }
        default:
                break;
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1)
                return 0;
        unsigned which = data[0] % _P_MAX;
        uint8_t status = 0;
        data++, size--;
        if (which == P_OK_TO_STOP || which == P_SAFE_TO_DESTROY) {
                if (size < 1)
                        return 0;
                status = data[0];
                data++, size--;
        }
        /* the callers hand over a C string: the bytes up to the first NUL count */
        char *text = malloc(size + 1);
        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = 0;

        switch (which) {
        case P_OSD_DUMP:        fuzz_osd_dump(text); break;
        case P_OSD_TREE:        fuzz_osd_tree(text); break;
        case P_OSD_METADATA:    fuzz_osd_metadata(text); break;
        case P_HEALTH:          fuzz_health(text); break;
        case P_PG_STAT:         fuzz_pg_stat(text); break;
        case P_PG_DUMP:         fuzz_pg_dump(text); break;
        case P_VERSIONS:        fuzz_versions(text); break;
        case P_VERSION:         fuzz_version(text); break;
        case P_OK_TO_STOP:      fuzz_ok_to_stop(status, text, size); break;
        case P_SAFE_TO_DESTROY: fuzz_safe_to_destroy(status, text, size); break;
        case P_VOLUME_RAW_LIST:
        case P_VOLUME_LVM_LIST: fuzz_volume(which, text); break;
        case P_OSD_DF_TREE ... P_SLOW: fuzz_cluster(which, text); break;
        default:                fuzz_small(which, text); break;
        }
        free(text);
        return 0;
}
