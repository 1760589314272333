/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which node is sick: slow ops and OSD latency, attributed to hosts.
 *
 * SLOW_OPS comes from mgr's DaemonHealthMetricCollector (SlowOps::_summarize): no detail
 * lines, the daemons are in the summary, "daemons [osd.3,osd.9] have slow ops." (the first
 * 10 and "..." beyond) or "osd.3 has slow ops". BLUESTORE_SLOW_OP_ALERT and
 * DB_DEVICE_STALLED_READ_ALERT (Squid and later) name one OSD per detail line. */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph-cluster.h"
#include "ceph-internal.h"

CephSlowReport *ceph_slow_report_free(CephSlowReport *r) {
        if (!r)
                return NULL;
        for (size_t i = 0; i < r->n_osds; i++)
                free(r->osds[i].host);
        free(r->osds);
        for (size_t i = 0; i < r->n_hosts; i++)
                free(r->hosts[i].name);
        free(r->hosts);
        free(r->standout);
        free(r->why);
        strv_free(r->other_daemons);
        free(r);
        return NULL;
}

static CephSlowOsd *slow_osd(CephSlowReport *r, int id, const CephOsdTree *tree) {
        for (size_t i = 0; i < r->n_osds; i++)
                if (r->osds[i].id == id)
                        return &r->osds[i];
        CephSlowOsd *v = reallocarray(r->osds, r->n_osds + 1, sizeof(CephSlowOsd));
        if (!v)
                return NULL;
        r->osds = v;
        CephSlowOsd *o = &v[r->n_osds];
        *o = (CephSlowOsd) { .id = id, .commit_ms = -1, .apply_ms = -1 };
        const CephTreeOsd *t = ceph_osd_tree_find_osd(tree, id);
        if (t && t->host && !(o->host = strdup(t->host)))
                return NULL;
        r->n_osds++;
        return o;
}

/* "osd.12" at s → 12 and the length consumed; -1 when s is no OSD name */
static int osd_name_at(const char *s, size_t *len) {
        if (!startswith(s, "osd.") || !isdigit((unsigned char) s[4]))
                return -1;
        long v = 0;
        size_t i = 4;
        for (; isdigit((unsigned char) s[i]) && v < 10000000; i++)
                v = v * 10 + (s[i] - '0');
        if (isalnum((unsigned char) s[i]))
                return -1;
        *len = i;
        return (int) v;
}

/* the daemons of a SLOW_OPS summary, between '[' and ']' or before " has slow ops" */
static int parse_slow_ops(CephSlowReport *r, const CephHealthCheck *c, const CephOsdTree *tree) {
        const char *s = c->summary;
        if (!s)
                return 0;
        unsigned long long n = 0, sec = 0;
        if (sscanf(s, "%llu slow ops, oldest one blocked for %llu sec", &n, &sec) == 2) {
                r->n_slow_ops = n;
                r->oldest_blocked_sec = sec;
        }
        const char *list = strchr(s, '[');
        const char *end = list ? strchr(list, ']') : NULL;
        const char *has = strstr(s, " has slow ops");
        const char *from, *to;
        if (list && end) {
                from = list + 1;
                to = end;
                r->truncated = startswith(end + 1, "...");
        } else if (has) {
                /* "..., osd.3 has slow ops": the word before */
                to = has;
                from = has;
                while (from > s && from[-1] != ' ')
                        from--;
        } else
                return 0;
        for (const char *p = from; p < to;) {
                size_t n_tok = strcspn(p, ",]");
                if (p + n_tok > to)
                        n_tok = (size_t) (to - p);
                size_t len;
                int id = osd_name_at(p, &len);
                if (id >= 0 && len == n_tok) {
                        CephSlowOsd *o = slow_osd(r, id, tree);
                        if (!o)
                                return -ENOMEM;
                        o->slow_ops = true;
                } else if (n_tok > 0 && n_tok < 128) {
                        _cleanup_(freep) char *d = strndup(p, n_tok);
                        if (!d || strv_extend(&r->other_daemons, d) < 0)
                                return -ENOMEM;
                }
                p += n_tok;
                if (p < to) /* the separator (',' or a stray ']'): always move on */
                        p++;
        }
        return 0;
}

/* detail lines that start with the OSD's name (leading blanks allowed) */
static int parse_osd_lines(CephSlowReport *r, const CephHealthCheck *c, const CephOsdTree *tree) {
        STRV_FOREACH(line, c->details) {
                const char *p = *line;
                while (*p == ' ')
                        p++;
                size_t len;
                int id = osd_name_at(p, &len);
                if (id < 0)
                        continue;
                CephSlowOsd *o = slow_osd(r, id, tree);
                if (!o)
                        return -ENOMEM;
                o->bluestore_slow = true;
        }
        return 0;
}

static double median(double *v, size_t n) {
        if (n == 0)
                return -1;
        qsort(v, n, sizeof(double), ceph_double_cmp);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* the median commit latency of the OSDs on `host` (include) or on every other host */
static double median_of(const CephOsdTree *tree, const CephOsdPerf *perf, const char *host, bool include) {
        double *v = calloc(tree->n_osds + 1, sizeof(double));
        if (!v)
                return -1;
        size_t n = 0;
        for (size_t i = 0; i < tree->n_osds; i++) {
                const CephTreeOsd *o = &tree->osds[i];
                if (!o->host || streq(o->host, host) != include || o->status != CEPH_OSD_TREE_UP)
                        continue;
                const CephOsdPerfEntry *e = ceph_osd_perf_find(perf, o->id);
                if (e)
                        v[n++] = e->commit_latency_ms;
        }
        double m = median(v, n);
        free(v);
        return m;
}

static int osd_cmp(const void *a, const void *b) {
        return ceph_int_cmp(&((const CephSlowOsd *) a)->id, &((const CephSlowOsd *) b)->id);
}

static int host_cmp(const void *a, const void *b) {
        return strcmp(((const CephSlowHost *) a)->name, ((const CephSlowHost *) b)->name);
}

int ceph_slow_report(const CephHealth *health, const CephOsdPerf *perf, const CephOsdTree *tree,
                     const CephSlowOptions *opts, CephSlowReport **ret, Error *err) {
        if (!health || !tree)
                return error_set(err, EINVAL, "slow report: health and osd tree are needed");
        CephSlowOptions o = opts ? *opts : (CephSlowOptions) { .factor = 3, .floor_ms = 20 };
        if (!(o.factor >= 1) || !(o.floor_ms >= 0))
                return error_set(err, EINVAL, "slow report: invalid options (factor %g, floor %g ms)", o.factor,
                                 o.floor_ms);
        _cleanup_(ceph_slow_report_freep) CephSlowReport *r = calloc(1, sizeof(CephSlowReport));
        if (!r || !(r->other_daemons = calloc(1, sizeof(char *))) ||
            !(r->hosts = calloc(tree->n_hosts + 1, sizeof(CephSlowHost))))
                return -ENOMEM;
        int k;
        const CephHealthCheck *c = ceph_health_find(health, "SLOW_OPS");
        if (c && (k = parse_slow_ops(r, c, tree)) < 0)
                return k;
        static const char *const osd_checks[] = { "BLUESTORE_SLOW_OP_ALERT", "DB_DEVICE_STALLED_READ_ALERT" };
        for (size_t i = 0; i < ELEMENTSOF(osd_checks); i++)
                if ((c = ceph_health_find(health, osd_checks[i])) && (k = parse_osd_lines(r, c, tree)) < 0)
                        return k;
        for (size_t i = 0; i < r->n_osds; i++) {
                const CephOsdPerfEntry *e = ceph_osd_perf_find(perf, r->osds[i].id);
                if (e) {
                        r->osds[i].commit_ms = e->commit_latency_ms;
                        r->osds[i].apply_ms = e->apply_latency_ms;
                }
        }
        if (r->n_osds > 0) /* osds is NULL while empty */
                qsort(r->osds, r->n_osds, sizeof(CephSlowOsd), osd_cmp);

        for (size_t i = 0; i < tree->n_hosts; i++) {
                CephSlowHost *h = &r->hosts[r->n_hosts++];
                if (!(h->name = strdup(tree->hosts[i].name)))
                        return -ENOMEM;
                for (size_t j = 0; j < tree->n_osds; j++)
                        h->n_osds += tree->osds[j].host && streq(tree->osds[j].host, h->name);
                for (size_t j = 0; j < r->n_osds; j++)
                        h->n_slow += r->osds[j].host && streq(r->osds[j].host, h->name);
                h->median_commit_ms = perf ? median_of(tree, perf, h->name, true) : -1;
        }
        qsort(r->hosts, r->n_hosts, sizeof(CephSlowHost), host_cmp);

        /* one host holding every slow OSD */
        CephSlowHost *only = NULL;
        bool one_host = r->n_osds > 0;
        for (size_t j = 0; j < r->n_osds && one_host; j++)
                one_host = r->osds[j].host && (j == 0 || streq(r->osds[j].host, r->osds[0].host));
        if (one_host && r->n_hosts > 1)
                for (size_t i = 0; i < r->n_hosts; i++)
                        if (streq(r->hosts[i].name, r->osds[0].host))
                                only = &r->hosts[i];
        if (only) {
                only->stands_out = true;
                r->standout = strdup(only->name);
                r->why = strprintf("all %zu OSD%s with slow ops %s on it", r->n_osds, r->n_osds == 1 ? "" : "s",
                                   r->n_osds == 1 ? "is" : "are");
                if (!r->standout || !r->why)
                        return -ENOMEM;
        }

        /* latency: a host whose median is far above the rest's */
        for (size_t i = 0; perf && i < r->n_hosts && r->n_hosts > 1; i++) {
                CephSlowHost *h = &r->hosts[i];
                double rest = median_of(tree, perf, h->name, false);
                if (h->median_commit_ms < 0 || rest < 0 || h->median_commit_ms <= o.floor_ms ||
                    h->median_commit_ms <= o.factor * rest)
                        continue;
                h->stands_out = true;
                if (r->standout && !streq(r->standout, h->name))
                        continue; /* the slow-op host was named first; this one is flagged in hosts[] */
                _cleanup_(freep) char *why = strprintf("median commit latency %.0f ms against %.0f ms on the other hosts",
                                                       h->median_commit_ms, rest);
                if (!why)
                        return -ENOMEM;
                if (r->standout) {
                        char *both = strprintf("%s; %s", r->why, why);
                        if (!both)
                                return -ENOMEM;
                        free(r->why);
                        r->why = both;
                } else {
                        r->standout = strdup(h->name);
                        r->why = TAKE_PTR(why);
                        if (!r->standout)
                                return -ENOMEM;
                }
        }
        *ret = TAKE_PTR(r);
        return 0;
}

/* "osd.3", "osd.3 and osd.9", "osd.3, osd.5 and osd.9" of the OSDs on `host` (NULL: all) */
static void list_osds(FILE *f, const CephSlowReport *r, const char *host, bool with_host) {
        size_t n = 0, total = 0;
        for (size_t i = 0; i < r->n_osds; i++)
                total += !host || streq_ptr(r->osds[i].host, host);
        for (size_t i = 0; i < r->n_osds; i++) {
                const CephSlowOsd *o = &r->osds[i];
                if (host && !streq_ptr(o->host, host))
                        continue;
                fprintf(f, "%sosd.%d", n == 0 ? "" : n + 1 == total ? " and " : ", ", o->id);
                if (with_host)
                        fprintf(f, " (%s)", o->host ? o->host : "host unknown");
                n++;
        }
}

char *ceph_slow_report_sentence(const CephSlowReport *r) {
        if (!r)
                return NULL;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        bool one_host = r->n_osds > 0;
        for (size_t i = 0; i < r->n_osds && one_host; i++)
                one_host = r->osds[i].host && streq(r->osds[i].host, r->osds[0].host);
        if (r->n_osds == 0)
                fputs(strv_length(r->other_daemons) ? "no OSD has slow ops" : "no slow ops", f);
        else {
                fputs("slow ops on ", f);
                if (one_host) {
                        list_osds(f, r, NULL, false);
                        fprintf(f, ", %son host %s", r->n_osds == 1 ? "" : r->n_osds == 2 ? "both " : "all ",
                                r->osds[0].host);
                } else
                        list_osds(f, r, NULL, true);
                if (r->truncated)
                        fputs(" (and more: SLOW_OPS names the first 10)", f);
        }
        if (strv_length(r->other_daemons) > 0) {
                _cleanup_(freep) char *d = strv_join(r->other_daemons, ", ");
                fprintf(f, "; also %s", d ? d : "other daemons");
        }
        if (r->standout) {
                /* "both on host node3" already says why node3 stands out; add only its latency */
                const char *latency = strstr(r->why, "median commit latency");
                if (!(one_host && streq(r->standout, r->osds[0].host)))
                        fprintf(f, "; host %s stands out: %s", r->standout, r->why);
                else if (latency)
                        fprintf(f, "; %s", latency);
        }
        return ceph_memstream_done(f, &buf);
}

json_object *ceph_slow_report_to_json(const CephSlowReport *r) {
        if (!r)
                return NULL;
        _cleanup_json_ json_object *o = json_object_new_object(), *osds = json_object_new_array(),
                                   *hosts = json_object_new_array();
        _cleanup_(freep) char *sentence = ceph_slow_report_sentence(r);
        if (!o || !osds || !hosts || !sentence)
                return NULL;
        for (size_t i = 0; i < r->n_osds; i++) {
                const CephSlowOsd *s = &r->osds[i];
                json_object *e = json_array_add_object(osds);
                if (!e)
                        return NULL;
                if (json_add_int(e, "osd", s->id) < 0 || json_add_string(e, "host", s->host) < 0 ||
                    json_add_bool(e, "slow_ops", s->slow_ops) < 0 || json_add_bool(e, "bluestore_slow", s->bluestore_slow) < 0 ||
                    (s->commit_ms >= 0 && json_add(e, "commit_latency_ms", json_object_new_double(s->commit_ms)) < 0) ||
                    (s->apply_ms >= 0 && json_add(e, "apply_latency_ms", json_object_new_double(s->apply_ms)) < 0))
                        return NULL;
        }
        for (size_t i = 0; i < r->n_hosts; i++) {
                const CephSlowHost *h = &r->hosts[i];
                json_object *e = json_array_add_object(hosts);
                if (!e)
                        return NULL;
                if (json_add_string(e, "host", h->name) < 0 || json_add_u64(e, "osds", h->n_osds) < 0 ||
                    json_add_u64(e, "slow_osds", h->n_slow) < 0 ||
                    (h->median_commit_ms >= 0 &&
                     json_add(e, "median_commit_latency_ms", json_object_new_double(h->median_commit_ms)) < 0) ||
                    json_add_bool(e, "stands_out", h->stands_out) < 0)
                        return NULL;
        }
        if (json_add_string(o, "summary", sentence) < 0 || json_add_string(o, "standout_host", r->standout) < 0 ||
            json_add_string(o, "why", r->why) < 0 || json_add_u64(o, "slow_ops", r->n_slow_ops) < 0 ||
            json_add_u64(o, "oldest_blocked_sec", r->oldest_blocked_sec) < 0 ||
            json_add_bool(o, "truncated", r->truncated) < 0 ||
            json_add(o, "other_daemons", json_array_new_strv(r->other_daemons)) < 0 ||
            json_add(o, "osds", TAKE_PTR(osds)) < 0 || json_add(o, "hosts", TAKE_PTR(hosts)) < 0)
                return NULL;
        return TAKE_PTR(o);
}
