#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The seed's host on a User-mode Linux guest, end to end (issue 28, item 2): a lab with its
# admin host (mon + mgr of a real Pacific cluster), guest uml1 (contrib/uml/host --md): 2 SSDs
# whose BIOS-boot partition is kept and whose os and swap partitions are two md raid1 arrays
# across both SSDs, assembled and running; 4 HDDs. `cephprov apply` of the lab's profile
# `uml` (scenario 1 at the guest's scale: per HDD a DB and a bcache cache partition on its
# SSD, bcache writeback with sequential_cutoff 0, OSDs on /dev/bcacheN through `ceph-volume
# lvm create`, created in parallel, class hdd from the backing HDD). Asserts: apply converges;
# 4 OSDs up, class hdd, each on /dev/bcacheN through LVM with its DB on the planned
# partition; bcache tuned; HEALTH_OK with every PG active+clean (the pool's CRUSH rule spreads
# over OSDs: the guest is the only host with OSDs); the md arrays still running with the
# contents they had and their members' data byte-identical; a re-apply has nothing to do.
# Prints the figures: boot, apply, each create-osd step.
#
# usage: test-uml-bcache.sh CEPHPROV
# Env: LAB, CEPH_LAB, UML_HOST, LAB_BASE, LAB_PREFIX (cpub), LAB_SUBNET (10.94.29), KEEP_LAB=1.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
# shellcheck source=tests/lab/lab-lib.sh
. "$here/../lab/lab-lib.sh"

CEPHPROV=$(realpath "${1:?usage: test-uml-bcache.sh CEPHPROV}")
top=$(cd "$here/../.." && pwd)
UML_HOST=${UML_HOST:-$top/contrib/uml/host}
base=$(realpath "${LAB_BASE:-$here}")
TMPDIR=$base lab_test_setup uml-bcache cpub 10.94.29 noceph ceph-mon ceph-mgr linux.uml sgdisk jq ssh bc
DIR=$dir/lab
uml_done=
lab_cleanup_hook() {
        if [ "${KEEP_LAB:-0}" = 1 ]; then
                echo "to take it down: $UML_HOST down --dir $DIR; $ceph_lab down --dir $DIR; $lab down --dir $DIR"
                return
        fi
        if { [ "$failures" -gt 0 ] || [ -z "$uml_done" ]; } && [ -d "$DIR/uml/uml1" ]; then
                echo "--- guest console (last 20 lines), boot log"
                tail -n 20 "$DIR/uml/uml1/console.log" 2>/dev/null
                cat "$DIR/uml/uml1/boot.log" 2>/dev/null
        fi
        "$UML_HOST" down --dir "$DIR" >/dev/null 2>&1
}

lab_bringup --hosts 0
if ! "$UML_HOST" up --dir "$DIR" --name uml1 --md; then echo "FAIL host up --md"; exit 1; fi
# shellcheck disable=SC1091
. "$DIR/uml/uml1/env"
uml() { ssh "${UML_SSH_OPTS[@]}" "root@$UML_ADDR" "$@"; }
check_eq "the guest's md arrays were made" "$UML_MD" 1

md_running() { # both arrays active raid1 with both members in sync, no resync left
        local a
        uml "grep -Eq 'resync|recovery|PENDING|DELAYED' /proc/mdstat" && { echo "  an md array is not in sync yet"; return 1; }
        for a in os swap; do
                uml "mdadm --detail /dev/md/$a" 2>/dev/null | grep -q 'State : clean *$' || { echo "  md $a not clean"; return 1; }
                [ "$(uml "mdadm --detail /dev/md/$a" 2>/dev/null | grep -c 'active sync')" = 2 ] || { echo "  md $a: not 2 members in sync"; return 1; }
        done
}
md_identical() { # each array holds what it held when made, and so does each member's data area
        local a sum m off size got bad=0
        while read -r a sum; do
                got=$(uml "sha256sum </dev/md/$a" | cut -d' ' -f1)
                [ "$got" = "$sum" ] || { echo "  md $a: $got, made as $sum"; bad=1; }
                size=$(uml "blockdev --getsize64 /dev/md/$a")
                for m in ssd0 ssd1; do
                        n=$([ "$a" = os ] && echo 2 || echo 3)
                        off=$(uml "mdadm --examine /dev/disk/by-id/$UML_SERIAL_PREFIX$m-part$n" | awk '/Data Offset/ { print $4 }')
                        # direct: the partition's page cache may still hold what udev's probe
                        # read before md wrote the member (seen: the second member's data read
                        # as the random bytes it had before the resync)
                        got=$(uml "dd if=/dev/disk/by-id/$UML_SERIAL_PREFIX$m-part$n bs=1M iflag=direct,skip_bytes,count_bytes skip=$((off * 512)) count=$size status=none | sha256sum" | cut -d' ' -f1)
                        [ "$got" = "$sum" ] || { echo "  md $a member $m: $got, the array $sum"; bad=1; }
                done
        done <"$UML_DIR/md.sha256"
        return $bad
}
check "md arrays os and swap running, both members in sync" md_running
check "md arrays and their members' data as made" md_identical

# the cluster's pool over OSDs, not hosts: the guest is the only host with OSDs
ceph_ osd crush rule create-replicated by-osd default osd >/dev/null 2>&1
ceph_ osd pool set data crush_rule by-osd >/dev/null 2>&1

t_apply=$SECONDS
timeout 1500 "$CEPHPROV" apply "$DIR/layout.yaml" --hosts uml1 --yes >"$DIR/apply.out" 2>&1
rc=$?
t_apply=$((SECONDS - t_apply))
check_eq "cephprov apply of profile uml on uml1 converges (exit 0)" "$rc" 0 || grep -v warning "$DIR/apply.out" | tail -n 30
osd_s=$(jq -r 'select(.event == "osd-created" and .host == "uml1") | .seconds | . * 10 | round / 10' "$CEPHPROV_STATE_DIR"/*.journal | paste -sd' ' -)
check_eq "4 OSDs of class hdd up on host uml1" \
        "$(ceph_ osd tree -f json 2>/dev/null | jq -r '[.nodes[] | select(.type == "osd" and .status == "up" and .device_class == "hdd")] | length')" 4
inv=$("$CEPHPROV" inventory "$DIR/layout.yaml" --hosts uml1 --json 2>/dev/null)
dbs=$(jq -r '[.inventories[0].devices[].partitions[]? | select(.name | startswith("cp:db:")) | .node] | sort | join(" ")' <<<"$inv")
got=$(for id in $(ceph_ osd ls 2>/dev/null); do ceph_ osd metadata "$id" -f json 2>/dev/null | jq -r .bluefs_db_partition_path; done | sort | paste -sd' ' -)
check_eq "each OSD's DB on a planned partition" "$got" "$dbs"
check_eq "each OSD on LVM on a bcache device" \
        "$(uml 'ceph-volume lvm list --format json' 2>/dev/null | jq -r '[.[][] | select(.type == "block") | .devices[]] | map(test("^/dev/bcache[0-9]+$")) | all and length == 4')" true
check_eq "bcache writeback, sequential_cutoff 0 on every HDD" \
        "$(jq -r '[.inventories[0].devices[] | select(.content.bcache.role == "backing") | "\(.content.bcache.cache_mode):\(.content.bcache.sequential_cutoff)"] | join(" ")' <<<"$inv")" \
        "writeback:0 writeback:0 writeback:0 writeback:0"
# (the mgr's pool made once OSDs came has the default rule: over OSDs too)
for pool in $(ceph_ osd pool ls 2>/dev/null); do ceph_ osd pool set "$pool" crush_rule by-osd >/dev/null 2>&1; done
check "HEALTH_OK, every PG active+clean" wait_healthy 300 || { ceph_ health detail; ceph_ pg stat; }
check "md arrays still running after apply" md_running
check "md arrays and their members' data unchanged by apply" md_identical
check "BIOS-boot partitions kept" uml "test -b /dev/disk/by-id/${UML_SERIAL_PREFIX}ssd0-part1 && test -b /dev/disk/by-id/${UML_SERIAL_PREFIX}ssd1-part1"
check "a re-apply has nothing to do (plan --detailed-exitcode)" \
        "$CEPHPROV" plan "$DIR/layout.yaml" --hosts uml1 --detailed-exitcode
t_reapply=$SECONDS
"$CEPHPROV" apply "$DIR/layout.yaml" --hosts uml1 --yes >"$DIR/reapply.out" 2>&1
rc=$?
t_reapply=$((SECONDS - t_reapply))
check_eq "a second apply exits 0" "$rc" 0 || tail -n 15 "$DIR/reapply.out"
check_eq "4 OSDs still up after the second apply" \
        "$(ceph_ osd tree -f json 2>/dev/null | jq -r '[.nodes[] | select(.type == "osd" and .status == "up")] | length')" 4

echo "figures: boot to SSH $(printf '%.1f' "$UML_BOOT_S") s; apply on uml1 ${t_apply} s (create-osd, 4 in parallel: ${osd_s:-?} s); re-apply ${t_reapply} s"
uml_done=1
finish
