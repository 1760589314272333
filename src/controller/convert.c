/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "controller/convert.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/strv.h"
#include "controller/ceph-admin.h"
#include "controller/hosts.h"
#include "exec/journal.h"

struct ConvertInputs {
        json_object *inventory;   /* inventory_set_to_json() */
        char *osd_tree;           /* `ceph osd tree -f json` as printed */
        char *osd_metadata;       /* `ceph osd metadata -f json` as printed */
        char **hosts;             /* --hosts (NULL: every host with a profile) */
        bool reshape;
        bool drain_first;         /* --drain-first: playbook convert-filestore-drain */
        char *replace_host;       /* a replacement (cephprov replace HOST DEVICE): its saved */
        char *replace_device;     /* inputs are replace-CLUSTER.json, its plan one host's */
};

ConvertInputs *convert_inputs_free(ConvertInputs *in) {
        if (!in)
                return NULL;
        json_object_put(in->inventory);
        free(in->osd_tree);
        free(in->osd_metadata);
        strv_free(in->hosts);
        free(in->replace_host);
        free(in->replace_device);
        free(in);
        return NULL;
}

/* kind: "convert" or "replace" */
static int state_path_of(const Layout *l, const char *kind, char **ret, Error *err) {
        _cleanup_(freep) char *dir = NULL;
        int r = journal_default_dir(&dir, err);
        if (r < 0)
                return r;
        *ret = strprintf("%s/%s-%s.json", dir, kind, l->cluster_name ? l->cluster_name : "ceph");
        return *ret ? 0 : error_set(err, ENOMEM, "out of memory");
}

static int state_path(const Layout *l, char **ret, Error *err) {
        return state_path_of(l, "convert", ret, err);
}

static int load_saved(const char *path, ConvertInputs **ret, Error *err) {
        _cleanup_json_ json_object *o = NULL;
        int r = json_parse_file(path, &o, err);
        if (r < 0)
                return r;
        _cleanup_(convert_inputs_freep) ConvertInputs *in = calloc(1, sizeof(ConvertInputs));
        if (!in)
                return error_set(err, ENOMEM, "out of memory");
        json_object *inv = NULL, *hosts = NULL;
        const char *tree = NULL, *meta = NULL;
        /* optional keys answer -ENOENT, with no message, when absent: "hosts" is absent for a
         * conversion of every host (a resume of one failed so, "unknown error") */
        if ((r = json_get_object(o, "inventory", true, &inv, path, err)) < 0 ||
            (r = json_get_string(o, "osd_tree", true, &tree, path, err)) < 0 ||
            (r = json_get_string(o, "osd_metadata", true, &meta, path, err)) < 0 ||
            ((r = json_get_bool(o, "reshape", false, &in->reshape, path, err)) < 0 && r != -ENOENT) ||
            ((r = json_get_bool(o, "drain_first", false, &in->drain_first, path, err)) < 0 && r != -ENOENT) ||
            ((r = json_get_array(o, "hosts", false, &hosts, path, err)) < 0 && r != -ENOENT))
                return r;
        const char *rh = NULL, *rd = NULL;
        if (((r = json_get_string(o, "replace_host", false, &rh, path, err)) < 0 && r != -ENOENT) ||
            ((r = json_get_string(o, "replace_device", false, &rd, path, err)) < 0 && r != -ENOENT))
                return r;
        if ((rh && !(in->replace_host = strdup(rh))) || (rd && !(in->replace_device = strdup(rd))))
                return error_set(err, ENOMEM, "out of memory");
        in->inventory = json_object_get(inv);
        if (!(in->osd_tree = strdup(tree)) || !(in->osd_metadata = strdup(meta)))
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; hosts && i < json_object_array_length(hosts); i++)
                if (strv_extend(&in->hosts, json_object_get_string(json_object_array_get_idx(hosts, i))) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(in);
        return 0;
}

static bool same_hosts(char * const *a, char * const *b) {
        size_t na = strv_length((char **) a), nb = strv_length((char **) b);
        if (na != nb)
                return false;
        for (size_t i = 0; i < na; i++)
                if (!strv_contains((char **) b, a[i]))
                        return false;
        return true;
}

/* A conversion and a replacement rebuild OSDs through the same steps and journal: one at a
 * time. `other` is the kind of the one that must not be under way. */
static int refuse_other(const Layout *l, const char *other, Error *err) {
        _cleanup_(freep) char *path = NULL;
        int r = state_path_of(l, other, &path, err);
        if (r < 0)
                return r;
        if (access(path, F_OK) < 0)
                return 0;
        _cleanup_(convert_inputs_freep) ConvertInputs *in = NULL;
        if (load_saved(path, &in, err) < 0 || !in->replace_host)
                return error_set(err, EBUSY, "a conversion is under way (its plan is saved in '%s'): finish it first "
                                             "(run `cephprov convert` again as it was started)", path);
        return error_set(err, EBUSY, "the replacement of '%s' on host '%s' is under way (its plan is saved in '%s'): "
                                     "finish it first (run `cephprov replace LAYOUT %s %s` again)",
                         in->replace_device, in->replace_host, path, in->replace_host, in->replace_device);
}

int convert_inputs_load(const Layout *l, char * const *only, bool reshape, bool drain_first, ConvertInputs **ret,
                        bool *ret_resumed, Error *err) {
        _cleanup_(freep) char *path = NULL;
        int r = state_path(l, &path, err);
        if (r < 0)
                return r;
        _cleanup_(convert_inputs_freep) ConvertInputs *in = NULL;
        if ((r = refuse_other(l, "replace", err)) < 0)
                return r;
        if (access(path, F_OK) == 0) {
                if ((r = load_saved(path, &in, err)) < 0)
                        return r;
                if (!same_hosts(only, in->hosts) || in->reshape != reshape || in->drain_first != drain_first)
                        return error_set(err, EBUSY, "a conversion of other hosts (or with%s --reshape, with%s "
                                                     "--drain-first) is under way (its plan is saved in '%s'): run it "
                                                     "again as it was started, to finish it",
                                         in->reshape ? "" : "out", in->drain_first ? "" : "out", path);
                *ret = TAKE_PTR(in);
                *ret_resumed = true;
                return 0;
        }

        if (!(in = calloc(1, sizeof(ConvertInputs))))
                return error_set(err, ENOMEM, "out of memory");
        in->reshape = reshape;
        in->drain_first = drain_first;
        if (only && !(in->hosts = strv_copy((char **) only)))
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        size_t failed = 0;
        if ((r = controller_inventory(l, only, false, true, NULL, &inv, &failed, err)) < 0)
                return r;
        if (failed > 0)
                return error_set(err, EHOSTUNREACH, "%zu host%s did not answer: a conversion plans with every host it "
                                                    "converts", failed, failed == 1 ? "" : "s");
        if (inventory_set_to_json(inv, &in->inventory) < 0)
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_(ceph_admin_closep) CephAdmin *admin = NULL;
        if ((r = ceph_admin_open(l, &admin, err)) < 0)
                return r;
        const CephCli *cli = ceph_admin_cli(admin);
        if ((r = ceph_admin_run(admin, ceph_argv_osd_tree(cli, err), NULL, &in->osd_tree, err)) < 0 ||
            (r = ceph_admin_run(admin, ceph_argv_osd_metadata(cli, -1, err), NULL, &in->osd_metadata, err)) < 0)
                return r;
        *ret = TAKE_PTR(in);
        *ret_resumed = false;
        return 0;
}

int convert_inputs_plan(const Layout *l, const ConvertInputs *in, ConvertPlan **ret, Error *err) {
        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        _cleanup_(ceph_osd_tree_freep) CephOsdTree *tree = NULL;
        _cleanup_(ceph_osd_metadata_list_freep) CephOsdMetadataList *meta = NULL;
        int r = inventory_set_from_json(in->inventory, &inv, err);
        if (r < 0)
                return r;
        if ((r = ceph_osd_tree_parse(in->osd_tree, &tree, err)) < 0)
                return error_prefix(err, r, "'ceph osd tree'");
        if ((r = ceph_osd_metadata_parse(in->osd_metadata, &meta, err)) < 0)
                return error_prefix(err, r, "'ceph osd metadata'");
        ConvertOptions co = { .hosts = in->hosts, .reshape = in->reshape, .replace_device = in->replace_device };
        return plan_convert(l, inv, tree, meta, &co, ret, err);
}

/* The saved inventory of `host` in `inv` (inventory_set_to_json()'s), NULL: none. */
static json_object *saved_host_devices(json_object *inv, const char *host) {
        json_object *invs = NULL, *h = NULL, *devs = NULL;
        if (!json_object_object_get_ex(inv, "inventories", &invs))
                return NULL;
        for (size_t i = 0; i < json_object_array_length(invs); i++) {
                json_object *x = json_object_array_get_idx(invs, i);
                if (json_object_object_get_ex(x, "host", &h) && streq_ptr(json_object_get_string(h), host) &&
                    json_object_object_get_ex(x, "devices", &devs))
                        return devs;
        }
        return NULL;
}

/* After convert_plan_follow(): each device of the saved inventory that the plan found under
 * another name is put under that name (its partitions' nodes too), so that what looks a device
 * of the plan up in the saved inventory (the expect of wipe-replaced: what the plan saw) finds
 * what was saved of that disk, not of the one that had its name then; a saved device of no
 * plan's under a name a followed one has now is left out. In memory only: the file keeps what
 * was saved. */
static int saved_rename(ConvertInputs *in, const ConvertPlan *p, Error *err) {
        for (size_t i = 0; i < p->n_hosts; i++) {
                const ConvertHost *h = &p->hosts[i];
                _cleanup_strv_free_ char **from = NULL, **to = NULL;
                for (size_t k = 0; k < h->n_osds + h->n_replaced + h->n_created; k++) {
                        const char *was, *now;
                        if (k < h->n_osds)
                                was = h->osds[k].planned_device, now = h->osds[k].data_device;
                        else {
                                const ConvertPart *x = k < h->n_osds + h->n_replaced ? &h->replaced[k - h->n_osds]
                                                                                  : &h->created[k - h->n_osds - h->n_replaced];
                                was = x->planned_device, now = x->device;
                        }
                        if (!was || strv_contains(from, was))
                                continue;
                        if (strv_extend(&from, was) < 0 || strv_extend(&to, now) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                }
                json_object *devs = from ? saved_host_devices(in->inventory, h->host) : NULL;
                if (!devs)
                        continue;
                json_object *kept = json_object_new_array();
                if (!kept)
                        return error_set(err, ENOMEM, "out of memory");
                for (size_t k = 0; k < json_object_array_length(devs); k++) {
                        json_object *d = json_object_array_get_idx(devs, k), *pv = NULL, *parts = NULL;
                        const char *path = json_object_object_get_ex(d, "path", &pv) ? json_object_get_string(pv) : NULL;
                        ssize_t at = -1;
                        for (size_t m = 0; path && from[m]; m++)
                                if (streq(from[m], path))
                                        at = (ssize_t) m;
                        if (at < 0) {
                                if (!path || !strv_contains(to, path))
                                        json_object_array_add(kept, json_object_get(d));
                                continue;
                        }
                        _cleanup_(freep) char *old = strdup(path);
                        const char *now = to[at];
                        if (!old)
                                return json_object_put(kept), error_set(err, ENOMEM, "out of memory");
                        json_object_object_add(d, "path", json_object_new_string(now));
                        json_object_object_add(d, "name", json_object_new_string(startswith(now, "/dev/") ? now + 5 : now));
                        if (json_object_object_get_ex(d, "partitions", &parts))
                                for (size_t q = 0; q < json_object_array_length(parts); q++) {
                                        json_object *pt = json_object_array_get_idx(parts, q), *nv = NULL;
                                        const char *node = json_object_object_get_ex(pt, "node", &nv) ? json_object_get_string(nv) : NULL;
                                        if (!node || !startswith(node, old))
                                                continue;
                                        _cleanup_(freep) char *nn = strprintf("%s%s", now, node + strlen(old));
                                        if (nn)
                                                json_object_object_add(pt, "node", json_object_new_string(nn));
                                }
                        json_object_array_add(kept, json_object_get(d));
                }
                /* the host's devices replaced by the renamed list */
                json_object *invs = NULL, *hv = NULL;
                json_object_object_get_ex(in->inventory, "inventories", &invs);
                for (size_t k = 0; invs && k < json_object_array_length(invs); k++) {
                        json_object *x = json_object_array_get_idx(invs, k);
                        if (json_object_object_get_ex(x, "host", &hv) && streq_ptr(json_object_get_string(hv), h->host))
                                json_object_object_add(x, "devices", json_object_get(kept));
                }
                json_object_put(kept);
        }
        return 0;
}

int convert_inputs_follow(const Layout *l, ConvertInputs *in, ConvertPlan *p, Error *err) {
        _cleanup_strv_free_ char **hosts = NULL, **changes = NULL;
        for (size_t i = 0; i < p->n_hosts; i++) {
                bool any = false;
                for (size_t k = 0; k < p->hosts[i].n_osds; k++)
                        any = any || p->hosts[i].osds[k].rebuilt;
                if (any && strv_extend(&hosts, p->hosts[i].host) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        if (!hosts)
                return 0;
        _cleanup_(inventory_set_freep) InventorySet *saved = NULL, *fresh = NULL;
        size_t failed = 0;
        int r = inventory_set_from_json(in->inventory, &saved, err);
        if (r < 0)
                return error_prefix(err, r, "the saved inventories");
        if ((r = controller_inventory(l, hosts, false, true, NULL, &fresh, &failed, err)) < 0)
                return r;
        if (failed > 0)
                return error_set(err, EHOSTUNREACH, "%zu host%s did not answer: a resumed plan finds its devices again "
                                                    "on every host it rebuilds OSDs on before it goes on", failed,
                                 failed == 1 ? "" : "s");
        /* the OSDs whose old partitions this run already deleted (journal: 'wiped' or later):
         * a partition named as planned at their number is the run's own successor */
        _cleanup_json_ json_object *st = NULL;
        if ((r = convert_status(l, &st, err)) < 0)
                return r;
        json_object *osds = NULL;
        static const char *const after_wipe[] = { "wiped", "repartitioned", "created", "backfilling", "converted" };
        for (size_t i = 0; st && json_object_object_get_ex(st, "osds", &osds) && i < json_object_array_length(osds); i++) {
                json_object *e = json_object_array_get_idx(osds, i), *v = NULL;
                const char *phase = json_object_object_get_ex(e, "phase", &v) ? json_object_get_string(v) : NULL;
                const char *host = json_object_object_get_ex(e, "host", &v) ? json_object_get_string(v) : NULL;
                int64_t id = json_object_object_get_ex(e, "id", &v) ? json_object_get_int64(v) : -1;
                bool wiped = false;
                for (size_t k = 0; phase && k < ELEMENTSOF(after_wipe); k++)
                        wiped = wiped || streq(phase, after_wipe[k]);
                ConvertHost *ch = host && wiped ? (ConvertHost *) convert_plan_host(p, host) : NULL;
                for (size_t k = 0; ch && k < ch->n_osds; k++)
                        if (ch->osds[k].id == id)
                                ch->osds[k].parts_replaced = true;
        }
        if ((r = convert_plan_follow(p, saved, fresh, &changes, err)) < 0)
                return error_prefix(err, r, "the saved plan against the hosts now");
        STRV_FOREACH(c, changes)
                log_notice("%s", *c);
        return changes ? saved_rename(in, p, err) : 0;
}

int convert_inputs_save(const Layout *l, const ConvertInputs *in, Error *err) {
        _cleanup_(freep) char *path = NULL, *tmp = NULL;
        int r = state_path_of(l, in->replace_host ? "replace" : "convert", &path, err);
        if (r < 0)
                return r;
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *hosts = in->hosts ? json_object_new_array() : NULL;
        if (!o || json_add(o, "inventory", json_object_get(in->inventory)) < 0 ||
            json_add_string(o, "osd_tree", in->osd_tree) < 0 || json_add_string(o, "osd_metadata", in->osd_metadata) < 0 ||
            json_add_bool(o, "reshape", in->reshape) < 0 || json_add_bool(o, "drain_first", in->drain_first) < 0)
                return error_set(err, ENOMEM, "out of memory");
        STRV_FOREACH(h, in->hosts)
                json_object_array_add(hosts, json_object_new_string(*h));
        if (hosts)
                json_add(o, "hosts", hosts);
        if (in->replace_host && (json_add_string(o, "replace_host", in->replace_host) < 0 ||
                                 json_add_string(o, "replace_device", in->replace_device) < 0))
                return error_set(err, ENOMEM, "out of memory");
        if (!(tmp = strprintf("%s.tmp", path)))
                return error_set(err, ENOMEM, "out of memory");
        const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
        _cleanup_(closep) int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
                return error_set(err, errno, "cannot write '%s': %s", tmp, strerror(errno));
        size_t len = strlen(text);
        if (write(fd, text, len) != (ssize_t) len || write(fd, "\n", 1) != 1 || fsync(fd) < 0)
                return error_set(err, errno ? errno : EIO, "cannot write '%s': %s", tmp, strerror(errno ? errno : EIO));
        if (rename(tmp, path) < 0)
                return error_set(err, errno, "cannot rename '%s': %s", tmp, strerror(errno));
        return 0;
}

static int inputs_remove(const Layout *l, const char *kind, Error *err) {
        _cleanup_(freep) char *path = NULL;
        int r = state_path_of(l, kind, &path, err);
        if (r < 0)
                return r;
        if (unlink(path) < 0 && errno != ENOENT)
                return error_set(err, errno, "cannot remove '%s': %s", path, strerror(errno));
        return 0;
}

int convert_inputs_remove(const Layout *l, Error *err) {
        return inputs_remove(l, "convert", err);
}

int replace_inputs_remove(const Layout *l, Error *err) {
        return inputs_remove(l, "replace", err);
}

/* ---- a replacement --------------------------------------------------------------------- */

int replace_inputs_load(const Layout *l, const char *host, const char *device, ConvertInputs **ret, bool *ret_resumed,
                        Error *err) {
        _cleanup_(freep) char *path = NULL;
        int r = state_path_of(l, "replace", &path, err);
        if (r < 0 || (r = refuse_other(l, "convert", err)) < 0)
                return r;
        _cleanup_(convert_inputs_freep) ConvertInputs *in = NULL;
        if (access(path, F_OK) == 0) {
                if ((r = load_saved(path, &in, err)) < 0)
                        return r;
                if (!streq_ptr(in->replace_host, host) || !streq_ptr(in->replace_device, device))
                        return error_set(err, EBUSY, "the replacement of '%s' on host '%s' is under way (its plan is "
                                                     "saved in '%s'): finish it first (run `cephprov replace LAYOUT %s "
                                                     "%s` again)", in->replace_device ?: "?", in->replace_host ?: "?",
                                         path, in->replace_host ?: "?", in->replace_device ?: "?");
                *ret = TAKE_PTR(in);
                *ret_resumed = true;
                return 0;
        }

        if (!(in = calloc(1, sizeof(ConvertInputs))) || !(in->replace_host = strdup(host)) ||
            !(in->replace_device = strdup(device)) || strv_extend(&in->hosts, host) < 0)
                return error_set(err, ENOMEM, "out of memory");
        /* the cluster first: a replacement destroys OSDs and runs degraded until they are back,
         * which a cluster in HEALTH_ERR cannot afford (a failed disk makes HEALTH_WARN) */
        _cleanup_(ceph_admin_closep) CephAdmin *admin = NULL;
        _cleanup_(ceph_health_freep) CephHealth *health = NULL;
        if ((r = ceph_admin_open(l, &admin, err)) < 0 || (r = ceph_admin_status(admin, &health, NULL, err)) < 0)
                return r;
        if (health->status == CEPH_HEALTH_ERR) {
                _cleanup_strv_free_ char **errs = NULL;
                for (size_t i = 0; i < health->n_checks; i++)
                        if (health->checks[i].severity == CEPH_HEALTH_ERR &&
                            strv_consume(&errs, strprintf("%s: %s", health->checks[i].code,
                                                          health->checks[i].summary ?: "")) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                _cleanup_(freep) char *list = errs ? strv_join(errs, "; ") : NULL;
                return error_set(err, EBUSY, "the cluster is HEALTH_ERR%s%s%s: refusing to replace '%s' on host '%s' "
                                             "(it destroys OSDs and runs degraded until they are back): nothing changed",
                                 list ? " (" : "", list ?: "", list ? ")" : "", device, host);
        }
        _cleanup_(inventory_set_freep) InventorySet *inv = NULL;
        size_t failed = 0;
        if ((r = controller_inventory(l, in->hosts, false, true, NULL, &inv, &failed, err)) < 0)
                return r;
        if (failed > 0)
                return error_set(err, EHOSTUNREACH, "host '%s' did not answer: a replacement plans from its inventory",
                                 host);
        if (inventory_set_to_json(inv, &in->inventory) < 0)
                return error_set(err, ENOMEM, "out of memory");
        const CephCli *cli = ceph_admin_cli(admin);
        if ((r = ceph_admin_run(admin, ceph_argv_osd_tree(cli, err), NULL, &in->osd_tree, err)) < 0 ||
            (r = ceph_admin_run(admin, ceph_argv_osd_metadata(cli, -1, err), NULL, &in->osd_metadata, err)) < 0)
                return r;
        *ret = TAKE_PTR(in);
        *ret_resumed = false;
        return 0;
}

int convert_status(const Layout *l, json_object **ret, Error *err) {
        *ret = NULL;
        _cleanup_(freep) char *path = NULL, *dir = NULL, *jpath = NULL;
        int r = state_path(l, &path, err);
        if (r < 0)
                return r;
        struct stat st;
        if (stat(path, &st) < 0 && errno == ENOENT) {
                /* no conversion: a replacement under way, if any, the same way */
                free(path);
                path = NULL;
                if ((r = state_path_of(l, "replace", &path, err)) < 0)
                        return r;
        }
        if (stat(path, &st) < 0)
                return errno == ENOENT ? 0 : error_set(err, errno, "cannot read '%s': %s", path, strerror(errno));
        _cleanup_(convert_inputs_freep) ConvertInputs *in = NULL;
        _cleanup_(convert_plan_freep) ConvertPlan *p = NULL;
        if ((r = load_saved(path, &in, err)) < 0 || (r = convert_inputs_plan(l, in, &p, err)) < 0)
                return error_prefix(err, r, "the conversion under way");
        /* the records of this conversion: those written since its inputs were saved (the
         * journal's times are UTC, ISO 8601 with milliseconds: they sort as strings) */
        char since[32];
        struct tm tm;
        time_t t = st.st_mtime;
        if (!gmtime_r(&t, &tm) || strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
                return error_set(err, EINVAL, "'%s': a modification time out of range", path);
        if ((r = journal_default_dir(&dir, err)) < 0)
                return r;
        if (!(jpath = strprintf("%s/%s.journal", dir, l->cluster_name ? l->cluster_name : "ceph")))
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_json_ json_object *all = NULL, *mine = json_object_new_array();
        if (!mine)
                return error_set(err, ENOMEM, "out of memory");
        if (access(jpath, F_OK) == 0 && (r = journal_read(jpath, &all, err)) < 0)
                return r;
        for (size_t i = 0; all && i < json_object_array_length(all); i++) {
                json_object *rec = json_object_array_get_idx(all, i), *tv;
                if (json_object_object_get_ex(rec, "time", &tv) && strcmp(json_object_get_string(tv), since) >= 0)
                        json_object_array_add(mine, json_object_get(rec));
        }
        _cleanup_json_ json_object *o = convert_progress_json(p, mine);
        if (!o || json_add_string(o, "started", since) < 0)
                return error_set(err, ENOMEM, "out of memory");
        if (in->replace_host) {
                json_object *x = json_object_new_object();
                if (!x || json_add(o, "replace", x) < 0 || json_add_string(x, "host", in->replace_host) < 0 ||
                    json_add_string(x, "device", in->replace_device) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        } else if (in->hosts) {
                json_object *h = json_object_new_array();
                if (!h || json_add(o, "hosts", h) < 0)
                        return error_set(err, ENOMEM, "out of memory");
                STRV_FOREACH(x, in->hosts)
                        json_object_array_add(h, json_object_new_string(*x));
        }
        *ret = TAKE_PTR(o);
        return 0;
}

int convert_own_osds(const Layout *l, const ConvertPlan *p, int **ret, size_t *ret_n, Error *err) {
        *ret = NULL;
        *ret_n = 0;
        _cleanup_json_ json_object *st = NULL;
        int r = convert_status(l, &st, err);
        if (r < 0)
                return r;
        const char *current = NULL;
        if (!st || json_get_string(st, "current", false, &current, "convert status", NULL) < 0 || !current)
                return 0;
        const ConvertHost *ch = convert_plan_host(p, current);
        _cleanup_(freep) int *ids = calloc(ch && ch->n_osds ? ch->n_osds : 1, sizeof(int));
        if (!ids)
                return error_set(err, ENOMEM, "out of memory");
        size_t n = 0;
        for (size_t k = 0; ch && k < ch->n_osds; k++)
                if (ch->osds[k].rebuilt)
                        ids[n++] = ch->osds[k].id;
        *ret = TAKE_PTR(ids);
        *ret_n = n;
        return 0;
}

int convert_inputs_inventory(const ConvertInputs *in, InventorySet **ret, Error *err) {
        return inventory_set_from_json(in->inventory, ret, err);
}
