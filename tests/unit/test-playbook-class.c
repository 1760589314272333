/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The wave class of a playbook step (issue 28, item 5): destroy's bcache-teardown and wipe
 * with `owned: true` act on every device cephprov owns on the host, so neither overlaps the
 * other (they did: the wipe found a backing disk the teardown was still flushing held by its
 * bcache device, on the uml guest); given one device they stay per-device (PARALLEL). */

#include "basic/json-util.h"
#include "controller/playbook-run.h"
#include "registry/step-registry.h"
#include "test.h"

static WaveClass class_of(const char *step, const char *args_json) {
        const StepEntry *e = step_registry_find(step);
        CHECK(e != NULL);
        if (!e)
                return WAVE_CLASS_WAIT;
        json_object *a = json_tokener_parse(args_json);
        CHECK(a != NULL);
        WaveClass c = playbook_step_class(e, a);
        json_object_put(a);
        return c;
}

static void test_owned_serial(void) {
        CHECK_INTEQ(class_of("bcache-teardown", "{\"owned\":true,\"timeout\":\"1h\"}"), WAVE_CLASS_HOST_SERIAL);
        CHECK_INTEQ(class_of("wipe", "{\"owned\":true}"), WAVE_CLASS_HOST_SERIAL);
}

static void test_one_device_parallel(void) {
        CHECK_INTEQ(class_of("wipe", "{\"device\":\"/dev/sdb\"}"), WAVE_CLASS_PARALLEL);
        CHECK_INTEQ(class_of("wipe", "{\"device\":\"/dev/sdb\",\"owned\":false}"), WAVE_CLASS_PARALLEL);
        CHECK_INTEQ(class_of("bcache-teardown", "{\"backing\":\"/dev/sdb\"}"), WAVE_CLASS_PARALLEL);
        /* not a per-device step: its own class, whatever its arguments */
        CHECK_INTEQ(class_of("start-osd", "{\"owned\":true}"), WAVE_CLASS_PARALLEL);
        CHECK_INTEQ(class_of("wait-clean", "{}"), WAVE_CLASS_WAIT);
}

int main(void) {
        TEST_RUN(test_owned_serial);
        TEST_RUN(test_one_device_parallel);
        return test_result();
}
