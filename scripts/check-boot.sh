#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-boot.sh DIR: judges a test boot from DIR/console.log and
# DIR/ktap.log (as run-qemu.sh leaves them).  Fails (exit 1, quoting the
# offending lines) on:
#   - a kernel splat on the console: BUG: WARNING: Oops "Call Trace"
#     "Kernel panic";
#   - slab_account not loaded (no SA_LOADED), no SA_TAINT= line (the guest
#     did not finish), or the W taint (512) in it (O 4096 and E 8192 are
#     expected for an unsigned out-of-tree module);
#   - no top-level KTAP plan, a count of top-level results other than the
#     plan, "Bail out!", any "not ok" (nested subtests too, whether nested
#     by indentation or by the kselftest runner's "# " prefix), any
#     "# SKIP" result unless SA_ALLOW_SKIP=1.
# Prints a summary: "KTAP: plan N: N ok, M not ok, K skip (subtests: ...);
# taint=X".  Writes DIR/ktap.clean (the KTAP without carriage returns).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=${1:?usage: check-boot.sh DIR}
con="$dir/console.log" ktap="$dir/ktap.log"
[ -f "$con" ] || die "no $con"
[ -f "$ktap" ] || die "no $ktap"
fail=0
bad() { log "FAIL: $*"; fail=1; }
quote() { head -n 40 | sed 's/^/    /' >&2; }

splat='BUG:|WARNING:|Oops|Call Trace|Kernel panic'
if grep -qE "$splat" "$con"; then
	bad "kernel splat on the console ($con):"
	tr -d '\r' < "$con" | grep -nE "$splat" | quote
fi
grep -q '^SA_LOADED' "$con" || bad "slab_account.ko did not load"
taint=$(tr -d '\r' < "$con" | sed -n 's/^SA_TAINT=\([0-9]*\).*/\1/p' | tail -n 1)
if [ -z "$taint" ]; then
	bad "no taint report (guest did not finish)"
elif [ $((taint & 512)) -ne 0 ]; then
	bad "kernel taint $taint has W (512: a warning was issued)"
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
if [ $((top_skip + sub_skip)) -ne 0 ] && [ "${SA_ALLOW_SKIP:-0}" != 1 ]; then
	bad "$top_skip skipped test programs, $sub_skip skipped subtests (SA_ALLOW_SKIP=1 accepts them):"
	grep -nE "ok [0-9]+.*# [Ss][Kk][Ii][Pp]" "$clean" | quote
fi

summary="KTAP: plan ${plan:-none}: $((top_ok - top_skip)) ok, $top_notok not ok, $top_skip skip"
summary+=" (subtests: $((sub_ok - sub_skip)) ok, $sub_notok not ok, $sub_skip skip); taint=${taint:-none}"
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
