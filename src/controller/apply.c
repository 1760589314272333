/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "apply.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/step-requests.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/strv.h"
#include "controller/ceph-admin.h"
#include "controller/cluster-lock.h"
#include "controller/cluster-steps.h"
#include "controller/hosts.h"
#include "controller/osd-progress.h"
#include "exec/journal.h"
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

#define OSD_PROGRESS_INTERVAL 5 /* seconds between the lines of the OSD creations still running */

/* The OSD stage needs the cluster: its admin host, ids, the interrupted run's leftovers. */
static int osd_stage_open(const Layout *l, Fleet *f, Journal *j, unsigned parallel, OsdProgress *progress,
                          CephAdmin **admin, OsdFlow **ret, Error *err) {
        if (!*admin) {
                int r = ceph_admin_open(l, admin, err);
                if (r < 0)
                        return r;
        }
        int r = osd_flow_new(l, f, *admin, j, parallel, ret, err);
        if (r < 0)
                return r;
        osd_flow_set_progress(*ret, progress);
        return 0;
}

/* A host `cephprov destroy` destroyed is not provisioned again (its disks are blank: apply
 * would make it anew) until the operator removes it from the layout or takes it back with
 * --take-back, which removes the record. *ret_selected is the hosts to apply (NULL: all, as
 * given), *ret_destroyed those left out. The records are the cluster's: a dry run that cannot
 * read them says so and goes on; a real run fails, as it could not take the cluster's lock. */
static int destroyed_hosts_filter(const ApplyOptions *o, CephAdmin **admin, char ***ret_selected,
                                  char ***ret_destroyed, Error *err) {
        const Layout *l = o->layout;
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
        for (char * const *t = o->take_back; t && *t; t++) {
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

/* A drained host is left as the drain left it: nothing runs there (its plan is dropped). */
static int drained_hosts_filter(const char *layout_arg, char * const *drained, Plan *p,
                                char ***ret_drained, Error *err) {
        if (!drained || !drained[0])
                return 0;
        _cleanup_strv_free_ char **keep = NULL, **left = NULL;
        for (size_t i = 0; i < p->n_hosts; i++) {
                if (!strv_contains(drained, p->hosts[i].host)) {
                        if (strv_extend(&keep, p->hosts[i].host) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                        continue;
                }
                log_notice("host '%s' is drained (cephprov drain): apply leaves its OSDs down and out "
                           "and changes nothing there, until `cephprov drain --cancel %s %s`",
                           p->hosts[i].host, layout_arg, p->hosts[i].host);
                if (strv_extend(&left, p->hosts[i].host) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        if (!keep && !(keep = calloc(1, sizeof(char *))))
                return error_set(err, ENOMEM, "out of memory");
        plan_filter_hosts(p, keep);
        *ret_drained = TAKE_PTR(left);
        return 0;
}

ApplyResult *apply_result_free(ApplyResult *r) {
        if (!r)
                return NULL;
        free(r->stage);
        strv_free(r->destroyed_hosts);
        strv_free(r->drained_hosts);
        preflight_report_free(r->preflight);
        exec_report_free(r->report);
        osd_outcomes_free(r->osds);
        strv_free(r->errors);
        free(r);
        return NULL;
}

_printf_(2, 3) static int result_add_error(ApplyResult *res, const char *fmt, ...) {
        _cleanup_(freep) char *s = NULL;
        va_list ap;
        va_start(ap, fmt);
        int k = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (k < 0) {
                s = NULL;
                return -ENOMEM;
        }
        return strv_extend(&res->errors, s) < 0 ? -ENOMEM : 0;
}

int controller_apply(const ApplyOptions *o, ApplyResult **ret, Error *err) {
        const Layout *l = o->layout;
        const char *layout_arg = o->layout_arg ? o->layout_arg : l->path;
        bool quiet = !o->out;
        unsigned stages = stages_of(o->stage);
        int r;

        for (char * const *t = o->take_back; t && *t; t++)
                if (!layout_find_host(l, *t))
                        return error_set(err, ENOENT, "--take-back: host '%s' is not in the layout '%s'", *t, l->path);

        unsigned parallel_osds = o->parallel;
        if (parallel_osds == 0)
                for (size_t i = 0; i < l->n_hosts; i++)
                        if (l->hosts[i].profile && l->hosts[i].profile->osd.parallel > parallel_osds)
                                parallel_osds = l->hosts[i].profile->osd.parallel;
        if (parallel_osds == 0)
                parallel_osds = 1;

        /* per-OSD progress at a terminal: outlives the OSD flow that reports to it */
        _cleanup_(osd_progress_freep) OsdProgress *progress = osd_progress_new(o->dry_run ? NULL : o->progress,
                                                                               OSD_PROGRESS_INTERVAL);
        _cleanup_(apply_result_freep) ApplyResult *res = calloc(1, sizeof(ApplyResult));
        if (!res || (o->stage && !(res->stage = strdup(o->stage))))
                return error_set(err, ENOMEM, "out of memory");
        res->stages = stages;
        res->dry_run = o->dry_run;

        /* the journal (and its lock) first: an interrupted run's OSD creations are in it */
        _cleanup_(journal_closep) Journal *j = NULL;
        if (!o->dry_run) {
                _cleanup_(freep) char *dir = NULL;
                _cleanup_(freep) char *cmd = strprintf("apply %s", layout_arg);
                if (!cmd)
                        return error_set(err, ENOMEM, "out of memory");
                if ((r = journal_default_dir(&dir, err)) < 0 || (r = journal_open(dir, l->cluster_name, cmd, &j, err)) < 0)
                        return r;
                if (j->torn_bytes > 0)
                        log_notice("journal '%s': cut off a record torn by an interrupted run (%llu bytes)", j->path,
                                   (unsigned long long) j->torn_bytes);
        }

        /* The connections this run will open, ahead, while it takes the lock: the cluster
         * client's, the lock's own, each host's (host_channel_prewarm; reads nothing) */
        _cleanup_(prewarm_endp) bool prewarmed = true;
        ceph_admin_prewarm(l, o->dry_run ? 1 : 2);
        {
                _cleanup_(freep) const Host **hosts = NULL;
                size_t n = 0;
                Error e = {};
                if (hosts_select(l, o->hosts, &hosts, &n, &e) >= 0)
                        for (size_t i = 0; i < n; i++)
                                host_channel_prewarm(hosts[i], o->dry_run ? HOST_CHANNEL_DRY_RUN : 0, NULL, NULL);
        }

        /* Then the cluster's lock, for every stage: the journal's lock serializes the runs of
         * this machine only. A layout without an admin host has no cluster to lock (it can
         * only apply disks). */
        _cleanup_(ceph_cluster_unlockp) CephClusterLock *cluster_lock = NULL;
        _cleanup_(freep) char *token = j ? strprintf("%s.cluster-lock", j->path) : NULL;
        if (j && !token)
                return error_set(err, ENOMEM, "out of memory");
        if (!o->dry_run && l->admin_host && (r = ceph_cluster_lock(l, "apply", token, &cluster_lock, err)) < 0)
                return r;

        _cleanup_(fleet_closep) Fleet *f = NULL;
        _cleanup_(plan_freep) Plan *p = NULL;
        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        _cleanup_(ceph_admin_closep) CephAdmin *admin = NULL;
        _cleanup_(osd_flow_freep) OsdFlow *flow = NULL;
        _cleanup_strv_free_ char **selected = NULL;
        size_t failed_hosts = 0, n_resume = 0, n_dangling = 0;
        if ((r = destroyed_hosts_filter(o, &admin, &selected, &res->destroyed_hosts, err)) < 0)
                return r;
        if (selected && !selected[0])
                return error_set(err, ENOENT, "no host left to apply: every host given was destroyed (see above)");
        if ((r = controller_plan_live_keep_going(l, selected ? selected : o->hosts, o->dry_run, quiet, &f, &p, &inv,
                                                 &failed_hosts, err)) < 0)
                return r;
        /* every destructive request carries the lease, and none goes once it is lost */
        fleet_set_lock(f, cluster_lock);

        /* the cluster only when there are OSDs to make or to check (layouts without an
         * admin host can still apply their disks) */
        bool osd_stage = !o->dry_run && (stages & STAGE_OSDS) &&
                         (osd_flow_count_steps(p, stages) > 0 || inventory_has_osds(inv));
        if (osd_stage) {
                if ((r = osd_stage_open(l, f, j, parallel_osds, progress, &admin, &flow, err)) < 0)
                        return r;
                ceph_admin_set_lock(admin, cluster_lock);
                r = osd_flow_wait_inflight(flow, err);
                if (r < 0)
                        return r;
                if (r > 0) {
                        /* what those creations left on the disks changes the plan */
                        flow = osd_flow_free(flow);
                        f = fleet_close(f);
                        p = plan_free(p);
                        inv = inventory_set_free(inv);
                        if ((r = controller_plan_live_keep_going(l, selected ? selected : o->hosts, false, quiet, &f, &p, &inv,
                                                                 &failed_hosts, err)) < 0 ||
                            (r = osd_stage_open(l, f, j, parallel_osds, progress, &admin, &flow, err)) < 0)
                                return r;
                        fleet_set_lock(f, cluster_lock);
                        ceph_admin_set_lock(admin, cluster_lock);
                }
                if ((r = osd_flow_scan(flow, inv, &n_resume, &n_dangling, err)) < 0)
                        return r;
                if ((r = drained_hosts_filter(layout_arg, osd_flow_drained(flow), p, &res->drained_hosts, err)) < 0)
                        return r;
        }

        /* what was opened ahead and not taken (a host left out) is closed now, not kept idle
         * through the run */
        host_channel_prewarm_end();

        /* refuse, untouched, a host that lacks what its steps need (before anything runs) */
        if ((r = controller_preflight(f, p, inv, stages, !o->dry_run, true, &res->preflight, err)) < 0)
                return r;
        /* a host the planner refused is left as it is (the plan names it and why) */
        size_t refused = res->preflight->n_refused + strv_length(res->destroyed_hosts) + p->n_refused;
        if (!o->out)
                for (size_t i = 0; i < p->n_refused; i++)
                        if (result_add_error(res, "host %s: not planned: refused: %s", p->refused[i].host,
                                             p->refused[i].message) < 0)
                                return error_set(err, ENOMEM, "out of memory");

        size_t n_steps = steps_in_stages(p, stages);
        res->n_steps = n_steps;
        res->n_plan_steps = plan_count_steps(p);
        res->unreachable_hosts = failed_hosts;
        res->refused_hosts = refused;
        res->n_resume = n_resume;
        res->n_dangling = n_dangling;
        if (o->out) {
                plan_print(p, o->out, o->plan_print_flags);
                preflight_report_print(res->preflight, o->out);
                if (n_resume > 0)
                        fprintf(o->out, "%zu prepared OSD%s not running: to be activated and started\n", n_resume,
                                n_resume == 1 ? "" : "s");
                if (n_dangling > 0)
                        fprintf(o->out, "%zu OSD id%s allocated by an interrupted run: to be reused or released\n",
                                n_dangling, n_dangling == 1 ? "" : "s");
                fflush(o->out);
        }

        if (n_steps == 0 && n_resume == 0 && n_dangling == 0) {
                res->nothing_to_do = true;
                res->converged = res->ok = !failed_hosts && !refused;
                *ret = TAKE_PTR(res);
                return 0;
        }

        if (!o->dry_run && !o->yes) {
                char q[128];
                snprintf(q, sizeof q, "apply these %zu steps?", n_steps);
                if (!o->confirm || !o->confirm(q))
                        return error_set(err, ECANCELED, "not confirmed: nothing changed (give --yes to apply without "
                                                         "asking, --dry-run to see the requests)");
        }

        if (j) {
                json_object *fields = json_object_new_object();
                json_add_string(fields, "layout", layout_arg);
                json_add_u64(fields, "steps", n_steps);
                json_add_u64(fields, "parallel", parallel_osds);
                if ((r = journal_append(j, "apply-start", fields, err)) < 0)
                        return r;
        }

        if (flow && (r = osd_flow_allocate(flow, p, stages, err)) < 0)
                return r;

        _cleanup_(freep) HostLink *links = NULL;
        size_t n_links = 0;
        if ((flow ? osd_flow_links(flow, &links, &n_links) : fleet_links(f, &links, &n_links)) < 0)
                return error_set(err, ENOMEM, "out of memory");

        ExecOptions eo = {
                .parallel_hosts = l->concurrency,
                .parallel_osds = parallel_osds,
                .stages = stages,
                .dry_run = o->dry_run,
                .progress = o->progress,
                .out = o->out,
                .journal = j,
                .step_request = step_request,
                .guard = lock_guard,
                .guard_userdata = cluster_lock,
        };
        Error exec_err = {};
        int rx = exec_run(p, links, n_links, &eo, &res->report, &exec_err);
        if (rx < 0 && !res->report)
                return error_set(err, exec_err.code ? exec_err.code : -rx, "%s", exec_err.message);
        /* the step report now, as the steps' output: the OSDs may take minutes to come up */
        if (o->out)
                exec_report_print(res->report, o->out);

        bool converged = rx >= 0 && failed_hosts == 0 && refused == 0;
        Error osd_err = {};
        if (flow) {
                if (osd_flow_finish(flow, 300, &osd_err) < 0) {
                        if (result_add_error(res, "%s", osd_err.message) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                        converged = false;
                }
                if (osd_flow_outcomes(flow, &res->osds) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }

        /* Verify: the hosts as they are now must need nothing more in these stages. */
        if (!o->dry_run && rx >= 0) {
                _cleanup_(plan_freep) Plan *after = NULL;
                size_t failed_after = 0;
                Error verr = {};
                if (controller_plan_live_keep_going(l, o->hosts, false, true, NULL, &after, NULL,
                                                    &failed_after, &verr) < 0) {
                        if (result_add_error(res, "cannot verify the result: %s", verr.message) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                        converged = false;
                } else {
                        res->steps_left = steps_in_stages(after, stages);
                        if (res->steps_left > 0) {
                                if (result_add_error(res, "after apply, %zu step%s still planned: not converged",
                                                     res->steps_left, res->steps_left == 1 ? " is" : "s are") < 0)
                                        return error_set(err, ENOMEM, "out of memory");
                                converged = false;
                        }
                }
        }

        if (j) {
                json_object *fields = json_object_new_object();
                json_add_bool(fields, "converged", converged);
                json_add_u64(fields, "failed", res->report->n_failed);
                json_add(fields, "seconds", json_object_new_double(res->report->seconds));
                journal_append(j, "apply-end", fields, NULL);
        }

        if (rx < 0 && result_add_error(res, "%s", exec_err.message) < 0)
                return error_set(err, ENOMEM, "out of memory");
        res->converged = converged && !o->dry_run;
        res->ok = converged || o->dry_run;
        *ret = TAKE_PTR(res);
        return 0;
}

int apply_result_to_json(const ApplyResult *r, json_object **ret) {
        _cleanup_json_ json_object *jr = NULL;
        json_object *pj = NULL;
        if (r->nothing_to_do || !r->report) {
                if (!(jr = json_object_new_object()))
                        return -ENOMEM;
                /* the same keys as a run's: nothing ran */
                json_add(jr, "hosts", json_object_new_array());
                json_add_u64(jr, "done", 0);
                json_add_u64(jr, "failed", 0);
                json_add_u64(jr, "skipped", 0);
                json_add(jr, "seconds", json_object_new_double(0));
                json_add_bool(jr, "converged", r->converged);
                json_add_u64(jr, "steps", 0);
                json_add_u64(jr, "unreachable_hosts", r->unreachable_hosts);
                json_add_u64(jr, "refused_hosts", r->refused_hosts);
                if (preflight_report_to_json(r->preflight, &pj) >= 0)
                        json_add(jr, "preflight", pj);
                json_add_u64(jr, "steps_left", 0);
                json_add(jr, "osds", json_object_new_array());
                *ret = TAKE_PTR(jr);
                return 0;
        }
        int k = exec_report_to_json(r->report, &jr);
        if (k < 0)
                return k;
        json_add_bool(jr, "converged", r->converged);
        json_add_u64(jr, "steps", r->report->n_done + r->report->n_failed + r->report->n_skipped);
        json_add_u64(jr, "unreachable_hosts", r->unreachable_hosts);
        json_add_u64(jr, "refused_hosts", r->refused_hosts);
        if (preflight_report_to_json(r->preflight, &pj) >= 0)
                json_add(jr, "preflight", pj);
        json_add_u64(jr, "steps_left", r->steps_left);
        json_object *osds = NULL;
        if (r->osds && osd_outcomes_to_json(r->osds, &osds) >= 0)
                json_add(jr, "osds", osds);
        else
                json_add(jr, "osds", json_object_new_array());
        *ret = TAKE_PTR(jr);
        return 0;
}

void apply_result_print(const ApplyResult *r, FILE *out) {
        if (r->nothing_to_do) {
                if (r->stages != STAGE_ALL && r->n_plan_steps > 0)
                        fprintf(out, "nothing to do in stage '%s'; %zu step%s of other stages remain (see the plan above)\n",
                                r->stage, r->n_plan_steps, r->n_plan_steps == 1 ? "" : "s");
                else
                        fprintf(out, "nothing to do: the hosts match the layout%s\n",
                                r->unreachable_hosts || r->refused_hosts ? " (except the unreachable or refused ones above)"
                                                                         : "");
                return;
        }
        if (r->osds)
                osd_outcomes_print(r->osds, out);
        if (r->dry_run)
                fprintf(out, "dry run: nothing changed\n");
        else if (r->converged)
                fprintf(out, "converged: every selected step done and verified by a fresh inventory\n");
}
