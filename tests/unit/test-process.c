/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Subprocesses (src/basic/process.c and the agent's agent_spawn on top of it): a timeout
 * or a controller that hangs up kills the command's whole process group, and the call
 * returns only when no member of it is left. Real processes (sh, sleep), no root needed. */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent-internal.h"
#include "agent/agent.h"
#include "basic/process.h"
#include "test.h"

static char tmpdir[] = "/tmp/cephprov-test-process-XXXXXX";

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* A process that still runs: exists and is not a zombie (PID 1 here does not reap
 * orphans, so a dead orphan stays a zombie). Self-contained, so that the tests do not
 * lean on the code under test. */
static bool pid_running(pid_t pid) {
        char path[64], buf[512];
        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        FILE *f = fopen(path, "re");
        if (!f)
                return false;
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = 0;
        char *p = strrchr(buf, ')');
        return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* The pids a test script wrote to `file`, one a line. */
static int read_pids(const char *file, pid_t *pids, int max) {
        FILE *f = fopen(file, "re");
        int n = 0, v;
        if (!f)
                return 0;
        while (n < max && fscanf(f, "%d", &v) == 1)
                pids[n++] = v;
        fclose(f);
        return n;
}

static char *path_in_tmp(const char *name) {
        char *p = strprintf("%s/%s", tmpdir, name);
        if (!p)
                abort();
        return p;
}

static int count_running(const pid_t *pids, int n) {
        int k = 0;
        for (int i = 0; i < n; i++)
                if (pid_running(pids[i]))
                        k++;
        return k;
}

/* The case: `sh -c 'sleep 100 & sleep 100'` with a 1 s timeout. */
static void test_timeout_kills_group(void) {
        _cleanup_(freep) char *pf = path_in_tmp("pids-group");
        _cleanup_(freep) char *script = strprintf("echo $$ > %s; sleep 100 & echo $! >> %s; sleep 100", pf, pf);
        char *argv[] = { (char *) "sh", (char *) "-c", script, NULL };
        RunResult rr = {};
        Error err = {};
        double t0 = now_s();
        CHECK_INTEQ(agent_spawn(NULL, argv, NULL, NULL, 1, &rr, &err), 0);
        double dt = now_s() - t0;
        CHECK(rr.timed_out);
        CHECK(dt >= 1.0 && dt < 3.0);
        pid_t pids[4];
        int n = read_pids(pf, pids, 4);
        CHECK_INTEQ(n, 2);
        /* right when agent_spawn returned: neither sleep nor the shell runs */
        CHECK_INTEQ(count_running(pids, n), 0);
        CHECK(!process_group_alive(pids[0]));
        run_result_done(&rr);
}

/* A member that ignores SIGTERM is SIGKILLed after the grace; the call waits for it. */
static void test_term_ignored_gets_kill(void) {
        _cleanup_(freep) char *pf = path_in_tmp("pids-term");
        _cleanup_(freep) char *script =
                strprintf("echo $$ > %s; sh -c 'trap \"\" TERM; exec sleep 100' & echo $! >> %s; sleep 100", pf, pf);
        char *argv[] = { (char *) "sh", (char *) "-c", script, NULL };
        const ProcessRun o = { .argv = argv, .timeout_ms = 500, .term_grace_ms = 700 };
        ProcessResult pr = {};
        Error err = {};
        double t0 = now_s();
        CHECK_INTEQ(process_run(&o, &pr, &err), 0);
        double dt = now_s() - t0;
        CHECK(pr.timed_out);
        CHECK(dt >= 1.1 && dt < 3.0); /* 0.5 s timeout + 0.7 s grace, not earlier */
        pid_t pids[4];
        int n = read_pids(pf, pids, 4);
        CHECK_INTEQ(n, 2);
        CHECK_INTEQ(count_running(pids, n), 0);
        /* the shell died of SIGTERM; its TERM-ignoring child needed the SIGKILL */
        CHECK(WIFSIGNALED(pr.status) && WTERMSIG(pr.status) == SIGTERM);
        process_result_done(&pr);
}

/* osd-create holds a per-device flock across ceph-volume: a second osd-create that gets
 * the lock must find nothing of the first one still running. Here a checker process waits
 * for the lock and, the moment it has it, looks at the first command's processes; one of
 * them ignores SIGTERM, so it lives on through the agent's default grace (5 s). */
static void test_lock_released_after_group(void) {
        _cleanup_(freep) char *pf = path_in_tmp("pids-lock");
        _cleanup_(freep) char *lock = path_in_tmp("osd-create-test.lock");
        _cleanup_(freep) char *script =
                strprintf("echo $$ > %s; sh -c 'trap \"\" TERM; exec sleep 100' & echo $! >> %s; sleep 100", pf, pf);
        char *argv[] = { (char *) "sh", (char *) "-c", script, NULL };
        int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        CHECK(lfd >= 0);
        CHECK(flock(lfd, LOCK_EX | LOCK_NB) == 0);

        int rep[2];
        CHECK(pipe(rep) == 0);
        pid_t checker = fork();
        if (checker == 0) {
                close(rep[0]);
                close(lfd); /* the parent's lock lives on this (shared) open file description */
                int fd = open(lock, O_RDWR | O_CLOEXEC);
                while (flock(fd, LOCK_EX | LOCK_NB) < 0)
                        usleep(1000);
                pid_t pids[4];
                int n = read_pids(pf, pids, 4);
                int running = n == 2 ? count_running(pids, n) : -1;
                ssize_t _unused_ w = write(rep[1], &running, sizeof(running));
                _exit(0);
        }
        close(rep[1]);
        RunResult rr = {};
        Error err = {};
        CHECK_INTEQ(agent_spawn(NULL, argv, NULL, NULL, 1, &rr, &err), 0);
        CHECK(rr.timed_out);
        close(lfd); /* what osd-create does when ceph-volume returns */
        int running = -2;
        CHECK(read(rep[0], &running, sizeof(running)) == (ssize_t) sizeof(running));
        close(rep[0]);
        CHECK_INTEQ(running, 0);
        waitpid(checker, NULL, 0);
        run_result_done(&rr);
}

/* The agent's connection goes away (controller killed) while an op runs: the command and
 * everything it started are killed, so a re-run does not race them. */
static void test_controller_hangup(void) {
        _cleanup_(freep) char *pf = path_in_tmp("pids-hangup");
        _cleanup_(freep) char *script = strprintf("echo $$ > %s; sleep 100 & echo $! >> %s; sleep 100", pf, pf);
        char *argv[] = { (char *) "sh", (char *) "-c", script, NULL };

        /* process_run: hang-up on a pipe */
        int c[2];
        CHECK(pipe(c) == 0);
        pid_t writer = fork();
        if (writer == 0) {
                close(c[0]);
                usleep(500 * 1000);
                _exit(0); /* the last write end closes */
        }
        close(c[1]);
        const ProcessRun o = { .argv = argv, .timeout_ms = 60000, .watch_cancel_fd = true, .cancel_fd = c[0] };
        ProcessResult pr = {};
        Error err = {};
        double t0 = now_s();
        CHECK_INTEQ(process_run(&o, &pr, &err), 0);
        CHECK(pr.cancelled);
        CHECK(!pr.timed_out);
        CHECK(now_s() - t0 < 3.0);
        pid_t pids[4];
        int n = read_pids(pf, pids, 4);
        CHECK_INTEQ(n, 2);
        CHECK_INTEQ(count_running(pids, n), 0);
        process_result_done(&pr);
        /* hung up already: nothing is started at all */
        _cleanup_(freep) char *marker = path_in_tmp("started");
        _cleanup_(freep) char *touch = strprintf("touch %s", marker);
        char *argv2[] = { (char *) "sh", (char *) "-c", touch, NULL };
        const ProcessRun o2 = { .argv = argv2, .watch_cancel_fd = true, .cancel_fd = c[0] };
        pr.status = 12345;
        CHECK_INTEQ(process_run(&o2, &pr, &err), -ECONNABORTED);
        CHECK_INTEQ(pr.status, 12345);
        CHECK(access(marker, F_OK) < 0);
        error_reset(&err);
        close(c[0]);
        waitpid(writer, NULL, 0);

        /* the agent's loop: requests on a pipe, then the controller's end closes mid-op */
        unlink(pf);
        int in[2], out[2];
        CHECK(pipe(in) == 0 && pipe(out) == 0);
        pid_t agent = fork();
        if (agent == 0) {
                close(in[1]);
                close(out[0]);
                _exit(agent_serve(in[0], out[1]) < 0 ? 1 : 0);
        }
        close(in[0]);
        close(out[1]);
        /* req owns a, which owns av */
        _cleanup_json_ json_object *req = json_object_new_object();
        json_object *a = json_object_new_object(), *av = json_object_new_array();
        json_object_array_add(av, json_object_new_string("sh"));
        json_object_array_add(av, json_object_new_string("-c"));
        json_object_array_add(av, json_object_new_string(script));
        json_object_object_add(a, "argv", av);
        json_object_object_add(a, "timeout", json_object_new_int(60));
        json_object_object_add(req, "id", json_object_new_int(2));
        json_object_object_add(req, "op", json_object_new_string("run"));
        json_object_object_add(req, "args", a);
        _cleanup_(freep) char *lines = strprintf("{\"id\":1,\"op\":\"configure\",\"args\":{\"allow\":[]}}\n%s\n",
                                                 json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN));
        CHECK(write(in[1], lines, strlen(lines)) == (ssize_t) strlen(lines));
        /* wait until the command runs (both pids written), then hang up */
        for (int i = 0; i < 500 && read_pids(pf, pids, 4) < 2; i++)
                usleep(10 * 1000);
        CHECK_INTEQ(read_pids(pf, pids, 4), 2);
        t0 = now_s();
        close(in[1]);
        FILE *f = fdopen(out[0], "r");
        char *line = NULL, *last = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, f) > 0) {
                free(last);
                last = strdup(line);
        }
        free(line);
        fclose(f);
        int st = 0;
        waitpid(agent, &st, 0);
        CHECK(now_s() - t0 < 3.0);
        CHECK(last && strstr(last, "ECONNABORTED") && strstr(last, "went away"));
        free(last);
        n = read_pids(pf, pids, 4);
        CHECK_INTEQ(n, 2);
        CHECK_INTEQ(count_running(pids, n), 0);
}

/* We are killed (SIGTERM, Ctrl-C) while a command runs: its group, which no longer gets
 * the signals sent to ours, is killed with us. */
static void test_killed_with_us(void) {
        _cleanup_(freep) char *pf = path_in_tmp("pids-signal");
        _cleanup_(freep) char *script = strprintf("echo $$ > %s; sleep 100 & echo $! >> %s; sleep 100", pf, pf);
        char *argv[] = { (char *) "sh", (char *) "-c", script, NULL };
        pid_t us = fork();
        if (us == 0) {
                process_kill_on_signal();
                const ProcessRun o = { .argv = argv, .timeout_ms = 60000 };
                ProcessResult pr = {};
                _exit(process_run(&o, &pr, NULL) < 0 ? 1 : 0);
        }
        pid_t pids[4];
        for (int i = 0; i < 500 && read_pids(pf, pids, 4) < 2; i++)
                usleep(10 * 1000);
        CHECK_INTEQ(read_pids(pf, pids, 4), 2);
        CHECK_INTEQ(count_running(pids, 2), 2);
        CHECK(kill(us, SIGTERM) == 0);
        int st = 0;
        waitpid(us, &st, 0);
        CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
        for (int i = 0; i < 100 && count_running(pids, 2) > 0; i++)
                usleep(10 * 1000);
        CHECK_INTEQ(count_running(pids, 2), 0);
}

static void test_basics(void) {
        Error err = {};
        ProcessResult pr = {};

        char *cat[] = { (char *) "cat", NULL };
        ProcessRun o = { .argv = cat, .stdin_data = "hello\n", .stdin_size = 6, .timeout_ms = 10000 };
        CHECK_INTEQ(process_run(&o, &pr, &err), 0);
        CHECK_STREQ(pr.out, "hello\n");
        CHECK(WIFEXITED(pr.status) && WEXITSTATUS(pr.status) == 0);
        process_result_done(&pr);

        /* a big stdin the command never reads: no SIGPIPE for us, the command's answer */
        size_t big = 4 << 20;
        char *data = malloc(big);
        memset(data, 'x', big);
        char *noread[] = { (char *) "sh", (char *) "-c", (char *) "echo $X; echo err >&2; exit 3", NULL };
        char *env[] = { (char *) "X=42", (char *) "PATH=/usr/bin:/bin", NULL };
        o = (ProcessRun) { .argv = noread, .stdin_data = data, .stdin_size = big, .env_extra = env, .timeout_ms = 10000 };
        CHECK_INTEQ(process_run(&o, &pr, &err), 0);
        CHECK_STREQ(pr.out, "42\n");
        CHECK_STREQ(pr.err, "err\n");
        CHECK(WIFEXITED(pr.status) && WEXITSTATUS(pr.status) == 3);
        process_result_done(&pr);
        free(data);

        char *missing[] = { (char *) "/nonexistent/cephprov-test", NULL };
        o = (ProcessRun) { .argv = missing };
        pr.status = 12345;
        CHECK_INTEQ(process_run(&o, &pr, &err), -ENOENT);
        CHECK(strstr(err.message, "/nonexistent/cephprov-test") != NULL);
        CHECK_INTEQ(pr.status, 12345); /* ret untouched on failure */
        error_reset(&err);

        /* a daemon keeping stdout open does not hold the answer back, and is left running */
        _cleanup_(freep) char *pf = path_in_tmp("pids-daemon");
        _cleanup_(freep) char *script = strprintf("echo started; sleep 30 & echo $! > %s; exit 0", pf);
        char *daemon[] = { (char *) "sh", (char *) "-c", script, NULL };
        o = (ProcessRun) { .argv = daemon, .timeout_ms = 20000 };
        double t0 = now_s();
        CHECK_INTEQ(process_run(&o, &pr, &err), 0);
        CHECK(now_s() - t0 < 1.5);
        CHECK_STREQ(pr.out, "started\n");
        CHECK(!pr.timed_out);
        pid_t pids[2];
        CHECK_INTEQ(read_pids(pf, pids, 2), 1);
        CHECK(pid_running(pids[0]));
        process_group_kill(pr.pgid, 1000);
        CHECK(!pid_running(pids[0]));
        process_result_done(&pr);

        /* a command that closed its output still meets its deadline */
        char *quiet[] = { (char *) "sh", (char *) "-c", (char *) "exec >/dev/null 2>&1; sleep 100", NULL };
        o = (ProcessRun) { .argv = quiet, .timeout_ms = 500 };
        t0 = now_s();
        CHECK_INTEQ(process_run(&o, &pr, &err), 0);
        CHECK(pr.timed_out);
        CHECK(now_s() - t0 < 2.0);
        process_result_done(&pr);

        char buf[32];
        CHECK_STREQ(process_status_string(3 << 8, buf), "exit 3");
        CHECK_STREQ(process_status_string(SIGKILL, buf), "signal KILL");
}

int main(void) {
        if (!mkdtemp(tmpdir))
                return 1;
        TEST_RUN(test_basics);
        TEST_RUN(test_timeout_kills_group);
        TEST_RUN(test_term_ignored_gets_kill);
        TEST_RUN(test_lock_released_after_group);
        TEST_RUN(test_controller_hangup);
        TEST_RUN(test_killed_with_us);
        _cleanup_(freep) char *rm = strprintf("rm -rf '%s'", tmpdir);
        if (rm && system(rm) != 0)
                fprintf(stderr, "cannot remove %s\n", tmpdir);
        return test_result();
}
