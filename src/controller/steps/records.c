/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The drained and destroyed hosts' records, and the restore records `status` lists. */

#include "controller/steps/steps-internal.h"

/* ---- drained hosts ------------------------------------------------------------------ */

/* A host is recorded "drained" only once its OSDs are out, down and in no PG's up or
 * acting set, read now: the PGs first (`pg dump pgs_brief`), then the OSD map. The mgr's PG
 * map lags the OSD map by a few seconds: asked up to three times, 2 s apart, then refused
 * naming each OSD and what it still is. An answer that cannot be read refuses too. */
static int drained_verify(CephAdmin *a, const char *host, const int *osds, size_t n, Error *err) {
        if (n == 0)
                return 0;
        for (unsigned attempt = 0;; attempt++) {
                _cleanup_(freep) char *pg_out = NULL;
                _cleanup_(ceph_pg_dump_freep) CephPgDump *pgs = NULL;
                _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
                Error e = {};
                int r = ceph_admin_run(a, ceph_argv_pg_dump_pgs_brief(ceph_admin_cli(a), &e), NULL, &pg_out, &e);
                if (r >= 0 && (r = ceph_pg_dump_parse(pg_out ? pg_out : "", &pgs, &e)) < 0)
                        error_prefix(&e, r, "'ceph pg dump pgs_brief'");
                if (r >= 0)
                        r = ceph_admin_osd_dump(a, &dump, &e);
                if (r < 0)
                        return error_set(err, -r, "refusing to record host '%s' drained: its OSDs' state cannot be read: %s",
                                         host, e.message);
                if ((r = ceph_osds_emptied(dump, pgs, osds, n, &e)) != -EBUSY) {
                        if (r < 0)
                                return error_set(err, -r, "%s", e.message);
                        return 0;
                }
                if (attempt >= 2)
                        return error_set(err, EBUSY, "refusing to record host '%s' drained: %s", host, e.message);
                struct timespec ts = { 2, 0 };
                nanosleep(&ts, NULL);
        }
}

int cluster_drained_set(CephAdmin *a, const char *host, const char *state, const int *osds, size_t n_osds,
                        Error *err) {
        int r;
        if (streq(state, "drained") && (r = drained_verify(a, host, osds, n_osds, err)) < 0)
                return r;
        _cleanup_(freep) char *name = strprintf("drained/%s", host);
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!name || !o)
                return error_set(err, ENOMEM, "out of memory");
        json_add_string(o, "state", state);
        json_add(o, "osds", json_array_new_ints(osds, n_osds));
        json_add_int(o, "since", (int64_t) time(NULL));
        return cs_record_set(a, name, o, err);
}

int cluster_drained_rm(CephAdmin *a, const char *host, Error *err) {
        _cleanup_(freep) char *name = strprintf("drained/%s", host);
        if (!name)
                return error_set(err, ENOMEM, "out of memory");
        return cs_record_rm(a, name, err);
}

int cluster_drained_get(CephAdmin *a, const char *host, char **ret_state, int **ret_osds, size_t *ret_n,
                        Error *err) {
        _cleanup_(freep) char *name = strprintf("drained/%s", host);
        if (!name)
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_json_ json_object *o = NULL;
        int r = cs_record_get_json(a, name, &o, err);
        if (r <= 0)
                return r;
        const char *state = NULL;
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        _cleanup_(freep) char *what = strprintf("the record cephprov/%s/%s", a->cluster, name);
        if (!what)
                return error_set(err, ENOMEM, "out of memory");
        if ((r = json_get_string(o, "state", true, &state, what, err)) < 0 ||
            (r = json_get_int_array(o, "osds", true, &ids, &n, what, err)) < 0)
                return r;
        char *st = strdup(state);
        if (!st)
                return error_set(err, ENOMEM, "out of memory");
        *ret_state = st;
        *ret_osds = TAKE_PTR(ids);
        *ret_n = n;
        return 1;
}

int cluster_destroyed_hosts(CephAdmin *a, char ***ret, Error *err) {
        _cleanup_strv_free_ char **all = NULL, **out = NULL;
        int r = cluster_drained_hosts(a, &all, err);
        if (r < 0)
                return r;
        for (char **h = all; *h; h++) {
                _cleanup_(freep) char *state = NULL;
                _cleanup_(freep) int *ids = NULL;
                size_t n = 0;
                if ((r = cluster_drained_get(a, *h, &state, &ids, &n, err)) < 0)
                        return r;
                if (r > 0 && startswith(state, "destroy") && strv_extend(&out, *h) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        if (!out && !(out = calloc(1, sizeof(char *))))
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(out);
        return 0;
}

int cluster_restore_records(CephAdmin *a, json_object **ret, Error *err) {
        _cleanup_strv_free_ char **keys = NULL;
        int r = cs_config_key_ls(a, &keys, err);
        if (r < 0)
                return r;
        _cleanup_(freep) char *prefix = strprintf("cephprov/%s/", a->cluster);
        _cleanup_json_ json_object *list = json_object_new_array();
        if (!prefix || !list)
                return error_set(err, ENOMEM, "out of memory");
        /* config-key ls lists keys sorted */
        for (char **k = keys; k && *k; k++) {
                if (!startswith(*k, prefix) || !startswith(*k + strlen(prefix), SAVED_PREFIX))
                        continue;
                const char *name = *k + strlen(prefix);
                _cleanup_json_ json_object *v = NULL;
                if ((r = cs_record_get_json(a, name, &v, err)) < 0)
                        return r;
                if (!v)
                        continue; /* removed meanwhile */
                json_object *o = json_object_new_object();
                if (!o || json_object_array_add(list, o) < 0 || json_add_string(o, "record", name) < 0)
                        return json_object_put(o), error_set(err, ENOMEM, "out of memory");
                int64_t since = 0;
                json_object *run = json_object_object_get(v, "run");
                (void) json_get_int(v, "since", false, &since, "record", NULL);
                json_object_object_add(o, "run", run ? json_object_get(run) : NULL);
                json_object_object_add(o, "since", since ? json_object_new_int64(since) : NULL);
                json_object_object_add(o, "age_sec", since ? json_object_new_int64((int64_t) time(NULL) - since) : NULL);
                json_add(o, "value", TAKE_PTR(v));
        }
        *ret = TAKE_PTR(list);
        return 0;
}

int cluster_drained_hosts(CephAdmin *a, char ***ret, Error *err) {
        _cleanup_strv_free_ char **keys = NULL, **hosts = NULL;
        int r = cs_config_key_ls(a, &keys, err);
        if (r < 0)
                return r;
        _cleanup_(freep) char *prefix = strprintf("cephprov/%s/drained/", a->cluster);
        if (!prefix)
                return error_set(err, ENOMEM, "out of memory");
        for (char **k = keys; k && *k; k++)
                if (startswith(*k, prefix) && strv_extend(&hosts, *k + strlen(prefix)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        if (!hosts && !(hosts = calloc(1, sizeof(char *))))
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(hosts);
        return 0;
}
