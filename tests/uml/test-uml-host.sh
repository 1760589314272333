#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A User-mode Linux guest as a storage host of the lab (issue 28, item 1): a lab with its
# admin host (mon + mgr of a real Pacific cluster) and one namespace host (node1: 1 SSD, 1 HDD
# as loop devices), then guest uml1 (contrib/uml/host) on the lab's bridge. Asserts, over SSH
# as the controller reaches it:
#   - the guest runs its own kernel (UML), its root is an overlay on its own state disk, and
#     what it writes there never reaches this machine's /;
#   - `cephprov inventory` sees the guest's 2 SSDs (rotational false) and 4 HDDs (rotational
#     true) with their by-id names and serials, udev data, and the SSDs' kept BIOS-boot, os
#     and swap partitions (names, sizes, swap at the end of the disk);
#   - the kept partitions hold the bytes written when the disks were made (sha256);
#   - `modprobe bcache` works, and `ceph -s` from the guest (bootstrap-osd key) reaches the
#     lab's mon (same fsid);
#   - after `host down` and `host up` the guest's root keeps a file written before, and the
#     rotational flags are right again.
# Then, in the same run, one OSD created by `cephprov apply` on node1 (raw: no LVM on this
# machine's kernel) and one on uml1 (the product picks `ceph-volume lvm create` there: LVM
# works), the same disk sizes, one host at a time; twice: with Ceph's defaults, then with
# bluestore_fsck_on_mkfs false; prints each create-osd's time and their ratio, the first
# (Ceph's defaults) checked against UML_HOST_MAX_RATIO (default 5; the bench suite, where
# this test runs alone on the machine, gives 3, the issue's target). Alone on the machine
# (7 December 2026): 1.76x and 1.91x (uml1 18.6-19.9 s against node1 10.4-10.6 s) with the
# kernel contrib/uml/kernel fetches (7.2, seccomp=on); 3.33x with that kernel and
# seccomp=off (ptrace); 5.2-5.4x with Debian 12's 6.1 (ptrace), which met 3x only on some
# machines (2.92-3.54x in November). The qemu/TCG guest was ~50x.
#
# usage: test-uml-host.sh CEPHPROV
# Env: LAB, CEPH_LAB, UML_HOST (the contrib scripts), LAB_BASE (where the test's directory,
# and so the lab's, goes: default the directory of this script), LAB_PREFIX (cpu),
# LAB_SUBNET (10.94.28), KEEP_LAB=1, UML_HOST_MAX_RATIO, UML_HOST_ROUNDS (2; 1: only the
# round with Ceph's defaults; 0: no OSD measured). The lab: tests/lab/lab-lib.sh.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lab/guest-lib.sh
. "$here/../lab/guest-lib.sh"

CEPHPROV=$(realpath "${1:?usage: test-uml-host.sh CEPHPROV}")
MAX_RATIO=${UML_HOST_MAX_RATIO:-5}
ROUNDS=${UML_HOST_ROUNDS:-2} # 1: only the round with Ceph's defaults; 0: none
guest_test_setup uml uml-host cpu 10.94.28 linux.uml sgdisk jq ssh bc

# node1: one SSD and two HDDs of the guest's sizes, for the OSDs measured beside the guest's
lab_bringup --hosts 1 --ssd 1 --hdd 2 --ssd-size 8G --hdd-size 4G

guest_up uml1 || { echo "FAIL host up"; exit 1; }
boot_cold=$UML_BOOT_S

check "the guest runs a UML kernel" uml 'grep -q "^vendor_id.*User Mode Linux" /proc/cpuinfo'
check "the guest's root is an overlay on its state disk" uml 'findmnt -no FSTYPE / | grep -qx overlay'
check "modprobe bcache in the guest" uml 'modprobe bcache && test -d /sys/fs/bcache'
marker=/root/uml-host-marker-$$
check "write a marker in the guest's /root" uml "echo kept >$marker && sync"
check "the marker is not on this machine (the guest's root is its own)" test ! -e "$marker"

# the cluster, from the guest
fsid=$(sed -n 's/^fsid = //p' "$DIR/etc-ceph/ceph.conf")
got=$(uml timeout 60 ceph --connect-timeout 30 -n client.bootstrap-osd -k /var/lib/ceph/bootstrap-osd/ceph.keyring -s -f json 2>/dev/null | jq -r .fsid 2>/dev/null)
check_eq "ceph -s from the guest reaches the lab's mon" "$got" "$fsid"

# the inventory, as the controller sees it over SSH
inventory_ok() { # the guest's disks as the planner needs them
        local inv d s
        inv=$("$CEPHPROV" inventory "$DIR/layout.yaml" --hosts uml1 --json 2>"$DIR/inventory.err")
        check "cephprov inventory of uml1 over SSH" jq -e '.inventories[0].host == "uml1"' <<<"$inv" >/dev/null ||
                cat "$DIR/inventory.err"
        check_eq "udev data in the guest" "$(jq -r '.inventories[0].udev_available' <<<"$inv")" true
        guest_disks_ok "$inv" '^ubd[b-z]$' uml1
        check_eq "6 allowed devices (not the state disk)" "$(jq -r '[.inventories[0].devices[] | select(.allowed)] | length' <<<"$inv")" 6
}
inventory_ok
# a second inventory: ubd says "non-rotational" again at every first open of a disk, which
# the guest's init prevents by holding them open (contrib/uml/init)
check_eq "HDDs still rotational after the disks were opened and closed" \
        "$(uml 'for d in $(ls /dev/disk/by-id/ | grep -- -hdd[0-9]$); do dd if=/dev/disk/by-id/$d of=/dev/null bs=4k count=1 status=none; cat /sys/class/block/$(basename "$(readlink -f /dev/disk/by-id/$d)")/queue/rotational; done' | paste -sd' ')" \
        "1 1 1 1"

check "kept partitions byte-identical (read in the guest)" guest_kept_ok

# memory: the kernel's RSS on the machine (its helper processes apart), what the guest uses
kpid=$(cat "$UML_DIR/kernel.pid")
rss=$(awk '/^VmRSS:/ { print int($2 / 1024) }' "/proc/$kpid/status")
guest_used=$(uml free -m | awk '/^Mem:/ { print $3 }')

# a restart keeps the root's contents
"$guest_host" down --dir "$DIR" || echo "FAIL host down"
check "the guest's kernel is gone after down" test ! -e "/proc/$kpid"
check_eq "no process of the guest left after down" "$(pgrep -s "$kpid" | paste -sd' ')" ""
if guest_up uml1; then
        check_eq "the root kept the marker over a restart" "$(uml cat "$marker")" kept
        check "kept partitions byte-identical after the restart" guest_kept_ok
        inventory_ok
else
        check "host up again" false
fi

# One OSD on node1, then one on uml1 (`cephprov apply`, one host at a time, same disk sizes):
# the guest's cost of an OSD against a namespace host's, measured in one run. Twice: with
# Ceph's defaults, then with bluestore_fsck_on_mkfs false for both (the fsck after mkfs
# touches ~130 MiB: 35,000 of mkfs's 42,000 page faults, and a page fault costs ~120-300 us in
# the guest against ~10 us here; measured: it saves about as much on both hosts, so the
# ratio does not improve: the guest's time is in ceph-volume's ~40 processes, not in mkfs)
node1_ssd=$(awk '$2 == "ssd" { print $1; exit }' "$DIR/hosts/node1/loops")
mapfile -t node1_hdds < <(awk '$2 == "hdd" { print $1 }' "$DIR/hosts/node1/loops")
one_osd_layout() { # one_osd_layout N: the layout of round N (its HDD and those of the rounds before)
        local n=$1 i ns=$node1_ssd um=/dev/disk/by-id/${UML_SERIAL_PREFIX}ssd0
        for ((i = 0; i < n; i++)); do ns+=", ${node1_hdds[$i]}"; um+=", /dev/disk/by-id/${UML_SERIAL_PREFIX}hdd$i"; done
        sed -n '1,/^profiles:$/p' "$DIR/layout.yaml"
        cat <<EOF
  one:
    data:
      rotational: true
    fast:
      rotational: false
    db_size: 512M
  one-uml:
    data:
      rotational: true
    fast:
      rotational: false
      keep_partitions: [1, 2, 3]
    db_size: 512M
hosts:
  - name: admin
    address: $LAB_SUBNET.10
  - name: node1
    address: $LAB_SUBNET.11
    profile: one
    allow: [$ns]
  - name: uml1
    address: $UML_ADDR
    profile: one-uml
    allow: [$um]
EOF
}
osd_seconds() { # the create-osd time of HOST's OSD ID, from the journal (osd-created)
        jq -r --arg h "$1" --argjson id "$2" 'select(.event == "osd-created" and .host == $h and .osd_id == $id) | .seconds' \
                "$CEPHPROV_STATE_DIR"/*.journal | tail -n 1
}
osd_phases() {
        jq -r --arg h "$1" --argjson id "$2" 'select(.event == "osd-created" and .host == $h and .osd_id == $id)
                | "prepare \(.seconds_prepare | . * 10 | round / 10) s, activate \(.seconds_activate | . * 10 | round / 10) s, start \(.seconds_start | . * 10 | round / 10) s"' \
                "$CEPHPROV_STATE_DIR"/*.journal | tail -n 1
}
osd_of() { # the id of the OSD on HOST's N-th OSD (from the journal, in order)
        jq -r --arg h "$1" 'select(.event == "osd-created" and .host == $h) | .osd_id' "$CEPHPROV_STATE_DIR"/*.journal | sed -n "$2p"
}
ratio=
ratio_default=
[ "$ROUNDS" -gt 0 ] || echo "the OSD measurement is not run (UML_HOST_ROUNDS=0; the bench suite's uml-host-ratio runs it)"
for round in $(seq 1 "$ROUNDS"); do
        if [ "$round" = 2 ]; then
                check "bluestore_fsck_on_mkfs false for the lab's OSDs" ceph_ config set osd bluestore_fsck_on_mkfs false
                what="bluestore_fsck_on_mkfs false"
        else
                what="Ceph's defaults"
        fi
        one_osd_layout "$round" >"$DIR/one-osd-$round.yaml"
        for h in node1 uml1; do
                timeout 900 "$CEPHPROV" apply "$DIR/one-osd-$round.yaml" --hosts "$h" --yes >"$DIR/apply-$h-$round.out" 2>&1
                rc=$?
                check_eq "apply of one OSD on $h ($what) exits 0" "$rc" 0 || tail -n 20 "$DIR/apply-$h-$round.out"
        done
        check_eq "OSDs of class hdd up, $round on each host" \
                "$(ceph_ osd tree -f json 2>/dev/null | jq -r '[.nodes[] | select(.type == "host") | select(.name == "node1" or .name == "uml1") | .children | length] | join(" ")')" \
                "$round $round"
        id_ns=$(osd_of node1 "$round")
        id_uml=$(osd_of uml1 "$round")
        t_ns=$(osd_seconds node1 "${id_ns:-0}")
        t_uml=$(osd_seconds uml1 "${id_uml:-0}")
        ratio=$(echo "scale=2; ${t_uml:-0} / ${t_ns:-1}" | bc)
        [ "$round" = 1 ] && ratio_default=$ratio
        echo "figures: create-osd ($what): node1 (namespace host, raw) $(printf '%.1f' "${t_ns:-0}") s ($(osd_phases node1 "${id_ns:-0}")); uml1 (UML guest, lvm) $(printf '%.1f' "${t_uml:-0}") s ($(osd_phases uml1 "${id_uml:-0}")); ratio ${ratio}x"
done
if [ "$ROUNDS" -gt 0 ]; then
        check_eq "the guest's OSDs on LVM (ceph-volume lvm)" "$(uml 'ceph-volume lvm list --format json' 2>/dev/null | jq -r '[.[][] | .type] | sort | join(" ")')" \
                "$(for _ in $(seq 1 "$ROUNDS"); do echo block; echo db; done | sort | paste -sd' ' -)"
        check "the guest's OSD creation within ${MAX_RATIO}x the namespace host's (${ratio_default}x, Ceph's defaults)" \
                test "$(echo "$ratio_default <= $MAX_RATIO" | bc)" = 1
fi

echo "figures: kernel $UML_KERNEL_RELEASE; boot to SSH ${boot_cold} s cold, ${UML_BOOT_S} s again; kernel RSS $rss MiB; guest used $guest_used MiB of $(uml free -m | awk '/^Mem:/ { print $2 }') MiB"
guest_done=1
finish
