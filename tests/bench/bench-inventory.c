/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* In-process timing of the agent's inventory: bench-inventory N DEVICE...
 * Prints "min_ms median_ms devices" after N runs (after one warm-up run). */

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "agent/agent.h"
#include "basic/strv.h"

static double now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
        if (argc < 3) {
                fprintf(stderr, "usage: bench-inventory N DEVICE...\n");
                return 2;
        }
        int n = atoi(argv[1]);
        if (n < 1 || n > 10000)
                return 2;
        _cleanup_(agent_state_freep) AgentState *s = agent_state_new();
        if (!s || agent_state_configure(s, "bench", argv + 2, false) < 0)
                return 1;

        double *t = calloc((size_t) n, sizeof(double));
        size_t devices = 0;
        for (int i = -1; i < n; i++) {
                Inventory *inv = NULL;
                Error err = {};
                double t0 = now_ms();
                if (agent_inventory(s, false, &inv, &err) < 0) {
                        fprintf(stderr, "%s\n", err.message);
                        return 1;
                }
                double dt = now_ms() - t0;
                devices = inv->n_devices;
                inventory_free(inv);
                if (i >= 0)
                        t[i] = dt;
        }
        qsort(t, (size_t) n, sizeof(double), cmp);
        printf("%.2f %.2f %zu\n", t[0], t[n / 2], devices);
        free(t);
        return 0;
}
