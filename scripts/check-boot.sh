#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-boot.sh DIR: judges a test boot from DIR/console.log and
# DIR/ktap.log.  Fails on a kernel splat (BUG:, WARNING:, Oops, Call Trace,
# Kernel panic), on a W taint (512), if slab_account did not load, on a
# missing or short KTAP plan, and on any "not ok" or SKIP result (nested
# ones included; SA_ALLOW_SKIP=1 accepts skips).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=${1:?usage: check-boot.sh DIR}
con="$dir/console.log" ktap="$dir/ktap.log"
fail=0
bad() { log "FAIL: $*"; fail=1; }

if grep -nE 'BUG:|WARNING:|Oops|Call Trace|Kernel panic' "$con"; then
	bad "kernel splat on the console ($con)"
fi
grep -q '^SA_LOADED' "$con" || bad "slab_account.ko did not load"
taint=$(sed -n 's/^SA_TAINT=\([0-9]*\).*/\1/p' "$con" | tail -n 1)
[ -n "$taint" ] || bad "no taint report (guest did not finish)"
if [ -n "$taint" ] && [ $((taint & 512)) -ne 0 ]; then
	bad "kernel taint $taint has W (a warning was issued)"
fi

tr -d '\r' < "$ktap" > "$dir/ktap.clean"
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$dir/ktap.clean" | head -n 1)
ok=$(grep -cE '^ok [0-9]+ ' "$dir/ktap.clean" || true)
notok=$(grep -cE '^not ok [0-9]+ ' "$dir/ktap.clean" || true)
skip=$(grep -ciE '^(# )*ok [0-9]+ .*# SKIP' "$dir/ktap.clean" || true)
sub_notok=$(grep -cE '^(# )+not ok [0-9]+ ' "$dir/ktap.clean" || true)
[ -n "$plan" ] || bad "no KTAP plan in $ktap"
if [ -n "$plan" ] && [ $((ok + notok)) -ne "$plan" ]; then
	bad "KTAP plan says $plan tests, $((ok + notok)) reported"
fi
[ "$notok" -eq 0 ] || bad "$notok failed test programs"
[ "$sub_notok" -eq 0 ] || bad "$sub_notok failed subtests"
if [ "$skip" -ne 0 ] && [ "${SA_ALLOW_SKIP:-0}" != 1 ]; then
	bad "$skip skipped tests"
fi
if [ $fail -ne 0 ]; then
	grep -E 'not ok|# SKIP|Expected|FAIL' "$dir/ktap.clean" | head -n 40 >&2 || true
	exit 1
fi
# The exact-accounting figures, module against sa_test's own books, and
# the reliability tests' reports.
grep -hE 'module/truth|^[# ]*report: ' "$dir/ktap.clean" | sed 's/^[# ]*/  /' | awk '!seen[$0]++' >&2 || true
log "KTAP: ${plan} programs, $ok ok, 0 not ok, $skip skipped; taint=$taint"
