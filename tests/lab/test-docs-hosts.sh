#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The documentation's command lines that need hosts (issue 14): the cli tier's doc test
# lists them (`test-cli-docs.py --host-commands`: FILE:LINE and the command) and skips them;
# here each one that only reads or only plans (plan, inventory, status, and any verb with
# --dry-run) runs against real hosts: a lab of one host and a Ceph cluster (apply's preflight
# wants what a host of a cluster has), the example's layout replaced by the lab's and its host
# names by the lab's node1, every other word as the docs write it. It
# must exit 0 (plan: 0 or 10 with --detailed-exitcode) and print no error. A command that
# would change something is listed as not run, with the reason. Fails when the docs have no
# such command at all (the listing broke) or one no longer works.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"

cephprov=${1:?usage: test-docs-hosts.sh CEPHPROV SRCDIR}
src=${2:?usage: test-docs-hosts.sh CEPHPROV SRCDIR}
lab_test_setup docs-hosts cpdh 10.99.25
lab_bringup --hosts 1 --ssd 1 --hdd 2
layout=$dir/lab/layout.yaml

list=$(python3 "$src/tests/cli/test-cli-docs.py" "$cephprov" "$src" --host-commands)
check "the docs list command lines that need hosts" test -n "$list"
ran=0
while IFS=$'\t' read -r where cmd; do
        [ -n "$cmd" ] || continue
        read -r -a words <<< "$cmd"
        verb=${words[1]:-}
        args=() dry= prev=
        for w in "${words[@]:1}"; do
                case $w in
                *.yaml|*.yml) [ -e "$src/$w" ] && case $w in layouts/*) w=$layout ;; esac ;;
                --dry-run) dry=1 ;;
                esac
                [ "$prev" = --hosts ] && w=node1
                args+=("$w")
                prev=$w
        done
        case $verb in
        plan|inventory|status) ;;
        *) if [ -z "$dry" ]; then
                   echo "not run: $where: $cmd (it would change the hosts; only plans and dry runs run here)"
                   continue
           fi ;;
        esac
        out=$(cd "$src" && "$cephprov" "${args[@]}" 2>&1)
        rc=$?
        ok=0
        [ $rc -eq 0 ] && ok=1
        [ $rc -eq 10 ] && [[ " ${args[*]} " == *" --detailed-exitcode "* ]] && ok=1
        check "$where: $cmd (as: cephprov ${args[*]}) exits 0 on a real host (exit $rc)" test $ok = 1 ||
                echo "$out" | tail -10
        check_eq "$where: it prints no error" "$(echo "$out" | grep -c 'error:')" 0
        ran=$((ran + 1))
done <<< "$list"
check "at least one documented host command ran ($ran)" test "$ran" -gt 0

finish
