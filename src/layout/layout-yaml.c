/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* YAML text → YNode tree, with libyaml's event API. The event API (not the document API)
 * is used because it reports anchors, aliases and tags where they occur, which we refuse,
 * and because duplicate keys must be detected by us anyway. */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "basic/strv.h"
#include "layout-internal.h"

YNode *ynode_free(YNode *n) {
        if (!n)
                return NULL;
        for (size_t i = 0; i < n->n_children; i++)
                ynode_free(n->children[i]);
        free(n->children);
        free(n->value);
        free(n);
        return NULL;
}

bool ynode_is_null(const YNode *n) {
        if (!n || n->type != YNODE_SCALAR || !n->plain)
                return false;
        return n->value[0] == 0 || streq(n->value, "~") || streq(n->value, "null") ||
               streq(n->value, "Null") || streq(n->value, "NULL");
}

static LayoutMark mark_from_yaml(yaml_mark_t m) {
        return (LayoutMark) {
                .line = (unsigned) m.line + 1,
                .column = (unsigned) m.column + 1,
        };
}

static int fail_at(Error *err, const char *name, LayoutMark m, const char *fmt, ...) _printf_(4, 5);
static int fail_at(Error *err, const char *name, LayoutMark m, const char *fmt, ...) {
        char msg[768];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        return error_set(err, EINVAL, "%s:%u:%u: %s", name, m.line, m.column, msg);
}

/* Whether line `line` (1-based) of data starts with a tab in its indentation: libyaml then
 * says "found character that cannot start any token", which does not tell the operator
 * what to fix. Lines are counted by '\n' only (enough for a hint). */
static bool line_indented_with_tab(const char *data, size_t len, size_t line) {
        size_t i = 0;
        for (size_t l = 1; l < line; l++) {
                const char *nl = memchr(data + i, '\n', len - i);
                if (!nl)
                        return false;
                i = (size_t) (nl - data) + 1;
        }
        for (; i < len && (data[i] == ' ' || data[i] == '\t'); i++)
                if (data[i] == '\t')
                        return true;
        return false;
}

/* 1-based line and column of a byte offset (for reader errors, which have no mark). */
static LayoutMark mark_from_offset(const char *data, size_t len, size_t offset) {
        LayoutMark m = { 1, 1 };
        for (size_t i = 0; i < offset && i < len; i++) {
                if (data[i] == '\n') {
                        m.line++;
                        m.column = 1;
                } else if (((unsigned char) data[i] & 0xC0) != 0x80)
                        m.column++;
        }
        return m;
}

static int syntax_error(const yaml_parser_t *p, const char *name, const char *data, size_t len,
                        Error *err) {
        if (p->error == YAML_MEMORY_ERROR)
                return error_set(err, ENOMEM, "%s: out of memory while parsing YAML", name);

        if (p->error == YAML_READER_ERROR) {
                LayoutMark m = mark_from_offset(data, len, p->problem_offset);
                return fail_at(err, name, m, "invalid text: %s (expected UTF-8 or UTF-16 text)",
                               p->problem ?: "unreadable input");
        }

        LayoutMark m = mark_from_yaml(p->problem_mark);
        if (line_indented_with_tab(data, len, m.line))
                return fail_at(err, name, (LayoutMark) { m.line, 1 },
                               "tab character in indentation (expected spaces: YAML does not allow tabs for indentation)");

        if (p->context)
                return fail_at(err, name, m, "invalid YAML: %s (%s started at line %u, column %u)",
                               p->problem ?: "syntax error", p->context,
                               (unsigned) p->context_mark.line + 1,
                               (unsigned) p->context_mark.column + 1);
        return fail_at(err, name, m, "invalid YAML: %s (expected valid YAML syntax)",
                       p->problem ?: "syntax error");
}

static int append_child(YNode *parent, YNode *child) {
        /* Grow geometrically: hostile input may have huge flat lists. */
        size_t n = parent->n_children;
        if ((n & (n - 1)) == 0) {
                size_t cap = n == 0 ? 4 : n * 2;
                if (n < 4 && n > 0)
                        cap = 4;
                YNode **c = realloc(parent->children, cap * sizeof(YNode *));
                if (!c)
                        return -ENOMEM;
                parent->children = c;
        }
        parent->children[parent->n_children++] = child;
        return 0;
}

typedef struct Builder {
        const char *name;
        Error *err;
        YNode *root;
        YNode *stack[YNODE_MAX_DEPTH];
        size_t depth;
} Builder;

/* Attach a new node (a scalar, or a container about to be opened) to the current container. */
static int builder_add(Builder *b, YNode *n) {
        if (b->depth == 0) {
                /* The only node at depth 0 is the document's root; a second document was
                 * refused earlier. */
                if (b->root) {
                        ynode_free(n);
                        return fail_at(b->err, b->name, n->mark, "unexpected second root node (expected one document)");
                }
                b->root = n;
                return 0;
        }

        YNode *parent = b->stack[b->depth - 1];
        if (parent->type == YNODE_MAPPING && parent->n_children % 2 == 0 && n->type != YNODE_SCALAR) {
                LayoutMark m = n->mark;
                ynode_free(n);
                return fail_at(b->err, b->name, m, "complex mapping key (expected a plain key name)");
        }
        if (append_child(parent, n) < 0) {
                ynode_free(n);
                return error_set(b->err, ENOMEM, "%s: out of memory", b->name);
        }
        return 0;
}

static int check_anchor_tag(Builder *b, yaml_mark_t mark, const yaml_char_t *anchor, const yaml_char_t *tag) {
        if (anchor)
                return fail_at(b->err, b->name, mark_from_yaml(mark),
                               "anchor '&%.64s' (anchors and aliases are not supported: expected plain values)",
                               (const char *) anchor);
        if (tag)
                return fail_at(b->err, b->name, mark_from_yaml(mark),
                               "tag '%.64s' (tags are not supported: expected plain values)", (const char *) tag);
        return 0;
}

static int builder_event(Builder *b, const yaml_event_t *ev, unsigned *n_docs, bool *done) {
        YNode *n;
        int r;

        switch (ev->type) {
        case YAML_STREAM_START_EVENT:
        case YAML_DOCUMENT_END_EVENT:
        case YAML_NO_EVENT:
                return 0;

        case YAML_STREAM_END_EVENT:
                *done = true;
                return 0;

        case YAML_DOCUMENT_START_EVENT:
                if (++*n_docs > 1)
                        return fail_at(b->err, b->name, mark_from_yaml(ev->start_mark),
                                       "second YAML document (expected a single layout document)");
                return 0;

        case YAML_ALIAS_EVENT:
                return fail_at(b->err, b->name, mark_from_yaml(ev->start_mark),
                               "alias '*%.64s' (anchors and aliases are not supported: expected plain values)",
                               (const char *) ev->data.alias.anchor);

        case YAML_SCALAR_EVENT:
                r = check_anchor_tag(b, ev->start_mark, ev->data.scalar.anchor, ev->data.scalar.tag);
                if (r < 0)
                        return r;
                if (memchr(ev->data.scalar.value, 0, ev->data.scalar.length))
                        return fail_at(b->err, b->name, mark_from_yaml(ev->start_mark),
                                       "NUL character in a string (expected text)");
                n = calloc(1, sizeof *n);
                if (!n)
                        return error_set(b->err, ENOMEM, "%s: out of memory", b->name);
                n->type = YNODE_SCALAR;
                n->mark = mark_from_yaml(ev->start_mark);
                n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
                n->value = strndup((const char *) ev->data.scalar.value, ev->data.scalar.length);
                if (!n->value) {
                        free(n);
                        return error_set(b->err, ENOMEM, "%s: out of memory", b->name);
                }
                return builder_add(b, n);

        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
                bool seq = ev->type == YAML_SEQUENCE_START_EVENT;
                r = check_anchor_tag(b, ev->start_mark,
                                     seq ? ev->data.sequence_start.anchor : ev->data.mapping_start.anchor,
                                     seq ? ev->data.sequence_start.tag : ev->data.mapping_start.tag);
                if (r < 0)
                        return r;
                if (b->depth >= YNODE_MAX_DEPTH)
                        return fail_at(b->err, b->name, mark_from_yaml(ev->start_mark),
                                       "nesting too deep (expected at most %d levels)", YNODE_MAX_DEPTH);
                n = calloc(1, sizeof *n);
                if (!n)
                        return error_set(b->err, ENOMEM, "%s: out of memory", b->name);
                n->type = seq ? YNODE_SEQUENCE : YNODE_MAPPING;
                n->mark = mark_from_yaml(ev->start_mark);
                r = builder_add(b, n);
                if (r < 0)
                        return r;
                b->stack[b->depth++] = n;
                return 0;
        }

        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
                if (b->depth > 0)
                        b->depth--;
                return 0;
        }
        return 0;
}

int ynode_load(const char *name, const char *data, size_t len, YNode **ret, Error *err) {
        yaml_parser_t parser;
        Builder b = { .name = name, .err = err };
        unsigned n_docs = 0;
        bool done = false;
        int r = 0;

        if (!yaml_parser_initialize(&parser))
                return error_set(err, ENOMEM, "%s: cannot initialize the YAML parser", name);
        yaml_parser_set_input_string(&parser, (const unsigned char *) data, len);

        while (!done) {
                yaml_event_t ev;
                if (!yaml_parser_parse(&parser, &ev)) {
                        r = syntax_error(&parser, name, data, len, err);
                        break;
                }
                r = builder_event(&b, &ev, &n_docs, &done);
                yaml_event_delete(&ev);
                if (r < 0)
                        break;
        }
        yaml_parser_delete(&parser);

        if (r < 0) {
                ynode_free(b.root);
                return r;
        }
        *ret = b.root;
        return 0;
}

size_t edit_distance(const char *a, const char *b) {
        size_t la = strlen(a), lb = strlen(b);
        /* Names compared here are short; longer input is never a plausible typo. */
        if (la > 64 || lb > 64)
                return SIZE_MAX;

        size_t d[65][65];
        for (size_t i = 0; i <= la; i++)
                d[i][0] = i;
        for (size_t j = 0; j <= lb; j++)
                d[0][j] = j;
        for (size_t i = 1; i <= la; i++)
                for (size_t j = 1; j <= lb; j++) {
                        size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
                        size_t v = MIN(d[i - 1][j] + 1, d[i][j - 1] + 1);
                        v = MIN(v, d[i - 1][j - 1] + cost);
                        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                                v = MIN(v, d[i - 2][j - 2] + 1); /* transposition */
                        d[i][j] = v;
                }
        return d[la][lb];
}

const char *closest_match(const char *s, const char * const *candidates, size_t n) {
        const char *best = NULL;
        size_t best_d = SIZE_MAX;

        for (size_t i = 0; i < n; i++) {
                size_t d = edit_distance(s, candidates[i]);
                if (d < best_d) {
                        best_d = d;
                        best = candidates[i];
                }
        }
        if (!best)
                return NULL;
        /* Plausible typo: up to 2 edits, and fewer than half of the word changed. */
        size_t l = strlen(best);
        if (best_d == 0 || best_d > 2 || best_d * 2 >= l)
                return NULL;
        return best;
}
