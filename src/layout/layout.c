/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loading, freeing, lookups and the JSON form of a layout. Parsing is in src/yaml (text →
 * tree) and layout-parse.c (tree → Layout). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "layout-internal.h"

static int load_string(const char *name, const char *data, size_t len, bool all, YamlDiags *diags, Layout **ret,
                       Error *err) {
        _cleanup_(yaml_node_freep) YamlNode *root = NULL;
        int r;

        if (!name)
                name = "<string>";
        r = yaml_tree_load(name, data, len, "layout", &root, err);
        if (r < 0) {
                /* A syntax error: one message, kept in the list too so callers see it there. */
                if (all && diags && r == -EINVAL) {
                        YamlDiag *a = realloc(diags->items, (diags->n + 1) * sizeof(YamlDiag));
                        unsigned line = 0, col = 0;
                        size_t nl = strlen(name);
                        const char *m = err ? err->message : "";
                        int used = 0;
                        if (!a)
                                return r;
                        diags->items = a;
                        if (strncmp(m, name, nl) == 0 && sscanf(m + nl, ":%u:%u: %n", &line, &col, &used) == 2 && used > 0)
                                m += nl + used;
                        a[diags->n] = (YamlDiag) { .mark = { line, col }, .message = strdup(m) };
                        if (a[diags->n].message) {
                                diags->n++;
                                diags->n_errors++;
                        }
                }
                return r;
        }
        return layout_from_tree(name, root, all, diags, ret, err);
}

int layout_load_string(const char *name, const char *data, size_t len, Layout **ret, Error *err) {
        return load_string(name, data, len, false, NULL, ret, err);
}

int layout_load_string_all(const char *name, const char *data, size_t len, Layout **ret, YamlDiags *diags,
                           Error *err) {
        return load_string(name, data, len, true, diags, ret, err);
}

static int load_file(const char *path, bool all, YamlDiags *diags, Layout **ret, Error *err) {
        _cleanup_(freep) char *data = NULL;
        size_t len;
        int r;

        r = yaml_file_read(path, "layout", &data, &len, err);
        if (r < 0)
                return r;

        _cleanup_(layout_freep) Layout *l = NULL;
        r = load_string(path, data, len, all, diags, &l, err);
        if (r < 0)
                return r;
        l->path = strdup(path);
        if (!l->path)
                return error_set(err, ENOMEM, "cannot load layout '%s': out of memory", path);
        *ret = TAKE_PTR(l);
        return 0;
}

int layout_load_file(const char *path, Layout **ret, Error *err) {
        return load_file(path, false, NULL, ret, err);
}

int layout_load_file_all(const char *path, Layout **ret, YamlDiags *diags, Error *err) {
        return load_file(path, true, diags, ret, err);
}

static void ssh_options_done(SshOptions *o) {
        free(o->user);
        free(o->identity);
        free(o->known_hosts);
        free(o->agent_path);
}

static void selector_done(DeviceSelector *s) {
        strv_free(s->devices);
        free(s->model);
        free(s->serial);
        free(s->vendor);
        free(s->size_text);
}

Layout *layout_free(Layout *l) {
        if (!l)
                return NULL;
        for (size_t i = 0; i < l->n_hosts; i++) {
                Host *h = &l->hosts[i];
                free(h->name);
                free(h->address);
                ssh_options_done(&h->ssh);
                strv_free(h->allow);
                strv_free(h->labels);
        }
        free(l->hosts);
        for (size_t i = 0; i < l->n_profiles; i++) {
                Profile *p = &l->profiles[i];
                free(p->name);
                strv_free(p->allow);
                free(p->host_pattern);
                strv_free(p->labels);
                selector_done(&p->data);
                selector_done(&p->fast);
                free(p->keep_partitions);
                free(p->osd.device_class);
        }
        free(l->profiles);
        ssh_options_done(&l->ssh);
        free(l->path);
        free(l->cluster_name);
        free(l->admin_host);
        free(l->fsid);
        yaml_diags_done(&l->warnings);
        free(l);
        return NULL;
}

const Host *layout_find_host(const Layout *l, const char *name) {
        if (!l || !name)
                return NULL;
        for (size_t i = 0; i < l->n_hosts; i++)
                if (l->hosts[i].name && streq(l->hosts[i].name, name))
                        return &l->hosts[i];
        return NULL;
}

const Profile *layout_find_profile(const Layout *l, const char *name) {
        if (!l || !name)
                return NULL;
        for (size_t i = 0; i < l->n_profiles; i++)
                if (l->profiles[i].name && streq(l->profiles[i].name, name))
                        return &l->profiles[i];
        return NULL;
}

void throttle_preset_values(ThrottlePreset p, Throttle *ret) {
        /* Values from operators' practice (docs/ceph.md, the throttle); CUSTOM starts from Luminous' defaults. */
        switch (p) {
        case THROTTLE_SLOW:
                *ret = (Throttle) { p, 1, 1, 1, -1 };
                break;
        case THROTTLE_FAST:
                *ret = (Throttle) { p, 4, 4, 4, -1 };
                break;
        case THROTTLE_ADAPTIVE: /* the controller starts from the slow preset's values */
                *ret = (Throttle) { p, 1, 1, 1, -1 };
                break;
        case THROTTLE_DEFAULT:
        case THROTTLE_CUSTOM:
        default:
                *ret = (Throttle) { p, 1, 3, 1, -1 };
                break;
        }
}

const char *throttle_preset_to_string(ThrottlePreset p) {
        switch (p) {
        case THROTTLE_DEFAULT: return "default";
        case THROTTLE_SLOW: return "slow";
        case THROTTLE_FAST: return "fast";
        case THROTTLE_CUSTOM: return "custom";
        case THROTTLE_ADAPTIVE: return "adaptive";
        }
        return "unknown";
}

const char *transport_kind_to_string(TransportKind t) {
        switch (t) {
        case TRANSPORT_SSH: return "ssh";
        case TRANSPORT_LOCAL: return "local";
        }
        return "unknown";
}

const char *host_key_policy_to_string(HostKeyPolicy p) {
        switch (p) {
        case HOST_KEY_STRICT: return "strict";
        case HOST_KEY_ACCEPT_NEW: return "accept-new";
        }
        return "unknown";
}

const char *spread_mode_to_string(SpreadMode s) {
        switch (s) {
        case SPREAD_BALANCED: return "balanced";
        case SPREAD_FILL: return "fill";
        }
        return "unknown";
}

uint64_t size_spec_resolve(const SizeSpec *s, uint64_t device_size) {
        if (!s)
                return 0;
        switch (s->kind) {
        case SIZE_BYTES:
                return s->bytes;
        case SIZE_SHARE: {
                /* Rounded to the nearest byte: "12%" is not exact in binary, and 12 % of
                 * 7.68 TB should be 921.6 GB, not one byte less. */
                long double v = (long double) device_size * (long double) s->share + 0.5L;
                return v >= (long double) device_size ? device_size : (uint64_t) v;
        }
        case SIZE_UNSET:
        default:
                return 0;
        }
}

/* ---- JSON ------------------------------------------------------------------------------ */

/* json-c represents JSON null as a NULL pointer, which json_add() takes as an allocation
 * failure: nulls are added with this. */
static int add_null(json_object *o, const char *key) {
        return json_object_object_add(o, key, NULL) < 0 ? -ENOMEM : 0;
}

static int add_string_or_null(json_object *o, const char *key, const char *s) {
        return s ? json_add_string(o, key, s) : add_null(o, key);
}

/* a bound or a count whose 0 means "none": null, as the other unset values */
static int add_u64_or_null(json_object *o, const char *key, uint64_t v) {
        return v ? json_add_u64(o, key, v) : add_null(o, key);
}

static int add_strv(json_object *o, const char *key, char * const *l) {
        if (!l)
                return add_null(o, key);
        return json_add(o, key, json_array_new_strv(l));
}

/* {"bytes": N} or {"share": 0.05}; null when unset. */
static int add_size_spec(json_object *o, const char *key, const SizeSpec *s) {
        if (s->kind == SIZE_UNSET)
                return add_null(o, key);
        json_object *v = json_object_new_object();
        if (json_add(o, key, v) < 0)
                return -ENOMEM;
        return s->kind == SIZE_BYTES ? json_add_u64(v, "bytes", s->bytes)
                                     : json_add(v, "share", json_object_new_double(s->share));
}

static int add_ssh(json_object *o, const char *key, const SshOptions *s, json_object **ret) {
        json_object *v = json_object_new_object();
        if (json_add(o, key, v) < 0 ||
            json_add_string(v, "user", s->user) < 0 ||
            json_add_u64(v, "port", s->port) < 0 ||
            add_string_or_null(v, "identity", s->identity) < 0 ||
            add_string_or_null(v, "known_hosts", s->known_hosts) < 0 ||
            json_add_string(v, "agent_path", s->agent_path ? s->agent_path : LAYOUT_AGENT_PATH_DEFAULT) < 0 ||
            json_add_string(v, "host_key_checking", host_key_policy_to_string(s->host_key_policy)) < 0 ||
            json_add_u64(v, "connect_timeout", s->connect_timeout_sec) < 0 ||
            json_add_u64(v, "command_timeout", s->command_timeout_sec) < 0)
                return -ENOMEM;
        if (ret)
                *ret = v;
        return 0;
}

static int add_selector(json_object *o, const char *key, const DeviceSelector *s) {
        if (!s->set)
                return add_null(o, key);
        json_object *v = json_object_new_object();
        if (json_add(o, key, v) < 0 ||
            add_strv(v, "devices", s->devices) < 0 ||
            (s->rotational < 0 ? add_null(v, "rotational") : json_add_bool(v, "rotational", s->rotational)) < 0 ||
            add_u64_or_null(v, "size_min", s->size_min) < 0 ||
            add_u64_or_null(v, "size_max", s->size_max) < 0 ||
            add_string_or_null(v, "model", s->model) < 0 ||
            add_string_or_null(v, "serial", s->serial) < 0 ||
            add_string_or_null(v, "vendor", s->vendor) < 0 ||
            add_u64_or_null(v, "limit", s->limit) < 0 ||
            add_u64_or_null(v, "count", s->count) < 0)
                return -ENOMEM;
        return 0;
}

static int add_profile(json_object *a, const Profile *p) {
        json_object *o = json_array_add_object(a);
        if (!o)
                return -ENOMEM;
        json_object *pl = p->placement ? json_object_new_object() : NULL;
        if (json_add_string(o, "name", p->name) < 0 ||
            (p->placement ? json_add(o, "placement", pl) : add_null(o, "placement")) < 0 ||
            (pl && (add_string_or_null(pl, "host_pattern", p->host_pattern) < 0 || add_strv(pl, "labels", p->labels) < 0)) ||
            add_strv(o, "allow", p->allow) < 0 ||
            add_selector(o, "data", &p->data) < 0 ||
            add_selector(o, "fast", &p->fast) < 0)
                return -ENOMEM;

        json_object *keep = json_object_new_array();
        if (json_add(o, "keep_partitions", keep) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < p->n_keep_partitions; i++) {
                json_object *v = json_object_new_int64(p->keep_partitions[i]);
                if (!v || json_object_array_add(keep, v) < 0) {
                        json_object_put(v);
                        return -ENOMEM;
                }
        }

        if (json_add_u64(o, "data_per_fast", p->data_per_fast) < 0 ||
            json_add_string(o, "spread", spread_mode_to_string(p->spread)) < 0 ||
            add_size_spec(o, "db_size", &p->db_size) < 0 ||
            add_size_spec(o, "wal_size", &p->wal_size) < 0 ||
            add_size_spec(o, "journal_size", &p->journal_size) < 0)
                return -ENOMEM;

        if (p->bcache.enabled) {
                json_object *b = json_object_new_object();
                if (json_add(o, "bcache", b) < 0 ||
                    add_size_spec(b, "cache_size", &p->bcache.cache_size) < 0 ||
                    json_add_string(b, "cache_mode", bcache_cache_mode_to_string(p->bcache.cache_mode)) < 0 ||
                    json_add_u64(b, "sequential_cutoff", p->bcache.sequential_cutoff) < 0 ||
                    json_add_u64(b, "writeback_percent", p->bcache.writeback_percent) < 0)
                        return -ENOMEM;
        } else if (add_null(o, "bcache") < 0)
                return -ENOMEM;

        json_object *osd = json_object_new_object();
        if (json_add(o, "osd", osd) < 0 ||
            json_add_string(osd, "objectstore", objectstore_to_string(p->osd.objectstore)) < 0 ||
            json_add_string(osd, "device_class", p->osd.device_class ? p->osd.device_class : "auto") < 0 ||
            json_add_u64(osd, "per_device", p->osd.per_device) < 0 ||
            json_add_u64(osd, "parallel", p->osd.parallel) < 0 ||
            json_add_bool(osd, "encrypted", p->osd.encrypted) < 0 ||
            json_add_bool(o, "wipe", p->wipe) < 0)
                return -ENOMEM;
        return 0;
}

static int add_host(json_object *a, const Host *h) {
        json_object *o = json_array_add_object(a);
        if (!o)
                return -ENOMEM;
        if (json_add_string(o, "name", h->name) < 0 ||
            json_add_string(o, "address", h->address) < 0 ||
            json_add_string(o, "transport", transport_kind_to_string(h->transport)) < 0 ||
            add_ssh(o, "ssh", &h->ssh, NULL) < 0 ||
            add_string_or_null(o, "profile", h->profile ? h->profile->name : NULL) < 0 ||
            add_strv(o, "labels", h->labels) < 0 ||
            add_strv(o, "allow", h->allow) < 0)
                return -ENOMEM;
        return 0;
}

int layout_to_json(const Layout *l, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *ssh;
        if (!o)
                return -ENOMEM;

        json_object *cluster = json_object_new_object();
        if (json_add(o, "cluster", cluster) < 0 ||
            json_add_string(cluster, "name", l->cluster_name) < 0 ||
            add_string_or_null(cluster, "admin_host", l->admin_host) < 0 ||
            json_add_string(cluster, "objectstore", objectstore_to_string(l->objectstore)) < 0 ||
            add_string_or_null(cluster, "fsid", l->fsid) < 0)
                return -ENOMEM;

        if (add_ssh(o, "ssh", &l->ssh, &ssh) < 0 || json_add_u64(ssh, "concurrency", l->concurrency) < 0)
                return -ENOMEM;

        json_object *t = json_object_new_object();
        if (json_add(o, "throttle", t) < 0 ||
            json_add_string(t, "preset", throttle_preset_to_string(l->throttle.preset)) < 0 ||
            json_add_u64(t, "osd_max_backfills", l->throttle.osd_max_backfills) < 0 ||
            json_add_u64(t, "osd_recovery_max_active", l->throttle.osd_recovery_max_active) < 0 ||
            json_add_u64(t, "osd_recovery_max_single_start", l->throttle.osd_recovery_max_single_start) < 0 ||
            (l->throttle.osd_recovery_sleep < 0
                     ? add_null(t, "osd_recovery_sleep")
                     : json_add(t, "osd_recovery_sleep", json_object_new_double(l->throttle.osd_recovery_sleep))) < 0 ||
            /* the adaptive band only where it applies (0: from the baseline, null) */
            (l->throttle.preset == THROTTLE_ADAPTIVE &&
             ((l->throttle.target_p99_ms > 0 ? json_add(t, "target_p99_ms", json_object_new_double(l->throttle.target_p99_ms))
                                             : add_null(t, "target_p99_ms")) < 0 ||
              (l->throttle.ceiling_p99_ms > 0
                       ? json_add(t, "ceiling_p99_ms", json_object_new_double(l->throttle.ceiling_p99_ms))
                       : add_null(t, "ceiling_p99_ms")) < 0)))
                return -ENOMEM;

        json_object *profiles = json_object_new_array();
        if (json_add(o, "profiles", profiles) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < l->n_profiles; i++)
                if (add_profile(profiles, &l->profiles[i]) < 0)
                        return -ENOMEM;

        json_object *hosts = json_object_new_array();
        if (json_add(o, "hosts", hosts) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < l->n_hosts; i++)
                if (add_host(hosts, &l->hosts[i]) < 0)
                        return -ENOMEM;

        *ret = TAKE_PTR(o);
        return 0;
}
