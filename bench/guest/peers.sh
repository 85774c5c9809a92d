#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The peers' bench (busybox sh), run by run.sh on the MAP kernel's boot
# (sa.peers=1 sysctl.vm.mem_profiling=0: without that boot parameter
# 6.12's profiling, not enabled by default, cannot be switched on at run
# time): the same workloads, in one boot, under each tool a user
# could pick to account kernel memory per call site, in turn:
#   baseline     memory allocation profiling compiled in, off
#   map          the same on (vm.mem_profiling=1)
#   stopped      slab_account loaded, stopped
#   active       slab_account active
#   ebpf-sums    sa_bpf sums (when the image has /usr/bin/sa_bpf)
#   ebpf-ptrs    sa_bpf pointers
#   ftrace       the kmem events recorded into the ring buffer
# Output lines as run.sh's, plus
#   M readcost TOOL <sabench read line> | ebpf-dump SITES NS
#   M allocinfo ROW / M sa_row ROW   both files' rows with live bytes
#   M agree ...                      eBPF pointers vs slab_account's pair row
set -u
# shellcheck source=bench/guest/common.sh
. /bench/common.sh
BPF=/usr/bin/sa_bpf
BPFOUT=/tmp/sa_bpf.out

workload() {
	run pair 64 "$NPAIR"
	run pair 256 "$NPAIR"
	run batch 64 "$NBATCH"
	run cpair "$NPAIR"
	run cbatch "$NBATCH"
	run pages "$NPAIR"
	run bulk $((NBATCH / 16 * 16))
	run realloc "$NPAIR"
	shapes
	# Several mixes in each configuration: the scatter is measured where
	# it arises, and the report takes the median.
	for _ in $(seq "$MIXRUNS"); do
		mix
	done
}

profiling() {	# profiling 0|1
	echo "$1" > /proc/sys/vm/mem_profiling || broke "vm.mem_profiling=$1"
}

# bpf_start MODE: sa_bpf attached, its output in $BPFOUT
bpf_start() {
	: > $BPFOUT
	$BPF "$1" > $BPFOUT 2>&1 &
	bpfpid=$!
	for _ in $(seq 300); do
		grep -q '^sa_bpf: ready' $BPFOUT && return 0
		kill -0 $bpfpid 2>/dev/null || break
		sleep 0.1
	done
	broke "sa_bpf $1 not ready: $(tail -n 3 $BPFOUT | tr '\n' ' ')"
	return 1
}

# bpf_dump: SIGUSR1, until the dump's last line is there (printed)
bpf_dump() {
	n0=$(grep -c '^sa_bpf: dump ' $BPFOUT)
	kill -USR1 $bpfpid || broke "kill -USR1 sa_bpf"
	for _ in $(seq 600); do
		n=$(grep -c '^sa_bpf: dump ' $BPFOUT)
		[ "$n" -gt "$n0" ] && break
		sleep 0.1
	done
	grep '^sa_bpf: dump ' $BPFOUT | tail -n 1
}

bpf_stop() {
	kill -TERM $bpfpid || broke "kill -TERM sa_bpf"
	wait $bpfpid || broke "sa_bpf exited with $?"
}

say "M cpus $NCPU"
say "M kernel $(uname -r)"
say "M sizes $NPAIR $NBATCH $NMIX $MIXRUNS"
[ -e /proc/allocinfo ] || broke "no /proc/allocinfo (MEM_ALLOC_PROFILING)"
[ "$(cat /proc/sys/vm/mem_profiling)" = 0 ] || broke "mem_profiling is on at boot"
[ -e /sys/kernel/btf/vmlinux ] || broke "no /sys/kernel/btf/vmlinux"
[ -e $SA ] || broke "slab_account was not loaded by /init"
rmmod slab_account || broke "rmmod slab_account"
insmod $KO/sa_bench.ko || broke "insmod sa_bench"
[ -d $T/events ] || mount -t tracefs nodev $T || broke "mount tracefs"

cfg=warmup
workload

cfg=baseline
workload

cfg=map
profiling 1
workload
r=$(sabench read /proc/allocinfo 5) || broke "sabench read allocinfo"
say "M readcost map $r"
profiling 0

cfg=stopped
insmod $KO/slab_account.ko || broke "insmod slab_account"
echo stop > $SA || broke "stop"
workload

cfg=active
echo start > $SA || broke "start"
workload
r=$(sabench read $SA 5) || broke "sabench read slab_account"
say "M readcost slab_account $r"

# What each sees, both on at once: a fresh slab_account and profiling
# counting from here (allocations made before are not tagged), sa_bench's
# page, bulk and krealloc paths, 1000 kmalloc(64) held live; then every
# non-empty row of both files.
cfg=compare
rmmod slab_account || broke "rmmod slab_account (2)"
insmod $KO/slab_account.ko || broke "insmod slab_account (2)"
profiling 1
run pages 1000
run bulk 1600
run realloc 1000
run hold 1000
awk 'NR > 2 && $1 > 0' /proc/allocinfo | while read -r l; do
	say "M allocinfo $l"
done
awk '/^ *[0-9]/ && $4 > 0' $SA | while read -r l; do
	say "M sa_row $l"
done
say "M totals allocinfo $(awk 'NR > 2 { b += $1; if ($1 > 0) n++ } END { print b, n }' /proc/allocinfo) slab_account $(header 'current bytes allocated') $(header 'call sites') meminfo$(meminfo)"
run release
profiling 0
rmmod slab_account || broke "rmmod slab_account (3)"

if [ -x $BPF ]; then
	for mode in sums pointers; do
		cfg=ebpf-$mode
		bpf_start $mode || continue
		workload
		d=$(bpf_dump)
		say "M readcost ebpf-$mode ${d#sa_bpf: dump }"
		bpf_stop
	done
	# The pointers mode and slab_account over the same pairs: the same
	# count and bytes at sab_pair.
	cfg=agree
	insmod $KO/slab_account.ko || broke "insmod slab_account (4)"
	if bpf_start pointers; then
		run pair 64 "$NPAIR"
		bpf_dump > /dev/null
		bpf_stop
		# As sa_bpf prints them: allocs frees bytes_alloc bytes_req
		# live live_bytes, from slab_account's total slack req live
		# live_req objs peak allocs/frees.
		sa=$(awk '/ sab_pair\+/ { split($8, a, "/");
			print a[1], a[2], $1, $3, $6, $4 }' $SA)
		bp=$(awk '/^sab_pair\+/ {
			print $(NF-5), $(NF-4), $(NF-3), $(NF-2), $(NF-1), $NF }' $BPFOUT |
			tail -n 1)
		say "M agree slab_account $sa ebpf $bp"
		if [ -z "$sa" ] || [ "$sa" != "$bp" ]; then
			broke "eBPF pointers ($bp) and slab_account ($sa) disagree at sab_pair"
		fi
	fi
	rmmod slab_account || broke "rmmod slab_account (5)"
fi

ftrace_last
