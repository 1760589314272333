/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The steps by name: the body of every step of the registry (src/registry/step-table.c), in
 * its order. A cluster step's body is one of this folder's cluster_step_*; a host step is
 * either done here (the OSD services, the conversion's host steps, wipe-replaced) or sent to
 * the agent as the op the registry names. Unit test step-bodies: this table and the registry
 * name the same steps. */

#include "controller/convert.h"
#include "controller/steps/host-steps.h"
#include "controller/steps/steps-internal.h"
#include "exec/journal.h"
#include "plan/plan-convert.h"
#include "registry/step-registry.h"

/* stop-osd, start-osd: the host's OSD services, and the wait for them down or up; in a
 * conversion, each stopped OSD's phase journaled */
static int host_osd_service(HostStepCtx *h, const char *op, json_object *args, json_object **ret, Error *err) {
        _cleanup_(freep) int *ids = NULL;
        size_t n = 0;
        uint64_t timeout = 300;
        int r = json_get_int_array(args, "osds", true, &ids, &n, op, err);
        if (r < 0)
                return r;
        (void) json_get_u64(args, "timeout", false, &timeout, op, NULL);
        bool start = streq(op, "start-osd");
        r = cluster_steps_osd_service(h->cs, h->session, start, ids, n, (unsigned) timeout, NULL, ret, err);
        for (size_t i = 0; r >= 0 && !start && h->conv.plan && i < n; i++) {
                const ConvertOsd *o = convert_host_find_osd(h->conv.plan, ids[i]);
                convert_phase(h->conv.j, h->session->host->name, o ? o->data_device : NULL, ids[i], "stopped");
        }
        return r;
}

static int host_unmount_filestore(HostStepCtx *h, const char *op, json_object *args, json_object **ret, Error *err) {
        return convert_step_unmount(&h->conv, args, ret, err);
}

static int host_rebuild_osds(HostStepCtx *h, const char *op, json_object *args, json_object **ret, Error *err) {
        return convert_step_rebuild(&h->conv, args, ret, err);
}

static int host_wipe_replaced(HostStepCtx *h, const char *op, json_object *args, json_object **ret, Error *err) {
        return host_step_wipe_replaced(h, args, ret, err);
}

static const StepBody bodies[] = {
        /* host steps: the agent's op (the registry's agent_op) unless a body is named */
        { "wipe" },
        { "create-gpt" },
        { "create-partition" },
        { "make-bcache-backing" },
        { "make-bcache-cache" },
        { "bcache-attach" },
        { "bcache-tune" },
        { "create-osd" },
        { "stop-osd", .host = host_osd_service },
        { "start-osd", .host = host_osd_service },
        { "bcache-teardown" },
        { "unmount-filestore", .host = host_unmount_filestore },
        { "wipe-replaced", .host = host_wipe_replaced },
        { "rebuild-osds", .host = host_rebuild_osds },
        /* cluster steps */
        { "drain-check", cluster_step_drain_check },
        { "set-flag", cluster_step_set_flag },
        { "unset-flag", cluster_step_unset_flag },
        { "pause-balancer", cluster_step_pause_balancer },
        { "restore-balancer", cluster_step_restore_balancer },
        { "pause-autoscaler", cluster_step_pause_autoscaler },
        { "restore-autoscaler", cluster_step_restore_autoscaler },
        { "out", cluster_step_out },
        { "wait-peered", cluster_step_wait_peered },
        { "in", cluster_step_in },
        { "crush-reweight", cluster_step_crush_reweight },
        { "wait-ok-to-stop", cluster_step_wait_ok_to_stop },
        { "wait-safe-to-destroy", cluster_step_wait_safe_to_destroy },
        { "wait-clean", cluster_step_wait_clean },
        { "destroy-osd", cluster_step_destroy },
        { "purge-osd", cluster_step_purge },
        { "crush-remove-host", cluster_step_crush_remove_host },
        { "throttle", cluster_step_throttle },
        { "restore-throttle", cluster_step_restore_throttle },
        { "health-gate", cluster_step_health_gate },
        { "benchmark", cluster_step_benchmark },
};

const StepBody *step_bodies(size_t *ret_n) {
        *ret_n = ELEMENTSOF(bodies);
        return bodies;
}

const StepBody *step_body_find(const char *name) {
        for (size_t i = 0; name && i < ELEMENTSOF(bodies); i++)
                if (streq(bodies[i].name, name))
                        return &bodies[i];
        return NULL;
}

int cluster_steps_call(void *userdata, const char *step, json_object *args, WaveCall *c, json_object **ret_result,
                       Error *err) {
        const StepBody *b = step_body_find(step);
        if (!b || !b->cluster)
                return error_set(err, ENOTSUP, "'%s' is not a cluster step", step);
        return b->cluster(userdata, args, c, ret_result, err);
}

int host_step_call(void *userdata, const char *op, json_object *args, json_object **ret_result, Error *err) {
        HostStepCtx *h = userdata;
        const StepEntry *e = step_registry_find(op);
        const StepBody *b = step_body_find(op);
        if (!e || e->target != STEP_TARGET_HOST || !b || b->cluster)
                return error_set(err, EINVAL, "'%s' is not a host step", op);
        if (b->host)
                return b->host(h, op, args, ret_result, err);
        bool owned = false;
        (void) json_get_bool(args, "owned", false, &owned, op, NULL);
        if (owned)
                return host_step_owned(h, op, args, ret_result, err);
        return host_session_call(h->session, e->agent_op, args, 0, ret_result, err);
}

int cluster_steps_init(ClusterSteps *cs, CephAdmin *admin, const Layout *layout, Error *err) {
        *cs = (ClusterSteps) { .admin = admin, .layout = layout };
        pthread_mutex_init(&cs->adapt_mu, NULL);
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_run(admin, ceph_argv_versions(ceph_admin_cli(admin), err), NULL, &out, err);
        if (r < 0)
                return r;
        CephVersions v;
        Error e = {};
        if (ceph_versions_parse(out, &v, &e) >= 0)
                cs->release = v.oldest.release;
        return 0;
}
