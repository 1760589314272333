/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The wave executor's ordering: waves as given (one host each when none are), gates, on_failure, cancel, the tick
 * (pause, stop, progress), resume, concurrency classes and timeouts. Every link here is
 * the scripted FAKE of fake-link.h: what is tested is what runs when and beside what, not
 * Ceph. A script declares the calls it expects; the fake fails the test on a call out of
 * order, an unexpected call or an expectation left unused. Blocking in the fake is by
 * rendezvous and flags, never by long sleeps, so the outcome does not depend on timing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "exec/waves.h"
#include "fake-link.h"
#include "test.h"

#define HOST_STEP(n) { .name = (n), .target = WAVE_TARGET_HOST }
#define CLUSTER_STEP(n, c) { .name = (n), .target = WAVE_TARGET_CLUSTER, .class = (c) }
#define DESTROY_STEP(n, t) { .name = (n), .target = (t), .class = WAVE_CLASS_CLUSTER_SERIAL, .destructive = true }

enum { MAX_HOSTS = 8 };

typedef struct Fixture {
        FakeLink *f;
        HostLink links[MAX_HOSTS];
        ClusterLink cluster;
        WaveOptions o;
        WaveReport *rep;
        Error err;
} Fixture;

static void fixture_init(Fixture *x, const WavePlan *p) {
        *x = (Fixture) { .f = fake_link_new() };
        for (size_t i = 0; i < p->n_hosts && i < MAX_HOSTS; i++)
                x->links[i] = fake_link_host(x->f, p->hosts[i].name);
        x->cluster = fake_link_cluster(x->f);
        x->o = (WaveOptions) { .parallel_hosts = 4, .parallel_steps = 4, .host_links = x->links,
                               .n_host_links = p->n_hosts, .cluster = &x->cluster, .tick_ms = 1 };
}

/* Runs, checks that the script was followed, and keeps the report for the test. */
static void fixture_run(Fixture *x, const WavePlan *p) {
        CHECK_INTEQ(waves_run(p, &x->o, &x->rep, &x->err), 0);
        CHECK_INTEQ(fake_link_verify(x->f), 0);
        CHECK(x->rep != NULL);
}

static void fixture_done(Fixture *x) {
        wave_report_free(x->rep);
        fake_link_free(x->f);
}

static const WaveStepReport *step_report(const WaveReport *r, const char *key) {
        for (size_t i = 0; r && i < r->n_steps; i++)
                if (streq(r->steps[i].key, key))
                        return &r->steps[i];
        fprintf(stderr, "no step '%s' in the report\n", key);
        return NULL;
}

/* Waves as a playbook's plan gives them (playbook_waves()): a batch of 2 (its first 2, 3 or 5
 * hosts), node1 and node3 in rackA before node2 in rackB, all in one wave. */
static const unsigned batch2[] = { 1, 1, 2, 2, 3 };
static const unsigned by_rack[] = { 1, 2, 1 };  /* as playbook_waves() cuts by failure domain */
static const unsigned all_one[] = { 1, 1, 1 };

static int step_state(const WaveReport *r, const char *key) {
        const WaveStepReport *s = step_report(r, key);
        return s ? (int) s->state : -1;
}

/* ---- waves ---- */

static void test_assign(void) {
        WaveHost h[] = {
                { .name = "node1" }, { .name = "node2" }, { .name = "node3" }, { .name = "node4" }, { .name = "node5" },
        };
        /* no waves given: one host per wave in the order given (the strategies that cut
         * waves are the playbook's: playbook_waves(), test-playbook's test_waves) */
        {
                WavePlan p = { .id = "t", .hosts = h, .n_hosts = 5 };
                _cleanup_(freep) unsigned *w = NULL;
                unsigned n = 0;
                Error err = {};
                CHECK_INTEQ(waves_assign(&p, &w, &n, &err), 0);
                CHECK_INTEQ(n, 5);
                for (size_t i = 0; w && i < 5; i++)
                        CHECK_INTEQ(w[i], i + 1);
        }

        /* waves given (as a printed plan had them): taken as they are, checked */
        unsigned given[] = { 2, 1, 2, 3, 1 };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 5, .waves = given };
        _cleanup_(freep) unsigned *w = NULL;
        unsigned n = 0;
        Error err = {};
        CHECK_INTEQ(waves_assign(&p, &w, &n, &err), 0);
        CHECK_INTEQ(n, 3);
        CHECK(w && w[0] == 2 && w[1] == 1 && w[3] == 3);
        unsigned gap[] = { 1, 1, 3, 3, 1 };
        p.waves = gap;
        CHECK_INTEQ(waves_assign(&p, &w, &n, &err), -EINVAL);
        CHECK(strstr(err.message, "wave 2 has no host") != NULL);
}

static void test_serial_order(void) {
        WaveStep steps[] = { HOST_STEP("stop"), CLUSTER_STEP("out", WAVE_CLASS_CLUSTER_SERIAL) };
        WaveStep before[] = { CLUSTER_STEP("set-flag", WAVE_CLASS_CLUSTER_SERIAL) };
        WaveStep after[] = { CLUSTER_STEP("unset-flag", WAVE_CLASS_CLUSTER_SERIAL) };
        WaveHost h[] = { { "node1", steps, 2 }, { "node2", steps, 2 }, { "node3", steps, 2 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 3, .before = before,
                       .n_before = 1, .after = after, .n_after = 1 };
        Fixture x;
        fixture_init(&x, &p);
        fake_link_expect_ok(x.f, "cluster", "set-flag");
        fake_link_barrier(x.f);
        const char *where[] = { "cluster@node1", "cluster@node2", "cluster@node3" };
        for (int i = 0; i < 3; i++) {
                fake_link_expect_ok(x.f, h[i].name, "stop");
                fake_link_barrier(x.f);
                fake_link_expect_ok(x.f, where[i], "out");
                fake_link_barrier(x.f);
        }
        fake_link_expect_ok(x.f, "cluster", "unset-flag");
        fixture_run(&x, &p);

        _cleanup_(freep) char *calls = fake_link_calls(x.f);
        CHECK_STREQ(calls, "cluster set-flag, node1 stop, cluster@node1 out, node2 stop, cluster@node2 out, "
                           "node3 stop, cluster@node3 out, cluster unset-flag");
        CHECK_INTEQ(x.rep->status, WAVE_STATUS_OK);
        CHECK_INTEQ(x.rep->n_waves, 3);
        CHECK_INTEQ(x.rep->n_done, 8);
        CHECK_INTEQ(x.rep->n_failed + x.rep->n_not_run + x.rep->n_earlier, 0);
        CHECK_INTEQ(x.rep->hosts[2].wave, 3);
        CHECK_INTEQ(x.rep->hosts[2].n_done, 2);
        fixture_done(&x);
}

static void test_batch(void) {
        WaveStep steps[] = { HOST_STEP("work") };
        WaveHost h[5];
        const char *names[] = { "node1", "node2", "node3", "node4", "node5" };
        for (int i = 0; i < 5; i++)
                h[i] = (WaveHost) { names[i], steps, 1 };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 5, .waves = batch2 };
        Fixture x;
        fixture_init(&x, &p);
        x.o.parallel_hosts = 2;
        /* the two hosts of a wave are in flight together (meet), and a wave starts only when
         * the previous one is over (barrier) */
        for (int w = 0; w < 3; w++) {
                for (int i = 2 * w; i < 2 * w + 2 && i < 5; i++)
                        fake_link_expect(x.f, (FakeExpect) { .where = names[i], .name = "work", .meet = i < 4 ? (unsigned) w + 1 : 0,
                                                             .meet_count = 2 });
                fake_link_barrier(x.f);
        }
        fixture_run(&x, &p);
        CHECK_INTEQ(x.rep->n_waves, 3);
        CHECK_INTEQ(x.rep->waves[0].n_hosts, 2);
        CHECK_INTEQ(x.rep->waves[1].n_hosts, 2);
        CHECK_INTEQ(x.rep->waves[2].n_hosts, 1);
        CHECK_INTEQ(x.rep->hosts[4].wave, 3);
        CHECK_INTEQ(x.rep->status, WAVE_STATUS_OK);
        fixture_done(&x);
}

static void test_failure_domain_gate(void) {
        WaveStep steps[] = { HOST_STEP("work") };
        WaveStep gate[] = { CLUSTER_STEP("health-gate", WAVE_CLASS_WAIT) };
        WaveStep after[] = { CLUSTER_STEP("restore", WAVE_CLASS_CLUSTER_SERIAL) };
        WaveHost h[] = { { "node1", steps, 1 }, { "node2", steps, 1 }, { "node3", steps, 1 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 3, .waves = by_rack, .gate = gate,
                       .n_gate = 1, .after = after, .n_after = 1 };
        Fixture x;
        fixture_init(&x, &p);
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "work", .meet = 1, .meet_count = 2 });
        fake_link_expect(x.f, (FakeExpect) { .where = "node3", .name = "work", .meet = 1, .meet_count = 2 });
        fake_link_barrier(x.f);
        fake_link_expect_ok(x.f, "cluster", "health-gate"); /* once: not after the last wave */
        fake_link_barrier(x.f);
        fake_link_expect_ok(x.f, "node2", "work");
        fake_link_barrier(x.f);
        fake_link_expect_ok(x.f, "cluster", "restore");
        fixture_run(&x, &p);
        CHECK_INTEQ(x.rep->n_waves, 2);
        CHECK(x.rep->waves[0].gate_ran && !x.rep->waves[0].gate_failed);
        CHECK(!x.rep->waves[1].gate_ran);
        CHECK_INTEQ(step_state(x.rep, "gate:1:0:health-gate"), WAVE_STEP_DONE);
        CHECK_INTEQ(x.rep->status, WAVE_STATUS_OK);
        fixture_done(&x);
}

static void test_gate_failure(void) {
        WaveStep steps[] = { HOST_STEP("work") };
        WaveStep gate[] = { CLUSTER_STEP("health-gate", WAVE_CLASS_WAIT) };
        WaveStep after[] = { CLUSTER_STEP("restore", WAVE_CLASS_CLUSTER_SERIAL) };
        WaveHost h[] = { { "node1", steps, 1 }, { "node2", steps, 1 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 2, .gate = gate, .n_gate = 1,
                       .after = after, .n_after = 1 };
        Fixture x;
        fixture_init(&x, &p);
        fake_link_expect_ok(x.f, "node1", "work");
        fake_link_barrier(x.f);
        fake_link_expect(x.f, (FakeExpect) { .where = "cluster", .name = "health-gate", .error = EBUSY });
        fake_link_barrier(x.f);
        fake_link_expect(x.f, (FakeExpect) { .where = "cluster", .name = "restore", .expect_not_cancelled = true });
        fixture_run(&x, &p); /* node2 work would be an unexpected call */

        CHECK_INTEQ(x.rep->status, WAVE_STATUS_FAILED);
        CHECK(x.rep->error && strstr(x.rep->error, "health-gate"));
        CHECK(x.rep->waves[0].gate_failed && x.rep->waves[0].failed);
        CHECK(!x.rep->waves[1].started);
        CHECK_INTEQ(x.rep->hosts[1].n_not_run, 1);
        CHECK_INTEQ(step_state(x.rep, "after:0:restore"), WAVE_STEP_DONE);
        CHECK(!x.rep->after_failed);

        /* the same report as text and JSON */
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        wave_report_print(x.rep, f);
        fclose(f);
        CHECK(text && strstr(text, "gate after wave 1"));
        CHECK(text && strstr(text, "health-gate=failed"));
        CHECK(text && strstr(text, "node2") && strstr(text, "failed: gate: "));
        free(text);
        _cleanup_json_ json_object *j = NULL;
        CHECK_INTEQ(wave_report_to_json(x.rep, &j), 0);
        const char *status = NULL;
        json_object *waves = NULL, *steps_a = NULL;
        CHECK_INTEQ(json_get_string(j, "status", true, &status, "report", NULL), 0);
        CHECK_STREQ(status, "failed");
        CHECK_INTEQ(json_get_array(j, "waves", true, &waves, "report", NULL), 0);
        CHECK_INTEQ(json_get_array(j, "steps", true, &steps_a, "report", NULL), 0);
        CHECK_INTEQ(steps_a ? json_object_array_length(steps_a) : 0, 2 + 1 + 1); /* 2 host, 1 gate slot, 1 after */
        bool started = true;
        if (waves && json_object_array_length(waves) == 2)
                json_get_bool(json_object_array_get_idx(waves, 1), "started", true, &started, "wave", NULL);
        CHECK(!started);
        fixture_done(&x);
}

/* ---- on_failure ---- */

static void test_on_failure_stop(void) {
        WaveStep s1[] = { { .name = "a", .target = WAVE_TARGET_HOST }, HOST_STEP("b") };
        WaveStep s2[] = { CLUSTER_STEP("wait-x", WAVE_CLASS_WAIT), HOST_STEP("c") };
        WaveStep s3[] = { HOST_STEP("work") };
        WaveStep after[] = { CLUSTER_STEP("restore", WAVE_CLASS_CLUSTER_SERIAL) };
        WaveHost h[] = { { "node1", s1, 2 }, { "node2", s2, 2 }, { "node3", s3, 1 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 3, .waves = batch2,
                       .after = after, .n_after = 1, .on_failure = WAVE_ON_FAILURE_STOP };
        Fixture x;
        fixture_init(&x, &p);
        /* node1's a fails while node2's wait runs: the wait sees the cancel, nothing starts */
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "a", .meet = 1, .meet_count = 2, .error = EIO });
        fake_link_expect(x.f, (FakeExpect) { .where = "cluster@node2", .name = "wait-x", .meet = 1, .meet_count = 2,
                                             .until_cancelled = true });
        fake_link_barrier(x.f);
        fake_link_expect(x.f, (FakeExpect) { .where = "cluster", .name = "restore", .expect_not_cancelled = true });
        fixture_run(&x, &p);

        CHECK_INTEQ(x.rep->status, WAVE_STATUS_FAILED);
        CHECK_INTEQ(step_state(x.rep, "host:node1:0:a"), WAVE_STEP_FAILED);
        CHECK_INTEQ(step_state(x.rep, "host:node1:1:b"), WAVE_STEP_NOT_RUN);
        CHECK_INTEQ(step_state(x.rep, "host:node2:0:wait-x"), WAVE_STEP_CANCELLED);
        CHECK_INTEQ(step_state(x.rep, "host:node2:1:c"), WAVE_STEP_NOT_RUN);
        CHECK_INTEQ(step_state(x.rep, "host:node3:0:work"), WAVE_STEP_NOT_RUN);
        CHECK(!x.rep->waves[1].started);
        CHECK(x.rep->error && strstr(x.rep->error, "node1"));
        CHECK(x.rep->hosts[0].first_error && strstr(x.rep->hosts[0].first_error, "fails on purpose"));
        fixture_done(&x);
}

static void test_on_failure_continue(void) {
        WaveStep s1[] = { HOST_STEP("a"), HOST_STEP("b") };
        WaveStep s2[] = { HOST_STEP("x"), HOST_STEP("y"), HOST_STEP("c") };
        WaveStep s3[] = { HOST_STEP("work") };
        WaveStep after[] = { CLUSTER_STEP("restore", WAVE_CLASS_CLUSTER_SERIAL) };
        WaveHost h[] = { { "node1", s1, 2 }, { "node2", s2, 3 }, { "node3", s3, 1 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 3, .waves = batch2,
                       .after = after, .n_after = 1, .on_failure = WAVE_ON_FAILURE_CONTINUE };
        Fixture x;
        fixture_init(&x, &p);
        atomic_int a_returned = 0;
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "a", .error = EIO, .chain = "failure",
                                             .bump_on_return = &a_returned });
        /* node2 is past x only once a has failed; then it goes on to y and c */
        fake_link_expect(x.f, (FakeExpect) { .where = "node2", .name = "x", .hold_until = &a_returned, .hold_value = 1 });
        fake_link_expect(x.f, (FakeExpect) { .where = "node2", .name = "y", .chain = "failure", .delay_ms = 2 });
        fake_link_expect(x.f, (FakeExpect) { .where = "node2", .name = "c", .chain = "failure" });
        fake_link_barrier(x.f);
        fake_link_expect_ok(x.f, "cluster", "restore");
        fixture_run(&x, &p);

        CHECK_INTEQ(x.rep->status, WAVE_STATUS_FAILED);
        CHECK_INTEQ(step_state(x.rep, "host:node1:1:b"), WAVE_STEP_NOT_RUN);
        CHECK_INTEQ(step_state(x.rep, "host:node2:2:c"), WAVE_STEP_DONE);
        CHECK_INTEQ(step_state(x.rep, "host:node3:0:work"), WAVE_STEP_NOT_RUN);
        CHECK_INTEQ(x.rep->hosts[1].n_done, 3);
        CHECK(!x.rep->waves[1].started);
        fixture_done(&x);
}

/* ---- cancel ---- */

static void test_cancel(void) {
        volatile sig_atomic_t cancel = 0;
        WaveStep s[] = { HOST_STEP("a"), HOST_STEP("b") };
        WaveStep after[] = { CLUSTER_STEP("restore", WAVE_CLASS_CLUSTER_SERIAL) };
        WaveHost h[] = { { "node1", s, 2 }, { "node2", s, 2 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 2, .after = after,
                       .n_after = 1 };
        Fixture x;
        fixture_init(&x, &p);
        x.o.cancel = &cancel;
        /* Ctrl-C while a runs: a finishes, nothing new starts, restore runs uncancelled */
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "a", .raise = &cancel });
        fake_link_barrier(x.f);
        fake_link_expect(x.f, (FakeExpect) { .where = "cluster", .name = "restore", .expect_not_cancelled = true });
        fixture_run(&x, &p);

        CHECK_INTEQ(x.rep->status, WAVE_STATUS_CANCELLED);
        CHECK_INTEQ(step_state(x.rep, "host:node1:0:a"), WAVE_STEP_DONE);
        CHECK_INTEQ(step_state(x.rep, "host:node1:1:b"), WAVE_STEP_NOT_RUN);
        CHECK_INTEQ(x.rep->hosts[1].n_not_run, 2);
        CHECK(!x.rep->waves[1].started);
        CHECK_INTEQ(step_state(x.rep, "after:0:restore"), WAVE_STEP_DONE);
        fixture_done(&x);
}

static void test_cancel_running_wait(void) {
        volatile sig_atomic_t cancel = 0;
        WaveStep s[] = { CLUSTER_STEP("wait-clean", WAVE_CLASS_WAIT), HOST_STEP("stop") };
        WaveStep before[] = { CLUSTER_STEP("set-flag", WAVE_CLASS_CLUSTER_SERIAL) };
        WaveStep after[] = { CLUSTER_STEP("unset-flag", WAVE_CLASS_CLUSTER_SERIAL) };
        WaveHost h[] = { { "node1", s, 2 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 1, .before = before, .n_before = 1, .after = after,
                       .n_after = 1 };
        Fixture x;
        fixture_init(&x, &p);
        x.o.cancel = &cancel;
        fake_link_expect_ok(x.f, "cluster", "set-flag");
        fake_link_barrier(x.f);
        fake_link_expect(x.f, (FakeExpect) { .where = "cluster@node1", .name = "wait-clean", .raise = &cancel,
                                             .until_cancelled = true });
        fake_link_barrier(x.f);
        fake_link_expect(x.f, (FakeExpect) { .where = "cluster", .name = "unset-flag", .expect_not_cancelled = true });
        fixture_run(&x, &p);

        CHECK_INTEQ(x.rep->status, WAVE_STATUS_CANCELLED);
        const WaveStepReport *w = step_report(x.rep, "host:node1:0:wait-clean");
        CHECK(w && w->state == WAVE_STEP_CANCELLED && w->error_code == ECANCELED);
        CHECK_INTEQ(step_state(x.rep, "host:node1:1:stop"), WAVE_STEP_NOT_RUN);
        CHECK_INTEQ(step_state(x.rep, "after:0:unset-flag"), WAVE_STEP_DONE);
        fixture_done(&x);
}

/* ---- the tick ---- */

typedef struct TickState {
        FakeLink *f;
        WaveTickAction action;   /* what to answer once node1's first step was called */
        atomic_int answered;     /* ticks that answered `action` */
        int limit;               /* ... for this many ticks, then RUN */
        int calls_when_held;
        bool started_while_paused;
        bool saw_paused;
        int calls_at_release;
        atomic_int saw_progress;
        char *progress_seen;
} TickState;

static WaveTickAction tick_hook(void *userdata, const WaveTick *t) {
        TickState *s = userdata;
        int calls = fake_link_n_calls(s->f);

        if (t->progress_text && streq(t->progress_text, "12 PGs to move") && t->progress_fraction == 0.5 &&
            streq_ptr(t->progress_host, "node1") && streq_ptr(t->progress_step, "wait-clean") && t->wave == 1 &&
            t->n_waves == 1 && t->hosts_running == 1 && t->steps_total == 2)
                atomic_store(&s->saw_progress, 1);
        if (s->action == WAVE_TICK_RUN || calls < 1)
                return WAVE_TICK_RUN;
        int k = atomic_load(&s->answered);
        if (k >= s->limit) {
                if (k == s->limit) {
                        s->calls_at_release = calls;
                        atomic_store(&s->answered, k + 1);
                }
                return WAVE_TICK_RUN;
        }
        /* from the second answer on, the first has been applied: no new call may start */
        if (k == 1)
                s->calls_when_held = calls;
        else if (k > 1 && calls != s->calls_when_held)
                s->started_while_paused = true;
        if (k >= 1 && t->paused)
                s->saw_paused = true;
        atomic_store(&s->answered, k + 1);
        return s->action;
}

static void test_tick_pause(void) {
        WaveStep s[] = { HOST_STEP("a"), HOST_STEP("b") };
        WaveHost h[] = { { "node1", s, 2 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 1 };
        Fixture x;
        fixture_init(&x, &p);
        TickState ts = { .f = x.f, .action = WAVE_TICK_PAUSE, .limit = 8 };
        x.o.tick = tick_hook;
        x.o.tick_userdata = &ts;
        /* a returns only once the pause is in force; b must wait until the tick lifts it */
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "a", .hold_until = &ts.answered, .hold_value = 2 });
        fake_link_expect_ok(x.f, "node1", "b");
        fixture_run(&x, &p);

        CHECK(!ts.started_while_paused);
        CHECK(ts.saw_paused);
        CHECK_INTEQ(ts.calls_at_release, 1); /* b had not started when the pause ended */
        CHECK_INTEQ(x.rep->status, WAVE_STATUS_OK);
        CHECK_INTEQ(x.rep->n_done, 2);
        fixture_done(&x);
}

static void test_tick_stop(void) {
        WaveStep s[] = { HOST_STEP("a"), HOST_STEP("b") };
        WaveStep after[] = { CLUSTER_STEP("restore", WAVE_CLASS_CLUSTER_SERIAL) };
        WaveHost h[] = { { "node1", s, 2 }, { "node2", s, 2 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 2, .after = after, .n_after = 1 };
        Fixture x;
        fixture_init(&x, &p);
        TickState ts = { .f = x.f, .action = WAVE_TICK_STOP, .limit = 1000 };
        x.o.tick = tick_hook;
        x.o.tick_userdata = &ts;
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "a", .hold_until = &ts.answered, .hold_value = 2 });
        fake_link_barrier(x.f);
        fake_link_expect(x.f, (FakeExpect) { .where = "cluster", .name = "restore", .expect_not_cancelled = true });
        fixture_run(&x, &p);

        CHECK_INTEQ(x.rep->status, WAVE_STATUS_STOPPED);
        CHECK_INTEQ(step_state(x.rep, "host:node1:1:b"), WAVE_STEP_NOT_RUN);
        CHECK(!x.rep->waves[1].started);
        CHECK_INTEQ(step_state(x.rep, "after:0:restore"), WAVE_STEP_DONE);
        fixture_done(&x);
}

static void test_tick_progress(void) {
        WaveStep s[] = { CLUSTER_STEP("wait-clean", WAVE_CLASS_WAIT), HOST_STEP("stop") };
        WaveHost h[] = { { "node1", s, 2 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 1 };
        Fixture x;
        fixture_init(&x, &p);
        TickState ts = { .f = x.f, .action = WAVE_TICK_RUN };
        char *line = NULL;
        size_t len = 0;
        x.o.progress = open_memstream(&line, &len);
        x.o.tick = tick_hook;
        x.o.tick_userdata = &ts;
        /* the wait reports progress and returns only once a tick has seen it */
        fake_link_expect(x.f, (FakeExpect) { .where = "cluster@node1", .name = "wait-clean", .progress = 0.5,
                                             .progress_text = "12 PGs to move", .hold_until = &ts.saw_progress,
                                             .hold_value = 1 });
        fake_link_expect_ok(x.f, "node1", "stop");
        fixture_run(&x, &p);
        fclose(x.o.progress);
        CHECK(line && strstr(line, "node1 wait-clean 50% ETA 12 s 12 PGs to move"));
        CHECK(line && strstr(line, "wave 1/1"));
        free(line);
        fixture_done(&x);
}

/* ---- resume ---- */

static void test_resume(void) {
        WaveStep s[] = { CLUSTER_STEP("out", WAVE_CLASS_CLUSTER_SERIAL), CLUSTER_STEP("wait-safe", WAVE_CLASS_WAIT),
                         HOST_STEP("stop"), CLUSTER_STEP("purge", WAVE_CLASS_CLUSTER_SERIAL) };
        WaveStep before[] = { CLUSTER_STEP("set-flag", WAVE_CLASS_CLUSTER_SERIAL) };
        WaveStep after[] = { CLUSTER_STEP("unset-flag", WAVE_CLASS_CLUSTER_SERIAL) };
        WaveHost h[] = { { "node1", s, 4 } };
        char *done[] = { "host:node1:0:out", "host:node1:1:wait-safe", "before:0:set-flag", NULL };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 1, .before = before, .n_before = 1, .after = after,
                       .n_after = 1, .done_keys = done };
        Fixture x;
        fixture_init(&x, &p);
        /* out was done: skipped. The wait and before are run again: they re-check real state */
        fake_link_expect_ok(x.f, "cluster", "set-flag");
        fake_link_barrier(x.f);
        fake_link_expect_ok(x.f, "cluster@node1", "wait-safe");
        fake_link_expect_ok(x.f, "node1", "stop");
        fake_link_expect_ok(x.f, "cluster@node1", "purge");
        fake_link_barrier(x.f);
        fake_link_expect_ok(x.f, "cluster", "unset-flag");
        fixture_run(&x, &p);

        CHECK_INTEQ(step_state(x.rep, "host:node1:0:out"), WAVE_STEP_EARLIER);
        CHECK_INTEQ(step_state(x.rep, "host:node1:1:wait-safe"), WAVE_STEP_DONE);
        CHECK_INTEQ(x.rep->n_earlier, 1);
        CHECK_INTEQ(x.rep->hosts[0].n_earlier, 1);
        CHECK_INTEQ(x.rep->status, WAVE_STATUS_OK);
        fixture_done(&x);
}

/* A conversion killed on the second host: the first host finished, the gate after it
 * passed, the second host stopped and destroyed. Its waits and the gate are passed, not
 * checked again (ok-to-stop of OSDs already rebuilt, every PG clean while the second host
 * is half-way, would wait on what came after them); the second host's wait before its
 * stop, done, is passed too; what comes after the last done step runs. */
static void test_resume_passed(void) {
        WaveStep s[] = { CLUSTER_STEP("wait-ok-to-stop", WAVE_CLASS_WAIT), HOST_STEP("stop"),
                         DESTROY_STEP("destroy", WAVE_TARGET_CLUSTER), HOST_STEP("rebuild"),
                         CLUSTER_STEP("wait-clean", WAVE_CLASS_WAIT) };
        WaveStep gate[] = { CLUSTER_STEP("wait-clean", WAVE_CLASS_WAIT) };
        WaveStep before[] = { CLUSTER_STEP("health-gate", WAVE_CLASS_WAIT) };
        WaveHost h[] = { { "node2", s, 5 }, { "node3", s, 5 } };
        char *done[] = { "before:0:health-gate", "host:node2:0:wait-ok-to-stop", "host:node2:1:stop", "host:node2:2:destroy",
                         "host:node2:3:rebuild", "host:node2:4:wait-clean", "gate:1:0:wait-clean",
                         "host:node3:0:wait-ok-to-stop", "host:node3:1:stop", "host:node3:2:destroy", NULL };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 2, .before = before,
                       .n_before = 1, .gate = gate, .n_gate = 1, .done_keys = done };
        Fixture x;
        fixture_init(&x, &p);
        fake_link_expect_ok(x.f, "cluster", "health-gate"); /* before: always checked again */
        fake_link_barrier(x.f);
        fake_link_expect_ok(x.f, "node3", "rebuild");
        fake_link_barrier(x.f);
        fake_link_expect_ok(x.f, "cluster@node3", "wait-clean");
        fixture_run(&x, &p);

        _cleanup_(freep) char *calls = fake_link_calls(x.f);
        CHECK_STREQ(calls, "cluster health-gate, node3 rebuild, cluster@node3 wait-clean");
        for (const char *const *k = (const char *const[]) { "host:node2:0:wait-ok-to-stop", "host:node2:4:wait-clean",
                                                            "gate:1:0:wait-clean", "host:node3:0:wait-ok-to-stop",
                                                            "host:node3:2:destroy", NULL };
             *k; k++)
                CHECK_INTEQ(step_state(x.rep, *k), WAVE_STEP_EARLIER);
        CHECK_INTEQ(step_state(x.rep, "host:node3:4:wait-clean"), WAVE_STEP_DONE);
        CHECK_INTEQ(x.rep->n_earlier, 9);
        CHECK_INTEQ(x.rep->status, WAVE_STATUS_OK);
        fixture_done(&x);
}

/* A conversion killed after it stopped node1's OSDs, before it destroyed them (issue 26):
 * the re-run asks ok-to-stop again (a gate before a destructive step not yet done is never
 * passed: another host may have failed while the run was dead), skips the stop it did, and
 * only then destroys and wipes. Once destroy is done, the wait before it is passed, as
 * before (test_resume_passed), while one between destroy and a wipe not done yet is asked
 * again: each wait guards the next destructive step. */
static void test_resume_gate_before_destroy(void) {
        WaveStep s[] = { CLUSTER_STEP("wait-ok-to-stop", WAVE_CLASS_WAIT), HOST_STEP("stop"),
                         DESTROY_STEP("destroy", WAVE_TARGET_CLUSTER), CLUSTER_STEP("wait-x", WAVE_CLASS_WAIT),
                         DESTROY_STEP("wipe", WAVE_TARGET_HOST), HOST_STEP("rebuild") };
        WaveHost h[] = { { "node1", s, 6 }, { "node2", s, 6 } };
        char *done[] = { "host:node1:0:wait-ok-to-stop", "host:node1:1:stop", "host:node2:0:wait-ok-to-stop",
                         "host:node2:1:stop", "host:node2:2:destroy", "host:node2:3:wait-x", NULL };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 2, .waves = batch2,
                       .done_keys = done };
        Fixture x;
        fixture_init(&x, &p);
        fake_link_expect_ok(x.f, "cluster@node1", "wait-ok-to-stop");
        fake_link_expect_ok(x.f, "cluster@node1", "destroy");
        fake_link_expect_ok(x.f, "cluster@node1", "wait-x");
        fake_link_expect_ok(x.f, "node1", "wipe");
        fake_link_expect_ok(x.f, "node1", "rebuild");
        fake_link_expect_ok(x.f, "cluster@node2", "wait-x");
        fake_link_expect_ok(x.f, "node2", "wipe");
        fake_link_expect_ok(x.f, "node2", "rebuild");
        fixture_run(&x, &p);

        CHECK_INTEQ(step_state(x.rep, "host:node1:0:wait-ok-to-stop"), WAVE_STEP_DONE);
        CHECK_INTEQ(step_state(x.rep, "host:node1:1:stop"), WAVE_STEP_EARLIER);
        CHECK_INTEQ(step_state(x.rep, "host:node2:0:wait-ok-to-stop"), WAVE_STEP_EARLIER);
        CHECK_INTEQ(step_state(x.rep, "host:node2:2:destroy"), WAVE_STEP_EARLIER);
        CHECK_INTEQ(step_state(x.rep, "host:node2:3:wait-x"), WAVE_STEP_DONE);
        CHECK_INTEQ(x.rep->status, WAVE_STATUS_OK);
        fixture_done(&x);
}

static void test_resume_from_journal(void) {
        char dir[] = "/tmp/cephprov-test-waves-XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        _cleanup_(freep) char *path = strprintf("%s/ceph.journal", dir);
        Error err = {};
        char **keys = NULL;

        CHECK_INTEQ(journal_done_step_keys(path, "drain:node1", &keys, &err), 0); /* no file yet */
        CHECK_INTEQ(strv_length(keys), 0);
        keys = strv_free(keys);

        WaveStep s[] = { HOST_STEP("a"), HOST_STEP("b") };
        WaveHost h[] = { { "node1", s, 2 }, { "node2", s, 2 } };
        WavePlan p = { .id = "drain:node1", .hosts = h, .n_hosts = 2 };

        /* run 1: b fails on node1 */
        Journal *j = NULL;
        CHECK_INTEQ(journal_open(dir, "ceph", "test", &j, &err), 0);
        Fixture x;
        fixture_init(&x, &p);
        x.o.journal = j;
        fake_link_expect_ok(x.f, "node1", "a");
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "b", .error = EIO });
        fixture_run(&x, &p);
        CHECK_INTEQ(x.rep->status, WAVE_STATUS_FAILED);
        fixture_done(&x);
        journal_close(j);

        /* the failure's record names the run, the step and its place */
        _cleanup_json_ json_object *recs = NULL;
        CHECK_INTEQ(journal_read(path, &recs, &err), 0);
        bool found = false;
        for (size_t i = 0; recs && i < json_object_array_length(recs); i++) {
                json_object *rec = json_object_array_get_idx(recs, i);
                const char *ev = NULL, *key = NULL, *id = NULL, *host = NULL, *en = NULL;
                uint64_t wave = 0, index = 9;
                json_get_string(rec, "event", false, &ev, "r", NULL);
                if (!streq_ptr(ev, "wave-step-failed"))
                        continue;
                json_get_string(rec, "key", false, &key, "r", NULL);
                json_get_string(rec, "waves", false, &id, "r", NULL);
                json_get_string(rec, "host", false, &host, "r", NULL);
                json_get_string(rec, "errno", false, &en, "r", NULL);
                json_get_u64(rec, "wave", false, &wave, "r", NULL);
                json_get_u64(rec, "index", false, &index, "r", NULL);
                found = streq_ptr(key, "host:node1:1:b") && streq_ptr(id, "drain:node1") && streq_ptr(host, "node1") &&
                        streq_ptr(en, "EIO") && wave == 1 && index == 1;
        }
        CHECK(found);

        CHECK_INTEQ(journal_done_step_keys(path, "drain:node1", &keys, &err), 0);
        CHECK_INTEQ(strv_length(keys), 1);
        CHECK(strv_contains(keys, "host:node1:0:a"));
        char **other = NULL;
        CHECK_INTEQ(journal_done_step_keys(path, "drain:node2", &other, &err), 0);
        CHECK_INTEQ(strv_length(other), 0);
        strv_free(other);

        /* run 2 resumes: a is done earlier, the rest runs and the run ends ok */
        CHECK_INTEQ(journal_open(dir, "ceph", "test", &j, &err), 0);
        p.done_keys = keys;
        fixture_init(&x, &p);
        x.o.journal = j;
        fake_link_expect_ok(x.f, "node1", "b");
        fake_link_barrier(x.f);
        fake_link_expect_ok(x.f, "node2", "a");
        fake_link_expect_ok(x.f, "node2", "b");
        fixture_run(&x, &p);
        CHECK_INTEQ(x.rep->status, WAVE_STATUS_OK);
        CHECK_INTEQ(step_state(x.rep, "host:node1:0:a"), WAVE_STEP_EARLIER);
        fixture_done(&x);
        journal_close(j);
        keys = strv_free(keys);

        /* a finished procedure starts over next time */
        CHECK_INTEQ(journal_done_step_keys(path, "drain:node1", &keys, &err), 0);
        CHECK_INTEQ(strv_length(keys), 0);
        keys = strv_free(keys);

        _cleanup_(freep) char *lock = strprintf("%s/ceph.lock", dir);
        unlink(path);
        unlink(lock);
        rmdir(dir);
}

/* Records belong to one run (issue 26): `drain node4` killed late (every host step done, its
 * restore not), then `drain --cancel node4` (another playbook: the OSDs in and started),
 * then `drain node4` again must drain for real, not skip out and stop as done. A run of
 * another procedure on the host ends the earlier procedure's records of that host; one on
 * another host does not; records the procedure's own run writes without its id (a
 * conversion's phases) do not; apply acting on the host does. */
static void run_journaled(const char *dir, const WavePlan *p, const char *fail_after, WaveStatus want) {
        Error err = {};
        Journal *j = NULL;
        CHECK_INTEQ(journal_open(dir, "ceph", "test", &j, &err), 0);
        Fixture x;
        fixture_init(&x, p);
        x.o.journal = j;
        char where[8][64];
        const WaveHost *h = &p->hosts[0]; /* one host */
        for (size_t i = 0; i < h->n_steps && i < 8; i++) {
                const WaveStep *s = &h->steps[i];
                _cleanup_(freep) char *key = waves_step_key(WAVE_PHASE_HOSTS, h->name, 0, i, s->name);
                if (s->class != WAVE_CLASS_WAIT && strv_contains(p->done_keys, key))
                        continue; /* done earlier */
                snprintf(where[i], sizeof where[i], s->target == WAVE_TARGET_HOST ? "%s" : "cluster@%s", h->name);
                fake_link_expect(x.f, (FakeExpect) { .where = where[i], .name = s->name });
        }
        for (size_t i = 0; i < p->n_after; i++)
                fake_link_expect(x.f, (FakeExpect) { .where = "cluster", .name = p->after[i].name,
                                                     .error = fail_after && streq(fail_after, p->after[i].name) ? EIO : 0 });
        fixture_run(&x, p);
        CHECK_INTEQ(x.rep->status, want);
        fixture_done(&x);
        journal_close(j);
}

static void test_resume_other_playbook(void) {
        char dir[] = "/tmp/cephprov-test-waves-XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        _cleanup_(freep) char *path = strprintf("%s/ceph.journal", dir);
        Error err = {};

        WaveStep drain[] = { CLUSTER_STEP("out", WAVE_CLASS_CLUSTER_SERIAL), CLUSTER_STEP("wait-safe", WAVE_CLASS_WAIT),
                             HOST_STEP("stop-osd") };
        WaveStep cancel[] = { CLUSTER_STEP("in", WAVE_CLASS_CLUSTER_SERIAL), HOST_STEP("start-osd") };
        WaveStep after[] = { CLUSTER_STEP("restore-throttle", WAVE_CLASS_CLUSTER_SERIAL) };
        WaveHost d4[] = { { "node4", drain, 3 } }, c4[] = { { "node4", cancel, 2 } },
                 c5[] = { { "node5", cancel, 2 } };
        WavePlan dp = { .id = "drain-node:node4", .hosts = d4, .n_hosts = 1, .after = after, .n_after = 1 };
        WavePlan cp4 = { .id = "drain-cancel:node4", .hosts = c4, .n_hosts = 1, .after = after, .n_after = 1 };
        WavePlan cp5 = { .id = "drain-cancel:node5", .hosts = c5, .n_hosts = 1, .after = after, .n_after = 1 };

        /* the drain did every host step; its restore failed (as good as killed there) */
        run_journaled(dir, &dp, "restore-throttle", WAVE_STATUS_FAILED);
        char **keys = NULL;
        CHECK_INTEQ(journal_done_step_keys(path, dp.id, &keys, &err), 0);
        CHECK_INTEQ(strv_length(keys), 3);
        keys = strv_free(keys);

        /* a cancel of another host changes nothing for node4 */
        run_journaled(dir, &cp5, NULL, WAVE_STATUS_OK);
        CHECK_INTEQ(journal_done_step_keys(path, dp.id, &keys, &err), 0);
        CHECK_INTEQ(strv_length(keys), 3);
        keys = strv_free(keys);

        /* the cancel of node4 ends the drain's records of node4 */
        run_journaled(dir, &cp4, NULL, WAVE_STATUS_OK);
        CHECK_INTEQ(journal_done_step_keys(path, dp.id, &keys, &err), 0);
        CHECK_INTEQ(strv_length(keys), 0);

        /* the drain again runs every step: out and stop are not "done earlier" */
        dp.done_keys = keys;
        run_journaled(dir, &dp, "restore-throttle", WAVE_STATUS_FAILED);
        keys = strv_free(keys);
        dp.done_keys = NULL;

        /* a record of the drain's own run without its id (e.g. a phase record) keeps them */
        CHECK_INTEQ(journal_done_step_keys(path, dp.id, &keys, &err), 0);
        CHECK_INTEQ(strv_length(keys), 3);
        keys = strv_free(keys);
        _cleanup_json_ json_object *recs = NULL;
        CHECK_INTEQ(journal_read(path, &recs, &err), 0);
        const char *last_run = NULL;
        for (size_t i = 0; recs && i < json_object_array_length(recs); i++)
                json_get_string(json_object_array_get_idx(recs, i), "run", false, &last_run, "r", NULL);
        CHECK(last_run != NULL);
        {
                _cleanup_(freep) char *line = strprintf("{\"time\":\"x\",\"run\":\"%s\",\"event\":\"convert-phase\","
                                                        "\"host\":\"node4\",\"device\":\"/dev/sdb\"}\n", last_run);
                FILE *f = fopen(path, "ae");
                CHECK(f && line && fputs(line, f) >= 0);
                if (f)
                        fclose(f);
        }
        CHECK_INTEQ(journal_done_step_keys(path, dp.id, &keys, &err), 0);
        CHECK_INTEQ(strv_length(keys), 3);
        keys = strv_free(keys);

        /* apply acting on node4 (another run, records without a procedure) ends them */
        Journal *j = NULL;
        CHECK_INTEQ(journal_open(dir, "ceph", "apply", &j, &err), 0);
        journal_append_osd(j, "osd-allocated", "node4", "/dev/sdb", 9, NULL, NULL, NULL);
        journal_close(j);
        CHECK_INTEQ(journal_done_step_keys(path, dp.id, &keys, &err), 0);
        CHECK_INTEQ(strv_length(keys), 0);
        keys = strv_free(keys);

        _cleanup_(freep) char *lock = strprintf("%s/ceph.lock", dir);
        unlink(path);
        unlink(lock);
        rmdir(dir);
}

/* ---- concurrency classes ---- */

static void test_cluster_serial(void) {
        WaveStep s[] = { CLUSTER_STEP("out", WAVE_CLASS_CLUSTER_SERIAL), CLUSTER_STEP("wait", WAVE_CLASS_WAIT) };
        WaveHost h[] = { { "node1", s, 2 }, { "node2", s, 2 }, { "node3", s, 2 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 3, .waves = all_one };
        Fixture x;
        fixture_init(&x, &p);
        const char *where[] = { "cluster@node1", "cluster@node2", "cluster@node3" };
        for (int i = 0; i < 3; i++) {
                fake_link_expect(x.f, (FakeExpect) { .where = where[i], .name = "out", .tag = "mutation", .delay_ms = 2 });
                /* the waits of all three hosts are in flight together */
                fake_link_expect(x.f, (FakeExpect) { .where = where[i], .name = "wait", .meet = 1, .meet_count = 3 });
        }
        fixture_run(&x, &p);
        CHECK_INTEQ(fake_link_max_in_flight(x.f, "mutation"), 1);
        CHECK_INTEQ(x.rep->n_done, 6);
        fixture_done(&x);
}

static void test_parallel_steps(void) {
        WaveStep s[] = { CLUSTER_STEP("p1", WAVE_CLASS_PARALLEL), CLUSTER_STEP("p2", WAVE_CLASS_PARALLEL),
                         CLUSTER_STEP("p3", WAVE_CLASS_PARALLEL), HOST_STEP("last") };
        for (int i = 0; i < 3; i++)
                s[i].target = WAVE_TARGET_HOST;
        WaveHost h[] = { { "node1", s, 4 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 1 };
        Fixture x;
        fixture_init(&x, &p);
        x.o.parallel_steps = 2;
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "p1", .chain = "", .meet = 1, .meet_count = 2, .tag = "par" });
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "p2", .chain = "", .meet = 1, .meet_count = 2, .tag = "par" });
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "p3", .chain = "", .tag = "par", .delay_ms = 1 });
        fake_link_barrier(x.f); /* the serial step after them waits for all three */
        fake_link_expect_ok(x.f, "node1", "last");
        fixture_run(&x, &p);
        CHECK_INTEQ(fake_link_max_in_flight(x.f, "par"), 2);
        fixture_done(&x);
}

static void test_parallel_exclusive(void) {
        WaveStep s[] = {
                { .name = "wipe-b", .target = WAVE_TARGET_HOST, .class = WAVE_CLASS_PARALLEL, .exclusive = "/dev/sdb" },
                { .name = "wipe-c", .target = WAVE_TARGET_HOST, .class = WAVE_CLASS_PARALLEL, .exclusive = "/dev/sdc" },
                { .name = "zap-b", .target = WAVE_TARGET_HOST, .class = WAVE_CLASS_PARALLEL, .exclusive = "/dev/sdb" },
                { .name = "zap-c", .target = WAVE_TARGET_HOST, .class = WAVE_CLASS_PARALLEL, .exclusive = "/dev/sdc" },
        };
        WaveHost h[] = { { "node1", s, 4 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 1 };
        Fixture x;
        fixture_init(&x, &p);
        /* two devices side by side; on one device one step at a time, in order */
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "wipe-b", .chain = "b", .tag = "b", .meet = 1, .meet_count = 2 });
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "wipe-c", .chain = "c", .tag = "c", .meet = 1, .meet_count = 2 });
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "zap-b", .chain = "b", .tag = "b", .delay_ms = 1 });
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "zap-c", .chain = "c", .tag = "c", .delay_ms = 1 });
        fixture_run(&x, &p);
        CHECK_INTEQ(fake_link_max_in_flight(x.f, "b"), 1);
        CHECK_INTEQ(fake_link_max_in_flight(x.f, "c"), 1);
        CHECK_INTEQ(x.rep->n_done, 4);
        fixture_done(&x);
}

/* ---- lists run by their deps (apply's disk plan, exec_run()) ---- */

static void test_by_deps(void) {
        static const size_t on_gpt[] = { 0 }, on_a[] = { 1 }, on_b[] = { 2 };
        WaveStep s[] = {
                { .name = "gpt", .target = WAVE_TARGET_HOST },
                { .name = "part-a", .target = WAVE_TARGET_HOST, .deps = on_gpt, .n_deps = 1 },
                { .name = "part-b", .target = WAVE_TARGET_HOST, .deps = on_gpt, .n_deps = 1 },
                { .name = "osd-a", .target = WAVE_TARGET_HOST, .class = WAVE_CLASS_PARALLEL, .deps = on_a, .n_deps = 1,
                  .title = "#4 create-osd /dev/sda" },
                { .name = "osd-b", .target = WAVE_TARGET_HOST, .class = WAVE_CLASS_PARALLEL, .deps = on_b, .n_deps = 1,
                  .title = "#5 create-osd /dev/sdb" },
        };
        WaveHost h[] = { { .name = "node1", .steps = s, .n_steps = 5, .by_deps = true } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 1, .on_failure = WAVE_ON_FAILURE_CONTINUE };

        /* an OSD starts as soon as its partition is made, beside the next partition (they
         * meet: both in flight at once); the partitions one at a time, after the GPT */
        Fixture x;
        fixture_init(&x, &p);
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "gpt", .chain = "disk" });
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "part-a", .chain = "disk", .tag = "disk" });
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "part-b", .chain = "disk", .tag = "disk",
                                             .meet = 1, .meet_count = 2 });
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "osd-a", .chain = "a", .meet = 1, .meet_count = 2 });
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "osd-b", .chain = "" });
        fixture_run(&x, &p);
        CHECK_INTEQ(x.rep->n_done, 5);
        CHECK_INTEQ(fake_link_max_in_flight(x.f, "disk"), 1);
        fixture_done(&x);

        /* part-b fails: osd-b is not run, with the reason; the rest of the list goes on */
        char *text = NULL;
        size_t len = 0;
        fixture_init(&x, &p);
        x.o.out = open_memstream(&text, &len);
        fake_link_expect_ok(x.f, "node1", "gpt");
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "part-a", .chain = "" });
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "part-b", .chain = "", .error = EIO });
        fake_link_expect(x.f, (FakeExpect) { .where = "node1", .name = "osd-a", .chain = "" });
        fixture_run(&x, &p);
        fclose(x.o.out);
        CHECK_INTEQ(x.rep->n_done, 3);
        CHECK_INTEQ(x.rep->n_failed, 1);
        CHECK_INTEQ(x.rep->n_not_run, 1);
        const WaveStepReport *b = step_report(x.rep, "host:node1:4:osd-b");
        CHECK(b && b->state == WAVE_STEP_NOT_RUN && b->error && strstr(b->error, "2 part-b did not succeed"));
        CHECK(text && strstr(text, "skipped  #5 create-osd /dev/sdb: 2 part-b did not succeed"));
        CHECK(text && strstr(text, "done     #4 create-osd /dev/sda"));
        CHECK_INTEQ(x.rep->status, WAVE_STATUS_FAILED);
        free(text);
        fixture_done(&x);

        /* deps point back, and only a by_deps list has them */
        static const size_t forward[] = { 1 };
        WaveStep bad[] = { { .name = "a", .target = WAVE_TARGET_HOST, .deps = forward, .n_deps = 1 },
                           { .name = "b", .target = WAVE_TARGET_HOST } };
        WaveHost hb[] = { { .name = "node1", .steps = bad, .n_steps = 2, .by_deps = true } };
        WavePlan pb = { .id = "t", .hosts = hb, .n_hosts = 1 };
        WaveOptions o = { .dry_run = true, .tick_ms = 1 };
        WaveReport *rep = NULL;
        Error err = {};
        CHECK_INTEQ(waves_run(&pb, &o, &rep, &err), -EINVAL);
        CHECK(strstr(err.message, "depends on step #1, which does not come before it") != NULL);
        hb[0].by_deps = false;
        bad[0].deps = on_gpt;
        bad[1].deps = on_gpt;
        bad[1].n_deps = 1;
        bad[0].n_deps = 0;
        error_reset(&err);
        CHECK_INTEQ(waves_run(&pb, &o, &rep, &err), -EINVAL);
        CHECK(strstr(err.message, "a list run in order cannot say") != NULL);
        CHECK(rep == NULL);
}

/* ---- timeouts ---- */

static void test_timeout(void) {
        WaveStep s1[] = { { .name = "wait-clean", .target = WAVE_TARGET_CLUSTER, .class = WAVE_CLASS_WAIT, .timeout_ms = 3 },
                          HOST_STEP("stop") };
        WaveStep s2[] = { { .name = "slow", .target = WAVE_TARGET_HOST, .timeout_ms = 2 } };
        WaveHost h[] = { { "node1", s1, 2 }, { "node2", s2, 1 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 2, .waves = batch2,
                       .on_failure = WAVE_ON_FAILURE_CONTINUE };
        Fixture x;
        fixture_init(&x, &p);
        /* the wait sees its cancel check turn true at the deadline; the host step is late */
        fake_link_expect(x.f, (FakeExpect) { .where = "cluster@node1", .name = "wait-clean", .until_cancelled = true });
        fake_link_expect(x.f, (FakeExpect) { .where = "node2", .name = "slow", .delay_ms = 6 });
        fixture_run(&x, &p);
        const WaveStepReport *w = step_report(x.rep, "host:node1:0:wait-clean");
        CHECK(w && w->state == WAVE_STEP_FAILED && w->error_code == ETIMEDOUT);
        CHECK(w && w->error && strstr(w->error, "timed out"));
        const WaveStepReport *sl = step_report(x.rep, "host:node2:0:slow");
        CHECK(sl && sl->state == WAVE_STEP_FAILED && sl->error_code == ETIMEDOUT);
        CHECK_INTEQ(step_state(x.rep, "host:node1:1:stop"), WAVE_STEP_NOT_RUN);
        CHECK_INTEQ(x.rep->status, WAVE_STATUS_FAILED);
        fixture_done(&x);
}

/* ---- dry run, output, guard ---- */

static void test_dry_run_output(void) {
        json_object *args = json_tokener_parse("{\"osds\":[3,9]}");
        WaveStep s[] = { { .name = "out", .target = WAVE_TARGET_CLUSTER, .class = WAVE_CLASS_CLUSTER_SERIAL, .args = args },
                         HOST_STEP("stop") };
        WaveHost h[] = { { "node1", s, 2 }, { "node2", s, 2 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 2, .waves = batch2 };
        char *text = NULL;
        size_t len = 0;
        WaveOptions o = { .parallel_hosts = 2, .dry_run = true, .tick_ms = 1, .out = open_memstream(&text, &len) };
        WaveReport *rep = NULL;
        Error err = {};
        CHECK_INTEQ(waves_run(&p, &o, &rep, &err), 0); /* no links at all: nothing is called */
        fclose(o.out);
        CHECK(rep && rep->status == WAVE_STATUS_OK && rep->n_done == 4);
        /* each host's block is printed whole */
        const char *b1 = text ? strstr(text, "host node1 (wave 1): 2 done") : NULL;
        const char *b2 = text ? strstr(text, "host node2 (wave 1): 2 done") : NULL;
        CHECK(b1 && b2);
        if (b1 && b2) {
                const char *first = b1 < b2 ? b1 : b2, *second = b1 < b2 ? b2 : b1;
                const char *stop = strstr(first, "planned  1 stop");
                CHECK(stop && stop < second);
                CHECK(strstr(first, "would run out on the cluster {\"osds\":[3,9]}") != NULL);
        }
        CHECK(b1 && !strstr(b1 + 1, "host node1 ")); /* once */
        CHECK(b2 && !strstr(b2 + 1, "host node2 "));
        free(text);
        wave_report_free(rep);
        json_object_put(args);
}

static int guard_lost(void *userdata, Error *err) {
        return error_set(err, ENOLCK, "lost the cluster lock");
}

static void test_guard(void) {
        WaveStep s[] = { HOST_STEP("a"), HOST_STEP("b") };
        WaveStep after[] = { CLUSTER_STEP("restore", WAVE_CLASS_CLUSTER_SERIAL) };
        WaveHost h[] = { { "node1", s, 2 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 1, .after = after, .n_after = 1 };
        Fixture x;
        fixture_init(&x, &p);
        x.o.guard = guard_lost;
        fixture_run(&x, &p); /* nothing may reach a link without the lock, not even after */
        const WaveStepReport *a = step_report(x.rep, "host:node1:0:a");
        CHECK(a && a->state == WAVE_STEP_FAILED && a->error_code == ENOLCK);
        CHECK_INTEQ(step_state(x.rep, "host:node1:1:b"), WAVE_STEP_NOT_RUN);
        CHECK(x.rep->after_failed);
        CHECK(x.rep->error && strstr(x.rep->error, "lost the cluster lock"));
        fixture_done(&x);
}

/* ---- refusals ---- */

static void test_invalid(void) {
        WaveStep s[] = { HOST_STEP("a") };
        WaveHost h[] = { { "node1", s, 1 }, { "node1", s, 1 } };
        WavePlan p = { .id = "t", .hosts = h, .n_hosts = 1 };
        WaveReport *sentinel = (WaveReport *) &p, *rep = sentinel;
        Error err = {};
        WaveOptions o = { .tick_ms = 1 };

        CHECK_INTEQ(waves_run(&p, &o, &rep, &err), -EINVAL);
        CHECK(strstr(err.message, "no connection to host 'node1'") != NULL);
        CHECK(rep == sentinel);

        p.n_hosts = 2;
        error_reset(&err);
        o.dry_run = true;
        CHECK_INTEQ(waves_run(&p, &o, &rep, &err), -EINVAL);
        CHECK(strstr(err.message, "listed twice") != NULL);
        CHECK(rep == sentinel);

        p.n_hosts = 1;
        p.gate = s;
        p.n_gate = 1;
        error_reset(&err);
        CHECK_INTEQ(waves_run(&p, &o, &rep, &err), -EINVAL);
        CHECK(strstr(err.message, "host step in a cluster list") != NULL);
        CHECK(rep == sentinel);
}

int main(void) {
        TEST_RUN(test_assign);
        TEST_RUN(test_serial_order);
        TEST_RUN(test_batch);
        TEST_RUN(test_failure_domain_gate);
        TEST_RUN(test_gate_failure);
        TEST_RUN(test_on_failure_stop);
        TEST_RUN(test_on_failure_continue);
        TEST_RUN(test_cancel);
        TEST_RUN(test_cancel_running_wait);
        TEST_RUN(test_tick_pause);
        TEST_RUN(test_tick_stop);
        TEST_RUN(test_tick_progress);
        TEST_RUN(test_resume);
        TEST_RUN(test_resume_passed);
        TEST_RUN(test_resume_gate_before_destroy);
        TEST_RUN(test_resume_from_journal);
        TEST_RUN(test_resume_other_playbook);
        TEST_RUN(test_cluster_serial);
        TEST_RUN(test_parallel_steps);
        TEST_RUN(test_parallel_exclusive);
        TEST_RUN(test_by_deps);
        TEST_RUN(test_timeout);
        TEST_RUN(test_dry_run_output);
        TEST_RUN(test_guard);
        TEST_RUN(test_invalid);
        return test_result();
}
