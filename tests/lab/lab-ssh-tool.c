/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A small driver of src/transport for the lab tests and the fan-out benchmark, for what
 * the cephprov CLI does not do yet.
 *
 *   lab-ssh-tool [OPTIONS] exec NAME=ADDR... -- ARGV...
 *   lab-ssh-tool [OPTIONS] push-agent NAME=ADDR...
 *   lab-ssh-tool [OPTIONS] agent-call NAME=ADDR... -- OP [ARGS-JSON]
 *   lab-ssh-tool fake-agent
 *
 * OPTIONS: --identity F --known-hosts F --accept-new --user U --port P
 *          --connect-timeout S --timeout S --agent-path P --concurrency N --stdin STR
 *          --json --local (hosts use the local transport)
 *
 * fake-agent is a FAKE of `cephprov agent` (src/agent is another branch): it speaks the
 * protocol's framing (hello, ids, progress, ok/error, exit) with ops "echo", "progress"
 * and "exit", so that the transport's agent channel and agent delivery are tested over
 * real sshd. Its hello announces protocol 1, or the number in /root/fake-agent-protocol
 * (per lab host) to test the refusal.
 *
 * Exit status: 0 when every host succeeded (exec: with exit status 0), 1 otherwise. */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/strv.h"
#include "transport/fanout.h"
#include "transport/transport.h"

typedef enum Verb { VERB_EXEC, VERB_PUSH_AGENT, VERB_AGENT_CALL } Verb;

typedef struct Job {
        Verb verb;
        char **argv;        /* exec: the command; agent-call: op [args] */
        const char *stdin_data;
        unsigned timeout;
        bool push;
} Job;

static int run_exec(const Host *h, Job *job, json_object *o, Error *err) {
        _cleanup_(transport_closep) Transport *t = NULL;
        int r = transport_open(h, &t, err);
        if (r < 0)
                return r;
        TransportExecResult res = {};
        r = transport_exec(t, job->argv, job->stdin_data, job->stdin_data ? strlen(job->stdin_data) : 0,
                           job->timeout, &res, err);
        if (r < 0)
                return r;
        json_add_int(o, "exit", res.exit_status);
        json_add_string(o, "signal", res.exit_signal);
        json_add(o, "stdout", json_object_new_string_len(res.out, (int) res.out_size));
        json_add(o, "stderr", json_object_new_string_len(res.err, (int) res.err_size));
        transport_exec_result_done(&res);
        return 0;
}

static int run_push(const Host *h, Job *job, json_object *o, Error *err) {
        _cleanup_(transport_closep) Transport *t = NULL;
        int r = transport_open(h, &t, err);
        if (r < 0)
                return r;
        bool uploaded = false;
        r = transport_ensure_agent(t, NULL, &uploaded, err);
        if (r < 0)
                return r;
        json_add_bool(o, "uploaded", uploaded);
        return 0;
}

static void on_progress(json_object *p, void *userdata) {
        json_object *list = userdata;
        json_object_array_add(list, json_object_get(p));
}

static int run_agent_call(const Host *h, Job *job, json_object *o, Error *err) {
        _cleanup_(transport_closep) Transport *t = NULL;
        int r = transport_open(h, &t, err);
        if (r < 0)
                return r;
        if (job->push) {
                bool uploaded = false;
                r = transport_ensure_agent(t, NULL, &uploaded, err);
                if (r < 0)
                        return r;
                json_add_bool(o, "uploaded", uploaded);
        }
        _cleanup_(agent_channel_closep) AgentChannel *c = NULL;
        r = transport_agent_start(t, &c, err);
        if (r < 0)
                return r;
        json_add(o, "hello", json_object_get(agent_channel_hello(c)));
        _cleanup_json_ json_object *args = NULL;
        if (job->argv[1]) {
                args = json_tokener_parse(job->argv[1]);
                if (!args)
                        return error_set(err, EINVAL, "bad JSON arguments '%s'", job->argv[1]);
        }
        json_object *progress = json_object_new_array();
        json_add(o, "progress", progress);
        _cleanup_json_ json_object *result = NULL;
        r = agent_channel_call(c, job->argv[0], args, job->timeout, on_progress, progress, &result, err);
        if (r < 0)
                return r;
        json_add(o, "result", TAKE_PTR(result));
        return 0;
}

static int host_fn(const Host *h, void *userdata, json_object **ret_result, Error *err) {
        Job *job = userdata;
        json_object *o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        *ret_result = o;
        switch (job->verb) {
        case VERB_EXEC:
                return run_exec(h, job, o, err);
        case VERB_PUSH_AGENT:
                return run_push(h, job, o, err);
        case VERB_AGENT_CALL:
                return run_agent_call(h, job, o, err);
        }
        return -EINVAL;
}

/* ---- the fake agent ---- */

static void fake_send(json_object *o) {
        printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        fflush(stdout);
}

static int fake_agent(void) {
        int protocol = 1;
        FILE *f = fopen("/root/fake-agent-protocol", "re");
        if (f) {
                if (fscanf(f, "%d", &protocol) != 1)
                        protocol = 1;
                fclose(f);
        }
        struct utsname u;
        uname(&u);
        char sha[65] = "";
        (void) transport_sha256_file("/proc/self/exe", sha, NULL);
        _cleanup_json_ json_object *hello = json_object_new_object();
        json_object *h = json_object_new_object();
        json_add_string(h, "agent", "cephprov-fake");
        json_add_string(h, "version", CEPHPROV_VERSION);
        json_add_int(h, "protocol", protocol);
        json_add_string(h, "host", u.nodename);
        json_add_string(h, "build", sha);
        json_add(hello, "hello", h);
        fake_send(hello);

        char *line = NULL;
        size_t alloc = 0;
        while (getline(&line, &alloc, stdin) > 0) {
                _cleanup_json_ json_object *req = json_tokener_parse(line);
                _cleanup_json_ json_object *resp = json_object_new_object();
                uint64_t id = 0;
                const char *op = "";
                json_object *args = NULL;
                if (!req || json_get_u64(req, "id", true, &id, "request", NULL) < 0 ||
                    json_get_string(req, "op", true, &op, "request", NULL) < 0) {
                        fprintf(stderr, "fake-agent: bad request: %s", line);
                        continue;
                }
                (void) json_get_object(req, "args", false, &args, "request", NULL);
                json_add_u64(resp, "id", id);
                if (streq(op, "echo")) {
                        json_add_bool(resp, "ok", true);
                        json_add(resp, "result", args ? json_object_get(args) : json_object_new_object());
                } else if (streq(op, "progress")) {
                        for (int i = 1; i <= 3; i++) {
                                _cleanup_json_ json_object *p = json_object_new_object();
                                json_object *pp = json_object_new_object();
                                json_add_u64(p, "id", id);
                                json_add_int(pp, "done", i);
                                json_add_int(pp, "total", 3);
                                json_add_string(pp, "message", "step");
                                json_add(p, "progress", pp);
                                fake_send(p);
                        }
                        json_add_bool(resp, "ok", true);
                        json_add(resp, "result", json_object_new_object());
                } else if (streq(op, "hang")) {
                        sleep(20); /* for the read timeout test */
                        continue;
                } else if (streq(op, "exit")) {
                        json_add_bool(resp, "ok", true);
                        json_add(resp, "result", json_object_new_object());
                        fake_send(resp);
                        break;
                } else {
                        json_object *e = json_object_new_object();
                        json_add_string(e, "errno", "EOPNOTSUPP");
                        json_add_int(e, "code", EOPNOTSUPP);
                        json_add(e, "message", json_object_new_string("unknown op"));
                        json_add_bool(resp, "ok", false);
                        json_add(resp, "error", e);
                }
                fake_send(resp);
        }
        free(line);
        return 0;
}

/* ---- main ---- */

static int parse_host(const char *spec, Host *h, const SshOptions *ssh, bool local) {
        const char *eq = strchr(spec, '=');
        *h = (Host) {};
        h->name = eq ? strndup(spec, (size_t) (eq - spec)) : strdup(spec);
        h->address = strdup(eq ? eq + 1 : spec);
        if (!h->name || !h->address)
                return -ENOMEM;
        h->transport = local ? TRANSPORT_LOCAL : TRANSPORT_SSH;
        h->ssh = *ssh;
        return 0;
}

int main(int argc, char **argv) {
        SshOptions ssh = { .user = (char *) "root", .port = 22, .connect_timeout_sec = 10, .command_timeout_sec = 600 };
        Job job = {};
        bool json = false, local = false;
        unsigned concurrency = 32;

        enum { ARG_IDENTITY = 256, ARG_KNOWN_HOSTS, ARG_ACCEPT_NEW, ARG_USER, ARG_PORT, ARG_CONNECT_TIMEOUT,
               ARG_TIMEOUT, ARG_AGENT_PATH, ARG_CONCURRENCY, ARG_STDIN, ARG_JSON, ARG_LOCAL, ARG_PUSH };
        static const struct option options[] = {
                { "identity", required_argument, NULL, ARG_IDENTITY },
                { "known-hosts", required_argument, NULL, ARG_KNOWN_HOSTS },
                { "accept-new", no_argument, NULL, ARG_ACCEPT_NEW },
                { "user", required_argument, NULL, ARG_USER },
                { "port", required_argument, NULL, ARG_PORT },
                { "connect-timeout", required_argument, NULL, ARG_CONNECT_TIMEOUT },
                { "timeout", required_argument, NULL, ARG_TIMEOUT },
                { "agent-path", required_argument, NULL, ARG_AGENT_PATH },
                { "concurrency", required_argument, NULL, ARG_CONCURRENCY },
                { "stdin", required_argument, NULL, ARG_STDIN },
                { "json", no_argument, NULL, ARG_JSON },
                { "local", no_argument, NULL, ARG_LOCAL },
                { "push", no_argument, NULL, ARG_PUSH },
                {},
        };
        int c;
        while ((c = getopt_long(argc, argv, "+", options, NULL)) >= 0)
                switch (c) {
                case ARG_IDENTITY: ssh.identity = optarg; break;
                case ARG_KNOWN_HOSTS: ssh.known_hosts = optarg; break;
                case ARG_ACCEPT_NEW: ssh.host_key_policy = HOST_KEY_ACCEPT_NEW; break;
                case ARG_USER: ssh.user = optarg; break;
                case ARG_PORT: ssh.port = (unsigned) atoi(optarg); break;
                case ARG_CONNECT_TIMEOUT: ssh.connect_timeout_sec = (unsigned) atoi(optarg); break;
                case ARG_TIMEOUT: job.timeout = (unsigned) atoi(optarg); break;
                case ARG_AGENT_PATH: ssh.agent_path = optarg; break;
                case ARG_CONCURRENCY: concurrency = (unsigned) atoi(optarg); break;
                case ARG_STDIN: job.stdin_data = optarg; break;
                case ARG_JSON: json = true; break;
                case ARG_LOCAL: local = true; break;
                case ARG_PUSH: job.push = true; break;
                default: return 2;
                }
        if (getenv("LAB_SSH_TOOL_DEBUG"))
                log_set_level(LOG_LEVEL_DEBUG);
        if (optind >= argc) {
                fprintf(stderr, "usage: lab-ssh-tool [OPTIONS] exec|push-agent|agent-call|fake-agent ...\n");
                return 2;
        }
        const char *verb = argv[optind++];
        if (streq(verb, "fake-agent") || streq(verb, "agent")) /* `<agent_path> agent` runs the fake */
                return fake_agent();
        if (streq(verb, "exec"))
                job.verb = VERB_EXEC;
        else if (streq(verb, "push-agent"))
                job.verb = VERB_PUSH_AGENT;
        else if (streq(verb, "agent-call"))
                job.verb = VERB_AGENT_CALL;
        else {
                fprintf(stderr, "lab-ssh-tool: unknown verb '%s'\n", verb);
                return 2;
        }

        int first_host = optind, end_hosts = argc;
        for (int i = optind; i < argc; i++)
                if (streq(argv[i], "--")) {
                        end_hosts = i;
                        job.argv = argv + i + 1;
                        break;
                }
        if (job.verb != VERB_PUSH_AGENT && (!job.argv || !job.argv[0])) {
                fprintf(stderr, "lab-ssh-tool: %s needs '-- ARGV...'\n", verb);
                return 2;
        }
        size_t n = (size_t) (end_hosts - first_host);
        Host *hosts = calloc(n ? n : 1, sizeof(Host));
        const Host **hp = calloc(n ? n : 1, sizeof(Host *));
        if (!hosts || !hp)
                return 1;
        for (size_t i = 0; i < n; i++) {
                if (parse_host(argv[first_host + (int) i], &hosts[i], &ssh, local) < 0)
                        return 1;
                hp[i] = &hosts[i];
        }

        FanoutOptions fo = { .concurrency = concurrency, .progress = !json };
        FanoutHostResult *results = NULL;
        Error err = {};
        if (fanout_run(hp, n, &fo, host_fn, &job, &results, &err) < 0) {
                fprintf(stderr, "lab-ssh-tool: %s\n", err.message);
                return 1;
        }

        int ret = 0;
        _cleanup_json_ json_object *all = json_object_new_array();
        for (size_t i = 0; i < n; i++) {
                FanoutHostResult *res = &results[i];
                json_object *o = res->result ? json_object_get(res->result) : json_object_new_object();
                json_add_string(o, "host", res->host->name);
                json_add_u64(o, "ms", res->duration_ms);
                int64_t exit_status = 0;
                if (res->r < 0) {
                        json_add_string(o, "error", res->error.message);
                        json_add_string(o, "errno", errno_name(-res->r));
                        ret = 1;
                } else if (job.verb == VERB_EXEC && json_get_int(o, "exit", true, &exit_status, "result", NULL) >= 0 &&
                           exit_status != 0)
                        ret = 1;
                json_object_array_add(all, o);

                if (json)
                        continue;
                /* Text: one block per host, in host order, never interleaved. */
                if (res->r < 0) {
                        printf("== %s: FAILED (%s): %s\n", res->host->name, errno_name(-res->r), res->error.message);
                        continue;
                }
                json_object *v = NULL;
                if (job.verb == VERB_EXEC) {
                        printf("== %s: exit %" PRId64 " (%" PRIu64 " ms)\n", res->host->name, exit_status, res->duration_ms);
                        if (json_object_object_get_ex(o, "stdout", &v))
                                fputs(json_object_get_string(v), stdout);
                        if (json_object_object_get_ex(o, "stderr", &v) && json_object_get_string_len(v) > 0)
                                fprintf(stdout, "-- stderr:\n%s", json_object_get_string(v));
                } else if (job.verb == VERB_PUSH_AGENT) {
                        bool up = json_object_object_get_ex(o, "uploaded", &v) && json_object_get_boolean(v);
                        printf("== %s: %s\n", res->host->name, up ? "uploaded" : "unchanged");
                } else
                        printf("== %s: %s\n", res->host->name,
                               json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        }
        if (json)
                printf("%s\n", json_object_to_json_string_ext(all, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));

        if (getenv("LAB_SSH_TOOL_RUSAGE")) {
                struct rusage ru;
                getrusage(RUSAGE_SELF, &ru);
                fprintf(stderr, "maxrss_kb=%ld user_ms=%ld sys_ms=%ld\n", ru.ru_maxrss,
                        ru.ru_utime.tv_sec * 1000 + ru.ru_utime.tv_usec / 1000,
                        ru.ru_stime.tv_sec * 1000 + ru.ru_stime.tv_usec / 1000);
        }

        fanout_results_free(results, n);
        for (size_t i = 0; i < n; i++) {
                free(hosts[i].name);
                free(hosts[i].address);
        }
        free(hosts);
        free(hp);
        return ret;
}
