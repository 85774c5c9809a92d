// SPDX-License-Identifier: GPL-2.0
/*
 * sa_gate - the gate's model: each rule (sa_rules.h) judged over the
 * inputs of slabacct --check (a current snapshot, a baseline, the unloads
 * file joined with the current snapshot), giving a result: pass or fail, a
 * line that says what was measured, and the offending items (call sites,
 * functions, modules, caches, unloads) with their numbers, worst first.
 * A rule whose selection finds nothing in what it reads fails, saying so,
 * unless it is `optional`.
 * The printers (pr_gate.c) write the results as text, KTAP, JUnit XML and
 * JSON; cmd_check.c adds the growing verdict of two detail files.
 */
#ifndef SA_GATE_H
#define SA_GATE_H

#include <stddef.h>
#include <stdint.h>

#include "sa_cgroup.h"
#include "sa_num.h"
#include "sa_parse.h"
#include "sa_retired.h"
#include "sa_rules.h"
#include "sa_stacks.h"

struct sa_gate_in {
	const struct sa_file *cur;
	const struct sa_file *base;	/* or NULL */
	const struct sa_ujoin *uj;	/* the unloads joined with cur, or NULL */
};

struct sa_offender {
	char *name;		/* the item: a call site, function, module, cache, unload */
	char *detail;		/* its numbers against the limit */
	struct num v;		/* the ranking's number (worst first) */
};

struct sa_result {
	const struct sa_rule *rule;
	int pass;
	char *summary;		/* what was measured, one line */
	struct sa_offender *off;
	size_t noff, cap;
};

/*
 * Does @r's selection take a row of @caller, @type_str (retired: a retired
 * row)?  (1.6) @row: the main file's row, whose context the cgroup, task,
 * node and stack selectors look at (NULL: a row of no context, which
 * they do not take).
 */
int sa_gate_selects(const struct sa_rule *r, const char *caller, const char *type_str,
		    int retired, const struct sa_row *row);

/*
 * (1.6) Resolve @rs's context selectors: a cgroup's PATH to its id in
 * @cg, a stack's FUNCTION to the ids of @st's stacks with a frame in it
 * (@cg and @st NULL when no rule needs them).  0; or -1 with *@err a
 * malloc()ed message (NULL: no memory): a cgroup path @cg does not have.
 */
int sa_gate_resolve(struct sa_rules *rs, const struct sa_cgroups *cg,
		    const struct sa_stacks *st, char **err);

/*
 * Judge @r over @in into @res (free it with sa_result_free()).  A rule
 * whose input is missing (growth, growing without a baseline,
 * left-at-unload without an unloads file) is the caller's to refuse
 * first.  0, or -1 without memory.
 */
int sa_gate_eval(const struct sa_gate_in *in, const struct sa_rule *r, struct sa_result *res);

/* Why a rule may select nothing, as its failure says (sa_gate_nothing()'s @hint). */
#define SA_GATE_HINT_LOADED "a misspelt name, or did it never load or allocate?"
#define SA_GATE_HINT_UNLOADED "a misspelt name, or did it never load or unload?"

/*
 * @r selected nothing in what it reads: a result whose summary is "no WHAT
 * [of SELECTION] in WHERE: nothing to judge (HINT)", a failure unless the
 * rule says `optional` (then it holds).  @res is @r's (sa_gate_eval()'s
 * start).  0, or -1 without memory.
 */
int sa_gate_nothing(const struct sa_rule *r, struct sa_result *res, const char *what,
		    const char *where, const char *hint);

/* Add an offender (@name and @detail malloc()ed, taken; NULL: no memory). 0 or -1. */
int sa_result_add(struct sa_result *res, char *name, char *detail, struct num v);

/* Sort the offenders, worst first; 0 or -1 without memory. */
int sa_result_sort(struct sa_result *res);

void sa_result_free(struct sa_result *res);

/* The selection of @r as words ("module sa_leak not function f"), or "all call sites"; malloc()ed. */
char *sa_gate_selection(const struct sa_rule *r);

#endif /* SA_GATE_H */
