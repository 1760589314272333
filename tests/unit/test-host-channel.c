/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* host_channel_open(), the one way the controller reaches a host's agent (the fleet's
 * session, the cluster client, the OSD stage's extra channels): what it configures the
 * agent with, and that a failure leaves nothing open. The agent here is a FAKE in-process
 * dispatcher (the local transport's hook) that records each request and each agent state
 * made and freed; the real agent over SSH is the lab tier's. */

#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/strv.h"
#include "controller/ceph-admin.h"
#include "controller/hosts.h"
#include "layout/layout.h"
#include "fake-host.h"
#include "test.h"

static struct {
        char **requests;   /* "op args-json" in order */
        int states;        /* agent states alive */
        bool fail_configure;
} fake;

static void *fake_state_new(void) {
        __atomic_add_fetch(&fake.states, 1, __ATOMIC_SEQ_CST);
        return &fake;
}

static void fake_state_free(void *state) {
        __atomic_sub_fetch(&fake.states, 1, __ATOMIC_SEQ_CST);
}

static pthread_mutex_t fake_mu = PTHREAD_MUTEX_INITIALIZER; /* channels opened ahead: other threads */

static int fake_dispatch(void *state, json_object *request, json_object **ret_response,
                         void (*progress)(json_object *progress, void *userdata), void *userdata) {
        const char *op = json_object_get_string(json_object_object_get(request, "op"));
        json_object *args = json_object_object_get(request, "args");
        pthread_mutex_lock(&fake_mu);
        strv_consume(&fake.requests, strprintf("%s %s", op, json_object_to_json_string_ext(args, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)));
        pthread_mutex_unlock(&fake_mu);
        if (fake.fail_configure && streq(op, "configure")) {
                json_object *resp = fake_response(request, NULL), *e = json_object_new_object();
                json_add_int(e, "code", EINVAL);
                json_add_string(e, "message", "refused by the fake");
                json_add(resp, "error", e);
                *ret_response = resp;
        } else
                *ret_response = fake_response(request, json_object_new_object());
        return 0;
}

static const TransportLocalAgent fake_agent = {
        .state_new = fake_state_new,
        .state_free = fake_state_free,
        .dispatch = fake_dispatch,
};

static Layout *layout(void) {
        return fake_admin_layout("unit", "node1", "", "[/dev/disk/by-id/unit-a, /dev/disk/by-id/unit-b]");
}

static void reset(void) {
        fake.requests = strv_free(fake.requests);
        fake.fail_configure = false;
}

static void test_host_channel(void) {
        Error err = {};
        _cleanup_(layout_freep) Layout *l = layout();
        if (!l)
                return;
        const Host *h = layout_find_host(l, "node1");
        CHECK(h != NULL);
        transport_set_local_agent(&fake_agent);

        /* a host's channel: its name and allow-list, dry_run as asked */
        reset();
        HostChannel c = {};
        bool uploaded = true;
        CHECK_INTEQ(host_channel_open(h, HOST_CHANNEL_DRY_RUN, &c, &uploaded, &err), 0);
        CHECK(c.transport && c.channel && !uploaded);
        CHECK_INTEQ(fake.states, 1);
        CHECK_INTEQ(strv_length(fake.requests), 1);
        CHECK_STREQ(fake.requests ? fake.requests[0] : NULL,
                    "configure {\"allow\":[\"/dev/disk/by-id/unit-a\",\"/dev/disk/by-id/unit-b\"],"
                    "\"host\":\"node1\",\"dry_run\":true}");
        host_channel_close(&c);
        CHECK(!c.transport && !c.channel);
        CHECK_INTEQ(fake.states, 0);
        host_channel_close(&c); /* a closed channel again: nothing */

        /* the cluster client: no device allowed, no dry run */
        reset();
        CHECK_INTEQ(host_channel_open(h, HOST_CHANNEL_ADMIN, &c, NULL, &err), 0);
        CHECK_STREQ(fake.requests ? fake.requests[0] : NULL, "configure {\"host\":\"node1\",\"allow\":[]}");
        host_channel_close(&c);

        /* ceph_admin_open() opens its channel the same way */
        reset();
        _cleanup_(ceph_admin_closep) CephAdmin *a = NULL;
        CHECK_INTEQ(ceph_admin_open(l, &a, &err), 0);
        CHECK_STREQ(fake.requests ? fake.requests[0] : NULL, "configure {\"host\":\"node1\",\"allow\":[]}");
        CHECK_INTEQ(fake.states, 1);
        a = ceph_admin_close(a);
        CHECK_INTEQ(fake.states, 0);

        /* a refused configure: the error names the host and the op, nothing stays open */
        reset();
        fake.fail_configure = true;
        c = (HostChannel) { .transport = (Transport *) 1 };
        Error e = {};
        CHECK_INTEQ(host_channel_open(h, 0, &c, NULL, &e), -EINVAL);
        CHECK(!c.transport && !c.channel);
        CHECK(strstr(e.message, "node1: configure: refused by the fake") != NULL);
        CHECK_INTEQ(fake.states, 0);

        /* the fleet: one channel per host, through the same function */
        reset();
        _cleanup_(freep) const Host **hosts = NULL;
        size_t n = 0;
        CHECK_INTEQ(hosts_select(l, NULL, &hosts, &n, &err), 0);
        _cleanup_(fleet_closep) Fleet *f = NULL;
        CHECK_INTEQ(fleet_open(l, hosts, n, false, false, &f, &err), 0);
        CHECK(f && f->n == 1 && fleet_failed(f) == 0 && f->sessions[0].ch.channel);
        CHECK_STREQ(fake.requests ? fake.requests[0] : NULL,
                    "configure {\"allow\":[\"/dev/disk/by-id/unit-a\",\"/dev/disk/by-id/unit-b\"],"
                    "\"host\":\"node1\",\"dry_run\":false}");
        f = fleet_close(f);
        CHECK_INTEQ(fake.states, 0);

        /* a fleet host whose agent refuses: recorded with its error, its channel closed */
        reset();
        fake.fail_configure = true;
        CHECK_INTEQ(fleet_open(l, hosts, n, false, false, &f, &err), 0);
        CHECK(f && fleet_failed(f) == 1 && !f->sessions[0].ch.channel && !f->sessions[0].ch.transport);
        CHECK(f && strstr(f->sessions[0].error.message, "refused by the fake"));
        CHECK_INTEQ(fake.states, 0);
        f = fleet_close(f);
        reset();
}

/* polls (up to 30 s: valgrind) until the fake agent saw n requests / has n agent states: the channels
 * opened ahead connect on threads of their own */
static void wait_requests(size_t n) {
        for (int i = 0; i < 3000; i++) {
                pthread_mutex_lock(&fake_mu);
                size_t have = strv_length(fake.requests);
                pthread_mutex_unlock(&fake_mu);
                if (have >= n)
                        return;
                usleep(10000);
        }
}

static void wait_states(int n) {
        for (int i = 0; i < 3000 && __atomic_load_n(&fake.states, __ATOMIC_SEQ_CST) != n; i++)
                usleep(10000);
}

/* channels opened ahead (host_channel_prewarm): taken by the next open of the same host and
 * flags, the cluster client's already connected to the cluster, the rest closed by _end */
static void test_prewarm(void) {
        Error err = {};
        _cleanup_(layout_freep) Layout *l = layout();
        if (!l)
                return;
        const Host *h = layout_find_host(l, "node1");
        transport_set_local_agent(&fake_agent);

        reset();
        ceph_admin_prewarm(l, 2);
        HostChannel a = {}, b = {}, c = {};
        CHECK_INTEQ(host_channel_open(h, HOST_CHANNEL_ADMIN, &a, NULL, &err), 0);
        CHECK(a.channel != NULL);
        /* other flags: not one opened ahead, a channel of its own */
        CHECK_INTEQ(host_channel_open(h, HOST_CHANNEL_DRY_RUN, &c, NULL, &err), 0);
        CHECK(c.channel != NULL);
        /* the second admin channel, not taken: closed by _end (joined when it is done, or
         * left to close itself when it is still connecting): either way gone soon after */
        wait_requests(5);
        host_channel_prewarm_end();
        wait_states(2);
        CHECK_INTEQ(fake.states, 2);
        pthread_mutex_lock(&fake_mu);
        CHECK_INTEQ(strv_length(fake.requests), 5); /* 2 × (configure, connect ahead), configure */
        size_t connects = 0, configures = 0;
        STRV_FOREACH(r, fake.requests) {
                connects += streq(*r, "ceph-command {\"cluster\":\"unit\",\"timeout\":120,\"commands\":[]}");
                configures += streq(*r, "configure {\"host\":\"node1\",\"allow\":[]}");
        }
        pthread_mutex_unlock(&fake_mu);
        CHECK_INTEQ(connects, 2);
        CHECK_INTEQ(configures, 2);
        /* none left: the next admin open connects itself */
        reset();
        CHECK_INTEQ(host_channel_open(h, HOST_CHANNEL_ADMIN, &b, NULL, &err), 0);
        CHECK_INTEQ(strv_length(fake.requests), 1);
        CHECK_INTEQ(fake.states, 3);
        host_channel_close(&a);
        host_channel_close(&b);
        host_channel_close(&c);
        CHECK_INTEQ(fake.states, 0);

        /* one that failed ahead: its open fails with that error, nothing open */
        reset();
        fake.fail_configure = true;
        host_channel_prewarm(h, 0, NULL, NULL);
        Error e = {};
        CHECK_INTEQ(host_channel_open(h, 0, &c, NULL, &e), -EINVAL);
        CHECK(!c.transport && !c.channel);
        CHECK(strstr(e.message, "node1: configure: refused by the fake") != NULL);
        CHECK_INTEQ(fake.states, 0);
        CHECK_INTEQ(strv_length(fake.requests), 1); /* asked once, ahead */
        host_channel_prewarm_end();

        /* one still connecting when the command ends: not waited for, it closes itself */
        reset();
        ceph_admin_prewarm(l, 1);
        host_channel_prewarm_end();
        wait_requests(2); /* its configure and its connect ahead: it ran to its end */
        wait_states(0);
        CHECK_INTEQ(fake.states, 0);
        pthread_mutex_lock(&fake_mu);
        CHECK_INTEQ(strv_length(fake.requests), 2);
        pthread_mutex_unlock(&fake_mu);
        reset();
}

int main(void) {
        TEST_RUN(test_host_channel);
        TEST_RUN(test_prewarm);
        return test_result();
}
