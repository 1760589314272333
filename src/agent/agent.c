/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's protocol server: state, allow-list, dispatch, the JSON-lines loop. */

#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <libudev.h>

#include "agent-internal.h"
#include "basic/clock-util.h"
#include "basic/log.h"
#include "basic/sha256.h"

AgentState *agent_state_new(void) {
        AgentState *s = calloc(1, sizeof(AgentState));
        if (s)
                s->cancel_fd = -1;
        return s;
}

AgentState *agent_state_free(AgentState *s) {
        if (!s)
                return NULL;
        free(s->host);
        strv_free(s->allow);
        free(s);
        return NULL;
}

int agent_state_configure(AgentState *s, const char *host, char * const *allow, bool dry_run) {
        char *h = NULL;
        if (host && !(h = strdup(host)))
                return -ENOMEM;
        char **a = allow ? strv_copy(allow) : calloc(1, sizeof(char *));
        if (!a) {
                free(h);
                return -ENOMEM;
        }
        free(s->host);
        s->host = h;
        strv_free(s->allow);
        s->allow = a;
        s->dry_run = dry_run;
        s->configured = true;
        return 0;
}

const char *agent_host(AgentState *s) {
        static struct utsname u;
        if (s && s->host)
                return s->host;
        if (!u.nodename[0] && uname(&u) < 0)
                return "localhost";
        return u.nodename;
}

void agent_progress(AgentProgress *p, uint64_t done, uint64_t total, const char *fmt, ...) {
        if (!p || !p->fn)
                return;
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);

        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *pr = json_object_new_object();
        if (!o || !pr) {
                json_object_put(pr);
                return;
        }
        json_add_int(o, "id", p->id);
        json_add_u64(pr, "done", done);
        json_add_u64(pr, "total", total);
        json_add_string(pr, "message", msg);
        json_add(o, "progress", pr);
        p->fn(o, p->userdata);
}

/* ---- allow-list ---- */

static bool entry_matches(const char *entry, const char *path, char * const *links, const char *real) {
        if (fnmatch(entry, path, FNM_PATHNAME) == 0)
                return true;
        STRV_FOREACH(l, links)
                if (fnmatch(entry, *l, FNM_PATHNAME) == 0)
                        return true;
        if (!real)
                return false;

        /* An entry (or glob) naming a symlink, e.g. /dev/disk/by-id/ata-X*, also matches the
         * device it points to — this works without udev's DEVLINKS in the probe. */
        glob_t g = {};
        bool found = false;
        if (glob(entry, GLOB_NOSORT | GLOB_NOESCAPE, NULL, &g) == 0)
                for (size_t i = 0; i < g.gl_pathc && !found; i++) {
                        char r[PATH_MAX];
                        if (realpath(g.gl_pathv[i], r) && streq(r, real))
                                found = true;
                }
        globfree(&g);
        return found;
}

bool agent_path_allowed(AgentState *s, const char *path, char * const *links) {
        if (!s || !s->allow)
                return false;
        char real[PATH_MAX];
        const char *rp = realpath(path, real) ? real : NULL;
        STRV_FOREACH(e, s->allow)
                if (entry_matches(*e, path, links, rp))
                        return true;
        return false;
}

/* udev's DEVLINKS for a device node, when udevd runs. */
static char **device_links(const char *name) {
        struct udev *u = udev_new();
        if (!u)
                return NULL;
        char **l = NULL;
        struct udev_device *d = udev_device_new_from_subsystem_sysname(u, "block", name);
        if (d) {
                const char *links = udev_device_get_property_value(d, "DEVLINKS");
                if (links)
                        l = strv_split(links, " ");
                udev_device_unref(d);
        }
        udev_unref(u);
        return l;
}

bool agent_device_allowed(AgentState *s, const char *path) {
        if (!s || !s->allow)
                return false;

        BlockDev d = {};
        if (block_dev_resolve(path, &d, NULL) < 0)
                return agent_path_allowed(s, path, NULL);

        bool ok = false;
        _cleanup_strv_free_ char **links = device_links(d.name);
        if (agent_path_allowed(s, path, links) || agent_path_allowed(s, d.node, links))
                ok = true;
        else if (d.is_partition) {
                _cleanup_(freep) char *disk = strprintf("/dev/%s", d.disk_name);
                _cleanup_strv_free_ char **dlinks = device_links(d.disk_name);
                ok = disk && agent_path_allowed(s, disk, dlinks);
        }
        block_dev_done(&d);
        return ok;
}

/* ---- the lease of the request being served (docs/agent.md "The lease") ---- */

/* CLOCK_MONOTONIC seconds of this agent after which the request's lease is over, 0 when
 * the request carries none; and what it carried. Per thread: an agent serves one request at
 * a time, and in-process agents (the local transport) serve theirs on the caller's thread. */
static _Thread_local double request_deadline;
static _Thread_local int64_t request_lease_ms;

bool agent_lease_over(void) {
        return request_deadline > 0 && clock_mono_sec() >= request_deadline;
}

int agent_lease_start(const char *what, const char *path, Error *err) {
        if (request_deadline <= 0)
                return 0;
        double now = clock_mono_sec();
        if (now < request_deadline) {
                /* the op starts its writes in time: from here it runs to its end (a bcache
                 * flush may take an hour; the controller checks again before the next op) */
                request_deadline = 0;
                return 0;
        }
        return error_set(err, ENOLCK,
                         "refusing to %s '%s': the cluster lock's lease ran out (the request arrived with %lld ms of "
                         "it left, %.1f s ago): the controller may have lost the lock",
                         what, path, (long long) request_lease_ms, now - request_deadline + request_lease_ms / 1000.0);
}

/* "lease_left_ms" of a request's args: none → no deadline; ≤ 0 → refused at once (it arrived
 * past its lease); else the deadline, from the request's arrival on this agent's own clock
 * (the two clocks are never compared). */
static int lease_begin(AgentState *s, json_object *args, const char *op, double arrival, Error *err) {
        request_deadline = 0;
        request_lease_ms = 0;
        if (!json_object_object_get_ex(args, "lease_left_ms", NULL))
                return 0;
        int64_t ms = 0;
        int r = json_get_int(args, "lease_left_ms", true, &ms, op, err);
        if (r < 0)
                return r;
        if (ms <= 0)
                return error_set(err, ENOLCK, "'%s' arrived after the cluster lock's lease had run out (lease_left_ms %lld): "
                                 "nothing done on '%s'", op, (long long) ms, agent_host(s));
        request_lease_ms = ms;
        request_deadline = arrival + (double) ms / 1000.0;
        return 0;
}

/* ---- ops ---- */

static int op_configure(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err) {
        const char *host = NULL;
        json_object *allow = NULL;
        bool dry_run = false;
        int r;

        r = json_get_string(args, "host", false, &host, "configure", err);
        if (r < 0 && r != -ENOENT)
                return r;
        r = json_get_array(args, "allow", true, &allow, "configure", err);
        if (r < 0)
                return r;
        r = json_get_bool(args, "dry_run", false, &dry_run, "configure", err);
        if (r < 0 && r != -ENOENT)
                return r;

        _cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
        if (!l)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < json_object_array_length(allow); i++) {
                json_object *e = json_object_array_get_idx(allow, i);
                if (!json_object_is_type(e, json_type_string) || !json_object_get_string(e)[0])
                        return error_set(err, EINVAL, "configure: allow[%zu] is not a non-empty string", i);
                if (strv_extend(&l, json_object_get_string(e)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        r = agent_state_configure(s, host, l, dry_run);
        if (r < 0)
                return error_set(err, r, "out of memory");
        *ret = json_object_new_object();
        return 0;
}

static int op_exit(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err) {
        s->exit_requested = true;
        *ret = json_object_new_object();
        return 0;
}

static const struct {
        const char *name;
        AgentOpFn fn;
        bool needs_config;
} ops[] = {
        { "configure",         op_configure,                false },
        { "exit",              op_exit,                     false },
        { "inventory",         agent_op_inventory,          true },
        { "create-gpt",        agent_op_create_gpt,         true },
        { "create-partition",  agent_op_create_partition,   true },
        { "delete-partition",  agent_op_delete_partition,   true },
        { "wipe",              agent_op_wipe,               true },
        { "make-bcache",       agent_op_make_bcache,        true },
        { "bcache-register",   agent_op_bcache_register,    true },
        { "bcache-attach",     agent_op_bcache_attach,      true },
        { "bcache-tune",       agent_op_bcache_tune,        true },
        { "bcache-teardown",   agent_op_bcache_teardown,    true },
        { "run",               agent_op_run,                true },
        { "osd-create",        agent_op_osd_create,         true }, /* agent-osd.c */
        { "preflight",         agent_op_preflight,          true }, /* agent-preflight.c */
        { "rados-probe",       agent_op_rados_probe,        true }, /* agent-rados.c */
        { "ceph-command",      agent_op_ceph_command,       true }, /* agent-rados.c */
};

static json_object *error_response(json_object *id, int code, const char *message) {
        json_object *o = json_object_new_object();
        json_object *e = json_object_new_object();
        if (!o || !e) {
                json_object_put(o);
                json_object_put(e);
                return NULL;
        }
        /* docs/agent.md: an answer to a request without a usable id says "id":null */
        json_object_object_add(o, "id", id ? json_object_get(id) : NULL);
        json_add_bool(o, "ok", false);
        json_add_string(e, "errno", errno_name(code));
        json_add_int(e, "code", code < 0 ? -code : code);
        json_add_string(e, "message", message);
        json_add(o, "error", e);
        return o;
}

int agent_dispatch(AgentState *s, json_object *request, json_object **ret_response,
                   AgentProgressFn progress, void *userdata) {
        double arrival = clock_mono_sec(); /* the lease counts from here */
        Error err = {};
        json_object *id = NULL, *args = NULL;
        const char *op = NULL;
        int r;

        if (!json_object_is_type(request, json_type_object)) {
                *ret_response = error_response(NULL, EINVAL, "request is not a JSON object");
                return *ret_response ? 0 : -ENOMEM;
        }
        if (!json_object_object_get_ex(request, "id", &id) || !json_object_is_type(id, json_type_int) ||
            json_object_get_int64(id) < 0) {
                *ret_response = error_response(id, EINVAL, "request has no \"id\" (a non-negative integer)");
                return *ret_response ? 0 : -ENOMEM;
        }
        r = json_get_string(request, "op", true, &op, "request", &err);
        if (r >= 0) {
                r = json_get_object(request, "args", false, &args, "request", &err);
                if (r == -ENOENT)
                        r = 0;
        }
        if (r < 0) {
                *ret_response = error_response(id, r, err.message);
                return *ret_response ? 0 : -ENOMEM;
        }

        _cleanup_json_ json_object *empty = NULL;
        if (!args)
                args = empty = json_object_new_object();
        if (!args)
                return -ENOMEM;

        AgentProgress p = { .id = json_object_get_int64(id), .fn = progress, .userdata = userdata };
        json_object *result = NULL;
        r = -EOPNOTSUPP;
        error_set(&err, EOPNOTSUPP, "unknown op '%s'", op);
        for (size_t i = 0; i < ELEMENTSOF(ops); i++) {
                if (!streq(ops[i].name, op))
                        continue;
                error_reset(&err);
                if (ops[i].needs_config && !s->configured)
                        r = error_set(&err, EPERM, "agent on '%s' is not configured: send 'configure' first",
                                      agent_host(s));
                else if ((r = lease_begin(s, args, op, arrival, &err)) >= 0)
                        r = ops[i].fn(s, args, &result, &p, &err);
                request_deadline = 0;
                request_lease_ms = 0;
                break;
        }

        if (r < 0) {
                json_object_put(result);
                if (err.code == 0)
                        error_set(&err, r, "op '%s' failed: %s", op, strerror(-r));
                *ret_response = error_response(id, err.code, err.message);
                return *ret_response ? 0 : -ENOMEM;
        }

        json_object *o = json_object_new_object();
        if (!o || !result) {
                json_object_put(o);
                json_object_put(result);
                return -ENOMEM;
        }
        json_add(o, "id", json_object_get(id));
        json_add_bool(o, "ok", true);
        json_add(o, "result", result);
        *ret_response = o;
        return 0;
}

/* ---- the process ---- */

int agent_hello(json_object **ret, Error *err) {
        char hex[SHA256_DIGEST_SIZE * 2 + 1];
        int r = sha256_file("/proc/self/exe", 0, 0, hex, err);
        if (r < 0)
                return r;

        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *h = json_object_new_object();
        if (!o || !h) {
                json_object_put(h);
                return error_set(err, ENOMEM, "out of memory");
        }
        json_add(o, "hello", h);
        json_add_string(h, "agent", "cephprov");
        json_add_string(h, "version", CEPHPROV_VERSION);
        json_add_int(h, "protocol", AGENT_PROTOCOL);
        json_add_string(h, "host", agent_host(NULL));
        json_add_string(h, "build", hex);
        *ret = TAKE_PTR(o);
        return 0;
}

static int write_line(int fd, json_object *o) {
        const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        size_t len = strlen(s);
        _cleanup_(freep) char *buf = malloc(len + 1);
        if (!buf)
                return -ENOMEM;
        memcpy(buf, s, len);
        buf[len] = '\n';
        for (size_t done = 0; done < len + 1;) {
                ssize_t n = write(fd, buf + done, len + 1 - done);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                done += (size_t) n;
        }
        return 0;
}

typedef struct ServeCtx {
        int out_fd;
        int error;
} ServeCtx;

static void serve_progress(json_object *progress, void *userdata) {
        ServeCtx *c = userdata;
        int r = write_line(c->out_fd, progress);
        if (r < 0 && c->error == 0)
                c->error = r;
}

int agent_handle_line(AgentState *s, const char *line, json_object **ret_response, AgentProgressFn progress,
                      void *userdata) {
        enum json_tokener_error jerr;
        _cleanup_json_ json_object *req = json_tokener_parse_verbose(line, &jerr);
        if (!req) {
                char msg[256];
                snprintf(msg, sizeof(msg), "cannot parse request: %s", json_tokener_error_desc(jerr));
                *ret_response = error_response(NULL, EINVAL, msg);
                return *ret_response ? 0 : -ENOMEM;
        }
        return agent_dispatch(s, req, ret_response, progress, userdata);
}

static int serve_line(AgentState *s, ServeCtx *c, const char *line) {
        _cleanup_json_ json_object *resp = NULL;
        int r = agent_handle_line(s, line, &resp, serve_progress, c);
        if (r < 0)
                return r;
        r = write_line(c->out_fd, resp);
        if (r < 0)
                return r;
        return c->error;
}

int agent_serve(int in_fd, int out_fd) {
        _cleanup_(agent_state_freep) AgentState *s = agent_state_new();
        _cleanup_json_ json_object *hello = NULL;
        Error err = {};
        int r;

        if (!s)
                return -ENOMEM;
        /* the controller's end: when it hangs up mid-op, what the op runs is killed */
        s->cancel_fd = in_fd;
        r = agent_hello(&hello, &err);
        if (r < 0) {
                log_error("%s", err.message);
                return r;
        }
        r = write_line(out_fd, hello);
        if (r < 0)
                return r;

        ServeCtx c = { .out_fd = out_fd };
        _cleanup_(freep) char *buf = NULL;
        size_t len = 0, cap = 0;
        for (;;) {
                /* handle every complete line already buffered */
                char *nl;
                while (buf && (nl = memchr(buf, '\n', len))) {
                        *nl = 0;
                        size_t used = (size_t) (nl - buf) + 1;
                        if (nl > buf && strspn(buf, " \t\r") != (size_t) (nl - buf)) {
                                r = serve_line(s, &c, buf);
                                if (r < 0)
                                        return r;
                        }
                        memmove(buf, buf + used, len - used);
                        len -= used;
                        if (s->exit_requested)
                                return 0;
                }

                if (cap - len < 65536) {
                        size_t ncap = cap ? cap * 2 : 65536;
                        if (ncap > 64 * 1024 * 1024)
                                return log_error("agent request line too long"), -E2BIG;
                        char *nb = realloc(buf, ncap);
                        if (!nb)
                                return -ENOMEM;
                        buf = nb;
                        cap = ncap;
                }
                ssize_t n = read(in_fd, buf + len, cap - len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0) {
                        /* EOF: a last line without newline is still a request */
                        if (len > 0) {
                                if (len == cap) {
                                        char *nb = realloc(buf, cap + 1);
                                        if (!nb)
                                                return -ENOMEM;
                                        buf = nb;
                                }
                                buf[len] = 0;
                                if (strspn(buf, " \t\r\n") != len)
                                        return serve_line(s, &c, buf);
                        }
                        return 0;
                }
                len += (size_t) n;
        }
}
