#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The seed's host on a User-mode Linux guest, end to end (issue 28, item 2): a lab with its
# admin host (mon + mgr of a real Pacific cluster), guest uml1 (contrib/uml/host --md): 2 SSDs
# whose BIOS-boot partition is kept and whose os and swap partitions are two md raid1 arrays
# across both SSDs, assembled and running; 4 HDDs. `cephprov apply` of the lab's profile
# `uml` (scenario 1 at the guest's scale: per HDD a DB and a bcache cache partition on its
# SSD, bcache writeback with sequential_cutoff 0, OSDs on /dev/bcacheN through `ceph-volume
# lvm create`, created in parallel, class hdd from the backing HDD). Asserts: apply converges;
# 4 OSDs up, class hdd, each on /dev/bcacheN through LVM with its DB on the planned
# partition; bcache tuned; HEALTH_OK with every PG active+clean (the pool's CRUSH rule spreads
# over OSDs: the guest is the only host with OSDs); the md arrays still running with the
# contents they had and their members' data byte-identical; a re-apply has nothing to do.
# Then (items 3-5): `status` shows each bcache device's state, mode, cutoff, dirty data and
# hit ratio as the guest's sysfs does; a reboot of the guest on the same disk files brings
# bcache, cephprov's tuning and the OSDs back by the host's own boot path, active+clean, data
# identical; `destroy` of uml1 with dirty data on its caches moves its data to node1 (a
# namespace host with 2 raw OSDs), flushes and tears down bcache (the OSDs' LVM removed),
# zeroes the backing HDDs' start, deletes cephprov's partitions, keeps md and the kept
# partitions. Prints the figures: boot, apply, each create-osd step, reboot to active+clean,
# destroy and each flush's rate.
#
# With UML_BCACHE_ENCRYPTED=1 (issue 28, item 7) the guest's profile has `osd: {encrypted:
# true}`: the 4 OSDs are made with ceph-volume's dmcrypt (LUKS on each OSD's LV on
# /dev/bcacheN and on its DB partition, the keys in the mon's config-key store), and the run
# checks it in the plan, ceph-volume's tags, the open mappings, the mon's keys, status, the
# reboot (the mappings opened again with the mon's keys) and destroy (mappings closed, the
# keys gone with the purge). Without it the OSDs are checked not encrypted. Either way node1
# (a namespace host: this machine's kernel has no device-mapper) is refused an encrypted
# profile by the preflight.
#
# usage: test-uml-bcache.sh CEPHPROV
# Env: LAB, CEPH_LAB, UML_HOST, LAB_BASE, LAB_PREFIX (cpub), LAB_SUBNET (10.94.29), KEEP_LAB=1,
# UML_BCACHE_ENCRYPTED (0).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lab/guest-lib.sh
. "$here/../lab/guest-lib.sh"

CEPHPROV=$(realpath "${1:?usage: test-uml-bcache.sh CEPHPROV}")
guest_test_setup uml uml-bcache cpub 10.94.29 noceph ceph-mon ceph-mgr linux.uml sgdisk jq ssh bc

# node1: a namespace host with 2 raw OSDs, where uml1's data goes when uml1 is destroyed
lab_bringup --hosts 1 --ssd 1 --hdd 2 --ssd-size 8G --hdd-size 4G
guest_up uml1 --md || { echo "FAIL host up --md"; exit 1; }
check_eq "the guest's md arrays were made" "$UML_MD" 1

md_running() { # both arrays active raid1 with both members in sync, no resync left
        local a
        uml "grep -Eq 'resync|recovery|PENDING|DELAYED' /proc/mdstat" && { echo "  an md array is not in sync yet"; return 1; }
        for a in os swap; do
                uml "mdadm --detail /dev/md/$a" 2>/dev/null | grep -q 'State : clean *$' || { echo "  md $a not clean"; return 1; }
                [ "$(uml "mdadm --detail /dev/md/$a" 2>/dev/null | grep -c 'active sync')" = 2 ] || { echo "  md $a: not 2 members in sync"; return 1; }
        done
}
md_identical() { # each array holds what it held when made, and so does each member's data area
        local a sum m off size got bad=0
        while read -r a sum; do
                got=$(uml "sha256sum </dev/md/$a" | cut -d' ' -f1)
                [ "$got" = "$sum" ] || { echo "  md $a: $got, made as $sum"; bad=1; }
                size=$(uml "blockdev --getsize64 /dev/md/$a")
                for m in ssd0 ssd1; do
                        n=$([ "$a" = os ] && echo 2 || echo 3)
                        off=$(uml "mdadm --examine /dev/disk/by-id/$UML_SERIAL_PREFIX$m-part$n" | awk '/Data Offset/ { print $4 }')
                        # direct: the partition's page cache may still hold what udev's probe
                        # read before md wrote the member (seen: the second member's data read
                        # as the random bytes it had before the resync)
                        got=$(uml "dd if=/dev/disk/by-id/$UML_SERIAL_PREFIX$m-part$n bs=1M iflag=direct,skip_bytes,count_bytes skip=$((off * 512)) count=$size status=none | sha256sum" | cut -d' ' -f1)
                        [ "$got" = "$sum" ] || { echo "  md $a member $m: $got, the array $sum"; bad=1; }
                done
        done <"$UML_DIR/md.sha256"
        return $bad
}
check "md arrays os and swap running, both members in sync" md_running
check "md arrays and their members' data as made" md_identical

# item 7 (see the top): the guest's OSDs encrypted or not; node1 refused an encrypted profile
ENC=${UML_BCACHE_ENCRYPTED:-0}
if [ "$ENC" = 1 ]; then
        awk '/^  uml:$/ { print; print "    osd:"; print "      encrypted: true"; next } { print }' "$DIR/layout.yaml" >"$DIR/layout.yaml.new" &&
                mv "$DIR/layout.yaml.new" "$DIR/layout.yaml"
fi
awk '/^  lab:$/ { print; print "    osd:"; print "      encrypted: true"; next } { print }' "$DIR/layout.yaml" >"$dir/layout-node1-encrypted.yaml"
"$CEPHPROV" plan "$dir/layout-node1-encrypted.yaml" --hosts node1 >"$DIR/plan-node1-encrypted.out" 2>&1
check "an encrypted profile on node1 (no dm-crypt in its kernel) is refused by the preflight" \
        grep -q "^host 'node1': refused: dmcrypt: the kernel has no dm-crypt" "$DIR/plan-node1-encrypted.out" ||
        tail -n 15 "$DIR/plan-node1-encrypted.out"
check_eq "its plan shows node1's 2 OSDs to create encrypted" \
        "$(grep -c '^node1 .* create encrypted$' "$DIR/plan-node1-encrypted.out")" 2

# the cluster's pool over OSDs, not hosts: the guest is the only host with OSDs
ceph_ osd crush rule create-replicated by-osd default osd >/dev/null 2>&1
ceph_ osd pool set data crush_rule by-osd >/dev/null 2>&1

"$CEPHPROV" apply "$DIR/layout.yaml" --hosts node1 --yes >"$DIR/apply-node1.out" 2>&1
check_eq "apply on node1 (2 raw OSDs) exits 0" "$?" 0 || tail -n 20 "$DIR/apply-node1.out"

# HOST's OSDs that are up (and of class hdd: host_up_hdd)
host_up() {
        ceph_ osd tree -f json 2>/dev/null | jq --arg h "$1" --arg c "${2:-}" \
                '(first(.nodes[] | select(.type == "host" and .name == $h) | .children) // []) as $k |
                 [.nodes[] | select(.type == "osd" and .status == "up" and ($c == "" or .device_class == $c) and (.id as $i | $k | index($i)))] | length'
}

# (the lab's OSDs skip BlueStore's fsck after mkfs: a quarter of an OSD's creation on the
# guest, Ceph's own check and not cephprov's; test-uml-host measures it with Ceph's defaults)
ceph_ config set osd bluestore_fsck_on_mkfs false >/dev/null 2>&1

t_apply=$SECONDS
timeout 1500 "$CEPHPROV" apply "$DIR/layout.yaml" --hosts uml1 --yes >"$DIR/apply.out" 2>&1
rc=$?
t_apply=$((SECONDS - t_apply))
check_eq "cephprov apply of profile uml on uml1 converges (exit 0)" "$rc" 0 || grep -v warning "$DIR/apply.out" | tail -n 30
osd_s=$(jq -r 'select(.event == "osd-created" and .host == "uml1") | .seconds | . * 10 | round / 10' "$CEPHPROV_STATE_DIR"/*.journal | paste -sd' ' -)
check_eq "4 OSDs of class hdd up on host uml1" "$(host_up uml1 hdd)" 4
# what ceph-volume, the guest's kernel and the mon say of the OSDs' encryption
uml_fsids=$(ceph_ osd dump -f json 2>/dev/null | jq -r --argjson ids "[$(ceph_ osd ls-tree uml1 2>/dev/null | paste -sd, -)]" \
        '.osds[] | select(.osd as $i | $ids | index($i)) | .uuid' | sort)
# the config-key dm-crypt keys and lockbox auth entities of uml1's OSDs (guest-lib.sh)
# shellcheck disable=SC2086
keys_of_uml1() { mon_crypt_keys $uml_fsids | cut -d' ' -f1; }
check_eq "ceph-volume: each OSD's block tagged ceph.encrypted $ENC" \
        "$(uml 'ceph-volume lvm list --format json' 2>/dev/null | jq -r '[.[][] | select(.type == "block") | .tags["ceph.encrypted"]] | "\(length) \(unique)"')" \
        "4 [\"$ENC\"]"
if [ "$ENC" = 1 ]; then
        check_eq "apply's plan showed 4 encrypted OSDs on uml1 (bluestore+dmcrypt)" \
                "$(grep -c ' bluestore+dmcrypt' "$DIR/apply.out")" 4 || grep -i -E 'bluestore|STORE' "$DIR/apply.out" | head
        check_eq "8 dm-crypt mappings open on uml1 (4 LVs on bcache, 4 DB partitions)" "$(crypt_open)" 8
        check_eq "the mon keeps each OSD's LUKS key (dm-crypt/osd/FSID/luks) and lockbox key ($(wc -w <<<"$uml_fsids") OSDs)" \
                "$(keys_of_uml1)" 8
else
        check_eq "no dm-crypt mapping on uml1, no LUKS key in the mon for its OSDs" "$(crypt_open) $(keys_of_uml1)" "0 0"
fi
inv=$("$CEPHPROV" inventory "$DIR/layout.yaml" --hosts uml1 --json 2>/dev/null)
dbs=$(jq -r '[.inventories[0].devices[].partitions[]? | select(.name | startswith("cp:db:")) | .node] | sort | join(" ")' <<<"$inv")
# (an encrypted OSD's DB is its LUKS mapping, /dev/dm-N, over the partition: its slave)
got=$(for id in $(ceph_ osd ls-tree uml1 2>/dev/null); do
        p=$(ceph_ osd metadata "$id" -f json 2>/dev/null | jq -r .bluefs_db_partition_path)
        case $p in /dev/dm-*) p=/dev/$(uml "ls /sys/block/${p#/dev/}/slaves");; esac
        echo "$p"
done | sort | paste -sd' ' -)
check_eq "each OSD's DB on a planned partition" "$got" "$dbs"
check_eq "each OSD on LVM on a bcache device" \
        "$(uml 'ceph-volume lvm list --format json' 2>/dev/null | jq -r '[.[][] | select(.type == "block") | .devices[]] | map(test("^/dev/bcache[0-9]+$")) | all and length == 4')" true
check_eq "bcache writeback, sequential_cutoff 0 on every HDD" \
        "$(jq -r '[.inventories[0].devices[] | select(.content.bcache.role == "backing") | "\(.content.bcache.cache_mode):\(.content.bcache.sequential_cutoff)"] | join(" ")' <<<"$inv")" \
        "writeback:0 writeback:0 writeback:0 writeback:0"
# (the mgr's pool made once OSDs came has the default rule: over OSDs too)
for pool in $(ceph_ osd pool ls 2>/dev/null); do ceph_ osd pool set "$pool" crush_rule by-osd >/dev/null 2>&1; done
check "HEALTH_OK, every PG active+clean" wait_healthy 300 || { ceph_ health detail; ceph_ pg stat; }
check "md arrays still running after apply" md_running
check "md arrays and their members' data unchanged by apply" md_identical
check "BIOS-boot partitions kept" uml "test -b /dev/disk/by-id/${UML_SERIAL_PREFIX}ssd0-part1 && test -b /dev/disk/by-id/${UML_SERIAL_PREFIX}ssd1-part1"
check "a re-apply has nothing to do (plan --detailed-exitcode)" \
        "$CEPHPROV" plan "$DIR/layout.yaml" --hosts uml1 --detailed-exitcode
t_reapply=$SECONDS
"$CEPHPROV" apply "$DIR/layout.yaml" --hosts uml1 --yes >"$DIR/reapply.out" 2>&1
rc=$?
t_reapply=$((SECONDS - t_reapply))
check_eq "a second apply exits 0" "$rc" 0 || tail -n 15 "$DIR/reapply.out"
enc_json=$([ "$ENC" = 1 ] && echo true || echo false) enc_text=$([ "$ENC" = 1 ] && echo yes || echo no)
check_eq "status --json: uml1's 4 OSDs encrypted: $enc_json" \
        "$("$CEPHPROV" status "$DIR/layout.yaml" --hosts uml1 --json 2>/dev/null | jq -c '[.osds[] | select(.host == "uml1") | .encrypted]')" \
        "[$enc_json,$enc_json,$enc_json,$enc_json]"
check_eq "4 OSDs still up on uml1 after the second apply" "$(host_up uml1)" 4


# --- status (item 3): per bcache device its state, cache mode, sequential_cutoff, dirty data
# and hit ratio, as operators read them with an ssh loop over /sys/block/bcache*/bcache, seen
# after data was written and read back through the cluster
put_objects 8 4194304 "$dir/objects"
check "8 objects of 4 MiB written and read back identical through the cluster" \
        objects_identical 8 "$dir/objects" "$dir/back"
# the view of `cephprov status --json`, one line per bcache device: device, mode, cutoff,
# state, hit ratio in % (the kernel's figure is an integer %)
status_view() {
        "$CEPHPROV" status "$DIR/layout.yaml" --hosts uml1 --json 2>/dev/null | jq -r \
                '[.bcache[] | select(.host == "uml1")] | sort_by(.bcache_device)[] |
                 "\(.bcache_device) \(.cache_mode) \(.sequential_cutoff) \(.state) \(if .hit_ratio == null then "none" else (.hit_ratio * 100 | round) end)"'
}
# the same read on the guest from sysfs, as the operators' loop does
sysfs_view() {
        uml 'for b in /sys/block/bcache*; do d=$b/bcache; echo "/dev/${b##*/} $(sed "s/.*\[\(.*\)\].*/\1/" $d/cache_mode) $(cat $d/sequential_cutoff) $(cat $d/state) $(cat $d/stats_total/cache_hit_ratio)"; done' |
                sed 's/ 0\.0k / 0 /' | sort
}
status_matches_sysfs() { # (the kernel updates its counters every few seconds: three tries)
        local i a b
        for i in 1 2 3; do
                a=$(status_view) b=$(sysfs_view)
                [ -n "$a" ] && [ "$a" = "$b" ] && return 0
                sleep 2
        done
        echo "  status: $(paste -sd';' <<<"$a")"
        echo "  sysfs:  $(paste -sd';' <<<"$b")"
        return 1
}
view=$(status_view)
check_eq "status --json shows 4 bcache devices of uml1" "$(wc -l <<<"$view")" 4
check_eq "status: every bcache device writeback with sequential_cutoff 0" \
        "$(awk '{ print $2 ":" $3 }' <<<"$view" | sort -u)" "writeback:0"
check_eq "status: every bcache device has a cache (state clean or dirty) and a hit ratio" \
        "$(awk '($4 == "clean" || $4 == "dirty") && $5 != "none"' <<<"$view" | wc -l)" 4
check "status: each device's mode, cutoff, state and hit ratio as the guest's sysfs says" status_matches_sysfs
"$CEPHPROV" status "$DIR/layout.yaml" --hosts uml1 >"$DIR/status.txt" 2>&1
check_eq "status (text): a BCACHE line per device with mode, dirty data, cutoff and hit ratio" \
        "$(grep -cE '^  uml1 .* /dev/bcache[0-9]+ +writeback +(clean|dirty) +dirty [^,]+, sequential_cutoff 0( B)?, hit ratio [0-9]+ %$' "$DIR/status.txt")" 4 ||
        sed -n '/^BCACHE/,/^$/p' "$DIR/status.txt"
check_eq "status (text): ENCRYPTED $enc_text on each of uml1's OSDs" \
        "$(grep -cE "^  osd\.[0-9]+ +uml1 +up +in +hdd +$enc_text " "$DIR/status.txt")" 4 || sed -n '/^OSDS/,/^$/p' "$DIR/status.txt"
dirty=$("$CEPHPROV" status "$DIR/layout.yaml" --hosts uml1 --json 2>/dev/null | jq '[.bcache[].dirty_bytes] | add')
echo "status after 32 MiB written and read back: $(paste -sd';' <<<"$view"); dirty in all ${dirty:-?} bytes"

# --- reboot (item 4): the guest restarted on the same disk files; bcache registers again
# (bcache-tools' udev rule), cephprov's rule tunes it again (the kernel's default cutoff is
# 4 MiB: 0 only if the rule ran), the OSDs come back by the host's boot path (the enabled
# ceph-volume@ units, contrib/uml/init), the cluster returns to active+clean, data identical
check_eq "cephprov's udev rule for each bcache device on the guest" \
        "$(uml 'ls /etc/udev/rules.d/69-cephprov-bcache-*.rules | wc -l')" 4
check_eq "a ceph-volume@lvm unit enabled for each OSD" \
        "$(uml 'ls /var/lib/ceph/lab-systemd/enabled/ | grep -c "^ceph-volume@lvm-[0-9]*-.*\.service$"')" 4
osds_up() { host_up uml1; }
wait_osds_up() { # wait_osds_up N SECONDS
        local end=$((SECONDS + $2))
        while [ $SECONDS -lt $end ]; do [ "$(osds_up)" = "$1" ] && return 0; sleep 2; done
        return 1
}
# (not "every OSD down while the guest is": the mon marks the last OSD of its cluster down
# only on that OSD's own report, which a shutdown may not send in time; each OSD booting
# again after the halt is what is waited for, by its up_from epoch)
epoch=$(ceph_ osd dump -f json 2>/dev/null | jq .epoch)
osds_up() { # uml1's OSDs up since after the halt
        ceph_ osd dump -f json 2>/dev/null | jq --argjson e "${epoch:-0}" --argjson ids "[$(ceph_ osd ls-tree uml1 2>/dev/null | paste -sd, -)]" \
                '[.osds[] | select((.osd as $i | $ids | index($i)) and .up == 1 and .up_from > $e)] | length'
}
t_reboot=$(lab_now)
"$guest_host" down --dir "$DIR" --name uml1 >"$DIR/reboot.out" 2>&1
check "the guest halted (its kernel process gone)" test ! -s "$DIR/uml/uml1/kernel.pid"
guest_up uml1 >>"$DIR/reboot.out" 2>&1 || { echo "FAIL host up (reboot)"; cat "$DIR/reboot.out"; exit 1; }
boot_warm=$UML_BOOT_S
check "the 4 OSDs booted again (up_from after epoch $epoch) with no cephprov command: the guest's boot path" wait_osds_up 4 300 ||
        { cat "$UML_DIR/boot.log"; uml 'tail -n 20 /var/log/ceph/ceph-volume-systemd.log'; }
t_osds=$(lab_since "$t_reboot")
# the OSDs are up once ceph-volume's trigger started them; its unit's start returns after
# that (ceph-volume's own end, slow in the guest: seen 0 of 4 logged the moment the OSDs were
# up in CI), and the init logs "units" once every start returned
for _ in $(seq 120); do grep -q '^units ' "$UML_DIR/boot.log" && break; sleep 1; done
check_eq "the boot started the 4 ceph-volume@ units" "$(grep -c '^started ceph-volume@lvm-' "$UML_DIR/boot.log")" 4 ||
        cat "$UML_DIR/boot.log"
view=$(status_view)
check_eq "after the reboot: writeback, sequential_cutoff 0 on every bcache device (cephprov's rule)" \
        "$(awk '{ print $2 ":" $3 }' <<<"$view" | sort -u)" "writeback:0" || echo "$view"
check_eq "after the reboot: every bcache device has its cache again" \
        "$(awk '$4 == "clean" || $4 == "dirty"' <<<"$view" | wc -l)" 4
check "after the reboot: HEALTH_OK, every PG active+clean" wait_healthy 300 || { ceph_ health detail; ceph_ pg stat; }
t_clean=$(lab_since "$t_reboot")
check "after the reboot: the 8 objects read back identical" objects_identical 8 "$dir/objects" "$dir/back"
if [ "$ENC" = 1 ]; then
        check_eq "after the reboot: the 8 dm-crypt mappings open again (keys from the mon)" "$(crypt_open)" 8
fi
check "after the reboot: md arrays running" md_running
check "after the reboot: md arrays and their members' data as made" md_identical

# --- destroy with dirty data (item 5): `cephprov destroy` of uml1 drains it onto node1,
# purges its OSDs, tears down each bcache device (the OSD's LVM on /dev/bcacheN removed, the
# dirty data flushed to 0 with its progress and rate on the terminal, the device stopped, the
# cache set unregistered), zeroes the start of each backing HDD (the BlueStore label lay
# 8 KiB + 1 MiB into it, under bcache and LVM) and deletes the cephprov partitions; the md
# arrays and the kept partitions stay; the cluster clean, the data identical
# bcache writes dirty data back by itself once a cache is idle (as it is while the drain
# moves data off: seen, 80 MB dirty before destroy and 6 MB left at the teardown): its
# background writeback paused here, as on a host too busy to write back, so that the
# teardown has the dirty data to flush (a detach writes back whatever writeback_running says)
check "background writeback paused on uml1's bcache devices" \
        uml 'for b in /sys/block/bcache*/bcache; do echo 0 >"$b/writeback_running" || exit 1; done'
put_objects 8 4194304 "$dir/objects2"
dirty_of() { "$CEPHPROV" status "$DIR/layout.yaml" --hosts uml1 --json 2>/dev/null | jq '[.bcache[] | select(.host == "uml1") | .dirty_bytes] | add // 0'; }
dirty_before=$(dirty_of)
check "dirty data on uml1's caches before destroy (${dirty_before:-?} bytes)" test "${dirty_before:-0}" -gt 0
uml 'for b in /sys/block/bcache*/bcache; do echo "$(basename "$(readlink -f "$b/..")") $(cat "$b/dirty_data")"; done' >"$DIR/dirty-before.txt" 2>&1
t_destroy=$SECONDS
timeout 1200 "$CEPHPROV" destroy "$DIR/layout.yaml" uml1 --yes >"$DIR/destroy.out" 2>&1
rc=$?
t_destroy=$((SECONDS - t_destroy))
check_eq "cephprov destroy uml1 exits 0" "$rc" 0 ||
        { grep -iE "error|refus|fail" "$DIR/destroy.out" | tail -n 8; echo "  --- its end:"; tail -n 30 "$DIR/destroy.out"; }
flushed=$(grep -c "^cephprov: host 'uml1': bcache-teardown: flushed .* of dirty data of '/dev/[^']*' in [0-9.]* s (" "$DIR/destroy.out")
check_eq "destroy showed each HDD's flush on the terminal (its end, size and rate)" "$flushed" 4 ||
        grep -i "flush" "$DIR/destroy.out"
grep "bcache-teardown: flush" "$DIR/destroy.out"
check "the flushes wrote data back (not all 0 B)" \
        test "$(grep -c "bcache-teardown: flushed 0 B of dirty" "$DIR/destroy.out")" -lt "${flushed:-0}"
check_eq "no bcache device left on uml1" "$(uml 'ls /sys/block | grep -c "^bcache"')" 0
check_eq "no cache set left registered on uml1" "$(uml 'ls /sys/fs/bcache | grep -c -- -')" 0
check_eq "no ceph-volume@lvm boot unit left enabled on uml1 (each OSD's disabled with its LVM)" \
        "$(uml 'ls /var/lib/ceph/lab-systemd/enabled/ | grep -c "^ceph-volume@lvm-"')" 0
check_eq "no volume group left on uml1 (the OSDs' LVM removed)" "$(uml 'vgs --noheadings 2>/dev/null | wc -l')" 0
if [ "$ENC" = 1 ]; then
        check_eq "no dm-crypt mapping left on uml1 (destroy closed them)" "$(crypt_open)" 0
        check_eq "the mon no longer has the OSDs' LUKS keys nor their lockbox keys (purged as Ceph does)" "$(keys_of_uml1)" 0
fi
blank_start() { # every backing HDD: its first MiB zero, no BlueStore label in its first 16 MiB
        local h bad=0
        for h in $UML_HDDS; do
                uml "cmp -s -n 1048576 /dev/disk/by-id/$UML_SERIAL_PREFIX$h /dev/zero" || { echo "  $h: first MiB not zero"; bad=1; }
                [ "$(uml "dd if=/dev/disk/by-id/$UML_SERIAL_PREFIX$h bs=1M count=16 iflag=direct status=none | grep -a -c 'bluestore block device'")" = 0 ] ||
                        { echo "  $h: a BlueStore label in its first 16 MiB"; bad=1; }
        done
        return $bad
}
check "each backing HDD: first MiB zero, no BlueStore label left" blank_start
for s in $UML_SSDS; do
        check_eq "$s: only its BIOS-boot, os and swap partitions left" \
                "$(uml "sgdisk -p /dev/disk/by-id/$UML_SERIAL_PREFIX$s" | awk '/^ +[0-9]+ / { print $1 ":" $NF }' | paste -sd' ' -)" \
                "1:bios 2:os 3:swap"
done
check_eq "after destroy: no cephprov tuning rule left on uml1 (the teardown removed each)" \
        "$(uml 'ls /etc/udev/rules.d/ | grep -c "^69-cephprov-bcache-"')" 0
check "after destroy: md arrays running" md_running
check "after destroy: md arrays and their members' data as made" md_identical
check_eq "after destroy: uml1's host bucket is gone from CRUSH" \
        "$(ceph_ osd tree -f json 2>/dev/null | jq '[.nodes[] | select(.name == "uml1")] | length')" 0
check "after destroy: HEALTH_OK, every PG active+clean" wait_healthy 300 || { ceph_ health detail; ceph_ pg stat; }
check "after destroy: the 8 objects read back identical" objects_identical 8 "$dir/objects2" "$dir/back"
rate=$(grep -o "flushed .* in [0-9.]* s ([^)]*)" "$DIR/destroy.out" | paste -sd';' -)

echo "figures: destroy of uml1 ${t_destroy} s (${dirty_before:-?} bytes dirty before; ${rate:-no flush})"
echo "figures: encrypted OSDs: $([ "$ENC" = 1 ] && echo yes || echo no)"
echo "figures: kernel $UML_KERNEL_RELEASE; boot to SSH $(printf '%.1f' "$UML_BOOT_S") s; apply on uml1 ${t_apply} s (create-osd, 4 in parallel: ${osd_s:-?} s); re-apply ${t_reapply} s; reboot: down to SSH again $(printf '%.1f' "$boot_warm") s, OSDs up ${t_osds} s, active+clean ${t_clean} s after the halt began"
guest_done=1
finish
