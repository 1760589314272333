/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `cephprov convert LAYOUT`: the convert plan (src/plan/plan-convert.h), shown with
 * --dry-run (offline from saved files too, as `cephprov plan --inventory` plans from saved
 * inventories), or carried out by the convert-filestore playbook. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "basic/json-writer.h"
#include "basic/log.h"
#include "basic/strv.h"
#include "basic/size.h"
#include "ceph/ceph.h"
#include "ceph/ceph-cluster.h"
#include "controller/ceph-admin.h"
#include "cli.h"
#include "inventory/inventory.h"
#include "layout/layout.h"
#include "options.h"
#include "controller/convert.h"
#include "controller/playbook-run.h"
#include "plan/plan-convert.h"

int cli_save_inputs(void *userdata, CephAdmin *a, const PlaybookHostFacts *hosts, size_t n, Error *err) {
        CliSaveInputs *sc = userdata;
        return convert_inputs_save(sc->l, sc->in, err);
}

static void print_plan(const ConvertPlan *p, bool json) {
        if (json)
                (void) convert_plan_print_json(p, stdout);
        else
                convert_plan_print(p, stdout, cli_locale_is_utf8() ? PLAN_PRINT_UTF8 : 0);
        fflush(stdout);
}

/* The mode and what it costs, per host converted: the data its rebuilt OSDs hold now (`ceph
 * osd df tree`), which comes back onto the new OSDs from the other copies. Without the
 * sizes when the cluster cannot tell. */
static void print_mode_cost(const Layout *l, const ConvertPlan *p, char * const *hosts, bool drain_first) {
        _cleanup_(ceph_admin_closep) CephAdmin *admin = NULL;
        _cleanup_(freep) char *out = NULL;
        _cleanup_(ceph_osd_df_tree_freep) CephOsdDfTree *df = NULL;
        Error e = {};
        if (ceph_admin_open(l, &admin, &e) < 0 ||
            ceph_admin_run(admin, ceph_argv_osd_df_tree(ceph_admin_cli(admin), &e), NULL, &out, &e) < 0 ||
            ceph_osd_df_tree_parse(out, &df, &e) < 0)
                log_debug("no data sizes for the conversion's cost: %s", e.message);
        if (drain_first)
                printf("mode: drain first (playbook convert-filestore-drain): a host's data moves off its OSDs before "
                       "they are destroyed (ids and CRUSH places kept) and back onto the new ones: no PG degraded, the "
                       "data moved twice, and the rest of the cluster must hold it meanwhile (drain-check refuses "
                       "before anything changes), one host at a time\n");
        else
                printf("mode: in place (playbook convert-filestore): a host's OSDs are destroyed at once, their ids "
                       "and CRUSH places kept, and their data comes back onto the new OSDs from the other copies: PGs "
                       "degraded (one copy fewer) until then, the data moved once, one host at a time\n");
        STRV_FOREACH(h, hosts) {
                const ConvertHost *ch = convert_plan_host(p, *h);
                size_t n = 0;
                uint64_t kib = 0;
                for (size_t k = 0; ch && k < ch->n_osds; k++) {
                        if (!ch->osds[k].rebuilt)
                                continue;
                        n++;
                        const CephDfNode *d = df ? ceph_osd_df_tree_find(df, ch->osds[k].id) : NULL;
                        kib += d ? d->kb_used_data : 0;
                }
                char sz[SIZE_FORMAT_MAX];
                if (df)
                        printf("  %s: %zu OSD%s, %s of data to %s\n", *h, n, n == 1 ? "" : "s",
                               size_format(kib * 1024, sz, sizeof(sz)), drain_first ? "move off and back" : "rebuild");
                else
                        printf("  %s: %zu OSD%s\n", *h, n, n == 1 ? "" : "s");
        }
        fflush(stdout);
}

/* The conversion on the live cluster: the plan (saved before the first change, so that a
 * re-run after a kill finishes the same plan: controller/convert.h), then the shipped
 * convert-filestore playbook on the hosts with OSDs to rebuild. */
static int convert_live(const Layout *l, const CliOptions *o) {
        int (*report)(const Error *) = o->json ? cli_report_json : cli_report;
        Error err = {};
        if (cli_check_hosts(l, o->hosts, &err) < 0)
                return report(&err);
        _cleanup_(convert_inputs_freep) ConvertInputs *in = NULL;
        bool resumed = false;
        if (convert_inputs_load(l, o->hosts, o->reshape, o->drain_first, &in, &resumed, &err) < 0)
                return report(&err);
        _cleanup_(convert_plan_freep) ConvertPlan *p = NULL;
        if (convert_inputs_plan(l, in, &p, &err) < 0)
                return report(&err);
        if (resumed) {
                log_notice("resuming the conversion planned before it started (its inputs were saved); the steps "
                           "see how far it got");
                /* the saved plan's kernel names may be other disks now (a reboot since) */
                if (convert_inputs_follow(l, in, p, &err) < 0)
                        return report(&err);
        }
        print_plan(p, o->json);
        _cleanup_strv_free_ char **hosts = NULL;
        for (size_t i = 0; i < p->n_hosts; i++) {
                bool any = false;
                for (size_t k = 0; k < p->hosts[i].n_osds; k++)
                        any = any || p->hosts[i].osds[k].rebuilt;
                if (any && strv_extend(&hosts, p->hosts[i].host) < 0)
                        return log_error("out of memory"), 1;
        }
        if (!hosts) {
                if (!o->json)
                        printf("nothing to convert\n");
                if (convert_inputs_remove(l, &err) < 0)
                        return report(&err);
                return 0;
        }
        if (!o->json)
                print_mode_cost(l, p, hosts, o->drain_first);
        if (o->stop_after_host && strv_length(hosts) > 1) {
                /* the plan's order is the playbook's (serial, the first one the canary) */
                _cleanup_(freep) char *rest = strv_join(hosts + 1, ", ");
                log_notice("--stop-after-host: converting host '%s' only; left for a later run: %s", hosts[0],
                           rest ? rest : "?");
                for (size_t i = 1; hosts[i]; i++) {
                        free(hosts[i]);
                        hosts[i] = NULL;
                }
        }
        /* the plan is printed (what it would do), but not started when a step cannot finish it
         * (on stderr: with --json, stdout has the plan's one document) */
        if (convert_plan_check_built(p, hosts, &err) < 0)
                return cli_report(&err);
        if (o->dry_run)
                return 0;
        CliSaveInputs sc = { .l = l, .in = in };
        PlaybookRunHooks hooks = { .before = resumed ? NULL : cli_save_inputs, .userdata = &sc };
        /* a resumed conversion left its host degraded, its OSDs down and its noout flag on:
         * only going on clears that, so the opening health gate lets those pass — while the
         * only OSDs down are the ones of the host it was converting */
        static char * const resumed_health[] = { "OSD_FLAGS", "OSDMAP_FLAGS", "OSD_DOWN", "OSD_HOST_DOWN",
                                                 "PG_DEGRADED", "PG_AVAILABILITY", NULL };
        _cleanup_(freep) int *own = NULL;
        size_t n_own = 0;
        if (resumed && convert_own_osds(l, p, &own, &n_own, &err) < 0)
                return report(&err);
        PlaybookHealthAllow ha = { .codes = resumed_health, .down = own, .n_down = n_own };
        int r = cli_run_convert(l, hosts, o, p, hooks, resumed ? &ha : NULL);
        if (r == 0 && convert_inputs_remove(l, &err) < 0)
                return report(&err);
        return r;
}

int cli_offline_plan_options(const Verb *v, const CliOptions *o, bool *offline) {
        *offline = o->inventory || o->osd_tree || o->osd_metadata;
        if (*offline && !o->dry_run)
                return verb_usage_error(v, "--inventory, --osd-tree and --osd-metadata plan offline: give --dry-run");
        if (*offline && (!o->inventory || !o->osd_tree || !o->osd_metadata))
                return verb_usage_error(v, "planning from saved files needs all three of --inventory, --osd-tree and "
                                           "--osd-metadata");
        return 0;
}

int verb_convert(int argc, char *argv[]) {
        const Verb *v = verb_find("convert");
        _cleanup_(cli_options_done) CliOptions o = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        int r = cli_options_parse_layout(v, argc, argv,
                                         OPT_JSON | OPT_INVENTORY | OPT_HOSTS | OPT_DRY_RUN | OPT_YES | OPT_RESHAPE |
                                                 OPT_OSD_TREE | OPT_OSD_METADATA | OPT_STOP_AFTER_HOST |
                                                 OPT_DRAIN_FIRST,
                                         &o, &l);
        if (r != 0)
                return r;
        bool offline;
        if ((r = cli_offline_plan_options(v, &o, &offline)) != 0)
                return r;
        if (!offline)
                return convert_live(l, &o);
        int (*report)(const Error *) = o.json ? cli_report_json : cli_report;

        Error err = {};
        if (cli_check_hosts(l, o.hosts, &err) < 0)
                return report(&err);
        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        if (inventory_set_load_file(o.inventory, &inv, &err) < 0)
                return report(&err);
        _cleanup_(freep) char *tree_text = NULL, *meta_text = NULL;
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *tree = NULL;
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *meta = NULL;
        if (cli_read_text(o.osd_tree, &tree_text, &err) < 0)
                return report(&err);
        if ((r = ceph_osd_tree_parse(tree_text, &tree, &err)) < 0) {
                error_prefix(&err, r, "'%s'", o.osd_tree);
                return report(&err);
        }
        if (cli_read_text(o.osd_metadata, &meta_text, &err) < 0)
                return report(&err);
        if ((r = ceph_osd_metadata_parse(meta_text, &meta, &err)) < 0) {
                error_prefix(&err, r, "'%s'", o.osd_metadata);
                return report(&err);
        }

        ConvertOptions co = { .hosts = o.hosts, .reshape = o.reshape };
        _cleanup_(convert_plan_freep) ConvertPlan *p = NULL;
        if (plan_convert(l, inv, tree, meta, &co, &p, &err) < 0)
                return report(&err);
        STRV_FOREACH(m, p->missing_hosts)
                log_error("host '%s': not in the inventory file '%s': not planned", *m, o.inventory);

        if (o.json) {
                if (convert_plan_print_json(p, stdout) < 0) {
                        error_set(&err, EIO, "cannot write the plan: %s", strerror(errno));
                        return cli_report(&err);
                }
        } else
                convert_plan_print(p, stdout, cli_locale_is_utf8() ? PLAN_PRINT_UTF8 : 0);
        if (fflush(stdout) != 0) {
                error_set(&err, EIO, "cannot write the plan: %s", strerror(errno));
                return cli_report(&err);
        }
        if (convert_plan_check_built(p, NULL, &err) < 0)
                return cli_report(&err);
        return p->missing_hosts ? 1 : 0;
}
