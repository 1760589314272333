/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The names of the preflight op's needs (docs/agent.md): the agent checks them, the
 * controller sends the ones its steps need (agent_step_needs(), controller/step-requests.h). */

#include <json-c/json.h>

/* What a host must have for a step to run there. The controller sends the union over a
 * host's planned steps to the agent's "preflight" op, which checks each before any step of
 * the host runs (docs/agent.md), so a host that lacks one is refused untouched instead of
 * failing half-way (partitions made, then every bcache step failing). */
typedef enum AgentNeed {
        AGENT_NEED_LIBPARTED     = 1 << 0, /* create-gpt, create-partition: libparted (dlopen) */
        AGENT_NEED_BCACHE        = 1 << 1, /* the kernel's bcache (/sys/fs/bcache), modprobe'd if need be */
        AGENT_NEED_MAKE_BCACHE   = 1 << 2, /* bcache-tools' make-bcache in PATH */
        AGENT_NEED_UDEV_RULES    = 1 << 3, /* bcache-tune: a writable udev rules directory */
        AGENT_NEED_CEPH_VOLUME   = 1 << 4, /* osd-create: ceph-volume in PATH */
        AGENT_NEED_CEPH_OSD      = 1 << 5, /* ceph-volume runs ceph-osd --mkfs */
        AGENT_NEED_SYSTEMCTL     = 1 << 6, /* osd-create starts ceph-osd@N with systemctl */
        AGENT_NEED_OSD_KEYRING   = 1 << 7, /* ceph-volume's `osd new`: the bootstrap-osd keyring */
        AGENT_NEED_DMCRYPT       = 1 << 8, /* osd-create encrypted: cryptsetup in PATH, dm-crypt in the kernel */
        _AGENT_NEED_ALL          = (1 << 9) - 1,
} AgentNeed;

/* "libparted", "bcache", "make-bcache", "udev-rules", "ceph-volume", "ceph-osd",
 * "systemctl", "bootstrap-osd-keyring", "dmcrypt"; NULL for anything but a single bit. */
const char *agent_need_to_string(AgentNeed n);
/* The bit named `s`, or 0 when unknown. */
AgentNeed agent_need_from_string(const char *s);
/* A JSON array of the names of the bits in `needs`, in bit order. */
json_object *agent_needs_to_json(unsigned needs);
