/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cluster steps' gates and records fail closed (issue 26): safe-to-destroy and ok-to-stop
 * pass only on an answer that says so for every OSD asked, and a record or the lock reads as
 * absent only when ceph itself says the key does not exist. Run through the real path: the
 * cluster client (controller/ceph-admin.c) and the real agent's "run" op in this process (the
 * local transport), which runs a stand-in `ceph`: a shell script that replays the captured
 * answers of tests/data/ceph (stdout, stderr, exit status) by command words. */

#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/agent.h"
#include "basic/json-util.h"
#include "basic/strv.h"
#include "controller/ceph-admin.h"
#include "controller/cluster-lock.h"
#include "controller/cluster-steps.h"
#include "layout/layout.h"
#include "fake-host.h"
#include "test.h"

static void *agent_new(void) {
        return agent_state_new();
}

static void agent_free(void *state) {
        agent_state_free(state);
}

static const char *ceph_binary(void);

/* the real agent's "run" of the stand-in (the argv ceph-as-run.h makes of a command) */
static json_object *run_real(json_object *run_args, void *state, int *ret_errno, char **ret_error) {
        _cleanup_json_ json_object *req = json_object_new_object(), *resp = NULL;
        json_add_int(req, "id", 1);
        json_add_string(req, "op", "run");
        json_add(req, "args", json_object_get(run_args));
        if (agent_dispatch(state, req, &resp, NULL, NULL) < 0 || !resp)
                return NULL;
        json_object *e = json_object_object_get(resp, "error");
        if (e) {
                *ret_errno = json_object_get_int(json_object_object_get(e, "code"));
                *ret_error = strdup(json_object_get_string(json_object_object_get(e, "message")));
                return NULL;
        }
        return json_object_get(json_object_object_get(resp, "result"));
}

static int agent_call(void *state, json_object *request, json_object **ret_response,
                      void (*progress)(json_object *progress, void *userdata), void *userdata) {
        const char *op = json_object_get_string(json_object_object_get(request, "op"));
        if (!op || !streq(op, "ceph-command"))
                return agent_dispatch(state, request, ret_response, progress, userdata);
        /* the cluster is the stand-in: each command run as the CLI it replays */
        int e = 0;
        char *msg = NULL;
        json_object *res = ceph_as_run(json_object_object_get(request, "args"), ceph_binary(), run_real, state, &e, &msg);
        json_object *resp = fake_response(request, res);
        if (!res) {
                json_object *er = json_object_new_object();
                json_add_string(er, "errno", errno_name(e));
                json_add_int(er, "code", e);
                json_add_string(er, "message", msg ? msg : "failed");
                json_add(resp, "error", er);
        }
        free(msg);
        *ret_response = resp;
        return 0;
}

static const TransportLocalAgent real_agent = {
        .state_new = agent_new,
        .state_free = agent_free,
        .dispatch = agent_call,
};

/* One command the stand-in answers: a shell `case` pattern of its words (after the
 * connection options) and the captured answers it gives, one per call, the last one again
 * from then on. An answer NAME is NAME.json (exit 0) or NAME.out/.err/.rc, looked up in the
 * test's own directory first (answers made up here), then in tests/data/ceph. */
typedef struct Reply {
        const char *pattern;
        const char *answers[4];
} Reply;

static char tmpdir[] = "/tmp/cephprov-gates-XXXXXX";
static char script[sizeof tmpdir + 16];
static int n_scripts;

static void write_file(const char *name, const char *text) {
        _cleanup_(freep) char *p = strprintf("%s/%s", tmpdir, name);
        FILE *f = p ? fopen(p, "w") : NULL;
        CHECK(f != NULL);
        if (!f)
                return;
        fputs(text, f);
        fclose(f);
}

/* a made-up answer: stdout, stderr, exit status */
static void answer(const char *name, const char *out, const char *err, int rc) {
        _cleanup_(freep) char *o = strprintf("%s.out", name), *e = strprintf("%s.err", name),
                             *r = strprintf("%s.rc", name), *rv = strprintf("%d\n", rc);
        write_file(o, out);
        write_file(e, err);
        write_file(r, rv);
}

/* Writes a new stand-in (fresh call counters) and returns its path. */
static const char *stand_in(const Reply *replies, size_t n) {
        const char *data = getenv("TEST_DATA");
        _cleanup_(freep) char *name = strprintf("ceph-%d", n_scripts++);
        snprintf(script, sizeof script, "%s/%s", tmpdir, name);
        FILE *f = fopen(script, "w");
        CHECK(f != NULL);
        if (!f)
                return script;
        fprintf(f,
                "#!/bin/sh\n"
                "T='%s'; D='%s/ceph'; S='%s'\n"
                "while [ $# -gt 0 ]; do case \"$1\" in --cluster|--connect-timeout|-c|-n|-k) shift 2;; *) break;; esac; done\n"
                "reply() {\n"
                "  for dir in \"$T\" \"$D\"; do\n"
                "    if [ -e \"$dir/$1.json\" ]; then cat \"$dir/$1.json\"; exit 0; fi\n"
                "    if [ -e \"$dir/$1.rc\" ]; then cat \"$dir/$1.out\"; cat \"$dir/$1.err\" >&2; exit \"$(cat \"$dir/$1.rc\")\"; fi\n"
                "  done\n"
                "  echo \"stand-in: no answer '$1'\" >&2; exit 98\n"
                "}\n"
                "next() {\n"
                "  c=\"$T/$S.count-$1\"; n=$(cat \"$c\" 2>/dev/null || echo 0); echo $((n + 1)) > \"$c\"; shift\n"
                "  i=0; for a in \"$@\"; do last=$a; [ $i -eq $n ] && reply \"$a\"; i=$((i + 1)); done; reply \"$last\"\n"
                "}\n"
                "echo \"$*\" >> \"$T/$S.calls\"\n"
                "case \"$*\" in\n",
                tmpdir, data ? data : "tests/data", name);
        for (size_t i = 0; i < n; i++) {
                fprintf(f, "%s) next %zu", replies[i].pattern, i);
                for (size_t k = 0; k < ELEMENTSOF(replies[i].answers) && replies[i].answers[k]; k++)
                        fprintf(f, " %s", replies[i].answers[k]);
                fputs(";;\n", f);
        }
        fputs("*) echo \"stand-in: unscripted command: $*\" >&2; exit 99;;\nesac\n", f);
        fclose(f);
        CHECK_INTEQ(chmod(script, 0755), 0);
        return script;
}

/* the commands the stand-in was asked, one a line */
static char *calls(void) {
        _cleanup_(freep) char *p = strprintf("%s/ceph-%d.calls", tmpdir, n_scripts - 1);
        FILE *f = p ? fopen(p, "r") : NULL;
        if (!f)
                return strdup("");
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        int ch;
        while ((ch = fgetc(f)) != EOF)
                fputc(ch, m);
        fclose(f);
        fclose(m);
        return buf;
}

typedef struct Env {
        Layout *layout;
        CephAdmin *admin;
        ClusterSteps cs;
} Env;

static Env env;

static const char *ceph_binary(void) {
        return env.admin->cli.binary;
}

static void use(const Reply *replies, size_t n) {
        env.admin->cli.binary = stand_in(replies, n);
}

/* runs cluster step `step` with args JSON; its error message in *msg */
static int step(const char *name, const char *args_json, char **msg) {
        _cleanup_json_ json_object *args = json_tokener_parse(args_json), *res = NULL;
        Error err = {};
        CHECK(args != NULL);
        int r = cluster_steps_call(&env.cs, name, args, NULL, &res, &err);
        if (msg)
                *msg = strdup(err.message);
        if (r < 0)
                fprintf(stderr, "  %s %s: %s\n", name, args_json, err.message);
        return r;
}

#define BASE { "'osd dump -f json'", { "osd-dump" } }, { "'pg stat -f json'", { "pg-stat-clean" } }

static void test_safe_to_destroy(void) {
        _cleanup_(freep) char *m = NULL;

        /* exit 0 and not a word: no answer, never "safe" (it marked every OSD safe) */
        answer("blank", "", "", 0);
        const Reply blank[] = { BASE, { "'osd safe-to-destroy 0 -f json'", { "blank" } } };
        use(blank, ELEMENTSOF(blank));
        CHECK(step("wait-safe-to-destroy", "{\"osds\":[0],\"timeout\":5}", &m) == -EBADMSG);
        CHECK(m && strstr(m, "safe-to-destroy") && strstr(m, "no answer"));
        free(m), m = NULL;

        /* a line that is no answer: the same */
        answer("garbled", "", "something else entirely\n", 0);
        const Reply garbled[] = { BASE, { "'osd safe-to-destroy 0 -f json'", { "garbled" } } };
        use(garbled, ELEMENTSOF(garbled));
        CHECK(step("wait-safe-to-destroy", "{\"osds\":[0],\"timeout\":5}", &m) == -EBADMSG);
        free(m), m = NULL;

        /* the plain line names osd.0 only: osd.2 is not safe (every asked id was, before) */
        const Reply plain[] = { BASE, { "'osd safe-to-destroy 0 2 -f json'", { "safe-to-destroy-0-out-clean-plain" } } };
        use(plain, ELEMENTSOF(plain));
        CHECK(step("wait-safe-to-destroy", "{\"osds\":[0,2],\"timeout\":0}", &m) == -ETIMEDOUT);
        free(m), m = NULL;

        /* Pacific's "not safe" with exit 0, then safe: polled until the answer names osd.0 */
        const Reply later[] = { BASE, { "'osd safe-to-destroy 0 -f json'", { "safe-to-destroy-0-busy", "safe-to-destroy-0-out-clean" } } };
        use(later, ELEMENTSOF(later));
        CHECK_INTEQ(step("wait-safe-to-destroy", "{\"osds\":[0],\"timeout\":30}", NULL), 0);
        _cleanup_(freep) char *c = calls();
        CHECK(c && strstr(c, "osd safe-to-destroy 0 -f json\npg stat -f json\nosd safe-to-destroy 0 -f json\n"));

        /* EBUSY (exit 16) is "not now" */
        const Reply busy[] = { BASE, { "'osd safe-to-destroy 0 -f json'", { "safe-to-destroy-0-busy-plain" } } };
        use(busy, ELEMENTSOF(busy));
        CHECK(step("wait-safe-to-destroy", "{\"osds\":[0],\"timeout\":0}", NULL) == -ETIMEDOUT);
}

static void test_ok_to_stop(void) {
        _cleanup_(freep) char *m = NULL;

        /* exit 0 and nothing on stdout: an error (the answer was never read) */
        answer("blank", "", "", 0);
        const Reply blank[] = { BASE, { "'osd ok-to-stop 0 -f json'", { "blank" } } };
        use(blank, ELEMENTSOF(blank));
        CHECK(step("wait-ok-to-stop", "{\"osds\":[0],\"timeout\":5}", &m) == -EINVAL);
        CHECK(m && strstr(m, "ok-to-stop") && strstr(m, "no output"));
        free(m), m = NULL;

        /* exit 0 while the answer says false: they must agree */
        answer("contradiction", "{\"ok_to_stop\":false,\"osds\":[0],\"num_ok_pgs\":0,\"num_not_ok_pgs\":5}", "", 0);
        const Reply contra[] = { BASE, { "'osd ok-to-stop 0 -f json'", { "contradiction" } } };
        use(contra, ELEMENTSOF(contra));
        CHECK(step("wait-ok-to-stop", "{\"osds\":[0],\"timeout\":5}", &m) == -EPROTO);
        free(m), m = NULL;

        /* an answer about other OSDs is no yes for osd.0 */
        const Reply other[] = { BASE, { "'osd ok-to-stop 0 -f json'", { "ok-to-stop-1-2-json" } } };
        use(other, ELEMENTSOF(other));
        CHECK(step("wait-ok-to-stop", "{\"osds\":[0],\"timeout\":5}", &m) == -EPROTO);
        CHECK(m && strstr(m, "without naming osd.0"));
        free(m), m = NULL;

        /* osd.0 purged while asked about: ok-to-stop says yes for an OSD that does not exist */
        const Reply gone[] = { { "'osd dump -f json'", { "osd-dump", "osd-dump-after-purge-new" } },
                               { "'osd ok-to-stop 0 -f json'", { "ok-to-stop-0" } } };
        use(gone, ELEMENTSOF(gone));
        CHECK(step("wait-ok-to-stop", "{\"osds\":[0],\"timeout\":5}", &m) == -ENOENT);
        CHECK(m && strstr(m, "osd.0 is not in the OSD map"));
        free(m), m = NULL;

        /* EBUSY, then ok */
        const Reply later[] = { BASE, { "'osd ok-to-stop 0 -f json'", { "ok-to-stop-all-busy", "ok-to-stop-0" } } };
        use(later, ELEMENTSOF(later));
        CHECK_INTEQ(step("wait-ok-to-stop", "{\"osds\":[0],\"timeout\":30}", NULL), 0);
        _cleanup_(freep) char *c = calls();
        CHECK(c && strstr(c, "osd ok-to-stop 0 -f json\nosd ok-to-stop 0 -f json\nosd dump -f json\n"));

        const Reply busy[] = { BASE, { "'osd ok-to-stop 0 -f json'", { "ok-to-stop-3-with-1-down" } } };
        use(busy, ELEMENTSOF(busy));
        CHECK(step("wait-ok-to-stop", "{\"osds\":[0],\"timeout\":0}", NULL) == -ETIMEDOUT);
}

/* drain-check of several hosts: their data off at once (it checked each alone) */
static void test_drain_check_together(void) {
        _cleanup_(freep) char *m = NULL;
        const Reply cluster[] = { { "'osd df tree -f json'", { "synthetic-osd-df-tree-4hosts-together" } },
                                  { "'osd pool ls detail -f json'", { "synthetic-osd-pool-ls-detail-hdd" } },
                                  { "'osd crush rule dump -f json'", { "synthetic-osd-crush-rule-dump" } },
                                  { "'osd dump -f json'", { "osd-dump" } } };
        use(cluster, ELEMENTSOF(cluster));
        CHECK_INTEQ(step("drain-check", "{\"hosts\":[\"node3\"]}", NULL), 0);
        CHECK_INTEQ(step("drain-check", "{\"hosts\":[\"node4\"]}", NULL), 0);
        CHECK(step("drain-check", "{\"hosts\":[\"node3\",\"node4\"]}", &m) == -ENOSPC);
        CHECK_STREQ(m, "draining 'node3', 'node4' together is refused: osd.5 (node2) would be 96.0 % full after the "
                       "drain of node3 and node4 (now 56.0 %), past the backfillfull ratio 90 %");
        free(m), m = NULL;
        /* each alone, when asked (a rolling conversion) */
        CHECK_INTEQ(step("drain-check", "{\"hosts\":[\"node3\",\"node4\"],\"together\":false}", NULL), 0);
        /* a host without a bucket has nothing to move; the others are checked */
        CHECK_INTEQ(step("drain-check", "{\"hosts\":[\"node4\",\"node9\"]}", NULL), 0);
}

static void test_records(void) {
        Error err = {};
        json_object *rec = NULL;

        /* "no such key" from ceph itself (exit 2, "Error ENOENT: "): no record */
        const Reply missing[] = { { "'config-key get cephprov/ceph/pause'", { "config-key-get-missing" } } };
        use(missing, ELEMENTSOF(missing));
        CHECK_INTEQ(cluster_pause_get(env.admin, &rec, &err), 0);
        CHECK(rec == NULL);

        /* a record */
        answer("pause", "{\"by\":\"adm1\",\"since\":1700000000}", "", 0);
        const Reply there[] = { { "'config-key get cephprov/ceph/pause'", { "pause" } } };
        use(there, ELEMENTSOF(there));
        CHECK_INTEQ(cluster_pause_get(env.admin, &rec, &err), 1);
        CHECK(rec != NULL);
        json_object_put(rec);
        rec = NULL;

        /* no `ceph` to run: an error, not "no record" (it was: exec's ENOENT read as the key's) */
        _cleanup_(freep) char *none = strprintf("%s/no-such-ceph", tmpdir);
        env.admin->cli.binary = none;
        error_reset(&err);
        int r = cluster_pause_get(env.admin, &rec, &err);
        CHECK(r < 0 && r != -ENOENT && rec == NULL);
        CHECK(strstr(err.message, "no-such-ceph") != NULL);
        fprintf(stderr, "  no ceph: %s\n", err.message);

        /* ceph that cannot reach the monitors (any exit but ceph's own ENOENT answer) */
        answer("unreachable", "", "[errno 110] RADOS timed out (error connecting to the cluster)\n", 1);
        const Reply unreachable[] = { { "'config-key get cephprov/ceph/pause'", { "unreachable" } } };
        use(unreachable, ELEMENTSOF(unreachable));
        error_reset(&err);
        CHECK(cluster_pause_get(env.admin, &rec, &err) < 0 && rec == NULL);

        /* the lock: its entity and its lease record are read the same way */
        ClusterLockStatus s = {};
        env.admin->cli.binary = none;
        error_reset(&err);
        r = cluster_lock_status(env.admin, &s, &err);
        CHECK(r < 0); /* it said "cluster 'ceph' is not locked" */
        if (r >= 0) {
                fprintf(stderr, "  lock status without ceph: %s\n", s.message);
                cluster_lock_status_done(&s);
        }
        const Reply lock_no_record[] = { { "'auth get client.cephprov-lock.ceph -f json'", { "auth-get-lock" } },
                                         { "'auth get client.cephprov-lock.ceph.takeover -f json'", { "auth-get-missing" } },
                                         { "'config-key get cephprov/lock/ceph/'*", { "config-key-get-missing" } } };
        use(lock_no_record, ELEMENTSOF(lock_no_record));
        error_reset(&err);
        CHECK_INTEQ(cluster_lock_status(env.admin, &s, &err), 0);
        CHECK(s.held && !s.record && s.expired && !s.takeover);
        cluster_lock_status_done(&s);
        const Reply lock_unreachable[] = { { "'auth get client.cephprov-lock.ceph -f json'", { "auth-get-lock" } },
                                           { "'auth get client.cephprov-lock.ceph.takeover -f json'", { "auth-get-missing" } },
                                           { "'config-key get cephprov/lock/ceph/'*", { "unreachable" } } };
        use(lock_unreachable, ELEMENTSOF(lock_unreachable));
        error_reset(&err);
        CHECK(cluster_lock_status(env.admin, &s, &err) < 0);
}

/* The OSD map of a 6-OSD lab with osd.1 down (captured), with osd.0 marked down too: a
 * second failure. Written as a made-up answer NAME. */
static void dump_with_osd0_down(const char *name) {
        const char *dir = getenv("TEST_DATA");
        _cleanup_(freep) char *p = strprintf("%s/ceph/osd-dump-noout-osd-down.json", dir ? dir : "tests/data");
        _cleanup_json_ json_object *d = p ? json_object_from_file(p) : NULL;
        CHECK(d != NULL);
        if (!d)
                return;
        json_object *osds = json_object_object_get(d, "osds");
        for (size_t i = 0; i < json_object_array_length(osds); i++) {
                json_object *o = json_object_array_get_idx(osds, i);
                if (json_object_get_int(json_object_object_get(o, "osd")) == 0)
                        json_object_object_add(o, "up", json_object_new_int(0));
        }
        answer(name, json_object_to_json_string(d), "", 0);
}

/* issue 26: a resumed conversion's widened health gate lets only its own OSDs be down */
static void test_health_allow_down(void) {
        _cleanup_(freep) char *m = NULL;
        const char *allowed = "\"allow\":[\"OSD_DOWN\",\"OSD_HOST_DOWN\",\"PG_DEGRADED\",\"PG_AVAILABILITY\"]";
        const Reply own[] = { { "'osd dump -f json'", { "osd-dump-noout-osd-down" } },
                              { "'status -f json'", { "status-ok" } } };
        use(own, ELEMENTSOF(own));
        /* osd.1 down, and it is the run's own: the gate goes on to the health */
        _cleanup_(freep) char *a1 = strprintf("{%s,\"allow_down\":[1],\"timeout\":5}", allowed);
        CHECK_INTEQ(step("health-gate", a1, NULL), 0);

        /* osd.1 down, the run's own osd.0: refused at once (no wait for the timeout), naming
         * osd.1 and the PGs whose only copy up would be on osd.0 */
        const Reply other[] = { { "'osd dump -f json'", { "osd-dump-noout-osd-down" } },
                                { "'pg dump pgs_brief -f json'", { "pg-dump-pgs-brief-osd-down" } },
                                { "'status -f json'", { "status-ok" } } };
        use(other, ELEMENTSOF(other));
        _cleanup_(freep) char *a0 = strprintf("{%s,\"allow_down\":[0],\"timeout\":600}", allowed);
        CHECK(step("health-gate", a0, &m) == -EBUSY);
        CHECK(m && strstr(m, "osd.1 down besides the OSDs this run stopped (osd.0)"));
        CHECK(m && strstr(m, "would be left without a readable copy") && strstr(m, "1.1f (0 of 1)"));
        free(m), m = NULL;
        _cleanup_(freep) char *c = calls();
        CHECK(c && !strstr(c, "status -f json")); /* refused before the health was asked */

        /* without allow_down the same codes pass whatever is down (a gate of a fresh run) */
        use(other, ELEMENTSOF(other));
        _cleanup_(freep) char *a = strprintf("{%s,\"timeout\":5}", allowed);
        CHECK_INTEQ(step("health-gate", a, NULL), 0);
}

/* issue 26: destroy-osd in place counts the copies left at the act, every OSD down now
 * counted: osd.1 (the run's) and osd.0 (a second failure) down, each PG whose acting set is
 * osd.0 alone has no readable copy left */
static void test_destroy_in_place_copies(void) {
        _cleanup_(freep) char *m = NULL;
        dump_with_osd0_down("dump-0-1-down");
        const Reply second[] = { { "'osd dump -f json'", { "dump-0-1-down" } },
                                 { "'pg dump pgs_brief -f json'", { "pg-dump-pgs-brief-osd-down" } } };
        use(second, ELEMENTSOF(second));
        CHECK(step("destroy-osd", "{\"osds\":[1],\"in_place\":true}", &m) == -EBUSY);
        CHECK(m && strstr(m, "refusing to destroy osd.1 in place:") && strstr(m, "1.1f (0 of 1)"));
        CHECK(m && strstr(m, "OSDs down now besides these: osd.0"));
        free(m), m = NULL;
        _cleanup_(freep) char *c = calls();
        CHECK(c && !strstr(c, "osd destroy")); /* nothing destroyed */

        /* osd.0 up again: the gate passes, and the step goes on to `osd destroy 1` */
        const Reply ok[] = { { "'osd dump -f json'", { "osd-dump-noout-osd-down" } },
                             { "'pg dump pgs_brief -f json'", { "pg-dump-pgs-brief-osd-down" } },
                             { "'osd destroy 1 '*", { "blank" } } };
        answer("blank", "", "", 0);
        use(ok, ELEMENTSOF(ok));
        (void) step("destroy-osd", "{\"osds\":[1],\"in_place\":true}", NULL);
        free(c);
        c = calls();
        CHECK(c && strstr(c, "pg dump pgs_brief -f json\nosd dump -f json\nosd destroy 1"));
}

int main(void) {
        if (!mkdtemp(tmpdir))
                test_skip("no temporary directory");
        Error err = {};
        env.layout = fake_admin_layout("ceph", "admin", "", "[/dev/disk/by-id/unit-a]");
        if (!env.layout)
                return test_result();
        transport_set_local_agent(&real_agent);
        if (ceph_admin_open(env.layout, &env.admin, &err) < 0) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
        }
        const Reply versions[] = { { "'versions -f json'", { "versions" } } };
        use(versions, ELEMENTSOF(versions));
        CHECK_INTEQ(cluster_steps_init(&env.cs, env.admin, env.layout, &err), 0);
        env.cs.poll_ms = 100;

        TEST_RUN(test_safe_to_destroy);
        TEST_RUN(test_ok_to_stop);
        TEST_RUN(test_drain_check_together);
        TEST_RUN(test_records);
        TEST_RUN(test_health_allow_down);
        TEST_RUN(test_destroy_in_place_copies);

        cluster_steps_done(&env.cs);
        env.admin = ceph_admin_close(env.admin);
        env.layout = layout_free(env.layout);
        _cleanup_(freep) char *rm = strprintf("rm -rf '%s'", tmpdir);
        if (rm && system(rm) != 0)
                fprintf(stderr, "could not remove %s\n", tmpdir);
        return test_result();
}
