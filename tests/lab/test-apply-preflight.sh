#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Preflight on the lab (issue 8), a real Ceph cluster, over SSH:
#   node2 lacks ceph-volume (an empty, non-executable file bound over it in node2's mount
#   namespace only), node1 has everything;
#   1. `apply` refuses node2 before its first step with "ceph-volume: not in PATH", and
#      node1 goes on and gets its OSD; node2's disks are byte-identical (no GPT, no
#      partition), the journal has no step of node2 and the cluster has no OSD id for it;
#   2. with ceph-volume back, `apply` converges node2 too.
# Before the preflight, step 1 partitioned node2's SSD and then failed its create-osd step.
# Teardown always (trap).
#
# Usage: test-apply-preflight.sh CEPHPROV
# Env: LAB (contrib/lab/lab), CEPH_LAB (contrib/lab/ceph), LAB_PREFIX, LAB_SUBNET, KEEP_LAB=1
# (tests/lab/lab-lib.sh).
set -euo pipefail

CEPHPROV=$(realpath "${1:?usage: $0 CEPHPROV}")
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"
hidden=
lab_cleanup_hook() { [ -n "${hidden:-}" ] && on node2 umount "$CV" 2>/dev/null; }
lab_test_setup preflight-lab cppf 10.99.24 python3 sha256sum
CV=$(realpath "$(command -v ceph-volume)")

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

# one SSD (DB) and one HDD (data) per host, small enough to checksum whole
lab_bringup --hosts 2 --ssd 1 --hdd 1 --ssd-size 600M --hdd-size 600M
DIR=$dir/lab # the test's own files beside the lab's (its state: $CEPHPROV_STATE_DIR, $dir/state)
L=$DIR/layout.yaml

# node2 loses ceph-volume; every other host still sees it
: > "$DIR/not-ceph-volume"
chmod 0644 "$DIR/not-ceph-volume"
on node2 mount --bind "$DIR/not-ceph-volume" "$CV"
hidden=1
on node2 test ! -x "$CV" || fail "could not hide ceph-volume on node2"
on node1 test -x "$CV" || fail "hiding ceph-volume on node2 hid it on node1 too"

mapfile -t n2 < <(cut -d' ' -f1 "$DIR/hosts/node2/loops")
[ "${#n2[@]}" -eq 2 ] || fail "node2 should have 2 loop devices, has ${#n2[@]}"
sums_before=$(sha256sum "${n2[@]}")

# plan shows it first
out=$("$CEPHPROV" plan "$L" 2>&1) || { echo "$out"; fail "plan failed"; }
grep -q "^host 'node2': refused: ceph-volume: not in PATH" <<<"$out" || { echo "$out"; fail "plan does not show node2 refused"; }
grep -q "^host 'node1': refused" <<<"$out" && { echo "$out"; fail "plan refuses node1 too"; }
ok "plan shows node2 refused: ceph-volume not in PATH"

# 1. apply: node2 refused before its first step, node1 done
rc=0
"$CEPHPROV" apply "$L" --yes > "$DIR/apply1.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || { cat "$DIR/apply1.log"; fail "apply with a refused host should exit 1, exit $rc"; }
grep -q "^host 'node2': refused: ceph-volume: not in PATH" "$DIR/apply1.log" ||
        { cat "$DIR/apply1.log"; fail "apply does not name node2's missing ceph-volume"; }
ok "apply refused node2: $(grep "^host 'node2': refused" "$DIR/apply1.log" | head -1)"
[ "$(sha256sum "${n2[@]}")" = "$sums_before" ] || fail "node2's disks changed although it was refused"
for d in "${n2[@]}"; do
        [ -z "$(blkid -p -s PTTYPE -o value "$d" 2>/dev/null)" ] || fail "node2's $d got a partition table"
done
ok "node2's disks are byte-identical, no partition table"
J=$CEPHPROV_STATE_DIR/ceph.journal
grep '"event":"step-' "$J" | grep -q '"host":"node2"' && fail "the journal has steps of node2"
grep '"event":"wave-step-done"' "$J" | grep '"host":"node1"' | grep -q '"kind":"create-osd"' ||
        { cat "$DIR/apply1.log"; fail "node1's OSD was not created"; }
ok "the journal has node1's create-osd done and no step of node2"

ceph_ osd dump -f json > "$DIR/dump1.json"
ceph_ osd tree -f json > "$DIR/tree1.json"
py '
import json, sys
d = sys.argv[1]
dump = json.load(open(d + "/dump1.json"))
tree = json.load(open(d + "/tree1.json"))
osds = dump["osds"]
assert len(osds) == 1, "expected exactly 1 OSD (node1), the cluster has ids %s" % [o["osd"] for o in osds]
assert osds[0]["up"] == 1, "osd.%d is not up" % osds[0]["osd"]
hosts = {n["name"]: n.get("children", []) for n in tree["nodes"] if n["type"] == "host"}
assert "node2" not in hosts or not hosts["node2"], "node2 has OSDs in CRUSH: %s" % hosts
assert len(hosts.get("node1", [])) == 1, "node1 should hold 1 OSD in CRUSH: %s" % hosts
' "$DIR" || fail "cluster state after the refused apply"
ok "the cluster has node1's OSD up and no id for node2"

# 2. ceph-volume back: node2 converges too
on node2 umount "$CV"
hidden=
"$CEPHPROV" apply "$L" --yes > "$DIR/apply2.log" 2>&1 || { cat "$DIR/apply2.log"; fail "apply with ceph-volume back did not converge"; }
grep -q '^converged' "$DIR/apply2.log" || { cat "$DIR/apply2.log"; fail "second apply did not say converged"; }
ceph_ osd dump -f json > "$DIR/dump2.json"
py '
import json, sys
osds = json.load(open(sys.argv[1]))["osds"]
assert len(osds) == 2 and all(o["up"] == 1 for o in osds), "expected 2 OSDs up: %s" % [(o["osd"], o["up"]) for o in osds]
' "$DIR/dump2.json" || fail "cluster state after the second apply"
ok "with ceph-volume back, apply converged node2: 2 OSDs up"
echo "PASS"
