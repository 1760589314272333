/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Playbooks: multi-step procedures (drain a node, destroy it, convert it) as YAML files,
 * read with src/yaml into these structs and validated completely before anything runs, every
 * error with file:line:col (docs/playbooks.md is the language). Steps are named from the
 * step registry (src/registry), their arguments validated there. Pure: no I/O but reading
 * the file.
 *
 * The per-host plan (which steps each host runs, in which wave) is printed from a list of
 * hosts and what is known of them (PlaybookHostFacts): the controller fills in their OSDs and
 * failure domains from the cluster; without them the plan shows the references. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "basic/error.h"
#include "basic/macro.h"
#include "registry/step-registry.h"
#include "yaml/yaml-tree.h"

typedef enum PlaybookSection {
        PLAYBOOK_BEFORE,   /* cluster steps, once, before the first wave */
        PLAYBOOK_PER_HOST, /* every host of a wave runs these, in order */
        PLAYBOOK_GATE,     /* wait steps, after every wave but the last */
        PLAYBOOK_AFTER,    /* restore steps, once at the end, also after a failure or cancel */
        _PLAYBOOK_SECTION_MAX,
} PlaybookSection;

typedef enum PlaybookStrategy {
        PLAYBOOK_HOSTS_SERIAL,         /* one host per wave (default) */
        PLAYBOOK_HOSTS_BATCH,          /* `batch` hosts per wave */
        PLAYBOOK_HOSTS_FAILURE_DOMAIN, /* the hosts under one CRUSH bucket of type `bucket` per wave */
        _PLAYBOOK_HOSTS_MAX,
} PlaybookStrategy;

typedef enum PlaybookOnFailure {
        PLAYBOOK_ON_FAILURE_STOP,                 /* no new step starts anywhere; `after` runs */
        PLAYBOOK_ON_FAILURE_CONTINUE_OTHER_HOSTS, /* the failed host stops, the others go on */
        _PLAYBOOK_ON_FAILURE_MAX,
} PlaybookOnFailure;

typedef struct PlaybookStep {
        const StepEntry *entry;
        json_object *args;         /* step_args_to_json(): validated, defaults filled in,
                                    * references ("${host.osds}") not yet resolved */
        YamlMark mark;             /* where `- step:` is written */
} PlaybookStep;

typedef struct Playbook {
        char *path;                /* as given to playbook_load(); NULL from playbook_load_string() */
        char *name;                /* `playbook:` */
        char *description;         /* NULL: none */
        bool destructive;          /* the engine shows the plan and asks, or needs --yes */
        PlaybookStrategy strategy;
        unsigned batch;            /* PLAYBOOK_HOSTS_BATCH: hosts per wave (>= 2); else 1 */
        char *bucket;              /* PLAYBOOK_HOSTS_FAILURE_DOMAIN: CRUSH bucket type; else NULL */
        bool canary;               /* the first wave is one host */
        PlaybookOnFailure on_failure;
        PlaybookStep *steps[_PLAYBOOK_SECTION_MAX];
        size_t n_steps[_PLAYBOOK_SECTION_MAX];
} Playbook;

/* Load and validate a playbook. On failure *ret is untouched and err says
 * "FILE:LINE:COL: what is wrong (what was expected)", the first error in file order. */
int playbook_load(const char *path, Playbook **ret, Error *err);
/* `name` is used in messages in place of a file name; `data` need not be NUL-terminated.
 * The error is the first in file order, as for playbook_load(). */
int playbook_load_string(const char *name, const char *data, size_t len, Playbook **ret, Error *err);
/* Like playbook_load_string(), but goes on after an error to find every error of the file,
 * as the layout's validate does: *diags (initialized empty by the caller, freed with
 * yaml_diags_done()) gets every error in file order, err the first in file order. A YAML
 * syntax error ends the search (there is no tree to walk after it); *diags is then empty. */
int playbook_load_string_all(const char *name, const char *data, size_t len, Playbook **ret, YamlDiags *diags,
                             Error *err);

Playbook *playbook_free(Playbook *pb);
DEFINE_TRIVIAL_CLEANUP_FUNC(Playbook *, playbook_free);

/* Whether YAML text is a playbook rather than a layout: its top-level mapping has the key
 * `playbook` (text that is not valid YAML: a line starting with "playbook:"). */
bool playbook_text_is_playbook(const char *data, size_t len);

/* The validated playbook as JSON (for `validate --json`). */
int playbook_to_json(const Playbook *pb, json_object **ret);

/* What is known of one host when the plan is printed. */
typedef struct PlaybookHostFacts {
        const char *host;
        const char *failure_domain; /* the host's bucket of type pb->bucket; NULL: not known
                                     * (the host is then a failure domain of its own) */
        const unsigned *osds;       /* its OSD ids; NULL: not known yet (shown as references) */
        size_t n_osds;
} PlaybookHostFacts;

/* Hosts in waves: wave i holds indexes into the facts array, hosts[start[i] .. start[i+1]). */
typedef struct PlaybookWaves {
        size_t *hosts;
        size_t *start;              /* n_waves + 1 entries */
        size_t n_waves;
} PlaybookWaves;

PlaybookWaves *playbook_waves_free(PlaybookWaves *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(PlaybookWaves *, playbook_waves_free);

/* The waves of these hosts (in the order given) under the playbook's strategy: serial one
 * per wave; batch N at a time; failure-domain the hosts of one domain per wave, domains in
 * the order their first host comes; with canary the first host alone first. n == 0 gives no
 * wave. Only -ENOMEM. */
int playbook_waves(const Playbook *pb, const PlaybookHostFacts *hosts, size_t n, PlaybookWaves **ret);

/* The plan for people: before, then each wave with each host's steps (arguments with the
 * host's facts filled in where known) and the gate, then after. */
int playbook_print_plan(const Playbook *pb, const PlaybookHostFacts *hosts, size_t n, FILE *f);
/* The same as JSON: {"playbook","destructive","on_failure","before":[STEP],"waves":[{"hosts":[H],
 * "steps":{H:[STEP]},"gate":[STEP]}],"after":[STEP]}, STEP = {"step","target","args"}. */
int playbook_plan_to_json(const Playbook *pb, const PlaybookHostFacts *hosts, size_t n, json_object **ret);

const char *playbook_section_to_string(PlaybookSection s);
const char *playbook_strategy_to_string(PlaybookStrategy s);
const char *playbook_on_failure_to_string(PlaybookOnFailure f);
