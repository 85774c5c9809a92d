// SPDX-License-Identifier: GPL-2.0
/*
 * sa_caller - a caller split into function, call site, module and helper
 * (see sa_caller.h).
 */
#include "sa_caller.h"

#include <string.h>

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

void sa_caller_split(const char *caller, struct sa_caller *c)
{
	size_t n = strlen(caller);
	const char *p, *open;

	memset(c, 0, sizeof(*c));
	c->func = caller;
	c->flen = strcspn(caller, "+ ");
	/* " via HELPER": the last " via " with one non-empty word after it */
	for (p = caller + n; p > caller && !is_blank(p[-1]); p--)
		;
	if (p != caller + n && (size_t)(p - caller) >= 5 &&
	    strncmp(p - 5, " via ", 5) == 0 && p - 5 != caller) {
		c->via = p;
		c->vlen = (size_t)(caller + n - p);
		n = (size_t)(p - 5 - caller);
	}
	c->slen = n;
	/* " [MODULE]" at the end of the rest: no blank inside, not empty */
	if (n < 4 || caller[n - 1] != ']')
		return;
	for (open = caller + n - 2; open > caller; open--) {
		if (*open == '[')
			break;
		if (is_blank(*open))
			return;
	}
	if (open <= caller || open[-1] != ' ' || open + 1 == caller + n - 1)
		return;
	c->mod = open + 1;
	c->mlen = (size_t)(caller + n - 1 - c->mod);
	c->slen = (size_t)(open - 1 - caller);
}

const char *sa_caller_module(const char *caller, size_t *len)
{
	struct sa_caller c;

	sa_caller_split(caller, &c);
	*len = c.mlen;
	return c.mod;
}

const char *sa_caller_via(const char *caller, size_t *len)
{
	struct sa_caller c;

	sa_caller_split(caller, &c);
	*len = c.vlen;
	return c.via;
}
