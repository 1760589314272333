/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `cephprov lock status|break|hold LAYOUT`: the cluster lock for operators (and tests). */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basic/clock-util.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/strv.h"
#include "controller/ceph-admin.h"
#include "cli.h"
#include "controller/cluster-lock.h"
#include "options.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig) {
        interrupted = sig;
}

static json_object *record_json(const CephLock *r) {
        if (!r)
                return NULL;
        json_object *o = json_object_new_object();
        json_add_string(o, "host", r->host);
        json_add_int(o, "pid", r->pid);
        json_add_string(o, "command", r->command);
        json_add_string(o, "since", r->since);
        json_add_int(o, "expires", r->expires);
        return o;
}

static int lock_status(CephAdmin *a, bool json) {
        Error err = {};
        ClusterLockStatus s = {};
        if (cluster_lock_status(a, &s, &err) < 0)
                return json ? cli_report_json(&err) : cli_report(&err);
        if (json) {
                _cleanup_json_ json_object *o = json_object_new_object();
                json_add_string(o, "cluster", a->cluster);
                json_add_bool(o, "locked", s.held);
                json_add_bool(o, "expired", s.expired);
                json_add_string(o, "record", s.key_id);
                json_add(o, "holder", record_json(s.record));
                json_add_bool(o, "takeover", s.takeover);
                json_add(o, "takeover_holder", record_json(s.takeover_record));
                (void) cli_print_json_document("lock", o);
        } else
                printf("%s\n", s.message);
        cluster_lock_status_done(&s);
        return 0;
}

static int lock_break(CephAdmin *a, bool yes) {
        Error err = {};
        ClusterLockStatus s = {};
        if (cluster_lock_status(a, &s, &err) < 0)
                return cli_report(&err);
        printf("%s\n", s.message);
        bool expired = !s.held || s.expired;
        cluster_lock_status_done(&s);
        if (!yes && !cli_confirm(expired ? "remove the lock?" : "the lease is still running: remove the lock anyway?")) {
                log_error("not confirmed: the lock stays (give --yes to remove it without asking)");
                return 1;
        }
        unsigned n = 0;
        if (cluster_lock_break(a, &n, &err) < 0)
                return cli_report(&err);
        printf("removed the lock of cluster '%s' (%u object%s)\n", a->cluster, n, n == 1 ? "" : "s");
        return 0;
}

/* Takes the lock, holds it SECONDS (renewing) or until SIGINT/SIGTERM, releases it. Exit 0
 * when it was held the whole time and released, 1 when it could not be taken, was lost, or
 * could not be released. */
static int lock_hold(const Layout *l, const char *seconds) {
        char *end = NULL;
        errno = 0;
        double hold = strtod(seconds, &end);
        if (errno || *end || end == seconds || !(hold >= 0 && hold <= 86400)) {
                log_error("invalid time '%s': expected seconds from 0 to 86400", seconds);
                return EXIT_USAGE;
        }
        Error err = {};
        _cleanup_(ceph_cluster_unlockp) CephClusterLock *lock = NULL;
        if (ceph_cluster_lock(l, "lock hold", NULL, &lock, &err) < 0)
                return cli_report(&err);
        printf("locked cluster '%s' (pid %d)\n", l->cluster_name ? l->cluster_name : "ceph", (int) getpid());
        fflush(stdout);

        struct sigaction sa = { .sa_handler = on_signal };
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        double t0 = clock_mono_sec();
        for (;;) {
                if (ceph_cluster_lock_check(lock, &err) < 0)
                        return cli_report(&err);
                if (interrupted || clock_mono_sec() - t0 >= hold)
                        break;
                usleep(100 * 1000);
        }
        if (ceph_cluster_lock_release(lock, &err) < 0)
                return cli_report(&err);
        printf("released\n");
        return 0;
}

int verb_lock(int argc, char *argv[]) {
        const Verb *v = verb_find("lock");
        _cleanup_(cli_options_done) CliOptions o = {};
        int r = cli_options_parse(v, argc, argv, OPT_JSON | OPT_YES, &o);
        if (r != 0)
                return r;
        if (o.n_args < 2)
                return verb_usage_error(v, "expected an action and a layout file");
        const char *action = o.args[0];
        bool hold = streq(action, "hold");
        if (!hold && !streq(action, "status") && !streq(action, "break"))
                return verb_usage_error(v, "unknown action '%s' (status, break or hold)", action);
        if (o.n_args != (hold ? 3 : 2))
                return verb_usage_error(v, hold ? "hold needs a layout and SECONDS" : "%s needs exactly a layout file",
                                        action);

        /* only status prints JSON: its failures answer in JSON too */
        int (*report)(const Error *) = o.json && streq(action, "status") ? cli_report_json : cli_report;
        Error err = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        if (layout_load_file(o.args[1], &l, &err) < 0)
                return report(&err);
        if (hold)
                return lock_hold(l, o.args[2]);

        _cleanup_(ceph_admin_closep) CephAdmin *a = NULL;
        if (ceph_admin_open(l, &a, &err) < 0)
                return report(&err);
        return streq(action, "status") ? lock_status(a, o.json) : lock_break(a, o.yes);
}
