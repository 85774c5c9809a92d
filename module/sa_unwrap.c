// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: allocation helpers and the callers behind them.
 *
 * kvmalloc(), mempool_alloc() and their kin allocate on behalf of their
 * caller without passing its address on: the kmem events name a site
 * inside the helper, one row for all its users.  This file owns the table
 * of such helpers -- the names they have had in the kernels slab_account
 * knows, plus the functions the unwrap= parameter names -- found at load
 * by name, and the walk of the stack that finds, for an allocation at a
 * site inside one, the helper's caller.  A site inside a helper never
 * takes the fast path (sa_site.helper, sa_sites.c): only its allocations
 * pay for the walk.
 *
 * The table is written at load before any probe is registered and only
 * read afterwards.  The walk allocates nothing and takes no lock
 * (stack_trace_save(): ORC on x86_64, frame records on arm64), so it runs
 * in any context the probes do.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#include "sa_unwrap.h"

static char *unwrap;
module_param(unwrap, charp, 0444);
MODULE_PARM_DESC(unwrap,
		 "more allocation helpers whose callers the rows name: func1,func2,...");

#define SA_MAX_HELPERS		32
#define SA_HELPER_NAME		40
/* Frames walked: the probe's, the allocator's, the helpers', the caller. */
#define SA_UNWIND_DEPTH		20

struct sa_helper {
	unsigned long start, end;	/* [start, end) of its code */
	bool entry;			/* a kmalloc entry point (below) */
	char name[SA_HELPER_NAME];
};

static struct sa_helper sa_helpers[SA_MAX_HELPERS];
static unsigned int sa_nr_helpers;

/*
 * The kretprobe trampoline's code.  A kretprobed function (our krealloc
 * hook's) returns into it: where the architecture's unwinder does not put
 * the real return address back (riscv's, 7.2), the walk shows the
 * trampoline where the hooked call's caller should be.  Found at load.
 */
static unsigned long sa_tramp_start, sa_tramp_end;

static const char *const sa_tramp_names[] = {
	"arch_rethook_trampoline", "__kretprobe_trampoline",
	"kretprobe_trampoline",
};

static bool sa_is_tramp(unsigned long ret_addr)
{
	return ret_addr > sa_tramp_start && ret_addr <= sa_tramp_end;
}

/*
 * The helpers of the kernels slab_account knows, by every name they have
 * had; those a kernel does not have are skipped.  A mempool's alloc
 * function is called by mempool_alloc() (and at creation and resize by
 * the functions that fill its reserve); the slab ones tail-call the
 * allocator, so the site is in their caller, itself a helper.
 */
static const char *const sa_builtin_helpers[] = {
	/* kvmalloc(), kvzalloc(), kvcalloc() (7.x passes its caller on) */
	"kvmalloc_node", "__kvmalloc_node_noprof",
	/* kvrealloc(): its krealloc() or kvmalloc() (6.12, 7.x) */
	"kvrealloc", "kvrealloc_noprof", "kvrealloc_node_align_noprof",
	"kvmemdup",
	/* mempools */
	"mempool_alloc_slab", "mempool_kmalloc", "mempool_kvmalloc",
	"mempool_alloc", "mempool_alloc_noprof", "mempool_alloc_bulk_noprof",
	"mempool_init_node", "mempool_init", "mempool_init_noprof",
	"mempool_create", "mempool_create_node", "mempool_create_node_noprof",
	"mempool_resize",
	/* kmalloc entry points (below) */
	"__kmalloc", "__kmalloc_track_caller",
};

/*
 * kmalloc entry points whose large path (more than KMALLOC_MAX_CACHE_SIZE:
 * the page allocator's) reports a site inside them, where their other
 * paths report their caller.  Up to 6.0, __kmalloc() and
 * __kmalloc_track_caller() hand a large request to kmalloc_order_trace(),
 * whose event names its own return address: the caller's where the
 * compiler made that a tail call (x86), a place in the entry point where
 * it did not (32-bit ARM 5.10: a 9000-byte kmalloc() of variable size
 * was in a row of __kmalloc's, not its caller's).  Their frames are
 * passed like a helper's, but the row is the caller's own, without
 * ` via `: the same row as its allocations of other sizes.  From 6.1 the
 * large path reports the caller, and no site is inside them.
 */
static const char *const sa_entry_helpers[] = {
	"__kmalloc", "__kmalloc_track_caller",
};

static bool sa_is_entry(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sa_entry_helpers); i++)
		if (!strcmp(name, sa_entry_helpers[i]))
			return true;
	return false;
}

unsigned int sa_helper_of(unsigned long ret_addr)
{
	unsigned int i;

	/* A return address may be just past a call ending its function. */
	for (i = 0; i < sa_nr_helpers; i++)
		if (ret_addr > sa_helpers[i].start &&
		    ret_addr <= sa_helpers[i].end)
			return i + 1;
	return 0;
}

unsigned int sa_unwrap_helpers(void)
{
	return sa_nr_helpers;
}

const char *sa_helper_name(unsigned int helper)
{
	return helper && helper <= sa_nr_helpers ?
	       sa_helpers[helper - 1].name : "?";
}

#ifdef CONFIG_STACKTRACE
unsigned long sa_unwrap_caller(unsigned int helper, unsigned int *via)
{
	unsigned long entries[SA_UNWIND_DEPTH];
	unsigned int i, n, h = 0;

	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	/*
	 * The probe's and the allocator's frames, up to the first helper,
	 * or a trampoline in its place: a hooked function's return into
	 * the site, which is in @helper.  A kmalloc entry point among the
	 * allocator's frames (a helper's kmalloc() goes through __kmalloc())
	 * is passed, unless it is the site's.
	 */
	for (i = 0; i < n; i++) {
		h = sa_helper_of(entries[i]);
		if (!h && sa_is_tramp(entries[i]))
			h = helper;
		if (h && (h == helper || !sa_helpers[h - 1].entry))
			break;
	}
	/* Not the site's helper: this walk is not that allocation's. */
	if (h != helper)
		return 0;
	/* A trampoline passed over stands for @helper itself. */
	*via = sa_helpers[helper - 1].entry ? 0 : helper;
	for (; i < n; i++) {
		if (sa_is_tramp(entries[i]))
			continue;
		h = sa_helper_of(entries[i]);
		if (!h)
			return entries[i];
		/* A kmalloc entry point names no helper in the row. */
		if (!sa_helpers[h - 1].entry)
			*via = h;
	}
	return 0;
}
#else
unsigned long sa_unwrap_caller(unsigned int helper, unsigned int *via)
{
	return 0;
}
#endif

/*
 * Fill the table entry of the function @addr lies in, named as kallsyms
 * names it; false if it has no symbol or is there already.
 */
/*
 * The extent [*start, *end) of the function @addr lies in, and in @buf
 * (KSYM_SYMBOL_LEN) its name as kallsyms gives it; false without one.
 */
static bool sa_sym_extent(unsigned long addr, char *buf, unsigned long *start,
			  unsigned long *end)
{
	unsigned long off, size;
	char *plus;

	sprint_symbol(buf, addr);
	plus = strrchr(buf, '+');
	if (!plus || sscanf(plus, "+%lx/%lx", &off, &size) != 2 || !size)
		return false;
	*plus = '\0';
	*start = addr - off;
	*end = *start + size;
	return true;
}

static bool sa_helper_add(unsigned long addr, char *buf)
{
	struct sa_helper *h = &sa_helpers[sa_nr_helpers];

	if (sa_helper_of(addr + 1) ||
	    !sa_sym_extent(addr, buf, &h->start, &h->end))
		return false;
	strscpy(h->name, buf, SA_HELPER_NAME);
	h->entry = sa_is_entry(h->name);
	sa_nr_helpers++;
	return true;
}

/*
 * A function's address by name, without kallsyms_lookup_name(): a kprobe
 * registered disabled (never armed: the code is not touched) resolves
 * it; they are unregistered together, one RCU grace period in all.
 */
static unsigned int sa_unwrap_lookup(const char *const *names,
				     unsigned int n, bool *user,
				     struct kprobe *kps, struct kprobe **regd,
				     char *buf)
{
	unsigned int i, nregd = 0, added = 0;

	if (!IS_ENABLED(CONFIG_KPROBES)) {
		pr_info("no kprobes in this kernel (CONFIG_KPROBES): the allocation helpers cannot be found by name, their allocations stay in their own rows\n");
		return 0;
	}
	for (i = 0; i < n; i++) {
		kps[i].symbol_name = names[i];
		kps[i].flags = KPROBE_FLAG_DISABLED;
		if (!register_kprobe(&kps[i]))
			regd[nregd++] = &kps[i];
		else if (user[i])
			pr_warn("unwrap: no function %s can be found\n",
				names[i]);
	}
	for (i = 0; i < nregd; i++)
		if (sa_nr_helpers < SA_MAX_HELPERS &&
		    sa_helper_add((unsigned long)regd[i]->addr, buf))
			added++;
	if (nregd)
		unregister_kprobes(regd, nregd);
	return added;
}

/*
 * The trampoline is never probed (kprobes refuse it), but a registration
 * resolves the name to p->addr before it refuses: the address is kept if
 * its symbol has the name asked for.  @kp: scratch, @buf KSYM_SYMBOL_LEN.
 */
static void sa_tramp_find(struct kprobe *kp, char *buf)
{
	unsigned long start, end;
	unsigned int i;

	sa_tramp_start = 0;
	sa_tramp_end = 0;
	if (!IS_ENABLED(CONFIG_KRETPROBES))
		return;
	for (i = 0; i < ARRAY_SIZE(sa_tramp_names); i++) {
		memset(kp, 0, sizeof(*kp));
		kp->symbol_name = sa_tramp_names[i];
		kp->flags = KPROBE_FLAG_DISABLED;
		if (!register_kprobe(kp))
			unregister_kprobe(kp);
		if (IS_ERR_OR_NULL(kp->addr))
			continue;
		if (!sa_sym_extent((unsigned long)kp->addr, buf, &start,
				   &end) ||
		    strcmp(buf, sa_tramp_names[i]))
			continue;
		sa_tramp_start = start;
		sa_tramp_end = end;
		return;
	}
}

void sa_unwrap_init(void)
{
	unsigned int i, n = ARRAY_SIZE(sa_builtin_helpers), max, added;
	const char **names = NULL;
	struct kprobe **regd = NULL;
	struct kprobe *kps = NULL;
	char *list = NULL, *p, *name, *buf = NULL;
	bool *user = NULL;
	size_t len;

	sa_nr_helpers = 0;
	if (!IS_ENABLED(CONFIG_STACKTRACE)) {
		pr_info("no CONFIG_STACKTRACE: allocation helpers are not unwrapped\n");
		return;
	}
	max = n + SA_MAX_HELPERS;
	names = kcalloc(max, sizeof(*names), GFP_KERNEL);
	user = kcalloc(max, sizeof(*user), GFP_KERNEL);
	kps = kcalloc(max, sizeof(*kps), GFP_KERNEL);
	regd = kcalloc(max, sizeof(*regd), GFP_KERNEL);
	buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (unwrap && *unwrap)
		list = kstrdup(unwrap, GFP_KERNEL);
	if (!names || !user || !kps || !regd || !buf ||
	    (unwrap && *unwrap && !list)) {
		pr_warn("no memory to find the allocation helpers: not unwrapped\n");
		goto out;
	}
	for (i = 0; i < n; i++)
		names[i] = sa_builtin_helpers[i];
	for (p = list; p && (name = strsep(&p, ",")) && n < max;) {
		name = strim(name);
		if (*name) {
			user[n] = true;
			names[n++] = name;
		}
	}
	added = sa_unwrap_lookup(names, n, user, kps, regd, buf);
	sa_tramp_find(kps, buf);
	/* Their names, in the room the lookup no longer needs. */
	kfree(buf);
	buf = kmalloc(SA_MAX_HELPERS * SA_HELPER_NAME, GFP_KERNEL);
	for (i = 0, len = 0; buf && i < sa_nr_helpers; i++)
		len += scnprintf(buf + len, SA_MAX_HELPERS * SA_HELPER_NAME - len,
				 " %s", sa_helpers[i].name);
	pr_info("unwrapping %u allocation helpers:%s\n", added,
		buf ? buf : "");
out:
	kfree(list);
	kfree(buf);
	kfree(regd);
	kfree(kps);
	kfree(user);
	kfree(names);
}
