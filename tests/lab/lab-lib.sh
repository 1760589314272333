# SPDX-License-Identifier: LGPL-2.1-or-later
# The one scaffolding of the lab, vm and bench scripts (tests/README.md, "Lab scaffolding"):
# set-up and teardown of a test's lab and Ceph cluster, the helpers every lab test uses, and
# the bring-up figures tests/run-all.sh adds up. Source it after tests/lib.sh (check, skip,
# finish):
#
#   . "$(dirname "$0")/../lib.sh"
#   . "$(dirname "$0")/lab-lib.sh"
#   lab_test_setup apply-osds cpat 10.99.7        # skips without root, netns or Ceph
#   lab_bringup --hosts 3 --ssd 1 --hdd 2         # lab + mon + mgr, timed, FAIL on error
#   ... checks ...
#   finish
#
# What a test gets: $lab and $ceph_lab (contrib/lab/lab and contrib/lab/ceph), $dir (its own
# directory; the lab in $dir/lab, cephprov's state in $dir/state), LAB_PREFIX and LAB_SUBNET
# exported (meson's test table gives each test its own: tests/lab/meson.build), ceph_ (the
# lab's `ceph`), on HOST CMD..., wait_clean, health_of, healthy, put_objects,
# objects_identical, the journal helpers of the kill tests, and an EXIT trap that runs the
# test's lab_cleanup_hook (a command it left running), takes the lab down and removes $dir,
# whatever state the test died in.

py() { python3 -c "$@"; }

# lab_test_setup NAME PREFIX SUBNET [NEED...]: the start of every lab test or bench.
# Skips (exit 77) without root, network namespaces or, unless a NEED is 'noceph', Ceph's
# packages (ceph-mon, ceph-osd, ceph-volume, rados); NEED 'filestore' also wants sgdisk and
# mkfs.xfs; any other NEED is a command that must be in PATH. Fails (exit 1) when a lab with
# the same prefix is up already (two tests must never share a bridge). Sets $lab, $ceph_lab,
# $dir, $lab_test_name; exports LAB_PREFIX and LAB_SUBNET unless given (PREFIX, SUBNET) and
# CEPHPROV_STATE_DIR=$dir/state; traps EXIT with lab_test_cleanup.
lab_test_setup() {
        local name=$1 prefix=$2 subnet=$3 need t
        shift 3
        lab=${LAB:?LAB must point to contrib/lab/lab}
        ceph_lab=${CEPH_LAB:-$(dirname "$lab")/ceph}
        [ "$(id -u)" = 0 ] || skip "needs root for network namespaces and loop devices"
        command -v ip >/dev/null && ip netns list >/dev/null 2>&1 || skip "no 'ip netns'"
        local tools=(ceph-mon ceph-osd ceph-volume rados)
        case " $* " in *" noceph "*) tools=() ;; esac
        for need in "$@"; do
                case $need in
                noceph) ;;
                filestore) tools+=(sgdisk mkfs.xfs) ;;
                *) tools+=("$need") ;;
                esac
        done
        for t in "${tools[@]}"; do
                command -v "$t" >/dev/null || skip "'$t' is not installed (contrib/install-deps.sh)"
        done
        lab_test_name=$name
        # LAB_NICE (tests/lab/meson.build): the test and all it starts (its lab's sshd, and so
        # the OSDs, mon and mgr) at that CPU priority. Labs side by side share 2 cores: a test
        # whose checks measure speed (the canary's benchmark gate, the probe's latency, a lock's
        # lease renewed in time) gets its lab's share first, so that its figures are its own
        if [ -n "${LAB_NICE:-}" ]; then
                renice --priority "$LAB_NICE" -p $$ >/dev/null || { echo "FAIL renice --priority $LAB_NICE"; exit 1; }
        fi
        if [ -n "${LAB_SHARED:-}" ]; then
                # a member of tests/lab/test-shared-lab.sh: its lab is the shared one (the
                # runner exported its LAB_PREFIX and LAB_SUBNET), never brought up nor taken
                # down here
                [ -f "$LAB_SHARED/lab.env" ] || { echo "FAIL LAB_SHARED='$LAB_SHARED' is not a lab"; exit 1; }
                dir=$(mktemp -d "${TMPDIR:-/tmp}/cephprov-$name.XXXXXX")
                ln -s "$LAB_SHARED" "$dir/lab"
                export CEPHPROV_STATE_DIR=$dir/state
                torn_down=shared
                trap lab_test_cleanup EXIT
                return 0
        fi
        export LAB_PREFIX=${LAB_PREFIX:-$prefix} LAB_SUBNET=${LAB_SUBNET:-$subnet}
        if ip link show "${LAB_PREFIX}br0" >/dev/null 2>&1; then
                echo "FAIL a lab with prefix '$LAB_PREFIX' is up already (bridge ${LAB_PREFIX}br0): each test needs its own"
                exit 1
        fi
        dir=$(mktemp -d "${TMPDIR:-/tmp}/cephprov-$name.XXXXXX")
        export CEPHPROV_STATE_DIR=$dir/state
        torn_down=
        trap lab_test_cleanup EXIT
        # meson ends a test past its timeout with SIGTERM to its process group and SIGKILL
        # 0.5 s later, before a teardown can end (seen: two timed-out tests left their labs
        # up): on SIGTERM the teardown goes to a session of its own, out of that group's reach
        trap lab_test_terminated TERM
}
lab_test_terminated() {
        set +e
        declare -F lab_cleanup_hook >/dev/null && lab_cleanup_hook
        if [ -z "$torn_down" ] && [ "${KEEP_LAB:-0}" != 1 ]; then
                setsid bash -c '"$1" down --dir "$3"; "$2" down --dir "$3"; rm -rf "$4"' _ \
                        "$ceph_lab" "$lab" "$dir/lab" "$dir" </dev/null >/dev/null 2>&1 &
                torn_down=detached
        fi
        echo "FAIL terminated (SIGTERM: meson's timeout?); the lab is taken down in the background"
        exit 143
}
ceph_() { "$ceph_lab" cli --dir "$dir/lab" "$@"; }
on() { local h=$1; shift; "$lab" exec --dir "$dir/lab" "$h" "$@"; }
lab_hosts() { ls "$dir/lab/hosts" | grep -v '^admin$'; }

# The EXIT trap of lab_test_setup: the test's lab_cleanup_hook first when it defines one (a
# command it left running), then, unless KEEP_LAB=1, the lab down (unless the test set
# torn_down: it took it down itself and checked that) and $dir removed. Never stops half-way;
# keeps the test's exit status.
lab_test_cleanup() {
        local rc=$?
        set +e
        declare -F lab_cleanup_hook >/dev/null && lab_cleanup_hook
        if [ "${KEEP_LAB:-0}" = 1 ]; then echo "lab kept in $dir/lab"; exit $rc; fi
        [ "$torn_down" = detached ] && exit $rc # lab_test_terminated's teardown removes $dir
        if [ -z "$torn_down" ]; then
                "$ceph_lab" down --dir "$dir/lab" >/dev/null 2>&1
                "$lab" down --dir "$dir/lab" >/dev/null 2>&1
        fi
        rm -rf "$dir"
        exit $rc
}

# lab_stat WHAT SECONDS: one figure for tests/run-all.sh's summary (the lab bring-ups and their
# time), appended to $CEPHPROV_LAB_STATS when run-all set it
lab_stat() {
        [ -n "${CEPHPROV_LAB_STATS:-}" ] || return 0
        echo "${lab_test_name:-?} $1 $2" >> "$CEPHPROV_LAB_STATS"
}
lab_now() { date +%s.%N; }
lab_since() { py "print(round($(lab_now) - $1, 1))"; }

# lab_shared_fits [LAB-UP-OPTIONS...]: on a shared lab (LAB_SHARED), whether it has at least
# the hosts and the disks a member asks for (it may have more); names what it lacks
lab_shared_fits() {
        local want_hosts=3 want_ssd=2 want_hdd=2 have_hosts have_ssd have_hdd
        while [ $# -gt 0 ]; do
                case $1 in
                --hosts) want_hosts=$2; shift 2 ;;
                --ssd) want_ssd=$2; shift 2 ;;
                --hdd) want_hdd=$2; shift 2 ;;
                --*) shift 2 ;;
                *) shift ;;
                esac
        done
        have_hosts=$(lab_hosts | wc -l)
        have_ssd=$(ls "$dir/lab/images/" 2>/dev/null | grep -c '^node1-ssd[0-9]*\.img$' || true)
        have_hdd=$(ls "$dir/lab/images/" 2>/dev/null | grep -c '^node1-hdd[0-9]*\.img$' || true)
        [ "$have_hosts" -ge "$want_hosts" ] || { echo "FAIL the shared lab has $have_hosts hosts, $lab_test_name needs $want_hosts"; return 1; }
        [ "$have_ssd" -ge "$want_ssd" ] && [ "$have_hdd" -ge "$want_hdd" ] ||
                { echo "FAIL the shared lab's hosts have $have_ssd SSDs and $have_hdd HDDs, $lab_test_name needs $want_ssd and $want_hdd"; return 1; }
        return 0
}

# lab_timed KIND CMD...: CMD with its output in $dir/KIND.log (its tail on stderr when it
# fails), its time one figure of the bring-ups (lab_stat KIND)
lab_timed() {
        local kind=$1 t0 rc
        shift
        t0=$(lab_now)
        "$@" >"$dir/$kind.log" 2>&1
        rc=$?
        [ $rc = 0 ] || { tail -n 20 "$dir/$kind.log" >&2; return $rc; }
        lab_stat "$kind" "$(lab_since "$t0")"
}
# lab_up [LAB-UP-OPTIONS...]: the hosts (contrib/lab/lab up into $dir/lab), timed; on a shared
# lab, the check that it fits
lab_up() {
        [ "$torn_down" = shared ] && { lab_shared_fits "$@"; return; }
        lab_timed lab-up "$lab" up --dir "$dir/lab" "$@"
}
# ceph_up: the Ceph cluster on the lab's admin host (mon + mgr, no OSD), timed
ceph_up() {
        [ "$torn_down" = shared ] && return 0
        lab_timed ceph-up "$ceph_lab" up --dir "$dir/lab" "$@"
}
# lab_down: the lab taken down now (the Ceph cluster, then the hosts) and $dir/lab removed, for
# a test or bench that brings up a fresh lab again after it (the EXIT trap's teardown of a lab
# already down does nothing); 1 when a down failed. Never a shared lab (LAB_SHARED): refused
lab_down() {
        local rc=0
        [ "$torn_down" = shared ] && { echo "FAIL lab_down on the shared lab"; return 1; }
        "$ceph_lab" down --dir "$dir/lab" >/dev/null 2>&1 || rc=1
        "$lab" down --dir "$dir/lab" >/dev/null 2>&1 || rc=1
        rm -rf "$dir/lab"
        return $rc
}
# lab_bringup [LAB-UP-OPTIONS...]: lab_up then ceph_up; a failure is the test's failure (exit 1,
# the step named). Prints nothing; $lab_bringup_secs says how long it took.
lab_bringup() {
        local t0
        t0=$(lab_now)
        lab_up "$@" || { echo "FAIL lab up $*"; exit 1; }
        ceph_up || { echo "FAIL contrib/lab/ceph up"; exit 1; }
        lab_bringup_secs=$(lab_since "$t0")
}

# lab_check_teardown: the test takes its lab down itself and checks it: both downs succeed,
# no namespace of its prefix and no loop device of its images is left
lab_check_teardown() {
        check "contrib/lab/ceph down" "$ceph_lab" down --dir "$dir/lab"
        check "contrib/lab/lab down" "$lab" down --dir "$dir/lab"
        torn_down=1
        check_eq "no namespace of the lab" "$(ip netns list | grep "^$LAB_PREFIX-")" ""
        check_eq "no loop device of the lab's images" "$(losetup -n -O NAME,BACK-FILE | grep -F "$dir/")" ""
}

wait_clean() { # wait_clean SECONDS: until every PG is active+clean (1 when not within SECONDS)
        local t0=$SECONDS
        while [ $((SECONDS - t0)) -lt "$1" ]; do
                ceph_ pg stat -f json 2>/dev/null | py '
import json, sys
s = json.load(sys.stdin)["pg_summary"]["num_pg_by_state"]
sys.exit(0 if s and all(x["name"] == "active+clean" for x in s) else 1)' && return 0
                sleep 2
        done
        return 1
}

# healthy: HEALTH_OK and every PG active+clean (HEALTH_OK alone is not enough: health stays OK
# while new PGs are still creating or peering); wait_healthy SECONDS: until it is
healthy() {
        ceph_ health 2>/dev/null | grep -q HEALTH_OK &&
                ceph_ pg stat -f json 2>/dev/null | py '
import json, sys
d = json.load(sys.stdin)
d = d.get("pg_summary", d)
n = {x["name"]: x["num"] for x in d["num_pg_by_state"]}
sys.exit(0 if d["num_pgs"] > 0 and n.get("active+clean") == d["num_pgs"] else 1)'
}
wait_healthy() { # (every try is two `ceph` calls of ~0.6 s of CPU each: not faster than 2 s)
        local t=$(($(date +%s) + $1))
        until healthy; do
                [ "$(date +%s)" -lt "$t" ] || return 1
                sleep 2
        done
}

# health_of SECONDS: prints the cluster's health status word, HEALTH_OK as soon as it is (a
# warning that is still there after SECONDS is printed with `ceph health detail` on stderr,
# so that a failed check names the warning)
health_of() {
        local t0=$SECONDS h
        while :; do
                h=$(ceph_ health 2>/dev/null | cut -d' ' -f1)
                [ "$h" = HEALTH_OK ] && break
                [ $((SECONDS - t0)) -lt "$1" ] || { ceph_ health detail >&2 2>/dev/null; break; }
                sleep 2
        done
        echo "$h"
}

# put_objects COUNT BYTES DIR: COUNT random objects of BYTES each into the pool 'data' through
# the admin host ($lab, $dir of the test); the files stay in DIR (under the lab directory
# when the admin host runs chrooted in a release root), their checksums in DIR.sums
put_objects() {
        local n=$1 size=$2 d=$3 i
        mkdir -p "$d"
        for i in $(seq 1 "$n"); do
                head -c "$size" /dev/urandom > "$d/obj$i"
                "$lab" exec --dir "$dir/lab" admin rados -p data put "obj$i" "$d/obj$i" || echo "FAIL rados put obj$i"
        done
        (cd "$d" && sha256sum obj*) > "$d.sums"
}

# objects_identical COUNT DIR BACK: every object, read back into BACK, has DIR's checksum.
# Each read is bounded (60 s): an object whose PG has no copy up blocks a read for ever, and
# the test is to fail naming it, not to hang until its timeout
objects_identical() {
        local n=$1 d=$2 b=$3 i
        rm -rf "$b"
        mkdir -p "$b"
        for i in $(seq 1 "$n"); do
                timeout 60 "$lab" exec --dir "$dir/lab" admin rados -p data get "obj$i" "$b/obj$i" ||
                        echo "FAIL rados get obj$i (not read within 60 s: its PG has no copy up?)"
        done
        [ "$(cd "$b" && sha256sum obj*)" = "$(cat "$d.sums")" ]
}

# The journal helpers of the kill tests (cephprov's journal in $CEPHPROV_STATE_DIR, one JSON
# record a line). journal_lines: how many lines it has now (0 before the first run, also
# under pipefail); journal_since N: the lines after line N; journal_in_flight N: the wave
# steps started after line N and not ended, by name, on one line (what a kill landed in).
journal_lines() { { cat "$CEPHPROV_STATE_DIR"/*.journal 2>/dev/null || :; } | wc -l; }
journal_since() { tail -n "+$(($1 + 1))" "$CEPHPROV_STATE_DIR"/*.journal 2>/dev/null; }
journal_in_flight() {
        journal_since "$1" | py '
import json, sys
open_ = {}
for line in sys.stdin:
    try: r = json.loads(line)
    except ValueError: continue
    ev, key = r.get("event", ""), r.get("key")
    if ev == "wave-step-start": open_[key] = r.get("name")
    elif ev.startswith("wave-step-") and key in open_: del open_[key]
print(" ".join(sorted(set(open_.values()))))'
}
# journal_kill_at_phase PID BASE PHASE [HOST]: kill -9 PID (a convert or replace run of the
# test, in the background) as soon as the journal, past its line BASE, has a convert-phase
# record of PHASE (of HOST when given), polled every 0.1 s, and reaps it; returns 0 when PID
# was still running at the kill (1: it had ended before PHASE)
journal_kill_at_phase() {
        local pid=$1 base=$2 phase=$3 host=${4:-} rc
        while kill -0 "$pid" 2>/dev/null &&
                ! journal_since "$base" | grep "\"host\":\"${host:-[^\"]*}\"" |
                        grep -q "\"phase\":\"$phase\".*\"event\":\"convert-phase\""; do
                sleep 0.1
        done
        rc=0
        kill -9 "$pid" 2>/dev/null || rc=1
        wait "$pid" 2>/dev/null || : # (137 after the kill; also under set -e)
        return $rc
}

# lab_check_plan_matched DIR CEPHPROV LAYOUT: the cluster is exactly what DIR/plan.json (a
# `cephprov plan --json` from blank disks) planned: as many OSD ids as planned OSDs, dense from
# 0 (none leaked or released), all up and in, none destroyed, one OSD on each planned data
# device with the planned device class and its block.db dedicated on the planned partition.
# Saves what it read in DIR (dump, tree, metadata, the inventory after); prints an "osd.N"
# line per OSD, and on stderr what differs.
lab_check_plan_matched() {
        local d=$1
        ceph_ osd dump -f json > "$d/dump.json"
        ceph_ osd tree -f json > "$d/tree.json"
        ceph_ osd metadata -f json > "$d/meta.json"
        "$2" inventory "$3" --save "$d/inv-after.json" >/dev/null
        py '
import json, sys
d = sys.argv[1]
plan = json.load(open(d + "/plan.json"))
dump = json.load(open(d + "/dump.json"))
tree = json.load(open(d + "/tree.json"))
meta = {m["id"]: m for m in json.load(open(d + "/meta.json"))}
inv = {i["host"]: i for i in json.load(open(d + "/inv-after.json"))["inventories"]}
err = []
osds = dump["osds"]
planned = [(h["host"], s) for h in plan["hosts"] for s in h["steps"] if s["kind"] == "create-osd"]
if len(osds) != len(planned):
    err.append("%d OSD ids in the cluster, %d planned (duplicate or leaked id)" % (len(osds), len(planned)))
ids = sorted(o["osd"] for o in osds)
if ids != list(range(len(ids))):
    err.append("OSD ids are not dense: %s (an id was leaked and released)" % ids)
for o in osds:
    if not o["up"] or not o["in"]:
        err.append("osd.%d is not up and in" % o["osd"])
    if "destroyed" in o["state"]:
        err.append("osd.%d is destroyed (leaked id)" % o["osd"])
cls = {n["id"]: n.get("device_class") for n in tree["nodes"] + tree.get("stray", []) if n["type"] == "osd"}
def part_node(host, dev, name):
    for dv in inv[host]["devices"]:
        if dv["path"] == dev:
            for p in dv.get("partitions", []):
                if p.get("name") == name:
                    return p.get("node")
for host, s in planned:
    found = [i for i, m in meta.items() if m.get("hostname") == host and m.get("bluestore_bdev_partition_path") == s["device"]]
    if len(found) != 1:
        err.append("%s:%s carries %d OSDs (want 1)" % (host, s["device"], len(found)))
        continue
    i = found[0]
    m = meta[i]
    if cls.get(i) != s["device_class"]:
        err.append("osd.%d has class %s, planned %s" % (i, cls.get(i), s["device_class"]))
    if s.get("db_partname"):
        want = part_node(host, s["db_device"], s["db_partname"])
        got = m.get("bluefs_db_partition_path")
        if m.get("bluefs_dedicated_db") != "1" or not want or got != want:
            err.append("osd.%d block.db is %s, planned %s (%s on %s)" % (i, got, want, s["db_partname"], s["db_device"]))
    print("osd.%d %s:%s class %s db %s" % (i, host, s["device"], cls.get(i), m.get("bluefs_db_partition_path")))
if err:
    print("\n".join("FAIL: " + e for e in err), file=sys.stderr)
    sys.exit(1)
' "$d"
}

# crush_places: "ID HOST WEIGHT" of every OSD, from the CRUSH tree, one a line by id
crush_places() {
        ceph_ osd tree -f json 2>/dev/null | py '
import json, sys
t = json.load(sys.stdin)["nodes"]
w = {n["id"]: n["crush_weight"] for n in t if n["type"] == "osd"}
for h in t:
    if h["type"] == "host":
        for c in h.get("children", []):
            print(c, h["name"], "%.5f" % w[c])' | sort -n
}

# journal_osd_phases JOURNAL ID: the conversion phases (convert-phase records) of osd.ID in
# the order they first appear (a re-run after a kill journals again what it redoes)
journal_osd_phases() {
        py '
import json, sys
seen = []
for r in map(json.loads, open(sys.argv[1])):
    if r.get("event") == "convert-phase" and r.get("osd_id") == int(sys.argv[2]) and r["phase"] not in seen:
        seen.append(r["phase"])
print(" ".join(seen))' "$1" "$2"
}

# lab_snapshot: what a test on a shared lab must leave as it found it (OSDs with their
# state, pools with size and min_size, the OSD map's flags, the config database but the
# mgr's own keys), one line each, for lab_check_unchanged
lab_snapshot() {
        {
                ceph_ osd dump -f json 2>/dev/null | py '
import json, sys
d = json.load(sys.stdin)
print("flags", ",".join(sorted(d.get("flags", "").split(","))))
for o in d["osds"]:
    print("osd.%d up=%d in=%d" % (o["osd"], o["up"], o["in"]))
for p in d["pools"]:
    print("pool %s size=%d min_size=%d" % (p["pool_name"], p["size"], p["min_size"]))'
                ceph_ config dump -f json 2>/dev/null | py '
import json, sys
for e in json.load(sys.stdin):
    if e["section"] != "mgr" and not e["name"].startswith("mgr/"):
        print("config %s %s=%s" % (e["section"], e["name"], e["value"]))'
        } | sort
}
# lab_check_unchanged BEFORE-FILE: the check that the lab is as lab_snapshot saw it
lab_check_unchanged() {
        local now
        now=$(lab_snapshot)
        check_eq "the shared lab is left as it was found (OSDs, pools, flags, config)" "$now" "$(cat "$1")"
}

# lab_filestore_up LABDIR [LAB-UP-OPTIONS...]: the lab of a FileStore → BlueStore conversion's
# "before" state (`contrib/lab/ceph filestore`: FileStore OSDs with journals on SSD partitions,
# ~200 MB in pool 'data', checksums in LABDIR/filestore/objects.sha256, the layout in
# LABDIR/filestore.yaml) on 3 hosts of 1 SSD (3 journal partitions) + 3 HDDs unless the
# options say otherwise ($lab and $ceph_lab of the test). Prints the seconds it took.
lab_filestore_up() {
        local d=$1 t0 secs
        shift
        t0=$(lab_now)
        "$lab" up --dir "$d" --hosts 3 --ssd 1 --hdd 3 --ssd-size 2G --hdd-size 2G "$@" >/dev/null || return 1
        "$ceph_lab" up --dir "$d" >/dev/null 2>&1 || { echo "contrib/lab/ceph up failed" >&2; return 1; }
        "$ceph_lab" filestore --dir "$d" >"$d/filestore.log" 2>&1 || { tail -n 20 "$d/filestore.log" >&2; return 1; }
        secs=$(lab_since "$t0")
        lab_stat filestore-up "$secs"
        echo "$secs"
}

# lab_filestore_objects_identical LABDIR [SUMS]: every object listed in SUMS (default
# LABDIR/filestore/objects.sha256, `sha256sum` lines) read back from pool 'data' on the admin
# host has its checksum; names what differs or is missing
lab_filestore_objects_identical() {
        local d=$1 sums=${2:-$1/filestore/objects.sha256} back=$1/filestore/readback rc
        [ -s "$sums" ] || { echo "no checksums in '$sums'" >&2; return 1; }
        rm -rf "$back"
        mkdir -p "$back"
        # shellcheck disable=SC2016 # expanded by the inner sh
        "$lab" exec --dir "$d" admin sh -c 'cd "$1" && for o in $(cut -d" " -f3 "$2"); do
                timeout 60 rados -p data get "$o" "$o" || echo "rados get $o failed (or not within 60 s)" >&2; done' sh "$back" "$sums"
        (cd "$back" && sha256sum --quiet --strict -c "$sums")
        rc=$?
        rm -rf "$back"
        return $rc
}
