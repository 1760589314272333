/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "basic/workers.h"

#include <pthread.h>
#include <stdlib.h>

void workers_run(unsigned n, void *(*worker)(void *userdata), void *userdata) {
        pthread_t *tids = n > 1 ? calloc(n - 1, sizeof(pthread_t)) : NULL;
        unsigned started = 0;
        for (unsigned k = 1; tids && k < n; k++) {
                if (pthread_create(&tids[started], NULL, worker, userdata) != 0)
                        break; /* fewer at once, same outcome */
                started++;
        }
        worker(userdata);
        for (unsigned k = 0; k < started; k++)
                pthread_join(tids[k], NULL);
        free(tids);
}
