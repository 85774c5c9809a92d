# SPDX-License-Identifier: GPL-2.0
#
# slab_account: kernel module (Kbuild), reader (userspace/), tests.
#
#   make                     module against KDIR, and the reader
#   make install             modules_install + reader under PREFIX
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
#
# For a board: make KDIR=<its headers> ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-

KDIR ?= /lib/modules/$(shell uname -r)/build
PREFIX ?= /usr/local
ROOT := $(CURDIR)
CACHE ?= $(ROOT)/.cache
BUILD ?= $(ROOT)/build

all: module reader

module:
	$(MAKE) -C $(KDIR) M=$(ROOT) modules

reader:
	$(MAKE) -C userspace

install: all
	$(MAKE) -C $(KDIR) M=$(ROOT) modules_install
	$(MAKE) -C userspace install PREFIX=$(PREFIX)

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

clean:
	$(MAKE) -C $(KDIR) M=$(ROOT) clean 2>/dev/null || \
		rm -f *.ko *.o *.mod *.mod.c .*.cmd module/*.o module/.*.cmd \
		      modules.order Module.symvers
	$(MAKE) -C userspace clean
	$(MAKE) -C tests/guest clean KSFT=none
	rm -rf $(BUILD)

.PHONY: all module reader install demo shell gate-demo check matrix debug-check bench clean
