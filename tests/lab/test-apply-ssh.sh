#!/bin/bash
# `cephprov inventory`, `plan` and `apply --stage disks` over SSH on 3 fake hosts of the lab
# at once: the agent is pushed once, the planned partitions appear on every host, the second
# apply changes nothing, and a host whose sshd is stopped is reported while the others
# complete. apply takes the cluster's lock for every stage, so the lab has its Ceph cluster
# (mon + mgr, no OSD).
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"

cephprov=${1:?usage: test-apply-ssh.sh CEPHPROV}
lab_test_setup apply-ssh cpa 10.99.5 /usr/sbin/sshd
lab_bringup --hosts 3
layout=$dir/lab/layout.yaml

# stdout only: the JSON (the lab's 512M DB draws a layout warning on stderr)
out=$("$cephprov" inventory "$layout" --json 2>"$dir/inventory.err")
check "inventory over ssh succeeds" test $? -eq 0 || cat "$dir/inventory.err"
check_eq "inventory has 3 hosts" "$(echo "$out" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["inventories"]))')" "3"
agent=$(on node2 stat -c %Y /root/.cephprov/cephprov 2>&1)
check "the agent was pushed to node2" test -n "$agent"

out=$("$cephprov" apply "$layout" --stage disks --yes 2>&1)
rc=$?
echo "$out" | tail -6
check "apply --stage disks over ssh succeeds" test $rc -eq 0
check_contains "and is verified" "$out" "converged"
for h in node1 node2 node3; do
        # slot 0's fast device: the planner takes devices in natural path order
        ssd=$(awk '$2 == "ssd" {print $1}' "$dir/lab/hosts/$h/loops" | sort -V | head -1)
        hdd=$(awk '$2 == "hdd" {print $1}' "$dir/lab/hosts/$h/loops" | sort -V | head -1)
        check_eq "$h: DB partition of slot 0 on its first SSD, named by its HDD's identity" \
                "$(sgdisk -i 1 "$ssd" | sed -n "s/^Partition name: '\(.*\)'\$/\1/p")" "cp:db:$(cp_tag "$hdd"):$h"
done
check_eq "the agent was not pushed again" "$(on node2 stat -c %Y /root/.cephprov/cephprov 2>&1)" "$agent"

# another build on one host (here: one byte appended, it still runs): its hello names
# another build, so it is replaced there, and only there
on node2 sh -c 'printf x >> /root/.cephprov/cephprov'
node1_mtime=$(on node1 stat -c %Y.%y /root/.cephprov/cephprov)
"$cephprov" inventory "$layout" >/dev/null 2>&1
check "inventory after changing node2's agent succeeds" test $? -eq 0
check_eq "node2's agent is this build again" \
        "$(on node2 sha256sum /root/.cephprov/cephprov | cut -d' ' -f1)" \
        "$(sha256sum "$cephprov" | cut -d' ' -f1)"
check_eq "node1's agent was left alone" "$(on node1 stat -c %Y.%y /root/.cephprov/cephprov)" "$node1_mtime"

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
