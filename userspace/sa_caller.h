// SPDX-License-Identifier: GPL-2.0
/*
 * sa_caller - the one place that splits a caller as the file writes it,
 * `symbol+0xoff/0xlen [module] via helper` (docs/format.md), into its
 * function, call site, module and allocation helper.  Every report that
 * names a module or a function (--module, --by, --folded, --svg, the
 * metrics' labels) takes them from here.
 */
#ifndef SA_CALLER_H
#define SA_CALLER_H

#include <stddef.h>

struct sa_caller {
	const char *func;	/* the symbol: up to the first '+' or blank */
	size_t flen;
	size_t slen;		/* the call site: the caller without " [module]" and " via helper" */
	const char *mod;	/* the module (inside the brackets), or NULL: vmlinux */
	size_t mlen;
	const char *via;	/* (1.2) the helper it was unwrapped from, or NULL */
	size_t vlen;
};

/* Split @caller (NUL terminated) into @c; the pointers point into it. */
void sa_caller_split(const char *caller, struct sa_caller *c);

/* The module of @caller and its length; NULL if none. */
const char *sa_caller_module(const char *caller, size_t *len);

/* (1.2) The helper @caller was unwrapped from and its length; NULL if none. */
const char *sa_caller_via(const char *caller, size_t *len);

#endif /* SA_CALLER_H */
