#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli tier (issue 30): every --json document a command prints offline is checked against its
# schema in docs/schema/ (docs/json.md) with python3-jsonschema: validate (layouts, playbooks,
# a playbook's plan, every invalid layout and playbook of tests/data), plan (every shipped
# layout against its saved inventories, with --osd-ids, and a plan with no host planned),
# convert and replace --dry-run from saved files, the saved inventories, inventory and
# apply --dry-run on a host of the local transport, and the error document of every command
# that needs a cluster (status, lock status, drain, destroy, run, pause, resume: their real
# output is checked in the lab, tests/lab/test-apply-osds.sh) and of usage errors.
# Skips, saying so, without python3-jsonschema (contrib/install-deps.sh installs it; CI has it).
# usage: test-cli-json-schema.sh CEPHPROV SRCDIR
set -u
cephprov=$1 src=$2
case $cephprov in /*) ;; *) cephprov=$PWD/$cephprov ;; esac
. "$src/tests/lib.sh"
export LC_ALL=C
/usr/bin/python3 -c 'import jsonschema' 2>/dev/null ||
        skip "python3-jsonschema is not installed: the --json documents are not checked against docs/schema/ (apt-get install python3-jsonschema, or contrib/install-deps.sh)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cephprov-cli-json-schema.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
data=$src/tests/data
docs=()
n=0
# doc KIND EXPECTED-EXIT COMMAND...: runs the command, keeps its stdout as a document of KIND
doc() {
        local kind=$1 want_rc=$2 rc; shift 2
        n=$((n + 1))
        timeout 60 "$cephprov" "$@" >"$tmp/doc$n.json" 2>"$tmp/err$n"; rc=$?
        check_eq "$* exits $want_rc" "$rc" "$want_rc"
        docs+=("$tmp/doc$n.json=$kind")
}

# validate
for y in "$src"/layouts/*.yaml; do doc layout 0 validate --json "$y"; done
for y in "$src"/playbooks/*.yaml; do
        doc playbook 0 validate --json "$y"
        doc playbook-plan 0 validate --json "$y" --hosts node1,node2
done
for y in "$data"/layout-invalid/*.yaml "$data"/playbook-invalid/*.yaml; do doc error 1 validate --json "$y"; done
doc error 1 validate --json "$tmp/no-such-file.yaml"

# plan, every shipped layout against its inventories (as they are, and converged)
for layout in "$src"/layouts/*.yaml; do
        name=$(basename "$layout" .yaml)
        for inv in "$data/inventory-$name.json" "$data/inventory-$name-converged.json"; do
                [ -f "$inv" ] && doc plan 0 plan --json "$layout" --inventory "$inv"
        done
done
echo '[0, 1, 2, 5]' >"$tmp/ids.json"
doc plan 0 plan --json "$src/layouts/scenario-1-hyperconverged.yaml" --inventory "$data/inventory-scenario-1-hyperconverged.json" \
        --osd-ids "$tmp/ids.json"
failed_plan=$tmp/doc$((n + 1)).json
doc plan 1 plan --json "$src/layouts/all-flash.yaml" --inventory "$data/inventory-scenario-2-bulk-nvme.json"
doc error 1 plan --json "$src/layouts/all-flash.yaml" --inventory "$tmp/no-such-inventory.json"

# convert and replace, from saved inventories and `ceph osd` outputs
l3=$src/layouts/scenario-3-filestore.yaml
tree=$data/ceph/synthetic-osd-tree-scenario-3.json
doc conversion-plan 0 convert "$l3" --dry-run --json --inventory "$data/inventory-scenario-3-filestore.json" \
        --osd-tree "$tree" --osd-metadata "$data/ceph/synthetic-osd-metadata-scenario-3-filestore.json"
doc conversion-plan 0 replace "$l3" fs1 /dev/sdd --dry-run --json --inventory "$data/inventory-scenario-3-filestore-sdd-replaced.json" \
        --osd-tree "$tree" --osd-metadata "$data/ceph/synthetic-osd-metadata-scenario-3-converged.json"

# the saved inventories are inventory documents (kind is optional there: added here)
for inv in "$data"/inventory-*.json; do
        n=$((n + 1))
        /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["kind"] = "inventory"; json.dump(d, open(sys.argv[2], "w"))' \
                "$inv" "$tmp/doc$n.json"
        docs+=("$tmp/doc$n.json=inventory")
done

# this machine as a host of the local transport, selecting no device (an allow-list of none
# it has): inventory, and apply --dry-run (the host refused: no data device; exit 1); no
# admin_host, so the commands that need the cluster answer with the error document
cat >"$tmp/local.yaml" <<'YAML'
cluster:
  name: local
profiles:
  none:
    allow: [/dev/cephprov-test-no-such-device]
    data:
      rotational: true
hosts:
  - name: localhost
    transport: local
    profile: none
YAML
export CEPHPROV_STATE_DIR=$tmp/state
doc inventory 0 inventory --json "$tmp/local.yaml"
doc apply 1 apply --json --dry-run "$tmp/local.yaml"
doc error 1 status --json "$tmp/local.yaml"
doc error 1 lock status "$tmp/local.yaml" --json
doc error 1 drain "$tmp/local.yaml" localhost --dry-run --json
doc error 1 destroy "$tmp/local.yaml" localhost --dry-run --json
doc error 1 run "$src/playbooks/drain-node.yaml" "$tmp/local.yaml" --hosts localhost --dry-run --json
doc error 1 pause "$tmp/local.yaml" --json
doc error 1 resume "$tmp/local.yaml" --json
doc error 1 drain "$tmp/local.yaml" nosuch --dry-run --json

# a host that cannot be reached (a closed port on this machine): plan live is 'failed', not
# 'nothing to do'; inventory names the host; apply counts it; the cluster's commands answer
# with the error document
cat >"$tmp/unreachable.yaml" <<'YAML'
cluster:
  name: unreachable
  admin_host: node1
profiles:
  p:
    allow: [/dev/sdx]
    data:
      rotational: true
hosts:
  - name: node1
    address: 127.0.0.1
    port: 1
    profile: p
YAML
unreachable_plan=$tmp/doc$((n + 1)).json
doc plan 1 plan --json "$tmp/unreachable.yaml"
unreachable_inv=$tmp/doc$((n + 1)).json
doc inventory 1 inventory --json "$tmp/unreachable.yaml"
doc apply 1 apply --json --dry-run "$tmp/unreachable.yaml"
doc error 1 status --json "$tmp/unreachable.yaml"
doc error 1 lock status "$tmp/unreachable.yaml" --json

# usage errors
doc error 2 plan --json "$tmp/local.yaml" --frob
doc error 2 apply --json "$tmp/local.yaml" --parallel 0
doc error 2 statuss --json "$tmp/local.yaml"

out=$(/usr/bin/python3 "$src/tests/json-schema-check.py" "$src/docs/schema" "${docs[@]}"); rc=$?
while IFS= read -r line; do
        case $line in
        "ok   "*) check "${line#ok   }" true ;;
        *) check "$line" false ;;
        esac
done <<<"$out"
check_eq "every document checked against its schema (exit 0)" "$rc" 0
check_eq "as many results as documents" "$(grep -c '' <<<"$out")" "${#docs[@]}"

# what the schemas cannot say: a plan with no host planned is 'failed', not 'nothing to do'
check_eq "a plan with no host planned: result failed, hosts missing counted" \
        "$(/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["result"], d["n_steps"], d["totals"]["hosts_missing"])' "$failed_plan")" \
        "failed 0 4"
check_eq "plan live, its one host unreachable: result failed, the host missing" \
        "$(/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["result"], d["missing_hosts"])' "$unreachable_plan")" \
        "failed ['node1']"
check_eq "inventory --json names the host it could not reach" \
        "$(/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print([u["host"] for u in d["unreachable_hosts"]], d["inventories"])' "$unreachable_inv")" \
        "['node1'] []"
# ... and a schema refuses what breaks it (the check can fail)
/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); del d["result"]; d["hosts"] = [{"host": 1}]; json.dump(d, open(sys.argv[2], "w"))' \
        "$failed_plan" "$tmp/broken.json"
out=$(/usr/bin/python3 "$src/tests/json-schema-check.py" "$src/docs/schema" "$tmp/broken.json=plan"); rc=$?
check_eq "a plan without result and with a bad host is refused by the schema" "$rc" 1
check_contains "... naming what is missing" "$out" "'result' is a required property"
finish
