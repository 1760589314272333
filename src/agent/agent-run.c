/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Running commands for the "run" op and for make-bcache: fork + execvp, never a shell. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent-internal.h"

extern char **environ;

void run_result_done(RunResult *r) {
        free(r->out);
        free(r->err);
        *r = (RunResult) {};
}

typedef struct Buf {
        char *data;
        size_t len, cap;
} Buf;

static int buf_append(Buf *b, const char *p, size_t n) {
        if (b->len + n + 1 > b->cap) {
                size_t ncap = MAX(b->cap * 2, b->len + n + 1);
                ncap = MAX(ncap, (size_t) 4096);
                char *nd = realloc(b->data, ncap);
                if (!nd)
                        return -ENOMEM;
                b->data = nd;
                b->cap = ncap;
        }
        memcpy(b->data + b->len, p, n);
        b->len += n;
        b->data[b->len] = 0;
        return 0;
}

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

int agent_spawn(char * const *argv, const char *stdin_data, char * const *env_extra, unsigned timeout,
                RunResult *ret, Error *err) {
        int in[2] = { -1, -1 }, out[2] = { -1, -1 }, er[2] = { -1, -1 }, ex[2] = { -1, -1 };

        if (!argv || !argv[0])
                return error_set(err, EINVAL, "run: empty argv");
        if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(er, O_CLOEXEC) < 0 ||
            pipe2(ex, O_CLOEXEC) < 0) {
                int e = errno;
                for (int i = 0; i < 2; i++) {
                        if (in[i] >= 0) close(in[i]);
                        if (out[i] >= 0) close(out[i]);
                        if (er[i] >= 0) close(er[i]);
                        if (ex[i] >= 0) close(ex[i]);
                }
                return error_set(err, e, "cannot run '%s': %s", argv[0], strerror(e));
        }

        /* build the environment before fork: nothing that allocates after it */
        _cleanup_strv_free_ char **env = strv_copy(environ);
        STRV_FOREACH(e, env_extra)
                if (strv_extend(&env, *e) < 0)
                        return error_set(err, ENOMEM, "out of memory");

        pid_t pid = fork();
        if (pid < 0) {
                int e = errno;
                close(in[0]); close(in[1]); close(out[0]); close(out[1]);
                close(er[0]); close(er[1]); close(ex[0]); close(ex[1]);
                return error_set(err, e, "cannot run '%s': %s", argv[0], strerror(e));
        }
        if (pid == 0) {
                if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(er[1], 2) < 0)
                        _exit(127);
                signal(SIGPIPE, SIG_DFL);
                environ = env;
                execvp(argv[0], argv);
                int e = errno;
                ssize_t _unused_ n = write(ex[1], &e, sizeof(e));
                _exit(127);
        }
        close(in[0]);
        close(out[1]);
        close(er[1]);
        close(ex[1]);

        /* exec failure arrives on the CLOEXEC pipe; EOF means exec succeeded */
        int child_errno = 0;
        ssize_t n = read(ex[0], &child_errno, sizeof(child_errno));
        close(ex[0]);
        if (n == (ssize_t) sizeof(child_errno)) {
                close(in[1]);
                close(out[0]);
                close(er[0]);
                waitpid(pid, NULL, 0);
                return error_set(err, child_errno, "cannot run '%s': %s", argv[0], strerror(child_errno));
        }

        Buf bo = {}, be = {};
        size_t in_len = stdin_data ? strlen(stdin_data) : 0, in_done = 0;
        if (in_len == 0) {
                close(in[1]);
                in[1] = -1;
        } else
                fcntl(in[1], F_SETFL, O_NONBLOCK);

        uint64_t deadline = timeout > 0 ? now_ms() + (uint64_t) timeout * 1000 : 0;
        bool timed_out = false, exited = false;
        int status = 0;
        int ofd = out[0], efd = er[0];
        while (ofd >= 0 || efd >= 0) {
                /* A daemon the command started may keep our pipes open forever: once the
                 * command itself has exited, take what is buffered and stop. */
                if (!exited && waitpid(pid, &status, WNOHANG) == pid)
                        exited = true;
                struct pollfd pf[3];
                int np = 0, io = -1, ie = -1, ii = -1;
                if (ofd >= 0) { io = np; pf[np++] = (struct pollfd) { .fd = ofd, .events = POLLIN }; }
                if (efd >= 0) { ie = np; pf[np++] = (struct pollfd) { .fd = efd, .events = POLLIN }; }
                if (in[1] >= 0 && !exited) { ii = np; pf[np++] = (struct pollfd) { .fd = in[1], .events = POLLOUT }; }
                int wait_ms = exited ? 0 : 100;
                if (deadline) {
                        uint64_t t = now_ms();
                        if (t >= deadline) {
                                timed_out = !exited;
                                break;
                        }
                        wait_ms = MIN(wait_ms, (int) (deadline - t));
                }
                int k = poll(pf, (nfds_t) np, wait_ms);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                if (k == 0) {
                        if (exited)
                                break; /* nothing more buffered */
                        continue;
                }
                char chunk[16384];
                if (io >= 0 && pf[io].revents) {
                        ssize_t m = read(ofd, chunk, sizeof(chunk));
                        if (m > 0)
                                buf_append(&bo, chunk, (size_t) m);
                        else if (m == 0 || errno != EINTR) {
                                close(ofd);
                                ofd = -1;
                        }
                }
                if (ie >= 0 && pf[ie].revents) {
                        ssize_t m = read(efd, chunk, sizeof(chunk));
                        if (m > 0)
                                buf_append(&be, chunk, (size_t) m);
                        else if (m == 0 || errno != EINTR) {
                                close(efd);
                                efd = -1;
                        }
                }
                if (ii >= 0 && pf[ii].revents) {
                        ssize_t m = write(in[1], stdin_data + in_done, in_len - in_done);
                        if (m > 0)
                                in_done += (size_t) m;
                        if ((m < 0 && errno != EAGAIN && errno != EINTR) || in_done >= in_len) {
                                close(in[1]);
                                in[1] = -1;
                        }
                }
        }
        if (in[1] >= 0)
                close(in[1]);
        if (ofd >= 0)
                close(ofd);
        if (efd >= 0)
                close(efd);
        if (timed_out)
                kill(pid, SIGKILL);
        if (!exited)
                while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                        ;
        *ret = (RunResult) {
                .exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
                .out = bo.data ? bo.data : strdup(""),
                .err = be.data ? be.data : strdup(""),
                .timed_out = timed_out,
        };
        return 0;
}

int agent_op_run(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err) {
        json_object *argv_j = NULL, *env_j = NULL;
        const char *stdin_data = NULL;
        int64_t timeout = 0;
        int r;

        r = json_get_array(args, "argv", true, &argv_j, "run", err);
        if (r < 0)
                return r;
        r = json_get_string(args, "stdin", false, &stdin_data, "run", err);
        if (r < 0 && r != -ENOENT)
                return r;
        r = json_get_int(args, "timeout", false, &timeout, "run", err);
        if (r < 0 && r != -ENOENT)
                return r;
        /* agent_spawn() takes unsigned seconds: 2^32 must not become 0, "no timeout" */
        if (timeout < 0 || timeout > UINT_MAX)
                return error_set(err, EINVAL, "run: timeout %" PRId64 " is not in 0..%u seconds", timeout, UINT_MAX);
        r = json_get_object(args, "env", false, &env_j, "run", err);
        if (r < 0 && r != -ENOENT)
                return r;

        _cleanup_strv_free_ char **argv = calloc(1, sizeof(char *));
        _cleanup_strv_free_ char **env = calloc(1, sizeof(char *));
        if (!argv || !env)
                return error_set(err, ENOMEM, "out of memory");
        size_t n = json_object_array_length(argv_j);
        if (n == 0)
                return error_set(err, EINVAL, "run: argv is empty");
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(argv_j, i);
                if (!json_object_is_type(e, json_type_string))
                        return error_set(err, EINVAL, "run: argv[%zu] is not a string", i);
                if (strv_extend(&argv, json_object_get_string(e)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        if (env_j) {
                json_object_object_foreach(env_j, k, v) {
                        if (!json_object_is_type(v, json_type_string) || strchr(k, '='))
                                return error_set(err, EINVAL, "run: env '%s' is not a string", k);
                        if (strv_consume(&env, strprintf("%s=%s", k, json_object_get_string(v))) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                }
        }

        bool read_only = false;
        r = json_get_bool(args, "read_only", false, &read_only, "run", err);
        if (r < 0 && r != -ENOENT)
                return r;
        if (s->dry_run && !read_only) {
                /* a dry-run agent runs only what the controller marks as a query */
                _cleanup_(freep) char *cmd = strv_join(argv, " ");
                return error_set(err, EPERM, "dry run on '%s': not running '%s' (not marked read_only)",
                                 agent_host(s), cmd ? cmd : argv[0]);
        }

        _cleanup_(run_result_done) RunResult rr = {};
        r = agent_spawn(argv, stdin_data, env, (unsigned) timeout, &rr, err);
        if (r < 0)
                return r;
        if (rr.timed_out)
                return error_set(err, ETIMEDOUT, "'%s' on '%s' timed out after %" PRId64 " s", argv[0],
                                 agent_host(s), timeout);

        json_object *o = json_object_new_object();
        if (!o)
                return error_set(err, ENOMEM, "out of memory");
        json_add_int(o, "exit", rr.exit_status);
        json_add_string(o, "stdout", rr.out);
        json_add_string(o, "stderr", rr.err);
        *ret = o;
        return 0;
}
