// SPDX-License-Identifier: GPL-2.0
/*
 * sa_rules - the gate's rules (slabacct --check, docs/reader.md "The
 * gate"), from --rule RULE or a rules file: one rule per line, `#` starts
 * a comment, blank lines are skipped.  A rule is words separated by
 * blanks:
 *
 *   RULE      := no NOUN [SCOPE] {SELECTOR} [optional]
 *              | QUANTITY <= LIMIT [SCOPE] {SELECTOR} [optional]
 *                (SCOPE, SELECTORs and optional in any order)
 *   NOUN      := growing | left-at-unload | live-after-unload
 *   QUANTITY  := live | objs | slack | growth
 *   LIMIT     := SIZE (64K, 2M: 1024 based) | PERCENT (10%, 12.5%: slack, growth)
 *   SCOPE     := per site | per function | per module | per cache
 *   SELECTOR  := [not] module NAME | [not] function NAME | [not] site SITE
 *              | [not] cache NAME | [not] type kmalloc|cache|multi|mixed
 *              | unloaded | loaded
 *              | [not] cgroup PATH|ID|irq | [not] task COMM|irq | [not] node N
 *              | [not] stack FUNCTION
 *                (1.6: the rows of a context, or of the captured stacks
 *                with a frame in FUNCTION; limit rules only)
 *
 * A rule whose selection finds nothing in what it reads fails (a misspelt
 * name, a driver that never loaded), unless it says `optional`: then it
 * holds.
 * Every error says where (FILE:LINE:COLUMN, or --rule N:COLUMN), the rule,
 * what is wrong and what was expected.
 */
#ifndef SA_RULES_H
#define SA_RULES_H

#include <stddef.h>
#include <stdint.h>

enum sa_rule_kind { SA_R_LIMIT, SA_R_GROWING, SA_R_LEFT, SA_R_LIVE_AFTER };
enum sa_rule_qty { SA_Q_LIVE, SA_Q_OBJS, SA_Q_SLACK, SA_Q_GROWTH };
enum sa_rule_scope { SA_S_ALL, SA_S_SITE, SA_S_FUNCTION, SA_S_MODULE, SA_S_CACHE };
enum sa_sel_kind { SA_SEL_MODULE, SA_SEL_FUNCTION, SA_SEL_SITE, SA_SEL_CACHE, SA_SEL_TYPE,
		   SA_SEL_UNLOADED, SA_SEL_LOADED,
		   SA_SEL_CGROUP, SA_SEL_TASK, SA_SEL_NODE, SA_SEL_STACK };	/* (1.6) contexts */

/* The selectors' words, in enum sa_sel_kind's order. */
extern const char *const sa_sel_words[];

extern const char *const sa_scope_names[];

struct sa_sel {
	enum sa_sel_kind kind;
	int neg;		/* `not` */
	char *arg;		/* NAME, SITE or TYPE; NULL for unloaded and loaded */
	/*
	 * (1.6) Set by sa_gate_resolve(): a cgroup's or node's id (irq: the
	 * interrupt context), the ids of the stacks with a frame in a
	 * stack's FUNCTION (sorted).
	 */
	int irq;
	uint64_t id;
	uint64_t *stacks;
	size_t nstacks;
};

struct sa_rule {
	char *text;		/* the words joined by one blank: the rule's name */
	char *where;		/* FILE:LINE or --rule N */
	enum sa_rule_kind kind;
	enum sa_rule_qty qty;	/* SA_R_LIMIT */
	int pct;		/* the limit is a percentage: */
	uint64_t limit;		/* bytes, objects, or hundredths of a percent */
	enum sa_rule_scope scope;
	struct sa_sel *sel;
	size_t nsel;
	int site_sel;		/* a positive function, site, cache or type selector */
	int optional;		/* `optional`: selecting nothing holds */
	int ctx_sel;		/* (1.6) a cgroup, task, node or stack selector */
};

struct sa_rules {
	struct sa_rule *r;
	size_t n, cap;
};

/*
 * Parse one rule @text (NUL terminated, no newline; columns count from its
 * first byte) into @rs, @where naming it in messages (FILE:LINE, --rule
 * N).  0; or -1 with *@err a malloc()ed message "WHERE:COL: rule 'TEXT':
 * what; expected ..." (NULL: no memory).
 */
int sa_rule_add(struct sa_rules *rs, const char *text, const char *where, char **err);

/* Each line of a rules file (@len bytes of @buf, named @name). 0 or -1 as sa_rule_add(). */
int sa_rules_parse_buffer(struct sa_rules *rs, const char *buf, size_t len, const char *name,
			  char **err);

void sa_rules_free(struct sa_rules *rs);

/* The limit as the rule wrote it, normalized: 64K -> 65536 bytes, 12.5% (into @buf). */
void sa_rule_limit_text(const struct sa_rule *r, char *buf, size_t n);

#endif /* SA_RULES_H */
