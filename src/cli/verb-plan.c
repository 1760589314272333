/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/json-writer.h"
#include "basic/strv.h"
#include "cli.h"
#include "controller/hosts.h"
#include "inventory/inventory.h"
#include "layout/layout.h"
#include "options.h"
#include "plan/plan.h"

bool cli_locale_is_utf8(void) {
        /* LC_CTYPE only: what the terminal can show, without changing how numbers print */
        if (!setlocale(LC_CTYPE, ""))
                return false;
        const char *cs = nl_langinfo(CODESET);
        return cs && (streq(cs, "UTF-8") || streq(cs, "utf8"));
}

/* Check that every --hosts name is in the layout. */
int cli_check_hosts(const Layout *l, char **hosts, Error *err) {
        STRV_FOREACH(h, hosts)
                if (!layout_find_host(l, *h))
                        return error_set(err, ENOENT, "host '%s' given with --hosts is not in layout '%s'", *h, l->path);
        return 0;
}

/* --osd-ids FILE ("-": stdin): what `ceph osd ls` or `ceph osd ls -f json` printed. */
static int load_osd_ids(const char *path, int **ret, size_t *ret_n, Error *err) {
        _cleanup_(freep) char *buf = NULL;
        int r = cli_read_text(path, &buf, err);
        if (r < 0)
                return r;
        r = plan_parse_osd_ids(buf, ret, ret_n, err);
        if (r < 0)
                return error_prefix(err, r, "'%s'", path);
        return 0;
}

static void plan_summary_refusals_done(PlanSummary *s) {
        plan_refusals_free(s->refused, s->n_refused);
}

static int count_host(HostPlan *h, void *userdata, Error *err) {
        return 0; /* plan_compute_each() counts */
}

typedef struct Printer {
        JsonWriter *w;           /* --json, else text on stdout */
        unsigned flags;
        bool osd_ids;
        PlanTotals totals;
        FILE *summaries;         /* the preview: each host's summary, printed after the table */
        size_t rows;
} Printer;

static int print_host(HostPlan *h, void *userdata, Error *err) {
        Printer *pr = userdata;
        if (pr->w) {
                plan_write_json_host(pr->w, h, pr->osd_ids);
                plan_totals_add(&pr->totals, h);
        } else if (pr->summaries) {
                pr->rows += plan_print_preview_rows(h, stdout);
                plan_print_host_summary(h, pr->summaries, pr->flags);
                plan_totals_add(&pr->totals, h);
        } else {
                if (pr->totals.n_hosts > 0)
                        putchar('\n');
                plan_print_host(h, stdout, pr->flags);
                plan_totals_add(&pr->totals, h);
        }
        return 0;
}

/* Offline, from a file of inventories: planned and written one host at a time, so that a
 * plan of 1,000 hosts never exists whole; a first walk counts the steps (the JSON starts
 * with n_steps) and finds the refused hosts before anything is printed. A refused host does
 * not stop the others: each refusal is reported, the rest planned, and the exit status 1. */
static int plan_offline(const Layout *l, const CliOptions *o, const int *ids, size_t n_ids, int (*report)(const Error *)) {
        Error err = {};
        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        if (inventory_set_load_file(o->inventory, &inv, &err) < 0)
                return report(&err);
        PlanOptions po = { .hosts = o->hosts, .missing_ok = true, .keep_going = true,
                           .osd_ids_known = o->osd_ids != NULL, .osd_ids_in_use = ids, .n_osd_ids_in_use = n_ids };
        PlanSummary sum = {};
        if (plan_compute_each(l, inv, &po, count_host, NULL, &sum, &err) < 0)
                return report(&err);
        _cleanup_strv_free_ char **missing = sum.missing_hosts;
        _cleanup_(plan_summary_refusals_done) PlanSummary refused = { .refused = sum.refused, .n_refused = sum.n_refused };
        for (size_t i = 0; i < refused.n_refused; i++)
                log_error("%s", refused.refused[i].message);
        STRV_FOREACH(m, missing)
                log_error("host '%s': not in the inventory file '%s': not planned", *m, o->inventory);

        _cleanup_(freep) JsonWriter *w = o->json ? malloc(sizeof(JsonWriter)) : NULL;
        if (o->json && !w) {
                error_set(&err, ENOMEM, "out of memory");
                return report(&err);
        }
        Printer pr = { .w = w, .flags = cli_locale_is_utf8() ? PLAN_PRINT_UTF8 : 0, .osd_ids = o->osd_ids != NULL };
        /* the preview: the table as the hosts are planned, their summaries after it */
        _cleanup_(freep) char *sums = NULL;
        size_t sums_len = 0;
        if (!w && !o->detail && sum.n_steps > 0) {
                if (!(pr.summaries = open_memstream(&sums, &sums_len))) {
                        error_set(&err, ENOMEM, "out of memory");
                        return report(&err);
                }
                plan_print_preview_header(stdout);
        }
        if (w) {
                json_writer_init(w, stdout);
                json_writer_begin_object(w, NULL);
                plan_write_json_begin(w, sum.n_steps);
        }
        int r = plan_compute_each(l, inv, &po, print_host, &pr, NULL, &err);
        if (pr.summaries) {
                fclose(pr.summaries);
                if (r >= 0) {
                        if (pr.rows == 0)
                                printf("(no new OSD)\n");
                        printf("\n%s", sums ? sums : "");
                }
        }
        if (r < 0) {
                plan_totals_done(&pr.totals);
                return cli_report(&err); /* the first walk planned the same: only memory can fail */
        }
        if (w) {
                plan_write_json_end(w, &pr.totals, missing, refused.refused, refused.n_refused);
                json_writer_end_object(w);
                if (json_writer_finish(w) < 0) {
                        error_set(&err, EIO, "cannot write the plan: %s", strerror(errno));
                        return cli_report(&err);
                }
        } else
                plan_print_totals(&pr.totals, missing, refused.refused, refused.n_refused, stdout);
        plan_totals_done(&pr.totals);

        if (missing || refused.n_refused > 0)
                return 1; /* the plan is incomplete: the missing and refused hosts were named */
        if (o->detailed_exitcode && sum.n_steps > 0)
                return 10;
        return 0;
}

int verb_plan(int argc, char *argv[]) {
        const Verb *v = verb_find("plan");
        _cleanup_(cli_options_done) CliOptions o = {};
        _cleanup_(layout_freep) Layout *l = NULL;
        int r = cli_options_parse_layout(v, argc, argv,
                                         OPT_JSON | OPT_INVENTORY | OPT_HOSTS | OPT_DETAILED_EXITCODE | OPT_OSD_IDS | OPT_DETAIL, &o, &l);
        if (r != 0)
                return r;
        int (*report)(const Error *) = o.json ? cli_report_json : cli_report;

        Error err = {};
        if (cli_check_hosts(l, o.hosts, &err) < 0)
                return report(&err);

        _cleanup_(freep) int *ids = NULL;
        size_t n_ids = 0;
        if (o.osd_ids && load_osd_ids(o.osd_ids, &ids, &n_ids, &err) < 0)
                return report(&err);

        if (o.inventory)
                return plan_offline(l, &o, ids, n_ids, report);

        /* live: the hosts are connected anyway, so say now what apply would refuse */
        _cleanup_(plan_freep) Plan *p = NULL;
        _cleanup_(preflight_report_freep) PreflightReport *pre = NULL;
        size_t failed_hosts = 0;
        {
                _cleanup_(fleet_closep) Fleet *f = NULL;
                _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
                if (controller_plan_live_all(l, o.hosts, o.json, &f, &p, &inv, &failed_hosts, &err) < 0)
                        return report(&err);
                /* an unreachable host has no inventory: named in the plan as a host not planned
                 * (its error is on stderr), so that a plan of no reachable host is not read as
                 * one with nothing to do */
                for (size_t i = 0; i < f->n; i++)
                        if (f->sessions[i].r < 0 && strv_extend(&p->missing_hosts, f->sessions[i].host->name) < 0) {
                                error_set(&err, ENOMEM, "out of memory");
                                return report(&err);
                        }
                if (controller_preflight(f, p, inv, STAGE_ALL, false, false, &pre, &err) < 0)
                        return report(&err);
                if (o.hosts)
                        plan_filter_hosts(p, o.hosts);
        }
        if (o.osd_ids)
                plan_assign_osd_ids(p, ids, n_ids);
        /* hosts the planner refused, when the controller plans with keep_going: each named
         * once here, and in the plan */
        for (size_t i = 0; i < p->n_refused; i++)
                log_error("%s", p->refused[i].message);

        if (o.json) {
                /* streamed as it is written: a plan of thousands of hosts is never one tree */
                _cleanup_json_ json_object *pj = NULL;
                if (pre && preflight_report_to_json(pre, &pj) < 0) {
                        error_set(&err, ENOMEM, "cannot format the plan as JSON");
                        return cli_report(&err);
                }
                _cleanup_(freep) JsonWriter *w = malloc(sizeof(JsonWriter));
                if (!w) {
                        error_set(&err, ENOMEM, "out of memory");
                        return cli_report(&err);
                }
                json_writer_init(w, stdout);
                json_writer_begin_object(w, NULL);
                plan_write_json(p, w);
                if (pj)
                        json_writer_tree(w, "preflight", pj);
                json_writer_end_object(w);
                if (json_writer_finish(w) < 0) {
                        error_set(&err, EIO, "cannot write the plan: %s", strerror(errno));
                        return cli_report(&err);
                }
        } else {
                plan_print(p, stdout, (cli_locale_is_utf8() ? PLAN_PRINT_UTF8 : 0) | (o.detail ? 0 : PLAN_PRINT_PREVIEW));
                preflight_report_print(pre, stdout);
        }

        /* a refused host is a plan shown, with what apply would refuse: not a failed plan */
        if (failed_hosts > 0 || p->n_refused > 0)
                return 1; /* the plan is incomplete: the unreachable and refused hosts were reported */
        if (o.detailed_exitcode && !plan_is_empty(p))
                return 10;
        return 0;
}
