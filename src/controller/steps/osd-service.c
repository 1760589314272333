/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A host's OSD services started or stopped, and the wait for them up or down. */

#include "controller/steps/steps-internal.h"

/* ---- OSD services on a host -------------------------------------------------------- */

typedef struct UpProbe {
        const int *osds;
        size_t n;
        bool up;
} UpProbe;

static int probe_up_down(ClusterSteps *cs, WaveCall *c, void *userdata, Error *err) {
        UpProbe *p = userdata;
        _cleanup_(ceph_osd_dump_freep) CephOsdDump *d = NULL;
        int r = cs_osd_dump(cs, &d, err);
        if (r < 0)
                return r;
        size_t left = 0;
        for (size_t i = 0; i < p->n; i++) {
                const CephDumpOsd *o = ceph_osd_dump_find_osd(d, p->osds[i]);
                if (o && o->up != p->up)
                        left++;
        }
        if (c && left) {
                _cleanup_(freep) char *t = strprintf("%zu OSD%s still %s", left, left == 1 ? "" : "s", p->up ? "down" : "up");
                wave_call_progress(c, (double) (p->n - left) / (double) p->n, -1, t);
        }
        return left == 0 ? 1 : 0;
}

int cluster_steps_osd_service(ClusterSteps *cs, HostSession *s, bool start, const int *osds, size_t n_osds,
                              unsigned timeout_sec, WaveCall *c, json_object **ret_result, Error *err) {
        const char *const verbs_stop[] = { "stop", "disable" }, *const verbs_start[] = { "enable", "start" };
        const char *const *verbs = start ? verbs_start : verbs_stop;
        int r;
        for (size_t i = 0; i < n_osds; i++)
                for (int k = 0; k < 2; k++) {
                        _cleanup_strv_free_ char **argv = ceph_argv_systemctl_osd(verbs[k], osds[i], err);
                        if (!argv)
                                return -err->code;
                        _cleanup_json_ json_object *req = NULL, *res = NULL;
                        if (agent_run_args(argv, NULL, 120, &req) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                        if ((r = host_session_call(s, "run", req, 150, &res, err)) < 0)
                                return r;
                        int64_t code = -1;
                        const char *er = "";
                        (void) json_get_int(res, "exit", true, &code, "run result", NULL);
                        (void) json_get_string(res, "stderr", false, &er, "run result", NULL);
                        if (code != 0)
                                return error_set(err, EIO, "'systemctl %s ceph-osd@%d' on '%s' failed (exit %lld): %s",
                                                 verbs[k], osds[i], s->host->name, (long long) code, er);
                }
        UpProbe p = { osds, n_osds, start };
        _cleanup_(freep) char *list = cs_osds_text(osds, n_osds);
        _cleanup_(freep) char *what = strprintf("waiting until %s %s %s in the OSD map", list ? list : "",
                                                n_osds == 1 ? "is" : "are", start ? "up" : "down");
        if ((r = cs_wait_for(cs, c, what ? what : "osd state", timeout_sec, probe_up_down, &p, err)) < 0)
                return r;
        return cs_result_new(ret_result, err);
}
