#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ci.sh check|demo [--suite S --arch A --flavour F]
#
# check: host dependencies, Debian's kernel (image + headers) and the
#        kselftest/checkpatch files of its linux-source, then: W=1 and
#        sparse builds that must be silent, checkpatch --strict, the
#        reader's host tests (ASan/UBSan), and the in-guest selftests in a
#        QEMU boot, failing on any failed test or kernel splat.
# demo:  the module loaded from the initramfs before anything else, a
#        small workload, and the reader's report of the top call sites.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-}
shift || true
[ "$mode" = check ] || [ "$mode" = demo ] || die "usage: ci.sh check|demo"

"$SA_ROOT/scripts/setup-deps.sh"
"$SA_ROOT/scripts/fetch-kernel.sh" "$@"
# shellcheck disable=SC1090
. "$("$SA_ROOT/scripts/fetch-kernel.sh" "$@" --print-env)"
if [ "$mode" = check ]; then
	"$SA_ROOT/scripts/fetch-ksrc.sh" "$@"
	# shellcheck disable=SC1090
	. "$("$SA_ROOT/scripts/fetch-ksrc.sh" "$@" --print-env)"
fi

out="$SA_ROOT/build/$KVER"
rm -rf "$out"
mkdir -p "$out/mod" "$out/sa_test" "$out/rootfs/lib/slab_account" \
	 "$out/rootfs/usr/bin"

# kbuild writes next to the sources: build copies, one per kernel.
kbuild() {	# kbuild SRC_DIR OUT_DIR LOG [extra make args]
	local src=$1 dst=$2 logf=$3
	shift 3
	cp -r "$src"/. "$dst"/
	make -C "$KDIR" M="$dst" CC="$KCC" W=1 "$@" modules >"$logf" 2>&1 ||
		{ cat "$logf"; die "build failed: $src"; }
	if grep -E 'warning:|error:' "$logf" | grep -v 'Skipping BTF'; then
		die "build of $src is not warning-free (W=1${*:+ $*})"
	fi
}

log "building slab_account.ko for $KVER (W=1)"
mkdir -p "$out/src"
cp "$SA_ROOT/Kbuild" "$out/src/"
cp -r "$SA_ROOT/module" "$out/src/"
kbuild "$out/src" "$out/mod" "$out/build-module.log"
log "building sa_test.ko (W=1)"
kbuild "$SA_ROOT/tests/kmod" "$out/sa_test" "$out/build-sa_test.log"
log "building the reader (static)"
make -s -C "$SA_ROOT/userspace" clean
make -s -C "$SA_ROOT/userspace" STATIC=1
cp "$SA_ROOT/userspace/slabacct" "$out/rootfs/usr/bin/"
cp "$out/mod/slab_account.ko" "$out/sa_test/sa_test.ko" \
	"$out/rootfs/lib/slab_account/"

if [ "$mode" = check ]; then
	if command -v sparse >/dev/null; then
		log "sparse"
		rm -rf "$out/sparse" && mkdir -p "$out/sparse"
		kbuild "$out/src" "$out/sparse" "$out/sparse.log" C=2
	fi
	log "checkpatch --strict"
	(cd "$SA_ROOT" && perl "$KSRC/scripts/checkpatch.pl" --strict \
		--no-tree --quiet -f module/*.c module/*.h tests/kmod/*.c) ||
		die "checkpatch --strict is not clean"

	log "reader host tests (ASan/UBSan)"
	make -C "$SA_ROOT/userspace" check

	log "building the in-guest selftests"
	make -s -C "$SA_ROOT/tests/guest" clean KSFT="$KSFT"
	make -s -C "$SA_ROOT/tests/guest" install KSFT="$KSFT" \
		INSTALL_PATH="$out/rootfs/kselftest"
fi
cp "$SA_ROOT/scripts/guest-demo.sh" "$out/rootfs/demo.sh"

log "building the initramfs"
"$SA_ROOT/scripts/mkinitramfs.sh" --out "$out/initramfs.cpio.gz" \
	--kver "$KVER" --init "$SA_ROOT/scripts/init.sh" \
	--add "$out/rootfs/.:/"

guest_mode=demo
[ "$mode" = demo ] || guest_mode=test
"$SA_ROOT/scripts/run-qemu.sh" --kernel "$VMLINUZ" \
	--initrd "$out/initramfs.cpio.gz" --mode "$guest_mode" --out "$out/boot"
if [ "$mode" = check ]; then
	"$SA_ROOT/scripts/check-boot.sh" "$out/boot"
	log "all checks passed on $KVER ($PKGVER)"
fi
