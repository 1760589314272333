/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Written from the FIPS 180-4 description; checked against the standard test vectors in
 * tests/block/test-agent-block.c (and against sha256sum there). */

static const uint32_t K[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t ror(uint32_t x, unsigned n) {
        return (x >> n) | (x << (32 - n));
}

static void sha256_block(Sha256 *c, const uint8_t *p) {
        uint32_t w[64];

        for (unsigned i = 0; i < 16; i++)
                w[i] = (uint32_t) p[4 * i] << 24 | (uint32_t) p[4 * i + 1] << 16 |
                       (uint32_t) p[4 * i + 2] << 8 | (uint32_t) p[4 * i + 3];
        for (unsigned i = 16; i < 64; i++) {
                uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
                uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
                w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }

        uint32_t a = c->state[0], b = c->state[1], cc = c->state[2], d = c->state[3],
                 e = c->state[4], f = c->state[5], g = c->state[6], h = c->state[7];
        for (unsigned i = 0; i < 64; i++) {
                uint32_t S1 = ror(e, 6) ^ ror(e, 11) ^ ror(e, 25);
                uint32_t ch = (e & f) ^ (~e & g);
                uint32_t t1 = h + S1 + ch + K[i] + w[i];
                uint32_t S0 = ror(a, 2) ^ ror(a, 13) ^ ror(a, 22);
                uint32_t maj = (a & b) ^ (a & cc) ^ (b & cc);
                uint32_t t2 = S0 + maj;
                h = g;
                g = f;
                f = e;
                e = d + t1;
                d = cc;
                cc = b;
                b = a;
                a = t1 + t2;
        }
        c->state[0] += a;
        c->state[1] += b;
        c->state[2] += cc;
        c->state[3] += d;
        c->state[4] += e;
        c->state[5] += f;
        c->state[6] += g;
        c->state[7] += h;
}

void sha256_init(Sha256 *c) {
        static const uint32_t H0[8] = {
                0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
        };
        memcpy(c->state, H0, sizeof(H0));
        c->length = 0;
        c->buffered = 0;
}

void sha256_update(Sha256 *c, const void *data, size_t len) {
        const uint8_t *p = data;

        c->length += len;
        if (c->buffered > 0) {
                size_t n = MIN(len, 64 - c->buffered);
                memcpy(c->buffer + c->buffered, p, n);
                c->buffered += n;
                p += n;
                len -= n;
                if (c->buffered < 64)
                        return;
                sha256_block(c, c->buffer);
                c->buffered = 0;
        }
        for (; len >= 64; p += 64, len -= 64)
                sha256_block(c, p);
        memcpy(c->buffer, p, len);
        c->buffered = len;
}

void sha256_final(Sha256 *c, uint8_t out[SHA256_DIGEST_SIZE]) {
        uint64_t bits = c->length * 8;
        uint8_t pad[72] = { 0x80 };
        size_t padlen = (c->buffered < 56 ? 56 : 120) - c->buffered;

        for (unsigned i = 0; i < 8; i++)
                pad[padlen + i] = (uint8_t) (bits >> (56 - 8 * i));
        uint64_t saved = c->length;
        sha256_update(c, pad, padlen + 8);
        c->length = saved;

        for (unsigned i = 0; i < 8; i++) {
                out[4 * i] = (uint8_t) (c->state[i] >> 24);
                out[4 * i + 1] = (uint8_t) (c->state[i] >> 16);
                out[4 * i + 2] = (uint8_t) (c->state[i] >> 8);
                out[4 * i + 3] = (uint8_t) c->state[i];
        }
}

void sha256_buffer(const void *data, size_t len, uint8_t out[SHA256_DIGEST_SIZE]) {
        Sha256 c;
        sha256_init(&c);
        sha256_update(&c, data, len);
        sha256_final(&c, out);
}

void sha256_to_hex(const uint8_t digest[SHA256_DIGEST_SIZE], char hex[SHA256_DIGEST_SIZE * 2 + 1]) {
        static const char digits[] = "0123456789abcdef";
        for (unsigned i = 0; i < SHA256_DIGEST_SIZE; i++) {
                hex[2 * i] = digits[digest[i] >> 4];
                hex[2 * i + 1] = digits[digest[i] & 15];
        }
        hex[SHA256_DIGEST_SIZE * 2] = 0;
}

int sha256_file(const char *path, uint64_t offset, uint64_t length,
                char hex[SHA256_DIGEST_SIZE * 2 + 1], Error *err) {
        _cleanup_(closep) int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return error_set(err, errno, "cannot open '%s': %s", path, strerror(errno));

        Sha256 c;
        sha256_init(&c);
        _cleanup_(freep) uint8_t *buf = malloc(1 << 16);
        if (!buf)
                return error_set(err, ENOMEM, "cannot hash '%s': out of memory", path);
        uint64_t done = 0;
        for (;;) {
                size_t want = 1 << 16;
                if (length > 0) {
                        if (done >= length)
                                break;
                        want = (size_t) MIN((uint64_t) want, length - done);
                }
                ssize_t n = pread(fd, buf, want, (off_t) (offset + done));
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return error_set(err, errno, "cannot read '%s': %s", path, strerror(errno));
                }
                if (n == 0) {
                        if (length > 0)
                                return error_set(err, EIO, "cannot read '%s': short file", path);
                        break;
                }
                sha256_update(&c, buf, (size_t) n);
                done += (uint64_t) n;
        }

        uint8_t d[SHA256_DIGEST_SIZE];
        sha256_final(&c, d);
        sha256_to_hex(d, hex);
        return 0;
}
