/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The steps' one home (src/controller/steps/table.c) against the registry
 * (src/registry/step-table.c): the same steps, in the same order; each cluster step has its
 * body there, each host step either a body there or the agent op the registry names; and a
 * step the registry does not know is refused by both links with its name. */

#include <errno.h>

#include "controller/steps/host-steps.h"
#include "registry/step-registry.h"
#include "test.h"

static void test_table_matches_registry(void) {
        size_t n = 0;
        const StepBody *b = step_bodies(&n);
        CHECK_INTEQ(n, step_registry_count());
        for (size_t i = 0; i < step_registry_count(); i++) {
                const StepEntry *e = step_registry_get(i);
                const StepBody *x = step_body_find(e->name);
                if (!x) {
                        fprintf(stderr, "registry step '%s' has no body\n", e->name);
                        CHECK(x != NULL);
                        continue;
                }
                if (i < n && !streq(b[i].name, e->name))
                        fprintf(stderr, "table[%zu] is '%s', the registry's '%s'\n", i, b[i].name, e->name);
                CHECK(i < n && streq(b[i].name, e->name));
                if (e->target == STEP_TARGET_CLUSTER) {
                        CHECK(x->cluster != NULL);
                        CHECK(x->host == NULL);
                } else {
                        CHECK(x->cluster == NULL);
                        /* done here, or by the agent op the registry names */
                        CHECK(x->host != NULL || (e->agent_op && e->agent_op[0]));
                }
        }
        for (size_t i = 0; i < n; i++)
                CHECK(step_registry_find(b[i].name) != NULL);
        CHECK(step_body_find("no-such-step") == NULL);
        CHECK(step_body_find(NULL) == NULL);
}

static void test_links_refuse(void) {
        Error err = {};
        json_object *res = NULL;
        CHECK_INTEQ(cluster_steps_call(NULL, "no-such-step", NULL, NULL, &res, &err), -ENOTSUP);
        CHECK_STREQ(err.message, "'no-such-step' is not a cluster step");
        error_reset(&err);
        /* a host step is not a cluster step */
        CHECK_INTEQ(cluster_steps_call(NULL, "wipe", NULL, NULL, &res, &err), -ENOTSUP);
        error_reset(&err);
        CHECK_INTEQ(host_step_call(NULL, "wait-clean", NULL, &res, &err), -EINVAL);
        CHECK_STREQ(err.message, "'wait-clean' is not a host step");
        CHECK(res == NULL);
}

int main(void) {
        TEST_RUN(test_table_matches_registry);
        TEST_RUN(test_links_refuse);
        return test_result();
}
