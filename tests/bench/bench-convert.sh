#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The conversion of one host (issue 11 item 7), both modes, on the FileStore lab
# (`lab_filestore_up`: Pacific, 3 hosts of 1 SSD with 3 journal partitions + 3 HDDs, 9
# FileStore OSDs, 200 MB in pool 'data', size 2). The layout's throttle is the fast preset
# (4/4/4 on wpq), so that the conversions move data at the pace measured here:
#   1. the lab's recovery throughput, idle, under the fast preset set as the `throttle` step
#      sets it on Pacific (`config set osd` osd_max_backfills, osd_recovery_max_active,
#      osd_recovery_max_single_start 4; put back as they were after): one OSD of node3 marked
#      out, then in again (its data comes back). Each move is timed from the command to every
#      PG active+clean with nothing degraded or misplaced (what wait-clean waits for), once
#      `pg stat` has shown the move (a PG not clean, or a recovery rate). The mgr's PG map
#      changes every ~2 s and a ~40 MiB move takes seconds: each time is good to a sample or
#      two. Data moved: the bytes of the PG copies the OSD holds (`pg ls`: stat_sum.num_bytes
#      of each PG with the OSD in its acting set), before; the same measure as the hosts'
#      data below. Not `ceph osd df`'s kb_used_data: a Pacific FileStore OSD reports about
#      what is free there (DATA 1.8 GiB, as AVAIL, on the lab's 2 GiB disks holding ~45 MiB;
#      RAW USE ~160 MiB); both are printed beside it for the record. Throughput = both moves'
#      data ÷ both moves' times (also printed: the rate from the move first seen to clean).
#   2. `cephprov convert LAYOUT --hosts node1 --yes` (in place), timed;
#   3. `cephprov convert LAYOUT --hosts node2 --drain-first --yes`, timed.
# Prints per mode: the time of the command, the host's data (its OSDs' PG copies before),
# the mkfs critical path (the longest osd-created "seconds" of that run's journal records),
# the expected time = data ÷ throughput (× 2 drain first: off and back) + mkfs critical path,
# and time ÷ expected; the canary's `benchmark` steps (each run's only host is its canary:
# `ceph tell osd.N bench` before and after, wave-step-done "seconds") apart, and the ratio
# with and without them; then drain first ÷ in place, both ways. Also each run's steps with
# their seconds, so that what the ratio holds can be read off.
#
# What the expected time leaves out (all of it is in the measured time):
#   - the run's own start and end: SSH connections, agents, inventory and the plan, the
#     health gate, throttle set and restored, balancer/autoscaler paused and restored (a
#     few to ~15 s each here; the gate between hosts does not run for a single host);
#   - per host: set/unset noout, the wait for ok-to-stop, stop, destroy, unmount, wipe and
#     repartition (seconds each on the lab); in drain first also `out` and the wait for
#     safe-to-destroy; the canary's benchmarks (printed apart);
#   - peering after each OSD map change, the mgr's PG stats lag (seconds) and wait-clean's
#     poll interval, once per wait: the throughput measured here holds them once per ~40 MiB
#     move, so the model scales them with the data (it overstates the move's part);
#   - that the moves differ: one OSD out sends its PGs to several other OSDs (and takes
#     them back when in), a rebuilt host's 3 new OSDs take theirs from the other copies, 3
#     targets at once, on BlueStore (the measure wrote to FileStore); in place the PGs
#     recover while degraded, drain first they backfill while only misplaced;
#   - overlap: the model puts mkfs and the move in series, but in place each new OSD takes
#     its PGs as soon as it is up, while rebuild-osds is still finishing (the lab makes the
#     3 OSDs in parallel and they come up within ~2 s of each other; the data then moves in
#     rebuild-osds' last seconds, unset-flag and wait-clean); drain first, the drain and the
#     rebuild are in series, the move back overlaps the same way.
# One run, one lab: the ratios are this machine's on this day (2 shared cores), not a target.
# Without the `benchmark` step in the playbooks (main before the canary gate) that part is 0.
# Not a pass/fail test of the ratios: it fails only when something it runs fails (the lab,
# a move that does not end, a convert, or a converted host whose OSDs are not BlueStore).
#
# Usage: bench-convert.sh CEPHPROV
# Env: LAB, CEPH_LAB, LAB_PREFIX (cpbc), LAB_SUBNET (10.99.34), KEEP_LAB=1
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lab/lab-lib.sh"

cephprov=${1:?usage: bench-convert.sh CEPHPROV}
lab_test_setup bench-convert cpbc 10.99.34 filestore
throttle_saved=
lab_cleanup_hook() { [ -n "$throttle_saved" ] && throttle_restore; }
fail() { echo "FAIL: $*"; exit 1; }
now() { date +%s.%N; }
calc() { python3 -c "import sys; print(format(eval(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else '.1f'))" "$@"; }
t_start=$(now)

secs=$(lab_filestore_up "$dir/lab") || { cat "$dir/lab/filestore.log" 2>/dev/null; fail "the FileStore lab did not come up"; }
echo "bring-up (lab, 9 FileStore OSDs, 200 MB written, clean): $secs s"
layout=$dir/lab/filestore.yaml
journal=$dir/state/ceph.journal
grep -q '^throttle:' "$layout" && fail "the lab's layout has a throttle section already (expected none)"
sed -i 's/^profiles:$/throttle:\n  preset: fast\nprofiles:/' "$layout"
grep -q '^  preset: fast$' "$layout" || fail "could not set the fast preset in '$layout'"
wait_clean 300 || fail "not every PG active+clean after the bring-up"

# "ID HOST" of every OSD (CRUSH)
osd_hosts() {
        ceph_ osd tree -f json 2>/dev/null | py '
import json, sys
for h in json.load(sys.stdin)["nodes"]:
    if h["type"] == "host":
        for c in sorted(h.get("children", [])):
            print(c, h["name"])'
}
# df_mib ID...: "DATA RAW" MiB, the sums of these OSDs' kb_used_data and kb_used (`ceph osd
# df`), printed for the record only (FileStore's kb_used_data is not its data: see above)
df_mib() {
        ceph_ osd df -f json 2>/dev/null | py '
import json, sys
want = {int(x) for x in sys.argv[1:]}
ns = [n for n in json.load(sys.stdin)["nodes"] if n["id"] in want]
print("%.1f %.1f" % (sum(n["kb_used_data"] for n in ns) / 1024, sum(n["kb_used"] for n in ns) / 1024))' "$@"
}
# pg_bytes ID...: the bytes of every PG with one of these OSDs in its acting set, once per
# (PG, OSD): the copies those OSDs hold, by the PGs' own count
pg_bytes() {
        ceph_ pg ls -f json 2>/dev/null | py '
import json, sys
d = json.load(sys.stdin)
pgs = d["pg_stats"] if isinstance(d, dict) else d
want = {int(x) for x in sys.argv[1:]}
print(sum(p["stat_sum"]["num_bytes"] * len(want & set(p["acting"])) for p in pgs))' "$@"
}
host_osds() { osd_hosts | awk -v h="$1" '$2 == h { print $1 }' | paste -sd' ' -; }
# objectstores HOST: the objectstore of each OSD of HOST (osd metadata), sorted, unique
objectstores() {
        local ids
        read -ra ids <<< "$(host_osds "$1")"
        ceph_ osd metadata -f json 2>/dev/null | py '
import json, sys
want = {int(x) for x in sys.argv[1:]}
print(" ".join(sorted({m.get("osd_objectstore", "?") for m in json.load(sys.stdin) if m["id"] in want})))' "${ids[@]}"
}

# pg_word: one `pg stat`: "moving" while a PG is not active+clean or an object is degraded
# or misplaced, "rate" when they are but a recovery rate shows, "clean" else. The rate is the
# mgr's average over its last samples (mon_stat_smooth_intervals 6 × 2 s here): it lingers
# ~12 s after the move ended, so it tells that data moved, never when it stopped. Seen on
# the lab: an OSD marked out while up had its ~40 MiB moved between two samples, every PG
# active+clean in each, the rate alone showing it (~3-5 MiB/s for ~12 s after)
pg_word() {
        ceph_ pg stat -f json 2>/dev/null | py '
import json, sys
d = json.load(sys.stdin)["pg_summary"]
s = d["num_pg_by_state"]
if not s or any(x["name"] != "active+clean" for x in s) or d.get("degraded_objects") or d.get("misplaced_objects"):
    print("moving")
else:
    print("rate" if d.get("recovering_bytes_per_sec") else "clean")'
}
# timed_move WHAT CMD...: runs CMD (an OSD map change), then polls `pg stat` back to back
# (~0.5 s a call; the mgr's PG map changes every ~2 s) until it shows the move (not clean,
# or a recovery rate; at most 30 s: the stats lag) and then until every PG is active+clean
# with nothing degraded or misplaced (what wait-clean waits for; at most 600 s); prints
# the seconds from CMD to that, and those to the first sample that showed the move
timed_move() {
        local what=$1 t0 seen t w
        shift
        t0=$(now)
        "$@" >/dev/null 2>&1 || { echo "FAIL: $what: '$*' failed" >&2; return 1; }
        until w=$(pg_word) && [ "$w" = moving ] || [ "$w" = rate ]; do
                t=$(now)
                [ "$(calc "$t - $t0 > 30" d)" = 0 ] || { echo "FAIL: $what: no data seen moving within 30 s" >&2; return 1; }
        done
        seen=$(now)
        until w=$(pg_word) && [ "$w" != moving ]; do
                t=$(now)
                [ "$(calc "$t - $t0 > 600" d)" = 0 ] || { echo "FAIL: $what: not clean within 600 s" >&2; return 1; }
        done
        t=$(now)
        echo "$(calc "$t - $t0" .2f) $(calc "$seen - $t0" .2f)"
}

# the fast preset as the throttle step sets it on Pacific (wpq): the three limits on 'osd';
# throttle_restore puts back each key's 'osd' entry as it was, or removes it
throttle_keys="osd_max_backfills osd_recovery_max_active osd_recovery_max_single_start"
throttle_fast() {
        throttle_saved=$(ceph_ config dump -f json 2>/dev/null | py '
import json, sys
keys = sys.argv[1].split()
have = {e["name"]: e["value"] for e in json.load(sys.stdin) if e["section"] == "osd" and e["name"] in keys}
print(" ".join("%s=%s" % (k, have.get(k, "")) for k in keys))' "$throttle_keys") || return 1
        [ -n "$throttle_saved" ] || return 1
        local k
        for k in $throttle_keys; do ceph_ config set osd "$k" 4 >/dev/null || return 1; done
}
throttle_restore() {
        local kv k v rc=0
        for kv in $throttle_saved; do
                k=${kv%%=*} v=${kv#*=}
                if [ -n "$v" ]; then ceph_ config set osd "$k" "$v" >/dev/null || rc=1
                else ceph_ config rm osd "$k" >/dev/null || rc=1; fi
        done
        throttle_saved=
        return $rc
}

# 1. the recovery throughput, fast preset, idle cluster
victim=$(host_osds node3 | cut -d' ' -f1)
[ -n "$victim" ] || fail "no OSD on node3"
throttle_fast || fail "could not set the fast preset"
read -r dfdata_v dfraw_v < <(df_mib "$victim")
pgb_v=$(pg_bytes "$victim")
[ -n "$pgb_v" ] && [ "$pgb_v" -gt 0 ] || fail "no PG bytes for osd.$victim ('$pgb_v')"
read -r t_out seen_out < <(timed_move "osd.$victim out" ceph_ osd out "$victim") || fail "the out move of osd.$victim"
read -r t_in seen_in < <(timed_move "osd.$victim in" ceph_ osd in "$victim") || fail "the in move of osd.$victim"
throttle_restore || fail "could not put the throttle back"
[ -n "$t_out" ] && [ -n "$t_in" ] || fail "no time for the moves"
mib_v=$(calc "$pgb_v / 1048576")
thr=$(calc "2 * $mib_v / ($t_out + $t_in)" .2f)
echo
echo "recovery throughput, fast preset (4/4/4), idle: osd.$victim (node3) holds $mib_v MiB of PG copies" \
        "(osd df: DATA ${dfdata_v:-?} MiB, RAW USE ${dfraw_v:-?} MiB)"
echo "  out: $t_out s to clean (the move first seen after $seen_out s): $(calc "$mib_v / $t_out" .2f) MiB/s"
echo "  in:  $t_in s to clean (the move first seen after $seen_in s): $(calc "$mib_v / $t_in" .2f) MiB/s"
echo "  throughput: $thr MiB/s (both moves); from the move first seen to clean:" \
        "$(calc "2 * $mib_v / ($t_out - $seen_out + $t_in - $seen_in)" .2f) MiB/s"
wait_clean 120 || fail "not clean after the throughput measurement"

# a conversion of HOST with ARGS: seconds, the host's data before, and from the run's journal
# records: its mkfs critical path, its benchmark steps' seconds, its steps
declare -A T DATA DF MKFS BENCH NB STEPS NOSD
convert_run() {
        local mode=$1 host=$2 osds base t0 t1 rc
        shift 2
        read -ra osds <<< "$(host_osds "$host")"
        [ "${#osds[@]}" -gt 0 ] || fail "no OSD on $host"
        [ "$(objectstores "$host")" = filestore ] || fail "$host's OSDs are not all FileStore before"
        DF[$mode]=$(df_mib "${osds[@]}" | awk '{ print "DATA " $1 ", RAW USE " $2 }')
        DATA[$mode]=$(calc "$(pg_bytes "${osds[@]}") / 1048576")
        base=0
        [ -f "$journal" ] && base=$(wc -l < "$journal")
        t0=$(now)
        "$cephprov" convert "$layout" --hosts "$host" "$@" --yes >"$dir/convert-$mode.out" 2>&1
        rc=$?
        t1=$(now)
        [ "$rc" = 0 ] || { tail -30 "$dir/convert-$mode.out"; fail "convert --hosts $host $* exited $rc"; }
        [ "$(objectstores "$host")" = bluestore ] ||
                fail "after convert --hosts $host $*, $host's OSDs are $(objectstores "$host")"
        T[$mode]=$(calc "$t1 - $t0")
        read -r "MKFS[$mode]" "BENCH[$mode]" "NB[$mode]" "NOSD[$mode]" < <(tail -n "+$((base + 1))" "$journal" | py '
import json, sys
rs = [json.loads(l) for l in sys.stdin if l.strip()]
mk = [r["seconds"] for r in rs if r.get("event") == "osd-created"]
b = [r["seconds"] for r in rs if r.get("event") == "wave-step-done" and r.get("name") == "benchmark"]
print("%.1f %.1f %d %d" % (max(mk) if mk else 0, sum(b), len(b), len(mk)))')
        STEPS[$mode]=$(tail -n "+$((base + 1))" "$journal" | py '
import json, sys
out = []
for r in map(json.loads, filter(str.strip, sys.stdin)):
    if r.get("event") == "wave-step-done":
        out.append("%s %.1f" % (r["name"], r["seconds"]))
print(", ".join(out))')
        echo
        echo "convert --hosts $host${*:+ $*} ($mode): ${T[$mode]} s, ${NOSD[$mode]} OSDs created, ${NB[$mode]} benchmark steps"
        echo "  steps (s): ${STEPS[$mode]}"
}
grep -q 'step: benchmark' "$(dirname "$0")/../../playbooks/convert-filestore.yaml" ||
        echo "note: this tree's convert playbooks have no 'benchmark' step (the canary gate): that part is 0"
convert_run in-place node1
convert_run drain-first node2 --drain-first
wait_clean 120 || fail "not clean after the conversions"

# the table
echo
echo "recovery throughput (fast preset, idle, one OSD out and in): $thr MiB/s"
printf '%-12s %9s %10s %9s %9s %9s %11s %7s %14s\n' mode "time (s)" "data (MiB)" "moved" "mkfs (s)" "bench (s)" \
        "expect (s)" ratio "ratio no bench"
declare -A EXP R RNB
for mode in in-place drain-first; do
        f=1
        [ "$mode" = drain-first ] && f=2
        EXP[$mode]=$(calc "${DATA[$mode]} * $f / $thr + ${MKFS[$mode]}")
        R[$mode]=$(calc "${T[$mode]} / ${EXP[$mode]}" .2f)
        RNB[$mode]=$(calc "(${T[$mode]} - ${BENCH[$mode]}) / ${EXP[$mode]}" .2f)
        printf '%-12s %9s %10s %9s %9s %9s %11s %7s %14s\n' "$mode" "${T[$mode]}" "${DATA[$mode]}" "${f}x" "${MKFS[$mode]}" \
                "${BENCH[$mode]}" "${EXP[$mode]}" "${R[$mode]}" "${RNB[$mode]}"
done
echo "  (data: the PG copies on the host's OSDs before; osd df MiB: in-place ${DF[in-place]};" \
        "drain-first ${DF[drain-first]})"
echo "drain-first / in-place time: $(calc "${T[drain-first]} / ${T[in-place]}" .2f)," \
        "without the benchmarks: $(calc "(${T[drain-first]} - ${BENCH[drain-first]}) / (${T[in-place]} - ${BENCH[in-place]})" .2f)" \
        "(the model says $(calc "${EXP[drain-first]} / ${EXP[in-place]}" .2f))"
echo "bench: $(calc "$(now) - $t_start" .0f) s in all"
echo "ok: throughput measured, 2 conversions"
