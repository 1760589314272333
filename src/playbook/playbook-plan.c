/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A playbook's plan for a list of hosts: the waves, and what each host runs in them, as
 * text for people and as JSON (see playbook.h). Facts not known yet (a host's OSDs before
 * the controller asked the cluster) stay as their references. */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/size.h"
#include "basic/strv.h"
#include "playbook-internal.h"

PlaybookWaves *playbook_waves_free(PlaybookWaves *w) {
        if (!w)
                return NULL;
        free(w->hosts);
        free(w->start);
        free(w);
        return NULL;
}

int playbook_waves(const Playbook *pb, const PlaybookHostFacts *hosts, size_t n, PlaybookWaves **ret) {
        _cleanup_(playbook_waves_freep) PlaybookWaves *w = calloc(1, sizeof(PlaybookWaves));
        _cleanup_(freep) size_t *group = calloc(n ? n : 1, sizeof(size_t));
        if (!w || !group || !(w->hosts = calloc(n ? n : 1, sizeof(size_t))) ||
            !(w->start = calloc(n + 2, sizeof(size_t))))
                return -ENOMEM;

        /* Failure domains in the order their first host comes; a host whose domain is not
         * known is a domain of its own. Other strategies: one group, in the order given. */
        size_t n_groups = pb->strategy == PLAYBOOK_HOSTS_FAILURE_DOMAIN ? 0 : 1;
        for (size_t i = 0; i < n && pb->strategy == PLAYBOOK_HOSTS_FAILURE_DOMAIN; i++) {
                group[i] = n_groups;
                for (size_t j = 0; j < i; j++)
                        if (hosts[i].failure_domain && streq_ptr(hosts[i].failure_domain, hosts[j].failure_domain)) {
                                group[i] = group[j];
                                break;
                        }
                if (group[i] == n_groups)
                        n_groups++;
        }
        size_t k = 0;
        for (size_t g = 0; g < n_groups; g++)
                for (size_t i = 0; i < n; i++)
                        if (group[i] == g)
                                w->hosts[k++] = i;

        /* Cut the ordered hosts into waves. */
        size_t per = pb->strategy == PLAYBOOK_HOSTS_BATCH ? pb->batch : 1;
        for (size_t i = 0; i < n;) {
                size_t end;
                if (i == 0 && pb->canary)
                        end = 1;
                else if (pb->strategy == PLAYBOOK_HOSTS_FAILURE_DOMAIN)
                        for (end = i + 1; end < n && group[w->hosts[end]] == group[w->hosts[i]]; end++)
                                ;
                else
                        end = MIN(n, i + per);
                w->start[w->n_waves++] = i;
                i = end;
        }
        w->start[w->n_waves] = n;
        *ret = TAKE_PTR(w);
        return 0;
}

/* The step's arguments with what is known filled in: the host's name and the run's hosts
 * always, its OSDs when known. */
static int resolve(const PlaybookStep *s, const PlaybookHostFacts *h, char * const *all, json_object **ret) {
        _cleanup_json_ json_object *out = json_object_new_object();
        if (!out)
                return -ENOMEM;
        json_object_object_foreach(s->args, key, val) {
                const char *t = json_object_is_type(val, json_type_string) ? json_object_get_string(val) : NULL;
                json_object *n = NULL;
                if (t && streq(t, "${hosts}"))
                        n = json_array_new_strv(all);
                else if (t && h && streq(t, "${host}"))
                        n = json_object_new_string(h->host);
                else if (t && h && h->osds && streq(t, "${host.osds}")) {
                        n = json_object_new_array();
                        for (size_t i = 0; n && i < h->n_osds; i++) {
                                json_object *id = json_object_new_int64(h->osds[i]);
                                if (!id || json_object_array_add(n, id) < 0) {
                                        json_object_put(id);
                                        json_object_put(n);
                                        n = NULL;
                                }
                        }
                } else if (json_object_deep_copy(val, &n, NULL) < 0)
                        n = NULL;
                if (!n || json_add(out, key, n) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(out);
        return 0;
}

/* A duration as people write it: the largest unit it is a whole number of. */
static void format_duration(int64_t s, char *buf, size_t len) {
        if (s > 0 && s % 3600 == 0)
                snprintf(buf, len, "%" PRId64 "h", s / 3600);
        else if (s > 0 && s % 60 == 0)
                snprintf(buf, len, "%" PRId64 "m", s / 60);
        else
                snprintf(buf, len, "%" PRId64 "s", s);
}

static void print_value(const StepArgSpec *a, json_object *v, FILE *f) {
        char buf[64];
        if (json_object_is_type(v, json_type_array)) {
                fputc('[', f);
                for (size_t i = 0; i < json_object_array_length(v); i++)
                        fprintf(f, "%s%s", i ? ", " : "", json_object_get_string(json_object_array_get_idx(v, i)));
                fputc(']', f);
        } else if (a && a->type == STEP_ARG_DURATION && json_object_is_type(v, json_type_int)) {
                format_duration(json_object_get_int64(v), buf, sizeof buf);
                fputs(buf, f);
        } else if (a && a->type == STEP_ARG_SIZE && json_object_is_type(v, json_type_int)) {
                size_format((uint64_t) json_object_get_int64(v), buf, sizeof buf);
                for (char *p = buf; *p; p++) /* "4 KiB" → "4KiB": one word per value */
                        if (*p == ' ')
                                memmove(p, p + 1, strlen(p));
                fputs(buf, f);
        } else if (json_object_is_type(v, json_type_double))
                fprintf(f, "%.10g", json_object_get_double(v)); /* 0.004, not json-c's 0.0040000000000000001 */
        else
                fputs(json_object_get_string(v), f);
}

static int print_step(const PlaybookStep *s, const PlaybookHostFacts *h, char * const *all, const char *indent,
                      FILE *f) {
        _cleanup_json_ json_object *args = NULL;
        int r = resolve(s, h, all, &args);
        if (r < 0)
                return r;
        fprintf(f, "%s%s", indent, s->entry->name);
        json_object_object_foreach(args, key, val) {
                fprintf(f, " %s=", key);
                print_value(step_entry_find_arg(s->entry, key), val, f);
        }
        fputc('\n', f);
        return 0;
}

static char **host_names(const PlaybookHostFacts *hosts, size_t n) {
        _cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
        if (!l)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (strv_extend(&l, hosts[i].host) < 0)
                        return NULL;
        return TAKE_PTR(l);
}

int playbook_print_plan(const Playbook *pb, const PlaybookHostFacts *hosts, size_t n, FILE *f) {
        _cleanup_(playbook_waves_freep) PlaybookWaves *w = NULL;
        _cleanup_strv_free_ char **all = host_names(hosts, n);
        int r;

        if (!all || (r = playbook_waves(pb, hosts, n, &w)) < 0)
                return -ENOMEM;

        fprintf(f, "playbook '%s'%s: %zu host%s in %zu wave%s (%s", pb->name, pb->destructive ? " (destructive)" : "", n,
                n == 1 ? "" : "s", w->n_waves, w->n_waves == 1 ? "" : "s", playbook_strategy_to_string(pb->strategy));
        if (pb->strategy == PLAYBOOK_HOSTS_BATCH)
                fprintf(f, " %u", pb->batch);
        if (pb->strategy == PLAYBOOK_HOSTS_FAILURE_DOMAIN)
                fprintf(f, " by %s", pb->bucket);
        fprintf(f, "%s), on failure: %s\n", pb->canary ? ", canary first" : "", playbook_on_failure_to_string(pb->on_failure));

        if (pb->n_steps[PLAYBOOK_BEFORE] > 0) {
                fprintf(f, "\nbefore the first wave, once:\n");
                for (size_t i = 0; i < pb->n_steps[PLAYBOOK_BEFORE]; i++)
                        if ((r = print_step(&pb->steps[PLAYBOOK_BEFORE][i], NULL, all, "  ", f)) < 0)
                                return r;
        }
        for (size_t wi = 0; wi < w->n_waves; wi++) {
                fprintf(f, "\nwave %zu of %zu:", wi + 1, w->n_waves);
                for (size_t k = w->start[wi]; k < w->start[wi + 1]; k++)
                        fprintf(f, " %s", hosts[w->hosts[k]].host);
                fputc('\n', f);
                for (size_t k = w->start[wi]; k < w->start[wi + 1]; k++) {
                        const PlaybookHostFacts *h = &hosts[w->hosts[k]];
                        fprintf(f, "  %s%s%s:\n", h->host, h->failure_domain ? " in " : "", h->failure_domain ?: "");
                        for (size_t i = 0; i < pb->n_steps[PLAYBOOK_PER_HOST]; i++)
                                if ((r = print_step(&pb->steps[PLAYBOOK_PER_HOST][i], h, all, "    ", f)) < 0)
                                        return r;
                }
                if (wi + 1 < w->n_waves && pb->n_steps[PLAYBOOK_GATE] > 0) {
                        fprintf(f, "  then, before the next wave:\n");
                        for (size_t i = 0; i < pb->n_steps[PLAYBOOK_GATE]; i++)
                                if ((r = print_step(&pb->steps[PLAYBOOK_GATE][i], NULL, all, "    ", f)) < 0)
                                        return r;
                }
        }
        if (pb->n_steps[PLAYBOOK_AFTER] > 0) {
                fprintf(f, "\nafter the last wave, also after a failure or cancel:\n");
                for (size_t i = 0; i < pb->n_steps[PLAYBOOK_AFTER]; i++)
                        if ((r = print_step(&pb->steps[PLAYBOOK_AFTER][i], NULL, all, "  ", f)) < 0)
                                return r;
        }
        return 0;
}

static int steps_to_json(const Playbook *pb, PlaybookSection sec, const PlaybookHostFacts *h, char * const *all,
                         json_object **ret) {
        _cleanup_json_ json_object *arr = json_object_new_array();
        if (!arr)
                return -ENOMEM;
        for (size_t i = 0; i < pb->n_steps[sec]; i++) {
                _cleanup_json_ json_object *args = NULL;
                if (resolve(&pb->steps[sec][i], h, all, &args) < 0)
                        return -ENOMEM;
                json_object *st = playbook_step_to_json(&pb->steps[sec][i], args);
                if (!st || json_object_array_add(arr, st) < 0) {
                        json_object_put(st);
                        return -ENOMEM;
                }
        }
        *ret = TAKE_PTR(arr);
        return 0;
}

int playbook_plan_to_json(const Playbook *pb, const PlaybookHostFacts *hosts, size_t n, json_object **ret) {
        _cleanup_(playbook_waves_freep) PlaybookWaves *w = NULL;
        _cleanup_strv_free_ char **all = host_names(hosts, n);
        _cleanup_json_ json_object *j = json_object_new_object(), *waves = json_object_new_array();
        json_object *a;

        if (!all || !j || !waves || playbook_waves(pb, hosts, n, &w) < 0 || json_add_string(j, "playbook", pb->name) < 0 ||
            json_add_bool(j, "destructive", pb->destructive) < 0 ||
            json_add_string(j, "on_failure", playbook_on_failure_to_string(pb->on_failure)) < 0 ||
            steps_to_json(pb, PLAYBOOK_BEFORE, NULL, all, &a) < 0 || json_add(j, "before", a) < 0)
                return -ENOMEM;
        for (size_t wi = 0; wi < w->n_waves; wi++) {
                json_object *wave = json_object_new_object(), *names = json_object_new_array(), *steps = json_object_new_object();
                if (!wave || json_object_array_add(waves, wave) < 0) {
                        json_object_put(wave);
                        json_object_put(names);
                        json_object_put(steps);
                        return -ENOMEM;
                }
                if (json_add(wave, "hosts", names) < 0 || json_add(wave, "steps", steps) < 0)
                        return -ENOMEM;
                for (size_t k = w->start[wi]; k < w->start[wi + 1]; k++) {
                        const PlaybookHostFacts *h = &hosts[w->hosts[k]];
                        if (json_object_array_add(names, json_object_new_string(h->host)) < 0 ||
                            steps_to_json(pb, PLAYBOOK_PER_HOST, h, all, &a) < 0 || json_add(steps, h->host, a) < 0)
                                return -ENOMEM;
                }
                if (wi + 1 < w->n_waves) {
                        if (steps_to_json(pb, PLAYBOOK_GATE, NULL, all, &a) < 0 || json_add(wave, "gate", a) < 0)
                                return -ENOMEM;
                }
        }
        if (json_add(j, "waves", TAKE_PTR(waves)) < 0 || steps_to_json(pb, PLAYBOOK_AFTER, NULL, all, &a) < 0 ||
            json_add(j, "after", a) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(j);
        return 0;
}
