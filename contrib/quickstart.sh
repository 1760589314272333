#!/bin/bash
# The README's first command: install what cephprov needs (apt), build it, start the local
# lab (fake storage hosts over SSH with loop-device disks) and run cephprov on it.
#
#   contrib/quickstart.sh          set up and run
#   contrib/quickstart.sh down     tear the lab down again
#
# The lab lives in .lab/ at the top of the repository (LAB_PREFIX=cpl, 10.99.0.0/24).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
lab=contrib/lab/lab
cephprov=build/src/cli/cephprov

if [ "${1:-}" = down ]; then
        [ -x contrib/lab/ceph ] && contrib/lab/ceph down --dir .lab 2>/dev/null || true
        exec "$lab" down --dir .lab
fi

[ "$(id -u)" = 0 ] || { echo "quickstart: run as root (it installs packages and makes loop devices and namespaces)" >&2; exit 1; }

step() { printf '\n==> %s\n' "$*"; }

step "installing dependencies"
contrib/install-deps.sh

step "building"
[ -d build ] || meson setup build
ninja -C build

step "starting the lab: 3 storage hosts + an admin host, then a Ceph cluster (mon + mgr on admin)"
[ -f .lab/lab.env ] || "$lab" up --dir .lab --hosts 3
[ -f .lab/etc-ceph/ceph.conf ] || contrib/lab/ceph up --dir .lab
# the journal and cluster lock of the lab's cluster live with the lab
export CEPHPROV_STATE_DIR=$top/.lab/state

step "cephprov validate .lab/layout.yaml"
"$cephprov" validate .lab/layout.yaml
step "cephprov inventory .lab/layout.yaml"
"$cephprov" inventory .lab/layout.yaml
step "cephprov apply .lab/layout.yaml --yes"
"$cephprov" apply .lab/layout.yaml --yes

step "waiting for HEALTH_OK with every PG active+clean"
for _ in $(seq 180); do
        if contrib/lab/ceph cli --dir .lab health | grep -q HEALTH_OK &&
           contrib/lab/ceph cli --dir .lab pg stat | grep -q ' pgs: [0-9]* active+clean;'; then
                break
        fi
        sleep 1
done
contrib/lab/ceph cli --dir .lab -s

step "cephprov status .lab/layout.yaml"
"$cephprov" status .lab/layout.yaml

printf '\nThe lab is up. Run "%s apply .lab/layout.yaml" again: it changes nothing.\nTear it down with: contrib/quickstart.sh down\n' "$cephprov"
