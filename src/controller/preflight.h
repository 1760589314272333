/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Preflight: right after the plan is computed and before any step runs, every host with
 * steps to do is asked (the agent's "preflight" op, docs/agent.md) whether it has what
 * those steps need (the bcache module, make-bcache, ceph-volume, ...: AgentNeed) and whether
 * its devices are still as the plan saw them (the same disk, size and table; the free
 * regions the partitions go in; no new signature, nothing in use). A host that fails any
 * check is refused as a whole, before its first step: nothing is done on it. The other
 * hosts go on. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "basic/error.h"
#include "exec/exec.h"
#include "inventory/inventory.h"
#include "layout/layout.h"
#include "plan/plan.h"
#include "yaml/yaml-tree.h"

typedef struct PreflightCheck {
        char *check;             /* "bcache", "ceph-volume", "device", "free-space", "agent", ... */
        char *subject;           /* the device or partition, NULL for a host-wide need */
        bool ok;
        char *text;              /* ok: what was found; not ok: why not */
} PreflightCheck;

typedef struct PreflightHost {
        char *host;
        PreflightCheck *checks;
        size_t n_checks;
        bool refused;
} PreflightHost;

typedef struct PreflightReport {
        PreflightHost *hosts;    /* the hosts that had steps to check, in plan order */
        size_t n_hosts;
        size_t n_refused;
} PreflightReport;

PreflightReport *preflight_report_free(PreflightReport *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(PreflightReport *, preflight_report_free);

typedef struct PreflightOptions {
        unsigned stages;         /* StageMask: only the steps that will run are checked */
        unsigned parallel_hosts; /* hosts asked at once */
        bool load_modules;       /* let the agent modprobe bcache (apply; not plan, not --dry-run) */
} PreflightOptions;

/* The "preflight" args for one host: the needs of its selected steps, the steps as agent
 * requests (in plan order, for the dry-run checks), and what the inventory `inv` (may be
 * NULL) said of each device they name. *ret is NULL when the host has no selected step. */
int preflight_args(const HostPlan *hp, const Inventory *inv, const PreflightOptions *o, json_object **ret,
                   Error *err);

/* Asks every host of `p` with selected steps, through links[] (matched by name). A host
 * whose agent cannot answer is refused with that error. Returns 0 with the report even
 * when hosts were refused; a negative errno only when nothing could be asked. */
int preflight_run(const Plan *p, const InventorySet *inv, const HostLink *links, size_t n_links,
                  const PreflightOptions *o, PreflightReport **ret, Error *err);

bool preflight_refused(const PreflightReport *r, const char *host);
/* One line per refused host: its failed checks joined ("bcache: ...; ceph-volume: ..."). */
char *preflight_host_reasons(const PreflightHost *h);

/* Removes the refused hosts' plans from `p`; -ENOMEM leaves `p` as it was. */
int preflight_filter_plan(const PreflightReport *r, Plan *p);

/* "host 'node2': refused: bcache: the kernel has no bcache support (...)" for every failed
 * check, then a count; nothing when no host was refused. */
void preflight_report_print(const PreflightReport *r, FILE *f);
/* [{"host", "refused", "checks": [{"check", "subject", "ok", "detail"|"reason"}]}] */
int preflight_report_to_json(const PreflightReport *r, json_object **ret);

/* What connecting to the layout's hosts needs of this machine (`validate --check-hosts`):
 * the identity files the layout names, as diagnostics at their marks in d. `~/` is expanded
 * as the transport does it (with $HOME); other `~` forms are not expanded by the transport,
 * so they are refused either way (also without check_files). A file is checked once, where it
 * is given (hosts inherit the ssh section's). Without check_files nothing is read: a lint in
 * CI or a GitOps pipeline has no SSH key, and loading a layout never looks at the file
 * system. 0 or -ENOMEM. */
int preflight_identity_files(const Layout *l, bool check_files, YamlDiags *d);
