// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: the call-site table.
 *
 * A dense array of sites plus an open-addressing hash of pointers to
 * them.  Sites are added lock-free by the first allocation seen from a
 * call site and never removed while the module is loaded.  This file owns
 * the slow insert, what a site notes of its type and cache, the site a
 * helper's allocation is charged to (sa_unwrap.c finds it), its peak, and
 * how its per-CPU counters are summed, viewed and reset.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/irqflags.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "sa_core.h"
#include "sa_kmem_cache.h"
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

DEFINE_PER_CPU(char *, sa_cpu_ctrs);
/* CPUs with counters (sa_cpu_ctrs set): those online since the load. */
static struct cpumask sa_ctr_cpus;
static atomic_t sa_nr_ctr_cpus = ATOMIC_INIT(0);
static int sa_cpuhp_state;	/* the hotplug state, > 0 once set up */

/* Bytes of one CPU's counters: the table's sites and the vacant one. */
static size_t sa_ctrs_bytes(unsigned long sites)
{
	return (sites + 1) * sizeof(struct sa_site_pcpu);
}

/*
 * The hotplug prepare step of @cpu (process context, on another CPU,
 * before @cpu runs anything), and the load's for a CPU up then: its
 * counters, unless it had them from an earlier time online (they keep
 * its counts).
 */
static int sa_cpu_prepare(unsigned int cpu)
{
	char *ctrs;

	if (per_cpu(sa_cpu_ctrs, cpu))
		return 0;
	/*
	 * Whole pages in the CPU's node, as the other tables (a kmalloc
	 * would round up to a power of two); failing, the load fails, or
	 * the CPU's first bring-up.
	 */
	ctrs = vzalloc_node(sa_ctrs_bytes(sa_site_cap), cpu_to_node(cpu));
	if (!ctrs)
		return -ENOMEM;
	/* Zeroed before any reader sees the array. */
	smp_store_release(&per_cpu(sa_cpu_ctrs, cpu), ctrs);
	cpumask_set_cpu(cpu, &sa_ctr_cpus);
	atomic_inc(&sa_nr_ctr_cpus);
	return 0;
}

/* @cpu's counters for a reader on any CPU, or NULL (never online). */
static struct sa_site_pcpu *sa_cpu_site_ctrs(int cpu, const struct sa_site *e)
{
	/* Pairs with the release in sa_cpu_prepare(): zeroed when seen. */
	char *ctrs = smp_load_acquire(&per_cpu(sa_cpu_ctrs, cpu));

	return ctrs ? (void *)(ctrs + e->ctr) : NULL;
}

/*
 * Fold the live bytes @c holds of @e into the site's: taken whole, then
 * added, so that a fold nested in between (an interrupt or NMI on the
 * same CPU) takes only what came after.  On @c's CPU, or with it offline.
 */
static s64 sa_site_fold_ctr(struct sa_site *e, struct sa_site_pcpu *c)
{
	s64 mine = sa_ctr_xchg(&c->live, 0);

	return atomic64_add_return(mine, &e->live_alloc);
}

/*
 * The hotplug teardown of @cpu's prepare step, after it is dead (its
 * probes are done): its live bytes folded, so that peaks are exact again
 * without it.  Its counts stay.
 */
static int sa_cpu_dead(unsigned int cpu)
{
	unsigned int i, n = sa_sites_seen();

	for (i = 0; i < n; i++) {
		struct sa_site *e = sa_site_at(i);
		struct sa_site_pcpu *c;

		if (sa_site_ready(e)) {
			c = sa_cpu_site_ctrs(cpu, e);
			if (c && sa_ctr_read(&c->live))
				sa_site_fold_ctr(e, c);
		}
		if (!(i % 256))
			cond_resched();
	}
	return 0;
}

/*
 * Each CPU's counters: the prepare step of each CPU that comes up from
 * now on, and here, under the same hotplug lock, the CPUs up now.  Not
 * cpuhp_setup_state(): 5.10 installs a BP_PREPARE_DYN state without
 * calling it for the CPUs already up.
 */
static int sa_alloc_ctrs(unsigned long sites)
{
	int cpu, ret;

	sa_site_vacant.ctr = sites * sizeof(struct sa_site_pcpu);
	sa_site_retired.ctr = sa_site_vacant.ctr;
	cpus_read_lock();
	ret = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_BP_PREPARE_DYN,
						   "slab_account:counters",
						   sa_cpu_prepare, sa_cpu_dead);
	if (ret >= 0) {
		sa_cpuhp_state = ret;
		ret = 0;
		for_each_online_cpu(cpu) {
			ret = sa_cpu_prepare(cpu);
			if (ret)
				break;
		}
	}
	cpus_read_unlock();
	return ret;
}

static void sa_free_ctrs(void)
{
	int cpu;

	if (sa_cpuhp_state > 0)
		cpuhp_remove_state_nocalls(sa_cpuhp_state);
	sa_cpuhp_state = 0;
	for_each_possible_cpu(cpu) {
		vfree(per_cpu(sa_cpu_ctrs, cpu));
		per_cpu(sa_cpu_ctrs, cpu) = NULL;
	}
	cpumask_clear(&sa_ctr_cpus);
	atomic_set(&sa_nr_ctr_cpus, 0);
}

unsigned int sa_ctr_cpus_nr(void)
{
	return atomic_read(&sa_nr_ctr_cpus);
}

size_t sa_ctrs_memory(void)
{
	return sa_ctr_cpus_nr() * sa_ctrs_bytes(sa_site_cap);
}

/*
 * How far a site's peak may be from the most it had live: every CPU with
 * counters but the one that folds may hold up to SA_LIVE_BATCH bytes
 * unfolded, either way (notes on ordering, `live`).
 */
u64 sa_site_peak_bound(void)
{
	return (u64)(max(sa_ctr_cpus_nr(), 1U) - 1) * SA_LIVE_BATCH;
}

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

size_t sa_sites_ctrs_bytes(unsigned long sites)
{
	return sa_ctrs_bytes(sites) * num_online_cpus();
}

int sa_sites_alloc(unsigned long sites, size_t *bytes)
{
	unsigned int hash_bits = sa_sites_hash_bits(sites);
	unsigned long i;
	int ret;

	/* Object values keep a site as its byte offset in 32 bits. */
	BUILD_BUG_ON((u64)SA_MAX_SITES * sizeof(struct sa_site) > U32_MAX);
	/* ... and so its counters' offset in a CPU's array. */
	BUILD_BUG_ON(sizeof(struct sa_site_pcpu) > sizeof(struct sa_site));
	/* Three 64-byte lines a site (docs/format.md, "table memory"). */
	BUILD_BUG_ON(L1_CACHE_BYTES == 64 && sizeof(struct sa_site) > 192);
	/* sa_hash() gives SA_HASH_BITS bits: enough for the largest table. */
	BUILD_BUG_ON(roundup_pow_of_two(SA_MAX_SITES * 2) > BIT_ULL(SA_HASH_BITS));

	sa_site_cap = sites;
	sa_site_hash_mask = BIT(hash_bits) - 1;
	atomic_set(&sa_nr_sites, 0);
	*bytes = sa_sites_bytes(sites);

	sa_sites = sa_zalloc(array_size(sites, sizeof(struct sa_site)));
	sa_site_colds = sa_zalloc(array_size(sites, sizeof(struct sa_site_cold)));
	sa_site_hash = sa_zalloc(array_size(BIT(hash_bits), sizeof(*sa_site_hash)));
	ret = sa_sites && sa_site_colds && sa_site_hash ?
	      sa_alloc_ctrs(sites) : -ENOMEM;
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
	sa_free_ctrs();
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

/* How a cache's name is shown: whitespace and unprintables as '_'. */
static char sa_name_char(char c)
{
	return isspace(c) || !isprint(c) ? '_' : c;
}

/* Does @shown (a name as shown) show the cache name @name? */
static bool sa_name_shows(const char *shown, const char *name)
{
	unsigned int i;

	for (i = 0; i < SA_NAME_LEN - 1 && name[i]; i++)
		if (shown[i] != sa_name_char(name[i]))
			return false;
	return shown[i] == '\0';
}

static void sa_site_set_cache(struct sa_site *e, const struct kmem_cache *s)
{
	char *name = sa_site_cold(e)->name;
	unsigned int i;

	/* A spare entry may have been named for another site already. */
	name[0] = '\0';
	e->fast = e->helper ? SA_FAST_NONE : s;
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
		name[i] = sa_name_char(name[i]);
}

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
				atomic64_set(&e->req_range, SA_REQ_NONE);
				e->first_req = SA_FIRST_NONE;
				/* Zeroed at load, used by no site before. */
				e->ctr = idx * sizeof(struct sa_site_pcpu);
				sa_site_set_cache(e, s);
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
static void sa_site_set_fast(struct sa_site *e)
{
	unsigned long type = READ_ONCE(e->type);
	const struct kmem_cache *fast = SA_FAST_NONE;

	if (e->helper)
		fast = SA_FAST_NONE;	/* every allocation is unwrapped */
	else if (type == SA_TYPE_KMALLOC)
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
	if (s != SA_CACHE_UNKNOWN &&
	    sa_name_shows(sa_site_cold(e)->name, sa_cache_name(s)))
		WRITE_ONCE(e->cache, s);
	else
		set_bit(__ffs(SA_TYPE_MULTI), &e->type);
}

static void sa_site_note_type(struct sa_site *e, const struct kmem_cache *s)
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

/* Widen @e's request extremes to @req. */
static void sa_site_widen(struct sa_site *e, u32 req)
{
	u64 cur = atomic64_read(&e->req_range);

	for (;;) {
		u32 min = lower_32_bits(cur), max = upper_32_bits(cur);
		u64 old, want;

		want = sa_req_range(min_t(u32, min, req), max_t(u32, max, req));
		if (want == cur)
			return;
		old = atomic64_cmpxchg(&e->req_range, cur, want);
		if (old == cur)
			break;
		cur = old;
	}
	/*
	 * From none to one size: the size the hot path takes as known.  Only
	 * where none is set: a first size set since a reset stays.  A writer
	 * held up across a reset may still set one from before it, where
	 * none is set yet (sa_site_sizes() shows the range with it).
	 */
	if (cur == SA_REQ_NONE)
		cmpxchg(&e->first_req, SA_FIRST_NONE, (unsigned long)req);
}

/* A free left this CPU more than SA_LIVE_BATCH bytes below its share. */
noinline void sa_site_fold_free(struct sa_site *e)
{
	sa_site_fold_ctr(e, sa_site_ctrs(e));
}

/*
 * An allocation left this CPU @mine unfolded live bytes at @e: past the
 * room, fold them, raise the peak to the live bytes folded and say how
 * far the next may go (the notes on ordering).  Then, unless @req is the
 * size of the site's first request since the reset, count it by its size
 * and widen the extremes to it.
 */
noinline void sa_site_note_slow(struct sa_site *e, s64 mine,
				size_t bytes_req)
{
	u32 req = bytes_req;	/* at most KMALLOC_MAX_SIZE */
	long room;

	if (mine > READ_ONCE(e->room)) {
		s64 live = sa_site_fold_ctr(e, sa_site_ctrs(e));
		s64 peak = atomic64_read(&e->peak);
		long cur;

		room = 0;		/* a new peak: the next allocation folds */
		do {
			if (live <= peak) {
				room = min_t(s64, peak - live, SA_LIVE_BATCH);
				break;
			}
		} while (!atomic64_try_cmpxchg(&e->peak, &peak, live));
		/*
		 * In the line every allocation reads: written when it must
		 * shrink, or may grow by SA_ROOM_STEP.  A fold or a reset
		 * meanwhile may have made it smaller than this one's: seen
		 * after the write, the room is 0 (never too large).
		 */
		cur = READ_ONCE(e->room);
		if (room < cur || room >= cur + SA_ROOM_STEP) {
			WRITE_ONCE(e->room, room);
			smp_mb();	/* the write before the checks */
			if (atomic64_read(&e->live_alloc) != live ||
			    atomic64_read(&e->peak) != max(peak, live))
				WRITE_ONCE(e->room, 0);
		}
	}
	/*
	 * Here for the room only: a request of the first size (the hot
	 * path's test, again) is not counted by size either.
	 */
	if (req == READ_ONCE(e->first_req))
		return;
	atomic64_inc(&e->sizes[sa_size_bucket(req)]);
	sa_site_widen(e, req);
}

/* An allocation of @req bytes taken back from @e (sa_site_uncount_alloc). */
void sa_site_uncount_size(struct sa_site *e, u32 req)
{
	/*
	 * Counted here or not, the other buckets stay exact: a request the
	 * hot path did not count here was in .first_req's bucket.
	 */
	atomic64_dec(&e->sizes[sa_size_bucket(req)]);
}

/* ---- sums, views, reset ----------------------------------------------- */

/*
 * The per-CPU counters of @e, summed.  A free is counted after its alloc,
 * on whichever CPUs: frees are read first, so that allocs >= frees in the
 * sum; requested bytes before allocated ones (added in the other order);
 * live_alloc before the CPUs' live bytes (a fold takes its CPU's counter
 * before it adds to live_alloc: a fold in between may be missed, never
 * counted twice).
 */
static void sa_site_sum(const struct sa_site *e, struct sa_site_sum *sum)
{
	struct sa_site_pcpu *c;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_cpu(cpu, &sa_ctr_cpus) {
		c = sa_cpu_site_ctrs(cpu, e);
		if (!c)
			continue;
		sum->frees += sa_ctr_read(&c->frees);
		sum->freed_req += sa_ctr_read(&c->freed_req);
	}
	/* Frees before allocs: a free is counted after its allocation. */
	smp_rmb();
	for_each_cpu(cpu, &sa_ctr_cpus) {
		c = sa_cpu_site_ctrs(cpu, e);
		if (c)
			sum->bytes_req += sa_ctr_read(&c->bytes_req);
	}
	sum->live = atomic64_read(&e->live_alloc);
	/*
	 * Requested before allocated bytes: added the other way round; the
	 * folded live bytes before the CPUs' (above).
	 */
	smp_rmb();
	for_each_cpu(cpu, &sa_ctr_cpus) {
		c = sa_cpu_site_ctrs(cpu, e);
		if (!c)
			continue;
		sum->allocs += sa_ctr_read(&c->allocs);
		sum->bytes_alloc += sa_ctr_read(&c->bytes_alloc);
		sum->live += (s64)sa_ctr_read(&c->live);
	}
}

/* @a - @b, or 0 where a reading skewed by concurrent updates gives less. */
static u64 sa_sub0(u64 a, u64 b)
{
	return (s64)(a - b) > 0 ? a - b : 0;
}

void sa_site_view(struct sa_site *e, struct sa_site_view *v)
{
	const struct sa_site_cold *b = sa_site_cold(e);
	struct sa_site_sum sum;

	lockdep_assert_held(&sa_ctl_lock);
	sa_site_sum(e, &sum);
	v->allocs = sa_sub0(sum.allocs, b->base_allocs);
	v->frees = sa_sub0(sum.frees, b->base_frees);
	v->objs = sa_sub0(sum.allocs, sum.frees);
	v->total = sa_sub0(sum.bytes_alloc, b->base_alloc);
	/* What was requested never exceeds what was handed out. */
	v->req = min(sa_sub0(sum.bytes_req, b->base_req), v->total);
	v->live = sum.live > 0 ? sum.live : 0;
	/*
	 * Live bytes and live requested bytes are summed in other passes:
	 * while the site is busy they may disagree by the allocations and
	 * frees in between.  Exact when the site is quiet.
	 */
	v->live_req = min(sa_sub0(sum.bytes_req, sum.freed_req), v->live);
	/* Taken at a reset while allocations went on, it may trail. */
	v->peak = max_t(u64, atomic64_read(&e->peak), v->live);
}

struct sa_site *sa_site_shown(unsigned int idx, unsigned int n, loff_t *pos,
			      struct sa_site_view *v)
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
		if (!sa_view_empty(v)) {
			*pos = (loff_t)idx + 1;
			return e;
		}
	}
	*pos = (loff_t)n + 1;
	return NULL;
}

void sa_sites_retire(unsigned long start, unsigned long end, u16 owner)
{
	unsigned long h;

	lockdep_assert_held(&sa_ctl_lock);
	for (h = 0; h <= sa_site_hash_mask; h++) {
		struct sa_site *e = READ_ONCE(sa_site_hash[h]);

		if (e != &sa_site_vacant && e != &sa_site_retired &&
		    e->call_site >= start && e->call_site < end) {
			e->owner = owner;
			WRITE_ONCE(sa_site_hash[h], &sa_site_retired);
		}
		if (!(h % 4096))
			cond_resched();
	}
}

/* Requests seen since the last reset start again from none. */
static void sa_site_sizes_reset(struct sa_site *e)
{
	unsigned int i;

	/*
	 * The first size before the range: an allocation that finds the
	 * range empty after this sets the first size again.
	 */
	WRITE_ONCE(e->first_req, SA_FIRST_NONE);
	/* Pairs with the full barrier of sa_site_widen()'s cmpxchg64(). */
	smp_wmb();
	atomic64_set(&e->req_range, SA_REQ_NONE);
	for (i = 0; i < SA_SIZE_BUCKETS; i++)
		atomic64_set(&e->sizes[i], 0);
}

void sa_site_sizes(struct sa_site *e, u64 allocs, struct sa_site_sizes *z)
{
	u64 range = atomic64_read(&e->req_range);
	unsigned long req = READ_ONCE(e->first_req);
	u64 counted = 0, left = allocs;
	s64 n[SA_SIZE_BUCKETS];
	unsigned int i, first;
	bool uncounted;

	lockdep_assert_held(&sa_ctl_lock);
	memset(z, 0, sizeof(*z));
	for (i = 0; i < SA_SIZE_BUCKETS; i++) {
		n[i] = atomic64_read(&e->sizes[i]);
		if (n[i] > 0)
			counted += n[i];
	}
	/*
	 * Requests not counted by size are all of the first size.  It may
	 * be one from before the reset (a writer held up across it), whose
	 * requests then neither widen the range nor are counted: the range
	 * holds it when such requests were made, even if still empty.
	 */
	uncounted = req != SA_FIRST_NONE && allocs > counted;
	if (range == SA_REQ_NONE && !uncounted)
		return;		/* no request since the last reset */
	/* Empty (SA_REQ_NONE), min > max: a first size folded in is both. */
	z->min = lower_32_bits(range);
	z->max = upper_32_bits(range);
	if (uncounted) {
		z->min = min_t(u32, z->min, req);
		z->max = max_t(u32, z->max, req);
	}
	/* Not set only while a site's first requests run: any size seen. */
	first = sa_size_bucket(req == SA_FIRST_NONE ? z->min : req);
	/*
	 * The first size's bucket is what the others leave of allocs.  Busy
	 * (or with allocations taken back across a reset) the readings may
	 * be skewed: no count below zero, their sum allocs.
	 */
	for (i = 0; i < SA_SIZE_BUCKETS; i++) {
		if (i == first || n[i] <= 0)
			continue;
		z->count[i] = min_t(u64, n[i], left);
		left -= z->count[i];
	}
	z->count[first] = left;
}

/* Sites whose bases a reset reads on one CPU (sa_sites_reset()). */
struct sa_reset_pass {
	unsigned int n;
	int cpu;
};

/*
 * Add CPU @p->cpu's counters to the bases of the first @p->n sites.  Run
 * on that CPU, interrupts off a few sites at a time: no event is then
 * half counted there (the notes on ordering in sa_core.h); or, for a CPU
 * that is offline, anywhere (its counters no longer move).
 */
static int sa_sites_base_cpu(void *arg)
{
	const struct sa_reset_pass *p = arg;
	/* Never another CPU's counters while it runs probes. */
	bool fold = !cpu_online(p->cpu) || p->cpu == raw_smp_processor_id();
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < p->n; i++) {
		struct sa_site *e = sa_site_at(i);
		struct sa_site_cold *b = sa_site_cold(e);
		struct sa_site_pcpu *c;

		if (!(i % 64)) {
			if (i) {
				local_irq_restore(flags);
				cond_resched();
			}
			local_irq_save(flags);
		}
		if (!sa_site_ready(e))
			continue;
		c = sa_cpu_site_ctrs(p->cpu, e);
		if (!c)
			continue;
		/* Its live bytes folded: on that CPU, or it is offline. */
		if (fold && sa_ctr_read(&c->live))
			sa_site_fold_ctr(e, c);
		b->base_allocs += sa_ctr_read(&c->allocs);
		b->base_frees += sa_ctr_read(&c->frees);
		b->base_alloc += sa_ctr_read(&c->bytes_alloc);
		b->base_req += sa_ctr_read(&c->bytes_req);
	}
	if (i)
		local_irq_restore(flags);
	return 0;
}

void sa_sites_reset(void)
{
	struct sa_reset_pass p = { .n = sa_sites_seen() };
	unsigned int i;
	int cpu;

	lockdep_assert_held(&sa_ctl_lock);
	/*
	 * Readers of the file wait for sa_ctl_lock: they see no base half
	 * summed.  A site made ready during the passes has its bases from
	 * the passes after that, each event counted in all of them or none.
	 */
	for (i = 0; i < p.n; i++) {
		struct sa_site_cold *b = sa_site_cold(sa_site_at(i));

		b->base_allocs = 0;
		b->base_frees = 0;
		b->base_alloc = 0;
		b->base_req = 0;
	}
	/* With the hotplug lock: no CPU gets counters meanwhile. */
	cpus_read_lock();
	for_each_cpu(cpu, &sa_ctr_cpus) {
		p.cpu = cpu;
		if (!cpu_online(cpu) ||
		    smp_call_on_cpu(cpu, sa_sites_base_cpu, &p, false))
			sa_sites_base_cpu(&p);
	}
	cpus_read_unlock();
	for (i = 0; i < p.n; i++) {
		struct sa_site *e = sa_site_at(i);

		if (!sa_site_ready(e))
			continue;
		/*
		 * Every CPU folded in its pass: the live bytes, exact for a
		 * quiet site, as a fold would see them.  Then the room: a
		 * fold that computed one from the old peak sees the new and
		 * makes it 0 (sa_site_note_slow()).
		 */
		atomic64_set(&e->peak,
			     max_t(s64, atomic64_read(&e->live_alloc), 0));
		smp_mb();	/* the peak before the room: see above */
		WRITE_ONCE(e->room, 0);
		sa_site_sizes_reset(e);
		if (!(i % 256))
			cond_resched();
	}
}
