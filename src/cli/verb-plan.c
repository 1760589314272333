/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "cli.h"
#include "controller/hosts.h"
#include "inventory/inventory.h"
#include "layout/layout.h"
#include "options.h"
#include "plan/plan.h"

/* Check that every --hosts name is in the layout. */
static int check_hosts(const Layout *l, char **hosts, Error *err) {
        STRV_FOREACH(h, hosts)
                if (!layout_find_host(l, *h))
                        return error_set(err, ENOENT, "host '%s' given with --hosts is not in layout '%s'", *h, l->path);
        return 0;
}

int verb_plan(int argc, char *argv[]) {
        const Verb *v = verb_find("plan");
        _cleanup_(cli_options_done) CliOptions o = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        int r = cli_options_parse_layout(v, argc, argv, OPT_JSON | OPT_INVENTORY | OPT_HOSTS | OPT_DETAILED_EXITCODE, &o, &l);
        if (r != 0)
                return r;

        Error err = {};
        if (check_hosts(l, o.hosts, &err) < 0)
                return cli_report(&err);

        _cleanup_(plan_freep) Plan *p = NULL;
        _cleanup_(preflight_report_freep) PreflightReport *pre = NULL;
        size_t failed_hosts = 0;
        if (o.inventory) {
                /* offline: from saved inventories */
                _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
                if (inventory_set_load_file(o.inventory, &inv, &err) < 0)
                        return cli_report(&err);
                if (plan_compute(l, inv, &p, &err) < 0)
                        return cli_report(&err);
        } else {
                /* live: the hosts are connected anyway, so say now what apply would refuse */
                _cleanup_(fleet_closep) Fleet *f = NULL;
                _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
                if (controller_plan_live_inventory(l, o.hosts, false, o.json, &f, &p, &inv, &failed_hosts, &err) < 0)
                        return cli_report(&err);
                if (controller_preflight(f, p, inv, STAGE_ALL, false, false, &pre, &err) < 0)
                        return cli_report(&err);
        }

        if (o.hosts)
                plan_filter_hosts(p, o.hosts);

        if (o.json) {
                _cleanup_json_ json_object *j = NULL;
                if (plan_to_json(p, &j) < 0) {
                        error_set(&err, ENOMEM, "cannot format the plan as JSON");
                        return cli_report(&err);
                }
                json_object *pj = NULL;
                if (pre && (preflight_report_to_json(pre, &pj) < 0 || json_add(j, "preflight", pj) < 0)) {
                        error_set(&err, ENOMEM, "cannot format the plan as JSON");
                        return cli_report(&err);
                }
                printf("%s\n", json_to_pretty(j));
        } else {
                plan_print(p, stdout);
                preflight_report_print(pre, stdout);
        }

        /* a refused host is a plan shown, with what apply would refuse: not a failed plan */
        if (failed_hosts > 0)
                return 1; /* the plan is incomplete: the unreachable hosts were reported */
        if (o.detailed_exitcode && !plan_is_empty(p))
                return 10;
        return 0;
}
