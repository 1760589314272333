/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Object → placement seed, as RADOS computes it (ceph-hash.h). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/strv.h"
#include "ceph-hash.h"

/* Robert Jenkins' 96-bit mix (http://burtleburtle.net/bob/hash/evahash.html, public domain) */
#define MIX(a, b, c) \
        do { \
                a -= b; a -= c; a ^= c >> 13; \
                b -= c; b -= a; b ^= a << 8; \
                c -= a; c -= b; c ^= b >> 13; \
                a -= b; a -= c; a ^= c >> 12; \
                b -= c; b -= a; b ^= a << 16; \
                c -= a; c -= b; c ^= b >> 5; \
                a -= b; a -= c; a ^= c >> 3; \
                b -= c; b -= a; b ^= a << 10; \
                c -= a; c -= b; c ^= b >> 15; \
        } while (0)

static uint32_t le32(const unsigned char *k) {
        return (uint32_t) k[0] | (uint32_t) k[1] << 8 | (uint32_t) k[2] << 16 | (uint32_t) k[3] << 24;
}

uint32_t ceph_str_hash_rjenkins(const char *s, size_t length) {
        const unsigned char *k = (const unsigned char *) s;
        uint32_t a = 0x9e3779b9, b = a, c = 0;
        size_t len = length;
        while (len >= 12) {
                a += le32(k);
                b += le32(k + 4);
                c += le32(k + 8);
                MIX(a, b, c);
                k += 12;
                len -= 12;
        }
        c += (uint32_t) length;
        /* the last 11 bytes; c's lowest byte is the length's */
        /* the last 0..11 bytes (c's lowest byte is the length's): a switch that falls through
         * in Ceph's code, each byte added when there is one */
        static const uint8_t word[11] = { 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2 };
        static const uint8_t shift[11] = { 0, 8, 16, 24, 0, 8, 16, 24, 8, 16, 24 };
        uint32_t *w[3] = { &a, &b, &c };
        for (size_t i = 0; i < len; i++)
                *w[word[i]] += (uint32_t) k[i] << shift[i];
        MIX(a, b, c);
        return c;
}

uint32_t ceph_stable_mod(uint32_t x, uint32_t b, uint32_t bmask) {
        return (x & bmask) < b ? x & bmask : x & (bmask >> 1);
}

uint32_t ceph_object_pg_seed(const char *name, uint32_t pg_num) {
        uint32_t mask = 1;
        while (mask < pg_num)
                mask <<= 1;
        return ceph_stable_mod(ceph_str_hash_rjenkins(name, strlen(name)), pg_num, mask - 1);
}

int ceph_object_names_per_pg(const char *prefix, uint32_t pg_num, unsigned per_pg, char ***ret, Error *err) {
        if (pg_num == 0 || pg_num > 65536 || per_pg == 0 || per_pg > 64)
                return error_set(err, EINVAL, "object names: %u PGs and %u objects per PG: out of range "
                                 "(1..65536 PGs, 1..64 per PG)", pg_num, per_pg);
        const size_t n = (size_t) pg_num * per_pg;
        _cleanup_(freep) unsigned *count = calloc(pg_num, sizeof(unsigned));
        _cleanup_(freep) char **byseed = calloc(n, sizeof(char *));
        if (!count || !byseed)
                return -ENOMEM;
        size_t found = 0;
        int r = 0;
        /* each candidate lands on a uniform PG: ~pg_num × ln(pg_num) tries fill them all; the
         * bound is far above that and only guards against a broken hash */
        for (uint64_t k = 0; found < n && k < (uint64_t) n * 4096; k++) {
                char *name = strprintf("%s-%llu", prefix, (unsigned long long) k);
                if (!name) {
                        r = -ENOMEM;
                        break;
                }
                uint32_t seed = ceph_object_pg_seed(name, pg_num);
                if (count[seed] == per_pg) {
                        free(name);
                        continue;
                }
                byseed[(size_t) seed * per_pg + count[seed]++] = name;
                found++;
        }
        if (r >= 0 && found < n)
                r = error_set(err, EIO, "object names: no name '%s-K' found for every one of %u PGs", prefix, pg_num);
        if (r < 0) {
                for (size_t i = 0; i < n; i++)
                        free(byseed[i]);
                return r;
        }
        char **v = calloc(n + 1, sizeof(char *));
        if (!v) {
                for (size_t i = 0; i < n; i++)
                        free(byseed[i]);
                return -ENOMEM;
        }
        memcpy(v, byseed, n * sizeof(char *));
        *ret = v;
        return 0;
}
