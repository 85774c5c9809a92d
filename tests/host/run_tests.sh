#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the slabacct reader: the parser's unit tests, then the CLI
# on the fixtures in fixtures/, compared with expected/ (stdout, stderr and
# exit status, exactly).
#
#   run_tests.sh SLABACCT [PARSE_TEST]
#
# Prints one line per test and a final "N passed, M failed"; exits 1 if any
# test failed.  `make -C userspace check` runs it on sanitized builds.

set -u

if [ $# -lt 1 ]; then
	echo "usage: $0 SLABACCT [PARSE_TEST]" >&2
	exit 2
fi
SLABACCT=$1
PARSE_TEST=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE" || exit 1
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

passed=0
failed=0

pass() {
	passed=$((passed + 1))
	echo "ok   cli: $1"
}

fail() {
	failed=$((failed + 1))
	echo "FAIL cli: $1: $2"
}

# run NAME ARGS...: run slabacct, leaving $TMP/out, $TMP/err and $rc.
run() {
	name=$1
	shift
	"$SLABACCT" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
}

# expect NAME RC ARGS...: slabacct ARGS must exit RC and print exactly
# expected/NAME.out on stdout (empty when missing) and expected/NAME.err on
# stderr (empty when missing).
expect() {
	name=$1
	want_rc=$2
	shift 2
	run "$name" "$@"
	compare "$name" "$want_rc"
}

compare() {
	for stream in out err; do
		if [ -f "expected/$1.$stream" ]; then
			want=expected/$1.$stream
		else
			want=/dev/null
		fi
		if ! cmp -s "$want" "$TMP/$stream"; then
			fail "$1" "std$stream differs from $want:
$(diff "$want" "$TMP/$stream" | head -20)"
			return
		fi
	done
	if [ "$rc" != "$2" ]; then
		fail "$1" "exit status $rc, want $2"
		return
	fi
	pass "$1"
}

# expect_err NAME RC MESSAGE ARGS...: exit RC, nothing on stdout, and
# exactly MESSAGE (one line) on stderr.
expect_err() {
	name=$1
	want_rc=$2
	printf '%s\n' "$3" >"$TMP/want_err"
	shift 3
	run "$name" "$@"
	if [ "$rc" != "$want_rc" ]; then
		fail "$name" "exit status $rc, want $want_rc (stderr: $(cat "$TMP/err"))"
	elif [ -s "$TMP/out" ]; then
		fail "$name" "unexpected output on stdout: $(head -3 "$TMP/out")"
	elif ! cmp -s "$TMP/want_err" "$TMP/err"; then
		fail "$name" "stderr is '$(cat "$TMP/err")', want '$3'"
	else
		pass "$name"
	fi
}

# expect_order NAME "sym sym ..." ARGS...: the rows' callers (symbol names,
# in CSV order) must be exactly these.
expect_order() {
	name=$1
	want=$2
	shift 2
	run "$name" --csv "$@"
	got=$(tail -n +2 "$TMP/out" | sed 's/.*,//; s/+.*//' | tr '\n' ' ' | sed 's/ $//')
	if [ "$rc" != 0 ]; then
		fail "$name" "exit status $rc: $(cat "$TMP/err")"
	elif [ "$got" != "$want" ]; then
		fail "$name" "order '$got', want '$want'"
	else
		pass "$name"
	fi
}

# ---- parser unit tests ----

if [ -n "$PARSE_TEST" ]; then
	"$PARSE_TEST" >"$TMP/unit" 2>&1
	unit_rc=$?
	cat "$TMP/unit"
	p=$(grep -c '^ok ' "$TMP/unit")
	f=$(grep -c '^FAIL ' "$TMP/unit")
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$unit_rc" != 0 ] && [ "$f" = 0 ]; then
		failed=$((failed + 1))
		echo "FAIL parser: the unit test program exited with status $unit_rc"
	fi
fi

# ---- reports ----

V=fixtures/valid.txt
expect default 0 $V
if "$SLABACCT" - <$V >"$TMP/out" 2>"$TMP/err" && [ ! -s "$TMP/err" ] &&
   cmp -s expected/default.out "$TMP/out"; then
	pass stdin
else
	fail stdin "the report of standard input differs from expected/default.out"
fi
expect human 0 -H --no-summary -s req fixtures/human.txt
expect human-summary 0 -H --summary-only $V
expect summary-only 0 --summary-only $V
expect no-summary 0 --no-summary $V
expect version-1.1 0 fixtures/valid_1_1.txt
expect crlf 0 --no-summary fixtures/crlf.txt
expect top 0 -n 2 --no-summary $V
expect filtered-empty 0 --cache=nosuch $V

# ---- every sort key, both ways ----

expect_order sort-default "sa_test_big sa_test_cache_alloc alloc_inode __d_alloc bio_kmalloc load_elf_binary" $V
expect_order sort-total "sa_test_big sa_test_cache_alloc alloc_inode __d_alloc bio_kmalloc load_elf_binary" -s total $V
expect_order sort-total-r "load_elf_binary bio_kmalloc __d_alloc alloc_inode sa_test_cache_alloc sa_test_big" -s total -r $V
expect_order sort-slack "sa_test_big sa_test_cache_alloc __d_alloc bio_kmalloc alloc_inode load_elf_binary" -s slack $V
expect_order sort-waste "sa_test_big sa_test_cache_alloc __d_alloc bio_kmalloc alloc_inode load_elf_binary" --sort=waste $V
expect_order sort-slack-r "alloc_inode load_elf_binary bio_kmalloc __d_alloc sa_test_cache_alloc sa_test_big" -s slack -r $V
expect_order sort-req "sa_test_big sa_test_cache_alloc alloc_inode __d_alloc bio_kmalloc load_elf_binary" -s req $V
expect_order sort-live "sa_test_cache_alloc alloc_inode bio_kmalloc __d_alloc load_elf_binary sa_test_big" -s live $V
expect_order sort-live-r "sa_test_big load_elf_binary __d_alloc bio_kmalloc alloc_inode sa_test_cache_alloc" -s live --reverse $V
expect_order sort-live_req "sa_test_cache_alloc alloc_inode bio_kmalloc load_elf_binary __d_alloc sa_test_big" -s live_req $V
expect_order sort-objs "alloc_inode bio_kmalloc sa_test_cache_alloc load_elf_binary __d_alloc sa_test_big" -s objs $V
expect_order sort-peak "sa_test_big sa_test_cache_alloc alloc_inode bio_kmalloc __d_alloc load_elf_binary" -s peak $V
expect_order sort-allocs "alloc_inode sa_test_cache_alloc bio_kmalloc __d_alloc load_elf_binary sa_test_big" -s allocs $V
expect_order sort-hit "alloc_inode sa_test_cache_alloc bio_kmalloc __d_alloc load_elf_binary sa_test_big" -s hit $V
expect_order sort-frees "alloc_inode sa_test_cache_alloc __d_alloc sa_test_big bio_kmalloc load_elf_binary" -s frees $V
expect_order sort-frag "sa_test_big __d_alloc bio_kmalloc sa_test_cache_alloc alloc_inode load_elf_binary" -s frag $V
expect_order sort-frag-r "alloc_inode load_elf_binary sa_test_cache_alloc bio_kmalloc __d_alloc sa_test_big" -s frag -r $V
expect_order sort-caller "__d_alloc alloc_inode bio_kmalloc load_elf_binary sa_test_big sa_test_cache_alloc" -s caller $V
expect_order sort-caller-r "sa_test_cache_alloc sa_test_big load_elf_binary bio_kmalloc alloc_inode __d_alloc" -s caller -r $V
expect_order top-3 "sa_test_big sa_test_cache_alloc alloc_inode" -n 3 $V
expect_order top-more-than-rows "sa_test_big sa_test_cache_alloc alloc_inode __d_alloc bio_kmalloc load_elf_binary" --top=100 $V

# ---- filters ----

expect_order filter-kmalloc "sa_test_big bio_kmalloc" --kmalloc $V
expect_order filter-cache "sa_test_cache_alloc alloc_inode load_elf_binary" --cache $V
expect_order filter-cache-name "alloc_inode" --cache=inode_cache $V
expect_order filter-cache-name-blank "sa_test_cache_alloc" "--cache=sa test cache" $V
expect_order filter-cache-none "" --cache=nosuch $V
expect_order filter-module "sa_test_big sa_test_cache_alloc" -m sa_test $V
expect_order filter-module-2 "load_elf_binary" --module=binfmt_misc $V
expect_order filter-vmlinux "alloc_inode __d_alloc bio_kmalloc" -m vmlinux $V
expect_order filter-module-none "" -m sa_tes $V
expect_order filter-grep "sa_test_cache_alloc alloc_inode __d_alloc bio_kmalloc" -g alloc $V
expect_order filter-grep-module "sa_test_big sa_test_cache_alloc" --grep "[sa_test]" $V
expect_order filter-combined "sa_test_cache_alloc sa_test_big" -m sa_test -s live $V
expect_order filter-top "sa_test_big" --kmalloc -n 1 $V

# ---- machine formats ----

expect csv 0 --csv $V
expect csv-quoting 0 --csv fixtures/quoting.txt
expect json 0 --json $V
expect json-1.1 0 --json fixtures/valid_1_1.txt
expect json-escaping 0 --json fixtures/quoting.txt
expect json-summary-only 0 --json --summary-only -H $V
expect json-no-summary 0 --json --no-summary --kmalloc $V
if command -v python3 >/dev/null 2>&1; then
	for args in "--json $V" "--json fixtures/valid_1_1.txt" \
		    "--json fixtures/quoting.txt" "--json --cache=nosuch $V" \
		    "--json --diff fixtures/before.txt fixtures/after.txt" \
		    "--json --diff -a --no-summary fixtures/before.txt fixtures/after.txt"; do
		# shellcheck disable=SC2086
		if "$SLABACCT" $args | python3 -m json.tool >/dev/null 2>"$TMP/err"; then
			pass "json valid: $args"
		else
			fail "json valid: $args" "$(cat "$TMP/err")"
		fi
	done
else
	echo "skip cli: json validity (no python3)"
fi

# ---- diff ----

B=fixtures/before.txt
A=fixtures/after.txt
expect diff 0 --diff $B $A
expect diff-all-human 0 -d -a -H $B $A
expect diff-csv 0 --csv -d $B $A
expect diff-json 0 --json -d $B $A
expect diff-reversed 0 -d --no-summary $A $B
# the k-th row of a caller in OLD pairs with its k-th row in NEW
expect diff-duplicate-callers 0 --csv -d fixtures/dups_before.txt fixtures/dups_after.txt
expect_order diff-order "bio_kmalloc new_site sa_test_cache_alloc gone_site" -d $B $A
expect_order diff-all "bio_kmalloc new_site sa_test_cache_alloc unchanged_site gone_site" -d --all $B $A
expect_order diff-sort-live "new_site bio_kmalloc gone_site sa_test_cache_alloc" -d -s live $B $A
expect_order diff-sort-live-r "sa_test_cache_alloc gone_site bio_kmalloc new_site" -d -s live -r $B $A
expect_order diff-sort-frees "bio_kmalloc sa_test_cache_alloc gone_site new_site" -d -s frees $B $A
expect_order diff-module "new_site sa_test_cache_alloc" -d -m sa_test $B $A
expect_order diff-top "bio_kmalloc" -d -n 1 $B $A
expect_order diff-same-file "" -d $V $V
expect_order diff-same-file-all "__d_alloc alloc_inode bio_kmalloc load_elf_binary sa_test_big sa_test_cache_alloc" -d -a $V $V

# ---- watch ----

{
	printf '\033[H\033[2JEvery 0.1s: %s\n\n' $V
	cat expected/default.out
	printf '\033[H\033[2JEvery 0.1s: %s\n\n' $V
	cat expected/default.out
} >"$TMP/watch.want"
start=$(date +%s%N)
run watch -w --count 2 -i 0.1 $V
end=$(date +%s%N)
if [ "$rc" != 0 ] || [ -s "$TMP/err" ]; then
	fail watch "exit status $rc: $(cat "$TMP/err")"
elif ! cmp -s "$TMP/watch.want" "$TMP/out"; then
	fail watch "output differs: $(diff "$TMP/watch.want" "$TMP/out" | head -10)"
elif [ $(((end - start) / 1000000)) -lt 100 ]; then
	fail watch "did not wait 0.1 s between the refreshes"
else
	pass watch
fi
expect_err watch-file-gone 1 "slabacct: $TMP/nothing: No such file or directory" \
	--watch --count 2 "$TMP/nothing"

# ---- help, version, usage errors ----

expect help 0 --help
expect help-short 0 -h
expect version 0 -V
TRY="Try 'slabacct --help' for more information."
usage_err() {
	name=$1
	msg=$2
	shift 2
	run "$name" "$@"
	printf '%s\n%s\n' "$msg" "$TRY" >"$TMP/want_err"
	if [ "$rc" != 2 ]; then
		fail "$name" "exit status $rc, want 2"
	elif [ -s "$TMP/out" ] || ! cmp -s "$TMP/want_err" "$TMP/err"; then
		fail "$name" "stderr '$(cat "$TMP/err")', want '$msg'"
	else
		pass "$name"
	fi
}
usage_err bad-option "slabacct: unrecognized option '--bogus'" --bogus $V
usage_err bad-short-option "slabacct: invalid option -- 'x'" -x $V
usage_err missing-argument "slabacct: option requires an argument -- 'n'" $V -n
usage_err bad-sort-key "slabacct: unknown sort key 'size' (total, slack, waste, req, live, live_req, objs, peak, allocs, hit, frees, frag, caller)" -s size $V
usage_err bad-top "slabacct: --top: '0' is not a positive whole number" -n 0 $V
usage_err bad-top-junk "slabacct: --top: '5x' is not a positive whole number" -n 5x $V
usage_err csv-and-json "slabacct: --csv and --json exclude each other" --csv --json $V
usage_err kmalloc-and-cache "slabacct: --kmalloc and --cache exclude each other" --kmalloc --cache $V
usage_err summary-toggles "slabacct: --summary-only and --no-summary exclude each other" --summary-only --no-summary $V
usage_err csv-summary-only "slabacct: --csv has rows only: --summary-only does not go with it" --csv --summary-only $V
usage_err diff-one-file "slabacct: --diff needs two files, OLD and NEW" -d $B
usage_err two-files "slabacct: one FILE at most (or --diff OLD NEW)" $B $A
usage_err interval-without-watch "slabacct: --interval and --count go with --watch" -i 1 $V
usage_err count-without-watch "slabacct: --interval and --count go with --watch" --count 1 $V
usage_err all-without-diff "slabacct: --all goes with --diff" -a $V
usage_err bad-interval "slabacct: --interval: '0' is not a number of seconds (0 < SECS <= 86400)" -w -i 0 $V
usage_err bad-interval-junk "slabacct: --interval: '1s' is not a number of seconds (0 < SECS <= 86400)" -w -i 1s $V
usage_err watch-diff "slabacct: --watch shows the text report of one file (no --diff, --csv or --json)" -w -d $B $A
usage_err watch-stdin "slabacct: --watch rereads the file: it cannot read standard input" -w -

# ---- bad input ----

expect_err nonexistent 1 "slabacct: $TMP/none: No such file or directory" "$TMP/none"
if [ ! -e /proc/slab_account ]; then
	expect_err module-not-loaded 1 \
		"slabacct: /proc/slab_account: No such file or directory (is the module loaded? insmod slab_account.ko)"
else
	echo "skip cli: module-not-loaded (/proc/slab_account exists here)"
fi
printf 'x\n' >"$TMP/unreadable"
chmod 000 "$TMP/unreadable"
chmod 755 "$TMP"
if [ "$(id -u)" != 0 ]; then
	expect_err unreadable 1 "slabacct: $TMP/unreadable: Permission denied" "$TMP/unreadable"
elif command -v setpriv >/dev/null 2>&1 &&
     setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	# root reads anything: drop to nobody to see EACCES
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$SLABACCT" "$TMP/unreadable" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	printf 'slabacct: %s: Permission denied\n' "$TMP/unreadable" >"$TMP/want_err"
	if [ "$rc" = 1 ] && [ ! -s "$TMP/out" ] && cmp -s "$TMP/want_err" "$TMP/err"; then
		pass unreadable
	else
		fail unreadable "exit status $rc, stderr '$(cat "$TMP/err")'"
	fi
else
	echo "skip cli: unreadable (root and no setpriv; the unit tests check the message)"
fi
expect_err directory 1 "slabacct: fixtures: Is a directory" fixtures
expect_err version-2 1 "slabacct: fixtures/v2.txt:1: unsupported format version 2.0 (this reader understands 1.x)" fixtures/v2.txt
expect_err empty 1 "slabacct: fixtures/empty.txt:1: empty file: expected the 'slab_account - version: 1.x' header" fixtures/empty.txt
expect_err empty-stdin 1 "slabacct: <stdin>:1: empty file: expected the 'slab_account - version: 1.x' header" -
expect_err header-only 1 "slabacct: fixtures/header_only.txt:2: unexpected end of file before the '#' legend line (truncated file?)" fixtures/header_only.txt
expect_err no-legend 1 "slabacct: fixtures/no_legend.txt:22: a call-site row before the '#' legend line (missing legend?)" fixtures/no_legend.txt
expect_err truncated 1 "slabacct: fixtures/truncated.txt:28: line not terminated by a newline (truncated file?)" fixtures/truncated.txt
expect_err negative 1 "slabacct: fixtures/negative.txt:23: slack '-232' is not an unsigned decimal number" fixtures/negative.txt
expect_err overflow 1 "slabacct: fixtures/overflow.txt:25: total '18446744073709551616' is out of range (more than 18446744073709551615)" fixtures/overflow.txt
expect_err bad-allocs-frees 1 "slabacct: fixtures/bad_allocs_frees.txt:23: allocs/frees '29:0' is not written N/M" fixtures/bad_allocs_frees.txt
expect_err req-over-total 1 "slabacct: fixtures/req_over_total.txt:23: req 2436 is more than total 2204 (a row has req <= total)" fixtures/req_over_total.txt
expect_err dev-zero 1 "slabacct: /dev/zero:1: not a slab_account file: expected 'slab_account - version: 1.x', got '????????????????????????????????????????...'" /dev/zero
expect_err diff-bad-new 1 "slabacct: fixtures/v2.txt:1: unsupported format version 2.0 (this reader understands 1.x)" -d $B fixtures/v2.txt

# a caller longer than 4 KiB survives whole
{
	head -n 22 $V
	printf '1 0 1 1 1 1 1 1/0 kmalloc '
	i=0
	while [ $i -lt 600 ]; do
		printf 'long_name'
		i=$((i + 1))
	done
	printf '+0x1/0x2 [big]\n'
} >"$TMP/long.txt"
run long-caller --csv -m big "$TMP/long.txt"
len=$(tail -n 1 "$TMP/out" | sed 's/^[^a-z]*kmalloc,//' | wc -c)
if [ "$rc" = 0 ] && [ "$len" = 5415 ]; then
	pass long-caller
else
	fail long-caller "exit status $rc, caller length $len, want 5415 (with newline)"
fi

# writing to a full device is an error
if [ -w /dev/full ]; then
	"$SLABACCT" $V >/dev/full 2>"$TMP/err"
	rc=$?
	if [ "$rc" = 1 ] && grep -q '^slabacct: write error: ' "$TMP/err"; then
		pass write-error
	else
		fail write-error "exit status $rc, stderr '$(cat "$TMP/err")'"
	fi
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
