#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The rolling FileStore → BlueStore conversion in place (issue 11) on the FileStore lab
# (`lab_filestore_up`: Pacific, 3 hosts of 1 SSD with 3 journal partitions + 3 HDDs, 9
# FileStore OSDs, 200 MB in pool 'data' with checksums). Runs `cephprov convert --hosts node1
# --yes` first (the canary's host alone), then `cephprov convert --yes` for the others, and
# asserts after each:
#   - every id kept, under the same CRUSH host bucket as before, with the same CRUSH weight
#   - `ceph osd metadata`: osd_objectstore bluestore, bluefs_db_partition_path the partition
#     the convert plan (taken before with --dry-run --json) created for that OSD, whose GPT
#     name is the plan's
#   - HEALTH_OK with every PG active+clean; every object reads back identical
#   - the journal has each OSD's phases in order (stopped, destroyed, wiped, repartitioned,
#     created, backfilling, converted); the saved plan inputs are gone after success
#   - OSDs of hosts not converted yet are still FileStore, untouched
# Without CONVERT_KILL_LATER, node2 is converted alone first with --stop-after-host (node3
# untouched). Then: a second convert is a no-op (nothing to convert, exit 0, no journal record of a
# phase, no OSD restarted). Prints the time per host and per OSD creation.
#
# With CONVERT_KILL_PHASES="P1 P2 ..." the conversion of node1 is killed (kill -9) once the
# journal has phase P1, the same command again killed once it journals P2, and so on, and the
# last run must converge (meson test 'convert-kill': stopped destroyed wiped repartitioned
# created backfilling, one kill in each phase). With CONVERT_KILL_LATER="node3:wiped" the
# conversion of node2 and node3 is killed once node3 is half-way (node2 done): kills chained
# across hosts. With CONVERT_CANARY_SLOW=node1 (or node2: the canary of the second run) the
# canary's disks are made slow once they were benchmarked: the run must stop at the gate
# before the next host, and go on once they are fast again. With CONVERT_SECOND_FAILURE=1,
# a second failure after the first kill is refused (below, second_failure).
# Onto bcache: refused on these hosts (no bcache in the kernel) before anything changes;
# the conversion onto bcache itself is tests/uml/test-uml-reshape.sh.
#
# Usage: test-convert.sh CEPHPROV
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"

cephprov=${1:?usage: test-convert.sh CEPHPROV}
lab_test_setup convert cpc 10.95.0 filestore
# what a test that died left running: a convert run, the degraded objects' watch
RUN_PID= watch_pid=
lab_cleanup_hook() {
        [ -n "$RUN_PID" ] && kill -KILL "$RUN_PID" 2>/dev/null
        [ -n "$watch_pid" ] && kill "$watch_pid" 2>/dev/null
}

# CONVERT_MODE=drain-first: every convert with --drain-first (playbook convert-filestore-drain)
mode_args=
[ "${CONVERT_MODE:-}" = drain-first ] && mode_args=--drain-first
secs=$(lab_filestore_up "$dir/lab")
check "the FileStore lab comes up" test -n "$secs" || { cat "$dir/lab/filestore.log" 2>/dev/null; finish; exit 1; }
echo "bring-up (lab, 9 FileStore OSDs, 200 MB written, clean): $secs s"
layout=$dir/lab/filestore.yaml
journal=$dir/state/ceph.journal
check_eq "HEALTH_OK before" "$(health_of 120)" HEALTH_OK
check "every PG active+clean before" wait_clean 120

before_places=$(crush_places)
check_eq "9 OSDs in CRUSH before" "$(wc -l <<< "$before_places")" 9

# the plan, before anything changes: "ID HOST DATA DBDEV DBPARTNUM DBPARTNAME" per rebuilt OSD
plan_json=$("$cephprov" convert "$layout" --dry-run --json 2>"$dir/plan.err")
check_eq "convert --dry-run --json on the live lab exits 0" "$?" 0
planned=$(echo "$plan_json" | py '
import json, sys
p = json.load(sys.stdin)
for h in p["hosts"]:
    for o in h["osds"]:
        if o["rebuilt"]:
            db = next(c for c in h["created"] if c["osd"] == o["id"] and c["role"] == "db")
            print(o["id"], h["host"], o["data_device"], db["device"], db["partnum"], db["partname"])' | sort -n)
check_eq "the plan rebuilds the 9 FileStore OSDs" "$(wc -l <<< "$planned")" 9
check_eq "the plan rebuilds each OSD on its own CRUSH host" "$(awk '{print $1, $2}' <<< "$planned")" \
        "$(awk '{print $1, $2}' <<< "$before_places")"
check "--dry-run changed nothing (no journal)" test ! -e "$journal"
out=$("$cephprov" convert "$layout" --dry-run $mode_args 2>&1)
if [ -n "$mode_args" ]; then
        check_contains "the plan names the mode" "$out" "mode: drain first (playbook convert-filestore-drain)"
        cost="move off and back"
else
        check_contains "the plan names the mode" "$out" "mode: in place (playbook convert-filestore)"
        cost="rebuild"
fi
check "the plan says what each host costs (its OSDs' data, from ceph osd df)" \
        bash -c "grep -Eq '^  node1: 3 OSDs, [0-9.]+ MiB of data to $cost' <<< \"\$1\"" _ "$out"

# onto bcache on a host that cannot have it (this machine's kernel has no bcache): refused
# once the hosts' agents are asked, before anything changes (issue 28: rebuild-osds found out
# only after the host's OSDs were destroyed)
sed 's/^    db_size: \(.*\)$/    db_size: \1\n    bcache:\n      cache_size: 64M/' "$layout" > "$dir/bcache.yaml"
grep -q "cache_size: 64M" "$dir/bcache.yaml" || echo "FAIL: no bcache in the edited layout"
out=$("$cephprov" convert "$dir/bcache.yaml" --hosts node1 --yes $mode_args 2>&1); rc=$?
check "convert onto bcache on node1 (no bcache in its kernel) is refused" test "$rc" -ne 0
check_contains "the refusal names the host and says nothing changed" "$out" \
        "the conversion puts OSDs on bcache: nothing changed: host 'node1'"
check_eq "no phase journaled by the refused run" "$(grep -c '"event":"convert-phase"' "$journal" 2>/dev/null)" 0
check_eq "the 9 OSDs are still up after the refusal" "$(ceph_ osd dump -f json | py '
import json, sys
print(sum(1 for o in json.load(sys.stdin)["osds"] if o["up"] and o["in"]))')" 9
check_eq "9 OSDs in CRUSH as before the refusal" "$(crush_places)" "$before_places"

# checks after the conversion of HOSTS (space-separated); the other hosts' OSDs must still
# be FileStore
check_converted() {
        local hosts=" $1 " meta id h data dbdev pn pname got node
        meta=$(ceph_ osd metadata -f json 2>/dev/null)
        check_eq "[$1] every id kept, under the same CRUSH host, same weight" "$(crush_places)" "$before_places"
        while read -r id h data dbdev pn pname; do
                if [[ "$hosts" != *" $h "* ]]; then
                        check_eq "[$1] osd.$id on $h (not converted yet) is still filestore" "$(echo "$meta" | py '
import json, sys
print(next(m for m in json.load(sys.stdin) if m["id"] == int(sys.argv[1])).get("osd_objectstore"))' "$id")" filestore
                        continue
                fi
                node=${dbdev}p$pn
                got=$(echo "$meta" | py '
import json, sys
m = next(m for m in json.load(sys.stdin) if m["id"] == int(sys.argv[1]))
print(m.get("osd_objectstore"), m.get("hostname"), m.get("bluefs_dedicated_db"), m.get("bluefs_db_partition_path"),
      m.get("bluestore_bdev_partition_path"))' "$id")
                check_eq "[$1] osd.$id: bluestore on $h, DB on the planned $node, data on $data (osd metadata)" "$got" \
                        "bluestore $h 1 $node $data"
                check_eq "[$1] osd.$id: $node is the plan's partition '$pname' (GPT, read by blkid)" \
                        "$(on "$h" blkid -p -o value -s PART_ENTRY_NAME "$node")" "$pname"
                # (first occurrences: a re-run after a kill journals again what it redoes)
                check_eq "[$1] osd.$id: its phases in the journal, in order" "$(journal_osd_phases "$journal" "$id")" \
                        "stopped destroyed wiped repartitioned created backfilling converted"
        done <<< "$planned"
        check_eq "[$1] HEALTH_OK" "$(health_of 120)" HEALTH_OK
        check "[$1] every PG active+clean" wait_clean 60
        check "[$1] every object reads back identical" lab_filestore_objects_identical "$dir/lab"
        check "[$1] the saved plan inputs are gone (the conversion finished)" test ! -e "$dir/state/convert-ceph.json"
}

# per OSD creation: seconds of each osd-created record of the last run
creation_times() {
        py '
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
print(" ".join("osd.%d %.1fs" % (r["osd_id"], r["seconds"]) for r in rs if r.get("event") == "osd-created"))' "$journal"
}

# CONVERT_SECOND_FAILURE=1 (issue 26): after the first kill (node1's OSDs stopped by the
# killed run, maybe destroyed), node2's OSDs are stopped by hand: a second failure while the
# run was dead. Pool `data` has size 2, so each PG with its copies on node1 and node2 has no
# readable copy left. The same command must refuse before anything more is destroyed or
# wiped (node1's OSDs' states in the OSD map, its disks' first 16 MiB and blkid's view of
# them unchanged, no phase journaled), naming the OSDs down and those PGs; node2's OSDs then
# started again, the chain goes on.
osds_of_host() { awk -v h="$1" '$2 == h { print $1 }' <<< "$planned"; }
node1_state() {
        ceph_ osd dump -f json 2>/dev/null | py '
import json, sys
ids = [int(x) for x in sys.argv[1:]]
print(sorted((o["osd"], "destroyed" in o["state"]) for o in json.load(sys.stdin)["osds"] if o["osd"] in ids))' \
                $(osds_of_host node1)
        local devs
        devs=$(awk '$2 == "node1" { print $3; print $4 }' <<< "$planned" | sort -u)
        # shellcheck disable=SC2016 # expanded by the inner sh
        on node1 sh -c 'for d; do echo "$d"; blkid -p -o export "$d"; head -c 16M "$d" | md5sum; done' sh $devs
}
osds_up() { # osds_up WANT IDS...: wait (60 s) until each of IDS is up (WANT 1) or down (0)
        local want=$1 i
        shift
        for i in $(seq 120); do
                ceph_ osd dump -f json 2>/dev/null | py '
import json, sys
want, ids = sys.argv[1] == "1", [int(x) for x in sys.argv[2:]]
sys.exit(0 if all(bool(o["up"]) == want for o in json.load(sys.stdin)["osds"] if o["osd"] in ids) else 1)' \
                        "$want" "$@" && return 0
                sleep 0.5
        done
        return 1
}
second_failure() {
        local ids2 id before out rc base
        ids2=$(osds_of_host node2)
        for id in $ids2; do on node2 systemctl stop "ceph-osd@$id" >/dev/null 2>&1; done
        check "[second failure] node2's OSDs ($(echo $ids2)) are down" osds_up 0 $ids2
        before=$(node1_state)
        base=$(journal_lines)
        out=$("$cephprov" convert "$layout" "$@" $mode_args --yes 2>&1)
        rc=$?
        echo "$out" > "$dir/convert-second-failure.out"
        check "[second failure] the same command is refused (exit $rc)" test "$rc" -ne 0
        check_contains "[second failure] ... naming node2's OSDs as down besides the run's own" "$out" \
                "osd.$(echo $ids2 | cut -d' ' -f1)"
        check_contains "[second failure] ... as another failure since the kill" "$out" \
                "down besides the OSDs this run stopped"
        check "[second failure] ... naming PGs left without a readable copy" \
                grep -Eq 'PG\(s\) would be left without a readable copy.*: [0-9]+\.[0-9a-f]+ \(0 of 1\)' \
                "$dir/convert-second-failure.out" || tail -5 "$dir/convert-second-failure.out"
        check_eq "[second failure] ... no phase journaled by it" \
                "$(journal_since "$base" | grep -c '"event":"convert-phase"')" 0
        check_eq "[second failure] ... node1's OSDs and disks as they were (OSD map, blkid, first 16 MiB)" \
                "$(node1_state)" "$before"
        for id in $ids2; do on node2 systemctl start "ceph-osd@$id" >/dev/null 2>&1; done
        check "[second failure] node2's OSDs up again" osds_up 1 $ids2
}

# 1. the canary's host alone; with CONVERT_KILL_PHASES="P1 P2 ...", the run is killed (kill -9)
# as soon as the journal has phase P1 for an OSD, the same command again is killed at P2 (a
# record of P2 written by that run), and so on; the last run must finish the conversion
# kill_chain OUT PHASES ARGS...: for each [HOST:]PHASE of PHASES, runs `cephprov convert ARGS`,
# kills it (kill -9) once that run has journaled PHASE (for HOST when given); nkill counts
kill_chain() {
        local out=$1 phases=$2 ph want host base killed
        shift 2
        for ph in $phases; do
                want=${ph#*:} host=
                [ "$want" != "$ph" ] && host=${ph%%:*}
                base=$(journal_lines)
                # held 3 s once the phase is journaled (CEPHPROV_TEST_HOLD_STEP, fault injection
                # in src/controller/convert-steps.c): the kill lands before the next phase, which
                # the cluster's milliseconds would otherwise reach first (and a phase done by a
                # killed run is not journaled again by the next, whose kill then finds nothing)
                CEPHPROV_TEST_HOLD_STEP=phase-$want "$cephprov" convert "$layout" "$@" $mode_args --yes \
                        >"$dir/$out-$want.out" 2>&1 &
                RUN_PID=$!
                journal_kill_at_phase "$RUN_PID" "$base" "$want" "$host"
                killed=$?
                RUN_PID=
                check_eq "[kill $ph] the run was killed in phase '$want' (still running then)" "$killed" 0 ||
                        tail -20 "$dir/$out-$want.out"
                check "[kill $ph] the plan inputs were saved before the kill" test -s "$dir/state/convert-ceph.json"
                [ "$nkill" -gt 0 ] && check_contains "[kill $ph] the run resumed the saved plan" \
                        "$(cat "$dir/$out-$want.out")" "resuming the conversion"
                last=$(grep '"convert-phase"' "$journal" | tail -n 1)
                echo "killed after $((SECONDS - t0)) s at: $last"
                # `status` of the stopped conversion: its current host and the phase the journal
                # reached (the kill lands within a poll of the wanted phase; under load the run
                # went on to the next one once: wiped, then repartitioned a moment later)
                # the furthest phase this run journaled (for HOST when given)
                hit=$(tail -n "+$((base + 1))" "$journal" | grep '"convert-phase"' |
                        grep "\"host\":\"${host:-[^\"]*}\"" | py '
import json, sys
order = "stopped destroyed wiped repartitioned created backfilling converted".split()
print(max((json.loads(l)["phase"] for l in sys.stdin), key=order.index, default="none"))')
                check "[kill $ph] the kill hit '$want' or the phase right after it (journal: '$hit')" py '
import sys
order = "stopped destroyed wiped repartitioned created backfilling converted".split()
sys.exit(0 if sys.argv[2] in order and order.index(sys.argv[2]) - order.index(sys.argv[1]) in (0, 1) else 1)' "$want" "$hit"
                want=$hit
                check_eq "[kill $ph] status names the conversion's current host, one of its OSDs in '$want' (the journal's last phase)" \
                        "$("$cephprov" status "$layout" --json 2>/dev/null | py '
import json, sys
c = json.load(sys.stdin).get("conversion") or {}
cur = c.get("current")
print(cur, sys.argv[1] in [o.get("phase") for o in c.get("osds", []) if o["host"] == cur], "backfill" in c)' "$want")" \
                        "${host:-node1} True True"
                nkill=$((nkill + 1))
                [ "$nkill" -eq 1 ] && [ "$out" = convert-killed ] && [ "${CONVERT_SECOND_FAILURE:-}" = 1 ] &&
                        second_failure "$@"
        done
}
t0=$SECONDS
nkill=0
kill_chain convert-killed "${CONVERT_KILL_PHASES:-${CONVERT_KILL_PHASE:-}}" --hosts node1
# in the drain-first mode no PG may be degraded at any moment: the most degraded objects seen
degraded_max() { touch "$dir/watch.stop.$1"; wait "$2" 2>/dev/null; cut -d' ' -f2 "$dir/degraded.$1" | sort -n | tail -1; }
degraded_watch() { # degraded_watch NAME &: every `pg stat` until stopped: "TIME DEGRADED-OBJECTS UNDERSIZED-PGS"
        rm -f "$dir/watch.stop.$1" "$dir/degraded.$1"
        echo "start 0 0" > "$dir/degraded.$1"
        while [ ! -e "$dir/watch.stop.$1" ]; do
                ceph_ pg stat -f json 2>/dev/null | py '
import json, sys, time
d = json.load(sys.stdin)
d = d.get("pg_summary", d)
under = sum(s.get("num", 0) for s in d.get("num_pg_by_state", []) if "undersized" in s.get("name", ""))
print(time.strftime("%H:%M:%S"), d.get("num_objects_degraded", d.get("degraded_objects", 0)), under)' >> "$dir/degraded.$1" 2>/dev/null
                sleep 0.5
        done
}
# CONVERT_CANARY_SLOW=HOST (in place): the canary's benchmark gate, on node1 (the first
# conversion, before its kills if any; the degraded window is then not watched) or node2 (the
# canary of the run for node2 and node3; with CONVERT_KILL_LATER only).
# Once the canary's OSDs are measured (its 'benchmark' step done), its disks are made slow
# (`lab slow`: the new OSDs inherit it); the run must stop at the benchmark after its
# backfill, with the figures, no step run on the next host, the cluster clean, noout and the
# config database as before. Disks fast again, the same command measures again and goes on.
# the config database but the mgr's module options: a balancer put back on (restore-balancer
# checks it is active) keeps an explicit mgr/balancer/active where its default was
config_names() { ceph_ config dump -f json 2>/dev/null | py 'import json,sys; print(sorted((e["section"], e["name"], e["value"]) for e in json.load(sys.stdin) if e["section"] != "mgr"))'; }
canary_slow() { # canary_slow HOST NEXT ARGS...: the convert ARGS with HOST the canary, NEXT the host after it
        local h=$1 next=$2 pid rc base config_before
        shift 2
        config_before=$(config_names)
        base=$(journal_lines)
        "$cephprov" convert "$layout" "$@" --yes >"$dir/convert-slow.out" 2>&1 &
        pid=$!
        RUN_PID=$pid
        while kill -0 "$pid" 2>/dev/null && ! journal_since "$base" |
                grep '"event":"wave-step-done"' | grep -q '"name":"benchmark"'; do
                sleep 0.2
        done
        check_contains "[canary $h] its OSDs are measured before they change" "$(cat "$dir/convert-slow.out")" \
                "benchmark 'convert-before' of host '$h'"
        "$lab" slow --dir "$dir/lab" "$h" --iops 1000 --bps 52428800 >/dev/null
        wait "$pid"
        rc=$?
        RUN_PID=
        "$lab" slow --dir "$dir/lab" "$h" --off >/dev/null
        echo "canary $h with slow disks: $((SECONDS - t0)) s; $(grep -E '^all ' "$dir/convert-slow.out" | tr -s ' ')"
        check "[canary $h] with its disks slow the conversion stops (exit $rc)" test "$rc" -ne 0
        check_contains "[canary $h] ... at the canary's benchmark, naming the figures" "$(cat "$dir/convert-slow.out")" \
                "benchmark 'convert-after' against 'convert-before' of host '$h': the OSDs are slower" ||
                tail -40 "$dir/convert-slow.out"
        check "[canary $h] ... before any step on $next" bash -c "! tail -n '+$((base + 1))' '$journal' | grep '\"host\":\"$next\"' | grep -q wave-step-start"
        check "[canary $h] ... with every PG active+clean" wait_clean 120
        check_eq "[canary $h] ... noout not left set" "$(ceph_ osd dump -f json 2>/dev/null | py 'import json,sys; print("noout" in json.load(sys.stdin).get("flags_set", []))')" False
        check_eq "[canary $h] ... the config database as before (throttle restored)" "$(config_names)" "$config_before"
}
[ "${CONVERT_CANARY_SLOW:-}" = node1 ] && [ -z "$mode_args" ] && canary_slow node1 node2 --hosts node1
degraded_watch node1 &
watch_pid=$!
"$cephprov" convert "$layout" --hosts node1 $mode_args --yes >"$dir/convert-1.out" 2>&1
rc=$?
[ "${CONVERT_CANARY_SLOW:-}" = node1 ] && [ -z "$mode_args" ] &&
        check_contains "the re-run with fast disks passes the canary's gate" "$(cat "$dir/convert-1.out")" \
                "benchmark 'convert-after' against 'convert-before' of host 'node1':"
t1=$((SECONDS - t0))
# (a kill that came after the last OSD's 'converted', before the run removed its saved plan —
# milliseconds since the cluster is asked through librados — leaves nothing to resume: the
# re-run then finds every OSD converted, and removes the plan)
if [ "$nkill" -gt 0 ] && [ "${hit:-}" = converted ]; then
        check "the re-run resumed the saved plan, or found every OSD converted (the last kill hit 'converted')" \
                grep -q -e "resuming the conversion" -e "nothing to convert" "$dir/convert-1.out"
elif [ "$nkill" -gt 0 ]; then
        check_contains "the re-run resumed the saved plan" "$(cat "$dir/convert-1.out")" "resuming the conversion"
fi
check_eq "convert --hosts node1 --yes exits 0" "$rc" 0 || tail -30 "$dir/convert-1.out"
deg=$(degraded_max node1 "$watch_pid")
watch_pid=
echo "most degraded objects seen while node1 converted: $deg"
# in place, the watch must see the degraded window (so that its 0 in the drain-first mode means something)
[ -z "$mode_args" ] && [ "$nkill" -eq 0 ] && [ "${CONVERT_CANARY_SLOW:-}" != node1 ] && check "in place: objects degraded while node1 converted ($deg at most)" test "${deg:-0}" -gt 0
if [ -n "$mode_args" ] && [ "$nkill" -eq 0 ]; then
        # Until the new OSDs exist (the first 'created') is the window the in-place mode runs
        # short of copies. Drain first keeps every PG at its size all along: no PG undersized
        # (fewer acting OSDs than the pool's size) before the new OSDs, and no object degraded
        # once node1's OSDs are stopped (first 'stopped') until then. While the data moves off
        # (`osd out`, node1's OSDs still up and holding their copies), Ceph counts a few objects
        # degraded for a moment: a PG whose new member recovers from the log is counted so,
        # though every copy is still there (a bare `ceph osd out` does it too): reported only.
        # So are the moments the new OSDs come in (peering with them: 2 to 11 objects seen).
        phase_time() { py 'import json,sys
t = [json.loads(l)["time"][11:19] for l in open(sys.argv[1]) if "\"convert-phase\"" in l and "\"%s\"" % sys.argv[2] in l]
print(t[0] if t else "99:99:99")' "$journal" "$1"; }
        first_created=$(phase_time created)
        first_stopped=$(phase_time stopped)
        under=$(awk -v t="$first_created" '$1 != "start" && $1 < t { print $3 }' "$dir/degraded.node1" | sort -n | tail -1)
        during_out=$(awk -v t="$first_stopped" '$1 != "start" && $1 < t { print $2 }' "$dir/degraded.node1" | sort -n | tail -1)
        before_new=$(awk -v s="$first_stopped" -v t="$first_created" '$1 != "start" && $1 >= s && $1 < t { print $2 }' "$dir/degraded.node1" | sort -n | tail -1)
        echo "degraded objects: at most ${during_out:-0} while node1's data moved off (OSDs up; first stopped $first_stopped UTC)," \
                "${before_new:-0} while its OSDs were down (first created $first_created UTC), $deg in all;" \
                "undersized PGs before the new OSDs: at most ${under:-0}"
        check "drain first: the watch saw node1 stopped before the new OSDs" test "$first_stopped" "<" "$first_created"
        check_eq "drain first: no PG short of its size while node1's data moved off and its OSDs were stopped, destroyed and wiped" \
                "${under:-0}" 0
        check_eq "drain first: no object degraded while node1's OSDs were stopped, destroyed and wiped" \
                "${before_new:-0}" 0 || {
                echo "degraded samples (UTC):"; awk '$2 > 0' "$dir/degraded.node1" | head -20
                echo "phases:"; py 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("event") in ("convert-phase", "wave-step-start", "wave-step-done"):
        print(r["time"][11:19], r.get("event"), r.get("name") or "", r.get("osd_id", ""), r.get("phase", ""))' "$journal" | tail -60
        }
fi
grep -E '^(host|WAVE|[0-9]+ +node|[0-9]+ done)' "$dir/convert-1.out"
echo "convert node1: $t1 s for the command; OSD creations: $(creation_times)"
check_converted node1

# 2. the other hosts, one after the other; with CONVERT_KILL_LATER="[HOST:]PHASE ...", killed
# first in those phases (node3:wiped: node2 done, node3 half-way); without, node2 alone first
# with --stop-after-host
t0=$SECONDS
nkill=0
if [ "${CONVERT_CANARY_SLOW:-}" = node2 ] && [ -z "$mode_args" ]; then
        canary_slow node2 node3
        nkill=1 # the runs after it resume its saved plan
fi
kill_chain convert-killed-later "${CONVERT_KILL_LATER:-}"
if [ -z "${CONVERT_KILL_LATER:-}" ]; then
        "$cephprov" convert "$layout" --yes --stop-after-host $mode_args >"$dir/convert-stop.out" 2>&1
        check_eq "convert --yes --stop-after-host exits 0" "$?" 0 || tail -30 "$dir/convert-stop.out"
        check_contains "--stop-after-host says what it leaves" "$(cat "$dir/convert-stop.out")" \
                "converting host 'node2' only; left for a later run: node3"
        check "--stop-after-host ran no step on node3" bash -c "! grep -E '^wave.*node3' '$dir/convert-stop.out'"
        echo "convert node2 (--stop-after-host): $((SECONDS - t0)) s"
        check_converted "node1 node2"
fi
"$cephprov" convert "$layout" --yes $mode_args >"$dir/convert-2.out" 2>&1
rc=$?
t2=$((SECONDS - t0))
check_eq "convert --yes (node2, node3) exits 0" "$rc" 0 || tail -30 "$dir/convert-2.out"
[ "$nkill" -gt 0 ] && check_contains "the re-run after the kills resumed the saved plan" "$(cat "$dir/convert-2.out")" \
        "resuming the conversion"
[ "$nkill" -eq 0 ] && check_contains "the last run converts node3" \
        "$(grep -E '^wave' "$dir/convert-2.out" | paste -sd' ' -)" "node3"
check "node1, converted, is not in the second run's waves" bash -c "! grep -E '^wave.*node1' '$dir/convert-2.out'"
grep -E '^(WAVE|[0-9]+ +node|[0-9]+ done)' "$dir/convert-2.out"
echo "convert node2 + node3: $t2 s for the command; OSD creations (all runs): $(creation_times)"
check_converted "node1 node2 node3"

# 3. a second convert changes nothing
phases=$(grep -c '"convert-phase"' "$journal")
up_from=$(ceph_ osd dump -f json 2>/dev/null | py 'import json,sys; print(sorted((o["osd"], o["up_from"]) for o in json.load(sys.stdin)["osds"]))')
out=$("$cephprov" convert "$layout" --yes $mode_args 2>&1)
check_eq "a second convert exits 0" "$?" 0
check_contains "a second convert has nothing to convert" "$out" "nothing to convert"
check_contains "a second convert plans 0 OSDs" "$out" "convert: 0 OSDs to rebuild"
check_eq "a second convert journals no phase" "$(grep -c '"convert-phase"' "$journal")" "$phases"
check_eq "a second convert restarts no OSD (up_from unchanged)" \
        "$(ceph_ osd dump -f json 2>/dev/null | py 'import json,sys; print(sorted((o["osd"], o["up_from"]) for o in json.load(sys.stdin)["osds"]))')" \
        "$up_from"

check_eq "status shows no conversion under way after it" \
        "$("$cephprov" status "$layout" --json 2>/dev/null | py 'import json,sys; print("conversion" in json.load(sys.stdin))')" False

# teardown
lab_check_teardown

finish
