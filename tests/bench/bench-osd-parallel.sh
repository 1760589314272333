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
# Env: LAB, CEPH_LAB, LAB_PREFIX, LAB_SUBNET, BENCH_HOSTS (3), BENCH_HDD (HDDs per host, 4).
set -euo pipefail

CEPHPROV=$(realpath "${1:?usage: $0 CEPHPROV}")
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
LAB=${LAB:-$top/contrib/lab/lab}
CEPH_LAB=${CEPH_LAB:-$top/contrib/lab/ceph}
export LAB_PREFIX=${LAB_PREFIX:-cpbo}
export LAB_SUBNET=${LAB_SUBNET:-10.99.8}
HOSTS=${BENCH_HOSTS:-3}
HDD=${BENCH_HDD:-4}

if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root"; exit 77; fi
command -v ceph-volume >/dev/null || { echo "SKIP: ceph-volume is not installed"; exit 77; }
[ -x "$CEPH_LAB" ] || { echo "SKIP: no Ceph lab script '$CEPH_LAB'"; exit 77; }

DIR=
OUT=$(mktemp -d /tmp/cephprov-bench-osd.XXXXXX)
down() {
        [ -n "$DIR" ] || return 0
        "$CEPH_LAB" down --dir "$DIR" >/dev/null 2>&1 || true
        "$LAB" down --dir "$DIR" >/dev/null 2>&1 || true
        rm -rf "$DIR"
        DIR=
}
trap 'rc=$?; set +e; down; rm -rf "$OUT"; exit $rc' EXIT

run() { # $1: label, $2...: extra apply options
        local label=$1 t0 t1 t2
        shift
        DIR=$(mktemp -d /tmp/cephprov-bench-lab.XXXXXX)
        "$LAB" up --dir "$DIR" --hosts "$HOSTS" --hdd "$HDD" >/dev/null
        "$CEPH_LAB" up --dir "$DIR" >/dev/null 2>&1
        export CEPHPROV_STATE_DIR=$DIR/state
        "$CEPHPROV" apply "$DIR/layout.yaml" --yes --stage disks >/dev/null
        t0=$(date +%s.%N)
        "$CEPHPROV" apply "$DIR/layout.yaml" --yes --stage osds "$@" > "$OUT/$label.log" 2>&1 ||
                { cat "$OUT/$label.log"; echo "apply $label failed"; exit 1; }
        t1=$(date +%s.%N)
        until "$CEPH_LAB" cli --dir "$DIR" health 2>/dev/null | grep -q HEALTH_OK &&
                "$CEPH_LAB" cli --dir "$DIR" pg stat -f json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
d = d.get("pg_summary", d)
n = {x["name"]: x["num"] for x in d["num_pg_by_state"]}
sys.exit(0 if d["num_pgs"] > 0 and n.get("active+clean") == d["num_pgs"] else 1)'; do
                [ "$(echo "$(date +%s.%N) - $t1 > 300" | bc)" = 0 ] || { echo "no HEALTH_OK"; exit 1; }
                sleep 1
        done
        t2=$(date +%s.%N)
        cp "$CEPHPROV_STATE_DIR/ceph.journal" "$OUT/$label.journal"
        echo "$label $(echo "$t1 - $t0" | bc) $(echo "$t2 - $t0" | bc)" >> "$OUT/times"
        down
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
        if r.get("kind") == "create-osd" and r.get("event") in ("step-start", "step-done"):
            steps.setdefault((r["host"], r["step"]), {})[r["event"]] = ts(r["time"])
    phase = max(s["step-done"] for s in steps.values()) - min(s["step-start"] for s in steps.values())
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
