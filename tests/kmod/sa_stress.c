// SPDX-License-Identifier: GPL-2.0
/*
 * sa_stress: allocation and free storms on every online CPU, with exact
 * books per call site, for the slab_account stress test.
 *
 * Per online CPU: a kthread bound to it, a pinned timer (softirq), a
 * pinned hrtimer (hard irq; soft on PREEMPT_RT) and an irq_work queued by
 * the kthread.  They allocate from the sites below and free objects of
 * their own CPU's pool; each kthread also frees objects from the next
 * CPU's pool (frees on another CPU than the allocation).  Every object
 * records its site and requested size in its first bytes, so whoever
 * frees it charges the right site.
 *
 * Each sa_stress_* function holds exactly one allocation call, so each is
 * one call site:
 *   sa_stress_small    kmalloc(8..256, GFP_KERNEL), kthreads
 *   sa_stress_mid      kmalloc(257..4096, GFP_KERNEL), kthreads
 *   sa_stress_large    kmalloc(8193..20000, GFP_KERNEL), kthreads (rare)
 *   sa_stress_cache    kmem_cache_alloc(sa_stress_cache), kthreads
 *   sa_stress_softirq  kmalloc(8..512, GFP_ATOMIC) in the timers
 *   sa_stress_hardirq  kmalloc(8..512, GFP_ATOMIC) in the hrtimers
 *   sa_stress_irqwork  kmalloc(8..512, GFP_ATOMIC) in the irq_works
 *   sa_stress_fixed    kmalloc(100, GFP_KERNEL), kthreads: one size, so
 *                      that its rows' ratios are known after a reset
 *   sa_stress_big      kmalloc(SAS_BIG_REQ) from the page allocator
 *                      (1 MiB handed out), kthreads, freed at once: its
 *                      bytes pass 2^32 within seconds, the per-CPU
 *                      counters' high words carrying all along
 *   sa_stress_rcu      kmalloc(SAS_RCU_REQ), kthreads, freed at once with
 *                      kfree_rcu() (into a sheaf on 7.x, a batch before);
 *                      the books count it freed when handed over
 *
 * Writes to /proc/sa_stress:
 *   start  start (or resume) the storm
 *   stop   stop it and wait until no storm code runs any more; the pools
 *          keep their objects
 *   free   free every pooled object (only while stopped)
 *   zero   clear the cumulative books (allocs, frees, total, req); the
 *          live figures stay (as slab_account's reset)
 * Reading it prints, per site, the same columns as /proc/sa_test:
 *   <function> allocs frees total req live live_req objs
 * sizes from ksize() (what the allocator handed out) and the requested
 * sizes, then "# failed N" (GFP_ATOMIC allocations that returned NULL).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "sat_compat.h"

enum {
	SAS_SMALL,
	SAS_MID,
	SAS_LARGE,
	SAS_CACHE,
	SAS_SOFTIRQ,
	SAS_HARDIRQ,
	SAS_IRQWORK,
	SAS_FIXED,
	SAS_BIG,
	SAS_RCU,
	SAS_NR_SITES
};

#define SAS_POOL	256	/* objects a CPU's pool holds */
#define SAS_MAGIC	0x5a5a
#define SAS_CACHE_SIZE	152
#define SAS_FIXED_REQ	100
#define SAS_BIG_REQ	(1000 * 1000)
#define SAS_RCU_REQ	88

/* Allocating in hard irq context is not allowed on PREEMPT_RT. */
#define SAS_HRTIMER_MODE (IS_ENABLED(CONFIG_PREEMPT_RT) ?		\
			  HRTIMER_MODE_REL_PINNED_SOFT :		\
			  HRTIMER_MODE_REL_PINNED_HARD)

/* At the start of every object: who allocated it and how much it asked. */
struct sas_hdr {
	u32 req;
	u16 site;
	u16 magic;
};

struct sas_books {
	const char *func;
	atomic64_t allocs, frees, total, req, live, live_req, objs;
};

static struct sas_books sas_books[SAS_NR_SITES] = {
	[SAS_SMALL]	= { .func = "sa_stress_small" },
	[SAS_MID]	= { .func = "sa_stress_mid" },
	[SAS_LARGE]	= { .func = "sa_stress_large" },
	[SAS_CACHE]	= { .func = "sa_stress_cache" },
	[SAS_SOFTIRQ]	= { .func = "sa_stress_softirq" },
	[SAS_HARDIRQ]	= { .func = "sa_stress_hardirq" },
	[SAS_IRQWORK]	= { .func = "sa_stress_irqwork" },
	[SAS_FIXED]	= { .func = "sa_stress_fixed" },
	[SAS_BIG]	= { .func = "sa_stress_big" },
	[SAS_RCU]	= { .func = "sa_stress_rcu" },
};

/* What sa_stress_rcu allocates: a header, the rcu_head, padding. */
struct sas_rcu_obj {
	u64 hdr;
	struct rcu_head rcu;
	u8 pad[SAS_RCU_REQ - sizeof(u64) - sizeof(struct rcu_head)];
};

struct sas_cpu {
	spinlock_t lock;		/* pool: taken in every context */
	void *pool[SAS_POOL];
	unsigned int nr;
	u32 rnd;			/* kthread's random state */
	u32 irq_rnd;			/* timers' and irq_work's */
	int cpu;
	struct task_struct *thread;
	struct mutex work_lock;		/* held for each round of work */
	struct timer_list timer;
	struct hrtimer hrtimer;
	struct irq_work irq_work;
};

static DEFINE_PER_CPU(struct sas_cpu, sas_cpus);
static struct kmem_cache *sas_cache;
static atomic64_t sas_failed = ATOMIC64_INIT(0);
static bool sas_running;
static DECLARE_WAIT_QUEUE_HEAD(sas_wq);
static DEFINE_MUTEX(sas_ctl_lock);
static cpumask_t sas_mask;		/* CPUs with a kthread */

static u32 sas_rand(u32 *s)
{
	u32 x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

/* ---- the call sites (one allocation call each) ------------------------ */

/* Keeps each function a call site: no tail call into the allocator. */
#define SAS_SITE(expr) ({ void *__p = (expr); barrier_data(__p); __p; })

/*
 * Each site computes its own size range, so that no two of them are the
 * same code (GCC would fold identical functions into one call site), and
 * is never cloned (gcc 16 makes sa_stress_small.constprop.0 of a site
 * whose argument is the same at every call, a name the books lack).
 */
static noinline __noclone void *sa_stress_small(u32 r, size_t *n)
{
	*n = 8 + r % 249;
	return SAS_SITE(kmalloc(*n, GFP_KERNEL));
}

static noinline __noclone void *sa_stress_mid(u32 r, size_t *n)
{
	*n = 257 + r % 3840;
	return SAS_SITE(kmalloc(*n, GFP_KERNEL));
}

static noinline __noclone void *sa_stress_large(u32 r, size_t *n)
{
	*n = 8193 + r % 11808;
	return SAS_SITE(kmalloc(*n, GFP_KERNEL));
}

static noinline __noclone void *sa_stress_cache(void)
{
	return SAS_SITE(kmem_cache_alloc(sas_cache, GFP_KERNEL));
}

static noinline __noclone void *sa_stress_softirq(u32 r, size_t *n)
{
	*n = 8 + r % 505;
	return SAS_SITE(kmalloc(*n, GFP_ATOMIC));
}

static noinline __noclone void *sa_stress_hardirq(u32 r, size_t *n)
{
	*n = 16 + r % 497;
	return SAS_SITE(kmalloc(*n, GFP_ATOMIC));
}

static noinline __noclone void *sa_stress_irqwork(u32 r, size_t *n)
{
	*n = 24 + r % 489;
	return SAS_SITE(kmalloc(*n, GFP_ATOMIC));
}

static noinline __noclone void *sa_stress_fixed(size_t *n)
{
	*n = SAS_FIXED_REQ;
	return SAS_SITE(kmalloc(SAS_FIXED_REQ, GFP_KERNEL));
}

static noinline __noclone void *sa_stress_big(size_t *n)
{
	*n = SAS_BIG_REQ;
	return SAS_SITE(kmalloc(SAS_BIG_REQ, GFP_KERNEL | __GFP_NOWARN));
}

static noinline __noclone struct sas_rcu_obj *sa_stress_rcu(size_t *n)
{
	*n = sizeof(struct sas_rcu_obj);
	return SAS_SITE(kmalloc(sizeof(struct sas_rcu_obj), GFP_KERNEL));
}

/* ---- books and pools ---------------------------------------------------- */

static void sas_note_alloc(void *p, int site, size_t req)
{
	struct sas_books *b = &sas_books[site];
	struct sas_hdr *h = p;
	size_t alloc = ksize(p);

	h->req = req;
	h->site = site;
	h->magic = SAS_MAGIC;
	atomic64_inc(&b->allocs);
	atomic64_add(alloc, &b->total);
	atomic64_add(req, &b->req);
	atomic64_add(alloc, &b->live);
	atomic64_add(req, &b->live_req);
	atomic64_inc(&b->objs);
}

/* The books of a free of @p, which leaves the pool now. */
static void sas_note_free(void *p)
{
	struct sas_hdr *h = p;
	struct sas_books *b = &sas_books[h->site];

	atomic64_inc(&b->frees);
	atomic64_sub(ksize(p), &b->live);
	atomic64_sub(h->req, &b->live_req);
	atomic64_dec(&b->objs);
	h->magic = 0;
}

static void sas_free(void *p)
{
	struct sas_hdr *h = p;
	bool cache = h->site == SAS_CACHE;

	if (WARN_ON_ONCE(h->magic != SAS_MAGIC || h->site >= SAS_NR_SITES))
		return;
	sas_note_free(p);
	if (cache)
		kmem_cache_free(sas_cache, p);
	else
		kfree(p);
}

/* Put @p in @c's pool; returns an object to free instead when full. */
static void *sas_put(struct sas_cpu *c, void *p, u32 r)
{
	unsigned long flags;
	void *old = NULL;

	spin_lock_irqsave(&c->lock, flags);
	if (c->nr < SAS_POOL) {
		c->pool[c->nr++] = p;
	} else {
		unsigned int i = r % SAS_POOL;

		old = c->pool[i];
		c->pool[i] = p;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return old;
}

/* Take a random object out of @c's pool; NULL if empty. */
static void *sas_take(struct sas_cpu *c, u32 r)
{
	unsigned long flags;
	void *p = NULL;

	spin_lock_irqsave(&c->lock, flags);
	if (c->nr) {
		unsigned int i = r % c->nr;

		p = c->pool[i];
		c->pool[i] = c->pool[--c->nr];
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return p;
}

/* Allocations are never made or freed under the pool lock. */
static void sas_keep(struct sas_cpu *c, void *p, int site, size_t req, u32 r)
{
	void *old;

	if (!p) {
		atomic64_inc(&sas_failed);
		return;
	}
	sas_note_alloc(p, site, req);
	old = sas_put(c, p, r);
	if (old)
		sas_free(old);
}

/* A few atomic allocations and frees, from timer, hrtimer or irq_work. */
static void sas_irq_round(struct sas_cpu *c, int site)
{
	int i;

	for (i = 0; i < 4; i++) {
		u32 r = sas_rand(&c->irq_rnd);
		size_t n;
		void *p;

		if (site == SAS_SOFTIRQ)
			p = sa_stress_softirq(r, &n);
		else if (site == SAS_HARDIRQ)
			p = sa_stress_hardirq(r, &n);
		else
			p = sa_stress_irqwork(r, &n);
		sas_keep(c, p, site, n, r >> 8);
		if (r & 0x10000) {
			p = sas_take(c, r >> 3);
			if (p)
				sas_free(p);
		}
	}
}

/* ---- contexts ----------------------------------------------------------- */

static void sas_timer_fn(struct timer_list *t)
{
	struct sas_cpu *c = container_of(t, struct sas_cpu, timer);

	if (!READ_ONCE(sas_running))
		return;
	sas_irq_round(c, SAS_SOFTIRQ);
	mod_timer(&c->timer, jiffies + 1);
}

static enum hrtimer_restart sas_hrtimer_fn(struct hrtimer *t)
{
	struct sas_cpu *c = container_of(t, struct sas_cpu, hrtimer);

	if (!READ_ONCE(sas_running))
		return HRTIMER_NORESTART;
	sas_irq_round(c, SAS_HARDIRQ);
	hrtimer_forward_now(t, ns_to_ktime(2 * NSEC_PER_MSEC));
	return HRTIMER_RESTART;
}

static void sas_irq_work_fn(struct irq_work *w)
{
	struct sas_cpu *c = container_of(w, struct sas_cpu, irq_work);

	if (READ_ONCE(sas_running))
		sas_irq_round(c, SAS_IRQWORK);
}

/* One round of a kthread: a burst of allocations and frees. */
static void sas_thread_round(struct sas_cpu *c)
{
	struct sas_cpu *next;
	int i, nextcpu;

	nextcpu = cpumask_next(c->cpu, &sas_mask);
	if (nextcpu >= nr_cpu_ids)
		nextcpu = cpumask_first(&sas_mask);
	next = per_cpu_ptr(&sas_cpus, nextcpu);

	for (i = 0; i < 32; i++) {
		u32 r = sas_rand(&c->rnd);
		size_t n = 0;
		void *p;
		int site;

		switch (r % 16) {
		case 0 ... 6:
			site = SAS_SMALL;
			p = sa_stress_small(r >> 4, &n);
			break;
		case 7 ... 9:
			site = SAS_MID;
			p = sa_stress_mid(r >> 4, &n);
			break;
		case 10:
			if ((r >> 4) % 8) {
				site = SAS_SMALL;
				p = sa_stress_small(r >> 7, &n);
				break;
			}
			site = SAS_LARGE;
			p = sa_stress_large(r >> 7, &n);
			break;
		default:
			site = SAS_CACHE;
			n = SAS_CACHE_SIZE;
			p = sa_stress_cache();
			break;
		}
		sas_keep(c, p, site, n, r >> 9);
		/* Free: mostly our own objects, one in four the next CPU's. */
		p = sas_take((r & 0x30000) ? c : next, r >> 5);
		if (p)
			sas_free(p);
		/* One of one size, pooled; a big one, freed at once. */
		if (!(i % 4)) {
			p = sa_stress_fixed(&n);
			sas_keep(c, p, SAS_FIXED, n, r >> 11);
		}
		if (i == 16) {
			p = sa_stress_big(&n);
			if (p) {
				sas_note_alloc(p, SAS_BIG, n);
				sas_free(p);
			} else {
				atomic64_inc(&sas_failed);
			}
		}
		if (i % 8 == 5) {
			struct sas_rcu_obj *o = sa_stress_rcu(&n);

			if (o) {
				sas_note_alloc(o, SAS_RCU, n);
				sas_note_free(o);
				kfree_rcu(o, rcu);
			} else {
				atomic64_inc(&sas_failed);
			}
		}
	}
	irq_work_queue(&c->irq_work);	/* no-op while still pending */
	if (!timer_pending(&c->timer))
		mod_timer(&c->timer, jiffies + 1);
	if (!hrtimer_active(&c->hrtimer))
		hrtimer_start(&c->hrtimer, ns_to_ktime(2 * NSEC_PER_MSEC),
			      SAS_HRTIMER_MODE);
}

static int sas_thread(void *arg)
{
	struct sas_cpu *c = arg;

	while (!kthread_should_stop()) {
		bool ran = false;

		mutex_lock(&c->work_lock);
		if (READ_ONCE(sas_running)) {
			sas_thread_round(c);
			ran = true;
		}
		mutex_unlock(&c->work_lock);
		if (ran) {
			/* A breath for the readers and loaders under test. */
			usleep_range(100, 200);
			continue;
		}
		wait_event_interruptible(sas_wq, READ_ONCE(sas_running) ||
					 kthread_should_stop());
	}
	return 0;
}

/* ---- control (under sas_ctl_lock) ---------------------------------------- */

static void sas_start(void)
{
	WRITE_ONCE(sas_running, true);
	wake_up_all(&sas_wq);
}

static void sas_stop(void)
{
	int cpu;

	WRITE_ONCE(sas_running, false);
	for_each_cpu(cpu, &sas_mask) {
		struct sas_cpu *c = per_cpu_ptr(&sas_cpus, cpu);

		/* Any round that starts from now on sees !sas_running. */
		mutex_lock(&c->work_lock);
		mutex_unlock(&c->work_lock);
		timer_delete_sync(&c->timer);
		hrtimer_cancel(&c->hrtimer);
		irq_work_sync(&c->irq_work);
	}
}

static void sas_free_all(void)
{
	int cpu;

	for_each_cpu(cpu, &sas_mask) {
		struct sas_cpu *c = per_cpu_ptr(&sas_cpus, cpu);
		void *p;

		while ((p = sas_take(c, 0)))
			sas_free(p);
	}
}

static void sas_zero(void)
{
	int i;

	for (i = 0; i < SAS_NR_SITES; i++) {
		atomic64_set(&sas_books[i].allocs, 0);
		atomic64_set(&sas_books[i].frees, 0);
		atomic64_set(&sas_books[i].total, 0);
		atomic64_set(&sas_books[i].req, 0);
	}
	atomic64_set(&sas_failed, 0);
}

/* ---- /proc/sa_stress ----------------------------------------------------- */

static int sas_show(struct seq_file *m, void *v)
{
	int i;

	seq_printf(m, "# running %d cpus %u\n", READ_ONCE(sas_running),
		   cpumask_weight(&sas_mask));
	seq_puts(m, "# function allocs frees total req live live_req objs\n");
	for (i = 0; i < SAS_NR_SITES; i++) {
		struct sas_books *b = &sas_books[i];

		seq_printf(m, "%s %lld %lld %lld %lld %lld %lld %lld\n", b->func,
			   (s64)atomic64_read(&b->allocs),
			   (s64)atomic64_read(&b->frees),
			   (s64)atomic64_read(&b->total),
			   (s64)atomic64_read(&b->req),
			   (s64)atomic64_read(&b->live),
			   (s64)atomic64_read(&b->live_req),
			   (s64)atomic64_read(&b->objs));
	}
	seq_printf(m, "# failed %lld\n", (s64)atomic64_read(&sas_failed));
	return 0;
}

static int sas_open(struct inode *inode, struct file *file)
{
	return single_open(file, sas_show, NULL);
}

static ssize_t sas_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char buf[8] = "";
	int ret = count;

	if (count >= sizeof(buf) || copy_from_user(buf, ubuf, count))
		return -EINVAL;
	strim(buf);

	mutex_lock(&sas_ctl_lock);
	if (!strcmp(buf, "start")) {
		sas_start();
	} else if (!strcmp(buf, "stop")) {
		sas_stop();
	} else if (!strcmp(buf, "free")) {
		if (READ_ONCE(sas_running))
			ret = -EBUSY;
		else
			sas_free_all();
	} else if (!strcmp(buf, "zero")) {
		sas_zero();
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&sas_ctl_lock);
	return ret;
}

static const struct proc_ops sas_proc_ops = {
	.proc_open	= sas_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= sas_write,
};

static void sas_ctor(void *obj)
{
	memset(obj, 0, SAS_CACHE_SIZE);
}

static struct proc_dir_entry *sas_proc;

static void sas_threads_stop(void)
{
	int cpu;

	for_each_cpu(cpu, &sas_mask) {
		struct sas_cpu *c = per_cpu_ptr(&sas_cpus, cpu);

		if (c->thread)
			kthread_stop(c->thread);
		c->thread = NULL;
	}
}

static int __init sas_init(void)
{
	int cpu;

	sas_cache = kmem_cache_create("sa_stress_cache", SAS_CACHE_SIZE, 0, 0,
				      sas_ctor);
	if (!sas_cache)
		return -ENOMEM;

	cpus_read_lock();
	cpumask_copy(&sas_mask, cpu_online_mask);
	cpus_read_unlock();
	for_each_cpu(cpu, &sas_mask) {
		struct sas_cpu *c = per_cpu_ptr(&sas_cpus, cpu);

		spin_lock_init(&c->lock);
		mutex_init(&c->work_lock);
		c->cpu = cpu;
		c->rnd = 0x9e3779b9U * (cpu + 1);
		c->irq_rnd = 0x7f4a7c15U * (cpu + 1);
		timer_setup(&c->timer, sas_timer_fn, TIMER_PINNED);
		hrtimer_setup(&c->hrtimer, sas_hrtimer_fn, CLOCK_MONOTONIC,
			      SAS_HRTIMER_MODE);
		init_irq_work(&c->irq_work, sas_irq_work_fn);
		c->thread = kthread_create(sas_thread, c, "sa_stress/%d", cpu);
		if (IS_ERR(c->thread)) {
			c->thread = NULL;
			sas_threads_stop();
			kmem_cache_destroy(sas_cache);
			return -ENOMEM;
		}
		kthread_bind(c->thread, cpu);
		wake_up_process(c->thread);
	}

	sas_proc = proc_create("sa_stress", 0600, NULL, &sas_proc_ops);
	if (!sas_proc) {
		sas_threads_stop();
		kmem_cache_destroy(sas_cache);
		return -ENOMEM;
	}
	return 0;
}

static void __exit sas_exit(void)
{
	proc_remove(sas_proc);
	mutex_lock(&sas_ctl_lock);
	sas_stop();
	mutex_unlock(&sas_ctl_lock);
	sas_threads_stop();
	sas_free_all();
	kmem_cache_destroy(sas_cache);
}

module_init(sas_init);
module_exit(sas_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("slab_account stress test: allocation storms with exact books");
