/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "controller/hosts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/clock-util.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/strv.h"
#include "controller/ceph-admin.h"
#include "controller/cluster-lock.h"
#include "transport/fanout.h"

int hosts_select(const Layout *l, char * const *only, const Host ***ret, size_t *ret_n, Error *err) {
        STRV_FOREACH(h, only) {
                const Host *host = layout_find_host(l, *h);
                if (!host)
                        return error_set(err, ENOENT, "host '%s' is not in layout '%s'", *h, l->path);
                if (!host->profile)
                        return error_set(err, EINVAL, "host '%s' has no profile in layout '%s': no disks to manage", *h, l->path);
        }

        const Host **v = calloc(l->n_hosts + 1, sizeof(Host *));
        if (!v)
                return error_set(err, ENOMEM, "out of memory");
        size_t n = 0;
        for (size_t i = 0; i < l->n_hosts; i++) {
                const Host *h = &l->hosts[i];
                if (!h->profile)
                        continue;
                if (only && !strv_contains(only, h->name))
                        continue;
                v[n++] = h;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

static HostSession *session_of(Fleet *f, const Host *h) {
        for (size_t i = 0; i < f->n; i++)
                if (f->sessions[i].host == h)
                        return &f->sessions[i];
        return NULL;
}

int host_configure_args(const Host *h, bool dry_run, json_object **ret) {
        _cleanup_json_ json_object *a = json_object_new_object();
        if (!a || json_add(a, "allow", json_array_new_strv(h->allow)) < 0 ||
            json_add_string(a, "host", h->name) < 0 || json_add_bool(a, "dry_run", dry_run) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(a);
        return 0;
}

int agent_run_args(char * const *argv, const char *stdin_data, unsigned timeout_sec, json_object **ret) {
        _cleanup_json_ json_object *a = json_object_new_object();
        if (!a || json_add(a, "argv", json_array_new_strv(argv)) < 0 ||
            json_add_int(a, "timeout", timeout_sec) < 0 || json_add_string(a, "stdin", stdin_data) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(a);
        return 0;
}

static int channel_open(const Host *h, unsigned flags, HostChannel *ret, bool *ret_uploaded, Error *err);

/* Channels opened ahead (host_channel_prewarm): each by a thread of its own, taken by the
 * first host_channel_open() of the same host and flags. */
typedef struct Prewarm {
        const Host *host;
        unsigned flags;
        pthread_t thread;
        HostChannel ch;
        bool uploaded;
        int r;
        Error error;
        HostChannelWarm warm;
        void *warm_userdata;
        bool finished;   /* under prewarm_mu */
        bool abandoned;  /* under prewarm_mu: nobody will take it; the thread frees it */
        struct Prewarm *next;
} Prewarm;

static pthread_mutex_t prewarm_mu = PTHREAD_MUTEX_INITIALIZER;
static Prewarm *prewarm_list;

static void *prewarm_thread(void *userdata) {
        Prewarm *w = userdata;
        w->r = channel_open(w->host, w->flags, &w->ch, &w->uploaded, &w->error);
        if (w->r >= 0 && w->warm)
                w->warm(&w->ch, w->warm_userdata);
        pthread_mutex_lock(&prewarm_mu);
        w->finished = true;
        bool abandoned = w->abandoned;
        pthread_mutex_unlock(&prewarm_mu);
        if (abandoned) {
                host_channel_close(&w->ch);
                free(w);
        }
        return NULL;
}

void host_channel_prewarm(const Host *h, unsigned flags, HostChannelWarm warm, void *warm_userdata) {
        Prewarm *w = calloc(1, sizeof(Prewarm));
        if (!w)
                return; /* only an optimization: host_channel_open() connects itself */
        w->host = h;
        w->flags = flags;
        w->warm = warm;
        w->warm_userdata = warm_userdata;
        if (pthread_create(&w->thread, NULL, prewarm_thread, w) != 0) {
                free(w);
                return;
        }
        pthread_mutex_lock(&prewarm_mu);
        w->next = prewarm_list;
        prewarm_list = w;
        pthread_mutex_unlock(&prewarm_mu);
}

static Prewarm *prewarm_take(const Host *h, unsigned flags) {
        pthread_mutex_lock(&prewarm_mu);
        Prewarm **p = &prewarm_list;
        while (*p && !((*p)->host == h && (*p)->flags == flags))
                p = &(*p)->next;
        Prewarm *w = *p;
        if (w)
                *p = w->next;
        pthread_mutex_unlock(&prewarm_mu);
        if (w)
                pthread_join(w->thread, NULL);
        return w;
}

void host_channel_prewarm_end(void) {
        pthread_mutex_lock(&prewarm_mu);
        Prewarm *list = prewarm_list;
        prewarm_list = NULL;
        pthread_mutex_unlock(&prewarm_mu);
        /* one still connecting (an unreachable host's retries) is not waited for: it closes
         * what it opened and frees itself when it is done, so a command that fails early
         * fails at once */
        while (list) {
                Prewarm *w = list;
                list = w->next;
                pthread_mutex_lock(&prewarm_mu);
                bool finished = w->finished;
                if (!finished)
                        w->abandoned = true;
                pthread_mutex_unlock(&prewarm_mu);
                if (!finished) {
                        pthread_detach(w->thread);
                        continue;
                }
                pthread_join(w->thread, NULL);
                host_channel_close(&w->ch);
                free(w);
        }
}

int host_channel_open(const Host *h, unsigned flags, HostChannel *ret, bool *ret_uploaded, Error *err) {
        _cleanup_(freep) Prewarm *w = prewarm_take(h, flags);
        if (!w)
                return channel_open(h, flags, ret, ret_uploaded, err);
        if (ret_uploaded)
                *ret_uploaded = w->uploaded;
        *ret = w->ch;
        if (w->r < 0 && err)
                *err = w->error;
        return w->r;
}

static int channel_open(const Host *h, unsigned flags, HostChannel *ret, bool *ret_uploaded, Error *err) {
        HostChannel c = {};
        int r = transport_open(h, &c.transport, err);
        if (r >= 0)
                r = transport_agent_start_current(c.transport, &c.channel, ret_uploaded, err);
        if (r < 0) {
                host_channel_close(&c);
                *ret = (HostChannel) {};
                return flags & HOST_CHANNEL_ADMIN ? error_prefix(err, r, "admin host '%s'", h->name) : r;
        }

        _cleanup_json_ json_object *args = NULL, *result = NULL;
        if (flags & HOST_CHANNEL_ADMIN) {
                /* it runs `ceph` only: no disk of the admin host is its to touch */
                if (!(args = json_object_new_object()) || json_add_string(args, "host", h->name) < 0 ||
                    json_add(args, "allow", json_object_new_array()) < 0)
                        r = error_set(err, ENOMEM, "out of memory");
        } else if (host_configure_args(h, flags & HOST_CHANNEL_DRY_RUN, &args) < 0)
                r = error_set(err, ENOMEM, "out of memory");
        if (r >= 0)
                r = agent_channel_call(c.channel, "configure", args, 30, NULL, NULL, &result, err);
        if (r < 0) {
                host_channel_close(&c);
                *ret = (HostChannel) {};
                return r;
        }
        *ret = c;
        return 0;
}

void host_channel_close(HostChannel *c) {
        agent_channel_close(c->channel);
        transport_close(c->transport);
        *c = (HostChannel) {};
}

static int open_one(const Host *h, void *userdata, json_object **ret_result, Error *err) {
        Fleet *f = userdata;
        HostSession *s = session_of(f, h);
        return host_channel_open(h, f->dry_run ? HOST_CHANNEL_DRY_RUN : 0, &s->ch, &s->uploaded, err);
}

int fleet_open(const Layout *l, const Host * const *hosts, size_t n, bool dry_run, bool progress, Fleet **ret, Error *err) {
        _cleanup_(fleet_closep) Fleet *f = calloc(1, sizeof(Fleet));
        if (!f || !(f->sessions = calloc(n ? n : 1, sizeof(HostSession))))
                return error_set(err, ENOMEM, "out of memory");
        f->layout = l;
        f->dry_run = dry_run;
        f->n = n;
        for (size_t i = 0; i < n; i++) {
                f->sessions[i].host = hosts[i];
                pthread_mutex_init(&f->sessions[i].mu, NULL);
        }

        FanoutOptions fo = { .concurrency = l->concurrency, .progress = progress };
        FanoutHostResult *results = NULL;
        int r = fanout_run(hosts, n, &fo, open_one, f, &results, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                HostSession *s = session_of(f, results[i].host);
                s->r = results[i].r;
                s->error = results[i].error;
        }
        fanout_results_free(results, n);

        *ret = TAKE_PTR(f);
        return 0;
}

Fleet *fleet_close(Fleet *f) {
        if (!f)
                return NULL;
        for (size_t i = 0; i < f->n; i++) {
                HostSession *s = &f->sessions[i];
                host_channel_close(&s->ch);
                pthread_mutex_destroy(&s->mu);
        }
        free(f->sessions);
        free(f);
        return NULL;
}

size_t fleet_failed(const Fleet *f) {
        size_t n = 0;
        for (size_t i = 0; i < f->n; i++)
                if (f->sessions[i].r < 0)
                        n++;
        return n;
}

void fleet_report_failures(const Fleet *f) {
        for (size_t i = 0; i < f->n; i++)
                if (f->sessions[i].r < 0)
                        log_error("host '%s': %s", f->sessions[i].host->name, f->sessions[i].error.message);
}

int host_session_run(HostSession *s, char **argv, unsigned timeout_sec, int64_t *ret_exit, Error *err) {
        _cleanup_json_ json_object *a = NULL, *res = NULL;
        if (agent_run_args(argv, NULL, timeout_sec, &a) < 0)
                return error_set(err, ENOMEM, "out of memory");
        int r = host_session_call(s, "run", a, timeout_sec + 10, &res, err);
        if (r < 0)
                return r;
        return json_get_int(res, "exit", true, ret_exit, "run result", err);
}

void fleet_set_lock(Fleet *f, CephClusterLock *lock) {
        for (size_t i = 0; f && i < f->n; i++)
                f->sessions[i].lock = lock;
}

bool host_op_destructive(const char *op) {
        static const char *const ops[] = { "wipe", "create-gpt", "create-partition", "delete-partition",
                                           "make-bcache", "bcache-register", "bcache-attach", "bcache-tune",
                                           "bcache-teardown", "osd-create" };
        for (size_t i = 0; op && i < ELEMENTSOF(ops); i++)
                if (streq(op, ops[i]))
                        return true;
        return false;
}

int host_lease_args(CephClusterLock *lock, const char *op, json_object *args, json_object **ret_args, Error *err) {
        *ret_args = NULL;
        if (!lock || !host_op_destructive(op))
                return 0;
        int64_t left = -1;
        int r = ceph_cluster_lock_left_ms(lock, &left, err);
        if (r < 0)
                return error_prefix(err, r, "not sending '%s'", op);
        if (left < 0)
                return 0;
        /* a copy: the caller's arguments (a step's, kept for its journal record and retries)
         * stay as they were */
        _cleanup_json_ json_object *a = json_object_new_object();
        if (!a)
                return error_set(err, ENOMEM, "out of memory");
        if (args) {
                json_object_object_foreach(args, k, v)
                        if (json_object_object_add(a, k, json_object_get(v)) < 0)
                                return error_set(err, ENOMEM, "out of memory");
        }
        if (json_add_int(a, "lease_left_ms", left) < 0)
                return error_set(err, ENOMEM, "out of memory");
        *ret_args = TAKE_PTR(a);
        return 0;
}

/* An op's progress as the agent reports it (every 0.5 s: a bcache flush, an OSD's creation),
 * on the terminal as it goes when the op is a long one: nothing in its first
 * HOST_PROGRESS_AFTER_MS (most ops end before: their output stays as it was), then one line
 * at most every HOST_PROGRESS_EVERY_MS, the latest; a report that the work is done (done ==
 * total) always. */
#define HOST_PROGRESS_AFTER_MS 2000
#define HOST_PROGRESS_EVERY_MS 5000
typedef struct HostProgress {
        const char *host, *op;
        uint64_t start_ms, last_ms;
        bool shown;
} HostProgress;

static void host_progress(json_object *p, void *userdata) {
        HostProgress *hp = userdata;
        uint64_t now = clock_mono_ms(), done = 0, total = 0;
        const char *msg = NULL;
        (void) json_get_string(p, "message", false, &msg, "progress", NULL);
        (void) json_get_u64(p, "done", false, &done, "progress", NULL);
        (void) json_get_u64(p, "total", false, &total, "progress", NULL);
        if (!msg || !msg[0])
                return;
        /* a report of the end (a bcache flush's, with its rate) is always shown */
        bool end = total > 0 && done == total;
        if (!end && (now - hp->start_ms < HOST_PROGRESS_AFTER_MS || (hp->shown && now - hp->last_ms < HOST_PROGRESS_EVERY_MS)))
                return;
        if (total > 0 && done <= total)
                log_notice("host '%s': %s: %s (%.0f %%)", hp->host, hp->op, msg, 100.0 * (double) done / (double) total);
        else
                log_notice("host '%s': %s: %s", hp->host, hp->op, msg);
        hp->last_ms = now;
        hp->shown = true;
}

int host_session_call(HostSession *s, const char *op, json_object *args, unsigned timeout_sec,
                      json_object **ret_result, Error *err) {
        if (s->r < 0)
                return error_set(err, -s->r, "host '%s' is not usable: %s", s->host->name, s->error.message);
        pthread_mutex_lock(&s->mu);
        /* the lease measured right before the request goes (after waiting for the channel) */
        _cleanup_json_ json_object *leased = NULL;
        int r = host_lease_args(s->lock, op, args, &leased, err);
        if (r < 0) {
                pthread_mutex_unlock(&s->mu);
                return error_prefix(err, r, "host '%s'", s->host->name);
        }
        HostProgress hp = { .host = s->host->name, .op = op, .start_ms = clock_mono_ms() };
        r = agent_channel_call(s->ch.channel, op, leased ? leased : args, timeout_sec, host_progress, &hp, ret_result,
                               err);
        pthread_mutex_unlock(&s->mu);
        if (leased)
                ceph_cluster_lock_op_done(s->lock, op);
        return r;
}

int host_session_inventory(HostSession *s, Inventory **ret, Error *err) {
        _cleanup_json_ json_object *res = NULL;
        int r = host_session_call(s, "inventory", NULL, 120, &res, err);
        if (r < 0)
                return r;
        Inventory *inv = NULL;
        Error e = {};
        if ((r = inventory_from_json(res, &inv, &e)) < 0)
                return error_set(err, -r, "host '%s': bad inventory from its agent: %s", s->host->name, e.message);
        free(inv->host);
        if (!(inv->host = strdup(s->host->name))) {
                inventory_free(inv);
                return error_set(err, ENOMEM, "out of memory");
        }
        *ret = inv;
        return 0;
}

static int inventory_one(const Host *h, void *userdata, json_object **ret_result, Error *err) {
        Fleet *f = userdata;
        HostSession *s = session_of(f, h);
        return host_session_call(s, "inventory", NULL, 120, ret_result, err);
}

int fleet_inventory(Fleet *f, InventorySet **ret, Error *err) {
        _cleanup_(freep) const Host **hosts = calloc(f->n ? f->n : 1, sizeof(Host *));
        if (!hosts)
                return error_set(err, ENOMEM, "out of memory");
        size_t n = 0;
        for (size_t i = 0; i < f->n; i++)
                if (f->sessions[i].r >= 0)
                        hosts[n++] = f->sessions[i].host;

        FanoutOptions fo = { .concurrency = f->layout->concurrency };
        FanoutHostResult *results = NULL;
        int r = fanout_run(hosts, n, &fo, inventory_one, f, &results, err);
        if (r < 0)
                return r;

        _cleanup_(inventory_set_freep) InventorySet *set = calloc(1, sizeof(InventorySet));
        if (!set) {
                fanout_results_free(results, n);
                return error_set(err, ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < n; i++) {
                HostSession *s = session_of(f, results[i].host);
                Inventory *inv = NULL;
                if (results[i].r < 0) {
                        s->r = results[i].r;
                        s->error = results[i].error;
                        continue;
                }
                Error e = {};
                r = inventory_from_json(results[i].result, &inv, &e);
                if (r < 0) {
                        s->r = r;
                        error_set(&s->error, -r, "host '%s': bad inventory from its agent: %s", s->host->name, e.message);
                        continue;
                }
                free(inv->host);
                inv->host = strdup(s->host->name);
                if (!inv->host || inventory_set_add(set, inv) < 0) {
                        inventory_free(inv);
                        fanout_results_free(results, n);
                        return error_set(err, ENOMEM, "out of memory");
                }
        }
        fanout_results_free(results, n);
        *ret = TAKE_PTR(set);
        return 0;
}

static int link_call(void *userdata, const char *op, json_object *args, json_object **ret_result, Error *err) {
        return host_session_call(userdata, op, args, 0, ret_result, err);
}

int fleet_links(Fleet *f, HostLink **ret, size_t *ret_n) {
        HostLink *links = calloc(f->n ? f->n : 1, sizeof(HostLink));
        if (!links)
                return -ENOMEM;
        size_t n = 0;
        for (size_t i = 0; i < f->n; i++) {
                HostSession *s = &f->sessions[i];
                if (s->r < 0)
                        continue;
                links[n++] = (HostLink) { .host = s->host->name, .call = link_call, .userdata = s };
        }
        *ret = links;
        *ret_n = n;
        return 0;
}

/* Connects to the selected hosts and inventories them. Unreachable hosts are reported
 * and left out of *ret; *ret_failed counts them. Shared by inventory, plan and apply. */
int controller_inventory(const Layout *l, char * const *only, bool dry_run, bool quiet, Fleet **ret_fleet,
                  InventorySet **ret, size_t *ret_failed, Error *err) {
        _cleanup_(freep) const Host **hosts = NULL;
        size_t n;
        int r = hosts_select(l, only, &hosts, &n, err);
        if (r < 0)
                return r;
        if (n == 0)
                return error_set(err, ENOENT, "layout '%s' has no host with a profile to inventory", l->path);

        _cleanup_(fleet_closep) Fleet *f = NULL;
        r = fleet_open(l, hosts, n, dry_run, !quiet && isatty(STDERR_FILENO), &f, err);
        if (r < 0)
                return r;

        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        r = fleet_inventory(f, &inv, err);
        if (r < 0)
                return r;

        *ret_failed = fleet_failed(f);
        fleet_report_failures(f);
        *ret = TAKE_PTR(inv);
        if (ret_fleet)
                *ret_fleet = TAKE_PTR(f);
        return 0;
}

/* A shallow view of the layout with only the hosts that have an inventory, so that one
 * unreachable host does not stop planning the others. Free view->hosts only. */
static int layout_view(const Layout *l, const InventorySet *inv, Layout *view) {
        *view = *l;
        view->hosts = calloc(l->n_hosts ? l->n_hosts : 1, sizeof(Host));
        if (!view->hosts)
                return -ENOMEM;
        view->n_hosts = 0;
        for (size_t i = 0; i < l->n_hosts; i++)
                if (inventory_set_find(inv, l->hosts[i].name))
                        view->hosts[view->n_hosts++] = l->hosts[i];
        return 0;
}

/* The DB/WAL labels of OSDs whose data device is gone carry no id: named from the OSD map,
 * so the plan says "osd.1" rather than its uuid. Only when there are such labels; a cluster
 * that does not answer leaves them named by uuid. */
static void name_orphan_labels(const Layout *l, InventorySet *inv) {
        size_t n = 0;
        for (size_t i = 0; i < inv->n_hosts; i++)
                n += plan_inventory_unnamed_labels(inv->hosts[i]);
        if (n == 0 || !l->admin_host)
                return;
        _cleanup_(ceph_admin_closep) CephAdmin *admin = NULL;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *dump = NULL;
        Error err = {};
        if (ceph_admin_open(l, &admin, &err) < 0 || ceph_admin_osd_dump(admin, &dump, &err) < 0) {
                log_warning("cannot read the OSD map to name the OSDs whose data device is gone: %s", err.message);
                return;
        }
        for (size_t h = 0; h < inv->n_hosts; h++) {
                Inventory *hi = inv->hosts[h];
                for (size_t d = 0; d < hi->n_devices; d++)
                        for (size_t k = 0; k < hi->devices[d].n_partitions; k++) {
                                const InvOsd *lab = &hi->devices[d].partitions[k].content.osd;
                                if (lab->id >= 0 || !lab->osd_fsid || lab->incomplete)
                                        continue;
                                const CephDumpOsd *o = ceph_osd_dump_find_uuid(dump, lab->osd_fsid);
                                _cleanup_(freep) char *uuid = strdup(lab->osd_fsid);
                                if (!uuid)
                                        return;
                                if (o)
                                        plan_inventory_set_label_id(hi, uuid, o->id);
                                /* not in the map (purged, or `osd new` never ran) or never booted:
                                 * what an apply killed in its mkfs leaves */
                                if (!o || (!o->up && o->up_from == 0))
                                        plan_inventory_mark_stale_label(hi, uuid);
                        }
        }
}

/* Inventory the hosts and plan against what they have; also returns the inventories. */
static int plan_live(const Layout *l, char * const *only, bool dry_run, bool quiet, bool keep_going, Fleet **ret_fleet,
                     Plan **ret, InventorySet **ret_inv, size_t *ret_failed, Error *err) {
        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        _cleanup_(fleet_closep) Fleet *f = NULL;
        int r = controller_inventory(l, only, dry_run, quiet, ret_fleet ? &f : NULL, &inv, ret_failed, err);
        if (r < 0)
                return r;

        name_orphan_labels(l, inv);
        Layout view;
        if (layout_view(l, inv, &view) < 0)
                return error_set(err, ENOMEM, "out of memory");
        r = plan_compute_ext(&view, inv, &(PlanOptions) { .keep_going = keep_going }, ret, err);
        free(view.hosts);
        if (r < 0)
                return r;
        if (ret_fleet)
                *ret_fleet = TAKE_PTR(f);
        if (ret_inv)
                *ret_inv = TAKE_PTR(inv);
        return 0;
}

int controller_plan_live_inventory(const Layout *l, char * const *only, bool dry_run, bool quiet, Fleet **ret_fleet,
                                   Plan **ret, InventorySet **ret_inv, size_t *ret_failed, Error *err) {
        return plan_live(l, only, dry_run, quiet, false, ret_fleet, ret, ret_inv, ret_failed, err);
}

int controller_plan_live_all(const Layout *l, char * const *only, bool quiet, Fleet **ret_fleet, Plan **ret,
                             InventorySet **ret_inv, size_t *ret_failed, Error *err) {
        return plan_live(l, only, false, quiet, true, ret_fleet, ret, ret_inv, ret_failed, err);
}

int controller_plan_live_keep_going(const Layout *l, char * const *only, bool dry_run, bool quiet, Fleet **ret_fleet,
                                    Plan **ret, InventorySet **ret_inv, size_t *ret_failed, Error *err) {
        return plan_live(l, only, dry_run, quiet, true, ret_fleet, ret, ret_inv, ret_failed, err);
}

int controller_plan_live(const Layout *l, char * const *only, bool dry_run, bool quiet, Fleet **ret_fleet,
                  Plan **ret, size_t *ret_failed, Error *err) {
        return controller_plan_live_inventory(l, only, dry_run, quiet, ret_fleet, ret, NULL, ret_failed, err);
}

int controller_preflight(Fleet *f, Plan *p, const InventorySet *inv, unsigned stages, bool load_modules, bool drop,
                  PreflightReport **ret, Error *err) {
        _cleanup_(freep) HostLink *links = NULL;
        size_t n_links = 0;
        if (fleet_links(f, &links, &n_links) < 0)
                return error_set(err, ENOMEM, "out of memory");

        PreflightOptions po = { .stages = stages, .parallel_hosts = f->layout->concurrency, .load_modules = load_modules };
        _cleanup_(preflight_report_freep) PreflightReport *rep = NULL;
        int r = preflight_run(p, inv, links, n_links, &po, &rep, err);
        if (r < 0)
                return r;

        for (size_t i = 0; i < rep->n_hosts; i++) {
                const PreflightHost *h = &rep->hosts[i];
                HostSession *s = NULL;
                for (size_t k = 0; k < f->n && !s; k++)
                        if (streq(f->sessions[k].host->name, h->host))
                                s = &f->sessions[k];
                if (!h->refused || !s)
                        continue;
                _cleanup_(freep) char *why = preflight_host_reasons(h);
                s->r = -EOPNOTSUPP;
                error_reset(&s->error);
                error_set(&s->error, EOPNOTSUPP, "refused by the preflight: %s", why ? why : "out of memory");
        }
        if (drop && preflight_filter_plan(rep, p) < 0)
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(rep);
        return 0;
}
