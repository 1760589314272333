/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `balancer status`, `osd perf` and the recovery counters of `pg stat` / `status`. */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph-cluster.h"
#include "ceph-internal.h"

/* ---- balancer ---------------------------------------------------------------------- */

int ceph_balancer_status_parse(const char *json, CephBalancerStatus *ret, Error *err) {
        const char *what = "ceph balancer status";
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, what, &root, err);
        if (r < 0)
                return r;
        CephBalancerStatus s = {};
        const char *mode;
        if ((r = json_get_bool(root, "active", true, &s.active, what, err)) < 0 ||
            (r = json_get_string(root, "mode", true, &mode, what, err)) < 0)
                return r;
        if (!mode[0] || strlen(mode) >= sizeof s.mode)
                return error_set(err, EINVAL, "%s: invalid mode '%.40s'", what, mode);
        strcpy(s.mode, mode);
        *ret = s;
        return 0;
}

/* ---- osd perf ---------------------------------------------------------------------- */

CephOsdPerf *ceph_osd_perf_free(CephOsdPerf *p) {
        if (!p)
                return NULL;
        free(p->osds);
        free(p);
        return NULL;
}

static int perf_cmp(const void *a, const void *b) {
        return ceph_int_cmp(&((const CephOsdPerfEntry *) a)->id, &((const CephOsdPerfEntry *) b)->id);
}

/* KEY_ns (integer nanoseconds) when printed, else KEY_ms (integer or float milliseconds) */
static int latency_get(json_object *stats, const char *key, double *ret, Error *err) {
        const char *what = "ceph osd perf";
        char k[64];
        json_object *v;
        snprintf(k, sizeof k, "%s_ns", key);
        if (json_object_object_get_ex(stats, k, &v)) {
                uint64_t ns;
                int r = json_get_u64(stats, k, true, &ns, what, err);
                if (r < 0)
                        return r;
                *ret = (double) ns / 1e6;
                return 0;
        }
        snprintf(k, sizeof k, "%s_ms", key);
        if (!json_object_object_get_ex(stats, k, &v))
                return error_set(err, EINVAL, "%s: missing key '%s'", what, k);
        if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
                return error_set(err, EINVAL, "%s: key '%s' is not a number", what, k);
        double d = json_object_get_double(v);
        if (!isfinite(d) || d < 0)
                return error_set(err, EINVAL, "%s: key '%s' is not a latency", what, k);
        *ret = d;
        return 0;
}

int ceph_osd_perf_parse(const char *json, CephOsdPerf **ret, Error *err) {
        const char *what = "ceph osd perf";
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, what, &root, err);
        if (r < 0)
                return r;
        json_object *stats = root, *infos;
        /* the mon and mgr wrap the list in "osdstats" */
        if (json_get_object(root, "osdstats", false, &stats, what, NULL) < 0)
                stats = root;
        if ((r = json_get_array(stats, "osd_perf_infos", true, &infos, what, err)) < 0)
                return r;
        size_t n = json_object_array_length(infos);
        _cleanup_(ceph_osd_perf_freep) CephOsdPerf *p = calloc(1, sizeof(CephOsdPerf));
        if (!p || !(p->osds = calloc(n ? n : 1, sizeof(CephOsdPerfEntry))))
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(infos, i), *ps;
                int64_t id;
                if ((r = json_get_int(e, "id", true, &id, what, err)) < 0)
                        return r;
                if (id < 0 || id > INT32_MAX)
                        return error_set(err, ERANGE, "%s: osd id %lld out of range", what, (long long) id);
                /* FileStore-era releases said "fs_perf_stat"-backed "perf_stats" too */
                if ((r = json_get_object(e, "perf_stats", true, &ps, what, err)) < 0)
                        return r;
                CephOsdPerfEntry *o = &p->osds[p->n_osds++];
                o->id = (int) id;
                if ((r = latency_get(ps, "commit_latency", &o->commit_latency_ms, err)) < 0 ||
                    (r = latency_get(ps, "apply_latency", &o->apply_latency_ms, err)) < 0)
                        return error_prefix(err, r, "osd.%d", o->id);
        }
        qsort(p->osds, p->n_osds, sizeof(CephOsdPerfEntry), perf_cmp);
        for (size_t i = 1; i < p->n_osds; i++)
                if (p->osds[i].id == p->osds[i - 1].id)
                        return error_set(err, EINVAL, "%s: osd.%d is listed twice", what, p->osds[i].id);
        *ret = TAKE_PTR(p);
        return 0;
}

const CephOsdPerfEntry *ceph_osd_perf_find(const CephOsdPerf *p, int id) {
        for (size_t i = 0; p && i < p->n_osds; i++)
                if (p->osds[i].id == id)
                        return &p->osds[i];
        return NULL;
}

/* ---- recovery ---------------------------------------------------------------------- */

/* plainly active+clean: what ceph_pg_stat_all_active_clean() counts as clean */
static bool state_clean(const char *state) {
        return ceph_pg_state_has(state, "active") && ceph_pg_state_has(state, "clean") &&
               !ceph_pg_state_has(state, "remapped") && !ceph_pg_state_has(state, "degraded") &&
               !ceph_pg_state_has(state, "undersized") && !ceph_pg_state_has(state, "inconsistent");
}

int ceph_recovery_parse(const char *json, CephRecovery *ret, Error *err) {
        _cleanup_(ceph_pg_stat_freep) CephPgStat *s = NULL;
        int r = ceph_pg_stat_parse(json, &s, err);
        if (r < 0)
                return r;
        _cleanup_json_ json_object *root = NULL;
        r = ceph_json_parse(json, "ceph pg stat", &root, err);
        if (r < 0)
                return r;
        json_object *o;
        const char *what = "ceph pg stat", *bytes_key = "num_bytes";
        if (json_get_object(root, "pg_summary", false, &o, what, NULL) < 0) {
                what = "ceph status pgmap";
                bytes_key = "data_bytes";
                if ((r = json_get_object(root, "pgmap", true, &o, what, err)) < 0)
                        return r;
        }
        CephRecovery v = {
                .num_pgs = s->num_pgs,
                .degraded_objects = s->degraded_objects,
                .misplaced_objects = s->misplaced_objects,
                .unfound_objects = s->unfound_objects,
        };
        uint64_t clean = 0;
        for (size_t i = 0; i < s->n_states; i++)
                if (state_clean(s->states[i].state))
                        clean += s->states[i].count;
        v.pgs_not_clean = clean < v.num_pgs ? v.num_pgs - clean : 0;
        /* printed only while something is degraded, misplaced or recovering */
        static const struct {
                const char *key;
                size_t offset;
        } optional[] = {
                { "degraded_total", offsetof(CephRecovery, degraded_total) },
                { "misplaced_total", offsetof(CephRecovery, misplaced_total) },
                { "recovering_objects_per_sec", offsetof(CephRecovery, recovering_objects_per_sec) },
                { "recovering_bytes_per_sec", offsetof(CephRecovery, recovering_bytes_per_sec) },
        };
        for (size_t i = 0; i < ELEMENTSOF(optional); i++) {
                r = json_get_u64(o, optional[i].key, false, (uint64_t *) ((char *) &v + optional[i].offset), what, err);
                if (r < 0 && r != -ENOENT)
                        return r;
        }
        r = json_get_u64(o, bytes_key, false, &v.data_bytes, what, err);
        if (r < 0 && r != -ENOENT)
                return r;
        *ret = v;
        return 0;
}
