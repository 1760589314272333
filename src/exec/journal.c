/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "journal.h"
#include "exec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/strv.h"

static int mkdir_p(const char *path, mode_t mode) {
        _cleanup_(freep) char *p = strdup(path);
        if (!p)
                return -ENOMEM;
        for (char *s = p + 1; *s; s++)
                if (*s == '/') {
                        *s = 0;
                        if (mkdir(p, mode) < 0 && errno != EEXIST)
                                return -errno;
                        *s = '/';
                }
        if (mkdir(p, mode) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

int journal_default_dir(char **ret, Error *err) {
        const char *e = getenv("CEPHPROV_STATE_DIR");
        char *d;

        if (!isempty(e))
                d = strdup(e);
        else if (geteuid() == 0)
                d = strdup("/var/lib/cephprov");
        else if (!isempty(getenv("XDG_STATE_HOME")))
                d = strprintf("%s/cephprov", getenv("XDG_STATE_HOME"));
        else if (!isempty(getenv("HOME")))
                d = strprintf("%s/.local/state/cephprov", getenv("HOME"));
        else
                return error_set(err, ENOENT, "cannot find a state directory for the journal: set CEPHPROV_STATE_DIR");
        if (!d)
                return error_set(err, ENOMEM, "out of memory");
        *ret = d;
        return 0;
}

/* A record is one write() of a line ending in '\n', so anything after the last '\n' is a
 * record torn by a crash. Left there, the next append would glue itself to it and be lost
 * to every reader: cut it off (it never completed, so nothing relied on it). */
static int journal_repair_tail(int fd, uint64_t *ret_torn) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        uint64_t end = (uint64_t) st.st_size, pos = end;
        char buf[4096];
        while (pos > 0) {
                size_t n = pos > sizeof(buf) ? sizeof(buf) : (size_t) pos;
                ssize_t k = pread(fd, buf, n, (off_t) (pos - n));
                if (k < 0)
                        return -errno;
                if ((size_t) k != n)
                        return -EIO;
                size_t i = n;
                while (i > 0 && buf[i - 1] != '\n')
                        i--;
                if (i > 0) {
                        pos = pos - n + i;
                        break;
                }
                pos -= n;
        }
        *ret_torn = end - pos;
        if (pos == end)
                return 0;
        if (ftruncate(fd, (off_t) pos) < 0 || fsync(fd) < 0)
                return -errno;
        return 0;
}

static void iso_time(char *buf, size_t len) {
        struct timespec ts;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &ts);
        gmtime_r(&ts.tv_sec, &tm);
        size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(buf + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

int journal_open(const char *dir, const char *cluster, const char *command, Journal **ret, Error *err) {
        int r = mkdir_p(dir, 0700);
        if (r < 0)
                return error_set(err, -r, "cannot create journal directory '%s': %s", dir, strerror(-r));

        _cleanup_(freep) char *lock_path = strprintf("%s/%s.lock", dir, cluster);
        _cleanup_(freep) char *path = strprintf("%s/%s.journal", dir, cluster);
        if (!lock_path || !path)
                return error_set(err, ENOMEM, "out of memory");

        _cleanup_(closep) int lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (lock_fd < 0)
                return error_set(err, errno, "cannot open lock '%s': %s", lock_path, strerror(errno));
        if (flock(lock_fd, LOCK_EX | LOCK_NB) < 0) {
                int e = errno;
                char holder[256] = "";
                ssize_t n = pread(lock_fd, holder, sizeof(holder) - 1, 0);
                holder[n > 0 ? n : 0] = 0;
                holder[strcspn(holder, "\n")] = 0;
                if (e == EWOULDBLOCK)
                        return error_set(err, EBUSY, "cluster '%s' is locked by another cephprov on this machine (%s; lock '%s')",
                                         cluster, holder[0] ? holder : "holder unknown", lock_path);
                return error_set(err, e, "cannot lock '%s': %s", lock_path, strerror(e));
        }

        char holder[256], now[40];
        iso_time(now, sizeof(now));
        int len = snprintf(holder, sizeof(holder), "pid %d, '%s', since %s\n", (int) getpid(), command, now);
        if (ftruncate(lock_fd, 0) < 0 || pwrite(lock_fd, holder, (size_t) len, 0) != len)
                return error_set(err, errno, "cannot write lock '%s': %s", lock_path, strerror(errno));

        _cleanup_(closep) int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
                return error_set(err, errno, "cannot open journal '%s': %s", path, strerror(errno));
        uint64_t torn = 0;
        r = journal_repair_tail(fd, &torn);
        if (r < 0)
                return error_set(err, -r, "cannot repair the torn last record of journal '%s': %s", path, strerror(-r));

        Journal *j = calloc(1, sizeof(Journal));
        if (!j)
                return error_set(err, ENOMEM, "out of memory");
        /* unique per run: a second run of one process within a second gets a suffix */
        static atomic_uint opened;
        unsigned k = atomic_fetch_add(&opened, 1);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        j->run_id = k == 0 ? strprintf("%lld-%d", (long long) ts.tv_sec, (int) getpid())
                           : strprintf("%lld-%d.%u", (long long) ts.tv_sec, (int) getpid(), k);
        j->path = TAKE_PTR(path);
        j->fd = TAKE_FD(fd);
        j->lock_fd = TAKE_FD(lock_fd);
        j->torn_bytes = torn;
        pthread_mutex_init(&j->mutex, NULL);
        *ret = j;
        return 0;
}

Journal *journal_close(Journal *j) {
        if (!j)
                return NULL;
        if (j->fd >= 0)
                close(j->fd);
        if (j->lock_fd >= 0) {
                if (ftruncate(j->lock_fd, 0) < 0) {
                        /* nothing to do: the lock is released by close() anyway */
                }
                close(j->lock_fd); /* releases the flock */
        }
        pthread_mutex_destroy(&j->mutex);
        free(j->path);
        free(j->run_id);
        free(j);
        return NULL;
}

int journal_append(Journal *j, const char *event, json_object *fields, Error *err) {
        _cleanup_json_ json_object *o = fields ? fields : json_object_new_object();
        if (!o)
                return error_set(err, ENOMEM, "out of memory");
        if (!j)
                return 0;

        char now[40];
        iso_time(now, sizeof(now));
        if (json_add_string(o, "time", now) < 0 || json_add_string(o, "run", j->run_id) < 0 ||
            json_add_string(o, "event", event) < 0)
                return error_set(err, ENOMEM, "out of memory");

        const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        _cleanup_(freep) char *line = strprintf("%s\n", s);
        if (!line)
                return error_set(err, ENOMEM, "out of memory");
        size_t len = strlen(line);

        pthread_mutex_lock(&j->mutex);
        ssize_t n = write(j->fd, line, len); /* O_APPEND: one record, one write */
        int e = n < 0 ? errno : 0;
        if (n == (ssize_t) len && fsync(j->fd) < 0)
                e = errno;
        pthread_mutex_unlock(&j->mutex);

        if (n != (ssize_t) len)
                return error_set(err, e ? e : EIO, "cannot append to journal '%s': %s", j->path, e ? strerror(e) : "short write");
        if (e)
                return error_set(err, e, "cannot sync journal '%s': %s", j->path, strerror(e));
        return 0;
}

int journal_read(const char *path, json_object **ret_array, Error *err) {
        _cleanup_(fclosep) FILE *f = fopen(path, "re");
        if (!f)
                return error_set(err, errno, "cannot open journal '%s': %s", path, strerror(errno));

        _cleanup_json_ json_object *a = json_object_new_array();
        _cleanup_(freep) char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        while ((n = getline(&line, &cap, f)) > 0) {
                if (line[n - 1] != '\n')
                        break; /* torn last record */
                json_object *o = json_tokener_parse(line);
                if (!o || !json_object_is_type(o, json_type_object)) {
                        json_object_put(o);
                        continue;
                }
                json_object_array_add(a, o);
        }
        *ret_array = TAKE_PTR(a);
        return 0;
}

static void strv_remove(char **l, const char *s) {
        char **w = l;
        for (char **p = l; p && *p; p++)
                if (streq(*p, s))
                        free(*p);
                else
                        *w++ = *p;
        if (w)
                *w = NULL;
}

/* The host a record says its run acted on: "host", or every name of a waves-start's
 * "hosts". Calls fn(host) for each; a record that names none calls nothing. */
static int record_hosts(json_object *rec, int (*fn)(const char *host, void *userdata), void *userdata) {
        const char *host = NULL;
        json_object *hosts = NULL;
        int r;
        json_get_string(rec, "host", false, &host, "journal", NULL);
        if (host && (r = fn(host, userdata)) < 0)
                return r;
        if (json_object_object_get_ex(rec, "hosts", &hosts) && json_object_is_type(hosts, json_type_array))
                for (size_t i = 0; i < json_object_array_length(hosts); i++) {
                        json_object *h = json_object_array_get_idx(hosts, i);
                        if (json_object_is_type(h, json_type_string) && (r = fn(json_object_get_string(h), userdata)) < 0)
                                return r;
                }
        return 0;
}

static int add_host(const char *host, void *userdata) {
        char ***l = userdata;
        return strv_contains(*l, host) || strv_extend(l, host) >= 0 ? 0 : -ENOMEM;
}

/* Another run acted on `host`: the procedure's keys of that host go, and with them every
 * key outside a host's list (before, gates, after), when the procedure acts on that host. */
typedef struct EndCtx {
        char **keys;
        char * const *own_hosts;
} EndCtx;

static int end_host(const char *host, void *userdata) {
        EndCtx *c = userdata;
        if (!strv_contains(c->own_hosts, host))
                return 0;
        _cleanup_(freep) char *prefix = strprintf("host:%s:", host);
        if (!prefix)
                return -ENOMEM;
        char **w = c->keys;
        for (char **p = c->keys; p && *p; p++)
                if (!startswith(*p, "host:") || startswith(*p, prefix))
                        free(*p);
                else
                        *w++ = *p;
        if (w)
                *w = NULL;
        return 0;
}

int journal_done_step_keys(const char *path, const char *waves_id, char ***ret_keys, Error *err) {
        _cleanup_json_ json_object *recs = NULL;
        _cleanup_strv_free_ char **keys = NULL, **runs = NULL, **hosts = NULL;

        if (access(path, F_OK) < 0 && errno == ENOENT) {
                if (!(keys = calloc(1, sizeof(char *))))
                        return error_set(err, ENOMEM, "out of memory");
                *ret_keys = TAKE_PTR(keys);
                return 0;
        }
        int r = journal_read(path, &recs, err);
        if (r < 0)
                return r;
        if (!(keys = calloc(1, sizeof(char *))))
                return error_set(err, ENOMEM, "out of memory");

        /* the procedure's runs (a record of a run carries its "run"; one of them naming the
         * procedure makes the run the procedure's, records written before its waves-start
         * too) and the hosts it acts on */
        size_t n = json_object_array_length(recs);
        for (size_t i = 0; i < n; i++) {
                json_object *rec = json_object_array_get_idx(recs, i);
                const char *id = NULL, *run = NULL;
                json_get_string(rec, "waves", false, &id, "journal", NULL);
                json_get_string(rec, "run", false, &run, "journal", NULL);
                if (!streq_ptr(id, waves_id))
                        continue;
                if ((run && !strv_contains(runs, run) && strv_extend(&runs, run) < 0) ||
                    record_hosts(rec, add_host, &hosts) < 0)
                        return error_set(err, ENOMEM, "out of memory");
        }

        for (size_t i = 0; i < n; i++) {
                json_object *rec = json_object_array_get_idx(recs, i);
                const char *ev = NULL, *id = NULL, *key = NULL, *status = NULL, *run = NULL;
                json_get_string(rec, "event", false, &ev, "journal", NULL);
                json_get_string(rec, "waves", false, &id, "journal", NULL);
                json_get_string(rec, "run", false, &run, "journal", NULL);
                if (!ev)
                        continue;
                if (!streq_ptr(id, waves_id)) {
                        /* a record of another run (another playbook, the same one on other
                         * hosts, apply) that acted on one of the procedure's hosts */
                        if (run && strv_contains(runs, run))
                                continue;
                        EndCtx c = { .keys = keys, .own_hosts = hosts };
                        if (record_hosts(rec, end_host, &c) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                        continue;
                }
                json_get_string(rec, "key", false, &key, "journal", NULL);
                if (streq(ev, "waves-end")) {
                        json_get_string(rec, "status", false, &status, "journal", NULL);
                        if (streq_ptr(status, "ok")) {
                                strv_free(keys);
                                if (!(keys = calloc(1, sizeof(char *))))
                                        return error_set(err, ENOMEM, "out of memory");
                        }
                } else if (key && (streq(ev, "wave-step-done") || streq(ev, "wave-step-earlier"))) {
                        if (!strv_contains(keys, key) && strv_extend(&keys, key) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                } else if (key && (streq(ev, "wave-step-failed") || streq(ev, "wave-step-cancelled")))
                        strv_remove(keys, key);
        }
        *ret_keys = TAKE_PTR(keys);
        return 0;
}

void journal_append_osd(Journal *j, const char *event, const char *host, const char *device, int id, const char *fsid,
                        const char *extra_key, const char *extra) {
        if (!j)
                return;
        json_object *o = json_object_new_object();
        if (!o)
                return;
        json_add_string(o, "host", host);
        json_add_string(o, "device", device);
        if (id >= 0)
                json_add_int(o, "osd_id", id);
        json_add_string(o, "osd_fsid", fsid);
        if (extra_key)
                json_add_string(o, extra_key, extra);
        (void) journal_append(j, event, o, NULL);
}

struct JournalSnapshot {
        json_object *recs; /* array of records, oldest first */
};

int journal_snapshot(const char *path, JournalSnapshot **ret, Error *err) {
        _cleanup_(journal_snapshot_freep) JournalSnapshot *s = calloc(1, sizeof(JournalSnapshot));
        if (!s)
                return error_set(err, ENOMEM, "out of memory");
        if (path && access(path, F_OK) == 0) {
                int r = journal_read(path, &s->recs, err);
                if (r < 0)
                        return r;
        } else if (!(s->recs = json_object_new_array()))
                return error_set(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(s);
        return 0;
}

JournalSnapshot *journal_snapshot_free(JournalSnapshot *s) {
        if (!s)
                return NULL;
        json_object_put(s->recs);
        free(s);
        return NULL;
}

size_t journal_snapshot_size(const JournalSnapshot *s) {
        return s ? json_object_array_length(s->recs) : 0;
}

/* The fields the OSD queries read; absent ones stay NULL / -1. */
typedef struct OsdRecord {
        const char *event, *kind, *host, *device, *fsid;
        int64_t id;
} OsdRecord;

static OsdRecord osd_record(json_object *rec) {
        OsdRecord x = { .id = -1 };
        json_get_string(rec, "event", false, &x.event, "journal", NULL);
        json_get_string(rec, "kind", false, &x.kind, "journal", NULL);
        json_get_string(rec, "host", false, &x.host, "journal", NULL);
        json_get_string(rec, "device", false, &x.device, "journal", NULL);
        json_get_string(rec, "osd_fsid", false, &x.fsid, "journal", NULL);
        json_get_int(rec, "osd_id", false, &x.id, "journal", NULL);
        return x;
}

int journal_unfinished_steps(const JournalSnapshot *s, const char *kind, char ***ret_hosts, char ***ret_devices,
                             Error *err) {
        _cleanup_strv_free_ char **hosts = calloc(1, sizeof(char *)), **devs = calloc(1, sizeof(char *));
        if (!hosts || !devs)
                return error_set(err, ENOMEM, "out of memory");
        size_t n = journal_snapshot_size(s);
        for (size_t i = 0; i < n; i++) {
                OsdRecord x = osd_record(json_object_array_get_idx(s->recs, i));
                if (!x.event || !streq_ptr(x.kind, kind) || !x.host || !x.device)
                        continue;
                /* a later record for the same host+device replaces an earlier one */
                size_t k;
                for (k = 0; hosts[k]; k++)
                        if (streq(hosts[k], x.host) && streq(devs[k], x.device))
                                break;
                /* apply's steps as the wave executor records them, or as an older
                 * cephprov did (its own executor's "step-start") */
                bool started = streq(x.event, "wave-step-start") || streq(x.event, "step-start");
                if (hosts[k] && !started) {
                        free(hosts[k]);
                        free(devs[k]);
                        for (; hosts[k + 1]; k++) {
                                hosts[k] = hosts[k + 1];
                                devs[k] = devs[k + 1];
                        }
                        hosts[k] = devs[k] = NULL;
                } else if (!hosts[k] && started) {
                        if (strv_extend(&hosts, x.host) < 0 || strv_extend(&devs, x.device) < 0)
                                return error_set(err, ENOMEM, "out of memory");
                }
        }
        *ret_hosts = TAKE_PTR(hosts);
        *ret_devices = TAKE_PTR(devs);
        return 0;
}

int journal_osd_allocations(const JournalSnapshot *s, JournalOsdAllocation **ret, size_t *ret_n, Error *err) {
        size_t nr = journal_snapshot_size(s), n = 0;
        _cleanup_(freep) JournalOsdAllocation *a = calloc(nr ? nr : 1, sizeof(JournalOsdAllocation));
        if (!a)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < nr; i++) {
                OsdRecord x = osd_record(json_object_array_get_idx(s->recs, i));
                if (!x.event || !x.host || !x.device)
                        continue;
                bool pending = streq(x.event, "osd-allocating") && x.fsid;
                if (!pending && !(streq(x.event, "osd-allocated") && x.id >= 0))
                        continue;
                a[n++] = (JournalOsdAllocation) {
                        .host = x.host,
                        .device = x.device,
                        .fsid = pending ? x.fsid : NULL,
                        .id = (int) x.id,
                        .pending = pending,
                };
        }
        *ret = TAKE_PTR(a);
        *ret_n = n;
        return 0;
}

bool journal_osd_started(const JournalSnapshot *s, const char *host, const char *device, const char *fsid, int id) {
        size_t n = journal_snapshot_size(s);
        for (size_t i = 0; i < n; i++) {
                OsdRecord x = osd_record(json_object_array_get_idx(s->recs, i));
                if (!x.event || !streq_ptr(x.host, host) || !streq_ptr(x.device, device))
                        continue;
                bool by_uuid = fsid && x.fsid && strcasecmp(x.fsid, fsid) == 0 &&
                               (streq(x.event, "osd-half-made-owned") || streq(x.event, "osd-allocating") ||
                                streq(x.event, "osd-created"));
                bool by_id = id >= 0 && x.id == id &&
                             (streq(x.event, "osd-allocated") || streq(x.event, "osd-half-made-owned"));
                if (by_uuid || by_id)
                        return true;
        }
        return false;
}

/* FAULT INJECTION for the kill tests (tests/lab/test-drain.sh, test-apply-kill-sweep.sh): CEPHPROV_TEST_HOLD_STEP=
 * "NAME[:after],..." holds each step NAME (a wave step's name, or an apply step's kind) for CEPHPROV_TEST_HOLD_SECONDS (default 3) once its
 * start is journaled — before it acts, or with ":after" once it has acted and before its end
 * is journaled — so that a kill lands inside a step that takes milliseconds (a cluster
 * command through librados). Never set outside the tests. */
void exec_test_hold(const char *name, bool after) {
        const char *v = getenv("CEPHPROV_TEST_HOLD_STEP");
        if (!v || !*v)
                return;
        _cleanup_strv_free_ char **l = strv_split(v, ",");
        STRV_FOREACH(x, l) {
                size_t n = strcspn(*x, ":");
                bool want_after = (*x)[n] == ':' && streq(*x + n + 1, "after");
                if (strlen(name) != n || strncmp(*x, name, n) != 0 || want_after != after)
                        continue;
                const char *secs = getenv("CEPHPROV_TEST_HOLD_SECONDS");
                double d = secs ? atof(secs) : 3.0;
                struct timespec ts = { (time_t) d, (long) ((d - (double) (time_t) d) * 1e9) };
                nanosleep(&ts, NULL);
                return;
        }
}
