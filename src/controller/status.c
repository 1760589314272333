/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What `cephprov status` shows, built as one JSON object (controller/status.h). */
#include "controller/status.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/size.h"
#include "basic/strv.h"
#include "ceph/ceph-cluster.h"
#include "controller/ceph-admin.h"
#include "controller/cluster-steps.h"
#include "controller/convert.h"
#include "controller/hosts.h"
#include "plan/plan.h"

static int osd_id_by_fsid(const Inventory *in, const char *fsid) {
        for (size_t d = 0; fsid && d < in->n_devices; d++) {
                const InvDevice *dev = &in->devices[d];
                if (dev->content.osd.id >= 0 && streq_ptr(dev->content.osd.osd_fsid, fsid))
                        return dev->content.osd.id;
                for (size_t k = 0; k < dev->n_partitions; k++)
                        if (dev->partitions[k].content.osd.id >= 0 && streq_ptr(dev->partitions[k].content.osd.osd_fsid, fsid))
                                return dev->partitions[k].content.osd.id;
        }
        return -1;
}

/* Whether OSD `id` (uuid `fsid`) on host inventory `in` is encrypted: its main label was read
 * through a dm-crypt mapping (ceph-volume's dmcrypt). -1: the inventory does not show it. */
static int osd_encrypted(const Inventory *in, int id, const char *fsid) {
        for (size_t d = 0; in && d < in->n_devices; d++) {
                const InvDevice *dev = &in->devices[d];
                for (size_t k = 0; k <= dev->n_partitions; k++) {
                        const InvOsd *o = k == 0 ? &dev->content.osd : &dev->partitions[k - 1].content.osd;
                        if (o->id == id && o->role && streq(o->role, "block") && (!fsid || !o->osd_fsid || streq(o->osd_fsid, fsid)))
                                return o->encrypted;
                }
        }
        return -1;
}

/* Per host: reachability, the fast device → OSDs blast radius (from the DB/WAL labels on
 * its partitions) and bcache backing devices. */
static void add_inventory_osds(json_object *hosts_j, const InventorySet *inv, json_object *blast, json_object *bcache) {
        for (size_t h = 0; h < inv->n_hosts; h++) {
                const Inventory *in = inv->hosts[h];
                json_object *hj = json_object_new_object();
                json_object_array_add(hosts_j, hj);
                json_add_string(hj, "host", in->host);
                json_add_string(hj, "hostname", in->hostname);
                json_add_bool(hj, "reachable", true);
                json_add_u64(hj, "devices", in->n_devices);
                json_add_bool(hj, "bcache_available", in->bcache_available);
                for (size_t d = 0; d < in->n_devices; d++) {
                        const InvDevice *dev = &in->devices[d];
                        json_object *ids = json_object_new_array();
                        for (size_t k = 0; k < dev->n_partitions; k++) {
                                const InvOsd *o = &dev->partitions[k].content.osd;
                                int id = o->id >= 0 ? o->id : osd_id_by_fsid(in, o->osd_fsid);
                                if (id >= 0 && ((o->role && streq(o->role, "block.db")) || (o->role && streq(o->role, "block.wal")) ||
                                                (o->role && streq(o->role, "journal"))))
                                        json_object_array_add(ids, json_object_new_int(id));
                        }
                        if (json_object_array_length(ids) > 0) {
                                json_object *b = json_object_new_object();
                                json_add_string(b, "host", in->host);
                                json_add_string(b, "fast_device", dev->path);
                                json_add(b, "osds", ids);
                                json_object_array_add(blast, b);
                        } else
                                json_object_put(ids);
                        const InvBcache *bc = &dev->content.bcache;
                        if (bc->role == BCACHE_ROLE_BACKING) {
                                json_object *b = json_object_new_object();
                                json_add_string(b, "host", in->host);
                                json_add_string(b, "backing", dev->path);
                                json_add_string(b, "bcache_device", bc->bcache_device);
                                json_add_string(b, "cache_set", bc->set_uuid);
                                json_add_string(b, "cache_mode", bc->cache_mode);
                                json_add_string(b, "state", bc->state);
                                json_add_u64(b, "dirty_bytes", bc->dirty_bytes);
                                json_add_u64(b, "sequential_cutoff", bc->sequential_cutoff);
                                if (bc->hit_ratio >= 0)
                                        json_add(b, "hit_ratio", json_object_new_double(bc->hit_ratio));
                                _cleanup_strv_free_ char **w = NULL;
                                json_object *wj = json_object_new_array();
                                if (inv_bcache_warnings(bc, &w) >= 0)
                                        STRV_FOREACH(x, w)
                                                json_object_array_add(wj, json_object_new_string(*x));
                                json_add(b, "warnings", wj);
                                json_object_array_add(bcache, b);
                        }
                }
        }
}

int controller_status(const Layout *l, char * const *only, bool quiet, json_object **ret, Error *err) {
        _cleanup_json_ json_object *st = json_object_new_object();
        json_object *hosts_j = json_object_new_array(), *osds_j = json_object_new_array(),
                    *blast = json_object_new_array(), *bcache = json_object_new_array();
        json_add(st, "hosts", hosts_j);
        json_add(st, "osds", osds_j);
        json_add(st, "blast_radius", blast);
        json_add(st, "bcache", bcache);

        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        _cleanup_(fleet_closep) Fleet *f = NULL;
        size_t failed = 0;
        /* the cluster client's connection is made while the hosts are inventoried */
        _cleanup_(prewarm_endp) bool prewarmed = true;
        ceph_admin_prewarm(l, 1);
        int r = controller_inventory(l, only, true, quiet, &f, &inv, &failed, err);
        if (r < 0)
                return r;
        add_inventory_osds(hosts_j, inv, blast, bcache);
        for (size_t i = 0; i < f->n; i++)
                if (f->sessions[i].r < 0) {
                        json_object *hj = json_object_new_object();
                        json_add_string(hj, "host", f->sessions[i].host->name);
                        json_add_bool(hj, "reachable", false);
                        json_add_string(hj, "error", f->sessions[i].error.message);
                        json_object_array_add(hosts_j, hj);
                }

        _cleanup_(ceph_admin_closep) CephAdmin *admin = NULL;
        r = ceph_admin_open(l, &admin, err);
        if (r < 0)
                return r;
        _cleanup_(ceph_health_freep) CephHealth *health = NULL;
        _cleanup_(ceph_pg_stat_freep) CephPgStat *pgstat = NULL;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *tree = NULL;
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *meta = NULL;
        if ((r = ceph_admin_status(admin, &health, &pgstat, err)) < 0 ||
            (r = ceph_admin_osd_dump(admin, &dump, err)) < 0 ||
            (r = ceph_admin_osd_tree(admin, &tree, err)) < 0 ||
            (r = ceph_admin_osd_metadata(admin, &meta, err)) < 0)
                return r;

        /* which node is sick: slow ops and latency outliers by host (`health detail` names
         * the OSDs; `osd perf` needs the mgr and is left out when it cannot answer) */
        {
                _cleanup_(freep) char *hd = NULL, *pf = NULL;
                _cleanup_(ceph_health_freep) CephHealth *detail = NULL;
                _cleanup_(ceph_osd_perf_freep) CephOsdPerf *perf = NULL;
                _cleanup_(ceph_slow_report_freep) CephSlowReport *slow = NULL;
                Error e = {};
                if ((r = ceph_admin_run(admin, ceph_argv_health_detail(ceph_admin_cli(admin), err), NULL, &hd, err)) < 0)
                        return r;
                if ((r = ceph_health_parse(hd, &detail, &e)) < 0)
                        return error_set(err, EBADMSG, "'ceph health detail' on '%s': %s", admin->host->name, e.message);
                Error pe = {};
                if (ceph_admin_run(admin, ceph_argv_osd_perf(ceph_admin_cli(admin), &pe), NULL, &pf, &pe) < 0 ||
                    ceph_osd_perf_parse(pf, &perf, &pe) < 0)
                        log_debug("no OSD latencies: %s", pe.message);
                if ((r = ceph_slow_report(detail, perf, tree, NULL, &slow, err)) < 0)
                        return r;
                json_object *sj = ceph_slow_report_to_json(slow);
                _cleanup_(freep) char *sentence = ceph_slow_report_sentence(slow);
                if (!sj || !sentence)
                        return error_set(err, ENOMEM, "out of memory");
                json_add_string(sj, "sentence", sentence);
                json_add(st, "slow", sj);
        }

        /* the adaptive throttle's state while a drain runs under it (its last publication) */
        {
                json_object *ts = NULL;
                Error te = {};
                if (cluster_throttle_state(admin, &ts, &te) < 0)
                        log_debug("no throttle state: %s", te.message);
                else if (ts)
                        json_add(st, "throttle", ts);
                /* the operator's pause (`cephprov pause`) */
                json_object *ps = NULL;
                if (cluster_pause_get(admin, &ps, &te) < 0)
                        log_debug("no pause record: %s", te.message);
                else if (ps)
                        json_add(st, "pause", ps);
                /* every restore record a run left open (throttle, balancer, autoscaler, flags):
                 * while one is there, something of cephprov's is still set */
                json_object *recs = NULL;
                if (cluster_restore_records(admin, &recs, &te) < 0)
                        log_warning("the restore records cannot be read: %s", te.message);
                else
                        json_add(st, "records", recs);
        }

        /* a conversion under way (cephprov convert): hosts done, current, left, each OSD's last
         * phase, and the backfill it waits for */
        {
                json_object *cv = NULL;
                Error ce = {};
                if (convert_status(l, &cv, &ce) < 0) {
                        log_warning("a conversion is under way, but its progress cannot be read: %s", ce.message);
                        cv = json_object_new_object();
                        json_add_string(cv, "error", ce.message);
                }
                if (cv) {
                        _cleanup_(freep) char *ps = NULL;
                        CephRecovery rec;
                        if (ceph_admin_run(admin, ceph_argv_pg_stat(ceph_admin_cli(admin), &ce), NULL, &ps, &ce) >= 0 &&
                            ceph_recovery_parse(ps, &rec, &ce) >= 0) {
                                /* one sample: the rate is the cluster's own (the drain's progress) */
                                CephDrainProgress pr;
                                ceph_drain_progress(NULL, NULL, &rec, 0, 0, &pr);
                                json_object *b = json_object_new_object();
                                json_add_u64(b, "objects_left", pr.objects_left);
                                json_add_u64(b, "pgs_not_clean", pr.pgs_left);
                                json_add_u64(b, "objects_per_sec", (uint64_t) pr.objects_per_sec);
                                if (pr.objects_left > 0 && pr.eta_sec >= 0)
                                        json_add_u64(b, "eta_sec", (uint64_t) ceil(pr.eta_sec));
                                json_add(cv, "backfill", b);
                        }
                        json_add(st, "conversion", cv);
                }
        }

        json_add_string(st, "health", ceph_health_status_to_string(health->status));
        json_object *checks = json_object_new_array();
        for (size_t i = 0; i < health->n_checks; i++) {
                const CephHealthCheck *chk = &health->checks[i];
                json_object *c = json_object_new_object();
                json_add_string(c, "check", chk->code);
                json_add_string(c, "severity", ceph_health_status_to_string(chk->severity));
                json_add_string(c, "summary", chk->summary);
                json_object_array_add(checks, c);
        }
        json_add(st, "checks", checks);
        json_object *pgs = json_object_new_array();
        for (size_t i = 0; i < pgstat->n_states; i++) {
                json_object *c = json_object_new_object();
                json_add_string(c, "state", pgstat->states[i].state);
                json_add_int(c, "count", (int64_t) pgstat->states[i].count);
                json_object_array_add(pgs, c);
        }
        json_add(st, "pg_states", pgs);
        json_add_int(st, "num_pgs", (int64_t) pgstat->num_pgs);

        for (size_t i = 0; i < dump->n_osds; i++) {
                const CephDumpOsd *o = &dump->osds[i];
                int id = o->id;
                const CephOsdMetadata *m = ceph_osd_metadata_find(meta, id);
                const CephTreeOsd *n = ceph_osd_tree_find_osd(tree, id);
                const char *crush_host = n ? n->host : NULL;
                const char *host = m && m->hostname ? m->hostname : crush_host;
                if (only && host && !strv_contains(only, host))
                        continue;
                _cleanup_(freep) char *devices = m && m->devices ? strv_join(m->devices, ",") : NULL;
                if (m && m->devices && !devices)
                        return error_set(err, ENOMEM, "out of memory");
                json_object *oj = json_object_new_object();
                json_add_int(oj, "id", id);
                json_add_string(oj, "host", host);
                json_add_string(oj, "crush_host", crush_host);
                json_add_bool(oj, "up", o->up);
                json_add_bool(oj, "in", o->in);
                json_add_string(oj, "device_class", n ? n->device_class : NULL);
                json_add_string(oj, "status", n ? ceph_osd_tree_status_to_string(n->status) : NULL);
                json_add_string(oj, "objectstore", m ? m->objectstore : NULL);
                json_add_string(oj, "data", m ? (m->bdev_path ?: m->filestore_path) : NULL);
                json_add_string(oj, "db", m ? m->db_path : NULL);
                json_add_string(oj, "wal", m ? m->wal_path : NULL);
                json_add_string(oj, "devices", devices);
                /* its host inventoried and none of its devices carries it: its data device is gone */
                const Inventory *hi = inventory_set_find(inv, crush_host ?: "");
                if (!hi && host)
                        hi = inventory_set_find(inv, host);
                /* (absent: its host not inventoried, or its data device not seen there) */
                int enc = osd_encrypted(hi, id, o->uuid);
                if (enc >= 0)
                        json_add_bool(oj, "encrypted", enc);
                if (hi && n && n->status != CEPH_OSD_TREE_DESTROYED && !plan_inventory_has_osd(hi, id, o->uuid)) {
                        json_add_bool(oj, "data_device_gone", true);
                        _cleanup_(freep) char *ids = m && m->device_ids ? strv_join(m->device_ids, ",") : NULL;
                        json_add_string(oj, "device_ids", ids);
                }
                json_object_array_add(osds_j, oj);
        }
        *ret = TAKE_PTR(st);
        return 0;
}
