/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* controller_apply()'s flow and result, with the hosts' agents FAKE: an in-process
 * dispatcher on the local transport's hook that answers "inventory" from the captured-shape
 * fixtures of scenario 1 (before, and once a step has run, converged), "preflight" with
 * every check passed, and records every other request (the steps) without doing anything.
 * What is tested is the order and the gates of the flow (a dry run sends no step, nothing
 * runs unconfirmed, the journal's apply-start/apply-end, the verification), the result's
 * JSON keys and its text; the real agents are the lab tier's (tests/lab/test-apply-*.sh). */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "controller/apply.h"
#include "layout/layout.h"
#include "fake-host.h"
#include "test.h"

/* the executor runs hosts in parallel: the fake's record is shared */
static pthread_mutex_t fake_mu = PTHREAD_MUTEX_INITIALIZER;

static struct {
        json_object *before, *after; /* {"format", "inventories": [...]} */
        char **steps;                /* "host op" of every step request */
        size_t inventories;
        bool converge;               /* serve `after` once a step ran */
        bool converged;              /* serve `after` from the start */
        char *question;
} fake;

static json_object *fixture_host(json_object *set, const char *host) {
        json_object *invs = json_object_object_get(set, "inventories");
        for (size_t i = 0; i < json_object_array_length(invs); i++) {
                json_object *h = json_object_array_get_idx(invs, i);
                if (streq_ptr(json_object_get_string(json_object_object_get(h, "host")), host))
                        return h;
        }
        return NULL;
}

static int fake_dispatch(void *state, json_object *request, json_object **ret_response,
                         void (*progress)(json_object *progress, void *userdata), void *userdata) {
        FakeHost *a = state;
        const char *op = json_object_get_string(json_object_object_get(request, "op"));
        json_object *args = json_object_object_get(request, "args");
        json_object *result = NULL;
        pthread_mutex_lock(&fake_mu);
        if (streq(op, "configure"))
                result = fake_host_configure(a, args);
        else if (streq(op, "inventory")) {
                fake.inventories++;
                json_object *set = fake.converged || (fake.converge && fake.steps) ? fake.after : fake.before;
                /* a copy: the fixture is shared by the hosts' threads */
                json_object *h = fixture_host(set, a->host);
                if (h && json_object_deep_copy(h, &result, NULL) < 0)
                        result = NULL;
        } else if (streq(op, "preflight"))
                result = json_tokener_parse("{\"checks\":[],\"ok\":true}");
        else {
                strv_consume(&fake.steps, strprintf("%s %s", a->host, op));
                result = json_object_new_object();
        }
        pthread_mutex_unlock(&fake_mu);
        *ret_response = fake_response(request, result);
        return 0;
}

static const TransportLocalAgent fake_agent = {
        .state_new = fake_host_new,
        .state_free = fake_host_free,
        .dispatch = fake_dispatch,
};

static bool confirm_no(const char *question) {
        free(fake.question);
        fake.question = strdup(question);
        return false;
}

static bool confirm_yes(const char *question) {
        confirm_no(question);
        return true;
}

/* scenario 1's profile on three local hosts, without an admin host (disks only) */
static const char layout_yaml[] =
        "cluster:\n"
        "  name: unit\n"
        "  objectstore: bluestore\n"
        "profiles:\n"
        "  hc-1u:\n"
        "    allow:\n"
        "      - /dev/disk/by-id/ata-INTEL_SSDSC2KB480G8_*\n"
        "      - /dev/disk/by-id/ata-ST2000NM0135_*\n"
        "    data:\n"
        "      rotational: true\n"
        "      model: \"ST2000NM0135*\"\n"
        "      size: 1.5T..2.5T\n"
        "    fast:\n"
        "      rotational: false\n"
        "      model: \"INTEL SSDSC2KB480G8\"\n"
        "      keep_partitions: [1, 2, 3]\n"
        "      data_per_fast: 2\n"
        "      spread: balanced\n"
        "    db_size: 30G\n"
        "    bcache:\n"
        "      cache_size: 60G\n"
        "      cache_mode: writeback\n"
        "      sequential_cutoff: 0\n"
        "      writeback_percent: 10\n"
        "hosts:\n"
        "  - name: node1\n"
        "    profile: hc-1u\n"
        "    transport: local\n"
        "  - name: node2\n"
        "    profile: hc-1u\n"
        "    transport: local\n"
        "  - name: node3\n"
        "    profile: hc-1u\n"
        "    transport: local\n";

static void reset(void) {
        fake.steps = strv_free(fake.steps);
        fake.inventories = 0;
        fake.converge = fake.converged = false;
        free(fake.question);
        fake.question = NULL;
}

static char *text_of(const ApplyResult *r, char *printed) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        fputs(printed ? printed : "", f);
        apply_result_print(r, f);
        fclose(f);
        return buf;
}

static char *keys_of(json_object *o) {
        _cleanup_strv_free_ char **keys = NULL;
        json_object_object_foreach(o, k, v) {
                (void) v;
                strv_extend(&keys, k);
        }
        return strv_join(keys, ",");
}

static size_t journal_count(const char *path, const char *event) {
        _cleanup_json_ json_object *a = NULL;
        if (journal_read(path, &a, NULL) < 0)
                return 0;
        size_t n = 0;
        for (size_t i = 0; i < json_object_array_length(a); i++)
                if (streq_ptr(json_object_get_string(json_object_object_get(json_object_array_get_idx(a, i), "event")),
                              event))
                        n++;
        return n;
}

static void test_apply(void) {
        const char *data = getenv("TEST_DATA");
        if (!data)
                test_skip("TEST_DATA not set (run through meson test)");
        _cleanup_(freep) char *pb = strprintf("%s/inventory-scenario-1-hyperconverged.json", data);
        _cleanup_(freep) char *pa = strprintf("%s/inventory-scenario-1-hyperconverged-converged.json", data);
        fake.before = json_object_from_file(pb);
        fake.after = json_object_from_file(pa);
        CHECK(fake.before && fake.after);
        char dir[] = "/tmp/cephprov-test-apply-XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        setenv("CEPHPROV_STATE_DIR", dir, 1);
        _cleanup_(freep) char *journal = strprintf("%s/unit.journal", dir);
        _cleanup_(freep) char *lock = strprintf("%s/unit.lock", dir);
        _cleanup_(freep) char *lpath = strprintf("%s/unit.yaml", dir);
        FILE *lf = fopen(lpath, "we");
        CHECK(lf != NULL);
        if (lf) {
                fputs(layout_yaml, lf);
                fclose(lf);
        }

        Error err = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        CHECK_INTEQ(layout_load_file(lpath, &l, &err), 0);
        if (!l) {
                fprintf(stderr, "%s\n", err.message);
                return;
        }
        transport_set_local_agent(&fake_agent);

        /* a dry run: the plan, the requests it would send, no step sent, no journal */
        reset();
        char *buf = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&buf, &len);
        ApplyOptions o = { .layout = l, .layout_arg = "unit.yaml", .dry_run = true, .out = out,
                           .confirm = confirm_yes };
        _cleanup_(apply_result_freep) ApplyResult *r = NULL;
        CHECK_INTEQ(controller_apply(&o, &r, &err), 0);
        fclose(out);
        CHECK(r && r->ok && !r->converged && !r->nothing_to_do && r->n_steps == 84);
        CHECK(!fake.steps);
        CHECK(!fake.question);
        CHECK(access(journal, F_OK) < 0);
        CHECK(buf && strstr(buf, "plan: 84 steps on 3 hosts"));
        CHECK(buf && strstr(buf, "would run "));
        _cleanup_(freep) char *t = r ? text_of(r, NULL) : NULL;
        CHECK_STREQ(t, "dry run: nothing changed\n");
        free(buf);
        _cleanup_json_ json_object *j = NULL;
        CHECK(r && apply_result_to_json(r, &j) == 0);
        _cleanup_(freep) char *k = keys_of(j);
        /* the same keys as a run that did something (docs/schema/apply.json): no OSD made */
        CHECK_STREQ(k, "hosts,done,failed,skipped,seconds,converged,steps,unreachable_hosts,refused_hosts,preflight,steps_left,osds");
        CHECK(json_object_array_length(json_object_object_get(j, "osds")) == 0);
        CHECK(json_object_get_boolean(json_object_object_get(j, "converged")) == false);
        r = apply_result_free(r);

        /* not confirmed: nothing sent, nothing run, no apply-start (the journal was opened) */
        reset();
        o = (ApplyOptions) { .layout = l, .layout_arg = "unit.yaml", .stage = "disks", .confirm = confirm_no };
        Error e = {};
        CHECK_INTEQ(controller_apply(&o, &r, &e), -ECANCELED);
        CHECK(!r);
        CHECK(strstr(e.message, "not confirmed: nothing changed (give --yes") == e.message);
        CHECK(fake.question && fake.question[0] && strstr(fake.question, " steps?"));
        CHECK(!fake.steps);
        CHECK_INTEQ(journal_count(journal, "apply-start"), 0);
        /* no confirm callback: refused the same way */
        reset();
        o.confirm = NULL;
        CHECK_INTEQ(controller_apply(&o, &r, &e), -ECANCELED);

        /* run, the hosts stay as they were: not converged, the verification says why */
        reset();
        o = (ApplyOptions) { .layout = l, .layout_arg = "unit.yaml", .stage = "disks", .confirm = confirm_yes };
        CHECK_INTEQ(controller_apply(&o, &r, &err), 0);
        CHECK(r && !r->ok && !r->converged && r->n_steps > 0 && r->steps_left == r->n_steps);
        _cleanup_(freep) char *q = r ? strprintf("apply these %zu steps?", r->n_steps) : NULL;
        CHECK_STREQ(fake.question, q);
        CHECK_INTEQ(strv_length(fake.steps), r ? r->n_steps : 0);
        CHECK(r && strv_length(r->errors) == 1 && strstr(r->errors[0], "still planned: not converged"));
        CHECK_INTEQ(journal_count(journal, "apply-start"), 1);
        CHECK_INTEQ(journal_count(journal, "apply-end"), 1);
        bool osd_step = false;
        STRV_FOREACH(s, fake.steps)
                osd_step |= strstr(*s, "osd") != NULL;
        CHECK(!osd_step); /* stage disks */
        r = apply_result_free(r);

        /* run, the hosts converge: --yes asks nothing; verified by a fresh inventory */
        reset();
        fake.converge = true;
        o.yes = true;
        CHECK_INTEQ(controller_apply(&o, &r, &err), 0);
        CHECK(!fake.question);
        CHECK(r && r->ok && r->converged && r->steps_left == 0 && !r->errors);
        CHECK(fake.inventories == 6); /* 3 hosts before, 3 after */
        free(t);
        t = r ? text_of(r, NULL) : NULL;
        CHECK_STREQ(t, "converged: every selected step done and verified by a fresh inventory\n");
        CHECK_INTEQ(journal_count(journal, "apply-end"), 2);
        r = apply_result_free(r);

        /* nothing to do: the short JSON and the text */
        reset();
        fake.converged = true;
        o.out = NULL;
        CHECK_INTEQ(controller_apply(&o, &r, &err), 0);
        CHECK(r && r->nothing_to_do && r->ok && r->converged);
        json_object_put(j);
        j = NULL;
        CHECK(r && apply_result_to_json(r, &j) == 0);
        free(k);
        k = keys_of(j);
        /* nothing to do: the same keys, nothing ran */
        CHECK_STREQ(k, "hosts,done,failed,skipped,seconds,converged,steps,unreachable_hosts,refused_hosts,preflight,steps_left,osds");
        free(t);
        t = r ? text_of(r, NULL) : NULL;
        CHECK_STREQ(t, "nothing to do: the hosts match the layout\n");
        CHECK_INTEQ(journal_count(journal, "apply-start"), 2);
        r = apply_result_free(r);

        /* a --take-back host not in the layout: refused before anything */
        reset();
        char *tb[] = { (char *) "node9", NULL };
        o.take_back = tb;
        Error e2 = {};
        CHECK_INTEQ(controller_apply(&o, &r, &e2), -ENOENT);
        _cleanup_(freep) char *want = strprintf("--take-back: host 'node9' is not in the layout '%s'", lpath);
        CHECK_STREQ(e2.message, want);
        CHECK_INTEQ(fake.inventories, 0);

        reset();
        json_object_put(fake.before);
        json_object_put(fake.after);
        unlink(journal);
        unlink(lock);
        unlink(lpath);
        rmdir(dir);
}

int main(void) {
        TEST_RUN(test_apply);
        return test_result();
}
