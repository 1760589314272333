/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "playbook.h"

/* {"step","target","args"} of a step, with `args` in place of the step's own when not NULL
 * (a copy is taken). NULL on ENOMEM. */
json_object *playbook_step_to_json(const PlaybookStep *s, json_object *args);
