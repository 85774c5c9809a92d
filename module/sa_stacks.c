// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: the stack table and /proc/slab_account_stacks.
 *
 * For an allocation at a captured site, the stack that reached it: the
 * kernel's walk of the current stack (stack_trace_save(), which takes no
 * lock and allocates nothing) from the site's call site outward, at most
 * SA_STACK_DEPTH frames, stored once in a fixed table of max_stacks
 * stacks (made by the first capture, or at load with capture=) and named
 * by its 1-based index there, stable until the unload.  Stacks are added
 * lock-free: an entry is reserved by a counter, filled (its frames and
 * the task context of the allocation storing it), then published in an
 * open-addressing hash of ids by cmpxchg(); a stack that does not fit is
 * counted, and its allocation stays in its site's own row.  The file
 * lists the stored stacks in id order (format in docs/format.md).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hardirq.h>
#include <linux/jhash.h>
#include <linux/kallsyms.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/stacktrace.h>
#include <linux/vmalloc.h>

#include "sa_core.h"
#include "sa_ctx.h"
#include "sa_stacks.h"

/*
 * 2.0: each record line ends with the task context of the allocation that
 * stored the stack (a new major: a 1.x reader takes a record line for
 * exactly `stack ID FRAMES`).
 */
#define SA_STACKS_VERSION	"2.0"
/* Frames walked: the probe's, the allocator's, then the stack kept. */
#define SA_STACK_WALK		(24 + SA_STACK_DEPTH)
#define SA_MAX_STACKS		BIT(20)

static unsigned long max_stacks = 4096;
module_param(max_stacks, ulong, 0444);
MODULE_PARM_DESC(max_stacks,
		 "stacks of captured sites kept (made by the first capture), 1..1048576, checked at load");

struct sa_stack {
	u32 hash;
	u32 n;				/* frames */
	int ready;			/* published in the hash */
	/* The task context of the allocation that stored it. */
	struct sa_ctx_first first;
	unsigned long frames[SA_STACK_DEPTH];
};

static struct sa_stack *sa_stacks;	/* entry id - 1 */
static u32 *sa_stack_hash;		/* ids, 0 vacant */
static unsigned long sa_stack_hash_mask;
static unsigned int sa_stack_cap;
static atomic_t sa_nr_stacks = ATOMIC_INIT(0);
/* Stacks published (.ready set), each counted once: the header's. */
static atomic_t sa_nr_stacks_ready = ATOMIC_INIT(0);
/*
 * An entry this CPU reserved and filled for a stack that another CPU
 * stored first: kept for this CPU's next new stack (-1: none), so that a
 * race for one stack leaves no entry unused.
 */
static DEFINE_PER_CPU(int, sa_spare_stack) = -1;
static size_t sa_stacks_bytes;
static struct proc_dir_entry *sa_stacks_file;

bool sa_stacks_usable(void)
{
	return IS_ENABLED(CONFIG_STACKTRACE);
}

size_t sa_stacks_memory(void)
{
	return sa_stacks_bytes;
}

int sa_stacks_check(void)
{
	if (!max_stacks || max_stacks > SA_MAX_STACKS) {
		pr_err("max_stacks=%lu: must be 1..%lu\n", max_stacks,
		       SA_MAX_STACKS);
		return -EINVAL;
	}
	return 0;
}

int sa_stacks_make(void)
{
	unsigned long slots;
	struct sa_stack *st;
	u32 *hash;

	if (!sa_stacks_usable())
		return -EOPNOTSUPP;
	if (sa_stacks)
		return 0;
	slots = roundup_pow_of_two(max_stacks * 2);
	st = sa_zalloc(array_size(max_stacks, sizeof(*st)));
	hash = sa_zalloc(array_size(slots, sizeof(u32)));
	if (!st || !hash) {
		vfree(st);
		vfree(hash);
		pr_err("cannot allocate the stack table (max_stacks=%lu)\n",
		       max_stacks);
		return -ENOMEM;
	}
	sa_stack_cap = max_stacks;
	sa_stack_hash_mask = slots - 1;
	sa_stack_hash = hash;
	atomic_set(&sa_nr_stacks, 0);
	atomic_set(&sa_nr_stacks_ready, 0);
	sa_stacks_bytes = max_stacks * sizeof(*st) + slots * sizeof(u32);
	/* Last, by a release: pairs with the acquire in sa_stack_get(). */
	smp_store_release(&sa_stacks, st);
	return 0;
}

void sa_stacks_free(void)
{
	vfree(sa_stacks);
	sa_stacks = NULL;
	vfree(sa_stack_hash);
	sa_stack_hash = NULL;
	sa_stacks_bytes = 0;
	sa_stack_cap = 0;
}

/*
 * Can the stack be walked here?  In NMI context only where the
 * architecture's unwinder is meant for it (ORC or frame pointers on x86,
 * frame records on arm64).
 */
static bool sa_stack_walkable(void)
{
	if (!in_nmi())
		return true;
	return IS_ENABLED(CONFIG_X86) || IS_ENABLED(CONFIG_ARM64);
}

#ifdef CONFIG_STACKTRACE
/*
 * Stack @st shown in the file from now, complete (its hash slot was set,
 * a full barrier), and counted once: by the CPU whose cmpxchg() sets
 * .ready, which orders the entry before it for the file's acquire.
 */
static void sa_stack_publish(struct sa_stack *st)
{
	if (!READ_ONCE(st->ready) && !cmpxchg(&st->ready, 0, 1))
		atomic_inc(&sa_nr_stacks_ready);
}

/* The id of the stack @f[0..@n), stored if new; 0 when the table is full. */
static u32 sa_stack_store(struct sa_stack *table, const unsigned long *f,
			  unsigned int n)
{
	u32 hash = jhash2((const u32 *)f, n * sizeof(long) / sizeof(u32), n);
	unsigned long h = hash & sa_stack_hash_mask, tries;
	struct sa_stack *st = NULL;
	int idx = -1;

	for (tries = 0; tries <= sa_stack_hash_mask; tries++) {
		u32 v = READ_ONCE(sa_stack_hash[h]);

		if (!v) {
			if (idx < 0) {
				idx = this_cpu_xchg(sa_spare_stack, -1);
				if (idx < 0)
					idx = atomic_fetch_add_unless(&sa_nr_stacks,
								      1, sa_stack_cap);
				if (idx >= sa_stack_cap)
					return 0;
				st = &table[idx];
				st->hash = hash;
				st->n = n;
				memcpy(st->frames, f, n * sizeof(long));
				/* Once, by this CPU, before the entry is seen. */
				sa_ctx_first_fill(&st->first);
			}
			/* A full barrier: the entry is complete when seen. */
			if (!cmpxchg(&sa_stack_hash[h], 0, (u32)idx + 1)) {
				/* For the file's walk, which reads no hash. */
				sa_stack_publish(st);
				return idx + 1;
			}
			continue;	/* lost the slot: look at the winner */
		}
		/* The entry through the id read: an address dependency. */
		if (table[v - 1].hash == hash && table[v - 1].n == n &&
		    !memcmp(table[v - 1].frames, f, n * sizeof(long))) {
			/*
			 * Complete since its slot was set: shown in the file
			 * from now, whichever CPU says so first (the winner
			 * may not have said so yet).
			 */
			sa_stack_publish(&table[v - 1]);
			if (idx >= 0)
				this_cpu_cmpxchg(sa_spare_stack, -1, idx);
			return v;
		}
		h = (h + 1) & sa_stack_hash_mask;
	}
	return 0;
}

u32 sa_stack_get(unsigned long call_site)
{
	/* Pairs with the release in sa_stacks_make(). */
	struct sa_stack *table = smp_load_acquire(&sa_stacks);
	unsigned long entries[SA_STACK_WALK];
	unsigned int i, n;
	u32 id;

	if (!table || !sa_stack_walkable()) {
		sa_stat_inc(SA_STAT_STACKS_UNSEEN);
		return 0;
	}
	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	/* The probe's and the allocator's frames, up to the call site. */
	for (i = 0; i < n; i++)
		if (entries[i] == call_site)
			break;
	if (i == n) {
		sa_stat_inc(SA_STAT_STACKS_UNSEEN);
		return 0;
	}
	n = min_t(unsigned int, n - i, SA_STACK_DEPTH);
#ifdef SA_HAVE_FILTER_IRQ_STACKS
	/*
	 * In an interrupt, the stack up to the interrupt's entry: the
	 * frames beyond it are wherever the interrupt came in, different
	 * nearly every time, and would make a stack of each.  The kernel's
	 * own cut (KASAN's and page_owner's), which keeps the entry frame.
	 */
	n = filter_irq_stacks(entries + i, n);
#endif
	id = sa_stack_store(table, entries + i, n);
	if (!id)
		sa_stat_inc(SA_STAT_STACKS_DROPPED);
	return id;
}
#else
u32 sa_stack_get(unsigned long call_site)
{
	sa_stat_inc(SA_STAT_STACKS_UNSEEN);
	return 0;
}
#endif

/* Stacks stored so far (some may not be published yet). */
static unsigned int sa_stacks_seen(void)
{
	return min_t(unsigned int, atomic_read(&sa_nr_stacks), sa_stack_cap);
}

/* Is this stored stack published (complete)? */
static bool sa_stack_ready(const struct sa_stack *st)
{
	/* Pairs with the cmpxchg() in sa_stack_publish(). */
	return smp_load_acquire(&st->ready);
}

/* The stacks published: a counter, not a walk of the table. */
static unsigned int sa_stacks_stored(void)
{
	return atomic_read(&sa_nr_stacks_ready);
}

void sa_stacks_header(struct seq_file *m, u64 dropped, u64 unseen)
{
	unsigned int stored = sa_stacks_stored();

	seq_printf(m, "stack capacity: %lu\n",
		   sa_stacks_usable() ? max_stacks : 0);
	seq_printf(m, "stacks: %u\n", stored);
	seq_printf(m, "stacks dropped: %llu\n", dropped);
	seq_printf(m, "stacks unseen: %llu\n", unseen);
	seq_printf(m, "stack depth: %u\n", SA_STACK_DEPTH);
	seq_printf(m, "stack memory: %zu\n", sa_stacks_bytes);
}

/* ---- /proc/slab_account_stacks ----------------------------------------- */

/* The first published stack at index @i or above, *@pos its index + 1. */
static struct sa_stack *sa_stacks_at(loff_t *pos)
{
	unsigned int n = sa_stacks_seen();

	for (; *pos >= 1 && *pos <= n; ++*pos)
		if (sa_stack_ready(&sa_stacks[*pos - 1]))
			return &sa_stacks[*pos - 1];
	return NULL;
}

static void *sa_stacks_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&sa_ctl_lock);
	if (!*pos)
		return SEQ_START_TOKEN;
	return sa_stacks ? sa_stacks_at(pos) : NULL;
}

static void *sa_stacks_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return sa_stacks ? sa_stacks_at(pos) : NULL;
}

static void sa_stacks_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&sa_ctl_lock);
}

static int sa_stacks_show(struct seq_file *m, void *v)
{
	const struct sa_stack *st = v;
	unsigned int i;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "slab_account stacks - version: " SA_STACKS_VERSION "\n");
		seq_printf(m, "stacks: %u\n", sa_stacks_stored());
		seq_printf(m, "stack capacity: %lu\n",
			   sa_stacks_usable() ? max_stacks : 0);
		seq_printf(m, "stack depth: %u\n", SA_STACK_DEPTH);
		seq_puts(m, "# stack ID FRAMES FIRST / frames, innermost first\n");
		return 0;
	}
	seq_printf(m, "stack %ld %u", (long)(st - sa_stacks) + 1, st->n);
	sa_ctx_first_show(m, &st->first);
	seq_putc(m, '\n');
	for (i = 0; i < st->n; i++)
		seq_printf(m, "  %pS\n", (void *)st->frames[i]);
	return 0;
}

static const struct seq_operations sa_stacks_ops = {
	.start	= sa_stacks_start,
	.next	= sa_stacks_next,
	.stop	= sa_stacks_stop,
	.show	= sa_stacks_show,
};

static int sa_stacks_open(struct inode *inode, struct file *file)
{
	return seq_open(file, &sa_stacks_ops);
}

static const struct proc_ops sa_stacks_proc_ops = {
	.proc_open	= sa_stacks_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= seq_release,
};

int sa_stacks_create(void)
{
	sa_stacks_file = proc_create("slab_account_stacks", 0600, NULL,
				     &sa_stacks_proc_ops);
	return sa_stacks_file ? 0 : -ENOMEM;
}

void sa_stacks_remove(void)
{
	proc_remove(sa_stacks_file);
}
