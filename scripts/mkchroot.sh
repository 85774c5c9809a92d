#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkchroot.sh SUITE [--print | --cc]
#
# A build environment for kernels whose headers want a newer compiler than
# this machine has: a minimal debootstrap of SUITE from this machine's
# Debian mirror, with the compiler the suite's kernel headers name and what
# kbuild needs, in $SA_CACHE/chroots/SUITE-<host arch> (made once).
# --print prints its path; --cc the compiler's name.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

suite=${1:?usage: mkchroot.sh SUITE [--print|--cc]}
arch=$(dpkg --print-architecture)
root="$SA_CACHE/chroots/$suite-$arch"
# shellcheck disable=SC1090
. "$("$SA_ROOT/scripts/fetch-kernel.sh" --suite "$suite" --print-env)"
cc=$(grep -o 'gcc-[0-9][0-9]*' "$KDIR/.kernelvariables" | head -n 1)
cc=${cc:-gcc}

case "${2:-}" in
--print) echo "$root"; exit 0 ;;
--cc) echo "$cc"; exit 0 ;;
"") ;;
*) die "mkchroot.sh: unknown argument $2" ;;
esac

stamp="$root/.slab_account-$cc"
[ -e "$stamp" ] && exit 0
command -v debootstrap >/dev/null || die "debootstrap is missing (setup-deps.sh)"
mirror=$(sa_mirrors | sed -n 1p)
log "making a $suite build environment with $cc (debootstrap, once; about a minute)"
rm -rf "$root"
mkdir -p "$(dirname "$root")"
debootstrap --variant=minbase \
	--include="$cc,make,libc6-dev,bc,bison,flex,libelf-dev,dwarves,kmod,libssl-dev" \
	"$suite" "$root" "$mirror" > "$root.log" 2>&1 ||
	{ tail -n 20 "$root.log" >&2; die "debootstrap of $suite failed"; }
touch "$stamp"
log "$suite build environment ready in $root"
