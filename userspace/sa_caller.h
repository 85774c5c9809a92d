// SPDX-License-Identifier: GPL-2.0
/*
 * sa_caller - the one place that splits a caller as the file writes it,
 * `symbol+0xoff/0xlen [module] via helper unloaded#N` (docs/format.md),
 * into its function, call site, module, allocation helper and the load of
 * the module it was retired from.  Every report that names a module or a
 * function (--module, --by, --folded, --svg, the metrics' labels, the
 * gate's selectors) takes them from here, and the parsers check the
 * callers they read with it.
 */
#ifndef SA_CALLER_H
#define SA_CALLER_H

#include <stddef.h>
#include <stdint.h>

struct sa_caller {
	const char *func;	/* the symbol: up to the first '+' or blank */
	size_t flen;
	size_t slen;		/* the call site: the caller without " [module]", " via helper"
				 * and " unloaded#N" */
	const char *mod;	/* the module (inside the brackets), or NULL: vmlinux */
	size_t mlen;
	const char *via;	/* (1.2) the helper it was unwrapped from, or NULL */
	size_t vlen;
	uint64_t unloaded;	/* (1.3) N of a last " unloaded#N" (N >= 1): the
				 * module's Nth load, since unloaded; 0: none */
	size_t klen;		/* the caller without " unloaded#N" */
	int bad_unloaded;	/* the last word starts "unloaded#" but is not one */
};

/*
 * Split @caller (NUL terminated) into @c; the pointers point into it.
 * (1.6) A context at its end (" @stack:ID ...", as the detail and unloads
 * files name a child row) is left out: the parts are its site's.
 */
void sa_caller_split(const char *caller, struct sa_caller *c);

/* The module of @caller and its length; NULL if none. */
const char *sa_caller_module(const char *caller, size_t *len);

/* (1.2) The helper @caller was unwrapped from and its length; NULL if none. */
const char *sa_caller_via(const char *caller, size_t *len);

/* (1.3) N of @caller's " unloaded#N" (a retired site), or 0. */
uint64_t sa_caller_unloaded(const char *caller);

/*
 * The name of @c's module as reports show it, into @buf (@n bytes, cut to
 * fit): MODULE, `vmlinux` without one, and for a retired site (1.3)
 * `MODULE (load N, unloaded)`.  Returns the length it needed (as snprintf).
 */
size_t sa_caller_module_name(const struct sa_caller *c, char *buf, size_t n);

/* The same name, malloc()ed; NULL without memory. */
char *sa_caller_module_dup(const struct sa_caller *c);

#endif /* SA_CALLER_H */
