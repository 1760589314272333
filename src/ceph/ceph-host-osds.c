/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A host's OSDs as its records claim them: a drain records a host "drained" only once its
 * OSDs are emptied (out, down, in no PG's up or acting set), and a destroy run again purges
 * an id from its record only while the id is still the host's: an id purged there can be
 * given to another host's new OSD since. Pure: decided on the answers the caller read. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/strv.h"
#include "ceph-cluster.h"
#include "ceph.h"

static bool int_in(const int *v, size_t n, int x) {
        for (size_t i = 0; i < n; i++)
                if (v[i] == x)
                        return true;
        return false;
}

int ceph_osds_emptied(const CephOsdDump *dump, const CephPgDump *pgs, const int *ids, size_t n, Error *err) {
        _cleanup_strv_free_ char **why = NULL;
        for (size_t i = 0; i < n; i++) {
                const CephDumpOsd *o = ceph_osd_dump_find_osd(dump, ids[i]);
                if (!o)
                        continue; /* purged: holds nothing */
                size_t n_pgs = 0;
                const char *first = NULL;
                for (size_t k = 0; k < pgs->n_pgs; k++) {
                        const CephPgBrief *pg = &pgs->pgs[k];
                        if (int_in(pg->up, pg->n_up, ids[i]) || int_in(pg->acting, pg->n_acting, ids[i])) {
                                if (!first)
                                        first = pg->pgid;
                                n_pgs++;
                        }
                }
                if (!o->in && !o->up && n_pgs == 0)
                        continue;
                _cleanup_strv_free_ char **what = NULL;
                if ((o->in && strv_extend(&what, "in") < 0) || (o->up && strv_extend(&what, "up") < 0) ||
                    (n_pgs > 0 && strv_consume(&what, strprintf("in the up or acting set of %zu PG%s (%s%s)", n_pgs,
                                                                n_pgs == 1 ? "" : "s", first,
                                                                n_pgs > 1 ? ", ..." : "")) < 0))
                        return error_set(err, ENOMEM, "out of memory");
                _cleanup_(freep) char *w = strv_join(what, ", ");
                if (!w || strv_consume(&why, strprintf("osd.%d is %s", ids[i], w)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        if (!why)
                return 0;
        _cleanup_(freep) char *all = strv_join(why, "; ");
        return error_set(err, EBUSY, "%s", all ? all : "out of memory");
}

const char *ceph_osd_host_of(const CephOsdTree *tree, const CephOsdMetadataList *md, int id) {
        const CephTreeOsd *t = ceph_osd_tree_find_osd(tree, id);
        if (t && t->host)
                return t->host;
        const CephOsdMetadata *m = md ? ceph_osd_metadata_find(md, id) : NULL;
        return m ? m->hostname : NULL;
}

bool ceph_osd_of_host(const CephOsdTree *tree, const CephOsdMetadataList *md, int id, const char *host) {
        const CephTreeOsd *t = ceph_osd_tree_find_osd(tree, id);
        if (t && t->host)
                return streq(t->host, host);
        const CephOsdMetadata *m = md ? ceph_osd_metadata_find(md, id) : NULL;
        return m && m->hostname && streq(m->hostname, host);
}
