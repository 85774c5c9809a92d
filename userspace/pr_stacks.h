// SPDX-License-Identifier: GPL-2.0
/*
 * pr_stacks - --stacks: each captured call site (format 1.6) as a tree of
 * the stacks that reached it, from the site outward: a branch per caller
 * at each depth, with the bytes, live bytes, live objects and
 * allocs/frees of the stacks under it, and the site's own row (what was
 * not captured) on a line of its own.
 */
#ifndef PR_STACKS_H
#define PR_STACKS_H

#include "sa_rows.h"
#include "sa_stacks.h"

/*
 * The trees of @r's call sites that have child rows with a stack, in
 * @r's order, branches in the order of the first sort key.  0, or -1
 * without memory or for a stack @st lacks (said on stderr).
 */
int pr_stacks(const struct sa_rows *r, const struct sa_stacks *st);

#endif /* PR_STACKS_H */
