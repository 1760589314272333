#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A restore never overwrites the operator (issue 26 item 4, test c): 3 fake hosts, 6
# BlueStore OSDs made by `cephprov apply`, ~100 MB in a size-2 pool. While `cephprov drain`
# of node3 moves data (after its throttle step recorded and set the throttle), the operator
# runs `ceph osd set-group noout node1` and `ceph config set osd osd_max_backfills 2`.
# After the drain:
#   - node1's noout is still set (crush_node_flags), and osd_max_backfills is still 2
#   - the drain's restore-throttle names osd_max_backfills as left alone (text and JSON),
#     and put back the other keys it set
#   - no restore record is left (`status` lists none)
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"

cephprov=${1:?usage: test-restore-operator.sh CEPHPROV}
DRAIN_PID=
lab_cleanup_hook() { [ -n "$DRAIN_PID" ] && kill -KILL "$DRAIN_PID" 2>/dev/null; }
lab_test_setup restore-operator cprso 10.94.26

lab_bringup --hosts 3 --ssd 1 --hdd 2
layout=$dir/lab/layout.yaml
out=$("$cephprov" apply "$layout" --yes 2>&1)
check "apply makes the 6 OSDs" test $? -eq 0 || echo "$out" | tail -5
ceph_ osd pool set data size 2 >/dev/null 2>&1
put_objects 24 4194304 "$dir/data"
check "the cluster is clean with the data" wait_clean 300
# slow enough to act on while data moves (the throttle does not touch this key)
ceph_ config set osd osd_recovery_sleep_hdd 0.5 >/dev/null 2>&1
backfills_before=$(ceph_ config get osd osd_max_backfills 2>/dev/null)

# the drain, in the background; the operator acts once its throttle step is done
base=$(journal_lines)
t0=$(lab_now)
"$cephprov" drain "$layout" node3 --yes --json >"$dir/drain.json" 2>"$dir/drain.err" &
DRAIN_PID=$!
acted=
for _ in $(seq 1 1200); do
        if journal_since "$base" | grep '"name": *"throttle"' | grep -q '"wave-step-done"'; then
                ceph_ osd set-group noout node1 >/dev/null 2>&1 &&
                        ceph_ config set osd osd_max_backfills 2 >/dev/null 2>&1 && acted=1
                break
        fi
        kill -0 "$DRAIN_PID" 2>/dev/null || break
        sleep 0.1
done
check "the operator acted while the drain ran" test -n "$acted"
restore_seen=$(journal_since "$base" | grep -c '"name": *"restore-throttle"')
check_eq "... before the drain's restore" "$restore_seen" 0
wait "$DRAIN_PID"
rc=$?
DRAIN_PID=
drain_secs=$(lab_since "$t0")
check "the drain converges" test "$rc" -eq 0 || tail -20 "$dir/drain.err"

flags=$(ceph_ osd dump -f json 2>/dev/null | py 'import json,sys; print(json.load(sys.stdin).get("crush_node_flags"))')
check_contains "node1's noout is still set" "$flags" "'node1': ['noout']"
check_eq "osd_max_backfills is still the operator's 2" "$(ceph_ config get osd osd_max_backfills 2>/dev/null)" 2
left=$(py '
import json, sys
d = json.load(open(sys.argv[1]))
def walk(o):
    if isinstance(o, dict):
        if o.get("name") == "restore-throttle" or o.get("step") == "restore-throttle":
            yield o
        for v in o.values(): yield from walk(v)
    elif isinstance(o, list):
        for v in o: yield from walk(v)
for s in walk(d):
    r = s.get("result") or {}
    for l in r.get("left", []):
        print(l["who"], l["key"], l["value"])' "$dir/drain.json" 2>/dev/null | sort -u)
check_eq "restore-throttle's result names osd_max_backfills as left" "$left" "osd osd_max_backfills 2"
check_contains "... and says so on the log" "$(cat "$dir/drain.err" "$dir/drain.json")" \
        "osd osd_max_backfills is 2, not 1 as cephprov set it"
check_eq "no restore record is left" "$(ceph_ config-key ls 2>/dev/null | grep -c 'cephprov/ceph/saved/')" 0
st=$("$cephprov" status "$layout" --json 2>/dev/null | py 'import json,sys; print(len(json.load(sys.stdin).get("records", [])))')
check_eq "status lists no open record" "$st" 0
echo "drain of node3 with the operator's changes: ${drain_secs}s (osd_max_backfills before: $backfills_before)"
finish
