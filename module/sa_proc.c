// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: /proc/slab_account, the file users read (format in
 * docs/format.md): a header of "key: value" lines, a legend, one row per
 * call site; and the writes that control the module ("reset", "stop",
 * "start", and capture's, sa_ctx.c).
 *
 * A read holds sa_ctl_lock from the start to the stop of each chunk
 * (seq_file's start/stop), so that no reset runs while a row or the
 * header is summed.  The position is the site's index + 1: a long read
 * resumes where it stopped, it never walks the table again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/kallsyms.h>
#include <linux/math64.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "sa_control.h"
#include "sa_core.h"
#include "sa_ctx.h"
#include "sa_loads.h"
#include "sa_names.h"
#include "sa_objects.h"
#include "sa_probes.h"
#include "sa_proc.h"
#include "sa_sites.h"
#include "sa_stacks.h"
#include "sa_unwrap.h"

/* What a reader keeps between rows. */
struct sa_reader {
	struct sa_site_view view;	/* of the row found, summed once per row */
	u32 gen;			/* this read's, set by its header */
	char sym[KSYM_SYMBOL_LEN];	/* a name looked up for the row */
};

static struct proc_dir_entry *sa_proc;
static size_t sa_proc_table_bytes;
/*
 * The last read's number (sa_ctl_lock).  A header marks each site it
 * counts with its read's number, and that read's walk shows the site's
 * row even when the site has become empty meanwhile: an allocation taken
 * back (a krealloc() recharge, a large kmalloc reported twice) or a reset
 * between two chunks of the read.  A whole file then has at least as
 * many rows as its number of callers, which the reader relies on to tell
 * a file cut short.  0 is never a read's number.
 */
static u32 sa_read_gen;

static void *sa_seq_start(struct seq_file *m, loff_t *pos)
{
	struct sa_reader *r = m->private;

	mutex_lock(&sa_ctl_lock);
	if (!*pos)
		return SEQ_START_TOKEN;
	if (*pos > sa_site_cap)
		return NULL;
	return sa_site_shown(*pos - 1, sa_sites_seen(), r->gen, pos, &r->view);
}

static void *sa_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct sa_reader *r = m->private;

	return sa_site_shown(sa_site_next_idx(v), sa_sites_seen(), r->gen, pos,
			     &r->view);
}

static void sa_seq_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&sa_ctl_lock);
}

static void sa_seq_header(struct seq_file *m)
{
	struct sa_reader *r = m->private;
	u64 total = 0, req = 0, live = 0, live_req = 0, objs = 0;
	u64 allocs = 0, frees = 0, callers = 0, tracked = 0, sites = 0;
	u64 hidden = 0, captured = 0, children = 0;
	unsigned int i, n = sa_sites_seen();
	unsigned long advice;
	struct sa_site_view v;
	struct sa_stats_sum st;
	enum sa_path p;

	/* Sites inside a trampoline are known by their names. */
	sa_names_resolve_all();
	if (!++sa_read_gen)
		sa_read_gen = 1;
	r->gen = sa_read_gen;
	for (i = 0; i < n; i++) {
		struct sa_site *e = sa_site_at(i);

		if (!(i % 256))
			cond_resched();
		if (!sa_site_ready(e))
			continue;
		sites++;
		if (sa_ctx_is_child(i))
			children++;
		else if ((READ_ONCE(e->type) & SA_TYPE_CAPTURED) && !e->owner)
			captured++;
		sa_site_view(e, &v);
		/* Every object in the table is counted at one site. */
		tracked += v.objs;
		if (sa_view_empty(&v))
			continue;
		sa_site_cold(e)->read_gen = r->gen;
		callers++;
		total += v.total;
		req += v.req;
		live += v.live;
		live_req += v.live_req;
		objs += v.objs;
		allocs += v.allocs;
		frees += v.frees;
		if (sa_site_cold(e)->hidden)
			hidden += v.allocs;
	}
	sa_stats_since_reset(&st);

	seq_puts(m, "slab_account - version: " SA_FORMAT_VERSION "\n");
	seq_printf(m, "state: %s\n", sa_is_active() ? "active" : "stopped");
	seq_printf(m, "total bytes allocated: %llu\n", total);
	seq_printf(m, "total bytes requested: %llu\n", req);
	/* Each row's req <= total, so the sums are too. */
	seq_printf(m, "slack bytes allocated: %llu\n", total - req);
	seq_printf(m, "current bytes allocated: %llu\n", live);
	seq_printf(m, "current bytes requested: %llu\n", live_req);
	seq_printf(m, "current objects: %llu\n", objs);
	seq_printf(m, "number of allocs: %llu\n", allocs);
	seq_printf(m, "number of frees: %llu\n", frees);
	seq_printf(m, "number of callers: %llu\n", callers);
	seq_printf(m, "failed allocs: %llu\n", st.n[SA_STAT_FAILED]);
	seq_printf(m, "unknown frees: %llu\n", st.n[SA_STAT_UNKNOWN]);
	seq_printf(m, "missed frees: %llu\n", st.n[SA_STAT_MISSED]);
	seq_printf(m, "dropped objects: %llu\n", st.n[SA_STAT_DROPPED_OBJS]);
	seq_printf(m, "dropped sites: %llu\n", st.n[SA_STAT_DROPPED_SITES]);
	seq_printf(m, "tracked objects: %llu\n", tracked);
	seq_printf(m, "object capacity: %lu\n", sa_objects_capacity());
	seq_printf(m, "call sites: %llu\n", sites);
	seq_printf(m, "call site capacity: %u\n", sa_site_cap);
	seq_printf(m, "table memory: %zu\n",
		   sa_proc_table_bytes + sa_ctrs_memory() + sa_ctx_memory() +
		   sa_stacks_memory());
	/* 1.1: the paths beyond the tracepoints, and what they saw. */
	for (p = 0; p < SA_NR_PATHS; p++)
		if (sa_path_name(p))
			seq_printf(m, "hooked %s: %d\n", sa_path_name(p),
				   sa_path_hooked(p));
	seq_printf(m, "missed hook calls: %lu\n", sa_kprobes_missed());
	seq_printf(m, "resized in place: %llu\n", st.n[SA_STAT_RESIZED]);
	seq_printf(m, "unknown resizes: %llu\n", st.n[SA_STAT_RESIZED_UNKNOWN]);
	seq_printf(m, "reported twice: %llu\n", st.n[SA_STAT_TWICE]);
	/* 1.2: rows of allocation helpers' callers. */
	seq_printf(m, "unwrap failures: %llu\n", st.n[SA_STAT_UNWRAP_FAILED]);
	/* 1.3: why paths are not hooked, helpers found, hidden callers. */
	for (p = 0; p < SA_NR_PATHS; p++)
		if (sa_path_name(p) && !sa_path_hooked(p))
			seq_printf(m, "unhooked %s: %s\n", sa_path_name(p),
				   sa_path_why(p));
	seq_printf(m, "unwrap helpers: %u\n", sa_unwrap_helpers());
	seq_printf(m, "hidden callers: %llu\n", hidden);
	/* 1.3: module loads, unloads, and which live loads are reloads. */
	sa_loads_header(m);
	/* 1.4: the per-CPU counters; what to load with when objects drop. */
	seq_printf(m, "counter memory: %zu\n", sa_ctrs_memory());
	seq_printf(m, "counter cpus: %u\n", sa_ctr_cpus_nr());
	advice = st.n[SA_STAT_DROPPED_OBJS] ?
		 sa_objects_advice(tracked + st.n[SA_STAT_DROPPED_OBJS]) : 0;
	if (advice)
		seq_printf(m, "advised max_objects: %lu\n", advice);
	/* 1.5: how far a row's peak may be from the most it had live. */
	seq_printf(m, "peak bound: %llu\n", sa_site_peak_bound());
	/* 1.6: context rows (sa_ctx.c): the split, capture, stacks. */
	seq_printf(m, "split: %s\n", sa_split_name());
	seq_printf(m, "captured sites: %llu\n", captured);
	seq_printf(m, "capture rules: %u\n", sa_capture_rules());
	seq_printf(m, "context rows: %llu\n", children);
	seq_printf(m, "context rows dropped: %llu\n", st.n[SA_STAT_CTX_DROPPED]);
	sa_stacks_header(m, st.n[SA_STAT_STACKS_DROPPED],
			 st.n[SA_STAT_STACKS_UNSEEN]);
	seq_puts(m, "#     total    slack      req     live live_req   objs     peak  allocs/frees type caller\n");
}

/*
 * @v in decimal, right-aligned in @width columns, then a space, at @p;
 * returns the end.  A row's nine numbers cost a fraction of seq_printf().
 */
char *sa_proc_put_num(char *p, u64 v, unsigned int width)
{
	char tmp[20];
	unsigned int n = 0;

	do {
		/* A u64 divided as a 32-bit kernel can (a division there). */
		tmp[n++] = '0' + do_div(v, 10);
	} while (v);
	for (; width > n; width--)
		*p++ = ' ';
	while (n)
		*p++ = tmp[--n];
	*p++ = ' ';
	return p;
}

static char *sa_put_str(char *p, const char *str, size_t max)
{
	size_t n = strnlen(str, max);

	memcpy(p, str, n);
	return p + n;
}

/* Widths and nine u64s. */
#define SA_ROW_LEN	(11 + 5 * 8 + 6 + 9 * 21)

/*
 * The end of a row of either file: the site's type (with a cache's name)
 * and its caller, and the line's end.  @sym is KSYM_SYMBOL_LEN bytes.
 */
void sa_proc_site_id(struct seq_file *m, struct sa_site *e, char *sym)
{
	unsigned long type = READ_ONCE(e->type);
	char id[8 + SA_NAME_LEN], *p = id;
	const char *name;
	unsigned int via;

	if ((type & SA_TYPE_KMALLOC) && (type & SA_TYPE_CACHE)) {
		p = sa_put_str(p, "mixed ", 8);
	} else if (type & SA_TYPE_MULTI) {
		p = sa_put_str(p, "cache:* ", 8);
	} else if (type & SA_TYPE_CACHE) {
		const char *cname = sa_site_cold(e)->name;

		p = sa_put_str(p, "cache", 8);
		if (cname[0]) {
			*p++ = ':';
			p = sa_put_str(p, cname, SA_NAME_LEN - 1);
		}
		*p++ = ' ';
	} else {
		p = sa_put_str(p, "kmalloc ", 8);
	}
	seq_write(m, id, p - id);

	name = sa_site_name(e, sym);
	if (name)
		seq_puts(m, name);
	else	/* No symbol: the address, as kptr_restrict allows. */
		seq_printf(m, "%pK", (void *)e->call_site);
	/* 1.2: the caller of an allocation helper says which. */
	via = READ_ONCE(e->via);
	if (via) {
		seq_puts(m, " via ");
		seq_puts(m, sa_helper_name(via));
	}
	/* 1.3: the site of a module load that has gone. */
	if (sa_load_gone(e->owner))
		seq_printf(m, " unloaded#%u", sa_load_seq(e->owner));
	/* 1.6: a context row's context, last. */
	sa_ctx_suffix(m, e - sa_sites);
	seq_putc(m, '\n');
}

/* The row of @e, from the view sa_site_shown() took of it. */
static void sa_seq_site(struct seq_file *m, struct sa_site *e)
{
	struct sa_reader *r = m->private;
	const struct sa_site_view *v = &r->view;
	char row[SA_ROW_LEN], af[44], *p = row, *q;
	size_t n;

	p = sa_proc_put_num(p, v->total, 11);
	p = sa_proc_put_num(p, v->total - v->req, 8);
	p = sa_proc_put_num(p, v->req, 8);
	p = sa_proc_put_num(p, v->live, 8);
	p = sa_proc_put_num(p, v->live_req, 8);
	p = sa_proc_put_num(p, v->objs, 6);
	p = sa_proc_put_num(p, v->peak, 8);
	/* allocs/frees, right-aligned in 13 columns */
	q = sa_proc_put_num(af, v->allocs, 0);
	q[-1] = '/';
	q = sa_proc_put_num(q, v->frees, 0);
	n = q - af;		/* with its trailing space */
	for (; n < 14; n++)
		*p++ = ' ';
	memcpy(p, af, q - af);
	p += q - af;
	seq_write(m, row, p - row);
	sa_proc_site_id(m, e, r->sym);
}

static int sa_seq_show(struct seq_file *m, void *v)
{
	if (v == SEQ_START_TOKEN)
		sa_seq_header(m);
	else
		sa_seq_site(m, v);
	return 0;
}

static const struct seq_operations sa_seq_ops = {
	.start	= sa_seq_start,
	.next	= sa_seq_next,
	.stop	= sa_seq_stop,
	.show	= sa_seq_show,
};

static int sa_proc_open(struct inode *inode, struct file *file)
{
	return seq_open_private(file, &sa_seq_ops, sizeof(struct sa_reader));
}

static ssize_t sa_proc_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	/* The longest command: "uncapture " and a SPEC (sa_ctx.c). */
	char buf[192];
	size_t len = count;
	int ret = 0;

	if (!capable(CAP_SYS_ADMIN) ||
	    !file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	if (!count || count > sizeof(buf) - 1)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (len != strlen(buf))
		return -EINVAL;		/* embedded NUL */

	mutex_lock(&sa_ctl_lock);
	if (!strcmp(buf, "reset"))
		sa_reset();
	else if (!strcmp(buf, "stop"))
		sa_stop();
	else if (!strcmp(buf, "start"))
		ret = sa_start();
	else if (!strncmp(buf, "capture ", 8) || !strncmp(buf, "uncapture ", 10))
		ret = sa_capture_cmd(buf);
	else
		ret = -EINVAL;
	mutex_unlock(&sa_ctl_lock);

	return ret ? ret : count;
}

static const struct proc_ops sa_proc_ops = {
	.proc_open	= sa_proc_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= seq_release_private,
	.proc_write	= sa_proc_write,
};

int sa_proc_create(size_t table_bytes)
{
	sa_proc_table_bytes = table_bytes;
	/* Read and written by root only, as other control files. */
	sa_proc = proc_create("slab_account", 0600, NULL, &sa_proc_ops);
	return sa_proc ? 0 : -ENOMEM;
}

void sa_proc_remove(void)
{
	/* Waits for readers and writers in the file's functions. */
	proc_remove(sa_proc);
}
