#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The reader's shape: its layers (userspace/slabacct.c names them), every
# file's #include "..." lines pointing to its own layer or one below,
# never above, no files including each other in a circle, and no file
# longer than MAX_LINES (800) lines.  The layers, from the bottom:
#
#   0 base       sa_base, sa_caller, sa_ctx
#   1 utilities  sa_esc, sa_num, sa_merge, sa_json, sa_out, sa_time
#   2 parsers    sa_parse, sa_detail, sa_input, sa_kallsyms, sa_trace,
#                sa_tacct, sa_unloads, sa_rules, sa_cgroup, sa_stacks
#   3 model      sa_rows, sa_retired, sa_gate, sa_table, sa_dsites, sa_advice
#   4 printers   pr_*
#   5 commands   cmd_*, slabacct
#
# A file of no layer is an error (give it one here).
#
#   layers.sh [USERSPACE_DIR]
#
# Prints each wrong include or long file and exits 1, or prints "N files,
# M includes, one way" and exits 0.
set -u
MAX_LINES=800
DIR=${1:-$(dirname "$0")/../../userspace}
cd "$DIR" || exit 2

layer() {
	case $1 in
	sa_base|sa_caller|sa_ctx) echo 0 ;;
	sa_esc|sa_num|sa_merge|sa_json|sa_out|sa_time) echo 1 ;;
	sa_parse|sa_detail|sa_input|sa_kallsyms|sa_trace|sa_tacct|sa_unloads|sa_rules|sa_cgroup|sa_stacks) echo 2 ;;
	sa_rows|sa_retired|sa_gate|sa_table|sa_dsites|sa_advice) echo 3 ;;
	pr_*) echo 4 ;;
	cmd_*|slabacct) echo 5 ;;
	*) echo - ;;
	esac
}

bad=0
files=0
includes=0
edges=$(mktemp) || exit 2
trap 'rm -f "$edges"' EXIT INT TERM
for f in *.c *.h; do
	[ -e "$f" ] || continue
	files=$((files + 1))
	lines=$(wc -l <"$f")
	if [ "$lines" -gt "$MAX_LINES" ]; then
		echo "$f: $lines lines, more than $MAX_LINES (split it by what it owns)"
		bad=1
	fi
	m=${f%.*}
	lf=$(layer "$m")
	if [ "$lf" = - ]; then
		echo "$f: in no layer (tests/host/layers.sh names each file's)"
		bad=1
		continue
	fi
	for inc in $(sed -n 's/^#include "\([^"]*\)\.h".*/\1/p' "$f"); do
		includes=$((includes + 1))
		[ "$inc" = "$m" ] && continue
		li=$(layer "$inc")
		if [ "$li" = - ]; then
			echo "$f: includes $inc.h, of no layer"
			bad=1
		elif [ "$li" -gt "$lf" ]; then
			echo "$f (layer $lf) includes $inc.h (layer $li, above it)"
			bad=1
		fi
		echo "$m $inc" >>"$edges"
	done
done
if [ "$files" -lt 10 ] || [ "$includes" -eq 0 ]; then
	echo "$DIR: $files files, $includes includes: not the reader's sources"
	exit 1
fi
if ! tsort "$edges" >/dev/null 2>"$edges.err"; then
	echo "includes in a circle, through: $(sed -n 's/^tsort: \([a-z_]*\)$/\1/p' "$edges.err" |
		sort -u | tr '\n' ' ')"
	bad=1
fi
rm -f "$edges.err"
[ "$bad" = 0 ] || exit 1
echo "$files files (at most $MAX_LINES lines), $includes includes, one way"
