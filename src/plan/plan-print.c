/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The plan for people (plan_print) and for programs (plan_to_json, docs/plan.md). */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/size.h"
#include "basic/strv.h"
#include "plan.h"

static int strv_to_json_array(char * const *l, json_object **ret) {
        *ret = json_array_new_strv(l);
        return *ret ? 0 : -ENOMEM;
}

static int step_to_json(const Step *s, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *v;
        int r;

        if (!o)
                return -ENOMEM;
        if ((r = json_add_u64(o, "id", s->id)) < 0 ||
            (r = json_add_string(o, "kind", step_kind_to_string(s->kind))) < 0 ||
            (r = json_add_string(o, "device", s->device)) < 0 ||
            (r = json_add_string(o, "reason", s->reason)) < 0)
                return r;

        switch (s->kind) {
        case STEP_CREATE_PARTITION:
                if ((r = json_add_u64(o, "partnum", s->partnum)) < 0 ||
                    (r = json_add_u64(o, "offset", s->offset)) < 0 ||
                    (r = json_add_u64(o, "size", s->size)) < 0 ||
                    (r = json_add_string(o, "partname", s->partname)) < 0 ||
                    (r = json_add_string(o, "type_guid", s->type_guid)) < 0 ||
                    (r = json_add_string(o, "role", part_role_to_string(s->role))) < 0 ||
                    (r = json_add_u64(o, "slot", s->slot)) < 0)
                        return r;
                break;
        case STEP_MAKE_BCACHE_CACHE:
        case STEP_BCACHE_ATTACH:
                if ((r = json_add_string(o, "part_device", s->part_device)) < 0 ||
                    (r = json_add_u64(o, "partnum", s->partnum)) < 0 ||
                    (r = json_add_string(o, "partname", s->partname)) < 0 ||
                    (r = json_add_u64(o, "slot", s->slot)) < 0)
                        return r;
                break;
        case STEP_MAKE_BCACHE_BACKING:
                if ((r = json_add_u64(o, "slot", s->slot)) < 0)
                        return r;
                break;
        case STEP_BCACHE_TUNE:
                if ((r = json_add_u64(o, "slot", s->slot)) < 0 ||
                    (r = json_add_string(o, "cache_mode", bcache_cache_mode_to_string(s->bcache.cache_mode))) < 0 ||
                    (r = json_add_u64(o, "sequential_cutoff", s->bcache.sequential_cutoff)) < 0 ||
                    (r = json_add_u64(o, "writeback_percent", s->bcache.writeback_percent)) < 0)
                        return r;
                break;
        case STEP_CREATE_OSD:
                if ((r = json_add_u64(o, "slot", s->slot)) < 0 ||
                    (r = json_add_string(o, "objectstore", objectstore_to_string(s->objectstore))) < 0 ||
                    (r = json_add_string(o, "device_class", s->device_class)) < 0 ||
                    (r = json_add_bool(o, "data_is_bcache", s->data_is_bcache)) < 0 ||
                    (r = json_add_string(o, "db_device", s->db_device)) < 0 ||
                    (r = json_add_string(o, "db_partname", s->db_partname)) < 0 ||
                    (s->db_device && (r = json_add_u64(o, "db_partnum", s->db_partnum)) < 0) ||
                    (r = json_add_string(o, "wal_device", s->wal_device)) < 0 ||
                    (r = json_add_string(o, "wal_partname", s->wal_partname)) < 0 ||
                    (s->wal_device && (r = json_add_u64(o, "wal_partnum", s->wal_partnum)) < 0) ||
                    (r = json_add_string(o, "journal_device", s->journal_device)) < 0 ||
                    (r = json_add_string(o, "journal_partname", s->journal_partname)) < 0 ||
                    (r = json_add_string(o, "half_made_osd_fsid", s->half_made_osd_fsid)) < 0 ||
                    (s->journal_device && (r = json_add_u64(o, "journal_partnum", s->journal_partnum)) < 0))
                        return r;
                break;
        default:
                break;
        }

        json_object *deps = json_object_new_array();
        if ((r = json_add(o, "deps", deps)) < 0)
                return r;
        for (size_t i = 0; i < s->n_deps; i++)
                if (json_object_array_add(deps, json_object_new_uint64(s->deps[i])) < 0)
                        return -ENOMEM;
        (void) v;
        *ret = TAKE_PTR(o);
        return 0;
}

static int host_plan_to_json(const HostPlan *h, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *v;
        int r;

        if (!o)
                return -ENOMEM;
        if ((r = json_add_string(o, "host", h->host)) < 0)
                return r;
        json_object *steps = json_object_new_array();
        if ((r = json_add(o, "steps", steps)) < 0)
                return r;
        for (size_t i = 0; i < h->n_steps; i++) {
                if ((r = step_to_json(&h->steps[i], &v)) < 0)
                        return r;
                if (json_object_array_add(steps, v) < 0) {
                        json_object_put(v);
                        return -ENOMEM;
                }
        }
        if ((r = strv_to_json_array(h->osd_data, &v)) < 0 || (r = json_add(o, "osd_data", v)) < 0)
                return r;
        json_object *fast = json_object_new_array();
        if ((r = json_add(o, "fast_devices", fast)) < 0)
                return r;
        for (size_t i = 0; i < h->n_fast; i++) {
                const FastDeviceUse *u = &h->fast[i];
                json_object *f = json_object_new_object();
                if (!f || json_object_array_add(fast, f) < 0) {
                        json_object_put(f);
                        return -ENOMEM;
                }
                if ((r = json_add_string(f, "fast_device", u->fast_device)) < 0 ||
                    (r = strv_to_json_array(u->data_devices, &v)) < 0 ||
                    (r = json_add(f, "data_devices", v)) < 0 ||
                    (r = json_add_u64(f, "used", u->used)) < 0 ||
                    (r = json_add_u64(f, "free_after", u->free_after)) < 0)
                        return r;
        }
        if (h->notes && h->notes[0]) {
                if ((r = strv_to_json_array(h->notes, &v)) < 0 || (r = json_add(o, "notes", v)) < 0)
                        return r;
        }
        *ret = TAKE_PTR(o);
        return 0;
}

int plan_to_json(const Plan *p, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *v;
        int r;

        if (!o)
                return -ENOMEM;
        if ((r = json_add_u64(o, "n_steps", plan_count_steps(p))) < 0)
                return r;
        json_object *hosts = json_object_new_array();
        if ((r = json_add(o, "hosts", hosts)) < 0)
                return r;
        for (size_t i = 0; i < p->n_hosts; i++) {
                if ((r = host_plan_to_json(&p->hosts[i], &v)) < 0)
                        return r;
                if (json_object_array_add(hosts, v) < 0) {
                        json_object_put(v);
                        return -ENOMEM;
                }
        }
        *ret = TAKE_PTR(o);
        return 0;
}

/* "/dev/sda" + 4 → "/dev/sda4", "/dev/nvme0n1" + 4 → "/dev/nvme0n1p4" (the kernel's naming;
 * for people only: the executor goes by GPT name and PARTUUID) */
static const char *part_node(const char *dev, unsigned partnum, char *buf, size_t len) {
        size_t n = strlen(dev);
        bool digit = n > 0 && isdigit((unsigned char) dev[n - 1]);
        snprintf(buf, len, "%s%s%u", dev, digit ? "p" : "", partnum);
        return buf;
}

static const char *step_target(const HostPlan *h, const char *dev, const char *partname, unsigned partnum,
                               char *buf, size_t len) {
        if (!dev)
                return "-";
        if (partnum > 0)
                return part_node(dev, partnum, buf, len);
        snprintf(buf, len, "%s:%s", dev, partname ?: "?");
        return buf;
}

static void print_host(const HostPlan *h, FILE *f) {
        char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX], n1[128], n2[128];
        size_t n_parts = 0, n_osds = 0;

        if (h->n_steps == 0) {
                fprintf(f, "host %s: nothing to do\n", h->host);
                STRV_FOREACH(n, h->notes)
                        fprintf(f, "  note: %s\n", *n);
                return;
        }
        fprintf(f, "host %s: %zu step%s\n", h->host, h->n_steps, h->n_steps == 1 ? "" : "s");

        for (size_t i = 0; i < h->n_steps; i++) {
                n_parts += h->steps[i].kind == STEP_CREATE_PARTITION;
                n_osds += h->steps[i].kind == STEP_CREATE_OSD;
        }

        if (n_parts > 0) {
                fprintf(f, "  new partitions:\n");
                fprintf(f, "    %-16s %5s %10s %12s  %-24s %s\n", "device", "part", "size", "offset", "name", "purpose");
                for (size_t i = 0; i < h->n_steps; i++) {
                        const Step *s = &h->steps[i];
                        if (s->kind != STEP_CREATE_PARTITION)
                                continue;
                        /* offsets exact, in MiB: every partition starts on a MiB boundary */
                        snprintf(b, sizeof(b), "%llu MiB", (unsigned long long) (s->offset / (1024 * 1024)));
                        fprintf(f, "    %-16s %5u %10s %12s  %-24s %s\n", s->device, s->partnum,
                                size_format(s->size, a, sizeof(a)), b, s->partname, s->reason);
                }
        }

        fprintf(f, "  steps:\n");
        for (size_t i = 0; i < h->n_steps; i++) {
                const Step *s = &h->steps[i];
                fprintf(f, "    %3u  %-19s %-16s %s", s->id, step_kind_to_string(s->kind), s->device, s->reason);
                if (s->n_deps > 0) {
                        fprintf(f, " [after");
                        for (size_t d = 0; d < s->n_deps; d++)
                                fprintf(f, "%s %u", d ? "," : "", s->deps[d]);
                        fprintf(f, "]");
                }
                fputc('\n', f);
        }

        if (n_osds > 0) {
                fprintf(f, "  OSDs:\n");
                fprintf(f, "    %4s  %-16s %-18s %-18s %-6s %s\n", "slot", "data", "db", "wal", "class", "objectstore");
                for (size_t i = 0; i < h->n_steps; i++) {
                        const Step *s = &h->steps[i];
                        if (s->kind != STEP_CREATE_OSD)
                                continue;
                        char data[160];
                        snprintf(data, sizeof(data), "%s%s", s->data_is_bcache ? "bcache:" : "", s->device);
                        const char *db = s->journal_device
                                ? step_target(h, s->journal_device, s->journal_partname, s->journal_partnum, n1, sizeof(n1))
                                : step_target(h, s->db_device, s->db_partname, s->db_partnum, n1, sizeof(n1));
                        fprintf(f, "    %4u  %-16s %-18s %-18s %-6s %s%s\n", s->slot, data, db,
                                step_target(h, s->wal_device, s->wal_partname, s->wal_partnum, n2, sizeof(n2)),
                                s->device_class, objectstore_to_string(s->objectstore),
                                s->journal_device ? " (db column: journal)" : "");
                }
        }

        for (size_t i = 0; i < h->n_fast; i++) {
                const FastDeviceUse *u = &h->fast[i];
                size_t n = strv_length(u->data_devices);
                _cleanup_(freep) char *list = strv_join(u->data_devices, ", ");
                fprintf(f, "  blast radius: %s → %s (%zu OSD%s); cephprov partitions %s, largest free extent after %s\n",
                        u->fast_device, n > 0 && list ? list : "nothing", n, n == 1 ? "" : "s",
                        size_format(u->used, a, sizeof(a)), size_format(u->free_after, b, sizeof(b)));
        }
        STRV_FOREACH(n, h->notes)
                fprintf(f, "  note: %s\n", *n);
}

void plan_print(const Plan *p, FILE *f) {
        for (size_t i = 0; i < p->n_hosts; i++) {
                if (i > 0)
                        fputc('\n', f);
                print_host(&p->hosts[i], f);
        }
}
