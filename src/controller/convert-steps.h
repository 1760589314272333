/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The host steps of a conversion (`cephprov convert`, playbooks/convert-filestore.yaml) that
 * act on one host's convert plan (src/plan/plan-convert.h), computed before the run changed
 * anything: unmount-filestore and rebuild-osds (wipe-replaced is the playbook runner's, next
 * to destroy's owned wipe, whose helpers it shares). Every OSD's phase is journaled as a
 * `convert-phase` record {host, device, osd_id, phase}: stopped, destroyed, wiped,
 * repartitioned, created, backfilling, converted. Each step looks at the real state first,
 * so that a re-run after a kill goes on from there: a directory not mounted is not
 * unmounted, a partition already there as planned is not made again, an OSD already up as
 * BlueStore on its device is not created again. */

#include <json-c/json.h>

#include "basic/error.h"
#include "controller/ceph-admin.h"
#include "controller/hosts.h"
#include "exec/journal.h"
#include "layout/layout.h"
#include "plan/plan-convert.h"

typedef struct ConvertStepCtx {
        const Layout *layout;
        CephAdmin *admin;
        Fleet *fleet;                /* for the extra agent channels of parallel creations */
        HostSession *session;        /* the host's */
        Journal *j;
        const ConvertHost *plan;     /* the host's convert plan */
        const CephOsdTree *before;   /* the tree before the run: each id's CRUSH weight and class */
} ConvertStepCtx;

/* Journals one OSD's phase (see above). */
void convert_phase(Journal *j, const char *host, const char *device, int id, const char *phase);

/* The plan's rebuilt OSD with this id, NULL when the plan does not rebuild it. */
const ConvertOsd *convert_host_find_osd(const ConvertHost *h, int id);

/* unmount-filestore: refuses an OSD the plan does not rebuild or the OSD map says up. */
int convert_step_unmount(ConvertStepCtx *c, json_object *args, json_object **ret, Error *err);

/* rebuild-osds: the plan's new partitions, then one creation per OSD with its old id through
 * apply's OSD flow (controller/apply-osds.h: parallel channels, the purge-new rollback
 * handled), then the checks of the registry's `verify`. */
int convert_step_rebuild(ConvertStepCtx *c, json_object *args, json_object **ret, Error *err);

/* What bcache needs on the host (the module, make-bcache, a udev rules directory), asked of
 * its agent's preflight, the module loaded when it is merely not loaded: 0, or ENOTSUP naming
 * the host and what it lacks. */
int convert_bcache_ready(HostSession *session, Error *err);
