/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The position-carrying YAML tree that layouts and playbooks are read into: a small tree
 * built from libyaml's events (so anchors, aliases and tags are refused where they appear
 * and every node keeps its line and column), and the file reader both use. Pure but for
 * yaml_file_read(). libyaml's own headers stay out of this one: the planner and the agent
 * include layout.h (which holds YamlMark) without linking the YAML parser. */

#include <stdbool.h>
#include <stddef.h>

#include "basic/error.h"
#include "basic/macro.h"

typedef struct YamlMark {
        unsigned line;   /* 1-based */
        unsigned column; /* 1-based */
} YamlMark;

/* One message about a file, kept with its position: an error or a warning of a schema walk
 * that collects them all (yaml-schema.h), in file order. */
typedef struct YamlDiag {
        bool warning;
        YamlMark mark;
        char *message; /* without the "NAME:LINE:COL: " prefix */
} YamlDiag;

typedef struct YamlDiags {
        YamlDiag *items;
        size_t n;
        size_t n_errors;
} YamlDiags;

/* Frees the messages; *d is left empty and reusable. NULL-safe. */
void yaml_diags_done(YamlDiags *d);

/* Nesting deeper than this is refused: a layout is at most 5 levels deep, a playbook 6, and
 * the limit keeps recursive schema walks and the destructor safe on hostile input. */
#define YAML_TREE_MAX_DEPTH 64

/* Files larger than this are not layouts or playbooks (they are a few KiB). */
#define YAML_FILE_MAX (16U * 1024 * 1024)

typedef enum YamlNodeType {
        YAML_NODE_SCALAR,
        YAML_NODE_MAPPING,
        YAML_NODE_SEQUENCE,
} YamlNodeType;

typedef struct YamlNode {
        YamlNodeType type;
        YamlMark mark;
        char *value;                /* scalar: NUL-terminated text (never contains NUL) */
        bool plain;                 /* scalar: unquoted, so may be null/bool/int */
        struct YamlNode **children; /* mapping: key, value, key, value...; sequence: items */
        size_t n_children;
} YamlNode;

YamlNode *yaml_node_free(YamlNode *n);
DEFINE_TRIVIAL_CLEANUP_FUNC(YamlNode *, yaml_node_free);

/* Parse YAML text into a tree. *ret is NULL when the stream holds no document (empty file or
 * only comments). Errors are "name:line:col: what (expected)"; `what` names the kind of
 * document in the message for a second document ("expected a single layout document").
 * A mapping key is always a scalar (complex keys are refused). On failure *ret is untouched. */
int yaml_tree_load(const char *name, const char *data, size_t len, const char *what, YamlNode **ret,
                   Error *err);

/* A plain empty scalar, "~" or "null": YAML's null. */
bool yaml_node_is_null(const YamlNode *n);

/* The value of key `key` in mapping `map`, NULL when absent (or `map` is not a mapping). */
const YamlNode *yaml_node_get(const YamlNode *map, const char *key);

/* Read a whole file of at most YAML_FILE_MAX bytes into a malloc'd buffer (NUL-terminated,
 * *ret_len without the NUL). Errors name `what` and the path:
 * "cannot open layout 'x.yaml': No such file or directory". */
int yaml_file_read(const char *path, const char *what, char **ret_data, size_t *ret_len, Error *err);
