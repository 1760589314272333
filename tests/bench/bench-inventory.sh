#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Inventory of 6 loop devices (2 "SSDs" with GPT + partitions, 4 "HDDs", one with xfs):
# cephprov's agent (in-process and as a process) next to `lsblk -J -O` and
# `ceph-volume inventory --format json`, with ratios. Target: cephprov ≤ 20 ms.
# usage: bench-inventory.sh BENCH_BINARY AGENT_TOOL     (root; exit 77 = skip)
set -u
bench=${1:?bench-inventory binary}
tool=${2:?agent-tool binary}
runs=${BENCH_RUNS:-20}

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (loop devices)"; exit 77; }
[ -e /dev/loop-control ] || { echo "SKIP: no /dev/loop-control"; exit 77; }
for t in losetup partx sgdisk lsblk mkfs.xfs; do
        command -v $t >/dev/null || { echo "SKIP: $t missing"; exit 77; }
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/cephprov-bench.XXXXXX")
loops=()
cleanup() {
        for l in "${loops[@]}"; do
                partx -d "$l" 2>/dev/null
                losetup -d "$l"
        done
        rm -rf "$dir"
}
trap cleanup EXIT

for i in 0 1 2 3 4 5; do
        truncate -s 1G "$dir/d$i.img"
        l=$(losetup -f --show -P "$dir/d$i.img") || exit 1
        loops+=("$l")
done
for i in 0 1; do
        echo 0 > /sys/block/${loops[$i]#/dev/}/queue/rotational
        sgdisk -n 1:2048:+1M -t 1:ef02 -n 2:0:+100M -t 2:fd00 -n 3:0:+64M -t 3:30cd0809-c2b2-499c-8879-2d6b78529876 \
               -n 4:0:+128M -t 4:c6b0f3a9-3ae3-4dd0-98bb-6e54b7b7b9f6 "${loops[$i]}" >/dev/null
        partx -a "${loops[$i]}"
done
mkfs.xfs -q -f "${loops[2]}"

ms() { echo "scale=2; ($2 - $1) / 1000000" | bc; }
# median wall time (ms) of a command over $runs runs
time_cmd() {
        local n=$1; shift
        local ts=()
        for ((i = 0; i < n; i++)); do
                local t0=$(date +%s%N)
                "$@" >/dev/null 2>&1
                local t1=$(date +%s%N)
                ts+=("$(ms $t0 $t1)")
        done
        printf '%s\n' "${ts[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

read -r inproc_min inproc_med ndev < <("$bench" "$runs" "${loops[@]}")
allow=$(printf '"%s",' "${loops[@]}"); allow="[${allow%,}]"
proc_med=$(time_cmd "$runs" "$tool" call "{\"id\":1,\"op\":\"configure\",\"args\":{\"allow\":$allow}}" '{"id":2,"op":"inventory"}')
lsblk_med=$(time_cmd "$runs" lsblk -J -O "${loops[@]}")
# the same probing work done by util-linux's own tool: blkid -p on every device and partition
nodes=()
for l in "${loops[@]}"; do nodes+=("$l"); for p in "$l"p*; do [ -b "$p" ] && nodes+=("$p"); done; done
blkid_all() { for n in "${nodes[@]}"; do blkid -p -o export "$n"; done; }
blkid_med=$(time_cmd "$runs" blkid_all)
# without udevd, lsblk reports no signatures or partition types: say so next to its figure
lsblk_note=""
if [ -z "$(lsblk -n -o FSTYPE "${loops[2]}" | tr -d ' ')" ]; then lsblk_note=" (no udev db: lsblk shows no fstype/parttype)"; fi

cv_med=""
if command -v ceph-volume >/dev/null; then
        # one ceph-volume run per device (it inventories one path, or every device on the
        # machine — which here includes other people's loops)
        cv_one() { for l in "${loops[@]}"; do CEPH_VOLUME_ALLOW_LOOP_DEVICES=1 ceph-volume inventory --format json "$l" || return 1; done; }
        cv_med=$(time_cmd 1 cv_one)
        cv_all=$(time_cmd 1 env CEPH_VOLUME_ALLOW_LOOP_DEVICES=1 ceph-volume inventory --format json)
fi

ratio() { echo "scale=1; $1 / $2" | bc; }
echo "inventory of $ndev loop devices ($runs runs, median; load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores)"
printf '  %-44s %9s ms   (min %s ms)\n' "cephprov agent_inventory() in-process" "$inproc_med" "$inproc_min"
printf '  %-44s %9s ms\n' "cephprov agent process (exec+configure+inv)" "$proc_med"
printf '  %-44s %9s ms   x%s of cephprov in-process%s\n' "lsblk -J -O (same devices)" "$lsblk_med" "$(ratio $lsblk_med $inproc_med)" "$lsblk_note"
printf '  %-44s %9s ms   x%s\n' "blkid -p on each of the ${#nodes[@]} devices+partitions" "$blkid_med" "$(ratio $blkid_med $inproc_med)"
if [ -n "$cv_med" ]; then
        printf '  %-44s %9s ms   x%s\n' "ceph-volume inventory, 6 runs (1 per device)" "$cv_med" "$(ratio $cv_med $inproc_med)"
        printf '  %-44s %9s ms   x%s\n' "ceph-volume inventory (all devices, 1 run)" "$cv_all" "$(ratio $cv_all $inproc_med)"
fi
echo "  target: cephprov <= 20 ms: $(echo "$inproc_med <= 20" | bc | sed 's/1/met/;s/0/MISSED/')"
[ "$ndev" = 6 ] || { echo "expected 6 devices in the inventory, got $ndev"; exit 1; }
