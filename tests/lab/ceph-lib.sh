# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the lab tests on a real cluster: ceph_ (the lab's `ceph` CLI) and on (a command
# on one of its hosts) act on the lab in $dir/lab.
py() { python3 -c "$@"; }

# lab_test_setup NAME PREFIX SUBNET [filestore]: the start of a test or bench on a Ceph lab.
# Skips (exit 77) without root, network namespaces or Ceph's OSD packages (with filestore:
# sgdisk and mkfs.xfs too); sets $lab and $ceph_lab (LAB, CEPH_LAB), $dir (a new directory
# cephprov-NAME.*), LAB_PREFIX and LAB_SUBNET unless given (PREFIX, SUBNET) and
# CEPHPROV_STATE_DIR=$dir/state; defines ceph_ (the lab's `ceph`) and on HOST CMD...; and
# traps EXIT with lab_test_cleanup.
lab_test_setup() {
        lab=${LAB:?LAB must point to contrib/lab/lab}
        ceph_lab=${CEPH_LAB:?CEPH_LAB must point to contrib/lab/ceph}
        [ "$(id -u)" = 0 ] || skip "needs root for network namespaces and loop devices"
        command -v ip >/dev/null && ip netns list >/dev/null 2>&1 || skip "no 'ip netns'"
        command -v ceph-osd >/dev/null || skip "no ceph-osd (Debian's ceph packages)"
        if [ "${4:-}" = filestore ]; then
                command -v sgdisk >/dev/null && command -v mkfs.xfs >/dev/null || skip "no sgdisk or mkfs.xfs"
        fi
        dir=$(mktemp -d "${TMPDIR:-/tmp}/cephprov-$1.XXXXXX")
        export LAB_PREFIX=${LAB_PREFIX:-$2} LAB_SUBNET=${LAB_SUBNET:-$3} CEPHPROV_STATE_DIR=$dir/state
        torn_down=
        trap lab_test_cleanup EXIT
}
ceph_() { "$ceph_lab" cli --dir "$dir/lab" "$@"; }
on() { local h=$1; shift; "$lab" exec --dir "$dir/lab" "$h" "$@"; }

# The EXIT trap of lab_test_setup: the test's lab_cleanup_hook first when it defines one (a
# command it left running), then, unless KEEP_LAB=1, the lab down (unless the test set
# torn_down: it took it down itself and checked that) and $dir removed. Never stops half-way.
lab_test_cleanup() {
        set +e
        declare -F lab_cleanup_hook >/dev/null && lab_cleanup_hook
        if [ "${KEEP_LAB:-0}" = 1 ]; then echo "lab kept in $dir/lab"; return; fi
        if [ -z "$torn_down" ]; then
                "$ceph_lab" down --dir "$dir/lab" >/dev/null 2>&1
                "$lab" down --dir "$dir/lab" >/dev/null 2>&1
        fi
        rm -rf "$dir"
}

wait_clean() { # wait_clean SECONDS: until every PG is active+clean (1 when not within SECONDS)
        local t0=$SECONDS
        while [ $((SECONDS - t0)) -lt "$1" ]; do
                ceph_ pg stat -f json 2>/dev/null | py '
import json, sys
s = json.load(sys.stdin)["pg_summary"]["num_pg_by_state"]
sys.exit(0 if s and all(x["name"] == "active+clean" for x in s) else 1)' && return 0
                sleep 2
        done
        return 1
}

# health_of SECONDS: prints the cluster's health status word, HEALTH_OK as soon as it is (a
# warning that is still there after SECONDS is printed with `ceph health detail` on stderr,
# so that a failed check names the warning)
health_of() {
        local t0=$SECONDS h
        while :; do
                h=$(ceph_ health 2>/dev/null | cut -d' ' -f1)
                [ "$h" = HEALTH_OK ] && break
                [ $((SECONDS - t0)) -lt "$1" ] || { ceph_ health detail >&2 2>/dev/null; break; }
                sleep 2
        done
        echo "$h"
}

# put_objects COUNT BYTES DIR: COUNT random objects of BYTES each into the pool 'data' through
# the admin host ($lab, $dir of the test); the files stay in DIR (under the lab directory
# when the admin host runs chrooted in a release root), their checksums in DIR.sums
put_objects() {
        local n=$1 size=$2 d=$3 i
        mkdir -p "$d"
        for i in $(seq 1 "$n"); do
                head -c "$size" /dev/urandom > "$d/obj$i"
                "$lab" exec --dir "$dir/lab" admin rados -p data put "obj$i" "$d/obj$i" || echo "FAIL rados put obj$i"
        done
        (cd "$d" && sha256sum obj*) > "$d.sums"
}

# objects_identical COUNT DIR BACK: every object, read back into BACK, has DIR's checksum
objects_identical() {
        local n=$1 d=$2 b=$3 i
        rm -rf "$b"
        mkdir -p "$b"
        for i in $(seq 1 "$n"); do
                "$lab" exec --dir "$dir/lab" admin rados -p data get "obj$i" "$b/obj$i" || echo "FAIL rados get obj$i"
        done
        [ "$(cd "$b" && sha256sum obj*)" = "$(cat "$d.sums")" ]
}

# lab_filestore_up LABDIR [LAB-UP-OPTIONS...]: the lab of a FileStore → BlueStore conversion's
# "before" state (`contrib/lab/ceph filestore`: FileStore OSDs with journals on SSD partitions,
# ~200 MB in pool 'data', checksums in LABDIR/filestore/objects.sha256, the layout in
# LABDIR/filestore.yaml) on 3 hosts of 1 SSD (3 journal partitions) + 3 HDDs unless the
# options say otherwise ($lab and $ceph_lab of the test). Prints the seconds it took.
lab_filestore_up() {
        local d=$1 t0
        shift
        t0=$(date +%s.%N)
        "$lab" up --dir "$d" --hosts 3 --ssd 1 --hdd 3 --ssd-size 2G --hdd-size 2G "$@" >/dev/null || return 1
        "$ceph_lab" up --dir "$d" >/dev/null 2>&1 || { echo "contrib/lab/ceph up failed" >&2; return 1; }
        "$ceph_lab" filestore --dir "$d" >"$d/filestore.log" 2>&1 || { tail -n 20 "$d/filestore.log" >&2; return 1; }
        py "print(round($(date +%s.%N) - $t0, 1))"
}

# lab_filestore_objects_identical LABDIR [SUMS]: every object listed in SUMS (default
# LABDIR/filestore/objects.sha256, `sha256sum` lines) read back from pool 'data' on the admin
# host has its checksum; names what differs or is missing
lab_filestore_objects_identical() {
        local d=$1 sums=${2:-$1/filestore/objects.sha256} back=$1/filestore/readback rc
        [ -s "$sums" ] || { echo "no checksums in '$sums'" >&2; return 1; }
        rm -rf "$back"
        mkdir -p "$back"
        # shellcheck disable=SC2016 # expanded by the inner sh
        "$lab" exec --dir "$d" admin sh -c 'cd "$1" && for o in $(cut -d" " -f3 "$2"); do
                rados -p data get "$o" "$o" || echo "rados get $o failed" >&2; done' sh "$back" "$sums"
        (cd "$back" && sha256sum --quiet --strict -c "$sums")
        rc=$?
        rm -rf "$back"
        return $rc
}
