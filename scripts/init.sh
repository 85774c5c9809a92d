#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the test initramfs (busybox sh).  Mounts proc, sysfs, devtmpfs
# and /tmp, stops the boot-time trace if the command line asked for one
# (trace_event=: then tracefs is mounted and tracing_on set to 0), loads /lib/slab_account/slab_account.ko before anything else
# (module parameters from the kernel command line's sa.params="a=1 b=2",
# or sa.params=a=1,b=2) and prints SA_LOADED (or SA_LOAD_FAILED); then by
# the command line's sa.mode=:
#   test   runs the kselftest collection sa.suite= (default slab_account;
#          slab_account_rel: the stress and oracle tests) of the install in
#          /kselftest, KTAP to /dev/ttyS1 (to the console, each line
#          prefixed "SA_KTAP: ", with sa.ktap=console)
#   demo   runs /demo.sh on the console
#   bench  runs /bench/run.sh (make bench; results to /dev/ttyS1)
#   shell  an interactive shell on the terminal: the command line's
#          sa.tty= (a serial port that is not the kernel's console), else
#          the console's own; its size from sa.rows= and sa.cols= (the host
#          terminal's)
# (test mode on a debug kernel: then lockdep's state and a kmemleak scan,
# see debug_report), then prints SA_TAINT=<kernel taint> and powers off,
# whatever happened.  SA_INIT, printed before anything of slab_account's
# runs, tells run-qemu.sh that the boot reached /init.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp

cmdline=$(cat /proc/cmdline)
# The boot-time trace recipe (docs/kernels.md, "Boot-time coverage"): with
# trace_event= on the command line the kmem events have been recorded
# since early boot; stop recording before anything of ours runs, so that
# the buffer holds the boot alone (sa_boottrace_test reads it, imports it
# with slabacct --from-trace and gives the buffer's memory back).
case "$cmdline" in
*trace_event=*)
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
	if echo 0 > /sys/kernel/tracing/tracing_on; then
		echo "SA_BOOT_TRACE_STOPPED=$(cut -d ' ' -f 1 /proc/uptime)"
	else
		echo "SA_BOOT_TRACE_STOPPED=failed"
	fi
	;;
esac
echo "SA_INIT"
case "$cmdline" in
*'sa.params="'*)
	params=${cmdline#*sa.params=\"}
	params=${params%%\"*}
	;;
*sa.params=*)
	params=${cmdline#*sa.params=}
	params=$(echo "${params%% *}" | tr , ' ')
	;;
*) params="" ;;
esac
# shellcheck disable=SC2086
if insmod /lib/slab_account/slab_account.ko $params; then
	echo "SA_LOADED"
else
	echo "SA_LOAD_FAILED"
fi

# From here on, leave by powering off, whatever fails.
# shellcheck disable=SC2317 # (called by the trap)
finish() {
	if [ "$mode" = shell ]; then
		# On a console shared with the terminal: erased from the
		# screen as soon as written (run-qemu.sh finds it in the log).
		printf 'SA_TAINT=%s\r\033[K\n' "$(cat /proc/sys/kernel/tainted)"
	else
		echo "SA_TAINT=$(cat /proc/sys/kernel/tainted)"
	fi
	sync
	poweroff -f
}
trap finish EXIT

# What udev would create; the kselftest runner writes to /dev/stdout.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr

# After the tests, on a debug kernel (scripts/debug-kernel.sh): whether
# lockdep is still on (SA_DEBUG_LOCKS=1; a lock splat or a full lockdep
# table turns it off), and a kmemleak scan: the report's lines prefixed
# "SA_KMEMLEAK: ", then SA_KMEMLEAK=<number of objects reported> (or
# SA_KMEMLEAK=error), taken after unloading sa_stress, sa_test and
# slab_account.  check-boot.sh judges them.  Nothing is printed on
# kernels without lockdep or kmemleak.
debug_report() {
	if [ -r /proc/lockdep_stats ]; then
		echo "SA_DEBUG_LOCKS=$(awk '$1 == "debug_locks:" { print $2 }' \
			/proc/lockdep_stats)"
	fi
	[ -d /sys/kernel/debug ] || return 0
	grep -q ' /sys/kernel/debug ' /proc/mounts ||
		mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || return 0
	kml=/sys/kernel/debug/kmemleak
	[ -e $kml ] || return 0
	# Unloaded, our modules' objects still held are leaks too (their
	# backtraces then show bare addresses); a test that failed may have
	# left sa_stress storming.
	for m in sa_takeback sa_stress sa_age sa_leak sa_leak_b sa_ctx sa_test \
	    slab_account; do
		[ ! -d /sys/module/$m ] || rmmod $m || echo "SA_RMMOD_FAILED=$m"
	done
	# kmemleak reports objects older than 5 s that no memory points to;
	# the second scan lets transient ones (in flight during the first)
	# be referenced again.  Suspects then: before any is blamed, let the
	# pending RCU callbacks run (what they free is no leak: the kernel
	# frees our old tracepoint probe arrays in RCU, then tracepoint_srcu,
	# callbacks) and scan again, as kmemleak's documentation advises for
	# transient references.  slab_account's unload waits for them
	# (rcu_barrier(), srcu_barrier()): a load and an unload of it.  What
	# the last scan still reports is judged (SA_KMEMLEAK_FIRST: the
	# suspects before that).
	if echo scan > $kml && sleep 6 && echo scan > $kml; then
		n=$(grep -c '^unreferenced object' $kml)
		if [ "$n" -ne 0 ]; then
			echo "SA_KMEMLEAK_FIRST=$n"
			if ! insmod /lib/slab_account/slab_account.ko ||
			   ! rmmod slab_account; then
				echo "SA_KMEMLEAK_BARRIER=failed"
			fi
			sleep 6
			if ! { echo scan > $kml && sleep 6 &&
			       echo scan > $kml; }; then
				echo "SA_KMEMLEAK=error"
				return 0
			fi
		fi
		# One read: the records printed are the ones counted.
		cat $kml > /tmp/kmemleak.txt
		sed 's/^/SA_KMEMLEAK: /' /tmp/kmemleak.txt
		echo "SA_KMEMLEAK=$(grep -c '^unreferenced object' /tmp/kmemleak.txt)"
	else
		echo "SA_KMEMLEAK=error"
	fi
}

mode=test ktap=/dev/ttyS1 suite=slab_account rows="" cols="" console="" tty=""
for arg in $cmdline; do
	case "$arg" in
	sa.mode=*) mode=${arg#sa.mode=} ;;
	sa.ktap=console) ktap=console ;;
	sa.suite=*) suite=${arg#sa.suite=} ;;
	sa.rows=*) rows=${arg#sa.rows=} ;;
	sa.tty=*) tty=/dev/${arg#sa.tty=} ;;
	sa.cols=*) cols=${arg#sa.cols=} ;;
	console=*) console=${arg#console=} ;;
	esac
done
echo "SA_MODE=$mode"
export SA_KO_DIR=/lib/slab_account PATH=/usr/bin:/bin:/usr/sbin:/sbin

case "$mode" in
test)
	if [ ! -x /kselftest/run_kselftest.sh ]; then
		echo "SA_NO_TESTS: /kselftest/run_kselftest.sh is missing"
	elif [ "$ktap" = console ]; then
		# One serial port: KTAP lines marked on the console.
		(cd /kselftest && ./run_kselftest.sh -c "$suite") 2>&1 |
			sed 's/^/SA_KTAP: /' > /dev/console
	else
		(cd /kselftest && ./run_kselftest.sh -c "$suite") > "$ktap" 2>&1
	fi
	echo "SA_TESTS_DONE"
	debug_report
	;;
demo)
	if [ -f /demo.sh ]; then sh /demo.sh; else echo "SA_NO_DEMO: /demo.sh is missing"; fi
	;;
bench)
	sh /bench/run.sh
	;;
shell)
	[ -n "$tty" ] || tty=/dev/${console%%,*}
	# The size is the open tty's: set it where the shell holds it open.
	size=""
	if [ -n "$rows" ] && [ -n "$cols" ]; then
		size="stty rows $rows cols $cols || echo SA_STTY_FAILED=$rows:$cols >/dev/console; "
	fi
	if [ -d /sys/module/slab_account ]; then
		what="slab_account is loaded: slabacct -n 10 -H; sh /demo.sh"
	else
		what="slab_account did not load (see dmesg)"
	fi
	echo "$what; dmesg for the boot; exit powers off" > "$tty"
	setsid sh -c "exec <$tty >$tty 2>&1; ${size}exec sh"
	;;
*)
	echo "SA_BAD_MODE: sa.mode=$mode (test, demo, bench or shell)"
	;;
esac
exit 0
