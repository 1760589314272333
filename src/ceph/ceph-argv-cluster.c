/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* argv builders for the cluster steps: group flags, balancer, autoscaler, CRUSH weights and
 * buckets, and the queries drain and status read. */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/strv.h"
#include "ceph-cluster.h"
#include "ceph-internal.h"

/* the CLI prefix (ceph.h) followed by `words` */
static char **argv_words(const CephCli *cli, const char *const *words, Error *err) {
        _cleanup_strv_free_ char **a = ceph_argv_cli(cli, err);
        if (!a)
                return NULL;
        for (size_t i = 0; words[i]; i++)
                if (strv_extend(&a, words[i]) < 0) {
                        error_set(err, ENOMEM, "out of memory");
                        return NULL;
                }
        return TAKE_PTR(a);
}

#define ARGV(cli, err, ...) argv_words((cli), (const char *const[]) { __VA_ARGS__, NULL }, (err))

static const char *const group_flags[] = { "noup", "nodown", "noin", "noout" };

/* "noout" or "noout,noin": each one of the four, none twice */
static bool group_flags_valid(const char *flags) {
        if (isempty(flags) || strlen(flags) > 64)
                return false;
        unsigned seen = 0;
        for (const char *p = flags;;) {
                size_t n = strcspn(p, ",");
                bool found = false;
                for (size_t i = 0; i < ELEMENTSOF(group_flags); i++)
                        if (strlen(group_flags[i]) == n && strncmp(group_flags[i], p, n) == 0) {
                                if (seen & (1u << i))
                                        return false;
                                seen |= 1u << i;
                                found = true;
                        }
                if (!found)
                        return false;
                if (!p[n])
                        return true;
                p += n + 1;
        }
}

static char **argv_group(const CephCli *cli, const char *verb, const char *flags, char *const *who, Error *err) {
        if (!group_flags_valid(flags)) {
                error_set(err, EINVAL, "osd %s: invalid flags '%s' (a comma-separated subset of noup,nodown,noin,noout)",
                          verb, strnull(flags));
                return NULL;
        }
        if (strv_length(who) == 0) {
                error_set(err, EINVAL, "osd %s %s: no host or OSD given", verb, flags);
                return NULL;
        }
        _cleanup_strv_free_ char **a = ARGV(cli, err, "osd", verb, flags);
        if (!a)
                return NULL;
        STRV_FOREACH(w, who) {
                if (!ceph_name_is_valid(*w)) {
                        error_set(err, EINVAL, "osd %s %s: invalid name '%s'", verb, flags, *w);
                        return NULL;
                }
                if (strv_extend(&a, *w) < 0) {
                        error_set(err, ENOMEM, "out of memory");
                        return NULL;
                }
        }
        return TAKE_PTR(a);
}

char **ceph_argv_osd_set_group(const CephCli *cli, const char *flags, char *const *who, Error *err) {
        return argv_group(cli, "set-group", flags, who, err);
}

char **ceph_argv_osd_unset_group(const CephCli *cli, const char *flags, char *const *who, Error *err) {
        return argv_group(cli, "unset-group", flags, who, err);
}

char **ceph_argv_balancer_status(const CephCli *cli, Error *err) {
        return ARGV(cli, err, "balancer", "status", "-f", "json");
}

char **ceph_argv_balancer_on(const CephCli *cli, Error *err) {
        return ARGV(cli, err, "balancer", "on");
}

char **ceph_argv_balancer_off(const CephCli *cli, Error *err) {
        return ARGV(cli, err, "balancer", "off");
}

static bool one_of(const char *s, const char *const *list) {
        for (size_t i = 0; s && list[i]; i++)
                if (streq(list[i], s))
                        return true;
        return false;
}

char **ceph_argv_balancer_mode(const CephCli *cli, const char *mode, Error *err) {
        static const char *const modes[] = { "none", "crush-compat", "upmap", "read", "upmap-read", NULL };
        if (!one_of(mode, modes)) {
                error_set(err, EINVAL, "balancer mode: unknown mode '%s'", strnull(mode));
                return NULL;
        }
        return ARGV(cli, err, "balancer", "mode", mode);
}

char **ceph_argv_osd_pool_get(const CephCli *cli, const char *pool, const char *var, Error *err) {
        if (!ceph_name_is_valid(pool) || !ceph_name_is_valid(var)) {
                error_set(err, EINVAL, "osd pool get: invalid pool '%s' or variable '%s'", strnull(pool), strnull(var));
                return NULL;
        }
        return ARGV(cli, err, "osd", "pool", "get", pool, var, "-f", "json");
}

char **ceph_argv_osd_pool_create(const CephCli *cli, const char *pool, unsigned pg_num, Error *err) {
        if (!ceph_name_is_valid(pool) || pg_num < 1 || pg_num > 65536) {
                error_set(err, EINVAL, "osd pool create: invalid pool '%s' or pg_num %u", strnull(pool), pg_num);
                return NULL;
        }
        char n[16];
        snprintf(n, sizeof n, "%u", pg_num);
        return ARGV(cli, err, "osd", "pool", "create", pool, n, n);
}

char **ceph_argv_osd_pool_application_enable(const CephCli *cli, const char *pool, const char *app, Error *err) {
        if (!ceph_name_is_valid(pool) || !ceph_name_is_valid(app)) {
                error_set(err, EINVAL, "osd pool application enable: invalid pool '%s' or application '%s'",
                          strnull(pool), strnull(app));
                return NULL;
        }
        return ARGV(cli, err, "osd", "pool", "application", "enable", pool, app);
}

char **ceph_argv_osd_pool_set_autoscale_mode(const CephCli *cli, const char *pool, const char *mode, Error *err) {
        static const char *const modes[] = { "on", "off", "warn", NULL };
        if (!ceph_name_is_valid(pool)) {
                error_set(err, EINVAL, "osd pool set: invalid pool '%s'", strnull(pool));
                return NULL;
        }
        if (!one_of(mode, modes)) {
                error_set(err, EINVAL, "osd pool set %s pg_autoscale_mode: invalid mode '%s' (on, off, warn)", pool,
                          strnull(mode));
                return NULL;
        }
        return ARGV(cli, err, "osd", "pool", "set", pool, "pg_autoscale_mode", mode);
}

char **ceph_argv_osd_pool_noautoscale(const CephCli *cli, bool set, Error *err) {
        return ARGV(cli, err, "osd", "pool", set ? "set" : "unset", "noautoscale");
}

char **ceph_argv_osd_pool_get_noautoscale(const CephCli *cli, Error *err) {
        return ARGV(cli, err, "osd", "pool", "get", "noautoscale");
}

char **ceph_argv_osd_crush_reweight(const CephCli *cli, int id, double weight, Error *err) {
        if (id < 0) {
                error_set(err, EINVAL, "osd crush reweight: invalid osd id %d", id);
                return NULL;
        }
        /* CRUSH weights are 16.16 fixed point; 1e6 is far beyond any device (TiB) */
        if (!isfinite(weight) || weight < 0 || weight > 1e6) {
                error_set(err, EINVAL, "osd crush reweight osd.%d: invalid weight %g", id, weight);
                return NULL;
        }
        _cleanup_(freep) char *name = strprintf("osd.%d", id), *w = strprintf("%.5f", weight);
        if (!name || !w) {
                error_set(err, ENOMEM, "out of memory");
                return NULL;
        }
        return ARGV(cli, err, "osd", "crush", "reweight", name, w);
}

char **ceph_argv_osd_crush_create_or_move(const CephCli *cli, int id, double weight, const char *host, Error *err) {
        if (id < 0 || !host || !*host) {
                error_set(err, EINVAL, "osd crush create-or-move: invalid osd id %d or host", id);
                return NULL;
        }
        if (!isfinite(weight) || weight < 0 || weight > 1e6) {
                error_set(err, EINVAL, "osd crush create-or-move osd.%d: invalid weight %g", id, weight);
                return NULL;
        }
        _cleanup_(freep) char *name = strprintf("osd.%d", id), *w = strprintf("%.5f", weight),
                              *h = strprintf("host=%s", host);
        if (!name || !w || !h) {
                error_set(err, ENOMEM, "out of memory");
                return NULL;
        }
        return ARGV(cli, err, "osd", "crush", "create-or-move", name, w, h);
}

int ceph_crush_reweight_steps(double from, double to, double max_step, double **ret, size_t *ret_n, Error *err) {
        if (!isfinite(from) || !isfinite(to) || from < 0 || to < 0 || from > 1e6 || to > 1e6)
                return error_set(err, EINVAL, "crush reweight: invalid weights %g → %g", from, to);
        if (!isfinite(max_step) || max_step <= 0)
                return error_set(err, EINVAL, "crush reweight: invalid step %g", max_step);
        double span = fabs(to - from);
        double n = ceil(span / max_step - 1e-9);
        if (n > 1000)
                return error_set(err, EINVAL, "crush reweight %g → %g in steps of %g: more than 1000 steps", from, to,
                                 max_step);
        size_t k = span < 0.000005 ? 0 : (size_t) (n < 1 ? 1 : n);
        double *v = calloc(k + 1, sizeof(double));
        if (!v)
                return -ENOMEM;
        /* equal steps, each rounded as "%.5f" prints it, the last one exactly the target */
        for (size_t i = 1; i <= k; i++)
                v[i - 1] = i == k ? to : round((from + (to - from) * (double) i / (double) k) * 1e5) / 1e5;
        *ret = v;
        *ret_n = k;
        return 0;
}

char **ceph_argv_osd_crush_rm(const CephCli *cli, const char *name, Error *err) {
        if (!ceph_name_is_valid(name)) {
                error_set(err, EINVAL, "osd crush rm: invalid name '%s'", strnull(name));
                return NULL;
        }
        return ARGV(cli, err, "osd", "crush", "rm", name);
}

char **ceph_argv_osd_df_tree(const CephCli *cli, Error *err) {
        return ARGV(cli, err, "osd", "df", "tree", "-f", "json");
}

char **ceph_argv_osd_pool_ls_detail(const CephCli *cli, Error *err) {
        return ARGV(cli, err, "osd", "pool", "ls", "detail", "-f", "json");
}

char **ceph_argv_osd_crush_rule_dump(const CephCli *cli, Error *err) {
        return ARGV(cli, err, "osd", "crush", "rule", "dump", "-f", "json");
}

char **ceph_argv_osd_ec_profile_get(const CephCli *cli, const char *name, Error *err) {
        if (!ceph_name_is_valid(name)) {
                error_set(err, EINVAL, "osd erasure-code-profile get: invalid profile '%s'", strnull(name));
                return NULL;
        }
        return ARGV(cli, err, "osd", "erasure-code-profile", "get", name, "-f", "json");
}

char **ceph_argv_osd_perf(const CephCli *cli, Error *err) {
        return ARGV(cli, err, "osd", "perf", "-f", "json");
}

char **ceph_argv_config_op(const CephCli *cli, const CephConfigOp *op, Error *err) {
        if (!op) {
                error_set(err, EINVAL, "config: no operation");
                return NULL;
        }
        if (op->value)
                return ceph_argv_config_set(cli, op->who, op->key, op->value, err);
        return ceph_argv_config_rm(cli, op->who, op->key, err);
}
