/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every src/ceph parser on what each Ceph release of the lab printed (tests/data/ceph/
 * RELEASE/, taken by tests/lab/test-apply-release.sh with CAPTURE_DIR: 2 hosts, 4 BlueStore
 * OSDs with DB and WAL partitions, pool `data`, HEALTH_OK). The same facts must come out of
 * every release's output. */

#include <errno.h>

#include "basic/macro.h"
#include "basic/strv.h"
#include "ceph/ceph-cluster.h"
#include "ceph/ceph-volume.h"
#include "ceph/ceph.h"
#include "fixture.h"
#include "test.h"

static const char *release_dir;

/* a parser's answer: 0, or a failed check with its message */
static bool parsed(int r, const Error *e) {
        if (r != 0)
                fprintf(stderr, "%s: %s\n", release_dir, e->message);
        CHECK_INTEQ(r, 0);
        return r == 0;
}

static char *slurp_opt(const char *name) {
        const char *dir = getenv("TEST_DATA");
        _cleanup_(freep) char *p = strprintf("%s/ceph/%s/%s", dir ? dir : "tests/data", release_dir, name);
        return p ? fixture_read(p, NULL) : NULL;
}

/* a capture every release must have */
static char *slurp(const char *name) {
        char *s = slurp_opt(name);
        if (!s)
                fprintf(stderr, "%s: no capture '%s'\n", release_dir, name);
        CHECK(s != NULL);
        return s;
}

static int rc_of(const char *name) {
        _cleanup_(freep) char *f = strprintf("%s.rc", name);
        _cleanup_(freep) char *s = f ? slurp(f) : NULL;
        return s ? atoi(s) : -1;
}

static void test_release(CephRelease want) {
        Error e = {};
        _cleanup_(freep) char *versions = slurp("versions.out");
        CephVersions v;
        if (versions && parsed(ceph_versions_parse(versions, &v, &e), &e)) {
                CHECK_INTEQ(v.newest.release, want);
                CHECK_INTEQ(v.oldest.release, want);
                CHECK(v.n_osd == 4 && v.n_mon == 1 && v.n_mgr == 1);
        }

        _cleanup_(freep) char *status = slurp("status-ok.out"), *hd = slurp("health-detail-ok.out");
        _cleanup_(ceph_health_freep) CephHealth *h = NULL, *h2 = NULL;
        _cleanup_(ceph_pg_stat_freep) CephPgStat *pgs = NULL;
        if (status) {
                CHECK_INTEQ(ceph_health_parse(status, &h, &e), 0);
                CHECK_INTEQ(ceph_pg_stat_parse(status, &pgs, &e), 0);
                CHECK(h && h->status == CEPH_HEALTH_OK);
                CHECK(pgs && ceph_pg_stat_all_active_clean(pgs) && pgs->num_pgs > 0);
        }
        if (hd) {
                CHECK_INTEQ(ceph_health_parse(hd, &h2, &e), 0);
                CHECK(h2 && h2->status == CEPH_HEALTH_OK);
        }

        _cleanup_(freep) char *tree_s = slurp("osd-tree.out"), *dump_s = slurp("osd-dump.out");
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *tree = NULL;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        if (tree_s && (parsed(ceph_osd_tree_parse(tree_s, &tree, &e), &e) && tree)) {
                CHECK_INTEQ(tree->n_hosts, 2);
                CHECK_INTEQ(tree->n_osds, 4);
                const CephTreeHost *n1 = ceph_osd_tree_find_host(tree, "node1");
                CHECK(n1 && n1->n_osds == 2);
                for (size_t i = 0; i < tree->n_osds; i++)
                        CHECK(tree->osds[i].status == CEPH_OSD_TREE_UP && tree->osds[i].in &&
                              str_eq(tree->osds[i].device_class, "hdd"));
        }
        if (dump_s && (parsed(ceph_osd_dump_parse(dump_s, &dump, &e), &e) && dump)) {
                CHECK_INTEQ(dump->n_osds, 4);
                for (size_t i = 0; i < dump->n_osds; i++)
                        CHECK(dump->osds[i].up && dump->osds[i].in && dump->osds[i].up_from > 0 && dump->osds[i].uuid);
                CephFullRatios fr;
                CHECK_INTEQ(ceph_full_ratios_parse(dump_s, &fr, &e), 0);
                CHECK(fr.full > 0.94 && fr.full < 0.96 && fr.backfillfull > 0.89 && fr.nearfull > 0.84);
                _cleanup_(ceph_pool_list_freep) CephPoolList *pl = NULL;
                CHECK_INTEQ(ceph_pool_list_parse(dump_s, &pl, &e), 0);
                CHECK(pl && ceph_pool_list_find(pl, "data"));
                _cleanup_(ceph_ec_profile_list_freep) CephEcProfileList *ec = NULL;
                CHECK_INTEQ(ceph_ec_profiles_parse_osd_dump(dump_s, &ec, &e), 0);
        }

        _cleanup_(freep) char *meta_s = slurp("osd-metadata.out");
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *meta = NULL;
        if (meta_s && (parsed(ceph_osd_metadata_parse(meta_s, &meta, &e), &e) && meta)) {
                for (int id = 0; id < 4; id++) {
                        const CephOsdMetadata *m = ceph_osd_metadata_find(meta, id);
                        CHECK(m && m->db_path && m->wal_path && str_eq(m->objectstore, "bluestore"));
                        /* the sizes the convert planner compares with db_size and wal_size */
                        CHECK(m && m->db_size > 0 && m->wal_size > 0 && m->bdev_size > m->db_size);
                        CHECK(m && !m->journal_partition && !m->journal_link);
                }
        }

        _cleanup_(freep) char *pgstat = slurp("pg-stat-clean.out"), *pgdump = slurp("pg-dump-pgs-brief-clean.out");
        if (pgstat) {
                CephRecovery rec;
                CHECK_INTEQ(ceph_recovery_parse(pgstat, &rec, &e), 0);
                CHECK(rec.pgs_not_clean == 0 && rec.num_pgs > 0 && rec.degraded_objects == 0);
        }
        _cleanup_(ceph_pg_dump_freep) CephPgDump *pd = NULL;
        if (pgdump && (parsed(ceph_pg_dump_parse(pgdump, &pd, &e), &e) && pd))
                CHECK(pd->n_pgs > 0 && ceph_pg_dump_count_unclean_on_osd(pd, 0) == 0);

        /* the gates: osd.0 with size-2 pools on 2 hosts can stop (ok-to-stop degrades, does
         * not make inactive) but is not safe to destroy */
        _cleanup_(freep) char *ots = slurp("ok-to-stop-0.out"), *ote = slurp("ok-to-stop-0.err");
        _cleanup_(ceph_ok_to_stop_freep) CephOkToStop *ok = NULL;
        if (ots && ote)
                CHECK_INTEQ(ceph_ok_to_stop_parse(rc_of("ok-to-stop-0"), ots, ote, &ok, &e), 0);
        int ids[] = { 0 };
        _cleanup_(freep) char *sds = slurp("safe-to-destroy-0-busy.out"), *sde = slurp("safe-to-destroy-0-busy.err");
        _cleanup_(ceph_safe_to_destroy_freep) CephSafeToDestroy *sd = NULL;
        if (sds && sde && (parsed(ceph_safe_to_destroy_parse(rc_of("safe-to-destroy-0-busy"), sds, sde, ids, 1, &sd, &e), &e) && sd))
                CHECK(!ceph_safe_to_destroy_is_safe(sd, 0));
        _cleanup_(freep) char *sdp = slurp("safe-to-destroy-0-busy-plain.out"), *sdpe = slurp("safe-to-destroy-0-busy-plain.err");
        _cleanup_(ceph_safe_to_destroy_freep) CephSafeToDestroy *sd2 = NULL;
        if (sdp && sdpe &&
            parsed(ceph_safe_to_destroy_parse(rc_of("safe-to-destroy-0-busy-plain"), sdp, sdpe, ids, 1, &sd2, &e), &e) && sd2)
                CHECK(!ceph_safe_to_destroy_is_safe(sd2, 0));

        /* the scheduler each release runs */
        _cleanup_(freep) char *q = slurp("config-get-osd-op-queue.out");
        _cleanup_(freep) char *qv = NULL;
        if (q && (parsed(ceph_config_value_parse(q, &qv, &e), &e) && qv)) {
                CHECK_STREQ(qv, want >= CEPH_RELEASE_QUINCY ? "mclock_scheduler" : "wpq");
                CHECK_INTEQ(ceph_scheduler_for(want, qv), want >= CEPH_RELEASE_QUINCY ? CEPH_SCHEDULER_MCLOCK : CEPH_SCHEDULER_WPQ);
        }
        _cleanup_(freep) char *cd = slurp("config-dump.out");
        _cleanup_(ceph_config_dump_freep) CephConfigDump *cdump = NULL;
        if (cd)
                CHECK_INTEQ(ceph_config_dump_parse(cd, &cdump, &e), 0);

        /* drain and status inputs */
        _cleanup_(freep) char *df = slurp("osd-df-tree.out"), *pools = slurp("osd-pool-ls-detail.out");
        _cleanup_(freep) char *rules = slurp("osd-crush-rule-dump.out"), *bal = slurp("balancer-status.out");
        _cleanup_(freep) char *perf = slurp("osd-perf.out");
        _cleanup_(ceph_osd_df_tree_freep) CephOsdDfTree *dft = NULL;
        _cleanup_(ceph_pool_list_freep) CephPoolList *pl = NULL;
        _cleanup_(ceph_crush_rules_freep) CephCrushRules *cr = NULL;
        if (df)
                CHECK_INTEQ(ceph_osd_df_tree_parse(df, &dft, &e), 0);
        if (pools && (parsed(ceph_pool_list_parse(pools, &pl, &e), &e) && pl)) {
                const CephPool *p = ceph_pool_list_find(pl, "data");
                CHECK(p && p->size == 2 && p->type == CEPH_POOL_REPLICATED && p->pg_autoscale_mode);
        }
        if (rules)
                CHECK_INTEQ(ceph_crush_rules_parse(rules, &cr, &e), 0);
        if (dft && pl && cr && dump_s) {
                /* 2 hosts and size-2 pools: draining one leaves one host: refused by pool */
                CephFullRatios fr;
                CHECK_INTEQ(ceph_full_ratios_parse(dump_s, &fr, &e), 0);
                _cleanup_(ceph_drain_check_freep) CephDrainCheck *dc = NULL;
                CHECK_INTEQ(ceph_drain_check(dft, pl, cr, NULL, &fr, (char * const[]) { (char *) "node2", NULL }, &dc, &e), 0);
                CHECK(dc && !dc->ok && dc->n_osds == 2 && dc->bytes_to_move > 0);
                if (dc && !dc->ok)
                        CHECK(dc->reasons[0] && strstr(dc->reasons[0], "pool '"));
        }
        if (bal) {
                CephBalancerStatus bs;
                CHECK_INTEQ(ceph_balancer_status_parse(bal, &bs, &e), 0);
        }
        _cleanup_(ceph_osd_perf_freep) CephOsdPerf *op = NULL;
        if (perf && (parsed(ceph_osd_perf_parse(perf, &op, &e), &e) && op))
                CHECK_INTEQ(op->n_osds, 4);
        if (h2 && tree) {
                _cleanup_(ceph_slow_report_freep) CephSlowReport *sr = NULL;
                CHECK_INTEQ(ceph_slow_report(h2, op, tree, NULL, &sr, &e), 0);
                CHECK(sr && sr->n_osds == 0 && !sr->standout);
        }

        /* ceph-volume on node1: its 2 OSDs, with their DB and WAL */
        _cleanup_(freep) char *cv = slurp("ceph-volume-raw-list-node1.out");
        _cleanup_(ceph_volume_list_freep) CephVolumeList *vl = NULL;
        if (cv && (parsed(ceph_volume_raw_list_parse(cv, &vl, &e), &e) && vl))
                CHECK(vl->n_osds >= 2);
        if (e.code)
                fprintf(stderr, "%s: last error: %s\n", release_dir, e.message);
}

int main(void) {
        static const struct {
                const char *dir;
                CephRelease release;
        } releases[] = {
                { "pacific", CEPH_RELEASE_PACIFIC },
                { "reef", CEPH_RELEASE_REEF },
                { "tentacle", CEPH_RELEASE_TENTACLE },
        };
        for (size_t i = 0; i < ELEMENTSOF(releases); i++) {
                release_dir = releases[i].dir;
                fprintf(stderr, "release %s\n", release_dir);
                test_release(releases[i].release);
        }
        return test_result();
}
