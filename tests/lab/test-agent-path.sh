#!/bin/bash
# Agent delivery is safe against other users of the host (docs/transport.md, "Agent
# delivery"): `cephprov inventory` over SSH on a fake host of the lab
#  - refuses an agent_path in a world-writable directory, a group-writable agent file and
#    one owned by another user, names the path and the reason, and never runs what is
#    there (each planted "agent" would create a marker file if it ran);
#  - uploads through a temporary name nobody can predict, created O_EXCL: a symlink
#    planted at the name the old code used (<path>.tmp-<pid>-<first rand()>) is not
#    followed, and no temporary file is left.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"

cephprov=$(realpath "${1:?usage: test-agent-path.sh CEPHPROV}")
lab_test_setup agent-path cpg 10.99.11 noceph /usr/sbin/sshd

lab_up --hosts 1 --ssd 1 --hdd 1 --ssd-size 256M --hdd-size 256M || { echo "FAIL lab up"; exit 1; }

# layout_with PATH: the lab's layout with agent_path PATH, for node1 only
layout_with() {
        local f=$dir/layout-$(echo "$1" | tr / _).yaml
        sed "s|agent_path: .*|agent_path: $1|" "$dir/lab/layout.yaml" > "$f"
        echo "$f"
}

# plant DIR-MODE FILE-MODE OWNER NAME: /root/NAME/cephprov, a script that leaves a marker
plant() {
        on node1 sh -c "mkdir -p /root/$4 && chmod $1 /root/$4 &&
                  printf '#!/bin/sh\ntouch /root/ran-$4\n' > /root/$4/cephprov &&
                  chmod $2 /root/$4/cephprov && chown $3 /root/$4/cephprov"
}

refused() { # refused NAME WHAT-IN-MESSAGE
        local path=/root/$1/cephprov out rc
        local before
        before=$(on node1 sha256sum "$path" | cut -d' ' -f1)
        out=$("$cephprov" inventory "$(layout_with "$path")" 2>&1)
        rc=$?
        check "$1: inventory fails" test $rc -ne 0
        check_contains "$1: the message names the path" "$out" "refusing the agent path '$path' on host 'node1'"
        check_contains "$1: and the reason" "$out" "$2"
        check "$1: the planted agent did not run" on node1 test ! -e "/root/ran-$1"
        check_eq "$1: nor was it replaced" "$(on node1 sha256sum "$path" | cut -d' ' -f1)" "$before"
}

plant 0777 0755 root ww
refused ww "directory '/root/ww' is world-writable (mode 0777)"
plant 0755 0775 root gw
refused gw "file '/root/gw/cephprov' is group-writable (mode 0775)"
plant 0755 0755 nobody nb
refused nb "file '/root/nb/cephprov' is owned by 'nobody'"
plant 1777 0755 root sticky
refused sticky "directory '/root/sticky' is world-writable (mode 1777)"
on node1 sh -c 'mkdir -p /root/real && ln -s /root/real /root/link'
out=$("$cephprov" inventory "$(layout_with /root/link/cephprov)" 2>&1)
check_contains "a symlink on the path is refused" "$out" "directory '/root/link' is a symbolic link"

# The old temporary name was <path>.tmp-<pid>-<rand()>, rand() never seeded (and also
# drawn once per connection for the backoff jitter): one of the first values of glibc's
# unseeded sequence. Plant a symlink at each for the pid cephprov will have (bash execs
# it), pointing at a file that must not come into being.
RANDS="1804289383 846930886 1681692777 1714636915 1957747793 424238335 719885386 1649760492"
on node1 sh -c 'mkdir -p /root/up && chmod 0755 /root/up'
path=/root/up/cephprov
layout=$(layout_with "$path")
out=$(bash -c 'for r in $6; do "$1" exec --dir "$2" node1 ln -s /root/victim "$3.tmp-$$-$r" || exit 1; done &&
               exec "$4" inventory "$5"' _ "$lab" "$dir/lab" "$path" "$cephprov" "$layout" "$RANDS" 2>&1)
rc=$?
check "inventory with a fresh agent path succeeds" test $rc -eq 0
[ $rc -eq 0 ] || echo "$out" | tail -5
check "the planted symlink was not followed" on node1 test ! -e /root/victim
want=$(sha256sum "$cephprov" | cut -d' ' -f1)
check "the local build hashes" test -n "$want"
check_eq "the agent is this build" "$(on node1 sha256sum "$path" | cut -d' ' -f1)" "$want"
check_eq "mode 0755, owned by root" "$(on node1 stat -c '%a %U' "$path")" "755 root"
check_eq "no temporary file left (only the agent and the planted links)" \
        "$(on node1 sh -c 'ls -A /root/up | grep -v "^cephprov$" | grep -vc "\.tmp-[0-9]*-[0-9]*$"')" "0"
check_eq "the planted links are still links to where they pointed" \
        "$(on node1 sh -c 'for l in /root/up/cephprov.tmp-*-*; do readlink "$l"; done | sort | uniq -c | tr -s " "')" \
        " 8 /root/victim"

finish
