/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent-steps.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/strv.h"
#include "cli.h"
#include "exec/exec.h"
#include "controller/apply-osds.h"
#include "controller/ceph-admin.h"
#include "controller/cluster-lock.h"
#include "controller/cluster-steps.h"
#include "controller/hosts.h"
#include "options.h"
#include "plan/plan.h"

static unsigned stages_of(const char *stage) {
        if (!stage || streq(stage, "all"))
                return STAGE_ALL;
        if (streq(stage, "osds"))
                return STAGE_OSDS;
        return STAGE_DISKS;
}

static size_t steps_in_stages(const Plan *p, unsigned stages) {
        size_t n = 0;
        for (size_t i = 0; i < p->n_hosts; i++)
                for (size_t k = 0; k < p->hosts[i].n_steps; k++)
                        if (step_in_stages(&p->hosts[i].steps[k], stages))
                                n++;
        return n;
}

static int step_request(const Step *s, json_object **ret, Error *err) {
        int r = agent_request_from_step(s, ret);
        if (r < 0)
                return error_set(err, -r, "step #%u (%s on '%s') has no agent request", s->id,
                                 step_kind_to_string(s->kind), s->device);
        return 0;
}

static bool inventory_has_osds(const InventorySet *inv) {
        for (size_t h = 0; h < inv->n_hosts; h++)
                for (size_t d = 0; d < inv->hosts[h]->n_devices; d++)
                        if (inv->hosts[h]->devices[d].content.osd.id >= 0)
                                return true;
        return false;
}

static int lock_guard(void *userdata, Error *err) {
        return ceph_cluster_lock_check(userdata, err);
}

/* The OSD stage needs the cluster: its admin host, ids, the interrupted run's leftovers. */
static int osd_stage_open(const Layout *l, Fleet *f, Journal *j, unsigned parallel, CephAdmin **admin, OsdFlow **ret,
                          Error *err) {
        if (!*admin) {
                int r = ceph_admin_open(l, admin, err);
                if (r < 0)
                        return r;
        }
        return osd_flow_new(l, f, *admin, j, parallel, ret, err);
}

/* A host `cephprov destroy` destroyed is not provisioned again (its disks are blank: apply
 * would make it anew) until the operator removes it from the layout or takes it back with
 * --take-back, which removes the record. *ret_selected is the hosts to apply (NULL: all, as
 * given), *ret_destroyed those left out. The records are the cluster's: a dry run that cannot
 * read them says so and goes on; a real run fails, as it could not take the cluster's lock. */
static int destroyed_hosts_filter(const Layout *l, const CliOptions *o, CephAdmin **admin, char ***ret_selected,
                                  char ***ret_destroyed, Error *err) {
        *ret_selected = *ret_destroyed = NULL;
        if (!l->admin_host)
                return 0;
        _cleanup_strv_free_ char **destroyed = NULL, **selected = NULL, **out = NULL;
        int r = *admin ? 0 : ceph_admin_open(l, admin, err);
        if (r >= 0)
                r = cluster_destroyed_hosts(*admin, &destroyed, err);
        if (r < 0) {
                if (!o->dry_run)
                        return error_prefix(err, r, "reading which hosts were destroyed");
                log_warning("dry run: could not read which hosts were destroyed (%s); planning every host given",
                            err->message);
                error_reset(err);
                return 0;
        }
        for (char **t = o->take_back; t && *t; t++) {
                if (!strv_contains(destroyed, *t)) {
                        log_notice("--take-back %s: the host is not recorded as destroyed; nothing to take back", *t);
                        continue;
                }
                if (o->dry_run)
                        log_notice("dry run: host '%s' would be taken back (its destroyed record removed)", *t);
                else if ((r = cluster_drained_rm(*admin, *t, err)) < 0)
                        return r;
                else
                        log_notice("host '%s' taken back: no longer recorded as destroyed", *t);
        }
        bool any = false;
        for (char **d = destroyed; *d; d++)
                any |= !strv_contains(o->take_back, *d);
        if (!any)
                return 0;
        _cleanup_(freep) const Host **hosts = NULL;
        size_t n = 0;
        if ((r = hosts_select(l, o->hosts, &hosts, &n, err)) < 0)
                return r;
        if (!(selected = calloc(1, sizeof(char *))))
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                const char *h = hosts[i]->name;
                if (strv_contains(destroyed, h) && !strv_contains(o->take_back, h)) {
                        log_error("host '%s' was destroyed (cephprov destroy; recorded in the cluster): apply does not "
                                  "provision it again. Remove it from the layout '%s', or give --take-back %s to "
                                  "provision it anew", h, l->path, h);
                        r = strv_extend(&out, h);
                } else
                        r = strv_extend(&selected, h);
                if (r < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        *ret_selected = TAKE_PTR(selected);
        *ret_destroyed = TAKE_PTR(out);
        return 0;
}

int verb_apply(int argc, char *argv[]) {
        const Verb *v = verb_find("apply");
        _cleanup_(cli_options_done) CliOptions o = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        int r = cli_options_parse_layout(v, argc, argv,
                                         OPT_JSON | OPT_HOSTS | OPT_DRY_RUN | OPT_YES | OPT_STAGE | OPT_PARALLEL |
                                                 OPT_TAKE_BACK,
                                         &o, &l);
        if (r != 0)
                return r;
        unsigned stages = stages_of(o.stage);

        Error err = {};
        for (char **t = o.take_back; t && *t; t++)
                if (!layout_find_host(l, *t)) {
                        error_set(&err, ENOENT, "--take-back: host '%s' is not in the layout '%s'", *t, l->path);
                        return cli_report(&err);
                }

        unsigned parallel_osds = o.parallel;
        if (parallel_osds == 0)
                for (size_t i = 0; i < l->n_hosts; i++)
                        if (l->hosts[i].profile && l->hosts[i].profile->osd.parallel > parallel_osds)
                                parallel_osds = l->hosts[i].profile->osd.parallel;
        if (parallel_osds == 0)
                parallel_osds = 1;

        /* the journal (and its lock) first: an interrupted run's OSD creations are in it */
        _cleanup_(journal_closep) Journal *j = NULL;
        if (!o.dry_run) {
                _cleanup_(freep) char *dir = NULL;
                _cleanup_(freep) char *cmd = strprintf("apply %s", o.args[0]);
                if (journal_default_dir(&dir, &err) < 0 || journal_open(dir, l->cluster_name, cmd, &j, &err) < 0)
                        return cli_report(&err);
                if (j->torn_bytes > 0)
                        log_notice("journal '%s': cut off a record torn by an interrupted run (%llu bytes)", j->path,
                                   (unsigned long long) j->torn_bytes);
        }

        /* Then the cluster's lock, for every stage: the journal's lock serializes the runs of
         * this machine only. A layout without an admin host has no cluster to lock (it can
         * only apply disks). */
        _cleanup_(ceph_cluster_unlockp) CephClusterLock *cluster_lock = NULL;
        _cleanup_(freep) char *token = j ? strprintf("%s.cluster-lock", j->path) : NULL;
        if (j && !token) {
                error_set(&err, ENOMEM, "out of memory");
                return cli_report(&err);
        }
        if (!o.dry_run && l->admin_host && ceph_cluster_lock(l, "apply", token, &cluster_lock, &err) < 0)
                return cli_report(&err);

        _cleanup_(fleet_closep) Fleet *f = NULL;
        _cleanup_(plan_freep) Plan *p = NULL;
        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        _cleanup_(ceph_admin_closep) CephAdmin *admin = NULL;
        _cleanup_(osd_flow_freep) OsdFlow *flow = NULL;
        _cleanup_strv_free_ char **selected = NULL, **destroyed = NULL;
        size_t failed_hosts = 0, n_resume = 0, n_dangling = 0;
        if (destroyed_hosts_filter(l, &o, &admin, &selected, &destroyed, &err) < 0)
                return cli_report(&err);
        if (selected && !selected[0]) {
                log_error("no host left to apply: every host given was destroyed (see above)");
                return 1;
        }
        if (controller_plan_live_inventory(l, selected ? selected : o.hosts, o.dry_run, o.json, &f, &p, &inv,
                                           &failed_hosts, &err) < 0)
                return cli_report(&err);

        /* the cluster only when there are OSDs to make or to check (layouts without an
         * admin host can still apply their disks) */
        bool osd_stage = !o.dry_run && (stages & STAGE_OSDS) &&
                         (osd_flow_count_steps(p, stages) > 0 || inventory_has_osds(inv));
        if (osd_stage) {
                if (osd_stage_open(l, f, j, parallel_osds, &admin, &flow, &err) < 0)
                        return cli_report(&err);
                ceph_admin_set_lock(admin, cluster_lock);
                r = osd_flow_wait_inflight(flow, &err);
                if (r < 0)
                        return cli_report(&err);
                if (r > 0) {
                        /* what those creations left on the disks changes the plan */
                        flow = osd_flow_free(flow);
                        f = fleet_close(f);
                        p = plan_free(p);
                        inv = inventory_set_free(inv);
                        if (controller_plan_live_inventory(l, o.hosts, false, o.json, &f, &p, &inv, &failed_hosts, &err) < 0 ||
                            osd_stage_open(l, f, j, parallel_osds, &admin, &flow, &err) < 0)
                                return cli_report(&err);
                }
                if (osd_flow_scan(flow, inv, &n_resume, &n_dangling, &err) < 0)
                        return cli_report(&err);
                /* a drained host is left as the drain left it: nothing runs there */
                char * const *drained = osd_flow_drained(flow);
                if (drained && drained[0]) {
                        _cleanup_strv_free_ char **keep = NULL;
                        for (size_t i = 0; i < p->n_hosts; i++) {
                                if (!strv_contains(drained, p->hosts[i].host)) {
                                        if (strv_extend(&keep, p->hosts[i].host) < 0) {
                                                error_set(&err, ENOMEM, "out of memory");
                                                return cli_report(&err);
                                        }
                                        continue;
                                }
                                log_notice("host '%s' is drained (cephprov drain): apply leaves its OSDs down and out "
                                           "and changes nothing there, until `cephprov drain --cancel %s %s`",
                                           p->hosts[i].host, o.args[0], p->hosts[i].host);
                        }
                        if (!keep && !(keep = calloc(1, sizeof(char *)))) {
                                error_set(&err, ENOMEM, "out of memory");
                                return cli_report(&err);
                        }
                        plan_filter_hosts(p, keep);
                }
        }

        /* refuse, untouched, a host that lacks what its steps need (before anything runs) */
        _cleanup_(preflight_report_freep) PreflightReport *pre = NULL;
        if (controller_preflight(f, p, inv, stages, !o.dry_run, true, &pre, &err) < 0)
                return cli_report(&err);
        size_t refused = pre->n_refused + strv_length(destroyed);

        size_t n_steps = steps_in_stages(p, stages);
        if (!o.json) {
                plan_print(p, stdout, cli_locale_is_utf8() ? PLAN_PRINT_UTF8 : 0);
                preflight_report_print(pre, stdout);
                if (n_resume > 0)
                        printf("%zu prepared OSD%s not running: to be activated and started\n", n_resume,
                               n_resume == 1 ? "" : "s");
                if (n_dangling > 0)
                        printf("%zu OSD id%s allocated by an interrupted run: to be reused or released\n", n_dangling,
                               n_dangling == 1 ? "" : "s");
                fflush(stdout);
        }

        if (n_steps == 0 && n_resume == 0 && n_dangling == 0) {
                if (o.json) {
                        _cleanup_json_ json_object *jr = json_object_new_object();
                        json_object *pj = NULL;
                        json_add_bool(jr, "converged", !failed_hosts && !refused);
                        json_add_u64(jr, "steps", 0);
                        json_add_u64(jr, "unreachable_hosts", failed_hosts);
                        json_add_u64(jr, "refused_hosts", refused);
                        if (preflight_report_to_json(pre, &pj) >= 0)
                                json_add(jr, "preflight", pj);
                        printf("%s\n", json_to_pretty(jr));
                } else if (stages != STAGE_ALL && plan_count_steps(p) > 0)
                        printf("nothing to do in stage '%s'; %zu step%s of other stages remain (see the plan above)\n",
                               o.stage, plan_count_steps(p), plan_count_steps(p) == 1 ? "" : "s");
                else
                        printf("nothing to do: the hosts match the layout%s\n",
                               failed_hosts || refused ? " (except the unreachable or refused ones above)" : "");
                return failed_hosts || refused ? 1 : 0;
        }

        if (!o.dry_run && !o.yes) {
                char q[128];
                snprintf(q, sizeof q, "apply these %zu steps?", n_steps);
                if (!cli_confirm(q)) {
                        log_error("not confirmed: nothing changed (give --yes to apply without asking, --dry-run to see the requests)");
                        return 1;
                }
        }

        if (j) {
                json_object *fields = json_object_new_object();
                json_add_string(fields, "layout", o.args[0]);
                json_add_u64(fields, "steps", n_steps);
                json_add_u64(fields, "parallel", parallel_osds);
                if (journal_append(j, "apply-start", fields, &err) < 0)
                        return cli_report(&err);
        }

        if (flow && osd_flow_allocate(flow, p, stages, &err) < 0)
                return cli_report(&err);

        _cleanup_(freep) HostLink *links = NULL;
        size_t n_links = 0;
        if ((flow ? osd_flow_links(flow, &links, &n_links) : fleet_links(f, &links, &n_links)) < 0) {
                error_set(&err, ENOMEM, "out of memory");
                return cli_report(&err);
        }

        ExecOptions eo = {
                .parallel_hosts = l->concurrency,
                .parallel_osds = parallel_osds,
                .stages = stages,
                .dry_run = o.dry_run,
                .progress = !o.json && isatty(STDERR_FILENO) ? stderr : NULL,
                .out = o.json ? NULL : stdout,
                .journal = j,
                .step_request = step_request,
                .guard = lock_guard,
                .guard_userdata = cluster_lock,
        };
        _cleanup_(exec_report_freep) ExecReport *rep = NULL;
        Error exec_err = {};
        r = exec_run(p, links, n_links, &eo, &rep, &exec_err);
        if (r < 0 && !rep)
                return cli_report(&exec_err);

        if (!o.json)
                exec_report_print(rep, stdout);

        bool converged = r >= 0 && failed_hosts == 0 && refused == 0;
        Error osd_err = {};
        if (flow) {
                if (osd_flow_finish(flow, 300, &osd_err) < 0) {
                        log_error("%s", osd_err.message);
                        converged = false;
                }
                if (!o.json)
                        osd_flow_print(flow, stdout);
        }

        /* Verify: the hosts as they are now must need nothing more in these stages. */
        size_t left = 0;
        if (!o.dry_run && r >= 0) {
                _cleanup_(plan_freep) Plan *after = NULL;
                size_t failed_after = 0;
                Error verr = {};
                if (controller_plan_live(l, o.hosts, false, true, NULL, &after, &failed_after, &verr) < 0) {
                        log_error("cannot verify the result: %s", verr.message);
                        converged = false;
                } else {
                        left = steps_in_stages(after, stages);
                        if (left > 0) {
                                log_error("after apply, %zu step%s still planned: not converged", left, left == 1 ? " is" : "s are");
                                converged = false;
                        }
                }
        }

        if (j) {
                json_object *fields = json_object_new_object();
                json_add_bool(fields, "converged", converged);
                json_add_u64(fields, "failed", rep->n_failed);
                json_add(fields, "seconds", json_object_new_double(rep->seconds));
                journal_append(j, "apply-end", fields, NULL);
        }

        if (o.json) {
                _cleanup_json_ json_object *jr = NULL;
                if (exec_report_to_json(rep, &jr) >= 0) {
                        json_add_bool(jr, "converged", converged && !o.dry_run);
                        json_add_u64(jr, "unreachable_hosts", failed_hosts);
                        json_add_u64(jr, "refused_hosts", refused);
                        json_object *pj = NULL;
                        if (preflight_report_to_json(pre, &pj) >= 0)
                                json_add(jr, "preflight", pj);
                        json_add_u64(jr, "steps_left", left);
                        json_object *osds = NULL;
                        if (flow && osd_flow_to_json(flow, &osds) >= 0)
                                json_add(jr, "osds", osds);
                        printf("%s\n", json_to_pretty(jr));
                }
        } else if (o.dry_run)
                printf("dry run: nothing changed\n");
        else if (converged)
                printf("converged: every selected step done and verified by a fresh inventory\n");

        if (r < 0)
                log_error("%s", exec_err.message);
        return converged || o.dry_run ? 0 : 1;
}
