#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-ksrc.sh [--suite bookworm] [--arch amd64] [--flavour amd64] [--print-env]
#
# From Debian's linux-source-<x.y> package of the same version as the
# kernel fetched by fetch-kernel.sh (same arguments; run that first),
# unpacks only what the tests use into $SA_CACHE/ksrc/<pkgver>/linux-source-<x.y>:
#   scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch
#   tools/testing/selftests/{kselftest.h,kselftest_harness.h,kselftest_module.h,
#     run_kselftest.sh,lib.mk,kselftest/} (runner.sh, prefix.pl, module.sh)
#   tools/testing/kunit/ (kunit_parser.py, the kernel's KTAP parser, which
#     the reader's host tests run its --check --ktap through; kunit_printer.py
#     beside it from 5.18)
# and writes $SA_CACHE/ksrc/<pkgver>/ksrc.env (KSRC = the unpacked tree,
# KSFT = its tools/testing/selftests; the file is the done-stamp).  The
# ~140 MB package is deleted after unpacking.  --print-env only prints
# ksrc.env's path.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

args=() print=0
while [ $# -gt 0 ]; do
	case "$1" in
	--print-env) print=1 ;;
	--suite | --arch | --flavour) args+=("$1" "${2:?}"); shift ;;
	*) die "fetch-ksrc.sh: unknown argument $1" ;;
	esac
	shift
done
kenv=$("$SA_ROOT/scripts/fetch-kernel.sh" "${args[@]}" --print-env)
# shellcheck disable=SC1090
. "$kenv"

dir="$SA_CACHE/ksrc/$PKGVER"
envf="$dir/ksrc.env"
if [ $print = 1 ]; then
	[ -f "$envf" ] || die "no $envf: run fetch-ksrc.sh first"
	echo "$envf"
	exit 0
fi
# One fetch of a version at a time (make check's prefetch and its rows).
mkdir -p "$SA_CACHE/ksrc"
exec 9> "$dir.lock"
flock 9
if [ -f "$envf" ] && grep -qx 'SA_KSRC_LAYOUT=3' "$envf"; then
	log "linux-source $PKGVER files: cached"
	exit 0
fi

major=$(echo "$KVER" | cut -d. -f1-2)
pkg="linux-source-$major"
top="linux-source-$major"
stage="$dir.new"
rm -rf "$stage" && mkdir -p "$stage/deb"
log "the test files come from $pkg (about 140 MB; only a few are kept)"
# The apt lists are those fetch-kernel.sh brought up to date.
# shellcheck disable=SC2153 # SUITE and ARCH come from kernel.env
deb=$(sa_apt_download "$SUITE" "$ARCH" "$pkg" "$PKGVER" "$stage/deb")
files=(scripts/checkpatch.pl scripts/spelling.txt
       scripts/const_structs.checkpatch
       tools/testing/selftests/kselftest.h
       tools/testing/selftests/kselftest_harness.h
       tools/testing/selftests/kselftest_module.h
       tools/testing/selftests/run_kselftest.sh
       tools/testing/selftests/lib.mk
       tools/testing/selftests/kselftest	# the runner's directory
       tools/testing/kunit)	# kunit_parser.py (and its printer from 5.18)
log "unpacking ${#files[@]} paths"
dpkg-deb --fsys-tarfile "$deb" |
	tar -xO "./usr/src/$top.tar.xz" | xz -dc |
	tar -x -C "$stage" "${files[@]/#/$top/}"
rm -rf "$stage/deb"
cat > "$stage/ksrc.env" <<ENV
KSRC=$dir/$top
KSFT=$dir/$top/tools/testing/selftests
SA_KSRC_LAYOUT=3
ENV
rm -rf "$dir"
mv "$stage" "$dir"
log "linux-source $PKGVER files in $dir/$top"
