#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The agent's `rados-probe` (issue 12's latency sensor, issue 11's canary) on a real cluster:
# 2 fake hosts, 4 BlueStore OSDs made by `cephprov apply`, the agent started on the admin host
# as the controller starts it (`cephprov agent`, the JSON-lines protocol on stdin/stdout).
#   - a 3 s mixed probe of 8 objects: hundreds of ops at queue depth 1, writes and reads each
#     timed, no error, the window as long as asked, the objects in the pool afterwards; and on
#     a schedule (the adaptive throttle's: `rate`, `inflight`): every op due answered or counted
#   - a pool that does not exist: ENOENT naming it
#   - a paused cluster (`osd pause`): every op times out after op_timeout, counted as errors
#     (ETIMEDOUT named), and the probe still ends in time
#   - node2's disks throttled to a few IOPS (`lab slow`, a blkio cgroup): the probe's write p99 rises well
#     above the quiet one (every write waits for node2's replica)
#   - the canary's benchmark gate (`benchmark` step, `ceph tell osd.N bench`) on node1: a
#     measurement recorded in the cluster, BENCH_NOISE_RUNS (default 3) comparisons with
#     nothing changed all pass, one with node1's disks slow fails with the figures
# Prints the quiet and the slow percentiles, and the benchmark's ratios.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"

cephprov=${1:?usage: test-rados-probe.sh CEPHPROV}
lab_test_setup rados-probe cppr 10.99.26
lab_bringup --hosts 2 --ssd 1 --hdd 2
"$cephprov" apply "$dir/lab/layout.yaml" --yes >"$dir/apply.out" 2>&1
check "apply makes the 4 OSDs (on the shared lab: finds its 6 made)" test $? -eq 0
ceph_ osd pool create cephprov-probe 8 8 >/dev/null 2>&1
ceph_ osd pool set cephprov-probe size 2 >/dev/null 2>&1
ceph_ osd pool application enable cephprov-probe cephprov >/dev/null 2>&1
check "the cluster is clean" wait_clean 300

# probe ARGS_JSON: the agent on the admin host answers one rados-probe request; prints the
# result (or the error) object as one line of JSON
probe() {
        on admin "$cephprov" agent 2>>"$dir/agent.err" <<EOF | py '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("id") == 2 and "ok" in m:
        print(json.dumps(m.get("result") if m.get("ok") else {"error": m.get("error")}))
        break'
{"id":1,"op":"configure","args":{"host":"admin","allow":[]}}
{"id":2,"op":"rados-probe","args":$1}
{"id":3,"op":"exit"}
EOF
}
# pct JSON KEY P: the P-th percentile (nearest rank) of the latencies under KEY
pct() { py '
import json, math, sys
v = sorted(json.loads(sys.argv[1])[sys.argv[2]])
print(v[max(0, math.ceil(float(sys.argv[3]) / 100 * len(v)) - 1)] if v else -1)' "$1" "$2" "$3"; }
field() { py 'import json, sys; print(json.loads(sys.argv[1]).get(sys.argv[2]))' "$1" "$2"; }

objs='["probe-0","probe-1","probe-2","probe-3","probe-4","probe-5","probe-6","probe-7"]'

# 1. a quiet cluster
t0=$SECONDS
quiet=$(probe "{\"pool\":\"cephprov-probe\",\"objects\":$objs,\"seconds\":3}")
ops=$(field "$quiet" ops)
check "the probe answered (${quiet:0:200})" test -n "$ops" -a "$ops" != None
check "the probe made more than 100 ops in 3 s ($ops)" test "${ops:-0}" -gt 100
check_eq "no errors" "$(field "$quiet" errors)" 0
nw=$(py 'import json, sys; r = json.loads(sys.argv[1]); print(len(r["write_ms"]), len(r["read_ms"]))' "$quiet")
check "writes and reads both timed ($nw)" py 'import sys; w, r = map(int, sys.argv[1].split()); sys.exit(0 if w > 50 and r > 50 and abs(w - r) <= 1 else 1)' "$nw"
el=$(field "$quiet" elapsed_ms)
check "the window lasted the 3 s asked ($el ms)" py 'import sys; sys.exit(0 if 3000 <= float(sys.argv[1]) < 3500 else 1)' "$el"
check "every latency is positive" py 'import json, sys; r = json.loads(sys.argv[1]); sys.exit(0 if all(x > 0 for x in r["write_ms"] + r["read_ms"]) else 1)' "$quiet"
listed=$(on admin rados -p cephprov-probe ls 2>/dev/null | sort | tr '\n' ' ')
check_eq "the 8 objects are in the pool" "$listed" "probe-0 probe-1 probe-2 probe-3 probe-4 probe-5 probe-6 probe-7 "
qw99=$(pct "$quiet" write_ms 99) qr99=$(pct "$quiet" read_ms 99) qw50=$(pct "$quiet" write_ms 50)
echo "quiet: $ops ops in $el ms; write p50 $qw50 ms p99 $qw99 ms; read p99 $qr99 ms"

# 1b. on a schedule (the adaptive throttle's probe): 50 ops a second for 3 s are 150 ops due,
# each answered or counted, whatever the latency; reads of objects not written yet are answers
sched=$(probe "{\"pool\":\"cephprov-probe\",\"objects\":[\"sched-0\",\"sched-1\",\"sched-2\"],\"seconds\":3,\"rate\":50,\"inflight\":8}")
check_eq "on a schedule: the 150 ops due, each answered or counted (${sched:0:120})" \
        "$(py 'import json, sys; r = json.loads(sys.argv[1]); print(r["ops"] + r["errors"])' "$sched")" 150
check_eq "on a schedule: no errors on a quiet cluster" "$(field "$sched" errors)" 0
check "on a schedule: writes and reads both timed, every latency positive" py 'import json, sys; r = json.loads(sys.argv[1]); sys.exit(0 if len(r["write_ms"]) == 75 and len(r["read_ms"]) == 75 and all(x > 0 for x in r["write_ms"] + r["read_ms"]) else 1)' "$sched"
el=$(field "$sched" elapsed_ms)
check "on a schedule: the window lasted about the 3 s asked ($el ms)" py 'import sys; sys.exit(0 if 2900 <= float(sys.argv[1]) < 3500 else 1)' "$el"
bad=$(probe "{\"pool\":\"cephprov-probe\",\"objects\":[\"a\"],\"rate\":1001}")
check_contains "a rate out of range is refused (${bad:0:120})" "$bad" "rate 1001 is not in 0..1000 ops a second"
echo "on a schedule: $(field "$sched" ops) ops in $el ms; write p50 $(pct "$sched" write_ms 50) ms p99 $(pct "$sched" write_ms 99) ms"

# 2. no such pool
nopool=$(probe "{\"pool\":\"no-such-pool\",\"objects\":[\"a\"],\"seconds\":1}")
check_contains "a missing pool is named ($nopool)" "$nopool" "pool 'no-such-pool': no such pool"
check_contains "... with ENOENT" "$nopool" '"errno": "ENOENT"'

# 3. a paused cluster: ops time out, counted, and the probe ends in time
ceph_ osd pause >/dev/null 2>&1
t0=$SECONDS
paused=$(probe "{\"pool\":\"cephprov-probe\",\"objects\":$objs,\"seconds\":3,\"op_timeout\":2}")
took=$((SECONDS - t0))
ceph_ osd unpause >/dev/null 2>&1
check "paused: ops failed ($(field "$paused" errors) errors)" test "$(field "$paused" errors)" -ge 1
check_eq "paused: the failure is a timeout" "$(field "$paused" first_errno)" ETIMEDOUT
check_eq "paused: no op completed" "$(field "$paused" ops)" 0
check "paused: the probe ended within its window plus one op timeout and start-up ($took s)" test "$took" -le 12
echo "paused: $(field "$paused" errors) errors ($(field "$paused" first_error)) in $took s"
# ... and on a schedule: every op due is counted (30), those due while the 8 in flight hung
# more than op_timeout before a slot freed are not sent (late), and it still ends in time
ceph_ osd pause >/dev/null 2>&1
t0=$SECONDS
psched=$(probe "{\"pool\":\"cephprov-probe\",\"objects\":$objs,\"seconds\":3,\"op_timeout\":2,\"rate\":10,\"inflight\":8}")
took=$((SECONDS - t0))
ceph_ osd unpause >/dev/null 2>&1
check_eq "paused, on a schedule: the 30 ops due all failed (${psched:0:160})" "$(field "$psched" errors)/$(field "$psched" ops)" 30/0
check "paused, on a schedule: some were not sent, due more than op_timeout ago ($(field "$psched" late))" test "$(field "$psched" late)" -ge 1
check "paused, on a schedule: ended within the window plus two op timeouts and start-up ($took s)" test "$took" -le 14
check "clean again after unpause" wait_clean 120

# 4. node2's disks slow: the probe sees it
blk=/sys/fs/cgroup/blkio
if [ -w "$blk" ]; then
        check "node2's disks are made slow (lab slow: 20 IOPS)" "$lab" slow --dir "$dir/lab" node2 --iops 20
        slow=$(probe "{\"pool\":\"cephprov-probe\",\"objects\":$objs,\"seconds\":3}")
        sw99=$(pct "$slow" write_ms 99) sw50=$(pct "$slow" write_ms 50)
        echo "slow:  $(field "$slow" ops) ops; write p50 $sw50 ms p99 $sw99 ms (quiet p50 $qw50 ms p99 $qw99 ms)"
        check "the probe's write p50 rises at least 3 times with node2 slow ($sw50 vs $qw50 ms)" \
                py 'import sys; sys.exit(0 if float(sys.argv[1]) >= 3 * float(sys.argv[2]) else 1)' "$sw50" "$qw50"
        check "node2's disks are fast again" "$lab" slow --dir "$dir/lab" node2 --off
else
        check "a writable blkio cgroup ($blk) to make node2's disks slow" false
fi

# 5. the canary's benchmark gate (issue 11): the `benchmark` step through `cephprov run` on
# node1's two OSDs, a measurement 'base', then BENCH_NOISE_RUNS comparisons with nothing
# changed (each must pass: the default threshold is not flaky here), then node1's disks
# made slow (lab slow) and one more comparison (it must fail, naming the figures)
cat > "$dir/bench-base.yaml" <<'YAML'
playbook: bench-base
per_host:
  - step: benchmark
    args: {label: base}
YAML
cat > "$dir/bench-compare.yaml" <<'YAML'
playbook: bench-compare
per_host:
  - step: benchmark
    args: {label: again, compare_to: base}
YAML
L=$dir/lab/layout.yaml
t0=$SECONDS
"$cephprov" run "$dir/bench-base.yaml" "$L" --hosts node1 --yes >"$dir/bench-base.out" 2>&1
check "benchmark 'base' of node1 runs ($((SECONDS - t0)) s)" test $? -eq 0 || tail -20 "$dir/bench-base.out"
rec=$(ceph_ config-key get cephprov/ceph/benchmark/node1/base 2>/dev/null)
check "the measurement is recorded in the cluster (${rec:0:160})" \
        py 'import json, sys; r = json.loads(sys.argv[1]); sys.exit(0 if r["label"] == "base" and r["host"] == "node1" and len(r["osds"]) == 2 and all(o["small_iops"] > 0 and o["large_mbps"] > 0 for o in r["osds"]) else 1)' "$rec"
runs=${BENCH_NOISE_RUNS:-3} passed=0
for i in $(seq "$runs"); do
        "$cephprov" run "$dir/bench-compare.yaml" "$L" --hosts node1 --yes >"$dir/bench-same-$i.out" 2>&1 && passed=$((passed + 1))
        echo "no change, run $i: $(grep -E '^all ' "$dir/bench-same-$i.out" | tr -s ' ')"
done
check_eq "with nothing changed the gate passes $runs times of $runs" "$passed" "$runs" || tail -30 "$dir/bench-same-1.out"
if [ -w "$blk" ]; then
        check "node1's disks are made slow (lab slow: 1000 IOPS, 50 MiB/s)" "$lab" slow --dir "$dir/lab" node1 --iops 1000 --bps 52428800
        "$cephprov" run "$dir/bench-compare.yaml" "$L" --hosts node1 --yes >"$dir/bench-slow.out" 2>&1
        rc=$?
        "$lab" slow --dir "$dir/lab" node1 --off >/dev/null
        echo "node1 slow: $(grep -E '^all ' "$dir/bench-slow.out" | tr -s ' ')"
        check "with node1's disks slow the gate fails" test "$rc" -ne 0
        check_contains "... saying the OSDs are slower, with the figures" "$(cat "$dir/bench-slow.out")" \
                "the OSDs are slower than max_regression 100% allows" || tail -30 "$dir/bench-slow.out"
        check_contains "... side by side per OSD" "$(cat "$dir/bench-slow.out")" "osd.0 "
fi
check "clean at the end" wait_clean 120

# the cluster as it was found (tests/lab/test-shared-lab.sh checks it): the probe's pool gone,
# the monitors' permission to delete it taken back
ceph_ config set mon mon_allow_pool_delete true >/dev/null 2>&1
ceph_ osd pool rm cephprov-probe cephprov-probe --yes-i-really-really-mean-it >/dev/null 2>&1
check "the probe's pool is removed" bash -c "! $(printf %q "$ceph_lab") cli --dir $(printf %q "$dir/lab") osd pool ls 2>/dev/null | grep -qx cephprov-probe"
ceph_ config rm mon mon_allow_pool_delete >/dev/null 2>&1

finish
