#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A steady client workload for the throttle benchmark: the agent on the lab's admin host
runs rados-probe windows back to back (4 KiB write then read, queue depth 1, on objects of
its own in the pool 'data'), and every op's latency is appended to OUT as "write MS" or
"read MS" lines, "error N" for failed ops, until the file STOP exists.

usage: probe-load.py LAB LABDIR AGENT OUT STOP (AGENT: the cephprov binary on the admin host)"""

import json
import os
import subprocess
import sys

lab, labdir, cephprov, out, stop = sys.argv[1:6]
# the agent apply pushed to the admin host (its path is there also in a release root)
agent = subprocess.Popen([lab, "exec", "--dir", labdir, "admin", cephprov, "agent"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)


def call(rid, op, args):
    agent.stdin.write(json.dumps({"id": rid, "op": op, "args": args}) + "\n")
    agent.stdin.flush()
    for line in agent.stdout:
        m = json.loads(line)
        if m.get("id") == rid and "ok" in m:
            return m
    sys.exit("the agent went away")


call(1, "configure", {"host": "admin", "allow": []})
objects = ["bench-client-%d" % i for i in range(16)]
rid = 2
with open(out, "a") as f:
    while not os.path.exists(stop):
        m = call(rid, "rados-probe", {"pool": "data", "objects": objects, "seconds": 5, "op_timeout": 30})
        rid += 1
        if not m["ok"]:
            f.write("error 1 %s\n" % m["error"]["message"])
        else:
            r = m["result"]
            for v in r["write_ms"]:
                f.write("write %.3f\n" % v)
            for v in r["read_ms"]:
                f.write("read %.3f\n" % v)
            if r["errors"]:
                f.write("error %d %s\n" % (r["errors"], r.get("first_error", "")))
        f.flush()
agent.stdin.write(json.dumps({"id": rid, "op": "exit"}) + "\n")
agent.stdin.close()
agent.wait(timeout=60)
