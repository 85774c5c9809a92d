// SPDX-License-Identifier: GPL-2.0
/*
 * sa_kallsyms - a copy of /proc/kallsyms (--kallsyms FILE): names the call
 * sites a kmem trace gives as raw addresses (tracefs) or as `func+0xoff`
 * (trace-cmd report) as the module writes them, `func+0xoff/0xlen [mod]`.
 */
#ifndef SA_KALLSYMS_H
#define SA_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "sa_base.h"

/* A copy of /proc/kallsyms: text symbols by address. */
struct sa_kallsyms;

/*
 * Read @path (a copy of the board's /proc/kallsyms).  0 and *@ks (free it
 * with sa_kallsyms_free()), or -1 and *@err a malloc()ed message: also
 * for a file whose addresses are all zero (read without root).
 */
int sa_kallsyms_load(struct sa_kallsyms **ks, const char *path, char **err);
void sa_kallsyms_free(struct sa_kallsyms *ks);

/*
 * @addr as %pS writes it, `symbol+0xoff/0xlen [module]`, into @buf (@n
 * bytes); 0, or -1 when no text symbol holds @addr.
 */
int sa_kallsyms_name(const struct sa_kallsyms *ks, uint64_t addr, char *buf,
		     size_t n);

/*
 * "symbol+0xoff" (@s, @len bytes: trace-cmd report's call sites) completed
 * to %pS's "symbol+0xoff/0xlen [module]" in @buf; 0, or -1 when @s is not
 * that, or the symbol is not in the copy or not unique.
 */
int sa_kallsyms_complete(const struct sa_kallsyms *ks, const char *s,
			 size_t len, char *buf, size_t n);

#endif /* SA_KALLSYMS_H */
