# Shared by the shell tests: assertions that count, and a summary that fails the test when
# any check failed (or none ran). Source it, call `finish` last.
checks=0 failures=0

# Debian's python3 ahead of anything else called python3 in PATH: the tests call it thousands
# of times (JSON from `ceph -f json`, in every wait loop), and a pyenv shim ahead of it in
# PATH (as on these machines) costs ~0.55 s of CPU a call against ~0.05 s (measured)
[ "$(command -v python3)" = /usr/bin/python3 ] || [ ! -x /usr/bin/python3 ] || PATH=/usr/bin:$PATH

check() { # check DESCRIPTION COMMAND...
        local what=$1; shift
        checks=$((checks + 1))
        if "$@"; then
                echo "ok   $what"
        else
                echo "FAIL $what"
                failures=$((failures + 1))
                return 1 # so that `check ... || show-why` shows why
        fi
}

check_eq() { # check_eq DESCRIPTION GOT EXPECTED
        checks=$((checks + 1))
        if [ "$2" = "$3" ]; then
                echo "ok   $1"
        else
                printf 'FAIL %s\n  got:      %s\n  expected: %s\n' "$1" "$2" "$3"
                failures=$((failures + 1))
                return 1 # as check does: `check_eq ... || show-why` shows why
        fi
}

check_contains() { # check_contains DESCRIPTION HAYSTACK NEEDLE
        checks=$((checks + 1))
        case "$2" in
        *"$3"*) echo "ok   $1" ;;
        *) printf 'FAIL %s\n  %s\n  does not contain: %s\n' "$1" "$2" "$3"; failures=$((failures + 1)); return 1 ;;
        esac
}

skip() { echo "SKIP: $*"; exit 77; }

# cp_tag LOOPDEV: the identity tag cephprov names a loop device's partitions by ("@" and 8 hex
# digits of SHA-256 over "file BACKING-FILE", plan_device_tag() in src/plan/plan-names.c)
cp_tag() {
        local f
        f=$(cat "/sys/block/$(basename "$(readlink -f "$1")")/loop/backing_file") || return 1
        printf '@%s' "$(printf 'file %s' "$f" | sha256sum | cut -c1-8)"
}

finish() {
        echo "$checks checks, $failures failed"
        [ "$checks" -gt 0 ] && [ "$failures" -eq 0 ]
}
