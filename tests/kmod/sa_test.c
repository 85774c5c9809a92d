// SPDX-License-Identifier: GPL-2.0
/*
 * sa_test: allocates and frees in a known pattern from known call sites,
 * so that the slab_account selftests can compare /proc/slab_account with
 * the truth.
 *
 * Each sa_test_alloc_* function below holds exactly one allocation call,
 * so each is one call site ("sa_test_alloc_xxx+0x../0x.. [sa_test]").
 * Writes to /proc/sa_test:
 *   run    perform the pattern (objects stay live as described below)
 *   free   free every object still held
 * Reading /proc/sa_test prints, per site, what the module itself counted:
 *   <function> allocs frees total req live live_req objs
 * where the byte sizes come from ksize() (what the allocator handed out)
 * and the sizes passed to the allocator.
 *
 * The pattern:
 *   kmalloc100   10 x kmalloc(100): 2 freed in process context, 2 in a
 *                timer (softirq), 2 by a work item on another CPU
 *   cache        8 x kmem_cache_alloc(sa_test_cache, 200-byte objects,
 *                with a constructor so it is never merged), 3 freed
 *   large        2 x kmalloc(20000) (beyond the kmalloc caches), 1 freed
 *   softirq      4 x kmalloc(24, GFP_ATOMIC) in a timer, 1 freed in a
 *                hard-irq hrtimer (in the timer on PREEMPT_RT)
 *   hardirq      2 x kmalloc(40, GFP_ATOMIC) in a hard-irq hrtimer
 *                (a softirq hrtimer on PREEMPT_RT), none freed
 *   realloc      1 x kmalloc(50), krealloc'd in place to 60 (no event:
 *                its requested bytes become 60), then grown to 300, which
 *                frees it from krealloc
 *   realloc_grow the krealloc to 300 (its caller is this site)
 *
 * Writing "paths" exercises the paths the tracepoints do not report (the
 * books count a kfree_rcu() object as freed when it is handed over):
 *   rcu          2000 x kmalloc(64), all freed with kfree_rcu()
 *   bulk         4 rounds of kmem_cache_alloc_bulk(sa_test_cache, 16),
 *                each freed with kmem_cache_free_bulk()
 *   kfree_bulk   300 x kmalloc(96), freed with one kfree_bulk()
 *   grow         1 x kmalloc(44), krealloc'd in place to 60, kept
 *   shrink       1 x kmalloc(120), krealloc'd in place to 30, kept
 *   move         1 x kmalloc(56), moved by a krealloc to 400
 * (sizes no other site uses: the compiler folds identical functions)
 *   move_to      that krealloc (its caller is this site), kept
 * "free" frees what is kept.
 *
 * Writing "helpers" allocates through helpers that do not pass their
 * caller's address on, from two functions each (slab_account names the
 * helper's caller, "... via HELPER"):
 *   kv_a         3 x kvmalloc(300), 1 freed with kvfree() (kvmalloc may
 *                tail-call kmalloc when the size fits in a page: then
 *                the kernel names the caller itself)
 *   kv_b         5 x kvzalloc(5000), 2 freed (more than a page: no tail
 *                call, the kmalloc's site is in the helper)
 *   kpool        mempool_create_kmalloc_pool(2, 136): the pool, its
 *                array of 2 pointers and its 2 reserve elements, freed
 *                when "free" destroys the pool
 *   spool        mempool_create_slab_pool(2, sa_test_pool, 232-byte
 *                objects): the same with 2 objects of that cache
 *   pool_a       4 x mempool_alloc() from the kmalloc pool, 1 freed
 *   pool_b       3 x mempool_alloc() from the slab pool, 1 freed
 *   kvre         kvrealloc() of NULL to 200 bytes (an allocation), then
 *                to 250, to 100 and to 3000 bytes, kept: kvrealloc()
 *                moves the object to grow it and keeps it as it is to
 *                shrink it, the allocator not asked (up to 6.9), or
 *                krealloc()s it, in place where it fits (6.10 on); the
 *                books follow where it went (no kvrealloc() before 5.15)
 * (the pools' reserves are full, so mempool_alloc() allocates and
 * mempool_free() frees).
 *
 * Writing "hold N" allocates N more objects at one site, "drop N" frees N
 * of them (the first held), both in the writer's task, on its CPU:
 *   hold         kmalloc(1500) (a kmalloc-2048 object), at most 64 in
 *                all per load
 *
 * Writing "cycle N C" starts a kernel thread bound to CPU C that, until
 * "stop" (or "free"), allocates N objects at one site and frees them,
 * the first allocated first, and again (at most 64 at a time); stopped,
 * it frees the objects it holds:
 *   cycle        kmalloc(1000) (a kmalloc-1024 object); the books count
 *                every allocation and free, and the objects the thread
 *                holds while it runs (live, objs)
 *
 * Writing "park" installs a hotplug state of its own, "sa_test:park", in
 * the dynamic prepare range (the lowest slot free, no callbacks): a state
 * a CPU coming up can be stopped at (CPU_HOTPLUG_STATE_CONTROL), as a
 * subsystem's prepare state installed after slab_account's would be.
 * Its number is in /sys/devices/system/cpu/hotplug/states.  "unpark" (and
 * the unload) removes it.
 *
 * At load, sa_test_alloc_init (__init code, freed after init) allocates a
 * kmalloc(72) kept until unload: its row must keep its caller's name.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "sat_compat.h"

enum {
	SITE_KMALLOC100,
	SITE_CACHE,
	SITE_LARGE,
	SITE_SOFTIRQ,
	SITE_HARDIRQ,
	SITE_REALLOC,
	SITE_REALLOC_GROW,
	SITE_RCU,
	SITE_BULK,
	SITE_KFREE_BULK,
	SITE_GROW,
	SITE_SHRINK,
	SITE_MOVE,
	SITE_MOVE_TO,
	SITE_KV_A,
	SITE_KV_B,
	SITE_POOL_A,		/* freed before their pools' reserves */
	SITE_POOL_B,
	SITE_KPOOL,
	SITE_SPOOL,
	SITE_KVRE,
	SITE_HOLD,
	SITE_CYCLE,
	NR_SITES
};

#define MAX_OBJS 64
#define SAT_RCU_OBJS 2000
#define SAT_BULK 16
#define SAT_BULK_ROUNDS 4
#define SAT_KFREE_BULK 300
#define SAT_HOLD_SIZE 1500
#define SAT_CYCLE_SIZE 1000

/* Allocating in hard irq context is not allowed on PREEMPT_RT. */
#define SAT_HRTIMER_MODE (IS_ENABLED(CONFIG_PREEMPT_RT) ?		\
			  HRTIMER_MODE_REL_SOFT : HRTIMER_MODE_REL_HARD)

struct sat_obj {
	void *ptr;
	size_t alloc;
	size_t req;
};

struct sat_site {
	const char *func;
	struct sat_obj objs[MAX_OBJS];
	unsigned int nr;		/* objects allocated (slots used) */
	unsigned long allocs, frees, total, req;
	/* Live objects kept outside objs[] (the cycle thread's). */
	unsigned long out_live, out_req, out_objs;
};

static struct sat_site sat_sites[NR_SITES] = {
	[SITE_KMALLOC100]	= { .func = "sa_test_alloc_kmalloc100" },
	[SITE_CACHE]		= { .func = "sa_test_alloc_cache" },
	[SITE_LARGE]		= { .func = "sa_test_alloc_large" },
	[SITE_SOFTIRQ]		= { .func = "sa_test_alloc_softirq" },
	[SITE_HARDIRQ]		= { .func = "sa_test_alloc_hardirq" },
	[SITE_REALLOC]		= { .func = "sa_test_alloc_realloc" },
	[SITE_REALLOC_GROW]	= { .func = "sa_test_alloc_realloc_grow" },
	[SITE_RCU]		= { .func = "sa_test_alloc_rcu" },
	[SITE_BULK]		= { .func = "sa_test_alloc_bulk" },
	[SITE_KFREE_BULK]	= { .func = "sa_test_alloc_kfree_bulk" },
	[SITE_GROW]		= { .func = "sa_test_alloc_grow" },
	[SITE_SHRINK]		= { .func = "sa_test_alloc_shrink" },
	[SITE_MOVE]		= { .func = "sa_test_alloc_move" },
	[SITE_MOVE_TO]		= { .func = "sa_test_alloc_move_to" },
	[SITE_KV_A]		= { .func = "sa_test_alloc_kv_a" },
	[SITE_KV_B]		= { .func = "sa_test_alloc_kv_b" },
	[SITE_POOL_A]		= { .func = "sa_test_alloc_pool_a" },
	[SITE_POOL_B]		= { .func = "sa_test_alloc_pool_b" },
	[SITE_KPOOL]		= { .func = "sa_test_alloc_kpool" },
	[SITE_SPOOL]		= { .func = "sa_test_alloc_spool" },
	[SITE_KVRE]		= { .func = "sa_test_alloc_kvre" },
	[SITE_HOLD]		= { .func = "sa_test_alloc_hold" },
	[SITE_CYCLE]		= { .func = "sa_test_alloc_cycle" },
};

static DEFINE_MUTEX(sat_lock);
static DEFINE_SPINLOCK(sat_irq_lock);	/* objects touched from irqs */
static struct kmem_cache *sat_cache;
static struct kmem_cache *sat_pool_cache;	/* no constructor: mempool */
static mempool_t *sat_kpool, *sat_spool;	/* under sat_lock */
static int sat_remote_cpu = -1;

/* ---- bookkeeping ---------------------------------------------------- */

/* @ptr of @req bytes allocated at @site, handed @alloc bytes (ksize()). */
static void sat_note_alloc_size(int site, void *ptr, size_t req, size_t alloc)
{
	struct sat_site *s = &sat_sites[site];
	struct sat_obj *o;
	unsigned long flags;

	if (!ptr) {
		pr_err("%s: allocation failed\n", s->func);
		return;
	}
	spin_lock_irqsave(&sat_irq_lock, flags);
	if (!WARN_ON_ONCE(s->nr >= MAX_OBJS)) {
		o = &s->objs[s->nr++];
		o->ptr = ptr;
		o->req = req;
		o->alloc = alloc;
		s->allocs++;
		s->total += o->alloc;
		s->req += req;
	}
	spin_unlock_irqrestore(&sat_irq_lock, flags);
}

static void sat_note_alloc(int site, void *ptr, size_t req)
{
	sat_note_alloc_size(site, ptr, req, ptr ? ksize(ptr) : 0);
}

/* An object of @site freed at once: in the sums, in no slot. */
static void sat_note_passing(int site, void *ptr, size_t req)
{
	struct sat_site *s = &sat_sites[site];
	unsigned long flags;

	if (!ptr) {
		pr_err("%s: allocation failed\n", s->func);
		return;
	}
	spin_lock_irqsave(&sat_irq_lock, flags);
	s->allocs++;
	s->frees++;
	s->total += ksize(ptr);
	s->req += req;
	spin_unlock_irqrestore(&sat_irq_lock, flags);
}

/* @ptr of @site now requests @req bytes (an in-place krealloc). */
static void sat_note_resize(int site, void *ptr, size_t req)
{
	struct sat_site *s = &sat_sites[site];
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&sat_irq_lock, flags);
	for (i = 0; i < s->nr; i++) {
		if (s->objs[i].ptr == ptr) {
			s->req += req - s->objs[i].req;
			s->objs[i].req = req;
		}
	}
	spin_unlock_irqrestore(&sat_irq_lock, flags);
}

/* Take the first live object of @site out of the books; NULL if none. */
static void *sat_take(int site)
{
	struct sat_site *s = &sat_sites[site];
	unsigned long flags;
	void *ptr = NULL;
	unsigned int i;

	spin_lock_irqsave(&sat_irq_lock, flags);
	for (i = 0; i < s->nr; i++) {
		if (s->objs[i].ptr) {
			ptr = s->objs[i].ptr;
			s->objs[i].ptr = NULL;
			s->frees++;
			break;
		}
	}
	spin_unlock_irqrestore(&sat_irq_lock, flags);
	return ptr;
}

static void sat_destroy_pool(int site, mempool_t **pool)
{
	/* Its reserve elements are freed with it. */
	while (sat_take(site))
		;
	mempool_destroy(*pool);
	*pool = NULL;
}

static void sat_free(int site)
{
	void *ptr;

	if (site == SITE_KPOOL)
		return sat_destroy_pool(site, &sat_kpool);
	if (site == SITE_SPOOL)
		return sat_destroy_pool(site, &sat_spool);
	ptr = sat_take(site);
	if (!ptr)
		return;
	if (site == SITE_CACHE || site == SITE_BULK)
		kmem_cache_free(sat_cache, ptr);
	else if (site == SITE_KV_A || site == SITE_KV_B || site == SITE_KVRE)
		kvfree(ptr);
	else if (site == SITE_POOL_A)
		mempool_free(ptr, sat_kpool);
	else if (site == SITE_POOL_B)
		mempool_free(ptr, sat_spool);
	else
		kfree(ptr);
}

/* ---- the call sites (one allocation call each) ------------------------ */

/*
 * A tail call would make the allocator's return address point into our
 * caller; the empty asm after the call keeps each function a call site.
 * Functions with arguments are __noclone: a clone is named f.constprop.0.
 */
#define SAT_SITE(expr) ({ void *__p = (expr); barrier_data(__p); __p; })

static noinline void *sa_test_alloc_kmalloc100(void)
{
	return SAT_SITE(kmalloc(100, GFP_KERNEL));
}

static noinline void *sa_test_alloc_cache(void)
{
	return SAT_SITE(kmem_cache_alloc(sat_cache, GFP_KERNEL));
}

static noinline void *sa_test_alloc_large(void)
{
	return SAT_SITE(kmalloc(20000, GFP_KERNEL));
}

static noinline void *sa_test_alloc_softirq(void)
{
	return SAT_SITE(kmalloc(24, GFP_ATOMIC));
}

static noinline void *sa_test_alloc_hardirq(void)
{
	return SAT_SITE(kmalloc(40, GFP_ATOMIC));
}

static noinline void *sa_test_alloc_realloc(void)
{
	return SAT_SITE(kmalloc(50, GFP_KERNEL));
}

static noinline __noclone void *sa_test_alloc_realloc_grow(void *p)
{
	return SAT_SITE(krealloc(p, 300, GFP_KERNEL));
}

struct sat_rcu_obj {
	struct rcu_head rcu;
	char data[64 - sizeof(struct rcu_head)];
};

static noinline struct sat_rcu_obj *sa_test_alloc_rcu(void)
{
	return SAT_SITE(kmalloc(sizeof(struct sat_rcu_obj), GFP_KERNEL));
}

static noinline __noclone int sa_test_alloc_bulk(void **p)
{
	int n = kmem_cache_alloc_bulk(sat_cache, GFP_KERNEL, SAT_BULK, p);

	barrier_data(p);
	return n;
}

static noinline void *sa_test_alloc_kfree_bulk(void)
{
	return SAT_SITE(kmalloc(96, GFP_KERNEL));
}

static noinline void *sa_test_alloc_grow(void)
{
	return SAT_SITE(kmalloc(44, GFP_KERNEL));
}

static noinline void *sa_test_alloc_shrink(void)
{
	return SAT_SITE(kmalloc(120, GFP_KERNEL));
}

static noinline void *sa_test_alloc_move(void)
{
	return SAT_SITE(kmalloc(56, GFP_KERNEL));
}

static noinline __noclone void *sa_test_alloc_move_to(void *p)
{
	return SAT_SITE(krealloc(p, 400, GFP_KERNEL));
}

static noinline void *sa_test_alloc_kv_a(void)
{
	return SAT_SITE(kvmalloc(300, GFP_KERNEL));
}

static noinline void *sa_test_alloc_kv_b(void)
{
	return SAT_SITE(kvzalloc(5000, GFP_KERNEL));
}

static noinline mempool_t *sa_test_alloc_kpool(void)
{
	return SAT_SITE(mempool_create_kmalloc_pool(2, 136));
}

static noinline mempool_t *sa_test_alloc_spool(void)
{
	return SAT_SITE(mempool_create_slab_pool(2, sat_pool_cache));
}

static noinline __noclone void *
sa_test_alloc_kvre(void *p, size_t oldsize, size_t size)
{
	return SAT_SITE(sat_kvrealloc(p, oldsize, size));
}

static noinline void *sa_test_alloc_hold(void)
{
	return SAT_SITE(kmalloc(SAT_HOLD_SIZE, GFP_KERNEL));
}

static noinline void *sa_test_alloc_cycle(void)
{
	return SAT_SITE(kmalloc(SAT_CYCLE_SIZE, GFP_KERNEL));
}

/* Distinct bodies: not folded into one function by the compiler. */
static noinline void *sa_test_alloc_pool_a(void)
{
	return SAT_SITE(mempool_alloc(sat_kpool, GFP_KERNEL));
}

static noinline void *sa_test_alloc_pool_b(void)
{
	return SAT_SITE(mempool_alloc(sat_spool, GFP_NOIO));
}

/* krealloc(@p of @site) to @size, which must keep it in place. */
static void sat_resize(int site, void *p, size_t size)
{
	void *q;

	if (!p)
		return;
	q = krealloc(p, size, GFP_KERNEL);
	if (q != p) {
		/* The pattern wants it in place: the test will say so. */
		pr_err("krealloc(%s, %zu) moved the object\n",
		       sat_sites[site].func, size);
		sat_take(site);
		kfree(q);
		return;
	}
	sat_note_resize(site, p, size);
}

static void *sat_objs[SAT_KFREE_BULK];	/* under sat_lock */

static void sat_paths(void)
{
	void **objs = sat_objs;
	struct sat_rcu_obj *r;
	void *p, *q;
	int i, j;

	BUILD_BUG_ON(SAT_BULK > SAT_KFREE_BULK);
	for (i = 0; i < SAT_RCU_OBJS; i++) {
		r = sa_test_alloc_rcu();
		sat_note_passing(SITE_RCU, r, sizeof(*r));
		if (r)
			kfree_rcu(r, rcu);
	}

	for (i = 0; i < SAT_BULK_ROUNDS; i++) {
		if (!sa_test_alloc_bulk(objs)) {
			pr_err("kmem_cache_alloc_bulk failed\n");
			break;
		}
		for (j = 0; j < SAT_BULK; j++)
			sat_note_alloc(SITE_BULK, objs[j],
				       kmem_cache_size(sat_cache));
		for (j = 0; j < SAT_BULK; j++)
			objs[j] = sat_take(SITE_BULK);
		kmem_cache_free_bulk(sat_cache, SAT_BULK, objs);
	}

	for (i = 0; i < SAT_KFREE_BULK; i++) {
		objs[i] = sa_test_alloc_kfree_bulk();
		sat_note_passing(SITE_KFREE_BULK, objs[i], 96);
	}
	kfree_bulk(SAT_KFREE_BULK, objs);

	p = sa_test_alloc_grow();
	sat_note_alloc(SITE_GROW, p, 44);
	sat_resize(SITE_GROW, p, 60);

	p = sa_test_alloc_shrink();
	sat_note_alloc(SITE_SHRINK, p, 120);
	sat_resize(SITE_SHRINK, p, 30);

	p = sa_test_alloc_move();
	sat_note_alloc(SITE_MOVE, p, 56);
	if (!p)
		return;
	q = sa_test_alloc_move_to(p);
	if (!q)
		return;
	if (q == p)
		pr_warn("krealloc(56 -> 400) did not move the object\n");
	sat_take(SITE_MOVE);
	sat_note_alloc(SITE_MOVE_TO, q, 400);
}

/*
 * What creating @pool allocated, noted at @site: the pool, its array of
 * pointers (kzalloc and kmalloc_array in the mempool code) and its
 * reserve of elements of @req bytes.
 */
/*
 * What ksize() says of a pool's reserved element of @req bytes (from @c, or
 * kmalloc when NULL), without touching it: KASAN keeps the reserve
 * poisoned, and ksize() of it is then reported as a use after free.
 */
static size_t sat_pool_elem_size(void *elem, size_t req, struct kmem_cache *c)
{
#if defined(CONFIG_KASAN) && defined(SAT_HAVE_KMALLOC_SIZE_ROUNDUP)
	/* What ksize() returns under KASAN: the object size. */
	return c ? kmem_cache_size(c) : kmalloc_size_roundup(req);
#else
	return ksize(elem);
#endif
}

static void sat_note_pool(int site, mempool_t *pool, size_t req,
			  struct kmem_cache *c)
{
	int i;

	sat_note_alloc(site, pool, sizeof(*pool));
	sat_note_alloc(site, pool->elements,
		       max(1, pool->min_nr) * sizeof(void *));
	for (i = 0; i < pool->curr_nr; i++)
		sat_note_alloc_size(site, pool->elements[i], req,
				    sat_pool_elem_size(pool->elements[i], req,
						       c));
}

/* kvrealloc() @p of @site from @oldsize to @size; the books follow it. */
static void *sat_kvre_step(void *p, size_t oldsize, size_t size)
{
	void *q = sa_test_alloc_kvre(p, oldsize, size);

	if (!q)
		return p;
	if (q == p) {
		/* A krealloc() in place; the old form asks no one. */
#ifndef SAT_KVREALLOC_OLDSIZE
		sat_note_resize(SITE_KVRE, p, size);
#endif
		return p;
	}
	/* Moved: the old object was freed (its only one is @p). */
	sat_take(SITE_KVRE);
	sat_note_alloc(SITE_KVRE, q, size);
	return q;
}

static void sat_kvrealloc_pattern(void)
{
	void *p = sa_test_alloc_kvre(NULL, 0, 200);

	if (!p)
		return;		/* no kvrealloc() in this kernel */
	sat_note_alloc(SITE_KVRE, p, 200);
	p = sat_kvre_step(p, 200, 250);
	p = sat_kvre_step(p, 250, 100);
	sat_kvre_step(p, 100, 3000);
}

static void sat_helpers(void)
{
	int i;

	sat_kpool = sa_test_alloc_kpool();
	sat_spool = sa_test_alloc_spool();
	if (!sat_kpool || !sat_spool) {
		pr_err("cannot create the mempools\n");
		mempool_destroy(sat_kpool);
		mempool_destroy(sat_spool);
		sat_kpool = NULL;
		sat_spool = NULL;
		return;
	}
	sat_note_pool(SITE_KPOOL, sat_kpool, 136, NULL);
	sat_note_pool(SITE_SPOOL, sat_spool, kmem_cache_size(sat_pool_cache),
		      sat_pool_cache);

	for (i = 0; i < 3; i++)
		sat_note_alloc(SITE_KV_A, sa_test_alloc_kv_a(), 300);
	for (i = 0; i < 5; i++)
		sat_note_alloc(SITE_KV_B, sa_test_alloc_kv_b(), 5000);
	for (i = 0; i < 4; i++)
		sat_note_alloc(SITE_POOL_A, sa_test_alloc_pool_a(), 136);
	for (i = 0; i < 3; i++)
		sat_note_alloc(SITE_POOL_B, sa_test_alloc_pool_b(),
			       kmem_cache_size(sat_pool_cache));
	sat_free(SITE_KV_A);
	sat_free(SITE_KV_B);
	sat_free(SITE_KV_B);
	sat_free(SITE_POOL_A);
	sat_free(SITE_POOL_B);
	sat_kvrealloc_pattern();
}

/* ---- contexts ------------------------------------------------------------ */

static struct timer_list sat_timer;
static struct hrtimer sat_hrtimer;
static DECLARE_COMPLETION(sat_timer_done);
static DECLARE_COMPLETION(sat_hrtimer_done);

static void sat_timer_fn(struct timer_list *t)
{
	int i;

	for (i = 0; i < 4; i++)
		sat_note_alloc(SITE_SOFTIRQ, sa_test_alloc_softirq(), 24);
	sat_free(SITE_KMALLOC100);
	sat_free(SITE_KMALLOC100);
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		sat_free(SITE_SOFTIRQ);
	complete(&sat_timer_done);
}

static enum hrtimer_restart sat_hrtimer_fn(struct hrtimer *t)
{
	int i;

	for (i = 0; i < 2; i++)
		sat_note_alloc(SITE_HARDIRQ, sa_test_alloc_hardirq(), 40);
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		sat_free(SITE_SOFTIRQ);
	complete(&sat_hrtimer_done);
	return HRTIMER_NORESTART;
}

static void sat_remote_fn(struct work_struct *w)
{
	sat_free(SITE_KMALLOC100);
	sat_free(SITE_KMALLOC100);
}

static void sat_local_fn(struct work_struct *w)
{
	int i;

	for (i = 0; i < 10; i++)
		sat_note_alloc(SITE_KMALLOC100, sa_test_alloc_kmalloc100(), 100);
}

static void sat_run(void)
{
	struct work_struct work;
	int local_cpu = cpumask_first(cpu_online_mask);
	void *p, *q;
	int i;

	/* kmalloc100: allocated on the first CPU ... */
	INIT_WORK_ONSTACK(&work, sat_local_fn);
	queue_work_on(local_cpu, system_wq, &work);
	flush_work(&work);
	destroy_work_on_stack(&work);

	for (i = 0; i < 2; i++)
		sat_free(SITE_KMALLOC100);

	/* ... two freed by a work item on another CPU, when there is one */
	sat_remote_cpu = cpumask_any_but(cpu_online_mask, local_cpu);
	if (sat_remote_cpu >= nr_cpu_ids)
		sat_remote_cpu = local_cpu;
	INIT_WORK_ONSTACK(&work, sat_remote_fn);
	queue_work_on(sat_remote_cpu, system_wq, &work);
	flush_work(&work);
	destroy_work_on_stack(&work);

	for (i = 0; i < 8; i++)
		sat_note_alloc(SITE_CACHE, sa_test_alloc_cache(),
			       kmem_cache_size(sat_cache));
	for (i = 0; i < 3; i++)
		sat_free(SITE_CACHE);

	for (i = 0; i < 2; i++)
		sat_note_alloc(SITE_LARGE, sa_test_alloc_large(), 20000);
	sat_free(SITE_LARGE);

	/* softirq: 4 allocations and 2 kmalloc100 frees in a timer */
	reinit_completion(&sat_timer_done);
	mod_timer(&sat_timer, jiffies + 1);
	wait_for_completion(&sat_timer_done);

	/* hard irq: 2 allocations and 1 softirq-site free */
	reinit_completion(&sat_hrtimer_done);
	hrtimer_start(&sat_hrtimer, ns_to_ktime(1000), SAT_HRTIMER_MODE);
	wait_for_completion(&sat_hrtimer_done);

	/* krealloc: in place (no event), then moved */
	p = sa_test_alloc_realloc();
	sat_note_alloc(SITE_REALLOC, p, 50);
	if (!p)
		return;
	q = krealloc(p, 60, GFP_KERNEL);
	if (q != p)
		pr_warn("krealloc(50 -> 60) moved the object\n");
	else
		sat_note_resize(SITE_REALLOC, p, 60);
	q = sa_test_alloc_realloc_grow(p);
	if (!q)
		return;
	if (sat_take(SITE_REALLOC) != p)
		pr_warn("krealloc books out of step\n");
	sat_note_alloc(SITE_REALLOC_GROW, q, 300);
}

/* "hold N": N more objects held at SITE_HOLD, on the writer's CPU. */
static int sat_hold(unsigned int n)
{
	if (n > MAX_OBJS - sat_sites[SITE_HOLD].nr)
		return -ENOSPC;
	while (n--)
		sat_note_alloc(SITE_HOLD, sa_test_alloc_hold(), SAT_HOLD_SIZE);
	return 0;
}

/* "drop N": N of them freed, the first held first. */
static int sat_drop(unsigned int n)
{
	struct sat_site *s = &sat_sites[SITE_HOLD];

	if (n > s->allocs - s->frees)
		return -ENOENT;
	while (n--)
		sat_free(SITE_HOLD);
	return 0;
}

/* ---- the cycle thread ("cycle N C") ----------------------------------- */

static struct task_struct *sat_cycle_task;	/* under sat_lock */
static unsigned int sat_cycle_n;

/* The cycle thread's books of one event at SITE_CYCLE: +1 or -1 object. */
static void sat_cycle_note(void *ptr, int dir)
{
	struct sat_site *s = &sat_sites[SITE_CYCLE];
	size_t alloc = ksize(ptr);
	unsigned long flags;

	spin_lock_irqsave(&sat_irq_lock, flags);
	if (dir > 0) {
		s->allocs++;
		s->total += alloc;
		s->req += SAT_CYCLE_SIZE;
		s->out_live += alloc;
		s->out_req += SAT_CYCLE_SIZE;
		s->out_objs++;
	} else {
		s->frees++;
		s->out_live -= alloc;
		s->out_req -= SAT_CYCLE_SIZE;
		s->out_objs--;
	}
	spin_unlock_irqrestore(&sat_irq_lock, flags);
}

/*
 * The thread: sat_cycle_n objects allocated, then freed (the first
 * first), again and again; once told to stop, even part way through
 * allocating, it frees what it holds and returns.  So its objects rise
 * to n and fall to 0 in turn, and the last round may stop short of n.
 */
static int sat_cycle_fn(void *unused)
{
	void *held[MAX_OBJS];
	unsigned int i, n;
	bool failed = false;

	while (!kthread_should_stop() && !failed) {
		for (n = 0; n < sat_cycle_n && !kthread_should_stop(); n++) {
			held[n] = sa_test_alloc_cycle();
			if (!held[n]) {
				pr_err("sa_test_alloc_cycle: allocation failed\n");
				failed = true;
				break;
			}
			sat_cycle_note(held[n], 1);
		}
		for (i = 0; i < n; i++) {
			sat_cycle_note(held[i], -1);
			kfree(held[i]);
		}
		cond_resched();
	}
	/* kthread_stop() wants the thread until it is told. */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

/* "cycle N C": the thread started on CPU @cpu, @n objects a round. */
static int sat_cycle_start(unsigned int n, unsigned int cpu)
{
	struct task_struct *t;

	if (sat_cycle_task)
		return -EBUSY;
	if (!n || n > MAX_OBJS || cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	sat_cycle_n = n;
	t = kthread_create(sat_cycle_fn, NULL, "sa_test_cycle/%u", cpu);
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, cpu);
	sat_cycle_task = t;
	wake_up_process(t);
	return 0;
}

/* "stop": the thread stops and frees what it holds (no-op if none). */
static void sat_cycle_stop(void)
{
	if (!sat_cycle_task)
		return;
	kthread_stop(sat_cycle_task);
	sat_cycle_task = NULL;
}

static void sat_free_all(void)
{
	int site;

	/* The cycle thread's objects are its own: freed when it stops. */
	sat_cycle_stop();

	for (site = 0; site < NR_SITES; site++)
		while (sat_sites[site].allocs > sat_sites[site].frees)
			sat_free(site);
}

/* ---- /proc/sa_test ---------------------------------------------------- */

static int sat_show(struct seq_file *m, void *v)
{
	int site;

	mutex_lock(&sat_lock);
	seq_printf(m, "# remote_cpu %d online_cpus %u\n", sat_remote_cpu,
		   num_online_cpus());
	seq_puts(m, "# function allocs frees total req live live_req objs\n");
	for (site = 0; site < NR_SITES; site++) {
		struct sat_site *s = &sat_sites[site];
		unsigned long live, live_req, objs;
		unsigned long flags;
		unsigned int i;

		spin_lock_irqsave(&sat_irq_lock, flags);
		live = s->out_live;
		live_req = s->out_req;
		objs = s->out_objs;
		for (i = 0; i < s->nr; i++) {
			if (!s->objs[i].ptr)
				continue;
			live += s->objs[i].alloc;
			live_req += s->objs[i].req;
			objs++;
		}
		spin_unlock_irqrestore(&sat_irq_lock, flags);
		seq_printf(m, "%s %lu %lu %lu %lu %lu %lu %lu\n", s->func,
			   s->allocs, s->frees, s->total, s->req, live,
			   live_req, objs);
	}
	mutex_unlock(&sat_lock);
	return 0;
}

static int sat_open(struct inode *inode, struct file *file)
{
	return single_open(file, sat_show, NULL);
}

/* The "sa_test:park" hotplug state's number, 0 when not installed. */
static int sat_park_state;

static int sat_park(void)
{
	int ret;

	if (sat_park_state)
		return -EBUSY;
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "sa_test:park",
					NULL, NULL);
	if (ret < 0)
		return ret;
	sat_park_state = ret;
	return 0;
}

static void sat_unpark(void)
{
	if (sat_park_state)
		cpuhp_remove_state_nocalls(sat_park_state);
	sat_park_state = 0;
}

static ssize_t sat_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char buf[16] = "";
	unsigned int n, cpu;
	int ret = count;

	if (count >= sizeof(buf) || copy_from_user(buf, ubuf, count))
		return -EINVAL;
	strim(buf);

	mutex_lock(&sat_lock);
	if (!strcmp(buf, "run")) {
		if (sat_sites[SITE_KMALLOC100].nr)
			ret = -EBUSY;	/* one run per load */
		else
			sat_run();
	} else if (!strcmp(buf, "free")) {
		sat_free_all();
	} else if (!strcmp(buf, "helpers")) {
		if (sat_sites[SITE_KV_A].allocs)
			ret = -EBUSY;	/* one run per load */
		else
			sat_helpers();
	} else if (!strcmp(buf, "paths")) {
		if (sat_sites[SITE_RCU].allocs)
			ret = -EBUSY;	/* one run per load */
		else
			sat_paths();
	} else if (sscanf(buf, "hold %u", &n) == 1) {
		ret = sat_hold(n) ?: ret;
	} else if (sscanf(buf, "drop %u", &n) == 1) {
		ret = sat_drop(n) ?: ret;
	} else if (sscanf(buf, "cycle %u %u", &n, &cpu) == 2) {
		ret = sat_cycle_start(n, cpu) ?: ret;
	} else if (!strcmp(buf, "stop")) {
		sat_cycle_stop();
	} else if (!strcmp(buf, "park")) {
		ret = sat_park() ?: ret;
	} else if (!strcmp(buf, "unpark")) {
		sat_unpark();
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&sat_lock);
	return ret;
}

static const struct proc_ops sat_proc_ops = {
	.proc_open	= sat_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= sat_write,
};

static void sat_ctor(void *obj)
{
	memset(obj, 0, 200);
}

static struct proc_dir_entry *sat_proc;
static void *sat_init_obj;

static noinline __init void *sa_test_alloc_init(void)
{
	return SAT_SITE(kmalloc(72, GFP_KERNEL));
}

static int __init sat_init(void)
{
	sat_cache = kmem_cache_create("sa_test_cache", 200, 0, 0, sat_ctor);
	if (!sat_cache)
		return -ENOMEM;
	sat_pool_cache = kmem_cache_create("sa_test_pool", 232, 0, 0, NULL);
	if (!sat_pool_cache) {
		kmem_cache_destroy(sat_cache);
		return -ENOMEM;
	}
	sat_init_obj = sa_test_alloc_init();
	timer_setup(&sat_timer, sat_timer_fn, 0);
	hrtimer_setup(&sat_hrtimer, sat_hrtimer_fn, CLOCK_MONOTONIC,
		      SAT_HRTIMER_MODE);
	sat_proc = proc_create("sa_test", 0600, NULL, &sat_proc_ops);
	if (!sat_proc) {
		kfree(sat_init_obj);
		kmem_cache_destroy(sat_pool_cache);
		kmem_cache_destroy(sat_cache);
		return -ENOMEM;
	}
	return 0;
}

static void __exit sat_exit(void)
{
	proc_remove(sat_proc);
	sat_unpark();
	timer_delete_sync(&sat_timer);
	hrtimer_cancel(&sat_hrtimer);
	sat_free_all();
	kfree(sat_init_obj);
	kmem_cache_destroy(sat_pool_cache);
	kmem_cache_destroy(sat_cache);
}

module_init(sat_init);
module_exit(sat_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("slab_account selftest: a known allocation pattern");
