#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli tier: the man pages built by meson render without a warning, and say what the program
# and the docs say: every verb of `cephprov help` and every option of each verb's --help in
# cephprov(8), with the exit codes; every key of docs/layout.md's tables in
# cephprov-layout(5); every top-level and hosts key and every step of docs/playbooks.md in
# cephprov-playbook(5); the example layout and playbook of the pages validate.
# usage: test-cli-man.sh CEPHPROV SRCDIR MANDIR
set -u
cephprov=$1 src=$2 mandir=$3
case $cephprov in /*) ;; *) cephprov=$PWD/$cephprov ;; esac
. "$src/tests/lib.sh"
command -v groff >/dev/null || skip "groff is not installed"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# one line per paragraph, no hyphenation, plain ASCII: what the checks grep
render() { groff -man -Tascii -P-cbu -rLL=1000n -rHY=0 "$1" 2>/dev/null; }

for page in cephprov.8 cephprov-layout.5 cephprov-playbook.5; do
        f=$mandir/$page
        check "$page was built" [ -s "$f" ]
        warnings=$(groff -man -Tutf8 -ww -z "$f" 2>&1); rc=$?
        check_eq "$page renders (groff -man)" "$rc" 0
        check_eq "$page renders without a warning" "$warnings" ""
        if command -v man >/dev/null; then
                out=$(MANWIDTH=80 man -l "$f" 2>&1); rc=$?
                check_eq "man -l $page exits 0" "$rc" 0
                check "man -l $page has NAME and SEE ALSO" bash -c 'grep -q "^NAME" <<<"$1" && grep -q "^SEE ALSO" <<<"$1"' _ "$out"
        fi
        check "$page has no unsubstituted @VAR@" bash -c '! grep -q "@[A-Z]*@" "$1"' _ "$f"
        check "$page names the version" grep -q "cephprov $("$cephprov" --version | sed -n '1s/^cephprov //p')" "$f"
done

man8=$(render "$mandir/cephprov.8")
commands=$(sed -n '/^COMMANDS/,/^OPTIONS/p' <<<"$man8")
verbs=$("$cephprov" help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
check "cephprov help lists verbs" [ "$(wc -l <<<"$verbs")" -ge 10 ]
for v in $verbs; do
        check "cephprov(8) describes the verb '$v' under COMMANDS" grep -Eq "^       $v( |\$)" <<<"$commands"
        usage=$("$cephprov" help "$v" | sed -n '1{s/^usage: cephprov //;s/ *$//;p}')
        # the synopsis is the tag line, or starts it when the tag is short enough to share it
        check "cephprov(8) gives '$v' its --help synopsis" bash -c \
                'grep -Fqx "       $1" <<<"$2" || grep -q "^       $1  " <<<"$2"' _ "$usage" "$commands"
        for o in $("$cephprov" help "$v" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
                check "cephprov(8) has $v's option $o" grep -q -- "$o" <<<"$man8"
        done
done
exits=$(sed -n '/^EXIT STATUS/,/^ENVIRONMENT/p' <<<"$man8")
for code in 0 1 2 10; do
        check "cephprov(8) lists exit status $code" grep -Eq "^       $code( |$)" <<<"$exits"
done
for e in $("$cephprov" help lock | grep -o 'CEPHPROV_[A-Z_]*' | sort -u) NO_COLOR; do
        check "cephprov(8) documents $e" grep -q "$e" <<<"$man8"
done
check "cephprov(8) has the global --color" grep -q -- "--color=WHEN" <<<"$man8"
# issue 30: --parallel's range is the binary's (and the layout's osd.parallel), 1 to 64
check "cephprov(8) gives --parallel the range 1 to 64" grep -q "OSD creations at once per host, 1 to 64" <<<"$man8"
check "... which the binary takes: 64 passes the options, 65 is a usage error" bash -c \
        '"$1" apply /nonexistent --parallel 65 2>&1 | grep -q "from 1 to 64" && ! "$1" apply /nonexistent --parallel 64 2>&1 | grep -q -- "--parallel"' _ "$cephprov"
check "cephprov(8) says what --json prints (format, kind, the error document)" grep -q "document of kind error" <<<"$man8"

# every key of the docs' tables: "| `key` |" or "| `a`, `b` |" in the first column
doc_keys() { sed -n 's/^| \(`[^|]*\) |.*/\1/p' "$1" | grep -o '`[a-z_][a-z_0-9]*`' | tr -d '`' | sort -u; }
man5=$(render "$mandir/cephprov-layout.5")
n=0
for k in $(doc_keys "$src/docs/layout.md"); do
        # the value-types table's first column is prose, not keys
        case $k in integer|boolean|size|share|duration|glob) continue ;; esac
        check "cephprov-layout(5) has docs/layout.md's key '$k'" grep -Eq "(^|[^a-z_])$k([^a-z_]|\$)" <<<"$man5"
        n=$((n + 1))
done
check "docs/layout.md's keys were found" [ "$n" -ge 40 ]

pb5=$(render "$mandir/cephprov-playbook.5")
keys=$(sed -n '/^## Top level/,/^## Steps/p' "$src/docs/playbooks.md" > "$tmp/pb-top.md"; doc_keys "$tmp/pb-top.md")
check "docs/playbooks.md's top-level and hosts keys were found" [ "$(wc -w <<<"$keys")" -ge 12 ]
for k in $keys; do
        check "cephprov-playbook(5) has docs/playbooks.md's key '$k'" grep -Eq "(^|[^a-z_])$k([^a-z_]|\$)" <<<"$pb5"
done
steps=$(sed -n 's/^### `\([a-z-]*\)`$/\1/p' "$src/docs/playbooks.md")
check "docs/playbooks.md's steps were found" [ "$(wc -w <<<"$steps")" -ge 20 ]
for s in $steps; do
        check "cephprov-playbook(5) describes the step '$s'" grep -Eq "^       $s( |\$)" <<<"$pb5"
done

# the pages' examples (.EX ... .EE) are a valid layout and a valid playbook
example() { sed -n '/^\.SH EXAMPLE/,/^\.SH/{/^\.EX/,/^\.EE/{/^\.E[XE]/d;p}}' "$1" |
        sed -e 's/\\-/-/g' -e 's/\\(dq/"/g' -e "s/\\\\(aq/'/g"; }
example "$mandir/cephprov-layout.5" >"$tmp/layout.yaml"
out=$("$cephprov" validate "$tmp/layout.yaml" 2>&1); rc=$?
check_eq "cephprov-layout(5)'s example validates ($out)" "$rc" 0
example "$mandir/cephprov-playbook.5" >"$tmp/playbook.yaml"
out=$("$cephprov" validate "$tmp/playbook.yaml" 2>&1); rc=$?
check_eq "cephprov-playbook(5)'s example validates ($out)" "$rc" 0
check_contains "cephprov-playbook(5)'s example is a playbook" "$out" "valid: playbook 'drain-node'"
finish
