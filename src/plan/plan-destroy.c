/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "plan/plan-destroy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basic/json-util.h"
#include "basic/size.h"
#include "basic/strv.h"
#include "plan/plan.h"
#include "plan-internal.h"

static const char *const kind_names[_DESTROY_ACTION_MAX] = {
        [DESTROY_BCACHE_TEARDOWN] = "bcache-teardown",
        [DESTROY_WIPE_DEVICE] = "wipe",
        [DESTROY_DELETE_PARTITION] = "delete-partition",
};

const char *destroy_action_kind_to_string(DestroyActionKind k) {
        return k < _DESTROY_ACTION_MAX ? kind_names[k] : NULL;
}

DestroyPlan *destroy_plan_free(DestroyPlan *p) {
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_actions; i++) {
                free(p->actions[i].device);
                free(p->actions[i].partname);
                free(p->actions[i].reason);
        }
        free(p->actions);
        strv_free(p->kept);
        free(p->missing);
        free(p->host);
        free(p);
        return NULL;
}

static bool in_set(const int *ids, size_t n, int id) {
        for (size_t i = 0; id >= 0 && i < n; i++)
                if (ids[i] == id)
                        return true;
        return false;
}

/* Its OSD id when the label is this cluster's (an OSD of another cluster with the same id is
 * not ours to wipe), else -1; *ret_foreign says a label of another cluster was there. */
static int data_osd(const Inventory *inv, const InvDevice *d, const char *cluster_fsid, bool *ret_foreign) {
        const InvOsd *o = plan_find_osd(inv, d, true);
        if (ret_foreign)
                *ret_foreign = false;
        if (!o)
                return -1;
        if (cluster_fsid && (!o->cluster_fsid || strcasecmp(o->cluster_fsid, cluster_fsid) != 0)) {
                if (ret_foreign)
                        *ret_foreign = true;
                return -1;
        }
        return o->id;
}

static int add(DestroyPlan *p, DestroyActionKind kind, const char *device, unsigned partnum, const char *partname,
               uint64_t size, int osd, char *reason) {
        if (!reason)
                return -ENOMEM;
        DestroyAction *n = realloc(p->actions, (p->n_actions + 1) * sizeof(DestroyAction));
        if (!n) {
                free(reason);
                return -ENOMEM;
        }
        p->actions = n;
        p->actions[p->n_actions] = (DestroyAction) {
                .kind = kind, .device = strdup(device), .partnum = partnum,
                .partname = partname ? strdup(partname) : NULL, .size = size, .osd = osd, .reason = reason,
        };
        if (!p->actions[p->n_actions].device || (partname && !p->actions[p->n_actions].partname))
                return -ENOMEM;
        p->n_actions++;
        p->bytes_freed += kind == DESTROY_BCACHE_TEARDOWN ? 0 : size;
        return 0;
}

/* Is this partition cephprov's, of this host, and does it go with what is destroyed? One
 * that carries an OSD label of another cluster never is (whole host or not). */
static bool owned_partition(const InvPartition *pt, const char *host, const char *cluster_fsid, const int *osds,
                            size_t n, char **sets, bool whole_host) {
        PartRole role;
        if (!pt->name || !plan_partition_name_parse(pt->name, &role, NULL, NULL))
                return false;
        if (cluster_fsid && pt->content.osd.id >= 0 &&
            (!pt->content.osd.cluster_fsid || strcasecmp(pt->content.osd.cluster_fsid, cluster_fsid) != 0))
                return false;
        /* the host is the name's last field (cut to GPT's 36 units: compare as a prefix) */
        const char *h = strrchr(pt->name, ':');
        if (!h || !(strlen(pt->name) >= 36 ? startswith(host, h + 1) : streq(host, h + 1)))
                return false;
        if (whole_host)
                return true;
        if (in_set(osds, n, pt->content.osd.id))
                return true; /* its DB, WAL or journal */
        return role == PART_ROLE_CACHE && pt->content.bcache.set_uuid && strv_contains(sets, pt->content.bcache.set_uuid);
}

int plan_destroy(const Inventory *inv, const char *cluster_fsid, const int *osds, size_t n_osds, bool whole_host,
                 DestroyPlan **ret, Error *err) {
        _cleanup_(destroy_plan_freep) DestroyPlan *p = calloc(1, sizeof(DestroyPlan));
        if (!p || !(p->host = strdup(inv->host)) || !(p->kept = calloc(1, sizeof(char *))))
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_strv_free_ char **sets = NULL; /* cache sets of the backing devices torn down */
        bool *found = calloc(n_osds ? n_osds : 1, sizeof(bool));
        if (!found)
                return error_set(err, ENOMEM, "out of memory");
        int r = 0;
        char buf[SIZE_FORMAT_MAX];

        /* 1. data devices: bcache teardowns, then wipes */
        for (int pass = 0; pass < 2 && r >= 0; pass++)
                for (size_t i = 0; i < inv->n_devices && r >= 0; i++) {
                        const InvDevice *d = &inv->devices[i];
                        if (!d->allowed)
                                continue;
                        bool foreign = false;
                        int id = data_osd(inv, d, cluster_fsid, &foreign);
                        if (foreign && pass == 0) {
                                const InvOsd *o = plan_find_osd(inv, d, true);
                                if (in_set(osds, n_osds, o->id) &&
                                    (r = strv_consume(&p->kept, strprintf("%s: osd.%d of another cluster (%s), not this "
                                                                          "one's: not touched", d->path, o->id,
                                                                          o->cluster_fsid ? o->cluster_fsid : "no fsid"))) < 0)
                                        break;
                        }
                        if (!in_set(osds, n_osds, id))
                                continue;
                        for (size_t k = 0; k < n_osds; k++)
                                if (osds[k] == id)
                                        found[k] = true;
                        bool backing = d->content.bcache.role == BCACHE_ROLE_BACKING;
                        if (pass == 0 && backing) {
                                r = add(p, DESTROY_BCACHE_TEARDOWN, d->path, 0, NULL, d->size, id,
                                        strprintf("tear down the bcache of osd.%d's %s (%s, dirty data flushed first)",
                                                  id, d->path, d->content.bcache.bcache_device ?: "not registered"));
                                if (r >= 0 && d->content.bcache.set_uuid)
                                        r = strv_extend(&sets, d->content.bcache.set_uuid);
                        } else if (pass == 1)
                                r = add(p, DESTROY_WIPE_DEVICE, d->path, 0, NULL, d->size, id,
                                        strprintf("wipe osd.%d's data device %s (%s)", id, d->path,
                                                  size_format(d->size, buf, sizeof buf)));
                }

        /* 2. fast devices: their owned partitions, or the whole device when nothing else is on it */
        for (size_t i = 0; i < inv->n_devices && r >= 0; i++) {
                const InvDevice *d = &inv->devices[i];
                if (!d->allowed || d->n_partitions == 0 || in_set(osds, n_osds, data_osd(inv, d, cluster_fsid, NULL)))
                        continue;
                size_t n_owned = 0;
                for (size_t k = 0; k < d->n_partitions; k++)
                        n_owned += owned_partition(&d->partitions[k], inv->host, cluster_fsid, osds, n_osds, sets, whole_host);
                if (n_owned == 0)
                        continue;
                if (n_owned == d->n_partitions && !d->content.fstype) {
                        r = add(p, DESTROY_WIPE_DEVICE, d->path, 0, NULL, d->size, -1,
                                strprintf("wipe %s: it holds only cephprov partitions (%zu)", d->path, n_owned));
                        continue;
                }
                for (size_t k = 0; k < d->n_partitions && r >= 0; k++) {
                        const InvPartition *pt = &d->partitions[k];
                        if (owned_partition(pt, inv->host, cluster_fsid, osds, n_osds, sets, whole_host))
                                r = add(p, DESTROY_DELETE_PARTITION, d->path, pt->number, pt->name, pt->size,
                                        pt->content.osd.id,
                                        strprintf("delete partition %u '%s' of %s (%s)", pt->number, pt->name, d->path,
                                                  size_format(pt->size, buf, sizeof buf)));
                        else
                                r = strv_consume(&p->kept, strprintf("%s partition %u '%s' %s", d->path, pt->number,
                                                                     pt->name ? pt->name : "",
                                                                     size_format(pt->size, buf, sizeof buf)));
                }
        }
        if (r >= 0)
                for (size_t k = 0; k < n_osds; k++)
                        if (!found[k]) {
                                int *m = realloc(p->missing, (p->n_missing + 1) * sizeof(int));
                                if (!m) {
                                        r = -ENOMEM;
                                        break;
                                }
                                p->missing = m;
                                p->missing[p->n_missing++] = osds[k];
                        }
        free(found);
        if (r < 0)
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(p);
        return 0;
}

void destroy_plan_print(const DestroyPlan *p, FILE *f) {
        char buf[SIZE_FORMAT_MAX];
        fprintf(f, "destroy on host %s: %zu action%s, %s freed\n", p->host, p->n_actions, p->n_actions == 1 ? "" : "s",
                size_format(p->bytes_freed, buf, sizeof buf));
        for (size_t i = 0; i < p->n_actions; i++)
                fprintf(f, "  %-16s %s\n", destroy_action_kind_to_string(p->actions[i].kind), p->actions[i].reason);
        for (char **k = p->kept; k && *k; k++)
                fprintf(f, "  kept             %s\n", *k);
        for (size_t i = 0; i < p->n_missing; i++)
                fprintf(f, "  not found        osd.%d: no data device of this host's allow-list carries it\n",
                        p->missing[i]);
}

int destroy_plan_to_json(const DestroyPlan *p, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *a = json_object_new_array();
        if (!o || !a || json_add_string(o, "host", p->host) < 0 || json_add(o, "actions", a) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < p->n_actions; i++) {
                const DestroyAction *x = &p->actions[i];
                json_object *j = json_object_new_object();
                if (!j || json_object_array_add(a, j) < 0)
                        return -ENOMEM;
                json_add_string(j, "action", destroy_action_kind_to_string(x->kind));
                json_add_string(j, "device", x->device);
                if (x->kind == DESTROY_DELETE_PARTITION) {
                        json_add_u64(j, "partition", x->partnum);
                        json_add_string(j, "name", x->partname);
                }
                json_add_u64(j, "bytes", x->size);
                if (x->osd >= 0)
                        json_add_int(j, "osd", x->osd);
                json_add_string(j, "reason", x->reason);
        }
        json_add(o, "kept", json_array_new_strv(p->kept));
        json_add(o, "missing_osds", json_array_new_ints(p->missing, p->n_missing));
        json_add_u64(o, "bytes_freed", p->bytes_freed);
        *ret = TAKE_PTR(o);
        return 0;
}
