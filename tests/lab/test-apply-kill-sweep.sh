#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# `cephprov apply` killed with SIGKILL at moments chosen to land in every phase of apply,
# on a real Ceph cluster (lab suite, root only; the long list runs in the `sweep` suite).
# One lab and one cluster for all points; between points the test itself puts the hosts
# back to blank disks and an empty OSD map (test scaffolding, not cephprov).
#
# A point is PHASE[:DELAY]: wait until the journal shows PHASE has begun, wait DELAY
# seconds, kill -9 the controller, then assert from the journal which phase the kill hit
# (the steps in flight by the journal: the kill must have hit PHASE). Phases:
#   partition   a create-gpt / create-partition step
#   allocation  ids of an interrupted run being reused (destroy + class): needs ids left in
#               the map, so a first run is crashed in prepare, the second one killed here
#   prepare     ceph-volume prepare (the ceph-volume runs of the killed controller go on)
#   crash       DELAY s after the first `ceph-osd --mkfs` started, the controller and every
#               ceph-volume and mkfs process on the hosts are killed (a crash of everything):
#               half-made BlueStore labels that the re-run must redo with the same ids
#   activate    ceph-volume activate
#   start       systemctl start ceph-osd@N
#   wait-up     the controller waits for the OSDs to come up and in (the test holds them
#               down with noup until the kill: on loop devices they come up at once)
#   hangup      DELAY s after the first `ceph-osd --mkfs` started, the controller alone: the
#               agents see the connection drop and kill their ceph-volume runs themselves
#   foreign     no kill: a half-made BlueStore label that no run of cephprov made (a random
#               osd uuid) on one data device: apply refuses that device and leaves its bytes
#               as they were, and makes the other OSDs
#   unreachable a crash in prepare, then a re-run with one host unreachable: that host's
#               pending ids must stay in the OSD map (not released), the others converge;
#               then with the host back, everything converges
# After every point (a chain: after its last kill): the re-run converges exactly — the
# planned number of OSDs, ids dense from 0 (none leaked or stray), all up and in, none
# destroyed, one OSD per planned data device with block.db on its planned partition — and a
# third run is a no-op.
#
# Usage: test-apply-kill-sweep.sh CEPHPROV
# A chain P1>P2>...: one run killed at P1, the next run (which resumes what P1's left) killed
# at P2, and so on; then the re-run that converges. A kill pays for its phase only, not for
# a whole apply from blank disks before it (tests/README.md). Each run after a kill must
# take the dead run's cluster lock at once. 'foreign' and 'unreachable' are points of their
# own (they need blank disks and a run of their own).
# CI (the default): one chain through every phase, then unreachable and foreign; the
# `sweep` suite runs 11 points each alone (a blank lab and a converging re-run after each).
#
# Env: KILL_POINTS (default: one point per phase), LAB, CEPH_LAB, LAB_PREFIX, LAB_SUBNET,
#      KEEP_LAB=1 (tests/lab/lab-lib.sh).
set -euo pipefail

CEPHPROV=$(realpath "${1:?usage: $0 CEPHPROV}")
POINTS=${KILL_POINTS:-partition:0>crash:1>allocation>prepare:4>activate:0>start:0>wait-up:0.5 unreachable foreign}
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"
APPLY_PID=
KILLED_LAST=0
lab_cleanup_hook() { [ -n "${APPLY_PID:-}" ] && kill -KILL "$APPLY_PID" 2>/dev/null; }
lab_test_setup kill-sweep cpks 10.99.15 python3 wipefs partx

fail() { echo "FAIL [$POINT]: $*" >&2; exit 1; }
ok() { echo "ok [$POINT]: $*"; }
POINT=setup

lab_bringup --hosts 3
DIR=$dir/lab # the test's own files beside the lab's; each point's state in $DIR/state-N
L=$DIR/layout.yaml
"$CEPHPROV" inventory "$L" --save "$DIR/inv-blank.json" >/dev/null
"$CEPHPROV" plan "$L" --inventory "$DIR/inv-blank.json" --json > "$DIR/plan.json"
n_planned=$(py 'import json,sys; p=json.load(open(sys.argv[1])); print(sum(1 for h in p["hosts"] for s in h["steps"] if s["kind"]=="create-osd"))' "$DIR/plan.json")
[ "$n_planned" -ge 6 ] || fail "expected at least 6 planned OSDs, the plan has $n_planned"

# Back to blank disks and an empty OSD map (what a fresh lab would be, in a few seconds).
reset_lab() {
        local h ids
        for h in $(lab_hosts); do
                on "$h" sh -c '
                        for p in /run/ceph/ceph-osd.*.pid; do
                                [ -e "$p" ] || continue
                                n=${p#/run/ceph/ceph-osd.}; n=${n%.pid}
                                systemctl stop "ceph-osd@$n" >/dev/null 2>&1 || true
                        done
                        for d in /var/lib/ceph/osd/ceph-*; do
                                [ -e "$d" ] || continue
                                while mountpoint -q "$d"; do umount "$d" || break; done
                                rm -rf "$d"
                        done
                        rm -rf /var/lib/ceph/lab-systemd /run/ceph/lab-systemd /run/cephprov' || true
        done
        ids=$(ceph_ osd ls 2>/dev/null || true)
        for i in $ids; do
                ceph_ osd down "$i" >/dev/null 2>&1 || true
                local k
                for k in $(seq 30); do
                        ceph_ osd purge "$i" --yes-i-really-mean-it >/dev/null 2>&1 && break
                        [ "$k" = 30 ] && fail "cannot purge osd.$i in the reset"
                        ceph_ osd down "$i" >/dev/null 2>&1 || true
                        sleep 1
                done
        done
        for h in $(lab_hosts); do ceph_ osd crush rm "$h" >/dev/null 2>&1 || true; done
        for h in $(lab_hosts); do
                while read -r dev _; do
                        partx -d "$dev" 2>/dev/null || true
                        wipefs -a -q "$dev" >/dev/null 2>&1 || true
                        local sz; sz=$(blockdev --getsize64 "$dev")
                        dd if=/dev/zero of="$dev" bs=1M count=8 conv=fsync status=none
                        dd if=/dev/zero of="$dev" bs=1M count=1 seek=$((sz / 1048576 - 1)) conv=fsync status=none
                done < "$DIR/hosts/$h/loops"
        done
        [ -z "$(ceph_ osd ls)" ] || fail "the reset left OSD ids"
}

# The phase of a journal record (python, for the assertions).
PHASE_PY='
import json, sys
def phase(r):
    ev, kind = r.get("event"), r.get("kind")
    if ev in ("wave-step-start", "wave-step-done", "wave-step-failed", "wave-step-cancelled") and kind in ("create-gpt", "create-partition", "wipe"):
        return "partition"
    # a fresh id is only a journal record (no cluster call), written while the disk steps
    # run: not a phase of its own; reusing the ids of an interrupted run calls the cluster
    if ev == "osd-allocated" and not r.get("reused"):
        return None
    if ev in ("osd-allocating", "osd-allocated", "osd-half-made-owned", "osd-id-recreated"):
        return "allocation"
    if ev == "osd-phase":
        return r.get("phase")
    if ev == "osd-created":
        return "start"
    if ev == "osd-wait-up":
        return "wait-up"
    return None
'

# Returns when the journal, past its first $2 lines (this run's records), shows phase $1
# begun; 1 if apply ended first. grep, not python: a poll must cost milliseconds, or the
# short phases (a partition step is ~0.2 s) are over before the kill.
wait_phase() {
        local want=$1 skip=$2 pat
        case $want in
        partition) pat='"kind":"create-\(gpt\|partition\)".*"event":"wave-step-start"' ;;
        allocation) pat='"reused":.*"event":"osd-allocated"' ;;
        wait-up) pat='"event":"osd-wait-up"' ;;
        *) pat="\"phase\":\"$want\".*\"event\":\"osd-phase\"" ;;
        esac
        for _ in $(seq 30000); do
                journal_since "$skip" | grep -q "$pat" && return 0
                kill -0 "$APPLY_PID" 2>/dev/null || return 1
                sleep 0.005
        done
        return 1
}

# The run id of the newest apply-start (or any first record) in journal $1.
run_of() { py 'import json,sys
runs=[json.loads(l).get("run") for l in open(sys.argv[1]) if l.strip().endswith("}")]
print(runs[-1] if runs else "")' "$1" 2>/dev/null || true; }

# Starts apply in the background, kills it DELAY s after PHASE began, asserts the phase hit.
kill_at() {
        local phase=$1 delay=$2 j=$CEPHPROV_STATE_DIR/ceph.journal log=$3 how=${4:-} alloc_host=${5:-}
        local before hold=
        # a partition step takes ~0.2 s: held 1 s once started (CEPHPROV_TEST_HOLD_STEP, fault
        # injection in src/exec/journal.c), or on a busy machine the poll finds it over
        [ "$phase" = partition ] && hold=create-gpt,create-partition
        before=$(journal_lines)
        CEPHPROV_TEST_HOLD_STEP=$hold CEPHPROV_TEST_HOLD_SECONDS=1 "$CEPHPROV" apply "$L" --yes > "$log" 2>&1 &
        APPLY_PID=$!
        # the new run's records: wait for its first one so run_of names it
        for _ in $(seq 600); do
                [ "$(journal_lines)" -gt "$before" ] && break
                kill -0 "$APPLY_PID" 2>/dev/null || break
                sleep 0.05
        done
        wait_phase "$phase" "$before" || { cat "$log"; fail "apply ended before phase '$phase' began"; }
        # a crash or a hang-up is timed from the first mkfs: that is when half-made labels exist
        if [ "$how" = crash ] || [ "$how" = hangup ]; then
                local k
                for k in $(seq 1500); do
                        [ -n "$(host_osd_work mkfs)" ] && break
                        kill -0 "$APPLY_PID" 2>/dev/null || break
                        sleep 0.02
                done
        fi
        sleep "$delay"
        # and, when asked, once an id this run allocated on that host is in the OSD map
        # (ceph-volume's `osd new` there: each creation reads the OSD map first, so a host's
        # first prepare can come seconds after the first mkfs on a busy machine)
        if [ -n "$alloc_host" ]; then
                local ids inmap
                for _ in $(seq 240); do
                        ids=$(tail -n +"$((before + 1))" "$j" | grep '"osd-allocated"' | grep "\"host\":\"$alloc_host\"" |
                                sed -n 's/.*"osd_id":\([0-9]*\).*/\1/p' | sort -u)
                        inmap=$(ceph_ osd ls 2>/dev/null)
                        [ -n "$ids" ] && grep -qxF -f <(echo "$ids") <<<"$inmap" && break
                        kill -0 "$APPLY_PID" 2>/dev/null || break
                        sleep 0.5
                done
        fi
        kill -0 "$APPLY_PID" 2>/dev/null || { cat "$log"; fail "apply ended before the kill ($phase + $delay s)"; }
        kill -KILL "$APPLY_PID"
        wait "$APPLY_PID" 2>/dev/null || true
        APPLY_PID=
        KILLED_LAST=1
        [ "$how" = crash ] && kill_host_osd_work
        local hit
        # what was in flight when the kill landed: disk steps started and not ended, each
        # unfinished OSD creation by the last phase it reported, a reused id whose creation
        # had not begun, the wait for up not ended
        hit=$(py "$PHASE_PY"'
run = sys.argv[2]
disk, osd, alloc, wait = {}, {}, {}, False
for line in open(sys.argv[1]):
    try: r = json.loads(line)
    except Exception: continue
    if r.get("run") != run: continue
    ev, key = r.get("event"), (r.get("host"), r.get("device"))
    p = phase(r)
    if p == "partition":
        disk[(key, r.get("step"))] = ev == "wave-step-start"
    elif p == "allocation":
        alloc[key] = True
    elif ev == "osd-phase":
        osd[key] = p
        alloc.pop(key, None)
    elif ev == "wave-step-start" and r.get("kind") == "create-osd":
        osd[key] = "prepare" # begun: its lock and checks come before the first phase report
    elif ev in ("osd-created", "osd-failed"):
        osd.pop(key, None)
    elif ev == "osd-wait-up":
        wait = True
    elif ev == "osd-all-up":
        wait = False
flight = set(osd.values())
if any(disk.values()): flight.add("partition")
if alloc: flight.add("allocation")
if wait: flight.add("wait-up")
print(" ".join(sorted(flight)) or "nothing")' "$j" "$(run_of "$j")")
        case " $hit " in
        *" $phase "*) ;;
        *) fail "the kill meant for '$phase' (+$delay s) hit only: $hit (from the journal)" ;;
        esac
        ok "killed in '$phase' ($delay s after it began; in flight: $hit)"
}

# SIGKILL to every ceph-volume and `ceph-osd --mkfs` in this lab's host namespaces (and
# nowhere else: only pids inside our own network namespaces).
# One pgrep over the machine, then only the pids in this lab's host namespaces: a poll of
# every pid's cmdline with a grep each took long enough, under load, for every OSD of the run
# to finish its prepare before the first mkfs was seen (CI: the crash meant for prepare hit
# only activate).
host_osd_work() { # $1: "mkfs" for ceph-osd --mkfs only
        local h pid ns nets=" " pat='ceph-volume|ceph-osd.*--mkfs'
        [ "${1:-}" = mkfs ] && pat='ceph-osd.*--mkfs'
        for h in $(lab_hosts); do
                nets+="$(stat -L -c %i "/var/run/netns/$LAB_PREFIX-$h" 2>/dev/null) "
        done
        for pid in $(pgrep -f "$pat"); do
                ns=$(stat -L -c %i "/proc/$pid/ns/net" 2>/dev/null) || continue
                [[ "$nets" == *" $ns "* ]] && echo "$pid"
        done
        return 0
}
kill_host_osd_work() {
        local pid n=0
        for pid in $(host_osd_work); do
                kill -KILL "$pid" 2>/dev/null && n=$((n + 1))
        done
        echo "ok [$POINT]: killed $n ceph-volume / mkfs processes on the hosts"
}

# A half-made label nobody can account for: refused, untouched; the other OSDs are made.
foreign_half_made() {
        local h dev
        h=$(lab_hosts | head -1)
        dev=$(py 'import json,sys
p=json.load(open(sys.argv[1]))
print([s["device"] for x in p["hosts"] if x["host"]==sys.argv[2] for s in x["steps"] if s["kind"]=="create-osd"][0])' "$DIR/plan.json" "$h")
        # BlueStore's main label as mkfs writes it before whoami and ready, crc32c included
        py '
import struct, sys, uuid
u = uuid.uuid4()
txt = b"bluestore block device\n" + str(u).encode() + b"\n"
def s(b): return struct.pack("<I", len(b)) + b
body = u.bytes + struct.pack("<Q", 512 << 20) + struct.pack("<II", 1700000000, 0) + s(b"main") + struct.pack("<I", 0)
enc = txt + bytes([2, 1]) + struct.pack("<I", len(body)) + body
crc = 0xffffffff
for b in enc:
    crc ^= b
    for _ in range(8): crc = (crc >> 1) ^ 0x82f63b78 if crc & 1 else crc >> 1
lab = enc + struct.pack("<I", crc)
with open(sys.argv[1], "r+b") as f:
    f.write(lab + bytes(4096 - len(lab)))
' "$dev"
        local before; before=$(head -c 4096 "$dev" | sha256sum)
        if "$CEPHPROV" apply "$L" --yes > "$DIR/apply-f.log" 2>&1; then cat "$DIR/apply-f.log"; fail "apply accepted a half-made OSD nobody made"; fi
        grep -q "that no run of cephprov started" "$DIR/apply-f.log" || { cat "$DIR/apply-f.log"; fail "no clear refusal for the foreign half-made OSD on $h:$dev"; }
        [ "$(head -c 4096 "$dev" | sha256sum)" = "$before" ] || fail "the foreign half-made label on $h:$dev was changed"
        local up; up=$(ceph_ osd dump -f json | py 'import json,sys; print(sum(1 for o in json.load(sys.stdin)["osds"] if o["up"]))')
        [ "$up" = $((n_planned - 1)) ] || fail "$up OSDs up, want the $((n_planned - 1)) others"
        ok "a half-made label no run of cephprov made on $h:$dev: refused, its bytes unchanged; the other $up OSDs up"
}

# The end of the log of every OSD that failed to start, and what runs on the hosts.
dump_osd_logs() {
        local h
        for h in $(lab_hosts); do
                echo "--- $h: ceph processes"
                on "$h" sh -c 'ps -eo pid,args | grep "[c]eph-\(osd\|volume\)"; mount | grep /var/lib/ceph/osd' || true
                for f in $(grep -o "/var/log/ceph/ceph-osd\.[0-9]*\.log" "$DIR/rerun.log" | sort -u); do
                        echo "--- $h: $f"
                        on "$h" sh -c "[ -f $f ] && tail -25 $f" || true
                done
        done
}

# The cluster matches the plan exactly.
check_converged() {
        lab_check_plan_matched "$DIR" "$CEPHPROV" "$L" >/dev/null || fail "the cluster does not match the plan"
}

rerun_converges() {
        local j=$CEPHPROV_STATE_DIR/ceph.journal
        "$CEPHPROV" apply "$L" --yes > "$DIR/rerun.log" 2>&1 || { cat "$DIR/rerun.log"; dump_osd_logs; fail "re-run after SIGKILL did not converge"; }
        # "nothing to do" too: what the killed run left running may have finished the work
        grep -q '^converged\|^nothing to do: the hosts match' "$DIR/rerun.log" || { cat "$DIR/rerun.log"; fail "re-run did not say converged"; }
        # the killed run held the cluster lock: its own state directory proves it dead, so the
        # re-run takes the lock at once (no wait for the lease); not after a run that ended
        if [ "$KILLED_LAST" = 1 ]; then
                grep -q "a run of this state directory that died holding it" "$DIR/rerun.log" ||
                        { cat "$DIR/rerun.log"; fail "the re-run did not take over the dead run's cluster lock at once"; }
        fi
        check_converged
        local steps; steps=$(grep -c '"event":"wave-step-start"' "$j" || true)
        "$CEPHPROV" apply "$L" --yes > "$DIR/third.log" 2>&1 || { cat "$DIR/third.log"; fail "third apply failed"; }
        grep -q '^nothing to do' "$DIR/third.log" || { cat "$DIR/third.log"; fail "third apply was not a no-op"; }
        [ "$(grep -c '"event":"wave-step-start"' "$j")" = "$steps" ] || fail "third apply ran steps"
        local hm; hm=$(grep -c '"event":"osd-half-made-owned"' "$j" || true)
        ok "re-run converged ($hm half-made OSDs redone): $n_planned OSDs, ids 0..$((n_planned - 1)), all up and in, block.db as planned; third run a no-op"
}

# kill_point POINT LOG: one kill of a point (its phase, its set-up); for 'unreachable' also
# the run with the host unreachable and its checks
kill_point() {
        local phase=${1%%:*} delay=0 log=$2
        [ "$phase" != "$1" ] && delay=${1#*:}
        case $phase in
        allocation)
                # ids in the map (ceph-volume's `osd new`) and no OSD finished: the crash at
                # the first mkfs itself. 1 s after it, a quiet machine had every OSD prepared
                # (CI: no id left to reuse); before any mkfs, no `osd new` had run yet (the
                # re-run allocated fresh ids); with the old per-pid poll, the first mkfs was
                # seen only once every OSD was activating
                kill_at prepare 0 "$log-a" crash >/dev/null
                kill_at allocation 0 "$log"
                ;;
        unreachable)
                gone=$(lab_hosts | tail -1)
                kill_at prepare 1 "$log-a" crash "$gone"
                J=$CEPHPROV_STATE_DIR/ceph.journal
                # the ids the interrupted run allocated on that host, still in the map now
                ceph_ osd dump -f json > "$DIR/dump-k.json"
                pend=$(py 'import json,sys
dump={o["osd"] for o in json.load(open(sys.argv[2]))["osds"]}
ids={json.loads(l).get("osd_id") for l in open(sys.argv[1]) if l.strip().endswith("}") and "\"osd-allocated\"" in l and "\"host\":\"%s\"" % sys.argv[3] in l}
print(" ".join(str(i) for i in sorted(i for i in ids if i in dump)))' "$J" "$DIR/dump-k.json" "$gone")
                [ -n "$pend" ] || fail "the interrupted run left no id of '$gone' in the map: nothing to check"
                ip link set "${LAB_PREFIX}v$gone" down
                KILLED_LAST=0 # this run ends by itself and releases the lock
                "$CEPHPROV" apply "$L" --yes > "$DIR/apply-u.log" 2>&1 && { ip link set "${LAB_PREFIX}v$gone" up; fail "apply succeeded with '$gone' unreachable"; }
                ip link set "${LAB_PREFIX}v$gone" up
                ceph_ osd dump -f json > "$DIR/dump-u.json"
                for i in $pend; do
                        py 'import json,sys; sys.exit(0 if any(o["osd"]==int(sys.argv[2]) for o in json.load(open(sys.argv[1]))["osds"]) else 1)' \
                                "$DIR/dump-u.json" "$i" || { cat "$DIR/apply-u.log"; fail "osd.$i, pending on unreachable '$gone', was released"; }
                done
                ok "with '$gone' unreachable its pending ids ($pend) stay in the OSD map"
                ;;
        crash)
                kill_at prepare "$delay" "$log" crash
                ;;
        hangup)
                kill_at prepare "$delay" "$log" hangup
                ;;
        wait-up)
                # the OSDs of loop devices come up within one `osd dump` of the wait's start:
                # noup holds them booting (test scaffolding) so that the kill lands in the wait
                ceph_ osd set noup >/dev/null 2>&1
                kill_at wait-up "$delay" "$log"
                ceph_ osd unset noup >/dev/null 2>&1
                ;;
        *)
                kill_at "$phase" "$delay" "$log"
                ;;
        esac
}

n=0
for chain in $POINTS; do
        n=$((n + 1))
        [ "$n" -gt 1 ] && reset_lab
        export CEPHPROV_STATE_DIR=$DIR/state-$n
        t0=$(date +%s)
        if [ "$chain" = foreign ]; then
                POINT=foreign
                foreign_half_made
                continue
        fi
        k=0
        for POINT in ${chain//>/ }; do
                k=$((k + 1))
                case $POINT in foreign) fail "'foreign' cannot be part of a chain ($chain)" ;; esac
                was_killed=$KILLED_LAST
                kill_point "$POINT" "$DIR/apply-$n-$k.log"
                # a run after a kill takes the dead run's lock at once (its state directory
                # proves the holder dead), killed or not
                if [ "$k" -gt 1 ] && [ "$was_killed" = 1 ]; then
                        grep -q "a run of this state directory that died holding it" "$DIR/apply-$n-$k.log" ||
                                { cat "$DIR/apply-$n-$k.log"; fail "the run after the kill did not take over the dead run's cluster lock at once"; }
                fi
        done
        POINT=$chain
        rerun_converges
        echo "point $n ($chain): $(($(date +%s) - t0)) s"
done
POINT=all
echo "PASS: $n kill points ($POINTS)"
