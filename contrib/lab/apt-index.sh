# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# A private apt index of one Debian suite, kept in the lab's cache and never in the machine's
# own sources: what contrib/lab/ceph-root (the roots of newer Ceph releases) and
# contrib/uml/kernel (the guests' kernel) read a suite's package versions and packages from.
# Sourced; the caller has set MIRROR and KEYRING and defines die().
#
#   apt_index DIR SUITE     APT_INDEX_OPTS: the options of apt-get and apt-cache for the index
#                           of SUITE in DIR, its files made; the index brought up to date with
#                           the archive unless it was within CEPHPROV_LAB_INDEX_AGE seconds
#                           (default 600: the guests of one test run, each booted with
#                           `contrib/uml/kernel path`, ask the archive once, not at each boot)
#   apt_index_version PKG   the version of PKG in that index, empty when it has none

# shellcheck disable=SC2034 # APT_INDEX_OPTS is the caller's
apt_index() {
        local dir=$1 suite=$2 source stamp age
        APT_INDEX_OPTS=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=-
                -o "Dir::State=$dir/state" -o "Dir::Cache=$dir/cache"
                -o "Dir::Etc::Preferences=$dir/preferences" -o Dir::Etc::PreferencesParts=-
                -o Acquire::Check-Valid-Until=false -o APT::Get::List-Cleanup=false
                -o Debug::NoLocking=true -o APT::Sandbox::User=root
                -o Dir::Cache::pkgcache=pkgcache.bin -o Dir::Cache::srcpkgcache=srcpkgcache.bin)
        mkdir -p "$dir/state/lists/partial" "$dir/cache/archives/partial"
        source="deb [signed-by=$KEYRING] $MIRROR $suite main"
        stamp=$dir/updated
        age=${CEPHPROV_LAB_INDEX_AGE:-600}
        # the same source, updated within AGE seconds: the archive is asked no more
        if [ -f "$stamp" ] && [ "$(cat "$dir/sources.list" 2>/dev/null)" = "$source" ] &&
                [ $(($(date +%s) - $(stat -c %Y "$stamp"))) -lt "$age" ]; then
                return 0
        fi
        echo "$source" >"$dir/sources.list"
        : >"$dir/preferences"
        rm -f "$stamp"
        apt-get -q "${APT_INDEX_OPTS[@]}" update >"$dir/update.log" 2>&1 ||
                die "cannot read the '$suite' index from $MIRROR: $(tail -n 2 "$dir/update.log")"
        touch "$stamp"
}

apt_index_version() {
        apt-cache "${APT_INDEX_OPTS[@]}" show "$1" 2>/dev/null | awk '/^Version:/ { print $2; exit }'
}
