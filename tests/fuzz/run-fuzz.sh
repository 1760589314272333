#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Build the libFuzzer targets with clang and run each for DURATION seconds (default 60).
# Usage: tests/fuzz/run-fuzz.sh [DURATION] [BUILDDIR]
# Exit status: 0 when no target found a crash, leak or timeout; the crashing input is left
# in BUILDDIR/fuzz-artifacts/.
set -eu

duration=${1:-60}
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
builddir=${2:-$srcdir/build-fuzz}

case $duration in
''|*[!0-9]*) echo "usage: $0 [DURATION-SECONDS] [BUILDDIR]" >&2; exit 2 ;;
esac

if [ ! -d "$builddir" ]; then
        CC=clang meson setup "$builddir" "$srcdir" -Dfuzz=true
else
        meson configure "$builddir" -Dfuzz=true
fi
ninja -C "$builddir" tests/fuzz/fuzz-layout

artifacts=$builddir/fuzz-artifacts
corpus=$builddir/fuzz-corpus-layout
mkdir -p "$artifacts" "$corpus"

# New inputs go to the working corpus in the build directory; the seeds in the tree (valid
# layouts, and the invalid ones of the unit tests) are only read.
# -max_total_time bounds the run; -timeout flags any input that takes over 10 s.
"$builddir/tests/fuzz/fuzz-layout" \
        -max_total_time="$duration" -timeout=10 -rss_limit_mb=1024 -max_len=8192 \
        -dict="$srcdir/tests/fuzz/fuzz-layout.dict" \
        -artifact_prefix="$artifacts/" -print_final_stats=1 \
        "$corpus" "$srcdir/tests/fuzz/corpus-layout" "$srcdir/tests/data/layout-invalid"
