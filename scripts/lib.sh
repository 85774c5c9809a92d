#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the scripts; source it.

SA_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SA_CACHE=${SA_CACHE:-$SA_ROOT/.cache}
export SA_ROOT SA_CACHE

log() { printf '[slab_account] %s\n' "$*" >&2; }
die() { printf '[slab_account] error: %s\n' "$*" >&2; exit 1; }

# The Debian mirror URIs of this machine's own apt configuration (deb822
# .sources files and the one-line format), main archive first, security
# archive second.  Nothing is ever written to the system's apt config.
sa_mirrors() {
	local main="" sec="" uri
	for uri in $( { grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources |
			  sed 's/^URIs:[[:space:]]*//' | tr ' ' '\n'
			grep -hs '^deb ' /etc/apt/sources.list \
				/etc/apt/sources.list.d/*.list |
			  sed 's/\[[^]]*\]//' | awk '{print $2}'; } | grep .); do
		case "$uri" in
		*debian-security*) [ -n "$sec" ] || sec=$uri ;;
		*/debian | */debian/) [ -n "$main" ] || main=${uri%/} ;;
		esac
	done
	[ -n "$main" ] || die "no Debian mirror found in the apt configuration"
	echo "$main"
	echo "${sec%/}"
}

# A private apt set-up under the cache for suite $1 and architecture $2;
# prints the apt-get/apt-cache options to use it.
sa_apt_opts() {
	local suite=$1 arch=$2 dir="$SA_CACHE/apt/$1-$2" main sec comps
	{ read -r main; read -r sec; } < <(sa_mirrors)
	mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$dir/etc"
	comps="main"
	{
		echo "deb [arch=$arch] $main $suite $comps"
		case "$suite" in
		bookworm | bullseye | trixie)
			[ -z "$sec" ] ||
				echo "deb [arch=$arch] $sec $suite-security $comps"
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
