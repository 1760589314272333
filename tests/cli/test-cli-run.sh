#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli tier: `cephprov run`, `drain` and `destroy` (and apply's --take-back) refuse what they
# can tell is wrong before
# they connect anywhere: usage errors (exit 2), an invalid playbook with its file:line:col
# message, a host that is not in the layout (exit 1), and nothing on stdout for errors.
# usage: test-cli-run.sh CEPHPROV SRCDIR
set -u
cephprov=$1 src=$2
case $cephprov in /*) ;; *) cephprov=$PWD/$cephprov ;; esac
. "$src/tests/lib.sh"

layout=$src/layouts/scenario-1-hyperconverged.yaml
run() { # run EXPECTED_RC STDERR_NEEDLE DESCRIPTION ARGS...
        local rc_want=$1 needle=$2 what=$3 out err rc
        shift 3
        out=$("$cephprov" "$@" 2>/dev/null)
        err=$("$cephprov" "$@" 2>&1 >/dev/null); rc=$?
        check_eq "$what: exit $rc_want" "$rc" "$rc_want"
        check_contains "$what: says why" "$err" "$needle"
        check_eq "$what: nothing on stdout" "$out" ""
}

run 2 "expected PLAYBOOK and LAYOUT" "run without arguments" run
run 2 "--hosts H1,H2 is required" "run without --hosts" run "$src/playbooks/drain-node.yaml" "$layout"
run 2 "option '--cancel' does not apply" "run --cancel" run --cancel "$src/playbooks/drain-node.yaml" "$layout" --hosts a
(cd "$src/tests/data/playbook-invalid" &&
        run 1 "cephprov: error: $(head -n1 after-not-restore.expected)" "run of an invalid playbook" \
                run after-not-restore.yaml "$layout" --hosts node1)
# run refuses a playbook with several errors before touching anything (its first error named)
(cd "$src/tests/data/playbook-errors" &&
        run 1 "$(head -n1 several.expected)" "run of a playbook with several errors" \
                run several.yaml "$layout" --hosts node1)
run 1 "host 'nosuch' is not in the layout" "run on a host not in the layout" \
        run "$src/playbooks/drain-node.yaml" "$layout" --hosts nosuch
run 1 "No such file" "run of a missing playbook" run "$src/playbooks/nosuch.yaml" "$layout" --hosts node1

run 2 "expected LAYOUT and HOST" "drain without a host" drain "$layout"
run 2 "option '--hosts' does not apply" "drain --hosts" drain "$layout" node1 --hosts node1
run 1 "host 'nosuch' is not in the layout" "drain of a host not in the layout" drain "$layout" nosuch
run 1 "host 'nosuch' is not in the layout" "drain --cancel of a host not in the layout" drain "$layout" nosuch --cancel
run 2 "expected LAYOUT and HOST" "destroy without a host" destroy "$layout"
run 2 "option '--cancel' does not apply" "destroy --cancel" destroy "$layout" node1 --cancel
run 2 "option '--hosts' does not apply" "destroy --hosts" destroy "$layout" node1 --hosts node1
run 1 "host 'nosuch' is not in the layout" "destroy of a host not in the layout" destroy "$layout" nosuch
# with --json, a failure before anything ran still answers in JSON on stdout (issue 30)
for verb in drain destroy; do
        out=$("$cephprov" $verb "$layout" nosuch --json --dry-run 2>/dev/null); rc=$?
        check_eq "$verb --json of a host not in the layout: exit 1" "$rc" 1
        check "$verb --json of a host not in the layout: a JSON error object on stdout" python3 -c '
import json, sys
j = json.loads(sys.argv[1])
assert list(j) == ["format", "kind", "error"] and "nosuch" in j["error"]["message"], j' "$out"
done
run 1 "host 'nosuch' given with --take-back is not in layout" "apply --take-back of a host not in the layout" \
        apply "$layout" --take-back nosuch
run 2 "--take-back needs a comma-separated list" "apply --take-back of nothing" apply "$layout" --take-back ,
run 2 "option '--take-back' does not apply" "plan --take-back" plan "$layout" --take-back node1
out=$("$cephprov" help destroy); rc=$?
check_eq "help destroy exits 0" "$rc" 0
check_contains "help destroy says what is kept" "$out" "other partitions and disks are left as they are"

out=$("$cephprov" help drain); rc=$?
check_eq "help drain exits 0" "$rc" 0
check_contains "help drain says how to cancel" "$out" "--cancel"

finish
