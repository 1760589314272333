/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The OSD ids a plan's create-osd steps would get, from the cluster's ids in use. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "plan-internal.h"
#include "plan.h"

static int cmp_int(const void *a, const void *b) {
        int x = *(const int *) a, y = *(const int *) b;
        return x < y ? -1 : x > y;
}

/* apply's allocator runs `ceph osd new` for the create-osd steps in plan order, and the
 * monitor gives each the lowest id that does not exist (OSDMonitor::_allocate_osd_id; a
 * destroyed OSD still exists, and `ceph osd ls` lists it): the same walk over the ids in use.
 * A guess, not a promise: anything else that allocates first shifts them. */
void plan_id_cursor_assign(PlanIdCursor *c, HostPlan *h) {
        for (size_t j = 0; j < h->n_steps; j++) {
                Step *s = &h->steps[j];
                if (s->kind != STEP_CREATE_OSD)
                        continue;
                while (c->k < c->n_in_use && c->in_use[c->k] < c->next)
                        c->k++;
                while (c->k < c->n_in_use && c->in_use[c->k] == c->next) {
                        c->next++;
                        c->k++;
                }
                s->osd_id = c->next++;
        }
}

int plan_parse_osd_ids(const char *text, int **ret, size_t *ret_n, Error *err) {
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0, cap = 0;
        const char *s = text;

        while (*s && strchr(" \t\r\n", *s))
                s++;
        bool json = *s == '[';
        if (json)
                s++;
        for (;;) {
                while (*s && strchr(json ? " \t\r\n," : " \t\r\n", *s))
                        s++;
                if (json && *s == ']') {
                        s++;
                        while (*s && strchr(" \t\r\n", *s))
                                s++;
                        if (*s)
                                return error_set(err, EINVAL, "unexpected '%c' after the list of OSD ids", *s);
                        break;
                }
                if (!*s) {
                        if (json)
                                return error_set(err, EINVAL, "the JSON list of OSD ids has no closing ']'");
                        break;
                }
                char *end;
                errno = 0;
                long v = strtol(s, &end, 10);
                if (errno || end == s || v < 0 || v > INT32_MAX || (*end && !strchr(" \t\r\n,]", *end))) {
                        int len = (int) MIN(MAX(strcspn(s, " \t\r\n,]"), (size_t) 1), (size_t) 20);
                        return error_set(err, EINVAL, "'%.*s' is not an OSD id (expected what `ceph osd ls` or `ceph osd ls -f json` prints)",
                                         len, s);
                }
                if (n == cap) {
                        cap = cap ? cap * 2 : 64;
                        int *m = realloc(ids, cap * sizeof(int));
                        if (!m)
                                return error_set(err, ENOMEM, "out of memory");
                        ids = m;
                }
                ids[n++] = (int) v;
                s = end;
        }
        if (n > 0)
                qsort(ids, n, sizeof(int), cmp_int);
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                if (k == 0 || ids[k - 1] != ids[i])
                        ids[k++] = ids[i];
        *ret = TAKE_PTR(ids);
        *ret_n = k;
        return 0;
}

