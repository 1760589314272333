/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `cephprov convert LAYOUT`: the convert plan (src/plan/plan-convert.h), shown with
 * --dry-run (offline from saved files too, as `cephprov plan --inventory` plans from saved
 * inventories), or carried out by the conversion job (controller/job.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "basic/log.h"
#include "basic/strv.h"
#include "ceph/ceph.h"
#include "ceph/ceph-cluster.h"
#include "cli.h"
#include "inventory/inventory.h"
#include "layout/layout.h"
#include "options.h"
#include "controller/job.h"
#include "plan/plan-convert.h"

/* The conversion on the live cluster: the job (controller/job.h, job_convert_new()) plans,
 * resumes what a kill interrupted, and runs the shipped convert-filestore playbook on the
 * hosts with OSDs to rebuild. */
static int convert_live(const Layout *l, const CliOptions *o) {
        Error err = {};
        ConvertJobOptions co = { .hosts = o->hosts, .reshape = o->reshape, .drain_first = o->drain_first,
                                 .stop_after_host = o->stop_after_host };
        _cleanup_(job_freep) Job *job = NULL;
        if (cli_check_hosts(l, o->hosts, &err) < 0 || job_convert_new(l, &co, &job, &err) < 0)
                return o->json ? cli_report_json(&err) : cli_report(&err);
        return cli_job(job, o);
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

int cli_offline_plan(const Layout *l, const CliOptions *o, const ConvertOptions *co, ConvertPlan **ret, Error *err) {
        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        _cleanup_(freep) char *tree_text = NULL, *meta_text = NULL;
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *tree = NULL;
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *meta = NULL;
        int r;
        if ((r = inventory_set_load_file(o->inventory, &inv, err)) < 0 ||
            (r = cli_read_text(o->osd_tree, &tree_text, err)) < 0)
                return r;
        if ((r = ceph_osd_tree_parse(tree_text, &tree, err)) < 0)
                return error_prefix(err, r, "'%s'", o->osd_tree);
        if ((r = cli_read_text(o->osd_metadata, &meta_text, err)) < 0)
                return r;
        if ((r = ceph_osd_metadata_parse(meta_text, &meta, err)) < 0)
                return error_prefix(err, r, "'%s'", o->osd_metadata);
        return plan_convert(l, inv, tree, meta, co, ret, err);
}

int cli_print_convert_plan(const ConvertPlan *p, bool json, Error *err) {
        if (json) {
                if (convert_plan_print_json(p, stdout) < 0)
                        return error_set(err, EIO, "cannot write the plan: %s", strerror(errno));
        } else
                convert_plan_print(p, stdout, cli_locale_is_utf8() ? PLAN_PRINT_UTF8 : 0);
        if (fflush(stdout) != 0)
                return error_set(err, EIO, "cannot write the plan: %s", strerror(errno));
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
        ConvertOptions co = { .hosts = o.hosts, .reshape = o.reshape };
        _cleanup_(convert_plan_freep) ConvertPlan *p = NULL;
        if (cli_offline_plan(l, &o, &co, &p, &err) < 0)
                return report(&err);
        STRV_FOREACH(m, p->missing_hosts)
                log_error("host '%s': not in the inventory file '%s': not planned", *m, o.inventory);

        if (cli_print_convert_plan(p, o.json, &err) < 0)
                return cli_report(&err);
        if (convert_plan_check_built(p, NULL, &err) < 0)
                return cli_report(&err);
        return p->missing_hosts ? 1 : 0;
}
