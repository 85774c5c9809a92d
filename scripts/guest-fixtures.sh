#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `scripts/ci.sh fixtures`'s guest side (busybox sh; /init loaded
# slab_account without parameters): real format 1.6 files for the host
# tests of the reader's context views (tests/host/fixtures/guest_*).
# slab_account is loaded again for each scene, sa_ctx.ko (one site,
# sa_ctx_site, reached from sa_ctx_a, sa_ctx_b and sa_ctx_c) makes the
# allocations, and each scene starts with a reset, so that its files are
# small.  On a guest with one NUMA node:
#   cgroup      split=cgroup: two cgroups (sactx_one, sactx_two) and a
#               hard irq allocating, frees from elsewhere
#   task        split=task: two tasks named "sactx one" and "sactx@two",
#               an irq, a free on the other CPU
#   stack       capture sa_ctx_site: the three callers (c also from a
#               hard irq), objects allocated before the capture, frees
#               here, from RCU and on the other CPU; read twice, 11 s
#               apart (--leaks over two snapshots)
#   stack_cgroup  split=cgroup with capture sa_ctx_site
# on a guest with two (run-qemu.sh --numa 2):
#   node        split=node: objects on node 0 and node 1
# Each scene's files are read while slab_account is stopped (the header's
# sums are then the rows'), and sent whole, unedited, to the second serial
# port (/dev/ttyS1) as base64 between the lines
#   SA_FILE_BEGIN NAME SHA256 BYTES
#   SA_FILE_END NAME
# for the host to decode and check.  NAME is the scene and the file:
# SCENE.txt (/proc/slab_account), SCENE.detail, SCENE.stacks, SCENE.books
# (/proc/sa_ctx: sa_ctx's own count of what it allocated and freed), and
# for cgroups cgroup.ids (`ID PATH` of the root and the cgroups made,
# from their directories' inode numbers: the ids on a 64-bit kernel),
# and what this guest's slabacct makes of cgroup.txt with the real cgroup2
# tree to walk: cgroup.by_cgroup (-b cgroup: the paths) and
# cgroup.sactx_one (--cgroup /sactx_one), stderr included.  A step that fails prints SA_FIX_FAIL on the
# console; the host refuses the run then.  SA_FIX_DONE ends it.
# The committed tests/host/fixtures/guest_* came from Debian's
# 6.1.0-56-amd64 (6.1.192-2), with module/ and tests/kmod/sa_ctx.c as of
# 9de78c6 and the guest's slabacct as of 04797d5 (docs/testing.md, "The
# reader's fixtures from real guests").
set -u
KO=/lib/slab_account
CG=/sys/fs/cgroup
OUT=/dev/ttyS1

fail() {
	echo "SA_FIX_FAIL $*"
}

# ctx CMD...: one command to sa_ctx, written by this shell.
ctx() {
	echo "$*" > /proc/sa_ctx || fail "sa_ctx: $*"
}

# in_cgroup CG CMD...: the command written by a child shell that moved
# itself into cgroup CG (its own $$: a subshell's is its parent's).
in_cgroup() {
	cg=$1
	shift
	sh -c 'echo $$ > "$1" && echo "$2" > /proc/sa_ctx' sh \
		$CG/"$cg"/cgroup.procs "$*" || fail "in cgroup $cg: $*"
}

# as_task NAME CMD...: the command written by a child named NAME.
as_task() {
	name=$1
	shift
	(printf '%s' "$name" > /proc/self/comm && echo "$*" > /proc/sa_ctx) ||
		fail "as task $name: $*"
}

# reload PARAMS...: slab_account loaded again with PARAMS (sa_ctx's objects
# freed first: they would be unknown frees of the new load), and sa_ctx
# loaded after it; then a reset.
reload() {
	if [ -d /sys/module/sa_ctx ]; then
		ctx free all
		rmmod sa_ctx || fail "rmmod sa_ctx"
	fi
	rmmod slab_account || fail "rmmod slab_account"
	insmod $KO/slab_account.ko "$@" || fail "insmod slab_account.ko $*"
	insmod $KO/sa_ctx.ko || fail "insmod sa_ctx.ko"
	echo reset > /proc/slab_account || fail reset
}

# emit NAME FILE: FILE to the host, between the markers.
emit() {
	{
		echo "SA_FILE_BEGIN $1 $(sha256sum < "$2" | cut -d ' ' -f 1) $(wc -c < "$2")"
		base64 "$2"
		echo "SA_FILE_END $1"
	} > $OUT
}

# snap SCENE: the scene's files read while stopped, sent to the host.
snap() {
	echo stop > /proc/slab_account || fail stop
	cat /proc/slab_account > /tmp/"$1".txt
	cat /proc/slab_account_detail > /tmp/"$1".detail
	cat /proc/slab_account_stacks > /tmp/"$1".stacks
	cat /proc/sa_ctx > /tmp/"$1".books
	echo start > /proc/slab_account || fail start
	for f in txt detail stacks books; do
		emit "$1.$f" /tmp/"$1.$f"
	done
	echo "SA_FIX_SCENE $1 $(grep -c '' /tmp/"$1".txt) lines"
}

echo 1 > /proc/sys/kernel/printk
echo "== guest fixtures: $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"

if [ -d /sys/devices/system/node/node1 ]; then
	echo "== node: split=node, two NUMA nodes"
	reload split=node
	ctx alloc a 6 1000 tag=1 node=0
	ctx alloc a 4 1000 tag=2 node=1
	ctx alloc b 3 20000 tag=3 node=1
	ctx free a 1 tag=1
	ctx free a 2 tag=2 irq
	ctx free b 1 tag=3
	sleep 2
	snap node
	echo "SA_FIX_DONE"
	exit 0
fi

mount -t cgroup2 none $CG || fail "mount cgroup2"
mkdir $CG/sactx_one $CG/sactx_two || fail "mkdir cgroups"
{
	echo "$(stat -c %i $CG) /"
	for d in sactx_one sactx_two; do
		echo "$(stat -c %i $CG/$d) /$d"
	done
} > /tmp/cgroup.ids

echo "== cgroup: split=cgroup, two cgroups and a hard irq"
reload split=cgroup
in_cgroup sactx_one alloc a 9 100 tag=1
in_cgroup sactx_two alloc a 4 100 tag=2
ctx free a 2 tag=1
in_cgroup sactx_two free a 1 tag=2
ctx alloc b 3 100 tag=3 irq
ctx free b 1 tag=3
in_cgroup sactx_one alloc c 5 600 tag=4
in_cgroup sactx_two free c 2 tag=4
sleep 2
snap cgroup
emit cgroup.ids /tmp/cgroup.ids
slabacct --no-summary -b cgroup /tmp/cgroup.txt > /tmp/cgroup.by_cgroup 2>&1 ||
	fail "slabacct -b cgroup"
emit cgroup.by_cgroup /tmp/cgroup.by_cgroup
slabacct --no-summary --cgroup /sactx_one /tmp/cgroup.txt > /tmp/cgroup.sactx_one 2>&1 ||
	fail "slabacct --cgroup /sactx_one"
emit cgroup.sactx_one /tmp/cgroup.sactx_one

echo "== stack_cgroup: split=cgroup and capture sa_ctx_site"
reload split=cgroup
in_cgroup sactx_one alloc a 2 200 tag=1
echo capture sa_ctx_site > /proc/slab_account || fail "capture sa_ctx_site"
in_cgroup sactx_one alloc a 5 200 tag=2
in_cgroup sactx_two alloc b 3 500 tag=3
in_cgroup sactx_two alloc a 2 200 tag=4
ctx alloc c 2 64 tag=5 irq
ctx free a 2 tag=2
in_cgroup sactx_one free b 1 tag=3
sleep 2
snap stack_cgroup

echo "== task: split=task, two named tasks and a hard irq"
reload split=task
as_task "sactx one" alloc c 5 300 tag=4
as_task "sactx@two" alloc c 8 300 tag=5
ctx free c 2 tag=4
ctx free c 3 tag=5 cpu=1
ctx alloc a 2 200 tag=6 irq
sleep 2
snap task

echo "== stack: capture sa_ctx_site, three callers"
reload
ctx alloc a 3 200 tag=0
echo capture sa_ctx_site > /proc/slab_account || fail "capture sa_ctx_site"
ctx alloc a 6 200 tag=1
ctx alloc b 4 500 tag=2
ctx alloc c 3 1000 tag=3
ctx alloc c 2 1000 tag=4 irq
ctx free a 2 tag=1
ctx free b 1 tag=2 rcu
ctx free c 1 tag=3 cpu=1
sleep 3
ctx alloc b 2 500 tag=2
snap stack
ctx alloc a 4 200 tag=5
ctx free c 1 tag=4
sleep 11
snap stack_later

rmdir $CG/sactx_one $CG/sactx_two 2>/dev/null
echo "SA_FIX_DONE"
