#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the synthetic `ceph osd tree -f json` and `ceph osd metadata -f json` of the
scenario 3 cluster (layouts/scenario-3-filestore.yaml: hosts fs1..fs3, 6 OSDs each) for the
convert planner's tests, from the saved inventories of that scenario:

  synthetic-osd-tree-scenario-3.json                 the CRUSH tree (the same before and after)
  synthetic-osd-metadata-scenario-3-filestore.json   FileStore OSDs, journals on SSD partitions
  synthetic-osd-metadata-scenario-3-converged.json   BlueStore OSDs, DB on the cp:db partitions

NOT CAPTURED: built from Ceph Pacific's source (16.2.x), for the keys and their form:
  - OSD::_collect_metadata (src/osd/OSD.cc): osd_data, osd_journal (FileStore only: the
    configured path, a symlink in the data directory), front/back/hb addresses,
    osd_objectstore, rotational, journal_rotational, default_device_class,
    osdspec_affinity, then the store's keys, collect_sys_info (arch, cpu, distro*, kernel*,
    mem*, os, hostname), the interfaces, and get_device_metadata (devices, device_ids,
    device_paths);
  - FileStore::collect_metadata (src/os/filestore/FileStore.cc): filestore_backend,
    filestore_f_type, and with filestore_collect_device_partition_information (default
    true) backend_filestore_partition_path (BlkDev::partition of the data directory's
    fsid file: "/dev/sdc1") and backend_filestore_dev_node (its whole disk), then the
    journal's;
  - FileJournal::collect_metadata (src/os/filestore/FileJournal.cc):
    backend_filestore_journal_partition_path ("/dev/sda1", "unknown" for a journal file)
    and backend_filestore_journal_dev_node;
  - BlueStore::collect_metadata / BlueFS for the converged file: the same keys as the
    captured tests/data/ceph/pacific/osd-metadata-0.out.
The key names were checked against the strings of this machine's ceph-osd 16.2.15 binary;
the exact form of the *_dev_node values (a kernel name or a /dev path) was not, and the
planner does not read them. Replace these files with captures of a FileStore lab (Pacific)
once there is one, keeping their names in the tests.

    tests/data/ceph/gen-synthetic-convert.py     # writes the three files next to itself
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(HERE)
VERSION = "ceph version 16.2.15 (618f440892089921c3e944a991122ddc44e60516) pacific (stable)"
HOSTS = ["fs1", "fs2", "fs3"]
WEIGHT_4TB = 3.638671875  # 4000787030016 bytes in TiB, as CRUSH weights are


def load(name):
    with open(os.path.join(DATA, name)) as f:
        return {inv["host"]: inv for inv in json.load(f)["inventories"]}


def common(osd_id, host, index):
    addr = "10.0.3.%d" % (11 + index)
    port = 6800 + 4 * (osd_id % 6)
    a = lambda p: "[v2:%s:%d/%d,v1:%s:%d/%d]" % (addr, p, 2000 + osd_id, addr, p + 1, 2000 + osd_id)
    return {
        "id": osd_id, "arch": "x86_64", "back_addr": a(port + 2), "back_iface": "",
        "ceph_release": "pacific", "ceph_version": VERSION, "ceph_version_short": "16.2.15",
        "cpu": "Intel(R) Xeon(R) CPU E5-2620 v4 @ 2.10GHz", "default_device_class": "hdd",
        "device_ids": "", "device_paths": "", "distro": "debian",
        "distro_description": "Debian GNU/Linux 12 (bookworm)", "distro_version": "12",
        "front_addr": a(port), "front_iface": "", "hb_back_addr": a(port + 6), "hb_front_addr": a(port + 4),
        "hostname": host, "kernel_description": "#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1",
        "kernel_version": "6.1.0-28-amd64", "mem_swap_kb": "0", "mem_total_kb": "131811524",
        "network_numa_unknown_ifaces": "back_iface,front_iface", "os": "Linux",
        "osd_data": "/var/lib/ceph/osd/ceph-%d" % osd_id, "osdspec_affinity": "", "rotational": "1",
    }


def data_devices(inv):
    """(osd id, data device, its partition) in device order, from the OSD labels."""
    out = []
    for d in inv["devices"]:
        for p in d.get("partitions", []) + [d]:
            o = p.get("content", {}).get("osd")
            if o and o.get("role") in ("data", "block"):
                out.append((o["id"], d, p))
    return sorted(out, key=lambda t: t[0])


def filestore(before):
    tree_hosts, meta = [], []
    for index, host in enumerate(HOSTS):
        inv = before[host]
        journals = {}
        for d in inv["devices"]:
            for p in d.get("partitions", []):
                o = p.get("content", {}).get("osd")
                if o and o.get("role") == "journal":
                    journals[o["id"]] = (d, p)
        ids = []
        for osd_id, d, p in data_devices(inv):
            jd, jp = journals[osd_id]
            m = common(osd_id, host, index)
            m.update({
                "backend_filestore_dev_node": d["name"],
                "backend_filestore_journal_dev_node": jd["name"],
                "backend_filestore_journal_partition_path": jp["node"],
                "backend_filestore_partition_path": p["node"],
                "ceph_version_when_created": "ceph version 12.2.13 (584a20eb0237c657dc0567da126be145106aa47e) luminous (stable)",
                "created_at": "2019-03-0%dT10:1%d:00.000000Z" % (index + 1, osd_id % 6),
                "devices": ",".join(sorted({d["name"], jd["name"]})),
                "filestore_backend": "xfs", "filestore_f_type": "0x58465342",
                "journal_rotational": "0",
                "objectstore_numa_unknown_devices": ",".join(sorted({d["name"], jd["name"]})),
                "osd_journal": "/var/lib/ceph/osd/ceph-%d/journal" % osd_id,
                "osd_objectstore": "filestore",
            })
            meta.append(dict(sorted(m.items())))
            ids.append(osd_id)
        tree_hosts.append((host, ids))
    return tree_hosts, meta


def bluestore(converged):
    meta = []
    for index, host in enumerate(HOSTS):
        inv = converged[host]
        dbs = {}
        for d in inv["devices"]:
            for p in d.get("partitions", []):
                o = p.get("content", {}).get("osd")
                if o and o.get("role") == "block.db":
                    dbs[o["id"]] = (d, p)
        for osd_id, d, p in data_devices(inv):
            dd, dp = dbs[osd_id]
            m = common(osd_id, host, index)
            m.update({
                "bluefs": "1", "bluefs_db_access_mode": "blk", "bluefs_db_block_size": "4096",
                "bluefs_db_dev_node": dp["node"], "bluefs_db_devices": dd["name"],
                "bluefs_db_driver": "KernelDevice", "bluefs_db_partition_path": dp["node"],
                "bluefs_db_rotational": "0", "bluefs_db_size": str(dp["size"]),
                "bluefs_db_support_discard": "1", "bluefs_db_type": "ssd", "bluefs_dedicated_db": "1",
                "bluefs_dedicated_wal": "0", "bluefs_single_shared_device": "0",
                "bluestore_bdev_access_mode": "blk", "bluestore_bdev_block_size": "4096",
                "bluestore_bdev_dev_node": d["path"], "bluestore_bdev_devices": d["name"],
                "bluestore_bdev_driver": "KernelDevice", "bluestore_bdev_partition_path": d["path"],
                "bluestore_bdev_rotational": "1", "bluestore_bdev_size": str(d["size"]),
                "bluestore_bdev_support_discard": "0", "bluestore_bdev_type": "hdd",
                "bluestore_min_alloc_size": "4096",
                "ceph_version_when_created": VERSION,
                "created_at": "2026-11-2%dT10:1%d:00.000000Z" % (index + 1, osd_id % 6),
                "devices": ",".join(sorted({d["name"], dd["name"]})),
                "journal_rotational": "0",
                "objectstore_numa_unknown_devices": ",".join(sorted({d["name"], dd["name"]})),
                "osd_objectstore": "bluestore",
            })
            meta.append(dict(sorted(m.items())))
    return meta


def tree(hosts):
    nodes = [{"id": -1, "name": "default", "type": "root", "type_id": 11,
              "children": [-3 - 2 * i for i in reversed(range(len(hosts)))]}]
    for i, (host, ids) in enumerate(hosts):
        nodes.append({"id": -3 - 2 * i, "name": host, "type": "host", "type_id": 1, "pool_weights": {},
                      "children": list(reversed(ids))})
        for osd_id in ids:
            nodes.append({"id": osd_id, "device_class": "hdd", "name": "osd.%d" % osd_id, "type": "osd",
                          "type_id": 0, "crush_weight": WEIGHT_4TB, "depth": 2, "pool_weights": {},
                          "exists": 1, "status": "up", "reweight": 1, "primary_affinity": 1})
    return {"nodes": nodes, "stray": []}


def write(name, obj):
    # as the CLI prints it: a leading newline, compact JSON
    with open(os.path.join(HERE, name), "w") as f:
        f.write("\n" + json.dumps(obj, separators=(",", ":")) + "\n")


def main():
    hosts, fs = filestore(load("inventory-scenario-3-filestore.json"))
    write("synthetic-osd-tree-scenario-3.json", tree(hosts))
    write("synthetic-osd-metadata-scenario-3-filestore.json", fs)
    write("synthetic-osd-metadata-scenario-3-converged.json",
          bluestore(load("inventory-scenario-3-filestore-converged.json")))


if __name__ == "__main__":
    main()
