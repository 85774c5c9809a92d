#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The reader's timings on large inputs (docs/reader.md, "Timings"): a
# snapshot of 100,000 call sites and a kmem trace of 3,000,000 events, both
# generated here.  Prints one line per run: seconds (elapsed) and peak RSS.
#
#   timing.sh SLABACCT [WORKDIR]
#
# Not part of `make check` (it takes a few minutes: three runs each, the
# best kept); run it on an idle machine, with -O2 binaries (`make -C
# userspace`).
set -eu
SLABACCT=$1
W=${2:-$(mktemp -d)}
mkdir -p "$W"
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time" >&2; exit 1; }

# 100,000 call sites in 200 modules and vmlinux, 4 per function, every type
if [ ! -s "$W/rows.txt" ]; then
	awk 'BEGIN {
		n = 100000
		for (i = 0; i < n; i++) {
			req = (i * 7919) % 4000 + 8
			allocs = (i * 104729) % 5000 + 1
			frees = allocs - (i % 7 == 0 ? allocs : i % 13)
			if (frees < 0) frees = 0
			sz = 8; while (sz < req) sz *= 2
			total[i] = sz * allocs; rq[i] = req * allocs
			objs[i] = allocs - frees; live[i] = sz * objs[i]; lreq[i] = req * objs[i]
			t = i % 5 == 0 ? "cache:c" (i % 50) : i % 11 == 0 ? "mixed" : "kmalloc"
			m = i % 201 == 0 ? "" : " [mod" (i % 200) "]"
			line[i] = sprintf("%d %d %d %d %d %d %d %d/%d %s func%d+0x%x/0x200%s",
				total[i], total[i] - rq[i], rq[i], live[i], lreq[i], objs[i],
				live[i] + sz, allocs, frees, t, int(i / 4), (i % 4) * 16 + 16, m)
			T += total[i]; R += rq[i]; L += live[i]; LR += lreq[i]; O += objs[i]
			A += allocs; F += frees
		}
		print "slab_account - version: 1.2"
		print "state: stopped"
		printf "total bytes allocated: %.0f\n", T
		printf "total bytes requested: %.0f\n", R
		printf "slack bytes allocated: %.0f\n", T - R
		printf "current bytes allocated: %.0f\n", L
		printf "current bytes requested: %.0f\n", LR
		printf "current objects: %.0f\n", O
		printf "number of allocs: %.0f\n", A
		printf "number of frees: %.0f\n", F
		printf "number of callers: %d\n", n
		print "#      total    slack      req     live live_req   objs     peak  allocs/frees type caller"
		for (i = 0; i < n; i++) print line[i]
	}' >"$W/rows.txt"
	# a later snapshot: every third site grew
	awk '/^[0-9]/ && NR % 3 == 0 { $1 += 64; $2 += 64; $8 = "1/0" } { print }' "$W/rows.txt" |
		sed '/^state:/s/stopped/active/' >"$W/rows2.txt"
fi
# 3,000,000 kmem events: 1,000 call sites, up to 4,096 live objects
if [ ! -s "$W/trace.txt" ]; then
	awk 'BEGIN {
		print "# tracer: nop"
		for (i = 0; i < 1500000; i++) {
			s = (i * 7) % 1000; p = (i * 2654435761) % 4096
			printf "  bash-%d [%03d] ..... %d.%06d: kmalloc: call_site=site%d+0x%x/0x100 ptr=ffff8880%08x bytes_req=%d bytes_alloc=%d gfp_flags=GFP_KERNEL node=-1 accounted=false\n", 100 + i % 50, i % 4, 100 + int(i / 100000), i % 1000000, s, 16 + s % 200, p * 256, 8 + s % 200, 256
			printf "  bash-%d [%03d] ..... %d.%06d: kfree: call_site=free%d+0x10/0x40 ptr=ffff8880%08x\n", 100 + i % 50, i % 4, 100 + int(i / 100000), i % 1000000, s, ((p + 2048) % 4096) * 256
		}
	}' >"$W/trace.txt"
fi

# t LABEL ARGS...: the best of three runs
t() {
	label=$1
	shift
	best=
	for _ in 1 2 3; do
		/usr/bin/time -f '%e %M' -o "$W/time" "$SLABACCT" "$@" >"$W/out" 2>"$W/err" ||
			{ echo "$label: exit $?: $(head -3 "$W/err")" >&2; exit 1; }
		set -- "$@"
		now=$(tail -n 1 "$W/time")
		if [ -z "$best" ] || awk -v a="${now% *}" -v b="${best% *}" 'BEGIN { exit !(a < b) }'; then
			best=$now
		fi
	done
	printf '%-34s %6.2f s %7d KiB\n' "$label" ${best% *} ${best#* }
}
t "100k rows: report" "$W/rows.txt"
t "100k rows: -s live -H" -s live -H "$W/rows.txt"
t "100k rows: --csv" --csv "$W/rows.txt"
t "100k rows: --json" --json "$W/rows.txt"
t "100k rows: --by function" --by function "$W/rows.txt"
t "100k rows: --openmetrics -n 100000" --openmetrics -n 100000 "$W/rows.txt"
t "100k rows: --folded" --folded "$W/rows.txt"
t "100k rows: --svg" --svg "$W/t.svg" "$W/rows.txt"
t "100k rows: --diff" --diff "$W/rows.txt" "$W/rows2.txt"
t "3M events: --from-trace" --from-trace "$W/trace.txt"
t "3M events: --from-trace --csv" --from-trace "$W/trace.txt" --csv
