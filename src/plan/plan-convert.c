/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The convert planner (plan-convert.h): which OSDs differ from the layout, and the fast
 * device partitions their rebuild replaces and creates. */
#include "plan/plan-convert.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basic/size.h"
#include "basic/strv.h"
#include "plan-internal.h"

#define GPT_MAX_PARTITIONS 128u

/* A fast device as the conversion leaves it: every partition but the replaced ones. */
typedef struct ConvertFast {
        const InvDevice *dev;
        uint64_t first, last;    /* usable range, inclusive */
        Extent *used;
        size_t n_used;
        bool numbers[GPT_MAX_PARTITIONS + 1];
} ConvertFast;

typedef struct ConvertCtx {
        const Layout *layout;
        const Host *host;
        const Profile *profile;
        const Inventory *inv;
        const CephOsdTree *tree;
        const CephOsdMetadataList *meta;
        const ConvertOptions *opts;
        ConvertHost *ch;
        Error *err;
        const InvDevice **data, **fast;
        size_t n_data, n_fast;
        int *slot_osd;           /* per slot: the OSD rebuilt there, -1: none */
        ConvertFast *space;
        /* a replacement (ConvertOptions.replace_device): the device, and its place */
        const InvDevice *replace;
        int replace_slot;        /* its data slot, -1: not a data device */
        int replace_fast;        /* its index among the fast devices, -1: not one */
        char **intact;           /* "osd.N" of each OSD that depends on it and is intact */
        int gone_osd;            /* the OSD whose data device is gone, taken for the device replaced; -1: none */
        int on_replaced;         /* the OSD being planned, when its data device is the device replaced; -1: not */
        bool meta_current;       /* the OSD being planned is up: its metadata's /dev/dm-N names are today's */
} ConvertCtx;

static int oom(ConvertCtx *c) {
        return error_set(c->err, ENOMEM, "out of memory");
}

const char *convert_action_to_string(ConvertAction a) {
        switch (a) {
        case CONVERT_REBUILD: return "rebuild";
        case CONVERT_NEEDS_RESHAPE: return "needs-reshape";
        default: return NULL;
        }
}

/* ---- freeing ---- */

static void part_done(ConvertPart *p) {
        free(p->device);
        free(p->partname);
        free(p->node);
        free(p->planned_device);
}

static void shape_done(ConvertShape *s) {
        free(s->objectstore);
        free(s->journal);
        free(s->db_device);
        free(s->wal_device);
        free(s->fast_device);
}

static void host_done(ConvertHost *h) {
        free(h->host);
        for (size_t i = 0; i < h->n_osds; i++) {
                shape_done(&h->osds[i].now);
                shape_done(&h->osds[i].wanted);
                free(h->osds[i].data_device);
                free(h->osds[i].planned_device);
                free(h->osds[i].from);
                free(h->osds[i].to);
                strv_free(h->osds[i].reasons);
        }
        free(h->osds);
        for (size_t i = 0; i < h->n_replaced; i++)
                part_done(&h->replaced[i]);
        free(h->replaced);
        for (size_t i = 0; i < h->n_created; i++)
                part_done(&h->created[i]);
        free(h->created);
        strv_free(h->kept);
        for (size_t i = 0; i < h->n_kept_parts; i++) {
                free(h->kept_parts[i].device);
                free(h->kept_parts[i].partname);
        }
        free(h->kept_parts);
        strv_free(h->notes);
}

ConvertPlan *convert_plan_free(ConvertPlan *p) {
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_hosts; i++)
                host_done(&p->hosts[i]);
        free(p->hosts);
        strv_free(p->missing_hosts);
        free(p->replace_host);
        free(p->replace_device);
        free(p);
        return NULL;
}

const ConvertHost *convert_plan_host(const ConvertPlan *p, const char *host) {
        for (size_t i = 0; p && host && i < p->n_hosts; i++)
                if (streq(p->hosts[i].host, host))
                        return &p->hosts[i];
        return NULL;
}

size_t convert_plan_count(const ConvertPlan *p, bool rebuilt) {
        size_t n = 0;
        for (size_t i = 0; p && i < p->n_hosts; i++)
                for (size_t k = 0; k < p->hosts[i].n_osds; k++)
                        n += p->hosts[i].osds[k].rebuilt == rebuilt;
        return n;
}

const ConvertPart *convert_host_created(const ConvertHost *h, int id, PartRole role) {
        for (size_t i = 0; h && i < h->n_created; i++)
                if (h->created[i].osd == id && h->created[i].role == role)
                        return &h->created[i];
        return NULL;
}

int convert_plan_check_built(const ConvertPlan *p, char * const *hosts, Error *err) {
        /* every rebuild of a plan is built today: onto bcache (make-bcache, attach, tune before
         * the OSD's creation) and from it (bcache-teardown in wipe-replaced); an OSD whose
         * cache set is on a device the layout does not select as fast device is torn down
         * all the same (its set unregistered, its superblock wiped), its partition left */
        for (size_t i = 0; p && i < p->n_hosts; i++) {
                const ConvertHost *h = &p->hosts[i];
                if (hosts && !strv_contains(hosts, h->host))
                        continue;
                for (size_t k = 0; k < h->n_osds; k++) {
                        const ConvertOsd *o = &h->osds[k];
                        if (o->rebuilt && o->wanted.bcache && !convert_host_created(h, o->id, PART_ROLE_CACHE))
                                return error_set(err, ENOTSUP, "host '%s': osd.%d on %s would be rebuilt onto bcache "
                                                               "with no cache partition planned: nothing changed",
                                                 h->host, o->id, o->data_device);
                }
        }
        return 0;
}

/* ---- what the inventory shows ---- */

/* The partition whose node (or a link of it, or its PARTUUID link) is `path`, and its device. */
static const InvPartition *find_partition(const Inventory *inv, const char *path, const InvDevice **ret_dev) {
        /* (an encrypted OSD's DB or WAL is its LUKS mapping over the partition, /dev/dm-N in
         * its metadata: the partition is the one the mapping holds) */
        for (size_t i = 0; path && i < inv->n_devices; i++) {
                const InvDevice *d = &inv->devices[i];
                for (size_t k = 0; k < d->n_partitions; k++) {
                        const InvPartition *p = &d->partitions[k];
                        if (inventory_partition_is(p, path)) {
                                *ret_dev = d;
                                return p;
                        }
                }
        }
        return NULL;
}

/* The partition a path of the metadata of the OSD being planned names (find_partition()). A
 * down OSD's metadata is from its last boot: a /dev/dm-N in it may name another mapping since
 * the host's next boot (seen on the UML guest: the failed disk's OSD's /dev/dm-N was another
 * OSD's LUKS mapping over its DB partition after the boot without the disk), so for a down
 * OSD such a path names no partition (meta_path_stale(), the rule for its data path too). */
static bool meta_path_stale(const ConvertCtx *c, const char *path) {
        return !c->meta_current && path && startswith(path, "/dev/dm-");
}

static const InvPartition *meta_partition(const ConvertCtx *c, const char *path, const InvDevice **ret_dev) {
        if (meta_path_stale(c, path))
                return NULL;
        return find_partition(c->inv, path, ret_dev);
}

/* The whole device behind a data path of the metadata: the device itself, the device of a
 * partition, or the backing device of a bcache device. *ret_bcache says it was a bcache. */
static const InvDevice *find_data_device(const Inventory *inv, const char *path, bool *ret_bcache) {
        *ret_bcache = false;
        if (!path)
                return NULL;
        const InvDevice *d = inventory_find_device(inv, path), *pd = NULL;
        for (size_t i = 0; d && startswith(d->name, "bcache") && i < inv->n_devices; i++)
                if (streq_ptr(inv->devices[i].content.bcache.bcache_device, d->path)) {
                        *ret_bcache = true;
                        return &inv->devices[i];
                }
        if (d)
                return d;
        if (find_partition(inv, path, &pd))
                return pd;
        /* a bcache device the inventory lists only as its backing device's */
        for (size_t i = 0; startswith(path, "/dev/bcache") && i < inv->n_devices; i++)
                if (streq_ptr(inv->devices[i].content.bcache.bcache_device, path)) {
                        *ret_bcache = true;
                        return &inv->devices[i];
                }
        return NULL;
}

static bool keep_listed(const Profile *p, unsigned number) {
        for (size_t i = 0; i < p->n_keep_partitions; i++)
                if (p->keep_partitions[i] == number)
                        return true;
        return false;
}

static int fast_index(const ConvertCtx *c, const InvDevice *d) {
        for (size_t j = 0; j < c->n_fast; j++)
                if (c->fast[j] == d)
                        return (int) j;
        return -1;
}

static int slot_of(const ConvertCtx *c, const InvDevice *d) {
        for (size_t i = 0; i < c->n_data; i++)
                if (c->data[i] == d)
                        return (int) i;
        return -1;
}

static int note(ConvertCtx *c, char *s) {
        return strv_consume(&c->ch->notes, s) < 0 ? oom(c) : 0;
}

/* ---- the OSDs ---- */

/* The cephprov partition of `role` left by the OSD whose data device was replaced
 * (c->on_replaced), when its metadata names a device-mapper node no partition holds: an
 * encrypted OSD's DB or WAL is its LUKS mapping (/dev/dm-N), which the boot without its disk
 * did not open, so the partition under it is found by its name instead. cephprov's partition names carry the tag
 * of the data device they were made for (cp:ROLE:@TAG:HOST, plan_device_tag()): the one on
 * a fast device whose tag is no device's of this host, held by nothing, not mounted. Only
 * when exactly one tag is orphaned so: two (a disk gone earlier, left uncleaned) and which is
 * this OSD's is not known; a note says so and nothing is replaced there. An encrypted OSD's
 * partition must carry LUKS. NULL: none; *ret_r then < 0 (an error), 1 (a note says why) or 0. */
static const InvPartition *orphan_partition(ConvertCtx *c, int id, PartRole role, const char *path,
                                            const InvDevice **ret_dev, int *ret_r) {
        const InvPartition *found = NULL;
        const InvDevice *found_dev = NULL;
        char found_tag[PLAN_TAG_MAX] = "";
        unsigned n_tags = 0;
        *ret_r = 0;
        for (size_t j = 0; j < c->n_fast; j++) {
                const InvDevice *f = c->fast[j];
                for (size_t k = 0; k < f->n_partitions; k++) {
                        const InvPartition *pt = &f->partitions[k];
                        char tag[PLAN_TAG_MAX] = "";
                        PartRole r;
                        if (!pt->name || !plan_partition_name_parse(pt->name, &r, NULL, tag) || r != role || tag[0] != '@')
                                continue;
                        _cleanup_(freep) char *mine = plan_partition_name(c->host->name, role, tag);
                        if (!mine) {
                                *ret_r = oom(c);
                                return NULL;
                        }
                        if (!streq(mine, pt->name) || strv_length(pt->content.holders) > 0 || pt->content.mountpoint)
                                continue;
                        bool present = false;
                        for (size_t i = 0; i < c->inv->n_devices && !present; i++) {
                                char t[PLAN_TAG_MAX];
                                plan_device_tag(&c->inv->devices[i], t);
                                present = streq(t, tag);
                        }
                        if (present || streq(tag, found_tag))
                                continue;
                        n_tags++;
                        found = pt;
                        found_dev = f;
                        memcpy(found_tag, tag, PLAN_TAG_MAX);
                }
        }
        if (n_tags > 1) {
                *ret_r = note(c, strprintf("osd.%d's %s %s (from its metadata) is held by no partition, and the %s "
                                           "partitions of %u data devices gone from the host are left: which one is "
                                           "osd.%d's is not known, none replaced (delete the others by hand)",
                                           id, part_role_title(role), path, part_role_title(role), n_tags, id)) ?: 1;
                return NULL;
        }
        if (found && !streq_ptr(found->content.fstype, "crypto_LUKS") && startswith(path, "/dev/dm-")) {
                *ret_r = note(c, strprintf("osd.%d's %s %s (from its metadata) is held by no partition, and %s "
                                           "partition %u '%s' of the gone data device carries no LUKS: not taken as "
                                           "its", id, part_role_title(role), path, found_dev->path, found->number,
                                           found->name)) ?: 1;
                return NULL;
        }
        *ret_dev = found_dev;
        return found;
}

/* An old partition of osd `id` the cluster names (journal, DB, WAL): to replace if the
 * OSD is rebuilt. Returns 1 when found on a fast device of the layout, 0 when not (a note
 * says why: note() returns 0), < 0 on error. */
static int old_partition(ConvertCtx *c, int id, PartRole role, const char *path, ConvertPart *ret) {
        const InvDevice *d = NULL;
        const InvPartition *p = meta_partition(c, path, &d);
        char buf[SIZE_FORMAT_MAX];
        bool orphan = false;
        if (!p && c->on_replaced == id && startswith(path, "/dev/dm-")) {
                int r;
                p = orphan_partition(c, id, role, path, &d, &r);
                if (r != 0)
                        return r < 0 ? r : 0; /* an error, or a note said why none is taken */
                orphan = p != NULL;
        }
        if (!p)
                return note(c, strprintf("osd.%d's %s %s (from its metadata) is no partition of this host's inventory: "
                                         "nothing to replace there", id, part_role_title(role), path));
        if (p->content.osd.id >= 0 && p->content.osd.id != id)
                return error_set(c->err, EEXIST,
                                 "host '%s': the cluster says %s is osd.%d's %s, but its label is osd.%d's: device names "
                                 "changed since osd.%d booted? refusing to plan (restart osd.%d so that its metadata is current)",
                                 c->host->name, path, id, part_role_title(role), p->content.osd.id, id, id);
        if (fast_index(c, d) < 0)
                return note(c, strprintf("osd.%d's %s %s (%s) is on %s, which profile '%s' does not select as fast "
                                         "device: left as it is (delete it by hand after the conversion)", id,
                                         part_role_title(role), path, size_format(p->size, buf, sizeof buf), d->path,
                                         c->profile->name));
        *ret = (ConvertPart) {
                .device = strdup(d->path), .partnum = p->number, .partname = p->name ? strdup(p->name) : NULL,
                .node = strdup(orphan && p->node ? p->node : path), .offset = p->start, .size = p->size,
                .role = role, .osd = id, .kept_listed = keep_listed(c->profile, p->number),
        };
        if (!ret->device || !ret->node || (p->name && !ret->partname)) {
                part_done(ret);
                return oom(c);
        }
        if (orphan && note(c, strprintf("osd.%d's %s %s (from its metadata: its LUKS mapping, not opened at the boot "
                                        "without its disk) is taken to be %s partition %u '%s': the only cephprov %s "
                                        "partition left of a data device gone from the host", id, part_role_title(role),
                                        path, d->path, p->number, p->name, part_role_title(role))) < 0) {
                part_done(ret);
                return -ENOMEM;
        }
        return 1;
}

static int add_part(ConvertPart **l, size_t *n, ConvertPart *p) {
        ConvertPart *x = realloc(*l, sizeof(ConvertPart) * (*n + 1));
        if (!x) {
                part_done(p);
                return -ENOMEM;
        }
        *l = x;
        x[(*n)++] = *p;
        *p = (ConvertPart) {};
        return 0;
}

/* The whole device of a partition path of the metadata, NULL: not in the inventory. */
static const InvDevice *partition_device(const ConvertCtx *c, const char *path) {
        const InvDevice *d = NULL;
        if (!path)
                return NULL;
        if (meta_partition(c, path, &d))
                return d;
        return inventory_find_device(c->inv, path);
}

/* What differs between a BlueStore OSD and the layout for its slot: one line each. */
static int bluestore_reasons(ConvertCtx *c, const CephOsdMetadata *m, size_t slot, bool on_bcache, char ***reasons) {
        const Profile *p = c->profile;
        int j = plan_slot_fast(p, c->n_data, c->n_fast, slot);
        const InvDevice *f = j >= 0 ? c->fast[j] : NULL;
        char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX];
        static const PartRole roles[] = { PART_ROLE_DB, PART_ROLE_WAL };

        for (size_t k = 0; k < ELEMENTSOF(roles); k++) {
                PartRole role = roles[k];
                const SizeSpec *spec = role == PART_ROLE_DB ? &p->db_size : &p->wal_size;
                bool want = spec->kind != SIZE_UNSET && f;
                bool have = role == PART_ROLE_DB ? m->dedicated_db : m->dedicated_wal;
                const char *path = role == PART_ROLE_DB ? m->db_path : m->wal_path;
                uint64_t size = role == PART_ROLE_DB ? m->db_size : m->wal_size;
                /* an encrypted OSD's DB/WAL is its LUKS mapping: BlueFS sees the partition less
                 * the LUKS header, and the partition is what the layout sized */
                const InvDevice *pd = NULL;
                const InvPartition *pp = path && startswith(path, "/dev/dm-") ? meta_partition(c, path, &pd) : NULL;
                if (pp)
                        size = pp->size;
                const char *key = role == PART_ROLE_DB ? "db_size" : "wal_size";
                uint64_t wanted = want ? plan_resolve_size(spec, f->size) : 0;
                char *why;
                if (want && !have)
                        why = strprintf("%s %s, the layout wants a %s %s on %s", part_role_title(role),
                                        role == PART_ROLE_DB ? "on the data device" : "with the DB",
                                        size_format(wanted, a, sizeof a), part_role_title(role), f->path);
                else if (!want && have)
                        why = strprintf("%s on %s, the layout has no %s", part_role_title(role), path ?: "a device", key);
                else if (want && partition_device(c, path) != f)
                        why = strprintf("%s on %s, the layout puts it on %s", part_role_title(role),
                                        path ?: "an unknown device", f->path);
                else if (want && size != wanted)
                        why = strprintf("%s of %s, the layout's %s is %s", part_role_title(role),
                                        size ? size_format(size, a, sizeof a) : "unknown size", key,
                                        size_format(wanted, b, sizeof b));
                else
                        continue; /* as the layout wants it */
                if (strv_consume(reasons, why) < 0)
                        return oom(c);
        }
        if (p->bcache.enabled && !on_bcache && f) {
                if (strv_consume(reasons, strprintf("not on bcache, the layout wants a %s bcache cache on %s",
                                                    size_format(plan_resolve_size(&p->bcache.cache_size, f->size), a,
                                                                sizeof a), f->path)) < 0)
                        return oom(c);
        } else if (!p->bcache.enabled && on_bcache) {
                if (strv_consume(reasons, strdup("on bcache, the layout has no bcache")) < 0)
                        return oom(c);
        }
        return 0;
}

/* The layout's shape for a slot, for people. */
static char *shape_wanted(const ConvertCtx *c, size_t slot) {
        const Profile *p = c->profile;
        int j = plan_slot_fast(p, c->n_data, c->n_fast, slot);
        const InvDevice *f = j >= 0 ? c->fast[j] : NULL;
        char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX], d[SIZE_FORMAT_MAX];
        bool db = f && p->db_size.kind != SIZE_UNSET, wal = f && p->wal_size.kind != SIZE_UNSET;
        bool cache = f && p->bcache.enabled;
        return strprintf("%s%s%s%s%s%s%s%s%s%s", objectstore_to_string(p->osd.objectstore),
                         cache ? " on bcache (cache " : "", cache ? size_format(plan_resolve_size(&p->bcache.cache_size, f->size), d, sizeof d) : "",
                         cache ? ")" : "",
                         db ? ", DB " : "", db ? size_format(plan_resolve_size(&p->db_size, f->size), a, sizeof a) : "",
                         wal ? ", WAL " : "", wal ? size_format(plan_resolve_size(&p->wal_size, f->size), b, sizeof b) : "",
                         f && (db || wal || cache) ? " on " : "", f && (db || wal || cache) ? f->path : "");
}

/* The same two shapes as fields (ConvertShape). false: out of memory. */
static bool shape_wanted_fields(const ConvertCtx *c, size_t slot, ConvertShape *ret) {
        const Profile *p = c->profile;
        int j = plan_slot_fast(p, c->n_data, c->n_fast, slot);
        const InvDevice *f = j >= 0 ? c->fast[j] : NULL;
        bool db = f && p->db_size.kind != SIZE_UNSET, wal = f && p->wal_size.kind != SIZE_UNSET;
        bool cache = f && p->bcache.enabled;
        *ret = (ConvertShape) {
                .objectstore = strdup(objectstore_to_string(p->osd.objectstore)), .bcache = cache,
                .cache_size = cache ? plan_resolve_size(&p->bcache.cache_size, f->size) : 0,
                .db_size = db ? plan_resolve_size(&p->db_size, f->size) : 0,
                .wal_size = wal ? plan_resolve_size(&p->wal_size, f->size) : 0,
                .fast_device = f && (db || wal || cache) ? strdup(f->path) : NULL,
        };
        return ret->objectstore && (!(f && (db || wal || cache)) || ret->fast_device);
}

static bool shape_now_fields(const CephOsdMetadata *m, bool on_bcache, ConvertShape *ret) {
        bool fs = streq(m->objectstore, "filestore");
        const char *journal = fs ? (m->journal_partition ?: m->journal_link) : NULL;
        *ret = (ConvertShape) {
                .objectstore = strdup(m->objectstore), .bcache = on_bcache,
                .journal = journal ? strdup(journal) : NULL,
                .db_size = !fs && m->dedicated_db ? m->db_size : 0,
                .wal_size = !fs && m->dedicated_wal ? m->wal_size : 0,
                .db_device = !fs && m->dedicated_db && m->db_path ? strdup(m->db_path) : NULL,
                .wal_device = !fs && m->dedicated_wal && m->wal_path ? strdup(m->wal_path) : NULL,
        };
        return ret->objectstore && (!journal || ret->journal);
}

static char *shape_now(const CephOsdMetadata *m, bool on_bcache) {
        char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX];
        if (streq(m->objectstore, "filestore"))
                return strprintf("filestore, journal %s", m->journal_partition ?: m->journal_link ?: "unknown");
        return strprintf("%s%s%s%s%s%s%s%s", m->objectstore, on_bcache ? " on bcache" : "",
                         m->dedicated_db ? ", DB " : "", m->dedicated_db ? size_format(m->db_size, a, sizeof a) : "",
                         m->dedicated_db ? " on " : "", m->dedicated_db ? (m->db_path ?: "?") : "",
                         m->dedicated_wal ? ", WAL " : "",
                         m->dedicated_wal ? size_format(m->wal_size, b, sizeof b) : "");
}

/* ---- a replacement ---- */

/* Nothing was replaced for this OSD: it is up and its data device carries its label; for a
 * fast device replaced, each DB/WAL partition its metadata names there is still there with
 * its label too. A failed or swapped device shows as a down OSD, a missing label or a
 * partition that is not there; an intact OSD in another shape than the layout's is
 * `convert --reshape`'s, not replace's. */
static bool replace_intact(ConvertCtx *c, const CephOsdMetadata *m, const InvDevice *d) {
        const CephTreeOsd *t = ceph_osd_tree_find_osd(c->tree, m->id);
        const InvOsd *label = plan_find_osd(c->inv, d, false);
        if (!t || t->status != CEPH_OSD_TREE_UP || !label || label->id != m->id)
                return false;
        const char *paths[] = { m->dedicated_db ? m->db_path : NULL, m->dedicated_wal ? m->wal_path : NULL };
        for (size_t k = 0; c->replace != d && k < ELEMENTSOF(paths); k++) {
                const InvDevice *pd = NULL;
                const InvPartition *pt = paths[k] ? find_partition(c->inv, paths[k], &pd) : NULL;
                /* BlueStore writes whoami on the main label only: a DB/WAL label is this OSD's
                 * by its osd uuid (the data device's label's) */
                bool its = pt && (pt->content.osd.id == m->id ||
                                  (pt->content.osd.osd_fsid && label->osd_fsid &&
                                   strcasecmp(pt->content.osd.osd_fsid, label->osd_fsid) == 0));
                if (paths[k] && (!pt ? partition_device(c, paths[k]) == c->replace || !partition_device(c, paths[k])
                                     : pd == c->replace && !its))
                        return false;
        }
        return true;
}

/* Why the OSD on data device d (slot) depends on the device replaced, one line; no line when
 * it does not, or when it is replaced already (replace_done(): counted unchanged, a note says
 * so). Its data device's own state is checked here too: blank, or its own label. */
static int replace_reasons(ConvertCtx *c, const CephOsdMetadata *m, const InvDevice *d, size_t slot, char ***reasons) {
        const InvDevice *x = c->replace;
        char *why = NULL;
        bool depends = (c->replace_slot >= 0 && (size_t) c->replace_slot == slot) ||
                       (c->replace_fast >= 0 &&
                        (plan_slot_fast(c->profile, c->n_data, c->n_fast, slot) == c->replace_fast ||
                         (strv_contains(m->devices, x->name) && x != d)));
        if (depends && replace_intact(c, m, d)) {
                c->ch->n_unchanged++;
                if (strv_consume(&c->intact, strprintf("osd.%d", m->id)) < 0)
                        return oom(c);
                return note(c, strprintf("osd.%d depends on %s and is up, on %s with its label%s: nothing was "
                                         "replaced there", m->id, x->path, d->path,
                                         x == d ? "" : ", its partitions there with theirs"));
        }
        if (c->replace_slot >= 0 && (size_t) c->replace_slot == slot) {
                const InvOsd *label = plan_find_osd(c->inv, d, true);
                bool blank = !d->content.fstype && !d->pttype && d->n_partitions == 0;
                if (!blank && !(label && label->id == m->id) && !c->profile->wipe)
                        return error_set(c->err, EEXIST,
                                         "host '%s': '%s', the data device of osd.%d to replace, is not blank: it "
                                         "carries %s (a new disk is blank; the layout's wipe: true lets replace wipe it)",
                                         c->host->name, d->path, m->id,
                                         d->content.fstype ? d->content.fstype : d->pttype ? d->pttype : "partitions");
                why = strprintf("its data device %s is the device replaced (%s)", d->path,
                                blank ? "blank now" : label && label->id == m->id ? "it still carries this OSD's label: wiped" :
                                                                                     "not blank: wiped (wipe: true)");
        } else if (c->replace_fast >= 0) {
                bool by_slot = plan_slot_fast(c->profile, c->n_data, c->n_fast, slot) == c->replace_fast;
                bool by_meta = strv_contains(m->devices, x->name) && x != d;
                if (!by_slot && !by_meta)
                        return 0;
                why = strprintf("its %s on %s, the device replaced (%s)",
                                m->dedicated_db ? (m->dedicated_wal ? "DB and WAL" : "DB") : m->dedicated_wal ? "WAL" :
                                                                                                "DB per the layout",
                                x->path, by_slot ? "the layout puts its slot there" : "its metadata lists it");
        } else
                return 0;
        return strv_consume(reasons, why) < 0 ? oom(c) : 0;
}

/* The device a replacement names, found among the host's data and fast devices, and what
 * the plan must refuse before looking at any OSD. */
static int replace_find(ConvertCtx *c) {
        const Profile *p = c->profile;
        const char *hn = c->host->name, *dev = c->opts->replace_device;
        c->replace_slot = c->replace_fast = -1;
        const InvDevice *x = c->replace = inventory_find_device(c->inv, dev);
        if (!x)
                return error_set(c->err, ENOENT, "host '%s': device '%s' is not in its inventory (no such device on "
                                                 "the host, or not allowed there)", hn, dev);
        for (size_t i = 0; i < c->n_data; i++)
                if (c->data[i] == x)
                        c->replace_slot = (int) i;
        for (size_t j = 0; j < c->n_fast; j++)
                if (c->fast[j] == x)
                        c->replace_fast = (int) j;
        if (c->replace_slot < 0 && c->replace_fast < 0) {
                _cleanup_(freep) char *data = NULL, *fast = NULL;
                _cleanup_strv_free_ char **dl = NULL, **fl = NULL;
                for (size_t i = 0; i < c->n_data; i++)
                        if (strv_extend(&dl, c->data[i]->path) < 0)
                                return oom(c);
                for (size_t j = 0; j < c->n_fast; j++)
                        if (strv_extend(&fl, c->fast[j]->path) < 0)
                                return oom(c);
                data = dl ? strv_join(dl, ", ") : strdup("none");
                fast = fl ? strv_join(fl, ", ") : strdup("none");
                return error_set(c->err, EINVAL, "host '%s': device '%s' is neither a data device nor a fast device of "
                                                 "profile '%s' there (data: %s; fast: %s)", hn, dev, p->name,
                                 data ?: "?", fast ?: "?");
        }
        if (c->replace_fast >= 0 && !x->pttype && x->content.fstype)
                return error_set(c->err, EEXIST, "host '%s': '%s', the fast device to replace, carries %s and no "
                                                 "partition table: a new disk is blank (wipe it first if it is the new "
                                                 "one)", hn, x->path, x->content.fstype);
        if (c->replace_fast >= 0 && p->n_keep_partitions > 0) {
                _cleanup_strv_free_ char **missing = NULL;
                for (size_t k = 0; k < p->n_keep_partitions; k++) {
                        bool have = false;
                        for (size_t i = 0; i < x->n_partitions; i++)
                                have = have || x->partitions[i].number == p->keep_partitions[k];
                        if (!have && strv_consume(&missing, strprintf("%u", p->keep_partitions[k])) < 0)
                                return oom(c);
                }
                if (missing) {
                        _cleanup_(freep) char *list = strv_join(missing, ", ");
                        return error_set(c->err, ENOENT,
                                         "host '%s': '%s' has no partition %s, which profile '%s' keeps "
                                         "(keep_partitions) on its fast devices: on a new disk they do not exist, and "
                                         "replace does not make them (they are not cephprov's): make them first as "
                                         "they were, then replace places the DB partitions after them; or take them out "
                                         "of keep_partitions", hn, x->path, list ?: "?", p->name);
                }
        }
        return 0;
}

/* The bcache cache partition of an OSD on bcache that is rebuilt: replaced with its DB and
 * WAL (its cache set unregistered and its superblock wiped first, by wipe-replaced). It is
 * the cache device of the set the backing device `d` is attached to; with the backing device
 * gone (a failed disk, a blank one in its place), the cache partition named for the same
 * data device as the OSD's old DB or WAL partition (cp:cache:TAG:HOST beside cp:db:TAG:HOST)
 * that carries a cache superblock. Not found: a note says so. */
static int old_cache_partition(ConvertCtx *c, int id, const InvDevice *d) {
        const char *set = d->content.bcache.role == BCACHE_ROLE_BACKING ? d->content.bcache.set_uuid : NULL;
        const InvPartition *cp = NULL;
        for (size_t i = 0; set && i < c->inv->n_devices && !cp; i++)
                for (size_t k = 0; k < c->inv->devices[i].n_partitions && !cp; k++) {
                        const InvPartition *pt = &c->inv->devices[i].partitions[k];
                        if (pt->content.bcache.role == BCACHE_ROLE_CACHE && streq_ptr(pt->content.bcache.set_uuid, set))
                                cp = pt;
                }
        for (size_t i = 0; !cp && i < c->ch->n_replaced; i++) {
                const ConvertPart *old = &c->ch->replaced[i];
                char tag[PLAN_TAG_MAX];
                PartRole role;
                if (old->osd != id || !old->partname || !plan_partition_name_parse(old->partname, &role, NULL, tag))
                        continue;
                _cleanup_(freep) char *name = plan_partition_name(c->host->name, PART_ROLE_CACHE, tag);
                if (!name)
                        return oom(c);
                const InvDevice *od = inventory_find_device(c->inv, old->device);
                for (size_t k = 0; od && k < od->n_partitions && !cp; k++)
                        if (streq_ptr(od->partitions[k].name, name) &&
                            od->partitions[k].content.bcache.role == BCACHE_ROLE_CACHE)
                                cp = &od->partitions[k];
        }
        if (!cp || !cp->node)
                return note(c, strprintf("osd.%d is on bcache, but no cache partition of its cache set %s is on the "
                                         "host's fast devices: none to replace", id, set ?: "(its backing device gone)"));
        for (size_t i = 0; i < c->ch->n_replaced; i++)
                if (streq_ptr(c->ch->replaced[i].node, cp->node))
                        return error_set(c->err, EEXIST, "host '%s': %s is the bcache cache of osd.%d and the %s of "
                                                         "osd.%d: refusing to plan", c->host->name, cp->node, id,
                                         part_role_title(c->ch->replaced[i].role), c->ch->replaced[i].osd);
        ConvertPart part = {};
        int r = old_partition(c, id, PART_ROLE_CACHE, cp->node, &part);
        if (r <= 0)
                return r;
        if (add_part(&c->ch->replaced, &c->ch->n_replaced, &part) < 0)
                return oom(c);
        return 0;
}

static int plan_osd(ConvertCtx *c, int id) {
        const Profile *p = c->profile;
        const CephTreeOsd *t = ceph_osd_tree_find_osd(c->tree, id);
        /* a replacement plans a destroyed OSD all the same: its metadata says where it was
         * (destroyed by hand, or by a replacement whose saved plan is gone) */
        if (t && t->status == CEPH_OSD_TREE_DESTROYED && !c->replace)
                /* its metadata is the old OSD's, its disks may be wiped already */
                return note(c, strprintf("osd.%d is destroyed (its id kept for a new OSD): a conversion or a "
                                         "replacement under way; not planned again here", id));
        const CephOsdMetadata *m = ceph_osd_metadata_find(c->meta, id);
        if (!m || !m->objectstore)
                return note(c, strprintf("osd.%d has no metadata (it never booted?): not compared with the layout", id));

        bool on_bcache = false;
        const char *path = m->bdev_path ?: m->filestore_path;
        c->meta_current = t && t->status == CEPH_OSD_TREE_UP;
        /* (a down OSD's /dev/dm-N data path may be another device-mapper device since a boot:
         * what lies under it, bluestore_bdev_devices, is looked at instead, below) */
        const InvDevice *d = meta_path_stale(c, path) ? NULL : find_data_device(c->inv, path, &on_bcache);
        _cleanup_(freep) char *raw = NULL;
        if ((!d || slot_of(c, d) < 0) && path && (startswith(path, "/dev/dm-") || startswith(path, "/dev/mapper/")) &&
            strv_length(m->bdev_devices) == 1) {
                /* an OSD of `ceph-volume lvm create`: its data path is its logical volume
                 * (/dev/dm-N); bluestore_bdev_devices is what lies under it (Ceph follows
                 * the slaves): the disk, or the bcache device of the backing disk */
                if (!(raw = strprintf("/dev/%s", m->bdev_devices[0])))
                        return oom(c);
                bool b;
                const InvDevice *under = find_data_device(c->inv, raw, &b);
                if (under || !d) {
                        d = under;
                        on_bcache = b;
                }
                /* a bcacheN name is the order of registration at boot: another OSD's (up, its
                 * label there) now, when the disk under this down OSD's LV is gone */
                const InvOsd *other = d ? plan_find_osd(c->inv, d, false) : NULL;
                const CephTreeOsd *ot = other && other->id != id ? ceph_osd_tree_find_osd(c->tree, other->id) : NULL;
                if (ot && ot->status == CEPH_OSD_TREE_UP && (!t || t->status != CEPH_OSD_TREE_UP))
                        d = NULL;
        }
        if (!d && c->replace && c->replace_slot >= 0 && (!t || t->status != CEPH_OSD_TREE_UP) &&
            !plan_find_osd(c->inv, c->replace, true)) {
                /* its data device is gone from the host (a failed disk pulled, a new one in
                 * under another name or serial): the OSD the device replaced takes the place
                 * of, when it is the only one of the bucket down with its device gone */
                if (c->gone_osd >= 0)
                        return error_set(c->err, EEXIST,
                                         "host '%s': osd.%d and osd.%d are both down with their data devices gone: which "
                                         "one '%s' replaces is not known: refusing (purge the one gone for good first)",
                                         c->host->name, c->gone_osd, id, c->replace->path);
                c->gone_osd = id;
                d = c->replace;
                on_bcache = raw && startswith(m->bdev_devices[0], "bcache");
                int r = note(c, strprintf("osd.%d is down and its data device %s (from its metadata) is gone from the "
                                          "host: %s takes its place", id, raw ?: path ?: "(none reported)", d->path));
                if (r < 0)
                        return r;
        }
        if (!d)
                return note(c, strprintf("osd.%d: its data device %s (from its metadata) is not in the inventory of "
                                         "host '%s': not compared with the layout", id, raw ?: path ?: "(none reported)",
                                         c->host->name));
        const InvOsd *label = plan_find_osd(c->inv, d, false);
        if (label && label->id != id)
                return error_set(c->err, EEXIST,
                                 "host '%s': the cluster says osd.%d is on %s, but %s carries osd.%d: device names changed "
                                 "since osd.%d booted? refusing to plan (restart osd.%d so that its metadata is current)",
                                 c->host->name, id, path, d->path, label->id, id, id);
        if (!on_bcache && d->content.bcache.role == BCACHE_ROLE_BACKING)
                on_bcache = true;
        int slot = slot_of(c, d);
        if (slot < 0)
                return note(c, strprintf("osd.%d on %s: not a data device of profile '%s': left as it is", id, d->path,
                                         p->name));

        _cleanup_strv_free_ char **reasons = NULL;
        ConvertAction action = CONVERT_REBUILD;
        const char *want = objectstore_to_string(p->osd.objectstore);
        if (c->replace) {
                int r = replace_reasons(c, m, d, (size_t) slot, &reasons);
                if (r < 0)
                        return r;
                if (!reasons)
                        return 0; /* does not depend on the device replaced: not in this plan */
        } else if (!streq(m->objectstore, want)) {
                if (p->osd.objectstore == OBJECTSTORE_FILESTORE)
                        return note(c, strprintf("osd.%d on %s is %s, the layout wants filestore: convert never makes "
                                                 "FileStore OSDs", id, d->path, m->objectstore));
                if (strv_consume(&reasons, strprintf("%s, the layout wants %s", m->objectstore, want)) < 0)
                        return oom(c);
        } else if (streq(m->objectstore, "bluestore")) {
                int r = bluestore_reasons(c, m, (size_t) slot, on_bcache, &reasons);
                if (r < 0)
                        return r;
                action = CONVERT_NEEDS_RESHAPE;
        }
        if (!reasons) {
                c->ch->n_unchanged++;
                return 0;
        }
        bool rebuilt = action == CONVERT_REBUILD || c->opts->reshape;
        c->on_replaced = c->replace && d == c->replace ? id : -1;

        /* the partitions the cluster names as this OSD's: replaced when it is rebuilt */
        if (rebuilt) {
                const char *paths[] = { m->journal_partition, m->dedicated_db ? m->db_path : NULL,
                                        m->dedicated_wal ? m->wal_path : NULL };
                static const PartRole roles[] = { PART_ROLE_JOURNAL, PART_ROLE_DB, PART_ROLE_WAL };
                if (streq(m->objectstore, "filestore") && !m->journal_partition) {
                        int r = note(c, strprintf("osd.%d's journal is %s, no partition per its metadata: no journal "
                                                  "partition to replace", id, m->journal_link ?: "unknown"));
                        if (r < 0)
                                return r;
                }
                for (size_t k = 0; k < ELEMENTSOF(paths); k++) {
                        if (!paths[k])
                                continue;
                        ConvertPart part = {};
                        int r = old_partition(c, id, roles[k], paths[k], &part);
                        if (r < 0)
                                return r;
                        if (r == 0)
                                continue;
                        for (size_t i = 0; i < c->ch->n_replaced; i++)
                                if (streq(c->ch->replaced[i].node, part.node)) {
                                        int other = c->ch->replaced[i].osd;
                                        part_done(&part);
                                        return error_set(c->err, EEXIST,
                                                         "host '%s': the cluster names %s as the %s of osd.%d and of osd.%d: "
                                                         "refusing to plan", c->host->name, paths[k], part_role_title(roles[k]),
                                                         other, id);
                                }
                        if (add_part(&c->ch->replaced, &c->ch->n_replaced, &part) < 0)
                                return oom(c);
                }
                if (on_bcache) {
                        int r = old_cache_partition(c, id, d);
                        if (r < 0)
                                return r;
                }
                c->slot_osd[slot] = id;
        }

        ConvertOsd *n = realloc(c->ch->osds, sizeof(ConvertOsd) * (c->ch->n_osds + 1));
        if (!n)
                return oom(c);
        c->ch->osds = n;
        n[c->ch->n_osds] = (ConvertOsd) {
                .id = id, .action = action, .data_device = strdup(d->path), .slot = (unsigned) slot,
                .from = shape_now(m, on_bcache), .to = shape_wanted(c, (size_t) slot), .reasons = TAKE_PTR(reasons),
                .rebuilt = rebuilt, .on_bcache = on_bcache,
        };
        c->ch->n_osds++;
        ConvertOsd *x = &n[c->ch->n_osds - 1];
        if (!x->data_device || !x->from || !x->to || !shape_now_fields(m, on_bcache, &x->now) ||
            !shape_wanted_fields(c, (size_t) slot, &x->wanted))
                return oom(c);
        return 0;
}

/* Data devices of the layout carrying an OSD of another CRUSH host (or of none): a name
 * pattern would take them, the bucket does not. */
static int foreign_osds(ConvertCtx *c, const CephTreeHost *bucket) {
        for (size_t i = 0; i < c->n_data; i++) {
                const InvOsd *o = plan_find_osd(c->inv, c->data[i], false);
                bool mine = false;
                for (size_t k = 0; o && bucket && k < bucket->n_osds; k++)
                        mine = mine || bucket->osds[k] == o->id;
                if (!o || mine)
                        continue;
                const CephTreeOsd *t = ceph_osd_tree_find_osd(c->tree, o->id);
                int r = note(c, strprintf("%s carries osd.%d, which is not in CRUSH host '%s' (%s%s%s): left as it is",
                                          c->data[i]->path, o->id, c->host->name,
                                          t && t->host ? "it is in host '" : t ? "not placed in CRUSH" : "not in the OSD tree",
                                          t && t->host ? t->host : "", t && t->host ? "'" : ""));
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- the fast devices after the conversion ---- */

static int space_add(ConvertFast *f, uint64_t start, uint64_t end) {
        return plan_extents_add(&f->used, &f->n_used, start, end);
}

static uint64_t space_find(const ConvertFast *f, uint64_t size, uint64_t *ret_largest, uint64_t *ret_total) {
        return plan_extents_find_free(f->used, f->n_used, f->first, f->last, size, ret_largest, ret_total);
}

static bool replaced(const ConvertCtx *c, const InvDevice *d, unsigned number) {
        for (size_t i = 0; i < c->ch->n_replaced; i++)
                if (streq(c->ch->replaced[i].device, d->path) && c->ch->replaced[i].partnum == number)
                        return true;
        return false;
}

static int space_analyze(ConvertCtx *c, size_t j) {
        ConvertFast *f = &c->space[j];
        const InvDevice *d = f->dev = c->fast[j];
        char buf[SIZE_FORMAT_MAX];
        if (d->pttype && !streq(d->pttype, "gpt"))
                return error_set(c->err, EEXIST, "host '%s': fast device '%s' has a %s partition table (cephprov needs GPT)",
                                 c->host->name, d->path, d->pttype);
        if (!d->pttype && c->ch->n_replaced + c->ch->n_osds > 0) {
                int r = note(c, strprintf("fast device %s has no partition table: a GPT is written on it first", d->path));
                if (r < 0)
                        return r;
        }
        if (!d->pttype || (d->first_usable == 0 && d->last_usable == 0)) {
                f->first = PLAN_ALIGN;
                f->last = d->size > 2 * PLAN_ALIGN ? d->size - PLAN_ALIGN - 1 : 0;
        } else {
                f->first = d->first_usable;
                f->last = d->last_usable;
        }
        for (size_t k = 0; k < d->n_partitions; k++) {
                const InvPartition *pt = &d->partitions[k];
                if (replaced(c, d, pt->number))
                        continue;
                if (space_add(f, pt->start, pt->start + pt->size) < 0)
                        return oom(c);
                if (pt->number <= GPT_MAX_PARTITIONS)
                        f->numbers[pt->number] = true;
                /* for people: what stays, and why a journal look-alike is not replaced */
                const char *why = keep_listed(c->profile, pt->number) ? ": in keep_partitions" :
                                  plan_partition_is_ours(c->host->name, pt) ? ": cephprov's" : "";
                bool looks = streq_ptr(pt->type_guid, CEPH_GUID_JOURNAL) || (pt->name && strcasestr(pt->name, "journal"));
                char *k_line = strprintf("%s partition %u '%s' %s%s%s", d->path, pt->number, pt->name ?: "",
                                         size_format(pt->size, buf, sizeof buf), why,
                                         looks ? " (named or typed like a journal, but no OSD's metadata names it: "
                                                 "not a journal to replace)" : "");
                if (strv_consume(&c->ch->kept, k_line) < 0)
                        return oom(c);
                ConvertKept *nk = realloc(c->ch->kept_parts, sizeof(ConvertKept) * (c->ch->n_kept_parts + 1));
                if (!nk)
                        return oom(c);
                c->ch->kept_parts = nk;
                nk[c->ch->n_kept_parts++] = (ConvertKept) {
                        .device = strdup(d->path), .partnum = pt->number, .partname = pt->name ? strdup(pt->name) : NULL,
                        .size = pt->size, .looks_like_journal = looks,
                        .why = keep_listed(c->profile, pt->number) ? CONVERT_KEPT_LISTED :
                               plan_partition_is_ours(c->host->name, pt) ? CONVERT_KEPT_OURS : CONVERT_KEPT_OTHER,
                };
                if (!nk[c->ch->n_kept_parts - 1].device || (pt->name && !nk[c->ch->n_kept_parts - 1].partname))
                        return oom(c);
        }
        return 0;
}

static const InvPartition *existing_named(const ConvertCtx *c, const InvDevice *d, const char *name) {
        for (size_t k = 0; k < d->n_partitions; k++)
                if (streq_ptr(d->partitions[k].name, name) && !replaced(c, d, d->partitions[k].number))
                        return &d->partitions[k];
        return NULL;
}

static int create_parts(ConvertCtx *c, size_t j) {
        const Profile *p = c->profile;
        ConvertFast *f = &c->space[j];
        char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX], t[SIZE_FORMAT_MAX];
        static const PartRole roles[] = { PART_ROLE_DB, PART_ROLE_WAL, PART_ROLE_CACHE };
        const SizeSpec *specs[] = { &p->db_size, &p->wal_size, &p->bcache.cache_size };

        for (size_t i = 0; i < c->n_data; i++) {
                if (c->slot_osd[i] < 0 || plan_slot_fast(p, c->n_data, c->n_fast, i) != (int) j)
                        continue;
                for (size_t k = 0; k < ELEMENTSOF(roles); k++) {
                        if (specs[k]->kind == SIZE_UNSET || (roles[k] == PART_ROLE_CACHE && !p->bcache.enabled))
                                continue;
                        uint64_t size = plan_resolve_size(specs[k], f->dev->size);
                        char tag[PLAN_TAG_MAX];
                        plan_device_tag(c->data[i], tag);
                        _cleanup_(freep) char *name = plan_partition_name(c->host->name, roles[k], tag);
                        if (!name)
                                return oom(c);
                        /* its own partition from an earlier run: named by its tag, or by its
                         * slot when a release before identity names made it */
                        _cleanup_(freep) char *legacy = plan_partition_name_legacy(c->host->name, roles[k], (unsigned) i);
                        if (!legacy)
                                return oom(c);
                        const InvPartition *ex = existing_named(c, f->dev, name) ?: existing_named(c, f->dev, legacy);
                        if (ex) {
                                if (ex->size < size)
                                        return error_set(c->err, ENOSPC,
                                                         "host '%s': existing partition %u '%s' on '%s' is %s, the layout "
                                                         "wants %s (cephprov never resizes partitions)", c->host->name,
                                                         ex->number, name, f->dev->path, size_format(ex->size, a, sizeof a),
                                                         size_format(size, b, sizeof b));
                                continue; /* there already, kept: the new OSD takes it */
                        }
                        uint64_t largest, total;
                        uint64_t off = space_find(f, size, &largest, &total);
                        if (off == UINT64_MAX)
                                return error_set(c->err, ENOSPC,
                                                 "host '%s': not enough free space on '%s' for the %s %s partition of "
                                                 "osd.%d (slot %zu, %s) after the old partitions are replaced: the largest "
                                                 "free extent is %s, %s is free in all", c->host->name, f->dev->path,
                                                 size_format(size, a, sizeof a), part_role_title(roles[k]), c->slot_osd[i], i,
                                                 c->data[i]->path, size_format(largest, b, sizeof b),
                                                 size_format(total, t, sizeof t));
                        unsigned num = 0;
                        for (unsigned n = 1; n <= GPT_MAX_PARTITIONS && !num; n++)
                                if (!f->numbers[n])
                                        num = n;
                        if (num == 0)
                                return error_set(c->err, ENOSPC, "host '%s': no free GPT partition entry on '%s' for slot %zu",
                                                 c->host->name, f->dev->path, i);
                        ConvertPart part = {
                                .device = strdup(f->dev->path), .partnum = num, .partname = TAKE_PTR(name),
                                .offset = off, .size = size, .role = roles[k], .osd = c->slot_osd[i], .slot = (unsigned) i,
                        };
                        if (!part.device) {
                                part_done(&part);
                                return oom(c);
                        }
                        if (add_part(&c->ch->created, &c->ch->n_created, &part) < 0 || space_add(f, off, off + size) < 0)
                                return oom(c);
                        f->numbers[num] = true;
                }
        }
        return 0;
}

/* ---- a host ---- */

/* What a rebuild does about bcache, for people: the teardown of an OSD on bcache (or of the
 * cache set of a backing disk gone), the bcache an OSD is made on. */
static int bcache_notes(ConvertCtx *c) {
        const BcacheOptions *b = &c->profile->bcache;
        char cut[SIZE_FORMAT_MAX];
        int r;
        for (size_t i = 0; i < c->ch->n_osds; i++) {
                const ConvertOsd *o = &c->ch->osds[i];
                if (!o->rebuilt)
                        continue;
                const InvDevice *d = inventory_find_device(c->inv, o->data_device);
                const ConvertPart *old = NULL;
                for (size_t k = 0; k < c->ch->n_replaced; k++)
                        if (c->ch->replaced[k].osd == o->id && c->ch->replaced[k].role == PART_ROLE_CACHE)
                                old = &c->ch->replaced[k];
                if (d && d->content.bcache.role == BCACHE_ROLE_BACKING &&
                    (r = note(c, strprintf("osd.%d's bcache on %s is torn down before its wipe, as destroy does: its "
                                           "dirty data written back first (progress shown), the device stopped, its "
                                           "cache set unregistered%s", o->id, o->data_device,
                                           old ? " and its cache partition's superblock wiped" : ""))) < 0)
                        return r;
                if ((!d || d->content.bcache.role != BCACHE_ROLE_BACKING) && old &&
                    (r = note(c, strprintf("osd.%d's cache set on %s (partition %u) has lost its backing disk: it is "
                                           "unregistered and its superblock wiped before the partition goes (what dirty "
                                           "data it held went with the disk; the OSD's data comes back from the other "
                                           "copies)", o->id, old->node ?: old->device, old->partnum))) < 0)
                        return r;
                const ConvertPart *cp = convert_host_created(c->ch, o->id, PART_ROLE_CACHE);
                if (o->wanted.bcache && cp &&
                    (r = note(c, strprintf("osd.%d is made on the bcache device of %s: a cache superblock on %s "
                                           "partition %u '%s', a backing superblock on %s, attached, cache_mode %s, "
                                           "sequential_cutoff %s, writeback_percent %u (kept across reboots by a udev "
                                           "rule)", o->id, o->data_device, cp->device, cp->partnum, cp->partname,
                                           o->data_device, bcache_cache_mode_to_string(b->cache_mode),
                                           size_format(b->sequential_cutoff, cut, sizeof cut), b->writeback_percent))) < 0)
                        return r;
        }
        return 0;
}

static int osd_cmp(const void *a, const void *b) {
        const ConvertOsd *x = a, *y = b;
        return (x->slot > y->slot) - (x->slot < y->slot);
}

static int part_cmp(const void *a, const void *b) {
        const ConvertPart *x = a, *y = b;
        int r = strverscmp(x->device, y->device);
        return r != 0 ? r : (x->partnum > y->partnum) - (x->partnum < y->partnum);
}

static int convert_host(ConvertCtx *c) {
        const Profile *p = c->profile;
        const char *hn = c->host->name;
        _cleanup_(freep) signed char *allowed = malloc(c->inv->n_devices + 1);
        int r;

        if (!allowed)
                return oom(c);
        memset(allowed, -1, c->inv->n_devices + 1);
        r = plan_select_devices(c->host, p, c->inv, &p->data, "data", allowed, &c->data, &c->n_data, c->err);
        if (r < 0)
                return r;
        if (p->fast.set) {
                r = plan_select_devices(c->host, p, c->inv, &p->fast, "fast", allowed, &c->fast, &c->n_fast, c->err);
                if (r < 0)
                        return r;
        }
        size_t per = c->n_fast == 0 ? 0 : p->data_per_fast ? p->data_per_fast : (c->n_data + c->n_fast - 1) / c->n_fast;
        if (c->n_fast > 0 && c->n_data > c->n_fast * per)
                return error_set(c->err, ERANGE, "host '%s': %zu data devices but %zu fast devices with data_per_fast %zu",
                                 hn, c->n_data, c->n_fast, per);
        c->slot_osd = malloc(sizeof(int) * (c->n_data + 1));
        c->space = calloc(c->n_fast + 1, sizeof(ConvertFast));
        if (!c->slot_osd || !c->space)
                return oom(c);
        for (size_t i = 0; i < c->n_data; i++)
                c->slot_osd[i] = -1;
        if (c->opts->replace_device && (r = replace_find(c)) < 0)
                return r;

        /* the host is its CRUSH bucket, by exact name */
        const CephTreeHost *bucket = ceph_osd_tree_find_host(c->tree, hn);
        c->ch->in_crush = bucket != NULL;
        if (!bucket && c->replace)
                return error_set(c->err, ENOENT, "host '%s': no CRUSH host bucket '%s' in the OSD tree: no OSD depends "
                                                 "on '%s'", hn, hn, c->replace->path);
        if (!bucket && (r = note(c, strprintf("no CRUSH host bucket '%s' in the OSD tree: no OSD to convert", hn))) < 0)
                return r;
        _cleanup_(freep) int *ids = bucket ? malloc(sizeof(int) * (bucket->n_osds + 1)) : NULL;
        if (bucket && !ids)
                return oom(c);
        for (size_t k = 0; bucket && k < bucket->n_osds; k++) {
                /* by id, whatever order the tree lists them in */
                size_t at = k;
                while (at > 0 && ids[at - 1] > bucket->osds[k]) {
                        ids[at] = ids[at - 1];
                        at--;
                }
                ids[at] = bucket->osds[k];
        }
        for (size_t k = 0; bucket && k < bucket->n_osds; k++)
                if ((r = plan_osd(c, ids[k])) < 0)
                        return r;
        if ((r = foreign_osds(c, bucket)) < 0)
                return r;
        if (c->replace && c->ch->n_osds == 0 && c->intact) {
                _cleanup_(freep) char *list = strv_join(c->intact, ", ");
                bool one = strv_length(c->intact) == 1;
                return error_set(c->err, EEXIST,
                                 "host '%s': nothing was replaced on '%s': %s (which depend%s on it) %s up with %s label "
                                 "intact: refusing (replace rebuilds the OSDs of a failed device swapped for a new one; "
                                 "an OSD in another shape than the layout's is convert --reshape's)", hn,
                                 c->replace->path, list ?: "?", one ? "s" : "", one ? "is" : "are", one ? "its" : "their");
        }
        if (c->replace && c->ch->n_osds == 0 && c->ch->n_unchanged == 0)
                return error_set(c->err, ENOENT,
                                 "host '%s': no OSD depends on '%s': %s", hn, c->replace->path,
                                 c->replace_slot >= 0 ? "no OSD of its CRUSH host bucket has its data there (per 'ceph "
                                                        "osd metadata'): apply makes a new OSD on a blank data device"
                                                      : "no OSD of its CRUSH host bucket has its slot or its DB/WAL there");
        if (c->ch->n_osds > 1)
                qsort(c->ch->osds, c->ch->n_osds, sizeof(ConvertOsd), osd_cmp);
        if (c->ch->n_replaced > 1)
                qsort(c->ch->replaced, c->ch->n_replaced, sizeof(ConvertPart), part_cmp);

        for (size_t j = 0; j < c->n_fast; j++)
                if ((r = space_analyze(c, j)) < 0 || (r = create_parts(c, j)) < 0)
                        return r;
        if ((r = bcache_notes(c)) < 0)
                return r;
        for (size_t i = 0; i < c->ch->n_replaced; i++)
                if (c->ch->replaced[i].kept_listed &&
                    (r = note(c, strprintf("%s partition %u is in keep_partitions of profile '%s', but the cluster names "
                                           "it osd.%d's %s: replaced all the same", c->ch->replaced[i].device,
                                           c->ch->replaced[i].partnum, p->name, c->ch->replaced[i].osd,
                                           part_role_title(c->ch->replaced[i].role)))) < 0)
                        return r;
        return 0;
}

static void ctx_done(ConvertCtx *c) {
        strv_free(c->intact);
        free(c->data);
        free(c->fast);
        free(c->slot_osd);
        for (size_t j = 0; c->space && j < c->n_fast; j++)
                free(c->space[j].used);
        free(c->space);
}

/* Hosts are CRUSH host buckets by exact name: when not one host planned has a bucket, the
 * layout and the cluster do not describe the same machines (other host names, another
 * cluster): refused, naming both sides, rather than read as "0 OSDs to rebuild". */
static int crush_matched(const ConvertPlan *p, const CephOsdTree *tree, Error *err) {
        if (p->n_hosts == 0)
                return 0;
        for (size_t i = 0; i < p->n_hosts; i++)
                if (p->hosts[i].in_crush)
                        return 0;
        _cleanup_strv_free_ char **mine = NULL, **theirs = NULL;
        for (size_t i = 0; i < p->n_hosts; i++)
                if (strv_extend(&mine, p->hosts[i].host) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; tree && i < tree->n_hosts; i++)
                if (strv_extend(&theirs, tree->hosts[i].name) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        _cleanup_(freep) char *a = strv_join(mine, ", "), *b = theirs ? strv_join(theirs, ", ") : NULL;
        return error_set(err, ENOENT, "no host of the layout to convert (%s) is a CRUSH host bucket of the cluster (%s%s): "
                                      "hosts are matched by exact name; wrong layout or cluster? refusing",
                         a ?: "?", theirs ? "its host buckets: " : "the OSD tree has no host bucket", b ?: "");
}

int plan_convert(const Layout *l, const InventorySet *inv, const CephOsdTree *tree, const CephOsdMetadataList *meta,
                 const ConvertOptions *opts, ConvertPlan **ret, Error *err) {
        static const ConvertOptions none = {};
        if (!opts)
                opts = &none;
        _cleanup_(convert_plan_freep) ConvertPlan *p = calloc(1, sizeof(ConvertPlan));
        if (!p)
                return error_set(err, ENOMEM, "out of memory");
        p->reshape = opts->reshape;
        if (opts->replace_device) {
                if (strv_length((char **) opts->hosts) != 1)
                        return error_set(err, EINVAL, "a replacement plans one host (device '%s')", opts->replace_device);
                const Host *h = layout_find_host(l, opts->hosts[0]);
                if (!h || !h->profile)
                        return error_set(err, ENOENT, "host '%s' %s", opts->hosts[0],
                                         h ? "has no profile in the layout: it has no devices to replace"
                                           : "is not in the layout");
                if (!inventory_set_find(inv, h->name))
                        return error_set(err, ENOENT, "host '%s': no inventory: cannot plan the replacement of '%s'",
                                         h->name, opts->replace_device);
        }
        for (size_t i = 0; i < l->n_hosts; i++) {
                const Host *h = &l->hosts[i];
                if (!h->profile || (opts->hosts && !strv_contains(opts->hosts, h->name)))
                        continue;
                const Inventory *hi = inventory_set_find(inv, h->name);
                if (!hi) {
                        if (strv_extend(&p->missing_hosts, h->name) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                        continue;
                }
                ConvertHost *n = realloc(p->hosts, sizeof(ConvertHost) * (p->n_hosts + 1));
                if (!n)
                        return error_set(err, ENOMEM, "out of memory");
                p->hosts = n;
                n[p->n_hosts] = (ConvertHost) { .host = strdup(h->name) };
                ConvertHost *ch = &n[p->n_hosts++];
                if (!ch->host)
                        return error_set(err, ENOMEM, "out of memory");
                ConvertCtx c = {
                        .layout = l, .host = h, .profile = h->profile, .inv = hi, .tree = tree, .meta = meta,
                        .opts = opts, .ch = ch, .err = err, .gone_osd = -1, .on_replaced = -1,
                };
                int r = convert_host(&c);
                if (r >= 0 && c.replace &&
                    (!(p->replace_host = strdup(h->name)) || !(p->replace_device = strdup(c.replace->path))))
                        r = error_set(err, ENOMEM, "out of memory");
                ctx_done(&c);
                if (r < 0)
                        return r;
        }
        int r = crush_matched(p, tree, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(p);
        return 0;
}

/* ---- a saved plan carried out later: its devices found again by identity ---- */

typedef struct FollowCtx {
        ConvertHost *h;
        const Inventory *saved, *fresh;
        Error *err;
        char ***changes;
        char **from, **to;       /* old path -> path now, one pair per device the plan names */
        size_t n;
} FollowCtx;

/* What the plan uses a device for, for people: "osd.0's data device", "the fast device of
 * osd.0, osd.1" (their journals, DB or WAL, old or new). */
static char *follow_what(const ConvertHost *h, const char *path) {
        for (size_t i = 0; i < h->n_osds; i++)
                if (h->osds[i].rebuilt && streq(h->osds[i].data_device, path))
                        return strprintf("osd.%d's data device", h->osds[i].id);
        _cleanup_strv_free_ char **ids = NULL;
        for (size_t i = 0; i < h->n_replaced + h->n_created; i++) {
                const ConvertPart *p = i < h->n_replaced ? &h->replaced[i] : &h->created[i - h->n_replaced];
                _cleanup_(freep) char *id = strprintf("osd.%d", p->osd);
                if (id && streq(p->device, path) && !strv_contains(ids, id) && strv_extend(&ids, id) < 0)
                        return NULL;
        }
        _cleanup_(freep) char *list = ids ? strv_join(ids, ", ") : NULL;
        return strprintf("the fast device of %s", list ?: "no OSD");
}

/* A device for people by what it is: its identity, else its size and content. */
static char *follow_describe(const InvDevice *d) {
        char *id = plan_device_identity(d);
        if (id)
                return id;
        char buf[SIZE_FORMAT_MAX];
        return strprintf("a device without identity of %s%s%s", size_format(d->size, buf, sizeof buf),
                         d->content.fstype ? " carrying " : d->pttype ? " with a partition table " : "",
                         d->content.fstype ?: d->pttype ?: "");
}

static bool device_blank(const InvDevice *d) {
        return !d->content.fstype && !d->pttype && d->n_partitions == 0;
}

/* A device with no stable identity is taken for the one planned only when nothing says it
 * is another: its size; for a data device, its partition table as saved, or blank (wiped by
 * the conversion), or carrying a BlueStore label of the OSD the plan rebuilds there; for a
 * fast device, its GPT (the disk GUID stays while partitions come and go), or, when it had
 * none (a new disk), none yet or one holding only the plan's new partitions. NULL: nothing
 * changed that the conversion did not do; else what changed, for people. */
static char *follow_unchanged(const ConvertHost *h, const InvDevice *s, const InvDevice *f) {
        char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX];
        if (s->size != f->size)
                return strprintf("its size was %s, it is %s", size_format(s->size, a, sizeof a),
                                 size_format(f->size, b, sizeof b));
        int osd = -1;
        for (size_t i = 0; i < h->n_osds; i++)
                if (h->osds[i].rebuilt && streq(h->osds[i].data_device, s->path))
                        osd = h->osds[i].id;
        bool same_table = streq_ptr(s->pttype, f->pttype) && streq_ptr(s->ptuuid, f->ptuuid) &&
                          (s->pttype || streq_ptr(s->content.fstype, f->content.fstype));
        if (same_table)
                return NULL;
        if (osd >= 0) {
                if (device_blank(f))
                        return NULL;
                if (f->content.osd.id == osd && streq_ptr(f->content.osd.objectstore, "bluestore"))
                        return NULL;
        } else if (!s->pttype) {
                bool ours = true;
                for (size_t k = 0; k < f->n_partitions && ours; k++) {
                        bool planned = false;
                        for (size_t i = 0; i < h->n_created; i++)
                                planned = planned || streq_ptr(h->created[i].partname, f->partitions[k].name);
                        ours = planned;
                }
                if (!f->content.fstype && (!f->pttype || (streq(f->pttype, "gpt") && ours)))
                        return NULL;
        }
        if (!streq_ptr(s->pttype, f->pttype) || !streq_ptr(s->ptuuid, f->ptuuid))
                return strprintf("its partition table was %s%s%s, it is %s%s%s", s->pttype ?: "none",
                                 s->ptuuid ? " " : "", s->ptuuid ?: "", f->pttype ?: "none", f->ptuuid ? " " : "",
                                 f->ptuuid ?: "");
        return strprintf("its signature was %s, it is %s", s->content.fstype ?: "none", f->content.fstype ?: "none");
}

/* Where the device the plan names `path` (as in `saved`) is now. */
static int follow_device(FollowCtx *c, const char *path) {
        const char *hn = c->h->host;
        for (size_t i = 0; i < c->n; i++)
                if (streq(c->from[i], path))
                        return 0;
        _cleanup_(freep) char *what = follow_what(c->h, path);
        if (!what)
                return error_set(c->err, ENOMEM, "out of memory");
        const InvDevice *s = NULL, *at = NULL, *f = NULL;
        for (size_t i = 0; i < c->saved->n_devices; i++)
                if (streq(c->saved->devices[i].path, path))
                        s = &c->saved->devices[i];
        for (size_t i = 0; i < c->fresh->n_devices; i++)
                if (streq(c->fresh->devices[i].path, path))
                        at = &c->fresh->devices[i];
        if (!s)
                return error_set(c->err, ENOENT, "host '%s': %s %s is not in the saved inventory the convert was "
                                                 "planned from: refusing", hn, what, path);
        _cleanup_(freep) char *id = plan_device_identity(s);
        _cleanup_(freep) char *now = at ? follow_describe(at) : strdup("gone");
        if (!now)
                return error_set(c->err, ENOMEM, "out of memory");
        char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX];
        if (id) {
                for (size_t i = 0; i < c->fresh->n_devices; i++) {
                        _cleanup_(freep) char *fid = plan_device_identity(&c->fresh->devices[i]);
                        if (!fid || !streq(fid, id))
                                continue;
                        if (f)
                                return error_set(c->err, EEXIST, "host '%s': %s %s was %s when the convert was "
                                                                 "planned; both %s and %s are %s now: refusing", hn,
                                                 what, id, path, f->path, c->fresh->devices[i].path, id);
                        f = &c->fresh->devices[i];
                }
                if (!f)
                        return error_set(c->err, ENXIO, "host '%s': %s %s was %s when the convert was planned; %s is "
                                                        "%s%s and %s is not on the host: refusing", hn, what, id, path,
                                         path, at ? "now " : "", now, id);
                if (!f->allowed)
                        return error_set(c->err, EPERM, "host '%s': %s %s was %s when the convert was planned and is "
                                                        "%s now, which the host's allow-list does not allow: refusing",
                                         hn, what, id, path, f->path);
                if (f->size != s->size)
                        return error_set(c->err, ESTALE, "host '%s': %s %s (%s now) was %s when the convert was "
                                                         "planned and is %s now: refusing", hn, what, id, f->path,
                                         size_format(s->size, a, sizeof a), size_format(f->size, b, sizeof b));
                if (!streq(f->path, path) &&
                    strv_consume(c->changes, strprintf("host '%s': %s %s was %s when the convert was planned and is "
                                                       "%s now (%s is %s): followed", hn, what, id, path, f->path,
                                                       path, at ? now : "gone")) < 0)
                        return error_set(c->err, ENOMEM, "out of memory");
        } else {
                if (!at)
                        return error_set(c->err, ENXIO, "host '%s': %s %s has no stable identity (no WWN, serial or "
                                                        "backing file) and is gone: refusing to guess which disk it "
                                                        "is now", hn, what, path);
                _cleanup_(freep) char *why = follow_unchanged(c->h, s, at);
                if (why)
                        return error_set(c->err, ESTALE, "host '%s': %s %s has no stable identity (no WWN, serial or "
                                                         "backing file) and changed since the convert was planned "
                                                         "(%s): refusing to guess which disk it is", hn, what, path,
                                         why);
                f = at;
        }
        for (size_t i = 0; i < c->n; i++)
                if (streq(c->to[i], f->path))
                        return error_set(c->err, EEXIST, "host '%s': %s and %s of the convert plan are both %s now: "
                                                         "refusing", hn, c->from[i], path, f->path);
        char **nf = realloc(c->from, sizeof(char *) * (c->n + 1)), **nt;
        if (nf)
                c->from = nf;
        nt = nf ? realloc(c->to, sizeof(char *) * (c->n + 1)) : NULL;
        if (!nt)
                return error_set(c->err, ENOMEM, "out of memory");
        c->to = nt;
        c->from[c->n] = strdup(path);
        c->to[c->n] = strdup(f->path);
        c->n++;
        if (!c->from[c->n - 1] || !c->to[c->n - 1])
                return error_set(c->err, ENOMEM, "out of memory");
        return 0;
}

static const char *follow_to(const FollowCtx *c, const char *path) {
        for (size_t i = 0; i < c->n; i++)
                if (streq(c->from[i], path))
                        return c->to[i];
        return path;
}

static int follow_rename(char **s, const char *to) {
        if (streq_ptr(*s, to))
                return 0;
        char *n = strdup(to);
        if (!n)
                return -ENOMEM;
        free(*s);
        *s = n;
        return 0;
}

/* *s renamed to `to`, its name when planned kept in *planned (the first time only) */
static int follow_device_rename(char **s, char **planned, const char *to) {
        if (streq_ptr(*s, to))
                return 0;
        if (!*planned && !(*planned = strdup(*s)))
                return -ENOMEM;
        return follow_rename(s, to);
}

static const InvPartition *partition_number(const InvDevice *d, unsigned n) {
        for (size_t k = 0; d && k < d->n_partitions; k++)
                if (d->partitions[k].number == n)
                        return &d->partitions[k];
        return NULL;
}

/* A partition the plan replaces, by its PARTUUID (else its GPT name, start and size), on
 * the device where that device is now; gone: deleted already (a re-run after the wipe). */
static int follow_partition(FollowCtx *c, ConvertPart *p) {
        const char *hn = c->h->host, *to = follow_to(c, p->device);
        const InvDevice *sd = NULL, *fd = NULL;
        for (size_t i = 0; i < c->saved->n_devices; i++)
                if (streq(c->saved->devices[i].path, p->device))
                        sd = &c->saved->devices[i];
        for (size_t i = 0; i < c->fresh->n_devices; i++)
                if (streq(c->fresh->devices[i].path, to))
                        fd = &c->fresh->devices[i];
        const InvPartition *sp = partition_number(sd, p->partnum), *fp = NULL;
        if (!sp || !fd)
                return 0;
        for (size_t k = 0; k < fd->n_partitions && !fp; k++) {
                const InvPartition *x = &fd->partitions[k];
                if (sp->partuuid ? (x->partuuid && strcasecmp(x->partuuid, sp->partuuid) == 0)
                                 : (streq_ptr(x->name, sp->name) && x->start == sp->start && x->size == sp->size))
                        fp = x;
        }
        if (!fp) {
                /* deleted already; its number may hold a new partition, never one named as it was */
                const InvPartition *x = partition_number(fd, p->partnum);
                bool own = false;
                for (size_t i = 0; i < c->h->n_osds; i++)
                        own = own || (c->h->osds[i].id == p->osd && c->h->osds[i].parts_replaced);
                if (x && streq_ptr(x->name, p->partname) && own) {
                        /* the run under way deleted it and made its successor (same name: the
                         * name follows the data device) before it was interrupted */
                        if (strv_consume(c->changes, strprintf("host '%s': osd.%d's %s partition %u '%s' on %s was "
                                                               "made again by the run under way (PARTUUID %s, was %s): "
                                                               "followed", hn, p->osd, part_role_title(p->role),
                                                               p->partnum, p->partname ?: "", to,
                                                               x->partuuid ?: "none", sp->partuuid ?: "none")) < 0)
                                return error_set(c->err, ENOMEM, "out of memory");
                        return 0;
                }
                if (x && streq_ptr(x->name, p->partname))
                        return error_set(c->err, ESTALE, "host '%s': osd.%d's %s partition %u '%s' on %s is not the "
                                                         "one planned (PARTUUID %s, was %s): refusing", hn, p->osd,
                                         part_role_title(p->role), p->partnum, p->partname ?: "", to, x->partuuid ?: "none",
                                         sp->partuuid ?: "none");
                return 0;
        }
        if (fp->number != p->partnum || !streq_ptr(fp->node, p->node)) {
                if (strv_consume(c->changes, strprintf("host '%s': osd.%d's %s partition PARTUUID %s was %s when the "
                                                       "convert was planned and is %s now: followed", hn, p->osd,
                                                       part_role_title(p->role), sp->partuuid ?: "?", p->node ?: "?",
                                                       fp->node ?: "?")) < 0)
                        return error_set(c->err, ENOMEM, "out of memory");
                p->partnum = fp->number;
                if (fp->node && follow_rename(&p->node, fp->node) < 0)
                        return error_set(c->err, ENOMEM, "out of memory");
        }
        return 0;
}

static int follow_host(FollowCtx *c) {
        ConvertHost *h = c->h;
        int r;
        for (size_t i = 0; i < h->n_osds; i++)
                if (h->osds[i].rebuilt && (r = follow_device(c, h->osds[i].data_device)) < 0)
                        return r;
        for (size_t i = 0; i < h->n_replaced; i++)
                if ((r = follow_device(c, h->replaced[i].device)) < 0)
                        return r;
        for (size_t i = 0; i < h->n_created; i++)
                if ((r = follow_device(c, h->created[i].device)) < 0)
                        return r;
        /* every device found before anything is renamed: names may have been swapped */
        for (size_t i = 0; i < h->n_replaced; i++)
                if ((r = follow_partition(c, &h->replaced[i])) < 0)
                        return r;
        for (size_t i = 0; i < h->n_osds; i++)
                if (h->osds[i].rebuilt && follow_device_rename(&h->osds[i].data_device, &h->osds[i].planned_device,
                                                               follow_to(c, h->osds[i].data_device)) < 0)
                        return error_set(c->err, ENOMEM, "out of memory");
        for (size_t i = 0; i < h->n_replaced + h->n_created; i++) {
                ConvertPart *p = i < h->n_replaced ? &h->replaced[i] : &h->created[i - h->n_replaced];
                if (follow_device_rename(&p->device, &p->planned_device, follow_to(c, p->device)) < 0)
                        return error_set(c->err, ENOMEM, "out of memory");
        }
        return 0;
}

int convert_plan_follow(ConvertPlan *p, const InventorySet *saved, const InventorySet *fresh, char ***ret_changes,
                        Error *err) {
        _cleanup_strv_free_ char **changes = NULL;
        for (size_t i = 0; i < p->n_hosts; i++) {
                ConvertHost *h = &p->hosts[i];
                bool any = false;
                for (size_t k = 0; k < h->n_osds; k++)
                        any = any || h->osds[k].rebuilt;
                if (!any)
                        continue;
                const Inventory *s = inventory_set_find(saved, h->host), *f = inventory_set_find(fresh, h->host);
                if (!s)
                        return error_set(err, ENOENT, "host '%s': not in the saved inventories the convert was planned "
                                                      "from: refusing", h->host);
                if (!f)
                        return error_set(err, ENOENT, "host '%s': no inventory now: its devices cannot be found again "
                                                      "by identity: refusing", h->host);
                FollowCtx c = { .h = h, .saved = s, .fresh = f, .err = err, .changes = &changes };
                _cleanup_(freep) char *old_replace = p->replace_host && streq(p->replace_host, h->host) &&
                                                                     p->replace_device ? strdup(p->replace_device) : NULL;
                int r = follow_host(&c);
                if (r >= 0 && old_replace) {
                        /* the device replaced: where it is now, when the plan names it */
                        for (size_t k = 0; k < c.n; k++)
                                if (streq(c.from[k], old_replace) && follow_rename(&p->replace_device, c.to[k]) < 0)
                                        r = error_set(err, ENOMEM, "out of memory");
                }
                for (size_t k = 0; k < c.n; k++) {
                        free(c.from[k]);
                        free(c.to[k]);
                }
                free(c.from);
                free(c.to);
                if (r < 0)
                        return r;
        }
        if (ret_changes)
                *ret_changes = TAKE_PTR(changes);
        return 0;
}
