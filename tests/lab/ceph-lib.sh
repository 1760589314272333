# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the lab tests on a real cluster; the test defines ceph_ (the lab's `ceph` CLI).
py() { python3 -c "$@"; }

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
