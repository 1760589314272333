#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# contrib/lab/lab itself: `up` builds what LAB-CONVENTIONS.md promises, `down` leaves the
# machine clean — also after an `up` that failed half-way (LAB_FAIL_AT test hook).
#
#   test-lab-teardown.sh        (env LAB: path of contrib/lab/lab)
#
# Its lab (tests/lab/lab-lib.sh): LAB_PREFIX=cptd, LAB_SUBNET=10.99.2 unless the environment
# gives others. It takes the lab down itself (that is what it checks).

set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"

lab_test_setup lab-teardown cptd 10.99.2 noceph /usr/sbin/sshd
DIR=$dir/lab # the lab's directory: `up` creates it, `down` removes it

not() { ! "$@" 2>/dev/null; }

# What a lab with our prefix leaves on the machine, one thing per line.
leftovers() {
        ip netns list | awk '{print $1}' | grep "^$LAB_PREFIX-" | sed 's/^/netns /'
        ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep "^$LAB_PREFIX" | sed 's/^/link /'
        losetup -n -O NAME,BACK-FILE 2>/dev/null | grep -F "$DIR/" | sed 's/^/loop /'
        ps -eo pid=,args= | grep -F "$DIR/" | grep -v grep | sed 's/^/process /'
        [ -e "$DIR" ] && echo "dir $DIR"
        ip route show | grep "^$LAB_SUBNET\.0/24" | sed 's/^/route /'
        ls -d /sys/fs/cgroup/blkio/cephprov-lab-"$LAB_PREFIX"-* 2>/dev/null | sed 's/^/cgroup /'
        true
}

check "nothing of ours before the test" [ -z "$(leftovers)" ]

# A complete lab.
lab_up --hosts 2 --ssd 1 --hdd 1 --ssd-size 128M --hdd-size 128M
check "up: 3 namespaces" [ "$(ip netns list | grep -c "^$LAB_PREFIX-")" = 3 ]
check "up: route to the subnet via the bridge" grep -q "dev ${LAB_PREFIX}br0" <<< "$(ip route show "$LAB_SUBNET.0/24")"
check "up: lab.env, known_hosts, key, layout.yaml" \
        test -s "$DIR/lab.env" -a -s "$DIR/known_hosts" -a -s "$DIR/id_ed25519" -a -s "$DIR/layout.yaml"
check "up: 2 loops per storage host, SSD non-rotational" \
        test "$(wc -l < "$DIR/hosts/node1/loops")" = 2 -a \
        "$(cat "/sys/block/$(awk '$2 == "ssd" {sub("/dev/", "", $1); print $1}' "$DIR/hosts/node1/loops")/queue/rotational")" = 0
check "up: layout allow-list = the host's loops" \
        grep -qF "allow: [$(cut -d' ' -f1 "$DIR/hosts/node2/loops" | paste -sd, - | sed 's/,/, /g')]" "$DIR/layout.yaml"
check "exec: hostname is the host's" [ "$("$lab" exec --dir "$DIR" node2 hostname)" = node2 ]
check "exec: own /root" [ "$("$lab" exec --dir "$DIR" node1 findmnt -n -o SOURCE /root | grep -c hosts/node1/root)" = 1 ]
check "exec: own address" grep -q "$LAB_SUBNET.12/24" <<< "$("$lab" exec --dir "$DIR" node2 ip -o addr show eth0)"
check "status: all up" "$lab" status --dir "$DIR"
check "up refuses a second lab in the same dir" not "$lab" up --dir "$DIR"
# slow: the host's processes in a blkio cgroup limiting each of its loops; --off undoes it
if [ -w /sys/fs/cgroup/blkio ]; then
        cg=/sys/fs/cgroup/blkio/cephprov-lab-$LAB_PREFIX-node1
        sshd1=$(cat "$DIR/hosts/node1/sshd.pid")
        loop1=$(lsblk -dno MAJ:MIN "$(head -1 "$DIR/hosts/node1/loops" | cut -d' ' -f1)" | tr -d ' ')
        check "slow: node1 slow" "$lab" slow --dir "$DIR" node1 --iops 40 --bps 1048576
        check "slow: node1's sshd in the cgroup" grep -qx "$sshd1" "$cg/cgroup.procs"
        check "slow: a process node1's sshd starts later is in it too" \
                grep -q ":blkio:/cephprov-lab-$LAB_PREFIX-node1\$" <<< "$(ssh -i "$DIR/id_ed25519" -o UserKnownHostsFile="$DIR/known_hosts" \
                        -o BatchMode=yes root@"$LAB_SUBNET.11" cat /proc/self/cgroup)"
        check "slow: the limits on node1's loop" grep -qx "$loop1 40" "$cg/blkio.throttle.write_iops_device"
        check "slow: bytes per second too" grep -qx "$loop1 1048576" "$cg/blkio.throttle.read_bps_device"
        check "slow: refuses a bad number" not "$lab" slow --dir "$DIR" node1 --iops fast
        check "slow: refuses an unknown host" not "$lab" slow --dir "$DIR" node9
        check "slow --off: gone" "$lab" slow --dir "$DIR" node1 --off
        check "slow --off: the cgroup is removed" test ! -d "$cg"
        check "slow --off: sshd back in the root group" grep -qx "$sshd1" /sys/fs/cgroup/blkio/cgroup.procs
        "$lab" slow --dir "$DIR" node2 >/dev/null
else
        echo "no writable blkio cgroup: lab slow not checked"
fi
"$lab" exec --dir "$DIR" node1 sh -c 'sleep 300 </dev/null >/dev/null 2>&1 &'
"$lab" down --dir "$DIR" >/dev/null
check "down after a full up: nothing left (also a process started in a host, a slow cgroup)" [ -z "$(leftovers)" ]

# Half-built labs.
for step in bridge setup-admin setup-node2 start-node1; do
        LAB_FAIL_AT=$step "$lab" up --hosts 2 --ssd 1 --hdd 1 --ssd-size 128M --hdd-size 128M --dir "$DIR" \
                >/dev/null 2>&1
        check "up failing at '$step' fails" [ $? != 0 ]
        "$lab" down --dir "$DIR" >/dev/null
        left=$(leftovers)
        check "down after up failed at '$step': nothing left${left:+ ($left)}" [ -z "$left" ]
done
check "down with no lab is fine" "$lab" down --dir "$DIR"
torn_down=1 # and checked: lab-lib's EXIT trap need not take it down again

finish
