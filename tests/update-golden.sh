#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Regenerate the planner's golden files and the saved inventories:
#   1. tests/data/inventory-<name>.json            (tests/data/gen-inventories.py before)
#   2. tests/data/plan-<name>.txt and .json         (test-plan with UPDATE_GOLDEN=1)
#   3. tests/data/inventory-<name>-converged.json  (the golden plans applied, simulated)
#   4. tests/data/convert-<name>.txt and .json      (test-plan-convert with UPDATE_GOLDEN=1; the
#      synthetic `ceph osd` outputs they read: tests/data/ceph/gen-synthetic-convert.py)
# then runs the unit tests against them. Review the diff before committing it.
#
# usage: tests/update-golden.sh [BUILDDIR]     (default: build)
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$src/$build ;; esac

python3 "$src/tests/data/gen-inventories.py" before
ninja -C "$build" tests/unit/test-plan tests/unit/test-inventory
UPDATE_GOLDEN=1 TEST_DATA="$src/tests/data" LAYOUTS="$src/layouts" "$build/tests/unit/test-plan" 2>&1 \
        | grep '^updated' || true
python3 "$src/tests/data/gen-inventories.py" converged
python3 "$src/tests/data/ceph/gen-synthetic-convert.py"
ninja -C "$build" tests/unit/test-plan-convert
UPDATE_GOLDEN=1 TEST_DATA="$src/tests/data" LAYOUTS="$src/layouts" "$build/tests/unit/test-plan-convert" 2>&1 \
        | grep '^updated' || true
meson test -C "$build" --suite unit
git -C "$src" status --short -- tests/data
