#!/bin/bash
# `cephprov apply --stage disks` with the local transport on real loop devices: scenario 1
# of DESIGN.md scaled down. An "SSD" that already carries a BIOS boot, an "OS" and a "swap"
# partition (random bytes) gets DB and WAL partitions for two "HDDs" in its free space;
# the existing partitions must stay byte-identical, the second run must change nothing, and
# a data device with an xfs signature (wipe off) must be refused and left untouched.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/block-lib.sh"

cephprov=${1:?usage: test-apply-local.sh CEPHPROV}
block_setup apply-local sgdisk partx losetup blkid sha256sum mkfs.xfs

# The SSD: 2 GiB, partitions 1-3 as on scenario 1's SSDs (scaled), filled with random bytes.
truncate -s 2G "$dir/ssd.img"
sgdisk -n 1:2048:+1M -t 1:EF02 -c 1:bios \
          -n 2:0:+256M -t 2:FD00 -c 2:os \
          -n 3:0:+128M -t 3:FD00 -c 3:swap "$dir/ssd.img" >/dev/null
truncate -s 1G "$dir/hdd0.img" "$dir/hdd1.img" "$dir/hdd2.img"
block_attach ssd "$dir/ssd.img" 0
block_attach hdd0 "$dir/hdd0.img" 1
block_attach hdd1 "$dir/hdd1.img" 1
block_attach hdd2 "$dir/hdd2.img" 1
partx -a "$ssd" 2>/dev/null # no partition parser in this kernel: add the nodes by BLKPG
for n in 1 2 3; do
        # never let dd create a regular file under /dev
        [ -b "${ssd}p$n" ] || { echo "FAIL set-up: ${ssd}p$n is not a block device"; exit 1; }
        dd if=/dev/urandom of="${ssd}p$n" bs=1M count=128 iflag=fullblock status=none 2>/dev/null
done
sync
sums_before=$(sha256sum "${ssd}p1" "${ssd}p2" "${ssd}p3" "$hdd0" "$hdd1")

cat >"$dir/layout.yaml" <<YAML
cluster:
  name: blocktest
profiles:
  hc:
    allow: [$ssd, $hdd0, $hdd1, $hdd2]
    data:
      devices: [$hdd0, $hdd1]
    fast:
      devices: [$ssd]
      keep_partitions: [1, 2, 3]
      data_per_fast: 2
    db_size: 300M
    wal_size: 64M
hosts:
  - name: local1
    transport: local
    profile: hc
YAML

# partitions are named by their HDD's identity (a loop device's: its backing file)
t0=$(cp_tag "$hdd0") t1=$(cp_tag "$hdd1")
out=$(LC_ALL=C "$cephprov" plan "$dir/layout.yaml" --detail 2>&1)
check "plan succeeds" test $? -eq 0
check_contains "plan shows the DB partition of slot 0, named by its HDD" "$out" "cp:db:$t0:local1"
check_contains "plan shows the blast radius" "$out" "blast radius: $ssd -> $hdd0, $hdd1 (2 OSDs)"

out=$("$cephprov" apply "$dir/layout.yaml" --stage disks --dry-run 2>&1)
check "dry run succeeds" test $? -eq 0
check_contains "dry run says so" "$out" "dry run: nothing changed"
check_eq "dry run leaves the table as it was" "$(sgdisk -p "$ssd" | grep -c 'cp:')" "0"

out=$("$cephprov" apply "$dir/layout.yaml" --stage disks </dev/null 2>&1)
check "apply without --yes and without a terminal refuses" test $? -ne 0
check_contains "and says why" "$out" "not confirmed: nothing changed"

out=$("$cephprov" apply "$dir/layout.yaml" --stage disks --yes 2>&1)
rc=$?
echo "$out" | tail -8
check "apply --stage disks succeeds" test $rc -eq 0
check_contains "apply verifies convergence" "$out" "converged"

table=$(sgdisk -p "$ssd")
echo "$table" | tail -8
# 1 MiB boot at 1 MiB, OS at 2 MiB, swap at 258 MiB → free space from 386 MiB (sector 790528)
check_eq "partition 4: DB of slot 0 after the kept ones" \
        "$(echo "$table" | awk '$1 == 4 {print $2, $3, $7}')" "790528 1404927 cp:db:$t0:local1"
# (sgdisk -p cuts names at 20 characters: the whole name from sgdisk -i)
partname() { sgdisk -i "$1" "$ssd" | sed -n "s/^Partition name: '\(.*\)'\$/\1/p"; }
check_eq "partition 5: WAL of slot 0" "$(echo "$table" | awk '$1 == 5 {print $2, $3}') $(partname 5)" \
        "1404928 1535999 cp:wal:$t0:local1"
check_eq "partition 6: DB of slot 1" "$(echo "$table" | awk '$1 == 6 {print $7}')" "cp:db:$t1:local1"
check_eq "partition 7: WAL of slot 1" "$(partname 7)" "cp:wal:$t1:local1"
check_eq "DB type GUID is Ceph's block.db" "$(sgdisk -i 4 "$ssd" | awk '/GUID code/ {print $4}')" "30CD0809-C2B2-499C-8879-2D6B78529876"
check_eq "WAL type GUID is Ceph's block.wal" "$(sgdisk -i 5 "$ssd" | awk '/GUID code/ {print $4}')" "5CE17FCE-4087-4169-B7FF-056CC58473F9"
check "the kernel knows partition 7 (BLKPG)" test -b "${ssd}p7"
check_eq "blkid sees the partition name" "$(blkid -p -s PART_ENTRY_NAME -o value "${ssd}p4")" "cp:db:$t0:local1"
check_eq "kept partitions and HDDs are byte-identical" \
        "$(sha256sum "${ssd}p1" "${ssd}p2" "${ssd}p3" "$hdd0" "$hdd1")" "$sums_before"

out=$("$cephprov" apply "$dir/layout.yaml" --stage disks --yes 2>&1)
check "second apply succeeds" test $? -eq 0
check_contains "second apply changes nothing" "$out" "nothing to do in stage 'disks'"
check_eq "table unchanged by the second apply" "$(sgdisk -p "$ssd")" "$table"
check "the journal recorded the steps" grep -q '"event":"wave-step-done"' "$dir/state/blocktest.journal"

# A data device with an xfs signature and wipe off: refused, named, untouched.
mkfs.xfs -q -f "$hdd2"
sum_xfs=$(sha256sum "$hdd2")
sed -i "s|devices: \[$hdd0, $hdd1\]|devices: [$hdd0, $hdd1, $hdd2]|; s|data_per_fast: 2|data_per_fast: 3|" "$dir/layout.yaml"
out=$("$cephprov" apply "$dir/layout.yaml" --stage disks --yes 2>&1)
check "a data device with xfs is refused" test $? -ne 0
check_contains "the refusal names the device" "$out" "$hdd2"
check_contains "the refusal names the signature" "$out" "xfs"
check_eq "the xfs device is byte-identical" "$(sha256sum "$hdd2")" "$sum_xfs"

# A device outside the allow-list: refused by the agent even when asked directly.
sed -i "s|allow: \[$ssd, $hdd0, $hdd1, $hdd2\]|allow: [$ssd, $hdd0, $hdd1]|" "$dir/layout.yaml"
out=$("$cephprov" apply "$dir/layout.yaml" --stage disks --yes 2>&1)
check "a device outside the allow-list is refused" test $? -ne 0
check_contains "the refusal names the device" "$out" "$hdd2"

finish
