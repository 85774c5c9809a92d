#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make gate-demo`'s guest side (busybox sh; slab_account was loaded by
# /init before anything else): the driver author's loop -- a driver
# loaded, exercised and unloaded, then `slabacct --check` with the rules
# a driver's repository would keep (/gate.rules) as the verdict -- and
# what must not pass.  In order: a driver whose insmod fails (sa_leak.ko
# built with a wrong vermagic: nothing of it to judge, the gate fails),
# the fixed driver (sa_leak.ko leak=0: passes), the leaking one (leak=1:
# fails), rules with the module's name misspelt (fail, saying so), and a
# snapshot cut at the end of a line (the gate cannot run: exit 2).  Each
# verdict's exit status goes to the console (SA_GATE NAME exit N), its
# JUnit XML to the second serial port (/dev/ttyS1) between
# SA_JUNIT_BEGIN/END lines, for the host to check and validate.
set -u
KO=/lib/slab_account
# verdict NAME ARGS...: slabacct --check ARGS as text, its exit status,
# then the same as JUnit for the host.
verdict() {
	name=$1
	shift
	echo "== slabacct --check $*   ($name)"
	slabacct --check "$@"
	rc=$?
	echo "SA_GATE $name exit $rc"
	slabacct --check "$@" --junit -o /tmp/gate.xml 2>/dev/null
	{ echo "SA_JUNIT_BEGIN $name"; cat /tmp/gate.xml; echo "SA_JUNIT_END $name"; } \
		> /dev/ttyS1
}
# driver NAME LEAK: the loop with sa_leak.ko leak=LEAK, then the verdict.
driver() {
	echo
	echo "== $1: insmod sa_leak.ko leak=$2, its work, rmmod"
	insmod $KO/sa_leak.ko leak="$2" || { echo "SA_GATE_FAIL insmod"; return; }
	cat /proc/sa_leak > /dev/null
	rmmod sa_leak
	verdict "$1" --rules /gate.rules
}
echo 1 > /proc/sys/kernel/printk
echo
echo "== noload: insmod sa_leak.ko built with a wrong vermagic (docs/gate.md's init: insmod && tests && rmmod)"
if insmod $KO/badmagic/sa_leak.ko; then
	echo "SA_GATE_FAIL the module with a wrong vermagic loaded"
	rmmod sa_leak
fi
dmesg | grep -m 1 'sa_leak: version magic'	# the kernel's reason (printk is quiet here)
verdict noload --rules /gate.rules
driver fixed 0
driver leaking 1
echo
echo "== typo: the rules name sa_lek, a module that never loaded"
verdict typo -R "live <= 16K module sa_lek" -R "no left-at-unload module sa_lek"
echo
echo "== cut: a snapshot cut at the end of a line (one row fewer than its number of callers)"
cat /proc/slab_account > /tmp/snap.txt
awk '/^number of callers: /{ n = $4 } /^#/{ print; rows = 1; next }
     rows && ++k >= n { exit } { print }' /tmp/snap.txt > /tmp/cut.txt
verdict cut --rules /gate.rules --unloads-file /proc/slab_account_unloads /tmp/cut.txt
echo
echo "== /proc/slab_account_unloads"
cat /proc/slab_account_unloads
echo "SA_GATE_DONE"
