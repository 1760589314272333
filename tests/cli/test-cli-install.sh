#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli tier: what `meson install` installs, and where: the binary, the man pages, the bash and
# zsh completions, the shipped playbooks and layouts and the docs, under the usual places of
# the prefix (meson introspect --installed); then an install into a temporary DESTDIR
# (--no-rebuild: the build is not touched) whose binary, man pages, completion and playbooks
# work from there.
# usage: test-cli-install.sh BUILDDIR SRCDIR MESON
set -u
build=$1 src=$2 meson=$3
. "$src/tests/lib.sh"
[ -x "$meson" ] || command -v "$meson" >/dev/null || skip "meson not found"

installed=$("$meson" introspect --installed "$build") || { echo "FAIL meson introspect --installed"; exit 1; }
prefix=$("$meson" introspect --buildoptions "$build" |
        python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
# the installed paths, relative to the prefix
rel=$(python3 -c 'import json,sys,os; p=sys.argv[1]; [print(os.path.relpath(v, p)) for v in json.load(sys.stdin).values()]' \
        "$prefix" <<<"$installed" | sort)
has() { grep -qx -- "$1" <<<"$rel"; }
quiet() { "$@" >/dev/null 2>&1; }
check "installs bin/cephprov" has bin/cephprov
for page in man8/cephprov.8 man5/cephprov-layout.5 man5/cephprov-playbook.5; do
        check "installs share/man/$page" has "share/man/$page"
done
check "installs the bash completion (bash-completion's completionsdir)" \
        bash -c 'grep -Eqx "share/bash-completion/completions/cephprov" <<<"$1"' _ "$rel"
check "installs the zsh completion in site-functions" has share/zsh/site-functions/_cephprov
for p in "$src"/playbooks/*.yaml; do
        check "installs the playbook $(basename "$p")" has "share/cephprov/playbooks/$(basename "$p")"
done
for l in "$src"/layouts/*.yaml; do
        check "installs the layout $(basename "$l")" has "share/cephprov/layouts/$(basename "$l")"
done
check "installs the README" has share/doc/cephprov/README.md
check "installs the docs" bash -c 'grep -Eqx "share/doc/cephprov/docs(/layout.md)?" <<<"$1"' _ "$rel"
check "installs nothing outside the prefix" bash -c '! grep -q "^\.\./" <<<"$1"' _ "$rel"
check "installs no test program" bash -c '! grep -Eq "(^|/)(test-|lab-)" <<<"$1"' _ "$rel"

dest=$(mktemp -d) || exit 1
trap 'rm -rf "$dest"' EXIT
out=$("$meson" install -C "$build" --no-rebuild --quiet --destdir "$dest" 2>&1); rc=$?
check_eq "meson install --destdir exits 0 ($out)" "$rc" 0
root=$dest$prefix
check "the installed binary runs" quiet "$root/bin/cephprov" --version
check_eq "the installed binary is the built one" "$(sha256sum <"$root/bin/cephprov")" "$(sha256sum <"$build/src/cli/cephprov")"
for p in "$root"/share/cephprov/playbooks/*.yaml "$root"/share/cephprov/layouts/*.yaml; do
        check "the installed $(basename "$p") validates" quiet "$root/bin/cephprov" validate "$p"
done
if command -v groff >/dev/null; then
        check "the installed cephprov(8) renders" bash -c 'groff -man -Tutf8 -ww -z "$1" 2>&1 | { ! grep -q .; }' _ "$root/share/man/man8/cephprov.8"
        check_contains "the installed cephprov(8) names the installed playbooks" \
                "$(cat "$root/share/man/man8/cephprov.8")" "$prefix/share/cephprov/playbooks/"
fi
check "the installed bash completion defines _cephprov" bash -c 'complete() { :; }; . "$1" && declare -F _cephprov >/dev/null' _ \
        "$(ls "$root"/share/bash-completion/completions/cephprov)"
finish
