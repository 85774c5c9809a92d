#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What the guest scripts of `make bench` share (sourced by run.sh,
# peers.sh and scale.sh, busybox sh): the sizes from the command line,
# result lines to /dev/ttyS1, or the console marked "SA_KTAP: " where
# there is one UART
# (R CONFIG ..., M KEY ..., SAB_FAIL, see run.sh) and the
# helpers that run one sa_bench or sabench command, read the meminfo and
# the /proc/slab_account header, and switch the kmem events on and off.
# The variables are the sourcing scripts'.
# shellcheck disable=SC2034
OUT=/dev/ttyS1
KO=/lib/slab_account
P=/proc/sa_bench
SA=/proc/slab_account
T=/sys/kernel/tracing
NCPU=$(grep -c '^processor' /proc/cpuinfo)
NPAIR=10000 NBATCH=1000 NMIX=100 MIXRUNS=5 PEERS=0 SCALE=""
# shellcheck disable=SC2013 # (words, not lines)
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	sa.bench=*)
		# shellcheck disable=SC2046 # (split on purpose)
		set -- $(echo "${arg#sa.bench=}" | tr , ' ')
		NPAIR=$1 NBATCH=$2 NMIX=$3 MIXRUNS=${4:-5}
		;;
	sa.peers=1) PEERS=1 ;;
	# The scale run's two boots (scale.sh).
	sa.scale=*) SCALE=${arg#sa.scale=} ;;
	# One UART (the virt machines): lines marked on the console.
	sa.ktap=console) OUT=/tmp/sa_bench.out ;;
	esac
done
SIZES="8 16 32 64 128 256 512 1024 2048 4096 8192 16384"
cfg=setup

say() {
	if [ "$OUT" = /tmp/sa_bench.out ]; then
		echo "SA_KTAP: $*" > /dev/console
	else
		echo "$*" > $OUT
	fi
}
broke() { say "SAB_FAIL $cfg: $*"; echo "SAB_FAIL $cfg: $*"; }

run() {
	if echo "$*" > $P; then
		say "R $cfg $(cat $P)"
	else
		broke "sa_bench '$*': $(cat $P)"
	fi
}

# The shapes of call site (issue 35), SHAPE_RUNS times each, in turn: the
# report takes the median of each and shows the spread.
SHAPES="one vary big burst cache"
SHAPE_RUNS=5
shapes() {
	for _ in $(seq $SHAPE_RUNS); do
		for k in $SHAPES; do
			run shape "$k" "$NPAIR"
		done
	done
}

mix() {
	if r=$(sabench mix "$NMIX"); then
		say "R $cfg $r"
	else
		broke "sabench mix"
	fi
}

meminfo() {	# the module-relevant /proc/meminfo fields, in kB
	awk '/^(MemFree|Slab|VmallocUsed|Percpu):/ { printf " %s %s", $1, $2 }' \
		/proc/meminfo
}

header() {	# header KEY: a summary value of /proc/slab_account
	sed -n "s/^$1: //p" $SA
}

ftrace() {	# ftrace 0|1: record the kmem events, or stop
	for e in kmalloc kmem_cache_alloc kfree kmem_cache_free; do
		echo "$1" > $T/events/kmem/$e/enable || broke "ftrace event $e"
	done
	echo "$1" > $T/tracing_on
}

# The last configuration of both scripts: ftrace recording the kmem
# events over the workload; then sa_bench goes and the host is told.
ftrace_last() {
	cfg=ftrace
	echo 0 > $T/tracing_on
	echo > $T/trace
	ftrace 1
	workload
	ftrace 0
	say "M ftrace_entries_cpu0 $(sed -n 's/^entries: //p' $T/per_cpu/cpu0/stats)"
	rmmod sa_bench || broke "rmmod sa_bench"
	say "SAB_DONE"
	echo "SAB_DONE"
}
