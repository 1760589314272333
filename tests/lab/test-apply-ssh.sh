#!/bin/bash
# `cephprov inventory`, `plan` and `apply --stage disks` over SSH on 3 fake hosts of the lab
# at once: the agent is pushed once, the planned partitions appear on every host, the second
# apply changes nothing, and a host whose sshd is stopped is reported while the others
# complete. apply takes the cluster's lock for every stage, so the lab has its Ceph cluster
# (mon + mgr, no OSD).
set -u
. "$(dirname "$0")/../lib.sh"

cephprov=${1:?usage: test-apply-ssh.sh CEPHPROV}
lab=${LAB:?LAB must point to contrib/lab/lab}
ceph_lab=${CEPH_LAB:?CEPH_LAB must point to contrib/lab/ceph}
[ "$(id -u)" = 0 ] || skip "needs root for network namespaces and loop devices"
command -v ip >/dev/null && ip netns list >/dev/null 2>&1 || skip "no 'ip netns'"
command -v sshd >/dev/null || [ -x /usr/sbin/sshd ] || skip "no sshd (openssh-server)"

dir=$(mktemp -d /tmp/cephprov-apply-ssh.XXXXXX)
export LAB_PREFIX=cpa LAB_SUBNET=10.99.5 CEPHPROV_STATE_DIR=$dir/state
cleanup() { "$ceph_lab" down --dir "$dir/lab" >/dev/null 2>&1; "$lab" down --dir "$dir/lab" >/dev/null 2>&1; rm -rf "$dir"; }
trap cleanup EXIT

"$lab" up --dir "$dir/lab" --hosts 3 >/dev/null || { echo "FAIL lab up"; exit 1; }
"$ceph_lab" up --dir "$dir/lab" >/dev/null 2>&1 || { echo "FAIL contrib/lab/ceph up"; exit 1; }
layout=$dir/lab/layout.yaml

# stdout only: the JSON (the lab's 512M DB draws a layout warning on stderr)
out=$("$cephprov" inventory "$layout" --json 2>"$dir/inventory.err")
check "inventory over ssh succeeds" test $? -eq 0 || cat "$dir/inventory.err"
check_eq "inventory has 3 hosts" "$(echo "$out" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["inventories"]))')" "3"
agent=$("$lab" exec --dir "$dir/lab" node2 stat -c %Y /root/.cephprov/cephprov 2>&1)
check "the agent was pushed to node2" test -n "$agent"

out=$("$cephprov" apply "$layout" --stage disks --yes 2>&1)
rc=$?
echo "$out" | tail -6
check "apply --stage disks over ssh succeeds" test $rc -eq 0
check_contains "and is verified" "$out" "converged"
for h in node1 node2 node3; do
        # slot 0's fast device: the planner takes devices in natural path order
        ssd=$(awk '$2 == "ssd" {print $1}' "$dir/lab/hosts/$h/loops" | sort -V | head -1)
        check_eq "$h: DB partition of slot 0 on its first SSD" \
                "$(sgdisk -p "$ssd" | awk '$1 == 1 {print $7}')" "cp:db:0:$h"
done
check_eq "the agent was not pushed again" "$("$lab" exec --dir "$dir/lab" node2 stat -c %Y /root/.cephprov/cephprov 2>&1)" "$agent"

# another build on one host (here: one byte appended, it still runs): its hello names
# another build, so it is replaced there, and only there
"$lab" exec --dir "$dir/lab" node2 sh -c 'printf x >> /root/.cephprov/cephprov'
node1_mtime=$("$lab" exec --dir "$dir/lab" node1 stat -c %Y.%y /root/.cephprov/cephprov)
"$cephprov" inventory "$layout" >/dev/null 2>&1
check "inventory after changing node2's agent succeeds" test $? -eq 0
check_eq "node2's agent is this build again" \
        "$("$lab" exec --dir "$dir/lab" node2 sha256sum /root/.cephprov/cephprov | cut -d' ' -f1)" \
        "$(sha256sum "$cephprov" | cut -d' ' -f1)"
check_eq "node1's agent was left alone" "$("$lab" exec --dir "$dir/lab" node1 stat -c %Y.%y /root/.cephprov/cephprov)" "$node1_mtime"

out=$("$cephprov" apply "$layout" --stage disks --yes 2>&1)
check "second apply succeeds" test $? -eq 0
check_contains "second apply changes nothing" "$out" "nothing to do in stage 'disks'"

# node3 unreachable: reported by name, the others are still inventoried
kill "$(cat "$dir/lab/hosts/node3/sshd.pid")"
sleep 0.3
out=$("$cephprov" inventory "$layout" 2>&1)
check "inventory with a dead host fails overall" test $? -ne 0
check_contains "the dead host is named" "$out" "host 'node3'"
check_contains "the other hosts are inventoried" "$out" "host node1"
check_contains "the other hosts are inventoried" "$out" "host node2"

finish
