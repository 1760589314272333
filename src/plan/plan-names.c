/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The names the plan gives things: step kinds, partition roles, the identity of a device, and
 * the GPT names that mark a partition as cephprov's ("cp:<role>:@<tag>:<host>", and before
 * identity names "cp:<role>:<slot>:<host>"). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "basic/sha256.h"
#include "basic/strv.h"
#include "plan.h"

static const char *const step_kind_table[_STEP_KIND_MAX] = {
        [STEP_WIPE] = "wipe",
        [STEP_CREATE_GPT] = "create-gpt",
        [STEP_CREATE_PARTITION] = "create-partition",
        [STEP_MAKE_BCACHE_BACKING] = "make-bcache-backing",
        [STEP_MAKE_BCACHE_CACHE] = "make-bcache-cache",
        [STEP_BCACHE_ATTACH] = "bcache-attach",
        [STEP_BCACHE_TUNE] = "bcache-tune",
        [STEP_CREATE_OSD] = "create-osd",
};

const char *step_kind_to_string(StepKind k) {
        if ((unsigned) k >= _STEP_KIND_MAX)
                return NULL;
        return step_kind_table[k];
}

StepClass step_kind_class(StepKind k) {
        return k == STEP_CREATE_OSD ? STEP_CLASS_OSD : STEP_CLASS_DISK;
}

static const char *const part_role_table[_PART_ROLE_MAX_] = {
        [PART_ROLE_NONE] = "none",
        [PART_ROLE_DB] = "db",
        [PART_ROLE_WAL] = "wal",
        [PART_ROLE_CACHE] = "cache",
        [PART_ROLE_JOURNAL] = "journal",
};

const char *part_role_to_string(PartRole r) {
        if ((unsigned) r >= _PART_ROLE_MAX_)
                return NULL;
        return part_role_table[r];
}

static const char *const part_role_title_table[_PART_ROLE_MAX_] = {
        [PART_ROLE_DB] = "DB",
        [PART_ROLE_WAL] = "WAL",
        [PART_ROLE_CACHE] = "bcache cache",
        [PART_ROLE_JOURNAL] = "journal",
};

const char *part_role_title(PartRole r) {
        if ((unsigned) r >= _PART_ROLE_MAX_ || !part_role_title_table[r])
                return "?";
        return part_role_title_table[r];
}


char *plan_device_identity(const InvDevice *d) {
        /* one rule, shared with the agent's act-time check (docs/agent.md, "expect") */
        return inventory_device_identity(d);
}

void plan_device_tag(const InvDevice *d, char ret[static PLAN_TAG_MAX]) {
        _cleanup_(freep) char *id = plan_device_identity(d);
        _cleanup_(freep) char *path = id ? NULL : strprintf("path %s", d->path ?: "");
        const char *what = id ?: path ?: "";
        uint8_t digest[SHA256_DIGEST_SIZE];
        sha256_buffer(what, strlen(what), digest);
        ret[0] = '@';
        for (unsigned i = 0; i < 4; i++)
                snprintf(ret + 1 + 2 * i, 3, "%02x", digest[i]);
}

static char *name_cut(char *s) {
        if (s && strlen(s) > 36)
                s[36] = 0; /* GPT names hold 36 UTF-16 units; host names are ASCII */
        return s;
}

char *plan_partition_name(const char *host, PartRole role, const char *tag) {
        return name_cut(strprintf("cp:%s:%s:%s", part_role_to_string(role) ?: "none", tag ?: "", host ?: ""));
}

char *plan_partition_name_legacy(const char *host, PartRole role, unsigned slot) {
        return name_cut(strprintf("cp:%s:%u:%s", part_role_to_string(role) ?: "none", slot, host ?: ""));
}

bool plan_partition_name_parse(const char *name, PartRole *ret_role, unsigned *ret_slot, char ret_tag[PLAN_TAG_MAX]) {
        if (!name || !startswith(name, "cp:"))
                return false;
        const char *p = name + 3;
        const char *colon = strchr(p, ':');
        if (!colon)
                return false;
        PartRole role = PART_ROLE_NONE;
        for (unsigned i = PART_ROLE_DB; i < _PART_ROLE_MAX_; i++)
                if (strlen(part_role_table[i]) == (size_t) (colon - p) &&
                    strncmp(p, part_role_table[i], colon - p) == 0)
                        role = i;
        if (role == PART_ROLE_NONE)
                return false;
        p = colon + 1;
        unsigned long slot = UINT_MAX;
        char tag[PLAN_TAG_MAX] = "";
        if (*p == '@') {
                /* "@" and 8 lowercase hex digits: the data device's tag */
                for (unsigned i = 1; i <= 8; i++)
                        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
                                return false;
                if (p[9] != ':')
                        return false;
                memcpy(tag, p, 9);
                tag[9] = 0;
        } else {
                char *end;
                if (*p < '0' || *p > '9')
                        return false;
                errno = 0;
                slot = strtoul(p, &end, 10);
                if (errno != 0 || *end != ':' || slot >= UINT_MAX)
                        return false;
        }
        if (ret_role)
                *ret_role = role;
        if (ret_slot)
                *ret_slot = (unsigned) slot;
        if (ret_tag)
                memcpy(ret_tag, tag, PLAN_TAG_MAX);
        return true;
}
