#!/bin/bash
# Runs cephprov's whole test suite: installs what it needs (apt), builds, then runs
#   1. every suite (unit, cli, block, lab, vm) in a normal build,
#   2. the unit and block suites again under AddressSanitizer + UBSan,
#   3. the unit suite under valgrind,
#   4. the libFuzzer targets (layout, playbook, Ceph parsers, agent requests, on-disk decoders) for a
#      bounded time in all (clang/libFuzzer, tests/fuzz/run-fuzz.sh),
# and ends with one line "N passed, N failed, N skipped".
# Tiers that need root, loop devices, network namespaces or qemu skip with a message where
# those are missing. Environment: FUZZ_SECONDS (default 60), SUITES (default "unit cli block lab vm").
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

fuzz_seconds=${FUZZ_SECONDS:-60}
suites=${SUITES:-unit cli block lab vm}
passed=0 failed=0 skipped=0
failures=() timings=()

step() { printf '\n==> %s\n' "$*"; }

# Adds the counts of the last `meson test` run in build dir $1 to the totals
# ($2: the log's name, "testlog" or "testlog-WRAPPER").
count() {
        local log="$1/meson-logs/${2:-testlog}.json" p f s
        [ -f "$log" ] || { failed=$((failed + 1)) failures+=("$1: no test log"); return; }
        local out
        out=$(python3 - "$log" "$1${2:+/$2}" <<'PY'
import json, sys
p = f = s = 0
rest = []
for line in open(sys.argv[1]):
    t = json.loads(line)
    r = t.get("result")
    if r in ("OK", "EXPECTEDFAIL"): p += 1
    elif r == "SKIP": s += 1
    else:
        f += 1
        rest.append("F %s: %s (%s)" % (sys.argv[2], t.get("name"), r))
    rest.append("T %6.0f s  %s: %s" % (t.get("duration", 0), sys.argv[2], t.get("name")))
print(p, f, s)
print("\n".join(rest))
PY
)
        read -r p f s <<< "$(head -n1 <<< "$out")"
        passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
        while IFS= read -r l; do
                case $l in
                "F "*) failures+=("${l#F }") ;;
                "T "*) timings+=("${l#T }") ;;
                esac
        done < <(tail -n +2 <<< "$out")
}

# Runs `meson test` for the given suites in build dir $1 (extra args after --).
run_suites() {
        local dir=$1; shift
        local args=()
        for s in $suites; do
                args+=(--suite "$s")
        done
        rm -f "$dir/meson-logs/testlog.json"
        meson test -C "$dir" --print-errorlogs "${args[@]}" "$@"
        count "$dir"
}

step "installing dependencies"
if [ "$(id -u)" = 0 ]; then
        bash contrib/install-deps.sh >/dev/null || { echo "dependency installation failed" >&2; failed=$((failed + 1)) failures+=("dependencies"); }
else
        echo "not root: skipping apt installation (tests needing root will skip)"
fi

step "building (warnings are errors)"
if { [ -d build ] || meson setup build; } && ninja -C build; then
        step "all suites: $suites"
        run_suites build
else
        echo "build failed" >&2
        failed=$((failed + 1)) failures+=("build")
fi

step "unit and block suites under address and undefined-behaviour sanitizers"
if { [ -d build-asan ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false; } && ninja -C build-asan; then
        suites_save=$suites
        suites=$(for s in $suites_save; do case $s in unit|block) echo -n "$s ";; esac; done)
        # (ceph-adapt's unit test: 2.6 s native, 16.6 s here on a quiet machine, its timeout 30 s)
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
                run_suites build-asan --timeout-multiplier 3
        suites=$suites_save
else
        echo "sanitizer build failed" >&2
        failed=$((failed + 1)) failures+=("sanitizer build")
fi

step "unit suite under valgrind"
if command -v valgrind >/dev/null; then
        rm -f build/meson-logs/testlog-valgrind.json
        # valgrind runs code 20-50 times slower: the unit tests' own timeouts are for native
        # runs (ceph-adapt's 3000 random traces take 2.6 s natively, 40-52 s under valgrind)
        meson test -C build --suite unit --print-errorlogs --timeout-multiplier 5 \
                --wrap='valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite'
        count build testlog-valgrind
else
        echo "valgrind missing: skipped"
        skipped=$((skipped + 1))
fi

step "fuzzers (layout, playbook, ceph, agent, ondisk), ${fuzz_seconds}s in all"
if [ -x tests/fuzz/run-fuzz.sh ]; then
        if tests/fuzz/run-fuzz.sh "$fuzz_seconds"; then passed=$((passed + 1)); else failed=$((failed + 1)) failures+=("fuzzers"); fi
else
        echo "no fuzz targets: skipped"
        skipped=$((skipped + 1))
fi

# The tail of this output is what CI keeps: the slowest tests and every failure go last.
step "slowest tests"
printf '%s\n' "${timings[@]}" | sort -rn | head -n 12
if [ ${#failures[@]} -gt 0 ]; then
        step "failed"
        printf '%s\n' "${failures[@]}"
fi
echo "wall time: $SECONDS s"

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
