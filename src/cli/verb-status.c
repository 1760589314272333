/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `cephprov status LAYOUT`: hosts, OSDs (up/in, class, data and DB devices), the fast
 * device → OSDs blast radius, bcache state, cluster health and PG states. One result
 * object, printed as text or JSON. */

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
#include "controller/ceph-admin.h"
#include "controller/cluster-steps.h"
#include "controller/convert.h"
#include "ceph/ceph-cluster.h"
#include "cli.h"
#include "controller/hosts.h"
#include "options.h"
#include "plan/plan.h"

static json_object *jget(json_object *o, const char *key) {
        json_object *v = NULL;
        return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *jstr(json_object *o, const char *key) {
        json_object *v = jget(o, key);
        return v ? json_object_get_string(v) : NULL;
}

/* A DB/WAL label names its OSD by fsid only ("whoami" is on the main device's label). */
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

static int status_build(const Layout *l, char * const *only, bool quiet, json_object **ret, Error *err) {
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

static void status_print(json_object *st, FILE *out) {
        fprintf(out, "HOSTS\n");
        json_object *hosts = jget(st, "hosts");
        for (size_t i = 0; i < json_object_array_length(hosts); i++) {
                json_object *h = json_object_array_get_idx(hosts, i);
                if (json_object_get_boolean(jget(h, "reachable")))
                        fprintf(out, "  %-12s up, %d allowed devices%s\n", (jstr(h, "host") ?: "-"),
                                json_object_get_int(jget(h, "devices")),
                                json_object_get_boolean(jget(h, "bcache_available")) ? "" : ", no bcache in kernel");
                else
                        fprintf(out, "  %-12s UNREACHABLE: %s\n", (jstr(h, "host") ?: "-"), (jstr(h, "error") ?: "-"));
        }

        fprintf(out, "\nOSDS\n  %-6s %-10s %-4s %-4s %-6s %-26s %s\n", "ID", "HOST", "UP", "IN", "CLASS", "DATA", "DB");
        json_object *osds = jget(st, "osds");
        for (size_t i = 0; i < json_object_array_length(osds); i++) {
                json_object *o = json_object_array_get_idx(osds, i);
                fprintf(out, "  osd.%-2d %-10s %-4s %-4s %-6s %-26s %s\n", json_object_get_int(jget(o, "id")),
                        jstr(o, "host") ?: "-", json_object_get_boolean(jget(o, "up")) ? "up" : "DOWN",
                        json_object_get_boolean(jget(o, "in")) ? "in" : "OUT", jstr(o, "device_class") ?: "-",
                        jstr(o, "data") ?: "-", jstr(o, "db") ?: "(on data)");
        }

        bool gone_head = false;
        for (size_t i = 0; i < json_object_array_length(osds); i++) {
                json_object *o = json_object_array_get_idx(osds, i);
                if (!json_object_get_boolean(jget(o, "data_device_gone")))
                        continue;
                if (!gone_head)
                        fprintf(out, "\nDATA DEVICES GONE (the host has none of the OSD's devices: a new disk in its place is "
                                     "`cephprov replace LAYOUT HOST DEVICE`'s, never apply's)\n");
                gone_head = true;
                fprintf(out, "  osd.%d on %s: its data device %s%s%s%s is gone\n", json_object_get_int(jget(o, "id")),
                        jstr(o, "host") ?: "-", jstr(o, "data") ?: "-", jstr(o, "device_ids") ? " (" : "",
                        jstr(o, "device_ids") ?: "", jstr(o, "device_ids") ? ")" : "");
        }

        json_object *blast = jget(st, "blast_radius");
        if (json_object_array_length(blast) > 0) {
                fprintf(out, "\nBLAST RADIUS (a fast device failing takes down these OSDs)\n");
                for (size_t i = 0; i < json_object_array_length(blast); i++) {
                        json_object *b = json_object_array_get_idx(blast, i), *ids = jget(b, "osds");
                        fprintf(out, "  %-10s %-14s →", (jstr(b, "host") ?: "-"), (jstr(b, "fast_device") ?: "-"));
                        for (size_t k = 0; k < json_object_array_length(ids); k++)
                                fprintf(out, " osd.%d", json_object_get_int(json_object_array_get_idx(ids, k)));
                        fprintf(out, "\n");
                }
        }

        json_object *bc = jget(st, "bcache");
        if (json_object_array_length(bc) > 0) {
                fprintf(out, "\nBCACHE\n");
                for (size_t i = 0; i < json_object_array_length(bc); i++) {
                        json_object *b = json_object_array_get_idx(bc, i);
                        char dirty[SIZE_FORMAT_MAX];
                        size_format((uint64_t) json_object_get_int64(jget(b, "dirty_bytes")), dirty, sizeof(dirty));
                        fprintf(out, "  %-10s %-14s %-12s %-12s %-10s dirty %s", (jstr(b, "host") ?: "-"), (jstr(b, "backing") ?: "-"),
                                jstr(b, "bcache_device") ?: "-", jstr(b, "cache_mode") ?: "-", jstr(b, "state") ?: "-", dirty);
                        char cutoff[SIZE_FORMAT_MAX];
                        size_format((uint64_t) json_object_get_int64(jget(b, "sequential_cutoff")), cutoff, sizeof(cutoff));
                        fprintf(out, ", sequential_cutoff %s", cutoff);
                        if (jget(b, "hit_ratio"))
                                fprintf(out, ", hit ratio %.0f %%", 100 * json_object_get_double(jget(b, "hit_ratio")));
                        fprintf(out, "\n");
                        json_object *w = jget(b, "warnings");
                        for (size_t k = 0; k < json_object_array_length(w); k++)
                                fprintf(out, "    warning: %s %s: %s\n", jstr(b, "host") ?: "-", jstr(b, "backing") ?: "-",
                                        json_object_get_string(json_object_array_get_idx(w, k)));
                }
        }

        json_object *cv = jget(st, "conversion");
        if (cv) {
                json_object *rp = jget(cv, "replace");
                if (rp)
                        fprintf(out, "\nREPLACEMENT of %s on %s (started %s UTC)\n", jstr(rp, "device") ?: "?",
                                jstr(rp, "host") ?: "?", jstr(cv, "started") ?: "?");
                else
                        fprintf(out, "\nCONVERSION (started %s UTC)\n", jstr(cv, "started") ?: "?");
                if (jstr(cv, "error"))
                        fprintf(out, "  progress unknown: %s\n", jstr(cv, "error"));
                const char *cur = jstr(cv, "current");
                json_object *done = jget(cv, "hosts_done"), *left = jget(cv, "hosts_left"), *cosds = jget(cv, "osds");
                fprintf(out, "  hosts done %zu, current %s, left %zu:", json_object_array_length(done), cur ? cur : "none",
                        json_object_array_length(left));
                for (size_t i = 0; i < json_object_array_length(left); i++)
                        fprintf(out, " %s", json_object_get_string(json_object_array_get_idx(left, i)));
                fprintf(out, "\n");
                for (size_t i = 0; cur && i < json_object_array_length(cosds); i++) {
                        json_object *x = json_object_array_get_idx(cosds, i);
                        if (streq_ptr(jstr(x, "host"), cur))
                                fprintf(out, "  %-10s osd.%-5d %s\n", cur, json_object_get_int(jget(x, "id")),
                                        jstr(x, "phase") ?: "not begun");
                }
                json_object *b = jget(cv, "backfill");
                if (b) {
                        fprintf(out, "  backfill: %" PRId64 " objects left, %" PRId64 " PGs not clean, %" PRId64 " objects/s",
                                json_object_get_int64(jget(b, "objects_left")), json_object_get_int64(jget(b, "pgs_not_clean")),
                                json_object_get_int64(jget(b, "objects_per_sec")));
                        if (jget(b, "eta_sec"))
                                fprintf(out, ", ETA %" PRId64 " s", json_object_get_int64(jget(b, "eta_sec")));
                        fprintf(out, "\n");
                }
        }

        json_object *th = jget(st, "throttle");
        if (th) {
                json_object *lw = jget(th, "last_window");
                int64_t age = (int64_t) time(NULL) - json_object_get_int64(jget(th, "updated"));
                fprintf(out, "\nTHROTTLE\n  adaptive (%s): rung %d of %d..%d (%s), brake %s; target p99 %.1f ms, ceiling %.1f ms\n",
                        jstr(th, "scheduler") ?: "?", json_object_get_int(jget(th, "rung")),
                        json_object_get_int(jget(th, "rung_min")), json_object_get_int(jget(th, "rung_max")),
                        jstr(th, "setting") ?: "-", json_object_get_boolean(jget(th, "brake")) ? "on (nobackfill)" : "off",
                        json_object_get_double(jget(th, "target_p99_ms")), json_object_get_double(jget(th, "ceiling_p99_ms")));
                if (jstr(th, "anchor") && streq(jstr(th, "anchor"), "set"))
                        fprintf(out, "  target anchored to the slow preset: its p99 %.1f ms (the baseline's target %.1f ms)\n",
                                json_object_get_double(jget(th, "slow_p99_ms")),
                                json_object_get_double(jget(th, "baseline_target_p99_ms")));
                else if (jstr(th, "anchor") && streq(jstr(th, "anchor"), "pending"))
                        fprintf(out, "  target from the baseline; the slow preset's p99 not measured yet\n");
                if (lw)
                        fprintf(out, "  last window: p99 %.1f ms over %d ops, %d errors (%" PRId64 " s ago)\n",
                                json_object_get_double(jget(lw, "p99_ms")), json_object_get_int(jget(lw, "ops")),
                                json_object_get_int(jget(lw, "errors")), age);
                if (jget(th, "horizon_ops")) {
                        int64_t hn = json_object_get_int64(jget(th, "horizon_ops")),
                                ho = json_object_get_int64(jget(th, "horizon_over"));
                        fprintf(out, "  error budget: %" PRId64 " of %" PRId64 " ops over the target in the last %d windows (%.1f %%, budget %g %%)\n",
                                ho, hn, json_object_get_int(jget(th, "horizon_windows")), hn ? 100.0 * (double) ho / (double) hn : 0.0,
                                100 * json_object_get_double(jget(th, "budget")));
                }
                if (jstr(th, "last_change_reason"))
                        fprintf(out, "  last change: %s\n", jstr(th, "last_change_reason"));
        }

        fprintf(out, "\nCLUSTER\n  health %s\n", jstr(st, "health") ?: "?");
        json_object *ps = jget(st, "pause");
        if (ps) {
                char when[32] = "?";
                time_t since = (time_t) json_object_get_int64(jget(ps, "since"));
                struct tm tm;
                if (gmtime_r(&since, &tm))
                        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
                fprintf(out, "  paused by cephprov pause on %s since %s: no new backfill (nobackfill) until cephprov resume\n",
                        jstr(ps, "by") ?: "?", when);
        }
        json_object *recs = jget(st, "records");
        for (size_t i = 0; i < json_object_array_length(recs); i++) {
                json_object *r = json_object_array_get_idx(recs, i);
                char age[80] = "age unknown";
                if (jget(r, "age_sec")) {
                        int64_t a = json_object_get_int64(jget(r, "age_sec"));
                        if (a >= 86400)
                                snprintf(age, sizeof age, "%" PRId64 " d %" PRId64 " h old", a / 86400, a % 86400 / 3600);
                        else if (a >= 3600)
                                snprintf(age, sizeof age, "%" PRId64 " h %" PRId64 " min old", a / 3600, a % 3600 / 60);
                        else
                                snprintf(age, sizeof age, "%" PRId64 " min %" PRId64 " s old", a / 60, a % 60);
                }
                fprintf(out, "  open record %s: %s, left by run %s (a restore step, or the next run's after, puts it "
                             "back)\n",
                        jstr(r, "record") ?: "?", age, jstr(r, "run") ?: "unknown (an older cephprov)");
        }
        json_object *checks = jget(st, "checks");
        for (size_t i = 0; i < json_object_array_length(checks); i++) {
                json_object *c = json_object_array_get_idx(checks, i);
                fprintf(out, "    %s %s: %s\n", (jstr(c, "severity") ?: "-"), (jstr(c, "check") ?: "-"), (jstr(c, "summary") ?: "-"));
        }
        json_object *slow = jget(st, "slow");
        if (slow)
                fprintf(out, "  slow: %s\n", jstr(slow, "sentence") ?: "-");
        fprintf(out, "  pgs %d:", json_object_get_int(jget(st, "num_pgs")));
        json_object *pgs = jget(st, "pg_states");
        for (size_t i = 0; i < json_object_array_length(pgs); i++) {
                json_object *p = json_object_array_get_idx(pgs, i);
                fprintf(out, "%s %d %s", i ? "," : "", json_object_get_int(jget(p, "count")), (jstr(p, "state") ?: "-"));
        }
        fprintf(out, "\n");
}

int verb_status(int argc, char *argv[]) {
        const Verb *v = verb_find("status");
        _cleanup_(cli_options_done) CliOptions o = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        int r = cli_options_parse_layout(v, argc, argv, OPT_JSON | OPT_HOSTS, &o, &l);
        if (r != 0)
                return r;

        Error err = {};
        _cleanup_json_ json_object *st = NULL;
        if (status_build(l, o.hosts, o.json, &st, &err) < 0)
                return cli_report(&err);
        if (o.json)
                printf("%s\n", json_to_pretty(st));
        else
                status_print(st, stdout);
        return 0;
}
