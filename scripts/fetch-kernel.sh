#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-kernel.sh [--suite bookworm] [--arch amd64] [--flavour amd64]
#                 [--print-env]
#
# Resolves the suite's current kernel from its meta package
# (linux-image-<flavour> -> linux-image-<abi>-<flavour>), downloads image,
# headers, -common headers and linux-kbuild from this machine's Debian
# mirror through a private apt configuration ($SA_CACHE/apt/<suite>-<arch>),
# and unpacks them into
#   $SA_CACHE/kernels/<suite>-<arch>-<flavour>/root
# Writes kernel.env there (sourceable): KVER PKGVER KDIR VMLINUZ KCC (the
# compiler the headers name) SUITE ARCH BUSYBOX CROSS_COMPILE KARCH.
# Nothing is installed.
# --print-env only prints kernel.env's path.  The download is skipped when
# kernel.env names the version the suite offers; SA_OFFLINE=1 (or a mirror
# that cannot be reached) uses what is cached without asking.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

suite=bookworm arch=amd64 flavour=amd64 print=0
while [ $# -gt 0 ]; do
	case "$1" in
	--suite) suite=${2:?}; shift ;;
	--arch) arch=${2:?}; shift ;;
	--flavour) flavour=${2:?}; shift ;;
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

# One fetch of a kernel at a time (make check's prefetch and its rows).
mkdir -p "$SA_CACHE/kernels"
exec 9> "$dir.lock"
flock 9

# Architectures the project builds for and boots (run-qemu.sh): this
# machine's, and from amd64 arm64, armhf (32-bit ARM) and riscv64.
host_arch=$(dpkg --print-architecture)
cross="" karch=""
case "$arch" in
"$host_arch") ;;
arm64) cross=aarch64-linux-gnu- karch=arm64 ;;
armhf) cross=arm-linux-gnueabihf- karch=arm ;;
riscv64) cross=riscv64-linux-gnu- karch=riscv ;;
*) die "$arch kernels are not supported here (this machine's $host_arch, arm64, armhf and riscv64)" ;;
esac

optstr=$(sa_apt_opts "$suite" "$arch")
read -r -a opts <<< "$optstr"
log "resolving the current $suite kernel ($arch, $flavour)"
if ! upd=$(sa_apt_update "$suite" "$arch" "${opts[@]}") || grep -q '^[WE]: Failed to fetch' <<< "$upd"; then
	if [ -f "$envf" ]; then
		log "the mirror cannot be reached: using the cached kernel"
		exit 0
	fi
	printf '%s\n' "$upd" >&2
	die "apt-get update failed for $suite"
fi
# A flavour the suite has no kernel of: say which flavours it has.
if ! apt-cache "${opts[@]}" show "linux-image-$flavour" >/dev/null 2>&1; then
	found=$(apt-cache "${opts[@]}" pkgnames linux-image- 2>/dev/null |
		sed -n 's/^linux-image-\([a-z][a-z0-9-]*\)$/\1/p' |
		grep -v -e '-dbg$' -e '-template$' | sort | tr '\n' ' ') || true
	[ -n "$found" ] ||
		die "$suite has no $arch kernel (its archive has no linux-image package for $arch)"
	die "$suite has no $flavour kernel for $arch (no linux-image-$flavour); its $arch kernel flavours: ${found% }"
fi
img=$(apt-cache "${opts[@]}" depends "linux-image-$flavour" |
	awk '/Depends: linux-image-/ { print $2; exit }')
[ -n "$img" ] || die "cannot resolve linux-image-$flavour in $suite"
kver=${img#linux-image-}
pkgver=$(apt-cache "${opts[@]}" policy "$img" |
	awk '/Candidate:/ { print $2; exit }')
if [ -f "$envf" ] && grep -qx "PKGVER=$pkgver" "$envf" &&
   [ -f "$(sed -n 's/^BUSYBOX=//p' "$envf")" ]; then
	log "kernel $kver ($pkgver): cached"
	exit 0
fi

hdeps=$(apt-cache "${opts[@]}" depends "linux-headers-$kver")
common=$(awk '/Depends: linux-headers-.*-common/ { print $2; exit }' <<< "$hdeps")
kbuild=$(awk '/Depends: linux-kbuild-/ { print $2; exit }' <<< "$hdeps")
if [ -z "$common" ] || [ -z "$kbuild" ]; then
	die "cannot resolve the headers of $kver"
fi
# Newer suites split the kernel binary out of linux-image-<kver>.
binary=$(apt-cache "${opts[@]}" depends "$img" |
	awk '/Depends: linux-binary-/ { print $2; exit }')

# download PKG DIR [apt options...]: one package's .deb into DIR.
download() {
	local pkg=$1 to=$2 size out
	shift 2
	size=$(apt-cache "$@" show --no-all-versions "$pkg" |
		awk '/^Size:/ { printf "%.1f", $2 / 1048576; exit }')
	log "downloading $pkg (${size:-?} MB)"
	if ! out=$(cd "$to" && apt-get -q "$@" download "$pkg" 2>&1); then
		printf '%s\n' "$out" >&2
		die "download of $pkg failed"
	fi
	compgen -G "$to/${pkg}_*.deb" > /dev/null || die "no .deb of $pkg"
}

# Unpack into a staging directory; the previous kernel stays until the new
# one is complete.
stage="$dir.new"
rm -rf "$stage" && mkdir -p "$stage/debs" "$stage/root"
for pkg in "$img" $binary "linux-headers-$kver" "$common"; do
	download "$pkg" "$stage/debs" "${opts[@]}"
done
# Headers of another architecture (a board's) run this machine's kbuild
# tools: take linux-kbuild of the same version for this machine.
if [ "$arch" != "$host_arch" ]; then
	hoptstr=$(sa_apt_opts "$suite" "$host_arch")
	read -r -a hopts <<< "$hoptstr"
	sa_apt_update "$suite" "$host_arch" -qq "${hopts[@]}" >/dev/null || true
	log "($kbuild for $host_arch: kbuild runs on this machine)"
	download "$kbuild" "$stage/debs" "${hopts[@]}"
else
	download "$kbuild" "$stage/debs" "${opts[@]}"
fi
for deb in "$stage"/debs/*.deb; do
	dpkg-deb -x "$deb" "$stage/root"
done
rm -rf "$stage/debs"

# Paths below are those of the final place ($dir), not of the stage.
kdir="$dir/root/usr/src/linux-headers-$kver"
skdir="$stage/root/usr/src/linux-headers-$kver"
[ -f "$skdir/Makefile" ] || die "no headers Makefile in linux-headers-$kver"
# The flavour's Makefile includes the -common tree by absolute path.
sed -i "s|/usr/src/linux-headers-|$dir/root/usr/src/linux-headers-|g" \
	"$skdir/Makefile"
# Its scripts link (../../lib/linux-kbuild-X.Y/scripts) must resolve here.
[ -e "$skdir/scripts/basic" ] ||
	die "the headers' scripts link does not resolve in $skdir"
vmlinuz=$( { find "$stage/root/boot" "$stage/root/usr/lib" \( -name 'vmlinuz*' \
	-o -name "vmlinux-$kver" -o -name 'Image*' \) -type f 2>/dev/null || true; } |
	head -n 1)
[ -n "$vmlinuz" ] || die "no kernel image in the $img packages"
vmlinuz=$dir/${vmlinuz#"$stage"/}

# The compiler the headers name (.kernelvariables: CC = ... gcc-12), with
# the cross prefix for another architecture.  Whether this machine or a
# chroot builds with it is decided at build time (mkchroot.sh --kernel).
kcc=$(sa_kernel_cc "$skdir")
kcc=$cross${kcc%% *}

# A static busybox for the guest's architecture.
if [ "$arch" != "$host_arch" ]; then
	mkdir -p "$stage/busybox"
	# A -backports suite has only what was backported: busybox-static
	# is its base suite's then.
	bsuite=$suite bopts=("${opts[@]}")
	if ! apt-cache "${opts[@]}" policy busybox-static 2>/dev/null |
	     awk '/Candidate: [0-9]/ { f = 1 } END { exit !f }'; then
		bsuite=$(sa_base_suite "$suite")
		boptstr=$(sa_apt_opts "$bsuite" "$arch")
		read -r -a bopts <<< "$boptstr"
		sa_apt_update "$bsuite" "$arch" -qq "${bopts[@]}" >/dev/null ||
			die "apt-get update failed for $bsuite ($arch)"
	fi
	log "(busybox-static of $bsuite)"
	download busybox-static "$stage/busybox" "${bopts[@]}"
	dpkg-deb -x "$stage"/busybox/busybox-static_*.deb "$stage/busybox/root"
	# /bin/busybox, or /usr/bin/busybox from trixie on (merged /usr).
	busybox=bin/busybox
	[ -f "$stage/busybox/root/$busybox" ] || busybox=usr/bin/busybox
	[ -f "$stage/busybox/root/$busybox" ] ||
		die "no busybox in busybox-static"
	busybox="$dir/busybox/root/$busybox"
else
	busybox=/bin/busybox
fi

cat > "$stage/kernel.env" <<ENV
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
rm -rf "$dir.old"
[ ! -e "$dir" ] || mv "$dir" "$dir.old"
mv "$stage" "$dir"
rm -rf "$dir.old"
log "kernel $kver ($pkgver) unpacked in $dir"
