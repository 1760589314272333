/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "plan.h"

/* Walks the free OSD ids in plan order, host after host. */
typedef struct PlanIdCursor {
        const int *in_use;       /* sorted */
        size_t n_in_use;
        size_t k;
        int next;
} PlanIdCursor;

/* Set Step.osd_id of the host's create-osd steps to the next free ids. */
void plan_id_cursor_assign(PlanIdCursor *c, HostPlan *h);

/* ---- device selection (plan-select.c) ---- */

/* "2 TB = 1.82 TiB": a size as disks are sold (powers of 1000) and as cephprov reads sizes
 * (powers of 1024), up to two decimals. Writes into buf and returns it. */
const char *plan_size_both(uint64_t bytes, char *buf, size_t len);
/* In the host's allow-list (globs against the path and every link); without a list, the
 * inventory's own flag. */
bool plan_device_allowed(const Host *h, const InvDevice *d);
/* Neither a bcacheN device nor read-only: a device a selector by filters may take. */
bool plan_device_candidate(const InvDevice *d);
/* NULL when d matches the selector's filters (rotational, size, model, serial, vendor); else
 * what does not match, written into buf, sizes in both units (buf NULL: "", nothing
 * formatted). */
const char *plan_selector_mismatch(const DeviceSelector *s, const InvDevice *d, char *buf, size_t len);
/* Why a selector by filters takes nothing on this host, into buf: "rejected: /dev/sdc,
 * /dev/sdd: 2 TB = 1.82 TiB, below the minimum 2.2 TB = 2 TiB; /dev/sda: not rotational",
 * the candidates grouped by reason, then the devices outside the allow-list. */
void plan_explain_no_match(const DeviceSelector *s, const Host *h, const Inventory *inv, char *buf, size_t len);
