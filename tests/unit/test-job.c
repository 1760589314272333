/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The jobs of the re-shaping verbs (src/controller/job.h): each verb's shipped playbook (the
 * one in the source tree, as an uninstalled build finds it) and the words of its lock and
 * journal; the hooks each job has; a run's playbook file taken as given; a host's OSDs kept
 * once each. */

#include <errno.h>
#include <stdlib.h>

#include "basic/strv.h"
#include "controller/job.h"
#include "playbook/playbook.h"
#include "test.h"

/* The job's playbook is the shipped one called `name` and it loads. */
static void check_job(const Job *job, const char *command, const char *name, const char *host) {
        CHECK_STREQ(job->command, command);
        _cleanup_(freep) char *tail = strprintf("/%s.yaml", name);
        CHECK(tail && endswith(job->playbook, tail));
        _cleanup_(playbook_freep) Playbook *pb = NULL;
        Error err = {};
        CHECK_INTEQ(playbook_load(job->playbook, &pb, &err), 0);
        CHECK(pb && streq(pb->name, name));
        CHECK(job->hosts && streq(job->hosts[0], host) && !job->hosts[1]);
        CHECK(job->run_tag == NULL);
}

static void test_host_jobs(void) {
        Error err = {};
        _cleanup_(job_freep) Job *drain = NULL, *cancel = NULL, *destroy = NULL;
        CHECK_INTEQ(job_drain_new(NULL, "node3", false, &drain, &err), 0);
        CHECK_INTEQ(job_drain_new(NULL, "node3", true, &cancel, &err), 0);
        CHECK_INTEQ(job_destroy_new(NULL, "node3", &destroy, &err), 0);
        check_job(drain, "drain", "drain-node", "node3");
        check_job(cancel, "drain --cancel", "drain-cancel", "node3");
        check_job(destroy, "destroy", "destroy-node", "node3");

        /* each records the host's state; a drain finds its OSDs in the host's CRUSH bucket, a
         * destroy also in its record (purged ones, when it runs again after a kill) */
        CHECK(drain->ops->before && drain->ops->after && !drain->ops->facts);
        CHECK(cancel->ops->after);
        CHECK(destroy->ops->before && destroy->ops->after && destroy->ops->facts);
        /* none has a plan of its own, per-step hooks, or host steps of its own */
        Job *all[] = { drain, cancel, destroy };
        for (size_t i = 0; i < ELEMENTSOF(all); i++) {
                CHECK(!all[i]->ops->plan && !all[i]->ops->step_args && !all[i]->ops->host_ctx &&
                      !all[i]->ops->step_done);
                CHECK_INTEQ(job_plan(all[i], &(JobPlanOptions) { .out = stdout }, &err), 1);
        }
}

static void test_playbook_job(void) {
        Error err = {};
        char *hosts[] = { "node1", "node2", NULL };
        _cleanup_(job_freep) Job *job = NULL;
        /* the file as given, even with a shipped playbook's name */
        CHECK_INTEQ(job_playbook_new(NULL, "drain-node", hosts, &job, &err), 0);
        CHECK_STREQ(job->playbook, "drain-node");
        CHECK_STREQ(job->command, "run");
        CHECK_INTEQ(strv_length(job->hosts), 2);
        CHECK(!job->ops->facts && !job->ops->before && !job->ops->after && !job->ops->plan);
}

/* A job with no host has none (convert's "nothing to convert": its plan rebuilds no OSD). */
static void test_no_hosts(void) {
        Error err = {};
        _cleanup_(job_freep) Job *job = NULL;
        CHECK_INTEQ(job_new(NULL, "convert-filestore", "convert", NULL, NULL, NULL, &job, &err), 0);
        CHECK(job->hosts == NULL);
        CHECK_INTEQ(strv_length(job->hosts), 0);
}

static void test_host_osds(void) {
        JobHostOsds h = {};
        CHECK_INTEQ(job_host_osds_add(&h, 4), 0);
        CHECK_INTEQ(job_host_osds_add(&h, 7), 0);
        CHECK_INTEQ(job_host_osds_add(&h, 4), 0);
        CHECK_INTEQ(h.n_osds, 2);
        CHECK(h.osds[0] == 4 && h.osds[1] == 7);
        free(h.osds);
}

int main(void) {
        TEST_RUN(test_host_jobs);
        TEST_RUN(test_playbook_job);
        TEST_RUN(test_no_hosts);
        TEST_RUN(test_host_osds);
        return test_result();
}
