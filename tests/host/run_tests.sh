#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the slabacct reader: the parser's unit tests, then the CLI
# on the fixtures in fixtures/, compared with expected/ (stdout, stderr and
# exit status, exactly).
#
#   run_tests.sh SLABACCT [PARSE_TEST]
#
# With SA_PLAIN (an unsanitized slabacct) and SA_FAILALLOC (failalloc.so)
# in the environment, it also makes each allocation fail in turn.
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
	want_msg=$3
	printf '%s\n' "$want_msg" >"$TMP/want_err"
	shift 3
	run "$name" "$@"
	if [ "$rc" != "$want_rc" ]; then
		fail "$name" "exit status $rc, want $want_rc (stderr: $(cat "$TMP/err"))"
	elif [ -s "$TMP/out" ]; then
		fail "$name" "unexpected output on stdout: $(head -3 "$TMP/out")"
	elif ! cmp -s "$TMP/want_err" "$TMP/err"; then
		fail "$name" "stderr is '$(cat "$TMP/err")', want '$want_msg'"
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

# ---- the reader's layers: includes one way, no circle ----

if "$HERE/layers.sh" "$HERE/../../userspace" >"$TMP/layers" 2>&1; then
	pass "layers: $(cat "$TMP/layers")"
else
	fail layers "$(cat "$TMP/layers")"
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
# 1.2: callers unwrapped from allocation helpers end with " via HELPER".
expect version-1.2 0 fixtures/valid_1_2.txt
# 1.4: a table that dropped objects says what max_objects to reload with.
expect version-1.4 0 --summary-only fixtures/valid_1_4.txt
# 1.5: how far a row's peak may be off (2 CPUs: one page).
expect version-1.5 0 --summary-only fixtures/valid_1_5.txt
expect by-module-1.2 0 --by module fixtures/valid_1_2.txt
expect by-function-1.2 0 -b function --no-summary fixtures/valid_1_2.txt
expect folded-1.2 0 --folded fixtures/valid_1_2.txt
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
# perf kmem's names: bytes (allocated) and callsite
expect_order sort-bytes "sa_test_big sa_test_cache_alloc alloc_inode __d_alloc bio_kmalloc load_elf_binary" -s bytes $V
expect_order sort-callsite "__d_alloc alloc_inode bio_kmalloc load_elf_binary sa_test_big sa_test_cache_alloc" -s callsite $V
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

# ---- slabtop- and memleak-like selection ----

expect_order sort-two-keys "alloc_inode sa_test_cache_alloc bio_kmalloc load_elf_binary __d_alloc sa_test_big" -s allocs,objs $V
expect_order sort-two-keys-r "sa_test_big __d_alloc load_elf_binary bio_kmalloc sa_test_cache_alloc alloc_inode" -s allocs,objs -r $V
expect_order sort-second-key-caller "alloc_inode sa_test_cache_alloc bio_kmalloc __d_alloc load_elf_binary sa_test_big" -s allocs,caller $V
expect_order min-size "sa_test_big sa_test_cache_alloc __d_alloc" -z 512 $V
expect_order min-max-size "sa_test_big" --min-size=1K --max-size=1M $V
expect_order max-size "alloc_inode bio_kmalloc load_elf_binary" -Z 84 $V
expect_order min-key "sa_test_cache_alloc alloc_inode bio_kmalloc __d_alloc" -s live --min 1536 $V
expect_order min-key-k "sa_test_cache_alloc alloc_inode" -s live --min 4K $V
expect_order min-frag "sa_test_big __d_alloc" -s frag --min 10 $V

# ---- terminal safety, the summary against the rows, input limits ----

expect escapes 0 fixtures/escapes.txt
expect escapes-csv 0 --csv fixtures/escapes.txt
# more rows than the header's callers: sites added while the file was read
sed 's/^number of callers: 6$/number of callers: 5/' $V >"$TMP/callers.txt"
run callers-active "$TMP/callers.txt"
printf 'slabacct: note: %s: number of callers 5, rows 6: read while allocations ran (the summary and the rows are read at different moments)\n' "$TMP/callers.txt" >"$TMP/want_err"
if [ "$rc" = 0 ] && cmp -s "$TMP/want_err" "$TMP/err" &&
   sed 's/^number of callers:       6$/number of callers:       5/' expected/default.out | cmp -s - "$TMP/out"; then
	pass callers-active
else
	fail callers-active "exit status $rc, stderr '$(cat "$TMP/err")'"
fi
# fewer rows than callers: a file cut at the end of a line (a whole file
# read while allocations ran never has fewer: docs/format.md), said so;
# the report shows what is there
expect cut-at-line 0 fixtures/cut_at_line.txt
sed 's/^state: active$/state: stopped/; s/^number of callers: 6$/number of callers: 5/; s/^number of frees: 92$/number of frees: 90/' $V >"$TMP/stopped.txt"
run sums-stopped --csv "$TMP/stopped.txt"
printf "slabacct: warning: %s: the summary does not match the rows though the module is stopped: number of callers 5, rows 6; number of frees 90, the rows' sum 92\n" "$TMP/stopped.txt" >"$TMP/want_err"
if [ "$rc" = 0 ] && cmp -s expected/csv.out "$TMP/out" && cmp -s "$TMP/want_err" "$TMP/err"; then
	pass sums-stopped
else
	fail sums-stopped "exit status $rc, stderr '$(cat "$TMP/err")'"
fi
sed 's/^state: active$/state: stopped/' $V >"$TMP/stopped.txt"
run sums-agree "$TMP/stopped.txt"
if [ "$rc" = 0 ] && [ ! -s "$TMP/err" ]; then
	pass sums-agree
else
	fail sums-agree "exit status $rc, stderr '$(cat "$TMP/err")'"
fi
expect_err max-input 1 "slabacct: $V: more than 1024 bytes: too large for a slab_account file (--max-input raises the limit)" --max-input 1K $V
{ head -n 22 $V; yes '5 2 3 5 4 6 7 8/9 kmalloc a'; } 2>/dev/null |
	"$SLABACCT" --max-input 64K - >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" = 1 ] && [ "$(cat "$TMP/err")" = "slabacct: <stdin>: more than 65536 bytes: too large for a slab_account file (--max-input raises the limit)" ]; then
	pass max-input-endless
else
	fail max-input-endless "exit status $rc, stderr '$(cat "$TMP/err")'"
fi

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

# ---- --openmetrics ----

expect openmetrics-1.1 0 --openmetrics fixtures/valid_1_1.txt
# 1.4: the per-CPU counters' memory and CPUs, the advised max_objects
expect openmetrics-1.4 0 --openmetrics --summary-only fixtures/valid_1_4.txt
# 1.5: the peak's bound
expect openmetrics-1.5 0 --openmetrics --summary-only fixtures/valid_1_5.txt
expect openmetrics-top2 0 --openmetrics -n 2 --no-summary $V
# --prometheus names the format; --openmetrics, its former name, is the same
run prometheus-name --prometheus -n 2 --no-summary $V
if [ "$rc" = 0 ] && cmp -s expected/openmetrics-top2.out "$TMP/out"; then
	pass prometheus-name
else
	fail prometheus-name "exit status $rc: $(diff expected/openmetrics-top2.out "$TMP/out" | head -5)"
fi
# metric SAMPLE-PREFIX: the sum of the values of the samples so named
metric_sum() {
	awk -v p="$1" 'index($0, p) == 1 { s += $NF } END { printf "%d\n", s }' "$TMP/out"
}
# The sites, "other" included, add up to the summary, with or without a limit.
for lim in "" "-n 1" "-n 3" "--min 5000" "-s live --min 2K"; do
	# shellcheck disable=SC2086
	run "openmetrics-sums $lim" --openmetrics $lim $V
	ok=1
	for m in allocated_bytes_total:allocated_bytes_total live_bytes:live_bytes \
		 allocs_total:allocs_total frees_total:frees_total \
		 live_objects:live_objects slack_bytes_total:slack_bytes_total; do
		site=$(metric_sum "slab_account_site_${m%%:*}{")
		all=$(metric_sum "slab_account_${m#*:} ")
		[ "$site" = "$all" ] && [ "$all" != 0 ] || { ok=0; why="$m: sites $site, summary $all"; }
	done
	series=$(grep -c '^slab_account_site_allocs_total{' "$TMP/out")
	case $lim in
	"") want=6 ;; "-n 1") want=3 ;; "-n 3") want=5 ;; "--min 5000") want=6 ;; *) want=6 ;;
	esac
	if [ "$rc" != 0 ] || [ $ok = 0 ]; then
		fail "openmetrics-sums $lim" "exit status $rc; $why"
	elif [ "$series" != "$want" ]; then
		fail "openmetrics-sums $lim" "$series series, want $want"
	else
		pass "openmetrics-sums $lim"
	fi
done
# --top-k K: K sites, the rest per module for the K modules holding most
# of it (by the first sort key), the remainder as module="(other)"
expect prometheus-topk1 0 --prometheus --top-k 1 --no-summary $V
# sum by (module) of the site series equals the file's rows per module
# whenever the file has no more modules than K (valid.txt has 3)
for lim in "-n 3" "--top-k 3 -s live" "-n 4 -m sa_test" "--top-k 50"; do
	# shellcheck disable=SC2086
	run "prometheus-module-sums $lim" --prometheus --no-summary $lim $V
	want=$(awk '/^#/ { on = 1; next } on && NF {
		m = "vmlinux"; if ($NF ~ /^\[.*\]$/) m = substr($NF, 2, length($NF) - 2)
		live[m] += $4; allocs[m] += $9 + 0
	} END { for (m in live) printf "%s %d\n", m, live[m] }' $V | sort)
	got=$(awk -F'[{}]' '/^slab_account_site_live_bytes\{/ {
		split($2, l, "module=\""); split(l[2], q, "\""); s[q[1]] += $3
	} END { for (m in s) printf "%s %d\n", m, s[m] }' "$TMP/out" | sort)
	if [ "$rc" = 0 ] && [ -n "$want" ] && [ "$want" = "$got" ]; then
		pass "prometheus-module-sums $lim"
	else
		fail "prometheus-module-sums $lim" "exit status $rc; sums by module '$got', want '$want'"
	fi
done
# one sample per series: rows of one caller and type are added up
run openmetrics-dups --openmetrics fixtures/dups_after.txt
n=$(grep -c '^slab_account_site_allocated_bytes_total{.*site="0000000000000000",type="kmalloc"} 25$' "$TMP/out")
if [ "$rc" = 0 ] && [ "$n" = 1 ]; then
	pass openmetrics-dups
else
	fail openmetrics-dups "exit status $rc, $n samples of 25 bytes"
fi
# sums that do not fit in 64 bits are errors, never wrapped: two rows of
# one series, and the other call sites
{
	head -n 22 $V | sed 's/^number of callers: 6/number of callers: 3/'
	echo '18446744073709551615 0 18446744073709551615 0 0 0 0 1/1 kmalloc a+0x1/0x2 [m]'
	echo '18446744073709551615 0 18446744073709551615 0 0 0 0 1/1 kmalloc a+0x1/0x2 [m]'
	echo '1 0 1 0 0 0 0 1/1 kmalloc b+0x1/0x2 [m]'
} >"$TMP/om_big.txt"
expect_err openmetrics-series-overflow 1 "slabacct: $TMP/om_big.txt: the total of the series of site a+0x1/0x2 [m] does not fit in 64 bits" --openmetrics "$TMP/om_big.txt"
expect_err openmetrics-other-overflow 1 "slabacct: $TMP/om_big.txt: the total of the other call sites of module m does not fit in 64 bits" --openmetrics -m m -g b "$TMP/om_big.txt"
# the remainder past the K modules: two modules' sums that do not fit
{
	head -n 22 $V | sed 's/^number of callers: 6/number of callers: 4/'
	echo '18446744073709551615 0 18446744073709551615 0 0 0 0 1/1 kmalloc a+0x1/0x2 [m1]'
	echo '18446744073709551615 0 18446744073709551615 0 0 0 0 1/1 kmalloc a+0x1/0x2 [m2]'
	echo '18446744073709551615 0 18446744073709551615 0 0 0 0 1/1 kmalloc a+0x1/0x2 [m3]'
	echo '1 0 1 0 0 0 0 1/1 kmalloc b+0x1/0x2 [m]'
} >"$TMP/om_big3.txt"
expect_err prometheus-rest-overflow 1 "slabacct: $TMP/om_big3.txt: the total of the other call sites (module=\"(other)\") does not fit in 64 bits" --prometheus --top-k 1 -s caller "$TMP/om_big3.txt"
# a module named other: its own rest (module="other") and the remainder of
# the modules past K (module="(other)") are two series, never one twice
sed 's/\[mod_b\]/[other]/' fixtures/by.txt >"$TMP/by_other.txt"
expect prometheus-module-other 0 --prometheus --top-k 1 --no-summary "$TMP/by_other.txt"
dups=$(grep -v '^#' "$TMP/out" | sed 's/ [^ ]*$//' | sort | uniq -d)
if [ "$rc" = 0 ] && [ -s "$TMP/out" ] && [ -z "$dups" ]; then
	pass prometheus-module-other-unique
else
	fail prometheus-module-other-unique "exit status $rc, series twice: $dups"
fi
if command -v promtool >/dev/null 2>&1; then
	for args in "$V" "fixtures/valid_1_1.txt" "fixtures/quoting.txt" \
		    "fixtures/escapes.txt" "fixtures/dups_after.txt" "-n 1 $V" \
		    "fixtures/valid_1_4.txt" "fixtures/valid_1_5.txt" \
		    "--cache=nosuch $V" "--summary-only $V" "--no-summary -n 2 $V" \
		    "--top-k 1 $TMP/by_other.txt"; do
		# shellcheck disable=SC2086
		"$SLABACCT" --openmetrics $args >"$TMP/out" 2>"$TMP/err"
		if [ $? = 0 ] && promtool check metrics <"$TMP/out" >"$TMP/err" 2>&1; then
			pass "promtool check metrics: $args"
		else
			fail "promtool check metrics: $args" "$(head -5 "$TMP/err")"
		fi
	done
	# node_exporter's textfile collector: -o replaces the .prom file whole
	mkdir "$TMP/textfile"
	run openmetrics-output --openmetrics -o "$TMP/textfile/slab_account.prom" $V
	if [ "$rc" = 0 ] && [ "$(ls "$TMP/textfile")" = slab_account.prom ] &&
	   promtool check metrics <"$TMP/textfile/slab_account.prom" >"$TMP/err" 2>&1; then
		pass openmetrics-output
	else
		fail openmetrics-output "exit status $rc, files $(ls "$TMP/textfile"): $(head -3 "$TMP/err")"
	fi
	# --watch: each refresh replaces the file with one whole exposition
	run prometheus-watch-output -w --count 2 -i 0.1 --prometheus -o "$TMP/textfile/slab_account.prom" $V
	if [ "$rc" = 0 ] && [ "$(ls "$TMP/textfile")" = slab_account.prom ] &&
	   [ "$(grep -c '^# HELP slab_account_up ' "$TMP/textfile/slab_account.prom")" = 1 ] &&
	   promtool check metrics <"$TMP/textfile/slab_account.prom" >"$TMP/err" 2>&1; then
		pass prometheus-watch-output
	else
		fail prometheus-watch-output "exit status $rc, files $(ls "$TMP/textfile"): $(head -3 "$TMP/err")"
	fi
else
	echo "skip cli: promtool check metrics (no promtool: scripts/setup-deps.sh installs prometheus)"
fi
# The rules file: promtool check rules, and its unit tests (input series,
# the alerts that must fire and those that must not)
if command -v promtool >/dev/null 2>&1; then
	if promtool check rules ../../userspace/slab_account.rules.yml >"$TMP/err" 2>&1; then
		pass "promtool check rules"
	else
		fail "promtool check rules" "$(tail -5 "$TMP/err")"
	fi
	if promtool test rules slab_account.rules.test.yml >"$TMP/err" 2>&1; then
		pass "promtool test rules"
	else
		fail "promtool test rules" "$(tail -20 "$TMP/err")"
	fi
else
	echo "skip cli: promtool check rules, test rules (no promtool: scripts/setup-deps.sh installs prometheus)"
fi
# End to end: a real node exporter and prometheus server on 127.0.0.1
# scrape slabacct's exposition of two snapshots (prom_e2e.sh)
./prom_e2e.sh "$SLABACCT" >"$TMP/e2e" 2>&1
e2e_rc=$?
while read -r word rest; do
	case $word in
	ok) pass "${rest#prom-e2e: }" ;;
	FAIL) fail "${rest%%: *}" "${rest#*: }" ;;
	skip) echo "skip cli: $rest" ;;
	esac
done <"$TMP/e2e"
if [ $e2e_rc != 0 ] && [ $e2e_rc != 4 ] && ! grep -q '^FAIL' "$TMP/e2e"; then
	fail prom-e2e "exit status $e2e_rc: $(tail -3 "$TMP/e2e")"
fi

# ---- --folded ----

expect folded 0 --folded $V
expect folded-live 0 --folded -s live -m vmlinux $V
{
	head -n 22 $V | sed 's/^number of callers: 6/number of callers: 2/; s/^state: active/state: stopped/'
	echo '64 0 64 64 64 1 64 1/0 kmalloc f+0x1/0x2 [m]'
	echo '128 0 128 128 128 1 128 1/0 kmalloc f+0x1/0x2 [m] via kvmalloc_node'
} >"$TMP/via.txt"
run folded-via --folded "$TMP/via.txt"
printf 'm;f;f+0x1/0x2;kvmalloc_node 128\nm;f;f+0x1/0x2 64\n' >"$TMP/want"
if [ "$rc" = 0 ] && cmp -s "$TMP/want" "$TMP/out"; then
	pass folded-via
else
	fail folded-via "exit status $rc: $(cat "$TMP/out")"
fi
for args in "$V" "fixtures/quoting.txt" "fixtures/escapes.txt" "-s allocs fixtures/valid_1_1.txt"; do
	# shellcheck disable=SC2086
	run "folded format: $args" --folded $args
	bad=$(LC_ALL=C grep -acv '^[^;]*;[^;]*;[^;]* [1-9][0-9]*$' "$TMP/out")
	if [ "$rc" = 0 ] && [ "$bad" = 0 ] && [ -s "$TMP/out" ]; then
		pass "folded format: $args"
	else
		fail "folded format: $args" "exit status $rc, $bad lines not 'a;b;c N'"
	fi
done
# the stacks weigh what the summary says
run folded-sum --folded $V
if [ "$(awk '{ s += $NF } END { print s }' "$TMP/out")" = "$(sed -n 's/^total bytes allocated: //p' $V)" ]; then
	pass folded-sum
else
	fail folded-sum "the values do not add up to total bytes allocated"
fi

# ---- --svg: a treemap, rendered in headless Chromium ----

# By total load_elf_binary's 640 bytes of 1091844 are 517 square pixels of
# the picture, under PR_SVG_MIN_AREA: its module's paler tile, counted.
run svg --svg "$TMP/t.svg" -s total $V
sites=$(grep -c '^<g class="site">' "$TMP/t.svg")
if [ "$rc" != 0 ] || [ -s "$TMP/out" ] || [ "$sites" != 5 ] ||
   ! grep -q '^<g class="rest"><title>1 more call site of binfmt_misc$' "$TMP/t.svg" ||
   ! grep -q '>1 call site under 600 px² each: a paler tile per module<' "$TMP/t.svg"; then
	fail svg "exit status $rc, $sites call sites drawn, want 5 and binfmt_misc's rest"
elif command -v python3 >/dev/null 2>&1 &&
     ! python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$TMP/t.svg" 2>"$TMP/err"; then
	fail svg "not well-formed XML: $(cat "$TMP/err")"
else
	pass svg
fi
# By default the area is what is held now (live): sa_test_big, which holds
# nothing, is not drawn; labels carry the values, and a legend the scale.
run svg-live --svg "$TMP/live.svg" $V
if [ "$rc" = 0 ] && [ "$(grep -c '^<g class="site">' "$TMP/live.svg")" = 5 ] &&
   ! grep -q 'sa_test_big' "$TMP/live.svg" &&
   grep -q '>sa_test_cache_alloc+0x1c/0x50<tspan [^>]*>13.1K sa_test_cache</tspan></text>' "$TMP/live.svg" &&
   grep -q '^<g class="legend">' "$TMP/live.svg" && grep -q 'live 21.6K in 5 call sites' "$TMP/live.svg"; then
	pass svg-live
else
	fail svg-live "exit status $rc: $(grep -c 'class="site"' "$TMP/live.svg") sites"
fi
# the function level: foo_alloc [mod_a] has two call sites, framed and named
run svg-functions --svg "$TMP/by.svg" -s total fixtures/by.txt
if [ "$rc" = 0 ] && [ "$(grep -c '^<g class="function"><title>foo_alloc: total ' "$TMP/by.svg")" = 1 ] &&
   [ "$(grep -c '^<g class="module">' "$TMP/by.svg")" = 4 ]; then
	pass svg-functions
else
	fail svg-functions "exit status $rc: $(grep '^<g class="function">' "$TMP/by.svg")"
fi
# -n 2: the other call sites are a paler tile in their module, not a module "other"
run svg-top --svg "$TMP/t2.svg" -s total -n 2 fixtures/quoting.txt
if [ "$rc" = 0 ] && [ "$(grep -c '^<g class="site">' "$TMP/t2.svg")" = 2 ] &&
   [ "$(grep -c '^<g class="rest"><title>3 more call sites of vmlinux$' "$TMP/t2.svg")" = 1 ] &&
   ! grep -q '<title>other' "$TMP/t2.svg"; then
	pass svg-top
else
	fail svg-top "exit status $rc: $(grep -c 'class="rest"' "$TMP/t2.svg") rest tiles"
fi
# a filter: only the module's call sites, no "other"
run svg-filtered --svg "$TMP/t3.svg" -s total -m sa_test $V
if [ "$rc" = 0 ] && [ "$(grep -c '^<g class="module">' "$TMP/t3.svg")" = 1 ] &&
   ! grep -q 'class="rest"' "$TMP/t3.svg" && ! grep -q '>other' "$TMP/t3.svg"; then
	pass svg-filtered
else
	fail svg-filtered "exit status $rc: $(grep '^<g class="module">' "$TMP/t3.svg")"
fi
# sixty similar small sites: none drawn as a sliver, all sixty counted in
# their module's tile; the three holding nothing counted as left out; the
# tooltips give the cache and the objects
expect svg-many 0 --svg - fixtures/svg_many.txt
if grep -q '^<g class="rest"><title>60 more call sites of sa_test$' expected/svg-many.out &&
   grep -q '>60 call sites under 600 px² each: a paler tile per module<' expected/svg-many.out &&
   grep -q '5 call sites drawn, 3 with live 0 left out' expected/svg-many.out &&
   grep -A3 '^<g class="site"><title>alloc_inode+0x59/0xc0$' expected/svg-many.out |
	grep -q '^live objects 300, allocs/frees 600/300$'; then
	pass svg-many-checked
else
	fail svg-many-checked "expected/svg-many.out lacks the rest tile, the legend's counts or the tooltip"
fi
# the same slack share everywhere: the legend says the colour is uniform
expect svg-uniform 0 --svg - fixtures/svg_uniform.txt
# the total is a sum, never wrapped
{
	head -n 22 $V | sed 's/^number of callers: 6/number of callers: 2/'
	echo '18446744073709551615 0 18446744073709551615 0 0 0 0 1/1 kmalloc a+0x1/0x2 [m]'
	echo '18446744073709551615 0 18446744073709551615 0 0 0 0 1/1 kmalloc b+0x1/0x2 [m]'
} >"$TMP/svg_big.txt"
expect_err svg-overflow 1 "slabacct: $TMP/svg_big.txt: the total of the call sites drawn does not fit in 64 bits" --svg "$TMP/x.svg" -s total "$TMP/svg_big.txt"
if command -v chromium >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	# render SVG PNG: Chromium, headless, a fresh profile, 1200x800
	render() {
		rm -rf "$TMP/profile"
		timeout 120 chromium --headless --no-sandbox --disable-gpu \
			--disable-background-networking --disable-component-update \
			--disable-sync --no-first-run --user-data-dir="$TMP/profile" \
			--window-size=1200,800 --screenshot="$2" "file://$1" >/dev/null 2>&1 &&
			[ -s "$2" ]
	}
	# in_range X LO HI
	in_range() {
		awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'
	}
	# The area follows the sort key and the colour the slack (green 0% to
	# red 50% and more): by total, sa_test_big is 96% of all bytes and 50%
	# slack (hsl(0,70%,55%) = 221,60,60); sa_test_cache_alloc 2.5% with
	# 4.8% slack (hsl(109,...) = 89,221,60).  By live (the default) it has
	# none and sa_test_cache_alloc holds 62% with 4.8% slack of its live
	# bytes, __d_alloc 7% with 67% (red).  The tiles fill the picture but for the title, the legend,
	# the frames' heads and labels.
	if render "$TMP/t.svg" "$TMP/t.png"; then
		set -- $(python3 png_share.py "$TMP/t.png" 221,60,60 89,221,60)
		if in_range "$1" 0.78 0.92 && in_range "$2" 0.01 0.04 && in_range "$3" 0.90 1; then
			pass "svg render: total"
		else
			fail "svg render: total" "shares: sa_test_big $1, sa_test_cache_alloc $2, not white $3"
		fi
	else
		fail "svg render: total" "chromium wrote no screenshot"
	fi
	if render "$TMP/live.svg" "$TMP/live.png"; then
		set -- $(python3 png_share.py "$TMP/live.png" 221,60,60 89,221,60)
		if in_range "$1" 0.03 0.09 && in_range "$2" 0.45 0.61 && in_range "$3" 0.90 1; then
			pass "svg render: live"
		else
			fail "svg render: live" "shares: red (__d_alloc: 67% of its live bytes) $1, sa_test_cache_alloc $2, not white $3"
		fi
	else
		fail "svg render: live" "chromium wrote no screenshot"
	fi
else
	echo "skip cli: svg render (no chromium or python3: scripts/setup-deps.sh installs chromium)"
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
expect_order diff-min "bio_kmalloc sa_test_cache_alloc" -d --min 1 -s frees $B $A
expect_order diff-same-file "" -d $V $V
expect_order diff-same-file-all "__d_alloc alloc_inode bio_kmalloc load_elf_binary sa_test_big sa_test_cache_alloc" -d -a $V $V

# ---- --by: call sites grouped and summed ----
# fixtures/by.txt: 9 call sites in 4 modules (vmlinux too), 7 functions (two
# sites in foo_alloc [mod_a], two in d_alloc, foo_alloc also in mod_c), every
# type (kmalloc, cache:NAME, cache:*, cache, mixed); by_after.txt: foo_alloc
# [mod_a] and d_alloc grew, bar_make [mod_a] is gone, newer [mod_d] is new.

BY=fixtures/by.txt
BYA=fixtures/by_after.txt
expect by-module 0 --by module $BY
expect by-function 0 -b function --no-summary $BY
expect by-cache 0 -b cache --no-summary $BY
expect by-type 0 -b type --no-summary -H $BY
expect by-function-sort 0 -b function --no-summary -s live,caller -r $BY
expect by-function-filter 0 -b function --no-summary -m mod_a -n 1 $BY
expect by-cache-kmalloc 0 -b cache --no-summary --kmalloc $BY
expect by-module-min-sites 0 -b module --no-summary -s sites --min 2 $BY
expect by-type-min-size-csv 0 -b type --csv -z 512 $BY
expect by-cache-csv 0 -b cache --csv $BY
expect by-module-json 0 -b module --json -s sites,caller -n 3 $BY
expect by-module-diff 0 -b module -d $BY $BYA
expect by-function-diff-csv 0 -b function -d -a --csv -s live $BY $BYA
expect by-module-diff-json 0 -b module --json -d --no-summary $BY $BYA
# a group's sums must fit in 64 bits
{
	head -n 22 $BY | sed 's/^state: stopped/state: active/; s/^number of callers: 9/number of callers: 2/'
	echo '18446744073709551615 0 18446744073709551615 0 0 0 0 1/1 kmalloc a+0x1/0x2 [m]'
	echo '1 0 1 0 0 0 0 1/1 kmalloc b+0x1/0x2 [m]'
} >"$TMP/by_big.txt"
expect_err by-overflow 1 "slabacct: $TMP/by_big.txt: the total of the group m does not fit in 64 bits" -b module --no-summary "$TMP/by_big.txt"
expect_order by-big-by-function "b [m] a [m]" -b function -s caller -r "$TMP/by_big.txt"

# ---- retired call sites (format 1.3): a module's load that unloaded ----
# fixtures/retired_before.txt: sa_fixed unloaded (load 1), sa_leak's load 1
# live; retired.txt: sa_leak unloaded twice and loaded again (reloaded
# sa_leak: 3), its retired rows keeping their objects, some freed since.

R=fixtures/retired.txt
RB=fixtures/retired_before.txt
expect retired 0 $R
expect retired-by-module 0 -b module --no-summary $R
expect retired-by-function 0 -b function --no-summary -m sa_leak $R
# a live row of load 1 joins its later retired self (unloaded#1); load 2's
# and load 3's rows are new
expect retired-diff 0 -d $RB $R
expect retired-folded 0 --folded $R
expect retired-json 0 --json --no-summary -m sa_leak $R
expect_order retired-module "sa_leak_buf sa_leak_init sa_leak_init sa_leak_work sa_leak_init" -m sa_leak $R
run retired-svg --svg "$TMP/r.svg" $R
if [ "$rc" = 0 ] && [ "$(grep -c '^<g class="module"><title>sa_leak (load [12], unloaded): live ' "$TMP/r.svg")" = 2 ] &&
   [ "$(grep -c '^<g class="module"><title>sa_leak: live 256</title>' "$TMP/r.svg")" = 1 ]; then
	pass retired-svg
else
	fail retired-svg "exit status $rc: $(grep '^<g class="module">' "$TMP/r.svg")"
fi

# ---- --unloads: what each module load left live at its unload ----
# fixtures/unloads.txt: sa_fixed's clean unload; sa_leak's load 1 left 3
# objects (2 sites), its load 2 one; retired.txt, read after them, has 1
# of load 1's sa_leak_init objects and load 2's still live: 2 freed since.

U=fixtures/unloads.txt
expect unloads 0 --unloads $U $R
expect unloads-alone 0 --unloads $U
expect unloads-csv 0 --unloads --csv $U $R
expect unloads-json 0 --unloads --json -m sa_leak $U $R
# a snapshot read before the unloads joins none of them
expect unloads-older 0 --unloads $U $RB
# 10 sites, the top 8 listed: the other 2 are one row; 68 unloads dropped
expect unloads-many 0 --unloads -H fixtures/unloads_many.txt
# unloads_err NAME LINE MESSAGE: fixtures/unloads.txt with its line LINE
# replaced (sed's "c" text), read by --unloads, fails with MESSAGE
unloads_err() {
	sed "$2" $U >"$TMP/unl.txt"
	expect_err "$1" 1 "slabacct: $TMP/unl.txt:$3" --unloads "$TMP/unl.txt"
}
unloads_err unloads-v2 '1s/1\.0/2.0/' "1: unsupported unloads format version 2.0 (this reader understands 1.x)"
unloads_err unloads-no-kept '/^kept/d' "4: no 'kept' line before the legend"
unloads_err unloads-bad-now 's/^now: 1234/now: 12x4/' "2: now '12x4' is not an unsigned decimal number"
unloads_err unloads-when-after-now 's/^1230 /1235 /' "11: when 1235 is after now 1234"
unloads_err unloads-order 's/^1230 /1190 /' "11: when 1190 is before the previous unload's 1200 (unloads come in their order)"
unloads_err unloads-load-order 's/^1230 sa_leak 2/1230 sa_leak 1/' "11: sa_leak's load 1 unloaded after its load 1 (line 8): a module's loads only increase"
unloads_err unloads-req-over-bytes 's/^  1 128 100 3/  1 128 200 3/' "12: req 200 is more than bytes 128 (bytes >= req)"
unloads_err unloads-sites-count 's/^1200 sa_leak 1 3 384 300 2/1200 sa_leak 1 3 384 300 3/' "11: the unload of line 8 has 2 site lines, not 3 (min(sites, 8))"
unloads_err unloads-sum 's/^  1 128 100 15/  1 120 100 15/' "11: the site lines of the unload of line 8 have 376 bytes, not its 384"
unloads_err unloads-wrong-load 's/work+0x22\/0x60 \[sa_leak\] unloaded#1/work+0x22\/0x60 [sa_leak] unloaded#2/' "10: the caller ends in ' [sa_leak] unloaded#2', not ' [sa_leak] unloaded#1' (the unload's module and load)"
unloads_err unloads-not-retired 's/ \[sa_leak\] unloaded#2$/ [sa_leak]/' "12: the caller does not end in ' [sa_leak] unloaded#2' (the unload's module and load)"
unloads_err unloads-site-more 's/^1230 sa_leak 2 1 128 100 1/1230 sa_leak 2 1 128 100 0/' "12: one site line more than the unload of line 11 has (sites 0, at most 8 lines)"
unloads_err unloads-site-first '7,8d' "7: a site line before the first unload line"
unloads_err unloads-blanks 's/^  1 128 100 3/ 1 128 100 3/' "12: a site line starts with two blanks, an unload line with none"
unloads_err unloads-kept 's/^kept: 3/kept: 2/' "13: kept 2, unloads 3: the file has 3 unload records (kept, at most unloads)"
unloads_err unloads-oldest 's/^  1 128 100 3 /  1 128 100 1231 /' "12: oldest 1231 is more than the unload's when 1230"
unloads_err unloads-clean-bytes 's/^1180 sa_fixed 1 0 0 0 0/1180 sa_fixed 1 0 8 0 0/' "7: objs is 0 but bytes or sites is not"
unloads_err unloads-legend '6d' "6: expected the second '#' legend line ('#  objs bytes req oldest type caller')"
head -c 200 $U >"$TMP/unl.txt"
expect_err unloads-truncated 1 "slabacct: $TMP/unl.txt:9: line not terminated by a newline (truncated file?)" --unloads "$TMP/unl.txt"
expect_err unloads-main-file 1 "slabacct: $V:1: not a slab_account unloads file: expected 'slab_account unloads - version: 1.x', got 'slab_account - version: 1.0'" --unloads $V
expect_err unloads-as-snapshot 1 "slabacct: $U:1: not a slab_account file: expected 'slab_account - version: 1.x', got 'slab_account unloads - version: 1.0' (an unloads file: --unloads FILE reads it)" $U
if [ ! -e /proc/slab_account_unloads ]; then
	expect_err unloads-no-module 1 \
		"slabacct: /proc/slab_account_unloads: No such file or directory (is the module loaded? insmod slab_account.ko)" --unloads
fi

# ---- --check: the gate ----
# The driver author's loop: sa_fixed (fixtures/fixed_base.txt while loaded,
# fixed.txt after its clean unload, fixed_unloads.txt) passes its rules;
# sa_leak (retired_before.txt, retired.txt, unloads.txt) fails its own,
# naming the sites.  Exit 0 all hold, 1 one fails, 2 usage.

GF="--rules fixtures/gate_fixed.rules --unloads-file fixtures/fixed_unloads.txt fixtures/fixed_base.txt fixtures/fixed.txt"
GL="--rules fixtures/gate_leak.rules --unloads-file $U $RB $R"
# shellcheck disable=SC2086
{
expect gate-fixed 0 --check $GF
expect gate-leak 1 --check $GL
expect gate-fixed-ktap 0 --check --ktap $GF
expect gate-leak-ktap 1 --check --ktap $GL
expect gate-leak-junit 1 --check --junit $GL
expect gate-leak-json 1 --check --json $GL
}
# a misspelt module, or a driver whose insmod failed: every rule that
# reads it selects nothing and fails, saying why, in every format
GT="--rules fixtures/gate_typo.rules --unloads-file $U $R"
# shellcheck disable=SC2086
{
expect gate-typo 1 --check $GT
expect gate-typo-ktap 1 --check --ktap $GT
expect gate-typo-junit 1 --check --junit $GT
expect gate-typo-json 1 --check --json $GT
}
# a gate that cannot run is an error (exit 2), not a failure: its input
# missing, not a file, malformed, cut short (a snapshot or a baseline with
# fewer rows than its `number of callers`), a bad rule; the message on
# stderr and, when a report is asked for, the report of one test in error
GE="--rules fixtures/gate_leak.rules --unloads-file $U"
# shellcheck disable=SC2086
{
expect gate-error-missing 2 --check $GE $RB fixtures/missing.txt
expect gate-error-missing-junit 2 --check --junit $GE $RB fixtures/missing.txt
expect gate-error-missing-ktap 2 --check --ktap $GE $RB fixtures/missing.txt
expect gate-error-missing-json 2 --check --json $GE $RB fixtures/missing.txt
expect gate-error-dir 2 --check --junit $GE $RB fixtures
expect gate-error-malformed 2 --check --junit $GE $RB fixtures/truncated.txt
expect gate-error-truncated 2 --check --junit $GE $RB fixtures/retired_cut.txt
expect gate-error-truncated-baseline 2 --check --ktap $GE fixtures/retired_cut.txt $R
expect gate-error-unloads 2 --check --junit --rules fixtures/gate_leak.rules --unloads-file fixtures/missing_unloads.txt $RB $R
expect gate-error-detail 2 --check --junit -R "no growing" --baseline-detail fixtures/leaks_new.txt --detail fixtures/leaks_old.txt $V
expect gate-error-rule 2 --check --junit -R "live <= 64Q module x" $R
}
# shellcheck disable=SC2086
run gate-error-text-o --check $GE -o "$TMP/report.txt" $RB fixtures/retired_cut.txt
if [ "$rc" = 2 ] && [ ! -s "$TMP/out" ] && cmp -s expected/gate-error-truncated.err "$TMP/err" &&
   printf '%s\n' "slabacct --check: fixtures/retired_cut.txt against the baseline fixtures/retired_before.txt, unloads fixtures/unloads.txt" \
	"ERROR: $(sed 's/^slabacct: //' expected/gate-error-truncated.err)" \
	"the gate could not run: no rule judged" | cmp -s - "$TMP/report.txt"; then
	pass gate-error-text-o
else
	fail gate-error-text-o "exit status $rc: $(cat "$TMP/err" "$TMP/report.txt")"
fi
expect_err save-baseline-truncated 1 "slabacct: fixtures/retired_cut.txt: 6 rows, fewer than the header's 'number of callers: 9': the file is truncated (cut at the end of a line), or slab_account was reset while it was read" --save-baseline "$TMP/cut.txt" fixtures/retired_cut.txt
# every rule, passing and failing (gate_rule NAME RC RULE [ARGS]: the
# text output's result lines, exactly)
gate_rule() {
	name=$1
	want_rc=$2
	rule=$3
	shift 3
	run "$name" --check -R "$rule" "$@"
	{ sed -n 's/^\(PASS\|FAIL\) [0-9]* //p; /^       /p' "$TMP/out"; cat "$TMP/err"; } >"$TMP/got"
	if [ "$rc" != "$want_rc" ]; then
		fail "$name" "exit status $rc, want $want_rc: $(cat "$TMP/got")"
	elif ! cmp -s "$TMP/want" "$TMP/got"; then
		fail "$name" "$(diff "$TMP/want" "$TMP/got")"
	else
		pass "$name"
	fi
}
want() {
	printf '%s\n' "$@" >"$TMP/want"
}
want "live <= 512 module sa_leak: module sa_leak: 512 live bytes (limit 512)"
gate_rule rule-live-pass 0 "live <= 512 module sa_leak" $R
want "live <= 511 module sa_leak: module sa_leak: 512 live bytes (limit 511)" \
     "       module sa_leak: 512 live bytes, over 511 bytes"
gate_rule rule-live-fail 1 "live <= 511 module sa_leak" $R
want "objs <= 3 loaded module sa_leak: loaded module sa_leak: 2 live objects (limit 3)"
gate_rule rule-objs-pass 0 "objs <= 3 loaded module sa_leak" $R
want "objs <= 3 module sa_leak: module sa_leak: 4 live objects (limit 3)" \
     "       module sa_leak: 4 live objects, over 3"
gate_rule rule-objs-fail 1 "objs <= 3 module sa_leak" $R
want "live <= 4095 per site: 2 of 7 sites of all call sites over 4095" \
     "       alloc_inode+0x4f/0x120: 4096 live bytes, over 4095 bytes" \
     "       seq_read_iter+0x110/0x430: 4096 live bytes, over 4095 bytes"
gate_rule rule-live-per-site 1 "live <= 4095 per site" $R
want "live <= 4K per module not module vmlinux: 0 of 3 modules of not module vmlinux over 4096"
gate_rule rule-live-per-module-pass 0 "live <= 4K per module not module vmlinux" $R
want "live <= 4K per function module sa_leak: 0 of 3 functions of module sa_leak over 4096"
gate_rule rule-per-function 0 "live <= 4K per function module sa_leak" $R
want "live <= 4K per cache: 1 of 3 caches of all call sites over 4096" \
     "       kmalloc: 4608 live bytes, over 4096 bytes"
gate_rule rule-per-cache 1 "live <= 4K per cache" $R
want "slack <= 12%: all call sites: slack 12.0% (2944 of 24576 bytes allocated) (limit 12%)"
gate_rule rule-slack-pass 0 "slack <= 12%" $R
want "slack <= 11.97%: all call sites: slack 12.0% (2944 of 24576 bytes allocated) (limit 11.97%)" \
     "       all call sites: slack 12.0% (2944 of 24576 bytes allocated), over 11.97%"
gate_rule rule-slack-fail 1 "slack <= 11.97%" $R
want "slack <= 2943 type kmalloc: type kmalloc: slack 18.7% (2944 of 15744 bytes allocated) (limit 2943)" \
     "       type kmalloc: slack 18.7% (2944 of 15744 bytes allocated), over 2943 bytes"
gate_rule rule-slack-bytes 1 "slack <= 2943 type kmalloc" $R
want "growth <= 33.3% module sa_leak: module sa_leak: +33.3% live bytes (384 -> 512) (limit 33.3%)" \
     "       module sa_leak: +33.3% live bytes (384 -> 512), over 33.3%"
gate_rule rule-growth-pct-fail 1 "growth <= 33.3% module sa_leak" $RB $R
want "growth <= 33.34% module sa_leak: module sa_leak: +33.3% live bytes (384 -> 512) (limit 33.34%)"
gate_rule rule-growth-pct-pass 0 "growth <= 33.34% module sa_leak" $RB $R
want "growth <= 127 module sa_leak: module sa_leak: +128 live bytes (384 -> 512) (limit 127)" \
     "       module sa_leak: +128 live bytes (384 -> 512), over 127 bytes"
gate_rule rule-growth-fail 1 "growth <= 127 module sa_leak" --baseline $RB $R
want "growth <= 50% per site module vmlinux: 1 of 2 sites of module vmlinux over 50%" \
     "       seq_read_iter+0x110/0x430: +4096 live bytes, none in the baseline (0 -> 4096), over 50%"
gate_rule rule-growth-new-site 1 "growth <= 50% per site module vmlinux" $RB $R
want "no growing module sa_leak not site sa_leak_init+0x1a/0x40: 0 of 2 call sites of module sa_leak not site sa_leak_init+0x1a/0x40 hold more objects than in the baseline"
gate_rule rule-growing-pass 0 "no growing module sa_leak not site sa_leak_init+0x1a/0x40" $RB $R
want "no growing function sa_leak_init: 1 of 1 call sites of function sa_leak_init hold more objects than in the baseline" \
     "       sa_leak_init+0x1a/0x40 [sa_leak]: live objects 2 -> 4 (+2), live bytes 256 -> 512 (+256)"
gate_rule rule-growing-fail 1 "no growing function sa_leak_init" $RB $R
# the growing verdict of two detail files (as --leaks: the 30 s old leak grows, the churn is a steady cache)
want "no growing module sa_test: 1 call site of module sa_test growing (--leaks: more live objects, the oldest 10 s or older)" \
     "       sa_test_leak_fn+0x2c/0x80 [sa_test]: growing: live objects 21 -> 31, bytes 10752 -> 15872 in 10 s, oldest 30s"
gate_rule rule-growing-detail 1 "no growing module sa_test" --baseline-detail fixtures/leaks_old.txt --detail fixtures/leaks_new.txt $V
want "no growing module vmlinux: 0 call sites of module vmlinux growing (--leaks: more live objects, the oldest 10 s or older)"
gate_rule rule-growing-detail-pass 0 "no growing module vmlinux" --baseline-detail fixtures/leaks_old.txt --detail fixtures/leaks_new.txt $V
# detail files closer than --leaks-min-age (at least 10 s): no verdict, not a pass
expect_err rule-growing-detail-short 2 "slabacct: fixtures/leaks_burst_old.txt and fixtures/leaks_burst_new.txt are 6 s apart: too short to tell growth from a burst (growing needs 10 s or more: --leaks-min-age, at least 10 s)" \
	--check -R "no growing" --baseline-detail fixtures/leaks_burst_old.txt --detail fixtures/leaks_burst_new.txt $V
expect_err rule-growing-detail-min-age 2 "slabacct: fixtures/leaks_old.txt and fixtures/leaks_new.txt are 10 s apart: too short to tell growth from a burst (growing needs 11 s or more: --leaks-min-age, at least 10 s)" \
	--check -R "no growing" --leaks-min-age 11 --baseline-detail fixtures/leaks_old.txt --detail fixtures/leaks_new.txt $V
want "no left-at-unload module sa_leak not function sa_leak_init: 1 of 1 unloads of module sa_leak not function sa_leak_init left 1 object still live at the unload" \
     "       sa_leak (load 1), unloaded 34s ago: sa_leak_work+0x22/0x60 [sa_leak] unloaded#1: 1 object (128 bytes) still live at the unload, oldest 15s; since: 1 freed, 0 still live"
gate_rule rule-left-not 1 "no left-at-unload module sa_leak not function sa_leak_init" --unloads-file $U $R
want "no left-at-unload module sa_fixed: none of 1 unload of module sa_fixed left an object live"
gate_rule rule-left-pass 0 "no left-at-unload module sa_fixed" --unloads-file $U $R
# a snapshot read before the unloads: what became of the objects is not said
want "no left-at-unload module sa_leak: 2 of 2 unloads of module sa_leak left 4 objects still live at the unload" \
     "       sa_leak (load 1), unloaded 34s ago: sa_leak_init+0x1a/0x40 [sa_leak] unloaded#1: 2 objects (256 bytes) still live at the unload, oldest 15s" \
     "       sa_leak (load 1), unloaded 34s ago: sa_leak_work+0x22/0x60 [sa_leak] unloaded#1: 1 object (128 bytes) still live at the unload, oldest 15s" \
     "       sa_leak (load 2), unloaded 4s ago: sa_leak_init+0x1a/0x40 [sa_leak] unloaded#2: 1 object (128 bytes) still live at the unload, oldest 3s"
gate_rule rule-left-older 1 "no left-at-unload module sa_leak" --unloads-file $U $RB
want "no left-at-unload cache nosuch: no call site of cache nosuch in the unloads' sites or the snapshot's retired rows: nothing to judge (a misspelt name, or did it never load or unload?)"
gate_rule rule-left-cache 1 "no left-at-unload cache nosuch" --unloads-file $U $R
want "no left-at-unload module sa_leak function sa_leak_work: 1 of 1 unloads of module sa_leak function sa_leak_work left 1 object still live at the unload" \
     "       sa_leak (load 1), unloaded 34s ago: sa_leak_work+0x22/0x60 [sa_leak] unloaded#1: 1 object (128 bytes) still live at the unload, oldest 15s; since: 1 freed, 0 still live"
gate_rule rule-left-function 1 "no left-at-unload module sa_leak function sa_leak_work" --unloads-file $U $R
want "no left-at-unload module sa_fixed function sa_fixed_init: none of 1 unload of module sa_fixed function sa_fixed_init left an object live"
gate_rule rule-left-clean-site 0 "no left-at-unload module sa_fixed function sa_fixed_init" --unloads-file $U $R
want "no live-after-unload type kmalloc: 2 of 5 retired call sites of type kmalloc still hold 2 objects (256 bytes)" \
     "       sa_leak_init+0x1a/0x40 [sa_leak] unloaded#1: 1 object (128 bytes) still live after its module's load 1 unloaded" \
     "       sa_leak_init+0x1a/0x40 [sa_leak] unloaded#2: 1 object (128 bytes) still live after its module's load 2 unloaded"
gate_rule rule-live-after-fail 1 "no live-after-unload type kmalloc" $R
want "no live-after-unload module sa_fixed: no object of the 1 retired call site of module sa_fixed is still live"
gate_rule rule-live-after-pass 0 "no live-after-unload module sa_fixed" $R
# a rule that selects nothing fails, saying why (a misspelt name, a driver
# that never loaded), whatever it reads; `optional` makes it hold
want "live <= 0 unloaded cache kmalloc: no call site of unloaded cache kmalloc in the snapshot: nothing to judge (a misspelt name, or did it never load or allocate?)"
gate_rule rule-nothing-selected 1 "live <= 0 unloaded cache kmalloc" $R
want "live <= 0 unloaded cache kmalloc optional: no call site of unloaded cache kmalloc in the snapshot: nothing to judge (optional: it holds)"
gate_rule rule-nothing-optional 0 "live <= 0 unloaded cache kmalloc optional" $R
want "objs <= 0 per site module sa_lek: no call site of module sa_lek in the snapshot: nothing to judge (a misspelt name, or did it never load or allocate?)"
gate_rule rule-nothing-per-site 1 "objs <= 0 per site module sa_lek" $R
want "slack <= 10%: no call site in the snapshot: nothing to judge (a misspelt name, or did it never load or allocate?)"
gate_rule rule-nothing-empty-file 1 "slack <= 10%" fixtures/no_rows.txt
want "growth <= 1K module sa_lek: no call site of module sa_lek in the snapshot or the baseline: nothing to judge (a misspelt name, or did it never load or allocate?)"
gate_rule rule-nothing-growth 1 "growth <= 1K module sa_lek" $RB $R
want "no growing module sa_lek: no call site of module sa_lek in the snapshot or the baseline: nothing to judge (a misspelt name, or did it never load or allocate?)"
gate_rule rule-nothing-growing 1 "no growing module sa_lek" $RB $R
want "no growing module sa_lek: no call site of module sa_lek in the detail files: nothing to judge (a misspelt name, or did it never load or allocate?)"
gate_rule rule-nothing-growing-detail 1 "no growing module sa_lek" --baseline-detail fixtures/leaks_old.txt --detail fixtures/leaks_new.txt $V
want "no left-at-unload module sa_lek: no unload of module sa_lek in the unloads file: nothing to judge (a misspelt name, or did it never load or unload?)"
gate_rule rule-nothing-left 1 "no left-at-unload module sa_lek" --unloads-file $U $R
want "no left-at-unload module sa_leak function sa_leak_wrok: no call site of module sa_leak function sa_leak_wrok in the unloads' sites or the snapshot's retired rows: nothing to judge (a misspelt name, or did it never load or unload?)"
gate_rule rule-nothing-left-function 1 "no left-at-unload module sa_leak function sa_leak_wrok" --unloads-file $U $R
# only 'not' selectors that leave out every site of the module's unloads,
# and a snapshot with no retired row of it: nothing to judge
want "no left-at-unload module sa_leak not function sa_leak_init not function sa_leak_work: no call site of module sa_leak not function sa_leak_init not function sa_leak_work in the unloads' sites or the snapshot's retired rows: nothing to judge (a misspelt name, or did it never load or unload?)"
gate_rule rule-nothing-left-not 1 "no left-at-unload module sa_leak not function sa_leak_init not function sa_leak_work" --unloads-file $U $RB
want "no live-after-unload module sa_lek: no retired call site of module sa_lek in the snapshot: nothing to judge (a misspelt name, or did it never load or unload?)"
gate_rule rule-nothing-live-after 1 "no live-after-unload module sa_lek" $R
want "no live-after-unload module binfmt_misc optional: no retired call site of module binfmt_misc in the snapshot: nothing to judge (optional: it holds)"
gate_rule rule-nothing-live-after-optional 0 "no live-after-unload module binfmt_misc optional" $R

# baselines: saved with --save-baseline (the bytes read, replaced whole),
# or the snapshot --check judged; the same verdicts as the pair
run save-baseline --save-baseline "$TMP/base.txt" $RB
if [ "$rc" = 0 ] && [ ! -s "$TMP/out" ] && cmp -s $RB "$TMP/base.txt"; then
	pass save-baseline
else
	fail save-baseline "exit status $rc: $(cat "$TMP/err")"
fi
# shellcheck disable=SC2086
run gate-saved-baseline --check --rules fixtures/gate_leak.rules --unloads-file $U --baseline "$TMP/base.txt" $R
sed "s|$TMP/base.txt|$RB|" "$TMP/out" >"$TMP/got"
if [ "$rc" = 1 ] && cmp -s expected/gate-leak.out "$TMP/got"; then
	pass gate-saved-baseline
else
	fail gate-saved-baseline "exit status $rc: $(diff expected/gate-leak.out "$TMP/got" | head -5)"
fi
# shellcheck disable=SC2086
run gate-save-checked --check $GF --save-baseline "$TMP/next.txt" -o "$TMP/report.txt"
if [ "$rc" = 0 ] && cmp -s fixtures/fixed.txt "$TMP/next.txt" && cmp -s expected/gate-fixed.out "$TMP/report.txt"; then
	pass gate-save-checked
else
	fail gate-save-checked "exit status $rc: $(cat "$TMP/err")"
fi
expect_err save-baseline-bad 1 "slabacct: $U:1: not a slab_account file: expected 'slab_account - version: 1.x', got 'slab_account unloads - version: 1.0' (an unloads file: --unloads FILE reads it)" --save-baseline "$TMP/x.txt" $U
# a reset of slab_account between the baseline and now is said, in every format
sed 's/^state: stopped$/state: active/; s/^number of allocs: 158$/number of allocs: 500/' $RB >"$TMP/reset.txt"
run gate-reset --check -R "growth <= 8K" "$TMP/reset.txt" $R
if [ "$rc" = 0 ] && grep -qx "note: the current snapshot has fewer allocs than the baseline (167 < 500): slab_account was reset or reloaded in between; live objects and bytes are compared as they are" "$TMP/out"; then
	pass gate-reset
else
	fail gate-reset "exit status $rc: $(cat "$TMP/out" "$TMP/err")"
fi
run gate-reset-ktap --check --ktap -R "growth <= 8K" "$TMP/reset.txt" $R
if [ "$rc" = 0 ] && grep -qx "# note: the current snapshot has fewer allocs than the baseline (167 < 500): .*" "$TMP/out"; then
	pass gate-reset-ktap
else
	fail gate-reset-ktap "exit status $rc: $(cat "$TMP/out" "$TMP/err")"
fi

# KTAP read by the kernel's own parser (tools/testing/kunit/kunit_parser.py
# of an unpacked kernel tree: SA_KUNIT_DIR, or the cache's sources)
KUNIT=${SA_KUNIT_DIR:-}
if [ -z "$KUNIT" ]; then
	for d in "${SA_CACHE:-$HERE/../../.cache}"/src/*/linux-source-*/tools/testing/kunit; do
		[ -f "$d/kunit_parser.py" ] && KUNIT=$d
	done
fi
if [ -n "$KUNIT" ] && command -v python3 >/dev/null 2>&1; then
	for g in fixed leak typo error-missing; do
		python3 ktap_check.py "$KUNIT" expected/gate-$g-ktap.out >"$TMP/parsed" 2>&1
		if cmp -s expected/gate-$g-ktap.parsed "$TMP/parsed"; then
			pass "gate-$g-ktap: kunit_parser.py ($KUNIT)"
		else
			fail "gate-$g-ktap: kunit_parser.py" "$(diff expected/gate-$g-ktap.parsed "$TMP/parsed")"
		fi
	done
else
	echo "skip cli: KTAP through kunit_parser.py (no kernel tree: SA_KUNIT_DIR or \$SA_CACHE/src/*/linux-source-*)"
fi
# JUnit XML against the schema (junit.xsd: Jenkins' junit-10.xsd's structure)
if command -v xmllint >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	printf 'live <= 0 per site\nslack <= 0%% per cache\n' >"$TMP/all.rules"
	for args in "$GF" "$GL" "$GT" "$GE $RB fixtures/missing.txt" "$GE $RB fixtures/retired_cut.txt" \
		    "--rules $TMP/all.rules fixtures/escapes.txt" "--rules $TMP/all.rules fixtures/quoting.txt"; do
		"$SLABACCT" --check --junit $args >"$TMP/j.xml" 2>/dev/null
		if [ -s "$TMP/j.xml" ] && xmllint --noout --schema junit.xsd "$TMP/j.xml" >"$TMP/err" 2>&1; then
			pass "junit schema: $args"
		else
			fail "junit schema: $args" "$(head -5 "$TMP/err")"
		fi
	done
else
	echo "skip cli: JUnit schema (no xmllint: apt-get install libxml2-utils)"
fi
if command -v python3 >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	for args in "$GL" "$GT" "$GE $RB fixtures/missing.txt"; do
		if "$SLABACCT" --check --json $args 2>/dev/null | python3 -m json.tool >/dev/null 2>"$TMP/err"; then
			pass "json valid: --check --json $args"
		else
			fail "json valid: --check --json $args" "$(cat "$TMP/err")"
		fi
	done
fi

# bad rules: exit 2, what, where (FILE:LINE:COLUMN or --rule N:COLUMN), what was expected
gate_err() {
	name=$1
	msg=$2
	shift 2
	run "$name" --check "$@"
	if [ "$rc" != 2 ] || [ -s "$TMP/out" ] || [ "$(cat "$TMP/err")" != "$msg" ]; then
		fail "$name" "exit status $rc, stderr '$(cat "$TMP/err")', want '$msg'"
	else
		pass "$name"
	fi
}
gate_err rule-bad-limit "slabacct: --rule 1:9: rule 'live <= 64Q module x': '64Q' is not a limit; expected a size (64K, 2M: K, M, G, T, P, E, 1024 based)" -R "live <= 64Q module x" $R
gate_err rule-bad-op "slabacct: --rule 2:7: rule 'slack < 10%': expected '<=' after 'slack' (a rule is 'slack <= LIMIT ...')" -R "live <= 1K" -R "slack < 10%" $R
gate_err rule-bad-start "slabacct: --rule 1:1: rule 'bytes <= 1K': 'bytes' starts no rule; expected 'no growing|left-at-unload|live-after-unload ...' or 'live|objs|slack|growth <= LIMIT ...'" -R "bytes <= 1K" $R
gate_err rule-bad-noun "slabacct: --rule 1:4: rule 'no leaks': 'no' without what; expected growing, left-at-unload or live-after-unload after it" -R "no leaks" $R
gate_err rule-bad-pct "slabacct: --rule 1:9: rule 'live <= 5%': live takes a number of bytes, not a percentage; expected a limit such as 64K" -R "live <= 5%" $R
gate_err rule-bad-decimals "slabacct: --rule 1:10: rule 'slack <= 12.345%': '12.345%' is not a percentage; expected digits with at most two decimals and '%' (12.5%)" -R "slack <= 12.345%" $R
gate_err rule-bad-selector "slabacct: --rule 1:12: rule 'live <= 1K modul x': 'modul' is not a selector; expected per, module, function, site, cache, type, unloaded, loaded, cgroup, task, node, stack, not or optional" -R "live <= 1K modul x" $R
gate_err rule-optional-twice "slabacct: --rule 1:30: rule 'live <= 1K optional module x optional': a second 'optional'; expected it once at most" -R "live <= 1K optional module x optional" $R
gate_err rule-not-optional "slabacct: --rule 1:16: rule 'live <= 1K not optional': 'optional' is not a selector; expected module, function, site, cache, type, cgroup, task, node or stack after 'not'" -R "live <= 1K not optional" $R
gate_err rule-no-name "slabacct: --rule 1:18: rule 'live <= 1K module': 'module' without its NAME; expected it after 'module'" -R "live <= 1K module" $R
gate_err rule-bad-type "slabacct: --rule 1:17: rule 'live <= 1K type slab': type 'slab'; expected kmalloc, cache, multi or mixed" -R "live <= 1K type slab" $R
gate_err rule-bad-scope "slabacct: --rule 1:16: rule 'live <= 1K per file': 'per' without a scope; expected site, function, module or cache after it" -R "live <= 1K per file" $R
gate_err rule-growing-scope "slabacct: --rule 1:12: rule 'no growing per module': 'no growing' judges call sites; expected no 'per' (or 'per site')" -R "no growing per module" $R
gate_err rule-not-unloaded "slabacct: --rule 1:16: rule 'live <= 1K not unloaded': 'not unloaded'; expected loaded instead" -R "live <= 1K not unloaded" $R
gate_err rule-left-loaded "slabacct: --rule 1:34: rule 'no left-at-unload module sa_leak loaded': 'no left-at-unload' judges the call sites of modules that unloaded: 'loaded' would select none; expected no 'loaded'" -R "no left-at-unload module sa_leak loaded" --unloads-file $U $R
gate_err rule-live-after-loaded "slabacct: --rule 1:22: rule 'no live-after-unload loaded': 'no live-after-unload' judges the call sites of modules that unloaded: 'loaded' would select none; expected no 'loaded'" -R "no live-after-unload loaded" $R
gate_err rule-hash "slabacct: --rule 1:12: rule 'live <= 1K # budget': '#' in a rule; expected none (in a rules file it starts a comment)" -R "live <= 1K # budget" $R
gate_err rule-empty "slabacct: --rule 1:1: rule '': an empty rule; expected 'no growing|left-at-unload|live-after-unload ...' or 'live|objs|slack|growth <= LIMIT ...'" -R "" $R
printf '# budgets\nlive <= 1K module sa_leak\n\n  slack <= 25 %%   # spaced\n' >"$TMP/bad.rules"
gate_err rules-file-bad "slabacct: $TMP/bad.rules:4:15: rule 'slack <= 25 %': '%' is not a selector; expected per, module, function, site, cache, type, unloaded, loaded, cgroup, task, node, stack, not or optional" --rules "$TMP/bad.rules" $R
printf '# nothing\n\n' >"$TMP/empty.rules"
gate_err rules-file-empty "slabacct: $TMP/empty.rules: no rule in the file (one rule per line; '#' starts a comment)" --rules "$TMP/empty.rules" $R
gate_err rules-file-missing "slabacct: $TMP/none.rules: No such file or directory" --rules "$TMP/none.rules" $R
gate_err rule-needs-baseline "slabacct: --rule 1: rule 'growth <= 1K' compares with a baseline: give BASELINE CURRENT, --baseline FILE" -R "growth <= 1K" $R
gate_err rule-needs-baseline-growing "slabacct: --rule 1: rule 'no growing' compares with a baseline: give BASELINE CURRENT, --baseline FILE or --baseline-detail FILE (two detail files)" -R "no growing" $R
printf 'no left-at-unload\n' >"$TMP/u.rules"
gate_err rule-needs-unloads "slabacct: $TMP/u.rules:1: rule 'no left-at-unload' reads the unloads file: give --unloads-file FILE (/proc/slab_account_unloads when no snapshot is named)" --rules "$TMP/u.rules" $R
gate_err check-detail-alone "slabacct: --detail names the current detail file of --baseline-detail's pair (the growing verdict): give both" -R "no growing" --detail fixtures/leaks_new.txt $R

# ---- docs/reader.md's worked examples of 1.3, byte for byte ----
# doc_example NAME ARGS: the block after the line "    $ slabacct ARGS"
# of docs/reader.md (its lines indented by 4, blank lines kept, up to the
# first line that is neither) is the output of slabacct ARGS run in
# fixtures/
doc_example() {
	name=$1
	shift
	awk -v cmd="    \$ slabacct $*" '
		$0 == cmd { on = 1; next }
		on && /^    / { for (; blank > 0; blank--) print ""; print substr($0, 5); next }
		on && /^$/ { blank++; next }
		on { exit }' ../../docs/reader.md >"$TMP/doc"
	# shellcheck disable=SC2068
	(cd fixtures && "$SLABACCT" $@) >"$TMP/got" 2>&1
	if [ -s "$TMP/doc" ] && cmp -s "$TMP/doc" "$TMP/got"; then
		pass "$name"
	else
		fail "$name" "docs/reader.md's example differs: $(diff "$TMP/doc" "$TMP/got" | head -5)"
	fi
}
doc_example doc-retired-by-module -b module --no-summary retired.txt
doc_example doc-unloads --unloads unloads.txt retired.txt
doc_example doc-gate --check --rules gate_leak.rules --unloads-file unloads.txt retired_before.txt retired.txt
doc_example doc-stacks-first --stacks --cgroup-root . --stacks-file ctx_stack_first.stacks ctx_stack.txt

# ---- watch ----

# Not a terminal: no clear codes; each refresh headed by its time (UTC,
# ISO 8601, milliseconds), a blank line between refreshes.
TS='[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9]\{3\}Z'
# stamps FILE: the times replaced by TIME (must be there: checked by count)
stamps() {
	sed "s/$TS/TIME/g" "$1"
}
{
	printf 'Every 0.1s: %s  TIME\n\n' $V
	cat expected/default.out
	printf '\nEvery 0.1s: %s  TIME\n\n' $V
	cat expected/default.out
} >"$TMP/watch.want"
start=$(date +%s%N)
run watch -w --count 2 -i 0.1 $V
end=$(date +%s%N)
if [ "$rc" != 0 ] || [ -s "$TMP/err" ]; then
	fail watch "exit status $rc: $(cat "$TMP/err")"
elif ! stamps "$TMP/out" | cmp -s "$TMP/watch.want" -; then
	fail watch "output differs: $(stamps "$TMP/out" | diff "$TMP/watch.want" - | head -10)"
elif grep -q "$(printf '\033')" "$TMP/out"; then
	fail watch "terminal codes in a pipe"
elif [ $(((end - start) / 1000000)) -lt 100 ]; then
	fail watch "did not wait 0.1 s between the refreshes"
else
	pass watch
fi

# On a terminal (script(1) gives one): clear, then redraw; --batch: not.
if command -v script >/dev/null 2>&1; then
	script -qec "'$SLABACCT' -w --once $V" /dev/null </dev/null >"$TMP/out" 2>&1
	if head -c 7 "$TMP/out" | od -An -c | tr -d ' ' | grep -q '^033\[H033\[2J$'; then
		pass watch-tty
	else
		fail watch-tty "no clear codes first: $(head -c 40 "$TMP/out" | od -c | head -2)"
	fi
	script -qec "'$SLABACCT' -w --once --batch $V" /dev/null </dev/null >"$TMP/out" 2>&1
	if head -n 1 "$TMP/out" | grep -q "^Every 2s: $V  $TS"; then
		pass watch-tty-batch
	else
		fail watch-tty-batch "first line: $(head -n 1 "$TMP/out" | od -c | head -3)"
	fi
else
	echo "skip cli: watch-tty (no script(1))"
fi

# A terminal's size: the rows that fit (a header that stays), lines cut
# to its width; redrawn at once when it is resized (SIGWINCH).
if command -v script >/dev/null 2>&1; then
	{
		head -n 22 $V | sed 's/^number of callers: 6/number of callers: 100/'
		i=0
		while [ $i -lt 100 ]; do
			echo "$((1000 + i)) 0 $((1000 + i)) 0 0 0 0 1/1 kmalloc a_rather_long_function_name_$i+0x10/0x40 [a_module]"
			i=$((i + 1))
		done
	} >"$TMP/rows100.txt"
	# screens FILE: the screens drawn (split at the clear codes) into $TMP/screen.N
	screens() {
		awk -v d="$TMP" 'BEGIN { RS = "\033\\[H\033\\[2J"; n = 0 }
			NR > 1 { n++; printf "%s", $0 > (d "/screen." n) } END { print n }' "$1"
	}
	# fits N ROWS COLS: screen N has at most ROWS lines of at most COLS
	# columns (display widths: a cut caller ends with an ellipsis)
	fits() {
		[ -s "$TMP/screen.$1" ] &&
		[ "$(tr -d '\r' <"$TMP/screen.$1" | wc -l)" -lt "$2" ] &&
		[ "$(tr -d '\r' <"$TMP/screen.$1" | LC_ALL=C.UTF-8 wc -L)" -le "$3" ]
	}
	script -qec "stty rows 40 cols 50; '$SLABACCT' -w --once '$TMP/rows100.txt'" /dev/null </dev/null >"$TMP/tty" 2>&1
	n=$(screens "$TMP/tty")
	if [ "$n" = 1 ] && fits 1 40 50 && grep -q "^call sites: [0-9]* of 100 shown" "$TMP/screen.1" &&
	   head -n 1 "$TMP/screen.1" | grep -q "^Every 2s: "; then
		pass watch-tty-fits
	else
		fail watch-tty-fits "$n screens: $(head -c 600 "$TMP/screen.1" 2>/dev/null)"
	fi
	script -qec "stty rows 30 cols 70; '$SLABACCT' -w --count 2 -i 1.5 '$TMP/rows100.txt' & p=\$!; sleep 0.7; stty rows 9 cols 40; kill -WINCH \$p; wait \$p" /dev/null </dev/null >"$TMP/tty" 2>&1
	n=$(screens "$TMP/tty")
	ok=0
	if [ "$n" -ge 3 ] && fits 1 30 70 && ! fits 1 9 40; then
		ok=1
		# stty may set the rows and the columns one after the other:
		# every screen after it has 9 rows; the last, 40 columns too
		k=2
		while [ $k -le "$n" ]; do
			fits $k 9 1000 || ok=0
			k=$((k + 1))
		done
		fits "$n" 9 40 || ok=0
	fi
	if [ $ok = 1 ]; then
		pass watch-tty-resize
	else
		fail watch-tty-resize "$n screens, $(wc -l <"$TMP/screen.2" 2>/dev/null) lines after the resize"
	fi
fi

# ---- fitted to a width (--width N, as on a terminal of N columns) ----

# Display widths under the locale (fixtures/utf8.txt: a cache name of wide
# characters, module names with accents): the type is cut first, then the
# columns dropped by rank; the caller stays whole while it fits alone.
# Without --width, a pipe keeps the lines as they were (aligned by bytes).
LC_ALL_SAVED=${LC_ALL-}
LC_ALL=C.UTF-8
export LC_ALL
expect utf8 0 fixtures/utf8.txt
for w in 80 120 200; do
	expect "width-$w" 0 --width $w fixtures/utf8.txt
done
expect width-0 0 --width 0 fixtures/utf8.txt
expect width-caller-cut 0 --width 30 --no-summary fixtures/utf8.txt
expect width-diff-80 0 --width 80 -d fixtures/before.txt fixtures/after.txt
expect width-by-50 0 --width 50 -b module fixtures/after.txt
expect width-human-80 0 --width 80 -H fixtures/utf8.txt
# a locale that cannot decode them: one column a character, "..."
LC_ALL=C
expect width-c-30 0 --width 30 --no-summary fixtures/utf8.txt
LC_ALL=C.UTF-8
# On a terminal the report fits by itself: its width (TIOCGWINSZ), else
# $COLUMNS; with -o FILE the file gets the whole lines
if command -v script >/dev/null 2>&1; then
	script -qec "stty cols 80 rows 24; '$SLABACCT' fixtures/utf8.txt" /dev/null </dev/null 2>&1 |
		tr -d '\r' >"$TMP/out"
	if cmp -s expected/width-80.out "$TMP/out"; then
		pass tty-fits-80
	else
		fail tty-fits-80 "$(diff expected/width-80.out "$TMP/out" | head -10)"
	fi
	script -qec "stty cols 0 rows 0; COLUMNS=120 '$SLABACCT' fixtures/utf8.txt" /dev/null </dev/null 2>&1 |
		tr -d '\r' >"$TMP/out"
	if cmp -s expected/width-120.out "$TMP/out"; then
		pass tty-fits-columns
	else
		fail tty-fits-columns "$(diff expected/width-120.out "$TMP/out" | head -10)"
	fi
	script -qec "stty cols 80 rows 24; '$SLABACCT' -o '$TMP/o.txt' fixtures/utf8.txt" /dev/null </dev/null >/dev/null 2>&1
	if cmp -s expected/utf8.out "$TMP/o.txt"; then
		pass tty-output-whole
	else
		fail tty-output-whole "$(diff expected/utf8.out "$TMP/o.txt" | head -10)"
	fi
else
	echo "skip cli: tty-fits (no script(1))"
fi
# --watch fitted: the compact summary; --full-summary: the whole one
run watch-width -w --once --width 80 fixtures/utf8.txt
stamps "$TMP/out" >"$TMP/out.s" && mv "$TMP/out.s" "$TMP/out"
compare watch-width 0
run watch-width-full -w --once --width 80 --full-summary fixtures/utf8.txt
stamps "$TMP/out" >"$TMP/out.s" && mv "$TMP/out.s" "$TMP/out"
compare watch-width-full 0
if [ -n "$LC_ALL_SAVED" ]; then
	LC_ALL=$LC_ALL_SAVED
else
	unset LC_ALL
fi

# --watch in real terminals (tmux) of 80x24 and 200x60: every row shown
# has its caller whole at its end, and the rows that fit are shown (the
# screen's lines but the last: the header, a blank line, the compact
# summary (80 columns: two lines and the warning of valid.txt's dropped
# objects; 200: one and the warning), a blank line, the counts and the
# titles, then the rows).
if command -v tmux >/dev/null 2>&1 &&
   tmux -S "$TMP/tmux.sock" -f /dev/null new-session -d -s probe -x 20 -y 5 'sleep 600' 2>/dev/null; then
	{
		head -n 22 $V | sed 's/^number of callers: 6/number of callers: 100/'
		i=0
		while [ $i -lt 100 ]; do
			if [ $((i % 5)) = 0 ]; then
				c="名前_$i+0x1/0x2 [mödül]"
			else
				c="a_rather_long_function_name_$i+0x10/0x40 [a_module]"
			fi
			echo "$((100000 + i)) 0 $((100000 + i)) 0 0 0 0 1/1 cache:キャッシュ_$i $c"
			i=$((i + 1))
		done
	} >"$TMP/tmux100.txt"
	# tmux_watch COLS ROWS FILE: the screen of --watch FILE in a terminal of that size, in $TMP/pane
	tmux_watch() {
		tmux -S "$TMP/tmux.sock" new-session -d -s w -x "$1" -y "$2" \
			"env LC_ALL=C.UTF-8 '$SLABACCT' -w -i 60 '$3'; sleep 60"
		k=0
		: >"$TMP/pane"
		while [ $k -lt 100 ] && ! grep -q '^call sites:' "$TMP/pane"; do
			sleep 0.1
			tmux -S "$TMP/tmux.sock" capture-pane -p -t w >"$TMP/pane" 2>/dev/null
			k=$((k + 1))
		done
		sleep 0.2	# the rest of the screen after the counts
		tmux -S "$TMP/tmux.sock" capture-pane -p -t w >"$TMP/pane" 2>/dev/null
		tmux -S "$TMP/tmux.sock" kill-session -t w 2>/dev/null
	}
	# tmux_check NAME COLS ROWS WANT_ROWS [FILE]: the header on one line
	# (the second is blank), then WANT_ROWS rows each ending with its caller
	tmux_check() {
		tmux_watch "$2" "$3" "${5:-$TMP/tmux100.txt}"
		# the rows: the lines after the titles; each must end with the
		# caller of its number (a_..._N+0x10/0x40 [a_module] or 名前_N+...)
		bad=$(awk '
			seen && NF { n++
				if (match($0, /(a_rather_long_function_name_|名前_)[0-9]+/)) {
					id = substr($0, RSTART, RLENGTH); sub(/^[^0-9]*/, "", id)
					want = (id % 5 == 0) ? "名前_" id "+0x1/0x2 [mödül]" : \
						"a_rather_long_function_name_" id "+0x10/0x40 [a_module]"
					if (substr($0, length($0) - length(want) + 1) != want) print "cut: " $0
				} else print "no caller: " $0 }
			/ caller$/ { seen = 1 }
			END { print "rows " n + 0 }' "$TMP/pane")
		rows=$(echo "$bad" | sed -n 's/^rows //p')
		shown=$(sed -n 's/^call sites: \([0-9]*\) of 100 shown$/\1/p' "$TMP/pane")
		if [ "$(echo "$bad" | grep -c -v '^rows ')" = 0 ] && [ "$rows" = "$4" ] &&
		   [ "$shown" = "$4" ] && [ -z "$(sed -n 2p "$TMP/pane")" ]; then
			pass "$1"
		else
			fail "$1" "$rows rows ($shown said), want $4: $(echo "$bad" | head -3); screen:
$(head -12 "$TMP/pane")"
		fi
	}
	tmux_check watch-tmux-80x24 80 24 15
	tmux_check watch-tmux-200x60 200 60 52
	# a header wider than the terminal in columns, not in characters (a
	# directory of wide characters): cut at 80 columns, not wrapped
	d="$TMP/キャッシュキャッシュキャッシュキャッシュ"
	mkdir -p "$d" && cp "$TMP/tmux100.txt" "$d/"
	tmux_check watch-tmux-wide-header 80 24 15 "$d/tmux100.txt"
	tmux -S "$TMP/tmux.sock" kill-server 2>/dev/null
else
	echo "skip cli: watch-tmux (tmux cannot run here: apt-get install tmux)"
fi

# The file gone for a while (a module reloaded): said once on stderr, the
# metrics marked (slab_account_up 0), and the watch goes on; when the file
# returns, so do the metrics.
cp $V "$TMP/sa.txt"
"$SLABACCT" -w -i 0.3 --count 9 --openmetrics -o "$TMP/textfile.prom" "$TMP/sa.txt" 2>"$TMP/err" &
wpid=$!
sleep 0.8
mv "$TMP/sa.txt" "$TMP/sa.away"
sleep 1.2
grep -c '^slab_account_up 0$' "$TMP/textfile.prom" >"$TMP/down" 2>/dev/null
wc -l <"$TMP/textfile.prom" >"$TMP/down.lines"
mv "$TMP/sa.away" "$TMP/sa.txt"
wait $wpid
rc=$?
printf 'slabacct: %s: No such file or directory (--watch reads it again every 0.3s)\nslabacct: note: %s: read again\n' "$TMP/sa.txt" "$TMP/sa.txt" >"$TMP/want_err"
if [ "$rc" = 0 ] && [ "$(cat "$TMP/down")" = 1 ] && [ "$(cat "$TMP/down.lines")" = 3 ] &&
   cmp -s "$TMP/want_err" "$TMP/err" && grep -q '^slab_account_up 1$' "$TMP/textfile.prom" &&
   grep -q '^slab_account_site_allocs_total' "$TMP/textfile.prom"; then
	pass watch-goes-on
else
	fail watch-goes-on "exit status $rc, down $(cat "$TMP/down") ($(cat "$TMP/down.lines") lines), stderr: $(cat "$TMP/err")"
fi

# watch_expect NAME WANT ARGS...: --watch output, times replaced, is WANT
watch_expect() {
	name=$1
	want=$2
	shift 2
	run "$name" "$@"
	if [ "$rc" != 0 ] || [ -s "$TMP/err" ]; then
		fail "$name" "exit status $rc: $(cat "$TMP/err")"
	elif ! stamps "$TMP/out" | cmp -s "$want" -; then
		fail "$name" "output differs: $(stamps "$TMP/out" | diff "$want" - | head -10)"
	else
		pass "$name"
	fi
}
{
	printf 'Every 2s: %s  TIME\n\n' $V
	cat expected/default.out
} >"$TMP/want"
watch_expect watch-once "$TMP/want" -w --once $V
# --csv: one header, then every refresh's rows with its time first
{
	printf 'time,'
	head -n 1 expected/csv.out
	tail -n +2 expected/csv.out | sed 's/^/TIME,/'
	tail -n +2 expected/csv.out | sed 's/^/TIME,/'
} >"$TMP/want"
watch_expect watch-csv "$TMP/want" -w --csv --count 2 -i 0.1 $V

# --delta through a FIFO: the first open reads OLD, the next NEW; each
# refresh shows NEW - OLD as --diff does (without its "OLD -> NEW" line).
# The writer pauses after each file so the reader has closed its end (else
# the next file would join the same read).
fifo() {
	rm -f "$TMP/fifo"
	mkfifo "$TMP/fifo" || return 1
	( for f in "$@"; do cat "$f" >"$TMP/fifo"; sleep 0.3; done ) &
}
if fifo $B $A; then
	{
		printf 'Every 0.1s: %s (changes since the last refresh)  TIME\n\n' "$TMP/fifo"
		tail -n +2 expected/diff.out
	} >"$TMP/want"
	watch_expect watch-delta "$TMP/want" -w --delta --once -i 0.1 "$TMP/fifo"
	wait
fi
if fifo $B $A $V; then
	{
		printf 'time,'
		head -n 1 expected/diff-csv.out
		tail -n +2 expected/diff-csv.out | sed 's/^/TIME,/'
		"$SLABACCT" --diff --csv $A $V | tail -n +2 | sed 's/^/TIME,/'
	} >"$TMP/want"
	watch_expect watch-delta-csv "$TMP/want" -w --delta --csv --count 2 -i 0.1 "$TMP/fifo"
	wait
fi

# -o FILE: replaced whole (a temporary file renamed over it), mode 0666 & ~umask
printf 'old\n' >"$TMP/out.prom"
run output-error -o "$TMP/out.prom" fixtures/v2.txt
if [ "$rc" = 1 ] && [ "$(cat "$TMP/out.prom")" = old ]; then
	pass output-kept-on-error
else
	fail output-kept-on-error "exit status $rc, the file holds '$(head -c 40 "$TMP/out.prom")'"
fi
run output -o "$TMP/out.prom" $V
if [ "$rc" != 0 ] || [ -s "$TMP/out" ] || [ -s "$TMP/err" ]; then
	fail output "exit status $rc, stdout $(wc -c <"$TMP/out") bytes, stderr '$(cat "$TMP/err")'"
elif ! cmp -s expected/default.out "$TMP/out.prom"; then
	fail output "the file differs from expected/default.out"
elif [ "$(stat -c %a "$TMP/out.prom")" != "$(printf '%o' $((0666 & ~$(umask))))" ]; then
	fail output "mode $(stat -c %a "$TMP/out.prom") with umask $(umask)"
elif [ "$(ls "$TMP" | grep -c '^out\.prom')" != 1 ]; then
	fail output "temporary files left: $(ls "$TMP")"
else
	pass output
fi
run output-watch -w --count 2 -i 0.1 --csv -o "$TMP/out.prom" $V
{
	printf 'time,'
	head -n 1 expected/csv.out
	tail -n +2 expected/csv.out | sed 's/^/TIME,/'
} >"$TMP/want"
if [ "$rc" = 0 ] && stamps "$TMP/out.prom" | cmp -s "$TMP/want" -; then
	pass output-watch
else
	fail output-watch "exit status $rc: $(stamps "$TMP/out.prom" | diff "$TMP/want" - | head -5)"
fi
expect_err output-no-dir 1 "slabacct: $TMP/none/x.prom: No such file or directory" -o "$TMP/none/x.prom" $V

# -o FILE replaces only a regular file, keeping its mode and owner; a
# symbolic link's target is written, a FIFO or a device in place.
# out_kind PATH: what PATH is (stat's %F), its mode and owner
out_kind() {
	stat -c '%F %a %u:%g' "$1"
}
printf 'old\n' >"$TMP/kept.csv"
chmod 600 "$TMP/kept.csv"
if [ "$(id -u)" = 0 ]; then
	chown 65534:65534 "$TMP/kept.csv"
	want_kind="regular file 600 65534:65534"
else
	want_kind="regular file 600 $(id -u):$(id -g)"
fi
run output-keeps-mode --csv -o "$TMP/kept.csv" $V
if [ "$rc" = 0 ] && [ "$(out_kind "$TMP/kept.csv")" = "$want_kind" ] &&
   cmp -s expected/csv.out "$TMP/kept.csv"; then
	pass output-keeps-mode
else
	fail output-keeps-mode "exit status $rc, $(out_kind "$TMP/kept.csv"), want $want_kind"
fi
mkdir "$TMP/links"
printf 'old\n' >"$TMP/links/target.csv"
chmod 640 "$TMP/links/target.csv"
ln -s target.csv "$TMP/links/link.csv"
run output-symlink --csv -o "$TMP/links/link.csv" $V
if [ "$rc" = 0 ] && [ -L "$TMP/links/link.csv" ] &&
   [ "$(out_kind "$TMP/links/target.csv")" = "regular file 640 $(id -u):$(id -g)" ] &&
   cmp -s expected/csv.out "$TMP/links/target.csv" &&
   [ "$(ls "$TMP/links" | tr '\n' ' ')" = "link.csv target.csv " ]; then
	pass output-symlink
else
	fail output-symlink "exit status $rc: $(ls -l "$TMP/links")"
fi
rm -f "$TMP/fifo.out"
mkfifo "$TMP/fifo.out"
timeout 20 cat "$TMP/fifo.out" >"$TMP/fifo.got" &
run output-fifo --csv -o "$TMP/fifo.out" $V
wait
if [ "$rc" = 0 ] && [ -p "$TMP/fifo.out" ] && cmp -s expected/csv.out "$TMP/fifo.got"; then
	pass output-fifo
else
	fail output-fifo "exit status $rc, $(out_kind "$TMP/fifo.out"): $(head -c 100 "$TMP/fifo.got")"
fi
rm -f "$TMP/fifo.out"
mkfifo "$TMP/fifo.out"
timeout 20 cat "$TMP/fifo.out" >"$TMP/fifo.got" &
run svg-fifo --svg "$TMP/fifo.out" $V
wait
if [ "$rc" = 0 ] && [ -p "$TMP/fifo.out" ] && grep -q '^</svg>$' "$TMP/fifo.got"; then
	pass svg-fifo
else
	fail svg-fifo "exit status $rc, $(out_kind "$TMP/fifo.out")"
fi
# a character device (a private /dev/null: never the real one)
if [ "$(id -u)" = 0 ] && mknod "$TMP/null" c 1 3 2>/dev/null; then
	run output-device --csv -o "$TMP/null" $V
	if [ "$rc" = 0 ] && [ -c "$TMP/null" ] && [ "$(ls "$TMP" | grep -c '^null')" = 1 ]; then
		pass output-device
	else
		fail output-device "exit status $rc, $(out_kind "$TMP/null"); $(ls "$TMP" | grep '^null')"
	fi
	rm -f "$TMP/null"
else
	echo "skip cli: output-device (not root, or no mknod here)"
fi
expect_err output-directory 1 "slabacct: $TMP/links: Is a directory" -o "$TMP/links" $V

# -o FILE is opened as the shell's `>` opens it (the kernel judges): a
# user's own 0444 file is refused; a file it may write in a directory it
# may not write is written in place; a new file in such a directory is
# refused naming both.  As root these run as nobody (root passes the
# permission checks, as with `>`).
# as_user CMD...: CMD as the user of these checks (nobody when root)
as_user() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		"$@"
	fi
}
perm_skip=""
if [ "$(id -u)" = 0 ] && ! command -v setpriv >/dev/null 2>&1; then
	perm_skip="root, and no setpriv to run them as nobody"
else
	chmod 711 "$TMP"
	mkdir "$TMP/perm" "$TMP/perm/own" "$TMP/perm/ro"
	if [ "$(id -u)" = 0 ]; then
		chown 65534:65534 "$TMP/perm/own"
	fi
	if ! as_user test -x "$SLABACCT" -a -r $V -a -w "$TMP/perm/own"; then
		perm_skip="user $(as_user id -un) cannot run $SLABACCT on $V"
	fi
fi
if [ -n "$perm_skip" ]; then
	echo "skip cli: output-readonly, output-dir-readonly, output-dir-refused ($perm_skip)"
else
	as_user sh -c 'printf "old\n" >"$1" && chmod 444 "$1"' sh "$TMP/perm/own/ro.csv"
	if as_user sh -c ': >"$1"' sh "$TMP/perm/own/ro.csv" 2>/dev/null; then
		fail output-readonly "the shell's > wrote a 0444 file as $(as_user id -un)"
	else
		as_user "$SLABACCT" --csv -o "$TMP/perm/own/ro.csv" $V >"$TMP/out" 2>"$TMP/err"
		rc=$?
		if [ "$rc" = 1 ] && [ "$(cat "$TMP/perm/own/ro.csv")" = old ] &&
		   [ "$(cat "$TMP/err")" = "slabacct: $TMP/perm/own/ro.csv: Permission denied" ] &&
		   [ "$(ls "$TMP/perm/own")" = ro.csv ]; then
			pass output-readonly
		else
			fail output-readonly "exit status $rc, the file holds '$(head -c 40 "$TMP/perm/own/ro.csv")', stderr '$(cat "$TMP/err")'"
		fi
	fi
	printf 'old\n' >"$TMP/perm/ro/mine.csv"
	if [ "$(id -u)" = 0 ]; then
		chown 65534:65534 "$TMP/perm/ro/mine.csv"
	fi
	chmod 555 "$TMP/perm/ro"
	want_kind=$(out_kind "$TMP/perm/ro/mine.csv")
	as_user "$SLABACCT" --csv -o "$TMP/perm/ro/mine.csv" $V >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" = 0 ] && [ ! -s "$TMP/err" ] && cmp -s expected/csv.out "$TMP/perm/ro/mine.csv" &&
	   [ "$(out_kind "$TMP/perm/ro/mine.csv")" = "$want_kind" ] &&
	   [ "$(ls "$TMP/perm/ro")" = mine.csv ]; then
		pass output-dir-readonly
	else
		fail output-dir-readonly "exit status $rc, $(out_kind "$TMP/perm/ro/mine.csv"), stderr '$(cat "$TMP/err")'"
	fi
	as_user "$SLABACCT" --csv -o "$TMP/perm/ro/new.csv" $V >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" = 1 ] && [ ! -e "$TMP/perm/ro/new.csv" ] &&
	   [ "$(cat "$TMP/err")" = "slabacct: $TMP/perm/ro/new.csv: cannot create a file in $TMP/perm/ro: Permission denied" ]; then
		pass output-dir-refused
	else
		fail output-dir-refused "exit status $rc, stderr '$(cat "$TMP/err")'"
	fi
	chmod 755 "$TMP/perm/ro"
fi

# fs.protected_symlinks: a symbolic link planted by another user (nobody)
# in a sticky world-writable directory is not followed by root's `>`, nor
# by -o; root's own link there is, and so is nobody's for nobody.
ps_file=/proc/sys/fs/protected_symlinks
ps_was=""
ps_skip=""
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	ps_skip="needs root and setpriv (a link planted by nobody)"
elif [ -n "$perm_skip" ]; then
	ps_skip=$perm_skip
elif [ ! -r "$ps_file" ]; then
	ps_skip="no $ps_file"
else
	# Other runs of these tests set and restore it too: one at a time
	# (a lock on the sysctl file itself, held until it is restored).
	exec 9<"$ps_file"
	if command -v flock >/dev/null 2>&1 && ! flock -w 300 9; then
		ps_skip="another run held $ps_file's lock for 300 s"
	else
		ps_was=$(cat "$ps_file")
		if [ "$ps_was" != 1 ] && ! { echo 1 >"$ps_file"; } 2>/dev/null; then
			ps_skip="fs.protected_symlinks is '$ps_was' and cannot be set to 1"
		fi
	fi
fi
if [ -n "$ps_skip" ]; then
	echo "skip cli: output-protected-symlink ($ps_skip)"
else
	S=$TMP/sticky
	mkdir "$S"
	chmod 1777 "$S"
	printf 'precious\n' >"$TMP/victim"
	printf 'precious\n' >"$TMP/victim2"
	as_user ln -s ../victim "$S/report.csv"
	as_user ln -s ../victim2 "$S/shell.csv"
	if sh -c ': >"$1"' sh "$S/shell.csv" 2>/dev/null; then
		fail output-protected-symlink "the shell's > followed nobody's link with fs.protected_symlinks=$(cat "$ps_file")"
	else
		run output-protected-symlink --csv -o "$S/report.csv" $V
		if [ "$rc" = 1 ] && [ "$(cat "$TMP/victim")" = precious ] && [ -L "$S/report.csv" ] &&
		   [ "$(ls "$S" | tr '\n' ' ')" = "report.csv shell.csv " ] &&
		   [ "$(cat "$TMP/err")" = "slabacct: $S/report.csv: Permission denied (fs.protected_symlinks: another user's symbolic link in a sticky world-writable directory is not followed)" ]; then
			pass output-protected-symlink
		else
			fail output-protected-symlink "exit status $rc, the target holds '$(head -c 40 "$TMP/victim")', $(ls -l "$S"), stderr '$(cat "$TMP/err")'"
		fi
	fi
	# root's own link there: followed, its target replaced (mode kept)
	printf 'old\n' >"$TMP/target.csv"
	chmod 640 "$TMP/target.csv"
	ln -s ../target.csv "$S/root.csv"
	run output-sticky-own-link --csv -o "$S/root.csv" $V
	if [ "$rc" = 0 ] && cmp -s expected/csv.out "$TMP/target.csv" && [ -L "$S/root.csv" ] &&
	   [ "$(out_kind "$TMP/target.csv")" = "regular file 640 0:0" ]; then
		pass output-sticky-own-link
	else
		fail output-sticky-own-link "exit status $rc, $(out_kind "$TMP/target.csv"), stderr '$(cat "$TMP/err")'"
	fi
	# nobody's link to nobody's file, written by nobody: replaced there
	as_user sh -c 'printf "old\n" >"$1/mine.txt" && ln -s mine.txt "$1/mine.csv"' sh "$S"
	as_user "$SLABACCT" --csv -o "$S/mine.csv" $V >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" = 0 ] && cmp -s expected/csv.out "$S/mine.txt" && [ -L "$S/mine.csv" ] &&
	   [ "$(out_kind "$S/mine.txt")" = "regular file $(printf '%o' $((0666 & ~$(umask)))) 65534:65534" ] &&
	   [ "$(ls "$S" | tr '\n' ' ')" = "mine.csv mine.txt report.csv root.csv shell.csv " ]; then
		pass output-sticky-nobody-link
	else
		fail output-sticky-nobody-link "exit status $rc, $(ls -l "$S"), stderr '$(cat "$TMP/err")'"
	fi
	if [ "$ps_was" != 1 ]; then
		echo "$ps_was" >"$ps_file"
		echo "note cli: fs.protected_symlinks was set to 1 for output-protected-symlink, then back to $ps_was"
	fi
fi
if [ -n "$ps_was" ]; then
	exec 9<&-	# (the lock released)
fi

# SIGINT and SIGTERM while --watch -o writes a large report: the temporary
# FILE.XXXXXX is removed and slabacct dies of the signal.
awk -v n=100000 'BEGIN {
	print "slab_account - version: 1.2"
	print "state: active"
	printf "total bytes allocated: %d\ntotal bytes requested: %d\n", 64 * n, 64 * n
	printf "slack bytes allocated: 0\ncurrent bytes allocated: 0\n"
	printf "current bytes requested: 0\ncurrent objects: 0\n"
	printf "number of allocs: %d\nnumber of frees: %d\nnumber of callers: %d\n", n, n, n
	print "#      total    slack      req     live live_req   objs     peak  allocs/frees type caller"
	for (i = 0; i < n; i++)
		printf "64 0 64 0 0 0 64 1/1 kmalloc f%d+0x1/0x2 [m%d]\n", i, i % 100
}' >"$TMP/big.txt"
# signal_case NAME SIG STATUS: kill with SIG once the temporary file shows
signal_case() {
	mkdir "$TMP/sig"
	# (a background job of a script starts with SIGINT ignored)
	env --default-signal="$2" "$SLABACCT" -w -i 0.1 --count 100 --prometheus -n 100000 \
		-o "$TMP/sig/out.prom" "$TMP/big.txt" >/dev/null 2>"$TMP/err" </dev/null &
	spid=$!
	seen=""
	n=0
	while [ -z "$seen" ] && [ $n -lt 6000 ] && kill -0 $spid 2>/dev/null; do
		seen=$(ls "$TMP/sig" | grep '^out\.prom\.')
		n=$((n + 1))
		[ -n "$seen" ] || sleep 0.01
	done
	kill -s "$2" $spid 2>/dev/null
	wait $spid 2>/dev/null	# (not the shell's "Terminated")
	rc=$?
	if [ -z "$seen" ]; then
		fail "$1" "no temporary file seen (exit status $rc: $(head -c 200 "$TMP/err"))"
	elif [ "$rc" != "$3" ] || [ -n "$(ls "$TMP/sig" | grep -v '^out\.prom$')" ]; then
		fail "$1" "exit status $rc (want $3), left: $(ls "$TMP/sig" | tr '\n' ' ')"
	else
		pass "$1"
	fi
	rm -rf "$TMP/sig"
}
if env --default-signal=INT true 2>/dev/null; then
	signal_case output-sigint INT 130
else
	echo "skip cli: output-sigint (env has no --default-signal: a background job ignores SIGINT)"
fi
signal_case output-sigterm TERM 143

expect_err watch-file-gone 1 "slabacct: $TMP/nothing: No such file or directory" \
	--watch --count 2 "$TMP/nothing"

# --by in a --watch time series: the groups at every refresh
run by-watch -b cache -w --count 2 -i 0.1 --csv $BY
{
	printf 'time,'
	head -n 1 expected/by-cache-csv.out
	tail -n +2 expected/by-cache-csv.out | sed 's/^/TIME,/'
	tail -n +2 expected/by-cache-csv.out | sed 's/^/TIME,/'
} >"$TMP/want"
if [ "$rc" = 0 ] && stamps "$TMP/out" | cmp -s "$TMP/want" -; then
	pass by-watch
else
	fail by-watch "exit status $rc: $(stamps "$TMP/out" | diff "$TMP/want" - | head -5)"
fi

# ---- --leaks and --advise (the detail file) ----

LO=fixtures/leaks_old.txt
LN=fixtures/leaks_new.txt
expect leaks 0 --leaks $LO $LN
expect leaks-csv 0 --leaks --csv $LO $LN
expect leaks-json 0 --leaks --json $LO $LN
expect leaks-once 0 --leaks --once $LN
expect leaks-once-detail 0 --leaks --once --detail $LN
expect leaks-filtered 0 --leaks -m sa_test -n 2 -H $LO $LN
expect_order leaks-order "sa_test_leak_fn alloc_inode sa_test_hold_init seq_read_iter sa_test_churn" --leaks $LO $LN
expect_order leaks-min "alloc_inode sa_test_hold_init" --leaks --min 16K $LO $LN
expect_order leaks-kmalloc "sa_test_leak_fn sa_test_hold_init seq_read_iter sa_test_churn" --leaks --kmalloc $LO $LN
# --leaks-min-age 60: the 30 s leak is young; 0: the churning site grew, so it is growing
run leaks-min-age --leaks --csv --leaks-min-age 60 $LO $LN
if [ "$rc" = 0 ] && grep -q '^3,15872,.*,steady cache,kmalloc,sa_test_leak_fn' "$TMP/out"; then
	pass leaks-min-age
else
	fail leaks-min-age "exit status $rc: $(cat "$TMP/out" "$TMP/err")"
fi
run leaks-min-age-0 --leaks --csv --leaks-min-age 0 $LO $LN
if [ "$rc" = 0 ] && [ "$(grep -c ',growing,' "$TMP/out")" = 3 ]; then
	pass leaks-min-age-0
else
	fail leaks-min-age-0 "exit status $rc: $(cat "$TMP/out" "$TMP/err")"
fi
# a burst (files created) 6 s apart in a guest seconds old: too short to
# tell, even with --leaks-min-age under the window; 10 s apart with
# --leaks-min-age 11: too short too (the window is at least --leaks-min-age)
expect leaks-burst 0 --leaks --leaks-min-age 5 fixtures/leaks_burst_old.txt fixtures/leaks_burst_new.txt
expect leaks-burst-csv 0 --leaks --csv fixtures/leaks_burst_old.txt fixtures/leaks_burst_new.txt
run leaks-min-age-11 --leaks --csv --leaks-min-age 11 $LO $LN
if [ "$rc" = 0 ] && [ "$(grep -c ',too short to tell,' "$TMP/out")" = 1 ] &&
   [ "$(grep -c ',growing,' "$TMP/out")" = 0 ]; then
	pass leaks-min-age-11
else
	fail leaks-min-age-11 "exit status $rc: $(cat "$TMP/out" "$TMP/err")"
fi
# live: the detail file read twice, --interval apart (replaced in between)
cp $LO "$TMP/detail"
"$SLABACCT" --leaks -i 2 --detail "$TMP/detail" >"$TMP/out" 2>"$TMP/err" &
lpid=$!
sleep 1
cp $LN "$TMP/detail.new" && mv "$TMP/detail.new" "$TMP/detail"
wait $lpid
rc=$?
if [ "$rc" = 0 ] && [ ! -s "$TMP/err" ] &&
   sed "s|$TMP/detail|F|g" "$TMP/out" | cmp -s - expected/leaks-live.out; then
	pass leaks-live
else
	fail leaks-live "exit status $rc: $(cat "$TMP/err"; sed "s|$TMP/detail|F|g" "$TMP/out" | diff expected/leaks-live.out - | head -5)"
fi
# on a terminal, the wait is said (and the line cleared after it)
if command -v script >/dev/null 2>&1; then
	script -qec "'$SLABACCT' --leaks -i 1 --detail $LN" /dev/null </dev/null >"$TMP/tty" 2>&1
	if grep -q "slabacct: --leaks: reading $LN again in 1 s (--interval), to see what grows\.\.\." "$TMP/tty" &&
	   grep -q "$(printf '\r\033')\[K" "$TMP/tty"; then
		pass leaks-live-tty
	else
		fail leaks-live-tty "$(head -c 200 "$TMP/tty" | od -c | head -4)"
	fi
fi
expect_err leaks-live-same-second 1 "slabacct: $LN and $LN were read in the same second (now 1010): no growth to measure (a longer --interval)" --leaks -i 1 --detail $LN
expect_err leaks-same-second 1 "slabacct: $LN and $LN were read in the same second (now 1010): no growth to measure" --leaks $LN $LN
expect_err leaks-swapped 1 "slabacct: NEW $LO (now 1000) is earlier than OLD $LN (now 1010): the module was reloaded in between, or the files are swapped" --leaks $LN $LO
expect_err leaks-bad-version 1 "slabacct: fixtures/detail_v2.txt:1: unsupported detail format version 2.0 (this reader understands 1.x)" --leaks $LO fixtures/detail_v2.txt
expect_err leaks-broken-rule 1 "slabacct: fixtures/detail_ages.txt:10: the age counts add up to 30, not objs 31" --leaks --once fixtures/detail_ages.txt
expect_err leaks-main-file 1 "slabacct: $V:1: not a slab_account detail file: expected 'slab_account detail - version: 1.x', got 'slab_account - version: 1.0'" --leaks --once $V
expect_err leaks-missing 1 "slabacct: $TMP/none: No such file or directory" --leaks $LO "$TMP/none"
if [ ! -e /proc/slab_account_detail ]; then
	expect_err leaks-no-module 1 \
		"slabacct: /proc/slab_account_detail: No such file or directory (is the module loaded? insmod slab_account.ko)" --leaks --once
fi

for arch in amd64 arm64; do
	expect advise-$arch 0 --advise --detail fixtures/advise_${arch}_detail.txt fixtures/advise_$arch.txt
done
AM=fixtures/advise_amd64.txt
AD=fixtures/advise_amd64_detail.txt
expect advise-csv 0 --advise --csv --detail $AD $AM
expect advise-json 0 --advise --json --detail fixtures/advise_arm64_detail.txt fixtures/advise_arm64.txt
expect advise-filtered 0 --advise -n 2 -m sa_test -H --detail $AD $AM
expect_order advise-min "sa_test_fixed40 sa_test_fixed40 sa_test_fixed9000 sa_test_fixed9000 sa_test_fixed72 sa_test_fixed72" --advise --min 3000 --detail $AD $AM
expect_order advise-cache "sa_test_cache_alloc" --advise --cache --detail $AD $AM
# a call site of the main file that the detail file does not have (read later)
grep -v fixed72 $AD | sed 's/^objects scanned: 1231$/objects scanned: 1131/' >"$TMP/detail"
run advise-missing --advise --csv --detail "$TMP/detail" $AM
printf 'slabacct: note: 1 call site of %s is not in %s (the files were read at different moments): no advice for it\n' $AM "$TMP/detail" >"$TMP/want_err"
if [ "$rc" = 0 ] && cmp -s "$TMP/want_err" "$TMP/err" &&
   grep -v fixed72 expected/advise-csv.out | sed 's/^[0-9]*,/,/' >"$TMP/want" &&
   sed 's/^[0-9]*,/,/' "$TMP/out" | cmp -s "$TMP/want" -; then
	pass advise-missing
else
	fail advise-missing "exit status $rc, stderr '$(cat "$TMP/err")'"
fi
# a detail file that has none of FILE's call sites: not the same module load
expect_err advise-unrelated 1 "slabacct: none of the 4 call sites of $B is in $LN: they were not read from one load of the module" --advise --detail $LN $B
expect_err advise-no-detail 1 "slabacct: $TMP/none: No such file or directory" --advise --detail "$TMP/none" $AM
expect_err advise-bad-detail 1 "slabacct: fixtures/detail_v2.txt:1: unsupported detail format version 2.0 (this reader understands 1.x)" --advise --detail fixtures/detail_v2.txt $AM
if command -v python3 >/dev/null 2>&1; then
	for args in "--leaks --json $LO $LN" "--leaks --json --once $LN" "--leaks --json -g nosuch $LO $LN" \
		    "--advise --json --detail $AD $AM" "--advise --json --min 1G --detail $AD $AM"; do
		# shellcheck disable=SC2086
		if "$SLABACCT" $args | python3 -m json.tool >/dev/null 2>"$TMP/err"; then
			pass "json valid: $args"
		else
			fail "json valid: $args" "$(cat "$TMP/err")"
		fi
	done
fi

# ---- offline traces: --from-trace (docs/reader.md, "Offline traces") ----

T61=fixtures/trace_61.txt
T510=fixtures/trace_510_pipe.txt
# one fixture per tracepoint era; every figure checked by hand (docs/reader.md)
expect trace-61 0 --from-trace $T61
expect trace-61-csv 0 --from-trace $T61 --csv
expect trace-61-json 0 --from-trace $T61 --json
expect trace-510-pipe-csv 0 --from-trace $T510 --csv
expect trace-515-csv 0 --from-trace fixtures/trace_515.txt --csv
expect trace-60-csv 0 --from-trace fixtures/trace_60.txt --csv
expect trace-72 0 --from-trace fixtures/trace_72.txt
expect trace-cmd-csv 0 --from-trace fixtures/trace_cmd_report.txt --csv
expect trace-cmd-kallsyms-csv 0 --from-trace fixtures/trace_cmd_report.txt --kallsyms fixtures/kallsyms.txt --csv
# raw addresses: the nearest text symbol below, its length to the next;
# past the last symbol or below the first they stay raw
expect trace-raw-kallsyms-csv 0 --from-trace fixtures/trace_raw.txt --kallsyms fixtures/kallsyms.txt --csv
expect trace-ptrval 0 --from-trace fixtures/trace_ptrval.txt
expect trace-columns-csv 0 --from-trace fixtures/trace_columns.txt --csv
# ages of the live objects at the trace's last timestamp (140.5 s)
expect trace-leaks 0 --leaks --once --from-trace fixtures/trace_leaks.txt
expect trace-leaks-csv 0 --leaks --once --from-trace fixtures/trace_leaks.txt --csv
expect trace-leaks-json 0 --leaks --once --from-trace fixtures/trace_leaks.txt --json
printf '  bash-1 [000] ..... nots: kmalloc: call_site=f+0x1/0x2 ptr=ffff888000000000 bytes_req=8 bytes_alloc=8\n' >"$TMP/t"
expect_err trace-leaks-no-ts 1 "slabacct: $TMP/t: no timestamps in the trace: no ages to compute" --leaks --once --from-trace "$TMP/t"
# trace_clock=counter (or x86-tsc): timestamps that are counts, not seconds
printf '  bash-1 [000] ..... 12345: kmalloc: call_site=f+0x1/0x2 ptr=ffff888000000000 bytes_req=8 bytes_alloc=8\n' >"$TMP/t"
expect_err trace-leaks-counter-ts 1 "slabacct: $TMP/t: the trace's timestamps are counts, not seconds (trace_clock counter or x86-tsc): no ages to compute (trace with trace_clock local, global, mono or boot)" --leaks --once --from-trace "$TMP/t"
# every existing option works on a trace's account
expect trace-61-by-module 0 --from-trace $T61 -b module
expect trace-61-filtered 0 --from-trace $T61 --csv --kmalloc -m sa_test
expect trace-61-folded 0 --from-trace $T61 --folded
expect trace-72-openmetrics 0 --from-trace fixtures/trace_72.txt --openmetrics
expect trace-61-svg 0 --from-trace $T61 --svg -
# --max-input is for slab_account files: a trace is streamed
expect trace-61-csv 0 --from-trace $T61 --csv --max-input 1K
if command -v promtool >/dev/null 2>&1; then
	if "$SLABACCT" --from-trace fixtures/trace_72.txt --openmetrics 2>/dev/null |
	   promtool check metrics >"$TMP/err" 2>&1; then
		pass trace-promtool
	else
		fail trace-promtool "$(cat "$TMP/err")"
	fi
fi
expect_order trace-61-sort-live "kobject_uevent_env alloc_inode sa_test_alloc" --from-trace $T61 -s live
# --diff tells traces from slab_account files by their first line
expect trace-diff-snapshot 0 -d $T61 fixtures/trace_61_snapshot.txt
expect trace-diff-trace-csv 0 -d --csv $T61 fixtures/trace_61_later.txt
expect trace-diff-snapshot-trace-csv 0 -d --csv fixtures/trace_61_snapshot.txt fixtures/trace_61_later.txt
# shellcheck disable=SC2002 # a pipe on purpose, not a file
if cat $T61 | "$SLABACCT" --from-trace - --csv >"$TMP/out" 2>"$TMP/err" &&
   [ ! -s "$TMP/err" ] && cmp -s expected/trace-61-csv.out "$TMP/out"; then
	pass trace-stdin
else
	fail trace-stdin "the account of a piped trace differs from expected/trace-61-csv.out"
fi
# shellcheck disable=SC2002 # a pipe on purpose, not a file
if cat fixtures/trace_61_later.txt | "$SLABACCT" -d --csv $T61 - >"$TMP/out" 2>"$TMP/err" &&
   [ ! -s "$TMP/err" ] && cmp -s expected/trace-diff-trace-csv.out "$TMP/out"; then
	pass trace-diff-stdin
else
	fail trace-diff-stdin "a diff with a piped trace differs from expected/trace-diff-trace-csv.out"
fi
# a trace and a snapshot on standard input are told apart too
# shellcheck disable=SC2002 # a pipe on purpose, not a file
if cat fixtures/trace_61_snapshot.txt | "$SLABACCT" -d $T61 - >"$TMP/out" 2>"$TMP/err" &&
   [ ! -s "$TMP/err" ] && sed 's|^fixtures/trace_61.txt -> <stdin>$|fixtures/trace_61.txt -> fixtures/trace_61_snapshot.txt|' "$TMP/out" |
   cmp -s expected/trace-diff-snapshot.out -; then
	pass trace-diff-snapshot-stdin
else
	fail trace-diff-snapshot-stdin "a diff with a piped snapshot differs from expected/trace-diff-snapshot.out"
fi
expect_err trace-kallsyms-zero 1 "slabacct: fixtures/kallsyms_zero.txt: every address is 0: the copy was read without root (or under kptr_restrict=2); copy /proc/kallsyms as root" --from-trace $T61 --kallsyms fixtures/kallsyms_zero.txt
expect_err trace-snapshot-as-trace 1 "slabacct: $V:1: a slab_account file, not a trace (read it without --from-trace)" --from-trace $V
expect_err trace-not-a-trace 1 "slabacct: fixtures/kallsyms.txt:1: not a trace line: expected 'TASK-PID [CPU] ... TIMESTAMP: EVENT: FIELDS', a '#' comment or 'CPU:N [LOST M EVENTS]'" --from-trace fixtures/kallsyms.txt
expect_err trace-empty 1 "slabacct: fixtures/empty.txt: no trace events: empty, or not a trace" --from-trace fixtures/empty.txt
expect_err trace-nonexistent 1 "slabacct: $TMP/none: No such file or directory" --from-trace "$TMP/none"
printf '  bash-1 [000] ..... 1.000000: kmalloc: call_site=f+0x1/0x2 ptr=ffff888000000000 bytes_req=8\n' >"$TMP/t"
expect_err trace-no-bytes-alloc 1 "slabacct: $TMP/t:1: no bytes_alloc= field in a kmem allocation event" --from-trace "$TMP/t"
printf '  bash-1 [000] ..... 1.000000: kfree: call_site=f+0x1/0x2 ptr=zz\n' >"$TMP/t"
expect_err trace-bad-ptr 1 "slabacct: $TMP/t:1: ptr 'zz' is not a pointer" --from-trace "$TMP/t"
head -c 2000000 /dev/zero | tr '\0' x >"$TMP/t"
expect_err trace-long-line 1 "slabacct: $TMP/t:1: a line longer than 1048576 bytes: not a trace" --from-trace "$TMP/t"

# memory: bounded by live objects and sites, not by the trace's length
# (64 live objects at most; 10x the events may not cost 4 MiB more)
gen_trace() {
	awk -v n="$1" 'BEGIN {
		for (i = 0; i < n; i++) {
			printf "  bash-1 [000] ..... 1.%06d: kmalloc: call_site=f+0x1/0x2 ptr=ffff8880%08x bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL\n", i % 1000000, i % 64
			printf "  bash-1 [000] ..... 1.%06d: kfree: call_site=g+0x1/0x2 ptr=ffff8880%08x\n", i % 1000000, (i + 32) % 64
		}
	}'
}
if [ -x /usr/bin/time ]; then
	gen_trace 40000 | /usr/bin/time -f %M -o "$TMP/rss1" "$SLABACCT" --from-trace - --csv >"$TMP/out1" 2>&1
	rc1=$?
	gen_trace 400000 | /usr/bin/time -f %M -o "$TMP/rss2" "$SLABACCT" --from-trace - --csv >"$TMP/out2" 2>&1
	rc2=$?
	r1=$(tail -n 1 "$TMP/rss1")
	r2=$(tail -n 1 "$TMP/rss2")
	if [ "$rc1" = 0 ] && [ "$rc2" = 0 ] && [ $((r2 - r1)) -lt 4096 ] &&
	   grep -q '^3200000,0,3200000,256,256,32,264,400000,399968,0.00,kmalloc,f+0x1/0x2$' "$TMP/out2"; then
		pass "trace-memory (peak RSS $r1 KiB for 80000 events, $r2 KiB for 800000)"
	else
		fail trace-memory "exit $rc1/$rc2, peak RSS $r1 -> $r2 KiB: $(head -3 "$TMP/out2")"
	fi
else
	echo "skip cli: trace-memory (no /usr/bin/time)"
fi
# progress on a terminal (script(1) gives one) for a regular file of 64 MiB or more
if command -v script >/dev/null 2>&1; then
	gen_trace 330000 >"$TMP/big.trace"
	script -qec "\"$SLABACCT\" --from-trace \"$TMP/big.trace\" --summary-only >/dev/null" /dev/null </dev/null >"$TMP/tty" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && grep -q "slabacct: reading $TMP/big.trace: *[0-9]*%" "$TMP/tty" &&
	   tail -c 5 "$TMP/tty" | od -An -c | tr -d ' \n' | grep -q '\\r033\[K'; then
		pass trace-progress
	else
		fail trace-progress "exit $rc: $(od -c "$TMP/tty" | head -5)"
	fi
	# not on a pipe
	"$SLABACCT" --from-trace "$TMP/big.trace" --summary-only >/dev/null 2>"$TMP/err"
	if [ ! -s "$TMP/err" ]; then
		pass trace-no-progress
	else
		fail trace-no-progress "stderr: $(head -c 100 "$TMP/err")"
	fi
	rm -f "$TMP/big.trace"
else
	echo "skip cli: trace-progress (no script)"
fi

# ---- memory that runs out ----
# Every allocation of a run made to fail in turn (failalloc.so, on the
# unsanitized build): each run exits 0 or 1 (--check: 2), with a message
# then, and -o leaves no temporary file.
if [ -n "${SA_PLAIN:-}" ] && [ -n "${SA_FAILALLOC:-}" ]; then
	oom_case() {
		name=$1
		shift
		err_rc=1	# an error's exit status (--check: 2, the gate could not run)
		[ "$1" != --check ] || err_rc=2
		mkdir -p "$TMP/oom"
		rm -f "$TMP/oom/"*
		SA_FAIL_COUNT="$TMP/calls" LD_PRELOAD="$SA_FAILALLOC" "$SA_PLAIN" "$@" \
			-o "$TMP/oom/out" >/dev/null 2>&1 </dev/null
		calls=$(cat "$TMP/calls" 2>/dev/null || echo 0)
		bad=""
		n=1
		while [ $n -le "$calls" ] && [ -z "$bad" ]; do
			rm -f "$TMP/oom/"*
			SA_FAIL_AT=$n LD_PRELOAD="$SA_FAILALLOC" "$SA_PLAIN" "$@" -o "$TMP/oom/out" \
				>/dev/null 2>"$TMP/err" </dev/null
			rc=$?
			left=$(ls "$TMP/oom" | grep -v '^out$')
			if [ "$rc" != 0 ] && [ "$rc" != "$err_rc" ]; then
				bad="allocation $n failed: exit status $rc"
			elif [ "$rc" = "$err_rc" ] && ! grep -q '^slabacct: ' "$TMP/err"; then
				bad="allocation $n failed: exit $rc without a message"
			elif [ -n "$left" ]; then
				bad="allocation $n failed: left $left"
			fi
			n=$((n + 1))
		done
		if [ "$calls" -lt 10 ]; then
			fail "$name" "only $calls allocations counted (failalloc.so not preloaded?)"
		elif [ -n "$bad" ]; then
			fail "$name" "$bad"
		else
			pass "$name ($calls allocations, each failed in turn)"
		fi
	}
	oom_case oom-report --csv $V
	oom_case oom-leaks --leaks fixtures/leaks_old.txt fixtures/leaks_new.txt
	oom_case oom-leaks-json --leaks --json --once fixtures/leaks_new.txt
	oom_case oom-advise --advise --detail fixtures/advise_amd64_detail.txt fixtures/advise_amd64.txt
	oom_case oom-advise-csv --advise --csv --detail fixtures/advise_arm64_detail.txt fixtures/advise_arm64.txt
	oom_case oom-unloads --unloads fixtures/unloads.txt fixtures/retired.txt
	oom_case oom-retired-by --by module fixtures/retired.txt
	# (1.6) contexts: the sites summed, the groups, the trees, the series per context
	oom_case oom-ctx-by-cgroup -b cgroup --cgroup-root fixtures fixtures/ctx_cgroup.txt
	oom_case oom-ctx-stacks --stacks --stacks-file fixtures/ctx_stack.stacks --detail fixtures/ctx_stack.detail fixtures/ctx_stack.txt
	oom_case oom-ctx-folded --folded --stacks-file fixtures/ctx_stack.stacks fixtures/ctx_stack.txt
	# (stacks 2.0) each stack's first context, its cgroup's path; the JSON view
	oom_case oom-ctx-stacks-first --stacks --cgroup-root fixtures --stacks-file fixtures/ctx_stack_first.stacks fixtures/ctx_stack.txt
	oom_case oom-ctx-stacks-json --stacks --json --cgroup-root fixtures --stacks-file fixtures/ctx_stack_first.stacks --detail fixtures/ctx_stack.detail fixtures/ctx_stack.txt
	oom_case oom-ctx-prom --prometheus --top-k 1 fixtures/ctx_cgroup.txt
	# (rules that hold: exit 2 is then an error's, and must say so)
	oom_case oom-check --check --rules fixtures/gate_fixed.rules --unloads-file fixtures/fixed_unloads.txt fixtures/fixed_base.txt fixtures/fixed.txt
	oom_case oom-ctx-check --check --stacks-file fixtures/ctx_stack.stacks -R "live <= 1M stack sa_ctx_run" fixtures/ctx_stack.txt
	oom_case oom-check-detail --check -R "no growing module vmlinux" -R "slack <= 100% per function" --baseline-detail fixtures/leaks_old.txt --detail fixtures/leaks_new.txt fixtures/valid.txt
else
	echo "skip cli: memory that runs out (SA_PLAIN and SA_FAILALLOC unset: make -C userspace check sets them)"
fi

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
usage_err bad-sort-key "slabacct: unknown sort key 'size' (total, bytes, slack, waste, req, live, live_req, objs, peak, allocs, hit, frees, frag, caller, callsite, sites)" -s size $V
usage_err bad-top "slabacct: --top: '0' is not a positive whole number" -n 0 $V
usage_err bad-top-junk "slabacct: --top: '5x' is not a positive whole number" -n 5x $V
usage_err bad-top-k "slabacct: --top-k: '0' is not a positive whole number" --prometheus --top-k 0 $V
usage_err top-k-csv "slabacct: --top-k bounds the series of --prometheus: use -n for the other formats" --csv --top-k 3 $V
usage_err top-k-and-top "slabacct: --top and --top-k exclude each other (with --prometheus they are the same bound)" --prometheus --top-k 3 -n 2 $V
usage_err csv-and-json "slabacct: --csv, --json, --prometheus, --folded, --svg, --ktap and --junit exclude each other" --csv --json $V
usage_err openmetrics-csv "slabacct: --csv, --json, --prometheus, --folded, --svg, --ktap and --junit exclude each other" --openmetrics --csv $V
usage_err svg-output "slabacct: --svg FILE names its file: not with -o" --svg x.svg -o y $V
usage_err svg-frag "slabacct: --svg sizes the areas by the first sort key: a number of bytes or a count (not frag or caller)" --svg x.svg -s frag $V
usage_err folded-diff "slabacct: --folded writes one file's stacks: not with --diff or --watch" --folded -d $B $A
usage_err folded-frag "slabacct: --folded weighs the stacks by the first sort key: a number of bytes or a count (not frag or caller)" --folded -s frag $V
usage_err folded-summary "slabacct: --folded has rows only: --summary-only does not go with it" --folded --summary-only $V
usage_err openmetrics-diff "slabacct: --prometheus writes one file's metrics: not with --diff" --openmetrics -d $B $A
usage_err openmetrics-delta "slabacct: --prometheus has counters: --delta does not go with it" --openmetrics -w --delta $V
usage_err kmalloc-and-cache "slabacct: --kmalloc and --cache exclude each other" --kmalloc --cache $V
usage_err summary-toggles "slabacct: --summary-only and --no-summary exclude each other" --summary-only --no-summary $V
usage_err csv-summary-only "slabacct: --csv has rows only: --summary-only does not go with it" --csv --summary-only $V
usage_err diff-one-file "slabacct: --diff needs two files, OLD and NEW" -d $B
usage_err two-files "slabacct: one FILE at most (or --diff OLD NEW)" $B $A
usage_err interval-without-watch "slabacct: --interval, --count, --batch and --delta go with --watch" -i 1 $V
usage_err count-without-watch "slabacct: --interval, --count, --batch and --delta go with --watch" --count 1 $V
usage_err width-small "slabacct: --width: '19' is not a number of columns (0: not fitted, or 20 to 10000)" --width 19 $V
usage_err width-word "slabacct: --width: 'wide' is not a number of columns (0: not fitted, or 20 to 10000)" --width wide $V
usage_err width-csv "slabacct: --width fits the text report: not with another format" --width 80 --csv $V
usage_err width-leaks "slabacct: --leaks does not go with --width" --width 80 --leaks --once $V
usage_err full-summary-no-watch "slabacct: --full-summary goes with --watch (the report's summary is full)" --full-summary $V
usage_err full-summary-only "slabacct: --full-summary does not go with --summary-only or --no-summary" -w --full-summary --no-summary $V
usage_err all-without-diff "slabacct: --all goes with --diff" -a $V
usage_err bad-interval "slabacct: --interval: '0' is not a number of seconds (0.1 <= SECS <= 86400)" -w -i 0 $V
usage_err bad-interval-junk "slabacct: --interval: '1s' is not a number of seconds (0.1 <= SECS <= 86400)" -w -i 1s $V
usage_err watch-diff "slabacct: --watch shows the text or CSV report of one file, or its Prometheus metrics with -o FILE (no --diff or --json)" -w -d $B $A
usage_err watch-json "slabacct: --watch shows the text or CSV report of one file, or its Prometheus metrics with -o FILE (no --diff or --json)" -w --json $V
usage_err watch-prometheus-stdout "slabacct: --watch --prometheus replaces -o FILE at each refresh: give it a file (expositions appended to standard output are not one exposition)" -w --prometheus $V
usage_err watch-prometheus-dash "slabacct: --watch --prometheus replaces -o FILE at each refresh: give it a file (expositions appended to standard output are not one exposition)" -w --count 2 --prometheus -o - $V
usage_err interval-too-small "slabacct: --interval: '0.01' is not a number of seconds (0.1 <= SECS <= 86400)" -w -i 0.01 $V
usage_err batch-without-watch "slabacct: --interval, --count, --batch and --delta go with --watch" --batch $V
usage_err delta-without-watch "slabacct: --interval, --count, --batch and --delta go with --watch" --delta $V
usage_err once-and-count "slabacct: --once and --count exclude each other" -w --once --count 2 $V
usage_err diff-stdin-twice "slabacct: --diff: OLD and NEW cannot both be standard input" --diff - -
usage_err sort-many-keys "slabacct: --sort: at most 4 keys" -s total,req,live,objs,peak $V
usage_err sort-bad-second-key "slabacct: unknown sort key 'sizes' (total, bytes, slack, waste, req, live, live_req, objs, peak, allocs, hit, frees, frag, caller, callsite, sites)" -s total,sizes $V
usage_err sort-empty-key "slabacct: unknown sort key '' (total, bytes, slack, waste, req, live, live_req, objs, peak, allocs, hit, frees, frag, caller, callsite, sites)" -s total, $V
usage_err bad-min-size "slabacct: --min-size: '1X' is not a size (a whole number, optionally with K, M, G, T, P or E)" -z 1X $V
usage_err bad-min-size-overflow "slabacct: --max-size: '16E' is not a size (a whole number, optionally with K, M, G, T, P or E)" -Z 16E $V
usage_err min-caller "slabacct: --min needs a numeric first sort key (not caller)" -s caller --min 1 $V
usage_err output-option "slabacct: --output: '-s' is not a file name (slabtop's -o is --once here)" -o -s total $V
usage_err sizes-empty "slabacct: --min-size is more than --max-size: no call site can pass both" -z 1K -Z 10 $V
usage_err cache-empty "slabacct: --cache=: an empty cache name (--cache alone keeps every kmem_cache row)" --cache= $V
usage_err max-input-zero "slabacct: --max-input: '0' is not a positive size" --max-input 0 $V
usage_err by-bad-key "slabacct: --by: unknown key 'file' (module, function, cache, type, cgroup, node, task or stack)" --by file $V
usage_err by-empty-key "slabacct: --by: unknown key '' (module, function, cache, type, cgroup, node, task or stack)" -b '' $V
usage_err sort-sites-without-by "slabacct: --sort: the key sites goes with --by" -s total,sites $V
usage_err by-summary-only "slabacct: --by groups the rows: --summary-only does not go with it" -b module --summary-only $V
usage_err by-folded "slabacct: --by does not go with --folded or --svg: they nest call sites in functions in modules already" -b module --folded $V
usage_err by-svg "slabacct: --by does not go with --folded or --svg: they nest call sites in functions in modules already" -b function --svg x.svg $V
usage_err by-openmetrics "slabacct: --by does not go with --prometheus: its series carry module and function labels (sum by (module) in PromQL)" -b type --openmetrics $V
usage_err leaks-advise "slabacct: --leaks and --advise exclude each other" --leaks --advise $V
usage_err leaks-sort "slabacct: --leaks does not go with --sort or --reverse (the ranking is fixed)" --leaks -s live fixtures/leaks_old.txt fixtures/leaks_new.txt
usage_err advise-diff "slabacct: --advise does not go with --diff or --all" --advise -d $V
usage_err advise-svg "slabacct: --advise does not go with --prometheus, --folded or --svg" --advise --folded $V
usage_err leaks-one-file "slabacct: --leaks takes two snapshots OLD NEW, none (it reads the detail file twice), or --once [FILE]" --leaks fixtures/leaks_new.txt
usage_err leaks-once-two "slabacct: --leaks takes two snapshots OLD NEW, none (it reads the detail file twice), or --once [FILE]" --leaks --once fixtures/leaks_old.txt fixtures/leaks_new.txt
usage_err leaks-interval-files "slabacct: --interval goes with a live --leaks (no FILE, no --once)" --leaks -i 5 fixtures/leaks_old.txt fixtures/leaks_new.txt
usage_err leaks-interval-short "slabacct: --leaks: --interval is at least 1 second (the module's clock counts seconds)" --leaks -i 0.5
usage_err leaks-detail-files "slabacct: --detail names the file --leaks reads when no FILE is given" --leaks --detail x fixtures/leaks_old.txt fixtures/leaks_new.txt
usage_err leaks-stdin "slabacct: --leaks reads the detail file twice: it cannot read standard input" --leaks --detail -
usage_err leaks-bad-min-age "slabacct: --leaks-min-age: '1m' is not a whole number of seconds" --leaks --leaks-min-age 1m
usage_err advise-once "slabacct: --once, --interval and --leaks-min-age go with --leaks" --advise --once $V
usage_err advise-two-files "slabacct: --advise reads one FILE (the detail file is --detail's)" --advise $V $V
usage_err detail-alone "slabacct: --detail goes with --leaks, --advise, --check or --stacks" --detail x $V
usage_err watch-stdin "slabacct: --watch rereads the file: it cannot read standard input" -w -
usage_err trace-and-file "slabacct: --from-trace names the input: no FILE besides it" --from-trace $V $V
usage_err trace-diff "slabacct: --diff takes traces as OLD or NEW (told by content): not with --from-trace" --from-trace $V -d $V $V
usage_err trace-watch "slabacct: --from-trace reads a trace once: not with --watch" --from-trace $V -w
usage_err trace-advise "slabacct: --advise needs the running kernel's size classes: not with --from-trace" --from-trace $V --advise
usage_err trace-leaks "slabacct: --leaks with --from-trace takes --once (the ages at the trace's end)" --from-trace $V --leaks
usage_err trace-detail "slabacct: --from-trace is the input: not with --detail" --from-trace $V --leaks --once --detail x
usage_err check-no-rules "slabacct: --check needs rules: --rule RULE (repeated) or --rules FILE" --check $R
usage_err check-three "slabacct: --check reads [BASELINE] CURRENT (or --baseline FILE and [CURRENT])" --check -R "live <= 1K" $R $R $R
usage_err check-baseline-twice "slabacct: --check reads [BASELINE] CURRENT (or --baseline FILE and [CURRENT])" --check -R "live <= 1K" --baseline $R $R $R
usage_err check-diff "slabacct: --check is a command of its own: not with --diff, --watch, --leaks, --advise, --from-trace or --unloads" --check --leaks -R "live <= 1K" $R
usage_err check-csv "slabacct: --check does not go with --csv" --check --csv -R "live <= 1K" $R
usage_err ktap-alone "slabacct: --ktap and --junit are the outputs of --check" --ktap $R
usage_err rule-alone "slabacct: --rule, --rules, --baseline, --baseline-detail and --unloads-file go with --check" -R "live <= 1K" $R
usage_err check-stdin-twice "slabacct: --check: standard input can be one of its inputs only" --check --rules - $R -
usage_err save-alone-json "slabacct: --save-baseline FILE [SNAPSHOT] saves a snapshot: alone it takes only --max-input (with --check, the check's options)" --save-baseline x --json $R
usage_err save-two "slabacct: --save-baseline FILE saves one SNAPSHOT (default /proc/slab_account)" --save-baseline x $R $R
usage_err unloads-three "slabacct: --unloads reads [UNLOADS [SNAPSHOT]]: the unloads file, and a later snapshot to tell what was freed since" --unloads $U $R $R
usage_err unloads-watch "slabacct: --unloads is a command of its own: not with --diff, --watch, --leaks, --advise or --from-trace" --unloads -w $U
usage_err unloads-sort "slabacct: --unloads does not go with --sort" --unloads -s live $U
usage_err kallsyms-alone "slabacct: --kallsyms names the call sites of a trace: with --from-trace or --diff" --kallsyms x $V
usage_err kallsyms-stdin "slabacct: --kallsyms and the trace cannot both be standard input" --kallsyms - --from-trace -
usage_err kallsyms-stdin-diff "slabacct: --kallsyms and the trace cannot both be standard input" --kallsyms - -d $V -

# ---- contexts (format 1.6): child rows of a split or a capture ----

CG=fixtures/ctx_cgroup.txt
CN=fixtures/ctx_node.txt
CT=fixtures/ctx_task.txt
CS=fixtures/ctx_stack.txt
V15=fixtures/valid_1_5.txt
SF=fixtures/ctx_stack.stacks
mkdir "$TMP/cgnone"	# a cgroup root without cgroups: ids shown as cgroup#ID
expect ctx-default 0 $CG
expect ctx-csv 0 --csv $CG
expect ctx-by-cgroup 0 -b cgroup --cgroup-root "$TMP/cgnone" $CG
expect ctx-by-cgroup-csv 0 --csv -b cgroup --cgroup-root "$TMP/cgnone" $CG
expect ctx-cgroup-id 0 --no-summary --cgroup 7788 $CG
expect ctx-cgroup-irq 0 --no-summary --cgroup irq $CG
expect ctx-by-module 0 --no-summary -b module $CG
expect ctx-by-node 0 --no-summary -b node $CN
expect ctx-node 0 --no-summary --node 1 $CN
expect ctx-by-task 0 --no-summary -b task $CT
expect ctx-task 0 --no-summary --task 'kworker/0:1@x' $CT
expect ctx-task-irq 0 --no-summary --task irq $CT
expect ctx-by-task-json 0 --json -b task $CT
expect ctx-stack-default 0 $CS
expect ctx-by-stack 0 --no-summary -b stack $CS
expect ctx-diff 0 --no-summary -d $CS $CS -a
expect_err ctx-by-node-cgroup 1 "slabacct: $CG: --by node needs a file split by node; its split is cgroup" -b node $CG
expect_err ctx-task-cgroup 1 "slabacct: $CG: --task needs a file split by task; its split is cgroup" --task x $CG
expect_err ctx-by-cgroup-1.5 1 "slabacct: $V15: --by cgroup needs a file split by cgroup; a format 1.5 file has no split" -b cgroup --cgroup-root "$TMP/cgnone" $V15
expect_err ctx-cgroup-path-missing 1 "slabacct: --cgroup: no cgroup '/x' under $TMP/cgnone" --cgroup /x --cgroup-root "$TMP/cgnone" $CG
expect_err ctx-cgroup-root-missing 1 "slabacct: --cgroup-root: $TMP/none: No such file or directory" -b cgroup --cgroup-root "$TMP/none" $CG
usage_err ctx-cgroup-node "slabacct: --cgroup, --node and --task each select rows of a file split by that context: one at a time" --cgroup 1 --node 1 $CG
usage_err ctx-node-bad "slabacct: --node: 'x' is not a node number" --node x $CN
usage_err ctx-leaks-cgroup "slabacct: --leaks does not go with --cgroup" --leaks --once --cgroup 1 $CG
# Each child row is counted once in its site: the sites' sums are the file's.
run ctx-sums --csv $CG
if [ "$rc" = 0 ] && [ "$(tail -n +2 "$TMP/out" | awk -F, '{ t += $1; l += $4 } END { print t, l }')" = "33888 17792" ]; then
	pass ctx-sums
else
	fail ctx-sums "the sites' total and live do not add up to the header's (exit status $rc)"
fi

# cgroup ids named by walking a directory tree: a cgroup's id is its
# directory's inode number, so a tree of plain directories names them alike.
mkdir -p "$TMP/cgroot/sys.slice/a.service" "$TMP/cgroot/user.slice"
ia=$(stat -c %i "$TMP/cgroot/sys.slice/a.service")
iu=$(stat -c %i "$TMP/cgroot/user.slice")
sed "s/@cgroup:7788/@cgroup:$ia/; s/@cgroup:7789/@cgroup:$iu/" $CG >"$TMP/cg.txt"

# --leaks ranks a detail file's child rows (a captured site's stacks) each
# on its own, named as the file names them; -m takes them by their site's module
expect ctx-leaks 0 --leaks --once fixtures/ctx_detail.txt
expect ctx-leaks-module 0 --leaks --once -m sa_test fixtures/ctx_detail.txt

# the gate weighs a site as its own row and its child rows together
expect ctx-gate-per-site 1 --check -R 'live <= 13K per site function __alloc_skb' $CG
expect ctx-gate-per-site-pass 0 --check -R 'live <= 14K per site function __alloc_skb' $CG
# the gate's context selectors: a cgroup (id, path, irq), a task, a node,
# the stacks with a frame in a function
expect ctx-gate-cgroup 1 --check -R 'live <= 10K cgroup 7788' -R 'live <= 10K per site cgroup 7789' \
	-R 'live <= 1K cgroup irq' -R 'live <= 2K not cgroup 7788 not cgroup 7789' $CG
expect ctx-gate-task 1 --check -R 'live <= 1K task sa_worker_1' -R 'objs <= 2 task irq' $CT
expect ctx-gate-node 1 --check -R 'live <= 9K node 0' -R 'live <= 1K per site node 1' $CN
expect ctx-gate-stack 1 --check --stacks-file $SF -R 'live <= 4K stack sa_ctx_run' \
	-R 'live <= 3K stack do_one_initcall' -R 'live <= 1K stack not_a_frame' $CS
run ctx-gate-cgroup-path --check --cgroup-root "$TMP/cgroot" -R 'live <= 5K cgroup /user.slice' \
	-R 'live <= 9K cgroup sys.slice/a.service' "$TMP/cg.txt"
if [ "$rc" = 1 ] && grep -q '^PASS 1 live <= 5K cgroup /user.slice: cgroup /user.slice: 4480 live bytes' "$TMP/out" &&
   grep -q '^FAIL 2 live <= 9K cgroup sys.slice/a.service: cgroup sys.slice/a.service: 10240 live bytes' "$TMP/out"; then
	pass ctx-gate-cgroup-path
else
	fail ctx-gate-cgroup-path "exit status $rc: $(cat "$TMP/out" "$TMP/err")"
fi
gate_err ctx-gate-no-growing "slabacct: --rule 1:12: rule 'no growing cgroup 3': 'no growing' judges call sites, not the rows of a context or a stack; expected no 'cgroup'" -R 'no growing cgroup 3' $CG
gate_err ctx-gate-cgroup-missing "slabacct: --rule 1: rule 'live <= 1K cgroup /x': no cgroup '/x' (a path under the cgroup root, an id or irq)" --cgroup-root "$TMP/cgnone" -R 'live <= 1K cgroup /x' $CG
gate_err ctx-gate-node-bad "slabacct: --rule 1:17: rule 'live <= 1K node x': node 'x'; expected a node number" -R 'live <= 1K node x' $CG
gate_err ctx-gate-stacks-missing "slabacct: $TMP/none: No such file or directory" --stacks-file "$TMP/none" -R 'live <= 1K stack f' $CS

# --prometheus: without a split one series per site, its stacks summed in;
# with a split per context, labelled, top-K within each context
run ctx-prom --prometheus --no-summary $CS
if [ "$rc" = 0 ] && grep -qx 'slab_account_site_live_bytes{function="sa_ctx_alloc",module="sa_ctx",site="sa_ctx_alloc+0x1c/0x50 \[sa_ctx\]",type="kmalloc"} 6144' "$TMP/out" &&
   [ "$(grep -c '^slab_account_site_live_bytes{' "$TMP/out")" = 2 ]; then
	pass ctx-prom
else
	fail ctx-prom "exit status $rc: $(grep '^slab_account_site_live_bytes' "$TMP/out")"
fi
expect ctx-prom-cgroup 0 --prometheus --top-k 1 -s live --cgroup-root "$TMP/cgnone" $CG
expect ctx-prom-task 0 --prometheus --no-summary --task sa_worker_1 $CT
if command -v promtool >/dev/null 2>&1; then
	if promtool check metrics <expected/ctx-prom-cgroup.out >"$TMP/promtool" 2>&1; then
		pass ctx-prom-promtool
	else
		fail ctx-prom-promtool "$(head -5 "$TMP/promtool")"
	fi
fi

# --stacks and --folded with the stacks file
expect ctx-stacks 0 --stacks --stacks-file $SF $CS
expect ctx-stacks-live 0 --stacks -s live --stacks-file $SF $CS
# with the detail file: each line's oldest live object ('-': none)
expect ctx-stacks-detail 0 --stacks --stacks-file $SF --detail fixtures/ctx_stack.detail $CS
# two captured sites, the second's lines past the first 16 (the lines' array moves)
expect ctx-stacks-many 0 --stacks --stacks-file fixtures/ctx_stack_many.stacks fixtures/ctx_stack_many.txt
# -n N: the first N captured sites
expect ctx-stacks-many-top 0 --stacks -n 1 --stacks-file fixtures/ctx_stack_many.stacks fixtures/ctx_stack_many.txt
expect ctx-folded-stacks 0 --folded --stacks-file $SF $CS
expect ctx-folded-stacks-live 0 --folded -s live --stacks-file $SF $CS
# (stacks 2.0) each stack's first allocation's context, where the stack
# ends: ctx_stack_first.stacks is ctx_stack.stacks written by hand in the
# 2.0 form from docs/format.md (fixtures/guest2_* below are a guest's): a
# process, a thread of another (tid shown), an interrupt
SF1=fixtures/ctx_stack_first.stacks
expect ctx-stacks-first 0 --stacks --cgroup-root "$TMP/cgnone" --stacks-file $SF1 $CS
expect ctx-stacks-first-json 0 --stacks --json --cgroup-root "$TMP/cgnone" --stacks-file $SF1 $CS
expect ctx-stacks-json 0 --stacks --json -s live --stacks-file $SF --detail fixtures/ctx_stack.detail $CS
# --stacks --json orders a site's stacks by the first sort key as the tree
# does, whichever column it is: ctx_stack.txt with stack 3's slack 1692
# (of 1792: req 100) is first by slack, last by req
sed 's/^\( *1792\) *532 *1260 /\1     1692      100 /' $CS >"$TMP/slack.txt"
for k in slack:3,1,2 req:1,2,3 total:1,2,3 frees:1,3,2; do
	run ctx-stacks-json-sort -s "${k%%:*}" --stacks --json --stacks-file $SF "$TMP/slack.txt"
	got=$(sed -n 's/^ *{"id": \([0-9]*\),.*/\1/p' "$TMP/out" | paste -sd, -)
	if [ "$rc" = 0 ] && [ "$got" = "${k#*:}" ] && grep -q '^ *1792 *1692 *100 ' "$TMP/slack.txt"; then
		pass "ctx-stacks-json-sort-${k%%:*}"
	else
		fail "ctx-stacks-json-sort-${k%%:*}" "exit status $rc, stacks in the order $got, want ${k#*:}"
	fi
done
# --folded and the gate read a 2.0 file as they read its 1.0 twin
run ctx-folded-stacks-first --folded --stacks-file $SF1 $CS
if [ "$rc" = 0 ] && cmp -s "$TMP/out" expected/ctx-folded-stacks.out && [ ! -s "$TMP/err" ]; then
	pass ctx-folded-stacks-first
else
	fail ctx-folded-stacks-first "exit status $rc, not ctx-folded-stacks' output: $(head -3 "$TMP/err")"
fi
run ctx-gate-stack-first --check --stacks-file $SF1 -R 'live <= 4K stack sa_ctx_run' \
	-R 'live <= 3K stack do_one_initcall' -R 'live <= 1K stack not_a_frame' $CS
if [ "$rc" = 1 ] && cmp -s "$TMP/out" expected/ctx-gate-stack.out; then
	pass ctx-gate-stack-first
else
	fail ctx-gate-stack-first "exit status $rc, not ctx-gate-stack's output: $(head -3 "$TMP/err")"
fi
# a cgroup id named by its path under --cgroup-root
mkdir -p "$TMP/cgfirst/x/y"
ino=$(stat -c %i "$TMP/cgfirst/x/y")
sed "s/cgroup 7788\$/cgroup $ino/" $SF1 >"$TMP/first.stacks"
run ctx-stacks-first-path --stacks --cgroup-root "$TMP/cgfirst" --stacks-file "$TMP/first.stacks" $CS
if [ "$rc" = 0 ] && grep -qxF ' 7680 2560   10     30    20     sa_ctx_run+0x30/0x80 [sa_ctx]  [stack 1, first: pid 412 comm sa_run_a cgroup /x/y]' "$TMP/out" &&
	grep -qF '[stack 2, first: pid 413 tid 420 comm my_worker cgroup cgroup#1]' "$TMP/out"; then
	pass ctx-stacks-first-path
else
	fail ctx-stacks-first-path "exit status $rc: $(cat "$TMP/out" "$TMP/err")"
fi
# a --cgroup-root that cannot be read is an error when a stack names a cgroup
expect_err ctx-stacks-first-cgroot 1 "slabacct: --cgroup-root: $TMP/none: No such file or directory" --stacks --cgroup-root "$TMP/none" --stacks-file $SF1 $CS
# the stacks' lines and the site's rest add up to the site's figure
run ctx-folded-sum --folded --stacks-file $SF $CS
if [ "$rc" = 0 ] && [ "$(awk '{ s += $NF } END { print s }' "$TMP/out")" = 17024 ]; then
	pass ctx-folded-sum
else
	fail ctx-folded-sum "the values do not add up to total bytes allocated (exit status $rc)"
fi
head -9 $SF >"$TMP/short.stacks"
expect_err ctx-stacks-missing 1 "slabacct: $CS:40: stack 2 is not in $TMP/short.stacks (read the two files together)" --stacks --stacks-file "$TMP/short.stacks" $CS
expect_err ctx-folded-stacks-missing 1 "slabacct: $CS:40: stack 2 is not in $TMP/short.stacks (read the two files together)" --folded --stacks-file "$TMP/short.stacks" $CS
expect_err ctx-stacks-none 1 "slabacct: $CG: no call site under capture (no row has a ' @stack:ID'): nothing to show" --stacks --stacks-file $SF $CG
expect_err ctx-stacks-file-missing 1 "slabacct: $TMP/none: No such file or directory" --stacks --stacks-file "$TMP/none" $CS
expect_err ctx-stacks-not-stacks 1 "slabacct: $CS:1: not a slab_account stacks file: expected 'slab_account stacks - version: 2.x', got 'slab_account - version: 1.6'" --stacks --stacks-file $CS $CS
usage_err ctx-stacks-by "slabacct: --stacks nests each captured site's stacks: not with --by" --stacks -b module $CS
usage_err ctx-stacks-csv "slabacct: --stacks is a text or JSON view: not with another format" --stacks --csv $CS
usage_err ctx-stacks-frag "slabacct: --stacks orders the branches by the first sort key: a number of bytes or a count (not frag or caller)" --stacks -s frag $CS
# a file without stack rows is folded as before, without reading the stacks file
run ctx-folded-no-stacks --folded --stacks-file "$TMP/none" $V
if [ "$rc" = 0 ] && cmp -s expected/folded.out "$TMP/out"; then
	pass ctx-folded-no-stacks
else
	fail ctx-folded-no-stacks "exit status $rc: $(head -3 "$TMP/err")"
fi

run ctx-cgroup-paths --csv --no-summary -b cgroup --cgroup-root "$TMP/cgroot" "$TMP/cg.txt"
sed 's/cgroup#7788/\/sys.slice\/a.service/; s/cgroup#7789/\/user.slice/' expected/ctx-by-cgroup-csv.out >"$TMP/want"
if [ "$rc" = 0 ] && cmp -s "$TMP/want" "$TMP/out"; then
	pass ctx-cgroup-paths
else
	fail ctx-cgroup-paths "exit status $rc: $(diff "$TMP/want" "$TMP/out" | head -5)"
fi
run ctx-cgroup-path-filter --csv --cgroup /user.slice/ --cgroup-root "$TMP/cgroot" "$TMP/cg.txt"
if [ "$rc" = 0 ] && [ "$(tail -n +2 "$TMP/out" | cut -d, -f1,12 | tr '\n' ' ')" = "3072,__alloc_skb+0x5c/0x2d0 2400,sa_ctx_a+0x12/0x40 [sa_ctx] " ]; then
	pass ctx-cgroup-path-filter
else
	fail ctx-cgroup-path-filter "exit status $rc: $(cat "$TMP/out" "$TMP/err")"
fi
# The same on the host's cgroup2 tree, when it has one that takes a new cgroup.
if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] &&
   cgdir=$(mktemp -d /sys/fs/cgroup/sa_test.XXXXXX 2>/dev/null); then
	ic=$(stat -c %i "$cgdir")
	sed "s/@cgroup:7788/@cgroup:$ic/" $CG >"$TMP/cg2.txt"
	run ctx-cgroup2 --csv --no-summary -b cgroup "$TMP/cg2.txt"
	rmdir "$cgdir"
	if [ "$rc" = 0 ] && grep -q ",/${cgdir#/sys/fs/cgroup/}\$" "$TMP/out"; then
		pass ctx-cgroup2
	else
		fail ctx-cgroup2 "exit status $rc, $cgdir not named: $(cat "$TMP/out" "$TMP/err")"
	fi
else
	echo "skip cli: ctx-cgroup2 (no cgroup2 file system at /sys/fs/cgroup that takes a new cgroup here)"
fi

# ---- contexts from real guests (fixtures/guest_*: scripts/ci.sh fixtures) ----

# Files a Debian 6.1 guest wrote (scripts/guest-fixtures.sh says what made
# each), unedited: the reader must read them as they are.
GC=fixtures/guest_cgroup
GT=fixtures/guest_task
GN=fixtures/guest_node
GS=fixtures/guest_stack
GSC=fixtures/guest_stack_cgroup
# the default report: each site's context rows summed into it (no warning:
# a reset leaves context rows empty, counted in `context rows`, not printed)
expect guest-cgroup-default 0 $GC.txt
expect guest-task-default 0 $GT.txt
expect guest-node-default 0 $GN.txt
expect guest-stack-default 0 $GS.txt
# --by each split's context, and the filters on one context
expect guest-by-cgroup 0 --no-summary -b cgroup --cgroup-root "$TMP/cgnone" $GC.txt
expect guest-cgroup-id 0 --no-summary --cgroup 23 $GC.txt
expect guest-cgroup-irq 0 --no-summary --cgroup irq $GC.txt
expect guest-by-task 0 --no-summary -b task $GT.txt
expect guest-task 0 --no-summary --task sactx@two $GT.txt
expect guest-task-irq 0 --no-summary --task irq $GT.txt
expect guest-by-node 0 --no-summary -b node $GN.txt
expect guest-node 0 --no-summary --node 1 $GN.txt
expect guest-by-stack 0 --no-summary -b stack -g sa_ctx $GS.txt
expect guest-stack-cgroup-by-cgroup 0 --no-summary -b cgroup --cgroup-root "$TMP/cgnone" $GSC.txt
expect guest-stack-cgroup-by-stack 0 --no-summary -b stack -g sa_ctx $GSC.txt
# CSV and JSON carry the context as a column
expect guest-by-cgroup-csv 0 --csv -b cgroup --cgroup-root "$TMP/cgnone" $GC.txt
expect guest-by-task-csv 0 --csv -b task $GT.txt
expect guest-by-node-json 0 --json --no-summary -b node $GN.txt
expect guest-by-stack-json 0 --json --no-summary -b stack -g sa_ctx $GS.txt
# cgroup paths: the guest's own slabacct walked its real cgroup2 tree
# (guest_cgroup.by_cgroup and guest_cgroup.sactx_one, stdout and stderr);
# here, without that tree, the same tables, each cgroup#ID for the path
# that guest_cgroup.ids gives the id, and --cgroup with sactx_one's id
run guest-cgroup-paths --no-summary -b cgroup --cgroup-root "$TMP/cgnone" $GC.txt
awk 'NR == FNR { path[$1] = $2; next }
     match($0, /cgroup#[0-9]+$/) && (substr($0, RSTART + 7) in path) {
	$0 = substr($0, 1, RSTART - 1) path[substr($0, RSTART + 7)]
     } { print }' $GC.ids "$TMP/out" "$TMP/err" >"$TMP/got"
if [ "$rc" = 0 ] && [ -s $GC.by_cgroup ] && cmp -s $GC.by_cgroup "$TMP/got"; then
	pass guest-cgroup-paths
else
	fail guest-cgroup-paths "exit status $rc: $(diff $GC.by_cgroup "$TMP/got" | head -5)"
fi
id=$(awk '$2 == "/sactx_one" { print $1 }' $GC.ids)
run guest-cgroup-path-filter --no-summary --cgroup "$id" $GC.txt
cat "$TMP/out" "$TMP/err" >"$TMP/got"
if [ "$rc" = 0 ] && [ -n "$id" ] && [ -s $GC.sactx_one ] && cmp -s $GC.sactx_one "$TMP/got"; then
	pass guest-cgroup-path-filter
else
	fail guest-cgroup-path-filter "exit status $rc, id '$id': $(diff $GC.sactx_one "$TMP/got" | head -5)"
fi
# --prometheus: the split's label, top-K within each context
expect guest-prom-cgroup 0 --prometheus --top-k 2 -s live --cgroup-root "$TMP/cgnone" $GC.txt
expect guest-prom-node 0 --prometheus --no-summary --top-k 1 $GN.txt
if command -v promtool >/dev/null 2>&1; then
	if promtool check metrics <expected/guest-prom-cgroup.out >"$TMP/promtool" 2>&1; then
		pass guest-prom-promtool
	else
		fail guest-prom-promtool "$(head -5 "$TMP/promtool")"
	fi
fi
# --stacks (with the detail file's ages), --folded, with the stacks file
expect guest-stacks 0 --stacks --stacks-file $GS.stacks $GS.txt
expect guest-stacks-detail 0 --stacks --stacks-file $GS.stacks --detail $GS.detail $GS.txt
expect guest-stacks-later-detail 0 --stacks -s live --stacks-file ${GS}_later.stacks --detail ${GS}_later.detail ${GS}_later.txt
# -n 1: the one captured site (the third of the file's 69 sites by total)
run guest-stacks-top --stacks -n 1 --stacks-file $GS.stacks $GS.txt
if [ "$rc" = 0 ] && [ ! -s "$TMP/err" ] && cmp -s expected/guest-stacks.out "$TMP/out"; then
	pass guest-stacks-top
else
	fail guest-stacks-top "exit status $rc: $(diff expected/guest-stacks.out "$TMP/out" | head -5)"
fi
expect guest-stack-cgroup-stacks 0 --stacks --stacks-file $GSC.stacks --detail $GSC.detail $GSC.txt
expect guest-folded 0 --folded --stacks-file $GS.stacks $GS.txt
expect guest-stack-cgroup-folded 0 --folded -g sa_ctx --stacks-file $GSC.stacks $GSC.txt
# the stacks file 2.0 from a real guest (fixtures/guest2_*: the same
# scenes, booted again with each stack's first task on its record line):
# each stack's first pid, comm and cgroup (or irq) where its branch ends
G2=fixtures/guest2_stack
G2C=fixtures/guest2_stack_cgroup
expect guest2-stacks 0 --stacks --cgroup-root "$TMP/cgnone" --stacks-file $G2.stacks --detail $G2.detail $G2.txt
expect guest2-stack-cgroup-stacks 0 --stacks --cgroup-root "$TMP/cgnone" --stacks-file $G2C.stacks --detail $G2C.detail $G2C.txt
expect guest2-stack-cgroup-json 0 --stacks --json --cgroup-root "$TMP/cgnone" --stacks-file $G2C.stacks --detail $G2C.detail $G2C.txt
expect guest2-folded 0 --folded --stacks-file $G2.stacks $G2.txt
# --leaks over two real detail files 12 s apart, each stack ranked
expect guest-leaks 0 --leaks $GS.detail ${GS}_later.detail
expect guest-leaks-once 0 --leaks --once $GSC.detail
# --advise: a site's child rows (in both files) are the site's
expect guest-advise-cgroup 0 --advise --detail $GC.detail $GC.txt
expect guest-advise-stack 0 --advise --detail $GS.detail -g sa_ctx $GS.txt
expect guest-advise-node 0 --advise --detail $GN.detail -g sa_ctx $GN.txt
# the gate's context selectors, from rules files
expect guest-gate-cgroup 1 --check --rules fixtures/guest_cgroup.rules --stacks-file $GSC.stacks \
	--cgroup-root "$TMP/cgnone" $GSC.txt
expect guest-gate-task 1 --check --rules fixtures/guest_task.rules $GT.txt
expect guest-gate-node 1 --check --rules fixtures/guest_node.rules $GN.txt
# the expected outputs above against the raw files, without slabacct:
# sums of their rows, sa_ctx's books, the stacks and detail files
if command -v python3 >/dev/null 2>&1; then
	if python3 guest_check.py fixtures expected >"$TMP/guest_check" 2>&1; then
		pass "guest-truth: $(tail -n 1 "$TMP/guest_check")"
	else
		fail guest-truth "$(head -5 "$TMP/guest_check")"
	fi
else
	echo "skip cli: guest-truth (no python3)"
fi

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
# what an input that is not a slab_account file is, and what reads it
NOT_SA="not a slab_account file: expected 'slab_account - version: 1.x', got"
expect_err hint-trace 1 "slabacct: fixtures/trace_61.txt:1: $NOT_SA '# tracer: nop' (a kmem trace: --from-trace FILE reads it)" fixtures/trace_61.txt
expect_err hint-detail 1 "slabacct: fixtures/leaks_old.txt:1: $NOT_SA 'slab_account detail - version: 1.0' (a detail file: --leaks --once FILE or --advise --detail FILE reads it)" fixtures/leaks_old.txt
expect_err diff-hint-detail 1 "slabacct: fixtures/leaks_old.txt:1: $NOT_SA 'slab_account detail - version: 1.0' (a detail file: --leaks --once FILE or --advise --detail FILE reads it)" -d fixtures/leaks_old.txt $A
sed '1s/version/versoin/' $V >"$TMP/damaged.txt"
expect_err diff-damaged-header 1 "slabacct: $TMP/damaged.txt:1: $NOT_SA 'slab_account - versoin: 1.0'" -d "$TMP/damaged.txt" $A
expect_err diff-neither 1 "slabacct: fixtures/kallsyms.txt:1: neither a slab_account file nor a kmem trace: expected 'slab_account - version: 1.x' or a trace's lines, got 'ffffffff81000000 T _stext'" -d fixtures/kallsyms.txt $A

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
	# -o with standard output closed: FILE written whole, not lost on a
	# descriptor 1 that open() gave it
	"$SLABACCT" $V >"$TMP/want.txt" 2>/dev/null
	"$SLABACCT" -o "$TMP/closed.txt" $V 2>"$TMP/err" >&-
	rc=$?
	if [ "$rc" = 0 ] && [ ! -s "$TMP/err" ] && [ -s "$TMP/want.txt" ] && cmp -s "$TMP/want.txt" "$TMP/closed.txt"; then
		pass output-stdout-closed
	else
		fail output-stdout-closed "exit status $rc, stderr '$(cat "$TMP/err")'"
	fi
	# nor does a closed standard output become a place to write
	"$SLABACCT" $V 2>"$TMP/err" >&-
	rc=$?
	if [ "$rc" = 1 ] && grep -q '^slabacct: write error: ' "$TMP/err"; then
		pass write-stdout-closed
	else
		fail write-stdout-closed "exit status $rc, stderr '$(cat "$TMP/err")'"
	fi
	# a gate whose report cannot be written could not run: 2, not a failed rule's 1
	for fmt in text ktap junit json; do
		# shellcheck disable=SC2046
		"$SLABACCT" --check $([ $fmt = text ] || echo --$fmt) -R "live <= 100K" $V >/dev/full 2>"$TMP/err"
		rc=$?
		if [ "$rc" = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q '^slabacct: write error: ' "$TMP/err"; then
			pass "gate-write-error-$fmt"
		else
			fail "gate-write-error-$fmt" "exit status $rc, stderr '$(cat "$TMP/err")'"
		fi
	done
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
