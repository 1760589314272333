/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The adaptive throttle at work (issue 12): a thread beside the playbook's steps that probes
 * client latency window after window through the admin host's agent (`rados-probe`, on a
 * channel of its own so the cluster steps never wait behind a probe), reads
 * the slow ops on the OSDs being refilled and the clients' op rate, asks
 * the decision rule (src/ceph/ceph-adapt.h) and carries out what it decides: the rung's
 * `config set`s (checked in `config dump`) and the brake flag (through the caller's
 * callback, which records it so a restore after a kill takes it off). Every change is one
 * line on `log`: "throttle: p99 41.0 ms, ...: osd_max_backfills 3 → 2, ...". A probe call
 * that fails is no reading (ceph_adapt_step() with no window), not a spike. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "basic/error.h"
#include "ceph/ceph-adapt.h"
#include "controller/ceph-admin.h"

#define THROTTLE_ADAPT_POOL "cephprov-probe"
#define THROTTLE_ADAPT_PG_NUM 16    /* of a probe pool made now */
#define THROTTLE_ADAPT_N_OBJECTS 32 /* at least, as many on each PG */
/* The probe's schedule: 4 KiB ops due at a fixed rate, up to as many in flight, each timed
 * from when it was due (open loop: a stall shows in every op due during it, where one op at a
 * time shows it once). 20 a second is 100 ops a 5 s window whatever the latency — at queue
 * depth 1 a loaded lab gave 13 ops in 10 s — and 2,400 over the 24-window horizon, enough for
 * the 1 % budget's bounds; at ~30 disk I/Os a second it asks less of an idle cluster than one
 * op after the other did (~140 ops a second at 7 ms). */
#define THROTTLE_ADAPT_PROBE_RATE 20
#define THROTTLE_ADAPT_PROBE_INFLIGHT 8

typedef int (*ThrottleAdaptBrakeFn)(void *userdata, bool on, Error *err);
/* Publishes the controller's state (throttle_adapt_state plus "updated", seconds since the
 * epoch) where `status` reads it; called at each change and every 6 windows. */
typedef int (*ThrottleAdaptPublishFn)(void *userdata, json_object *state, Error *err);
/* 1 while the operator's pause is in effect (`cephprov pause`), 0 when not, < 0 on error (the
 * last answer then stands). Asked once a window. */
typedef int (*ThrottleAdaptPausedFn)(void *userdata, Error *err);

typedef struct ThrottleAdaptOptions {
        CephAdaptConfig config;          /* scheduler, target, ceiling, bounds, dwell, window */
        CephLatencyWindow baseline;      /* measured before data moved (throttle_adapt_probe) */
        FILE *log;                       /* a line per change; may be NULL */
        ThrottleAdaptBrakeFn brake;      /* sets / clears the brake flag (recorded) */
        void *brake_userdata;
        ThrottleAdaptPublishFn publish;  /* may be NULL */
        void *publish_userdata;
        ThrottleAdaptPausedFn paused;    /* may be NULL: never paused */
        void *paused_userdata;
} ThrottleAdaptOptions;

typedef struct ThrottleAdapt ThrottleAdapt;

/* The probe pool (THROTTLE_ADAPT_POOL, THROTTLE_ADAPT_PG_NUM PGs, application "cephprov")
 * made if missing; the probe's objects are named so that each of its PGs holds as many
 * (ceph_object_names_per_pg, with the pool's pg_num from the OSD map). Kept afterwards: nothing here deletes a
 * pool (production clusters forbid it). */
int throttle_adapt_pool_ensure(CephAdmin *admin, Error *err);

/* One probe window of `seconds` on the admin host (a channel opened for it and closed). */
int throttle_adapt_probe(CephAdmin *admin, unsigned seconds, CephLatencyWindow *ret, Error *err);

/* Starts the controller at the config's start rung (its settings already applied by the
 * caller) with its own channel to the admin host. */
int throttle_adapt_start(CephAdmin *admin, const ThrottleAdaptOptions *o, ThrottleAdapt **ret, Error *err);

/* Stops the thread (waits for the window in progress) and closes the channel; the brake is
 * left to the caller's restore (its record says whether it is on). NULL-safe. */
ThrottleAdapt *throttle_adapt_stop(ThrottleAdapt *t);

/* While a wait-peered runs (PGs peer at the map that has OSDs just marked out): the
 * windows it overlaps are not judged (ceph_adapt_step, CephLatencyWindow.peering), those
 * that start within 10 s of its start only: a longer stall is judged. */
void throttle_adapt_set_peering(ThrottleAdapt *t, bool peering);
double throttle_adapt_target_ms(ThrottleAdapt *t);
double throttle_adapt_ceiling_ms(ThrottleAdapt *t);

/* The controller's state (ceph_adapt_to_json) plus windows probed, probe failures and the
 * last error; NULL when out of memory. */
json_object *throttle_adapt_state(ThrottleAdapt *t);
