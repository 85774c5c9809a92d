#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-qemu.sh --kernel VMLINUZ --initrd FILE --mode test|demo|shell --out DIR
#             [--arch amd64|arm64] [--timeout SECS] [--smp N] [--mem MB]
#             [--icount] [--append ARGS] [--accel ACCEL]
#
# Boots under TCG (no KVM needed): qemu-system-x86_64, or for arm64
# qemu-system-aarch64 -M virt.  The first serial port (the console) goes
# to DIR/console.log, the second (KTAP from the tests) to DIR/ktap.log; the
# arm64 virt machine has one UART, so there the guest prefixes its KTAP
# lines with "SA_KTAP: " on the console and they are taken out of it.  In
# demo mode the guest's output (without kernel messages) is shown after
# the boot.  Fails on timeout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel="" initrd="" mode=test out="" tmo=900 smp=2 mem=512 icount=0 extra=""
accel=tcg
arch=amd64
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift ;;
	--initrd) initrd=$2; shift ;;
	--mode) mode=$2; shift ;;
	--out) out=$2; shift ;;
	--timeout) tmo=$2; shift ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	--icount) icount=1 ;;
	--arch) arch=$2; shift ;;
	--append) extra=$2; shift ;;
	--accel) accel=$2; shift ;;
	*) die "run-qemu.sh: unknown argument $1" ;;
	esac
	shift
done
[ -n "$kernel" ] && [ -n "$initrd" ] && [ -n "$out" ] ||
	die "usage: run-qemu.sh --kernel K --initrd I --mode M --out DIR"
mkdir -p "$out"
: > "$out/console.log"
: > "$out/ktap.log"

case "$arch" in
amd64)
	qemu=qemu-system-x86_64 console=ttyS0
	args=(-accel "$accel" -serial "file:$out/console.log" -serial "file:$out/ktap.log")
	;;
arm64)
	qemu=qemu-system-aarch64 console=ttyAMA0
	args=(-M virt -cpu cortex-a57 -accel "$accel" -serial "file:$out/console.log")
	extra="sa.ktap=console $extra"
	;;
*) die "run-qemu.sh: no QEMU set-up for $arch" ;;
esac
args+=(-smp "$smp" -m "$mem" -nographic -no-reboot
       -display none -monitor none -nic none
       -kernel "$kernel" -initrd "$initrd"
       -append "console=$console panic=-1 sa.mode=$mode $extra")
[ $icount = 1 ] && args+=(-icount shift=0,sleep=off)

log "booting $(basename "$kernel") under QEMU/TCG (mode $mode, $smp CPUs, ${mem} MB)"
start=$(date +%s)
rc=0
if [ "$mode" = shell ]; then
	args=("${args[@]/file:$out\/console.log/mon:stdio}")
	"$qemu" "${args[@]}" || rc=$?
else
	timeout "$tmo" "$qemu" "${args[@]}" </dev/null || rc=$?
fi
log "guest finished in $(( $(date +%s) - start )) s"
[ $rc -ne 124 ] || die "guest timed out after $tmo s (see $out/console.log)"
[ $rc -eq 0 ] || die "qemu failed ($rc)"
if [ "$arch" = arm64 ]; then
	sed -n 's/^SA_KTAP: //p' "$out/console.log" > "$out/ktap.log"
fi
grep -q '^SA_TAINT=' "$out/console.log" ||
	die "guest did not finish (see $out/console.log)"
if [ "$mode" = demo ]; then
	sed -n '/^SA_LOADED/,/^SA_TAINT=/p' "$out/console.log" |
		grep -Ev '^\[ *[0-9]+\.[0-9]+\]|^SA_'
fi
