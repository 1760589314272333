/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `cephprov status LAYOUT`: hosts, OSDs (up/in, class, data and DB devices), the fast
 * device → OSDs blast radius, bcache state, cluster health and PG states. One result
 * object, printed as text or JSON. */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "basic/json-util.h"
#include "basic/size.h"
#include "cli.h"
#include "controller/status.h"
#include "options.h"

static json_object *jget(json_object *o, const char *key) {
        json_object *v = NULL;
        return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *jstr(json_object *o, const char *key) {
        json_object *v = jget(o, key);
        return v ? json_object_get_string(v) : NULL;
}

/* A DB/WAL label names its OSD by fsid only ("whoami" is on the main device's label). */

static void status_print(json_object *st, FILE *out) {
        fprintf(out, "HOSTS\n");
        json_object *hosts = jget(st, "hosts");
        for (size_t i = 0; i < json_object_array_length(hosts); i++) {
                json_object *h = json_object_array_get_idx(hosts, i);
                if (json_object_get_boolean(jget(h, "reachable")))
                        fprintf(out, "  %-12s up, %d allowed devices%s\n", (jstr(h, "host") ?: "-"),
                                json_object_get_int(jget(h, "devices")),
                                json_object_get_boolean(jget(h, "bcache_available")) ? "" : ", no bcache in kernel");
                else
                        fprintf(out, "  %-12s UNREACHABLE: %s\n", (jstr(h, "host") ?: "-"), (jstr(h, "error") ?: "-"));
        }

        fprintf(out, "\nOSDS\n  %-6s %-10s %-4s %-4s %-6s %-9s %-26s %s\n", "ID", "HOST", "UP", "IN", "CLASS", "ENCRYPTED",
                "DATA", "DB");
        json_object *osds = jget(st, "osds");
        for (size_t i = 0; i < json_object_array_length(osds); i++) {
                json_object *o = json_object_array_get_idx(osds, i), *enc = jget(o, "encrypted");
                /* "-": the OSD's host was not inventoried, or its data device not seen */
                fprintf(out, "  osd.%-2d %-10s %-4s %-4s %-6s %-9s %-26s %s\n", json_object_get_int(jget(o, "id")),
                        jstr(o, "host") ?: "-", json_object_get_boolean(jget(o, "up")) ? "up" : "DOWN",
                        json_object_get_boolean(jget(o, "in")) ? "in" : "OUT", jstr(o, "device_class") ?: "-",
                        !enc ? "-" : json_object_get_boolean(enc) ? "yes" : "no",
                        jstr(o, "data") ?: "-", jstr(o, "db") ?: "(on data)");
        }

        bool gone_head = false;
        for (size_t i = 0; i < json_object_array_length(osds); i++) {
                json_object *o = json_object_array_get_idx(osds, i);
                if (!json_object_get_boolean(jget(o, "data_device_gone")))
                        continue;
                if (!gone_head)
                        fprintf(out, "\nDATA DEVICES GONE (the host has none of the OSD's devices: a new disk in its place is "
                                     "`cephprov replace LAYOUT HOST DEVICE`'s, never apply's)\n");
                gone_head = true;
                fprintf(out, "  osd.%d on %s: its data device %s%s%s%s is gone\n", json_object_get_int(jget(o, "id")),
                        jstr(o, "host") ?: "-", jstr(o, "data") ?: "-", jstr(o, "device_ids") ? " (" : "",
                        jstr(o, "device_ids") ?: "", jstr(o, "device_ids") ? ")" : "");
        }

        json_object *blast = jget(st, "blast_radius");
        if (json_object_array_length(blast) > 0) {
                fprintf(out, "\nBLAST RADIUS (a fast device failing takes down these OSDs)\n");
                for (size_t i = 0; i < json_object_array_length(blast); i++) {
                        json_object *b = json_object_array_get_idx(blast, i), *ids = jget(b, "osds");
                        fprintf(out, "  %-10s %-14s →", (jstr(b, "host") ?: "-"), (jstr(b, "fast_device") ?: "-"));
                        for (size_t k = 0; k < json_object_array_length(ids); k++)
                                fprintf(out, " osd.%d", json_object_get_int(json_object_array_get_idx(ids, k)));
                        fprintf(out, "\n");
                }
        }

        json_object *bc = jget(st, "bcache");
        if (json_object_array_length(bc) > 0) {
                fprintf(out, "\nBCACHE\n");
                for (size_t i = 0; i < json_object_array_length(bc); i++) {
                        json_object *b = json_object_array_get_idx(bc, i);
                        char dirty[SIZE_FORMAT_MAX];
                        size_format((uint64_t) json_object_get_int64(jget(b, "dirty_bytes")), dirty, sizeof(dirty));
                        fprintf(out, "  %-10s %-14s %-12s %-12s %-10s dirty %s", (jstr(b, "host") ?: "-"), (jstr(b, "backing") ?: "-"),
                                jstr(b, "bcache_device") ?: "-", jstr(b, "cache_mode") ?: "-", jstr(b, "state") ?: "-", dirty);
                        char cutoff[SIZE_FORMAT_MAX];
                        size_format((uint64_t) json_object_get_int64(jget(b, "sequential_cutoff")), cutoff, sizeof(cutoff));
                        fprintf(out, ", sequential_cutoff %s", cutoff);
                        if (jget(b, "hit_ratio"))
                                fprintf(out, ", hit ratio %.0f %%", 100 * json_object_get_double(jget(b, "hit_ratio")));
                        fprintf(out, "\n");
                        json_object *w = jget(b, "warnings");
                        for (size_t k = 0; k < json_object_array_length(w); k++)
                                fprintf(out, "    warning: %s %s: %s\n", jstr(b, "host") ?: "-", jstr(b, "backing") ?: "-",
                                        json_object_get_string(json_object_array_get_idx(w, k)));
                }
        }

        json_object *cv = jget(st, "conversion");
        if (cv) {
                json_object *rp = jget(cv, "replace");
                if (rp)
                        fprintf(out, "\nREPLACEMENT of %s on %s (started %s UTC)\n", jstr(rp, "device") ?: "?",
                                jstr(rp, "host") ?: "?", jstr(cv, "started") ?: "?");
                else
                        fprintf(out, "\nCONVERSION (started %s UTC)\n", jstr(cv, "started") ?: "?");
                if (jstr(cv, "error"))
                        fprintf(out, "  progress unknown: %s\n", jstr(cv, "error"));
                const char *cur = jstr(cv, "current");
                json_object *done = jget(cv, "hosts_done"), *left = jget(cv, "hosts_left"), *cosds = jget(cv, "osds");
                fprintf(out, "  hosts done %zu, current %s, left %zu:", json_object_array_length(done), cur ? cur : "none",
                        json_object_array_length(left));
                for (size_t i = 0; i < json_object_array_length(left); i++)
                        fprintf(out, " %s", json_object_get_string(json_object_array_get_idx(left, i)));
                fprintf(out, "\n");
                for (size_t i = 0; cur && i < json_object_array_length(cosds); i++) {
                        json_object *x = json_object_array_get_idx(cosds, i);
                        if (streq_ptr(jstr(x, "host"), cur))
                                fprintf(out, "  %-10s osd.%-5d %s\n", cur, json_object_get_int(jget(x, "id")),
                                        jstr(x, "phase") ?: "not begun");
                }
                json_object *b = jget(cv, "backfill");
                if (b) {
                        fprintf(out, "  backfill: %" PRId64 " objects left, %" PRId64 " PGs not clean, %" PRId64 " objects/s",
                                json_object_get_int64(jget(b, "objects_left")), json_object_get_int64(jget(b, "pgs_not_clean")),
                                json_object_get_int64(jget(b, "objects_per_sec")));
                        if (jget(b, "eta_sec"))
                                fprintf(out, ", ETA %" PRId64 " s", json_object_get_int64(jget(b, "eta_sec")));
                        fprintf(out, "\n");
                }
        }

        json_object *th = jget(st, "throttle");
        if (th) {
                json_object *lw = jget(th, "last_window");
                int64_t age = (int64_t) time(NULL) - json_object_get_int64(jget(th, "updated"));
                fprintf(out, "\nTHROTTLE\n  adaptive (%s): rung %d of %d..%d (%s), brake %s; target p99 %.1f ms, ceiling %.1f ms\n",
                        jstr(th, "scheduler") ?: "?", json_object_get_int(jget(th, "rung")),
                        json_object_get_int(jget(th, "rung_min")), json_object_get_int(jget(th, "rung_max")),
                        jstr(th, "setting") ?: "-", json_object_get_boolean(jget(th, "brake")) ? "on (nobackfill)" : "off",
                        json_object_get_double(jget(th, "target_p99_ms")), json_object_get_double(jget(th, "ceiling_p99_ms")));
                if (lw)
                        fprintf(out, "  last window: p99 %.1f ms over %d ops, %d errors (%" PRId64 " s ago)\n",
                                json_object_get_double(jget(lw, "p99_ms")), json_object_get_int(jget(lw, "ops")),
                                json_object_get_int(jget(lw, "errors")), age);
                if (jget(th, "horizon_ops")) {
                        int64_t hn = json_object_get_int64(jget(th, "horizon_ops")),
                                ho = json_object_get_int64(jget(th, "horizon_over"));
                        fprintf(out, "  error budget: %" PRId64 " of %" PRId64 " ops over the target in %d windows at this setting (%.2f..%.2f %% at 95 %%, budget %g %%)\n",
                                ho, hn, json_object_get_int(jget(th, "horizon_windows")),
                                100 * json_object_get_double(jget(th, "horizon_lower")),
                                100 * json_object_get_double(jget(th, "horizon_upper")),
                                100 * json_object_get_double(jget(th, "budget")));
                }
                if (jstr(th, "last_change_reason"))
                        fprintf(out, "  last change: %s\n", jstr(th, "last_change_reason"));
        }

        fprintf(out, "\nCLUSTER\n  health %s\n", jstr(st, "health") ?: "?");
        json_object *ps = jget(st, "pause");
        if (ps) {
                char when[32] = "?";
                time_t since = (time_t) json_object_get_int64(jget(ps, "since"));
                struct tm tm;
                if (gmtime_r(&since, &tm))
                        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
                fprintf(out, "  paused by cephprov pause on %s since %s: no new backfill (nobackfill) until cephprov resume\n",
                        jstr(ps, "by") ?: "?", when);
        }
        json_object *recs = jget(st, "records");
        for (size_t i = 0; i < json_object_array_length(recs); i++) {
                json_object *r = json_object_array_get_idx(recs, i);
                char age[80] = "age unknown";
                if (jget(r, "age_sec")) {
                        int64_t a = json_object_get_int64(jget(r, "age_sec"));
                        if (a >= 86400)
                                snprintf(age, sizeof age, "%" PRId64 " d %" PRId64 " h old", a / 86400, a % 86400 / 3600);
                        else if (a >= 3600)
                                snprintf(age, sizeof age, "%" PRId64 " h %" PRId64 " min old", a / 3600, a % 3600 / 60);
                        else
                                snprintf(age, sizeof age, "%" PRId64 " min %" PRId64 " s old", a / 60, a % 60);
                }
                fprintf(out, "  open record %s: %s, left by run %s (a restore step, or the next run's after, puts it "
                             "back)\n",
                        jstr(r, "record") ?: "?", age, jstr(r, "run") ?: "unknown (an older cephprov)");
        }
        json_object *checks = jget(st, "checks");
        for (size_t i = 0; i < json_object_array_length(checks); i++) {
                json_object *c = json_object_array_get_idx(checks, i);
                fprintf(out, "    %s %s: %s\n", (jstr(c, "severity") ?: "-"), (jstr(c, "check") ?: "-"), (jstr(c, "summary") ?: "-"));
        }
        json_object *slow = jget(st, "slow");
        if (slow)
                fprintf(out, "  slow: %s\n", jstr(slow, "sentence") ?: "-");
        fprintf(out, "  pgs %d:", json_object_get_int(jget(st, "num_pgs")));
        json_object *pgs = jget(st, "pg_states");
        for (size_t i = 0; i < json_object_array_length(pgs); i++) {
                json_object *p = json_object_array_get_idx(pgs, i);
                fprintf(out, "%s %d %s", i ? "," : "", json_object_get_int(jget(p, "count")), (jstr(p, "state") ?: "-"));
        }
        fprintf(out, "\n");
}

int verb_status(int argc, char *argv[]) {
        const Verb *v = verb_find("status");
        _cleanup_(cli_options_done) CliOptions o = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        int r = cli_options_parse_layout(v, argc, argv, OPT_JSON | OPT_HOSTS, &o, &l);
        if (r != 0)
                return r;

        Error err = {};
        _cleanup_json_ json_object *st = NULL;
        if (controller_status(l, o.hosts, o.json, &st, &err) < 0)
                return o.json ? cli_report_json(&err) : cli_report(&err);
        if (o.json)
                return cli_print_json_document("status", st);
        else
                status_print(st, stdout);
        return 0;
}
