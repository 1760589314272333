#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The agent's bcache lifecycle against a real bcache driver: Debian's own kernel in qemu
# (contrib/vm/vm), the real cephprov binary serving its protocol on a virtio serial port,
# an "SSD" (rotation_rate=1) and an "HDD" (rotation_rate=7200). Everything in the guest is
# done through the protocol (configure, create-gpt, create-partition, make-bcache, register,
# attach, tune, inventory, run, bcache-teardown, wipe); the planner is run on the guest's
# inventory to check that it has what the planner needs.
#
# usage: test-vm-bcache.sh CEPHPROV   (env VM: contrib/vm/vm; VM_KEEP=1 keeps the run
# directory with the guest's console log and disk images)
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

cephprov=${1:?usage: test-vm-bcache.sh CEPHPROV}
VM=${VM:-$(dirname "$0")/../../contrib/vm/vm}
BCACHE_GUID=c6b0f3a9-3ae3-4dd0-98bb-6e54b7b7b9f6 # src/plan/plan.h

command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"
command -v jq >/dev/null || skip "jq not found"

t0=$SECONDS
"$VM" build
rc=$?
[ "$rc" -eq 2 ] && skip "the vm guest cannot be built here (see above)"
[ "$rc" -eq 0 ] || { echo "FAIL vm build (exit $rc)"; exit 1; }
t_build=$((SECONDS - t0))

run=$(mktemp -d "${TMPDIR:-/tmp}/cephprov-vm.XXXXXX")
cleanup() {
        "$VM" stop "$run"
        if [ "${failures:-0}" -gt 0 ] && [ -f "$run/console.log" ]; then
                echo "--- guest console (last 40 lines)"
                tail -40 "$run/console.log"
                echo "--- qemu"
                tail -5 "$run/qemu.log"
        fi
        if [ -n "${VM_KEEP:-}" ]; then
                echo "kept: $run (console.log, disk images)"
        else
                rm -rf "$run"
        fi
}
trap cleanup EXIT

t0=$SECONDS
"$VM" start "$run" "$cephprov" || { echo "FAIL vm start"; exit 1; }
# read-write opens never block, even when qemu died before opening its ends; reads then
# notice a dead qemu (readline) instead of waiting for a timeout
exec {IN}<>"$run/agent.in" {OUT}<>"$run/agent.out"
qemu_pid=$(cat "$run/qemu.pid")
readline() { # readline VAR: one line from the guest within 180 s, while qemu lives
        local i part="" chunk
        for ((i = 0; i < 180; i++)); do
                if IFS= read -t 1 -r chunk <&"$OUT"; then
                        printf -v "$1" '%s' "$part$chunk"
                        return 0
                fi
                part+=$chunk # a timed-out read keeps what it got of the line
                kill -0 "$qemu_pid" 2>/dev/null || return 1
        done
        return 1
}

# One request: answer = its answer line, progress = its progress lines.
id=0 answer="" progress=""
call() { # call OP [ARGS-JSON]
        local line
        id=$((id + 1)) answer="" progress=""
        printf '{"id":%d,"op":"%s","args":%s}\n' "$id" "$1" "${2:-"{}"}" >&"$IN"
        while readline line; do
                case $line in
                *'"progress":'*) progress+=$line$'\n' ;;
                *) answer=$line; break ;;
                esac
        done
        if [ -z "$answer" ]; then
                failures=$((failures + 1))
                echo "FAIL no answer to '$1' from the guest"
                exit 1
        fi
}
get() { jq -r "$1" <<<"$answer"; }
jq_true() { jq -e "$1" >/dev/null; } # jq_true FILTER <JSON
call_ok() { # call_ok DESCRIPTION OP [ARGS]: the op answers ok
        local what=$1; shift
        call "$@"
        check "$what" jq_true '.ok == true' <<<"$answer" || echo "  $answer"
}
# A command in the guest through the `run` op: gexit, gout, gerr.
guest() {
        local argv="" x
        for x; do argv+=${argv:+,}$(jq -n --arg x "$x" '$x'); done
        call run "{\"argv\":[$argv],\"timeout\":120}"
        gexit=$(get '.result.exit // "none"') gout=$(get '.result.stdout // ""') gerr=$(get '.result.stderr // ""')
}

hello=""
readline hello
t_boot=$((SECONDS - t0))
check_eq "hello from the guest's agent" "$(jq -r '.hello.host + " " + (.hello.protocol|tostring)' <<<"$hello")" "cephprov-vm 1"
[ -n "$hello" ] || exit 1

# ---- which disk is which: the guest names them sda/sdb in any order
call_ok "configure" configure '{"host":"vm","allow":["/dev/sd*"]}'
call_ok "inventory of the blank disks" inventory
check_eq "bcache available in the guest" "$(get .result.bcache_available)" "true"
ssd=$(get '.result.devices[] | select(.rotational == false) | .path')
hdd=$(get '.result.devices[] | select(.rotational == true) | .path')
check_eq "one SSD (rotation_rate=1), one HDD" "$(wc -w <<<"$ssd $hdd")" "2"
inv0=$(get .result)
call_ok "configure with the two disks" configure "{\"host\":\"vm\",\"allow\":[\"$ssd\",\"$hdd\"]}"

# ---- the planner's steps for this host (the cache partition's place and name come from it)
cat >"$run/layout.yaml" <<EOF
cluster:
  name: ceph
  admin_host: vm
profiles:
  vm:
    allow: [$ssd, $hdd]
    data:
      rotational: true
    fast:
      devices: [$ssd]
      data_per_fast: 1
    bcache:
      cache_size: 50%
      cache_mode: writeback
      sequential_cutoff: 0
      writeback_percent: 10
hosts:
  - name: vm
    profile: vm
EOF
plan() { # plan INVENTORY-JSON → the host's steps, one JSON object per line
        jq -n --argjson i "$1" '{format: 1, inventories: [$i]}' >"$run/inventory.json"
        "$cephprov" plan "$run/layout.yaml" --inventory "$run/inventory.json" --json | jq -c '.hosts[0].steps[]'
}
steps=$(plan "$inv0")
check_eq "plan on the blank disks" "$(jq -r .kind <<<"$steps" | tr '\n' ' ')" \
        "create-gpt create-partition make-bcache-cache make-bcache-backing bcache-attach bcache-tune create-osd "
part=$(jq -c 'select(.kind == "create-partition")' <<<"$steps")
check_eq "the planned partition is a bcache cache" "$(jq -r .type_guid <<<"$part")" "$BCACHE_GUID"
partname=$(jq -r .partname <<<"$part")

# ---- cache partition on the SSD, bcache superblocks
call_ok "create-gpt on the SSD" create-gpt "{\"device\":\"$ssd\"}"
call_ok "create-partition (cache)" create-partition "$(jq -c '{device, number: .partnum, offset, size, name: .partname, type_guid}' <<<"$part")"
cache_node=$(get .result.node)
guest sgdisk -i 1 "$ssd"
check_contains "partition type on disk (sgdisk)" "${gout,,}" "$BCACHE_GUID"

call_ok "make-bcache cache by GPT name" make-bcache "{\"device\":\"$ssd\",\"partname\":\"$partname\",\"role\":\"cache\"}"
check_eq "cache created" "$(get .result.created)" "true"
cset=$(get .result.set_uuid)
check "cache set uuid" test "${#cset}" -eq 36
guest ls /sys/fs/bcache
check_contains "cache set registered in the kernel" "$gout" "$cset"

call_ok "make-bcache backing" make-bcache "{\"device\":\"$hdd\",\"role\":\"backing\"}"
check_eq "backing created, attached to no set" "$(get '[.result.created, .result.set_uuid] | tostring')" "[true,null]"
buuid=$(get .result.uuid)
guest bcache-super-show "$hdd"
check_contains "backing superblock (bcache-super-show)" "$gout" "$buuid"
guest ls /sys/block
check "registered: /dev/bcache0 exists" grep -q -x bcache0 <<<"$gout"
guest cat /sys/block/bcache0/bcache/sequential_cutoff
check_eq "sequential_cutoff of a new bcache device: the default" "$gout" "4.0M"

# ---- "already registered" is success; a device that is no bcache device is not
call_ok "make-bcache backing again: nothing to do" make-bcache "{\"device\":\"$hdd\",\"role\":\"backing\"}"
check_eq "same superblock kept" "$(get '[.result.created, .result.uuid] | tostring')" "[false,\"$buuid\"]"
call_ok "bcache-register of a registered backing device" bcache-register "{\"device\":\"$hdd\"}"
call_ok "bcache-register of a registered cache device" bcache-register "{\"device\":\"$ssd\",\"partname\":\"$partname\"}"
guest bash -c "echo $hdd >/sys/fs/bcache/register"
check "the kernel refuses a second registration (EINVAL/EBUSY/EEXIST)" \
        grep -q -E 'Invalid argument|busy|exists' <<<"$gerr"
call bcache-register "{\"device\":\"$ssd\"}"
check_eq "bcache-register of a GPT disk fails" "$(get '.ok')" "false"

# ---- attach, tune
call_ok "bcache-attach by cache set" bcache-attach "{\"backing\":\"$hdd\",\"cache_device\":\"$ssd\",\"cache_partname\":\"$partname\"}"
check_eq "attached to the cache set" "$(get '[.result.attached, .result.set_uuid] | tostring')" "[true,\"$cset\"]"
call_ok "bcache-attach again" bcache-attach "{\"backing\":\"$hdd\",\"cache\":\"$cache_node\"}"
check_eq "already attached: attached false" "$(get .result.attached)" "false"

call_ok "bcache-tune" bcache-tune "{\"backing\":\"$hdd\",\"cache_mode\":\"writeback\",\"sequential_cutoff\":0,\"writeback_percent\":10}"
rule=$(get .result.udev_rule)
check_eq "udev rule path" "$rule" "/etc/udev/rules.d/69-cephprov-bcache-$buuid.rules"
guest cat "$rule"
check_eq "udev rule content" "$(grep -v '^#' <<<"$gout")" \
"ACTION==\"add|change\", SUBSYSTEM==\"block\", KERNEL==\"bcache*\", ENV{CACHED_UUID}==\"$buuid\", \\
  RUN+=\"/bin/sh -c 'for s in /sys/block/%k/slaves/*; do b=/sys/class/block/\$\${s##*/}/bcache; [ -d \$\$b ] || continue; echo writeback >\$\$b/cache_mode; echo 0 >\$\$b/sequential_cutoff; echo 10 >\$\$b/writeback_percent; done'\""
guest cat /sys/block/bcache0/bcache/cache_mode /sys/block/bcache0/bcache/sequential_cutoff \
        /sys/block/bcache0/bcache/writeback_percent
check_eq "tuned in the kernel" "$(tr '\n' ' ' <<<"$gout")" "writethrough [writeback] writearound none 0.0k 10 "

# ---- the rule at work, as after a reboot: stop the backing device, register it again (udev's
# bcache-register at boot); the kernel's change uevent for bcacheN carries CACHED_UUID and
# udevd (running in the guest) applies the rule. Without it sequential_cutoff would be
# back to 4.0M (cache_mode alone is kept in the superblock).
guest udevadm control --reload
guest bash -c "echo 1 >/sys/block/${hdd#/dev/}/bcache/stop && for i in \$(seq 100); do [ -e /sys/block/bcache0 ] || exit 0; sleep 0.1; done; exit 1"
check_eq "bcache0 stopped" "$gexit" "0"
call_ok "bcache-register after the stop" bcache-register "{\"device\":\"$hdd\"}"
# The kernel sends the change uevent that carries CACHED_UUID when the registration has
# finished in its own worker, which can be after a first `udevadm settle` returned: wait for
# the rule's effect (at most 10 s) as a booting host would.
want="writethrough [writeback] writearound none 0.0k 10 clean "
for _ in $(seq 50); do
        guest udevadm settle -t 60
        guest bash -c 'cat /sys/block/bcache*/bcache/{cache_mode,sequential_cutoff,writeback_percent,state}'
        [ "$(tr '\n' ' ' <<<"$gout")" = "$want" ] && break
        sleep 0.2
done
check_eq "tuning back after re-registration (udev rule)" "$(tr '\n' ' ' <<<"$gout")" "$want"

# ---- inventory of the built bcache
call_ok "inventory" inventory
inv=$(get .result)
b=$(get ".result.devices[] | select(.path == \"$hdd\") | .content.bcache")
check_eq "backing: role, set, uuid, device, mode, state" \
        "$(jq -c '[.role, .set_uuid, .dev_uuid, .bcache_device, .cache_mode, .state, .sequential_cutoff, .writeback_percent]' <<<"$b")" \
        "[\"backing\",\"$cset\",\"$buuid\",\"/dev/bcache0\",\"writeback\",\"clean\",0,10]"
check_eq "HDD rotational, held by bcache0" \
        "$(get ".result.devices[] | select(.path == \"$hdd\") | [.rotational, .content.holders] | tostring")" '[true,["bcache0"]]'
check_eq "cache partition: role and set" \
        "$(get ".result.devices[] | select(.path == \"$ssd\") | .partitions[0].content.bcache | [.role, .set_uuid] | tostring")" \
        "[\"cache\",\"$cset\"]"
check_eq "/dev/bcache0 listed: not rotational, not allowed" \
        "$(get '.result.devices[] | select(.path == "/dev/bcache0") | [.rotational, .allowed] | tostring')" '[false,false]'

# the planner on this inventory: the bcache is complete, the OSD goes on /dev/bcache0 and is
# classed from the backing device (an HDD), not from bcache0 (rotational 0)
steps=$(plan "$inv")
check_eq "plan after tune: only the OSD left" "$(jq -r .kind <<<"$steps" | tr '\n' ' ')" "create-osd "
echo "  $(jq -c "select(.kind == \"create-osd\")" <<<"$steps")"
check_eq "OSD on the HDD's bcache, class hdd" \
        "$(jq -c 'select(.kind == "create-osd") | [.device, .data_is_bcache, .device_class]' <<<"$steps")" \
        "[\"$hdd\",true,\"hdd\"]"

# ---- data through the cache, then teardown
guest bash -c 'head -c 48M /dev/urandom >/tmp/data && dd if=/tmp/data of=/dev/bcache0 bs=1M oflag=direct status=none && sha256sum </tmp/data'
check_eq "48 MiB written through /dev/bcache0" "$gexit" "0"
sum=${gout%% *}
check "checksum of the data" test "${#sum}" -eq 64
# the part of it that outlives the teardown: bcache0's data starts 8 KiB into the HDD, and the
# teardown zeroes the HDD's first 16 MiB (an OSD's label there must not survive)
zero=$((16 << 20)) tail_from=$(((16 << 20) - 8192))
guest bash -c "tail -c +$((tail_from + 1)) /tmp/data | sha256sum"
sum_tail=${gout%% *}
call_ok "inventory with dirty data" inventory
dirty=$(get ".result.devices[] | select(.path == \"$hdd\") | .content.bcache | [.state, .dirty_bytes] | tostring")
check "writeback: state dirty, dirty data > 0 ($dirty)" jq_true '.[0] == "dirty" and .[1] > 0' <<<"$dirty"

# as after a reboot that did not register the backing device: stopped, its dirty data only
# in the (registered) cache set. Teardown must register it again and flush, not wipe it.
guest bash -c "echo 1 >/sys/block/${hdd#/dev/}/bcache/stop && for i in \$(seq 100); do [ -e /sys/block/bcache0 ] || exit 0; sleep 0.1; done; exit 1"
check_eq "bcache0 stopped with dirty data" "$gexit" "0"
# and first with its cache set stopped too: refused, nothing wiped
guest bash -c "echo 1 >/sys/fs/bcache/$cset/unregister && for i in \$(seq 100); do [ -e /sys/fs/bcache/$cset ] || exit 0; sleep 0.1; done; exit 1"
check_eq "cache set stopped" "$gexit" "0"
call bcache-teardown "{\"backing\":\"$hdd\",\"timeout\":120}"
check_eq "teardown refused: dirty data in a set that is not registered" \
        "$(get '[.error.errno, (.error.message | contains("dirty data in cache set '"$cset"'"))] | tostring')" '["EBUSY",true]'
guest bcache-super-show "$hdd"
check_contains "the backing superblock kept" "$gout" "$buuid"
call_ok "bcache-register of the cache again" bcache-register "{\"device\":\"$ssd\",\"partname\":\"$partname\"}"
call_ok "bcache-teardown" bcache-teardown "{\"backing\":\"$hdd\",\"timeout\":120}"
echo "  progress: ${progress//$'\n'/ }"
check "progress while flushing dirty data" grep -q '"message":"flushing .* dirty data of' <<<"$progress"
check_eq "teardown result" "$(get '.result | [.wiped, .unregistered_set, .wiped_cache, .zeroed] | tostring')" \
        "[\"bcache\",\"$cset\",\"$cache_node\",$zero]"
check_eq "teardown removed the tuning rule bcache-tune installed" "$(get .result.udev_rule_removed)" "$rule"
guest ls "$(dirname "$rule")"
check "the rule is gone from the guest (its directory listed: exit $gexit)" \
        test "$gexit" = 0 -a -z "$(grep -xF "$(basename "$rule")" <<<"$gout")"
guest ls /sys/block /sys/fs/bcache
check "bcache0 gone" test -z "$(grep -x bcache0 <<<"$gout")"
check "cache set unregistered" test -z "$(grep -x "$cset" <<<"$gout")"
guest blkid -p "$hdd"
check_eq "no signature left on the HDD (blkid -p exit 2)" "$gexit" "2"
guest bash -c "dd if=$hdd bs=1M iflag=skip_bytes,count_bytes skip=$zero count=$(((48 << 20) - tail_from)) status=none | sha256sum"
check_eq "the data reached the HDD (written back before detach; past the zeroed start)" "${gout%% *}" "$sum_tail"
guest cmp -n "$zero" "$hdd" /dev/zero
check_eq "the HDD's first 16 MiB zeroed" "$gexit" "0"
# the cache superblock went with its set's unregister (udev would register it again)
guest blkid -p -s TYPE -o value "$cache_node"
check "the cache partition carries no bcache superblock" test "$gout" != bcache

call_ok "wipe the SSD" wipe "{\"device\":\"$ssd\"}"
guest blkid -p "$ssd"
check_eq "no signature left on the SSD" "$gexit" "2"
call_ok "inventory after teardown" inventory
check_eq "both disks blank" "$(get '[.result.devices[] | [.path, .content.fstype, .pttype, (.partitions | length)]] | sort | tostring')" \
        "$(jq -cn --arg a "$ssd" --arg b "$hdd" '[[$a,null,null,0],[$b,null,null,0]] | sort')"
call bcache-teardown "{\"backing\":\"$hdd\"}"
check_eq "teardown of a wiped disk: EINVAL" "$(get .error.errno)" "EINVAL"

# ---- the agent exits, the guest powers itself off
call_ok "exit" exit
for _ in $(seq 300); do kill -0 "$qemu_pid" 2>/dev/null || break; sleep 0.1; done
check "the guest powered off" test ! -d "/proc/$qemu_pid"
t_test=$((SECONDS - t0))
echo "timings: build ${t_build} s, boot ${t_boot} s, boot + test ${t_test} s"
finish
