// SPDX-License-Identifier: GPL-2.0
/*
 * sa_caller - a caller split into function, call site, module, helper and
 * retired load (see sa_caller.h).
 */
#include "sa_caller.h"
#include "sa_ctx.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNLOADED "unloaded#"

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* N of "unloaded#N" (@len bytes at @s), N >= 1 decimal; 0 if it is not one. */
static uint64_t unloaded_load(const char *s, size_t len)
{
	size_t plen = strlen(UNLOADED), i;
	uint64_t v = 0;

	if (len <= plen || len - plen > 19 || s[plen] == '0')
		return 0;
	for (i = plen; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	return v;
}

void sa_caller_split(const char *caller, struct sa_caller *c)
{
	size_t n = sa_ctx_find(caller);	/* (1.6) a child row's context is last: not the site's */
	const char *p, *open;

	memset(c, 0, sizeof(*c));
	c->func = caller;
	c->flen = strcspn(caller, "+ ");
	/* (1.3) " unloaded#N": always the last word */
	for (p = caller + n; p > caller && !is_blank(p[-1]); p--)
		;
	if (p > caller && p[-1] == ' ' && p - 1 != caller &&
	    strncmp(p, UNLOADED, strlen(UNLOADED)) == 0) {
		c->unloaded = unloaded_load(p, (size_t)(caller + n - p));
		if (c->unloaded)
			n = (size_t)(p - 1 - caller);
		else
			c->bad_unloaded = 1;
	}
	c->klen = n;
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

uint64_t sa_caller_unloaded(const char *caller)
{
	struct sa_caller c;

	sa_caller_split(caller, &c);
	return c.mod ? c.unloaded : 0;
}

size_t sa_caller_module_name(const struct sa_caller *c, char *buf, size_t n)
{
	int w;

	if (!c->mod)
		w = snprintf(buf, n, "vmlinux");
	else if (c->unloaded)
		w = snprintf(buf, n, "%.*s (load %" PRIu64 ", unloaded)", (int)c->mlen, c->mod,
			     c->unloaded);
	else
		w = snprintf(buf, n, "%.*s", (int)c->mlen, c->mod);
	return w > 0 ? (size_t)w : 0;
}

char *sa_caller_module_dup(const struct sa_caller *c)
{
	size_t n = sa_caller_module_name(c, NULL, 0) + 1;
	char *name = malloc(n);

	if (name)
		sa_caller_module_name(c, name, n);
	return name;
}
