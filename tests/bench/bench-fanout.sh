#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Fan-out benchmark: one inventory-ish command (`cat /proc/partitions; lsblk -J`) on N fake
# hosts (default 50) with
#   1. cephprov's transport fan-out (tests/lab/lab-ssh-tool exec: libssh2, one thread per
#      host up to the concurrency),
#   2. OpenSSH `ssh` per host, xargs -P at the same concurrency, default key exchange,
#   3. the same with -o KexAlgorithms=curve25519-sha256,
#   4. Ansible ad-hoc `command` (ansible-core; "skipped" when it is not installed),
# printing wall time, controller CPU (user+sys of the whole process tree) and ratios, and
# the peak RSS of our tool.
#
#   bench-fanout.sh PATH/TO/lab-ssh-tool [--hosts N] [--concurrency C] [--runs R]
#
# With CEPHPROV=PATH/TO/cephprov, `cephprov inventory` (agent inventory over SSH) is measured
# too and the targets are judged on it; without, it is skipped (said so).
#
# Env: LAB (contrib/lab/lab), LAB_PREFIX / LAB_SUBNET (default cpb / 10.99.4; the lab set up
# by tests/lab/lab-lib.sh). Needs root. Targets: ours ≤ 0.8 × OpenSSH-curve25519 wall, ≤ 1 s
# CPU for 50 hosts.

set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lab/lab-lib.sh"

TOOL=${1:?usage: bench-fanout.sh LAB-SSH-TOOL [--hosts N] [--concurrency C] [--runs R]}
shift
HOSTS_N=50
CONC=50
RUNS=3
while [ $# -gt 0 ]; do
        case $1 in
        --hosts) HOSTS_N=$2; shift 2 ;;
        --concurrency) CONC=$2; shift 2 ;;
        --runs) RUNS=$2; shift 2 ;;
        *) echo "unknown option '$1'" >&2; exit 2 ;;
        esac
done
lab_test_setup bench-fanout cpb 10.99.4 noceph python3

echo "# lab: $HOSTS_N hosts (one 64 MiB loop \"HDD\" each), concurrency $CONC, best of $RUNS runs"
start=$(lab_now)
lab_up --hosts "$HOSTS_N" --ssd 0 --hdd 1 --hdd-size 64M || { echo "FAIL lab up"; exit 1; }
echo "# lab up: $(lab_since "$start") s"
DIR=$dir/lab # the lab's directory
# shellcheck disable=SC1091
. "$DIR/lab.env"

CMD='cat /proc/partitions; lsblk -J'
IPS=$DIR/ips
SPECS=()
: > "$IPS"
for h in $LAB_HOSTS; do
        [ "$h" = admin ] && continue
        ipv=LAB_IP_$h
        echo "${!ipv}" >> "$IPS"
        SPECS+=("$h=${!ipv}")
done

SSH=(ssh -F /dev/null -i "$DIR/id_ed25519" -o UserKnownHostsFile="$DIR/known_hosts"
     -o StrictHostKeyChecking=yes -o BatchMode=yes -o ControlMaster=no -o ControlPath=none
     -o LogLevel=ERROR)

# measure NAME CMD...: runs CMD RUNS times, keeps the best wall; prints "NAME wall cpu rss"
# to $DIR/results. CPU = user+sys of CMD and all its descendants (RUSAGE_CHILDREN).
measure() {
        local name=$1
        shift
        python3 - "$name" "$RUNS" "$DIR/results" "$@" <<'EOF'
import resource, subprocess, sys, time
name, runs, out, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
best = None
for _ in range(runs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        sys.stderr.write(f"{name}: exit {p.returncode}: {p.stderr.decode(errors='replace')[-2000:]}\n")
        sys.exit(1)
    if best is None or wall < best[0]:
        best = (wall, cpu, after.ru_maxrss)
with open(out, "a") as f:
    f.write(f"{name} {best[0]:.3f} {best[1]:.3f} {best[2]}\n")
EOF
}

: > "$DIR/results"
# `cephprov inventory` itself: agent pushed to every host on the first run (timed apart),
# then the agent's libudev/libblkid inventory of each host over one SSH session per host.
CEPHPROV_INVENTORY=0
if [ -z "${CEPHPROV:-}" ]; then
        echo "# CEPHPROV not set: cephprov inventory not measured (the transport fan-out is)"
elif [ ! -x "$CEPHPROV" ]; then
        echo "# CEPHPROV '$CEPHPROV' is not an executable: cephprov inventory not measured"
else
        sed -i "s/^  concurrency: .*/  concurrency: $CONC/" "$DIR/layout.yaml"
        start=$(date +%s.%N)
        "$CEPHPROV" inventory "$DIR/layout.yaml" --json >/dev/null || exit 1
        echo "# first cephprov inventory, pushing the agent to $HOSTS_N hosts: $(python3 -c "import sys,time; print(f'{time.time() - float(sys.argv[1]):.2f}')" "$start") s"
        measure cephprov-inventory "$CEPHPROV" inventory "$DIR/layout.yaml" --json || exit 1
        CEPHPROV_INVENTORY=1
fi
measure cephprov "$TOOL" --identity "$DIR/id_ed25519" --known-hosts "$DIR/known_hosts" \
        --concurrency "$CONC" --json exec "${SPECS[@]}" -- sh -c "$CMD" || exit 1
# peak RSS of our tool alone (getrusage(RUSAGE_SELF) inside it)
RSS=$(LAB_SSH_TOOL_RUSAGE=1 "$TOOL" --identity "$DIR/id_ed25519" --known-hosts "$DIR/known_hosts" \
        --concurrency "$CONC" --json exec "${SPECS[@]}" -- sh -c "$CMD" 2>&1 >/dev/null |
        sed -n 's/.*maxrss_kb=\([0-9]*\).*/\1/p')

measure openssh-default xargs -a "$IPS" -P "$CONC" -I{} "${SSH[@]}" root@{} "$CMD" || exit 1
measure openssh-curve25519 xargs -a "$IPS" -P "$CONC" -I{} "${SSH[@]}" -o KexAlgorithms=curve25519-sha256 \
        root@{} "$CMD" || exit 1

if command -v ansible >/dev/null; then
        INV=$DIR/inventory.ini
        {
                echo "[lab]"
                for s in "${SPECS[@]}"; do echo "${s%%=*} ansible_host=${s#*=}"; done
                echo "[lab:vars]"
                echo "ansible_user=root"
                echo "ansible_ssh_private_key_file=$DIR/id_ed25519"
                echo "ansible_ssh_common_args='-F /dev/null -o UserKnownHostsFile=$DIR/known_hosts -o StrictHostKeyChecking=yes'"
                echo "ansible_python_interpreter=/usr/bin/python3"
        } > "$INV"
        mkdir -p "$DIR/ansible-home"
        HOME=$DIR/ansible-home ANSIBLE_HOST_KEY_CHECKING=True ANSIBLE_GATHERING=explicit \
        ANSIBLE_LOCAL_TEMP=$DIR/ansible-home/tmp ANSIBLE_NOCOLOR=1 \
                measure ansible ansible lab -i "$INV" -f "$CONC" -m command -a "sh -c '$CMD'" || exit 1
        HAVE_ANSIBLE=1
else
        HAVE_ANSIBLE=0
fi

python3 - "$DIR/results" "$HOSTS_N" "$CONC" "$RSS" "$HAVE_ANSIBLE" <<'EOF'
import sys
path, n, conc, rss, have_ansible = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] == "1"
r = {}
for line in open(path):
    name, wall, cpu, maxrss = line.split()
    r[name] = (float(wall), float(cpu), int(maxrss))
print(f"{'':20} {'wall s':>8} {'CPU s':>8}   (command on {n} hosts, concurrency {conc})")
for name in ["cephprov-inventory", "cephprov", "openssh-default", "openssh-curve25519", "ansible"]:
    if name not in r:
        print(f"{name:20} skipped (not installed)")
        continue
    print(f"{name:20} {r[name][0]:8.2f} {r[name][1]:8.2f}")
for ours in ["cephprov-inventory", "cephprov"]:
    if ours not in r:
        continue
    c = r[ours]
    for name in ["openssh-default", "openssh-curve25519", "ansible"]:
        if name in r:
            print(f"ratio {ours}/{name:18} wall {c[0] / r[name][0]:5.2f}  CPU {c[1] / max(r[name][1], 1e-6):5.2f}")
if "cephprov-inventory" in r:
    print(f"cephprov inventory peak RSS: {r['cephprov-inventory'][2] / 1024:.1f} MiB")
c = r.get("cephprov-inventory", r["cephprov"])
print(f"transport fan-out peak RSS: {int(rss) / 1024:.1f} MiB" if rss else "transport fan-out peak RSS: ?")
wall_ok = c[0] <= 0.8 * r["openssh-curve25519"][0]
cpu_ok = c[1] <= 1.0 * int(n) / 50
print(f"target wall <= 0.8 x openssh-curve25519: {'met' if wall_ok else 'NOT met'}")
print(f"target CPU <= 1 s per 50 hosts: {'met' if cpu_ok else 'NOT met'}")
EOF
