// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: the call-site table.
 *
 * A dense array of sites plus an open-addressing hash of pointers to
 * them.  Sites are added lock-free by the first allocation seen from a
 * call site and never removed while the module is loaded.  This file owns
 * the table's memory, the slow insert, what a site notes of its type and
 * cache, the site a helper's allocation is charged to (sa_unwrap.c finds
 * it), the entries of context rows (sa_ctx.c finds them), the walk of the
 * sites the files show, and retirement.  The sites' counters are
 * sa_ctrs.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "sa_core.h"
#include "sa_ctx.h"
#include "sa_kmem_cache.h"
#include "sa_names.h"
#include "sa_sites.h"
#include "sa_unwrap.h"

struct sa_site *sa_sites;
struct sa_site_cold *sa_site_colds;
struct sa_site **sa_site_hash;
/*
 * What a vacant hash slot points to (sa_site_home()): call site 0 and a
 * fast key no allocation has, never written.  Its counters are real (the
 * last of each CPU's array, .ctr set at load), so that a mistake would
 * count into them rather than into another site's.
 */
static struct sa_site sa_site_vacant = {
	.fast = SA_FAST_NONE,
};

/*
 * What a retired site's hash slot points to (sa_sites_retire()): taken,
 * but for call site 1, which no allocation has; never written.
 */
#define SA_SITE_RETIRED	1UL
static struct sa_site sa_site_retired = {
	.call_site = SA_SITE_RETIRED,
	.fast = SA_FAST_NONE,
};

unsigned int sa_site_cap;
unsigned long sa_site_hash_mask;

static atomic_t sa_nr_sites = ATOMIC_INIT(0);
static DEFINE_PER_CPU(int, sa_spare_site) = -1;

/* ---- tables ----------------------------------------------------------- */

/* Bits of the site hash for @sites sites: twice as many slots. */
static unsigned int sa_sites_hash_bits(unsigned long sites)
{
	return ilog2(roundup_pow_of_two(sites * 2));
}

size_t sa_sites_bytes(unsigned long sites)
{
	return sites * (sizeof(struct sa_site) + sizeof(struct sa_site_cold)) +
	       (sizeof(*sa_site_hash) << sa_sites_hash_bits(sites));
}

int sa_sites_alloc(unsigned long sites, size_t *bytes)
{
	unsigned int hash_bits = sa_sites_hash_bits(sites);
	unsigned long i;
	int ret;

	/* Object values keep a site as its byte offset in 32 bits. */
	BUILD_BUG_ON((u64)SA_MAX_SITES * sizeof(struct sa_site) > U32_MAX);
	/* Two 64-byte lines a site (docs/format.md, "table memory"). */
	BUILD_BUG_ON(L1_CACHE_BYTES == 64 && sizeof(struct sa_site) > 128);
	/* sa_hash() gives SA_HASH_BITS bits: enough for the largest table. */
	BUILD_BUG_ON(roundup_pow_of_two(SA_MAX_SITES * 2) > BIT_ULL(SA_HASH_BITS));

	sa_site_cap = sites;
	sa_site_hash_mask = BIT(hash_bits) - 1;
	atomic_set(&sa_nr_sites, 0);
	*bytes = sa_sites_bytes(sites);

	sa_sites = sa_zalloc(array_size(sites, sizeof(struct sa_site)));
	sa_site_colds = sa_zalloc(array_size(sites, sizeof(struct sa_site_cold)));
	sa_site_hash = sa_zalloc(array_size(BIT(hash_bits), sizeof(*sa_site_hash)));
	/* The vacant and retired sites' counters: the last of each array. */
	sa_site_vacant.ctr = sites * sizeof(struct sa_site_pcpu);
	sa_site_retired.ctr = sa_site_vacant.ctr;
	ret = sa_sites && sa_site_colds && sa_site_hash ?
	      sa_ctrs_alloc(sites) : -ENOMEM;
	if (ret) {
		sa_sites_free();
		return ret;
	}
	for (i = 0; i <= sa_site_hash_mask; i++)
		sa_site_hash[i] = &sa_site_vacant;
	return 0;
}

void sa_sites_free(void)
{
	sa_ctrs_free();
	vfree(sa_sites);
	sa_sites = NULL;
	vfree(sa_site_colds);
	sa_site_colds = NULL;
	vfree(sa_site_hash);
	sa_site_hash = NULL;
}

unsigned int sa_sites_seen(void)
{
	return min_t(unsigned int, atomic_read(&sa_nr_sites), sa_site_cap);
}

/* ---- insert, type and cache ------------------------------------------- */

/* Does @shown (a name as shown) show the cache name @name? */
static bool sa_name_shows(const char *shown, const char *name)
{
	unsigned int i;

	for (i = 0; i < SA_NAME_LEN - 1 && name[i]; i++)
		if (shown[i] != sa_token_char(name[i]))
			return false;
	return shown[i] == '\0';
}

/*
 * Does every allocation at @e take the slow path, whatever its kind: a
 * site in a helper (unwrapped), under capture, or any site with a split.
 */
static bool sa_site_slow_only(const struct sa_site *e, unsigned long type)
{
	return e->helper || sa_split || (type & SA_TYPE_CAPTURED);
}

static void sa_site_set_cache(struct sa_site *e, const struct kmem_cache *s)
{
	char *name = sa_site_cold(e)->name;
	unsigned int i;

	/* A spare entry may have been named for another site already. */
	name[0] = '\0';
	e->fast = sa_site_slow_only(e, e->type) ? SA_FAST_NONE : s;
	if (!s) {
		e->type |= SA_TYPE_KMALLOC;
		return;
	}
	e->type |= SA_TYPE_CACHE;
	e->cache = s;
	if (s == SA_CACHE_UNKNOWN)
		return;		/* the kernel does not say which cache */
	strscpy(name, sa_cache_name(s), SA_NAME_LEN);
	for (i = 0; name[i]; i++)
		name[i] = sa_token_char(name[i]);
}

/* An entry of the table for a new site: its index, sa_site_cap if full. */
static int sa_site_reserve(void)
{
	int idx = this_cpu_xchg(sa_spare_site, -1);

	if (idx >= 0)
		return idx;
	return atomic_fetch_add_unless(&sa_nr_sites, 1, sa_site_cap);
}

/* Find or add the entry of @call_site, starting at hash slot @h. */
static struct sa_site *sa_site_get_slow(unsigned long call_site,
					const struct kmem_cache *s,
					unsigned long h)
{
	struct sa_site *e, *v;
	int idx = -1;

	for (;;) {
		v = READ_ONCE(sa_site_hash[h]);
		if (v == &sa_site_vacant) {
			if (idx < 0) {
				idx = sa_site_reserve();
				if (idx >= sa_site_cap) {
					sa_stat_inc(SA_STAT_DROPPED_SITES);
					return NULL;
				}
				e = sa_site_at(idx);
				memset(e, 0, sizeof(*e));
				e->call_site = call_site;
				e->helper = sa_helper_of(call_site);
				e->off = (char *)e - (char *)sa_sites;
				sa_site_range_empty(e);
				/* Zeroed at load, used by no site before. */
				e->ctr = idx * sizeof(struct sa_site_pcpu);
				sa_site_set_cache(e, s);
				/* Named: a cache rule may select it. */
				if (sa_capture_match(e)) {
					e->type |= SA_TYPE_CAPTURED;
					e->fast = SA_FAST_NONE;
				}
			}
			e = sa_site_at(idx);
			/* A full barrier: the entry is complete when seen. */
			if (cmpxchg(&sa_site_hash[h], &sa_site_vacant, e) ==
			    &sa_site_vacant) {
				/* For readers of the whole table. */
				smp_store_release(&e->ready, 1);
				return e;
			}
			continue;	/* lost the slot: look at the winner */
		}
		if (v->call_site == call_site) {
			/* Keep a reserved entry for this CPU's next new site. */
			if (idx >= 0)
				this_cpu_cmpxchg(sa_spare_site, -1, idx);
			return v;
		}
		h = (h + 1) & sa_site_hash_mask;
	}
}

/*
 * The fast path's key after a change of type or cache.  Type bits are only
 * ever added and a cache only replaced by one of a destroyed cache's name,
 * so a value computed from an older state, stored late, is still one the
 * site once had: allocations it lets pass need no change either.
 */
void sa_site_set_fast(struct sa_site *e)
{
	unsigned long type = READ_ONCE(e->type), again;
	const struct kmem_cache *fast;

	for (;;) {
		/* Each allocation looked at, but for one kind's. */
		fast = SA_FAST_NONE;
		if (!sa_site_slow_only(e, type) && type == SA_TYPE_KMALLOC)
			fast = NULL;
		else if (!sa_site_slow_only(e, type) && type == SA_TYPE_CACHE)
			fast = READ_ONCE(e->cache);
		if (READ_ONCE(e->fast) != fast)
			WRITE_ONCE(e->fast, fast);
		/*
		 * A capture write sets or clears a type bit, then calls this:
		 * the store above and that bit's are ordered by full
		 * barriers on both sides, so one of the two calls sees the
		 * other's type and the last store is of the last type.
		 */
		smp_mb();
		again = READ_ONCE(e->type);
		if (again == type)
			return;
		type = again;
	}
}

static void sa_site_note_cache(struct sa_site *e, const struct kmem_cache *s)
{
	if (!READ_ONCE(e->cache) && !cmpxchg(&e->cache, NULL, s))
		return;
	if (s == READ_ONCE(e->cache) || (READ_ONCE(e->type) & SA_TYPE_MULTI))
		return;
	/*
	 * Another cache of the same name (a module that was loaded again)
	 * takes the place of the first; another name makes the site multi.
	 */
	if (s != SA_CACHE_UNKNOWN &&
	    sa_name_shows(sa_site_cold(e)->name, sa_cache_name(s)))
		WRITE_ONCE(e->cache, s);
	else
		set_bit(__ffs(SA_TYPE_MULTI), &e->type);
}

void sa_site_note_type(struct sa_site *e, const struct kmem_cache *s)
{
	unsigned long want = s ? SA_TYPE_CACHE : SA_TYPE_KMALLOC;

	if (!(READ_ONCE(e->type) & want))
		set_bit(__ffs(want), &e->type);
	if (s)
		sa_site_note_cache(e, s);
	sa_site_set_fast(e);
}

/*
 * The entry of @call_site, added if new, noting an allocation of the kind
 * @s says (NULL kmalloc, else its cache); NULL when the table is full.
 */
struct sa_site *sa_site_get(unsigned long call_site,
			    const struct kmem_cache *s)
{
	struct sa_site *e = sa_site_home(call_site);

	/* A call site of 0 would find a vacant slot's entry. */
	if (unlikely(e->call_site != call_site) ||
	    unlikely(e == &sa_site_vacant)) {
		e = sa_site_get_slow(call_site, s,
				     sa_hash(call_site, sa_site_hash_mask));
		if (unlikely(!e))
			return NULL;
	}
	if (unlikely(!(READ_ONCE(e->type) &
		       (s ? SA_TYPE_CACHE : SA_TYPE_KMALLOC)) ||
		     (s && s != READ_ONCE(e->cache))))
		sa_site_note_type(e, s);
	return e;
}

struct sa_site *sa_site_get_via(unsigned long caller,
				const struct kmem_cache *s, unsigned int via)
{
	struct sa_site *c = sa_site_get(caller, s);

	if (c && READ_ONCE(c->via) != via)
		WRITE_ONCE(c->via, via);
	return c;
}

/*
 * @e is in an allocation helper: the site of the helper's caller, which
 * then says it was unwrapped, noting an allocation of the kind @s says;
 * @e itself when the caller cannot be found (counted), NULL when the
 * table is full.
 */
struct sa_site *sa_site_unwrap(struct sa_site *e, const struct kmem_cache *s)
{
	unsigned int via = e->helper;
	unsigned long caller = sa_unwrap_caller(e->helper, &via);

	if (unlikely(!caller)) {
		sa_stat_inc(SA_STAT_UNWRAP_FAILED);
		return e;
	}
	return sa_site_get_via(caller, s, via);
}

/* ---- context rows ------------------------------------------------------ */

/*
 * An entry for a context row of the site at index @parent, after it (the
 * rows stay in first-seen order, a context row after its site's): this
 * CPU's spare if it is, or a new one while the table has more than its
 * last eighth free, which is kept for call sites of their own (a split
 * makes a row per site and context: without it, they could take every
 * entry, and a new call site's allocations would be in no row at all);
 * sa_site_cap when there is none.
 */
static int sa_site_reserve_child(int parent)
{
	int idx = this_cpu_read(sa_spare_site);
	int n = atomic_read(&sa_nr_sites);

	/* Taken only if it is still the spare (an interrupt may take it). */
	if (idx > parent && this_cpu_cmpxchg(sa_spare_site, idx, -1) == idx)
		return idx;
	do {
		if (n >= sa_site_cap - sa_site_cap / 8)
			return sa_site_cap;
	} while (!atomic_try_cmpxchg(&sa_nr_sites, &n, n + 1));
	return n;
}

struct sa_site *sa_site_new_child(struct sa_site *parent)
{
	int idx = sa_site_reserve_child(parent - sa_sites);
	struct sa_site *c;

	if (idx >= sa_site_cap)
		return NULL;
	c = sa_site_at(idx);
	memset(c, 0, sizeof(*c));
	c->call_site = parent->call_site;
	c->via = READ_ONCE(parent->via);
	c->off = (char *)c - (char *)sa_sites;
	sa_site_range_empty(c);
	/* Zeroed at load, used by no site before. */
	c->ctr = idx * sizeof(struct sa_site_pcpu);
	/* Its parent's kind; never in the hash, no fast path passes it. */
	c->type = READ_ONCE(parent->type) & ~SA_TYPE_CAPTURED;
	c->cache = READ_ONCE(parent->cache);
	c->fast = SA_FAST_NONE;
	/* Named before the parent was published: not written since. */
	memcpy(sa_site_cold(c)->name, sa_site_cold(parent)->name, SA_NAME_LEN);
	sa_site_cold(c)->hidden = 0;
	/* Its .children and .next are 0: no list holds an unpublished row. */
	return c;
}

void sa_site_publish_child(struct sa_site *parent, struct sa_site *c)
{
	u32 *first = &sa_site_cold(parent)->children;
	u32 link = (u32)(c - sa_sites) + 1, old = READ_ONCE(*first), was;

	/*
	 * On its parent's list of children, for retirement and the unload
	 * verdict: the link, then the head by cmpxchg (a full barrier: the
	 * row is complete when a walk of the list reaches it).
	 */
	for (;;) {
		WRITE_ONCE(sa_site_cold(c)->next, old);
		was = cmpxchg(first, old, link);
		if (was == old)
			break;
		old = was;
	}
	/* For readers of the whole table. */
	smp_store_release(&c->ready, 1);
}

void sa_site_spare(struct sa_site *c)
{
	this_cpu_cmpxchg(sa_spare_site, -1, (int)(c - sa_sites));
}

/* ---- the files' walk, retirement ------------------------------------- */

struct sa_site *sa_site_shown(unsigned int idx, unsigned int n, u32 gen,
			      loff_t *pos, struct sa_site_view *v)
{
	for (; idx < n; idx++) {
		struct sa_site *e = sa_site_at(idx);

		/*
		 * Empty rows (after a reset) are passed over by the
		 * thousand, each a sum over every CPU with counters.
		 */
		if (!(idx % 64))
			cond_resched();
		if (!sa_site_ready(e))
			continue;
		sa_site_view(e, v);
		if (!sa_view_empty(v) ||
		    (gen && sa_site_cold(e)->read_gen == gen)) {
			*pos = (loff_t)idx + 1;
			return e;
		}
	}
	*pos = (loff_t)n + 1;
	return NULL;
}

void sa_sites_retire(unsigned long start, unsigned long end, u16 owner,
		     u32 *first)
{
	unsigned long h, rows = 0;
	u32 link;

	lockdep_assert_held(&sa_ctl_lock);
	/*
	 * Every slot of the hash, one pointer each: what a module's unload
	 * costs whatever its rows (2 x max_sites slots or more), while the
	 * names looked up and the verdict after it are only of the rows
	 * listed here.
	 */
	for (h = 0; h <= sa_site_hash_mask; h++) {
		struct sa_site *e = READ_ONCE(sa_site_hash[h]), *c;

		if (!(h % 4096))
			cond_resched();
		if (e == &sa_site_vacant || e == &sa_site_retired ||
		    e->call_site < start || e->call_site >= end)
			continue;
		/* Named while its code is there (its rows' name). */
		sa_name_keep(e);
		e->owner = owner;
		WRITE_ONCE(sa_site_hash[h], &sa_site_retired);
		/* Each site is retired once: the list has no cycle. */
		sa_site_cold(e)->next = *first;
		*first = (u32)(e - sa_sites) + 1;
		/*
		 * Its context rows: never in the hash, found through their
		 * parent, which a later allocation there no longer finds.
		 * The list's head and each link are read once (they pair
		 * with sa_site_publish_child()'s cmpxchg by the index's
		 * dependency).  A row put on the list after this read is
		 * made by an allocation in code that is gone: it runs
		 * after the module's exit (or init) function returned,
		 * only in a module whose text is freed under it.
		 */
		link = READ_ONCE(sa_site_cold(e)->children);
		for (; (c = sa_site_link(link));
		     link = READ_ONCE(sa_site_cold(c)->next)) {
			c->owner = owner;
			if (!(++rows % 4096))
				cond_resched();
		}
	}
}
