/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `cephprov replace LAYOUT HOST DEVICE`: a failed device swapped for a new one. The OSDs
 * that depend on DEVICE (the one on it, or, for a fast device, every OSD with its DB/WAL
 * there) are rebuilt with their ids by the conversion's machinery: the convert plan
 * restricted to them (src/plan/plan-convert.h, ConvertOptions.replace_device), its inputs
 * saved before the first change (controller/convert.h), the replace-device playbook. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "basic/log.h"
#include "basic/strv.h"
#include "ceph/ceph.h"
#include "cli.h"
#include "controller/job.h"
#include "inventory/inventory.h"
#include "layout/layout.h"
#include "options.h"
#include "plan/plan-convert.h"

/* Offline, from saved files (--dry-run with --inventory, --osd-tree, --osd-metadata). */
static int replace_offline(const Layout *l, const char *host, const char *device, const CliOptions *o) {
        Error err = {};
        char *hosts[] = { (char *) host, NULL };
        ConvertOptions co = { .hosts = hosts, .replace_device = device };
        _cleanup_(convert_plan_freep) ConvertPlan *p = NULL;
        if (cli_offline_plan(l, o, &co, &p, &err) < 0 || cli_print_convert_plan(p, o->json, &err) < 0)
                return o->json ? cli_report_json(&err) : cli_report(&err);
        return 0;
}

int verb_replace(int argc, char *argv[]) {
        const Verb *v = verb_find("replace");
        _cleanup_(cli_options_done) CliOptions o = {};
        int r = cli_options_parse(v, argc, argv,
                                  OPT_JSON | OPT_DRY_RUN | OPT_YES | OPT_INVENTORY | OPT_OSD_TREE | OPT_OSD_METADATA, &o);
        if (r != 0)
                return r;
        if (o.n_args != 3)
                return verb_usage_error(v, "expected LAYOUT, HOST and DEVICE");
        bool offline;
        if ((r = cli_offline_plan_options(v, &o, &offline)) != 0)
                return r;
        int (*report)(const Error *) = o.json ? cli_report_json : cli_report;
        Error err = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        if (layout_load_file(o.args[0], &l, &err) < 0)
                return report(&err);
        const char *host = o.args[1], *device = o.args[2];
        const Host *h = layout_find_host(l, host);
        if (!h) {
                error_set(&err, ENOENT, "host '%s' is not in the layout '%s'", host, o.args[0]);
                return report(&err);
        }
        if (!h->profile) {
                error_set(&err, EINVAL, "host '%s' has no profile in the layout '%s': it has no devices to replace", host,
                          o.args[0]);
                return report(&err);
        }
        if (offline)
                return replace_offline(l, host, device, &o);

        /* the job saves its plan's inputs before the first change: a re-run after a kill
         * finishes the same plan (controller/job.h) */
        _cleanup_(job_freep) Job *job = NULL;
        if (job_replace_new(l, host, device, &job, &err) < 0)
                return report(&err);
        return cli_job(job, &o);
}
