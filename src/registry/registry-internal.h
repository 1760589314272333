/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Internals of the step registry: the table (step-table.c) and the checks between
 * arguments its entries name (step-registry.c). */

#include "step-registry.h"

extern const StepEntry step_table[];
extern const size_t step_table_size;

int step_check_wipe(const YamlCtx *c, const YamlNode *args, YamlMark at, StepScope scope, json_object *values);
int step_check_teardown(const YamlCtx *c, const YamlNode *args, YamlMark at, StepScope scope, json_object *values);
int step_check_flag(const YamlCtx *c, const YamlNode *args, YamlMark at, StepScope scope, json_object *values);
int step_check_unset_flag(const YamlCtx *c, const YamlNode *args, YamlMark at, StepScope scope, json_object *values);
int step_check_throttle(const YamlCtx *c, const YamlNode *args, YamlMark at, StepScope scope, json_object *values);
