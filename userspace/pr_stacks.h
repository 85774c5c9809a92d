// SPDX-License-Identifier: GPL-2.0
/*
 * pr_stacks - --stacks: each captured call site (format 1.6) as a tree of
 * the stacks that reached it, from the site outward: a branch per caller
 * at each depth, with the bytes, live bytes, live objects and
 * allocs/frees of the stacks under it (with the detail file, the age of
 * their oldest live object), and what was not captured on a line of its
 * own.  From a 2.0 stacks file the line where a stack ends (its last
 * frame) says, in brackets, `stack ID, first: pid P[ tid T] comm C[ cgroup
 * PATH]` (the tid when it is not the pid; the cgroup's path under @cg, or
 * cgroup#ID) or `stack ID, first: irq`: the context of the allocation
 * that stored it.
 */
#ifndef PR_STACKS_H
#define PR_STACKS_H

#include "sa_cgroup.h"
#include "sa_detail.h"
#include "sa_rows.h"
#include "sa_stacks.h"

/*
 * The trees of @r's call sites that have child rows with a stack, in
 * @r's order (with --top N the first N of them: the sites without a
 * stack are not counted), branches in the order of the first sort key;
 * with @d (the detail file, or NULL) a column `oldest`: the age in
 * seconds of the oldest live object of the rows under each line, `-`
 * when @d has none.  0, or -1 without memory or for a stack @st lacks
 * (said on stderr).
 */
int pr_stacks(const struct sa_rows *r, const struct sa_stacks *st, const struct sa_detail *d,
	      const struct sa_cgroups *cg);

/*
 * --stacks --json: the same sites, each with its numbers, those of its
 * rows without a stack (`not_captured`, when it has some) and its stacks
 * (rows of one stack summed), heaviest first by the first sort key, each
 * with its id, numbers, first context (a 2.0 stacks file) and frames; with
 * @d each `oldest` (when it has live objects).  0, or -1 without memory.
 */
int pr_stacks_json(const struct sa_rows *r, const struct sa_stacks *st,
		   const struct sa_detail *d, const struct sa_cgroups *cg);

#endif /* PR_STACKS_H */
