#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Parallel OSD creation: the same OSD set made by `cephprov apply --stage osds` with
# --parallel 1 and with the layout's default, each on a fresh lab (teardown between).
# Prints the speed-up and, from the journal, the orchestration overhead: wall time of the
# OSD phase divided by its critical path (for that parallelism: per host
# max(longest OSD, sum of OSD times / slots), the slowest host).
#
# Usage: bench-osd-parallel.sh CEPHPROV
# Env: LAB, CEPH_LAB, LAB_PREFIX, LAB_SUBNET, BENCH_HOSTS (3), BENCH_HDD (HDDs per host, 4),
#      KEEP_LAB=1 (tests/lab/lab-lib.sh).
set -euo pipefail

CEPHPROV=$(realpath "${1:?usage: $0 CEPHPROV}")
HOSTS=${BENCH_HOSTS:-3}
HDD=${BENCH_HDD:-4}
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lab/lab-lib.sh"
lab_test_setup bench-osd cpbo 10.99.8
OUT=$dir/out
mkdir -p "$OUT"

run() { # $1: label, $2...: extra apply options; each on a fresh lab, taken down after
        local label=$1 t0 t1 t2
        shift
        lab_bringup --hosts "$HOSTS" --hdd "$HDD"
        rm -rf "$CEPHPROV_STATE_DIR"
        "$CEPHPROV" apply "$dir/lab/layout.yaml" --yes --stage disks >/dev/null
        t0=$(date +%s.%N)
        "$CEPHPROV" apply "$dir/lab/layout.yaml" --yes --stage osds "$@" > "$OUT/$label.log" 2>&1 ||
                { cat "$OUT/$label.log"; echo "apply $label failed"; exit 1; }
        t1=$(date +%s.%N)
        until healthy; do
                [ "$(echo "$(date +%s.%N) - $t1 > 300" | bc)" = 0 ] || { echo "no HEALTH_OK"; exit 1; }
                sleep 1
        done
        t2=$(date +%s.%N)
        cp "$CEPHPROV_STATE_DIR/ceph.journal" "$OUT/$label.journal"
        echo "$label $(echo "$t1 - $t0" | bc) $(echo "$t2 - $t0" | bc)" >> "$OUT/times"
        lab_down || true # as before: the next bring-up says whether it matters
}

run p1 --parallel 1
run default

python3 - "$OUT" <<'EOF'
import json, sys, statistics
from datetime import datetime
out = sys.argv[1]
times = {l.split()[0]: (float(l.split()[1]), float(l.split()[2])) for l in open(out + "/times")}
def ts(s): return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()
res = {}
for label in ("p1", "default"):
    recs = [json.loads(l) for l in open("%s/%s.journal" % (out, label)) if l.strip()]
    start = [r for r in recs if r.get("event") == "apply-start"][-1]
    run = start["run"]
    recs = [r for r in recs if r.get("run") == run]
    P = start.get("parallel", 1)
    created = [r for r in recs if r.get("event") == "osd-created"]
    steps = {}
    for r in recs:
        if r.get("kind") == "create-osd" and r.get("event") in ("wave-step-start", "wave-step-done"):
            steps.setdefault((r["host"], r["step"]), {})[r["event"]] = ts(r["time"])
    phase = max(s["wave-step-done"] for s in steps.values()) - min(s["wave-step-start"] for s in steps.values())
    end = [r for r in recs if r.get("event") == "apply-end"][-1]
    apply_wall = ts(end["time"]) - ts(start["time"])
    per_host = {}
    for r in created:
        per_host.setdefault(r["host"], []).append(r["seconds"])
    cp = max(max(max(d), sum(d) / min(P, len(d))) for d in per_host.values())
    secs = sorted(r["seconds"] for r in created)
    res[label] = dict(P=P, n=len(created), cmd=times[label][0], health=times[label][1], phase=phase,
                      apply=apply_wall, cp=cp, secs=secs,
                      prep=statistics.median(r.get("seconds_prepare", 0) for r in created),
                      act=statistics.median(r.get("seconds_activate", 0) for r in created),
                      start=statistics.median(r.get("seconds_start", 0) for r in created))
for label, r in res.items():
    print("%-8s parallel %d: %d OSDs; apply --stage osds %.1f s (journal: apply %.1f s, OSD phase %.1f s); HEALTH_OK + all PGs active+clean after %.1f s"
          % (label, r["P"], r["n"], r["cmd"], r["apply"], r["phase"], r["health"]))
    print("         per-OSD creation min/median/max %.1f/%.1f/%.1f s (median prepare %.1f, activate %.1f, start %.1f)"
          % (r["secs"][0], statistics.median(r["secs"]), r["secs"][-1], r["prep"], r["act"], r["start"]))
    print("         critical path %.1f s; OSD phase / critical path = %.2f; whole apply / critical path = %.2f"
          % (r["cp"], r["phase"] / r["cp"], r["apply"] / r["cp"]))
print("speed-up of the default over --parallel 1: %.2fx (apply command), %.2fx (OSD phase)"
      % (res["p1"]["cmd"] / res["default"]["cmd"], res["p1"]["phase"] / res["default"]["phase"]))
EOF
