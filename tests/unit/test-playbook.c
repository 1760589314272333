/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The playbook language: the shipped playbooks load with the steps they promise, every
 * invalid playbook in tests/data/playbook-invalid/ gives exactly the message in its sibling
 * .expected file, host strategies cut hosts into the right waves, and the per-host plan
 * prints as expected. */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "playbook/playbook.h"
#include "fixture.h"
#include "test.h"

static Playbook *load(const char *yaml) {
        Error err = {};
        Playbook *pb = NULL;
        int r = playbook_load_string("t.yaml", yaml, strlen(yaml), &pb, &err);
        if (r < 0)
                fprintf(stderr, "  unexpected error: %s\n", err.message);
        CHECK_INTEQ(r, 0);
        return pb;
}

static const char *step_name(const Playbook *pb, PlaybookSection s, size_t i) {
        return i < pb->n_steps[s] ? pb->steps[s][i].entry->name : NULL;
}

static Playbook *load_shipped(const char *name) {
        const char *dir = getenv("PLAYBOOKS");
        if (!dir)
                test_skip("PLAYBOOKS is not set (run through meson test)");
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        Error err = {};
        Playbook *pb = NULL;
        int r = playbook_load(path, &pb, &err);
        if (r < 0)
                fprintf(stderr, "  %s\n", err.message);
        CHECK_INTEQ(r, 0);
        if (pb)
                CHECK_STREQ(pb->path, path);
        return pb;
}

static void test_drain_node(void) {
        _cleanup_(playbook_freep) Playbook *pb = load_shipped("drain-node.yaml");
        if (!pb)
                return;
        CHECK_STREQ(pb->name, "drain-node");
        CHECK(!pb->destructive);
        CHECK_INTEQ(pb->strategy, PLAYBOOK_HOSTS_SERIAL);
        CHECK_INTEQ(pb->on_failure, PLAYBOOK_ON_FAILURE_STOP);
        /* refused before anything changes: drain-check first */
        CHECK_STREQ(step_name(pb, PLAYBOOK_BEFORE, 0), "drain-check");
        CHECK_STREQ(step_name(pb, PLAYBOOK_BEFORE, 1), "throttle");
        static const char * const per_host[] = { "out", "wait-peered", "wait-safe-to-destroy", "wait-clean",
                                                 "wait-ok-to-stop", "stop-osd" };
        CHECK_INTEQ(pb->n_steps[PLAYBOOK_PER_HOST], ELEMENTSOF(per_host));
        for (size_t i = 0; i < ELEMENTSOF(per_host); i++)
                CHECK_STREQ(step_name(pb, PLAYBOOK_PER_HOST, i), per_host[i]);
        /* no destructive step, no host-scoped noout: drain marks out */
        for (size_t s = 0; s < _PLAYBOOK_SECTION_MAX; s++)
                for (size_t i = 0; i < pb->n_steps[s]; i++) {
                        CHECK(!pb->steps[s][i].entry->destructive);
                        CHECK(!streq(pb->steps[s][i].entry->name, "set-flag"));
                }
        CHECK_STREQ(step_name(pb, PLAYBOOK_AFTER, 2), "restore-throttle");
        CHECK_STREQ(json_object_to_json_string_ext(pb->steps[PLAYBOOK_BEFORE][1].args, JSON_C_TO_STRING_PLAIN),
                    "{\"preset\":\"layout\"}");
        CHECK_STREQ(json_object_to_json_string_ext(pb->steps[PLAYBOOK_PER_HOST][2].args, JSON_C_TO_STRING_PLAIN),
                    "{\"osds\":\"${host.osds}\",\"timeout\":86400}");
}

static void test_destroy_node(void) {
        _cleanup_(playbook_freep) Playbook *pb = load_shipped("destroy-node.yaml");
        if (!pb)
                return;
        CHECK_STREQ(pb->name, "destroy-node");
        CHECK(pb->destructive);
        static const char * const per_host[] = {
                "out", "wait-peered", "wait-safe-to-destroy", "wait-clean", "wait-ok-to-stop", "stop-osd",
                "purge-osd", "bcache-teardown", "wipe", "crush-remove-host",
        };
        CHECK_INTEQ(pb->n_steps[PLAYBOOK_PER_HOST], ELEMENTSOF(per_host));
        for (size_t i = 0; i < ELEMENTSOF(per_host); i++)
                CHECK_STREQ(step_name(pb, PLAYBOOK_PER_HOST, i), per_host[i]);
        /* only what cephprov owns is wiped */
        CHECK_STREQ(json_object_to_json_string_ext(pb->steps[PLAYBOOK_PER_HOST][8].args, JSON_C_TO_STRING_PLAIN),
                    "{\"owned\":true}");
        CHECK_STREQ(json_object_to_json_string_ext(pb->steps[PLAYBOOK_PER_HOST][9].args, JSON_C_TO_STRING_PLAIN),
                    "{\"host\":\"${host}\"}");
}

static void test_every_shipped_playbook_loads(void) {
        const char *dir = getenv("PLAYBOOKS");
        if (!dir)
                test_skip("PLAYBOOKS is not set (run through meson test)");
        DIR *d = opendir(dir);
        CHECK(d);
        if (!d)
                return;
        size_t n = 0;
        struct dirent *de;
        while ((de = readdir(d)))
                if (endswith(de->d_name, ".yaml")) {
                        _cleanup_(playbook_freep) Playbook *pb = load_shipped(de->d_name);
                        _cleanup_json_ json_object *j = NULL;
                        if (pb)
                                CHECK_INTEQ(playbook_to_json(pb, &j), 0);
                        n++;
                }
        closedir(d);
        CHECK(n >= 2);
}

static void check_invalid_playbook(const char *name, const char *yaml, size_t len, const char *expected) {
        Error err = {};
        Playbook *pb = (Playbook *) 0x1; /* must stay untouched on failure */
        int r = playbook_load_string(name, yaml, len, &pb, &err);
        if (r != -EINVAL || !streq(err.message, expected))
                fprintf(stderr, "  case %s\n", name);
        CHECK_INTEQ(r, -EINVAL);
        CHECK_STREQ(err.message, expected);
        CHECK(pb == (Playbook *) 0x1);

        error_reset(&err);
        pb = NULL;
        r = playbook_load(name, &pb, &err);
        CHECK_INTEQ(r, -EINVAL);
        CHECK_STREQ(err.message, expected);
        CHECK(pb == NULL);
}

static void test_invalid_fixtures(void) {
        size_t n = fixture_invalid_cases("playbook-invalid", 50, check_invalid_playbook);
        fprintf(stderr, "  %zu invalid playbooks checked\n", n);
}

static void test_forms(void) {
        _cleanup_(playbook_freep) Playbook *pb = load(
                "playbook: rolling\n"
                "description: >\n"
                "  Two lines\n"
                "  folded.\n"
                "hosts: {strategy: batch, batch: 3, canary: true}\n"
                "per_host:\n"
                "  - step: wait-clean\n"
                "    args:\n"
                "  - step: set-flag\n"
                "    args: {flag: noout, scope: host}\n"
                "  - step: unset-flag\n"
                "    args: {flag: noout, scope: host}\n"
                "on_failure: continue-other-hosts\n");
        if (!pb)
                return;
        CHECK_STREQ(pb->description, "Two lines folded.");
        CHECK_INTEQ(pb->strategy, PLAYBOOK_HOSTS_BATCH);
        CHECK_INTEQ(pb->batch, 3);
        CHECK(pb->canary);
        CHECK_INTEQ(pb->on_failure, PLAYBOOK_ON_FAILURE_CONTINUE_OTHER_HOSTS);
        CHECK_INTEQ(pb->n_steps[PLAYBOOK_BEFORE], 0);
        CHECK_INTEQ(pb->steps[PLAYBOOK_PER_HOST][0].mark.line, 7);
        CHECK_STREQ(json_object_to_json_string_ext(pb->steps[PLAYBOOK_PER_HOST][1].args, JSON_C_TO_STRING_PLAIN),
                    "{\"flag\":\"noout\",\"scope\":\"host\",\"host\":\"${host}\"}");

        _cleanup_(playbook_freep) Playbook *fd = load(
                "playbook: by-rack\nhosts: {strategy: failure-domain, bucket: rack}\nper_host: [{step: out}]\n");
        if (fd) {
                CHECK_INTEQ(fd->strategy, PLAYBOOK_HOSTS_FAILURE_DOMAIN);
                CHECK_STREQ(fd->bucket, "rack");
                CHECK_INTEQ(fd->batch, 1);
        }

        /* a missing file names the playbook */
        Error err = {};
        Playbook *none = NULL;
        CHECK_INTEQ(playbook_load("no-such-playbook.yaml", &none, &err), -ENOENT);
        CHECK_STREQ(err.message, "cannot open playbook 'no-such-playbook.yaml': No such file or directory");
        CHECK(none == NULL);
}

static void test_is_playbook(void) {
        static const char pb[] = "# c\nplaybook: x\nper_host: []\n";
        static const char layout[] = "cluster: {admin_host: a}\nhosts: [{name: a}]\n";
        static const char broken[] = "playbook: x\nper_host: [\n";
        static const char broken_layout[] = "cluster: [\n";
        CHECK(playbook_text_is_playbook(pb, strlen(pb)));
        CHECK(!playbook_text_is_playbook(layout, strlen(layout)));
        CHECK(playbook_text_is_playbook(broken, strlen(broken)));
        CHECK(!playbook_text_is_playbook(broken_layout, strlen(broken_layout)));
        CHECK(!playbook_text_is_playbook("", 0));
}

/* The waves as "a b | c | d e" */
static void waves_string(const Playbook *pb, const PlaybookHostFacts *h, size_t n, char *buf, size_t len) {
        _cleanup_(playbook_waves_freep) PlaybookWaves *w = NULL;
        CHECK_INTEQ(playbook_waves(pb, h, n, &w), 0);
        size_t o = 0;
        buf[0] = 0;
        for (size_t i = 0; w && i < w->n_waves; i++)
                for (size_t k = w->start[i]; k < w->start[i + 1]; k++)
                        o += (size_t) snprintf(buf + o, len - o, "%s%s%s", o == 0 ? "" : k == w->start[i] ? " | " : " ",
                                               h[w->hosts[k]].host, "");
}

static void test_waves(void) {
        const PlaybookHostFacts h[] = {
                { .host = "n1", .failure_domain = "r1" }, { .host = "n2", .failure_domain = "r2" },
                { .host = "n3", .failure_domain = "r1" }, { .host = "n4" },
                { .host = "n5", .failure_domain = "r2" },
        };
        char buf[256];
        Playbook pb = { .strategy = PLAYBOOK_HOSTS_SERIAL, .batch = 1 };
        waves_string(&pb, h, 5, buf, sizeof buf);
        CHECK_STREQ(buf, "n1 | n2 | n3 | n4 | n5");
        pb.canary = true;
        waves_string(&pb, h, 5, buf, sizeof buf);
        CHECK_STREQ(buf, "n1 | n2 | n3 | n4 | n5");

        pb = (Playbook) { .strategy = PLAYBOOK_HOSTS_BATCH, .batch = 2 };
        waves_string(&pb, h, 5, buf, sizeof buf);
        CHECK_STREQ(buf, "n1 n2 | n3 n4 | n5");
        pb.canary = true;
        waves_string(&pb, h, 5, buf, sizeof buf);
        CHECK_STREQ(buf, "n1 | n2 n3 | n4 n5");

        /* domains in the order of their first host; a host of unknown domain alone */
        pb = (Playbook) { .strategy = PLAYBOOK_HOSTS_FAILURE_DOMAIN, .batch = 1 };
        waves_string(&pb, h, 5, buf, sizeof buf);
        CHECK_STREQ(buf, "n1 n3 | n2 n5 | n4");
        pb.canary = true;
        waves_string(&pb, h, 5, buf, sizeof buf);
        CHECK_STREQ(buf, "n1 | n3 | n2 n5 | n4");

        _cleanup_(playbook_waves_freep) PlaybookWaves *w = NULL;
        CHECK_INTEQ(playbook_waves(&pb, h, 0, &w), 0);
        CHECK_INTEQ(w->n_waves, 0);
}

static void test_print_plan(void) {
        _cleanup_(playbook_freep) Playbook *pb = load(
                "playbook: demo\n"
                "destructive: true\n"
                "hosts: {strategy: serial, canary: true}\n"
                "before:\n"
                "  - step: drain-check\n"
                "  - step: throttle\n"
                "    args: {preset: slow}\n"
                "per_host:\n"
                "  - step: out\n"
                "  - step: crush-remove-host\n"
                "  - step: benchmark\n"
                "    args: {label: after, rounds: 5}\n"
                "gate:\n"
                "  - step: wait-clean\n"
                "    args: {timeout: 2h}\n"
                "after:\n"
                "  - step: restore-throttle\n");
        if (!pb)
                return;
        const unsigned osds[] = { 3, 9 };
        const PlaybookHostFacts h[] = {
                { .host = "node3", .osds = osds, .n_osds = 2 },
                { .host = "node4" },
        };
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        CHECK_INTEQ(playbook_print_plan(pb, h, 2, f), 0);
        fclose(f);
        CHECK_STREQ(text,
                    "playbook 'demo' (destructive): 2 hosts in 2 waves (serial, canary first), on failure: stop\n"
                    "\n"
                    "before the first wave, once:\n"
                    "  drain-check hosts=[node3, node4] together=true\n"
                    "  throttle preset=slow\n"
                    "\n"
                    "wave 1 of 2: node3\n"
                    "  node3:\n"
                    "    out osds=[3, 9]\n"
                    "    crush-remove-host host=node3\n"
                    "    benchmark label=after osds=[3, 9] rounds=5 max_regression=100 canary_only=true\n"
                    "  then, before the next wave:\n"
                    "    wait-clean timeout=2h\n"
                    "\n"
                    "wave 2 of 2: node4\n"
                    "  node4:\n"
                    "    out osds=${host.osds}\n"
                    "    crush-remove-host host=node4\n"
                    "    benchmark label=after osds=${host.osds} rounds=5 max_regression=100 canary_only=true\n"
                    "\n"
                    "after the last wave, also after a failure or cancel:\n"
                    "  restore-throttle\n");
        free(text);

        _cleanup_json_ json_object *j = NULL;
        CHECK_INTEQ(playbook_plan_to_json(pb, h, 2, &j), 0);
        json_object *waves, *w0, *steps, *n3, *gate, *w1;
        CHECK(json_object_object_get_ex(j, "waves", &waves));
        CHECK_INTEQ(json_object_array_length(waves), 2);
        w0 = json_object_array_get_idx(waves, 0);
        CHECK(json_object_object_get_ex(w0, "steps", &steps) && json_object_object_get_ex(steps, "node3", &n3));
        CHECK_STREQ(json_object_to_json_string_ext(json_object_array_get_idx(n3, 0), JSON_C_TO_STRING_PLAIN),
                    "{\"step\":\"out\",\"target\":\"cluster\",\"args\":{\"osds\":[3,9]}}");
        CHECK(json_object_object_get_ex(w0, "gate", &gate));
        CHECK_INTEQ(json_object_array_length(gate), 1);
        w1 = json_object_array_get_idx(waves, 1);
        CHECK(!json_object_object_get_ex(w1, "gate", NULL)); /* no gate after the last wave */
}

/* Every error example of docs/playbooks.md is the message of one of the invalid playbooks
 * (the file name aside), so the page cannot drift from what cephprov says. */
static void test_doc_examples(void) {
        const char *docs = getenv("DOCS");
        if (!docs)
                test_skip("DOCS is not set (run through meson test)");
        char path[PATH_MAX], dir[PATH_MAX];
        snprintf(path, sizeof path, "%s/playbooks.md", docs);
        snprintf(dir, sizeof dir, "%s/playbook-invalid", fixture_dir("TEST_DATA"));
        _cleanup_(freep) char *doc = fixture_read(path, NULL);
        CHECK(doc);
        if (!doc)
                return;

        /* the messages of the fixtures, without their file names */
        _cleanup_strv_free_ char **messages = NULL;
        DIR *d = opendir(dir);
        CHECK(d);
        if (!d)
                return;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (!endswith(de->d_name, ".expected"))
                        continue;
                char p[PATH_MAX * 2];
                snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
                _cleanup_(freep) char *m = fixture_read(p, NULL);
                if (!m)
                        continue;
                m[strcspn(m, "\n")] = 0;
                const char *colon = strchr(m, ':');
                CHECK_INTEQ(strv_extend(&messages, colon ? colon : m), 0);
        }
        closedir(d);

        const char *start = strstr(doc, "## Errors");
        CHECK(start);
        if (!start)
                return;
        /* the section up to the next heading: its code blocks hold the examples */
        const char *next = strstr(start + 1, "\n## ");
        _cleanup_(freep) char *text = next ? strndup(start, (size_t) (next - start)) : strdup(start);
        CHECK(text);
        if (!text)
                return;
        _cleanup_strv_free_ char **lines = strv_split(text, "\n");
        size_t n = 0;
        STRV_FOREACH(l, lines) {
                if (!strstr(*l, ".yaml:"))
                        continue;
                const char *colon = strchr(*l, ':');
                bool found = strv_contains(messages, colon);
                if (!found)
                        fprintf(stderr, "  example not given by any invalid playbook: %s\n", *l);
                CHECK(found);
                n++;
        }
        CHECK(n >= 8);
}

/* Every error of a playbook, in file order, not only the first the walk meets; a step with a
 * bad argument is left out and the steps after it still checked; no cascade from a typo'd
 * key to "missing key". The single-error form reports the first in file order. */
static void test_all_errors(void) {
        static const char y[] =
                "playbook: p\n"                                  /* 1 */
                "before:\n"                                      /* 2 */
                "  - step: benchmark\n"                          /* 3 */
                "    args: {osds: [1], rounds: 100, labl: x}\n"  /* 4 */
                "per_hots:\n"                                    /* 5 */
                "  - step: out\n"                                /* 6 */
                "hosts: {strategy: serial, batch: 3}\n"          /* 7 */
                "after:\n"                                       /* 8 */
                "  - step: nosuch\n"                             /* 9 */
                "  - step: restore-balancer\n";                  /* 10 */
        _cleanup_(playbook_freep) Playbook *pb = NULL;
        _cleanup_(yaml_diags_done) YamlDiags d = {};
        Error err = {};
        CHECK_INTEQ(playbook_load_string_all("t.yaml", y, strlen(y), &pb, &d, &err), -EINVAL);
        CHECK(!pb);
        CHECK_INTEQ(d.n_errors, 5);
        static const struct { unsigned line, col; const char *start; } want[] = {
                { 4, 31, "step 'benchmark': invalid value '100' for 'rounds'" },
                { 4, 36, "step 'benchmark': unknown argument 'labl' (did you mean 'label'?)" },
                { 5, 1, "unknown key 'per_hots' (did you mean 'per_host'?)" },
                { 7, 27, "'batch' with strategy 'serial'" },
                { 9, 11, "unknown step 'nosuch'" },
        };
        for (size_t i = 0; i < ELEMENTSOF(want) && i < d.n; i++) {
                CHECK_INTEQ(d.items[i].mark.line, want[i].line);
                CHECK_INTEQ(d.items[i].mark.column, want[i].col);
                CHECK(strncmp(d.items[i].message, want[i].start, strlen(want[i].start)) == 0);
                if (strncmp(d.items[i].message, want[i].start, strlen(want[i].start)) != 0)
                        fprintf(stderr, "  got: %s\n", d.items[i].message);
        }
        CHECK(strncmp(err.message, "t.yaml:4:31: step 'benchmark'", 29) == 0);

        /* the single-error form: the same first error, in file order */
        Error e1 = {};
        CHECK_INTEQ(playbook_load_string("t.yaml", y, strlen(y), &pb, &e1), -EINVAL);
        CHECK(strncmp(e1.message, "t.yaml:4:31: step 'benchmark'", 29) == 0);
        CHECK(!pb);
}

int main(void) {
        TEST_RUN(test_drain_node);
        TEST_RUN(test_destroy_node);
        TEST_RUN(test_every_shipped_playbook_loads);
        TEST_RUN(test_invalid_fixtures);
        TEST_RUN(test_forms);
        TEST_RUN(test_is_playbook);
        TEST_RUN(test_waves);
        TEST_RUN(test_print_plan);
        TEST_RUN(test_doc_examples);
        TEST_RUN(test_all_errors);
        return test_result();
}
