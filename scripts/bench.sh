#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: `make bench`.  Builds slab_account.ko, the benchmark modules
# (bench/kmod: sa_bench.ko, sa_floor.ko) and the guest program
# (bench/guest: sabench) for Debian bookworm's 6.1 kernel, boots it twice
# in QEMU (1 vCPU with -icount shift=0,sleep=off: figures identical on
# every run -- with icount this QEMU does not get the 6.1 guest's secondary
# CPUs up, the boot stops at "x86: Booting SMP configuration"; then without
# icount, as many vCPUs as this machine has CPUs, 2 to 4, for the remote
# frees and the per-CPU scaling), and prints the table of bench/guest/run.sh's results
# (scripts/bench-report.py); JSON in build/bench/results.json.  Then
# bench/host/sa_atomics times the kinds of counter updates on this
# machine's own CPUs (build/bench/atomics.txt).
#
# Fails only if something breaks (a build, a boot, a guest command, a
# kernel splat), never because of a figure.
#   SA_BENCH_SIZES=NPAIR,NBATCH,NMIX   sizes of the runs (10000,1000,100)
#   SA_BENCH_RUNS="icount plain"        which boots
set -euo pipefail
. "$(dirname "$0")/lib.sh"

sizes=${SA_BENCH_SIZES:-10000,1000,100}
runs=${SA_BENCH_RUNS:-icount plain}
out="$SA_ROOT/build/bench"

"$SA_ROOT/scripts/setup-deps.sh"
"$SA_ROOT/scripts/fetch-kernel.sh" --suite bookworm --arch amd64 --flavour amd64
# shellcheck disable=SC1090
. "$("$SA_ROOT/scripts/fetch-kernel.sh" --suite bookworm --arch amd64 \
	--flavour amd64 --print-env)"

# kbuild writes next to the sources: a copy laid out as in the tree.
kbuild() {	# kbuild DIR LOG
	make -C "$KDIR" M="$1" CC="$KCC" W=1 -j"$(nproc)" modules >"$2" 2>&1 ||
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
log "building slab_account.ko for $KVER (W=1)"
kbuild "$out/src" "$out/build-module.log"
log "building sa_bench.ko and sa_floor.ko (W=1)"
kbuild "$out/src/bench/kmod" "$out/build-bench.log"
cp "$out/src/slab_account.ko" "$out/src/bench/kmod/sa_bench.ko" \
	"$out/src/bench/kmod/sa_floor.ko" "$out/rootfs/lib/slab_account/"
log "building sabench (static)"
make -s -C "$SA_ROOT/bench/guest" OUT="$out/rootfs/usr/bin/sabench"
cp "$SA_ROOT/bench/guest/run.sh" "$out/rootfs/bench/run.sh"
"$SA_ROOT/scripts/mkinitramfs.sh" --out "$out/initramfs.cpio.gz" \
	--init "$SA_ROOT/scripts/init.sh" --add "$out/rootfs/.:/"

ncpu=$(nproc)
[ "$ncpu" -le 4 ] || ncpu=4
[ "$ncpu" -ge 2 ] || ncpu=2
reports=()
for run in $runs; do
	case "$run" in
	icount) qargs=(--icount --smp 1) ;;
	# Multi-threaded TCG (one host thread per vCPU) for the scaling;
	# it can kill the guest when static keys are re-patched (see
	# run-qemu.sh), then this run fails and is to be repeated.
	plain) qargs=(--smp "$ncpu" --accel tcg) ;;
	*) die "unknown run $run (icount or plain)" ;;
	esac
	"$SA_ROOT/scripts/run-qemu.sh" --kernel "$VMLINUZ" \
		--initrd "$out/initramfs.cpio.gz" --mode bench --out "$out/$run" \
		--mem 512 --timeout 1200 "${qargs[@]}" \
		--append "nokaslr sa.bench=$sizes"
	tr -d '\r' < "$out/$run/ktap.log" > "$out/$run/results.txt"
	if grep -nE 'BUG:|WARNING:|Oops|Call Trace|Kernel panic' \
		"$out/$run/console.log"; then
		die "kernel splat in the $run run (see $out/$run/console.log)"
	fi
	reports+=("$run:$out/$run")
done

log "results ($(date +%F)):"
python3 "$SA_ROOT/scripts/bench-report.py" "$out/results.json" \
	"${reports[@]}" | tee "$out/table.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || die "a benchmark step failed (see FAILED above)"

# What the kinds of counter updates cost outside QEMU, on this machine's
# own CPUs: the part of the design no guest figure shows.
log "counter updates on this machine's CPUs (bench/host/sa_atomics)"
make -s -C "$SA_ROOT/bench/host" OUT="$out/sa_atomics"
"$out/sa_atomics" | tee "$out/atomics.txt"
