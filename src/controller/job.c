/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "controller/job.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/strv.h"
#include "controller/playbook-run.h"

int job_host_osds_add(JobHostOsds *h, unsigned id) {
        for (size_t k = 0; k < h->n_osds; k++)
                if (h->osds[k] == id)
                        return 0;
        unsigned *n = realloc(h->osds, (h->n_osds + 1) * sizeof(unsigned));
        if (!n)
                return -ENOMEM;
        h->osds = n;
        h->osds[h->n_osds++] = id;
        return 0;
}

int job_host_osds_bucket(const JobRun *run, const char *host, JobHostOsds *h, Error *err) {
        const CephTreeHost *th = ceph_osd_tree_find_host(run->tree, host);
        for (size_t k = 0; th && k < th->n_osds; k++) {
                unsigned *n = realloc(h->osds, (h->n_osds + 1) * sizeof(unsigned));
                if (!n)
                        return error_set(err, ENOMEM, "out of memory");
                h->osds = n;
                h->osds[h->n_osds++] = (unsigned) th->osds[k];
        }
        return 0;
}

/* Where a shipped playbook is: $CEPHPROV_PLAYBOOK_DIR, the installed ones, or the source
 * tree's (an uninstalled build). */
static char *playbook_path(const char *name) {
        const char *dirs[] = { getenv("CEPHPROV_PLAYBOOK_DIR"), CEPHPROV_PLAYBOOK_DIR, CEPHPROV_SOURCE_PLAYBOOK_DIR };
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                if (!dirs[i] || !dirs[i][0])
                        continue;
                char *p = strprintf("%s/%s.yaml", dirs[i], name);
                if (p && access(p, R_OK) == 0)
                        return p;
                free(p);
        }
        return strprintf("%s/%s.yaml", CEPHPROV_PLAYBOOK_DIR, name);
}

static const JobOps no_ops = {};

/* A job of the playbook file `path` (taken: freed on failure too). */
static int job_alloc(const Layout *l, char *path, const char *command, char * const *hosts, const JobOps *ops,
                     void *data, Job **ret, Error *err) {
        _cleanup_(job_freep) Job *job = calloc(1, sizeof(Job));
        if (!job) {
                free(path);
                if (ops && ops->free_data)
                        ops->free_data(data);
                return error_set(err, ENOMEM, "out of memory");
        }
        /* data is the job's from here, freed with it */
        job->ops = ops ? ops : &no_ops;
        job->data = data;
        job->layout = l;
        job->playbook = path;
        job->command = strdup(command);
        job->hosts = hosts ? strv_copy(hosts) : NULL;
        if (!job->playbook || !job->command || (hosts && !job->hosts))
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(job);
        return 0;
}

Job *job_free(Job *job) {
        if (!job)
                return NULL;
        if (job->ops->free_data)
                job->ops->free_data(job->data);
        free(job->playbook);
        free(job->command);
        strv_free(job->hosts);
        free(job->run_tag);
        free(job);
        return NULL;
}

int job_new(const Layout *l, const char *playbook, const char *command, char * const *hosts, const JobOps *ops,
            void *data, Job **ret, Error *err) {
        return job_alloc(l, playbook_path(playbook), command, hosts, ops, data, ret, err);
}

int job_playbook_new(const Layout *l, const char *path, char * const *hosts, Job **ret, Error *err) {
        return job_alloc(l, strdup(path), "run", hosts, NULL, NULL, ret, err);
}

int job_plan(Job *job, const JobPlanOptions *o, Error *err) {
        return job->ops->plan ? job->ops->plan(job, o, err) : 1;
}

int job_run(Job *job, const JobRunOptions *o, PlaybookRunResult **ret, Error *err) {
        _cleanup_(playbook_freep) Playbook *pb = NULL;
        int r = playbook_load(job->playbook, &pb, err);
        if (r < 0)
                return r;
        return playbook_run(pb, job, o, ret, err);
}
