/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An OSD's state in the cluster: out and in, destroy and purge, its host's CRUSH bucket removed, CRUSH weights. */

#include "controller/steps/steps-internal.h"

/* Keeps those of ids[0..*n) that are in the OSD map: an OSD purged already (destroy, run
 * again after a kill) has nothing left to mark or to wait for. */
int cs_existing_osds(ClusterSteps *cs, int *ids, size_t *n, Error *err) {
        if (*n == 0)
                return 0;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        int r = cs_osd_dump(cs, &d, err);
        if (r < 0)
                return r;
        size_t k = 0;
        for (size_t i = 0; i < *n; i++)
                if (ceph_osd_dump_find_osd(d, ids[i]))
                        ids[k++] = ids[i];
        *n = k;
        return 0;
}

static int step_out_in(ClusterSteps *cs, json_object *args, bool out, json_object **ret, Error *err) {
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        int r = cs_osds_arg(args, &ids, &n, err);
        if (r < 0 || (r = cs_existing_osds(cs, ids, &n, err)) < 0)
                return r;
        if (n > 0 && (r = ceph_admin_run(cs->admin, out ? ceph_argv_osd_out(cs_cli(cs), ids, n, err)
                                                        : ceph_argv_osd_in(cs_cli(cs), ids, n, err),
                                         NULL, NULL, err)) < 0)
                return r;
        /* checked: the OSD map says so */
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        if (n > 0 && (r = cs_osd_dump(cs, &d, err)) < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                const CephDumpOsd *o = ceph_osd_dump_find_osd(d, ids[i]);
                if (o && o->in == out)
                        return error_set(err, EIO, "after 'osd %s': the OSD map still has osd.%d %s", out ? "out" : "in",
                                         ids[i], out ? "in" : "out");
        }
        return cs_result_new(ret, err);
}

int cluster_step_out(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        return step_out_in(cs, args, true, ret, err);
}

int cluster_step_in(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        return step_out_in(cs, args, false, ret, err);
}

int cs_osd_dump(ClusterSteps *cs, CephOsdDump **ret, Error *err) {
        return ceph_admin_osd_dump(cs->admin, ret, err);
}

static int step_purge_destroy(ClusterSteps *cs, json_object *args, bool purge, json_object **ret, Error *err) {
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        int r = cs_osds_arg(args, &ids, &n, err);
        if (r < 0)
                return r;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        if ((r = cs_osd_dump(cs, &d, err)) < 0)
                return r;
        _cleanup_json_ json_object *res = NULL;
        if ((r = cs_result_new(&res, err)) < 0)
                return r;
        json_object *done = json_object_new_array();
        json_add(res, purge ? "purged" : "destroyed", done);
        /* those still to do; Ceph's own purge and destroy refuse only an OSD that is up: one
         * that still holds the only copy of a PG is refused here, as safe-to-destroy says */
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
                const CephDumpOsd *o = ceph_osd_dump_find_osd(d, ids[i]);
                if (!o || (!purge && o->destroyed))
                        continue; /* done already (a re-run) */
                if (o->up)
                        return error_set(err, EBUSY, "osd.%d is up: refusing to %s it (stop it first)", ids[i],
                                         purge ? "purge" : "destroy");
                ids[k++] = ids[i];
        }
        n = k;
        /* in place (a conversion): the OSDs were stopped after ok-to-stop and their data comes
         * back from the other copies onto the same ids; safe-to-destroy would wait for ever */
        bool in_place = false;
        (void) json_get_bool(args, "in_place", false, &in_place, "destroy-osd", NULL);
        if (n > 0 && in_place && !purge) {
                /* asked now, at the act, on every run: no PG may be left without a readable
                 * copy, counting every OSD down now (another host failed since ok-to-stop, or
                 * since the run that stopped these OSDs was killed) */
                _cleanup_(freep) char *list = cs_osds_text(ids, n);
                _cleanup_(freep) char *act = strprintf("destroy %s in place", list ? list : "the OSDs");
                if ((r = ceph_admin_copies_gate(cs->admin, ids, n, act ? act : "destroy in place", err)) < 0)
                        return r;
        }
        if (n > 0 && !(in_place && !purge)) {
                _cleanup_(freep) char *out = NULL;
                _cleanup_(ceph_safe_to_destroy_freep) CephSafeToDestroy *sd = NULL;
                Error e = {};
                r = ceph_admin_run(cs->admin, ceph_argv_safe_to_destroy(cs_cli(cs), ids, n, &e), NULL, &out, &e);
                if (r == -EBUSY || r == -EAGAIN)
                        return error_set(err, EBUSY, "refusing to %s: not safe to destroy yet (%s)",
                                         purge ? "purge" : "destroy", e.message);
                if (r < 0)
                        return error_set(err, -r, "%s", e.message);
                if ((r = ceph_safe_to_destroy_parse(0, out, "", ids, n, &sd, &e)) < 0)
                        return error_set(err, -r, "'ceph osd safe-to-destroy' on '%s': %s", cs->admin->host->name,
                                         e.message);
                for (size_t i = 0; i < n; i++)
                        if (!ceph_safe_to_destroy_is_safe(sd, ids[i]))
                                return error_set(err, EBUSY, "osd.%d is not safe to destroy (its PGs have no other "
                                                             "copy yet): refusing to %s it", ids[i],
                                                 purge ? "purge" : "destroy");
        }
        for (size_t i = 0; i < n; i++) {
                r = ceph_admin_run(cs->admin, purge ? ceph_argv_osd_purge(cs_cli(cs), ids[i], err)
                                                    : ceph_argv_osd_destroy(cs_cli(cs), ids[i], err),
                                   NULL, NULL, err);
                if (r < 0)
                        return r;
                json_object_array_add(done, json_object_new_int(ids[i]));
        }
        /* checked: purged, gone from the OSD map, CRUSH and auth; destroyed, marked so */
        if (n > 0) {
                _cleanup_(ceph_osd_dump_freep) CephOsdDump *after = NULL;
                _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = NULL;
                if ((r = cs_osd_dump(cs, &after, err)) < 0 || (purge && (r = ceph_admin_osd_tree(cs->admin, &t, err)) < 0))
                        return r;
                for (size_t i = 0; i < n; i++) {
                        const CephDumpOsd *o = ceph_osd_dump_find_osd(after, ids[i]);
                        if (!purge) {
                                if (!o || !o->destroyed)
                                        return error_set(err, EIO, "after 'osd destroy': osd.%d is not marked destroyed",
                                                         ids[i]);
                                continue;
                        }
                        if (o || ceph_osd_tree_find_osd(t, ids[i]))
                                return error_set(err, EIO, "after 'osd purge': osd.%d is still in the %s", ids[i],
                                                 o ? "OSD map" : "CRUSH map");
                        char entity[32];
                        snprintf(entity, sizeof entity, "osd.%d", ids[i]);
                        Error e = {};
                        r = ceph_admin_run(cs->admin, ceph_argv_auth_get(cs_cli(cs), entity, &e), NULL, NULL, &e);
                        if (r != -ENOENT)
                                return error_set(err, EIO, "after 'osd purge': %s %s", entity,
                                                 r >= 0 ? "still has a key" : e.message);
                }
        }
        *ret = TAKE_PTR(res);
        return 0;
}

/* Which of ids[0..n) are still `host`'s (ceph_osd_of_host(): its CRUSH bucket, else its
 * metadata hostname) or no longer in the OSD map (purged: nothing left to act on): *ret_own
 * gets those, *ret_other the rest, each as osd.N of the host that has it now ("osd.9 (now
 * node2's)"). A destroy's record keeps the ids it purged; once purged, an id can be given to
 * another host's new OSD, which is never that record's to act on. */
static int osds_of_host(CephAdmin *a, const char *host, const int *ids, size_t n, int **ret_own, size_t *ret_n_own,
                        char ***ret_other, Error *err) {
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = NULL;
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *md = NULL;
        _cleanup_(freep) int *own = calloc(n ? n : 1, sizeof(int));
        _cleanup_strv_free_ char **other = NULL;
        size_t k = 0;
        int r;
        if (!own)
                return error_set(err, ENOMEM, "out of memory");
        if (n > 0 && ((r = ceph_admin_osd_dump(a, &d, err)) < 0 || (r = ceph_admin_osd_tree(a, &t, err)) < 0))
                return r;
        for (size_t i = 0; i < n; i++) {
                const CephTreeOsd *to = ceph_osd_tree_find_osd(t, ids[i]);
                if (ceph_osd_dump_find_osd(d, ids[i]) && (!to || !to->host) && !md &&
                    (r = ceph_admin_osd_metadata(a, &md, err)) < 0)
                        return r;
                if (!ceph_osd_dump_find_osd(d, ids[i]) || ceph_osd_of_host(t, md, ids[i], host)) {
                        own[k++] = ids[i];
                        continue;
                }
                const char *now = ceph_osd_host_of(t, md, ids[i]);
                if (strv_consume(&other, now ? strprintf("osd.%d (now %s's)", ids[i], now)
                                             : strprintf("osd.%d (of no known host)", ids[i])) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        *ret_own = TAKE_PTR(own);
        *ret_n_own = k;
        *ret_other = other;
        other = NULL;
        return 0;
}

int cluster_osds_of_host(CephAdmin *a, const char *host, const int *ids, size_t n, int **ret_own, size_t *ret_n_own,
                         char ***ret_other, Error *err) {
        return osds_of_host(a, host, ids, n, ret_own, ret_n_own, ret_other, err);
}

/* In a host's list, purge only the OSDs that are still that host's (osds_of_host()): the
 * others are left alone and named in the result ("not_purged"), never purged. */
int cluster_step_purge(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        const char *host = c ? wave_call_host(c) : NULL;
        if (!host)
                return step_purge_destroy(cs, args, true, ret, err);
        _cleanup_(freep) int *ids = NULL, *own = NULL;
        _cleanup_strv_free_ char **other = NULL;
        size_t n = 0, n_own = 0;
        int r = cs_osds_arg(args, &ids, &n, err);
        if (r < 0 || (r = osds_of_host(cs->admin, host, ids, n, &own, &n_own, &other, err)) < 0)
                return r;
        _cleanup_json_ json_object *a2 = NULL;
        if (json_object_deep_copy(args, &a2, NULL) < 0 || json_add(a2, "osds", json_array_new_ints(own, n_own)) < 0)
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_json_ json_object *res = NULL;
        if ((r = step_purge_destroy(cs, a2, true, &res, err)) < 0)
                return r;
        if (other) {
                _cleanup_(freep) char *list = strv_join(other, ", ");
                if (cs->log)
                        fprintf(cs->log, "purge-osd on %s: %s not purged: no longer this host's\n", host,
                                list ? list : "");
                json_add(res, "not_purged", json_array_new_strv(other));
        }
        *ret = TAKE_PTR(res);
        return 0;
}

int cluster_step_destroy(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        return step_purge_destroy(cs, args, false, ret, err);
}

int cluster_step_crush_remove_host(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        const char *host = NULL;
        int r = json_get_string(args, "host", true, &host, "crush-remove-host", err);
        if (r < 0)
                return r;
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = NULL;
        if ((r = ceph_admin_osd_tree(cs->admin, &t, err)) < 0)
                return r;
        const CephTreeHost *h = ceph_osd_tree_find_host(t, host);
        if (h && h->n_osds > 0)
                return error_set(err, ENOTEMPTY, "host bucket '%s' still holds %zu OSD%s: refusing to remove it", host,
                                 h->n_osds, h->n_osds == 1 ? "" : "s");
        if (h && (r = ceph_admin_run(cs->admin, ceph_argv_osd_crush_rm(cs_cli(cs), host, err), NULL, NULL, err)) < 0)
                return r;
        bool removed = h != NULL;
        if (removed) {
                /* checked: no bucket of that name is left */
                t = ceph_osd_tree_free(t);
                if ((r = ceph_admin_osd_tree(cs->admin, &t, err)) < 0)
                        return r;
                if (ceph_osd_tree_find_host(t, host))
                        return error_set(err, EIO, "after 'osd crush rm %s': the host bucket is still there", host);
        }
        if ((r = cs_result_new(ret, err)) < 0)
                return r;
        json_add_bool(*ret, "removed", removed);
        return 0;
}

/* crush-reweight: each OSD's CRUSH weight towards `weight`, by at most `step` at a time,
 * every PG active+clean between steps. The weights are read from the cluster each round, so
 * a re-run after a kill goes on from where they are. */
int cluster_step_crush_reweight(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        int r = cs_osds_arg(args, &ids, &n, err);
        if (r < 0 || (r = cs_existing_osds(cs, ids, &n, err)) < 0)
                return r;
        json_object *v = NULL;
        if (!json_object_object_get_ex(args, "weight", &v) ||
            !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
                return error_set(err, EINVAL, "crush-reweight: 'weight' must be a number");
        double target = json_object_get_double(v), step = 0;
        if (json_object_object_get_ex(args, "step", &v) && v)
                step = json_object_get_double(v);
        if (!(target >= 0) || !(step >= 0))
                return error_set(err, EINVAL, "crush-reweight: invalid weight %g or step %g", target, step);
        unsigned timeout = cs_arg_timeout(args, 43200);
        _cleanup_json_ json_object *res = NULL;
        if ((r = cs_result_new(&res, err)) < 0)
                return r;
        json_object *from = json_object_new_object();
        json_add(res, "from", from);
        unsigned rounds = 0;
        for (;;) {
                _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = NULL;
                if ((r = ceph_admin_osd_tree(cs->admin, &t, err)) < 0)
                        return r;
                size_t moved = 0;
                for (size_t i = 0; i < n; i++) {
                        const CephTreeOsd *o = ceph_osd_tree_find_osd(t, ids[i]);
                        if (!o)
                                continue;
                        char name[32];
                        snprintf(name, sizeof name, "osd.%d", ids[i]);
                        if (rounds == 0)
                                json_object_object_add(from, name, json_object_new_double(o->crush_weight));
                        /* CRUSH keeps weights in 16.16 fixed point: within one unit is there */
                        double cur = o->crush_weight;
                        if (fabs(cur - target) <= 1.0 / 65536 + 1e-9)
                                continue;
                        double next = target;
                        if (step > 0 && fabs(cur - target) > step)
                                next = cur > target ? cur - step : cur + step;
                        if ((r = ceph_admin_run(cs->admin, ceph_argv_osd_crush_reweight(cs_cli(cs), ids[i], next, err), NULL,
                                                NULL, err)) < 0)
                                return r;
                        moved++;
                }
                if (moved == 0)
                        break;
                if (++rounds > 1000)
                        return error_set(err, ELOOP, "crush-reweight towards %.5f: still not there after 1000 rounds "
                                                     "(is the step too small?)", target);
                /* the mgr's PG statistics trail the OSD map by up to a report period (5 s):
                 * probed at once, the PGs would still look clean */
                nanosleep(&(struct timespec) { .tv_sec = 5 }, NULL);
                RecoveryProbe p = {};
                _cleanup_(freep) char *what = strprintf("CRUSH weights towards %.5f (round %u): waiting for every PG to "
                                                        "be active+clean", target, rounds);
                if ((r = cs_wait_for(cs, c, what ? what : "crush-reweight", timeout, cs_probe_clean, &p, err)) < 0)
                        return r;
        }
        json_add(res, "weight", json_object_new_double(target));
        json_add_u64(res, "rounds", rounds);
        *ret = TAKE_PTR(res);
        return 0;
}
