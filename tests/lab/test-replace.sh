#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# `cephprov replace LAYOUT HOST DEVICE` on a real cluster (issue 11 item 6): the BlueStore lab
# (3 hosts of 1 SSD + 2 HDDs, 6 OSDs made by `cephprov apply` with their DB on the SSD, 100 MB
# in pool 'data' with checksums).
#   - refused before anything changes: a device that is not node1's, a cluster in HEALTH_ERR
#     (full ratio lowered under the OSDs' use)
#   (a) a failed HDD of node1: its OSD stopped on the host, the disk's first and last MiB
#       zeroed (a new blank disk); `plan` and `apply` refuse node1 naming the OSD and `replace`
#       (no new OSD id, its DB label unchanged, the other hosts converge); `replace --dry-run
#       --json` plans that OSD alone with a new
#       DB partition in the place of its old one; `replace --yes` killed (kill -9) once the
#       OSD is destroyed, then run again: the OSD back with the same id, in the same CRUSH
#       host with the same weight, up and in, BlueStore on the same device with its DB on the
#       planned partition (GPT name read back), each phase journaled in order, HEALTH_OK, every
#       PG active+clean, every object identical, the saved plan gone; replace again is refused
#       (nothing was replaced there) and, like `plan --detailed-exitcode`, changes nothing
#   (b) a failed SSD of node2: both its OSDs stopped, the SSD's partitions dropped from the
#       kernel and its first and last MiB zeroed (a new disk, no partition table);
#       `replace --yes` killed once the new partitions are made, then run again: a new GPT,
#       both DB partitions made again, both OSDs back with their ids, the same checks
#   - teardown leaves no namespace and no loop device of the lab
# Prints the time of each replacement.
#
# Usage: test-replace.sh CEPHPROV
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"

cephprov=${1:?usage: test-replace.sh CEPHPROV}
lab_test_setup replace cprp 10.99.31
RUN_PID=
lab_cleanup_hook() { [ -n "$RUN_PID" ] && kill -KILL "$RUN_PID" 2>/dev/null; }

t0=$SECONDS
lab_bringup --hosts 3 --ssd 1 --hdd 2
layout=$dir/lab/layout.yaml
journal=$dir/state/ceph.journal
saved=$dir/state/replace-ceph.json
"$cephprov" apply "$layout" --yes >"$dir/apply.out" 2>&1
check "apply makes the 6 OSDs" test $? -eq 0 || tail -20 "$dir/apply.out"
ceph_ osd pool set data size 2 >/dev/null 2>&1
put_objects 25 4194304 "$dir/data"
check "the cluster is clean with the data" wait_clean 300
check_eq "HEALTH_OK before" "$(health_of 120)" HEALTH_OK
echo "bring-up (lab, 6 OSDs, 100 MB written, clean): $((SECONDS - t0)) s"

# the OSD of CRUSH host $1 whose data device is $2 (osd metadata)
osd_on() {
        local ids
        ids=$(crush_places | awk -v h="$1" '$2 == h {print $1}' | paste -sd' ')
        ceph_ osd metadata -f json 2>/dev/null | py '
import json, sys
ids = {int(x) for x in sys.argv[1].split()}
print(" ".join(str(m["id"]) for m in json.load(sys.stdin)
               if m["id"] in ids and m.get("bluestore_bdev_partition_path") == sys.argv[2]))' "$ids" "$2"
}
up_in() { # "up in" of osd $1 (osd dump)
        ceph_ osd dump -f json 2>/dev/null | py '
import json, sys
print(*next((o["up"], o["in"]) for o in json.load(sys.stdin)["osds"] if o["osd"] == int(sys.argv[1])))' "$1"
}
wait_down() { # wait_down ID...: until each is down in the OSD map (60 s)
        local t=$SECONDS id
        for id; do
                until [ "$(up_in "$id" | cut -d' ' -f1)" = 0 ]; do
                        [ $((SECONDS - t)) -lt 60 ] || return 1
                        sleep 1
                done
        done
}
up_froms() { ceph_ osd dump -f json 2>/dev/null | py 'import json,sys; print(sorted((o["osd"], o["up_from"]) for o in json.load(sys.stdin)["osds"]))'; }
blank() { # blank DEV: a new disk: its first and last MiB zeroed
        local mib
        mib=$(( $(blockdev --getsize64 "$1") / 1048576 ))
        dd if=/dev/zero of="$1" bs=1M count=1 oflag=direct conv=fsync status=none &&
                dd if=/dev/zero of="$1" bs=1M count=1 seek=$((mib - 1)) oflag=direct conv=fsync status=none
}
# kill_at PHASE HOST LOG ARGS...: runs `cephprov replace ARGS --yes`, kills it (kill -9) once it
# journaled PHASE for HOST; sets killed (0: it was still running then)
kill_at() {
        local want=$1 host=$2 log=$3 base
        shift 3
        base=$(journal_lines)
        "$cephprov" replace "$@" --yes >"$log" 2>&1 &
        RUN_PID=$!
        journal_kill_at_phase "$RUN_PID" "$base" "$want" "$host"
        killed=$?
        RUN_PID=
        echo "killed at: $(grep '"convert-phase"' "$journal" | tail -n 1)"
}
# the planned DB partition per OSD of a `replace --dry-run --json`: "ID DEVICE PARTNUM PARTNAME"
planned_dbs() {
        py '
import json, sys
p = json.load(sys.stdin)
for h in p["hosts"]:
    for o in h["osds"]:
        db = next(c for c in h["created"] if c["osd"] == o["id"] and c["role"] == "db")
        print(o["id"], db["device"], db["partnum"], db["partname"])'
}
# check_replaced WHAT HOST "ID DEV DBDEV PARTNUM PARTNAME"...: the replaced OSDs as they must be
check_replaced() {
        local what=$1 host=$2 line id dev dbdev pn pname node
        shift 2
        check_eq "[$what] every id in the same CRUSH host with the same weight" "$(crush_places)" "$places0"
        for line; do
                read -r id dev dbdev pn pname <<<"$line"
                node=${dbdev}p$pn
                check_eq "[$what] osd.$id is up and in" "$(up_in "$id")" "1 1"
                check_eq "[$what] osd.$id: bluestore on $dev, its DB on the planned $node (osd metadata)" \
                        "$(ceph_ osd metadata "$id" -f json 2>/dev/null | py '
import json, sys
m = json.load(sys.stdin)
print(m.get("osd_objectstore"), m.get("bluestore_bdev_partition_path"), m.get("bluefs_db_partition_path"))')" \
                        "bluestore $dev $node"
                check_eq "[$what] osd.$id: $node is the plan's '$pname' (GPT name, blkid)" \
                        "$(on "$host" blkid -p -o value -s PART_ENTRY_NAME "$node")" "$pname"
                check_eq "[$what] osd.$id: its phases in the journal, in order" "$(journal_osd_phases "$journal" "$id")" "stopped destroyed wiped repartitioned created backfilling converted"
        done
        check_eq "[$what] HEALTH_OK" "$(health_of 120)" HEALTH_OK
        check "[$what] every PG active+clean" wait_clean 120
        check "[$what] every object reads back identical" objects_identical 25 "$dir/data" "$dir/back"
        check "[$what] the saved plan is gone (the replacement finished)" test ! -e "$saved"
}
# check_noop WHAT HOST DEV: replace again and plan change nothing
check_noop() {
        local phases up out rc
        phases=$(grep -c '"convert-phase"' "$journal")
        up=$(up_froms)
        out=$("$cephprov" replace "$layout" "$2" "$3" --yes 2>&1); rc=$?
        # a device whose OSDs are up with their labels intact: nothing was replaced there (issue 25, item 5)
        check_eq "[$1] replace again is refused" "$rc" 1 || echo "$out" | tail -5
        check_contains "[$1] replace again says nothing was replaced" "$out" "nothing was replaced on '$3'"
        check_eq "[$1] replace again journals no phase" "$(grep -c '"convert-phase"' "$journal")" "$phases"
        check_eq "[$1] replace again restarts no OSD (up_from unchanged)" "$(up_froms)" "$up"
        "$cephprov" plan "$layout" --detailed-exitcode >"$dir/plan.out" 2>&1; rc=$?
        check_eq "[$1] plan --detailed-exitcode: apply has nothing to do" "$rc" 0 || tail -20 "$dir/plan.out"
}

places0=$(crush_places)
check_eq "6 OSDs in CRUSH" "$(wc -l <<<"$places0")" 6
ssd1=$(awk '$2 == "ssd" {print $1; exit}' "$dir/lab/hosts/node1/loops")
hdd1=$(awk '$2 == "hdd" {print $1; exit}' "$dir/lab/hosts/node1/loops")
ssd2=$(awk '$2 == "ssd" {print $1; exit}' "$dir/lab/hosts/node2/loops")
hdds2=$(awk '$2 == "hdd" {print $1}' "$dir/lab/hosts/node2/loops")

# ---- refusals, nothing changed -----------------------------------------------------------
out=$("$cephprov" replace "$layout" node1 "$ssd2" --yes 2>&1); rc=$?
check_eq "replace of node2's SSD on node1 is refused" "$rc" 1
check_contains "the refusal names host and device" "$out" "host 'node1': device '$ssd2'"
ceph_ osd set-full-ratio 0.001 >/dev/null 2>&1
for _ in $(seq 60); do ceph_ health 2>/dev/null | grep -q HEALTH_ERR && break; sleep 1; done
out=$("$cephprov" replace "$layout" node1 "$hdd1" --yes 2>&1); rc=$?
check_eq "replace in HEALTH_ERR is refused" "$rc" 1
check_contains "the refusal says HEALTH_ERR" "$out" "the cluster is HEALTH_ERR ("
check_contains "the refusal names the device" "$out" "refusing to replace '$hdd1' on host 'node1'"
ceph_ osd set-full-ratio 0.95 >/dev/null 2>&1
check "no plan saved by the refusals" test ! -e "$saved"
check_eq "nothing changed by the refusals (CRUSH)" "$(crush_places)" "$places0"
check_eq "HEALTH_OK again" "$(health_of 120)" HEALTH_OK

# ---- (a) a failed HDD of node1 --------------------------------------------------------------
id_a=$(osd_on node1 "$hdd1")
check "node1's $hdd1 carries an OSD (osd.$id_a)" test -n "$id_a"
check "osd.$id_a stopped on node1" on node1 systemctl stop "ceph-osd@$id_a"
check "osd.$id_a is down" wait_down "$id_a"
check "$hdd1 zeroed (a new blank disk)" blank "$hdd1"
# plan and apply name osd.$id_a and `replace`, build nothing on the blank disk, leave the DB
# partition's label as it is and converge the other hosts (issue 25, item 2)
tag_a=$(cp_tag "$hdd1")
dbpart_a=
for p in "$ssd1"p*; do
        [ "$(blkid -p -o value -s PART_ENTRY_NAME "$p")" = "cp:db:$tag_a:node1" ] && dbpart_a=$p
done
check "osd.$id_a's DB partition on $ssd1 is found by $hdd1's tag" test -n "$dbpart_a"
label_a=$(on node1 dd if="$dbpart_a" bs=4096 count=1 status=none | sha256sum)
ids_before=$(ceph_ osd ls 2>/dev/null | paste -sd' ')
out=$("$cephprov" plan "$layout" 2>&1); rc=$?
check_eq "plan with osd.$id_a's disk blank exits 1" "$rc" 1
check_contains "plan names osd.$id_a and replace" "$out" \
        "host 'node1': osd.$id_a's data device is gone (its DB partition"
check_contains "plan gives the way out" "$out" "\`cephprov replace LAYOUT node1 $hdd1\` rebuilds osd.$id_a there with its id"
check_contains "plan has nothing to do on node2" "$out" "host node2: nothing to do"
out=$("$cephprov" apply "$layout" --yes 2>&1); rc=$?
check_eq "apply with osd.$id_a's disk blank exits non-zero" "$([ "$rc" -ne 0 ] && echo yes)" yes
check_contains "apply names osd.$id_a" "$out" "osd.$id_a's data device is gone"
check_contains "apply leaves node1 alone, the others converge" "$out" "except the unreachable or refused ones above"
check_eq "no new OSD id (osd ls)" "$(ceph_ osd ls 2>/dev/null | paste -sd' ')" "$ids_before"
check_eq "osd.$id_a's DB label unchanged" "$(on node1 dd if="$dbpart_a" bs=4096 count=1 status=none | sha256sum)" "$label_a"
check_eq "nothing written on $hdd1" "$(dd if="$hdd1" bs=1M count=1 status=none | tr -d '\0' | wc -c)" 0
check_eq "status --json marks osd.$id_a alone as its data device gone" "$("$cephprov" status "$layout" --json 2>/dev/null | py '
import json, sys
print(*[o["id"] for o in json.load(sys.stdin)["osds"] if o.get("data_device_gone")])')" "$id_a"
check_contains "status says so" "$("$cephprov" status "$layout" 2>/dev/null)" "osd.$id_a on node1: its data device $hdd1"
plan=$("$cephprov" replace "$layout" node1 "$hdd1" --dry-run --json 2>"$dir/plan-a.err"); rc=$?
check_eq "replace --dry-run --json exits 0" "$rc" 0 || cat "$dir/plan-a.err"
dbs_a=$(planned_dbs <<<"$plan")
check_eq "the plan rebuilds osd.$id_a alone, its DB on $ssd1" "$(awk '{print $1, $2}' <<<"$dbs_a")" "$id_a $ssd1"
check_eq "the plan replaces its old DB partition in place (same number)" "$(py '
import json, sys
h = json.loads(sys.argv[1])["hosts"][0]
print(h["replaced"][0]["partnum"] == h["created"][0]["partnum"], h["replaced"][0]["offset"] == h["created"][0]["offset"])' "$plan")" "True True"
out=$("$cephprov" replace "$layout" node1 "$hdd1" --dry-run 2>&1)
check_contains "the text plan says the device is blank" "$out" "its data device $hdd1 is the device replaced (blank now)"
check "the dry runs saved nothing" test ! -e "$saved"
t1=$SECONDS
kill_at destroyed node1 "$dir/replace-a-killed.out" "$layout" node1 "$hdd1"
check_eq "[a] replace was killed once osd.$id_a was destroyed (still running then)" "$killed" 0 ||
        tail -20 "$dir/replace-a-killed.out"
check "[a] the plan was saved before the kill" test -s "$saved"
check_eq "[a] status shows the replacement under way, node1 current" "$("$cephprov" status "$layout" --json 2>/dev/null | py '
import json, sys
c = json.load(sys.stdin).get("conversion") or {}
print((c.get("replace") or {}).get("device"), c.get("current"))')" "$hdd1 node1"
check_eq "[a] osd.$id_a is destroyed, its id and CRUSH place kept" "$(ceph_ osd tree -f json 2>/dev/null | py '
import json, sys
print(next(n.get("status") for n in json.load(sys.stdin)["nodes"] if n["id"] == int(sys.argv[1])))' "$id_a")" destroyed
"$cephprov" replace "$layout" node1 "$hdd1" --yes >"$dir/replace-a.out" 2>&1; rc=$?
ta=$((SECONDS - t1))
check_eq "[a] replace again after the kill exits 0" "$rc" 0 || tail -30 "$dir/replace-a.out"
check_contains "[a] the re-run resumed the saved plan" "$(cat "$dir/replace-a.out")" "resuming the replacement"
echo "replace of node1's HDD (osd.$id_a), killed once and run again: $ta s"
check_replaced a node1 "$id_a $hdd1 $(cut -d' ' -f2- <<<"$dbs_a")"
check_noop a node1 "$hdd1"

# ---- (b) a failed SSD of node2 ----------------------------------------------------------------
ids_b=
for d in $hdds2; do ids_b="$ids_b $(osd_on node2 "$d")"; done
ids_b=${ids_b# }
check_eq "node2's two HDDs carry an OSD each" "$(wc -w <<<"$ids_b")" 2
for id in $ids_b; do check "osd.$id stopped on node2" on node2 systemctl stop "ceph-osd@$id"; done
# shellcheck disable=SC2086 # ids
check "node2's OSDs are down" wait_down $ids_b
# a new disk: the kernel drops the old one's partitions, and it has no partition table
partx -d "$ssd2" 2>/dev/null
check "$ssd2 zeroed (a new blank disk)" blank "$ssd2"
kparts() { local p n=0; for p in /sys/block/"${1#/dev/}"/"${1#/dev/}"p*; do [ -e "$p" ] && n=$((n + 1)); done; echo "$n"; }
check_eq "$ssd2 has no partition left in the kernel" "$(kparts "$ssd2")" 0
plan=$("$cephprov" replace "$layout" node2 "$ssd2" --dry-run --json 2>"$dir/plan-b.err"); rc=$?
check_eq "replace --dry-run --json of the SSD exits 0" "$rc" 0 || cat "$dir/plan-b.err"
dbs_b=$(planned_dbs <<<"$plan")
check_eq "the plan rebuilds both OSDs of node2, their DB on the new $ssd2" \
        "$(awk '{print $1, $2}' <<<"$dbs_b" | sort -n | paste -sd' ')" \
        "$(for id in $ids_b; do echo "$id $ssd2"; done | sort -n | paste -sd' ')"
check_contains "the plan writes a GPT first" "$plan" "fast device $ssd2 has no partition table: a GPT is written on it first"
t1=$SECONDS
kill_at repartitioned node2 "$dir/replace-b-killed.out" "$layout" node2 "$ssd2"
check_eq "[b] replace was killed once the new partitions were made (still running then)" "$killed" 0 ||
        tail -20 "$dir/replace-b-killed.out"
"$cephprov" replace "$layout" node2 "$ssd2" --yes >"$dir/replace-b.out" 2>&1; rc=$?
tb=$((SECONDS - t1))
check_eq "[b] replace again after the kill exits 0" "$rc" 0 || tail -30 "$dir/replace-b.out"
check_contains "[b] the re-run resumed the saved plan" "$(cat "$dir/replace-b.out")" "resuming the replacement"
echo "replace of node2's SSD (osd.${ids_b// /, osd.}), killed once and run again: $tb s"
check_eq "[b] $ssd2 has a GPT" "$(blkid -p -o value -s PTTYPE "$ssd2")" gpt
lines=()
while read -r id dbdev pn pname; do
        dev=$(ceph_ osd metadata "$id" -f json 2>/dev/null | py 'import json,sys; print(json.load(sys.stdin)["bluestore_bdev_partition_path"])')
        lines+=("$id $dev $dbdev $pn $pname")
done <<<"$dbs_b"
check_replaced b node2 "${lines[@]}"
check_noop b node2 "$ssd2"
echo "whole test so far: $((SECONDS - t0)) s"

# ---- teardown -------------------------------------------------------------------------------------
lab_check_teardown

finish
