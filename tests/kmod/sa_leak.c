// SPDX-License-Identifier: GPL-2.0
/*
 * sa_leak: a driver that leaks at unload, for the unload verdict's tests
 * (and make gate-demo): the sites below allocate at load and, with
 * leak=1 (the default), leave objects live when the module unloads; with
 * leak=0 it frees them all (the fixed driver).  Built twice from this
 * file, as sa_leak and as sa_leak_b (another module of the same size,
 * to be loaded at the addresses sa_leak had).
 *
 * Each sa_leak_* function holds exactly one allocation call:
 *   sa_leak_table   4 x kmalloc(200) (256 handed out), 1 freed at load,
 *                   3 kept at unload
 *   sa_leak_buf     2 x kmalloc(1000) (1024), both kept at unload
 *   sa_leak_ctx     8 x kmem_cache_alloc(<module>_ctx, 72-byte objects, a
 *                   constructor: never merged), 7 freed at load, the last
 *                   at unload (a cache is destroyed empty)
 *   sa_leak_tmp     5 x kmalloc(64), all freed at load
 * With leak=1 the unload leaves 5 objects live (1280 + 2048 bytes, 600 +
 * 2000 requested) from 2 sites.
 * /proc/sa_leak says what was allocated (the books):
 *   <function> allocs frees total req live live_req objs
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kmemleak.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

static bool leak = true;
module_param(leak, bool, 0444);
MODULE_PARM_DESC(leak, "leave objects live at unload (default yes)");

enum { SL_TABLE, SL_BUF, SL_CTX, SL_TMP, SL_NR };

#define SL_TABLE_N	4
#define SL_BUF_N	2
#define SL_CTX_N	8
#define SL_TMP_N	5
#define SL_CTX_SIZE	72

static const char *const sl_funcs[SL_NR] = {
	"sa_leak_table", "sa_leak_buf", "sa_leak_ctx", "sa_leak_tmp",
};

/* How many of each site's objects stay at unload with leak=1. */
static const unsigned int sl_kept[SL_NR] = { 3, 2, 0, 0 };

struct sl_books {
	unsigned long allocs, frees, total, req;
};

static struct sl_books sl_books[SL_NR];
static void *sl_table[SL_TABLE_N], *sl_buf[SL_BUF_N], *sl_ctx[SL_CTX_N];
static struct kmem_cache *sl_ctx_cache;
static struct proc_dir_entry *sl_proc;

#define SL_SITE(expr) ({ void *__p = (expr); barrier_data(__p); __p; })

static noinline void *sa_leak_table(void)
{
	return SL_SITE(kmalloc(200, GFP_KERNEL));
}

static noinline void *sa_leak_buf(void)
{
	return SL_SITE(kmalloc(1000, GFP_KERNEL));
}

static noinline void *sa_leak_ctx(void)
{
	return SL_SITE(kmem_cache_alloc(sl_ctx_cache, GFP_KERNEL));
}

static noinline void *sa_leak_tmp(void)
{
	return SL_SITE(kmalloc(64, GFP_KERNEL));
}

static void sl_note(int site, void *p, size_t req)
{
	if (!p)
		return;
	sl_books[site].allocs++;
	sl_books[site].total += ksize(p);
	sl_books[site].req += req;
}

static void sl_free(int site, void *p)
{
	if (!p)
		return;
	sl_books[site].frees++;
	if (site == SL_CTX)
		kmem_cache_free(sl_ctx_cache, p);
	else
		kfree(p);
}

/* Free the objects of @site in @objs from index @from on. */
static void sl_free_from(int site, void **objs, unsigned int n,
			 unsigned int from)
{
	unsigned int i;

	for (i = from; i < n; i++) {
		sl_free(site, objs[i]);
		objs[i] = NULL;
	}
}

static int sl_show(struct seq_file *m, void *v)
{
	unsigned int i;

	seq_printf(m, "# leak %d\n", leak);
	for (i = 0; i < SL_NR; i++) {
		const struct sl_books *b = &sl_books[i];
		unsigned long objs = b->allocs - b->frees;
		unsigned long size = b->allocs ? b->total / b->allocs : 0;
		unsigned long req = b->allocs ? b->req / b->allocs : 0;

		seq_printf(m, "%s %lu %lu %lu %lu %lu %lu %lu\n", sl_funcs[i],
			   b->allocs, b->frees, b->total, b->req, objs * size,
			   objs * req, objs);
	}
	return 0;
}

static int sl_open(struct inode *inode, struct file *file)
{
	return single_open(file, sl_show, NULL);
}

static const struct proc_ops sl_proc_ops = {
	.proc_open	= sl_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
};

static void sl_ctor(void *obj)
{
}

static int __init sl_init(void)
{
	void *tmp[SL_TMP_N];
	unsigned int i;

	sl_ctx_cache = kmem_cache_create(KBUILD_MODNAME "_ctx", SL_CTX_SIZE,
					 0, 0, sl_ctor);
	if (!sl_ctx_cache)
		return -ENOMEM;
	for (i = 0; i < SL_TABLE_N; i++) {
		sl_table[i] = sa_leak_table();
		sl_note(SL_TABLE, sl_table[i], 200);
	}
	for (i = 0; i < SL_BUF_N; i++) {
		sl_buf[i] = sa_leak_buf();
		sl_note(SL_BUF, sl_buf[i], 1000);
	}
	for (i = 0; i < SL_CTX_N; i++) {
		sl_ctx[i] = sa_leak_ctx();
		sl_note(SL_CTX, sl_ctx[i], SL_CTX_SIZE);
	}
	for (i = 0; i < SL_TMP_N; i++) {
		tmp[i] = sa_leak_tmp();
		sl_note(SL_TMP, tmp[i], 64);
	}
	for (i = 0; i < SL_TMP_N; i++)
		sl_free(SL_TMP, tmp[i]);
	/* Some of them freed while loaded, as a driver does. */
	sl_free_from(SL_TABLE, sl_table, 1, 0);
	sl_free_from(SL_CTX, sl_ctx, SL_CTX_N, 1);
	sl_proc = proc_create(KBUILD_MODNAME, 0400, NULL, &sl_proc_ops);
	return 0;
}

static void __exit sl_exit(void)
{
	proc_remove(sl_proc);
	sl_free_from(SL_CTX, sl_ctx, SL_CTX_N, 0);
	kmem_cache_destroy(sl_ctx_cache);
	if (leak) {
		unsigned int i;

		/* A leak on purpose: none for kmemleak to report. */
		for (i = 0; i < SL_TABLE_N; i++)
			kmemleak_not_leak(sl_table[i]);
		for (i = 0; i < SL_BUF_N; i++)
			kmemleak_not_leak(sl_buf[i]);
		pr_info("leaving %u objects live\n",
			sl_kept[SL_TABLE] + sl_kept[SL_BUF]);
		return;
	}
	sl_free_from(SL_TABLE, sl_table, SL_TABLE_N, 0);
	sl_free_from(SL_BUF, sl_buf, SL_BUF_N, 0);
}

module_init(sl_init);
module_exit(sl_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("slab_account tests: a driver that leaks at unload");
