#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make gate-demo`'s guest side (busybox sh; slab_account was loaded by
# /init before anything else): the driver author's loop, twice -- a
# driver loaded, exercised and unloaded, then `slabacct --check` with the
# rules a driver's repository would keep (/gate.rules) as the verdict.
# First the fixed driver (sa_leak.ko leak=0), then the leaking one
# (leak=1).  Each verdict's JUnit XML goes to the second serial port
# (/dev/ttyS1) between SA_JUNIT_BEGIN/END lines for the host, which
# validates it and checks the exit statuses: 0, then 1.
set -u
KO=/lib/slab_account
gate() {	# gate NAME LEAK
	echo
	echo "== $1: insmod sa_leak.ko leak=$2, its work, rmmod"
	insmod $KO/sa_leak.ko leak="$2" || { echo "SA_GATE_FAIL insmod"; return; }
	cat /proc/sa_leak > /dev/null
	rmmod sa_leak
	echo "== slabacct --check --rules gate.rules   ($1)"
	slabacct --check --rules /gate.rules
	rc=$?
	echo "SA_GATE $1 exit $rc"
	slabacct --check --rules /gate.rules --junit -o /tmp/gate.xml
	{ echo "SA_JUNIT_BEGIN $1"; cat /tmp/gate.xml; echo "SA_JUNIT_END $1"; } \
		> /dev/ttyS1
}
echo 1 > /proc/sys/kernel/printk
gate fixed 0
gate leaking 1
echo
echo "== /proc/slab_account_unloads"
cat /proc/slab_account_unloads
echo "SA_GATE_DONE"
