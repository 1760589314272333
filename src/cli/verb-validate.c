/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `cephprov validate FILE|-`: a layout or a playbook (every error and warning of it, in file
 * order), as text or as JSON with a format version. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/color.h"
#include "basic/strv.h"
#include "cli.h"
#include "controller/preflight.h"
#include "layout/layout.h"
#include "options.h"
#include "playbook/playbook.h"
#include "yaml/yaml-tree.h"

/* The version of validate's JSON documents: bumped when a key changes meaning or goes away. */
#define VALIDATE_JSON_FORMAT 1

#define STDIN_NAME "<stdin>"

/* {"format": 1, ...the keys of j...}: the version first, for readers that look at it first. */
static json_object *with_format(json_object *j) {
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o || json_add_int(o, "format", VALIDATE_JSON_FORMAT) < 0)
                return NULL;
        json_object_object_foreach(j, key, val)
                if (json_add(o, key, json_object_get(val)) < 0)
                        return NULL;
        return TAKE_PTR(o);
}

static json_object *diag_to_json(const char *name, const YamlDiag *d) {
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o || json_add_string(o, "file", name) < 0 || json_add_u64(o, "line", d->mark.line) < 0 ||
            json_add_u64(o, "column", d->mark.column) < 0 || json_add_string(o, "message", d->message) < 0)
                return NULL;
        return TAKE_PTR(o);
}

/* An error without a list: "NAME:LINE:COL: message" split back into its parts when it has
 * them (a playbook's, a YAML syntax error); otherwise without line and column (a key that
 * does not apply is left out, never null: docs/json.md). */
static json_object *error_to_json(const char *name, const Error *err) {
        const char *m = err->code ? err->message : "unknown error";
        size_t nl = strlen(name);
        unsigned line, col;
        int used = 0;
        if (strncmp(m, name, nl) == 0 && sscanf(m + nl, ":%u:%u: %n", &line, &col, &used) == 2 && used > 0) {
                YamlDiag d = { .mark = { line, col }, .message = (char *) (m + nl + used) };
                return diag_to_json(name, &d);
        }
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o || json_add_string(o, "file", name) < 0 || json_add_string(o, "message", m) < 0)
                return NULL;
        return TAKE_PTR(o);
}

/* The diagnostics of kind `warning` as a JSON array. */
static json_object *diags_to_json(const char *name, const YamlDiags *d, bool warning) {
        _cleanup_json_ json_object *a = json_object_new_array();
        if (!a)
                return NULL;
        for (size_t i = 0; d && i < d->n; i++) {
                if (d->items[i].warning != warning)
                        continue;
                json_object *o = diag_to_json(name, &d->items[i]);
                if (!o || json_object_array_add(a, o) < 0) {
                        json_object_put(o);
                        return NULL;
                }
        }
        return TAKE_PTR(a);
}

/* A failed validate --json: the JSON error object on stdout (the first error, and all of them
 * under "errors"), while the caller prints every message on stderr. */
static void report_json_failure(const char *name, const Error *err, const YamlDiags *d) {
        _cleanup_json_ json_object *errors = NULL, *o = json_object_new_object();
        if (d && d->n_errors > 0)
                errors = diags_to_json(name, d, false);
        else if ((errors = json_object_new_array())) {
                json_object *e = error_to_json(name, err);
                if (!e || json_object_array_add(errors, e) < 0) {
                        json_object_put(e);
                        json_object_put(TAKE_PTR(errors));
                }
        }
        if (!o || !errors || json_add_int(o, "format", VALIDATE_JSON_FORMAT) < 0 || json_add_string(o, "kind", "error") < 0 ||
            json_add(o, "error", json_object_get(json_object_array_get_idx(errors, 0))) < 0 ||
            json_add(o, "errors", TAKE_PTR(errors)) < 0 || json_add(o, "warnings", diags_to_json(name, d, true)) < 0) {
                log_error("cannot format the errors of '%s' as JSON: out of memory", name);
                return;
        }
        printf("%s\n", json_to_pretty(o));
}

static void print_warnings(const char *name, const YamlDiags *d) {
        for (size_t i = 0; d && i < d->n; i++)
                if (d->items[i].warning)
                        fprintf(stderr, "%s:%u:%u: %swarning%s: %s\n", name, d->items[i].mark.line, d->items[i].mark.column,
                                color_on(stderr, COLOR_WARNING), color_off(stderr), d->items[i].message);
}

/* kind: what the document is ("layout", "playbook", "playbook-plan"), docs/json.md */
static int print_json(json_object *j, const char *what, const char *kind, const char *name) {
        _cleanup_json_ json_object *o = j ? with_format(j) : NULL;
        if (!o) {
                log_error("cannot format %s '%s' as JSON: out of memory", what, name);
                return 1;
        }
        return cli_print_json_document(kind, o);
}

/* Every error of d in file order as compilers print them, then "N errors in KIND 'NAME'". */
static int report_all(const char *kind, const char *name, const YamlDiags *d) {
        for (size_t i = 0; i < d->n; i++)
                if (d->items[i].warning)
                        fprintf(stderr, "%s:%u:%u: %swarning%s: %s\n", name, d->items[i].mark.line, d->items[i].mark.column,
                                color_on(stderr, COLOR_WARNING), color_off(stderr), d->items[i].message);
                else
                        log_error("%s:%u:%u: %s", name, d->items[i].mark.line, d->items[i].mark.column, d->items[i].message);
        if (d->n_errors > 1)
                log_error("%zu errors in %s '%s'", d->n_errors, kind, name);
        return 1;
}

static int validate_playbook(const char *name, const char *data, size_t len, bool json, char * const *hosts) {
        _cleanup_(playbook_freep) Playbook *pb = NULL;
        _cleanup_(yaml_diags_done) YamlDiags d = {};
        Error err = {};

        if (playbook_load_string_all(name, data, len, &pb, &d, &err) < 0) {
                if (json)
                        report_json_failure(name, &err, &d);
                if (d.n_errors == 0)
                        return cli_report(&err); /* a YAML syntax error: no list */
                return report_all("playbook", name, &d);
        }
        if (hosts) {
                /* The plan for these hosts as far as the playbook alone tells it: their OSDs
                 * and failure domains come from the cluster when the playbook runs. */
                size_t n = strv_length(hosts);
                _cleanup_(freep) PlaybookHostFacts *facts = calloc(n, sizeof(PlaybookHostFacts));
                if (!facts) {
                        error_set(&err, ENOMEM, "cannot print the plan of playbook '%s': out of memory", name);
                        return cli_report(&err);
                }
                for (size_t i = 0; i < n; i++)
                        facts[i].host = hosts[i];
                if (json) {
                        _cleanup_json_ json_object *j = NULL;
                        if (playbook_plan_to_json(pb, facts, n, &j) < 0)
                                j = NULL;
                        return print_json(j, "the plan of playbook", "playbook-plan", name);
                }
                if (playbook_print_plan(pb, facts, n, stdout) < 0) {
                        error_set(&err, ENOMEM, "cannot print the plan of playbook '%s': out of memory", name);
                        return cli_report(&err);
                }
                return 0;
        }
        if (json) {
                _cleanup_json_ json_object *j = NULL;
                if (playbook_to_json(pb, &j) < 0)
                        j = NULL;
                return print_json(j, "playbook", "playbook", name);
        }
        printf("%s: valid: playbook '%s', %zu before, %zu per host, %zu in the gate, %zu after; hosts %s%s; %s\n", name,
               pb->name, pb->n_steps[PLAYBOOK_BEFORE], pb->n_steps[PLAYBOOK_PER_HOST], pb->n_steps[PLAYBOOK_GATE],
               pb->n_steps[PLAYBOOK_AFTER], playbook_strategy_to_string(pb->strategy), pb->canary ? ", canary first" : "",
               pb->destructive ? "destructive" : "not destructive");
        return 0;
}

static int validate_layout(const char *name, const char *data, size_t len, bool json, bool check_hosts) {
        _cleanup_(layout_freep) Layout *l = NULL;
        _cleanup_(yaml_diags_done) YamlDiags d = {};
        Error err = {};
        int r;

        if (data)
                r = layout_load_string_all(name, data, len, &l, &d, &err);
        else
                r = layout_load_file_all(name, &l, &d, &err); /* reports a file that cannot be read */
        if (r >= 0 && preflight_identity_files(l, check_hosts, &d) < 0) {
                error_set(&err, ENOMEM, "cannot validate layout '%s': out of memory", name);
                return cli_report(&err);
        }
        yaml_diags_sort(&d);

        if (r < 0 || d.n_errors > 0) {
                if (json)
                        report_json_failure(name, &err, &d);
                if (d.n_errors == 0)
                        return cli_report(&err);
                return report_all("layout", name, &d);
        }

        print_warnings(name, &d);
        if (json) {
                _cleanup_json_ json_object *j = NULL;
                if (layout_to_json(l, &j) < 0 || json_add(j, "warnings", diags_to_json(name, &d, true)) < 0)
                        return print_json(NULL, "layout", "layout", name);
                return print_json(j, "layout", "layout", name);
        }

        size_t with_disks = 0;
        for (size_t i = 0; i < l->n_hosts; i++)
                if (l->hosts[i].profile)
                        with_disks++;
        size_t n_warnings = d.n - d.n_errors;
        printf("%s: valid: cluster '%s', %zu host%s (%zu with managed disks), %zu profile%s", name, l->cluster_name,
               l->n_hosts, l->n_hosts == 1 ? "" : "s", with_disks, l->n_profiles, l->n_profiles == 1 ? "" : "s");
        if (n_warnings > 0)
                printf("; %zu warning%s", n_warnings, n_warnings == 1 ? "" : "s");
        printf("\n");
        return 0;
}

/* All of stdin, at most YAML_FILE_MAX bytes, NUL-terminated. */
static int read_stdin(char **ret, size_t *ret_len, Error *err) {
        size_t cap = 4096, len = 0;
        _cleanup_(freep) char *buf = malloc(cap);
        if (!buf)
                return error_set(err, ENOMEM, "cannot read %s: out of memory", STDIN_NAME);
        for (;;) {
                if (len + 1 >= cap) {
                        if (cap > YAML_FILE_MAX)
                                return error_set(err, EFBIG, "cannot read %s: larger than %u MiB (not a layout or playbook)",
                                                 STDIN_NAME, YAML_FILE_MAX >> 20);
                        char *n = realloc(buf, cap * 2);
                        if (!n)
                                return error_set(err, ENOMEM, "cannot read %s: out of memory", STDIN_NAME);
                        buf = n;
                        cap *= 2;
                }
                ssize_t k = read(STDIN_FILENO, buf + len, cap - len - 1);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return error_set(err, errno, "cannot read %s: %s", STDIN_NAME, strerror(errno));
                if (k == 0)
                        break;
                len += (size_t) k;
        }
        if (len > YAML_FILE_MAX)
                return error_set(err, EFBIG, "cannot read %s: larger than %u MiB (not a layout or playbook)", STDIN_NAME,
                                 YAML_FILE_MAX >> 20);
        buf[len] = 0;
        *ret_len = len;
        *ret = TAKE_PTR(buf);
        return 0;
}

int verb_validate(int argc, char *argv[]) {
        const Verb *v = verb_find("validate");
        _cleanup_(cli_options_done) CliOptions o = {};
        int r = cli_options_parse(v, argc, argv, OPT_JSON | OPT_HOSTS | OPT_CHECK_HOSTS, &o);
        if (r != 0)
                return r;
        if (o.n_args != 1)
                return verb_usage_error(v, "expected one layout or playbook file");

        /* A playbook says so at its top level (`playbook:`); anything else is read as a
         * layout, which also reports a file that cannot be read. `-` is stdin. */
        bool from_stdin = streq(o.args[0], "-");
        const char *name = from_stdin ? STDIN_NAME : o.args[0];
        _cleanup_(freep) char *data = NULL;
        size_t len = 0;
        if (from_stdin) {
                Error err = {};
                if (read_stdin(&data, &len, &err) < 0) {
                        if (o.json)
                                report_json_failure(name, &err, NULL);
                        return cli_report(&err);
                }
        } else if (yaml_file_read(o.args[0], "file", &data, &len, NULL) < 0)
                data = NULL;

        if (data && playbook_text_is_playbook(data, len))
                return validate_playbook(name, data, len, o.json, o.hosts);
        if (o.hosts)
                return verb_usage_error(v, "--hosts applies to a playbook, and '%s' is a layout", name);
        return validate_layout(name, data, len, o.json, o.check_hosts);
}
