/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The plan for people (plan_print, plan_print_host) and for programs (plan_write_json, docs/plan.md). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/color.h"
#include "basic/json-util.h"
#include "basic/size.h"
#include "basic/strv.h"
#include "plan.h"

/* The JSON form, streamed: keys and order exactly as docs/plan.md lists them (the golden
 * files hold them byte for byte). */
static void step_write_json(const Step *s, bool ids, JsonWriter *w) {
        json_writer_begin_object(w, NULL);
        json_writer_u64(w, "id", s->id);
        json_writer_string(w, "kind", step_kind_to_string(s->kind));
        json_writer_string(w, "device", s->device);
        json_writer_string(w, "reason", s->reason);

        switch (s->kind) {
        case STEP_CREATE_PARTITION:
                json_writer_u64(w, "partnum", s->partnum);
                json_writer_u64(w, "offset", s->offset);
                json_writer_u64(w, "size", s->size);
                json_writer_string(w, "partname", s->partname);
                json_writer_string(w, "type_guid", s->type_guid);
                json_writer_string(w, "role", part_role_to_string(s->role));
                json_writer_u64(w, "slot", s->slot);
                break;
        case STEP_MAKE_BCACHE_CACHE:
        case STEP_BCACHE_ATTACH:
                json_writer_string(w, "part_device", s->part_device);
                json_writer_u64(w, "partnum", s->partnum);
                json_writer_string(w, "partname", s->partname);
                json_writer_u64(w, "slot", s->slot);
                break;
        case STEP_MAKE_BCACHE_BACKING:
                json_writer_u64(w, "slot", s->slot);
                break;
        case STEP_BCACHE_TUNE:
                json_writer_u64(w, "slot", s->slot);
                json_writer_string(w, "cache_mode", bcache_cache_mode_to_string(s->bcache.cache_mode));
                json_writer_u64(w, "sequential_cutoff", s->bcache.sequential_cutoff);
                json_writer_u64(w, "writeback_percent", s->bcache.writeback_percent);
                break;
        case STEP_CREATE_OSD:
                json_writer_u64(w, "slot", s->slot);
                if (ids && s->osd_id >= 0)
                        json_writer_int(w, "osd_id", s->osd_id);
                json_writer_string(w, "objectstore", objectstore_to_string(s->objectstore));
                json_writer_string(w, "device_class", s->device_class);
                json_writer_bool(w, "data_is_bcache", s->data_is_bcache);
                json_writer_bool(w, "encrypted", s->encrypted);
                json_writer_string(w, "db_device", s->db_device);
                json_writer_string(w, "db_partname", s->db_partname);
                if (s->db_device)
                        json_writer_u64(w, "db_partnum", s->db_partnum);
                json_writer_string(w, "wal_device", s->wal_device);
                json_writer_string(w, "wal_partname", s->wal_partname);
                if (s->wal_device)
                        json_writer_u64(w, "wal_partnum", s->wal_partnum);
                json_writer_string(w, "journal_device", s->journal_device);
                json_writer_string(w, "journal_partname", s->journal_partname);
                json_writer_string(w, "half_made_osd_fsid", s->half_made_osd_fsid);
                if (s->journal_device)
                        json_writer_u64(w, "journal_partnum", s->journal_partnum);
                break;
        default:
                break;
        }

        json_writer_begin_array(w, "deps");
        for (size_t i = 0; i < s->n_deps; i++)
                json_writer_u64(w, NULL, s->deps[i]);
        json_writer_end_array(w);
        json_writer_end_object(w);
}

static void fast_totals(const HostPlan *h, uint64_t *used, uint64_t *left);

/* The devices the host plan selects, as the text's "devices:" lists them: by-id name,
 * serial and model, so that a program finds the disk in the rack as a person does */
static void devices_write_json(const HostPlan *h, JsonWriter *w) {
        json_writer_begin_array(w, "devices");
        for (size_t i = 0; i < h->n_devices; i++) {
                const PlanDevice *d = &h->devices[i];
                json_writer_begin_object(w, NULL);
                json_writer_string(w, "path", d->path);
                json_writer_string(w, "by_id", d->by_id);
                json_writer_string(w, "serial", d->serial);
                json_writer_string(w, "model", d->model);
                json_writer_u64(w, "size", d->size);
                json_writer_bool(w, "rotational", d->rotational);
                json_writer_string(w, "role", d->fast ? "fast" : "data");
                if (!d->fast)
                        json_writer_u64(w, "slot", d->slot);
                json_writer_begin_array(w, "kept");
                for (size_t k = 0; k < d->n_kept; k++) {
                        const PlanKept *kp = &d->kept[k];
                        json_writer_begin_object(w, NULL);
                        json_writer_u64(w, "partnum", kp->number);
                        if (kp->name && kp->name[0])
                                json_writer_string(w, "partname", kp->name);
                        json_writer_string(w, "holder", kp->holder);
                        json_writer_u64(w, "size", kp->size);
                        json_writer_end_object(w);
                }
                json_writer_end_array(w);
                json_writer_end_object(w);
        }
        json_writer_end_array(w);
}

static void host_plan_write_json(const HostPlan *h, bool ids, JsonWriter *w) {
        json_writer_begin_object(w, NULL);
        json_writer_string(w, "host", h->host);
        json_writer_begin_array(w, "steps");
        for (size_t i = 0; i < h->n_steps; i++)
                step_write_json(&h->steps[i], ids, w);
        json_writer_end_array(w);
        json_writer_strv(w, "osd_data", h->osd_data);
        json_writer_begin_array(w, "fast_devices");
        for (size_t i = 0; i < h->n_fast; i++) {
                const FastDeviceUse *u = &h->fast[i];
                json_writer_begin_object(w, NULL);
                json_writer_string(w, "fast_device", u->fast_device);
                json_writer_strv(w, "data_devices", u->data_devices);
                json_writer_u64(w, "used", u->used);
                json_writer_u64(w, "free_after", u->free_after);
                json_writer_end_object(w);
        }
        json_writer_end_array(w);
        json_writer_strv(w, "notes", h->notes);
        json_writer_strv(w, "warnings", h->warnings);
        json_writer_begin_array(w, "drift");
        for (size_t i = 0; i < h->n_drift; i++) {
                const PlanDrift *d = &h->drift[i];
                json_writer_begin_object(w, NULL);
                json_writer_string(w, "device", d->device);
                json_writer_u64(w, "partnum", d->partnum);
                json_writer_string(w, "partname", d->partname);
                json_writer_string(w, "role", part_role_to_string(d->role));
                json_writer_u64(w, "slot", d->slot);
                json_writer_u64(w, "size", d->size);
                json_writer_string(w, "reason", d->reason);
                json_writer_end_object(w);
        }
        json_writer_end_array(w);
        devices_write_json(h, w);
        uint64_t used = 0, left = 0;
        fast_totals(h, &used, &left);
        json_writer_begin_object(w, "totals");
        json_writer_u64(w, "steps", h->n_steps);
        json_writer_u64(w, "new_osds", h->n_new_osds);
        json_writer_u64(w, "new_raw_bytes", h->raw_new);
        json_writer_u64(w, "osds_after", h->n_osds);
        json_writer_u64(w, "raw_bytes_after", h->raw_total);
        json_writer_u64(w, "fast_used_bytes", used);
        json_writer_u64(w, "fast_free_bytes_after", left);
        json_writer_u64(w, "wiped_devices", h->n_wipes);
        json_writer_u64(w, "wiped_bytes", h->wipe_bytes);
        json_writer_end_object(w);
        json_writer_end_object(w);
}

void plan_write_json_begin(JsonWriter *w, size_t n_steps) {
        json_writer_int(w, "format", PLAN_FORMAT_VERSION);
        json_writer_string(w, "kind", "plan");
        json_writer_u64(w, "n_steps", n_steps);
        json_writer_begin_array(w, "hosts");
}

void plan_write_json_host(JsonWriter *w, const HostPlan *h, bool osd_ids) {
        host_plan_write_json(h, osd_ids, w);
}

/* "failed" when no host could be planned, "incomplete" when some could not: n_steps then
 * counts only the planned hosts' steps, and a program must not read 0 as "nothing to do" */
static const char *plan_result(const PlanTotals *t, size_t n_missing, size_t n_refused) {
        if (n_missing + n_refused > 0)
                return t->n_hosts == 0 ? "failed" : "incomplete";
        return t->n_steps > 0 ? "changes" : "nothing-to-do";
}

void plan_write_json_end(JsonWriter *w, const struct PlanTotals *t, char * const *missing_hosts, const PlanRefusal *refused,
                         size_t n_refused) {
        size_t n_missing = strv_length((char **) missing_hosts);
        json_writer_end_array(w);
        json_writer_strv(w, "missing_hosts", missing_hosts);
        json_writer_begin_array(w, "refused_hosts");
        for (size_t i = 0; i < n_refused; i++) {
                json_writer_begin_object(w, NULL);
                json_writer_string(w, "host", refused[i].host);
                json_writer_string(w, "message", refused[i].message);
                json_writer_end_object(w);
        }
        json_writer_end_array(w);
        json_writer_string(w, "result", plan_result(t, n_missing, n_refused));
        json_writer_begin_object(w, "totals");
        json_writer_u64(w, "hosts_planned", t->n_hosts);
        json_writer_u64(w, "hosts_missing", n_missing);
        json_writer_u64(w, "hosts_refused", n_refused);
        json_writer_u64(w, "steps", t->n_steps);
        json_writer_u64(w, "new_osds", t->n_new);
        json_writer_u64(w, "new_raw_bytes", t->raw);
        json_writer_u64(w, "fast_used_bytes", t->used);
        json_writer_u64(w, "fast_free_bytes_after", t->left);
        json_writer_u64(w, "wiped_devices", t->n_wipes);
        json_writer_u64(w, "wiped_bytes", t->wipe_bytes);
        json_writer_u64(w, "drifted_partitions", t->n_drift);
        json_writer_end_object(w);
        if (t->n_ids > 0 && !t->ids_lost) {
                json_writer_begin_array(w, "osd_ids");
                for (size_t i = 0; i < t->n_ids; i++)
                        json_writer_int(w, NULL, t->ids[i]);
                json_writer_end_array(w);
        }
}

void plan_write_json(const Plan *p, JsonWriter *w) {
        PlanTotals t = {};
        plan_write_json_begin(w, plan_count_steps(p));
        for (size_t i = 0; i < p->n_hosts; i++) {
                plan_write_json_host(w, &p->hosts[i], p->osd_ids_known);
                plan_totals_add(&t, &p->hosts[i]);
        }
        plan_write_json_end(w, &t, p->missing_hosts, p->refused, p->n_refused);
        plan_totals_done(&t);
}

int plan_print_json(const Plan *p, FILE *f) {
        _cleanup_(freep) JsonWriter *w = malloc(sizeof(JsonWriter));
        if (!w)
                return -ENOMEM;
        json_writer_init(w, f);
        json_writer_begin_object(w, NULL);
        plan_write_json(p, w);
        json_writer_end_object(w);
        return json_writer_finish(w);
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

/* "12-15, 20" */
static void print_id_ranges(FILE *f, const int *ids, size_t n) {
        for (size_t i = 0; i < n;) {
                size_t j = i;
                while (j + 1 < n && ids[j + 1] == ids[j] + 1)
                        j++;
                fprintf(f, "%s%d", i ? ", " : "", ids[i]);
                if (j > i)
                        fprintf(f, "-%d", ids[j]);
                i = j + 1;
        }
}

static void print_devices(const HostPlan *h, FILE *f) {
        char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX];
        if (h->n_devices == 0)
                return;
        fprintf(f, "  devices:\n");
        for (size_t i = 0; i < h->n_devices; i++) {
                const PlanDevice *d = &h->devices[i];
                fprintf(f, "    %-16s ", d->path);
                if (d->by_id)
                        fprintf(f, "%s", d->by_id);
                else
                        fprintf(f, "(no by-id name) serial %s, model %s", d->serial ?: "unknown", d->model ?: "unknown");
                fprintf(f, ", %s %s, ", size_format(d->size, a, sizeof(a)), d->rotational ? "rotational" : "non-rotational");
                if (d->fast)
                        fprintf(f, "fast device");
                else
                        fprintf(f, "data of slot %u", d->slot);
                for (size_t k = 0; k < d->n_kept; k++) {
                        const PlanKept *kp = &d->kept[k];
                        fprintf(f, "%s %u", k ? "," : "; kept:", kp->number);
                        if (kp->name && kp->name[0])
                                fprintf(f, " '%s'", kp->name);
                        if (kp->holder)
                                fprintf(f, " (%s)", kp->holder);
                        fprintf(f, " %s", size_format(kp->size, b, sizeof(b)));
                }
                fputc('\n', f);
        }
}

static void print_blast_radius(const HostPlan *h, FILE *f, unsigned flags) {
        char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX];
        for (size_t i = 0; i < h->n_fast; i++) {
                const FastDeviceUse *u = &h->fast[i];
                size_t n = strv_length(u->data_devices);
                _cleanup_(freep) char *list = strv_join(u->data_devices, ", ");
                fprintf(f, "  blast radius: %s %s %s (%zu OSD%s); cephprov partitions %s, largest free extent after %s\n",
                        u->fast_device, flags & PLAN_PRINT_UTF8 ? "\u2192" : "->",
                        n > 0 && list ? list : "nothing", n, n == 1 ? "" : "s",
                        size_format(u->used, a, sizeof(a)), size_format(u->free_after, b, sizeof(b)));
        }
}

static void print_drift(const HostPlan *h, FILE *f) {
        char a[SIZE_FORMAT_MAX];
        for (size_t i = 0; i < h->n_drift; i++) {
                const PlanDrift *d = &h->drift[i];
                fprintf(f, "  drift: %s partition %u '%s' (%s, %s) is cephprov's but not in the layout: %s; "
                        "no step removes it (apply never deletes a partition, and `cephprov destroy` takes a whole host: "
                        "delete it by hand once nothing uses it)\n",
                        d->device, d->partnum, d->partname, part_role_to_string(d->role),
                        size_format(d->size, a, sizeof(a)), d->reason);
        }
}

static void fast_totals(const HostPlan *h, uint64_t *used, uint64_t *left) {
        for (size_t i = 0; i < h->n_fast; i++) {
                *used += h->fast[i].used;
                *left += h->fast[i].free_total;
        }
}

void plan_print_host(const HostPlan *h, FILE *f, unsigned flags) {
        char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX], n1[128], n2[128];
        size_t n_parts = 0, n_osds = 0;

        if (h->n_steps == 0) {
                fprintf(f, "host %s: nothing to do\n", h->host);
                print_drift(h, f);
                STRV_FOREACH(n, h->notes)
                        fprintf(f, "  note: %s\n", *n);
                STRV_FOREACH(n, h->warnings)
                        fprintf(f, "  %swarning%s: %s\n", color_on(f, COLOR_WARNING), color_off(f), *n);
                return;
        }
        fprintf(f, "host %s: %zu step%s\n", h->host, h->n_steps, h->n_steps == 1 ? "" : "s");
        print_devices(h, f);

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
                bool ids = false;
                for (size_t i = 0; i < h->n_steps; i++)
                        ids = ids || (h->steps[i].kind == STEP_CREATE_OSD && h->steps[i].osd_id >= 0);
                fprintf(f, "  OSDs:\n");
                fprintf(f, "    %4s  %-16s %-18s %-18s %-6s %s%s\n", "slot", "data", "db", "wal", "class", "objectstore",
                        ids ? "  id" : "");
                for (size_t i = 0; i < h->n_steps; i++) {
                        const Step *s = &h->steps[i];
                        if (s->kind != STEP_CREATE_OSD)
                                continue;
                        char data[160], id[32] = "";
                        snprintf(data, sizeof(data), "%s%s", s->data_is_bcache ? "bcache:" : "", s->device);
                        const char *db = s->journal_device
                                ? step_target(h, s->journal_device, s->journal_partname, s->journal_partnum, n1, sizeof(n1))
                                : step_target(h, s->db_device, s->db_partname, s->db_partnum, n1, sizeof(n1));
                        if (ids && s->osd_id >= 0)
                                snprintf(id, sizeof(id), "  osd.%d", s->osd_id);
                        fprintf(f, "    %4u  %-16s %-18s %-18s %-6s %s%s%s%s\n", s->slot, data, db,
                                step_target(h, s->wal_device, s->wal_partname, s->wal_partnum, n2, sizeof(n2)),
                                s->device_class, objectstore_to_string(s->objectstore),
                                s->encrypted ? "+dmcrypt" : "", id,
                                s->journal_device ? " (db column: journal)" : "");
                }
        }

        print_blast_radius(h, f, flags);
        print_drift(h, f);
        STRV_FOREACH(n, h->notes)
                fprintf(f, "  note: %s\n", *n);
        STRV_FOREACH(n, h->warnings)
                fprintf(f, "  %swarning%s: %s\n", color_on(f, COLOR_WARNING), color_off(f), *n);

        uint64_t used = 0, left = 0;
        fast_totals(h, &used, &left);
        if (h->n_new_osds > 0)
                fprintf(f, "  total: %u new OSD%s, %s raw", h->n_new_osds, h->n_new_osds == 1 ? "" : "s",
                        size_format(h->raw_new, a, sizeof(a)));
        else
                fprintf(f, "  total: no new OSD");
        fprintf(f, " (%u OSD%s, %s raw after the plan)", h->n_osds, h->n_osds == 1 ? "" : "s",
                size_format(h->raw_total, b, sizeof(b)));
        if (h->n_fast > 0)
                fprintf(f, "; fast devices: %s in cephprov partitions, %s free after",
                        size_format(used, a, sizeof(a)), size_format(left, b, sizeof(b)));
        fputc('\n', f);
}

void plan_totals_add(PlanTotals *t, const HostPlan *h) {
        t->n_hosts++;
        t->n_steps += h->n_steps;
        t->n_new += h->n_new_osds;
        t->n_drift += h->n_drift;
        t->raw += h->raw_new;
        t->n_wipes += h->n_wipes;
        t->wipe_bytes += h->wipe_bytes;
        fast_totals(h, &t->used, &t->left);
        for (size_t i = 0; i < h->n_steps; i++) {
                const Step *s = &h->steps[i];
                if (s->kind != STEP_CREATE_OSD || s->osd_id < 0)
                        continue;
                if (t->n_ids == t->cap_ids) {
                        size_t cap = t->cap_ids ? 2 * t->cap_ids : 64;
                        int *n = realloc(t->ids, cap * sizeof(int));
                        if (!n) {
                                t->ids_lost = true;
                                continue;
                        }
                        t->ids = n;
                        t->cap_ids = cap;
                }
                t->ids[t->n_ids++] = s->osd_id;
        }
}

void plan_totals_done(PlanTotals *t) {
        free(t->ids);
        *t = (PlanTotals) {};
}

void plan_print_totals(const PlanTotals *t, char * const *missing_hosts, const PlanRefusal *refused, size_t n_refused,
                       FILE *f) {
        char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX], c[SIZE_FORMAT_MAX];
        size_t n_missing = 0;

        if (t->n_hosts > 0)
                fputc('\n', f);
        for (size_t i = 0; i < n_refused; i++)
                fprintf(f, "host %s: not planned: %srefused%s: %s\n", refused[i].host, color_on(f, COLOR_ERROR),
                        color_off(f), refused[i].message);
        for (char * const *m = missing_hosts; m && *m; m++, n_missing++)
                fprintf(f, "host %s: not planned: the inventory has no entry for it\n", *m);

        if (t->n_steps == 0) {
                fprintf(f, "plan: nothing to do on %zu host%s", t->n_hosts, t->n_hosts == 1 ? "" : "s");
        } else {
                fprintf(f, "plan: %zu step%s on %zu host%s, %zu new OSD%s, %s raw", t->n_steps, t->n_steps == 1 ? "" : "s",
                        t->n_hosts, t->n_hosts == 1 ? "" : "s", t->n_new, t->n_new == 1 ? "" : "s",
                        size_format(t->raw, a, sizeof(a)));
                if (t->used > 0 || t->left > 0)
                        fprintf(f, "; fast devices: %s in cephprov partitions, %s free after",
                                size_format(t->used, b, sizeof(b)), size_format(t->left, c, sizeof(c)));
        }
        if (t->n_wipes > 0)
                fprintf(f, "; %swipes%s %zu device%s (%s)", color_on(f, COLOR_WARNING), color_off(f), t->n_wipes,
                        t->n_wipes == 1 ? "" : "s", size_format(t->wipe_bytes, c, sizeof(c)));
        if (t->n_drift > 0)
                fprintf(f, "; %zu drifted partition%s", t->n_drift, t->n_drift == 1 ? "" : "s");
        if (n_refused > 0)
                fprintf(f, "; %zu host%s refused", n_refused, n_refused == 1 ? "" : "s");
        if (n_missing > 0)
                fprintf(f, "; %zu host%s not planned (no inventory)", n_missing, n_missing == 1 ? "" : "s");
        fputc('\n', f);

        if (t->n_ids > 0 && !t->ids_lost) {
                fprintf(f, "OSD ids: ");
                print_id_ranges(f, t->ids, t->n_ids);
                fprintf(f, " (the lowest free ones, in plan order, if nothing else allocates first)\n");
        }
}

/* ---- the OSD preview: one line per OSD, as `ceph orch apply --dry-run` shows them ---- */

static const PlanDevice *plan_device_of(const HostPlan *h, const char *path) {
        for (size_t i = 0; path && i < h->n_devices; i++)
                if (streq(h->devices[i].path, path))
                        return &h->devices[i];
        return NULL;
}

/* "sdb4 30 GiB" for a partition the plan makes (its create-partition step), "sdb4" for one
 * that exists; "-" for none */
static void part_cell(const HostPlan *h, const char *dev, unsigned partnum, const char *partname, char *buf, size_t n) {
        if (!dev) {
                snprintf(buf, n, "-");
                return;
        }
        const char *base = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
        const char *sep = base[0] && isdigit((unsigned char) base[strlen(base) - 1]) ? "p" : "";
        for (size_t i = 0; partname && i < h->n_steps; i++) {
                const Step *s = &h->steps[i];
                if (s->kind == STEP_CREATE_PARTITION && streq_ptr(s->partname, partname) && streq_ptr(s->device, dev)) {
                        char sz[SIZE_FORMAT_MAX];
                        snprintf(buf, n, "%s%s%u %s", base, sep, s->partnum, size_format(s->size, sz, sizeof sz));
                        return;
                }
        }
        snprintf(buf, n, "%s%s%u", base, sep, partnum);
}

static void print_preview_row(FILE *f, const char *host, const char *data, const char *db, const char *wal,
                              const char *cache, const char *store, const char *cls, const char *osd, const char *action) {
        fprintf(f, "%-12s %-46s %-18s %-18s %-20s %-10s %-6s %-7s %s\n", host, data, db, wal, cache, store, cls, osd, action);
}

void plan_print_preview_header(FILE *f) {
        fprintf(f, "OSD PREVIEW\n");
        print_preview_row(f, "HOST", "DATA", "DB", "WAL", "CACHE", "STORE", "CLASS", "OSD", "ACTION");
}

size_t plan_print_preview_rows(const HostPlan *h, FILE *f) {
        size_t rows = 0;
        for (size_t i = 0; i < h->n_steps; i++) {
                const Step *s = &h->steps[i];
                if (s->kind != STEP_CREATE_OSD)
                        continue;
                const PlanDevice *d = plan_device_of(h, s->device);
                char data[160], db[64], wal[64], cache[64] = "-", osd[16] = "?";
                const char *id = d && d->by_id ? (strrchr(d->by_id, '/') ? strrchr(d->by_id, '/') + 1 : d->by_id) : NULL;
                snprintf(data, sizeof data, "%s%s%s%s", s->device, id ? " (" : "", id ? id : "", id ? ")" : "");
                part_cell(h, s->db_device, s->db_partnum, s->db_partname, db, sizeof db);
                part_cell(h, s->wal_device, s->wal_partnum, s->wal_partname, wal, sizeof wal);
                if (s->data_is_bcache)
                        for (size_t j = 0; j < h->n_steps; j++) {
                                const Step *c = &h->steps[j];
                                if (c->kind == STEP_CREATE_PARTITION && c->role == PART_ROLE_CACHE && c->slot == s->slot)
                                        part_cell(h, c->device, c->partnum, c->partname, cache, sizeof cache);
                        }
                if (s->data_is_bcache && streq(cache, "-"))
                        snprintf(cache, sizeof cache, "bcache");
                if (s->osd_id >= 0)
                        snprintf(osd, sizeof osd, "osd.%d", s->osd_id);
                print_preview_row(f, h->host, data, db, wal, cache, objectstore_to_string(s->objectstore),
                                  s->device_class ? s->device_class : "-", osd,
                                  s->half_made_osd_fsid ? (s->encrypted ? "create encrypted (over a half-made OSD)"
                                                                        : "create (over a half-made OSD)")
                                                        : (s->encrypted ? "create encrypted" : "create"));
                rows++;
        }
        return rows;
}

static void print_preview(const Plan *p, FILE *f) {
        plan_print_preview_header(f);
        size_t rows = 0;
        for (size_t k = 0; k < p->n_hosts; k++)
                rows += plan_print_preview_rows(&p->hosts[k], f);
        if (rows == 0)
                fprintf(f, "(no new OSD)\n");
        fputc('\n', f);
}

/* A host's summary under the preview: its step count, and what deserves a look */
void plan_print_host_summary(const HostPlan *h, FILE *f, unsigned flags) {
        if (h->n_steps == 0) {
                fprintf(f, "host %s: nothing to do\n", h->host);
        } else {
                fprintf(f, "host %s: %zu step%s, %u new OSD%s%s\n", h->host, h->n_steps, h->n_steps == 1 ? "" : "s",
                        h->n_new_osds, h->n_new_osds == 1 ? "" : "s", h->n_wipes > 0 ? ", wipes devices" : "");
                print_blast_radius(h, f, flags);
        }
        print_drift(h, f);
        STRV_FOREACH(n, h->notes)
                fprintf(f, "  note: %s\n", *n);
        STRV_FOREACH(n, h->warnings)
                fprintf(f, "  %swarning%s: %s\n", color_on(f, COLOR_WARNING), color_off(f), *n);
}

void plan_print(const Plan *p, FILE *f, unsigned flags) {
        PlanTotals t = {};
        if ((flags & PLAN_PRINT_PREVIEW) && !plan_is_empty(p))
                print_preview(p, f);
        for (size_t i = 0; i < p->n_hosts; i++) {
                if (flags & PLAN_PRINT_PREVIEW)
                        plan_print_host_summary(&p->hosts[i], f, flags);
                else {
                        if (i > 0)
                                fputc('\n', f);
                        plan_print_host(&p->hosts[i], f, flags);
                }
                plan_totals_add(&t, &p->hosts[i]);
        }
        plan_print_totals(&t, p->missing_hosts, p->refused, p->n_refused, f);
        plan_totals_done(&t);
}
