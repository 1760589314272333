/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The OSD maps: `osd tree`, `osd dump`, `osd metadata`. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph-internal.h"
#include "ceph.h"

static int osd_id_from(json_object *o, const char *key, const char *what, int *ret, Error *err) {
        long long id;
        int r = ceph_json_get_intish(o, key, true, &id, what, err);
        if (r < 0)
                return r;
        if (id < 0 || id > INT32_MAX)
                return error_set(err, ERANGE, "%s: osd id %lld out of range", what, id);
        *ret = (int) id;
        return 0;
}

/* ---- osd tree ---------------------------------------------------------------------- */

const char *ceph_osd_tree_status_to_string(CephOsdTreeStatus s) {
        switch (s) {
        case CEPH_OSD_TREE_UP:
                return "up";
        case CEPH_OSD_TREE_DOWN:
                return "down";
        case CEPH_OSD_TREE_DESTROYED:
                return "destroyed";
        }
        return NULL;
}

CephOsdTree *ceph_osd_tree_free(CephOsdTree *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n_hosts; i++) {
                free(t->hosts[i].name);
                free(t->hosts[i].osds);
        }
        for (size_t i = 0; i < t->n_osds; i++) {
                free(t->osds[i].device_class);
                free(t->osds[i].host);
        }
        free(t->hosts);
        free(t->osds);
        free(t);
        return NULL;
}

static int tree_osd_cmp(const void *a, const void *b) {
        return ceph_int_cmp(&((const CephTreeOsd *) a)->id, &((const CephTreeOsd *) b)->id);
}

static int tree_osd_parse(json_object *n, bool stray, CephTreeOsd *o, Error *err) {
        const char *what = "ceph osd tree";
        int r = osd_id_from(n, "id", what, &o->id, err);
        if (r < 0)
                return r;
        o->stray = stray;
        if (ceph_json_dup_string(n, "device_class", &o->device_class) < 0)
                return -ENOMEM;

        const char *status = NULL;
        r = json_get_string(n, "status", false, &status, what, err);
        if (r < 0 && r != -ENOENT)
                return r;
        if (status && strcmp(status, "up") == 0)
                o->status = CEPH_OSD_TREE_UP;
        else if (status && strcmp(status, "destroyed") == 0)
                o->status = CEPH_OSD_TREE_DESTROYED;
        else
                o->status = CEPH_OSD_TREE_DOWN;

        json_object *v;
        if (json_object_object_get_ex(n, "reweight", &v))
                o->reweight = json_object_get_double(v);
        if (json_object_object_get_ex(n, "crush_weight", &v))
                o->crush_weight = json_object_get_double(v);
        o->in = o->reweight > 0;
        return 0;
}

int ceph_osd_tree_parse(const char *json, CephOsdTree **ret, Error *err) {
        const char *what = "ceph osd tree";
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, what, &root, err);
        if (r < 0)
                return r;
        json_object *nodes, *stray = NULL;
        r = json_get_array(root, "nodes", true, &nodes, what, err);
        if (r < 0)
                return r;
        r = json_get_array(root, "stray", false, &stray, what, err);
        if (r < 0 && r != -ENOENT)
                return r;

        size_t n_nodes = json_object_array_length(nodes), n_stray = stray ? json_object_array_length(stray) : 0;
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = calloc(1, sizeof(CephOsdTree));
        if (!t)
                return -ENOMEM;
        t->osds = calloc(n_nodes + n_stray + 1, sizeof(CephTreeOsd));
        t->hosts = calloc(n_nodes + 1, sizeof(CephTreeHost));
        if (!t->osds || !t->hosts)
                return -ENOMEM;

        /* buckets first: hosts with their children */
        for (size_t i = 0; i < n_nodes; i++) {
                json_object *n = json_object_array_get_idx(nodes, i), *children;
                const char *type, *name;
                if ((r = json_get_string(n, "type", true, &type, what, err)) < 0)
                        return r;
                if (strcmp(type, "host") != 0)
                        continue;
                if ((r = json_get_string(n, "name", true, &name, what, err)) < 0)
                        return r;
                CephTreeHost *h = &t->hosts[t->n_hosts++];
                int64_t id;
                if ((r = json_get_int(n, "id", true, &id, what, err)) < 0)
                        return r;
                h->bucket_id = (int) id;
                h->name = strdup(name);
                if (!h->name)
                        return -ENOMEM;
                r = json_get_array(n, "children", false, &children, what, err);
                if (r == 0) {
                        r = ceph_json_int_array(children, what, &h->osds, &h->n_osds, err);
                        if (r < 0)
                                return r;
                } else if (r != -ENOENT)
                        return r;
        }

        for (size_t pass = 0; pass < 2; pass++) {
                json_object *list = pass == 0 ? nodes : stray;
                size_t n = pass == 0 ? n_nodes : n_stray;
                for (size_t i = 0; i < n; i++) {
                        json_object *e = json_object_array_get_idx(list, i);
                        const char *type;
                        if ((r = json_get_string(e, "type", true, &type, what, err)) < 0)
                                return r;
                        if (strcmp(type, "osd") != 0)
                                continue;
                        CephTreeOsd *o = &t->osds[t->n_osds++];
                        r = tree_osd_parse(e, pass == 1, o, err);
                        if (r < 0)
                                return r;
                        for (size_t h = 0; h < t->n_hosts && !o->host; h++)
                                for (size_t k = 0; k < t->hosts[h].n_osds; k++)
                                        if (t->hosts[h].osds[k] == o->id) {
                                                o->host = strdup(t->hosts[h].name);
                                                if (!o->host)
                                                        return -ENOMEM;
                                                break;
                                        }
                }
        }
        qsort(t->osds, t->n_osds, sizeof(CephTreeOsd), tree_osd_cmp);
        *ret = TAKE_PTR(t);
        return 0;
}

const CephTreeOsd *ceph_osd_tree_find_osd(const CephOsdTree *t, int id) {
        for (size_t i = 0; t && i < t->n_osds; i++)
                if (t->osds[i].id == id)
                        return &t->osds[i];
        return NULL;
}

const CephTreeHost *ceph_osd_tree_find_host(const CephOsdTree *t, const char *name) {
        for (size_t i = 0; t && name && i < t->n_hosts; i++)
                if (strcmp(t->hosts[i].name, name) == 0)
                        return &t->hosts[i];
        return NULL;
}

/* ---- osd dump ---------------------------------------------------------------------- */

CephOsdDump *ceph_osd_dump_free(CephOsdDump *d) {
        if (!d)
                return NULL;
        free(d->fsid);
        strv_free(d->flags);
        strv_free(d->node_flags);
        for (size_t i = 0; i < d->n_osds; i++)
                free(d->osds[i].uuid);
        for (size_t i = 0; i < d->n_pools; i++)
                free(d->pools[i].name);
        free(d->osds);
        free(d->pools);
        free(d);
        return NULL;
}

static int dump_osd_cmp(const void *a, const void *b) {
        return ceph_int_cmp(&((const CephDumpOsd *) a)->id, &((const CephDumpOsd *) b)->id);
}

static int dump_osd_parse(json_object *e, CephDumpOsd *o, Error *err) {
        const char *what = "ceph osd dump";
        int64_t up, in;
        int r;
        if ((r = osd_id_from(e, "osd", what, &o->id, err)) < 0 ||
            (r = json_get_int(e, "up", true, &up, what, err)) < 0 ||
            (r = json_get_int(e, "in", true, &in, what, err)) < 0)
                return r;
        o->up = up != 0;
        o->in = in != 0;
        if (ceph_json_dup_string(e, "uuid", &o->uuid) < 0)
                return -ENOMEM;
        json_object *v;
        if (json_object_object_get_ex(e, "weight", &v))
                o->weight = json_object_get_double(v);
        r = json_get_u64(e, "up_from", false, &o->up_from, what, err);
        if (r < 0 && r != -ENOENT)
                return r;
        json_object *state;
        if (json_get_array(e, "state", false, &state, what, NULL) == 0)
                for (size_t i = 0; i < json_object_array_length(state); i++) {
                        const char *s = json_object_get_string(json_object_array_get_idx(state, i));
                        if (!s)
                                continue;
                        if (strcmp(s, "exists") == 0)
                                o->exists = true;
                        else if (strcmp(s, "new") == 0)
                                o->is_new = true;
                        else if (strcmp(s, "destroyed") == 0)
                                o->destroyed = true;
                }
        return 0;
}

int ceph_osd_dump_parse(const char *json, CephOsdDump **ret, Error *err) {
        const char *what = "ceph osd dump";
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, what, &root, err);
        if (r < 0)
                return r;

        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = calloc(1, sizeof(CephOsdDump));
        if (!d)
                return -ENOMEM;
        json_object *osds, *pools;
        const char *fsid, *flags = NULL;
        int64_t max_osd = 0;
        if ((r = json_get_u64(root, "epoch", true, &d->epoch, what, err)) < 0 ||
            (r = json_get_string(root, "fsid", true, &fsid, what, err)) < 0 ||
            (r = json_get_array(root, "osds", true, &osds, what, err)) < 0 ||
            (r = json_get_array(root, "pools", true, &pools, what, err)) < 0)
                return r;
        (void) json_get_int(root, "max_osd", false, &max_osd, what, NULL);
        d->max_osd = (int) max_osd;
        d->fsid = strdup(fsid);
        if (!d->fsid)
                return -ENOMEM;

        /* "flags" is one comma-separated string ("noout,sortbitwise,..."); "flags_set"
         * (an array) exists only on newer releases */
        r = json_get_string(root, "flags", false, &flags, what, err);
        if (r < 0 && r != -ENOENT)
                return r;
        d->flags = flags ? strv_split(flags, ",") : calloc(1, sizeof(char *));
        if (!d->flags)
                return -ENOMEM;

        /* "crush_node_flags": {"node1": ["noout"]} (osd set-group; Nautilus and later) */
        if (!(d->node_flags = calloc(1, sizeof(char *))))
                return -ENOMEM;
        json_object *nf = NULL;
        if (json_object_object_get_ex(root, "crush_node_flags", &nf) && json_object_is_type(nf, json_type_object)) {
                json_object_object_foreach(nf, node, list) {
                        if (!json_object_is_type(list, json_type_array))
                                continue;
                        for (size_t i = 0; i < json_object_array_length(list); i++) {
                                const char *f = json_object_get_string(json_object_array_get_idx(list, i));
                                if (f && strv_consume(&d->node_flags, strprintf("%s %s", node, f)) < 0)
                                        return -ENOMEM;
                        }
                }
        }

        const char *rel = NULL;
        if (json_get_string(root, "require_osd_release", false, &rel, what, NULL) == 0)
                d->require_osd_release = ceph_release_from_string(rel);

        size_t n = json_object_array_length(osds);
        d->osds = calloc(n ? n : 1, sizeof(CephDumpOsd));
        if (!d->osds)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                r = dump_osd_parse(json_object_array_get_idx(osds, i), &d->osds[d->n_osds++], err);
                if (r < 0)
                        return r;
        }
        qsort(d->osds, d->n_osds, sizeof(CephDumpOsd), dump_osd_cmp);

        n = json_object_array_length(pools);
        d->pools = calloc(n ? n : 1, sizeof(CephDumpPool));
        if (!d->pools)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(pools, i);
                CephDumpPool *p = &d->pools[d->n_pools++];
                int64_t id;
                uint64_t size, min_size, pg_num = 0;
                const char *name;
                if ((r = json_get_int(e, "pool", true, &id, what, err)) < 0 ||
                    (r = json_get_string(e, "pool_name", true, &name, what, err)) < 0 ||
                    (r = json_get_u64(e, "size", true, &size, what, err)) < 0 ||
                    (r = json_get_u64(e, "min_size", true, &min_size, what, err)) < 0)
                        return r;
                (void) json_get_u64(e, "pg_num", false, &pg_num, what, NULL);
                p->id = (int) id;
                p->name = strdup(name);
                if (!p->name)
                        return -ENOMEM;
                p->size = (unsigned) size;
                p->min_size = (unsigned) min_size;
                p->pg_num = (unsigned) pg_num;
        }
        *ret = TAKE_PTR(d);
        return 0;
}

const CephDumpOsd *ceph_osd_dump_find_osd(const CephOsdDump *d, int id) {
        for (size_t i = 0; d && i < d->n_osds; i++)
                if (d->osds[i].id == id)
                        return &d->osds[i];
        return NULL;
}

const CephDumpOsd *ceph_osd_dump_find_uuid(const CephOsdDump *d, const char *uuid) {
        for (size_t i = 0; d && uuid && i < d->n_osds; i++)
                if (d->osds[i].uuid && strcasecmp(d->osds[i].uuid, uuid) == 0)
                        return &d->osds[i];
        return NULL;
}

bool ceph_osd_dump_has_flag(const CephOsdDump *d, const char *flag) {
        return d && flag && strv_contains(d->flags, flag);
}

bool ceph_osd_dump_has_node_flag(const CephOsdDump *d, const char *node, const char *flag) {
        if (!d || !node || !flag)
                return false;
        size_t n = strlen(node);
        for (char **p = d->node_flags; p && *p; p++)
                if (strncmp(*p, node, n) == 0 && (*p)[n] == ' ' && streq(*p + n + 1, flag))
                        return true;
        return false;
}

int ceph_osd_dump_check_ids(const CephOsdDump *d, const int *ids, size_t n, Error *err) {
        if (!d)
                return error_set(err, EINVAL, "no osd map");
        for (size_t i = 0; i < n; i++) {
                const CephDumpOsd *o = ceph_osd_dump_find_osd(d, ids[i]);
                if (!o || !o->exists)
                        return error_set(err, ENOENT, "osd.%d does not exist in cluster '%s' (osd map epoch %llu)",
                                         ids[i], d->fsid, (unsigned long long) d->epoch);
        }
        return 0;
}

/* ---- osd metadata ------------------------------------------------------------------ */

static void metadata_done(CephOsdMetadata *m) {
        free(m->hostname);
        free(m->objectstore);
        free(m->ceph_release);
        free(m->osd_data);
        free(m->default_device_class);
        strv_free(m->devices);
        strv_free(m->bdev_devices);
        strv_free(m->device_ids);
        free(m->bdev_type);
        free(m->bdev_path);
        free(m->filestore_path);
        free(m->db_path);
        free(m->db_type);
        free(m->wal_path);
        free(m->journal_path);
        free(m->journal_partition);
        free(m->journal_link);
}

CephOsdMetadataList *ceph_osd_metadata_list_free(CephOsdMetadataList *l) {
        if (!l)
                return NULL;
        for (size_t i = 0; i < l->n_osds; i++)
                metadata_done(&l->osds[i]);
        free(l->osds);
        free(l);
        return NULL;
}

static bool string_is_one(json_object *o, const char *key) {
        json_object *v;
        if (!json_object_object_get_ex(o, key, &v))
                return false;
        if (json_object_is_type(v, json_type_string))
                return strcmp(json_object_get_string(v), "1") == 0;
        if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_boolean))
                return json_object_get_int64(v) != 0;
        return false;
}

/* A size the OSD reports as a decimal string ("536870912"); absent: 0. */
static int size_key(json_object *o, const char *key, uint64_t *ret, Error *err) {
        long long v;
        int r = ceph_json_get_intish(o, key, false, &v, "ceph osd metadata", err);
        if (r == -ENOENT) {
                *ret = 0;
                return 0;
        }
        if (r < 0)
                return r;
        if (v < 0)
                return error_set(err, ERANGE, "ceph osd metadata: %s %lld is negative", key, v);
        *ret = (uint64_t) v;
        return 0;
}

static int metadata_parse_one(json_object *e, CephOsdMetadata *m, Error *err) {
        const char *what = "ceph osd metadata";
        int r = osd_id_from(e, "id", what, &m->id, err);
        if (r < 0)
                return r;
        if (ceph_json_dup_string(e, "hostname", &m->hostname) < 0 ||
            ceph_json_dup_string(e, "osd_objectstore", &m->objectstore) < 0 ||
            ceph_json_dup_string(e, "ceph_release", &m->ceph_release) < 0 ||
            ceph_json_dup_string(e, "osd_data", &m->osd_data) < 0 ||
            ceph_json_dup_string(e, "default_device_class", &m->default_device_class) < 0 ||
            ceph_json_dup_string(e, "bluestore_bdev_type", &m->bdev_type) < 0 ||
            ceph_json_dup_string(e, "bluestore_bdev_partition_path", &m->bdev_path) < 0 ||
            ceph_json_dup_string(e, "backend_filestore_partition_path", &m->filestore_path) < 0)
                return -ENOMEM;

        m->dedicated_db = string_is_one(e, "bluefs_dedicated_db");
        if (m->dedicated_db && (ceph_json_dup_string(e, "bluefs_db_partition_path", &m->db_path) < 0 ||
                                ceph_json_dup_string(e, "bluefs_db_type", &m->db_type) < 0))
                return -ENOMEM;
        m->dedicated_wal = string_is_one(e, "bluefs_dedicated_wal");
        if (m->dedicated_wal && ceph_json_dup_string(e, "bluefs_wal_partition_path", &m->wal_path) < 0)
                return -ENOMEM;
        if (ceph_json_dup_string(e, "backend_filestore_journal_partition_path", &m->journal_path) < 0)
                return -ENOMEM;
        if (!m->journal_path && m->objectstore && strcmp(m->objectstore, "filestore") == 0 &&
            ceph_json_dup_string(e, "osd_journal", &m->journal_path) < 0)
                return -ENOMEM;
        /* FileJournal::collect_metadata says "unknown" when the journal is no block device */
        if (ceph_json_dup_string(e, "backend_filestore_journal_partition_path", &m->journal_partition) < 0 ||
            ceph_json_dup_string(e, "osd_journal", &m->journal_link) < 0)
                return -ENOMEM;
        if (m->journal_partition && strcmp(m->journal_partition, "unknown") == 0) {
                free(m->journal_partition);
                m->journal_partition = NULL;
        }
        if ((r = size_key(e, "bluestore_bdev_size", &m->bdev_size, err)) < 0 ||
            (m->dedicated_db && (r = size_key(e, "bluefs_db_size", &m->db_size, err)) < 0) ||
            (m->dedicated_wal && (r = size_key(e, "bluefs_wal_size", &m->wal_size, err)) < 0))
                return r;

        const char *devices = NULL;
        (void) json_get_string(e, "devices", false, &devices, what, NULL);
        if (devices && !(m->devices = strv_split(devices, ",")))
                return -ENOMEM;
        const char *bdevs = NULL;
        (void) json_get_string(e, "bluestore_bdev_devices", false, &bdevs, what, NULL);
        if (bdevs && bdevs[0] && !(m->bdev_devices = strv_split(bdevs, ",")))
                return -ENOMEM;
        const char *ids = NULL;
        (void) json_get_string(e, "device_ids", false, &ids, what, NULL);
        if (ids && ids[0] && !(m->device_ids = strv_split(ids, ",")))
                return -ENOMEM;
        return 0;
}

static int metadata_cmp(const void *a, const void *b) {
        return ceph_int_cmp(&((const CephOsdMetadata *) a)->id, &((const CephOsdMetadata *) b)->id);
}

int ceph_osd_metadata_parse(const char *json, CephOsdMetadataList **ret, Error *err) {
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, "ceph osd metadata", &root, err);
        if (r < 0)
                return r;
        bool single = json_object_is_type(root, json_type_object);
        if (!single && !json_object_is_type(root, json_type_array))
                return error_set(err, EINVAL, "ceph osd metadata: expected an array or an object");

        size_t n = single ? 1 : json_object_array_length(root);
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *l = calloc(1, sizeof(CephOsdMetadataList));
        if (!l)
                return -ENOMEM;
        l->osds = calloc(n ? n : 1, sizeof(CephOsdMetadata));
        if (!l->osds)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                r = metadata_parse_one(single ? root : json_object_array_get_idx(root, i), &l->osds[l->n_osds++],
                                       err);
                if (r < 0)
                        return r;
        }
        qsort(l->osds, l->n_osds, sizeof(CephOsdMetadata), metadata_cmp);
        *ret = TAKE_PTR(l);
        return 0;
}

const CephOsdMetadata *ceph_osd_metadata_find(const CephOsdMetadataList *l, int id) {
        for (size_t i = 0; l && i < l->n_osds; i++)
                if (l->osds[i].id == id)
                        return &l->osds[i];
        return NULL;
}

/* ---- the OSD map's identities (osd-create's "osd_map") ------------------------------ */

json_object *ceph_osd_dump_identities_to_json(const CephOsdDump *d) {
        _cleanup_json_ json_object *o = json_object_new_object(), *osds = json_object_new_array();
        if (!o || !osds || json_add_string(o, "fsid", d->fsid) < 0 || json_add_u64(o, "epoch", d->epoch) < 0)
                return NULL;
        for (size_t i = 0; i < d->n_osds; i++) {
                const CephDumpOsd *x = &d->osds[i];
                json_object *e = json_array_add_object(osds);
                if (!e)
                        return NULL;
                if (json_add_int(e, "osd", x->id) < 0 || json_add_string(e, "uuid", x->uuid) < 0 ||
                    json_add_bool(e, "destroyed", x->destroyed) < 0)
                        return NULL;
        }
        if (json_add(o, "osds", TAKE_PTR(osds)) < 0)
                return NULL;
        return TAKE_PTR(o);
}

int ceph_osd_dump_identities_from_json(json_object *o, const char *what, CephOsdDump **ret, Error *err) {
        if (!json_object_is_type(o, json_type_object))
                return error_set(err, EBADMSG, "%s: not a JSON object", what);
        const char *fsid = NULL;
        json_object *osds = NULL;
        uint64_t epoch = 0;
        int r;
        if ((r = json_get_string(o, "fsid", true, &fsid, what, err)) < 0 ||
            (r = json_get_u64(o, "epoch", true, &epoch, what, err)) < 0 ||
            (r = json_get_array(o, "osds", true, &osds, what, err)) < 0)
                return r;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = calloc(1, sizeof(CephOsdDump));
        size_t n = json_object_array_length(osds);
        if (!d || !(d->fsid = strdup(fsid)) || !(d->flags = calloc(1, sizeof(char *))) ||
            !(d->osds = calloc(n ? n : 1, sizeof(CephDumpOsd))) || !(d->pools = calloc(1, sizeof(CephDumpPool))))
                return error_set(err, ENOMEM, "out of memory");
        d->epoch = epoch;
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(osds, i);
                CephDumpOsd *x = &d->osds[d->n_osds];
                int64_t id = -1;
                const char *uuid = NULL;
                bool destroyed = false;
                if (!json_object_is_type(e, json_type_object) || json_get_int(e, "osd", true, &id, what, NULL) < 0 ||
                    id < 0 || id > INT32_MAX || json_get_bool(e, "destroyed", true, &destroyed, what, NULL) < 0 ||
                    ((r = json_get_string(e, "uuid", false, &uuid, what, NULL)) < 0 && r != -ENOENT))
                        return error_set(err, EBADMSG, "%s: osds[%zu] is not {\"osd\", \"uuid\", \"destroyed\"}",
                                         what, i);
                *x = (CephDumpOsd) { .id = (int) id, .exists = true, .destroyed = destroyed };
                if (uuid && !(x->uuid = strdup(uuid)))
                        return error_set(err, ENOMEM, "out of memory");
                d->n_osds++;
                d->max_osd = MAX(d->max_osd, (int) id + 1);
        }
        qsort(d->osds, d->n_osds, sizeof(CephDumpOsd), dump_osd_cmp);
        *ret = TAKE_PTR(d);
        return 0;
}
