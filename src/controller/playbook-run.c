/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "controller/playbook-run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent-steps.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/strv.h"
#include "controller/cluster-lock.h"
#include "controller/cluster-steps.h"
#include "controller/convert-steps.h"
#include "controller/hosts.h"
#include "exec/journal.h"
#include "plan/plan-convert.h"
#include "plan/plan-destroy.h"

PlaybookRunResult *playbook_run_result_free(PlaybookRunResult *r) {
        if (!r)
                return NULL;
        json_object_put(r->plan);
        wave_report_free(r->report);
        free(r);
        return NULL;
}

int playbook_run_result_to_json(const PlaybookRunResult *r, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        json_add_bool(o, "ok", r->ok);
        json_add_bool(o, "refused", r->refused);
        if (r->plan)
                json_add(o, "plan", json_object_get(r->plan));
        if (r->report) {
                json_object *rep = NULL;
                if (wave_report_to_json(r->report, &rep) < 0)
                        return -ENOMEM;
                json_add(o, "report", rep);
        }
        *ret = TAKE_PTR(o);
        return 0;
}

/* ---- the host link: registry host steps → agent requests ---------------------------- */

typedef struct RunHost {
        HostSession *session;
        ClusterSteps *cs;
        const int *osds;          /* the host's OSDs (its CRUSH bucket's, its record's), for the destroy plan */
        size_t n_osds;
        const char *fsid;         /* the cluster's: only its OSDs' labels are ours to wipe */
        ConvertStepCtx conv;      /* a conversion: the host's plan (conv.plan NULL otherwise) */
        const Inventory *conv_inv; /* a conversion: the host's inventory its plan was computed from */
} RunHost;

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
static int action_call(RunHost *h, const Inventory *inv, const DestroyAction *a, bool content, unsigned timeout,
                       Error *err) {
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
                if (d)
                        r = add_expect_of(args, d, content);
                break;
        case DESTROY_DELETE_PARTITION:
                json_add_string(args, "device", a->device);
                json_add_u64(args, "number", a->partnum);
                json_add_string(args, "name", a->partname);
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
static int lease_before(RunHost *h, const DestroyAction *a, Error *err) {
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
static int verify_owned_wipe(RunHost *h, const Inventory *before, const DestroyPlan *p, Error *err) {
        _cleanup_(inventory_freep) Inventory *now = NULL;
        int r = host_session_inventory(h->session, &now, err);
        if (r < 0)
                return r;
        const char *host = h->session->host->name;
        for (size_t i = 0; i < before->n_devices; i++) {
                const InvDevice *b = &before->devices[i];
                const InvDevice *n = inventory_find_device(now, b->path);
                bool wiped = planned(p, DESTROY_WIPE_DEVICE, b->path, 0);
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

/* `bcache-teardown` and `wipe` with `owned: true` (destroy): what cephprov owns on the host,
 * from its inventory now (plan_destroy(), src/plan/plan-destroy.h), so that a re-run after a
 * kill finds what is left. bcache-teardown tears down the bcache of the host's OSDs and wipes
 * each backing device right after: once unregistered, nothing on it names its OSD any more.
 * wipe wipes the OSDs' data devices and deletes the host's cephprov partitions (a fast device
 * holding nothing else is wiped whole); every other partition is kept. */
static int owned_call(RunHost *h, const char *op, json_object *args, json_object **ret_result, Error *err) {
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
                if ((r = lease_before(h, a, err)) < 0 || (r = action_call(h, inv, a, true, (unsigned) timeout, err)) < 0)
                        return r;
                json_object *d = json_object_new_object();
                if (!d || json_object_array_add(done, d) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                json_add_string(d, "action", destroy_action_kind_to_string(a->kind));
                json_add_string(d, "device", a->device);
                if (a->kind == DESTROY_DELETE_PARTITION)
                        json_add_u64(d, "partition", a->partnum);
                if (a->kind != DESTROY_BCACHE_TEARDOWN)
                        freed += a->size;
                if (teardown) {
                        /* the backing device of a purged OSD: wiped now (see above) */
                        DestroyAction w = { .kind = DESTROY_WIPE_DEVICE, .device = a->device, .size = a->size };
                        if ((r = lease_before(h, &w, err)) < 0 || (r = action_call(h, inv, &w, false, (unsigned) timeout, err)) < 0)
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

/* wipe-replaced (a conversion): what the host's convert plan replaces, as destroy's actions —
 * the data devices of the OSDs given, wiped whole, and the partitions the cluster named as
 * their journals, DB or WAL, deleted — run and verified as destroy's owned wipe is. Every
 * OSD must be destroyed in the OSD map (its id kept): the data goes only then. */
static int wipe_replaced(RunHost *h, json_object *args, json_object **ret_result, Error *err) {
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
        if (!acts)
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
                        if (ch->replaced[k].osd == o->id)
                                acts[p.n_actions++] = (DestroyAction) {
                                        .kind = DESTROY_DELETE_PARTITION, .device = ch->replaced[k].device,
                                        .partnum = ch->replaced[k].partnum, .partname = ch->replaced[k].partname,
                                        .size = ch->replaced[k].size, .osd = o->id };
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
                if (a->kind == DESTROY_DELETE_PARTITION) {
                        /* a re-run: gone already, or already the layout's new partition of that number */
                        const InvDevice *d = inventory_find_device(inv, a->device);
                        const InvPartition *pt = NULL;
                        for (size_t k = 0; d && k < d->n_partitions; k++)
                                if (d->partitions[k].number == a->partnum)
                                        pt = &d->partitions[k];
                        if (!pt || !streq_ptr(pt->name, a->partname))
                                continue;
                }
                /* a device's data goes only while every PG keeps a readable copy without it,
                 * asked again before each wipe (a host may have failed during the last one) */
                if (a->kind == DESTROY_WIPE_DEVICE && !already_blank(inv, a)) {
                        _cleanup_(freep) char *act = strprintf("wipe '%s' on '%s' (osd.%d)", a->device, host, a->osd);
                        if ((r = ceph_admin_copies_gate(h->conv.admin, &a->osd, 1, act ? act : "wipe", err)) < 0)
                                return r;
                }
                /* what the convert plan saw (its saved inventory), not what `inv` read just now:
                 * a check against a read taken right before the act cannot fail. Only a
                 * target already blank — this step's own wipe, run before a kill — is not
                 * compared by its content (nothing on it to lose; who it is still is). */
                if ((r = lease_before(h, a, err)) < 0 ||
                    (r = action_call(h, h->conv_inv, a, !already_blank(inv, a), 600, err)) < 0)
                        return r;
                json_object *d = json_object_new_object();
                if (!d || json_object_array_add(done, d) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                json_add_string(d, "action", destroy_action_kind_to_string(a->kind));
                json_add_string(d, "device", a->device);
                if (a->kind == DESTROY_DELETE_PARTITION)
                        json_add_u64(d, "partition", a->partnum);
        }
        if ((r = verify_owned_wipe(h, inv, &p, err)) < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                convert_phase(h->conv.j, host, convert_host_find_osd(ch, ids[i])->data_device, ids[i], "wiped");
        *ret_result = TAKE_PTR(res);
        return 0;
}

static int host_call(void *userdata, const char *op, json_object *args, json_object **ret_result, Error *err) {
        RunHost *h = userdata;
        const StepEntry *e = step_registry_find(op);
        if (!e || e->target != STEP_TARGET_HOST)
                return error_set(err, EINVAL, "'%s' is not a host step", op);
        if (streq(op, "unmount-filestore"))
                return convert_step_unmount(&h->conv, args, ret_result, err);
        if (streq(op, "rebuild-osds"))
                return convert_step_rebuild(&h->conv, args, ret_result, err);
        if (streq(op, "wipe-replaced"))
                return wipe_replaced(h, args, ret_result, err);
        if (streq(op, "stop-osd") && h->conv.plan) {
                _cleanup_(freep) int *ids = NULL;
                size_t n = 0;
                uint64_t timeout = 300;
                int r = json_get_int_array(args, "osds", true, &ids, &n, op, err);
                if (r < 0)
                        return r;
                (void) json_get_u64(args, "timeout", false, &timeout, op, NULL);
                r = cluster_steps_osd_service(h->cs, h->session, false, ids, n, (unsigned) timeout, NULL, ret_result, err);
                for (size_t i = 0; r >= 0 && i < n; i++) {
                        const ConvertOsd *o = convert_host_find_osd(h->conv.plan, ids[i]);
                        convert_phase(h->conv.j, h->session->host->name, o ? o->data_device : NULL, ids[i], "stopped");
                }
                return r;
        }
        if (streq(op, "stop-osd") || streq(op, "start-osd")) {
                _cleanup_(freep) int *ids = NULL;
                size_t n = 0;
                int r = json_get_int_array(args, "osds", true, &ids, &n, op, err);
                if (r < 0)
                        return r;
                uint64_t timeout = 300;
                (void) json_get_u64(args, "timeout", false, &timeout, op, NULL);
                return cluster_steps_osd_service(h->cs, h->session, streq(op, "start-osd"), ids, n, (unsigned) timeout,
                                                 NULL, ret_result, err);
        }
        bool owned = false;
        (void) json_get_bool(args, "owned", false, &owned, op, NULL);
        if (owned)
                return owned_call(h, op, args, ret_result, err);
        return host_session_call(h->session, e->agent_op, args, 0, ret_result, err);
}

/* ---- building the wave plan --------------------------------------------------------- */

static WaveClass wave_class(StepConcurrency c) {
        switch (c) {
        case STEP_CONCURRENCY_HOST_SERIAL:
                return WAVE_CLASS_HOST_SERIAL;
        case STEP_CONCURRENCY_DEVICE_EXCLUSIVE:
        case STEP_CONCURRENCY_OSD_PARALLEL:
                return WAVE_CLASS_PARALLEL;
        case STEP_CONCURRENCY_CLUSTER_SERIAL:
                return WAVE_CLASS_CLUSTER_SERIAL;
        default:
                return WAVE_CLASS_WAIT;
        }
}

typedef struct Built {
        WaveStep *steps;
        size_t n;
} Built;

static void built_done(Built *b) {
        for (size_t i = 0; b && i < b->n; i++)
                json_object_put(b->steps[i].args);
        if (b)
                free(b->steps);
}

/* health-gate's `allow` with the run's extra codes, and its `allow_down`
 * (PlaybookRunOptions.health_allow). */
static int health_allow_add(json_object *args, const PlaybookHealthAllow *ha) {
        json_object *down = json_object_new_array();
        if (!down || json_add(args, "allow_down", down) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < ha->n_down; i++)
                if (json_object_array_add(down, json_object_new_int(ha->down[i])) < 0)
                        return -ENOMEM;
        char * const *extra = ha->codes;
        json_object *allow = NULL;
        if (!json_object_object_get_ex(args, "allow", &allow)) {
                if (!(allow = json_object_new_array()) || json_add(args, "allow", allow) < 0)
                        return -ENOMEM;
        }
        for (char * const *c = extra; c && *c; c++) {
                bool there = false;
                for (size_t i = 0; i < json_object_array_length(allow); i++)
                        there = there || streq(json_object_get_string(json_object_array_get_idx(allow, i)), *c);
                if (!there && json_object_array_add(allow, json_object_new_string(*c)) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static int build_steps(const Playbook *pb, PlaybookSection sec, const StepFacts *facts,
                       const PlaybookHealthAllow *health_allow,
                       Built *ret, Error *err) {
        size_t n = pb->n_steps[sec];
        WaveStep *s = calloc(n ? n : 1, sizeof(WaveStep));
        if (!s)
                return error_set(err, ENOMEM, "out of memory");
        *ret = (Built) { s, 0 };
        for (size_t i = 0; i < n; i++) {
                const PlaybookStep *ps = &pb->steps[sec][i];
                json_object *args = NULL;
                int r = step_args_substitute(ps->entry, ps->args, facts, &args, err);
                if (r < 0)
                        return r;
                if (health_allow && streq(ps->entry->name, "health-gate") && health_allow_add(args, health_allow) < 0) {
                        json_object_put(args);
                        return error_set(err, ENOMEM, "out of memory");
                }
                s[i] = (WaveStep) {
                        .name = ps->entry->name,
                        .target = ps->entry->target == STEP_TARGET_HOST ? WAVE_TARGET_HOST : WAVE_TARGET_CLUSTER,
                        .class = wave_class(ps->entry->concurrency),
                        .args = args,
                        /* waits check the real state again on a re-run */
                        .rerun = ps->entry->concurrency == STEP_CONCURRENCY_WAIT,
                        .destructive = ps->entry->destructive,
                };
                ret->n++;
        }
        return 0;
}

/* ---- the run ---------------------------------------------------------------------- */

/* The cluster link of a conversion: the cluster steps, with the OSDs' phases journaled
 * (destroyed after destroy-osd; converted after a host's wait-clean that finds the OSD
 * BlueStore: the drain-first playbook also waits for clean before it stops the OSDs). */
typedef struct ConvertLink {
        ClusterSteps *cs;
        CephAdmin *admin;
        const ConvertPlan *plan;
        Journal *j;
} ConvertLink;

static int convert_cluster_call(void *userdata, const char *step, json_object *args, WaveCall *c,
                                json_object **ret_result, Error *err) {
        ConvertLink *cl = userdata;
        int r = cluster_steps_call(cl->cs, step, args, c, ret_result, err);
        const char *host = wave_call_host(c);
        if (r < 0 || !host)
                return r;
        const ConvertHost *ch = NULL;
        for (size_t i = 0; i < cl->plan->n_hosts; i++)
                if (streq(cl->plan->hosts[i].host, host))
                        ch = &cl->plan->hosts[i];
        if (!ch)
                return r;
        bool destroyed = streq(step, "destroy-osd"), clean = streq(step, "wait-clean");
        if (!destroyed && !clean)
                return r;
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        if (destroyed && json_get_int_array(args, "osds", false, &ids, &n, step, NULL) < 0)
                return r;
        /* converted: BlueStore and in (the drain-first playbook's wait before the stop finds
         * the OSDs out, and, in a reshape, BlueStore already) */
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *meta = NULL;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        Error me = {};
        if (clean && (ceph_admin_osd_metadata(cl->admin, &meta, &me) < 0 || ceph_admin_osd_dump(cl->admin, &dump, &me) < 0))
                log_debug("host '%s': no OSD metadata or map to see which OSDs are converted: %s", host, me.message);
        for (size_t i = 0; i < ch->n_osds; i++) {
                const ConvertOsd *o = &ch->osds[i];
                const CephOsdMetadata *m = meta ? ceph_osd_metadata_find(meta, o->id) : NULL;
                const CephDumpOsd *d = dump ? ceph_osd_dump_find_osd(dump, o->id) : NULL;
                bool listed = clean && o->rebuilt && m && streq_ptr(m->objectstore, "bluestore") && d && d->in;
                for (size_t k = 0; k < n; k++)
                        listed = listed || ids[k] == o->id;
                if (listed)
                        convert_phase(cl->j, host, o->data_device, o->id, destroyed ? "destroyed" : "converted");
        }
        return r;
}

typedef struct HostState {
        const Host *host;
        unsigned *osds;
        size_t n_osds;
        int *ids;                 /* the same, for the host link, then the ids its record names
                                   * that are now another host's (only the destroy plan's) */
        size_t n_ids;
        Built steps;
} HostState;

static WaveTickAction tick(void *userdata, const WaveTick *t) {
        return WAVE_TICK_RUN;
}

static int lock_guard(void *userdata, Error *err) {
        return ceph_cluster_lock_check(userdata, err);
}

/* A host step that acts on what cephprov owns on the host (destroy's wipe and teardown). */
static bool playbook_has_owned_step(const Playbook *pb) {
        for (size_t i = 0; i < pb->n_steps[PLAYBOOK_PER_HOST]; i++) {
                bool owned = false;
                const PlaybookStep *ps = &pb->steps[PLAYBOOK_PER_HOST][i];
                if (ps->entry->target == STEP_TARGET_HOST && ps->args &&
                    json_get_bool(ps->args, "owned", false, &owned, "step", NULL) >= 0 && owned)
                        return true;
        }
        return false;
}

/* Adds id to the host's OSDs unless there already. */
static int host_add_osd(HostState *h, unsigned id) {
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

static const PlaybookStep *playbook_find_step(const Playbook *pb, const char *name) {
        for (int s = 0; s < _PLAYBOOK_SECTION_MAX; s++)
                for (size_t i = 0; i < pb->n_steps[s]; i++)
                        if (streq(pb->steps[s][i].entry->name, name))
                                return &pb->steps[s][i];
        return NULL;
}

static bool playbook_has_step(const Playbook *pb, const char *name) {
        return playbook_find_step(pb, name) != NULL;
}

/* Everything a run holds, freed in one place (returns happen anywhere). */
typedef struct Run {
        size_t n;
        HostState *hs;
        PlaybookHostFacts *facts;
        const Host **hosts;
        CephAdmin *admin;
        CephOsdTree *tree;
        PlaybookRunResult *res;
        Journal *j;
        CephClusterLock *lock;
        Fleet *fleet;
        RunHost *rh;
        HostLink *links;
        Built before, gate, after;
        WaveHost *wh;
        PlaybookWaves *pw;
        unsigned *wave_of;
        char *id;
        char *fsid;
        char **done;
} Run;

static void run_done(Run *r) {
        for (size_t i = 0; r->hs && i < r->n; i++) {
                free(r->hs[i].osds);
                free(r->hs[i].ids);
                built_done(&r->hs[i].steps);
        }
        built_done(&r->before);
        built_done(&r->gate);
        built_done(&r->after);
        free(r->hs);
        free(r->facts);
        free(r->hosts);
        free(r->rh);
        free(r->links);
        free(r->wh);
        playbook_waves_free(r->pw);
        free(r->wave_of);
        free(r->id);
        free(r->fsid);
        strv_free(r->done);
        fleet_close(r->fleet);
        ceph_cluster_unlock(r->lock);
        journal_close(r->j);
        playbook_run_result_free(r->res);
        ceph_osd_tree_free(r->tree);
        ceph_admin_close(r->admin);
}

int playbook_run(const PlaybookRunOptions *o, PlaybookRunResult **ret, Error *err) {
        const Layout *l = o->layout;
        const Playbook *pb = o->playbook;
        _cleanup_(run_done) Run R = { .n = strv_length(o->hosts) };
        size_t n = R.n;
        int r;

        if (n == 0)
                return error_set(err, EINVAL, "playbook '%s': no host given", pb->name);
        if (!l->admin_host)
                return error_set(err, EINVAL, "layout '%s' names no admin_host: playbooks act on the cluster through it",
                                 l->path ? l->path : "");
        R.hs = calloc(n, sizeof(HostState));
        R.facts = calloc(n, sizeof(PlaybookHostFacts));
        R.hosts = calloc(n, sizeof(Host *));
        R.res = calloc(1, sizeof(PlaybookRunResult));
        if (!R.hs || !R.facts || !R.hosts || !R.res)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                R.hs[i].host = R.hosts[i] = layout_find_host(l, o->hosts[i]);
                if (!R.hs[i].host)
                        return error_set(err, ENOENT, "host '%s' is not in the layout '%s'", o->hosts[i],
                                         l->path ? l->path : "");
        }

        if ((r = ceph_admin_open(l, &R.admin, err)) < 0)
                return r;
        /* declared after R: its controller thread stops before R closes the admin client */
        _cleanup_(cluster_steps_done) ClusterSteps cs = {};
        if ((r = cluster_steps_init(&cs, R.admin, l, err)) < 0)
                return r;
        cs.log = o->out;

        /* each host's OSDs: those under its CRUSH host bucket */
        if ((r = ceph_admin_osd_tree(R.admin, &R.tree, err)) < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                const CephTreeHost *th = ceph_osd_tree_find_host(R.tree, R.hs[i].host->name);
                const ConvertHost *ch = o->convert ? convert_plan_host(o->convert, R.hs[i].host->name) : NULL;
                if (o->convert) {
                        /* a conversion: the OSDs the host's plan rebuilds, and only those */
                        for (size_t k = 0; ch && k < ch->n_osds; k++)
                                if (ch->osds[k].rebuilt && host_add_osd(&R.hs[i], (unsigned) ch->osds[k].id) < 0)
                                        return error_set(err, ENOMEM, "out of memory");
                } else if (th && th->n_osds > 0) {
                        if (!(R.hs[i].osds = calloc(th->n_osds, sizeof(unsigned))))
                                return error_set(err, ENOMEM, "out of memory");
                        for (size_t k = 0; k < th->n_osds; k++)
                                R.hs[i].osds[k] = (unsigned) th->osds[k];
                        R.hs[i].n_osds = th->n_osds;
                }
                _cleanup_(freep) int *others = NULL; /* the record's ids now another host's */
                size_t n_others = 0;
                if (o->recorded_osds) {
                        /* and those its record names (purged already, when destroy runs again),
                         * while they are still this host's: a purged id may have been given to
                         * another host's new OSD since. Those are no step's to act on; only the
                         * destroy plan knows them, for this host's disks that still carry them. */
                        _cleanup_(freep) char *state = NULL;
                        _cleanup_(freep) int *ids = NULL, *own = NULL;
                        _cleanup_strv_free_ char **other = NULL;
                        size_t n_ids = 0, n_own = 0;
                        if ((r = cluster_drained_get(R.admin, R.hs[i].host->name, &state, &ids, &n_ids, err)) < 0)
                                return r;
                        if (r == 0)
                                n_ids = 0;
                        if ((r = cluster_osds_of_host(R.admin, R.hs[i].host->name, ids, n_ids, &own, &n_own, &other,
                                                      err)) < 0)
                                return r;
                        for (size_t k = 0; k < n_own; k++)
                                if (own[k] >= 0 && host_add_osd(&R.hs[i], (unsigned) own[k]) < 0)
                                        return error_set(err, ENOMEM, "out of memory");
                        if (other) {
                                _cleanup_(freep) char *list = strv_join(other, ", ");
                                log_notice("host '%s': its record names %s: left alone", R.hs[i].host->name,
                                           list ? list : "");
                                if (!(others = calloc(n_ids, sizeof(int))))
                                        return error_set(err, ENOMEM, "out of memory");
                                for (size_t k = 0; k < n_ids; k++) {
                                        bool mine = false;
                                        for (size_t m = 0; m < n_own; m++)
                                                mine = mine || own[m] == ids[k];
                                        if (!mine && ids[k] >= 0)
                                                others[n_others++] = ids[k];
                                }
                        }
                }
                R.hs[i].n_ids = R.hs[i].n_osds + n_others;
                if (!(R.hs[i].ids = calloc(R.hs[i].n_ids ? R.hs[i].n_ids : 1, sizeof(int))))
                        return error_set(err, ENOMEM, "out of memory");
                for (size_t k = 0; k < R.hs[i].n_osds; k++)
                        R.hs[i].ids[k] = (int) R.hs[i].osds[k];
                for (size_t k = 0; k < n_others; k++)
                        R.hs[i].ids[R.hs[i].n_osds + k] = others[k];
                R.facts[i] = (PlaybookHostFacts) { .host = R.hs[i].host->name, .osds = R.hs[i].osds,
                                                   .n_osds = R.hs[i].n_osds };
        }

        if (playbook_plan_to_json(pb, R.facts, n, &R.res->plan) < 0)
                return error_set(err, ENOMEM, "out of memory");
        if (o->out)
                playbook_print_plan(pb, R.facts, n, o->out);

        /* the drain check before anything changes, with its projection in the plan */
        const PlaybookStep *drain_check = playbook_find_step(pb, "drain-check");
        if (drain_check) {
                /* as the step will run: the run's hosts (or those it names) gone at once, or
                 * each alone with together: false */
                bool together = true;
                (void) json_get_bool(drain_check->args, "together", false, &together, "drain-check", NULL);
                _cleanup_strv_free_ char **names = NULL;
                json_object *given = NULL;
                if (json_object_object_get_ex(drain_check->args, "hosts", &given) &&
                    json_object_is_type(given, json_type_array)) {
                        for (size_t i = 0; i < json_object_array_length(given); i++)
                                if (strv_extend(&names, json_object_get_string(json_object_array_get_idx(given, i))) < 0)
                                        return error_set(err, ENOMEM, "out of memory");
                } else
                        for (size_t i = 0; i < n; i++)
                                if (strv_extend(&names, R.hs[i].host->name) < 0)
                                        return error_set(err, ENOMEM, "out of memory");
                json_object *checks = json_object_new_array();
                json_add(R.res->plan, "drain_checks", checks);
                size_t n_checks = together ? 1 : strv_length(names);
                for (size_t i = 0; names && i < n_checks; i++) {
                        char *one[] = { names[i], NULL };
                        _cleanup_(ceph_drain_check_freep) CephDrainCheck *dc = NULL;
                        if ((r = cluster_steps_drain_check(&cs, together ? names : one, &dc, err)) < 0)
                                return r;
                        json_object_array_add(checks, ceph_drain_check_to_json(dc));
                        if (o->out) {
                                _cleanup_(freep) char *text = ceph_drain_check_format(dc);
                                fprintf(o->out, "%s\n", text ? text : "");
                        }
                        if (!dc->ok)
                                R.res->refused = true;
                }
                if (R.res->refused) {
                        if (o->out)
                                fprintf(o->out, "refused: nothing was changed\n");
                        *ret = TAKE_PTR(R.res);
                        return 0;
                }
        }
        /* what cephprov owns on each host and would take off it: from the hosts' agents */
        if (playbook_has_owned_step(pb)) {
                _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
                if ((r = ceph_admin_osd_dump(R.admin, &dump, err)) < 0)
                        return r;
                if (!dump->fsid || !(R.fsid = strdup(dump->fsid)))
                        return error_set(err, dump->fsid ? ENOMEM : EBADMSG,
                                         "'ceph osd dump' gave no cluster fsid: '%s' wipes only this cluster's OSDs "
                                         "and cannot tell them", pb->name);
                if ((r = fleet_open(l, R.hosts, n, o->dry_run, o->progress != NULL, &R.fleet, err)) < 0)
                        return r;
                for (size_t i = 0; i < n; i++)
                        if (R.fleet->sessions[i].r < 0)
                                return error_set(err, -R.fleet->sessions[i].r,
                                                 "host '%s' cannot be reached (%s): '%s' wipes what cephprov owns there "
                                                 "through its agent", R.hs[i].host->name,
                                                 R.fleet->sessions[i].error.message, pb->name);
                json_object *plans = json_object_new_array();
                json_add(R.res->plan, "destroy", plans);
                for (size_t i = 0; i < n; i++) {
                        _cleanup_(inventory_freep) Inventory *inv = NULL;
                        _cleanup_(destroy_plan_freep) DestroyPlan *dp = NULL;
                        json_object *pj = NULL;
                        if ((r = host_session_inventory(&R.fleet->sessions[i], &inv, err)) < 0 ||
                            (r = plan_destroy(inv, R.fsid, R.hs[i].ids, R.hs[i].n_ids, true, &dp, err)) < 0)
                                return r;
                        if (destroy_plan_to_json(dp, &pj) < 0 || json_object_array_add(plans, pj) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                        if (o->out)
                                destroy_plan_print(dp, o->out);
                }
        }
        if (o->dry_run) {
                R.res->ok = true;
                *ret = TAKE_PTR(R.res);
                return 0;
        }
        if (pb->destructive && !o->yes) {
                _cleanup_(freep) char *q = strprintf("run the destructive playbook '%s' on %zu host%s?", pb->name, n,
                                                     n == 1 ? "" : "s");
                if (!o->confirm || !q || !o->confirm(q))
                        return error_set(err, ECANCELED, "not confirmed: nothing changed (give --yes to run without asking, "
                                                         "--dry-run to see the plan)");
        }

        /* the journal (this machine's runs one at a time), then the cluster's lock */
        {
                _cleanup_(freep) char *dir = NULL;
                _cleanup_(freep) char *cmd = strprintf("%s %s", o->command, pb->name);
                if ((r = journal_default_dir(&dir, err)) < 0 || (r = journal_open(dir, l->cluster_name, cmd, &R.j, err)) < 0)
                        return r;
                /* every record this run leaves in the cluster names it */
                cs.run_id = R.j->run_id;
                _cleanup_(freep) char *token = strprintf("%s.cluster-lock", R.j->path);
                if (!token)
                        return error_set(err, ENOMEM, "out of memory");
                if ((r = ceph_cluster_lock(l, o->command, token, &R.lock, err)) < 0)
                        return r;
        }
        ceph_admin_set_lock(R.admin, R.lock);
        if (o->hooks.before && (r = o->hooks.before(o->hooks.userdata, R.admin, R.facts, n, err)) < 0)
                return r;

        /* the hosts' agents, for the host steps */
        if (!R.fleet && (r = fleet_open(l, R.hosts, n, false, o->progress != NULL, &R.fleet, err)) < 0)
                return r;
        /* each destructive agent request carries the lease, and none goes once it is lost:
         * also between the devices of one step's loop (owned wipe and teardown, wipe-replaced) */
        fleet_set_lock(R.fleet, R.lock);
        R.rh = calloc(n, sizeof(RunHost));
        R.links = calloc(n, sizeof(HostLink));
        R.wh = calloc(n, sizeof(WaveHost));
        R.wave_of = calloc(n, sizeof(unsigned));
        if (!R.rh || !R.links || !R.wh || !R.wave_of)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                R.rh[i] = (RunHost) { .session = &R.fleet->sessions[i], .cs = &cs, .osds = R.hs[i].ids,
                                      .n_osds = R.hs[i].n_ids, .fsid = R.fsid };
                if (o->convert)
                        R.rh[i].conv = (ConvertStepCtx) {
                                .layout = l, .admin = R.admin, .fleet = R.fleet, .session = &R.fleet->sessions[i],
                                .j = R.j, .plan = convert_plan_host(o->convert, R.hs[i].host->name), .before = R.tree,
                        };
                if (o->convert && o->convert_inventory)
                        R.rh[i].conv_inv = inventory_set_find(o->convert_inventory, R.hs[i].host->name);
                R.links[i] = (HostLink) { .host = R.hs[i].host->name, .call = host_call, .userdata = &R.rh[i] };
        }

        /* the steps, their references filled in per host */
        StepFacts all = { .hosts = o->hosts };
        if ((r = build_steps(pb, PLAYBOOK_BEFORE, &all, o->health_allow, &R.before, err)) < 0 ||
            (r = build_steps(pb, PLAYBOOK_GATE, &all, NULL, &R.gate, err)) < 0 ||
            (r = build_steps(pb, PLAYBOOK_AFTER, &all, NULL, &R.after, err)) < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                StepFacts f = { .host = R.hs[i].host->name, .osds = R.hs[i].osds, .n_osds = R.hs[i].n_osds,
                                .hosts = o->hosts };
                if ((r = build_steps(pb, PLAYBOOK_PER_HOST, &f, NULL, &R.hs[i].steps, err)) < 0)
                        return r;
                R.wh[i] = (WaveHost) { .name = R.hs[i].host->name, .steps = R.hs[i].steps.steps,
                                       .n_steps = R.hs[i].steps.n };
        }

        /* the waves as the plan printed them */
        if (playbook_waves(pb, R.facts, n, &R.pw) < 0)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t w = 0; w < R.pw->n_waves; w++)
                for (size_t k = R.pw->start[w]; k < R.pw->start[w + 1]; k++)
                        R.wave_of[R.pw->hosts[k]] = (unsigned) w + 1;

        _cleanup_(freep) char *joined = strv_join((char **) o->hosts, ",");
        R.id = !joined ? NULL
             : o->run_tag ? strprintf("%s:%s:%s", pb->name, joined, o->run_tag)
                          : strprintf("%s:%s", pb->name, joined);
        if (!R.id)
                return error_set(err, ENOMEM, "out of memory");
        if ((r = journal_done_step_keys(R.j->path, R.id, &R.done, err)) < 0)
                return r;
        WavePlan plan = {
                .id = R.id,
                .hosts = R.wh,
                .n_hosts = n,
                .strategy = pb->strategy == PLAYBOOK_HOSTS_BATCH            ? WAVE_STRATEGY_BATCH
                          : pb->strategy == PLAYBOOK_HOSTS_FAILURE_DOMAIN ? WAVE_STRATEGY_FAILURE_DOMAIN
                                                                          : WAVE_STRATEGY_SERIAL,
                .batch_size = pb->batch,
                .canary_first = pb->canary,
                .before = R.before.steps, .n_before = R.before.n,
                .gate = R.gate.steps, .n_gate = R.gate.n,
                .after = R.after.steps, .n_after = R.after.n,
                .on_failure = pb->on_failure == PLAYBOOK_ON_FAILURE_STOP ? WAVE_ON_FAILURE_STOP : WAVE_ON_FAILURE_CONTINUE,
                .waves = R.wave_of,
                .done_keys = R.done,
        };
        /* a run killed while the adaptive throttle steered: it steers again from the start */
        if (playbook_has_step(pb, "throttle") && (r = cluster_steps_resume_adaptive(&cs, err)) < 0)
                return r;
        ClusterLink cl = { .call = cluster_steps_call, .userdata = &cs };
        ConvertLink convl = { .cs = &cs, .admin = R.admin, .plan = o->convert, .j = R.j };
        if (o->convert)
                cl = (ClusterLink) { .call = convert_cluster_call, .userdata = &convl };
        WaveOptions wo = {
                .parallel_hosts = l->concurrency ? l->concurrency : 1,
                .parallel_steps = 4,
                .host_links = R.links,
                .n_host_links = n,
                .cluster = &cl,
                .journal = R.j,
                .out = o->out,
                .progress = o->progress,
                .tick_ms = 1000,
                .tick = tick,
                .tick_userdata = NULL,
                .cancel = o->cancel,
                .guard = lock_guard,
                .guard_userdata = R.lock,
        };
        if ((r = waves_run(&plan, &wo, &R.res->report, err)) < 0)
                return r;
        R.res->ok = R.res->report->status == WAVE_STATUS_OK;
        if (R.res->ok && o->hooks.after && (r = o->hooks.after(o->hooks.userdata, R.admin, R.facts, n, err)) < 0)
                return r;
        *ret = TAKE_PTR(R.res);
        return 0;
}
