// SPDX-License-Identifier: GPL-2.0
/*
 * sa_age: objects of known ages and request sizes, for the tests of
 * /proc/slab_account_detail, `slabacct --leaks` and `slabacct --advise`.
 *
 * Each sa_age_* function holds exactly one allocation call, so each is one
 * call site:
 *   sa_age_fixed    16 x kmalloc(700) at load, kept until unload: a fixed
 *                   set, old and flat
 *   sa_age_leak     kmalloc(512) once a second while running, kept: a leak
 *   sa_age_churn    100 x kmalloc(320) every 100 ms while running, each
 *                   batch freed by the next: many short-lived objects
 *   sa_age_exact    4 x kmalloc(100) at load, kept (a dedicated cache of
 *                   104 bytes would fit them)
 *   sa_age_above    4 x kmalloc(132) at load, kept (4 bytes more than 128)
 *   sa_age_var      kmalloc of 10, 20, 100, 1000, 5000 and 9000 bytes at
 *                   load, kept: a variable-size site
 *   sa_age_padded   4 x kmem_cache_alloc(sa_age_padded) at load, kept:
 *                   200-byte objects in a cache aligned to 256 bytes
 * Writes to /proc/sa_age: "start" starts the leak and the churn, "stop"
 * stops them (what they hold stays until unload).
 * Reading it prints the books, one line per site:
 *   <function> allocs live req_min req_max age
 * the last being the age of its oldest live object in whole seconds,
 * then "now <seconds since load>".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#define SAA_LEAK_MAX	3600
#define SAA_CHURN	100
#define SAA_FIXED	16
#define SAA_FEW		4

enum {
	AGE_FIXED, AGE_LEAK, AGE_CHURN, AGE_EXACT, AGE_ABOVE, AGE_VAR,
	AGE_PADDED, NR_AGE
};

struct saa_site {
	const char *func;
	unsigned long allocs, live;
	size_t req_min, req_max;
	unsigned long first;		/* jiffies of its oldest live object */
};

static struct saa_site saa_sites[NR_AGE] = {
	[AGE_FIXED]	= { .func = "sa_age_fixed" },
	[AGE_LEAK]	= { .func = "sa_age_leak" },
	[AGE_CHURN]	= { .func = "sa_age_churn" },
	[AGE_EXACT]	= { .func = "sa_age_exact" },
	[AGE_ABOVE]	= { .func = "sa_age_above" },
	[AGE_VAR]	= { .func = "sa_age_var" },
	[AGE_PADDED]	= { .func = "sa_age_padded" },
};

static const size_t saa_var_sizes[] = { 10, 20, 100, 1000, 5000, 9000 };

static DEFINE_MUTEX(saa_lock);
static unsigned long saa_loaded;
static bool saa_running;
static struct kmem_cache *saa_cache;
static void *saa_kept[SAA_FIXED + 3 * SAA_FEW + ARRAY_SIZE(saa_var_sizes)];
static int saa_kept_site[ARRAY_SIZE(saa_kept)];
static unsigned int saa_nr_kept;
static void *saa_leaked[SAA_LEAK_MAX];
static void *saa_churned[SAA_CHURN];
static struct delayed_work saa_leak_work, saa_churn_work;

#define SAA_SITE(expr) ({ void *__p = (expr); barrier_data(__p); __p; })

static noinline void *sa_age_fixed(void)
{
	return SAA_SITE(kmalloc(700, GFP_KERNEL));
}

static noinline void *sa_age_leak(void)
{
	return SAA_SITE(kmalloc(512, GFP_KERNEL));
}

static noinline void *sa_age_churn(void)
{
	return SAA_SITE(kmalloc(320, GFP_KERNEL));
}

static noinline void *sa_age_exact(void)
{
	return SAA_SITE(kmalloc(100, GFP_KERNEL));
}

static noinline void *sa_age_above(void)
{
	return SAA_SITE(kmalloc(132, GFP_KERNEL));
}

static noinline __noclone void *sa_age_var(size_t size)
{
	return SAA_SITE(kmalloc(size, GFP_KERNEL));
}

static noinline void *sa_age_padded(void)
{
	return SAA_SITE(kmem_cache_alloc(saa_cache, GFP_KERNEL));
}

static void saa_ctor(void *obj)
{
}

/* Under saa_lock: @p of @req bytes allocated at @site. */
static bool saa_note(int site, void *p, size_t req)
{
	struct saa_site *s = &saa_sites[site];

	if (!p)
		return false;
	if (!s->allocs || req < s->req_min)
		s->req_min = req;
	if (req > s->req_max)
		s->req_max = req;
	if (!s->live)
		s->first = jiffies;
	s->allocs++;
	s->live++;
	return true;
}

static void saa_keep(int site, void *p, size_t req)
{
	if (saa_note(site, p, req)) {
		saa_kept_site[saa_nr_kept] = site;
		saa_kept[saa_nr_kept++] = p;
	}
}

static void saa_leak_fn(struct work_struct *w)
{
	mutex_lock(&saa_lock);
	if (saa_running && saa_sites[AGE_LEAK].live < SAA_LEAK_MAX) {
		void *p = sa_age_leak();

		if (saa_note(AGE_LEAK, p, 512))
			saa_leaked[saa_sites[AGE_LEAK].live - 1] = p;
		schedule_delayed_work(&saa_leak_work, HZ);
	}
	mutex_unlock(&saa_lock);
}

static void saa_churn_free(void)
{
	unsigned int i;

	for (i = 0; i < SAA_CHURN; i++) {
		if (!saa_churned[i])
			continue;
		kfree(saa_churned[i]);
		saa_churned[i] = NULL;
		saa_sites[AGE_CHURN].live--;
	}
}

static void saa_churn_fn(struct work_struct *w)
{
	unsigned int i;

	mutex_lock(&saa_lock);
	saa_churn_free();
	if (saa_running) {
		for (i = 0; i < SAA_CHURN; i++) {
			void *p = sa_age_churn();

			if (saa_note(AGE_CHURN, p, 320))
				saa_churned[i] = p;
		}
		schedule_delayed_work(&saa_churn_work, HZ / 10);
	}
	mutex_unlock(&saa_lock);
}

static int saa_show(struct seq_file *m, void *v)
{
	unsigned long now = jiffies;
	unsigned int i;

	mutex_lock(&saa_lock);
	for (i = 0; i < NR_AGE; i++) {
		const struct saa_site *s = &saa_sites[i];

		seq_printf(m, "%s %lu %lu %zu %zu %lu\n", s->func, s->allocs,
			   s->live, s->req_min, s->req_max,
			   s->live ? (now - s->first) / HZ : 0);
	}
	seq_printf(m, "now %lu\n", (now - saa_loaded) / HZ);
	mutex_unlock(&saa_lock);
	return 0;
}

static int saa_open(struct inode *inode, struct file *file)
{
	return single_open(file, saa_show, NULL);
}

static void saa_stop(void)
{
	mutex_lock(&saa_lock);
	saa_running = false;
	mutex_unlock(&saa_lock);
	cancel_delayed_work_sync(&saa_leak_work);
	cancel_delayed_work_sync(&saa_churn_work);
}

static ssize_t saa_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char buf[8];
	size_t len = min(count, sizeof(buf) - 1);

	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sysfs_streq(buf, "start")) {
		mutex_lock(&saa_lock);
		if (!saa_running) {
			saa_running = true;
			schedule_delayed_work(&saa_leak_work, 0);
			schedule_delayed_work(&saa_churn_work, 0);
		}
		mutex_unlock(&saa_lock);
	} else if (sysfs_streq(buf, "stop")) {
		saa_stop();
	} else {
		return -EINVAL;
	}
	return count;
}

static const struct proc_ops saa_proc_ops = {
	.proc_open	= saa_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= saa_write,
};

static void saa_free_all(void)
{
	unsigned int i;

	for (i = 0; i < saa_nr_kept; i++) {
		if (saa_kept_site[i] == AGE_PADDED)
			kmem_cache_free(saa_cache, saa_kept[i]);
		else
			kfree(saa_kept[i]);
	}
	for (i = 0; i < saa_sites[AGE_LEAK].live; i++)
		kfree(saa_leaked[i]);
	saa_churn_free();
}

static int __init saa_init(void)
{
	unsigned int i;

	saa_loaded = jiffies;
	INIT_DELAYED_WORK(&saa_leak_work, saa_leak_fn);
	INIT_DELAYED_WORK(&saa_churn_work, saa_churn_fn);
	/* A constructor: never merged with another cache. */
	saa_cache = kmem_cache_create("sa_age_padded", 200, 256, 0, saa_ctor);
	if (!saa_cache)
		return -ENOMEM;
	mutex_lock(&saa_lock);
	for (i = 0; i < SAA_FIXED; i++)
		saa_keep(AGE_FIXED, sa_age_fixed(), 700);
	for (i = 0; i < SAA_FEW; i++)
		saa_keep(AGE_EXACT, sa_age_exact(), 100);
	for (i = 0; i < SAA_FEW; i++)
		saa_keep(AGE_ABOVE, sa_age_above(), 132);
	for (i = 0; i < ARRAY_SIZE(saa_var_sizes); i++)
		saa_keep(AGE_VAR, sa_age_var(saa_var_sizes[i]),
			 saa_var_sizes[i]);
	for (i = 0; i < SAA_FEW; i++)
		saa_keep(AGE_PADDED, sa_age_padded(), 200);
	mutex_unlock(&saa_lock);
	if (saa_nr_kept != ARRAY_SIZE(saa_kept) ||
	    !proc_create("sa_age", 0600, NULL, &saa_proc_ops)) {
		saa_free_all();
		kmem_cache_destroy(saa_cache);
		return -ENOMEM;
	}
	return 0;
}

static void __exit saa_exit(void)
{
	remove_proc_entry("sa_age", NULL);
	saa_stop();
	saa_free_all();
	kmem_cache_destroy(saa_cache);
}

module_init(saa_init);
module_exit(saa_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("slab_account developers");
MODULE_DESCRIPTION("Objects of known ages and sizes for slab_account's tests");
