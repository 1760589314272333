/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* For the unit tests whose hosts' agents are FAKES behind the local transport
 * (transport_set_local_agent()): the response a fake gives, a fake admin host that answers
 * the `ceph` CLI through the test's "run" handler, the state of a fake that knows its host
 * from "configure", and the layout of one local admin host. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "ceph-as-run.h"
#include "basic/macro.h"
#include "basic/strv.h"
#include "layout/layout.h"
#include "test.h"

/* The response to `request`: its id, "ok" when `result` is not NULL, and `result` (taken). */
json_object *fake_response(json_object *request, json_object *result);

/* A fake admin host's answer to `request`: "run" answered by `run`, "ceph-command" by `run`
 * through ceph_as_run(), any other op with an empty result; always ok. */
json_object *fake_admin_response(json_object *request, CephAsRunFn run, void *userdata);

/* Makes every local host's agent a fake admin host: each request answered by
 * fake_admin_response() with `run` (its userdata NULL). */
void fake_admin_install(CephAsRunFn run);

/* A fake agent's state: the host its "configure" named. */
typedef struct FakeHost {
        char *host;
} FakeHost;

void *fake_host_new(void);
void fake_host_free(void *state);

/* "configure" of `args` on `h`: the host remembered; an empty result. */
json_object *fake_host_configure(FakeHost *h, json_object *args);

/* The layout "unit.yaml" of one local host `admin`, the admin host of cluster `cluster`, with
 * profile p (allowed `allow`, a YAML flow list; data /dev/disk/by-id/unit-a) and `extra` (YAML
 * lines, "" for none) after the cluster section. A check that it loads; NULL, its message
 * printed, when it does not. */
static inline Layout *fake_admin_layout(const char *cluster, const char *admin, const char *extra, const char *allow) {
        _cleanup_(freep) char *yaml = strprintf("cluster:\n"
                                                "  name: %s\n"
                                                "  admin_host: %s\n"
                                                "%s"
                                                "profiles:\n"
                                                "  p:\n"
                                                "    allow: %s\n"
                                                "    data:\n"
                                                "      devices: [/dev/disk/by-id/unit-a]\n"
                                                "hosts:\n"
                                                "  - name: %s\n"
                                                "    transport: local\n"
                                                "    profile: p\n",
                                                cluster, admin, extra, allow, admin);
        Error err = {};
        Layout *l = NULL;
        CHECK_INTEQ(yaml ? layout_load_string("unit.yaml", yaml, strlen(yaml), &l, &err) : -ENOMEM, 0);
        if (!l)
                fprintf(stderr, "%s\n", err.message);
        return l;
}
