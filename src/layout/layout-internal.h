/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Internals of the layout parser: a small YAML tree built from libyaml events (so anchors,
 * aliases and tags can be refused where they appear and every node keeps its mark), and the
 * schema walk that turns the tree into a Layout. */

#include <stdbool.h>
#include <stddef.h>

#include "basic/error.h"
#include "layout.h"

/* Nesting deeper than this is refused: a layout is at most 5 levels deep, and the limit keeps
 * the recursive schema walk and destructor safe on hostile input. */
#define YNODE_MAX_DEPTH 64

typedef enum YNodeType {
        YNODE_SCALAR,
        YNODE_MAPPING,
        YNODE_SEQUENCE,
} YNodeType;

typedef struct YNode {
        YNodeType type;
        LayoutMark mark;
        char *value;              /* scalar: NUL-terminated text (never contains NUL) */
        bool plain;               /* scalar: unquoted, so may be null/bool/int */
        struct YNode **children;  /* mapping: key, value, key, value...; sequence: items */
        size_t n_children;
} YNode;

YNode *ynode_free(YNode *n);
DEFINE_TRIVIAL_CLEANUP_FUNC(YNode *, ynode_free);

/* Parse YAML text into a tree. *ret is NULL when the stream holds no document (empty file or
 * only comments). Errors are "name:line:col: what (expected)". */
int ynode_load(const char *name, const char *data, size_t len, YNode **ret, Error *err);

/* A plain empty scalar, "~" or "null": YAML's null. */
bool ynode_is_null(const YNode *n);

/* The schema walk (layout-parse.c). `root` may be NULL (empty document). */
int layout_from_tree(const char *name, const YNode *root, Layout **ret, Error *err);

/* Optimal-string-alignment edit distance, for "did you mean" suggestions. */
size_t edit_distance(const char *a, const char *b);
/* The candidate closest to s if close enough to be a plausible typo, else NULL. */
const char *closest_match(const char *s, const char * const *candidates, size_t n);
