#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli tier: the zsh completion, run by zsh's own completion system (compinit, an interactive
# zsh in a pseudo-terminal, TAB pressed: tests/cli/zsh-complete.zsh) on the built binary:
# verbs, each verb's options (those of its --help), option values, layout files and the host
# names of the layout on the command line. Skips (exit 77) only when zsh or its zpty module
# is missing; contrib/install-deps.sh installs zsh.
# usage: test-cli-completion-zsh.sh CEPHPROV SRCDIR
set -u
cephprov=$1 src=$2
case $cephprov in /*) ;; *) cephprov=$PWD/$cephprov ;; esac
. "$src/tests/lib.sh"

command -v zsh >/dev/null || skip "zsh is not installed: the zsh completion cannot be run (contrib/install-deps.sh installs it)"
zsh -fc 'zmodload zsh/zpty' 2>/dev/null || skip "zsh has no zsh/zpty module: the zsh completion cannot be run"

zsh_comp=$src/shell-completion/zsh/_cephprov
check "zsh parses the zsh completion" zsh -n "$zsh_comp"

# comp 'LINE': the matches zsh offers after typing LINE and TAB, one per line, sorted (run
# from the source tree, so relative paths are the repository's)
comp() {
        local out rc
        out=$(cd "$src" && PATH=$(dirname "$cephprov"):$PATH timeout 30 zsh -f "$src/tests/cli/zsh-complete.zsh" \
                "$src/shell-completion/zsh" "$1"); rc=$?
        [ "$rc" = 77 ] && skip "zsh's zpty does not work here"
        [ "$rc" = 0 ] || echo "(zsh-complete failed: exit $rc)"
        printf '%s\n' "$out" | sed '/^$/d' | sort -u
}
lines() { printf '%s\n' "$@" | sort; }

verbs=$("$cephprov" help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' | sort)
check_eq "zsh: the verbs are cephprov help's" "$(comp 'cephprov ')" "$verbs"
check_eq "zsh: a verb's prefix" "$(comp 'cephprov pl')" "plan"
# a verb's options: its usage line and its option lines, as the bash test reads them
verb_options() {
        "$cephprov" help "$1" | { read -r usage; grep -o -- '--[a-z][a-z-]*' <<<"$usage"; sed -n 's/^  \(--[a-z][a-z-]*\).*/\1/p'; } |
                sort -u
}
for v in $verbs; do
        want=$( (verb_options "$v"; echo --help; echo --verbose; echo --color) | sort -u)
        check_eq "zsh: the options of '$v' are its --help's" "$(comp "cephprov $v --" | sed 's/=$//')" "$want"
done

s1=layouts/scenario-1-hyperconverged.yaml
check_eq "zsh: a layout path: the *.yaml files" "$(comp 'cephprov plan layouts/')" "$(cd "$src" && lines layouts/*.yaml)"
check_eq "zsh: a playbook for run" "$(comp 'cephprov run playbooks/dr')" "$(cd "$src" && lines playbooks/dr*.yaml)"
check_eq "zsh: --hosts: the layout's hosts" "$(comp "cephprov plan $s1 --hosts ")" "$(lines node1 node2 node3)"
check_eq "zsh: --hosts=: the layout's hosts" "$(comp "cephprov status $s1 --hosts=")" "$(lines node1 node2 node3)"
check_eq "zsh: --hosts: the next of a list, without those given" "$(comp "cephprov apply $s1 --hosts node2,")" \
        "$(lines node1 node3)"
check_eq "zsh: --hosts before the layout: none to read" "$(comp 'cephprov plan --hosts ')" ""
check_eq "zsh: --hosts of run: the layout is the second file" \
        "$(comp "cephprov run playbooks/drain-node.yaml $s1 --hosts n")" "$(lines node1 node2 node3)"
check_eq "zsh: drain's HOST" "$(comp "cephprov drain $s1 ")" "$(lines node1 node2 node3)"
check_eq "zsh: destroy's HOST by its prefix" "$(comp "cephprov destroy $s1 node2")" "node2"
check_eq "zsh: an invalid layout gives no hosts" \
        "$(comp 'cephprov plan tests/data/layout-invalid/unknown-key-suggestion.yaml --hosts ')" ""
check_eq "zsh: --stage values" "$(comp "cephprov apply $s1 --stage ")" "$(lines disks osds all)"
check_eq "zsh: --color values" "$(comp 'cephprov --color=')" "$(lines auto always never)"
check_eq "zsh: lock's actions" "$(comp 'cephprov lock ')" "$(lines status break hold)"
check_eq "zsh: help's verbs" "$(comp 'cephprov help ')" "$verbs"
check_eq "zsh: help's verbs by prefix" "$(comp 'cephprov help st')" "status"
finish
