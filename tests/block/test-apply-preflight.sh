#!/bin/bash
# Preflight (issue 8): a host that lacks what its planned steps need is refused before its
# first step, with the reason, and nothing is done on it. On local loop devices:
#  - a bcache layout where the kernel has no bcache (this machine's, or one where the module
#    is not there to load): `apply --stage disks` refuses the host with the bcache reason
#    and the disks stay byte-identical, with no partition table written (before the
#    preflight, the GPT and every partition were made, then every bcache step failed);
#  - a layout that creates OSDs, run with a PATH that lacks ceph-volume: `plan` and
#    `apply --dry-run` show the host refused with "ceph-volume: not in PATH";
#  - the agent's preflight op on its own: a partition whose free region is taken since the
#    plan, and a device that is not what the plan saw, are refused and named.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/block-lib.sh"

cephprov=${1:?usage: test-apply-preflight.sh CEPHPROV AGENT-TOOL}
agent_tool=${2:?usage: test-apply-preflight.sh CEPHPROV AGENT-TOOL}
# the point is a kernel without bcache; where it has bcache the refusal cannot be shown
[ -e /sys/fs/bcache ] && skip "this kernel has bcache (/sys/fs/bcache): the vm tier covers bcache hosts"
if command -v modprobe >/dev/null && modprobe -n bcache 2>/dev/null; then
        skip "modprobe could load bcache here: the refusal cannot be shown"
fi

block_setup preflight sgdisk partx losetup sha256sum

truncate -s 256M "$dir/ssd.img"
truncate -s 128M "$dir/hdd0.img" "$dir/hdd1.img"
block_attach ssd "$dir/ssd.img" 0
block_attach hdd0 "$dir/hdd0.img" 1
block_attach hdd1 "$dir/hdd1.img" 1
# random bytes, so that "nothing written" is a real claim and not zeros compared to zeros
for l in "$ssd" "$hdd0" "$hdd1"; do
        dd if=/dev/urandom of="$l" bs=1M count=4 conv=notrunc status=none
done
sync
sums_before=$(sha256sum "$ssd" "$hdd0" "$hdd1")

# local1's layout: its SSD holds the DBs of both HDDs; the profile named PROFILE, with
# PROFILE-LINES added to it
layout() { # layout FILE PROFILE [PROFILE-LINES]
        cat >"$1" <<YAML
cluster:
  name: preflight
profiles:
  $2:
    allow: [$ssd, $hdd0, $hdd1]
    data:
      devices: [$hdd0, $hdd1]
    fast:
      devices: [$ssd]
      data_per_fast: 2
    db_size: 64M
${3-}hosts:
  - name: local1
    transport: local
    profile: $2
YAML
}
layout "$dir/bcache.yaml" bc "    bcache:
      cache_size: 32M
"

# --- a bcache layout on a kernel without bcache ---
out=$("$cephprov" plan "$dir/bcache.yaml" --detail 2>&1)
rc=$?
check "plan succeeds: it shows what apply would refuse" test $rc -eq 0
check_contains "plan shows the bcache steps it would need" "$out" "make-bcache-cache"
check_contains "plan shows the host refused with the bcache reason" "$out" \
        "host 'local1': refused: bcache: the kernel has no bcache support (/sys/fs/bcache missing"
check_eq "plan changed nothing" "$(sha256sum "$ssd" "$hdd0" "$hdd1")" "$sums_before"

out=$("$cephprov" apply "$dir/bcache.yaml" --stage disks --yes 2>&1)
rc=$?
echo "$out" | tail -6
check "apply fails when its only host is refused" test $rc -eq 1
check_contains "apply names the host and the bcache reason" "$out" \
        "host 'local1': refused: bcache: the kernel has no bcache support (/sys/fs/bcache missing"
check_contains "apply says nothing is done on it" "$out" "1 host refused by the preflight: nothing is done on it"
case "$out" in
*"FAILED"*|*"done    "*) check "no step ran on the refused host" false ;;
*) check "no step ran on the refused host" true ;;
esac
check_eq "the disks are byte-identical after the refused apply" "$(sha256sum "$ssd" "$hdd0" "$hdd1")" "$sums_before"
check_eq "no partition table was written on the fast device" "$(blkid -p -s PTTYPE -o value "$ssd")" ""
check "the kernel has no partition of the fast device" test ! -e "${ssd}p1"
check "the journal has no step of the refused host" sh -c "! grep -q '\"event\":\"step-' '$dir/state/preflight.journal' 2>/dev/null"

out=$("$cephprov" apply "$dir/bcache.yaml" --stage disks --yes --json 2>/dev/null)
check "apply --json fails too" test $? -eq 1
flat=$(echo "$out" | tr -d ' \n')
check_contains "apply --json counts the refused host" "$flat" '"refused_hosts":1'
check_contains "apply --json carries the reason" "$flat" '"check":"bcache","ok":false,"reason":"thekernelhasnobcachesupport'

# --- a layout that creates OSDs, on a host where ceph-volume is not in PATH ---
layout "$dir/osds.yaml" db
nocv=$dir/bin
mkdir -p "$nocv"
# a PATH with the tools the agent would run, minus ceph-volume (the local transport runs
# the agent in this process: it inherits this PATH)
for t in systemctl make-bcache ceph-osd sh; do
        p=$(command -v "$t") && ln -s "$p" "$nocv/$t"
done
out=$(PATH=$nocv "$cephprov" plan "$dir/osds.yaml" --detail 2>&1)
rc=$?
check "plan succeeds when ceph-volume is missing" test $rc -eq 0
check_contains "plan shows the OSD steps" "$out" "create-osd"
check_contains "plan refuses the host: ceph-volume not in PATH" "$out" \
        "host 'local1': refused: ceph-volume: not in PATH ($nocv)"
out=$(PATH=$nocv "$cephprov" apply "$dir/osds.yaml" --dry-run 2>&1)
check_contains "apply --dry-run shows the refusal" "$out" "host 'local1': refused: ceph-volume: not in PATH"
case "$out" in
*"would run"*) check "apply --dry-run sends no step to the refused host" false ;;
*) check "apply --dry-run sends no step to the refused host" true ;;
esac
check_eq "the disks are still byte-identical" "$(sha256sum "$ssd" "$hdd0" "$hdd1")" "$sums_before"

# --- the agent op itself: free space taken since the plan, a changed device ---
sgdisk -o -n 1:2048:+100M -c 1:someone-else "$ssd" >/dev/null 2>&1
partx -a "$ssd" 2>/dev/null
guid=30cd0809-c2b2-499c-8879-2d6b78529876
resp=$("$agent_tool" call \
        "{\"id\":1,\"op\":\"configure\",\"args\":{\"host\":\"node9\",\"allow\":[\"$ssd\",\"$hdd0\"]}}" \
        "{\"id\":2,\"op\":\"preflight\",\"args\":{\"needs\":[\"libparted\"],
          \"devices\":[{\"path\":\"$ssd\",\"size\":268435456,\"pttype\":null,\"ptuuid\":null,\"fstype\":null,\"partitions\":0},
                       {\"path\":\"$hdd0\",\"size\":268435456}],
          \"steps\":[{\"op\":\"create-gpt\",\"args\":{\"device\":\"$ssd\"}},
                     {\"op\":\"create-partition\",\"args\":{\"device\":\"$ssd\",\"number\":2,\"offset\":104857600,
                      \"size\":104857600,\"name\":\"cp:db:0:node9\",\"type_guid\":\"$guid\"}},
                     {\"op\":\"create-partition\",\"args\":{\"device\":\"$hdd1\",\"number\":1,\"offset\":1048576,
                      \"size\":104857600,\"name\":\"cp:db:1:node9\",\"type_guid\":\"$guid\"}}]}}" | tail -1)
check_contains "preflight answers" "$resp" '"ok":true,"result"'
check_contains "the overlap with a partition made since the plan is refused" "$resp" \
        "partition 2 of '$ssd' (104857600+104857600) would overlap partition 1 'someone-else'"
check_contains "the new partition table is seen" "$resp" \
        "the partition table of '$ssd' changed since the plan: gpt, the plan saw none"
check_contains "a device of another size is refused" "$resp" "'$hdd0' is now 128 MiB, the plan saw 256 MiB"
check_contains "a device outside the allow-list is refused" "$resp" "'$hdd1' is not in the allow-list of 'node9'"
check_contains "the host is refused as a whole" "$resp" '"ok":false}}'

finish
