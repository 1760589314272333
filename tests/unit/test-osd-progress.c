/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* apply's per-OSD progress (controller/osd-progress.h): the lines and the ETA. */
#include <stdlib.h>
#include <string.h>

#include "controller/osd-progress.h"
#include "test.h"

static void test_eta(void) {
        CHECK(osd_progress_eta(0, 0, 3) < 0);             /* nothing done yet: no figure */
        CHECK(osd_progress_eta(30, 2, 5) == 10);          /* mean 15 s, 5 s in */
        CHECK(osd_progress_eta(30, 2, 20) == 0);          /* later than the others: 0, never negative */
}

static void test_lines(void) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        CHECK(f != NULL);
        OsdProgress *p = osd_progress_new(f, 0);
        CHECK(p != NULL);
        int a = osd_progress_begin(p, "node1", "/dev/sdc", -1, "waiting for its id");
        CHECK(a >= 0);
        osd_progress_state(p, a, 3, "prepare");
        osd_progress_state(p, a, 3, "prepare");          /* unchanged: no line */
        osd_progress_end(p, a, 3, true);
        int b = osd_progress_begin(p, "node1", "/dev/sdd", 4, "prepare");
        osd_progress_end(p, b, 4, false);
        osd_progress_free(p);
        fclose(f);

        /* one line per change, each clearing the terminal's line first */
        const char *want[] = {
                "\r\033[Kosd.? node1 /dev/sdc: waiting for its id, 0 s elapsed, ETA unknown (no OSD created yet)",
                "\r\033[Kosd.3 node1 /dev/sdc: prepare, 0 s elapsed, ETA unknown (no OSD created yet)",
                "\r\033[Kosd.3 node1 /dev/sdc: created in 0.0 s",
                "\r\033[Kosd.4 node1 /dev/sdd: prepare, 0 s elapsed, ETA 0 s",
                "\r\033[Kosd.4 node1 /dev/sdd: failed after 0.0 s",
        };
        char *save = NULL, *line = strtok_r(buf, "\n", &save);
        size_t n = 0;
        for (; line; line = strtok_r(NULL, "\n", &save), n++)
                if (n < sizeof want / sizeof want[0])
                        CHECK_STREQ(line, want[n]);
        CHECK_INTEQ(n, sizeof want / sizeof want[0]);
        free(buf);

        /* no stream, no progress: every call takes the NULL */
        CHECK(osd_progress_new(NULL, 5) == NULL);
        CHECK(osd_progress_begin(NULL, "node1", "/dev/sdc", -1, "x") == -1);
        osd_progress_state(NULL, 0, 1, "x");
        osd_progress_end(NULL, 0, 1, true);
}

int main(void) {
        TEST_RUN(test_eta);
        TEST_RUN(test_lines);
        return test_result();
}
