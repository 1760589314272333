/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Plan steps as agent requests: the executor sends what this returns (adding its own
 * "id"). Pure: no I/O. */

#include <json-c/json.h>

#include "agent/agent-needs.h"
#include "basic/error.h"
#include "plan/plan.h"

/* {"op": "...", "args": {...}} for one step. Partitions named by a step (cache, DB, WAL)
 * are passed by GPT name ("partname"/"cache_partname"/...): the agent resolves them on
 * the host, so the request does not depend on kernel names. -EINVAL for an unknown kind. */
int agent_request_from_step(const Step *s, json_object **ret);

/* A request's "expect" object (docs/agent.md) for what the plan saw of a target: type,
 * uuid, pttype, ptuuid (when the content is known), size, identity, partuuid, start and
 * osd {osd_uuid, whoami, ceph_fsid} (each when known). -ENOMEM. */
int agent_expect_to_json(const StepSeen *s, json_object **ret);

/* The AgentNeed bits of one step (pure, from its kind and arguments). */
unsigned agent_step_needs(const Step *s);
