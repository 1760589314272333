#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The fair throttle benchmark's report (bench-slo-report.py) on synthetic runs whose answers
are worked out by hand, so that hours of lab time are not judged by a wrong sum:
  - pick: the SLO X is the slow rung's p99.5 when the fast rung has more than 1 % over it, and
    no X (exit 2, the reason said) when the fast rung keeps the budget too;
  - report, varying load: the best fixed quiet/busy schedule (T_or) from the static runs'
    per-phase rates, the fastest static rung within the budget (T*_V) and the target.
The runs are made up (synthetic ops, timelines and meta files), named as such: the report is
arithmetic over files, and this test checks the arithmetic."""

import math
import os
import re
import subprocess
import sys
import tempfile

REPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-slo-report.py")
QUIET_S, RAMP_S, BUSY_S = 120.0, 45.0, 120.0
failed = 0


def check(what, ok, detail=""):
    global failed
    print("%s: %s%s" % ("ok" if ok else "FAIL", what, "" if ok else " — " + detail))
    if not ok:
        failed += 1


def varying_phase(t):
    x = t % (QUIET_S + RAMP_S + BUSY_S + RAMP_S)
    return "quiet" if x < QUIET_S else "busy"


def write_run(d, name, shape, start, end, ops, timeline):
    with open(os.path.join(d, name + ".meta"), "w") as f:
        f.write("start %s\nend %s\nshape %s\n" % (start, end, shape))
    with open(os.path.join(d, name + ".ops"), "w") as f:
        for t, ms in ops:
            f.write("%.3f w %s\n" % (t, "over" if ms is None else "%.2f" % ms))
    with open(os.path.join(d, name + ".timeline"), "w") as f:
        for t, rung, mis in timeline:
            f.write("%.1f %s off %d\n" % (t, rung, mis))


def varying_run(d, name, rung, start, end, obj_rate, busy_over):
    """a static run of the varying load: OBJ_RATE objects/s moved out of 1,000; 10 client ops/s in
    the quiet phase at 1 ms, 100 ops/s in the others, BUSY_OVER of them at 100 ms"""
    ops, t = [], start
    while t < end:
        if varying_phase(t) == "quiet":
            ops += [(t + i / 10, 1.0) for i in range(10)]
        else:
            n_over = int(100 * busy_over)
            ops += [(t + i / 100, 100.0 if i < n_over else 1.0) for i in range(100)]
        t += 1.0
    # the first sample is taken as the drain starts, before its first map change marks any
    # object misplaced (as in the lab): the objects to move are the most misplaced at once
    tl, t = [(start, rung, 0)], start + 5.0
    while t <= end:
        tl.append((t, rung, max(0, round(1000 - obj_rate * (t - start)))))
        t += 5.0
    write_run(d, name, "varying:300", start, end, ops, tl)


def run(*args):
    p = subprocess.run([sys.executable, REPORT] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


with tempfile.TemporaryDirectory() as d:
    # pick: the slow rung's latencies 0.01 .. 100 ms evenly, so its p99.5 is 99.5 ms
    slow = [(i / 100, i / 100) for i in range(1, 10001)]
    write_run(d, "steady-rung1", "steady:100", 0, 100, slow, [])
    # the fast rung: 5 % of its ops at 500 ms, over any X the slow rung keeps
    fast = [(i / 100, 500.0 if i % 20 == 0 else 1.0) for i in range(1, 10001)]
    write_run(d, "steady-rung4", "steady:100", 0, 100, fast, [])
    rc, out, err = run("pick", d, "steady", "rung1", "rung4")
    check("pick: X is the slow rung's p99.5 (99.5 ms)", rc == 0 and out.strip() == "99.5", "rc %d, %r %r" % (rc, out, err))
    # the fast rung with 0.5 % over: it keeps the budget too, so there is no question
    fast = [(i / 100, 500.0 if i % 200 == 0 else 1.0) for i in range(1, 10001)]
    write_run(d, "steady-rung4", "steady:100", 0, 100, fast, [])
    rc, out, err = run("pick", d, "steady", "rung1", "rung4")
    check("pick: no X when the fast rung meets the budget too (exit 2, says why)",
          rc == 2 and "no question" in err, "rc %d, %r %r" % (rc, out, err))

    # varying: rung1 moves 1 object/s and keeps the SLO everywhere (1,000 s); rung2 moves 4/s
    # and has half its ops over outside the quiet phase (it ends at 250.5 s, in a busy phase).
    # The best fixed schedule, by hand: rung2 in the quiet phase (0.5 .. 120: 120 s x 4 = 480),
    # rung1 outside it (120 .. 330: 210 s x 1 = 210), rung2 in the next quiet phase for the
    # 310 left (78 s): clean at 408 s after the start, no op over. rung2 everywhere is faster
    # but ~46 % over; rung1 in the quiet phases is slower. T*_V = rung1's 1,000 s, so the
    # target is 1000 - (1000 - 408) / 2 = 704 s.
    varying_run(d, "varying-rung1", 1, 0.5, 1000.5, 1.0, 0.0)
    varying_run(d, "varying-rung2", 2, 0.5, 250.5, 4.0, 0.5)
    varying_run(d, "varying-adaptive", 2, 0.5, 600.5, 1000 / 600, 0.0)
    rc, out, err = run("report", d, "50", "varying", "rung1", "rung2", "adaptive")
    line = [l for l in out.splitlines() if l.startswith("T*_V")]
    check("report: the varying load's oracle line is printed", rc == 0 and len(line) == 1, "rc %d, %r %r" % (rc, out, err))
    if line:
        m = re.match(r"T\*_V ([0-9.]+) s, T_or ([0-9.]+) s .*target time <= ([0-9.]+) s: ", line[0])
        t_star, t_or, goal = (float(g) for g in m.groups()) if m else (math.nan,) * 3
        check("report: T*_V is rung1's 1000 s", t_star == 1000.0, line[0])
        check("report: T_or is the hand-worked 408 s", abs(t_or - 408) <= 1, line[0])
        check("report: the target is 704 s", abs(goal - 704) <= 1, line[0])
        check("report: adaptive in 600 s with no op over meets it", line[0].endswith("met") and "NOT" not in line[0], line[0])
    check("report: rung2 is not within the budget (46 % over)", "fastest static rung within the budget: rung1" in out, out)
    check("report: E of rung2 printed: 6,500 of 14,200 ops, 45.77 %",
          any(l.startswith("rung2") and " 45.77 %" in l and "(6500 of 14200 ops over)" in l for l in out.splitlines()), out)
    # an adaptive run slower than the target is reported as not meeting it
    varying_run(d, "varying-adaptive", 2, 0.5, 800.5, 1000 / 800, 0.0)
    rc, out, err = run("report", d, "50", "varying", "rung1", "rung2", "adaptive")
    check("report: adaptive in 800 s does not meet a 704 s target", "NOT met" in out, out)

print("%d failed" % failed)
sys.exit(1 if failed else 0)
