/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cluster's gates before stopping or destroying OSDs: ok-to-stop, safe-to-destroy.
 *
 * Both commands answer "not now" with exit status 16 (EBUSY) and a line on stderr. What
 * they print on stdout differs between the two and between -f json and plain output; the
 * captured cases are in tests/data/ceph/ (ok-to-stop-*, safe-to-destroy-*). */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph-internal.h"
#include "ceph.h"

static bool blank(const char *s) {
        for (; s && *s; s++)
                if (!isspace((unsigned char) *s))
                        return false;
        return true;
}

static int other_exit(const char *cmd, int exit_status, const char *err_text, Error *err) {
        _cleanup_(freep) char *line = ceph_first_line(err_text);
        int code = exit_status > 0 && exit_status < 256 ? exit_status : EIO;
        return error_set(err, code, "%s failed with exit status %d: %s", cmd, exit_status,
                         line ? line : "(no message)");
}

/* ---- ok-to-stop -------------------------------------------------------------------- */

CephOkToStop *ceph_ok_to_stop_free(CephOkToStop *o) {
        if (!o)
                return NULL;
        free(o->osds);
        free(o->message);
        free(o);
        return NULL;
}

static size_t array_len(json_object *o, const char *key) {
        json_object *v;
        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_array))
                return 0;
        return json_object_array_length(v);
}

int ceph_ok_to_stop_parse(int exit_status, const char *out, const char *err_text, CephOkToStop **ret,
                          Error *err) {
        const char *what = "ceph osd ok-to-stop";
        if (exit_status != 0 && exit_status != CEPH_EXIT_EBUSY)
                return other_exit(what, exit_status, err_text, err);

        _cleanup_(ceph_ok_to_stop_freep) CephOkToStop *o = calloc(1, sizeof(CephOkToStop));
        if (!o)
                return -ENOMEM;
        o->ok = exit_status == 0;
        o->message = ceph_first_line(err_text);

        /* an EBUSY may come without JSON (e.g. "osd.7 does not exist"-style refusals) */
        if (blank(out)) {
                if (exit_status == 0)
                        return error_set(err, EINVAL, "%s: exit status 0 but no output", what);
                *ret = TAKE_PTR(o);
                return 0;
        }

        _cleanup_json_ json_object *root = NULL;
        int r = ceph_json_parse(out, what, &root, err);
        if (r < 0)
                return r;
        bool ok;
        r = json_get_bool(root, "ok_to_stop", true, &ok, what, err);
        if (r < 0)
                return r;
        /* the exit status and the JSON must agree; when they do not, refuse to guess */
        if (ok != o->ok)
                return error_set(err, EPROTO, "%s: exit status %d contradicts \"ok_to_stop\": %s", what,
                                 exit_status, ok ? "true" : "false");

        json_object *osds;
        if (json_get_array(root, "osds", false, &osds, what, NULL) == 0) {
                r = ceph_json_int_array(osds, what, &o->osds, &o->n_osds, err);
                if (r < 0)
                        return r;
        }
        (void) json_get_u64(root, "num_ok_pgs", false, &o->num_ok_pgs, what, NULL);
        (void) json_get_u64(root, "num_not_ok_pgs", false, &o->num_not_ok_pgs, what, NULL);
        o->n_become_inactive = array_len(root, "bad_become_inactive");
        o->n_become_degraded = array_len(root, "ok_become_degraded") + array_len(root, "ok_become_more_degraded");
        *ret = TAKE_PTR(o);
        return 0;
}

/* ---- safe-to-destroy --------------------------------------------------------------- */

CephSafeToDestroy *ceph_safe_to_destroy_free(CephSafeToDestroy *s) {
        if (!s)
                return NULL;
        free(s->safe);
        free(s->active);
        free(s->missing_stats);
        free(s->stored_pgs);
        free(s->message);
        free(s);
        return NULL;
}

static int get_ids(json_object *root, const char *key, int **ret, size_t *ret_n, Error *err) {
        json_object *a;
        int r = json_get_array(root, key, false, &a, "ceph osd safe-to-destroy", err);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        return ceph_json_int_array(a, "ceph osd safe-to-destroy", ret, ret_n, err);
}

/* The plain form's line "OSD(s) 0,3 are safe to destroy without reducing data durability."
 * (OSDMonitor prints the set with ','; spaces are taken too): the ids it names, only those. */
static int plain_safe_ids(const char *line, int **ret, size_t *ret_n, Error *err) {
        const char *what = "ceph osd safe-to-destroy";
        line += strspn(line, " \t\r\n");
        const char *p = startswith(line, "OSD(s) ") ? line + strlen("OSD(s) ") : NULL;
        const char *end = p ? strstr(p, " are safe to destroy") : NULL;
        _cleanup_(freep) char *first = ceph_first_line(line);
        if (!end)
                return error_set(err, EBADMSG, "%s: not an answer: '%s'", what, first ? first : "");
        _cleanup_(freep) int *ids = calloc((size_t) (end - p) + 1, sizeof(int));
        size_t n = 0;
        if (!ids)
                return -ENOMEM;
        while (p < end) {
                if (*p == ',' || *p == ' ') {
                        p++;
                        continue;
                }
                char *e;
                errno = 0;
                long v = strtol(p, &e, 10);
                if (e == p || errno != 0 || v < 0 || v > INT_MAX || e > end || (e < end && *e != ',' && *e != ' '))
                        return error_set(err, EBADMSG, "%s: not an OSD id list: '%s'", what, first ? first : "");
                ids[n++] = (int) v;
                p = e;
        }
        if (n == 0)
                return error_set(err, EBADMSG, "%s: names no OSD: '%s'", what, first ? first : "");
        *ret = TAKE_PTR(ids);
        *ret_n = n;
        return 0;
}

int ceph_safe_to_destroy_parse(int exit_status, const char *out, const char *err_text, const int *osds, size_t n_osds,
                               CephSafeToDestroy **ret, Error *err) {
        const char *what = "ceph osd safe-to-destroy";
        if (exit_status != 0 && exit_status != CEPH_EXIT_EBUSY)
                return other_exit(what, exit_status, err_text, err);

        _cleanup_(ceph_safe_to_destroy_freep) CephSafeToDestroy *s = calloc(1, sizeof(CephSafeToDestroy));
        if (!s)
                return -ENOMEM;
        s->message = ceph_first_line(err_text);

        int r;
        const char *plain = out ? out + strspn(out, " \t\r\n") : "";
        if (exit_status == 0 && startswith(plain, "OSD(s) ")) {
                if ((r = plain_safe_ids(plain, &s->safe, &s->n_safe, err)) < 0)
                        return r;
        } else if (exit_status == 0 && blank(out)) {
                /* the plain form says it on stderr; exit 0 with nothing to read is no answer,
                 * and no answer is never "safe" */
                if (blank(err_text))
                        return error_set(err, EBADMSG, "%s: exit status 0 but no answer (stdout and stderr empty)",
                                         what);
                if ((r = plain_safe_ids(err_text, &s->safe, &s->n_safe, err)) < 0)
                        return r;
        } else if (!blank(out)) {
                _cleanup_json_ json_object *root = NULL;
                if ((r = ceph_json_parse(out, what, &root, err)) < 0)
                        return r;
                if (!json_object_is_type(root, json_type_object))
                        return error_set(err, EBADMSG, "%s: the answer is not a JSON object", what);
                if ((r = get_ids(root, "safe_to_destroy", &s->safe, &s->n_safe, err)) < 0 ||
                    (r = get_ids(root, "active", &s->active, &s->n_active, err)) < 0 ||
                    (r = get_ids(root, "missing_stats", &s->missing_stats, &s->n_missing_stats, err)) < 0 ||
                    (r = get_ids(root, "stored_pgs", &s->stored_pgs, &s->n_stored_pgs, err)) < 0)
                        return r;
                if (exit_status == CEPH_EXIT_EBUSY && s->n_safe > 0 && s->n_safe == n_osds)
                        return error_set(err, EPROTO, "%s: exit status 16 but every OSD listed safe", what);
        }
        /* exit 16 without JSON: nothing safe (stderr says why) */
        *ret = TAKE_PTR(s);
        return 0;
}

bool ceph_safe_to_destroy_is_safe(const CephSafeToDestroy *s, int osd) {
        for (size_t i = 0; s && i < s->n_safe; i++)
                if (s->safe[i] == osd)
                        return true;
        return false;
}
