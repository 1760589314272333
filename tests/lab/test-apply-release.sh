#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# `cephprov apply` with block.db AND a separate block.wal partition per OSD, on a real
# cluster of one Ceph release (pacific: this machine's packages; reef, tentacle: every lab
# host chrooted in a root of a later Debian suite, contrib/lab/ceph-root). Asserts that every
# planned OSD is up and in, runs that release, has its DB and its WAL on their own dedicated
# BlueFS devices (the OSD's own metadata says so) on the partitions the plan named, and that
# a second apply changes nothing. Then the cluster steps on that release: crush-reweight of
# one host's OSDs in steps (`cephprov run`) and back. On Reef and Tentacle also the smoke of
# drain and destroy (Pacific has the whole of test-drain.sh): a drain of one of the three
# hosts with the layout's fast throttle applied as mClock takes it (the high_recovery_ops
# profile alone, the override never set), seen in the cluster while the drain runs and put back
# as it was afterwards, the host's OSDs down and out, every PG active+clean, every object read
# back identical; cancel; then destroy of that host: its OSDs purged, its host bucket gone,
# its disks blank, HEALTH_OK, the objects identical.
# Prints the root's Ceph versions, so a run records what it tested (sid moves daily).
#
# With CAPTURE_DIR set, also saves what cephprov reads from Ceph on that release (stdout,
# stderr, exit status) for tests/data/ceph/RELEASE (see its README).
#
# Usage: test-apply-release.sh CEPHPROV RELEASE
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"

cephprov=${1:?usage: test-apply-release.sh CEPHPROV RELEASE}
release=${2:?usage: test-apply-release.sh CEPHPROV RELEASE}
# the lab's prefix and subnet of each release's row in tests/lab/meson.build
case $release in
pacific) prefix=cprpa subnet=10.99.17 ;;
reef) prefix=cprre subnet=10.99.18 ;;
tentacle) prefix=cprte subnet=10.99.19 ;;
*) prefix=cprl subnet=10.99.17 ;;
esac
# Pacific runs this machine's Ceph packages; a later release, the lab hosts chrooted in its
# root (built by mmdebstrap)
if [ "$release" != pacific ]; then
        lab_test_setup "release-$release" "$prefix" "$subnet" noceph mmdebstrap
        ceph_root=$(dirname "$lab")/ceph-root
        root=$("$ceph_root" path "$release") || { echo "FAIL: cannot build the $release root"; exit 1; }
        "$ceph_root" versions "$release"
else
        lab_test_setup "release-$release" "$prefix" "$subnet"
        dpkg-query -W ceph-osd ceph-mon ceph-common 2>/dev/null
fi

lab_bringup --hosts 3 --ssd 1 --hdd 2 --ceph "$release"
layout=$dir/lab/layout.yaml
# a separate WAL partition beside each DB (nothing else in the suite makes one)
sed -i 's/^    db_size: 512M$/    db_size: 512M\n    wal_size: 128M/' "$layout"
check_contains "the layout asks for a WAL partition" "$(cat "$layout")" "wal_size: 128M"

out=$("$cephprov" apply "$layout" --yes 2>&1)
rc=$?
echo "$out" | tail -8
# (all of it when it failed: its stderr comes before its buffered stdout in one pipe)
check "apply on $release succeeds" test $rc -eq 0 || printf 'exit %s; the whole output:\n%s\n' "$rc" "$out"

# HEALTH_OK with every PG active+clean (within 120 s of apply)
healthy=
for _ in $(seq 1 60); do
        if ceph_ health 2>/dev/null | grep -q '^HEALTH_OK' &&
           ceph_ pg stat -f json 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)["pg_summary"]["num_pg_by_state"]
sys.exit(0 if s and all(x["name"] == "active+clean" for x in s) else 1)'; then healthy=1; break; fi
        sleep 2
done
check "HEALTH_OK with every PG active+clean on $release" test -n "$healthy" || ceph_ health detail

dump=$(ceph_ osd dump -f json 2>/dev/null)
meta=$(ceph_ osd metadata -f json 2>/dev/null)
check_eq "6 OSDs, all up and in" \
        "$(echo "$dump" | python3 -c 'import json,sys; d=json.load(sys.stdin)["osds"]; print(len(d), sum(o["up"] for o in d), sum(o["in"] for o in d))')" "6 6 6"
want=$(ceph_ versions -f json 2>/dev/null | python3 -c 'import json,sys; print(" ".join(sorted({k.split()[4] for k in json.load(sys.stdin)["osd"]})))')
check_eq "every OSD runs $release" "$want" "$release"
# per OSD: "id host dedicated_db dedicated_wal" from its own metadata
facts=$(echo "$meta" | python3 -c '
import json, sys
for m in sorted(json.load(sys.stdin), key=lambda m: m["id"]):
    print(m["id"], m["hostname"], m.get("bluefs_dedicated_db"), m.get("bluefs_dedicated_wal"),
          m.get("bluefs_db_partition_path", "-"), m.get("bluefs_wal_partition_path", "-"))')
echo "$facts"
check_eq "every OSD has a dedicated DB and a dedicated WAL" \
        "$(echo "$facts" | awk '$3 == 1 && $4 == 1' | wc -l)" 6
# the DB and WAL devices are the partitions the plan named for that OSD's slot
while read -r id host _ _ dbp walp; do
        [ -n "$id" ] || continue
        dbname=$(on "$host" blkid -p -s PART_ENTRY_NAME -o value "$dbp" 2>/dev/null)
        walname=$(on "$host" blkid -p -s PART_ENTRY_NAME -o value "$walp" 2>/dev/null)
        check_contains "osd.$id: its DB is a cephprov DB partition of $host" "$dbname" "cp:db:"
        check_contains "osd.$id: its WAL is a cephprov WAL partition of $host" "$walname" "cp:wal:"
        check_eq "osd.$id: DB and WAL of the same slot" "${dbname#cp:db:}" "${walname#cp:wal:}"
done <<< "$facts"

# block.db/block.wal links the agent had to make itself (Tentacle's raw activate ignores
# --block.db and --block.wal; docs/ceph.md): from the journal's osd-created records
made=$(cat "$CEPHPROV_STATE_DIR"/*.journal | python3 -c '
import json, sys
print(sum(json.loads(l).get("links_made", 0) for l in sys.stdin if "\"osd-created\"" in l))')
echo "links made by the agent after raw activate: $made"
if [ "$release" = tentacle ]; then
        check_eq "on tentacle the agent made every DB and WAL link (12)" "$made" 12
else
        check_eq "on $release ceph-volume made every link itself" "$made" 0
fi

out=$("$cephprov" apply "$layout" --yes 2>&1)
check "second apply on $release succeeds" test $? -eq 0
check_contains "second apply changes nothing" "$out" "nothing to do"

if [ -n "${CAPTURE_DIR:-}" ]; then
        mkdir -p "$CAPTURE_DIR"
        capture() { # capture NAME ARGS... : ceph ARGS on admin
                local name=$1; shift
                ceph_ "$@" >"$CAPTURE_DIR/$name.out" 2>"$CAPTURE_DIR/$name.err"
                echo $? >"$CAPTURE_DIR/$name.rc"
        }
        capture status-ok status -f json
        capture health-detail-ok health detail -f json
        capture osd-tree osd tree -f json
        capture osd-dump osd dump -f json
        capture osd-metadata osd metadata -f json
        capture osd-metadata-0 osd metadata 0 -f json
        capture pg-stat-clean pg stat -f json
        capture pg-dump-pgs-brief-clean pg dump pgs_brief -f json
        capture versions versions -f json
        capture ok-to-stop-0 osd ok-to-stop 0 -f json
        capture safe-to-destroy-0-busy osd safe-to-destroy 0 -f json
        capture safe-to-destroy-0-busy-plain osd safe-to-destroy 0
        capture config-get-osd-op-queue config get osd osd_op_queue
        capture config-get-osd-max-backfills config get osd osd_max_backfills
        capture config-get-osd-mclock-profile config get osd osd_mclock_profile
        capture config-dump config dump -f json
        capture osd-df-tree osd df tree -f json
        capture osd-pool-ls-detail osd pool ls detail -f json
        capture osd-crush-rule-dump osd crush rule dump -f json
        capture balancer-status balancer status -f json
        capture osd-perf osd perf -f json
        capture crush-class-ls osd crush class ls -f json
        on node1 env CEPH_VOLUME_ALLOW_LOOP_DEVICES=1 ceph-volume raw list \
                $(awk '$2 == "hdd" {print $1}' "$dir/lab/hosts/node1/loops") --format json \
                >"$CAPTURE_DIR/ceph-volume-raw-list-node1.out" 2>"$CAPTURE_DIR/ceph-volume-raw-list-node1.err"
        echo $? >"$CAPTURE_DIR/ceph-volume-raw-list-node1.rc"
        echo "captures of $release in $CAPTURE_DIR"
fi

# ---- drain on this release ----------------------------------------------------------
node3_state() { # "up in" of each OSD of node3, sorted and unique
        ceph_ osd tree -f json 2>/dev/null | py '
import json, sys
t = json.load(sys.stdin)
ids = [c for n in t["nodes"] if n["type"] == "host" and n["name"] == "node3" for c in n["children"]]
print(" ".join(map(str, ids)))' > "$dir/n3"
        ceph_ osd dump -f json 2>/dev/null | py '
import json, sys
ids = {int(x) for x in open(sys.argv[1]).read().split()}
print("\n".join(sorted({"%d %d" % (o["up"], o["in"]) for o in json.load(sys.stdin)["osds"] if o["osd"] in ids})))' "$dir/n3"
}
throttle_settings() {
        ceph_ config dump -f json 2>/dev/null | py '
import json, sys
print(sorted((e["section"], e["name"], e["value"]) for e in json.load(sys.stdin)
             if e["name"].startswith(("osd_max_backfills", "osd_recovery_max", "osd_mclock"))))'
}
# crush-reweight in steps (`cephprov run` of a playbook): node1's OSDs to a third of their
# weight in two rounds, clean between, then back at once
weights_of() { # "id weight" of node1's OSDs, as osd tree shows them
        ceph_ osd tree -f json 2>/dev/null | py '
import json, sys
t = json.load(sys.stdin)
ids = [c for n in t["nodes"] if n["type"] == "host" and n["name"] == "node1" for c in n["children"]]
print(" ".join("%d:%.5f" % (n["id"], n["crush_weight"]) for n in sorted(t["nodes"], key=lambda n: n["id"]) if n["id"] in ids))'
}
w0=$(weights_of)
full=$(echo "$w0" | tr ' ' '\n' | head -1 | cut -d: -f2)
third=$(py "print('%.5f' % ($full / 3))")
stepw=$(py "print('%.5f' % max(0.001, $full * 0.4))") # the step's least (the registry's bound)
reweight_pb() { # reweight_pb WEIGHT [STEP]
        printf 'playbook: reweight\ndescription: node1 to a CRUSH weight (lab test)\nhosts:\n  strategy: serial\nper_host:\n  - step: crush-reweight\n    args: {weight: %s%s, timeout: 10m}\n' \
                "$1" "${2:+, step: $2}" > "$dir/reweight.yaml"
}
reweight_pb "$third" "$stepw"
out=$("$cephprov" run "$dir/reweight.yaml" "$layout" --hosts node1 --yes --json 2>"$dir/reweight.err")
check "crush-reweight of node1 to $third in steps of $stepw on $release succeeds" test $? -eq 0 || tail -5 "$dir/reweight.err"
near() { # near "id:w id:w" "id:w id:w": the same OSDs, weights within CRUSH's 16.16 unit
        py '
import sys
a = dict(x.split(":") for x in sys.argv[1].split())
b = dict(x.split(":") for x in sys.argv[2].split())
sys.exit(0 if a.keys() == b.keys() and all(abs(float(a[k]) - float(b[k])) <= 2e-5 for k in a) else 1)' "$1" "$2"
}
check "node1's OSDs are at $third ($(weights_of))" near "$(weights_of)" "$(weights_of | sed "s/:[0-9.]*/:$third/g")"
check_eq "it took two rounds" "$(echo "$out" | py '
import json, sys
r = json.load(sys.stdin)["report"]
print([s["result"]["rounds"] for s in r["steps"] if s["name"] == "crush-reweight"][0])')" 2
check "clean after the reweight" wait_clean 120
reweight_pb "$full"
"$cephprov" run "$dir/reweight.yaml" "$layout" --hosts node1 --yes >/dev/null 2>"$dir/reweight.err"
check "crush-reweight of node1 back to $full succeeds" test $? -eq 0 || tail -5 "$dir/reweight.err"
check "node1's OSDs have their weights back ($w0)" near "$(weights_of)" "$w0"
check "clean after the reweight back" wait_clean 120

# Pacific's drain and destroy are the whole of tests/lab/test-drain.sh; here the smoke of
# the other releases
if [ "$release" = pacific ]; then
        finish
        exit
fi
sed -i 's/^profiles:$/throttle:\n  preset: fast\nprofiles:/' "$layout"
check_contains "the layout asks for the fast throttle" "$(cat "$layout")" "preset: fast"
ceph_ osd pool set data size 2 >/dev/null 2>&1
put_objects 40 1048576 "$dir/lab/xfer-data"
check "clean with the data on $release" wait_clean 300
queue=$(ceph_ config get osd osd_op_queue 2>/dev/null)
echo "osd_op_queue on $release: $queue"
check_eq "$release schedules with mClock" "$queue" mclock_scheduler
key=osd_mclock_profile want=high_recovery_ops
# a mixed cluster: one OSD of node1 runs wpq (as a FileStore OSD would), restarted for it
wpq_osd=$(ceph_ osd tree -f json 2>/dev/null | py '
import json, sys
t = json.load(sys.stdin)
print(min(c for n in t["nodes"] if n["type"] == "host" and n["name"] == "node1" for c in n["children"]))')
ceph_ config set "osd.$wpq_osd" osd_op_queue wpq >/dev/null 2>&1
on node1 systemctl stop "ceph-osd@$wpq_osd" >/dev/null 2>&1
on node1 systemctl start "ceph-osd@$wpq_osd" >/dev/null 2>&1
check "osd.$wpq_osd restarted with osd_op_queue wpq: clean again" wait_clean 300
before=$(throttle_settings)
before_value=$(ceph_ config get osd "$key" 2>/dev/null)
"$cephprov" drain "$layout" node3 --yes > "$dir/drain.log" 2>&1 &
pid=$!
seen= override= wpq_seen=
while kill -0 "$pid" 2>/dev/null; do
        [ "$(ceph_ config get osd "$key" 2>/dev/null)" = "$want" ] && seen=1
        # a preset steers mClock by its profile alone (explicit limits would set the override)
        [ "$(ceph_ config get osd osd_mclock_override_recovery_settings 2>/dev/null)" = true ] && override=1
        # ... and the wpq OSD by its own limits, the fast preset's 4
        ceph_ config dump -f json 2>/dev/null | py '
import json, sys
sys.exit(0 if any(e["section"] == "osd." + sys.argv[1] and e["name"] == "osd_max_backfills" and e["value"] == "4"
                  for e in json.load(sys.stdin)) else 1)' "$wpq_osd" && wpq_seen=1
        sleep 0.2
done
wait "$pid"
rc=$?
check "drain of node3 on $release succeeds" test $rc -eq 0 || tail -20 "$dir/drain.log"
check "while draining, $key was $want on $release (before: $before_value)" test -n "$seen"
check "the fast preset left osd_mclock_override_recovery_settings alone on $release" test -z "$override"
check "while draining, osd.$wpq_osd (wpq) had its own osd_max_backfills 4" test -n "$wpq_seen"
check_contains "the drain said which OSDs run wpq" "$(cat "$dir/drain.log")" "osd.$wpq_osd runs wpq"
check_eq "node3's OSDs are down and out" "$(node3_state)" "0 0"
check "every PG active+clean after the drain on $release" wait_clean 120
check_eq "HEALTH_OK after the drain on $release" "$(health_of 60)" HEALTH_OK
check_eq "the throttle is as it was before the drain" "$(throttle_settings)" "$before"
check_eq "no saved record is left" "$(ceph_ config-key ls 2>/dev/null | grep -c 'cephprov/ceph/saved/')" 0
check "every object reads back identical after the drain" objects_identical 40 "$dir/lab/xfer-data" "$dir/lab/xfer-back"
out=$("$cephprov" drain "$layout" node3 --cancel --yes 2>&1)
check "drain --cancel on $release succeeds" test $? -eq 0 || echo "$out" | tail -15
check_eq "node3's OSDs are up and in again" "$(node3_state)" "1 1"
check "clean again after the cancel" wait_clean 300

# destroy of node3 on this release: it drains node3 again, purges its OSDs, wipes its disks
ids3=$(cat "$dir/n3")
out=$("$cephprov" destroy "$layout" node3 --yes 2>&1)
check "destroy of node3 on $release succeeds" test $? -eq 0 || echo "$out" | tail -20
check_eq "node3's host bucket is gone from CRUSH" "$(ceph_ osd tree -f json 2>/dev/null | py '
import json, sys
print(sum(1 for n in json.load(sys.stdin)["nodes"] if n["name"] == "node3"))')" 0
for id in $ids3; do
        check "osd.$id is purged on $release" test -z "$(ceph_ osd ls 2>/dev/null | grep -x "$id")"
done
for dev in $(cut -d' ' -f1 "$dir/lab/hosts/node3/loops"); do
        check_eq "$dev (node3) is blank after destroy on $release" "$(wipefs -n "$dev" 2>/dev/null; blkid -p "$dev" 2>/dev/null)" ""
done
check "every PG active+clean after destroy on $release" wait_clean 300
check_eq "HEALTH_OK after destroy on $release" "$(health_of 60)" HEALTH_OK
check_eq "the throttle is as it was before destroy" "$(throttle_settings)" "$before"
check "every object reads back identical after destroy" objects_identical 40 "$dir/lab/xfer-data" "$dir/lab/xfer-back"


finish
