#!/bin/bash
# shellcheck disable=SC2154 # LAB_IP_<host>, LAB_NETNS_<host> come from lab.env
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The ssh transport against real sshd on fake hosts (contrib/lab/lab): parallel exec,
# host key checking (mismatch, strict, accept-new), a host that is down, argument
# injection, agent delivery (once, not again), agent channel, timeouts.
#
#   test-ssh-lab.sh PATH/TO/lab-ssh-tool     (env LAB: path of contrib/lab/lab)
#
# Runs its own lab (tests/lab/lab-lib.sh) with LAB_PREFIX=cpt, LAB_SUBNET=10.99.3 unless the
# environment gives others; tears it down on exit.

set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"

TOOL=${1:?usage: test-ssh-lab.sh LAB-SSH-TOOL}
lab_test_setup ssh-lab cpt 10.99.3 noceph /usr/sbin/sshd python3

elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$(lab_now)"; }
lt() { python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$1" "$2"; }
# jget FILE PYTHON-EXPR: evaluate with r = the parsed JSON array of host results
jget() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); h={x['host']: x for x in r}; print(($2))" "$1"; }

echo "# lab up ($LAB_PREFIX, $LAB_SUBNET.0/24)"
t0=$(lab_now)
lab_up --hosts 3 --ssd 1 --hdd 1 --ssd-size 256M --hdd-size 256M || { echo "FAIL lab up"; exit 1; }
echo "# lab up took $(elapsed "$t0") s"
DIR=$dir/lab # the lab's directory
# shellcheck disable=SC1091
. "$DIR/lab.env"

HOSTS=()
for h in node1 node2 node3; do
        ipv=LAB_IP_$h
        HOSTS+=("$h=${!ipv}")
done
T=("$TOOL" --identity "$DIR/id_ed25519" --known-hosts "$DIR/known_hosts" --connect-timeout 5
   --agent-path /root/.cephprov/cephprov)
OUT=$DIR/out.json
ERR=$DIR/err.txt

# --- 1. exec on 3 hosts in parallel -----------------------------------------------------
t0=$(lab_now)
"${T[@]}" --json exec "${HOSTS[@]}" -- sh -c 'sleep 1; hostname' > "$OUT" 2> "$ERR"
rc=$?
el=$(elapsed "$t0")
check "exec on 3 hosts: exit 0" [ $rc = 0 ]
check "exec on 3 hosts: each answers with its own hostname" \
        [ "$(jget "$OUT" "' '.join(h[n]['stdout'].strip() for n in ['node1','node2','node3'])")" = "node1 node2 node3" ]
check "exec on 3 hosts ran in parallel (3 × sleep 1 in $el s < 2.5 s)" lt "$el" 2.5
check "--json is quiet on stderr" [ ! -s "$ERR" ]

"${T[@]}" --json --stdin $'line one\nline two\n' exec "${HOSTS[0]}" -- sh -c 'wc -l; echo err >&2; exit 7' > "$OUT"
check "exec: stdin, stdout, stderr and exit status" \
        [ "$(jget "$OUT" "h['node1']['stdout'].strip(), h['node1']['stderr'], h['node1']['exit']")" = "('2', 'err\\n', 7)" ]

# --- 2. known_hosts: mismatch refused with the fingerprint ------------------------------
ssh-keygen -q -t ed25519 -N '' -f "$DIR/other_key"
KH_BAD=$DIR/known_hosts.bad
sed "s|^node2,.*|node2,$LAB_IP_node2 $(cut -d' ' -f1,2 "$DIR/other_key.pub")|" "$DIR/known_hosts" > "$KH_BAD"
FP2=$(ssh-keygen -l -f "$DIR/hosts/node2/ssh_host_ed25519_key.pub" | awk '{print $2}')
"${T[@]}" --known-hosts "$KH_BAD" --json exec "${HOSTS[@]}" -- true > "$OUT"
check "changed host key: exit 1" [ $? = 1 ]
msg=$(jget "$OUT" "h['node2'].get('error', '')")
check "changed host key: node2 refused ('$msg')" grep -q "does not match" <<< "$msg"
check "changed host key: message shows the host's real fingerprint $FP2" grep -qF "$FP2" <<< "$msg"
check "changed host key: node1 and node3 still ran" \
        [ "$(jget "$OUT" "h['node1'].get('exit'), h['node3'].get('exit')")" = "(0, 0)" ]

# --- 3. unknown host: strict refuses, accept-new records --------------------------------
KH_NEW=$DIR/known_hosts.new
: > "$KH_NEW"
"${T[@]}" --known-hosts "$KH_NEW" --json exec "${HOSTS[@]}" -- true > "$OUT"
msg=$(jget "$OUT" "h['node1'].get('error', '')")
FP1=$(ssh-keygen -l -f "$DIR/hosts/node1/ssh_host_ed25519_key.pub" | awk '{print $2}')
check "unknown host refused in strict mode ('$msg')" grep -q "is not in .*refusing with host_key_checking strict" <<< "$msg"
check "unknown host: fingerprint shown" grep -qF "$FP1" <<< "$msg"
check "strict mode wrote nothing" [ ! -s "$KH_NEW" ]
"${T[@]}" --known-hosts "$KH_NEW" --accept-new --json exec "${HOSTS[@]}" -- true > "$OUT"
check "accept-new: all three connect" [ $? = 0 ]
check "accept-new: three keys recorded" [ "$(wc -l < "$KH_NEW")" = 3 ]
check "accept-new: recorded key of node3 is node3's" \
        [ "$(ssh-keygen -F "$LAB_IP_node3" -f "$KH_NEW" | grep -v '^#' | awk '{print $3}')" = \
          "$(awk '{print $2}' "$DIR/hosts/node3/ssh_host_ed25519_key.pub")" ]
"${T[@]}" --known-hosts "$KH_NEW" --json exec "${HOSTS[@]}" -- true > "$OUT"
check "recorded keys accepted in strict mode afterwards" [ $? = 0 ]
sed "s|^$LAB_IP_node1 .*|$LAB_IP_node1 $(cut -d' ' -f1,2 "$DIR/other_key.pub")|" "$KH_NEW" > "$KH_NEW.2"
"${T[@]}" --known-hosts "$KH_NEW.2" --accept-new --json exec "${HOSTS[0]}" -- true > "$OUT"
check "accept-new still refuses a changed key" grep -q "does not match" <<< "$(jget "$OUT" "h['node1'].get('error', '')")"

# --- 4. injection attempts are inert ----------------------------------------------------
# (the remote shell starts in /root: an injected `touch pwnedN` would leave /root/pwnedN)
NAMES=("a b" "it's" "x;touch pwned1" "\$(touch pwned2)" "\`touch pwned3\`"
       $'new\nline' "*" "a|touch pwned4" "\${HOME}" "\"dq\" && touch pwned5" "-rf" "'; touch pwned6; '")
ARGS=()
for n in "${NAMES[@]}"; do ARGS+=("/root/inj/$n"); done
on node1 mkdir -p /root/inj
"${T[@]}" --json exec "${HOSTS[0]}" -- touch -- "${ARGS[@]}" > "$OUT"
check "injection: touch with hostile names exits 0" [ "$(jget "$OUT" "h['node1']['exit']")" = 0 ]
got=$(on node1 python3 -c 'import os; print(sorted(os.listdir("/root/inj")))')
want=$(python3 -c 'import sys; print(sorted(sys.argv[1:]))' "${NAMES[@]}")
check "injection: exactly the named files exist" [ "$got" = "$want" ]
check "injection: nothing else ran (no /root/pwned*)" \
        [ -z "$(on node1 sh -c 'ls /root | grep pwned')" ]
"${T[@]}" --json exec "${HOSTS[0]}" -- printf '%s|' "${NAMES[@]}" > "$OUT"
want=$(printf '%s|' "${NAMES[@]}")
check "injection: arguments arrive byte for byte" \
        [ "$(jget "$OUT" "repr(h['node1']['stdout'])")" = "$(python3 -c 'import sys; print(repr(sys.argv[1]))' "$want")" ]

# --- 5. agent delivery: once, not again -------------------------------------------------
"${T[@]}" --json push-agent "${HOSTS[@]}" > "$OUT"
check "agent upload: uploaded to all three" \
        [ "$(jget "$OUT" "[h[n]['uploaded'] for n in ['node1','node2','node3']]")" = "[True, True, True]" ]
LOCAL_SHA=$(sha256sum "$TOOL" | cut -d' ' -f1)
st1=$(on node2 stat -c '%a %U %Y.%y' /root/.cephprov/cephprov)
sha=$(on node2 sha256sum /root/.cephprov/cephprov | cut -d' ' -f1)
check "agent upload: same sha256 as the local binary" [ "$sha" = "$LOCAL_SHA" ]
check "agent upload: mode 0755, owned by root ($st1)" grep -q '^755 root ' <<< "$st1"
check "agent upload: no temporary file left" \
        [ "$(on node2 sh -c 'ls /root/.cephprov | wc -l')" = 1 ]
check "agent upload: per-host path (not on the machine's own /root)" [ ! -e /root/.cephprov/cephprov ] 
sleep 1.1
"${T[@]}" --json push-agent "${HOSTS[@]}" > "$OUT"
check "agent upload: second run uploads nothing" \
        [ "$(jget "$OUT" "[h[n]['uploaded'] for n in ['node1','node2','node3']]")" = "[False, False, False]" ]
st2=$(on node2 stat -c '%a %U %Y.%y' /root/.cephprov/cephprov)
check "agent upload: second run left the file alone (mtime)" [ "$st1" = "$st2" ]
on node3 sh -c 'echo corrupt >> /root/.cephprov/cephprov'
"${T[@]}" --json push-agent "${HOSTS[@]}" > "$OUT"
check "agent upload: a changed remote binary is replaced (only there)" \
        [ "$(jget "$OUT" "[h[n]['uploaded'] for n in ['node1','node2','node3']]")" = "[False, False, True]" ]

# --- 6. agent channel (with the FAKE agent of lab-ssh-tool) -----------------------------
"${T[@]}" --json agent-call "${HOSTS[@]}" -- echo '{"k":"v w","n":[1,2]}' > "$OUT"
check "agent channel: echo on 3 hosts" [ $? = 0 ]
check "agent channel: result and hello" \
        [ "$(jget "$OUT" "h['node2']['result'], h['node2']['hello']['host'], h['node2']['hello']['protocol']")" = \
          "({'k': 'v w', 'n': [1, 2]}, 'node2', 1)" ]
"${T[@]}" --json agent-call "${HOSTS[0]}" -- progress > "$OUT"
check "agent channel: progress lines delivered" [ "$(jget "$OUT" "[p['done'] for p in h['node1']['progress']]")" = "[1, 2, 3]" ]
"${T[@]}" --json agent-call "${HOSTS[0]}" -- no-such-op > "$OUT"
check "agent channel: an error answer names host and op" \
        [ "$(jget "$OUT" "h['node1']['errno'], h['node1']['error']")" = "('EOPNOTSUPP', 'node1: no-such-op: unknown op')" ]
echo 2 > "$DIR/hosts/node2/root/fake-agent-protocol"
"${T[@]}" --json agent-call "${HOSTS[@]}" -- echo > "$OUT"
msg=$(jget "$OUT" "h['node2'].get('error', '')")
check "agent channel: protocol 2 refused clearly ('$msg')" grep -q "agent protocol 2 on 'node2'.*speaks 1" <<< "$msg"
check "agent channel: other hosts unaffected" [ "$(jget "$OUT" "'error' in h['node1'], 'error' in h['node3']")" = "(False, False)" ]
rm -f "$DIR/hosts/node2/root/fake-agent-protocol"
t0=$(lab_now)
"${T[@]}" --timeout 2 --json agent-call "${HOSTS[0]}" -- hang > "$OUT"
el=$(elapsed "$t0")
check "agent channel: a read times out (ETIME in $el s)" \
        [ "$(jget "$OUT" "h['node1'].get('errno')")" = ETIME ]
check "agent channel: timeout within 3.5 s ($el)" lt "$el" 3.5

# --- 7. timeouts ------------------------------------------------------------------------
t0=$(lab_now)
"${T[@]}" --timeout 2 --json exec "${HOSTS[0]}" -- sleep 100 > "$OUT"
el=$(elapsed "$t0")
check "sleep 100 with timeout 2: ETIME" [ "$(jget "$OUT" "h['node1'].get('errno')")" = ETIME ]
check "sleep 100 with timeout 2: returned in $el s (< 3 s)" lt "$el" 3
sleep 3
check "sleep 100 with timeout 2: the remote command was killed too" \
        [ -z "$(for p in $(ip netns pids "$LAB_NETNS_node1"); do ps -o args= -p "$p"; done | grep '^sleep 100')" ]

# a connect timeout: an address in the lab subnet where nothing answers
t0=$(lab_now)
"${T[@]}" --connect-timeout 2 --json exec "dead=$LAB_SUBNET.99" -- true > "$OUT"
el=$(elapsed "$t0")
check "connect timeout: reported for 'dead' ($(jget "$OUT" "h['dead'].get('errno')"))" \
        grep -qE "ETIME|EHOSTUNREACH" <<< "$(jget "$OUT" "h['dead'].get('errno')")"
check "connect timeout: within 3.5 s ($el)" lt "$el" 3.5

# --- 7b. keys: hashed known_hosts, ECDSA identity, RSA identity refused clearly --------
cp "$DIR/known_hosts" "$DIR/known_hosts.hashed"
ssh-keygen -q -H -f "$DIR/known_hosts.hashed" >/dev/null 2>&1
rm -f "$DIR/known_hosts.hashed.old"
check "hashed known_hosts: file is hashed" grep -q '^|1|' "$DIR/known_hosts.hashed"
"${T[@]}" --known-hosts "$DIR/known_hosts.hashed" --json exec "${HOSTS[@]}" -- true > "$OUT"
check "hashed known_hosts: accepted" [ $? = 0 ]
ssh-keygen -q -t ecdsa -N '' -f "$DIR/id_ecdsa"
ssh-keygen -q -t rsa -b 3072 -N '' -f "$DIR/id_rsa"
cat "$DIR/id_ecdsa.pub" "$DIR/id_rsa.pub" >> "$DIR/authorized_keys"
"${T[@]}" --identity "$DIR/id_ecdsa" --json exec "${HOSTS[0]}" -- true > "$OUT"
check "ECDSA identity works" [ "$(jget "$OUT" "h['node1'].get('exit')")" = 0 ]
"${T[@]}" --identity "$DIR/id_rsa" --json exec "${HOSTS[0]}" -- true > "$OUT"
msg=$(jget "$OUT" "h['node1'].get('error', '')")
if [ "$(jget "$OUT" "h['node1'].get('exit')")" = 0 ]; then
        check "RSA identity works with this libssh2 (newer than 1.10?)" true
else
        check "RSA identity refused with a clear message ('$msg')" grep -q "RSA keys do not work with libssh2 1.10" <<< "$msg"
fi
"${T[@]}" --identity "$DIR/no-such-key" --json exec "${HOSTS[0]}" -- true > "$OUT"
check "missing identity file named" grep -q "cannot read identity '$DIR/no-such-key'" <<< "$(jget "$OUT" "h['node1'].get('error', '')")"

# --- 8. a host whose sshd is stopped ----------------------------------------------------
kill "$(cat "$DIR/hosts/node3/sshd.pid")"
sleep 0.2
t0=$(lab_now)
"${T[@]}" --json exec "${HOSTS[@]}" -- hostname > "$OUT"
rc=$?
el=$(elapsed "$t0")
check "stopped sshd: overall exit 1" [ $rc = 1 ]
check "stopped sshd: node3 reported as refused" \
        [ "$(jget "$OUT" "h['node3'].get('errno')")" = ECONNREFUSED ]
check "stopped sshd: node1 and node2 completed" \
        [ "$(jget "$OUT" "h['node1']['stdout'].strip(), h['node2']['stdout'].strip()")" = "('node1', 'node2')" ]
check "stopped sshd: reported in $el s (< 5 s)" lt "$el" 5
"${T[@]}" exec "${HOSTS[@]}" -- hostname > "$DIR/out.txt" 2>/dev/null
check "text output: one block per host, in order" \
        [ "$(grep '^==' "$DIR/out.txt" | cut -d: -f1)" = "$(printf '== node1\n== node2\n== node3')" ]

finish
