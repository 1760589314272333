/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "controller/step-requests.h"
#include "basic/json-util.h"

static json_object *string_or_null(const char *v) {
        return v ? json_object_new_string(v) : NULL;
}

int agent_expect_to_json(const StepSeen *s, json_object **ret) {
        _cleanup_json_ json_object *e = json_object_new_object();
        if (!e)
                return -ENOMEM;
        if (s->content) {
                const struct {
                        const char *key, *value;
                } f[] = { { "type", s->type }, { "uuid", s->uuid }, { "pttype", s->pttype }, { "ptuuid", s->ptuuid } };
                for (size_t i = 0; i < ELEMENTSOF(f); i++) {
                        json_object *v = string_or_null(f[i].value);
                        if ((f[i].value && !v) || json_object_object_add(e, f[i].key, v) < 0) {
                                json_object_put(v);
                                return -ENOMEM;
                        }
                }
        }
        if (json_add_u64(e, "size", s->size) < 0 || (s->identity && json_add_string(e, "identity", s->identity) < 0) ||
            (s->partuuid && json_add_string(e, "partuuid", s->partuuid) < 0) ||
            (s->start > 0 && json_add_u64(e, "start", s->start) < 0))
                return -ENOMEM;
        if (s->osd_uuid) {
                json_object *o = json_object_new_object();
                if (!o || json_add(e, "osd", o) < 0 || json_add_string(o, "osd_uuid", s->osd_uuid) < 0 ||
                    (s->whoami >= 0 && json_add_int(o, "whoami", s->whoami) < 0) ||
                    (s->ceph_fsid && json_add_string(o, "ceph_fsid", s->ceph_fsid) < 0))
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(e);
        return 0;
}

/* args[key] = what the plan saw of a target (docs/agent.md "expect"); nothing when unknown. */
static int add_expect(json_object *a, const char *key, const StepSeen *s) {
        if (!s->set)
                return 0;
        json_object *e = NULL;
        if (agent_expect_to_json(s, &e) < 0 || json_add(a, key, e) < 0)
                return -ENOMEM;
        return 0;
}

/* Local names so that this file needs only the layout header, not its library. */
int agent_request_from_step(const Step *s, json_object **ret) {
        _cleanup_json_ json_object *req = json_object_new_object();
        json_object *a = json_object_new_object();
        const char *op = NULL;

        if (!req || !a) {
                json_object_put(a);
                return -ENOMEM;
        }
        if (json_add(req, "args", a) < 0)
                return -ENOMEM;

        switch (s->kind) {
        case STEP_WIPE:
                op = "wipe";
                json_add_string(a, "device", s->device);
                break;
        case STEP_CREATE_GPT:
                op = "create-gpt";
                json_add_string(a, "device", s->device);
                break;
        case STEP_CREATE_PARTITION:
                op = "create-partition";
                json_add_string(a, "device", s->device);
                json_add_u64(a, "number", s->partnum);
                json_add_u64(a, "offset", s->offset);
                json_add_u64(a, "size", s->size);
                json_add_string(a, "name", s->partname);
                json_add_string(a, "type_guid", s->type_guid);
                break;
        case STEP_MAKE_BCACHE_BACKING:
                op = "make-bcache";
                json_add_string(a, "device", s->device);
                json_add_string(a, "role", "backing");
                break;
        case STEP_MAKE_BCACHE_CACHE:
                op = "make-bcache";
                json_add_string(a, "device", s->device);
                json_add_string(a, "partname", s->partname);
                json_add_string(a, "role", "cache");
                break;
        case STEP_BCACHE_ATTACH:
                op = "bcache-attach";
                json_add_string(a, "backing", s->device);
                json_add_string(a, "cache_device", s->part_device);
                json_add_string(a, "cache_partname", s->partname);
                break;
        case STEP_BCACHE_TUNE:
                op = "bcache-tune";
                json_add_string(a, "backing", s->device);
                json_add_string(a, "cache_mode", bcache_cache_mode_to_string(s->bcache.cache_mode));
                json_add_u64(a, "sequential_cutoff", s->bcache.sequential_cutoff);
                json_add_int(a, "writeback_percent", s->bcache.writeback_percent);
                break;
        case STEP_CREATE_OSD:
                /* the op itself arrives with the Ceph work (issue 5) */
                op = "osd-create";
                json_add_string(a, "device", s->device);
                json_add_bool(a, "data_is_bcache", s->data_is_bcache);
                json_add_bool(a, "encrypted", s->encrypted);
                json_add_string(a, "db_device", s->db_device);
                json_add_string(a, "db_partname", s->db_partname);
                json_add_string(a, "wal_device", s->wal_device);
                json_add_string(a, "wal_partname", s->wal_partname);
                json_add_string(a, "journal_device", s->journal_device);
                json_add_string(a, "journal_partname", s->journal_partname);
                json_add_string(a, "device_class", s->device_class);
                json_add_string(a, "objectstore", objectstore_to_string(s->objectstore));
                json_add_u64(a, "slot", s->slot);
                /* what the plan saw; the agent touches it only with the controller's
                 * "redo_osd_fsid", given after it proved the OSD is cephprov's */
                json_add_string(a, "half_made_osd_fsid", s->half_made_osd_fsid);
                break;
        default:
                return -EINVAL;
        }
        if (add_expect(a, "expect", &s->seen) < 0 || add_expect(a, "db_expect", &s->db_seen) < 0 ||
            add_expect(a, "wal_expect", &s->wal_seen) < 0)
                return -ENOMEM;
        if (json_add_string(req, "op", op) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(req);
        return 0;
}

/* Keep in step with the ops: what each one execs, loads or needs from the kernel. Wipe
 * needs only libblkid (linked) and BLKPG; the agent runs neither sgdisk nor partx. */
unsigned agent_step_needs(const Step *s) {
        switch (s->kind) {
        case STEP_WIPE:
                return 0;
        case STEP_CREATE_GPT:
        case STEP_CREATE_PARTITION:
                return AGENT_NEED_LIBPARTED;
        case STEP_MAKE_BCACHE_BACKING:
        case STEP_MAKE_BCACHE_CACHE:
                /* make-bcache formats, then the agent registers through /sys/fs/bcache */
                return AGENT_NEED_BCACHE | AGENT_NEED_MAKE_BCACHE;
        case STEP_BCACHE_ATTACH:
                return AGENT_NEED_BCACHE;
        case STEP_BCACHE_TUNE:
                return AGENT_NEED_BCACHE | AGENT_NEED_UDEV_RULES;
        case STEP_CREATE_OSD:
                return AGENT_NEED_CEPH_VOLUME | AGENT_NEED_CEPH_OSD | AGENT_NEED_SYSTEMCTL | AGENT_NEED_OSD_KEYRING |
                       (s->data_is_bcache ? AGENT_NEED_BCACHE : 0) | (s->encrypted ? AGENT_NEED_DMCRYPT : 0);
        default:
                return 0;
        }
}
