#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The shared BlueStore lab (tests/README.md, "Shared labs"): one lab brought up once for the
# lab tests that only read, or that leave the cluster as they found it, instead of one lab
# each. 3 fake hosts of 1 SSD + 2 HDDs, mon + mgr, 6 BlueStore OSDs made by `cephprov apply`
# with their DB on the SSD, pool 'data' with 40 MB of objects (checksums kept).
#
# Each member is a lab test script of its own (tests/lab/test-MEMBER.sh, runnable alone on
# its own lab as before); here it runs with LAB_SHARED pointing at this lab, so that
# lab_test_setup gives it this lab instead of a new one and its lab_bringup is a check that
# this lab is what it needs. Around each member: a snapshot of what it must leave as it found
# it (lab_snapshot: OSDs up/in, pools with size and min_size, the OSD map's flags, the config
# database), and after it the check that it did, plus every object of 'data' read back
# identical, so that a broken member cannot silently poison the next one: the members after
# a failed one are still run, and each failure is named.
#
# Usage: test-shared-lab.sh CEPHPROV SOURCE-ROOT
# Env: SHARED_MEMBERS (default "docs-hosts agent-path agent-hangup rados-probe"), KEEP_LAB=1.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"

cephprov=${1:?usage: test-shared-lab.sh CEPHPROV SOURCE-ROOT}
srcroot=${2:?usage: test-shared-lab.sh CEPHPROV SOURCE-ROOT}
here=$(cd "$(dirname "$0")" && pwd)
members=${SHARED_MEMBERS:-docs-hosts agent-path agent-hangup rados-probe}

lab_test_setup shared-lab cpsh 10.99.40
lab_bringup --hosts 3 --ssd 1 --hdd 2
"$cephprov" apply "$dir/lab/layout.yaml" --yes >"$dir/apply.out" 2>&1
check "apply makes the shared lab's 6 OSDs" test $? -eq 0 || { tail -20 "$dir/apply.out"; exit 1; }
ceph_ osd pool set data size 2 >/dev/null 2>&1
put_objects 10 4194304 "$dir/data"
check "the shared lab is clean with its data" wait_clean 300 || exit 1
echo "shared lab up: $lab_bringup_secs s for the lab and the cluster, $((SECONDS)) s with the OSDs and the data"

# the arguments of each member, as tests/lab/meson.build gives them when it runs alone
member_args() {
        case $1 in
        docs-hosts) echo "$cephprov" "$srcroot" ;;
        *) echo "$cephprov" ;;
        esac
}

for m in $members; do
        script=$here/test-$m.sh
        [ -x "$script" ] || { check "member '$m' exists ($script)" false; continue; }
        lab_snapshot > "$dir/before-$m"
        t0=$SECONDS
        echo "==> member $m"
        # shellcheck disable=SC2046 # the arguments are words without blanks
        LAB_SHARED=$dir/lab "$script" $(member_args "$m") > "$dir/$m.out" 2>&1
        rc=$?
        sed 's/^/    /' "$dir/$m.out"
        case $rc in
        0) check "member $m passed ($(grep -o '[0-9]* checks, [0-9]* failed' "$dir/$m.out" | tail -1), $((SECONDS - t0)) s)" true ;;
        77) echo "SKIP member $m: $(grep -m1 SKIP "$dir/$m.out")" ;;
        *) check "member $m passed (exit $rc, $((SECONDS - t0)) s)" false ;;
        esac
        # what a member may change for a moment (a paused cluster, slow disks) must be back
        # before the next one, and the data intact
        wait_clean 120 >/dev/null
        lab_check_unchanged "$dir/before-$m" || echo "  (after member $m)"
        check "the data reads back identical after member $m" objects_identical 10 "$dir/data" "$dir/back"
done

# the left-as-found check can fail: a flag set on purpose is seen, and taken back
lab_snapshot > "$dir/before-self"
ceph_ osd set noscrub >/dev/null 2>&1
check "the left-as-found check sees a flag set on purpose" test "$(lab_snapshot)" != "$(cat "$dir/before-self")"
ceph_ osd unset noscrub >/dev/null 2>&1
check_eq "... and nothing once it is taken back" "$(lab_snapshot)" "$(cat "$dir/before-self")"

finish
