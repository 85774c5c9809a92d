#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh --profile debug|map|vendor|slab [--print-env] [--config-only]
#                 [--fetch-only]
#
# Small kernels built from Debian's own linux-source-<x.y> of the version
# that fetch-kernel.sh resolves for a suite (so Debian's sources, patches
# included), from allnoconfig plus a profile's options:
#   debug   bookworm's 6.1 for x86_64, for the test suite
#           (scripts/debug-kernel.sh): KASAN (generic, inline, vmalloc),
#           PROVE_LOCKING, DEBUG_ATOMIC_SLEEP, DEBUG_PREEMPT (full
#           preemption), DEBUG_OBJECTS (timers, work, RCU heads, percpu
#           counters, frees), DEBUG_KMEMLEAK, DEBUG_LIST, FAILSLAB,
#           FAIL_PAGE_ALLOC and FAIL_FUNCTION (fault injection through
#           debugfs), CPU_HOTPLUG_STATE_CONTROL (a CPU can be stopped at
#           a hotplug state between offline and online);
#   map     trixie's 6.12 for x86_64, for the peers' bench
#           (scripts/bench.sh): memory allocation profiling compiled in
#           and off until `sysctl vm.mem_profiling=1`, no debugging, close
#           to Debian's where the figures depend on it (SLUB with Debian's
#           hardening, voluntary/dynamic preemption, HZ 250,
#           FUNCTION_TRACER and DYNAMIC_FTRACE so that kprobes ride
#           ftrace), with BPF, perf events and BTF (/sys/kernel/btf/vmlinux)
#           for the eBPF peer;
#   vendor  trixie's 6.12 for 32-bit ARM (Cortex-A15, QEMU's virt
#           machine), configured as board kernels are: no kprobes, no BTF,
#           no KALLSYMS_ALL, event tracing for the kmem tracepoints; built
#           with this machine's arm-linux-gnueabihf-gcc, the tree kept as a
#           board SDK keeps it (its mm/slab.h gives struct kmem_cache);
#   slab    bookworm's 6.1 for x86_64 with the SLAB allocator, configured
#           and prepared for modules only (no kernel image): slab_account
#           must refuse to build against it.
# The x86_64 ones have only what the QEMU guest and the tests need (serial
# console, initramfs, devtmpfs, proc, sysfs, tmpfs, debugfs, unix sockets,
# modules with unload, kmem tracepoints and event tracing, kprobes, ACPI
# power-off: it needs PCI); the ARM one what QEMU's virt machine needs
# (PL011 console, GIC, architected timer, PSCI power-off).
# The package is downloaded with the project's private apt set-up into
# $SA_CACHE/src/<pkgver>/ (deleted after unpacking), the tree unpacked
# there, shared by the profiles of one version, and built out of tree in
# $SA_CACHE/<profile>/<pkgver>/build (the image, modules_prepare,
# Module.symvers: `make -C build M=... modules` builds a module against it).
# Writes kernel.env there, in the format of fetch-kernel.sh's (KVER PKGVER
# KDIR VMLINUZ KCC SUITE ARCH BUSYBOX CROSS_COMPILE KARCH) plus
# DEBUG_BUILD_SECS (wall seconds of the last build, make -j$(nproc)) and
# DEBUG_CONFIG_SHA (the requested options; the file is the done-stamp: a
# changed request rebuilds); VMLINUZ is empty for the slab profile.
# --print-env only prints kernel.env's path; --config-only stops after the
# configuration (in config-only/.config; the built kernel is left alone);
# --fetch-only after the downloads (the sources unpacked).
# SA_DEBUG_JOBS overrides the make -j count.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

print=0 config_only=0 fetch_only=0 profile=
while [ $# -gt 0 ]; do
	case "$1" in
	--profile) profile=${2:?}; shift ;;
	--print-env) print=1 ;;
	--config-only) config_only=1 ;;
	--fetch-only) fetch_only=1 ;;
	*) die "build-kernel.sh: unknown argument $1" ;;
	esac
	shift
done

# arch: Debian's name; karch, cross: the kernel's; image: the file built.
arch=amd64 karch=x86_64 cross="" image=bzImage flavour=amd64
case "$profile" in
debug)
	suite=bookworm preempt=CONFIG_PREEMPT=y
	tracers=CONFIG_ENABLE_DEFAULT_TRACERS=y
	;;
map)
	suite=trixie
	preempt='CONFIG_PREEMPT_VOLUNTARY=y
CONFIG_PREEMPT_DYNAMIC=y'
	tracers='CONFIG_FUNCTION_TRACER=y
CONFIG_DYNAMIC_FTRACE=y'
	;;
vendor)
	suite=trixie arch=armhf karch=arm cross=arm-linux-gnueabihf- image=zImage
	flavour=armmp
	preempt=CONFIG_PREEMPT_VOLUNTARY=y
	tracers=CONFIG_ENABLE_DEFAULT_TRACERS=y
	;;
slab)
	suite=bookworm preempt=CONFIG_PREEMPT_VOLUNTARY=y
	tracers=CONFIG_ENABLE_DEFAULT_TRACERS=y image=""
	;;
*) die "build-kernel.sh: --profile debug, map, vendor or slab" ;;
esac
# The version is the suite's amd64 kernel's (a linux-source package is
# architecture-independent); the guest's busybox is of its architecture.
base=(--suite "$suite" --arch amd64 --flavour amd64)
if [ $print = 0 ]; then
	# Brings the apt lists up to date and resolves the version.
	"$SA_ROOT/scripts/fetch-kernel.sh" "${base[@]}"
fi
benv=$("$SA_ROOT/scripts/fetch-kernel.sh" "${base[@]}" --print-env)
pkgver=$(sed -n 's/^PKGVER=//p' "$benv")
bkver=$(sed -n 's/^KVER=//p' "$benv")
busybox=$(sed -n 's/^BUSYBOX=//p' "$benv")
if [ -z "$pkgver" ] || [ -z "$bkver" ]; then
	die "no PKGVER/KVER in $benv"
fi
# Another architecture's busybox: the one its Debian kernel's row has.
if [ "$arch" != amd64 ] && [ $print = 0 ]; then
	aargs=(--suite "$suite" --arch "$arch" --flavour "$flavour")
	"$SA_ROOT/scripts/fetch-kernel.sh" "${aargs[@]}"
	busybox=$(sed -n 's/^BUSYBOX=//p' \
		"$("$SA_ROOT/scripts/fetch-kernel.sh" "${aargs[@]}" --print-env)")
fi

dir="$SA_CACHE/$profile/$pkgver"
envf="$dir/kernel.env"
if [ $print = 1 ]; then
	[ -f "$envf" ] || die "no $envf: run build-kernel.sh --profile $profile first"
	echo "$envf"
	exit 0
fi

# The requested configuration, applied on top of allnoconfig; every line
# is checked in the final .config.  Its text (hashed into the done-stamp)
# is: head (the machine), the profile's name and preemption model, middle
# (what the guest and the tests need), the profile's tracers, tail, the
# profile's options.
case "$karch" in
x86_64) read -r -d '' head <<'CONFIG' || true
CONFIG_64BIT=y
CONFIG_SMP=y
CONFIG_NR_CPUS=8
CONFIG_SPARSEMEM_VMEMMAP=y
CONFIG_VMAP_STACK=y
CONFIG_UNWINDER_ORC=y
CONFIG_FRAME_WARN=2048
CONFIG
	read -r -d '' machine <<'CONFIG' || true
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_SERIAL_8250_NR_UARTS=4
CONFIG_SERIAL_8250_RUNTIME_UARTS=4
CONFIG_PCI=y
CONFIG_ACPI=y
CONFIG_X86_MPPARSE=y
CONFIG_HPET_TIMER=y
CONFIG
	;;
arm) read -r -d '' head <<'CONFIG' || true
CONFIG_MMU=y
CONFIG_ARCH_MULTIPLATFORM=y
CONFIG_ARCH_MULTI_V7=y
CONFIG_ARCH_VIRT=y
CONFIG_SMP=y
CONFIG_NR_CPUS=4
CONFIG_AEABI=y
CONFIG_VFP=y
CONFIG_VFPv3=y
CONFIG_NEON=y
CONFIG_VMSPLIT_3G=y
CONFIG_HIGHMEM=y
CONFIG_UNWINDER_ARM=y
CONFIG_FRAME_WARN=1024
CONFIG_COMPAT_32BIT_TIME=y
CONFIG
	read -r -d '' machine <<'CONFIG' || true
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y
CONFIG_ARM_PSCI=y
CONFIG_HAVE_ARM_ARCH_TIMER=y
CONFIG
	;;
esac
read -r -d '' middle <<'CONFIG' || true
CONFIG_HIGH_RES_TIMERS=y
CONFIG_NO_HZ_IDLE=y
CONFIG_IRQ_WORK=y
CONFIG_PRINTK=y
CONFIG_PRINTK_TIME=y
CONFIG_BUG=y
CONFIG_MULTIUSER=y
CONFIG_FUTEX=y
CONFIG_EPOLL=y
CONFIG_SIGNALFD=y
CONFIG_TIMERFD=y
CONFIG_EVENTFD=y
CONFIG_SHMEM=y
CONFIG_AIO=y
CONFIG_FILE_LOCKING=y
CONFIG_POSIX_TIMERS=y
CONFIG_KALLSYMS=y
CONFIG
case "$profile" in
debug | map) middle+=$'\nCONFIG_KALLSYMS_ALL=y' ;;
*) middle+=$'\n# CONFIG_KALLSYMS_ALL is not set' ;;
esac
read -r -d '' more <<'CONFIG' || true
CONFIG_IKCONFIG=y
CONFIG_IKCONFIG_PROC=y
CONFIG_JUMP_LABEL=y
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG
middle+=$'\n'"$more"
case "$profile" in
slab) middle+=$'\nCONFIG_SLAB=y' ;;
*) middle+=$'\nCONFIG_SLUB=y\nCONFIG_SLUB_DEBUG=y' ;;
esac
read -r -d '' more <<'CONFIG' || true
CONFIG_BINFMT_ELF=y
CONFIG_BINFMT_SCRIPT=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
# CONFIG_RD_BZIP2 is not set
# CONFIG_RD_LZMA is not set
# CONFIG_RD_XZ is not set
# CONFIG_RD_LZO is not set
# CONFIG_RD_LZ4 is not set
# CONFIG_RD_ZSTD is not set
CONFIG_DEVTMPFS=y
CONFIG_PROC_FS=y
CONFIG_PROC_SYSCTL=y
CONFIG_SYSFS=y
CONFIG_TMPFS=y
CONFIG_DEBUG_FS=y
CONFIG_TTY=y
CONFIG
middle+=$'\n'"$more"$'\n'"$machine"
read -r -d '' more <<'CONFIG' || true
CONFIG_NET=y
CONFIG_UNIX=y
CONFIG_TRACEPOINTS=y
CONFIG_FTRACE=y
CONFIG
middle+=$'\n'"$more"
read -r -d '' tail <<'CONFIG' || true
CONFIG_EVENT_TRACING=y
CONFIG
case "$profile" in
vendor) tail+=$'\n# CONFIG_KPROBES is not set\n# CONFIG_DEBUG_INFO_BTF is not set' ;;
*) tail+=$'\nCONFIG_KPROBES=y' ;;
esac
extra=""
case "$profile" in
debug) read -r -d '' extra <<'CONFIG' || true
CONFIG_DEBUG_KERNEL=y
CONFIG_KASAN=y
CONFIG_KASAN_GENERIC=y
CONFIG_KASAN_INLINE=y
CONFIG_KASAN_VMALLOC=y
CONFIG_PROVE_LOCKING=y
CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_DEBUG_PREEMPT=y
CONFIG_DEBUG_OBJECTS=y
CONFIG_DEBUG_OBJECTS_FREE=y
CONFIG_DEBUG_OBJECTS_TIMERS=y
CONFIG_DEBUG_OBJECTS_WORK=y
CONFIG_DEBUG_OBJECTS_RCU_HEAD=y
CONFIG_DEBUG_OBJECTS_PERCPU_COUNTER=y
CONFIG_DEBUG_OBJECTS_ENABLE_DEFAULT=1
CONFIG_DEBUG_KMEMLEAK=y
CONFIG_DEBUG_KMEMLEAK_MEM_POOL_SIZE=40000
# CONFIG_DEBUG_KMEMLEAK_DEFAULT_OFF is not set
# CONFIG_DEBUG_KMEMLEAK_AUTO_SCAN is not set
CONFIG_DEBUG_LIST=y
CONFIG_FAULT_INJECTION=y
CONFIG_FAILSLAB=y
CONFIG_FAIL_PAGE_ALLOC=y
CONFIG_FAULT_INJECTION_DEBUG_FS=y
CONFIG_FUNCTION_ERROR_INJECTION=y
CONFIG_FAIL_FUNCTION=y
CONFIG_HOTPLUG_CPU=y
CONFIG_CPU_HOTPLUG_STATE_CONTROL=y
# CONFIG_DEBUG_INFO is not set
CONFIG
	;;
map) read -r -d '' extra <<'CONFIG' || true
CONFIG_HZ_250=y
CONFIG_SLUB_CPU_PARTIAL=y
CONFIG_SLAB_MERGE_DEFAULT=y
CONFIG_SLAB_FREELIST_RANDOM=y
CONFIG_SLAB_FREELIST_HARDENED=y
CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y
CONFIG_MEM_ALLOC_PROFILING=y
# CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT is not set
# CONFIG_MEM_ALLOC_PROFILING_DEBUG is not set
CONFIG_DYNAMIC_FTRACE_WITH_REGS=y
CONFIG_KPROBES_ON_FTRACE=y
CONFIG_KPROBE_EVENTS=y
CONFIG_PERF_EVENTS=y
CONFIG_BPF_SYSCALL=y
CONFIG_BPF_JIT=y
CONFIG_BPF_EVENTS=y
CONFIG_DEBUG_KERNEL=y
CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=y
CONFIG_DEBUG_INFO_BTF=y
CONFIG
	;;
vendor) read -r -d '' extra <<'CONFIG' || true
CONFIG_HZ_100=y
CONFIG_SLAB_FREELIST_RANDOM=y
CONFIG_SLAB_FREELIST_HARDENED=y
CONFIG
	;;
esac
request="$head
CONFIG_LOCALVERSION=\"-sa-$profile\"
# CONFIG_LOCALVERSION_AUTO is not set
CONFIG_DEFAULT_HOSTNAME=\"sa-$profile\"
$preempt
$middle
$tracers
$tail
$extra"

# Bump when the way of building changes (the request is hashed with it).
layout=3
sha=$(printf '%s\n' "layout $layout" "$request" | sha256sum | cut -c1-16)
if [ -f "$envf" ] && grep -qx "DEBUG_CONFIG_SHA=$sha" "$envf" &&
   { [ -z "$image" ] || [ -f "$(sed -n 's/^VMLINUZ=//p' "$envf")" ]; } &&
   [ $config_only = 0 ]; then
	log "$profile kernel $(sed -n 's/^KVER=//p' "$envf") ($pkgver): cached"
	exit 0
fi

src=$(sa_linux_source "$suite" "$pkgver" "$bkver")
[ -f "$src/Makefile" ] || die "no kernel tree in $src"
[ $fetch_only = 0 ] || { log "$profile kernel's sources: $src"; exit 0; }
bld="$dir/build"
# --config-only: in a directory of its own; the built kernel stays.
[ $config_only = 0 ] || bld="$dir/config-only"
mkdir -p "$dir"

jobs=${SA_DEBUG_JOBS:-$(nproc)}
kmk() {
	make -C "$src" O="$bld" -j"$jobs" ARCH="$karch" \
		${cross:+CROSS_COMPILE=$cross} "$@"
}
command -v "${cross}gcc" >/dev/null || die "no ${cross}gcc here (setup-deps.sh)"

log "configuring (allnoconfig + $(grep -c . <<< "$request") requested options, $karch)"
rm -rf "$bld"
[ $config_only = 1 ] || rm -f "$envf"
mkdir -p "$bld"
# ARCH=x86_64: 64-bit from the start, so that the defaults that depend
# on it (FRAME_WARN 2048, ...) are the 64-bit ones.
kmk -s allnoconfig >/dev/null
printf '%s\n' "$request" > "$dir/sa-$profile.config"
cat "$dir/sa-$profile.config" >> "$bld/.config"
kmk -s olddefconfig >/dev/null 2>"$bld/config.log" ||
	{ cat "$bld/config.log" >&2; die "olddefconfig failed"; }
missing=()
while IFS= read -r line; do
	case "$line" in
	'# CONFIG_'*' is not set')
		opt=${line#\# }
		opt=${opt%% *}
		! grep -q "^$opt=" "$bld/.config" || missing+=("$line")
		;;
	CONFIG_*)
		grep -qxF "$line" "$bld/.config" || missing+=("$line")
		;;
	esac
done <<< "$request"
[ ${#missing[@]} -eq 0 ] ||
	die "not in the final .config (dependencies?): ${missing[*]}"
log "config: $(grep -c '=y' "$bld/.config") options =y; requested ones all set"
[ $config_only = 0 ] || { log "config in $bld/.config"; exit 0; }

log "building ${image:+$image and }modules_prepare (make -j$jobs; log: $bld/build.log)"
start=$(date +%s)
if [ -n "$image" ]; then
	kmk all modules_prepare > "$bld/build.log" 2>&1 &
else
	kmk modules_prepare > "$bld/build.log" 2>&1 &
fi
mpid=$!
trap 'kill "$mpid" 2>/dev/null || true' EXIT
while kill -0 "$mpid" 2>/dev/null; do
	for _ in $(seq 60); do
		kill -0 "$mpid" 2>/dev/null || break
		sleep 1
	done
	kill -0 "$mpid" 2>/dev/null || break
	log "  $(( $(date +%s) - start )) s: $(grep -c '^  CC ' "$bld/build.log" || true) files compiled"
done
rc=0
wait "$mpid" || rc=$?
trap - EXIT
secs=$(( $(date +%s) - start ))
if [ $rc -ne 0 ]; then
	tail -n 40 "$bld/build.log" >&2
	die "$profile kernel build failed after $secs s (see $bld/build.log)"
fi
kver=$(cat "$bld/include/config/kernel.release")
vmlinuz=""
if [ -n "$image" ]; then
	vmlinuz="$bld/arch/${karch/x86_64/x86}/boot/$image"
	[ -f "$vmlinuz" ] || die "no $vmlinuz"
	[ -f "$bld/Module.symvers" ] || die "no Module.symvers in $bld"
fi
log "$profile kernel $kver built in $secs s ($(nproc) CPUs, make -j$jobs," \
	"$(grep -c '^  CC ' "$bld/build.log" || true) files compiled${image:+,}" \
	"${image:+$image $(du -h "$vmlinuz" | cut -f1)}"

cat > "$envf.new" <<ENV
KVER=$kver
PKGVER=$pkgver
KDIR=$bld
VMLINUZ=$vmlinuz
KCC=${cross}gcc
SUITE=$suite
ARCH=$arch
BUSYBOX=$busybox
CROSS_COMPILE=$cross
KARCH=${karch/x86_64/}
DEBUG_BUILD_SECS=$secs
DEBUG_CONFIG_SHA=$sha
ENV
mv "$envf.new" "$envf"
# Builds of older versions are not needed any more.
for old in "$SA_CACHE/$profile"/*/; do
	case "$old" in
	"$dir/") ;;
	*) rm -rf "$old" ;;
	esac
done
log "$profile kernel env: $envf"
