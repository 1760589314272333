# Shared by the block suite's shell tests (source it after ../lib.sh): the checks that this
# machine can run them, a scratch directory `$dir` (cephprov's state in `$dir/state`), and loop
# devices attached here, every one detached at exit (after `partx -d`: BLKPG partitions outlive
# `losetup -d`), with `$dir` removed. Never touches a loop it did not attach.

block_cleanup() {
        local l
        for l in "${loops[@]}"; do
                partx -d "$l" 2>/dev/null
                losetup -d "$l"
        done
        rm -rf "$dir"
}

block_setup() { # block_setup NAME TOOL...: skips (77) without root, loop devices or one of the tools
        [ "$(id -u)" = 0 ] || skip "needs root for loop devices"
        [ -e /dev/loop-control ] || skip "no /dev/loop-control: loop devices are not available"
        local t
        for t in "${@:2}"; do
                command -v "$t" >/dev/null || skip "'$t' is missing (contrib/install-deps.sh installs it)"
        done
        dir=$(mktemp -d "/tmp/cephprov-$1.XXXXXX")
        loops=()
        trap block_cleanup EXIT
        export CEPHPROV_STATE_DIR=$dir/state
}

block_attach() { # block_attach VAR IMAGE ROTATIONAL: a loop device of IMAGE (partscan) in $VAR
        local l
        l=$(losetup -f --show -P "$2") || return 1
        loops+=("$l")
        echo "$3" >"/sys/block/${l#/dev/}/queue/rotational"
        printf -v "$1" %s "$l"
}
