#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The lab of a FileStore → BlueStore conversion (issue 11, item 5), on Pacific (this machine's
# Ceph packages; later releases cannot create FileStore): `lab_filestore_up` (contrib/lab/ceph
# filestore) on 3 fake hosts of 1 SSD + 3 HDDs. Asserts:
#   - HEALTH_OK with every PG active+clean
#   - `ceph osd metadata`: every OSD the lab made says osd_objectstore filestore, on its host,
#     its data on the HDD's "ceph data" partition, its journal
#     (backend_filestore_journal_partition_path) on the planned SSD partition: the host's HDDs
#     in order take partitions 1, 2, 3 of the SSD
#   - on the host, each OSD's `journal` is a link to /dev/disk/by-partuuid/<uuid> that
#     resolves to that partition, whose GPT entry (read by blkid from the disk) has that uuid,
#     the name "ceph journal" and ceph-disk's journal type
#   - pool 'data' holds the 50 objects of 4 MiB and every one reads back identical to the
#     checksums recorded at bring-up (and the comparison fails on a wrong checksum)
#   - `cephprov inventory`: each OSD's data partition says role data, its journal partition
#     role journal, both with the OSD's id, uuid and the cluster's fsid, objectstore filestore
#   - `cephprov plan` on the lab's layout (LABDIR/filestore.yaml, scenario 3's shape) succeeds
#     and has a note for every FileStore OSD, naming it and saying it is filestore
#   - the teardown leaves nothing: no process of the lab, no namespace, no loop device of
#     the lab's images, no mount of the lab in any mount namespace, no bridge
# Prints the bring-up time. With CAPTURE_DIR set, saves what the conversion reads from a
# FileStore cluster (tests/data/ceph/pacific/filestore-*, see tests/data/ceph/README.md).
#
# Usage: test-filestore-lab.sh CEPHPROV
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"

cephprov=${1:?usage: test-filestore-lab.sh CEPHPROV}
lab_test_setup fslab cpfsl 10.99.36 filestore
dpkg-query -W ceph-osd 2>/dev/null

secs=$(lab_filestore_up "$dir/lab")
check "the FileStore lab comes up" test -n "$secs" || { cat "$dir/lab/filestore.log" 2>/dev/null; finish; exit 1; }
echo "bring-up (lab, mon + mgr, journals, 9 FileStore OSDs, 200 MB written, clean): $secs s"
grep '^ceph-lab: filestore:' "$dir/lab/filestore.log"
osds=$dir/lab/filestore/osds
layout=$dir/lab/filestore.yaml

check_eq "HEALTH_OK" "$(health_of 120)" HEALTH_OK
check "every PG active+clean" wait_clean 120

# the plan of the journals, worked out here from the lab's disks (not from the lab's own
# record): per host, HDD number i (in the order of its loops) → partition i % 3 + 1 of the
# SSD; "HOST HDD SSD PARTNUM" per line
expected=$(for h in node1 node2 node3; do
        ssd=$(awk '$2 == "ssd" {print $1}' "$dir/lab/hosts/$h/loops")
        awk -v h="$h" -v s="$ssd" '$2 == "hdd" {print h, $1, s, (n++ % 3) + 1}' "$dir/lab/hosts/$h/loops"
done)
check_eq "9 OSDs recorded, each on the HDD and journal partition planned" \
        "$(awk '{print $2, $3, $5, $6}' "$osds")" "$expected"

# osd metadata: objectstore, host, data and journal device of every OSD
meta=$(ceph_ osd metadata -f json 2>/dev/null)
tree=$(ceph_ osd tree -f json 2>/dev/null)
dump=$(ceph_ osd dump -f json 2>/dev/null)
check_eq "the cluster has exactly the lab's 9 OSDs" \
        "$(echo "$meta" | py 'import json,sys; print(" ".join(str(m["id"]) for m in sorted(json.load(sys.stdin), key=lambda m: m["id"])))')" \
        "$(cut -d' ' -f1 "$osds" | sort -n | paste -sd' ' -)"
while read -r id h hdd data ssd pn puuid jpart uuid; do
        got=$(echo "$meta" | py '
import json, sys
m = next(m for m in json.load(sys.stdin) if m["id"] == int(sys.argv[1]))
print(m.get("osd_objectstore"), m.get("hostname"), m.get("backend_filestore_partition_path"),
      m.get("backend_filestore_journal_partition_path"), m.get("journal_rotational"), m.get("osd_journal"))' "$id")
        check_eq "osd.$id: filestore on $h, data $data, journal $jpart (SSD) in its metadata" "$got" \
                "filestore $h $data $jpart 0 /var/lib/ceph/osd/ceph-$id/journal"
        check_eq "osd.$id: under host $h in the CRUSH tree" "$(echo "$tree" | py '
import json, sys
print(" ".join(n["name"] for n in json.load(sys.stdin)["nodes"] if n["type"] == "host" and int(sys.argv[1]) in n.get("children", [])))' "$id")" "$h"
        check_eq "osd.$id: journal is a link by PARTUUID" "$(on "$h" readlink "/var/lib/ceph/osd/ceph-$id/journal")" \
                "/dev/disk/by-partuuid/$puuid"
        check_eq "osd.$id: the link resolves to partition $pn of $ssd" \
                "$(on "$h" readlink -f "/var/lib/ceph/osd/ceph-$id/journal")" "${ssd}p$pn"
        # what the disk says, not the lab's links: the GPT entry of that partition
        check_eq "osd.$id: ${ssd}p$pn is GPT partition $pn 'ceph journal' (journal type) with that PARTUUID" \
                "$(on "$h" blkid -p -o export "${ssd}p$pn" | grep -E '^PART_ENTRY_(NUMBER|NAME|TYPE|UUID)=' | sort | paste -sd' ' -)" \
                "PART_ENTRY_NAME=ceph\\ journal PART_ENTRY_NUMBER=$pn PART_ENTRY_TYPE=45b0969e-9b03-4f30-b4c6-b4b80ceff106 PART_ENTRY_UUID=$puuid"
        check_eq "osd.$id: $data is 'ceph data' with the OSD's uuid as PARTUUID (as ceph-disk made it), the uuid of the OSD map" \
                "$(on "$h" blkid -p -o export "$data" | grep -E '^PART_ENTRY_(NAME|UUID)=' | sort | paste -sd' ' -) $(echo "$dump" | py '
import json, sys
print(next(o["uuid"] for o in json.load(sys.stdin)["osds"] if o["osd"] == int(sys.argv[1])))' "$id")" \
                "PART_ENTRY_NAME=ceph\\ data PART_ENTRY_UUID=$uuid $uuid"
        check_eq "osd.$id: XFS of $data mounted at /var/lib/ceph/osd/ceph-$id, type filestore, whoami $id" \
                "$(on "$h" findmnt -n -o SOURCE,FSTYPE "/var/lib/ceph/osd/ceph-$id" | tr -s ' ') $(on "$h" cat "/var/lib/ceph/osd/ceph-$id/type" "/var/lib/ceph/osd/ceph-$id/whoami" | paste -sd' ' -)" \
                "$data xfs filestore $id"
done < "$osds"

# the data: 50 objects of 4 MiB in pool 'data', read back identical. `ceph df` counts what the
# OSDs last reported to the manager (every few seconds: mgr_stats_period): right after the
# lab's writes it can lag by an object or two (48 of 50 seen once), so its reading is waited
# for, up to 60 s, before it is checked
pool_data_stats() {
        ceph_ df -f json 2>/dev/null | py '
import json, sys
p = next(p for p in json.load(sys.stdin)["pools"] if p["name"] == "data")
print(p["stats"]["objects"], p["stats"]["stored"])'
}
for i in $(seq 30); do
        stats=$(pool_data_stats)
        [ "$stats" = "50 209715200" ] && break
        sleep 2
done
check_eq "pool 'data' holds 50 objects, 200 MiB (as the manager reports them)" "$stats" "50 209715200"
check_eq "50 checksums recorded" "$(wc -l < "$dir/lab/filestore/objects.sha256")" 50
check "every object reads back identical" lab_filestore_objects_identical "$dir/lab"
# the comparison itself can fail: one checksum wrong on purpose (still hex: sha256sum
# skips a line it cannot parse unless --strict)
awk 'NR == 7 { $0 = (substr($0, 1, 1) == "0" ? "1" : "0") substr($0, 2) } { print }' \
        "$dir/lab/filestore/objects.sha256" > "$dir/wrong.sha256"
check "the wrong checksum differs from the recorded one in one line" \
        test "$(diff "$dir/lab/filestore/objects.sha256" "$dir/wrong.sha256" | grep -c '^>')" = 1
(lab_filestore_objects_identical "$dir/lab" "$dir/wrong.sha256" >/dev/null 2>&1)
check "a wrong checksum is seen (obj7)" test $? -ne 0

# cephprov plan on the lab's layout: every FileStore OSD listed with its note
check "the lab's layout validates" "$cephprov" validate "$layout"
out=$("$cephprov" plan "$layout" 2>&1)
rc=$?
echo "$out" | grep -E 'note:|error|refused|^plan:' | head -20
check "cephprov plan on the FileStore lab's layout succeeds" test $rc -eq 0
while read -r id h hdd _; do
        check "plan: a note for osd.$id ($h, $hdd) says it is filestore" \
                grep -Eq "note: .*osd\.$id([^0-9]|$).*filestore" <<< "$out"
done < "$osds"

# what the agent reports of each OSD: the data partition (mounted, its directory's files) and
# the journal partition (the data directory's journal link), both naming the OSD, its uuid and
# the cluster's fsid
inv=$("$cephprov" inventory "$layout" --json 2>"$dir/inventory.err")
check "cephprov inventory --json on the FileStore lab succeeds" test -n "$inv"
fsid=$(echo "$dump" | py 'import json, sys; print(json.load(sys.stdin)["fsid"])')
osd_of() { # osd_of HOST NODE: "id osd_fsid cluster_fsid role objectstore [unconfirmed]" of the partition NODE
        echo "$inv" | py '
import json, sys
d = json.load(sys.stdin)
inv = next(i for i in d["inventories"] if i["host"] == sys.argv[1])
p = next(p for dev in inv["devices"] for p in dev.get("partitions", []) if p.get("node") == sys.argv[2])
o = p.get("content", {}).get("osd", {})
print(o.get("id"), o.get("osd_fsid"), o.get("cluster_fsid"), o.get("role"), o.get("objectstore"),
      "unconfirmed" if o.get("unconfirmed") else "")' "$1" "$2" 2>&1 | sed 's/ *$//'
}
while read -r id h hdd data ssd pn puuid jpart uuid; do
        check_eq "inventory: osd.$id's data partition $data on $h is its FileStore data" \
                "$(osd_of "$h" "$data")" "$id $uuid $fsid data filestore"
        check_eq "inventory: osd.$id's journal partition $jpart on $h is its journal" \
                "$(osd_of "$h" "$jpart")" "$id $uuid $fsid journal filestore"
done < "$osds"

if [ -n "${CAPTURE_DIR:-}" ]; then
        mkdir -p "$CAPTURE_DIR"
        capture() { # capture NAME HOST ARGS... : ARGS on HOST (admin: the ceph CLI)
                local name=$1 h=$2
                shift 2
                if [ "$h" = admin ]; then
                        ceph_ "$@" >"$CAPTURE_DIR/$name.out" 2>"$CAPTURE_DIR/$name.err"
                else
                        on "$h" "$@" >"$CAPTURE_DIR/$name.out" 2>"$CAPTURE_DIR/$name.err"
                fi
                echo $? >"$CAPTURE_DIR/$name.rc"
        }
        capture filestore-osd-metadata admin osd metadata -f json
        capture filestore-osd-metadata-0 admin osd metadata 0 -f json
        capture filestore-osd-tree admin osd tree -f json
        capture filestore-osd-dump admin osd dump -f json
        capture filestore-health-detail-ok admin health detail -f json
        capture filestore-versions admin versions -f json
        n1=$(awk '$2 == "node1" {print $3, $4, $8}' "$osds" | tr ' ' '\n' | sort -u | paste -sd' ' -)
        # shellcheck disable=SC2086 # one argument per device
        capture filestore-ceph-volume-raw-list-node1 node1 env CEPH_VOLUME_ALLOW_LOOP_DEVICES=1 ceph-volume raw list $n1 --format json
        capture filestore-ceph-volume-lvm-list-node1 node1 env CEPH_VOLUME_ALLOW_LOOP_DEVICES=1 ceph-volume lvm list --format json
        capture filestore-ls-journal-node1 node1 sh -c 'ls -l /var/lib/ceph/osd/ceph-*/journal'
        capture filestore-ls-osd-dir-0 node1 ls -l /var/lib/ceph/osd/ceph-0
        capture filestore-journal-uuid-0 node1 cat /var/lib/ceph/osd/ceph-0/journal_uuid
        # the journal header of osd.0 (FileJournal's header_t, 4 KiB at the partition's start)
        capture filestore-journal-header-0 node1 dd if="$(awk '$1 == 0 {print $8}' "$osds")" bs=4096 count=1 status=none
        capture filestore-sgdisk-p-ssd-node1 node1 sgdisk -p "$(awk '$2 == "ssd" {print $1; exit}' "$dir/lab/hosts/node1/loops")"
        capture filestore-findmnt-osd-node1 node1 findmnt -J -o SOURCE,TARGET,FSTYPE,OPTIONS -t xfs
        echo "captured into $CAPTURE_DIR"
fi

# teardown: nothing of the lab may stay
sshd_pids=$(cat "$dir"/lab/hosts/*/sshd.pid)
mntns=$(for p in $sshd_pids; do readlink "/proc/$p/ns/mnt"; done | sort -u)
osd_pids=$(cat "$dir"/lab/hosts/node*/run/ceph-osd.*.pid 2>/dev/null)
check_eq "9 OSD daemons ran" "$(echo "$osd_pids" | wc -w)" 9
check "contrib/lab/ceph down" "$ceph_lab" down --dir "$dir/lab"
check "contrib/lab/lab down" "$lab" down --dir "$dir/lab"
torn_down=1
alive=
for p in $sshd_pids $osd_pids; do
        [ -d "/proc/$p" ] && alive="$alive $p($(tr '\0' ' ' < "/proc/$p/cmdline" | cut -c1-40))"
done
check_eq "no process of the lab is left (sshd, OSDs)" "$alive" ""
inns=
for p in /proc/[0-9]*; do
        m=$(readlink "$p/ns/mnt" 2>/dev/null) || continue
        grep -qxF "$m" <<< "$mntns" && inns="$inns ${p#/proc/}"
done
check_eq "no process is left in the hosts' mount namespaces (their XFS and /dev/disk mounts went with them)" "$inns" ""
check_eq "no mount of the lab in any mount namespace" \
        "$(cat /proc/[0-9]*/mountinfo 2>/dev/null | grep -F -e "$dir/" -e " $LAB_PREFIX-dev-disk " | sort -u)" ""
check_eq "no namespace of the lab" "$(ip netns list | grep "^$LAB_PREFIX-")" ""
check_eq "no loop device of the lab's images" "$(losetup -n -O NAME,BACK-FILE | grep -F "$dir/")" ""
check "no bridge of the lab" bash -c "! ip link show ${LAB_PREFIX}br0 >/dev/null 2>&1"
check "the lab directory is gone" test ! -e "$dir/lab"

finish
