#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cli tier: the doc-example test fails when an example stops working. It is run on a small
# tree whose README.md has one example of each kind broken (a layout with a typo, a command
# whose output differs from the one shown, a command that fails, a synopsis that is not
# --help's, a missing file named, an unmarked partial layout) and one of each that works.
# usage: test-cli-docs-broken.sh CEPHPROV SRCDIR
set -u
cephprov=$1 src=$2
case $cephprov in /*) ;; *) cephprov=$PWD/$cephprov ;; esac
. "$src/tests/lib.sh"

tree=$(mktemp -d) || exit 1
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/layouts"
cp "$src/layouts/all-flash.yaml" "$tree/layouts/"
fence='```'
cat >"$tree/README.md" <<EOT
# a README with broken examples

${fence}yaml
cluster:
  admin_hots: mon1
hosts:
  - name: mon1
${fence}

${fence}yaml
cluster:
  admin_host: mon1
hosts:
  - name: mon1
${fence}

${fence}yaml
ssh:
  user: root
${fence}

${fence}yaml fragment
ssh:
  user: [root
${fence}

${fence}console
\$ cephprov validate layouts/all-flash.yaml
layouts/all-flash.yaml: valid: cluster 'ceph', 5 hosts
\$ cephprov validate layouts/no-such.yaml
\$ cephprov validate layouts/all-flash.yaml --json
\$ cephprov apply layouts/all-flash.yaml
${fence}

${fence}synopsis
cephprov plan LAYOUT [--frobnicate]
cephprov status LAYOUT [--json] [--hosts H1,H2]
${fence}

See \`layouts/all-flash.yaml\` and \`layouts/missing.yaml\`.
EOT
out=$(python3 "$src/tests/cli/test-cli-docs.py" "$cephprov" "$tree"); rc=$?
check "the doc test fails on broken examples" [ "$rc" -ne 0 ]
fails() { check_contains "it reports: $1" "$out" "FAIL README.md:$1"; }
fails "3: cephprov validate accepts the example"
fails "17: a yaml block is a layout or a playbook (else mark it 'yaml fragment')"
fails "22: the yaml fragment parses"
fails "28: cephprov validate layouts/all-flash.yaml: prints what the doc shows"
fails "30: cephprov validate layouts/no-such.yaml: exits 0"
fails "36: synopsis of 'plan' is its --help usage"
check_contains "it reports: a missing file named" "$out" "FAIL README.md: names 'layouts/missing.yaml', which exists"
oks() { check_contains "and passes: $1" "$out" "ok   README.md:$1"; }
oks "10: cephprov validate accepts the example"
oks "31: cephprov validate layouts/all-flash.yaml --json: exits 0"
oks "37: synopsis of 'status' is its --help usage"
check_contains "and passes: a file named that exists" "$out" "ok   README.md: names 'layouts/all-flash.yaml', which exists"
check_contains "a command that needs hosts is listed as skipped" "$out" \
        "skip README.md:32: cephprov apply layouts/all-flash.yaml: 'apply' connects to the hosts (lab tier)"
check_eq "exactly the broken ones fail" "$(grep -c '^FAIL' <<<"$out")" 8
finish
