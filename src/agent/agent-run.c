/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Running commands for the "run" op, make-bcache and osd-create: process_run() (never a
 * shell, its own process group, the whole group killed on a timeout or when the
 * controller's connection goes away). */

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
#include "basic/process.h"

void run_result_done(RunResult *r) {
        free(r->out);
        free(r->err);
        *r = (RunResult) {};
}

int agent_spawn(AgentState *s, char * const *argv, const char *stdin_data, char * const *env_extra,
                unsigned timeout, RunResult *ret, Error *err) {
        const ProcessRun o = {
                .argv = argv,
                .stdin_data = stdin_data,
                .stdin_size = stdin_data ? strlen(stdin_data) : 0,
                .env_extra = env_extra,
                .timeout_ms = (uint64_t) timeout * 1000,
                .watch_cancel_fd = s && s->cancel_fd >= 0,
                .cancel_fd = s ? s->cancel_fd : -1,
        };
        _cleanup_(process_result_done) ProcessResult pr = {};
        int r = process_run(&o, &pr, err);
        if (r == -ECONNABORTED) {
                error_reset(err);
                return error_set(err, ECONNABORTED, "the controller of '%s' went away: not running '%s'", agent_host(s),
                                 argv[0]);
        }
        if (r < 0)
                return r;
        if (pr.cancelled)
                return error_set(err, ECONNABORTED, "the controller of '%s' went away: killed '%s' and all it started",
                                 agent_host(s), argv[0]);
        *ret = (RunResult) {
                .exit_status = WIFEXITED(pr.status) ? WEXITSTATUS(pr.status) : 128 + WTERMSIG(pr.status),
                .out = TAKE_PTR(pr.out),
                .err = TAKE_PTR(pr.err),
                .timed_out = pr.timed_out,
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
        r = agent_spawn(s, argv, stdin_data, env, (unsigned) timeout, &rr, err);
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
