/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "cli.h"
#include "controller/apply.h"
#include "options.h"
#include "plan/plan.h"

/* parse → controller_apply() (which shows the plan and asks) → print the result */
int verb_apply(int argc, char *argv[]) {
        const Verb *v = verb_find("apply");
        _cleanup_(cli_options_done) CliOptions o = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        int r = cli_options_parse_layout(v, argc, argv,
                                         OPT_JSON | OPT_HOSTS | OPT_DRY_RUN | OPT_YES | OPT_STAGE | OPT_PARALLEL |
                                                 OPT_TAKE_BACK | OPT_DETAIL,
                                         &o, &l);
        if (r != 0)
                return r;

        ApplyOptions ao = {
                .layout = l,
                .layout_arg = o.args[0],
                .hosts = o.hosts,
                .take_back = o.take_back,
                .stage = o.stage,
                .parallel = o.parallel,
                .dry_run = o.dry_run,
                .yes = o.yes,
                .confirm = cli_confirm,
                .out = o.json ? NULL : stdout,
                .progress = !o.json && isatty(STDERR_FILENO) ? stderr : NULL,
                /* a dry run shows the OSD preview (plan --detail's steps with --detail); a real
                 * run every step it is about to run */
                .plan_print_flags = (cli_locale_is_utf8() ? PLAN_PRINT_UTF8 : 0) |
                                    (o.dry_run && !o.detail ? PLAN_PRINT_PREVIEW : 0),
        };
        _cleanup_(apply_result_freep) ApplyResult *res = NULL;
        Error err = {};
        if (controller_apply(&ao, &res, &err) < 0)
                return o.json ? cli_report_json(&err) : cli_report(&err);

        if (o.json) {
                _cleanup_json_ json_object *jr = NULL;
                if (apply_result_to_json(res, &jr) >= 0)
                        (void) cli_print_json_document("apply", jr);
        } else
                apply_result_print(res, stdout);
        for (char **e = res->errors; e && *e; e++)
                log_error("%s", *e);
        return res->ok ? 0 : 1;
}
