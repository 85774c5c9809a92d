#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of `make bench`'s scale run (busybox sh; run.sh hands
# over to it when the command line has sa.scale=cpus or sa.scale=ram).
# Writes the same kind of result lines as run.sh (R, M, SAB_FAIL,
# SAB_DONE) to /dev/ttyS1; scripts/bench-report.py makes the scale table.
#   cpus  a guest with many possible CPUs (-smp 2,maxcpus=...): what the
#         module's tables and counters take, and the time of a full read
#         of /proc/slab_account with 10,000 generated call sites, before
#         and right after a reset
#   ram   a guest with much RAM: the default sizing, a few million live
#         kmalloc(64) objects held (dropped objects), then the same reads
#         as in cpus with the 2 possible CPUs of this guest
set -u
# shellcheck source=bench/guest/common.sh
. /bench/common.sh
cfg=scale-$SCALE
SITES=10000

# header KEY, or n/a when this module's header has no such key.
hdr() {
	v=$(header "$1")
	echo "${v:-n/a}"
}

# The header's size keys, one M line: M NAME KEY=VALUE ...
sizes() {
	say "M $1 table_memory=$(hdr 'table memory')" \
		"counter_memory=$(hdr 'counter memory')" \
		"counter_cpus=$(hdr 'counter cpus')" \
		"object_capacity=$(hdr 'object capacity')" \
		"site_capacity=$(hdr 'call site capacity')"
}

# What /proc/vmallocinfo attributes to slab_account: areas and bytes.
vmalloc() {
	awk '/\[slab_account\]/ { n++; b += $2 } END { printf "%d %d", n, b }' \
		/proc/vmallocinfo
}

# load NAME [PARAMS...]: slab_account loaded again, meminfo around it.
load() {
	name=$1
	shift
	[ ! -d /sys/module/slab_account ] || rmmod slab_account ||
		broke "rmmod slab_account"
	say "M mem_before_$name$(meminfo)"
	insmod $KO/slab_account.ko "$@" || broke "insmod slab_account $*"
	say "M mem_after_$name$(meminfo)"
	say "M vmalloc_$name $(vmalloc)"
	sizes "sizes_$name"
}

# read_timed NAME REPS: full reads of the file (sabench read), as M NAME.
read_timed() {
	if r=$(sabench read $SA "$2"); then
		say "M $1 $(header 'call sites') $r"
	else
		broke "sabench read ($1)"
	fi
}

# The reads with SITES generated call sites populated: before a reset
# (rows full), the first read right after it (every site empty, each
# still summed over every CPU with counters), then 5 more.
reads() {
	load reads max_sites=16384
	run sites $SITES
	n=$(grep -c 'sab_sites+' $SA)
	[ "$n" -ge $SITES ] || broke "sites $SITES: only $n sab_sites rows"
	read_timed read_before 5
	echo reset > $SA || broke "reset"
	read_timed read_reset_first 1
	read_timed read_reset 5
}

say "M cpus $NCPU"
say "M kernel $(uname -r)"
say "M possible $(cat /sys/devices/system/cpu/possible)"
say "M nr_possible $(tr , '\n' < /sys/devices/system/cpu/possible |
	awk -F- '{ n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n }')"
say "M present $(cat /sys/devices/system/cpu/present)"
say "M online $(cat /sys/devices/system/cpu/online)"
say "M memtotal $(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)"
say "M allowing $(dmesg | sed -n 's/.*smpboot: \(Allowing .*\)/\1/p' | head -n 1)"
[ -e $SA ] || broke "slab_account was not loaded by /init"
# As /init loaded it: the default sizing for this guest.
sizes sizes_boot
insmod $KO/sa_bench.ko || broke "insmod sa_bench"

case "$SCALE" in
cpus)
	reads
	;;
ram)
	load default
	d0=$(header 'dropped objects')
	run hold_many 4000000
	held=$(awk '/ sab_hold_many\+/ { print $6 }' $SA)
	say "M held 4000000 ${held:-0} $d0 $(header 'dropped objects')" \
		"$(header 'tracked objects') $(header 'object capacity')" \
		"$(header 'table memory') $(header 'current objects')"
	say "M advised $(hdr 'advised max_objects')"
	say "M mem_held$(meminfo)"
	run release
	say "M released $(header 'tracked objects') $(header 'dropped objects')" \
		"$(header 'unknown frees')"
	reads
	;;
*)
	broke "sa.scale=$SCALE (cpus or ram)"
	;;
esac
say "M dropped $(header 'dropped objects') $(header 'dropped sites')"
rmmod sa_bench || broke "rmmod sa_bench"
rmmod slab_account || broke "rmmod slab_account"
say "M mem_unloaded$(meminfo)"
say "SAB_DONE"
echo "SAB_DONE"
