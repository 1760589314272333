/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "controller/apply-osds.h"
#include "controller/cluster-lock.h"
#include "controller/cluster-steps.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basic/clock-util.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/strv.h"

#define OSD_CREATE_TIMEOUT 3600 /* seconds for one osd-create (mkfs of a big HDD takes minutes) */
#define OSD_LOCK_DIR "/run/cephprov" /* agent-osd.c */
#define OSD_INFLIGHT_SLICE 60 /* seconds of one bounded wait for an interrupted run's osd-create */

typedef enum AllocState { ALLOC_PENDING, ALLOC_READY, ALLOC_FAILED } AllocState;

typedef struct OsdAlloc {
        AllocState state;
        char *host;
        char *device;
        char *device_class;
        int id;              /* allocated */
        int final_id;        /* the OSD that ended up on the device (-1: none) */
        char fsid[37];
        bool reused;         /* allocated by an earlier, interrupted run */
        bool recreated;      /* purged by a ceph-volume rollback and made again */
        bool kept;           /* a conversion's id: never released, whatever becomes of it */
        bool created;
        double seconds;
        char *error;
        char *half_made;     /* the plan saw a half-made OSD with this osd uuid on the device */
        int half_made_id;    /* its id when the OSD map has it (-1: none) */
        bool redo;           /* proven cephprov's: the agent may erase and redo it */
} OsdAlloc;

typedef struct OsdResume {
        char *host;
        char *device;
        int id;
        bool done;
        char *error;
} OsdResume;

/* The id is ours to (re)use: never booted, no OSD on any disk claims it. */
typedef struct Candidate {
        char *host, *device;
        int id;
        bool taken;
} Candidate;

typedef enum SlotState { SLOT_EMPTY, SLOT_IDLE, SLOT_BUSY, SLOT_DEAD } SlotState;

typedef struct ChannelSlot {
        SlotState state;
        bool main;           /* the fleet's own channel (host_session_call) */
        HostChannel ch;      /* the others: host_channel_open(), opened on first use */
} ChannelSlot;

typedef struct HostPool {
        OsdFlow *flow;
        HostSession *s;
        pthread_mutex_t mu;
        pthread_cond_t cv;
        ChannelSlot *slots;
        size_t n_slots;
} HostPool;

struct OsdFlow {
        const Layout *l;
        Fleet *fleet;
        CephAdmin *admin;
        Journal *j;
        unsigned parallel;
        pthread_mutex_t mu;  /* allocs, resumes */
        OsdAlloc *allocs;
        size_t n_allocs;
        OsdResume *resumes;
        size_t n_resumes;
        HostPool *pools;
        size_t n_pools;
        char *cluster_fsid;
        Candidate *cand;     /* ids allocated by interrupted runs, reusable */
        size_t n_cand;
        JournalSnapshot *recs; /* the journal as it was before this run */
        char **inventoried;  /* hosts whose disks this run saw */
        char **drained;      /* hosts `cephprov drain` drained (records in the cluster) */
        pthread_cond_t cv;   /* an allocation is ready (with mu) */
        pthread_t allocator;
        bool allocator_running;
        OsdProgress *progress; /* borrowed; NULL: no per-OSD progress */
};

static int new_uuid(char ret[static 37]) {
        FILE *f = fopen("/proc/sys/kernel/random/uuid", "re");
        if (!f)
                return -errno;
        char buf[64] = "";
        bool ok = fgets(buf, sizeof(buf), f) != NULL;
        fclose(f);
        buf[strcspn(buf, "\n")] = 0;
        if (!ok || strlen(buf) != 36)
                return -EIO;
        memcpy(ret, buf, 37);
        return 0;
}

static void jrec(OsdFlow *f, const char *event, const char *host, const char *device, int id, const char *fsid,
                 const char *extra_key, const char *extra) {
        journal_append_osd(f->j, event, host, device, id, fsid, extra_key, extra);
}

int osd_flow_new(const Layout *l, Fleet *fleet, CephAdmin *admin, Journal *j, unsigned parallel, OsdFlow **ret,
                 Error *err) {
        _cleanup_(osd_flow_freep) OsdFlow *f = calloc(1, sizeof(OsdFlow));
        if (!f || !(f->pools = calloc(fleet->n ? fleet->n : 1, sizeof(HostPool))))
                return error_set(err, ENOMEM, "out of memory");
        pthread_mutex_init(&f->mu, NULL);
        pthread_cond_init(&f->cv, NULL);
        f->l = l;
        f->fleet = fleet;
        f->admin = admin;
        f->j = j;
        f->parallel = parallel ? parallel : 1;
        for (size_t i = 0; i < fleet->n; i++) {
                HostPool *p = &f->pools[f->n_pools++];
                p->flow = f;
                p->s = &fleet->sessions[i];
                pthread_mutex_init(&p->mu, NULL);
                pthread_cond_init(&p->cv, NULL);
                /* OSD creations get their own channels, the fleet's stays free for the disk
                 * steps of the same host; it is the last resort when no other opens */
                p->n_slots = f->parallel + 1;
                p->slots = calloc(p->n_slots, sizeof(ChannelSlot));
                if (!p->slots)
                        return error_set(err, ENOMEM, "out of memory");
                p->slots[f->parallel] = (ChannelSlot) { .state = SLOT_IDLE, .main = true };
        }
        *ret = TAKE_PTR(f);
        return 0;
}

OsdFlow *osd_flow_free(OsdFlow *f) {
        if (!f)
                return NULL;
        if (f->allocator_running)
                pthread_join(f->allocator, NULL);
        pthread_cond_destroy(&f->cv);
        for (size_t i = 0; i < f->n_pools; i++) {
                HostPool *p = &f->pools[i];
                for (size_t k = 0; k < p->n_slots; k++)
                        if (!p->slots[k].main)
                                host_channel_close(&p->slots[k].ch);
                free(p->slots);
                pthread_mutex_destroy(&p->mu);
                pthread_cond_destroy(&p->cv);
        }
        free(f->pools);
        for (size_t i = 0; i < f->n_allocs; i++) {
                free(f->allocs[i].host);
                free(f->allocs[i].device);
                free(f->allocs[i].device_class);
                free(f->allocs[i].error);
                free(f->allocs[i].half_made);
        }
        free(f->allocs);
        for (size_t i = 0; i < f->n_resumes; i++) {
                free(f->resumes[i].host);
                free(f->resumes[i].device);
                free(f->resumes[i].error);
        }
        free(f->resumes);
        free(f->cluster_fsid);
        for (size_t m = 0; m < f->n_cand; m++) {
                free(f->cand[m].host);
                free(f->cand[m].device);
        }
        free(f->cand);
        journal_snapshot_free(f->recs);
        strv_free(f->inventoried);
        strv_free(f->drained);
        pthread_mutex_destroy(&f->mu);
        free(f);
        return NULL;
}

void osd_flow_set_progress(OsdFlow *f, OsdProgress *progress) {
        f->progress = progress;
}

static HostPool *pool_of(OsdFlow *f, const char *host) {
        for (size_t i = 0; i < f->n_pools; i++)
                if (streq(f->pools[i].s->host->name, host))
                        return &f->pools[i];
        return NULL;
}

/* ---- 1. creations still running from an interrupted run ---- */

static const char *kernel_name(const char *path) {
        const char *b = strrchr(path, '/');
        return b ? b + 1 : path;
}

/* Devices whose create-osd step started in the journal but has no outcome. */
static int unfinished_steps(OsdFlow *f, char ***ret_hosts, char ***ret_devices, Error *err) {
        _cleanup_(journal_snapshot_freep) JournalSnapshot *recs = NULL;
        int r = journal_snapshot(f->j ? f->j->path : NULL, &recs, err);
        if (r < 0)
                return r;
        return journal_unfinished_steps(recs, "create-osd", ret_hosts, ret_devices, err);
}

int osd_flow_wait_inflight(OsdFlow *f, Error *err) {
        _cleanup_strv_free_ char **hosts = NULL, **devs = NULL;
        int r = unfinished_steps(f, &hosts, &devs, err);
        if (r < 0)
                return r;
        bool waited = false;
        for (size_t i = 0; hosts[i]; i++) {
                HostPool *p = pool_of(f, hosts[i]);
                if (!p || p->s->r < 0)
                        continue;
                _cleanup_(freep) char *lock = strprintf(OSD_LOCK_DIR "/osd-create-%s.lock", kernel_name(devs[i]));
                if (!lock)
                        return error_set(err, ENOMEM, "out of memory");
                if (access(OSD_LOCK_DIR, F_OK) < 0 && p->s->host->transport == TRANSPORT_LOCAL)
                        continue;
                /* held → exit 75; the lock directory missing → flock fails otherwise: not held */
                char *probe[] = { (char *) "flock", (char *) "-n", (char *) "-E", (char *) "75", lock, (char *) "true", NULL };
                int64_t code = 0;
                r = host_session_run(p->s, probe, 30, &code, err);
                if (r < 0)
                        return r;
                /* Not held now — but it may have been when the hosts were inventoried, and
                 * what that creation did since (finished an mkfs the plan saw half-made) is
                 * not in the plan: the caller plans again either way. */
                waited = true;
                if (code != 75)
                        continue;
                log_notice("host '%s': an OSD creation on '%s' from an interrupted run is still running: waiting for it",
                         hosts[i], devs[i]);
                /* bounded, in slices that say how long it has been: the holder's own
                 * osd-create cannot legitimately take longer than OSD_CREATE_TIMEOUT */
                char slice[16];
                snprintf(slice, sizeof(slice), "%u", OSD_INFLIGHT_SLICE);
                char *wait[] = { (char *) "flock", (char *) "-w", slice, (char *) "-E", (char *) "75", lock,
                                 (char *) "true", NULL };
                unsigned waited_sec = 0;
                for (;;) {
                        r = host_session_run(p->s, wait, OSD_INFLIGHT_SLICE + 30, &code, err);
                        if (r < 0)
                                return r;
                        if (code != 75)
                                break;
                        waited_sec += OSD_INFLIGHT_SLICE;
                        if (waited_sec >= OSD_CREATE_TIMEOUT)
                                return error_set(err, ETIMEDOUT,
                                                 "host '%s': the OSD creation on '%s' from an interrupted run still "
                                                 "holds '%s' after %u s (see lslocks on the host)",
                                                 hosts[i], devs[i], lock, waited_sec);
                        log_notice("host '%s': still waiting for the OSD creation on '%s' (%u s)", hosts[i], devs[i],
                                   waited_sec);
                }
                waited = true;
        }
        return waited ? 1 : 0;
}

/* ---- 2. ids up front ---- */

static bool step_selected(const HostPlan *hp, const Step *s, unsigned stages) {
        if (s->kind != STEP_CREATE_OSD || !step_in_stages(s, stages))
                return false;
        for (size_t d = 0; d < s->n_deps; d++)
                for (size_t k = 0; k < hp->n_steps; k++)
                        if (hp->steps[k].id == s->deps[d] && !step_in_stages(&hp->steps[k], stages))
                                return false; /* the executor skips it: its disk step is not selected */
        return true;
}

size_t osd_flow_count_steps(const Plan *p, unsigned stages) {
        size_t n = 0;
        for (size_t i = 0; i < p->n_hosts; i++)
                for (size_t k = 0; k < p->hosts[i].n_steps; k++)
                        if (step_selected(&p->hosts[i], &p->hosts[i].steps[k], stages))
                                n++;
        return n;
}

/* Is osd.id on some inventoried device (its main label)? */
static bool id_on_disk(const InventorySet *inv, int id) {
        for (size_t h = 0; h < inv->n_hosts; h++) {
                const Inventory *in = inv->hosts[h];
                for (size_t d = 0; d < in->n_devices; d++) {
                        const InvDevice *dev = &in->devices[d];
                        /* a half-made OSD's whoami is not an OSD: its id stays ours to redo */
                        if (dev->content.osd.id == id && !dev->content.osd.incomplete)
                                return true;
                        for (size_t k = 0; k < dev->n_partitions; k++)
                                if (dev->partitions[k].content.osd.id == id && !dev->partitions[k].content.osd.incomplete)
                                        return true;
                }
        }
        return false;
}

/* The id booted once (it is an OSD, not only an allocation): up now, or up_from > 0. */
static bool osd_booted(const CephDumpOsd *o) {
        return o && (o->up || o->up_from > 0);
}

static int earlier_allocations(OsdFlow *f, const CephOsdDump *dump, const InventorySet *inv, Candidate **ret, size_t *ret_n,
                               Error *err) {
        _cleanup_(freep) JournalOsdAllocation *recs = NULL;
        size_t nr = 0;
        int r = journal_osd_allocations(f->recs, &recs, &nr, err); /* read once by osd_flow_scan() */
        if (r < 0)
                return r;
        Candidate *c = NULL;
        size_t n = 0;
        for (size_t i = 0; i < nr; i++) {
                const char *host = recs[i].host, *dev = recs[i].device;
                int64_t id = recs[i].id;
                if (recs[i].pending) {
                        /* killed between `osd new` and its record: find the id by our uuid */
                        const CephDumpOsd *byuuid = ceph_osd_dump_find_uuid(dump, recs[i].fsid);
                        if (byuuid)
                                id = byuuid->id;
                        if (id < 0)
                                continue;
                }

                const CephDumpOsd *o = ceph_osd_dump_find_osd(dump, (int) id);
                if (!o || osd_booted(o) || id_on_disk(inv, (int) id))
                        continue;
                bool dup = false;
                for (size_t k = 0; k < n; k++)
                        if (c[k].id == id)
                                dup = true;
                if (dup)
                        continue;
                Candidate *nc = realloc(c, (n + 1) * sizeof(Candidate));
                if (!nc)
                        goto oom;
                c = nc;
                c[n] = (Candidate) { .host = strdup(host), .device = strdup(dev), .id = (int) id };
                n++;
                if (!c[n - 1].host || !c[n - 1].device)
                        goto oom;
        }
        *ret = c;
        *ret_n = n;
        return 0;
oom:
        for (size_t k = 0; k < n; k++) {
                free(c[k].host);
                free(c[k].device);
        }
        free(c);
        return error_set(err, ENOMEM, "out of memory");
}

/* Is the half-made OSD `fsid` on host:device cephprov's? Raw prepare picks its own osd
 * uuid (Pacific's has no --osd-fsid), but it runs `osd new UUID ID` with the id cephprov
 * journaled for this very host and device before ceph-volume started, and writes the label
 * only after that. So: the OSD map gives the label's uuid to an id that never booted, and
 * the journal allocated that id for this host and device — or an earlier run already proved
 * it and journaled the uuid itself. Anything else (another tool's mkfs, an id that ran, a
 * uuid nobody knows) is not ours. Returns true with *ret_id (-1: the map lost the id). */
static bool half_made_ours(const JournalSnapshot *recs, const CephOsdDump *dump, const char *host, const char *device,
                           const char *fsid, int *ret_id) {
        const CephDumpOsd *o = ceph_osd_dump_find_uuid(dump, fsid);
        if (o && osd_booted(o))
                return false;
        if (!journal_osd_started(recs, host, device, fsid, o ? o->id : -1))
                return false;
        *ret_id = o ? o->id : -1;
        return true;
}

static int set_class(OsdFlow *f, int id, const char *cls, Error *err) {
        const CephCli *cli = ceph_admin_cli(f->admin);
        /* rm first: set-device-class refuses to change an existing class */
        int r = ceph_admin_run(f->admin, ceph_argv_osd_crush_rm_device_class(cli, id, err), NULL, NULL, err);
        if (r < 0)
                return r;
        return ceph_admin_run(f->admin, ceph_argv_osd_crush_set_device_class(cli, cls, id, err), NULL, NULL, err);
}

static int destroy_id(OsdFlow *f, int id, Error *err) {
        return ceph_admin_run(f->admin, ceph_argv_osd_destroy(ceph_admin_cli(f->admin), id, err), NULL, NULL, err);
}

static int release_id(OsdFlow *f, const char *host, const char *device, int id, Error *err) {
        int r = ceph_admin_run(f->admin, ceph_argv_osd_purge(ceph_admin_cli(f->admin), id, err), NULL, NULL, err);
        if (r < 0)
                return r;
        jrec(f, "osd-released", host, device, id, NULL, NULL, NULL);
        return 0;
}

/* `ceph osd new UUID [ID]` (with the CRUSH device class) then destroy: an id ceph-volume
 * takes with --osd-id. */
static int allocate_id(OsdFlow *f, OsdAlloc *a, int want_id, Error *err) {
        if (new_uuid(a->fsid) < 0)
                return error_set(err, EIO, "cannot generate a uuid");
        jrec(f, "osd-allocating", a->host, a->device, -1, a->fsid, NULL, NULL);
        _cleanup_json_ json_object *in = json_object_new_object();
        if (!in || json_add_string(in, "crush_device_class", a->device_class) < 0)
                return error_set(err, ENOMEM, "out of memory");
        /* the cephx secrets JSON (here only the class) on stdin, as ceph-volume does */
        char **argv = ceph_argv_osd_new(ceph_admin_cli(f->admin), a->fsid, want_id, true, err);
        if (argv && (strv_extend(&argv, "-f") < 0 || strv_extend(&argv, "json") < 0)) {
                strv_free(argv);
                return error_set(err, ENOMEM, "out of memory");
        }
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(f->admin, argv, json_object_to_json_string_ext(in, JSON_C_TO_STRING_PLAIN), &out, err);
        if (r < 0)
                return r;
        if (strspn(out, " \t\r\n") == strlen(out))
                return error_set(err, EBADMSG, "'ceph osd new %s' printed no osd id", a->fsid);
        int id;
        Error e = {};
        r = ceph_osd_new_parse(out, &id, &e);
        if (r == -ENOMEM)
                return error_set(err, ENOMEM, "out of memory");
        if (r < 0)
                return error_set(err, EBADMSG, "'ceph osd new %s': %s", a->fsid, e.message);
        a->id = id;
        jrec(f, "osd-allocated", a->host, a->device, a->id, a->fsid, "device_class", a->device_class);
        return destroy_id(f, a->id, err);
}

int osd_flow_scan(OsdFlow *f, const InventorySet *inv, size_t *ret_resume, size_t *ret_dangling, Error *err) {
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        int r = ceph_admin_osd_dump(f->admin, &dump, err);
        if (r < 0)
                return r;
        free(f->cluster_fsid);
        f->cluster_fsid = strdup_null(dump->fsid);
        f->recs = journal_snapshot_free(f->recs);
        if ((r = journal_snapshot(f->j ? f->j->path : NULL, &f->recs, err)) < 0)
                return r;
        strv_free(f->inventoried);
        f->inventoried = calloc(1, sizeof(char *));
        if (!f->inventoried)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t h = 0; h < inv->n_hosts; h++)
                if (strv_extend(&f->inventoried, inv->hosts[h]->host) < 0)
                        return error_set(err, ENOMEM, "out of memory");

        r = earlier_allocations(f, dump, inv, &f->cand, &f->n_cand, err);
        if (r < 0)
                return r;

        /* A drained host stays drained: its OSDs are neither started nor marked in until
         * `drain --cancel` (the record is the cluster's, so every admin machine obeys it) */
        strv_free(f->drained);
        f->drained = NULL;
        if ((r = cluster_drained_hosts(f->admin, &f->drained, err)) < 0)
                return r;

        /* 4. prepared OSDs of this cluster on the hosts' allowed devices that do not run */
        for (size_t h = 0; h < inv->n_hosts; h++) {
                const Inventory *in = inv->hosts[h];
                if (strv_contains(f->drained, in->host))
                        continue;
                for (size_t d = 0; d < in->n_devices; d++) {
                        const InvDevice *dev = &in->devices[d];
                        const InvOsd *o = &dev->content.osd;
                        if (!dev->allowed || o->id < 0 || o->incomplete || !(o->role && streq(o->role, "block")))
                                continue;
                        if (f->cluster_fsid && o->cluster_fsid && strcasecmp(o->cluster_fsid, f->cluster_fsid) != 0)
                                continue;
                        const CephDumpOsd *e = ceph_osd_dump_find_osd(dump, o->id);
                        if (!e) {
                                log_warning("host '%s': %s carries osd.%d, which the cluster does not know: left alone",
                                            in->host, dev->path, o->id);
                                continue;
                        }
                        if (e->up)
                                continue;
                        OsdResume *nr = realloc(f->resumes, (f->n_resumes + 1) * sizeof(OsdResume));
                        if (!nr)
                                return error_set(err, ENOMEM, "out of memory");
                        f->resumes = nr;
                        f->resumes[f->n_resumes++] = (OsdResume) { .host = strdup(in->host), .device = strdup(dev->path), .id = o->id };
                }
        }
        *ret_resume = f->n_resumes;
        *ret_dangling = f->n_cand;
        return 0;
}

static void alloc_set(OsdFlow *f, OsdAlloc *a, AllocState st, const char *error) {
        pthread_mutex_lock(&f->mu);
        a->state = st;
        if (error && !a->error)
                a->error = strdup(error);
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->mu);
}

/* The lowest id that neither the cluster nor this run uses. */
static int free_id(OsdFlow *f, const CephOsdDump *dump) {
        for (int id = 0;; id++) {
                bool used = ceph_osd_dump_find_osd(dump, id) != NULL;
                for (size_t i = 0; i < f->n_allocs && !used; i++)
                        used = f->allocs[i].id == id;
                for (size_t m = 0; m < f->n_cand && !used; m++)
                        used = f->cand[m].id == id;
                if (!used)
                        return id;
        }
}

/* In plan order (so ids follow hosts and slots), one at a time, while the executor already
 * creates the OSDs whose ids are ready. A new OSD gets the lowest id the cluster does not
 * have: ceph-volume's own `ceph osd new FSID ID` creates exactly that id with the CRUSH
 * class we pass (the monitor refuses an id that exists and is not destroyed, so two
 * creations can never get one id), and nothing exists in the cluster before ceph-volume
 * runs — no id to leak when a run is killed. An id an interrupted run left in the cluster
 * (made by a ceph-volume that did not finish) is reused after `ceph osd destroy`. */
static void *allocator_main(void *userdata) {
        OsdFlow *f = userdata;
        Error err = {};
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        int r = ceph_admin_osd_dump(f->admin, &dump, &err);

        for (size_t i = 0; i < f->n_allocs; i++) {
                OsdAlloc *a = &f->allocs[i];
                if (r < 0) {
                        alloc_set(f, a, ALLOC_FAILED, err.message);
                        continue;
                }
                if (a->half_made) {
                        if (!half_made_ours(f->recs, dump, a->host, a->device, a->half_made, &a->half_made_id)) {
                                char msg[512];
                                snprintf(msg, sizeof(msg),
                                         "'%s' carries a half-made BlueStore OSD (osd uuid %s, its mkfs never finished) that no run "
                                         "of cephprov started (not in this journal, or its id has run): refusing to touch it; if its "
                                         "data is yours to lose, zap it (ceph-volume lvm zap %s) and run apply again",
                                         a->device, a->half_made, a->device);
                                jrec(f, "osd-half-made-refused", a->host, a->device, -1, a->half_made, NULL, NULL);
                                alloc_set(f, a, ALLOC_FAILED, msg);
                                continue;
                        }
                        /* journaled first: the proof outlives the id (a rollback may purge it) */
                        jrec(f, "osd-half-made-owned", a->host, a->device, a->half_made_id, a->half_made, NULL, NULL);
                        a->redo = true;
                }
                Candidate *c = NULL;
                for (size_t m = 0; m < f->n_cand && !c; m++)
                        if (!f->cand[m].taken && streq(f->cand[m].host, a->host) && streq(f->cand[m].device, a->device) &&
                            (a->half_made_id < 0 || f->cand[m].id == a->half_made_id))
                                c = &f->cand[m];
                for (size_t m = 0; m < f->n_cand && !c; m++)
                        if (!f->cand[m].taken && streq(f->cand[m].host, a->host) && streq(f->cand[m].device, a->device))
                                c = &f->cand[m];
                if (c) {
                        c->taken = true;
                        a->id = c->id;
                        a->reused = true;
                        jrec(f, "osd-allocated", a->host, a->device, a->id, NULL, "reused", "interrupted run");
                        const CephDumpOsd *o = ceph_osd_dump_find_osd(dump, a->id);
                        if (!(o && o->destroyed))
                                r = destroy_id(f, a->id, &err);
                        if (r >= 0)
                                r = set_class(f, a->id, a->device_class, &err);
                } else {
                        pthread_mutex_lock(&f->mu);
                        a->id = free_id(f, dump);
                        pthread_mutex_unlock(&f->mu);
                        jrec(f, "osd-allocated", a->host, a->device, a->id, NULL, "device_class", a->device_class);
                }
                if (r < 0) {
                        alloc_set(f, a, ALLOC_FAILED, err.message);
                        continue;
                }
                log_notice("host '%s': %s gets osd.%d (class %s%s)", a->host, a->device, a->id, a->device_class,
                           a->reused ? ", id of an interrupted run" : "");
                alloc_set(f, a, ALLOC_READY, NULL);
        }

        /* ids an interrupted run left that no device wants any more — only on hosts this run
         * inventoried: an unreachable host's pending creation may still be wanted there */
        for (size_t m = 0; m < f->n_cand; m++)
                if (!f->cand[m].taken && strv_contains(f->inventoried, f->cand[m].host)) {
                        log_notice("releasing osd.%d, left by an interrupted run for %s:%s", f->cand[m].id,
                                   f->cand[m].host, f->cand[m].device);
                        Error e = {};
                        if (release_id(f, f->cand[m].host, f->cand[m].device, f->cand[m].id, &e) < 0)
                                log_error("%s", e.message);
                        f->cand[m].taken = true;
                }
        return NULL;
}

int osd_flow_allocate(OsdFlow *f, const Plan *p, unsigned stages, Error *err) {
        size_t want = osd_flow_count_steps(p, stages);
        f->allocs = calloc(want ? want : 1, sizeof(OsdAlloc));
        if (!f->allocs)
                return error_set(err, ENOMEM, "out of memory");

        for (size_t i = 0; i < p->n_hosts; i++) {
                const HostPlan *hp = &p->hosts[i];
                for (size_t k = 0; k < hp->n_steps; k++) {
                        const Step *s = &hp->steps[k];
                        if (!step_selected(hp, s, stages))
                                continue;
                        OsdAlloc *a = &f->allocs[f->n_allocs++];
                        *a = (OsdAlloc) { .id = -1, .final_id = -1, .half_made_id = -1 };
                        if (s->half_made_osd_fsid && !(a->half_made = strdup(s->half_made_osd_fsid)))
                                return error_set(err, ENOMEM, "out of memory");
                        if (!(a->host = strdup(hp->host)) || !(a->device = strdup(s->device)) ||
                            !(a->device_class = strdup(s->device_class)))
                                return error_set(err, ENOMEM, "out of memory");
                }
        }
        if (f->n_allocs == 0 && f->n_cand == 0)
                return 0;
        int r = pthread_create(&f->allocator, NULL, allocator_main, f);
        if (r != 0)
                return error_set(err, r, "cannot start the OSD id allocator: %s", strerror(r));
        f->allocator_running = true;
        return 0;
}

/* A conversion: ids kept (destroyed, CRUSH place kept), ready at once, reused: a failed
 * creation whose ceph-volume rollback purged the id makes it again (flow_create()). */
int osd_flow_keep_ids(OsdFlow *f, const OsdKeep *keep, size_t n, Error *err) {
        if (f->allocs)
                return error_set(err, EALREADY, "the OSD flow already has its ids");
        if (!(f->allocs = calloc(n ? n : 1, sizeof(OsdAlloc))))
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                OsdAlloc *a = &f->allocs[f->n_allocs++];
                *a = (OsdAlloc) { .state = ALLOC_READY, .id = keep[i].id, .final_id = -1, .half_made_id = -1,
                                  .reused = true, .kept = true };
                if (!(a->host = strdup(keep[i].host)) || !(a->device = strdup(keep[i].device)) ||
                    !(a->device_class = strdup(keep[i].device_class)))
                        return error_set(err, ENOMEM, "out of memory");
                jrec(f, "osd-allocated", a->host, a->device, a->id, NULL, "reused", "kept by a conversion");
        }
        return 0;
}

/* ---- 3. the executor's link ---- */

static int slot_open(HostPool *p, ChannelSlot *slot, Error *err) {
        return host_channel_open(p->s->host, 0, &slot->ch, NULL, err);
}

static ChannelSlot *slot_acquire(HostPool *p) {
        pthread_mutex_lock(&p->mu);
        for (;;) {
                ChannelSlot *empty = NULL;
                bool all_dead = true;
                for (size_t i = 0; i < p->n_slots; i++)
                        if (!p->slots[i].main && p->slots[i].state != SLOT_DEAD)
                                all_dead = false;
                for (size_t i = 0; i < p->n_slots; i++) {
                        if (p->slots[i].main && !all_dead)
                                continue;
                        if (p->slots[i].state == SLOT_IDLE) {
                                p->slots[i].state = SLOT_BUSY;
                                pthread_mutex_unlock(&p->mu);
                                return &p->slots[i];
                        }
                        if (p->slots[i].state == SLOT_EMPTY && !empty)
                                empty = &p->slots[i];
                }
                if (empty) {
                        empty->state = SLOT_BUSY;
                        pthread_mutex_unlock(&p->mu);
                        Error e = {};
                        if (slot_open(p, empty, &e) >= 0)
                                return empty;
                        /* fewer channels, not a failed step: the others go on */
                        log_warning("host '%s': cannot open another agent channel, fewer OSDs at once: %s",
                                    p->s->host->name, e.message);
                        host_channel_close(&empty->ch);
                        pthread_mutex_lock(&p->mu);
                        *empty = (ChannelSlot) { .state = SLOT_DEAD };
                        pthread_cond_broadcast(&p->cv);
                        continue;
                }
                pthread_cond_wait(&p->cv, &p->mu);
        }
}

static void slot_release(HostPool *p, ChannelSlot *slot) {
        pthread_mutex_lock(&p->mu);
        slot->state = SLOT_IDLE;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
}

typedef struct PhaseCtx {
        OsdFlow *f;
        const char *host, *device;
        int id;
        int64_t last;
        int progress;        /* its osd_progress handle, -1: none */
} PhaseCtx;

/* The agent's osd-create reports its phases (1 prepare, 2 activate, 3 start): journaled, so
 * that a resume — and the kill tests — can tell where a run was when it died. */
static void phase_progress(json_object *progress, void *userdata) {
        PhaseCtx *c = userdata;
        static const char *const phases[] = { [1] = "prepare", [2] = "activate", [3] = "start" };
        int64_t done = 0;
        if (json_get_int(progress, "done", false, &done, "progress", NULL) < 0 || done < 0 || done > 3)
                return;
        /* 0: waiting for another creation's lock on the disk (agent-osd.c) */
        osd_progress_state(c->f->progress, c->progress, c->id, done == 0 ? "waiting for its disk" : phases[done]);
        if (done == 0 || done == c->last)
                return;
        c->last = done;
        jrec(c->f, "osd-phase", c->host, c->device, c->id, NULL, "phase", phases[done]);
}

static int slot_call(HostPool *p, ChannelSlot *slot, const char *op, json_object *args, int progress, json_object **ret,
                     Error *err) {
        int r = ceph_admin_lock_check(p->flow->admin, err);
        if (r < 0)
                return r;
        if (slot->main)
                return host_session_call(p->s, op, args, OSD_CREATE_TIMEOUT, ret, err);
        const char *device = NULL;
        int64_t id = -1;
        json_get_string(args, "device", false, &device, op, NULL);
        json_get_int(args, "osd_id", false, &id, op, NULL);
        PhaseCtx pc = { .f = p->flow, .host = p->s->host->name, .device = device, .id = (int) id, .progress = progress };
        /* the lease goes with it, measured now, as over the host's session (hosts.h) */
        _cleanup_json_ json_object *leased = NULL;
        if ((r = host_lease_args(p->flow->admin ? p->flow->admin->lock : NULL, op, args, &leased, err)) < 0)
                return error_prefix(err, r, "host '%s'", p->s->host->name);
        r = agent_channel_call(slot->ch.channel, op, leased ? leased : args, OSD_CREATE_TIMEOUT, phase_progress, &pc, ret,
                               err);
        if (leased)
                ceph_cluster_lock_op_done(p->flow->admin->lock, op);
        return r;
}

/* The OSD map as it is now, for the agent to judge a BlueStore label it would erase (on a
 * DB/WAL partition given for a data device without one: agent_label_erasable()): taken at
 * each call, after the allocator destroyed an id it reuses — the killed creation's own DB
 * label then belongs to a destroyed OSD (its uuid zeroed by Ceph), not to a live one. When
 * the map cannot be read the request goes without it and the agent erases no such label
 * but the redo's. */
static int osd_map_arg(OsdFlow *f, json_object *args, Error *err) {
        if (!f->admin)
                return 0;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        Error e = {};
        if (ceph_admin_osd_dump(f->admin, &dump, &e) < 0) {
                log_warning("cannot read the OSD map for an OSD creation (%s): its agent will erase no BlueStore label "
                            "on its DB/WAL partitions but a half-made OSD's it redoes",
                            e.message);
                return 0;
        }
        json_object *m = ceph_osd_dump_identities_to_json(dump);
        if (!m || json_add(args, "osd_map", m) < 0)
                return error_set(err, ENOMEM, "out of memory");
        return 0;
}

static int pool_osd_create(HostPool *p, const char *device, int id, const char *redo_fsid, json_object *step_args,
                           int progress, json_object **ret, Error *err) {
        _cleanup_json_ json_object *args = NULL;
        if (step_args) {
                if (json_object_deep_copy(step_args, &args, NULL) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        } else if (!(args = json_object_new_object()) || json_add_string(args, "device", device) < 0)
                return error_set(err, ENOMEM, "out of memory");
        json_object_object_del(args, "osd_id");
        json_add_int(args, "osd_id", id);
        json_object_object_del(args, "redo_osd_fsid");
        json_add_string(args, "redo_osd_fsid", redo_fsid);
        json_object_object_del(args, "osd_map");
        if (osd_map_arg(p->flow, args, err) < 0)
                return -err->code;

        ChannelSlot *slot = slot_acquire(p);
        int r = slot_call(p, slot, "osd-create", args, progress, ret, err);
        slot_release(p, slot);
        return r;
}

static OsdAlloc *alloc_find(OsdFlow *f, const char *host, const char *device) {
        for (size_t i = 0; i < f->n_allocs; i++)
                if (streq(f->allocs[i].host, host) && streq(f->allocs[i].device, device))
                        return &f->allocs[i];
        return NULL;
}

static int flow_create(HostPool *p, json_object *args, json_object **ret, Error *err) {
        OsdFlow *f = p->flow;
        const char *host = p->s->host->name, *device = NULL;
        int r = json_get_string(args, "device", true, &device, "osd-create", err);
        if (r < 0)
                return r;
        OsdAlloc *a = alloc_find(f, host, device);
        if (!a)
                return error_set(err, ENOENT, "host '%s': no OSD id was allocated for '%s'", host, device);
        pthread_mutex_lock(&f->mu);
        int prog = osd_progress_begin(f->progress, host, device, a->state == ALLOC_READY ? a->id : -1,
                                      a->state == ALLOC_PENDING ? "waiting for its id" : "starting");
        while (a->state == ALLOC_PENDING)
                pthread_cond_wait(&f->cv, &f->mu);
        pthread_mutex_unlock(&f->mu);
        if (a->state == ALLOC_FAILED) {
                osd_progress_end(f->progress, prog, -1, false);
                return error_set(err, EIO, "host '%s': cannot allocate an OSD id for '%s': %s", host, device,
                                 a->error ? a->error : "unknown error");
        }
        osd_progress_state(f->progress, prog, a->id, "starting");

        double t0 = clock_mono_sec();
        _cleanup_json_ json_object *res = NULL;
        r = pool_osd_create(p, device, a->id, a->redo ? a->half_made : NULL, args, prog, &res, err);
        if (r < 0) {
                /* After a failed ceph-volume: its rollback (`osd purge-new`) removes the id — a
                 * destroyed id reused for this device loses its CRUSH slot and is made again;
                 * an id some other creator took meanwhile is replaced by a free one. Then one
                 * more try. */
                Error e2 = {};
                _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
                pthread_mutex_lock(&f->mu);
                int rr = ceph_admin_osd_dump(f->admin, &dump, &e2);
                const CephDumpOsd *o = rr >= 0 ? ceph_osd_dump_find_osd(dump, a->id) : NULL;
                bool retry = false;
                if (rr >= 0 && !o && a->reused) {
                        log_warning("host '%s': osd.%d was purged by ceph-volume's rollback after: %s; recreating it and retrying once",
                                    host, a->id, err->message);
                        rr = allocate_id(f, a, a->id, &e2);
                        if (rr >= 0)
                                rr = set_class(f, a->id, a->device_class, &e2);
                        a->recreated = rr >= 0;
                        jrec(f, "osd-id-recreated", host, device, a->id, a->fsid, "after", err->message);
                        retry = rr >= 0;
                } else if (rr >= 0 && !o) {
                        log_warning("host '%s': creating osd.%d on %s failed (%s); the id is free again, retrying once",
                                    host, a->id, device, err->message);
                        retry = true;
                } else if (rr >= 0 && !a->reused && osd_booted(o)) {
                        int old = a->id;
                        a->id = -1;
                        a->id = free_id(f, dump);
                        log_warning("host '%s': osd.%d was taken by another OSD creation; using osd.%d and retrying once",
                                    host, old, a->id);
                        jrec(f, "osd-allocated", host, device, a->id, NULL, "replaces", "id taken meanwhile");
                        retry = true;
                }
                pthread_mutex_unlock(&f->mu);
                if (retry) {
                        json_object_put(res);
                        res = NULL;
                        error_reset(err);
                        r = pool_osd_create(p, device, a->id, a->redo ? a->half_made : NULL, args, prog, &res, err);
                } else if (rr < 0)
                        error_prefix(err, r, "cannot recover osd.%d (%s)", a->id, e2.message);
        }
        a->seconds = clock_mono_sec() - t0;
        if (r < 0) {
                osd_progress_end(f->progress, prog, a->id, false);
                a->error = strdup(err->message);
                jrec(f, "osd-failed", host, device, a->id, NULL, "error", err->message);
                return r;
        }

        int64_t final = a->id;
        json_get_int(res, "osd_id", false, &final, "osd-create", NULL);
        a->final_id = (int) final;
        a->created = true;
        osd_progress_end(f->progress, prog, a->final_id, true);
        if (f->j) {
                json_object *o = json_object_new_object();
                json_add_string(o, "host", host);
                json_add_string(o, "device", device);
                json_add_int(o, "osd_id", a->final_id);
                const char *fsid = NULL;
                if (json_get_string(res, "osd_fsid", false, &fsid, "osd-create", NULL) >= 0)
                        json_add_string(o, "osd_fsid", fsid);
                json_add(o, "seconds", json_object_new_double(a->seconds));
                json_object *v;
                const char *keys[] = { "seconds_prepare", "seconds_activate", "seconds_start", "seconds_lock_wait", "block_db",
                                       "links_made" };
                for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                        if (json_object_object_get_ex(res, keys[i], &v))
                                json_add(o, keys[i], json_object_get(v));
                journal_append(f->j, "osd-created", o, NULL);
        }
        *ret = TAKE_PTR(res);
        return 0;
}

static int pool_call(void *userdata, const char *op, json_object *args, json_object **ret_result, Error *err) {
        HostPool *p = userdata;
        if (streq(op, "osd-create"))
                return flow_create(p, args, ret_result, err);
        return host_session_call(p->s, op, args, 0, ret_result, err);
}

int osd_flow_links(OsdFlow *f, HostLink **ret, size_t *ret_n) {
        HostLink *links = calloc(f->n_pools ? f->n_pools : 1, sizeof(HostLink));
        if (!links)
                return -ENOMEM;
        size_t n = 0;
        for (size_t i = 0; i < f->n_pools; i++) {
                HostPool *p = &f->pools[i];
                if (p->s->r < 0)
                        continue;
                links[n++] = (HostLink) { .host = p->s->host->name, .call = pool_call, .userdata = p };
        }
        *ret = links;
        *ret_n = n;
        return 0;
}

/* ---- 4. and 5. ---- */

int osd_flow_finish(OsdFlow *f, unsigned timeout_sec, Error *err) {
        int r, first = 0;
        Error e = {};

        if (f->allocator_running) {
                pthread_join(f->allocator, NULL);
                f->allocator_running = false;
        }

        for (size_t i = 0; i < f->n_resumes; i++) {
                OsdResume *s = &f->resumes[i];
                HostPool *p = pool_of(f, s->host);
                if (!p || p->s->r < 0)
                        continue;
                _cleanup_json_ json_object *res = NULL;
                log_notice("host '%s': osd.%d on %s is prepared but not running: activating and starting it", s->host,
                         s->id, s->device);
                Error re = {};
                r = pool_osd_create(p, s->device, s->id, NULL, NULL, -1, &res, &re);
                jrec(f, r < 0 ? "osd-resume-failed" : "osd-resumed", s->host, s->device, s->id, NULL, "error",
                     r < 0 ? re.message : NULL);
                if (r < 0) {
                        s->error = strdup(re.message);
                        if (!first)
                                first = error_set(err, -r, "%s", re.message);
                } else
                        s->done = true;
        }

        /* ids not used: skipped or failed creations, and those replaced by an adopted OSD */
        for (size_t i = 0; i < f->n_allocs; i++) {
                OsdAlloc *a = &f->allocs[i];
                if (a->id < 0 || a->kept || (a->created && a->final_id == a->id))
                        continue;
                _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
                if (ceph_admin_osd_dump(f->admin, &dump, &e) < 0)
                        break;
                const CephDumpOsd *o = ceph_osd_dump_find_osd(dump, a->id);
                if (!o || osd_booted(o) || !o->destroyed)
                        continue;
                r = release_id(f, a->host, a->device, a->id, &e);
                if (r < 0 && !first)
                        first = error_set(err, -r, "%s", e.message);
        }

        /* wait for up, mark in, check the class */
        double deadline = clock_mono_sec() + timeout_sec;
        jrec(f, "osd-wait-up", NULL, NULL, -1, NULL, NULL, NULL);
        for (;;) {
                _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
                r = ceph_admin_osd_dump(f->admin, &dump, &e);
                if (r < 0)
                        return first ? first : error_set(err, -r, "%s", e.message);
                int waiting = -1;
                for (size_t i = 0; i < f->n_allocs + f->n_resumes; i++) {
                        bool isalloc = i < f->n_allocs;
                        int id = isalloc ? f->allocs[i].final_id : f->resumes[i - f->n_allocs].id;
                        if (isalloc ? !f->allocs[i].created : !f->resumes[i - f->n_allocs].done)
                                continue;
                        const CephDumpOsd *o = ceph_osd_dump_find_osd(dump, id);
                        if (!(o && o->up)) {
                                waiting = id;
                                continue;
                        }
                        if (!o->in) {
                                r = ceph_admin_run(f->admin, ceph_argv_osd_in(ceph_admin_cli(f->admin), &id, 1, &e), NULL,
                                                   NULL, &e);
                                if (r < 0 && !first)
                                        first = error_set(err, -r, "%s", e.message);
                        }
                }
                if (waiting < 0) {
                        jrec(f, "osd-all-up", NULL, NULL, -1, NULL, NULL, NULL);
                        break;
                }
                if (clock_mono_sec() > deadline) {
                        if (!first)
                                first = error_set(err, ETIMEDOUT, "osd.%d is not up %u s after it was started", waiting,
                                                  timeout_sec);
                        break;
                }
                sleep(1);
        }

        _cleanup_(ceph_osd_tree_freep) CephOsdTree *tree = NULL;
        r = ceph_admin_osd_tree(f->admin, &tree, &e);
        if (r < 0)
                return first ? first : error_set(err, -r, "%s", e.message);
        for (size_t i = 0; i < f->n_allocs; i++) {
                OsdAlloc *a = &f->allocs[i];
                if (!a->created)
                        continue;
                const CephTreeOsd *t = ceph_osd_tree_find_osd(tree, a->final_id);
                const char *cls = t ? t->device_class : NULL;
                if (streq_ptr(cls, a->device_class))
                        continue;
                log_notice("osd.%d has class '%s', the layout wants '%s': setting it", a->final_id, cls ? cls : "none",
                         a->device_class);
                r = set_class(f, a->final_id, a->device_class, &e);
                if (r < 0 && !first)
                        first = error_set(err, -r, "%s", e.message);
        }
        for (size_t i = 0; i < f->n_allocs && !first; i++)
                if (!f->allocs[i].created)
                        first = error_set(err, EIO, "host '%s': no OSD on '%s'%s%s", f->allocs[i].host, f->allocs[i].device,
                                          f->allocs[i].error ? ": " : " (its step did not run)",
                                          f->allocs[i].error ? f->allocs[i].error : "");
        return first;
}

OsdOutcomes *osd_outcomes_free(OsdOutcomes *o) {
        if (!o)
                return NULL;
        for (size_t i = 0; i < o->n; i++) {
                free(o->osds[i].host);
                free(o->osds[i].device);
                free(o->osds[i].device_class);
                free(o->osds[i].error);
        }
        free(o->osds);
        free(o);
        return NULL;
}

int osd_flow_outcomes(const OsdFlow *f, OsdOutcomes **ret) {
        _cleanup_(osd_outcomes_freep) OsdOutcomes *o = calloc(1, sizeof(OsdOutcomes));
        size_t n = f->n_allocs + f->n_resumes;
        if (!o || !(o->osds = calloc(n ? n : 1, sizeof(OsdOutcome))))
                return -ENOMEM;
        for (size_t i = 0; i < f->n_allocs; i++) {
                const OsdAlloc *a = &f->allocs[i];
                OsdOutcome *x = &o->osds[o->n++];
                *x = (OsdOutcome) {
                        .host = strdup(a->host),
                        .device = strdup(a->device),
                        .device_class = strdup_null(a->device_class),
                        .error = strdup_null(a->error),
                        .id = a->created ? a->final_id : a->id,
                        .adopted = a->created && a->final_id != a->id,
                        .created = a->created,
                        .reused_id = a->reused,
                        .recreated_id = a->recreated,
                        .seconds = a->seconds,
                };
                if (!x->host || !x->device || (a->device_class && !x->device_class) || (a->error && !x->error))
                        return -ENOMEM;
        }
        for (size_t i = 0; i < f->n_resumes; i++) {
                const OsdResume *s = &f->resumes[i];
                OsdOutcome *x = &o->osds[o->n++];
                *x = (OsdOutcome) {
                        .host = strdup(s->host),
                        .device = strdup(s->device),
                        .error = strdup_null(s->error),
                        .id = s->id,
                        .resumed = true,
                        .created = s->done,
                };
                if (!x->host || !x->device || (s->error && !x->error))
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(o);
        return 0;
}

void osd_outcomes_print(const OsdOutcomes *o, FILE *out) {
        if (o->n == 0)
                return;
        fprintf(out, "\n%-12s %-22s %6s %8s  %s\n", "HOST", "DEVICE", "OSD", "TIME", "OUTCOME");
        for (size_t i = 0; i < o->n; i++) {
                const OsdOutcome *x = &o->osds[i];
                if (x->resumed) {
                        fprintf(out, "%-12s %-22s %6d %8s  %s\n", x->host, x->device, x->id, "-",
                                x->created ? "activated and started (it was on disk, not running)"
                                : x->error ? x->error
                                           : "not started");
                        continue;
                }
                char idb[16];
                snprintf(idb, sizeof(idb), "%d", x->id);
                fprintf(out, "%-12s %-22s %6s %7.1fs  %s%s%s\n", x->host, x->device, idb, x->seconds,
                        x->created ? "created" : x->error ? x->error : "not run",
                        x->adopted ? " (adopted the OSD already on the device)" : "",
                        x->recreated_id ? " (id recreated after a ceph-volume rollback)" : "");
        }
}

int osd_outcomes_to_json(const OsdOutcomes *o, json_object **ret) {
        _cleanup_json_ json_object *arr = json_object_new_array();
        if (!arr)
                return -ENOMEM;
        for (size_t i = 0; i < o->n; i++) {
                const OsdOutcome *x = &o->osds[i];
                json_object *j = json_object_new_object();
                if (!j || json_object_array_add(arr, j) < 0)
                        return -ENOMEM;
                json_add_string(j, "host", x->host);
                json_add_string(j, "device", x->device);
                json_add_int(j, "osd_id", x->id);
                if (x->resumed) {
                        json_add_bool(j, "resumed", true);
                        json_add_bool(j, "created", x->created);
                        json_add_string(j, "error", x->error);
                        continue;
                }
                json_add_string(j, "device_class", x->device_class);
                json_add(j, "seconds", json_object_new_double(x->seconds));
                json_add_bool(j, "created", x->created);
                json_add_bool(j, "reused_id", x->reused_id);
                json_add_bool(j, "recreated_id", x->recreated_id);
                json_add_string(j, "error", x->error);
        }
        *ret = TAKE_PTR(arr);
        return 0;
}

char * const *osd_flow_drained(const OsdFlow *f) {
        return f->drained;
}
