/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The backfill throttle (presets, the adaptive controller's glue) and the operator's pause and resume. */

#include "controller/steps/steps-internal.h"

/* The scheduler the OSDs use: ask, the release's default otherwise. */
static CephScheduler scheduler(ClusterSteps *cs) {
        _cleanup_(freep) char *out = NULL, *v = NULL;
        Error e = {};
        if (ceph_admin_run(cs->admin, ceph_argv_config_get(cs_cli(cs), "osd", "osd_op_queue", &e), NULL, &out, &e) >= 0)
                (void) ceph_config_value_parse(out, &v, &e);
        return ceph_scheduler_for(cs->release, v);
}

/* the adaptive throttle's brake: nobackfill, recorded as set-flag records it */
static int adapt_brake(void *userdata, bool on, Error *err) {
        ClusterSteps *cs = userdata;
        _cleanup_json_ json_object *args = json_object_new_object(), *res = NULL;
        if (!args || json_add_string(args, "flag", CEPH_ADAPT_BRAKE_FLAG) < 0)
                return error_set(err, ENOMEM, "out of memory");
        return cs_flag_step(cs, args, on, &res, err);
}

static int adapt_paused(void *userdata, Error *err) {
        ClusterSteps *cs = userdata;
        _cleanup_(freep) char *v = NULL;
        return cs_record_get(cs->admin, CLUSTER_PAUSE_RECORD, &v, err);
}

static int adapt_publish(void *userdata, json_object *state, Error *err) {
        ClusterSteps *cs = userdata;
        return cs_record_set(cs->admin, "throttle-state", state, err);
}

int cluster_throttle_state(CephAdmin *a, json_object **ret, Error *err) {
        return cs_record_get_json(a, "throttle-state", ret, err);
}

/* The record of the last drain's rung (ceph_adapt_last_from_state()): where the next one starts */
#define THROTTLE_LAST_RECORD "throttle-last"

static void adapt_config(ClusterSteps *cs, CephScheduler scheduler, CephAdaptConfig *ret) {
        ceph_adapt_config_default(scheduler, ret);
        ret->target_ms = cs->layout->throttle.target_p99_ms;
        ret->ceiling_ms = cs->layout->throttle.ceiling_p99_ms;
        if (cs->adapt_window_sec)
                ret->window_sec = cs->adapt_window_sec;
        /* the knobs act within a few seconds; the dwell must stay longer than that lag */
        ret->effect_lag_sec = MIN(10.0, ret->window_sec * ret->dwell * 0.9);
        /* start from the rung the last drain of this cluster ended on (none, or unreadable:
         * the slow preset's): a controller's state still published is a run killed or
         * resumed (restore removes it), and the knobs are at its rung; else the record
         * restore-throttle kept */
        _cleanup_json_ json_object *state = NULL, *last = NULL;
        Error e = {};
        if (cs_record_get_json(cs->admin, "throttle-state", &state, &e) > 0)
                last = ceph_adapt_last_from_state(state);
        if (!last)
                (void) cs_record_get_json(cs->admin, THROTTLE_LAST_RECORD, &last, &e);
        if (last)
                ret->rung_start = ceph_adapt_start_rung(last, ret);
        /* CEPHPROV_TEST_ADAPT_PIN=N (set only by the benchmark): the controller pinned at rung
         * N, so that a static rung pays the same probe and baseline as the adaptive mode */
        const char *pin = getenv("CEPHPROV_TEST_ADAPT_PIN");
        if (pin && *pin) {
                char *end;
                long n = strtol(pin, &end, 10);
                if (!*end && n >= 0 && n < ceph_adapt_n_rungs(scheduler)) {
                        ret->pinned = true;
                        ret->rung_start = (int) n;
                        ret->rung_min = MIN(ret->rung_min, (int) n);
                        ret->rung_max = MAX(ret->rung_max, (int) n);
                }
        }
}

/* Keeps the rung the controller ended on (its last published state) for the next drain */
static void adapt_keep_last(ClusterSteps *cs) {
        _cleanup_json_ json_object *state = NULL, *last = NULL;
        Error e = {};
        if (cs_record_get_json(cs->admin, "throttle-state", &state, &e) <= 0 || !(last = ceph_adapt_last_from_state(state)))
                return;
        if (json_add_int(last, "since", (int64_t) time(NULL)) < 0 ||
            cs_record_set(cs->admin, THROTTLE_LAST_RECORD, last, &e) < 0) {
                if (cs->log)
                        fprintf(cs->log, "throttle: cannot keep the rung the drain ended on for the next one: %s\n",
                                e.code ? e.message : "out of memory");
                return;
        }
        if (cs->log)
                fprintf(cs->log, "throttle: ended on rung %d; the next adaptive throttle of this cluster starts there\n",
                        json_object_get_int(json_object_object_get(last, "rung")));
}

static int window_from_json(json_object *o, CephLatencyWindow *w) {
        uint64_t n = 0, errors = 0;
        if (!o || json_get_u64(o, "ops", true, &n, "baseline", NULL) < 0)
                return -EINVAL;
        (void) json_get_u64(o, "errors", false, &errors, "baseline", NULL);
        *w = (CephLatencyWindow) {
                .n = n,
                .n_errors = errors,
                .p50_ms = json_object_get_double(json_object_object_get(o, "p50_ms")),
                .p95_ms = json_object_get_double(json_object_object_get(o, "p95_ms")),
                .p99_ms = json_object_get_double(json_object_object_get(o, "p99_ms")),
                .max_ms = json_object_get_double(json_object_object_get(o, "max_ms")),
        };
        return 0;
}

/* Starts the controller unless it runs or restore-throttle ran. */
static int adapt_launch(ClusterSteps *cs, CephScheduler scheduler, const CephLatencyWindow *baseline, bool braked,
                        Error *err) {
        pthread_mutex_lock(&cs->adapt_mu);
        int r = 0;
        if (!cs->adapt && !cs->adapt_finished) {
                ThrottleAdaptOptions o = {
                        .baseline = *baseline,
                        .log = cs->log,
                        .brake = adapt_brake,
                        .brake_userdata = cs,
                        .publish = adapt_publish,
                        .publish_userdata = cs,
                        .paused = adapt_paused,
                        .paused_userdata = cs,
                };
                adapt_config(cs, scheduler, &o.config);
                o.config.start_braked = braked;
                r = throttle_adapt_start(cs->admin, &o, &cs->adapt, err);
                if (r >= 0 && cs->log) {
                        _cleanup_(freep) char *b = ceph_latency_window_format(baseline);
                        fprintf(cs->log, "throttle: adaptive, baseline %s; target p99 %.1f ms, ceiling %.1f ms; rung %d%s%s\n",
                                b ? b : "?", throttle_adapt_target_ms(cs->adapt), throttle_adapt_ceiling_ms(cs->adapt),
                                o.config.rung_start,
                                o.config.rung_start != ceph_adapt_slow_rung(scheduler) ? " (where the last drain ended)" : "",
                                braked ? "; the brake is on (nobackfill, from the run before)" : "");
                        fflush(cs->log);
                }
        }
        pthread_mutex_unlock(&cs->adapt_mu);
        return r;
}

/* 1 when the brake's record is in the cluster (it went on and did not come off) */
static int adapt_brake_recorded(ClusterSteps *cs, Error *err) {
        _cleanup_json_ json_object *rec = NULL;
        int r = cs_record_get_json(cs->admin, SAVED_PREFIX "flag-" CEPH_ADAPT_BRAKE_FLAG, &rec, err);
        return r < 0 ? r : rec != NULL;
}

/* The OSDs that mask the throttle: a runtime override (injectargs, `ceph tell osd.N config
 * set`) of one of `keys` wins over the config database until the OSD restarts, so what the
 * throttle set does not act there. Each is one line on the log and an entry of the result's
 * "overridden" (osd, key, value); not a failure: data still moves, only not at the pace
 * asked on those OSDs. An OSD that does not answer is left out. The manager's view, which
 * `config show` reads, follows each OSD's reports (mgr_stats_period, 5 s by default): an
 * override set in the last seconds may not be seen yet. */
static void throttle_overrides(ClusterSteps *cs, const char *const *keys, size_t n_keys, json_object *res) {
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        Error e = {};
        json_object *list = json_object_new_array();
        if (!list || json_add(res, "overridden", list) < 0 || n_keys == 0 || cs_osd_dump(cs, &d, &e) < 0)
                return;
        /* one request for all of them, asked side by side on the admin host (Ceph has no
         * one command for every daemon's runtime values: `config dump` is the database) */
        _cleanup_(freep) char ***argvs = calloc(d->n_osds + 1, sizeof(char **));
        _cleanup_(freep) size_t *which = calloc(d->n_osds + 1, sizeof(size_t));
        size_t n = 0;
        if (!argvs || !which)
                return;
        for (size_t i = 0; i < d->n_osds; i++) {
                if (!d->osds[i].up)
                        continue;
                char who[32];
                snprintf(who, sizeof who, "osd.%d", d->osds[i].id);
                which[n] = i;
                if (!(argvs[n++] = ceph_argv_config_show(cs_cli(cs), who, &e))) {
                        for (size_t k = 0; k < n - 1; k++)
                                strv_free(argvs[k]);
                        return;
                }
        }
        if (n == 0)
                return;
        _cleanup_(freep) CephAnswer *answers = calloc(n, sizeof(CephAnswer));
        if (!answers) {
                for (size_t k = 0; k < n; k++)
                        strv_free(argvs[k]);
                return;
        }
        if (ceph_admin_ask_many(cs->admin, argvs, n, answers, &e) < 0)
                return;
        for (size_t j = 0; j < n; j++) {
                size_t i = which[j];
                char who[32];
                snprintf(who, sizeof who, "osd.%d", d->osds[i].id);
                _cleanup_(ceph_config_show_freep) CephConfigShow *s = NULL;
                Error qe = {};
                int pr = answers[j].exit_status != 0 ? -EIO : ceph_config_show_parse(answers[j].out, &s, &qe);
                ceph_answer_done(&answers[j]);
                if (pr < 0)
                        continue;
                for (size_t k = 0; k < n_keys; k++) {
                        const CephConfigShowEntry *en = ceph_config_show_find(s, keys[k]);
                        if (!en || !streq(en->source, "override"))
                                continue;
                        json_object *o = json_object_new_object();
                        json_add_int(o, "osd", d->osds[i].id);
                        json_add_string(o, "key", keys[k]);
                        json_add_string(o, "value", en->value);
                        json_object_array_add(list, o);
                        if (cs->log) {
                                fprintf(cs->log,
                                        "throttle: %s: %s is %s from a runtime override (injectargs or `ceph tell %s "
                                        "config set`), which masks the config database until the OSD restarts: "
                                        "`ceph tell %s config unset %s` removes it\n",
                                        who, keys[k], en->value, who, who, keys[k]);
                                fflush(cs->log);
                        }
                }
        }
}

static int throttle_record(ClusterSteps *cs, const CephThrottlePlan *plan, json_object *adaptive,
                           const CephConfigDump *now, json_object *res, Error *err);

/* throttle with preset adaptive: record every key of the ladder (and the baseline, measured
 * now, before data moves), apply the start rung, start the controller */
static int step_throttle_adaptive(ClusterSteps *cs, WaveCall *c, json_object **ret, Error *err) {
        CephScheduler sched = scheduler(cs);
        CephAdaptConfig cfg;
        adapt_config(cs, sched, &cfg);
        _cleanup_json_ json_object *have = NULL, *res = NULL;
        int r = cs_record_get_json(cs->admin, SAVED_PREFIX "throttle", &have, err);
        if (r < 0 || (r = cs_result_new(&res, err)) < 0)
                return r;
        CephLatencyWindow base = {};
        const char *preset = NULL;
        bool adaptive_rec = have &&
                            json_get_string(have, "preset", false, &preset, "throttle record", NULL) >= 0 && preset &&
                            streq(preset, "adaptive") &&
                            window_from_json(json_object_object_get(have, "baseline"), &base) >= 0;
        if (have && !cs_record_of_other_run(cs, have) && !adaptive_rec)
                return error_set(err, EEXIST,
                                 "throttle: this run already recorded another throttle (preset '%s'): "
                                 "restore it first (restore-throttle)",
                                 preset ? preset : "?");
        if (!have || cs_record_of_other_run(cs, have)) {
                /* a new record; one an earlier run left is taken over key by key (and its
                 * baseline kept: data may be moving now) */
                _cleanup_(ceph_config_dump_freep) CephConfigDump *before = NULL;
                if ((r = ceph_admin_config_dump(cs->admin, &before, err)) < 0)
                        return r;
                _cleanup_(ceph_throttle_plan_freep) CephThrottlePlan *plan = NULL;
                if ((r = ceph_adapt_plan(sched, cfg.rung_start, before, &plan, err)) < 0)
                        return r;
                if ((r = throttle_adapt_pool_ensure(cs->admin, err)) < 0)
                        return error_prefix(err, -r, "throttle: the probe pool '%s'", THROTTLE_ADAPT_POOL);
                if (!adaptive_rec) {
                        if (c) {
                                _cleanup_(freep) char *what = strprintf(
                                        "measuring the baseline client latency (2 × %g s)", cfg.window_sec);
                                wave_call_progress(c, -1, -1, what);
                        }
                        /* two windows: the first also warms the pool's PGs up */
                        if ((r = throttle_adapt_probe(cs->admin, (unsigned) cfg.window_sec, &base, err)) < 0 ||
                            (r = throttle_adapt_probe(cs->admin, (unsigned) cfg.window_sec, &base, err)) < 0)
                                return error_prefix(err, -r, "throttle: the baseline probe");
                        if (base.n_errors > 0 || base.n < cfg.min_ops)
                                return error_set(err, EIO,
                                                 "throttle: the baseline probe had %zu ops and %zu errors: the cluster "
                                                 "does not answer small I/O well enough to steer by it",
                                                 base.n, base.n_errors);
                }
                _cleanup_(freep) char *s = ceph_throttle_restore_format(plan);
                _cleanup_json_ json_object *rec = s ? json_tokener_parse(s) : NULL;
                json_object *b = json_object_new_object();
                if (!rec || json_add(rec, "baseline", b) < 0 || json_add_u64(b, "ops", base.n) < 0 ||
                    json_add_u64(b, "errors", base.n_errors) < 0 ||
                    json_add(b, "p50_ms", json_object_new_double(base.p50_ms)) < 0 ||
                    json_add(b, "p95_ms", json_object_new_double(base.p95_ms)) < 0 ||
                    json_add(b, "p99_ms", json_object_new_double(base.p99_ms)) < 0 ||
                    json_add(b, "max_ms", json_object_new_double(base.max_ms)) < 0 ||
                    json_add_string(rec, "preset", "adaptive") < 0 || ceph_throttle_record_set_ladder(rec, sched) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                if ((r = throttle_record(cs, NULL, rec, before, res, err)) < 0)
                        return r;
                for (size_t i = 0; plan->warnings[i]; i++)
                        if (cs->log)
                                fprintf(cs->log, "throttle: warning: %s\n", plan->warnings[i]);
        }
        /* a re-run that finds the brake on starts braked, at the bottom rung */
        int braked = adapt_brake_recorded(cs, err);
        if (braked < 0)
                return braked;
        CephConfigOp *ops = NULL;
        size_t n = 0;
        if ((r = ceph_adapt_rung_settings(sched, braked ? cfg.rung_min : cfg.rung_start, &ops, &n, err)) < 0)
                return r;
        r = ceph_admin_config_apply(cs->admin, ops, n, "throttle", err);
        ceph_config_ops_free(ops, n);
        if (r < 0 || (r = adapt_launch(cs, sched, &base, braked, err)) < 0)
                return r;
        json_object *set = json_array_new_strv((char **) ceph_adapt_keys(sched));
        if (json_add(res, "set", set) < 0 || json_add_string(res, "preset", "adaptive") < 0 ||
            json_add(res, "baseline_p99_ms", json_object_new_double(base.p99_ms)) < 0)
                return error_set(err, ENOMEM, "out of memory");
        const char *const *akeys = ceph_adapt_keys(sched);
        throttle_overrides(cs, akeys, strv_length((char **) akeys), res);
        *ret = TAKE_PTR(res);
        return 0;
}

int cluster_steps_resume_adaptive(ClusterSteps *cs, Error *err) {
        if (cs->layout->throttle.preset != THROTTLE_ADAPTIVE)
                return 0;
        _cleanup_json_ json_object *rec = NULL;
        int r = cs_record_get_json(cs->admin, SAVED_PREFIX "throttle", &rec, err);
        if (r <= 0)
                return r;
        const char *preset = NULL;
        CephLatencyWindow base;
        if (json_get_string(rec, "preset", false, &preset, "throttle record", NULL) < 0 || !preset ||
            !streq(preset, "adaptive") || window_from_json(json_object_object_get(rec, "baseline"), &base) < 0)
                return 0;
        int braked = adapt_brake_recorded(cs, err);
        if (braked < 0)
                return braked;
        if ((r = adapt_launch(cs, scheduler(cs), &base, braked, err)) < 0)
                return r;
        return 1;
}

void cs_adapt_peering(ClusterSteps *cs, bool peering) {
        pthread_mutex_lock(&cs->adapt_mu);
        throttle_adapt_set_peering(cs->adapt, peering);
        pthread_mutex_unlock(&cs->adapt_mu);
}

void cluster_steps_done(ClusterSteps *cs) {
        pthread_mutex_lock(&cs->adapt_mu);
        cs->adapt = throttle_adapt_stop(cs->adapt);
        pthread_mutex_unlock(&cs->adapt_mu);
        pthread_mutex_destroy(&cs->adapt_mu);
}

/* Records the throttle's values before and what it writes (`plan`; the adaptive throttle's
 * `adaptive` record: every rung's values, its baseline), with this run's id. A record this
 * run wrote stays as it is. One an earlier run left is not restored blindly nor kept as the
 * truth: where a key still holds what that run wrote, the value before that run is the one to
 * go back to; where it does not, someone set it since and its value now (`now`) is — and
 * keys that run set and this one does not are kept to be restored. res: "took_over". */
static int throttle_record(ClusterSteps *cs, const CephThrottlePlan *plan, json_object *adaptive,
                           const CephConfigDump *now, json_object *res, Error *err) {
        _cleanup_json_ json_object *have = NULL;
        int r = cs_record_get_json(cs->admin, SAVED_PREFIX "throttle", &have, err);
        if (r < 0)
                return r;
        if (have && !cs_record_of_other_run(cs, have))
                return 0;
        _cleanup_json_ json_object *rec = NULL;
        if (adaptive)
                rec = json_object_get(adaptive);
        else {
                _cleanup_(freep) char *text = ceph_throttle_restore_format(plan);
                rec = text ? json_tokener_parse(text) : NULL;
        }
        if (!rec || cs_record_stamp(cs, rec) < 0)
                return error_set(err, ENOMEM, "out of memory");
        if (have) {
                _cleanup_json_ json_object *taken = NULL;
                const char *old = json_object_to_json_string_ext(have, JSON_C_TO_STRING_PLAIN);
                Error e = {};
                if ((r = ceph_throttle_record_take_over(rec, old, now, &taken, &e)) < 0)
                        return error_set(err, -r, "the throttle record an earlier run left in the cluster: %s",
                                         e.message);
                _cleanup_(freep) char *origin = cs_record_origin(have);
                _cleanup_(freep) char *msg = strprintf(
                        "the record of %s was not restored: %zu of its values are still what it wrote and go back "
                        "to their values before it; the others are as someone set them since",
                        origin ? origin : "?", json_object_array_length(taken));
                cs_restore_left_notice(cs, "throttle", msg ? msg : "took over an earlier run's record");
                json_object *t = json_object_new_object(), *run = json_object_object_get(have, "run"),
                            *since = json_object_object_get(have, "since");
                /* null run and since: a record of an older cephprov */
                if (!t || json_add(res, "took_over", t) < 0 ||
                    json_object_object_add(t, "run", run ? json_object_get(run) : NULL) < 0 ||
                    json_object_object_add(t, "since", since ? json_object_get(since) : NULL) < 0 ||
                    json_add(t, "keys", TAKE_PTR(taken)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        return cs_record_set(cs->admin, SAVED_PREFIX "throttle", rec, err);
}

int cluster_step_throttle(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        const char *name = "layout";
        (void) json_get_string(args, "preset", false, &name, "throttle", NULL);
        Throttle lt = cs->layout->throttle;
        if ((streq(name, "layout") && lt.preset == THROTTLE_ADAPTIVE) || streq(name, "adaptive")) {
                if (lt.preset != THROTTLE_ADAPTIVE)
                        return error_set(err, EINVAL, "throttle: preset 'adaptive' is set in the layout "
                                                      "(throttle: {preset: adaptive}), not in a playbook");
                return step_throttle_adaptive(cs, c, ret, err);
        }
        unsigned over[3] = { 0, 0, 0 };
        static const char *const keys[3] = { "osd_max_backfills", "osd_recovery_max_active",
                                             "osd_recovery_max_single_start" };
        CephThrottlePreset preset;
        int r;
        if (streq(name, "layout")) {
                preset = lt.preset == THROTTLE_SLOW ? CEPH_THROTTLE_SLOW
                       : lt.preset == THROTTLE_FAST ? CEPH_THROTTLE_FAST
                                                    : CEPH_THROTTLE_DEFAULT;
                if (lt.preset == THROTTLE_CUSTOM) {
                        over[0] = lt.osd_max_backfills;
                        over[1] = lt.osd_recovery_max_active;
                        over[2] = lt.osd_recovery_max_single_start;
                }
        } else if (streq(name, "custom"))
                preset = CEPH_THROTTLE_DEFAULT;
        else if ((r = ceph_throttle_preset_from_string(name, &preset, err)) < 0)
                return r;
        for (int i = 0; i < 3; i++) {
                uint64_t v;
                if (json_get_u64(args, keys[i], false, &v, "throttle", NULL) >= 0)
                        over[i] = (unsigned) v;
        }

        _cleanup_(ceph_config_dump_freep) CephConfigDump *before = NULL;
        if ((r = ceph_admin_config_dump(cs->admin, &before, err)) < 0)
                return r;
        _cleanup_(ceph_throttle_plan_freep) CephThrottlePlan *plan = NULL;
        /* explicit values: under mClock the override and the limits as well as the profile */
        const bool limits = over[0] || over[1] || over[2];
        const CephScheduler sched = scheduler(cs);
        if ((r = ceph_throttle_plan(preset, sched, limits, before, &plan, err)) < 0)
                return r;
        /* a mixed cluster (FileStore OSDs, or osd_op_queue wpq on some): the profile steers the
         * mClock OSDs, per-OSD limits the wpq ones (with explicit limits, the "osd" section's
         * override and limits act on both) */
        if (sched == CEPH_SCHEDULER_MCLOCK && !limits) {
                _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *meta = NULL;
                _cleanup_(freep) int *wpq = NULL;
                size_t n_wpq = 0;
                if ((r = ceph_admin_osd_metadata(cs->admin, &meta, err)) < 0)
                        return r;
                if (ceph_wpq_osds(cs->release, before, meta, &wpq, &n_wpq) < 0 ||
                    (n_wpq > 0 && ceph_throttle_plan_add_wpq_osds(plan, wpq, n_wpq, before) < 0))
                        return error_set(err, ENOMEM, "out of memory");
                if (n_wpq > 0 && cs->log) {
                        _cleanup_(freep) char *list = cs_osds_text(wpq, n_wpq);
                        fprintf(cs->log, "throttle: %s run%s wpq (FileStore, or osd_op_queue wpq): preset '%s' sets "
                                         "their recovery limits per OSD, the mClock profile steers the others\n",
                                list ? list : "?", n_wpq == 1 ? "s" : "", ceph_throttle_preset_to_string(preset));
                        fflush(cs->log);
                }
        }
        for (int i = 0; i < 3; i++) {
                if (!over[i])
                        continue;
                bool found = false;
                for (size_t k = 0; k < plan->n_apply; k++)
                        if (streq(plan->apply[k].key, keys[i]) && plan->apply[k].value) {
                                free(plan->apply[k].value);
                                plan->apply[k].value = strprintf("%u", over[i]);
                                found = true;
                        }
                if (!found)
                        return error_set(err, EINVAL,
                                         "throttle: preset '%s' does not set %s with this cluster's scheduler "
                                         "(give slow or fast to set recovery limits under mClock)",
                                         ceph_throttle_preset_to_string(preset), keys[i]);
        }

        _cleanup_json_ json_object *res = NULL;
        if ((r = cs_result_new(&res, err)) < 0)
                return r;
        /* what was there before, and what this run writes: recorded before the change */
        if ((r = throttle_record(cs, plan, NULL, before, res, err)) < 0)
                return r;
        json_object *set = json_object_new_array();
        json_add(res, "set", set);
        json_add_string(res, "preset", ceph_throttle_preset_to_string(preset));
        for (size_t k = 0; k < plan->n_apply; k++)
                json_object_array_add(set, json_object_new_string(plan->apply[k].key));
        if ((r = ceph_admin_config_apply(cs->admin, plan->apply, plan->n_apply, "throttle", err)) < 0)
                return r;
        _cleanup_(freep) const char **applied = calloc(plan->n_apply + 1, sizeof(char *));
        if (!applied)
                return error_set(err, ENOMEM, "out of memory");
        size_t n_applied = 0;
        for (size_t k = 0; k < plan->n_apply; k++)
                if (plan->apply[k].value) /* a key the preset sets (not one it removes) */
                        applied[n_applied++] = plan->apply[k].key;
        throttle_overrides(cs, applied, n_applied, res);
        *ret = TAKE_PTR(res);
        return 0;
}

int cluster_step_restore_throttle(ClusterSteps *cs, json_object *args, WaveCall *c, json_object **ret, Error *err) {
        /* the adaptive throttle stops for good before its knobs go back; its last state is
         * published first (the record of the rung it ended on reads it) and its run's account
         * of the SLO said */
        pthread_mutex_lock(&cs->adapt_mu);
        if (cs->adapt) {
                _cleanup_json_ json_object *st = throttle_adapt_state(cs->adapt);
                Error pe = {};
                if (st && json_add_int(st, "updated", (int64_t) time(NULL)) >= 0)
                        (void) adapt_publish(cs, st, &pe);
                _cleanup_(freep) char *sum = ceph_adapt_run_summary(st);
                if (sum && cs->log) {
                        fprintf(cs->log, "throttle: %s\n", sum);
                        fflush(cs->log);
                }
        }
        cs->adapt = throttle_adapt_stop(cs->adapt);
        cs->adapt_finished = true;
        pthread_mutex_unlock(&cs->adapt_mu);
        /* its brake, if it was on when it stopped (or when a run was killed) */
        _cleanup_json_ json_object *brake = NULL;
        int r = cs_record_get_json(cs->admin, SAVED_PREFIX "flag-" CEPH_ADAPT_BRAKE_FLAG, &brake, err);
        if (r < 0)
                return r;
        /* ... unless the operator paused: then it stays on until `cephprov resume` */
        _cleanup_(freep) char *paused = NULL;
        if (brake && (r = cs_record_get(cs->admin, CLUSTER_PAUSE_RECORD, &paused, err)) < 0)
                return r;
        if (brake && paused && cs->log) {
                fprintf(cs->log, "throttle: the brake (%s) stays on: paused by the operator; "
                                 "`cephprov resume` takes it off\n", CEPH_ADAPT_BRAKE_FLAG);
                fflush(cs->log);
        }
        adapt_keep_last(cs);
        if ((brake && !paused && (r = adapt_brake(cs, false, err)) < 0) ||
            (r = cs_record_rm(cs->admin, "throttle-state", err)) < 0)
                return r;
        _cleanup_(freep) char *rec = NULL;
        r = cs_record_get(cs->admin, SAVED_PREFIX "throttle", &rec, err);
        if (r < 0)
                return r;
        _cleanup_json_ json_object *res = NULL;
        if ((r = cs_result_new(&res, err)) < 0)
                return r;
        json_add_bool(res, "restored", rec != NULL);
        if (rec) {
                /* the value before goes back only where the key still holds what cephprov
                 * wrote: what someone set since is theirs, left and named */
                _cleanup_(ceph_config_dump_freep) CephConfigDump *now = NULL;
                if ((r = ceph_admin_config_dump(cs->admin, &now, err)) < 0)
                        return r;
                CephConfigOp *ops = NULL;
                size_t n = 0;
                json_object *left = NULL;
                Error e = {};
                if ((r = ceph_throttle_restore_decide(rec, now, &ops, &n, &left, &e)) < 0)
                        return error_set(err, EBADMSG, "the throttle record in the cluster: %s", e.message);
                json_add(res, "left", left);
                _cleanup_json_ json_object *o = json_tokener_parse(rec);
                json_object *run = o ? json_object_object_get(o, "run") : NULL,
                            *since = o ? json_object_object_get(o, "since") : NULL;
                json_object_object_add(res, "run", run ? json_object_get(run) : NULL);
                json_object_object_add(res, "since", since ? json_object_get(since) : NULL);
                for (size_t i = 0; i < json_object_array_length(left); i++) {
                        json_object *l = json_object_array_get_idx(left, i);
                        json_object *w = json_object_object_get(l, "wrote");
                        const char *now_v = json_object_get_string(json_object_object_get(l, "value"));
                        const char *before_v = json_object_get_string(json_object_object_get(l, "before"));
                        _cleanup_(freep) char *wrote = NULL;
                        if (w && json_object_array_length(w) > 0) {
                                _cleanup_strv_free_ char **ws = NULL;
                                for (size_t k = 0; k < json_object_array_length(w); k++)
                                        (void) strv_extend(&ws, json_object_get_string(json_object_array_get_idx(w, k)));
                                wrote = strv_join(ws, " or ");
                        }
                        _cleanup_(freep) char *msg = strprintf(
                                "%s %s is %s, not %s as cephprov set it: someone changed it since, left as it is "
                                "(it was %s before cephprov)",
                                json_object_get_string(json_object_object_get(l, "who")),
                                json_object_get_string(json_object_object_get(l, "key")), now_v ? now_v : "unset",
                                wrote ? wrote : "what (an older record does not say)", before_v ? before_v : "unset");
                        cs_restore_left_notice(cs, "restore-throttle", msg ? msg : "a value left as it is");
                }
                json_object *put = json_object_new_array();
                json_add(res, "put_back", put);
                for (size_t i = 0; put && i < n; i++) {
                        _cleanup_(freep) char *t = strprintf("%s %s", ops[i].who, ops[i].key);
                        if (t)
                                json_object_array_add(put, json_object_new_string(t));
                }
                r = ceph_admin_config_apply(cs->admin, ops, n, "restore-throttle", err);
                ceph_config_ops_free(ops, n);
                if (r < 0)
                        return r;
                if ((r = cs_record_rm(cs->admin, SAVED_PREFIX "throttle", err)) < 0)
                        return r;
        }
        *ret = TAKE_PTR(res);
        return 0;
}

/* ---- the operator's pause ---------------------------------------------------------- */

int cluster_pause_get(CephAdmin *a, json_object **ret, Error *err) {
        return cs_record_get_json(a, CLUSTER_PAUSE_RECORD, ret, err);
}

int cluster_pause(ClusterSteps *cs, const char *by, json_object **ret, Error *err) {
        _cleanup_json_ json_object *rec = NULL, *res = NULL, *brake = NULL;
        int r = cs_record_get_json(cs->admin, CLUSTER_PAUSE_RECORD, &rec, err);
        if (r < 0)
                return r;
        bool already = rec != NULL;
        if (!rec) {
                if (!(rec = json_object_new_object()) || json_add_string(rec, "by", by ? by : "?") < 0 ||
                    json_add_int(rec, "since", (int64_t) time(NULL)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                /* the record first: an adaptive throttle that reads it keeps the brake on */
                if ((r = cs_record_set(cs->admin, CLUSTER_PAUSE_RECORD, rec, err)) < 0)
                        return r;
        }
        /* the brake now, through its record (what was set before is what comes back) */
        if ((r = adapt_brake(cs, true, err)) < 0 ||
            (r = cs_record_get_json(cs->admin, SAVED_PREFIX "flag-" CEPH_ADAPT_BRAKE_FLAG, &brake, err)) < 0)
                return r;
        bool was_set = false;
        if (brake)
                (void) json_get_bool(brake, "was_set", false, &was_set, "flag record", NULL);
        if ((r = cs_result_new(&res, err)) < 0)
                return r;
        if (json_add_bool(res, "paused", true) < 0 || json_add_bool(res, "already", already) < 0 ||
            json_add_string(res, "flag", CEPH_ADAPT_BRAKE_FLAG) < 0 ||
            json_add_bool(res, "flag_was_set_before", was_set) < 0 ||
            json_add(res, "record", json_object_get(rec)) < 0)
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(res);
        return 0;
}

/* an adaptive throttle publishes at least every 6 windows (30 s): older than this, none runs */
#define THROTTLE_STATE_STALE_SEC 120

int cluster_resume(ClusterSteps *cs, json_object **ret, Error *err) {
        _cleanup_json_ json_object *rec = NULL, *state = NULL, *res = NULL, *brake = NULL;
        int r;
        if ((r = cs_record_get_json(cs->admin, CLUSTER_PAUSE_RECORD, &rec, err)) < 0 ||
            (r = cs_record_get_json(cs->admin, "throttle-state", &state, err)) < 0 ||
            (r = cs_record_get_json(cs->admin, SAVED_PREFIX "flag-" CEPH_ADAPT_BRAKE_FLAG, &brake, err)) < 0)
                return r;
        int64_t updated = 0;
        if (state)
                (void) json_get_int(state, "updated", false, &updated, "throttle state", NULL);
        bool controller = state && (int64_t) time(NULL) - updated <= THROTTLE_STATE_STALE_SEC;
        if (rec && (r = cs_record_rm(cs->admin, CLUSTER_PAUSE_RECORD, err)) < 0)
                return r;
        /* no controller to release it when calm: the brake comes off now (an operator's own
         * nobackfill, set before the pause, stays: the flag record says so) */
        const char *brake_now = "none";
        if (brake && !controller) {
                if ((r = adapt_brake(cs, false, err)) < 0)
                        return r;
                brake_now = "released";
        } else if (brake)
                brake_now = "left to the adaptive throttle";
        if ((r = cs_result_new(&res, err)) < 0)
                return r;
        if (json_add_bool(res, "was_paused", rec != NULL) < 0 || json_add_bool(res, "adaptive_running", controller) < 0 ||
            json_add_string(res, "brake", brake_now) < 0)
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(res);
        return 0;
}
