#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-ksrc.sh [--suite bookworm] [--arch amd64] [--flavour amd64] [--print-env]
#
# From Debian's linux-source package of the same version as the kernel
# fetched by fetch-kernel.sh, unpacks only what the tests use (checkpatch
# and the kselftest harness and runner) into $SA_CACHE/ksrc/<pkgver>/ and
# writes ksrc.env there (KSRC = the unpacked tree, KSFT = its
# tools/testing/selftests).  The ~140 MB package is not kept.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

args=() print=0
while [ $# -gt 0 ]; do
	case "$1" in
	--print-env) print=1 ;;
	--suite | --arch | --flavour) args+=("$1" "$2"); shift ;;
	*) die "fetch-ksrc.sh: unknown argument $1" ;;
	esac
	shift
done
# shellcheck disable=SC1090
. "$("$SA_ROOT/scripts/fetch-kernel.sh" "${args[@]}" --print-env)"

dir="$SA_CACHE/ksrc/$PKGVER"
envf="$dir/ksrc.env"
if [ $print = 1 ]; then
	[ -f "$envf" ] || die "no $envf: run fetch-ksrc.sh first"
	echo "$envf"
	exit 0
fi
if [ -f "$envf" ] && grep -qx 'SA_KSRC_LAYOUT=2' "$envf"; then
	log "linux-source $PKGVER files: cached"
	exit 0
fi

major=$(echo "$KVER" | cut -d. -f1-2)
pkg="linux-source-$major"
read -r -a opts <<< "$(sa_apt_opts "$SUITE" "$ARCH")"
ver=$(apt-cache "${opts[@]}" policy "$pkg" | awk '/Candidate:/ { print $2 }')
[ "$ver" = "$PKGVER" ] ||
	die "$pkg is at $ver in $SUITE, the kernel at $PKGVER: refetch the kernel"

rm -rf "$dir" && mkdir -p "$dir/deb"
log "downloading $pkg $ver (about 140 MB; only a few files are kept)"
(cd "$dir/deb" && apt-get -qq "${opts[@]}" download "$pkg" 2>&1 |
	grep -v 'unsandboxed' >&2 || true)
deb=$(ls "$dir"/deb/*.deb)
top="linux-source-$major"
files=(scripts/checkpatch.pl scripts/spelling.txt
       scripts/const_structs.checkpatch
       tools/testing/selftests/kselftest.h
       tools/testing/selftests/kselftest_harness.h
       tools/testing/selftests/kselftest_module.h
       tools/testing/selftests/run_kselftest.sh
       tools/testing/selftests/lib.mk
       tools/testing/selftests/kselftest)	# the runner's directory
log "unpacking ${#files[@]} paths"
dpkg-deb --fsys-tarfile "$deb" |
	tar -xO "./usr/src/$top.tar.xz" | xz -dc |
	tar -x -C "$dir" "${files[@]/#/$top/}"
rm -rf "$dir/deb"
cat > "$envf" <<ENV
KSRC=$dir/$top
KSFT=$dir/$top/tools/testing/selftests
SA_KSRC_LAYOUT=2
ENV
log "linux-source $PKGVER files in $dir/$top"
