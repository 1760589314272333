/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The dm-crypt (LUKS) mappings of ceph-volume's dmcrypt over a device cephprov is about to
 * tear down: an encrypted OSD's LV on /dev/bcacheN, its DB/WAL partitions. Stopping the OSD
 * leaves them open (as `systemctl stop ceph-osd@N` does on any host), and an open mapping
 * holds the device below it: LVM refuses to remove the LV, a partition cannot go. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent-internal.h"
#include "basic/json-util.h"
#include "basic/strv.h"

#define CRYPTSETUP_TIMEOUT 60

/* the last line of a command's stderr (or stdout), trimmed, for a message */
static char *last_words(const RunResult *rr) {
        const char *t = rr->err && rr->err[0] ? rr->err : (rr->out ? rr->out : "");
        _cleanup_(freep) char *m = strdup(t);
        if (!m)
                return NULL;
        size_t n = strlen(m);
        while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == ' '))
                m[--n] = 0;
        char *nl = strrchr(m, '\n');
        return nl ? strdup(nl + 1) : TAKE_PTR(m);
}

int dmcrypt_close_holders(AgentState *s, const char *name, json_object *closed, Error *err) {
        _cleanup_strv_free_ char **holders = block_holders(name);
        STRV_FOREACH(h, holders) {
                if (!startswith(*h, "dm-"))
                        continue;
                _cleanup_(freep) char *uuid = NULL, *dm_name = NULL;
                if (sysfs_read_string(*h, "dm/uuid", &uuid) < 0 || !startswith(uuid, "CRYPT-"))
                        continue;
                if (sysfs_read_string(*h, "dm/name", &dm_name) < 0 || isempty(dm_name))
                        return error_set(err, EIO, "cannot read the name of the dm-crypt mapping '%s' over '%s' on '%s'",
                                         *h, name, agent_host(s));
                _cleanup_strv_free_ char **above = block_holders(*h);
                if (above && above[0])
                        return error_set(err, EBUSY,
                                         "the dm-crypt mapping '%s' (%s) over '%s' on '%s' is held by '%s': not closed",
                                         dm_name, *h, name, agent_host(s), above[0]);
                if (s->dry_run) {
                        json_object_array_add(closed, json_object_new_string(dm_name));
                        continue;
                }
                /* cryptsetup refuses a mapping still open (a running OSD): that is the check */
                char *argv[] = { (char *) "cryptsetup", (char *) "close", dm_name, NULL };
                _cleanup_(run_result_done) RunResult rr = {};
                int r = agent_spawn(s, argv, NULL, NULL, CRYPTSETUP_TIMEOUT, &rr, err);
                if (r < 0)
                        return r;
                if (rr.exit_status != 0) {
                        _cleanup_(freep) char *why = last_words(&rr);
                        return error_set(err, rr.timed_out ? ETIMEDOUT : EBUSY,
                                         "cannot close the dm-crypt mapping '%s' over '%s' on '%s': cryptsetup close: %s",
                                         dm_name, name, agent_host(s), why && why[0] ? why : "failed");
                }
                json_object_array_add(closed, json_object_new_string(dm_name));
        }
        return 0;
}
