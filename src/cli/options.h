/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One option parser for all verbs: each verb says which options it accepts, so the same
 * option means the same thing everywhere. */

#include <stdbool.h>

#include "cli.h"
#include "layout/layout.h"

typedef enum OptionMask {
        OPT_JSON              = 1 << 0,
        OPT_INVENTORY         = 1 << 1,
        OPT_HOSTS             = 1 << 2,
        OPT_DRY_RUN           = 1 << 3,
        OPT_YES               = 1 << 4,
        OPT_STAGE             = 1 << 5,
        OPT_PARALLEL          = 1 << 6,
        OPT_DETAILED_EXITCODE = 1 << 7,
        OPT_SAVE              = 1 << 8,
        OPT_CANCEL            = 1 << 9,
        OPT_OSD_IDS           = 1 << 10,
        OPT_TAKE_BACK         = 1 << 11,
        OPT_RESHAPE           = 1 << 12,
        OPT_OSD_TREE          = 1 << 13,
        OPT_OSD_METADATA      = 1 << 14,
        OPT_STOP_AFTER_HOST   = 1 << 15,
        OPT_DRAIN_FIRST       = 1 << 16,
        OPT_CHECK_HOSTS       = 1 << 17,
        OPT_DETAIL            = 1 << 18,
} OptionMask;

typedef struct CliOptions {
        bool json;
        bool dry_run;
        bool yes;
        bool detailed_exitcode;
        bool cancel;           /* --cancel */
        bool reshape;          /* --reshape: convert rebuilds BlueStore OSDs of another shape too */
        bool stop_after_host;  /* --stop-after-host: convert the next host with OSDs to rebuild, then stop */
        bool drain_first;      /* --drain-first: convert with the data moved off each host first */
        bool detail;           /* --detail: every step of the plan, not the OSD preview */
        bool check_hosts;      /* --check-hosts: validate also what connecting needs (identity files) */
        const char *inventory; /* --inventory FILE */
        const char *save;      /* --save FILE */
        const char *osd_ids;   /* --osd-ids FILE: the cluster's OSD ids in use (`ceph osd ls`) */
        const char *osd_tree;  /* --osd-tree FILE: `ceph osd tree -f json` */
        const char *osd_metadata; /* --osd-metadata FILE: `ceph osd metadata -f json` */
        char **hosts;          /* --hosts a,b (NULL-terminated, owned) */
        char **take_back;      /* --take-back a,b: destroyed hosts apply may provision again (owned) */
        const char *stage;     /* --stage disks|osds|all */
        unsigned parallel;     /* --parallel N, 0 = layout's */
        char **args;           /* positional arguments (borrowed from argv) */
        int n_args;
} CliOptions;

/* Returns 0, or EXIT_USAGE after printing the problem. */
int cli_options_parse(const Verb *v, int argc, char *argv[], unsigned accepted, CliOptions *ret);
void cli_options_done(CliOptions *o);

/* What every layout verb starts with: its options, exactly one LAYOUT argument, and that
 * layout loaded and validated. Returns 0; EXIT_USAGE after printing the usage problem; or
 * 1 after reporting the layout's error (file:line:col). On failure nothing is returned. */
int cli_options_parse_layout(const Verb *v, int argc, char *argv[], unsigned accepted, CliOptions *ret,
                             Layout **ret_layout);
