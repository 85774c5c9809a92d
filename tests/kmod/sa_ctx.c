// SPDX-License-Identifier: GPL-2.0
/*
 * sa_ctx: one allocation site reached from three callers, in chosen
 * contexts, for the tests of slab_account's stacks and split rows
 * (tests/guest/sa_context_test.c).
 *
 * sa_ctx_site() holds the one allocation call: kmalloc_node(size,
 * GFP_ATOMIC, node) with the node NUMA_NO_NODE unless the writer names one
 * (kmalloc() itself then).  sa_ctx_a(), sa_ctx_b() and sa_ctx_c() each
 * call it and note the object in the books, so each is a distinct frame
 * above the site.  Each object carries a tag, a small number the writer
 * chooses, and the node its memory is on.
 *
 * Writes to /proc/sa_ctx, one command per write:
 *   alloc C N SIZE [tag=T] [node=K] [irq[=US]]
 *          N objects of SIZE bytes from caller C (a, b or c), in the
 *          writer's task, or in a hard-irq hrtimer (a softirq one on
 *          PREEMPT_RT) with "irq", set to fire in US microseconds (1
 *          by default, at most SCTX_IRQ_US_MAX); with node=K from node
 *          K's memory
 *   free C N [tag=T] [cpu=K|rcu|irq]
 *          frees the first N held objects of caller C (a, b, c or any)
 *          and of tag T (any tag without it): in the writer's task, in a
 *          work item on CPU K, in RCU callbacks (call_rcu(), then
 *          rcu_barrier(): done when the write returns) or in a hard-irq
 *          hrtimer
 *   free all
 *          frees every held object in the writer's task
 *   load start C SIZE [tag=T]
 *          a kthread allocating SIZE bytes from caller C in a loop,
 *          holding 32 of its objects (one freed for each one allocated
 *          beyond them)
 *   load stop
 *          stops the kthread; the objects it holds stay held
 *   cache alloc N
 *          N objects of the cache SCTX_CACHE_NAME, a name longer than a
 *          row shows (never merged with another cache: it has a
 *          constructor), allocated at sa_ctx_cache_site()
 *   cache free
 *          frees every object of that cache
 * Reading it prints the books, one line per (caller, tag, node) that has
 * allocated:
 *   sa_ctx_C/T/nK allocs frees total req live live_req objs
 * the byte figures from ksize() and the sizes asked for, then
 * "# load allocs N" (the kthread's allocations so far) and
 * "# cache allocs N objs M" (the cache's, which the lines above leave out).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/numa.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "sat_compat.h"

#define SCTX_CALLERS	3
#define SCTX_TAGS	8
#define SCTX_NODES	4
#define SCTX_OBJS	4096
#define SCTX_LOAD_HELD	32
#define SCTX_ANY	(-1)
#define SCTX_CACHE_NAME	"sa_ctx_cache_with_a_long_name"
#define SCTX_CACHE_SIZE	96
#define SCTX_CACHE_OBJS	64
#define SCTX_IRQ_US_MAX	100000	/* irq=US: at most 100 ms */

/* Allocating in hard irq context is not allowed on PREEMPT_RT. */
#define SCTX_HRTIMER_MODE (IS_ENABLED(CONFIG_PREEMPT_RT) ?		\
			   HRTIMER_MODE_REL_SOFT : HRTIMER_MODE_REL_HARD)

struct sctx_books {
	unsigned long allocs, frees, total, req, live, live_req, objs;
};

struct sctx_obj {
	void *ptr;
	size_t alloc, req;
	u8 caller, tag, node;
	bool by_load;
};

/* What an RCU callback frees: the object's first bytes while it waits. */
struct sctx_rcu {
	struct rcu_head head;
};

static DEFINE_MUTEX(sctx_lock);		/* one command at a time */
static DEFINE_SPINLOCK(sctx_books_lock);	/* books and objects, any context */
static struct sctx_books sctx_books[SCTX_CALLERS][SCTX_TAGS][SCTX_NODES];
static struct sctx_obj sctx_objs[SCTX_OBJS];
static unsigned long sctx_load_allocs;
static struct task_struct *sctx_loader;
/* The long-named cache and its objects: under sctx_lock. */
static struct kmem_cache *sctx_cache;
static void *sctx_cache_objs[SCTX_CACHE_OBJS];
static unsigned int sctx_cache_held;
static unsigned long sctx_cache_allocs;

/* ---- the site and its three callers ----------------------------------- */

/*
 * A tail call would make the allocator's return address point into the
 * caller; the empty asm after each call keeps the site and each caller a
 * frame of its own.  The site is __noclone: a clone is named
 * f.constprop.0.
 */
#define SCTX_CALL(expr) ({ void *__p = (expr); barrier_data(__p); __p; })

static noinline __noclone void *sa_ctx_site(size_t size, int node)
{
	return SCTX_CALL(kmalloc_node(size, GFP_ATOMIC, node));
}

static bool sctx_note(int caller, void *p, size_t size, int tag, bool load);

/* Each caller passes its own index on: no two of them are folded. */
static noinline void *sa_ctx_a(size_t size, int node, int tag, bool load)
{
	void *p = sa_ctx_site(size, node);

	return sctx_note(0, p, size, tag, load) ? p : NULL;
}

static noinline void *sa_ctx_b(size_t size, int node, int tag, bool load)
{
	void *p = sa_ctx_site(size, node);

	return sctx_note(1, p, size, tag, load) ? p : NULL;
}

static noinline void *sa_ctx_c(size_t size, int node, int tag, bool load)
{
	void *p = sa_ctx_site(size, node);

	return sctx_note(2, p, size, tag, load) ? p : NULL;
}

static void *sctx_call(int caller, size_t size, int node, int tag, bool load)
{
	switch (caller) {
	case 0:
		return sa_ctx_a(size, node, tag, load);
	case 1:
		return sa_ctx_b(size, node, tag, load);
	default:
		return sa_ctx_c(size, node, tag, load);
	}
}

/* ---- bookkeeping ------------------------------------------------------ */

/*
 * @p of @size bytes from @caller, tagged @tag, into the books and a free
 * slot.  With no slot left the object is freed again and the allocation
 * fails (said in the log): the books never hold an object they lost.
 */
static bool sctx_note(int caller, void *p, size_t size, int tag, bool load)
{
	struct sctx_books *b;
	struct sctx_obj *o = NULL;
	unsigned long flags;
	unsigned int i;
	int node;

	if (!p) {
		pr_err("allocation of %zu bytes failed\n", size);
		return false;
	}
	node = page_to_nid(virt_to_page(p));
	if (node >= SCTX_NODES) {
		pr_err("object on node %d, beyond the books' %d\n", node,
		       SCTX_NODES);
		kfree(p);
		return false;
	}
	spin_lock_irqsave(&sctx_books_lock, flags);
	for (i = 0; i < SCTX_OBJS; i++) {
		if (!sctx_objs[i].ptr) {
			o = &sctx_objs[i];
			break;
		}
	}
	if (o) {
		o->ptr = p;
		o->alloc = ksize(p);
		o->req = size;
		o->caller = caller;
		o->tag = tag;
		o->node = node;
		o->by_load = load;
		b = &sctx_books[caller][tag][node];
		b->allocs++;
		b->total += o->alloc;
		b->req += size;
		b->live += o->alloc;
		b->live_req += size;
		b->objs++;
		if (load)
			sctx_load_allocs++;
	}
	spin_unlock_irqrestore(&sctx_books_lock, flags);
	if (!o) {
		pr_err("no slot left for an object (%d held)\n", SCTX_OBJS);
		kfree(p);
		return false;
	}
	return true;
}

/*
 * Takes up to @n held objects of @caller (or SCTX_ANY) and @tag (or
 * SCTX_ANY), of the loader's or not (@load), out of the books into @out;
 * returns how many.
 */
static unsigned int sctx_take(int caller, int tag, bool load, void **out,
			      unsigned int n)
{
	struct sctx_books *b;
	unsigned long flags;
	unsigned int i, got = 0;

	spin_lock_irqsave(&sctx_books_lock, flags);
	for (i = 0; i < SCTX_OBJS && got < n; i++) {
		struct sctx_obj *o = &sctx_objs[i];

		if (!o->ptr || o->by_load != load ||
		    (caller != SCTX_ANY && o->caller != caller) ||
		    (tag != SCTX_ANY && o->tag != tag))
			continue;
		b = &sctx_books[o->caller][o->tag][o->node];
		b->frees++;
		b->live -= o->alloc;
		b->live_req -= o->req;
		b->objs--;
		out[got++] = o->ptr;
		o->ptr = NULL;
	}
	spin_unlock_irqrestore(&sctx_books_lock, flags);
	return got;
}

/* ---- the contexts ----------------------------------------------------- */

/* What one command hands to another context: a batch and its done. */
struct sctx_job {
	struct hrtimer timer;
	struct work_struct work;
	struct completion done;
	void **ptrs;
	unsigned int n;
	/* An allocation in irq context: these, the result in @made. */
	bool alloc;
	int caller, node, tag;
	size_t size;
	unsigned int made;
};

/* The one job in flight (under sctx_lock), and the objects it frees. */
static struct sctx_job sctx_job;
static void *sctx_ptrs[SCTX_OBJS];

static void sctx_job_run(struct sctx_job *job)
{
	unsigned int i;

	if (job->alloc) {
		for (i = 0; i < job->n; i++)
			if (sctx_call(job->caller, job->size, job->node,
				      job->tag, false))
				job->made++;
		return;
	}
	for (i = 0; i < job->n; i++)
		kfree(job->ptrs[i]);
}

static enum hrtimer_restart sctx_timer_fn(struct hrtimer *t)
{
	struct sctx_job *job = container_of(t, struct sctx_job, timer);

	sctx_job_run(job);
	complete(&job->done);
	return HRTIMER_NORESTART;
}

static void sctx_work_fn(struct work_struct *w)
{
	struct sctx_job *job = container_of(w, struct sctx_job, work);

	sctx_job_run(job);
	complete(&job->done);
}

/* Runs @job in a hard-irq hrtimer @us microseconds on and waits for it. */
static void sctx_in_irq(struct sctx_job *job, unsigned int us)
{
	init_completion(&job->done);
	hrtimer_setup(&job->timer, sctx_timer_fn, CLOCK_MONOTONIC,
		      SCTX_HRTIMER_MODE);
	hrtimer_start(&job->timer, ns_to_ktime((u64)us * NSEC_PER_USEC),
		      SCTX_HRTIMER_MODE);
	wait_for_completion(&job->done);
	hrtimer_cancel(&job->timer);
}

static void sctx_rcu_free(struct rcu_head *head)
{
	kfree(container_of(head, struct sctx_rcu, head));
}

/* ---- the long-named cache ---------------------------------------------- */

static void sctx_ctor(void *p)
{
	memset(p, 0, SCTX_CACHE_SIZE);
}

static noinline __noclone void *sa_ctx_cache_site(void)
{
	return SCTX_CALL(kmem_cache_alloc(sctx_cache, GFP_KERNEL));
}

static int sctx_cache_cmd(const char *what, const char *num)
{
	unsigned int i, n;

	if (!strcmp(what, "free") && !num) {
		while (sctx_cache_held)
			kmem_cache_free(sctx_cache,
					sctx_cache_objs[--sctx_cache_held]);
		return 0;
	}
	if (strcmp(what, "alloc") || !num || kstrtouint(num, 10, &n) || !n ||
	    n > SCTX_CACHE_OBJS - sctx_cache_held)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		void *p = sa_ctx_cache_site();

		if (!p)
			return -ENOMEM;
		sctx_cache_objs[sctx_cache_held++] = p;
		sctx_cache_allocs++;
	}
	return 0;
}

/* ---- the load --------------------------------------------------------- */

struct sctx_load {
	int caller, tag;
	size_t size;
};

static struct sctx_load sctx_load;

static int sctx_load_fn(void *data)
{
	unsigned int held = 0;
	void *old;

	while (!kthread_should_stop()) {
		if (sctx_call(sctx_load.caller, sctx_load.size, NUMA_NO_NODE,
			      sctx_load.tag, true))
			held++;
		if (held > SCTX_LOAD_HELD &&
		    sctx_take(SCTX_ANY, SCTX_ANY, true, &old, 1)) {
			kfree(old);
			held--;
		}
		usleep_range(50, 100);
	}
	return 0;
}

/* ---- control ---------------------------------------------------------- */

static int sctx_caller(const char *s, bool any)
{
	if (!strcmp(s, "a"))
		return 0;
	if (!strcmp(s, "b"))
		return 1;
	if (!strcmp(s, "c"))
		return 2;
	if (any && !strcmp(s, "any"))
		return SCTX_ANY;
	return -EINVAL;
}

/* The optional words of a command: tag=, node=, cpu=, rcu, irq[=US]. */
struct sctx_opts {
	int tag, node, cpu;
	bool rcu, irq;
	unsigned int irq_us;	/* the hrtimer's delay, microseconds */
};

static int sctx_parse_opts(char *rest, struct sctx_opts *o)
{
	char *w;

	while ((w = strsep(&rest, " ")) != NULL) {
		if (!*w)
			return -EINVAL;
		if (!strncmp(w, "tag=", 4)) {
			if (kstrtoint(w + 4, 10, &o->tag) || o->tag < 0 ||
			    o->tag >= SCTX_TAGS)
				return -EINVAL;
		} else if (!strncmp(w, "node=", 5)) {
			if (kstrtoint(w + 5, 10, &o->node) || o->node < 0 ||
			    o->node >= SCTX_NODES || !node_online(o->node))
				return -EINVAL;
		} else if (!strncmp(w, "cpu=", 4)) {
			if (kstrtoint(w + 4, 10, &o->cpu) || o->cpu < 0 ||
			    o->cpu >= nr_cpu_ids || !cpu_online(o->cpu))
				return -EINVAL;
		} else if (!strcmp(w, "rcu")) {
			o->rcu = true;
		} else if (!strcmp(w, "irq")) {
			o->irq = true;
		} else if (!strncmp(w, "irq=", 4)) {
			if (kstrtouint(w + 4, 10, &o->irq_us) || !o->irq_us ||
			    o->irq_us > SCTX_IRQ_US_MAX)
				return -EINVAL;
			o->irq = true;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

static int sctx_alloc_cmd(int caller, unsigned int n, size_t size,
			  struct sctx_opts *o)
{
	struct sctx_job *job = &sctx_job;
	unsigned int i;

	if (o->cpu >= 0 || o->rcu)
		return -EINVAL;
	memset(job, 0, sizeof(*job));
	job->alloc = true;
	job->caller = caller;
	job->node = o->node;
	job->tag = o->tag;
	job->size = size;
	job->n = n;
	if (o->irq) {
		sctx_in_irq(job, o->irq_us);
	} else {
		for (i = 0; i < n; i++)
			if (sctx_call(caller, size, o->node, o->tag, false))
				job->made++;
	}
	return job->made == n ? 0 : -ENOMEM;
}

static int sctx_free_cmd(int caller, unsigned int n, struct sctx_opts *o)
{
	struct sctx_job *job = &sctx_job;
	unsigned int i, got;

	if (o->node != NUMA_NO_NODE || (o->rcu && o->irq) ||
	    (o->cpu >= 0 && (o->rcu || o->irq)))
		return -EINVAL;
	memset(job, 0, sizeof(*job));
	job->ptrs = sctx_ptrs;
	got = sctx_take(caller, o->tag, false, job->ptrs, n);
	job->n = got;
	if (o->irq) {
		sctx_in_irq(job, o->irq_us);
	} else if (o->cpu >= 0) {
		init_completion(&job->done);
		INIT_WORK(&job->work, sctx_work_fn);
		queue_work_on(o->cpu, system_wq, &job->work);
		wait_for_completion(&job->done);
		flush_work(&job->work);
	} else if (o->rcu) {
		for (i = 0; i < got; i++)
			call_rcu(&((struct sctx_rcu *)job->ptrs[i])->head,
				 sctx_rcu_free);
		rcu_barrier();
	} else {
		sctx_job_run(job);
	}
	/* Fewer held than asked for: the frees done, the write refused. */
	return got == n ? 0 : -ENOENT;
}

static void sctx_free_all(void)
{
	void *p;

	while (sctx_take(SCTX_ANY, SCTX_ANY, false, &p, 1))
		kfree(p);
	while (sctx_take(SCTX_ANY, SCTX_ANY, true, &p, 1))
		kfree(p);
}

static void sctx_load_stop(void)
{
	if (sctx_loader) {
		kthread_stop(sctx_loader);
		put_task_struct(sctx_loader);
		sctx_loader = NULL;
	}
}

static int sctx_load_start(int caller, size_t size, struct sctx_opts *o)
{
	struct task_struct *t;

	if (sctx_loader || o->node != NUMA_NO_NODE || o->cpu >= 0 ||
	    o->rcu || o->irq)
		return -EINVAL;
	sctx_load.caller = caller;
	sctx_load.size = size;
	sctx_load.tag = o->tag;
	t = kthread_run(sctx_load_fn, NULL, "sa_ctx_load");
	if (IS_ERR(t))
		return PTR_ERR(t);
	get_task_struct(t);
	sctx_loader = t;
	return 0;
}

static int sctx_command(char *buf)
{
	struct sctx_opts o = { .tag = 0, .node = NUMA_NO_NODE, .cpu = -1,
				.irq_us = 1 };
	char *rest = buf, *verb, *who, *num, *size;
	unsigned int n = 0;
	unsigned long sz = 0;
	int caller, err;

	verb = strsep(&rest, " ");
	who = strsep(&rest, " ");
	if (!verb || !who)
		return -EINVAL;
	if (!strcmp(verb, "cache")) {
		num = strsep(&rest, " ");
		return rest ? -EINVAL : sctx_cache_cmd(who, num);
	}
	if (!strcmp(verb, "free") && !strcmp(who, "all") && !rest) {
		sctx_free_all();
		return 0;
	}
	if (!strcmp(verb, "load") && !strcmp(who, "stop") && !rest) {
		sctx_load_stop();
		return 0;
	}
	if (!strcmp(verb, "load") && !strcmp(who, "start")) {
		who = strsep(&rest, " ");
		if (!who)
			return -EINVAL;
	}
	caller = sctx_caller(who, !strcmp(verb, "free"));
	if (caller == -EINVAL)
		return -EINVAL;
	num = strcmp(verb, "load") ? strsep(&rest, " ") : NULL;
	size = strcmp(verb, "free") ? strsep(&rest, " ") : NULL;
	if ((num && (kstrtouint(num, 10, &n) || !n || n > SCTX_OBJS)) ||
	    (size && (kstrtoul(size, 10, &sz) || sz < sizeof(struct sctx_rcu) ||
		      sz > 65536)))
		return -EINVAL;
	err = sctx_parse_opts(rest, &o);
	if (err)
		return err;
	if (!strcmp(verb, "alloc") && num && size)
		return sctx_alloc_cmd(caller, n, sz, &o);
	if (!strcmp(verb, "free") && num && !size)
		return sctx_free_cmd(caller, n, &o);
	if (!strcmp(verb, "load") && !num && size)
		return sctx_load_start(caller, sz, &o);
	return -EINVAL;
}

static ssize_t sctx_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	char buf[96];
	int err;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (buf[count - 1] == '\n')
		buf[count - 1] = '\0';
	mutex_lock(&sctx_lock);
	err = sctx_command(buf);
	mutex_unlock(&sctx_lock);
	return err ? err : count;
}

static int sctx_show(struct seq_file *m, void *v)
{
	static const char names[SCTX_CALLERS] = { 'a', 'b', 'c' };
	struct sctx_books b;
	unsigned long flags, load;
	int c, t, n;

	for (c = 0; c < SCTX_CALLERS; c++) {
		for (t = 0; t < SCTX_TAGS; t++) {
			for (n = 0; n < SCTX_NODES; n++) {
				spin_lock_irqsave(&sctx_books_lock, flags);
				b = sctx_books[c][t][n];
				spin_unlock_irqrestore(&sctx_books_lock, flags);
				if (!b.allocs)
					continue;
				seq_printf(m, "sa_ctx_%c/%d/n%d %lu %lu %lu %lu %lu %lu %lu\n",
					   names[c], t, n, b.allocs, b.frees,
					   b.total, b.req, b.live, b.live_req,
					   b.objs);
			}
		}
	}
	spin_lock_irqsave(&sctx_books_lock, flags);
	load = sctx_load_allocs;
	spin_unlock_irqrestore(&sctx_books_lock, flags);
	seq_printf(m, "# load allocs %lu\n", load);
	seq_printf(m, "# cache allocs %lu objs %u\n", sctx_cache_allocs,
		   sctx_cache_held);
	return 0;
}

static int sctx_open(struct inode *inode, struct file *file)
{
	return single_open(file, sctx_show, NULL);
}

static const struct proc_ops sctx_proc_ops = {
	.proc_open	= sctx_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= sctx_write,
};

static int __init sctx_init(void)
{
	sctx_cache = kmem_cache_create(SCTX_CACHE_NAME, SCTX_CACHE_SIZE, 0, 0,
				       sctx_ctor);
	if (!sctx_cache)
		return -ENOMEM;
	if (!proc_create("sa_ctx", 0600, NULL, &sctx_proc_ops)) {
		kmem_cache_destroy(sctx_cache);
		return -ENOMEM;
	}
	return 0;
}

static void __exit sctx_exit(void)
{
	remove_proc_entry("sa_ctx", NULL);
	mutex_lock(&sctx_lock);
	sctx_load_stop();
	sctx_free_all();
	sctx_cache_cmd("free", NULL);
	mutex_unlock(&sctx_lock);
	kmem_cache_destroy(sctx_cache);
}

module_init(sctx_init);
module_exit(sctx_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("slab_account developers");
MODULE_DESCRIPTION("One allocation site from three callers in chosen contexts, for slab_account's tests");
