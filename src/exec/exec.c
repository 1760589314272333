/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "exec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "exec/waves.h"

/* apply's disk plan is run by the wave executor (waves.h): one wave of the plan's hosts that
 * have selected steps, each host's steps a list run by their deps, OSD creations PARALLEL
 * (up to parallel_osds) and every other step HOST_SERIAL. This file only translates: the
 * plan into a WavePlan, the wave report into apply's report. */

bool step_in_stages(const Step *s, unsigned stages) {
        return step_kind_class(s->kind) == STEP_CLASS_OSD ? (stages & STAGE_OSDS) : (stages & STAGE_DISKS);
}

static const char *step_subject(const Step *s) {
        return s->partname ? s->partname : s->device;
}

static ssize_t step_index(const HostPlan *hp, unsigned id) {
        for (size_t i = 0; i < hp->n_steps; i++)
                if (hp->steps[i].id == id)
                        return (ssize_t) i;
        return -1;
}

/* One host as the executor sees it: its selected steps, each with its request. */
typedef struct ExecHost {
        const HostPlan *hp;
        WaveStep *steps;
        size_t n_steps;
        size_t *deps;            /* every step's deps, back to back */
        size_t *plan_index;      /* n_steps: the step's index in hp->steps */
        char **titles;
        size_t n_left_out;       /* selected, but a step it depends on is not */
        char *left_out_log;      /* their lines, for the host's report */
} ExecHost;

static void exec_host_done(ExecHost *h) {
        for (size_t i = 0; i < h->n_steps; i++) {
                json_object_put(h->steps[i].args);
                json_object_put(h->steps[i].record);
        }
        free(h->steps);
        free(h->deps);
        free(h->plan_index);
        strv_free(h->titles);
        free(h->left_out_log);
}

/* The host's steps in the stages, minus those a step outside them must precede (left out,
 * as the plan's own order would leave them: their input is not made by this run). */
static int exec_host_build(ExecHost *h, const HostPlan *hp, const ExecOptions *o, Error *err) {
        *h = (ExecHost) { .hp = hp };
        size_t n = hp->n_steps, n_deps = 0;
        _cleanup_(freep) ssize_t *lane_of = calloc(n ? n : 1, sizeof(ssize_t));
        h->steps = calloc(n ? n : 1, sizeof(WaveStep));
        h->plan_index = calloc(n ? n : 1, sizeof(size_t));
        h->titles = calloc(n + 1, sizeof(char *));
        for (size_t i = 0; i < n; i++)
                n_deps += hp->steps[i].n_deps;
        h->deps = calloc(n_deps ? n_deps : 1, sizeof(size_t));
        _cleanup_(fclosep) FILE *log = NULL;
        size_t log_len = 0;
        if (!lane_of || !h->steps || !h->plan_index || !h->titles || !h->deps ||
            !(log = open_memstream(&h->left_out_log, &log_len)))
                return error_set(err, ENOMEM, "out of memory");

        size_t used_deps = 0;
        for (size_t i = 0; i < n; i++) {
                const Step *s = &hp->steps[i];
                lane_of[i] = -1;
                if (!step_in_stages(s, o->stages))
                        continue;
                /* its deps: in the list (earlier, as the plan orders them) or it is left out */
                const Step *missing = NULL;
                size_t first_dep = used_deps;
                for (size_t d = 0; d < s->n_deps && !missing; d++) {
                        ssize_t k = step_index(hp, s->deps[d]);
                        if (k < 0)
                                continue; /* a step of no list (the plan's own business) */
                        if (lane_of[k] < 0)
                                missing = &hp->steps[k];
                        else
                                h->deps[used_deps++] = (size_t) lane_of[k];
                }
                if (missing) {
                        used_deps = first_dep;
                        h->n_left_out++;
                        fprintf(log, "  skipped  #%u %s %s: step #%u is not run\n", s->id, step_kind_to_string(s->kind),
                                step_subject(s), missing->id);
                        continue;
                }

                _cleanup_json_ json_object *req = NULL;
                int r = o->step_request(s, &req, err);
                if (r < 0)
                        return r;
                if (!json_object_get_string(json_object_object_get(req, "op")))
                        return error_set(err, EINVAL, "host '%s': step #%u (%s) has no agent operation", hp->host,
                                         s->id, step_kind_to_string(s->kind));
                json_object *rec = json_object_new_object();
                char *title = strprintf("#%u %s %s", s->id, step_kind_to_string(s->kind), step_subject(s));
                size_t k = h->n_steps;
                h->titles[k] = title;
                if (!rec || !title) {
                        json_object_put(rec);
                        return error_set(err, ENOMEM, "out of memory");
                }
                /* what apply's resume reads back (journal_unfinished_steps()) */
                json_add_int(rec, "step", s->id);
                json_add_string(rec, "kind", step_kind_to_string(s->kind));
                json_add_string(rec, "device", s->device);
                json_add_string(rec, "partname", s->partname);
                bool osd = step_kind_class(s->kind) == STEP_CLASS_OSD;
                h->steps[k] = (WaveStep) {
                        .name = step_kind_to_string(s->kind),
                        .target = WAVE_TARGET_HOST,
                        .class = osd ? WAVE_CLASS_PARALLEL : WAVE_CLASS_HOST_SERIAL,
                        .args = TAKE_PTR(req),
                        .deps = h->deps + first_dep,
                        .n_deps = used_deps - first_dep,
                        .title = title,
                        .record = rec,
                };
                h->plan_index[k] = i;
                lane_of[i] = (ssize_t) k;
                h->n_steps++;
        }
        if (fflush(log) != 0)
                return error_set(err, ENOMEM, "out of memory");
        return 0;
}

/* The executor's host link: the step's args are apply's whole request, {"op", "args"}. */
static int request_call(void *userdata, const char *name, json_object *req, json_object **ret, Error *err) {
        const HostLink *link = userdata;
        const char *op = json_object_get_string(json_object_object_get(req, "op"));
        json_object *args = json_object_object_get(req, "args");
        _cleanup_json_ json_object *empty = NULL;
        if (!args && !(args = empty = json_object_new_object()))
                return error_set(err, ENOMEM, "out of memory");
        return link->call(link->userdata, op, args, ret, err);
}

static const HostLink *link_find(const HostLink *links, size_t n, const char *host) {
        for (size_t i = 0; i < n; i++)
                if (streq(links[i].host, host))
                        return &links[i];
        return NULL;
}

ExecReport *exec_report_free(ExecReport *r) {
        if (!r)
                return NULL;
        for (size_t i = 0; i < r->n_hosts; i++) {
                free(r->hosts[i].host);
                free(r->hosts[i].first_error);
        }
        free(r->hosts);
        free(r);
        return NULL;
}

int exec_run(const Plan *p, const HostLink *links, size_t n_links, const ExecOptions *o, ExecReport **ret, Error *err) {
        if (!o->step_request)
                return error_set(err, EINVAL, "executor has no step translator");
        _cleanup_(exec_report_freep) ExecReport *rep = calloc(1, sizeof(ExecReport));
        if (!rep || !(rep->hosts = calloc(p->n_hosts ? p->n_hosts : 1, sizeof(HostReport))))
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < p->n_hosts; i++, rep->n_hosts++)
                if (!(rep->hosts[i].host = strdup(p->hosts[i].host)))
                        return error_set(err, ENOMEM, "out of memory");

        ExecHost *eh = calloc(p->n_hosts ? p->n_hosts : 1, sizeof(ExecHost));
        WaveHost *wh = calloc(p->n_hosts ? p->n_hosts : 1, sizeof(WaveHost));
        HostLink *wl = calloc(p->n_hosts ? p->n_hosts : 1, sizeof(HostLink));
        size_t *wave_host = calloc(p->n_hosts ? p->n_hosts : 1, sizeof(size_t)); /* wh[k] is host wave_host[k] */
        unsigned *one_wave = calloc(p->n_hosts ? p->n_hosts : 1, sizeof(unsigned));   /* every host in wave 1 */
        size_t n_built = 0, n_wh = 0, n_wl = 0;
        int r = eh && wh && wl && wave_host && one_wave ? 0 : error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; r >= 0 && i < p->n_hosts; i++, n_built++) {
                r = exec_host_build(&eh[i], &p->hosts[i], o, err);
                if (r < 0 || eh[i].n_steps == 0)
                        continue;
                wave_host[n_wh] = i;
                one_wave[n_wh] = 1;
                wh[n_wh++] = (WaveHost) { .name = p->hosts[i].host, .steps = eh[i].steps, .n_steps = eh[i].n_steps,
                                          .by_deps = true };
                const HostLink *l = link_find(links, n_links, p->hosts[i].host);
                if (l)
                        wl[n_wl++] = (HostLink) { .host = l->host, .call = request_call, .userdata = (void *) l };
                else if (!o->dry_run)
                        r = error_set(err, EINVAL, "no connection to host '%s'", p->hosts[i].host);
        }

        /* the hosts' lines of steps left out come first: nothing of theirs runs */
        for (size_t i = 0; r >= 0 && o->out && i < n_built; i++)
                if (eh[i].n_left_out > 0)
                        fprintf(o->out, "host %s: %zu step%s left out\n%s", eh[i].hp->host, eh[i].n_left_out,
                                eh[i].n_left_out == 1 ? "" : "s", eh[i].left_out_log);

        _cleanup_(wave_report_freep) WaveReport *wr = NULL;
        if (r >= 0 && n_wh > 0) {
                /* one wave: the hosts side by side (parallel_hosts), none waiting for another */
                WavePlan wp = { .id = "apply", .hosts = wh, .n_hosts = n_wh, .waves = one_wave,
                                .on_failure = WAVE_ON_FAILURE_CONTINUE };
                WaveOptions wo = {
                        .parallel_hosts = o->parallel_hosts ? o->parallel_hosts : 1,
                        .parallel_steps = o->parallel_osds ? o->parallel_osds : 1,
                        .host_links = wl,
                        .n_host_links = n_wl,
                        .journal = o->journal,
                        .out = o->out,
                        .progress = o->progress,
                        .dry_run = o->dry_run,
                        .guard = o->guard,
                        .guard_userdata = o->guard_userdata,
                };
                r = waves_run(&wp, &wo, &wr, err);
        }

        for (size_t k = 0; r >= 0 && wr && k < wr->n_hosts; k++) {
                const WaveHostReport *w = &wr->hosts[k];
                HostReport *h = &rep->hosts[wave_host[k]];
                h->n_done = w->n_done;
                h->n_failed = w->n_failed;
                h->n_skipped = w->n_not_run;
                h->seconds = w->seconds;
                if (w->first_error && !(h->first_error = strdup(w->first_error)))
                        r = error_set(err, ENOMEM, "out of memory");
        }
        for (size_t i = 0; r >= 0 && i < n_built; i++)
                rep->hosts[i].n_skipped += eh[i].n_left_out;
        if (wr)
                rep->seconds = wr->seconds;

        for (size_t i = 0; i < n_built; i++)
                exec_host_done(&eh[i]);
        free(eh);
        free(wh);
        free(wl);
        free(wave_host);
        free(one_wave);
        if (r < 0)
                return r;

        for (size_t i = 0; i < rep->n_hosts; i++) {
                rep->n_done += rep->hosts[i].n_done;
                rep->n_failed += rep->hosts[i].n_failed;
                rep->n_skipped += rep->hosts[i].n_skipped;
        }
        bool failed = rep->n_failed > 0;
        *ret = TAKE_PTR(rep);
        if (failed)
                return error_set(err, EIO, "%zu step%s failed", (*ret)->n_failed, (*ret)->n_failed == 1 ? "" : "s");
        return 0;
}

void exec_report_print(const ExecReport *r, FILE *f) {
        fprintf(f, "\n%-20s %6s %6s %7s %8s  %s\n", "HOST", "DONE", "FAILED", "SKIPPED", "TIME", "FIRST ERROR");
        for (size_t i = 0; i < r->n_hosts; i++) {
                const HostReport *h = &r->hosts[i];
                fprintf(f, "%-20s %6zu %6zu %7zu %7.1fs  %s\n", h->host, h->n_done, h->n_failed, h->n_skipped, h->seconds,
                        h->first_error ? h->first_error : "-");
        }
        fprintf(f, "%-20s %6zu %6zu %7zu %7.1fs\n", "total", r->n_done, r->n_failed, r->n_skipped, r->seconds);
}

int exec_report_to_json(const ExecReport *r, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *hosts = json_object_new_array();
        if (!o || json_add(o, "hosts", hosts) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_hosts; i++) {
                const HostReport *h = &r->hosts[i];
                json_object *j = json_object_new_object();
                if (!j || json_object_array_add(hosts, j) < 0)
                        return -ENOMEM;
                json_add_string(j, "host", h->host);
                json_add_u64(j, "done", h->n_done);
                json_add_u64(j, "failed", h->n_failed);
                json_add_u64(j, "skipped", h->n_skipped);
                json_add(j, "seconds", json_object_new_double(h->seconds));
                json_add_string(j, "error", h->first_error);
        }
        json_add_u64(o, "done", r->n_done);
        json_add_u64(o, "failed", r->n_failed);
        json_add_u64(o, "skipped", r->n_skipped);
        json_add(o, "seconds", json_object_new_double(r->seconds));
        json_add_bool(o, "converged", r->n_failed == 0 && r->n_skipped == 0);
        *ret = TAKE_PTR(o);
        return 0;
}
