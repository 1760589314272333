#!/bin/bash
# Installs what cephprov needs to build and to run its whole test suite (Debian 12).
# Idempotent; safe to run again.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
apt_get() { apt-get -q -y -o DPkg::Lock::Timeout=900 "$@"; }

# Build (librados-dev: the header of Ceph's client library, which the agent dlopen()s for
# its client-latency probe, rados-probe; the library itself comes with ceph-common)
build_pkgs=(gcc clang meson ninja-build pkg-config
            libyaml-dev libjson-c-dev libssh2-1-dev libblkid-dev libudev-dev libparted-dev
            librados-dev)
# cli tier: the doc-example test parses YAML fragments (python3-yaml), renders the man
# pages (groff-base: groff -man; man-db: man -l), calls the bash completion and runs the
# zsh one under zsh's completion system (zsh, with its zpty module); every --json document is
# checked against its schema in docs/schema/ (python3-jsonschema; also by the lab's apply-osds)
cli_pkgs=(python3 python3-yaml python3-jsonschema groff-base man-db bash zsh)
# Block and lab tiers: real devices, fake hosts over SSH, a real Ceph cluster
# udev: ceph-volume needs udevadm (udevd itself is not started: policy-rc.d, and LAB.md)
lab_pkgs=(util-linux fdisk gdisk parted xfsprogs uuid-runtime iproute2 procps psmisc kmod
          openssh-server openssh-client bcache-tools valgrind udev
          ceph-mon ceph-mgr ceph-osd ceph-common python3-rados) # python3-rados: the benchmark's open-loop client
# vm tier (contrib/vm/vm): qemu (TCG) boots Debian's kernel for bcache; cpio packs the
# initramfs; the test speaks the protocol with jq; qemu-img makes the lab guest's root
# overlays (contrib/vm/host), mmdebstrap (below) its root, e2fsprogs its ext4 image
vm_pkgs=(qemu-system-x86 qemu-utils e2fsprogs cpio jq)
# uml tier (contrib/uml/host): the guests' lvm2 and mdadm (their root is this machine's /;
# bcache-tools and udev are above); patchelf points the kernel contrib/uml/kernel fetches
# from a later suite at that suite's glibc; Debian 12's own User-mode Linux kernel (6.1) and
# modules for UML_KERNEL=/usr/bin/linux.uml
uml_pkgs=(user-mode-linux patchelf lvm2 mdadm)
# lab on Reef and Tentacle: roots of later Debian suites (contrib/lab/ceph-root)
release_pkgs=(mmdebstrap)

missing=()
for p in "${build_pkgs[@]}" "${cli_pkgs[@]}" "${lab_pkgs[@]}" "${vm_pkgs[@]}" "${uml_pkgs[@]}" "${release_pkgs[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
        echo "cephprov: installing ${missing[*]}" >&2
        apt_get update
        apt_get install --no-install-recommends "${missing[@]}"
fi
