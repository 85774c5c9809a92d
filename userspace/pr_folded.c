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

int pr_folded(const struct sa_rows *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		uint64_t v = r->items[i].v[r->sel->keys[0]].mag;
		struct sa_caller c;

		if (!v)
			continue;	/* a flame graph has no room for it */
		sa_caller_split(r->items[i].row->caller, &c);
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
		sa_esc(stdout, r->items[i].row->caller, c.slen, SA_ESC_FRAME);
		if (c.via) {	/* (1.2) the helper it called: a frame of its own */
			putchar(';');
			sa_esc(stdout, c.via, c.vlen, SA_ESC_FRAME);
		}
		printf(" %" PRIu64 "\n", v);
	}
	return 0;
}
