/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "inventory.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basic/json-util.h"
#include "basic/size.h"
#include "basic/strv.h"

/* The JSON form mirrors the structs (docs/inventory.md): snake_case keys, NULL strings
 * omitted, sizes and offsets in bytes as integers. Defaults that carry no information are
 * omitted too (an empty holders list, swap_active false, bcache role none, osd id -1), so
 * that to → from → to gives the same text. */

static const char *const bcache_role_table[] = {
        [BCACHE_ROLE_NONE] = "none",
        [BCACHE_ROLE_BACKING] = "backing",
        [BCACHE_ROLE_CACHE] = "cache",
};

const char *bcache_role_to_string(BcacheRole r) {
        if ((size_t) r >= ELEMENTSOF(bcache_role_table))
                return NULL;
        return bcache_role_table[r];
}

int inv_bcache_warnings(const InvBcache *b, char ***ret) {
        _cleanup_strv_free_ char **w = NULL;
        char *m = NULL;

        *ret = NULL;
        if (b->role != BCACHE_ROLE_BACKING)
                return 0;
        if (!b->set_uuid || streq_ptr(b->state, "no cache"))
                m = strdup("no cache attached: every I/O goes to the backing device uncached");
        else if (streq_ptr(b->state, "inconsistent"))
                m = strdup("state 'inconsistent': the backing device's data and its cache disagree");
        if (m && strv_consume(&w, m) < 0)
                return -ENOMEM;
        if (!b->bcache_device && strv_consume(&w, strdup("not registered: no /dev/bcacheN for it")) < 0)
                return -ENOMEM;
        if (b->sequential_cutoff != 0) {
                char sz[SIZE_FORMAT_MAX];
                size_format(b->sequential_cutoff, sz, sizeof(sz));
                if (strv_consume(&w, strprintf("sequential_cutoff is %s, not 0: an OSD's writes look sequential "
                                               "and bypass the cache",
                                               sz)) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(w);
        return 0;
}

static int bcache_role_from_string(const char *s) {
        for (size_t i = 0; i < ELEMENTSOF(bcache_role_table); i++)
                if (streq(s, bcache_role_table[i]))
                        return (int) i;
        return -EINVAL;
}

static void inv_bcache_done(InvBcache *b) {
        free(b->set_uuid);
        free(b->dev_uuid);
        free(b->bcache_device);
        free(b->cache_mode);
        free(b->state);
        *b = (InvBcache) { .writeback_percent = -1, .hit_ratio = -1 };
}

void inv_osd_done(InvOsd *o) {
        free(o->osd_fsid);
        free(o->cluster_fsid);
        free(o->role);
        free(o->objectstore);
        *o = (InvOsd) { .id = -1 };
}

static void inv_content_init(InvContent *c) {
        *c = (InvContent) {
                .bcache = { .writeback_percent = -1, .hit_ratio = -1 },
                .osd = { .id = -1 },
        };
}

void inv_content_done(InvContent *c) {
        if (!c)
                return;
        free(c->fstype);
        free(c->uuid);
        free(c->label);
        free(c->mountpoint);
        strv_free(c->holders);
        inv_bcache_done(&c->bcache);
        inv_osd_done(&c->osd);
        inv_content_init(c);
}

static void inv_partition_done(InvPartition *p) {
        free(p->node);
        free(p->partuuid);
        free(p->name);
        free(p->type_guid);
        inv_content_done(&p->content);
}

void inv_device_done(InvDevice *d) {
        if (!d)
                return;
        free(d->name);
        free(d->path);
        strv_free(d->links);
        free(d->model);
        free(d->serial);
        free(d->vendor);
        free(d->wwn);
        free(d->backing_file);
        free(d->pttype);
        free(d->ptuuid);
        inv_content_done(&d->content);
        for (size_t i = 0; i < d->n_partitions; i++)
                inv_partition_done(&d->partitions[i]);
        free(d->partitions);
        *d = (InvDevice) {};
}

Inventory *inventory_free(Inventory *inv) {
        if (!inv)
                return NULL;
        free(inv->host);
        free(inv->hostname);
        free(inv->agent_version);
        for (size_t i = 0; i < inv->n_devices; i++)
                inv_device_done(&inv->devices[i]);
        free(inv->devices);
        free(inv);
        return NULL;
}

InventorySet *inventory_set_free(InventorySet *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_hosts; i++)
                inventory_free(s->hosts[i]);
        free(s->hosts);
        free(s);
        return NULL;
}

int inventory_set_add(InventorySet *s, Inventory *inv) {
        Inventory **n = realloc(s->hosts, sizeof(Inventory *) * (s->n_hosts + 1));
        if (!n) {
                inventory_free(inv);
                return -ENOMEM;
        }
        s->hosts = n;
        s->hosts[s->n_hosts++] = inv;
        return 0;
}

const Inventory *inventory_set_find(const InventorySet *s, const char *host) {
        if (!s || !host)
                return NULL;
        for (size_t i = 0; i < s->n_hosts; i++)
                if (streq_ptr(s->hosts[i]->host, host))
                        return s->hosts[i];
        return NULL;
}

char *inventory_device_identity(const InvDevice *d) {
        if (d->wwn && d->wwn[0])
                return strprintf("wwn %s", d->wwn);
        if (d->serial && d->serial[0])
                return strprintf("serial %s%s%s", d->model ?: "", d->model ? " " : "", d->serial);
        if (d->backing_file && d->backing_file[0])
                return strprintf("file %s", d->backing_file);
        return NULL;
}

const InvDevice *inventory_find_device(const Inventory *inv, const char *path_or_link) {
        if (!inv || !path_or_link)
                return NULL;
        /* "/dev/sdb" and "sdb" both name the kernel device */
        const char *bare = startswith(path_or_link, "/dev/") ? path_or_link + 5 : path_or_link;
        for (size_t i = 0; i < inv->n_devices; i++) {
                const InvDevice *d = &inv->devices[i];
                if (streq_ptr(d->path, path_or_link) || streq_ptr(d->name, bare) ||
                    strv_contains(d->links, path_or_link))
                        return d;
        }
        return NULL;
}

bool inventory_partition_is(const InvPartition *p, const char *path) {
        if (!p || !path)
                return false;
        return streq_ptr(p->node, path) ||
               (startswith(path, "/dev/dm-") && strv_contains(p->content.holders, path + strlen("/dev/"))) ||
               (p->partuuid && startswith(path, "/dev/disk/by-partuuid/") &&
                strcasecmp(path + strlen("/dev/disk/by-partuuid/"), p->partuuid) == 0);
}

/* ---- to JSON ---- */

static int strv_to_json(char * const *l, json_object **ret) {
        *ret = json_array_new_strv(l);
        return *ret ? 0 : -ENOMEM;
}

static bool inv_bcache_is_set(const InvBcache *b) {
        return b->role != BCACHE_ROLE_NONE || b->set_uuid || b->dev_uuid || b->bcache_device;
}

static bool inv_osd_is_set(const InvOsd *o) {
        return o->id >= 0 || o->osd_fsid || o->cluster_fsid || o->role || o->objectstore || o->incomplete ||
               o->unconfirmed || o->encrypted;
}

static int inv_bcache_to_json(const InvBcache *b, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        int r;
        if (!o)
                return -ENOMEM;
        if ((r = json_add_string(o, "role", bcache_role_to_string(b->role))) < 0 ||
            (r = json_add_string(o, "set_uuid", b->set_uuid)) < 0 ||
            (r = json_add_string(o, "dev_uuid", b->dev_uuid)) < 0 ||
            (r = json_add_string(o, "bcache_device", b->bcache_device)) < 0 ||
            (r = json_add_string(o, "cache_mode", b->cache_mode)) < 0 ||
            (r = json_add_string(o, "state", b->state)) < 0 ||
            (r = json_add_u64(o, "dirty_bytes", b->dirty_bytes)) < 0 ||
            (r = json_add_u64(o, "sequential_cutoff", b->sequential_cutoff)) < 0)
                return r;
        if (b->writeback_percent >= 0 && (r = json_add_int(o, "writeback_percent", b->writeback_percent)) < 0)
                return r;
        if (b->hit_ratio >= 0 && (r = json_add(o, "hit_ratio", json_object_new_double(b->hit_ratio))) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

static int inv_osd_to_json(const InvOsd *d, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        int r;
        if (!o)
                return -ENOMEM;
        if ((r = json_add_int(o, "id", d->id)) < 0 ||
            (r = json_add_string(o, "osd_fsid", d->osd_fsid)) < 0 ||
            (r = json_add_string(o, "cluster_fsid", d->cluster_fsid)) < 0 ||
            (r = json_add_string(o, "role", d->role)) < 0 ||
            (r = json_add_string(o, "objectstore", d->objectstore)) < 0)
                return r;
        if (d->incomplete && (r = json_add_bool(o, "incomplete", true)) < 0)
                return r;
        if (d->unconfirmed && (r = json_add_bool(o, "unconfirmed", true)) < 0)
                return r;
        if (d->encrypted && (r = json_add_bool(o, "encrypted", true)) < 0)
                return r;
        if (d->id_from_map && (r = json_add_bool(o, "id_from_map", true)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

static int inv_content_to_json(const InvContent *c, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *v;
        int r;
        if (!o)
                return -ENOMEM;
        if ((r = json_add_string(o, "fstype", c->fstype)) < 0 ||
            (r = json_add_string(o, "uuid", c->uuid)) < 0 ||
            (r = json_add_string(o, "label", c->label)) < 0 ||
            (r = json_add_string(o, "mountpoint", c->mountpoint)) < 0)
                return r;
        if (c->holders && c->holders[0]) {
                if ((r = strv_to_json(c->holders, &v)) < 0 || (r = json_add(o, "holders", v)) < 0)
                        return r;
        }
        if (c->swap_active && (r = json_add_bool(o, "swap_active", true)) < 0)
                return r;
        if (inv_bcache_is_set(&c->bcache)) {
                if ((r = inv_bcache_to_json(&c->bcache, &v)) < 0 || (r = json_add(o, "bcache", v)) < 0)
                        return r;
        }
        if (inv_osd_is_set(&c->osd)) {
                if ((r = inv_osd_to_json(&c->osd, &v)) < 0 || (r = json_add(o, "osd", v)) < 0)
                        return r;
        }
        *ret = TAKE_PTR(o);
        return 0;
}

static int inv_partition_to_json(const InvPartition *p, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *v;
        int r;
        if (!o)
                return -ENOMEM;
        if ((r = json_add_u64(o, "number", p->number)) < 0 ||
            (r = json_add_u64(o, "start", p->start)) < 0 ||
            (r = json_add_u64(o, "size", p->size)) < 0 ||
            (r = json_add_string(o, "node", p->node)) < 0 ||
            (r = json_add_string(o, "partuuid", p->partuuid)) < 0 ||
            (r = json_add_string(o, "name", p->name)) < 0 ||
            (r = json_add_string(o, "type_guid", p->type_guid)) < 0 ||
            (r = inv_content_to_json(&p->content, &v)) < 0 ||
            (r = json_add(o, "content", v)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

static int inv_device_to_json(const InvDevice *d, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *v;
        int r;
        if (!o)
                return -ENOMEM;
        if ((r = json_add_string(o, "name", d->name)) < 0 ||
            (r = json_add_string(o, "path", d->path)) < 0 ||
            (r = strv_to_json(d->links, &v)) < 0 ||
            (r = json_add(o, "links", v)) < 0 ||
            (r = json_add_u64(o, "size", d->size)) < 0 ||
            (r = json_add_u64(o, "logical_sector_size", d->logical_sector_size)) < 0 ||
            (r = json_add_u64(o, "physical_sector_size", d->physical_sector_size)) < 0 ||
            (r = json_add_bool(o, "rotational", d->rotational)) < 0 ||
            (r = json_add_bool(o, "readonly", d->readonly)) < 0 ||
            (r = json_add_bool(o, "removable", d->removable)) < 0 ||
            (r = json_add_string(o, "model", d->model)) < 0 ||
            (r = json_add_string(o, "serial", d->serial)) < 0 ||
            (r = json_add_string(o, "vendor", d->vendor)) < 0 ||
            (r = json_add_string(o, "wwn", d->wwn)) < 0 ||
            (r = json_add_string(o, "backing_file", d->backing_file)) < 0 ||
            (r = json_add_string(o, "pttype", d->pttype)) < 0 ||
            (r = json_add_string(o, "ptuuid", d->ptuuid)) < 0 ||
            (r = json_add_u64(o, "first_usable", d->first_usable)) < 0 ||
            (r = json_add_u64(o, "last_usable", d->last_usable)) < 0 ||
            (r = inv_content_to_json(&d->content, &v)) < 0 ||
            (r = json_add(o, "content", v)) < 0)
                return r;

        json_object *parts = json_object_new_array();
        if ((r = json_add(o, "partitions", parts)) < 0)
                return r;
        for (size_t i = 0; i < d->n_partitions; i++) {
                if ((r = inv_partition_to_json(&d->partitions[i], &v)) < 0)
                        return r;
                if (json_object_array_add(parts, v) < 0) {
                        json_object_put(v);
                        return -ENOMEM;
                }
        }
        if ((r = json_add_bool(o, "allowed", d->allowed)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

int inventory_to_json(const Inventory *inv, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *v;
        int r;
        if (!o)
                return -ENOMEM;
        if ((r = json_add_string(o, "host", inv->host)) < 0 ||
            (r = json_add_string(o, "hostname", inv->hostname)) < 0 ||
            (r = json_add_string(o, "agent_version", inv->agent_version)) < 0 ||
            (r = json_add_bool(o, "bcache_available", inv->bcache_available)) < 0 ||
            (r = json_add_bool(o, "udev_available", inv->udev_available)) < 0)
                return r;
        json_object *devs = json_object_new_array();
        if ((r = json_add(o, "devices", devs)) < 0)
                return r;
        for (size_t i = 0; i < inv->n_devices; i++) {
                if ((r = inv_device_to_json(&inv->devices[i], &v)) < 0)
                        return r;
                if (json_object_array_add(devs, v) < 0) {
                        json_object_put(v);
                        return -ENOMEM;
                }
        }
        *ret = TAKE_PTR(o);
        return 0;
}

int inventory_set_to_json(const InventorySet *s, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *v;
        int r;
        if (!o)
                return -ENOMEM;
        if ((r = json_add_int(o, "format", INVENTORY_FORMAT_VERSION)) < 0)
                return r;
        json_object *a = json_object_new_array();
        if ((r = json_add(o, "inventories", a)) < 0)
                return r;
        for (size_t i = 0; s && i < s->n_hosts; i++) {
                if ((r = inventory_to_json(s->hosts[i], &v)) < 0)
                        return r;
                if (json_object_array_add(a, v) < 0) {
                        json_object_put(v);
                        return -ENOMEM;
                }
        }
        *ret = TAKE_PTR(o);
        return 0;
}

/* ---- from JSON ---- */

/* Optional string: absent → NULL. */
static int get_str(json_object *o, const char *key, char **ret, const char *what, Error *err) {
        const char *s;
        int r = json_get_string(o, key, false, &s, what, err);
        if (r == -ENOENT) {
                *ret = NULL;
                return 0;
        }
        if (r < 0)
                return r;
        *ret = strdup(s);
        if (!*ret)
                return error_set(err, ENOMEM, "out of memory");
        return 0;
}

static int get_u64_opt(json_object *o, const char *key, bool required, uint64_t *ret, const char *what, Error *err) {
        int r = json_get_u64(o, key, required, ret, what, err);
        return r == -ENOENT ? 0 : r;
}

static int get_bool_opt(json_object *o, const char *key, bool required, bool *ret, const char *what, Error *err) {
        int r = json_get_bool(o, key, required, ret, what, err);
        return r == -ENOENT ? 0 : r;
}

static int get_uint(json_object *o, const char *key, bool required, unsigned *ret, const char *what, Error *err) {
        uint64_t v = 0;
        int r = get_u64_opt(o, key, required, &v, what, err);
        if (r < 0)
                return r;
        if (v > UINT32_MAX)
                return error_set(err, ERANGE, "%s: key '%s' is out of range", what, key);
        *ret = (unsigned) v;
        return 0;
}

static int get_strv(json_object *o, const char *key, char ***ret, const char *what, Error *err) {
        json_object *a;
        int r = json_get_array(o, key, false, &a, what, err);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        _cleanup_strv_free_ char **l = NULL;
        size_t n = json_object_array_length(a);
        for (size_t i = 0; i < n; i++) {
                json_object *v = json_object_array_get_idx(a, i);
                if (!json_object_is_type(v, json_type_string))
                        return error_set(err, EINVAL, "%s: key '%s': element %zu is not a string", what, key, i);
                if (strv_extend(&l, json_object_get_string(v)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        *ret = TAKE_PTR(l);
        return 0;
}

static int inv_bcache_from_json(json_object *o, InvBcache *b, const char *what, Error *err) {
        const char *role;
        int64_t i;
        int r;

        r = json_get_string(o, "role", true, &role, what, err);
        if (r < 0)
                return r;
        r = bcache_role_from_string(role);
        if (r < 0)
                return error_set(err, EINVAL, "%s: unknown bcache role '%s'", what, role);
        b->role = r;
        if ((r = get_str(o, "set_uuid", &b->set_uuid, what, err)) < 0 ||
            (r = get_str(o, "dev_uuid", &b->dev_uuid, what, err)) < 0 ||
            (r = get_str(o, "bcache_device", &b->bcache_device, what, err)) < 0 ||
            (r = get_str(o, "cache_mode", &b->cache_mode, what, err)) < 0 ||
            (r = get_str(o, "state", &b->state, what, err)) < 0 ||
            (r = get_u64_opt(o, "dirty_bytes", false, &b->dirty_bytes, what, err)) < 0 ||
            (r = get_u64_opt(o, "sequential_cutoff", false, &b->sequential_cutoff, what, err)) < 0)
                return r;
        r = json_get_int(o, "writeback_percent", false, &i, what, err);
        if (r == 0) {
                if (i < -1 || i > 100)
                        return error_set(err, ERANGE, "%s: writeback_percent %lld out of range", what, (long long) i);
                b->writeback_percent = (int) i;
        } else if (r != -ENOENT)
                return r;
        json_object *v;
        if (json_object_object_get_ex(o, "hit_ratio", &v) && !json_object_is_type(v, json_type_null)) {
                if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
                        return error_set(err, EINVAL, "%s: key 'hit_ratio' is not a number", what);
                b->hit_ratio = json_object_get_double(v);
        }
        return 0;
}

static int inv_osd_from_json(json_object *o, InvOsd *d, const char *what, Error *err) {
        int64_t id;
        int r = json_get_int(o, "id", false, &id, what, err);
        if (r == 0) {
                if (id < -1 || id > INT32_MAX)
                        return error_set(err, ERANGE, "%s: osd id %lld out of range", what, (long long) id);
                d->id = (int) id;
        } else if (r != -ENOENT)
                return r;
        if ((r = get_str(o, "osd_fsid", &d->osd_fsid, what, err)) < 0 ||
            (r = get_str(o, "cluster_fsid", &d->cluster_fsid, what, err)) < 0 ||
            (r = get_str(o, "role", &d->role, what, err)) < 0 ||
            (r = get_str(o, "objectstore", &d->objectstore, what, err)) < 0)
                return r;
        r = json_get_bool(o, "incomplete", false, &d->incomplete, what, err);
        if (r < 0 && r != -ENOENT)
                return r;
        r = json_get_bool(o, "unconfirmed", false, &d->unconfirmed, what, err);
        if (r < 0 && r != -ENOENT)
                return r;
        r = json_get_bool(o, "encrypted", false, &d->encrypted, what, err);
        if (r < 0 && r != -ENOENT)
                return r;
        r = json_get_bool(o, "id_from_map", false, &d->id_from_map, what, err);
        if (r < 0 && r != -ENOENT)
                return r;
        return 0;
}

static int inv_content_from_json(json_object *parent, InvContent *c, const char *what, Error *err) {
        json_object *o, *v;
        int r;

        inv_content_init(c);
        r = json_get_object(parent, "content", false, &o, what, err);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        if ((r = get_str(o, "fstype", &c->fstype, what, err)) < 0 ||
            (r = get_str(o, "uuid", &c->uuid, what, err)) < 0 ||
            (r = get_str(o, "label", &c->label, what, err)) < 0 ||
            (r = get_str(o, "mountpoint", &c->mountpoint, what, err)) < 0 ||
            (r = get_strv(o, "holders", &c->holders, what, err)) < 0 ||
            (r = get_bool_opt(o, "swap_active", false, &c->swap_active, what, err)) < 0)
                return r;
        r = json_get_object(o, "bcache", false, &v, what, err);
        if (r == 0)
                r = inv_bcache_from_json(v, &c->bcache, what, err);
        if (r < 0 && r != -ENOENT)
                return r;
        r = json_get_object(o, "osd", false, &v, what, err);
        if (r == 0)
                r = inv_osd_from_json(v, &c->osd, what, err);
        if (r < 0 && r != -ENOENT)
                return r;
        return 0;
}

static int inv_partition_from_json(json_object *o, InvPartition *p, const char *devwhat, size_t idx, Error *err) {
        char what[512];
        int r;

        snprintf(what, sizeof(what), "%s: partition %zu", devwhat, idx);
        if ((r = get_uint(o, "number", true, &p->number, what, err)) < 0)
                return r;
        snprintf(what, sizeof(what), "%s: partition %u", devwhat, p->number);
        if ((r = get_u64_opt(o, "start", true, &p->start, what, err)) < 0 ||
            (r = get_u64_opt(o, "size", true, &p->size, what, err)) < 0 ||
            (r = get_str(o, "node", &p->node, what, err)) < 0 ||
            (r = get_str(o, "partuuid", &p->partuuid, what, err)) < 0 ||
            (r = get_str(o, "name", &p->name, what, err)) < 0 ||
            (r = get_str(o, "type_guid", &p->type_guid, what, err)) < 0 ||
            (r = inv_content_from_json(o, &p->content, what, err)) < 0)
                return r;
        return 0;
}

static int inv_device_from_json(json_object *o, InvDevice *d, const char *hostwhat, size_t idx, Error *err) {
        char what[384];
        const char *name;
        int r;

        snprintf(what, sizeof(what), "%s: device %zu", hostwhat, idx);
        if ((r = json_get_string(o, "name", true, &name, what, err)) < 0)
                return r;
        snprintf(what, sizeof(what), "%s: device '%s'", hostwhat, name);
        d->name = strdup(name);
        if (!d->name)
                return error_set(err, ENOMEM, "out of memory");
        inv_content_init(&d->content);
        if ((r = get_str(o, "path", &d->path, what, err)) < 0 ||
            (r = get_strv(o, "links", &d->links, what, err)) < 0 ||
            (r = get_u64_opt(o, "size", true, &d->size, what, err)) < 0 ||
            (r = get_uint(o, "logical_sector_size", false, &d->logical_sector_size, what, err)) < 0 ||
            (r = get_uint(o, "physical_sector_size", false, &d->physical_sector_size, what, err)) < 0 ||
            (r = get_bool_opt(o, "rotational", false, &d->rotational, what, err)) < 0 ||
            (r = get_bool_opt(o, "readonly", false, &d->readonly, what, err)) < 0 ||
            (r = get_bool_opt(o, "removable", false, &d->removable, what, err)) < 0 ||
            (r = get_str(o, "model", &d->model, what, err)) < 0 ||
            (r = get_str(o, "serial", &d->serial, what, err)) < 0 ||
            (r = get_str(o, "vendor", &d->vendor, what, err)) < 0 ||
            (r = get_str(o, "wwn", &d->wwn, what, err)) < 0 ||
            (r = get_str(o, "backing_file", &d->backing_file, what, err)) < 0 ||
            (r = get_str(o, "pttype", &d->pttype, what, err)) < 0 ||
            (r = get_str(o, "ptuuid", &d->ptuuid, what, err)) < 0 ||
            (r = get_u64_opt(o, "first_usable", false, &d->first_usable, what, err)) < 0 ||
            (r = get_u64_opt(o, "last_usable", false, &d->last_usable, what, err)) < 0 ||
            (r = inv_content_from_json(o, &d->content, what, err)) < 0 ||
            (r = get_bool_opt(o, "allowed", false, &d->allowed, what, err)) < 0)
                return r;
        if (!d->path) {
                d->path = strprintf("/dev/%s", d->name);
                if (!d->path)
                        return error_set(err, ENOMEM, "out of memory");
        }
        if (d->logical_sector_size == 0)
                d->logical_sector_size = 512;
        if (d->physical_sector_size == 0)
                d->physical_sector_size = d->logical_sector_size;

        json_object *a;
        r = json_get_array(o, "partitions", false, &a, what, err);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        size_t n = json_object_array_length(a);
        if (n == 0)
                return 0;
        d->partitions = calloc(n, sizeof(InvPartition));
        if (!d->partitions)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                json_object *p = json_object_array_get_idx(a, i);
                d->n_partitions++;
                inv_content_init(&d->partitions[i].content);
                if (!json_object_is_type(p, json_type_object))
                        return error_set(err, EINVAL, "%s: partition %zu: expected an object", what, i);
                if ((r = inv_partition_from_json(p, &d->partitions[i], what, i, err)) < 0)
                        return r;
                if (d->partitions[i].start + d->partitions[i].size > d->size)
                        return error_set(err, ERANGE, "%s: partition %u extends past the end of the device",
                                         what, d->partitions[i].number);
                for (size_t j = 0; j < i; j++)
                        if (d->partitions[j].number == d->partitions[i].number)
                                return error_set(err, EINVAL, "%s: duplicate partition number %u", what,
                                                 d->partitions[i].number);
        }
        return 0;
}

int inventory_from_json(json_object *o, Inventory **ret, Error *err) {
        _cleanup_(inventory_freep) Inventory *inv = calloc(1, sizeof(Inventory));
        const char *host;
        char what[160];
        int r;

        if (!inv)
                return error_set(err, ENOMEM, "out of memory");
        if ((r = json_get_string(o, "host", true, &host, "inventory", err)) < 0)
                return r;
        snprintf(what, sizeof(what), "inventory of '%s'", host);
        inv->host = strdup(host);
        if (!inv->host)
                return error_set(err, ENOMEM, "out of memory");
        if ((r = get_str(o, "hostname", &inv->hostname, what, err)) < 0 ||
            (r = get_str(o, "agent_version", &inv->agent_version, what, err)) < 0 ||
            (r = get_bool_opt(o, "bcache_available", false, &inv->bcache_available, what, err)) < 0 ||
            (r = get_bool_opt(o, "udev_available", false, &inv->udev_available, what, err)) < 0)
                return r;

        json_object *a;
        r = json_get_array(o, "devices", true, &a, what, err);
        if (r < 0)
                return r;
        size_t n = json_object_array_length(a);
        if (n > 0) {
                inv->devices = calloc(n, sizeof(InvDevice));
                if (!inv->devices)
                        return error_set(err, ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < n; i++) {
                json_object *d = json_object_array_get_idx(a, i);
                inv->n_devices++;
                if (!json_object_is_type(d, json_type_object))
                        return error_set(err, EINVAL, "%s: device %zu: expected an object", what, i);
                if ((r = inv_device_from_json(d, &inv->devices[i], what, i, err)) < 0)
                        return r;
                for (size_t j = 0; j < i; j++)
                        if (streq(inv->devices[j].path, inv->devices[i].path))
                                return error_set(err, EINVAL, "%s: duplicate device '%s'", what,
                                                 inv->devices[i].path);
        }
        *ret = TAKE_PTR(inv);
        return 0;
}

int inventory_set_from_json(json_object *o, InventorySet **ret, Error *err) {
        _cleanup_(inventory_set_freep) InventorySet *s = calloc(1, sizeof(InventorySet));
        int64_t format;
        json_object *a;
        int r;

        if (!s)
                return error_set(err, ENOMEM, "out of memory");
        if ((r = json_get_int(o, "format", true, &format, "inventory set", err)) < 0)
                return r;
        if (format != INVENTORY_FORMAT_VERSION)
                return error_set(err, EPROTONOSUPPORT, "inventory set: unsupported format %lld (expected %d)",
                                 (long long) format, INVENTORY_FORMAT_VERSION);
        if ((r = json_get_array(o, "inventories", true, &a, "inventory set", err)) < 0)
                return r;
        size_t n = json_object_array_length(a);
        for (size_t i = 0; i < n; i++) {
                Inventory *inv;
                r = inventory_from_json(json_object_array_get_idx(a, i), &inv, err);
                if (r < 0)
                        return r;
                if (inventory_set_find(s, inv->host)) {
                        r = error_set(err, EINVAL, "inventory set: duplicate host '%s'", inv->host);
                        inventory_free(inv);
                        return r;
                }
                if (inventory_set_add(s, inv) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        *ret = TAKE_PTR(s);
        return 0;
}

static int check_format(json_object *o, Error *err) {
        int64_t format;
        int r = json_get_int(o, "format", true, &format, "inventory set", err);
        if (r < 0)
                return r;
        if (format != INVENTORY_FORMAT_VERSION)
                return error_set(err, EPROTONOSUPPORT, "inventory set: unsupported format %lld (expected %d)",
                                 (long long) format, INVENTORY_FORMAT_VERSION);
        return 0;
}

typedef struct LoadCtx {
        InventorySet *set;
        const char *path;
} LoadCtx;

static int load_one(json_object *o, size_t index, void *userdata, Error *err) {
        LoadCtx *c = userdata;
        Inventory *inv;
        int r = inventory_from_json(o, &inv, err);
        if (r < 0)
                return error_prefix(err, r, "'%s'", c->path);
        /* duplicates are looked for once, at the end: a search per host was quadratic */
        if (inventory_set_add(c->set, inv) < 0)
                return error_set(err, ENOMEM, "out of memory");
        return 0;
}

static int cmp_host(const void *a, const void *b) {
        const Inventory *const *x = a, *const *y = b;
        return strcmp((*x)->host, (*y)->host);
}

static int check_duplicates(const InventorySet *s, const char *path, Error *err) {
        if (s->n_hosts < 2)
                return 0;
        _cleanup_(freep) Inventory **sorted = malloc(s->n_hosts * sizeof(Inventory *));
        if (!sorted)
                return error_set(err, ENOMEM, "out of memory");
        memcpy(sorted, s->hosts, s->n_hosts * sizeof(Inventory *));
        qsort(sorted, s->n_hosts, sizeof(Inventory *), cmp_host);
        for (size_t i = 1; i < s->n_hosts; i++)
                if (streq(sorted[i - 1]->host, sorted[i]->host))
                        return error_set(err, EINVAL, "'%s': inventory set: duplicate host '%s'", path, sorted[i]->host);
        return 0;
}

int inventory_set_load_file(const char *path, InventorySet **ret, Error *err) {
        /* One inventory at a time: a saved inventory of 1,000 hosts is 13 MB of JSON, whose
         * json-c tree took ~100 MB; the Inventory structs take a fraction of it. */
        _cleanup_(inventory_set_freep) InventorySet *s = calloc(1, sizeof(InventorySet));
        _cleanup_json_ json_object *rest = NULL;
        bool seen = false;
        if (!s)
                return error_set(err, ENOMEM, "out of memory");
        LoadCtx c = { .set = s, .path = path };
        int r = json_parse_file_each(path, "inventories", load_one, &c, &rest, &seen, err);
        if (r < 0)
                return r; /* every message names the file */
        json_object *a;
        if ((r = check_format(rest, err)) < 0 ||
            (!seen && (r = json_get_array(rest, "inventories", true, &a, "inventory set", err)) < 0))
                return error_prefix(err, r, "'%s'", path);
        if ((r = check_duplicates(s, path, err)) < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}
