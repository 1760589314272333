#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli tier: `cephprov plan LAYOUT --inventory FILE` offline, for every shipped layout
# against its saved inventory: the text and JSON plans are the golden files of the unit
# tier, --detailed-exitcode says 10 (steps to do) or 0 (the converged inventory), --hosts
# keeps only those hosts.
# usage: test-cli-plan.sh CEPHPROV SRCDIR
set -u
cephprov=$1 src=$2
case $cephprov in /*) ;; *) cephprov=$PWD/$cephprov ;; esac
. "$src/tests/lib.sh"

data=$src/tests/data
n=0
for layout in "$src"/layouts/*.yaml; do
        name=$(basename "$layout" .yaml)
        inv=$data/inventory-$name.json
        [ -f "$inv" ] || continue
        out=$("$cephprov" plan "$layout" --inventory "$inv"); rc=$?
        check_eq "plan $name exits 0" "$rc" 0
        check_eq "plan $name is the golden plan" "$out" "$(cat "$data/plan-$name.txt")"
        out=$("$cephprov" plan "$layout" --inventory "$inv" --json); rc=$?
        check_eq "plan --json $name exits 0" "$rc" 0
        check_eq "plan --json $name is the golden plan" "$out" "$(cat "$data/plan-$name.json")"
        "$cephprov" plan "$layout" --inventory "$inv" --detailed-exitcode >/dev/null; rc=$?
        check_eq "plan --detailed-exitcode $name with steps exits 10" "$rc" 10
        if [ -f "$data/inventory-$name-converged.json" ]; then
                out=$("$cephprov" plan "$layout" --inventory "$data/inventory-$name-converged.json" --detailed-exitcode); rc=$?
                check_eq "plan --detailed-exitcode $name converged exits 0" "$rc" 0
                check "plan $name converged has nothing to do" bash -c \
                        '! grep -v -e "^host .*: nothing to do$" -e "^$" <<<"$1" | grep -q .' _ "$out"
        fi
        n=$((n + 1))
done
check "every shipped layout with an inventory was planned" [ "$n" -ge 4 ]

layout=$src/layouts/scenario-1-hyperconverged.yaml
out=$("$cephprov" plan "$layout" --inventory "$data/inventory-scenario-1-hyperconverged.json" --hosts node2); rc=$?
check_eq "plan --hosts exits 0" "$rc" 0
check_contains "plan --hosts keeps node2" "$out" "host node2:"
check "plan --hosts drops node1 and node3" bash -c '! grep -q -e "^host node1" -e "^host node3" <<<"$1"' _ "$out"

err=$("$cephprov" plan "$layout" --inventory "$data/no-such-inventory.json" 2>&1 >/dev/null); rc=$?
check_eq "plan with a missing inventory exits 1" "$rc" 1
check_contains "plan with a missing inventory names it" "$err" "no-such-inventory.json"

finish
