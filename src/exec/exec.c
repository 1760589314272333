/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "exec.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/clock-util.h"
#include "basic/workers.h"
#include "basic/color.h"
#include "basic/json-util.h"
#include "basic/strv.h"

typedef struct Global {
        const ExecOptions *o;
        pthread_mutex_t mu;        /* counters, output, next_host */
        size_t total, finished;
        size_t hosts_total, hosts_finished;
        size_t next_host;
        double start;
} Global;

typedef struct HostRun {
        Global *g;
        const HostPlan *hp;
        const HostLink *link;
        StepState *state;
        pthread_mutex_t mu;
        pthread_cond_t cv;
        unsigned running_serial;
        unsigned running_osd;
        char *log;
        size_t log_len;
        FILE *logf;
        HostReport *report;
} HostRun;

bool step_in_stages(const Step *s, unsigned stages) {
        return step_kind_class(s->kind) == STEP_CLASS_OSD ? (stages & STAGE_OSDS) : (stages & STAGE_DISKS);
}

static const Step *step_by_id(const HostPlan *hp, unsigned id, size_t *ret_index) {
        for (size_t i = 0; i < hp->n_steps; i++)
                if (hp->steps[i].id == id) {
                        *ret_index = i;
                        return &hp->steps[i];
                }
        return NULL;
}

static const char *step_subject(const Step *s) {
        return s->partname ? s->partname : s->device;
}

static void journal_step(HostRun *h, const Step *s, const char *event, const char *error) {
        Journal *j = h->g->o->journal;
        if (!j)
                return;
        json_object *f = json_object_new_object();
        if (!f)
                return;
        json_add_string(f, "host", h->hp->host);
        json_add_int(f, "step", s->id);
        json_add_string(f, "kind", step_kind_to_string(s->kind));
        json_add_string(f, "device", s->device);
        json_add_string(f, "partname", s->partname);
        json_add_string(f, "error", error);
        Error err = {};
        if (journal_append(j, event, f, &err) < 0)
                fprintf(h->logf, "  warning: %s\n", err.message);
}

static void progress_update(Global *g) {
        if (!g->o->progress)
                return;
        fprintf(g->o->progress, "\r[%zu/%zu steps, %zu/%zu hosts done, %.1f s] ", g->finished, g->total,
                g->hosts_finished, g->hosts_total, clock_mono_sec() - g->start);
        fflush(g->o->progress);
}

/* Runs one step outside the host lock. Returns 0 or a negative errno with err set. */
static int step_execute(HostRun *h, const Step *s, Error *err) {
        const ExecOptions *o = h->g->o;
        _cleanup_json_ json_object *req = NULL;

        int r = o->step_request(s, &req, err);
        if (r < 0)
                return r;
        const char *op = json_object_get_string(json_object_object_get(req, "op"));
        json_object *args = json_object_object_get(req, "args");
        if (!op)
                return error_set(err, EINVAL, "host '%s': step #%u (%s) has no agent operation", h->hp->host, s->id,
                                 step_kind_to_string(s->kind));

        if (o->dry_run) {
                pthread_mutex_lock(&h->mu);
                fprintf(h->logf, "  would run %s %s\n", op,
                        json_object_to_json_string_ext(args, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
                pthread_mutex_unlock(&h->mu);
                return 0;
        }

        if (o->guard && (r = o->guard(o->guard_userdata, err)) < 0)
                return r;
        _cleanup_json_ json_object *result = NULL;
        return h->link->call(h->link->userdata, op, args, &result, err);
}

/* Marks pending steps whose dependencies failed as skipped. Called with h->mu held. */
static void skip_orphans(HostRun *h) {
        bool changed = true;
        while (changed) {
                changed = false;
                for (size_t i = 0; i < h->hp->n_steps; i++) {
                        if (h->state[i] != STEP_STATE_PENDING)
                                continue;
                        const Step *s = &h->hp->steps[i];
                        for (size_t d = 0; d < s->n_deps; d++) {
                                size_t k;
                                if (!step_by_id(h->hp, s->deps[d], &k))
                                        continue;
                                if (h->state[k] == STEP_STATE_FAILED || h->state[k] == STEP_STATE_SKIPPED) {
                                        h->state[i] = STEP_STATE_SKIPPED;
                                        h->report->n_skipped++;
                                        fprintf(h->logf, "  skipped  #%u %s %s: step #%u did not succeed\n", s->id,
                                                step_kind_to_string(s->kind), step_subject(s), s->deps[d]);
                                        pthread_mutex_lock(&h->g->mu);
                                        h->g->finished++;
                                        pthread_mutex_unlock(&h->g->mu);
                                        changed = true;
                                        break;
                                }
                        }
                }
        }
}

static bool deps_done(HostRun *h, const Step *s) {
        for (size_t d = 0; d < s->n_deps; d++) {
                size_t k;
                if (step_by_id(h->hp, s->deps[d], &k) && h->state[k] != STEP_STATE_DONE)
                        return false;
        }
        return true;
}

static void *host_worker(void *userdata) {
        HostRun *h = userdata;
        const ExecOptions *o = h->g->o;
        unsigned parallel = o->parallel_osds ? o->parallel_osds : 1;

        pthread_mutex_lock(&h->mu);
        for (;;) {
                skip_orphans(h);

                ssize_t pick = -1;
                bool pending = false, running = h->running_serial + h->running_osd > 0;
                for (size_t i = 0; i < h->hp->n_steps; i++) {
                        if (h->state[i] != STEP_STATE_PENDING)
                                continue;
                        pending = true;
                        const Step *s = &h->hp->steps[i];
                        bool osd = step_kind_class(s->kind) == STEP_CLASS_OSD;
                        if (osd ? h->running_osd >= parallel : h->running_serial > 0)
                                continue;
                        if (!deps_done(h, s))
                                continue;
                        pick = (ssize_t) i;
                        break;
                }

                if (!pending && !running)
                        break;
                if (pick < 0) {
                        if (!pending)
                                break; /* others still run, nothing left to start */
                        pthread_cond_wait(&h->cv, &h->mu);
                        continue;
                }

                const Step *s = &h->hp->steps[pick];
                bool osd = step_kind_class(s->kind) == STEP_CLASS_OSD;
                h->state[pick] = STEP_STATE_RUNNING;
                if (osd)
                        h->running_osd++;
                else
                        h->running_serial++;
                pthread_mutex_unlock(&h->mu);

                journal_step(h, s, "step-start", NULL);
                exec_test_hold(step_kind_to_string(s->kind), false);
                double t0 = clock_mono_sec();
                Error err = {};
                int r = step_execute(h, s, &err);
                double dt = clock_mono_sec() - t0;
                journal_step(h, s, r < 0 ? "step-failed" : "step-done", r < 0 ? err.message : NULL);

                pthread_mutex_lock(&h->mu);
                if (osd)
                        h->running_osd--;
                else
                        h->running_serial--;
                if (r < 0) {
                        h->state[pick] = STEP_STATE_FAILED;
                        h->report->n_failed++;
                        if (!h->report->first_error)
                                h->report->first_error = strdup(err.message);
                        /* coloured for the stream the buffered log is printed to */
                        fprintf(h->logf, "  %sFAILED%s   #%u %s %s (%.1f s): %s\n", color_on(o->out, COLOR_ERROR),
                                color_off(o->out), s->id, step_kind_to_string(s->kind),
                                step_subject(s), dt, err.message);
                } else {
                        h->state[pick] = STEP_STATE_DONE;
                        h->report->n_done++;
                        fprintf(h->logf, "  %-8s #%u %s %s (%.1f s)\n", o->dry_run ? "planned" : "done", s->id,
                                step_kind_to_string(s->kind), step_subject(s), dt);
                }
                pthread_mutex_lock(&h->g->mu);
                h->g->finished++;
                progress_update(h->g);
                pthread_mutex_unlock(&h->g->mu);
                pthread_cond_broadcast(&h->cv);
        }
        pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->mu);
        return NULL;
}

static const HostLink *link_find(const HostLink *links, size_t n, const char *host) {
        for (size_t i = 0; i < n; i++)
                if (streq(links[i].host, host))
                        return &links[i];
        return NULL;
}

static void host_run(HostRun *h) {
        const ExecOptions *o = h->g->o;
        double t0 = clock_mono_sec();
        workers_run(o->parallel_osds ? o->parallel_osds : 1, host_worker, h);
        h->report->seconds = clock_mono_sec() - t0;
}

static void *host_pool_worker(void *userdata) {
        HostRun *runs = userdata;
        Global *g = runs[0].g;

        for (;;) {
                pthread_mutex_lock(&g->mu);
                size_t i = g->next_host++;
                pthread_mutex_unlock(&g->mu);
                if (i >= g->hosts_total)
                        break;

                HostRun *h = &runs[i];
                host_run(h);

                fflush(h->logf);
                pthread_mutex_lock(&g->mu);
                g->hosts_finished++;
                if (g->o->progress)
                        fputs("\r\033[K", g->o->progress);
                if (g->o->out) {
                        HostReport *rep = h->report;
                        fprintf(g->o->out, "host %s: %zu done, %zu failed, %zu skipped (%.1f s)\n%s", h->hp->host,
                                rep->n_done, rep->n_failed, rep->n_skipped, rep->seconds, h->log ? h->log : "");
                        fflush(g->o->out);
                }
                progress_update(g);
                pthread_mutex_unlock(&g->mu);
        }
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
        _cleanup_(exec_report_freep) ExecReport *rep = calloc(1, sizeof(ExecReport));
        if (!rep || !(rep->hosts = calloc(p->n_hosts ? p->n_hosts : 1, sizeof(HostReport))))
                return error_set(err, ENOMEM, "out of memory");
        if (!o->step_request)
                return error_set(err, EINVAL, "executor has no step translator");

        Global g = { .o = o, .hosts_total = p->n_hosts, .start = clock_mono_sec() };
        pthread_mutex_init(&g.mu, NULL);

        HostRun *runs = calloc(p->n_hosts ? p->n_hosts : 1, sizeof(HostRun));
        if (!runs)
                return error_set(err, ENOMEM, "out of memory");

        int r = 0;
        for (size_t i = 0; i < p->n_hosts; i++) {
                const HostPlan *hp = &p->hosts[i];
                HostRun *h = &runs[i];
                h->g = &g;
                h->hp = hp;
                h->report = &rep->hosts[i];
                h->report->host = strdup(hp->host);
                rep->n_hosts++;
                pthread_mutex_init(&h->mu, NULL);
                pthread_cond_init(&h->cv, NULL);
                h->state = calloc(hp->n_steps ? hp->n_steps : 1, sizeof(StepState));
                h->logf = open_memstream(&h->log, &h->log_len);
                if (!h->report->host || !h->state || !h->logf) {
                        r = error_set(err, ENOMEM, "out of memory");
                        break;
                }
                bool any = false;
                for (size_t k = 0; k < hp->n_steps; k++)
                        if (!step_in_stages(&hp->steps[k], o->stages))
                                h->state[k] = STEP_STATE_SKIPPED; /* not selected: not counted */
                        else {
                                any = true;
                                g.total++;
                        }
                h->link = link_find(links, n_links, hp->host);
                if (any && !h->link && !o->dry_run) {
                        r = error_set(err, EINVAL, "no connection to host '%s'", hp->host);
                        break;
                }
        }

        if (r >= 0) {
                unsigned n = o->parallel_hosts ? o->parallel_hosts : 1;
                if (n > p->n_hosts)
                        n = (unsigned) p->n_hosts;
                if (p->n_hosts > 0)
                        workers_run(n, host_pool_worker, runs);
        }

        for (size_t i = 0; i < p->n_hosts; i++) {
                HostRun *h = &runs[i];
                if (h->logf)
                        fclose(h->logf);
                free(h->log);
                free(h->state);
                pthread_mutex_destroy(&h->mu);
                pthread_cond_destroy(&h->cv);
        }
        free(runs);
        pthread_mutex_destroy(&g.mu);
        if (r < 0)
                return r;

        for (size_t i = 0; i < rep->n_hosts; i++) {
                rep->n_done += rep->hosts[i].n_done;
                rep->n_failed += rep->hosts[i].n_failed;
                rep->n_skipped += rep->hosts[i].n_skipped;
        }
        rep->seconds = clock_mono_sec() - g.start;

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
