#!/bin/bash
# The controller dies while the agent runs a command (docs/agent.md, "run"): over a real
# sshd, the agent sees its stdin close and kills the command's whole process group, so
# nothing the killed run started keeps working while a re-run begins.
#   `cephprov agent` on a fake host, started by the OpenSSH client; a `run` of
#   sh -c 'sleep 100 & sleep 100'; kill -9 of the client; no sleep is left on the host.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"

cephprov=$(realpath "${1:?usage: test-agent-hangup.sh CEPHPROV}")
lab_test_setup agent-hangup cph 10.99.12 noceph /usr/sbin/sshd ssh
client=
lab_cleanup_hook() { # the OpenSSH client, if the test died before killing it
        [ -n "$client" ] && kill -9 "$client" 2>/dev/null
        exec 3>&- 2>/dev/null
}

lab_up --hosts 1 --ssd 1 --hdd 1 --ssd-size 256M --hdd-size 256M || { echo "FAIL lab up"; exit 1; }
# shellcheck disable=SC1091
. "$dir/lab/lab.env"
"$cephprov" inventory "$dir/lab/layout.yaml" >/dev/null 2>&1
check "the agent was pushed" on node1 test -x /root/.cephprov/cephprov

running() { # running PID: exists and is not a zombie
        local st
        st=$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
        [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

mkfifo "$dir/in"
# shellcheck disable=SC2154 # LAB_IP_node1 comes from lab.env
ssh -T -i "$dir/lab/id_ed25519" -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -o LogLevel=ERROR \
        "root@$LAB_IP_node1" /root/.cephprov/cephprov agent < "$dir/in" > "$dir/out" 2> "$dir/err" &
client=$!
exec 3> "$dir/in"
pids=/root/hangup-pids
printf '%s\n' '{"id":1,"op":"configure","args":{"allow":[]}}' \
        "{\"id\":2,\"op\":\"run\",\"args\":{\"argv\":[\"sh\",\"-c\",\"echo \$\$ > $pids; sleep 100 & echo \$! >> $pids; sleep 100\"],\"timeout\":600}}" >&3
for _ in $(seq 100); do
        [ "$(on node1 sh -c "wc -l < $pids" 2>/dev/null)" = 2 ] && break
        sleep 0.1
done
mapfile -t P < <(on node1 cat "$pids")
check_eq "the command and its background sleep started" "${#P[@]}" 2
check "both run before the kill" running "${P[0]}"
check "  (the background one too)" running "${P[1]}"
agent=$(awk '{print $4}' "/proc/${P[0]}/stat")
check "the agent is the command's parent" grep -q 'cephprov' "/proc/$agent/cmdline"

kill -9 "$client"
wait "$client" 2>/dev/null
client=
exec 3>&-
gone=
for i in $(seq 50); do
        if ! running "${P[0]}" && ! running "${P[1]}"; then gone=$i; break; fi
        sleep 0.1
done
check "no process of the command is left once the controller is gone (after ${gone:-?}00 ms)" test -n "$gone"
running "${P[0]}" && kill -9 "${P[0]}"
running "${P[1]}" && kill -9 "${P[1]}"
for _ in $(seq 20); do running "$agent" || break; sleep 0.1; done
check "and the agent exited" eval '! running "$agent"'

finish
