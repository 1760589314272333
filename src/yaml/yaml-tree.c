/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* YAML text → YamlNode tree, with libyaml's event API. The event API (not the document API)
 * is used because it reports anchors, aliases and tags where they occur, which we refuse,
 * and because duplicate keys must be detected by us anyway. */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/strv.h"
#include "yaml-tree.h"

YamlNode *yaml_node_free(YamlNode *n) {
        if (!n)
                return NULL;
        for (size_t i = 0; i < n->n_children; i++)
                yaml_node_free(n->children[i]);
        free(n->children);
        free(n->value);
        free(n);
        return NULL;
}

bool yaml_node_is_null(const YamlNode *n) {
        if (!n || n->type != YAML_NODE_SCALAR || !n->plain)
                return false;
        return n->value[0] == 0 || streq(n->value, "~") || streq(n->value, "null") ||
               streq(n->value, "Null") || streq(n->value, "NULL");
}

static YamlMark mark_from_yaml(yaml_mark_t m) {
        return (YamlMark) {
                .line = (unsigned) m.line + 1,
                .column = (unsigned) m.column + 1,
        };
}

static int fail_at(Error *err, const char *name, YamlMark m, const char *fmt, ...) _printf_(4, 5);
static int fail_at(Error *err, const char *name, YamlMark m, const char *fmt, ...) {
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
static YamlMark mark_from_offset(const char *data, size_t len, size_t offset) {
        YamlMark m = { 1, 1 };
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
                YamlMark m = mark_from_offset(data, len, p->problem_offset);
                return fail_at(err, name, m, "invalid text: %s (expected UTF-8 or UTF-16 text)",
                               p->problem ?: "unreadable input");
        }

        YamlMark m = mark_from_yaml(p->problem_mark);
        if (line_indented_with_tab(data, len, m.line))
                return fail_at(err, name, (YamlMark) { m.line, 1 },
                               "tab character in indentation (expected spaces: YAML does not allow tabs for indentation)");

        if (p->context)
                return fail_at(err, name, m, "invalid YAML: %s (%s started at line %u, column %u)",
                               p->problem ?: "syntax error", p->context,
                               (unsigned) p->context_mark.line + 1,
                               (unsigned) p->context_mark.column + 1);
        return fail_at(err, name, m, "invalid YAML: %s (expected valid YAML syntax)",
                       p->problem ?: "syntax error");
}

static int append_child(YamlNode *parent, YamlNode *child) {
        /* Grow geometrically: hostile input may have huge flat lists. */
        size_t n = parent->n_children;
        if ((n & (n - 1)) == 0) {
                size_t cap = n == 0 ? 4 : n * 2;
                if (n < 4 && n > 0)
                        cap = 4;
                YamlNode **c = realloc(parent->children, cap * sizeof(YamlNode *));
                if (!c)
                        return -ENOMEM;
                parent->children = c;
        }
        parent->children[parent->n_children++] = child;
        return 0;
}

typedef struct Builder {
        const char *name;
        const char *what;
        Error *err;
        YamlNode *root;
        YamlNode *stack[YAML_TREE_MAX_DEPTH];
        size_t depth;
} Builder;

/* Attach a new node (a scalar, or a container about to be opened) to the current container. */
static int builder_add(Builder *b, YamlNode *n) {
        if (b->depth == 0) {
                /* The only node at depth 0 is the document's root; a second document was
                 * refused earlier. */
                if (b->root) {
                        yaml_node_free(n);
                        return fail_at(b->err, b->name, n->mark, "unexpected second root node (expected one document)");
                }
                b->root = n;
                return 0;
        }

        YamlNode *parent = b->stack[b->depth - 1];
        if (parent->type == YAML_NODE_MAPPING && parent->n_children % 2 == 0 && n->type != YAML_NODE_SCALAR) {
                YamlMark m = n->mark;
                yaml_node_free(n);
                return fail_at(b->err, b->name, m, "complex mapping key (expected a plain key name)");
        }
        if (append_child(parent, n) < 0) {
                yaml_node_free(n);
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
        YamlNode *n;
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
                                       "second YAML document (expected a single %s document)", b->what);
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
                n->type = YAML_NODE_SCALAR;
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
                if (b->depth >= YAML_TREE_MAX_DEPTH)
                        return fail_at(b->err, b->name, mark_from_yaml(ev->start_mark),
                                       "nesting too deep (expected at most %d levels)", YAML_TREE_MAX_DEPTH);
                n = calloc(1, sizeof *n);
                if (!n)
                        return error_set(b->err, ENOMEM, "%s: out of memory", b->name);
                n->type = seq ? YAML_NODE_SEQUENCE : YAML_NODE_MAPPING;
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

int yaml_tree_load(const char *name, const char *data, size_t len, const char *what, YamlNode **ret,
                   Error *err) {
        yaml_parser_t parser;
        Builder b = { .name = name, .what = what ?: "YAML", .err = err };
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
                yaml_node_free(b.root);
                return r;
        }
        *ret = b.root;
        return 0;
}


const YamlNode *yaml_node_get(const YamlNode *map, const char *key) {
        if (!map || map->type != YAML_NODE_MAPPING)
                return NULL;
        for (size_t i = 0; i + 1 < map->n_children; i += 2)
                if (streq(map->children[i]->value, key))
                        return map->children[i + 1];
        return NULL;
}

int yaml_file_read(const char *path, const char *what, char **ret_data, size_t *ret_len, Error *err) {
        _cleanup_(closep) int fd = -1;
        _cleanup_(freep) char *data = NULL;
        size_t len = 0, cap = 0;
        struct stat st;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return error_set(err, errno, "cannot open %s '%s': %s", what, path, strerror(errno));
        if (fstat(fd, &st) < 0)
                return error_set(err, errno, "cannot stat %s '%s': %s", what, path, strerror(errno));
        if (S_ISDIR(st.st_mode))
                return error_set(err, EISDIR, "cannot read %s '%s': is a directory", what, path);

        for (;;) {
                if (len == cap) {
                        if (cap >= YAML_FILE_MAX)
                                return error_set(err, EFBIG, "cannot read %s '%s': larger than %u MiB",
                                                 what, path, YAML_FILE_MAX / 1024 / 1024);
                        cap = cap ? cap * 2 : 16384;
                        /* One byte more than cap, for the NUL. */
                        char *n = realloc(data, cap + 1);
                        if (!n)
                                return error_set(err, ENOMEM, "cannot read %s '%s': out of memory", what, path);
                        data = n;
                }
                ssize_t k = read(fd, data + len, cap - len);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return error_set(err, errno, "cannot read %s '%s': %s", what, path, strerror(errno));
                }
                if (k == 0)
                        break;
                len += (size_t) k;
        }
        if (!data && !(data = malloc(1)))
                return error_set(err, ENOMEM, "cannot read %s '%s': out of memory", what, path);
        data[len] = 0;
        *ret_data = TAKE_PTR(data);
        *ret_len = len;
        return 0;
}
