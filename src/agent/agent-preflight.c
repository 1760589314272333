/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The "preflight" op: before any step of a host runs, does the host have what its planned
 * steps need (AgentNeed, src/agent/agent-needs.h), and do its devices still look as the
 * plan saw them? Every check answers present/ok or missing with the reason; the op itself
 * fails only on bad arguments, so the controller gets the whole list at once.
 *
 * It changes nothing, with one exception asked for explicitly: with "load_modules" a bcache
 * module that is merely not loaded is loaded (`modprobe bcache`, once). Without it,
 * `modprobe -n bcache` says whether it could be. The device steps (wipe, create-gpt,
 * create-partition) are run in their dry-run mode, in plan order, so the checks are the
 * ops' own: a free region that vanished, a signature that appeared, a device now in use
 * are refused here as the op would refuse them later, only before anything was written. */

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent-internal.h"
#include "agent-needs.h"
#include "basic/size.h"

/* ceph-volume looks for the tools it runs (ceph-osd, ceph-bluestore-tool, ceph) in PATH,
 * then here (ceph_volume/util/system.py, which()) */
static const char *const ceph_volume_dirs[] = {
        "/usr/local/bin", "/bin", "/usr/bin", "/usr/local/sbin", "/usr/sbin", "/sbin", NULL,
};

#define OSD_BOOTSTRAP_KEYRING "/var/lib/ceph/bootstrap-osd/ceph.keyring"
#define MODPROBE_TIMEOUT 60

static int check_add(json_object *checks, const char *name, const char *subject, bool ok, const char *text) {
        json_object *c = json_array_add_object(checks);
        if (!c)
                return -ENOMEM;
        if (json_add_string(c, "check", name) < 0 || json_add_string(c, "subject", subject) < 0 ||
            json_add_bool(c, "ok", ok) < 0 || json_add_string(c, ok ? "detail" : "reason", text) < 0)
                return -ENOMEM;
        return 0;
}

/* An executable `name` in one of the ':'-separated `path` entries, then in `extra`. */
static char *find_executable(const char *name, const char *path, const char *const *extra) {
        _cleanup_strv_free_ char **dirs = strv_split(path ? path : "", ":");
        for (char **d = dirs; d && *d; d++) {
                _cleanup_(freep) char *f = strprintf("%s/%s", (*d)[0] ? *d : ".", name);
                struct stat st;
                if (f && stat(f, &st) >= 0 && S_ISREG(st.st_mode) && access(f, X_OK) >= 0)
                        return TAKE_PTR(f);
        }
        for (const char *const *d = extra; d && *d; d++) {
                _cleanup_(freep) char *f = strprintf("%s/%s", *d, name);
                struct stat st;
                if (f && stat(f, &st) >= 0 && S_ISREG(st.st_mode) && access(f, X_OK) >= 0)
                        return TAKE_PTR(f);
        }
        return NULL;
}

/* The PATH the agent's execvp() searches (glibc's default when PATH is unset). */
static const char *exec_path(void) {
        const char *p = getenv("PATH");
        return p ? p : "/bin:/usr/bin";
}

/* One line of a command's output for a message: its last non-empty line. */
static char *last_line(const RunResult *rr) {
        const char *s = rr->err && rr->err[0] ? rr->err : rr->out ? rr->out : "";
        _cleanup_strv_free_ char **lines = strv_split(s, "\n");
        const char *last = NULL;
        STRV_FOREACH(l, lines)
                if ((*l)[0])
                        last = *l;
        return strdup(last ? last : "no output");
}

static void sleep_ms(unsigned ms) {
        struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* bcache: what every bcache op checks first (bcache_require: /sys/fs/bcache). When it is
 * missing, modprobe says whether the module exists; with `load` it loads it. */
static int check_bcache(AgentState *s, bool load, bool *ret_ok, char **ret_text) {
        if (access("/sys/fs/bcache", F_OK) >= 0) {
                *ret_ok = true;
                *ret_text = strdup("the kernel has bcache (/sys/fs/bcache)");
                return *ret_text ? 0 : -ENOMEM;
        }

        char *argv[] = { (char *) "modprobe", (char *) (load ? "bcache" : "-n"), load ? NULL : (char *) "bcache", NULL };
        _cleanup_(run_result_done) RunResult rr = {};
        Error e = {};
        int r = agent_spawn(s, argv, NULL, NULL, MODPROBE_TIMEOUT, &rr, &e);
        _cleanup_(freep) char *why = NULL;
        if (r < 0)
                why = strdup(e.message);
        else if (rr.timed_out)
                why = strprintf("timed out after %u s", MODPROBE_TIMEOUT);
        else if (rr.exit_status != 0)
                why = last_line(&rr);
        if (r < 0 || rr.timed_out || rr.exit_status != 0) {
                *ret_ok = false;
                *ret_text = strprintf("the kernel has no bcache support (/sys/fs/bcache missing, %s failed: %s)",
                                      load ? "modprobe bcache" : "modprobe -n bcache", why ? why : "out of memory");
                return *ret_text ? 0 : -ENOMEM;
        }
        if (!load) {
                *ret_ok = true;
                *ret_text = strdup("module bcache not loaded; modprobe finds it, apply loads it");
                return *ret_text ? 0 : -ENOMEM;
        }
        /* the module's init registers /sys/fs/bcache; give a slow host a moment */
        for (int i = 0; i < 40 && access("/sys/fs/bcache", F_OK) < 0; i++)
                sleep_ms(50);
        *ret_ok = access("/sys/fs/bcache", F_OK) >= 0;
        *ret_text = strdup(*ret_ok ? "module bcache loaded by modprobe"
                                   : "modprobe bcache succeeded but /sys/fs/bcache is still missing");
        return *ret_text ? 0 : -ENOMEM;
}

/* dm-crypt in the kernel: loaded or built in (/sys/module/dm_crypt), or its module in the
 * running kernel's tree (the kernel loads it when cryptsetup first asks for the target) */
static bool have_dm_crypt(char **ret_where) {
        if (access("/sys/module/dm_crypt", F_OK) == 0) {
                *ret_where = strdup("dm_crypt in the kernel");
                return true;
        }
        _cleanup_(freep) char *path = kernel_module_file("drivers/md/dm-crypt");
        if (path) {
                *ret_where = strprintf("module %s", path);
                return true;
        }
        return false;
}

static int check_need(AgentState *s, AgentNeed n, bool load_modules, bool *ret_ok, char **ret_text) {
        Error e = {};
        const char *tool = NULL;
        const char *const *extra = NULL;

        *ret_ok = false;
        *ret_text = NULL;
        switch (n) {
        case AGENT_NEED_LIBPARTED:
                *ret_ok = agent_libparted_load(s, &e) >= 0;
                *ret_text = strdup(*ret_ok ? LIBPARTED_SONAME " loaded" : e.message);
                return *ret_text ? 0 : -ENOMEM;
        case AGENT_NEED_BCACHE:
                return check_bcache(s, load_modules, ret_ok, ret_text);
        case AGENT_NEED_MAKE_BCACHE:
                tool = "make-bcache";
                break;
        case AGENT_NEED_CEPH_VOLUME:
                tool = "ceph-volume";
                break;
        case AGENT_NEED_SYSTEMCTL:
                tool = "systemctl";
                break;
        case AGENT_NEED_CEPH_OSD:
                tool = "ceph-osd";
                extra = ceph_volume_dirs;
                break;
        case AGENT_NEED_UDEV_RULES: {
                const char *dir = agent_udev_rules_dir();
                struct stat st;
                if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
                        *ret_text = strprintf("'%s' is not a directory (bcache-tune writes its udev rules there)", dir);
                else if (access(dir, W_OK) < 0)
                        *ret_text = strprintf("'%s' is not writable: %s", dir, strerror(errno));
                else {
                        *ret_ok = true;
                        *ret_text = strprintf("'%s' is writable", dir);
                }
                return *ret_text ? 0 : -ENOMEM;
        }
        case AGENT_NEED_DMCRYPT: {
                _cleanup_(freep) char *where = NULL, *tool_path = find_executable("cryptsetup", exec_path(), NULL);
                if (!tool_path)
                        *ret_text = strprintf("cryptsetup not in PATH (%s): ceph-volume's dmcrypt runs it", exec_path());
                else if (!have_dm_crypt(&where))
                        *ret_text = strprintf("the kernel has no dm-crypt (no /sys/module/dm_crypt, no dm-crypt module)");
                else {
                        *ret_ok = true;
                        *ret_text = strprintf("%s, %s", tool_path, where ? where : "dm-crypt");
                }
                return *ret_text ? 0 : -ENOMEM;
        }
        case AGENT_NEED_OSD_KEYRING:
                if (access(OSD_BOOTSTRAP_KEYRING, R_OK) < 0)
                        *ret_text = strprintf("'%s' cannot be read (ceph-volume's `osd new` needs it): %s",
                                              OSD_BOOTSTRAP_KEYRING, strerror(errno));
                else {
                        *ret_ok = true;
                        *ret_text = strdup(OSD_BOOTSTRAP_KEYRING);
                }
                return *ret_text ? 0 : -ENOMEM;
        default:
                return -EINVAL;
        }

        _cleanup_(freep) char *found = find_executable(tool, exec_path(), extra);
        *ret_ok = found != NULL;
        if (found)
                *ret_text = TAKE_PTR(found);
        else
                *ret_text = strprintf("not in PATH (%s)%s", exec_path(),
                                      extra ? " nor in ceph-volume's fallback directories" : "");
        return *ret_text ? 0 : -ENOMEM;
}

/* ---- the devices ---- */

typedef struct DevState {
        char *path;
        bool blank;      /* a wipe earlier in the plan clears it */
        bool new_gpt;    /* create-gpt earlier in the plan makes a fresh table */
        bool failed;     /* an earlier check on it failed: later ones would only repeat it */
} DevState;

typedef struct DevTable {
        DevState *v;
        size_t n;
} DevTable;

static void dev_table_done(DevTable *t) {
        for (size_t i = 0; i < t->n; i++)
                free(t->v[i].path);
        free(t->v);
        *t = (DevTable) {};
}

static DevState *dev_state(DevTable *t, const char *path) {
        for (size_t i = 0; i < t->n; i++)
                if (streq(t->v[i].path, path))
                        return &t->v[i];
        DevState *nv = realloc(t->v, (t->n + 1) * sizeof(DevState));
        if (!nv)
                return NULL;
        t->v = nv;
        t->v[t->n] = (DevState) { .path = strdup(path) };
        if (!t->v[t->n].path)
                return NULL;
        return &t->v[t->n++];
}

/* Run a device op in its dry-run mode: the op's own checks, nothing written. */
static int dry_run_op(AgentState *s, AgentOpFn fn, json_object *args, json_object **ret, Error *err) {
        bool saved = s->dry_run;
        s->dry_run = true;
        int r = fn(s, args, ret, NULL, err);
        s->dry_run = saved;
        return r;
}

/* A partition on a device that gets a fresh GPT (after a planned wipe or create-gpt): it
 * must lie in the usable area libparted's new table will have (128 entries of 128 bytes:
 * 16 KiB of entries after the header at LBA 1, and the backup copy at the end). */
static int partition_fits_new_gpt(const char *path, uint64_t number, uint64_t offset, uint64_t size, char **ret_why) {
        _cleanup_(block_dev_done) BlockDev d = {};
        Error e = {};
        *ret_why = NULL;
        if (block_dev_resolve(path, &d, &e) < 0) {
                *ret_why = strdup(e.message);
                return *ret_why ? 0 : -ENOMEM;
        }
        uint64_t lss = d.logical_sector_size ? d.logical_sector_size : 512;
        uint64_t sectors = d.size / lss, table = 16384 / lss + (16384 % lss != 0);
        uint64_t first = 2 + table, last = sectors > table + 2 ? sectors - 2 - table : 0;
        char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX];
        if (number < 1 || number > 128)
                *ret_why = strprintf("partition number %" PRIu64 " is not in 1..128", number);
        else if (size == 0 || offset % lss != 0 || size % lss != 0)
                *ret_why = strprintf("partition %" PRIu64 ": offset %" PRIu64 " and size %" PRIu64
                                     " are not non-zero multiples of the %" PRIu64 "-byte sectors of '%s'",
                                     number, offset, size, lss, path);
        else if (offset / lss < first || size / lss > last + 1 - offset / lss || last < first)
                *ret_why = strprintf("partition %" PRIu64 " (%s at %" PRIu64 ") does not fit on '%s' (%s) "
                                     "once it has a new GPT (usable %" PRIu64 "..%" PRIu64 ")",
                                     number, size_format(size, a, sizeof a), offset, path, size_format(d.size, b, sizeof b),
                                     first * lss, (last + 1) * lss - 1);
        else
                return 0;
        return *ret_why ? 0 : -ENOMEM;
}

static const char *const device_keys[] = {
        "device", "backing", "cache_device", "db_device", "wal_device", "journal_device", NULL,
};

/* Every device a step names: allowed, and still a block device. */
static int check_step_devices(AgentState *s, json_object *args, DevTable *t, json_object *checks) {
        for (const char *const *k = device_keys; *k; k++) {
                const char *path = json_object_get_string(json_object_object_get(args, *k));
                if (!path)
                        continue;
                DevState *ds = dev_state(t, path);
                if (!ds)
                        return -ENOMEM;
                if (ds->failed)
                        continue;
                _cleanup_(block_dev_done) BlockDev d = {};
                Error e = {};
                _cleanup_(freep) char *why = NULL;
                if (!agent_device_allowed(s, path))
                        why = strprintf("'%s' is not in the allow-list of '%s'", path, agent_host(s));
                else if (block_dev_resolve(path, &d, &e) < 0)
                        why = strdup(e.message);
                else
                        continue;
                if (!why)
                        return -ENOMEM;
                ds->failed = true;
                if (check_add(checks, "device", path, false, why) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* One planned step's device checks, in plan order (DevTable carries what earlier steps do). */
static int check_step(AgentState *s, const char *op, json_object *args, DevTable *t, json_object *checks) {
        int r = check_step_devices(s, args, t, checks);
        if (r < 0)
                return r;
        const char *path = json_object_get_string(json_object_object_get(args, "device"));
        DevState *ds = path ? dev_state(t, path) : NULL;
        if (path && !ds)
                return -ENOMEM;
        if (!ds || ds->failed)
                return 0;

        _cleanup_json_ json_object *res = NULL;
        Error e = {};
        const char *name = NULL;
        _cleanup_(freep) char *subject = NULL, *why = NULL;
        if (streq(op, "wipe")) {
                name = "wipe";
                if (dry_run_op(s, agent_op_wipe, args, &res, &e) < 0)
                        why = strdup(e.message);
                ds->blank = true;
        } else if (streq(op, "create-gpt")) {
                name = "gpt";
                if (ds->blank)
                        ds->new_gpt = true; /* the wipe before it leaves no signature */
                else if (dry_run_op(s, agent_op_create_gpt, args, &res, &e) < 0)
                        why = strdup(e.message);
                else
                        ds->new_gpt = json_object_get_boolean(json_object_object_get(res, "created"));
        } else if (streq(op, "create-partition")) {
                name = "free-space";
                uint64_t number = (uint64_t) json_object_get_int64(json_object_object_get(args, "number"));
                uint64_t offset = (uint64_t) json_object_get_int64(json_object_object_get(args, "offset"));
                uint64_t size = (uint64_t) json_object_get_int64(json_object_object_get(args, "size"));
                subject = strprintf("%s partition %" PRIu64, path, number);
                if (!subject)
                        return -ENOMEM;
                if (ds->blank || ds->new_gpt)
                        r = partition_fits_new_gpt(path, number, offset, size, &why);
                else if (dry_run_op(s, agent_op_create_partition, args, &res, &e) < 0)
                        why = strdup(e.message);
                if (r < 0)
                        return r;
        } else
                return 0;

        if (!why && e.code != 0)
                return -ENOMEM;
        if (why)
                ds->failed = true;
        return check_add(checks, name, subject ? subject : path, !why, why ? why : "as planned");
}

/* What the plan saw of a device (from its inventory) against what is there now: the same
 * disk (serial, WWN, size), the same partition table and whole-device signature. */
static int check_identity(const Inventory *now, json_object *seen, json_object *checks) {
        const char *path = json_object_get_string(json_object_object_get(seen, "path"));
        if (!path)
                return 0;
        const InvDevice *d = inventory_find_device(now, path);
        _cleanup_(freep) char *why = NULL;
        char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX];
        struct {
                const char *key, *now, *what;
        } str[] = {
                { "serial", d ? d->serial : NULL, "serial" },
                { "wwn", d ? d->wwn : NULL, "WWN" },
                { "pttype", d ? d->pttype : NULL, "partition table" },
                { "ptuuid", d ? d->ptuuid : NULL, "partition table UUID" },
                { "fstype", d ? d->content.fstype : NULL, "signature" },
        };

        if (!d)
                why = strprintf("'%s' is gone (or no longer in the allow-list) since the plan", path);
        else {
                json_object *v = json_object_object_get(seen, "size");
                uint64_t size = v ? (uint64_t) json_object_get_int64(v) : d->size;
                if (size != d->size)
                        why = strprintf("'%s' is now %s, the plan saw %s", path, size_format(d->size, a, sizeof a),
                                        size_format(size, b, sizeof b));
                for (size_t i = 0; !why && i < ELEMENTSOF(str); i++) {
                        json_object *sv = NULL;
                        if (!json_object_object_get_ex(seen, str[i].key, &sv))
                                continue; /* not sent: not compared */
                        const char *was = json_object_get_string(sv);
                        if (streq_ptr(was, str[i].now))
                                continue;
                        /* serial/WWN only tell when both sides know them */
                        if ((streq(str[i].key, "serial") || streq(str[i].key, "wwn")) && (!was || !str[i].now))
                                continue;
                        why = strprintf("the %s of '%s' changed since the plan: %s, the plan saw %s", str[i].what, path,
                                        str[i].now ? str[i].now : "none", was ? was : "none");
                }
                v = json_object_object_get(seen, "partitions");
                if (!why && v && (size_t) json_object_get_int64(v) != d->n_partitions)
                        why = strprintf("'%s' has %zu partitions now, the plan saw %" PRId64, path, d->n_partitions,
                                        json_object_get_int64(v));
        }
        if (d && !why)
                return check_add(checks, "device", path, true, "as the plan saw it");
        if (!why)
                return -ENOMEM;
        return check_add(checks, "device", path, false, why);
}

int agent_op_preflight(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err) {
        json_object *needs = NULL, *steps = NULL, *devices = NULL;
        bool load = false;
        int r;

        if ((r = json_get_array(args, "needs", false, &needs, "preflight", err)) < 0 && r != -ENOENT)
                return r;
        if ((r = json_get_array(args, "steps", false, &steps, "preflight", err)) < 0 && r != -ENOENT)
                return r;
        if ((r = json_get_array(args, "devices", false, &devices, "preflight", err)) < 0 && r != -ENOENT)
                return r;
        if ((r = json_get_bool(args, "load_modules", false, &load, "preflight", err)) < 0 && r != -ENOENT)
                return r;

        unsigned want = 0;
        for (size_t i = 0; needs && i < json_object_array_length(needs); i++) {
                const char *n = json_object_get_string(json_object_array_get_idx(needs, i));
                AgentNeed bit = agent_need_from_string(n);
                if (!bit)
                        return error_set(err, EINVAL, "preflight: unknown need '%s'", n ? n : "(not a string)");
                want |= bit;
        }
        for (size_t i = 0; steps && i < json_object_array_length(steps); i++) {
                json_object *st = json_object_array_get_idx(steps, i);
                if (!json_object_is_type(st, json_type_object) ||
                    !json_object_is_type(json_object_object_get(st, "op"), json_type_string) ||
                    !json_object_is_type(json_object_object_get(st, "args"), json_type_object))
                        return error_set(err, EINVAL, "preflight: steps[%zu] is not {\"op\": NAME, \"args\": {...}}", i);
        }
        for (size_t i = 0; devices && i < json_object_array_length(devices); i++)
                if (!json_object_is_type(json_object_object_get(json_object_array_get_idx(devices, i), "path"),
                                         json_type_string))
                        return error_set(err, EINVAL, "preflight: devices[%zu] has no \"path\"", i);

        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *checks = json_object_new_array();
        if (!o || json_add(o, "checks", checks) < 0)
                return error_set(err, ENOMEM, "out of memory");

        for (unsigned bit = 1; bit & _AGENT_NEED_ALL; bit <<= 1) {
                if (!(want & bit))
                        continue;
                bool ok;
                _cleanup_(freep) char *text = NULL;
                agent_progress(p, 0, 0, "checking %s", agent_need_to_string(bit));
                r = check_need(s, bit, load, &ok, &text);
                if (r >= 0)
                        r = check_add(checks, agent_need_to_string(bit), NULL, ok, text);
                if (r < 0)
                        return error_set(err, -r, "preflight on '%s': %s", agent_host(s), strerror(-r));
        }

        if (devices && json_object_array_length(devices) > 0) {
                _cleanup_(inventory_freep) Inventory *now = NULL;
                r = agent_inventory(s, false, &now, err);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < json_object_array_length(devices); i++)
                        if (check_identity(now, json_object_array_get_idx(devices, i), checks) < 0)
                                return error_set(err, ENOMEM, "out of memory");
        }

        _cleanup_(dev_table_done) DevTable t = {};
        for (size_t i = 0; steps && i < json_object_array_length(steps); i++) {
                json_object *st = json_object_array_get_idx(steps, i);
                r = check_step(s, json_object_get_string(json_object_object_get(st, "op")),
                               json_object_object_get(st, "args"), &t, checks);
                if (r < 0)
                        return error_set(err, -r, "preflight on '%s': %s", agent_host(s), strerror(-r));
        }

        bool refused = false;
        for (size_t i = 0; i < json_object_array_length(checks); i++)
                if (!json_object_get_boolean(json_object_object_get(json_object_array_get_idx(checks, i), "ok")))
                        refused = true;
        if (json_add_bool(o, "ok", !refused) < 0)
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(o);
        return 0;
}
