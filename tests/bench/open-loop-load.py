#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""An open-loop client for the throttle benchmark (issue 31, item 2): 4 KiB writes and reads
(alternately) through librados at a fixed rate that follows a load shape, up to 32 ops in
flight; every op's latency is measured from its intended start (an op that waits for a free
slot waits on the clock, as a VM's would), so stalls are not under-sampled as a closed loop
(one op after the other) under-samples them. An op that fails or takes over 10 s is "over".

Runs on the lab's admin host (python3-rados; `lab exec admin python3 - ARGS < this file`),
writes one line per op to stdout, "T KIND MS" (T: the intended start in seconds since the
client started; KIND w or r; MS the latency, or "over" for a failed op or one past 10 s), once
its objects are written and its clock started "t0 EPOCH" on stderr (the wall time of T = 0), and
stops on SIGTERM or SIGINT after the ops in flight have finished or timed out.

usage: open-loop-load.py POOL SHAPE
  SHAPE  steady:RATE                              a fixed rate (ops/s)
         varying:BUSY                             quiet at BUSY/10 for 120 s, a 45 s ramp, busy
                                                  at BUSY for 120 s, a 45 s ramp down, again
         bursts:RATE                              RATE, and every 120 s 20 s at 5 x RATE
"""

import os
import signal
import sys
import threading
import time

import rados

POOL, SHAPE = sys.argv[1], sys.argv[2]
MAX_IN_FLIGHT, TIMEOUT_S, SIZE, N_OBJECTS = 32, 10.0, 4096, 64
QUIET_S, RAMP_S, BUSY_S = 120.0, 45.0, 120.0


def rate_at(t):
    kind, value = SHAPE.split(":")
    r = float(value)
    if kind == "steady":
        return r
    if kind == "bursts":
        return 5 * r if t % 120.0 < 20.0 else r
    if kind == "varying":
        quiet, cycle = r / 10, QUIET_S + RAMP_S + BUSY_S + RAMP_S
        x = t % cycle
        if x < QUIET_S:
            return quiet
        if x < QUIET_S + RAMP_S:
            return quiet + (r - quiet) * (x - QUIET_S) / RAMP_S
        if x < QUIET_S + RAMP_S + BUSY_S:
            return r
        return r - (r - quiet) * (x - QUIET_S - RAMP_S - BUSY_S) / RAMP_S
    sys.exit("unknown shape '%s'" % SHAPE)


stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
signal.signal(signal.SIGINT, lambda *_: stop.set())

cluster = rados.Rados(conffile="/etc/ceph/ceph.conf")
cluster.connect(timeout=30)
ioctx = cluster.open_ioctx(POOL)
objects = ["bench-open-loop-%d" % i for i in range(N_OBJECTS)]
data = os.urandom(SIZE)
for o in objects:
    ioctx.write_full(o, data)

lock = threading.Lock()
slots = threading.Semaphore(MAX_IN_FLIGHT)
out = sys.stdout
pending = {}  # completion → (intended start, kind, monotonic start)
t0 = time.monotonic()
# the client's clock starts now: its wall time on stderr, so that the drain is started once the
# load runs and the report puts the drain and the timeline on the client's clock
# and its pid: `lab exec` runs it in the admin host's namespaces, not as its child, so the
# bench stops it by this pid (a TERM to `lab exec` left it running: every later run had
# the earlier runs' clients on top of its own)
sys.stderr.write("pid %d\n" % os.getpid())
sys.stderr.write("t0 %.3f\n" % time.time())
sys.stderr.flush()


def done(kind, intended):
    def cb(completion, *_):
        lat = time.monotonic() - intended
        ok = completion.get_return_value() >= 0
        with lock:
            pending.pop(id(completion), None)
            out.write("%.3f %s %s\n" % (intended - t0, kind, "%.2f" % (lat * 1000) if ok and lat <= TIMEOUT_S else "over"))
        slots.release()
    return cb


t = 0.0
i = 0
while not stop.is_set():
    r = rate_at(t)
    intended = t0 + t
    now = time.monotonic()
    if intended > now:
        stop.wait(intended - now)
        if stop.is_set():
            break
    # an op whose slot is not free yet waits on the clock: its latency counts from `intended`
    while not slots.acquire(timeout=0.5):
        if stop.is_set():
            break
    if stop.is_set():
        break
    kind = "w" if i % 2 == 0 else "r"
    obj = objects[i % N_OBJECTS]
    if kind == "w":
        c = ioctx.aio_write(obj, data, 0, oncomplete=done(kind, intended))
    else:
        c = ioctx.aio_read(obj, SIZE, 0, oncomplete=done(kind, intended))
    with lock:
        pending[id(c)] = (intended, kind, now)
    i += 1
    t += 1.0 / max(r, 0.1)

# ops the schedule meant to start that never got a slot (a stall) are over
end = time.monotonic() - t0
with lock:
    while t < end:
        out.write("%.3f %s over\n" % (t, "w" if i % 2 == 0 else "r"))
        i += 1
        t += 1.0 / max(rate_at(t), 0.1)
# ops in flight: each finishes or is over after its timeout
deadline = time.monotonic() + TIMEOUT_S
while time.monotonic() < deadline:
    with lock:
        if not pending:
            break
    time.sleep(0.1)
with lock:
    for _, (it, kind, _) in list(pending.items()):
        out.write("%.3f %s over\n" % (it - t0, kind))
    out.flush()
os._exit(0)  # librados threads of ops that never completed must not hold the exit
