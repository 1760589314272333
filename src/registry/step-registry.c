/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lookups, argument validation and the JSON form of step arguments (see step-registry.h).
 * The table itself is step-table.c. */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/size.h"
#include "basic/strv.h"
#include "registry-internal.h"

const char * const step_osd_flags[] = {
        "noout", "norebalance", "nobackfill", "norecover", "noup", "nodown", "noin", "noscrub", "nodeep-scrub", NULL,
};

/* OSDMonitor's "osd set-group" takes only these (per CRUSH node or device class). */
bool step_osd_flag_groupable(const char *flag) {
        return flag && (streq(flag, "noup") || streq(flag, "nodown") || streq(flag, "noin") || streq(flag, "noout"));
}

size_t step_registry_count(void) {
        return step_table_size;
}

const StepEntry *step_registry_get(size_t i) {
        return i < step_table_size ? &step_table[i] : NULL;
}

const StepEntry *step_registry_find(const char *name) {
        if (!name)
                return NULL;
        for (size_t i = 0; i < step_table_size; i++)
                if (streq(step_table[i].name, name))
                        return &step_table[i];
        return NULL;
}

const StepArgSpec *step_entry_find_arg(const StepEntry *e, const char *name) {
        if (!e || !name)
                return NULL;
        for (const StepArgSpec *a = e->args; a->name; a++)
                if (streq(a->name, name))
                        return a;
        return NULL;
}

const char *step_target_to_string(StepTarget t) {
        switch (t) {
        case STEP_TARGET_HOST: return "host";
        case STEP_TARGET_CLUSTER: return "cluster";
        default: return "unknown";
        }
}

const char *step_concurrency_to_string(StepConcurrency c) {
        switch (c) {
        case STEP_CONCURRENCY_DEVICE_EXCLUSIVE: return "per-device-exclusive";
        case STEP_CONCURRENCY_HOST_SERIAL: return "per-host-serial";
        case STEP_CONCURRENCY_OSD_PARALLEL: return "osd-parallel";
        case STEP_CONCURRENCY_CLUSTER_SERIAL: return "cluster-serial";
        case STEP_CONCURRENCY_WAIT: return "wait";
        default: return "unknown";
        }
}

const char *step_arg_type_to_string(StepArgType t) {
        switch (t) {
        case STEP_ARG_STRING: return "string";
        case STEP_ARG_STRING_LIST: return "string-list";
        case STEP_ARG_INT: return "int";
        case STEP_ARG_UINT: return "uint";
        case STEP_ARG_NUMBER: return "number";
        case STEP_ARG_SIZE: return "size";
        case STEP_ARG_BOOL: return "bool";
        case STEP_ARG_DURATION: return "duration";
        case STEP_ARG_ENUM: return "enum";
        case STEP_ARG_OSD_IDS: return "osd-ids";
        case STEP_ARG_FLAG: return "flag";
        default: return "unknown";
        }
}

/* ---- references ---------------------------------------------------------------------- */

typedef struct StepRef {
        const char *text;
        StepArgType type;
        bool per_host;          /* a fact of the host the step runs for, not of the run */
        const char *what;
} StepRef;

static const StepRef step_refs[] = {
        { "${host}", STEP_ARG_STRING, true, "the host's name" },
        { "${host.osds}", STEP_ARG_OSD_IDS, true, "the ids of the host's OSDs" },
        { "${hosts}", STEP_ARG_STRING_LIST, false, "the names of every host of the run" },
};

static const StepRef *ref_find(const char *s) {
        for (size_t i = 0; i < ELEMENTSOF(step_refs); i++)
                if (streq(step_refs[i].text, s))
                        return &step_refs[i];
        return NULL;
}

bool step_ref_is_valid(const char *s) {
        return s && ref_find(s);
}

/* ---- validation ---------------------------------------------------------------------- */

static unsigned count_values(const char * const *values) {
        unsigned n = 0;
        while (values && values[n])
                n++;
        return n;
}

/* What a value of the spec's type looks like, for messages. */
static const char *expected_text(const StepArgSpec *a, char *buf, size_t len) {
        switch (a->type) {
        case STEP_ARG_STRING:
                return "text";
        case STEP_ARG_STRING_LIST:
                return "a list of text values";
        case STEP_ARG_INT:
        case STEP_ARG_UINT:
                if (a->min != 0 || a->max != 0)
                        snprintf(buf, len, "an integer from %.0f to %.0f", a->min, a->max);
                else
                        snprintf(buf, len, "%s", a->type == STEP_ARG_INT ? "an integer" : "an integer from 0");
                return buf;
        case STEP_ARG_NUMBER:
                snprintf(buf, len, "a number from %g to %g", a->min, a->max);
                return buf;
        case STEP_ARG_SIZE:
                return "a size such as 4K or 30G";
        case STEP_ARG_BOOL:
                return "true or false";
        case STEP_ARG_DURATION:
                return "a duration such as 90s, 30m or 6h";
        case STEP_ARG_ENUM:
        case STEP_ARG_FLAG: {
                const char * const *values = a->type == STEP_ARG_FLAG ? step_osd_flags : a->values;
                size_t o = (size_t) snprintf(buf, len, "one of: ");
                for (unsigned i = 0; values[i] && o < len; i++)
                        o += (size_t) snprintf(buf + o, len - o, "%s%s", i ? ", " : "", values[i]);
                return buf;
        }
        case STEP_ARG_OSD_IDS:
                return "a list of OSD ids such as [3, 7]";
        default:
                return "a value";
        }
}

/* A scalar that looks like a reference: "${...}" anywhere. */
static bool looks_like_ref(const YamlNode *v) {
        return v->type == YAML_NODE_SCALAR && strstr(v->value, "${");
}

static int parse_ref(const YamlCtx *c, const StepArgSpec *a, const YamlNode *k, const YamlNode *v, StepScope scope,
                     bool is_default, json_object **ret) {
        char buf[256];
        const StepRef *ref = ref_find(v->value);
        if (!ref) {
                YamlQuoted q;
                return yaml_fail(c, v, "unknown reference %s for '%s' (expected ${host}, ${host.osds} or ${hosts} as the whole value)",
                                 yaml_describe(v, &q), YQ(k->value));
        }
        if (ref->type != a->type)
                return yaml_fail(c, v, "reference '%s' is %s, not %s (for '%s')", ref->text, ref->what,
                                 expected_text(a, buf, sizeof buf), YQ(k->value));
        if (ref->per_host && scope != STEP_SCOPE_HOST) {
                if (is_default)
                        return yaml_fail(c, k, "missing argument '%s': its default '%s' is %s, and this step runs for no host "
                                         "(expected '%s' in args, or the step in per_host)",
                                         a->name, ref->text, ref->what, a->name);
                return yaml_fail(c, v, "reference '%s' where the step runs for no host (expected it only in per_host)",
                                 ref->text);
        }
        *ret = json_object_new_string(ref->text);
        return *ret ? 0 : yaml_oom(c);
}

static int parse_int(const YamlCtx *c, const StepArgSpec *a, const YamlNode *k, const YamlNode *v, json_object **ret) {
        char expected[128];
        expected_text(a, expected, sizeof expected);
        int r = yaml_expect_scalar(c, k, v, expected);
        if (r < 0)
                return r;
        const char *s = v->value;
        bool neg = a->type == STEP_ARG_INT && s[0] == '-';
        uint64_t u;
        if (!v->plain || yaml_parse_uint(s + neg, &u) < 0 || u > (uint64_t) INT64_MAX)
                return yaml_bad_value(c, k, v, expected);
        double d = neg ? -(double) u : (double) u;
        int64_t i = neg ? -(int64_t) u : (int64_t) u;
        if ((a->min != 0 || a->max != 0) && (d < a->min || d > a->max))
                return yaml_bad_value(c, k, v, expected);
        *ret = json_object_new_int64(i);
        return *ret ? 0 : yaml_oom(c);
}

static int parse_size(const YamlCtx *c, const StepArgSpec *a, const YamlNode *k, const YamlNode *v, json_object **ret) {
        char expected[128];
        snprintf(expected, sizeof expected, "%s", "a size such as 4K or 30G");
        int r = yaml_expect_scalar(c, k, v, expected);
        if (r < 0)
                return r;
        uint64_t b;
        if (size_parse(v->value, &b) < 0 || v->value[0] == ' ' || b > (uint64_t) INT64_MAX)
                return yaml_bad_value(c, k, v, expected);
        if ((a->min != 0 || a->max != 0) && ((double) b < a->min || (a->max != 0 && (double) b > a->max))) {
                char lo[SIZE_FORMAT_MAX], hi[SIZE_FORMAT_MAX];
                if (a->max != 0)
                        snprintf(expected, sizeof expected, "a size from %s to %s",
                                 size_format((uint64_t) a->min, lo, sizeof lo), size_format((uint64_t) a->max, hi, sizeof hi));
                else
                        snprintf(expected, sizeof expected, "a size of at least %s", size_format((uint64_t) a->min, lo, sizeof lo));
                return yaml_bad_value(c, k, v, expected);
        }
        *ret = json_object_new_int64((int64_t) b);
        return *ret ? 0 : yaml_oom(c);
}

static int parse_osd_ids(const YamlCtx *c, const YamlNode *k, const YamlNode *v, json_object **ret) {
        static const char expected[] = "a list of OSD ids such as [3, 7]";
        if (v->type != YAML_NODE_SEQUENCE)
                return yaml_wrong_type(c, k, v, expected);
        if (v->n_children == 0)
                return yaml_fail(c, v, "empty list '%s' (expected at least one OSD id)", YQ(k->value));
        _cleanup_json_ json_object *arr = json_object_new_array();
        if (!arr)
                return yaml_oom(c);
        for (size_t i = 0; i < v->n_children; i++) {
                const YamlNode *it = v->children[i];
                unsigned id;
                if (it->type != YAML_NODE_SCALAR || yaml_node_is_null(it)) {
                        YamlQuoted q;
                        return yaml_fail(c, yaml_node_is_null(it) ? v : it,
                                         "wrong type for an entry of '%s': %s (expected an OSD id from 0 to 2147483647)",
                                         YQ(k->value), yaml_describe(it, &q));
                }
                int r = yaml_get_uint(c, k, it, 0, 2147483647, &id);
                if (r < 0)
                        return r;
                for (size_t j = 0; j < i; j++)
                        if (streq(v->children[j]->value, it->value))
                                return yaml_fail(c, it, "duplicate OSD id %u in '%s' (first given at line %u, column %u)", id,
                                                 YQ(k->value), v->children[j]->mark.line, v->children[j]->mark.column);
                json_object *jid = json_object_new_int64(id);
                if (!jid || json_object_array_add(arr, jid) < 0) {
                        json_object_put(jid);
                        return yaml_oom(c);
                }
        }
        *ret = TAKE_PTR(arr);
        return 0;
}

static int parse_string_list(const YamlCtx *c, const YamlNode *k, const YamlNode *v, json_object **ret) {
        if (v->type != YAML_NODE_SEQUENCE)
                return yaml_wrong_type(c, k, v, "a list of text values");
        _cleanup_json_ json_object *arr = json_object_new_array();
        if (!arr)
                return yaml_oom(c);
        for (size_t i = 0; i < v->n_children; i++) {
                const YamlNode *it = v->children[i];
                _cleanup_(freep) char *s = NULL;
                if (it->type != YAML_NODE_SCALAR || yaml_node_is_null(it)) {
                        YamlQuoted q;
                        return yaml_fail(c, yaml_node_is_null(it) ? v : it, "wrong type for an entry of '%s': %s (expected text)",
                                         YQ(k->value), yaml_describe(it, &q));
                }
                int r = yaml_get_string(c, k, it, "text", &s);
                if (r < 0)
                        return r;
                for (size_t j = 0; j < i; j++)
                        if (streq(v->children[j]->value, it->value))
                                return yaml_fail(c, it, "duplicate entry '%s' in '%s' (first given at line %u, column %u)",
                                                 YQ(it->value), YQ(k->value), v->children[j]->mark.line,
                                                 v->children[j]->mark.column);
                json_object *js = json_object_new_string(s);
                if (!js || json_object_array_add(arr, js) < 0) {
                        json_object_put(js);
                        return yaml_oom(c);
                }
        }
        *ret = TAKE_PTR(arr);
        return 0;
}

/* One argument's value → JSON. `is_default`: v is the spec's default text. */
static int parse_value(const YamlCtx *c, const StepArgSpec *a, const YamlNode *k, const YamlNode *v, StepScope scope,
                       bool is_default, json_object **ret) {
        char expected[256];
        int r, e;

        if (looks_like_ref(v))
                return parse_ref(c, a, k, v, scope, is_default, ret);

        switch (a->type) {
        case STEP_ARG_STRING: {
                _cleanup_(freep) char *s = NULL;
                r = yaml_get_string(c, k, v, "text", &s);
                if (r < 0)
                        return r;
                *ret = json_object_new_string(s);
                break;
        }
        case STEP_ARG_STRING_LIST:
                return parse_string_list(c, k, v, ret);
        case STEP_ARG_INT:
        case STEP_ARG_UINT:
                return parse_int(c, a, k, v, ret);
        case STEP_ARG_NUMBER: {
                double d;
                r = yaml_get_float(c, k, v, a->min, a->max, &d);
                if (r < 0)
                        return r;
                *ret = json_object_new_double(d);
                break;
        }
        case STEP_ARG_SIZE:
                return parse_size(c, a, k, v, ret);
        case STEP_ARG_BOOL: {
                bool b;
                r = yaml_get_bool(c, k, v, &b);
                if (r < 0)
                        return r;
                *ret = json_object_new_boolean(b);
                break;
        }
        case STEP_ARG_DURATION: {
                unsigned s;
                r = yaml_get_duration(c, k, v, &s);
                if (r < 0)
                        return r;
                if ((a->min != 0 || a->max != 0) && (s < a->min || s > a->max)) {
                        snprintf(expected, sizeof expected, "a duration from %.0fs to %.0fs", a->min, a->max);
                        return yaml_bad_value(c, k, v, expected);
                }
                *ret = json_object_new_int64(s);
                break;
        }
        case STEP_ARG_ENUM:
        case STEP_ARG_FLAG: {
                const char * const *values = a->type == STEP_ARG_FLAG ? step_osd_flags : a->values;
                r = yaml_get_enum(c, k, v, values, count_values(values), &e);
                if (r < 0)
                        return r;
                *ret = json_object_new_string(values[e]);
                break;
        }
        case STEP_ARG_OSD_IDS:
                return parse_osd_ids(c, k, v, ret);
        default:
                abort(); /* a programming error: a type without a parser */
        }
        return *ret ? 0 : yaml_oom(c);
}

/* An unknown argument of args whose closest name is `name`: its typo. */
static bool typo_given(const YamlNode *args, const char * const *names, size_t n, const char *name) {
        for (size_t i = 0; args && i + 1 < args->n_children; i += 2) {
                const char *k = args->children[i]->value;
                bool known = false;
                for (size_t j = 0; j < n && !known; j++)
                        known = streq(k, names[j]);
                if (!known && streq_ptr(yaml_closest_match(k, names, n), name))
                        return true;
        }
        return false;
}

/* With diags, every error is recorded there and the walk goes on (yaml_keep_going). */
static int args_parse(const StepEntry *e, const YamlNode *args, YamlMark at, const char *file, StepScope scope,
                      YamlDiags *diags, json_object **ret, Error *err) {
        char prefix[128];
        const char *names[YAML_FIELDS_MAX];
        size_t n = 0;
        int r;

        snprintf(prefix, sizeof prefix, "step '%s': ", e->name);
        YamlCtx ctx = { .name = file ?: "<string>", .err = err, .prefix = prefix, .diags = diags, .all_errors = diags },
                *c = &ctx;
        size_t errors_before = diags ? diags->n_errors : 0;

        for (const StepArgSpec *a = e->args; a->name; a++) {
                if (n >= ELEMENTSOF(names))
                        abort(); /* a programming error: too many arguments */
                names[n++] = a->name;
        }

        if (args && yaml_node_is_null(args))
                args = NULL; /* "args:" with nothing after it: none given */
        if (args && args->type != YAML_NODE_MAPPING) {
                YamlQuoted q;
                return yaml_fail(c, args, "wrong type for the arguments: %s (expected a mapping of argument names to values)",
                                 yaml_describe(args, &q));
        }

        YamlFields f = { .names = names, .n = n };
        if (args && (r = yaml_keep_going(c, yaml_fields_read(c, args, names, n, "argument", &f))) < 0)
                return r;

        _cleanup_json_ json_object *values = json_object_new_object();
        if (!values)
                return yaml_oom(c);

        for (size_t i = 0; i < n; i++) {
                const StepArgSpec *a = &e->args[i];
                json_object *j = NULL;
                if (f.value[i]) {
                        r = parse_value(c, a, f.key[i], f.value[i], scope, false, &j);
                } else if (a->def) {
                        /* The default is parsed like a value written where the step is, so a
                         * default that needs a host is reported there. */
                        YamlNode key = { .type = YAML_NODE_SCALAR, .mark = at, .value = (char *) a->name, .plain = true };
                        YamlNode def = { .type = YAML_NODE_SCALAR, .mark = at, .value = (char *) a->def, .plain = true };
                        r = parse_value(c, a, &key, &def, scope, true, &j);
                } else if (a->required) {
                        char buf[256];
                        if (diags && typo_given(args, names, n, a->name))
                                continue; /* "unknown argument ... (did you mean ...)" says it */
                        r = yaml_fail_at(c, args ? args->mark : at, "missing argument '%s' (expected %s: %s)", a->name,
                                         expected_text(a, buf, sizeof buf), a->doc);
                } else
                        continue;
                if (r < 0) {
                        if ((r = yaml_keep_going(c, r)) < 0)
                                return r;
                        continue;
                }
                if (json_add(values, a->name, j) < 0)
                        return yaml_oom(c);
        }

        /* the checks between arguments need every argument: only when each one was valid */
        if (diags && diags->n_errors > errors_before)
                return -EINVAL;
        if (e->check && (r = e->check(c, args, at, scope, values)) < 0)
                return r;
        if (ret)
                *ret = TAKE_PTR(values);
        return 0;
}

int step_args_validate(const StepEntry *e, const YamlNode *args, YamlMark at, const char *file, StepScope scope,
                       Error *err) {
        return args_parse(e, args, at, file, scope, NULL, NULL, err);
}

int step_args_to_json(const StepEntry *e, const YamlNode *args, YamlMark at, const char *file, StepScope scope,
                      json_object **ret, Error *err) {
        return args_parse(e, args, at, file, scope, NULL, ret, err);
}

int step_args_to_json_all(const StepEntry *e, const YamlNode *args, YamlMark at, const char *file, StepScope scope,
                          YamlDiags *diags, json_object **ret, Error *err) {
        return args_parse(e, args, at, file, scope, diags, ret, err);
}

/* ---- checks between arguments -------------------------------------------------------- */

/* The key node of argument `name` in args, or NULL. */
static const YamlNode *arg_key(const YamlNode *args, const char *name) {
        if (!args || args->type != YAML_NODE_MAPPING)
                return NULL;
        for (size_t i = 0; i + 1 < args->n_children; i += 2)
                if (streq(args->children[i]->value, name))
                        return args->children[i];
        return NULL;
}

static bool value_bool(json_object *values, const char *name) {
        json_object *j;
        return json_object_object_get_ex(values, name, &j) && json_object_get_boolean(j);
}

static const char *value_string(json_object *values, const char *name) {
        json_object *j;
        return json_object_object_get_ex(values, name, &j) ? json_object_get_string(j) : NULL;
}

/* Exactly one of `one` (a path) or `owned: true`. */
static int check_one_or_owned(const YamlCtx *c, const YamlNode *args, YamlMark at, json_object *values,
                              const char *one) {
        bool has_one = value_string(values, one), owned = value_bool(values, "owned");
        if (has_one && owned)
                return yaml_fail(c, arg_key(args, "owned"), "'%s' and 'owned: true' together (expected one of them)", one);
        if (!has_one && !owned)
                return yaml_fail_at(c, args ? args->mark : at, "missing argument '%s' (expected '%s', or 'owned: true')", one, one);
        return 0;
}

int step_check_wipe(const YamlCtx *c, const YamlNode *args, YamlMark at, StepScope scope, json_object *values) {
        return check_one_or_owned(c, args, at, values, "device");
}

int step_check_teardown(const YamlCtx *c, const YamlNode *args, YamlMark at, StepScope scope, json_object *values) {
        return check_one_or_owned(c, args, at, values, "backing");
}

static int check_flag(const YamlCtx *c, const YamlNode *args, StepScope scope, json_object *values, bool unset) {
        const char *flag = value_string(values, "flag"), *sc = value_string(values, "scope");
        if (!sc || !streq(sc, "host"))
                return 0;
        if (!step_osd_flag_groupable(flag))
                return yaml_fail(c, yaml_node_get(args, "flag"),
                                 "flag '%s' cannot be host-scoped (expected noup, nodown, noin or noout, which osd set-group takes, "
                                 "or scope cluster)", flag);
        /* unset-flag with scope host in before/gate/after: on every host a record says
         * cephprov set the flag on (what a failed or killed run left too) */
        if (unset && scope != STEP_SCOPE_HOST)
                return 0;
        if (scope != STEP_SCOPE_HOST)
                return yaml_fail(c, yaml_node_get(args, "scope"),
                                 "scope 'host' where the step runs for no host (expected it only in per_host, or scope cluster)");
        /* The host a host-scoped flag is set on is the one the step runs for. */
        json_object *h = json_object_new_string("${host}");
        return h && json_add(values, "host", h) >= 0 ? 0 : yaml_oom(c);
}

int step_check_flag(const YamlCtx *c, const YamlNode *args, YamlMark at, StepScope scope, json_object *values) {
        return check_flag(c, args, scope, values, false);
}

int step_check_unset_flag(const YamlCtx *c, const YamlNode *args, YamlMark at, StepScope scope, json_object *values) {
        return check_flag(c, args, scope, values, true);
}

int step_check_throttle(const YamlCtx *c, const YamlNode *args, YamlMark at, StepScope scope, json_object *values) {
        static const char * const knobs[] = { "osd_max_backfills", "osd_recovery_max_active", "osd_recovery_max_single_start" };
        const char *preset = value_string(values, "preset");
        if (!preset || !streq(preset, "custom"))
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(knobs); i++)
                if (!json_object_object_get_ex(values, knobs[i], NULL))
                        return yaml_fail(c, yaml_node_get(args, "preset"),
                                         "preset 'custom' without '%s' (expected osd_max_backfills, osd_recovery_max_active "
                                         "and osd_recovery_max_single_start with it)", knobs[i]);
        return 0;
}

/* ---- references filled in ------------------------------------------------------------ */

int step_args_substitute(const StepEntry *e, json_object *args, const StepFacts *facts, json_object **ret,
                         Error *err) {
        _cleanup_json_ json_object *out = json_object_new_object();
        if (!out)
                return error_set(err, ENOMEM, "step '%s': out of memory", e->name);

        json_object_object_foreach(args, key, val) {
                json_object *n = NULL;
                const StepRef *ref = json_object_is_type(val, json_type_string) ? ref_find(json_object_get_string(val)) : NULL;
                if (!ref) {
                        if (json_object_deep_copy(val, &n, NULL) < 0)
                                return error_set(err, ENOMEM, "step '%s': out of memory", e->name);
                } else if (!facts)
                        return error_set(err, EINVAL, "step '%s': argument '%s' refers to %s, and the step runs for no host",
                                         e->name, key, ref->text);
                else if (ref->type == STEP_ARG_STRING_LIST) {
                        if (!facts->hosts)
                                return error_set(err, EINVAL, "step '%s': argument '%s' refers to ${hosts}, which is not known",
                                                 e->name, key);
                        n = json_array_new_strv(facts->hosts);
                } else if (ref->type == STEP_ARG_STRING) {
                        if (!facts->host)
                                return error_set(err, EINVAL, "step '%s': argument '%s' refers to ${host}, which is not known",
                                                 e->name, key);
                        n = json_object_new_string(facts->host);
                } else {
                        if (facts->n_osds == 0)
                                return error_set(err, EINVAL, "step '%s': argument '%s' refers to the OSDs of host '%s', "
                                                 "which has none", e->name, key, facts->host ?: "?");
                        n = json_object_new_array();
                        for (size_t i = 0; n && i < facts->n_osds; i++) {
                                json_object *id = json_object_new_int64(facts->osds[i]);
                                if (!id || json_object_array_add(n, id) < 0) {
                                        json_object_put(id);
                                        json_object_put(n);
                                        n = NULL;
                                }
                        }
                }
                if (!n || json_add(out, key, n) < 0)
                        return error_set(err, ENOMEM, "step '%s': out of memory", e->name);
        }
        *ret = TAKE_PTR(out);
        return 0;
}

/* ---- the registry as JSON ------------------------------------------------------------ */

static json_object *arg_to_json(const StepArgSpec *a) {
        _cleanup_json_ json_object *j = json_object_new_object();
        if (!j || json_add_string(j, "name", a->name) < 0 || json_add_string(j, "type", step_arg_type_to_string(a->type)) < 0 ||
            json_add_bool(j, "required", a->required) < 0 || json_add_string(j, "default", a->def) < 0 ||
            json_add_string(j, "doc", a->doc) < 0)
                return NULL;
        if (a->type == STEP_ARG_ENUM || a->type == STEP_ARG_FLAG) {
                const char * const *values = a->type == STEP_ARG_FLAG ? step_osd_flags : a->values;
                if (json_add(j, "values", json_array_new_strv((char * const *) values)) < 0)
                        return NULL;
        }
        if ((a->min != 0 || a->max != 0) && (json_add(j, "min", json_object_new_double(a->min)) < 0 ||
                                             json_add(j, "max", json_object_new_double(a->max)) < 0))
                return NULL;
        return TAKE_PTR(j);
}

int step_registry_to_json(json_object **ret) {
        _cleanup_json_ json_object *arr = json_object_new_array();
        if (!arr)
                return -ENOMEM;
        for (size_t i = 0; i < step_table_size; i++) {
                const StepEntry *e = &step_table[i];
                _cleanup_json_ json_object *j = json_object_new_object(), *args = json_object_new_array();
                if (!j || !args || json_add_string(j, "name", e->name) < 0 ||
                    json_add_string(j, "target", step_target_to_string(e->target)) < 0 ||
                    json_add_string(j, "agent_op", e->agent_op) < 0 ||
                    json_add_string(j, "concurrency", step_concurrency_to_string(e->concurrency)) < 0 ||
                    json_add_bool(j, "destructive", e->destructive) < 0 || json_add_bool(j, "restore", e->restore) < 0 ||
                    json_add_string(j, "doc", e->doc) < 0 || json_add_string(j, "verify", e->verify) < 0 ||
                    json_add_string(j, "progress", e->progress) < 0)
                        return -ENOMEM;
                for (const StepArgSpec *a = e->args; a->name; a++) {
                        json_object *aj = arg_to_json(a);
                        if (!aj || json_object_array_add(args, aj) < 0) {
                                json_object_put(aj);
                                return -ENOMEM;
                        }
                }
                if (json_add(j, "args", TAKE_PTR(args)) < 0 || json_object_array_add(arr, j) < 0)
                        return -ENOMEM;
                j = NULL; /* the array holds it now */
        }
        *ret = TAKE_PTR(arr);
        return 0;
}
