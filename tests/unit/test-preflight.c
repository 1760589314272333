/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The controller's preflight on fixtures: the needs derived from the plans of the shipped
 * layouts (src/controller/step-requests.c), the request per host, and what the controller does
 * with the answers. The hosts' agents are FAKE links returning canned answers here; the
 * real op runs on loop devices in tests/block/test-apply-preflight.sh. */

#include <errno.h>

#include "controller/step-requests.h"
#include "basic/json-util.h"
#include "basic/strv.h"
#include "controller/preflight.h"
#include "layout/layout.h"
#include "test.h"

static const char *env_dir(const char *var) {
        const char *d = getenv(var);
        if (!d)
                test_skip("TEST_DATA/LAYOUTS not set (run through meson test)");
        return d;
}

static Plan *plan_of(const char *name, InventorySet **ret_inv) {
        _cleanup_(freep) char *lp = strprintf("%s/%s.yaml", env_dir("LAYOUTS"), name);
        _cleanup_(freep) char *ip = strprintf("%s/inventory-%s.json", env_dir("TEST_DATA"), name);
        _cleanup_(layout_freep) Layout *l = NULL;
        InventorySet *inv = NULL;
        Plan *p = NULL;
        Error err = {};
        if (layout_load_file(lp, &l, &err) < 0 || inventory_set_load_file(ip, &inv, &err) < 0 ||
            plan_compute(l, inv, &p, &err) < 0) {
                fprintf(stderr, "%s: %s\n", name, err.message);
                exit(1);
        }
        *ret_inv = inv;
        return p;
}

static char *needs_of(json_object *args) {
        json_object *n = json_object_object_get(args, "needs");
        return strdup(n ? json_object_to_json_string_ext(n, JSON_C_TO_STRING_PLAIN) : "(none)");
}

static void test_needs_from_step_kinds(void) {
        Step s = { .kind = STEP_CREATE_PARTITION };
        CHECK_INTEQ(agent_step_needs(&s), AGENT_NEED_LIBPARTED);
        s.kind = STEP_WIPE;
        CHECK_INTEQ(agent_step_needs(&s), 0);
        s.kind = STEP_MAKE_BCACHE_CACHE;
        CHECK_INTEQ(agent_step_needs(&s), AGENT_NEED_BCACHE | AGENT_NEED_MAKE_BCACHE);
        s.kind = STEP_BCACHE_TUNE;
        CHECK(agent_step_needs(&s) & AGENT_NEED_UDEV_RULES);
        s.kind = STEP_CREATE_OSD;
        CHECK(agent_step_needs(&s) & AGENT_NEED_CEPH_VOLUME);
        CHECK(agent_step_needs(&s) & AGENT_NEED_CEPH_OSD);
        CHECK(!(agent_step_needs(&s) & AGENT_NEED_BCACHE));
        s.data_is_bcache = true;
        CHECK(agent_step_needs(&s) & AGENT_NEED_BCACHE);
        CHECK(!(agent_step_needs(&s) & AGENT_NEED_DMCRYPT));
        s.encrypted = true;
        CHECK(agent_step_needs(&s) & AGENT_NEED_DMCRYPT);

        /* every bit has a name, and the name gives the bit back */
        for (unsigned bit = 1; bit & _AGENT_NEED_ALL; bit <<= 1) {
                CHECK(agent_need_to_string(bit) != NULL);
                CHECK_INTEQ(agent_need_from_string(agent_need_to_string(bit)), bit);
        }
        CHECK_INTEQ(agent_need_from_string("sgdisk"), 0);
}

static void test_args_bcache_layout(void) {
        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        _cleanup_(plan_freep) Plan *p = plan_of("scenario-2-bulk-nvme", &inv);
        const HostPlan *hp = &p->hosts[0];
        PreflightOptions o = { .stages = STAGE_ALL, .load_modules = true };
        _cleanup_json_ json_object *args = NULL;
        Error err = {};
        CHECK(preflight_args(hp, inventory_set_find(inv, hp->host), &o, &args, &err) == 0);
        if (!args)
                return;
        _cleanup_(freep) char *needs = needs_of(args);
        CHECK_STREQ(needs, "[\"libparted\",\"bcache\",\"make-bcache\",\"udev-rules\",\"ceph-volume\",\"ceph-osd\","
                           "\"systemctl\",\"bootstrap-osd-keyring\"]");
        CHECK_INTEQ(json_object_array_length(json_object_object_get(args, "steps")), hp->n_steps);
        CHECK(json_object_get_boolean(json_object_object_get(args, "load_modules")));
        /* the NVMe and the 8 HDDs, each once, as the inventory saw them */
        json_object *devs = json_object_object_get(args, "devices");
        CHECK_INTEQ(json_object_array_length(devs), 9);
        json_object *first = json_object_array_get_idx(devs, 0);
        CHECK(json_object_object_get(first, "size") != NULL);
        CHECK(json_object_object_get_ex(first, "pttype", NULL));

        /* the disks stage alone needs no Ceph tool */
        o.stages = STAGE_DISKS;
        _cleanup_json_ json_object *disks = NULL;
        CHECK(preflight_args(hp, inventory_set_find(inv, hp->host), &o, &disks, &err) == 0);
        _cleanup_(freep) char *dneeds = disks ? needs_of(disks) : NULL;
        CHECK_STREQ(dneeds, "[\"libparted\",\"bcache\",\"make-bcache\",\"udev-rules\"]");
}

static void test_args_all_flash(void) {
        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        _cleanup_(plan_freep) Plan *p = plan_of("all-flash", &inv);
        PreflightOptions o = { .stages = STAGE_ALL };
        _cleanup_json_ json_object *args = NULL;
        Error err = {};
        CHECK(preflight_args(&p->hosts[0], NULL, &o, &args, &err) == 0);
        _cleanup_(freep) char *needs = args ? needs_of(args) : NULL;
        CHECK(needs && !strstr(needs, "bcache"));
        CHECK(needs && strstr(needs, "ceph-volume"));
        /* nothing selected: no request at all */
        o.stages = 0;
        _cleanup_json_ json_object *none = NULL;
        CHECK(preflight_args(&p->hosts[0], NULL, &o, &none, &err) == 0);
        CHECK(none == NULL);
}

/* FAKE agent: refuses bcache on the second host, fails the call on the third. */
typedef struct FakeHost {
        const char *name;
        int calls;
} FakeHost;

static int fake_call(void *userdata, const char *op, json_object *args, json_object **ret, Error *err) {
        FakeHost *h = userdata;
        h->calls++;
        CHECK_STREQ(op, "preflight");
        if (streq(h->name, "bulk3"))
                return error_set(err, EPIPE, "host 'bulk3': agent connection lost");
        bool refuse = streq(h->name, "bulk2");
        const char *answer = refuse ? "{\"checks\":[{\"check\":\"bcache\",\"ok\":false,\"reason\":\"the kernel has no bcache support (/sys/fs/bcache missing, modprobe bcache failed: not found)\"},"
                                      "{\"check\":\"ceph-volume\",\"ok\":true,\"detail\":\"/usr/sbin/ceph-volume\"}],\"ok\":false}"
                                    : "{\"checks\":[{\"check\":\"bcache\",\"ok\":true,\"detail\":\"loaded\"}],\"ok\":true}";
        *ret = json_tokener_parse(answer);
        return 0;
}

static void test_run_refuses_and_filters(void) {
        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        _cleanup_(plan_freep) Plan *p = plan_of("scenario-2-bulk-nvme", &inv);
        CHECK_INTEQ(p->n_hosts, 5);
        FakeHost fh[5];
        HostLink links[5];
        for (size_t i = 0; i < 5; i++) {
                fh[i] = (FakeHost) { .name = p->hosts[i].host };
                links[i] = (HostLink) { .host = p->hosts[i].host, .call = fake_call, .userdata = &fh[i] };
        }
        PreflightOptions o = { .stages = STAGE_ALL, .parallel_hosts = 3 };
        _cleanup_(preflight_report_freep) PreflightReport *rep = NULL;
        Error err = {};
        CHECK(preflight_run(p, inv, links, 5, &o, &rep, &err) == 0);
        if (!rep)
                return;
        for (size_t i = 0; i < 5; i++)
                CHECK_INTEQ(fh[i].calls, 1);
        CHECK_INTEQ(rep->n_hosts, 5);
        CHECK_INTEQ(rep->n_refused, 2);
        CHECK(!preflight_refused(rep, "bulk1"));
        CHECK(preflight_refused(rep, "bulk2"));
        CHECK(preflight_refused(rep, "bulk3"));

        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        preflight_report_print(rep, f);
        fclose(f);
        CHECK(strstr(buf, "host 'bulk2': refused: bcache: the kernel has no bcache support (/sys/fs/bcache missing, "
                          "modprobe bcache failed: not found)\n") != NULL);
        CHECK(strstr(buf, "host 'bulk3': refused: agent: host 'bulk3': agent connection lost\n") != NULL);
        CHECK(strstr(buf, "ceph-volume") == NULL); /* only what is missing */
        CHECK(strstr(buf, "2 hosts refused by the preflight: nothing is done on them\n") != NULL);
        free(buf);

        _cleanup_json_ json_object *j = NULL;
        CHECK(preflight_report_to_json(rep, &j) == 0);
        CHECK_INTEQ(json_object_array_length(j), 5);

        CHECK(preflight_filter_plan(rep, p) == 0);
        CHECK_INTEQ(p->n_hosts, 3);
        for (size_t i = 0; i < p->n_hosts; i++)
                CHECK(!streq(p->hosts[i].host, "bulk2") && !streq(p->hosts[i].host, "bulk3"));
}

int main(void) {
        TEST_RUN(test_needs_from_step_kinds);
        TEST_RUN(test_args_bcache_layout);
        TEST_RUN(test_args_all_flash);
        TEST_RUN(test_run_refuses_and_filters);
        return test_result();
}
