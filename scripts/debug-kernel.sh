#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh [--print-env] [--config-only]
#
# The test suite's debug kernel (KASAN, lockdep, kmemleak... on Debian's
# 6.1): build-kernel.sh's debug profile, under $SA_CACHE/debug/.
exec "$(dirname "$0")/build-kernel.sh" --profile debug "$@"
