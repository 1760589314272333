/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ceph-volume: argv builders and the parsers of `raw list` and `lvm list`. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph-internal.h"
#include "ceph-volume.h"
#include "ceph.h"

/* a device path: absolute, no '..', no control characters or spaces */
static bool device_is_valid(const char *s) {
        if (isempty(s) || s[0] != '/' || strlen(s) > 4096 || strstr(s, "/../"))
                return false;
        for (const char *p = s; *p; p++)
                if ((unsigned char) *p <= 0x20 || *p == 0x7f)
                        return false;
        return true;
}

static char **oom(Error *err) {
        error_set(err, ENOMEM, "out of memory");
        return NULL;
}

static int extend_opt(char ***a, const char *opt, const char *value) {
        if (!value)
                return 0;
        if (strv_extend(a, opt) < 0 || strv_extend(a, value) < 0)
                return -ENOMEM;
        return 0;
}

static bool check_device(const char *what, const char *role, const char *dev, bool required, Error *err) {
        if (!dev && !required)
                return true;
        if (!device_is_valid(dev)) {
                error_set(err, EINVAL, "%s: invalid %s device '%s'", what, role, dev ? dev : "(none)");
                return false;
        }
        return true;
}

/* `ceph-volume MODE VERB --bluestore ...`: raw prepare and lvm create take the same options */
static char **argv_bluestore(const char *mode, const char *verb, const CephVolumePrepare *p, Error *err) {
        char what[64];
        snprintf(what, sizeof(what), "ceph-volume %s %s", mode, verb);
        if (!p) {
                error_set(err, EINVAL, "%s: nothing to prepare", what);
                return NULL;
        }
        if (!check_device(what, "data", p->data, true, err) || !check_device(what, "block.db", p->db, false, err) ||
            !check_device(what, "block.wal", p->wal, false, err))
                return NULL;
        if ((p->db && strcmp(p->db, p->data) == 0) || (p->wal && strcmp(p->wal, p->data) == 0) ||
            (p->db && p->wal && strcmp(p->db, p->wal) == 0)) {
                error_set(err, EINVAL, "%s: data, block.db and block.wal must be different devices ('%s')", what,
                          p->data);
                return NULL;
        }
        if (p->osd_id < -1) {
                error_set(err, EINVAL, "%s: invalid osd id %d", what, p->osd_id);
                return NULL;
        }
        if (p->crush_device_class && !ceph_name_is_valid(p->crush_device_class)) {
                error_set(err, EINVAL, "%s: invalid device class '%s'", what, p->crush_device_class);
                return NULL;
        }

        _cleanup_strv_free_ char **a = NULL;
        if (strv_extend(&a, "ceph-volume") < 0 || strv_extend(&a, mode) < 0 || strv_extend(&a, verb) < 0 ||
            strv_extend(&a, "--bluestore") < 0 || extend_opt(&a, "--data", p->data) < 0 ||
            extend_opt(&a, "--block.db", p->db) < 0 || extend_opt(&a, "--block.wal", p->wal) < 0 ||
            extend_opt(&a, "--crush-device-class", p->crush_device_class) < 0 ||
            (p->dmcrypt && strv_extend(&a, "--dmcrypt") < 0))
                return oom(err);
        if (p->osd_id >= 0 && (strv_extend(&a, "--osd-id") < 0 || strv_consume(&a, strprintf("%d", p->osd_id)) < 0))
                return oom(err);
        return TAKE_PTR(a);
}

char **ceph_volume_argv_raw_prepare(const CephVolumePrepare *p, Error *err) {
        return argv_bluestore("raw", "prepare", p, err);
}

char **ceph_volume_argv_lvm_create(const CephVolumePrepare *p, Error *err) {
        return argv_bluestore("lvm", "create", p, err);
}

char **ceph_volume_argv_raw_activate(const char *data, const char *db, const char *wal, Error *err) {
        const char *what = "ceph-volume raw activate";
        if (!check_device(what, "data", data, true, err) || !check_device(what, "block.db", db, false, err) ||
            !check_device(what, "block.wal", wal, false, err))
                return NULL;
        _cleanup_strv_free_ char **a = NULL;
        if (strv_extend(&a, "ceph-volume") < 0 || strv_extend(&a, "raw") < 0 || strv_extend(&a, "activate") < 0 ||
            extend_opt(&a, "--device", data) < 0 || extend_opt(&a, "--block.db", db) < 0 ||
            extend_opt(&a, "--block.wal", wal) < 0 || strv_extend(&a, "--no-systemd") < 0)
                return oom(err);
        return TAKE_PTR(a);
}

static char **argv_list(const char *kind, const char *device, Error *err) {
        if (device && !device_is_valid(device)) {
                error_set(err, EINVAL, "ceph-volume %s list: invalid device '%s'", kind, device);
                return NULL;
        }
        _cleanup_strv_free_ char **a = NULL;
        if (strv_extend(&a, "ceph-volume") < 0 || strv_extend(&a, kind) < 0 || strv_extend(&a, "list") < 0 ||
            (device && strv_extend(&a, device) < 0) || strv_extend(&a, "--format") < 0 || strv_extend(&a, "json") < 0)
                return oom(err);
        return TAKE_PTR(a);
}

char **ceph_volume_argv_raw_list(const char *device, Error *err) {
        return argv_list("raw", device, err);
}

char **ceph_volume_argv_lvm_list(const char *device, Error *err) {
        return argv_list("lvm", device, err);
}

bool ceph_volume_failed_on_vanished_device(const char *out, const char *err_text, const char *data) {
        const char *texts[] = { out, err_text };
        for (size_t i = 0; i < ELEMENTSOF(texts); i++)
                if (texts[i] && strstr(texts[i], " osd new "))
                        return false;
        const char *e = err_text ? strstr(err_text, "FileNotFoundError") : NULL;
        if (!e)
                return false;
        /* "FileNotFoundError: [Errno 2] No such file or directory: '/sys/block/loop7/loop7p2/...'" */
        const char *path = strstr(e, "'/sys/");
        if (!path)
                return false;
        path++;
        size_t n = strcspn(path, "'\n");
        const char *name = data ? strrchr(data, '/') : NULL;
        name = name ? name + 1 : data;
        if (isempty(name))
                return false;
        /* the device's own entry, or one of its partitions' (sys/block/NAME/..., sys/class/block/NAMEpN) */
        for (const char *c = path; c && c < path + n; c++) {
                c = strstr(c, name);
                if (!c || c >= path + n)
                        break;
                if (c[-1] == '/')
                        return false;
        }
        return true;
}

char **ceph_volume_argv_zap(const char *device, bool destroy, Error *err) {
        if (!device_is_valid(device)) {
                error_set(err, EINVAL, "ceph-volume lvm zap: invalid device '%s'", device ? device : "(none)");
                return NULL;
        }
        _cleanup_strv_free_ char **a = NULL;
        if (strv_extend(&a, "ceph-volume") < 0 || strv_extend(&a, "lvm") < 0 || strv_extend(&a, "zap") < 0 ||
            (destroy && strv_extend(&a, "--destroy") < 0) || strv_extend(&a, device) < 0)
                return oom(err);
        return TAKE_PTR(a);
}

/* ---- listings ---------------------------------------------------------------------- */

static void volume_osd_done(CephVolumeOsd *o) {
        free(o->osd_uuid);
        free(o->ceph_fsid);
        free(o->type);
        free(o->device);
        free(o->device_db);
        free(o->device_wal);
        free(o->lv_path);
        free(o->crush_device_class);
}

CephVolumeList *ceph_volume_list_free(CephVolumeList *l) {
        if (!l)
                return NULL;
        for (size_t i = 0; i < l->n_osds; i++)
                volume_osd_done(&l->osds[i]);
        free(l->osds);
        free(l);
        return NULL;
}

static int volume_osd_cmp(const void *a, const void *b) {
        const CephVolumeOsd *x = a, *y = b;
        if (x->osd_id != y->osd_id)
                return x->osd_id < y->osd_id ? -1 : 1;
        return strcmp(x->osd_uuid ? x->osd_uuid : "", y->osd_uuid ? y->osd_uuid : "");
}

/* Both lists' start: a JSON object keyed by `keyed_by`, and a list with room for an OSD a key */
static int volume_list_start(const char *json, const char *what, const char *keyed_by, json_object **ret_root,
                             CephVolumeList **ret_list, Error *err) {
        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(json, what, &root, err);
        if (r < 0)
                return r;
        if (!json_object_is_type(root, json_type_object))
                return error_set(err, EINVAL, "%s: expected an object keyed by %s", what, keyed_by);

        _cleanup_(ceph_volume_list_freep) CephVolumeList *l = calloc(1, sizeof(CephVolumeList));
        if (!l)
                return -ENOMEM;
        size_t n = (size_t) json_object_object_length(root);
        l->osds = calloc(n ? n : 1, sizeof(CephVolumeOsd));
        if (!l->osds)
                return -ENOMEM;
        *ret_root = TAKE_PTR(root);
        *ret_list = TAKE_PTR(l);
        return 0;
}

int ceph_volume_raw_list_parse(const char *json, CephVolumeList **ret, Error *err) {
        const char *what = "ceph-volume raw list";
        _cleanup_json_ json_object *root = NULL;
        _cleanup_(ceph_volume_list_freep) CephVolumeList *l = NULL;
        int r = volume_list_start(json, what, "osd uuid", &root, &l, err);
        if (r < 0)
                return r;
        json_object_object_foreach(root, uuid, e) {
                CephVolumeOsd *o = &l->osds[l->n_osds++];
                o->source = CEPH_VOLUME_RAW;
                int64_t id;
                const char *device;
                if ((r = json_get_int(e, "osd_id", true, &id, what, err)) < 0 ||
                    (r = json_get_string(e, "device", true, &device, what, err)) < 0)
                        return error_prefix(err, r, "osd %s", uuid);
                if (id < 0 || id > INT32_MAX)
                        return error_set(err, ERANGE, "%s: osd %s: id out of range", what, uuid);
                o->osd_id = (int) id;
                o->device = strdup(device);
                if (!o->device || ceph_json_dup_string(e, "osd_uuid", &o->osd_uuid) < 0 ||
                    ceph_json_dup_string(e, "ceph_fsid", &o->ceph_fsid) < 0 ||
                    ceph_json_dup_string(e, "type", &o->type) < 0 ||
                    ceph_json_dup_string(e, "device_db", &o->device_db) < 0 ||
                    ceph_json_dup_string(e, "device_wal", &o->device_wal) < 0)
                        return -ENOMEM;
                if (!o->osd_uuid && !(o->osd_uuid = strdup(uuid)))
                        return -ENOMEM;
        }
        qsort(l->osds, l->n_osds, sizeof(CephVolumeOsd), volume_osd_cmp);
        *ret = TAKE_PTR(l);
        return 0;
}

static const char *tag(json_object *tags, const char *key) {
        json_object *v;
        if (!tags || !json_object_object_get_ex(tags, key, &v) || !json_object_is_type(v, json_type_string))
                return NULL;
        const char *s = json_object_get_string(v);
        return isempty(s) ? NULL : s;
}

/* the device under an `lvm list` entry: the first PV for an LV, the path for a partition */
static const char *entry_device(json_object *e) {
        json_object *devices, *path;
        if (json_object_object_get_ex(e, "devices", &devices) && json_object_is_type(devices, json_type_array) &&
            json_object_array_length(devices) > 0) {
                const char *d = json_object_get_string(json_object_array_get_idx(devices, 0));
                if (!isempty(d))
                        return d;
        }
        if (json_object_object_get_ex(e, "path", &path) && json_object_is_type(path, json_type_string))
                return json_object_get_string(path);
        return NULL;
}

static int set_once(char **field, const char *value) {
        if (*field || !value)
                return 0;
        *field = strdup(value);
        return *field ? 0 : -ENOMEM;
}

int ceph_volume_lvm_list_parse(const char *json, CephVolumeList **ret, Error *err) {
        const char *what = "ceph-volume lvm list";
        _cleanup_json_ json_object *root = NULL;
        _cleanup_(ceph_volume_list_freep) CephVolumeList *l = NULL;
        int r = volume_list_start(json, what, "osd id", &root, &l, err);
        if (r < 0)
                return r;

        /* {"0": [ {block LV}, {db LV or {"type":"db","path":"/dev/sdb1","tags":{PARTUUID}}} ]} */
        json_object_object_foreach(root, key, entries) {
                char *end;
                errno = 0;
                long id = strtol(key, &end, 10);
                if (errno != 0 || end == key || *end != 0 || id < 0 || id > INT32_MAX)
                        return error_set(err, EINVAL, "%s: key '%s' is not an osd id", what, key);
                if (!json_object_is_type(entries, json_type_array))
                        return error_set(err, EINVAL, "%s: osd %s: expected an array", what, key);

                CephVolumeOsd *o = &l->osds[l->n_osds++];
                o->source = CEPH_VOLUME_LVM;
                o->osd_id = (int) id;
                for (size_t i = 0; i < json_object_array_length(entries); i++) {
                        json_object *e = json_object_array_get_idx(entries, i), *tags = NULL;
                        const char *type = NULL;
                        if (json_get_string(e, "type", true, &type, what, err) < 0)
                                return error_prefix(err, EINVAL, "osd %s", key);
                        (void) json_object_object_get_ex(e, "tags", &tags);
                        const char *dev = entry_device(e);

                        if (streq(type, "block") || streq(type, "data")) {
                                const char *lv_path = NULL;
                                (void) json_get_string(e, "lv_path", false, &lv_path, what, NULL);
                                if (set_once(&o->device, dev) < 0 || set_once(&o->lv_path, lv_path) < 0 ||
                                    set_once(&o->osd_uuid, tag(tags, "ceph.osd_fsid")) < 0 ||
                                    set_once(&o->ceph_fsid, tag(tags, "ceph.cluster_fsid")) < 0 ||
                                    set_once(&o->crush_device_class, tag(tags, "ceph.crush_device_class")) < 0 ||
                                    set_once(&o->type, streq(type, "block") ? "bluestore" : "filestore") < 0)
                                        return -ENOMEM;
                        } else if (streq(type, "db")) {
                                if (set_once(&o->device_db, dev) < 0)
                                        return -ENOMEM;
                        } else if (streq(type, "wal")) {
                                if (set_once(&o->device_wal, dev) < 0)
                                        return -ENOMEM;
                        }
                        /* the db/wal LV carries the same osd/cluster tags */
                        if (set_once(&o->osd_uuid, tag(tags, "ceph.osd_fsid")) < 0 ||
                            set_once(&o->ceph_fsid, tag(tags, "ceph.cluster_fsid")) < 0)
                                return -ENOMEM;
                }
                if (!o->device)
                        return error_set(err, EINVAL, "%s: osd %s has no block or data volume", what, key);
        }
        qsort(l->osds, l->n_osds, sizeof(CephVolumeOsd), volume_osd_cmp);
        *ret = TAKE_PTR(l);
        return 0;
}

static bool fsid_matches(const CephVolumeOsd *o, const char *fsid) {
        return !fsid || (o->ceph_fsid && strcasecmp(o->ceph_fsid, fsid) == 0);
}

const CephVolumeOsd *ceph_volume_list_find_device(const CephVolumeList *l, const char *device,
                                                  const char *fsid) {
        for (size_t i = 0; l && device && i < l->n_osds; i++) {
                const CephVolumeOsd *o = &l->osds[i];
                if (!fsid_matches(o, fsid))
                        continue;
                if (streq_ptr(o->device, device) || streq_ptr(o->device_db, device) ||
                    streq_ptr(o->device_wal, device) || streq_ptr(o->lv_path, device))
                        return o;
        }
        return NULL;
}

const CephVolumeOsd *ceph_volume_list_find_osd(const CephVolumeList *l, int osd_id, const char *fsid) {
        for (size_t i = 0; l && i < l->n_osds; i++)
                if (l->osds[i].osd_id == osd_id && fsid_matches(&l->osds[i], fsid))
                        return &l->osds[i];
        return NULL;
}
