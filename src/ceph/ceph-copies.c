/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The gate before an in-place destroy and before each wipe: would any PG be left without a
 * readable copy? Asked of the PGs' acting sets (`pg dump pgs_brief`) and of the OSD map as
 * it is now (which OSDs are up), not of the mgr's ok-to-stop: ok-to-stop looks only at PGs
 * whose acting set still lists the OSDs asked about, so once they are down (stopped by an
 * earlier run) it says yes even while every other copy of their PGs is down too. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/strv.h"
#include "ceph-cluster.h"
#include "ceph-internal.h"
#include "ceph.h"

#define CRUSH_ITEM_NONE 0x7fffffff

CephCopies *ceph_copies_free(CephCopies *c) {
        if (!c)
                return NULL;
        for (size_t i = 0; i < c->n_lost; i++)
                free(c->lost[i].pgid);
        free(c->lost);
        free(c->down);
        free(c);
        return NULL;
}

static bool int_in(const int *v, size_t n, int x) {
        for (size_t i = 0; i < n; i++)
                if (v[i] == x)
                        return true;
        return false;
}

static const CephPool *pool_by_id(const CephPoolList *l, int id) {
        for (size_t i = 0; l && i < l->n_pools; i++)
                if (l->pools[i].id == id)
                        return &l->pools[i];
        return NULL;
}

int ceph_copies_check(const CephPgDump *pgs, const CephOsdDump *dump, const CephPoolList *pools,
                      const CephEcProfileList *ec, const int *targets, size_t n_targets, CephCopies **ret,
                      Error *err) {
        _cleanup_(ceph_copies_freep) CephCopies *c = calloc(1, sizeof(CephCopies));
        if (!c)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < dump->n_osds; i++) {
                const CephDumpOsd *o = &dump->osds[i];
                if (!o->exists || o->up || int_in(targets, n_targets, o->id))
                        continue;
                int *v = realloc(c->down, (c->n_down + 1) * sizeof(int));
                if (!v)
                        return error_set(err, ENOMEM, "out of memory");
                c->down = v;
                c->down[c->n_down++] = o->id;
        }
        c->n_pgs = pgs->n_pgs;
        for (size_t i = 0; i < pgs->n_pgs; i++) {
                const CephPgBrief *pg = &pgs->pgs[i];
                char *end;
                long pool_id = strtol(pg->pgid, &end, 10);
                if (end == pg->pgid || *end != '.')
                        return error_set(err, EBADMSG, "pg dump: PG id '%s' names no pool", pg->pgid);
                const CephPool *pool = pool_by_id(pools, (int) pool_id);
                if (!pool)
                        /* a pool made or deleted since the OSD map was read: ask again */
                        return error_set(err, EAGAIN, "pg dump: PG %s is of pool %ld, not in the OSD map read", pg->pgid,
                                         pool_id);
                unsigned needed = 1;
                if (pool->type == CEPH_POOL_ERASURE) {
                        const CephEcProfile *p = ceph_ec_profile_list_find(ec, pool->erasure_code_profile);
                        if (!p)
                                return error_set(err, EBADMSG,
                                                 "pool '%s' uses erasure-code profile '%s', which the OSD map does not "
                                                 "list: cannot tell how many shards its PGs need",
                                                 pool->name, strnull(pool->erasure_code_profile));
                        needed = p->k;
                }
                unsigned readable = 0;
                for (size_t k = 0; k < pg->n_acting; k++) {
                        int id = pg->acting[k];
                        if (id == CRUSH_ITEM_NONE || id < 0 || int_in(targets, n_targets, id))
                                continue;
                        const CephDumpOsd *o = ceph_osd_dump_find_osd(dump, id);
                        if (o && o->up)
                                readable++;
                }
                if (readable < pool->min_size)
                        c->n_below_min_size++;
                if (readable >= needed)
                        continue;
                CephCopiesLost *v = realloc(c->lost, (c->n_lost + 1) * sizeof(CephCopiesLost));
                if (!v)
                        return error_set(err, ENOMEM, "out of memory");
                c->lost = v;
                c->lost[c->n_lost] = (CephCopiesLost) { .readable = readable, .needed = needed };
                if (!(c->lost[c->n_lost++].pgid = strdup(pg->pgid)))
                        return error_set(err, ENOMEM, "out of memory");
        }
        *ret = TAKE_PTR(c);
        return 0;
}

char *ceph_copies_describe(const CephCopies *c, size_t max_pgs) {
        _cleanup_strv_free_ char **l = NULL;
        for (size_t i = 0; i < c->n_lost && i < max_pgs; i++)
                if (strv_consume(&l, strprintf("%s (%u of %u)", c->lost[i].pgid, c->lost[i].readable,
                                               c->lost[i].needed)) < 0)
                        return NULL;
        if (c->n_lost > max_pgs && strv_consume(&l, strprintf("and %zu more", c->n_lost - max_pgs)) < 0)
                return NULL;
        _cleanup_(freep) char *pgs = l ? strv_join(l, ", ") : strdup("none");
        _cleanup_strv_free_ char **d = NULL;
        for (size_t i = 0; i < c->n_down; i++)
                if (strv_consume(&d, strprintf("osd.%d", c->down[i])) < 0)
                        return NULL;
        _cleanup_(freep) char *down = d ? strv_join(d, " ") : strdup("none");
        if (!pgs || !down)
                return NULL;
        return strprintf("%zu PG(s) would be left without a readable copy (readable copies up of those needed): %s; "
                         "OSDs down now besides these: %s",
                         c->n_lost, pgs, down);
}
