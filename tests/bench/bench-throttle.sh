#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The backfill throttle benchmark (issue 12): one lab (3 fake hosts, 6 BlueStore OSDs, ~200 MB
# in the pool 'data'), every storage host's disks made slow (`lab slow`: IOPS and bandwidth
# per device: BENCH_IOPS, default 150; BENCH_BPS, default 20 MB/s), a steady client
# workload running (4 KiB write + read at queue depth 1, every op's latency recorded:
# tests/bench/probe-load.py). Then, from the same starting state each time, `cephprov drain`
# of node3 under the slow preset, the fast preset and the adaptive throttle (BENCH_MODES), each
# followed by `drain --cancel` and a wait for active+clean. Prints per mode the time to
# active+clean and the client p50/p99/max during the drain, and the ratios, from this run:
#   adaptive time / fast time (target ≤ 1.2), adaptive p99 / slow p99 (target ≤ 1.1), and
#   fast vs slow in time and p99 (the lab must make them differ at least 2× for the targets
#   to mean anything).
# BENCH_MODES may hold rungN too (osd_max_backfills etc. N/N/N under wpq): the points between
# slow (rung1) and fast (rung4), to see what the lab allows; rungNcM with recovery pushes of
# M MiB (osd_recovery_max_chunk). Between modes the data comes back
# on unlimited disks with backfill wide open, and the start state is set again.
# BENCH_CEPH=reef|tentacle runs the lab on that release (mClock: the presets and the adaptive
# ladder are osd_mclock_profile there), pacific (wpq) by default.
# Not a pass/fail test of the targets: it fails only when a drain or a cancel fails.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lab/lab-lib.sh"
. "$(dirname "$0")/throttle-lib.sh"

cephprov=${1:?usage: bench-throttle.sh CEPHPROV}
here=$(cd "$(dirname "$0")" && pwd)
lab_test_setup bench-throttle cpbt 10.99.28
blk=/sys/fs/cgroup/blkio
[ -w "$blk" ] || skip "no writable blkio cgroup ($blk) to make the disks slow"
iops=${BENCH_IOPS:-150} bps=${BENCH_BPS:-20971520} modes=${BENCH_MODES:-slow fast adaptive}
release=${BENCH_CEPH:-pacific}
if [ "$release" != pacific ]; then
        "$(dirname "$lab")/ceph-root" path "$release" >/dev/null || { echo "FAIL: no $release root (contrib/lab/ceph-root)"; exit 1; }
fi
echo "Ceph: $release"

LOAD_PID=
lab_cleanup_hook() { [ -n "$LOAD_PID" ] && { touch "$dir/stop"; wait "$LOAD_PID" 2>/dev/null; }; } # the client load

throttle_lab_up slow
put_objects 50 4194304 "$dir/data"
on admin rados -p data bench 10 write -b 4096 -t 8 --no-cleanup >/dev/null
wait_clean 300 || { echo "FAIL: not clean with the data"; exit 1; }
compact_all || { echo "FAIL: ceph tell osd.N compact"; exit 1; }

set_disks --iops "$iops" --bps "$bps" || { echo "FAIL lab slow"; exit 1; }
echo "disks: $iops IOPS and $((bps / 1048576)) MiB/s per device, reads and writes"

stats() { python3 - "$1" <<'PY'
import math, sys
v = sorted(float(l.split()[1]) for l in open(sys.argv[1]) if l.startswith(("write", "read")))
e = sum(int(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("error"))
p = lambda q: v[max(0, math.ceil(q / 100 * len(v)) - 1)] if v else float("nan")
print("%d %.2f %.2f %.2f %d" % (len(v), p(50), p(99), v[-1] if v else float("nan"), e))
PY
}

# the layout's throttle for a mode: a preset, or rungN = N/N/N (the points between slow and
# fast); rungNcM adds osd_recovery_max_chunk M MiB (default 8) for that drain, set here (not
# a throttle key of cephprov's: a question to the lab, whether smaller pushes leave the
# clients' ops fewer bytes to wait behind at the same concurrency)
set_throttle() {
        local block m=${1%%c*}
        ceph_ config rm osd osd_recovery_max_chunk
        case $1 in
        rung*c*) ceph_ config set osd osd_recovery_max_chunk $((${1##*c} * 1048576)) ;;
        esac
        case $m in
        rung[0-9]*) local n=${m#rung}
                block="throttle:\n  preset: slow\n  osd_max_backfills: $n\n  osd_recovery_max_active: $n\n  osd_recovery_max_single_start: $n" ;;
        *) block="throttle:\n  preset: $1" ;;
        esac
        set_layout_throttle "$block"
}
declare -A T P50 P99 MAX
for mode in $modes; do
        set_throttle "$mode"
        wait_clean 600 || { echo "FAIL: not clean before $mode"; exit 1; }
        rm -f "$dir/stop" "$dir/load-$mode"
        python3 "$here/probe-load.py" "$lab" "$dir/lab" /root/.cephprov/cephprov "$dir/load-$mode" "$dir/stop" &
        LOAD_PID=$!
        sleep 6
        t0=$(date +%s.%N)
        "$cephprov" drain "$layout" node3 --yes >"$dir/drain-$mode.log" 2>&1 || { echo "FAIL drain under $mode"; tail -5 "$dir/drain-$mode.log"; exit 1; }
        t1=$(date +%s.%N)
        touch "$dir/stop"
        wait "$LOAD_PID"
        LOAD_PID=
        read -r n p50 p99 mx errs < <(stats "$dir/load-$mode")
        T[$mode]=$(python3 -c "print('%.1f' % ($t1 - $t0))")
        P50[$mode]=$p50 P99[$mode]=$p99 MAX[$mode]=$mx
        echo "$mode: drain ${T[$mode]} s; client p50 $p50 ms, p99 $p99 ms, max $mx ms over $n ops, $errs errors"
        [ "$mode" = adaptive ] && grep "throttle:" "$dir/drain-$mode.log" | head -40
        "$cephprov" drain "$layout" node3 --cancel --yes >"$dir/cancel-$mode.log" 2>&1 || { echo "FAIL cancel after $mode"; exit 1; }
        tb=$SECONDS
        back_fast 600 || { echo "FAIL: back to the starting state after $mode"; exit 1; }
        echo "  (back to the start in $((SECONDS - tb)) s)"
done

ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print('%.2f' % (a / b) if b else 'n/a')" "$1" "$2"; }
echo
printf '%-9s %10s %10s %10s %10s\n' mode "time (s)" "p50 (ms)" "p99 (ms)" "max (ms)"
for mode in $modes; do printf '%-9s %10s %10s %10s %10s\n' "$mode" "${T[$mode]}" "${P50[$mode]}" "${P99[$mode]}" "${MAX[$mode]}"; done
if [ -n "${T[slow]:-}" ] && [ -n "${T[fast]:-}" ]; then
        echo "slow / fast: time $(ratio "${T[slow]}" "${T[fast]}"), fast / slow p99 $(ratio "${P99[fast]}" "${P99[slow]}") (the lab must make both ≥ 2)"
fi
if [ -n "${T[adaptive]:-}" ] && [ -n "${T[fast]:-}" ] && [ -n "${T[slow]:-}" ]; then
        echo "adaptive / fast time: $(ratio "${T[adaptive]}" "${T[fast]}") (target ≤ 1.2)"
        echo "adaptive / slow p99:  $(ratio "${P99[adaptive]}" "${P99[slow]}") (target ≤ 1.1)"
fi
echo "ok: $(echo $modes | wc -w) drains and cancels"
