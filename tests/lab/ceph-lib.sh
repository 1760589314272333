# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the lab tests on a real cluster; the test defines ceph_ (the lab's `ceph` CLI).
py() { python3 -c "$@"; }

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
