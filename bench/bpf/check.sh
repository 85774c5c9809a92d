#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: proves sa_bpf (the eBPF peer, README here) in a QEMU guest on
# Debian trixie's 6.12 kernel: builds slab_account.ko and sa_bench.ko for
# it, sa_bpf against the BTF of its headers' vmlinux, packs them with
# bench/bpf/guest.sh as /bench/run.sh into a busybox initramfs and boots it
# once with 1 vCPU under icount (deterministic guest time).  The guest
# compares sa_bpf's figures with slab_account's for sa_bench's call sites
# in both modes (on the raw tracepoints, and with --classic on the classic
# ones) and times a kmalloc(64)+kfree pair and a batch under each.
# Prints the guest's results and a table of the costs; fails if a check
# failed, the guest did not finish, or the kernel splatted.
#   SA_CACHE        as for every script (scripts/lib.sh)
#   SA_BPF_SIZES    NPAIR,NBATCH,NHOLD,NCOST (default 1000,500,300,20000)
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

sizes=${SA_BPF_SIZES:-1000,500,300,20000}
out="$SA_ROOT/build/bpf"
fk=(--suite trixie --arch amd64 --flavour amd64)

"$SA_ROOT/scripts/fetch-kernel.sh" "${fk[@]}"
kenv=$("$SA_ROOT/scripts/fetch-kernel.sh" "${fk[@]}" --print-env)
# shellcheck disable=SC1090
. "$kenv"
: "${KDIR:?}" "${KVER:?}" "${VMLINUZ:?}"
# shellcheck disable=SC2034 # (KROOT: read by kmake, scripts/lib.sh)
read -r KCC KROOT <<< "$("$SA_ROOT/scripts/mkchroot.sh" --kernel "$kenv")"

kbuild() {	# kbuild DIR LOG
	kmake -C "$KDIR" M="$1" CC="$KCC" W=1 -j2 modules >"$2" 2>&1 ||
		{ cat "$2"; die "build failed: $1"; }
	if grep -E 'warning:|error:' "$2" | grep -v 'Skipping BTF'; then
		die "build of $1 is not warning-free (W=1)"
	fi
}

rm -rf "$out"
mkdir -p "$out/src/bench" "$out/rootfs/lib/slab_account" "$out/rootfs/usr/bin" \
	"$out/rootfs/bench"
cp "$SA_ROOT/Kbuild" "$out/src/"
cp -r "$SA_ROOT/module" "$out/src/"
cp -r "$SA_ROOT/bench/kmod" "$out/src/bench/"
log "building slab_account.ko and sa_bench.ko for $KVER (W=1)"
kbuild "$out/src" "$out/build-module.log"
kbuild "$out/src/bench/kmod" "$out/build-bench.log"
cp "$out/src/slab_account.ko" "$out/src/bench/kmod/sa_bench.ko" \
	"$out/rootfs/lib/slab_account/"
log "building sa_bpf (static) against $KDIR/vmlinux's BTF"
make -s -C "$SA_ROOT/bench/bpf" OUT="$out/sa_bpf" VMLINUX="$KDIR/vmlinux"
cp "$out/sa_bpf" "$out/rootfs/usr/bin/"
cp "$SA_ROOT/bench/bpf/guest.sh" "$out/rootfs/bench/run.sh"
"$SA_ROOT/scripts/mkinitramfs.sh" --out "$out/initramfs.cpio.gz" \
	--init "$SA_ROOT/scripts/init.sh" --add "$out/rootfs/.:/"

"$SA_ROOT/scripts/run-qemu.sh" --kernel "$VMLINUZ" \
	--initrd "$out/initramfs.cpio.gz" --mode bench --out "$out/icount" \
	--mem 512 --timeout 1200 --icount --smp 1 \
	--append "nokaslr sa.bpf=$sizes"
res="$out/icount/results.txt"
tr -d '\r' < "$out/icount/ktap.log" > "$res"
grep -vE '^(C|OK) ' "$res" || true
log "$(grep -c '^OK ' "$res") checks passed, $(grep -c '^FAIL ' "$res") failed"

# Guest ns per pair and per batch object: the fastest of the 3 runs.
awk '
$1 == "C" && $3 == "pair" { n = $6 / $5; if (!(($2, 64) in p) || n < p[$2, 64]) p[$2, 64] = n; cfg[$2] = 1 }
$1 == "C" && $3 == "batch" {
	a = $6 / $5; f = $7 / $5
	if (!($2 in ba) || a < ba[$2]) ba[$2] = a
	if (!($2 in bf) || f < bf[$2]) bf[$2] = f
}
END {
	b = p["baseline", 64]
	printf "%-22s %10s %8s %12s %12s\n", "guest ns (icount)", "pair 64", "+pair", "batch alloc", "batch free"
	n = split("baseline slab_account_stopped slab_account bpf_sums bpf_pointers bpf_classic_sums bpf_classic_pointers", order, " ")
	for (i = 1; i <= n; i++) {
		c = order[i]
		if (!(c in cfg)) continue
		printf "%-22s %10.1f %+8.1f %12.1f %12.1f\n", c, p[c, 64], p[c, 64] - b, ba[c], bf[c]
	}
}' "$res" | tee "$out/table.txt"

if grep -nE 'BUG:|WARNING:|Oops|Call Trace|Kernel panic' "$out/icount/console.log"; then
	die "kernel splat (see $out/icount/console.log)"
fi
grep -q '^BPF_DONE' "$res" || die "the guest did not finish (see $out/icount/console.log)"
if grep -q '^FAIL ' "$res"; then
	die "sa_bpf and slab_account disagree (see $res)"
fi
log "sa_bpf agrees with slab_account (results in $res)"
