#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-boot.sh [--debug] DIR: judges a test boot from DIR/console.log and
# DIR/ktap.log (as run-qemu.sh leaves them).  Fails (exit 1, quoting the
# offending lines) on:
#   - a kernel splat on the console: BUG: WARNING: Oops "Call Trace"
#     "Kernel panic" "kernel BUG at" "general protection fault", SLUB's
#     "BUG <cache> (<taint>): ...", ODEBUG: UBSAN:, kmemleak disabling
#     itself (KASAN reports are "BUG: KASAN: ...", lockdep's and
#     DEBUG_ATOMIC_SLEEP's "WARNING: possible ...", "WARNING: inconsistent
#     lock state", "BUG: sleeping function called from invalid context");
#     only the stack dump of an allocation-failure report while
#     sa_fault_test injects failures (between its "sa_fault_test: fail-nth
#     begin" and "... end" markers) is expected;
#   - on a debug kernel (init.sh's lines after the tests): lockdep turned
#     off (SA_DEBUG_LOCKS=0), one of our modules that rmmod refused before
#     the kmemleak scan, a failed scan, or a suspected leak whose
#     allocation backtrace involves our modules (slab_account, sa_test,
#     sa_stress, sa_age, sa_leak, sa_leak_b, sa_ctx, sa_tree, sa_takeback, sa_bench, sa_floor; or an address no symbol resolves any
#     more, i.e. a module unloaded since: only ours are loaded in these
#     guests), except the kernel's own leak of a failed sysfs_slab_add()
#     while sa_fault_test injects faults (counted apart).  Other leaks (the base kernel's; kmemleak is a heuristic)
#     are listed, not failed.  The suspects judged are those of init.sh's
#     last scan, after pending RCU callbacks ran (SA_KMEMLEAK_FIRST: the
#     first scan's).  With --debug the kernel must be one:
#     "KernelAddressSanitizer initialized", SA_DEBUG_LOCKS= and
#     SA_KMEMLEAK= lines are required;
#   - slab_account not loaded (no SA_LOADED), no SA_TAINT= line (the guest
#     did not finish), or the W taint (512) in it (O 4096 and E 8192 are
#     expected for an unsigned out-of-tree module);
#   - no top-level KTAP plan, a count of top-level results other than the
#     plan, "Bail out!", any "not ok" (nested subtests too, whether nested
#     by indentation or by the kselftest runner's "# " prefix), any
#     "# SKIP" result unless SA_ALLOW_SKIP=1 or its subtest is one of
#     SA_EXPECT_SKIPS (names such as global.exact_on_every_path: a row
#     whose kernel cannot give what the subtest needs), each of which
#     must then be skipped, not run nor failed.
# Prints a summary: "KTAP: plan N: N ok, M not ok, K skip (subtests: ...);
# taint=X".  Writes DIR/ktap.clean (the KTAP without carriage returns).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

debug=0
if [ "${1:-}" = --debug ]; then
	debug=1
	shift
fi
dir=${1:?usage: check-boot.sh [--debug] DIR}
con="$dir/console.log" ktap="$dir/ktap.log"
[ -f "$con" ] || die "no $con"
[ -f "$ktap" ] || die "no $ktap"
fail=0
bad() { log "FAIL: $*"; fail=1; }
quote() { sed -n '1,40s/^/    /p' >&2; }	# (sed reads all: no broken pipe)

splat='BUG:|WARNING:|Oops|Call Trace|Kernel panic|kernel BUG at|general protection fault'
splat+='|BUG [^ ]+ \((Not t|T)ainted|ODEBUG:|UBSAN:|kmemleak: .*(disabled|[Pp]ool empty)'
# The console with line numbers, less what is judged elsewhere or expected:
# kmemleak's report (below; its hex dumps are arbitrary bytes), and the
# stack dumps of allocation-failure reports (warn_alloc: "vmalloc error:"
# or "page allocation failure:"; a cache's: "kmem_cache_create...(NAME)
# failed with error N"; then "Call Trace") while sa_fault_test
# injects failures (between its fail-nth begin/end console markers); any
# other splat there still counts.
checked=$(tr -d '\r' < "$con" | awk '
	/sa_fault_test: fail-nth begin/ { win = 1 }
	/sa_fault_test: fail-nth end/ { win = 0 }
	win && (/(vmalloc error|page allocation failure): / ||
		/kmem_cache_create[a-z_]*\([^)]*\) failed with error -?[0-9]+$/) {
		until = NR + 6; n++
	}
	/Call Trace/ && NR <= until { until = 0; next }
	/^SA_KMEMLEAK: / { next }
	{ print NR ":" $0 }
	END { print "SA_INJECTED_ALLOC_FAILURES=" n + 0 }')
injected=$(sed -n 's/^SA_INJECTED_ALLOC_FAILURES=//p' <<< "$checked")
if grep -qE "$splat" <<< "$checked"; then
	bad "kernel splat on the console ($con):"
	grep -E "$splat" <<< "$checked" | quote
fi
[ "$injected" = 0 ] ||
	log "$injected allocation-failure reports during sa_fault_test's injection (expected)"
grep -q '^SA_LOADED' "$con" || bad "slab_account.ko did not load"
taint=$(tr -d '\r' < "$con" | sed -n 's/^SA_TAINT=\([0-9]*\).*/\1/p' | tail -n 1)
if [ -z "$taint" ]; then
	bad "no taint report (guest did not finish)"
elif [ $((taint & 512)) -ne 0 ]; then
	bad "kernel taint $taint has W (512: a warning was issued)"
fi

# The debug kernel's checks (scripts/init.sh's debug_report).
locks=$(tr -d '\r' < "$con" | sed -n 's/^SA_DEBUG_LOCKS=//p' | tail -n 1)
leaks=$(tr -d '\r' < "$con" | sed -n 's/^SA_KMEMLEAK=//p' | tail -n 1)
debugsum=""
if [ $debug = 1 ]; then
	grep -q 'KernelAddressSanitizer initialized' "$con" ||
		bad "--debug: KASAN is not on (no \"KernelAddressSanitizer initialized\")"
	[ -n "$locks" ] || bad "--debug: no SA_DEBUG_LOCKS= line (no lockdep?)"
	[ -n "$leaks" ] || bad "--debug: no SA_KMEMLEAK= line (no kmemleak?)"
fi
if grep -q '^SA_RMMOD_FAILED=' "$con"; then
	bad "a module could not be unloaded before the kmemleak scan:"
	grep -n '^SA_RMMOD_FAILED=' "$con" | quote
fi
if [ -n "$locks" ]; then
	[ "$locks" = 1 ] ||
		bad "lockdep is off at the end (debug_locks=$locks): a lock splat or a full lockdep table"
	debugsum+="; lockdep on=$locks"
fi
if [ "$leaks" = error ]; then
	bad "the kmemleak scan failed (kmemleak disabled itself?)"
elif [ -n "$leaks" ]; then
	# One record per suspected object: "unreferenced object ..." up to
	# the next one; ours if the backtrace names our modules or holds an
	# address without a symbol.
	kml="$dir/kmemleak.txt"
	tr -d '\r' < "$con" | sed -n 's/^SA_KMEMLEAK: //p' > "$kml"
	# The kernel's own leak under an injected fault is set apart: a
	# kmem_cache_create() whose sysfs kobject failed to be added leaves
	# the kobject's name unfreed (sysfs_slab_add() returns without
	# kobject_put(); 6.1 to 6.12 at least), when sa_fault_test's
	# fail-nth hits it in slab_account's init.
	read -r ours injected < <(awk '
		/^unreferenced object/ { n++ }
		n && /comm "sa_fault_test"/ { fault[n] = 1 }
		n && /kobject_set_name_vargs/ { kname[n] = 1 }
		n && /sysfs_slab_add/ { sysfs[n] = 1 }
		n && (/\[(slab_account|sa_test|sa_stress|sa_age|sa_leak|sa_leak_b|sa_ctx|sa_tree|sa_takeback|sa_bench|sa_floor)\]/ ||
		      /\[<[^>]*>\] 0x[0-9a-f]+$/) { mine[n] = 1 }
		END {
			c = 0; k = 0
			for (i in mine)
				if (fault[i] && kname[i] && sysfs[i]) k++; else c++
			print c, k
		}' "$kml")
	if [ "$ours" -ne 0 ]; then
		bad "kmemleak: $ours of $leaks suspected leaks involve our modules ($kml):"
		quote < "$kml"
	elif [ "$leaks" -ne 0 ]; then
		log "kmemleak: $leaks suspected leaks, none involving our modules ($kml):"
		# (sed, not head: the pipe must not break under pipefail)
		grep -E '^unreferenced object|^    \[<' "$kml" | sed -n '1,60s/^/    /p' >&2
	fi
	[ "$injected" -eq 0 ] ||
		log "kmemleak: $injected of them the kernel's under injected faults (a kmem_cache_create() whose sysfs kobject failed: its name is never freed)"
	debugsum+="; kmemleak: $leaks suspected, $ours ours"
	[ "$injected" -eq 0 ] || debugsum+=", $injected the kernel's under injected faults"
	first=$(tr -d '\r' < "$con" | sed -n 's/^SA_KMEMLEAK_FIRST=//p' | tail -n 1)
	[ -z "$first" ] ||
		debugsum+=" (of $first before the RCU callbacks ran and a new scan)"
	! grep -q '^SA_KMEMLEAK_BARRIER=failed' "$con" ||
		log "kmemleak: slab_account's load and unload before the last scan failed (RCU callbacks not waited for)"
fi

# Top-level lines start in column 0; nested ones are indented (KTAP) or
# carry the kselftest runner's "# " prefix, possibly several times.
clean="$dir/ktap.clean"
tr -d '\r' < "$ktap" > "$clean"
count() { grep -cE "$1" "$clean" || true; }
nest='^([#] |[ \t])+'
plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$clean" | head -n 1)
top_ok=$(count '^ok [0-9]+')
top_notok=$(count '^not ok [0-9]+')
top_skip=$(count '^ok [0-9]+.*# [Ss][Kk][Ii][Pp]')
sub_ok=$(count "${nest}ok [0-9]+")
sub_notok=$(count "${nest}not ok [0-9]+")
sub_skip=$(count "${nest}ok [0-9]+.*# [Ss][Kk][Ii][Pp]")
results=$((top_ok + top_notok))

if [ -z "$plan" ]; then
	bad "no top-level KTAP plan (1..N) in $ktap"
elif [ "$results" -ne "$plan" ]; then
	bad "KTAP plan says $plan tests, $results top-level results reported"
fi
if grep -qE '^([#] |[ \t])*Bail out!' "$clean"; then
	bad "KTAP bail out:"
	grep -nE 'Bail out!' "$clean" | quote
fi
if [ $((top_notok + sub_notok)) -ne 0 ]; then
	bad "$top_notok failed test programs, $sub_notok failed subtests:"
	grep -nE "^([#] |[ \\t])*not ok [0-9]+" "$clean" | quote
fi
# skip_reason NAME: the reason of subtest NAME's skip, nothing if it was
# not skipped.  The kselftest_harness.h of 6.12 and 7.2 names the subtest
# in its result line ("ok 4 reload.x # SKIP why"); 5.10's and 6.1's give
# the reason alone ("ok 4 # SKIP why"), after their "OK  reload.x" line.
skip_reason() {
	awk -v name="$1" -v nest="$nest" '
	{
		line = $0
		if (sub(nest, "", line) && line ~ /^ok [0-9]+ ([^#]* )?# [Ss][Kk][Ii][Pp]/) {
			split(line, w, " ")
			if (w[3] == name || (w[3] == "#" && prev_ok)) {
				sub(/^ok [0-9]+ ([^#]* )?# [Ss][Kk][Ii][Pp] */, "", line)
				print line == "" ? "(no reason)" : line
				exit
			}
		}
		n = split($0, v, /[ \t]+/)
		prev_ok = n >= 2 && v[n] == name && v[n - 1] == "OK"
	}' "$clean"
}
# Skips the row expects: each must be there; others are failures.
expected=0
for name in ${SA_EXPECT_SKIPS:-}; do
	why=$(skip_reason "$name")
	if [ -n "$why" ]; then
		expected=$((expected + 1))
		log "skipped as expected on this row: $why  ($name)"
	else
		bad "$name was expected to be skipped on this row, and was not"
	fi
done
if [ $((top_skip + sub_skip - expected)) -ne 0 ] && [ "${SA_ALLOW_SKIP:-0}" != 1 ]; then
	bad "$top_skip skipped test programs, $((sub_skip - expected)) skipped subtests not expected on this row (SA_ALLOW_SKIP=1 accepts them):"
	grep -nE "ok [0-9]+.*# [Ss][Kk][Ii][Pp]" "$clean" | quote
fi

summary="KTAP: plan ${plan:-none}: $((top_ok - top_skip)) ok, $top_notok not ok, $top_skip skip"
summary+=" (subtests: $((sub_ok - sub_skip)) ok, $sub_notok not ok, $sub_skip skip); taint=${taint:-none}"
summary+=$debugsum
if [ $fail -ne 0 ]; then
	# The harness' own explanations of failures.
	grep -E '# .*(Expected|FAIL)' "$clean" | quote || true
	log "$summary"
	exit 1
fi
# The exact-accounting figures, module against sa_test's own books, and
# the reliability tests' reports.
grep -hE 'module/truth|^[# ]*report: ' "$clean" | sed 's/^[# ]*/  /' |
	awk '!seen[$0]++' >&2 || true
log "$summary"
