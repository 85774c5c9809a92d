// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: context rows.
 *
 * With a split chosen at load (split=cgroup|node|task), or for a site
 * under capture, an allocation is counted in a child row of its site: an
 * ordinary entry of the site table (its own counters, peak and request
 * extremes; the object's value names it, so frees, ages and verdicts
 * need nothing new), never in the site hash, found through this file's
 * lock-free table keyed by (parent, stack, context).  This file owns the
 * split= parameter and its checks at load, the context of an allocation,
 * the child table and its keys, and how a child row names its context.
 * A site neither captured nor split keeps the fast path as it was:
 * sa_ctx_site() is one test of the slow path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/ctype.h>
#include <linux/hardirq.h>
#include <linux/jhash.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/namei.h>
#include <linux/nodemask.h>
#include <linux/overflow.h>
#include <linux/path.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "sa_core.h"
#include "sa_ctx.h"
#include "sa_sites.h"

static char *split = "none";
module_param(split, charp, 0444);
MODULE_PARM_DESC(split,
		 "rows split by one context: none, cgroup (cgroup v2 id), node (NUMA node of the object) or task (its name)");

int sa_split;

static const char *const sa_split_names[] = {
	[SA_SPLIT_NONE]		= "none",
	[SA_SPLIT_CGROUP]	= "cgroup",
	[SA_SPLIT_NODE]		= "node",
	[SA_SPLIT_TASK]		= "task",
};

/*
 * The child table: the key of every entry of the site table (zero for a
 * site that is no child), and an open-addressing hash of 1 + the index
 * of each child, 0 when vacant, twice as many slots as sites.  A slot
 * goes from 0 to an index once, by cmpxchg(), after the child's key and
 * entry are complete (a full barrier); never back.
 */
static struct sa_ctx_key *sa_ctx_keys;
static u32 *sa_ctx_hash;
static unsigned long sa_ctx_hash_mask;

const char *sa_split_name(void)
{
	return sa_split_names[sa_split];
}

/* ---- the kernel's contexts, as this kernel gives them ------------------ */

/* Outside task context: hard or soft interrupt, NMI. */
static __always_inline bool sa_ctx_in_irq(void)
{
#ifdef SA_HAVE_IN_TASK
	return !in_task();
#else
	return in_interrupt();
#endif
}

/* The cgroup v2 id of the current task (task context). */
static u64 sa_ctx_cgroup(void)
{
#if defined(CONFIG_CGROUPS) && defined(SA_HAVE_CGROUP_ID)
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(current));
	rcu_read_unlock();
	return id;
#else
	return 0;
#endif
}

/*
 * Is a cgroup2 file system mounted where systemd and the documentation
 * put it?  The kernel exports no test of the default hierarchy's
 * visibility: its usual mount points are looked at.
 */
static bool sa_cgroup2_mounted(void)
{
	static const char *const where[] = {
		"/sys/fs/cgroup", "/sys/fs/cgroup/unified",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(where); i++) {
		struct path p;
		bool ok;

		if (kern_path(where[i], LOOKUP_FOLLOW, &p))
			continue;
		ok = p.dentry->d_sb->s_magic == CGROUP2_SUPER_MAGIC;
		path_put(&p);
		if (ok)
			return true;
	}
	return false;
}

int sa_ctx_check(void)
{
	int i = sysfs_match_string(sa_split_names, split ? split : "none");

	if (i < 0) {
		pr_err("split=%s: not one of none, cgroup, node, task\n", split);
		return -EINVAL;
	}
	switch (i) {
	case SA_SPLIT_CGROUP:
#if !defined(CONFIG_CGROUPS) || !defined(SA_HAVE_CGROUP_ID)
		pr_err("split=cgroup: this kernel has no cgroups (CONFIG_CGROUPS) or no cgroup id of a task\n");
		return -EINVAL;
#else
		if (!sa_cgroup2_mounted()) {
			pr_err("split=cgroup: no cgroup2 file system is mounted (at /sys/fs/cgroup or /sys/fs/cgroup/unified)\n");
			return -EINVAL;
		}
		break;
#endif
	case SA_SPLIT_NODE:
		if (num_online_nodes() < 2) {
			pr_err("split=node: one NUMA node online (%d possible): nothing to split\n",
			       num_possible_nodes());
			return -EINVAL;
		}
		break;
	}
	sa_split = i;
	return 0;
}

/* ---- the child table --------------------------------------------------- */

static unsigned long sa_ctx_sites;	/* the site table's capacity */
static size_t sa_ctx_allocated;		/* bytes of the child table */

static unsigned int sa_ctx_hash_slots(unsigned long sites)
{
	return roundup_pow_of_two(sites * 2);
}

size_t sa_ctx_bytes(unsigned long sites)
{
	return sites * sizeof(struct sa_ctx_key) +
	       sa_ctx_hash_slots(sites) * sizeof(u32);
}

size_t sa_ctx_memory(void)
{
	return sa_ctx_allocated;
}

/* Process context: the child table, if not yet made; 0 or -ENOMEM. */
int sa_ctx_make(void)
{
	unsigned long mask = sa_ctx_hash_slots(sa_ctx_sites) - 1;
	struct sa_ctx_key *keys;
	u32 *hash;

	if (sa_ctx_keys)
		return 0;
	keys = sa_zalloc(array_size(sa_ctx_sites, sizeof(*keys)));
	hash = sa_zalloc(array_size(mask + 1, sizeof(u32)));
	if (!keys || !hash) {
		vfree(keys);
		vfree(hash);
		pr_err("cannot allocate %zu bytes for the context rows' table\n",
		       sa_ctx_bytes(sa_ctx_sites));
		return -ENOMEM;
	}
	sa_ctx_hash_mask = mask;
	sa_ctx_hash = hash;
	sa_ctx_allocated = sa_ctx_bytes(sa_ctx_sites);
	/*
	 * Last, by a release: a probe that sees the keys (an acquire, in
	 * sa_ctx_child()) sees the hash and its mask.
	 */
	smp_store_release(&sa_ctx_keys, keys);
	return 0;
}

int sa_ctx_alloc(unsigned long sites)
{
	sa_ctx_sites = sites;
	/* Without a split, made by the first capture (sa_ctx_make()). */
	return sa_split ? sa_ctx_make() : 0;
}

void sa_ctx_free(void)
{
	vfree(sa_ctx_keys);
	sa_ctx_keys = NULL;
	vfree(sa_ctx_hash);
	sa_ctx_hash = NULL;
	sa_ctx_allocated = 0;
}

const struct sa_ctx_key *sa_ctx_key_of(unsigned int idx)
{
	/* Pairs with the release in sa_ctx_make(). */
	const struct sa_ctx_key *keys = smp_load_acquire(&sa_ctx_keys);

	if (!keys || !READ_ONCE(keys[idx].parent))
		return NULL;
	return &sa_ctx_keys[idx];
}

void sa_ctx_forget(unsigned int idx)
{
	memset(&sa_ctx_keys[idx], 0, sizeof(sa_ctx_keys[idx]));
}

/* A task's name as a key: whitespace and unprintables as '_', NUL-padded. */
static void sa_ctx_comm(char *dst)
{
	unsigned int i;

	for (i = 0; i < SA_CTX_COMM_LEN - 1 && i < TASK_COMM_LEN - 1; i++) {
		/* Read once each: a task may rename itself meanwhile. */
		char c = READ_ONCE(current->comm[i]);

		if (!c)
			break;
		dst[i] = isspace(c) || !isprint(c) ? '_' : c;
	}
}

/*
 * The split's context of an allocation of @ptr into @k; false when it
 * has none (no split, or an object not in the kernel's direct map).
 */
static bool sa_ctx_fill(struct sa_ctx_key *k, const void *ptr)
{
	switch (sa_split) {
	case SA_SPLIT_CGROUP:
		if (sa_ctx_in_irq()) {
			k->kind = SA_CTX_IRQ;
			return true;
		}
		k->kind = SA_CTX_CGROUP;
		k->v.id = sa_ctx_cgroup();
		return true;
	case SA_SPLIT_TASK:
		if (sa_ctx_in_irq()) {
			k->kind = SA_CTX_IRQ;
			return true;
		}
		k->kind = SA_CTX_TASK;
		sa_ctx_comm(k->v.comm);
		return true;
	case SA_SPLIT_NODE:
		/* Slab memory and large kmallocs are in the direct map. */
		if (!virt_addr_valid(ptr))
			return false;
		k->kind = SA_CTX_NODE;
		k->v.id = page_to_nid(virt_to_page(ptr));
		return true;
	}
	return false;
}

/* The child of @e with key @k, added if new; @e when there is no room. */
static struct sa_site *sa_ctx_find(struct sa_site *e,
				   const struct sa_ctx_key *k)
{
	unsigned long h = jhash2((const u32 *)k, sizeof(*k) / sizeof(u32), 0) &
			  sa_ctx_hash_mask;
	struct sa_site *c = NULL;
	unsigned long tries;

	BUILD_BUG_ON(sizeof(*k) % sizeof(u32));
	/* Twice as many slots as entries: a vacant one is always found. */
	for (tries = 0; tries <= sa_ctx_hash_mask; tries++) {
		u32 v = READ_ONCE(sa_ctx_hash[h]);

		if (!v) {
			if (!c) {
				c = sa_site_new_child(e);
				if (!c) {
					sa_stat_inc(SA_STAT_CTX_DROPPED);
					return e;
				}
				sa_ctx_keys[c - sa_sites] = *k;
			}
			/* A full barrier: the key and entry are complete. */
			if (!cmpxchg(&sa_ctx_hash[h], 0, (u32)(c - sa_sites) + 1)) {
				sa_site_publish_child(c);
				return c;
			}
			continue;	/* lost the slot: look at the winner */
		}
		/* The key through the index read: an address dependency. */
		if (!memcmp(&sa_ctx_keys[v - 1], k, sizeof(*k))) {
			if (c) {
				sa_ctx_forget(c - sa_sites);
				sa_site_spare(c);
			}
			return sa_site_at(v - 1);
		}
		h = (h + 1) & sa_ctx_hash_mask;
	}
	if (c) {
		sa_ctx_forget(c - sa_sites);
		sa_site_spare(c);
	}
	sa_stat_inc(SA_STAT_CTX_DROPPED);
	return e;
}

struct sa_site *sa_ctx_child(struct sa_site *e, const void *ptr,
			     const struct kmem_cache *s)
{
	struct sa_ctx_key k;
	struct sa_site *c;

	/* Pairs with the release in sa_ctx_make(). */
	if (!smp_load_acquire(&sa_ctx_keys))
		return e;
	memset(&k, 0, sizeof(k));
	k.parent = (u32)(e - sa_sites) + 1;
	if (!sa_ctx_fill(&k, ptr))
		return e;
	c = sa_ctx_find(e, &k);
	/* The child's kind as its parent notes it (sa_site_get()). */
	if (c != e &&
	    unlikely(!(READ_ONCE(c->type) & (s ? SA_TYPE_CACHE : SA_TYPE_KMALLOC)) ||
		     (s && s != READ_ONCE(c->cache))))
		sa_site_note_type(c, s);
	return c;
}

/* ---- how a child row says its context ----------------------------------- */

void sa_ctx_suffix(struct seq_file *m, unsigned int idx)
{
	const struct sa_ctx_key *k = sa_ctx_key_of(idx);

	if (!k)
		return;
	if (k->stack)
		seq_printf(m, " @stack:%u", k->stack);
	switch (k->kind) {
	case SA_CTX_CGROUP:
		seq_printf(m, " @cgroup:%llu", k->v.id);
		break;
	case SA_CTX_NODE:
		seq_printf(m, " @node:%llu", k->v.id);
		break;
	case SA_CTX_TASK:
		seq_printf(m, " @task:%.*s", SA_CTX_COMM_LEN, k->v.comm);
		break;
	case SA_CTX_IRQ:
		seq_puts(m, " @irq");
		break;
	}
}

/* Capture rules come with the stack table: none yet. */
bool sa_capture_match(const struct sa_site *e)
{
	return false;
}
