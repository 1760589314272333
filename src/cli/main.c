/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "basic/color.h"
#include "basic/log.h"
#include "basic/process.h"
#include "basic/strv.h"
#include "cli.h"
#include "transport/transport.h"

const Verb verbs[] = {
        { "help", "[COMMAND]", "show help for cephprov or one command", verb_help, 0, NULL },
        { "version", "", "print the version and the build hash (the sha256 the agent handshake compares)", verb_version, 0, NULL },
        { "validate", "LAYOUT|PLAYBOOK [--json] [--hosts H1,H2] [--check-hosts]",
          "check a layout or a playbook file completely, offline; errors name file:line:column",
          verb_validate, VERB_LAYOUT,
          "  --json        print the resolved layout, or the validated playbook, as JSON\n"
          "  --hosts H1,H2 a playbook's plan for these hosts: the steps of each, in waves\n"
          "  --check-hosts also what connecting needs: the SSH identity files exist and can be read\n"
          "a file whose top level has 'playbook:' is a playbook (docs/playbooks.md)\n" },
        { "plan", "LAYOUT [--inventory FILE] [--json] [--hosts H1,H2] [--detail] [--detailed-exitcode] [--osd-ids FILE]",
          "show exactly what apply would change; changes nothing",
          verb_plan, VERB_LAYOUT,
          "  --inventory FILE  plan offline against saved inventories (JSON, one per host);\n"
          "                    without it the hosts are inventoried live\n"
          "  --detail          every step of every host (default: the OSD preview, one line per\n"
          "                    new OSD, and each host's summary)\n"
          "  --hosts H1,H2     only these hosts\n"
          "  --json            machine-readable plan\n"
          "  --detailed-exitcode  exit 0 when nothing to do, 10 when the plan has steps\n"
          "  --osd-ids FILE    the cluster's OSD ids in use (`ceph osd ls [-f json]`): show the ids apply would take\n" },
        { "convert", "LAYOUT [--dry-run [--inventory FILE --osd-tree FILE --osd-metadata FILE]] [--yes] [--reshape] [--drain-first] [--stop-after-host] [--hosts H1,H2] [--json]",
          "rolling conversion of OSDs to the layout's shape (FileStore -> BlueStore), host by host, keeping their ids",
          verb_convert, VERB_LAYOUT,
          "  --dry-run            the plan only: which OSDs would be rebuilt and why (live, or\n"
          "                       offline from the three files below)\n"
          "  --yes                convert without asking (the conversion is destructive)\n"
          "  --inventory FILE     the hosts' saved inventories (`cephprov inventory --save`)\n"
          "  --osd-tree FILE      `ceph osd tree -f json`: a host is its CRUSH host bucket\n"
          "  --osd-metadata FILE  `ceph osd metadata -f json`: objectstore, journal, DB and WAL\n"
          "  --reshape            also rebuild BlueStore OSDs whose DB, WAL or bcache differ\n"
          "  --drain-first        move each host's data off before its OSDs are destroyed (no\n"
          "                       degraded PG, the data moved twice); default: in place\n"
          "  --stop-after-host    convert the next host that has OSDs to rebuild, then stop\n"
          "  --hosts H1,H2        only these hosts\n"
          "  --json               machine-readable plan\n"
          "an old journal partition is replaced only when the OSD's metadata names it\n" },
        { "replace", "LAYOUT HOST DEVICE [--dry-run [--inventory FILE --osd-tree FILE --osd-metadata FILE]] [--yes] [--json]",
          "rebuild with their ids the OSDs that depend on a replaced device (a new blank HDD or SSD) (playbooks/replace-device.yaml)",
          verb_replace, VERB_LAYOUT | VERB_HOSTS,
          "  --dry-run            the plan only: which OSDs are rebuilt, the partitions replaced and\n"
          "                       made (live, or offline from the three files below)\n"
          "  --yes                replace without asking (it destroys the OSDs first, ids kept)\n"
          "  --inventory FILE     the host's saved inventory (`cephprov inventory --save`)\n"
          "  --osd-tree FILE      `ceph osd tree -f json`: the host is its CRUSH host bucket\n"
          "  --osd-metadata FILE  `ceph osd metadata -f json`: where each OSD had its data, DB, WAL\n"
          "  --json               machine-readable plan\n"
          "DEVICE is a data device (its OSD) or a fast device (every OSD with its DB/WAL there)\n"
          "of HOST in the layout, now blank; the OSDs may be down already. Refused: a device not\n"
          "in the layout for HOST, one no OSD depends on, a cluster in HEALTH_ERR. The same\n"
          "command again resumes after a kill (the plan is saved before the first change)\n" },
        { "inventory", "LAYOUT [--json] [--hosts H1,H2] [--save FILE]",
          "connect to the hosts and show their disks, partitions, signatures, bcache and OSDs",
          verb_inventory, VERB_LAYOUT | VERB_HOSTS,
          "  --hosts H1,H2     only these hosts\n"
          "  --json            the inventory JSON (docs/inventory.md)\n"
          "  --save FILE       also write the inventory JSON to FILE (for plan --inventory)\n" },
        { "apply", "LAYOUT [--stage disks|osds|all] [--dry-run [--detail]] [--yes] [--json] [--hosts H1,H2] [--parallel N] [--take-back H1,H2]",
          "converge the hosts to the layout: partitions, bcache, OSDs; a second run changes nothing",
          verb_apply, VERB_LAYOUT | VERB_HOSTS | VERB_DESTRUCTIVE,
          "  --stage STAGE     disks (partitions, wipe, bcache), osds, or all (default)\n"
          "  --hosts H1,H2     only these hosts\n"
          "  --parallel N      OSD creations at once per host (default: the layout's osd.parallel)\n"
          "  --detail          with --dry-run: every step (default: the OSD preview, as plan shows it)\n"
          "  --take-back H1,H2 provision again these hosts that `cephprov destroy` destroyed\n"
          "                    (apply leaves a destroyed host out, and says so, without it)\n"
          "  --json            machine-readable result\n" },
        { "status", "LAYOUT [--json] [--hosts H1,H2]",
          "hosts, OSDs (up/in, class, data/DB devices), SSD blast radius, bcache, health and PG states",
          verb_status, VERB_LAYOUT | VERB_HOSTS,
          "  --hosts H1,H2     only these hosts\n"
          "  --json            machine-readable status\n" },
        { "drain", "LAYOUT HOST [--cancel] [--dry-run] [--yes] [--json]",
          "move all data off a host under the layout's throttle, then stop its OSDs (playbooks/drain-node.yaml)",
          verb_drain, VERB_LAYOUT | VERB_HOSTS | VERB_DESTRUCTIVE,
          "  --cancel          stop draining: the host's OSDs in and started again, what the drain\n"
          "                    paused or throttled restored (playbooks/drain-cancel.yaml)\n"
          "  --dry-run         the plan and the drain check's projection; changes nothing\n"
          "  --json            machine-readable plan and result\n"
          "refused before anything changes when an OSD that stays would pass its backfillfull\n"
          "ratio, or a pool would lose redundancy; the same command again resumes after a kill;\n"
          "a drained host stays drained (apply leaves its OSDs down and out) until --cancel\n" },
        { "destroy", "LAYOUT HOST [--dry-run] [--yes] [--json]",
          "drain a host if needed, purge its OSDs, wipe what cephprov owns there, remove it from CRUSH (playbooks/destroy-node.yaml)",
          verb_destroy, VERB_LAYOUT | VERB_HOSTS | VERB_DESTRUCTIVE,
          "  --dry-run         the plan: the OSDs, the disks wiped, the partitions deleted and kept\n"
          "  --json            machine-readable plan and result\n"
          "only what cephprov made on the host is wiped (its OSDs' data devices, its named\n"
          "partitions); other partitions and disks are left as they are; the same command again\n"
          "resumes after a kill; apply then leaves the host out until it is taken back (apply --help)\n" },
        { "pause", "LAYOUT [--json]",
          "the emergency brake: no new backfill starts (nobackfill), also while a drain runs",
          verb_pause, VERB_LAYOUT | VERB_HOSTS,
          "  --json            machine-readable result\n"
          "records the pause in the cluster, then sets nobackfill (what was set before comes back);\n"
          "takes no cluster lock; an adaptive throttle keeps its brake on while paused, and a\n"
          "drain's restore leaves the flag set until `cephprov resume`\n" },
        { "resume", "LAYOUT [--json]",
          "end a pause: the adaptive throttle releases its brake once client latency is calm, or nobackfill is unset now",
          verb_resume, VERB_LAYOUT | VERB_HOSTS,
          "  --json            machine-readable result\n" },
        { "run", "PLAYBOOK LAYOUT --hosts H1,H2 [--dry-run] [--yes] [--json]",
          "run a playbook (docs/playbooks.md) on hosts of the layout: its plan per host first",
          verb_run, VERB_HOSTS | VERB_DESTRUCTIVE,
          "  --hosts H1,H2     the hosts, in the order the playbook's strategy takes them\n"
          "  --dry-run         the plan only\n"
          "  --yes             run a destructive playbook without asking\n"
          "  --json            machine-readable plan and result\n" },
        { "lock", "status|break|hold LAYOUT [SECONDS] [--json] [--yes]",
          "the cluster lock: who holds it (status), remove a dead controller's (break), or take it (hold)",
          verb_lock, VERB_HOSTS,
          "  status LAYOUT       who holds the lock of the layout's cluster, and until when\n"
          "  break LAYOUT        remove the lock whoever holds it (asks, or --yes)\n"
          "  hold LAYOUT SECONDS take the lock, hold it that long (renewing its lease), release it\n"
          "  --json              status as JSON\n"
          "  --yes               break without asking\n"
          "environment: CEPHPROV_LOCK_LEASE=SECONDS the lease (default 60, 2 to 3600);\n"
          "             CEPHPROV_LOCK_WAIT=SECONDS how long apply and hold wait for a held lock (default 0)\n" },
        { "agent", "", "serve the agent protocol on stdin/stdout (started by the controller over SSH)",
          verb_agent, 0, NULL },
};
const unsigned n_verbs = ELEMENTSOF(verbs);

const Verb *verb_find(const char *name) {
        for (unsigned i = 0; i < n_verbs; i++)
                if (streq(verbs[i].name, name))
                        return &verbs[i];
        return NULL;
}

void verb_print_help(const Verb *v) {
        printf("usage: cephprov %s %s\n\n%s\n", v->name, v->synopsis, v->summary);
        if (v->help)
                printf("\noptions:\n%s", v->help);
        /* a destructive verb's own lines, when its help has them, say more than these */
        if ((v->flags & VERB_DESTRUCTIVE) && !(v->help && strstr(v->help, "  --dry-run ")))
                printf("  --dry-run     print what would be done, change nothing\n");
        if ((v->flags & VERB_DESTRUCTIVE) && !(v->help && strstr(v->help, "  --yes ")))
                printf("  --yes         do not ask for confirmation\n");
        printf("  -v, --verbose more messages on stderr\n"
               "  -h, --help    this help\n");
}

/* Set once by main() from the command line, before the verb runs: a usage error can come
 * from the option parser or from the verb itself, and both must answer in JSON then. */
static bool usage_json;

void cli_set_usage_json(bool json) {
        usage_json = json;
}

int verb_usage_error(const Verb *v, const char *fmt, ...) {
        char msg[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        fprintf(stderr, "cephprov %s: %s\nusage: cephprov %s %s\n(see 'cephprov %s --help')\n", v->name, msg, v->name,
                v->synopsis, v->name);
        if (usage_json) {
                char full[1200];
                snprintf(full, sizeof full, "cephprov %s: %s (usage: cephprov %s %s)", v->name, msg, v->name, v->synopsis);
                cli_print_json_error(full);
        }
        return EXIT_USAGE;
}

int cli_report(const Error *err) {
        log_error("%s", err->code ? err->message : "unknown error");
        return 1;
}

bool cli_confirm(const char *question) {
        if (!isatty(STDIN_FILENO))
                return false;
        fprintf(stderr, "%s [y/N] ", question);
        fflush(stderr);
        char buf[16];
        if (!fgets(buf, sizeof(buf), stdin))
                return false;
        return buf[0] == 'y' || buf[0] == 'Y';
}

static void print_main_help(FILE *f) {
        fprintf(f, "cephprov %s — provision Ceph storage hosts from one declarative disk layout\n\n"
                "usage: cephprov [--color=auto|always|never] COMMAND [ARGS...]\n\ncommands:\n",
                CEPHPROV_VERSION);
        for (unsigned i = 0; i < n_verbs; i++)
                fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
        fprintf(f, "\noptions for every command:\n"
                "  --color=WHEN  colour the error and warning prefixes and the refused and FAILED\n"
                "                words: auto (default: on a terminal, unless NO_COLOR is set),\n"
                "                always or never\n"
                "  -v, --verbose more messages on stderr\n"
                "  -h, --help    help; -V, --version the version and build hash\n"
                "\nexit status:\n"
                "  %-3d success (plan --detailed-exitcode: nothing to do)\n"
                "  %-3d failure: the error was reported on stderr\n"
                "  %-3d usage error: an unknown command or option, a missing argument\n"
                "  %-3d plan --detailed-exitcode: the plan has steps to do\n"
                "\n'cephprov COMMAND --help' for a command's options; man cephprov(8), cephprov-layout(5), cephprov-playbook(5).\n",
                0, 1, EXIT_USAGE, EXIT_PLAN_CHANGES);
}

/* "unknown command 'X'", with the nearest verb when one is close (two edits, or a third
 * of the word) */
static int unknown_command(const char *name, int argc, char *argv[]) {
        const char *names[ELEMENTSOF(verbs)];
        char msg[512];
        for (unsigned i = 0; i < n_verbs; i++)
                names[i] = verbs[i].name;
        const char *best = cli_nearest_name(name, names, n_verbs);
        if (best)
                snprintf(msg, sizeof msg, "unknown command '%s' (did you mean '%s'? see 'cephprov help')", name, best);
        else
                snprintf(msg, sizeof msg, "unknown command '%s' (see 'cephprov help')", name);
        log_error("%s", msg);
        /* a program that asked for JSON gets the error document, as for any usage error */
        for (int i = 2; i < argc && !streq(argv[i], "--"); i++)
                if (streq(argv[i], "--json")) {
                        cli_print_json_error(msg);
                        break;
                }
        return EXIT_USAGE;
}

int verb_help(int argc, char *argv[]) {
        if (argc < 2) {
                print_main_help(stdout);
                return 0;
        }
        const Verb *v = verb_find(argv[1]);
        if (!v)
                return unknown_command(argv[1], 0, NULL);
        if (argc > 2)
                return verb_usage_error(verb_find("help"), "one command at a time, not '%s' too", argv[2]);
        verb_print_help(v);
        return 0;
}

int verb_version(int argc, char *argv[]) {
        if (argc > 1)
                return verb_usage_error(verb_find("version"), "takes no argument, not '%s'", argv[1]);
        /* the hash the agent handshake compares ("build" in its hello), so an operator can
         * tell which build a host runs without connecting */
        char sha[65];
        Error err = {};
        if (transport_self_sha256(sha, &err) < 0)
                return cli_report(&err);
        printf("cephprov %s\nbuild %s\n", CEPHPROV_VERSION, sha);
        return 0;
}

/* The local transport runs the agent in this process. */
static void *local_agent_new(void) {
        return agent_state_new();
}

static void local_agent_free(void *state) {
        agent_state_free(state);
}

static int local_agent_dispatch(void *state, json_object *request, json_object **ret_response,
                                void (*progress)(json_object *progress, void *userdata), void *userdata) {
        return agent_dispatch(state, request, ret_response, progress, userdata);
}

static const TransportLocalAgent local_agent = {
        .state_new = local_agent_new,
        .state_free = local_agent_free,
        .dispatch = local_agent_dispatch,
};

/* Takes --color=WHEN or --color WHEN out of argv (anywhere before "--": it means the same for
 * every verb, as -v does) and sets the colour mode. Returns the new argc, or -1 after a usage
 * message for a bad value. */
static int take_color_option(int argc, char *argv[]) {
        int out = 1;
        bool rest = false;
        for (int i = 1; i < argc; i++) {
                const char *value = NULL;
                if (!rest && streq(argv[i], "--"))
                        rest = true;
                else if (!rest && startswith(argv[i], "--color="))
                        value = argv[i] + strlen("--color=");
                else if (!rest && streq(argv[i], "--color")) {
                        if (i + 1 >= argc) {
                                fprintf(stderr, "cephprov: option '--color' needs an argument (auto, always or never)\n");
                                return -1;
                        }
                        value = argv[++i];
                }
                if (!value) {
                        argv[out++] = argv[i];
                        continue;
                }
                ColorMode m;
                if (color_mode_from_string(value, &m) < 0) {
                        fprintf(stderr, "cephprov: unknown --color '%s' (expected auto, always or never)\n", value);
                        return -1;
                }
                color_set_mode(m);
        }
        argv[out] = NULL;
        return out;
}

int main(int argc, char *argv[]) {
        transport_set_local_agent(&local_agent);
        /* commands run in their own process groups: take them along when we are killed */
        process_kill_on_signal();

        argc = take_color_option(argc, argv);
        if (argc < 0)
                return EXIT_USAGE;

        if (argc < 2) {
                /* not a request for help: usage on stderr, so a script's stdout stays empty */
                print_main_help(stderr);
                return EXIT_USAGE;
        }

        /* -v before the command means what it means after it */
        while (argc > 1 && (streq(argv[1], "-v") || streq(argv[1], "--verbose"))) {
                log_set_level(log_get_level() == LOG_LEVEL_INFO ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO);
                memmove(argv + 1, argv + 2, (size_t) (argc - 1) * sizeof(char *));
                argc--;
        }
        if (argc < 2) {
                print_main_help(stderr);
                return EXIT_USAGE;
        }

        const char *cmd = argv[1];
        if (streq(cmd, "--version") || streq(cmd, "-V"))
                return verb_version(0, NULL);
        if (streq(cmd, "--help") || streq(cmd, "-h"))
                return verb_help(1, argv);

        const Verb *v = verb_find(cmd);
        if (!v)
                return unknown_command(cmd, argc, argv);

        /* "cephprov VERB --help" anywhere in the arguments */
        for (int i = 2; i < argc; i++) {
                if (streq(argv[i], "--"))
                        break;
                if (streq(argv[i], "--help") || streq(argv[i], "-h")) {
                        verb_print_help(v);
                        return 0;
                }
                if (streq(argv[i], "-v") || streq(argv[i], "--verbose"))
                        log_set_level(log_get_level() == LOG_LEVEL_INFO ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO);
                /* a program that asked for JSON gets JSON also for a usage error; only where
                 * the verb takes --json (elsewhere --json is itself the mistake) */
                if (streq(argv[i], "--json") && strstr(v->synopsis, "--json"))
                        cli_set_usage_json(true);
        }

        return v->run(argc - 1, argv + 1);
}
