#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli tier: `cephprov convert LAYOUT --dry-run` offline, from saved files: scenario 3's
# FileStore hosts give the golden convert plan (text and JSON, the unit tier's files), the
# converged hosts nothing to do, --hosts only those hosts, --reshape, a host missing from
# the inventory named (exit 1); without --dry-run or its files it is a usage error (exit 2);
# a broken metadata file is named; --json failures answer with a JSON error object; a plan
# that rebuilds onto bcache says how (cache partition, backing, attach, tuning).
# Then `replace --dry-run` offline: the golden replace plan, an SSD's, refusals, usage errors.
# The FileStore metadata is synthetic, built from Pacific's source (tests/data/ceph/README.md).
# usage: test-cli-convert.sh CEPHPROV SRCDIR
set -u
cephprov=$1 src=$2
case $cephprov in /*) ;; *) cephprov=$PWD/$cephprov ;; esac
. "$src/tests/lib.sh"
export LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cephprov-cli-convert.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

data=$src/tests/data
layout=$src/layouts/scenario-3-filestore.yaml
tree=$data/ceph/synthetic-osd-tree-scenario-3.json
fs=$data/ceph/synthetic-osd-metadata-scenario-3-filestore.json
bs=$data/ceph/synthetic-osd-metadata-scenario-3-converged.json
before=$data/inventory-scenario-3-filestore.json
after=$data/inventory-scenario-3-filestore-converged.json

out=$("$cephprov" convert "$layout" --dry-run --inventory "$before" --osd-tree "$tree" --osd-metadata "$fs"); rc=$?
check_eq "convert --dry-run exits 0" "$rc" 0
check_eq "convert --dry-run is the golden plan" "$out" "$(cat "$data/convert-scenario-3-filestore.txt")"
out=$("$cephprov" convert "$layout" --dry-run --json --inventory "$before" --osd-tree "$tree" --osd-metadata "$fs"); rc=$?
check_eq "convert --dry-run --json exits 0" "$rc" 0
check_eq "convert --dry-run --json is the golden plan" "$out" "$(cat "$data/convert-scenario-3-filestore.json")"

out=$("$cephprov" convert "$layout" --dry-run --inventory "$before" --osd-tree "$tree" --osd-metadata "$fs" --hosts fs2); rc=$?
check_eq "convert --hosts exits 0" "$rc" 0
check_contains "convert --hosts fs2 plans fs2" "$out" "host fs2: 6 OSDs to rebuild"
check "convert --hosts fs2 plans no other host" bash -c '! grep -q -e "^host fs1" -e "^host fs3" <<<"$1"' _ "$out"
check_contains "convert --hosts fs2 totals" "$out" "convert: 6 OSDs to rebuild on 1 host"

out=$("$cephprov" convert "$layout" --dry-run --inventory "$after" --osd-tree "$tree" --osd-metadata "$bs"); rc=$?
check_eq "convert of converged hosts exits 0" "$rc" 0
check_contains "convert of converged hosts: nothing to rebuild" "$out" "convert: 0 OSDs to rebuild on 3 hosts"
# a cluster whose CRUSH hosts are none of the layout's: refused naming both, not "0 OSDs"
sed -e 's/"fs1"/"ceph-a"/g' -e 's/"fs2"/"ceph-b"/g' -e 's/"fs3"/"ceph-c"/g' "$tree" > "$tmp/tree-other-hosts.json"
err=$("$cephprov" convert "$layout" --dry-run --inventory "$after" --osd-tree "$tmp/tree-other-hosts.json" --osd-metadata "$bs" 2>&1 >/dev/null); rc=$?
check_eq "convert where no CRUSH host is a layout host exits 1" "$rc" 1
check_contains "... naming both sides" "$err" \
        "no host of the layout to convert (fs1, fs2, fs3) is a CRUSH host bucket of the cluster (its host buckets: ceph-a, ceph-b, ceph-c)"
check_contains "convert of converged hosts: all in shape" "$out" "host fs1: 0 OSDs to rebuild, 6 already as the layout says"

sed 's/db_size: 60G/db_size: 30G/' "$layout" >"$tmp/layout-30g.yaml"
out=$("$cephprov" convert "$tmp/layout-30g.yaml" --dry-run --inventory "$after" --osd-tree "$tree" --osd-metadata "$bs"); rc=$?
check_eq "convert with another db_size exits 0" "$rc" 0
check_contains "another db_size needs --reshape" "$out" "18 BlueStore OSDs differ from the layout and need --reshape"
check_contains "another db_size: why" "$out" "because: DB of 60 GiB, the layout's db_size is 30 GiB"
out=$("$cephprov" convert "$tmp/layout-30g.yaml" --dry-run --reshape --inventory "$after" --osd-tree "$tree" --osd-metadata "$bs"); rc=$?
check_eq "convert --reshape exits 0" "$rc" 0
check_eq "convert --reshape is the golden plan" "$out" "$(cat "$data/convert-scenario-3-reshape.txt")"

# bcache added: FileStore onto bcache, each OSD on the bcache device of its HDD with its cache
# partition beside its DB, the plan saying so
sed 's/    db_size: 60G/    db_size: 60G\n    bcache:\n      cache_size: 4G/' "$layout" >"$tmp/layout-bcache.yaml"
grep -q 'cache_size: 4G' "$tmp/layout-bcache.yaml" || echo "FAIL: no bcache in the edited layout"
out=$("$cephprov" convert "$tmp/layout-bcache.yaml" --dry-run --inventory "$before" --osd-tree "$tree" --osd-metadata "$fs" 2>"$tmp/err"); rc=$?
check_eq "convert onto bcache exits 0" "$rc" 0 || cat "$tmp/err"
check_contains "convert onto bcache prints the plan" "$out" "host fs1: 6 OSDs to rebuild"
check_contains "convert onto bcache says what it builds" "$out" \
        "note: osd.0 is made on the bcache device of /dev/sdc: a cache superblock on /dev/sda partition"

err=$("$cephprov" convert "$layout" --inventory "$before" --osd-tree "$tree" --osd-metadata "$fs" 2>&1 >/dev/null); rc=$?
check_eq "convert from saved files without --dry-run is a usage error" "$rc" 2
check_contains "convert from saved files without --dry-run says why" "$err" "plan offline: give --dry-run"
err=$("$cephprov" convert "$layout" --dry-run --inventory "$before" --osd-metadata "$fs" 2>&1 >/dev/null); rc=$?
check_eq "convert without --osd-tree is a usage error" "$rc" 2
check_contains "convert names the files it needs" "$err" "needs all three of --inventory, --osd-tree and --osd-metadata"
err=$("$cephprov" plan "$layout" --inventory "$before" --reshape 2>&1 >/dev/null); rc=$?
check_eq "--reshape is convert's only" "$rc" 2

echo '{"id": 0, "bluefs_dedicated_db": "1", "bluefs_db_size": "big"}' >"$tmp/bad.json"
err=$("$cephprov" convert "$layout" --dry-run --inventory "$before" --osd-tree "$tree" --osd-metadata "$tmp/bad.json" 2>&1 >/dev/null); rc=$?
check_eq "a broken metadata file exits 1" "$rc" 1
check_contains "a broken metadata file is named" "$err" "'$tmp/bad.json': ceph osd metadata: key 'bluefs_db_size' is not an integer"
out=$("$cephprov" convert "$layout" --dry-run --json --inventory "$before" --osd-tree "$tree" --osd-metadata "$tmp/bad.json" 2>/dev/null); rc=$?
check_eq "a broken metadata file with --json exits 1" "$rc" 1
check_contains "--json answers with an error object" "$out" '"error"'
err=$("$cephprov" convert "$layout" --dry-run --inventory "$before" --osd-tree "$tree" --osd-metadata "$fs" --hosts fs9 2>&1 >/dev/null); rc=$?
check_eq "convert --hosts with an unknown host exits 1" "$rc" 1
check_contains "the unknown host is named" "$err" "host 'fs9' given with --hosts is not in layout"

if command -v python3 >/dev/null; then
        python3 - "$before" "$tmp/inv.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["inventories"] = [i for i in d["inventories"] if i["host"] != "fs3"]
json.dump(d, open(sys.argv[2], "w"))
PY
        out=$("$cephprov" convert "$layout" --dry-run --inventory "$tmp/inv.json" --osd-tree "$tree" --osd-metadata "$fs" 2>"$tmp/err"); rc=$?
        check_eq "convert with a host missing from the inventory exits 1" "$rc" 1
        check_contains "the missing host is named on stderr" "$(cat "$tmp/err")" \
                "host 'fs3': not in the inventory file '$tmp/inv.json': not planned"
        check_contains "the missing host is named in the plan" "$out" "not planned: host fs3 (no inventory)"
        check_contains "the other hosts are planned" "$out" "convert: 12 OSDs to rebuild on 2 hosts"
else
        echo "SKIP: no python3 (the missing-host case)"
fi

# `cephprov replace LAYOUT HOST DEVICE --dry-run` offline: fs1's /dev/sdd swapped for a new
# blank disk (inventory-scenario-3-filestore-sdd-replaced.json) gives the golden replace
# plan; refusals name the host and the device
replaced=$data/inventory-scenario-3-filestore-sdd-replaced.json
out=$("$cephprov" replace "$layout" fs1 /dev/sdd --dry-run --inventory "$replaced" --osd-tree "$tree" --osd-metadata "$bs"); rc=$?
check_eq "replace --dry-run exits 0" "$rc" 0
check_eq "replace --dry-run is the golden plan" "$out" "$(cat "$data/replace-scenario-3-hdd.txt")"
out=$("$cephprov" replace "$layout" fs1 /dev/sdd --dry-run --json --inventory "$replaced" --osd-tree "$tree" --osd-metadata "$bs"); rc=$?
check_eq "replace --dry-run --json exits 0" "$rc" 0
check_eq "replace --dry-run --json is the golden plan" "$out" "$(cat "$data/replace-scenario-3-hdd.json")"
# an SSD that did not fail (every OSD with its DB there up, labels intact): nothing was
# replaced there, refused rather than planned as "nothing to rebuild"
err=$("$cephprov" replace "$layout" fs1 /dev/sdb --dry-run --inventory "$after" --osd-tree "$tree" --osd-metadata "$bs" 2>&1 >/dev/null); rc=$?
check_eq "replace of an SSD whose OSDs are up with their labels exits 1" "$rc" 1
check_contains "replace of an SSD whose OSDs are up with their labels: refused, naming them" "$err" \
        "host 'fs1': nothing was replaced on '/dev/sdb': osd.3, osd.4, osd.5 (which depend on it) are up with their label intact: refusing"
err=$("$cephprov" replace "$layout" fs1 /dev/sdz --dry-run --inventory "$replaced" --osd-tree "$tree" --osd-metadata "$bs" 2>&1 >/dev/null); rc=$?
check_eq "replace of a device the host does not have exits 1" "$rc" 1
check_contains "the device is named" "$err" "host 'fs1': device '/dev/sdz' is not in its inventory"
err=$("$cephprov" replace "$layout" fs9 /dev/sdd --dry-run 2>&1 >/dev/null); rc=$?
check_eq "replace on a host not in the layout exits 1" "$rc" 1
check_contains "the host is named" "$err" "host 'fs9' is not in the layout"
out=$("$cephprov" replace "$layout" fs1 /dev/sdz --dry-run --json --inventory "$replaced" --osd-tree "$tree" --osd-metadata "$bs" 2>/dev/null); rc=$?
check_eq "replace --json refused exits 1" "$rc" 1
check_contains "replace --json answers with an error object" "$out" '"message": "host '\''fs1'\'': device '\''/dev/sdz'\'''
err=$("$cephprov" replace "$layout" fs1 2>&1 >/dev/null); rc=$?
check_eq "replace without DEVICE is a usage error" "$rc" 2
check_contains "replace says what it expects" "$err" "expected LAYOUT, HOST and DEVICE"
err=$("$cephprov" replace "$layout" fs1 /dev/sdd --inventory "$replaced" --osd-tree "$tree" --osd-metadata "$bs" 2>&1 >/dev/null); rc=$?
check_eq "replace from saved files without --dry-run is a usage error" "$rc" 2

finish
