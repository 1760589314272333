/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The step registry: the one place a step is defined. Every built-in step — the host steps
 * the planner emits and playbooks use (run by a host's agent), and the cluster steps (run
 * through the cluster client: librados in the admin host's agent) — is one static entry: its name, target, what it may
 * run beside, its arguments with their types and defaults, how its result is checked, and
 * whether it destroys data. Playbooks name steps from here, the planner emits them by name,
 * the executor runs them; src/controller/steps/table.c holds each one's body. Pure: a static table and validation, no I/O.
 *
 * Arguments come from YAML (a playbook's `args:` mapping) and are validated with file:line:col
 * errors, then turned into a JSON object (the executor's and the journal's form):
 *   drain-node.yaml:12:9: step 'wait-clean': unknown argument 'timout' (did you mean 'timeout'?)
 *
 * References. A value that is exactly "${host}" or "${host.osds}" stands for a fact of the
 * host a per-host step runs for (its name; the ids of its OSDs), "${hosts}" for the names of
 * every host of the run; the controller fills them in at run time (step_args_substitute()).
 * Host references are allowed only where a step runs for a host (STEP_SCOPE_HOST), every
 * reference only for an argument of its type. Some defaults are references (out's `osds`
 * defaults to "${host.osds}"): outside a host those arguments must be given. There is no
 * interpolation inside longer text: "node-${host}" is an error. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "yaml/yaml-schema.h"
#include "yaml/yaml-tree.h"

typedef enum StepTarget {
        STEP_TARGET_HOST,    /* an op of the host's agent (docs/agent.md) */
        STEP_TARGET_CLUSTER, /* cluster commands through the admin host's agent (src/ceph builds and parses them) */
        _STEP_TARGET_MAX,
} StepTarget;

/* What a step may run beside. The executor enforces these; a playbook's order within one
 * host is always kept. */
typedef enum StepConcurrency {
        STEP_CONCURRENCY_DEVICE_EXCLUSIVE, /* one step at a time on its device; other devices
                                            * of the host go on beside it */
        STEP_CONCURRENCY_HOST_SERIAL,      /* one such step at a time per host (partition tables,
                                            * bcache registration), hosts in parallel */
        STEP_CONCURRENCY_OSD_PARALLEL,     /* up to the layout's osd.parallel at once per host,
                                            * and across hosts */
        STEP_CONCURRENCY_CLUSTER_SERIAL,   /* one cluster-changing step at a time in the whole
                                            * run, in playbook order */
        STEP_CONCURRENCY_WAIT,             /* polls the cluster and changes nothing: runs beside
                                            * anything, holds back only the steps after it */
        _STEP_CONCURRENCY_MAX,
} StepConcurrency;

typedef enum StepArgType {
        STEP_ARG_STRING,      /* non-empty text without control characters */
        STEP_ARG_STRING_LIST, /* a list of such strings, without duplicates */
        STEP_ARG_INT,         /* a plain integer, may be negative */
        STEP_ARG_UINT,        /* a plain non-negative integer */
        STEP_ARG_NUMBER,      /* a plain decimal number such as 1.5 (CRUSH weights) */
        STEP_ARG_SIZE,        /* "4K", "30G", "4096": bytes in JSON */
        STEP_ARG_BOOL,        /* true or false */
        STEP_ARG_DURATION,    /* seconds, or "30s", "10m", "6h" (1 s to 7 days): seconds in JSON */
        STEP_ARG_ENUM,        /* one of the entry's values */
        STEP_ARG_OSD_IDS,     /* a list of OSD ids [3, 7] (0 to 2^31-1, no duplicates) */
        STEP_ARG_FLAG,        /* an OSD map flag: noout, norebalance, nobackfill, norecover,
                               * noup, nodown, noin, noscrub, nodeep-scrub */
        _STEP_ARG_TYPE_MAX,
} StepArgType;

typedef struct StepArgSpec {
        const char *name;           /* snake_case, as in the agent's protocol */
        StepArgType type;
        bool required;
        const char *def;            /* default as YAML text (parsed like a given value), or a
                                     * reference such as "${host.osds}"; NULL: none */
        const char * const *values; /* STEP_ARG_ENUM: NULL-terminated */
        double min, max;            /* numeric types: inclusive range; both 0: the type's own */
        const char *doc;            /* one line */
} StepArgSpec;

/* Where a step is validated: for a host (per_host: references to the host allowed), or for
 * the run as a whole (before, gate, after: no host). */
typedef enum StepScope {
        STEP_SCOPE_CLUSTER,
        STEP_SCOPE_HOST,
} StepScope;

typedef struct StepEntry {
        const char *name;           /* kebab-case */
        StepTarget target;
        const char *agent_op;       /* STEP_TARGET_HOST: the agent op it sends; NULL for cluster steps */
        StepConcurrency concurrency;
        bool destructive;           /* loses data or an identity for good: a playbook with it
                                     * must say `destructive: true` */
        bool restore;               /* undoes what another step recorded (flags, balancer,
                                     * autoscaler, throttle): allowed in a playbook's `after` */
        const StepArgSpec *args;    /* terminated by an entry with name NULL */
        const char *doc;            /* one line: what it does */
        const char *verify;         /* how its result is checked after it ran */
        const char *progress;       /* what it reports while it runs; NULL: nothing */
        /* Checks between arguments after each one was validated; `values` holds every
         * argument with defaults filled in (step_args_to_json()'s form) and the check may
         * add values derived from them (a host-scoped set-flag adds "host": "${host}").
         * NULL: none. */
        int (*check)(const YamlCtx *c, const YamlNode *args, YamlMark at, StepScope scope, json_object *values);
} StepEntry;

/* The entry named `name`, NULL when there is none. */
const StepEntry *step_registry_find(const char *name);
/* Iteration: entries 0 .. step_registry_count()-1, in a fixed order (host steps first). */
size_t step_registry_count(void);
const StepEntry *step_registry_get(size_t i);

/* The argument spec named `name` of e, NULL when e has none such. */
const StepArgSpec *step_entry_find_arg(const StepEntry *e, const char *name);

/* Validate a step's arguments: `args` is the YAML mapping given (NULL: none given), `at`
 * where the step is written (for a missing argument when `args` is NULL), `file` the name
 * in messages. Unknown arguments (with did-you-mean), wrong types, values out of range,
 * missing required arguments and references outside a host are errors:
 *   FILE:LINE:COL: step 'NAME': what is wrong (what was expected) */
int step_args_validate(const StepEntry *e, const YamlNode *args, YamlMark at, const char *file,
                       StepScope scope, Error *err);

/* Validate like step_args_validate() and return the arguments as a JSON object, every
 * argument with a value present (defaults filled in; optional ones without a default are
 * omitted): strings, enums and flags as strings, integers, sizes (bytes) and durations
 * (seconds) as integers, numbers as doubles, booleans, OSD ids as arrays of integers,
 * string lists as arrays. A reference stays the string "${host.osds}". */
int step_args_to_json(const StepEntry *e, const YamlNode *args, YamlMark at, const char *file, StepScope scope,
                      json_object **ret, Error *err);
/* The same, going on after an error: every error of the step's arguments is appended to
 * *diags (messages without the "FILE:LINE:COL: " prefix), err gets the first found. Returns
 * -EINVAL (and no JSON) when there was any. */
int step_args_to_json_all(const StepEntry *e, const YamlNode *args, YamlMark at, const char *file, StepScope scope,
                          YamlDiags *diags, json_object **ret, Error *err);

/* The facts references stand for: of the run, and of the host a step runs for. */
typedef struct StepFacts {
        const char *host;           /* ${host}; NULL outside a host */
        const unsigned *osds;       /* ${host.osds} */
        size_t n_osds;
        char * const *hosts;        /* ${hosts}: NULL-terminated */
} StepFacts;

/* A copy of `args` (step_args_to_json()'s form) with every reference replaced by the host's
 * fact. Fails with -EINVAL naming the step when `facts` is NULL and a reference is there. */
int step_args_substitute(const StepEntry *e, json_object *args, const StepFacts *facts, json_object **ret,
                         Error *err);

/* True when `s` is one of the reference forms ("${host}", "${host.osds}", "${hosts}"). */
bool step_ref_is_valid(const char *s);

const char *step_target_to_string(StepTarget t);
const char *step_concurrency_to_string(StepConcurrency c);
const char *step_arg_type_to_string(StepArgType t);
/* The OSD map flags STEP_ARG_FLAG accepts (NULL-terminated), and which of them `osd
 * set-group` takes, so may be host-scoped (noup, nodown, noin, noout). */
extern const char * const step_osd_flags[];
bool step_osd_flag_groupable(const char *flag);

/* The whole registry as JSON (for docs and `--json` listings): one object per entry. */
int step_registry_to_json(json_object **ret);
