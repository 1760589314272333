/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The FAKE link (see fake-link.h): a scripted stand-in for agents and the cluster. */
#include "fake-link.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/strv.h"

#define FAKE_MAX 256
#define FAKE_HOSTS 32
/* a blocking behaviour that waits longer than this is a problem, not a hang */
#define FAKE_SAFETY_SEC 5.0

typedef struct Entry {
        FakeExpect e;
        unsigned segment;          /* barriers declared before it */
        bool used, returned;
} Entry;

typedef struct HostShim {
        FakeLink *f;
        char *host;
} HostShim;

struct FakeLink {
        pthread_mutex_t mu;
        Entry entries[FAKE_MAX];
        size_t n_entries;
        unsigned segment;
        char **problems;
        char **calls;
        int n_calls;
        unsigned meet_arrived[64];    /* arrivals per group, never decremented */
        char *tags[16];
        unsigned tag_now[16], tag_max[16];
        HostShim shims[FAKE_HOSTS];
        size_t n_shims;
};

static double mono(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

FakeLink *fake_link_new(void) {
        FakeLink *f = calloc(1, sizeof(FakeLink));
        if (f)
                pthread_mutex_init(&f->mu, NULL);
        return f;
}

FakeLink *fake_link_free(FakeLink *f) {
        if (!f)
                return NULL;
        strv_free(f->problems);
        strv_free(f->calls);
        for (size_t i = 0; i < ELEMENTSOF(f->tags); i++)
                free(f->tags[i]);
        for (size_t i = 0; i < f->n_shims; i++)
                free(f->shims[i].host);
        pthread_mutex_destroy(&f->mu);
        free(f);
        return NULL;
}

static void problem(FakeLink *f, char *msg) {
        /* called with f->mu held */
        strv_consume(&f->problems, msg);
}

void fake_link_expect(FakeLink *f, FakeExpect e) {
        pthread_mutex_lock(&f->mu);
        if (f->n_entries >= FAKE_MAX)
                problem(f, strdup("fake: too many expectations"));
        else
                f->entries[f->n_entries++] = (Entry) { .e = e, .segment = f->segment };
        pthread_mutex_unlock(&f->mu);
}

void fake_link_expect_ok(FakeLink *f, const char *where, const char *name) {
        fake_link_expect(f, (FakeExpect) { .where = where, .name = name });
}

void fake_link_barrier(FakeLink *f) {
        pthread_mutex_lock(&f->mu);
        f->segment++;
        pthread_mutex_unlock(&f->mu);
}

static const char *entry_chain(const Entry *x) {
        return x->e.chain ? x->e.chain : x->e.where;
}

static size_t tag_slot(FakeLink *f, const char *tag) {
        for (size_t i = 0; i < ELEMENTSOF(f->tags); i++) {
                if (!f->tags[i]) {
                        f->tags[i] = strdup(tag);
                        return i;
                }
                if (streq(f->tags[i], tag))
                        return i;
        }
        return 0;
}

unsigned fake_link_max_in_flight(FakeLink *f, const char *tag) {
        pthread_mutex_lock(&f->mu);
        unsigned m = 0;
        for (size_t i = 0; i < ELEMENTSOF(f->tags); i++)
                if (f->tags[i] && streq(f->tags[i], tag))
                        m = f->tag_max[i];
        pthread_mutex_unlock(&f->mu);
        return m;
}

/* Blocks (polling, short) until done() says so or the safety limit passes. */
static bool wait_for(FakeLink *f, bool (*done)(FakeLink *f, const Entry *x, const WaveCall *c), const Entry *x,
                     const WaveCall *c) {
        double t0 = mono();
        while (!done(f, x, c)) {
                if (mono() - t0 > FAKE_SAFETY_SEC)
                        return false;
                usleep(100);
        }
        return true;
}

static bool meet_done(FakeLink *f, const Entry *x, const WaveCall *c) {
        pthread_mutex_lock(&f->mu);
        bool r = f->meet_arrived[x->e.meet % 64] >= x->e.meet_count;
        pthread_mutex_unlock(&f->mu);
        return r;
}

static bool hold_done(FakeLink *f, const Entry *x, const WaveCall *c) {
        return atomic_load(x->e.hold_until) >= x->e.hold_value;
}

static bool cancel_done(FakeLink *f, const Entry *x, const WaveCall *c) {
        return wave_call_cancelled(c);
}

static int fake_call(FakeLink *f, const char *where, const char *name, const WaveCall *c, json_object **ret,
                     Error *err) {
        pthread_mutex_lock(&f->mu);
        f->n_calls++;
        strv_consume(&f->calls, strprintf("%s %s", where, name));

        Entry *x = NULL;
        for (size_t i = 0; i < f->n_entries; i++)
                if (!f->entries[i].used && streq(f->entries[i].e.where, where) && streq(f->entries[i].e.name, name)) {
                        x = &f->entries[i];
                        break;
                }
        if (!x) {
                problem(f, strprintf("unexpected call #%d: %s %s", f->n_calls, where, name));
                pthread_mutex_unlock(&f->mu);
                return error_set(err, EPROTO, "fake link: unexpected call %s %s", where, name);
        }
        x->used = true;
        for (Entry *y = f->entries; y < x; y++) {
                if (y->returned)
                        continue;
                if (y->segment < x->segment)
                        problem(f, strprintf("%s %s was called before %s %s (declared before a barrier) returned", where,
                                             name, y->e.where, y->e.name));
                else if (!isempty(entry_chain(x)) && streq_ptr(entry_chain(y), entry_chain(x)))
                        problem(f, strprintf("%s %s was called before %s %s (earlier in chain '%s') returned", where,
                                             name, y->e.where, y->e.name, entry_chain(x)));
        }
        size_t tag = x->e.tag ? tag_slot(f, x->e.tag) : 0;
        if (x->e.tag && ++f->tag_now[tag] > f->tag_max[tag])
                f->tag_max[tag] = f->tag_now[tag];
        if (x->e.meet)
                f->meet_arrived[x->e.meet % 64]++;
        pthread_mutex_unlock(&f->mu);

        if (x->e.expect_not_cancelled && c && wave_call_cancelled(c)) {
                pthread_mutex_lock(&f->mu);
                problem(f, strprintf("%s %s: saw itself cancelled", where, name));
                pthread_mutex_unlock(&f->mu);
        }
        if (x->e.raise)
                *x->e.raise = 1;
        if (x->e.bump)
                atomic_fetch_add(x->e.bump, 1);
        if (x->e.progress > 0 && c)
                wave_call_progress((WaveCall *) c, x->e.progress, 12.0, x->e.progress_text);

        char *late = NULL;
        if (x->e.meet && !wait_for(f, meet_done, x, c))
                late = strprintf("%s %s: fewer than %u calls of meet group %u in flight at once", where, name,
                                 x->e.meet_count, x->e.meet);
        if (!late && x->e.hold_until && !wait_for(f, hold_done, x, c))
                late = strprintf("%s %s: held, never released", where, name);
        if (x->e.delay_ms)
                usleep(x->e.delay_ms * 1000);
        int r = 0;
        if (!late && x->e.until_cancelled) {
                if (!c)
                        late = strprintf("%s %s: until_cancelled on a host link", where, name);
                else if (!wait_for(f, cancel_done, x, c))
                        late = strprintf("%s %s: never saw a cancel", where, name);
                else
                        r = error_set(err, ECANCELED, "fake: %s %s saw the cancel", where, name);
        }
        if (r == 0 && x->e.error)
                r = error_set(err, x->e.error, "fake: %s %s fails on purpose", where, name);
        if (r == 0) {
                *ret = x->e.result ? json_tokener_parse(x->e.result) : json_object_new_object();
                if (!*ret)
                        r = error_set(err, EINVAL, "fake: bad scripted result '%s'", x->e.result);
        }

        pthread_mutex_lock(&f->mu);
        if (late)
                problem(f, late);
        if (x->e.tag)
                f->tag_now[tag]--;
        x->returned = true;
        pthread_mutex_unlock(&f->mu);
        if (x->e.bump_on_return)
                atomic_fetch_add(x->e.bump_on_return, 1);
        return r;
}

static int fake_host_call(void *userdata, const char *op, json_object *args, json_object **ret, Error *err) {
        HostShim *s = userdata;
        return fake_call(s->f, s->host, op, NULL, ret, err);
}

static int fake_cluster_call(void *userdata, const char *step, json_object *args, WaveCall *c, json_object **ret,
                             Error *err) {
        FakeLink *f = userdata;
        const char *host = wave_call_host(c);
        _cleanup_(freep) char *where = host ? strprintf("cluster@%s", host) : strdup("cluster");
        return fake_call(f, where, step, c, ret, err);
}

HostLink fake_link_host(FakeLink *f, const char *host) {
        pthread_mutex_lock(&f->mu);
        HostShim *s = &f->shims[f->n_shims < FAKE_HOSTS ? f->n_shims++ : FAKE_HOSTS - 1];
        *s = (HostShim) { .f = f, .host = strdup(host) };
        pthread_mutex_unlock(&f->mu);
        return (HostLink) { .host = s->host, .call = fake_host_call, .userdata = s };
}

ClusterLink fake_link_cluster(FakeLink *f) {
        return (ClusterLink) { .call = fake_cluster_call, .userdata = f };
}

int fake_link_n_calls(FakeLink *f) {
        pthread_mutex_lock(&f->mu);
        int n = f->n_calls;
        pthread_mutex_unlock(&f->mu);
        return n;
}

char *fake_link_calls(FakeLink *f) {
        pthread_mutex_lock(&f->mu);
        char *s = f->calls ? strv_join(f->calls, ", ") : strdup("");
        pthread_mutex_unlock(&f->mu);
        return s;
}

int fake_link_verify(FakeLink *f) {
        pthread_mutex_lock(&f->mu);
        for (size_t i = 0; i < f->n_entries; i++)
                if (!f->entries[i].used)
                        problem(f, strprintf("expected %s %s, never called", f->entries[i].e.where, f->entries[i].e.name));
        int n = (int) strv_length(f->problems);
        STRV_FOREACH(p, f->problems)
                fprintf(stderr, "fake link: %s\n", *p);
        if (n) {
                _cleanup_(freep) char *calls = f->calls ? strv_join(f->calls, ", ") : NULL;
                fprintf(stderr, "fake link: calls were: %s\n", calls ? calls : "(none)");
        }
        pthread_mutex_unlock(&f->mu);
        return n;
}
