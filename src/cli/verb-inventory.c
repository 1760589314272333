/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "basic/json-util.h"
#include "basic/size.h"
#include "basic/strv.h"
#include "cli.h"
#include "controller/hosts.h"
#include "options.h"

static void print_content(const InvContent *c, FILE *out) {
        if (c->fstype)
                fprintf(out, " %s", c->fstype);
        if (c->osd.id >= 0)
                fprintf(out, " osd.%d(%s)", c->osd.id, c->osd.role ? c->osd.role : "?");
        else if (c->osd.unconfirmed) /* a hint (docs/inventory.md): say so, and whose it may be */
                fprintf(out, " %s-%s?(osd-uuid:%s)", c->osd.objectstore ? c->osd.objectstore : "?",
                        c->osd.role ? c->osd.role : "?", c->osd.osd_fsid ? c->osd.osd_fsid : "?");
        if (c->bcache.role != BCACHE_ROLE_NONE)
                fprintf(out, " bcache-%s", bcache_role_to_string(c->bcache.role));
        if (c->mountpoint)
                fprintf(out, " mounted:%s", c->mountpoint);
        if (c->swap_active)
                fprintf(out, " swap-active");
        STRV_FOREACH(h, c->holders)
                fprintf(out, " held-by:%s", *h);
}

static void inventory_print(const Inventory *inv, FILE *out) {
        char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX], c[SIZE_FORMAT_MAX];
        fprintf(out, "host %s (%s)%s\n", inv->host, inv->hostname ? inv->hostname : "?",
                inv->bcache_available ? "" : ", no bcache in kernel");
        fprintf(out, "  %-14s %10s %-4s %-24s %-20s %-5s %s\n", "DEVICE", "SIZE", "TYPE", "MODEL", "SERIAL", "TABLE", "CONTENT");
        for (size_t i = 0; i < inv->n_devices; i++) {
                const InvDevice *d = &inv->devices[i];
                if (!d->allowed)
                        continue;
                fprintf(out, "  %-14s %10s %-4s %-24s %-20s %-5s", d->path, size_format(d->size, a, sizeof a),
                        d->rotational ? "hdd" : "ssd", d->model ? d->model : "-", d->serial ? d->serial : "-",
                        d->pttype ? d->pttype : "-");
                print_content(&d->content, out);
                fputc('\n', out);
                for (size_t k = 0; k < d->n_partitions; k++) {
                        const InvPartition *p = &d->partitions[k];
                        fprintf(out, "    %2u %10s at %-10s %-22s", p->number, size_format(p->size, b, sizeof b),
                                size_format(p->start, c, sizeof c), p->name ? p->name : "-");
                        print_content(&p->content, out);
                        fputc('\n', out);
                }
        }
}

int verb_inventory(int argc, char *argv[]) {
        const Verb *v = verb_find("inventory");
        _cleanup_(cli_options_done) CliOptions o = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        int r = cli_options_parse_layout(v, argc, argv, OPT_JSON | OPT_HOSTS | OPT_SAVE, &o, &l);
        if (r != 0)
                return r;

        Error err = {};
        /* --json: a failure is a JSON error object on stdout too; the inventory JSON itself
         * carries "format" (inventory_set_to_json) */
        int (*report)(const Error *) = o.json ? cli_report_json : cli_report;

        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        _cleanup_(fleet_closep) Fleet *f = NULL;
        size_t failed = 0;
        if (controller_inventory(l, o.hosts, false, o.json, o.json ? &f : NULL, &inv, &failed, &err) < 0)
                return report(&err);

        _cleanup_json_ json_object *j = NULL;
        if ((o.json || o.save) && inventory_set_to_json(inv, &j) < 0) {
                error_set(&err, ENOMEM, "cannot format the inventory as JSON");
                return report(&err);
        }
        if (o.save) {
                if (json_object_to_file_ext(o.save, j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE) < 0) {
                        error_set(&err, EIO, "cannot write inventory to '%s': %s", o.save, json_util_get_last_err());
                        return report(&err);
                }
        }
        if (o.json) {
                /* the hosts that could not be inventoried, by name and why (not in --save's file:
                 * a plan reads the inventories, not who was missing) */
                _cleanup_json_ json_object *unreachable = json_object_new_array();
                for (size_t i = 0; unreachable && f && i < f->n; i++) {
                        if (f->sessions[i].r >= 0)
                                continue;
                        json_object *u = json_object_new_object();
                        if (!u || json_add_string(u, "host", f->sessions[i].host->name) < 0 ||
                            json_add_string(u, "message", f->sessions[i].error.message) < 0 ||
                            json_object_array_add(unreachable, u) < 0) {
                                json_object_put(u);
                                json_object_put(TAKE_PTR(unreachable));
                        }
                }
                if (!unreachable || json_add(j, "unreachable_hosts", json_object_get(unreachable)) < 0) {
                        error_set(&err, ENOMEM, "cannot format the inventory as JSON");
                        return report(&err);
                }
                if (cli_print_json_document("inventory", j) != 0)
                        return 1;
        } else
                for (size_t i = 0; i < inv->n_hosts; i++)
                        inventory_print(inv->hosts[i], stdout);

        return failed > 0 ? 1 : 0;
}
