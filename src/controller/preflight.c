/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "preflight.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller/step-requests.h"
#include "basic/color.h"
#include "basic/json-util.h"
#include "basic/strv.h"
#include "basic/workers.h"
#include "yaml/yaml-schema.h"

static void check_done(PreflightCheck *c) {
        free(c->check);
        free(c->subject);
        free(c->text);
}

static void host_done(PreflightHost *h) {
        for (size_t i = 0; i < h->n_checks; i++)
                check_done(&h->checks[i]);
        free(h->checks);
        free(h->host);
}

PreflightReport *preflight_report_free(PreflightReport *r) {
        if (!r)
                return NULL;
        for (size_t i = 0; i < r->n_hosts; i++)
                host_done(&r->hosts[i]);
        free(r->hosts);
        free(r);
        return NULL;
}

/* The devices a step names (the keys agent_request_from_step() uses). */
static void step_devices(const Step *s, const char *ret[static 5]) {
        ret[0] = s->device;
        ret[1] = s->part_device;
        ret[2] = s->db_device;
        ret[3] = s->wal_device;
        ret[4] = s->journal_device;
}

/* A string, or an explicit null: "the plan saw none" is something to compare too. */
static int add_string_or_null(json_object *o, const char *key, const char *value) {
        if (value)
                return json_add_string(o, key, value);
        return json_object_object_add(o, key, NULL) < 0 ? -ENOMEM : 0;
}

/* What the plan saw of a device: the keys check_identity() in the agent compares. */
static int device_seen(const InvDevice *d, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o || json_add_string(o, "path", d->path) < 0 || json_add_u64(o, "size", d->size) < 0 ||
            add_string_or_null(o, "pttype", d->pttype) < 0 || add_string_or_null(o, "ptuuid", d->ptuuid) < 0 ||
            add_string_or_null(o, "fstype", d->content.fstype) < 0 ||
            json_add_u64(o, "partitions", d->n_partitions) < 0)
                return -ENOMEM;
        /* absent, not null: a disk without a serial is not compared by serial */
        if ((d->serial && json_add_string(o, "serial", d->serial) < 0) || (d->wwn && json_add_string(o, "wwn", d->wwn) < 0))
                return -ENOMEM;
        *ret = TAKE_PTR(o);
        return 0;
}

int preflight_args(const HostPlan *hp, const Inventory *inv, const PreflightOptions *o, json_object **ret,
                   Error *err) {
        _cleanup_json_ json_object *args = json_object_new_object();
        json_object *steps = json_object_new_array(), *devices = json_object_new_array();
        if (!args || json_add(args, "steps", steps) < 0 || json_add(args, "devices", devices) < 0)
                return error_set(err, ENOMEM, "out of memory");

        unsigned needs = 0;
        _cleanup_strv_free_ char **seen = calloc(1, sizeof(char *));
        if (!seen)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < hp->n_steps; i++) {
                const Step *s = &hp->steps[i];
                if (!step_in_stages(s, o->stages))
                        continue;
                needs |= agent_step_needs(s);

                json_object *req = NULL;
                int r = agent_request_from_step(s, &req);
                if (r < 0)
                        return error_set(err, -r, "host '%s': step #%u (%s on '%s') has no agent request", hp->host,
                                         s->id, step_kind_to_string(s->kind), s->device);
                if (json_object_array_add(steps, req) < 0) {
                        json_object_put(req);
                        return error_set(err, ENOMEM, "out of memory");
                }

                const char *devs[5];
                step_devices(s, devs);
                for (size_t k = 0; k < ELEMENTSOF(devs); k++) {
                        const InvDevice *d = devs[k] && inv ? inventory_find_device(inv, devs[k]) : NULL;
                        if (!d || strv_contains(seen, d->path))
                                continue;
                        json_object *dj = NULL;
                        if (strv_extend(&seen, d->path) < 0 || device_seen(d, &dj) < 0 ||
                            json_object_array_add(devices, dj) < 0) {
                                json_object_put(dj);
                                return error_set(err, ENOMEM, "out of memory");
                        }
                }
        }
        if (json_object_array_length(steps) == 0) {
                *ret = NULL;
                return 0;
        }
        json_object *nj = agent_needs_to_json(needs);
        if (!nj || json_add(args, "needs", nj) < 0 || json_add_bool(args, "load_modules", o->load_modules) < 0)
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(args);
        return 0;
}

static int host_add_check(PreflightHost *h, const char *check, const char *subject, bool ok, const char *text) {
        PreflightCheck *nv = realloc(h->checks, (h->n_checks + 1) * sizeof(PreflightCheck));
        if (!nv)
                return -ENOMEM;
        h->checks = nv;
        PreflightCheck *c = &h->checks[h->n_checks];
        *c = (PreflightCheck) {
                .check = strdup(check ? check : "?"),
                .subject = strdup_null(subject),
                .ok = ok,
                .text = strdup(text ? text : ""),
        };
        if (!c->check || (subject && !c->subject) || !c->text) {
                check_done(c);
                return -ENOMEM;
        }
        h->n_checks++;
        if (!ok)
                h->refused = true;
        return 0;
}

typedef struct Job {
        const HostPlan *hp;
        const Inventory *inv;
        const HostLink *link;
        PreflightHost *out;
        int r;                   /* -ENOMEM or a bad plan: the whole run fails */
        Error err;
} Job;

typedef struct Pool {
        Job *jobs;
        size_t n, next;
        const PreflightOptions *o;
        pthread_mutex_t mu;
} Pool;

static void job_run(Job *j, const PreflightOptions *o) {
        _cleanup_json_ json_object *args = NULL, *result = NULL;
        j->r = preflight_args(j->hp, j->inv, o, &args, &j->err);
        if (j->r < 0 || !args)
                return;

        Error e = {};
        int r = j->link ? j->link->call(j->link->userdata, "preflight", args, &result, &e)
                        : error_set(&e, ENOTCONN, "no connection to host '%s'", j->hp->host);
        if (r < 0) {
                /* an agent that cannot tell is no better than one that says no */
                if (host_add_check(j->out, "agent", NULL, false, e.message) < 0)
                        j->r = error_set(&j->err, ENOMEM, "out of memory");
                return;
        }
        json_object *checks = json_object_object_get(result, "checks");
        if (!json_object_is_type(checks, json_type_array)) {
                if (host_add_check(j->out, "agent", NULL, false, "the preflight answer has no \"checks\"") < 0)
                        j->r = error_set(&j->err, ENOMEM, "out of memory");
                return;
        }
        for (size_t i = 0; i < json_object_array_length(checks); i++) {
                json_object *c = json_object_array_get_idx(checks, i);
                bool ok = json_object_get_boolean(json_object_object_get(c, "ok"));
                const char *text = json_object_get_string(json_object_object_get(c, ok ? "detail" : "reason"));
                if (host_add_check(j->out, json_object_get_string(json_object_object_get(c, "check")),
                                   json_object_get_string(json_object_object_get(c, "subject")), ok, text) < 0) {
                        j->r = error_set(&j->err, ENOMEM, "out of memory");
                        return;
                }
        }
}

static void *pool_worker(void *userdata) {
        Pool *p = userdata;
        for (;;) {
                pthread_mutex_lock(&p->mu);
                size_t i = p->next++;
                pthread_mutex_unlock(&p->mu);
                if (i >= p->n)
                        return NULL;
                job_run(&p->jobs[i], p->o);
        }
}

static const HostLink *link_find(const HostLink *links, size_t n, const char *host) {
        for (size_t i = 0; i < n; i++)
                if (streq(links[i].host, host))
                        return &links[i];
        return NULL;
}

int preflight_run(const Plan *p, const InventorySet *inv, const HostLink *links, size_t n_links,
                  const PreflightOptions *o, PreflightReport **ret, Error *err) {
        _cleanup_(preflight_report_freep) PreflightReport *rep = calloc(1, sizeof(PreflightReport));
        _cleanup_(freep) Job *jobs = calloc(p->n_hosts ? p->n_hosts : 1, sizeof(Job));
        if (!rep || !jobs || !(rep->hosts = calloc(p->n_hosts ? p->n_hosts : 1, sizeof(PreflightHost))))
                return error_set(err, ENOMEM, "out of memory");

        size_t n = 0;
        for (size_t i = 0; i < p->n_hosts; i++) {
                const HostPlan *hp = &p->hosts[i];
                bool any = false;
                for (size_t k = 0; k < hp->n_steps && !any; k++)
                        any = step_in_stages(&hp->steps[k], o->stages);
                if (!any)
                        continue;
                PreflightHost *h = &rep->hosts[rep->n_hosts++];
                if (!(h->host = strdup(hp->host)))
                        return error_set(err, ENOMEM, "out of memory");
                jobs[n++] = (Job) {
                        .hp = hp,
                        .inv = inv ? inventory_set_find(inv, hp->host) : NULL,
                        .link = link_find(links, n_links, hp->host),
                        .out = h,
                };
        }

        Pool pool = { .jobs = jobs, .n = n, .o = o };
        pthread_mutex_init(&pool.mu, NULL);
        unsigned want = o->parallel_hosts ? o->parallel_hosts : 1;
        if (want > n)
                want = (unsigned) n;
        workers_run(want, pool_worker, &pool);
        pthread_mutex_destroy(&pool.mu);

        for (size_t i = 0; i < n; i++)
                if (jobs[i].r < 0) {
                        *err = jobs[i].err;
                        return jobs[i].r;
                }
        for (size_t i = 0; i < rep->n_hosts; i++)
                if (rep->hosts[i].refused)
                        rep->n_refused++;
        *ret = TAKE_PTR(rep);
        return 0;
}

bool preflight_refused(const PreflightReport *r, const char *host) {
        for (size_t i = 0; r && i < r->n_hosts; i++)
                if (streq(r->hosts[i].host, host))
                        return r->hosts[i].refused;
        return false;
}

char *preflight_host_reasons(const PreflightHost *h) {
        _cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
        for (size_t i = 0; l && i < h->n_checks; i++) {
                const PreflightCheck *c = &h->checks[i];
                if (!c->ok && strv_consume(&l, strprintf("%s: %s", c->check, c->text)) < 0)
                        return NULL;
        }
        return l ? strv_join(l, "; ") : NULL;
}

int preflight_filter_plan(const PreflightReport *r, Plan *p) {
        if (!r || r->n_refused == 0)
                return 0;
        /* borrowed names: plan_filter_hosts() frees only the plans it drops */
        _cleanup_(freep) char **keep = calloc(p->n_hosts + 1, sizeof(char *));
        if (!keep)
                return -ENOMEM;
        size_t k = 0;
        for (size_t i = 0; i < p->n_hosts; i++)
                if (!preflight_refused(r, p->hosts[i].host))
                        keep[k++] = p->hosts[i].host;
        plan_filter_hosts(p, keep);
        return 0;
}

void preflight_report_print(const PreflightReport *r, FILE *f) {
        if (!r || r->n_refused == 0)
                return;
        fputc('\n', f);
        for (size_t i = 0; i < r->n_hosts; i++) {
                const PreflightHost *h = &r->hosts[i];
                for (size_t k = 0; h->refused && k < h->n_checks; k++)
                        if (!h->checks[k].ok)
                                fprintf(f, "host '%s': %srefused%s: %s: %s\n", h->host, color_on(f, COLOR_ERROR), color_off(f),
                                        h->checks[k].check, h->checks[k].text);
        }
        fprintf(f, "%zu host%s refused by the preflight: nothing is done on %s\n", r->n_refused,
                r->n_refused == 1 ? "" : "s", r->n_refused == 1 ? "it" : "them");
}

int preflight_report_to_json(const PreflightReport *r, json_object **ret) {
        _cleanup_json_ json_object *a = json_object_new_array();
        if (!a)
                return -ENOMEM;
        for (size_t i = 0; r && i < r->n_hosts; i++) {
                const PreflightHost *h = &r->hosts[i];
                json_object *hj = json_object_new_object(), *cj = json_object_new_array();
                if (!hj || json_object_array_add(a, hj) < 0) {
                        json_object_put(hj);
                        json_object_put(cj);
                        return -ENOMEM;
                }
                if (json_add_string(hj, "host", h->host) < 0 || json_add_bool(hj, "refused", h->refused) < 0 ||
                    json_add(hj, "checks", cj) < 0)
                        return -ENOMEM;
                for (size_t k = 0; k < h->n_checks; k++) {
                        const PreflightCheck *c = &h->checks[k];
                        json_object *o = json_array_add_object(cj);
                        if (!o)
                                return -ENOMEM;
                        if (json_add_string(o, "check", c->check) < 0 || json_add_string(o, "subject", c->subject) < 0 ||
                            json_add_bool(o, "ok", c->ok) < 0 || json_add_string(o, c->ok ? "detail" : "reason", c->text) < 0)
                                return -ENOMEM;
                }
        }
        *ret = TAKE_PTR(a);
        return 0;
}

/* validate --check-hosts (preflight.h) */
int preflight_identity_files(const Layout *l, bool check_files, YamlDiags *d) {
        for (size_t i = 0; i < l->n_hosts; i++) {
                const SshOptions *o = &l->hosts[i].ssh;
                if (!o->identity || l->hosts[i].transport != TRANSPORT_SSH)
                        continue;
                bool seen = false;
                for (size_t j = 0; j < i && !seen; j++)
                        seen = l->hosts[j].ssh.identity && l->hosts[j].transport == TRANSPORT_SSH &&
                               l->hosts[j].ssh.identity_mark.line == o->identity_mark.line &&
                               l->hosts[j].ssh.identity_mark.column == o->identity_mark.column;
                if (seen)
                        continue;

                _cleanup_(freep) char *path = NULL, *msg = NULL;
                const char *id = o->identity;
                if (id[0] == '~' && id[1] != '/' && id[1] != 0) {
                        msg = strprintf("identity '%s': cephprov expands only '~/' (the home of the user running it): write the full path",
                                        id);
                        if (!msg || yaml_diags_add(d, false, o->identity_mark, NULL, msg) < 0)
                                return -ENOMEM;
                        continue;
                }
                if (!check_files)
                        continue;
                if (id[0] == '~') {
                        const char *home = getenv("HOME");
                        if (!home || !home[0]) {
                                msg = strprintf("identity '%s' not checked: HOME is not set, so '~' cannot be resolved here", id);
                                if (!msg || yaml_diags_add(d, true, o->identity_mark, NULL, msg) < 0)
                                        return -ENOMEM;
                                continue;
                        }
                        path = strprintf("%s%s", home, id + 1);
                } else
                        path = strdup(id);
                if (!path)
                        return -ENOMEM;
                if (access(path, R_OK) < 0) {
                        int e = errno;
                        if (streq(path, id))
                                msg = strprintf("identity file '%s' %s: %s", id, e == ENOENT ? "does not exist" : "cannot be read",
                                                strerror(e));
                        else
                                msg = strprintf("identity file '%s' (%s) %s: %s", id, path,
                                                e == ENOENT ? "does not exist" : "cannot be read", strerror(e));
                        if (!msg || yaml_diags_add(d, false, o->identity_mark, NULL, msg) < 0)
                                return -ENOMEM;
                }
        }
        return 0;
}

