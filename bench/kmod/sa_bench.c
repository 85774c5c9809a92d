// SPDX-License-Identifier: GPL-2.0
/*
 * sa_bench: the in-kernel microbenchmark of `make bench`, in the style of
 * the classic slab_test: it times slab allocations with ktime_get_ns()
 * (under QEMU's -icount shift=0 the guest clock counts instructions, so
 * the figures are the same on every run).
 *
 * Write one command to /proc/sa_bench, then read the result line:
 *   pair SIZE N        N x kfree(kmalloc(SIZE))
 *                        -> pair SIZE N NS
 *   batch SIZE N       N x kmalloc(SIZE), then N x kfree
 *                        -> batch SIZE N NS_ALLOC NS_FREE
 *   cpair N            pairs on a private 200-byte kmem_cache
 *                        -> cpair 200 N NS
 *   cbatch N           N allocs then N frees on that cache
 *                        -> cbatch 200 N NS_ALLOC NS_FREE
 *   remote SIZE N      N x kmalloc(SIZE) on one CPU, their kfree on another
 *                        -> remote SIZE N NS_ALLOC NS_FREE CPU_A CPU_B
 *   par SIZE N CPUS    N pairs at once on each of the first CPUS online CPUs
 *                        -> par SIZE N CPUS SPAN_NS SUM_NS MAX_NS
 *                      (SPAN: first start to last end; SUM and MAX over the
 *                      threads' own start-to-end times)
 *   opar N CPUS        as par 64 N CPUS, each thread with its own call
 *                      site (of SAB_OWN_SITES): what sharing one costs
 *                        -> opar 64 N CPUS SPAN_NS SUM_NS MAX_NS
 *   bulk N             N/16 x kmem_cache_alloc_bulk() of 16 objects of
 *                      that cache, then N/16 x kmem_cache_free_bulk() of
 *                      16 (N rounded down to a multiple of 16, <= 65536)
 *                        -> bulk 200 N NS_ALLOC NS_FREE
 *   realloc N          N x kmalloc(40), krealloc() to 60 (in place: the
 *                      object stays in kmalloc-64), kfree; then N x
 *                      kmalloc(40), krealloc() to 400 (moved), kfree
 *                        -> realloc 40 60 400 N NS_INPLACE NS_MOVED
 *                      (an in-place resize that moves, or a move that
 *                      stays, is error -EPROTO: not what is timed)
 *   shape KIND N       N alloc+free pairs of one shape of call site, each
 *                      shape at a call site of its own (sab_shape_*):
 *                        one    kmalloc(64)+kfree
 *                        vary   kmalloc(SIZE)+kfree, SIZE varying 8..520
 *                               from one call to the next (as kstrdup's)
 *                        big    kmalloc(8192)+kfree
 *                        burst  64 kmalloc()s of mixed sizes (8..520)
 *                               held, then their 64 kfree()s (N rounded
 *                               down to a multiple of 64)
 *                        cache  kmem_cache_alloc+free of the 200-byte cache
 *                        -> shape KIND N NS
 *   pages N            N x __free_pages(alloc_pages(GFP_KERNEL, 0)): the page
 *                      allocator's order-0 pair (the kmem tracepoints'
 *                      mm_page_alloc and mm_page_free, not kmalloc's)
 *                        -> pages 0 N NS
 *   sites K            one kmalloc(32)+kfree from each of K distinct call
 *                      sites (sab_sites+0x...), K <= 10240 (1024 with
 *                      memory allocation profiling compiled in)
 *                        -> sites K NS
 *   hold N             keep N more kmalloc(64) objects live (N <= 65536
 *                      in all) -> hold N HELD
 *   release            free them -> release HELD (also frees hold_many's)
 *   hold_many N        keep N kmalloc(64) objects live at a call site of
 *                      their own (sab_hold_many+0x...), N <= 8388608, none
 *                      held by an earlier hold_many (the scale run: more
 *                      objects than the object table holds)
 *                        -> hold_many N HELD NS
 * SIZE is 8 .. 16384 (16384 is beyond the largest kmalloc cache, 8 KiB, and
 * comes from the page allocator); N <= 65536 for batches.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#define SAB_MAX_BATCH	65536
#define SAB_MAX_SIZE	16384
#define SAB_CACHE_SIZE	200
/*
 * With memory allocation profiling compiled in, every kmalloc call site
 * has an allocation tag whose counters are 16 bytes of the module's static
 * per-CPU data, which may not exceed 32 KiB (PCPU_MIN_UNIT_SIZE): 10240
 * sites would make the module unloadable (sa_bench: Could not allocate
 * 164272 bytes percpu data).  The read rows that need more sites are the
 * 6.1 boot's.
 */
#ifdef CONFIG_MEM_ALLOC_PROFILING
#define SAB_MAX_SITES	1024
#else
#define SAB_MAX_SITES	10240
#endif
#define SAB_BULK	16
#define SAB_RE_FROM	40
#define SAB_RE_GROW	60
#define SAB_RE_MOVE	400
#define SAB_MAX_CPUS	64
#define SAB_MAX_MANY	(8U << 20)

static DEFINE_MUTEX(sab_lock);
static char sab_result[256];
static void **sab_objs;		/* a batch in flight */
static void **sab_held;		/* objects kept live by "hold" */
static unsigned int sab_nr_held;
static void **sab_many;		/* objects kept live by "hold_many" */
static unsigned int sab_nr_many;
static struct kmem_cache *sab_cache;

/* kmalloc with a constant size, as callers usually write it. */
static __always_inline void *sab_kmalloc(unsigned int size)
{
	switch (size) {
	case 8:
		return kmalloc(8, GFP_KERNEL);
	case 16:
		return kmalloc(16, GFP_KERNEL);
	case 32:
		return kmalloc(32, GFP_KERNEL);
	case 64:
		return kmalloc(64, GFP_KERNEL);
	case 128:
		return kmalloc(128, GFP_KERNEL);
	case 256:
		return kmalloc(256, GFP_KERNEL);
	case 512:
		return kmalloc(512, GFP_KERNEL);
	case 1024:
		return kmalloc(1024, GFP_KERNEL);
	case 2048:
		return kmalloc(2048, GFP_KERNEL);
	case 4096:
		return kmalloc(4096, GFP_KERNEL);
	case 8192:
		return kmalloc(8192, GFP_KERNEL);
	case 16384:
		return kmalloc(16384, GFP_KERNEL);
	}
	return kmalloc(size, GFP_KERNEL);
}

static noinline int sab_pair(unsigned int size, unsigned long n, u64 *ns)
{
	unsigned long i;
	u64 t0;
	void *p;

	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		p = sab_kmalloc(size);
		if (!p)
			return -ENOMEM;
		kfree(p);
	}
	*ns = ktime_get_ns() - t0;
	return 0;
}

/*
 * The pair loop of kmalloc(64) at a call site of its own for each of
 * SAB_OWN_SITES threads: one function each, told apart by what it
 * stores (so that no compiler folds them into one).
 */
#define SAB_OWN_SITES	4
static unsigned long sab_own_mark;

#define SAB_OWN_PAIR(k)							\
static noinline int sab_own_pair##k(unsigned long n, u64 *ns)		\
{									\
	unsigned long i;						\
	u64 t0 = ktime_get_ns();					\
	void *p;							\
									\
	WRITE_ONCE(sab_own_mark, k);					\
	for (i = 0; i < n; i++) {					\
		p = kmalloc(64, GFP_KERNEL);				\
		if (!p)							\
			return -ENOMEM;					\
		kfree(p);						\
	}								\
	*ns = ktime_get_ns() - t0;					\
	return 0;							\
}

SAB_OWN_PAIR(0)
SAB_OWN_PAIR(1)
SAB_OWN_PAIR(2)
SAB_OWN_PAIR(3)

static int sab_own_pair(unsigned int k, unsigned long n, u64 *ns)
{
	switch (k % SAB_OWN_SITES) {
	case 0:
		return sab_own_pair0(n, ns);
	case 1:
		return sab_own_pair1(n, ns);
	case 2:
		return sab_own_pair2(n, ns);
	default:
		return sab_own_pair3(n, ns);
	}
}

static noinline int sab_batch(unsigned int size, unsigned long n,
			      u64 *ns_alloc, u64 *ns_free)
{
	unsigned long i, got;
	u64 t0, t1;

	t0 = ktime_get_ns();
	for (got = 0; got < n; got++) {
		sab_objs[got] = sab_kmalloc(size);
		if (!sab_objs[got])
			break;
	}
	t1 = ktime_get_ns();
	for (i = 0; i < got; i++)
		kfree(sab_objs[i]);
	*ns_free = ktime_get_ns() - t1;
	*ns_alloc = t1 - t0;
	return got == n ? 0 : -ENOMEM;
}

static noinline int sab_cpair(unsigned long n, u64 *ns)
{
	unsigned long i;
	u64 t0;
	void *p;

	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		p = kmem_cache_alloc(sab_cache, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		kmem_cache_free(sab_cache, p);
	}
	*ns = ktime_get_ns() - t0;
	return 0;
}

static noinline int sab_cbatch(unsigned long n, u64 *ns_alloc, u64 *ns_free)
{
	unsigned long i, got;
	u64 t0, t1;

	t0 = ktime_get_ns();
	for (got = 0; got < n; got++) {
		sab_objs[got] = kmem_cache_alloc(sab_cache, GFP_KERNEL);
		if (!sab_objs[got])
			break;
	}
	t1 = ktime_get_ns();
	for (i = 0; i < got; i++)
		kmem_cache_free(sab_cache, sab_objs[i]);
	*ns_free = ktime_get_ns() - t1;
	*ns_alloc = t1 - t0;
	return got == n ? 0 : -ENOMEM;
}

/* ---- one shape of call site per loop ----------------------------------- */

#define SAB_BURST	64
#define SAB_VARY_MIN	8
#define SAB_VARY_SPAN	513	/* sizes 8 .. 520 */

/* The @i-th request size of a varying site: every size of 8..520 in turn. */
static inline size_t sab_vary_size(unsigned long i)
{
	return SAB_VARY_MIN + (i * 37) % SAB_VARY_SPAN;
}

static noinline int sab_shape_one(unsigned long n)
{
	unsigned long i;
	void *p;

	for (i = 0; i < n; i++) {
		p = kmalloc(64, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		kfree(p);
	}
	return 0;
}

static noinline int sab_shape_vary(unsigned long n)
{
	unsigned long i;
	void *p;

	for (i = 0; i < n; i++) {
		p = kmalloc(sab_vary_size(i), GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		kfree(p);
	}
	return 0;
}

static noinline int sab_shape_big(unsigned long n)
{
	unsigned long i;
	void *p;

	for (i = 0; i < n; i++) {
		p = kmalloc(8192, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		kfree(p);
	}
	return 0;
}

static noinline int sab_shape_burst(unsigned long n)
{
	void *objs[SAB_BURST];
	unsigned int j, got;
	unsigned long i;

	for (i = 0; i + SAB_BURST <= n; i += SAB_BURST) {
		for (j = 0; j < SAB_BURST; j++) {
			objs[j] = kmalloc(sab_vary_size(i + j), GFP_KERNEL);
			if (!objs[j])
				break;
		}
		got = j;
		while (j)
			kfree(objs[--j]);
		if (got < SAB_BURST)
			return -ENOMEM;
	}
	return 0;
}

static noinline int sab_shape_cache(unsigned long n)
{
	unsigned long i;
	void *p;

	for (i = 0; i < n; i++) {
		p = kmem_cache_alloc(sab_cache, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		kmem_cache_free(sab_cache, p);
	}
	return 0;
}

/* N pairs of shape @kind; -EINVAL for an unknown one. */
static int sab_shape(const char *kind, unsigned long *n, u64 *ns)
{
	u64 t0 = ktime_get_ns();
	int ret;

	if (!strcmp(kind, "one")) {
		ret = sab_shape_one(*n);
	} else if (!strcmp(kind, "vary")) {
		ret = sab_shape_vary(*n);
	} else if (!strcmp(kind, "big")) {
		ret = sab_shape_big(*n);
	} else if (!strcmp(kind, "burst")) {
		*n = rounddown(*n, SAB_BURST);
		ret = sab_shape_burst(*n);
	} else if (!strcmp(kind, "cache")) {
		ret = sab_shape_cache(*n);
	} else {
		return -EINVAL;
	}
	*ns = ktime_get_ns() - t0;
	return ret;
}

static noinline int sab_pages(unsigned long n, u64 *ns)
{
	struct page *page;
	unsigned long i;
	u64 t0;

	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		page = alloc_pages(GFP_KERNEL, 0);
		if (!page)
			return -ENOMEM;
		__free_pages(page, 0);
	}
	*ns = ktime_get_ns() - t0;
	return 0;
}

/* ---- the paths the kmem tracepoints do not report ------------------------ */

static noinline int sab_bulk(unsigned long n, u64 *ns_alloc, u64 *ns_free)
{
	unsigned long i, got;
	u64 t0, t1;

	t0 = ktime_get_ns();
	for (got = 0; got < n; got += SAB_BULK) {
		/* All or nothing: 0 when it fails. */
		if (!kmem_cache_alloc_bulk(sab_cache, GFP_KERNEL, SAB_BULK,
					   &sab_objs[got]))
			break;
	}
	t1 = ktime_get_ns();
	for (i = 0; i < got; i += SAB_BULK)
		kmem_cache_free_bulk(sab_cache, SAB_BULK, &sab_objs[i]);
	*ns_free = ktime_get_ns() - t1;
	*ns_alloc = t1 - t0;
	return got == n ? 0 : -ENOMEM;
}

/* N x kmalloc(SAB_RE_FROM), krealloc() to @to, kfree. */
static noinline int sab_krealloc(unsigned long n, size_t to, bool in_place,
				 u64 *ns)
{
	unsigned long i;
	void *p, *q;
	bool stayed;
	u64 t0;

	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		p = kmalloc(SAB_RE_FROM, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		q = krealloc(p, to, GFP_KERNEL);
		if (!q) {
			kfree(p);
			return -ENOMEM;
		}
		stayed = q == p;
		kfree(q);
		if (stayed != in_place)
			return -EPROTO;
	}
	*ns = ktime_get_ns() - t0;
	return 0;
}

/* ---- remote frees: allocate on one CPU, free on another ---------------- */

struct sab_remote {
	unsigned int size;
	unsigned long n, got;
	u64 ns;
};

static long sab_remote_alloc(void *arg)
{
	struct sab_remote *r = arg;
	u64 t0 = ktime_get_ns();

	for (r->got = 0; r->got < r->n; r->got++) {
		sab_objs[r->got] = sab_kmalloc(r->size);
		if (!sab_objs[r->got])
			break;
	}
	r->ns = ktime_get_ns() - t0;
	return 0;
}

static long sab_remote_free(void *arg)
{
	struct sab_remote *r = arg;
	u64 t0 = ktime_get_ns();
	unsigned long i;

	for (i = 0; i < r->got; i++)
		kfree(sab_objs[i]);
	r->ns = ktime_get_ns() - t0;
	return 0;
}

static int sab_remote(unsigned int size, unsigned long n, u64 *ns_alloc,
		      u64 *ns_free, int *cpu_a, int *cpu_b)
{
	struct sab_remote r = { .size = size, .n = n };

	*cpu_a = cpumask_first(cpu_online_mask);
	*cpu_b = cpumask_next(*cpu_a, cpu_online_mask);
	if (*cpu_b >= nr_cpu_ids)
		return -ENODEV;		/* one CPU: nothing is remote */
	/* The caller sleeps meanwhile: it adds nothing to the guest clock. */
	work_on_cpu(*cpu_a, sab_remote_alloc, &r);
	*ns_alloc = r.ns;
	work_on_cpu(*cpu_b, sab_remote_free, &r);
	*ns_free = r.ns;
	return r.got == n ? 0 : -ENOMEM;
}

/* ---- the pair loop on several CPUs at once ------------------------------ */

struct sab_par {
	struct completion done;
	struct completion *go;
	unsigned int size;
	int own;		/* call site of its own: index, or -1 */
	unsigned long n;
	u64 start, end;
	int err;
};

static int sab_par_thread(void *arg)
{
	struct sab_par *p = arg;

	/* Start together, once every thread exists (sleeping, not spinning). */
	wait_for_completion(p->go);
	p->start = ktime_get_ns();
	if (p->own >= 0)
		p->err = sab_own_pair(p->own, p->n, &p->end);
	else
		p->err = sab_pair(p->size, p->n, &p->end);
	p->end += p->start;
	kthread_complete_and_exit(&p->done, 0);
}

static int sab_par(unsigned int size, unsigned long n, unsigned int ncpus,
		   bool own, u64 *span, u64 *sum, u64 *max)
{
	struct sab_par *par;
	DECLARE_COMPLETION_ONSTACK(go);
	u64 first = U64_MAX, last = 0;
	unsigned int i, started = 0;
	int cpu, err = 0;

	if (!ncpus || ncpus > num_online_cpus() || ncpus > SAB_MAX_CPUS)
		return -EINVAL;
	par = kcalloc(ncpus, sizeof(*par), GFP_KERNEL);
	if (!par)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		struct sab_par *p = &par[started];
		struct task_struct *t;

		if (started == ncpus)
			break;
		init_completion(&p->done);
		p->go = &go;
		p->size = size;
		p->own = own ? started : -1;
		p->n = n;
		t = kthread_create(sab_par_thread, p, "sa_bench/%d", cpu);
		if (IS_ERR(t)) {
			err = PTR_ERR(t);
			break;
		}
		kthread_bind(t, cpu);
		wake_up_process(t);
		started++;
	}
	complete_all(&go);
	*sum = 0;
	*max = 0;
	for (i = 0; i < started; i++) {
		wait_for_completion(&par[i].done);
		if (par[i].err)
			err = par[i].err;
		first = min(first, par[i].start);
		last = max(last, par[i].end);
		*sum += par[i].end - par[i].start;
		*max = max(*max, par[i].end - par[i].start);
	}
	*span = started ? last - first : 0;
	kfree(par);
	return err;
}

/* ---- distinct call sites ------------------------------------------------ */

/* Each expansion of SAB_SITE is one more kmalloc call, one more call site. */
#define SAB_SITE	do { if (k++ < n) kfree(kmalloc(32, GFP_KERNEL)); } while (0)
#define SAB_SITE4	do { SAB_SITE; SAB_SITE; SAB_SITE; SAB_SITE; } while (0)
#define SAB_SITE16	do { SAB_SITE4; SAB_SITE4; SAB_SITE4; SAB_SITE4; } while (0)
#define SAB_SITE64	do { SAB_SITE16; SAB_SITE16; SAB_SITE16; SAB_SITE16; } while (0)
#define SAB_SITE256	do { SAB_SITE64; SAB_SITE64; SAB_SITE64; SAB_SITE64; } while (0)
#define SAB_SITE1024	do { SAB_SITE256; SAB_SITE256; SAB_SITE256; SAB_SITE256; } while (0)
#define SAB_SITE4096	do { SAB_SITE1024; SAB_SITE1024; SAB_SITE1024; SAB_SITE1024; } while (0)

/* SAB_MAX_SITES of them. */
static noinline void sab_sites(unsigned int n)
{
	unsigned int k = 0;

	SAB_SITE1024;
#ifndef CONFIG_MEM_ALLOC_PROFILING
	SAB_SITE4096;
	SAB_SITE4096;
	SAB_SITE1024;
#endif
}

/* ---- objects kept live ---------------------------------------------------- */

static noinline int sab_hold(unsigned long n)
{
	if (n > SAB_MAX_BATCH - sab_nr_held)
		return -EINVAL;
	while (n--) {
		sab_held[sab_nr_held] = kmalloc(64, GFP_KERNEL);
		if (!sab_held[sab_nr_held])
			return -ENOMEM;
		sab_nr_held++;
	}
	return 0;
}

static void sab_release(void)
{
	while (sab_nr_held)
		kfree(sab_held[--sab_nr_held]);
}

/* Their array is sized to the request, allocated with it, freed with them. */
static noinline int sab_hold_many(unsigned long n)
{
	if (!n || n > SAB_MAX_MANY)
		return -EINVAL;
	if (sab_many)
		return -EBUSY;
	sab_many = vmalloc(array_size(n, sizeof(void *)));
	if (!sab_many)
		return -ENOMEM;
	while (sab_nr_many < n) {
		sab_many[sab_nr_many] = kmalloc(64, GFP_KERNEL | __GFP_NOWARN);
		if (!sab_many[sab_nr_many])
			return -ENOMEM;
		sab_nr_many++;
		if (!(sab_nr_many % 4096))
			cond_resched();
	}
	return 0;
}

static void sab_release_many(void)
{
	while (sab_nr_many) {
		kfree(sab_many[--sab_nr_many]);
		if (!(sab_nr_many % 4096))
			cond_resched();
	}
	vfree(sab_many);
	sab_many = NULL;
}

/* ---- /proc/sa_bench ------------------------------------------------------ */

static bool sab_size_ok(unsigned int size)
{
	return size >= 1 && size <= SAB_MAX_SIZE;
}

static int sab_run(const char *cmd)
{
	unsigned long n, size, ncpus;
	u64 a, b, c;
	int ca, cb, ret;
	char *r = sab_result;
	size_t rl = sizeof(sab_result);
	char kind[16];

	if (sscanf(cmd, "pair %lu %lu", &size, &n) == 2) {
		if (!sab_size_ok(size))
			return -EINVAL;
		ret = sab_pair(size, n, &a);
		snprintf(r, rl, "pair %lu %lu %llu\n", size, n, a);
	} else if (sscanf(cmd, "batch %lu %lu", &size, &n) == 2) {
		if (!sab_size_ok(size) || n > SAB_MAX_BATCH)
			return -EINVAL;
		ret = sab_batch(size, n, &a, &b);
		snprintf(r, rl, "batch %lu %lu %llu %llu\n", size, n, a, b);
	} else if (sscanf(cmd, "cpair %lu", &n) == 1) {
		ret = sab_cpair(n, &a);
		snprintf(r, rl, "cpair %u %lu %llu\n", SAB_CACHE_SIZE, n, a);
	} else if (sscanf(cmd, "cbatch %lu", &n) == 1) {
		if (n > SAB_MAX_BATCH)
			return -EINVAL;
		ret = sab_cbatch(n, &a, &b);
		snprintf(r, rl, "cbatch %u %lu %llu %llu\n", SAB_CACHE_SIZE,
			 n, a, b);
	} else if (sscanf(cmd, "shape %15s %lu", kind, &n) == 2) {
		ret = sab_shape(kind, &n, &a);
		if (ret == -EINVAL)
			return ret;
		snprintf(r, rl, "shape %s %lu %llu\n", kind, n, a);
	} else if (sscanf(cmd, "pages %lu", &n) == 1) {
		ret = sab_pages(n, &a);
		snprintf(r, rl, "pages 0 %lu %llu\n", n, a);
	} else if (sscanf(cmd, "bulk %lu", &n) == 1) {
		if (n > SAB_MAX_BATCH)
			return -EINVAL;
		n = rounddown(n, SAB_BULK);
		ret = sab_bulk(n, &a, &b);
		snprintf(r, rl, "bulk %u %lu %llu %llu\n", SAB_CACHE_SIZE, n,
			 a, b);
	} else if (sscanf(cmd, "realloc %lu", &n) == 1) {
		ret = sab_krealloc(n, SAB_RE_GROW, true, &a);
		if (!ret)
			ret = sab_krealloc(n, SAB_RE_MOVE, false, &b);
		snprintf(r, rl, "realloc %u %u %u %lu %llu %llu\n", SAB_RE_FROM,
			 SAB_RE_GROW, SAB_RE_MOVE, n, a, b);
	} else if (sscanf(cmd, "remote %lu %lu", &size, &n) == 2) {
		if (!sab_size_ok(size) || n > SAB_MAX_BATCH)
			return -EINVAL;
		ret = sab_remote(size, n, &a, &b, &ca, &cb);
		snprintf(r, rl, "remote %lu %lu %llu %llu %d %d\n", size, n,
			 a, b, ca, cb);
	} else if (sscanf(cmd, "par %lu %lu %lu", &size, &n, &ncpus) == 3) {
		if (!sab_size_ok(size))
			return -EINVAL;
		ret = sab_par(size, n, ncpus, false, &a, &b, &c);
		snprintf(r, rl, "par %lu %lu %lu %llu %llu %llu\n", size, n,
			 ncpus, a, b, c);
	} else if (sscanf(cmd, "opar %lu %lu", &n, &ncpus) == 2) {
		ret = sab_par(64, n, ncpus, true, &a, &b, &c);
		snprintf(r, rl, "opar 64 %lu %lu %llu %llu %llu\n", n, ncpus,
			 a, b, c);
	} else if (sscanf(cmd, "sites %lu", &n) == 1) {
		if (n > SAB_MAX_SITES)
			return -EINVAL;
		a = ktime_get_ns();
		sab_sites(n);
		a = ktime_get_ns() - a;
		ret = 0;
		snprintf(r, rl, "sites %lu %llu\n", n, a);
	} else if (sscanf(cmd, "hold %lu", &n) == 1) {
		ret = sab_hold(n);
		snprintf(r, rl, "hold %lu %u\n", n, sab_nr_held);
	} else if (sscanf(cmd, "hold_many %lu", &n) == 1) {
		a = ktime_get_ns();
		ret = sab_hold_many(n);
		a = ktime_get_ns() - a;
		snprintf(r, rl, "hold_many %lu %u %llu\n", n, sab_nr_many, a);
	} else if (!strcmp(cmd, "release")) {
		sab_release();
		sab_release_many();
		ret = 0;
		snprintf(r, rl, "release %u\n", sab_nr_held);
	} else {
		return -EINVAL;
	}
	if (ret)
		snprintf(r, rl, "error %d\n", ret);
	return ret;
}

static ssize_t sab_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char buf[64];
	int ret;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	strim(buf);

	mutex_lock(&sab_lock);
	ret = sab_run(buf);
	mutex_unlock(&sab_lock);
	return ret ? ret : count;
}

static int sab_show(struct seq_file *m, void *v)
{
	mutex_lock(&sab_lock);
	seq_puts(m, sab_result);
	mutex_unlock(&sab_lock);
	return 0;
}

static int sab_open(struct inode *inode, struct file *file)
{
	return single_open(file, sab_show, NULL);
}

static const struct proc_ops sab_proc_ops = {
	.proc_open	= sab_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= sab_write,
};

static struct proc_dir_entry *sab_proc;

static int __init sab_init(void)
{
	sab_objs = vmalloc(array_size(SAB_MAX_BATCH, sizeof(void *)));
	sab_held = vmalloc(array_size(SAB_MAX_BATCH, sizeof(void *)));
	sab_cache = kmem_cache_create("sa_bench_cache", SAB_CACHE_SIZE, 0, 0,
				      NULL);
	if (!sab_objs || !sab_held || !sab_cache)
		goto fail;
	sab_proc = proc_create("sa_bench", 0600, NULL, &sab_proc_ops);
	if (!sab_proc)
		goto fail;
	return 0;
fail:
	kmem_cache_destroy(sab_cache);
	vfree(sab_held);
	vfree(sab_objs);
	return -ENOMEM;
}

static void __exit sab_exit(void)
{
	proc_remove(sab_proc);
	sab_release();
	sab_release_many();
	kmem_cache_destroy(sab_cache);
	vfree(sab_held);
	vfree(sab_objs);
}

module_init(sab_init);
module_exit(sab_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("slab_account benchmark: timed slab allocation patterns");
