/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Can the rest of the cluster take the data of the hosts drained (all of them off at once),
 * and how far along is moving it? */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/size.h"
#include "basic/strv.h"
#include "ceph-cluster.h"
#include "ceph-internal.h"

CephDrainCheck *ceph_drain_check_free(CephDrainCheck *c) {
        if (!c)
                return NULL;
        strv_free(c->hosts);
        free(c->names);
        strv_free(c->reasons);
        strv_free(c->warnings);
        free(c->osds);
        free(c->osds_out);
        for (size_t i = 0; i < c->n_dests; i++)
                free(c->dests[i].host);
        free(c->dests);
        for (size_t i = 0; i < c->n_pools; i++) {
                free(c->pools[i].name);
                free(c->pools[i].failure_domain);
                free(c->pools[i].rule);
        }
        free(c->pools);
        free(c);
        return NULL;
}

/* A placement domain: the OSDs a rule can choose from. */
typedef struct Domain {
        int root;             /* bucket id in the df tree */
        char device_class[64]; /* "" = any */
        double weight;        /* sum of CRUSH weight × reweight of the OSDs that stay */
} Domain;

typedef struct Ctx {
        const CephOsdDfTree *t;
        const CephDfNode **hosts; /* the host buckets drained together */
        size_t n_hosts;
        CephDrainCheck *c;
        Domain *domains;
        size_t n_domains;
} Ctx;

static int add_reason(char ***l, char *s) {
        if (!s)
                return -ENOMEM;
        return strv_consume(l, s);
}

static bool on_host(const Ctx *x, int id) {
        for (size_t i = 0; i < x->n_hosts; i++)
                if (ceph_osd_df_tree_is_under(x->t, id, x->hosts[i]->id))
                        return true;
        return false;
}

static bool in_domain(const Ctx *x, const CephDfNode *o, int root, const char *cls) {
        return o->id >= 0 && ceph_osd_df_tree_is_under(x->t, o->id, root) &&
               (!cls[0] || (o->device_class && streq(o->device_class, cls)));
}

/* an OSD that stays and can take data under (root, cls) */
static bool stays(const Ctx *x, const CephDfNode *o, int root, const char *cls) {
        return in_domain(x, o, root, cls) && o->up && o->in && o->crush_weight > 0 && !o->stray && !on_host(x, o->id);
}

static double dest_weight(const CephDfNode *o) {
        return o->crush_weight * (o->reweight > 1 ? 1 : o->reweight);
}

static const char *plural(const char *type, unsigned n, char *buf, size_t len) {
        snprintf(buf, len, "%s%s", type, n == 1 ? "" : "s");
        return buf;
}

/* the failure domains under the rule's root that still hold an OSD that stays */
static unsigned domains_left(const Ctx *x, int root, const CephCrushPlacement *p) {
        unsigned n = 0;
        for (size_t i = 0; i < x->t->n_nodes; i++) {
                const CephDfNode *b = &x->t->nodes[i];
                if (!streq(b->type, p->failure_domain) || !ceph_osd_df_tree_is_under(x->t, b->id, root))
                        continue;
                bool any = false;
                for (size_t k = 0; k < x->t->n_nodes && !any; k++) {
                        const CephDfNode *o = &x->t->nodes[k];
                        any = stays(x, o, root, p->device_class) && ceph_osd_df_tree_is_under(x->t, o->id, b->id);
                }
                n += any;
        }
        return n;
}

static int domain_add(Ctx *x, int root, const char *cls) {
        for (size_t i = 0; i < x->n_domains; i++)
                if (x->domains[i].root == root && streq(x->domains[i].device_class, cls))
                        return 0;
        Domain *v = reallocarray(x->domains, x->n_domains + 1, sizeof(Domain));
        if (!v)
                return -ENOMEM;
        x->domains = v;
        Domain *d = &v[x->n_domains++];
        *d = (Domain) { .root = root };
        snprintf(d->device_class, sizeof d->device_class, "%s", cls);
        for (size_t i = 0; i < x->t->n_nodes; i++)
                if (stays(x, &x->t->nodes[i], root, cls))
                        d->weight += dest_weight(&x->t->nodes[i]);
        return 0;
}

static int check_pool(Ctx *x, const CephPool *pool, const CephCrushRules *rules, const CephEcProfileList *profiles,
                      CephDrainPool *dp) {
        CephDrainCheck *c = x->c;
        dp->id = pool->id;
        dp->type = pool->type;
        if (!(dp->name = strdup(pool->name)))
                return -ENOMEM;
        const char *kind = ceph_pool_type_to_string(pool->type);

        unsigned needed = pool->size;
        char what[96];
        if (pool->type == CEPH_POOL_ERASURE) {
                const CephEcProfile *prof = ceph_ec_profile_list_find(profiles, pool->erasure_code_profile);
                if (!prof)
                        return add_reason(&c->reasons,
                                          strprintf("pool '%s' uses erasure-code profile '%s', which was not read: "
                                                    "cannot tell how many failure domains it needs",
                                                    pool->name, strnull(pool->erasure_code_profile)));
                needed = prof->k + prof->m;
                snprintf(what, sizeof what, "erasure %u+%u", prof->k, prof->m);
        } else
                snprintf(what, sizeof what, "%s, size %u", kind, pool->size);
        dp->needed = needed;

        const CephCrushRule *rule = ceph_crush_rules_find(rules, pool->crush_rule);
        if (!rule)
                return add_reason(&c->reasons, strprintf("pool '%s' uses CRUSH rule %d, which `osd crush rule dump` "
                                                         "does not list",
                                                         pool->name, pool->crush_rule));
        if (!(dp->rule = strdup(rule->name)))
                return -ENOMEM;
        CephCrushPlacement p;
        Error e = {};
        if (ceph_crush_rule_placement(rule, needed, &p, &e) < 0)
                return add_reason(&c->reasons, strprintf("pool '%s': %s", pool->name, e.message));
        if (!(dp->failure_domain = strdup(p.failure_domain)))
                return -ENOMEM;
        const CephDfNode *root = ceph_osd_df_tree_find_name(x->t, p.root);
        if (!root || root->id >= 0)
                return add_reason(&c->reasons, strprintf("pool '%s': CRUSH rule '%s' takes bucket '%s', which is not in "
                                                         "`osd df tree`",
                                                         pool->name, rule->name, p.root));
        if (p.several_steps &&
            add_reason(&c->warnings, strprintf("pool '%s': CRUSH rule '%s' chooses in several steps; only its last "
                                               "(type %s) was checked",
                                               pool->name, rule->name, p.failure_domain)) < 0)
                return -ENOMEM;

        /* each OSD is its own failure domain of type "osd" */
        dp->left = domains_left(x, root->id, &p);
        dp->ok = dp->left >= p.n_needed;
        if (!dp->ok) {
                char a[80];
                if (add_reason(&c->reasons, strprintf("pool '%s' (%s) needs %u %s under rule '%s'; %u would be left "
                                                      "without %s",
                                                      pool->name, what, p.n_needed,
                                                      plural(p.failure_domain, p.n_needed, a, sizeof a), rule->name,
                                                      dp->left, c->names)) < 0)
                        return -ENOMEM;
        }
        return domain_add(x, root->id, p.device_class);
}

/* An OSD of the host that is out and holds no PG any more has had its data moved already
 * (what `osd df` still shows is waiting to be deleted): -1, not counted again. Out with PGs
 * still mapped to it: its data is on the move and counted (0). In: 0. */
static int is_counted_out(const CephDfNode *o) {
        return !o->in && o->pgs == 0 ? -1 : 0;
}

/* The data an OSD of the host sends away, KiB. A down OSD reports no statistics: estimate
 * it from the cluster's data per CRUSH weight (its PGs are recovered elsewhere all the same). */
static uint64_t source_kb(const Ctx *x, const CephDfNode *src) {
        if (src->kb > 0)
                return src->kb_used_data;
        double data = 0, weight = 0;
        for (size_t i = 0; i < x->t->n_nodes; i++) {
                const CephDfNode *o = &x->t->nodes[i];
                if (o->id >= 0 && o->kb > 0 && o->crush_weight > 0) {
                        data += (double) o->kb_used_data;
                        weight += o->crush_weight;
                }
        }
        return weight > 0 ? (uint64_t) llround(data / weight * src->crush_weight) : 0;
}

static int dest_cmp(const void *a, const void *b) {
        return ceph_int_cmp(&((const CephDrainDest *) a)->id, &((const CephDrainDest *) b)->id);
}

static CephDrainDest *dest_get(CephDrainCheck *c, const CephDfNode *o) {
        for (size_t i = 0; i < c->n_dests; i++)
                if (c->dests[i].id == o->id)
                        return &c->dests[i];
        return NULL;
}

static int project(Ctx *x, const CephFullRatios *ratios) {
        CephDrainCheck *c = x->c;
        const CephOsdDfTree *t = x->t;

        /* destinations: the OSDs that stay under some pool's domain */
        c->dests = calloc(t->n_nodes + 1, sizeof(CephDrainDest));
        if (!c->dests)
                return -ENOMEM;
        for (size_t i = 0; i < t->n_nodes; i++) {
                const CephDfNode *o = &t->nodes[i];
                bool any = false;
                for (size_t d = 0; d < x->n_domains && !any; d++)
                        any = stays(x, o, x->domains[d].root, x->domains[d].device_class);
                if (!any)
                        continue;
                CephDrainDest *dd = &c->dests[c->n_dests++];
                *dd = (CephDrainDest) { .id = o->id, .crush_weight = o->crush_weight, .reweight = o->reweight,
                                        .kb = o->kb, .kb_used = o->kb_used };
                if (o->host && !(dd->host = strdup(o->host)))
                        return -ENOMEM;
        }

        /* each OSD of the host that is in sends its data; per destination the largest share
         * over the domains that cover the source */
        double *share = calloc(t->n_nodes + 1, sizeof(double)), *incoming = calloc(t->n_nodes + 1, sizeof(double));
        if (!share || !incoming) {
                free(share);
                free(incoming);
                return -ENOMEM;
        }
        int r = 0;
        for (size_t s = 0; s < c->n_osds && r >= 0; s++) {
                const CephDfNode *src = ceph_osd_df_tree_find(t, c->osds[s]);
                if (!src || is_counted_out(src) < 0)
                        continue;
                uint64_t kb_data = source_kb(x, src);
                if (kb_data == 0)
                        continue;
                char buf[SIZE_FORMAT_MAX];
                if (!src->in)
                        r = add_reason(&c->warnings, strprintf("osd.%d is out but still holds %llu PGs: its data is "
                                                               "counted as still to move",
                                                               src->id, (unsigned long long) src->pgs));
                else if (src->kb == 0)
                        r = add_reason(&c->warnings,
                                       strprintf("osd.%d reports no statistics (down): its data is estimated at %s "
                                                 "from the cluster's fill per CRUSH weight",
                                                 src->id, size_format(kb_data * 1024, buf, sizeof buf)));
                if (r < 0)
                        break;
                memset(share, 0, (t->n_nodes + 1) * sizeof(double));
                bool covered = false;
                for (size_t d = 0; d < x->n_domains && r >= 0; d++) {
                        const Domain *dom = &x->domains[d];
                        if (!in_domain(x, src, dom->root, dom->device_class))
                                continue;
                        covered = true;
                        if (dom->weight <= 0) {
                                const CephDfNode *rn = ceph_osd_df_tree_find(t, dom->root);
                                r = add_reason(&c->reasons,
                                               strprintf("no OSD would be left under '%s'%s%s to take the data of osd.%d",
                                                         rn ? rn->name : "?", dom->device_class[0] ? " class " : "",
                                                         dom->device_class, src->id));
                                continue;
                        }
                        for (size_t i = 0; i < t->n_nodes; i++) {
                                const CephDfNode *o = &t->nodes[i];
                                if (!stays(x, o, dom->root, dom->device_class))
                                        continue;
                                double v = (double) kb_data * dest_weight(o) / dom->weight;
                                if (v > share[i])
                                        share[i] = v;
                        }
                }
                if (!covered) {
                        r = add_reason(&c->warnings,
                                       strprintf("osd.%d holds %s that no pool's rule places there: not projected",
                                                 src->id, size_format(kb_data * 1024, buf, sizeof buf)));
                        continue;
                }
                c->bytes_to_move += kb_data * 1024;
                for (size_t i = 0; i < t->n_nodes; i++)
                        incoming[i] += share[i];
        }
        for (size_t i = 0; i < t->n_nodes && r >= 0; i++) {
                CephDrainDest *dd = dest_get(c, &t->nodes[i]);
                if (!dd)
                        continue;
                dd->kb_incoming = (uint64_t) llround(incoming[i]);
                if (dd->kb == 0) {
                        r = add_reason(&c->warnings, strprintf("osd.%d reports no size: its fill was not projected", dd->id));
                        continue;
                }
                dd->util_now = (double) dd->kb_used / (double) dd->kb;
                dd->util_after = (double) (dd->kb_used + dd->kb_incoming) / (double) dd->kb;
                dd->over_backfillfull = dd->util_after > ratios->backfillfull;
                dd->over_nearfull = dd->util_after > ratios->nearfull;
                if (dd->over_backfillfull)
                        r = add_reason(&c->reasons,
                                       strprintf("osd.%d%s%s%s would be %.1f %% full after the drain%s%s (now %.1f "
                                                 "%%), past the backfillfull ratio %.0f %%",
                                                 dd->id, dd->host ? " (" : "", dd->host ? dd->host : "",
                                                 dd->host ? ")" : "", dd->util_after * 100,
                                                 x->n_hosts > 1 ? " of " : "", x->n_hosts > 1 ? c->names : "",
                                                 dd->util_now * 100, ratios->backfillfull * 100));
                else if (dd->over_nearfull)
                        r = add_reason(&c->warnings,
                                       strprintf("osd.%d would be %.1f %% full after the drain, past the nearfull ratio "
                                                 "%.0f %%",
                                                 dd->id, dd->util_after * 100, ratios->nearfull * 100));
        }
        free(share);
        free(incoming);
        if (r < 0)
                return r;
        qsort(c->dests, c->n_dests, sizeof(CephDrainDest), dest_cmp);
        return 0;
}

/* "node4", "node3 and node4", "node2, node3 and node4" */
static char *names_join(char * const *hosts) {
        size_t n = strv_length((char **) hosts);
        if (n <= 1)
                return strdup(n ? hosts[0] : "");
        _cleanup_(freep) char **head = calloc(n, sizeof(char *));
        if (!head)
                return NULL;
        memcpy(head, hosts, (n - 1) * sizeof(char *));
        _cleanup_(freep) char *h = strv_join(head, ", ");
        return h ? strprintf("%s and %s", h, hosts[n - 1]) : NULL;
}

static CephDrainCheck *check_new(char * const *hosts) {
        _cleanup_(ceph_drain_check_freep) CephDrainCheck *c = calloc(1, sizeof(CephDrainCheck));
        if (!c || !(c->hosts = strv_copy(hosts)) || !(c->names = names_join(hosts)) ||
            !(c->reasons = calloc(1, sizeof(char *))) || !(c->warnings = calloc(1, sizeof(char *))))
                return NULL;
        return TAKE_PTR(c);
}

CephDrainCheck *ceph_drain_check_no_bucket(char * const *hosts) {
        _cleanup_(ceph_drain_check_freep) CephDrainCheck *c = check_new(hosts);
        if (!c || !(c->osds = calloc(1, sizeof(int))) || !(c->osds_out = calloc(1, sizeof(int))))
                return NULL;
        for (char * const *h = hosts; h && *h; h++)
                if (add_reason(&c->warnings, strprintf("host '%s' has no host bucket in the CRUSH map: nothing to move",
                                                       *h)) < 0)
                        return NULL;
        c->ok = true;
        return TAKE_PTR(c);
}

int ceph_drain_check(const CephOsdDfTree *t, const CephPoolList *pools, const CephCrushRules *rules,
                     const CephEcProfileList *ec_profiles, const CephFullRatios *ratios, char * const *hosts,
                     CephDrainCheck **ret, Error *err) {
        if (!t || !pools || !rules || !ratios || !hosts || !hosts[0])
                return error_set(err, EINVAL, "drain check: missing input");
        if (ratios->backfillfull <= 0 || ratios->backfillfull > 1 || ratios->nearfull <= 0 || ratios->nearfull > 1)
                return error_set(err, EINVAL, "drain check: invalid full ratios");
        size_t n_hosts = strv_length((char **) hosts);
        _cleanup_(freep) const CephDfNode **hb = calloc(n_hosts, sizeof(CephDfNode *));
        if (!hb)
                return -ENOMEM;
        for (size_t k = 0; k < n_hosts; k++) {
                for (size_t i = 0; i < t->n_nodes && !hb[k]; i++)
                        if (t->nodes[i].id < 0 && streq(t->nodes[i].type, "host") && streq(t->nodes[i].name, hosts[k]))
                                hb[k] = &t->nodes[i];
                if (!hb[k])
                        return error_set(err, ENOENT, "host '%s' is not a host bucket of the CRUSH map (`osd df tree`)",
                                         hosts[k]);
        }

        _cleanup_(ceph_drain_check_freep) CephDrainCheck *c = check_new(hosts);
        if (!c || !(c->osds = calloc(t->n_nodes + 1, sizeof(int))) ||
            !(c->osds_out = calloc(t->n_nodes + 1, sizeof(int))) ||
            !(c->pools = calloc(pools->n_pools + 1, sizeof(CephDrainPool))))
                return -ENOMEM;
        c->ratios = *ratios;
        Ctx x = { .t = t, .hosts = hb, .n_hosts = n_hosts, .c = c };
        for (size_t i = 0; i < t->n_nodes; i++) {
                const CephDfNode *o = &t->nodes[i];
                if (o->id < 0 || !on_host(&x, o->id))
                        continue;
                c->osds[c->n_osds++] = o->id;
                if (is_counted_out(o) < 0)
                        c->osds_out[c->n_osds_out++] = o->id;
        }
        qsort(c->osds, c->n_osds, sizeof(int), ceph_int_cmp);
        qsort(c->osds_out, c->n_osds_out, sizeof(int), ceph_int_cmp);

        int r = 0;
        for (size_t i = 0; i < pools->n_pools && r >= 0; i++)
                r = check_pool(&x, &pools->pools[i], rules, ec_profiles, &c->pools[c->n_pools++]);
        if (r >= 0)
                r = project(&x, ratios);
        free(x.domains);
        if (r < 0)
                return r;
        c->ok = strv_length(c->reasons) == 0;
        *ret = TAKE_PTR(c);
        return 0;
}

static int fputs_ids(FILE *f, const int *ids, size_t n) {
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%sosd.%d", i ? " " : "", ids[i]);
        return 0;
}

char *ceph_drain_check_format(const CephDrainCheck *c) {
        if (!c)
                return NULL;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        char b[SIZE_FORMAT_MAX];
        fprintf(f, "drain %s%s: %s to move from ", c->names, strv_length(c->hosts) > 1 ? " together" : "",
                size_format(c->bytes_to_move, b, sizeof b));
        if (c->n_osds == 0)
                fputs("no OSDs", f);
        fputs_ids(f, c->osds, c->n_osds);
        if (c->n_osds_out > 0) {
                fputs(" (already out: ", f);
                fputs_ids(f, c->osds_out, c->n_osds_out);
                fputs(")", f);
        }
        fprintf(f, " to %zu OSDs\n", c->n_dests);
        const CephDrainDest *fullest = NULL;
        for (size_t i = 0; i < c->n_dests; i++)
                if (!fullest || c->dests[i].util_after > fullest->util_after)
                        fullest = &c->dests[i];
        if (fullest)
                fprintf(f, "  fullest afterwards: osd.%d%s%s%s %.1f %% (now %.1f %%, backfillfull %.0f %%)\n", fullest->id,
                        fullest->host ? " (" : "", fullest->host ? fullest->host : "", fullest->host ? ")" : "",
                        fullest->util_after * 100, fullest->util_now * 100, c->ratios.backfillfull * 100);
        for (size_t i = 0; i < c->n_pools; i++) {
                const CephDrainPool *p = &c->pools[i];
                if (!p->rule || !p->failure_domain)
                        continue;
                fprintf(f, "  pool %s: %u of %u %s domains left under rule %s%s\n", p->name, p->left, p->needed,
                        p->failure_domain, p->rule, p->ok ? "" : " (not enough)");
        }
        STRV_FOREACH(s, c->reasons)
                fprintf(f, "  refused: %s\n", *s);
        STRV_FOREACH(s, c->warnings)
                fprintf(f, "  warning: %s\n", *s);
        return ceph_memstream_done(f, &buf);
}

json_object *ceph_drain_check_to_json(const CephDrainCheck *c) {
        if (!c)
                return NULL;
        _cleanup_json_ json_object *o = json_object_new_object(), *dests = json_object_new_array(),
                                   *pools = json_object_new_array();
        if (!o || !dests || !pools)
                return NULL;
        for (size_t i = 0; i < c->n_dests; i++) {
                const CephDrainDest *d = &c->dests[i];
                json_object *e = json_array_add_object(dests);
                if (!e)
                        return NULL;
                if (json_add_int(e, "osd", d->id) < 0 || json_add_string(e, "host", d->host) < 0 ||
                    json_add(e, "crush_weight", json_object_new_double(d->crush_weight)) < 0 ||
                    json_add_u64(e, "bytes", d->kb * 1024) < 0 || json_add_u64(e, "bytes_used", d->kb_used * 1024) < 0 ||
                    json_add_u64(e, "bytes_incoming", d->kb_incoming * 1024) < 0 ||
                    json_add(e, "utilization_now", json_object_new_double(d->util_now)) < 0 ||
                    json_add(e, "utilization_after", json_object_new_double(d->util_after)) < 0 ||
                    json_add_bool(e, "over_backfillfull", d->over_backfillfull) < 0)
                        return NULL;
        }
        for (size_t i = 0; i < c->n_pools; i++) {
                const CephDrainPool *p = &c->pools[i];
                json_object *e = json_array_add_object(pools);
                if (!e)
                        return NULL;
                if (json_add_int(e, "id", p->id) < 0 || json_add_string(e, "name", p->name) < 0 ||
                    json_add_string(e, "type", ceph_pool_type_to_string(p->type)) < 0 ||
                    json_add_string(e, "rule", p->rule) < 0 || json_add_string(e, "failure_domain", p->failure_domain) < 0 ||
                    json_add_u64(e, "needed", p->needed) < 0 || json_add_u64(e, "left", p->left) < 0 ||
                    json_add_bool(e, "ok", p->ok) < 0)
                        return NULL;
        }
        if (json_add_bool(o, "ok", c->ok) < 0 || json_add(o, "hosts", json_array_new_strv(c->hosts)) < 0 ||
            json_add(o, "osds", json_array_new_ints(c->osds, c->n_osds)) < 0 ||
            json_add(o, "osds_already_out", json_array_new_ints(c->osds_out, c->n_osds_out)) < 0 ||
            json_add_u64(o, "bytes_to_move", c->bytes_to_move) < 0 ||
            json_add(o, "backfillfull_ratio", json_object_new_double(c->ratios.backfillfull)) < 0 ||
            json_add(o, "reasons", json_array_new_strv(c->reasons)) < 0 ||
            json_add(o, "warnings", json_array_new_strv(c->warnings)) < 0 ||
            json_add(o, "destinations", TAKE_PTR(dests)) < 0 || json_add(o, "pools", TAKE_PTR(pools)) < 0)
                return NULL;
        return TAKE_PTR(o);
}

/* ---- progress ---------------------------------------------------------------------- */

static uint64_t objects_of(const CephRecovery *r) {
        return r->misplaced_objects + r->degraded_objects;
}

void ceph_drain_progress(const CephRecovery *start, const CephRecovery *prev, const CephRecovery *now, double dt_sec,
                         uint64_t bytes_total, CephDrainProgress *ret) {
        CephDrainProgress p = { .eta_sec = -1 };
        if (!now) {
                *ret = p;
                return;
        }
        p.objects_left = objects_of(now);
        p.pgs_left = now->pgs_not_clean;
        p.done = p.objects_left == 0 && p.pgs_left == 0 && now->unfound_objects == 0;
        p.bytes_per_sec = (double) now->recovering_bytes_per_sec;

        if (prev && dt_sec > 0 && objects_of(prev) > p.objects_left)
                p.objects_per_sec = (double) (objects_of(prev) - p.objects_left) / dt_sec;
        else
                p.objects_per_sec = (double) now->recovering_objects_per_sec;

        uint64_t at_start = start ? objects_of(start) : 0;
        if (at_start > 0) {
                uint64_t moved = at_start > p.objects_left ? at_start - p.objects_left : 0;
                p.fraction_done = (double) moved / (double) at_start;
                if (bytes_total > 0)
                        p.bytes_left = (uint64_t) ((double) bytes_total * (double) MIN(p.objects_left, at_start) /
                                                   (double) at_start);
        }
        if (p.done) {
                p.fraction_done = 1;
                p.bytes_left = 0;
                p.eta_sec = 0;
        } else if (p.objects_per_sec > 0 && p.objects_left > 0)
                p.eta_sec = (double) p.objects_left / p.objects_per_sec;
        else if (p.bytes_per_sec > 0 && p.bytes_left > 0)
                p.eta_sec = (double) p.bytes_left / p.bytes_per_sec;
        *ret = p;
}

char *ceph_drain_progress_format(const CephDrainProgress *p) {
        if (!p)
                return NULL;
        if (p->done)
                return strdup("done: every PG active+clean");
        char left[SIZE_FORMAT_MAX], rate[SIZE_FORMAT_MAX], eta[32] = "unknown";
        if (p->eta_sec >= 0) {
                uint64_t s = (uint64_t) ceil(p->eta_sec);
                if (s >= 3600)
                        snprintf(eta, sizeof eta, "%lluh%02llum", (unsigned long long) (s / 3600),
                                 (unsigned long long) (s % 3600 / 60));
                else
                        snprintf(eta, sizeof eta, "%llum%02llus", (unsigned long long) (s / 60),
                                 (unsigned long long) (s % 60));
        }
        size_format(p->bytes_left, left, sizeof left);
        size_format((uint64_t) p->bytes_per_sec, rate, sizeof rate);
        return strprintf("%llu PGs, %llu objects left%s%s%s, %s/s, %.0f %% done, ETA %s",
                         (unsigned long long) p->pgs_left, (unsigned long long) p->objects_left,
                         p->bytes_left ? " (" : "", p->bytes_left ? left : "", p->bytes_left ? ")" : "", rate,
                         p->fraction_done * 100, eta);
}
