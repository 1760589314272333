/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fake-host.h"

#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "transport/transport.h"

json_object *fake_response(json_object *request, json_object *result) {
        json_object *resp = json_object_new_object();
        json_add(resp, "id", json_object_get(json_object_object_get(request, "id")));
        json_add_bool(resp, "ok", result != NULL);
        if (result)
                json_add(resp, "result", result);
        return resp;
}

json_object *fake_admin_response(json_object *request, CephAsRunFn run, void *userdata) {
        const char *op = json_object_get_string(json_object_object_get(request, "op"));
        json_object *args = json_object_object_get(request, "args"), *result = NULL;
        int e = 0;
        char *msg = NULL;
        if (streq(op, "run"))
                result = run(args, userdata, &e, &msg);
        else if (streq(op, "ceph-command"))
                result = ceph_as_run(args, NULL, run, userdata, &e, &msg);
        free(msg);
        return fake_response(request, result ? result : json_object_new_object());
}

static CephAsRunFn fake_admin_run;

static void *fake_admin_state_new(void) {
        return &fake_admin_run; /* no state: the test's handler keeps its own */
}

static void fake_admin_state_free(void *state) {
}

static int fake_admin_dispatch(void *state, json_object *request, json_object **ret_response,
                               void (*progress)(json_object *progress, void *userdata), void *userdata) {
        *ret_response = fake_admin_response(request, fake_admin_run, NULL);
        return 0;
}

void fake_admin_install(CephAsRunFn run) {
        static const TransportLocalAgent agent = {
                .state_new = fake_admin_state_new,
                .state_free = fake_admin_state_free,
                .dispatch = fake_admin_dispatch,
        };
        fake_admin_run = run;
        transport_set_local_agent(&agent);
}

void *fake_host_new(void) {
        return calloc(1, sizeof(FakeHost));
}

void fake_host_free(void *state) {
        FakeHost *h = state;
        if (!h)
                return;
        free(h->host);
        free(h);
}

json_object *fake_host_configure(FakeHost *h, json_object *args) {
        free(h->host);
        h->host = strdup(json_object_get_string(json_object_object_get(args, "host")));
        return json_object_new_object();
}
