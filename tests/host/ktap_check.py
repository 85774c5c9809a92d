#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# ktap_check.py KUNIT_DIR FILE: parse FILE (KTAP) with the kernel's own
# parser, tools/testing/kunit/kunit_parser.py of KUNIT_DIR (a kernel tree's
# tools/testing/kunit), and print what it understood: the run's status and
# counts, then each test's status, number and name, and its diagnostic
# lines' count.  run_tests.sh compares that with what the rules gave.
# kunit_parser's own progress lines go to /dev/null.
import contextlib
import io
import sys

sys.path.insert(0, sys.argv[1])
import kunit_parser  # noqa: E402

with open(sys.argv[2], encoding='utf-8') as f:
    lines = f.read().splitlines()
sink = io.StringIO()
if hasattr(kunit_parser, 'stdout'):	# 6.x's kunit_printer: a stream of its own
    kunit_parser.stdout._output = sink
with contextlib.redirect_stdout(sink):
    test = kunit_parser.parse_run_tests(lines)
c = test.counts
print(f'{test.status.name} passed:{c.passed} failed:{c.failed} crashed:{c.crashed} '
      f'skipped:{c.skipped} errors:{c.errors}')
for i, t in enumerate(test.subtests, 1):
    diag = [l for l in t.log if l.startswith('# ')]
    print(f'{i} {t.status.name} {t.name} ({len(diag)} diagnostic lines)')
