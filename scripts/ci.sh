#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ci.sh check | matrix | row SUITE:ARCH:FLAVOUR | debug | map | demo | shell | gate
#       | fixtures | board | shell-test | prefetch
#
# check:  host dependencies, then the lint of the primary kernel (Debian
#         bookworm 6.1: W=1 and sparse builds that must be silent,
#         checkpatch --strict from its linux-source), the reader's host tests
#         (ASan/UBSan), make board for a kernel that needs a newer toolchain
#         than this machine's, make shell driven through tmux (shell-test),
#         then every row of the kernel matrix.
# matrix: every row of the kernel matrix ($SA_ROWS to choose): per row the
#         kernel and headers from Debian (cached), a W=1 build that must be
#         silent, the in-guest selftests in a QEMU boot (boots run two at a
#         time), a table of build/boot/suite results.
# row:    one row of the matrix.
# debug:  the debug row alone (make debug-check): Debian's 6.1 sources
#         built with KASAN, lockdep, kmemleak... (scripts/debug-kernel.sh),
#         the suite and the SMP stress on it, zero reports allowed.
# map:    the suite on the MAP kernel alone (never part of check): trixie's
#         6.12 sources with memory allocation profiling compiled in
#         (scripts/build-kernel.sh --profile map, the peers' bench's kernel).
# demo:   the module loaded from the initramfs before anything else, a
#         small workload, and the reader's report of the top call sites.
# gate:   make gate-demo (docs/gate.md): sa_leak.ko loaded, used and
#         unloaded, fixed then leaking, slabacct --check on each with
#         scripts/gate.rules; the fixed must pass, the leaking fail, and
#         so must a failed insmod (a wrong vermagic) and a misspelt module
#         (saying why); a snapshot cut short is an error (exit 2); every
#         JUnit report valid against tests/host/junit.xsd.
# fixtures: real context files for the reader's host tests
#         (scripts/guest-fixtures.sh), from two boots of the primary
#         kernel (one with two NUMA nodes), into build/guest-fixtures/.
# shell:  the demo's guest (slab_account loaded, slabacct, /demo.sh) with
#         an interactive shell on this terminal instead of the demo;
#         `exit` powers it off.
# board:  check's make board step alone (board_check).
# shell-test: make shell as a person meets it, through tmux
#         (scripts/shell-test.sh): the prompt, the terminal's size, a
#         command, exit.
# prefetch: what the rows of $SA_ROWS will download (check and matrix
#         run it in the background).
# KVER, SUITE, ARCH, KCC... come from the sourced kernel.env.
# shellcheck disable=SC2153
set -eEuo pipefail
. "$(dirname "$0")/lib.sh"
# Say what failed: a row's log would otherwise just stop.
trap 'log "error: line $LINENO: $BASH_COMMAND (exit $?)"' ERR

# in_list WORD LIST: is WORD one of LIST's words (spaces or newlines)?
in_list() {
	local w
	for w in $2; do
		[ "$w" != "$1" ] || return 0
	done
	return 1
}

# suite:arch:flavour[:variant]; the first row is the primary kernel.
# The variant "nobtf" builds the module as for a kernel without BTF
# (SA_BTF=): struct kmem_cache's layout is measured at load.  Kernels
# built here (scripts/build-kernel.sh) from Debian's sources:
# debug:amd64:kasan, the debug kernel (the primary kernel's sources with
# KASAN, lockdep, kmemleak, fault injection...); vendor:armhf:board, a
# board kernel (trixie's 6.12 for 32-bit ARM without kprobes, BTF or
# KALLSYMS_ALL, its tree as KDIR); slab:amd64:refused, a 6.1 tree
# configured with SLAB, against which slab_account must refuse to build
# (no boot).
SA_DEBUG_ROW=debug:amd64:kasan
SA_MAP_ROW=map:amd64:alloc-profiling
SA_VENDOR_ROW=vendor:armhf:board
SA_SLAB_ROW=slab:amd64:refused
SA_ALL_ROWS="bookworm:amd64:amd64 bookworm:amd64:rt-amd64 bullseye:amd64:amd64
bookworm-backports:amd64:amd64 sid:amd64:amd64 bookworm:arm64:arm64
trixie:amd64:amd64 trixie:arm64:arm64 trixie:amd64:cloud-amd64:nobtf
bookworm:armhf:armmp trixie:armhf:armmp sid:riscv64:riscv64
$SA_VENDOR_ROW $SA_SLAB_ROW $SA_DEBUG_ROW"
SA_ROWS=${SA_ROWS:-$SA_ALL_ROWS}
primary=${SA_ALL_ROWS%% *}
# Rows that also boot the reliability collection (slab_account_rel: the
# SMP stress) on $SA_REL_SMP vCPUs ($SA_DEBUG_REL_SMP on the debug kernel).
# The debug kernel's stress is make debug-check's (ci.sh debug): its load
# cycles take 4-20 s each under one TCG thread (docs/testing.md), so the
# test runs as many as its time budget allows (the chaos phase + 300 s).
SA_REL_ROWS=${SA_REL_ROWS-$primary bookworm:amd64:rt-amd64 bookworm:arm64:arm64
bookworm:armhf:armmp sid:amd64:amd64}
SA_REL_SMP=${SA_REL_SMP:-4}
# $SA_TESTS: the test programs of the suite boot, when not all of them
# (while working on one: SA_TESTS=sa_context_test SA_REL_ROWS= ci.sh row
# ROW boots that program alone, and the NUMA and scale boots where the
# row has them: SA_NUMA_ROWS= SA_SCALE_ROWS= leaves those out).
# $SA_REL_APPEND: more words for the reliability boot's command line, e.g.
# SA_LOAD_PARAMS=log_times=1 (the stress test's loads of slab_account then
# log each step's duration).
SA_DEBUG_REL_SMP=${SA_DEBUG_REL_SMP:-2}
# Rows that also boot the NUMA collection (slab_account_numa:
# sa_context_test on a guest with two NUMA nodes, where split=node has
# rows to check; the main boot's one node checks its refusal): amd64 6.1
# and 7.2, whose Debian kernels have CONFIG_NUMA.
SA_NUMA_ROWS=${SA_NUMA_ROWS-$primary sid:amd64:amd64}
# Rows that also boot the scale collection (slab_account_scale:
# sa_unload_test with SA_MANY_ROWS=max, whose a_load_with_many_rows
# unloads a module owning 901,120 rows of a table of 2^20 sites, on
# $SA_SCALE_SMP vCPUs and $SA_SCALE_MEM MB): 64-bit rows only, a 32-bit
# kernel's vmalloc space holds no such tables.
SA_SCALE_ROWS=${SA_SCALE_ROWS-$primary}
SA_SCALE_SMP=${SA_SCALE_SMP:-4}
SA_SCALE_MEM=${SA_SCALE_MEM:-2560}
MATRIX="$SA_ROOT/build/matrix"
# The row being built (run_row): its variant and tag.
ROW_VARIANT="" TAG=""

row_args() {	# row_args SUITE:ARCH:FLAVOUR[:VARIANT] -> fetch-kernel.sh arguments
	local IFS=:
	# shellcheck disable=SC2086
	set -- $1
	echo "--suite $1 --arch $2 --flavour $3"
}

row_variant() {	# row_variant SUITE:ARCH:FLAVOUR[:VARIANT] -> VARIANT or ""
	local IFS=:
	# shellcheck disable=SC2086
	set -- $1
	echo "${4:-}"
}

# Fetch (or build: the debug row) the row's kernel and the linux-source
# files; sets KVER KDIR ... KSFT, and KCC and KROOT: the compiler and the
# chroot ("-": none) the modules are built with (mkchroot.sh --kernel:
# from what the headers record about their compiler).
load_row() {
	local args kenv benv
	case "$1" in
	"$SA_DEBUG_ROW")
		"$SA_ROOT/scripts/debug-kernel.sh"
		kenv=$("$SA_ROOT/scripts/debug-kernel.sh" --print-env)
		# Its sources are the primary kernel's: the same kselftest files.
		read -r -a args <<< "$(row_args "$primary")"
		;;
	debug:*)
		die "unknown debug row $1 (there is $SA_DEBUG_ROW)"
		;;
	"$SA_MAP_ROW")
		"$SA_ROOT/scripts/build-kernel.sh" --profile map
		kenv=$("$SA_ROOT/scripts/build-kernel.sh" --profile map --print-env)
		read -r -a args <<< "$(row_args trixie:amd64:amd64)"
		;;
	"$SA_VENDOR_ROW")
		"$SA_ROOT/scripts/build-kernel.sh" --profile vendor
		kenv=$("$SA_ROOT/scripts/build-kernel.sh" --profile vendor --print-env)
		# Its kselftest files: its suite's 32-bit ARM kernel's.
		read -r -a args <<< "$(row_args trixie:armhf:armmp)"
		;;
	"$SA_SLAB_ROW")
		"$SA_ROOT/scripts/build-kernel.sh" --profile slab
		kenv=$("$SA_ROOT/scripts/build-kernel.sh" --profile slab --print-env)
		read -r -a args <<< "$(row_args "$primary")"
		;;
	*)
		read -r -a args <<< "$(row_args "$1")"
		"$SA_ROOT/scripts/fetch-kernel.sh" "${args[@]}"
		kenv=$("$SA_ROOT/scripts/fetch-kernel.sh" "${args[@]}" --print-env)
		;;
	esac
	# shellcheck disable=SC1090
	. "$kenv"
	CROSS_COMPILE=${CROSS_COMPILE:-} KARCH=${KARCH:-}
	benv=$("$SA_ROOT/scripts/mkchroot.sh" --kernel "$kenv")
	read -r KCC KROOT <<< "$benv"
	"$SA_ROOT/scripts/fetch-ksrc.sh" "${args[@]}"
	# shellcheck disable=SC1090
	. "$("$SA_ROOT/scripts/fetch-ksrc.sh" "${args[@]}" --print-env)"
	out="$SA_ROOT/build/$KVER"
}

# kbuild writes next to the sources: build copies, one per kernel.
kbuild() {	# kbuild SRC_DIR OUT_DIR LOG [extra make args]
	local src=$1 dst=$2 logf=$3
	shift 3
	mkdir -p "$dst"
	cp -r "$src"/. "$dst"/
	kmake -C "$KDIR" M="$dst" CC="$KCC" W=1 ${KARCH:+ARCH=$KARCH} \
		${CROSS_COMPILE:+CROSS_COMPILE=$CROSS_COMPILE} "$@" modules \
		>"$logf" 2>&1 ||
		{ cat "$logf"; die "build failed: $src for $KVER"; }
	if grep -E 'warning:|error:' "$logf" | grep -v 'Skipping BTF'; then
		die "build of $src for $KVER is not warning-free (W=1${*:+ $*})"
	fi
}

# trace-cmd (Debian's package, a dynamic binary) with its libraries and
# loader in the test rootfs, where the row's architecture is this
# machine's: sa_boottrace_test then also checks the import of its report.
guest_trace_cmd() {
	local tc lib
	tc=$(command -v trace-cmd) || { log "no trace-cmd here: not in the guest"; return 0; }
	[ "$ARCH" = "$(dpkg --print-architecture)" ] || return 0
	mkdir -p "$out/rootfs/usr/bin"
	cp -L "$tc" "$out/rootfs/usr/bin/trace-cmd"
	for lib in $(ldd "$tc" | grep -o '/[^ ]*'); do
		mkdir -p "$out/rootfs$(dirname "$lib")"
		cp -L "$lib" "$out/rootfs$lib"
	done
	log "trace-cmd $(dpkg-query -W -f='${Version}' trace-cmd 2>/dev/null) in the guest"
}

# Build the modules, the reader and (test mode) the selftests of the
# loaded row and pack the initramfs in $out.
# khdr PATH: the kernel's PATH (include/...) as the headers of $KDIR give
# it: in the tree itself, behind its source link, or in the directory its
# Makefile includes (Debian's linux-headers-*-common, -common-rt); "" if
# none has it.
khdr() {
	local d f
	d=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$KDIR/Makefile" 2>/dev/null | head -n 1)
	for f in "$KDIR/$1" "$KDIR/source/$1" ${d:+"$d/$1"}; do
		if [ -f "$f" ]; then
			printf '%s\n' "$f"
			return 0
		fi
	done
}

build_row() {	# build_row test|demo|gate|fixtures
	local mode=$1
	rm -rf "$out"
	mkdir -p "$out/src" "$out/rootfs/lib/slab_account" "$out/rootfs/usr/bin"
	local where=""
	[ "$KROOT" = - ] || where=" in the chroot ${KROOT#"$SA_CACHE"/}"
	log "building slab_account.ko for $KVER (W=1, $KCC$where)"
	cp "$SA_ROOT/Kbuild" "$out/src/"
	cp -r "$SA_ROOT/module" "$out/src/"
	local -a modargs=()
	[ "$ROW_VARIANT" != nobtf ] || modargs=(SA_BTF=)
	kbuild "$out/src" "$out/mod" "$out/build-module.log" "${modargs[@]}"
	local flags have want layout=""
	flags=$(grep -h 'feature flags' "$out/build-module.log" | head -n 1) || true
	printf '%s\n' "$flags" >&2
	# Where struct kmem_cache's layout came from, against where it must
	# have on this row: a probe that failed unseen would measure at load.
	case "$flags" in
	*-DSA_KC_MEASURE*) have=measure ;;
	*-DSA_KC_FROM_SLUB_DEF*) have=slub_def.h ;;
	*-DSA_KC_FROM_TREE*) have=tree ;;
	*-DSA_KC_FROM_BTF*) have=btf ;;
	*) have=unknown ;;
	esac
	if [ -n "$(khdr include/linux/slub_def.h)" ]; then
		want=slub_def.h
	elif [ "$ROW_VARIANT" = nobtf ]; then
		want=measure
	elif [ -f "$KDIR/mm/slab.h" ] || [ -f "$KDIR/source/mm/slab.h" ]; then
		want=tree
	elif [ -n "$(sa_btf_kc "$KDIR/vmlinux" size)" ]; then
		want=btf
	else
		want=measure
	fi
	[ "$have" = "$want" ] ||
		die "struct kmem_cache's layout came from $have, not from $want, for $KVER (flags:$flags)"
	log "struct kmem_cache's layout: $have"
	# sa_layout_test: modules built with the offsets shifted (as a stale
	# BTF gives), which must be refused at load, where the offsets are
	# built in and come from BTF, and on the primary and 32-bit ARM rows
	# where slub_def.h gives them; where they are measured and the
	# headers have BTF, the offsets it gives, which the measure must find.
	local ksize kname kobj
	ksize=$(sed -n 's/.*-DSA_KC_SIZE_OFF=\([0-9]*\).*/\1/p' <<< "$flags")
	kname=$(sed -n 's/.*-DSA_KC_NAME_OFF=\([0-9]*\).*/\1/p' <<< "$flags")
	kobj=$(sed -n 's/.*-DSA_KC_OBJSIZE_OFF=\([0-9]*\).*/\1/p' <<< "$flags")
	if [ "$mode" = test ] && [ -n "$ksize" ] &&
	   { [ "$have" = btf ] || [ "$TAG" = "${primary//:/-}" ] ||
	     [ "$ARCH" = armhf ]; }; then
		layout=1
		log "building slab_account.ko with a wrong struct kmem_cache layout"
		kbuild "$out/src" "$out/badbtf" "$out/build-badbtf.log" \
			SA_KC_SIZE=$((ksize + 8)) SA_KC_NAME=$((kname + 8))
		mkdir -p "$out/rootfs/lib/slab_account/badbtf"
		cp "$out/badbtf/slab_account.ko" "$out/rootfs/lib/slab_account/badbtf/"
		log "building slab_account.ko with a wrong object size offset"
		kbuild "$out/src" "$out/badobj" "$out/build-badobj.log" \
			SA_KC_OBJSIZE=$((kobj + 8))
		mkdir -p "$out/rootfs/lib/slab_account/badobj"
		cp "$out/badobj/slab_account.ko" "$out/rootfs/lib/slab_account/badobj/"
	fi
	# A module whose bulk allocation prototype probe fails, as a broken
	# probe would: the hook must check the arguments at load and count
	# exactly; and one whose handler reads them one place off, as another
	# prototype would: the check must refuse the hook and say so.
	if [ "$mode" = test ] && [ "$TAG" = "${primary//:/-}" ]; then
		layout=1
		log "building slab_account.ko with a failing prototype probe"
		kbuild "$out/src" "$out/noproto" "$out/build-noproto.log" \
			SA_NO_PROTO="kmem_cache_alloc_bulk kmem_cache_alloc_bulk_noprof"
		mkdir -p "$out/rootfs/lib/slab_account/noproto"
		cp "$out/noproto/slab_account.ko" "$out/rootfs/lib/slab_account/noproto/"
		log "building slab_account.ko reading kmem_cache_alloc_bulk's arguments one place off"
		kbuild "$out/src" "$out/badbulk" "$out/build-badbulk.log" SA_BULK_SKEW=1
		mkdir -p "$out/rootfs/lib/slab_account/badbulk"
		cp "$out/badbulk/slab_account.ko" "$out/rootfs/lib/slab_account/badbulk/"
	fi
	if [ "$mode" = test ] && [ "$have" = measure ] &&
	   [ -n "$(sa_btf_kc "$KDIR/vmlinux" size)" ]; then
		layout=1
		printf 'size at %s, object_size at %s, name at %s\n' \
			"$(sa_btf_kc "$KDIR/vmlinux" size)" \
			"$(sa_btf_kc "$KDIR/vmlinux" object_size)" \
			"$(sa_btf_kc "$KDIR/vmlinux" name)" \
			> "$out/rootfs/lib/slab_account/layout.btf"
		log "the layout the module must measure (BTF): $(cat "$out/rootfs/lib/slab_account/layout.btf")"
	fi
	log "building sa_test.ko for $KVER (W=1)"
	kbuild "$SA_ROOT/tests/kmod" "$out/sa_test" "$out/build-sa_test.log"
	cp "$out/mod/slab_account.ko" "$out/sa_test/sa_test.ko" \
		"$out/sa_test/sa_stress.ko" "$out/sa_test/sa_age.ko" \
		"$out/sa_test/sa_leak.ko" "$out/sa_test/sa_leak_b.ko" \
		"$out/sa_test/sa_ctx.ko" "$out/sa_test/sa_tree.ko" \
		"$out/sa_test/sa_takeback.ko" "$out/rootfs/lib/slab_account/"
	log "building the reader (static)"
	make -s -C "$SA_ROOT/userspace" STATIC=1 CC="${CROSS_COMPILE}gcc" \
		OUT="$out/rootfs/usr/bin/slabacct"
	if [ "$mode" = test ]; then
		log "building the in-guest selftests with $PKGVER's harness"
		# sa_layout_test only where it has something to check (the
		# excluded name is then one no test has).
		rm -rf "$out/tests"
		cp -r "$SA_ROOT/tests/guest" "$out/tests"
		make -s -C "$out/tests" clean KSFT="$KSFT"
		make -s -C "$out/tests" install KSFT="$KSFT" \
			CC="${CROSS_COMPILE}gcc" INSTALL_PATH="$out/rootfs/kselftest" \
			TESTS_EXCLUDE="${layout:+-}sa_layout_test" \
			${SA_TESTS:+TESTS="$SA_TESTS"}
		guest_trace_cmd
	elif [ "$mode" = gate ]; then
		cp "$SA_ROOT/scripts/guest-gate.sh" "$out/rootfs/demo.sh"
		cp "$SA_ROOT/scripts/gate.rules" "$out/rootfs/gate.rules"
		# a driver whose insmod fails: sa_leak.ko with a vermagic the
		# kernel refuses (a word after the release: modversions
		# kernels compare only those)
		mkdir -p "$out/rootfs/lib/slab_account/badmagic"
		LC_ALL=C sed 's/ mod_unload / mod_unl0ad /' "$out/sa_test/sa_leak.ko" \
			> "$out/rootfs/lib/slab_account/badmagic/sa_leak.ko"
		grep -qa 'vermagic=[^ ]* .* mod_unl0ad ' \
			"$out/rootfs/lib/slab_account/badmagic/sa_leak.ko" ||
			die "could not build sa_leak.ko with a wrong vermagic"
	elif [ "$mode" = fixtures ]; then
		cp "$SA_ROOT/scripts/guest-fixtures.sh" "$out/rootfs/demo.sh"
	else
		cp "$SA_ROOT/scripts/guest-demo.sh" "$out/rootfs/demo.sh"
	fi
	"$SA_ROOT/scripts/mkinitramfs.sh" --out "$out/initramfs.cpio.gz" \
		--busybox "$BUSYBOX" --init "$SA_ROOT/scripts/init.sh" \
		--add "$out/rootfs/.:/"
}

boot_row() {	# boot_row test|demo [OUTDIR [run-qemu.sh args]]
	local mode=$1 dir=${2:-$out/boot}
	shift $(( $# < 2 ? $# : 2 ))
	"$SA_ROOT/scripts/run-qemu.sh" --kernel "$VMLINUZ" --arch "$ARCH" \
		--initrd "$out/initramfs.cpio.gz" --mode "$mode" --out "$dir" "$@"
}

# dkms.conf as the README's "dkms" steps use it: the same source directory
# (dkms.conf, Kbuild, module/), dkms add, build and remove with Debian's
# dkms, against the loaded row's headers.  Its dkms tree and source tree
# are build/dkms/ (nothing registered with the system's dkms, nothing
# installed); it signs the module as Debian's dkms does, with a key it
# generates, here build/dkms/mok.* instead of /var/lib/dkms/mok.*.
dkms_check() {
	local top="$SA_ROOT/build/dkms" ver src ko mlog
	local -a trees
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$SA_ROOT/dkms.conf")
	[ -n "$ver" ] || die "no PACKAGE_VERSION in dkms.conf"
	command -v "$KCC" >/dev/null || die "dkms build: no $KCC here"
	src="$top/src/slab_account-$ver"
	rm -rf "$top"
	mkdir -p "$src" "$top/tree"
	cp -r "$SA_ROOT/dkms.conf" "$SA_ROOT/Kbuild" "$SA_ROOT/module" "$src/"
	trees=(--dkmstree "$top/tree" --sourcetree "$top/src")
	log "dkms add, build and remove of slab_account/$ver for $KVER"
	{ dkms add "slab_account/$ver" "${trees[@]}" &&
	  sign_file="$KDIR/scripts/sign-file" mok_signing_key="$top/mok.key" \
	  mok_certificate="$top/mok.pub" \
	  dkms build "slab_account/$ver" -k "$KVER" --kernelsourcedir "$KDIR" \
		"${trees[@]}"; } > "$top/dkms.log" 2>&1 ||
		{ cat "$top/dkms.log"; die "dkms add/build failed"; }
	ko=$(compgen -G "$top/tree/slab_account/$ver/$KVER/*/module/slab_account.ko") ||
		{ cat "$top/dkms.log"; die "dkms build: no slab_account.ko"; }
	mlog=${ko%/module/slab_account.ko}/log/make.log
	if grep -E 'warning:|error:' "$mlog"; then
		die "dkms build of slab_account for $KVER is not warning-free"
	fi
	[ "$(modinfo -F vermagic "$ko" | awk '{ print $1 }')" = "$KVER" ] ||
		die "dkms build: $ko is not for $KVER"
	[ "$(modinfo -F signer "$ko")" = "DKMS module signing key" ] ||
		die "dkms build: $ko is not signed with dkms's key"
	dkms remove "slab_account/$ver" --all "${trees[@]}" >> "$top/dkms.log" 2>&1 ||
		{ cat "$top/dkms.log"; die "dkms remove failed"; }
	[ -z "$(ls -A "$top/tree")" ] ||
		die "dkms remove left $(ls -A "$top/tree") in $top/tree"
	rm -rf "$top/src" "$top/tree" "$top"/mok.*
}

# Lint of the primary kernel's build, dkms, and the reader's host tests.
lint() {
	load_row "$primary"
	if command -v sparse >/dev/null; then
		log "sparse on $KVER"
		rm -rf "$out/sparse-src" "$out/sparse"
		mkdir -p "$out/sparse-src"
		cp "$SA_ROOT/Kbuild" "$out/sparse-src/"
		cp -r "$SA_ROOT/module" "$out/sparse-src/"
		kbuild "$out/sparse-src" "$out/sparse" "$out/sparse.log" C=2
		kbuild "$SA_ROOT/tests/kmod" "$out/sparse-kmod" \
			"$out/sparse-kmod.log" C=2
	fi
	log "checkpatch --strict ($PKGVER)"
	(cd "$SA_ROOT" && perl "$KSRC/scripts/checkpatch.pl" --strict \
		--no-tree --quiet -f module/*.c module/*.h tests/kmod/*.[ch] \
		bench/kmod/*.c) ||
		die "checkpatch --strict is not clean"
	dkms_check
	log "reader host tests (ASan/UBSan)"
	SA_KUNIT_DIR="$KSRC/tools/testing/kunit" make -s -C "$SA_ROOT/userspace" check
	log "fuzzing the reader's parser for ${SA_FUZZ_SECS:-60} s (libFuzzer, ASan/UBSan)"
	make -s -j"$(nproc)" -C "$SA_ROOT/tests/fuzz" check FUZZ_SECS="${SA_FUZZ_SECS:-60}"
}

# make board as a user runs it (scripts/board.sh), for $SA_BOARD_ROW:
# trixie's arm64 kernel by default, whose headers name gcc-14 and whose
# kbuild tools need glibc 2.38, neither of which bookworm has (the module
# is built in the trixie chroot the matrix's trixie rows share).  The
# module's vermagic must begin with the kernel's release, the module and
# the reader must be for the board's architecture, the reader static (no
# interpreter, no shared library), and the printed steps must copy and
# load what was built; the top Makefile's reader and install-reader with
# the board's CROSS_COMPILE must compile with that prefix only; bad BOARD
# values must be refused, saying why.
SA_BOARD_ROW=${SA_BOARD_ROW:-trixie:arm64:arm64}
board_check() {
	local t0=$SECONDS suite arch flavour kenv dir want m f out rc
	IFS=: read -r suite arch flavour <<< "$SA_BOARD_ROW"
	log "make board BOARD=$SA_BOARD_ROW"
	out=$(cd "$SA_ROOT" && make -s board BOARD="$SA_BOARD_ROW") ||
		die "make board BOARD=$SA_BOARD_ROW failed"
	printf '%s\n' "$out" >&2
	kenv=$("$SA_ROOT/scripts/fetch-kernel.sh" --suite "$suite" --arch "$arch" \
		--flavour "$flavour" --print-env)
	# shellcheck disable=SC1090
	. "$kenv"
	dir="$SA_ROOT/build/board/$KVER"
	# The top Makefile's cross build and install (what the README gives
	# for a vendor tree) compile the reader with the board's prefix, and
	# nothing for this machine (a dry run, every target remade).
	if [ -n "${CROSS_COMPILE:-}" ]; then
		for f in reader install-reader; do
			m=$(cd "$SA_ROOT" && make -s -n -B "$f" \
				CROSS_COMPILE="$CROSS_COMPILE" DESTDIR=/nonexistent |
				grep -E '^[^ ]+ -std=c11 ') ||
				die "make -n $f CROSS_COMPILE=$CROSS_COMPILE compiles no reader"
			if grep -v "^${CROSS_COMPILE}gcc " <<< "$m"; then
				die "make $f CROSS_COMPILE=$CROSS_COMPILE compiles the reader with another compiler (above)"
			fi
		done
		log "make reader and install-reader with CROSS_COMPILE=$CROSS_COMPILE: ${CROSS_COMPILE}gcc only"
	fi
	for f in slab_account.ko slabacct; do
		[ -f "$dir/$f" ] || die "make board: no $dir/$f"
	done
	m=$(modinfo -F vermagic "$dir/slab_account.ko")
	[ "${m%% *}" = "$KVER" ] ||
		die "make board: slab_account.ko's vermagic is '$m', not $KVER's"
	case "$arch" in
	amd64) want="Advanced Micro Devices X86-64" ;;
	arm64) want=AArch64 ;;
	armhf) want=ARM ;;
	riscv64) want=RISC-V ;;
	*) die "make board: no ELF machine known for $arch" ;;
	esac
	for f in slab_account.ko slabacct; do
		m=$(readelf -h "$dir/$f" | sed -n 's/^ *Machine: *//p')
		[ "$m" = "$want" ] ||
			die "make board: $f is for '${m:-nothing}', not for $arch ($want)"
	done
	m=$(readelf -lW "$dir/slabacct"; readelf -dW "$dir/slabacct")
	if grep -q -e 'INTERP' -e '(NEEDED)' <<< "$m"; then
		die "make board: slabacct is not static: $(grep -e INTERP -e NEEDED <<< "$m")"
	fi
	for f in "scp build/board/$KVER/slab_account.ko build/board/$KVER/slabacct " \
		 "insmod ./slab_account.ko" "must print $KVER" "./slabacct "; do
		grep -qF -- "$f" <<< "$out" ||
			die "make board's steps lack '$f'"
	done
	log "make board: $KVER's vermagic, $want module and static reader in build/board/$KVER"
	# Refusals: each must fail, saying the expected words.
	while IFS='|' read -r f want; do
		rc=0
		# shellcheck disable=SC2086 # (no BOARD at all for the first)
		out=$("$SA_ROOT/scripts/board.sh" $f 2>&1) || rc=$?
		[ $rc -ne 0 ] ||
			die "board.sh $f succeeded; it must refuse it"
		grep -qF -- "$want" <<< "$out" ||
			{ printf '%s\n' "$out" >&2; die "board.sh $f was refused without saying '$want'"; }
	done <<- EOF
	|no BOARD given
	$suite:$arch|is not SUITE:ARCH:FLAVOUR
	$suite:sparc64:$flavour|sparc64 boards are not supported
	$suite:$arch:no-such|$suite has no no-such kernel for $arch (no linux-image-no-such); its $arch kernel flavours:
	EOF
	log "make board refused a missing BOARD, a malformed one, an unknown architecture and a flavour without a kernel"
	log "make board check: $((SECONDS - t0)) s"
}

# The boot-time trace recipe (docs/kernels.md, "Boot-time coverage") for
# the loaded row's test boot: the kmem events from early boot (the *_node
# ones where the kernel has them, before 6.1), $SA_BOOT_TRACE_BUF of ring
# buffer per CPU, the global trace clock from the start (where sched_clock
# is found unstable, late_initcall would switch to it and so clear the
# buffer) and, from 5.12, real pointers in the text.  /init stops it,
# sa_boottrace_test reads, imports and checks it and frees the buffer.
SA_BOOT_TRACE_BUF=${SA_BOOT_TRACE_BUF:-16M}
# The trace clock from boot ("": the kernel's choice, which resets the
# buffer at late_initcall where sched_clock is unstable).
SA_BOOT_TRACE_CLOCK=${SA_BOOT_TRACE_CLOCK-global}
boot_trace_args() {
	local events=kmem:kmalloc,kmem:kmem_cache_alloc,kmem:kfree,kmem:kmem_cache_free
	local kmem_h major minor
	kmem_h=$(khdr include/trace/events/kmem.h)
	IFS=. read -r major minor _ <<< "$KVER"
	if [ -n "$kmem_h" ]; then
		if grep -q 'kmalloc_node' "$kmem_h"; then
			events+=,kmem:kmalloc_node,kmem:kmem_cache_alloc_node
		fi
	elif [ $((major * 100 + minor)) -lt 601 ]; then
		events+=,kmem:kmalloc_node,kmem:kmem_cache_alloc_node
	fi
	printf 'trace_event=%s trace_buf_size=%s' "$events" "$SA_BOOT_TRACE_BUF"
	[ -z "$SA_BOOT_TRACE_CLOCK" ] || printf ' trace_clock=%s' "$SA_BOOT_TRACE_CLOCK"
	[ $((major * 100 + minor)) -lt 512 ] || printf ' no_hash_pointers'
}

# The slab row: slab_account must refuse to build against a SLAB kernel,
# saying why, and build nothing.
refuse_row() {
	local why="slab_account: this kernel uses the SLAB allocator (CONFIG_SLAB=y)"
	local d="$out/refused"
	rm -rf "$out" && mkdir -p "$d"
	cp -r "$SA_ROOT/Kbuild" "$SA_ROOT/module" "$d/"
	log "building slab_account.ko for $KVER (SLAB): it must be refused"
	if kmake -C "$KDIR" M="$d" CC="$KCC" modules > "$out/build.log" 2>&1; then
		cat "$out/build.log"
		die "slab_account built against a SLAB kernel"
	fi
	grep -F "$why" "$out/build.log" >&2 ||
		{ cat "$out/build.log"; die "the build failed without saying why: $why"; }
	[ -z "$(find "$d" -name '*.o' -o -name '*.ko')" ] ||
		die "the refused build compiled files"
	log "refused as it must be, nothing compiled"
}

# The stress's length on a row: 60 s of chaos and 100 load cycles on the
# primary kernel and 6.1-rt, 30 s and 30 cycles on the others (arm64,
# 32-bit ARM, 7.2: the exact phases, resets under the storm and the big
# site are whole there); SA_STRESS_SECS and SA_STRESS_CYCLES for all.
stress_args() {	# stress_args ROW
	local secs=30 cycles=30
	case "$1" in
	"$primary" | bookworm:amd64:rt-amd64) secs=60 cycles=100 ;;
	esac
	printf ' SA_STRESS_SECS=%s SA_STRESS_CYCLES=%s' \
		"${SA_STRESS_SECS:-$secs}" "${SA_STRESS_CYCLES:-$cycles}"
}

# One row, start to end, status in $MATRIX/<row>.{build,boot,suite}.
run_row() {	# run_row ROW (in a subshell: dies stay local)
	local row=$1 tag=${1//:/-} tmo=600 reltmo=1500 check=() env=""
	ROW_VARIANT=$(row_variant "$row") TAG=$tag
	local reltime="about 90 s" relsmp=$SA_REL_SMP skips=""
	rm -f "$MATRIX/$tag".{kernel,build,boot,suite}
	load_row "$row"
	echo "$KVER $PKGVER" > "$MATRIX/$tag.kernel"
	if [ "$row" = "$SA_SLAB_ROW" ]; then
		refuse_row
		echo refused > "$MATRIX/$tag.build"
		echo - > "$MATRIX/$tag.boot"
		echo - > "$MATRIX/$tag.suite"
		return
	fi
	# Only the debug kernel has CPU_HOTPLUG_STATE_CONTROL: elsewhere no
	# CPU can be stopped between offline and online.
	[ "$row" = "$SA_DEBUG_ROW" ] || skips="reload.cpu_parked_at_load"
	if [ "$row" = "$SA_VENDOR_ROW" ]; then
		# No kprobes: the paths beyond the tracepoints and the
		# helpers cannot be found; the tests say so.  No CPU hotplug
		# (HOTPLUG_CPU off): no CPU can come online after the load.
		skips+=" global.exact_on_every_path global.helpers_name_their_callers"
		skips+=" reload.cpu_online_after_load global.peak_offline_fold"
	fi
	# With $SA_TESTS, only the skips of the programs it runs (a subtest
	# "fixture.name" is TEST_F(fixture, name) or, fixture global,
	# TEST(name) in tests/guest/<program>.c).
	if [ -n "${SA_TESTS:-}" ]; then
		local s prog kept=""
		for s in $skips; do
			prog=$(grep -lE "^TEST(_F)?\((${s%%.*}, )?${s#*.}\)" \
				"$SA_ROOT"/tests/guest/*_test.c | head -n 1 || true)
			prog=${prog##*/}
			! in_list "${prog%.c}" "$SA_TESTS" || kept+=" $s"
		done
		skips=$kept
	fi
	if [ "$row" = "$SA_DEBUG_ROW" ]; then
		# KASAN, lockdep and kmemleak under TCG: several times slower;
		# the console must show them on, and no report.
		# sa_fault_test must find fault injection (fail-nth) there.
		tmo=2400 reltmo=2400 check=(--debug) env="SA_REQUIRE_FAILSLAB=1 "
		# On 4 vCPUs (one host thread) a load cycle under the storm
		# takes 11-20 s there; on 2, 4-20 s (the test's cycles are
		# bounded by a time budget there).
		relsmp=$SA_DEBUG_REL_SMP
		reltime="about 8 min"
		log "debug kernel built in $DEBUG_BUILD_SECS s (when last built)"
	fi
	build_row test
	echo ok > "$MATRIX/$tag.build"
	echo "$SECONDS" > "$MATRIX/$tag.built"
	boot_row test "$out/boot" --timeout "$tmo" \
		--append "${env}$(boot_trace_args)"
	echo ok > "$MATRIX/$tag.boot"
	SA_EXPECT_SKIPS=$skips "$SA_ROOT/scripts/check-boot.sh" "${check[@]}" "$out/boot"
	if in_list "$row" "$SA_NUMA_ROWS"; then
		log "NUMA boot: sa_context_test on two nodes"
		boot_row test "$out/boot-numa" --numa 2 --timeout "$tmo" \
			--append "${env}sa.suite=slab_account_numa"
		"$SA_ROOT/scripts/check-boot.sh" "${check[@]}" "$out/boot-numa"
		grep -q 'split_node: 2 NUMA nodes online' "$out/boot-numa/ktap.clean" ||
			die "the NUMA boot's sa_context_test did not see two nodes"
	fi
	if in_list "$row" "$SA_SCALE_ROWS"; then
		log "scale boot: sa_unload_test with a table of 2^20 sites ($SA_SCALE_SMP vCPUs, $SA_SCALE_MEM MB)"
		boot_row test "$out/boot-scale" --smp "$SA_SCALE_SMP" \
			--mem "$SA_SCALE_MEM" --timeout "$tmo" \
			--append "${env}SA_MANY_ROWS=max sa.suite=slab_account_scale"
		"$SA_ROOT/scripts/check-boot.sh" "${check[@]}" "$out/boot-scale"
		grep -q 'report: many rows: 1048576 sites' "$out/boot-scale/ktap.clean" ||
			die "the scale boot's a_load_with_many_rows did not run with 2^20 sites"
	fi
	if in_list "$row" "$SA_REL_ROWS"; then
		# The take-back read mid-sum needs a third CPU, a kernel that
		# can be fully preemptible (PREEMPT_RT, or PREEMPT_DYNAMIC with
		# its debugfs file, which SCHED_DEBUG gave up to 6.x), and
		# kprobes on x86-64 or arm64.  (A maxcpus= below 3 in
		# SA_REL_APPEND would skip it too, unexpected.)
		local relskips=""
		if [ "$relsmp" -lt 3 ] ||
		   ! grep -qE '^CONFIG_PREEMPT_(RT|DYNAMIC)=y' "$KDIR/.config" ||
		   { ! grep -q '^CONFIG_PREEMPT_RT=y' "$KDIR/.config" &&
		     { ! grep -q '^CONFIG_DEBUG_FS=y' "$KDIR/.config" ||
		       grep -q '^# CONFIG_SCHED_DEBUG is not set' "$KDIR/.config"; }; } ||
		   ! grep -qE '^CONFIG_(X86_64|ARM64)=y' "$KDIR/.config" ||
		   ! grep -q '^CONFIG_KPROBES=y' "$KDIR/.config"; then
			relskips="takeback.taken_back_on_another_cpu_mid_read"
		fi
		log "reliability boot: SMP stress ($relsmp vCPUs, $reltime)"
		boot_row test "$out/boot-rel" --smp "$relsmp" \
			--timeout "$reltmo" \
			--append "${env}sa.suite=slab_account_rel$(stress_args "$row")${SA_REL_APPEND:+ $SA_REL_APPEND}"
		SA_EXPECT_SKIPS=$relskips "$SA_ROOT/scripts/check-boot.sh" \
			"${check[@]}" "$out/boot-rel"
	fi
	echo ok > "$MATRIX/$tag.suite"
}

# What the rows will download, fetched in the background while the first
# rows build and boot (downloads wait on the network, not on the CPUs):
# each Debian row's kernel, headers and linux-source files, the chroot its
# compiler needs, and the full sources the built kernels take.  The rows
# fetch the same again (the scripts lock and find it done); a prefetch
# that fails leaves the row to fetch it and say why.
prefetch() {
	local row kenv
	local -a args
	for row in $SA_ROWS; do
		case "$row" in
		"$SA_DEBUG_ROW" | "$SA_MAP_ROW" | "$SA_VENDOR_ROW" | "$SA_SLAB_ROW")
			continue ;;
		esac
		read -r -a args <<< "$(row_args "$row")"
		"$SA_ROOT/scripts/fetch-kernel.sh" "${args[@]}" || continue
		"$SA_ROOT/scripts/fetch-ksrc.sh" "${args[@]}" || true
		kenv=$("$SA_ROOT/scripts/fetch-kernel.sh" "${args[@]}" --print-env) &&
			"$SA_ROOT/scripts/mkchroot.sh" --kernel "$kenv" >/dev/null || true
	done
	if in_list "$SA_VENDOR_ROW" "$SA_ROWS"; then
		"$SA_ROOT/scripts/build-kernel.sh" --profile vendor --fetch-only || true
	fi
	log "prefetch done"
}

# The prefetch, started once, in a process group of its own: stopping it
# stops whatever download or debootstrap it is in.
prefetcher=""
start_prefetch() {
	[ -z "$prefetcher" ] || return 0
	mkdir -p "$MATRIX"
	SA_ROWS=$SA_ROWS setsid "$SA_ROOT/scripts/ci.sh" prefetch \
		> "$MATRIX/prefetch.log" 2>&1 &
	prefetcher=$!
}

stop_prefetch() {
	[ -n "$prefetcher" ] || return 0
	kill -- -"$prefetcher" 2>/dev/null || true
	wait "$prefetcher" 2>/dev/null || true
	prefetcher=""
}

matrix() {
	local row tag pids=() failed=0 st order running
	local matrix_t0=$SECONDS
	mkdir -p "$MATRIX"
	# linux-source is fetched twice for a version (a few files, then the
	# full tree of a kernel built here): the package is kept in between
	# (sa_apt_download), and deleted when the matrix ends.
	export SA_KEEP_DEBS=1
	start_prefetch
	# Builds one after the other (they use both cores), boots two at a
	# time: each row is one background job started when its build may go.
	# The debug row starts first: its boots are by far the longest (one
	# host thread), the other rows run beside them.
	order=$(for row in $SA_ROWS; do
		[ "$row" != "$SA_DEBUG_ROW" ] || echo "$row"
	done; for row in $SA_ROWS; do
		[ "$row" = "$SA_DEBUG_ROW" ] || echo "$row"
	done)
	for row in $order; do
		tag=${row//:/-}
		log "row $row: starting (log: build/matrix/$tag.log)"
		# No stale status of an earlier run may let the next start.
		rm -f "$MATRIX/$tag".{kernel,build,boot,suite,built,secs}
		# The row's seconds, whatever its end: built (fetch and
		# build), secs (all).
		( SECONDS=0
		  trap 'echo "$SECONDS" > "$MATRIX/$tag.secs"' EXIT
		  run_row "$row" ) > "$MATRIX/$tag.log" 2>&1 &
		pids+=($!)
		# Wait for this row's build before starting the next one.
		while kill -0 "${pids[-1]}" 2>/dev/null &&
		      [ ! -e "$MATRIX/$tag.build" ]; do
			sleep 1
		done
		# No more than two guests at once.
		while :; do
			running=0
			for st in "${pids[@]}"; do
				! kill -0 "$st" 2>/dev/null || running=$((running + 1))
			done
			[ "$running" -ge 2 ] || break
			sleep 1
		done
	done
	# Each row's end (judged from its files, not its status); a row
	# bash has already reaped is no child any more, quietly.
	for st in "${pids[@]}"; do
		wait "$st" 2>/dev/null || true
	done
	stop_prefetch
	rm -rf "$SA_CACHE/debs"
	# Seconds: to the end of the row's build (fetches and builds,
	# beside the other rows' guests), and in all.
	printf '\n%-32s %-40s %-6s %-6s %-6s %6s %6s\n' row kernel build boot suite \
		built total
	for row in $SA_ROWS; do
		tag=${row//:/-}
		st=""
		for s in build boot suite; do
			if [ -e "$MATRIX/$tag.$s" ]; then
				st+=$(printf ' %-6s' "$(head -n 1 "$MATRIX/$tag.$s")")
			else
				st+=$(printf ' %-6s' FAIL)
				failed=1
			fi
		done
		for s in built secs; do
			st+=$(printf ' %6s' "$(cat "$MATRIX/$tag.$s" 2>/dev/null || echo -)")
		done
		printf '%-32s %-40s%s\n' "$row" \
			"$(cat "$MATRIX/$tag.kernel" 2>/dev/null || echo '?')" "$st"
	done
	echo
	# Boots stopped before /init and booted again (run-qemu.sh): said.
	for row in $SA_ROWS; do
		tag=${row//:/-}
		st=$(grep -c 'did not reach /init in' "$MATRIX/$tag.log" 2>/dev/null) || true
		[ "${st:-0}" = 0 ] ||
			log "row $row: $st boot(s) did not reach /init (see build/matrix/$tag.log)"
	done
	log "kernel matrix: $((SECONDS - matrix_t0)) s"
	if [ $failed -ne 0 ]; then
		for row in $SA_ROWS; do
			tag=${row//:/-}
			[ -e "$MATRIX/$tag.suite" ] && continue
			log "row $row failed; the end of build/matrix/$tag.log:"
			tail -n 60 "$MATRIX/$tag.log" >&2
		done
		die "kernel matrix failed"
	fi
	# The exact-accounting figures of each row are in its log.
	log "kernel matrix passed: $(echo "$SA_ROWS" | wc -w) rows"
}

mode=${1:-}
"$SA_ROOT/scripts/setup-deps.sh"
case "$mode" in
check)
	export SA_KEEP_DEBS=1	# (see matrix)
	start_prefetch
	lint
	board_check
	"$SA_ROOT/scripts/shell-test.sh"
	log "lint, host tests, make board and make shell: $SECONDS s"
	matrix
	;;
matrix)
	matrix
	;;
board)
	# make check's make board step alone.
	board_check
	;;
prefetch)
	# (start_prefetch's job: what the rows of $SA_ROWS will download.)
	prefetch
	;;
row)
	SA_ROWS=${2:?usage: ci.sh row SUITE:ARCH:FLAVOUR}
	matrix
	;;
debug)
	SA_ROWS=$SA_DEBUG_ROW
	SA_REL_ROWS=$SA_DEBUG_ROW
	matrix
	;;
map)
	SA_ROWS=$SA_MAP_ROW
	SA_REL_ROWS=
	matrix
	;;
demo)
	load_row "$primary"
	build_row demo
	boot_row demo
	# Pictures of the demo's last snapshot, drawn by the host's reader.
	make -s -C "$SA_ROOT/userspace"
	mkdir -p "$SA_ROOT/build/demo"
	sed -n 's/^SA_SNAP: //p' "$out/boot/console.log" | tr -d '\r' \
		> "$SA_ROOT/build/demo/slab_account.txt"
	"$SA_ROOT/userspace/slabacct" --svg "$SA_ROOT/build/demo/slab_account.svg" \
		"$SA_ROOT/build/demo/slab_account.txt" > /dev/null
	"$SA_ROOT/userspace/slabacct" --openmetrics \
		-o "$SA_ROOT/build/demo/slab_account.prom" \
		"$SA_ROOT/build/demo/slab_account.txt"
	log "the snapshot, a treemap of it and its metrics: build/demo/slab_account.{txt,svg,prom}"
	;;
shell)
	load_row "$primary"
	build_row demo
	boot_row shell "$out/shell"
	;;
shell-test)
	"$SA_ROOT/scripts/shell-test.sh"
	;;
gate)
	# docs/gate.md: the driver author's loop in a QEMU boot, the gate's
	# verdict as the result: the fixed driver must pass; the leaking one,
	# a driver whose insmod failed and a misspelt module fail, saying
	# why; a snapshot cut short cannot be judged (exit 2, a JUnit error);
	# every JUnit report valid against tests/host/junit.xsd.
	load_row "$primary"
	build_row gate
	boot_row demo "$out/gate"
	mkdir -p "$SA_ROOT/build/gate"
	con=$out/gate/console.log
	for v in noload fixed leaking typo cut; do
		tr -d '\r' < "$out/gate/ktap.log" |
			sed -n "/^SA_JUNIT_BEGIN $v\$/,/^SA_JUNIT_END $v\$/p" |
			sed '1d;$d' > "$SA_ROOT/build/gate/$v.xml"
		xmllint --noout --schema "$SA_ROOT/tests/host/junit.xsd" \
			"$SA_ROOT/build/gate/$v.xml" ||
			die "the $v verdict's JUnit report is not valid"
	done
	! grep -q '^SA_GATE_FAIL' "$con" || die "$(grep -m1 '^SA_GATE_FAIL' "$con")"
	grep -q 'sa_leak: version magic ' "$con" ||
		die "the module with a wrong vermagic was not refused for it"
	grep -q '^SA_GATE noload exit 1' "$con" ||
		die "the gate did not fail a driver whose insmod failed"
	grep -q '^FAIL 1 no left-at-unload module sa_leak: no unload of module sa_leak in the unloads file: nothing to judge' "$con" ||
		die "the gate did not say that the driver never unloaded"
	grep -q '^SA_GATE fixed exit 0' "$con" ||
		die "the fixed driver did not pass the gate"
	grep -q '^SA_GATE leaking exit 1' "$con" ||
		die "the leaking driver did not fail the gate"
	grep -q '^SA_GATE typo exit 1' "$con" ||
		die "the gate did not fail the misspelt module"
	grep -q '^FAIL 1 live <= 16K module sa_lek: no call site of module sa_lek in the snapshot: nothing to judge' "$con" ||
		die "the gate did not say that the misspelt module has no call site"
	grep -q '^SA_GATE cut exit 2' "$con" ||
		die "the gate judged a snapshot cut short"
	grep -q "^slabacct: /tmp/cut.txt: .* rows, fewer than the header's 'number of callers: .*': the file is truncated" "$con" ||
		die "the gate did not say that the snapshot was cut short"
	grep -q 'errors="1"' "$SA_ROOT/build/gate/cut.xml" ||
		die "the JUnit report of the snapshot cut short has no error"
	log "the gate passed the fixed driver, failed the leaking one, the failed insmod and the misspelt module, and could not run on the snapshot cut short (exit 2); JUnit: build/gate/{noload,fixed,leaking,typo,cut}.xml"
	;;
fixtures)
	# Real files for the reader's host tests (scripts/guest-fixtures.sh
	# says what each scene does): the primary kernel booted twice, with
	# one NUMA node and with two; each file the guest sent is decoded,
	# its length and SHA-256 checked, and written to build/guest-fixtures/
	# as guest_NAME (copy them to tests/host/fixtures/ to replace the
	# committed ones; the expected outputs then change with them).
	load_row "$primary"
	build_row fixtures
	boot_row demo "$out/fixtures"
	boot_row demo "$out/fixtures-numa" --numa 2
	dst=$SA_ROOT/build/guest-fixtures
	rm -rf "$dst"
	mkdir -p "$dst"
	for b in fixtures fixtures-numa; do
		con=$out/$b/console.log
		! grep -q 'SA_FIX_FAIL' "$con" || die "$b: $(grep -m1 'SA_FIX_FAIL' "$con")"
		grep -q '^SA_FIX_DONE' "$con" || die "$b: the guest did not finish (see $con)"
		tr -d '\r' < "$out/$b/ktap.log" > "$out/$b/files.txt"
		grep '^SA_FILE_BEGIN ' "$out/$b/files.txt" > "$out/$b/index.txt" ||
			die "$b: no file came back (see $out/$b/ktap.log)"
		while read -r _ name sum len; do
			sed -n "/^SA_FILE_BEGIN $name /,/^SA_FILE_END $name\$/p" \
				"$out/$b/files.txt" | sed '1d;$d' | base64 -d \
				> "$dst/guest_$name" || die "$b: $name: not base64"
			[ "$(wc -c < "$dst/guest_$name")" = "$len" ] ||
				die "$b: $name: $(wc -c < "$dst/guest_$name") bytes, the guest sent $len"
			[ "$(sha256sum < "$dst/guest_$name" | cut -d ' ' -f 1)" = "$sum" ] ||
				die "$b: $name: its SHA-256 is not the guest's"
		done < "$out/$b/index.txt"
		# The second boot has two nodes: its one scene is split=node.
		[ "$b" = fixtures ] || [ -f "$dst/guest_node.txt" ] ||
			die "$b: no split=node scene (the guest saw one NUMA node?)"
	done
	log "$(find "$dst" -type f | wc -l) files from $KVER ($PKGVER) in build/guest-fixtures/: $(cd "$dst" && ls | tr '\n' ' ')"
	;;
*)
	die "usage: ci.sh check|matrix|row SUITE:ARCH:FLAVOUR|debug|map|demo|shell|gate|fixtures|board|shell-test|prefetch"
	;;
esac
