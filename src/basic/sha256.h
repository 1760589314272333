/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* SHA-256 (FIPS 180-4), small and dependency-free: used for the agent's build hash
 * (the controller compares it with its own to decide whether to push the binary). */

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define SHA256_DIGEST_SIZE 32

typedef struct Sha256 {
        uint32_t state[8];
        uint64_t length;         /* bytes hashed so far */
        uint8_t buffer[64];
        size_t buffered;
} Sha256;

void sha256_init(Sha256 *c);
void sha256_update(Sha256 *c, const void *data, size_t len);
void sha256_final(Sha256 *c, uint8_t out[SHA256_DIGEST_SIZE]);

/* One-shot helpers; `hex` receives 64 lowercase hex digits and a NUL. */
void sha256_buffer(const void *data, size_t len, uint8_t out[SHA256_DIGEST_SIZE]);
void sha256_to_hex(const uint8_t digest[SHA256_DIGEST_SIZE], char hex[SHA256_DIGEST_SIZE * 2 + 1]);
/* Hash a file's content (or `length` bytes from `offset` of it when length > 0, for block
 * devices); errors name the file. */
int sha256_file(const char *path, uint64_t offset, uint64_t length,
                char hex[SHA256_DIGEST_SIZE * 2 + 1], Error *err);
