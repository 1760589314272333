/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `ceph osd df tree -f json`: OSDMap.cc OSDUtilizationFormatDumper (items from
 * CrushTreeDumper::dump_item_fields, then reweight, kb, kb_used, kb_used_data, kb_used_omap,
 * kb_used_meta, kb_avail, utilization, var, pgs, status for OSDs, children for buckets),
 * "stray" (OSDs not in CRUSH) and "summary". */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph-cluster.h"
#include "ceph-internal.h"

static const char *const what = "ceph osd df tree";

CephOsdDfTree *ceph_osd_df_tree_free(CephOsdDfTree *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n_nodes; i++) {
                free(t->nodes[i].name);
                free(t->nodes[i].type);
                free(t->nodes[i].device_class);
                free(t->nodes[i].children);
                free(t->nodes[i].host);
        }
        free(t->nodes);
        free(t);
        return NULL;
}

/* a number member that may be printed as an integer or a float; absent → 0 */
static int get_double(json_object *o, const char *key, double *ret, Error *err) {
        json_object *v;
        if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null)) {
                *ret = 0;
                return 0;
        }
        if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
                return error_set(err, EINVAL, "%s: key '%s' is not a number", what, key);
        double d = json_object_get_double(v);
        if (!isfinite(d))
                return error_set(err, EINVAL, "%s: key '%s' is not a finite number", what, key);
        *ret = d;
        return 0;
}

/* a count in KiB; absent → 0 (an OSD without statistics prints 0 anyway) */
static int get_kb(json_object *o, const char *key, uint64_t *ret, bool *present, Error *err) {
        uint64_t v = 0;
        int r = json_get_u64(o, key, false, &v, what, err);
        if (r < 0 && r != -ENOENT)
                return r;
        if (present)
                *present = r == 0;
        *ret = r == 0 ? v : 0;
        return 0;
}

static CephDfStatus status_from_string(const char *s) {
        if (!s)
                return CEPH_DF_STATUS_UNKNOWN;
        if (streq(s, "up"))
                return CEPH_DF_STATUS_UP;
        if (streq(s, "down"))
                return CEPH_DF_STATUS_DOWN;
        if (streq(s, "destroyed"))
                return CEPH_DF_STATUS_DESTROYED;
        if (streq(s, "DNE"))
                return CEPH_DF_STATUS_DNE;
        return CEPH_DF_STATUS_UNKNOWN;
}

static int node_parse(json_object *e, bool stray, CephDfNode *n, Error *err) {
        int64_t id;
        const char *name, *type, *cls = NULL, *status = NULL;
        int r;
        if ((r = json_get_int(e, "id", true, &id, what, err)) < 0 ||
            (r = json_get_string(e, "name", true, &name, what, err)) < 0 ||
            (r = json_get_string(e, "type", true, &type, what, err)) < 0)
                return r;
        if (id < INT32_MIN || id > INT32_MAX)
                return error_set(err, ERANGE, "%s: id %lld is out of range", what, (long long) id);
        n->id = (int) id;
        n->stray = stray;
        n->name = strdup(name);
        n->type = strdup(type);
        if (!n->name || !n->type)
                return -ENOMEM;
        if (json_get_string(e, "device_class", false, &cls, what, NULL) == 0 && cls[0] && !(n->device_class = strdup(cls)))
                return -ENOMEM;

        bool has_data = false, has_omap = false;
        uint64_t omap = 0;
        if ((r = get_double(e, "crush_weight", &n->crush_weight, err)) < 0 ||
            (r = get_double(e, "reweight", &n->reweight, err)) < 0 ||
            (r = get_double(e, "utilization", &n->utilization, err)) < 0 ||
            (r = get_kb(e, "kb", &n->kb, NULL, err)) < 0 || (r = get_kb(e, "kb_used", &n->kb_used, NULL, err)) < 0 ||
            (r = get_kb(e, "kb_avail", &n->kb_avail, NULL, err)) < 0 ||
            (r = get_kb(e, "kb_used_data", &n->kb_used_data, &has_data, err)) < 0 ||
            (r = get_kb(e, "kb_used_omap", &omap, &has_omap, err)) < 0 || (r = get_kb(e, "pgs", &n->pgs, NULL, err)) < 0)
                return r;
        /* what moves with the PGs is object data and omap, not BlueFS's own space */
        n->kb_used_data = has_data ? n->kb_used_data + (has_omap ? omap : 0) : n->kb_used;
        if (n->kb_used_data > n->kb_used && n->kb_used > 0)
                n->kb_used_data = n->kb_used;

        if (n->id >= 0) {
                if (n->crush_weight < 0 || n->reweight < 0)
                        return error_set(err, EINVAL, "%s: osd.%d has a negative weight", what, n->id);
                (void) json_get_string(e, "status", false, &status, what, NULL);
                n->status = status_from_string(status);
                /* Older releases print no status; an OSD that is down reports no statistics */
                n->up = n->status == CEPH_DF_STATUS_UP || (n->status == CEPH_DF_STATUS_UNKNOWN && !status && n->kb > 0);
                n->in = n->reweight > 0;
        }

        json_object *children;
        r = json_get_array(e, "children", false, &children, what, err);
        if (r == 0) {
                r = ceph_json_int_array(children, what, &n->children, &n->n_children, err);
                if (r < 0)
                        return r;
        } else if (r != -ENOENT)
                return r;
        return 0;
}

static CephDfNode *find_mut(const CephOsdDfTree *t, int id) {
        for (size_t i = 0; t && i < t->n_nodes; i++)
                if (t->nodes[i].id == id)
                        return &t->nodes[i];
        return NULL;
}

const CephDfNode *ceph_osd_df_tree_find(const CephOsdDfTree *t, int id) {
        return find_mut(t, id);
}

const CephDfNode *ceph_osd_df_tree_find_name(const CephOsdDfTree *t, const char *name) {
        for (size_t i = 0; t && name && i < t->n_nodes; i++)
                if (streq(t->nodes[i].name, name))
                        return &t->nodes[i];
        return NULL;
}

bool ceph_osd_df_tree_is_under(const CephOsdDfTree *t, int id, int ancestor) {
        const CephDfNode *n = ceph_osd_df_tree_find(t, id);
        /* parents are unique and the walk is bounded by the number of nodes (no cycles) */
        for (size_t hops = 0; n && hops <= t->n_nodes; hops++) {
                if (n->id == ancestor)
                        return true;
                if (!n->has_parent)
                        return false;
                n = ceph_osd_df_tree_find(t, n->parent);
        }
        return false;
}

/* the sum of the CRUSH weights of the OSDs below bucket `id` (depth-bounded) */
static double bucket_weight(const CephOsdDfTree *t, const CephDfNode *b, unsigned depth) {
        if (b->id >= 0)
                return b->crush_weight;
        if (depth > 32)
                return 0;
        double w = 0;
        for (size_t i = 0; i < b->n_children; i++) {
                const CephDfNode *c = ceph_osd_df_tree_find(t, b->children[i]);
                if (c && c->has_parent && c->parent == b->id)
                        w += bucket_weight(t, c, depth + 1);
        }
        return w;
}

int ceph_osd_df_tree_parse(const char *json, CephOsdDfTree **ret, Error *err) {
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, what, &root, err);
        if (r < 0)
                return r;
        json_object *nodes, *stray = NULL, *summary;
        if ((r = json_get_array(root, "nodes", true, &nodes, what, err)) < 0)
                return r;
        r = json_get_array(root, "stray", false, &stray, what, err);
        if (r < 0 && r != -ENOENT)
                return r;
        size_t n_nodes = json_object_array_length(nodes), n_stray = stray ? json_object_array_length(stray) : 0;

        _cleanup_(ceph_osd_df_tree_freep) CephOsdDfTree *t = calloc(1, sizeof(CephOsdDfTree));
        if (!t)
                return -ENOMEM;
        t->nodes = calloc(n_nodes + n_stray + 1, sizeof(CephDfNode));
        if (!t->nodes)
                return -ENOMEM;
        for (size_t pass = 0; pass < 2; pass++) {
                json_object *list = pass == 0 ? nodes : stray;
                size_t n = pass == 0 ? n_nodes : n_stray;
                for (size_t i = 0; i < n; i++) {
                        CephDfNode *node = &t->nodes[t->n_nodes++];
                        r = node_parse(json_object_array_get_idx(list, i), pass == 1, node, err);
                        if (r < 0)
                                return r;
                        for (size_t k = 0; k + 1 < t->n_nodes; k++)
                                if (t->nodes[k].id == node->id)
                                        return error_set(err, EINVAL, "%s: id %d is listed twice", what, node->id);
                }
        }

        /* parents from the buckets' children; an item listed by two buckets is malformed
         * (`osd df tree` prints each item once) */
        for (size_t i = 0; i < t->n_nodes; i++) {
                CephDfNode *b = &t->nodes[i];
                if (b->n_children > 0 && b->id >= 0)
                        return error_set(err, EINVAL, "%s: osd.%d has children", what, b->id);
                for (size_t k = 0; k < b->n_children; k++) {
                        CephDfNode *c = find_mut(t, b->children[k]);
                        if (!c)
                                continue; /* a child below a filtered subtree */
                        if (c->has_parent || c == b)
                                return error_set(err, EINVAL, "%s: item %d has more than one parent", what, c->id);
                        c->has_parent = true;
                        c->parent = b->id;
                }
        }
        for (size_t i = 0; i < t->n_nodes; i++) {
                CephDfNode *n = &t->nodes[i];
                if (n->id < 0) {
                        n->crush_weight = bucket_weight(t, n, 0);
                        continue;
                }
                const CephDfNode *p = n;
                for (size_t hops = 0; p && p->has_parent && hops <= t->n_nodes; hops++) {
                        p = ceph_osd_df_tree_find(t, p->parent);
                        if (p && streq(p->type, "host")) {
                                if (!(n->host = strdup(p->name)))
                                        return -ENOMEM;
                                break;
                        }
                }
        }

        if (json_get_object(root, "summary", false, &summary, what, NULL) == 0) {
                (void) get_kb(summary, "total_kb", &t->total_kb, NULL, NULL);
                (void) get_kb(summary, "total_kb_used", &t->total_kb_used, NULL, NULL);
                (void) get_kb(summary, "total_kb_avail", &t->total_kb_avail, NULL, NULL);
                (void) get_double(summary, "average_utilization", &t->average_utilization, NULL);
        }
        *ret = TAKE_PTR(t);
        return 0;
}
