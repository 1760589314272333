#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The report of the fair throttle benchmark (tests/bench/bench-throttle-slo.sh, issue 31 item 2).

usage: bench-slo-report.py pick DIR LOAD SLOW FAST      prints the SLO X (ms) picked from the
                                                         static runs, or exits 2 saying why none
       bench-slo-report.py report DIR X LOAD MODE...    prints the table and the targets

DIR holds per run (LOAD-MODE): .ops (open-loop-load.py's lines), .meta ("start S", "end S":
the drain's start and end in seconds of the client's clock, "shape SHAPE") and .timeline
("T RUNG BRAKE MISPLACED" every 5 s, T on the client's clock)."""

import math
import sys

Z = 1.96
QUIET_S, RAMP_S, BUSY_S = 120.0, 45.0, 120.0


def wilson(k, n):
    if n == 0:
        return 0.0, 1.0
    p, z2 = k / n, Z * Z
    c, h = p + z2 / (2 * n), Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, (c - h) / (1 + z2 / n)), min(1.0, (c + h) / (1 + z2 / n))


def phase(shape, t):
    kind = shape.split(":")[0]
    if kind == "steady":
        return "steady"
    if kind == "bursts":
        return "burst" if t % 120.0 < 20.0 else "base"
    x = t % (QUIET_S + RAMP_S + BUSY_S + RAMP_S)
    return "quiet" if x < QUIET_S else "ramp-up" if x < QUIET_S + RAMP_S else "busy" if x < QUIET_S + RAMP_S + BUSY_S else "ramp-down"


def load(d, name):
    meta = dict(l.split(None, 1) for l in open("%s/%s.meta" % (d, name)) if l.strip())
    start, end, shape = float(meta["start"]), float(meta["end"]), meta["shape"].strip()
    ops = []
    for l in open("%s/%s.ops" % (d, name)):
        f = l.split()
        if len(f) == 3 and start <= float(f[0]) <= end:
            ops.append((float(f[0]), math.inf if f[2] == "over" else float(f[2])))
    tl = []
    try:
        for l in open("%s/%s.timeline" % (d, name)):
            f = l.split()
            if len(f) == 4:
                tl.append((float(f[0]), f[1], f[2], int(f[3])))
    except FileNotFoundError:
        pass
    return start, end, shape, ops, tl


def pct(v, q):
    if not v:
        return math.nan
    return v[max(0, math.ceil(q / 100 * len(v)) - 1)]


def fmt(x):
    return "inf" if x == math.inf else "nan" if x != x else "%.1f" % x


def pick(d, load_name, slow, fast):
    _, _, _, s_ops, _ = load(d, "%s-%s" % (load_name, slow))
    _, _, _, f_ops, _ = load(d, "%s-%s" % (load_name, fast))
    sv = sorted(l for _, l in s_ops)
    if not sv:
        print("no ops in the slow run", file=sys.stderr)
        sys.exit(2)
    # the lowest X with at most half the budget (0.5 %) of the slow run's ops over it
    x = pct(sv, 99.5)
    if x == math.inf:
        print("the slow preset has more than 0.5 %% of its ops failed or over 10 s: no SLO it keeps", file=sys.stderr)
        sys.exit(2)
    e_fast = sum(1 for _, l in f_ops if l > x) / max(1, len(f_ops))
    if e_fast <= 0.01:
        print("at X = %.1f ms (the slow preset's p99.5) the fast preset has only %.2f %% over: "
              "it meets the budget too, the lab has no question to answer" % (x, 100 * e_fast), file=sys.stderr)
        sys.exit(2)
    print("%.1f" % x)


def report(d, x, load_name, modes):
    rows, per_phase = {}, {}
    for m in modes:
        start, end, shape, ops, tl = load(d, "%s-%s" % (load_name, m))
        over = sum(1 for _, l in ops if l > x)
        lo, hi = wilson(over, len(ops))
        lat = sorted(l for _, l in ops)
        rows[m] = (end - start, over, len(ops), lo, hi, pct(lat, 50), pct(lat, 99), pct(lat, 99.9), shape, start, tl)
        ph = {}
        for t, l in ops:
            ph.setdefault(phase(shape, t), []).append(l)
        per_phase[m] = ph
    print("load %s, SLO %.1f ms (budget 1 %%)" % (load_name, x))
    print("%-10s %9s %18s %9s %9s %9s" % ("mode", "time (s)", "E (95 % interval)", "p50", "p99", "p99.9"))
    for m in modes:
        t, over, n, lo, hi, p50, p99, p999 = rows[m][:8]
        print("%-10s %9.1f %6.2f %% (%.2f..%.2f) %9s %9s %9s  (%d of %d ops over)" % (
            m, t, 100 * over / max(1, n), 100 * lo, 100 * hi, fmt(p50), fmt(p99), fmt(p999), over, n))
        for p, v in sorted(per_phase[m].items()):
            v.sort()
            o = sum(1 for l in v if l > x)
            print("    %-9s %6d ops, %.2f %% over, p50 %s, p99 %s, p99.9 %s" % (
                p, len(v), 100 * o / max(1, len(v)), fmt(pct(v, 50)), fmt(pct(v, 99)), fmt(pct(v, 99.9))))
    statics = [m for m in modes if m != "adaptive"]
    meeting = [m for m in statics if rows[m][1] <= 0.01 * rows[m][2]]
    if "adaptive" in rows and meeting:
        best = min(meeting, key=lambda m: rows[m][0])
        ta, ea = rows["adaptive"][0], rows["adaptive"][1] / max(1, rows["adaptive"][2])
        print("fastest static rung within the budget: %s, %.1f s; adaptive %.1f s (%.2f x), E %.2f %%" % (
            best, rows[best][0], ta, ta / rows[best][0], 100 * ea))
        if load_name == "steady":
            print("target (steady): E <= 1 %% and time <= 1.10 x: %s" % (
                "met" if ea <= 0.01 and ta <= 1.10 * rows[best][0] else "NOT met"))
        if load_name == "varying":
            t_or = oracle(rows, per_phase, statics, x)
            if t_or:
                goal = rows[best][0] - 0.5 * (rows[best][0] - t_or)
                print("T*_V %.1f s, T_or %.1f s (best fixed quiet/busy schedule): target time <= %.1f s: %s" % (
                    rows[best][0], t_or, goal, "met" if ea <= 0.01 and ta <= goal else "NOT met"))
            ups = ramp_up_over(rows["adaptive"], d, load_name, x)
            print("adaptive: ops over the SLO in the 30 s after each ramp up: %s" % ups)
    elif "adaptive" in rows:
        print("no static rung met the budget on this load")
    if load_name == "bursts" and "adaptive" in rows and "rung1" in rows:
        es = rows["rung1"][1] / max(1, rows["rung1"][2])
        ea = rows["adaptive"][1] / max(1, rows["adaptive"][2])
        print("target (bursts): E_adaptive %.2f %% <= E_slow %.2f %% + 0.5 %%: %s; brake within one window of "
              "each burst: %s" % (100 * ea, 100 * es, "met" if ea <= es + 0.005 else "NOT met",
                                 brake_after_bursts(rows["adaptive"])))


def rates(row):
    """objects/s moved per phase, from the timeline's misplaced counts, and the objects the
    drain had to move (the most misplaced at once)"""
    shape, tl, acc = row[8], row[10], {}
    for (t0, _, _, m0), (t1, _, _, m1) in zip(tl, tl[1:]):
        if t1 > t0 and m1 <= m0:
            p = phase(shape, t0)
            a = acc.setdefault(p, [0.0, 0.0])
            a[0] += m0 - m1
            a[1] += t1 - t0
    return {p: (a[0] / a[1] if a[1] else 0.0) for p, a in acc.items()}, max((m for *_, m in tl), default=0)


def phase_seconds(row):
    """the seconds of the drain (start to end, the client's clock) in each phase of its shape"""
    start, shape, secs = row[9], row[8], {}
    t = start
    while t < start + row[0]:
        step = min(1.0, start + row[0] - t)
        p = phase(shape, t)
        secs[p] = secs.get(p, 0.0) + step
        t += step
    return secs


def oracle(rows, per_phase, statics, x):
    """the best fixed schedule (one static rung in the quiet phases, one in the rest) that keeps
    the budget, from the static runs' per-phase rates (objects moved, client ops and ops over
    the SLO, each per second of that phase in that run): its time to clean, or None"""
    best = None
    info = {}
    for m in statics:
        moved, total = rates(rows[m])
        secs = phase_seconds(rows[m])
        ops = {p: (len(v) / secs[p], sum(1 for l in v if l > x) / secs[p])
               for p, v in per_phase[m].items() if secs.get(p)}
        info[m] = (moved, total, ops)
    start = min(rows[m][9] for m in statics)
    for q in statics:
        for b in statics:
            total = max(info[q][1], info[b][1])
            if not total:
                continue
            left, t, n_ops, n_over, shape = float(total), start, 0.0, 0.0, rows[q][8]
            while left > 0 and t < start + 36000:
                p = phase(shape, t)
                moved, _, ops = info[q if p == "quiet" else b]
                if p not in moved or p not in ops:
                    break  # that rung's run never saw this phase: no estimate
                left -= moved[p]
                n_ops += ops[p][0]
                n_over += ops[p][1]
                t += 1.0
            if left <= 0 and n_over <= 0.01 * n_ops and (best is None or t - start < best):
                best = t - start
    return best


def ramp_up_over(row, d, load_name, x):
    start, end, shape = row[9], row[9] + row[0], row[8]
    _, _, _, ops, _ = load(d, "%s-adaptive" % load_name)
    out, cycle = [], QUIET_S + RAMP_S + BUSY_S + RAMP_S
    k = 0
    while k * cycle + QUIET_S < end:
        a = k * cycle + QUIET_S
        if a + 30 > start:
            n = [l for t, l in ops if a <= t < a + 30]
            out.append("%d of %d" % (sum(1 for l in n if l > x), len(n)))
        k += 1
    return ", ".join(out) or "none in the move"


def brake_after_bursts(row):
    start, end, tl = row[9], row[9] + row[0], row[10]
    res, k = [], 0
    while k * 120.0 < end:
        b = k * 120.0
        if b >= start:
            seen = [t - b for t, _, brake, _ in tl if b <= t <= b + 20 and brake == "on"]
            res.append("%.0f s" % seen[0] if seen else "no brake")
        k += 1
    return ", ".join(res) or "no burst in the move"


if __name__ == "__main__":
    if len(sys.argv) >= 6 and sys.argv[1] == "pick":
        pick(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif len(sys.argv) >= 6 and sys.argv[1] == "report":
        report(sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5:])
    else:
        sys.exit(__doc__)
