#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A failed ceph-volume on a reused OSD id (lab suite, root only). DESIGN.md: "A failed
# `ceph-volume ... --osd-id N` rolls back with `osd purge-new` and loses the destroyed id's
# CRUSH slot: detect it and recreate the id, never assume it survived."
#
#   1 storage host + admin; partitions by `apply --stage disks`;
#   an interrupted run is staged: its journal says osd.7 was allocated for the first data
#   device and the cluster has osd.7 (never booted);
#   ceph-osd --mkfs is made to fail (the host's /run/ceph not writable by the ceph user);
#   apply reuses osd.7 (destroy), ceph-volume fails and purges it: apply says so, recreates
#   it, retries once, fails again, and at the end leaves no id behind;
#   with /run/ceph repaired, apply converges: the planned OSDs up, no other id in the cluster.
#
# Usage: test-apply-osds-rollback.sh CEPHPROV
set -euo pipefail

CEPHPROV=$(realpath "${1:?usage: $0 CEPHPROV}")
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"
lab_test_setup osd-rollback cpar 10.99.9 python3
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
osd_ids() { ceph_ osd ls -f json | python3 -c 'import json,sys; print(" ".join(str(i) for i in sorted(json.load(sys.stdin))))'; }

lab_bringup --hosts 1
DIR=$dir/lab # the test's own files beside the lab's (its state: $CEPHPROV_STATE_DIR, $dir/state)
L=$DIR/layout.yaml
"$CEPHPROV" apply "$L" --yes --stage disks >/dev/null || fail "apply --stage disks failed"
data=$(awk '$2 == "hdd" { print $1; exit }' "$DIR/hosts/node1/loops")
n_hdd=$(awk '$2 == "hdd"' "$DIR/hosts/node1/loops" | wc -l)

# the interrupted run: osd.7 allocated for $data, in the cluster, never booted
ceph_ osd new "$(cat /proc/sys/kernel/random/uuid)" 7 >/dev/null
printf '{"host":"node1","device":"%s","osd_id":7,"time":"2026-01-01T00:00:00.000Z","run":"staged","event":"osd-allocated"}\n' \
        "$data" >> "$CEPHPROV_STATE_DIR/ceph.journal"

# ceph-osd --mkfs --setuser ceph cannot write its pid file
chown root:root "$DIR/hosts/node1/run"
chmod 0700 "$DIR/hosts/node1/run"

if "$CEPHPROV" apply "$L" --yes > "$DIR/apply-fail.log" 2>&1; then fail "apply succeeded although mkfs cannot work"; fi
grep -q "osd.7 was purged by ceph-volume's rollback" "$DIR/apply-fail.log" ||
        { cat "$DIR/apply-fail.log"; fail "the purge of the reused osd.7 was not detected"; }
grep -q "id recreated after a ceph-volume rollback" "$DIR/apply-fail.log" ||
        { cat "$DIR/apply-fail.log"; fail "osd.7 was not recreated"; }
grep -q '"event":"osd-id-recreated"' "$CEPHPROV_STATE_DIR/ceph.journal" || fail "no osd-id-recreated record in the journal"
left=$(osd_ids)
[ -z "$left" ] || fail "ids left in the cluster after the failed apply: $left"
ok "reused osd.7 purged by ceph-volume's rollback: detected, recreated, retried; no id left behind"

chown ceph:ceph "$DIR/hosts/node1/run"
chmod 0770 "$DIR/hosts/node1/run"
"$CEPHPROV" apply "$L" --yes > "$DIR/apply-ok.log" 2>&1 || { cat "$DIR/apply-ok.log"; fail "apply after the repair failed"; }
ids=$(osd_ids)
want=$(seq -s ' ' 0 $((n_hdd - 1)))
[ "$ids" = "$want" ] || fail "OSD ids after the repair: '$ids', want '$want'"
ceph_ osd dump -f json | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if all(o["up"] and o["in"] for o in d["osds"]) else 1)' ||
        fail "not every OSD is up and in"
ok "after the repair: $n_hdd OSDs up and in, ids $ids"
echo PASS
