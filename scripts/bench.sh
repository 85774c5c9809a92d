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
# frees and the per-CPU scaling), and prints the table of
# bench/guest/run.sh's results
# (scripts/bench-report.py); JSON in build/bench/results.json.  Then
# bench/host/sa_atomics times the kinds of counter updates on this
# machine's own CPUs (build/bench/atomics.txt).
# The peers' boot (issue 17), SA_BENCH_RUNS="map-icount map-plain": the
# MAP kernel (scripts/build-kernel.sh --profile map: trixie's 6.12 with
# memory allocation profiling compiled in, built and cached the first
# time), the same modules, sabench and, when bench/bpf exists, the eBPF
# peer (sa_bpf, static, CO-RE against that kernel's BTF) in its image;
# bench/guest/peers.sh runs the workloads under every peer in turn.
#
# Fails only if something breaks (a build, a boot, a guest command, a
# kernel splat), never because of a figure.
# The ARM boots, SA_BENCH_RUNS=armhf-icount arm64-icount: bookworm's 6.1
# armmp kernel (qemu-system-arm -M virt, Cortex-A15) and its 6.1 arm64
# kernel (qemu-system-aarch64 -M virt), 1 vCPU with icount, the same
# workloads: what the hot path costs on a 32-bit board (atomic64
# counters, 64-bit jiffies) and on a 64-bit ARM one, beside amd64.
# The scale run (issue 28), SA_BENCH_RUNS=scale: the 6.1 amd64 kernel
# booted twice without icount (bench/guest/scale.sh): SA_BENCH_SCALE_ONLINE
# vCPUs online (2) of SA_BENCH_MAXCPUS possible (-smp 2,maxcpus=N, 255 by
# default: this QEMU 7.2 refuses 256 under TCG) in 2 GiB, for the tables
# and counters at many possible CPUs and the full read of 10,000 call
# sites before and after a reset; then as many vCPUs, all possible, in
# 16 GiB (QEMU allocates it lazily), the default sizing and 4,000,000 live
# kmalloc(64) objects held (dropped objects), and the same reads.  About
# 5 minutes (2 vCPUs).
# The NUMA boot (issue 33), SA_BENCH_RUNS=numa-icount: the icount boot
# with a second NUMA node, memory only (run-qemu.sh --numa 2), where
# split=node loads: its pair beside the other splits'.
#   SA_BENCH_SIZES=NPAIR,NBATCH,NMIX[,MIXRUNS]  sizes of the runs
#                                      (10000,1000,100); MIXRUNS, the
#                                      mixes per configuration in the
#                                      peers' boot (5)
#   SA_BENCH_RUNS="icount plain map-icount map-plain armhf-icount
#                  arm64-icount scale numa-icount" which boots (the
#                                      default: the first four)
#   SA_BENCH_MAXCPUS=N                 the scale run's possible CPUs (255)
#   SA_BENCH_SCALE_ONLINE=N            its CPUs online in each boot (2)
# KDIR, KVER, VMLINUZ... come from the sourced kernel.env.
# shellcheck disable=SC2153
set -euo pipefail
. "$(dirname "$0")/lib.sh"

sizes=${SA_BENCH_SIZES:-10000,1000,100}
runs=${SA_BENCH_RUNS:-icount plain map-icount map-plain}
out="$SA_ROOT/build/bench"
for run in $runs; do
	case "$run" in
	icount | plain | map-icount | map-plain | armhf-icount | arm64-icount | scale | numa-icount) ;;
	*) die "unknown run $run (icount plain map-icount map-plain armhf-icount arm64-icount scale numa-icount)" ;;
	esac
done

"$SA_ROOT/scripts/setup-deps.sh"

# kbuild writes next to the sources: a copy laid out as in the tree.
kbuild() {	# kbuild DIR LOG
	kmake -C "$KDIR" M="$1" CC="$KCC" W=1 -j"$(nproc)" \
		${KARCH:+ARCH=$KARCH} ${CROSS_COMPILE:+CROSS_COMPILE=$CROSS_COMPILE} \
		modules >"$2" 2>&1 ||
		{ cat "$2"; die "build failed: $1"; }
	if grep -E 'warning:|error:' "$2" | grep -v 'Skipping BTF'; then
		die "build of $1 is not warning-free (W=1)"
	fi
}

# image KENV DIR: the modules built against KENV's kernel, sabench, the
# guest scripts (and sa_bpf for the MAP kernel) in DIR/initramfs.cpio.gz;
# KENV's variables stay set.
image() {
	local d=$2
	# shellcheck disable=SC1090
	. "$1"
	CROSS_COMPILE=${CROSS_COMPILE:-} KARCH=${KARCH:-}
	read -r KCC KROOT <<< "$("$SA_ROOT/scripts/mkchroot.sh" --kernel "$1")"
	mkdir -p "$d/src/bench" "$d/rootfs/lib/slab_account" \
		"$d/rootfs/usr/bin" "$d/rootfs/bench"
	cp "$SA_ROOT/Kbuild" "$d/src/"
	cp -r "$SA_ROOT/module" "$d/src/"
	cp -r "$SA_ROOT/bench/kmod" "$d/src/bench/"
	log "building slab_account.ko for $KVER (W=1)"
	kbuild "$d/src" "$d/build-module.log"
	log "building sa_bench.ko and sa_floor.ko (W=1)"
	kbuild "$d/src/bench/kmod" "$d/build-bench.log"
	cp "$d/src/slab_account.ko" "$d/src/bench/kmod/sa_bench.ko" \
		"$d/src/bench/kmod/sa_floor.ko" "$d/rootfs/lib/slab_account/"
	log "building sabench (static)"
	make -s -C "$SA_ROOT/bench/guest" CC="${CROSS_COMPILE}gcc" \
		OUT="$d/rootfs/usr/bin/sabench"
	cp "$SA_ROOT/bench/guest/run.sh" "$SA_ROOT/bench/guest/common.sh" \
		"$SA_ROOT/bench/guest/peers.sh" "$SA_ROOT/bench/guest/scale.sh" \
		"$d/rootfs/bench/"
	if [ "$KDIR" = "${mapkdir:-}" ] && [ -d "$SA_ROOT/bench/bpf" ]; then
		log "building sa_bpf (static, CO-RE against $KVER's BTF)"
		make -s -C "$SA_ROOT/bench/bpf" OUT="$d/rootfs/usr/bin/sa_bpf" \
			VMLINUX="$KDIR/vmlinux"
	fi
	"$SA_ROOT/scripts/mkinitramfs.sh" --out "$d/initramfs.cpio.gz" \
		--busybox "$BUSYBOX" --init "$SA_ROOT/scripts/init.sh" \
		--add "$d/rootfs/.:/"
	vmlinuz=$VMLINUZ
}

rm -rf "$out"
mkdir -p "$out"
case " $runs " in
*" icount "* | *" plain "* | *" scale "* | *" numa-icount "*)
	"$SA_ROOT/scripts/fetch-kernel.sh" --suite bookworm --arch amd64 \
		--flavour amd64
	image "$("$SA_ROOT/scripts/fetch-kernel.sh" --suite bookworm \
		--arch amd64 --flavour amd64 --print-env)" "$out"
	kernel61=$vmlinuz
	;;
esac
case " $runs " in
*" map-icount "* | *" map-plain "*)
	"$SA_ROOT/scripts/build-kernel.sh" --profile map
	menv=$("$SA_ROOT/scripts/build-kernel.sh" --profile map --print-env)
	mapkdir=$(sed -n 's/^KDIR=//p' "$menv")
	log "MAP kernel built in $(sed -n 's/^DEBUG_BUILD_SECS=//p' "$menv") s (when last built)"
	image "$menv" "$out/map"
	kernelmap=$vmlinuz
	;;
esac

declare -A armkernel
for a in armhf:armmp arm64:arm64; do
	case " $runs " in
	*" ${a%%:*}-icount "*)
		aargs=(--suite bookworm --arch "${a%%:*}" --flavour "${a#*:}")
		"$SA_ROOT/scripts/fetch-kernel.sh" "${aargs[@]}"
		image "$("$SA_ROOT/scripts/fetch-kernel.sh" "${aargs[@]}" --print-env)" \
			"$out/${a%%:*}"
		armkernel[${a%%:*}]=$vmlinuz
		;;
	esac
done

# splat RUN DIR: fails the bench if DIR/console.log shows a kernel splat.
splat() {
	if grep -nE 'BUG:|WARNING:|Oops|Call Trace|Kernel panic' \
		"$2/console.log"; then
		die "kernel splat in the $1 run (see $2/console.log)"
	fi
}

# The scale run's boots: scale_boot PHASE RUN-QEMU-ARGS... (scale.sh).
scale_boot() {
	local d="$out/scale/$1" phase=$1
	shift
	"$SA_ROOT/scripts/run-qemu.sh" --kernel "$kernel61" --arch amd64 \
		--initrd "$out/initramfs.cpio.gz" --mode bench --out "$d" \
		--timeout 900 "$@" --append "nokaslr sa.scale=$phase"
	tr -d '\r' < "$d/ktap.log" > "$d/results.txt"
	splat "scale ($phase)" "$d"
}

# The scale run's CPUs online in each boot (2 by default).
online=${SA_BENCH_SCALE_ONLINE:-2}
case "$online" in
'' | *[!0-9]* | 0 | 1) die "SA_BENCH_SCALE_ONLINE=$online: 2 or more" ;;
esac
ncpu=$(nproc)
[ "$ncpu" -le 4 ] || ncpu=4
[ "$ncpu" -ge 2 ] || ncpu=2
reports=()
for run in $runs; do
	if [ "$run" = scale ]; then
		# Single-threaded TCG (run-qemu.sh's default on x86), no icount:
		# with icount the secondary CPU does not come up.
		scale_boot cpus --smp "$online,maxcpus=${SA_BENCH_MAXCPUS:-255}" \
			--mem 2048
		scale_boot ram --smp "$online" --mem 16384
		reports+=("scale:$out/scale")
		continue
	fi
	kernel=${kernel61:-} initrd="$out/initramfs.cpio.gz" append=""
	arch=amd64
	case "$run" in
	armhf-* | arm64-*)
		arch=${run%%-*}
		kernel=${armkernel[$arch]} initrd="$out/$arch/initramfs.cpio.gz"
		;;
	map-*)
		kernel=$kernelmap initrd="$out/map/initramfs.cpio.gz"
		# 6.12: profiling not on by default can be switched on at
		# run time only if the boot asked for it (else the sysctl is
		# read-only and pages carry no tags).
		append=" sa.peers=1 sysctl.vm.mem_profiling=0"
		;;
	esac
	case "$run" in
	# The icount boot with a second NUMA node (memory only): the
	# workloads as in the icount boot, and the pair under split=node.
	numa-icount) qargs=(--icount --smp 1 --numa 2) ;;
	*icount) qargs=(--icount --smp 1) ;;
	# Multi-threaded TCG (one host thread per vCPU) for the scaling;
	# it can kill the guest when static keys are re-patched (see
	# run-qemu.sh), then this run fails and is to be repeated.
	*plain) qargs=(--smp "$ncpu" --accel tcg) ;;
	esac
	"$SA_ROOT/scripts/run-qemu.sh" --kernel "$kernel" --arch "$arch" \
		--initrd "$initrd" --mode bench --out "$out/$run" \
		--mem 512 --timeout 1200 "${qargs[@]}" \
		--append "nokaslr sa.bench=$sizes$append"
	tr -d '\r' < "$out/$run/ktap.log" > "$out/$run/results.txt"
	splat "$run" "$out/$run"
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
