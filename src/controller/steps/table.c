/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cluster steps by name: the body of each cluster step of the registry (src/registry/step-table.c). */

#include "controller/steps/steps-internal.h"

static const struct {
        const char *name;
        StepFn fn;
} steps[] = {
        { "drain-check", cluster_step_drain_check },
        { "set-flag", cluster_step_set_flag },
        { "unset-flag", cluster_step_unset_flag },
        { "pause-balancer", cluster_step_pause_balancer },
        { "restore-balancer", cluster_step_restore_balancer },
        { "pause-autoscaler", cluster_step_pause_autoscaler },
        { "restore-autoscaler", cluster_step_restore_autoscaler },
        { "out", cluster_step_out },
        { "in", cluster_step_in },
        { "wait-ok-to-stop", cluster_step_wait_ok_to_stop },
        { "wait-safe-to-destroy", cluster_step_wait_safe_to_destroy },
        { "wait-clean", cluster_step_wait_clean },
        { "destroy-osd", cluster_step_destroy },
        { "purge-osd", cluster_step_purge },
        { "crush-remove-host", cluster_step_crush_remove_host },
        { "crush-reweight", cluster_step_crush_reweight },
        { "throttle", cluster_step_throttle },
        { "restore-throttle", cluster_step_restore_throttle },
        { "health-gate", cluster_step_health_gate },
        { "benchmark", cluster_step_benchmark },
};

int cluster_steps_call(void *userdata, const char *step, json_object *args, WaveCall *c, json_object **ret_result,
                       Error *err) {
        ClusterSteps *cs = userdata;
        for (size_t i = 0; i < ELEMENTSOF(steps); i++)
                if (streq(steps[i].name, step))
                        return steps[i].fn(cs, args, c, ret_result, err);
        return error_set(err, ENOTSUP, "cluster step '%s' is not implemented yet", step);
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
