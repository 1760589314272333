/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The convert plan for people (text) and programs (JSON, docs/plan.md "convert"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "basic/json-util.h"
#include "basic/size.h"
#include "plan/plan-convert.h"

static const char *role_name(PartRole r) {
        return part_role_to_string(r) ?: "?";
}

static void print_part(const ConvertPart *x, bool created, FILE *f) {
        char s[SIZE_FORMAT_MAX];
        fprintf(f, "    %-14s %4u %10s %10llu MiB  %-22s %s of osd.%d", x->device, x->partnum,
                size_format(x->size, s, sizeof s), (unsigned long long) (x->offset / (1024 * 1024)),
                x->partname ? x->partname : "", part_role_title(x->role), x->osd);
        if (created)
                fprintf(f, " (slot %u)", x->slot);
        else
                fprintf(f, ", %s%s", x->node, x->kept_listed ? ", in keep_partitions" : "");
        fputc('\n', f);
}

static void print_host(const ConvertHost *h, FILE *f, unsigned flags, bool replace) {
        const char *arrow = flags & PLAN_PRINT_UTF8 ? "\u2192" : "->";
        size_t n_rebuilt = 0, n_reshape = 0;
        for (size_t i = 0; i < h->n_osds; i++) {
                n_rebuilt += h->osds[i].rebuilt;
                n_reshape += !h->osds[i].rebuilt;
        }
        fprintf(f, "host %s: %zu OSD%s to rebuild", h->host, n_rebuilt, n_rebuilt == 1 ? "" : "s");
        if (n_reshape > 0)
                fprintf(f, ", %zu need%s --reshape", n_reshape, n_reshape == 1 ? "s" : "");
        if (replace)
                fputc('\n', f);
        else
                fprintf(f, ", %zu already as the layout says%s\n", h->n_unchanged,
                        h->in_crush ? "" : " (no CRUSH host bucket)");
        if (h->n_osds > 0)
                fputs("  OSDs:\n", f);
        for (size_t i = 0; i < h->n_osds; i++) {
                const ConvertOsd *o = &h->osds[i];
                fprintf(f, "    osd.%-5d %-10s slot %-3u %-14s %s %s %s\n", o->id, o->data_device, o->slot,
                        o->rebuilt ? (o->action == CONVERT_REBUILD ? "rebuild" : "reshape") : "needs --reshape", o->from,
                        arrow, o->to);
                for (char **r = o->reasons; r && *r; r++)
                        fprintf(f, "      because: %s\n", *r);
                if (!o->rebuilt)
                        fputs("      not rebuilt: give --reshape to rebuild it in the layout's shape\n", f);
        }
        if (h->n_replaced > 0) {
                fputs("  replaced partitions (the cluster names them; deleted once their OSD is destroyed):\n", f);
                fprintf(f, "    %-14s %4s %10s %14s  %-22s %s\n", "device", "part", "size", "offset", "name", "was");
                for (size_t i = 0; i < h->n_replaced; i++)
                        print_part(&h->replaced[i], false, f);
        }
        if (h->n_created > 0) {
                fputs("  new partitions:\n", f);
                fprintf(f, "    %-14s %4s %10s %14s  %-22s %s\n", "device", "part", "size", "offset", "name", "for");
                for (size_t i = 0; i < h->n_created; i++)
                        print_part(&h->created[i], true, f);
        }
        for (char **k = h->kept; k && *k; k++)
                fprintf(f, "  kept: %s\n", *k);
        for (char **n = h->notes; n && *n; n++)
                fprintf(f, "  note: %s\n", *n);
}

void convert_plan_print(const ConvertPlan *p, FILE *f, unsigned flags) {
        for (size_t i = 0; i < p->n_hosts; i++) {
                if (i > 0)
                        fputc('\n', f);
                print_host(&p->hosts[i], f, flags, p->replace_device != NULL);
        }
        size_t rebuilt = convert_plan_count(p, true), reshape = convert_plan_count(p, false);
        if (p->n_hosts > 0)
                fputc('\n', f);
        if (p->replace_device) {
                fprintf(f, "replace: %s on host %s: %zu OSD%s to rebuild with %s id%s\n", p->replace_device,
                        p->replace_host, rebuilt, rebuilt == 1 ? "" : "s", rebuilt == 1 ? "its" : "their",
                        rebuilt == 1 ? "" : "s");
                return;
        }
        fprintf(f, "convert: %zu OSD%s to rebuild on %zu host%s", rebuilt, rebuilt == 1 ? "" : "s", p->n_hosts,
                p->n_hosts == 1 ? "" : "s");
        if (reshape > 0)
                fprintf(f, "; %zu BlueStore OSD%s differ%s from the layout and need%s --reshape", reshape,
                        reshape == 1 ? "" : "s", reshape == 1 ? "s" : "", reshape == 1 ? "s" : "");
        fputc('\n', f);
        for (char **m = p->missing_hosts; m && *m; m++)
                fprintf(f, "not planned: host %s (no inventory)\n", *m);
}

static void write_part(JsonWriter *w, const ConvertPart *x, bool created) {
        json_writer_begin_object(w, NULL);
        json_writer_string(w, "device", x->device);
        json_writer_u64(w, "partnum", x->partnum);
        json_writer_string(w, "partname", x->partname);
        json_writer_u64(w, "offset", x->offset);
        json_writer_u64(w, "size", x->size);
        json_writer_string(w, "role", role_name(x->role));
        json_writer_int(w, "osd", x->osd);
        if (created)
                json_writer_u64(w, "slot", x->slot);
        else {
                json_writer_string(w, "node", x->node);
                json_writer_bool(w, "in_keep_partitions", x->kept_listed);
        }
        json_writer_end_object(w);
}

/* An OSD's shape as fields: sizes only when there is one, strings only when known */
static void shape_write_json(JsonWriter *w, const char *key, const ConvertShape *s) {
        json_writer_begin_object(w, key);
        json_writer_string(w, "objectstore", s->objectstore);
        json_writer_bool(w, "bcache", s->bcache);
        json_writer_string(w, "journal", s->journal);
        if (s->cache_size)
                json_writer_u64(w, "cache_size", s->cache_size);
        if (s->db_size)
                json_writer_u64(w, "db_size", s->db_size);
        json_writer_string(w, "db_device", s->db_device);
        if (s->wal_size)
                json_writer_u64(w, "wal_size", s->wal_size);
        json_writer_string(w, "wal_device", s->wal_device);
        json_writer_string(w, "fast_device", s->fast_device);
        json_writer_end_object(w);
}

void convert_plan_write_json(const ConvertPlan *p, JsonWriter *w) {
        json_writer_u64(w, "format", PLAN_FORMAT_VERSION);
        json_writer_string(w, "kind", "conversion-plan");
        json_writer_bool(w, "reshape", p->reshape);
        json_writer_u64(w, "n_rebuilt", convert_plan_count(p, true));
        json_writer_u64(w, "n_needs_reshape", convert_plan_count(p, false));
        json_writer_begin_array(w, "hosts");
        for (size_t i = 0; i < p->n_hosts; i++) {
                const ConvertHost *h = &p->hosts[i];
                json_writer_begin_object(w, NULL);
                json_writer_string(w, "host", h->host);
                json_writer_bool(w, "in_crush", h->in_crush);
                json_writer_u64(w, "n_unchanged", h->n_unchanged);
                json_writer_begin_array(w, "osds");
                for (size_t k = 0; k < h->n_osds; k++) {
                        const ConvertOsd *o = &h->osds[k];
                        json_writer_begin_object(w, NULL);
                        json_writer_int(w, "id", o->id);
                        json_writer_string(w, "action", convert_action_to_string(o->action));
                        json_writer_bool(w, "rebuilt", o->rebuilt);
                        json_writer_string(w, "data_device", o->data_device);
                        json_writer_u64(w, "slot", o->slot);
                        json_writer_string(w, "from", o->from);
                        json_writer_string(w, "to", o->to);
                        shape_write_json(w, "now", &o->now);
                        shape_write_json(w, "wanted", &o->wanted);
                        json_writer_strv(w, "reasons", o->reasons);
                        json_writer_end_object(w);
                }
                json_writer_end_array(w);
                json_writer_begin_array(w, "replaced");
                for (size_t k = 0; k < h->n_replaced; k++)
                        write_part(w, &h->replaced[k], false);
                json_writer_end_array(w);
                json_writer_begin_array(w, "created");
                for (size_t k = 0; k < h->n_created; k++)
                        write_part(w, &h->created[k], true);
                json_writer_end_array(w);
                json_writer_strv(w, "kept", h->kept);
                json_writer_begin_array(w, "kept_partitions");
                for (size_t k = 0; k < h->n_kept_parts; k++) {
                        static const char *const why[] = { [CONVERT_KEPT_LISTED] = "keep_partitions",
                                                           [CONVERT_KEPT_OURS] = "cephprov",
                                                           [CONVERT_KEPT_OTHER] = "other" };
                        const ConvertKept *kp = &h->kept_parts[k];
                        json_writer_begin_object(w, NULL);
                        json_writer_string(w, "device", kp->device);
                        json_writer_u64(w, "partnum", kp->partnum);
                        json_writer_string(w, "partname", kp->partname);
                        json_writer_u64(w, "size", kp->size);
                        json_writer_string(w, "why", why[kp->why]);
                        json_writer_bool(w, "looks_like_journal", kp->looks_like_journal);
                        json_writer_end_object(w);
                }
                json_writer_end_array(w);
                json_writer_strv(w, "notes", h->notes);
                json_writer_end_object(w);
        }
        json_writer_end_array(w);
        json_writer_strv(w, "missing_hosts", p->missing_hosts);
        if (p->replace_device) {
                json_writer_begin_object(w, "replace");
                json_writer_string(w, "host", p->replace_host);
                json_writer_string(w, "device", p->replace_device);
                json_writer_end_object(w);
        }
}

int convert_plan_print_json(const ConvertPlan *p, FILE *f) {
        JsonWriter *w = malloc(sizeof(JsonWriter)); /* 64 KiB of buffer: not on the stack */
        if (!w)
                return -ENOMEM;
        json_writer_init(w, f);
        json_writer_begin_object(w, NULL);
        convert_plan_write_json(p, w);
        json_writer_end_object(w);
        int r = json_writer_finish(w);
        free(w);
        return r;
}

json_object *convert_progress_json(const ConvertPlan *p, json_object *records) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *done = json_object_new_array(), *left = json_object_new_array(), *osds = json_object_new_array();
        if (!o || json_add(o, "hosts_done", done) < 0 || json_add(o, "hosts_left", left) < 0 ||
            json_add(o, "osds", osds) < 0)
                return NULL;
        bool have_current = false;
        for (size_t h = 0; h < p->n_hosts; h++) {
                const ConvertHost *ch = &p->hosts[h];
                size_t n = 0, n_converted = 0, n_begun = 0;
                for (size_t k = 0; k < ch->n_osds; k++) {
                        const ConvertOsd *x = &ch->osds[k];
                        if (!x->rebuilt)
                                continue;
                        n++;
                        const char *last = NULL;
                        for (size_t i = 0; i < json_object_array_length(records); i++) {
                                json_object *r = json_object_array_get_idx(records, i), *v;
                                if (!json_object_object_get_ex(r, "event", &v) ||
                                    !streq_ptr(json_object_get_string(v), "convert-phase") ||
                                    !json_object_object_get_ex(r, "host", &v) ||
                                    !streq_ptr(json_object_get_string(v), ch->host) ||
                                    !json_object_object_get_ex(r, "osd_id", &v) || json_object_get_int(v) != x->id ||
                                    !json_object_object_get_ex(r, "phase", &v))
                                        continue;
                                last = json_object_get_string(v);
                        }
                        json_object *e = json_object_new_object();
                        if (!e || json_object_array_add(osds, e) < 0 || json_add_int(e, "id", x->id) < 0 ||
                            json_add_string(e, "host", ch->host) < 0 || (last && json_add_string(e, "phase", last) < 0))
                                return NULL;
                        n_begun += last != NULL;
                        n_converted += streq_ptr(last, "converted");
                }
                if (n == 0)
                        continue;
                if (n_converted == n)
                        json_object_array_add(done, json_object_new_string(ch->host));
                else if (n_begun > 0 && !have_current) {
                        if (json_add_string(o, "current", ch->host) < 0)
                                return NULL;
                        have_current = true;
                } else
                        json_object_array_add(left, json_object_new_string(ch->host));
        }
        return TAKE_PTR(o);
}
