# SPDX-License-Identifier: GPL-2.0
#
# slab_account: kernel module (Kbuild), reader (userspace/), tests.
#
#   make                     module against KDIR, and the reader
#   make install             modules_install + reader under PREFIX
#   make install-reader      the reader alone (DESTDIR= for a board's rootfs)
#   make demo                boot Debian's 6.1 kernel in QEMU and show a report
#   make shell               the demo's guest with a shell on this terminal
#   make gate-demo           the driver author's loop and slabacct --check in
#                            a QEMU boot (docs/gate.md)
#   make check               every test, every kernel of the matrix (CI)
#   make matrix              the kernel matrix only
#   make debug-check         the suite and the stress on a KASAN/lockdep/kmemleak
#                            build of Debian's 6.1 (scripts/debug-kernel.sh)
#   make bench               the overhead benchmark in QEMU (table + build/bench/results.json),
#                            6.1 and the peers' boots on the MAP kernel (scripts/build-kernel.sh)
#   make board BOARD=trixie:riscv64:riscv64
#                            the module and a static reader for a Debian board
#                            kernel (suite:arch:flavour) in build/board/<release>/,
#                            and how to load them (scripts/board.sh)
#
# For any other board kernel (a vendor tree):
#   make KDIR=<its build tree> ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
# With CROSS_COMPILE the reader is built with $(CROSS_COMPILE)gcc (or the CC
# given on the command line), statically linked unless STATIC=0: never for
# this machine when the module is for another.

KDIR ?= /lib/modules/$(shell uname -r)/build
PREFIX ?= /usr/local
ROOT := $(CURDIR)
CACHE ?= $(ROOT)/.cache
BUILD ?= $(ROOT)/build

all: module reader

module:
	$(MAKE) -C $(KDIR) M=$(ROOT) modules

# A cross build's reader: the same prefix, static (the board's libc may be
# another); a CC on the command line is the user's choice and kept.
ifneq ($(CROSS_COMPILE),)
ifneq ($(origin CC),command line)
READER_CC := CC=$(CROSS_COMPILE)gcc
endif
READER_ARGS := $(READER_CC) STATIC=$(if $(STATIC),$(STATIC),1)
endif

reader:
	$(MAKE) -C userspace $(READER_ARGS)

install: all
	$(MAKE) -C $(KDIR) M=$(ROOT) modules_install
	$(MAKE) install-reader

# The reader alone (into a board's root file system: DESTDIR=), built as
# `make reader` builds it.
install-reader: reader
	$(MAKE) -C userspace install PREFIX=$(PREFIX) $(READER_ARGS)

# Everything below runs QEMU guests of Debian's kernels (see README).
demo:
	scripts/ci.sh demo

shell:
	scripts/ci.sh shell

gate-demo:
	scripts/ci.sh gate

check:
	scripts/ci.sh check

matrix:
	scripts/ci.sh matrix

debug-check:
	scripts/ci.sh debug

bench:
	scripts/bench.sh

board:
	scripts/board.sh $(BOARD)

clean:
	$(MAKE) -C $(KDIR) M=$(ROOT) clean 2>/dev/null || \
		rm -f *.ko *.o *.mod *.mod.c .*.cmd module/*.o module/.*.cmd \
		      modules.order Module.symvers
	$(MAKE) -C userspace clean
	$(MAKE) -C tests/guest clean KSFT=none
	rm -rf $(BUILD)

.PHONY: all module reader install install-reader demo shell gate-demo check matrix debug-check bench \
	board clean
