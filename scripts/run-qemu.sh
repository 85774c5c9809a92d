#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-qemu.sh --kernel VMLINUZ --initrd FILE --mode test|demo|bench|shell
#             --out DIR [--arch amd64|arm64|armhf|riscv64]
#             [--timeout SECS (600)] [--boot-timeout SECS (180)]
#             [--smp N (2)] [--mem MB (512)]
#             [--icount] [--append ARGS] [--accel ACCEL] [--numa N (1)]
#
# Boots under TCG (no KVM needed): qemu-system-x86_64; for arm64
# qemu-system-aarch64 -M virt; for armhf (32-bit ARM) qemu-system-arm -M
# virt,highmem=off with a Cortex-A15; for riscv64 qemu-system-riscv64 -M
# virt with OpenSBI (-bios default).  No network, no display, no reboot
# (a panic ends the run: panic=-1).  The first serial port (the console)
# goes to DIR/console.log, the second (KTAP from the tests) to
# DIR/ktap.log; the virt machines have one UART, so there the guest
# prefixes its KTAP lines with "SA_KTAP: " on the console and they are
# taken out of it.
# The kernel command line is "console=... panic=-1 sa.mode=MODE ARGS".
# --icount adds -icount shift=0,sleep=off (deterministic guest time).
# --numa N gives the guest N NUMA nodes (-numa node with a RAM backend
# each): the memory split evenly between them, and the vCPUs too when
# there are at least N (a multiple of N), each node's a socket of its own
# (with the default topology, one socket of cores, the kernel warns that
# a CPU's cache siblings are on another node: a W taint); with fewer
# vCPUs than nodes (make bench's icount boot has one) they are all node
# 0's, the other nodes memory only.
# The default accelerator: x86 and arm64 guests run all vCPUs in one host
# thread (-accel tcg,thread=single): multi-threaded TCG kills x86 guests
# with an int3 Oops at kmem tracepoint sites while their static keys are
# re-patched (text_poke_bp), which every module load and unload and every
# ftrace event toggle does; seen without slab_account loaded.  32-bit ARM
# and riscv64 guests run a thread per vCPU (-accel tcg,thread=multi):
# they patch code under stop_machine(), which with one thread for two
# vCPUs starved RCU for minutes before init (32-bit ARM), and the
# patching CPU is the only one running then.  --icount needs one thread.
# In
# demo mode the guest's own output (kernel messages left out) is streamed
# to stdout as it comes.  Shell mode puts a shell on this terminal with no
# timeout: `exit` or `poweroff -f` in the guest ends it, or Ctrl-A x.  On
# x86 the terminal is the guest's second serial port (ttyS1, sa.tty=ttyS1;
# the session logged to DIR/shell.log) and the first (ttyS0: the firmware,
# the kernel's console, /init's markers) goes to DIR/console.log: no boot
# message on the screen.
# The machines with one UART share it: the kernel boots quiet there
# (loglevel=3), DIR/console.log is the session.  The terminal's size goes
# to the guest as sa.rows= and sa.cols= on the command line (/init sets
# the shell's tty to it; a later resize is not passed on).
# Fails on timeout (the whole boot is bounded), a QEMU error, or a guest
# that did not reach its end (no SA_TAINT= line; not in shell mode).
# A boot that does not reach /init (its line SA_INIT, printed before
# anything of slab_account's) within --boot-timeout seconds is stopped
# and booted again, once (0: no such watch): a riscv64 guest under
# multi-threaded TCG on a loaded host once stayed silent after OpenSBI's
# banner for the whole 600 s (its kernel never printed), in a run whose
# other boots of the same images were all fine.  A hung boot's console is kept in
# DIR/console.hung.N.log (N: the attempt).  Guests on the device-tree
# machines print from early boot (earlycon), so such a log says how far
# the kernel got.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel="" initrd="" mode=test out="" tmo=600 btmo=180 smp=2 mem=512 icount=0 extra=""
numa=1
accel=""
arch=amd64
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift ;;
	--initrd) initrd=$2; shift ;;
	--mode) mode=$2; shift ;;
	--out) out=$2; shift ;;
	--timeout) tmo=$2; shift ;;
	--boot-timeout) btmo=$2; shift ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	--icount) icount=1 ;;
	--arch) arch=$2; shift ;;
	--append) extra=$2; shift ;;
	--accel) accel=$2; shift ;;
	--numa) numa=$2; shift ;;
	*) die "run-qemu.sh: unknown argument $1" ;;
	esac
	shift
done
case "$btmo" in
'' | *[!0-9]*) die "run-qemu.sh: --boot-timeout $btmo: seconds, or 0 for none" ;;
esac
case "$numa" in
'' | *[!0-9]* | 0) die "run-qemu.sh: --numa $numa: a number of nodes, 1 or more" ;;
esac
if [ "$numa" -gt 1 ]; then
	[ $((mem % numa)) = 0 ] || die "run-qemu.sh: --mem $mem does not split into $numa nodes"
	case "$smp" in
	'' | *[!0-9]*) die "run-qemu.sh: --numa $numa needs --smp as a number of vCPUs, not $smp" ;;
	esac
	[ "$smp" -lt "$numa" ] || [ $((smp % numa)) = 0 ] ||
		die "run-qemu.sh: --smp $smp does not split into $numa nodes"
fi
if [ -z "$kernel" ] || [ -z "$initrd" ] || [ -z "$out" ]; then
	die "usage: run-qemu.sh --kernel K --initrd I --mode M --out DIR"
fi
[ -f "$kernel" ] || die "no kernel image $kernel"
[ -f "$initrd" ] || die "no initramfs $initrd"
mkdir -p "$out"
rm -f "$out"/console.hung.*.log "$out/.boot-hung"
: > "$out/console.log"
: > "$out/ktap.log"

case "$arch" in
amd64 | arm64) accel=${accel:-tcg,thread=single} ;;
*) accel=${accel:-tcg,thread=multi} ;;
esac
[ $icount = 0 ] || accel=tcg,thread=single
case "$arch" in
amd64)
	qemu=qemu-system-x86_64 console=ttyS0
	args=(-accel "$accel" -serial "file:$out/console.log" -serial "file:$out/ktap.log")
	;;
arm64)
	qemu=qemu-system-aarch64 console=ttyAMA0
	args=(-M virt -cpu cortex-a57 -accel "$accel" -serial "file:$out/console.log")
	extra="earlycon sa.ktap=console $extra"
	;;
armhf)
	qemu=qemu-system-arm console=ttyAMA0
	args=(-M virt,highmem=off -cpu cortex-a15 -accel "$accel"
	      -serial "file:$out/console.log")
	extra="earlycon sa.ktap=console $extra"
	;;
riscv64)
	qemu=qemu-system-riscv64 console=ttyS0
	args=(-M virt -bios default -accel "$accel"
	      -serial "file:$out/console.log")
	extra="earlycon sa.ktap=console $extra"
	;;
*) die "run-qemu.sh: no QEMU set-up for $arch" ;;
esac
if [ "$mode" = shell ]; then
	# The console (and QEMU's monitor: Ctrl-A c) on this terminal;
	# Ctrl-C goes to the guest, Ctrl-A x quits.
	con=(-chardev "stdio,id=con,mux=on,signal=off,logfile=$out/shell.log"
	     -mon chardev=con)
	if [ "$arch" = amd64 ]; then
		# ttyS0 (the kernel's console) the file, ttyS1 the terminal.
		args=("${args[@]/file:$out\/ktap.log/chardev:con}")
		extra="sa.tty=ttyS1 $extra"
	else
		args=("${args[@]/file:$out\/console.log/chardev:con}")
		con[1]="stdio,id=con,mux=on,signal=off,logfile=$out/console.log"
		extra="loglevel=3 $extra"
	fi
	args+=("${con[@]}")
	rows="" cols=""
	if [ -t 0 ]; then
		read -r rows cols < <(stty size 2>/dev/null) || true
	fi
	case "$rows$cols" in
	'' | *[!0-9]*) ;;
	*) extra="sa.rows=$rows sa.cols=$cols $extra" ;;
	esac
fi
smparg=$smp
[ "$numa" = 1 ] || [ "$smp" -lt "$numa" ] ||
	smparg="$smp,sockets=$numa,cores=$((smp / numa)),threads=1"
args+=(-smp "$smparg" -m "$mem" -nographic -no-reboot
       -display none -monitor none -nic none
       -kernel "$kernel" -initrd "$initrd"
       -append "console=$console panic=-1 sa.mode=$mode $extra")
if [ $icount = 1 ]; then
	args+=(-icount "shift=0,sleep=off")
fi
if [ "$numa" -gt 1 ]; then
	per=$((smp / numa))
	for ((n = 0; n < numa; n++)); do
		if [ "$per" -gt 0 ]; then
			cpus=",cpus=$((n * per))-$((n * per + per - 1))"
		elif [ "$n" = 0 ]; then
			cpus=",cpus=0-$((smp - 1))"
		else
			cpus=""
		fi
		args+=(-object "memory-backend-ram,id=sa-node$n,size=$((mem / numa))M"
		       -numa "node,nodeid=$n$cpus,memdev=sa-node$n")
	done
fi

# Polls the console until /init's line SA_INIT is there or QEMU
# is gone; past $btmo seconds without it, marks the boot hung and stops
# QEMU.
watch_boot() {
	local waited=0
	while kill -0 "$qpid" 2>/dev/null; do
		# Anywhere in a line: kernel messages may share the console's.
		grep -q 'SA_INIT' "$out/console.log" && return 0
		if [ $waited -ge "$btmo" ]; then
			: > "$out/.boot-hung"
			kill "$qpid" 2>/dev/null || true
			return 0
		fi
		sleep 1
		waited=$((waited + 1))
	done
}

kname=$(basename "$kernel") ic=""
[ $icount = 0 ] || ic=", icount"
[ "$numa" = 1 ] || ic+=", $numa NUMA nodes"
start=$(date +%s)
rc=0 hung=0
if [ "$mode" = shell ]; then
	if [ "$arch" = amd64 ]; then
		log "booting ${kname#vmlinuz-} (shell) under QEMU ($accel, $smp CPUs, ${mem} MB$ic): the kernel's messages go to $out/console.log, the session to $out/shell.log; \`exit' powers off, Ctrl-A x stops QEMU"
	else
		log "booting ${kname#vmlinuz-} (shell) under QEMU ($accel, $smp CPUs, ${mem} MB$ic): quiet boot, the session in $out/console.log (the rest: dmesg); \`exit' powers off, Ctrl-A x stops QEMU"
	fi
	"$qemu" "${args[@]}" || rc=$?
else
	log "booting ${kname#vmlinuz-} (mode $mode) under QEMU ($accel, $smp CPUs, ${mem} MB$ic), timeout $tmo s"
	# The first boot that never reaches /init (no SA_INIT line on the
	# console within --boot-timeout seconds: firmware or early kernel
	# boot hung, before slab_account or any test ran) is stopped, its
	# console kept as DIR/console.hung.1.log, and booted once more.
	for attempt in 1 2; do
		: > "$out/console.log"
		: > "$out/ktap.log"
		rm -f "$out/.boot-hung"
		# TERM at the end of the time, KILL 30 s later if QEMU is
		# wedged too far to leave on TERM.
		timeout -k 30 "$tmo" "$qemu" "${args[@]}" </dev/null &
		qpid=$!
		wpid=""
		if [ "$btmo" -gt 0 ]; then
			watch_boot &
			wpid=$!
		fi
		# Interrupted or failing here: take the guest down too.
		trap 'kill $qpid $wpid 2>/dev/null || true' EXIT
		if [ "$mode" = demo ]; then
			# The guest's output as it comes; tail ends with QEMU.
			tail -n +1 -s 0.2 -f --pid="$qpid" "$out/console.log" |
				sed -u -n '/^SA_LOADED/,/^SA_TAINT=/p' |
				grep --line-buffered -Ev '^\[ *[0-9]+\.[0-9]+\]|^SA_' || true
		fi
		rc=0
		wait "$qpid" || rc=$?
		if [ -n "$wpid" ]; then
			kill "$wpid" 2>/dev/null || true
			wait "$wpid" 2>/dev/null || true
		fi
		trap - EXIT
		[ -f "$out/.boot-hung" ] || break
		rm -f "$out/.boot-hung"
		cp "$out/console.log" "$out/console.hung.$attempt.log"
		if [ $attempt = 2 ]; then
			hung=1
			break
		fi
		log "the guest did not reach /init in $btmo s (firmware or early boot hung; the last lines of its console below, all of it in $out/console.hung.$attempt.log): booting it again, once"
		tail -n 5 "$out/console.log" >&2
	done
fi
log "guest finished in $(( $(date +%s) - start )) s"
# A failed boot shows the end of its console (a panic says why).
fail() {
	log "the last 40 lines of $out/console.log:"
	tail -n 40 "$out/console.log" >&2
	die "$1"
}
[ $hung = 0 ] || fail "the guest did not reach /init in $btmo s, twice (see $out/console.log)"
[ $rc -ne 124 ] || fail "guest timed out after $tmo s (see $out/console.log)"
[ $rc -eq 0 ] || fail "qemu failed ($rc)"
if [ "$mode" = shell ]; then
	# Anywhere in a line: on a shared UART a terminal query of the
	# shell's line editing may precede it.
	taint=$(grep -a -o -m 1 'SA_TAINT=[0-9]*' "$out/console.log") || true
	if [ -n "$taint" ]; then
		log "the guest powered off (kernel taint ${taint#SA_TAINT=})"
	else
		log "the guest was stopped (Ctrl-A x) without powering off"
	fi
	exit 0
fi
if [ "$arch" != amd64 ]; then
	sed -n 's/^SA_KTAP: //p' "$out/console.log" > "$out/ktap.log"
fi
grep -q '^SA_TAINT=' "$out/console.log" ||
	fail "guest did not finish (see $out/console.log)"
