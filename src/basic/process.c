/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "process.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock-util.h"
#include "strv.h"

extern char **environ;

/* After the command exited, what it wrote is collected for at most this long (a daemon it
 * started may hold the pipes open and keep writing). */
#define DRAIN_AFTER_EXIT_MS 1000

/* The process groups of the commands running now, for process_kill_on_signal(): a
 * signal handler cannot be given a context, so this one table is process-wide. */
#define ACTIVE_MAX 128
static _Atomic pid_t active[ACTIVE_MAX];

static void active_add(pid_t pgid) {
        for (size_t i = 0; i < ACTIVE_MAX; i++) {
                pid_t zero = 0;
                if (atomic_compare_exchange_strong(&active[i], &zero, pgid))
                        return;
        }
        /* full (128 commands at once): this one is not killed on a signal, only on its timeout */
}

static void active_remove(pid_t pgid) {
        for (size_t i = 0; i < ACTIVE_MAX; i++) {
                pid_t p = pgid;
                if (atomic_compare_exchange_strong(&active[i], &p, 0))
                        return;
        }
}

/* Only async-signal-safe calls. After the SIGKILLs, up to 3 s for the groups to be gone
 * (children reaped as they die): dying at once would release what this process holds (the
 * agent's per-device lock) while a killed command's last I/O may still be in flight. An
 * orphaned grandchild nobody reaps stays a zombie, hence the bound. */
static void kill_active_and_die(int sig) {
        int saved = errno;
        for (size_t i = 0; i < ACTIVE_MAX; i++) {
                pid_t p = atomic_load(&active[i]);
                if (p > 0)
                        (void) kill(-p, SIGKILL);
        }
        for (int t = 0; t < 30; t++) {
                while (waitpid(-1, NULL, WNOHANG) > 0)
                        ;
                bool left = false;
                for (size_t i = 0; i < ACTIVE_MAX && !left; i++) {
                        pid_t p = atomic_load(&active[i]);
                        left = p > 0 && !(kill(-p, 0) < 0 && errno == ESRCH);
                }
                if (!left)
                        break;
                struct timespec ts = { .tv_nsec = 100 * 1000 * 1000 };
                (void) nanosleep(&ts, NULL);
        }
        errno = saved;
        signal(sig, SIG_DFL);
        raise(sig);
}

void process_kill_on_signal(void) {
        const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
        for (size_t i = 0; i < ELEMENTSOF(sigs); i++) {
                struct sigaction old;
                if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
                        continue; /* ignored on purpose (nohup): keep it so */
                struct sigaction sa = { .sa_handler = kill_active_and_die, .sa_flags = SA_RESETHAND };
                sigemptyset(&sa.sa_mask);
                (void) sigaction(sigs[i], &sa, NULL);
        }
}

void process_result_done(ProcessResult *r) {
        if (!r)
                return;
        free(r->out);
        free(r->err);
        *r = (ProcessResult) {};
}

static void sleep_ms(unsigned ms) {
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000 };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
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

/* 1 data read, 0 EOF or error (fd done), -EAGAIN nothing now, -ENOMEM */
static int drain_once(int fd, Buf *b) {
        char chunk[16384];
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n > 0)
                return buf_append(b, chunk, (size_t) n) < 0 ? -ENOMEM : 1;
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return -EAGAIN;
        return 0;
}

bool process_group_alive(pid_t pgid) {
        if (pgid <= 0)
                return false;
        if (kill(-pgid, 0) < 0 && errno == ESRCH)
                return false;
        /* Some member exists; it counts only if it is not a zombie. Orphaned members are
         * reparented to PID 1, which does not reap them on every host (containers). */
        DIR *d = opendir("/proc");
        if (!d)
                return true;
        bool alive = false;
        struct dirent *de;
        while (!alive && (de = readdir(d))) {
                if (de->d_name[0] < '1' || de->d_name[0] > '9')
                        continue;
                char path[300], buf[512];
                snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                ssize_t n = read(fd, buf, sizeof(buf) - 1);
                close(fd);
                if (n <= 0)
                        continue;
                buf[n] = 0;
                /* "pid (comm) S ppid pgrp ...": comm may hold spaces and parentheses */
                char *p = strrchr(buf, ')');
                char state;
                int ppid, pgrp;
                if (!p || sscanf(p + 1, " %c %d %d", &state, &ppid, &pgrp) != 3)
                        continue;
                if (pgrp == pgid && state != 'Z' && state != 'X')
                        alive = true;
        }
        closedir(d);
        return alive;
}

/* Reap the members that are our children; the leader's status goes to *leader_status. */
static void reap_group(pid_t pgid, int *leader_status) {
        int st;
        pid_t w;
        while ((w = waitpid(-pgid, &st, WNOHANG)) > 0)
                if (w == pgid && leader_status)
                        *leader_status = st;
}

static void group_kill(pid_t pgid, uint64_t grace_ms, int *leader_status) {
        (void) kill(-pgid, SIGTERM);
        /* a stopped member would sit on SIGTERM until the grace ends */
        (void) kill(-pgid, SIGCONT);
        uint64_t until = clock_mono_ms() + grace_ms;
        unsigned step = 5;
        for (;;) {
                reap_group(pgid, leader_status);
                if (!process_group_alive(pgid))
                        return;
                if (clock_mono_ms() >= until)
                        break;
                sleep_ms(step);
                step = MIN(step * 2, 100u);
        }
        /* No bound from here: SIGKILL cannot be refused, only delayed by a member in
         * uninterruptible sleep, and returning while one still writes is what callers that
         * hold a lock across the command must never see. */
        for (step = 5;;) {
                (void) kill(-pgid, SIGKILL);
                reap_group(pgid, leader_status);
                if (!process_group_alive(pgid))
                        return;
                sleep_ms(step);
                step = MIN(step * 2, 100u);
        }
}

void process_group_kill(pid_t pgid, uint64_t grace_ms) {
        if (pgid > 0)
                group_kill(pgid, grace_ms, NULL);
}

const char *process_status_string(int status, char buf[static 32]) {
        if (WIFEXITED(status))
                snprintf(buf, 32, "exit %d", WEXITSTATUS(status));
        else if (WIFSIGNALED(status))
                snprintf(buf, 32, "signal %s", sigabbrev_np(WTERMSIG(status)) ?: "?");
        else
                snprintf(buf, 32, "status 0x%x", (unsigned) status);
        return buf;
}

/* Our environment with `extra` added; an extra "K=V" replaces our own K. Built before
 * fork(): nothing allocates in the child. */
static char **env_build(char * const *extra) {
        _cleanup_strv_free_ char **env = calloc(1, sizeof(char *));
        if (!env)
                return NULL;
        for (char **e = environ; e && *e; e++) {
                const char *eq = strchr(*e, '=');
                size_t klen = eq ? (size_t) (eq - *e) : strlen(*e);
                bool replaced = false;
                STRV_FOREACH(x, extra)
                        if (strncmp(*x, *e, klen) == 0 && (*x)[klen] == '=')
                                replaced = true;
                if (!replaced && strv_extend(&env, *e) < 0)
                        return NULL;
        }
        STRV_FOREACH(x, extra)
                if (strv_extend(&env, *x) < 0)
                        return NULL;
        return TAKE_PTR(env);
}

static void close_pair(int p[2]) {
        for (int i = 0; i < 2; i++)
                if (p[i] >= 0) {
                        close(p[i]);
                        p[i] = -1;
                }
}

/* write() to the command's stdin without a process-wide SIGPIPE disposition: block it in
 * this thread for the call and take back the one our write raised. */
static ssize_t write_nosigpipe(int fd, const void *p, size_t n) {
        sigset_t pipe_set, old;
        sigemptyset(&pipe_set);
        sigaddset(&pipe_set, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
        ssize_t k = write(fd, p, n);
        int e = errno;
        if (k < 0 && e == EPIPE && !sigismember(&old, SIGPIPE)) {
                const struct timespec zero = {};
                while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
                        ;
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        errno = e;
        return k;
}

int process_run(const ProcessRun *o, ProcessResult *ret, Error *err) {
        int in[2] = { -1, -1 }, out[2] = { -1, -1 }, er[2] = { -1, -1 }, ex[2] = { -1, -1 };

        if (!o->argv || !o->argv[0])
                return error_set(err, EINVAL, "no command given");
        if (o->watch_cancel_fd) {
                /* already hung up: start nothing (an op that goes on after a failed command
                 * must not get its next one started, even for a moment) */
                struct pollfd pf = { .fd = o->cancel_fd, .events = POLLRDHUP };
                if (poll(&pf, 1, 0) > 0 && (pf.revents & (POLLHUP | POLLRDHUP | POLLERR)))
                        return error_set(err, ECONNABORTED, "not running '%s': the connection was closed", o->argv[0]);
        }
        _cleanup_strv_free_ char **env = env_build(o->env_extra);
        if (!env)
                return error_set(err, ENOMEM, "out of memory");
        if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(er, O_CLOEXEC) < 0 ||
            pipe2(ex, O_CLOEXEC) < 0) {
                int e = errno;
                close_pair(in), close_pair(out), close_pair(er), close_pair(ex);
                return error_set(err, e, "cannot run '%s': %s", o->argv[0], strerror(e));
        }

        pid_t pid = fork();
        if (pid < 0) {
                int e = errno;
                close_pair(in), close_pair(out), close_pair(er), close_pair(ex);
                return error_set(err, e, "cannot run '%s': %s", o->argv[0], strerror(e));
        }
        if (pid == 0) {
                /* Its own process group, so a timeout reaches everything it starts. Set here
                 * and in the parent: whichever runs first, the group exists before exec and
                 * before the parent may kill it. */
                (void) setpgid(0, 0);
                if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(er[1], 2) < 0)
                        _exit(127);
                sigset_t none;
                sigemptyset(&none);
                sigprocmask(SIG_SETMASK, &none, NULL);
                signal(SIGPIPE, SIG_DFL);
                environ = env;
                execvp(o->argv[0], o->argv);
                int e = errno;
                ssize_t _unused_ n = write(ex[1], &e, sizeof(e));
                _exit(127);
        }
        (void) setpgid(pid, pid);
        active_add(pid);
        close(in[0]), close(out[1]), close(er[1]), close(ex[1]);

        /* exec failure arrives on the CLOEXEC pipe; EOF means exec succeeded */
        int child_errno = 0;
        ssize_t n;
        while ((n = read(ex[0], &child_errno, sizeof(child_errno))) < 0 && errno == EINTR)
                ;
        close(ex[0]);
        if (n == (ssize_t) sizeof(child_errno)) {
                close(in[1]), close(out[0]), close(er[0]);
                while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                        ;
                active_remove(pid);
                return error_set(err, child_errno, "cannot run '%s': %s", o->argv[0], strerror(child_errno));
        }

        Buf bo = {}, be = {};
        int fin = in[1], fout = out[0], ferr = er[0];
        size_t in_done = 0;
        if (!o->stdin_data || o->stdin_size == 0) {
                close(fin);
                fin = -1;
        } else
                (void) fcntl(fin, F_SETFL, O_NONBLOCK);
        (void) fcntl(fout, F_SETFL, O_NONBLOCK);
        (void) fcntl(ferr, F_SETFL, O_NONBLOCK);

        uint64_t start = clock_mono_ms();
        uint64_t deadline = o->timeout_ms > 0 ? start + o->timeout_ms : 0, drain_until = 0;
        bool exited = false, timed_out = false, cancelled = false, watch = o->watch_cancel_fd;
        int status = 0, r = 0;
        for (;;) {
                if (!exited) {
                        pid_t w = waitpid(pid, &status, WNOHANG);
                        if (w == pid) {
                                exited = true;
                                drain_until = clock_mono_ms() + DRAIN_AFTER_EXIT_MS;
                        }
                }
                if (exited && fout < 0 && ferr < 0)
                        break;
                uint64_t t = clock_mono_ms();
                if (exited && t >= drain_until)
                        break;
                if (!exited && deadline && t >= deadline) {
                        timed_out = true;
                        break;
                }

                struct pollfd pf[4];
                int np = 0, io = -1, ie = -1, ii = -1, ic = -1;
                if (fout >= 0)
                        io = np, pf[np++] = (struct pollfd) { .fd = fout, .events = POLLIN };
                if (ferr >= 0)
                        ie = np, pf[np++] = (struct pollfd) { .fd = ferr, .events = POLLIN };
                if (fin >= 0 && !exited)
                        ii = np, pf[np++] = (struct pollfd) { .fd = fin, .events = POLLOUT };
                /* POLLRDHUP only: a request the controller pipelined (readable data) is
                 * not a reason to wake; a pipe's or socket's hang-up is */
                if (watch && !exited)
                        ic = np, pf[np++] = (struct pollfd) { .fd = o->cancel_fd, .events = POLLRDHUP };
                /* The exit of the command does not wake poll when a daemon it started
                 * holds the pipes: look again every 100 ms. */
                int wait_ms = exited ? 0 : 100;
                if (deadline && !exited)
                        wait_ms = (int) MIN((uint64_t) wait_ms, deadline - t);
                int k = poll(pf, (nfds_t) np, wait_ms);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        break;
                }
                if (k == 0) {
                        if (exited)
                                break; /* nothing more buffered */
                        continue;
                }
                if (ic >= 0 && pf[ic].revents) {
                        if (pf[ic].revents & (POLLHUP | POLLRDHUP | POLLERR)) {
                                cancelled = true;
                                break;
                        }
                        watch = false; /* POLLNVAL or such: not a connection to watch */
                }
                if (io >= 0 && pf[io].revents) {
                        int q = drain_once(fout, &bo);
                        if (q == -ENOMEM) {
                                r = q;
                                break;
                        }
                        if (q == 0)
                                close(fout), fout = -1;
                }
                if (ie >= 0 && pf[ie].revents) {
                        int q = drain_once(ferr, &be);
                        if (q == -ENOMEM) {
                                r = q;
                                break;
                        }
                        if (q == 0)
                                close(ferr), ferr = -1;
                }
                if (ii >= 0 && pf[ii].revents) {
                        ssize_t m = write_nosigpipe(fin, o->stdin_data + in_done, o->stdin_size - in_done);
                        if (m > 0)
                                in_done += (size_t) m;
                        if ((m < 0 && errno != EAGAIN && errno != EINTR) || in_done >= o->stdin_size)
                                close(fin), fin = -1;
                }
        }
        if (fin >= 0)
                close(fin);
        if (fout >= 0)
                close(fout);
        if (ferr >= 0)
                close(ferr);

        if (!exited) {
                /* timed out, cancelled, or our own failure: nothing of it may outlive the call */
                status = -1;
                group_kill(pid, o->term_grace_ms ? o->term_grace_ms : PROCESS_TERM_GRACE_MS_DEFAULT, &status);
                if (status == -1) /* not reaped with the group: it is a zombie by now */
                        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                                ;
        }
        active_remove(pid);
        if (r < 0) {
                free(bo.data);
                free(be.data);
                return error_set(err, -r, "cannot run '%s': %s", o->argv[0], strerror(-r));
        }

        *ret = (ProcessResult) {
                .status = status,
                .out = bo.data ? bo.data : strdup(""),
                .err = be.data ? be.data : strdup(""),
                .out_size = bo.len,
                .err_size = be.len,
                .timed_out = timed_out,
                .cancelled = cancelled,
                .pgid = pid,
        };
        if (!ret->out || !ret->err) {
                process_result_done(ret);
                return error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}
