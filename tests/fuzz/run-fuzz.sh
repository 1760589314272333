#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Build the libFuzzer targets with clang and run them for DURATION seconds in all (default
# 60), split evenly between the targets (at least 10 s each).
# Usage: tests/fuzz/run-fuzz.sh [DURATION] [BUILDDIR]
# FUZZ_TARGETS="ceph agent" runs only those (default: every target).
# Exit status: 0 when no target found a crash, leak or timeout; the crashing input is left
# in BUILDDIR/fuzz-artifacts/. Each target's libFuzzer statistics (-print_final_stats) end
# up in BUILDDIR/fuzz-artifacts/TARGET.log, and one summary line per target is printed.
set -eu

duration=${1:-60}
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
builddir=${2:-$srcdir/build-fuzz}
targets=${FUZZ_TARGETS:-layout playbook ceph agent ondisk}

case $duration in
''|*[!0-9]*) echo "usage: $0 [DURATION-SECONDS] [BUILDDIR]" >&2; exit 2 ;;
esac

if [ ! -d "$builddir" ]; then
        CC=clang meson setup "$builddir" "$srcdir" -Dfuzz=true
else
        meson configure "$builddir" -Dfuzz=true
fi
for t in $targets; do
        ninja -C "$builddir" "tests/fuzz/fuzz-$t"
done

n=0
for t in $targets; do n=$((n + 1)); done
each=$((duration / n))
[ "$each" -ge 10 ] || each=10

artifacts=$builddir/fuzz-artifacts
mkdir -p "$artifacts"
fuzz=$srcdir/tests/fuzz
data=$srcdir/tests/data

# fuzz-ceph's seeds: each capture of tests/data/ceph behind the byte that selects its
# parser (the enum in fuzz-ceph.c); the gates get "STATUS OUT \0 ERR" from .rc/.out/.err.
ceph_seeds() {
        dir=$builddir/fuzz-seeds-ceph
        rm -rf "$dir"
        mkdir -p "$dir"
        seed() { # NUMBER NAME FILE...
                num=$1 name=$2
                shift 2
                { printf "\\$(printf %03o "$num")"; cat "$@"; } >"$dir/$name"
        }
        for f in "$data"/ceph/*; do
                b=$(basename "$f")
                case $b in
                osd-dump*.json) seed 0 "$b" "$f"; seed 17 "pools-$b" "$f"; seed 20 "ec-$b" "$f"; seed 21 "ratios-$b" "$f" ;;
                osd-tree*.json) seed 1 "$b" "$f" ;;
                osd-metadata*.json) seed 2 "$b" "$f" ;;
                health-detail*.json) seed 3 "$b" "$f"; seed 26 "slow-$b" "$f" ;;
                status-*.json) seed 3 "h-$b" "$f"; seed 4 "p-$b" "$f"; seed 24 "rec-$b" "$f" ;;
                pg-stat*.json) seed 4 "$b" "$f"; seed 24 "rec-$b" "$f" ;;
                pg-dump*.json) seed 5 "$b" "$f" ;;
                versions.json) seed 6 "$b" "$f" ;;
                osd-new*.out) seed 10 "$b" "$f" ;;
                config-get*.json|config-get*.out) seed 11 "$b" "$f" ;;
                config-dump.json) seed 12 "$b" "$f" ;;
                config-show*.json) seed 27 "$b" "$f" ;;
                config-key-get-lock.out) seed 13 "$b" "$f" ;;
                ceph-volume-raw-list*.json) seed 14 "$b" "$f" ;;
                ceph-volume-lvm-list.out|lvm-list-constructed.json) seed 15 "$b" "$f" ;;
                synthetic-osd-df-tree*.json) seed 16 "$b" "$f" ;;
                synthetic-osd-pool-ls*.json) seed 17 "$b" "$f" ;;
                synthetic-osd-crush-rule*.json) seed 18 "$b" "$f" ;;
                synthetic-osd-erasure-code-profile*.json) seed 19 "$b" "$f" ;;
                synthetic-balancer*.json) seed 22 "$b" "$f" ;;
                synthetic-osd-perf*.json) seed 23 "$b" "$f" ;;
                synthetic-health-detail*.json) seed 26 "$b" "$f" ;;
                ok-to-stop-*.out|safe-to-destroy-*.out)
                        base=${f%.out}
                        num=8
                        case $b in safe-*) num=9 ;; esac
                        rc=$(cat "$base.rc" 2>/dev/null || echo 0)
                        { printf "\\$(printf %03o "$num")\\$(printf %03o "$rc")"; cat "$f"
                          printf '\000'; cat "$base.err" 2>/dev/null || true; } >"$dir/$b" ;;
                esac
        done
        printf '\031{"preset":"fast","scheduler":"wpq","restore":[{"who":"osd","key":"osd_max_backfills","value":"1"},{"who":"osd","key":"osd_recovery_max_active","value":null}]}' >"$dir/throttle-restore"
        printf '\007ceph version 16.2.15 (618f440892089921c3e944a991122ddc44e60516) pacific (stable)\n' >"$dir/version"
        echo "$dir"
}

# fuzz-ondisk's seeds: the captures of tests/data/ondisk in the target's framing (first
# byte the format; for a GPT then the sector-size code, the device size in sectors as
# 8 bytes little-endian, the header sector and its entries).
ondisk_seeds() {
        dir=$builddir/fuzz-seeds-ondisk
        rm -rf "$dir"
        mkdir -p "$dir"
        n_lba='\000\040\000\000\000\000\000\000' # 8192
        { printf "\000\000$n_lba"; dd if="$data/ondisk/gpt-primary.bin" bs=512 skip=1 status=none; } >"$dir/gpt-primary"
        { printf "\000\000$n_lba"; dd if="$data/ondisk/gpt-backup.bin" bs=512 skip=32 status=none
          dd if="$data/ondisk/gpt-backup.bin" bs=512 count=32 status=none; } >"$dir/gpt-backup"
        for f in "$data"/ondisk/bcache-*.sb; do
                { printf '\001'; cat "$f"; } >"$dir/$(basename "$f")"
        done
        { printf '\002'; cat "$data/ondisk/bluestore-label.bin"; } >"$dir/bluestore-label"
        { printf '\003'; cat "$data/ondisk/filestore-journal-header.bin"; } >"$dir/filestore-journal-header"
        printf '\004/var/lib/ceph/osd/ceph-0\000filestore\n\0000\n\000d701884d-32c6-51e3-99e7-68ba0e64e168\n\0005d1e4f0a-8b2c-4e6d-9f3a-7c1b2d3e4f50\n' \
                >"$dir/filestore-dir"
        echo "$dir"
}

status=0
for t in $targets; do
        corpus=$builddir/fuzz-corpus-$t
        mkdir -p "$corpus"
        # New inputs go to the working corpus in the build directory; the seeds in the tree
        # are only read.
        case $t in
        layout) seeds="$fuzz/corpus-layout $data/layout-invalid"; opts="-max_len=8192 -dict=$fuzz/fuzz-layout.dict" ;;
        playbook) seeds="$fuzz/corpus-playbook $srcdir/playbooks $data/playbook-invalid $data/playbook-errors"
                opts="-max_len=8192 -dict=$fuzz/fuzz-playbook.dict" ;;
        ceph) seeds=$(ceph_seeds); opts="-max_len=65536 -dict=$fuzz/fuzz-ceph.dict" ;;
        agent) seeds=$fuzz/corpus-agent; opts="-max_len=4096 -dict=$fuzz/fuzz-agent.dict" ;;
        ondisk) seeds=$(ondisk_seeds); opts="-max_len=20480" ;;
        *) echo "unknown fuzz target '$t'" >&2; exit 2 ;;
        esac
        echo "==> fuzz-$t, ${each}s"
        # -max_total_time bounds the run; -timeout flags any input that takes over 10 s.
        # shellcheck disable=SC2086
        if "$builddir/tests/fuzz/fuzz-$t" \
                -max_total_time="$each" -timeout=10 -rss_limit_mb=1024 $opts \
                -artifact_prefix="$artifacts/" -print_final_stats=1 \
                "$corpus" $seeds >"$artifacts/$t.log" 2>&1; then
                execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$artifacts/$t.log")
                echo "fuzz-$t: ${execs:-?} executions in ${each}s, no crash"
        else
                status=1
                tail -n 60 "$artifacts/$t.log"
                echo "fuzz-$t: FAILED (input in $artifacts/, log $artifacts/$t.log)"
        fi
done
exit $status
