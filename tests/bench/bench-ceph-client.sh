#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The cluster client (issue 27): the `ceph` CLI (a Python process per question, as cephprov
# asked the cluster before) against the agent's ceph-command op (librados, one connection),
# in one run on one lab (4 hosts of 1 SSD + 2 HDDs, 8 OSDs, 200 MB in pool `data`):
#   1. per-command latency on the admin host, side by side, N times each: `osd dump`,
#      `pg stat`, `config-key get`, `osd ok-to-stop`, `osd safe-to-destroy` — the CLI
#      (subprocess) and the op (one `cephprov agent` on the admin host, request to answer);
#   2. wall time of a no-op re-apply, of `status` and of `drain --dry-run`, the previous
#      commit's binary (BASELINE, built from BASELINE_REV when not given) against this one;
#   3. the admin host's CPU seconds (everything its sshd ran: the agent and the commands it
#      ran, reaped) during a drain of node4 with each binary (cancelled in between, clean
#      again before the second).
# Prints the figures and the ratios against the targets; exits 1 when a command fails, never
# on a ratio (the machines are shared and noisy).
#
# Usage: bench-ceph-client.sh CEPHPROV
# Env: LAB, CEPH_LAB, LAB_PREFIX, LAB_SUBNET (tests/lab/lab-lib.sh), BENCH_N (commands of
#      each kind, 30), BASELINE (a cephprov binary), BASELINE_REV (git revision, d65e10f).
set -uo pipefail

CEPHPROV=$(realpath "${1:?usage: $0 CEPHPROV}")
N=${BENCH_N:-30}
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lab/lab-lib.sh"
lab_test_setup bench-ceph-client cpbk 10.99.38 python3
SRC=$(realpath "$(dirname "$0")/../..")
OUT=$dir/out
mkdir -p "$OUT"

# the previous commit's binary: the cluster through the CLI
if [ -z "${BASELINE:-}" ]; then
        rev=${BASELINE_REV:-d65e10f}
        echo "# building the baseline cephprov at $rev"
        mkdir -p "$dir/base"
        git -C "$SRC" archive "$rev" | tar -x -C "$dir/base" || { echo "FAIL git archive $rev"; exit 1; }
        (cd "$dir/base" && meson setup -Dbuildtype=debugoptimized build >/dev/null && ninja -C build src/cli/cephprov >/dev/null) ||
                { echo "FAIL building the baseline"; exit 1; }
        BASELINE=$dir/base/build/src/cli/cephprov
fi

lab_bringup --hosts 4 --ssd 1 --hdd 2
layout=$dir/lab/layout.yaml
"$CEPHPROV" apply "$layout" --yes >"$OUT/apply.log" 2>&1 || { tail "$OUT/apply.log"; echo "FAIL apply"; exit 1; }
ceph_ osd pool set data size 2 >/dev/null 2>&1
put_objects 50 4194304 "$dir/data" >/dev/null
wait_clean 300 || { echo "FAIL not clean"; exit 1; }
echo "# lab: 4 hosts, 8 OSDs, 200 MB in 'data'; up in ${lab_bringup_secs} s"

# 1. per command, on the admin host
ceph_ config-key set cephprov/bench/key value >/dev/null 2>&1
on admin python3 - "$CEPHPROV" "$N" > "$OUT/commands" <<'EOF' || { echo "FAIL the per-command comparison"; exit 1; }
import json, statistics, subprocess, sys, time
cephprov, n = sys.argv[1], int(sys.argv[2])
cmds = [
    ("osd dump", "mon", {"prefix": "osd dump", "format": "json"}, ["osd", "dump", "-f", "json"]),
    ("pg stat", "mgr", {"prefix": "pg stat", "format": "json"}, ["pg", "stat", "-f", "json"]),
    ("config-key get", "mon", {"prefix": "config-key get", "key": "cephprov/bench/key"},
     ["config-key", "get", "cephprov/bench/key"]),
    ("osd ok-to-stop", "mgr", {"prefix": "osd ok-to-stop", "ids": ["0"], "format": "json"},
     ["osd", "ok-to-stop", "0", "-f", "json"]),
    ("osd safe-to-destroy", "mgr", {"prefix": "osd safe-to-destroy", "ids": ["0"], "format": "json"},
     ["osd", "safe-to-destroy", "0", "-f", "json"]),
]
agent = subprocess.Popen([cephprov, "agent"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
agent.stdout.readline()  # hello
rid = 0
def call(op, args):
    global rid
    rid += 1
    agent.stdin.write(json.dumps({"id": rid, "op": op, "args": args}) + "\n")
    agent.stdin.flush()
    while True:
        r = json.loads(agent.stdout.readline())
        if r.get("id") == rid and "progress" not in r:
            return r
call("configure", {"host": "admin", "allow": [], "dry_run": False})
first = call("ceph-command", {"commands": [{"target": "mon", "cmd": {"prefix": "versions"}}]})
assert first["ok"], first
for name, target, cmd, argv in cmds:
    cli, op = [], []
    for i in range(n):  # alternated, so that both see the same cluster
        t = time.monotonic()
        p = subprocess.run(["ceph"] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        cli.append((time.monotonic() - t) * 1000)
        t = time.monotonic()
        r = call("ceph-command", {"commands": [{"target": target, "cmd": cmd}]})
        op.append((time.monotonic() - t) * 1000)
        a = r["result"]["answers"][0] if r.get("ok") else {}
        if a.get("rc") != -p.returncode or (p.returncode == 0 and "format" in cmd and
                                            json.loads(a["out"]).keys() != json.loads(p.stdout).keys()):
            sys.exit(f"{name}: the CLI exited {p.returncode}, the op answered {r}")
    print(f"{name}|{statistics.median(cli):.1f}|{statistics.median(op):.2f}|{max(op):.2f}")
call("exit", {})
EOF

# 2. wall times, the baseline's first (each binary uploads its agent on its first run: not timed)
walls() { # LABEL BINARY: 5 timed runs of each command after one untimed
        local label=$1 bin=$2 what i
        "$bin" apply "$layout" --yes >/dev/null 2>&1
        for what in apply status drain; do
                for i in 0 1 2 3 4 5; do
                        case $what in
                        apply) set -- "$bin" apply "$layout" --yes ;;
                        status) set -- "$bin" status "$layout" ;;
                        drain) set -- "$bin" drain "$layout" node4 --dry-run ;;
                        esac
                        local t0 t1
                        t0=$(date +%s.%N)
                        "$@" >"$OUT/$label-$what.log" 2>&1 || { tail -5 "$OUT/$label-$what.log"; echo "FAIL $label $what"; exit 1; }
                        t1=$(date +%s.%N)
                        [ "$i" = 0 ] || echo "$label $what $(echo "$t1 - $t0" | bc)" >> "$OUT/walls"
                done
        done
}
walls before "$BASELINE"
walls after "$CEPHPROV"

# 3. the admin host's CPU during a drain of node4: its sshd's reaped children (the agent and
#    every command it ran), read once the controller is gone and its session reaped
admin_cpu() {
        python3 - "$(cat "$dir/lab/hosts/admin/sshd.pid")" <<'EOF'
import os, sys
f = open(f"/proc/{sys.argv[1]}/stat").read().rsplit(")", 1)[1].split()
print((int(f[13]) + int(f[14])) / os.sysconf("SC_CLK_TCK"))  # cutime + cstime
EOF
}
drain_cpu() { # LABEL BINARY
        local label=$1 bin=$2 c0 c1 t0 t1
        "$bin" status "$layout" >/dev/null 2>&1 # the agent uploaded, not counted
        sleep 2
        c0=$(admin_cpu)
        t0=$(date +%s.%N)
        "$bin" drain "$layout" node4 --yes >"$OUT/drain-$label.log" 2>&1 || { tail -5 "$OUT/drain-$label.log"; echo "FAIL drain ($label)"; exit 1; }
        t1=$(date +%s.%N)
        sleep 3
        c1=$(admin_cpu)
        echo "$label $(echo "$t1 - $t0" | bc) $(echo "$c1 - $c0" | bc)" >> "$OUT/drains"
        "$bin" drain "$layout" node4 --cancel --yes >/dev/null 2>&1 || { echo "FAIL drain --cancel ($label)"; exit 1; }
        wait_clean 600 || { echo "FAIL not clean after the cancel ($label)"; exit 1; }
}
drain_cpu before "$BASELINE"
drain_cpu after "$CEPHPROV"

python3 - "$OUT" <<'EOF'
import statistics, sys
out = sys.argv[1]
print("\n## 1. one command on the admin host (median of %s; the op: request to answer through `cephprov agent`)" % "N")
print(f"{'command':22} {'CLI ms':>8} {'op ms':>8} {'op max':>8} {'CLI/op':>8}")
cli_all, op_all = [], []
for line in open(out + "/commands"):
    name, cli, op, mx = line.strip().split("|")
    cli_all.append(float(cli)); op_all.append(float(op))
    print(f"{name:22} {float(cli):8.1f} {float(op):8.2f} {float(mx):8.2f} {float(cli) / float(op):7.0f}x")
cli_call = statistics.median(cli_all)
op_med = statistics.median(op_all)
print(f"median: CLI {cli_call:.1f} ms, op {op_med:.2f} ms (target <= 5 ms): {'met' if op_med <= 5 else 'NOT met'}")
w = {}
for line in open(out + "/walls"):
    label, what, t = line.split()
    w.setdefault((label, what), []).append(float(t))
print("\n## 2. wall time, median of 5 (before: the CLI; after: librados)")
print(f"{'command':22} {'before s':>9} {'after s':>9} {'ratio':>7} {'÷ CLI call':>11}")
for what, name in (("apply", "no-op re-apply"), ("status", "status"), ("drain", "drain --dry-run")):
    b, a = statistics.median(w[("before", what)]), statistics.median(w[("after", what)])
    print(f"{name:22} {b:9.3f} {a:9.3f} {b / a:6.1f}x {a * 1000 / cli_call:10.2f}x")
a_apply = statistics.median(w[("after", "apply")]) * 1000 / cli_call
a_status = statistics.median(w[("after", "status")]) * 1000 / cli_call
print(f"targets: no-op re-apply <= 1.5 CLI calls: {a_apply:.2f} ({'met' if a_apply <= 1.5 else 'NOT met'}); "
      f"status <= 1 CLI call: {a_status:.2f} ({'met' if a_status <= 1 else 'NOT met'})")
d = {l.split()[0]: (float(l.split()[1]), float(l.split()[2])) for l in open(out + "/drains")}
print("\n## 3. drain of node4: wall and the admin host's CPU seconds")
for label in ("before", "after"):
    print(f"{label:8} wall {d[label][0]:7.1f} s  admin CPU {d[label][1]:6.2f} s")
r = d["before"][1] / max(d["after"][1], 0.01)
print(f"admin CPU before/after: {r:.1f}x (target >= 10x): {'met' if r >= 10 else 'NOT met'}")
EOF
exit 0
