#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# `cephprov apply` end to end on a real Ceph cluster (lab suite, root only):
#   lab of 3 storage hosts + admin, mon + mgr on admin (contrib/lab/lab, contrib/lab/ceph);
#   1. apply from blank disks (killed at every phase: test-apply-kill-sweep.sh), one host on
#      a terminal (script(1)) with its per-OSD progress checked, the others not on a terminal
#      and without progress;
#   2. it converges: every planned OSD up and in, no duplicate, missing or leaked id,
#      block.db on the planned partition (ceph osd metadata), device classes as planned;
#      HEALTH_OK;
#   3. a third apply is a no-op;
#   4. data written with rados, one OSD daemon stopped, apply again (it starts the OSD),
#      data reads back identical.
# Teardown always (trap).
#
# Usage: test-apply-osds.sh CEPHPROV
# Env: LAB (contrib/lab/lab), CEPH_LAB (contrib/lab/ceph), LAB_PREFIX, LAB_SUBNET, KEEP_LAB=1
# (tests/lab/lab-lib.sh).
set -euo pipefail

CEPHPROV=$(realpath "${1:?usage: $0 CEPHPROV}")
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lab-lib.sh"
APPLY_PID=
lab_cleanup_hook() { [ -n "${APPLY_PID:-}" ] && kill -KILL "$APPLY_PID" 2>/dev/null; }
lab_test_setup apply-osds cpat 10.99.7 python3 flock script
# the run killed below holds the cluster lock until its lease ends: the re-run waits for it
export CEPHPROV_LOCK_LEASE=20 CEPHPROV_LOCK_WAIT=120

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
t0=$(lab_now)

lab_bringup --hosts 3
DIR=$dir/lab # the test's own files beside the lab's (its state: $CEPHPROV_STATE_DIR, $dir/state)
L=$DIR/layout.yaml
echo "lab + cluster up in $(lab_since "$t0") s"

# the plan from blank disks: what must exist at the end
"$CEPHPROV" inventory "$L" --save "$DIR/inv-before.json" >/dev/null
"$CEPHPROV" plan "$L" --inventory "$DIR/inv-before.json" --json > "$DIR/plan.json"
n_planned=$(py 'import json,sys; p=json.load(open(sys.argv[1])); print(sum(1 for h in p["hosts"] for s in h["steps"] if s["kind"]=="create-osd"))' "$DIR/plan.json")
[ "$n_planned" -ge 6 ] || fail "expected at least 6 planned OSDs, the plan has $n_planned"

# 1. apply from blank disks (kills at every phase: test-apply-kill-sweep.sh), in two runs:
#    a. the last host's OSDs on a terminal (a pty: script(1)), one at a time, so that the
#       second has the first's time to go by: per-OSD progress (issue 30 item 7), a line per
#       state with its elapsed time and an ETA, and the time of each OSD created;
#    b. the other hosts' OSDs, not on a terminal: not one progress line.
t_apply=$(lab_now)
J=$CEPHPROV_STATE_DIR/ceph.journal
tty_host=$(lab_hosts | tail -n1)
n_tty=$(py 'import json,sys; p=json.load(open(sys.argv[1])); print(sum(1 for h in p["hosts"] if h["host"]==sys.argv[2] for s in h["steps"] if s["kind"]=="create-osd"))' "$DIR/plan.json" "$tty_host")
[ "$n_tty" -ge 2 ] || fail "expected at least 2 planned OSDs on $tty_host, the plan has $n_tty"
script -qefc "$(printf '%q ' "$CEPHPROV" apply "$L" --yes --hosts "$tty_host" --parallel 1)" "$DIR/apply-tty.raw" \
        </dev/null >/dev/null 2>&1 || { cat "$DIR/apply-tty.raw"; fail "apply of $tty_host on a terminal did not converge"; }
# what the terminal showed, line by line: what follows a line's last carriage return (the
# executor's one-line step count is overwritten there), the line erasures taken out
py 'import sys
for l in open(sys.argv[1], errors="replace", newline="").read().split("\n"):
    print(l.rstrip("\r").split("\r")[-1].replace("\x1b[K", ""))' "$DIR/apply-tty.raw" > "$DIR/apply-tty.log"
prog_re="^osd\.[0-9?]+ $tty_host /dev/[^ ]+: "
for state in prepare activate start; do
        grep -Eq "$prog_re$state, [0-9]+ s elapsed, ETA " "$DIR/apply-tty.log" ||
                { cat "$DIR/apply-tty.log"; fail "no progress line in state '$state' on a terminal"; }
done
grep -Eq "$prog_re[a-z ]+, 0 s elapsed, ETA unknown \(no OSD created yet\)$" "$DIR/apply-tty.log" ||
        { cat "$DIR/apply-tty.log"; fail "the first OSD's progress does not say its ETA is unknown"; }
grep -Eq "$prog_re[a-z ]+, [0-9]+ s elapsed, ETA [0-9]+ s$" "$DIR/apply-tty.log" ||
        { cat "$DIR/apply-tty.log"; fail "no ETA in seconds once an OSD was created"; }
[ "$(grep -Ec "${prog_re}created in [0-9]+\.[0-9] s$" "$DIR/apply-tty.log")" = "$n_tty" ] ||
        { cat "$DIR/apply-tty.log"; fail "not one 'created in N s' line per OSD of $tty_host ($n_tty)"; }
ok "apply on a terminal: per-OSD progress on $tty_host (prepare, activate, start; elapsed; ETA unknown, then in seconds; $n_tty created with their times)"

created_before=$(grep -c '"event":"osd-created"' "$J")
"$CEPHPROV" apply "$L" --yes > "$DIR/apply2.log" 2>&1 || { cat "$DIR/apply2.log"; fail "apply from blank disks did not converge"; }
grep -q '^converged' "$DIR/apply2.log" || { cat "$DIR/apply2.log"; fail "apply did not say converged"; }
[ "$(grep -c '"event":"osd-created"' "$J")" -eq $((n_planned)) ] && [ "$created_before" -eq "$n_tty" ] ||
        fail "the two applies did not create $n_tty then $((n_planned - n_tty)) OSDs (journal: $created_before, then $(grep -c '"event":"osd-created"' "$J"))"
! grep -Eq 'elapsed, ETA|: created in |\[[0-9]+/[0-9]+ steps' "$DIR/apply2.log" ||
        { cat "$DIR/apply2.log"; fail "apply not on a terminal printed progress"; }
ok "apply converged; not on a terminal, without a progress line"

wait_healthy 180 || { ceph_ health detail; ceph_ pg stat; fail "no HEALTH_OK with all PGs active+clean within 180 s"; }
ok "HEALTH_OK, all PGs active+clean $(lab_since "$t_apply") s after the first apply started"

lab_check_plan_matched "$DIR" "$CEPHPROV" "$L" || fail "cluster does not match the plan"
ok "$n_planned OSDs up and in, dense ids, no destroyed id, block.db on the planned partitions, classes as planned"

# 3. second apply: a no-op
steps_before=$(grep -c '"event":"wave-step-start"' "$J" || true)
"$CEPHPROV" apply "$L" --yes > "$DIR/apply3.log" 2>&1 || { cat "$DIR/apply3.log"; fail "third apply failed"; }
grep -q '^nothing to do' "$DIR/apply3.log" || { cat "$DIR/apply3.log"; fail "third apply was not a no-op"; }
[ "$(grep -c '"event":"wave-step-start"' "$J")" = "$steps_before" ] || fail "third apply ran steps"
ok "apply on the converged lab is a no-op"

# 3b. the lab as the previous release left it (issue 25): that release named a DB or WAL
#     partition `cp:<role>:<slot>:<host>`, slot i the i-th data device of the profile, whose
#     partitions it made in that order. Every cephprov partition of every host renamed so (in
#     partition-number order per role, as it made them), a re-apply is a no-op and touches
#     none of them: names and PARTUUIDs as they were set. (Run once by hand against the
#     previous release's own binary too: the closing note of issue 25.)
legacy_gpt() { # every host's SSD: "DEV NUM PARTUUID NAME" per cephprov partition
        local h ssd
        for h in $(lab_hosts); do
                for ssd in $(awk '$2=="ssd" {print $1}' "$DIR/hosts/$h/loops"); do
                        for num in $(sgdisk -p "$ssd" | awk '/^ +[0-9]+ / {print $1}'); do
                                sgdisk -i "$num" "$ssd" | awk -v d="$ssd" -v n="$num" \
                                        '/^Partition unique GUID:/ {g=tolower($4)} /^Partition name:/ {sub(/^Partition name: /,""); gsub(/'\''/,""); print d, n, g, $0}'
                        done
                done
        done
}
n_renamed=0
for h in $(lab_hosts); do
        declare -A slot_of_role=()
        while read -r dev num uuid name; do
                [[ $name =~ ^cp:(db|wal):@[0-9a-f]{8}:$h$ ]] || continue
                role=${BASH_REMATCH[1]}
                k=${slot_of_role[$role]:-0}
                # sfdisk, not sgdisk -c: sgdisk ends a name at its first ':'
                sfdisk --no-reread --part-label "$dev" "$num" "cp:$role:$k:$h" >/dev/null 2>&1 ||
                        fail "sfdisk could not rename $dev partition $num"
                slot_of_role[$role]=$((k + 1))
                n_renamed=$((n_renamed + 1))
        done < <(legacy_gpt | grep " cp:.*:$h\$")
        unset slot_of_role
done
[ "$n_renamed" -ge "$n_planned" ] || fail "renamed $n_renamed partitions to the previous release's names, expected at least $n_planned (one DB per OSD)"
legacy_gpt > "$DIR/gpt-legacy.txt"
grep -qE ' cp:db:0:node1$' "$DIR/gpt-legacy.txt" || { cat "$DIR/gpt-legacy.txt"; fail "no partition carries the previous release's name cp:db:0:node1"; }
# and the hosts' agents read them so (from the disk, not a cache of the old names)
"$CEPHPROV" inventory "$L" --json | py 'import json,sys
names=[p.get("name","") for i in json.load(sys.stdin)["inventories"] for d in i["devices"] for p in d.get("partitions",[])]
cp=[n for n in names if n.startswith("cp:")]
sys.exit(0 if cp and all(n.split(":")[2].isdigit() for n in cp) else "inventory names: %s" % cp)' ||
        fail "the inventory does not show the previous release's names"
steps_before=$(grep -c '"event":"wave-step-start"' "$J" || true)
"$CEPHPROV" apply "$L" --yes > "$DIR/apply-legacy.log" 2>&1 || { cat "$DIR/apply-legacy.log"; fail "apply on the previous release's names failed"; }
grep -q '^nothing to do' "$DIR/apply-legacy.log" || { cat "$DIR/apply-legacy.log"; fail "apply on the previous release's names was not a no-op"; }
[ "$(grep -c '"event":"wave-step-start"' "$J")" = "$steps_before" ] || fail "apply on the previous release's names ran steps"
legacy_gpt | diff -u "$DIR/gpt-legacy.txt" - || fail "apply changed a partition named by the previous release"
ok "a lab with the previous release's partition names ($n_renamed renamed) re-applies as a no-op, names and PARTUUIDs untouched"

# the cluster lock: released after a run; another controller's lock is refused
[ "$("$CEPHPROV" lock status "$L")" = "cluster 'ceph' is not locked" ] || { "$CEPHPROV" lock status "$L"; fail "the cluster lock was not released"; }
# (the holder with the default 60 s lease: the test's 20 s one is renewed every 6.7 s and
# given up 15 s after a renewal; in a CI run beside uml-reshape and two labs the holder ended
# before it was stopped, and a renewal's two monitor commands late under that load lose it)
CEPHPROV_STATE_DIR=$DIR/state-other CEPHPROV_LOCK_LEASE=60 "$CEPHPROV" lock hold "$L" 300 > "$DIR/hold.log" 2>&1 &
HOLD_PID=$!
APPLY_PID=$HOLD_PID
for _ in $(seq 300); do grep -q '^locked' "$DIR/hold.log" && break; kill -0 "$HOLD_PID" || break; sleep 0.1; done
grep -q '^locked' "$DIR/hold.log" || { cat "$DIR/hold.log"; fail "another controller could not take the lock"; }
"$CEPHPROV" lock status "$L" --json > "$DIR/doc-lock-held.json" || fail "lock status --json failed"
if CEPHPROV_LOCK_WAIT=0 "$CEPHPROV" apply "$L" --yes > "$DIR/apply-locked.log" 2>&1; then fail "apply ran although another controller holds the cluster lock"; fi
grep -q "cluster 'ceph' is locked by cephprov on '$(hostname)' (pid $HOLD_PID, lock hold, lease until " "$DIR/apply-locked.log" ||
        { cat "$DIR/apply-locked.log"; fail "no clear message for the held cluster lock"; }
HOLD_PID_SEEN=$HOLD_PID
kill -TERM "$HOLD_PID" 2>/dev/null || { cat "$DIR/hold.log"; fail "the other controller ended before it was stopped"; }
wait "$HOLD_PID" || { cat "$DIR/hold.log"; fail "the other controller did not hold its lock to the end"; }
APPLY_PID=
ok "cluster lock: released after each run, another controller's lock refused (tests/lab/test-cluster-lock.sh has the rest)"

# 4. data written before a re-apply reads back identical after it
mkdir -p "$DIR/data"
for i in $(seq 1 30); do head -c 4194304 /dev/urandom > "$DIR/data/obj$i"; done
(cd "$DIR/data" && md5sum obj* > ../data.md5)
for i in $(seq 1 30); do on admin rados -p data put "obj$i" "$DIR/data/obj$i"; done
victim=$(py 'import json,sys; print(json.load(open(sys.argv[1]))["osds"][0]["osd"])' "$DIR/dump.json")
vhost=$(py 'import json,sys; print([m["hostname"] for m in json.load(open(sys.argv[1])) if m["id"]==int(sys.argv[2])][0])' "$DIR/meta.json" "$victim")
on "$vhost" systemctl stop "ceph-osd@$victim"
for _ in $(seq 60); do
        ceph_ osd dump -f json | py 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if not [o for o in d["osds"] if o["osd"]=='"$victim"'][0]["up"] else 1)' && break
        sleep 1
done
"$CEPHPROV" apply "$L" --yes > "$DIR/apply4.log" 2>&1 || { cat "$DIR/apply4.log"; fail "apply after stopping osd.$victim failed"; }
grep -q "activated and started (it was on disk, not running)" "$DIR/apply4.log" || { cat "$DIR/apply4.log"; fail "apply did not start the stopped osd.$victim"; }
wait_healthy 180 || { ceph_ health detail; ceph_ pg stat; fail "no HEALTH_OK with all PGs active+clean after the re-apply"; }
mkdir -p "$DIR/back"
for i in $(seq 1 30); do on admin rados -p data get "obj$i" "$DIR/back/obj$i"; done
(cd "$DIR/back" && md5sum -c ../data.md5 >/dev/null) || fail "data read back differs"
ok "120 MiB written with rados before the re-apply (osd.$victim stopped, started again by apply) read back identical"

# issue 30: the --json documents of the commands that need a cluster, against their schemas
# (docs/schema/; the offline ones: tests/cli/test-cli-json-schema.sh): status, lock status
# (free, and held above), apply (a dry run and a no-op run), the dry runs of drain, destroy and
# run, and pause then resume (the brake on and off again)
h1=$(lab_hosts | head -n1)
"$CEPHPROV" status "$L" --json > "$DIR/doc-status.json" || fail "status --json failed"
"$CEPHPROV" lock status "$L" --json > "$DIR/doc-lock.json" || fail "lock status --json failed"
"$CEPHPROV" apply "$L" --dry-run --json > "$DIR/doc-apply-dry.json" || fail "apply --dry-run --json failed"
"$CEPHPROV" apply "$L" --yes --json > "$DIR/doc-apply.json" || fail "apply --json (a no-op) failed"
# (a dry run the playbook's checks would refuse exits 1 with its plan: still the run's document,
# which the kind checked below tells from the error document)
"$CEPHPROV" drain "$L" "$h1" --dry-run --json > "$DIR/doc-drain.json" 2>"$DIR/doc-drain.err" || true
"$CEPHPROV" destroy "$L" "$h1" --dry-run --json > "$DIR/doc-destroy.json" 2>"$DIR/doc-destroy.err" || true
"$CEPHPROV" run "$(dirname "$0")/../../playbooks/drain-node.yaml" "$L" --hosts "$h1" --dry-run --json > "$DIR/doc-run.json" \
        2>"$DIR/doc-run.err" || true
"$CEPHPROV" pause "$L" --json > "$DIR/doc-pause.json" || fail "pause --json failed"
"$CEPHPROV" resume "$L" --json > "$DIR/doc-resume.json" || fail "resume --json failed"
ceph_ osd dump -f json | py 'import json,sys; sys.exit("nobackfill" in json.load(sys.stdin).get("flags", ""))' ||
        fail "resume left nobackfill set"
rc=0
/usr/bin/python3 "$(dirname "$0")/../json-schema-check.py" "$(dirname "$0")/../../docs/schema" \
        "$DIR/doc-status.json=status" "$DIR/doc-lock.json=lock" "$DIR/doc-lock-held.json=lock" \
        "$DIR/doc-apply-dry.json=apply" "$DIR/doc-apply.json=apply" "$DIR/doc-drain.json=drain" \
        "$DIR/doc-destroy.json=destroy" "$DIR/doc-run.json=run" "$DIR/doc-pause.json=pause" \
        "$DIR/doc-resume.json=resume" > "$DIR/schema.log" || rc=$?
cat "$DIR/schema.log"
if [ "$rc" = 77 ]; then
        echo "SKIP: python3-jsonschema is not installed: the documents of status, lock, apply, drain, destroy, run, pause and resume were not checked"
else
        [ "$rc" = 0 ] || { cat "$DIR"/doc-*.err; fail "a --json document does not match its schema (above)"; }
        py 'import json,sys; d=json.load(open(sys.argv[1])); h=d.get("holder") or {}; sys.exit(not (d["locked"] and h.get("pid")==int(sys.argv[2])))' \
                "$DIR/doc-lock-held.json" "$HOLD_PID_SEEN" || fail "lock status --json does not name the holder (pid $HOLD_PID_SEEN)"
        ok "status, lock status (free and held), apply (dry run, no-op), drain, destroy and run dry runs, pause and resume: --json documents match docs/schema/"
fi

"$CEPHPROV" status "$L" > "$DIR/status.txt" || fail "status failed"
grep -q "HEALTH_OK" "$DIR/status.txt" || { cat "$DIR/status.txt"; fail "status does not show HEALTH_OK"; }
"$CEPHPROV" status "$L" --json | py 'import json,sys; s=json.load(sys.stdin); assert len(s["osds"])=='"$n_planned"', s; assert all(o["up"] and o["in"] for o in s["osds"]); assert s["blast_radius"]' \
        || fail "status --json does not list every OSD up and in with a blast radius"
ok "status shows hosts, OSDs, blast radius, health"
echo "PASS ($(lab_since "$t0") s)"
