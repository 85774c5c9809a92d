#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the scripts; source it.
#   SA_ROOT   the project's top directory (found from this file's place)
#   SA_CACHE  downloads and unpacked kernels; default $SA_ROOT/.cache
#   log MSG   progress to stderr, prefixed [slab_account]
#   die MSG   error to stderr, exit 1
#   sa_mirrors         prints the host's Debian main URI, then its security URI
#                      (from /etc/apt, or $SA_APT_ETC)
#   sa_apt_opts S A    prints apt options for a private apt set-up of suite
#                      S, architecture A, under $SA_CACHE/apt/S-A
#   sa_apt_update S A OPTS...  apt-get OPTS update of that set-up, one at a
#                      time (rows run in parallel share the lists)
#   sa_apt_download S A PKG VER DIR  downloads PKG, which must be at version
#                      VER in that set-up's lists, into DIR; prints the
#                      .deb's path
#   sa_base_suite S    prints the suite S is an addition to (bookworm for
#                      bookworm-backports, sid for experimental), or S
#   sa_kernel_cc KDIR  prints what the kernel's headers record about their
#                      compiler: "NAME MAJOR TEXT" (see below)

SA_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SA_CACHE=${SA_CACHE:-$SA_ROOT/.cache}
export SA_ROOT SA_CACHE

log() { printf '[slab_account] %s\n' "$*" >&2; }
die() { printf '[slab_account] error: %s\n' "$*" >&2; exit 1; }

# The Debian mirror URIs of this machine's own apt configuration (deb822
# .sources files and the one-line format), main archive first, security
# archive second (empty line if none).  Only "deb" entries with the "main"
# component count, so a third-party repository is not taken for Debian's;
# an archive whose path ends in /debian is preferred for the main one.
# Nothing is ever written to the system's apt configuration.
sa_mirrors() {
	local list etc=${SA_APT_ETC:-/etc/apt}
	list=$( {
		# deb822: one "suites<TAB>uri" line per URI of each enabled stanza.
		cat /dev/null "$etc"/sources.list.d/*.sources 2>/dev/null |
		awk '
			function flush(  n, u, i) {
				if (types ~ /(^| )deb( |$)/ && comps ~ /(^| )main( |$)/ &&
				    enabled != "no") {
					n = split(uris, u, " ")
					for (i = 1; i <= n; i++)
						printf "%s\t%s\n", suites, u[i]
				}
				types = uris = suites = comps = enabled = ""
			}
			/^[ \t]*$/ { flush(); next }
			/^#/ { next }
			{ key = tolower($1); $1 = ""; sub(/^[ \t]+/, "") }
			key == "types:" { types = $0 }
			key == "uris:" { uris = $0 }
			key == "suites:" { suites = $0 }
			key == "components:" { comps = " " $0 " " }
			key == "enabled:" { enabled = tolower($0) }
			END { flush() }'
		# One-line format: deb [options] uri suite components...
		cat /dev/null "$etc/sources.list" "$etc"/sources.list.d/*.list \
			2>/dev/null |
		sed -n 's/^[[:space:]]*deb[[:space:]]\+\(\[[^]]*\][[:space:]]*\)\?//p' |
		awk '{ c = ""; for (i = 3; i <= NF; i++) c = c " " $i
		       if (c ~ / main( |$)/) printf "%s\t%s\n", $2, $1 }'
		true	# a missing file is no error
	} )
	local main sec
	sec=$(awk -F'\t' '$2 ~ /debian-security/ || $1 ~ /-security/ \
		{ print $2; exit }' <<< "$list")
	main=$(awk -F'\t' '$2 !~ /debian-security/ && $1 !~ /-security/ &&
		$2 ~ /\/debian\/?$/ { print $2; exit }' <<< "$list")
	[ -n "$main" ] || main=$(awk -F'\t' '$2 !~ /debian-security/ &&
		$1 !~ /-security/ { print $2; exit }' <<< "$list")
	[ -n "$main" ] || die "no Debian mirror found in the apt configuration"
	echo "${main%/}"
	echo "${sec%/}"
}

# A private apt set-up under the cache for suite $1 and architecture $2
# (its own sources.list, lists and archives; no system state is read or
# written); prints the apt-get/apt-cache options to use it.  The stable
# suites get their security suite too (the current kernel is often there).
sa_apt_opts() {
	local suite=$1 arch=$2 dir="$SA_CACHE/apt/$1-$2" mirrors main sec
	mirrors=$(sa_mirrors) || exit 1
	{ read -r main; read -r sec; } <<< "$mirrors"
	mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$dir/etc"
	{
		echo "deb [arch=$arch] $main $suite main"
		case "$suite" in
		bullseye | bookworm | trixie | forky)
			[ -z "$sec" ] ||
				echo "deb [arch=$arch] $sec $suite-security main"
			;;
		esac
	} > "$dir/etc/sources.list"
	echo "-o Dir::Etc::sourcelist=$dir/etc/sources.list" \
	     "-o Dir::Etc::sourceparts=- -o Dir::State::lists=$dir/lists" \
	     "-o Dir::State::status=/dev/null -o Dir::Cache::archives=$dir/archives" \
	     "-o Dir::Cache=$dir -o APT::Architecture=$arch" \
	     "-o APT::Architectures=$arch -o Debug::NoLocking=1" \
	     "-o APT::Sandbox::User=root"
}

# A mirror being synced serves lists that fail apt's size or hash check
# ("Mirror sync in progress?"): such an update is tried again, up to
# $SA_APT_TRIES times (3) half a minute apart, each bounded to 5 minutes;
# then it fails with apt's message (at once for a suite the mirror does not
# have: "does not have a Release file").  When only the security archive's
# lists fail (seen for days on armhf and riscv64), the main archive's are
# used alone at once, said.  Its output is the last attempt's.
sa_apt_update() {
	local lock="$SA_CACHE/apt/$1-$2.lock" tries=${SA_APT_TRIES:-3} i out rc
	shift 2
	mkdir -p "$SA_CACHE/apt"
	for ((i = 1; ; i++)); do
		rc=0
		out=$(flock "$lock" timeout 300 apt-get -o Acquire::Retries=2 \
			-o Acquire::http::Timeout=60 "$@" update 2>&1) || rc=$?
		if [ $rc -eq 0 ] && ! grep -q '^[WE]: Failed to fetch' <<< "$out"; then
			printf '%s\n' "$out"
			return 0
		fi
		# Only the security archive's lists failed: the main archive's
		# are complete, and apt uses them alone.
		if grep -q '^[WE]: Failed to fetch' <<< "$out" &&
		   ! grep '^[WE]: Failed to fetch' <<< "$out" |
		     grep -qv -- '-security/'; then
			log "warning: the security archive's lists failed apt's check (Mirror sync in progress?): using the main archive's alone"
			grep -v '^[WE]: \(Failed to fetch\|Some index files\)' <<< "$out"
			return 0
		fi
		# A suite the mirror does not have: no use asking again.
		if [ "$i" -ge "$tries" ] ||
		   grep -q 'does not have a Release file' <<< "$out"; then
			printf '%s\n' "$out"
			log "apt-get update failed $i times (exit $rc)"
			return 1
		fi
		if grep -q 'Mirror sync in progress' <<< "$out"; then
			log "the mirror is being synced (apt: Mirror sync in progress?): trying again in 30 s ($i of $tries)"
		else
			log "apt-get update failed (exit $rc): trying again in 30 s ($i of $tries)"
		fi
		sleep 30
	done
}

# sa_apt_download SUITE ARCH PACKAGE VERSION DIR: PACKAGE at VERSION (its
# candidate in SUITE's lists) downloaded into DIR; prints the .deb's path.
sa_apt_download() {
	local suite=$1 arch=$2 pkg=$3 want=$4 dir=$5 optstr ver out deb
	local -a opts
	optstr=$(sa_apt_opts "$suite" "$arch")
	read -r -a opts <<< "$optstr"
	ver=$(apt-cache "${opts[@]}" policy "$pkg" | awk '/Candidate:/ { print $2 }')
	[ "$ver" = "$want" ] ||
		die "$pkg is at ${ver:-nothing} in $suite, the kernel at $want: run fetch-kernel.sh"
	mkdir -p "$dir"
	# A package kept by an earlier call (SA_KEEP_DEBS) is not fetched again.
	for deb in "$SA_CACHE/debs/${pkg}_"*.deb; do
		if [ -f "$deb" ] &&
		   [ "$(dpkg-deb -f "$deb" Version 2>/dev/null)" = "$want" ]; then
			log "$pkg $ver: kept from an earlier download"
			ln -f "$deb" "$dir/" 2>/dev/null || cp "$deb" "$dir/"
			echo "$dir/${deb##*/}"
			return 0
		fi
	done
	log "downloading $pkg $ver"
	if ! out=$(cd "$dir" && apt-get -q "${opts[@]}" download "$pkg" 2>&1); then
		printf '%s\n' "$out" >&2
		die "download of $pkg failed"
	fi
	deb=$(compgen -G "$dir/${pkg}_*.deb" | head -n 1) || die "no .deb of $pkg"
	# make check needs linux-source twice (a few files, then the full
	# tree a built kernel takes): it keeps them for the second time.
	if [ -n "${SA_KEEP_DEBS:-}" ] && [[ $pkg == linux-source-* ]]; then
		mkdir -p "$SA_CACHE/debs"
		ln -f "$deb" "$SA_CACHE/debs/" 2>/dev/null ||
			cp "$deb" "$SA_CACHE/debs/"
	fi
	echo "$deb"
}

sa_base_suite() {
	case "$1" in
	experimental | unstable) echo sid ;;
	*-*) echo "${1%%-*}" ;;	# -backports, -proposed-updates...
	*) echo "$1" ;;
	esac
}

# The compiler a kernel was built with, from its headers: prints
# "NAME MAJOR TEXT".  NAME is the one .kernelvariables gives make (CC =
# $(CROSS_COMPILE)gcc-14 -> gcc-14; gcc-MAJOR when the file is missing or
# names a bare gcc), MAJOR the major version of CONFIG_GCC_VERSION (from
# .config, or include/generated/autoconf.h; 0 for a kernel built with
# clang, whose NAME is then clang), TEXT CONFIG_CC_VERSION_TEXT (may be
# empty before 5.8).
sa_kernel_cc() {
	local kdir=$1 name ver text cfg=$1/.config
	[ -f "$cfg" ] || cfg=$kdir/include/generated/autoconf.h
	[ -f "$cfg" ] || die "no .config nor autoconf.h in $kdir"
	ver=$(sed -n 's/^\(#define \)\?CONFIG_GCC_VERSION[= ]\([0-9]*\)$/\2/p' "$cfg")
	text=$(sed -n 's/^\(#define \)\?CONFIG_CC_VERSION_TEXT[= ]"\(.*\)"$/\2/p' "$cfg")
	name=$(sed -n 's/^CC[[:space:]]*=//p' "$kdir/.kernelvariables" \
		2>/dev/null | awk '{ print $NF; exit }')
	name=${name##*)}	# without "$(CROSS_COMPILE)"
	if [ -z "$ver" ] || [ "$ver" = 0 ]; then
		grep -q '^\(#define \)\?CONFIG_CC_IS_CLANG[= ]' "$cfg" ||
			die "$kdir records neither gcc's nor clang's version"
		echo "clang 0 $text"
		return
	fi
	case "$name" in
	gcc-[0-9]*) ;;
	*) name=gcc-$((ver / 10000)) ;;
	esac
	echo "$name $((ver / 10000)) $text"
}

# sa_linux_source SUITE PKGVER KVER: the full tree of Debian's
# linux-source-<x.y> (x.y from KVER) at version PKGVER of SUITE, unpacked
# once under $SA_CACHE/src/PKGVER (the ~140 MB package is deleted after),
# shared by whatever builds kernels of that version; prints its path.
# One process at a time unpacks it (flock).
sa_linux_source() {
	local suite=$1 pkgver=$2 major dir tree deb
	major=$(echo "$3" | cut -d. -f1-2)
	dir="$SA_CACHE/src/$pkgver"
	tree="$dir/linux-source-$major"
	mkdir -p "$dir"
	(
		flock 9
		[ -f "$tree/.sa-unpacked" ] && exit 0
		rm -rf "$dir/deb" "$tree"
		log "the kernel's sources: linux-source-$major $pkgver (about 140 MB, the full tree)"
		deb=$(sa_apt_download "$suite" amd64 "linux-source-$major" "$pkgver" "$dir/deb")
		log "unpacking the full tree into $dir"
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO "./usr/src/linux-source-$major.tar.xz" | xz -dc -T0 |
			tar -x -C "$dir"
		rm -rf "$dir/deb"
		[ -f "$tree/Makefile" ] || die "no Makefile in $tree"
		touch "$tree/.sa-unpacked"
	) 9> "$dir.lock" >&2 || exit 1
	echo "$tree"
}

# sa_btf_kc VMLINUX FIELD: the offset pahole gives of FIELD of struct
# kmem_cache in VMLINUX's BTF; nothing when it has none.
sa_btf_kc() {
	[ -f "$1" ] && command -v pahole >/dev/null || return 0
	pahole -C kmem_cache "$1" 2>/dev/null |
		awk -v f="$2" '$0 ~ "[ *]" f ";" {
			for (i = 1; i < NF; i++) if ($i == "/*") { print $(i + 1); exit } }'
}

# make against a kernel's headers in the environment they need: this
# machine (KROOT "-") or the chroot KROOT that scripts/mkchroot.sh made,
# which sees the tree and the cache at the same paths (KCC and KROOT as
# mkchroot.sh --kernel prints them).  The chroot's lock is held shared
# meanwhile: mkchroot.sh, which holds it alone, installs nothing in it
# under a running build.
kmake() {
	if [ "$KROOT" != - ]; then
		local cache=$SA_CACHE
		case "$SA_CACHE/" in "$SA_ROOT"/*) cache="" ;; esac
		mkdir -p "$KROOT$SA_ROOT" ${cache:+"$KROOT$cache"}
		# shellcheck disable=SC2016 # (expanded by the inner sh)
		flock -s "$KROOT.lock" unshare --mount sh -c '
			mount --bind "$1" "$3$1" &&
			{ [ -z "$2" ] || mount --bind "$2" "$3$2"; } &&
			mount -t proc proc "$3/proc" &&
			shift 2 && exec chroot "$@"' \
			sh "$SA_ROOT" "$cache" "$KROOT" make "$@"
	else
		make "$@"
	fi
}
