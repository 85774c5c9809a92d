// SPDX-License-Identifier: GPL-2.0
/*
 * pr_folded - folded stacks for flame graphs (see pr_folded.h).
 */
#include "pr_folded.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "sa_caller.h"
#include "sa_esc.h"

/* The call site of @c (in @caller) and its helper: the line's last frames. */
static void print_site(const char *caller, const struct sa_caller *c)
{
	sa_esc(stdout, caller, c->slen, SA_ESC_FRAME);
	if (c->via) {	/* (1.2) the helper it called: a frame of its own */
		putchar(';');
		sa_esc(stdout, c->via, c->vlen, SA_ESC_FRAME);
	}
}

/* Today's line of a row: MODULE;FUNCTION;SITE[;HELPER] VALUE. */
static int print_row(const char *caller, uint64_t v)
{
	struct sa_caller c;

	sa_caller_split(caller, &c);
	if (c.unloaded) {	/* (1.3) a retired load: "MODULE (load N, unloaded)" */
		char *name = sa_caller_module_dup(&c);

		if (!name) {
			fputs("slabacct: out of memory\n", stderr);
			return -1;
		}
		sa_esc_str(stdout, name, SA_ESC_FRAME);
		free(name);
	} else if (c.mod) {
		sa_esc(stdout, c.mod, c.mlen, SA_ESC_FRAME);
	} else {
		fputs("vmlinux", stdout);
	}
	putchar(';');
	sa_esc(stdout, c.func, c.flen, SA_ESC_FRAME);
	putchar(';');
	print_site(caller, &c);
	printf(" %" PRIu64 "\n", v);
	return 0;
}

/*
 * (1.6) The child rows of item @it with a stack: their frames outermost
 * first, down to frame 1 (the call site), then the helper if any, each
 * with its own value; *@rest is left with the
 * item's value less theirs.  0, or -1 (said on stderr).
 */
static int print_stacks(const struct sa_rows *r, const struct sa_item *it,
			const struct sa_stacks *st, uint64_t *rest)
{
	const struct sa_row **rows;
	size_t n = sa_rows_site_rows(r, it, &rows), i, k;
	int key = r->sel->keys[0];

	if (n == (size_t)-1) {
		fputs("slabacct: out of memory\n", stderr);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct sa_stack *s = sa_stacks_get(st, rows[i]->cx.stack);
		struct sa_caller c;

		if (!rows[i]->cx.stack || !rows[i]->v[key])
			continue;
		if (!s) {
			fprintf(stderr, "slabacct: %s:%lu: stack %" PRIu64 " is not in %s (read the two files together)\n",
				r->raw->name, rows[i]->line, rows[i]->cx.stack, st->name);
			free(rows);
			return -1;
		}
		for (k = s->n; k-- > 0;) {	/* frame 1, the last, is the call site */
			sa_esc_str(stdout, s->frames[k], SA_ESC_FRAME);
			if (k)
				putchar(';');
		}
		sa_caller_split(rows[i]->caller, &c);
		if (c.via) {	/* (1.2) the helper it called: a frame of its own */
			putchar(';');
			sa_esc(stdout, c.via, c.vlen, SA_ESC_FRAME);
		}
		printf(" %" PRIu64 "\n", rows[i]->v[key]);
		*rest -= rows[i]->v[key];
	}
	free(rows);
	return 0;
}

int pr_folded(const struct sa_rows *r, const struct sa_stacks *st)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		uint64_t v = r->items[i].v[r->sel->keys[0]].mag;

		if (!v)
			continue;	/* a flame graph has no room for it */
		if (st && print_stacks(r, &r->items[i], st, &v))
			return -1;
		if (v && print_row(r->items[i].row->caller, v))
			return -1;
	}
	return 0;
}
