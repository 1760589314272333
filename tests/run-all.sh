#!/bin/bash
# Runs cephprov's whole test suite: installs what it needs (apt), builds, then runs
#   1. the unit, cli, block and vm suites in a normal build,
#   2. the lab suite (fake hosts over SSH, real Ceph clusters): every lab test has its own
#      lab, LAB_JOBS of them at a time (default 3: a lab mostly waits on Ceph), and beside
#      them, in the background, the uml suite (User-mode Linux guests as storage hosts:
#      bcache, LVM, md, a reboot, a reshape onto bcache) one test at a time, the time it
#      runs past the labs' end printed against its budget (UML_BUDGET seconds, default 600:
#      over it is a warning, a wall time being a measurement),
#   3. once the labs are done, beside what is left of the uml suite, in the background at
#      nice 10 (a UML guest runs on one CPU; the other is free), one chain of: the unit and block suites again under AddressSanitizer
#      + UBSan, the unit suite under valgrind, the libFuzzer targets (layout, playbook, Ceph
#      parsers, agent requests, on-disk decoders) for a bounded time in all (clang/libFuzzer,
#      tests/fuzz/run-fuzz.sh); its output is printed when it ends (build/chain.log),
# and ends with the budget (the wall time of each build and suite, the lab bring-ups and
# their time), the slowest tests, every failure by name, and one line
# "N passed, N failed, N skipped".
#
#   tests/run-all.sh           what CI runs (.ci/run)
#   tests/run-all.sh --long    also the suites 'sweep' (the long kill sweeps, 100 lock races,
#                              the canary's noise), 'convert' (the conversion's and replace's
#                              long lab tests), 'throttle' and the benchmarks ('bench'). Run it
#                              before resolving anything that touches resume or a kill
#                              sweep's path (tests/README.md). Also 'solo': the shared lab's
#                              members each on a lab of its own.
#   SUITES=slo tests/run-all.sh  the throttle against a client SLO (bench-throttle-slo, issue
#                              31): hours, so in no other run
#
# Tiers that need root, loop devices, network namespaces or qemu skip with a message where
# those are missing. Environment: FUZZ_SECONDS (default 60), SUITES (the suites of the
# normal build, default "unit cli block vm lab uml"; --long adds "sweep convert throttle solo
# bench"),
# LAB_JOBS (default 3), UML_BUDGET (default 600).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# Debian's tools ahead of anything else in PATH, for meson and every test: a pyenv shim for
# python3 (as on these machines) costs ~0.55 s of CPU a call against ~0.05 s for Debian's
# python3 (measured), and the lab tests call python3 thousands of times
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH

long=0
case ${1:-} in
--long) long=1 ;;
'') ;;
*) echo "usage: tests/run-all.sh [--long]" >&2; exit 2 ;;
esac

fuzz_seconds=${FUZZ_SECONDS:-60}
suites=${SUITES:-unit cli block vm lab uml}
[ $long = 1 ] && suites="$suites sweep convert throttle solo bench"
lab_jobs=${LAB_JOBS:-3}
uml_budget=${UML_BUDGET:-600}
passed=0 failed=0 skipped=0
failures=() details=() firsts=() timings=() budget=()
export CEPHPROV_LAB_STATS=$top/build/lab-stats.txt

step() { printf '\n==> %s\n' "$*"; }

# Adds the counts of the last `meson test` run in build dir $1 to the totals ($2: the log's
# name, "testlog" or "testlog-WRAPPER"), the tests' times to the slowest list, and each
# suite's wall time (its first start to its last end) to the budget.
count() {
        local log="$1/meson-logs/${2:-testlog}.json" p f s
        [ -f "$log" ] || { failed=$((failed + 1)) failures+=("$1: no test log"); return; }
        local out
        out=$(python3 - "$log" "$1${2:+/$2}" <<'PY'
import json, sys
p = f = s = 0
rest = []
span = {}
for line in open(sys.argv[1]):
    t = json.loads(line)
    r = t.get("result")
    if r in ("OK", "EXPECTEDFAIL"): p += 1
    elif r == "SKIP": s += 1
    else:
        f += 1
        rest.append("F %s: %s (%s)" % (sys.argv[2], t.get("name"), r))
        # its failed checks and the lines right after each (what a run that printed only
        # the end of a long log would cut): at most 60 lines a test
        out = ((t.get("stdout") or "") + (t.get("stderr") or "")).splitlines()
        keep = sorted({j for i, l in enumerate(out) if l.startswith(("FAIL", "not ok")) or "check failed" in l
                       for j in range(i, min(i + 21, len(out)))})
        if keep:
            rest.append("D --- %s: %s" % (sys.argv[2], t.get("name")))
        rest.extend("D " + out[j][:300] for j in keep[:60])
        # and its first failed check alone, short, for the very end of the output: that
        # line, the 12 after it and any error line among the 40 after it
        first = next((i for i, l in enumerate(out) if l.startswith(("FAIL", "not ok")) or "check failed" in l), None)
        if first is not None:
            rest.append("E --- %s: %s" % (sys.argv[2], t.get("name")))
            near = range(first, min(first + 13, len(out)))
            errs = [j for j in range(first + 13, min(first + 41, len(out))) if "error" in out[j].lower()][:8]
            rest.extend("E " + out[j][:200] for j in list(near) + errs)
    d = t.get("duration", 0)
    rest.append("T %6.0f s  %s: %s" % (d, sys.argv[2], t.get("name")))
    suite = t.get("name", "?").split(":")[-1].split(" / ")[0]
    st = t.get("starttime")
    if st is not None:
        a, b, n, cpu = span.get(suite, (st, st + d, 0, 0))
        span[suite] = (min(a, st), max(b, st + d), n + 1, cpu + d)
print(p, f, s)
for suite, (a, b, n, cpu) in sorted(span.items()):
    rest.append("B %-28s %6.0f s  (%d tests, %.0f s of test time)" % (sys.argv[2] + " " + suite, b - a, n, cpu))
print("\n".join(rest))
PY
)
        read -r p f s <<< "$(head -n1 <<< "$out")"
        passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
        while IFS= read -r l; do
                case $l in
                "F "*) failures+=("${l#F }") ;;
                "D "*) details+=("${l#D }") ;;
                "E "*) firsts+=("${l#E }") ;;
                "T "*) timings+=("${l#T }") ;;
                "B "*) budget+=("  suite ${l#B }") ;;
                esac
        done < <(tail -n +2 <<< "$out")
}

# phase NAME START: the wall time of a phase since START ($SECONDS) into the budget
phase() { budget+=("$(printf '%-36s %6d s' "$1" $((SECONDS - $2)))"); }

# Runs `meson test` for the suites given as "s1 s2 ..." in build dir $1 (extra args after).
run_suites() {
        local dir=$1 list=$2 s args=()
        shift 2
        for s in $list; do args+=(--suite "$s"); done
        [ ${#args[@]} -gt 0 ] || return 0
        rm -f "$dir/meson-logs/testlog.json"
        meson test -C "$dir" --print-errorlogs "${args[@]}" "$@"
        count "$dir"
        # kept per phase (the next meson test writes testlog.json again): each test's start
        # and duration, for a look at how the phase filled its time
        cp "$dir/meson-logs/testlog.json" "$dir/meson-logs/testlog-$(echo $list | tr ' ' -).json" 2>/dev/null
}

t=$SECONDS
step "installing dependencies"
if [ "$(id -u)" = 0 ]; then
        bash contrib/install-deps.sh >/dev/null || { echo "dependency installation failed" >&2; failed=$((failed + 1)) failures+=("dependencies"); }
else
        echo "not root: skipping apt installation (tests needing root will skip)"
fi
phase "dependencies (apt)" $t

t=$SECONDS
step "building (warnings are errors)"
built=0
if { [ -d build ] || meson setup build; } && ninja -C build; then
        built=1
else
        echo "build failed" >&2
        failed=$((failed + 1)) failures+=("build")
fi
phase "build: normal" $t
rm -f "$CEPHPROV_LAB_STATS"

# The chain: the sanitizer build with its unit and block suites, the unit suite under
# valgrind and the fuzzers, one after the other, in a subshell of their own: start_chain
# starts it in the background at nice 10 (beside the uml suite: the guest runs on one CPU),
# its output into build/chain.log; finish_chain waits for it, prints that output and adds
# its counts, failures, test times and budget lines to this run's.
chain_log=$top/build/chain.log chain_state=$top/build/chain.state chain_pid=
chain() {
        passed=0 failed=0 skipped=0 failures=() details=() firsts=() timings=() budget=()
        t=$SECONDS
        step "unit and block suites under address and undefined-behaviour sanitizers"
        if { [ -d build-asan ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false; } && ninja -C build-asan; then
                asan_suites=$(for s in $suites; do case $s in unit|block) echo -n "$s ";; esac; done)
                # (ceph-adapt's unit test: 2.6 s native, 16.6 s here on a quiet machine, its timeout 30 s)
                ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
                        run_suites build-asan "$asan_suites" --timeout-multiplier 3
        else
                echo "sanitizer build failed" >&2
                failed=$((failed + 1)) failures+=("sanitizer build")
        fi
        phase "asan+ubsan build: build, unit, block" $t

        t=$SECONDS
        step "unit suite under valgrind"
        if command -v valgrind >/dev/null; then
                rm -f build/meson-logs/testlog-valgrind.json
                # valgrind runs code 20-50 times slower: the unit tests' own timeouts are for native
                # runs (ceph-adapt's 3000 random traces take 2.6 s natively, 40-52 s under valgrind)
                meson test -C build --no-rebuild --suite unit --print-errorlogs --timeout-multiplier 5 \
                        --wrap='valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite'
                count build testlog-valgrind
        else
                echo "valgrind missing: skipped"
                skipped=$((skipped + 1))
        fi
        phase "valgrind: unit" $t

        t=$SECONDS
        step "fuzzers (layout, playbook, ceph, agent, ondisk), ${fuzz_seconds}s in all"
        if [ -x tests/fuzz/run-fuzz.sh ]; then
                if tests/fuzz/run-fuzz.sh "$fuzz_seconds"; then passed=$((passed + 1)); else failed=$((failed + 1)) failures+=("fuzzers"); fi
        else
                echo "no fuzz targets: skipped"
                skipped=$((skipped + 1))
        fi
        phase "fuzz build: build and ${fuzz_seconds} s of fuzzing" $t
        declare -p passed failed skipped failures details firsts timings budget >"$chain_state"
}

# The uml suite in the background (its own meson log, testlog-uml): start_uml starts it,
# finish_uml waits for it, prints its output (build/uml.log), adds its counts and its phase
# line, and the time it ran past the labs' end against UML_BUDGET.
uml_log=$top/build/uml.log uml_pid= uml_start=
start_uml() {
        [ -n "$umls" ] || return 0
        local args=() s
        for s in $umls; do args+=(--suite "$s"); done
        rm -f build/meson-logs/testlog-uml.json
        uml_start=$SECONDS
        meson test -C build --no-rebuild --print-errorlogs --num-processes 1 --logbase testlog-uml \
                "${args[@]}" >"$uml_log" 2>&1 &
        uml_pid=$!
}
finish_uml() {
        [ -n "$uml_pid" ] || return 0
        local labs_end=$SECONDS
        wait "$uml_pid"
        step "uml suite: $umls(one at a time, beside the lab suites; budget ${uml_budget} s past their end)"
        cat "$uml_log"
        count build testlog-uml
        phase "normal build: uml (beside the labs)" $uml_start
        local past=$((SECONDS - labs_end))
        budget+=("  uml suite past the labs' end     $(printf '%6d' $past) s  (budget ${uml_budget} s)")
        # a warning, not a failure: a wall time on a shared machine is a measurement
        # (tests/README.md), and the tests' own checks decide pass or fail
        if [ $past -gt "$uml_budget" ]; then
                echo "warning: the uml suite ran ${past} s past the labs' end, over its budget of ${uml_budget} s" >&2
                budget+=("warning: uml suite over its budget: ${past} s past the labs > ${uml_budget} s")
        fi
}

start_chain() {
        rm -f "$chain_state"
        chain_start=$SECONDS
        ( renice -n 10 $BASHPID >/dev/null; chain ) >"$chain_log" 2>&1 &
        chain_pid=$!
}

finish_chain() {
        wait "$chain_pid"
        cat "$chain_log"
        local p=$passed f=$failed s=$skipped
        local fl=("${failures[@]}") dl=("${details[@]}") el=("${firsts[@]}") tl=("${timings[@]}") bl=("${budget[@]}")
        if [ -s "$chain_state" ]; then
                # (declare -g: the chain's values replace the globals, not locals of here)
                source <(sed 's/^declare -/declare -g -/' "$chain_state")
        else
                passed=0 failed=1 skipped=0 failures=("sanitizer/valgrind/fuzz chain: no result (see build/chain.log)") details=() firsts=() timings=() budget=()
        fi
        passed=$((p + passed)) failed=$((f + failed)) skipped=$((s + skipped))
        failures=("${fl[@]}" "${failures[@]}") details=("${dl[@]}" "${details[@]}") firsts=("${el[@]}" "${firsts[@]}")
        timings=("${tl[@]}" "${timings[@]}")
        budget=("${bl[@]}" "${budget[@]}")
        phase "sanitizers, valgrind, fuzz (in the background)" $chain_start
}

if [ $built = 1 ]; then
        # the quick suites first: a broken build shows in minutes, not after the labs
        quick= labs= umls= benches=
        for s in $suites; do
                case $s in
                lab|sweep|convert|throttle|solo) labs+="$s " ;;
                uml) umls+="$s " ;;
                bench|slo) benches+="$s " ;;
                *) quick+="$s " ;;
                esac
        done
        t=$SECONDS
        step "suites: ${quick:-none}"
        run_suites build "$quick"
        phase "normal build: $quick" $t

        # the real-kernel tier (issue 28): User-mode Linux guests, one test at a time, in the
        # background beside the lab suites (a guest runs on one CPU, and the labs mostly wait
        # on Ceph and the disks); its wall time past the labs' end is held to its budget
        start_uml
        # every lab test brings up its own lab (own prefix and subnet: tests/lab/meson.build),
        # LAB_JOBS at a time; tests marked exclusive run alone
        t=$SECONDS
        step "lab suites: ${labs:-none} ($lab_jobs at a time; the uml suite beside them)"
        run_suites build "$labs" --num-processes "$lab_jobs"
        phase "normal build: $labs($lab_jobs at a time)" $t

        # the sanitizer, valgrind and fuzz builds (below) start now, in the background
        # and at a lower priority, beside what is left of the uml suite (they add to nothing
        # the uml suite checks: it asserts no wall time)
        start_chain
        finish_uml
        finish_chain
        # benchmarks: one at a time, nothing beside them
        t=$SECONDS
        step "benchmarks: ${benches:-none}"
        run_suites build "$benches" --num-processes 1
        [ -n "$benches" ] && phase "normal build: bench" $t
else
        start_chain
        finish_chain
fi
# The tail of this output is what CI keeps: the budget, the slowest tests and every failure
# go last.
step "budget (wall time)"
printf '%s\n' "${budget[@]}"
if [ -s "$CEPHPROV_LAB_STATS" ]; then
        python3 - "$CEPHPROV_LAB_STATS" <<'PY'
import sys
n, total, kinds = 0, 0.0, {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) != 3:
        continue
    name, kind, secs = parts
    k = kinds.setdefault(kind, [0, 0.0])
    k[0] += 1
    k[1] += float(secs)
    total += float(secs)
print("lab bring-ups: %s; %.0f s in all" % (
    ", ".join("%d %s (%.0f s)" % (c, kind, s) for kind, (c, s) in sorted(kinds.items())), total))
PY
fi
if [ ${#details[@]} -gt 0 ]; then
        step "failed checks (each with the lines after it)"
        printf '%s\n' "${details[@]}"
fi
step "slowest tests"
printf '%s\n' "${timings[@]}" | sort -rn | head -n 12
if [ ${#failures[@]} -gt 0 ]; then
        step "failed"
        printf '%s\n' "${failures[@]}"
        # last, where the shortest tail of this output still shows it: each failed test's
        # first failed check, the lines after it and the errors near it
        if [ ${#firsts[@]} -gt 0 ]; then
                step "the first failed check of each failed test"
                printf '%s\n' "${firsts[@]}"
        fi
fi
echo "wall time: $SECONDS s"

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
