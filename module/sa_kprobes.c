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
 *				after a grace period without an event.  The
 *				object leaves the table at entry (its slot held
 *				busy), so that nothing done with its address
 *				once RCU owns it is taken for it; it comes back
 *				if the sheaf did not take it.
 *  kmalloc_nolock(), kfree_nolock()	(7.x) report nothing.
 *
 * Which of them a kernel has is found at load: each hook tries the names
 * the function has had (the _noprof ones from 6.10).  A handler reads its
 * function's arguments, so a name is tried only where Kbuild found it
 * declared with the prototype the handler expects (SA_PROTO_<name>; for a
 * function the kernel declares privately, from its BTF or its tree where
 * there is one, else unchecked, said: such handlers dereference nothing
 * they read).  kmem_cache_alloc_bulk()'s arguments have been the same in
 * every era and its return type is taken from its declaration: where its
 * probe fails all the same, it is hooked and its arguments checked at load
 * with a call of our own, and kept only if the handler saw them (said at
 * load).  A path that cannot be hooked (no kprobes, no such
 * function, another prototype, a kprobe refused, arguments this
 * architecture's kprobes do not give) is said at load and in the file,
 * never a reason not to load.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/slab.h>

#include "sa_core.h"
#include "sa_kmem_cache.h"
#include "sa_probes.h"
#include "sa_unwrap.h"

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
	long slot;		/* the freed object's, held (sa_account_take) */
	unsigned long caller;	/* krealloc's caller's caller, found at entry */
	unsigned int via;	/* ... behind this helper (1-based), or 0 */
};

#ifdef SA_HAVE_KRETPROBE_RETADDR
#define sa_ret_addr(ri)	get_kretprobe_retaddr(ri)
#else
#define sa_ret_addr(ri)	((unsigned long)(ri)->ret_addr)
#endif

/*
 * Is the return value, of a type @type, non-zero?  Only the type's width
 * of the register is defined (the rest of a bool's is not, on x86_64 and
 * arm64).
 */
#define sa_ret_nonzero(type, regs) ({					\
	unsigned long __v = regs_return_value(regs);			\
	sizeof(type) == 1 ? (u8)__v != 0 :				\
	sizeof(type) == 2 ? (u16)__v != 0 :				\
	sizeof(type) == 4 ? (u32)__v != 0 : __v != 0;			\
})

static inline struct sa_call *sa_call_of(struct kretprobe_instance *ri)
{
	return (struct sa_call *)ri->data;
}

/*
 * Argument @n of the probed function, at its entry.  Where the kernel has
 * no regs_get_kernel_argument() (32-bit ARM): the AAPCS passes the first
 * four word-sized arguments in r0-r3, which are all the handlers read.
 */
#if defined(SA_HAVE_REGS_ARG)
#define SA_ARGS_READABLE	true

static inline unsigned long sa_arg(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}
#elif defined(CONFIG_ARM)
#define SA_ARGS_READABLE	true

static inline unsigned long sa_arg(struct pt_regs *regs, unsigned int n)
{
	return n < 4 ? regs->uregs[n] : 0;
}
#else
#define SA_ARGS_READABLE	false

static inline unsigned long sa_arg(struct pt_regs *regs, unsigned int n)
{
	return 0;
}
#endif

/*
 * The probed function's return address at its entry, where a walk of the
 * stack at its return cannot see past the kretprobe's trampoline to the
 * caller's caller: 32-bit ARM's unwinder from unwind tables (ARM_UNWIND)
 * stops there (the frame-pointer one, and those of the other
 * architectures, give the real return address back).  There the address
 * is in lr at entry, and a walk from the kprobe's trap then passes
 * through the probed function's first instruction to it (the hook is a
 * trap, never an optimized jump, which has no unwind entry: ARM has no
 * KPROBES_ON_FTRACE, so sa_hook_register() pins each probe or does not
 * hook).  Elsewhere 0: no walk at entry.
 */
#if defined(CONFIG_ARM) && defined(CONFIG_ARM_UNWIND)
static inline unsigned long sa_entry_ret_addr(struct pt_regs *regs)
{
	return regs->ARM_lr;
}
#else
static inline unsigned long sa_entry_ret_addr(struct pt_regs *regs)
{
	return 0;
}
#endif

/* kmem_cache_free_bulk(s, size, p): every object of p[] is freed. */
static int sa_free_bulk_entry(struct kprobe *kp, struct pt_regs *regs)
{
	size_t i, n = sa_arg(regs, 1);
	void **p = (void **)sa_arg(regs, 2);

	for (i = 0; i < n; i++)
		sa_account_free(0, READ_ONCE(p[i]));
	return 0;
}

/*
 * krealloc(p, new_size, ...): in place when it returns p.  Called by an
 * allocation helper (kvrealloc()) where the walk at return would stop at
 * the trampoline (sa_entry_ret_addr()): the helper's caller, found now.
 */
static int sa_krealloc_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct sa_call *c = sa_call_of(ri);
	unsigned long ret_addr = sa_entry_ret_addr(regs);
	unsigned int helper = ret_addr ? sa_helper_of(ret_addr) : 0;

	c->ptr = (const void *)sa_arg(regs, 0);
	c->size = sa_arg(regs, 1);
	c->via = helper;
	c->caller = helper ? sa_unwrap_caller(helper, &c->via) : 0;
	if (!c->caller)
		c->via = 0;
	return 0;
}

static int sa_krealloc_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sa_call *c = sa_call_of(ri);

	const void *ret = (const void *)regs_return_value(regs);

	if (ret == c->ptr)
		sa_account_resize(c->ptr, c->size);
	else if (c->caller)
		sa_account_recharge(ret, c->caller, c->via);
	else
		sa_account_recharge(ret, sa_ret_addr(ri), 0);
	return 0;
}

/*
 * kmem_cache_alloc_bulk(s, flags, size, p): all of p[0..size) or none.
 * It returned an int count (0 or size) up to 7.0 and says true or false
 * since: the return value is read as the type the headers declare (the
 * public call's, whatever the probes found), whose width the ABI defines
 * (the rest of a bool's register is undefined); on success size objects
 * are counted, never the value.
 */
#if defined(SA_BULK_CALL_NOPROF)
#define sa_alloc_bulk_type \
	__typeof__(kmem_cache_alloc_bulk_noprof(NULL, 0, 0, NULL))
#elif defined(SA_BULK_CALL)
#define sa_alloc_bulk_type \
	__typeof__(kmem_cache_alloc_bulk(NULL, 0, 0, NULL))
#else	/* no such call: the hook is never tried (SA_SYM_AT_LOAD) */
#define sa_alloc_bulk_type int
#endif

/*
 * The check at load of a hook whose prototype probe failed: until it is
 * done, the return handler takes only the checking task's own call (the
 * arguments it must see are in @want), and counts the others' as missed.
 */
static struct {
	bool checking;
	struct task_struct *task;
	struct sa_call want;
	bool seen;			/* the call, with the arguments wanted */
	atomic_long_t missed;		/* other tasks' calls meanwhile */
} sa_bulk_check;

/* Kbuild's SA_BULK_SKEW (tests only): as if the arguments had moved. */
#ifndef SA_BULK_ARG_SKEW
#define SA_BULK_ARG_SKEW	0
#endif

static int sa_alloc_bulk_entry(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct sa_call *c = sa_call_of(ri);

	c->s = (struct kmem_cache *)sa_arg(regs, 0);
	c->size = sa_arg(regs, 2 - SA_BULK_ARG_SKEW);
	c->objs = (void **)sa_arg(regs, 3 - SA_BULK_ARG_SKEW);
	return 0;
}

static int sa_alloc_bulk_ret(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct sa_call *c = sa_call_of(ri);
	unsigned long call_site = sa_ret_addr(ri);
	unsigned int size, object_size;
	size_t i, n;

	if (unlikely(READ_ONCE(sa_bulk_check.checking))) {
		/*
		 * Only our own call's array is known to be one: the checking
		 * task's, not an interrupt's on its stack.
		 */
		if (current != READ_ONCE(sa_bulk_check.task) || !in_task()) {
			atomic_long_inc(&sa_bulk_check.missed);
			return 0;
		}
		if (c->s != sa_bulk_check.want.s ||
		    c->size != sa_bulk_check.want.size ||
		    c->objs != sa_bulk_check.want.objs)
			return 0;
		sa_bulk_check.seen = true;
	}
	if (!sa_ret_nonzero(sa_alloc_bulk_type, regs))
		return 0;
	n = c->size;
	size = sa_cache_size(c->s);
	object_size = sa_cache_object_size(c->s);
	for (i = 0; i < n; i++)
		sa_account_alloc(call_site, READ_ONCE(c->objs[i]), object_size,
				 size, c->s);
	return 0;
}

/*
 * __kfree_rcu_sheaf(s, obj, ...): true when obj went into a sheaf, which
 * RCU frees after a grace period.  The object leaves the table at entry:
 * by the return, another CPU may have freed the sheaf and been handed the
 * same address.  It is put back when the sheaf did not take it (the
 * caller frees it another way, which is reported).
 */
static int sa_rcu_sheaf_entry(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct sa_call *c = sa_call_of(ri);

	c->ptr = (const void *)sa_arg(regs, 1);
	c->slot = sa_account_take(c->ptr);
	return 0;
}

static int sa_rcu_sheaf_ret(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct sa_call *c = sa_call_of(ri);

	if (sa_ret_nonzero(bool, regs))
		sa_account_taken_free(c->ptr, c->slot);
	else
		sa_account_taken_back(c->ptr, c->slot);
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

/* A name a hooked function has had, and how its prototype was checked. */
struct sa_sym {
	const char *name;
	enum {
		SA_PROTO_OTHER,		/* not declared as the handler expects */
		SA_PROTO_CHECKED,
		SA_PROTO_UNCHECKED,	/* private, no BTF nor tree to check */
		SA_PROTO_AT_LOAD,	/* probe failed: checked at load */
	} proto;
};

#define SA_SYM(fn) {							\
	.name = #fn,							\
	.proto = IS_ENABLED(SA_PROTO_##fn) ? SA_PROTO_CHECKED :		\
		 IS_ENABLED(SA_UNCHECKED_##fn) ? SA_PROTO_UNCHECKED :	\
		 SA_PROTO_OTHER,					\
}

/*
 * A function whose arguments its hook checks at load if its probe failed
 * (where the headers give the call the check makes: SA_BULK_CALL).
 */
#ifdef SA_BULK_CALL
#define SA_PROTO_FAILED		SA_PROTO_AT_LOAD
#else
#define SA_PROTO_FAILED		SA_PROTO_OTHER
#endif

#define SA_SYM_AT_LOAD(fn) {						\
	.name = #fn,							\
	.proto = IS_ENABLED(SA_PROTO_##fn) ? SA_PROTO_CHECKED :		\
		 SA_PROTO_FAILED,					\
}

#define SA_SYMS(...) ((const struct sa_sym []){ __VA_ARGS__, { NULL } })

/* Why a path is not hooked (the file's `unhooked PATH:` words). */
static const char *const sa_why[] = {
	[SA_WHY_HOOKED]		= "hooked",
	[SA_WHY_STOPPED]	= "stopped",
	[SA_WHY_DISABLED]	= "disabled",
	[SA_WHY_NO_KPROBES]	= "no-kprobes",
	[SA_WHY_ARGS]		= "arguments",
	[SA_WHY_ABSENT]		= "absent",
	[SA_WHY_PROTOTYPE]	= "prototype",
	[SA_WHY_REFUSED]	= "refused",
	[SA_WHY_FAILED]		= "failed",
};

/*
 * kmem_cache_alloc_bulk() hooked without its prototype checked at build:
 * three objects of a cache of our own, allocated with the hook in place.
 * The arguments are right if the handler saw our cache, count and array
 * where it reads them (it then counted them, as any; they are freed one
 * by one, which the kmem_cache_free event reports in every kernel).
 * SA_CHECK_NO: the call succeeded and the handler did not see it so;
 * SA_CHECK_UNKNOWN: nothing to judge by (no cache, no objects, the
 * call's kretprobe instance missed).
 */
enum { SA_CHECK_NO, SA_CHECK_OK, SA_CHECK_UNKNOWN };

#if defined(SA_BULK_CALL)
static int sa_alloc_bulk_check(const struct kretprobe *rp)
{
	unsigned long missed = rp->nmissed;
	struct kmem_cache *s;
	void *objs[3];
	size_t i;
	int got, ret;

	s = kmem_cache_create("sa_bulk_check", 64, 0, 0, NULL);
	if (!s)
		return SA_CHECK_UNKNOWN;
	sa_bulk_check.want.s = s;
	sa_bulk_check.want.size = ARRAY_SIZE(objs);
	sa_bulk_check.want.objs = objs;
	sa_bulk_check.seen = false;
	WRITE_ONCE(sa_bulk_check.task, current);
	got = kmem_cache_alloc_bulk(s, GFP_KERNEL, ARRAY_SIZE(objs), objs);
	WRITE_ONCE(sa_bulk_check.task, NULL);
	if (sa_bulk_check.seen)
		ret = SA_CHECK_OK;
	else if (!got || rp->nmissed != missed)
		ret = SA_CHECK_UNKNOWN;
	else
		ret = SA_CHECK_NO;
	for (i = 0; got && i < ARRAY_SIZE(objs); i++)
		kmem_cache_free(s, objs[i]);
	kmem_cache_destroy(s);
	return ret;
}
#endif

/* One hook: a kprobe at entry, or a kretprobe with an entry handler. */
struct sa_hook {
	const char *path;		/* how the file names it */
	const struct sa_sym *syms;	/* names to try, NULL-terminated */
	bool allocs;			/* in the allocation group */
	kprobe_pre_handler_t entry;	/* a kprobe's */
	kretprobe_handler_t ret_entry;	/* a kretprobe's */
	kretprobe_handler_t ret;
	int (*check)(const struct kretprobe *rp); /* SA_PROTO_AT_LOAD's */
	bool checked;			/* it passed, in this load */
	bool check_failed;		/* it did not, the last time */
	union {
		struct kprobe kp;
		struct kretprobe rp;
	};
	struct kprobe pin;		/* keeps it from being optimized */
	const struct sa_sym *sym;	/* the name hooked, when it is */
	enum sa_why why;		/* why not, when it is not */
	int err;			/* the kprobe's error, if it was that */
	unsigned long missed;		/* of earlier registrations */
};

static struct sa_hook sa_hooks[SA_NR_PATHS] = {
	[SA_PATH_FREE_BULK] = {
		.path = "kmem_cache_free_bulk",
		.syms = SA_SYMS(SA_SYM(kmem_cache_free_bulk)),
		.entry = sa_free_bulk_entry,
	},
	[SA_PATH_KREALLOC] = {
		.path = "krealloc",
		.syms = SA_SYMS(SA_SYM(krealloc_node_align_noprof),
				SA_SYM(krealloc_noprof), SA_SYM(krealloc)),
		.ret_entry = sa_krealloc_entry,
		.ret = sa_krealloc_ret,
	},
	[SA_PATH_ALLOC_BULK] = {
		.path = "kmem_cache_alloc_bulk",
		.syms = SA_SYMS(SA_SYM_AT_LOAD(kmem_cache_alloc_bulk_noprof),
				SA_SYM_AT_LOAD(kmem_cache_alloc_bulk)),
		.allocs = true,
		.ret_entry = sa_alloc_bulk_entry,
		.ret = sa_alloc_bulk_ret,
#if defined(SA_BULK_CALL)
		.check = sa_alloc_bulk_check,
#endif
	},
	[SA_PATH_RCU_SHEAF] = {
		.path = "kfree_rcu_sheaf",
		.syms = SA_SYMS(SA_SYM(__kfree_rcu_sheaf)),
		.ret_entry = sa_rcu_sheaf_entry,
		.ret = sa_rcu_sheaf_ret,
	},
#ifdef SA_HAVE_KMALLOC_NOLOCK
	[SA_PATH_KFREE_NOLOCK] = {
		.path = "kfree_nolock",
		.syms = SA_SYMS(SA_SYM(kfree_nolock)),
		.entry = sa_kfree_nolock_entry,
	},
	[SA_PATH_KMALLOC_NOLOCK] = {
		.path = "kmalloc_nolock",
		.syms = SA_SYMS(SA_SYM(_kmalloc_nolock_noprof),
				SA_SYM(kmalloc_nolock)),
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

/* The hook's pin, if it has one, unregistered. */
static void sa_hook_unpin(struct sa_hook *h)
{
	if (h->pin.addr)
		unregister_kprobe(&h->pin);
	h->pin.addr = NULL;
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
		sa_hook_unpin(h);
		return err;
	}
	/* Still hooked if this fails, only optimizable. */
	if (!h->pin.addr && IS_ENABLED(CONFIG_OPTPROBES) && !kprobe_ftrace(kp))
		sa_hook_pin(h, NULL, kp->addr);
	return 0;
}

/* Undo sa_hook_register() of a hook not yet taken into use (h->sym). */
static void sa_hook_unregister(struct sa_hook *h)
{
	if (h->entry)
		unregister_kprobe(&h->kp);
	else
		unregister_kretprobe(&h->rp);
	sa_hook_unpin(h);
}

static unsigned long sa_hook_missed_now(const struct sa_hook *h)
{
	if (!h->sym)
		return 0;
	if (h->entry)
		return h->kp.nmissed;
	return h->rp.nmissed + h->rp.kp.nmissed;
}

/* Why @err from registering a kprobe leaves its path unhooked. */
static enum sa_why sa_why_err(int err)
{
	switch (err) {
	case -ENOENT:
		return SA_WHY_ABSENT;	/* no such symbol */
	case -EINVAL:
		return SA_WHY_REFUSED;	/* blacklisted, not kernel text... */
	case -EOPNOTSUPP:
		return SA_WHY_NO_KPROBES;
	default:
		return SA_WHY_FAILED;
	}
}

/* Hook @h by the first of its names that this kernel has. */
static void sa_hook_path(struct sa_hook *h)
{
	const struct sa_sym *sym;
	bool other = false, check;
	int err, verdict;

	h->err = 0;
	h->check_failed = false;
	if (!hooks) {
		h->why = SA_WHY_DISABLED;
		return;
	}
	/* (5.10's stubs say -ENOSYS, later ones -EOPNOTSUPP.) */
	if (!IS_ENABLED(CONFIG_KPROBES) ||
	    (!h->entry && !IS_ENABLED(CONFIG_KRETPROBES))) {
		h->why = SA_WHY_NO_KPROBES;
		return;
	}
	if (!SA_ARGS_READABLE) {
		h->why = SA_WHY_ARGS;
		return;
	}
	h->why = SA_WHY_ABSENT;
	for (sym = h->syms; sym->name; sym++) {
		if (sym->proto == SA_PROTO_OTHER) {
			other = true;
			continue;
		}
		check = sym->proto == SA_PROTO_AT_LOAD && !h->checked;
		if (check)
			WRITE_ONCE(sa_bulk_check.checking, true);
		err = sa_hook_register(h, sym->name);
		verdict = SA_CHECK_OK;
		if (!err && check) {
			verdict = h->check(&h->rp);
			h->checked = verdict == SA_CHECK_OK;
			if (!h->checked)
				sa_hook_unregister(h);
		}
		WRITE_ONCE(sa_bulk_check.checking, false);
		if (verdict != SA_CHECK_OK) {
			/* Another prototype, or no way to tell now. */
			h->why = verdict == SA_CHECK_NO ? SA_WHY_PROTOTYPE :
							  SA_WHY_FAILED;
			h->check_failed = true;
			return;
		}
		if (!err) {
			h->sym = sym;
			h->why = SA_WHY_HOOKED;
			return;
		}
		/* Another name only when this one is not there. */
		h->why = sa_why_err(err);
		if (err != -ENOENT) {
			h->err = err;
			return;
		}
	}
	/* None there: one declared otherwise is a changed prototype. */
	if (other)
		h->why = SA_WHY_PROTOTYPE;
}

void sa_kprobes_register(bool allocs)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sa_hooks); i++) {
		struct sa_hook *h = &sa_hooks[i];

		if (h->path && h->allocs == allocs && !h->sym)
			sa_hook_path(h);
	}
}

void sa_kprobes_report(void)
{
	static const char *const say[] = {
		[SA_WHY_HOOKED]		= "hooked:",
		[SA_WHY_STOPPED]	= "stopped:",
		[SA_WHY_DISABLED]	= "not hooked (hooks=0):",
		[SA_WHY_NO_KPROBES]	= "no kprobes in this kernel:",
		[SA_WHY_ARGS]		= "no kprobe arguments on this architecture:",
		[SA_WHY_ABSENT]		= "not in this kernel:",
		[SA_WHY_PROTOTYPE]	= "another prototype than its handler reads:",
		[SA_WHY_REFUSED]	= "refused by kprobes (blacklisted or not probeable):",
		[SA_WHY_FAILED]		= "kprobe failed:",
	};
	static char line[512];	/* at load only */
	unsigned int w, i, seen;
	size_t n = 0;

	for (w = 0; w < SA_NR_WHYS; w++) {
		for (i = 0, seen = 0; i < ARRAY_SIZE(sa_hooks); i++) {
			const struct sa_hook *h = &sa_hooks[i];

			if (!h->path || h->why != w)
				continue;
			if (!seen++)
				n += scnprintf(line + n, sizeof(line) - n,
					       "%s%s", n ? "; " : "", say[w]);
			n += scnprintf(line + n, sizeof(line) - n, " %s",
				       h->path);
			if (h->err)
				n += scnprintf(line + n, sizeof(line) - n,
					       " (%d)", h->err);
		}
	}
	pr_info("paths beyond the tracepoints: %s\n", n ? line : "none");
	for (i = 0; i < ARRAY_SIZE(sa_hooks); i++)
		if (sa_hooks[i].sym &&
		    sa_hooks[i].sym->proto == SA_PROTO_UNCHECKED)
			pr_info("%s: hooked as %s, whose prototype is private and could not be checked (no BTF, no kernel tree): its handler dereferences nothing it reads\n",
				sa_hooks[i].path, sa_hooks[i].sym->name);
		else if (sa_hooks[i].sym &&
			 sa_hooks[i].sym->proto == SA_PROTO_AT_LOAD)
			pr_info("%s: hooked as %s, whose prototype the build could not check: its arguments were checked at load with a call of our own\n",
				sa_hooks[i].path, sa_hooks[i].sym->name);
		else if (sa_hooks[i].check_failed)
			pr_info("%s: not hooked: the build could not check its prototype, and a call of our own at load %s\n",
				sa_hooks[i].path,
				sa_hooks[i].why == SA_WHY_PROTOTYPE ?
				"did not show its arguments where the handler reads them" :
				"could not tell (no cache, no objects or the call missed); a start tries again");
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
		if (h->sym)
			h->why = SA_WHY_STOPPED;
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

const char *sa_path_why(enum sa_path path)
{
	return sa_why[sa_hooks[path].why];
}

unsigned long sa_kprobes_missed(void)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sa_hooks); i++)
		n += sa_hooks[i].missed + sa_hook_missed_now(&sa_hooks[i]);
	return n + atomic_long_read(&sa_bulk_check.missed);
}
