/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The verb table and what the verbs share. Each verb parses its own options and returns an
 * exit status: 0 success, 1 failure (reported once, here at the top), 2 usage error, 10
 * plan --detailed-exitcode with steps to do (the list `cephprov --help` prints). */

#include <stdbool.h>

#include <json-c/json.h>

#include "basic/error.h"

typedef enum VerbFlags {
        VERB_LAYOUT      = 1 << 0, /* first argument is a layout file */
        VERB_HOSTS       = 1 << 1, /* talks to hosts */
        VERB_DESTRUCTIVE = 1 << 2, /* changes disks or the cluster: plan first, --yes or a prompt */
} VerbFlags;

typedef struct Verb {
        const char *name;
        const char *synopsis;
        const char *summary;
        int (*run)(int argc, char *argv[]);
        unsigned flags;
        const char *help; /* options, one per line */
} Verb;

enum {
        EXIT_USAGE = 2,
        EXIT_PLAN_CHANGES = 10, /* plan --detailed-exitcode: the plan has steps */
};

extern const Verb verbs[];
extern const unsigned n_verbs;

const Verb *verb_find(const char *name);
/* Prints "cephprov NAME: usage ..." to stderr for a bad invocation (and, when --json was
 * given to a verb that takes it, the JSON error object on stdout); returns EXIT_USAGE. */
int verb_usage_error(const Verb *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void verb_print_help(const Verb *v);
/* The whole of a file an option names ("-": stdin) as a string, at most CLI_READ_MAX bytes
 * (EFBIG past it); an error names the path. */
#define CLI_READ_MAX (64 << 20)
int cli_read_text(const char *path, char **ret, Error *err);

/* Prints a command's JSON document: {"format": N, "kind": KIND, ...the keys of j...} ("format"
 * j's own when it has one, else 1): every --json document says what it is and which version
 * of its form (docs/json.md). Returns 0, or 1 after an error message. */
int cli_print_json_document(const char *kind, json_object *j);

/* The name among `names` nearest to s (edit distance), when within two edits or a third of
 * s's length (the first of several as near); NULL otherwise: the CLI's "did you mean". */
const char *cli_nearest_name(const char *s, const char * const *names, size_t n);

/* Reports err once ("cephprov: error: <message>") and returns 1. */
int cli_report(const Error *err);
/* The same, and for --json commands also on stdout as {"format": 1, "error": {"message",
 * "file", "line", "column"}} (file/line/column only when the message starts with
 * FILE:LINE:COL). Returns 1. */
int cli_report_json(const Error *err);
/* Only the JSON error object of cli_report_json() on stdout, for `message`. */
void cli_print_json_error(const char *message);
/* main() saw --json among the arguments of a verb that takes it: verb_usage_error() then
 * also answers with the JSON error object on stdout. */
void cli_set_usage_json(bool json);

/* The locale's character set is UTF-8 (LC_CTYPE from the environment): the plan may use
 * arrows; else plain ASCII. */
bool cli_locale_is_utf8(void);

/* Every name of --hosts is a host of the layout, else err names the first that is not. */
struct Layout;
int cli_check_hosts(const struct Layout *l, char **hosts, Error *err);

/* Ask "question [y/N]" on the terminal; false when stdin is not a terminal. */
bool cli_confirm(const char *question);

int verb_help(int argc, char *argv[]);
int verb_version(int argc, char *argv[]);
int verb_validate(int argc, char *argv[]);
int verb_plan(int argc, char *argv[]);
int verb_inventory(int argc, char *argv[]);
int verb_apply(int argc, char *argv[]);
int verb_status(int argc, char *argv[]);
int verb_lock(int argc, char *argv[]);
int verb_pause(int argc, char *argv[]);
int verb_resume(int argc, char *argv[]);
int verb_run(int argc, char *argv[]);
int verb_drain(int argc, char *argv[]);
int verb_destroy(int argc, char *argv[]);
int verb_agent(int argc, char *argv[]);
int verb_convert(int argc, char *argv[]);
/* Prints the job's plan, then runs it (controller/job.h) and prints its report: the end of
 * every verb that runs a playbook (verb-run.c). */
struct CliOptions;
struct Job;
int cli_job(struct Job *job, const struct CliOptions *o);
int verb_replace(int argc, char *argv[]);
/* convert's and replace's --inventory, --osd-tree and --osd-metadata: all three or none, and
 * only with --dry-run. Sets *offline; a usage error (its exit code) or 0 (verb-convert.c). */
int cli_offline_plan_options(const Verb *v, const struct CliOptions *o, bool *offline);
/* The convert plan from those three files (convert's and replace's offline --dry-run), and
 * a convert plan on stdout as text or JSON (an error when it cannot be written). */
struct ConvertOptions;
struct ConvertPlan;
int cli_offline_plan(const struct Layout *l, const struct CliOptions *o, const struct ConvertOptions *co,
                     struct ConvertPlan **ret, Error *err);
int cli_print_convert_plan(const struct ConvertPlan *p, bool json, Error *err);
