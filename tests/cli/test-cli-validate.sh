#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli tier: `cephprov validate` on every shipped and test layout and playbook: the valid ones
# pass (text and --json), every invalid one fails with exit 1 and exactly the message of
# its .expected file on stderr, nothing on stdout.
# usage: test-cli-validate.sh CEPHPROV SRCDIR
set -u
cephprov=$1 src=$2
case $cephprov in /*) ;; *) cephprov=$PWD/$cephprov ;; esac
. "$src/tests/lib.sh"

json_ok() { python3 -c 'import json, sys; json.load(sys.stdin)'; }
json_field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

n=0
for f in "$src"/layouts/*.yaml "$src"/tests/data/layout-valid/*.yaml; do
        out=$("$cephprov" validate "$f"); rc=$?
        check_eq "validate $(basename "$f") exits 0" "$rc" 0
        check "validate $(basename "$f") says valid" grep -q "^$f: valid: cluster '" <<<"$out"
        check "validate --json $(basename "$f") is JSON" json_ok < <("$cephprov" validate --json "$f")
        n=$((n + 1))
done
check "layouts were validated" [ "$n" -ge 9 ]

n=0
for f in "$src"/playbooks/*.yaml; do
        b=$(basename "$f" .yaml)
        out=$("$cephprov" validate "$f"); rc=$?
        check_eq "validate playbook $b exits 0" "$rc" 0
        check "validate playbook $b says valid" grep -q "^$f: valid: playbook '$b', " <<<"$out"
        name=$("$cephprov" validate --json "$f" | json_field playbook)
        check_eq "validate --json playbook $b names it" "$name" "$b"
        plan=$("$cephprov" validate "$f" --hosts node3,node4); rc=$?
        check_eq "plan of playbook $b for two hosts exits 0" "$rc" 0
        check_contains "plan of playbook $b has a second wave" "$plan" "wave 2 of 2: node4"
        check "plan --json of playbook $b is JSON" json_ok < <("$cephprov" validate "$f" --hosts node3 --json)
        n=$((n + 1))
done
check "playbooks were validated" [ "$n" -ge 2 ]
# playbooks/README.md shows validate's output: it is what validate prints
shown=$(sed -n '/^\$ cephprov validate playbooks\/drain-node.yaml$/{n;p;q}' "$src/playbooks/README.md")
check_eq "playbooks/README.md shows what validate prints" "$(cd "$src" && "$cephprov" validate playbooks/drain-node.yaml)" "$shown"
check_contains "drain-node is not destructive" "$("$cephprov" validate "$src/playbooks/drain-node.yaml")" "; not destructive"
check_contains "destroy-node is destructive" "$("$cephprov" validate "$src/playbooks/destroy-node.yaml")" "; destructive"

# Invalid files: run where they are, so the message names them as in .expected. A file
# without a top-level 'playbook:' line is read as a layout, so the playbook cases that lack
# it (empty, not a mapping, the missing key itself) are the unit test's only.
invalid() { # invalid DIR KIND
        local dir=$1 kind=$2 count=0 f b expected out err rc
        for f in "$dir"/*.yaml; do
                b=$(basename "$f" .yaml)
                if [ "$kind" = playbook ] && ! grep -q '^playbook:' "$f"; then
                        continue
                fi
                expected="cephprov: error: $(head -n1 "$dir/$b.expected")"
                err=$(cd "$dir" && "$cephprov" validate "$b.yaml" 2>&1 >/dev/null); rc=$?
                out=$(cd "$dir" && "$cephprov" validate "$b.yaml" 2>/dev/null)
                check_eq "invalid $kind $b exits 1" "$rc" 1
                check_eq "invalid $kind $b message" "$err" "$expected"
                check_eq "invalid $kind $b prints nothing on stdout" "$out" ""
                count=$((count + 1))
        done
        echo "$count invalid ${kind}s checked"
        check "invalid ${kind}s were checked" [ "$count" -ge 40 ]
}
invalid "$src/tests/data/layout-invalid" layout
invalid "$src/tests/data/playbook-invalid" playbook

err=$(cd "$src" && "$cephprov" validate no-such-file.yaml 2>&1); rc=$?
check_eq "a missing file exits 1" "$rc" 1
check_eq "a missing file message" "$err" "cephprov: error: cannot open layout 'no-such-file.yaml': No such file or directory"
err=$(cd "$src" && "$cephprov" validate playbooks 2>&1); rc=$?
check_eq "a directory exits 1" "$rc" 1
check_eq "a directory message" "$err" "cephprov: error: cannot read layout 'playbooks': is a directory"

finish
