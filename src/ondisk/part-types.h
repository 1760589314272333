/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* GPT partition type GUIDs cephprov writes and recognises: what the planner chooses and
 * the agent writes are one set of constants, below both. */

/* Ceph's GPT partition type GUIDs (ceph-disk's, still recognised by ceph-volume). */
#define CEPH_GUID_BLOCK_DB  "30cd0809-c2b2-499c-8879-2d6b78529876"
#define CEPH_GUID_BLOCK_WAL "5ce17fce-4087-4169-b7ff-056cc58473f9"
#define CEPH_GUID_JOURNAL   "45b0969e-9b03-4f30-b4c6-b4b80ceff106"
/* bcache's own GPT type (used by bcache-tools documentation and Arch/Gentoo) */
#define BCACHE_GUID         "c6b0f3a9-3ae3-4dd0-98bb-6e54b7b7b9f6"
#define LINUX_DATA_GUID     "0fc63daf-8483-4772-8e79-3d69d8477de4"
