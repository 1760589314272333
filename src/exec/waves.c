/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "waves.h"
#include "exec.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/clock-util.h"
#include "basic/color.h"
#include "basic/json-util.h"
#include "basic/strv.h"
#include "basic/workers.h"

typedef struct Run Run;

/* One ordered list of steps: `before`, one host's, one gate occurrence, or `after`. */
typedef struct Lane {
        Run *run;
        WavePhase phase;
        unsigned wave;
        const WaveHost *host;         /* NULL for cluster lists */
        WaveHostReport *host_report;  /* NULL for cluster lists */
        const WaveStep *steps;
        size_t n_steps;
        WaveStepReport *reports;      /* n_steps entries inside the run's report */
        const HostLink *link;
        bool failed;                  /* a step of this list failed: start no more of it */
        char *log;
        size_t log_len;
        FILE *logf;                   /* buffered, printed whole when the list ends */
        pthread_mutex_t mu;           /* logf, failed, the PARALLEL group below */
        pthread_cond_t cv;            /* a step of the group ended */
        /* the pool (a PARALLEL group, or a whole by_deps list): its range, each step's state
         * (POOL_*; n_steps entries), what runs */
        size_t pool_first, pool_end;
        unsigned char *state;
        unsigned running_serial, running_parallel;
} Lane;

enum { POOL_PENDING, POOL_RUNNING, POOL_DONE, POOL_NOT_DONE };

struct WaveCall {
        Run *run;
        Lane *lane;
        const WaveStep *step;
        double deadline;              /* CLOCK_MONOTONIC seconds, 0: none */
};

struct Run {
        const WavePlan *p;
        const WaveOptions *o;
        WaveReport *rep;

        pthread_mutex_t mu;           /* everything below, and the output streams */
        pthread_cond_t cv;            /* token released, pause lifted, stop, tick */
        bool stop_new;                /* a failure under STOP, a gate/before failure, a cancel or stop */
        bool interrupted;             /* cancel flag seen or a tick's STOP: running steps are cancelled */
        bool failure_cancels;         /* STOP policy failure: running steps (not `after`) see cancel */
        bool paused;
        bool cluster_token;           /* a CLUSTER_SERIAL step runs */
        bool finished;                /* the tick thread ends */
        WavePhase phase;
        unsigned wave;
        size_t hosts_running, steps_done, steps_total;
        const WaveCall *progress_owner;
        const char *progress_step, *progress_host;
        char *progress_text;
        double progress_fraction, progress_eta;
        double start;

        /* the host pool of the current wave */
        const size_t *queue;
        size_t n_queue, next;
};

static const char *strna(const char *s) {
        return s ? s : "n/a";
}

static void *mfree(void *p) {
        free(p);
        return NULL;
}

static const char *const phase_names[_WAVE_PHASE_MAX] = {
        [WAVE_PHASE_BEFORE] = "before",
        [WAVE_PHASE_HOSTS] = "hosts",
        [WAVE_PHASE_GATE] = "gate",
        [WAVE_PHASE_AFTER] = "after",
};

static const char *const state_names[_WAVE_STEP_STATE_MAX] = {
        [WAVE_STEP_NOT_RUN] = "not-run",
        [WAVE_STEP_DONE] = "done",
        [WAVE_STEP_FAILED] = "failed",
        [WAVE_STEP_CANCELLED] = "cancelled",
        [WAVE_STEP_EARLIER] = "done-earlier",
};

static const char *const status_names[_WAVE_STATUS_MAX] = {
        [WAVE_STATUS_OK] = "ok",
        [WAVE_STATUS_FAILED] = "failed",
        [WAVE_STATUS_CANCELLED] = "cancelled",
        [WAVE_STATUS_STOPPED] = "stopped",
};

const char *wave_phase_to_string(WavePhase p) {
        return p < _WAVE_PHASE_MAX ? phase_names[p] : NULL;
}

const char *wave_step_state_to_string(WaveStepState s) {
        return s < _WAVE_STEP_STATE_MAX ? state_names[s] : NULL;
}

const char *wave_status_to_string(WaveStatus s) {
        return s < _WAVE_STATUS_MAX ? status_names[s] : NULL;
}

char *waves_step_key(WavePhase phase, const char *host, unsigned wave, size_t index, const char *name) {
        switch (phase) {
        case WAVE_PHASE_BEFORE:
                return strprintf("before:%zu:%s", index, name);
        case WAVE_PHASE_HOSTS:
                return strprintf("host:%s:%zu:%s", host, index, name);
        case WAVE_PHASE_GATE:
                return strprintf("gate:%u:%zu:%s", wave, index, name);
        case WAVE_PHASE_AFTER:
                return strprintf("after:%zu:%s", index, name);
        default:
                return NULL;
        }
}

/* ---- waves ---- */

static int waves_given(const WavePlan *p, unsigned **ret_wave_of_host, unsigned *ret_n_waves, Error *err) {
        unsigned n = 0;
        for (size_t i = 0; i < p->n_hosts; i++)
                n = MAX(n, p->waves[i]);
        _cleanup_(freep) bool *seen = calloc(n + 1, sizeof(bool));
        _cleanup_(freep) unsigned *w = calloc(p->n_hosts ? p->n_hosts : 1, sizeof(unsigned));
        if (!seen || !w)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < p->n_hosts; i++) {
                if (p->waves[i] == 0)
                        return error_set(err, EINVAL, "wave plan '%s': host '%s' is in no wave (waves count from 1)",
                                         strna(p->id), p->hosts[i].name);
                seen[p->waves[i]] = true;
                w[i] = p->waves[i];
        }
        for (unsigned k = 1; k <= n; k++)
                if (!seen[k])
                        return error_set(err, EINVAL, "wave plan '%s': wave %u has no host", strna(p->id), k);
        *ret_wave_of_host = TAKE_PTR(w);
        *ret_n_waves = n;
        return 0;
}

int waves_assign(const WavePlan *p, unsigned **ret_wave_of_host, unsigned *ret_n_waves, Error *err) {
        if (p->waves)
                return waves_given(p, ret_wave_of_host, ret_n_waves, err);
        _cleanup_(freep) unsigned *w = calloc(p->n_hosts ? p->n_hosts : 1, sizeof(unsigned));
        if (!w)
                return error_set(err, ENOMEM, "out of memory");
        unsigned waves = 0;
        for (size_t i = 0; i < p->n_hosts; i++)
                w[i] = ++waves;
        *ret_wave_of_host = TAKE_PTR(w);
        *ret_n_waves = waves;
        return 0;
}

/* ---- calls ---- */

static bool run_interrupted_locked(Run *run) {
        if (!run->interrupted && run->o->cancel && *run->o->cancel) {
                run->interrupted = run->stop_new = true;
                if (run->rep->status == WAVE_STATUS_OK) {
                        run->rep->status = WAVE_STATUS_CANCELLED;
                        run->rep->error = strdup("cancelled");
                }
                pthread_cond_broadcast(&run->cv);
        }
        return run->interrupted;
}

bool wave_call_cancelled(const WaveCall *c) {
        if (c->deadline > 0 && clock_mono_sec() >= c->deadline)
                return true;
        if (c->lane->phase == WAVE_PHASE_AFTER)
                return false; /* restores run to their end */
        Run *run = c->run;
        pthread_mutex_lock(&run->mu);
        bool r = run_interrupted_locked(run) || run->failure_cancels;
        pthread_mutex_unlock(&run->mu);
        return r;
}

void wave_call_progress(WaveCall *c, double fraction, double eta_seconds, const char *text) {
        Run *run = c->run;
        char *t = strdup_null(text);
        pthread_mutex_lock(&run->mu);
        free(run->progress_text);
        run->progress_text = t;
        run->progress_owner = c;
        run->progress_step = c->step->name;
        run->progress_host = c->lane->host ? c->lane->host->name : NULL;
        run->progress_fraction = fraction;
        run->progress_eta = eta_seconds;
        pthread_mutex_unlock(&run->mu);
}

const char *wave_call_host(const WaveCall *c) {
        return c->lane->host ? c->lane->host->name : NULL;
}

unsigned wave_call_wave(const WaveCall *c) {
        return c->lane->wave;
}

/* ---- steps ---- */

static const char *lane_subject(const Lane *l) {
        return l->host ? l->host->name : "cluster";
}

/* How the list's report names step i: its title, or "<index> <name>". */
static const char *step_label(const Lane *l, size_t i, char *buf, size_t len) {
        if (l->steps[i].title)
                return l->steps[i].title;
        snprintf(buf, len, "%zu %s", i, l->steps[i].name);
        return buf;
}

static void journal_step(Lane *l, size_t i, const char *event, const Error *e, double seconds) {
        Journal *j = l->run->o->journal;
        if (!j)
                return;
        const WaveStepReport *sr = &l->reports[i];
        json_object *f = json_object_new_object();
        if (!f)
                return;
        json_add_string(f, "waves", l->run->p->id);
        json_add_string(f, "key", sr->key);
        json_add_string(f, "phase", wave_phase_to_string(l->phase));
        json_add_u64(f, "wave", l->wave);
        json_add_string(f, "host", l->host ? l->host->name : NULL);
        json_add_u64(f, "index", i);
        json_add_string(f, "name", l->steps[i].name);
        json_add_string(f, "target", l->steps[i].target == WAVE_TARGET_HOST ? "host" : "cluster");
        if (l->steps[i].record) {
                json_object_object_foreach(l->steps[i].record, k, v)
                        if (!json_object_object_get_ex(f, k, NULL))
                                json_add(f, k, json_object_get(v));
        }
        if (e) {
                json_add_string(f, "error", e->message);
                json_add_string(f, "errno", errno_name(e->code));
        }
        if (seconds >= 0)
                json_add(f, "seconds", json_object_new_double(seconds));
        Error err = {};
        if (journal_append(j, event, f, &err) < 0) {
                pthread_mutex_lock(&l->mu);
                fprintf(l->logf, "  warning: %s\n", err.message);
                pthread_mutex_unlock(&l->mu);
        }
}

static bool step_resumable(const Lane *l, const WaveStep *s) {
        /* only host steps that change something are skipped: waits re-check real state, and
         * before/gate/after re-establish or re-check it (after may have undone before) */
        return l->phase == WAVE_PHASE_HOSTS && s->class != WAVE_CLASS_WAIT && !s->rerun;
}

/* Waits until the step may start. False: it must not (a stop, a failure of its list). */
static bool step_acquire(Lane *l, const WaveStep *s) {
        Run *run = l->run;
        bool restore = l->phase == WAVE_PHASE_AFTER;
        bool ok;

        pthread_mutex_lock(&run->mu);
        for (;;) {
                bool interrupted = run_interrupted_locked(run);
                pthread_mutex_lock(&l->mu);
                bool lane_failed = l->failed;
                pthread_mutex_unlock(&l->mu);
                /* a list run by its deps goes on past a failure: what depends on the
                 * failed step is left out by the list itself */
                if (!restore && (run->stop_new || (lane_failed && !(l->host && l->host->by_deps)))) {
                        ok = false;
                        break;
                }
                /* a pause holds restores too, unless the run is being cancelled: a stuck
                 * controller must not keep the flags set */
                bool held = run->paused && !(restore && interrupted);
                if (!held && !(s->class == WAVE_CLASS_CLUSTER_SERIAL && run->cluster_token)) {
                        if (s->class == WAVE_CLASS_CLUSTER_SERIAL)
                                run->cluster_token = true;
                        ok = true;
                        break;
                }
                pthread_cond_wait(&run->cv, &run->mu);
        }
        pthread_mutex_unlock(&run->mu);
        return ok;
}

static void step_release(Lane *l, const WaveStep *s, const WaveCall *c) {
        Run *run = l->run;
        pthread_mutex_lock(&run->mu);
        if (s->class == WAVE_CLASS_CLUSTER_SERIAL)
                run->cluster_token = false;
        if (run->progress_owner == c) {
                run->progress_owner = NULL;
                run->progress_step = run->progress_host = NULL;
                run->progress_text = mfree(run->progress_text);
        }
        pthread_cond_broadcast(&run->cv);
        pthread_mutex_unlock(&run->mu);
}

static void run_count_step(Run *run) {
        pthread_mutex_lock(&run->mu);
        run->steps_done++;
        pthread_mutex_unlock(&run->mu);
}

/* Records that a list failed; under STOP (and always for before/gates) nothing new starts. */
static void run_note_failure(Lane *l, const char *message) {
        Run *run = l->run;
        pthread_mutex_lock(&l->mu);
        l->failed = true;
        pthread_mutex_unlock(&l->mu);

        pthread_mutex_lock(&run->mu);
        if (run->rep->status == WAVE_STATUS_OK) {
                run->rep->status = WAVE_STATUS_FAILED;
                run->rep->error = strprintf("%s: %s", l->host ? l->host->name : wave_phase_to_string(l->phase), message);
        }
        if (l->phase == WAVE_PHASE_HOSTS ? run->p->on_failure == WAVE_ON_FAILURE_STOP : l->phase != WAVE_PHASE_AFTER) {
                run->stop_new = true;
                run->failure_cancels = true;
        }
        pthread_cond_broadcast(&run->cv);
        pthread_mutex_unlock(&run->mu);
}

static int step_call(Lane *l, const WaveStep *s, WaveCall *c, json_object **ret, Error *err) {
        Run *run = l->run;
        const WaveOptions *o = run->o;
        json_object *args = s->args;
        int r;

        if (o->dry_run) {
                pthread_mutex_lock(&l->mu);
                fprintf(l->logf, "  would run %s on %s %s\n", s->name,
                        s->target == WAVE_TARGET_HOST ? lane_subject(l) : "the cluster",
                        args ? json_object_to_json_string_ext(args, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
                             : "{}");
                pthread_mutex_unlock(&l->mu);
                return 0;
        }
        if (o->guard && (r = o->guard(o->guard_userdata, err)) < 0)
                return r;

        _cleanup_json_ json_object *empty = NULL;
        if (!args && !(args = empty = json_object_new_object()))
                return error_set(err, ENOMEM, "out of memory");
        if (s->target == WAVE_TARGET_HOST)
                r = l->link->call(l->link->userdata, s->name, args, ret, err);
        else
                r = o->cluster->call(o->cluster->userdata, s->name, args, c, ret, err);
        if (r < 0 && !err->code)
                error_set(err, -r, "step '%s' failed: %s", s->name, strerror(-r));
        return r;
}

/* A wait (or `rerun`) host step, or a gate, that an earlier run did is passed, not checked
 * again, once that run went on past it: for a host step, when a later step of that host was
 * done, or every step of that host was; for the gate after wave w, when a host step of a
 * later wave was done. Checking it again would wait on what the steps after it changed: a
 * host converted before a kill would wait for ok-to-stop of the OSDs it rebuilt, and the gate
 * for every PG active+clean, while the next host, half-way, keeps PGs degraded.
 * Never passed: a host step whose next destructive step is not done yet. What it guards
 * has not happened, and the cluster may have changed since (another host failed while the
 * run was dead): ok-to-stop before an in-place destroy is asked again. (Each destructive
 * step asks its own gate at the act as well: destroy-osd and wipe-replaced count the
 * copies left, cluster-steps.c and playbook-run.c.) */
static bool step_passed(const Lane *l, size_t i) {
        const Run *run = l->run;
        char * const *done = run->p->done_keys;
        if (!done || !strv_contains(done, l->reports[i].key))
                return false;
        if (l->phase == WAVE_PHASE_HOSTS) {
                for (size_t k = i + 1; k < l->n_steps; k++)
                        if (l->steps[k].destructive) {
                                if (!strv_contains(done, l->reports[k].key))
                                        return false;
                                break;
                        }
                bool all = true;
                for (size_t k = 0; k < l->n_steps; k++) {
                        if (!step_resumable(l, &l->steps[k]))
                                continue;
                        bool d = strv_contains(done, l->reports[k].key);
                        if (k > i && d)
                                return true;
                        all = all && d;
                }
                return all;
        }
        if (l->phase == WAVE_PHASE_GATE)
                for (size_t k = 0; k < run->rep->n_steps; k++) {
                        const WaveStepReport *x = &run->rep->steps[k];
                        if (x->phase == WAVE_PHASE_HOSTS && x->wave > l->wave && strv_contains(done, x->key))
                                return true;
                }
        return false;
}

static void step_run(Lane *l, size_t i) {
        Run *run = l->run;
        const WaveStep *s = &l->steps[i];
        WaveStepReport *sr = &l->reports[i];

        char lb[64];
        const char *label = step_label(l, i, lb, sizeof(lb));
        if ((step_resumable(l, s) || step_passed(l, i)) && strv_contains(run->p->done_keys, sr->key)) {
                sr->state = WAVE_STEP_EARLIER;
                pthread_mutex_lock(&l->mu);
                fprintf(l->logf, "  earlier  %s: done in an earlier run\n", label);
                pthread_mutex_unlock(&l->mu);
                journal_step(l, i, "wave-step-earlier", NULL, -1);
                run_count_step(run);
                return;
        }
        if (!step_acquire(l, s))
                return; /* stays NOT_RUN */

        WaveCall c = { .run = run, .lane = l, .step = s };
        double t0 = clock_mono_sec();
        if (s->timeout_ms)
                c.deadline = t0 + s->timeout_ms / 1000.0;
        journal_step(l, i, "wave-step-start", NULL, -1);
        exec_test_hold(s->name, false);

        Error err = {};
        _cleanup_json_ json_object *result = NULL;
        int r = step_call(l, s, &c, &result, &err);
        if (r >= 0)
                exec_test_hold(s->name, true);
        double t1 = clock_mono_sec(), dt = t1 - t0;
        step_release(l, s, &c);

        if (c.deadline > 0 && t1 >= c.deadline) {
                /* a bound the playbook asked for: what came back late does not count */
                error_reset(&err);
                r = error_set(&err, ETIMEDOUT, "step '%s' on %s timed out after %.1f s", s->name, lane_subject(l),
                              s->timeout_ms / 1000.0);
        }
        sr->seconds = dt;
        if (r >= 0) {
                sr->state = WAVE_STEP_DONE;
                sr->result = TAKE_PTR(result);
                pthread_mutex_lock(&l->mu);
                fprintf(l->logf, "  %-8s %s (%.1f s)\n", run->o->dry_run ? "planned" : "done", label, dt);
                pthread_mutex_unlock(&l->mu);
                journal_step(l, i, "wave-step-done", NULL, dt);
                run_count_step(run);
                return;
        }

        bool cancelled = false;
        if (err.code != ETIMEDOUT && l->phase != WAVE_PHASE_AFTER) {
                pthread_mutex_lock(&run->mu);
                cancelled = run_interrupted_locked(run) || run->failure_cancels;
                pthread_mutex_unlock(&run->mu);
        }
        sr->state = cancelled ? WAVE_STEP_CANCELLED : WAVE_STEP_FAILED;
        sr->error_code = err.code;
        sr->error = strdup(err.message);
        pthread_mutex_lock(&l->mu);
        /* coloured for the stream the buffered log is printed to */
        fprintf(l->logf, "  %s%-8s%s %s (%.1f s): %s\n", color_on(run->o->out, COLOR_ERROR),
                cancelled ? "CANCELLED" : "FAILED", color_off(run->o->out), label, dt, err.message);
        pthread_mutex_unlock(&l->mu);
        journal_step(l, i, cancelled ? "wave-step-cancelled" : "wave-step-failed", &err, dt);
        run_count_step(run);
        if (cancelled) {
                pthread_mutex_lock(&l->mu);
                l->failed = true;
                pthread_mutex_unlock(&l->mu);
        } else
                run_note_failure(l, err.message);
}

/* ---- steps side by side: a PARALLEL group of a list, or a whole by_deps list ----
 *
 * One pool for both: workers take, in list order, the first pending step of [pool_first,
 * pool_end) that may start now: up to parallel_steps PARALLEL steps and one other step at
 * once, none while a running step holds its `exclusive` key (steps of one device keep their
 * order: the earlier one is always found first), and in a by_deps list only once its deps
 * are done. A group stops at its list's first failure; a by_deps list goes on, leaving out
 * what depends on the failed step. */

/* Leaves out the pending steps with a dependency that was not done, and theirs in turn.
 * Called with l->mu held. */
static void deps_leave_out(Lane *l) {
        for (bool changed = true; changed;) {
                changed = false;
                for (size_t i = l->pool_first; i < l->pool_end; i++) {
                        if (l->state[i] != POOL_PENDING)
                                continue;
                        const WaveStep *s = &l->steps[i];
                        for (size_t d = 0; d < s->n_deps; d++) {
                                if (l->state[s->deps[d]] != POOL_NOT_DONE)
                                        continue;
                                char a[64], b[64];
                                const char *me = step_label(l, i, a, sizeof(a)), *dep = step_label(l, s->deps[d], b, sizeof(b));
                                l->state[i] = POOL_NOT_DONE;
                                l->reports[i].error = strprintf("not run: %s did not succeed", dep);
                                fprintf(l->logf, "  skipped  %s: %s did not succeed\n", me, dep);
                                changed = true;
                                break;
                        }
                }
        }
}

/* Called with l->mu held. */
static bool pool_may_start(const Lane *l, size_t i, unsigned parallel) {
        const WaveStep *s = &l->steps[i];
        if (s->class == WAVE_CLASS_PARALLEL ? l->running_parallel >= parallel : l->running_serial > 0)
                return false;
        for (size_t d = 0; d < s->n_deps; d++)
                if (l->state[s->deps[d]] != POOL_DONE)
                        return false;
        for (size_t j = l->pool_first; s->exclusive && j < l->pool_end; j++)
                if (l->state[j] == POOL_RUNNING && streq_ptr(l->steps[j].exclusive, s->exclusive))
                        return false;
        return true;
}

static void *pool_worker(void *userdata) {
        Lane *l = userdata;
        unsigned parallel = l->run->o->parallel_steps ? l->run->o->parallel_steps : 1;
        bool by_deps = l->host && l->host->by_deps;

        pthread_mutex_lock(&l->mu);
        while (by_deps || !l->failed) {
                if (by_deps)
                        deps_leave_out(l);
                size_t pick = SIZE_MAX;
                bool pending = false;
                for (size_t i = l->pool_first; i < l->pool_end && pick == SIZE_MAX; i++) {
                        if (l->state[i] != POOL_PENDING)
                                continue;
                        pending = true;
                        if (pool_may_start(l, i, parallel))
                                pick = i;
                }
                if (!pending)
                        break;
                if (pick == SIZE_MAX) {
                        pthread_cond_wait(&l->cv, &l->mu);
                        continue;
                }
                bool par = l->steps[pick].class == WAVE_CLASS_PARALLEL;
                l->state[pick] = POOL_RUNNING;
                if (par)
                        l->running_parallel++;
                else
                        l->running_serial++;
                pthread_mutex_unlock(&l->mu);
                step_run(l, pick);
                pthread_mutex_lock(&l->mu);
                if (par)
                        l->running_parallel--;
                else
                        l->running_serial--;
                WaveStepState st = l->reports[pick].state;
                l->state[pick] = st == WAVE_STEP_DONE || st == WAVE_STEP_EARLIER ? POOL_DONE : POOL_NOT_DONE;
                pthread_cond_broadcast(&l->cv);
        }
        pthread_cond_broadcast(&l->cv);
        pthread_mutex_unlock(&l->mu);
        return NULL;
}

/* Runs steps [first, end) of a list in the pool, with `workers` workers (1 at least). */
static void lane_run_pool(Lane *l, size_t first, size_t end, unsigned workers) {
        pthread_mutex_lock(&l->mu);
        l->pool_first = first;
        l->pool_end = end;
        l->running_serial = l->running_parallel = 0;
        pthread_mutex_unlock(&l->mu);
        workers_run(workers, pool_worker, l);
}

/* A by_deps list: all of it in the pool; the steps left out are counted once all is over. */
static void lane_run_deps(Lane *l) {
        lane_run_pool(l, 0, l->n_steps, l->run->o->parallel_steps ? l->run->o->parallel_steps : 1);
        for (size_t i = 0; i < l->n_steps; i++)
                if (l->reports[i].state == WAVE_STEP_NOT_RUN && l->reports[i].error)
                        run_count_step(l->run);
}

/* Consecutive PARALLEL steps [first, end) of a list run in order, up to parallel_steps at once. */
static void lane_run_group(Lane *l, size_t first, size_t end) {
        unsigned n = l->run->o->parallel_steps ? l->run->o->parallel_steps : 1;
        lane_run_pool(l, first, end, n > end - first ? (unsigned) (end - first) : n);
}

static void lane_run(Lane *l) {
        if (l->host && l->host->by_deps) {
                lane_run_deps(l);
                return;
        }
        bool restore = l->phase == WAVE_PHASE_AFTER;
        for (size_t i = 0; i < l->n_steps;) {
                pthread_mutex_lock(&l->mu);
                bool failed = l->failed;
                pthread_mutex_unlock(&l->mu);
                if (failed && !restore)
                        break;
                size_t end = i + 1;
                if (l->steps[i].class == WAVE_CLASS_PARALLEL)
                        while (end < l->n_steps && l->steps[end].class == WAVE_CLASS_PARALLEL)
                                end++;
                if (end - i > 1)
                        lane_run_group(l, i, end);
                else
                        step_run(l, i);
                i = end;
        }
}

static void lane_print(Lane *l) {
        Run *run = l->run;
        fflush(l->logf);
        if (!run->o->out || (l->n_steps == 0 && !l->host))
                return;
        size_t n[_WAVE_STEP_STATE_MAX] = {};
        for (size_t i = 0; i < l->n_steps; i++)
                n[l->reports[i].state]++;
        pthread_mutex_lock(&run->mu);
        if (run->o->progress)
                fputs("\r\033[K", run->o->progress);
        if (l->host)
                fprintf(run->o->out, "host %s (wave %u):", l->host->name, l->wave);
        else if (l->phase == WAVE_PHASE_GATE)
                fprintf(run->o->out, "gate after wave %u:", l->wave);
        else
                fprintf(run->o->out, "%s:", wave_phase_to_string(l->phase));
        fprintf(run->o->out, " %zu done, %zu failed, %zu not run, %zu done earlier\n%s", n[WAVE_STEP_DONE],
                n[WAVE_STEP_FAILED] + n[WAVE_STEP_CANCELLED], n[WAVE_STEP_NOT_RUN], n[WAVE_STEP_EARLIER],
                l->log ? l->log : "");
        fflush(run->o->out);
        pthread_mutex_unlock(&run->mu);
}

static void lane_finish(Lane *l) {
        if (l->logf)
                fclose(l->logf);
        l->logf = NULL;
        free(l->log);
        l->log = NULL;
        l->state = mfree(l->state);
        pthread_cond_destroy(&l->cv);
        pthread_mutex_destroy(&l->mu);
}

static int lane_init(Lane *l, Run *run, WavePhase phase, unsigned wave, const WaveStep *steps, size_t n_steps,
                     WaveStepReport *reports) {
        *l = (Lane) { .run = run, .phase = phase, .wave = wave, .steps = steps, .n_steps = n_steps, .reports = reports };
        pthread_mutex_init(&l->mu, NULL);
        pthread_cond_init(&l->cv, NULL);
        l->state = calloc(n_steps ? n_steps : 1, 1);
        l->logf = l->state ? open_memstream(&l->log, &l->log_len) : NULL;
        if (!l->logf) {
                free(l->state);
                pthread_cond_destroy(&l->cv);
                pthread_mutex_destroy(&l->mu);
                return -ENOMEM;
        }
        return 0;
}

/* Runs one cluster list (before, a gate, after) here. True when none of its steps failed. */
static bool run_cluster_lane(Run *run, WavePhase phase, unsigned wave, const WaveStep *steps, size_t n,
                             WaveStepReport *reports) {
        if (n == 0)
                return true;
        Lane l;
        if (lane_init(&l, run, phase, wave, steps, n, reports) < 0) {
                pthread_mutex_lock(&run->mu);
                if (run->rep->status == WAVE_STATUS_OK) {
                        run->rep->status = WAVE_STATUS_FAILED;
                        run->rep->error = strdup("out of memory");
                }
                run->stop_new = true;
                pthread_mutex_unlock(&run->mu);
                return false;
        }
        pthread_mutex_lock(&run->mu);
        run->phase = phase;
        pthread_mutex_unlock(&run->mu);
        lane_run(&l);
        bool failed = false;
        for (size_t i = 0; i < n; i++)
                if (reports[i].state == WAVE_STEP_FAILED || reports[i].state == WAVE_STEP_CANCELLED)
                        failed = true;
        lane_print(&l);
        lane_finish(&l);
        return !failed;
}

/* ---- hosts ---- */

static const HostLink *link_find(const WaveOptions *o, const char *host) {
        for (size_t i = 0; i < o->n_host_links; i++)
                if (streq(o->host_links[i].host, host))
                        return &o->host_links[i];
        return NULL;
}

typedef struct HostPool {
        Run *run;
        Lane *lanes;    /* one per host of the plan */
} HostPool;

static void *host_pool_worker(void *userdata) {
        HostPool *pool = userdata;
        Run *run = pool->run;

        for (;;) {
                pthread_mutex_lock(&run->mu);
                bool stop = run->stop_new || run_interrupted_locked(run);
                size_t k = stop ? run->n_queue : run->next++;
                if (k < run->n_queue)
                        run->hosts_running++;
                pthread_mutex_unlock(&run->mu);
                if (k >= run->n_queue)
                        return NULL;

                Lane *l = &pool->lanes[run->queue[k]];
                double t0 = clock_mono_sec();
                lane_run(l);
                l->host_report->seconds = clock_mono_sec() - t0;
                lane_print(l);

                pthread_mutex_lock(&run->mu);
                run->hosts_running--;
                pthread_mutex_unlock(&run->mu);
        }
}

static void run_wave(Run *run, HostPool *pool, const size_t *queue, size_t n) {
        pthread_mutex_lock(&run->mu);
        run->queue = queue;
        run->n_queue = n;
        run->next = 0;
        pthread_mutex_unlock(&run->mu);

        unsigned workers = run->o->parallel_hosts ? run->o->parallel_hosts : 1;
        if (workers > n)
                workers = (unsigned) n;
        workers_run(workers, host_pool_worker, pool);
}

/* ---- the tick ---- */

static void progress_line(Run *run, const WaveTick *t) {
        FILE *f = run->o->progress;
        if (!f)
                return;
        fprintf(f, "\r\033[K[%s", wave_phase_to_string(t->phase));
        if (t->wave)
                fprintf(f, ", wave %u/%u, %zu host%s running", t->wave, t->n_waves, t->hosts_running,
                        t->hosts_running == 1 ? "" : "s");
        fprintf(f, ", %zu/%zu steps, %.1f s%s]", t->steps_done, t->steps_total, t->elapsed, t->paused ? ", paused" : "");
        if (t->progress_step) {
                fprintf(f, " %s%s%s", t->progress_host ? t->progress_host : "", t->progress_host ? " " : "", t->progress_step);
                if (t->progress_fraction >= 0)
                        fprintf(f, " %.0f%%", t->progress_fraction * 100);
                if (t->progress_eta >= 0)
                        fprintf(f, " ETA %.0f s", t->progress_eta);
                if (t->progress_text)
                        fprintf(f, " %s", t->progress_text);
        }
        fflush(f);
}

static void *tick_worker(void *userdata) {
        Run *run = userdata;
        unsigned ms = run->o->tick_ms ? run->o->tick_ms : 200;

        pthread_mutex_lock(&run->mu);
        for (;;) {
                struct timespec ts = clock_after_ms(CLOCK_REALTIME, ms);
                while (!run->finished)
                        if (pthread_cond_timedwait(&run->cv, &run->mu, &ts) == ETIMEDOUT)
                                break;
                if (run->finished)
                        break;
                run_interrupted_locked(run); /* the signal handler cannot wake anyone */

                /* a copy, so the hook (which may take long: the throttle controller asks
                 * the cluster) runs without the lock */
                _cleanup_(freep) char *text = strdup_null(run->progress_text);
                WaveTick t = {
                        .phase = run->phase,
                        .wave = run->phase == WAVE_PHASE_HOSTS || run->phase == WAVE_PHASE_GATE ? run->wave : 0,
                        .n_waves = run->rep->n_waves,
                        .hosts_running = run->hosts_running,
                        .steps_done = run->steps_done,
                        .steps_total = run->steps_total,
                        .elapsed = clock_mono_sec() - run->start,
                        .paused = run->paused,
                        .progress_step = run->progress_step,
                        .progress_host = run->progress_host,
                        .progress_text = text,
                        .progress_fraction = run->progress_owner ? run->progress_fraction : -1,
                        .progress_eta = run->progress_owner ? run->progress_eta : -1,
                };
                pthread_mutex_unlock(&run->mu);

                WaveTickAction a = run->o->tick ? run->o->tick(run->o->tick_userdata, &t) : WAVE_TICK_RUN;
                progress_line(run, &t);

                pthread_mutex_lock(&run->mu);
                run->paused = a == WAVE_TICK_PAUSE;
                if (a == WAVE_TICK_STOP && !run->interrupted) {
                        run->interrupted = run->stop_new = true;
                        if (run->rep->status == WAVE_STATUS_OK) {
                                run->rep->status = WAVE_STATUS_STOPPED;
                                run->rep->error = strdup("stopped by a controller");
                        }
                }
                pthread_cond_broadcast(&run->cv);
        }
        pthread_mutex_unlock(&run->mu);
        return NULL;
}

/* ---- the run ---- */

WaveReport *wave_report_free(WaveReport *r) {
        if (!r)
                return NULL;
        for (size_t i = 0; i < r->n_steps; i++) {
                free(r->steps[i].key);
                free(r->steps[i].error);
                json_object_put(r->steps[i].result);
        }
        for (size_t i = 0; i < r->n_hosts; i++)
                free(r->hosts[i].first_error);
        free(r->steps);
        free(r->hosts);
        free(r->waves);
        free(r->wave_hosts);
        free(r->error);
        free(r);
        return NULL;
}

static int plan_validate(const WavePlan *p, const WaveOptions *o, Error *err) {
        const char *id = strna(p->id);
        bool cluster = p->n_before + p->n_gate + p->n_after > 0;

        for (size_t i = 0; i < p->n_hosts; i++) {
                const WaveHost *h = &p->hosts[i];
                if (isempty(h->name))
                        return error_set(err, EINVAL, "wave plan '%s': host #%zu has no name", id, i);
                for (size_t k = 0; k < i; k++)
                        if (streq(p->hosts[k].name, h->name))
                                return error_set(err, EINVAL, "wave plan '%s': host '%s' is listed twice", id, h->name);
                bool host_steps = false;
                for (size_t k = 0; k < h->n_steps; k++) {
                        if (isempty(h->steps[k].name))
                                return error_set(err, EINVAL, "wave plan '%s': step #%zu of host '%s' has no name", id, k,
                                                 h->name);
                        if (h->steps[k].target == WAVE_TARGET_HOST)
                                host_steps = true;
                        else
                                cluster = true;
                        /* deps point back: no cycle, and every step can start in time */
                        for (size_t d = 0; d < h->steps[k].n_deps; d++)
                                if (!h->by_deps || h->steps[k].deps[d] >= k)
                                        return error_set(err, EINVAL,
                                                         "wave plan '%s': step #%zu (%s) of host '%s' depends on step #%zu, "
                                                         "which %s", id, k, h->steps[k].name, h->name, h->steps[k].deps[d],
                                                         !h->by_deps ? "a list run in order cannot say"
                                                                     : "does not come before it");
                }
                if (host_steps && !o->dry_run && !link_find(o, h->name))
                        return error_set(err, EINVAL, "wave plan '%s': no connection to host '%s'", id, h->name);
        }
        const WaveStep *lists[] = { p->before, p->gate, p->after };
        size_t lens[] = { p->n_before, p->n_gate, p->n_after };
        for (size_t k = 0; k < ELEMENTSOF(lists); k++)
                for (size_t i = 0; i < lens[k]; i++) {
                        if (isempty(lists[k][i].name))
                                return error_set(err, EINVAL, "wave plan '%s': a cluster step has no name", id);
                        if (lists[k][i].target != WAVE_TARGET_CLUSTER)
                                return error_set(err, EINVAL,
                                                 "wave plan '%s': step '%s' is a host step in a cluster list (before, gate, after)",
                                                 id, lists[k][i].name);
                }
        if (cluster && !o->dry_run && (!o->cluster || !o->cluster->call))
                return error_set(err, EINVAL, "wave plan '%s': has cluster steps but no cluster connection", id);
        return 0;
}

static int report_step_init(WaveStepReport *sr, WavePhase phase, const char *host, unsigned wave, size_t index,
                            const WaveStep *s) {
        *sr = (WaveStepReport) { .name = s->name, .host = host, .phase = phase, .wave = wave, .index = index };
        sr->key = waves_step_key(phase, host, wave, index, s->name);
        return sr->key ? 0 : -ENOMEM;
}

static void journal_event(Run *run, const char *event, json_object *f) {
        if (!run->o->journal) {
                json_object_put(f);
                return;
        }
        if (!f)
                return;
        json_add_string(f, "waves", run->p->id);
        (void) journal_append(run->o->journal, event, f, NULL); /* a lost record is a worse resume, not a failure */
}

/* The report's step table, in its documented order: before, hosts, gates, after. */
static int report_steps_init(WaveReport *rep, const WavePlan *p, const unsigned *wave_of, size_t gate_slots,
                             WaveStepReport **ret_before, WaveStepReport **ret_hosts, WaveStepReport **ret_gates,
                             WaveStepReport **ret_after) {
        size_t k = 0;
        *ret_before = rep->steps;
        for (size_t i = 0; i < p->n_before; i++, rep->n_steps = k)
                if (report_step_init(&rep->steps[k++], WAVE_PHASE_BEFORE, NULL, 0, i, &p->before[i]) < 0)
                        return -ENOMEM;
        *ret_hosts = rep->steps + k;
        for (size_t h = 0; h < p->n_hosts; h++) {
                rep->hosts[h] = (WaveHostReport) { .host = p->hosts[h].name, .wave = wave_of[h] };
                for (size_t i = 0; i < p->hosts[h].n_steps; i++, rep->n_steps = k)
                        if (report_step_init(&rep->steps[k++], WAVE_PHASE_HOSTS, p->hosts[h].name, wave_of[h], i,
                                             &p->hosts[h].steps[i]) < 0)
                                return -ENOMEM;
        }
        *ret_gates = rep->steps + k;
        for (size_t g = 0; g < gate_slots; g++)
                for (size_t i = 0; i < p->n_gate; i++, rep->n_steps = k)
                        if (report_step_init(&rep->steps[k++], WAVE_PHASE_GATE, NULL, (unsigned) g + 1, i, &p->gate[i]) < 0)
                                return -ENOMEM;
        *ret_after = rep->steps + k;
        for (size_t i = 0; i < p->n_after; i++, rep->n_steps = k)
                if (report_step_init(&rep->steps[k++], WAVE_PHASE_AFTER, NULL, 0, i, &p->after[i]) < 0)
                        return -ENOMEM;
        rep->n_steps = k;
        return 0;
}

static void report_sum(WaveReport *rep, const WavePlan *p) {
        for (size_t i = 0; i < rep->n_steps; i++) {
                WaveStepReport *sr = &rep->steps[i];
                WaveHostReport *hr = NULL;
                if (sr->phase == WAVE_PHASE_HOSTS)
                        for (size_t k = 0; k < rep->n_hosts; k++)
                                if (streq(rep->hosts[k].host, sr->host))
                                        hr = &rep->hosts[k];
                switch (sr->state) {
                case WAVE_STEP_DONE:
                        rep->n_done++;
                        if (hr)
                                hr->n_done++;
                        break;
                case WAVE_STEP_FAILED:
                case WAVE_STEP_CANCELLED:
                        rep->n_failed++;
                        if (hr) {
                                hr->n_failed++;
                                if (!hr->first_error)
                                        hr->first_error = strdup_null(sr->error);
                        }
                        if (sr->phase == WAVE_PHASE_BEFORE)
                                rep->before_failed = true;
                        if (sr->phase == WAVE_PHASE_AFTER)
                                rep->after_failed = true;
                        if (sr->phase == WAVE_PHASE_GATE && sr->wave > 0)
                                rep->waves[sr->wave - 1].gate_failed = rep->waves[sr->wave - 1].failed = true;
                        if (sr->phase == WAVE_PHASE_HOSTS && sr->wave > 0)
                                rep->waves[sr->wave - 1].failed = true;
                        break;
                case WAVE_STEP_EARLIER:
                        rep->n_earlier++;
                        if (hr)
                                hr->n_earlier++;
                        break;
                default:
                        rep->n_not_run++;
                        if (hr)
                                hr->n_not_run++;
                        break;
                }
        }
}

int waves_run(const WavePlan *p, const WaveOptions *o, WaveReport **ret, Error *err) {
        int r = plan_validate(p, o, err);
        if (r < 0)
                return r;

        _cleanup_(freep) unsigned *wave_of = NULL;
        unsigned n_waves;
        if ((r = waves_assign(p, &wave_of, &n_waves, err)) < 0)
                return r;

        size_t gate_slots = n_waves == 0 ? 0 : n_waves - 1 + (p->gate_after_last ? 1 : 0);
        size_t n_steps = p->n_before + p->n_after + gate_slots * p->n_gate;
        for (size_t i = 0; i < p->n_hosts; i++)
                n_steps += p->hosts[i].n_steps;

        _cleanup_(wave_report_freep) WaveReport *rep = calloc(1, sizeof(WaveReport));
        if (!rep || !(rep->steps = calloc(n_steps ? n_steps : 1, sizeof(WaveStepReport))) ||
            !(rep->hosts = calloc(p->n_hosts ? p->n_hosts : 1, sizeof(WaveHostReport))) ||
            !(rep->waves = calloc(n_waves ? n_waves : 1, sizeof(WaveWaveReport))) ||
            !(rep->wave_hosts = calloc(p->n_hosts ? p->n_hosts : 1, sizeof(size_t))))
                return error_set(err, ENOMEM, "out of memory");
        rep->n_waves = n_waves;
        rep->n_hosts = p->n_hosts;

        WaveStepReport *before_r, *host_r, *gate_r, *after_r;
        if (report_steps_init(rep, p, wave_of, gate_slots, &before_r, &host_r, &gate_r, &after_r) < 0)
                return error_set(err, ENOMEM, "out of memory");

        /* hosts grouped by wave, each wave in input order */
        size_t k = 0;
        for (unsigned w = 1; w <= n_waves; w++) {
                rep->waves[w - 1].first_host = k;
                for (size_t h = 0; h < p->n_hosts; h++)
                        if (wave_of[h] == w)
                                rep->wave_hosts[k++] = h;
                rep->waves[w - 1].n_hosts = k - rep->waves[w - 1].first_host;
        }

        Run run = { .p = p, .o = o, .rep = rep, .steps_total = n_steps, .start = clock_mono_sec() };
        pthread_mutex_init(&run.mu, NULL);
        pthread_cond_init(&run.cv, NULL);

        _cleanup_(freep) Lane *lanes = calloc(p->n_hosts ? p->n_hosts : 1, sizeof(Lane));
        size_t n_lanes = 0;
        if (!lanes)
                r = -ENOMEM;
        WaveStepReport *hr = host_r;
        for (size_t h = 0; r >= 0 && h < p->n_hosts; h++) {
                const WaveHost *host = &p->hosts[h];
                if (lane_init(&lanes[h], &run, WAVE_PHASE_HOSTS, wave_of[h], host->steps, host->n_steps, hr) < 0) {
                        r = -ENOMEM;
                        break;
                }
                n_lanes++;
                lanes[h].host = host;
                lanes[h].host_report = &rep->hosts[h];
                lanes[h].link = link_find(o, host->name);
                hr += host->n_steps;
        }
        pthread_t tick_tid;
        bool ticking = r >= 0 && pthread_create(&tick_tid, NULL, tick_worker, &run) == 0;
        if (r >= 0 && !ticking)
                r = -EAGAIN;
        if (r < 0) {
                for (size_t h = 0; h < n_lanes; h++)
                        lane_finish(&lanes[h]);
                pthread_cond_destroy(&run.cv);
                pthread_mutex_destroy(&run.mu);
                return error_set(err, -r, "wave plan '%s': cannot start: %s", strna(p->id), strerror(-r));
        }

        json_object *start = json_object_new_object();
        if (start) {
                json_add_u64(start, "waves_total", n_waves);
                json_add_u64(start, "steps", n_steps);
                json_add_u64(start, "earlier_keys", strv_length(p->done_keys));
                /* the hosts it acts on: its start ends other procedures' records of them
                 * (journal_done_step_keys()) */
                json_object *names = json_object_new_array();
                for (size_t i = 0; names && i < p->n_hosts; i++)
                        json_object_array_add(names, json_object_new_string(p->hosts[i].name));
                json_add(start, "hosts", names);
        }
        journal_event(&run, "waves-start", start);

        HostPool pool = { .run = &run, .lanes = lanes };
        if (run_cluster_lane(&run, WAVE_PHASE_BEFORE, 0, p->before, p->n_before, before_r)) {
                size_t g = 0;
                for (unsigned w = 1; w <= n_waves; w++) {
                        pthread_mutex_lock(&run.mu);
                        bool stop = run.stop_new || run_interrupted_locked(&run);
                        if (!stop) {
                                run.phase = WAVE_PHASE_HOSTS;
                                run.wave = w;
                        }
                        pthread_mutex_unlock(&run.mu);
                        if (stop)
                                break;
                        WaveWaveReport *wr = &rep->waves[w - 1];
                        wr->started = true;
                        run_wave(&run, &pool, rep->wave_hosts + wr->first_host, wr->n_hosts);

                        /* never the next wave after a failed one, whatever on_failure says */
                        bool failed = false;
                        for (size_t i = 0; i < wr->n_hosts; i++)
                                if (lanes[rep->wave_hosts[wr->first_host + i]].failed)
                                        failed = true;
                        pthread_mutex_lock(&run.mu);
                        if (failed)
                                run.stop_new = true;
                        stop = run.stop_new || run_interrupted_locked(&run);
                        pthread_mutex_unlock(&run.mu);
                        if (stop)
                                break;
                        if (w < n_waves || p->gate_after_last) {
                                wr->gate_ran = p->n_gate > 0;
                                if (!run_cluster_lane(&run, WAVE_PHASE_GATE, w, p->gate, p->n_gate, gate_r + g * p->n_gate))
                                        break;
                                g++;
                        }
                }
        }
        run_cluster_lane(&run, WAVE_PHASE_AFTER, 0, p->after, p->n_after, after_r);

        pthread_mutex_lock(&run.mu);
        run.finished = true;
        pthread_cond_broadcast(&run.cv);
        pthread_mutex_unlock(&run.mu);
        pthread_join(tick_tid, NULL);
        if (o->progress) {
                fputs("\r\033[K", o->progress);
                fflush(o->progress);
        }

        for (size_t h = 0; h < n_lanes; h++)
                lane_finish(&lanes[h]);
        free(run.progress_text);
        pthread_cond_destroy(&run.cv);
        pthread_mutex_destroy(&run.mu);

        report_sum(rep, p);
        rep->seconds = clock_mono_sec() - run.start;
        /* an after step's failure is the run's failure only when all else went well */
        if (rep->status == WAVE_STATUS_OK && rep->n_failed > 0) {
                rep->status = WAVE_STATUS_FAILED;
                rep->error = strdup("a step failed");
        }

        json_object *end = json_object_new_object();
        if (end) {
                json_add_string(end, "status", wave_status_to_string(rep->status));
                json_add_string(end, "error", rep->error);
                json_add_u64(end, "done", rep->n_done);
                json_add_u64(end, "failed", rep->n_failed);
                json_add_u64(end, "not_run", rep->n_not_run);
                json_add_u64(end, "earlier", rep->n_earlier);
        }
        journal_event(&run, "waves-end", end);

        *ret = TAKE_PTR(rep);
        return 0;
}

/* ---- output ---- */

static const WaveStepReport *report_phase_first(const WaveReport *r, WavePhase ph, unsigned wave, bool failed_only) {
        for (size_t i = 0; i < r->n_steps; i++) {
                const WaveStepReport *s = &r->steps[i];
                if (s->phase == ph && (ph != WAVE_PHASE_GATE || s->wave == wave) &&
                    (!failed_only || s->state == WAVE_STEP_FAILED || s->state == WAVE_STEP_CANCELLED))
                        return s;
        }
        return NULL;
}

static void print_cluster_list(const WaveReport *r, FILE *f, WavePhase ph, unsigned wave, const char *label) {
        if (!report_phase_first(r, ph, wave, false))
                return;
        fprintf(f, "%-24s", label);
        for (size_t i = 0; i < r->n_steps; i++) {
                const WaveStepReport *s = &r->steps[i];
                if (s->phase == ph && (ph != WAVE_PHASE_GATE || s->wave == wave))
                        fprintf(f, " %s=%s", s->name, wave_step_state_to_string(s->state));
        }
        const WaveStepReport *e = report_phase_first(r, ph, wave, true);
        if (e && e->error)
                fprintf(f, "  (%s)", e->error);
        fputc('\n', f);
}

void wave_report_print(const WaveReport *r, FILE *f) {
        fprintf(f, "\n");
        print_cluster_list(r, f, WAVE_PHASE_BEFORE, 0, "before");
        fprintf(f, "%-6s %-20s %6s %6s %7s %7s %8s  %s\n", "WAVE", "HOST", "DONE", "FAILED", "NOT RUN", "EARLIER", "TIME",
                "FIRST ERROR");
        for (unsigned w = 0; w < r->n_waves; w++) {
                const WaveWaveReport *wr = &r->waves[w];
                for (size_t i = 0; i < wr->n_hosts; i++) {
                        const WaveHostReport *h = &r->hosts[r->wave_hosts[wr->first_host + i]];
                        fprintf(f, "%-6u %-20s %6zu %6zu %7zu %7zu %7.1fs  %s\n", w + 1, h->host, h->n_done, h->n_failed,
                                h->n_not_run, h->n_earlier, h->seconds, h->first_error ? h->first_error : "-");
                }
                char label[64];
                snprintf(label, sizeof(label), "gate after wave %u", w + 1);
                print_cluster_list(r, f, WAVE_PHASE_GATE, w + 1, label);
        }
        print_cluster_list(r, f, WAVE_PHASE_AFTER, 0, "after");
        fprintf(f, "%zu done, %zu failed, %zu not run, %zu done earlier, %.1f s: %s%s%s\n", r->n_done, r->n_failed,
                r->n_not_run, r->n_earlier, r->seconds, wave_status_to_string(r->status), r->error ? ": " : "",
                r->error ? r->error : "");
}

static json_object *step_to_json(const WaveStepReport *s) {
        json_object *j = json_object_new_object();
        if (!j)
                return NULL;
        json_add_string(j, "key", s->key);
        json_add_string(j, "name", s->name);
        json_add_string(j, "host", s->host);
        json_add_string(j, "phase", wave_phase_to_string(s->phase));
        json_add_u64(j, "wave", s->wave);
        json_add_u64(j, "index", s->index);
        json_add_string(j, "state", wave_step_state_to_string(s->state));
        if (s->error_code)
                json_add_string(j, "errno", errno_name(s->error_code));
        json_add_string(j, "error", s->error);
        json_add(j, "seconds", json_object_new_double(s->seconds));
        if (s->result)
                json_add(j, "result", json_object_get(s->result));
        return j;
}

int wave_report_to_json(const WaveReport *r, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *waves = json_object_new_array(), *hosts = json_object_new_array(), *steps = json_object_new_array();
        if (!o || json_add(o, "waves", waves) < 0 || json_add(o, "hosts", hosts) < 0 || json_add(o, "steps", steps) < 0)
                return -ENOMEM;
        json_add_string(o, "status", wave_status_to_string(r->status));
        json_add_string(o, "error", r->error);
        for (unsigned w = 0; w < r->n_waves; w++) {
                const WaveWaveReport *wr = &r->waves[w];
                json_object *j = json_object_new_object(), *names = json_object_new_array();
                if (!j || json_object_array_add(waves, j) < 0 || json_add(j, "hosts", names) < 0)
                        return -ENOMEM;
                for (size_t i = 0; i < wr->n_hosts; i++)
                        json_object_array_add(names, json_object_new_string(r->hosts[r->wave_hosts[wr->first_host + i]].host));
                json_add_u64(j, "wave", w + 1);
                json_add_bool(j, "started", wr->started);
                json_add_bool(j, "failed", wr->failed);
                json_add_bool(j, "gate_ran", wr->gate_ran);
                json_add_bool(j, "gate_failed", wr->gate_failed);
        }
        for (size_t i = 0; i < r->n_hosts; i++) {
                const WaveHostReport *h = &r->hosts[i];
                json_object *j = json_object_new_object();
                if (!j || json_object_array_add(hosts, j) < 0)
                        return -ENOMEM;
                json_add_string(j, "host", h->host);
                json_add_u64(j, "wave", h->wave);
                json_add_u64(j, "done", h->n_done);
                json_add_u64(j, "failed", h->n_failed);
                json_add_u64(j, "not_run", h->n_not_run);
                json_add_u64(j, "earlier", h->n_earlier);
                json_add(j, "seconds", json_object_new_double(h->seconds));
                json_add_string(j, "error", h->first_error);
        }
        for (size_t i = 0; i < r->n_steps; i++) {
                json_object *j = step_to_json(&r->steps[i]);
                if (!j || json_object_array_add(steps, j) < 0) {
                        json_object_put(j);
                        return -ENOMEM;
                }
        }
        json_add_u64(o, "done", r->n_done);
        json_add_u64(o, "failed", r->n_failed);
        json_add_u64(o, "not_run", r->n_not_run);
        json_add_u64(o, "earlier", r->n_earlier);
        json_add_bool(o, "before_failed", r->before_failed);
        json_add_bool(o, "after_failed", r->after_failed);
        json_add(o, "seconds", json_object_new_double(r->seconds));
        *ret = TAKE_PTR(o);
        return 0;
}
