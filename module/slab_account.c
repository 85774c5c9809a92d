// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: per call site accounting of kernel slab allocations.
 *
 * Probes on the kmem tracepoints feed two preallocated, bounded tables:
 *
 *  - the call-site table: a dense array of sites plus an open-addressing
 *    hash of pointers to them; sites are added lock-free and never removed
 *    while the module is loaded; their counters are per CPU but for live
 *    bytes;
 *  - the object table: buckets of SA_BUCKET_KEYS pointer keys (one cache
 *    line) with a spill count, mapping each live object to its site and
 *    sizes, so that a free is charged to the site that allocated.
 *
 * Probes never allocate, never sleep and take no lock; they run in any
 * context the allocator is called from.  /proc/slab_account prints the
 * tables; writes of "reset", "stop" and "start" control them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "compat.h"

#define SA_FORMAT_VERSION	"1.0"
#define SA_NAME_LEN		24
#define SA_BUCKET_KEYS		7	/* keys per bucket: 7 + spill = 64 bytes */
#define SA_PROBE_BUCKETS	4	/* buckets an object may spill into */
#define SA_KEY_BUSY		1UL	/* slot claimed, key not yet published */

#define SA_MAX_OBJECTS		BIT(26)
#define SA_MAX_SITES		BIT(20)

static unsigned long max_objects;
module_param(max_objects, ulong, 0444);
MODULE_PARM_DESC(max_objects,
		 "object table capacity (0 = auto: 1 per 2 KiB of RAM, 8192..1M)");

static unsigned long max_sites;
module_param(max_sites, ulong, 0444);
MODULE_PARM_DESC(max_sites,
		 "call-site table capacity (0 = auto: 32 per MiB of RAM, 1024..16384)");

enum sa_site_type {
	SA_TYPE_KMALLOC	= BIT(0),
	SA_TYPE_CACHE	= BIT(1),
	SA_TYPE_MULTI	= BIT(2),	/* several caches */
};

/* No allocation has this cache argument: sa_site.fast of a mixed site. */
#define SA_FAST_NONE ((const struct kmem_cache *)2UL)

/*
 * A site's counters that only grow, per CPU: summed when the file is
 * read, they take no cache line shared by CPUs.  Live objects are
 * allocs - frees, live requested bytes bytes_req - freed_req.
 */
struct sa_site_pcpu {
	u64 allocs;
	u64 frees;
	u64 bytes_alloc;
	u64 bytes_req;
	u64 freed_req;		/* requested bytes of the frees */
};

/*
 * A site is two cache lines: what every allocation at it reads (the key,
 * the kind of allocation the fast path accepts, its per-CPU counters) and
 * the one counter all CPUs write, live bytes, which an exact peak needs.
 * The counters run from the moment the site is first seen; a reset only
 * records where they stood (struct sa_site_cold, written under
 * sa_ctl_lock) and the file shows the difference.
 */
struct sa_site {
	unsigned long call_site;
	/*
	 * The cache argument of allocations the fast path counts without a
	 * look at type and cache: NULL for a kmalloc-only site, the cache of
	 * a single-cache site, SA_FAST_NONE for a mixed or multi-cache one.
	 */
	const struct kmem_cache *fast;
	const struct kmem_cache *cache;	/* first cache seen, compared only */
	unsigned long type;		/* enum sa_site_type bits */
	struct sa_site_pcpu __percpu *pcpu;
	u32 off;			/* its byte offset in sa_sites */
	int ready;			/* published in the hash */

	atomic64_t live_alloc ____cacheline_aligned;
	atomic64_t peak;		/* of live_alloc, since the last reset */
};

/* What only the slow paths and the file read of a site: not in its lines. */
struct sa_site_cold {
	char name[SA_NAME_LEN];		/* the cache's name, copied */
	/* Where the counters stood at the last reset. */
	u64 base_allocs;
	u64 base_frees;
	u64 base_alloc;
	u64 base_req;
};

/* Per-CPU counters are allocated in blocks of this many sites. */
#define SA_PCPU_BLOCK		512

/* What the file shows of a site: one consistent-enough reading. */
struct sa_site_view {
	u64 allocs, frees, total, req, live, live_req, objs, peak;
};

struct sa_bucket {
	unsigned long key[SA_BUCKET_KEYS];
	atomic_long_t spill;	/* objects homed here, stored further on */
} ____cacheline_aligned;

struct sa_objval {
	u32 site;		/* the site's byte offset in sa_sites */
	u32 bytes_alloc;
	u32 bytes_req;
};

/* Global event counters, per CPU, summed at read time. */
struct sa_stats {
	u64 failed;		/* allocation returned NULL */
	u64 unknown;		/* free of a pointer not in the table */
	u64 missed;		/* allocation of a pointer still in the table */
	u64 dropped_objs;	/* object table full */
	u64 dropped_sites;	/* call-site table full */
};

static DEFINE_PER_CPU(struct sa_stats, sa_stats);
static DEFINE_PER_CPU(int, sa_spare_site) = -1;

static struct sa_site *sa_sites;
static struct sa_site_cold *sa_site_colds;
static struct sa_site_pcpu __percpu **sa_pcpu_blocks;
static unsigned int sa_nr_pcpu_blocks;
static struct sa_site **sa_site_hash;	/* open addressing, NULL = free */
static unsigned int sa_site_cap;
static unsigned int sa_site_hash_bits;
static unsigned long sa_site_hash_mask;	/* BIT(sa_site_hash_bits) - 1 */
static atomic_t sa_nr_sites = ATOMIC_INIT(0);

static struct sa_bucket *sa_buckets;
static struct sa_objval *sa_vals;
static unsigned int sa_bucket_bits;
static unsigned long sa_bucket_mask;	/* BIT(sa_bucket_bits) - 1 */
static unsigned long sa_vals_stride;	/* bytes of a bucket's values */

static size_t sa_table_bytes;

/* Control state, under sa_ctl_lock. */
static DEFINE_MUTEX(sa_ctl_lock);
static bool sa_active;
static struct sa_stats sa_base;	/* totals at the last reset */

/* ---- call-site table ------------------------------------------------ */

/*
 * A multiplicative hash as hash_64(), of the product's bits from
 * SA_HASH_SHIFT up: a fixed shift and a mask, not a shift by a variable,
 * which on x86 would tie up %cl, where the probes receive an argument.
 */
#define SA_HASH_SHIFT	40
#define SA_HASH_BITS	(64 - SA_HASH_SHIFT)

static __always_inline unsigned long sa_hash(unsigned long key,
					     unsigned long mask)
{
	return ((u64)key * GOLDEN_RATIO_64 >> SA_HASH_SHIFT) & mask;
}

static inline struct sa_site *sa_site_at(u32 idx)
{
	return &sa_sites[idx];
}

static inline struct sa_site_cold *sa_site_cold(const struct sa_site *e)
{
	return &sa_site_colds[e - sa_sites];
}

/* The site at byte offset @off: object values keep offsets, not indexes. */
static __always_inline struct sa_site *sa_site_of(u32 off)
{
	return (void *)((char *)sa_sites + off);
}

static inline bool sa_site_ready(struct sa_site *e)
{
	/* Published entries only; pairs with the release in sa_site_get_slow(). */
	return smp_load_acquire(&e->ready);
}

static void sa_site_set_cache(struct sa_site *e, const struct kmem_cache *s)
{
	char *name = sa_site_cold(e)->name;
	unsigned int i;

	/* A spare entry may have been named for another site already. */
	name[0] = '\0';
	e->fast = s;
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
		if (isspace(name[i]) || !isprint(name[i]))
			name[i] = '_';
}

static int sa_site_reserve(void)
{
	int idx = this_cpu_xchg(sa_spare_site, -1);

	if (idx >= 0)
		return idx;
	return atomic_fetch_add_unless(&sa_nr_sites, 1, sa_site_cap);
}

/* Find or add the entry of @call_site, starting at hash slot @h. */
static noinline struct sa_site *sa_site_get_slow(unsigned long call_site,
						 const struct kmem_cache *s,
						 u32 h)
{
	u32 mask = (1U << sa_site_hash_bits) - 1;
	struct sa_site *e, *v;
	int idx = -1;

	for (;;) {
		/* Pairs with the cmpxchg publishing a fully built entry. */
		v = smp_load_acquire(&sa_site_hash[h]);
		if (!v) {
			if (idx < 0) {
				idx = sa_site_reserve();
				if (idx >= sa_site_cap) {
					this_cpu_inc(sa_stats.dropped_sites);
					return NULL;
				}
				e = sa_site_at(idx);
				memset(e, 0, sizeof(*e));
				e->call_site = call_site;
				e->off = (char *)e - (char *)sa_sites;
				/* Zeroed at load, used by no site before. */
				e->pcpu = sa_pcpu_blocks[idx / SA_PCPU_BLOCK] +
					  idx % SA_PCPU_BLOCK;
				sa_site_set_cache(e, s);
			}
			e = sa_site_at(idx);
			if (!cmpxchg(&sa_site_hash[h], NULL, e)) {
				/* For /proc readers: the entry is complete. */
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
		h = (h + 1) & mask;
	}
}

/* The site of @call_site when it is at its hash slot, else NULL. */
static __always_inline struct sa_site *sa_site_lookup(unsigned long call_site,
						      unsigned long h)
{
	/* Pairs with the cmpxchg publishing a fully built entry. */
	struct sa_site *e = smp_load_acquire(&sa_site_hash[h]);

	if (likely(e) && likely(e->call_site == call_site))
		return e;
	return NULL;
}

/*
 * The fast path's key after a change of type or cache.  Type bits are only
 * ever added and a cache only replaced by one of a destroyed cache's name,
 * so a value computed from an older state, stored late, is still one the
 * site once had: allocations it lets pass need no change either.
 */
static void sa_site_set_fast(struct sa_site *e)
{
	unsigned long type = READ_ONCE(e->type);
	const struct kmem_cache *fast = SA_FAST_NONE;

	if (type == SA_TYPE_KMALLOC)
		fast = NULL;
	else if (type == SA_TYPE_CACHE)
		fast = READ_ONCE(e->cache);
	if (READ_ONCE(e->fast) != fast)
		WRITE_ONCE(e->fast, fast);
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
	if (!strncmp(sa_site_cold(e)->name, sa_cache_name(s), SA_NAME_LEN - 1))
		WRITE_ONCE(e->cache, s);
	else
		set_bit(__ffs(SA_TYPE_MULTI), &e->type);
}

static noinline void sa_site_note_type(struct sa_site *e, const struct kmem_cache *s)
{
	unsigned long want = s ? SA_TYPE_CACHE : SA_TYPE_KMALLOC;

	if (!(READ_ONCE(e->type) & want))
		set_bit(__ffs(want), &e->type);
	if (s)
		sa_site_note_cache(e, s);
	sa_site_set_fast(e);
}

/* Raise the peak of @e to @live if it is higher. */
static noinline void sa_site_peak(struct sa_site *e, s64 live)
{
	s64 peak = atomic64_read(&e->peak);

	while (live > peak) {
		s64 old = atomic64_cmpxchg(&e->peak, peak, live);

		if (old == peak)
			break;
		peak = old;
	}
}

/*
 * Count an allocation; returns the site's live bytes after it.  Probes run
 * with preemption off; a this_cpu operation is also safe from interrupts.
 */
static __always_inline s64 sa_site_count_alloc(struct sa_site *e,
					       size_t bytes_alloc,
					       size_t bytes_req)
{
	struct sa_site_pcpu __percpu *c = e->pcpu;

	this_cpu_inc(c->allocs);
	this_cpu_add(c->bytes_alloc, bytes_alloc);
	this_cpu_add(c->bytes_req, bytes_req);
	return atomic64_add_return(bytes_alloc, &e->live_alloc);
}

static __always_inline void sa_site_alloc(struct sa_site *e, u32 bytes_alloc,
					  u32 bytes_req)
{
	s64 live = sa_site_count_alloc(e, bytes_alloc, bytes_req);

	if (unlikely(live > atomic64_read(&e->peak)))
		sa_site_peak(e, live);
}

static __always_inline void sa_site_free(struct sa_site *e,
					 unsigned long bytes_alloc,
					 unsigned long bytes_req)
{
	struct sa_site_pcpu __percpu *c = e->pcpu;

	atomic64_sub(bytes_alloc, &e->live_alloc);
	this_cpu_add(c->freed_req, bytes_req);
	this_cpu_inc(c->frees);
}

/* ---- object table ---------------------------------------------------- */

/*
 * An object lives in its home bucket (by hash of the pointer) or, when
 * that is full, in one of the SA_PROBE_BUCKETS - 1 buckets after it; the
 * home bucket's spill counts those, so that a lookup in the common case
 * reads one cache line.  A slot is claimed by a cmpxchg from 0 to
 * SA_KEY_BUSY, its value written, and then the key published (release).
 */
static inline struct sa_bucket *sa_bucket_at(u32 b)
{
	return &sa_buckets[b & ((1U << sa_bucket_bits) - 1)];
}

static inline unsigned long *sa_key_of(long slot)
{
	return &sa_buckets[slot / SA_BUCKET_KEYS].key[slot % SA_BUCKET_KEYS];
}

/* Index of @key in @b, or SA_BUCKET_KEYS. */
static __always_inline unsigned int sa_bucket_find(struct sa_bucket *b,
						   unsigned long key)
{
	unsigned int j;

	/* Unrolled: the whole bucket is read for every allocation. */
#pragma GCC unroll 8
	for (j = 0; j < SA_BUCKET_KEYS; j++) {
		/* A torn or stale key cannot equal a pointer being looked up. */
		if (data_race(b->key[j]) == key) {
			/* The value was written before the key: see it. */
			smp_rmb();
			break;
		}
	}
	return j;
}

/* Slots are numbered bucket * SA_BUCKET_KEYS + index; -1 is none. */
static inline long sa_slot_at(unsigned long h, unsigned int j)
{
	return (long)h * SA_BUCKET_KEYS + j;
}

/*
 * The value of key @j of bucket @h: the same as &sa_vals[sa_slot_at(h, j)].
 * The bucket's stride is a variable so that it costs one multiplication,
 * not the chain of shifts and adds a constant would be turned into.
 */
static __always_inline struct sa_objval *sa_val_at(unsigned long h,
						   unsigned int j)
{
	struct sa_objval *vals = (void *)((char *)sa_vals +
					  h * sa_vals_stride);

	return vals + j;
}

static inline long sa_slot(struct sa_bucket *b, unsigned int j)
{
	return sa_slot_at(b - sa_buckets, j);
}

/* The slot of @key in the buckets after its home @home, or -1. */
static noinline long sa_obj_find_spilled(struct sa_bucket *home,
					 unsigned long key)
{
	u32 h = home - sa_buckets;
	unsigned int i, j;

	for (i = 1; i < SA_PROBE_BUCKETS; i++) {
		struct sa_bucket *b = sa_bucket_at(h + i);

		j = sa_bucket_find(b, key);
		if (j < SA_BUCKET_KEYS)
			return sa_slot(b, j);
	}
	return -1;
}

/* Claim a free slot for an object homed at @home; -1 when all are full. */
static long sa_obj_claim(struct sa_bucket *home)
{
	u32 h = home - sa_buckets;
	unsigned int i, j;

	for (i = 0; i < SA_PROBE_BUCKETS; i++) {
		struct sa_bucket *b = sa_bucket_at(h + i);

		for (j = 0; j < SA_BUCKET_KEYS; j++) {
			if (READ_ONCE(b->key[j]) ||
			    cmpxchg(&b->key[j], 0, SA_KEY_BUSY))
				continue;
			if (i)
				atomic_long_inc(&home->spill);
			return sa_slot(b, j);
		}
	}
	return -1;
}

/* An allocation of a pointer still in the table: its free was missed. */
static noinline void sa_obj_missed(struct sa_objval *val, u32 site,
				   u32 bytes_alloc, u32 bytes_req)
{
	/* Charge the missed free to the site that allocated the object. */
	sa_site_free(sa_site_of(val->site), val->bytes_alloc, val->bytes_req);
	this_cpu_inc(sa_stats.missed);
	sa_site_alloc(sa_site_of(site), bytes_alloc, bytes_req);
	val->site = site;
	val->bytes_alloc = bytes_alloc;
	val->bytes_req = bytes_req;
}

/*
 * An allocation, every case: sa_account_alloc() hands over all that is
 * not the common one before it has changed anything.  The first argument
 * is not used: the others then are where the probes received theirs (the
 * probe's own first is its data pointer), and the tail call to here moves
 * no register.
 */
static noinline __noclone void
sa_account_alloc_slow(unsigned long unused, unsigned long call_site,
		      const void *ptr, size_t bytes_req, size_t bytes_alloc,
		      const struct kmem_cache *s)
{
	unsigned long key = (unsigned long)ptr;
	struct sa_objval *val;
	struct sa_bucket *home;
	struct sa_site *e;
	u32 alloc32, req32;
	unsigned long h;
	unsigned int j;
	long slot;

	if (unlikely(ZERO_OR_NULL_PTR(ptr))) {
		if (!ptr)
			this_cpu_inc(sa_stats.failed);
		return;		/* else kmalloc(0): nothing handed out */
	}

	h = sa_hash(call_site, sa_site_hash_mask);
	e = sa_site_lookup(call_site, h);
	if (unlikely(!e)) {
		e = sa_site_get_slow(call_site, s, h);
		if (unlikely(!e))
			return;		/* call-site table full */
	}
	if (unlikely(!(READ_ONCE(e->type) & (s ? SA_TYPE_CACHE : SA_TYPE_KMALLOC)) ||
		     (s && s != READ_ONCE(e->cache))))
		sa_site_note_type(e, s);

	/*
	 * What was handed out is at most KMALLOC_MAX_SIZE (see sa_init()),
	 * so both sizes fit in 32 bits.
	 */
	alloc32 = bytes_alloc;
	req32 = bytes_req;

	/* One pass over the home bucket: is the pointer still tracked? */
	h = sa_hash(key, sa_bucket_mask);
	home = &sa_buckets[h];
	j = sa_bucket_find(home, key);
	if (unlikely(j < SA_BUCKET_KEYS)) {
		sa_obj_missed(sa_val_at(h, j), e->off,
			      alloc32, req32);
		return;
	}
	if (unlikely(atomic_long_read(&home->spill))) {
		slot = sa_obj_find_spilled(home, key);
		if (slot >= 0) {
			sa_obj_missed(&sa_vals[slot], e->off, alloc32,
				      req32);
			return;
		}
	}

	/* Not tracked: the first free slot, the home bucket's first. */
	slot = sa_obj_claim(home);
	if (unlikely(slot < 0)) {
		/* In no row: its free could never be charged. */
		this_cpu_inc(sa_stats.dropped_objs);
		return;
	}
	/* Counted before the key is seen, so before any free of it. */
	sa_site_alloc(e, alloc32, req32);
	val = &sa_vals[slot];
	val->site = e->off;
	val->bytes_alloc = alloc32;
	val->bytes_req = req32;
	/* The value is written before the key is seen. */
	smp_store_release(sa_key_of(slot), key);
}

/*
 * The common case: a known site of the same kind, the pointer not in the
 * table, nothing spilled from its home bucket, a free slot there.  No
 * call but tail calls: the probe needs no registers saved.
 */
static __always_inline void sa_account_alloc(unsigned long call_site,
					     const void *ptr, size_t bytes_req,
					     size_t bytes_alloc,
					     const struct kmem_cache *s)
{
	unsigned long key = (unsigned long)ptr;
	struct sa_bucket *home;
	struct sa_objval *val;
	struct sa_site *e;
	unsigned long h;
	unsigned int j;
	s64 live;

	if (unlikely(ZERO_OR_NULL_PTR(ptr)))
		goto slow;
	e = sa_site_lookup(call_site, sa_hash(call_site, sa_site_hash_mask));
	if (unlikely(!e) || unlikely(READ_ONCE(e->fast) != s))
		goto slow;
	h = sa_hash(key, sa_bucket_mask);
	home = &sa_buckets[h];
	if (unlikely(sa_bucket_find(home, key) < SA_BUCKET_KEYS) ||
	    unlikely(atomic_long_read(&home->spill)))
		goto slow;
	for (j = 0; j < SA_BUCKET_KEYS; j++)
		if (!READ_ONCE(home->key[j]))
			break;
	if (unlikely(j == SA_BUCKET_KEYS) ||
	    unlikely(cmpxchg(&home->key[j], 0, SA_KEY_BUSY)))
		goto slow;

	/* Counted before the key is seen, so before any free of it. */
	live = sa_site_count_alloc(e, bytes_alloc, bytes_req);
	val = sa_val_at(h, j);
	val->site = e->off;
	val->bytes_alloc = bytes_alloc;
	val->bytes_req = bytes_req;
	/* The value is written before the key is seen. */
	smp_store_release(&home->key[j], key);
	/* The peak is a maximum: when it is raised does not matter. */
	if (unlikely(live > atomic64_read(&e->peak)))
		sa_site_peak(e, live);
	return;
slow:
	sa_account_alloc_slow(0, call_site, ptr, bytes_req, bytes_alloc, s);
}

/*
 * A free of a pointer not in its home bucket: spilled, or unknown.  The
 * arguments are the probe's, as for sa_account_alloc_slow().
 */
static noinline __noclone void
sa_account_free_slow(unsigned long unused, unsigned long call_site,
		     const void *ptr)
{
	unsigned long key = (unsigned long)ptr;
	struct sa_bucket *home = &sa_buckets[sa_hash(key, sa_bucket_mask)];
	struct sa_objval val;
	long slot;

	slot = atomic_long_read(&home->spill) ?
	       sa_obj_find_spilled(home, key) : -1;
	if (slot < 0) {
		this_cpu_inc(sa_stats.unknown);
		return;
	}
	atomic_long_dec(&home->spill);
	val = sa_vals[slot];
	/* The value is read before the slot can be claimed again. */
	smp_store_release(sa_key_of(slot), 0);
	sa_site_free(sa_site_of(val.site), val.bytes_alloc, val.bytes_req);
}

static __always_inline void sa_account_free(unsigned long call_site,
					    const void *ptr)
{
	unsigned long key = (unsigned long)ptr;
	unsigned long h, j, site, bytes_alloc, bytes_req;
	struct sa_bucket *home;
	struct sa_objval *val;

	/* kfree(NULL): 0 and SA_KEY_BUSY would match free or busy slots. */
	if (unlikely(ZERO_OR_NULL_PTR(ptr)))
		return;
	h = sa_hash(key, sa_bucket_mask);
	home = &sa_buckets[h];
	j = sa_bucket_find(home, key);
	if (unlikely(j == SA_BUCKET_KEYS)) {
		sa_account_free_slow(0, call_site, ptr);
		return;
	}
	val = sa_val_at(h, j);
	site = val->site;
	bytes_alloc = val->bytes_alloc;
	bytes_req = val->bytes_req;
	/* The value is read before the slot can be claimed again. */
	smp_store_release(&home->key[j], 0);
	sa_site_free(sa_site_of(site), bytes_alloc, bytes_req);
}

/* ---- control ----------------------------------------------------------- */

static void sa_stats_sum(struct sa_stats *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct sa_stats *c = per_cpu_ptr(&sa_stats, cpu);

		sum->failed += READ_ONCE(c->failed);
		sum->unknown += READ_ONCE(c->unknown);
		sum->missed += READ_ONCE(c->missed);
		sum->dropped_objs += READ_ONCE(c->dropped_objs);
		sum->dropped_sites += READ_ONCE(c->dropped_sites);
	}
}

static unsigned int sa_nr_sites_now(void)
{
	return min_t(unsigned int, atomic_read(&sa_nr_sites), sa_site_cap);
}

/*
 * The per-CPU counters of @e, summed.  A free is counted after its alloc,
 * on whichever CPUs: the frees are read first, so that allocs >= frees
 * and bytes_req >= freed_req in the sum.
 */
static void sa_site_sum(const struct sa_site *e, struct sa_site_pcpu *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct sa_site_pcpu *c = per_cpu_ptr(e->pcpu, cpu);

		sum->frees += READ_ONCE(c->frees);
		sum->freed_req += READ_ONCE(c->freed_req);
	}
	/* Pairs with the ordering of a free after its alloc (see above). */
	smp_rmb();
	for_each_possible_cpu(cpu) {
		const struct sa_site_pcpu *c = per_cpu_ptr(e->pcpu, cpu);

		sum->allocs += READ_ONCE(c->allocs);
		sum->bytes_alloc += READ_ONCE(c->bytes_alloc);
		sum->bytes_req += READ_ONCE(c->bytes_req);
	}
}

static void sa_reset(void)
{
	unsigned int i, n = sa_nr_sites_now();
	struct sa_site_pcpu sum;

	for (i = 0; i < n; i++) {
		struct sa_site *e = sa_site_at(i);
		struct sa_site_cold *b = &sa_site_colds[i];

		if (!sa_site_ready(e))
			continue;
		sa_site_sum(e, &sum);
		WRITE_ONCE(b->base_allocs, sum.allocs);
		WRITE_ONCE(b->base_frees, sum.frees);
		WRITE_ONCE(b->base_alloc, sum.bytes_alloc);
		WRITE_ONCE(b->base_req, sum.bytes_req);
		atomic64_set(&e->peak, atomic64_read(&e->live_alloc));
	}
	sa_stats_sum(&sa_base);
}

static int sa_start(void)
{
	int ret;

	if (sa_active)
		return 0;
	ret = sa_compat_register();
	if (ret) {
		tracepoint_synchronize_unregister();
		pr_err("cannot register kmem tracepoint probes: %d\n", ret);
		return ret;
	}
	sa_active = true;
	return 0;
}

static void sa_stop(void)
{
	if (!sa_active)
		return;
	sa_compat_unregister();
	tracepoint_synchronize_unregister();
	sa_active = false;
}

/* ---- /proc/slab_account ---------------------------------------------- */

/* A site's figures as the file shows them (since the last reset). */
static void sa_site_view(struct sa_site *e, struct sa_site_view *v)
{
	const struct sa_site_cold *b = sa_site_cold(e);
	u64 base_allocs = READ_ONCE(b->base_allocs);
	u64 base_frees = READ_ONCE(b->base_frees);
	u64 base_alloc = READ_ONCE(b->base_alloc);
	u64 base_req = READ_ONCE(b->base_req);
	struct sa_site_pcpu sum;

	/* A base is read before the counters it was taken from. */
	smp_rmb();
	sa_site_sum(e, &sum);
	v->allocs = sum.allocs - base_allocs;
	v->frees = sum.frees - base_frees;
	v->objs = sum.allocs - sum.frees;
	v->total = sum.bytes_alloc - base_alloc;
	v->req = sum.bytes_req - base_req;
	v->live = atomic64_read(&e->live_alloc);
	/*
	 * Live bytes are one counter, live requested bytes per-CPU sums: read
	 * at other moments while the site is busy, they may disagree by the
	 * allocations and frees in between.  What was requested of a live
	 * object never exceeds what it was handed: keep the row so.  Exact
	 * when nothing allocates at the site meanwhile.
	 */
	v->live_req = min(sum.bytes_req - sum.freed_req, v->live);
	/* Taken at a reset while allocations went on, it may trail. */
	v->peak = max_t(u64, atomic64_read(&e->peak), v->live);
}

/* Nothing to show since the last reset. */
static bool sa_view_empty(const struct sa_site_view *v)
{
	return !v->allocs && !v->frees && !v->objs;
}

/*
 * First printable site at index >= @idx; sets *pos to its position and
 * leaves its view in @v (the file's private data), which sa_seq_site()
 * prints: the per-CPU counters are summed once per row.
 */
static struct sa_site *sa_seq_find(unsigned int idx, loff_t *pos,
				   struct sa_site_view *v)
{
	unsigned int n = sa_nr_sites_now();

	for (; idx < n; idx++) {
		struct sa_site *e = sa_site_at(idx);

		if (!sa_site_ready(e))
			continue;
		sa_site_view(e, v);
		if (!sa_view_empty(v)) {
			*pos = (loff_t)idx + 1;
			return e;
		}
	}
	*pos = (loff_t)n + 1;
	return NULL;
}

static void *sa_seq_start(struct seq_file *m, loff_t *pos)
{
	if (!*pos)
		return SEQ_START_TOKEN;
	if (*pos > sa_site_cap)
		return NULL;
	return sa_seq_find(*pos - 1, pos, m->private);
}

static void *sa_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	unsigned int idx = v == SEQ_START_TOKEN ? 0 :
			   (struct sa_site *)v - sa_sites + 1;

	return sa_seq_find(idx, pos, m->private);
}

static void sa_seq_stop(struct seq_file *m, void *v)
{
}

static void sa_seq_header(struct seq_file *m)
{
	u64 total = 0, req = 0, live = 0, live_req = 0, objs = 0;
	u64 allocs = 0, frees = 0, callers = 0, tracked = 0;
	unsigned int i, n = sa_nr_sites_now();
	struct sa_site_view v;
	struct sa_stats st;

	for (i = 0; i < n; i++) {
		struct sa_site *e = sa_site_at(i);

		if (!sa_site_ready(e))
			continue;
		sa_site_view(e, &v);
		/* Every object in the table is counted at one site. */
		tracked += v.objs;
		if (sa_view_empty(&v))
			continue;
		callers++;
		total += v.total;
		req += v.req;
		live += v.live;
		live_req += v.live_req;
		objs += v.objs;
		allocs += v.allocs;
		frees += v.frees;
	}
	sa_stats_sum(&st);

	seq_puts(m, "slab_account - version: " SA_FORMAT_VERSION "\n");
	seq_printf(m, "state: %s\n", READ_ONCE(sa_active) ? "active" : "stopped");
	seq_printf(m, "total bytes allocated: %llu\n", total);
	seq_printf(m, "total bytes requested: %llu\n", req);
	seq_printf(m, "slack bytes allocated: %llu\n", total - req);
	seq_printf(m, "current bytes allocated: %llu\n", live);
	seq_printf(m, "current bytes requested: %llu\n", live_req);
	seq_printf(m, "current objects: %llu\n", objs);
	seq_printf(m, "number of allocs: %llu\n", allocs);
	seq_printf(m, "number of frees: %llu\n", frees);
	seq_printf(m, "number of callers: %llu\n", callers);
	seq_printf(m, "failed allocs: %llu\n", st.failed - sa_base.failed);
	seq_printf(m, "unknown frees: %llu\n", st.unknown - sa_base.unknown);
	seq_printf(m, "missed frees: %llu\n", st.missed - sa_base.missed);
	seq_printf(m, "dropped objects: %llu\n",
		   st.dropped_objs - sa_base.dropped_objs);
	seq_printf(m, "dropped sites: %llu\n",
		   st.dropped_sites - sa_base.dropped_sites);
	seq_printf(m, "tracked objects: %llu\n", tracked);
	seq_printf(m, "object capacity: %lu\n",
		   (unsigned long)SA_BUCKET_KEYS << sa_bucket_bits);
	seq_printf(m, "call sites: %u\n", n);
	seq_printf(m, "call site capacity: %u\n", sa_site_cap);
	seq_printf(m, "table memory: %zu\n", sa_table_bytes);
	seq_puts(m, "#     total    slack      req     live live_req   objs     peak  allocs/frees type caller\n");
}

/*
 * @v in decimal, right-aligned in @width columns, then a space, at @p;
 * returns the end.  A row's nine numbers cost a fraction of seq_printf().
 */
static char *sa_put_num(char *p, u64 v, unsigned int width)
{
	char tmp[20];
	unsigned int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	for (; width > n; width--)
		*p++ = ' ';
	while (n)
		*p++ = tmp[--n];
	*p++ = ' ';
	return p;
}

#define SA_ROW_NUMS	(11 + 5 * 8 + 6 + 9 * 21)	/* widths, 9 u64s */

static char *sa_put_str(char *p, const char *str, size_t max)
{
	size_t n = strnlen(str, max);

	memcpy(p, str, n);
	return p + n;
}

/* The row of @e, from the view sa_seq_find() took of it. */
static void sa_seq_site(struct seq_file *m, struct sa_site *e)
{
	const struct sa_site_view v = *(struct sa_site_view *)m->private;
	unsigned long type = READ_ONCE(e->type);
	char row[SA_ROW_NUMS + 8 + SA_NAME_LEN + KSYM_SYMBOL_LEN];
	char af[44], *p = row, *q;
	size_t n;

	p = sa_put_num(p, v.total, 11);
	p = sa_put_num(p, v.total - v.req, 8);
	p = sa_put_num(p, v.req, 8);
	p = sa_put_num(p, v.live, 8);
	p = sa_put_num(p, v.live_req, 8);
	p = sa_put_num(p, v.objs, 6);
	p = sa_put_num(p, v.peak, 8);
	/* allocs/frees, right-aligned in 13 columns */
	q = sa_put_num(af, v.allocs, 0);
	q[-1] = '/';
	q = sa_put_num(q, v.frees, 0);
	n = q - af;		/* with its trailing space */
	for (; n < 14; n++)
		*p++ = ' ';
	memcpy(p, af, q - af);
	p += q - af;

	if ((type & SA_TYPE_KMALLOC) && (type & SA_TYPE_CACHE)) {
		p = sa_put_str(p, "mixed ", 8);
	} else if (type & SA_TYPE_MULTI) {
		p = sa_put_str(p, "cache:* ", 8);
	} else if (type & SA_TYPE_CACHE) {
		const char *name = sa_site_cold(e)->name;

		p = sa_put_str(p, "cache", 8);
		if (name[0]) {
			*p++ = ':';
			p = sa_put_str(p, name, SA_NAME_LEN - 1);
		}
		*p++ = ' ';
	} else {
		p = sa_put_str(p, "kmalloc ", 8);
	}

	/* %pS falls back to a raw address; then obey kptr_restrict. */
	sprint_symbol(p, e->call_site);
	if (!strncmp(p, "0x", 2)) {
		seq_write(m, row, p - row);
		seq_printf(m, "%pK\n", (void *)e->call_site);
		return;
	}
	p += strlen(p);
	*p++ = '\n';
	seq_write(m, row, p - row);
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
	return seq_open_private(file, &sa_seq_ops,
				sizeof(struct sa_site_view));
}

static ssize_t sa_proc_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[8];
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

/* ---- init / exit -------------------------------------------------------- */

static unsigned long sa_clamp_pow2(unsigned long v, unsigned long lo,
				   unsigned long hi)
{
	return rounddown_pow_of_two(clamp(v, lo, hi));
}

/* Zeroed tables; no allocation-failure splat: sa_alloc_tables says why. */
static void *sa_zalloc(size_t size)
{
	return __vmalloc(size, GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN |
			 __GFP_RETRY_MAYFAIL);
}

static void sa_free_tables(void)
{
	unsigned int i;

	if (sa_pcpu_blocks)
		for (i = 0; i < sa_nr_pcpu_blocks; i++)
			free_percpu(sa_pcpu_blocks[i]);
	vfree(sa_pcpu_blocks);
	sa_pcpu_blocks = NULL;
	vfree(sa_buckets);
	vfree(sa_vals);
	vfree(sa_sites);
	vfree(sa_site_colds);
	vfree(sa_site_hash);
}

/* The per-CPU counters of @sites sites, in blocks the per-CPU allocator takes. */
static int sa_alloc_pcpu(unsigned long sites)
{
	const size_t block = SA_PCPU_BLOCK * sizeof(struct sa_site_pcpu);
	unsigned int i;

	BUILD_BUG_ON(SA_PCPU_BLOCK * sizeof(struct sa_site_pcpu) >
		     PCPU_MIN_UNIT_SIZE);
	sa_nr_pcpu_blocks = DIV_ROUND_UP(sites, SA_PCPU_BLOCK);
	sa_pcpu_blocks = sa_zalloc(array_size(sa_nr_pcpu_blocks,
					      sizeof(*sa_pcpu_blocks)));
	if (!sa_pcpu_blocks)
		return -ENOMEM;
	for (i = 0; i < sa_nr_pcpu_blocks; i++) {
		/* Zeroed, as every per-CPU allocation. */
		sa_pcpu_blocks[i] = __alloc_percpu_gfp(block,
						       __alignof__(u64),
						       GFP_KERNEL | __GFP_NOWARN);
		if (!sa_pcpu_blocks[i])
			return -ENOMEM;
	}
	return 0;
}

static int sa_alloc_tables(void)
{
	unsigned long ram_mib = totalram_pages() >> (20 - PAGE_SHIFT);
	unsigned long objs = max_objects, sites = max_sites, nbuckets;

	if (objs > SA_MAX_OBJECTS || sites > SA_MAX_SITES) {
		pr_err("max_objects must be <= %lu and max_sites <= %lu\n",
		       SA_MAX_OBJECTS, SA_MAX_SITES);
		return -EINVAL;
	}
	if (!objs)
		objs = sa_clamp_pow2(ram_mib * 512, 8192, 1UL << 20);
	if (!sites)
		sites = sa_clamp_pow2(ram_mib * 32, 1024, 16384);

	nbuckets = roundup_pow_of_two(DIV_ROUND_UP(objs, SA_BUCKET_KEYS));
	sa_bucket_bits = max(ilog2(nbuckets), 1);
	sa_bucket_mask = BIT(sa_bucket_bits) - 1;
	sa_vals_stride = SA_BUCKET_KEYS * sizeof(struct sa_objval);
	nbuckets = 1UL << sa_bucket_bits;
	sa_site_cap = sites;
	sa_site_hash_bits = ilog2(roundup_pow_of_two(sites * 2));
	sa_site_hash_mask = BIT(sa_site_hash_bits) - 1;

	sa_table_bytes = nbuckets * sizeof(struct sa_bucket) +
			 nbuckets * SA_BUCKET_KEYS * sizeof(struct sa_objval) +
			 sites * (sizeof(struct sa_site) +
				  sizeof(struct sa_site_cold)) +
			 (sizeof(*sa_site_hash) << sa_site_hash_bits) +
			 (size_t)roundup(sites, SA_PCPU_BLOCK) *
			 sizeof(struct sa_site_pcpu) * num_possible_cpus();

	sa_buckets = sa_zalloc(array_size(nbuckets, sizeof(struct sa_bucket)));
	sa_vals = sa_zalloc(array3_size(nbuckets, SA_BUCKET_KEYS,
					sizeof(struct sa_objval)));
	sa_sites = sa_zalloc(array_size(sites, sizeof(struct sa_site)));
	sa_site_colds = sa_zalloc(array_size(sites,
					     sizeof(struct sa_site_cold)));
	sa_site_hash = sa_zalloc(array_size(1UL << sa_site_hash_bits,
					    sizeof(*sa_site_hash)));
	if (!sa_buckets || !sa_vals || !sa_sites || !sa_site_colds ||
	    !sa_site_hash || sa_alloc_pcpu(sites)) {
		pr_err("cannot allocate %zu bytes of tables (max_objects=%lu max_sites=%lu)\n",
		       sa_table_bytes, objs, sites);
		sa_free_tables();
		return -ENOMEM;
	}
	return 0;
}

static struct proc_dir_entry *sa_proc;

static int __init sa_init(void)
{
	int ret;

	/* The object table keeps sizes in 32 bits. */
	BUILD_BUG_ON(KMALLOC_MAX_SIZE > U32_MAX);
	/* sa_hash() gives SA_HASH_BITS bits: enough for the largest tables. */
	BUILD_BUG_ON(roundup_pow_of_two(DIV_ROUND_UP(SA_MAX_OBJECTS,
						     SA_BUCKET_KEYS)) >
		     BIT_ULL(SA_HASH_BITS));
	BUILD_BUG_ON(roundup_pow_of_two(SA_MAX_SITES * 2) > BIT_ULL(SA_HASH_BITS));
	/* Object values keep a site as its byte offset in 32 bits. */
	BUILD_BUG_ON((u64)SA_MAX_SITES * sizeof(struct sa_site) > U32_MAX);

	ret = sa_alloc_tables();
	if (ret)
		return ret;

	sa_proc = proc_create("slab_account", 0400, NULL, &sa_proc_ops);
	if (!sa_proc) {
		pr_err("cannot create /proc/slab_account\n");
		ret = -ENOMEM;
		goto out_tables;
	}

	mutex_lock(&sa_ctl_lock);
	ret = sa_start();
	mutex_unlock(&sa_ctl_lock);
	if (ret)
		goto out_proc;

	pr_info("tracking up to %lu objects and %u call sites in %zu bytes\n",
		(unsigned long)SA_BUCKET_KEYS << sa_bucket_bits, sa_site_cap,
		sa_table_bytes);
	return 0;

out_proc:
	proc_remove(sa_proc);
out_tables:
	sa_free_tables();
	return ret;
}

static void __exit sa_exit(void)
{
	proc_remove(sa_proc);
	mutex_lock(&sa_ctl_lock);
	sa_stop();
	mutex_unlock(&sa_ctl_lock);
	sa_free_tables();
}

module_init(sa_init);
module_exit(sa_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("slab_account developers");
MODULE_DESCRIPTION("Per call site accounting of kernel slab allocations");
