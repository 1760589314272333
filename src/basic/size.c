/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "size.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int suffix_factor(const char *s, uint64_t *ret) {
        static const struct {
                const char *suffix;
                uint64_t factor;
        } table[] = {
                { "",    1 },           { "B",   1 },
                { "K",   KiB },         { "KB",  KiB },  { "KiB", KiB },
                { "M",   MiB },         { "MB",  MiB },  { "MiB", MiB },
                { "G",   GiB },         { "GB",  GiB },  { "GiB", GiB },
                { "T",   TiB },         { "TB",  TiB },  { "TiB", TiB },
                { "P",   TiB * 1024 },  { "PB",  TiB * 1024 }, { "PiB", TiB * 1024 },
        };

        for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
                if (strcasecmp(s, table[i].suffix) == 0) {
                        *ret = table[i].factor;
                        return 0;
                }
        return -EINVAL;
}

int size_parse(const char *s, uint64_t *ret) {
        if (!s || !ret)
                return -EINVAL;

        while (isspace((unsigned char) *s))
                s++;
        if (!isdigit((unsigned char) *s))
                return -EINVAL; /* also rejects "-1", "+1", ".5", "" */

        const char *p = s;
        uint64_t whole = 0;
        while (isdigit((unsigned char) *p)) {
                unsigned d = (unsigned) (*p - '0');
                if (whole > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                whole = whole * 10 + d;
                p++;
        }

        /* Fraction: at most 9 digits kept, as numerator/denominator. */
        uint64_t frac = 0, denom = 1;
        bool has_frac = false;
        if (*p == '.') {
                p++;
                if (!isdigit((unsigned char) *p))
                        return -EINVAL;
                has_frac = true;
                while (isdigit((unsigned char) *p)) {
                        if (denom < UINT64_C(1000000000)) {
                                frac = frac * 10 + (unsigned) (*p - '0');
                                denom *= 10;
                        }
                        p++;
                }
        }

        while (*p == ' ')
                p++;

        char suffix[8];
        size_t n = strlen(p);
        while (n > 0 && isspace((unsigned char) p[n - 1]))
                n--;
        if (n >= sizeof(suffix))
                return -EINVAL;
        memcpy(suffix, p, n);
        suffix[n] = 0;

        uint64_t factor;
        if (suffix_factor(suffix, &factor) < 0)
                return -EINVAL;

        if (whole > UINT64_MAX / factor)
                return -ERANGE;
        uint64_t v = whole * factor;

        if (has_frac && frac > 0) {
                /* factor * frac / denom without overflow: factor ≤ 2^50, frac < 1e9 < 2^30 */
                long double part = (long double) factor * (long double) frac / (long double) denom;
                if (part != floorl(part))
                        return -EINVAL; /* fraction of a byte */
                if ((long double) (UINT64_MAX - v) < part)
                        return -ERANGE;
                v += (uint64_t) part;
        }

        *ret = v;
        return 0;
}

const char *size_format(uint64_t bytes, char *buf, size_t len) {
        static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
        unsigned u = 0;
        uint64_t div = 1;

        while (u + 1 < sizeof(units) / sizeof(units[0]) && bytes / div >= 1024) {
                div *= 1024;
                u++;
        }

        if (bytes % div == 0)
                snprintf(buf, len, "%llu %s", (unsigned long long) (bytes / div), units[u]);
        else
                snprintf(buf, len, "%.1f %s", (double) bytes / (double) div, units[u]);
        return buf;
}

int share_parse(const char *s, double *ret) {
        if (!s || !ret)
                return -EINVAL;

        char *end;
        errno = 0;
        if (!isdigit((unsigned char) *s))
                return -EINVAL;
        double v = strtod(s, &end);
        if (errno != 0 || end == s || *end != '%' || end[1] != 0)
                return -EINVAL;
        if (!(v > 0.0) || v > 100.0 || isnan(v))
                return -ERANGE;
        *ret = v / 100.0;
        return 0;
}
