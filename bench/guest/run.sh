#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of `make bench` (busybox sh), run by /init in sa.mode=bench
# after it loaded slab_account.  Runs the same workloads under each
# configuration in turn and writes one line per result to /dev/ttyS1:
#   R CONFIG <sa_bench or sabench result line>
#   M KEY VALUE...          memory, call sites, reads
#   SAB_FAIL what           something broke (the host fails the bench)
#   SAB_DONE
# Sizes of the runs: sa.bench=NPAIR,NBATCH,NMIX[,MIXRUNS] on the command line;
# sa.peers=1 runs peers.sh instead (the MAP kernel's boot), sa.scale=cpus
# or sa.scale=ram scale.sh (the scale run's boots).
set -u
# shellcheck source=bench/guest/common.sh
. /bench/common.sh
[ "$PEERS" = 0 ] || exec sh /bench/peers.sh
[ -z "$SCALE" ] || exec sh /bench/scale.sh

workload() {
	for s in $SIZES; do
		run pair "$s" "$NPAIR"
	done
	for s in $SIZES; do
		run batch "$s" "$NBATCH"
	done
	run cpair "$NPAIR"
	run cbatch "$NBATCH"
	shapes
	# The paths slab_account hooks with kprobes (no kmem event of their
	# own): bulk allocs and frees of 16, krealloc in place and moving.
	run bulk $((NBATCH / 16 * 16))
	run realloc "$NPAIR"
	[ "$NCPU" -gt 1 ] && run remote 64 "$NBATCH"
	# Per-CPU scaling: 1 CPU, all at once at one call site, and all at
	# once each at its own, in turn, five times (the report takes the
	# fastest of each: without icount, what else the host runs only ever
	# adds to a run).
	for _ in 1 2 3 4 5; do
		run par 64 "$NPAIR" 1
		[ "$NCPU" -gt 1 ] && run par 64 "$NPAIR" "$NCPU"
		[ "$NCPU" -gt 1 ] && run opar "$NPAIR" "$NCPU"
	done
	mix
}

say "M cpus $NCPU"
say "M kernel $(uname -r)"
say "M sizes $NPAIR $NBATCH $NMIX"
[ -e $SA ] || broke "slab_account was not loaded by /init"
say "M mem_loaded$(meminfo)"
rmmod slab_account || broke "rmmod slab_account"
say "M mem_unloaded$(meminfo)"
insmod $KO/sa_bench.ko || broke "insmod sa_bench"
[ -d $T/events ] || mount -t tracefs nodev $T || broke "mount tracefs"

cfg=warmup
workload

cfg=baseline
workload

cfg=floor
insmod $KO/sa_floor.ko || broke "insmod sa_floor"
workload
rmmod sa_floor || broke "rmmod sa_floor"
say "M floor $(dmesg | sed -n 's/.*sa_floor: counted //p' | tail -n 1)"

cfg=stopped
say "M mem_before$(meminfo)"
insmod $KO/slab_account.ko || broke "insmod slab_account"
say "M mem_after$(meminfo)"
say "M table_memory $(header 'table memory')"
say "M object_table $(dmesg | sed -n 's/.*slab_account: .*(object table \([0-9]*\),.*/\1/p' | tail -n 1)"
say "M object_capacity $(header 'object capacity')"
say "M site_capacity $(header 'call site capacity')"
echo stop > $SA || broke "stop"
workload

cfg=active
echo start > $SA || broke "start"
workload
say "M hooked $(sed -n 's/^hooked \(.*\): \(.*\)/\1=\2/p' $SA | tr '\n' ' ')"
say "M hook_rows $(header 'resized in place') $(header 'missed hook calls') $(awk '/ sab_bulk\+/ { print $8 }' $SA)"
# Every object held now is in sab_hold's row, none was dropped.
d0=$(header 'dropped objects')
run hold 50000
held=$(awk '/ sab_hold\+/ { print $6 }' $SA)
d1=$(header 'dropped objects')
run release
say "M hold 50000 ${held:-0} $((d1 - d0)) $(header 'tracked objects')"
[ "${held:-0}" -eq 50000 ] || broke "hold 50000: sab_hold's row has ${held:-0} live objects"
say "M dropped $(header 'dropped objects') $(header 'dropped sites')"
echo stop > $SA || broke "stop"
rmmod slab_account || broke "rmmod slab_account (2)"

# Full reads of the file with more and more distinct call sites, up to
# 10,000: more than this guest's default call-site capacity (8192 in 512
# MiB), so slab_account is loaded again with max_sites=16384 for them.
insmod $KO/slab_account.ko max_sites=16384 || broke "insmod max_sites=16384"
say "M read_site_capacity $(header 'call site capacity')"
for k in 0 1000 2000 5000 8000 10000; do
	[ "$k" -gt 0 ] && run sites "$k"
	n=$(grep -c 'sab_sites+' $SA)
	[ "$n" -ge "$k" ] || broke "sites $k: only $n sab_sites rows"
	if r=$(sabench read $SA 5); then
		say "M read $k $n $(header 'call sites') $r"
	else
		broke "sabench read"
	fi
done
# The detail file at the most sites: a scan of the object table too.
if r=$(sabench read /proc/slab_account_detail 5); then
	say "M read_detail $n $(header 'object capacity') $r"
else
	broke "sabench read (detail)"
fi
say "M read_dropped $(header 'dropped objects') $(header 'dropped sites')"
rmmod slab_account || broke "rmmod slab_account (3)"

# Active without the kprobes: what the hooks themselves cost.
cfg=hooks=0
insmod $KO/slab_account.ko hooks=0 || broke "insmod hooks=0"
say "M hooked_off $(sed -n 's/^hooked \(.*\): \(.*\)/\1=\2/p' $SA | tr '\n' ' ')"
workload
rmmod slab_account || broke "rmmod slab_account (4)"

# Context rows (issue 33): the pair at sab_shape_one's own call site
# uncaptured, captured (one stack: the same path every time), and under
# each split at load (one context: this shell's task, its cgroup, its
# node), SHAPE_RUNS times each; with the header's figures for the memory
# a stack and a context row take.
ctx_shape() {
	for _ in $(seq $SHAPE_RUNS); do
		run shape one "$NPAIR"
	done
}
ctx_mem() {	# ctx_mem NAME: the header's context figures
	say "M ctx_$1 $(header 'table memory') $(header 'call site capacity') $(header 'stack memory') $(header 'stack capacity') $(header 'stacks') $(header 'context rows') $(header 'captured sites')"
}
cfg=uncaptured
insmod $KO/slab_account.ko || broke "insmod (context rows)"
ctx_shape
ctx_mem uncaptured
cfg=captured
echo "capture sab_shape_one" > $SA || broke "capture sab_shape_one"
ctx_shape
ctx_mem captured
echo "uncapture all" > $SA || broke "uncapture all"
rmmod slab_account || broke "rmmod slab_account (5)"
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts ||
	mount -t cgroup2 none /sys/fs/cgroup || broke "mount cgroup2"
for split in task cgroup node; do
	cfg=split=$split
	if [ "$split" = node ] && [ "$(cat /sys/devices/system/node/online)" = 0 ]; then
		# One node: the load must be refused; nothing to time.
		! insmod $KO/slab_account.ko split=node 2>/dev/null ||
			broke "split=node loaded on one NUMA node"
		say "M ctx_split=node refused: one NUMA node"
		continue
	fi
	insmod $KO/slab_account.ko split=$split || broke "insmod split=$split"
	ctx_shape
	ctx_mem "split=$split"
	rmmod slab_account || broke "rmmod slab_account (split=$split)"
done

ftrace_last
