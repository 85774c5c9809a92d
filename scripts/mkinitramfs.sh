#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh --out FILE.cpio.gz [--init FILE] [--busybox FILE]
#                [--add SRC:DEST]... [--kver KVER]
#
# A busybox initramfs: busybox-static (this machine's, or FILE for another
# architecture) with its applet links made here (not at boot), /dev
# (with /dev/console) /proc /sys /tmp /root /etc, /etc/passwd and
# /etc/group with root and nobody, FILE (default scripts/init.sh) as /init
# (mode 755), and each SRC (file, or directory copied recursively) at DEST.
# newc cpio, gzip; the same inputs give the same bytes (times set to
# $SOURCE_DATE_EPOCH, default 0).  --kver is accepted and unused (the modules go where --add puts them).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out="" init="$SA_ROOT/scripts/init.sh" adds=() bb=/bin/busybox
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=${2:?}; shift ;;
	--init) init=${2:?}; shift ;;
	--busybox) bb=${2:?}; shift ;;
	--add) adds+=("${2:?}"); shift ;;
	--kver) shift ;;	# accepted for symmetry; not needed
	*) die "mkinitramfs.sh: unknown argument $1" ;;
	esac
	shift
done
[ -n "$out" ] ||
	die "usage: mkinitramfs.sh --out F [--init F] [--busybox F] [--add S:D]..."
[ -f "$init" ] || die "no init script $init"
file -L "$bb" | grep -q 'statically linked' || die "$bb is not busybox-static"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,root,etc,lib}
cp "$bb" "$tmp/bin/busybox"
# The applet list of this machine's busybox (the guest's may not run here).
for app in $(/bin/busybox --list-full); do
	[ -e "$tmp/$app" ] || ln -s /bin/busybox "$tmp/$app"
done
# The kselftest runner calls "timeout --foreground", which busybox's
# timeout does not know: without it, the runner runs tests unbounded (the
# QEMU runner still bounds the whole boot).
rm -f "$tmp/usr/bin/timeout"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' \
	> "$tmp/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$tmp/etc/group"
install -m 0755 "$init" "$tmp/init"
for a in ${adds[@]+"${adds[@]}"}; do
	src=${a%%:*} dst=${a#*:}
	[ -e "$src" ] || die "--add $a: no $src"
	mkdir -p "$tmp/$(dirname "$dst")"
	if [ -d "$src" ]; then
		mkdir -p "$tmp/$dst"
		cp -a "$src"/. "$tmp/$dst"/
	else
		cp -a "$src" "$tmp/$dst"
	fi
done
# The kernel's built-in initramfs has /dev/console; kernels without one
# need it here for /init's first output.
[ -e "$tmp/dev/console" ] || mknod -m 600 "$tmp/dev/console" c 5 1 2>/dev/null ||
	true
mkdir -p "$(dirname "$out")"
find "$tmp" -exec touch -h -d "@${SOURCE_DATE_EPOCH:-0}" {} +
(cd "$tmp" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --reproducible --quiet) |
	gzip -1 -n > "$out"
log "initramfs $out ($(du -h "$out" | cut -f1))"
