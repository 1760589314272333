/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Internals of the layout parser: the schema walk (layout-parse.c) that turns the YAML tree
 * (src/yaml) into a Layout. */

#include "basic/error.h"
#include "layout.h"
#include "yaml/yaml-tree.h"

/* `root` may be NULL (empty document). */
int layout_from_tree(const char *name, const YamlNode *root, Layout **ret, Error *err);
