/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Throttle presets as `ceph config set` operations, and how to put back what was there. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph-adapt.h"
#include "ceph-cluster.h"
#include "ceph-internal.h"

static const char *const preset_names[] = {
        [CEPH_THROTTLE_SLOW] = "slow",
        [CEPH_THROTTLE_DEFAULT] = "default",
        [CEPH_THROTTLE_FAST] = "fast",
};

const char *ceph_throttle_preset_to_string(CephThrottlePreset p) {
        if ((size_t) p >= ELEMENTSOF(preset_names))
                return NULL;
        return preset_names[p];
}

int ceph_throttle_preset_from_string(const char *s, CephThrottlePreset *ret, Error *err) {
        for (size_t i = 0; s && i < ELEMENTSOF(preset_names); i++)
                if (streq(preset_names[i], s)) {
                        *ret = (CephThrottlePreset) i;
                        return 0;
                }
        return error_set(err, EINVAL, "unknown throttle preset '%s' (slow, default, fast)", strnull(s));
}

CephScheduler ceph_scheduler_for(CephRelease release, const char *osd_op_queue) {
        if (osd_op_queue) {
                if (startswith(osd_op_queue, "mclock"))
                        return CEPH_SCHEDULER_MCLOCK;
                if (streq(osd_op_queue, "wpq"))
                        return CEPH_SCHEDULER_WPQ;
        }
        /* an unknown release is one beyond ceph.h's table (Tentacle is 20): mClock */
        return release == CEPH_RELEASE_UNKNOWN || ceph_release_uses_mclock(release) ? CEPH_SCHEDULER_MCLOCK
                                                                                     : CEPH_SCHEDULER_WPQ;
}

#define K_BACKFILLS "osd_max_backfills"
#define K_ACTIVE "osd_recovery_max_active"
#define K_SINGLE "osd_recovery_max_single_start"
#define K_PROFILE "osd_mclock_profile"
#define K_OVERRIDE "osd_mclock_override_recovery_settings"

/* the wpq limits of each preset: backfills, max active, max single start */
static const char *const wpq_limits[][3] = {
        [CEPH_THROTTLE_SLOW] = { "1", "1", "1" },
        [CEPH_THROTTLE_DEFAULT] = { "1", "3", "1" },
        [CEPH_THROTTLE_FAST] = { "4", "4", "4" },
};

static const char *const profiles[] = {
        [CEPH_THROTTLE_SLOW] = "high_client_ops",
        [CEPH_THROTTLE_DEFAULT] = "balanced",
        [CEPH_THROTTLE_FAST] = "high_recovery_ops",
};

static const char *const keys_wpq[] = { K_BACKFILLS, K_ACTIVE, K_SINGLE, NULL };
static const char *const keys_mclock_limits[] = { K_PROFILE, K_OVERRIDE, K_BACKFILLS, K_ACTIVE, K_SINGLE, NULL };
static const char *const keys_mclock_profile[] = { K_PROFILE, NULL };

static bool preset_valid(CephThrottlePreset p) {
        return (size_t) p < ELEMENTSOF(preset_names);
}

const char *const *ceph_throttle_keys(CephThrottlePreset preset, CephScheduler scheduler, bool limits) {
        if (!preset_valid(preset))
                return NULL;
        if (scheduler == CEPH_SCHEDULER_WPQ)
                return keys_wpq;
        return limits ? keys_mclock_limits : keys_mclock_profile;
}

bool ceph_config_value_eq(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        if (streq(a, b))
                return true;
        char *ea, *eb;
        errno = 0;
        double x = strtod(a, &ea), y = strtod(b, &eb);
        return errno == 0 && ea != a && eb != b && !*ea && !*eb && x == y;
}

void ceph_config_ops_free(CephConfigOp *ops, size_t n) {
        for (size_t i = 0; ops && i < n; i++) {
                free(ops[i].who);
                free(ops[i].key);
                free(ops[i].value);
        }
        free(ops);
}

static int op_set(CephConfigOp *op, const char *who, const char *key, const char *value) {
        op->who = strdup(who);
        op->key = strdup(key);
        op->value = value ? strdup(value) : NULL;
        return op->who && op->key && (!value || op->value) ? 0 : -ENOMEM;
}

int ceph_throttle_settings(CephThrottlePreset preset, CephScheduler scheduler, bool limits, CephConfigOp **ret,
                           size_t *ret_n, Error *err) {
        const char *const *keys = ceph_throttle_keys(preset, scheduler, limits);
        if (!keys)
                return error_set(err, EINVAL, "invalid throttle preset %d", (int) preset);
        size_t n = strv_length((char *const *) keys);
        CephConfigOp *ops = calloc(n + 1, sizeof(CephConfigOp));
        if (!ops)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const char *v;
                if (streq(keys[i], K_PROFILE))
                        v = profiles[preset];
                else if (streq(keys[i], K_OVERRIDE))
                        v = "true";
                else if (streq(keys[i], K_BACKFILLS))
                        v = wpq_limits[preset][0];
                else if (streq(keys[i], K_ACTIVE))
                        v = wpq_limits[preset][1];
                else
                        v = wpq_limits[preset][2];
                if (op_set(&ops[i], "osd", keys[i], v) < 0) {
                        ceph_config_ops_free(ops, n);
                        return -ENOMEM;
                }
        }
        *ret = ops;
        *ret_n = n;
        return 0;
}

CephThrottlePlan *ceph_throttle_plan_free(CephThrottlePlan *p) {
        if (!p)
                return NULL;
        ceph_config_ops_free(p->apply, p->n_apply);
        ceph_config_ops_free(p->restore, p->n_restore);
        strv_free(p->warnings);
        free(p);
        return NULL;
}

int ceph_throttle_plan(CephThrottlePreset preset, CephScheduler scheduler, bool limits, const CephConfigDump *before,
                       CephThrottlePlan **ret, Error *err) {
        if (!before)
                return error_set(err, EINVAL, "throttle: the config dump taken before is needed to restore");
        _cleanup_(ceph_throttle_plan_freep) CephThrottlePlan *p = calloc(1, sizeof(CephThrottlePlan));
        if (!p || !(p->warnings = calloc(1, sizeof(char *))))
                return -ENOMEM;
        p->preset = preset;
        p->scheduler = scheduler;
        int r = ceph_throttle_settings(preset, scheduler, limits, &p->apply, &p->n_apply, err);
        if (r < 0)
                return r;
        if (!(p->restore = calloc(p->n_apply + 1, sizeof(CephConfigOp))))
                return -ENOMEM;
        /* restore in reverse: the mClock override goes last, after the limits it allowed */
        for (size_t i = p->n_apply; i-- > 0;) {
                const CephConfigOp *a = &p->apply[i];
                const CephConfigEntry *e = ceph_config_dump_find(before, a->who, a->key);
                if (op_set(&p->restore[p->n_restore++], a->who, a->key, e ? e->value : NULL) < 0)
                        return -ENOMEM;
        }
        /* entries more specific than "osd" win over what the preset sets */
        for (size_t i = 0; i < before->n_entries; i++) {
                const CephConfigEntry *e = &before->entries[i];
                bool ours = false;
                for (size_t k = 0; k < p->n_apply && !ours; k++)
                        ours = streq(e->name, p->apply[k].key);
                if (!ours || (streq(e->section, "osd") && !e->mask))
                        continue;
                if (strv_consume(&p->warnings,
                                 strprintf("%s%s%s has its own %s = %s, which the preset does not change", e->section,
                                           e->mask ? "/" : "", e->mask ? e->mask : "", e->name, e->value)) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(p);
        return 0;
}

static int int_cmp(const void *a, const void *b) {
        int x = *(const int *) a, y = *(const int *) b;
        return (x > y) - (x < y);
}

int ceph_wpq_osds(CephRelease release, const CephConfigDump *before, const CephOsdMetadataList *meta, int **ret,
                  size_t *ret_n) {
        *ret = NULL;
        *ret_n = 0;
        _cleanup_(freep) int *ids = malloc(sizeof(int) * ((meta ? meta->n_osds : 0) + 1));
        if (!ids)
                return -ENOMEM;
        const CephConfigEntry *all = before ? ceph_config_dump_find(before, "osd", "osd_op_queue") : NULL;
        size_t n = 0;
        for (size_t i = 0; meta && i < meta->n_osds; i++) {
                const CephOsdMetadata *m = &meta->osds[i];
                char who[32];
                snprintf(who, sizeof(who), "osd.%d", m->id);
                const CephConfigEntry *own = before ? ceph_config_dump_find(before, who, "osd_op_queue") : NULL;
                const char *q = own ? own->value : all ? all->value : NULL;
                if (streq_ptr(m->objectstore, "filestore") || ceph_scheduler_for(release, q) == CEPH_SCHEDULER_WPQ)
                        ids[n++] = m->id;
        }
        if (n == 0)
                return 0;
        qsort(ids, n, sizeof(int), int_cmp);
        *ret = TAKE_PTR(ids);
        *ret_n = n;
        return 0;
}

int ceph_throttle_plan_add_wpq_osds(CephThrottlePlan *p, const int *ids, size_t n, const CephConfigDump *before) {
        static const char *const keys[] = { K_BACKFILLS, K_ACTIVE, K_SINGLE };
        CephConfigOp *a = realloc(p->apply, sizeof(CephConfigOp) * (p->n_apply + 3 * n + 1));
        if (!a)
                return -ENOMEM;
        p->apply = a;
        CephConfigOp *r = realloc(p->restore, sizeof(CephConfigOp) * (p->n_restore + 3 * n + 1));
        if (!r)
                return -ENOMEM;
        p->restore = r;
        for (size_t i = 0; i < n; i++) {
                char who[32];
                snprintf(who, sizeof(who), "osd.%d", ids[i]);
                for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
                        const CephConfigEntry *e = before ? ceph_config_dump_find(before, who, keys[k]) : NULL;
                        if (op_set(&p->apply[p->n_apply], who, keys[k], wpq_limits[p->preset][k]) < 0)
                                return -ENOMEM;
                        p->n_apply++;
                        /* restored first: before the "osd"-section ops the plan already restores */
                        memmove(&p->restore[1], &p->restore[0], sizeof(CephConfigOp) * p->n_restore);
                        p->restore[0] = (CephConfigOp) {};
                        p->n_restore++;
                        if (op_set(&p->restore[0], who, keys[k], e ? e->value : NULL) < 0)
                                return -ENOMEM;
                }
        }
        return 0;
}

char *ceph_throttle_restore_format(const CephThrottlePlan *p) {
        if (!p)
                return NULL;
        _cleanup_json_ json_object *o = json_object_new_object(), *a = json_object_new_array();
        if (!o || !a)
                return NULL;
        for (size_t i = 0; i < p->n_restore; i++) {
                json_object *e = json_array_add_object(a);
                if (!e)
                        return NULL;
                if (json_add_string(e, "who", p->restore[i].who) < 0 || json_add_string(e, "key", p->restore[i].key) < 0)
                        return NULL;
                /* null (json-c's NULL object): the key was absent, `config rm` it */
                if (p->restore[i].value ? json_add_string(e, "value", p->restore[i].value) < 0
                                        : json_object_object_add(e, "value", NULL) < 0)
                        return NULL;
                /* what cephprov writes there: the restore puts "value" back only while the key
                 * still holds one of these */
                json_object *w = json_object_new_array();
                if (!w || json_add(e, "wrote", w) < 0)
                        return NULL;
                for (size_t k = 0; k < p->n_apply; k++)
                        if (p->apply[k].value && streq(p->apply[k].who, p->restore[i].who) &&
                            streq(p->apply[k].key, p->restore[i].key) &&
                            json_object_array_add(w, json_object_new_string(p->apply[k].value)) < 0)
                                return NULL;
        }
        if (json_add_string(o, "preset", ceph_throttle_preset_to_string(p->preset)) < 0 ||
            json_add_string(o, "scheduler", p->scheduler == CEPH_SCHEDULER_MCLOCK ? "mclock" : "wpq") < 0 ||
            json_add(o, "restore", TAKE_PTR(a)) < 0)
                return NULL;
        const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        return s ? strdup(s) : NULL;
}

/* as ceph_argv_config_set() takes it: one printable argument that is no option */
static bool value_is_valid(const char *s) {
        if (!s[0] || s[0] == '-' || strlen(s) > 65536)
                return false;
        for (const char *p = s; *p; p++)
                if ((unsigned char) *p < 0x20 || *p == 0x7f)
                        return false;
        return true;
}

int ceph_throttle_restore_parse(const char *json, CephConfigOp **ret, size_t *ret_n, Error *err) {
        const char *what = "throttle restore record";
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, what, &root, err);
        if (r < 0)
                return r;
        json_object *a;
        if ((r = json_get_array(root, "restore", true, &a, what, err)) < 0)
                return r;
        size_t n = json_object_array_length(a);
        CephConfigOp *ops = calloc(n + 1, sizeof(CephConfigOp));
        if (!ops)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(a, i), *v;
                const char *who, *key, *value = NULL;
                if ((r = json_get_string(e, "who", true, &who, what, err)) < 0 ||
                    (r = json_get_string(e, "key", true, &key, what, err)) < 0)
                        goto fail;
                if (!json_object_object_get_ex(e, "value", &v)) {
                        r = error_set(err, EINVAL, "%s: entry %zu has no value (null to remove)", what, i);
                        goto fail;
                }
                if (!json_object_is_type(v, json_type_null)) {
                        if (!json_object_is_type(v, json_type_string)) {
                                r = error_set(err, EINVAL, "%s: entry %zu: value is not a string", what, i);
                                goto fail;
                        }
                        value = json_object_get_string(v);
                }
                /* the record comes from the cluster: check it as an argv would */
                if (!ceph_name_is_valid(who) || !ceph_name_is_valid(key) || (value && !value_is_valid(value))) {
                        r = error_set(err, EINVAL, "%s: entry %zu: invalid target, option or value", what, i);
                        goto fail;
                }
                if (op_set(&ops[i], who, key, value) < 0) {
                        r = -ENOMEM;
                        goto fail;
                }
        }
        *ret = ops;
        *ret_n = n;
        return 0;
fail:
        ceph_config_ops_free(ops, n);
        return r;
}

/* ---- whose value is it now --------------------------------------------------------- */

/* Adds `v` to the set `*l` unless it is there. */
static int strv_add_unique(char ***l, const char *v) {
        for (char **p = *l; p && *p; p++)
                if (ceph_config_value_eq(*p, v))
                        return 0;
        return strv_extend(l, v);
}

/* Adds to the set `*l` the value each of `ops` gives `key`; frees `ops`. */
static int add_values_of(char ***l, CephConfigOp *ops, size_t n, const char *key) {
        int r = 0;
        for (size_t i = 0; i < n && r >= 0; i++)
                if (streq(ops[i].key, key))
                        r = strv_add_unique(l, ops[i].value);
        ceph_config_ops_free(ops, n);
        return r;
}

/* Every value the adaptive ladder of `sched` gives `key` (any rung). */
static int ladder_values(CephScheduler sched, const char *key, char ***ret) {
        _cleanup_strv_free_ char **l = NULL;
        for (int rung = 0; rung < ceph_adapt_n_rungs(sched); rung++) {
                CephConfigOp *ops = NULL;
                size_t n = 0;
                if (ceph_adapt_rung_settings(sched, rung, &ops, &n, NULL) < 0)
                        return -ENOMEM;
                int r = add_values_of(&l, ops, n, key);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

int ceph_throttle_record_set_ladder(json_object *rec, CephScheduler sched) {
        json_object *a = NULL;
        if (!json_object_object_get_ex(rec, "restore", &a) || !json_object_is_type(a, json_type_array))
                return -EINVAL;
        for (size_t i = 0; i < json_object_array_length(a); i++) {
                json_object *e = json_object_array_get_idx(a, i);
                const char *key = json_object_get_string(json_object_object_get(e, "key"));
                _cleanup_strv_free_ char **l = NULL;
                if (!key || ladder_values(sched, key, &l) < 0 || json_add(e, "wrote", json_array_new_strv(l)) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* What cephprov wrote to an entry's key: the record's "wrote"; for a record written before
 * cephprov kept it (only the value before), what the record's preset sets that key to on
 * its scheduler (the adaptive throttle: any rung of its ladder). NULL: not known (a custom
 * value of an old record, or a preset this build does not know). */
static int entry_wrote(json_object *rec, json_object *e, char ***ret) {
        json_object *w = NULL;
        *ret = NULL;
        if (json_object_object_get_ex(e, "wrote", &w) && json_object_is_type(w, json_type_array)) {
                _cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
                if (!l)
                        return -ENOMEM;
                for (size_t i = 0; i < json_object_array_length(w); i++) {
                        const char *v = json_object_get_string(json_object_array_get_idx(w, i));
                        if (v && strv_add_unique(&l, v) < 0)
                                return -ENOMEM;
                }
                *ret = TAKE_PTR(l);
                return 0;
        }
        const char *preset = json_object_get_string(json_object_object_get(rec, "preset"));
        const char *sched_s = json_object_get_string(json_object_object_get(rec, "scheduler"));
        const char *key = json_object_get_string(json_object_object_get(e, "key"));
        if (!preset || !key)
                return 0;
        CephScheduler sched = streq_ptr(sched_s, "mclock") ? CEPH_SCHEDULER_MCLOCK : CEPH_SCHEDULER_WPQ;
        if (streq(preset, "adaptive"))
                return ladder_values(sched, key, ret);
        CephThrottlePreset p;
        if (ceph_throttle_preset_from_string(preset, &p, NULL) < 0)
                return 0;
        CephConfigOp *ops = NULL;
        size_t n = 0;
        /* with limits: every key a preset may set on that scheduler */
        if (ceph_throttle_settings(p, sched, true, &ops, &n, NULL) < 0)
                return -ENOMEM;
        _cleanup_strv_free_ char **l = NULL;
        int r = add_values_of(&l, ops, n, key);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(l);
        return 0;
}

static const char *entry_now(const CephConfigDump *now, json_object *e) {
        const char *who = json_object_get_string(json_object_object_get(e, "who"));
        const char *key = json_object_get_string(json_object_object_get(e, "key"));
        const CephConfigEntry *c = who && key ? ceph_config_dump_find(now, who, key) : NULL;
        return c ? c->value : NULL;
}

static bool strv_has_value(char *const *l, const char *v) {
        for (char *const *p = l; v && p && *p; p++)
                if (ceph_config_value_eq(*p, v))
                        return true;
        return false;
}

/* entry {"who","key","value","wrote"} of the record, with its value now */
static json_object *left_entry(json_object *e, const char *now, char *const *wrote) {
        json_object *o = json_object_new_object();
        if (!o)
                return NULL;
        json_object *prior = json_object_object_get(e, "value");
        if (json_add_string(o, "who", json_object_get_string(json_object_object_get(e, "who"))) < 0 ||
            json_add_string(o, "key", json_object_get_string(json_object_object_get(e, "key"))) < 0 ||
            json_object_object_add(o, "value", now ? json_object_new_string(now) : NULL) < 0 ||
            json_object_object_add(o, "before", prior ? json_object_get(prior) : NULL) < 0 ||
            json_object_object_add(o, "wrote", wrote ? json_array_new_strv((char **) wrote) : NULL) < 0)
                return json_object_put(o), NULL;
        return o;
}

int ceph_throttle_restore_decide(const char *record, const CephConfigDump *now, CephConfigOp **ret_ops,
                                 size_t *ret_n, json_object **ret_left, Error *err) {
        const char *what = "throttle restore record";
        CephConfigOp *all = NULL;
        size_t n_all = 0;
        /* checked as before: every entry a valid target, option and value */
        int r = ceph_throttle_restore_parse(record, &all, &n_all, err);
        if (r < 0)
                return r;
        _cleanup_json_ json_object *root = json_tokener_parse(record), *left = json_object_new_array();
        json_object *a = root ? json_object_object_get(root, "restore") : NULL;
        CephConfigOp *ops = calloc(n_all + 1, sizeof(CephConfigOp));
        size_t n = 0;
        if (!root || !a || !left || !ops) {
                ceph_config_ops_free(all, n_all);
                free(ops);
                return error_set(err, ENOMEM, "%s: out of memory", what);
        }
        for (size_t i = 0; i < n_all; i++) {
                json_object *e = json_object_array_get_idx(a, i);
                const char *v = entry_now(now, e);
                _cleanup_strv_free_ char **wrote = NULL;
                if ((r = entry_wrote(root, e, &wrote)) < 0)
                        break;
                bool back = all[i].value ? v && ceph_config_value_eq(v, all[i].value) : !v;
                if (back)
                        continue; /* as it was before already */
                if (strv_has_value(wrote, v)) {
                        ops[n++] = all[i];
                        all[i] = (CephConfigOp) {};
                        continue;
                }
                /* someone changed it since cephprov wrote it (or what cephprov wrote is not
                 * known): theirs, left as it is */
                json_object *o = left_entry(e, v, wrote);
                if (!o || json_object_array_add(left, o) < 0) {
                        json_object_put(o);
                        r = -ENOMEM;
                        break;
                }
        }
        ceph_config_ops_free(all, n_all);
        if (r < 0) {
                ceph_config_ops_free(ops, n);
                return error_set(err, ENOMEM, "%s: out of memory", what);
        }
        *ret_ops = ops;
        *ret_n = n;
        *ret_left = TAKE_PTR(left);
        return 0;
}

int ceph_throttle_record_take_over(json_object *rec, const char *old, const CephConfigDump *now,
                                   json_object **ret_taken, Error *err) {
        const char *what = "throttle restore record";
        CephConfigOp *ops = NULL;
        size_t n_ops = 0;
        int r = ceph_throttle_restore_parse(old, &ops, &n_ops, err);
        if (r < 0)
                return r;
        ceph_config_ops_free(ops, n_ops);
        _cleanup_json_ json_object *o = json_tokener_parse(old), *taken = json_object_new_array();
        json_object *oa = o ? json_object_object_get(o, "restore") : NULL, *na = NULL;
        if (!o || !oa || !taken)
                return error_set(err, ENOMEM, "%s: out of memory", what);
        if (!json_object_object_get_ex(rec, "restore", &na) || !json_object_is_type(na, json_type_array))
                return error_set(err, EINVAL, "%s: no restore list", what);
        for (size_t i = 0; i < json_object_array_length(oa); i++) {
                json_object *e = json_object_array_get_idx(oa, i);
                const char *who = json_object_get_string(json_object_object_get(e, "who"));
                const char *key = json_object_get_string(json_object_object_get(e, "key"));
                _cleanup_strv_free_ char **wrote = NULL;
                if (entry_wrote(o, e, &wrote) < 0)
                        return error_set(err, ENOMEM, "%s: out of memory", what);
                /* still what that run wrote: the value before it is the one to go back to */
                if (!strv_has_value(wrote, entry_now(now, e)))
                        continue;
                json_object *ne = NULL;
                for (size_t k = 0; k < json_object_array_length(na) && !ne; k++) {
                        json_object *c = json_object_array_get_idx(na, k);
                        if (streq_ptr(json_object_get_string(json_object_object_get(c, "who")), who) &&
                            streq_ptr(json_object_get_string(json_object_object_get(c, "key")), key))
                                ne = c;
                }
                json_object *prior = json_object_object_get(e, "value");
                if (ne) {
                        if (json_object_object_add(ne, "value", prior ? json_object_get(prior) : NULL) < 0)
                                return error_set(err, ENOMEM, "%s: out of memory", what);
                } else {
                        /* a key this run does not set: restored as that run's (its "wrote" kept;
                         * an old record's derived from its preset) */
                        json_object *c = NULL;
                        if (json_object_deep_copy(e, &c, NULL) < 0 ||
                            (wrote && json_add(c, "wrote", json_array_new_strv(wrote)) < 0) ||
                            json_object_array_add(na, c) < 0)
                                return json_object_put(c), error_set(err, ENOMEM, "%s: out of memory", what);
                }
                char *t = strprintf("%s %s", who, key);
                if (!t || json_object_array_add(taken, json_object_new_string(t)) < 0) {
                        free(t);
                        return error_set(err, ENOMEM, "%s: out of memory", what);
                }
                free(t);
        }
        *ret_taken = TAKE_PTR(taken);
        return 0;
}
