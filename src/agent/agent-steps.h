/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Plan steps as agent requests: the executor sends what this returns (adding its own
 * "id"). Pure: no I/O. */

#include <json-c/json.h>

#include "basic/error.h"
#include "plan/plan.h"

/* {"op": "...", "args": {...}} for one step. Partitions named by a step (cache, DB, WAL)
 * are passed by GPT name ("partname"/"cache_partname"/...): the agent resolves them on
 * the host, so the request does not depend on kernel names. -EINVAL for an unknown kind. */
int agent_request_from_step(const Step *s, json_object **ret);
