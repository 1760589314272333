#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# `cephprov apply` with block.db AND a separate block.wal partition per OSD, on a real
# cluster of one Ceph release (pacific: this machine's packages; reef, tentacle: every lab
# host chrooted in a root of a later Debian suite, contrib/lab/ceph-root). Asserts that every
# planned OSD is up and in, runs that release, has its DB and its WAL on their own dedicated
# BlueFS devices (the OSD's own metadata says so) on the partitions the plan named, and that
# a second apply changes nothing. Prints the root's Ceph versions, so a run records what it
# tested (sid moves daily).
#
# With CAPTURE_DIR set, also saves what cephprov reads from Ceph on that release (stdout,
# stderr, exit status) for tests/data/ceph/RELEASE (see its README).
#
# Usage: test-apply-release.sh CEPHPROV RELEASE
set -u
. "$(dirname "$0")/../lib.sh"

cephprov=${1:?usage: test-apply-release.sh CEPHPROV RELEASE}
release=${2:?usage: test-apply-release.sh CEPHPROV RELEASE}
lab=${LAB:?LAB must point to contrib/lab/lab}
ceph_lab=${CEPH_LAB:?CEPH_LAB must point to contrib/lab/ceph}
ceph_root=$(dirname "$lab")/ceph-root
[ "$(id -u)" = 0 ] || skip "needs root for network namespaces and loop devices"
command -v ip >/dev/null && ip netns list >/dev/null 2>&1 || skip "no 'ip netns'"
if [ "$release" != pacific ]; then
        command -v mmdebstrap >/dev/null || skip "no mmdebstrap to build the $release root (contrib/install-deps.sh)"
        root=$("$ceph_root" path "$release") || { echo "FAIL: cannot build the $release root"; exit 1; }
        "$ceph_root" versions "$release"
else
        command -v ceph-osd >/dev/null || skip "no ceph-osd (Debian's ceph packages)"
        dpkg-query -W ceph-osd ceph-mon ceph-common 2>/dev/null
fi

dir=$(mktemp -d /tmp/cephprov-release.XXXXXX)
export LAB_PREFIX=${LAB_PREFIX:-cprl} LAB_SUBNET=${LAB_SUBNET:-10.99.17} CEPHPROV_STATE_DIR=$dir/state
cleanup() { "$ceph_lab" down --dir "$dir/lab" >/dev/null 2>&1; "$lab" down --dir "$dir/lab" >/dev/null 2>&1; rm -rf "$dir"; }
trap cleanup EXIT

"$lab" up --dir "$dir/lab" --hosts 2 --ssd 1 --hdd 2 --ceph "$release" >/dev/null || { echo "FAIL lab up --ceph $release"; exit 1; }
"$ceph_lab" up --dir "$dir/lab" >/dev/null 2>&1 || { echo "FAIL contrib/lab/ceph up on $release"; exit 1; }
ceph_() { "$ceph_lab" cli --dir "$dir/lab" "$@"; }
layout=$dir/lab/layout.yaml
# a separate WAL partition beside each DB (nothing else in the suite makes one)
sed -i 's/^    db_size: 512M$/    db_size: 512M\n    wal_size: 128M/' "$layout"
check_contains "the layout asks for a WAL partition" "$(cat "$layout")" "wal_size: 128M"

out=$("$cephprov" apply "$layout" --yes 2>&1)
rc=$?
echo "$out" | tail -8
check "apply on $release succeeds" test $rc -eq 0

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
check_eq "4 OSDs, all up and in" \
        "$(echo "$dump" | python3 -c 'import json,sys; d=json.load(sys.stdin)["osds"]; print(len(d), sum(o["up"] for o in d), sum(o["in"] for o in d))')" "4 4 4"
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
        "$(echo "$facts" | awk '$3 == 1 && $4 == 1' | wc -l)" 4
# the DB and WAL devices are the partitions the plan named for that OSD's slot
while read -r id host _ _ dbp walp; do
        [ -n "$id" ] || continue
        dbname=$("$lab" exec --dir "$dir/lab" "$host" blkid -p -s PART_ENTRY_NAME -o value "$dbp" 2>/dev/null)
        walname=$("$lab" exec --dir "$dir/lab" "$host" blkid -p -s PART_ENTRY_NAME -o value "$walp" 2>/dev/null)
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
        check_eq "on tentacle the agent made every DB and WAL link (8)" "$made" 8
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
        "$lab" exec --dir "$dir/lab" node1 env CEPH_VOLUME_ALLOW_LOOP_DEVICES=1 ceph-volume raw list \
                $(awk '$2 == "hdd" {print $1}' "$dir/lab/hosts/node1/loops") --format json \
                >"$CAPTURE_DIR/ceph-volume-raw-list-node1.out" 2>"$CAPTURE_DIR/ceph-volume-raw-list-node1.err"
        echo $? >"$CAPTURE_DIR/ceph-volume-raw-list-node1.rc"
        echo "captures of $release in $CAPTURE_DIR"
fi

finish
