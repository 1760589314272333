/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Internals of the layout parser: the schema walk (layout-parse.c) that turns the YAML tree
 * (src/yaml) into a Layout. */

#include "basic/error.h"
#include "layout.h"
#include "yaml/yaml-tree.h"

/* `root` may be NULL (empty document). With all_errors, every error goes to *diags and the walk
 * goes on; otherwise it stops at the first. Warnings go to *diags (when given) and to the
 * layout's own list. */
int layout_from_tree(const char *name, const YamlNode *root, bool all_errors, YamlDiags *diags, Layout **ret,
                     Error *err);
