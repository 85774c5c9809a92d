// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: the unload verdict.
 *
 * When a module unloads (sa_loads.c), what its load's sites still hold:
 * objects, bytes allocated and requested, the sites that hold them and
 * the age of each one's oldest object (a scan of the object table).  One
 * line in the kernel log when it left objects live; the verdict of every
 * unload kept (the last SA_UNLOADS_KEPT) for /proc/slab_account_unloads
 * (docs/format.md), whose site lines name the sites as the main file's
 * retired rows do, so that a reader sees which of those objects were
 * freed later.  Everything here runs in process context under
 * sa_ctl_lock (the module notifier: a blocking chain, which may sleep,
 * and which every module load and unload on the system waits for), and
 * every walk yields the CPU as it goes.  What an unload costs there:
 * retirement (sa_sites_retire()) reads every slot of the site hash, one
 * pointer each, and the load's own rows; the verdict views only the
 * load's rows (its retired sites and their child rows, by the lists
 * retirement made), each a sum over every CPU with counters; and, when
 * they hold objects, the ages scan the whole object table (every key of
 * every bucket, up to max_objects, at a read of one line per bucket,
 * into an array of one entry per row of the site table, allocated for
 * the scan), because objects are found by address, not by site.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "sa_core.h"
#include "sa_loads.h"
#include "sa_names.h"
#include "sa_objects.h"
#include "sa_proc.h"
#include "sa_sites.h"
#include "sa_unloads.h"

#define SA_UNLOADS_VERSION	"1.0"
#define SA_UNLOADS_KEPT		64	/* verdicts kept */
#define SA_UNLOAD_TOP		8	/* sites of a verdict, by bytes */
#define SA_UNLOAD_LOGGED	3	/* of them in the log line */

struct sa_unload_site {
	u32 site;			/* index in sa_sites */
	u64 objs, bytes, req;
	u64 oldest;			/* jiffies */
};

struct sa_unload {
	u64 when;			/* jiffies since our load */
	u16 owner;
	u64 objs, bytes, req;
	u32 sites;			/* with live objects */
	u32 ntop;
	struct sa_unload_site top[SA_UNLOAD_TOP];
};

static struct sa_unload *sa_unloads[SA_UNLOADS_KEPT];
static unsigned long sa_unloads_seen;	/* verdicts made, kept or not */
static struct proc_dir_entry *sa_unloads_file;

/* Put @s among @u's top sites by bytes, if it is one of them. */
static void sa_unload_rank(struct sa_unload *u, const struct sa_unload_site *s)
{
	unsigned int i;

	if (u->ntop == SA_UNLOAD_TOP && s->bytes <= u->top[SA_UNLOAD_TOP - 1].bytes)
		return;
	i = u->ntop < SA_UNLOAD_TOP ? u->ntop++ : SA_UNLOAD_TOP - 1;
	for (; i && u->top[i - 1].bytes < s->bytes; i--)
		u->top[i] = u->top[i - 1];
	u->top[i] = *s;
}

/* The ages of @u's top sites' oldest objects, by a scan of the table. */
static void sa_unload_ages(struct sa_unload *u)
{
	unsigned int i, n = sa_sites_seen();
	u64 since_load = get_jiffies_64() - sa_epoch;
	struct sa_obj_ages *acc;

	acc = kvcalloc(max(n, 1U), sizeof(*acc), GFP_KERNEL | __GFP_NOWARN);
	if (!acc)
		return;		/* ages 0: said nowhere else, rare */
	sa_objects_scan(acc, n);
	/* No object is older than the tables (as in the detail file). */
	for (i = 0; i < u->ntop; i++)
		u->top[i].oldest = min(sa_clock_jiffies(acc[u->top[i].site].oldest),
				       since_load);
	kvfree(acc);
}

/* The log line: the module, what it left, the first sites. */
static void sa_unload_log(const struct sa_unload *u)
{
	static char line[512], sym[KSYM_SYMBOL_LEN];	/* sa_ctl_lock */
	unsigned int i;
	size_t n = 0;

	for (i = 0; i < u->ntop && i < SA_UNLOAD_LOGGED; i++) {
		const struct sa_unload_site *s = &u->top[i];
		const char *name = sa_site_name(sa_site_at(s->site), sym);

		n += scnprintf(line + n, sizeof(line) - n,
			       "%s%s %llu objects %llu bytes oldest %llu s",
			       i ? "; " : "", name ? name : "?", s->objs,
			       s->bytes, div_u64(s->oldest, HZ));
	}
	pr_notice("%s (load %u) unloaded with %llu objects still live (%llu bytes, %llu requested) from %u call sites: %s%s\n",
		  sa_load_name(u->owner), sa_load_seq(u->owner), u->objs,
		  u->bytes, u->req, u->sites, line,
		  u->sites > SA_UNLOAD_LOGGED ? "; ..." : "");
}

/* Keep @u (NULL: a verdict that could not be made) as the newest. */
static void sa_unload_keep(struct sa_unload *u)
{
	unsigned int i = sa_unloads_seen++ % SA_UNLOADS_KEPT;

	kfree(sa_unloads[i]);
	sa_unloads[i] = u;
}

/* Count row @e of @u's load in @u, if it holds objects. */
static void sa_unload_row(struct sa_unload *u, struct sa_site *e)
{
	struct sa_unload_site s = { .site = e - sa_sites };
	struct sa_site_view v;

	sa_site_view(e, &v);
	if (!v.objs)
		return;
	s.objs = v.objs;
	s.bytes = v.live;
	s.req = v.live_req;
	u->objs += s.objs;
	u->bytes += s.bytes;
	u->req += s.req;
	u->sites++;
	sa_unload_rank(u, &s);
}

void sa_unload_verdict(u16 owner, u32 first)
{
	struct sa_site *e, *c;
	struct sa_unload *u;
	unsigned long rows = 0;
	u32 link;

	lockdep_assert_held(&sa_ctl_lock);
	u = kzalloc(sizeof(*u), GFP_KERNEL | __GFP_NOWARN);
	if (!u) {
		pr_err("no memory for the verdict of %s's unload\n",
		       sa_load_name(owner));
		sa_unload_keep(NULL);
		return;
	}
	u->owner = owner;
	u->when = get_jiffies_64() - sa_epoch;
	/*
	 * The load's retired sites and their child rows: the lists that
	 * sa_sites_retire() made and walked (a child row's owner says
	 * whether the walk reached it), each row summed over every CPU
	 * with counters.  With many of either this is long, and a kernel
	 * that is not preemptible would report a soft lockup: the module
	 * notifier runs in process context and may sleep (a blocking
	 * notifier chain, under our mutex).
	 */
	for (e = sa_site_link(first); e; e = sa_site_link(sa_site_cold(e)->next)) {
		sa_unload_row(u, e);
		link = READ_ONCE(sa_site_cold(e)->children);
		for (; (c = sa_site_link(link));
		     link = READ_ONCE(sa_site_cold(c)->next)) {
			if (c->owner == owner)
				sa_unload_row(u, c);
			if (!(++rows % 64))
				cond_resched();
		}
		if (!(++rows % 64))
			cond_resched();
	}
	if (u->objs) {
		sa_unload_ages(u);
		sa_unload_log(u);
	}
	sa_unload_keep(u);
}

void sa_unloads_free(void)
{
	unsigned int i;

	for (i = 0; i < SA_UNLOADS_KEPT; i++) {
		kfree(sa_unloads[i]);
		sa_unloads[i] = NULL;
	}
	sa_unloads_seen = 0;
}

/* ---- /proc/slab_account_unloads ---------------------------------------- */

struct sa_unloads_reader {
	char sym[KSYM_SYMBOL_LEN];
};

/* The verdicts kept, oldest first: position 1.. of the file. */
static unsigned long sa_unloads_kept(void)
{
	return min_t(unsigned long, sa_unloads_seen, SA_UNLOADS_KEPT);
}

static struct sa_unload *sa_unload_nth(loff_t pos)
{
	unsigned long kept = sa_unloads_kept();
	unsigned long first = sa_unloads_seen - kept;

	if (pos < 1 || pos > kept)
		return NULL;
	return sa_unloads[(first + pos - 1) % SA_UNLOADS_KEPT];
}

static void *sa_unloads_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&sa_ctl_lock);
	if (!*pos)
		return SEQ_START_TOKEN;
	/* (A verdict whose allocation failed is skipped.) */
	while (*pos <= sa_unloads_kept() && !sa_unload_nth(*pos))
		++*pos;
	return sa_unload_nth(*pos);
}

static void *sa_unloads_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	while (*pos <= sa_unloads_kept() && !sa_unload_nth(*pos))
		++*pos;
	return sa_unload_nth(*pos);
}

static void sa_unloads_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&sa_ctl_lock);
}

static u64 sa_secs(u64 j)
{
	return div_u64(j, HZ);
}

static int sa_unloads_show(struct seq_file *m, void *v)
{
	struct sa_unloads_reader *r = m->private;
	const struct sa_unload *u = v;
	unsigned int i;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "slab_account unloads - version: " SA_UNLOADS_VERSION "\n");
		seq_printf(m, "now: %llu\n", sa_secs(get_jiffies_64() - sa_epoch));
		seq_printf(m, "unloads: %lu\n", sa_unloads_seen);
		seq_printf(m, "kept: %lu\n", sa_unloads_kept());
		seq_puts(m, "# when module load objs bytes req sites\n");
		seq_puts(m, "#  objs bytes req oldest type caller\n");
		return 0;
	}
	seq_printf(m, "%llu %s %u %llu %llu %llu %u\n", sa_secs(u->when),
		   sa_load_name(u->owner), sa_load_seq(u->owner), u->objs,
		   u->bytes, u->req, u->sites);
	for (i = 0; i < u->ntop; i++) {
		const struct sa_unload_site *s = &u->top[i];

		seq_printf(m, "  %llu %llu %llu %llu ", s->objs, s->bytes,
			   s->req, sa_secs(s->oldest));
		sa_proc_site_id(m, sa_site_at(s->site), r->sym);
	}
	return 0;
}

static const struct seq_operations sa_unloads_ops = {
	.start	= sa_unloads_start,
	.next	= sa_unloads_next,
	.stop	= sa_unloads_stop,
	.show	= sa_unloads_show,
};

static int sa_unloads_open(struct inode *inode, struct file *file)
{
	return seq_open_private(file, &sa_unloads_ops,
				sizeof(struct sa_unloads_reader));
}

static const struct proc_ops sa_unloads_proc_ops = {
	.proc_open	= sa_unloads_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= seq_release_private,
};

int sa_unloads_create(void)
{
	sa_unloads_file = proc_create("slab_account_unloads", 0600, NULL,
				      &sa_unloads_proc_ops);
	return sa_unloads_file ? 0 : -ENOMEM;
}

void sa_unloads_remove(void)
{
	proc_remove(sa_unloads_file);
}
