// SPDX-License-Identifier: GPL-2.0
/*
 * pr_folded - --folded: one line per call site, `MODULE;FUNCTION;SITE
 * VALUE` (`...;SITE;HELPER VALUE` for a caller unwrapped from an
 * allocation helper), the folded stacks flamegraph.pl, inferno and
 * speedscope read.
 */
#ifndef PR_FOLDED_H
#define PR_FOLDED_H

#include "sa_rows.h"

/*
 * @r's rows as folded stacks weighed by the first sort key; rows of 0 left
 * out; a retired load's module frame is "MODULE (load N, unloaded)" (1.3).
 * 0, or -1 without memory (said on stderr).
 */
int pr_folded(const struct sa_rows *r);

#endif /* PR_FOLDED_H */
