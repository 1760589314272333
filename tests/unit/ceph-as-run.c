/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ceph-as-run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "ceph/ceph.h"

json_object *ceph_as_run(json_object *args, const char *binary, CephAsRunFn run, void *userdata, int *ret_errno,
                         char **ret_error) {
        json_object *list = json_object_object_get(args, "commands");
        const char *cluster = json_object_get_string(json_object_object_get(args, "cluster"));
        size_t n = json_object_array_length(list);
        json_object *answers = json_object_new_array(), *res = json_object_new_object();
        json_add(res, "answers", answers);
        for (size_t i = 0; i < n; i++) {
                json_object *c = json_object_array_get_idx(list, i);
                const char *target = json_object_get_string(json_object_object_get(c, "target"));
                const char *input = json_object_get_string(json_object_object_get(c, "input"));
                CephCommand cmd = { .target = streq(target, "mgr") ? CEPH_TARGET_MGR
                                              : streq(target, "osd") ? CEPH_TARGET_OSD
                                                                     : CEPH_TARGET_MON,
                                    .osd = json_object_get_int(json_object_object_get(c, "osd")),
                                    .cmd = json_object_object_get(c, "cmd"),
                                    .input = json_object_object_get_ex(c, "input", NULL) };
                _cleanup_strv_free_ char **w = ceph_command_to_words(&cmd);
                _cleanup_strv_free_ char **argv = NULL;
                strv_extend(&argv, binary ? binary : "ceph");
                strv_extend(&argv, "--cluster");
                strv_extend(&argv, cluster ? cluster : "ceph");
                strv_extend(&argv, "--connect-timeout");
                strv_extend(&argv, "30");
                STRV_FOREACH(x, w)
                        strv_extend(&argv, *x);
                _cleanup_json_ json_object *ra = json_object_new_object();
                json_add(ra, "argv", json_array_new_strv(argv));
                json_add_string(ra, "stdin", input);
                json_add_int(ra, "timeout", 120);
                int e = 0;
                char *msg = NULL;
                _cleanup_json_ json_object *rr = run(ra, userdata, &e, &msg);
                json_object *a = json_object_new_object();
                json_object_array_add(answers, a);
                if (!rr) {
                        if (n == 1) {
                                json_object_put(res);
                                *ret_errno = e ? e : EIO;
                                *ret_error = msg;
                                return NULL;
                        }
                        json_add_string(a, "error", msg ? msg : "failed");
                        free(msg);
                        continue;
                }
                int code = json_object_get_int(json_object_object_get(rr, "exit"));
                const char *out = json_object_get_string(json_object_object_get(rr, "stdout"));
                const char *er = json_object_get_string(json_object_object_get(rr, "stderr"));
                er = er ? er : "";
                /* "Error ENOENT: text\n" → "text" */
                if (strncmp(er, "Error E", 7) == 0 && strchr(er, ':'))
                        er = strchr(er, ':') + 1 + (strchr(er, ':')[1] == ' ');
                size_t len = strlen(er);
                while (len && er[len - 1] == '\n')
                        len--;
                json_add_int(a, "rc", -code);
                json_add(a, "status", json_object_new_string_len(er, (int) len));
                json_add_string(a, "out", out ? out : "");
                json_add(a, "ms", json_object_new_double(0));
        }
        return res;
}
