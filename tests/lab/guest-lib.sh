# SPDX-License-Identifier: LGPL-2.1-or-later
# The scaffolding of the tests whose storage host is a guest on the lab's bridge: a User-mode
# Linux kernel (tests/uml, contrib/uml/host) or a qemu VM (tests/vm, contrib/vm/host). Source
# it with $here the test's own directory (it sources tests/lib.sh and tests/lab/lab-lib.sh):
#
#   here=$(cd "$(dirname "$0")" && pwd)
#   . "$here/../lab/guest-lib.sh"
#   guest_test_setup uml uml-bcache cpub 10.94.29 noceph linux.uml   # lab_test_setup's args
#   lab_bringup --hosts 1 ...
#   guest_up uml1 --md || { echo "FAIL host up"; exit 1; }
#   uml 'cat /proc/mdstat'                                            # (vm ... for a VM)
#   ...
#   guest_done=1; finish
#
# What a test gets: $guest_host (the contrib script: UML_HOST or VM_HOST in the environment),
# $top, $DIR (the lab's directory), `uml CMD` or `vm CMD` (SSH to the guest), guest_kept_ok,
# guest_disks_ok (the contrib script's seeded disks as cephprov's inventory lists them),
# and an EXIT hook that takes the guest down before lab-lib takes the lab down (with KEEP_LAB=1
# the commands to do so are printed instead) and shows the guest's console and boot log when
# a check failed or the test stopped before it set guest_done.

# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
# shellcheck source=tests/lab/lab-lib.sh
. "$here/../lab/lab-lib.sh"

# guest_test_setup KIND NAME PREFIX SUBNET [NEED...]: KIND uml or vm, the rest as
# lab_test_setup's; the test's directory under LAB_BASE (default: the test's own directory)
guest_test_setup() {
        guest_kind=$1
        shift
        top=$(cd "$here/../.." && pwd)
        case $guest_kind in
        uml) guest_host=${UML_HOST:-$top/contrib/uml/host} ;;
        vm) guest_host=${VM_HOST:-$top/contrib/vm/host} ;;
        *) echo "FAIL guest_test_setup: unknown guest kind '$guest_kind'"; exit 1 ;;
        esac
        local base
        base=$(realpath "${LAB_BASE:-$here}")
        TMPDIR=$base lab_test_setup "$@"
        DIR=$dir/lab
        guest_done=
}

lab_cleanup_hook() {
        if [ "${KEEP_LAB:-0}" = 1 ]; then
                echo "to take it down: $guest_host down --dir $DIR; $ceph_lab down --dir $DIR; $lab down --dir $DIR"
                return
        fi
        local g
        if [ "$failures" -gt 0 ] || [ -z "$guest_done" ]; then
                for g in "$DIR/$guest_kind"/*/; do
                        [ -f "$g/console.log" ] || continue
                        echo "--- guest $(basename "$g"): console (last 30 lines), boot log"
                        tail -n 30 "$g/console.log"
                        cat "$g/boot.log" 2>/dev/null
                done
        fi
        "$guest_host" down --dir "$DIR" >/dev/null 2>&1
}

# guest_up NAME [ARG...]: `host up` of the guest NAME (ARGs to the contrib script; its output
# as it goes), then its env (UML_ADDR, UML_SSH_OPTS, UML_DIR, ... or VM_...) read
guest_up() {
        "$guest_host" up --dir "$DIR" --name "$@" || return 1
        # shellcheck disable=SC1090
        . "$DIR/$guest_kind/$1/env"
}

uml() { ssh "${UML_SSH_OPTS[@]}" "root@$UML_ADDR" "$@"; }
vm() { ssh "${VM_SSH_OPTS[@]}" "root@$VM_ADDR" "$@"; }

# the dm-crypt (LUKS) mappings open on the uml guest
crypt_open() { uml 'cat /sys/block/dm-*/dm/uuid 2>/dev/null | grep -c "^CRYPT-"'; }
# mon_crypt_keys FSID...: "HAVE ALL": how many of the mon's LUKS keys (config-key
# dm-crypt/osd/FSID/luks) and lockbox entities (client.osd-lockbox.FSID) those OSDs have, and
# how many of each kind the cluster holds in all
mon_crypt_keys() {
        local keys auth f have=0 all
        keys=$(ceph_ config-key ls 2>/dev/null)
        auth=$(ceph_ auth ls -f json 2>/dev/null | jq -r '.auth_dump[].entity')
        for f in "$@"; do
                grep -qF "\"dm-crypt/osd/$f/luks\"" <<<"$keys" && have=$((have + 1))
                grep -qxF "client.osd-lockbox.$f" <<<"$auth" && have=$((have + 1))
        done
        all=$(( $(grep -c '"dm-crypt/osd/.*/luks"' <<<"$keys") + $(grep -c '^client.osd-lockbox\.' <<<"$auth") ))
        echo "$have $all"
}

# guest_kept_ok: every kept partition, read in the guest, has the sum written when the
# contrib script made it (its kept.sha256: disk, partition number, sum)
guest_kept_ok() {
        local ssd n sum got bad=0 prefix dir_var
        prefix=${guest_kind^^}_SERIAL_PREFIX dir_var=${guest_kind^^}_DIR
        while read -r ssd n sum; do
                got=$("$guest_kind" sha256sum "/dev/disk/by-id/${!prefix}$ssd-part$n" | cut -d' ' -f1)
                [ "$got" = "$sum" ] || { echo "  $ssd part $n: $got, made as $sum"; bad=1; }
        done <"${!dir_var}/kept.sha256"
        return $bad
}

# guest_disks_ok INVENTORY NAME_RE [SERIAL_HOST]: the seeded disks of the guest as cephprov's
# inventory (the JSON document INVENTORY) lists them: each SSD and HDD by its by-id name, its
# kernel name matching NAME_RE, its serial SERIAL_HOST-DISK (when given), SSDs not rotational,
# allowed, with the BIOS-boot, os and swap partitions as made (swap 1 MiB before the end);
# HDDs rotational and blank
guest_disks_ok() {
        local inv=$1 name_re=$2 serial_host=${3:-} s d kind=${guest_kind^^}
        local prefix=${kind}_SERIAL_PREFIX ssds=${kind}_SSDS hdds=${kind}_HDDS
        dev() { jq -c --arg s "$1" '.inventories[0].devices[] | select(.links // [] | index("/dev/disk/by-id/'"${!prefix}"'" + $s))' <<<"$inv"; }
        for s in ${!ssds} ${!hdds}; do
                d=$(dev "$s")
                check_eq "$s listed with its by-id name" "$(jq -r --arg re "$name_re" '.name | test($re)' <<<"$d")" true
                [ -z "$serial_host" ] || check_eq "$s serial" "$(jq -r '.serial' <<<"$d")" "$serial_host-$s"
                case " ${!ssds} " in
                *" $s "*)
                        check_eq "$s is an SSD (rotational false)" "$(jq -r '.rotational' <<<"$d")" false
                        check_eq "$s allowed" "$(jq -r '.allowed' <<<"$d")" true
                        check_eq "$s partitions: bios-boot, os, swap" \
                                "$(jq -r '[.partitions[] | "\(.number):\(.name):\(.size)"] | join(" ")' <<<"$d")" \
                                "1:bios:1048576 2:os:268435456 3:swap:268435456"
                        check_eq "$s swap partition at the end of the disk (1 MiB before it)" \
                                "$(jq -r '(.partitions[] | select(.number == 3) | .start + .size) == (.size - 1048576)' <<<"$d")" true
                        check_eq "$s BIOS-boot type" "$(jq -r '.partitions[] | select(.number == 1) | .type_guid' <<<"$d")" \
                                21686148-6449-6e6f-744e-656564454649
                        ;;
                *)
                        check_eq "$s is an HDD (rotational true)" "$(jq -r '.rotational' <<<"$d")" true
                        check_eq "$s blank" "$(jq -r '(.partitions // []) | length' <<<"$d")" 0
                        ;;
                esac
        done
}
