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
