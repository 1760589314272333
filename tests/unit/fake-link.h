/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A FAKE host/cluster link for the wave executor's unit tests, scripted with the calls it
 * expects. It tests ordering, not Ceph: nothing here knows what a step does.
 *
 * Each expectation names where the call goes ("node1" for node1's agent, "cluster" for a
 * cluster step of before/gate/after, "cluster@node1" for a cluster step in node1's list)
 * and the step name. An incoming call takes the first unused expectation with that
 * where+name, in declaration order, and must respect the order the script declared:
 *   - a chain (by default its `where`): each call of a chain comes after the previous
 *     expectation of that chain has returned;
 *   - fake_link_barrier(): everything declared before has returned before anything
 *     declared after is called.
 * A call with no expectation left is a problem (and fails with EPROTO), as is an
 * expectation never used; fake_link_verify() prints every problem and counts them. */

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "exec/waves.h"

typedef struct FakeLink FakeLink;

typedef struct FakeExpect {
        const char *where;
        const char *name;
        const char *chain;        /* NULL: `where`; "" : no chain (any order within its barrier) */
        int error;                /* positive errno to fail with; 0 succeeds */
        const char *result;       /* JSON text returned on success (NULL: {}) */
        unsigned delay_ms;        /* hold the call this long (keep it to a few ms) */
        bool until_cancelled;     /* cluster calls: poll wave_call_cancelled(), then fail ECANCELED */
        bool expect_not_cancelled;/* cluster calls: wave_call_cancelled() must be false on entry */
        unsigned meet;            /* rendezvous: block until meet_count calls of this group have arrived
                                   * (each waits for the others, so all were in flight together) */
        unsigned meet_count;
        const char *tag;          /* counted in fake_link_max_in_flight(tag) */
        volatile sig_atomic_t *raise;   /* set to 1 on entry (e.g. the run's cancel flag) */
        atomic_int *bump;               /* incremented on entry */
        atomic_int *bump_on_return;     /* incremented once the call has returned */
        const atomic_int *hold_until;   /* block until *hold_until >= hold_value */
        int hold_value;
        double progress;          /* cluster calls: report this fraction on entry when > 0 */
        const char *progress_text;
} FakeExpect;

FakeLink *fake_link_new(void);
FakeLink *fake_link_free(FakeLink *f);

void fake_link_expect(FakeLink *f, FakeExpect e);
/* Shorthand: expect a call that succeeds with {}. */
void fake_link_expect_ok(FakeLink *f, const char *where, const char *name);
void fake_link_barrier(FakeLink *f);

/* A HostLink for `host` (valid as long as the fake); the cluster link. */
HostLink fake_link_host(FakeLink *f, const char *host);
ClusterLink fake_link_cluster(FakeLink *f);

/* Calls so far, and the calls in order as "where name, where name, ...". */
int fake_link_n_calls(FakeLink *f);
char *fake_link_calls(FakeLink *f);
/* The most calls tagged `tag` that were ever in flight at once. */
unsigned fake_link_max_in_flight(FakeLink *f, const char *tag);

/* Adds "expected X never called" for each unused expectation, prints all problems to
 * stderr and returns how many there were (0: the script was followed exactly). */
int fake_link_verify(FakeLink *f);
