#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the test initramfs (busybox sh).  Loads slab_account before
# anything else, then by the kernel command line's sa.mode=:
#   test   runs the kselftest collection sa.suite= (default slab_account;
#          slab_account_rel: the stress and oracle tests) of the install in
#          /kselftest, KTAP to /dev/ttyS1 (to the console, each line
#          prefixed "SA_KTAP: ", with sa.ktap=console)
#   demo   runs /demo.sh on the console
#   bench  runs /bench/run.sh (make bench; results to /dev/ttyS1)
#   shell  an interactive shell on the console
# then powers off.  sa.params="..." are slab_account's module parameters.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
# What udev would create; the kselftest runner writes to /dev/stdout.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr

mode=test params="" ktap=/dev/ttyS1 suite=slab_account
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	sa.mode=*) mode=${arg#sa.mode=} ;;
	sa.ktap=console) ktap=console ;;
	sa.suite=*) suite=${arg#sa.suite=} ;;
	sa.params=*) params=$(echo "${arg#sa.params=}" | tr , ' ') ;;
	esac
done

# shellcheck disable=SC2086
if insmod /lib/slab_account/slab_account.ko $params; then
	echo "SA_LOADED"
else
	echo "SA_LOAD_FAILED"
fi
export SA_KO_DIR=/lib/slab_account PATH=/usr/bin:/bin:/usr/sbin:/sbin

case "$mode" in
test)
	if [ "$ktap" = console ]; then
		# One serial port: KTAP lines marked on the console.
		(cd /kselftest && ./run_kselftest.sh -c "$suite") 2>&1 |
			sed 's/^/SA_KTAP: /' > /dev/console
	else
		(cd /kselftest && ./run_kselftest.sh -c "$suite") > "$ktap" 2>&1
	fi
	echo "SA_TESTS_DONE"
	;;
demo)
	sh /demo.sh
	;;
bench)
	sh /bench/run.sh
	;;
shell)
	setsid sh -c 'exec sh </dev/ttyS0 >/dev/ttyS0 2>&1'
	;;
esac
echo "SA_TAINT=$(cat /proc/sys/kernel/tainted)"
sync
poweroff -f
