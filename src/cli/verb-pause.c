/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `cephprov pause LAYOUT` and `cephprov resume LAYOUT`: the operator's emergency brake on
 * backfill (nobackfill), also while a drain runs and holds the cluster lock (cluster-steps.h). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "cli.h"
#include "controller/ceph-admin.h"
#include "controller/cluster-steps.h"
#include "options.h"

static int pause_or_resume(const char *verb, bool pause, int argc, char *argv[]) {
        const Verb *v = verb_find(verb);
        _cleanup_(cli_options_done) CliOptions o = {};
        int r = cli_options_parse(v, argc, argv, OPT_JSON, &o);
        if (r != 0)
                return r;
        if (o.n_args != 1)
                return verb_usage_error(v, "expected exactly a layout file");

        Error err = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        if (layout_load_file(o.args[0], &l, &err) < 0)
                return o.json ? cli_report_json(&err) : cli_report(&err);
        _cleanup_(ceph_admin_closep) CephAdmin *a = NULL;
        if (ceph_admin_open(l, &a, &err) < 0)
                return o.json ? cli_report_json(&err) : cli_report(&err);
        ClusterSteps cs = {};
        if (cluster_steps_init(&cs, a, l, &err) < 0)
                return o.json ? cli_report_json(&err) : cli_report(&err);
        char host[256] = "?";
        (void) gethostname(host, sizeof host - 1);
        _cleanup_json_ json_object *res = NULL;
        r = pause ? cluster_pause(&cs, host, &res, &err) : cluster_resume(&cs, &res, &err);
        cluster_steps_done(&cs);
        if (r < 0)
                return o.json ? cli_report_json(&err) : cli_report(&err);

        if (o.json) {
                json_add_string(res, "cluster", a->cluster);
                return cli_print_json_document(pause ? "pause" : "resume", res);
        }
        if (pause) {
                bool already = false, was_set = false;
                (void) json_get_bool(res, "already", false, &already, "pause", NULL);
                (void) json_get_bool(res, "flag_was_set_before", false, &was_set, "pause", NULL);
                printf("cluster '%s' %s: nobackfill is set, no new backfill starts%s\n", a->cluster,
                       already ? "was paused already" : "paused", was_set ? " (it was set before the pause: it stays after)" : "");
                printf("an adaptive throttle keeps the brake on while paused; `cephprov resume %s` releases it\n",
                       o.args[0]);
        } else {
                bool was = false, running = false;
                const char *brake = "none";
                (void) json_get_bool(res, "was_paused", false, &was, "resume", NULL);
                (void) json_get_bool(res, "adaptive_running", false, &running, "resume", NULL);
                (void) json_get_string(res, "brake", false, &brake, "resume", NULL);
                if (!was)
                        printf("cluster '%s' was not paused\n", a->cluster);
                else
                        printf("cluster '%s' resumed\n", a->cluster);
                if (running)
                        printf("the adaptive throttle takes the brake (nobackfill) off once client latency is calm\n");
                else if (streq(brake, "released"))
                        printf("the brake is off: nobackfill unset (unless it was set before the pause)\n");
        }
        return 0;
}

int verb_pause(int argc, char *argv[]) {
        return pause_or_resume("pause", true, argc, argv);
}

int verb_resume(int argc, char *argv[]) {
        return pause_or_resume("resume", false, argc, argv);
}
