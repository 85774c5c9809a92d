// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: the object table.
 *
 * Buckets of SA_BUCKET_KEYS pointer keys (one cache line) with a spill
 * count, mapping each live object to its site and sizes, so that a free is
 * charged to the site that allocated.  This file owns the table's sizing,
 * the claim of a slot, objects spilled from their home bucket, the slow
 * paths of allocations and frees, frees that were missed, in-place resizes,
 * and the global event counters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>

#include "sa_core.h"
#include "sa_ctx.h"
#include "sa_objects.h"
#include "sa_sites.h"

DEFINE_PER_CPU(struct sa_stats, sa_stats);

struct sa_bucket *sa_buckets;
struct sa_objval *sa_vals;
unsigned long sa_bucket_mask;
unsigned long sa_vals_stride;

/* Buckets of a table for about @objs objects. */
static unsigned long sa_objects_buckets(unsigned long objs)
{
	unsigned long nbuckets = roundup_pow_of_two(DIV_ROUND_UP(objs,
								  SA_BUCKET_KEYS));

	/* sa_hash() gives SA_HASH_BITS bits: enough for the largest table. */
	BUILD_BUG_ON(roundup_pow_of_two(DIV_ROUND_UP(SA_MAX_OBJECTS,
						     SA_BUCKET_KEYS)) >
		     BIT_ULL(SA_HASH_BITS));
	/*
	 * At least the buckets an object may be stored in: with fewer, a
	 * spilled object's search would wrap around to its home bucket.
	 */
	return max_t(unsigned long, nbuckets, SA_PROBE_BUCKETS);
}

size_t sa_objects_bytes(unsigned long objs)
{
	return sa_objects_buckets(objs) *
	       (sizeof(struct sa_bucket) +
		SA_BUCKET_KEYS * sizeof(struct sa_objval));
}

int sa_objects_alloc(unsigned long objs, size_t *bytes)
{
	unsigned long nbuckets = sa_objects_buckets(objs);

	sa_bucket_mask = nbuckets - 1;
	sa_vals_stride = SA_BUCKET_KEYS * sizeof(struct sa_objval);
	*bytes = sa_objects_bytes(objs);
	sa_buckets = sa_zalloc(array_size(nbuckets, sizeof(struct sa_bucket)));
	sa_vals = sa_zalloc(array3_size(nbuckets, SA_BUCKET_KEYS,
					sizeof(struct sa_objval)));
	if (!sa_buckets || !sa_vals) {
		sa_objects_free();
		return -ENOMEM;
	}
	return 0;
}

void sa_objects_free(void)
{
	vfree(sa_buckets);
	sa_buckets = NULL;
	vfree(sa_vals);
	sa_vals = NULL;
}

unsigned long sa_objects_capacity(void)
{
	return (sa_bucket_mask + 1) * SA_BUCKET_KEYS;
}

unsigned long sa_objects_ceiling(void)
{
	unsigned long ram_mib = totalram_pages() >> (20 - PAGE_SHIFT);

	return rounddown_pow_of_two(clamp_t(u64, (u64)ram_mib * 1024, 8192,
					    SA_MAX_OBJECTS));
}

unsigned long sa_objects_advice(u64 want)
{
	unsigned long limit = sa_objects_ceiling();
	u64 n = max_t(u64, 2 * want, 2 * (u64)sa_objects_capacity());

	n = n >= limit ? limit : roundup_pow_of_two((unsigned long)n);
	/* Only a table larger than this one. */
	return sa_objects_buckets(n) * SA_BUCKET_KEYS > sa_objects_capacity() ?
	       n : 0;
}

void sa_stats_sum(struct sa_stats_sum *sum)
{
	unsigned int i;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct sa_stats *c = per_cpu_ptr(&sa_stats, cpu);

		for (i = 0; i < SA_NR_STATS; i++)
			sum->n[i] += sa_count_read(&c->n[i]);
	}
}

/* ---- ages --------------------------------------------------------------- */

#if BITS_PER_LONG == 32
/*
 * 64-bit jiffies in NMI context (sa_arch.h), where the seqcount's writer
 * may be the code interrupted: the high word, the low word (jiffies), the
 * high word again.  A carry in between changes the high word; its new
 * value goes with a low word that wrapped.
 */
u64 sa_jiffies_nmi(void)
{
	const u32 *high = (const u32 *)&jiffies_64 +
			  !IS_ENABLED(CONFIG_CPU_BIG_ENDIAN);
	u32 h1, lo, h2;

	h1 = READ_ONCE(*high);
	/* The words in this order (the writer's carry in between shows). */
	smp_rmb();
	lo = READ_ONCE(jiffies);
	smp_rmb();	/* as above */
	h2 = READ_ONCE(*high);
	if (h1 != h2 && lo >= BIT(31))
		h2 = h1;
	return (u64)h2 << 32 | lo;
}
#endif

const u32 sa_age_bounds[SA_AGE_BUCKETS - 1] = { 1, 10, 60, 600, 3600 };

/* @age in clock ticks (sa_clock()). */
static void sa_obj_age(struct sa_obj_ages *a, u32 bytes_alloc, u32 bytes_req,
		       u32 age)
{
	unsigned int i;
	u64 bs;

	for (i = 0; i < SA_AGE_BUCKETS - 1; i++)
		if (sa_clock_jiffies(age) < (u64)sa_age_bounds[i] * HZ)
			break;
	a->ages[i]++;
	a->objs++;
	a->bytes += bytes_alloc;
	a->req += bytes_req;
	a->oldest = max(a->oldest, age);
	if (check_add_overflow(a->byte_ticks, (u64)bytes_alloc * age, &bs))
		bs = U64_MAX;
	a->byte_ticks = bs;
}

void sa_objects_scan(struct sa_obj_ages *acc, unsigned int nsites)
{
	unsigned long b;
	unsigned int j;

	for (b = 0; b <= sa_bucket_mask; b++) {
		struct sa_bucket *bk = &sa_buckets[b];

		if (!(b % 4096))
			cond_resched();
		for (j = 0; j < SA_BUCKET_KEYS; j++) {
			unsigned long key = READ_ONCE(bk->key[j]);
			struct sa_objval *val = sa_val_at(b, j);
			u32 site, bytes_alloc, bytes_req, born;
			unsigned long idx;

			if (key <= SA_KEY_BUSY)
				continue;
			/* Pairs with the release that published the key. */
			smp_rmb();
			site = READ_ONCE(val->site);
			bytes_alloc = READ_ONCE(val->bytes_alloc);
			bytes_req = READ_ONCE(val->bytes_req);
			born = READ_ONCE(val->born);
			/* Still the same key: the value was its (or a twin's). */
			smp_rmb();
			if (READ_ONCE(bk->key[j]) != key)
				continue;
			idx = site / sizeof(struct sa_site);
			if (idx >= nsites)
				continue;
			/*
			 * A slot freed and taken again by the same address
			 * meanwhile may mix two objects' values: each is one
			 * an object had, and requested never exceeds handed.
			 */
			/* Read after born: modulo 2^32, the age. */
			sa_obj_age(&acc[idx], bytes_alloc,
				   min(bytes_req, bytes_alloc),
				   sa_clock() - born);
		}
	}
}

/* ---- slots ------------------------------------------------------------- */

/* Slots are numbered bucket * SA_BUCKET_KEYS + index. */
static inline struct sa_bucket *sa_bucket_at(unsigned long b)
{
	return &sa_buckets[b & sa_bucket_mask];
}

static inline unsigned long *sa_key_of(long slot)
{
	return &sa_buckets[slot / SA_BUCKET_KEYS].key[slot % SA_BUCKET_KEYS];
}

static inline long sa_slot(struct sa_bucket *b, unsigned int j)
{
	return (long)(b - sa_buckets) * SA_BUCKET_KEYS + j;
}

/* The slot of @key in the buckets after its home @home, or -1. */
static long sa_obj_find_spilled(struct sa_bucket *home, unsigned long key)
{
	unsigned long h = home - sa_buckets;
	unsigned int i, j;

	for (i = 1; i < SA_PROBE_BUCKETS; i++) {
		struct sa_bucket *b = sa_bucket_at(h + i);

		j = sa_bucket_find(b, key);
		if (j < SA_BUCKET_KEYS)
			return sa_slot(b, j);
	}
	return -1;
}

/* The slot of @key, home or spilled, or -1. */
static long sa_obj_find(unsigned long key)
{
	struct sa_bucket *home = &sa_buckets[sa_hash(key, sa_bucket_mask)];
	unsigned int j = sa_bucket_find(home, key);

	if (j < SA_BUCKET_KEYS)
		return sa_slot(home, j);
	if (!atomic_long_read(&home->spill))
		return -1;
	return sa_obj_find_spilled(home, key);
}

/* Claim a free slot for an object homed at @home; -1 when all are full. */
static long sa_obj_claim(struct sa_bucket *home)
{
	unsigned long h = home - sa_buckets;
	unsigned int i, j;

	for (i = 0; i < SA_PROBE_BUCKETS; i++) {
		struct sa_bucket *b = sa_bucket_at(h + i);

		for (j = 0; j < SA_BUCKET_KEYS; j++) {
			if (READ_ONCE(b->key[j]) ||
			    cmpxchg(&b->key[j], 0, SA_KEY_BUSY))
				continue;
			/* Raised before the key is published. */
			if (i)
				atomic_long_inc(&home->spill);
			return sa_slot(b, j);
		}
	}
	return -1;
}

/* ---- slow paths -------------------------------------------------------- */

/*
 * An allocation of a pointer still in the table.  Either its free was
 * missed: the old object's free is charged to its site.  Or it is the same
 * large kmalloc reported twice: from 6.10 __kmalloc_large_node() reports it
 * with a call site inside the allocator, then its caller again with the
 * real one; frees of large objects are all reported (kfree, and the hooked
 * bulk free), so a large object of the same sizes is that.  The first
 * report is taken back and the object counted at the second's site.
 */
static noinline void sa_obj_missed(struct sa_objval *val, struct sa_site *e,
				   u32 bytes_alloc, u32 bytes_req)
{
	struct sa_site *old = sa_site_of(val->site);
	u32 old_req = READ_ONCE(val->bytes_req);
	s64 mine;

	if (bytes_alloc > KMALLOC_MAX_CACHE_SIZE &&
	    val->bytes_alloc == bytes_alloc && old_req == bytes_req) {
		sa_site_uncount_alloc(old, bytes_alloc, bytes_req);
		sa_stat_inc(SA_STAT_TWICE);
	} else {
		sa_site_count_free(old, val->bytes_alloc, old_req);
		sa_stat_inc(SA_STAT_MISSED);
	}
	mine = sa_site_count_alloc(e, bytes_alloc, bytes_req);
	val->site = e->off;
	val->bytes_alloc = bytes_alloc;
	WRITE_ONCE(val->bytes_req, bytes_req);
	WRITE_ONCE(val->born, sa_clock());
	sa_site_note(e, mine, bytes_alloc, bytes_req);
}

noinline __noclone void
sa_account_alloc_slow(unsigned long unused, unsigned long call_site,
		      const void *ptr, size_t bytes_req, size_t bytes_alloc,
		      const struct kmem_cache *s)
{
	unsigned long key = (unsigned long)ptr;
	struct sa_site *e;
	u32 alloc32, req32;
	long slot;
	s64 mine;

	if (unlikely(ZERO_OR_NULL_PTR(ptr))) {
		if (!ptr)
			sa_stat_inc(SA_STAT_FAILED);
		return;		/* else kmalloc(0): nothing handed out */
	}

	e = sa_site_get(call_site, s);
	if (unlikely(e && e->helper))
		e = sa_site_unwrap(e, s);
	if (unlikely(!e))
		return;		/* call-site table full */
	/* A split or captured site: the row of the allocation's context. */
	e = sa_ctx_site(e, ptr, s);

	/* At most KMALLOC_MAX_SIZE was handed out (sa_main.c): 32 bits. */
	alloc32 = bytes_alloc;
	req32 = bytes_req;

	/* Is the pointer still tracked? */
	slot = sa_obj_find(key);
	if (unlikely(slot >= 0)) {
		sa_obj_missed(&sa_vals[slot], e, alloc32, req32);
		return;
	}

	/* Not tracked: the first free slot, the home bucket's first. */
	slot = sa_obj_claim(&sa_buckets[sa_hash(key, sa_bucket_mask)]);
	if (unlikely(slot < 0)) {
		/* In no row: its free could never be charged. */
		sa_stat_inc(SA_STAT_DROPPED_OBJS);
		return;
	}
	mine = sa_obj_publish(sa_key_of(slot), &sa_vals[slot], key, e,
			      alloc32, req32);
	sa_site_note(e, mine, alloc32, req32);
}

/* A free of a pointer not in its home bucket: spilled, or unknown. */
noinline __noclone void
sa_account_free_slow(unsigned long unused, unsigned long call_site,
		     const void *ptr)
{
	unsigned long key = (unsigned long)ptr;
	struct sa_bucket *home = &sa_buckets[sa_hash(key, sa_bucket_mask)];
	long slot;

	slot = atomic_long_read(&home->spill) ?
	       sa_obj_find_spilled(home, key) : -1;
	if (slot < 0) {
		sa_stat_inc(SA_STAT_UNKNOWN);
		return;
	}
	sa_obj_release(sa_key_of(slot), &sa_vals[slot]);
	/* Lowered after the key is released. */
	atomic_long_dec(&home->spill);
}

/*
 * Take the object at @ptr out of the table (a free that RCU completes
 * later): its slot is held busy, so that no lookup finds the object and
 * no allocation takes the slot, and no count changes yet.  The slot, or
 * -1 when the table does not hold the object.
 */
long sa_account_take(const void *ptr)
{
	unsigned long key = (unsigned long)ptr;
	long slot;

	if (unlikely(ZERO_OR_NULL_PTR(ptr)))
		return -1;
	slot = sa_obj_find(key);
	/* Its owner is freeing it: no one else takes it meanwhile. */
	if (slot < 0 || cmpxchg(sa_key_of(slot), key, SA_KEY_BUSY) != key)
		return -1;
	return slot;
}

/* The object taken from @slot was freed: charged to its site. */
void sa_account_taken_free(const void *ptr, long slot)
{
	struct sa_bucket *home;

	if (slot < 0) {
		if (!ZERO_OR_NULL_PTR(ptr))
			sa_stat_inc(SA_STAT_UNKNOWN);
		return;
	}
	home = &sa_buckets[sa_hash((unsigned long)ptr, sa_bucket_mask)];
	sa_obj_release(sa_key_of(slot), &sa_vals[slot]);
	/* A spilled object: lowered after the key is released. */
	if (slot / SA_BUCKET_KEYS != home - sa_buckets)
		atomic_long_dec(&home->spill);
}

/* The object taken from @slot was not freed: back in the table. */
void sa_account_taken_back(const void *ptr, long slot)
{
	if (slot < 0)
		return;
	/* The value, unchanged, before the key: a publish as any other. */
	smp_store_release(sa_key_of(slot), (unsigned long)ptr);
}

/*
 * An object resized in place: what it requests is now @new_req (never
 * more than it was handed).  Its site's requested bytes move by the
 * difference; allocs, frees and live bytes stay.
 */
void sa_account_resize(const void *ptr, size_t new_req)
{
	struct sa_objval *val;
	struct sa_site *e;
	u32 old, req;
	long slot;

	if (unlikely(ZERO_OR_NULL_PTR(ptr)))
		return;
	slot = sa_obj_find((unsigned long)ptr);
	if (slot < 0) {
		sa_stat_inc(SA_STAT_RESIZED_UNKNOWN);
		return;
	}
	val = &sa_vals[slot];
	e = sa_site_of(val->site);
	old = READ_ONCE(val->bytes_req);
	req = min_t(size_t, new_req, val->bytes_alloc);
	WRITE_ONCE(val->bytes_req, req);
	/* Modulo 2^64: a shrink subtracts. */
	sa_ctr_add(&sa_site_ctrs(e)->bytes_req, (u64)req - old);
	sa_stat_inc(SA_STAT_RESIZED);
}

/*
 * An object allocated inside a hooked function, counted at the call site
 * its event gave, belongs to @call_site: krealloc() moving an object
 * reports the new one with its own return address as the call site, which
 * its kretprobe has replaced by the trampoline's.  Called before the
 * object's owner has it back, so no free of it can run meanwhile.  @via
 * (1-based) is the helper @call_site was found behind by a walk already
 * made, 0 when @call_site is the hooked function's return address.
 */
void sa_account_recharge(const void *ptr, unsigned long call_site,
			 unsigned int via)
{
	struct sa_objval *val;
	struct sa_site *old, *e;
	u32 bytes_alloc, bytes_req;
	long slot;
	s64 mine;

	if (unlikely(ZERO_OR_NULL_PTR(ptr)))
		return;
	slot = sa_obj_find((unsigned long)ptr);
	if (slot < 0)
		return;
	val = &sa_vals[slot];
	old = sa_site_of(val->site);
	if (old->call_site == call_site)
		return;
	if (via) {
		e = sa_site_get_via(call_site, NULL, via);
	} else {
		e = sa_site_get(call_site, NULL);
		/* krealloc() called by a helper (kvrealloc()): its caller. */
		if (e && e->helper)
			e = sa_site_unwrap(e, NULL);
	}
	if (!e)
		return;
	e = sa_ctx_site(e, ptr, NULL);
	if (e == old)
		return;
	bytes_alloc = val->bytes_alloc;
	bytes_req = READ_ONCE(val->bytes_req);
	sa_site_uncount_alloc(old, bytes_alloc, bytes_req);
	mine = sa_site_count_alloc(e, bytes_alloc, bytes_req);
	WRITE_ONCE(val->site, e->off);
	sa_site_note(e, mine, bytes_alloc, bytes_req);
}
