/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "controller/osd-progress.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/clock-util.h"

typedef struct Creation {
        char *host, *device;
        int id;
        char state[40];
        double start;
        bool running;
} Creation;

struct OsdProgress {
        FILE *f;
        unsigned interval;
        pthread_mutex_t mu;     /* everything below, and the lines on f */
        pthread_cond_t cv;      /* stop */
        Creation *c;
        size_t n, cap;
        double done_sum;        /* seconds of the creations that succeeded */
        size_t n_done;
        bool stop;
        pthread_t ticker;
        bool ticker_running;
};

double osd_progress_eta(double done_sum, size_t n_done, double elapsed) {
        if (n_done == 0)
                return -1;
        double left = done_sum / (double) n_done - elapsed;
        return left > 0 ? left : 0;
}

/* "osd.4 node3 /dev/loop7: prepare, 3 s elapsed, ETA 9 s". The line starts by clearing the
 * terminal's line: the executor keeps its one-line step count there (exec.c). Called with mu. */
static void line_running(OsdProgress *p, const Creation *c, double now) {
        char id[24] = "osd.?";
        if (c->id >= 0)
                snprintf(id, sizeof id, "osd.%d", c->id);
        double elapsed = now - c->start, eta = osd_progress_eta(p->done_sum, p->n_done, elapsed);
        if (eta < 0)
                fprintf(p->f, "\r\033[K%s %s %s: %s, %.0f s elapsed, ETA unknown (no OSD created yet)\n", id, c->host,
                        c->device, c->state, elapsed);
        else
                fprintf(p->f, "\r\033[K%s %s %s: %s, %.0f s elapsed, ETA %.0f s\n", id, c->host, c->device, c->state,
                        elapsed, eta);
        fflush(p->f);
}

static void *ticker_main(void *userdata) {
        OsdProgress *p = userdata;
        pthread_mutex_lock(&p->mu);
        while (!p->stop) {
                struct timespec ts = clock_after_ms(CLOCK_MONOTONIC, (uint64_t) p->interval * 1000);
                while (!p->stop && pthread_cond_timedwait(&p->cv, &p->mu, &ts) != ETIMEDOUT)
                        ;
                if (p->stop)
                        break;
                double now = clock_mono_sec();
                for (size_t i = 0; i < p->n; i++)
                        if (p->c[i].running)
                                line_running(p, &p->c[i], now);
        }
        pthread_mutex_unlock(&p->mu);
        return NULL;
}

OsdProgress *osd_progress_new(FILE *f, unsigned interval_sec) {
        if (!f)
                return NULL;
        OsdProgress *p = calloc(1, sizeof(OsdProgress));
        if (!p)
                return NULL;
        p->f = f;
        p->interval = interval_sec;
        pthread_mutex_init(&p->mu, NULL);
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&p->cv, &ca);
        pthread_condattr_destroy(&ca);
        if (interval_sec > 0)
                p->ticker_running = pthread_create(&p->ticker, NULL, ticker_main, p) == 0;
        return p;
}

OsdProgress *osd_progress_free(OsdProgress *p) {
        if (!p)
                return NULL;
        pthread_mutex_lock(&p->mu);
        p->stop = true;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (p->ticker_running)
                pthread_join(p->ticker, NULL);
        for (size_t i = 0; i < p->n; i++) {
                free(p->c[i].host);
                free(p->c[i].device);
        }
        free(p->c);
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
        free(p);
        return NULL;
}

int osd_progress_begin(OsdProgress *p, const char *host, const char *device, int id, const char *state) {
        if (!p)
                return -1;
        int h = -1;
        pthread_mutex_lock(&p->mu);
        if (p->n == p->cap) {
                size_t cap = p->cap ? 2 * p->cap : 16;
                Creation *n = realloc(p->c, cap * sizeof(Creation));
                if (!n)
                        goto out;
                p->c = n;
                p->cap = cap;
        }
        Creation *c = &p->c[p->n];
        *c = (Creation) { .host = strdup(host), .device = strdup(device), .id = id, .start = clock_mono_sec(),
                          .running = true };
        if (!c->host || !c->device) {
                free(c->host);
                free(c->device);
                goto out;
        }
        snprintf(c->state, sizeof c->state, "%s", state);
        h = (int) p->n++;
        line_running(p, c, c->start);
out:
        pthread_mutex_unlock(&p->mu);
        return h;
}

void osd_progress_state(OsdProgress *p, int handle, int id, const char *state) {
        if (!p || handle < 0)
                return;
        pthread_mutex_lock(&p->mu);
        Creation *c = &p->c[handle];
        if (c->running && (id != c->id || strcmp(c->state, state) != 0)) {
                c->id = id;
                snprintf(c->state, sizeof c->state, "%s", state);
                line_running(p, c, clock_mono_sec());
        }
        pthread_mutex_unlock(&p->mu);
}

void osd_progress_end(OsdProgress *p, int handle, int id, bool created) {
        if (!p || handle < 0)
                return;
        pthread_mutex_lock(&p->mu);
        Creation *c = &p->c[handle];
        double dt = clock_mono_sec() - c->start;
        c->running = false;
        c->id = id;
        if (created) {
                p->done_sum += dt;
                p->n_done++;
        }
        char sid[24] = "osd.?";
        if (id >= 0)
                snprintf(sid, sizeof sid, "osd.%d", id);
        fprintf(p->f, "\r\033[K%s %s %s: %s %.1f s\n", sid, c->host, c->device, created ? "created in" : "failed after", dt);
        fflush(p->f);
        pthread_mutex_unlock(&p->mu);
}
