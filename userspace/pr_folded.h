// SPDX-License-Identifier: GPL-2.0
/*
 * pr_folded - --folded: one line per call site, `MODULE;FUNCTION;SITE
 * VALUE` (`...;SITE;HELPER VALUE` for a caller unwrapped from an
 * allocation helper), the folded stacks flamegraph.pl, inferno and
 * speedscope read.  (1.6) With the stacks file, a captured site's child
 * rows come first, each `FRAME_N;...;FRAME_1[;HELPER] VALUE` (its
 * stack's frames, outermost first: frame 1 is the call site as the row
 * prints it), and the site's line keeps the rest.
 */
#ifndef PR_FOLDED_H
#define PR_FOLDED_H

#include "sa_rows.h"
#include "sa_stacks.h"

/*
 * @r's rows as folded stacks weighed by the first sort key; rows of 0 left
 * out; a retired load's module frame is "MODULE (load N, unloaded)" (1.3).
 * @st: the stacks of the child rows' ` @stack:ID` (NULL: none read).  0,
 * or -1 without memory or for a stack @st lacks (said on stderr).
 */
int pr_folded(const struct sa_rows *r, const struct sa_stacks *st);

#endif /* PR_FOLDED_H */
