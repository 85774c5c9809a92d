// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: the call sites' counters.  This file owns each CPU's
 * array of the sites' counters and the CPU hotplug steps that make and
 * fold them, the folds of live bytes, the peak and the room, the request
 * extremes, and how the counters are summed, viewed and reset: the slow
 * paths of the inline counting in sa_core.h (whose notes on ordering say
 * who writes what).  The table of sites itself is sa_sites.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "sa_core.h"
#include "sa_sites.h"

DEFINE_PER_CPU(char *, sa_cpu_ctrs);
/* CPUs with counters (sa_cpu_ctrs set): those present since the load. */
static struct cpumask sa_ctr_cpus;
static atomic_t sa_nr_ctr_cpus = ATOMIC_INIT(0);
static int sa_cpuhp_state;	/* the hotplug state, > 0 once set up */
/*
 * The largest batch any site's CPU counted with since the load
 * (sa_live_batch(): SA_LIVE_BATCH, or a larger object): how far one
 * CPU's unfolded live bytes at a site may be from 0, either way, for
 * `peak bound`.  Raised by the slow paths only, and only by an object
 * larger than every one before it: read-mostly.
 */
static atomic_long_t sa_batch_most = ATOMIC_LONG_INIT(SA_LIVE_BATCH);

/* Bytes of one CPU's counters: the table's sites and the vacant one. */
static size_t sa_ctrs_bytes(unsigned long sites)
{
	return (sites + 1) * sizeof(struct sa_site_pcpu);
}

/*
 * The hotplug prepare step of @cpu (process context, on another CPU,
 * before @cpu runs anything), and the load's for a CPU present then:
 * its counters, unless it had them from an earlier time up (they keep
 * its counts).
 */
static int sa_cpu_prepare(unsigned int cpu)
{
	char *ctrs;
	int node;

	if (per_cpu(sa_cpu_ctrs, cpu))
		return 0;
	/*
	 * Whole pages in the CPU's node, as the other tables (a kmalloc
	 * would round up to a power of two); failing, the load fails, or
	 * the CPU's first bring-up.
	 */
	node = cpu_to_node(cpu);
	ctrs = vzalloc_node(sa_ctrs_bytes(sa_site_cap),
			    node_online(node) ? node : NUMA_NO_NODE);
	if (!ctrs)
		return -ENOMEM;
	/* Zeroed before any reader sees the array. */
	smp_store_release(&per_cpu(sa_cpu_ctrs, cpu), ctrs);
	cpumask_set_cpu(cpu, &sa_ctr_cpus);
	atomic_inc(&sa_nr_ctr_cpus);
	return 0;
}

/* @cpu's counters for a reader on any CPU, or NULL (none made). */
static struct sa_site_pcpu *sa_cpu_site_ctrs(int cpu, const struct sa_site *e)
{
	/* Pairs with the release in sa_cpu_prepare(): zeroed when seen. */
	char *ctrs = smp_load_acquire(&per_cpu(sa_cpu_ctrs, cpu));

	return ctrs ? (void *)(ctrs + e->ctr) : NULL;
}

/*
 * Fold the live bytes @c holds of @e into the site's: taken whole, then
 * added, so that a fold nested in between (an interrupt or NMI on the
 * same CPU) takes only what came after.  On @c's CPU, or with it
 * offline.  Returns the site's folded live bytes after it.
 */
static s64 sa_site_fold_ctr(struct sa_site *e, struct sa_site_pcpu *c)
{
	s64 mine = sa_ctr_xchg(&c->live, 0);

	return atomic64_add_return(mine, &e->live_alloc);
}

/* Raise @e's peak to @live; returns the peak after. */
static s64 sa_site_raise_peak(struct sa_site *e, s64 live)
{
	s64 peak = atomic64_read(&e->peak);

	do {
		if (live <= peak)
			return peak;
	} while (!atomic64_try_cmpxchg(&e->peak, &peak, live));
	return live;
}

/*
 * The room after a look at @e's peak: how far a CPU's unfolded bytes may
 * rise before the next look, @peak less @live (live_alloc as it was
 * read), at most @batch.  It is in the line every event reads: written
 * when it must shrink, or may grow to twice what it is or by
 * SA_ROOM_STEP (a room that climbs is written a few times, and reaches
 * what it may be).  A fold that raised live_alloc meanwhile, or a reset
 * that lowered the peak, may have made it smaller than this one's: seen
 * after the write, the room is 0 (never too large).
 */
static void sa_site_set_room(struct sa_site *e, s64 live, s64 peak, long batch)
{
	long room = live < peak ? min_t(s64, peak - live, batch) : 0;
	long cur = READ_ONCE(e->room);

	if (room < cur || room >= cur + SA_ROOM_STEP ||
	    (room > cur && room >= 2 * cur)) {
		WRITE_ONCE(e->room, room);
		smp_mb();	/* the write before the checks */
		if (atomic64_read(&e->live_alloc) > live ||
		    atomic64_read(&e->peak) < peak)
			WRITE_ONCE(e->room, 0);
	}
}

/*
 * @e's live bytes as a reader on any CPU sees them: live_alloc, then
 * every CPU's unfolded bytes, all read again (up to three times more)
 * when a fold moved live_alloc in between.  With one CPU at a time
 * allocating and freeing at the site, that is the live bytes of a
 * moment between the reads, unless that CPU's fold was between its two
 * steps at the second read of live_alloc (its bytes are then missed,
 * never counted twice).  Never below 0.
 */
static s64 sa_site_live_now(const struct sa_site *e)
{
	int cpu, tries = 0;
	s64 folded, live;

	do {
		folded = atomic64_read(&e->live_alloc);
		/* live_alloc before the CPUs' bytes, as sa_site_sum(). */
		smp_rmb();
		live = folded;
		for_each_cpu(cpu, &sa_ctr_cpus) {
			struct sa_site_pcpu *c = sa_cpu_site_ctrs(cpu, e);

			if (c)
				live += (s64)sa_ctr_read(&c->live);
		}
		/* The CPUs' bytes before live_alloc again. */
		smp_rmb();
	} while (atomic64_read(&e->live_alloc) != folded && ++tries < 4);
	return max_t(s64, live, 0);
}

/*
 * The hotplug teardown of @cpu's prepare step, after it is dead (its
 * probes are done): its live bytes folded, the peak raised to what the
 * site then has live (they were live before: a peak the CPU's unfolded
 * bytes hid), the room made 0 (live_alloc moved).  Its counts stay.
 */
static int sa_cpu_dead(unsigned int cpu)
{
	unsigned int i, n = sa_sites_seen();

	for (i = 0; i < n; i++) {
		struct sa_site *e = sa_site_at(i);
		struct sa_site_pcpu *c;

		if (sa_site_ready(e)) {
			c = sa_cpu_site_ctrs(cpu, e);
			if (c && sa_ctr_read(&c->live)) {
				sa_site_raise_peak(e, sa_site_fold_ctr(e, c));
				WRITE_ONCE(e->room, 0);
			}
		}
		if (!(i % 256))
			cond_resched();
	}
	return 0;
}

int sa_ctrs_alloc(unsigned long sites)
{
	int cpu, ret;

	/* Whole cache lines: no counter of a site in another's line. */
	BUILD_BUG_ON(sizeof(struct sa_site_pcpu) != 128);
	/* A site's counters' offset in a CPU's array is 32 bits. */
	BUILD_BUG_ON(sizeof(struct sa_site_pcpu) > sizeof(struct sa_site));

	cpus_read_lock();
	/*
	 * Not cpuhp_setup_state(): 5.10 installs a BP_PREPARE_DYN state
	 * without calling it for the CPUs already up.  The state is
	 * installed first, so that a CPU brought up from now on runs its
	 * prepare step; every CPU present now gets its counters here, under
	 * the same hotplug lock: the CPUs up, and a CPU parked part way up
	 * (CPU_HOTPLUG_STATE_CONTROL), past the prepare steps, which would
	 * not run this state's when it goes on up.
	 */
	ret = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_BP_PREPARE_DYN,
						   "slab_account:counters",
						   sa_cpu_prepare, sa_cpu_dead);
	if (ret >= 0) {
		sa_cpuhp_state = ret;
		ret = 0;
		for_each_present_cpu(cpu) {
			ret = sa_cpu_prepare(cpu);
			if (ret)
				break;
		}
	}
	cpus_read_unlock();
	return ret;
}

void sa_ctrs_free(void)
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

size_t sa_sites_ctrs_bytes(unsigned long sites)
{
	return sa_ctrs_bytes(sites) * num_present_cpus();
}

/*
 * How far a site's peak may be from the most it had live: every CPU with
 * counters but the one that looks may hold up to a batch unfolded,
 * either way, and the largest batch any site used since the load is
 * SA_LIVE_BATCH or the largest object counted past it.
 */
u64 sa_site_peak_bound(void)
{
	return (u64)(max(sa_ctr_cpus_nr(), 1U) - 1) *
	       (unsigned long)atomic_long_read(&sa_batch_most);
}

/* A CPU counted live bytes of a site with @batch: the most, if larger. */
static void sa_note_batch(long batch)
{
	long most = atomic_long_read(&sa_batch_most);

	while (batch > most &&
	       !atomic_long_try_cmpxchg(&sa_batch_most, &most, batch))
		;
}

/* ---- the slow paths of an event ----------------------------------------- */

/*
 * Widen @e's request extremes to @req, each by a cmpxchg loop that only
 * moves it outward.  A request already within them (another CPU widened
 * them since the probe read them) costs two loads.
 */
static void sa_site_widen(struct sa_site *e, u32 req)
{
	u32 cur, old;

	for (cur = READ_ONCE(e->req_min); req < cur; cur = old) {
		old = cmpxchg(&e->req_min, cur, req);
		if (old == cur)
			break;
	}
	for (cur = READ_ONCE(e->req_max); req > cur; cur = old) {
		old = cmpxchg(&e->req_max, cur, req);
		if (old == cur)
			break;
	}
}

/*
 * An allocation left this CPU @mine unfolded live bytes at @e.  Past the
 * room: this CPU's bytes are folded when they pass the batch, and the
 * peak is raised to the site's folded live bytes plus what this CPU
 * still holds (exact when no other CPU holds any: the notes on ordering),
 * then the room set from them.  The probes call it for a request within
 * the site's extremes (a site's growth), sa_site_note_slow() for one
 * outside them.
 */
noinline void sa_site_look(struct sa_site *e, s64 mine, size_t bytes_alloc)
{
	long batch;
	s64 live, peak;

	if (mine <= READ_ONCE(e->room))
		return;
	batch = sa_live_batch(bytes_alloc);
	/*
	 * A room above SA_LIVE_BATCH is only given here: a CPU holds more
	 * unfolded only after such a look.
	 */
	if (batch > SA_LIVE_BATCH)
		sa_note_batch(batch);
	if (mine > batch) {
		live = sa_site_fold_ctr(e, sa_site_ctrs(e));
		mine = 0;
	} else {
		/*
		 * An interrupt or NMI may have folded this CPU's bytes since
		 * @mine was read: read this CPU's bytes again after
		 * live_alloc, so that a fold between the two reads is missed
		 * (its own look at the peak counted it) rather than counted
		 * twice.
		 */
		live = atomic64_read(&e->live_alloc);
		barrier();
		mine = (s64)sa_ctr_read(&sa_site_ctrs(e)->live);
	}
	peak = sa_site_raise_peak(e, live + mine);
	sa_site_set_room(e, live, peak, batch);
}

/*
 * An allocation of a request outside @e's extremes as the probe read
 * them: the look at the peak if past the room, then the extremes
 * widened.
 */
noinline void sa_site_note_slow(struct sa_site *e, s64 mine,
				size_t bytes_alloc, size_t bytes_req)
{
	sa_site_look(e, mine, bytes_alloc);
	/* At most KMALLOC_MAX_SIZE: 32 bits. */
	sa_site_widen(e, bytes_req);
}

/*
 * A free, or an allocation taken back, of an object of @bytes left this
 * CPU @mine unfolded live bytes at @e, below -SA_LIVE_BATCH: folded
 * below the batch of such an object.  No look at the peak: live bytes
 * only went down.
 */
noinline void sa_site_fold_free(struct sa_site *e, s64 mine,
				unsigned long bytes)
{
	long batch = sa_live_batch(bytes);

	/* Below -SA_LIVE_BATCH, a CPU's bytes are only left here. */
	if (batch > SA_LIVE_BATCH)
		sa_note_batch(batch);
	if (mine < -batch)
		sa_site_fold_ctr(e, sa_site_ctrs(e));
}

/* ---- sums, views, sizes, reset -------------------------------------------- */

/* Allocations counted by @c: the sum of its size counts. */
static u64 sa_ctr_allocs(struct sa_site_pcpu *c)
{
	u64 n = 0;
	int i;

	for (i = 0; i < SA_CPU_SIZES; i++)
		n += sa_ctr_read(&c->sizes[i]);
	return n;
}

/* @v, a sum modulo 2^64, or 0 where a skewed reading gives less. */
static u64 sa_pos(u64 v)
{
	return (s64)v > 0 ? v : 0;
}

/*
 * The per-CPU counters of @e, summed.  A free is counted after its alloc,
 * on whichever CPUs: frees are read first, so that allocs >= frees in the
 * sum; requested bytes before allocated ones (added in the other order);
 * live_alloc before the CPUs' live bytes (a fold takes its CPU's counter
 * before it adds to live_alloc: a fold in between may be missed, never
 * counted twice).  An allocation taken back on another CPU than the one
 * that counted it (the notes on ordering) may be read as taken back and
 * not yet counted: the sums are clamped to what an exact reading could
 * give (no sum below 0, frees <= allocs, freed_req <= bytes_req).
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
		sum->allocs += sa_ctr_allocs(c);
		sum->bytes_alloc += sa_ctr_read(&c->bytes_alloc);
		sum->live += (s64)sa_ctr_read(&c->live);
	}
	sum->allocs = sa_pos(sum->allocs);
	sum->bytes_alloc = sa_pos(sum->bytes_alloc);
	sum->bytes_req = sa_pos(sum->bytes_req);
	sum->frees = min(sa_pos(sum->frees), sum->allocs);
	sum->freed_req = min(sa_pos(sum->freed_req), sum->bytes_req);
}

/* @a - @b, or 0 where a reading skewed by concurrent updates gives less. */
static u64 sa_sub0(u64 a, u64 b)
{
	return (s64)(a - b) > 0 ? a - b : 0;
}

/* A site's allocations at the last reset. */
static u64 sa_base_allocs(const struct sa_site_cold *b)
{
	u64 n = 0;
	int i;

	for (i = 0; i < SA_CPU_SIZES; i++)
		n += b->base_sizes[i];
	return n;
}

void sa_site_view(struct sa_site *e, struct sa_site_view *v)
{
	const struct sa_site_cold *b = sa_site_cold(e);
	struct sa_site_sum sum;

	lockdep_assert_held(&sa_ctl_lock);
	sa_site_sum(e, &sum);
	v->allocs = sa_sub0(sum.allocs, sa_base_allocs(b));
	v->frees = sa_sub0(sum.frees, b->base_frees);
	v->objs = sum.allocs - sum.frees;	/* frees <= allocs (above) */
	v->total = sa_sub0(sum.bytes_alloc, b->base_alloc);
	/* What was requested never exceeds what was handed out. */
	v->req = min(sa_sub0(sum.bytes_req, b->base_req), v->total);
	v->live = sum.live > 0 ? sum.live : 0;
	/*
	 * Live bytes and live requested bytes are summed in other passes:
	 * while the site is busy they may disagree by the allocations and
	 * frees in between.  Exact when the site is quiet.
	 */
	v->live_req = min(sum.bytes_req - sum.freed_req, v->live);
	/*
	 * Other CPUs' unfolded bytes may leave it below the live bytes
	 * (within `peak bound`): never shown below them.
	 */
	v->peak = max_t(u64, atomic64_read(&e->peak), v->live);
}

/* The smallest and the largest request of size bucket @i. */
static u32 sa_bucket_lo(unsigned int i)
{
	return i ? (4U << i) + 1 : 1;
}

static u32 sa_bucket_hi(unsigned int i)
{
	return i < SA_SIZE_BUCKETS - 1 ? 8U << i : U32_MAX;
}

void sa_site_sizes(struct sa_site *e, u64 allocs, struct sa_site_sizes *z)
{
	const struct sa_site_cold *b = sa_site_cold(e);
	/* Read apart: each only moves outward between resets. */
	u32 req_min = READ_ONCE(e->req_min);
	u32 req_max = READ_ONCE(e->req_max);
	s64 n[SA_SIZE_BUCKETS] = { 0 };
	unsigned int i, lo = SA_SIZE_BUCKETS, hi = 0;
	struct sa_site_pcpu *c;
	u64 left = allocs;
	s64 large;
	int cpu;

	lockdep_assert_held(&sa_ctl_lock);
	memset(z, 0, sizeof(*z));
	large = atomic64_read(&e->large) - b->base_large;
	for_each_cpu(cpu, &sa_ctr_cpus) {
		c = sa_cpu_site_ctrs(cpu, e);
		if (!c)
			continue;
		for (i = 0; i < SA_CPU_SIZES; i++)
			n[i] += sa_ctr_read(&c->sizes[i]);
	}
	for (i = 0; i < SA_CPU_SIZES; i++)
		n[i] -= b->base_sizes[i];
	/* The last per-CPU count holds the larger requests too. */
	n[SA_SIZE_BUCKETS - 1] = clamp_t(s64, large, 0,
					 max_t(s64, n[SA_CPU_SIZES - 1], 0));
	n[SA_CPU_SIZES - 1] -= n[SA_SIZE_BUCKETS - 1];
	/*
	 * Exact, and adding up to @allocs, when the site is quiet; busy (or
	 * with allocations taken back after an in-place resize), no count
	 * below zero and their sum @allocs, what is left in the largest.
	 */
	for (i = 0; i < SA_SIZE_BUCKETS; i++) {
		if (n[i] <= 0 || !left)
			continue;
		z->count[i] = min_t(u64, n[i], left);
		left -= z->count[i];
		lo = min(lo, i);
		hi = i;
	}
	if (left) {
		z->count[hi] += left;
		lo = min(lo, hi);
	}
	if (!allocs)
		return;		/* no request since the last reset */
	/*
	 * Every request since the reset widened the extremes after the
	 * reset emptied them: they hold them all, and may hold a request
	 * made during the reset on a CPU not yet read.  Within the buckets
	 * that have requests; a busy site's extremes read before its
	 * latest requests widened them (empty, or outside those buckets)
	 * give the buckets' bounds.
	 */
	z->min = max(req_min, sa_bucket_lo(lo));
	z->max = min(req_max, sa_bucket_hi(hi));
	if (z->min > z->max) {
		z->min = sa_bucket_lo(lo);
		z->max = sa_bucket_hi(hi);
	}
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
	unsigned int i, j;

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
		/*
		 * Its live bytes folded: on that CPU, or it is offline.
		 * Then the peak raised to the site's live bytes (the
		 * other CPUs' read as they are: this CPU's bytes no longer
		 * hide a most, nor does a stale look's reading of them),
		 * and the room made 0: a look that took live_alloc before
		 * the fold gave a room from it, and the next allocation
		 * on any CPU looks again.
		 */
		if (fold && sa_ctr_read(&c->live)) {
			sa_site_fold_ctr(e, c);
			sa_site_raise_peak(e, sa_site_live_now(e));
			WRITE_ONCE(e->room, 0);
		}
		for (j = 0; j < SA_CPU_SIZES; j++)
			b->base_sizes[j] += sa_ctr_read(&c->sizes[j]);
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
	 * The request extremes are emptied first: an event counted after
	 * its CPU's pass widens them after this (smp_call_on_cpu() orders
	 * the pass after it), so they hold every request since the reset.
	 * The peak too is set first, to the live bytes as they are, then
	 * the room made 0 (so that the next allocation looks at the new
	 * peak); each CPU's pass raises it after its fold.  An allocation
	 * during the reset raises it by its look as at any time: a most
	 * reached during the passes stays (a peak set after them lost
	 * it), and with one CPU at a time allocating and freeing there,
	 * the peak is the most live since that CPU's pass, exactly.
	 */
	for (i = 0; i < p.n; i++) {
		struct sa_site *e = sa_site_at(i);
		struct sa_site_cold *b = sa_site_cold(e);

		memset(b->base_sizes, 0, sizeof(b->base_sizes));
		b->base_frees = 0;
		b->base_alloc = 0;
		b->base_req = 0;
		b->base_large = 0;
		if (!(i % 256))
			cond_resched();
		if (!sa_site_ready(e))
			continue;
		sa_site_range_empty(e);
		b->base_large = atomic64_read(&e->large);
		atomic64_set(&e->peak, sa_site_live_now(e));
		/*
		 * The peak before the room: a look that computed a room
		 * from the old peak sees the new one and makes it 0
		 * (sa_site_set_room()).
		 */
		smp_mb();
		WRITE_ONCE(e->room, 0);
	}
	smp_mb();	/* the extremes and peaks set before the passes */
	/* With the hotplug lock: no CPU gets counters meanwhile. */
	cpus_read_lock();
	for_each_cpu(cpu, &sa_ctr_cpus) {
		p.cpu = cpu;
		if (!cpu_online(cpu) ||
		    smp_call_on_cpu(cpu, sa_sites_base_cpu, &p, false))
			sa_sites_base_cpu(&p);
	}
	cpus_read_unlock();
}
