# SPDX-License-Identifier: LGPL-2.1-or-later
# What the throttle benchmarks share (bench-throttle.sh, bench-throttle-slo.sh), sourced after
# tests/lab/lab-lib.sh and lab_test_setup, with $iops and $bps (the slow disks) and $release
# set: the lab with its data, the slow disks, the layout's throttle block and the way back to
# the same starting state after a mode.

# throttle_lab_up PRESET: 3 fake hosts of 1 SSD and 2 HDDs ($hdd_size each, default 2G) on $release, applied with the
# throttle PRESET ($layout is its layout), the pool 'data' of size 2 and short PG logs, as
# production PGs have next to their objects, so that data moves by backfill
throttle_lab_up() {
        lab_bringup --hosts 3 --ssd 1 --hdd 2 --hdd-size "${hdd_size:-2G}" --ceph "$release"
        layout=$dir/lab/layout.yaml
        set_layout_throttle "throttle:\n  preset: $1"
        "$cephprov" apply "$layout" --yes >"$dir/apply.out" 2>&1 || { echo "FAIL apply"; exit 1; }
        ceph_ osd pool set data size 2 >/dev/null 2>&1
        local k
        for k in osd_min_pg_log_entries osd_max_pg_log_entries; do ceph_ config set osd "$k" 10; done
        ceph_ config set osd osd_pg_log_trim_min 1
}

# set_disks ARGS: `lab slow ARGS` on every storage host: its sshd and so every OSD it starts
# (after each cancel too)
set_disks() {
        local h
        for h in node1 node2 node3; do "$lab" slow --dir "$dir/lab" "$h" "$@" >/dev/null || return 1; done
}

# set_layout_throttle BLOCK: the layout's throttle block replaced by BLOCK (sed's \n for its
# line ends), or removed when BLOCK is empty
set_layout_throttle() {
        sed -i '/^throttle:$/,/^profiles:$/{/^profiles:$/!d}' "$layout"
        [ -z "$1" ] || sed -i "s/^profiles:$/$1\nprofiles:/" "$layout"
}

# compact_all: every OSD's RocksDB compacted (`ceph tell osd.N compact` returns once done),
# with the disks unlimited. A data move leaves compaction behind it: the slo bench's start
# (every client op waiting while the PGs peer after the out) cost more in every run after
# the first, whatever the rung (7 December: rung 1 first 52, 64, 54 ops over; adaptive after
# it at rung 1, 189, 76, 103), so every run starts compacted
compact_all() {
        local id
        for id in $(ceph_ osd ls 2>/dev/null); do
                ceph_ tell "osd.$id" compact >/dev/null 2>&1 || return 1
        done
}

# back_fast TIMEOUT: the way back after a mode's cancel, fast: every disk unlimited and
# backfill wide open until active+clean (TIMEOUT seconds at most), every OSD compacted, then
# the same starting state again (the keys removed, the disks slow)
back_fast() {
        set_disks --off || return 1
        local k
        for k in osd_max_backfills osd_recovery_max_active osd_recovery_max_single_start; do ceph_ config set osd "$k" 8; done
        [ "$release" = pacific ] || ceph_ config set osd osd_mclock_profile high_recovery_ops
        wait_clean "$1" || return 1
        for k in osd_max_backfills osd_recovery_max_active osd_recovery_max_single_start osd_mclock_profile; do
                ceph_ config rm osd "$k"
        done
        compact_all || return 1
        set_disks --iops "$iops" --bps "$bps"
}

# put_bulk COUNT BYTES: COUNT objects of BYTES random bytes each into the pool 'data', written by
# one python3-rados process on the admin host (put_objects' one `rados put` an object takes
# ~0.5 s each: minutes for gigabytes)
put_bulk() {
        on admin /usr/bin/python3 - "$1" "$2" <<'PY'
import os, sys
import rados
n, size = int(sys.argv[1]), int(sys.argv[2])
c = rados.Rados(conffile="/etc/ceph/ceph.conf")
c.connect()
io = c.open_ioctx("data")
buf = os.urandom(size)
for i in range(n):
    # each object its own bytes: its name in front of one random buffer
    io.write_full("bulk%d" % i, ("bulk%d " % i).encode() + buf[: size - 16])
io.close()
c.shutdown()
PY
}
