/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "controller/convert-steps.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent-needs.h"
#include "basic/clock-util.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/strv.h"
#include "basic/workers.h"
#include "ceph/ceph-cluster.h"
#include "controller/apply-osds.h"
#include "exec/exec.h"

#define OSD_DATA_DIR "/var/lib/ceph/osd/ceph-%d" /* fixed by Ceph (FileStore's mount point) */

void convert_phase(Journal *j, const char *host, const char *device, int id, const char *phase) {
        journal_append_osd(j, "convert-phase", host, device, id, NULL, "phase", phase);
        /* FAULT INJECTION for the conversion's kill tests only: "phase-stopped" etc. in
         * CEPHPROV_TEST_HOLD_STEP holds the run once the phase is journaled, so that a kill
         * meant for it lands before the next one (the cluster steps take milliseconds) */
        char name[64];
        snprintf(name, sizeof name, "phase-%s", phase);
        exec_test_hold(name, false);
}

const ConvertOsd *convert_host_find_osd(const ConvertHost *h, int id) {
        for (size_t i = 0; h && i < h->n_osds; i++)
                if (h->osds[i].id == id && h->osds[i].rebuilt)
                        return &h->osds[i];
        return NULL;
}

static const char *host_name(const ConvertStepCtx *c) {
        return c->session->host->name;
}

/* The step's `osds`, each one the plan rebuilds. */
static int plan_osds(ConvertStepCtx *c, json_object *args, const char *step, int **ret, size_t *ret_n, Error *err) {
        if (!c->plan)
                return error_set(err, EINVAL, "step '%s' runs only in a conversion (cephprov convert): it acts on the "
                                              "host's convert plan", step);
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        int r = json_get_int_array(args, "osds", true, &ids, &n, step, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (!convert_host_find_osd(c->plan, ids[i]))
                        return error_set(err, EINVAL, "step '%s' on '%s': the convert plan does not rebuild osd.%d",
                                         step, host_name(c), ids[i]);
        *ret = TAKE_PTR(ids);
        *ret_n = n;
        return 0;
}

/* ---- unmount-filestore ---------------------------------------------------------------- */

int convert_step_unmount(ConvertStepCtx *c, json_object *args, json_object **ret, Error *err) {
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        int r = plan_osds(c, args, "unmount-filestore", &ids, &n, err);
        if (r < 0)
                return r;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        if ((r = ceph_admin_osd_dump(c->admin, &dump, err)) < 0)
                return r;
        _cleanup_json_ json_object *res = json_object_new_object();
        json_object *done = json_object_new_array();
        if (!res || !done || json_add(res, "unmounted", done) < 0)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                const CephDumpOsd *o = ceph_osd_dump_find_osd(dump, ids[i]);
                if (o && o->up)
                        return error_set(err, EBUSY, "host '%s': osd.%d is up: refusing to unmount its data (stop it "
                                                     "first)", host_name(c), ids[i]);
                char dir[64];
                snprintf(dir, sizeof dir, OSD_DATA_DIR, ids[i]);
                char *probe[] = { (char *) "mountpoint", (char *) "-q", dir, NULL };
                char *umount[] = { (char *) "umount", dir, NULL };
                int64_t code = 0;
                if ((r = host_session_run(c->session, probe, 30, &code, err)) < 0)
                        return r;
                if (code != 0)
                        continue; /* not mounted (any more): a re-run */
                /* a BlueStore OSD of ceph-volume lvm (a reshape) has a tmpfs there, and one
                 * per `ceph-volume lvm` prepare or activate that a killed run left: those go
                 * layer by layer; anything else over-mounted stays refused */
                char *tmpfs[] = { (char *) "findmnt", (char *) "-n", (char *) "-t", (char *) "tmpfs",
                                  (char *) "--mountpoint", dir, NULL };
                for (unsigned layer = 0;; layer++) {
                        if ((r = host_session_run(c->session, umount, 120, &code, err)) < 0)
                                return r;
                        if (code != 0)
                                return error_set(err, EBUSY, "host '%s': 'umount %s' exited %lld (osd.%d's data is "
                                                             "still in use?)", host_name(c), dir, (long long) code, ids[i]);
                        /* checked: no mount point left (an over-mount would still be one) */
                        if ((r = host_session_run(c->session, probe, 30, &code, err)) < 0)
                                return r;
                        if (code != 0)
                                break;
                        int64_t t = 1;
                        if (layer < 8 && (r = host_session_run(c->session, tmpfs, 30, &t, err)) < 0)
                                return r;
                        if (layer >= 8 || t != 0)
                                return error_set(err, EIO, "host '%s': '%s' is still a mount point after umount",
                                                 host_name(c), dir);
                }
                json_object_array_add(done, json_object_new_int(ids[i]));
        }
        *ret = TAKE_PTR(res);
        return 0;
}

/* ---- rebuild-osds --------------------------------------------------------------------- */

static const char *role_guid(PartRole role) {
        switch (role) {
        case PART_ROLE_DB:
                return CEPH_GUID_BLOCK_DB;
        case PART_ROLE_WAL:
                return CEPH_GUID_BLOCK_WAL;
        case PART_ROLE_CACHE:
                return BCACHE_GUID;
        default:
                return NULL;
        }
}

/* A GPT on each fast device that gets new partitions and has no partition table (a new
 * disk, as in a replacement of an SSD): create-partition needs one. */
static int create_tables(ConvertStepCtx *c, const int *ids, size_t n, Error *err) {
        const ConvertHost *h = c->plan;
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        int r;
        for (size_t i = 0; i < h->n_created; i++) {
                const ConvertPart *p = &h->created[i];
                bool ours = false, earlier = false;
                for (size_t k = 0; k < n; k++)
                        ours = ours || ids[k] == p->osd;
                for (size_t k = 0; k < i; k++)
                        earlier = earlier || streq(h->created[k].device, p->device);
                if (!ours || earlier)
                        continue;
                if (!inv && (r = host_session_inventory(c->session, &inv, err)) < 0)
                        return r;
                const InvDevice *d = inventory_find_device(inv, p->device);
                if (!d)
                        return error_set(err, ENOENT, "host '%s': fast device '%s' is not in its inventory", host_name(c),
                                         p->device);
                if (d->pttype)
                        continue;
                _cleanup_json_ json_object *a = json_object_new_object(), *res = NULL;
                if (!a || json_add_string(a, "device", p->device) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                log_notice("host '%s': '%s' has no partition table: writing a GPT", host_name(c), p->device);
                if ((r = host_session_call(c->session, "create-gpt", a, 0, &res, err)) < 0)
                        return error_prefix(err, r, "host '%s': a GPT on '%s'", host_name(c), p->device);
        }
        return 0;
}

static int create_partitions(ConvertStepCtx *c, const int *ids, size_t n, Error *err) {
        const ConvertHost *h = c->plan;
        int r0 = create_tables(c, ids, n, err);
        if (r0 < 0)
                return r0;
        for (size_t i = 0; i < h->n_created; i++) {
                const ConvertPart *p = &h->created[i];
                bool ours = false;
                for (size_t k = 0; k < n; k++)
                        ours = ours || ids[k] == p->osd;
                if (!ours)
                        continue;
                const char *guid = role_guid(p->role);
                if (!guid)
                        return error_set(err, ENOTSUP, "host '%s': the convert plan wants a journal partition '%s' on "
                                                       "'%s': a conversion makes no FileStore OSD",
                                         host_name(c), p->partname, p->device);
                _cleanup_json_ json_object *a = json_object_new_object(), *res = NULL;
                if (!a || json_add_string(a, "device", p->device) < 0 || json_add_u64(a, "number", p->partnum) < 0 ||
                    json_add_u64(a, "offset", p->offset) < 0 || json_add_u64(a, "size", p->size) < 0 ||
                    json_add_string(a, "name", p->partname) < 0 || json_add_string(a, "type_guid", guid) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                /* the agent takes a partition already there as asked for a success (a re-run) */
                int r = host_session_call(c->session, "create-partition", a, 0, &res, err);
                if (r < 0) {
                        error_prefix(err, r, "host '%s': partition %u '%s' of '%s'", host_name(c), p->partnum,
                                     p->partname, p->device);
                        return r;
                }
        }
        return 0;
}

static int bcache_call(ConvertStepCtx *c, const ConvertOsd *o, const char *op, json_object *a, Error *err) {
        _cleanup_json_ json_object *res = NULL;
        int r = host_session_call(c->session, op, a, 0, &res, err);
        if (r < 0)
                return error_prefix(err, r, "host '%s': osd.%d's bcache on '%s' (%s)", host_name(c), o->id,
                                    o->data_device, op);
        return 0;
}

/* What bcache needs on the host (the module, make-bcache, a udev rules directory), asked of
 * the agent's preflight as apply's preflight asks it, the module loaded when it is merely
 * not loaded (a conversion onto bcache is the first to use it on a host). */
int convert_bcache_ready(HostSession *session, Error *err) {
        static const AgentNeed needs[] = { AGENT_NEED_BCACHE, AGENT_NEED_MAKE_BCACHE, AGENT_NEED_UDEV_RULES };
        _cleanup_json_ json_object *a = json_object_new_object(), *res = NULL;
        json_object *l = json_object_new_array();
        if (!a || !l || json_add(a, "needs", l) < 0 || json_add_bool(a, "load_modules", true) < 0)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < ELEMENTSOF(needs); i++)
                if (json_object_array_add(l, json_object_new_string(agent_need_to_string(needs[i]))) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        const char *host = session->host->name;
        int r = host_session_call(session, "preflight", a, 0, &res, err);
        if (r < 0)
                return error_prefix(err, r, "host '%s': what bcache needs", host);
        json_object *checks = NULL;
        if (json_get_array(res, "checks", true, &checks, "preflight", err) < 0)
                return -EIO;
        for (size_t i = 0; i < json_object_array_length(checks); i++) {
                json_object *ch = json_object_array_get_idx(checks, i);
                const char *what = NULL, *text = NULL;
                bool ok = false;
                (void) json_get_string(ch, "check", false, &what, "preflight", NULL);
                (void) json_get_string(ch, "reason", false, &text, "preflight", NULL);
                (void) json_get_bool(ch, "ok", false, &ok, "preflight", NULL);
                if (!ok)
                        return error_set(err, ENOTSUP, "host '%s': %s: %s", host, what ?: "?", text ?: "not ready");
        }
        return 0;
}

/* The bcache of each OSD the layout puts on bcache, as apply builds it (plan.c, emit_bcache):
 * a cache superblock on its new cache partition, a backing superblock on its data device
 * (wiped by wipe-replaced), the backing attached to that cache set, then tuned (cache_mode,
 * sequential_cutoff, writeback_percent, kept across reboots by a udev rule). Every op is
 * idempotent: a re-run finds them done and goes on. */
static int build_bcache(ConvertStepCtx *c, const int *ids, size_t n, Error *err) {
        const Profile *prof = c->session->host->profile;
        bool loaded = false;
        int r;
        for (size_t k = 0; k < n; k++) {
                const ConvertOsd *o = convert_host_find_osd(c->plan, ids[k]);
                if (!o->wanted.bcache)
                        continue;
                const ConvertPart *cp = convert_host_created(c->plan, o->id, PART_ROLE_CACHE);
                if (!cp || !prof)
                        return error_set(err, EINVAL, "host '%s': osd.%d goes on bcache, but the convert plan has no "
                                                      "cache partition for it", host_name(c), o->id);
                const BcacheOptions *b = &prof->bcache;
                if (!loaded && (r = convert_bcache_ready(c->session, err)) < 0)
                        return r;
                loaded = true;
                log_info("host '%s': osd.%d: bcache on '%s' with its cache on partition %u '%s' of '%s'", host_name(c),
                         o->id, o->data_device, cp->partnum, cp->partname, cp->device);
                _cleanup_json_ json_object *mc = json_object_new_object(), *mb = json_object_new_object(),
                                           *at = json_object_new_object(), *tu = json_object_new_object();
                if (!mc || !mb || !at || !tu || json_add_string(mc, "device", cp->device) < 0 ||
                    json_add_string(mc, "partname", cp->partname) < 0 || json_add_string(mc, "role", "cache") < 0 ||
                    json_add_string(mb, "device", o->data_device) < 0 || json_add_string(mb, "role", "backing") < 0 ||
                    json_add_string(at, "backing", o->data_device) < 0 ||
                    json_add_string(at, "cache_device", cp->device) < 0 ||
                    json_add_string(at, "cache_partname", cp->partname) < 0 ||
                    json_add_string(tu, "backing", o->data_device) < 0 ||
                    json_add_string(tu, "cache_mode", bcache_cache_mode_to_string(b->cache_mode)) < 0 ||
                    json_add_u64(tu, "sequential_cutoff", b->sequential_cutoff) < 0 ||
                    json_add_int(tu, "writeback_percent", b->writeback_percent) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                if ((r = bcache_call(c, o, "make-bcache", mc, err)) < 0 || (r = bcache_call(c, o, "make-bcache", mb, err)) < 0 ||
                    (r = bcache_call(c, o, "bcache-attach", at, err)) < 0 || (r = bcache_call(c, o, "bcache-tune", tu, err)) < 0)
                        return r;
        }
        return 0;
}

/* The class the OSD gets: the layout's explicit one, else the one the id has in CRUSH (the
 * destroyed id keeps it), else what its data disk is. */
static const char *class_of(ConvertStepCtx *c, const ConvertOsd *o, const Inventory *inv) {
        const Host *h = c->session->host;
        const Profile *p = h->profile;
        if (p && p->osd.device_class && !streq(p->osd.device_class, "auto"))
                return p->osd.device_class;
        const CephTreeOsd *t = c->before ? ceph_osd_tree_find_osd(c->before, o->id) : NULL;
        if (t && t->device_class)
                return t->device_class;
        const InvDevice *d = inv ? inventory_find_device(inv, o->data_device) : NULL;
        return d && !d->rotational ? "ssd" : "hdd";
}

typedef struct Creation {
        HostLink *link;
        json_object *args;
        json_object *res;
        Error err;
        int r;
} Creation;

/* The creations of a host, all at once (the OSD flow bounds what runs in the cluster). */
typedef struct Creations {
        Creation *xs;
        size_t n, next;
        pthread_mutex_t mu;
} Creations;

static void *creation_worker(void *userdata) {
        Creations *cs = userdata;
        for (;;) {
                pthread_mutex_lock(&cs->mu);
                size_t i = cs->next < cs->n ? cs->next++ : cs->n;
                pthread_mutex_unlock(&cs->mu);
                if (i >= cs->n)
                        return NULL;
                Creation *x = &cs->xs[i];
                x->r = x->link->call(x->link->userdata, "osd-create", x->args, &x->res, &x->err);
        }
}

/* The DB an OSD's metadata names (bluefs_db_partition_path) is the planned partition `db`:
 * its node, or for an encrypted OSD (ceph-volume's dmcrypt) its LUKS mapping /dev/dm-N,
 * which holds the partition (inv read once the mapping was open). */
static bool db_is_planned(const Inventory *inv, const ConvertPart *db, const char *db_path) {
        const InvDevice *d = inv ? inventory_find_device(inv, db->device) : NULL;
        for (size_t i = 0; d && db_path && i < d->n_partitions; i++) {
                const InvPartition *p = &d->partitions[i];
                if (streq_ptr(p->name, db->partname))
                        return inventory_partition_is(p, db_path);
        }
        return false;
}

/* An OSD already converted: up, BlueStore, its metadata's DB on the planned partition. */
static bool osd_converted(const CephOsdDump *dump, const CephOsdMetadataList *meta, int id, const Inventory *inv,
                          const ConvertPart *db) {
        const CephDumpOsd *d = ceph_osd_dump_find_osd(dump, id);
        const CephOsdMetadata *m = ceph_osd_metadata_find(meta, id);
        return d && d->up && !d->destroyed && m && streq_ptr(m->objectstore, "bluestore") &&
               (!db || db_is_planned(inv, db, m->db_path));
}

/* Its metadata's data device is a bcache device, or one on it (bluestore_bdev_devices:
 * Ceph follows device-mapper's slaves). */
static bool on_bcache(const CephOsdMetadata *m) {
        STRV_FOREACH(d, m->bdev_devices)
                if (startswith(*d, "bcache"))
                        return true;
        return startswith(m->bdev_path ?: "", "/dev/bcache");
}

static const char *part_node(const Inventory *inv, const char *device, const char *partname) {
        const InvDevice *d = inv ? inventory_find_device(inv, device) : NULL;
        for (size_t i = 0; d && i < d->n_partitions; i++)
                if (streq_ptr(d->partitions[i].name, partname))
                        return d->partitions[i].node;
        return NULL;
}

static void creations_done(Creation *x, size_t n) {
        for (size_t i = 0; x && i < n; i++) {
                json_object_put(x[i].args);
                json_object_put(x[i].res);
        }
        free(x);
}

int convert_step_rebuild(ConvertStepCtx *c, json_object *args, json_object **ret, Error *err) {
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        int r = plan_osds(c, args, "rebuild-osds", &ids, &n, err);
        if (r < 0)
                return r;
        uint64_t timeout = 1800;
        (void) json_get_u64(args, "timeout", false, &timeout, "rebuild-osds", NULL);
        const char *host = host_name(c);
        double t0 = clock_mono_sec();

        if ((r = create_partitions(c, ids, n, err)) < 0 || (r = build_bcache(c, ids, n, err)) < 0)
                return r;
        for (size_t k = 0; k < n; k++) {
                const ConvertOsd *o = convert_host_find_osd(c->plan, ids[k]);
                convert_phase(c->j, host, o->data_device, o->id, "repartitioned");
        }
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *meta = NULL;
        if ((r = host_session_inventory(c->session, &inv, err)) < 0 || (r = ceph_admin_osd_dump(c->admin, &dump, err)) < 0 ||
            (r = ceph_admin_osd_metadata(c->admin, &meta, err)) < 0)
                return r;

        /* what to create: every OSD not already converted (a re-run) */
        _cleanup_(freep) OsdKeep *keep = calloc(n ? n : 1, sizeof(OsdKeep));
        Creation *xs = calloc(n ? n : 1, sizeof(Creation));
        if (!keep || !xs) {
                free(xs);
                return error_set(err, ENOMEM, "out of memory");
        }
        size_t nk = 0;
        _cleanup_json_ json_object *res = json_object_new_object();
        json_object *made = json_object_new_array(), *already = json_object_new_array();
        if (!res || !made || !already || json_add(res, "created", made) < 0 || json_add(res, "already", already) < 0) {
                creations_done(xs, 0);
                return error_set(err, ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < n; i++) {
                const ConvertOsd *o = convert_host_find_osd(c->plan, ids[i]);
                const ConvertPart *db = convert_host_created(c->plan, o->id, PART_ROLE_DB);
                const ConvertPart *wal = convert_host_created(c->plan, o->id, PART_ROLE_WAL);
                const char *db_node = db ? part_node(inv, db->device, db->partname) : NULL;
                if (db && !db_node) {
                        creations_done(xs, nk);
                        return error_set(err, EIO, "host '%s': the DB partition '%s' of osd.%d is not on '%s' after it "
                                                   "was made", host, db->partname, o->id, db->device);
                }
                if (osd_converted(dump, meta, o->id, inv, db)) {
                        /* made by a run that died before it journaled it (its ceph-volume went on) */
                        json_object_array_add(already, json_object_new_int(o->id));
                        convert_phase(c->j, host, o->data_device, o->id, "created");
                        continue;
                }
                /* a run killed inside ceph-volume: its `osd new` took the destroyed id back
                 * (state new, never booted), so `--osd-id` refuses it ("already in use"). The
                 * id is this conversion's (it destroyed it, and wipe-replaced ran only on a
                 * destroyed id, under the cluster lock): destroyed again, its CRUSH place kept;
                 * the half-made LVM goes in osd-create (redo_lvm_osd_id) */
                const CephDumpOsd *d = ceph_osd_dump_find_osd(dump, o->id);
                if (d && d->exists && d->is_new && !d->destroyed && !d->up) {
                        log_notice("host '%s': osd.%d is new and never booted (a creation of this conversion killed "
                                   "half-way, osd uuid %s): destroying it again before it is made", host, o->id,
                                   d->uuid ?: "unknown");
                        if ((r = ceph_admin_run(c->admin, ceph_argv_osd_destroy(ceph_admin_cli(c->admin), o->id, err),
                                                NULL, NULL, err)) < 0) {
                                creations_done(xs, nk);
                                return r;
                        }
                }
                const char *cls = class_of(c, o, inv);
                keep[nk] = (OsdKeep) { .host = host, .device = o->data_device, .device_class = cls, .id = o->id };
                Creation *x = &xs[nk++];
                json_object *a = x->args = json_object_new_object();
                if (!a || json_add_string(a, "device", o->data_device) < 0 || json_add_int(a, "osd_id", o->id) < 0 ||
                    json_add_string(a, "device_class", cls) < 0 || json_add_string(a, "objectstore", "bluestore") < 0 ||
                    /* on the bcache device of the (backing) data device, build_bcache()'s */
                    json_add_bool(a, "data_is_bcache", o->wanted.bcache) < 0 ||
                    /* the id is destroyed and wipe-replaced made its data device blank: an LVM
                     * of this id on it is this conversion's creation, killed half-way */
                    json_add_int(a, "redo_lvm_osd_id", o->id) < 0 ||
                    /* the layout's osd.encrypted, as apply's creations have it */
                    json_add_bool(a, "encrypted", c->session->host->profile && c->session->host->profile->osd.encrypted) < 0 ||
                    (db && (json_add_string(a, "db_device", db->device) < 0 ||
                            json_add_string(a, "db_partname", db->partname) < 0)) ||
                    (wal && (json_add_string(a, "wal_device", wal->device) < 0 ||
                             json_add_string(a, "wal_partname", wal->partname) < 0))) {
                        creations_done(xs, nk);
                        return error_set(err, ENOMEM, "out of memory");
                }
        }

        /* apply's OSD flow: the ids kept, one creation per OSD on its own agent channel */
        _cleanup_(osd_flow_freep) OsdFlow *flow = NULL;
        _cleanup_(freep) HostLink *links = NULL;
        size_t n_links = 0;
        HostLink *link = NULL;
        const Profile *prof = c->session->host->profile;
        unsigned parallel = prof && prof->osd.parallel ? prof->osd.parallel : 4;
        if (nk > 0) {
                if ((r = osd_flow_new(c->layout, c->fleet, c->admin, c->j, parallel, &flow, err)) < 0 ||
                    (r = osd_flow_keep_ids(flow, keep, nk, err)) < 0) {
                        creations_done(xs, nk);
                        return r;
                }
                if (osd_flow_links(flow, &links, &n_links) < 0) {
                        creations_done(xs, nk);
                        return error_set(err, ENOMEM, "out of memory");
                }
                for (size_t i = 0; i < n_links; i++)
                        if (streq(links[i].host, host))
                                link = &links[i];
                if (!link) {
                        creations_done(xs, nk);
                        return error_set(err, EIO, "host '%s': no agent link for the OSD creations", host);
                }
        }
        for (size_t i = 0; i < nk; i++)
                xs[i].link = link;
        Creations cs = { .xs = xs, .n = nk, .mu = PTHREAD_MUTEX_INITIALIZER };
        workers_run((unsigned) nk, creation_worker, &cs);
        pthread_mutex_destroy(&cs.mu);
        int first = 0;
        for (size_t i = 0; i < nk; i++) {
                if (xs[i].r < 0 && !first)
                        first = error_set(err, -xs[i].r, "host '%s': osd.%d on '%s': %s", host, keep[i].id,
                                          keep[i].device, xs[i].err.message);
                if (xs[i].r >= 0) {
                        json_object_array_add(made, json_object_new_int(keep[i].id));
                        convert_phase(c->j, host, keep[i].device, keep[i].id, "created");
                }
        }
        creations_done(xs, nk);
        if (first)
                return first;
        /* up and in with the class (apply's 4. and 5.) */
        if (flow && (r = osd_flow_finish(flow, (unsigned) timeout, err)) < 0)
                return r;

        /* the CRUSH place: under the host's bucket with the weight it had (a rollback purged
         * and `osd new` made again an id that is in no bucket until it is put back) */
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *tree = NULL;
        if ((r = ceph_admin_osd_tree(c->admin, &tree, err)) < 0)
                return r;
        const CephCli *cli = ceph_admin_cli(c->admin);
        bool moved = false;
        for (size_t i = 0; i < n; i++) {
                const CephTreeOsd *was = c->before ? ceph_osd_tree_find_osd(c->before, ids[i]) : NULL;
                const CephTreeOsd *now = ceph_osd_tree_find_osd(tree, ids[i]);
                double w = was ? was->crush_weight : now ? now->crush_weight : 0;
                if (now && streq_ptr(now->host, host) && (!was || fabs(now->crush_weight - was->crush_weight) < 1e-5))
                        continue;
                log_notice("host '%s': osd.%d is %s: putting it back under its host bucket with weight %.5f", host,
                           ids[i], now && now->host ? "under another bucket or weight" : "in no CRUSH bucket", w);
                if ((r = ceph_admin_run(c->admin, ceph_argv_osd_crush_create_or_move(cli, ids[i], w, host, err), NULL,
                                        NULL, err)) < 0 ||
                    (r = ceph_admin_run(c->admin, ceph_argv_osd_crush_reweight(cli, ids[i], w, err), NULL, NULL, err)) < 0)
                        return r;
                moved = true;
        }
        if (moved) {
                tree = ceph_osd_tree_free(tree);
                if ((r = ceph_admin_osd_tree(c->admin, &tree, err)) < 0)
                        return r;
        }

        /* verified: each id under this host's bucket, BlueStore, its DB on the planned partition;
         * metadata is what the OSD reported when it booted: allowed a few seconds to come */
        const char *problem = NULL;
        int bad = -1;
        /* the host as the creations left it: an encrypted OSD's DB is a mapping opened by them */
        inv = inventory_free(inv);
        if ((r = host_session_inventory(c->session, &inv, err)) < 0)
                return r;
        for (unsigned tries = 0; tries < 15; tries++) {
                meta = ceph_osd_metadata_list_free(meta);
                if ((r = ceph_admin_osd_metadata(c->admin, &meta, err)) < 0)
                        return r;
                problem = NULL;
                for (size_t i = 0; i < n && !problem; i++) {
                        const ConvertOsd *o = convert_host_find_osd(c->plan, ids[i]);
                        const ConvertPart *db = convert_host_created(c->plan, o->id, PART_ROLE_DB);
                        const CephTreeOsd *t = ceph_osd_tree_find_osd(tree, o->id);
                        const CephOsdMetadata *m = ceph_osd_metadata_find(meta, o->id);
                        bad = o->id;
                        if (!t || !streq_ptr(t->host, host))
                                problem = "is not under the host's CRUSH bucket";
                        else if (!m || !streq_ptr(m->objectstore, "bluestore"))
                                problem = "is not BlueStore in osd metadata";
                        else if (db && !db_is_planned(inv, db, m->db_path))
                                problem = "has its DB elsewhere than the planned partition in osd metadata";
                        else if (o->wanted.bcache && !on_bcache(m))
                                problem = "is not on a bcache device in osd metadata";
                }
                if (!problem)
                        break;
                sleep(2);
        }
        if (problem)
                return error_set(err, EIO, "host '%s': after the rebuild, osd.%d %s", host, bad, problem);
        for (size_t i = 0; i < n; i++) {
                const ConvertOsd *o = convert_host_find_osd(c->plan, ids[i]);
                convert_phase(c->j, host, o->data_device, o->id, "backfilling");
        }
        json_add(res, "seconds", json_object_new_double(clock_mono_sec() - t0));
        *ret = TAKE_PTR(res);
        return 0;
}
