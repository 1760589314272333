/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "basic/workers.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

void workers_run_stack(unsigned n, size_t stack_bytes, void *(*worker)(void *userdata), void *userdata) {
        pthread_t *tids = n > 1 ? calloc(n - 1, sizeof(pthread_t)) : NULL;
        pthread_attr_t attr;
        bool with_attr = stack_bytes > 0 && pthread_attr_init(&attr) == 0;
        if (with_attr && pthread_attr_setstacksize(&attr, stack_bytes) != 0) {
                pthread_attr_destroy(&attr);
                with_attr = false;
        }
        unsigned started = 0;
        for (unsigned k = 1; tids && k < n; k++) {
                if (pthread_create(&tids[started], with_attr ? &attr : NULL, worker, userdata) != 0)
                        break; /* fewer at once, same outcome */
                started++;
        }
        if (with_attr)
                pthread_attr_destroy(&attr);
        worker(userdata);
        for (unsigned k = 0; k < started; k++)
                pthread_join(tids[k], NULL);
        free(tids);
}

void workers_run(unsigned n, void *(*worker)(void *userdata), void *userdata) {
        workers_run_stack(n, 0, worker, userdata);
}
