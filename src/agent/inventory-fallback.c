/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* STAND-IN for src/inventory until that module lands on this branch: the destructors and
 * inventory_to_json() the agent needs, keys named after the struct fields. Built only when
 * meson finds no inventory_dep (see src/agent/meson.build); delete once src/inventory
 * provides them. */

#include <errno.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "inventory/inventory.h"

const char *bcache_role_to_string(BcacheRole r) {
        switch (r) {
        case BCACHE_ROLE_BACKING: return "backing";
        case BCACHE_ROLE_CACHE:   return "cache";
        default:                  return "none";
        }
}

void inv_content_done(InvContent *c) {
        if (!c)
                return;
        free(c->fstype);
        free(c->uuid);
        free(c->label);
        free(c->mountpoint);
        strv_free(c->holders);
        free(c->bcache.set_uuid);
        free(c->bcache.dev_uuid);
        free(c->bcache.bcache_device);
        free(c->bcache.cache_mode);
        free(c->bcache.state);
        free(c->osd.osd_fsid);
        free(c->osd.cluster_fsid);
        free(c->osd.role);
        free(c->osd.objectstore);
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
        free(d->pttype);
        free(d->ptuuid);
        inv_content_done(&d->content);
        for (size_t i = 0; i < d->n_partitions; i++) {
                InvPartition *p = &d->partitions[i];
                free(p->node);
                free(p->partuuid);
                free(p->name);
                free(p->type_guid);
                inv_content_done(&p->content);
        }
        free(d->partitions);
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

static json_object *strv_json(char **l) {
        json_object *a = json_object_new_array();
        STRV_FOREACH(s, l)
                json_object_array_add(a, json_object_new_string(*s));
        return a;
}

static json_object *content_json(const InvContent *c) {
        json_object *o = json_object_new_object();
        json_add_string(o, "fstype", c->fstype);
        json_add_string(o, "uuid", c->uuid);
        json_add_string(o, "label", c->label);
        json_add_string(o, "mountpoint", c->mountpoint);
        json_add(o, "holders", strv_json(c->holders));
        json_add_bool(o, "swap_active", c->swap_active);
        if (c->bcache.role != BCACHE_ROLE_NONE) {
                json_object *b = json_object_new_object();
                json_add_string(b, "role", bcache_role_to_string(c->bcache.role));
                json_add_string(b, "set_uuid", c->bcache.set_uuid);
                json_add_string(b, "dev_uuid", c->bcache.dev_uuid);
                json_add_string(b, "bcache_device", c->bcache.bcache_device);
                json_add_string(b, "cache_mode", c->bcache.cache_mode);
                json_add_string(b, "state", c->bcache.state);
                json_add_u64(b, "dirty_bytes", c->bcache.dirty_bytes);
                json_add_u64(b, "sequential_cutoff", c->bcache.sequential_cutoff);
                json_add_int(b, "writeback_percent", c->bcache.writeback_percent);
                json_add(b, "hit_ratio", json_object_new_double(c->bcache.hit_ratio));
                json_add(o, "bcache", b);
        }
        if (c->osd.id >= 0 || c->osd.osd_fsid) {
                json_object *b = json_object_new_object();
                json_add_int(b, "id", c->osd.id);
                json_add_string(b, "osd_fsid", c->osd.osd_fsid);
                json_add_string(b, "cluster_fsid", c->osd.cluster_fsid);
                json_add_string(b, "role", c->osd.role);
                json_add_string(b, "objectstore", c->osd.objectstore);
                json_add(o, "osd", b);
        }
        return o;
}

int inventory_to_json(const Inventory *inv, json_object **ret) {
        json_object *o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        json_add_string(o, "host", inv->host);
        json_add_string(o, "hostname", inv->hostname);
        json_add_string(o, "agent_version", inv->agent_version);
        json_add_bool(o, "bcache_available", inv->bcache_available);
        json_add_bool(o, "udev_available", inv->udev_available);
        json_object *devs = json_object_new_array();
        for (size_t i = 0; i < inv->n_devices; i++) {
                const InvDevice *d = &inv->devices[i];
                json_object *j = json_object_new_object();
                json_add_string(j, "name", d->name);
                json_add_string(j, "path", d->path);
                json_add(j, "links", strv_json(d->links));
                json_add_u64(j, "size", d->size);
                json_add_u64(j, "logical_sector_size", d->logical_sector_size);
                json_add_u64(j, "physical_sector_size", d->physical_sector_size);
                json_add_bool(j, "rotational", d->rotational);
                json_add_bool(j, "readonly", d->readonly);
                json_add_bool(j, "removable", d->removable);
                json_add_string(j, "model", d->model);
                json_add_string(j, "serial", d->serial);
                json_add_string(j, "vendor", d->vendor);
                json_add_string(j, "wwn", d->wwn);
                json_add_string(j, "pttype", d->pttype);
                json_add_string(j, "ptuuid", d->ptuuid);
                json_add_u64(j, "first_usable", d->first_usable);
                json_add_u64(j, "last_usable", d->last_usable);
                json_add(j, "content", content_json(&d->content));
                json_object *parts = json_object_new_array();
                for (size_t k = 0; k < d->n_partitions; k++) {
                        const InvPartition *p = &d->partitions[k];
                        json_object *pj = json_object_new_object();
                        json_add_u64(pj, "number", p->number);
                        json_add_u64(pj, "start", p->start);
                        json_add_u64(pj, "size", p->size);
                        json_add_string(pj, "node", p->node);
                        json_add_string(pj, "partuuid", p->partuuid);
                        json_add_string(pj, "name", p->name);
                        json_add_string(pj, "type_guid", p->type_guid);
                        json_add(pj, "content", content_json(&p->content));
                        json_object_array_add(parts, pj);
                }
                json_add(j, "partitions", parts);
                json_add_bool(j, "allowed", d->allowed);
                json_object_array_add(devs, j);
        }
        json_add(o, "devices", devs);
        *ret = o;
        return 0;
}
