/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "transport.h"

#include <errno.h>
#include <fcntl.h>
#include <libssh2.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/clock-util.h"
#include "basic/json-util.h"
#include "basic/process.h"
#include "basic/sha256.h"
#include "basic/strv.h"
#include "ssh-session.h"

#define COMMAND_TIMEOUT_DEFAULT 600
#define AGENT_HELLO_TIMEOUT_SEC 30
#define AGENT_MAX (512u * 1024 * 1024)

struct Transport {
        char *name;
        TransportKind kind;
        SshSession *ssh;
        unsigned command_timeout_sec;
        char *agent_path;
        char *user;               /* the ssh user: besides root, the one owner trusted on the agent path */
        bool agent_path_checked;  /* every component of agent_path was found safe */
        bool agent_path_refused;  /* ... or one was found unsafe */
};

struct AgentChannel {
        Transport *t;
        unsigned next_id;
        json_object *hello;
        /* ssh */
        SshStream *stream;
        /* local */
        void *state;
        json_object **pending; /* responses and progress produced in process */
        size_t n_pending, first_pending;
};

static const TransportLocalAgent *local_agent;

void transport_set_local_agent(const TransportLocalAgent *a) {
        local_agent = a;
}

void transport_exec_result_done(TransportExecResult *r) {
        if (!r)
                return;
        free(r->out);
        free(r->err);
        free(r->exit_signal);
        *r = (TransportExecResult) {};
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_result;

static void global_init(void) {
        init_result = libssh2_init(0) == 0 ? 0 : -EIO;
}

int transport_global_init(void) {
        pthread_once(&init_once, global_init);
        return init_result;
}

char *transport_quote_argv(char * const *argv) {
        if (!argv || !argv[0])
                return NULL;
        size_t len = 1;
        STRV_FOREACH(a, argv) {
                len += 3; /* quotes and the separator */
                for (const char *p = *a; *p; p++)
                        len += *p == '\'' ? 4 : 1;
        }
        char *s = malloc(len), *o = s;
        if (!s)
                return NULL;
        STRV_FOREACH(a, argv) {
                if (a != argv)
                        *o++ = ' ';
                *o++ = '\'';
                for (const char *p = *a; *p; p++) {
                        if (*p == '\'') {
                                /* close the quote, an escaped quote, reopen */
                                memcpy(o, "'\\''", 4);
                                o += 4;
                        } else
                                *o++ = *p;
                }
                *o++ = '\'';
        }
        *o = 0;
        return s;
}

int transport_open(const Host *host, Transport **ret, Error *err) {
        int r = transport_global_init();
        if (r < 0)
                return error_set(err, -r, "cannot initialize libssh2");

        _cleanup_(transport_closep) Transport *t = calloc(1, sizeof(Transport));
        if (!t)
                return error_set(err, ENOMEM, "out of memory");
        t->name = strdup(host->name);
        t->agent_path = strdup(host->ssh.agent_path ? host->ssh.agent_path : TRANSPORT_AGENT_PATH_DEFAULT);
        t->user = strdup(host->ssh.user ? host->ssh.user : "root");
        if (!t->name || !t->agent_path || !t->user)
                return error_set(err, ENOMEM, "out of memory");
        t->kind = host->transport;
        t->command_timeout_sec = host->ssh.command_timeout_sec ? host->ssh.command_timeout_sec : COMMAND_TIMEOUT_DEFAULT;

        if (t->kind == TRANSPORT_SSH) {
                r = ssh_session_open(host->name, host->address ? host->address : host->name, &host->ssh, &t->ssh, err);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(t);
        return 0;
}

Transport *transport_close(Transport *t) {
        if (!t)
                return NULL;
        ssh_session_free(t->ssh);
        free(t->name);
        free(t->agent_path);
        free(t->user);
        free(t);
        return NULL;
}

const char *transport_host_name(const Transport *t) {
        return t->name;
}

static int local_exec(Transport *t, char * const *argv, const char *stdin_data, size_t stdin_size,
                      unsigned timeout_sec, TransportExecResult *ret, Error *err) {
        const ProcessRun o = {
                .argv = argv,
                .stdin_data = stdin_data,
                .stdin_size = stdin_size,
                .timeout_ms = (uint64_t) timeout_sec * 1000,
        };
        _cleanup_(process_result_done) ProcessResult pr = {};
        Error e = {};
        int r = process_run(&o, &pr, &e);
        if (r == -ENOENT || r == -EACCES || r == -ENOEXEC || r == -ENOTDIR) {
                /* what a remote shell answers for a command it cannot run */
                *ret = (TransportExecResult) { .exit_status = 127, .out = strdup(""), .err = strprintf("%s\n", e.message) };
                if (!ret->out || !ret->err) {
                        transport_exec_result_done(ret);
                        return error_set(err, ENOMEM, "out of memory");
                }
                ret->err_size = strlen(ret->err);
                return 0;
        }
        if (r < 0)
                return error_set(err, -r, "cannot run '%s' on host '%s': %s", argv[0], t->name, e.message);
        if (pr.timed_out)
                return error_set(err, ETIME, "command on host '%s' timed out after %u s", t->name, timeout_sec);

        *ret = (TransportExecResult) {};
        if (WIFSIGNALED(pr.status)) {
                ret->exit_status = -1;
                ret->exit_signal = strdup(sigabbrev_np(WTERMSIG(pr.status)) ?: "?");
                if (!ret->exit_signal)
                        return error_set(err, ENOMEM, "out of memory");
        } else
                ret->exit_status = WEXITSTATUS(pr.status);
        ret->out = TAKE_PTR(pr.out);
        ret->out_size = pr.out_size;
        ret->err = TAKE_PTR(pr.err);
        ret->err_size = pr.err_size;
        return 0;
}

int transport_exec(Transport *t, char * const *argv, const char *stdin_data, size_t stdin_size,
                   unsigned timeout_sec, TransportExecResult *ret, Error *err) {
        if (!argv || !argv[0])
                return error_set(err, EINVAL, "no command given for host '%s'", t->name);
        if (timeout_sec == 0)
                timeout_sec = t->command_timeout_sec;
        if (t->kind == TRANSPORT_LOCAL)
                return local_exec(t, argv, stdin_data, stdin_size, timeout_sec, ret, err);

        _cleanup_(freep) char *quoted = transport_quote_argv(argv);
        if (!quoted)
                return error_set(err, ENOMEM, "out of memory");
        /* Bound the command on the host as well: closing our channel alone does not stop
         * it. `timeout` (coreutils) outlives our own deadline by a little, so our -ETIME
         * comes first; -k kills what ignores SIGTERM. */
        _cleanup_(freep) char *cmd = strprintf("exec timeout -k 5 %u %s", timeout_sec + 2, quoted);
        if (!cmd)
                return error_set(err, ENOMEM, "out of memory");
        *ret = (TransportExecResult) {};
        return ssh_session_exec(t->ssh, cmd, stdin_data, stdin_size, timeout_sec, ret, err);
}

static pthread_once_t self_sha_once = PTHREAD_ONCE_INIT;
static char self_sha[65];
static Error self_sha_error;

static void self_sha_compute(void) {
        (void) sha256_file("/proc/self/exe", 0, 0, self_sha, &self_sha_error);
}

int transport_self_sha256(char ret_hex[static 65], Error *err) {
        /* hashed once per process: fanning out to 50 hosts must not hash 50 times */
        pthread_once(&self_sha_once, self_sha_compute);
        if (self_sha_error.code) {
                if (err)
                        *err = self_sha_error;
                return -self_sha_error.code;
        }
        memcpy(ret_hex, self_sha, 65);
        return 0;
}

int transport_sha256_file(const char *path, char ret_hex[static 65], Error *err) {
        /* one implementation of the build hash for both sides (the agent's hello uses it too) */
        return sha256_file(path, 0, 0, ret_hex, err);
}

static int read_file(const char *path, char **ret, size_t *ret_size, Error *err) {
        _cleanup_(closep) int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return error_set(err, errno, "cannot open '%s': %s", path, strerror(errno));
        struct stat st;
        if (fstat(fd, &st) < 0)
                return error_set(err, errno, "cannot stat '%s': %s", path, strerror(errno));
        if ((uint64_t) st.st_size > AGENT_MAX)
                return error_set(err, EFBIG, "'%s' is too large", path);
        _cleanup_(freep) char *buf = malloc((size_t) st.st_size + 1);
        if (!buf)
                return error_set(err, ENOMEM, "out of memory");
        size_t off = 0;
        while (off < (size_t) st.st_size) {
                ssize_t n = read(fd, buf + off, (size_t) st.st_size - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return error_set(err, n < 0 ? errno : EIO, "cannot read '%s'", path);
                off += (size_t) n;
        }
        *ret = TAKE_PTR(buf);
        *ret_size = off;
        return 0;
}

static bool is_hex64(const char *s) {
        for (int i = 0; i < 64; i++)
                if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                        return false;
        return true;
}

/* ---- agent path safety ---- */

/* The agent runs as the ssh user (root, usually) the moment it is started, before any
 * hash is compared: whoever can write the binary or swap a directory on its path runs code
 * as that user. So every component, from / down to the file, must be owned by root or the
 * ssh user and writable by nobody else; a symbolic link anywhere is refused (what it
 * points to would need the same checks). One `stat` of all components on the host, no
 * shell: ~one round trip. *ret_missing: the file (or a directory above it) does not exist
 * yet — the components that do exist passed. */
static int agent_path_check(Transport *t, bool *ret_missing, Error *err) {
        *ret_missing = false;
        if (t->agent_path_checked)
                return 0;
        const char *path = t->agent_path;
        if (path[0] != '/' || strstr(path, "/./") || strstr(path, "/../") || endswith(path, "/") ||
            endswith(path, "/.") || endswith(path, "/.."))
                return error_set(err, EINVAL, "agent path '%s' for host '%s' is not a normalized absolute file path",
                                 path, t->name);

        /* "/", "/a", "/a/b", ... path */
        _cleanup_strv_free_ char **comps = NULL;
        if (strv_extend(&comps, "/") < 0)
                return error_set(err, ENOMEM, "out of memory");
        for (const char *p = path + 1; *p;) {
                const char *slash = strchr(p, '/');
                size_t len = slash ? (size_t) (slash - path) : strlen(path);
                if (slash && slash[1] == '/')
                        return error_set(err, EINVAL, "agent path '%s' for host '%s' is not a normalized absolute file path",
                                         path, t->name);
                if (strv_consume(&comps, strndup(path, len)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                if (!slash)
                        break;
                p = slash + 1;
        }

        _cleanup_strv_free_ char **argv = NULL;
        const char *head[] = { "stat", "-c", "%u %U %f %n", "--" };
        for (size_t i = 0; i < ELEMENTSOF(head); i++)
                if (strv_extend(&argv, head[i]) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        STRV_FOREACH(c, comps)
                if (strv_extend(&argv, *c) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        TransportExecResult res = {};
        int r = transport_exec(t, argv, NULL, 0, 60, &res, err);
        if (r < 0)
                return error_prefix(err, r, "cannot check the agent path '%s' on host '%s'", path, t->name);
        _cleanup_strv_free_ char **lines = strv_split(res.out ? res.out : "", "\n");
        _cleanup_(freep) char *stat_err = strdup(res.err ? res.err : "");
        transport_exec_result_done(&res);
        if (!lines || !stat_err)
                return error_set(err, ENOMEM, "out of memory");

        bool missing = false;
        size_t n = strv_length(comps);
        for (size_t i = 0; i < n && !missing; i++) {
                const char *c = comps[i];
                bool is_file = i == n - 1;
                const char *line = NULL;
                /* "<uid> <user> <raw mode, hex> <name>": the name last, it may hold spaces */
                STRV_FOREACH(l, lines) {
                        const char *q = *l;
                        for (int f = 0; f < 3 && q; f++)
                                q = strchr(q, ' ') ? strchr(q, ' ') + 1 : NULL;
                        if (q && streq(q, c)) {
                                line = *l;
                                break;
                        }
                }
                if (!line) {
                        if (!strstr(stat_err, "No such file or directory"))
                                return error_set(err, EIO, "cannot check the agent path '%s' on host '%s': %s", path,
                                                 t->name, *stat_err ? stat_err : "stat printed nothing");
                        missing = true;
                        break;
                }
                unsigned long uid = 0, mode = 0;
                char owner[256] = "";
                if (sscanf(line, "%lu %255s %lx", &uid, owner, &mode) != 3)
                        return error_set(err, EIO, "cannot check the agent path '%s' on host '%s': unexpected stat output '%s'",
                                         path, t->name, line);
                const char *what = is_file ? "file" : "directory";
                const char *why = NULL;
                char whybuf[512];
                if (S_ISLNK(mode))
                        why = "is a symbolic link (give the path it points to)";
                else if (is_file ? !S_ISREG(mode) : !S_ISDIR(mode))
                        why = is_file ? "is not a regular file" : "is not a directory";
                else if (uid != 0 && !streq(owner, t->user)) {
                        snprintf(whybuf, sizeof(whybuf), "is owned by '%s' (uid %lu), not by root%s%s%s", owner, uid,
                                 streq(t->user, "root") ? "" : " or '", streq(t->user, "root") ? "" : t->user,
                                 streq(t->user, "root") ? "" : "'");
                        why = whybuf;
                } else if (mode & S_IWOTH) {
                        snprintf(whybuf, sizeof(whybuf), "is world-writable (mode %04lo)", mode & 07777);
                        why = whybuf;
                } else if (mode & S_IWGRP) {
                        snprintf(whybuf, sizeof(whybuf), "is group-writable (mode %04lo)", mode & 07777);
                        why = whybuf;
                }
                if (why) {
                        t->agent_path_refused = true;
                        return error_set(err, EPERM,
                                         "refusing the agent path '%s' on host '%s': %s '%s' %s, so others could "
                                         "replace what runs as '%s'",
                                         path, t->name, what, c, why, t->user);
                }
        }
        if (!missing)
                t->agent_path_checked = true;
        *ret_missing = missing;
        return 0;
}

int transport_ensure_agent(Transport *t, const char *local_path, bool *ret_uploaded, Error *err) {
        if (ret_uploaded)
                *ret_uploaded = false;
        if (t->kind == TRANSPORT_LOCAL)
                return 0;
        if (!local_path)
                local_path = "/proc/self/exe";

        char local_sha[65];
        int r = streq(local_path, "/proc/self/exe") ? transport_self_sha256(local_sha, err)
                                                     : transport_sha256_file(local_path, local_sha, err);
        if (r < 0)
                return r;

        /* nothing is hashed, written or run at a path others could write */
        bool missing = false;
        r = agent_path_check(t, &missing, err);
        if (r < 0)
                return r;

        /* The remote's sha256: a .sha256 file next to the binary would be cheaper to read
         * but can lie after a manual copy; hashing the binary itself is ~10 ms. */
        char *argv[] = { (char *) "sha256sum", t->agent_path, NULL };
        TransportExecResult res = {};
        r = transport_exec(t, argv, NULL, 0, 60, &res, err);
        if (r < 0)
                return error_prefix(err, r, "cannot check the agent on host '%s'", t->name);
        bool same = res.exit_status == 0 && res.out_size >= 64 && is_hex64(res.out) && strncmp(res.out, local_sha, 64) == 0;
        transport_exec_result_done(&res);
        if (same)
                return 0;

        _cleanup_(freep) char *dir = strdup(t->agent_path);
        if (!dir)
                return error_set(err, ENOMEM, "out of memory");
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
                return error_set(err, EINVAL, "agent path '%s' for host '%s' is not an absolute file path",
                                 t->agent_path, t->name);
        *slash = 0;
        char *mkdir_argv[] = { (char *) "mkdir", (char *) "-p", (char *) "-m", (char *) "0755", dir, NULL };
        r = transport_exec(t, mkdir_argv, NULL, 0, 60, &res, err);
        if (r < 0)
                return r;
        if (res.exit_status != 0) {
                r = error_set(err, EIO, "cannot create '%s' on host '%s': %s", dir, t->name, res.err);
                transport_exec_result_done(&res);
                return r;
        }
        transport_exec_result_done(&res);

        _cleanup_(freep) char *data = NULL;
        size_t size = 0;
        r = read_file(local_path, &data, &size, err);
        if (r < 0)
                return r;
        if (missing) {
                /* mkdir made what was missing: check it before writing into it */
                r = agent_path_check(t, &missing, err);
                if (r < 0)
                        return r;
        }
        r = ssh_session_upload(t->ssh, t->agent_path, data, size, 0755, 300, err);
        if (r < 0)
                return r;
        t->agent_path_checked = false; /* the new file is checked before it runs */
        if (ret_uploaded)
                *ret_uploaded = true;
        return 0;
}

/* ---- agent channel ---- */

static int channel_push(AgentChannel *c, json_object *o) {
        json_object **p = realloc(c->pending, (c->n_pending + 1) * sizeof(json_object *));
        if (!p) {
                json_object_put(o);
                return -ENOMEM;
        }
        c->pending = p;
        c->pending[c->n_pending++] = o;
        return 0;
}

static void local_progress(json_object *progress, void *userdata) {
        AgentChannel *c = userdata;
        (void) channel_push(c, json_object_get(progress));
}

static int check_hello(AgentChannel *c, json_object *line, Error *err) {
        json_object *hello = NULL;
        if (!json_object_is_type(line, json_type_object) || !json_object_object_get_ex(line, "hello", &hello) ||
            !json_object_is_type(hello, json_type_object))
                return error_set(err, EPROTO, "the agent on host '%s' did not say hello (got '%s')", c->t->name,
                                 json_object_to_json_string_ext(line, JSON_C_TO_STRING_PLAIN));
        int64_t proto = 0;
        Error e = {};
        if (json_get_int(hello, "protocol", true, &proto, "agent hello", &e) < 0)
                return error_set(err, EPROTO, "the agent on host '%s' sent a bad hello: %s", c->t->name, e.message);
        if (proto != TRANSPORT_AGENT_PROTOCOL) {
                const char *version = "?";
                (void) json_get_string(hello, "version", false, &version, "agent hello", NULL);
                return error_set(err, EPROTONOSUPPORT,
                                 "agent protocol %" PRId64 " on '%s' (cephprov %s), this cephprov speaks %d: "
                                 "upgrade the older side",
                                 proto, c->t->name, version, TRANSPORT_AGENT_PROTOCOL);
        }
        c->hello = json_object_get(hello);
        return 0;
}

int agent_channel_recv(AgentChannel *c, unsigned timeout_sec, json_object **ret, Error *err) {
        if (timeout_sec == 0)
                timeout_sec = c->t->command_timeout_sec;
        if (!c->stream) {
                if (c->first_pending >= c->n_pending)
                        return error_set(err, ENOMSG, "no pending answer from the local agent");
                *ret = c->pending[c->first_pending];
                c->pending[c->first_pending++] = NULL;
                if (c->first_pending == c->n_pending)
                        c->first_pending = c->n_pending = 0;
                return 0;
        }

        uint64_t deadline = clock_mono_ms() + (uint64_t) timeout_sec * 1000;
        _cleanup_(freep) char *line = NULL;
        int r = ssh_stream_read_line(c->stream, deadline, &line, err);
        if (r < 0) {
                const char *tail = ssh_stream_stderr_tail(c->stream);
                if (err && *tail) {
                        size_t l = strlen(err->message), tl = strlen(tail);
                        while (tl > 0 && tail[tl - 1] == '\n')
                                tl--;
                        snprintf(err->message + l, sizeof(err->message) - l, " (agent stderr: %.*s)", (int) tl, tail);
                }
                return r;
        }
        enum json_tokener_error jerr;
        json_object *o = json_tokener_parse_verbose(line, &jerr);
        if (!o || !json_object_is_type(o, json_type_object)) {
                json_object_put(o);
                return error_set(err, EPROTO, "the agent on host '%s' sent a line that is not a JSON object: '%.200s'",
                                 c->t->name, line);
        }
        *ret = o;
        return 0;
}

int agent_channel_send(AgentChannel *c, const char *op, json_object *args, unsigned *ret_id, Error *err) {
        _cleanup_json_ json_object *req = json_object_new_object();
        if (!req)
                return error_set(err, ENOMEM, "out of memory");
        unsigned id = ++c->next_id;
        if (json_add_u64(req, "id", id) < 0 || json_add_string(req, "op", op) < 0 ||
            json_add(req, "args", args ? json_object_get(args) : json_object_new_object()) < 0)
                return error_set(err, ENOMEM, "out of memory");

        if (!c->stream) {
                json_object *resp = NULL;
                int r = local_agent->dispatch(c->state, req, &resp, local_progress, c);
                if (!resp) {
                        /* The dispatcher gave no response object: make the failure one. */
                        resp = json_object_new_object();
                        json_add_u64(resp, "id", id);
                        json_add_bool(resp, "ok", false);
                        json_object *e = json_object_new_object();
                        json_add_string(e, "errno", errno_name(r < 0 ? -r : EIO));
                        json_add_int(e, "code", r < 0 ? -r : EIO);
                        json_add_string(e, "message", "local agent failed without an answer");
                        json_add(resp, "error", e);
                }
                if (channel_push(c, resp) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        } else {
                const char *s = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN);
                _cleanup_(freep) char *line = strprintf("%s\n", s);
                if (!line)
                        return error_set(err, ENOMEM, "out of memory");
                uint64_t deadline = clock_mono_ms() + (uint64_t) c->t->command_timeout_sec * 1000;
                int r = ssh_stream_write(c->stream, line, strlen(line), deadline, err);
                if (r < 0)
                        return r;
        }
        if (ret_id)
                *ret_id = id;
        return 0;
}

int agent_channel_call(AgentChannel *c, const char *op, json_object *args, unsigned timeout_sec,
                       AgentChannelProgressFn progress, void *userdata, json_object **ret_result, Error *err) {
        unsigned id;
        int r = agent_channel_send(c, op, args, &id, err);
        if (r < 0)
                return r;
        for (;;) {
                _cleanup_json_ json_object *o = NULL;
                r = agent_channel_recv(c, timeout_sec, &o, err);
                if (r < 0)
                        return error_prefix(err, r, "%s: %s", c->t->name, op);
                uint64_t rid = 0;
                if (json_get_u64(o, "id", true, &rid, "agent answer", NULL) < 0 || rid != id)
                        continue; /* an answer to a pipelined request the caller did not wait for */
                json_object *p = NULL;
                if (json_object_object_get_ex(o, "progress", &p)) {
                        if (progress)
                                progress(p, userdata);
                        continue;
                }
                bool ok = false;
                if (json_get_bool(o, "ok", true, &ok, "agent answer", err) < 0)
                        return error_prefix(err, EPROTO, "%s: %s: bad answer from the agent", c->t->name, op);
                if (!ok) {
                        json_object *e = NULL;
                        const char *msg = "failed";
                        int64_t code = EIO;
                        if (json_get_object(o, "error", false, &e, "agent answer", NULL) >= 0 && e) {
                                (void) json_get_string(e, "message", false, &msg, "agent error", NULL);
                                (void) json_get_int(e, "code", false, &code, "agent error", NULL);
                        }
                        if (code <= 0)
                                code = EIO;
                        return error_set(err, (int) code, "%s: %s: %s", c->t->name, op, msg);
                }
                json_object *result = NULL;
                if (!json_object_object_get_ex(o, "result", &result) || !result)
                        result = NULL;
                if (ret_result)
                        *ret_result = result ? json_object_get(result) : json_object_new_object();
                return 0;
        }
}

static json_object *local_hello(Error *err) {
        struct utsname u;
        uname(&u);
        char sha[65] = "";
        (void) transport_self_sha256(sha, NULL);
        json_object *h = json_object_new_object(), *o = json_object_new_object();
        json_add_string(h, "agent", "cephprov");
        json_add_string(h, "version", CEPHPROV_VERSION);
        json_add_int(h, "protocol", TRANSPORT_AGENT_PROTOCOL);
        json_add_string(h, "host", u.nodename);
        json_add_string(h, "build", sha);
        json_add(o, "hello", h);
        return o;
}

int transport_agent_start(Transport *t, AgentChannel **ret, Error *err) {
        _cleanup_(agent_channel_closep) AgentChannel *c = calloc(1, sizeof(AgentChannel));
        if (!c)
                return error_set(err, ENOMEM, "out of memory");
        c->t = t;

        _cleanup_json_ json_object *hello = NULL;
        int r;
        if (t->kind == TRANSPORT_LOCAL) {
                if (!local_agent)
                        return error_set(err, EOPNOTSUPP, "no in-process agent for local host '%s'", t->name);
                c->state = local_agent->state_new();
                if (!c->state)
                        return error_set(err, ENOMEM, "out of memory");
                hello = local_hello(err);
        } else {
                bool missing = false;
                r = agent_path_check(t, &missing, err);
                if (r < 0)
                        return r;
                if (missing)
                        return error_set(err, ENOENT, "no agent at '%s' on host '%s'", t->agent_path, t->name);
                char *argv[] = { t->agent_path, (char *) "agent", NULL };
                _cleanup_(freep) char *cmd = transport_quote_argv(argv);
                if (!cmd)
                        return error_set(err, ENOMEM, "out of memory");
                r = ssh_session_spawn(t->ssh, cmd, AGENT_HELLO_TIMEOUT_SEC, &c->stream, err);
                if (r < 0)
                        return r;
                r = agent_channel_recv(c, AGENT_HELLO_TIMEOUT_SEC, &hello, err);
                if (r < 0)
                        return error_prefix(err, r, "cannot start the agent '%s' on host '%s'", t->agent_path, t->name);
        }
        r = check_hello(c, hello, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 0;
}

int transport_agent_start_current(Transport *t, AgentChannel **ret, bool *ret_uploaded, Error *err) {
        if (ret_uploaded)
                *ret_uploaded = false;
        if (t->kind == TRANSPORT_LOCAL)
                return transport_agent_start(t, ret, err);

        /* Optimistic: most runs find the same build in place, and its hello carries the build
         * hash, so one round trip (start + hello) decides. Anything else — no binary, another
         * build, another protocol — goes through the upload and one more start. */
        char self[65];
        int r = transport_self_sha256(self, err);
        if (r < 0)
                return r;

        AgentChannel *c = NULL;
        Error first = {};
        r = transport_agent_start(t, &c, &first);
        if (r < 0 && t->agent_path_refused) {
                /* the agent path is unsafe: nothing was run, and an upload would not help */
                if (err)
                        *err = first;
                return r;
        }
        if (r >= 0) {
                const char *build = json_object_get_string(json_object_object_get(c->hello, "build"));
                if (build && streq(build, self)) {
                        *ret = c;
                        return 0;
                }
                agent_channel_close(c);
        }

        r = transport_ensure_agent(t, NULL, ret_uploaded, err);
        if (r < 0)
                return r;
        return transport_agent_start(t, ret, err);
}

json_object *agent_channel_hello(AgentChannel *c) {
        return c->hello;
}

AgentChannel *agent_channel_close(AgentChannel *c) {
        if (!c)
                return NULL;
        if (c->stream) {
                /* Best effort goodbye; EOF on stdin ends the agent too. */
                if (c->hello && !ssh_stream_is_broken(c->stream)) {
                        Error e = {};
                        _cleanup_json_ json_object *res = NULL;
                        (void) agent_channel_call(c, "exit", NULL, 5, NULL, NULL, &res, &e);
                }
                ssh_stream_free(c->stream);
        }
        if (c->state && local_agent)
                local_agent->state_free(c->state);
        for (size_t i = c->first_pending; i < c->n_pending; i++)
                json_object_put(c->pending[i]);
        free(c->pending);
        json_object_put(c->hello);
        free(c);
        return NULL;
}
