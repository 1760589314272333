#!/usr/bin/env zsh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs zsh's real completion system on a command line and prints the matches it offers, one
# per line: an interactive `zsh -f` in a pseudo-terminal (zsh/zpty), compinit with the
# completion under test first in fpath, the line typed and TAB pressed; compadd is wrapped
# to print what the completion function adds (after zsh's own matching against the word).
# usage: zsh-complete.zsh COMPLETION_DIR 'cephprov plan layouts/x.yaml --hosts '
# (run from the directory the paths are relative to; the cephprov on PATH is completed)
emulate -L zsh
zmodload zsh/zpty || { print -u2 "zsh/zpty is not available"; exit 77 }
dir=$1 line=$2

zpty z zsh -f -i
init=$(mktemp "${TMPDIR:-/tmp}/zsh-complete.XXXXXX")
trap 'zpty -d z 2>/dev/null; rm -f $init' EXIT
cat >$init <<INIT
PS1= PROMPT= RPROMPT=
unsetopt zle_bracketed_paste 2>/dev/null
fpath=(${(q)dir} \$fpath)
autoload -U compinit && compinit -u -D
bindkey '^I' complete-word
zstyle ':completion:*' insert-tab false
zstyle ':completion:*' list-grouped false
# print every match a completion function adds, between two markers, then leave
compadd() {
        if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then
                builtin compadd "\$@"
                return
        fi
        local -a __hits
        builtin compadd -A __hits "\$@"
        local -A __o
        zparseopts -E -A __o P: p: S: s: q Q
        local h
        for h in \$__hits; do
                print -r -- "MATCH:\${__o[-p]}\${__o[-P]}\$h\${__o[-s]}"
        done
        builtin compadd "\$@"
}
__cp_begin() { print -r -- 'BEGIN-MATCHES' }
__cp_end() { print -r -- 'END-MATCHES'; exit }
compprefuncs=(__cp_begin)
comppostfuncs=(__cp_end)
print -r -- 'READY-FOR-LINE'
INIT
zpty -w z "source ${(q)init}"
local out
integer tries=0
while (( tries++ < 200 )); do
        zpty -r -t z out 2>/dev/null || { sleep 0.05; continue }
        [[ $out == READY-FOR-LINE* ]] && break
done
(( tries < 200 )) || { print -u2 "zsh did not start"; exit 1 }
zpty -w -n z "$line"$'\t'
integer started=0
tries=0
while (( tries++ < 400 )); do
        if ! zpty -r -t z out 2>/dev/null; then
                sleep 0.05
                continue
        fi
        out=${out//$'\r'/}
        out=${out%$'\n'}
        [[ $out == *BEGIN-MATCHES* ]] && { started=1; continue }
        [[ $out == *END-MATCHES* ]] && exit 0
        (( started )) && [[ $out == *MATCH:* ]] && print -r -- ${out#*MATCH:}
done
print -u2 "no completion came back for: $line"
exit 1
