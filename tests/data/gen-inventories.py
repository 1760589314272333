#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Generates the saved inventories of the shipped layouts (tests/data/inventory-<name>.json)
and, from the golden plans (tests/data/plan-<name>.json), the converged inventories
(inventory-<name>-converged.json): what the hosts look like after `apply` carried out that plan.

The "apply" here is a simulation for fixtures only (named so: simulate_apply). It is not
the executor; it writes what the agent would report afterwards: partitions with PARTUUIDs,
bcache superblocks, attachment and tuning, OSDs.

    tests/data/gen-inventories.py before      # write inventory-<name>.json
    tests/data/gen-inventories.py converged   # write inventory-<name>-converged.json from the golden plans
                                              # (and inventory-scenario-3-filestore-sdd-replaced.json: fs1's
                                              # /dev/sdd a new blank disk, for `cephprov replace`)

tests/update-golden.sh runs both around the golden update.
"""

import copy
import hashlib
import json
import os
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
NS = uuid.UUID("6f1c3d2e-5b4a-4c8d-9e7f-0a1b2c3d4e5f")

KiB = 1024
MiB = KiB * 1024
GiB = MiB * 1024

GUID_BIOS_BOOT = "21686148-6449-6e6f-744e-656564454649"
GUID_LINUX_RAID = "a19d880f-05fc-4d3b-a006-743f0f84911e"
GUID_LINUX_DATA = "0fc63daf-8483-4772-8e79-3d69d8477de4"
GUID_EFI = "c12a7328-f81f-11d2-ba4b-00a0c93ec93b"
GUID_CEPH_JOURNAL = "45b0969e-9b03-4f30-b4c6-b4b80ceff106"
GUID_CEPH_OSD = "4fbd7e29-9d25-41b8-afd0-062c0ceff05d"

CLUSTER_FSID = "5d1e4f0a-8b2c-4e6d-9f3a-7c1b2d3e4f50"


def uid(*parts):
    return str(uuid.uuid5(NS, "/".join(str(p) for p in parts)))


def content(**kw):
    return {k: v for k, v in kw.items() if v is not None}


def gpt_bounds(size, lss):
    # first/last usable byte of a GPT with 128 entries
    entries = 16 * KiB
    first = (2 * lss + entries + lss - 1) // lss * lss
    last = size - (entries + lss) - 1
    return first, last


def device(host, name, size, model, serial, *, rotational, lss=512, pss=4096, vendor="ATA",
           wwn=None, bus="ata", port="", allowed=True, pttype=None, partitions=None, cont=None):
    path = "/dev/" + name
    links = []
    if bus == "ata":
        links.append("/dev/disk/by-id/ata-%s_%s" % (model.replace(" ", "_"), serial))
    elif bus == "nvme":
        links.append("/dev/disk/by-id/nvme-%s_%s" % (model.replace(" ", "_"), serial))
    if wwn:
        links.append("/dev/disk/by-id/wwn-" + wwn)
    if port:
        links.append("/dev/disk/by-path/" + port)
    d = {
        "name": name,
        "path": path,
        "links": sorted(links),
        "size": size,
        "logical_sector_size": lss,
        "physical_sector_size": pss,
        "rotational": rotational,
        "readonly": False,
        "removable": False,
        "model": model,
        "serial": serial,
        "vendor": vendor if bus == "ata" else None,
        "wwn": wwn,
    }
    d = {k: v for k, v in d.items() if v is not None}
    if pttype:
        d["pttype"] = pttype
        d["ptuuid"] = uid(host, name, "ptuuid")
        d["first_usable"], d["last_usable"] = gpt_bounds(size, lss)
    else:
        d["first_usable"] = 0
        d["last_usable"] = 0
    d["content"] = cont or {}
    d["partitions"] = partitions or []
    d["allowed"] = allowed
    return d


def part(host, dev, number, start, size, name, guid, cont=None):
    sep = "p" if dev[-1].isdigit() else ""
    return {
        "number": number,
        "start": start,
        "size": size,
        "node": "/dev/%s%s%d" % (dev, sep, number),
        "partuuid": uid(host, dev, number, "partuuid"),
        "name": name,
        "type_guid": guid,
        "content": cont or {},
    }


def inventory(host, devices):
    return {
        "host": host,
        "hostname": host + ".ceph.example.net",
        "agent_version": "0.1.0",
        "bcache_available": True,
        "udev_available": True,
        "devices": devices,
    }


def wrap(invs):
    return {"format": 1, "inventories": invs}


# ---- scenario 1: hyper-converged 1U, 2 × 480 GB SSD + 4 × 2 TB 4Kn HDD ----

def scenario1():
    invs = []
    ssd_size = 480103981056  # INTEL SSDSC2KB480G8: 937703088 × 512 B
    hdd_size = 2000398934016  # 488378646 × 4096 B (4Kn)
    for h in range(1, 4):
        host = "node%d" % h
        devs = []
        for i, name in enumerate(["sda", "sdb"]):
            serial = "PHYF8%03d%02d480BGN" % (h * 7 + 100, i)
            parts = [
                part(host, name, 1, 1 * MiB, 1 * MiB, "BIOS boot", GUID_BIOS_BOOT),
                part(host, name, 2, 2 * MiB, 8 * GiB, "os", GUID_LINUX_RAID,
                     content(fstype="linux_raid_member", uuid=uid(host, "md0"), label="%s:0" % host,
                             holders=["md0"])),
                part(host, name, 3, 2 * MiB + 8 * GiB, 256 * GiB, "swap", GUID_LINUX_RAID,
                     content(fstype="linux_raid_member", uuid=uid(host, "md1"), label="%s:1" % host,
                             holders=["md1"])),
            ]
            devs.append(device(host, name, ssd_size, "INTEL SSDSC2KB480G8", serial, rotational=False,
                               lss=512, pss=4096, wwn="0x55cd2e41%08x" % (h * 16 + i),
                               port="pci-0000:00:1f.2-ata-%d" % (i + 1), pttype="gpt", partitions=parts))
        for i, name in enumerate(["sdc", "sdd", "sde", "sdf"]):
            serial = "ZFL%02d%03dK" % (h, 410 + i)
            devs.append(device(host, name, hdd_size, "ST2000NM0135", serial, rotational=True,
                               lss=4096, pss=4096, wwn="0x5000c500%08x" % (h * 16 + i),
                               port="pci-0000:00:1f.2-ata-%d" % (i + 3)))
        invs.append(inventory(host, devs))
    return wrap(invs)


# ---- scenario 2: 5 bulk nodes, 8 × 6 TB HDD + one 7.68 TB NVMe ----

def scenario2():
    invs = []
    hdd_size = 6001175126016   # ST6000NM0115: 11721045168 × 512 B (512e)
    nvme_size = 7681501126656  # MZQLB7T6HMLA: 15002931888 × 512 B
    os_size = 240057409536
    for h in range(1, 6):
        host = "bulk%d" % h
        devs = []
        # the OS disk: mounted, not in the allow-list
        devs.append(device(host, "sda", os_size, "SAMSUNG MZ7LH240HAHQ-00005", "S45RNE0M%03d101" % h,
                           rotational=False, wwn="0x5002538e%08x" % h, port="pci-0000:00:17.0-ata-1",
                           allowed=False, pttype="gpt", partitions=[
                               part(host, "sda", 1, 1 * MiB, 512 * MiB, "EFI System Partition", GUID_EFI,
                                    content(fstype="vfat", uuid="%04X-%04X" % (h, 42), mountpoint="/boot/efi")),
                               part(host, "sda", 2, 513 * MiB, os_size - 514 * MiB - 20 * KiB, "root",
                                    GUID_LINUX_DATA,
                                    content(fstype="ext4", uuid=uid(host, "root"), mountpoint="/")),
                           ]))
        for i in range(8):
            name = "sd" + chr(ord("b") + i)
            devs.append(device(host, name, hdd_size, "ST6000NM0115-1YZ110", "ZAD%02d%03dQ" % (h, 200 + i),
                               rotational=True, lss=512, pss=4096, wwn="0x5000c500a%07x" % (h * 16 + i),
                               port="pci-0000:3b:00.0-sas-phy%d-lun-0" % i))
        devs.append(device(host, "nvme0n1", nvme_size, "SAMSUNG MZQLB7T6HMLA-00007", "S4BGNA0M%03d0%02d" % (h, 17),
                           rotational=False, lss=512, pss=512, wwn="eui.3634473052b00%03d0025384500000001" % h,
                           bus="nvme", port="pci-0000:5e:00.0-nvme-1"))
        invs.append(inventory(host, devs))
    return wrap(invs)


# ---- scenario 3: FileStore hosts, 2 × 400 GB SSD with 3 × 60 GB journals + 6 × 4 TB HDD ----

def scenario3():
    invs = []
    ssd_size = 400088457216   # INTEL SSDSC2BX400G4
    hdd_size = 4000787030016  # ST4000NM0035, 512n
    osd = 0
    for h in range(1, 4):
        host = "fs%d" % h
        devs = []
        hdds = ["sdc", "sdd", "sde", "sdf", "sdg", "sdh"]
        journals = {}
        for i, name in enumerate(["sda", "sdb"]):
            parts = []
            for j in range(3):
                n = osd + i * 3 + j
                journals[(i, j)] = n
                parts.append(part(host, name, j + 1, 1 * MiB + j * 60 * GiB, 60 * GiB, "ceph journal",
                                  GUID_CEPH_JOURNAL,
                                  content(osd={"id": n, "osd_fsid": uid(host, "osd", n), "cluster_fsid": CLUSTER_FSID,
                                               "role": "journal", "objectstore": "filestore"})))
            devs.append(device(host, name, ssd_size, "INTEL SSDSC2BX400G4", "BTHC6%02d%d01F400NGN" % (h, i),
                               rotational=False, lss=512, pss=4096, wwn="0x55cd2e40%08x" % (h * 16 + i),
                               port="pci-0000:00:1f.2-ata-%d" % (i + 1), pttype="gpt", partitions=parts))
        for k, name in enumerate(hdds):
            n = osd + k
            size = hdd_size - 2 * MiB
            devs.append(device(host, name, hdd_size, "ST4000NM0035-1V4107", "ZC1%02d%03dJ" % (h, 300 + k),
                               rotational=True, lss=512, pss=512, wwn="0x5000c500b%07x" % (h * 16 + k),
                               port="pci-0000:03:00.0-sas-phy%d-lun-0" % k, pttype="gpt", partitions=[
                                   part(host, name, 1, 1 * MiB, size, "ceph data", GUID_CEPH_OSD,
                                        content(fstype="xfs", uuid=uid(host, "osd", n),
                                                mountpoint="/var/lib/ceph/osd/ceph-%d" % n,
                                                osd={"id": n, "osd_fsid": uid(host, "osd", n),
                                                     "cluster_fsid": CLUSTER_FSID, "role": "data",
                                                     "objectstore": "filestore"})),
                               ]))
        # FileStore OSDs on these hosts: 6 per host
        osd += 6
        invs.append(inventory(host, devs))
    return wrap(invs)


# ---- all-flash: 4 × 3.84 TB NVMe, no fast devices ----

def allflash():
    invs = []
    nvme_size = 3840755982336
    for h in range(1, 5):
        host = "flash%d" % h
        devs = [device(host, "sda", 240057409536, "SAMSUNG MZ7LH240HAHQ-00005", "S45RNE0M%03d201" % h,
                       rotational=False, wwn="0x5002538e1%07x" % h, port="pci-0000:00:17.0-ata-1",
                       allowed=False, pttype="gpt", partitions=[
                           part(host, "sda", 1, 1 * MiB, 240057409536 - 2 * MiB - 20 * KiB, "root", GUID_LINUX_DATA,
                                content(fstype="ext4", uuid=uid(host, "root"), mountpoint="/"))])]
        for i in range(4):
            name = "nvme%dn1" % i
            devs.append(device(host, name, nvme_size, "SAMSUNG MZQL23T8HCLS-00A07", "S64HNE0T%02d%04d" % (h, 500 + i),
                               rotational=False, lss=4096, pss=4096,
                               wwn="eui.36344730%04d%02d2500253845000000%02d" % (h, i, i), bus="nvme",
                               port="pci-0000:%02x:00.0-nvme-1" % (0x81 + i)))
        invs.append(inventory(host, devs))
    return wrap(invs)


SCENARIOS = {
    "scenario-1-hyperconverged": scenario1,
    "scenario-2-bulk-nvme": scenario2,
    "scenario-3-filestore": scenario3,
    "all-flash": allflash,
}


def write(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")


# ---- simulate_apply: the hosts after the plan, for the converged fixtures ----

def find_dev(inv, path):
    for d in inv["devices"]:
        if d["path"] == path:
            return d
    raise KeyError(path)


def find_part(dev, partname):
    for p in dev["partitions"]:
        if p.get("name") == partname:
            return p
    raise KeyError(partname)


def simulate_apply(inv, host_plan, first_osd_id):
    host = inv["host"]
    next_osd = first_osd_id
    n_bcache = sum(1 for d in inv["devices"] if d["name"].startswith("bcache"))
    for st in host_plan["steps"]:
        kind = st["kind"]
        dev = find_dev(inv, st["device"])
        if kind == "wipe":
            dev["content"] = {}
            dev["partitions"] = []
            dev.pop("pttype", None)
            dev.pop("ptuuid", None)
            dev["first_usable"] = dev["last_usable"] = 0
        elif kind == "create-gpt":
            dev["pttype"] = "gpt"
            dev["ptuuid"] = uid(host, dev["name"], "ptuuid-new")
            dev["first_usable"], dev["last_usable"] = gpt_bounds(dev["size"], dev["logical_sector_size"])
        elif kind == "create-partition":
            p = part(host, dev["name"], st["partnum"], st["offset"], st["size"], st["partname"], st["type_guid"])
            p["partuuid"] = uid(host, dev["name"], st["partname"], "partuuid")
            dev["partitions"].append(p)
            dev["partitions"].sort(key=lambda x: x["number"])
        elif kind == "make-bcache-cache":
            p = find_part(dev, st["partname"])
            set_uuid = uid(host, st["partname"], "cset")
            p["content"] = {"fstype": "bcache", "uuid": set_uuid,
                            "bcache": {"role": "cache", "set_uuid": set_uuid,
                                       "dev_uuid": uid(host, st["partname"], "cdev"),
                                       "dirty_bytes": 0, "sequential_cutoff": 0}}
        elif kind == "make-bcache-backing":
            bdev = "/dev/bcache%d" % n_bcache
            n_bcache += 1
            dev_uuid = uid(host, dev["name"], "bdev")
            dev["content"] = {"fstype": "bcache", "uuid": dev_uuid, "holders": [bdev[5:]],
                              "bcache": {"role": "backing", "dev_uuid": dev_uuid, "bcache_device": bdev,
                                         "cache_mode": "writethrough", "state": "no cache",
                                         "dirty_bytes": 0, "sequential_cutoff": 4 * MiB,
                                         "writeback_percent": 10}}
            inv["devices"].append({
                "name": bdev[5:], "path": bdev, "links": ["/dev/bcache/by-uuid/" + dev_uuid],
                "size": dev["size"] - 8 * KiB, "logical_sector_size": dev["logical_sector_size"],
                "physical_sector_size": dev["physical_sector_size"], "rotational": False,
                "readonly": False, "removable": False, "first_usable": 0, "last_usable": 0,
                "content": {}, "partitions": [], "allowed": False})
        elif kind == "bcache-attach":
            cache = find_part(find_dev(inv, host_plan_fast_of(host_plan, st)), st["partname"])
            b = dev["content"]["bcache"]
            b["set_uuid"] = cache["content"]["bcache"]["set_uuid"]
            b["state"] = "clean"
            cache["content"]["holders"] = [b["bcache_device"][5:]]
        elif kind == "bcache-tune":
            b = dev["content"]["bcache"]
            b["cache_mode"] = st["cache_mode"]
            b["sequential_cutoff"] = st["sequential_cutoff"]
            b["writeback_percent"] = st["writeback_percent"]
            b["hit_ratio"] = 0.0
        elif kind == "create-osd":
            osd_id = next_osd
            next_osd += 1
            osd_fsid = uid(host, "osd", osd_id)
            target = dev
            if st["data_is_bcache"]:
                target = find_dev(inv, dev["content"]["bcache"]["bcache_device"])
            target["content"] = dict(target.get("content", {}))
            target["content"].update({"fstype": "ceph_bluestore", "uuid": osd_fsid,
                                      "osd": {"id": osd_id, "osd_fsid": osd_fsid, "cluster_fsid": CLUSTER_FSID,
                                              "role": "block", "objectstore": st["objectstore"]}})
            for role in ("db", "wal", "journal"):
                if role + "_device" in st:
                    p = find_part(find_dev(inv, st[role + "_device"]), st[role + "_partname"])
                    p["content"] = {"osd": {"id": osd_id, "osd_fsid": osd_fsid, "cluster_fsid": CLUSTER_FSID,
                                            "role": {"db": "block.db", "wal": "block.wal"}.get(role, role),
                                            "objectstore": st["objectstore"]}}
        else:
            raise ValueError(kind)
    return next_osd


def host_plan_fast_of(host_plan, attach_step):
    # the cache partition's device: the make-bcache-cache or create-partition step with that name
    for st in host_plan["steps"]:
        if st.get("partname") == attach_step["partname"] and st["kind"] in ("create-partition", "make-bcache-cache"):
            return st["device"]
    for fd in host_plan["fast_devices"]:
        if attach_step["device"] in fd["data_devices"]:
            return fd["fast_device"]
    raise KeyError(attach_step["partname"])


def converged(name):
    with open(os.path.join(HERE, "inventory-%s.json" % name)) as f:
        s = json.load(f)
    with open(os.path.join(HERE, "plan-%s.json" % name)) as f:
        plan = json.load(f)
    s = copy.deepcopy(s)
    # OSD ids continue after the highest one the hosts already carry
    next_osd = 1 + max([-1] + [p["content"].get("osd", {}).get("id", -1)
                              for inv in s["inventories"] for d in inv["devices"]
                              for p in d["partitions"] + [d]])
    for hp in plan["hosts"]:
        inv = next(i for i in s["inventories"] if i["host"] == hp["host"])
        next_osd = simulate_apply(inv, hp, next_osd)
        if name == "scenario-3-filestore":
            convert_filestore(inv)
    return s


def device_tag(d):
    """plan_device_tag() (src/plan/plan-names.c): "@" and 8 hex digits of SHA-256 over the
    device's stable identity (WWN, else model and serial, else a loop device's backing file,
    else its path)."""
    if d.get("wwn"):
        ident = "wwn " + d["wwn"]
    elif d.get("serial"):
        ident = "serial " + (d["model"] + " " if d.get("model") else "") + d["serial"]
    elif d.get("backing_file"):
        ident = "file " + d["backing_file"]
    else:
        ident = "path " + d["path"]
    return "@" + hashlib.sha256(ident.encode()).hexdigest()[:8]


def convert_filestore(inv):
    """What a conversion does on a scenario-3 host (as `cephprov convert` does it, in place):
    each FileStore OSD replaced (id kept), its HDD zapped, and recreated as BlueStore with its DB on the partition the
    plan made for its slot (slots: the data devices in path order)."""
    host = inv["host"]
    hdds = sorted((d for d in inv["devices"] if d["rotational"]), key=lambda d: d["path"])
    for slot, d in enumerate(hdds):
        old = next(p["content"]["osd"] for p in d["partitions"] if "osd" in p["content"])
        osd_id, osd_fsid = old["id"], uid(host, "bluestore-osd", old["id"])
        d["partitions"] = []
        d.pop("pttype", None)
        d.pop("ptuuid", None)
        d["first_usable"] = d["last_usable"] = 0
        d["content"] = {"fstype": "ceph_bluestore", "uuid": osd_fsid,
                        "osd": {"id": osd_id, "osd_fsid": osd_fsid, "cluster_fsid": CLUSTER_FSID,
                                "role": "block", "objectstore": "bluestore"}}
        partname = ("cp:db:%s:%s" % (device_tag(d), host))[:36]
        for fast in inv["devices"]:
            for p in fast["partitions"]:
                if p.get("name") == partname:
                    p["content"] = {"osd": {"id": osd_id, "osd_fsid": osd_fsid, "cluster_fsid": CLUSTER_FSID,
                                            "role": "block.db", "objectstore": "bluestore"}}
                if p.get("name") == "ceph journal":
                    p["content"] = {}  # the FileStore journals are unused now


def replaced_hdd(name, host, dev):
    """The converged hosts after a failed HDD was swapped: `dev` of `host` is a new, blank disk of
    the same model and size (another serial), the rest as converged (`cephprov replace`'s "before")."""
    with open(os.path.join(HERE, "inventory-%s-converged.json" % name)) as f:
        s = json.load(f)
    inv = next(i for i in s["inventories"] if i["host"] == host)
    d = next(d for d in inv["devices"] if d["path"] == dev)
    d["content"] = {}
    d["partitions"] = []
    old, d["serial"] = d["serial"], d["serial"][:-1] + "R"
    d["links"] = [l.replace("_" + old, "_" + d["serial"]) for l in d["links"] if "wwn-" not in l]
    d.pop("wwn", None)
    return s


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "before"
    for name, fn in SCENARIOS.items():
        if what == "before":
            write(os.path.join(HERE, "inventory-%s.json" % name), fn())
        elif what == "converged":
            write(os.path.join(HERE, "inventory-%s-converged.json" % name), converged(name))
        else:
            sys.exit("usage: gen-inventories.py before|converged")
    if what == "converged":
        write(os.path.join(HERE, "inventory-scenario-3-filestore-sdd-replaced.json"),
              replaced_hdd("scenario-3-filestore", "fs1", "/dev/sdd"))


if __name__ == "__main__":
    main()
