/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "basic/json-util.h"
#include "cli.h"
#include "layout/layout.h"
#include "options.h"

int verb_validate(int argc, char *argv[]) {
        const Verb *v = verb_find("validate");
        _cleanup_(cli_options_done) CliOptions o = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        int r = cli_options_parse_layout(v, argc, argv, OPT_JSON, &o, &l);
        if (r != 0)
                return r;

        Error err = {};

        if (o.json) {
                _cleanup_json_ json_object *j = NULL;
                if (layout_to_json(l, &j) < 0) {
                        error_set(&err, ENOMEM, "cannot format layout '%s' as JSON", o.args[0]);
                        return cli_report(&err);
                }
                printf("%s\n", json_to_pretty(j));
                return 0;
        }

        size_t with_disks = 0;
        for (size_t i = 0; i < l->n_hosts; i++)
                if (l->hosts[i].profile)
                        with_disks++;
        printf("%s: valid: cluster '%s', %zu host%s (%zu with managed disks), %zu profile%s\n",
               o.args[0], l->cluster_name, l->n_hosts, l->n_hosts == 1 ? "" : "s", with_disks,
               l->n_profiles, l->n_profiles == 1 ? "" : "s");
        return 0;
}
