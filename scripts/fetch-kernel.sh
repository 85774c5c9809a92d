#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-kernel.sh [--suite bookworm] [--arch amd64] [--flavour amd64]
#                 [--print-env]
#
# Resolves the suite's current kernel from its meta package
# (linux-image-<flavour>), downloads image, headers, -common headers and
# linux-kbuild from this machine's Debian mirror through a private apt
# configuration, and unpacks them into
#   $SA_CACHE/kernels/<suite>-<arch>-<flavour>/root
# Writes kernel.env there (KVER PKGVER KDIR VMLINUZ KCC SUITE ARCH BUSYBOX
# CROSS_COMPILE KARCH).
# Nothing is installed.  With --print-env, only prints kernel.env's path.
# SA_OFFLINE=1 uses what is cached without asking the mirror.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

suite=bookworm arch=amd64 flavour=amd64 print=0
while [ $# -gt 0 ]; do
	case "$1" in
	--suite) suite=$2; shift ;;
	--arch) arch=$2; shift ;;
	--flavour) flavour=$2; shift ;;
	--print-env) print=1 ;;
	*) die "fetch-kernel.sh: unknown argument $1" ;;
	esac
	shift
done

dir="$SA_CACHE/kernels/$suite-$arch-$flavour"
envf="$dir/kernel.env"
if [ $print = 1 ]; then
	[ -f "$envf" ] || die "no $envf: run fetch-kernel.sh first"
	echo "$envf"
	exit 0
fi

if [ -f "$envf" ] && [ "${SA_OFFLINE:-0}" = 1 ]; then
	log "kernel $suite/$arch/$flavour: using the cache (SA_OFFLINE=1)"
	exit 0
fi

read -r -a opts <<< "$(sa_apt_opts "$suite" "$arch")"
log "resolving the current $suite kernel ($arch, $flavour)"
apt-get -qq "${opts[@]}" update >/dev/null 2>&1 ||
	apt-get "${opts[@]}" update >&2 || die "apt-get update failed for $suite"
img=$(apt-cache "${opts[@]}" depends "linux-image-$flavour" |
	awk '/Depends: linux-image-/ { print $2; exit }')
[ -n "$img" ] || die "cannot resolve linux-image-$flavour in $suite"
kver=${img#linux-image-}
abi=${kver%-"$flavour"}
pkgver=$(apt-cache "${opts[@]}" policy "$img" |
	awk '/Candidate:/ { print $2; exit }')
if [ -f "$envf" ] && grep -qx "PKGVER=$pkgver" "$envf" &&
   grep -q '^BUSYBOX=' "$envf"; then
	log "kernel $kver ($pkgver): cached"
	exit 0
fi

common=$(apt-cache "${opts[@]}" depends "linux-headers-$kver" |
	awk '/Depends: linux-headers-.*-common/ { print $2; exit }')
kbuild=$(apt-cache "${opts[@]}" depends "linux-headers-$kver" |
	awk '/Depends: linux-kbuild-/ { print $2; exit }')
[ -n "$common" ] && [ -n "$kbuild" ] ||
	die "cannot resolve the headers of $kver"

# Newer suites split the kernel binary out of linux-image-<kver>.
binary=$(apt-cache "${opts[@]}" depends "$img" |
	awk '/Depends: linux-binary-/ { print $2; exit }')

rm -rf "$dir" && mkdir -p "$dir/debs" "$dir/root"
for pkg in "$img" $binary "linux-headers-$kver" "$common" "$kbuild"; do
	size=$(apt-cache "${opts[@]}" show "$pkg" |
		awk '/^Size:/ { printf "%.1f", $2 / 1048576; exit }')
	log "downloading $pkg ($size MB)"
	(cd "$dir/debs" && apt-get -qq "${opts[@]}" download "$pkg" 2>&1 |
		grep -v 'unsandboxed' >&2 || true)
done
# Headers of another architecture (a board's) run this machine's kbuild
# tools: take linux-kbuild of the same version for this machine.
host_arch=$(dpkg --print-architecture)
if [ "$arch" != "$host_arch" ]; then
	rm -f "$dir"/debs/linux-kbuild-*.deb
	read -r -a hopts <<< "$(sa_apt_opts "$suite" "$host_arch")"
	apt-get -qq "${hopts[@]}" update >/dev/null 2>&1 || true
	log "downloading $kbuild for $host_arch (kbuild runs on this machine)"
	(cd "$dir/debs" && apt-get -qq "${hopts[@]}" download "$kbuild" 2>&1 |
		grep -v 'unsandboxed' >&2 || true)
fi
for deb in "$dir"/debs/*.deb; do
	[ -f "$deb" ] || die "download failed"
	dpkg-deb -x "$deb" "$dir/root"
done
rm -rf "$dir/debs"

kdir="$dir/root/usr/src/linux-headers-$kver"
# The flavour's Makefile includes the -common tree by absolute path.
sed -i "s|/usr/src/linux-headers-|$dir/root/usr/src/linux-headers-|g" \
	"$kdir/Makefile"
[ -e "$kdir/scripts/basic" ] || [ -e "$kdir/scripts" ] ||
	die "headers' scripts link does not resolve in $kdir"
vmlinuz=$( { find "$dir/root/boot" "$dir/root/usr/lib" \( -name 'vmlinuz*' -o \
	-name "vmlinux-$kver" -o -name 'Image*' \) -type f 2>/dev/null || true; } |
	head -n 1)
[ -n "$vmlinuz" ] || die "no kernel image in the $img packages"

# The compiler the headers name (e.g. gcc-12), if this machine has it;
# for another architecture its cross compiler.
cross="" karch=""
case "$arch" in
"$(dpkg --print-architecture)") ;;
arm64) cross=aarch64-linux-gnu- karch=arm64 ;;
*) die "no cross compiler known for $arch" ;;
esac
kcc=$(grep -o 'gcc-[0-9][0-9]*' "$kdir/.kernelvariables" 2>/dev/null |
	head -n 1 || true)
kcc=$cross${kcc:-gcc}
command -v "$kcc" >/dev/null 2>&1 || kcc=${cross}gcc

# A static busybox for the guest's architecture.
if [ "$arch" != "$host_arch" ]; then
	mkdir -p "$dir/busybox"
	(cd "$dir/busybox" && apt-get -qq "${opts[@]}" download busybox-static 2>&1 |
		grep -v 'unsandboxed' >&2 || true)
	dpkg-deb -x "$dir"/busybox/busybox-static_*.deb "$dir/busybox/root"
	busybox="$dir/busybox/root/bin/busybox"
else
	busybox=/bin/busybox
fi

cat > "$envf" <<ENV
KVER=$kver
PKGVER=$pkgver
KDIR=$kdir
VMLINUZ=$vmlinuz
KCC=$kcc
SUITE=$suite
ARCH=$arch
BUSYBOX=$busybox
CROSS_COMPILE=$cross
KARCH=$karch
ENV
log "kernel $kver ($pkgver) unpacked in $dir"
