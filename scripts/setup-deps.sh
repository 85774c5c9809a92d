#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# setup-deps.sh [PACKAGE...]
# Installs the Debian host packages the build, tests and demo need (only
# those missing), or only the PACKAGEs given (make board: what a board's
# build needs).  Kernels are never installed: see fetch-kernel.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(build-essential bc bison flex libelf-dev kmod cpio xz-utils zstd debootstrap
      busybox-static qemu-system-x86 qemu-system-arm qemu-system-misc
      qemu-system-data gcc-aarch64-linux-gnu libc6-dev-arm64-cross
      gcc-arm-linux-gnueabihf libc6-dev-armhf-cross gcc-riscv64-linux-gnu
      libc6-dev-riscv64-cross dwarves sparse perl python3 file
      ca-certificates clang libclang-rt-14-dev dkms openssl
      prometheus prometheus-node-exporter chromium trace-cmd libxml2-utils tmux
      libbpf-dev bpftool zlib1g-dev libzstd-dev)
[ $# -eq 0 ] || pkgs=("$@")
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ "$(id -u)" = 0 ] || die "missing packages (${missing[*]}); run as root"
log "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Another apt-get (a second make beside this one) holds dpkg's lock for
# a while: wait for it rather than fail.
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
