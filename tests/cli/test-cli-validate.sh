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

# The identity files the layouts name must exist (validate checks them): a home of our own
# that has them.
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
mkdir -p "$home/.ssh"
touch "$home/.ssh/id_ed25519" "$home/.ssh/node2"
export HOME=$home

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

# Every error of a file, in file order, and the warnings among them; exit 1, nothing on stdout.
dir=$src/tests/data/layout-errors
err=$(cd "$dir" && "$cephprov" validate several.yaml 2>&1 >/dev/null); rc=$?
out=$(cd "$dir" && "$cephprov" validate several.yaml 2>/dev/null)
check_eq "several errors: exit 1" "$rc" 1
check_eq "several errors: every one, in file order" "$err" "$(cat "$dir/several.expected")"
check_eq "several errors: nothing on stdout" "$out" ""
err=$(cd "$dir" && "$cephprov" validate no-cascade.yaml 2>&1 >/dev/null); rc=$?
check_eq "no cascade: exit 1" "$rc" 1
check_eq "no cascade: a broken profiles section is not also an unknown profile" "$err" "$(cat "$dir/no-cascade.expected")"
err=$(cd "$dir" && "$cephprov" validate no-cascade-allow.yaml 2>&1 >/dev/null); rc=$?
check_eq "no cascade (allow): exit 1" "$rc" 1
check_eq "no cascade: a bad allow entry is not also 'no allow-list' for each host" "$err" "$(cat "$dir/no-cascade-allow.expected")"

# A playbook with several mistakes: every one, in file order, as for a layout.
pdir=$src/tests/data/playbook-errors
err=$(cd "$pdir" && "$cephprov" validate several.yaml 2>&1 >/dev/null); rc=$?
check_eq "playbook with several errors: exit 1" "$rc" 1
check_eq "playbook with several errors: every one, in file order" "$err" "$(cat "$pdir/several.expected")"
check_eq "playbook with several errors: nothing on stdout" "$(cd "$pdir" && "$cephprov" validate several.yaml 2>/dev/null)" ""
got=$(cd "$pdir" && "$cephprov" validate --json several.yaml 2>/dev/null | python3 -c 'import json, sys; d = json.load(sys.stdin)
print(d["format"], len(d["errors"]), d["error"] == d["errors"][0], [(e["line"], e["column"]) for e in d["errors"]])')
check_eq "--json playbook with several errors: all of them, in file order" "$got" \
        "1 8 True [(3, 14), (6, 10), (8, 5), (11, 46), (11, 51), (14, 11), (18, 11), (19, 1)]"
got=$(cd "$pdir" && "$cephprov" validate - <several.yaml 2>&1 >/dev/null | tail -n1)
check_eq "playbook on stdin with several errors: counted" "$got" "cephprov: error: 8 errors in playbook '<stdin>'"

# --json failures: a JSON error object on stdout, the messages still on stderr.
json=$(cd "$dir" && "$cephprov" validate --json several.yaml 2>/dev/null); rc=$?
err=$(cd "$dir" && "$cephprov" validate --json several.yaml 2>&1 >/dev/null)
check_eq "--json several errors: exit 1" "$rc" 1
check_eq "--json several errors: stderr as without --json" "$err" "$(cat "$dir/several.expected")"
check_eq "--json several errors: format, first error, all errors, warnings" \
        "$(python3 -c 'import json, sys; d = json.load(sys.stdin); e = d["error"]
print(d["format"], e["file"], e["line"], e["column"], e["message"], len(d["errors"]), len(d["warnings"]), d["errors"][0] == e)' <<<"$json")" \
        "1 several.yaml 4 16 invalid value 'bluestor' for 'objectstore' (expected one of: bluestore, filestore) 10 1 True"
for b in size-no-unit address-with-port port-quoted yaml-syntax-error; do
        exp=$(head -n1 "$src/tests/data/layout-invalid/$b.expected")
        got=$(cd "$src/tests/data/layout-invalid" && "$cephprov" validate --json "$b.yaml" 2>/dev/null |
              python3 -c 'import json, sys; e = json.load(sys.stdin)["error"]; print("%s:%d:%d: %s" % (e["file"], e["line"], e["column"], e["message"]))')
        check_eq "--json $b: the error object says what stderr says" "$got" "$exp"
done
got=$(cd "$src" && "$cephprov" validate --json no-such-file.yaml 2>/dev/null | python3 -c 'import json, sys; d = json.load(sys.stdin); e = d["error"]
print(d["format"], d["kind"], e["file"], e.get("line", "absent"), e.get("column", "absent"), e["message"])')
check_eq "--json missing file: an error without a position (line and column left out, not null)" "$got" \
        "1 error no-such-file.yaml absent absent cannot open layout 'no-such-file.yaml': No such file or directory"
pb=$(ls "$src"/tests/data/playbook-invalid/*.yaml | head -n1)
got=$(cd "$(dirname "$pb")" && "$cephprov" validate --json "$(basename "$pb")" 2>/dev/null | python3 -c 'import json, sys; d = json.load(sys.stdin); e = d["error"]
print("%s:%d:%d: %s" % (e["file"], e["line"], e["column"], e["message"]))')
check_eq "--json invalid playbook: the error object" "$got" "$(head -n1 "${pb%.yaml}.expected")"

# --json success: the format version first, and the warnings.
f=$src/tests/data/layout-valid/warnings.yaml
got=$("$cephprov" validate --json "$f" 2>/dev/null | python3 -c 'import json, sys; d = json.load(sys.stdin)
print(list(d)[0], d["format"], [(w["line"], w["column"]) for w in d["warnings"]])')
check_eq "--json layout: format 1 first, warnings with positions" "$got" "format 1 [(11, 14), (12, 15), (15, 26), (23, 14)]"
got=$("$cephprov" validate --json "$src/playbooks/drain-node.yaml" | json_field format)
check_eq "--json playbook: format 1" "$got" 1
got=$("$cephprov" validate --json "$src/playbooks/drain-node.yaml" --hosts node3 | json_field format)
check_eq "--json playbook plan: format 1" "$got" 1

# Warnings: FILE:LINE:COL: warning: on stderr, exit status unchanged.
out=$("$cephprov" validate "$f" 2>/dev/null); rc=$?
err=$("$cephprov" validate "$f" 2>&1 >/dev/null)
check_eq "warnings: exit 0" "$rc" 0
check_eq "warnings: counted in the summary" "$out" \
        "$f: valid: cluster 'ceph', 6 hosts (5 with managed disks), 2 profiles; 4 warnings"
check_contains "warnings: sequential_cutoff" "$err" \
        "$f:15:26: warning: sequential_cutoff 4 MiB is not 0: bcache sends sequential writes of 4 MiB and more around the cache, and Ceph writes whole 4 MiB objects: write 0"
check_contains "warnings: a small WAL" "$err" "$f:12:15: warning: wal_size 64 MiB is below 1 GiB"
check_eq "warnings: one line each" "$(grep -c ': warning: ' <<<"$err")" 4

# plan prints the layout's warnings too, on stderr, and plans as before.
tmp=$(mktemp -d)
sed 's/sequential_cutoff: 0/sequential_cutoff: 4M/' "$src/layouts/scenario-1-hyperconverged.yaml" >"$tmp/s1.yaml"
line=$(grep -n 'sequential_cutoff: 4M' "$tmp/s1.yaml" | cut -d: -f1)
out=$("$cephprov" plan "$tmp/s1.yaml" --inventory "$src/tests/data/inventory-scenario-1-hyperconverged.json" 2>"$tmp/err"); rc=$?
check_eq "plan with a warning: exit 0" "$rc" 0
check_contains "plan with a warning: plans" "$out" "host node1: "
check_eq "plan with a warning: the warning" "$(cat "$tmp/err")" \
        "$tmp/s1.yaml:$line:26: warning: sequential_cutoff 4 MiB is not 0: bcache sends sequential writes of 4 MiB and more around the cache, and Ceph writes whole 4 MiB objects: write 0"
rm -rf "$tmp"

# validate - reads stdin, named <stdin> in messages.
out=$("$cephprov" validate - <"$src/tests/data/layout-valid/minimal.yaml"); rc=$?
check_eq "stdin: exit 0" "$rc" 0
check_eq "stdin: named <stdin>" "$out" "<stdin>: valid: cluster 'ceph', 1 host (0 with managed disks), 0 profiles"
err=$("$cephprov" validate - <"$src/tests/data/layout-invalid/size-no-unit.yaml" 2>&1); rc=$?
check_eq "stdin: invalid exits 1" "$rc" 1
check_eq "stdin: the message names <stdin>" "$err" "cephprov: error: <stdin>:14:14: db_size: 30 has no unit: write 30G (or 30GiB), sizes need a unit"
out=$("$cephprov" validate - <"$src/playbooks/drain-node.yaml"); rc=$?
check_eq "stdin: a playbook, exit 0" "$rc" 0
check_contains "stdin: a playbook" "$out" "<stdin>: valid: playbook 'drain-node', "
out=$("$cephprov" validate - </dev/null 2>&1); rc=$?
check_eq "stdin: empty exits 1" "$rc" 1
check_eq "stdin: empty" "$out" "cephprov: error: <stdin>:1:1: empty layout (expected a mapping with 'cluster' and 'hosts')"

# Identity files: checked where they are given, once for all the hosts that inherit them.
idl() { # idl IDENTITY: a layout whose ssh section names it, two hosts
        printf 'cluster:\n  admin_host: mon1\nssh:\n  identity: %s\nhosts:\n  - name: mon1\n  - name: node1\n' "$1"
}
# offline unless asked: a lint in CI has no SSH key
out=$(idl '~/.ssh/id_missing' | "$cephprov" validate - 2>&1); rc=$?
check_eq "identity missing, without --check-hosts: exit 0 (validate reads nothing but the file)" "$rc" 0
check_eq "... and says nothing of it" "$out" "<stdin>: valid: cluster 'ceph', 2 hosts (0 with managed disks), 0 profiles"
err=$(idl '~/.ssh/id_missing' | "$cephprov" validate - --check-hosts 2>&1); rc=$?
check_eq "identity missing: exit 1" "$rc" 1
check_eq "identity missing: named with its line, once" "$err" \
        "cephprov: error: <stdin>:4:13: identity file '~/.ssh/id_missing' ($home/.ssh/id_missing) does not exist: No such file or directory"
err=$(idl "$home/nope" | "$cephprov" validate - --check-hosts 2>&1); rc=$?
check_eq "identity missing (absolute): exit 1" "$rc" 1
check_eq "identity missing (absolute)" "$err" "cephprov: error: <stdin>:4:13: identity file '$home/nope' does not exist: No such file or directory"
out=$(idl '~/.ssh/id_ed25519' | "$cephprov" validate - --check-hosts 2>&1); rc=$?
check_eq "identity present: exit 0" "$rc" 0
err=$(idl '~bob/.ssh/id' | "$cephprov" validate - 2>&1); rc=$?
check_eq "identity ~user: exit 1" "$rc" 1
check_eq "identity ~user: refused (the transport expands only ~/)" "$err" \
        "cephprov: error: <stdin>:4:13: identity '~bob/.ssh/id': cephprov expands only '~/' (the home of the user running it): write the full path"
err=$(idl '~/.ssh/id_ed25519' | env -u HOME "$cephprov" validate - --check-hosts 2>&1 >/dev/null); rc=$?
check_eq "identity without HOME: exit 0" "$rc" 0
check_eq "identity without HOME: a warning, not checked" "$err" \
        "<stdin>:4:13: warning: identity '~/.ssh/id_ed25519' not checked: HOME is not set, so '~' cannot be resolved here"

err=$(cd "$src" && "$cephprov" validate no-such-file.yaml 2>&1); rc=$?
check_eq "a missing file exits 1" "$rc" 1
check_eq "a missing file message" "$err" "cephprov: error: cannot open layout 'no-such-file.yaml': No such file or directory"
err=$(cd "$src" && "$cephprov" validate playbooks 2>&1); rc=$?
check_eq "a directory exits 1" "$rc" 1
check_eq "a directory message" "$err" "cephprov: error: cannot read layout 'playbooks': is a directory"

# the resolved layout says the defaults as they apply (issue 30: agent_path was null against
# its documented default, unset bounds and counts were 0)
got=$("$cephprov" validate --json "$src/layouts/all-flash.yaml" | python3 -c 'import json, sys
d = json.load(sys.stdin)
sel = d["profiles"][0]["data"]
print(d["ssh"]["agent_path"], d["hosts"][0]["ssh"]["agent_path"], sel["size_min"], sel["size_max"], sel["limit"], sel["count"])')
check_eq "validate --json: agent_path's default, unset bounds null" "$got" \
        "/usr/local/lib/cephprov/cephprov /usr/local/lib/cephprov/cephprov None None None None"

# validate is linear in hosts (issue 30: 200,000 hosts took 347 s, 8,000 hosts 0.28 s: every
# host was compared with every earlier one for its name and address); the bound is 60 s,
# far above the ~1 s it takes, so that only a return of the quadratic pass fails it
big=$(mktemp "${TMPDIR:-/tmp}/cephprov-200k.XXXXXX.yaml")
python3 -c '
print("cluster:\n  admin_host: h0\nprofiles:\n  p:\n    allow: [/dev/sdb]\n    data:\n      rotational: true\nhosts:")
for i in range(200000): print("  - name: h%d\n    profile: p" % i)' >"$big"
out=$(timeout 60 "$cephprov" validate "$big" 2>&1); rc=$?
check_eq "200,000 hosts validated within 60 s: exit 0" "$rc" 0
check_contains "200,000 hosts: all of them" "$out" "valid: cluster 'ceph', 200000 hosts (200000 with managed disks), 1 profile"
printf '  - name: h17\n    profile: p\n' >>"$big"
out=$(timeout 60 "$cephprov" validate "$big" 2>&1); rc=$?
check_eq "200,001 hosts, one name twice: exit 1" "$rc" 1
check_contains "... the duplicate named at its line, with the first" "$out" \
        "$big:400009:11: duplicate host name 'h17' (first given at line 43, column 5)"
rm -f "$big"

finish
