/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Health checks and placement-group states. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph-internal.h"
#include "ceph.h"

/* ---- health ------------------------------------------------------------------------ */

static const char *const health_names[] = {
        [CEPH_HEALTH_UNKNOWN] = "HEALTH_UNKNOWN",
        [CEPH_HEALTH_OK] = "HEALTH_OK",
        [CEPH_HEALTH_WARN] = "HEALTH_WARN",
        [CEPH_HEALTH_ERR] = "HEALTH_ERR",
};

const char *ceph_health_status_to_string(CephHealthStatus s) {
        if ((size_t) s >= ELEMENTSOF(health_names))
                return "HEALTH_UNKNOWN";
        return health_names[s];
}

CephHealthStatus ceph_health_status_from_string(const char *s) {
        for (size_t i = 0; s && i < ELEMENTSOF(health_names); i++)
                if (strcmp(health_names[i], s) == 0)
                        return (CephHealthStatus) i;
        return CEPH_HEALTH_UNKNOWN;
}

CephHealth *ceph_health_free(CephHealth *h) {
        if (!h)
                return NULL;
        for (size_t i = 0; i < h->n_checks; i++) {
                free(h->checks[i].code);
                free(h->checks[i].summary);
                strv_free(h->checks[i].details);
        }
        free(h->checks);
        free(h);
        return NULL;
}

static int check_cmp(const void *a, const void *b) {
        return strcmp(((const CephHealthCheck *) a)->code, ((const CephHealthCheck *) b)->code);
}

static int health_check_parse(const char *code, json_object *c, CephHealthCheck *ret, Error *err) {
        const char *sev = NULL;
        int r = json_get_string(c, "severity", true, &sev, code, err);
        if (r < 0)
                return r;
        ret->code = strdup(code);
        if (!ret->code)
                return -ENOMEM;
        ret->severity = ceph_health_status_from_string(sev);

        json_object *summary;
        if (json_get_object(c, "summary", false, &summary, code, NULL) == 0) {
                if (ceph_json_dup_string(summary, "message", &ret->summary) < 0)
                        return -ENOMEM;
                uint64_t count = 0;
                if (json_get_u64(summary, "count", false, &count, code, NULL) == 0)
                        ret->count = count;
        }
        bool muted = false;
        if (json_get_bool(c, "muted", false, &muted, code, NULL) == 0)
                ret->muted = muted;

        ret->details = calloc(1, sizeof(char *));
        if (!ret->details)
                return -ENOMEM;
        json_object *detail;
        if (json_get_array(c, "detail", false, &detail, code, NULL) == 0)
                for (size_t i = 0; i < json_object_array_length(detail); i++) {
                        const char *msg;
                        if (json_get_string(json_object_array_get_idx(detail, i), "message", false, &msg,
                                            code, NULL) == 0 &&
                            strv_extend(&ret->details, msg) < 0)
                                return -ENOMEM;
                }
        return 0;
}

int ceph_health_parse(const char *json, CephHealth **ret, Error *err) {
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, "ceph health", &root, err);
        if (r < 0)
                return r;

        /* `ceph status` nests the same object under "health" */
        json_object *o = root, *nested;
        if (json_get_object(root, "health", false, &nested, "ceph status", NULL) == 0)
                o = nested;

        const char *status;
        r = json_get_string(o, "status", true, &status, "ceph health", err);
        if (r < 0)
                return r;

        _cleanup_(ceph_health_freep) CephHealth *h = calloc(1, sizeof(CephHealth));
        if (!h)
                return -ENOMEM;
        h->status = ceph_health_status_from_string(status);
        if (h->status == CEPH_HEALTH_UNKNOWN)
                return error_set(err, EINVAL, "ceph health: unknown status '%s'", status);

        json_object *checks;
        r = json_get_object(o, "checks", false, &checks, "ceph health", err);
        if (r == -ENOENT)
                checks = NULL;
        else if (r < 0)
                return r;
        if (checks) {
                size_t n = (size_t) json_object_object_length(checks);
                h->checks = calloc(n ? n : 1, sizeof(CephHealthCheck));
                if (!h->checks)
                        return -ENOMEM;
                json_object_object_foreach(checks, code, c) {
                        r = health_check_parse(code, c, &h->checks[h->n_checks], err);
                        h->n_checks++; /* partially filled entries are freed too */
                        if (r < 0)
                                return error_prefix(err, r, "ceph health");
                }
                qsort(h->checks, h->n_checks, sizeof(CephHealthCheck), check_cmp);
        }
        *ret = TAKE_PTR(h);
        return 0;
}

const CephHealthCheck *ceph_health_find(const CephHealth *h, const char *code) {
        for (size_t i = 0; h && code && i < h->n_checks; i++)
                if (strcmp(h->checks[i].code, code) == 0)
                        return &h->checks[i];
        return NULL;
}

/* ---- pg stat ----------------------------------------------------------------------- */

CephPgStat *ceph_pg_stat_free(CephPgStat *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_states; i++)
                free(s->states[i].state);
        free(s->states);
        free(s);
        return NULL;
}

int ceph_pg_stat_parse(const char *json, CephPgStat **ret, Error *err) {
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, "ceph pg stat", &root, err);
        if (r < 0)
                return r;

        /* `pg stat`: pg_summary.num_pg_by_state[{name,num}];
         * `status`:  pgmap.pgs_by_state[{state_name,count}] */
        json_object *o, *states;
        const char *what, *k_name, *k_num;
        if (json_get_object(root, "pg_summary", false, &o, "ceph pg stat", NULL) == 0) {
                what = "ceph pg stat";
                k_name = "name";
                k_num = "num";
                r = json_get_array(o, "num_pg_by_state", true, &states, what, err);
        } else if (json_get_object(root, "pgmap", false, &o, "ceph status", NULL) == 0) {
                what = "ceph status pgmap";
                k_name = "state_name";
                k_num = "count";
                r = json_get_array(o, "pgs_by_state", true, &states, what, err);
        } else
                return error_set(err, EINVAL, "ceph pg stat: neither 'pg_summary' nor 'pgmap' in the output");
        if (r < 0)
                return r;

        _cleanup_(ceph_pg_stat_freep) CephPgStat *s = calloc(1, sizeof(CephPgStat));
        if (!s)
                return -ENOMEM;
        r = json_get_u64(o, "num_pgs", true, &s->num_pgs, what, err);
        if (r < 0)
                return r;
        (void) json_get_u64(o, "degraded_objects", false, &s->degraded_objects, what, NULL);
        (void) json_get_u64(o, "misplaced_objects", false, &s->misplaced_objects, what, NULL);
        (void) json_get_u64(o, "unfound_objects", false, &s->unfound_objects, what, NULL);
        uint64_t rd = 0, wr = 0;
        (void) json_get_u64(o, "read_op_per_sec", false, &rd, what, NULL);
        (void) json_get_u64(o, "write_op_per_sec", false, &wr, what, NULL);
        s->client_ops_sec = rd + wr;

        size_t n = json_object_array_length(states);
        s->states = calloc(n ? n : 1, sizeof(CephPgStateCount));
        if (!s->states)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(states, i);
                const char *name;
                uint64_t num;
                r = json_get_string(e, k_name, true, &name, what, err);
                if (r < 0)
                        return r;
                r = json_get_u64(e, k_num, true, &num, what, err);
                if (r < 0)
                        return r;
                s->states[i].state = strdup(name);
                if (!s->states[i].state)
                        return -ENOMEM;
                s->states[i].count = num;
                s->n_states++;
        }
        *ret = TAKE_PTR(s);
        return 0;
}

bool ceph_pg_state_has(const char *state, const char *flag) {
        if (!state || isempty(flag))
                return false;
        size_t fl = strlen(flag);
        for (const char *p = state; *p;) {
                size_t n = strcspn(p, "+");
                if (n == fl && strncmp(p, flag, n) == 0)
                        return true;
                p += n;
                if (*p == '+')
                        p++;
        }
        return false;
}

/* every '+'-separated flag of `flags` is in `state`; a leading '!' negates one flag */
static bool state_matches(const char *state, const char *flags) {
        for (const char *p = flags; *p;) {
                size_t n = strcspn(p, "+");
                bool neg = n > 0 && p[0] == '!';
                char flag[64];
                size_t fl = neg ? n - 1 : n;
                if (fl == 0 || fl >= sizeof flag)
                        return false;
                memcpy(flag, neg ? p + 1 : p, fl);
                flag[fl] = 0;
                if (ceph_pg_state_has(state, flag) == neg)
                        return false;
                p += n;
                if (*p == '+')
                        p++;
        }
        return true;
}

uint64_t ceph_pg_stat_count(const CephPgStat *s, const char *flags) {
        uint64_t n = 0;
        for (size_t i = 0; s && flags && i < s->n_states; i++)
                if (state_matches(s->states[i].state, flags))
                        n += s->states[i].count;
        return n;
}

bool ceph_pg_stat_all_active_clean(const CephPgStat *s) {
        if (!s)
                return false;
        uint64_t clean = 0, total = 0;
        for (size_t i = 0; i < s->n_states; i++) {
                total += s->states[i].count;
                /* exactly active+clean: "active+clean+scrubbing" is clean enough too */
                if (ceph_pg_state_has(s->states[i].state, "active") &&
                    ceph_pg_state_has(s->states[i].state, "clean") &&
                    !ceph_pg_state_has(s->states[i].state, "remapped") &&
                    !ceph_pg_state_has(s->states[i].state, "degraded") &&
                    !ceph_pg_state_has(s->states[i].state, "undersized") &&
                    !ceph_pg_state_has(s->states[i].state, "inconsistent"))
                        clean += s->states[i].count;
        }
        return total == s->num_pgs && clean == s->num_pgs && s->degraded_objects == 0 &&
               s->misplaced_objects == 0 && s->unfound_objects == 0;
}

/* ---- pg dump pgs_brief ------------------------------------------------------------- */

CephPgDump *ceph_pg_dump_free(CephPgDump *d) {
        if (!d)
                return NULL;
        for (size_t i = 0; i < d->n_pgs; i++) {
                free(d->pgs[i].pgid);
                free(d->pgs[i].state);
                free(d->pgs[i].up);
                free(d->pgs[i].acting);
        }
        free(d->pgs);
        free(d);
        return NULL;
}

int ceph_pg_dump_parse(const char *json, CephPgDump **ret, Error *err) {
        const char *what = "ceph pg dump pgs_brief";
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, what, &root, err);
        if (r < 0)
                return r;
        json_object *pgs = root;
        if (!json_object_is_type(root, json_type_array)) {
                r = json_get_array(root, "pg_stats", true, &pgs, what, err);
                if (r < 0)
                        return r;
        }

        _cleanup_(ceph_pg_dump_freep) CephPgDump *d = calloc(1, sizeof(CephPgDump));
        if (!d)
                return -ENOMEM;
        size_t n = json_object_array_length(pgs);
        d->pgs = calloc(n ? n : 1, sizeof(CephPgBrief));
        if (!d->pgs)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(pgs, i), *up, *acting;
                CephPgBrief *pg = &d->pgs[d->n_pgs++];
                const char *pgid, *state;
                if ((r = json_get_string(e, "pgid", true, &pgid, what, err)) < 0 ||
                    (r = json_get_string(e, "state", true, &state, what, err)) < 0 ||
                    (r = json_get_array(e, "up", true, &up, what, err)) < 0 ||
                    (r = json_get_array(e, "acting", true, &acting, what, err)) < 0)
                        return r;
                pg->pgid = strdup(pgid);
                pg->state = strdup(state);
                if (!pg->pgid || !pg->state)
                        return -ENOMEM;
                if ((r = ceph_json_int_array(up, what, &pg->up, &pg->n_up, err)) < 0 ||
                    (r = ceph_json_int_array(acting, what, &pg->acting, &pg->n_acting, err)) < 0)
                        return r;
        }
        *ret = TAKE_PTR(d);
        return 0;
}

static bool int_in(const int *v, size_t n, int x) {
        for (size_t i = 0; i < n; i++)
                if (v[i] == x)
                        return true;
        return false;
}

size_t ceph_pg_dump_count_unpeered(const CephPgDump *d, const int *osds, size_t n_osds) {
        size_t n = 0;
        for (size_t i = 0; d && i < d->n_pgs; i++) {
                const CephPgBrief *pg = &d->pgs[i];
                bool in_up = false;
                for (size_t k = 0; k < n_osds; k++)
                        in_up = in_up || int_in(pg->up, pg->n_up, osds[k]);
                if (in_up || !ceph_pg_state_has(pg->state, "active") || ceph_pg_state_has(pg->state, "peering") ||
                    ceph_pg_state_has(pg->state, "stale"))
                        n++;
        }
        return n;
}

size_t ceph_pg_dump_count_unclean_on_osd(const CephPgDump *d, int osd) {
        size_t n = 0;
        for (size_t i = 0; d && i < d->n_pgs; i++) {
                const CephPgBrief *pg = &d->pgs[i];
                if (!int_in(pg->up, pg->n_up, osd) && !int_in(pg->acting, pg->n_acting, osd))
                        continue;
                if (!(ceph_pg_state_has(pg->state, "active") && ceph_pg_state_has(pg->state, "clean")) ||
                    ceph_pg_state_has(pg->state, "remapped") || ceph_pg_state_has(pg->state, "degraded"))
                        n++;
        }
        return n;
}
