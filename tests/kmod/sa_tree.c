// SPDX-License-Identifier: GPL-2.0
/*
 * sa_tree: allocation sites each reached by 2^depth distinct stacks, for
 * the unload verdict's tests of a load that owns many rows
 * (tests/guest/sa_unload_test.c): under capture, each stack is a child
 * row of its site.
 *
 * At load, for each site from 0 to sites - 1 and each path from 0 to
 * 2^depth - 1, sa_tree_walk() goes down depth levels, each through
 * sa_tree_a() or sa_tree_b() as the path's next bit says, and the last
 * calls the site's function, sa_tree_site_0() to sa_tree_site_63(), each
 * of which holds one allocation call: kmalloc(ST_SIZE).  Each level's
 * frame returns into a or b after a call to a, b or a site, so two paths
 * give two stacks as long as the stack kept holds every level
 * (slab_account keeps 16 frames from the call site: depth is at most
 * 14).  Every object stays live until the unload, where they are all
 * left live (a leak on purpose, which kmemleak is told of).
 * /proc/sa_tree says what was allocated at all the sites (the books):
 *   sa_tree_sites allocs frees total req live live_req objs
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kmemleak.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#define ST_SIZE		40	/* requested: kmalloc-64 */
#define ST_DEPTH_MAX	14
#define ST_SITES_MAX	64

static unsigned int depth = 10;
module_param(depth, uint, 0444);
MODULE_PARM_DESC(depth, "levels of the walk: 2^depth stacks, at most 14");

static unsigned int sites = 1;
module_param(sites, uint, 0444);
MODULE_PARM_DESC(sites, "allocation sites, each reached by 2^depth stacks: 1 to 64");

static void **st_objs;		/* vmalloc'ed: no slab site of this module */
static unsigned long st_allocs, st_total;
static struct proc_dir_entry *st_proc;

/*
 * gcc may make one function of identical ones (-fipa-icf): each site's
 * function is kept apart, so that each call site is its own.
 */
#ifdef CONFIG_CC_IS_GCC
#define ST_NO_ICF	__attribute__((__no_icf__))
#else
#define ST_NO_ICF
#endif

/* One site's function: its own kmalloc() call, its own call site. */
#define ST_SITE(n)							\
static noinline __noclone ST_NO_ICF void *sa_tree_site_##n(void)	\
{									\
	void *p = kmalloc(ST_SIZE, GFP_KERNEL);				\
									\
	barrier_data(p);						\
	return p;							\
}

ST_SITE(0) ST_SITE(1) ST_SITE(2) ST_SITE(3)
ST_SITE(4) ST_SITE(5) ST_SITE(6) ST_SITE(7)
ST_SITE(8) ST_SITE(9) ST_SITE(10) ST_SITE(11)
ST_SITE(12) ST_SITE(13) ST_SITE(14) ST_SITE(15)
ST_SITE(16) ST_SITE(17) ST_SITE(18) ST_SITE(19)
ST_SITE(20) ST_SITE(21) ST_SITE(22) ST_SITE(23)
ST_SITE(24) ST_SITE(25) ST_SITE(26) ST_SITE(27)
ST_SITE(28) ST_SITE(29) ST_SITE(30) ST_SITE(31)
ST_SITE(32) ST_SITE(33) ST_SITE(34) ST_SITE(35)
ST_SITE(36) ST_SITE(37) ST_SITE(38) ST_SITE(39)
ST_SITE(40) ST_SITE(41) ST_SITE(42) ST_SITE(43)
ST_SITE(44) ST_SITE(45) ST_SITE(46) ST_SITE(47)
ST_SITE(48) ST_SITE(49) ST_SITE(50) ST_SITE(51)
ST_SITE(52) ST_SITE(53) ST_SITE(54) ST_SITE(55)
ST_SITE(56) ST_SITE(57) ST_SITE(58) ST_SITE(59)
ST_SITE(60) ST_SITE(61) ST_SITE(62) ST_SITE(63)

static void *(*const st_sites[ST_SITES_MAX])(void) = {
	sa_tree_site_0, sa_tree_site_1, sa_tree_site_2, sa_tree_site_3,
	sa_tree_site_4, sa_tree_site_5, sa_tree_site_6, sa_tree_site_7,
	sa_tree_site_8, sa_tree_site_9, sa_tree_site_10, sa_tree_site_11,
	sa_tree_site_12, sa_tree_site_13, sa_tree_site_14, sa_tree_site_15,
	sa_tree_site_16, sa_tree_site_17, sa_tree_site_18, sa_tree_site_19,
	sa_tree_site_20, sa_tree_site_21, sa_tree_site_22, sa_tree_site_23,
	sa_tree_site_24, sa_tree_site_25, sa_tree_site_26, sa_tree_site_27,
	sa_tree_site_28, sa_tree_site_29, sa_tree_site_30, sa_tree_site_31,
	sa_tree_site_32, sa_tree_site_33, sa_tree_site_34, sa_tree_site_35,
	sa_tree_site_36, sa_tree_site_37, sa_tree_site_38, sa_tree_site_39,
	sa_tree_site_40, sa_tree_site_41, sa_tree_site_42, sa_tree_site_43,
	sa_tree_site_44, sa_tree_site_45, sa_tree_site_46, sa_tree_site_47,
	sa_tree_site_48, sa_tree_site_49, sa_tree_site_50, sa_tree_site_51,
	sa_tree_site_52, sa_tree_site_53, sa_tree_site_54, sa_tree_site_55,
	sa_tree_site_56, sa_tree_site_57, sa_tree_site_58, sa_tree_site_59,
	sa_tree_site_60, sa_tree_site_61, sa_tree_site_62, sa_tree_site_63,
};

static noinline void *sa_tree_a(unsigned int level, unsigned long path);
static noinline void *sa_tree_b(unsigned int level, unsigned long path);

/*
 * The next level of the walk: a or b by the path's next bit, or, below
 * the last level, the site the path's remaining bits name.
 */
static __always_inline void *st_next(unsigned int level, unsigned long path)
{
	if (!level)
		return st_sites[path]();
	if (path & 1)
		return sa_tree_a(level - 1, path >> 1);
	return sa_tree_b(level - 1, path >> 1);
}

/* Each keeps its frame: the barrier after the call is not a tail call. */
static noinline void *sa_tree_a(unsigned int level, unsigned long path)
{
	void *p = st_next(level, path);

	barrier_data(p);
	return p;
}

static noinline void *sa_tree_b(unsigned int level, unsigned long path)
{
	void *p = st_next(level, path);

	barrier_data(p);
	return p;
}

static noinline void *sa_tree_walk(unsigned long path)
{
	void *p = st_next(depth, path);

	barrier_data(p);
	return p;
}

static int st_show(struct seq_file *m, void *v)
{
	unsigned long size = st_allocs ? st_total / st_allocs : 0;

	seq_printf(m, "# depth %u sites %u\n", depth, sites);
	seq_printf(m, "sa_tree_sites %lu 0 %lu %lu %lu %lu %lu\n", st_allocs,
		   st_total, st_allocs * ST_SIZE, st_allocs * size,
		   st_allocs * ST_SIZE, st_allocs);
	return 0;
}

static int st_open(struct inode *inode, struct file *file)
{
	return single_open(file, st_show, NULL);
}

static const struct proc_ops st_proc_ops = {
	.proc_open	= st_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
};

static int __init st_init(void)
{
	unsigned long i, n;

	if (depth > ST_DEPTH_MAX || !sites || sites > ST_SITES_MAX)
		return -EINVAL;
	/* Path i reaches site i >> depth by its low depth bits. */
	n = (unsigned long)sites << depth;
	st_objs = vzalloc(array_size(n, sizeof(*st_objs)));
	if (!st_objs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		st_objs[i] = sa_tree_walk(i);
		if (!st_objs[i])
			continue;
		st_allocs++;
		st_total += ksize(st_objs[i]);
		cond_resched();
	}
	st_proc = proc_create(KBUILD_MODNAME, 0400, NULL, &st_proc_ops);
	return 0;
}

static void __exit st_exit(void)
{
	unsigned long i, n = (unsigned long)sites << depth;

	proc_remove(st_proc);
	/* A leak on purpose: none for kmemleak to report. */
	for (i = 0; i < n; i++) {
		if (st_objs[i])
			kmemleak_not_leak(st_objs[i]);
		if (!(i % 1024))
			cond_resched();
	}
	pr_info("leaving %lu objects live\n", st_allocs);
	vfree(st_objs);
}

module_init(st_init);
module_exit(st_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("slab_account tests: sites reached by many stacks");
