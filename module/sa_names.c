// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: call sites' names.
 *
 * A name is resolved once (kallsyms, as %pS prints it) and kept in a
 * bump-allocated arena, so that reading the file costs a copy per row,
 * not a symbol lookup, and so that a site keeps its name after its code
 * is gone: names are resolved when the file is read, and for every site
 * not yet named when a module goes live (its __init code is then freed)
 * or goes away (sa_loads.c's notifier).  Everything here runs in process
 * context under sa_ctl_lock; the probes never touch it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "sa_core.h"
#include "sa_ctx.h"
#include "sa_names.h"
#include "sa_sites.h"

/* sa_site_cold.sym: 0 not resolved, else one of these or offset + 1. */
#define SA_SYM_RAW	U32_MAX		/* no symbol: print the address */
#define SA_SYM_LOOKUP	(U32_MAX - 1)	/* no room: look it up each read */
/* Bytes of names per site: most %pS strings are shorter. */
#define SA_NAME_ROOM	48

static char *sa_names;
static u32 sa_names_size, sa_names_used;

size_t sa_names_bytes(unsigned long sites)
{
	return min_t(unsigned long, sites * SA_NAME_ROOM, SA_SYM_LOOKUP - 1);
}

int sa_names_alloc(unsigned long sites, size_t *bytes)
{
	sa_names_size = sa_names_bytes(sites);
	sa_names_used = 0;
	*bytes = sa_names_size;
	sa_names = sa_zalloc(sa_names_size);
	return sa_names ? 0 : -ENOMEM;
}

void sa_names_free(void)
{
	vfree(sa_names);
	sa_names = NULL;
}

/*
 * Another tool's kretprobe on an allocator replaces the function's return
 * address with its trampoline's, which the kmem events then report as the
 * call site: the caller is hidden, and nothing of ours gives it back (our
 * own krealloc kretprobe recharges its objects).  Such sites are marked
 * by name, and counted in the file's header.
 */
static const char *const sa_trampolines[] = {
	"kretprobe_trampoline+", "__kretprobe_trampoline+",
	"arch_rethook_trampoline+", "rethook_trampoline+",
};

static bool sa_name_is_trampoline(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sa_trampolines); i++)
		if (!strncmp(name, sa_trampolines[i],
			     strlen(sa_trampolines[i])))
			return true;
	return false;
}

/*
 * Resolve and keep the name of @e; @buf holds it on return when it was
 * looked up (not a context row's, which is its parent's).
 */
static u32 sa_name_resolve(struct sa_site *e, char *buf)
{
	struct sa_site_cold *c = sa_site_cold(e);
	const struct sa_ctx_key *k = sa_ctx_key_of(e - sa_sites);
	size_t len;

	/*
	 * A context row's name is its parent's, resolved now if it was not
	 * yet (a parent whose own row is empty is not shown), and kept once.
	 */
	if (k) {
		struct sa_site_cold *pc = &sa_site_colds[k->parent - 1];

		if (!pc->sym)
			sa_name_resolve(sa_site_at(k->parent - 1), buf);
		if (pc->sym != SA_SYM_LOOKUP) {
			c->hidden = pc->hidden;
			c->sym = pc->sym;
			return c->sym;
		}
	}
	sprint_symbol(buf, e->call_site);
	c->hidden = sa_name_is_trampoline(buf);
	len = strlen(buf) + 1;
	if (!strncmp(buf, "0x", 2)) {
		c->sym = SA_SYM_RAW;
	} else if (len > sa_names_size - sa_names_used) {
		c->sym = SA_SYM_LOOKUP;
	} else {
		memcpy(sa_names + sa_names_used, buf, len);
		c->sym = sa_names_used + 1;
		sa_names_used += len;
	}
	return c->sym;
}

const char *sa_site_name(struct sa_site *e, char *buf)
{
	u32 sym = sa_site_cold(e)->sym;

	lockdep_assert_held(&sa_ctl_lock);
	if (!sym)
		sym = sa_name_resolve(e, buf);
	if (sym == SA_SYM_RAW)
		return NULL;
	if (sym == SA_SYM_LOOKUP) {
		sprint_symbol(buf, e->call_site);
		return buf;
	}
	return sa_names + sym - 1;
}

void sa_name_keep(struct sa_site *e)
{
	static char buf[KSYM_SYMBOL_LEN];	/* under sa_ctl_lock */

	lockdep_assert_held(&sa_ctl_lock);
	if (!sa_site_cold(e)->sym)
		sa_name_resolve(e, buf);
}

void sa_names_resolve_all(void)
{
	static char buf[KSYM_SYMBOL_LEN];	/* under sa_ctl_lock */
	unsigned int i, n = sa_sites_seen();

	for (i = 0; i < n; i++) {
		struct sa_site *e = sa_site_at(i);

		if (sa_site_ready(e) && !sa_site_cold(e)->sym)
			sa_name_resolve(e, buf);
		if (!(i % 256))
			cond_resched();
	}
}
