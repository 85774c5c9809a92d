// SPDX-License-Identifier: GPL-2.0
/*
 * sa_tree: one allocation site reached by 2^depth distinct stacks, for
 * the unload verdict's test of a load that owns many rows
 * (tests/guest/sa_unload_test.c): under capture, each stack is a child
 * row of the site.
 *
 * At load, for each path from 0 to 2^depth - 1, sa_tree_walk() goes down
 * depth levels, each through sa_tree_a() or sa_tree_b() as the path's
 * next bit says, and the last calls sa_tree_site(), which holds the one
 * allocation call: kmalloc(ST_SIZE).  Each level's frame returns into a
 * or b after a call to a, b or the site, so two paths give two stacks as
 * long as the stack kept holds every level (slab_account keeps 16 frames
 * from the call site: depth is at most 14).  Every object stays live
 * until the unload, where they are all left live (a leak on purpose,
 * which kmemleak is told of).
 * /proc/sa_tree says what was allocated (the books):
 *   sa_tree_site allocs frees total req live live_req objs
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

static unsigned int depth = 10;
module_param(depth, uint, 0444);
MODULE_PARM_DESC(depth, "levels of the walk: 2^depth stacks, at most 14");

static void **st_objs;		/* vmalloc'ed: no slab site of this module */
static unsigned long st_allocs, st_total;
static struct proc_dir_entry *st_proc;

static noinline __noclone void *sa_tree_site(void)
{
	void *p = kmalloc(ST_SIZE, GFP_KERNEL);

	barrier_data(p);
	return p;
}

static noinline void *sa_tree_a(unsigned int level, unsigned long path);
static noinline void *sa_tree_b(unsigned int level, unsigned long path);

/* The next level of the walk: the site, or a or b by the path's bit. */
static __always_inline void *st_next(unsigned int level, unsigned long path)
{
	if (!level)
		return sa_tree_site();
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

	seq_printf(m, "# depth %u\n", depth);
	seq_printf(m, "sa_tree_site %lu 0 %lu %lu %lu %lu %lu\n", st_allocs,
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

	if (depth > ST_DEPTH_MAX)
		return -EINVAL;
	n = 1UL << depth;
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
	unsigned long i, n = 1UL << depth;

	proc_remove(st_proc);
	/* A leak on purpose: none for kmemleak to report. */
	for (i = 0; i < n; i++)
		if (st_objs[i])
			kmemleak_not_leak(st_objs[i]);
	pr_info("leaving %lu objects live\n", st_allocs);
	vfree(st_objs);
}

module_init(st_init);
module_exit(st_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("slab_account tests: one site reached by many stacks");
