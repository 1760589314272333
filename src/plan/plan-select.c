/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which devices a profile's selector takes, and when it takes none, why: every candidate
 * with what rejected it, sizes in both the units disks are sold in and the binary ones
 * cephprov reads (a "2 TB" disk is 1.82 TiB, below a `size: 2T..` that means 2 TiB). */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "basic/size.h"
#include "basic/strv.h"
#include "plan-internal.h"

static const char *fmt_units(uint64_t bytes, double base, const char *const *units, size_t n_units, char *buf,
                             size_t len) {
        double v = (double) bytes;
        size_t u = 0;
        while (u + 1 < n_units && v >= base) {
                v /= base;
                u++;
        }
        if (v == (double) (uint64_t) v)
                snprintf(buf, len, "%llu %s", (unsigned long long) v, units[u]);
        else
                snprintf(buf, len, "%.2f %s", v, units[u]);
        return buf;
}

const char *plan_size_both(uint64_t bytes, char *buf, size_t len) {
        static const char *const si[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };
        static const char *const bin[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
        char a[32], b[32];
        fmt_units(bytes, 1000.0, si, ELEMENTSOF(si), a, sizeof a);
        fmt_units(bytes, 1024.0, bin, ELEMENTSOF(bin), b, sizeof b);
        snprintf(buf, len, "%s = %s", a, b);
        return buf;
}

/* fnmatch() with flags 0, after a cheap look at the glob's literal start (most names of an
 * allow-list differ there: by-id vs by-path, model prefixes) */
static bool glob_match(const char *glob, size_t literal, const char *s) {
        return strncmp(glob, s, literal) == 0 && fnmatch(glob, s, 0) == 0;
}

bool plan_device_allowed(const Host *h, const InvDevice *d) {
        /* The layout's allow-list is the authority when there is one; the inventory's own flag
         * serves inventories used without it (it was computed from the same list) */
        if (!h->allow || !h->allow[0])
                return d->allowed;
        STRV_FOREACH(g, h->allow) {
                size_t literal = strcspn(*g, "*?[\\");
                if (glob_match(*g, literal, d->path))
                        return true;
                STRV_FOREACH(l, d->links)
                        if (glob_match(*g, literal, *l))
                                return true;
        }
        return false;
}

static bool glob_ok(const char *glob, const char *value) {
        if (!glob)
                return true;
        return value && fnmatch(glob, value, 0) == 0;
}

const char *plan_selector_mismatch(const DeviceSelector *s, const InvDevice *d, char *buf, size_t len) {
        char a[80], b[80];
        if (!buf) {
                /* only whether: the planner's hot path (24,000 devices) formats nothing */
                bool no = (s->rotational >= 0 && (bool) s->rotational != d->rotational) ||
                          (s->size_min > 0 && d->size < s->size_min) || (s->size_max > 0 && d->size > s->size_max) ||
                          !glob_ok(s->model, d->model) || !glob_ok(s->serial, d->serial) || !glob_ok(s->vendor, d->vendor);
                return no ? "" : NULL;
        }
        if (s->rotational >= 0 && (bool) s->rotational != d->rotational)
                snprintf(buf, len, "%s", s->rotational ? "not rotational" : "rotational");
        else if (s->size_min > 0 && d->size < s->size_min)
                snprintf(buf, len, "%s, below the minimum %s", plan_size_both(d->size, a, sizeof a),
                         plan_size_both(s->size_min, b, sizeof b));
        else if (s->size_max > 0 && d->size > s->size_max)
                snprintf(buf, len, "%s, above the maximum %s", plan_size_both(d->size, a, sizeof a),
                         plan_size_both(s->size_max, b, sizeof b));
        else if (!glob_ok(s->model, d->model))
                snprintf(buf, len, "model '%s' does not match '%s'", d->model ?: "", s->model);
        else if (!glob_ok(s->serial, d->serial))
                snprintf(buf, len, "serial '%s' does not match '%s'", d->serial ?: "", s->serial);
        else if (!glob_ok(s->vendor, d->vendor))
                snprintf(buf, len, "vendor '%s' does not match '%s'", d->vendor ?: "", s->vendor);
        else
                return NULL;
        return buf;
}

bool plan_device_candidate(const InvDevice *d) {
        /* virtual devices built on top of selected ones are never candidates */
        return !startswith(d->name, "bcache") && !d->readonly;
}

/* Appends to buf (NUL-terminated, of size len), cutting with "..." when full. */
static void append(char *buf, size_t len, const char *s) {
        size_t l = strlen(buf);
        if (l + 1 >= len)
                return;
        size_t n = strlen(s);
        if (l + n + 1 > len) {
                snprintf(buf + l, len - l, "%.*s...", (int) (len - l > 4 ? len - l - 4 : 0), s);
                return;
        }
        memcpy(buf + l, s, n + 1);
}

void plan_explain_no_match(const DeviceSelector *s, const Host *h, const Inventory *inv, char *buf, size_t len) {
        /* grouped by reason, in inventory order: one line per kind of disk, not per disk */
        enum { MAX_GROUPS = 16 };
        struct {
                char reason[200];
                char devices[400];
        } groups[MAX_GROUPS];
        size_t n_groups = 0, n_not_allowed = 0, n_other = 0;
        char not_allowed[300] = "";

        buf[0] = 0;
        for (size_t i = 0; i < inv->n_devices; i++) {
                const InvDevice *d = &inv->devices[i];
                if (!plan_device_candidate(d))
                        continue;
                if (!plan_device_allowed(h, d)) {
                        if (n_not_allowed++ > 0)
                                append(not_allowed, sizeof not_allowed, ", ");
                        append(not_allowed, sizeof not_allowed, d->path);
                        continue;
                }
                char why[200];
                if (!plan_selector_mismatch(s, d, why, sizeof why))
                        continue; /* taken: only a limit or a listed device can make the selection empty */
                size_t g = 0;
                while (g < n_groups && !streq(groups[g].reason, why))
                        g++;
                if (g == n_groups) {
                        if (n_groups == MAX_GROUPS) {
                                n_other++;
                                continue;
                        }
                        snprintf(groups[g].reason, sizeof groups[g].reason, "%s", why);
                        groups[g].devices[0] = 0;
                        n_groups++;
                } else
                        append(groups[g].devices, sizeof groups[g].devices, ", ");
                append(groups[g].devices, sizeof groups[g].devices, d->path);
        }

        if (n_groups == 0)
                append(buf, len, "no candidate device in the allow-list");
        else
                append(buf, len, "rejected: ");
        for (size_t g = 0; g < n_groups; g++) {
                if (g > 0)
                        append(buf, len, "; ");
                append(buf, len, groups[g].devices);
                append(buf, len, ": ");
                append(buf, len, groups[g].reason);
        }
        if (n_other > 0) {
                char t[64];
                snprintf(t, sizeof t, "; %zu more for other reasons", n_other);
                append(buf, len, t);
        }
        if (n_not_allowed > 0) {
                char t[64];
                snprintf(t, sizeof t, " (not in the allow-list, so not candidates: ");
                append(buf, len, t);
                append(buf, len, not_allowed);
                append(buf, len, ")");
        }
}

static int cmp_dev_path(const void *a, const void *b) {
        const InvDevice *const *x = a, *const *y = b;
        /* natural order: /dev/loop9 before /dev/loop10, nvme2n1 before nvme10n1 */
        return strverscmp((*x)->path, (*y)->path);
}

int plan_select_devices(const Host *h, const Profile *prof, const Inventory *inv, const DeviceSelector *s,
                        const char *role, signed char *allowed, const InvDevice ***ret, size_t *ret_n, Error *err) {
        _cleanup_(freep) const InvDevice **l = calloc(inv->n_devices + strv_length(s->devices) + 1,
                                                     sizeof(InvDevice *));
        size_t n = 0;

        if (!l)
                return error_set(err, ENOMEM, "out of memory");
        if (s->devices) {
                STRV_FOREACH(dp, s->devices) {
                        const InvDevice *d = inventory_find_device(inv, *dp);
                        if (!d)
                                return error_set(err, ENODEV,
                                                 "host '%s': device '%s' listed in profile '%s' %s not found",
                                                 h->name, *dp, prof->name, role);
                        for (size_t i = 0; i < n; i++)
                                if (l[i] == d)
                                        return error_set(err, EINVAL,
                                                         "host '%s': device '%s' listed twice in profile '%s' %s",
                                                         h->name, d->path, prof->name, role);
                        char wbuf[256];
                        const char *why = plan_selector_mismatch(s, d, wbuf, sizeof wbuf);
                        if (why)
                                return error_set(err, EINVAL,
                                                 "host '%s': device '%s' listed in profile '%s' %s does not match its filters (%s)",
                                                 h->name, d->path, prof->name, role, why);
                        if (!plan_device_allowed(h, d))
                                return error_set(err, EPERM,
                                                 "host '%s': device '%s' selected as %s device is not in the allow-list",
                                                 h->name, d->path, role);
                        l[n++] = d;
                }
        } else {
                for (size_t i = 0; i < inv->n_devices; i++) {
                        const InvDevice *d = &inv->devices[i];
                        /* virtual devices built on top of selected ones are never candidates */
                        if (startswith(d->name, "bcache") || d->readonly)
                                continue;
                        if (plan_selector_mismatch(s, d, NULL, 0))
                                continue;
                        /* the allow-list's globs once per device, not per selector */
                        if (allowed[i] < 0)
                                allowed[i] = plan_device_allowed(h, d);
                        if (!allowed[i])
                                continue;
                        l[n++] = d;
                }
                qsort(l, n, sizeof(InvDevice *), cmp_dev_path);
        }
        if (s->limit > 0 && n > s->limit)
                n = s->limit;
        *ret = TAKE_PTR(l);
        *ret_n = n;
        return 0;
}

uint64_t plan_resolve_size(const SizeSpec *s, uint64_t device_size) {
        switch (s->kind) {
        case SIZE_BYTES:
                /* partitions are whole MiB: round a byte size up */
                return align_up(s->bytes, PLAN_ALIGN);
        case SIZE_SHARE:
                return align_down((uint64_t) ((double) device_size * s->share), PLAN_ALIGN);
        default:
                return 0;
        }
}

bool plan_partition_is_ours(const char *host, const InvPartition *p) {
        PartRole role;
        unsigned slot;
        char tag[PLAN_TAG_MAX];
        if (!plan_partition_name_parse(p->name, &role, &slot, tag))
                return false;
        char *want = tag[0] ? plan_partition_name(host, role, tag) : plan_partition_name_legacy(host, role, slot);
        bool ours = want && streq(want, p->name);
        free(want);
        return ours;
}

int plan_slot_fast(const Profile *p, size_t n_data, size_t n_fast, size_t i) {
        if (n_fast == 0)
                return -1;
        size_t per = p->data_per_fast ? p->data_per_fast : (n_data + n_fast - 1) / n_fast;
        return p->spread == SPREAD_FILL ? (int) (i / per) : (int) (i % n_fast);
}

static bool osd_data_here(const InvOsd *o, bool incomplete_too) {
        return o->id >= 0 && (incomplete_too || !o->incomplete) &&
               (!o->role || streq(o->role, "block") || streq(o->role, "data"));
}

const InvOsd *plan_find_osd(const Inventory *inv, const InvDevice *d, bool incomplete_too) {
        if (osd_data_here(&d->content.osd, incomplete_too))
                return &d->content.osd;
        for (size_t i = 0; i < d->n_partitions; i++)
                if (osd_data_here(&d->partitions[i].content.osd, incomplete_too))
                        return &d->partitions[i].content.osd;
        if (d->content.bcache.role == BCACHE_ROLE_BACKING && d->content.bcache.bcache_device) {
                const InvDevice *b = inventory_find_device(inv, d->content.bcache.bcache_device);
                if (b && osd_data_here(&b->content.osd, incomplete_too))
                        return &b->content.osd;
        }
        return NULL;
}

int plan_extents_add(Extent **used, size_t *n_used, uint64_t start, uint64_t end) {
        Extent *n = realloc(*used, sizeof(Extent) * (*n_used + 1));
        if (!n)
                return -ENOMEM;
        *used = n;
        size_t i = *n_used;
        while (i > 0 && n[i - 1].start > start) {
                n[i] = n[i - 1];
                i--;
        }
        n[i] = (Extent) { start, end };
        (*n_used)++;
        return 0;
}

uint64_t plan_extents_find_free(const Extent *used, size_t n_used, uint64_t first, uint64_t last, uint64_t size,
                                uint64_t *ret_largest, uint64_t *ret_total) {
        uint64_t cursor = first, largest = 0, total = 0, found = UINT64_MAX;
        for (size_t i = 0; i <= n_used; i++) {
                uint64_t hole_end = i < n_used ? MIN(used[i].start, last + 1) : last + 1;
                uint64_t s = align_up(cursor, PLAN_ALIGN), e = align_down(hole_end, PLAN_ALIGN);
                if (e > s) {
                        largest = MAX(largest, e - s);
                        total += e - s;
                        if (found == UINT64_MAX && size > 0 && e - s >= size)
                                found = s;
                }
                if (i < n_used)
                        cursor = MAX(cursor, used[i].end);
        }
        if (ret_largest)
                *ret_largest = largest;
        if (ret_total)
                *ret_total = total;
        return found;
}
