/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The playbook language: YamlNode tree → Playbook, validating everything before anything
 * runs (see docs/playbooks.md). Messages: "NAME:LINE:COL: what is wrong (what was
 * expected)"; a step's own arguments are checked by the step registry. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "playbook-internal.h"
#include "yaml/yaml-schema.h"

#define FK(f, name) yaml_field_key((f), (name))
#define FV(f, name) yaml_field_value((f), (name))

static const char * const section_keys[_PLAYBOOK_SECTION_MAX] = {
        [PLAYBOOK_BEFORE] = "before",
        [PLAYBOOK_PER_HOST] = "per_host",
        [PLAYBOOK_GATE] = "gate",
        [PLAYBOOK_AFTER] = "after",
};
static const char * const strategy_names[_PLAYBOOK_HOSTS_MAX] = { "serial", "batch", "failure-domain" };
static const char * const on_failure_names[_PLAYBOOK_ON_FAILURE_MAX] = { "stop", "continue-other-hosts" };

const char *playbook_section_to_string(PlaybookSection s) {
        return (unsigned) s < _PLAYBOOK_SECTION_MAX ? section_keys[s] : "unknown";
}

const char *playbook_strategy_to_string(PlaybookStrategy s) {
        return (unsigned) s < _PLAYBOOK_HOSTS_MAX ? strategy_names[s] : "unknown";
}

const char *playbook_on_failure_to_string(PlaybookOnFailure f) {
        return (unsigned) f < _PLAYBOOK_ON_FAILURE_MAX ? on_failure_names[f] : "unknown";
}

Playbook *playbook_free(Playbook *pb) {
        if (!pb)
                return NULL;
        for (size_t s = 0; s < _PLAYBOOK_SECTION_MAX; s++) {
                for (size_t i = 0; i < pb->n_steps[s]; i++)
                        json_object_put(pb->steps[s][i].args);
                free(pb->steps[s]);
        }
        free(pb->path);
        free(pb->name);
        free(pb->description);
        free(pb->bucket);
        free(pb);
        return NULL;
}

/* Text that may span lines (a folded `>` description ends in "\n"): no other control
 * characters. */
static int get_text(const YamlCtx *c, const YamlNode *k, const YamlNode *v, char **ret) {
        static const char expected[] = "text";
        int r = yaml_expect_scalar(c, k, v, expected);
        if (r < 0)
                return r;
        for (const char *p = v->value; *p; p++)
                if (((unsigned char) *p < 0x20 && *p != '\n') || *p == 0x7f)
                        return yaml_fail(c, v, "control character in '%s' (expected %s)", YQ(k->value), expected);
        size_t l = strlen(v->value);
        while (l > 0 && v->value[l - 1] == '\n')
                l--;
        if (l == 0)
                return yaml_bad_value(c, k, v, expected);
        char *s = strndup(v->value, l);
        if (!s)
                return yaml_oom(c);
        free(*ret);
        *ret = s;
        return 0;
}

static int parse_hosts(const YamlCtx *c, const YamlNode *k, const YamlNode *v, Playbook *pb) {
        static const char * const keys[] = { "strategy", "batch", "bucket", "canary" };
        YamlFields f;
        int r, e;

        if ((r = yaml_expect_mapping(c, k, v)) < 0)
                return r;
        TRY(yaml_fields_read(c, v, keys, ELEMENTSOF(keys), NULL, &f));
        bool strategy_ok = true;
        if (FV(&f, "strategy")) {
                r = yaml_get_enum(c, FK(&f, "strategy"), FV(&f, "strategy"), strategy_names, ELEMENTSOF(strategy_names), &e);
                if (r >= 0)
                        pb->strategy = (PlaybookStrategy) e;
                strategy_ok = r >= 0;
                TRY(r);
        }
        /* the keys that depend on the strategy are checked against a strategy that is known */
        if (FV(&f, "batch")) {
                if (strategy_ok && pb->strategy != PLAYBOOK_HOSTS_BATCH)
                        TRY(yaml_fail(c, FK(&f, "batch"), "'batch' with strategy '%s' (expected it only with strategy batch)",
                                      strategy_names[pb->strategy]));
                else
                        TRY(yaml_get_uint(c, FK(&f, "batch"), FV(&f, "batch"), 2, 1024, &pb->batch));
        } else if (strategy_ok && pb->strategy == PLAYBOOK_HOSTS_BATCH)
                TRY(yaml_missing(c, v, "batch", "the number of hosts per wave with strategy batch"));
        if (FV(&f, "bucket")) {
                if (strategy_ok && pb->strategy != PLAYBOOK_HOSTS_FAILURE_DOMAIN)
                        TRY(yaml_fail(c, FK(&f, "bucket"), "'bucket' with strategy '%s' (expected it only with strategy failure-domain)",
                                      strategy_names[pb->strategy]));
                else {
                        r = yaml_get_name(c, FK(&f, "bucket"), FV(&f, "bucket"), "_-", 64,
                                          "a CRUSH bucket type such as rack: letters, digits, '_' and '-'", &pb->bucket);
                        if (r >= 0 && streq(pb->bucket, "osd"))
                                r = yaml_bad_value(c, FK(&f, "bucket"), FV(&f, "bucket"), "a CRUSH bucket type holding hosts, such as rack");
                        TRY(r);
                }
        } else if (strategy_ok && pb->strategy == PLAYBOOK_HOSTS_FAILURE_DOMAIN)
                TRY(yaml_missing(c, v, "bucket", "the CRUSH bucket type of the failure domains, such as rack"));
        if (FV(&f, "canary"))
                TRY(yaml_get_bool(c, FK(&f, "canary"), FV(&f, "canary"), &pb->canary));
        return 0;
}

/* "a, b, c" of the registry's entries that pass `pred`. */
static char *names_where(bool (*pred)(const StepEntry *e)) {
        const char *names[64];
        size_t n = 0;
        for (size_t i = 0; i < step_registry_count() && n < ELEMENTSOF(names); i++)
                if (pred(step_registry_get(i)))
                        names[n++] = step_registry_get(i)->name;
        return yaml_join_names(names, n);
}

static bool entry_is_restore(const StepEntry *e) {
        return e->restore;
}

static bool entry_is_wait(const StepEntry *e) {
        return e->concurrency == STEP_CONCURRENCY_WAIT;
}

static int unknown_step(const YamlCtx *c, const YamlNode *v) {
        const char *names[64];
        size_t n = 0;
        for (size_t i = 0; i < step_registry_count() && n < ELEMENTSOF(names); i++)
                names[n++] = step_registry_get(i)->name;
        const char *best = yaml_closest_match(v->value, names, n);
        if (best)
                return yaml_fail(c, v, "unknown step '%s' (did you mean '%s'?)", YQ(v->value), best);
        return yaml_fail(c, v, "unknown step '%s' (expected a step of the registry, see docs/playbooks.md)", YQ(v->value));
}

static int parse_step(const YamlCtx *c, PlaybookSection section, const YamlNode *sk, const YamlNode *item,
                      PlaybookStep *ret) {
        static const char * const keys[] = { "step", "args" };
        const char *sname = section_keys[section];
        YamlFields f;
        int r;

        if (item->type != YAML_NODE_MAPPING) {
                YamlQuoted q;
                return yaml_fail(c, yaml_node_is_null(item) ? sk : item,
                                 "wrong type for an entry of '%s': %s (expected a mapping with 'step')", sname,
                                 yaml_describe(item, &q));
        }
        TRY(yaml_fields_read(c, item, keys, ELEMENTSOF(keys), NULL, &f));
        const YamlNode *v = FV(&f, "step");
        if (!v)
                return yaml_missing(c, item, "step", "the name of a step");
        if ((r = yaml_expect_scalar(c, FK(&f, "step"), v, "the name of a step")) < 0)
                return r;
        const StepEntry *e = step_registry_find(v->value);
        if (!e)
                return unknown_step(c, v);

        if (e->target == STEP_TARGET_HOST && section != PLAYBOOK_PER_HOST)
                return yaml_fail(c, v, "host step '%s' in '%s' (expected it in per_host: host steps run on each host)",
                                 e->name, sname);
        if (section == PLAYBOOK_AFTER && !e->restore) {
                _cleanup_(freep) char *names = names_where(entry_is_restore);
                if (!names)
                        return yaml_oom(c);
                return yaml_fail(c, v, "step '%s' in 'after' (expected a restore step: %s)", e->name, names);
        }
        if (section == PLAYBOOK_GATE && e->concurrency != STEP_CONCURRENCY_WAIT) {
                _cleanup_(freep) char *names = names_where(entry_is_wait);
                if (!names)
                        return yaml_oom(c);
                return yaml_fail(c, v, "step '%s' in 'gate' (expected a wait step: %s)", e->name, names);
        }

        const YamlNode *args = FV(&f, "args");
        if (args && args->type != YAML_NODE_MAPPING && !yaml_node_is_null(args))
                return yaml_wrong_type(c, FK(&f, "args"), args, "a mapping of argument names to values");
        json_object *j = NULL;
        StepScope scope = section == PLAYBOOK_PER_HOST ? STEP_SCOPE_HOST : STEP_SCOPE_CLUSTER;
        r = c->all_errors ? step_args_to_json_all(e, args, item->mark, c->name, scope, c->diags, &j, c->err)
                          : step_args_to_json(e, args, item->mark, c->name, scope, &j, c->err);
        if (r < 0)
                return r;
        *ret = (PlaybookStep) { .entry = e, .args = j, .mark = item->mark };
        return 0;
}

static int parse_section(const YamlCtx *c, PlaybookSection section, const YamlNode *k, const YamlNode *v, Playbook *pb) {
        if (v->type != YAML_NODE_SEQUENCE)
                return yaml_wrong_type(c, k, v, "a list of steps");
        if (v->n_children == 0 && section == PLAYBOOK_PER_HOST)
                return yaml_fail(c, v, "empty list 'per_host' (expected at least one step)");
        pb->steps[section] = calloc(v->n_children ? v->n_children : 1, sizeof(PlaybookStep));
        if (!pb->steps[section])
                return yaml_oom(c);
        for (size_t i = 0; i < v->n_children; i++) {
                /* an invalid step is left out; with every error collected the next one is
                 * still checked */
                int r = parse_step(c, section, k, v->children[i], &pb->steps[section][pb->n_steps[section]]);
                if (r >= 0)
                        pb->n_steps[section]++;
                TRY(r);
        }
        return 0;
}

static const char *arg_string(const PlaybookStep *s, const char *name) {
        json_object *j;
        return json_object_object_get_ex(s->args, name, &j) && json_object_is_type(j, json_type_string)
                ? json_object_get_string(j) : NULL;
}

/* Whether `undo` undoes `s`: the same flag and scope for flags. */
static bool undoes(const PlaybookStep *s, const PlaybookStep *undo, const char *undo_name) {
        if (!streq(undo->entry->name, undo_name))
                return false;
        if (!streq(undo_name, "unset-flag"))
                return true;
        return streq_ptr(arg_string(s, "flag"), arg_string(undo, "flag")) &&
               streq_ptr(arg_string(s, "scope"), arg_string(undo, "scope"));
}

/* Every step that changes a setting for the run's sake is undone later in its own section
 * or in `after` (which also runs after a failure or cancel). */
static int check_undone(const YamlCtx *c, const Playbook *pb) {
        static const struct {
                const char *step, *undo;
        } pairs[] = {
                { "set-flag", "unset-flag" },
                { "pause-balancer", "restore-balancer" },
                { "pause-autoscaler", "restore-autoscaler" },
                { "throttle", "restore-throttle" },
        };
        for (size_t sec = 0; sec < _PLAYBOOK_SECTION_MAX; sec++)
                for (size_t i = 0; i < pb->n_steps[sec]; i++) {
                        const PlaybookStep *s = &pb->steps[sec][i];
                        for (size_t p = 0; p < ELEMENTSOF(pairs); p++) {
                                if (!streq(s->entry->name, pairs[p].step))
                                        continue;
                                bool found = false;
                                for (size_t j = i + 1; !found && j < pb->n_steps[sec]; j++)
                                        found = undoes(s, &pb->steps[sec][j], pairs[p].undo);
                                for (size_t j = 0; !found && j < pb->n_steps[PLAYBOOK_AFTER]; j++)
                                        found = undoes(s, &pb->steps[PLAYBOOK_AFTER][j], pairs[p].undo);
                                if (found)
                                        continue;
                                if (streq(pairs[p].step, "set-flag"))
                                        TRY(yaml_fail_at(c, s->mark,
                                                         "step 'set-flag' (flag %s, scope %s) is never undone (expected 'unset-flag' with "
                                                         "the same flag and scope after it in '%s', or in 'after')",
                                                         arg_string(s, "flag"), arg_string(s, "scope"), section_keys[sec]));
                                else
                                        TRY(yaml_fail_at(c, s->mark,
                                                         "step '%s' is never undone (expected '%s' after it in '%s', or in 'after')",
                                                         pairs[p].step, pairs[p].undo, section_keys[sec]));
                        }
                }
        return 0;
}

/* A missing key, unless the mapping has an unknown key that is its typo: that one was
 * reported already with "did you mean", and once is enough. */
static int missing_key(const YamlCtx *c, const YamlNode *map, const char * const *keys, size_t n, const char *key,
                       const char *expected) {
        for (size_t i = 0; i + 1 < map->n_children; i += 2) {
                const char *k = map->children[i]->value;
                bool known = false;
                for (size_t j = 0; j < n && !known; j++)
                        known = streq(k, keys[j]);
                if (!known && c->all_errors && streq_ptr(yaml_closest_match(k, keys, n), key))
                        return 0;
        }
        return yaml_missing(c, map, key, expected);
}

static int playbook_walk(const YamlCtx *c, const YamlNode *root, Playbook *pb) {
        static const char * const keys[] = {
                "playbook", "description", "destructive", "hosts", "before", "per_host", "gate", "after", "on_failure",
        };
        YamlFields f;
        int r, e;

        TRY(yaml_fields_read(c, root, keys, ELEMENTSOF(keys), NULL, &f));
        if (!FV(&f, "playbook"))
                TRY(missing_key(c, root, keys, ELEMENTSOF(keys), "playbook", "the playbook's name"));
        if (!FV(&f, "per_host"))
                TRY(missing_key(c, root, keys, ELEMENTSOF(keys), "per_host", "the list of steps each host runs"));

        if (FV(&f, "playbook"))
                TRY(yaml_get_name(c, FK(&f, "playbook"), FV(&f, "playbook"), "._-", 64,
                                  "a name: letters, digits, '.', '_' and '-'", &pb->name));
        if (FV(&f, "description"))
                TRY(get_text(c, FK(&f, "description"), FV(&f, "description"), &pb->description));
        bool destructive_ok = true;
        if (FV(&f, "destructive")) {
                r = yaml_get_bool(c, FK(&f, "destructive"), FV(&f, "destructive"), &pb->destructive);
                destructive_ok = r >= 0;
                TRY(r);
        }
        if (FV(&f, "hosts"))
                TRY(parse_hosts(c, FK(&f, "hosts"), FV(&f, "hosts"), pb));
        for (size_t s = 0; s < _PLAYBOOK_SECTION_MAX; s++)
                if (FV(&f, section_keys[s]))
                        TRY(parse_section(c, (PlaybookSection) s, FK(&f, section_keys[s]), FV(&f, section_keys[s]), pb));
        if (FV(&f, "on_failure")) {
                r = yaml_get_enum(c, FK(&f, "on_failure"), FV(&f, "on_failure"), on_failure_names,
                                  ELEMENTSOF(on_failure_names), &e);
                if (r >= 0)
                        pb->on_failure = (PlaybookOnFailure) e;
                TRY(r);
        }

        /* A step that loses data for good needs the playbook to say so, so that the engine
         * asks (or needs --yes) before it runs. */
        if (!pb->destructive && destructive_ok)
                for (size_t s = 0; s < _PLAYBOOK_SECTION_MAX; s++)
                        for (size_t i = 0; i < pb->n_steps[s]; i++)
                                if (pb->steps[s][i].entry->destructive)
                                        TRY(yaml_fail_at(c, pb->steps[s][i].mark,
                                                         "step '%s' destroys data, and the playbook does not say so "
                                                         "(expected 'destructive: true' at the top level)",
                                                         pb->steps[s][i].entry->name));
        return check_undone(c, pb);
}

static int playbook_from_tree(const char *name, const YamlNode *root, bool all_errors, YamlDiags *diags, Playbook **ret,
                              Error *err) {
        _cleanup_(yaml_diags_done) YamlDiags local = {};
        YamlCtx ctx = { .name = name, .err = err, .diags = diags ?: &local, .all_errors = all_errors }, *c = &ctx;
        int r;

        if (!root || yaml_node_is_null(root))
                return yaml_fail_at(c, (YamlMark) { 1, 1 }, "empty playbook (expected a mapping with 'playbook' and 'per_host')");
        if (root->type != YAML_NODE_MAPPING) {
                YamlQuoted q;
                return yaml_fail(c, root, "wrong type for the playbook: %s (expected a mapping with 'playbook' and 'per_host')",
                                 yaml_describe(root, &q));
        }

        _cleanup_(playbook_freep) Playbook *pb = calloc(1, sizeof(Playbook));
        if (!pb)
                return yaml_oom(c);
        pb->batch = 1;

        r = playbook_walk(c, root, pb);
        if (r == -ENOMEM)
                return r;
        yaml_diags_sort(c->diags);
        if (r < 0)
                return r;
        if (c->diags->n_errors > 0)
                /* The first in file order is the one the single-error form reports. */
                for (size_t i = 0; i < c->diags->n; i++)
                        if (!c->diags->items[i].warning) {
                                error_reset(err);
                                return error_set(err, EINVAL, "%s:%u:%u: %s", name, c->diags->items[i].mark.line,
                                                 c->diags->items[i].mark.column, c->diags->items[i].message);
                        }

        *ret = TAKE_PTR(pb);
        return 0;
}

static int load_string(const char *name, const char *data, size_t len, bool all, YamlDiags *diags, Playbook **ret,
                       Error *err) {
        _cleanup_(yaml_node_freep) YamlNode *root = NULL;
        int r;

        if (!name)
                name = "<string>";
        r = yaml_tree_load(name, data, len, "playbook", &root, err);
        if (r < 0)
                return r;
        return playbook_from_tree(name, root, all, diags, ret, err);
}

int playbook_load_string(const char *name, const char *data, size_t len, Playbook **ret, Error *err) {
        /* the whole file is checked, so that the error reported is the first in file order
         * (as validate lists them), not the first the walk met */
        return load_string(name, data, len, true, NULL, ret, err);
}

int playbook_load_string_all(const char *name, const char *data, size_t len, Playbook **ret, YamlDiags *diags,
                             Error *err) {
        return load_string(name, data, len, true, diags, ret, err);
}

int playbook_load(const char *path, Playbook **ret, Error *err) {
        _cleanup_(freep) char *data = NULL;
        size_t len;
        int r;

        r = yaml_file_read(path, "playbook", &data, &len, err);
        if (r < 0)
                return r;
        _cleanup_(playbook_freep) Playbook *pb = NULL;
        r = playbook_load_string(path, data, len, &pb, err);
        if (r < 0)
                return r;
        pb->path = strdup(path);
        if (!pb->path)
                return error_set(err, ENOMEM, "cannot load playbook '%s': out of memory", path);
        *ret = TAKE_PTR(pb);
        return 0;
}

bool playbook_text_is_playbook(const char *data, size_t len) {
        _cleanup_(yaml_node_freep) YamlNode *root = NULL;
        if (yaml_tree_load("-", data, len, "playbook", &root, NULL) >= 0)
                return yaml_node_get(root, "playbook") != NULL;
        /* Not valid YAML: the playbook parser reports that as well as the layout parser
         * would, and a playbook is what the text says at the start of a line. */
        for (size_t i = 0; i < len; i++)
                if ((i == 0 || data[i - 1] == '\n') && len - i >= 9 && memcmp(data + i, "playbook:", 9) == 0)
                        return true;
        return false;
}

json_object *playbook_step_to_json(const PlaybookStep *s, json_object *args) {
        _cleanup_json_ json_object *j = json_object_new_object();
        json_object *a = NULL;
        if (!j || json_add_string(j, "step", s->entry->name) < 0 ||
            json_add_string(j, "target", step_target_to_string(s->entry->target)) < 0 ||
            json_object_deep_copy(args ?: s->args, &a, NULL) < 0 || json_add(j, "args", a) < 0)
                return NULL;
        return TAKE_PTR(j);
}

int playbook_to_json(const Playbook *pb, json_object **ret) {
        _cleanup_json_ json_object *j = json_object_new_object(), *hosts = json_object_new_object();
        if (!j || !hosts || json_add_string(j, "playbook", pb->name) < 0 ||
            json_add_string(j, "description", pb->description) < 0 ||
            json_add_bool(j, "destructive", pb->destructive) < 0 ||
            json_add_string(hosts, "strategy", playbook_strategy_to_string(pb->strategy)) < 0 ||
            json_add_u64(hosts, "batch", pb->batch) < 0 || json_add_string(hosts, "bucket", pb->bucket) < 0 ||
            json_add_bool(hosts, "canary", pb->canary) < 0 || json_add(j, "hosts", TAKE_PTR(hosts)) < 0 ||
            json_add_string(j, "on_failure", playbook_on_failure_to_string(pb->on_failure)) < 0)
                return -ENOMEM;
        for (size_t s = 0; s < _PLAYBOOK_SECTION_MAX; s++) {
                json_object *arr = json_object_new_array();
                if (!arr || json_add(j, section_keys[s], arr) < 0)
                        return -ENOMEM;
                for (size_t i = 0; i < pb->n_steps[s]; i++) {
                        json_object *st = playbook_step_to_json(&pb->steps[s][i], NULL);
                        if (!st || json_add_u64(st, "line", pb->steps[s][i].mark.line) < 0 ||
                            json_object_array_add(arr, st) < 0) {
                                json_object_put(st);
                                return -ENOMEM;
                        }
                }
        }
        *ret = TAKE_PTR(j);
        return 0;
}
