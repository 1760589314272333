/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fanout.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "transport.h"
#include "basic/clock-util.h"
#include "basic/workers.h"

#define FANOUT_CONCURRENCY_DEFAULT 32
#define FANOUT_STACK_SIZE (1024 * 1024)

typedef struct FanoutPool {
        const Host * const *hosts;
        size_t n_hosts;
        FanoutHostFn fn;
        void *userdata;
        FanoutHostResult *results;

        pthread_mutex_t lock;
        size_t next;  /* next host index to take */
        size_t done;
        size_t failed;
        bool progress;
} FanoutPool;

static void show_progress(FanoutPool *f) {
        /* one line, rewritten in place; called under the lock */
        fprintf(stderr, "\rhosts %zu/%zu done", f->done, f->n_hosts);
        if (f->failed)
                fprintf(stderr, " (%zu failed)", f->failed);
        fflush(stderr);
}

static void *fanout_worker(void *p) {
        FanoutPool *f = p;
        for (;;) {
                pthread_mutex_lock(&f->lock);
                size_t i = f->next < f->n_hosts ? f->next++ : f->n_hosts;
                pthread_mutex_unlock(&f->lock);
                if (i >= f->n_hosts)
                        return NULL;

                FanoutHostResult *res = &f->results[i];
                uint64_t start = clock_mono_ms();
                json_object *result = NULL;
                res->r = f->fn(f->hosts[i], f->userdata, &result, &res->error);
                if (res->r < 0 && res->error.code == 0)
                        error_set(&res->error, -res->r, "host '%s': %s", f->hosts[i]->name, strerror(-res->r));
                res->result = result;
                res->duration_ms = clock_mono_ms() - start;

                pthread_mutex_lock(&f->lock);
                f->done++;
                if (res->r < 0)
                        f->failed++;
                if (f->progress)
                        show_progress(f);
                pthread_mutex_unlock(&f->lock);
        }
}

int fanout_run(const Host * const *hosts, size_t n_hosts, const FanoutOptions *o, FanoutHostFn fn, void *userdata,
              FanoutHostResult **ret_results, Error *err) {
        int r = transport_global_init(); /* libssh2_init is not thread-safe: do it first */
        if (r < 0)
                return error_set(err, -r, "cannot initialize libssh2");

        FanoutHostResult *results = calloc(MAX(n_hosts, (size_t) 1), sizeof(FanoutHostResult));
        if (!results)
                return error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n_hosts; i++)
                results[i].host = hosts[i];

        FanoutPool f = {
                .hosts = hosts,
                .n_hosts = n_hosts,
                .fn = fn,
                .userdata = userdata,
                .results = results,
                .progress = o && o->progress && isatty(STDERR_FILENO),
        };
        pthread_mutex_init(&f.lock, NULL);

        size_t concurrency = o && o->concurrency ? o->concurrency : FANOUT_CONCURRENCY_DEFAULT;
        size_t n_threads = MIN(concurrency, n_hosts);
        if (f.progress)
                show_progress(&f);
        /* fewer threads than asked (EAGAIN): the ones started, and this one, take all the hosts */
        workers_run_stack((unsigned) MIN(n_threads, (size_t) UINT_MAX), FANOUT_STACK_SIZE, fanout_worker, &f);
        pthread_mutex_destroy(&f.lock);
        if (f.progress)
                fputs("\n", stderr);

        *ret_results = results;
        return 0;
}

size_t fanout_results_failed(const FanoutHostResult *results, size_t n) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                if (results[i].r < 0)
                        k++;
        return k;
}

FanoutHostResult *fanout_results_free(FanoutHostResult *results, size_t n) {
        if (!results)
                return NULL;
        for (size_t i = 0; i < n; i++)
                json_object_put(results[i].result);
        free(results);
        return NULL;
}
