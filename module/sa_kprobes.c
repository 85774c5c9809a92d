// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: kprobes on the allocator functions whose objects the kmem
 * tracepoints do not report, feeding the same core as the tracepoints.
 *
 *  kmem_cache_free_bulk()	frees no event reports: kfree_bulk() and
 *				kfree_rcu()'s batches (up to 6.x), the maple
 *				tree's bulk frees.  Counted at entry, before
 *				any object can be handed out again.
 *  krealloc()			an in-place resize reports nothing (a move
 *				reports kmalloc and kfree): the object's
 *				requested bytes become the new size.  A moved
 *				object goes to krealloc's caller (its event
 *				names the kretprobe's trampoline).
 *  kmem_cache_alloc_bulk()	objects no event reports, counted at return,
 *				the caller of the function as the call site.
 *  __kfree_rcu_sheaf()		kfree_rcu() into a per-CPU sheaf (7.x): freed
 *				after a grace period without an event.
 *  kmalloc_nolock(), kfree_nolock()	(7.x) report nothing.
 *
 * Which of them a kernel has is found at load: each hook tries the names
 * the function has had (the _noprof ones from 6.10) and a path that
 * cannot be hooked (no kprobes, no such function, a kprobe refused) is
 * said at load and in the file, never a reason not to load.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/slab.h>

#include "sa_core.h"
#include "sa_kmem_cache.h"
#include "sa_probes.h"

static bool hooks = true;
module_param(hooks, bool, 0444);
MODULE_PARM_DESC(hooks,
		 "hook the allocator paths the kmem tracepoints do not report (kprobes; default on)");

/* What a return handler needs of the call's arguments. */
struct sa_call {
	const void *ptr;	/* krealloc's object, or the freed object */
	void **objs;		/* a bulk allocation's array */
	size_t size;		/* its count, or the requested size */
	struct kmem_cache *s;
};

#ifndef SA_ALLOC_BULK_BOOL
#define SA_ALLOC_BULK_BOOL 0
#endif

#ifdef SA_HAVE_KRETPROBE_RETADDR
#define sa_ret_addr(ri)	get_kretprobe_retaddr(ri)
#else
#define sa_ret_addr(ri)	((unsigned long)(ri)->ret_addr)
#endif

static inline struct sa_call *sa_call_of(struct kretprobe_instance *ri)
{
	return (struct sa_call *)ri->data;
}

static inline unsigned long sa_arg(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}

/* kmem_cache_free_bulk(s, size, p): every object of p[] is freed. */
static int sa_free_bulk_entry(struct kprobe *kp, struct pt_regs *regs)
{
	size_t i, n = sa_arg(regs, 1);
	void **p = (void **)sa_arg(regs, 2);

	for (i = 0; i < n; i++)
		sa_account_free(0, READ_ONCE(p[i]));
	return 0;
}

/* krealloc(p, new_size, ...): in place when it returns p. */
static int sa_krealloc_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct sa_call *c = sa_call_of(ri);

	c->ptr = (const void *)sa_arg(regs, 0);
	c->size = sa_arg(regs, 1);
	return 0;
}

static int sa_krealloc_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sa_call *c = sa_call_of(ri);

	const void *ret = (const void *)regs_return_value(regs);

	if (ret == c->ptr)
		sa_account_resize(c->ptr, c->size);
	else
		sa_account_recharge(ret, sa_ret_addr(ri));
	return 0;
}

/* kmem_cache_alloc_bulk(s, flags, size, p): p[0..n) allocated. */
static int sa_alloc_bulk_entry(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct sa_call *c = sa_call_of(ri);

	c->s = (struct kmem_cache *)sa_arg(regs, 0);
	c->size = sa_arg(regs, 2);
	c->objs = (void **)sa_arg(regs, 3);
	return 0;
}

static int sa_alloc_bulk_ret(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct sa_call *c = sa_call_of(ri);
	unsigned long call_site = sa_ret_addr(ri);
	unsigned int size, object_size;
	size_t i, n;

	/* All or nothing: the count (up to 7.0), or true (bool, 7.x). */
	if (SA_ALLOC_BULK_BOOL)
		n = (u8)regs_return_value(regs) ? c->size : 0;
	else
		n = min_t(size_t, (unsigned int)regs_return_value(regs),
			  c->size);
	if (!n)
		return 0;
	size = sa_cache_size(c->s);
	object_size = sa_cache_object_size(c->s);
	for (i = 0; i < n; i++)
		sa_account_alloc(call_site, READ_ONCE(c->objs[i]), object_size,
				 size, c->s);
	return 0;
}

/* __kfree_rcu_sheaf(s, obj, flags): true when obj went into a sheaf. */
static int sa_rcu_sheaf_entry(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	sa_call_of(ri)->ptr = (const void *)sa_arg(regs, 1);
	return 0;
}

static int sa_rcu_sheaf_ret(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	if ((u8)regs_return_value(regs))
		sa_account_free(0, sa_call_of(ri)->ptr);
	return 0;
}

#ifdef SA_HAVE_KMALLOC_NOLOCK
/* kmalloc_nolock(size, ...): from a kmalloc cache, never large. */
static int sa_kmalloc_nolock_entry(struct kretprobe_instance *ri,
				   struct pt_regs *regs)
{
	sa_call_of(ri)->size = sa_arg(regs, 0);
	return 0;
}

static int sa_kmalloc_nolock_ret(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	size_t size = sa_call_of(ri)->size;

	sa_account_alloc(sa_ret_addr(ri), (void *)regs_return_value(regs),
			 size, kmalloc_size_roundup(size), NULL);
	return 0;
}

static int sa_kfree_nolock_entry(struct kprobe *kp, struct pt_regs *regs)
{
	sa_account_free(0, (const void *)sa_arg(regs, 0));
	return 0;
}
#endif

/* One hook: a kprobe at entry, or a kretprobe with an entry handler. */
struct sa_hook {
	const char *path;		/* how the file names it */
	const char *const *syms;	/* names to try, NULL-terminated */
	bool allocs;			/* in the allocation group */
	kprobe_pre_handler_t entry;	/* a kprobe's */
	kretprobe_handler_t ret_entry;	/* a kretprobe's */
	kretprobe_handler_t ret;
	union {
		struct kprobe kp;
		struct kretprobe rp;
	};
	struct kprobe pin;		/* keeps it from being optimized */
	const char *sym;		/* the name hooked, when it is */
	int err;			/* why not, else 0 */
	unsigned long missed;		/* of earlier registrations */
};

#define SA_SYMS(...) ((const char *const []){ __VA_ARGS__, NULL })

static struct sa_hook sa_hooks[SA_NR_PATHS] = {
	[SA_PATH_FREE_BULK] = {
		.path = "kmem_cache_free_bulk",
		.syms = SA_SYMS("kmem_cache_free_bulk"),
		.entry = sa_free_bulk_entry,
	},
	[SA_PATH_KREALLOC] = {
		.path = "krealloc",
		.syms = SA_SYMS("krealloc_node_align_noprof", "krealloc_noprof",
				"krealloc"),
		.ret_entry = sa_krealloc_entry,
		.ret = sa_krealloc_ret,
	},
	[SA_PATH_ALLOC_BULK] = {
		.path = "kmem_cache_alloc_bulk",
		.syms = SA_SYMS("kmem_cache_alloc_bulk_noprof",
				"kmem_cache_alloc_bulk"),
		.allocs = true,
		.ret_entry = sa_alloc_bulk_entry,
		.ret = sa_alloc_bulk_ret,
	},
	[SA_PATH_RCU_SHEAF] = {
		.path = "kfree_rcu_sheaf",
		.syms = SA_SYMS("__kfree_rcu_sheaf"),
		.ret_entry = sa_rcu_sheaf_entry,
		.ret = sa_rcu_sheaf_ret,
	},
#ifdef SA_HAVE_KMALLOC_NOLOCK
	[SA_PATH_KFREE_NOLOCK] = {
		.path = "kfree_nolock",
		.syms = SA_SYMS("kfree_nolock"),
		.entry = sa_kfree_nolock_entry,
	},
	[SA_PATH_KMALLOC_NOLOCK] = {
		.path = "kmalloc_nolock",
		.syms = SA_SYMS("_kmalloc_nolock_noprof", "kmalloc_nolock"),
		.allocs = true,
		.ret_entry = sa_kmalloc_nolock_entry,
		.ret = sa_kmalloc_nolock_ret,
	},
#endif
};

static void sa_pin_post(struct kprobe *kp, struct pt_regs *regs,
			unsigned long flags)
{
}

/*
 * A kprobe that is not on ftrace is, where the kernel can, optimized into
 * a jump by the kprobe optimizer, which waits for an RCU Tasks grace
 * period each time it runs (once kicked, even with nothing left to do),
 * holding the kprobe and text mutexes; a busy machine stretches those to
 * minutes, and every register or unregister of a kprobe, and the
 * tracepoints' static keys (text_mutex), would wait behind it.  A kprobe
 * with a post handler is never optimized: a second kprobe with an empty
 * one at the same address keeps the hook a breakpoint (a single step per
 * call there), and the optimizer is never kicked.  Where kprobes are not
 * on ftrace at all, the pin goes first, so that the hook is never even
 * queued for optimizing; elsewhere a hook that is not on ftrace after
 * all (its function has no ftrace site) is pinned after it.
 */
static bool sa_pin_first(void)
{
	return IS_ENABLED(CONFIG_OPTPROBES) &&
	       !IS_ENABLED(CONFIG_KPROBES_ON_FTRACE);
}

static int sa_hook_pin(struct sa_hook *h, const char *sym, kprobe_opcode_t *addr)
{
	int err;

	memset(&h->pin, 0, sizeof(h->pin));
	h->pin.symbol_name = sym;
	h->pin.addr = addr;
	h->pin.post_handler = sa_pin_post;
	err = register_kprobe(&h->pin);
	if (err)
		h->pin.addr = NULL;	/* h->pin.addr: registered */
	return err;
}

static int sa_hook_register(struct sa_hook *h, const char *sym)
{
	struct kprobe *kp;
	int err = 0;

	memset(&h->pin, 0, sizeof(h->pin));
	if (sa_pin_first()) {
		err = sa_hook_pin(h, sym, NULL);
		if (err)
			return err;
	}
	if (h->entry) {
		memset(&h->kp, 0, sizeof(h->kp));
		h->kp.symbol_name = sym;
		h->kp.pre_handler = h->entry;
		kp = &h->kp;
		err = register_kprobe(kp);
	} else {
		memset(&h->rp, 0, sizeof(h->rp));
		h->rp.kp.symbol_name = sym;
		h->rp.entry_handler = h->ret_entry;
		h->rp.handler = h->ret;
		h->rp.data_size = sizeof(struct sa_call);
		/*
		 * Calls that may sleep: room for several at once per CPU
		 * (each is an allocation at load); one that finds none is
		 * counted in "missed hook calls".
		 */
		h->rp.maxactive = max_t(int, 16, 4 * num_possible_cpus());
		kp = &h->rp.kp;
		err = register_kretprobe(&h->rp);
	}
	if (err) {
		if (h->pin.addr)
			unregister_kprobe(&h->pin);
		h->pin.addr = NULL;
		return err;
	}
	/* Still hooked if this fails, only optimizable. */
	if (!h->pin.addr && IS_ENABLED(CONFIG_OPTPROBES) && !kprobe_ftrace(kp))
		sa_hook_pin(h, NULL, kp->addr);
	return 0;
}

static unsigned long sa_hook_missed_now(const struct sa_hook *h)
{
	if (!h->sym)
		return 0;
	if (h->entry)
		return h->kp.nmissed;
	return h->rp.nmissed + h->rp.kp.nmissed;
}

void sa_kprobes_register(bool allocs)
{
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(sa_hooks); i++) {
		struct sa_hook *h = &sa_hooks[i];

		if (!h->path || h->allocs != allocs || h->sym)
			continue;
		h->err = -EPERM;
		if (!hooks)
			continue;
		for (j = 0; h->syms[j]; j++) {
			h->err = sa_hook_register(h, h->syms[j]);
			if (!h->err) {
				h->sym = h->syms[j];
				break;
			}
			/* Another name only when this one is not there. */
			if (h->err != -ENOENT && h->err != -EINVAL)
				break;
		}
	}
}

void sa_kprobes_report(void)
{
	char hooked[160] = "", absent[160] = "", failed[160] = "";
	size_t nh = 0, na = 0, nf = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sa_hooks); i++) {
		const struct sa_hook *h = &sa_hooks[i];

		if (!h->path)
			continue;
		if (h->sym)
			nh += scnprintf(hooked + nh, sizeof(hooked) - nh, " %s",
					h->path);
		else if (h->err == -ENOENT || h->err == -EINVAL)
			na += scnprintf(absent + na, sizeof(absent) - na, " %s",
					h->path);
		else
			nf += scnprintf(failed + nf, sizeof(failed) - nf,
					" %s (%d)", h->path, h->err);
	}
	if (!hooks)
		pr_info("paths beyond the tracepoints: not hooked (hooks=0)\n");
	else
		pr_info("paths beyond the tracepoints: hooked:%s%s%s%s%s\n",
			nh ? hooked : " none", na ? "; not in this kernel:" : "",
			absent, nf ? "; kprobe refused or no kprobes:" : "",
			failed);
}

void sa_kprobes_unregister(void)
{
	struct kprobe *kps[2 * ARRAY_SIZE(sa_hooks)];
	struct kretprobe *rps[ARRAY_SIZE(sa_hooks)];
	unsigned int i, nk = 0, nr = 0;

	/*
	 * Allocation hooks first; one wait for handlers per kind.  The pins
	 * go last: a hook without its pin could be optimized again.
	 */
	for (i = ARRAY_SIZE(sa_hooks); i--; ) {
		struct sa_hook *h = &sa_hooks[i];

		if (!h->sym)
			continue;
		if (h->entry)
			kps[nk++] = &h->kp;
		else
			rps[nr++] = &h->rp;
	}
	for (i = ARRAY_SIZE(sa_hooks); i--; ) {
		struct sa_hook *h = &sa_hooks[i];

		if (h->sym && h->pin.addr)
			kps[nk++] = &h->pin;
	}
	if (nr)
		unregister_kretprobes(rps, nr);
	if (nk)
		unregister_kprobes(kps, nk);
	for (i = 0; i < ARRAY_SIZE(sa_hooks); i++) {
		struct sa_hook *h = &sa_hooks[i];

		h->missed += sa_hook_missed_now(h);
		h->sym = NULL;
		h->pin.addr = NULL;
	}
}

const char *sa_path_name(enum sa_path path)
{
	return sa_hooks[path].path;
}

bool sa_path_hooked(enum sa_path path)
{
	return !!sa_hooks[path].sym;
}

unsigned long sa_kprobes_missed(void)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sa_hooks); i++)
		n += sa_hooks[i].missed + sa_hook_missed_now(&sa_hooks[i]);
	return n;
}
