#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes synthetic-osd-df-tree-4hosts-together.json, the `ceph osd df tree -f json` of a
cluster where draining node3 or node4 alone fits and draining both together does not, for
the drain check of several hosts (issue 26): derived from synthetic-osd-df-tree-4hosts.json
(same hosts, OSDs, weights and format), with 40 GiB of data on every OSD but osd.5 (node2),
which holds 55 GiB; 1 GiB of BlueFS metadata each, as there.

Projected by CRUSH weight (all equal): node4 alone sends 120 GiB to 9 OSDs (+13.3 GiB each,
osd.5 at 69.3 %); node3 and node4 together send 240 GiB to 6 OSDs (+40 GiB each, osd.5 at
96 %, past the backfillfull ratio 90 % of the captured osd-dump.json; the others at 81 %).

Run from this directory: ./gen-synthetic-drain.py"""
import json

GiB_KB = 1024 * 1024

with open("synthetic-osd-df-tree-4hosts.json") as f:
    d = json.load(f)
nodes = {n["id"]: n for n in d["nodes"]}


def data_gib(osd_id):
    return 55 if osd_id == 5 else 40


def set_usage(n, kb, data, meta):
    n["kb"] = kb
    n["kb_used_data"] = data
    n["kb_used_meta"] = meta
    n["kb_used_omap"] = 0
    n["kb_used"] = data + meta
    n["kb_avail"] = kb - n["kb_used"]
    n["utilization"] = round(100.0 * n["kb_used"] / kb, 6) if kb else 0


for n in d["nodes"]:
    if n["id"] >= 0:
        set_usage(n, n["kb"], data_gib(n["id"]) * GiB_KB, GiB_KB)


def total(n):
    if n["id"] >= 0:
        return n["kb"], n["kb_used_data"], n["kb_used_meta"]
    kb = data = meta = 0
    for c in n["children"]:
        a, b, m = total(nodes[c])
        kb, data, meta = kb + a, data + b, meta + m
    set_usage(n, kb, data, meta)
    return kb, data, meta


for n in d["nodes"]:
    if n["type"] == "root":
        kb, data, meta = total(n)
avg = 100.0 * (data + meta) / kb
for n in d["nodes"]:
    n["var"] = round(n["utilization"] / avg, 6) if n["kb"] else 0
osd_vars = [n["var"] for n in d["nodes"] if n["id"] >= 0]
s = d["summary"]
s.update(total_kb=kb, total_kb_used=data + meta, total_kb_used_data=data, total_kb_used_omap=0,
         total_kb_used_meta=meta, total_kb_avail=kb - data - meta, average_utilization=round(avg, 6),
         min_var=min(osd_vars), max_var=max(osd_vars))
osd_utils = [n["utilization"] for n in d["nodes"] if n["id"] >= 0]
s["dev"] = round((sum((u - avg) ** 2 for u in osd_utils) / len(osd_utils)) ** 0.5, 6)

with open("synthetic-osd-df-tree-4hosts-together.json", "w") as f:
    f.write("\n")  # the CLI prints a newline before the document, as in the captures
    json.dump(d, f, separators=(",", ":"))
    f.write("\n")
