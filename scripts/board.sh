#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# board.sh SUITE:ARCH:FLAVOUR      (make board BOARD=SUITE:ARCH:FLAVOUR)
#
# The module and the reader for a board that runs a Debian kernel, built
# on this machine: SUITE's current kernel of FLAVOUR for ARCH (amd64,
# arm64, armhf or riscv64), e.g. trixie:riscv64:riscv64, trixie:arm64:arm64,
# bookworm:armhf:armmp.  Its headers are fetched into the cache
# (fetch-kernel.sh); the module is built with the compiler they name, on
# this machine or in a chroot of a suite that has it (mkchroot.sh --kernel,
# lib.sh's kmake: trixie's headers name gcc-14 and their kbuild tools need
# glibc 2.38); the reader with this machine's compiler for ARCH (the top
# Makefile's reader with CROSS_COMPILE), statically linked, so that it
# runs whatever the board's libc.  Both go to build/board/<kernel
# release>/ (slab_account.ko, slabacct; the build's log in build.log), and
# it prints how to copy and load them.  The host packages it needs are
# installed when missing (setup-deps.sh with that list).
# KVER, KDIR, PKGVER... come from the sourced kernel.env.
# shellcheck disable=SC2153
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# Run by make board or by hand: the same build (no make variables of the
# caller's command line in the builds below).
unset MAKEFLAGS MFLAGS MAKELEVEL

usage="usage: make board BOARD=SUITE:ARCH:FLAVOUR (scripts/board.sh SUITE:ARCH:FLAVOUR),
e.g. BOARD=trixie:riscv64:riscv64, trixie:arm64:arm64, bookworm:armhf:armmp,
bookworm:amd64:amd64: the current Debian kernel of that suite, architecture
and flavour (the word after linux-image- in its package name)"

case "${1:-}" in
-h | --help)
	echo "$usage"
	exit 0
	;;
"")
	printf '%s\n' "$usage" >&2
	die "no BOARD given"
	;;
esac
[ $# -eq 1 ] || { printf '%s\n' "$usage" >&2; die "one BOARD only, got: $*"; }
board=$1
if ! [[ $board =~ ^([a-z][a-z0-9-]*):([a-z0-9]+):([a-z0-9][a-z0-9-]*)$ ]]; then
	printf '%s\n' "$usage" >&2
	die "BOARD=$board is not SUITE:ARCH:FLAVOUR"
fi
suite=${BASH_REMATCH[1]} arch=${BASH_REMATCH[2]} flavour=${BASH_REMATCH[3]}

host_arch=$(dpkg --print-architecture)
# What the build needs here: make, kmod, debootstrap (a chroot when the
# headers name a compiler this machine lacks), pahole (the BTF probe);
# and for another architecture the cross compiler and the C library the
# static reader links (libc6-dev-<arch>-cross).
pkgs=(build-essential kmod debootstrap dwarves)
case "$arch" in
"$host_arch") ;;
arm64) pkgs+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross) ;;
armhf) pkgs+=(gcc-arm-linux-gnueabihf libc6-dev-armhf-cross) ;;
riscv64) pkgs+=(gcc-riscv64-linux-gnu libc6-dev-riscv64-cross) ;;
*) die "BOARD=$board: $arch boards are not supported (this machine's $host_arch, arm64, armhf, riscv64)" ;;
esac
"$SA_ROOT/scripts/setup-deps.sh" "${pkgs[@]}"

fk=(--suite "$suite" --arch "$arch" --flavour "$flavour")
"$SA_ROOT/scripts/fetch-kernel.sh" "${fk[@]}"
# shellcheck disable=SC1090 # (KVER KDIR PKGVER CROSS_COMPILE KARCH...)
. "$("$SA_ROOT/scripts/fetch-kernel.sh" "${fk[@]}" --print-env)"
CROSS_COMPILE=${CROSS_COMPILE:-} KARCH=${KARCH:-}
read -r KCC KROOT <<< "$("$SA_ROOT/scripts/mkchroot.sh" --kernel \
	"$("$SA_ROOT/scripts/fetch-kernel.sh" "${fk[@]}" --print-env)")"

dir=$SA_ROOT/build/board/$KVER
blog=$dir/build.log
rm -rf "$dir"
mkdir -p "$dir/src"
cp -r "$SA_ROOT/Kbuild" "$SA_ROOT/module" "$dir/src/"
where="on this machine"
[ "$KROOT" = - ] || where="in the chroot ${KROOT#"$SA_CACHE"/}"
log "building slab_account.ko for $KVER ($KCC, $where)"
kmake -C "$KDIR" M="$dir/src" CC="$KCC" ${KARCH:+ARCH=$KARCH} \
	${CROSS_COMPILE:+CROSS_COMPILE=$CROSS_COMPILE} -j"$(nproc)" modules \
	> "$blog" 2>&1 ||
	{ tail -n 40 "$blog" >&2; die "the module's build failed for $KVER (all of it: $blog)"; }
cp "$dir/src/slab_account.ko" "$dir/"
log "building slabacct for $arch (${CROSS_COMPILE}gcc, static)"
make -s -C "$SA_ROOT" reader CROSS_COMPILE="$CROSS_COMPILE" STATIC=1 \
	OUT="$dir/slabacct" >> "$blog" 2>&1 ||
	{ tail -n 40 "$blog" >&2; die "the reader's build failed (all of it: $blog)"; }
rm -rf "$dir/src"

# Paths as the caller can type them: from the top directory, relative.
show=$dir
case "$dir" in "$PWD"/*) show=${dir#"$PWD"/} ;; esac
vermagic=$(modinfo -F vermagic "$dir/slab_account.ko")
vermagic=${vermagic%"${vermagic##*[! ]}"}	# (32-bit ARM's ends in a space)
machine=$(readelf -h "$dir/slabacct" | sed -n 's/^ *Machine: *//p')
cat <<EOF

slab_account for Debian $suite's $flavour kernel ($arch), $KVER ($PKGVER):

  $show/slab_account.ko   vermagic $vermagic
  $show/slabacct          $machine, statically linked

Copy both to the board, which must run exactly that kernel, and load the
module there as root, as early as you can (README, "On a real board"):

  scp $show/slab_account.ko $show/slabacct root@BOARD:
  ssh root@BOARD
  board# uname -r                  # must print $KVER
  board# insmod ./slab_account.ko
  board# ... run the workload ...
  board# ./slabacct -n 20 -H
EOF
