#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# `cephprov drain` under the adaptive throttle (issues 12 and 31) on a real cluster holding
# data: 3 fake hosts, 6 BlueStore OSDs made by `cephprov apply`, ~120 MB of objects, the
# layout's `throttle: {preset: adaptive, client_p99: 200ms, ceiling: 1000ms}`.
#   - the drain measures a baseline with the probe before data moves and says so; its
#     record in the cluster carries the baseline and every key of the ladder
#   - every host's disks slow (`lab slow`: 10 MiB/s per device), so that data moves for a
#     while; the SLO 200 ms and ceiling 1000 ms, above what backfill alone does to the probe
#     here, so the brake is off before the spike
#   - a latency spike forced while data moves (node1's disks down to 6 IOPS): the brake goes
#     on (`nobackfill` in the OSD map) within three probe windows of the spike (an op past the
#     ceiling in two windows in a row), and the reason names the reading
#   - the spike removed: the brake comes off after 3 windows without a trip, to the rung
#     below the one it was put on at (not the bottom rung, whose osd_recovery_sleep is 0.2),
#     and the drain finishes: node3's OSDs down and out, every PG active+clean, every object
#     read back identical
#   - the budget: the probe ops over the SLO in the windows at a rung (brake off, no trip)
#     are at most 1 % of them (the drain's closing line says it)
#   - afterwards the throttle's keys, the flags, the balancer and the autoscaler are as they
#     were before, no record is left but the rung the drain ended on (throttle-last)
# With ADAPTIVE_FULL=1 (the `throttle` suite, --long), instead of waiting out the spike:
#   - the drain is killed (SIGKILL) with the brake on; the same command again resumes the
#     controller from the recorded baseline braked, the spike removed, the controller takes the
#     brake off once the latency is calm, the drain finishes
#   - `drain --cancel`; one OSD out by hand on slower disks; `cephprov pause` while PGs
#     backfill: nobackfill at
#     once, misplaced objects stop falling within 10 s and stay put, status shows it; a
#     cancel's restore leaves the brake on while paused; `cephprov resume` takes it off (no
#     controller runs then), the cluster gets clean, everything as before
# Prints the decisions it saw and the drain's time.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"

cephprov=${1:?usage: test-drain-adaptive.sh CEPHPROV}
full=${ADAPTIVE_FULL:-}
if [ -n "$full" ]; then lab_test_setup drain-adaptive-full cpdaf 10.99.37; else lab_test_setup drain-adaptive cpda 10.99.27; fi
[ -w /sys/fs/cgroup/blkio ] || skip "no writable blkio cgroup (/sys/fs/cgroup/blkio) to make a host's disks slow"
DRAIN_PID=
lab_cleanup_hook() { [ -n "$DRAIN_PID" ] && kill -KILL "$DRAIN_PID" 2>/dev/null; } # a drain the test left running

lab_bringup --hosts 3 --ssd 1 --hdd 2
layout=$dir/lab/layout.yaml
sed -i 's/^profiles:$/throttle:\n  preset: adaptive\n  client_p99: 200ms\n  ceiling: 1000ms\nprofiles:/' "$layout"
check_contains "the layout asks for the adaptive throttle" "$(cat "$layout")" "preset: adaptive"
"$cephprov" apply "$layout" --yes >"$dir/apply.out" 2>&1
check "apply makes the 6 OSDs" test $? -eq 0 || { tail -5 "$dir/apply.out"; finish; exit 1; }
ceph_ osd pool set data size 2 >/dev/null 2>&1
# PG logs short, as a production PG's are next to its objects: data moves by backfill then
# (which nobackfill stops), not by log-based recovery (which it does not)
for k in osd_min_pg_log_entries osd_max_pg_log_entries; do ceph_ config set osd "$k" 10; done
ceph_ config set osd osd_pg_log_trim_min 1
put_objects 30 4194304 "$dir/data"
# at least 1000 of them, however slow the machine: a bench is timed, not counted (CI: one
# 5 s bench beside other labs wrote fewer), so benches until there are (each its own
# objects: their names carry the bench's pid)
data_objects() { ceph_ df -f json | py 'import json,sys; print(sum(p["stats"]["objects"] for p in json.load(sys.stdin)["pools"] if p["name"] == "data"))'; }
for _ in 1 2 3 4 5 6 7 8; do
        on admin rados -p data bench 5 write -b 4096 -t 8 --no-cleanup >/dev/null
        [ "$(data_objects)" -ge 1000 ] && break
done
check "thousands of small objects too (rados bench)" test "$(data_objects)" -ge 1000
check "the cluster is clean with the data" wait_clean 300

osds_of() { ceph_ osd tree -f json 2>/dev/null | py '
import json, sys
for n in json.load(sys.stdin)["nodes"]:
    if n["type"] == "host" and n["name"] == sys.argv[1]:
        print(" ".join(str(c) for c in sorted(n["children"])))' "$1"; }
settings() {
        ceph_ config dump -f json 2>/dev/null | py '
import json, sys
print(sorted((e["section"], e["name"], e["value"]) for e in json.load(sys.stdin)
             if e["name"].startswith(("osd_max_backfills", "osd_recovery_max", "osd_recovery_sleep", "osd_mclock"))))'
        ceph_ osd dump -f json 2>/dev/null | py 'import json,sys; print(json.load(sys.stdin)["flags"])'
        ceph_ balancer status -f json 2>/dev/null | py 'import json,sys; d=json.load(sys.stdin); print(d["active"], d["mode"])'
        ceph_ osd pool ls detail -f json 2>/dev/null | py 'import json,sys; print(sorted((p["pool_name"], p.get("pg_autoscale_mode")) for p in json.load(sys.stdin) if p["pool_name"] != "cephprov-probe"))'
}
has_flag() { ceph_ osd dump -f json 2>/dev/null | py 'import json,sys; sys.exit(0 if sys.argv[1] in json.load(sys.stdin)["flags"].split(",") else 1)' "$1"; }
no_flag() { ! has_flag "$1"; }
before=$(settings)
n3=$(osds_of node3)
check_eq "node3 has 2 OSDs" "$(echo "$n3" | wc -w)" 2

slow() { "$lab" slow --dir "$dir/lab" "$@" >/dev/null; }
slow_all() { slow node1 "$@" && slow node2 "$@" && slow node3 "$@"; }
check "every host's disks are made slow (10 MiB/s)" slow_all --iops 0 --bps 10485760

# a runtime override the throttle cannot beat: the drain must name it
o1=$(osds_of node1 | cut -d' ' -f1)
check "osd.$o1: osd_max_backfills 7 by injectargs" ceph_ tell "osd.$o1" injectargs --osd_max_backfills 7

# 1. the drain starts: baseline, then data moves; the spike brakes it; killed with the brake on
t0=$SECONDS
"$cephprov" drain "$layout" node3 --yes >"$dir/drain1.log" 2>&1 &
DRAIN_PID=$!
moving=
for _ in $(seq 1 90); do
        sleep 1
        grep -q "throttle: adaptive, baseline" "$dir/drain1.log" && \
                ceph_ osd dump -f json 2>/dev/null | py 'import json,sys; sys.exit(0 if any(not o["in"] for o in json.load(sys.stdin)["osds"]) else 1)' \
                && { moving=1; break; }
done
check "the drain measured a baseline and marked node3's OSDs out" test -n "$moving"
grep "throttle:" "$dir/drain1.log" | head -3
rec=$(ceph_ config-key get cephprov/ceph/saved/throttle 2>/dev/null)
check_contains "the throttle record is adaptive" "$rec" '"preset":"adaptive"'
check_contains "the record carries the baseline" "$rec" '"baseline":{"ops":'
check_contains "the record restores osd_recovery_sleep too" "$rec" '"key":"osd_recovery_sleep"'
check "the probe pool exists" ceph_ osd pool get cephprov-probe size >/dev/null
check_contains "the drain names the runtime override on osd.$o1" "$(cat "$dir/drain1.log")" \
        "throttle: osd.$o1: osd_max_backfills is 7 from a runtime override"
check "ceph tell osd.$o1 config unset removes it" ceph_ tell "osd.$o1" config unset osd_max_backfills
check "the brake is off before the spike" no_flag nobackfill
check "node1's disks are made slower (6 IOPS)" slow node1 --iops 6 --bps 10485760
t_spike=$SECONDS
braked=
for _ in $(seq 1 50); do
        sleep 1
        if has_flag nobackfill; then braked=$((SECONDS - t_spike)); break; fi
done
check "the brake went on (nobackfill) after the spike (${braked:-never} s)" test -n "$braked"
# the rule waits for an op past the ceiling in two windows in a row (not one late op), and at
# queue depth 1 a window lasts until its op stuck on node1 times out (10 s): three windows
check "... within three probe windows and their ops (≤ 35 s)" test "${braked:-99}" -le 35
# the controller publishes its state right after the flag is set (before the rung's keys):
# status lags the flag by that one write
seen=
for _ in $(seq 1 10); do
        st=$("$cephprov" status "$layout" --hosts node2 --json 2>/dev/null)
        seen=$(py 'import json,sys; t=json.loads(sys.argv[1]).get("throttle") or {}; print(t.get("brake"), t.get("scheduler"))' "$st")
        [ "$seen" = "True wpq" ] && break
        sleep 1
done
check_eq "status shows the controller with the brake on (within 10 s of the flag)" "$seen" "True wpq"
check_contains "status says so in text" "$("$cephprov" status "$layout" --hosts node2 2>/dev/null)" "brake on (nobackfill)"
reason=$(grep "brake on" "$dir/drain1.log" | head -1)
echo "decision: $reason"
check "the brake's reason names a reading (a p99, or ops that timed out)" grep -qE "ms|timed out" <<< "$reason"
if [ -n "$full" ]; then
        kill -KILL "$DRAIN_PID"
        wait "$DRAIN_PID" 2>/dev/null
        DRAIN_PID=
        check "killed with the brake on: nobackfill still set" has_flag nobackfill

        # 2. the same command again: the controller resumes, the brake comes off once calm, it finishes
        check "node1's disks are back to 10 MiB/s, no IOPS limit" slow node1 --iops 0 --bps 10485760
        out=$(timeout 600 "$cephprov" drain "$layout" node3 --yes 2>&1)
        rc=$?
        check_contains "the re-run resumed the controller from the recorded baseline" "$out" "throttle: adaptive, baseline"
        check_contains "the re-run started with the brake on, and took it off" "$out" "brake off (nobackfill unset)"
else
        # 2. the spike removed: the same drain releases the brake and finishes
        check "node1's disks are back to 10 MiB/s, no IOPS limit" slow node1 --iops 0 --bps 10485760
        t_unspike=$SECONDS
        released=
        for _ in $(seq 1 60); do
                sleep 1
                if no_flag nobackfill; then released=$((SECONDS - t_unspike)); break; fi
        done
        check "the brake came off once the spike was gone (${released:-never} s)" test -n "$released"
        rc=0
        for _ in $(seq 1 300); do kill -0 "$DRAIN_PID" 2>/dev/null || break; sleep 1; done
        if kill -0 "$DRAIN_PID" 2>/dev/null; then rc=124; kill -KILL "$DRAIN_PID"; fi
        wait "$DRAIN_PID" 2>/dev/null || rc=$?
        DRAIN_PID=
        out=$(cat "$dir/drain1.log")
        rel=$(grep "brake off (nobackfill unset)" <<< "$out" | head -1)
        echo "decision: $rel"
        check_contains "the drain took the brake off" "$out" "brake off (nobackfill unset)"
        # the bottom rung is the only one with a recovery sleep (0.2 s): a release to a rung
        # above it changes the sleep back
        check "... to the rung below the brake point, not the bottom one" grep -q "osd_recovery_sleep 0.2 → 0" <<< "$rel"
fi
t_drain=$((SECONDS - t0))
echo "$out" | grep "throttle:" | head -16
budget=$(grep -o "the SLO over the run: .*" <<< "$out" | tail -1)
echo "budget: $budget"
share=$(sed -n 's/.* at a rung (\([0-9.]*\) %, budget.*/\1/p' <<< "$budget")
check "the drain said how the SLO was kept" test -n "$share"
check "the probe ops over the SLO at a rung are within the 1 % budget (${share:-?} %)" \
        py 'import sys; sys.exit(0 if float(sys.argv[1]) <= 1.0 else 1)' "${share:-100}"
check "the drain finishes" test $rc -eq 0
check "the brake is off" no_flag nobackfill
check "every PG active+clean" wait_clean 120
state=$(ceph_ osd dump -f json 2>/dev/null | py '
import json, sys
ids = [int(x) for x in sys.argv[1].split()]
print(" ".join("%d:%d:%d" % (o["osd"], o["up"], o["in"]) for o in json.load(sys.stdin)["osds"] if o["osd"] in ids))' "$n3")
check_eq "node3's OSDs are down and out" "$state" "$(for i in $n3; do printf '%s:0:0 ' "$i"; done | sed 's/ $//')"
check "every object reads back identical" objects_identical 30 "$dir/data" "$dir/back"
check_eq "the throttle's keys, flags, balancer and autoscaler are as before" "$(settings)" "$before"
check "no throttle record is left" bash -c "! '$ceph_lab' cli --dir '$dir/lab' config-key get cephprov/ceph/saved/throttle >/dev/null 2>&1"
check "status shows no throttle once restored" bash -c "! '$cephprov' status '$layout' --json 2>/dev/null | grep -q '\"throttle\"'"
check "no brake record is left" bash -c "! '$ceph_lab' cli --dir '$dir/lab' config-key get cephprov/ceph/saved/flag-nobackfill >/dev/null 2>&1"
last=$(ceph_ config-key get cephprov/ceph/throttle-last 2>/dev/null)
check_contains "the rung the drain ended on is kept for the next one" "$last" '"scheduler":"wpq"'
echo "drain under the adaptive throttle, with a forced spike${full:+ and a kill}: $t_drain s"
[ -n "$full" ] || { finish; exit; }

# 3. `cephprov pause` stops backfill that is under way; restore leaves the brake on while
#    paused; `cephprov resume` takes it off (no controller runs then) and the data moves again
backfilling() { ceph_ pg ls backfilling -f json 2>/dev/null | py '
import json, sys
d = json.load(sys.stdin)
print(len(d.get("pg_stats", []) if isinstance(d, dict) else d))'; }
misplaced() { ceph_ status -f json 2>/dev/null | py '
import json, sys
print(json.load(sys.stdin)["pgmap"].get("misplaced_objects", 0))'; }
"$cephprov" drain "$layout" node3 --cancel --yes >"$dir/cancel.log" 2>&1
check "drain --cancel: node3's OSDs in again" test $? -eq 0
check "clean after the cancel (node3's OSDs kept their data)" wait_clean 300
# backfill to pause: one of node2's OSDs out by hand, every disk at 2 MiB/s so it lasts
check "every host's disks at 2 MiB/s" slow_all --iops 0 --bps 2097152
o2=$(osds_of node2 | cut -d' ' -f1)
check "osd.$o2 out by hand: its PGs backfill elsewhere" ceph_ osd out "$o2"
moving=
for _ in $(seq 1 60); do
        [ "$(backfilling)" -gt 0 ] && { moving=1; break; }
        sleep 1
done
check "backfill is under way (PGs backfilling)" test -n "$moving"
# the rate before: once the count falls (it first rises while PGs remap)
ma= mb=$(misplaced)
for _ in $(seq 1 30); do
        sleep 2
        ma=$mb mb=$(misplaced)
        [ "$mb" -lt "$ma" ] && break
done
t_pause=$SECONDS
pout=$("$cephprov" pause "$layout" 2>&1)
check "cephprov pause" test $? -eq 0
echo "$pout"
check "pause sets nobackfill at once" has_flag nobackfill
# the PGs keep their state (and reservations): the objects stop moving
stopped= prev=$(misplaced)
for _ in $(seq 1 15); do
        sleep 2
        cur=$(misplaced)
        [ "$cur" -ge "$prev" ] && { stopped=$((SECONDS - t_pause)); break; }
        prev=$cur
done
# what was in flight finishes (each PG's current chunk, at 2 MiB/s per disk): the last run
# saw the count stop 11 s after the pause, polled every 2 s
check "misplaced objects stop falling within three windows of the pause (${stopped:-never} s ≤ 15 s)" test "${stopped:-99}" -le 15
m1=$(misplaced)
sleep 10
m2=$(misplaced)
ceph_ pg dump pgs_brief -f json 2>/dev/null | py '
import collections, json, sys
d = json.load(sys.stdin)
d = d.get("pg_stats", d) if isinstance(d, dict) else d
print("while paused:", dict(collections.Counter(p["state"] for p in d)))'
# log-based recovery goes on under nobackfill (docs/ceph.md): what is left must be a trickle
echo "misplaced objects: $ma → $mb in 2 s before the pause, $m1 → $m2 in 10 s while paused"
check "while paused, objects move at most a third as fast as before ($(( (m1 - m2) / 10 ))/s against $(( (ma - mb) / 2 ))/s)" \
        test $(( (m1 - m2) * 2 * 3 )) -le $(( (ma - mb) * 10 )) -a "$ma" -gt "$mb"
check "status --json shows the pause" bash -c "'$cephprov' status '$layout' --json 2>/dev/null | python3 -c 'import json,sys; sys.exit(0 if \"by\" in json.load(sys.stdin).get(\"pause\", {}) else 1)'"
check_contains "status says so in text" "$("$cephprov" status "$layout" 2>/dev/null)" "paused by cephprov pause"
again=$("$cephprov" drain "$layout" node3 --cancel --yes 2>&1)
check "a cancel's restore while paused" test $? -eq 0
check_contains "... says the brake stays on" "$again" "stays on: paused by the operator"
check "... and leaves nobackfill set" has_flag nobackfill
rout=$("$cephprov" resume "$layout" --json 2>&1)
check "cephprov resume" test $? -eq 0
check_eq "resume released the brake itself (no adaptive throttle runs)" \
        "$(py 'import json,sys; d=json.loads(sys.argv[1]); print(d["was_paused"], d["adaptive_running"], d["brake"])' "$rout")" \
        "True False released"
check "the brake is off after resume" no_flag nobackfill
# the rest is the way back: on unlimited disks (at 2 MiB/s it took minutes)
check "every host's disks unlimited again" slow_all --off
check "every PG active+clean after resume" wait_clean 600
check_eq "flags, throttle keys, balancer and autoscaler as before" "$(settings)" "$before"
check "osd.$o2 in again" ceph_ osd in "$o2"
check "clean with osd.$o2 in" wait_clean 600
check "no pause or brake record is left" bash -c "! '$ceph_lab' cli --dir '$dir/lab' config-key get cephprov/ceph/pause >/dev/null 2>&1 && ! '$ceph_lab' cli --dir '$dir/lab' config-key get cephprov/ceph/saved/flag-nobackfill >/dev/null 2>&1"
echo "pause: backfill stopped in ${stopped:-?} s"

finish
