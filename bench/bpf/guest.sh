#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of bench/bpf/check.sh (busybox sh; /bench/run.sh of the
# initramfs, run by /init in sa.mode=bench after it loaded slab_account).
# For each mode of sa_bpf (on the raw tracepoints, then with --classic on
# the classic ones), with slab_account freshly loaded and both
# running at once: sa_bench's pair, batch, cpair, cbatch and hold/release
# workloads, then sa_bpf's dump and /proc/slab_account are compared row by
# row for sa_bench's call sites.  Then the cost of a kmalloc(64)+kfree
# pair (and of a batch) with nothing, each sa_bpf mode, and slab_account,
# and the time of a dump of about 10,000 call sites.
# Lines to /dev/ttyS1:
#   OK what / FAIL what     a check
#   C CONFIG RESULT         a sa_bench result line under CONFIG
#   D VARIANT SITES NS      sa_bpf's dump: sites, time to read the maps
#   L VARIANT LOSSES...     sa_bpf's loss counters at the last dump
#                           (VARIANT: sums, pointers, classic_sums,
#                           classic_pointers)
#   BPF_DONE
# Sizes: sa.bpf=NPAIR,NBATCH,NHOLD,NCOST on the command line.
set -u
OUT=/dev/ttyS1
KO=/lib/slab_account
P=/proc/sa_bench
SA=/proc/slab_account
NPAIR=1000 NBATCH=500 NHOLD=300 NCOST=20000
# shellcheck disable=SC2013 # (words of one line)
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	sa.bpf=*)
		# shellcheck disable=SC2046 # (split on purpose)
		set -- $(echo "${arg#sa.bpf=}" | tr , ' ')
		NPAIR=$1 NBATCH=$2 NHOLD=$3 NCOST=$4
		;;
	esac
done
SIZES="8 16 32 64 128 256 512 1024 2048 4096 8192 16384"
SUMSZ=0
for s in $SIZES; do SUMSZ=$((SUMSZ + s)); done
nfail=0
bpid=""

say() { echo "$*" > $OUT; }
ok() { say "OK $*"; }
fail() { say "FAIL $*"; echo "FAIL $*"; nfail=$((nfail + 1)); }
check() {	# check WHAT GOT WANT
	if [ "$2" = "$3" ]; then ok "$1: $2"; else fail "$1: $2, expected $3"; fi
}

run() {
	echo "$*" > $P || fail "sa_bench '$*': $(cat $P)"
}

# The variants of sa_bpf: MODE, or classic_MODE on the classic tracepoints.
VARIANTS="sums pointers classic_sums classic_pointers"
bpf_args() {
	case "$1" in
	classic_*) echo "--classic ${1#classic_}" ;;
	*) echo "$1" ;;
	esac
}

bpf_start() {	# bpf_start VARIANT: sa_bpf in the background, until ready
	: > /tmp/bpf.out
	# shellcheck disable=SC2046 # (the options and the mode)
	sa_bpf $(bpf_args "$1") > /tmp/bpf.out 2> /tmp/bpf.err &
	bpid=$!
	i=0
	while ! grep -q '^sa_bpf: ready$' /tmp/bpf.out; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 $bpid 2>/dev/null; then
			fail "sa_bpf $1 did not start: $(cat /tmp/bpf.err)"
			bpid=""
			return 1
		fi
		sleep 0.1
	done
}

bpf_dump() {	# bpf_dump MODE FILE: SIGUSR1, the dump's site lines to FILE
	n0=$(grep -c '^sa_bpf: dump ' /tmp/bpf.out)
	kill -USR1 $bpid
	i=0
	while [ "$(grep -c '^sa_bpf: dump ' /tmp/bpf.out)" -le "$n0" ]; do
		i=$((i + 1))
		[ $i -le 300 ] || { fail "sa_bpf $1: no dump"; return 1; }
		sleep 0.1
	done
	# The last dump: the lines after the one before it.
	awk -v n0="$n0" '/^sa_bpf: dump / { d++; next } d == n0 && !/^sa_bpf: /' \
		/tmp/bpf.out > "$2"
	say "D $1 $(sed -n 's/^sa_bpf: dump \([0-9]*\) sites in \([0-9]*\) ns$/\1 \2/p' /tmp/bpf.out | tail -n 1)"
	say "L $1 $(sed -n 's/^sa_bpf: losses //p' /tmp/bpf.out | tail -n 1)"
}

bpf_stop() {
	[ -n "$bpid" ] || return 0
	kill -TERM $bpid
	wait $bpid
	rc=$?
	[ $rc -eq 0 ] || fail "sa_bpf exited $rc on SIGTERM: $(cat /tmp/bpf.err)"
	bpid=""
}

# sa_bench's rows of slab_account as "SITE allocs frees total req live objs"
# (SITE: symbol+0xoff, the length left out), and sa_bpf's as
# "SITE allocs frees bytes_alloc bytes_req live_bytes live".
sa_rows() {
	awk '$11 == "[sa_bench]" { split($8, af, "/"); s = $10; sub("/.*", "", s);
		print s, af[1], af[2], $1, $3, $4, $6 }' $SA | sort
}
bpf_rows() {
	awk '$2 == "[sa_bench]" { s = $1; sub("/.*", "", s);
		print s, $3, $4, $5, $6, $8, $7 }' "$1" | sort
}
# Sums of a column over the sites of one function.
fsum() {	# fsum FILE FUNC COLUMN
	awk -v f="$2" -v c="$3" '{ s = $1; sub("\\+.*", "", s) }
		s == f { t += $c } END { print t + 0 }' "$1"
}

compare() {	# compare MODE WHEN
	m=$1 w=$2
	bpf_dump "$m" /tmp/bpf.rows || return 1
	sa_rows > /tmp/sa.cmp
	bpf_rows /tmp/bpf.rows > /tmp/bpf.cmp
	n=$(wc -l < /tmp/sa.cmp)
	[ "$n" -gt 0 ] || fail "$m $w: no sa_bench rows in slab_account"
	case "$m" in
	*pointers) ptrs=1 ;;
	*) ptrs=0 ;;
	esac
	if [ $ptrs = 1 ]; then
		# Every column of every row, frees charged to the allocating site.
		if cmp -s /tmp/sa.cmp /tmp/bpf.cmp; then
			ok "$m $w: $n sa_bench rows identical (allocs frees bytes live)"
		else
			fail "$m $w: rows differ (slab_account < > sa_bpf):"
			diff /tmp/sa.cmp /tmp/bpf.cmp > $OUT
		fi
	else
		# Allocation columns per allocating site; frees where they
		# happened: per function, and for the whole module.
		cut -d' ' -f1,2,4,5 /tmp/sa.cmp > /tmp/sa.a
		awk '$2 > 0 { print $1, $2, $4, $5 }' /tmp/bpf.cmp > /tmp/bpf.a
		if cmp -s /tmp/sa.a /tmp/bpf.a; then
			ok "$m $w: $n allocating sites identical (allocs bytes_alloc bytes_req)"
		else
			fail "$m $w: allocating sites differ (slab_account < > sa_bpf):"
			diff /tmp/sa.a /tmp/bpf.a > $OUT
		fi
		for f in sab_pair sab_batch sab_cpair sab_cbatch; do
			check "$m $w: $f frees" "$(fsum /tmp/bpf.cmp $f 3)" \
				"$(fsum /tmp/sa.cmp $f 3)"
		done
		check "$m $w: sa_bench frees (sab_release's are sab_hold's)" \
			"$(awk '{ t += $3 } END { print t + 0 }' /tmp/bpf.cmp)" \
			"$(awk '{ t += $3 } END { print t + 0 }' /tmp/sa.cmp)"
	fi
	# What the workload makes exact, in both tools.
	for t in sa bpf; do
		check "$m $w: $t sab_pair allocs" "$(fsum /tmp/$t.cmp sab_pair 2)" \
			$((12 * NPAIR))
		check "$m $w: $t sab_pair bytes_req" "$(fsum /tmp/$t.cmp sab_pair 5)" \
			$((SUMSZ * NPAIR))
		check "$m $w: $t sab_batch allocs" "$(fsum /tmp/$t.cmp sab_batch 2)" \
			$((12 * NBATCH))
		check "$m $w: $t sab_cpair bytes_req" "$(fsum /tmp/$t.cmp sab_cpair 5)" \
			$((200 * NPAIR))
		check "$m $w: $t sab_hold allocs" "$(fsum /tmp/$t.cmp sab_hold 2)" \
			"$NHOLD"
	done
	if [ $ptrs = 1 ]; then
		live=$NHOLD
		[ "$w" = released ] && live=0
		check "$m $w: sa_bpf sab_hold live" "$(fsum /tmp/bpf.cmp sab_hold 7)" "$live"
		check "$m $w: sa_bpf sab_hold live bytes" \
			"$(fsum /tmp/bpf.cmp sab_hold 6)" $((64 * live))
	fi
}

say "M kernel $(uname -r)"
say "M cpus $(grep -c '^processor' /proc/cpuinfo)"
say "M sizes $NPAIR $NBATCH $NHOLD $NCOST"
[ -e $SA ] || fail "slab_account was not loaded by /init"
insmod $KO/sa_bench.ko || fail "insmod sa_bench"
# The classic tracepoints are attached by their ids in tracefs.
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T || fail "mount tracefs"

for mode in $VARIANTS; do
	# A fresh slab_account, then sa_bpf: both see every sa_bench event.
	rmmod slab_account || fail "rmmod slab_account"
	insmod $KO/slab_account.ko || fail "insmod slab_account"
	bpf_start "$mode" || continue
	for s in $SIZES; do
		run pair "$s" "$NPAIR"
		run batch "$s" "$NBATCH"
	done
	run cpair "$NPAIR"
	run cbatch "$NBATCH"
	run hold "$NHOLD"
	compare "$mode" held
	run release
	compare "$mode" released
	say "M $mode slab_account $(sed -n 's/^\(unknown frees\|missed frees\|dropped objects\|dropped sites\): /\1=/p' $SA | tr ' \n' '_ ')"
	bpf_stop
done

# What a pair and a batch cost: 3 runs under each configuration.
cost() {	# cost CONFIG
	for i in 1 2 3; do
		run pair 64 "$NCOST"
		say "C $1 $(cat $P)"
		run batch 64 "$NBATCH"
		say "C $1 $(cat $P)"
	done
}
rmmod slab_account || fail "rmmod slab_account"
cost baseline
for mode in $VARIANTS; do
	bpf_start "$mode" || continue
	cost "bpf_$mode"
	bpf_dump "$mode" /tmp/bpf.rows
	# A dump of about 10,000 more sites: sums mode counts each
	# SAB_SITE's kfree at a site of its own too.
	case "$mode" in
	*pointers) run sites 10000 ;;
	*) run sites 5000 ;;
	esac
	bpf_dump "$mode" /tmp/bpf.rows
	bpf_stop
done
insmod $KO/slab_account.ko || fail "insmod slab_account"
cost slab_account
echo stop > $SA
cost slab_account_stopped
rmmod slab_account || fail "rmmod slab_account"

say "M failures $nfail"
say "BPF_DONE"
