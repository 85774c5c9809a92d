#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The demo's guest side (busybox sh): slab_account was loaded by /init
# before anything else; run a small workload and report through slabacct.
set -u
echo
echo "== slab_account demo: $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
cp /proc/slab_account /tmp/before
cp /proc/slab_account_detail /tmp/detail.before

echo "== workload: files on tmpfs, pipes, processes, a /sys walk"
mkdir -p /tmp/w
i=0
while [ $i -lt 200 ]; do
	echo "$i" > /tmp/w/f$i
	i=$((i + 1))
done
ls -l /tmp/w > /dev/null
rm -f /tmp/w/f1*
i=0
while [ $i -lt 50 ]; do
	echo x | cat > /dev/null
	i=$((i + 1))
done
find /sys/kernel /sys/class > /dev/null 2>&1
cp /proc/slab_account /tmp/after
# Ages need time: the detail file again a few seconds later.
sleep 5
cp /proc/slab_account_detail /tmp/detail.after

echo
echo "== slabacct -n 15 -H   (top call sites by bytes allocated since load)"
slabacct -n 15 -H /tmp/after
echo
echo "== slabacct -s live -n 10 -H   (who holds the most memory now)"
slabacct -s live -n 10 -H --no-summary /tmp/after
echo
echo "== slabacct --diff before after -n 10   (what the workload did)"
slabacct -n 10 --diff /tmp/before /tmp/after
echo
# The guest is seconds old: objects count as old from 5 s (default 10).
# The two reads are about 6 s apart: too short to call a site growing
# (at least 10 s), which is what --leaks says of the sites that grew.
echo "== slabacct --leaks --leaks-min-age 5 -n 10 detail.before detail.after   (old objects; growth over seconds is too short to tell)"
slabacct --leaks --leaks-min-age 5 -n 10 /tmp/detail.before /tmp/detail.after
echo
echo "== slabacct --advise -n 8   (what to change to waste less)"
slabacct --advise -n 8
# The snapshot for the host's pictures (make demo writes an SVG and an
# OpenMetrics file from it): prefixed lines, which the streamed output
# leaves out, with kernel messages kept off the console meanwhile.
echo 1 > /proc/sys/kernel/printk
sed 's/^/SA_SNAP: /' /tmp/after
echo
echo "== end of demo"
