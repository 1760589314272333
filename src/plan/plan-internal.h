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

/* The devices a selector takes on a host, in the planner's order (the listed order, else
 * natural path order), at most its limit. `allowed` caches plan_device_allowed() per
 * inventory device (n_devices entries, -1: not known yet). Refuses a listed device that is
 * missing, listed twice, does not match the filters, or is outside the allow-list. */
int plan_select_devices(const Host *h, const Profile *p, const Inventory *inv, const DeviceSelector *s,
                        const char *role, signed char *allowed, const InvDevice ***ret, size_t *ret_n, Error *err);
/* A size spec against its fast device: whole MiB, 0 for SIZE_UNSET. */
uint64_t plan_resolve_size(const SizeSpec *s, uint64_t device_size);
/* The partition's GPT name is one plan_partition_name() gives for this host. */
bool plan_partition_is_ours(const char *host, const InvPartition *p);
/* The fast device (index) of data device i of n_data, as the planner assigns them
 * (data_per_fast, spread); -1 without fast devices. The caller checks the slots suffice. */
int plan_slot_fast(const Profile *p, size_t n_data, size_t n_fast, size_t i);
/* The OSD whose data lives on data device d — BlueStore "block" or FileStore "data", on d
 * itself, one of its partitions, or the bcache device it backs — or NULL. A DB, WAL or
 * journal of some OSD there is not an OSD on it. `incomplete_too`: also a label of an OSD
 * that was never finished (destroy wipes those; apply and convert redo them). */
const InvOsd *plan_find_osd(const Inventory *inv, const InvDevice *d, bool incomplete_too);

/* An occupied stretch of a fast device, in bytes. */
typedef struct Extent {
        uint64_t start; /* inclusive */
        uint64_t end;   /* exclusive */
} Extent;
/* Adds [start, end) to *used (n_used entries, kept sorted by start); -ENOMEM. */
int plan_extents_add(Extent **used, size_t *n_used, uint64_t start, uint64_t end);
/* The free space of [first, last] (inclusive) between the sorted `used` extents, each hole
 * aligned to PLAN_ALIGN: returns the start of the first hole that fits `size` (UINT64_MAX
 * when none does or size is 0); *ret_largest gets the largest hole, *ret_total their sum
 * (each may be NULL). */
uint64_t plan_extents_find_free(const Extent *used, size_t n_used, uint64_t first, uint64_t last, uint64_t size,
                                uint64_t *ret_largest, uint64_t *ret_total);
