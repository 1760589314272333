/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Where RADOS puts an object: the placement seed (the PG within its pool) that Ceph computes
 * from the object's name, so that cephprov can name probe objects that land on chosen PGs
 * without asking the cluster object by object. Pure. The same arithmetic as Ceph's
 * `ceph_str_hash_rjenkins` (common/ceph_hash.cc, Robert Jenkins' public-domain hash) and
 * `ceph_stable_mod` (include/rados.h) for a pool with the default object hash (rjenkins) and
 * no namespace or locator key; tests/data/ceph/osdmaptool-map-object.txt holds what Ceph's
 * own `osdmaptool --test-map-object` answered for names of every length class. */

#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"

uint32_t ceph_str_hash_rjenkins(const char *s, size_t len);

/* x mod b for a b that grows one PG at a time: bmask is the next power of two less one */
uint32_t ceph_stable_mod(uint32_t x, uint32_t b, uint32_t bmask);

/* The placement seed of object `name` in a pool of `pg_num` PGs (pg_num ≥ 1): the PG is
 * POOL.SEED in hex */
uint32_t ceph_object_pg_seed(const char *name, uint32_t pg_num);

/* Object names "PREFIX-K" (K = 0, 1, ...: the first that fit) such that each of the pool's
 * `pg_num` PGs holds exactly `per_pg` of them, in PG order: a probe that visits them in turn
 * meets every PG, and so every OSD that is the primary of one, equally often. EINVAL for a
 * pg_num of 0 or above 65536, a per_pg of 0 or above 64; ENOMEM. NULL-terminated. */
int ceph_object_names_per_pg(const char *prefix, uint32_t pg_num, unsigned per_pg, char ***ret, Error *err);
