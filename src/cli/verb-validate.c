/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "cli.h"
#include "layout/layout.h"
#include "options.h"
#include "playbook/playbook.h"
#include "yaml/yaml-tree.h"

static int validate_playbook(const char *path, bool json, char * const *hosts) {
        _cleanup_(playbook_freep) Playbook *pb = NULL;
        Error err = {};

        if (playbook_load(path, &pb, &err) < 0)
                return cli_report(&err);
        if (hosts) {
                /* The plan for these hosts as far as the playbook alone tells it: their OSDs
                 * and failure domains come from the cluster when the playbook runs. */
                size_t n = strv_length(hosts);
                _cleanup_(freep) PlaybookHostFacts *facts = calloc(n, sizeof(PlaybookHostFacts));
                if (!facts) {
                        error_set(&err, ENOMEM, "cannot print the plan of playbook '%s': out of memory", path);
                        return cli_report(&err);
                }
                for (size_t i = 0; i < n; i++)
                        facts[i].host = hosts[i];
                if (json) {
                        _cleanup_json_ json_object *j = NULL;
                        if (playbook_plan_to_json(pb, facts, n, &j) < 0) {
                                error_set(&err, ENOMEM, "cannot format the plan of playbook '%s' as JSON", path);
                                return cli_report(&err);
                        }
                        printf("%s\n", json_to_pretty(j));
                        return 0;
                }
                if (playbook_print_plan(pb, facts, n, stdout) < 0) {
                        error_set(&err, ENOMEM, "cannot print the plan of playbook '%s': out of memory", path);
                        return cli_report(&err);
                }
                return 0;
        }
        if (json) {
                _cleanup_json_ json_object *j = NULL;
                if (playbook_to_json(pb, &j) < 0) {
                        error_set(&err, ENOMEM, "cannot format playbook '%s' as JSON", path);
                        return cli_report(&err);
                }
                printf("%s\n", json_to_pretty(j));
                return 0;
        }
        printf("%s: valid: playbook '%s', %zu before, %zu per host, %zu in the gate, %zu after; hosts %s%s; %s\n", path,
               pb->name, pb->n_steps[PLAYBOOK_BEFORE], pb->n_steps[PLAYBOOK_PER_HOST], pb->n_steps[PLAYBOOK_GATE],
               pb->n_steps[PLAYBOOK_AFTER], playbook_strategy_to_string(pb->strategy), pb->canary ? ", canary first" : "",
               pb->destructive ? "destructive" : "not destructive");
        return 0;
}

static int validate_layout(const char *path, bool json) {
        _cleanup_(layout_freep) Layout *l = NULL;
        Error err = {};

        if (layout_load_file(path, &l, &err) < 0)
                return cli_report(&err);
        if (json) {
                _cleanup_json_ json_object *j = NULL;
                if (layout_to_json(l, &j) < 0) {
                        error_set(&err, ENOMEM, "cannot format layout '%s' as JSON", path);
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
               path, l->cluster_name, l->n_hosts, l->n_hosts == 1 ? "" : "s", with_disks,
               l->n_profiles, l->n_profiles == 1 ? "" : "s");
        return 0;
}

int verb_validate(int argc, char *argv[]) {
        const Verb *v = verb_find("validate");
        _cleanup_(cli_options_done) CliOptions o = {};
        int r = cli_options_parse(v, argc, argv, OPT_JSON | OPT_HOSTS, &o);
        if (r != 0)
                return r;
        if (o.n_args != 1)
                return verb_usage_error(v, "expected one layout or playbook file");

        /* A playbook says so at its top level (`playbook:`); anything else is read as a
         * layout, which also reports a file that cannot be read. */
        _cleanup_(freep) char *data = NULL;
        size_t len;
        if (yaml_file_read(o.args[0], "file", &data, &len, NULL) >= 0 && playbook_text_is_playbook(data, len))
                return validate_playbook(o.args[0], o.json, o.hosts);
        if (o.hosts)
                return verb_usage_error(v, "--hosts applies to a playbook, and '%s' is a layout", o.args[0]);
        return validate_layout(o.args[0], o.json);
}
