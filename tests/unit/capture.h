/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A captured Pacific answer of tests/data/ceph/pacific as JSON, for the unit tests that
 * change it before they parse it (a check fails when it cannot be read). */

#include <json-c/json.h>

#include "basic/macro.h"
#include "basic/strv.h"
#include "test.h"

static inline json_object *capture_pacific(const char *name) {
        const char *dir = getenv("TEST_DATA");
        _cleanup_(freep) char *p = strprintf("%s/ceph/pacific/%s", dir ? dir : "tests/data", name);
        json_object *o = p ? json_object_from_file(p) : NULL;
        if (!o)
                fprintf(stderr, "cannot read '%s'\n", p ? p : name);
        CHECK(o != NULL);
        return o;
}
