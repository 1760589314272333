#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli tier: the bash completion, sourced and called as bash calls it (COMP_WORDS, COMP_CWORD):
# verbs, each verb's options, option values, *.yaml and *.json files, the host names of the
# layout on the command line; its verb and option lists are the ones `cephprov help` and each
# verb's --help give. The zsh completion's text is checked for the same verbs and options;
# zsh itself runs it in cli-completion-zsh (test-cli-completion-zsh.sh).
# usage: test-cli-completion.sh CEPHPROV SRCDIR
set -u
cephprov=$1 src=$2
case $cephprov in /*) ;; *) cephprov=$PWD/$cephprov ;; esac
. "$src/tests/lib.sh"

bash_comp=$src/shell-completion/bash/cephprov
zsh_comp=$src/shell-completion/zsh/_cephprov
complete() { :; } # the script registers itself; nothing to register in a test
compopt() { :; }  # only works inside a real completion
. "$bash_comp"
unset -f complete

# complete WORD... : COMPREPLY for the last word, one per line, sorted (run from the source
# tree, so relative paths are the repository's; the cephprov on PATH is the built one)
comp() {
        COMP_WORDS=("$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMPREPLY=()
        (cd "$src" && PATH=$(dirname "$cephprov"):$PATH _cephprov; printf '%s\n' "${COMPREPLY[@]}") | sed '/^$/d' | sort
}
lines() { printf '%s\n' "$@" | sort; }

verbs=$("$cephprov" help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' | sort)
check_eq "verbs are cephprov help's" "$(comp cephprov "")" "$verbs"
check_eq "a verb's prefix" "$(comp cephprov pl)" "plan"
check_eq "global options" "$(comp cephprov --)" "$(lines --help --version --color= --verbose)"
# a verb's options: its usage line and its option lines (not options its prose mentions)
verb_options() {
        "$cephprov" help "$1" | { read -r usage; grep -o -- '--[a-z][a-z-]*' <<<"$usage"; sed -n 's/^  \(--[a-z][a-z-]*\).*/\1/p'; } |
                grep -vx -e --help -e --verbose | sort -u
}
# the zsh completion's text for a verb: its case arm with the option arrays it uses expanded
zsh_arm() {
        local arm arr
        arm=$(sed -n "/^        $1)/,/;;\$/p" "$zsh_comp")
        for arr in $(grep -o '\$[a-z]*' <<<"$arm" | tr -d '$' | sort -u); do
                arm+=$'\n'$(sed -n "/^        \(local -a \)\?$arr=(/,/)\$/p" "$zsh_comp")
        done
        printf '%s\n' "$arm"
}
for v in $verbs; do
        want=$( (verb_options "$v"; echo --help; echo --verbose; echo --color=) | sort -u)
        check_eq "options of '$v' are its --help's" "$(comp cephprov "$v" --)" "$want"
        check "zsh completion knows the verb '$v'" grep -q "^                '$v:" "$zsh_comp"
        arm=$(zsh_arm "$v")
        for o in $(verb_options "$v") --help --verbose --color; do
                check "zsh completion has $v's option $o" grep -Eq -- "$o(\[|=|\}|,)" <<<"$arm"
        done
done

s1=layouts/scenario-1-hyperconverged.yaml
check_eq "a layout path: the *.yaml files" "$(comp cephprov plan layouts/)" "$(cd "$src" && lines layouts/*.yaml)"
check_eq "a layout path: directories to descend" "$(comp cephprov validate tests/data/layout-v)" "tests/data/layout-valid/"
check_eq "a playbook path for run" "$(comp cephprov run playbooks/d)" "$(cd "$src" && lines playbooks/d*.yaml)"
check_eq "an inventory: *.json" "$(comp cephprov plan $s1 --inventory tests/data/inventory-scenario-1)" \
        "$(cd "$src" && lines tests/data/inventory-scenario-1*.json)"
check_eq "--hosts: the layout's hosts" "$(comp cephprov plan $s1 --hosts "")" "$(lines node1 node2 node3)"
check_eq "--hosts: the next of a list" "$(comp cephprov apply $s1 --hosts node2,)" "$(lines node2,node1 node2,node3)"
check_eq "--hosts: a prefix" "$(comp cephprov status --json $s1 --hosts node3,node)" "$(lines node3,node1 node3,node2)"
check_eq "--hosts before the layout: none to read" "$(comp cephprov plan --hosts "")" ""
check_eq "--hosts of run: the layout is the second file" \
        "$(comp cephprov run playbooks/drain-node.yaml $s1 --hosts n)" "$(lines node1 node2 node3)"
check_eq "drain's HOST" "$(comp cephprov drain $s1 "")" "$(lines node1 node2 node3)"
check_eq "drain's HOST after an option" "$(comp cephprov drain --dry-run $s1 node2)" "node2"
check_eq "an invalid layout gives no hosts" "$(comp cephprov plan tests/data/layout-invalid/unknown-key-suggestion.yaml --hosts "")" ""
check_eq "--stage values" "$(comp cephprov apply $s1 --stage "")" "$(lines disks osds all)"
check_eq "--color values" "$(comp cephprov --color=)" "$(lines --color=auto --color=always --color=never)"
check_eq "--color values, '=' a word of its own (bash's COMP_WORDBREAKS)" "$(comp cephprov --color = a)" "$(lines auto always)"
check_eq "--color=always then a verb" "$(comp cephprov --color = always va)" "validate"
check_eq "lock's actions" "$(comp cephprov lock "")" "$(lines status break hold)"
check_eq "lock's layout" "$(comp cephprov lock status layouts/all)" "layouts/all-flash.yaml"
check_eq "help's verbs" "$(comp cephprov help st)" "status"

check "bash parses the bash completion" bash -n "$bash_comp"
finish
