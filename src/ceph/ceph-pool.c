/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pools (pg_pool_t::dump, as `osd pool ls detail` and `osd dump` print it), CRUSH rules
 * (CrushWrapper::dump_rules), erasure-code profiles and the OSD map's full ratios. */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph-cluster.h"
#include "ceph-internal.h"

/* ---- pools ------------------------------------------------------------------------- */

const char *ceph_pool_type_to_string(CephPoolType t) {
        switch (t) {
        case CEPH_POOL_REPLICATED:
                return "replicated";
        case CEPH_POOL_ERASURE:
                return "erasure";
        }
        return "unknown";
}

CephPoolList *ceph_pool_list_free(CephPoolList *l) {
        if (!l)
                return NULL;
        for (size_t i = 0; i < l->n_pools; i++) {
                free(l->pools[i].name);
                free(l->pools[i].erasure_code_profile);
                free(l->pools[i].pg_autoscale_mode);
        }
        free(l->pools);
        free(l);
        return NULL;
}

static int pool_cmp(const void *a, const void *b) {
        return ceph_int_cmp(&((const CephPool *) a)->id, &((const CephPool *) b)->id);
}

static int pool_parse(json_object *e, const char *what, CephPool *p, Error *err) {
        int64_t id, type, rule;
        uint64_t size, min_size, pg_num = 0;
        const char *name, *profile = NULL, *mode = NULL;
        int r;
        /* `osd pool ls detail` says "pool_id", `osd dump` says "pool" */
        r = json_get_int(e, "pool_id", false, &id, what, err);
        if (r == -ENOENT)
                r = json_get_int(e, "pool", true, &id, what, err);
        if (r < 0)
                return r;
        if ((r = json_get_string(e, "pool_name", true, &name, what, err)) < 0 ||
            (r = json_get_int(e, "type", true, &type, what, err)) < 0 ||
            (r = json_get_u64(e, "size", true, &size, what, err)) < 0 ||
            (r = json_get_u64(e, "min_size", true, &min_size, what, err)) < 0 ||
            (r = json_get_int(e, "crush_rule", true, &rule, what, err)) < 0)
                return r;
        if (id < 0 || id > INT32_MAX || rule < 0 || rule > INT32_MAX || size > 1024 || min_size > 1024)
                return error_set(err, ERANGE, "%s: pool '%s' has an id, rule or size out of range", what, name);
        if (type != CEPH_POOL_REPLICATED && type != CEPH_POOL_ERASURE)
                return error_set(err, EINVAL, "%s: pool '%s' has unknown type %lld", what, name, (long long) type);
        r = json_get_u64(e, "pg_num", false, &pg_num, what, err);
        if (r < 0 && r != -ENOENT)
                return r;
        p->id = (int) id;
        p->type = (CephPoolType) type;
        p->size = (unsigned) size;
        p->min_size = (unsigned) min_size;
        p->pg_num = pg_num > UINT32_MAX ? UINT32_MAX : (unsigned) pg_num;
        p->crush_rule = (int) rule;
        if (!(p->name = strdup(name)))
                return -ENOMEM;
        (void) json_get_string(e, "erasure_code_profile", false, &profile, what, NULL);
        if (p->type == CEPH_POOL_ERASURE) {
                if (isempty(profile))
                        return error_set(err, EINVAL, "%s: erasure pool '%s' names no erasure_code_profile", what, name);
                if (!(p->erasure_code_profile = strdup(profile)))
                        return -ENOMEM;
        }
        if (json_get_string(e, "pg_autoscale_mode", false, &mode, what, NULL) == 0 &&
            !(p->pg_autoscale_mode = strdup(mode)))
                return -ENOMEM;
        return 0;
}

int ceph_pool_list_parse(const char *json, CephPoolList **ret, Error *err) {
        const char *what = "ceph osd pool ls detail";
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, what, &root, err);
        if (r < 0)
                return r;
        json_object *pools = root;
        if (!json_object_is_type(root, json_type_array)) {
                what = "ceph osd dump";
                r = json_get_array(root, "pools", true, &pools, what, err);
                if (r < 0)
                        return r;
        }
        size_t n = json_object_array_length(pools);
        _cleanup_(ceph_pool_list_freep) CephPoolList *l = calloc(1, sizeof(CephPoolList));
        if (!l || !(l->pools = calloc(n ? n : 1, sizeof(CephPool))))
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                r = pool_parse(json_object_array_get_idx(pools, i), what, &l->pools[l->n_pools++], err);
                if (r < 0)
                        return r;
        }
        qsort(l->pools, l->n_pools, sizeof(CephPool), pool_cmp);
        for (size_t i = 1; i < l->n_pools; i++)
                if (l->pools[i].id == l->pools[i - 1].id)
                        return error_set(err, EINVAL, "%s: pool id %d is listed twice", what, l->pools[i].id);
        *ret = TAKE_PTR(l);
        return 0;
}

const CephPool *ceph_pool_list_find(const CephPoolList *l, const char *name) {
        for (size_t i = 0; l && name && i < l->n_pools; i++)
                if (streq(l->pools[i].name, name))
                        return &l->pools[i];
        return NULL;
}

/* ---- CRUSH rules ------------------------------------------------------------------- */

CephCrushRules *ceph_crush_rules_free(CephCrushRules *r) {
        if (!r)
                return NULL;
        for (size_t i = 0; i < r->n_rules; i++) {
                CephCrushRule *rule = &r->rules[i];
                free(rule->name);
                for (size_t k = 0; k < rule->n_steps; k++) {
                        free(rule->steps[k].op_name);
                        free(rule->steps[k].item_name);
                        free(rule->steps[k].type);
                }
                free(rule->steps);
        }
        free(r->rules);
        free(r);
        return NULL;
}

static const struct {
        const char *name;
        CephCrushOp op;
} crush_ops[] = {
        { "take", CEPH_CRUSH_OP_TAKE },
        { "choose_firstn", CEPH_CRUSH_OP_CHOOSE_FIRSTN },
        { "choose_indep", CEPH_CRUSH_OP_CHOOSE_INDEP },
        { "chooseleaf_firstn", CEPH_CRUSH_OP_CHOOSELEAF_FIRSTN },
        { "chooseleaf_indep", CEPH_CRUSH_OP_CHOOSELEAF_INDEP },
        { "emit", CEPH_CRUSH_OP_EMIT },
};

static bool op_is_choose(CephCrushOp op) {
        return op == CEPH_CRUSH_OP_CHOOSE_FIRSTN || op == CEPH_CRUSH_OP_CHOOSE_INDEP ||
               op == CEPH_CRUSH_OP_CHOOSELEAF_FIRSTN || op == CEPH_CRUSH_OP_CHOOSELEAF_INDEP;
}

static int step_parse(json_object *e, const char *rule, CephCrushStep *s, Error *err) {
        const char *what = "ceph osd crush rule dump";
        const char *op, *str;
        int64_t v;
        int r = json_get_string(e, "op", true, &op, what, err);
        if (r < 0)
                return r;
        if (!(s->op_name = strdup(op)))
                return -ENOMEM;
        s->op = CEPH_CRUSH_OP_OTHER;
        for (size_t i = 0; i < ELEMENTSOF(crush_ops); i++)
                if (streq(crush_ops[i].name, op))
                        s->op = crush_ops[i].op;
        if (s->op == CEPH_CRUSH_OP_TAKE) {
                if ((r = json_get_int(e, "item", true, &v, what, err)) < 0)
                        return r;
                if (v < INT32_MIN || v > INT32_MAX)
                        return error_set(err, ERANGE, "%s: rule '%s': take item out of range", what, rule);
                s->item = (int) v;
                if ((r = json_get_string(e, "item_name", true, &str, what, err)) < 0)
                        return r;
                if (!(s->item_name = strdup(str)))
                        return -ENOMEM;
        } else if (op_is_choose(s->op)) {
                if ((r = json_get_int(e, "num", true, &v, what, err)) < 0 ||
                    (r = json_get_string(e, "type", true, &str, what, err)) < 0)
                        return r;
                if (v < -1024 || v > 1024)
                        return error_set(err, ERANGE, "%s: rule '%s': num %lld out of range", what, rule, (long long) v);
                s->num = (int) v;
                if (!(s->type = strdup(str)))
                        return -ENOMEM;
        }
        return 0;
}

static int rule_parse(json_object *e, CephCrushRule *rule, Error *err) {
        const char *what = "ceph osd crush rule dump";
        int64_t id, type = 0;
        const char *name;
        json_object *steps;
        int r;
        if ((r = json_get_int(e, "rule_id", true, &id, what, err)) < 0 ||
            (r = json_get_string(e, "rule_name", true, &name, what, err)) < 0 ||
            (r = json_get_array(e, "steps", true, &steps, what, err)) < 0)
                return r;
        r = json_get_int(e, "type", false, &type, what, err);
        if (r < 0 && r != -ENOENT)
                return r;
        if (id < 0 || id > INT32_MAX)
                return error_set(err, ERANGE, "%s: rule '%s': id out of range", what, name);
        rule->id = (int) id;
        rule->type = (int) (type > 255 || type < 0 ? 0 : type);
        if (!(rule->name = strdup(name)))
                return -ENOMEM;
        size_t n = json_object_array_length(steps);
        if (!(rule->steps = calloc(n ? n : 1, sizeof(CephCrushStep))))
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                r = step_parse(json_object_array_get_idx(steps, i), rule->name, &rule->steps[rule->n_steps++], err);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int rule_cmp(const void *a, const void *b) {
        return ceph_int_cmp(&((const CephCrushRule *) a)->id, &((const CephCrushRule *) b)->id);
}

int ceph_crush_rules_parse(const char *json, CephCrushRules **ret, Error *err) {
        const char *what = "ceph osd crush rule dump";
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, what, &root, err);
        if (r < 0)
                return r;
        bool single = json_object_is_type(root, json_type_object);
        if (!single && !json_object_is_type(root, json_type_array))
                return error_set(err, EINVAL, "%s: expected an array or an object", what);
        size_t n = single ? 1 : json_object_array_length(root);
        _cleanup_(ceph_crush_rules_freep) CephCrushRules *rules = calloc(1, sizeof(CephCrushRules));
        if (!rules || !(rules->rules = calloc(n ? n : 1, sizeof(CephCrushRule))))
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                r = rule_parse(single ? root : json_object_array_get_idx(root, i), &rules->rules[rules->n_rules++], err);
                if (r < 0)
                        return r;
        }
        qsort(rules->rules, rules->n_rules, sizeof(CephCrushRule), rule_cmp);
        for (size_t i = 1; i < rules->n_rules; i++)
                if (rules->rules[i].id == rules->rules[i - 1].id)
                        return error_set(err, EINVAL, "%s: rule id %d is listed twice", what, rules->rules[i].id);
        *ret = TAKE_PTR(rules);
        return 0;
}

const CephCrushRule *ceph_crush_rules_find(const CephCrushRules *r, int id) {
        for (size_t i = 0; r && i < r->n_rules; i++)
                if (r->rules[i].id == id)
                        return &r->rules[i];
        return NULL;
}

int ceph_crush_rule_placement(const CephCrushRule *rule, unsigned size, CephCrushPlacement *ret, Error *err) {
        if (!rule)
                return error_set(err, EINVAL, "no CRUSH rule");
        const CephCrushStep *take = NULL, *choose = NULL;
        unsigned n_choose = 0;
        for (size_t i = 0; i < rule->n_steps; i++) {
                const CephCrushStep *s = &rule->steps[i];
                if (s->op == CEPH_CRUSH_OP_TAKE && !take)
                        take = s;
                else if (op_is_choose(s->op) && take) {
                        choose = s;
                        n_choose++;
                }
        }
        if (!take || !choose)
                return error_set(err, EINVAL, "CRUSH rule '%s' has no take step followed by a choose step", rule->name);

        CephCrushPlacement p = { .several_steps = n_choose > 1 };
        /* a device class shows as the shadow bucket "ROOT~CLASS" */
        const char *tilde = strchr(take->item_name, '~');
        size_t root_len = tilde ? (size_t) (tilde - take->item_name) : strlen(take->item_name);
        if (root_len == 0 || root_len >= sizeof p.root || (tilde && strlen(tilde + 1) >= sizeof p.device_class) ||
            strlen(choose->type) >= sizeof p.failure_domain)
                return error_set(err, EINVAL, "CRUSH rule '%s': bucket or type name too long", rule->name);
        memcpy(p.root, take->item_name, root_len);
        if (tilde)
                strcpy(p.device_class, tilde + 1);
        strcpy(p.failure_domain, choose->type);
        /* num: 0 = as many as the pool's size, negative = size minus that */
        long need = choose->num > 0 ? choose->num : (long) size + choose->num;
        if (need > (long) size)
                need = (long) size;
        p.n_needed = need > 0 ? (unsigned) need : 0;
        *ret = p;
        return 0;
}

/* ---- erasure-code profiles --------------------------------------------------------- */

static void profile_done(CephEcProfile *p) {
        free(p->name);
        free(p->failure_domain);
        free(p->root);
        free(p->device_class);
        free(p->plugin);
}

CephEcProfileList *ceph_ec_profile_list_free(CephEcProfileList *l) {
        if (!l)
                return NULL;
        for (size_t i = 0; i < l->n_profiles; i++)
                profile_done(&l->profiles[i]);
        free(l->profiles);
        free(l);
        return NULL;
}

/* "2" → 2 (the profile's values are all strings); 1..256 */
static int profile_uint(json_object *o, const char *key, const char *name, unsigned *ret, Error *err) {
        const char *s;
        int r = json_get_string(o, key, true, &s, "erasure-code profile", err);
        if (r < 0)
                return error_prefix(err, r, "erasure-code profile '%s'", name);
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (errno != 0 || end == s || *end || v < 1 || v > 256 || s[0] == '-' || s[0] == '+')
                return error_set(err, EINVAL, "erasure-code profile '%s': %s '%s' is not a number from 1 to 256", name,
                                 key, s);
        *ret = (unsigned) v;
        return 0;
}

static int dup_member(json_object *o, const char *key, bool empty_is_null, char **ret) {
        const char *s;
        if (json_get_string(o, key, false, &s, key, NULL) < 0 || (empty_is_null && !s[0])) {
                *ret = NULL;
                return 0;
        }
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static int profile_parse(json_object *o, const char *name, CephEcProfile *p, Error *err) {
        if (!json_object_is_type(o, json_type_object))
                return error_set(err, EINVAL, "erasure-code profile '%s': expected an object", name);
        int r;
        if (!(p->name = strdup(name)))
                return -ENOMEM;
        if ((r = profile_uint(o, "k", name, &p->k, err)) < 0 || (r = profile_uint(o, "m", name, &p->m, err)) < 0)
                return r;
        if (dup_member(o, "crush-failure-domain", true, &p->failure_domain) < 0 ||
            dup_member(o, "crush-root", true, &p->root) < 0 ||
            dup_member(o, "crush-device-class", true, &p->device_class) < 0 || dup_member(o, "plugin", true, &p->plugin) < 0)
                return -ENOMEM;
        /* ErasureCode::init's default */
        if (!p->failure_domain && !(p->failure_domain = strdup("host")))
                return -ENOMEM;
        return 0;
}

int ceph_ec_profile_parse(const char *json, const char *name, CephEcProfileList **ret, Error *err) {
        if (!ceph_name_is_valid(name))
                return error_set(err, EINVAL, "erasure-code profile: invalid name '%s'", strnull(name));
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, "ceph osd erasure-code-profile get", &root, err);
        if (r < 0)
                return r;
        _cleanup_(ceph_ec_profile_list_freep) CephEcProfileList *l = calloc(1, sizeof(CephEcProfileList));
        if (!l || !(l->profiles = calloc(1, sizeof(CephEcProfile))))
                return -ENOMEM;
        l->n_profiles = 1;
        r = profile_parse(root, name, &l->profiles[0], err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(l);
        return 0;
}

int ceph_ec_profiles_parse_osd_dump(const char *json, CephEcProfileList **ret, Error *err) {
        const char *what = "ceph osd dump";
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, what, &root, err);
        if (r < 0)
                return r;
        json_object *profiles;
        if ((r = json_get_object(root, "erasure_code_profiles", true, &profiles, what, err)) < 0)
                return r;
        size_t n = (size_t) json_object_object_length(profiles);
        _cleanup_(ceph_ec_profile_list_freep) CephEcProfileList *l = calloc(1, sizeof(CephEcProfileList));
        if (!l || !(l->profiles = calloc(n ? n : 1, sizeof(CephEcProfile))))
                return -ENOMEM;
        json_object_object_foreach(profiles, name, p) {
                r = profile_parse(p, name, &l->profiles[l->n_profiles++], err);
                if (r < 0)
                        return error_prefix(err, r, "%s", what);
        }
        *ret = TAKE_PTR(l);
        return 0;
}

int ceph_ec_profile_list_merge(CephEcProfileList **to, CephEcProfileList *from) {
        if (!from)
                return 0;
        if (!*to) {
                *to = from;
                return 0;
        }
        CephEcProfile *v = reallocarray((*to)->profiles, (*to)->n_profiles + from->n_profiles + 1, sizeof(CephEcProfile));
        if (!v) {
                ceph_ec_profile_list_free(from);
                return -ENOMEM;
        }
        (*to)->profiles = v;
        memcpy(v + (*to)->n_profiles, from->profiles, from->n_profiles * sizeof(CephEcProfile));
        (*to)->n_profiles += from->n_profiles;
        from->n_profiles = 0;
        ceph_ec_profile_list_free(from);
        return 0;
}

const CephEcProfile *ceph_ec_profile_list_find(const CephEcProfileList *l, const char *name) {
        for (size_t i = 0; l && name && i < l->n_profiles; i++)
                if (streq(l->profiles[i].name, name))
                        return &l->profiles[i];
        return NULL;
}

/* ---- full ratios ------------------------------------------------------------------- */

static int ratio_get(json_object *o, const char *key, double *ret, Error *err) {
        json_object *v;
        if (!json_object_object_get_ex(o, key, &v))
                return error_set(err, EINVAL, "ceph osd dump: missing key '%s'", key);
        if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
                return error_set(err, EINVAL, "ceph osd dump: key '%s' is not a number", key);
        double d = json_object_get_double(v);
        if (!isfinite(d) || d <= 0 || d > 1)
                return error_set(err, EINVAL, "ceph osd dump: %s %g is not a ratio in (0, 1]", key, d);
        *ret = d;
        return 0;
}

int ceph_full_ratios_parse(const char *json, CephFullRatios *ret, Error *err) {
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, "ceph osd dump", &root, err);
        if (r < 0)
                return r;
        if (!json_object_is_type(root, json_type_object))
                return error_set(err, EINVAL, "ceph osd dump: expected an object");
        CephFullRatios f;
        if ((r = ratio_get(root, "full_ratio", &f.full, err)) < 0 ||
            (r = ratio_get(root, "backfillfull_ratio", &f.backfillfull, err)) < 0 ||
            (r = ratio_get(root, "nearfull_ratio", &f.nearfull, err)) < 0)
                return r;
        *ret = f;
        return 0;
}
