/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the parsers of src/ceph (what the `ceph` CLI and ceph-volume print).
 * The first byte picks the parser, the rest is its text (NUL-terminated, as the callers
 * pass it). Every success is walked with the lookup functions the controller uses, and
 * every failure must carry a message: a parser that fails silently, reads past its input
 * or leaks is a crash here. Seeds: tests/data/ceph, prefixed with their parser's byte
 * (run-fuzz.sh builds the seed corpus). */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basic/strv.h"
#include "ceph/ceph-volume.h"
#include "ceph/ceph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The parser numbers, also used by run-fuzz.sh to prefix the seeds: keep in step. */
enum {
        P_OSD_DUMP,
        P_OSD_TREE,
        P_OSD_METADATA,
        P_HEALTH,
        P_PG_STAT,
        P_PG_DUMP,
        P_VERSIONS,
        P_VERSION,
        P_OK_TO_STOP,
        P_SAFE_TO_DESTROY,
        P_OSD_NEW,
        P_CONFIG_VALUE,
        P_CONFIG_DUMP,
        P_LOCK,
        P_VOLUME_RAW_LIST,
        P_VOLUME_LVM_LIST,
        _P_MAX,
};

/* A failure must say why. */
static void check(int r, const Error *err) {
        if (r < 0 && (err->code == 0 || !err->message[0]))
                __builtin_trap();
}

static void fuzz_osd_dump(const char *text) {
        Error err = {};
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        int r = ceph_osd_dump_parse(text, &d, &err);
        check(r, &err);
        if (r < 0)
                return;
        if (!d->flags)
                __builtin_trap();
        int ids[4] = { 0, 1, -1, d->max_osd };
        for (size_t i = 0; i < d->n_osds; i++) {
                if (ceph_osd_dump_find_osd(d, d->osds[i].id) == NULL)
                        __builtin_trap();
                if (d->osds[i].uuid)
                        (void) ceph_osd_dump_find_uuid(d, d->osds[i].uuid);
                if (i > 0 && d->osds[i - 1].id > d->osds[i].id)
                        __builtin_trap(); /* promised: sorted by id */
        }
        (void) ceph_osd_dump_has_flag(d, "noout");
        Error e2 = {};
        check(ceph_osd_dump_check_ids(d, ids, 4, &e2), &e2);
}

static void fuzz_osd_tree(const char *text) {
        Error err = {};
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *t = NULL;
        int r = ceph_osd_tree_parse(text, &t, &err);
        check(r, &err);
        if (r < 0)
                return;
        for (size_t i = 0; i < t->n_osds; i++) {
                if (ceph_osd_tree_find_osd(t, t->osds[i].id) == NULL)
                        __builtin_trap();
                (void) ceph_osd_tree_status_to_string(t->osds[i].status);
        }
        for (size_t i = 0; i < t->n_hosts; i++)
                if (t->hosts[i].name && ceph_osd_tree_find_host(t, t->hosts[i].name) == NULL)
                        __builtin_trap();
}

static void fuzz_osd_metadata(const char *text) {
        Error err = {};
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *l = NULL;
        int r = ceph_osd_metadata_parse(text, &l, &err);
        check(r, &err);
        if (r < 0)
                return;
        for (size_t i = 0; i < l->n_osds; i++) {
                if (ceph_osd_metadata_find(l, l->osds[i].id) == NULL)
                        __builtin_trap();
                STRV_FOREACH(dev, l->osds[i].devices)
                        (void) strlen(*dev);
        }
}

static void fuzz_health(const char *text) {
        Error err = {};
        _cleanup_(ceph_health_freep) CephHealth *h = NULL;
        int r = ceph_health_parse(text, &h, &err);
        check(r, &err);
        if (r < 0)
                return;
        (void) ceph_health_status_to_string(h->status);
        for (size_t i = 0; i < h->n_checks; i++) {
                if (!h->checks[i].details)
                        __builtin_trap(); /* promised: never NULL */
                if (h->checks[i].code && ceph_health_find(h, h->checks[i].code) == NULL)
                        __builtin_trap();
        }
}

static void fuzz_pg_stat(const char *text) {
        Error err = {};
        _cleanup_(ceph_pg_stat_freep) CephPgStat *s = NULL;
        int r = ceph_pg_stat_parse(text, &s, &err);
        check(r, &err);
        if (r < 0)
                return;
        (void) ceph_pg_stat_all_active_clean(s);
        (void) ceph_pg_stat_count(s, "active+clean");
        (void) ceph_pg_stat_count(s, "!active");
        for (size_t i = 0; i < s->n_states; i++)
                (void) ceph_pg_state_has(s->states[i].state, "degraded");
}

static void fuzz_pg_dump(const char *text) {
        Error err = {};
        _cleanup_(ceph_pg_dump_freep) CephPgDump *d = NULL;
        int r = ceph_pg_dump_parse(text, &d, &err);
        check(r, &err);
        if (r < 0)
                return;
        (void) ceph_pg_dump_count_unclean_on_osd(d, 0);
        for (size_t i = 0; i < d->n_pgs && i < 8; i++)
                for (size_t k = 0; k < d->pgs[i].n_up; k++)
                        (void) ceph_pg_dump_count_unclean_on_osd(d, d->pgs[i].up[k]);
}

static void fuzz_versions(const char *text) {
        Error err = {};
        CephVersions v;
        check(ceph_versions_parse(text, &v, &err), &err);
}

static void fuzz_version(const char *text) {
        Error err = {};
        CephVersion v;
        int r = ceph_version_parse(text, &v, &err);
        check(r, &err);
        if (r >= 0)
                (void) ceph_release_to_string(v.release);
}

/* The gates read an exit status and two streams: the text is "STATUS\0OUT\0ERR" with the
 * status from the byte after the selector. */
static void split3(const char *text, size_t len, const char **out, const char **err_text) {
        const char *end = text + len;
        *out = text;
        const char *z = memchr(text, 0, len);
        *err_text = z && z + 1 < end ? z + 1 : "";
}

static void fuzz_ok_to_stop(uint8_t status, const char *text, size_t len) {
        const char *out, *etext;
        split3(text, len, &out, &etext);
        Error err = {};
        _cleanup_(ceph_ok_to_stop_freep) CephOkToStop *o = NULL;
        check(ceph_ok_to_stop_parse(status, out, etext, &o, &err), &err);
}

static void fuzz_safe_to_destroy(uint8_t status, const char *text, size_t len) {
        const char *out, *etext;
        split3(text, len, &out, &etext);
        static const int osds[] = { 0, 1, 3 };
        Error err = {};
        _cleanup_(ceph_safe_to_destroy_freep) CephSafeToDestroy *s = NULL;
        int r = ceph_safe_to_destroy_parse(status, out, etext, osds, ELEMENTSOF(osds), &s, &err);
        check(r, &err);
        if (r >= 0)
                for (size_t i = 0; i < ELEMENTSOF(osds); i++)
                        (void) ceph_safe_to_destroy_is_safe(s, osds[i]);
}

static void fuzz_small(unsigned which, const char *text) {
        Error err = {};
        int r;
        if (which == P_OSD_NEW) {
                int id = -1;
                r = ceph_osd_new_parse(text, &id, &err);
                check(r, &err);
                if (r >= 0 && id < 0)
                        __builtin_trap();
        } else if (which == P_CONFIG_VALUE) {
                _cleanup_(freep) char *v = NULL;
                uint64_t u;
                check(ceph_config_value_parse(text, &v, &err), &err);
                Error e2 = {};
                check(ceph_config_value_parse_u64(text, &u, &e2), &e2);
        } else if (which == P_CONFIG_DUMP) {
                _cleanup_(ceph_config_dump_freep) CephConfigDump *d = NULL;
                r = ceph_config_dump_parse(text, &d, &err);
                check(r, &err);
                if (r >= 0)
                        for (size_t i = 0; i < d->n_entries; i++)
                                if (d->entries[i].section && d->entries[i].name)
                                        (void) ceph_config_dump_find(d, d->entries[i].section, d->entries[i].name);
        } else if (which == P_LOCK) {
                _cleanup_(ceph_lock_freep) CephLock *l = NULL;
                r = ceph_lock_parse(text, &l, &err);
                check(r, &err);
                if (r >= 0) {
                        /* what is parsed can be written back and parsed again */
                        _cleanup_(freep) char *s = ceph_lock_format(l);
                        _cleanup_(ceph_lock_freep) CephLock *again = NULL;
                        Error e2 = {};
                        if (s && ceph_lock_parse(s, &again, &e2) < 0)
                                __builtin_trap();
                }
        }
}

static void fuzz_volume(unsigned which, const char *text) {
        Error err = {};
        _cleanup_(ceph_volume_list_freep) CephVolumeList *l = NULL;
        int r = which == P_VOLUME_RAW_LIST ? ceph_volume_raw_list_parse(text, &l, &err)
                                           : ceph_volume_lvm_list_parse(text, &l, &err);
        check(r, &err);
        if (r < 0)
                return;
        for (size_t i = 0; i < l->n_osds; i++) {
                if (l->osds[i].device)
                        (void) ceph_volume_list_find_device(l, l->osds[i].device, l->osds[i].ceph_fsid);
                (void) ceph_volume_list_find_osd(l, l->osds[i].osd_id, NULL);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1)
                return 0;
        unsigned which = data[0] % _P_MAX;
        uint8_t status = 0;
        data++, size--;
        if (which == P_OK_TO_STOP || which == P_SAFE_TO_DESTROY) {
                if (size < 1)
                        return 0;
                status = data[0];
                data++, size--;
        }
        /* the callers hand over a C string: the bytes up to the first NUL count */
        char *text = malloc(size + 1);
        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = 0;

        switch (which) {
        case P_OSD_DUMP:        fuzz_osd_dump(text); break;
        case P_OSD_TREE:        fuzz_osd_tree(text); break;
        case P_OSD_METADATA:    fuzz_osd_metadata(text); break;
        case P_HEALTH:          fuzz_health(text); break;
        case P_PG_STAT:         fuzz_pg_stat(text); break;
        case P_PG_DUMP:         fuzz_pg_dump(text); break;
        case P_VERSIONS:        fuzz_versions(text); break;
        case P_VERSION:         fuzz_version(text); break;
        case P_OK_TO_STOP:      fuzz_ok_to_stop(status, text, size); break;
        case P_SAFE_TO_DESTROY: fuzz_safe_to_destroy(status, text, size); break;
        case P_VOLUME_RAW_LIST:
        case P_VOLUME_LVM_LIST: fuzz_volume(which, text); break;
        default:                fuzz_small(which, text); break;
        }
        free(text);
        return 0;
}
