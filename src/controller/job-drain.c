/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The jobs on one host of a layout that record its state in the cluster: `drain` (the
 * drain-node playbook), `drain --cancel` (drain-cancel) and `destroy` (destroy-node). */
#include <errno.h>
#include <stdlib.h>

#include "basic/log.h"
#include "basic/strv.h"
#include "controller/cluster-steps.h"
#include "controller/job.h"

/* The host's state, with its OSD ids, recorded in the cluster (every admin machine sees it). */
static int drain_record(CephAdmin *a, const PlaybookHostFacts *h, size_t n, const char *state, Error *err) {
        for (size_t i = 0; i < n; i++) {
                _cleanup_(freep) int *ids = calloc(h[i].n_osds ? h[i].n_osds : 1, sizeof(int));
                if (!ids)
                        return error_set(err, ENOMEM, "out of memory");
                for (size_t k = 0; k < h[i].n_osds; k++)
                        ids[k] = (int) h[i].osds[k];
                int r = cluster_drained_set(a, h[i].host, state, ids, h[i].n_osds, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The states a job records for its host: at its first step and once every step succeeded
 * (NULL: the record removed). A drained host stays drained (apply leaves its OSDs down and
 * out) from its first step until `drain --cancel`. A destroyed host's record says destroying
 * from the first step (its OSD ids kept there: once purged, only the record knows them) and
 * destroyed at the end; apply refuses the host from the first step on, until `apply
 * --take-back HOST`. */
typedef struct HostRecord {
        const char *before, *after;
} HostRecord;

static const HostRecord drain_states = { "draining", "drained" };
static const HostRecord cancel_states = { NULL, NULL };
static const HostRecord destroy_states = { "destroying", "destroyed" };

static int record_before(Job *job, const JobRun *run, const PlaybookHostFacts *h, size_t n, Error *err) {
        const HostRecord *rec = job->data;
        return rec->before ? drain_record(run->admin, h, n, rec->before, err) : 0;
}

static int record_after(Job *job, const JobRun *run, const PlaybookHostFacts *h, size_t n, Error *err) {
        const HostRecord *rec = job->data;
        if (rec->after)
                return drain_record(run->admin, h, n, rec->after, err);
        for (size_t i = 0; i < n; i++) {
                int r = cluster_drained_rm(run->admin, h[i].host, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A destroyed host's OSDs: those under its CRUSH host bucket and those its record names (purged
 * already, when destroy runs again after a kill), while they are still this host's: a purged
 * id may have been given to another host's new OSD since. Those are no step's to act on; only
 * the destroy plan knows them (ret->more), for this host's disks that still carry them. */
static int destroy_facts(Job *job, const JobRun *run, const char *host, JobHostOsds *ret, Error *err) {
        int r = job_host_osds_bucket(run, host, ret, err);
        if (r < 0)
                return r;
        _cleanup_(freep) char *state = NULL;
        _cleanup_(freep) int *ids = NULL, *own = NULL;
        _cleanup_strv_free_ char **other = NULL;
        size_t n_ids = 0, n_own = 0;
        if ((r = cluster_drained_get(run->admin, host, &state, &ids, &n_ids, err)) < 0)
                return r;
        if (r == 0)
                n_ids = 0;
        if ((r = cluster_osds_of_host(run->admin, host, ids, n_ids, &own, &n_own, &other, err)) < 0)
                return r;
        for (size_t k = 0; k < n_own; k++)
                if (own[k] >= 0 && job_host_osds_add(ret, (unsigned) own[k]) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        if (!other)
                return 0;
        _cleanup_(freep) char *list = strv_join(other, ", ");
        log_notice("host '%s': its record names %s: left alone", host, list ? list : "");
        if (!(ret->more = calloc(n_ids ? n_ids : 1, sizeof(int))))
                return error_set(err, ENOMEM, "out of memory");
        for (size_t k = 0; k < n_ids; k++) {
                bool mine = false;
                for (size_t m = 0; m < n_own; m++)
                        mine = mine || own[m] == ids[k];
                if (!mine && ids[k] >= 0)
                        ret->more[ret->n_more++] = ids[k];
        }
        return 0;
}

static const JobOps drain_ops = { .before = record_before, .after = record_after };
static const JobOps destroy_ops = { .facts = destroy_facts, .before = record_before, .after = record_after };

int job_drain_new(const Layout *l, const char *host, bool cancel, Job **ret, Error *err) {
        char *hosts[] = { (char *) host, NULL };
        if (cancel)
                return job_new(l, "drain-cancel", "drain --cancel", hosts, &drain_ops, (void *) &cancel_states, ret,
                               err);
        return job_new(l, "drain-node", "drain", hosts, &drain_ops, (void *) &drain_states, ret, err);
}

int job_destroy_new(const Layout *l, const char *host, Job **ret, Error *err) {
        char *hosts[] = { (char *) host, NULL };
        return job_new(l, "destroy-node", "destroy", hosts, &destroy_ops, (void *) &destroy_states, ret, err);
}
