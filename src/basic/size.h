/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KiB UINT64_C(1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)
#define TiB (GiB * 1024)

/* Parse a byte size: "30G", "60GiB", "512M", "1.5T", "4096", "4096B".
 * Suffixes K/M/G/T/P with optional "i" and "B" are powers of 1024 (as Ceph and
 * parted operators write them); "KB".."TB" (no i) are accepted as the same binary
 * units. Rejects negatives, empty strings, unknown suffixes, trailing garbage,
 * fractional byte counts and overflow with -EINVAL or -ERANGE. */
int size_parse(const char *s, uint64_t *ret);

/* Human form with binary units and up to one decimal ("30 GiB", "1.5 TiB",
 * "512 B"); exact values print without decimals. Writes into buf and returns it. */
const char *size_format(uint64_t bytes, char *buf, size_t len);

#define SIZE_FORMAT_MAX 32

/* A share: "25%" → 0.25. Rejects 0%, >100% and garbage. */
int share_parse(const char *s, double *ret);

/* Round up/down to a multiple of align (align must be a power of two). */
static inline uint64_t align_up(uint64_t v, uint64_t align) {
        return (v + align - 1) & ~(align - 1);
}
static inline uint64_t align_down(uint64_t v, uint64_t align) {
        return v & ~(align - 1);
}
