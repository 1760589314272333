/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "controller/cluster-lock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "basic/clock-util.h"
#include "basic/log.h"
#include "basic/strv.h"

struct CephClusterLock {
        CephAdmin *admin; /* our own connection: renewals never wait behind the flow */
        char *entity, *takeover, *record, *key, *keyring, *command;
        char host[256];
        unsigned lease;
        time_t since;

        pthread_mutex_t mu;
        pthread_cond_t cv;
        pthread_t thread;
        bool thread_started, stop;
        bool held;
        double renewed;  /* CLOCK_MONOTONIC: start of the last good renewal (or of taking it) */
        double deadline; /* CLOCK_MONOTONIC: the lease counts as lost after this */
        char *lost;      /* why it was lost; NULL while ours */
        char *token_path; /* our key, for the next run of this state directory */
        char *dead_key;   /* the key a dead run of this state directory left there */
        bool stalled;     /* test hook CEPHPROV_TEST_LEASE_OUTLIVED_BY: renewals stopped */
        char *outlived_by; /* that hook's agent op; NULL when unset */
};


static void iso(time_t t, char buf[static 32]) {
        struct tm tm;
        buf[0] = 0;
        if (gmtime_r(&t, &tm))
                strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The holder gives the lock up by itself this long before the lease it wrote ends: room for
 * clock skew between controllers and for commands still in flight. */
static double lease_margin(unsigned lease) {
        return lease / 4.0;
}

int cluster_lock_lease(unsigned *ret, Error *err) {
        const char *e = getenv("CEPHPROV_LOCK_LEASE");
        if (isempty(e)) {
                *ret = CLUSTER_LOCK_LEASE_DEFAULT;
                return 0;
        }
        int r = ceph_lock_lease_parse(e, ret, err);
        return r < 0 ? error_prefix(err, r, "CEPHPROV_LOCK_LEASE") : 0;
}

/* Runs argv; a fresh Error each time, since an expected failure (EEXIST, ENOENT) is an answer. */
static int run(CephAdmin *a, char **argv, const char *in, char **ret_out, Error *err) {
        Error e = {};
        int r = ceph_admin_run(a, argv, in, ret_out, &e);
        if (r < 0)
                error_set(err, -r, "%s", e.message);
        return r;
}

/* The key of `entity`; 0 and NULL when it does not exist. */
static int entity_key(CephAdmin *a, const char *entity, char **ret, Error *err) {
        /* no entity only when ceph says so: a `ceph` that did not run is an error */
        Error e = {};
        _cleanup_(freep) char *out = NULL;
        int r = ceph_admin_get(a, ceph_argv_auth_get(ceph_admin_cli(a), entity, &e), &out, &e);
        if (r < 0)
                return error_set(err, -r, "%s", e.message);
        if (r == 0) {
                *ret = NULL;
                return 0;
        }
        r = ceph_auth_get_parse(out, entity, ret, NULL, &e);
        return r < 0 ? error_set(err, -r, "cannot read the lock entity '%s': %s", entity, e.message) : 0;
}

/* The lease record of the owner of `key`; 0 and NULL when there is none. */
static int read_record(CephAdmin *a, const char *key, CephLock **ret, Error *err) {
        _cleanup_(freep) char *rk = ceph_lock_record_key(a->cluster, key, err), *out = NULL;
        if (!rk)
                return -err->code;
        /* no record only when ceph says so: a `ceph` that did not run is an error */
        Error e = {};
        int r = ceph_admin_get(a, ceph_argv_config_key_get(ceph_admin_cli(a), rk, &e), &out, &e);
        if (r < 0)
                return error_set(err, -r, "%s", e.message);
        if (r == 0) {
                *ret = NULL;
                return 0;
        }
        r = ceph_lock_parse(out, ret, &e);
        return r < 0 ? error_set(err, -r, "cannot read the lock record '%s': %s", rk, e.message) : 0;
}

static int write_record(CephClusterLock *l, time_t now, Error *err) {
        char since[32];
        iso(l->since, since);
        CephLock rec = { .host = l->host, .pid = (int) getpid(), .command = l->command, .since = since,
                         .expires = (int64_t) now + l->lease };
        _cleanup_(freep) char *v = ceph_lock_format(&rec);
        if (!v)
                return error_set(err, ENOMEM, "out of memory");
        return run(l->admin, ceph_argv_config_key_set(ceph_admin_cli(l->admin), l->record, err), v, NULL, err);
}

static void remove_record(CephAdmin *a, const char *record) {
        Error e = {};
        if (run(a, ceph_argv_config_key_rm(ceph_admin_cli(a), record, &e), NULL, NULL, &e) < 0)
                log_warning("cannot remove the lock record '%s': %s", record, e.message);
}

/* "cluster 'ceph' is locked by cephprov on 'adm1' (pid 4242, apply, lease until ...)" */
static char *describe(const char *cluster, const char *what, const CephLock *rec) {
        if (!rec)
                return strprintf("cluster '%s' is %s by cephprov (no lease record: it is taken over as expired)", cluster,
                                 what);
        char until[32];
        iso((time_t) rec->expires, until);
        return strprintf("cluster '%s' is %s by cephprov on '%s' (pid %d, %s, lease until %s)", cluster, what, rec->host,
                         rec->pid, rec->command ? rec->command : "?", until);
}

static bool record_expired(const CephLock *rec) {
        return !rec || rec->expires < (int64_t) time(NULL);
}

static void lose(CephClusterLock *l, const char *why) {
        if (!l->lost) {
                l->lost = strdup(why);
                log_warning("lost the lock of cluster '%s': %s", l->admin->cluster, why);
        }
}

static struct timespec mono_ts(double t) {
        struct timespec ts = { .tv_sec = (time_t) t };
        ts.tv_nsec = (long) ((t - (double) ts.tv_sec) * 1e9);
        return ts;
}

static void *renew_thread(void *userdata) {
        CephClusterLock *l = userdata;
        pthread_mutex_lock(&l->mu);
        /* every lease/3 from the start of the last good renewal (or of taking the lock),
         * not from its end: slow commands must not push renewals past the deadline */
        double next = l->renewed + l->lease / 3.0;
        while (!l->stop && !l->lost) {
                struct timespec until = mono_ts(next);
                while (!l->stop && clock_mono_sec() < next && pthread_cond_timedwait(&l->cv, &l->mu, &until) != ETIMEDOUT)
                        ;
                if (l->stop)
                        break;
                if (l->stalled) {
                        /* the test hook: no renewal any more, as if this thread hung; the
                         * deadline decides, as it would */
                        if (clock_mono_sec() > l->deadline) {
                                lose(l, "the lease ran out before it could be renewed");
                                break;
                        }
                        next = clock_mono_sec() + 0.1;
                        continue;
                }
                double t0 = clock_mono_sec();
                time_t w0 = time(NULL);
                if (t0 > l->deadline) {
                        lose(l, "the lease ran out before it could be renewed");
                        break;
                }
                pthread_mutex_unlock(&l->mu);

                /* ours still? then extend; a failed call is retried a second later, the
                 * deadline decides when to give up */
                _cleanup_(freep) char *key = NULL;
                Error e = {};
                int r = entity_key(l->admin, l->entity, &key, &e);
                bool gone = r >= 0 && !streq_ptr(key, l->key);
                if (r >= 0 && !gone)
                        r = write_record(l, w0, &e);

                pthread_mutex_lock(&l->mu);
                if (gone)
                        lose(l, key ? "another controller holds it now" : "its entity was removed (cephprov lock break?)");
                else if (r < 0) {
                        log_warning("cannot renew the lock of cluster '%s' (retrying): %s", l->admin->cluster, e.message);
                        next = clock_mono_sec() + 1;
                } else if (clock_mono_sec() < l->deadline) {
                        l->deadline = t0 + l->lease - lease_margin(l->lease);
                        l->renewed = t0;
                        next = t0 + l->lease / 3.0;
                } else
                        lose(l, "the renewal came too late");
        }
        pthread_mutex_unlock(&l->mu);
        return NULL;
}

/* Stops the renewal thread, if it runs, and waits for it. */
static void renew_thread_stop(CephClusterLock *l) {
        if (!l->thread_started)
                return;
        pthread_mutex_lock(&l->mu);
        l->stop = true;
        pthread_cond_broadcast(&l->cv);
        pthread_mutex_unlock(&l->mu);
        pthread_join(l->thread, NULL);
        l->thread_started = false;
}

static CephClusterLock *lock_free(CephClusterLock *l) {
        if (!l)
                return NULL;
        renew_thread_stop(l);
        ceph_admin_close(l->admin);
        free(l->entity);
        free(l->takeover);
        free(l->record);
        free(l->key);
        free(l->keyring);
        free(l->command);
        free(l->lost);
        free(l->token_path);
        free(l->dead_key);
        free(l->outlived_by);
        pthread_mutex_destroy(&l->mu);
        pthread_cond_destroy(&l->cv);
        free(l);
        return NULL;
}
DEFINE_TRIVIAL_CLEANUP_FUNC(CephClusterLock *, lock_free);

/* A takeover of the lock whose entity carries `stale_key` (its lease over): under the
 * takeover entity, so only one controller at a time replaces it. 1 when it is ours now, 0
 * when the lock changed meanwhile (the caller looks again), EBUSY when another takeover is
 * under way. */
static int take_over(CephClusterLock *l, const char *stale_key, const CephLock *stale, bool dead, Error *err) {
        CephAdmin *a = l->admin;
        const CephCli *cli = ceph_admin_cli(a);
        _cleanup_(freep) char *tk = ceph_keyring_format(l->takeover, l->key);
        if (!tk)
                return error_set(err, ENOMEM, "out of memory");
        Error e = {};
        int r = run(a, ceph_argv_auth_add(cli, l->takeover, &e), tk, NULL, &e);
        if (r == -EEXIST) {
                _cleanup_(freep) char *other = NULL;
                _cleanup_(ceph_lock_freep) CephLock *orec = NULL;
                Error e2 = {};
                if (entity_key(a, l->takeover, &other, &e2) >= 0 && other)
                        (void) read_record(a, other, &orec, &e2);
                _cleanup_(freep) char *m = describe(a->cluster, "being taken over", orec);
                return error_set(err, EBUSY, "%s%s", m ? m : "",
                                 record_expired(orec) ? "; that takeover did not finish: if its controller is gone, "
                                                        "remove the lock with 'cephprov lock break LAYOUT'"
                                                      : "");
        }
        if (r < 0)
                return error_set(err, -r, "%s", e.message);

        /* Under the takeover entity: is it still the same expired lock? (a holder never
         * writes after its own deadline, which is before the expiry we saw) */
        _cleanup_(freep) char *now_key = NULL;
        _cleanup_(ceph_lock_freep) CephLock *now_rec = NULL;
        r = entity_key(a, l->entity, &now_key, err);
        if (r >= 0 && streq_ptr(now_key, stale_key))
                r = read_record(a, stale_key, &now_rec, err);
        int result = 0;
        if (r >= 0 && streq_ptr(now_key, stale_key) && (dead || record_expired(now_rec))) {
                r = run(a, ceph_argv_auth_rm(cli, l->entity, err), NULL, NULL, err);
                if (r >= 0) {
                        r = run(a, ceph_argv_auth_add(cli, l->entity, &e), l->keyring, NULL, &e);
                        if (r >= 0)
                                result = 1;
                        else if (r == -EEXIST)
                                r = 0; /* a newcomer took the free lock: it is theirs */
                        else
                                error_set(err, -r, "%s", e.message);
                }
        }
        Error e3 = {};
        if (run(a, ceph_argv_auth_rm(cli, l->takeover, &e3), NULL, NULL, &e3) < 0)
                log_warning("cannot remove '%s' after a takeover: %s", l->takeover, e3.message);
        if (r < 0)
                return r;
        if (result) {
                char until[32];
                iso(stale ? (time_t) stale->expires : 0, until);
                if (dead)
                        log_notice("took over the lock of cluster '%s' from cephprov pid %d (%s), a run of this state "
                                   "directory that died holding it",
                                   a->cluster, stale ? stale->pid : 0, stale && stale->command ? stale->command : "?");
                else
                        log_notice("took over the lock of cluster '%s' from cephprov on '%s' (pid %d, %s), whose lease ended %s",
                                   a->cluster, stale ? stale->host : "?", stale ? stale->pid : 0,
                                   stale && stale->command ? stale->command : "?", stale ? until : "(no record)");
                _cleanup_(freep) char *srk = ceph_lock_record_key(a->cluster, stale_key, NULL);
                if (srk)
                        remove_record(a, srk);
        }
        return result;
}

int cluster_lock_wait(unsigned *ret, Error *err) {
        const char *e = getenv("CEPHPROV_LOCK_WAIT");
        char *end = NULL;
        errno = 0;
        long v = isempty(e) ? 0 : strtol(e, &end, 10);
        if (!isempty(e) && (errno || *end || v < 0 || v > 86400))
                return error_set(err, EINVAL, "CEPHPROV_LOCK_WAIT: invalid time '%s': expected whole seconds from 0 to 86400", e);
        *ret = (unsigned) v;
        return 0;
}

static int lock_once(CephClusterLock *l, Error *err);

/* The key in a token file: NULL when there is none (or it is unreadable: then there is no
 * proof, and a held lock is waited for as any other). */
static char *token_read(const char *path) {
        _cleanup_(fclosep) FILE *f = path ? fopen(path, "re") : NULL;
        char buf[256];
        if (!f || !fgets(buf, sizeof buf, f))
                return NULL;
        buf[strcspn(buf, "\r\n")] = 0;
        return buf[0] ? strdup(buf) : NULL;
}

/* Written whole (temporary file, fsync, rename) and private: it is the owner token. */
static int token_write(const char *path, const char *key, Error *err) {
        _cleanup_(freep) char *tmp = strprintf("%s.tmp", path);
        if (!tmp)
                return error_set(err, ENOMEM, "out of memory");
        _cleanup_(closep) int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return error_set(err, errno, "cannot write '%s': %m", tmp);
        size_t n = strlen(key);
        if (write(fd, key, n) != (ssize_t) n || write(fd, "\n", 1) != 1 || fsync(fd) < 0 || rename(tmp, path) < 0) {
                int e = errno ? errno : EIO;
                (void) unlink(tmp);
                return error_set(err, e, "cannot write '%s': %s", path, strerror(e));
        }
        return 0;
}

/* The monitors' clock against ours, before the lock is taken: a lease record's `expires` is
 * the writer's wall clock, read by other controllers against theirs, so a clock off by more
 * than the margin (a quarter of the lease) would let a lease be taken over while its holder
 * still acts, or kept long after its holder died. The monitors are the one clock every
 * controller of the cluster talks to: `ceph report`'s "timestamp" is the answering monitor's
 * clock (Pacific, Reef and Tentacle alike); `time-sync-status` only compares monitors with
 * each other, and `status`/`health` carry no current time. */
static int check_skew(CephClusterLock *l, Error *err) {
        CephAdmin *a = l->admin;
        _cleanup_(freep) char *out = NULL;
        double sent = clock_wall_sec();
        int r = run(a, ceph_argv_report(ceph_admin_cli(a), err), NULL, &out, err);
        double answered = clock_wall_sec();
        if (r < 0)
                return error_prefix(err, r, "cannot read the monitors' clock of cluster '%s'", a->cluster);
        double mon = 0, skew = 0;
        Error e = {};
        if ((r = ceph_report_time_parse(out, &mon, &e)) < 0)
                return error_set(err, -r, "cannot read the monitors' clock of cluster '%s': %s", a->cluster, e.message);
        if ((r = ceph_lock_skew_check(sent, answered, mon, l->lease, &skew, &e)) < 0)
                return error_set(err, -r, "not taking the lock of cluster '%s': %s", a->cluster, e.message);
        log_debug("cluster '%s': the monitors' clock is %+.2f s from ours (asked within %.2f s)", a->cluster, skew,
                  answered - sent);
        return 0;
}

int ceph_cluster_lock(const Layout *layout, const char *command, const char *token_path, CephClusterLock **ret,
                      Error *err) {
        _cleanup_(lock_freep) CephClusterLock *l = calloc(1, sizeof(CephClusterLock));
        if (!l)
                return error_set(err, ENOMEM, "out of memory");
        pthread_mutex_init(&l->mu, NULL);
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&l->cv, &ca);
        pthread_condattr_destroy(&ca);
        int r = cluster_lock_lease(&l->lease, err);
        if (r < 0)
                return r;
        if (gethostname(l->host, sizeof(l->host) - 1) < 0 || !l->host[0])
                snprintf(l->host, sizeof(l->host), "localhost");
        r = ceph_admin_open(layout, &l->admin, err);
        if (r < 0)
                return r;
        CephAdmin *a = l->admin;

        /* the owner token: a fresh cephx key, known only to this run */
        uint8_t secret[CEPH_LOCK_SECRET_SIZE];
        if (getrandom(secret, sizeof secret, 0) != (ssize_t) sizeof secret)
                return error_set(err, errno ? errno : EIO, "cannot make a lock token: %m");
        l->since = time(NULL);
        l->key = ceph_cephx_key_format(secret, (uint32_t) l->since);
        explicit_bzero(secret, sizeof secret);
        l->command = strdup(command ? command : "?");
        if (!l->key || !l->command)
                return error_set(err, ENOMEM, "out of memory");
        if (!(l->entity = ceph_lock_entity(a->cluster, err)) || !(l->takeover = ceph_lock_takeover_entity(a->cluster, err)) ||
            !(l->record = ceph_lock_record_key(a->cluster, l->key, err)))
                return -err->code;
        if (!(l->keyring = ceph_keyring_format(l->entity, l->key)))
                return error_set(err, ENOMEM, "out of memory");

        if (token_path) {
                if (!(l->token_path = strdup(token_path)))
                        return error_set(err, ENOMEM, "out of memory");
                l->dead_key = token_read(token_path);
        }

        if ((r = check_skew(l, err)) < 0)
                return r;
        const char *hook = getenv("CEPHPROV_TEST_LEASE_OUTLIVED_BY");
        if (!isempty(hook) && !(l->outlived_by = strdup(hook)))
                return error_set(err, ENOMEM, "out of memory");

        unsigned wait = 0;
        if ((r = cluster_lock_wait(&wait, err)) < 0)
                return r;
        double give_up = clock_mono_sec() + wait;
        for (bool told = false;;) {
                Error e = {};
                r = lock_once(l, &e);
                if (r != -EBUSY || clock_mono_sec() + 2 > give_up) {
                        if (r < 0)
                                return error_set(err, -r, "%s", e.message);
                        break;
                }
                if (!told)
                        log_notice("%s; waiting up to %u s for it", e.message, wait);
                told = true;
                sleep(2);
        }

        l->held = true;
        if (l->token_path && (r = token_write(l->token_path, l->key, err)) < 0) {
                l = ceph_cluster_unlock(TAKE_PTR(l));
                return r;
        }
        r = pthread_create(&l->thread, NULL, renew_thread, l);
        if (r != 0) {
                l = ceph_cluster_unlock(TAKE_PTR(l));
                return error_set(err, r, "cannot start the lock renewal: %s", strerror(r));
        }
        l->thread_started = true;
        log_info("locked cluster '%s' (lease %u s, renewed every %u s)", a->cluster, l->lease, l->lease / 3);
        *ret = TAKE_PTR(l);
        return 0;
}

/* One try: 0 when the lock is ours (l->deadline set), EBUSY when someone else's. */
static int lock_once(CephClusterLock *l, Error *err) {
        CephAdmin *a = l->admin;
        int r;
        _cleanup_(freep) char *seen_without_record = NULL;
        for (unsigned attempt = 0; attempt < 5; attempt++) {
                /* the record first, so that an entity never exists without one */
                double t0 = clock_mono_sec();
                r = write_record(l, time(NULL), err);
                if (r < 0)
                        return error_prefix(err, r, "cannot write the lease of the lock of cluster '%s'", a->cluster);
                Error e = {};
                r = run(a, ceph_argv_auth_add(ceph_admin_cli(a), l->entity, &e), l->keyring, NULL, &e);
                if (r >= 0) {
                        l->renewed = t0;
                        l->deadline = t0 + l->lease - lease_margin(l->lease);
                        return 0;
                }
                if (r != -EEXIST) {
                        remove_record(a, l->record);
                        return error_set(err, -r, "cannot take the lock of cluster '%s': %s", a->cluster, e.message);
                }

                /* someone's: whose, and is its lease over? */
                _cleanup_(freep) char *hkey = NULL;
                _cleanup_(ceph_lock_freep) CephLock *hrec = NULL;
                if ((r = entity_key(a, l->entity, &hkey, err)) < 0 || (hkey && (r = read_record(a, hkey, &hrec, err)) < 0)) {
                        remove_record(a, l->record);
                        return r;
                }
                if (!hkey)
                        continue; /* released meanwhile */
                if (!hrec && !streq_ptr(seen_without_record, hkey)) {
                        /* its release may be under way (entity first, then record): look again */
                        free(seen_without_record);
                        seen_without_record = TAKE_PTR(hkey);
                        sleep(1);
                        continue;
                }
                /* The key a run of our state directory left behind: that run is dead (we hold
                         * its local lock, which the kernel released when it died), so its lease
                         * protects nobody — no need to wait for it to run out. */
                bool dead = l->dead_key && streq(hkey, l->dead_key);
                if (!dead && !record_expired(hrec)) {
                        remove_record(a, l->record);
                        _cleanup_(freep) char *m = describe(a->cluster, "locked", hrec);
                        return error_set(err, EBUSY, "%s: another controller acts on it", m ? m : "");
                }
                r = take_over(l, hkey, hrec, dead, err);
                if (r < 0) {
                        remove_record(a, l->record);
                        return r;
                }
                if (r > 0) {
                        /* our record was written before the takeover began: renew it now */
                        double t1 = clock_mono_sec();
                        Error e2 = {};
                        if (write_record(l, time(NULL), &e2) < 0)
                                log_warning("cannot renew the lease of cluster '%s': %s", a->cluster, e2.message);
                        l->renewed = e2.code ? t0 : t1;
                        l->deadline = l->renewed + l->lease - lease_margin(l->lease);
                        return 0;
                }
        }
        remove_record(a, l->record);
        return error_set(err, EBUSY, "cluster '%s': the lock changed hands 5 times while taking it; try again", a->cluster);
}

int ceph_cluster_lock_check(CephClusterLock *l, Error *err) {
        if (!l)
                return 0;
        pthread_mutex_lock(&l->mu);
        if (!l->lost && clock_mono_sec() > l->deadline)
                lose(l, "the lease ran out before it could be renewed");
        int r = 0;
        if (l->lost)
                r = error_set(err, ENOLCK, "lost the lock of cluster '%s' (%s): stopping before the next change",
                              l->admin->cluster, l->lost);
        pthread_mutex_unlock(&l->mu);
        return r;
}

int ceph_cluster_lock_left_ms(CephClusterLock *l, int64_t *ret_ms, Error *err) {
        if (!l) {
                *ret_ms = -1;
                return 0;
        }
        pthread_mutex_lock(&l->mu);
        double now = clock_mono_sec();
        if (!l->lost && now > l->deadline)
                lose(l, "the lease ran out before it could be renewed");
        int r = 0;
        int64_t left = l->lost ? 0 : ceph_lock_lease_left_ms(now, l->deadline);
        if (!l->lost && left <= 0)
                lose(l, "the lease ran out before it could be renewed");
        if (l->lost)
                r = error_set(err, ENOLCK, "lost the lock of cluster '%s' (%s): stopping before the next change",
                              l->admin->cluster, l->lost);
        else
                *ret_ms = left;
        pthread_mutex_unlock(&l->mu);
        return r;
}

void ceph_cluster_lock_op_done(CephClusterLock *l, const char *op) {
        if (!l || !l->outlived_by || !streq(l->outlived_by, op))
                return;
        pthread_mutex_lock(&l->mu);
        free(l->outlived_by);
        l->outlived_by = NULL;
        l->stalled = true;
        double deadline = l->deadline;
        pthread_cond_broadcast(&l->cv);
        pthread_mutex_unlock(&l->mu);
        log_warning("test hook CEPHPROV_TEST_LEASE_OUTLIVED_BY=%s: no more renewals of the lock; waiting %.1f s "
                    "until its lease has run out, as after an op that outlasted it", op, deadline - clock_mono_sec());
        while (clock_mono_sec() <= deadline + 0.05)
                usleep(50 * 1000);
}

static int lock_release(CephClusterLock *l, Error *err) {
        if (!l || !l->held)
                return 0;
        renew_thread_stop(l);
        l->held = false;
        const char *c = l->admin->cluster;
        if (l->lost)
                return error_set(err, ENOLCK, "not releasing the lock of cluster '%s': it was lost (%s)", c, l->lost);

        /* Remove only our own entity, and only while our lease holds: nobody may take it over
         * before then, so between the check and `auth rm` it stays ours. */
        _cleanup_(freep) char *key = NULL;
        Error e = {};
        int r = entity_key(l->admin, l->entity, &key, &e);
        if (r < 0)
                return error_set(err, -r, "cannot release the lock of cluster '%s': %s", c, e.message);
        if (!streq_ptr(key, l->key))
                return error_set(err, ENOLCK, "not releasing the lock of cluster '%s': it is no longer ours", c);
        if (clock_mono_sec() >= l->deadline)
                return error_set(err, ENOLCK,
                                 "not releasing the lock of cluster '%s': our lease ran out (it is free once expired)", c);
        r = run(l->admin, ceph_argv_auth_rm(ceph_admin_cli(l->admin), l->entity, &e), NULL, NULL, &e);
        if (r < 0)
                return error_set(err, -r, "cannot release the lock of cluster '%s': %s", c, e.message);
        remove_record(l->admin, l->record);
        return 0;
}

/* The token file goes once the lock is released or lost: then nothing of ours is left to
 * take over. After a failure to reach the cluster it stays, for the next run. */
int ceph_cluster_lock_release(CephClusterLock *l, Error *err) {
        if (!l || !l->held)
                return 0;
        int r = lock_release(l, err);
        if ((r >= 0 || r == -ENOLCK) && l->token_path)
                (void) unlink(l->token_path);
        return r;
}

CephClusterLock *ceph_cluster_unlock(CephClusterLock *l) {
        Error e = {};
        if (ceph_cluster_lock_release(l, &e) < 0)
                log_warning("%s", e.message);
        return lock_free(l);
}

void cluster_lock_status_done(ClusterLockStatus *s) {
        free(s->key_id);
        ceph_lock_free(s->record);
        ceph_lock_free(s->takeover_record);
        free(s->message);
        *s = (ClusterLockStatus) {};
}

int cluster_lock_status(CephAdmin *a, ClusterLockStatus *ret, Error *err) {
        _cleanup_(freep) char *entity = ceph_lock_entity(a->cluster, err), *takeover = NULL, *key = NULL, *tkey = NULL;
        if (!entity || !(takeover = ceph_lock_takeover_entity(a->cluster, err)))
                return -err->code;
        ClusterLockStatus s = {};
        int r = entity_key(a, entity, &key, err);
        if (r >= 0 && key)
                r = read_record(a, key, &s.record, err);
        if (r >= 0)
                r = entity_key(a, takeover, &tkey, err);
        if (r >= 0 && tkey)
                r = read_record(a, tkey, &s.takeover_record, err);
        if (r < 0) {
                cluster_lock_status_done(&s);
                return r;
        }
        s.held = key != NULL;
        s.takeover = tkey != NULL;
        s.expired = s.held && record_expired(s.record);
        if (s.held) {
                _cleanup_(freep) char *rk = ceph_lock_record_key(a->cluster, key, NULL);
                const char *slash = rk ? strrchr(rk, '/') : NULL;
                s.key_id = slash ? strdup(slash + 1) : NULL;
                _cleanup_(freep) char *d = describe(a->cluster, "locked", s.record);
                s.message = strprintf("%s%s", d ? d : "", s.expired ? ": the lease is over, the next controller takes it over" : "");
        } else
                s.message = strprintf("cluster '%s' is not locked", a->cluster);
        if (s.takeover && s.message) {
                _cleanup_(freep) char *d = describe(a->cluster, "being taken over", s.takeover_record), *m = s.message;
                s.message = strprintf("%s; %s", m, d ? d : "");
        }
        if (!s.message) {
                cluster_lock_status_done(&s);
                return error_set(err, ENOMEM, "out of memory");
        }
        *ret = s;
        return 0;
}

int cluster_lock_break(CephAdmin *a, unsigned *ret_removed, Error *err) {
        const CephCli *cli = ceph_admin_cli(a);
        _cleanup_(freep) char *entity = ceph_lock_entity(a->cluster, err), *takeover = NULL, *prefix = NULL, *out = NULL;
        if (!entity || !(takeover = ceph_lock_takeover_entity(a->cluster, err)) ||
            !(prefix = ceph_lock_record_prefix(a->cluster, err)))
                return -err->code;
        unsigned n = 0;
        const char *ents[] = { entity, takeover };
        for (size_t i = 0; i < ELEMENTSOF(ents); i++) {
                _cleanup_(freep) char *key = NULL;
                int r = entity_key(a, ents[i], &key, err);
                if (r >= 0 && key && (r = run(a, ceph_argv_auth_rm(cli, ents[i], err), NULL, NULL, err)) >= 0)
                        n++;
                if (r < 0)
                        return r;
        }
        int r = run(a, ceph_argv_config_key_ls(cli, err), NULL, &out, err);
        if (r < 0)
                return r;
        _cleanup_strv_free_ char **keys = NULL;
        Error e = {};
        r = ceph_config_key_ls_parse(out, &keys, &e);
        if (r < 0)
                return error_set(err, -r, "%s", e.message);
        for (char **k = keys; *k; k++)
                if (strncmp(*k, prefix, strlen(prefix)) == 0) {
                        r = run(a, ceph_argv_config_key_rm(cli, *k, err), NULL, NULL, err);
                        if (r < 0)
                                return r;
                        n++;
                }
        *ret_removed = n;
        return 0;
}
