#!/bin/bash
# An sshd that drops connections under load (MaxStartups 1:100:1: every connection beyond
# the one being authenticated is closed at once) still serves a fan-out of 12 connections
# to it: the transport retries dropped connections with backoff instead of failing.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"

tool=${1:?usage: test-ssh-maxstartups.sh LAB-SSH-TOOL}
lab_test_setup ssh-maxstartups cpm 10.99.6 noceph /usr/sbin/sshd
pid=
lab_cleanup_hook() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; } # the second sshd

lab_up --hosts 1 --ssd 0 --hdd 0 || { echo "FAIL lab up"; exit 1; }
ip=$LAB_SUBNET.11
# a second sshd on node1, port 2222, with a harsh MaxStartups
sed -e 's/^Port 22$/Port 2222/' -e 's/^MaxStartups .*/MaxStartups 1:100:1/' \
        "$dir/lab/hosts/node1/sshd_config" >"$dir/sshd_config"
pid=$(on node1 sh -c \
        "/usr/sbin/sshd -D -f '$dir/sshd_config' </dev/null >'$dir/sshd.log' 2>&1 & echo \$!")
echo "[$ip]:2222 $(cut -d' ' -f1,2 "$dir/lab/hosts/node1/ssh_host_ed25519_key.pub")" >"$dir/known_hosts"
for _ in $(seq 50); do
        "$tool" --identity "$dir/lab/id_ed25519" --known-hosts "$dir/known_hosts" --port 2222 \
                exec n=$ip -- true >/dev/null 2>&1 && break
        sleep 0.1
done

specs=()
for i in $(seq 12); do specs+=("h$i=$ip"); done
out=$("$tool" --identity "$dir/lab/id_ed25519" --known-hosts "$dir/known_hosts" --port 2222 \
        --concurrency 12 --connect-timeout 30 exec "${specs[@]}" -- echo served 2>&1)
rc=$?
check "12 connections at once to an sshd with MaxStartups 1:100:1 all succeed" test $rc -eq 0
check_eq "every host answered" "$(echo "$out" | grep -c served)" "12"

# the same without retries would fail: OpenSSH's own client sees the drops
drops=0
for i in $(seq 12); do
        ssh -F /dev/null -i "$dir/lab/id_ed25519" -o UserKnownHostsFile="$dir/known_hosts" -o BatchMode=yes \
                -o StrictHostKeyChecking=yes -p 2222 root@$ip true >/dev/null 2>&1 &
done
for j in $(jobs -p); do wait "$j" || drops=$((drops + 1)); done
echo "plain ssh: $drops of 12 connections dropped"
check "the sshd really drops connections (plain ssh lost some)" test "$drops" -gt 0

finish
