/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every cluster step uses: the records in the cluster's config-key store (cephprov/CLUSTER/saved/...), arguments, results. */

#include "controller/steps/steps-internal.h"

const CephCli *cs_cli(ClusterSteps *cs) {
        return ceph_admin_cli(cs->admin);
}

/* cephprov/CLUSTER/NAME: our records in the cluster's config-key store */
static char *record_key(CephAdmin *a, const char *name) {
        return strprintf("cephprov/%s/%s", a->cluster, name);
}

/* 1 and the value, 0 when there is no record: only when ceph itself says the key does not
 * exist. A `ceph` that did not run or did not answer is an error, never "no record". */
int cs_record_get(CephAdmin *a, const char *name, char **ret, Error *err) {
        _cleanup_(freep) char *key = record_key(a, name);
        if (!key)
                return error_set(err, ENOMEM, "out of memory");
        return ceph_admin_get(a, ceph_argv_config_key_get(ceph_admin_cli(a), key, err), ret, err);
}

int cs_record_set(CephAdmin *a, const char *name, json_object *value, Error *err) {
        _cleanup_(freep) char *key = record_key(a, name);
        if (!key)
                return error_set(err, ENOMEM, "out of memory");
        const char *v = json_object_to_json_string_ext(value, JSON_C_TO_STRING_PLAIN);
        return ceph_admin_run(a, ceph_argv_config_key_set(ceph_admin_cli(a), key, err), v, NULL, err);
}

/* Every key in the cluster's config-key store, sorted as `ceph config-key ls` lists them */
int cs_config_key_ls(CephAdmin *a, char ***ret, Error *err) {
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(a, ceph_argv_config_key_ls(ceph_admin_cli(a), err), NULL, &out, err);
        if (r < 0)
                return r;
        Error e = {};
        if ((r = ceph_config_key_ls_parse(out, ret, &e)) < 0)
                return error_set(err, EBADMSG, "'ceph config-key ls': %s", e.message);
        return 0;
}

int cs_record_rm(CephAdmin *a, const char *name, Error *err) {
        _cleanup_(freep) char *key = record_key(a, name);
        if (!key)
                return error_set(err, ENOMEM, "out of memory");
        Error e = {};
        int r = ceph_admin_run(a, ceph_argv_config_key_rm(ceph_admin_cli(a), key, &e), NULL, NULL, &e);
        if (r < 0 && r != -ENOENT)
                return error_set(err, -r, "%s", e.message);
        return 0;
}

int cs_record_get_json(CephAdmin *a, const char *name, json_object **ret, Error *err) {
        _cleanup_(freep) char *v = NULL;
        int r = cs_record_get(a, name, &v, err);
        if (r <= 0) {
                *ret = NULL;
                return r;
        }
        json_object *o = json_tokener_parse(v);
        if (!o)
                return error_set(err, EBADMSG, "the record cephprov/%s/%s in the cluster is not JSON: '%s'", a->cluster,
                                 name, v);
        *ret = o;
        return 1;
}

/* Every restore record (saved/...) says which run left it and since when: "run" (the
 * journal's run id of the run that wrote it), "since" (epoch seconds). */
int cs_record_stamp(ClusterSteps *cs, json_object *rec) {
        return json_add_string(rec, "run", cs->run_id ? cs->run_id : "(no run)") < 0 ||
                               json_add_int(rec, "since", (int64_t) time(NULL)) < 0
                       ? -ENOMEM
                       : 0;
}

/* A record this run did not write: one an earlier run left (killed, failed, or abandoned
 * long ago). A record without "run" is from before cephprov kept one: never this run's. */
bool cs_record_of_other_run(ClusterSteps *cs, json_object *rec) {
        const char *run = json_object_get_string(json_object_object_get(rec, "run"));
        return !run || !cs->run_id || !streq(run, cs->run_id);
}

/* "run R, 3h ago" for messages about a record another run left */
char *cs_record_origin(json_object *rec) {
        const char *run = json_object_get_string(json_object_object_get(rec, "run"));
        int64_t since = 0;
        (void) json_get_int(rec, "since", false, &since, "record", NULL);
        if (!since)
                return strprintf("run %s", run ? run : "unknown (a record of an older cephprov)");
        int64_t age = (int64_t) time(NULL) - since;
        return strprintf("run %s, %lld s ago", run ? run : "unknown", (long long) age);
}

/* A value a restore left alone because someone changed it since cephprov wrote it: a notice
 * on the log (and stderr), and the entry in the step's result */
void cs_restore_left_notice(ClusterSteps *cs, const char *step, const char *what) {
        if (!cs->log) {
                log_notice("%s: %s", step, what);
                return;
        }
        fprintf(cs->log, "%s: %s\n", step, what);
        fflush(cs->log);
}

int cs_osds_arg(json_object *args, int **ret, size_t *ret_n, Error *err) {
        return json_get_int_array(args, "osds", true, ret, ret_n, "step arguments", err);
}

char *cs_osds_text(const int *ids, size_t n) {
        _cleanup_strv_free_ char **l = NULL;
        for (size_t i = 0; i < n; i++)
                if (strv_consume(&l, strprintf("osd.%d", ids[i])) < 0)
                        return NULL;
        return l ? strv_join(l, " ") : strdup("no OSD");
}

unsigned cs_arg_timeout(json_object *args, unsigned def) {
        uint64_t t = def;
        (void) json_get_u64(args, "timeout", false, &t, "step arguments", NULL);
        return (unsigned) t;
}

int cs_result_new(json_object **ret, Error *err) {
        *ret = json_object_new_object();
        return *ret ? 0 : error_set(err, ENOMEM, "out of memory");
}
