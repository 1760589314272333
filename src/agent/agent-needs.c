/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "agent-needs.h"

#include "basic/macro.h"

static const char *const need_table[] = {
        "libparted", "bcache", "make-bcache", "udev-rules", "ceph-volume", "ceph-osd", "systemctl",
        "bootstrap-osd-keyring", "dmcrypt",
};
_Static_assert(ELEMENTSOF(need_table) == 9, "need_table names every AgentNeed bit");

const char *agent_need_to_string(AgentNeed n) {
        for (size_t i = 0; i < ELEMENTSOF(need_table); i++)
                if ((unsigned) n == 1u << i)
                        return need_table[i];
        return NULL;
}

AgentNeed agent_need_from_string(const char *s) {
        for (size_t i = 0; s && i < ELEMENTSOF(need_table); i++)
                if (streq(s, need_table[i]))
                        return (AgentNeed) (1u << i);
        return 0;
}

json_object *agent_needs_to_json(unsigned needs) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; a && i < ELEMENTSOF(need_table); i++)
                if ((needs & (1u << i)) && json_object_array_add(a, json_object_new_string(need_table[i])) < 0) {
                        json_object_put(a);
                        return NULL;
                }
        return a;
}
