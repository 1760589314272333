#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli tier: `cephprov plan LAYOUT --inventory FILE` offline, for every shipped layout
# against its saved inventory: the text and JSON plans are the golden files of the unit
# tier (plain ASCII under LC_ALL=C, arrows under a UTF-8 locale), --detailed-exitcode says 10
# (steps to do) or 0 (the converged inventory), --hosts plans only those hosts (another
# host's refusal does not block them), hosts missing from the inventory file are named and
# the others planned (exit 1), --osd-ids shows the ids apply would take, and --json failures
# answer with a JSON error object on stdout.
# usage: test-cli-plan.sh CEPHPROV SRCDIR
set -u
cephprov=$1 src=$2
case $cephprov in /*) ;; *) cephprov=$PWD/$cephprov ;; esac
. "$src/tests/lib.sh"
export LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cephprov-cli-plan.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

data=$src/tests/data
n=0
for layout in "$src"/layouts/*.yaml; do
        name=$(basename "$layout" .yaml)
        inv=$data/inventory-$name.json
        [ -f "$inv" ] || continue
        out=$("$cephprov" plan "$layout" --inventory "$inv" --detail); rc=$?
        check_eq "plan --detail $name exits 0" "$rc" 0
        check_eq "plan --detail $name is the golden plan" "$out" "$(cat "$data/plan-$name.txt")"
        check_eq "plan $name (the preview) has the golden plan's totals" "$("$cephprov" plan "$layout" --inventory "$inv" | grep '^plan:')" \
                "$(grep '^plan:' "$data/plan-$name.txt")"
        out=$("$cephprov" plan "$layout" --inventory "$inv" --json); rc=$?
        check_eq "plan --json $name exits 0" "$rc" 0
        check_eq "plan --json $name is the golden plan" "$out" "$(cat "$data/plan-$name.json")"
        "$cephprov" plan "$layout" --inventory "$inv" --detailed-exitcode >/dev/null; rc=$?
        check_eq "plan --detailed-exitcode $name with steps exits 10" "$rc" 10
        if [ -f "$data/inventory-$name-converged.json" ]; then
                out=$("$cephprov" plan "$layout" --inventory "$data/inventory-$name-converged.json" --detailed-exitcode); rc=$?
                check_eq "plan --detailed-exitcode $name converged exits 0" "$rc" 0
                check "plan $name converged has nothing to do" bash -c \
                        '! grep -v -e "^host .*: nothing to do$" -e "^plan: nothing to do on [0-9]* hosts\?$" -e "^$" <<<"$1" | grep -q .' _ "$out"
        fi
        n=$((n + 1))
done
check "every shipped layout with an inventory was planned" [ "$n" -ge 4 ]

# what the plans and the docs tell an operator to run exists: every `cephprov VERB` they name
# is a verb of `cephprov help` (scenario 3's plan once sent operators to a `cephprov convert`
# that did not exist)
verbs=$("$cephprov" help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
named=$(for layout in "$src"/layouts/*.yaml; do
                name=$(basename "$layout" .yaml)
                [ -f "$data/inventory-$name.json" ] && "$cephprov" plan "$layout" --inventory "$data/inventory-$name.json"
        done; cat "$src"/README.md "$src"/docs/*.md "$src"/playbooks/README.md "$src"/man/*.in "$src"/layouts/*.yaml)
# as commands are written there: in backquotes, after a prompt, in bold in the man pages
for v in $(grep -oE '(`|^\$ |\\fB)cephprov [a-z][a-z-]*' <<<"$named" | sed 's/.*cephprov //' | sort -u); do
        check "'cephprov $v' named in a plan or the docs is a verb" grep -qx "$v" <<<"$verbs"
done
check "scenario 3's plan names the convert verb" bash -c 'grep -q "cephprov convert" <<<"$1"' _ \
        "$("$cephprov" plan "$src/layouts/scenario-3-filestore.yaml" --inventory "$data/inventory-scenario-3-filestore.json")"

layout=$src/layouts/scenario-1-hyperconverged.yaml
out=$("$cephprov" plan "$layout" --inventory "$data/inventory-scenario-1-hyperconverged.json" --hosts node2); rc=$?
check_eq "plan --hosts exits 0" "$rc" 0
check_contains "plan --hosts keeps node2" "$out" "host node2:"
check "plan --hosts drops node1 and node3" bash -c '! grep -q -e "^host node1" -e "^host node3" <<<"$1"' _ "$out"

err=$("$cephprov" plan "$layout" --inventory "$data/no-such-inventory.json" 2>&1 >/dev/null); rc=$?
check_eq "plan with a missing inventory exits 1" "$rc" 1
check_contains "plan with a missing inventory names it" "$err" "no-such-inventory.json"

inv1=$data/inventory-scenario-1-hyperconverged.json
out=$("$cephprov" plan "$layout" --inventory "$inv1" --detail)
check "plan under LC_ALL=C is plain ASCII" bash -c '! LC_ALL=C grep -q -P "[^\\x00-\\x7f]" <<<"$1"' _ "$out"
check_contains "plan under LC_ALL=C draws -> arrows" "$out" "blast radius: /dev/sda -> /dev/sdc, /dev/sde (2 OSDs)"
if locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$'; then
        out=$(LC_ALL=C.UTF-8 "$cephprov" plan "$layout" --inventory "$inv1" --detail)
        check_contains "plan under C.UTF-8 draws arrows" "$out" "blast radius: /dev/sda → /dev/sdc, /dev/sde (2 OSDs)"
else
        echo "SKIP: no C.UTF-8 locale (the UTF-8 form is checked by the unit test)"
fi
check_contains "plan names devices by id" "$out" \
        "/dev/sdc         /dev/disk/by-id/ata-ST2000NM0135_ZFL01410K, 1.8 TiB rotational, data of slot 0"
check_contains "plan lists kept partitions" "$out" "kept: 1 'BIOS boot' 1 MiB, 2 'os' (md0) 8 GiB, 3 'swap' (md1) 256 GiB"
check_contains "plan has a total per plan" "$out" "plan: 84 steps on 3 hosts, 12 new OSDs, 21.8 TiB raw"

if command -v python3 >/dev/null; then
        # node1 refused (an xfs signature on a data disk), node3 not in the file
        python3 - "$inv1" "$tmp/inv.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["inventories"] = [i for i in d["inventories"] if i["host"] != "node3"]
for dev in d["inventories"][0]["devices"]:
    if dev["path"] == "/dev/sdc":
        dev["content"]["fstype"] = "xfs"
json.dump(d, open(sys.argv[2], "w"))
PY
        err=$("$cephprov" plan "$layout" --inventory "$tmp/inv.json" 2>&1 >/dev/null); rc=$?
        check_eq "plan with a refused host exits 1" "$rc" 1
        check_contains "plan names the refused host" "$err" "host 'node1': data device '/dev/sdc' carries an existing xfs signature"
        out=$("$cephprov" plan "$layout" --inventory "$tmp/inv.json" --hosts node2); rc=$?
        check_eq "plan --hosts node2 is not blocked by node1's refusal" "$rc" 0
        check_contains "plan --hosts node2 plans node2" "$out" "host node2: 28 steps"
        check "plan --hosts node2 reports only node2" bash -c '! grep -q -e "node1" -e "node3" <<<"$1"' _ "$out"
        out=$("$cephprov" plan "$layout" --inventory "$tmp/inv.json" --hosts node2,node3 2>"$tmp/err"); rc=$?
        check_eq "plan with a host missing from the inventory exits 1" "$rc" 1
        check_contains "the missing host is named on stderr" "$(cat "$tmp/err")" \
                "host 'node3': not in the inventory file '$tmp/inv.json': not planned"
        check_contains "the missing host is named in the plan" "$out" "host node3: not planned: the inventory has no entry for it"
        check_contains "the other host is planned" "$out" "host node2: 28 steps"
        out=$("$cephprov" plan "$layout" --inventory "$tmp/inv.json" --hosts node2,node3 --json 2>/dev/null)
        check "plan --json lists the missing host" python3 -c \
                'import json,sys; j=json.loads(sys.argv[1]); assert j["format"] == 1 and j["missing_hosts"] == ["node3"] and [h["host"] for h in j["hosts"]] == ["node2"]' "$out"
else
        echo "SKIP: python3 missing (the refused and missing host checks)"
fi

# Not enough free space on two hosts: both named at the layout's line with what is needed
# against what is there, the third host still planned, exit 1 (text and JSON)
if command -v python3 >/dev/null; then
        sed 's/cache_size: 60G/cache_size: 100G/' "$layout" >"$tmp/big-cache.yaml"
        python3 - "$inv1" "$tmp/inv-big.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for inv in d["inventories"]:
    if inv["host"] == "node3":  # node3's SSDs are 960 GB ones: room for 2 x (30 + 100) GiB
        for dev in inv["devices"]:
            if not dev["rotational"]:
                dev["size"] += 480 * 10**9
                dev["last_usable"] += 480 * 10**9
json.dump(d, open(sys.argv[2], "w"))
PY
        line=$(grep -n 'cache_size: 100G' "$tmp/big-cache.yaml" | cut -d: -f1)
        out=$("$cephprov" plan "$tmp/big-cache.yaml" --inventory "$tmp/inv-big.json" 2>"$tmp/err"); rc=$?
        err=$(cat "$tmp/err")
        check_eq "not enough space on two hosts: exit 1" "$rc" 1
        for h in node1 node2; do
                check_contains "not enough space: $h's refusal names the layout line, what is needed and what is there" "$err" \
                        "$tmp/big-cache.yaml:$line:19: host '$h': not enough free space on '/dev/sda' for the 100 GiB bcache cache partition of slot 2 (/dev/sde): it needs 100 GiB, the largest free extent is 23.1 GiB; the layout's new partitions there need 260 GiB in all, and 183.1 GiB is free before the plan"
                check_contains "not enough space: $h named in the plan as refused" "$out" "host $h: not planned: refused: $tmp/big-cache.yaml:$line:19: host '$h': not enough free space"
        done
        out=$("$cephprov" --color=always plan "$tmp/big-cache.yaml" --inventory "$tmp/inv-big.json" 2>/dev/null)
        check_contains "--color=always colours 'refused' in the plan (as documented)" "$out" \
                "host node1: not planned: "$'\033[1;31mrefused\033[0m'": "
        check_contains "not enough space: the third host is still planned" "$out" "host node3: 28 steps"
        check_contains "not enough space: the totals count the refused hosts" "$out" "plan: 28 steps on 1 host, 4 new OSDs"
        check_contains "not enough space: the totals say how many were refused" "$out" "; 2 hosts refused"
        out=$("$cephprov" plan "$tmp/big-cache.yaml" --inventory "$tmp/inv-big.json" --json 2>/dev/null); rc=$?
        check_eq "not enough space --json: exit 1" "$rc" 1
        check "not enough space --json: the plan of node3 and both refusals" python3 -c '
import json, sys
j = json.loads(sys.argv[1])
assert [h["host"] for h in j["hosts"]] == ["node3"], j["hosts"]
r = j["refused_hosts"]
assert [x["host"] for x in r] == ["node1", "node2"], r
assert all("not enough free space" in x["message"] and ":%s:19: " % sys.argv[2] in x["message"] for x in r), r
' "$out" "$line"

        # a size range that matches no disk: each candidate with why, sizes in both units
        sed 's/size: 1.5T..2.5T/size: 2T..4T/' "$layout" >"$tmp/range.yaml"
        line=$(grep -n 'size: 2T..4T' "$tmp/range.yaml" | cut -d: -f1)
        err=$("$cephprov" plan "$tmp/range.yaml" --inventory "$inv1" --hosts node1 2>&1 >/dev/null); rc=$?
        check_eq "a size range matching no disk: exit 1" "$rc" 1
        check_eq "a size range matching no disk: the candidates rejected and why, in TB and TiB" "$err" \
                "cephprov: error: $tmp/range.yaml:$line:13: host 'node1': profile 'hc-1u' selects no data device of size 2T..4T: rejected: /dev/sda, /dev/sdb: not rotational; /dev/sdc, /dev/sdd, /dev/sde, /dev/sdf: 2.00 TB = 1.82 TiB, below the minimum 2.20 TB = 2 TiB"
        out=$("$cephprov" plan "$tmp/range.yaml" --inventory "$inv1" --json --hosts node1 2>/dev/null)
        check "a size range matching no disk --json: refused, with the position" python3 -c '
import json, sys
j = json.loads(sys.argv[1])
assert j["hosts"] == [] and j["refused_hosts"][0]["host"] == "node1", j
assert "1.82 TiB" in j["refused_hosts"][0]["message"]
' "$out"
else
        echo "SKIP: python3 missing (not enough space, size range checks)"
fi

# --osd-ids: `ceph osd ls` (plain or -f json) of the cluster
printf '0\n1\n2\n3\n5\n' >"$tmp/ids"
out=$("$cephprov" plan "$layout" --inventory "$inv1" --osd-ids "$tmp/ids"); rc=$?
check_eq "plan --osd-ids exits 0" "$rc" 0
check_contains "plan --osd-ids shows the ids" "$out" \
        "OSD ids: 4, 6-16 (the lowest free ones, in plan order, if nothing else allocates first)"
check_contains "plan --osd-ids shows the id per OSD (the preview)" "$out" "bluestore  hdd    osd.4   create"
check_contains "plan --osd-ids shows the id per OSD (--detail)" \
        "$("$cephprov" plan "$layout" --inventory "$inv1" --osd-ids "$tmp/ids" --detail)" "bluestore  osd.4"
echo '[0, 1, 2, 3, 5]' >"$tmp/ids.json"
out=$("$cephprov" plan "$layout" --inventory "$inv1" --osd-ids "$tmp/ids.json" --json)
check_contains "plan --json --osd-ids carries osd_id" "$out" '"osd_id": 16,'
out=$("$cephprov" plan "$layout" --inventory "$inv1")
check "plan without --osd-ids shows no ids" bash -c '! grep -q "OSD ids" <<<"$1"' _ "$out"
echo '[0, x]' >"$tmp/bad-ids"
err=$("$cephprov" plan "$layout" --inventory "$inv1" --osd-ids "$tmp/bad-ids" 2>&1 >/dev/null); rc=$?
check_eq "plan with unreadable --osd-ids exits 1" "$rc" 1
check_contains "plan with unreadable --osd-ids names the file" "$err" "'$tmp/bad-ids': 'x' is not an OSD id"

# --json failures: the message on stderr and a JSON error object on stdout
out=$("$cephprov" plan "$layout" --inventory "$data/no-such-inventory.json" --json 2>"$tmp/err"); rc=$?
check_eq "plan --json with a missing inventory exits 1" "$rc" 1
check_contains "plan --json failure: message on stderr" "$(cat "$tmp/err")" "no-such-inventory.json"
check_eq "plan --json failure: JSON error on stdout" "$out" "{
  \"format\": 1,
  \"kind\": \"error\",
  \"error\": {
    \"message\": \"cannot open '$data/no-such-inventory.json': No such file or directory\"
  }
}"
# issue 30: a db_size share of the fast device that lands outside Ceph's 1-4 % of the data
# device is warned about, with both figures, in the text and the JSON
sed 's/db_size: .*/db_size: 1%/' "$layout" >"$tmp/pct.yaml"
out=$("$cephprov" plan "$tmp/pct.yaml" --inventory "$inv1" 2>/dev/null)
check_contains "db_size 1% of the fast device: warned with both figures" "$out" \
        "  warning: db_size 1% (line 31) is a share of the fast device: 4.5 GiB per OSD, 0.24% of its 1.8 TiB data device; Ceph recommends a DB of 1% to 4% of the data device (18.6 GiB to 74.5 GiB here)"
check_eq "... once per host" "$(grep -c 'warning: db_size 1%' <<<"$out")" 3
check_eq "... and in the JSON" "$("$cephprov" plan "$tmp/pct.yaml" --inventory "$inv1" --json 2>/dev/null |
        python3 -c 'import json, sys; print(sum(len(h.get("warnings", [])) for h in json.load(sys.stdin)["hosts"]))')" 3
sed 's/db_size: .*/db_size: 10%/' "$layout" >"$tmp/pct10.yaml"
check "db_size 10% (22 GiB of a 1.8 TiB HDD, 1.2%): no warning" bash -c '! "$1" plan "$2" --inventory "$3" 2>/dev/null | grep -q "warning: db_size"' _ "$cephprov" "$tmp/pct10.yaml" "$inv1"

# issue 30: the OSD preview first (one line per OSD, as cephadm's OSDSPEC PREVIEWS), the
# steps with --detail
out=$("$cephprov" plan "$layout" --inventory "$inv1" --osd-ids <(echo '[0, 1]') 2>/dev/null)
check_eq "preview: its title and header first" "$(head -n2 <<<"$out")" "OSD PREVIEW
HOST         DATA                                           DB                 WAL                CACHE                STORE      CLASS  OSD     ACTION"
check_contains "preview: an OSD's line (data by id, DB and cache partitions with their sizes, class, id, action)" "$out" \
        "node1        /dev/sdc (ata-ST2000NM0135_ZFL01410K)          sda4 30 GiB        -                  sda5 60 GiB          bluestore  hdd    osd.2   create"
check_eq "preview: one line per new OSD" "$(grep -c ' create$' <<<"$out")" 12
check_contains "preview: each host's summary" "$out" "host node3: 28 steps, 4 new OSDs"
check "preview: no step list" bash -c '! grep -q "create-partition" <<<"$1"' _ "$out"
check "preview: 12 OSDs on 3 hosts in one screen (< 30 lines, --detail: > 100)" test "$(wc -l <<<"$out")" -lt 30
detail=$("$cephprov" plan "$layout" --inventory "$inv1" --detail 2>/dev/null)
check_contains "--detail: every step" "$detail" "create-partition"
check "--detail: no preview table" bash -c '! grep -q "^OSD PREVIEW" <<<"$1"' _ "$detail"
check_eq "the totals are the same either way" "$(grep '^plan:' <<<"$out")" "$(grep '^plan:' <<<"$detail")"

# issue 30: every --json document says its format and kind first (docs/json.md)
fk() { python3 -c 'import json, sys; d = json.load(sys.stdin); print(list(d)[:2], d.get("format"), d.get("kind"))'; }
check_eq "plan --json: format and kind first" "$("$cephprov" plan "$layout" --inventory "$inv1" --json 2>/dev/null | fk)" \
        "['format', 'kind'] 1 plan"
check_eq "validate --json (a layout): format and kind first" "$("$cephprov" validate "$layout" --json 2>/dev/null | fk)" \
        "['format', 'kind'] 1 layout"
check_eq "validate --json (a playbook): format and kind first" \
        "$("$cephprov" validate "$src/playbooks/drain-node.yaml" --json 2>/dev/null | fk)" "['format', 'kind'] 1 playbook"
check_eq "validate --json --hosts (a playbook's plan): format and kind first" \
        "$("$cephprov" validate "$src/playbooks/drain-node.yaml" --hosts node1 --json 2>/dev/null | fk)" \
        "['format', 'kind'] 1 playbook-plan"
check_eq "an error document: format and kind first" "$("$cephprov" plan "$layout" --inventory /nonexistent --json 2>/dev/null |
        python3 -c 'import json, sys; print(list(json.load(sys.stdin)))')" "['format', 'kind', 'error']"
check "plan --inventory reads an inventory document that says its kind" bash -c \
        'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d[\"kind\"]=\"inventory\"; json.dump(d,open(sys.argv[2],\"w\"))" "$2" "$3" &&
         "$1" plan "$4" --inventory "$3" >/dev/null 2>&1' _ "$cephprov" "$inv1" "$tmp/inv-kind.json" "$layout"

# issue 30: --hosts takes host patterns (globs, as cephadm's host_pattern)
out=$("$cephprov" plan "$src/layouts/scenario-2-bulk-nvme.yaml" --inventory "$data/inventory-scenario-2-bulk-nvme.json" \
        --hosts 'bulk[24]' 2>/dev/null | grep '^host ')
check_eq "--hosts 'bulk[24]': the hosts it matches, in layout order" "$out" "host bulk2: 57 steps, 8 new OSDs
host bulk4: 57 steps, 8 new OSDs"
err=$("$cephprov" plan "$src/layouts/scenario-2-bulk-nvme.yaml" --inventory "$data/inventory-scenario-2-bulk-nvme.json" \
        --hosts 'rack*' 2>&1); rc=$?
check_eq "--hosts pattern matching no host: exit 1" "$rc" 1
check_eq "--hosts pattern matching no host: says so" "$err" \
        "cephprov: error: --hosts pattern 'rack*' matches no host of layout '$src/layouts/scenario-2-bulk-nvme.yaml'"

# issue 30: a wipe says what it destroys, and the totals count the devices and bytes wiped
python3 - "$inv1" "$tmp/inv-wipe.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for inv in d["inventories"]:
    if inv["host"] != "node1":
        continue
    for dev in inv["devices"]:
        if dev["path"] == "/dev/sdc":
            dev["content"] = {"fstype": "xfs", "uuid": "6f0c1c2e-0000-4000-8000-000000000001", "label": "backup-data"}
        if dev["path"] == "/dev/sdd":
            dev["pttype"] = "gpt"
            dev["partitions"] = [{"number": 1, "start": 1048576, "size": 1073741824, "node": "/dev/sdd1",
                                  "partuuid": "6f0c1c2e-0000-4000-8000-000000000002", "name": "pv",
                                  "type_guid": "e6d6d379-f507-44c2-a23c-238f2a3df928",
                                  "content": {"fstype": "LVM2_member", "uuid": "abcdef"}}]
json.dump(d, open(sys.argv[2], "w"))
PY
sed 's/^\(    db_size: .*\)$/\1\n    wipe: true/' "$layout" >"$tmp/wipe.yaml"
out=$("$cephprov" plan "$tmp/wipe.yaml" --inventory "$tmp/inv-wipe.json" --detail 2>/dev/null)
check_contains "a wipe names the filesystem and its label" "$out" \
        "wipe signatures and partition table of /dev/sdc (wipe: true): 1.8 TiB, xfs 'backup-data'"
check_contains "a wipe names the partition table and what its partitions hold" "$out" \
        "wipe signatures and partition table of /dev/sdd (wipe: true): 1.8 TiB, a gpt table of 1 partition (LVM2_member)"
check_contains "the totals count the devices and bytes wiped" "$out" "; wipes 2 devices (3.6 TiB)"

# issue 30: arguments checked before anything, stdin, a read limit, lists that add up
out=$("$cephprov" plan "$layout" --inventory - <"$inv1" 2>/dev/null); rc=$?
check_eq "--inventory - reads stdin: exit 0" "$rc" 0
check_eq "--inventory - is the file's plan" "$out" "$("$cephprov" plan "$layout" --inventory "$inv1" 2>/dev/null)"
err=$("$cephprov" plan "$layout" --inventory - </dev/null 2>&1); rc=$?
check_eq "--inventory - with nothing on stdin: exit 1" "$rc" 1
check_contains "... naming standard input" "$err" "'standard input': invalid JSON near offset 0"
err=$(timeout 20 "$cephprov" plan "$layout" --inventory "$inv1" --osd-ids /dev/zero 2>&1); rc=$?
check_eq "--osd-ids /dev/zero: refused, not read forever (exit 1)" "$rc" 1
check_eq "--osd-ids /dev/zero: says why" "$err" "cephprov: error: '/dev/zero' is larger than 64 MiB: not what cephprov reads there"
out=$("$cephprov" plan "$layout" --inventory "$inv1" --hosts node1 --hosts node2,node1 2>/dev/null | grep '^host ')
check_eq "--hosts given twice: the lists add up, each host once" "$out" "host node1: 28 steps, 4 new OSDs
host node2: 28 steps, 4 new OSDs"
# a host not in the layout is named before any connection (the layout's hosts do not exist:
# a connection would take the SSH timeouts and say so)
for verb in apply status inventory; do
        err=$(timeout 20 "$cephprov" $verb "$layout" --hosts node7 2>&1); rc=$?
        check_eq "$verb --hosts node7: exit 1" "$rc" 1
        check_eq "$verb --hosts node7: named at once, with the nearest host" "$err" \
                "cephprov: error: host 'node7' given with --hosts is not in layout '$layout' (did you mean 'node1'?)"
done
err=$(timeout 20 "$cephprov" apply "$layout" --take-back nodeX --dry-run 2>&1); rc=$?
check_eq "apply --take-back nodeX: exit 1 before any connection" "$rc" 1
check_contains "... naming it" "$err" "host 'nodeX' given with --take-back is not in layout"

bad=$data/layout-invalid/admin-host-ambiguous.yaml
out=$("$cephprov" plan "$bad" --inventory "$inv1" --json 2>/dev/null); rc=$?
check_eq "plan --json with an invalid layout exits 1" "$rc" 1
check_eq "plan --json invalid layout: error with file, line and column" "$out" "{
  \"format\": 1,
  \"kind\": \"error\",
  \"error\": {
    \"message\": \"admin_host 'node3' is not in 'hosts' (expected one of: node1, node2)\",
    \"file\": \"$bad\",
    \"line\": 2,
    \"column\": 15
  }
}"
out=$("$cephprov" inventory "$bad" --json 2>/dev/null); rc=$?
check_eq "inventory --json with an invalid layout exits 1" "$rc" 1
check_contains "inventory --json invalid layout: a JSON error object" "$out" "\"error\": {
    \"message\": \"admin_host 'node3' is not in 'hosts' (expected one of: node1, node2)\",
    \"file\": \"$bad\","

finish
