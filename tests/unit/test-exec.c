/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The executor's scheduling on hand-built plans. The host link here is a test double that
 * records calls in memory (named so): what is tested is the ordering, the parallelism bound,
 * failure propagation and the journal, not an agent. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "exec/exec.h"
#include "test.h"

typedef struct RecordingLink {
        pthread_mutex_t mu;
        char **calls;          /* "op:subject" in call order */
        unsigned running, max_running;
        const char *fail_subject;
        unsigned sleep_ms;
} RecordingLink;

static int recording_call(void *userdata, const char *op, json_object *args, json_object **ret, Error *err) {
        RecordingLink *l = userdata;
        const char *subject = json_object_get_string(json_object_object_get(args, "subject"));

        pthread_mutex_lock(&l->mu);
        strv_consume(&l->calls, strprintf("%s:%s", op, subject));
        l->running++;
        if (l->running > l->max_running)
                l->max_running = l->running;
        pthread_mutex_unlock(&l->mu);

        if (l->sleep_ms)
                usleep(l->sleep_ms * 1000);

        pthread_mutex_lock(&l->mu);
        l->running--;
        pthread_mutex_unlock(&l->mu);

        if (l->fail_subject && streq(subject, l->fail_subject))
                return error_set(err, EIO, "test double fails '%s' on purpose", subject);
        *ret = json_object_new_object();
        return 0;
}

static int test_request(const Step *s, json_object **ret, Error *err) {
        json_object *req = json_object_new_object(), *args = json_object_new_object();
        json_add_string(req, "op", step_kind_to_string(s->kind));
        json_add_string(args, "subject", s->partname ? s->partname : s->device);
        json_add(req, "args", args);
        *ret = req;
        return 0;
}

/* One host's plan: a partition for each of n OSDs, each OSD depending on its partition. */
enum { CHAIN_MAX = 8 };
typedef struct Chain {
        Plan p;
        HostPlan hp;
        Step steps[2 * CHAIN_MAX];
        unsigned deps[CHAIN_MAX][1];
        unsigned n;
} Chain;

static void chain_init(Chain *c, unsigned n) {
        memset(c, 0, sizeof(*c));
        c->n = n;
        for (unsigned i = 0; i < n; i++) {
                Step *part = &c->steps[i], *osd = &c->steps[n + i];
                part->id = i + 1;
                part->kind = STEP_CREATE_PARTITION;
                part->device = (char *) "/dev/ssd";
                part->partname = strprintf("p%u", i);
                osd->id = n + i + 1;
                osd->kind = STEP_CREATE_OSD;
                osd->device = strprintf("/dev/hdd%u", i);
                c->deps[i][0] = i + 1;
                osd->deps = c->deps[i];
                osd->n_deps = 1;
        }
        c->hp = (HostPlan) { .host = (char *) "node1", .steps = c->steps, .n_steps = 2 * n };
        c->p = (Plan) { .hosts = &c->hp, .n_hosts = 1 };
}

static void chain_done(Chain *c) {
        for (unsigned i = 0; i < c->n; i++) {
                free(c->steps[i].partname);
                free(c->steps[c->n + i].device);
        }
}

static ssize_t call_index(char **calls, const char *what) {
        for (size_t i = 0; calls && calls[i]; i++)
                if (streq(calls[i], what))
                        return (ssize_t) i;
        return -1;
}

static void test_order_and_parallelism(void) {
        enum { N = 6 };
        Chain c;
        chain_init(&c, N);

        RecordingLink rl = { .mu = PTHREAD_MUTEX_INITIALIZER, .sleep_ms = 30 };
        HostLink link = { .host = "node1", .call = recording_call, .userdata = &rl };
        ExecOptions o = { .parallel_hosts = 4, .parallel_osds = 3, .stages = STAGE_ALL, .step_request = test_request };
        Error err = {};
        _cleanup_(exec_report_freep) ExecReport *rep = NULL;

        CHECK_INTEQ(exec_run(&c.p, &link, 1, &o, &rep, &err), 0);
        CHECK_INTEQ(strv_length(rl.calls), 2 * N);
        CHECK(rep && rep->n_done == 2 * N && rep->n_failed == 0);
        /* every OSD after its partition */
        for (unsigned i = 0; i < N; i++) {
                char a[32], b[32];
                snprintf(a, sizeof a, "create-partition:p%u", i);
                snprintf(b, sizeof b, "create-osd:/dev/hdd%u", i);
                CHECK(call_index(rl.calls, a) >= 0);
                CHECK(call_index(rl.calls, a) < call_index(rl.calls, b));
        }
        /* OSDs overlapped, but never more than 3 at once; partitions never overlap each other */
        CHECK(rl.max_running >= 2);
        CHECK(rl.max_running <= 3 + 1);
        strv_free(rl.calls);
        chain_done(&c);
}

static void test_failure_skips_dependents_only(void) {
        enum { N = 3 };
        Chain c;
        chain_init(&c, N);

        RecordingLink rl = { .mu = PTHREAD_MUTEX_INITIALIZER, .fail_subject = "p1" };
        HostLink link = { .host = "node1", .call = recording_call, .userdata = &rl };
        ExecOptions o = { .parallel_hosts = 1, .parallel_osds = 2, .stages = STAGE_ALL, .step_request = test_request };
        Error err = {};
        _cleanup_(exec_report_freep) ExecReport *rep = NULL;

        CHECK_INTEQ(exec_run(&c.p, &link, 1, &o, &rep, &err), -EIO);
        CHECK(rep != NULL);
        if (rep) {
                CHECK_INTEQ(rep->n_failed, 1);
                CHECK_INTEQ(rep->n_skipped, 1);
                CHECK_INTEQ(rep->n_done, 4);
                CHECK(rep->hosts[0].first_error && strstr(rep->hosts[0].first_error, "'p1'"));
        }
        CHECK(call_index(rl.calls, "create-osd:/dev/hdd1") < 0);
        CHECK(call_index(rl.calls, "create-osd:/dev/hdd0") >= 0);
        CHECK(call_index(rl.calls, "create-osd:/dev/hdd2") >= 0);
        strv_free(rl.calls);
        chain_done(&c);
}

/* Hosts side by side (one wave: none waits for another), and a failure on one host leaves
 * the others whole. Both hosts' links record into one RecordingLink: with one step at a time
 * per host, two calls in flight at once can only be two hosts. */
static void test_hosts_side_by_side(void) {
        enum { N = 3 };
        Chain a, b;
        chain_init(&a, N);
        chain_init(&b, N);
        b.hp.host = (char *) "node2";
        HostPlan hps[2] = { a.hp, b.hp };
        Plan p = { .hosts = hps, .n_hosts = 2 };

        RecordingLink rl = { .mu = PTHREAD_MUTEX_INITIALIZER, .sleep_ms = 30, .fail_subject = "p0" };
        HostLink links[2] = { { .host = "node1", .call = recording_call, .userdata = &rl },
                              { .host = "node2", .call = recording_call, .userdata = &rl } };
        ExecOptions o = { .parallel_hosts = 2, .parallel_osds = 1, .stages = STAGE_ALL, .step_request = test_request };
        Error err = {};
        _cleanup_(exec_report_freep) ExecReport *rep = NULL;
        /* "p0" is each host's first partition: both fail it, each goes on with its others */
        CHECK_INTEQ(exec_run(&p, links, 2, &o, &rep, &err), -EIO);
        CHECK(rl.max_running == 2);
        CHECK(rep && rep->n_hosts == 2 && rep->n_failed == 2 && rep->n_skipped == 2 && rep->n_done == 2 * (2 * N - 2));
        strv_free(rl.calls);
        rl = (RecordingLink) { .mu = PTHREAD_MUTEX_INITIALIZER, .sleep_ms = 1 };
        rep = exec_report_free(rep);

        /* one host fails a step the other does not have: the other converges */
        free(b.steps[0].partname);
        b.steps[0].partname = strdup("q0");
        hps[1] = b.hp;
        rl.fail_subject = "p0";
        CHECK_INTEQ(exec_run(&p, links, 2, &o, &rep, &err), -EIO);
        CHECK(rep && rep->hosts[1].n_done == 2 * N && rep->hosts[1].n_failed == 0 && rep->hosts[1].n_skipped == 0);
        CHECK(rep && rep->hosts[0].n_failed == 1 && rep->hosts[0].n_skipped == 1);
        strv_free(rl.calls);
        chain_done(&a);
        chain_done(&b);
}

static void test_stage_disks_and_dry_run(void) {
        enum { N = 2 };
        Chain c;
        chain_init(&c, N);

        RecordingLink rl = { .mu = PTHREAD_MUTEX_INITIALIZER };
        HostLink link = { .host = "node1", .call = recording_call, .userdata = &rl };
        ExecOptions o = { .parallel_hosts = 1, .parallel_osds = 1, .stages = STAGE_DISKS, .step_request = test_request };
        Error err = {};
        _cleanup_(exec_report_freep) ExecReport *rep = NULL;

        CHECK_INTEQ(exec_run(&c.p, &link, 1, &o, &rep, &err), 0);
        CHECK_INTEQ(strv_length(rl.calls), N);
        CHECK(call_index(rl.calls, "create-osd:/dev/hdd0") < 0);
        rep = exec_report_free(rep);

        /* the OSD stage alone: each OSD needs a partition this run does not make, so none
         * is sent and each is counted skipped (the stage's steps are not converged) */
        o.stages = STAGE_OSDS;
        CHECK_INTEQ(exec_run(&c.p, &link, 1, &o, &rep, &err), 0);
        CHECK_INTEQ(strv_length(rl.calls), N);
        CHECK(rep && rep->n_done == 0 && rep->n_failed == 0 && rep->n_skipped == N);
        rep = exec_report_free(rep);

        /* dry run: nothing sent */
        o.dry_run = true;
        o.stages = STAGE_ALL;
        CHECK_INTEQ(exec_run(&c.p, &link, 1, &o, &rep, &err), 0);
        CHECK_INTEQ(strv_length(rl.calls), N);
        strv_free(rl.calls);
        chain_done(&c);
}

/* The guard (the cluster lock's lease check) before each step: once it fails, no step is
 * sent any more; each is failed with the guard's error. */
typedef struct Guard {
        pthread_mutex_t mu;
        unsigned allowed; /* steps it lets through before the "lease" is lost */
} Guard;

static int test_guard(void *userdata, Error *err) {
        Guard *g = userdata;
        pthread_mutex_lock(&g->mu);
        bool ok = g->allowed > 0;
        if (ok)
                g->allowed--;
        pthread_mutex_unlock(&g->mu);
        return ok ? 0 : error_set(err, ENOLCK, "lost the lock of cluster 'test' (test guard)");
}

static void test_guard_stops_steps(void) {
        enum { N = 3 };
        Chain c;
        chain_init(&c, N);

        RecordingLink rl = { .mu = PTHREAD_MUTEX_INITIALIZER };
        HostLink link = { .host = "node1", .call = recording_call, .userdata = &rl };
        Guard g = { .mu = PTHREAD_MUTEX_INITIALIZER, .allowed = 2 };
        ExecOptions o = { .parallel_hosts = 1, .parallel_osds = 1, .stages = STAGE_ALL, .step_request = test_request,
                          .guard = test_guard, .guard_userdata = &g };
        Error err = {};
        _cleanup_(exec_report_freep) ExecReport *rep = NULL;

        CHECK_INTEQ(exec_run(&c.p, &link, 1, &o, &rep, &err), -EIO);
        CHECK_INTEQ(strv_length(rl.calls), 2); /* the two let through, nothing after */
        CHECK(rep && rep->n_done == 2 && rep->n_failed + rep->n_skipped == 2 * N - 2);
        CHECK(rep && rep->hosts[0].first_error && strstr(rep->hosts[0].first_error, "lost the lock"));
        strv_free(rl.calls);
        chain_done(&c);
}

static void test_journal(void) {
        char dir[] = "/tmp/cephprov-test-journal-XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        Error err = {};
        _cleanup_(journal_closep) Journal *j = NULL;
        CHECK_INTEQ(journal_open(dir, "ceph", "apply test", &j, &err), 0);

        /* a second controller on the same cluster is refused while the first holds the lock */
        Journal *j2 = NULL;
        Error err2 = {};
        CHECK_INTEQ(journal_open(dir, "ceph", "apply other", &j2, &err2), -EBUSY);
        CHECK(strstr(err2.message, "locked by another cephprov") != NULL);
        CHECK(strstr(err2.message, "apply test") != NULL);

        enum { N = 2 };
        Chain c;
        chain_init(&c, N);
        RecordingLink rl = { .mu = PTHREAD_MUTEX_INITIALIZER };
        HostLink link = { .host = "node1", .call = recording_call, .userdata = &rl };
        ExecOptions o = { .parallel_hosts = 1, .parallel_osds = 2, .stages = STAGE_ALL, .step_request = test_request,
                          .journal = j };
        _cleanup_(exec_report_freep) ExecReport *rep = NULL;
        CHECK_INTEQ(exec_run(&c.p, &link, 1, &o, &rep, &err), 0);

        _cleanup_(freep) char *path = strprintf("%s/ceph.journal", dir);
        /* a torn last record (crash mid-write) is skipped by readers */
        FILE *f = fopen(path, "ae");
        CHECK(f != NULL);
        if (f) {
                fputs("{\"event\":\"step-st", f);
                fclose(f);
        }
        _cleanup_json_ json_object *a = NULL;
        CHECK_INTEQ(journal_read(path, &a, &err), 0);
        /* the wave executor's records: its start and end, start + done per step */
        CHECK_INTEQ(a ? json_object_array_length(a) : 0, 2 * 2 * N + 2);
        if (a) {
                json_object *first = json_object_array_get_idx(a, 0), *step = json_object_array_get_idx(a, 1);
                CHECK_STREQ(json_object_get_string(json_object_object_get(first, "event")), "waves-start");
                CHECK_STREQ(json_object_get_string(json_object_object_get(first, "waves")), "apply");
                /* what apply's resume reads back: the step's kind, host, device */
                CHECK_STREQ(json_object_get_string(json_object_object_get(step, "event")), "wave-step-start");
                CHECK_STREQ(json_object_get_string(json_object_object_get(step, "host")), "node1");
                CHECK_STREQ(json_object_get_string(json_object_object_get(step, "kind")), "create-partition");
                CHECK_STREQ(json_object_get_string(json_object_object_get(step, "device")), "/dev/ssd");
                CHECK_STREQ(json_object_get_string(json_object_object_get(step, "partname")), "p0");
                CHECK_INTEQ(json_object_get_int(json_object_object_get(step, "step")), 1);
        }

        j = journal_close(j);
        /* released: can be taken again; the torn record is cut off on open, so the next
         * run's first record is a line of its own and no reader loses it */
        CHECK_INTEQ(journal_open(dir, "ceph", "apply again", &j, &err), 0);
        CHECK_INTEQ(j ? j->torn_bytes : 0, strlen("{\"event\":\"step-st"));
        CHECK_INTEQ(journal_append(j, "apply-start", NULL, &err), 0);
        j = journal_close(j);
        json_object_put(a);
        a = NULL;
        CHECK_INTEQ(journal_read(path, &a, &err), 0);
        CHECK_INTEQ(a ? json_object_array_length(a) : 0, 2 * 2 * N + 2 + 1);
        if (a) {
                json_object *last = json_object_array_get_idx(a, json_object_array_length(a) - 1);
                CHECK_STREQ(json_object_get_string(json_object_object_get(last, "event")), "apply-start");
        }
        /* an intact journal is left as it is */
        CHECK_INTEQ(journal_open(dir, "ceph", "apply intact", &j, &err), 0);
        CHECK_INTEQ(j ? j->torn_bytes : 1, 0);
        j = journal_close(j);

        _cleanup_(freep) char *lock = strprintf("%s/ceph.lock", dir);
        unlink(path);
        unlink(lock);
        rmdir(dir);
        strv_free(rl.calls);
        chain_done(&c);
}

/* One record as apply writes it: journal_append() with the fields the OSD flow and the
 * executor put in (NULL / -1: field left out). */
static void rec(Journal *j, const char *event, const char *kind, const char *host, const char *device, int id,
                const char *fsid) {
        json_object *o = json_object_new_object();
        json_add_string(o, "host", host);
        json_add_string(o, "kind", kind);
        json_add_string(o, "device", device);
        if (id >= 0)
                json_add_int(o, "osd_id", id);
        json_add_string(o, "osd_fsid", fsid);
        Error err = {};
        CHECK_INTEQ(journal_append(j, event, o, &err), 0);
}

static void test_journal_osd_queries(void) {
        char dir[] = "/tmp/cephprov-test-journal-XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        _cleanup_(freep) char *path = strprintf("%s/ceph.journal", dir);
        _cleanup_(freep) char *lock = strprintf("%s/ceph.lock", dir);
        Error err = {};

        /* no journal yet (or none given): no records, nothing unfinished, nothing allocated */
        _cleanup_(journal_snapshot_freep) JournalSnapshot *s = NULL;
        CHECK_INTEQ(journal_snapshot(path, &s, &err), 0);
        CHECK_INTEQ(journal_snapshot_size(s), 0);
        _cleanup_strv_free_ char **hosts = NULL, **devs = NULL;
        CHECK_INTEQ(journal_unfinished_steps(s, "create-osd", &hosts, &devs, &err), 0);
        CHECK(hosts && !hosts[0] && devs && !devs[0]);
        s = journal_snapshot_free(s);
        CHECK_INTEQ(journal_snapshot(NULL, &s, &err), 0);
        CHECK_INTEQ(journal_snapshot_size(s), 0);
        s = journal_snapshot_free(s);

        _cleanup_(journal_closep) Journal *j = NULL;
        CHECK_INTEQ(journal_open(dir, "ceph", "apply test", &j, &err), 0);
        /* the executor's step records, as the wave executor writes them and as an older
         * cephprov's own executor did ("step-start", "step-done"): a resume reads both */
        rec(j, "step-start", "create-osd", "node1", "/dev/sdb", -1, NULL);
        rec(j, "wave-step-start", "create-osd", "node1", "/dev/sdc", -1, NULL);
        rec(j, "wave-step-start", "wipe", "node1", "/dev/sdd", -1, NULL);      /* another kind */
        rec(j, "wave-step-done", "create-osd", "node1", "/dev/sdb", -1, NULL); /* sdb finished */
        rec(j, "wave-step-start", "create-osd", "node2", "/dev/sdb", -1, NULL); /* same device, other host */
        rec(j, "step-failed", "create-osd", "node3", "/dev/sde", -1, NULL);    /* an outcome never started */
        rec(j, "step-start", "create-osd", "node1", "/dev/sdc", -1, NULL);     /* started again: listed once */
        rec(j, "step-start", "create-osd", "node4", NULL, -1, NULL);           /* no device */
        rec(j, "step-start", "create-osd", "node1", "/dev/sdb", -1, NULL);     /* sdb again, after its end */
        /* the OSD flow's records */
        rec(j, "osd-allocating", NULL, "node1", "/dev/sdb", -1, "AAAAAAAA-1111-2222-3333-444444444444");
        rec(j, "osd-allocated", NULL, "node1", "/dev/sdb", 3, "aaaaaaaa-1111-2222-3333-444444444444");
        rec(j, "osd-allocated", NULL, "node1", "/dev/sdc", 4, NULL);            /* reused id */
        rec(j, "osd-allocating", NULL, "node1", "/dev/sdf", -1, NULL);          /* no uuid: not an allocation */
        rec(j, "osd-allocated", NULL, "node1", "/dev/sdg", -1, NULL);           /* no id: not one either */
        rec(j, "osd-allocated", NULL, NULL, "/dev/sdh", 9, NULL);               /* no host */
        rec(j, "osd-created", NULL, "node2", "/dev/sdd", 5, "bbbbbbbb-1111-2222-3333-444444444444");
        rec(j, "osd-half-made-refused", NULL, "node2", "/dev/sde", -1, "cccccccc-1111-2222-3333-444444444444");
        rec(j, "osd-half-made-owned", NULL, "node3", "/dev/sdb", 7, "dddddddd-1111-2222-3333-444444444444");
        rec(j, "osd-allocating", NULL, "node3", "/dev/sdc", -1, "eeeeeeee-1111-2222-3333-444444444444");
        /* the writer apply uses: osd_id only when known, the extra field */
        journal_append_osd(j, "osd-allocated", "node3", "/dev/sdd", 8, NULL, "device_class", "ssd");
        journal_append_osd(j, "osd-wait-up", NULL, NULL, -1, NULL, NULL, NULL);

        CHECK_INTEQ(journal_snapshot(path, &s, &err), 0);
        CHECK_INTEQ(journal_snapshot_size(s), 21);
        /* a record appended after the snapshot is not in it */
        rec(j, "step-start", "create-osd", "node5", "/dev/sdb", -1, NULL);
        CHECK_INTEQ(journal_snapshot_size(s), 21);

        hosts = strv_free(hosts);
        devs = strv_free(devs);
        CHECK_INTEQ(journal_unfinished_steps(s, "create-osd", &hosts, &devs, &err), 0);
        CHECK_INTEQ(strv_length(hosts), 3);
        CHECK_INTEQ(strv_length(devs), 3);
        if (strv_length(hosts) == 3 && strv_length(devs) == 3) {
                CHECK_STREQ(hosts[0], "node1");
                CHECK_STREQ(devs[0], "/dev/sdc");
                CHECK_STREQ(hosts[1], "node2");
                CHECK_STREQ(devs[1], "/dev/sdb");
                CHECK_STREQ(hosts[2], "node1");
                CHECK_STREQ(devs[2], "/dev/sdb");
        }
        hosts = strv_free(hosts);
        devs = strv_free(devs);
        CHECK_INTEQ(journal_unfinished_steps(s, "wipe", &hosts, &devs, &err), 0);
        CHECK_INTEQ(strv_length(hosts), 1);
        CHECK(hosts && hosts[0] && streq(devs[0], "/dev/sdd"));

        _cleanup_(freep) JournalOsdAllocation *al = NULL;
        size_t n = 0;
        CHECK_INTEQ(journal_osd_allocations(s, &al, &n, &err), 0);
        CHECK_INTEQ(n, 5);
        if (n == 5) {
                CHECK(al[0].pending && al[0].id == -1);
                CHECK_STREQ(al[0].host, "node1");
                CHECK_STREQ(al[0].device, "/dev/sdb");
                CHECK_STREQ(al[0].fsid, "AAAAAAAA-1111-2222-3333-444444444444");
                CHECK(!al[1].pending && al[1].id == 3 && !al[1].fsid);
                CHECK_STREQ(al[1].device, "/dev/sdb");
                CHECK(!al[2].pending && al[2].id == 4);
                CHECK_STREQ(al[2].device, "/dev/sdc");
                CHECK(al[3].pending && al[3].id == -1);
                CHECK_STREQ(al[3].host, "node3");
                CHECK_STREQ(al[3].fsid, "eeeeeeee-1111-2222-3333-444444444444");
                CHECK(!al[4].pending && al[4].id == 8);
                CHECK_STREQ(al[4].device, "/dev/sdd");
        }

        /* by uuid (any case) in osd-allocating, osd-created, osd-half-made-owned */
        CHECK(journal_osd_started(s, "node1", "/dev/sdb", "aaaaaaaa-1111-2222-3333-444444444444", -1));
        CHECK(journal_osd_started(s, "node2", "/dev/sdd", "BBBBBBBB-1111-2222-3333-444444444444", -1));
        CHECK(journal_osd_started(s, "node3", "/dev/sdb", "dddddddd-1111-2222-3333-444444444444", -1));
        /* ... only for that very host and device */
        CHECK(!journal_osd_started(s, "node1", "/dev/sdc", "aaaaaaaa-1111-2222-3333-444444444444", -1));
        CHECK(!journal_osd_started(s, "node2", "/dev/sdb", "aaaaaaaa-1111-2222-3333-444444444444", -1));
        /* a refused half-made OSD is not ours; a uuid nobody journaled neither */
        CHECK(!journal_osd_started(s, "node2", "/dev/sde", "cccccccc-1111-2222-3333-444444444444", -1));
        CHECK(!journal_osd_started(s, "node1", "/dev/sdb", "ffffffff-1111-2222-3333-444444444444", -1));
        /* by id in osd-allocated and osd-half-made-owned, not in osd-created */
        CHECK(journal_osd_started(s, "node1", "/dev/sdc", "ffffffff-1111-2222-3333-444444444444", 4));
        CHECK(journal_osd_started(s, "node3", "/dev/sdb", "ffffffff-1111-2222-3333-444444444444", 7));
        CHECK(!journal_osd_started(s, "node2", "/dev/sdd", "ffffffff-1111-2222-3333-444444444444", 5));
        CHECK(!journal_osd_started(s, "node1", "/dev/sdc", "ffffffff-1111-2222-3333-444444444444", 5));
        /* id -1 (the OSD map lost it) matches no record that lacks an osd_id */
        CHECK(!journal_osd_started(s, "node1", "/dev/sdg", "ffffffff-1111-2222-3333-444444444444", -1));

        /* journal_append_osd's record format */
        _cleanup_json_ json_object *a = NULL;
        CHECK_INTEQ(journal_read(path, &a, &err), 0);
        json_object *w = a ? json_object_array_get_idx(a, 19) : NULL;
        CHECK_STREQ(json_object_get_string(json_object_object_get(w, "event")), "osd-allocated");
        CHECK_STREQ(json_object_get_string(json_object_object_get(w, "host")), "node3");
        CHECK_INTEQ(json_object_get_int(json_object_object_get(w, "osd_id")), 8);
        CHECK_STREQ(json_object_get_string(json_object_object_get(w, "device_class")), "ssd");
        CHECK(!json_object_object_get_ex(w, "osd_fsid", NULL));
        w = a ? json_object_array_get_idx(a, 20) : NULL;
        CHECK_STREQ(json_object_get_string(json_object_object_get(w, "event")), "osd-wait-up");
        CHECK(!json_object_object_get_ex(w, "host", NULL) && !json_object_object_get_ex(w, "osd_id", NULL));

        j = journal_close(j);
        unlink(path);
        unlink(lock);
        rmdir(dir);
}

int main(void) {
        TEST_RUN(test_order_and_parallelism);
        TEST_RUN(test_failure_skips_dependents_only);
        TEST_RUN(test_hosts_side_by_side);
        TEST_RUN(test_stage_disks_and_dry_run);
        TEST_RUN(test_journal);
        TEST_RUN(test_journal_osd_queries);
        TEST_RUN(test_guard_stops_steps);
        return test_result();
}
