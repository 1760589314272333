/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The step registry: every step the planner emits has a host entry, the table is complete
 * and consistent (names, docs, wait timeouts), every default parses, and argument
 * validation gives the exact file:line:col messages and the JSON form the executor reads. */

#include <errno.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "plan/plan.h"
#include "registry/step-registry.h"
#include "fixture.h"
#include "test.h"
#include "yaml/yaml-tree.h"

/* Validate `yaml` (a mapping of arguments, or "" for none) as the arguments of `step`. */
static int run(const char *step, const char *yaml, StepScope scope, json_object **ret, Error *err) {
        const StepEntry *e = step_registry_find(step);
        CHECK(e);
        if (!e)
                return -ENOENT;
        _cleanup_(yaml_node_freep) YamlNode *args = NULL;
        int r = yaml_tree_load("t.yaml", yaml, strlen(yaml), "arguments", &args, err);
        CHECK_INTEQ(r, 0);
        if (r < 0)
                return r;
        YamlMark at = { 1, 1 };
        if (ret)
                return step_args_to_json(e, args, at, "t.yaml", scope, ret, err);
        return step_args_validate(e, args, at, "t.yaml", scope, err);
}

static void check_error(const char *step, const char *yaml, StepScope scope, const char *expected) {
        Error err = {};
        int r = run(step, yaml, scope, NULL, &err);
        CHECK_INTEQ(r, -EINVAL);
        CHECK_STREQ(err.message, expected);
}

static bool kebab(const char *s) {
        if (!s[0] || s[0] == '-' || s[strlen(s) - 1] == '-' || strstr(s, "--"))
                return false;
        for (const char *p = s; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
                        return false;
        return true;
}

static void test_plan_steps_registered(void) {
        for (StepKind k = 0; k < _STEP_KIND_MAX; k++) {
                const char *name = step_kind_to_string(k);
                CHECK(name);
                const StepEntry *e = step_registry_find(name);
                if (!e)
                        fprintf(stderr, "  StepKind %d '%s' has no registry entry\n", (int) k, name);
                CHECK(e);
                if (e) {
                        CHECK_INTEQ(e->target, STEP_TARGET_HOST);
                        CHECK(e->agent_op);
                        /* apply runs its OSD creations side by side and its other steps one at
                         * a time (exec_run(): the plan's class): the entry says the same */
                        CHECK_INTEQ(step_kind_class(k) == STEP_CLASS_OSD, e->concurrency == STEP_CONCURRENCY_OSD_PARALLEL);
                }
        }
        /* and the host steps playbooks add */
        static const char * const extra[] = { "bcache-teardown", "wipe", "stop-osd", "start-osd" };
        for (size_t i = 0; i < ELEMENTSOF(extra); i++) {
                const StepEntry *e = step_registry_find(extra[i]);
                CHECK(e && e->target == STEP_TARGET_HOST);
        }
}

static void test_table_consistent(void) {
        static const char * const cluster[] = {
                "set-flag", "unset-flag", "pause-balancer", "restore-balancer", "pause-autoscaler",
                "restore-autoscaler", "out", "in", "crush-reweight", "wait-ok-to-stop",
                "wait-safe-to-destroy", "wait-clean", "destroy-osd", "purge-osd", "crush-remove-host",
                "throttle", "restore-throttle", "health-gate", "benchmark", "drain-check",
        };
        for (size_t i = 0; i < ELEMENTSOF(cluster); i++) {
                const StepEntry *e = step_registry_find(cluster[i]);
                if (!e)
                        fprintf(stderr, "  no cluster step '%s'\n", cluster[i]);
                CHECK(e && e->target == STEP_TARGET_CLUSTER && !e->agent_op);
        }
        CHECK(step_registry_count() >= ELEMENTSOF(cluster) + _STEP_KIND_MAX);
        CHECK(step_registry_get(step_registry_count()) == NULL);
        CHECK(step_registry_find("no-such-step") == NULL);

        size_t n_restore = 0;
        for (size_t i = 0; i < step_registry_count(); i++) {
                const StepEntry *e = step_registry_get(i);
                CHECK(kebab(e->name));
                CHECK(step_registry_find(e->name) == e); /* unique */
                CHECK(!isempty(e->doc) && !isempty(e->verify));
                CHECK((e->target == STEP_TARGET_HOST) == (e->agent_op != NULL));
                CHECK((unsigned) e->concurrency < _STEP_CONCURRENCY_MAX);
                if (e->restore) {
                        n_restore++;
                        CHECK_INTEQ(e->target, STEP_TARGET_CLUSTER);
                        CHECK(!e->destructive);
                }
                for (const StepArgSpec *a = e->args; a->name; a++) {
                        CHECK(!isempty(a->doc));
                        CHECK(step_entry_find_arg(e, a->name) == a);
                        CHECK(!(a->required && a->def)); /* a default makes it optional */
                        if (a->type == STEP_ARG_ENUM)
                                CHECK(a->values && a->values[0]);
                }
                /* every wait has a timeout with a default and says what it reports */
                if (startswith(e->name, "wait-") || e->concurrency == STEP_CONCURRENCY_WAIT) {
                        const StepArgSpec *t = step_entry_find_arg(e, "timeout");
                        if (!t)
                                fprintf(stderr, "  wait step '%s' has no timeout\n", e->name);
                        CHECK(t && t->type == STEP_ARG_DURATION && t->def);
                        CHECK(e->progress);
                        CHECK_INTEQ(e->concurrency, STEP_CONCURRENCY_WAIT);
                }
        }
        CHECK_INTEQ(n_restore, 4); /* unset-flag, restore-balancer, restore-autoscaler, restore-throttle */
        CHECK(step_registry_find("purge-osd")->destructive);
        CHECK(step_registry_find("wipe")->destructive);
        CHECK(!step_registry_find("out")->destructive);
        CHECK_STREQ(step_concurrency_to_string(step_registry_find("create-osd")->concurrency), "osd-parallel");
        CHECK(step_osd_flag_groupable("noout") && !step_osd_flag_groupable("norebalance"));
}

/* Each entry with sample values for its required arguments: every default must parse. */
static void test_defaults_parse(void) {
        for (size_t i = 0; i < step_registry_count(); i++) {
                const StepEntry *e = step_registry_get(i);
                char yaml[1024] = "{";
                size_t o = 1;
                for (const StepArgSpec *a = e->args; a->name; a++) {
                        const char *sample = NULL;
                        if (!a->required && !streq(a->name, "owned"))
                                continue;
                        switch (a->type) {
                        case STEP_ARG_STRING: sample = "x"; break;
                        case STEP_ARG_UINT: sample = "1"; break;
                        case STEP_ARG_NUMBER: sample = "1.5"; break;
                        case STEP_ARG_SIZE: sample = "1M"; break;
                        case STEP_ARG_BOOL: sample = "true"; break;
                        case STEP_ARG_FLAG: sample = "noout"; break;
                        case STEP_ARG_OSD_IDS: sample = "[1]"; break;
                        default: sample = "1"; break;
                        }
                        o += (size_t) snprintf(yaml + o, sizeof yaml - o, "%s%s: %s", o > 1 ? ", " : "", a->name, sample);
                }
                snprintf(yaml + o, sizeof yaml - o, "}");
                Error err = {};
                _cleanup_json_ json_object *j = NULL;
                int r = run(e->name, yaml, STEP_SCOPE_HOST, &j, &err);
                if (r < 0)
                        fprintf(stderr, "  %s %s: %s\n", e->name, yaml, err.message);
                CHECK_INTEQ(r, 0);
                /* every argument with a default is in the JSON */
                for (const StepArgSpec *a = e->args; j && a->name; a++)
                        if (a->def)
                                CHECK(json_object_object_get_ex(j, a->name, NULL));
        }
}

static void test_values(void) {
        Error err = {};
        _cleanup_json_ json_object *j = NULL;
        CHECK_INTEQ(run("wait-clean", "timeout: 6h", STEP_SCOPE_CLUSTER, &j, &err), 0);
        CHECK_STREQ(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN), "{\"timeout\":21600}");

        _cleanup_json_ json_object *d = NULL;
        CHECK_INTEQ(run("wait-clean", "", STEP_SCOPE_CLUSTER, &d, &err), 0);
        CHECK_STREQ(json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN), "{\"timeout\":86400}");

        _cleanup_json_ json_object *o = NULL;
        CHECK_INTEQ(run("out", "osds: [3, 7]", STEP_SCOPE_CLUSTER, &o, &err), 0);
        CHECK_STREQ(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "{\"osds\":[3,7]}");

        _cleanup_json_ json_object *h = NULL;
        CHECK_INTEQ(run("out", "", STEP_SCOPE_HOST, &h, &err), 0);
        CHECK_STREQ(json_object_to_json_string_ext(h, JSON_C_TO_STRING_PLAIN), "{\"osds\":\"${host.osds}\"}");

        _cleanup_json_ json_object *b = NULL;
        CHECK_INTEQ(run("benchmark", "{label: before, osds: [1, 2], rounds: 5}", STEP_SCOPE_CLUSTER, &b, &err), 0);
        CHECK_STREQ(json_object_to_json_string_ext(b, JSON_C_TO_STRING_PLAIN),
                    "{\"label\":\"before\",\"osds\":[1,2],\"rounds\":5,\"max_regression\":100,\"canary_only\":true}");

        _cleanup_json_ json_object *f = NULL;
        CHECK_INTEQ(run("set-flag", "{flag: noout, scope: host}", STEP_SCOPE_HOST, &f, &err), 0);
        CHECK_STREQ(json_object_to_json_string_ext(f, JSON_C_TO_STRING_PLAIN),
                    "{\"flag\":\"noout\",\"scope\":\"host\",\"host\":\"${host}\"}");

        _cleanup_json_ json_object *w = NULL;
        CHECK_INTEQ(run("crush-reweight", "{weight: 0, step: 0.5, osds: [1]}", STEP_SCOPE_CLUSTER, &w, &err), 0);
        CHECK_STREQ(json_object_to_json_string_ext(w, JSON_C_TO_STRING_PLAIN),
                    "{\"osds\":[1],\"weight\":0.0,\"step\":0.5,\"timeout\":43200}");

        _cleanup_json_ json_object *g = NULL;
        CHECK_INTEQ(run("health-gate", "{max_status: HEALTH_WARN, allow: [OSDMAP_FLAGS]}", STEP_SCOPE_CLUSTER, &g, &err), 0);
        CHECK_STREQ(json_object_to_json_string_ext(g, JSON_C_TO_STRING_PLAIN),
                    "{\"max_status\":\"HEALTH_WARN\",\"allow\":[\"OSDMAP_FLAGS\"],\"timeout\":1800}");
}

static void test_errors(void) {
        check_error("wait-clean", "timout: 1h", STEP_SCOPE_CLUSTER,
                    "t.yaml:1:1: step 'wait-clean': unknown argument 'timout' (did you mean 'timeout'?)");
        check_error("wait-clean", "timeout: [1]", STEP_SCOPE_CLUSTER,
                    "t.yaml:1:10: step 'wait-clean': wrong type for 'timeout': a list (expected a duration from 1s to 7 days: seconds or a number with s, m or h)");
        check_error("wait-clean", "timeout: 8d", STEP_SCOPE_CLUSTER,
                    "t.yaml:1:10: step 'wait-clean': invalid value '8d' for 'timeout' (expected a duration from 1s to 7 days: seconds or a number with s, m or h)");
        check_error("wait-clean", "{timeout: 1h, timeout: 2h}", STEP_SCOPE_CLUSTER,
                    "t.yaml:1:15: step 'wait-clean': duplicate argument 'timeout' (first given at line 1, column 2)");
        check_error("set-flag", "scope: host", STEP_SCOPE_HOST,
                    "t.yaml:1:1: step 'set-flag': missing argument 'flag' (expected one of: noout, norebalance, nobackfill, norecover, noup, nodown, noin, noscrub, nodeep-scrub: the OSD map flag)");
        check_error("set-flag", "flag: noot", STEP_SCOPE_CLUSTER,
                    "t.yaml:1:7: step 'set-flag': invalid value 'noot' for 'flag' (expected one of: noout, norebalance, nobackfill, norecover, noup, nodown, noin, noscrub, nodeep-scrub)");
        check_error("set-flag", "{flag: norebalance, scope: host}", STEP_SCOPE_HOST,
                    "t.yaml:1:8: step 'set-flag': flag 'norebalance' cannot be host-scoped (expected noup, nodown, noin or noout, which osd set-group takes, or scope cluster)");
        check_error("set-flag", "{flag: noout, scope: host}", STEP_SCOPE_CLUSTER,
                    "t.yaml:1:22: step 'set-flag': scope 'host' where the step runs for no host (expected it only in per_host, or scope cluster)");
        check_error("out", "", STEP_SCOPE_CLUSTER,
                    "t.yaml:1:1: step 'out': missing argument 'osds': its default '${host.osds}' is the ids of the host's OSDs, and this step runs for no host (expected 'osds' in args, or the step in per_host)");
        check_error("out", "osds: ${host.osds}", STEP_SCOPE_CLUSTER,
                    "t.yaml:1:7: step 'out': reference '${host.osds}' where the step runs for no host (expected it only in per_host)");
        check_error("out", "osds: ${host}", STEP_SCOPE_HOST,
                    "t.yaml:1:7: step 'out': reference '${host}' is the host's name, not a list of OSD ids such as [3, 7] (for 'osds')");
        check_error("crush-remove-host", "host: ${hots}", STEP_SCOPE_HOST,
                    "t.yaml:1:7: step 'crush-remove-host': unknown reference '${hots}' for 'host' (expected ${host}, ${host.osds} or ${hosts} as the whole value)");
        check_error("crush-remove-host", "host: node-${host}", STEP_SCOPE_HOST,
                    "t.yaml:1:7: step 'crush-remove-host': unknown reference 'node-${host}' for 'host' (expected ${host}, ${host.osds} or ${hosts} as the whole value)");
        check_error("out", "osds: [1, 1]", STEP_SCOPE_CLUSTER,
                    "t.yaml:1:11: step 'out': duplicate OSD id 1 in 'osds' (first given at line 1, column 8)");
        check_error("out", "osds: [-1]", STEP_SCOPE_CLUSTER,
                    "t.yaml:1:8: step 'out': invalid value '-1' for 'osds' (expected an integer from 0 to 2147483647)");
        check_error("out", "osds: []", STEP_SCOPE_CLUSTER,
                    "t.yaml:1:7: step 'out': empty list 'osds' (expected at least one OSD id)");
        check_error("benchmark", "{label: x, rounds: 21}", STEP_SCOPE_HOST,
                    "t.yaml:1:20: step 'benchmark': invalid value '21' for 'rounds' (expected an integer from 1 to 20)");
        check_error("benchmark", "{label: x, max_regression: 0}", STEP_SCOPE_HOST,
                    "t.yaml:1:28: step 'benchmark': invalid value '0' for 'max_regression' (expected an integer from 1 to 1000)");
        check_error("benchmark", "{label: x}", STEP_SCOPE_CLUSTER,
                    "t.yaml:1:1: step 'benchmark': missing argument 'osds': its default '${host.osds}' is the ids of the "
                    "host's OSDs, and this step runs for no host (expected 'osds' in args, or the step in per_host)");
        check_error("crush-reweight", "{weight: 1e3}", STEP_SCOPE_HOST,
                    "t.yaml:1:10: step 'crush-reweight': invalid value '1e3' for 'weight' (expected a number from 0 to 1000)");
        check_error("throttle", "preset: custom", STEP_SCOPE_CLUSTER,
                    "t.yaml:1:9: step 'throttle': preset 'custom' without 'osd_max_backfills' (expected osd_max_backfills, osd_recovery_max_active and osd_recovery_max_single_start with it)");
        check_error("wipe", "", STEP_SCOPE_HOST,
                    "t.yaml:1:1: step 'wipe': missing argument 'device' (expected 'device', or 'owned: true')");
        check_error("wipe", "{device: /dev/sdb, owned: true}", STEP_SCOPE_HOST,
                    "t.yaml:1:20: step 'wipe': 'device' and 'owned: true' together (expected one of them)");
        check_error("pause-balancer", "now: true", STEP_SCOPE_CLUSTER,
                    "t.yaml:1:1: step 'pause-balancer': unknown argument 'now' (none is defined)");
        check_error("wait-clean", "[timeout]", STEP_SCOPE_CLUSTER,
                    "t.yaml:1:1: step 'wait-clean': wrong type for the arguments: a list (expected a mapping of argument names to values)");
        check_error("health-gate", "allow: [A, A]", STEP_SCOPE_CLUSTER,
                    "t.yaml:1:12: step 'health-gate': duplicate entry 'A' in 'allow' (first given at line 1, column 9)");
}

static void test_substitute(void) {
        Error err = {};
        _cleanup_json_ json_object *j = NULL, *s = NULL, *s2 = NULL;
        CHECK_INTEQ(run("wait-safe-to-destroy", "timeout: 1h", STEP_SCOPE_HOST, &j, &err), 0);
        unsigned osds[] = { 4, 9 };
        StepFacts facts = { .host = "node3", .osds = osds, .n_osds = 2 };
        const StepEntry *e = step_registry_find("wait-safe-to-destroy");
        CHECK_INTEQ(step_args_substitute(e, j, &facts, &s, &err), 0);
        CHECK_STREQ(json_object_to_json_string_ext(s, JSON_C_TO_STRING_PLAIN), "{\"osds\":[4,9],\"timeout\":3600}");
        CHECK_INTEQ(step_args_substitute(e, j, NULL, &s2, &err), -EINVAL);
        CHECK_STREQ(err.message, "step 'wait-safe-to-destroy': argument 'osds' refers to ${host.osds}, and the step runs for no host");
        CHECK(s2 == NULL);

        _cleanup_json_ json_object *c = NULL, *cs = NULL;
        CHECK_INTEQ(run("crush-remove-host", "", STEP_SCOPE_HOST, &c, &err), 0);
        CHECK_INTEQ(step_args_substitute(step_registry_find("crush-remove-host"), c, &facts, &cs, &err), 0);
        CHECK_STREQ(json_object_to_json_string_ext(cs, JSON_C_TO_STRING_PLAIN), "{\"host\":\"node3\"}");
        CHECK(step_ref_is_valid("${host}") && !step_ref_is_valid("${host.disks}"));

        /* ${hosts} is a fact of the run: allowed where no host is */
        _cleanup_json_ json_object *d = NULL, *ds = NULL;
        CHECK_INTEQ(run("drain-check", "", STEP_SCOPE_CLUSTER, &d, &err), 0);
        char *hosts[] = { (char *) "node3", (char *) "node4", NULL };
        StepFacts run_facts = { .hosts = hosts };
        CHECK_INTEQ(step_args_substitute(step_registry_find("drain-check"), d, &run_facts, &ds, &err), 0);
        CHECK_STREQ(json_object_to_json_string_ext(ds, JSON_C_TO_STRING_PLAIN), "{\"hosts\":[\"node3\",\"node4\"],\"together\":true}");
}

static void test_to_json(void) {
        _cleanup_json_ json_object *j = NULL;
        CHECK_INTEQ(step_registry_to_json(&j), 0);
        CHECK_INTEQ(json_object_array_length(j), step_registry_count());
        json_object *first = json_object_array_get_idx(j, 0), *name;
        CHECK(json_object_object_get_ex(first, "name", &name));
        CHECK_STREQ(json_object_get_string(name), step_registry_get(0)->name);
}

/* The step reference of docs/playbooks.md, generated from the table. */
static void registry_markdown(FILE *f) {
        for (size_t i = 0; i < step_registry_count(); i++) {
                const StepEntry *e = step_registry_get(i);
                fprintf(f, "\n### `%s`\n\n", e->name);
                fprintf(f, "%s: %s", e->target == STEP_TARGET_HOST ? "host step" : "cluster step",
                        step_concurrency_to_string(e->concurrency));
                if (e->agent_op)
                        fprintf(f, ", agent op `%s`", e->agent_op);
                if (e->destructive)
                        fprintf(f, ", **destructive**");
                if (e->restore)
                        fprintf(f, ", restore step (allowed in `after`)");
                fprintf(f, ".\n\n%c%s.\n", e->doc[0] >= 'a' && e->doc[0] <= 'z' ? e->doc[0] - 'a' + 'A' : e->doc[0], e->doc + 1);
                if (e->args[0].name) {
                        fprintf(f, "\n| argument | type | default | meaning |\n| --- | --- | --- | --- |\n");
                        for (const StepArgSpec *a = e->args; a->name; a++) {
                                fprintf(f, "| `%s` | %s", a->name, step_arg_type_to_string(a->type));
                                if (a->type == STEP_ARG_ENUM)
                                        for (size_t k = 0; a->values[k]; k++)
                                                fprintf(f, "%s`%s`", k ? " \\| " : ": ", a->values[k]);
                                if (a->min != 0 || a->max != 0) {
                                        if (a->type == STEP_ARG_SIZE && a->max == 0)
                                                fprintf(f, ", at least %g byte%s", a->min, a->min == 1 ? "" : "s");
                                        else if (a->type == STEP_ARG_SIZE)
                                                fprintf(f, ", %g to %g bytes", a->min, a->max);
                                        else if (a->type == STEP_ARG_DURATION)
                                                fprintf(f, ", %gs to %gs", a->min, a->max);
                                        else
                                                fprintf(f, ", %g to %g", a->min, a->max);
                                }
                                if (a->required)
                                        fprintf(f, " | **required** | %s |\n", a->doc);
                                else if (a->def)
                                        fprintf(f, " | `%s` | %s |\n", a->def, a->doc);
                                else
                                        fprintf(f, " | — | %s |\n", a->doc);
                        }
                } else
                        fprintf(f, "\nNo arguments.\n");
                fprintf(f, "\nVerified: %s.\n", e->verify);
                if (e->progress)
                        fprintf(f, "Progress: %s.\n", e->progress);
        }
}

static void test_docs(void) {
        char path[4096];
        snprintf(path, sizeof path, "%s/playbooks.md", fixture_dir("DOCS"));
        static const char begin[] = "<!-- steps: generated from the registry -->\n", end[] = "<!-- end of steps -->\n";

        size_t len = 0;
        char *doc = fixture_read(path, &len);
        CHECK(doc);
        if (!doc)
                return;

        char *gen = NULL;
        size_t gen_len = 0;
        FILE *g = open_memstream(&gen, &gen_len);
        registry_markdown(g);
        fclose(g);

        char *b = strstr(doc, begin), *e = b ? strstr(b, end) : NULL;
        CHECK(b && e);
        if (b && e) {
                b += strlen(begin);
                size_t have = (size_t) (e - b);
                bool same = have == gen_len && memcmp(b, gen, gen_len) == 0;
                if (!same && getenv("UPDATE_DOCS")) {
                        FILE *out = fopen(path, "we");
                        CHECK(out);
                        if (out) {
                                fwrite(doc, 1, (size_t) (b - doc), out);
                                fwrite(gen, 1, gen_len, out);
                                fwrite(e, 1, len - (size_t) (e - doc), out);
                                fclose(out);
                                fprintf(stderr, "updated %s\n", path);
                        }
                } else {
                        if (!same)
                                fprintf(stderr, "  docs/playbooks.md's step list differs from the registry (UPDATE_DOCS=1 rewrites it)\n");
                        CHECK(same);
                }
        }
        free(gen);
        free(doc);
}

int main(void) {
        TEST_RUN(test_plan_steps_registered);
        TEST_RUN(test_table_consistent);
        TEST_RUN(test_defaults_parse);
        TEST_RUN(test_values);
        TEST_RUN(test_errors);
        TEST_RUN(test_substitute);
        TEST_RUN(test_to_json);
        TEST_RUN(test_docs);
        return test_result();
}
