/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cluster lock's lease in the host loops and its clock check (issue 26 item 5), with the
 * cluster SCRIPTED: an in-process agent on the local transport's hook answers the admin
 * host's `run` of `ceph ...` as Ceph 16.2.15 does (exit codes and outputs of
 * tests/data/ceph: auth add/get, config-key set/rm; `report` with a timestamp the test
 * chooses), and records every other request (the host ops) with its arguments. What is
 * tested: a clock off the monitors' refuses the lock before anything is written; a
 * destructive request carries what is left of the lease, a read does not; once renewals fail
 * and the lease runs out, no destructive request is sent (the wipe loop's next device). The
 * agent's own refusal is the block tier's (tests/block/test-agent-block.c). */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "controller/cluster-lock.h"
#include "controller/hosts.h"
#include "layout/layout.h"
#include "fake-host.h"
#include "test.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static struct {
        double mon_offset;   /* the monitors' clock minus ours, seconds */
        bool renew_fails;    /* auth get answers as a monitor that cannot be reached */
        char *key;           /* the lock entity's key (from auth add) */
        char **commands;     /* "ceph WORDS" of each run, in order */
        char **ops;          /* "host op" of every other request */
        json_object *last_args; /* of the last op */
} fake;

static json_object *run_result(int code, const char *out, const char *err) {
        json_object *r = json_object_new_object();
        json_add_int(r, "exit", code);
        json_add_string(r, "stdout", out);
        json_add_string(r, "stderr", err);
        return r;
}

/* `ceph --cluster unit --connect-timeout 30 WORDS...` as the monitors answer it */
static json_object *ceph_answer(json_object *args) {
        json_object *argv = json_object_object_get(args, "argv");
        _cleanup_strv_free_ char **words = NULL;
        /* skip the connection prefix: everything up to and including --connect-timeout N */
        size_t first = 0, n = json_object_array_length(argv);
        for (size_t i = 0; i + 1 < n; i++)
                if (streq(json_object_get_string(json_object_array_get_idx(argv, i)), "--connect-timeout"))
                        first = i + 2;
        for (size_t i = first; i < n; i++) {
                const char *w = json_object_get_string(json_object_array_get_idx(argv, i));
                if (streq(w, "-i") && i + 1 < n) { /* "-i -": the keyring or value on stdin */
                        i++;
                        continue;
                }
                strv_extend(&words, w);
        }
        _cleanup_(freep) char *line = strv_join(words, " ");
        strv_consume(&fake.commands, strprintf("ceph %s", line));
        const char *w0 = words && words[0] ? words[0] : "", *w1 = words && words[0] && words[1] ? words[1] : "";

        if (streq(w0, "report")) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                double t = (double) ts.tv_sec + ts.tv_nsec / 1e9 + fake.mon_offset;
                time_t s = (time_t) t;
                struct tm tm;
                gmtime_r(&s, &tm);
                char stamp[64], buf[256];
                strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
                snprintf(buf, sizeof buf, "\n{\"cluster_fingerprint\":\"f\",\"version\":\"16.2.15\",\"commit\":\"c\","
                         "\"timestamp\":\"%s.%06ld+0000\",\"tag\":\"\"}\n", stamp, (long) ((t - (double) s) * 1e6));
                return run_result(0, buf, "report 1234567890");
        }
        if (streq(w0, "config-key"))
                return run_result(0, "", streq(w1, "set") ? "set cephprov/lock/unit/x" : "");
        if (streq(w0, "auth") && streq(w1, "add")) {
                /* the keyring on stdin: "[client...]\n\tkey = K\n" */
                const char *in = json_object_get_string(json_object_object_get(args, "stdin"));
                const char *k = in ? strstr(in, "key = ") : NULL;
                if (k) {
                        free(fake.key);
                        fake.key = strndup(k + 6, strcspn(k + 6, "\n"));
                }
                return run_result(0, "", "added key for client.cephprov-lock.unit");
        }
        if (streq(w0, "auth") && streq(w1, "get")) {
                if (fake.renew_fails)
                        return run_result(110, "", "[errno 110] RADOS timed out (error connecting to the cluster)");
                if (!fake.key)
                        return run_result(2, "", "Error ENOENT: failed to find client.cephprov-lock.unit in keyring");
                _cleanup_(freep) char *out = strprintf("\n[{\"entity\":\"client.cephprov-lock.unit\",\"key\":\"%s\",\"caps\":{}}]\n",
                                                       fake.key);
                return run_result(0, out, "exported keyring for client.cephprov-lock.unit");
        }
        if (streq(w0, "auth") && streq(w1, "rm")) {
                free(fake.key);
                fake.key = NULL;
                return run_result(0, "", "updated");
        }
        return run_result(22, "", "Error EINVAL: the scripted cluster does not know this command");
}

static json_object *run_answer(json_object *args, void *userdata, int *ret_errno, char **ret_error) {
        return ceph_answer(args);
}

static int fake_dispatch(void *state, json_object *request, json_object **ret_response,
                         void (*progress)(json_object *progress, void *userdata), void *userdata) {
        FakeHost *a = state;
        const char *op = json_object_get_string(json_object_object_get(request, "op"));
        json_object *args = json_object_object_get(request, "args");
        json_object *result = NULL;
        pthread_mutex_lock(&mu);
        if (streq(op, "configure"))
                result = fake_host_configure(a, args);
        else if (streq(op, "run"))
                result = ceph_answer(args);
        else if (streq(op, "ceph-command")) {
                int e = 0;
                char *msg = NULL;
                result = ceph_as_run(args, NULL, run_answer, NULL, &e, &msg);
                free(msg);
        } else {
                strv_consume(&fake.ops, strprintf("%s %s", a->host, op));
                json_object_put(fake.last_args);
                fake.last_args = json_object_get(args);
                result = json_object_new_object();
        }
        pthread_mutex_unlock(&mu);
        *ret_response = fake_response(request, result);
        return 0;
}

static const TransportLocalAgent fake_agent = {
        .state_new = fake_host_new,
        .state_free = fake_host_free,
        .dispatch = fake_dispatch,
};

static const char layout_yaml[] =
        "cluster:\n"
        "  name: unit\n"
        "  admin_host: adm\n"
        "profiles:\n"
        "  p:\n"
        "    allow: [/dev/loop*]\n"
        "    data:\n"
        "      rotational: true\n"
        "hosts:\n"
        "  - name: adm\n"
        "    transport: local\n"
        "  - name: node1\n"
        "    profile: p\n"
        "    transport: local\n";

static void reset(void) {
        pthread_mutex_lock(&mu);
        fake.commands = strv_free(fake.commands);
        fake.ops = strv_free(fake.ops);
        json_object_put(fake.last_args);
        fake.last_args = NULL;
        fake.mon_offset = 0;
        fake.renew_fails = false;
        pthread_mutex_unlock(&mu);
}

static bool commands_have(const char *prefix) {
        pthread_mutex_lock(&mu);
        bool found = false;
        STRV_FOREACH(c, fake.commands)
                found = found || strncmp(*c, prefix, strlen(prefix)) == 0;
        pthread_mutex_unlock(&mu);
        return found;
}

static Layout *load_layout(char *dir) {
        _cleanup_(freep) char *path = strprintf("%s/unit.yaml", dir);
        FILE *f = fopen(path, "we");
        if (!f)
                return NULL;
        fputs(layout_yaml, f);
        fclose(f);
        Layout *l = NULL;
        Error err = {};
        if (layout_load_file(path, &l, &err) < 0)
                fprintf(stderr, "%s\n", err.message);
        return l;
}

/* the monitors 30 s ahead, or 30 s behind: refused with both clocks named, nothing written */
static void test_skew_refused(void) {
        char dir[] = "/tmp/cephprov-test-lock-XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        _cleanup_(layout_freep) Layout *l = load_layout(dir);
        CHECK(l != NULL);
        if (!l)
                return;
        setenv("CEPHPROV_LOCK_LEASE", "60", 1);
        for (int sign = -1; sign <= 1; sign += 2) {
                reset();
                fake.mon_offset = 30.0 * sign;
                Error err = {};
                CephClusterLock *lock = NULL;
                CHECK(ceph_cluster_lock(l, "drain", NULL, &lock, &err) == -ETIME);
                CHECK(lock == NULL);
                CHECK(strstr(err.message, "not taking the lock of cluster 'unit': this machine's clock is "));
                CHECK(strstr(err.message, sign > 0 ? "s behind the monitors'" : "s ahead of the monitors'"));
                CHECK(strstr(err.message, "more than a quarter of the lock's lease (60 s)"));
                /* the clock is read first: no record written, no entity added */
                CHECK(commands_have("ceph report"));
                CHECK(!commands_have("ceph config-key set") && !commands_have("ceph auth add"));
        }
        /* 10 s off is within a 60 s lease's margin (15 s) */
        reset();
        fake.mon_offset = 10.0;
        Error err = {};
        CephClusterLock *lock = NULL;
        CHECK_INTEQ(ceph_cluster_lock(l, "drain", NULL, &lock, &err), 0);
        CHECK(commands_have("ceph auth add"));
        lock = ceph_cluster_unlock(lock);
        CHECK(commands_have("ceph auth rm"));
        rmdir(dir);
}

static int64_t lease_of_last(void) {
        pthread_mutex_lock(&mu);
        json_object *v = NULL;
        int64_t ms = json_object_object_get_ex(fake.last_args, "lease_left_ms", &v) ? json_object_get_int64(v) : -1;
        pthread_mutex_unlock(&mu);
        return ms;
}

static size_t n_ops(void) {
        pthread_mutex_lock(&mu);
        size_t n = strv_length(fake.ops);
        pthread_mutex_unlock(&mu);
        return n;
}

/* a destructive request carries the lease; once it ran out, none is sent */
static void test_lease_in_requests(void) {
        char dir[] = "/tmp/cephprov-test-lock-XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        _cleanup_(layout_freep) Layout *l = load_layout(dir);
        CHECK(l != NULL);
        if (!l)
                return;
        reset();
        setenv("CEPHPROV_LOCK_LEASE", "2", 1); /* deadline 1.5 s after each renewal */
        Error err = {};
        CephClusterLock *lock = NULL;
        CHECK_INTEQ(ceph_cluster_lock(l, "destroy", NULL, &lock, &err), 0);
        if (!lock) {
                fprintf(stderr, "%s\n", err.message);
                return;
        }
        const Host *node1 = layout_find_host(l, "node1");
        _cleanup_(fleet_closep) Fleet *f = NULL;
        CHECK_INTEQ(fleet_open(l, &node1, 1, false, false, &f, &err), 0);
        CHECK(f && f->sessions[0].r == 0);
        if (!f)
                return;
        fleet_set_lock(f, lock);
        HostSession *s = &f->sessions[0];

        /* a read: as it is */
        _cleanup_json_ json_object *res = NULL, *args = json_object_new_object();
        CHECK_INTEQ(host_session_call(s, "inventory", NULL, 10, &res, &err), 0);
        CHECK(lease_of_last() == -1);
        /* a wipe: what is left of the lease, at most 3/4 of it; the caller's args untouched */
        json_add_string(args, "device", "/dev/loop7");
        json_object_put(res);
        res = NULL;
        CHECK_INTEQ(host_session_call(s, "wipe", args, 10, &res, &err), 0);
        int64_t ms = lease_of_last();
        CHECK(ms > 0 && ms <= 1500);
        CHECK(!json_object_object_get_ex(args, "lease_left_ms", NULL));
        json_object_put(res);
        res = NULL;
        CHECK_INTEQ(host_session_call(s, "bcache-teardown", args, 10, &res, &err), 0);
        CHECK(lease_of_last() > 0);
        /* renewals kept it ours meanwhile (every 2/3 s) */
        usleep(2200 * 1000);
        json_object_put(res);
        res = NULL;
        CHECK_INTEQ(host_session_call(s, "delete-partition", args, 10, &res, &err), 0);
        CHECK(lease_of_last() > 0);

        /* the monitors cannot be reached any more: renewals fail, the lease runs out */
        fake.renew_fails = true;
        usleep(2200 * 1000);
        size_t before = n_ops();
        Error e2 = {};
        json_object_put(res);
        res = NULL;
        CHECK(host_session_call(s, "wipe", args, 10, &res, &e2) == -ENOLCK);
        CHECK(n_ops() == before);
        CHECK_STREQ(e2.message, "host 'node1': not sending 'wipe': lost the lock of cluster 'unit' (the lease ran out "
                                "before it could be renewed): stopping before the next change");
        /* reads still go (inventory, to report what is left) */
        CHECK_INTEQ(host_session_call(s, "inventory", NULL, 10, &res, &err), 0);
        CHECK(n_ops() == before + 1);
        CHECK(ceph_cluster_lock_check(lock, &err) == -ENOLCK);
        /* a lost lock is left to expire, not released */
        lock = ceph_cluster_unlock(lock);
        CHECK(!commands_have("ceph auth rm"));
        f = fleet_close(f);
        rmdir(dir);
}

int main(void) {
        transport_set_local_agent(&fake_agent);
        TEST_RUN(test_skew_refused);
        TEST_RUN(test_lease_in_requests);
        reset();
        free(fake.key);
        return test_result();
}
