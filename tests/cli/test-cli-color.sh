#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli tier: --color=auto|always|never and NO_COLOR. Only the "error:"/"warning:" prefixes
# (and the refused/FAILED words) are coloured; auto colours a terminal only (script(1)
# gives the command a pseudo-terminal), NO_COLOR turns auto off, always wins over NO_COLOR.
# usage: test-cli-color.sh CEPHPROV SRCDIR
set -u
cephprov=$1 src=$2
case $cephprov in /*) ;; *) cephprov=$PWD/$cephprov ;; esac
. "$src/tests/lib.sh"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf 'cluster: {name: x\n' >"$tmp/bad.yaml"
esc=$'\033'
red="$esc[1;31merror$esc[0m: "

err() { "$cephprov" "$@" validate "$tmp/bad.yaml" 2>&1 >/dev/null; }
e=$(err --color=always); check_contains "--color=always colours the error prefix" "$e" "cephprov: $red"
e=$(err --color always); check_contains "--color always (two words) too" "$e" "cephprov: $red"
e=$(NO_COLOR=1 err --color=always); check_contains "--color=always wins over NO_COLOR" "$e" "cephprov: $red"
e=$(err --color=never); check "--color=never: no escape" bash -c '! grep -q "$1" <<<"$2"' _ "$esc" "$e"
check_contains "--color=never: plain prefix" "$e" "cephprov: error: "
e=$(err); check "auto into a pipe: no escape" bash -c '! grep -q "$1" <<<"$2"' _ "$esc" "$e"
e=$("$cephprov" validate "$tmp/bad.yaml" --color=always 2>&1 >/dev/null)
check_contains "--color after the verb" "$e" "cephprov: $red"
# only the word: the message itself is plain
check "the message after the prefix is plain" bash -c '[ "$(grep -o "$1" <<<"$2" | wc -l)" -eq 2 ]' _ "$esc" "$e"

if command -v script >/dev/null; then
        cmd="$(printf '%q ' "$cephprov" validate "$tmp/bad.yaml")"
        t=$(TERM=xterm script -qec "$cmd" /dev/null </dev/null)
        check_contains "auto on a terminal colours" "$t" "cephprov: $red"
        t=$(TERM=xterm NO_COLOR=1 script -qec "$cmd" /dev/null </dev/null)
        check "auto on a terminal with NO_COLOR: no escape" bash -c '! grep -q "$1" <<<"$2"' _ "$esc" "$t"
        t=$(TERM=xterm NO_COLOR= script -qec "$cmd" /dev/null </dev/null)
        check_contains "an empty NO_COLOR is unset" "$t" "cephprov: $red"
        t=$(TERM=xterm script -qec "$cmd --color=never" /dev/null </dev/null)
        check "--color=never on a terminal: no escape" bash -c '! grep -q "$1" <<<"$2"' _ "$esc" "$t"
else
        echo "note: no script(1): the terminal cases are not run"
fi

# the warning prefix too (issue 30: documented, and was plain), in validate and in what
# plan prints of the layout
yellow="$esc[1;33mwarning$esc[0m: "
w=$("$cephprov" --color=always validate "$src/tests/data/layout-valid/warnings.yaml" 2>&1 >/dev/null)
check_contains "--color=always colours validate's warning prefix" "$w" ": $yellow"
w=$("$cephprov" --color=never validate "$src/tests/data/layout-valid/warnings.yaml" 2>&1 >/dev/null)
check "--color=never: warnings plain" bash -c '! grep -q "$1" <<<"$2"' _ "$esc" "$w"
check_contains "--color=never: warning prefix plain" "$w" ": warning: "
w=$("$cephprov" --color=always plan "$src/tests/data/layout-valid/warnings.yaml" --inventory /nonexistent 2>&1 >/dev/null)
check_contains "--color=always colours the layout's warnings a verb prints" "$w" ": $yellow"

# what it does not change: results on stdout
check_eq "--color=always leaves stdout plain" "$("$cephprov" --color=always validate "$src/layouts/all-flash.yaml")" \
        "$("$cephprov" validate "$src/layouts/all-flash.yaml")"

e=$("$cephprov" --color=sometimes help 2>&1 >/dev/null); rc=$?
check_eq "bad --color exits 2" "$rc" 2
check_eq "bad --color message" "$e" "cephprov: unknown --color 'sometimes' (expected auto, always or never)"
"$cephprov" help --color >/dev/null 2>&1; rc=$?
check_eq "--color without a value exits 2" "$rc" 2
finish
