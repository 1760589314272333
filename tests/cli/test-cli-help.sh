#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli tier: help for cephprov and every verb, version, and the usage errors (exit 2, one
# message naming what was wrong).
# usage: test-cli-help.sh CEPHPROV SRCDIR
set -u
cephprov=$1 src=$2
case $cephprov in /*) ;; *) cephprov=$PWD/$cephprov ;; esac
. "$src/tests/lib.sh"

out=$("$cephprov" help); rc=$?
check_eq "help exits 0" "$rc" 0
check_contains "help names the program" "$out" "usage: cephprov [--color=auto|always|never] COMMAND [ARGS...]"
# The verbs listed by help; the ones that must be there are checked by name.
verbs=$(printf '%s\n' "$out" | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
for v in help version validate plan inventory apply status lock agent; do
        check "help lists '$v'" grep -qx "$v" <<<"$verbs"
done
check_eq "--help is help" "$("$cephprov" --help)" "$out"
check_eq "-h is help" "$("$cephprov" -h)" "$out"
none=$("$cephprov" 2>/dev/null); rc=$?
check_eq "no command exits 2" "$rc" 2
check_eq "no command prints nothing on stdout" "$none" ""
check_eq "no command prints the usage on stderr" "$("$cephprov" 2>&1 >/dev/null)" "$out"
# the exit codes, listed in --help, with the one plan --detailed-exitcode adds
for code in "0   success" "1   failure" "2   usage error" "10  plan --detailed-exitcode: the plan has steps"; do
        check_contains "help lists exit status '$code'" "$out" "  $code"
done

for v in $verbs; do
        h=$("$cephprov" help "$v"); rc=$?
        check_eq "help $v exits 0" "$rc" 0
        check "help $v starts with its usage" grep -q "^usage: cephprov $v" <<<"$(head -n1 <<<"$h")"
        check_contains "help $v lists --help" "$h" "-h, --help"
        check_eq "$v --help is help $v" "$("$cephprov" "$v" --help)" "$h"
done
check_contains "a destructive verb offers --dry-run" "$("$cephprov" help apply)" "--dry-run"
check_contains "a destructive verb offers --yes" "$("$cephprov" help apply)" "--yes"
check_contains "validate names playbooks" "$("$cephprov" help validate)" "usage: cephprov validate LAYOUT|PLAYBOOK"

v=$("$cephprov" version); rc=$?
check_eq "version exits 0" "$rc" 0
check "version is 'cephprov X.Y.Z'" grep -Eqx 'cephprov [0-9]+\.[0-9]+\.[0-9]+' <<<"$(sed -n 1p <<<"$v")"
# the build hash is the one the agent handshake compares: the agent's hello says it too
build=$(sed -n 's/^build //p' <<<"$v")
check "version's build is 64 hex digits" grep -Eqx '[0-9a-f]{64}' <<<"$build"
check_eq "version's build is the binary's sha256" "$build" "$(sha256sum "$cephprov" | cut -d' ' -f1)"
hello=$("$cephprov" agent </dev/null | head -n1)
check_contains "version's build is the agent hello's" "$hello" "\"build\":\"$build\""
check_eq "--version is version" "$("$cephprov" --version)" "$v"
check_eq "-V is version" "$("$cephprov" -V)" "$v"

# usage errors: exit 2 and the message
err=$("$cephprov" frobnicate 2>&1 >/dev/null); rc=$?
check_eq "unknown command exits 2" "$rc" 2
check_eq "unknown command message" "$err" "cephprov: error: unknown command 'frobnicate' (see 'cephprov help')"
err=$("$cephprov" help frobnicate 2>&1 >/dev/null); rc=$?
check_eq "help of an unknown command exits 2" "$rc" 2
check_eq "help of an unknown command message" "$err" "cephprov: error: unknown command 'frobnicate' (see 'cephprov help')"

layout=$src/layouts/all-flash.yaml
usage_error() { # usage_error DESCRIPTION EXPECTED-FIRST-LINE ARGS...
        local what=$1 expected=$2 err rc; shift 2
        err=$("$cephprov" "$@" 2>&1 >/dev/null); rc=$?
        check_eq "$what exits 2" "$rc" 2
        check_eq "$what message" "$(head -n1 <<<"$err")" "$expected"
        check_contains "$what shows the usage" "$err" "usage: cephprov $1 "
}
usage_error "unknown option" "cephprov validate: unknown option '--frob'" validate --frob "$layout"
usage_error "option of another verb" "cephprov validate: option '--inventory' does not apply to this command" \
        validate "$layout" --inventory x.json
usage_error "short option of another verb" "cephprov validate: option '-y' does not apply to this command" \
        validate -y "$layout"
usage_error "option without its argument" "cephprov plan: option '--inventory' needs an argument" plan "$layout" --inventory
usage_error "no file" "cephprov validate: expected one layout or playbook file" validate
usage_error "two files" "cephprov validate: expected one layout or playbook file" validate "$layout" "$layout"
usage_error "plan without a layout" "cephprov plan: expected one layout file" plan
usage_error "bad --stage" "cephprov apply: unknown stage 'everything' (expected disks, osds or all)" \
        apply "$layout" --stage everything
usage_error "bad --parallel" "cephprov apply: --parallel needs a number from 1 to 64, not '0'" apply "$layout" --parallel 0
usage_error "empty --hosts" "cephprov plan: --hosts needs a comma-separated list of host names, not ','" plan "$layout" --hosts ,
usage_error "help of two commands" "cephprov help: one command at a time, not 'apply' too" help plan apply
usage_error "version with an argument" "cephprov version: takes no argument, not '--frob'" version --frob

# issue 30: what an operator typed wrong is named, with the nearest right thing
err=$("$cephprov" aply "$layout" 2>&1); rc=$?
check_eq "a misspelt command exits 2" "$rc" 2
check_eq "a misspelt command: did you mean" "$err" "cephprov: error: unknown command 'aply' (did you mean 'apply'? see 'cephprov help')"
err=$("$cephprov" frobnicate 2>&1)
check_eq "an unknown command far from any: no guess" "$err" "cephprov: error: unknown command 'frobnicate' (see 'cephprov help')"
# -v before the command means what it means after it
check_eq "-v before the command" "$("$cephprov" -v version)" "$("$cephprov" version)"
err=$("$cephprov" -v validate "$layout" -v 2>&1 >/dev/null); rc=$?
check_eq "-v before and after the command: exit 0" "$rc" 0
# a destructive verb whose help has its own --dry-run and --yes lines lists each once
for v in drain destroy run apply; do
        h=$("$cephprov" help "$v")
        check_eq "help $v lists --dry-run once" "$(grep -c '^  --dry-run ' <<<"$h")" 1
        check "help $v lists --yes at most once" test "$(grep -c '^  --yes ' <<<"$h")" -le 1
done
check_contains "help's footer names every man page" "$("$cephprov" help)" \
        "man cephprov(8), cephprov-layout(5), cephprov-playbook(5)."
usage_error "--hosts on a layout's validate" \
        "cephprov validate: --hosts applies to a playbook, and '$layout' is a layout" validate "$layout" --hosts a

# usage errors with --json: the message on stderr as above, and the JSON error object the
# other --json failures print on stdout (a program reading stdout gets JSON, exit 2)
json_usage_error() { # json_usage_error DESCRIPTION EXPECTED-MESSAGE-START ARGS...
        local what=$1 expected=$2 out err rc; shift 2
        out=$("$cephprov" "$@" 2>"$tmp_err"); rc=$?
        err=$(cat "$tmp_err")
        check_eq "$what with --json exits 2" "$rc" 2
        check_eq "$what with --json: the message on stderr" "$(head -n1 <<<"$err")" "$expected"
        check_contains "$what with --json: the usage on stderr" "$err" "usage: cephprov $1 "
        check "$what with --json: a JSON error object on stdout" python3 -c '
import json, sys
j = json.loads(sys.argv[1])
assert list(j) == ["format", "kind", "error"] and j["format"] == 1 and j["kind"] == "error", j
m = j["error"]["message"]
assert m.startswith(sys.argv[2] + " (usage: cephprov " + sys.argv[3] + " "), m
' "$out" "$expected" "$1"
}
tmp_err=$(mktemp "${TMPDIR:-/tmp}/cephprov-cli-help.XXXXXX")
trap 'rm -f "$tmp_err"' EXIT
if command -v python3 >/dev/null; then
        json_usage_error "unknown option" "cephprov plan: unknown option '--frob'" plan "$layout" --frob --json
        json_usage_error "unknown option before --json" "cephprov validate: unknown option '--frob'" validate --frob --json "$layout"
        json_usage_error "option without its argument" "cephprov plan: option '--inventory' needs an argument" \
                plan --json "$layout" --inventory
        json_usage_error "plan without a layout" "cephprov plan: expected one layout file" plan --json
        json_usage_error "status with two layouts" "cephprov status: expected one layout file" status --json "$layout" "$layout"
        json_usage_error "bad --parallel" "cephprov apply: --parallel needs a number from 1 to 64, not '0'" \
                apply --json "$layout" --parallel 0
        # an unknown command with --json: the same document (exit 2), with the nearest command
        out=$("$cephprov" plann "$layout" --json 2>/dev/null); rc=$?
        check_eq "unknown command with --json exits 2" "$rc" 2
        check "unknown command with --json: the error document on stdout" python3 -c '
import json, sys
j = json.loads(sys.argv[1])
assert list(j) == ["format", "kind", "error"] and j["kind"] == "error", j
assert j["error"]["message"] == "unknown command \x27plann\x27 (did you mean \x27plan\x27? see \x27cephprov help\x27)", j
' "$out"
else
        echo "SKIP: python3 missing (usage errors with --json)"
fi
out=$("$cephprov" plan "$layout" --frob 2>/dev/null)
check_eq "a usage error without --json prints nothing on stdout" "$out" ""
out=$("$cephprov" help plan --json 2>/dev/null)
check "--json on a verb without it: no JSON object (--json is the mistake there)" bash -c '! grep -q "\"error\"" <<<"$1"' _ "$out"
out=$("$cephprov" lock status "$layout" --frob --json 2>/dev/null); rc=$?
check_eq "lock: a usage error with --json exits 2" "$rc" 2
check_contains "lock: a usage error with --json prints JSON" "$out" '"message": "cephprov lock: '

finish
