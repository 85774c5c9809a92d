// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: /proc/slab_account_detail, what answers "what leaks" and
 * "what wastes" (format in docs/format.md): per call site, the ages of
 * its live objects (a scan of the object table, at read time) and the
 * sizes it was asked for (kept by the hot path), with the running
 * kernel's kmalloc size classes in the header.
 *
 * A read from position 0 scans the object table once, lock-free (module
 * loads and unloads, resets and the main file's readers go on meanwhile),
 * then holds sa_ctl_lock from each chunk's start to its stop as the main
 * file does; rows are the main file's, in its order, joined by their
 * caller.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#if !defined(SA_HAVE_KMALLOC_SIZE_ROUNDUP) && IS_ENABLED(CONFIG_KFENCE)
#include <linux/kfence.h>
#endif
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "sa_core.h"
#include "sa_detail.h"
#include "sa_objects.h"
#include "sa_proc.h"
#include "sa_sites.h"

#define SA_DETAIL_VERSION	"1.0"

#if !defined(SA_HAVE_KMALLOC_SIZE_ROUNDUP) && IS_ENABLED(CONFIG_KFENCE)
#define sa_kfence_object(p)	is_kfence_address(p)
#else
#define sa_kfence_object(p)	false
#endif
#define SA_MAX_CLASSES		32

static unsigned int sa_classes[SA_MAX_CLASSES];
static unsigned int sa_nr_classes;
static struct proc_dir_entry *sa_detail;

struct sa_detail_reader {
	struct sa_obj_ages *acc;	/* per site index, of the last scan */
	unsigned int nsites;		/* sites the scan covered */
	u64 since_load;			/* jiffies from the load to the scan */
	u64 scanned;			/* objects it found */
	struct sa_site_view view;
	char sym[KSYM_SYMBOL_LEN];
};

/*
 * What a kmalloc of @size bytes is handed: the kernel says where it can
 * (6.1 on), else ksize() of one, which KFENCE may have sampled (its
 * ksize() is the size asked for): such an allocation is not its class.
 */
static int sa_detail_class(size_t size, size_t *got)
{
#ifdef SA_HAVE_KMALLOC_SIZE_ROUNDUP
	*got = kmalloc_size_roundup(size);
	return 0;
#else
	unsigned int tries;

	for (tries = 0; tries < 8; tries++) {
		void *p = kmalloc(size, GFP_KERNEL | __GFP_NOWARN);
		bool sampled;

		if (!p)
			return -ENOMEM;
		*got = ksize(p);
		sampled = sa_kfence_object(p);
		kfree(p);
		if (!sampled)
			return 0;
	}
	return -EAGAIN;
#endif
}

/*
 * The kmalloc size classes: what a kmalloc of one byte more than the last
 * class is handed.  Before any probe is registered.
 */
int sa_detail_measure(void)
{
	size_t size = 1;

	sa_nr_classes = 0;
	while (size <= KMALLOC_MAX_CACHE_SIZE && sa_nr_classes < SA_MAX_CLASSES) {
		size_t got;
		int ret = sa_detail_class(size, &got);

		if (ret) {
			pr_err("cannot allocate to measure the kmalloc size classes\n");
			return ret;
		}
		if (got < size)
			break;
		sa_classes[sa_nr_classes++] = got;
		size = got + 1;
	}
	return 0;
}

/* A fresh picture of every site's live objects. */
static int sa_detail_scan(struct sa_detail_reader *r)
{
	unsigned int i, n = sa_sites_seen();

	if (n > r->nsites || !r->acc) {
		kvfree(r->acc);
		r->nsites = 0;
		r->acc = kvmalloc_array(max(n, 1U), sizeof(*r->acc),
					GFP_KERNEL | __GFP_NOWARN);
		if (!r->acc)
			return -ENOMEM;
	}
	r->nsites = n;
	memset(r->acc, 0, array_size(max(n, 1U), sizeof(*r->acc)));
	sa_objects_scan(r->acc, n);
	r->since_load = get_jiffies_64() - sa_epoch;
	r->scanned = 0;
	for (i = 0; i < n; i++)
		r->scanned += r->acc[i].objs;
	return 0;
}

/*
 * @j jiffies in seconds, rounded; an age (the clock's coarser ticks) never
 * more than the time since the load, which it cannot exceed.
 */
static u64 sa_detail_secs(const struct sa_detail_reader *r, u64 j)
{
	return DIV_ROUND_CLOSEST_ULL(min(j, r->since_load), HZ);
}

static void *sa_detail_start(struct seq_file *m, loff_t *pos)
{
	struct sa_detail_reader *r = m->private;

	int err;

	if (!*pos) {
		/*
		 * The object table is read lock-free (as the probes write
		 * it), so the scan, the long part of a read, holds up no
		 * module load or unload; the lock is taken after it, for
		 * the rows (stop always follows start, an error too).
		 */
		err = sa_detail_scan(r);
		mutex_lock(&sa_ctl_lock);
		return err ? ERR_PTR(err) : SEQ_START_TOKEN;
	}
	mutex_lock(&sa_ctl_lock);
	if (*pos > r->nsites)
		return NULL;
	return sa_site_shown(*pos - 1, r->nsites, 0, pos, &r->view);
}

static void *sa_detail_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct sa_detail_reader *r = m->private;

	return sa_site_shown(sa_site_next_idx(v), r->nsites, 0, pos,
			     &r->view);
}

static void sa_detail_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&sa_ctl_lock);
}

static void sa_detail_header(struct seq_file *m, struct sa_detail_reader *r)
{
	unsigned int i;

	seq_puts(m, "slab_account detail - version: " SA_DETAIL_VERSION "\n");
	seq_printf(m, "now: %llu\n", sa_detail_secs(r, r->since_load));
	seq_printf(m, "page size: %lu\n", PAGE_SIZE);
	seq_puts(m, "kmalloc classes:");
	for (i = 0; i < sa_nr_classes; i++)
		seq_printf(m, " %u", sa_classes[i]);
	seq_puts(m, "\nage bounds:");
	for (i = 0; i < SA_AGE_BUCKETS - 1; i++)
		seq_printf(m, " %u", sa_age_bounds[i]);
	seq_puts(m, "\nsize bounds:");
	for (i = 0; i < SA_SIZE_BUCKETS - 1; i++)
		seq_printf(m, " %u", 8U << i);
	seq_printf(m, "\nobjects scanned: %llu\n", r->scanned);
	seq_puts(m, "# objs bytes req oldest byte_secs age<1s age<10s age<1m age<10m age<1h older req_min req_max size<=8 size<=16 size<=32 size<=64 size<=128 size<=256 size<=512 size<=1K size<=2K size<=4K size<=8K size>8K type caller\n");
}

/* A row's 25 numbers, each at most 20 digits and a space. */
#define SA_DETAIL_ROW	(25 * 21)

static void sa_detail_site(struct seq_file *m, struct sa_detail_reader *r,
			   struct sa_site *e)
{
	const struct sa_obj_ages *a = &r->acc[e - sa_sites];
	char row[SA_DETAIL_ROW], *p = row;
	struct sa_site_sizes z;
	unsigned int i;

	BUILD_BUG_ON(5 + SA_AGE_BUCKETS + 2 + SA_SIZE_BUCKETS != 25);
	sa_site_sizes(e, r->view.allocs, &z);
	p = sa_proc_put_num(p, a->objs, 0);
	p = sa_proc_put_num(p, a->bytes, 0);
	p = sa_proc_put_num(p, a->req, 0);
	/* Ages and the byte-seconds they weigh, rounded to the second. */
	p = sa_proc_put_num(p, sa_detail_secs(r, sa_clock_jiffies(a->oldest)),
			    0);
	p = sa_proc_put_num(p, a->byte_ticks == U64_MAX ? U64_MAX :
			    mul_u64_u32_div(a->byte_ticks,
					    1U << SA_CLOCK_SHIFT, HZ), 0);
	for (i = 0; i < SA_AGE_BUCKETS; i++)
		p = sa_proc_put_num(p, a->ages[i], 0);
	p = sa_proc_put_num(p, z.min, 0);
	p = sa_proc_put_num(p, z.max, 0);
	for (i = 0; i < SA_SIZE_BUCKETS; i++)
		p = sa_proc_put_num(p, z.count[i], 0);
	seq_write(m, row, p - row);
	sa_proc_site_id(m, e, r->sym);
}

static int sa_detail_show(struct seq_file *m, void *v)
{
	struct sa_detail_reader *r = m->private;

	if (v == SEQ_START_TOKEN)
		sa_detail_header(m, r);
	else
		sa_detail_site(m, r, v);
	return 0;
}

static const struct seq_operations sa_detail_ops = {
	.start	= sa_detail_start,
	.next	= sa_detail_next,
	.stop	= sa_detail_stop,
	.show	= sa_detail_show,
};

static int sa_detail_open(struct inode *inode, struct file *file)
{
	return seq_open_private(file, &sa_detail_ops,
				sizeof(struct sa_detail_reader));
}

static int sa_detail_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct sa_detail_reader *r = m->private;

	kvfree(r->acc);
	return seq_release_private(inode, file);
}

static const struct proc_ops sa_detail_proc_ops = {
	.proc_open	= sa_detail_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= sa_detail_release,
};

int sa_detail_create(void)
{
	sa_detail = proc_create("slab_account_detail", 0600, NULL,
				&sa_detail_proc_ops);
	return sa_detail ? 0 : -ENOMEM;
}

void sa_detail_remove(void)
{
	proc_remove(sa_detail);
}
