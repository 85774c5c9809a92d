#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkchroot.sh --kernel KERNEL_ENV
# mkchroot.sh SUITE [PACKAGE...] [--print]
#
# The environment a kernel's modules are built in.
#
# --kernel reads what the kernel's headers record about their compiler
# (lib.sh sa_kernel_cc: CONFIG_GCC_VERSION, CONFIG_CC_VERSION_TEXT, the CC
# of .kernelvariables) and prints "KCC ROOT": the compiler to give make,
# and the chroot to run make in (ROOT "-" for this machine).  This
# machine's compiler is taken when it is of the same major version (gcc-14,
# or a gcc that is 14; with the cross prefix for another architecture), or
# newer: a newer gcc accepts the flags an older one was given (bullseye's
# gcc-10 kernels, built with gcc-12 here).  Otherwise a chroot of a suite
# that ships that compiler (gcc-14, or gcc-14-aarch64-linux-gnu for arm64):
# a chroot already made with it, else the kernel's own suite (without
# -backports...), else the first of $SA_CHROOT_SUITES whose archive has
# it.  No environment: an error naming the compiler the kernel needs.
#
# SUITE [PACKAGE...] makes (once) a minimal debootstrap of SUITE for this
# machine's architecture from this machine's Debian mirror, with what
# kbuild needs (make, libc6-dev, libelf-dev, pahole...), in
# $SA_CACHE/chroots/SUITE-<arch>, and installs the PACKAGEs into it (apt-get
# in the chroot) unless it has them: a suite's rows share one chroot (one
# trixie chroot holds gcc-14 and gcc-14-aarch64-linux-gnu).  One process
# at a time changes a chroot (flock).  --print prints its path only.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SA_CHROOT_SUITES=${SA_CHROOT_SUITES:-trixie bookworm forky sid}
host_arch=$(dpkg --print-architecture)
# What kbuild needs besides the compiler (perl: W=1 runs kernel-doc).
base=(make libc6-dev bc bison flex libelf-dev dwarves kmod libssl-dev perl)

chroot_of() { echo "$SA_CACHE/chroots/$1-$host_arch"; }
has() { [ -e "$1/.slab_account-$2" ]; }	# has ROOT PACKAGE
# made ROOT: debootstrap finished there (each package asked for has a
# stamp; a package added to the list later is installed then).
made() { [ -n "$(compgen -G "$1/.slab_account-*")" ]; }

# Does SUITE's archive have PACKAGE for this machine?
suite_has() {
	local optstr
	optstr=$(sa_apt_opts "$1" "$host_arch")
	read -r -a opts <<< "$optstr"
	if [ -z "$(compgen -G "$SA_CACHE/apt/$1-$host_arch/lists/*Packages*")" ]; then
		sa_apt_update "$1" "$host_arch" -qq "${opts[@]}" >/dev/null ||
			return 1
	fi
	apt-cache "${opts[@]}" policy "$2" 2>/dev/null |
		awk '/Candidate: [0-9]/ { found = 1 } END { exit !found }'
}

# make_chroot SUITE PACKAGE...
make_chroot() {
	local suite=$1 root mirror p want missing=()
	shift
	want=("${base[@]}" "$@")
	root=$(chroot_of "$suite")
	mkdir -p "$SA_CACHE/chroots"
	exec 9> "$root.lock"
	flock 9
	if ! made "$root"; then
		command -v debootstrap >/dev/null ||
			die "debootstrap is missing (setup-deps.sh)"
		mirror=$(sa_mirrors | sed -n 1p)
		log "making a $suite build environment with $* (debootstrap, once; a few minutes)"
		rm -rf "$root"
		debootstrap --variant=minbase --include="$(IFS=,; echo "${want[*]}")" \
			"$suite" "$root" "$mirror" > "$root.log" 2>&1 ||
			{ tail -n 20 "$root.log" >&2; die "debootstrap of $suite failed"; }
		for p in "${want[@]}"; do touch "$root/.slab_account-$p"; done
		log "$suite build environment ready in $root"
	fi
	for p in "${want[@]}"; do has "$root" "$p" || missing+=("$p"); done
	if [ ${#missing[@]} -gt 0 ]; then
		log "installing ${missing[*]} in the $suite build environment (once)"
		# Like debootstrap, without Valid-Until (sid's Release file
		# expires a week after it was made: a mirror that is a snapshot).
		# shellcheck disable=SC2016 # (expanded by the inner sh)
		unshare --mount sh -c 'mount -t proc proc "$1/proc" && shift &&
			exec chroot "$@"' sh "$root" "$root" sh -c '
			export DEBIAN_FRONTEND=noninteractive
			apt-get -q -o Acquire::Check-Valid-Until=false update &&
			apt-get -q install -y \
				--no-install-recommends "$@"' sh "${missing[@]}" \
			>> "$root.log" 2>&1 ||
			{ tail -n 20 "$root.log" >&2
			  die "installing ${missing[*]} in $root failed"; }
		for p in "${missing[@]}"; do touch "$root/.slab_account-$p"; done
	fi
	exec 9>&-
}

# for_kernel KERNEL_ENV: prints "KCC ROOT".
# shellcheck disable=SC2153 # (KDIR, SUITE, KVER: from KERNEL_ENV)
for_kernel() {
	local name major text hcc hmajor have="" pkg root suite s cands more
	read -r -a more <<< "$SA_CHROOT_SUITES"
	# shellcheck disable=SC1090
	. "$1"
	read -r name major text <<< "$(sa_kernel_cc "$KDIR")"
	[ "$name" != clang ] ||
		die "$KVER was built with clang ($text): only gcc builds are supported"
	local cross=${CROSS_COMPILE:-} c
	# This machine: the very compiler the headers name (kbuild warns
	# when its version text differs), the named compiler, or a gcc of
	# that major or newer.
	# (A kernel built here names its cross compiler with its prefix.)
	local named=${text%% *}
	case "$named" in
	"$cross"?*) [ -n "$cross" ] || named="" ;;
	*) named="" ;;
	esac
	for c in "$cross${text%% *}" "$named" "$cross$name"; do
		if [ -n "$c" ] && command -v "$c" >/dev/null &&
		   [ "$("$c" --version 2>/dev/null | head -n 1)" = "$text" ]; then
			echo "$c -"
			return
		fi
	done
	if command -v "$cross$name" >/dev/null; then
		echo "$cross$name -"
		return
	fi
	if hcc=$(command -v "${cross}gcc"); then
		hmajor=$("$hcc" -dumpversion)
		hmajor=${hmajor%%.*}
		have="${cross}gcc $hmajor"
		if [ "$hmajor" -ge "$major" ]; then
			echo "${cross}gcc -"
			return
		fi
	fi
	# A chroot: gcc-14, or the cross compiler gcc-14-aarch64-linux-gnu.
	pkg=gcc-$major${cross:+-${cross%-}}
	suite=$(sa_base_suite "$SUITE")
	for s in "$suite" "${more[@]}"; do
		root=$(chroot_of "$s")
		if made "$root" && has "$root" "$pkg"; then
			make_chroot "$s" "$pkg"	# (what the list gained since)
			echo "$cross$name $root"
			return
		fi
	done
	cands=$(printf '%s\n' "$suite" "${more[@]}" | awk '!seen[$0]++')
	for s in $cands; do
		if suite_has "$s" "$pkg"; then
			make_chroot "$s" "$pkg"
			echo "$cross$name $(chroot_of "$s")"
			return
		fi
	done
	die "$KVER needs ${cross}gcc $major ($cross$name, package $pkg; the headers say: ${text:-gcc $major}): this machine has ${have:-no ${cross}gcc}, and none of the suites ${cands//$'\n'/ } ships $pkg for $host_arch"
}

case "${1:-}" in
--kernel)
	for_kernel "${2:?usage: mkchroot.sh --kernel KERNEL_ENV}"
	;;
"" | -*)
	die "usage: mkchroot.sh --kernel KERNEL_ENV | SUITE [PACKAGE...] [--print]"
	;;
*)
	suite=$1 print=0 pkgs=()
	shift
	for a in "$@"; do
		case "$a" in
		--print) print=1 ;;
		-*) die "mkchroot.sh: unknown argument $a" ;;
		*) pkgs+=("$a") ;;
		esac
	done
	if [ $print = 1 ]; then
		chroot_of "$suite"
	else
		make_chroot "$suite" "${pkgs[@]}"
	fi
	;;
esac
