/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "cli.h"
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
        int r = cli_options_parse(v, argc, argv, OPT_JSON | OPT_INVENTORY | OPT_HOSTS | OPT_DETAILED_EXITCODE, &o);
        if (r != 0)
                return r;
        if (o.n_args != 1)
                return verb_usage_error(v, "expected one layout file");
        if (!o.inventory)
                return verb_usage_error(v, "live planning over SSH is not built yet: give --inventory FILE");

        Error err = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        if (layout_load_file(o.args[0], &l, &err) < 0)
                return cli_report(&err);
        if (check_hosts(l, o.hosts, &err) < 0)
                return cli_report(&err);

        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        if (inventory_set_load_file(o.inventory, &inv, &err) < 0)
                return cli_report(&err);

        _cleanup_(plan_freep) Plan *p = NULL;
        if (plan_compute(l, inv, &p, &err) < 0)
                return cli_report(&err);

        if (o.hosts)
                plan_filter_hosts(p, o.hosts);

        if (o.json) {
                _cleanup_json_ json_object *j = NULL;
                if (plan_to_json(p, &j) < 0) {
                        error_set(&err, ENOMEM, "cannot format the plan as JSON");
                        return cli_report(&err);
                }
                printf("%s\n", json_to_pretty(j));
        } else
                plan_print(p, stdout);

        if (o.detailed_exitcode && !plan_is_empty(p))
                return 10;
        return 0;
}
