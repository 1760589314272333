/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* `cephprov status`: hosts (reachable, bcache in the kernel), OSDs (up/in, class, data and
 * DB devices), the fast device -> OSDs blast radius, bcache state, cluster health, PG states,
 * the open restore records, the pause and the adaptive throttle. The hosts' inventories (read
 * only) and the cluster's answers, as one JSON object (docs/cli.md's status document); the
 * verb prints it as text or JSON. `only`: these hosts (NULL: every host with a profile). */

#include <json-c/json.h>
#include <stdbool.h>

#include "basic/error.h"
#include "layout/layout.h"

int controller_status(const Layout *l, char * const *only, bool quiet, json_object **ret, Error *err);
