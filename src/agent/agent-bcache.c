/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bcache: superblock reading (for the inventory), make-bcache (bcache-tools, exec'd with
 * an argv), registration, attach, tuning with a udev rule for persistence, teardown.
 * Everything that needs the kernel driver first checks /sys/fs/bcache and fails with
 * ENODEV naming the host when the module is not loaded. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent-internal.h"
#include "basic/clock-util.h"
#include "basic/size.h"

/* The superblock (4 KiB at 4 KiB), decoded and checked by bcache_sb_decode() (src/ondisk)
 * as the kernel checks it: one it would not register is not a bcache device here either. */
int bcache_super_read(int fd, uint64_t off, BcacheSuper *ret) {
        uint8_t sb[BCACHE_SB_SIZE];
        uint64_t at;
        if (__builtin_add_overflow(off, (uint64_t) BCACHE_SB_OFFSET, &at))
                return 0;
        int r = read_exact_at(fd, sb, sizeof(sb), at);
        if (r < 0)
                return r == -EIO ? 0 : r; /* device shorter than 4 KiB + superblock */
        BcacheSb s;
        if (bcache_sb_decode(sb, sizeof(sb), &s, NULL) <= 0)
                return 0;
        *ret = (BcacheSuper) {
                .role = s.role == BCACHE_SB_BACKING ? BCACHE_ROLE_BACKING : BCACHE_ROLE_CACHE,
                .version = s.version,
                .bdev_state = s.bdev_state,
        };
        memcpy(ret->uuid, s.uuid, sizeof(ret->uuid));
        memcpy(ret->set_uuid, s.set_uuid, sizeof(ret->set_uuid));
        return 1;
}

uint64_t bcache_parse_hsize(const char *s) {
        /* bch_hprint(): "0", "512", "1.2k", "4.0M", ... powers of 1024 */
        char *end;
        double v = strtod(s, &end);
        if (end == s || v < 0)
                return 0;
        static const char units[] = "kMGTPEZY";
        const char *u = *end ? strchr(units, *end) : NULL;
        if (u)
                v *= pow(1024, (double) (u - units + 1));
        return (uint64_t) llround(v);
}

static char *bracketed(const char *s) {
        /* "writethrough [writeback] writearound none" → "writeback" */
        const char *a = strchr(s, '['), *b = a ? strchr(a, ']') : NULL;
        if (!a || !b)
                return strdup(s);
        return strndup(a + 1, (size_t) (b - a - 1));
}

void bcache_fill_sysfs(const char *name, InvBcache *b) {
        char *v = NULL;
        if (b->role != BCACHE_ROLE_BACKING)
                return;
        if (sysfs_read_string(name, "bcache/state", &v) < 0)
                return; /* not registered */
        free(b->state);
        b->state = v;
        if (sysfs_read_string(name, "bcache/cache_mode", &v) >= 0) {
                free(b->cache_mode);
                b->cache_mode = bracketed(v);
                free(v);
        }
        if (sysfs_read_string(name, "bcache/dirty_data", &v) >= 0) {
                b->dirty_bytes = bcache_parse_hsize(v);
                free(v);
        }
        if (sysfs_read_string(name, "bcache/sequential_cutoff", &v) >= 0) {
                b->sequential_cutoff = bcache_parse_hsize(v);
                free(v);
        }
        uint64_t x;
        if (sysfs_read_u64(name, "bcache/writeback_percent", &x) >= 0)
                b->writeback_percent = (int) x;
        if (sysfs_read_u64(name, "bcache/stats_total/cache_hit_ratio", &x) >= 0)
                b->hit_ratio = (double) x / 100.0;

        char link[PATH_MAX], target[PATH_MAX];
        snprintf(link, sizeof(link), "/sys/class/block/%s/bcache/dev", name);
        if (realpath(link, target)) {
                free(b->bcache_device);
                b->bcache_device = strprintf("/dev/%s", strrchr(target, '/') + 1);
        }
}

/* ---- ops ---- */

static int bcache_require(AgentState *s, Error *err) {
        if (access("/sys/fs/bcache", F_OK) >= 0)
                return 0;
        return error_set(err, ENODEV,
                         "bcache is not available on host '%s': kernel module 'bcache' not loaded (/sys/fs/bcache missing)",
                         agent_host(s));
}

/* Resolve an allowed device given in args[key], or by GPT name in args[partkey] on the
 * device args[devkey] (when given; else on any allowed device, where the name must be
 * unique). */
static int bcache_device_arg(AgentState *s, json_object *args, const char *key, const char *partkey,
                             const char *devkey, const char *op, BlockDev *ret, Error *err) {
        const char *path = NULL, *partname = NULL, *on = NULL;
        _cleanup_(freep) char *node = NULL;
        int r;

        if (partkey) {
                r = json_get_string(args, partkey, false, &partname, op, err);
                if (r < 0 && r != -ENOENT)
                        return r;
        }
        if (partname) {
                r = json_get_string(args, devkey, false, &on, op, err);
                if (r < 0 && r != -ENOENT)
                        return r;
                r = agent_resolve_partname(s, on, partname, &node, err);
                if (r < 0)
                        return r;
                path = node;
        } else {
                r = json_get_string(args, key, true, &path, op, err);
                if (r < 0)
                        return r;
        }
        if (!agent_device_allowed(s, path))
                return error_set(err, EPERM, "%s: '%s' on '%s' is not in the allow-list", op, path, agent_host(s));
        return block_dev_resolve(path, ret, err);
}

static int read_super_of(const BlockDev *d, BcacheSuper *sb, Error *err) {
        _cleanup_(closep) int fd = open(d->node, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return error_set(err, errno, "cannot open '%s': %s", d->path, strerror(errno));
        int r = bcache_super_read(fd, 0, sb);
        if (r < 0)
                return error_set(err, r, "cannot read the bcache superblock of '%s': %s", d->path, strerror(-r));
        return r;
}

static int register_device(const BlockDev *d, Error *err) {
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "/sys/class/block/%s/bcache", d->name);
        if (access(path, F_OK) >= 0)
                return 0; /* already registered (udev's 69-bcache.rules usually did it) */
        int r = file_write_string("/sys/fs/bcache/register", d->node);
        /* "already registered" (udev's bcache-register won the race) is reported as EINVAL
         * (6.1 and older) or EBUSY/EEXIST: success when the device is registered now. EINVAL
         * is also what a device without a valid superblock gets, so look. */
        if ((r == -EINVAL || r == -EBUSY || r == -EEXIST) && access(path, F_OK) >= 0)
                return 0;
        if (r < 0)
                return error_set(err, r, "cannot register '%s' with bcache: %s", d->path, strerror(-r));
        return 0;
}

int agent_op_make_bcache(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err) {
        _cleanup_(block_dev_done) BlockDev d = {};
        const char *role;
        bool wipe = false;
        int r;

        r = bcache_require(s, err);
        if (r < 0)
                return r;
        r = json_get_string(args, "role", true, &role, "make-bcache", err);
        if (r < 0)
                return r;
        if (!streq(role, "backing") && !streq(role, "cache"))
                return error_set(err, EINVAL, "make-bcache: role must be \"backing\" or \"cache\", not '%s'", role);
        r = json_get_bool(args, "wipe_bcache", false, &wipe, "make-bcache", err);
        if (r < 0 && r != -ENOENT)
                return r;
        r = bcache_device_arg(s, args, "device", "partname", "device", "make-bcache", &d, err);
        if (r < 0)
                return r;

        BcacheRole want = streq(role, "backing") ? BCACHE_ROLE_BACKING : BCACHE_ROLE_CACHE;
        BcacheSuper sb;
        r = read_super_of(&d, &sb, err);
        if (r < 0)
                return r;
        bool created = false;
        if (r > 0 && sb.role == want && !wipe) {
                /* idempotent: it is already what was asked */
        } else {
                DevExpect e;
                r = dev_expect_parse(args, "expect", "make-bcache", &e, err);
                if (r < 0)
                        return r;
                /* make-bcache opens the device O_EXCL itself: the claim's exclusive open is
                 * a second descriptor, dropped right before it runs; flock and the OFD lock
                 * stay held (by this process) until it is done */
                _cleanup_(block_claim_done) BlockClaim c = { .fd = -1, .excl_fd = -1 };
                r = block_claim(&d,
                                &(ClaimOptions) { .what = "make bcache on", .read_only = s->dry_run, .handoff = true,
                                                  .expect = &e, .allow_osd_id = { -1, -1 } },
                                &c, err);
                if (r < 0)
                        return r;
                if (s->dry_run)
                        return error_set(err, EPERM, "dry run on '%s': not formatting '%s'", agent_host(s), d.path);
                block_claim_drop_excl(&c);
                char *argv[] = { (char *) "make-bcache", (char *) (want == BCACHE_ROLE_BACKING ? "-B" : "-C"),
                                 wipe ? (char *) "--wipe-bcache" : d.node, wipe ? d.node : NULL, NULL };
                _cleanup_(run_result_done) RunResult rr = {};
                agent_progress(p, 0, 1, "make-bcache %s %s", argv[1], d.path);
                r = agent_spawn(s, argv, NULL, NULL, 120, &rr, err);
                if (r < 0)
                        return r;
                if (rr.exit_status != 0)
                        return error_set(err, EIO, "make-bcache on '%s' failed (exit %d): %s", d.path, rr.exit_status,
                                         rr.err[0] ? rr.err : rr.out);
                r = read_super_of(&d, &sb, err);
                if (r < 0)
                        return r;
                if (r == 0)
                        return error_set(err, EIO, "make-bcache on '%s' left no bcache superblock", d.path);
                created = true;
        }
        r = register_device(&d, err);
        if (r < 0)
                return r;

        json_object *o = json_object_new_object();
        if (!o)
                return error_set(err, ENOMEM, "out of memory");
        json_add_bool(o, "created", created);
        json_add_string(o, "uuid", sb.uuid);
        json_add_string(o, "set_uuid", sb.set_uuid[0] ? sb.set_uuid : NULL);
        *ret = o;
        return 0;
}

int agent_op_bcache_register(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err) {
        _cleanup_(block_dev_done) BlockDev d = {};
        int r = bcache_require(s, err);
        if (r < 0)
                return r;
        r = bcache_device_arg(s, args, "device", "partname", "device", "bcache-register", &d, err);
        if (r < 0)
                return r;
        r = register_device(&d, err);
        if (r < 0)
                return r;
        *ret = json_object_new_object();
        return 0;
}

int agent_op_bcache_attach(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err) {
        _cleanup_(block_dev_done) BlockDev backing = {}, cache = {};
        int r = bcache_require(s, err);
        if (r < 0)
                return r;
        r = bcache_device_arg(s, args, "backing", NULL, NULL, "bcache-attach", &backing, err);
        if (r < 0)
                return r;
        r = bcache_device_arg(s, args, "cache", "cache_partname", "cache_device", "bcache-attach", &cache, err);
        if (r < 0)
                return r;

        BcacheSuper bsb, csb;
        r = read_super_of(&backing, &bsb, err);
        if (r < 0)
                return r;
        if (r == 0 || bsb.role != BCACHE_ROLE_BACKING)
                return error_set(err, EINVAL, "bcache-attach: '%s' is not a bcache backing device", backing.path);
        r = read_super_of(&cache, &csb, err);
        if (r < 0)
                return r;
        if (r == 0 || csb.role != BCACHE_ROLE_CACHE)
                return error_set(err, EINVAL, "bcache-attach: '%s' is not a bcache cache device", cache.path);
        if (!csb.set_uuid[0])
                return error_set(err, EINVAL, "bcache-attach: cache '%s' has no cache set uuid", cache.path);

        r = register_device(&backing, err);
        if (r >= 0)
                r = register_device(&cache, err);
        if (r < 0)
                return r;

        json_object *o = json_object_new_object();
        if (!o)
                return error_set(err, ENOMEM, "out of memory");
        json_add_string(o, "set_uuid", csb.set_uuid);
        if (bsb.set_uuid[0] && streq(bsb.set_uuid, csb.set_uuid)) {
                json_add_bool(o, "attached", false); /* already attached to this set */
                *ret = o;
                return 0;
        }
        if (bsb.set_uuid[0]) {
                json_object_put(o);
                return error_set(err, EBUSY, "bcache-attach: '%s' is attached to another cache set %s",
                                 backing.path, bsb.set_uuid);
        }
        if (s->dry_run) {
                json_object_put(o);
                return error_set(err, EPERM, "dry run on '%s': not attaching '%s'", agent_host(s), backing.path);
        }
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "/sys/class/block/%s/bcache/attach", backing.name);
        r = file_write_string(path, csb.set_uuid);
        if (r < 0) {
                json_object_put(o);
                return error_set(err, r, "cannot attach '%s' to cache set %s on '%s': %s", backing.path,
                                 csb.set_uuid, cache.path, strerror(-r));
        }
        json_add_bool(o, "attached", true);
        *ret = o;
        return 0;
}

const char *agent_udev_rules_dir(void) {
        const char *d = getenv("CEPHPROV_UDEV_RULES_DIR");
        return d && d[0] ? d : "/etc/udev/rules.d";
}

/* The kernel sends a "change" uevent for /dev/bcacheN carrying CACHED_UUID (the backing
 * device's bcache uuid) when the backing device is registered, at every boot: keying the
 * rule on it applies the tuning to the right device whatever its bcacheN number.
 * The settings are written to the backing device's own bcache directory, found through
 * bcacheN/slaves: the kernel (bch_cached_dev_run) links bcacheN/slaves before it sends the
 * uevent but bcacheN/bcache only after, so ATTR{bcache/...} raced with it and was lost
 * about half of the time (seen in the vm tier). */
static int write_udev_rule(const char *uuid, const char *mode, uint64_t cutoff, int64_t wb_percent, Error *err) {
        char path[PATH_MAX], tmp[PATH_MAX + 8];
        snprintf(path, sizeof(path), "%s/69-cephprov-bcache-%s.rules", agent_udev_rules_dir(), uuid);
        snprintf(tmp, sizeof(tmp), "%s.tmp", path);

        _cleanup_(fclosep) FILE *f = fopen(tmp, "we");
        if (!f)
                return error_set(err, errno, "cannot write '%s': %s", tmp, strerror(errno));
        fprintf(f, "# written by cephprov: bcache tuning for backing device %s, kept across reboots\n", uuid);
        fprintf(f, "ACTION==\"add|change\", SUBSYSTEM==\"block\", KERNEL==\"bcache*\", ENV{CACHED_UUID}==\"%s\", \\\n", uuid);
        fprintf(f, "  RUN+=\"/bin/sh -c 'for s in /sys/block/%%k/slaves/*; do b=/sys/class/block/$${s##*/}/bcache; "
                   "[ -d $$b ] || continue; echo %s >$$b/cache_mode; echo %" PRIu64 " >$$b/sequential_cutoff",
                mode, cutoff);
        if (wb_percent >= 0)
                fprintf(f, "; echo %" PRId64 " >$$b/writeback_percent", wb_percent);
        fprintf(f, "; done'\"\n");
        if (fflush(f) != 0 || fsync(fileno(f)) < 0)
                return error_set(err, errno, "cannot write '%s': %s", tmp, strerror(errno));
        if (rename(tmp, path) < 0)
                return error_set(err, errno, "cannot write '%s': %s", path, strerror(errno));
        return 0;
}

int agent_op_bcache_tune(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err) {
        _cleanup_(block_dev_done) BlockDev backing = {};
        const char *mode = "writeback";
        uint64_t cutoff = 0;
        int64_t wb = -1;
        int r = bcache_require(s, err);
        if (r < 0)
                return r;
        r = bcache_device_arg(s, args, "backing", NULL, NULL, "bcache-tune", &backing, err);
        if (r < 0)
                return r;
        if ((r = json_get_string(args, "cache_mode", false, &mode, "bcache-tune", err)) < 0 && r != -ENOENT)
                return r;
        if ((r = json_get_u64(args, "sequential_cutoff", false, &cutoff, "bcache-tune", err)) < 0 && r != -ENOENT)
                return r;
        if ((r = json_get_int(args, "writeback_percent", false, &wb, "bcache-tune", err)) < 0 && r != -ENOENT)
                return r;
        if (!streq(mode, "writeback") && !streq(mode, "writethrough") && !streq(mode, "writearound") &&
            !streq(mode, "none"))
                return error_set(err, EINVAL, "bcache-tune: unknown cache_mode '%s'", mode);
        if (wb > 100)
                return error_set(err, EINVAL, "bcache-tune: writeback_percent %" PRId64 " is above 100", wb);

        BcacheSuper sb;
        r = read_super_of(&backing, &sb, err);
        if (r < 0)
                return r;
        if (r == 0 || sb.role != BCACHE_ROLE_BACKING)
                return error_set(err, EINVAL, "bcache-tune: '%s' is not a bcache backing device", backing.path);
        if (s->dry_run)
                return error_set(err, EPERM, "dry run on '%s': not tuning '%s'", agent_host(s), backing.path);

        char path[PATH_MAX], val[64];
        struct {
                const char *attr;
                const char *value;
        } set[3] = { { "cache_mode", mode }, { "sequential_cutoff", NULL }, { "writeback_percent", NULL } };
        char cut[32], wbs[32];
        snprintf(cut, sizeof(cut), "%" PRIu64, cutoff);
        snprintf(wbs, sizeof(wbs), "%" PRId64, wb);
        set[1].value = cut;
        set[2].value = wb >= 0 ? wbs : NULL;
        for (size_t i = 0; i < ELEMENTSOF(set); i++) {
                if (!set[i].value)
                        continue;
                snprintf(path, sizeof(path), "/sys/class/block/%s/bcache/%s", backing.name, set[i].attr);
                snprintf(val, sizeof(val), "%s", set[i].value);
                r = file_write_string(path, val);
                if (r < 0)
                        return error_set(err, r, "cannot set %s=%s on '%s': %s", set[i].attr, val, backing.path,
                                         strerror(-r));
        }
        r = write_udev_rule(sb.uuid, mode, cutoff, wb, err);
        if (r < 0)
                return r;

        json_object *o = json_object_new_object();
        if (!o)
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_(freep) char *rule = strprintf("%s/69-cephprov-bcache-%s.rules", agent_udev_rules_dir(), sb.uuid);
        json_add_string(o, "udev_rule", rule);
        *ret = o;
        return 0;
}

static void sleep_ms(unsigned ms) {
        struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* The cache set still has backing devices attached ("bdev0", ... links)? */
static bool set_has_backing(const char *set_uuid) {
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "/sys/fs/bcache/%s", set_uuid);
        DIR *dir = opendir(path);
        if (!dir)
                return false;
        bool found = false;
        struct dirent *de;
        while ((de = readdir(dir)))
                if (startswith(de->d_name, "bdev"))
                        found = true;
        closedir(dir);
        return found;
}

/* `lvm ARGS...` with its output in *ret_out; an exit status other than 0 is an error naming
 * `what` and LVM's own message. */
static int lvm_call(AgentState *s, char * const *argv, const char *what, char **ret_out, Error *err) {
        _cleanup_(run_result_done) RunResult rr = {};
        /* (the agent's own descriptors are no business of LVM's: no warning per descriptor) */
        char *env[] = { (char *) "LVM_SUPPRESS_FD_WARNINGS=1", NULL };
        int r = agent_spawn(s, argv, NULL, env, 120, &rr, err);
        if (r < 0)
                return r;
        if (rr.exit_status != 0) {
                _cleanup_(freep) char *msg = strdup(rr.err && rr.err[0] ? rr.err : (rr.out ? rr.out : ""));
                if (msg) {
                        size_t n = strlen(msg);
                        while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
                                msg[--n] = 0;
                }
                return error_set(err, rr.timed_out ? ETIMEDOUT : EBUSY, "cannot %s on '%s': lvm %s: %s", what,
                                 agent_host(s), argv[1], msg && msg[0] ? msg : "failed");
        }
        if (ret_out)
                *ret_out = TAKE_PTR(rr.out);
        return 0;
}

int bcache_lvm_check_osd_vg(const char *pvs_out, const char *lvs_out, const char *node, Error *err) {
        /* pvs_out: one PV name a line (the VG's PVs); lvs_out: one LV's tags a line */
        size_t n_pv = 0, n_lv = 0;
        for (const char *l = pvs_out; l && *l;) {
                const char *e = strchrnul(l, '\n');
                _cleanup_(freep) char *w = strndup(l, (size_t) (e - l));
                if (!w)
                        return -ENOMEM;
                const char *t = w + strspn(w, " \t");
                if (*t) {
                        n_pv++;
                        if (!startswith(t, node) || (t[strlen(node)] && !strchr(" \t", t[strlen(node)])))
                                return error_set(err, EBUSY, "'%s' is in a volume group with another physical volume (%s): "
                                                             "not ceph-volume's, not removed", node, t);
                }
                l = *e ? e + 1 : e;
        }
        if (n_pv == 0)
                return error_set(err, EBUSY, "'%s' is held by device-mapper but is no LVM physical volume", node);
        for (const char *l = lvs_out; l && *l;) {
                const char *e = strchrnul(l, '\n');
                _cleanup_(freep) char *w = strndup(l, (size_t) (e - l));
                if (!w)
                        return -ENOMEM;
                /* every line is an LV: one without tags prints a blank line */
                const char *t = w + strspn(w, " \t");
                n_lv++;
                if (!strstr(t, "ceph.osd_id="))
                        return error_set(err, EBUSY, "the volume group on '%s' holds a logical volume that is no "
                                                     "OSD's (%s%s%s): not removed", node, *t ? "tags '" : "no tags", t,
                                         *t ? "'" : "");
                l = *e ? e + 1 : e;
        }
        if (n_lv == 0)
                return error_set(err, EBUSY, "the volume group on '%s' holds no OSD's logical volume: not removed", node);
        return 0;
}

char **bcache_lvm_volume_units(const char *lvs_out) {
        _cleanup_strv_free_ char **units = calloc(1, sizeof(char *));
        if (!units)
                return NULL;
        for (const char *l = lvs_out; l && *l;) {
                const char *e = strchrnul(l, '\n');
                _cleanup_(freep) char *line = strndup(l, (size_t) (e - l));
                if (!line)
                        return NULL;
                l = *e ? e + 1 : e;
                const char *id = NULL, *fsid = NULL;
                for (char *t = line, *tok; (tok = strsep(&t, ", \t"));) {
                        if (startswith(tok, "ceph.osd_id="))
                                id = tok + strlen("ceph.osd_id=");
                        else if (startswith(tok, "ceph.osd_fsid="))
                                fsid = tok + strlen("ceph.osd_fsid=");
                }
                /* what a unit name may carry: digits, and a uuid's hex digits and dashes */
                if (!id || !fsid || !*id || !*fsid || id[strspn(id, "0123456789")] ||
                    fsid[strspn(fsid, "0123456789abcdefABCDEF-")])
                        continue;
                if (strv_consume(&units, strprintf("ceph-volume@lvm-%s-%s", id, fsid)) < 0)
                        return NULL;
        }
        return TAKE_PTR(units);
}

char **osd_stale_volume_units(const char *wants, int osd, const char *fsid) {
        _cleanup_strv_free_ char **units = calloc(1, sizeof(char *));
        _cleanup_(freep) char *prefix = strprintf("ceph-volume@lvm-%d-", osd), *copy = strdup(wants ? wants : "");
        if (!units || !prefix || !copy)
                return NULL;
        for (char *t = copy, *tok; (tok = strsep(&t, " \t\n"));) {
                if (!startswith(tok, prefix) || !endswith(tok, ".service") ||
                    strlen(tok) <= strlen(prefix) + strlen(".service"))
                        continue;
                const char *f = tok + strlen(prefix);
                size_t n = strlen(f) - strlen(".service");
                /* a uuid's hex digits and dashes, and not the current one */
                if (n == 0 || strspn(f, "0123456789abcdefABCDEF-") != n ||
                    (fsid && strlen(fsid) == n && strncasecmp(f, fsid, n) == 0))
                        continue;
                if (strv_consume(&units, strndup(tok, (size_t) (f - tok) + n)) < 0)
                        return NULL;
        }
        return TAKE_PTR(units);
}

int agent_disable_units(AgentState *s, char **units, const char *why, json_object *done, Error *err) {
        STRV_FOREACH(unit, units) {
                char *argv[] = { (char *) "systemctl", (char *) "disable", *unit, NULL };
                _cleanup_(run_result_done) RunResult rr = {};
                int r = agent_spawn(s, argv, NULL, NULL, 120, &rr, err);
                if (r == -ENOENT || (r >= 0 && !rr.timed_out && rr.exit_status == 127)) {
                        error_reset(err); /* no systemctl here */
                        return 0;
                }
                if (r < 0)
                        return r;
                if (rr.timed_out || rr.exit_status != 0)
                        return error_set(err, rr.timed_out ? ETIMEDOUT : EIO,
                                         "cannot disable '%s' on '%s' (%s): systemctl disable: %s", *unit,
                                         agent_host(s), why,
                                         rr.timed_out ? "timed out" : rr.err && rr.err[0] ? rr.err : "failed");
                if (json_object_array_add(done, json_object_new_string(*unit)) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

/* `systemctl disable` of each unit of bcache_lvm_volume_units(lvs_out), each added to `done` */
static int disable_volume_units(AgentState *s, const char *lvs_out, json_object *done, Error *err) {
        _cleanup_strv_free_ char **units = bcache_lvm_volume_units(lvs_out);
        if (!units)
                return error_set(err, ENOMEM, "out of memory");
        return agent_disable_units(s, units, "the boot activation of an OSD being removed", done, err);
}

/* An OSD of `ceph-volume lvm create` on /dev/bcacheN or on a disk: its logical volume holds the
 * device, so neither a claim of it nor a bcache stop gets through while the LV exists. Its
 * volume group goes (vgremove, then pvremove of the device), only when it is ceph-volume's: a
 * VG whose only PV is this device and whose every LV carries an OSD's tags
 * (bcache_lvm_check_osd_vg()). LVM itself refuses to remove an LV that is open (an OSD still
 * running on it). Nothing held by device-mapper: nothing to do (returns 0). */
int agent_release_osd_lvm(AgentState *s, const char *name, int only_osd_id, json_object *o, Error *err) {
        _cleanup_strv_free_ char **holders = block_holders(name);
        bool dm = false;
        STRV_FOREACH(h, holders)
                dm = dm || startswith(*h, "dm-");
        if (!dm)
                return 0;
        _cleanup_(freep) char *node = strprintf("/dev/%s", name);
        _cleanup_(freep) char *vg_out = NULL, *pvs_out = NULL, *lvs_out = NULL, *sel = NULL;
        if (!node)
                return error_set(err, ENOMEM, "out of memory");
        char *pvs_vg[] = { (char *) "lvm", (char *) "pvs", (char *) "--noheadings", (char *) "-o", (char *) "vg_name", node, NULL };
        int r = lvm_call(s, pvs_vg, "read the volume group on an OSD's device", &vg_out, err);
        if (r < 0)
                return r;
        char vg[128] = "";
        if (sscanf(vg_out, " %127s", vg) != 1 || !vg[0])
                return error_set(err, EBUSY, "'%s' is held by device-mapper but is in no volume group: not torn down", node);
        if (!(sel = strprintf("vg_name=%s", vg)))
                return error_set(err, ENOMEM, "out of memory");
        char *pvs_all[] = { (char *) "lvm", (char *) "pvs", (char *) "--noheadings", (char *) "-o", (char *) "pv_name",
                            (char *) "--select", sel, NULL };
        char *lvs[] = { (char *) "lvm", (char *) "lvs", (char *) "--noheadings", (char *) "-o", (char *) "lv_tags", vg, NULL };
        if ((r = lvm_call(s, pvs_all, "read a volume group", &pvs_out, err)) < 0 ||
            (r = lvm_call(s, lvs, "read a volume group", &lvs_out, err)) < 0)
                return r;
        if ((r = bcache_lvm_check_osd_vg(pvs_out, lvs_out, node, err)) < 0)
                return r == -ENOMEM ? error_set(err, ENOMEM, "out of memory") : r;
        if (only_osd_id >= 0) {
                /* every LV that OSD's: its tags say ceph.osd_id=N (a tag list, comma-separated) */
                char want[32];
                snprintf(want, sizeof(want), "ceph.osd_id=%d", only_osd_id);
                for (const char *l = lvs_out; l && *l;) {
                        const char *e = strchrnul(l, '\n');
                        _cleanup_(freep) char *line = strndup(l, (size_t) (e - l));
                        if (!line)
                                return error_set(err, ENOMEM, "out of memory");
                        bool mine = false, blank = true;
                        for (char *t = line, *tok; (tok = strsep(&t, ", \t"));) {
                                blank = blank && !*tok;
                                mine = mine || streq(tok, want);
                        }
                        if (!blank && !mine)
                                return error_set(err, EBUSY, "the volume group on '%s' holds a logical volume that is not "
                                                             "osd.%d's (tags '%s'): not removed", node, only_osd_id, line);
                        l = *e ? e + 1 : e;
                }
        }
        /* an encrypted OSD (ceph-volume's dmcrypt): its LUKS mapping over the LV holds it open,
         * and LVM would refuse to remove it */
        json_object *closed = json_object_new_array();
        if (!closed || json_add(o, "dmcrypt_closed", closed) < 0)
                return error_set(err, ENOMEM, "out of memory");
        STRV_FOREACH(h, holders)
                if (startswith(*h, "dm-") && (r = dmcrypt_close_holders(s, *h, closed, err)) < 0)
                        return r;
        char *vgremove[] = { (char *) "lvm", (char *) "vgremove", (char *) "-f", (char *) "-y", vg, NULL };
        char *pvremove[] = { (char *) "lvm", (char *) "pvremove", (char *) "-y", node, NULL };
        if ((r = lvm_call(s, vgremove, "remove the OSD's volume group", NULL, err)) < 0 ||
            (r = lvm_call(s, pvremove, "remove the LVM label of an OSD's device", NULL, err)) < 0)
                return r;
        json_add_string(o, "lvm_removed", vg);
        /* and the boot units `ceph-volume lvm create` enabled for these OSDs: left, each boot
         * would run the activation of an OSD that is gone (ceph-volume retries it for
         * minutes; seen on the UML guest: 300 s of its boot after two conversions). Only
         * once the LVs are gone (LVM refuses to remove one still open: a running OSD's units
         * are never touched), and a failure is said in the answer, not the step's: the
         * teardown is done, and nothing names the units any more to run it again */
        json_object *units = json_object_new_array();
        if (!units || json_add(o, "units_disabled", units) < 0)
                return error_set(err, ENOMEM, "out of memory");
        Error ue = {};
        if (disable_volume_units(s, lvs_out, units, &ue) < 0) {
                log_warning("%s", ue.message);
                json_add_string(o, "units_error", ue.message);
        }
        return 0;
}

/* `path` (sysfs) gone, waited for by the clock up to BCACHE_STOP_WAIT_MS: the kernel removes
 * an unregistered cache set's directory on a work queue */
static void wait_gone(const char *path) {
        for (uint64_t t0 = clock_mono_ms(); access(path, F_OK) >= 0 && clock_mono_ms() - t0 < BCACHE_STOP_WAIT_MS;)
                sleep_ms(50);
}

/* After its stop the kernel frees bcacheN on a work queue (its writeback thread stopped, its
 * disk deleted) and only then lets go of the backing device (the backing's holders/ entry
 * goes): waited for by the clock, up to BCACHE_STOP_WAIT_MS (the 5 s counted before this ran
 * out once in CI, the guest's one CPU shared with three labs, and the wipe after it found the
 * backing "held by bcache0"). Still there after that: who holds bcacheN open is named, else
 * the time the kernel took. *ret_ms: how long the stop took. */
static int wait_stopped(const BlockDev *backing, const char *top, uint64_t *ret_ms, Error *err) {
        char dir[PATH_MAX], holder[PATH_MAX];
        snprintf(dir, sizeof(dir), "/sys/class/block/%s/bcache", backing->name);
        snprintf(holder, sizeof(holder), "/sys/class/block/%s/holders/%s", backing->name, top);
        uint64_t t0 = clock_mono_ms();
        for (;;) {
                *ret_ms = clock_mono_ms() - t0;
                if (access(dir, F_OK) < 0 && (!top[0] || access(holder, F_OK) < 0))
                        return 0;
                if (*ret_ms >= BCACHE_STOP_WAIT_MS)
                        break;
                sleep_ms(50);
        }
        if (top[0]) {
                _cleanup_(freep) char *node = strprintf("/dev/%s", top);
                Error e = {};
                if (node && block_check_node(node,
                                             &(ClaimOptions) { .what = "let bcache stop", .check_only = true,
                                                               .no_excl = true, .allow_osd_id = { -1, -1 } },
                                             &e) < 0 && e.message[0]) {
                        int r = error_set(err, EBUSY, "bcache on '%s' did not stop within %u s: %s", backing->path,
                                          BCACHE_STOP_WAIT_MS / 1000, e.message);
                        error_reset(&e);
                        return r;
                }
                error_reset(&e);
        }
        return error_set(err, EBUSY, "bcache on '%s' did not stop within %u s: the kernel still holds it as %s, "
                                     "opened by no process", backing->path, BCACHE_STOP_WAIT_MS / 1000,
                         top[0] ? top : "a bcache device");
}

/* `d` claimed to wipe its bcache superblock once bcache let go of it: the kernel releases a
 * device shortly after its stop or its set's unregister, so an EBUSY for a few seconds (100
 * tries 50 ms apart) is bcache letting go, not another user. */
static int claim_let_go(BlockDev *d, BlockClaim *ret, Error *err) {
        int r;
        for (int i = 0;; i++) {
                r = block_claim(d, &(ClaimOptions) { .what = "wipe the bcache superblock of", .allow_osd_id = { -1, -1 } },
                                ret, err);
                if (r != -EBUSY || i >= 100)
                        return r;
                error_reset(err);
                sleep_ms(50);
        }
}

/* The superblock of the cache device `name` (kernel name) of cache set `set_uuid`, just
 * unregistered, zeroed through a claim once the kernel let go of it (claim_let_go()); only
 * while the superblock read through that claim is still the cache superblock of that set
 * (the device was named from sysfs before the unregister). */
static int wipe_cache_super(const char *name, const char *set_uuid, Error *err) {
        _cleanup_(block_dev_done) BlockDev d = {};
        _cleanup_(freep) char *node = strprintf("/dev/%s", name);
        if (!node)
                return error_set(err, ENOMEM, "out of memory");
        int r = block_dev_resolve(node, &d, err);
        if (r < 0)
                return r;
        _cleanup_(block_claim_done) BlockClaim c = { .fd = -1, .excl_fd = -1 };
        r = claim_let_go(&d, &c, err);
        if (r < 0)
                return r;
        BcacheSuper sb = {};
        r = bcache_super_read(c.fd, 0, &sb);
        if (r < 0)
                return error_set(err, -r, "cannot read the bcache superblock of '%s': %s", node, strerror(-r));
        if (r == 0 || sb.role != BCACHE_ROLE_CACHE || !streq(sb.set_uuid, set_uuid))
                return error_set(err, ESTALE,
                                 "'%s' is no longer the cache device of cache set %s: its superblock not wiped", node,
                                 set_uuid);
        if (zero_range(c.fd, BCACHE_SB_OFFSET, BCACHE_SB_SIZE) < 0 || fsync(c.fd) < 0)
                return error_set(err, errno, "cannot wipe the bcache superblock of cache device '%s': %s", node,
                                 strerror(errno));
        return 0;
}

/* bcache-teardown of a cache device alone (`cache`, or `cache_partname` on `cache_device`):
 * the cache set on it unregistered when no backing device is attached to it any more (the
 * one it served failed and is gone, or was torn down), then its superblock wiped. What dirty
 * data it may hold belonged to a backing device that is gone: nothing can write it back, and
 * its OSD is rebuilt from the other copies. A set that still has a backing device attached
 * is refused (tear that one down: its dirty data is flushed then). No cache superblock on it
 * (a re-run): nothing to do. */
static int teardown_cache(AgentState *s, json_object *args, json_object **ret, Error *err) {
        _cleanup_(block_dev_done) BlockDev cache = {};
        int r = bcache_device_arg(s, args, "cache", "cache_partname", "cache_device", "bcache-teardown", &cache, err);
        if (r < 0)
                return r;
        BcacheSuper sb;
        r = read_super_of(&cache, &sb, err);
        if (r < 0)
                return r;
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o)
                return error_set(err, ENOMEM, "out of memory");
        if (r == 0) {
                json_add_bool(o, "torn_down", false);
                *ret = TAKE_PTR(o);
                return 0;
        }
        if (sb.role != BCACHE_ROLE_CACHE || !sb.set_uuid[0])
                return error_set(err, EINVAL, "bcache-teardown: '%s' is not a bcache cache device", cache.path);
        DevExpect e;
        if ((r = dev_expect_parse(args, "expect", "bcache-teardown", &e, err)) < 0)
                return r;
        if (e.present) {
                _cleanup_(closep) int fd = open(cache.node, O_RDONLY | O_CLOEXEC);
                struct stat st;
                if (fd < 0 || fstat(fd, &st) < 0)
                        return error_set(err, errno, "cannot open '%s': %m", cache.path);
                if (!S_ISBLK(st.st_mode) || st.st_rdev != cache.devnum)
                        return error_set(err, ESTALE, "'%s' changed while it was opened; re-run plan", cache.path);
                if ((r = dev_expect_check(fd, &cache, &e, err)) < 0)
                        return r;
        }
        if (s->dry_run)
                return error_set(err, EPERM, "dry run on '%s': not tearing down '%s'", agent_host(s), cache.path);
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "/sys/fs/bcache/%s", sb.set_uuid);
        if (access(path, F_OK) >= 0) {
                if (set_has_backing(sb.set_uuid))
                        return error_set(err, EBUSY, "refusing to tear down cache set %s on '%s': a backing device is "
                                                     "still attached to it (tear that one down: its dirty data is "
                                                     "written back first)", sb.set_uuid, cache.path);
                snprintf(path, sizeof(path), "/sys/fs/bcache/%s/unregister", sb.set_uuid);
                if ((r = file_write_string(path, "1")) < 0)
                        return error_set(err, r, "cannot unregister cache set %s on '%s': %s", sb.set_uuid, cache.path,
                                         strerror(-r));
                snprintf(path, sizeof(path), "/sys/fs/bcache/%s", sb.set_uuid);
                wait_gone(path);
                json_add_string(o, "unregistered_set", sb.set_uuid);
        }
        if ((r = wipe_cache_super(cache.name, sb.set_uuid, err)) < 0)
                return r;
        json_add_string(o, "wiped_cache", cache.path);
        json_add_bool(o, "torn_down", true);
        *ret = TAKE_PTR(o);
        return 0;
}

int agent_op_bcache_teardown(AgentState *s, json_object *args, json_object **ret, AgentProgress *p, Error *err) {
        _cleanup_(block_dev_done) BlockDev backing = {};
        int64_t timeout = 600;
        int r = bcache_require(s, err);
        if (r < 0)
                return r;
        if (json_object_object_get_ex(args, "cache", NULL) || json_object_object_get_ex(args, "cache_partname", NULL))
                return teardown_cache(s, args, ret, err);
        r = bcache_device_arg(s, args, "backing", NULL, NULL, "bcache-teardown", &backing, err);
        if (r < 0)
                return r;
        if ((r = json_get_int(args, "timeout", false, &timeout, "bcache-teardown", err)) < 0 && r != -ENOENT)
                return r;
        /* milliseconds are counted in an int64_t: bound the seconds (a week is plenty) */
        if (timeout < 0 || timeout > 7 * 86400)
                return error_set(err, EINVAL, "bcache-teardown: timeout %" PRId64 " is not in 0..604800 seconds",
                                 timeout);

        BcacheSuper sb;
        r = read_super_of(&backing, &sb, err);
        if (r < 0)
                return r;
        if (r == 0 || sb.role != BCACHE_ROLE_BACKING)
                return error_set(err, EINVAL, "bcache-teardown: '%s' is not a bcache backing device", backing.path);
        /* the backing device the plan saw, before anything changes (bcache holds it: no claim) */
        DevExpect e;
        if ((r = dev_expect_parse(args, "expect", "bcache-teardown", &e, err)) < 0)
                return r;
        if (e.present) {
                _cleanup_(closep) int fd = open(backing.node, O_RDONLY | O_CLOEXEC);
                struct stat st;
                if (fd < 0 || fstat(fd, &st) < 0)
                        return error_set(err, errno, "cannot open '%s': %m", backing.path);
                if (!S_ISBLK(st.st_mode) || st.st_rdev != backing.devnum)
                        return error_set(err, ESTALE, "'%s' changed while it was opened; re-run plan", backing.path);
                if ((r = dev_expect_check(fd, &backing, &e, err)) < 0)
                        return r;
        }
        if (s->dry_run)
                return error_set(err, EPERM, "dry run on '%s': not tearing down '%s'", agent_host(s), backing.path);

        char dir[PATH_MAX], path[PATH_MAX + 32];
        snprintf(dir, sizeof(dir), "/sys/class/block/%s/bcache", backing.name);
        bool registered = access(dir, F_OK) >= 0;
        if (!registered && sb.set_uuid[0]) {
                /* attached but not registered (stopped, or a boot without udev's
                 * bcache-register): dirty data may live only in the cache set. Register it,
                 * so that the detach below writes that back; wiping it now would lose it. */
                r = register_device(&backing, err);
                if (r < 0)
                        return r;
                registered = access(dir, F_OK) >= 0;
        }
        if (sb.bdev_state == BDEV_STATE_DIRTY) {
                snprintf(path, sizeof(path), "/sys/fs/bcache/%s", sb.set_uuid);
                if (access(path, F_OK) < 0)
                        return error_set(err, EBUSY,
                                         "refusing to tear down '%s': it has dirty data in cache set %s, which is not registered (register its cache device first)",
                                         backing.path, sb.set_uuid);
        }
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o)
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_(block_claim_done) BlockClaim top = { .fd = -1, .excl_fd = -1 };
        char top_name[NAME_MAX + 1] = "";
        if (registered) {
                /* The bcacheN device must not be in use (an OSD still running on it): claimed
                 * (O_EXCL, flock, OFD lock) across the detach, which can take minutes of
                 * write-back, so that no OSD starts on it meanwhile. Nobody but bcache may
                 * use the backing device itself either. */
                InvBcache b = { .role = BCACHE_ROLE_BACKING, .writeback_percent = -1, .hit_ratio = -1 };
                bcache_fill_sysfs(backing.name, &b);
                if (b.bcache_device) {
                        snprintf(top_name, sizeof(top_name), "%s", strrchr(b.bcache_device, '/') + 1);
                        _cleanup_(block_dev_done) BlockDev bd = {};
                        r = block_dev_resolve(b.bcache_device, &bd, err);
                        /* an OSD's LVM on bcacheN goes first: it holds the device */
                        if (r >= 0)
                                r = agent_release_osd_lvm(s, bd.name, -1, o, err);
                        if (r >= 0)
                                r = block_claim(&bd, &(ClaimOptions) { .what = "tear down bcache on", .allow_osd_id = { -1, -1 } },
                                                &top, err);
                        if (r >= 0)
                                r = block_check_node(backing.path,
                                                     &(ClaimOptions) { .what = "tear down bcache on", .check_only = true,
                                                                       .no_excl = true, .own_holder = bd.name,
                                                                       .allow_osd_id = { -1, -1 } },
                                                     err);
                }
                free(b.bcache_device);
                free(b.state);
                free(b.cache_mode);
                if (r < 0)
                        return r;

                /* detach: the kernel writes dirty data back first, then drops the cache */
                if (sb.set_uuid[0]) {
                        /* the dirty data before the detach starts writing it back */
                        uint64_t dirty_before = 0;
                        _cleanup_(freep) char *db = NULL;
                        if (sysfs_read_string(backing.name, "bcache/dirty_data", &db) >= 0)
                                dirty_before = bcache_parse_hsize(db);
                        snprintf(path, sizeof(path), "%s/detach", dir);
                        r = file_write_string(path, "1");
                        if (r < 0 && r != -EINVAL)
                                return error_set(err, r, "cannot detach '%s' from its cache: %s", backing.path,
                                                 strerror(-r));
                        /* polled every 100 ms (a flush of tens of MiB takes under a second),
                         * progress every 500 ms, and its end with the rate (dirty_data is what
                         * the kernel counted when the detach began: the flush's size) */
                        uint64_t start_dirty = UINT64_MAX, t0 = clock_mono_ms();
                        for (int64_t waited = 0;; waited += 100) {
                                _cleanup_(freep) char *state = NULL, *dirty = NULL;
                                sysfs_read_string(backing.name, "bcache/state", &state);
                                sysfs_read_string(backing.name, "bcache/dirty_data", &dirty);
                                uint64_t d = dirty ? bcache_parse_hsize(dirty) : 0;
                                if (start_dirty == UINT64_MAX)
                                        start_dirty = MAX(d, dirty_before);
                                if (d == 0 && state && streq(state, "no cache"))
                                        break;
                                if (waited >= timeout * 1000)
                                        return error_set(err, ETIMEDOUT,
                                                         "'%s' still has %s of dirty data after %" PRId64 " s: not detached",
                                                         backing.path, dirty ? dirty : "?", timeout);
                                if (waited % 500 == 0)
                                        agent_progress(p, start_dirty - MIN(d, start_dirty), start_dirty,
                                                       "flushing %s dirty data of '%s'", dirty ? dirty : "?",
                                                       backing.path);
                                sleep_ms(100);
                        }
                        double secs = (double) (clock_mono_ms() - t0) / 1000.0;
                        char sz[SIZE_FORMAT_MAX], rate[SIZE_FORMAT_MAX];
                        size_format(start_dirty, sz, sizeof(sz));
                        size_format((uint64_t) ((double) start_dirty / MAX(secs, 0.1)), rate, sizeof(rate));
                        agent_progress(p, start_dirty, start_dirty, "flushed %s of dirty data of '%s' in %.1f s (%s/s)",
                                       sz, backing.path, secs, rate);
                        json_add_u64(o, "flushed_bytes", start_dirty);
                        json_add(o, "flush_seconds", json_object_new_double(secs));
                }
                block_claim_done(&top); /* the device goes away with the stop */
                snprintf(path, sizeof(path), "%s/stop", dir);
                r = file_write_string(path, "1");
                if (r < 0)
                        return error_set(err, r, "cannot stop bcache on '%s': %s", backing.path, strerror(-r));
                uint64_t stop_ms = 0;
                if ((r = wait_stopped(&backing, top_name, &stop_ms, err)) < 0)
                        return r;
                json_add(o, "stop_seconds", json_object_new_double((double) stop_ms / 1000.0));
        }

        /* the cache set, if nobody else uses it */
        if (sb.set_uuid[0] && !set_has_backing(sb.set_uuid)) {
                /* its cache device, named before it goes: /sys/fs/bcache/SET/cache0 links to
                 * /sys/block/DISK/PART/bcache */
                char cache_link[PATH_MAX], cache_dir[PATH_MAX], cache_name[NAME_MAX + 1] = "";
                snprintf(cache_link, sizeof(cache_link), "/sys/fs/bcache/%s/cache0", sb.set_uuid);
                if (realpath(cache_link, cache_dir)) {
                        char *slash = strrchr(cache_dir, '/');
                        if (slash && streq(slash, "/bcache")) {
                                *slash = 0;
                                slash = strrchr(cache_dir, '/');
                                if (slash)
                                        snprintf(cache_name, sizeof(cache_name), "%s", slash + 1);
                        }
                }
                snprintf(path, sizeof(path), "/sys/fs/bcache/%s/unregister", sb.set_uuid);
                if (file_write_string(path, "1") >= 0) {
                        json_add_string(o, "unregistered_set", sb.set_uuid);
                        /* the kernel releases the cache device asynchronously: wait, so that
                         * a wipe of it right after this answer does not find it held */
                        snprintf(path, sizeof(path), "/sys/fs/bcache/%s", sb.set_uuid);
                        wait_gone(path);
                        /* and its superblock goes at once: while it is there, any udev event on
                         * the cache device (bcache-tools' rule registers every bcache
                         * superblock it sees) registers the set again, and the owned wipe that
                         * follows found cache partitions "registered with bcache" on the uml
                         * guest. Its data is clean (the detach wrote it back): nothing is lost. */
                        if (cache_name[0]) {
                                r = wipe_cache_super(cache_name, sb.set_uuid, err);
                                if (r < 0)
                                        return r;
                                _cleanup_(freep) char *dev = strprintf("/dev/%s", cache_name);
                                json_add_string(o, "wiped_cache", dev);
                        }
                }
        }

        /* finally the superblock and what lay at the start of /dev/bcacheN: its data begins
         * 8 KiB into the backing device (bcache's data offset), so an OSD's BlueStore label
         * made on bcacheN sits there, and for an OSD on LVM the PV's label and metadata and,
         * 1 MiB further, the OSD's label: the first BCACHE_TEARDOWN_ZERO bytes are zeroed
         * (no signature wipe would find them at those offsets), through a claim now that
         * bcache let go */
        _cleanup_(block_claim_done) BlockClaim c = { .fd = -1, .excl_fd = -1 };
        r = claim_let_go(&backing, &c, err);
        if (r < 0)
                return r;
        uint64_t zero = MIN((uint64_t) BCACHE_TEARDOWN_ZERO, backing.size);
        if (zero_range(c.fd, 0, zero) < 0 || fsync(c.fd) < 0)
                return error_set(err, errno, "cannot wipe the bcache superblock of '%s': %s", backing.path,
                                 strerror(errno));
        json_add_string(o, "wiped", "bcache");
        json_add_u64(o, "zeroed", zero);
        /* and the tuning rule bcache-tune installed for it: it would match nothing any more */
        _cleanup_(freep) char *rule = strprintf("%s/69-cephprov-bcache-%s.rules", agent_udev_rules_dir(), sb.uuid);
        if (!rule)
                return error_set(err, ENOMEM, "out of memory");
        if (unlink(rule) >= 0)
                json_add_string(o, "udev_rule_removed", rule);
        else if (errno != ENOENT)
                return error_set(err, errno, "cannot remove '%s': %m", rule);
        *ret = TAKE_PTR(o);
        return 0;
}
