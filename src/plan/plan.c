/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "plan.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basic/size.h"
#include "basic/strv.h"
#include "plan-internal.h"

/* The planner. For every host with a profile:
 *   1. select data and fast devices from the inventory (explicit list order, else by path),
 *   2. check them (allow-list, foreign signatures, in use, keep_partitions),
 *   3. give each cephprov partition to the data device it serves (by OSD label, cache set,
 *      the identity tag in its name: docs/plan.md "Identity"), name the OSDs whose data
 *      device is gone, and assign data devices to fast devices (where their partitions are,
 *      else data_per_fast, balanced or fill),
 *   4. emit steps phase by phase: wipe → gpt → partitions → make-bcache cache/backing →
 *      attach → tune → create-osd, each with the ids of the steps it needs.
 * Everything already in place (partitions by identity, bcache superblocks, attachment,
 * tuning, OSDs) produces no step, so a converged host plans empty. */

#define _cleanup_free_ _cleanup_(freep)

#define GPT_MAX_PARTITIONS 128u
/* Assumed usable range of a device that gets a new GPT: 1 MiB at each end (GPT needs 17 KiB
 * at 512 B sectors, 24 KiB at 4 KiB; the rest is alignment slack) */
#define BLANK_GPT_MARGIN PLAN_ALIGN

typedef struct FastState {
        const InvDevice *dev;
        bool wipe;              /* planned STEP_WIPE */
        bool gpt;               /* planned STEP_CREATE_GPT */
        bool blank;             /* existing partitions disappear (wiped) or there are none */
        unsigned wipe_step, gpt_step, last_part_step;
        uint64_t first, last;   /* usable range, inclusive */
        Extent *used;           /* occupied extents: existing partitions + planned ones */
        size_t n_used;
        bool numbers[GPT_MAX_PARTITIONS + 1];
        uint64_t used_bytes;    /* cephprov partitions, existing + planned */
        uint64_t planned_bytes; /* partitions this plan creates */
} FastState;

typedef struct SlotPart {
        bool wanted;
        uint64_t size;
        char *name;
        unsigned partnum;
        unsigned step;               /* 0: exists already */
        const InvPartition *existing;
} SlotPart;

/* A cephprov partition of this host and the data device it serves (docs/plan.md "Identity"):
 * by the OSD label it carries, else by the bcache backing device attached to its cache set,
 * else by the tag in its name (a legacy name: by its slot position, for a data device with no
 * OSD of its own). Names never decide against a label. */
typedef struct Owned {
        const InvDevice *dev;        /* the device holding the partition */
        const InvPartition *pt;
        PartRole role;
        const InvDevice *owner;      /* the data device it serves; NULL: none on the host */
        const InvOsd *label;         /* the OSD label it carries (DB, WAL, journal); NULL: none */
        unsigned legacy_slot;        /* UINT_MAX: named by tag */
        char tag[PLAN_TAG_MAX];      /* "": a legacy name */
        bool taken;                  /* a slot uses it */
} Owned;

typedef struct Slot {
        const InvDevice *data;
        char tag[PLAN_TAG_MAX];      /* the data device's identity tag (plan_device_tag()) */
        int fast;                    /* index into fast states, -1 none */
        const InvOsd *osd;           /* existing OSD on the data device */
        const InvOsd *half_made;     /* a BlueStore label whose mkfs never finished */
        bool convert;                /* existing OSD of another objectstore: partitions only */
        bool wipe;
        unsigned wipe_step;
        SlotPart parts[_PART_ROLE_MAX_];
        unsigned mk_cache_step, mk_back_step, attach_step, tune_step;
} Slot;

typedef struct Ctx {
        const Layout *layout;
        const Host *host;
        const Profile *profile;
        const Inventory *inv;
        HostPlan *hp;
        Error *err;
        Slot *slots;
        size_t n_slots;
        FastState *fast;
        size_t n_fast;
        Owned *owned;                /* every cephprov partition of the host */
        size_t n_owned;
        const int *ids_in_use;       /* the cluster's OSD ids (sorted), when ids_known */
        size_t n_ids_in_use;
        bool ids_known;
        signed char *allowed;        /* per inventory device: -1 not known yet, else plan_device_allowed() */
        size_t steps_cap;            /* allocated entries of hp->steps */
} Ctx;

static const char *part_role_guid(PartRole r) {
        switch (r) {
        case PART_ROLE_DB: return CEPH_GUID_BLOCK_DB;
        case PART_ROLE_WAL: return CEPH_GUID_BLOCK_WAL;
        case PART_ROLE_CACHE: return BCACHE_GUID;
        case PART_ROLE_JOURNAL: return CEPH_GUID_JOURNAL;
        default: return LINUX_DATA_GUID;
        }
}

/* ---- freeing ---- */

static void seen_done(StepSeen *s) {
        free(s->type);
        free(s->uuid);
        free(s->pttype);
        free(s->ptuuid);
        free(s->identity);
        free(s->partuuid);
        free(s->osd_uuid);
        free(s->ceph_fsid);
        *s = (StepSeen) {};
}

static void step_done(Step *s) {
        seen_done(&s->seen);
        seen_done(&s->db_seen);
        seen_done(&s->wal_seen);
        free(s->device);
        free(s->part_device);
        free(s->reason);
        free(s->partname);
        free(s->db_device);
        free(s->db_partname);
        free(s->wal_device);
        free(s->wal_partname);
        free(s->journal_device);
        free(s->journal_partname);
        free(s->device_class);
        free(s->half_made_osd_fsid);
        free(s->deps);
}

static void plan_device_done(PlanDevice *d) {
        free(d->path);
        free(d->by_id);
        free(d->model);
        free(d->serial);
        for (size_t i = 0; i < d->n_kept; i++) {
                free(d->kept[i].name);
                free(d->kept[i].holder);
        }
        free(d->kept);
}

static void plan_drift_done(PlanDrift *d) {
        free(d->device);
        free(d->partname);
        free(d->reason);
}

static void host_plan_done(HostPlan *h) {
        free(h->host);
        for (size_t i = 0; i < h->n_steps; i++)
                step_done(&h->steps[i]);
        free(h->steps);
        for (size_t i = 0; i < h->n_fast; i++) {
                free(h->fast[i].fast_device);
                strv_free(h->fast[i].data_devices);
        }
        free(h->fast);
        strv_free(h->osd_data);
        strv_free(h->notes);
        strv_free(h->warnings);
        for (size_t i = 0; i < h->n_devices; i++)
                plan_device_done(&h->devices[i]);
        free(h->devices);
        for (size_t i = 0; i < h->n_drift; i++)
                plan_drift_done(&h->drift[i]);
        free(h->drift);
}

void plan_refusals_free(PlanRefusal *r, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(r[i].host);
                free(r[i].message);
        }
        free(r);
}

Plan *plan_free(Plan *p) {
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_hosts; i++)
                host_plan_done(&p->hosts[i]);
        free(p->hosts);
        strv_free(p->missing_hosts);
        plan_refusals_free(p->refused, p->n_refused);
        free(p);
        return NULL;
}

bool plan_is_empty(const Plan *p) {
        return plan_count_steps(p) == 0;
}

size_t plan_count_steps(const Plan *p) {
        size_t n = 0;
        for (size_t i = 0; p && i < p->n_hosts; i++)
                n += p->hosts[i].n_steps;
        return n;
}

/* ---- helpers ---- */

static int oom(Ctx *c) {
        return error_set(c->err, ENOMEM, "out of memory");
}

/* A refusal that comes from a value of the layout: "FILE:LINE:COL: message", pointing at it
 * (as the layout's own errors do), when the layout was read from a file. */
static int fail_at(Ctx *c, int code, YamlMark m, const char *fmt, ...) _printf_(4, 5);
static int fail_at(Ctx *c, int code, YamlMark m, const char *fmt, ...) {
        char msg[sizeof(c->err->message)];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        if (c->layout->path && m.line > 0)
                return error_set(c->err, code, "%s:%u:%u: %s", c->layout->path, m.line, m.column, msg);
        return error_set(c->err, code, "%s", msg);
}

static const char *fmt_size(uint64_t v, char buf[static SIZE_FORMAT_MAX]) {
        return size_format(v, buf, SIZE_FORMAT_MAX);
}

static int select_devices(Ctx *c, const DeviceSelector *s, const char *role,
                          const InvDevice ***ret, size_t *ret_n) {
        int r = plan_select_devices(c->host, c->profile, c->inv, s, role, c->allowed, ret, ret_n, c->err);
        if (r < 0 || s->count == 0 || *ret_n == s->count)
                return r;
        char list[512] = "";
        size_t used = 0;
        for (size_t i = 0; i < *ret_n && used < sizeof list; i++)
                used += (size_t) snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", (*ret)[i]->path);
        return fail_at(c, ERANGE, s->count_mark.line > 0 ? s->count_mark : s->mark,
                       "host '%s': profile '%s' %s selects %zu device%s, its count says %u%s%s%s", c->host->name,
                       c->profile->name, role, *ret_n, *ret_n == 1 ? "" : "s", s->count, *ret_n ? " (" : "", list,
                       *ret_n ? ")" : "");
}

/* ---- what the plan saw (Step.seen) ---- */

/* Only the size and who the device is: what the plan knows of a target whose content an
 * earlier step of the plan changes. `dev`: the whole device (a partition's disk), NULL for a
 * partition this plan creates. */
static int seen_size(StepSeen *s, const InvDevice *dev, uint64_t size) {
        seen_done(s);
        *s = (StepSeen) { .set = true, .size = size, .whoami = -1 };
        if (dev && (dev->wwn || dev->serial || dev->backing_file) && !(s->identity = plan_device_identity(dev)))
                return -ENOMEM;
        return 0;
}

/* Nothing on it: what a wipe leaves. */
static int seen_blank(StepSeen *s, const InvDevice *dev, uint64_t size) {
        int r = seen_size(s, dev, size);
        s->content = true;
        return r;
}

static int seen_content(StepSeen *s, const InvDevice *dev, uint64_t size, const InvContent *c, const char *pttype,
                        const char *ptuuid) {
        if (seen_blank(s, dev, size) < 0)
                return -ENOMEM;
        if ((c->fstype && !(s->type = strdup(c->fstype))) || (c->uuid && !(s->uuid = strdup(c->uuid))) ||
            (pttype && !(s->pttype = strdup(pttype))) || (ptuuid && !(s->ptuuid = strdup(ptuuid))))
                return -ENOMEM;
        /* the label blkid saw at the start of this very target; one further in (an OSD on
         * the bcache device a backing device carries) is not read there */
        if (streq_ptr(c->fstype, "ceph_bluestore") && c->osd.osd_fsid) {
                /* only a whoami the label itself carries: an id the controller named a DB/WAL
                 * label by (from the OSD map) is not on it, and the agent compares the label
                 * (agent-inuse.c expect_osd()); that label is still known by its osd uuid */
                s->whoami = c->osd.id_from_map ? -1 : c->osd.id;
                if (!(s->osd_uuid = strdup(c->osd.osd_fsid)) ||
                    (c->osd.cluster_fsid && !(s->ceph_fsid = strdup(c->osd.cluster_fsid))))
                        return -ENOMEM;
        }
        return 0;
}

static int seen_device(StepSeen *s, const InvDevice *d) {
        return seen_content(s, d, d->size, &d->content, d->pttype, d->ptuuid);
}

static int seen_partition(StepSeen *s, const InvDevice *disk, const InvPartition *p) {
        if (seen_content(s, disk, p->size, &p->content, NULL, NULL) < 0)
                return -ENOMEM;
        s->start = p->start;
        return p->partuuid && !(s->partuuid = strdup(p->partuuid)) ? -ENOMEM : 0;
}

int plan_seen_device(StepSeen *s, const InvDevice *d) {
        return seen_device(s, d);
}

int plan_seen_partition(StepSeen *s, const InvDevice *disk, const InvPartition *p) {
        return seen_partition(s, disk, p);
}

void plan_seen_done(StepSeen *s) {
        seen_done(s);
}

/* A partition of the layout on `disk`: as seen when it exists, else one this plan creates
 * (whose bytes nobody has looked at): its size. */
static int seen_slot_part(StepSeen *s, const InvDevice *disk, const SlotPart *sp) {
        if (sp->existing)
                return seen_partition(s, disk, sp->existing);
        return seen_size(s, NULL, sp->size);
}

static unsigned add_step(Ctx *c, StepKind kind, const char *device, char *reason) {
        HostPlan *hp = c->hp;
        if (!reason)
                return 0;
        if (hp->n_steps == c->steps_cap) {
                /* doubling: a host of 24 OSDs has ~170 steps */
                size_t cap = c->steps_cap ? 2 * c->steps_cap : 32;
                Step *n = realloc(hp->steps, sizeof(Step) * cap);
                if (!n) {
                        free(reason);
                        return 0;
                }
                hp->steps = n;
                c->steps_cap = cap;
        }
        Step *s = &hp->steps[hp->n_steps];
        *s = (Step) {
                .id = (unsigned) hp->n_steps + 1,
                .kind = kind,
                .device = strdup(device),
                .reason = reason,
                .osd_id = -1,
        };
        hp->n_steps++;
        if (!s->device)
                return 0;
        return s->id;
}

static Step *step_get(Ctx *c, unsigned id) {
        return &c->hp->steps[id - 1];
}

static int step_dep(Ctx *c, unsigned id, unsigned dep) {
        if (dep == 0)
                return 0;
        Step *s = step_get(c, id);
        for (size_t i = 0; i < s->n_deps; i++)
                if (s->deps[i] == dep)
                        return 0;
        unsigned *n = realloc(s->deps, sizeof(unsigned) * (s->n_deps + 1));
        if (!n)
                return -ENOMEM;
        s->deps = n;
        s->deps[s->n_deps++] = dep;
        return 0;
}

static const char *in_use_reason(const InvContent *ct, char *buf, size_t len) {
        if (ct->mountpoint)
                snprintf(buf, len, "mounted at %s", ct->mountpoint);
        else if (ct->swap_active)
                snprintf(buf, len, "active swap");
        else if (ct->holders && ct->holders[0])
                snprintf(buf, len, "held by %s", ct->holders[0]);
        else
                return NULL;
        return buf;
}

/* The main label of a half-made BlueStore OSD on the data device (or its bcache device). */
static const InvOsd *half_made_osd(const Inventory *inv, const InvDevice *d) {
        const InvOsd *o = &d->content.osd;
        if (o->incomplete && o->osd_fsid)
                return o;
        if (d->content.bcache.role == BCACHE_ROLE_BACKING && d->content.bcache.bcache_device) {
                const InvDevice *b = inventory_find_device(inv, d->content.bcache.bcache_device);
                if (b && b->content.osd.incomplete && b->content.osd.osd_fsid)
                        return &b->content.osd;
        }
        return NULL;
}

static bool keep_listed(const Profile *p, unsigned number) {
        for (size_t i = 0; i < p->n_keep_partitions; i++)
                if (p->keep_partitions[i] == number)
                        return true;
        return false;
}

static bool partition_is_ours(const Ctx *c, const InvPartition *p) {
        return plan_partition_is_ours(c->host->name, p);
}

static uint64_t resolve_size(const SizeSpec *s, uint64_t device_size) {
        return plan_resolve_size(s, device_size);
}

/* What one signature is, for people: "xfs 'backup-data'", "LVM2_member", "an OSD (osd.3)". */
static char *content_text(const InvContent *ct) {
        if (ct->osd.id >= 0)
                return strprintf("osd.%d's %s", ct->osd.id, ct->osd.role ? ct->osd.role : "data");
        if (!ct->fstype)
                return NULL;
        return ct->label ? strprintf("%s '%s'", ct->fstype, ct->label) : strdup(ct->fstype);
}

/* "wipe signatures and partition table of /dev/sdc (wipe: true): 1.8 TiB, a gpt table of 2
 * partitions (xfs 'backup-data', LVM2_member)": what the wipe destroys, as the inventory
 * saw it. */
static char *wipe_description(const InvDevice *d) {
        char sz[SIZE_FORMAT_MAX];
        _cleanup_(freep) char *what = NULL;
        if (d->pttype) {
                _cleanup_strv_free_ char **parts = NULL;
                for (size_t i = 0; i < d->n_partitions; i++) {
                        char *t = content_text(&d->partitions[i].content);
                        if (t && strv_consume(&parts, t) < 0)
                                return NULL;
                }
                _cleanup_(freep) char *list = parts ? strv_join(parts, ", ") : NULL;
                what = strprintf("a %s table of %zu partition%s%s%s%s", d->pttype, d->n_partitions,
                                 d->n_partitions == 1 ? "" : "s", list ? " (" : "", list ?: "", list ? ")" : "");
        } else
                what = content_text(&d->content);
        return strprintf("wipe signatures and partition table of %s (wipe: true): %s, %s", d->path,
                         size_format(d->size, sz, sizeof sz), what ? what : "no signature found");
}

static const char *device_class_auto(const InvDevice *d) {
        if (d->rotational)
                return "hdd";
        if (startswith(d->name, "nvme"))
                return "nvme";
        return "ssd";
}

/* ---- fast devices ---- */

static int fast_add_used(FastState *f, uint64_t start, uint64_t end) {
        return plan_extents_add(&f->used, &f->n_used, start, end);
}

/* Walk the free extents between used ones within the usable range; returns the aligned
 * start of the first fitting `size`, or UINT64_MAX; *ret_largest gets the largest aligned
 * free extent. */
static uint64_t fast_find_free(const FastState *f, uint64_t size, uint64_t *ret_largest) {
        return plan_extents_find_free(f->used, f->n_used, f->first, f->last, size, ret_largest, NULL);
}

/* All the aligned free space left in the usable range. */
static uint64_t fast_free_total(const FastState *f) {
        uint64_t total = 0;
        (void) plan_extents_find_free(f->used, f->n_used, f->first, f->last, 0, NULL, &total);
        return total;
}

static unsigned fast_next_number(const FastState *f) {
        for (unsigned n = 1; n <= GPT_MAX_PARTITIONS; n++)
                if (!f->numbers[n])
                        return n;
        return 0;
}

/* The existing partition of `role` that serves slot s on its fast device, not taken yet. */
static Owned *slot_find_partition(Ctx *c, const Slot *s, PartRole role) {
        if (s->fast < 0 || c->fast[s->fast].blank)
                return NULL;
        for (size_t k = 0; k < c->n_owned; k++) {
                Owned *o = &c->owned[k];
                if (!o->taken && o->owner == s->data && o->role == role && o->dev == c->fast[s->fast].dev)
                        return o;
        }
        return NULL;
}

static int fast_analyze(Ctx *c, FastState *f) {
        const InvDevice *d = f->dev;
        const Profile *p = c->profile;
        char why[256], buf[128];
        bool foreign = false;
        char hint[300];
        snprintf(hint, sizeof(hint), "set wipe: true in profile '%s' to wipe it", p->name);

        if (in_use_reason(&d->content, buf, sizeof(buf)))
                return error_set(c->err, EBUSY, "host '%s': fast device '%s' is in use (%s)",
                                 c->host->name, d->path, buf);

        /* keep_partitions first: a missing one most likely means the wrong device */
        for (size_t k = 0; k < p->n_keep_partitions; k++) {
                bool found = false;
                for (size_t i = 0; i < d->n_partitions; i++)
                        if (d->partitions[i].number == p->keep_partitions[k])
                                found = true;
                if (!found)
                        return error_set(c->err, ENOENT,
                                         "host '%s': partition %u listed in keep_partitions of profile '%s' not found on fast device '%s' (wrong device?)",
                                         c->host->name, p->keep_partitions[k], p->name, d->path);
        }

        if (d->content.fstype) {
                foreign = true;
                snprintf(why, sizeof(why), "carries an existing %s signature", d->content.fstype);
        } else if (d->pttype && !streq(d->pttype, "gpt")) {
                foreign = true;
                snprintf(why, sizeof(why), "has a %s partition table (cephprov needs GPT)", d->pttype);
        } else {
                for (size_t i = 0; i < d->n_partitions; i++) {
                        const InvPartition *pt = &d->partitions[i];
                        if (keep_listed(p, pt->number) || partition_is_ours(c, pt))
                                continue;
                        foreign = true;
                        snprintf(why, sizeof(why),
                                 "carries partition %u ('%s', %s) that is neither cephprov's nor in keep_partitions",
                                 pt->number, pt->name ?: "", fmt_size(pt->size, buf));
                        /* Keeping it is the likely intent (an md member, a boot partition);
                         * wipe: true cannot help once the device has partitions to keep. */
                        if (p->n_keep_partitions > 0)
                                snprintf(hint, sizeof(hint), "add %u to keep_partitions in profile '%s' to keep it",
                                         pt->number, p->name);
                        else
                                snprintf(hint, sizeof(hint),
                                         "add %u to keep_partitions in profile '%s' to keep it, or set wipe: true there to wipe the whole device",
                                         pt->number, p->name);
                        break;
                }
        }

        if (foreign) {
                if (!p->wipe)
                        return error_set(c->err, EEXIST, "host '%s': fast device '%s' %s; refusing to touch it (%s)",
                                         c->host->name, d->path, why, hint);
                if (p->n_keep_partitions > 0)
                        return error_set(c->err, EEXIST,
                                         "host '%s': fast device '%s' %s and cannot be wiped: it has partitions to keep",
                                         c->host->name, d->path, why);
                for (size_t i = 0; i < d->n_partitions; i++) {
                        const InvContent *pc = &d->partitions[i].content;
                        if (pc->osd.id >= 0)
                                snprintf(buf, sizeof(buf), "holds the %s of osd.%d", pc->osd.role ?: "data", pc->osd.id);
                        else if (!in_use_reason(pc, buf, sizeof(buf)))
                                continue;
                        return error_set(c->err, EBUSY,
                                         "host '%s': fast device '%s' partition %u is in use (%s); refusing to wipe it",
                                         c->host->name, d->path, d->partitions[i].number, buf);
                }
                f->wipe = true;
                f->gpt = true;
                f->blank = true;
        } else if (!d->pttype) {
                f->gpt = true;
                f->blank = true;
        }

        if (f->blank || (d->first_usable == 0 && d->last_usable == 0)) {
                f->first = BLANK_GPT_MARGIN;
                f->last = d->size > 2 * BLANK_GPT_MARGIN ? d->size - BLANK_GPT_MARGIN - 1 : 0;
        } else {
                f->first = d->first_usable;
                f->last = d->last_usable;
        }

        if (!f->blank)
                for (size_t i = 0; i < d->n_partitions; i++) {
                        const InvPartition *pt = &d->partitions[i];
                        if (fast_add_used(f, pt->start, pt->start + pt->size) < 0)
                                return oom(c);
                        if (pt->number <= GPT_MAX_PARTITIONS)
                                f->numbers[pt->number] = true;
                        if (partition_is_ours(c, pt))
                                f->used_bytes += pt->size;
                }
        return 0;
}

/* ---- data devices ---- */

static int data_analyze(Ctx *c, Slot *s) {
        const InvDevice *d = s->data;
        const Profile *p = c->profile;
        char buf[128], why[256];

        s->osd = plan_find_osd(c->inv, d, false);
        if (s->osd && c->layout->fsid && s->osd->cluster_fsid && strcasecmp(c->layout->fsid, s->osd->cluster_fsid) != 0)
                return error_set(c->err, EEXIST,
                                 "host '%s': data device '%s' carries osd.%d of another cluster (fsid %s, the layout says %s)",
                                 c->host->name, d->path, s->osd->id, s->osd->cluster_fsid, c->layout->fsid);
        if (s->osd) {
                /* an OSD is ours to keep: mounts and holders are its own — of the partition
                 * holding it (FileStore's data), not of another partition of the device */
                for (size_t i = 0; i < d->n_partitions; i++)
                        if (&d->partitions[i].content.osd != s->osd &&
                            in_use_reason(&d->partitions[i].content, buf, sizeof(buf)))
                                return error_set(c->err, EBUSY, "host '%s': data device '%s' partition %u is in use (%s)",
                                                 c->host->name, d->path, d->partitions[i].number, buf);
                if (s->osd->objectstore && !streq(s->osd->objectstore, objectstore_to_string(p->osd.objectstore))) {
                        s->convert = true;
                        /* apply never rebuilds an OSD: the convert verb does, host by host */
                        char *note = strprintf("osd.%d on %s is %s, the layout wants %s: apply leaves it as it is; "
                                               "`cephprov convert` rebuilds it as %s with its id (`cephprov convert "
                                               "--dry-run` shows how)",
                                               s->osd->id, d->path, s->osd->objectstore,
                                               objectstore_to_string(p->osd.objectstore),
                                               objectstore_to_string(p->osd.objectstore));
                        if (strv_consume(&c->hp->notes, note) < 0)
                                return oom(c);
                }
                return 0;
        }

        bool backing_ok = p->bcache.enabled && d->content.bcache.role == BCACHE_ROLE_BACKING;
        if (d->content.mountpoint || d->content.swap_active ||
            (d->content.holders && d->content.holders[0] &&
             !(backing_ok && startswith(d->content.holders[0], "bcache"))))
                return error_set(c->err, EBUSY, "host '%s': data device '%s' is in use (%s)",
                                 c->host->name, d->path, in_use_reason(&d->content, buf, sizeof(buf)));
        for (size_t i = 0; i < d->n_partitions; i++)
                if (in_use_reason(&d->partitions[i].content, buf, sizeof(buf)))
                        return error_set(c->err, EBUSY, "host '%s': data device '%s' partition %u is in use (%s)",
                                         c->host->name, d->path, d->partitions[i].number, buf);

        /* A half-made OSD (mkfs killed or failed before "ready"): the planner cannot know
         * whose it is; the OSD step carries what it saw, and apply redoes it only when its
         * journal and the OSD map prove cephprov started it (else the step is refused). With
         * wipe: true it is just foreign data, wiped below like any other. */
        const InvOsd *hm = half_made_osd(c->inv, d);
        if (hm && !p->wipe) {
                if (c->layout->fsid && hm->cluster_fsid && strcasecmp(c->layout->fsid, hm->cluster_fsid) != 0)
                        return error_set(c->err, EEXIST,
                                         "host '%s': data device '%s' carries a half-made OSD of another cluster (fsid %s, the layout says %s)",
                                         c->host->name, d->path, hm->cluster_fsid, c->layout->fsid);
                s->half_made = hm;
                char *note = strprintf("%s carries a half-made BlueStore OSD (osd uuid %s, its mkfs never finished): "
                                       "apply redoes it if cephprov started it, and refuses otherwise",
                                       d->path, hm->osd_fsid);
                if (strv_consume(&c->hp->notes, note) < 0)
                        return oom(c);
                return 0;
        }

        /* a DB/WAL/journal of some OSD: wiping it would kill that OSD, whatever `wipe` says */
        if (d->content.osd.id >= 0)
                return error_set(c->err, EBUSY, "host '%s': data device '%s' holds the %s of osd.%d",
                                 c->host->name, d->path, d->content.osd.role ?: "data", d->content.osd.id);
        for (size_t i = 0; i < d->n_partitions; i++)
                if (d->partitions[i].content.osd.id >= 0)
                        return error_set(c->err, EBUSY, "host '%s': data device '%s' partition %u holds the %s of osd.%d",
                                         c->host->name, d->path, d->partitions[i].number,
                                         d->partitions[i].content.osd.role ?: "data", d->partitions[i].content.osd.id);

        bool foreign = false;
        if (d->content.fstype && !(backing_ok && streq(d->content.fstype, "bcache"))) {
                foreign = true;
                snprintf(why, sizeof(why), "carries an existing %s signature", d->content.fstype);
        } else if (d->pttype || d->n_partitions > 0) {
                foreign = true;
                snprintf(why, sizeof(why), "has a %s partition table with %zu partition%s",
                         d->pttype ?: "", d->n_partitions, d->n_partitions == 1 ? "" : "s");
        }
        if (foreign) {
                if (!p->wipe)
                        return error_set(c->err, EEXIST,
                                         "host '%s': data device '%s' %s; refusing to touch it (set wipe: true in profile '%s' to wipe it)",
                                         c->host->name, d->path, why, p->name);
                s->wipe = true;
        }
        return 0;
}

/* ---- step emission ---- */

/* The layout's size for a role's partitions (its position names the line in messages). */
static const SizeSpec *role_size(const Profile *p, PartRole role) {
        switch (role) {
        case PART_ROLE_DB: return &p->db_size;
        case PART_ROLE_WAL: return &p->wal_size;
        case PART_ROLE_CACHE: return &p->bcache.cache_size;
        default: return &p->journal_size;
        }
}

/* What the layout's new partitions on fast device j need in all (those not there yet). */
static uint64_t fast_needed(Ctx *c, size_t j) {
        uint64_t need = 0;
        for (size_t i = 0; i < c->n_slots; i++) {
                const Slot *s = &c->slots[i];
                if (s->fast != (int) j || (s->osd && !s->convert))
                        continue;
                for (unsigned role = PART_ROLE_DB; role < _PART_ROLE_MAX_; role++)
                        if (s->parts[role].wanted && !s->parts[role].existing && !slot_find_partition(c, s, role))
                                need += s->parts[role].size;
        }
        return need;
}

static int emit_partition(Ctx *c, Slot *s, size_t slot, PartRole role) {
        SlotPart *sp = &s->parts[role];
        FastState *f = &c->fast[s->fast];
        char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX];

        if (!sp->wanted)
                return 0;

        const SizeSpec *spec = role_size(c->profile, role);
        Owned *own = slot_find_partition(c, s, role);
        if (own) {
                const InvPartition *ex = own->pt;
                if (ex->size < sp->size)
                        return fail_at(c, ENOSPC, spec->mark,
                                       "host '%s': existing partition %u '%s' on '%s' is %s, the layout wants %s (cephprov never resizes partitions)",
                                       c->host->name, ex->number, ex->name, f->dev->path,
                                       fmt_size(ex->size, a), fmt_size(sp->size, b));
                own->taken = true;
                sp->existing = ex;
                sp->partnum = ex->number;
                /* its own name, legacy or not: the partition is found by it at act time */
                if (!(sp->name = strdup(ex->name)))
                        return oom(c);
                return 0;
        }
        sp->name = plan_partition_name(c->host->name, role, s->tag);
        if (!sp->name)
                return oom(c);

        uint64_t largest;
        uint64_t off = fast_find_free(f, sp->size, &largest);
        if (off == UINT64_MAX) {
                /* what is needed against what is there: this partition against the largest
                 * hole, and all the layout's new partitions on the device against its free
                 * space before the plan, so the operator sees by how much to shrink */
                char need[SIZE_FORMAT_MAX], free_before[SIZE_FORMAT_MAX];
                fmt_size(fast_needed(c, (size_t) s->fast), need);
                fmt_size(fast_free_total(f) + f->planned_bytes, free_before);
                return fail_at(c, ENOSPC, spec->mark,
                               "host '%s': not enough free space on '%s' for the %s %s partition of slot %zu (%s): "
                               "it needs %s, the largest free extent is %s; the layout's new partitions there need %s "
                               "in all, and %s is free before the plan",
                               c->host->name, f->dev->path, fmt_size(sp->size, a), part_role_title(role), slot,
                               s->data->path, a, fmt_size(largest, b), need, free_before);
        }
        unsigned num = fast_next_number(f);
        if (num == 0)
                return error_set(c->err, ENOSPC, "host '%s': no free GPT partition entry on '%s' for slot %zu",
                                 c->host->name, f->dev->path, slot);

        unsigned id = add_step(c, STEP_CREATE_PARTITION, f->dev->path,
                               strprintf("%s partition for slot %zu (%s)", part_role_title(role), slot, s->data->path));
        if (id == 0)
                return oom(c);
        Step *st = step_get(c, id);
        st->partnum = num;
        st->offset = off;
        st->size = sp->size;
        st->partname = strdup(sp->name);
        st->type_guid = part_role_guid(role);
        st->role = role;
        st->slot = (unsigned) slot;
        if (!st->partname)
                return oom(c);
        /* a GPT the plan creates has a disk GUID nobody knows yet */
        if (f->gpt ? seen_size(&st->seen, f->dev, f->dev->size) < 0 : seen_device(&st->seen, f->dev) < 0)
                return oom(c);
        /* partition table edits on one device run one after the other */
        if (step_dep(c, id, f->last_part_step ?: f->gpt_step) < 0)
                return oom(c);
        f->last_part_step = id;
        f->numbers[num] = true;
        f->used_bytes += sp->size;
        f->planned_bytes += sp->size;
        if (fast_add_used(f, off, off + sp->size) < 0)
                return oom(c);
        sp->partnum = num;
        sp->step = id;
        return 0;
}

static int emit_bcache(Ctx *c, size_t slot, StepKind phase) {
        Slot *s = &c->slots[slot];
        const Profile *p = c->profile;
        const SlotPart *cp = &s->parts[PART_ROLE_CACHE];
        const InvDevice *d = s->data;
        const char *fastpath = c->fast[s->fast].dev->path;

        bool cache_ready = cp->existing && cp->existing->content.bcache.role == BCACHE_ROLE_CACHE;
        bool backing_ready = !s->wipe && d->content.bcache.role == BCACHE_ROLE_BACKING;
        const InvBcache *bb = &d->content.bcache;
        bool attached = cache_ready && backing_ready && bb->set_uuid &&
                        streq_ptr(bb->set_uuid, cp->existing->content.bcache.set_uuid);
        /* sysfs values as the inventory shows them; unknown (no cache_mode) counts as untuned */
        bool tuned = backing_ready && bb->cache_mode &&
                     streq(bb->cache_mode, bcache_cache_mode_to_string(p->bcache.cache_mode)) &&
                     bb->sequential_cutoff == p->bcache.sequential_cutoff &&
                     (bb->writeback_percent < 0 || (unsigned) bb->writeback_percent == p->bcache.writeback_percent);
        unsigned id;

        if (s->osd) {
                /* an existing OSD's bcache is only re-tuned (drifted settings), never rebuilt */
                if (phase != STEP_BCACHE_TUNE || !backing_ready || !bb->cache_mode || tuned)
                        return 0;
        }

        switch (phase) {
        case STEP_MAKE_BCACHE_CACHE:
                if (cache_ready)
                        return 0;
                id = add_step(c, STEP_MAKE_BCACHE_CACHE, fastpath,
                              strprintf("bcache cache superblock on partition %u for slot %zu (%s)",
                                        cp->partnum, slot, d->path));
                if (id == 0)
                        return oom(c);
                s->mk_cache_step = id;
                if (seen_slot_part(&step_get(c, id)->seen, c->fast[s->fast].dev, cp) < 0)
                        return oom(c);
                break;
        case STEP_MAKE_BCACHE_BACKING:
                if (backing_ready)
                        return 0;
                id = add_step(c, STEP_MAKE_BCACHE_BACKING, d->path,
                              strprintf("bcache backing superblock on %s (slot %zu)", d->path, slot));
                if (id == 0)
                        return oom(c);
                s->mk_back_step = id;
                if (s->wipe ? seen_blank(&step_get(c, id)->seen, d, d->size) < 0
                            : seen_device(&step_get(c, id)->seen, d) < 0)
                        return oom(c);
                if (step_dep(c, id, s->wipe_step) < 0)
                        return oom(c);
                break;
        case STEP_BCACHE_ATTACH:
                if (attached)
                        return 0;
                id = add_step(c, STEP_BCACHE_ATTACH, d->path,
                              strprintf("attach %s to the cache set on %s partition %u", d->path, fastpath, cp->partnum));
                if (id == 0)
                        return oom(c);
                s->attach_step = id;
                if (!(step_get(c, id)->part_device = strdup(fastpath)))
                        return oom(c);
                if (step_dep(c, id, s->mk_cache_step) < 0 || step_dep(c, id, s->mk_back_step) < 0)
                        return oom(c);
                break;
        case STEP_BCACHE_TUNE: {
                if (tuned && attached && !s->attach_step)
                        return 0;
                char cut[SIZE_FORMAT_MAX];
                id = add_step(c, STEP_BCACHE_TUNE, d->path,
                              strprintf("cache_mode %s, sequential_cutoff %s, writeback_percent %u (persisted by a udev rule)",
                                        bcache_cache_mode_to_string(p->bcache.cache_mode),
                                        fmt_size(p->bcache.sequential_cutoff, cut), p->bcache.writeback_percent));
                if (id == 0)
                        return oom(c);
                s->tune_step = id;
                if (step_dep(c, id, s->attach_step) < 0)
                        return oom(c);
                break;
        }
        default:
                return 0;
        }
        Step *st = step_get(c, id);
        st->slot = (unsigned) slot;
        st->bcache = p->bcache;
        if (phase != STEP_MAKE_BCACHE_BACKING && cp->name) {
                st->partnum = cp->partnum;
                st->partname = strdup(cp->name);
                st->role = PART_ROLE_CACHE;
                if (!st->partname)
                        return oom(c);
        }
        if (phase == STEP_MAKE_BCACHE_CACHE && step_dep(c, id, cp->step) < 0)
                return oom(c);
        return 0;
}

static int emit_osd(Ctx *c, size_t slot) {
        Slot *s = &c->slots[slot];
        const Profile *p = c->profile;
        const InvDevice *d = s->data;
        const char *fastpath = s->fast >= 0 ? c->fast[s->fast].dev->path : NULL;
        const char *cls = p->osd.device_class && !streq(p->osd.device_class, "auto") ? p->osd.device_class
                                                                                    : device_class_auto(d);
        bool bcache = p->bcache.enabled;

        unsigned id = add_step(c, STEP_CREATE_OSD, d->path,
                               strprintf("%s%s OSD on %s%s (slot %zu)", p->osd.encrypted ? "encrypted " : "",
                                         objectstore_to_string(p->osd.objectstore),
                                         bcache ? "the bcache device of " : "", d->path, slot));
        if (id == 0)
                return oom(c);
        Step *st = step_get(c, id);
        st->slot = (unsigned) slot;
        st->data_is_bcache = bcache;
        st->encrypted = p->osd.encrypted;
        st->objectstore = p->osd.objectstore;
        st->device_class = strdup(cls);
        if (!st->device_class)
                return oom(c);
        if (s->half_made && !(st->half_made_osd_fsid = strdup(s->half_made->osd_fsid)))
                return oom(c);
        const SlotPart *db = &s->parts[PART_ROLE_DB], *wal = &s->parts[PART_ROLE_WAL],
                       *jn = &s->parts[PART_ROLE_JOURNAL];
        if (db->wanted && (!(st->db_device = strdup(fastpath)) || !(st->db_partname = strdup(db->name))))
                return oom(c);
        if (wal->wanted && (!(st->wal_device = strdup(fastpath)) || !(st->wal_partname = strdup(wal->name))))
                return oom(c);
        if (jn->wanted && (!(st->journal_device = strdup(fastpath)) || !(st->journal_partname = strdup(jn->name))))
                return oom(c);
        st->db_partnum = db->partnum;
        st->wal_partnum = wal->partnum;
        /* the data device as seen, unless this plan wipes it or puts bcache on it first */
        if (s->wipe || s->mk_back_step ? seen_size(&st->seen, d, d->size) < 0 : seen_device(&st->seen, d) < 0)
                return oom(c);
        const InvDevice *fdev = s->fast >= 0 ? c->fast[s->fast].dev : NULL;
        if ((db->wanted && seen_slot_part(&st->db_seen, fdev, db) < 0) ||
            (wal->wanted && seen_slot_part(&st->wal_seen, fdev, wal) < 0))
                return oom(c);
        st->journal_partnum = jn->partnum;

        unsigned last_bcache = s->tune_step ?: s->attach_step;
        /* after every partition table edit of its fast device, not only its own partitions':
         * while create-partition holds that disk (its lock, libparted's descriptor, its
         * exclusive open, which the kernel extends to the disk's partitions) the OSD's check
         * of its DB partition is refused (CI: "'/dev/loop27p1' is in use: claimed
         * exclusively by another user"); the edits take a fraction of a second */
        unsigned last_part = s->fast >= 0 ? c->fast[s->fast].last_part_step : 0;
        if (step_dep(c, id, db->step) < 0 || step_dep(c, id, wal->step) < 0 || step_dep(c, id, jn->step) < 0 ||
            step_dep(c, id, last_bcache) < 0 || step_dep(c, id, last_part) < 0)
                return oom(c);
        if (!last_bcache && (step_dep(c, id, s->mk_back_step) < 0 || step_dep(c, id, s->mk_cache_step) < 0 ||
                             step_dep(c, id, s->wipe_step) < 0))
                return oom(c);
        return 0;
}

/* ---- for people: device names, kept partitions, drift ---- */

static const char *device_by_id(const InvDevice *d) {
        const char *wwn = NULL;
        STRV_FOREACH(l, d->links) {
                if (!startswith(*l, "/dev/disk/by-id/"))
                        continue;
                /* the model_serial name is what is printed on the drive's label */
                if (!startswith(*l, "/dev/disk/by-id/wwn-"))
                        return *l;
                if (!wwn)
                        wwn = *l;
        }
        return wwn;
}

static int strdup_opt(const char *s, char **ret) {
        *ret = NULL;
        if (s && !(*ret = strdup(s)))
                return -ENOMEM;
        return 0;
}

static int add_device(Ctx *c, const InvDevice *d, bool fast, bool blank, unsigned slot) {
        HostPlan *hp = c->hp;
        PlanDevice *pd = &hp->devices[hp->n_devices++];
        *pd = (PlanDevice) { .size = d->size, .rotational = d->rotational, .fast = fast, .slot = slot };
        if (strdup_opt(d->path, &pd->path) < 0 || strdup_opt(device_by_id(d), &pd->by_id) < 0 ||
            strdup_opt(d->model, &pd->model) < 0 || strdup_opt(d->serial, &pd->serial) < 0)
                return oom(c);
        if (!fast || blank || d->n_partitions == 0)
                return 0;
        pd->kept = calloc(d->n_partitions, sizeof(PlanKept));
        if (!pd->kept)
                return oom(c);
        for (size_t i = 0; i < d->n_partitions; i++) {
                const InvPartition *pt = &d->partitions[i];
                if (partition_is_ours(c, pt))
                        continue;
                PlanKept *k = &pd->kept[pd->n_kept++];
                *k = (PlanKept) { .number = pt->number, .size = pt->size };
                if (strdup_opt(pt->name, &k->name) < 0 ||
                    strdup_opt(pt->content.holders ? pt->content.holders[0] : NULL, &k->holder) < 0)
                        return oom(c);
        }
        return 0;
}

static int collect_devices(Ctx *c) {
        c->hp->devices = calloc(c->n_fast + c->n_slots + 1, sizeof(PlanDevice));
        if (!c->hp->devices)
                return oom(c);
        for (size_t j = 0; j < c->n_fast; j++)
                if (add_device(c, c->fast[j].dev, true, c->fast[j].blank, 0) < 0)
                        return -ENOMEM;
        for (size_t i = 0; i < c->n_slots; i++)
                if (add_device(c, c->slots[i].data, false, c->slots[i].wipe, (unsigned) i) < 0)
                        return -ENOMEM;
        return 0;
}

static const char *role_unwanted(const Ctx *c, PartRole role) {
        const Profile *p = c->profile;
        bool filestore = p->osd.objectstore == OBJECTSTORE_FILESTORE;
        switch (role) {
        case PART_ROLE_CACHE:
                return "the profile has no bcache";
        case PART_ROLE_DB:
                return filestore ? "the profile wants FileStore, which has no DB" : "the profile has no db_size";
        case PART_ROLE_WAL:
                return filestore ? "the profile wants FileStore, which has no WAL" : "the profile has no wal_size";
        case PART_ROLE_JOURNAL:
                return filestore ? "the profile has no journal_size" : "the profile wants BlueStore, which has no journal";
        default:
                return "unknown role";
        }
}

static int slot_of(const Ctx *c, const InvDevice *d) {
        for (size_t i = 0; i < c->n_slots; i++)
                if (c->slots[i].data == d)
                        return (int) i;
        return -1;
}

static int fast_of(const Ctx *c, const InvDevice *d) {
        for (size_t j = 0; j < c->n_fast; j++)
                if (c->fast[j].dev == d)
                        return (int) j;
        return -1;
}

/* An OSD label whose OSD the cluster still has, or may have (ids not known): its partition
 * is that OSD's until the OSD is purged. */
static bool label_live(const Ctx *c, const InvOsd *label) {
        if (!label)
                return false;
        /* a DB or WAL label carries no id (BlueStore writes whoami on the main label only):
         * nothing shows that OSD purged */
        if (!c->ids_known || label->id < 0)
                return true;
        for (size_t k = 0; k < c->n_ids_in_use; k++)
                if (c->ids_in_use[k] == label->id)
                        return true;
        return false;
}

/* Why a cephprov partition of this host that no slot took is not what the layout asks for;
 * NULL: nothing to say (its fast device is wiped by this plan, or it is the kept partition
 * of an OSD whose data device is gone: a note says so). */
static char *drift_reason(const Ctx *c, const Owned *o) {
        int fast = fast_of(c, o->dev);
        if (fast < 0)
                return strprintf("the profile does not select %s as a fast device", o->dev->path);
        if (c->fast[fast].blank)
                return NULL; /* wiped by this plan: it goes with the table */
        if (!o->owner) {
                if (label_live(c, o->label))
                        return NULL;
                if (o->label)
                        return strprintf("osd.%d, whose %s it held, is gone from the cluster and its data device from the host",
                                         o->label->id, o->label->role ?: "partition");
                /* (a label without an id is live: label_live()) */
                if (o->tag[0])
                        return strprintf("the data device it was made for (%s) is not on the host", o->tag);
                return strprintf("slot %u does not exist: the profile selects %zu data device%s", o->legacy_slot,
                                 c->n_slots, c->n_slots == 1 ? "" : "s");
        }
        int i = slot_of(c, o->owner);
        if (i < 0)
                return strprintf("it serves %s, which the profile does not select as a data device", o->owner->path);
        const Slot *s = &c->slots[i];
        if (s->fast != fast)
                return strprintf("slot %d (%s) has its partitions on %s", i, s->data->path, c->fast[s->fast].dev->path);
        if (!s->parts[o->role].wanted)
                return strdup(role_unwanted(c, o->role));
        return strprintf("%s has another %s partition", s->data->path, part_role_title(o->role));
}

static int collect_drift(Ctx *c) {
        for (size_t k = 0; k < c->n_owned; k++) {
                const Owned *o = &c->owned[k];
                if (o->taken || slot_of(c, o->dev) >= 0)
                        continue; /* used; or on a data device: its partitions were refused or are wiped */
                const InvPartition *pt = o->pt;
                char *why = drift_reason(c, o);
                if (!why)
                        continue;
                /* what still uses it: the operator must not delete that */
                char *use = NULL;
                if (pt->content.osd.id >= 0)
                        use = strprintf("%s; it holds the %s of osd.%d", why, pt->content.osd.role ?: "data",
                                        pt->content.osd.id);
                else if (pt->content.holders && pt->content.holders[0])
                        use = strprintf("%s; it is held by %s", why, pt->content.holders[0]);
                if (use) {
                        free(why);
                        why = use;
                }
                PlanDrift *n = realloc(c->hp->drift, sizeof(PlanDrift) * (c->hp->n_drift + 1));
                if (!n) {
                        free(why);
                        return oom(c);
                }
                c->hp->drift = n;
                int i = o->owner ? slot_of(c, o->owner) : -1;
                n[c->hp->n_drift++] = (PlanDrift) {
                        .device = strdup(o->dev->path), .partnum = pt->number, .partname = strdup(pt->name),
                        .role = o->role, .slot = i >= 0 ? (unsigned) i : o->legacy_slot, .size = pt->size, .reason = why,
                };
                if (!n[c->hp->n_drift - 1].device || !n[c->hp->n_drift - 1].partname)
                        return oom(c);
        }
        return 0;
}

/* ---- identity: which data device each cephprov partition serves ---- */

static bool osd_fsid_eq(const char *a, const char *b) {
        return a && b && strcasecmp(a, b) == 0;
}

/* The data device (not a bcacheN device) whose OSD has this osd uuid, a half-made one too. */
static const InvDevice *device_of_osd(const Inventory *inv, const char *osd_fsid) {
        for (size_t i = 0; i < inv->n_devices; i++) {
                const InvDevice *d = &inv->devices[i];
                if (startswith(d->name, "bcache"))
                        continue;
                const InvOsd *o = plan_find_osd(inv, d, true);
                if (o && osd_fsid_eq(o->osd_fsid, osd_fsid))
                        return d;
        }
        return NULL;
}

static const InvDevice *device_of_cache_set(const Inventory *inv, const char *set_uuid) {
        for (size_t i = 0; i < inv->n_devices; i++) {
                const InvDevice *d = &inv->devices[i];
                if (d->content.bcache.role == BCACHE_ROLE_BACKING && osd_fsid_eq(d->content.bcache.set_uuid, set_uuid))
                        return d;
        }
        return NULL;
}

static const InvDevice *device_of_tag(const Inventory *inv, const char *tag) {
        for (size_t i = 0; i < inv->n_devices; i++) {
                const InvDevice *d = &inv->devices[i];
                if (startswith(d->name, "bcache"))
                        continue;
                char t[PLAN_TAG_MAX];
                plan_device_tag(d, t);
                if (streq(t, tag))
                        return d;
        }
        return NULL;
}

bool plan_inventory_has_osd(const Inventory *inv, int id, const char *osd_fsid) {
        for (size_t i = 0; i < inv->n_devices; i++) {
                const InvDevice *d = &inv->devices[i];
                if (startswith(d->name, "bcache"))
                        continue;
                const InvOsd *o = plan_find_osd(inv, d, true);
                if (o && ((id >= 0 && o->id == id) || osd_fsid_eq(o->osd_fsid, osd_fsid)))
                        return true;
        }
        return false;
}

size_t plan_inventory_unnamed_labels(const Inventory *inv) {
        size_t n = 0;
        for (size_t i = 0; i < inv->n_devices; i++)
                for (size_t k = 0; k < inv->devices[i].n_partitions; k++) {
                        const InvPartition *pt = &inv->devices[i].partitions[k];
                        const InvOsd *l = &pt->content.osd;
                        if (l->id < 0 && l->osd_fsid && l->role && !streq(l->role, "block") && !streq(l->role, "data") &&
                            plan_partition_name_parse(pt->name, NULL, NULL, NULL) && !device_of_osd(inv, l->osd_fsid))
                                n++;
                }
        return n;
}

size_t plan_inventory_set_label_id(Inventory *inv, const char *osd_fsid, int id) {
        size_t n = 0;
        for (size_t i = 0; i < inv->n_devices; i++)
                for (size_t k = 0; k < inv->devices[i].n_partitions; k++) {
                        InvOsd *l = &inv->devices[i].partitions[k].content.osd;
                        if (l->id < 0 && osd_fsid_eq(l->osd_fsid, osd_fsid)) {
                                l->id = id;
                                l->id_from_map = true;
                                n++;
                        }
                }
        return n;
}

size_t plan_inventory_mark_stale_label(Inventory *inv, const char *osd_fsid) {
        size_t n = 0;
        for (size_t i = 0; i < inv->n_devices; i++)
                for (size_t k = 0; k < inv->devices[i].n_partitions; k++) {
                        InvOsd *l = &inv->devices[i].partitions[k].content.osd;
                        if (osd_fsid_eq(l->osd_fsid, osd_fsid) && l->role && !streq(l->role, "block") &&
                            !streq(l->role, "data")) {
                                l->incomplete = true;
                                n++;
                        }
                }
        return n;
}

static int resolve_owners(Ctx *c, const InvDevice **data, size_t n_data) {
        const Inventory *inv = c->inv;
        size_t n = 0;
        for (size_t i = 0; i < inv->n_devices; i++)
                n += inv->devices[i].n_partitions;
        c->owned = calloc(n + 1, sizeof(Owned));
        if (!c->owned)
                return oom(c);
        for (size_t i = 0; i < inv->n_devices; i++) {
                const InvDevice *d = &inv->devices[i];
                for (size_t k = 0; k < d->n_partitions; k++) {
                        const InvPartition *pt = &d->partitions[k];
                        Owned o = { .dev = d, .pt = pt };
                        if (!partition_is_ours(c, pt) || !plan_partition_name_parse(pt->name, &o.role, &o.legacy_slot, o.tag))
                                continue;
                        const InvOsd *l = &pt->content.osd;
                        if (l->osd_fsid && (!l->role || (!streq(l->role, "block") && !streq(l->role, "data")))) {
                                o.label = l;
                                o.owner = device_of_osd(inv, l->osd_fsid);
                                /* an OSD that never booted (the cluster says so): the label of
                                 * an apply killed in its mkfs, not a dead OSD's */
                                if (!o.owner && l->incomplete)
                                        o.label = NULL;
                        } else if (o.role == PART_ROLE_CACHE && pt->content.bcache.role == BCACHE_ROLE_CACHE &&
                                   pt->content.bcache.set_uuid)
                                o.owner = device_of_cache_set(inv, pt->content.bcache.set_uuid);
                        if (!o.owner && !o.label) {
                                if (o.tag[0])
                                        o.owner = device_of_tag(inv, o.tag);
                                else if (o.legacy_slot < n_data && !plan_find_osd(inv, data[o.legacy_slot], false))
                                        /* made before identity names, never labelled: its position */
                                        o.owner = data[o.legacy_slot];
                        }
                        c->owned[c->n_owned++] = o;
                }
        }
        /* a partition with no owner and no label (a bcache cache, a WAL never labelled) goes
         * with the labelled one of the same name: the same OSD's, whose data device is gone */
        for (size_t k = 0; k < c->n_owned; k++) {
                Owned *o = &c->owned[k];
                if (o->owner || o->label)
                        continue;
                for (size_t m = 0; m < c->n_owned && !o->label; m++) {
                        const Owned *x = &c->owned[m];
                        if (!x->owner && x->label && streq(x->tag, o->tag) &&
                            x->legacy_slot == o->legacy_slot)
                                o->label = x->label;
                }
        }
        return 0;
}

/* Fast devices for the slots: where a slot's partitions are, else by the profile's spread
 * among the rest (balanced: the fast device serving the fewest; fill: the first with room).
 * On a blank host this is slot i on fast device i mod n (balanced) or i / data_per_fast
 * (fill); on a converged one, a data device gone or added moves no other slot. */
static int assign_fast(Ctx *c, size_t per) {
        _cleanup_free_ size_t *count = calloc(c->n_fast + 1, sizeof(size_t));
        if (!count)
                return oom(c);
        for (size_t i = 0; i < c->n_slots; i++) {
                Slot *s = &c->slots[i];
                s->fast = -1;
                for (size_t k = 0; k < c->n_owned && s->fast < 0; k++)
                        if (c->owned[k].owner == s->data)
                                s->fast = fast_of(c, c->owned[k].dev);
                if (s->fast >= 0)
                        count[s->fast]++;
        }
        for (size_t i = 0; i < c->n_slots; i++) {
                Slot *s = &c->slots[i];
                if (s->fast >= 0 || c->n_fast == 0)
                        continue;
                for (size_t j = 0; j < c->n_fast; j++) {
                        if (count[j] >= per)
                                continue;
                        if (s->fast < 0 || (c->profile->spread != SPREAD_FILL && count[j] < count[s->fast]))
                                s->fast = (int) j;
                }
                if (s->fast < 0)
                        return error_set(c->err, ERANGE,
                                         "host '%s': no fast device has room for the partitions of %s (data_per_fast %zu)",
                                         c->host->name, s->data->path, per);
                count[s->fast]++;
        }
        return 0;
}

/* "osd.1"; a DB or WAL label has no id: "the OSD of osd uuid 2a4f..." */
static const char *label_who(const InvOsd *l, char *buf, size_t len) {
        if (l->id >= 0)
                snprintf(buf, len, "osd.%d", l->id);
        else
                snprintf(buf, len, "the OSD of osd uuid %s", l->osd_fsid ?: "unknown");
        return buf;
}

/* The kept partitions of OSDs whose data device is gone: notes for people, and no new OSD on
 * this host while there is one (a blank disk in a dead one's place is `replace`'s, never a
 * new id beside a ghost). */
static int check_orphans(Ctx *c) {
        const char *hn = c->host->name;
        const Owned *first = NULL;
        char who[96], purge[160];
        for (size_t k = 0; k < c->n_owned; k++) {
                const Owned *o = &c->owned[k];
                if (o->owner || !label_live(c, o->label))
                        continue;
                bool seen = false;
                for (size_t m = 0; m < k; m++)
                        if (!c->owned[m].owner && c->owned[m].label &&
                            osd_fsid_eq(c->owned[m].label->osd_fsid, o->label->osd_fsid))
                                seen = true;
                if (seen)
                        continue;
                if (!first)
                        first = o;
                label_who(o->label, who, sizeof who);
                char *note = strprintf("%s's data device is gone: its %s partition %u '%s' on %s is kept for it "
                                       "(once a new disk is in, `cephprov replace LAYOUT %s DEVICE` rebuilds it there "
                                       "with its id; if it is gone for good, purge it and delete its partitions)",
                                       who, part_role_title(o->role), o->pt->number, o->pt->name, o->dev->path, hn);
                if (strv_consume(&c->hp->notes, note) < 0)
                        return oom(c);
        }
        if (!first)
                return 0;
        label_who(first->label, who, sizeof who);
        if (first->label->id >= 0)
                snprintf(purge, sizeof purge, "`ceph osd purge %d`", first->label->id);
        else
                snprintf(purge, sizeof purge, "`ceph osd purge ID`, the id that `ceph osd dump` gives uuid %s",
                         first->label->osd_fsid ?: "unknown");
        for (size_t i = 0; i < c->n_slots; i++) {
                const Slot *s = &c->slots[i];
                if (s->osd || s->half_made)
                        continue;
                _cleanup_free_ char *id = plan_device_identity(s->data);
                return error_set(c->err, EEXIST,
                                 "host '%s': %s's data device is gone (its %s partition %u '%s' on %s carries its label) "
                                 "and %s%s%s%s carries no OSD: cephprov builds no new OSD beside a dead one. If %s took "
                                 "its place, `cephprov replace LAYOUT %s %s` rebuilds %s there with its id (a "
                                 "`cephprov convert` that was rebuilding it: run it again); if it is gone for good, "
                                 "purge it (%s) and delete its partitions first",
                                 hn, who, part_role_title(first->role), first->pt->number, first->pt->name,
                                 first->dev->path, s->data->path, id ? " (" : "", id ?: "", id ? ")" : "",
                                 s->data->path, hn, s->data->path, who, purge);
        }
        return 0;
}

static void ctx_done(Ctx *c) {
        for (size_t i = 0; i < c->n_slots; i++)
                for (unsigned r = 0; r < _PART_ROLE_MAX_; r++)
                        free(c->slots[i].parts[r].name);
        free(c->slots);
        free(c->owned);
        for (size_t i = 0; i < c->n_fast; i++)
                free(c->fast[i].used);
        free(c->fast);
        free(c->allowed);
}

static int plan_host(Ctx *c) {
        const Profile *p = c->profile;
        const char *hn = c->host->name;
        _cleanup_free_ const InvDevice **data = NULL, **fast = NULL;
        size_t n_data = 0, n_fast = 0;
        int r;

        if (p->osd.per_device > 1)
                return error_set(c->err, EOPNOTSUPP, "host '%s': profile '%s': per_device %u is not supported by the planner yet",
                                 hn, p->name, p->osd.per_device);

        c->allowed = malloc(c->inv->n_devices + 1);
        if (!c->allowed)
                return oom(c);
        memset(c->allowed, -1, c->inv->n_devices + 1);
        r = select_devices(c, &p->data, "data", &data, &n_data);
        if (r < 0)
                return r;
        if (p->fast.set) {
                r = select_devices(c, &p->fast, "fast", &fast, &n_fast);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < n_data; i++)
                for (size_t j = 0; j < n_fast; j++)
                        if (data[i] == fast[j])
                                return error_set(c->err, EINVAL, "host '%s': device '%s' is selected both as data and as fast device",
                                                 hn, data[i]->path);
        if (n_data == 0) {
                char why[768];
                plan_explain_no_match(&p->data, c->host, c->inv, why, sizeof why);
                return fail_at(c, ENODEV, p->data.size_mark.line > 0 ? p->data.size_mark : p->data.mark,
                               "host '%s': profile '%s' selects no data device%s%s: %s", hn, p->name,
                               p->data.size_text ? " of size " : "", p->data.size_text ?: "", why);
        }

        bool filestore = p->osd.objectstore == OBJECTSTORE_FILESTORE;
        bool want_db = !filestore && p->db_size.kind != SIZE_UNSET;
        bool want_wal = !filestore && p->wal_size.kind != SIZE_UNSET;
        bool want_journal = filestore && p->journal_size.kind != SIZE_UNSET;
        bool want_cache = p->bcache.enabled;
        if ((want_db || want_wal || want_journal || want_cache) && n_fast == 0) {
                char why[768] = "";
                if (p->fast.set && !p->fast.devices)
                        plan_explain_no_match(&p->fast, c->host, c->inv, why, sizeof why);
                return fail_at(c, ENODEV, p->fast.size_mark.line > 0 ? p->fast.size_mark : p->fast.mark,
                               "host '%s': profile '%s' needs fast devices for %s but selects none%s%s%s%s", hn, p->name,
                               want_cache ? "bcache caches" : want_db ? "DB partitions" : want_wal ? "WAL partitions" : "journals",
                               p->fast.size_text ? " of size " : "", p->fast.size_text ?: "", why[0] ? ": " : "", why);
        }

        /* data → fast assignment */
        c->slots = calloc(n_data, sizeof(Slot));
        c->fast = calloc(n_fast + 1, sizeof(FastState));
        if (!c->slots || !c->fast)
                return oom(c);
        c->n_slots = n_data;
        c->n_fast = n_fast;
        size_t per = n_fast == 0 ? 0 : p->data_per_fast ? p->data_per_fast : (n_data + n_fast - 1) / n_fast;
        if (n_fast > 0 && n_data > n_fast * per)
                return error_set(c->err, ERANGE,
                                 "host '%s': %zu data devices but %zu fast device%s with data_per_fast %zu give %zu slots",
                                 hn, n_data, n_fast, n_fast == 1 ? "" : "s", per, n_fast * per);
        for (size_t i = 0; i < n_data; i++) {
                Slot *s = &c->slots[i];
                s->data = data[i];
                plan_device_tag(data[i], s->tag);
        }
        for (size_t j = 0; j < n_fast; j++)
                c->fast[j].dev = fast[j];
        r = resolve_owners(c, data, n_data);
        if (r < 0)
                return r;

        /* analysis: safety checks and what exists */
        for (size_t j = 0; j < n_fast; j++) {
                r = fast_analyze(c, &c->fast[j]);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < n_data; i++) {
                Slot *s = &c->slots[i];
                r = data_analyze(c, s);
                if (r < 0)
                        return r;
        }
        r = check_orphans(c);
        if (r < 0)
                return r;
        r = assign_fast(c, per);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n_data; i++) {
                Slot *s = &c->slots[i];
                if (s->fast < 0)
                        continue;
                uint64_t fsize = c->fast[s->fast].dev->size;
                s->parts[PART_ROLE_DB] = (SlotPart) { .wanted = want_db, .size = resolve_size(&p->db_size, fsize) };
                s->parts[PART_ROLE_WAL] = (SlotPart) { .wanted = want_wal, .size = resolve_size(&p->wal_size, fsize) };
                s->parts[PART_ROLE_CACHE] = (SlotPart) { .wanted = want_cache, .size = resolve_size(&p->bcache.cache_size, fsize) };
                s->parts[PART_ROLE_JOURNAL] = (SlotPart) { .wanted = want_journal, .size = resolve_size(&p->journal_size, fsize) };
                for (unsigned role = PART_ROLE_DB; role < _PART_ROLE_MAX_; role++)
                        if (s->parts[role].wanted && s->parts[role].size == 0)
                                return fail_at(c, EINVAL, role_size(p, role)->mark,
                                               "host '%s': %s partition size resolves to 0 on '%s'",
                                               hn, part_role_title(role), c->fast[s->fast].dev->path);
        }

        /* A DB written as a share of the fast device: Ceph's recommendation is a share of the
         * data device (1 % to 4 %, BlueStore's configuration reference, "Sizing"); say it when
         * the two disagree, with both figures */
        if (want_db && p->db_size.kind == SIZE_SHARE) {
                double lo = 1, hi = 0;
                uint64_t db_lo = 0, db_hi = 0, data_lo = 0, data_hi = 0;
                for (size_t i = 0; i < n_data; i++) {
                        const Slot *s = &c->slots[i];
                        if (s->fast < 0 || s->data->size == 0)
                                continue;
                        double share = (double) s->parts[PART_ROLE_DB].size / (double) s->data->size;
                        if (share < lo) {
                                lo = share;
                                data_lo = s->data->size;
                                db_lo = s->parts[PART_ROLE_DB].size;
                        }
                        if (share > hi) {
                                hi = share;
                                data_hi = s->data->size;
                                db_hi = s->parts[PART_ROLE_DB].size;
                        }
                }
                if (hi > 0 && (lo < 0.01 || hi > 0.04)) {
                        char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX], x[SIZE_FORMAT_MAX], y[SIZE_FORMAT_MAX];
                        uint64_t dsize = lo < 0.01 ? data_lo : data_hi, db = lo < 0.01 ? db_lo : db_hi;
                        char *w = strprintf("db_size %g%% (line %u) is a share of the fast device: %s per OSD, %.2g%% of "
                                            "its %s data device; Ceph recommends a DB of 1%% to 4%% of the data device "
                                            "(%s to %s here): write db_size in bytes, or a share that lands there",
                                            p->db_size.share * 100, p->db_size.mark.line, size_format(db, a, sizeof a),
                                            (lo < 0.01 ? lo : hi) * 100, size_format(dsize, b, sizeof b),
                                            size_format(dsize / 100, x, sizeof x), size_format(dsize / 25, y, sizeof y));
                        if (!w || strv_consume(&c->hp->warnings, w) < 0)
                                return oom(c);
                }
        }

        /* phase 1: wipes, fast devices first; each says what it destroys */
        for (size_t j = 0; j < n_fast; j++) {
                FastState *f = &c->fast[j];
                if (!f->wipe)
                        continue;
                f->wipe_step = add_step(c, STEP_WIPE, f->dev->path, wipe_description(f->dev));
                if (!f->wipe_step || seen_device(&step_get(c, f->wipe_step)->seen, f->dev) < 0)
                        return oom(c);
                c->hp->n_wipes++;
                c->hp->wipe_bytes += f->dev->size;
        }
        for (size_t i = 0; i < n_data; i++) {
                Slot *s = &c->slots[i];
                if (!s->wipe)
                        continue;
                s->wipe_step = add_step(c, STEP_WIPE, s->data->path, wipe_description(s->data));
                if (!s->wipe_step || seen_device(&step_get(c, s->wipe_step)->seen, s->data) < 0)
                        return oom(c);
                c->hp->n_wipes++;
                c->hp->wipe_bytes += s->data->size;
        }
        /* phase 2: GPTs */
        for (size_t j = 0; j < n_fast; j++) {
                FastState *f = &c->fast[j];
                if (!f->gpt)
                        continue;
                f->gpt_step = add_step(c, STEP_CREATE_GPT, f->dev->path, strprintf("create an empty GPT on %s", f->dev->path));
                if (!f->gpt_step || step_dep(c, f->gpt_step, f->wipe_step) < 0)
                        return oom(c);
                if (f->wipe ? seen_blank(&step_get(c, f->gpt_step)->seen, f->dev, f->dev->size) < 0
                            : seen_device(&step_get(c, f->gpt_step)->seen, f->dev) < 0)
                        return oom(c);
        }
        /* phase 3: partitions, per fast device in slot order; an OSD already in place needs none */
        for (size_t j = 0; j < n_fast; j++)
                for (size_t i = 0; i < n_data; i++) {
                        Slot *s = &c->slots[i];
                        if (s->fast != (int) j)
                                continue;
                        if (s->osd && !s->convert) {
                                for (unsigned role = PART_ROLE_DB; role < _PART_ROLE_MAX_; role++) {
                                        if (!s->parts[role].wanted)
                                                continue;
                                        Owned *own = slot_find_partition(c, s, role);
                                        if (own) {
                                                own->taken = true;
                                                continue;
                                        }
                                        char *note = strprintf("osd.%d on %s has no %s partition on %s: recreate the OSD to apply the layout",
                                                               s->osd->id, s->data->path, part_role_title(role),
                                                               c->fast[j].dev->path);
                                        if (strv_consume(&c->hp->notes, note) < 0)
                                                return oom(c);
                                }
                                continue;
                        }
                        for (unsigned role = PART_ROLE_DB; role < _PART_ROLE_MAX_; role++) {
                                r = emit_partition(c, s, i, role);
                                if (r < 0)
                                        return r;
                        }
                }
        /* phases 4-7: bcache, in slot order */
        static const StepKind bcache_phases[] = {
                STEP_MAKE_BCACHE_CACHE, STEP_MAKE_BCACHE_BACKING, STEP_BCACHE_ATTACH, STEP_BCACHE_TUNE,
        };
        if (want_cache)
                for (size_t k = 0; k < ELEMENTSOF(bcache_phases); k++)
                        for (size_t i = 0; i < n_data; i++) {
                                r = emit_bcache(c, i, bcache_phases[k]);
                                if (r < 0)
                                        return r;
                        }
        if (want_cache && !c->inv->bcache_available)
                for (size_t i = 0; i < c->hp->n_steps; i++)
                        if (c->hp->steps[i].kind >= STEP_MAKE_BCACHE_BACKING && c->hp->steps[i].kind <= STEP_BCACHE_TUNE) {
                                if (strv_consume(&c->hp->notes,
                                                 strdup("bcache is not available on this host (no /sys/fs/bcache): "
                                                        "the bcache steps need the bcache module loaded")) < 0)
                                        return oom(c);
                                break;
                        }

        /* phase 8: OSDs */
        for (size_t i = 0; i < n_data; i++) {
                const InvOsd *o = c->slots[i].osd;
                /* an OSD is encrypted at its creation: the layout changed since is not applied
                 * to it, and the plan says so (its inventory saw the label through the open
                 * LUKS mapping, or not) */
                if (o && o->id >= 0 && o->objectstore && streq(o->objectstore, "bluestore") &&
                    o->encrypted != c->profile->osd.encrypted &&
                    strv_consume(&c->hp->notes,
                                 strprintf("osd.%d on %s is %sencrypted, the layout says encrypted: %s: left as it is "
                                           "(recreate the OSD to apply the layout)",
                                           o->id, c->slots[i].data->path, o->encrypted ? "" : "not ",
                                           c->profile->osd.encrypted ? "true" : "false")) < 0)
                        return oom(c);
                if (o)
                        continue;
                r = emit_osd(c, i);
                if (r < 0)
                        return r;
        }

        /* results: OSD data devices, blast radius */
        for (size_t i = 0; i < n_data; i++)
                if (strv_extend(&c->hp->osd_data, c->slots[i].data->path) < 0)
                        return oom(c);
        if (n_fast > 0) {
                c->hp->fast = calloc(n_fast, sizeof(FastDeviceUse));
                if (!c->hp->fast)
                        return oom(c);
        }
        for (size_t j = 0; j < n_fast; j++) {
                FastDeviceUse *u = &c->hp->fast[c->hp->n_fast++];
                u->fast_device = strdup(c->fast[j].dev->path);
                if (!u->fast_device)
                        return oom(c);
                for (size_t i = 0; i < n_data; i++)
                        if (c->slots[i].fast == (int) j && strv_extend(&u->data_devices, c->slots[i].data->path) < 0)
                                return oom(c);
                if (!u->data_devices && !(u->data_devices = calloc(1, sizeof(char *))))
                        return oom(c);
                u->used = c->fast[j].used_bytes;
                fast_find_free(&c->fast[j], 0, &u->free_after);
                u->free_total = fast_free_total(&c->fast[j]);
        }

        /* totals and what an operator needs to find the devices */
        for (size_t i = 0; i < c->hp->n_steps; i++)
                if (c->hp->steps[i].kind == STEP_CREATE_OSD) {
                        c->hp->n_new_osds++;
                        const InvDevice *d = inventory_find_device(c->inv, c->hp->steps[i].device);
                        c->hp->raw_new += d ? d->size : 0;
                }
        c->hp->n_osds = (unsigned) n_data;
        for (size_t i = 0; i < n_data; i++)
                c->hp->raw_total += c->slots[i].data->size;
        r = collect_devices(c);
        if (r < 0)
                return r;
        return collect_drift(c);
}

int plan_compute(const Layout *l, const InventorySet *inv, Plan **ret, Error *err) {
        return plan_compute_ext(l, inv, NULL, ret, err);
}

void plan_assign_osd_ids(Plan *p, const int *in_use, size_t n_in_use) {
        PlanIdCursor c = { .in_use = in_use, .n_in_use = n_in_use };
        for (size_t i = 0; i < p->n_hosts; i++)
                plan_id_cursor_assign(&c, &p->hosts[i]);
        p->osd_ids_known = true;
}

static void summary_done(PlanSummary *s) {
        strv_free(s->missing_hosts);
        plan_refusals_free(s->refused, s->n_refused);
        *s = (PlanSummary) {};
}

static int add_refusal(PlanSummary *s, const char *host, const Error *err) {
        PlanRefusal *n = realloc(s->refused, sizeof(PlanRefusal) * (s->n_refused + 1));
        if (!n)
                return -ENOMEM;
        s->refused = n;
        n[s->n_refused] = (PlanRefusal) { .host = strdup(host), .message = strdup(err->code ? err->message : "refused") };
        s->n_refused++;
        if (!n[s->n_refused - 1].host || !n[s->n_refused - 1].message)
                return -ENOMEM;
        return 0;
}

int plan_compute_each(const Layout *l, const InventorySet *inv, const PlanOptions *opts, plan_host_func each,
                      void *userdata, PlanSummary *ret_summary, Error *err) {
        static const PlanOptions none = {};
        PlanSummary sum = {};
        PlanIdCursor ids = {};
        size_t hint = 0;
        int r;

        if (!opts)
                opts = &none;
        if (opts->osd_ids_known)
                ids = (PlanIdCursor) { .in_use = opts->osd_ids_in_use, .n_in_use = opts->n_osd_ids_in_use };

        for (size_t i = 0; i < l->n_hosts; i++) {
                const Host *h = &l->hosts[i];
                if (!h->profile)
                        continue;
                if (opts->hosts && !strv_contains(opts->hosts, h->name))
                        continue;
                /* saved inventories come in layout order: look where the last one was first */
                const Inventory *hi = NULL;
                if (inv && hint < inv->n_hosts && streq(inv->hosts[hint]->host, h->name))
                        hi = inv->hosts[hint++];
                else {
                        hi = inventory_set_find(inv, h->name);
                        for (size_t k = 0; hi && k < inv->n_hosts; k++)
                                if (inv->hosts[k] == hi)
                                        hint = k + 1;
                }
                if (!hi && opts->missing_ok) {
                        if (strv_extend(&sum.missing_hosts, h->name) < 0) {
                                summary_done(&sum);
                                return error_set(err, ENOMEM, "out of memory");
                        }
                        continue;
                }
                if (!hi) {
                        summary_done(&sum);
                        return error_set(err, ENOENT, "host '%s': no inventory", h->name);
                }

                HostPlan hp = { .host = strdup(h->name) };
                Ctx c = {
                        .layout = l,
                        .host = h,
                        .profile = h->profile,
                        .inv = hi,
                        .hp = &hp,
                        .err = err,
                        .ids_known = opts->osd_ids_known,
                        .ids_in_use = opts->osd_ids_in_use,
                        .n_ids_in_use = opts->n_osd_ids_in_use,
                };
                r = hp.host ? plan_host(&c) : error_set(err, ENOMEM, "out of memory");
                ctx_done(&c);
                if (r < 0 && r != -ENOMEM && opts->keep_going) {
                        /* this host's refusal, kept; the next host starts with a clean error */
                        r = add_refusal(&sum, h->name, err);
                        error_reset(err);
                        host_plan_done(&hp);
                        if (r < 0) {
                                summary_done(&sum);
                                return error_set(err, ENOMEM, "out of memory");
                        }
                        continue;
                }
                if (r >= 0) {
                        if (opts->osd_ids_known)
                                plan_id_cursor_assign(&ids, &hp);
                        sum.n_hosts++;
                        sum.n_steps += hp.n_steps;
                        r = each(&hp, userdata, err);
                }
                host_plan_done(&hp);
                if (r < 0) {
                        summary_done(&sum);
                        return r;
                }
        }
        if (ret_summary)
                *ret_summary = sum;
        else
                summary_done(&sum);
        return 0;
}

static int take_host(HostPlan *h, void *userdata, Error *err) {
        Plan *p = userdata;
        HostPlan *n = realloc(p->hosts, sizeof(HostPlan) * (p->n_hosts + 1));
        if (!n)
                return error_set(err, ENOMEM, "out of memory");
        p->hosts = n;
        p->hosts[p->n_hosts++] = *h;
        *h = (HostPlan) {}; /* moved */
        return 0;
}

int plan_compute_ext(const Layout *l, const InventorySet *inv, const PlanOptions *opts, Plan **ret, Error *err) {
        _cleanup_(plan_freep) Plan *p = calloc(1, sizeof(Plan));
        PlanSummary sum;
        if (!p)
                return error_set(err, ENOMEM, "out of memory");
        int r = plan_compute_each(l, inv, opts, take_host, p, &sum, err);
        if (r < 0)
                return r;
        p->missing_hosts = sum.missing_hosts;
        p->refused = sum.refused;
        p->n_refused = sum.n_refused;
        p->osd_ids_known = opts && opts->osd_ids_known;
        *ret = TAKE_PTR(p);
        return 0;
}

void plan_filter_hosts(Plan *p, char * const *hosts) {
        size_t k = 0;
        for (size_t i = 0; i < p->n_hosts; i++) {
                bool keep = false;
                for (char * const *h = hosts; h && *h; h++)
                        if (streq(*h, p->hosts[i].host))
                                keep = true;
                if (keep)
                        p->hosts[k++] = p->hosts[i];
                else
                        host_plan_done(&p->hosts[i]);
        }
        p->n_hosts = k;
}
