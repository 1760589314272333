/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cluster lock's pure parts: names, the lease record, cephx keys and keyrings, and the
 * answers of `auth get` and `config-key ls` (docs/ceph.md "The lock"). */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/json-util.h"
#include "basic/sha256.h"
#include "basic/strv.h"
#include "ceph-internal.h"
#include "ceph.h"

CephLock *ceph_lock_free(CephLock *l) {
        if (!l)
                return NULL;
        free(l->host);
        free(l->command);
        free(l->since);
        free(l);
        return NULL;
}

int ceph_lock_parse(const char *out, CephLock **ret, Error *err) {
        _cleanup_json_ json_object *o = NULL;
        int r = ceph_json_parse(out, "cephprov lock", &o, err);
        if (r < 0)
                return r;
        if (!json_object_is_type(o, json_type_object))
                return error_set(err, EINVAL, "cephprov lock: expected an object");
        const char *host;
        int64_t pid, expires;
        if ((r = json_get_string(o, "host", true, &host, "cephprov lock", err)) < 0 ||
            (r = json_get_int(o, "pid", true, &pid, "cephprov lock", err)) < 0 ||
            (r = json_get_int(o, "expires", true, &expires, "cephprov lock", err)) < 0)
                return r;
        if (isempty(host))
                return error_set(err, EINVAL, "cephprov lock: empty host");
        if (pid <= 0 || pid > INT32_MAX)
                return error_set(err, ERANGE, "cephprov lock: pid %" PRId64 " out of range", pid);
        if (expires < 0)
                return error_set(err, ERANGE, "cephprov lock: expires %" PRId64 " out of range", expires);

        _cleanup_(ceph_lock_freep) CephLock *l = calloc(1, sizeof(CephLock));
        if (!l)
                return -ENOMEM;
        l->host = strdup(host);
        l->pid = (int) pid;
        l->expires = expires;
        if (!l->host || ceph_json_dup_string(o, "command", &l->command) < 0 ||
            ceph_json_dup_string(o, "since", &l->since) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(l);
        return 0;
}

char *ceph_lock_format(const CephLock *l) {
        if (!l || isempty(l->host) || l->pid <= 0)
                return NULL;
        char at[32] = "";
        time_t t = (time_t) l->expires;
        struct tm tm;
        if (gmtime_r(&t, &tm))
                strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%SZ", &tm);
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o || json_add_string(o, "host", l->host) < 0 || json_add(o, "pid", json_object_new_int(l->pid)) < 0 ||
            json_add_string(o, "command", l->command) < 0 || json_add_string(o, "since", l->since) < 0 ||
            json_add(o, "expires", json_object_new_int64(l->expires)) < 0 || json_add_string(o, "expires_at", at) < 0)
                return NULL;
        return strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* PREFIX CLUSTER SUFFIX, for a valid cluster name */
static char *lock_name(const char *prefix, const char *cluster, const char *suffix, Error *err) {
        if (!ceph_name_is_valid(cluster)) {
                error_set(err, EINVAL, "invalid cluster name '%s' for the lock", strnull(cluster));
                return NULL;
        }
        char *n = strprintf("%s%s%s", prefix, cluster, suffix);
        if (!n)
                error_set(err, ENOMEM, "out of memory");
        return n;
}

char *ceph_lock_entity(const char *cluster, Error *err) {
        return lock_name("client.cephprov-lock.", cluster, "", err);
}

char *ceph_lock_takeover_entity(const char *cluster, Error *err) {
        return lock_name("client.cephprov-lock.", cluster, ".takeover", err);
}

char *ceph_lock_record_prefix(const char *cluster, Error *err) {
        return lock_name("cephprov/lock/", cluster, "/", err);
}

char *ceph_lock_record_key(const char *cluster, const char *key, Error *err) {
        if (isempty(key)) {
                error_set(err, EINVAL, "no key for the lock record of cluster '%s'", strnull(cluster));
                return NULL;
        }
        _cleanup_(freep) char *prefix = ceph_lock_record_prefix(cluster, err);
        if (!prefix)
                return NULL;
        uint8_t d[SHA256_DIGEST_SIZE];
        char hex[SHA256_DIGEST_SIZE * 2 + 1];
        sha256_buffer(key, strlen(key), d);
        sha256_to_hex(d, hex);
        char *k = strprintf("%s%.16s", prefix, hex);
        if (!k)
                error_set(err, ENOMEM, "out of memory");
        return k;
}

static void base64(const uint8_t *in, size_t n, char *out) {
        static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        size_t o = 0;
        for (size_t i = 0; i < n; i += 3) {
                uint32_t v = (uint32_t) in[i] << 16;
                if (i + 1 < n)
                        v |= (uint32_t) in[i + 1] << 8;
                if (i + 2 < n)
                        v |= in[i + 2];
                out[o++] = tab[(v >> 18) & 63];
                out[o++] = tab[(v >> 12) & 63];
                out[o++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
                out[o++] = i + 2 < n ? tab[v & 63] : '=';
        }
        out[o] = 0;
}

char *ceph_cephx_key_format(const uint8_t secret[CEPH_LOCK_SECRET_SIZE], uint32_t created) {
        /* CryptoKey::encode: u16 type (1 = AES), utime_t (u32 sec, u32 nsec), u16 length, bytes */
        uint8_t b[2 + 8 + 2 + CEPH_LOCK_SECRET_SIZE] = { 1, 0 };
        for (int i = 0; i < 4; i++)
                b[2 + i] = (uint8_t) (created >> (8 * i));
        b[10] = CEPH_LOCK_SECRET_SIZE;
        memcpy(b + 12, secret, CEPH_LOCK_SECRET_SIZE);
        char out[4 * ((sizeof b + 2) / 3) + 1];
        base64(b, sizeof b, out);
        return strdup(out);
}

char *ceph_keyring_format(const char *entity, const char *key) {
        if (isempty(entity) || isempty(key) || strpbrk(entity, "[]\n") || strpbrk(key, "\n"))
                return NULL;
        return strprintf("[%s]\n\tkey = %s\n", entity, key);
}

int ceph_auth_get_parse(const char *out, const char *entity, char **ret_key, size_t *ret_n_caps, Error *err) {
        _cleanup_json_ json_object *o = NULL;
        int r = ceph_json_parse_array(out, "auth get", &o, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < json_object_array_length(o); i++) {
                json_object *e = json_object_array_get_idx(o, i);
                const char *name, *key;
                if ((r = json_get_string(e, "entity", true, &name, "auth get", err)) < 0)
                        return r;
                if (!streq_ptr(name, entity))
                        continue;
                if ((r = json_get_string(e, "key", true, &key, "auth get", err)) < 0)
                        return r;
                if (isempty(key))
                        return error_set(err, EINVAL, "auth get: '%s' has an empty key", name);
                json_object *caps = json_object_object_get(e, "caps");
                char *k = strdup(key);
                if (!k)
                        return -ENOMEM;
                *ret_key = k;
                if (ret_n_caps)
                        *ret_n_caps = json_object_is_type(caps, json_type_object) ? (size_t) json_object_object_length(caps) : 0;
                return 0;
        }
        return error_set(err, ENOENT, "auth get: no entry for '%s'", strnull(entity));
}

bool ceph_answer_no_such_key(int exit_status, const char *err_text) {
        if (exit_status != ENOENT || !err_text)
                return false;
        err_text += strspn(err_text, "\n");
        return startswith(err_text, "Error ENOENT:");
}

int ceph_config_key_ls_parse(const char *out, char ***ret, Error *err) {
        _cleanup_json_ json_object *o = NULL;
        int r = ceph_json_parse_array(out, "config-key ls", &o, err);
        if (r < 0)
                return r;
        _cleanup_strv_free_ char **keys = calloc(1, sizeof(char *));
        if (!keys)
                return -ENOMEM;
        for (size_t i = 0; i < json_object_array_length(o); i++) {
                json_object *k = json_object_array_get_idx(o, i);
                if (!json_object_is_type(k, json_type_string))
                        return error_set(err, EINVAL, "config-key ls: entry %zu is not a string", i);
                if (strv_extend(&keys, json_object_get_string(k)) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(keys);
        return 0;
}

int ceph_lock_lease_parse(const char *s, unsigned *ret, Error *err) {
        char *end = NULL;
        errno = 0;
        long v = s ? strtol(s, &end, 10) : 0;
        if (isempty(s) || errno || *end || v < 2 || v > 3600)
                return error_set(err, EINVAL, "invalid lease '%s': expected whole seconds from 2 to 3600",
                                 strnull(s));
        *ret = (unsigned) v;
        return 0;
}

int64_t ceph_lock_lease_left_ms(double now, double deadline) {
        double left = (deadline - now) * 1000.0;
        if (!(left >= 1.0)) /* over, or NaN */
                return 0;
        if (left > (double) INT64_MAX / 2)
                return INT64_MAX / 2;
        return (int64_t) left; /* rounded down: never more than what is left */
}

int ceph_lock_skew_check(double sent, double answered, double mon, unsigned lease, double *ret_skew, Error *err) {
        if (answered < sent)
                answered = sent; /* our wall clock stepped back meanwhile: no window to speak of */
        double mid = (sent + answered) / 2, half = (answered - sent) / 2;
        double skew = mon - mid, least = (skew < 0 ? -skew : skew) - half;
        if (ret_skew)
                *ret_skew = skew;
        if (least > lease / 4.0) {
                char ours[32] = "", theirs[32] = "";
                struct tm tm;
                time_t a = (time_t) mid, b = (time_t) mon;
                if (gmtime_r(&a, &tm))
                        strftime(ours, sizeof ours, "%Y-%m-%dT%H:%M:%SZ", &tm);
                if (gmtime_r(&b, &tm))
                        strftime(theirs, sizeof theirs, "%Y-%m-%dT%H:%M:%SZ", &tm);
                return error_set(err, ETIME,
                                 "this machine's clock is %.1f s %s the monitors' (here %s, monitors %s, asked within "
                                 "%.1f s): more than a quarter of the lock's lease (%u s), so leases would be misread "
                                 "across controllers; fix the clock (NTP) before taking the lock",
                                 skew < 0 ? -skew : skew, skew < 0 ? "ahead of" : "behind", ours, theirs,
                                 answered - sent, lease);
        }
        return 0;
}

int ceph_time_parse(const char *s, double *ret) {
        int Y, M, D, h, m, sec, n = 0;
        if (!s || sscanf(s, "%4d-%2d-%2d%n", &Y, &M, &D, &n) != 3 || n != 10 || (s[10] != 'T' && s[10] != ' '))
                return -EINVAL;
        s += 11;
        if (sscanf(s, "%2d:%2d:%2d%n", &h, &m, &sec, &n) != 3 || n != 8)
                return -EINVAL;
        s += 8;
        double frac = 0;
        if (*s == '.') {
                double scale = 0.1;
                for (s++; *s >= '0' && *s <= '9'; s++, scale /= 10)
                        frac += (*s - '0') * scale;
        }
        long off = 0;
        if (*s == '+' || *s == '-') {
                int oh, om;
                if (strlen(s) == 5 && sscanf(s + 1, "%2d%2d", &oh, &om) == 2)
                        off = (oh * 3600L + om * 60L) * (*s == '-' ? -1 : 1);
                else if (strlen(s) == 6 && s[3] == ':' && sscanf(s + 1, "%2d:%2d", &oh, &om) == 2)
                        off = (oh * 3600L + om * 60L) * (*s == '-' ? -1 : 1);
                else
                        return -EINVAL;
        } else if (*s == 'Z')
                s++;
        else if (*s)
                return -EINVAL;
        if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60)
                return -EINVAL;
        struct tm tm = { .tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D, .tm_hour = h, .tm_min = m, .tm_sec = sec };
        time_t t = timegm(&tm);
        if (t == (time_t) -1)
                return -EINVAL;
        *ret = (double) t - (double) off + frac;
        return 0;
}

int ceph_report_time_parse(const char *out, double *ret, Error *err) {
        _cleanup_json_ json_object *o = NULL;
        int r = ceph_json_parse(out, "report", &o, err);
        if (r < 0)
                return r;
        json_object *ts = NULL;
        if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, "timestamp", &ts) ||
            !json_object_is_type(ts, json_type_string))
                return error_set(err, EBADMSG, "report: no \"timestamp\" (the monitor's clock)");
        if (ceph_time_parse(json_object_get_string(ts), ret) < 0)
                return error_set(err, EBADMSG, "report: cannot read the timestamp '%s'", json_object_get_string(ts));
        return 0;
}
