/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "rados-probe": client latency as a VM sees it — small ops at queue depth 1 through
 * librados, Ceph's own client library, for a fixed time — for the adaptive throttle
 * (docs/agent.md; the conversion's canary measures its OSDs with `osd bench` instead,
 * src/ceph/ceph-bench.h). librados is dlopen()ed as libparted is: headers at
 * build time, the library only on the host that probes (the admin host), and whichever
 * release that host has (its C API has been stable since Firefly).
 *
 * One request is one window: connect, then for `seconds` one op after the other — a 4 KiB
 * write_full, then a read of it, object after object round-robin — each timed with the
 * monotonic clock; an op that fails or exceeds `op_timeout` (librados' rados_osd_op_timeout)
 * is counted as an error, not timed. The answer carries every latency, so the controller
 * computes the percentiles it wants. */

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <rados/librados.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent-internal.h"
#include "basic/clock-util.h"
#include "basic/workers.h"
#include "ceph/ceph.h"

#ifndef LIBRADOS_SONAME
#define LIBRADOS_SONAME "librados.so.2"
#endif

static struct {
        bool loaded;
        int (*create2)(rados_t *, const char *, const char *, uint64_t);
        int (*conf_read_file)(rados_t, const char *);
        int (*conf_set)(rados_t, const char *, const char *);
        int (*connect)(rados_t);
        void (*shutdown)(rados_t);
        int (*ioctx_create)(rados_t, const char *, rados_ioctx_t *);
        void (*ioctx_destroy)(rados_ioctx_t);
        int (*write_full)(rados_ioctx_t, const char *, const char *, size_t);
        int (*read)(rados_ioctx_t, const char *, char *, size_t, uint64_t);
        int (*mon_command)(rados_t, const char **, size_t, const char *, size_t, char **, size_t *, char **,
                           size_t *);
        int (*mgr_command)(rados_t, const char **, size_t, const char *, size_t, char **, size_t *, char **,
                           size_t *);
        int (*osd_command)(rados_t, int, const char **, size_t, const char *, size_t, char **, size_t *, char **,
                           size_t *);
        void (*buffer_free)(char *);
} R;

static int rados_load(AgentState *s, Error *err) {
        if (R.loaded)
                return 0;
        void *h = dlopen(LIBRADOS_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (!h)
                return error_set(err, ENOENT, "cannot load librados on '%s': %s (package librados2)", agent_host(s),
                                 dlerror());
#define LOAD(field, sym)                                                                                  \
        do {                                                                                              \
                *(void **) &R.field = dlsym(h, sym);                                                      \
                if (!R.field)                                                                             \
                        return error_set(err, ENOENT, "librados on '%s' lacks %s", agent_host(s), sym);   \
        } while (0)
        LOAD(create2, "rados_create2");
        LOAD(conf_read_file, "rados_conf_read_file");
        LOAD(conf_set, "rados_conf_set");
        LOAD(connect, "rados_connect");
        LOAD(shutdown, "rados_shutdown");
        LOAD(ioctx_create, "rados_ioctx_create");
        LOAD(ioctx_destroy, "rados_ioctx_destroy");
        LOAD(write_full, "rados_write_full");
        LOAD(read, "rados_read");
        LOAD(mon_command, "rados_mon_command");
        LOAD(mgr_command, "rados_mgr_command");
        LOAD(osd_command, "rados_osd_command");
        LOAD(buffer_free, "rados_buffer_free");
#undef LOAD
        R.loaded = true; /* the handle stays open for the life of the process */
        return 0;
}

/* Latencies are kept in fractional milliseconds. */
static double now_ms(void) {
        return clock_mono_sec() * 1e3;
}

/* A name librados takes (pool, object, client): printable, no blanks, not empty. */
static bool plain_name(const char *s, size_t max) {
        size_t n = strlen(s);
        if (n == 0 || n > max)
                return false;
        for (size_t i = 0; i < n; i++)
                if ((unsigned char) s[i] <= ' ' || (unsigned char) s[i] >= 0x7f)
                        return false;
        return true;
}

typedef struct Probe {
        const char *cluster, *client, *conf, *keyring, *pool;
        char **objects;
        int64_t seconds, op_timeout, size;
        int64_t rate;     /* ops a second on a fixed schedule (open loop); 0: one op after the other */
        int64_t inflight; /* at most this many ops at once on the schedule */
        bool reads, writes;
} Probe;

static int probe_args(AgentState *s, json_object *args, Probe *p, Error *err) {
        json_object *objs = NULL;
        const char *mode = "mixed";
        int r;
        *p = (Probe) { .cluster = "ceph", .client = "client.admin", .seconds = 5, .op_timeout = 10, .size = 4096,
                       .inflight = 8 };
#define OPT_STR(key, field)                                                                         \
        if ((r = json_get_string(args, key, false, &p->field, "rados-probe", err)) < 0 && r != -ENOENT) \
                return r
#define OPT_INT(key, field)                                                                       \
        if ((r = json_get_int(args, key, false, &p->field, "rados-probe", err)) < 0 && r != -ENOENT) \
                return r
        OPT_STR("cluster", cluster);
        OPT_STR("client", client);
        OPT_STR("conf", conf);
        OPT_STR("keyring", keyring);
        OPT_INT("seconds", seconds);
        OPT_INT("op_timeout", op_timeout);
        OPT_INT("size", size);
        OPT_INT("rate", rate);
        OPT_INT("inflight", inflight);
#undef OPT_STR
#undef OPT_INT
        if ((r = json_get_string(args, "pool", true, &p->pool, "rados-probe", err)) < 0)
                return r;
        if ((r = json_get_string(args, "mode", false, &mode, "rados-probe", err)) < 0 && r != -ENOENT)
                return r;
        if ((r = json_get_array(args, "objects", true, &objs, "rados-probe", err)) < 0)
                return r;

        if (!plain_name(p->cluster, 64) || !plain_name(p->client, 128) || !startswith(p->client, "client."))
                return error_set(err, EINVAL, "rados-probe: cluster '%s' / client '%s': a name, and the client "
                                              "'client.ID'", p->cluster, p->client);
        if (!plain_name(p->pool, 256))
                return error_set(err, EINVAL, "rados-probe: pool '%s' is not a pool name", p->pool);
        if ((p->conf && p->conf[0] != '/') || (p->keyring && p->keyring[0] != '/'))
                return error_set(err, EINVAL, "rados-probe: conf and keyring must be absolute paths");
        if (p->seconds < 1 || p->seconds > 600)
                return error_set(err, EINVAL, "rados-probe: seconds %" PRId64 " is not in 1..600", p->seconds);
        if (p->op_timeout < 1 || p->op_timeout > 600)
                return error_set(err, EINVAL, "rados-probe: op_timeout %" PRId64 " is not in 1..600 seconds",
                                 p->op_timeout);
        if (p->size < 1 || p->size > 4 << 20)
                return error_set(err, EINVAL, "rados-probe: size %" PRId64 " is not in 1..4194304 bytes", p->size);
        if (p->rate < 0 || p->rate > 1000)
                return error_set(err, EINVAL, "rados-probe: rate %" PRId64 " is not in 0..1000 ops a second", p->rate);
        if (p->inflight < 1 || p->inflight > 64)
                return error_set(err, EINVAL, "rados-probe: inflight %" PRId64 " is not in 1..64", p->inflight);
        if (streq(mode, "mixed"))
                p->reads = p->writes = true;
        else if (streq(mode, "write"))
                p->writes = true;
        else if (streq(mode, "read"))
                p->reads = true;
        else
                return error_set(err, EINVAL, "rados-probe: mode '%s' is not mixed, write or read", mode);

        size_t n = json_object_array_length(objs);
        if (n == 0 || n > 4096)
                return error_set(err, EINVAL, "rados-probe: %zu objects (1..4096 wanted)", n);
        if (!(p->objects = calloc(n + 1, sizeof(char *))))
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(objs, i);
                if (!json_object_is_type(e, json_type_string) || !plain_name(json_object_get_string(e), 512))
                        return error_set(err, EINVAL, "rados-probe: objects[%zu] is not an object name", i);
                if (!(p->objects[i] = strdup(json_object_get_string(e))))
                        return error_set(err, ENOMEM, "out of memory");
        }
        (void) s;
        return 0;
}

/* Latencies as a JSON array of milliseconds, to the microsecond. */
static json_object *latencies_json(const double *ms, size_t n) {
        json_object *a = json_object_new_array_ext((int) n);
        for (size_t i = 0; a && i < n; i++)
                if (json_object_array_add(a, json_object_new_double(round(ms[i] * 1000.0) / 1000.0)) < 0) {
                        json_object_put(a);
                        return NULL;
                }
        return a;
}

static int push(double **v, size_t *n, size_t *cap, double x) {
        if (*n == *cap) {
                size_t c = *cap ? *cap * 2 : 1024;
                double *nv = realloc(*v, c * sizeof(double));
                if (!nv)
                        return -ENOMEM;
                *v = nv;
                *cap = c;
        }
        (*v)[(*n)++] = x;
        return 0;
}

static void rados_shutdownp(rados_t *c) {
        if (*c)
                R.shutdown(*c);
}

static void rados_ioctx_destroyp(rados_ioctx_t *io) {
        if (*io)
                R.ioctx_destroy(*io);
}

/* One probe request's ops, shared by its workers: on a schedule (Probe.rate > 0: op i is due
 * at start + i / rate, up to Probe.inflight at once, each timed from when it was due, so a
 * stall shows in every op that waited for it) or one after the other (rate 0: each timed
 * from its own start). An op due more than op_timeout ago when a worker is free is not sent:
 * it counts as an error (late), as one that timed out would. */
typedef struct ProbeRun {
        const Probe *p;
        rados_ioctx_t io;
        AgentProgress *prog;
        size_t n_obj;
        double start, end; /* monotonic ms: no op is due at or after end */
        atomic_size_t next;
        atomic_bool reporter; /* taken by the one worker that reports progress */
        pthread_mutex_t mu;   /* what follows */
        double *w, *rd;
        size_t nw, cw, nr, cr, errors, late;
        int first_errno;
        char first_error[256];
        bool oom;
} ProbeRun;

static void sleep_until_ms(double t) {
        double ms = t - now_ms();
        if (ms <= 0)
                return;
        struct timespec ts = { .tv_sec = (time_t) (ms / 1000.0), .tv_nsec = (long) (fmod(ms, 1000.0) * 1e6) };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static void *probe_worker(void *userdata) {
        ProbeRun *run = userdata;
        const Probe *p = run->p;
        bool reporter = !atomic_exchange(&run->reporter, true);
        double last_progress = run->start;
        char *buf = malloc((size_t) p->size);
        if (!buf) {
                pthread_mutex_lock(&run->mu);
                run->oom = true;
                pthread_mutex_unlock(&run->mu);
                return NULL;
        }
        memset(buf, 'c', (size_t) p->size);
        for (;;) {
                size_t i = atomic_fetch_add(&run->next, 1);
                double due = p->rate > 0 ? run->start + (double) i * 1000.0 / (double) p->rate : now_ms();
                if (due >= run->end)
                        break;
                sleep_until_ms(due);
                /* mixed: write an object, then read it back, then the next object */
                bool is_write = p->writes && (!p->reads || i % 2 == 0);
                const char *oid = p->objects[(p->writes && p->reads ? i / 2 : i) % run->n_obj];
                int e;
                bool late = now_ms() - due > (double) p->op_timeout * 1000.0;
                if (late)
                        e = -ETIMEDOUT;
                else if (is_write)
                        e = R.write_full(run->io, oid, buf, (size_t) p->size);
                else {
                        e = R.read(run->io, oid, buf, (size_t) p->size, 0);
                        /* a read still goes to the OSD when the object is not there: a read
                         * probe of objects not written yet, or a read on the schedule that
                         * overtook its object's first write */
                        if (e == -ENOENT && (!p->writes || p->rate > 0))
                                e = 0;
                        else if (e > 0)
                                e = 0;
                }
                double lat = now_ms() - due;
                pthread_mutex_lock(&run->mu);
                if (e < 0) {
                        run->late += late;
                        if (run->errors++ == 0) {
                                run->first_errno = -e;
                                snprintf(run->first_error, sizeof run->first_error, "%s of '%s': %s",
                                         is_write ? "write" : "read", oid,
                                         late ? "not sent: due more than op_timeout ago" : strerror(-e));
                        }
                } else if ((is_write ? push(&run->w, &run->nw, &run->cw, lat) : push(&run->rd, &run->nr, &run->cr, lat)) < 0)
                        run->oom = true;
                size_t n = run->nw + run->nr, errors = run->errors;
                bool oom = run->oom;
                pthread_mutex_unlock(&run->mu);
                if (oom)
                        break;
                if (reporter && now_ms() - last_progress >= 1000) {
                        last_progress = now_ms();
                        agent_progress(run->prog, (uint64_t) (last_progress - run->start),
                                       (uint64_t) (run->end - run->start), "%zu ops, %zu errors", n, errors);
                }
        }
        free(buf);
        return NULL;
}

int agent_op_rados_probe(AgentState *s, json_object *args, json_object **ret, AgentProgress *prog, Error *err) {
        _cleanup_(strv_freep) char **objects = NULL;
        Probe p;
        int r = probe_args(s, args, &p, err);
        objects = p.objects;
        if (r < 0)
                return r;
        if (s->dry_run)
                return error_set(err, EPERM, "dry run on '%s': not probing pool '%s' (the probe writes objects)",
                                 agent_host(s), p.pool);
        if ((r = rados_load(s, err)) < 0)
                return r;

        _cleanup_(rados_shutdownp) rados_t c = NULL;
        if ((r = R.create2(&c, p.cluster, p.client, 0)) < 0) {
                c = NULL;
                return error_set(err, -r, "rados-probe on '%s': cannot create a client '%s': %s", agent_host(s),
                                 p.client, strerror(-r));
        }
        if ((r = R.conf_read_file(c, p.conf)) < 0)
                return error_set(err, -r, "rados-probe on '%s': cannot read %s: %s", agent_host(s),
                                 p.conf ? p.conf : "the default ceph.conf", strerror(-r));
        char t[32];
        snprintf(t, sizeof t, "%" PRId64, p.op_timeout);
        /* bounded everywhere: connecting, and every op (ETIMEDOUT after op_timeout) */
        if ((p.keyring && (r = R.conf_set(c, "keyring", p.keyring)) < 0) ||
            (r = R.conf_set(c, "client_mount_timeout", t)) < 0 || (r = R.conf_set(c, "rados_osd_op_timeout", t)) < 0 ||
            (r = R.conf_set(c, "rados_mon_op_timeout", t)) < 0)
                return error_set(err, -r, "rados-probe on '%s': cannot configure the client: %s", agent_host(s),
                                 strerror(-r));
        double t0 = now_ms();
        if ((r = R.connect(c)) < 0)
                return error_set(err, -r, "rados-probe on '%s': cannot connect to cluster '%s' as %s: %s",
                                 agent_host(s), p.cluster, p.client, strerror(-r));
        double connect_ms = now_ms() - t0;
        _cleanup_(rados_ioctx_destroyp) rados_ioctx_t io = NULL;
        if ((r = R.ioctx_create(c, p.pool, &io)) < 0) {
                io = NULL;
                return error_set(err, -r, "rados-probe on '%s': pool '%s': %s", agent_host(s), p.pool,
                                 r == -ENOENT ? "no such pool" : strerror(-r));
        }

        ProbeRun run = { .p = &p, .io = io, .prog = prog, .n_obj = strv_length(p.objects),
                         .mu = PTHREAD_MUTEX_INITIALIZER };
        run.start = now_ms();
        run.end = run.start + (double) p.seconds * 1000.0;
        workers_run(p.rate > 0 ? (unsigned) p.inflight : 1, probe_worker, &run);
        _cleanup_(freep) double *w = run.w, *rd = run.rd;
        size_t nw = run.nw, nr = run.nr, errors = run.errors;
        if (run.oom)
                return error_set(err, ENOMEM, "out of memory");
        double elapsed = now_ms() - run.start;

        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o || json_add_string(o, "pool", p.pool) < 0 || json_add_u64(o, "ops", nw + nr) < 0 ||
            json_add_u64(o, "errors", errors) < 0 || json_add_u64(o, "late", run.late) < 0 ||
            json_add(o, "elapsed_ms", json_object_new_double(round(elapsed * 1000.0) / 1000.0)) < 0 ||
            json_add(o, "connect_ms", json_object_new_double(round(connect_ms * 1000.0) / 1000.0)) < 0 ||
            json_add(o, "write_ms", latencies_json(w, nw)) < 0 || json_add(o, "read_ms", latencies_json(rd, nr)) < 0)
                return error_set(err, ENOMEM, "out of memory");
        if (errors && (json_add_string(o, "first_error", run.first_error) < 0 ||
                       json_add_string(o, "first_errno", errno_name(run.first_errno)) < 0))
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(o);
        return 0;
}

/* ---- "ceph-command": the cluster's commands through librados (docs/agent.md) ---------- *
 * What the `ceph` CLI does for a command, without a Python process per question: the JSON
 * command to the monitors (rados_mon_command), the active manager (rados_mgr_command) or
 * an OSD (rados_osd_command, `ceph tell`), its return code, status string and output
 * passed back as they came. One connection for the agent's life, made on the first command
 * and made again when librados says it is not connected; every call bounded: connecting
 * by client_mount_timeout, a command by rados_mon_op_timeout (mon, mgr) or
 * rados_osd_op_timeout (osd). A request carries one command or many (`ceph tell osd.*`-like
 * fan-outs), the many run side by side on up to `parallel` threads of the one connection. */

static struct {
        pthread_rwlock_t lock; /* calls hold it shared; (re)connecting holds it alone */
        rados_t c;
        char *key;             /* what it connected with: cluster, client, conf, keyring, timeout */
        unsigned connects;
} conn = { .lock = PTHREAD_RWLOCK_INITIALIZER };

typedef struct CephConn {
        const char *cluster, *client, *conf, *keyring;
        int64_t timeout;
} CephConn;

static char *conn_key(const CephConn *k) {
        return strprintf("%s\n%s\n%s\n%s\n%" PRId64, k->cluster, k->client, k->conf ? k->conf : "", k->keyring ? k->keyring : "",
                         k->timeout);
}

/* Connected as `k` (again if `stale` is the connection that failed); called without the lock. */
static int conn_ensure(AgentState *s, const CephConn *k, rados_t stale, Error *err) {
        _cleanup_(freep) char *key = conn_key(k);
        if (!key)
                return error_set(err, ENOMEM, "out of memory");
        /* the common case, shared with the other threads of a fan-out: connected as asked */
        pthread_rwlock_rdlock(&conn.lock);
        bool ready = conn.c && conn.c != stale && streq(conn.key, key);
        pthread_rwlock_unlock(&conn.lock);
        if (ready)
                return 0;
        pthread_rwlock_wrlock(&conn.lock);
        int r = 0;
        if (conn.c && (conn.c == stale || !streq(conn.key, key))) {
                R.shutdown(conn.c);
                conn.c = NULL;
        }
        if (!conn.c) {
                rados_t c = NULL;
                char t[32], mt[32];
                snprintf(t, sizeof t, "%" PRId64, k->timeout);
                snprintf(mt, sizeof mt, "%" PRId64, MIN(k->timeout, (int64_t) 30));
                if ((r = R.create2(&c, k->cluster, k->client, 0)) < 0) {
                        c = NULL;
                        r = error_set(err, -r, "ceph-command on '%s': cannot create a client '%s': %s", agent_host(s),
                                      k->client, strerror(-r));
                } else if ((r = R.conf_read_file(c, k->conf)) < 0)
                        r = error_set(err, -r, "ceph-command on '%s': cannot read %s: %s", agent_host(s),
                                      k->conf ? k->conf : "the default ceph.conf", strerror(-r));
                else if ((k->keyring && (r = R.conf_set(c, "keyring", k->keyring)) < 0) ||
                         (r = R.conf_set(c, "client_mount_timeout", mt)) < 0 ||
                         (r = R.conf_set(c, "rados_mon_op_timeout", t)) < 0 ||
                         (r = R.conf_set(c, "rados_osd_op_timeout", t)) < 0)
                        r = error_set(err, -r, "ceph-command on '%s': cannot configure the client: %s", agent_host(s),
                                      strerror(-r));
                else if ((r = R.connect(c)) < 0)
                        r = error_set(err, -r, "ceph-command on '%s': cannot connect to cluster '%s' as %s: %s",
                                      agent_host(s), k->cluster, k->client, strerror(-r));
                if (r < 0) {
                        if (c)
                                R.shutdown(c);
                } else {
                        free(conn.key);
                        conn.key = TAKE_PTR(key);
                        conn.c = c;
                        conn.connects++;
                }
        }
        pthread_rwlock_unlock(&conn.lock);
        return r;
}

typedef struct CephCall {
        CephTarget target;
        int osd;
        const char *cmd;   /* the JSON command */
        const char *input;
        size_t input_len;
        /* the answer */
        int rc;
        char *status, *out;
        size_t out_len;
        double ms;
        Error err;         /* no answer: the connection failed */
} CephCall;

static int call_once(CephCall *c, rados_t *used) {
        char *outbuf = NULL, *outs = NULL;
        size_t outbuf_len = 0, outs_len = 0;
        const char *cmdv[] = { c->cmd };
        pthread_rwlock_rdlock(&conn.lock);
        *used = conn.c;
        int rc = -ENOTCONN;
        double a = now_ms();
        if (conn.c) {
                if (c->target == CEPH_TARGET_MON)
                        rc = R.mon_command(conn.c, cmdv, 1, c->input, c->input_len, &outbuf, &outbuf_len, &outs, &outs_len);
                else if (c->target == CEPH_TARGET_MGR)
                        rc = R.mgr_command(conn.c, cmdv, 1, c->input, c->input_len, &outbuf, &outbuf_len, &outs, &outs_len);
                else
                        rc = R.osd_command(conn.c, c->osd, cmdv, 1, c->input, c->input_len, &outbuf, &outbuf_len, &outs,
                                           &outs_len);
        }
        c->ms = now_ms() - a;
        pthread_rwlock_unlock(&conn.lock);
        free(c->status);
        free(c->out);
        c->status = strndup(outs ? outs : "", outs ? outs_len : 0);
        c->out = malloc(outbuf_len + 1);
        if (c->out) {
                if (outbuf_len)
                        memcpy(c->out, outbuf, outbuf_len);
                c->out[outbuf_len] = 0;
        }
        c->out_len = outbuf_len;
        if (outbuf)
                R.buffer_free(outbuf);
        if (outs)
                R.buffer_free(outs);
        c->rc = rc;
        return (!c->status || !c->out) ? -ENOMEM : 0;
}

/* One command: connected first; asked again once on a connection librados had lost
 * (ENOTCONN: it was not sent) or that was shut down under it (ESHUTDOWN). */
static void call(AgentState *s, const CephConn *k, CephCall *c) {
        rados_t used = NULL;
        for (int attempt = 0; attempt < 2; attempt++) {
                if (conn_ensure(s, k, attempt ? used : NULL, &c->err) < 0)
                        return;
                if (call_once(c, &used) < 0) {
                        error_set(&c->err, ENOMEM, "out of memory");
                        return;
                }
                if (c->rc != -ENOTCONN && c->rc != -ESHUTDOWN)
                        return;
        }
}

typedef struct Fanout {
        AgentState *s;
        const CephConn *k;
        CephCall *calls;
        size_t n;
        atomic_size_t next;
        double deadline; /* monotonic ms: no command is started after it */
} Fanout;

static void *fanout_worker(void *p) {
        Fanout *f = p;
        for (size_t i; (i = atomic_fetch_add(&f->next, 1)) < f->n;) {
                if (now_ms() > f->deadline) {
                        error_set(&f->calls[i].err, ETIMEDOUT, "not asked: the request's %" PRId64 " s ran out",
                                  f->k->timeout);
                        continue;
                }
                call(f->s, f->k, &f->calls[i]);
        }
        return NULL;
}

static int parse_call(json_object *o, size_t i, CephCall *c, Error *err) {
        const char *target = NULL, *input = NULL;
        json_object *cmd = NULL;
        int64_t osd = -1;
        int r;
        char what[48];
        snprintf(what, sizeof what, "ceph-command: commands[%zu]", i);
        if (!json_object_is_type(o, json_type_object))
                return error_set(err, EINVAL, "%s is not an object", what);
        if ((r = json_get_string(o, "target", true, &target, what, err)) < 0 ||
            (r = json_get_object(o, "cmd", true, &cmd, what, err)) < 0)
                return r;
        if ((r = json_get_string(o, "input", false, &input, what, err)) < 0 && r != -ENOENT)
                return r;
        const char *prefix = NULL;
        if (json_get_string(cmd, "prefix", true, &prefix, what, NULL) < 0 || isempty(prefix))
                return error_set(err, EINVAL, "%s: the command has no prefix", what);
        *c = (CephCall) { .osd = -1, .cmd = json_object_to_json_string_ext(cmd, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), .input = input,
                          .input_len = input ? strlen(input) : 0 };
        if (streq(target, "mon"))
                c->target = CEPH_TARGET_MON;
        else if (streq(target, "mgr"))
                c->target = CEPH_TARGET_MGR;
        else if (streq(target, "osd")) {
                c->target = CEPH_TARGET_OSD;
                if ((r = json_get_int(o, "osd", true, &osd, what, err)) < 0)
                        return r;
                if (osd < 0 || osd > INT32_MAX)
                        return error_set(err, EINVAL, "%s: osd %" PRId64 " is not an OSD id", what, osd);
                c->osd = (int) osd;
        } else
                return error_set(err, EINVAL, "%s: target '%s' is not mon, mgr or osd", what, target);
        return 0;
}

int agent_op_ceph_command(AgentState *s, json_object *args, json_object **ret, AgentProgress *prog, Error *err) {
        CephConn k = { .cluster = "ceph", .client = "client.admin", .timeout = 120 };
        json_object *list = NULL;
        _cleanup_json_ json_object *o = NULL, *answers = NULL;
        int64_t parallel = 8;
        bool read_only = false;
        int r;
#define OPT(get, key, field)                                                              \
        if ((r = get(args, key, false, &field, "ceph-command", err)) < 0 && r != -ENOENT) \
                return r
        OPT(json_get_string, "cluster", k.cluster);
        OPT(json_get_string, "client", k.client);
        OPT(json_get_string, "conf", k.conf);
        OPT(json_get_string, "keyring", k.keyring);
        OPT(json_get_int, "timeout", k.timeout);
        OPT(json_get_int, "parallel", parallel);
        OPT(json_get_bool, "read_only", read_only);
#undef OPT
        if ((r = json_get_array(args, "commands", true, &list, "ceph-command", err)) < 0)
                return r;
        if (!plain_name(k.cluster, 64) || !plain_name(k.client, 128) || !startswith(k.client, "client."))
                return error_set(err, EINVAL, "ceph-command: cluster '%s' / client '%s': a name, and the client "
                                              "'client.ID'", k.cluster, k.client);
        if ((k.conf && k.conf[0] != '/') || (k.keyring && k.keyring[0] != '/'))
                return error_set(err, EINVAL, "ceph-command: conf and keyring must be absolute paths");
        if (k.timeout < 1 || k.timeout > 3600)
                return error_set(err, EINVAL, "ceph-command: timeout %" PRId64 " is not in 1..3600 seconds", k.timeout);
        if (parallel < 1 || parallel > 64)
                return error_set(err, EINVAL, "ceph-command: parallel %" PRId64 " is not in 1..64", parallel);
        size_t n = json_object_array_length(list);
        if (n > 100000)
                return error_set(err, EINVAL, "ceph-command: %zu commands (0..100000 wanted)", n);
        if (n == 0) {
                /* none: connect (a controller does it ahead, while it does something else);
                 * a dry-run agent reaches for a cluster only when told it is read-only */
                if (s->dry_run && !read_only)
                        return error_set(err, EPERM, "dry run on '%s': not connecting to the cluster (not marked read_only)",
                                         agent_host(s));
                if ((r = rados_load(s, err)) < 0)
                        return r;
                double t0 = now_ms();
                unsigned connects = conn.connects;
                if ((r = conn_ensure(s, &k, NULL, err)) < 0)
                        return r;
                o = json_object_new_object();
                if (!o || json_add(o, "answers", json_object_new_array()) < 0 ||
                    json_add_bool(o, "connected", conn.connects != connects) < 0 ||
                    json_add(o, "elapsed_ms", json_object_new_double(round((now_ms() - t0) * 1000.0) / 1000.0)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                *ret = TAKE_PTR(o);
                return 0;
        }

        _cleanup_(freep) CephCall *calls = calloc(n, sizeof(CephCall));
        if (!calls)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++)
                if ((r = parse_call(json_object_array_get_idx(list, i), i, &calls[i], err)) < 0)
                        goto done;
        if (s->dry_run && !read_only) {
                r = error_set(err, EPERM, "dry run on '%s': not sending '%s' (not marked read_only)", agent_host(s),
                              calls[0].cmd);
                goto done;
        }
        if ((r = rados_load(s, err)) < 0)
                goto done;

        double t0 = now_ms();
        unsigned connects = conn.connects;
        /* the whole request within `timeout` too: a command is bounded by it, and none is
         * started once it has passed (those answer ETIMEDOUT, not asked) */
        Fanout f = { .s = s, .k = &k, .calls = calls, .n = n, .deadline = t0 + (double) k.timeout * 1000.0 };
        workers_run((unsigned) MIN((size_t) parallel, n), fanout_worker, &f);
        double elapsed = now_ms() - t0;
        (void) prog;

        /* one command: its connection failure is the op's error; many: each answers alone */
        if (n == 1 && calls[0].err.code) {
                r = error_set(err, calls[0].err.code, "%s", calls[0].err.message);
                goto done;
        }
        o = json_object_new_object();
        answers = json_object_new_array_ext((int) n);
        if (!o || !answers) {
                r = error_set(err, ENOMEM, "out of memory");
                goto done;
        }
        for (size_t i = 0; i < n; i++) {
                CephCall *c = &calls[i];
                json_object *a = json_array_add_object(answers);
                if (!a) {
                        r = error_set(err, ENOMEM, "out of memory");
                        goto done;
                }
                if (c->err.code) {
                        json_add_string(a, "error", c->err.message);
                        json_add_string(a, "errno", errno_name(c->err.code));
                        continue;
                }
                if (json_add_int(a, "rc", c->rc) < 0 || json_add_string(a, "status", c->status) < 0 ||
                    json_add(a, "out", json_object_new_string_len(c->out, (int) c->out_len)) < 0 ||
                    json_add(a, "ms", json_object_new_double(round(c->ms * 1000.0) / 1000.0)) < 0) {
                        r = error_set(err, ENOMEM, "out of memory");
                        goto done;
                }
        }
        if (json_add(o, "answers", TAKE_PTR(answers)) < 0 || json_add_bool(o, "connected", conn.connects != connects) < 0 ||
            json_add(o, "elapsed_ms", json_object_new_double(round(elapsed * 1000.0) / 1000.0)) < 0) {
                r = error_set(err, ENOMEM, "out of memory");
                goto done;
        }
        *ret = TAKE_PTR(o);
        r = 0;
done:
        for (size_t i = 0; i < n; i++) {
                free(calls[i].status);
                free(calls[i].out);
        }
        return r;
}
