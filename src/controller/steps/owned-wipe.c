/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The host steps that act on what cephprov owns on a host: the owned wipe and bcache teardown
 * of `destroy` (the destroy plan of a fresh inventory, each act checked against what it saw),
 * and `wipe-replaced` of `replace`. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "controller/step-requests.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/strv.h"
#include "controller/cluster-lock.h"
#include "controller/steps/host-steps.h"
#include "plan/plan-destroy.h"

/* What the destroy plan saw of a device (the inventory it was computed from: never one read
 * just before the act), for the agent to refuse the act when the device is not that one any
 * more (docs/agent.md, "expect"). `content` false: only who it is and its size (a wipe right
 * after a bcache teardown, which changed what is on it). */
static int add_expect_seen(json_object *args, const StepSeen *seen, bool content) {
        /* without content: who it is (identity, PARTUUID, start) and its size */
        StepSeen who = { .set = true, .size = seen->size, .identity = seen->identity, .partuuid = seen->partuuid,
                         .start = seen->start, .whoami = -1 };
        json_object *e = NULL;
        if (agent_expect_to_json(content ? seen : &who, &e) < 0)
                return -ENOMEM;
        return json_add(args, "expect", e);
}

static int add_expect_of(json_object *args, const InvDevice *d, bool content) {
        _cleanup_(plan_seen_done) StepSeen seen = {};
        if (plan_seen_device(&seen, d) < 0)
                return -ENOMEM;
        return add_expect_seen(args, &seen, content);
}

/* An existing partition as the plan saw it: its disk's identity, PARTUUID, start, size and
 * label. Nothing when the inventory does not have it. */
static int add_expect_of_partition(json_object *args, const InvDevice *d, unsigned partnum, bool content) {
        for (size_t k = 0; d && k < d->n_partitions; k++) {
                if (d->partitions[k].number != partnum)
                        continue;
                _cleanup_(plan_seen_done) StepSeen seen = {};
                if (plan_seen_partition(&seen, d, &d->partitions[k]) < 0)
                        return -ENOMEM;
                return add_expect_seen(args, &seen, content);
        }
        return 0;
}

/* `inv`: the inventory the destroy (or convert) plan was computed from; NULL: no expect. */
static int action_call(HostStepCtx *h, const Inventory *inv, const DestroyAction *a, bool content, unsigned timeout,
                       bool release_lvm, Error *err) {
        _cleanup_json_ json_object *args = json_object_new_object(), *res = NULL;
        if (!args)
                return error_set(err, ENOMEM, "out of memory");
        const char *op = destroy_action_kind_to_string(a->kind);
        const InvDevice *d = inv ? inventory_find_device(inv, a->device) : NULL;
        int r = 0;
        switch (a->kind) {
        case DESTROY_BCACHE_TEARDOWN:
                json_add_string(args, "backing", a->device);
                json_add_u64(args, "timeout", timeout);
                if (d)
                        r = add_expect_of(args, d, content);
                break;
        case DESTROY_WIPE_DEVICE:
                json_add_string(args, "device", a->device);
                /* a ceph-volume OSD's volume group on it goes first (its OSD is destroyed) */
                if (release_lvm)
                        json_add_bool(args, "release_lvm", true);
                if (d)
                        r = add_expect_of(args, d, content);
                break;
        case DESTROY_DELETE_PARTITION:
                json_add_string(args, "device", a->device);
                json_add_u64(args, "number", a->partnum);
                json_add_string(args, "name", a->partname);
                /* an encrypted OSD's DB/WAL partition: its LUKS mapping, open since the OSD ran */
                json_add_bool(args, "close_dmcrypt", true);
                r = add_expect_of_partition(args, d, a->partnum, content);
                break;
        default:
                return error_set(err, EINVAL, "unknown destroy action %d", (int) a->kind);
        }
        if (r < 0)
                return error_set(err, ENOMEM, "out of memory");
        return host_session_call(h->session, op, args, timeout + 60, &res, err);
}

/* Between the devices of a host loop (each act can take an hour: a bcache flush): the lease
 * is checked before the next device, not only between steps, so a run that lost the lock
 * stops here with the reason (host_session_call() refuses too; this names the act). */
static int lease_before(HostStepCtx *h, const DestroyAction *a, Error *err) {
        int r = ceph_cluster_lock_check(h->session->lock, err);
        if (r < 0)
                return error_prefix(err, r, "host '%s': not starting %s of '%s'", h->session->host->name,
                                    destroy_action_kind_to_string(a->kind), a->device);
        return 0;
}

static bool planned(const DestroyPlan *p, DestroyActionKind kind, const char *device, unsigned partnum) {
        for (size_t i = 0; i < p->n_actions; i++)
                if (p->actions[i].kind == kind && streq(p->actions[i].device, device) &&
                    (kind != DESTROY_DELETE_PARTITION || p->actions[i].partnum == partnum))
                        return true;
        return false;
}

/* After an owned wipe: a fresh inventory must show every wiped device blank, every deleted
 * partition gone, and every other partition of the host as it was (number, start, size, GPT
 * name, filesystem and its uuid). The registry's `verify` of wipe says so. */
static int verify_owned_wipe(HostStepCtx *h, const Inventory *before, const DestroyPlan *p, Error *err) {
        _cleanup_(inventory_freep) Inventory *now = NULL;
        int r = host_session_inventory(h->session, &now, err);
        if (r < 0)
                return r;
        const char *host = h->session->host->name;
        for (size_t i = 0; i < before->n_devices; i++) {
                const InvDevice *b = &before->devices[i];
                const InvDevice *n = inventory_find_device(now, b->path);
                bool wiped = planned(p, DESTROY_WIPE_DEVICE, b->path, 0);
                /* the bcache device of a backing device torn down and wiped here (a rebuild
                 * from bcache) is gone with its bcache */
                bool torn = false;
                for (size_t k = 0; !n && k < before->n_devices; k++)
                        torn = torn || (streq_ptr(before->devices[k].content.bcache.bcache_device, b->path) &&
                                        planned(p, DESTROY_WIPE_DEVICE, before->devices[k].path, 0));
                if (torn)
                        continue;
                if (!n)
                        return error_set(err, EIO, "after the wipe on '%s': '%s' is gone from the inventory", host,
                                         b->path);
                if (wiped) {
                        if (n->content.fstype || n->n_partitions > 0)
                                return error_set(err, EIO, "after the wipe on '%s': '%s' still carries %s", host,
                                                 b->path, n->content.fstype ? n->content.fstype : "partitions");
                        continue;
                }
                for (size_t k = 0; k < b->n_partitions; k++) {
                        const InvPartition *bp = &b->partitions[k], *np = NULL;
                        for (size_t m = 0; m < n->n_partitions; m++)
                                if (n->partitions[m].number == bp->number)
                                        np = &n->partitions[m];
                        if (planned(p, DESTROY_DELETE_PARTITION, b->path, bp->number)) {
                                if (np)
                                        return error_set(err, EIO, "after the wipe on '%s': partition %u of '%s' is "
                                                                   "still there", host, bp->number, b->path);
                                continue;
                        }
                        if (!np || np->start != bp->start || np->size != bp->size || !streq_ptr(np->name, bp->name) ||
                            !streq_ptr(np->content.fstype, bp->content.fstype) ||
                            !streq_ptr(np->content.uuid, bp->content.uuid))
                                return error_set(err, EIO, "after the wipe on '%s': partition %u ('%s') of '%s', which "
                                                           "destroy keeps, is not as it was", host, bp->number,
                                                 bp->name ? bp->name : "", b->path);
                }
        }
        return 0;
}

/* An action done, as the step's result lists it under "done" */
static int done_add(json_object *done, const DestroyAction *a, Error *err) {
        json_object *d = json_array_add_object(done);
        if (!d)
                return error_set(err, ENOMEM, "out of memory");
        json_add_string(d, "action", destroy_action_kind_to_string(a->kind));
        json_add_string(d, "device", a->device);
        if (a->kind == DESTROY_DELETE_PARTITION)
                json_add_u64(d, "partition", a->partnum);
        return 0;
}

/* `bcache-teardown` and `wipe` with `owned: true` (destroy): what cephprov owns on the host,
 * from its inventory now (plan_destroy(), src/plan/plan-destroy.h), so that a re-run after a
 * kill finds what is left. bcache-teardown tears down the bcache of the host's OSDs and wipes
 * each backing device right after: once unregistered, nothing on it names its OSD any more.
 * wipe wipes the OSDs' data devices and deletes the host's cephprov partitions (a fast device
 * holding nothing else is wiped whole); every other partition is kept. */
int host_step_owned(HostStepCtx *h, const char *op, json_object *args, json_object **ret_result, Error *err) {
        bool teardown = streq(op, "bcache-teardown");
        if (!teardown && !streq(op, "wipe"))
                return error_set(err, EINVAL, "host step '%s' takes no 'owned'", op);
        uint64_t timeout = 3600;
        (void) json_get_u64(args, "timeout", false, &timeout, op, NULL);
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(destroy_plan_freep) DestroyPlan *p = NULL;
        int r = host_session_inventory(h->session, &inv, err);
        if (r < 0)
                return r;
        if ((r = plan_destroy(inv, h->fsid, h->osds, h->n_osds, true, &p, err)) < 0)
                return r;
        _cleanup_json_ json_object *res = json_object_new_object(), *pj = NULL;
        json_object *done = json_object_new_array();
        if (!res || !done || json_add(res, "done", done) < 0 || destroy_plan_to_json(p, &pj) < 0)
                return error_set(err, ENOMEM, "out of memory");
        uint64_t freed = 0;
        for (size_t i = 0; i < p->n_actions; i++) {
                const DestroyAction *a = &p->actions[i];
                if (teardown != (a->kind == DESTROY_BCACHE_TEARDOWN))
                        continue;
                if ((r = lease_before(h, a, err)) < 0 || (r = action_call(h, inv, a, true, (unsigned) timeout, false, err)) < 0)
                        return r;
                if ((r = done_add(done, a, err)) < 0)
                        return r;
                if (a->kind != DESTROY_BCACHE_TEARDOWN)
                        freed += a->size;
                if (teardown) {
                        /* the backing device of a purged OSD: wiped now (see above) */
                        DestroyAction w = { .kind = DESTROY_WIPE_DEVICE, .device = a->device, .size = a->size };
                        if ((r = lease_before(h, &w, err)) < 0 || (r = action_call(h, inv, &w, false, (unsigned) timeout, false, err)) < 0)
                                return r;
                        freed += a->size;
                }
        }
        if (!teardown && (r = verify_owned_wipe(h, inv, p, err)) < 0)
                return r;
        json_add(res, "plan", TAKE_PTR(pj));
        json_add_u64(res, "bytes_freed", freed);
        *ret_result = TAKE_PTR(res);
        return 0;
}

/* A wipe's device, or a deleted partition, that shows nothing any more in `now`. */
static bool already_blank(const Inventory *now, const DestroyAction *a) {
        const InvDevice *d = inventory_find_device(now, a->device);
        if (!d)
                return false;
        if (a->kind == DESTROY_WIPE_DEVICE)
                return !d->content.fstype && !d->pttype && d->n_partitions == 0;
        for (size_t k = 0; k < d->n_partitions; k++)
                if (d->partitions[k].number == a->partnum)
                        return !d->partitions[k].content.fstype && d->partitions[k].content.osd.id < 0 &&
                               !d->partitions[k].content.osd.osd_fsid;
        return false;
}

/* The cache set on a cache partition the conversion replaces, unregistered and its
 * superblock wiped before the partition goes (delete-partition cannot claim it while bcache
 * holds it). Its backing device was torn down just before (the set unregistered then, when
 * nothing else used it: nothing left to do), or failed and is gone (a replacement). */
static int teardown_cache_part(HostStepCtx *h, const ConvertPart *cp, Error *err) {
        _cleanup_json_ json_object *args = json_object_new_object(), *res = NULL;
        if (!args || json_add_string(args, "cache_device", cp->device) < 0 ||
            json_add_string(args, "cache_partname", cp->partname) < 0)
                return error_set(err, ENOMEM, "out of memory");
        int r = host_session_call(h->session, "bcache-teardown", args, 660, &res, err);
        if (r < 0)
                return error_prefix(err, r, "host '%s': the cache set on osd.%d's bcache cache partition %u '%s' of '%s'",
                                    h->session->host->name, cp->osd, cp->partnum, cp->partname, cp->device);
        return 0;
}

/* wipe-replaced (a conversion): what the host's convert plan replaces, as destroy's actions —
 * the data devices of the OSDs given, wiped whole, and the partitions the cluster named as
 * their journals, DB or WAL (and an OSD on bcache's cache partition), deleted — run and
 * verified as destroy's owned wipe is. A data device that is a bcache backing device now is
 * torn down first, as destroy does (its OSD's LVM removed, dirty data written back, the
 * device stopped, its cache set unregistered, its start zeroed); a ceph-volume OSD's volume
 * group on a plain disk goes with the wipe. Every OSD must be destroyed in the OSD map (its
 * id kept): the data goes only then. */
int host_step_wipe_replaced(HostStepCtx *h, json_object *args, json_object **ret_result, Error *err) {
        const ConvertHost *ch = h->conv.plan;
        const char *host = h->session->host->name;
        if (!ch)
                return error_set(err, EINVAL, "step 'wipe-replaced' runs only in a conversion (cephprov convert)");
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        int r = json_get_int_array(args, "osds", true, &ids, &n, "wipe-replaced", err);
        if (r < 0)
                return r;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        if ((r = ceph_admin_osd_dump(h->conv.admin, &dump, err)) < 0)
                return r;
        DestroyPlan p = { .host = (char *) host };
        _cleanup_(freep) DestroyAction *acts = calloc(n + ch->n_replaced + 1, sizeof(DestroyAction));
        _cleanup_(freep) const ConvertPart **parts = calloc(n + ch->n_replaced + 1, sizeof(ConvertPart *));
        if (!acts || !parts)
                return error_set(err, ENOMEM, "out of memory");
        p.actions = acts;
        for (size_t i = 0; i < n; i++) {
                const ConvertOsd *o = convert_host_find_osd(ch, ids[i]);
                if (!o)
                        return error_set(err, EINVAL, "step 'wipe-replaced' on '%s': the convert plan does not rebuild "
                                                      "osd.%d", host, ids[i]);
                const CephDumpOsd *d = ceph_osd_dump_find_osd(dump, ids[i]);
                if (!d || !d->destroyed || d->up)
                        return error_set(err, EBUSY, "host '%s': osd.%d is not destroyed (down, its id kept): refusing "
                                                     "to wipe '%s'", host, ids[i], o->data_device);
                acts[p.n_actions++] = (DestroyAction) { .kind = DESTROY_WIPE_DEVICE, .device = o->data_device,
                                                        .osd = o->id };
                for (size_t k = 0; k < ch->n_replaced; k++)
                        if (ch->replaced[k].osd == o->id) {
                                parts[p.n_actions] = &ch->replaced[k];
                                acts[p.n_actions++] = (DestroyAction) {
                                        .kind = DESTROY_DELETE_PARTITION, .device = ch->replaced[k].device,
                                        .partnum = ch->replaced[k].partnum, .partname = ch->replaced[k].partname,
                                        .size = ch->replaced[k].size, .osd = o->id };
                        }
        }
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        if ((r = host_session_inventory(h->session, &inv, err)) < 0)
                return r;
        _cleanup_json_ json_object *res = json_object_new_object();
        json_object *done = json_object_new_array();
        if (!res || !done || json_add(res, "done", done) < 0)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < p.n_actions; i++) {
                const DestroyAction *a = &acts[i];
                bool content = !already_blank(inv, a), lvm = false;
                if (a->kind == DESTROY_DELETE_PARTITION) {
                        /* a re-run: gone already, or already the layout's new partition of that number */
                        const InvDevice *d = inventory_find_device(inv, a->device);
                        const InvPartition *pt = NULL;
                        for (size_t k = 0; d && k < d->n_partitions; k++)
                                if (d->partitions[k].number == a->partnum)
                                        pt = &d->partitions[k];
                        if (!pt || !streq_ptr(pt->name, a->partname))
                                continue;
                        if (parts[i]->role == PART_ROLE_CACHE) {
                                if ((r = lease_before(h, a, err)) < 0 || (r = teardown_cache_part(h, parts[i], err)) < 0)
                                        return r;
                                content = false; /* its superblock is gone now: who it is still counts */
                        }
                }
                /* a device's data goes only while every PG keeps a readable copy without it,
                 * asked again before each wipe (a host may have failed during the last one) */
                if (a->kind == DESTROY_WIPE_DEVICE && !already_blank(inv, a)) {
                        _cleanup_(freep) char *act = strprintf("wipe '%s' on '%s' (osd.%d)", a->device, host, a->osd);
                        if ((r = ceph_admin_copies_gate(h->conv.admin, &a->osd, 1, act ? act : "wipe", err)) < 0)
                                return r;
                        const InvDevice *now = inventory_find_device(inv, a->device);
                        lvm = now && streq_ptr(now->content.fstype, "LVM2_member");
                        if (now && now->content.bcache.role == BCACHE_ROLE_BACKING) {
                                /* on bcache: torn down first, as destroy does, its dirty data
                                 * written back (progress on the terminal) */
                                DestroyAction t = { .kind = DESTROY_BCACHE_TEARDOWN, .device = a->device, .osd = a->osd };
                                if ((r = lease_before(h, &t, err)) < 0 ||
                                    (r = action_call(h, h->conv_inv, &t, true, 3600, false, err)) < 0)
                                        return r;
                                json_object *td = json_object_new_object();
                                if (!td || json_object_array_add(done, td) < 0)
                                        return error_set(err, ENOMEM, "out of memory");
                                json_add_string(td, "action", destroy_action_kind_to_string(t.kind));
                                json_add_string(td, "device", a->device);
                                content = false; /* the teardown zeroed its start: who it is still counts */
                        }
                }
                /* what the convert plan saw (its saved inventory), not what `inv` read just now:
                 * a check against a read taken right before the act cannot fail. Only a
                 * target already blank — this step's own wipe, run before a kill — or one this
                 * step tore down is not compared by its content (who it is still is). */
                if ((r = lease_before(h, a, err)) < 0 || (r = action_call(h, h->conv_inv, a, content, 600, lvm, err)) < 0)
                        return r;
                if ((r = done_add(done, a, err)) < 0)
                        return r;
        }
        if ((r = verify_owned_wipe(h, inv, &p, err)) < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                convert_phase(h->conv.j, host, convert_host_find_osd(ch, ids[i])->data_device, ids[i], "wiped");
        *ret_result = TAKE_PTR(res);
        return 0;
}
