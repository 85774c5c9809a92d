/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_account core: the tables' structures, their shared state, and the
 * inline hot path that every probe expands (site lookup, counting, the
 * object table's publish and release).  The slow paths are in
 * sa_sites.c (call-site table), sa_ctrs.c (the sites' counters) and
 * sa_objects.c (object table).
 *
 * Notes on ordering
 * -----------------
 * Probes take no lock and may run in any context, on any CPU, at once
 * (the kprobe of kmalloc_nolock() in NMI context too).  Each runs with
 * preemption off: the kernel turns it off around kprobe handlers and, up
 * to 6.x (PREEMPT_RT too), around tracepoint probes; 7.x calls those under
 * SRCU, preemptible, and they turn it off themselves (sa_tracepoints.c
 * asks the kernel at load).  The global event counters are each updated by a
 * single this_cpu operation; a site's counters through this CPU's array
 * (__this_cpu_read(), which a DEBUG_PREEMPT kernel checks), each by one
 * local64 operation: with preemption off the CPU stays between the
 * read and the updates, and interrupts or NMIs counting meanwhile on it
 * each count whole.  A kretprobe's return
 * handler runs before the hooked function's caller has its result back,
 * so a resize or a recharge of that object races with no free of it.
 * /proc readers, reset, start and stop run in process context under
 * sa_ctl_lock.
 *
 * sa_site_hash[h]	vacant -> entry by cmpxchg() in sa_site_get_slow()
 *			after the entry is complete (the cmpxchg is a full
 *			barrier); entry -> sa_site_retired by retirement
 *			(below), under sa_ctl_lock, with WRITE_ONCE(); never
 *			anything else.  Probes read it with READ_ONCE() and
 *			reach the entry through that pointer (address
 *			dependency); readers of the whole table use
 *			sa_site.ready (smp_store_release / smp_load_acquire).
 *			A vacant slot points to sa_site_vacant (sa_sites.c:
 *			call site 0, .fast SA_FAST_NONE, never written), so
 *			that the fast path needs no NULL test and passes no
 *			allocation there; sa_site_get() tests it by identity.
 * sa_site.type, .cache	bits only added, a cache only replaced by one of
 *			the same name (sa_site_note_type()); .fast is derived
 *			from them and only ever holds a value the site once
 *			had, so a stale read lets pass only allocations that
 *			need no note.  SA_TYPE_CAPTURED is the exception:
 *			set and cleared by capture writes (sa_ctx.c), each
 *			followed by sa_site_set_fast(), which reads the type
 *			again after its store of .fast until it did not
 *			change, so the last store is of the last type; an
 *			allocation that passed on a stale .fast meanwhile is
 *			counted in the site's own row.
 * sa_cpu_ctrs		a CPU's array, zeroed, published with
 *			smp_store_release() by the hotplug prepare step before
 *			the CPU comes up (it runs no probe before), or for a
 *			CPU present at the load by the load, under the hotplug
 *			lock, before any probe is registered (a CPU parked
 *			part way up would not run the prepare step of a state
 *			installed meanwhile); the CPU's own probes read it
 *			with __this_cpu_read(), with preemption off; readers
 *			of other CPUs' counters with smp_load_acquire(),
 *			skipping a NULL one (a CPU never present: nothing
 *			counted).  Freed only at unload, after the probes are
 *			gone.
 * sa_site.ctr		written before the entry is published, never after.
 * sa_site counters	in each CPU's array at .ctr (sa_ctr_t, sa_arch.h:
 *			whole on 32-bit kernels too), written only by that
 *			CPU's probes (a reset or a hotplug teardown folds
 *			.live, on the CPU or with it offline).  They only
 *			grow, but .live (below), .bytes_req, which an
 *			in-place resize moves by its difference (signed,
 *			modulo 2^64), and the counters of an allocation taken
 *			back (below).  An allocation adds one to its request
 *			size's count (the allocations are the sum of those
 *			counts), then bytes_alloc, bytes_req, live, in that
 *			order, before the object is published; a free adds
 *			freed_req then frees, then subtracts live, after
 *			taking the object out.  Every probe runs with
 *			preemption off, so one event's updates are all on one
 *			CPU.  sa_site_sum() reads frees before allocs
 *			(smp_rmb): a free it counts was counted after its
 *			allocation (the object's key, below), which it then
 *			counts too.  bytes_req and bytes_alloc are not
 *			ordered for another CPU (relaxed adds on arm64 and
 *			32-bit ARM): sa_site_view() clamps what a busy
 *			site's skewed reading may give (req <= total,
 *			live_req <= live, no value below zero): exact when
 *			the site is quiet, never impossible.  Reset's bases are read
 *			otherwise (sa_site_cold.base_*).
 * taken back		an allocation reported twice (large kmallocs on
 *			6.10+) or recharged to the caller of krealloc() is
 *			taken back from its first site by the probe that sees
 *			it (sa_site_uncount_alloc()): on that probe's CPU,
 *			which may not be the CPU that counted it (the task
 *			migrated in between), so that CPU's counters of the
 *			site are left below what it counted (modulo 2^64).
 *			The sums stay exact once both updates are done; a
 *			reader that read the counting CPU before the count
 *			and the other after the take-back would see one
 *			allocation too few, possibly fewer allocations than
 *			frees, or a sum below zero.  sa_site_sum() clamps
 *			each sum at zero, frees at allocs and freed_req at
 *			bytes_req: what it returns is a reading an exact sum
 *			could give at some moment of a busy site, and exact
 *			once both updates are done.
 * sa_site.helper	written before the entry is published, never after:
 *			a site in a helper has fast = SA_FAST_NONE.
 * sa_site.owner	set when the site is retired, under sa_ctl_lock, and
 *			read by the files under it: when a module's code goes
 *			(sa_loads.c), each hash slot that points to a site in
 *			it is made to point to sa_site_retired (call site 1,
 *			no allocation's; WRITE_ONCE): lookups pass over it as
 *			over any other site's slot, find no site for that
 *			address, and add a fresh one.  The retired site stays
 *			in sa_sites (a row, its live objects charged to it when
 *			freed); an allocation that read the slot before keeps
 *			counting there, which its code gone makes moot.  Its
 *			child rows are given its owner through its list of
 *			children (below), not by a walk of the table.
 * sa_site_cold.children, .next  (sa_sites.c) a site's child rows are a
 *			list from its .children through each child's .next
 *			(indexes + 1, 0 the end).  A child is put on it in any
 *			context, before its .ready is set: its .next written,
 *			then the head by a cmpxchg loop (a full barrier: the
 *			row is complete before it is on the list); a row is
 *			put on one list once and never taken off, so a walk
 *			that read a head reaches rows that are complete, by
 *			the dependency of each index read (READ_ONCE).  When a
 *			site is retired (under sa_ctl_lock), its .next links
 *			it, under the same lock, into its load's list of
 *			retired sites (whose head the load's record keeps:
 *			records are never reused, a site is retired once),
 *			and retirement walks its children to mark them the
 *			load's: a child put on the list after that walk has
 *			owner 0 and is passed over by the unload verdict,
 *			which walks the same lists.  Such a child is made
 *			only by an allocation in the module's code after its
 *			exit (or init) function returned, code whose text is
 *			then freed: moot.  Indexes are 32 bits on every
 *			kernel (cmpxchg of a u32).
 * sa_site.via		WRITE_ONCE() by allocations unwrapped to the site
 *			(a call instruction calls one helper, so writers
 *			agree but for calls through pointers: the last
 *			wins); read by the file with READ_ONCE().
 * live bytes		a site's live bytes are its live_alloc (atomic64,
 *			shared) plus each CPU's .live counter (signed, in that
 *			CPU's array: what the CPU allocated there less what it
 *			freed, not yet folded).  An allocation adds to .live
 *			before the object is published, a free (or an
 *			allocation taken back) subtracts after it is taken
 *			out.  A fold (sa_site_fold_ctr(), on the CPU with
 *			preemption off, or for a CPU that is offline) takes
 *			.live whole (xchg to 0), then adds it to live_alloc:
 *			a fold nested in between (an interrupt or NMI on the
 *			CPU) takes only what came after, and the sum stays
 *			exact.  A CPU folds when its .live passes the batch
 *			(sa_live_batch() of the object: 4096 bytes, or the
 *			object if larger) after an allocation that passed the
 *			room, or goes below minus the batch after a free;
 *			reset folds every CPU, and a CPU's hotplug teardown
 *			folds it once it is dead.  So no CPU holds more than
 *			a batch unfolded either way, but for the event it is
 *			counting.  A CPU that allocates and frees objects of
 *			one size folds after as many objects either way: once
 *			it freed what it allocated, it holds 0.  Readers read
 *			live_alloc, smp_rmb(), then every .live: exact when
 *			the site is quiet; a fold between the reads may be
 *			missed (its bytes read in neither place), never
 *			counted twice; the view shows a sum below zero as 0.
 * sa_site.peak		atomic64, raised by cmpxchg, never lowered but by a
 *			reset: after an allocation that passed the room, to
 *			live_alloc plus what the allocating CPU then holds
 *			unfolded (sa_site_look()); after a CPU's offline
 *			fold, to live_alloc.  Reset, under sa_ctl_lock, sets
 *			it before the CPUs' passes to the site's live bytes
 *			(live_alloc and every CPU's .live, read again if a
 *			fold moved live_alloc meanwhile), and each CPU's pass
 *			raises it so after folding that CPU: a most reached
 *			during the reset stays.  With every other CPU's .live
 *			at 0, a look's sum is the site's live bytes, and
 *			every allocation that could make a new most passes
 *			the room (below): the peak is then exact.  Else it is
 *			off by what the other CPUs hold unfolded, at most a
 *			batch each, either way (`peak bound`: the largest
 *			batch since the load), but for the events in flight
 *			meanwhile.
 * sa_site.room		how far a CPU's .live may rise before the next look
 *			at the peak: the peak less live_alloc at the last
 *			look, at most the batch.  Read by the hot path (in
 *			the line every allocation reads) with a plain load
 *			folded into its one compare (data_race(): an aligned
 *			long, written whole), by the slow path with
 *			READ_ONCE(); WRITE_ONCE() by
 *			a look when it must shrink, may grow by SA_ROOM_STEP,
 *			or may double, then, after smp_mb(), made 0 if
 *			live_alloc rose or the peak fell meanwhile (a stale
 *			larger room never stays); made 0 by an offline fold
 *			or a reset's pass that moved live_alloc.  Reset sets
 *			the peak, smp_mb(), then 0, before the passes.
 * sa_site.req_min, .req_max  the smallest and largest request (u32
 *			each), in the line every allocation reads.  An
 *			allocation reads each with a plain load (data_race():
 *			an aligned u32, written whole, used in one compare)
 *			and widens each by a cmpxchg loop only to a new
 *			extreme (sa_site_widen()).  Reset empties them
 *			(SA_REQ_MIN_NONE, 0) before it reads any CPU's
 *			counters, and smp_call_on_cpu() orders each CPU's
 *			pass after that: an event counted after its CPU's
 *			pass reads them after the emptying, so they hold
 *			every request since the reset (and perhaps some
 *			events during the reset on CPUs not yet read, which
 *			the file bounds by the size buckets that have
 *			requests, sa_site_sizes()).  The two are read apart,
 *			not as one value: between resets each only moves
 *			outward, so a minimum read at one moment and a
 *			maximum at another bound a range the site had at the
 *			later one.  A request the two pass was within the
 *			extremes then, and needs no widening.
 * sa_site.large	atomic64: the requests larger than SA_CPU_SIZES_MAX,
 *			which the CPUs count with the largest size they keep,
 *			less those taken back; written only on the page
 *			allocator's large kmallocs.  Reset's base of it is
 *			read before the CPUs' passes: a request of the largest
 *			size kept during the reset, on a CPU not yet read, may
 *			be shown in the last column (larger) rather than its
 *			own.
 * sa_site_cold.base_*	written by reset, read by the file, both under
 *			sa_ctl_lock: one row or header never mixes two resets.
 *			Reset reads each CPU's counters on that CPU, in a
 *			worker bound to it with interrupts off
 *			(sa_sites_reset()): no probe is then part way through
 *			an event on that CPU (probes run with preemption off,
 *			and a task runs only where no interrupt is under it),
 *			so the bases count the same events in every counter,
 *			the size counts too, and a site that is quiet after
 *			the reset reads exactly however busy it was during it,
 *			its size columns adding up to its allocations.  The
 *			one exception: an event in NMI context
 *			(kmalloc_nolock(), 7.x) that interrupts the read
 *			itself.
 * sa_bucket.key[j]	0 free, SA_KEY_BUSY claimed, else the object's
 *			address.  Claimed by cmpxchg(0 -> BUSY); the site
 *			counted; the value written; then the key published
 *			with smp_store_release().  Lookups decide a match
 *			with READ_ONCE(key) (after a plain filter load where
 *			a miss is expected) and smp_rmb() before reading the
 *			value.  A free reads the value, then
 *			releases the slot with smp_store_release(key, 0), so
 *			the value is read before the slot can be claimed
 *			again.  A free that finds its object was counted
 *			after the allocation that published it (the key's
 *			release, the lookup's READ_ONCE() with smp_rmb() and
 *			the control dependency of the match before the
 *			free's stores), so a site's frees never exceed its
 *			allocs.
 * sa_bucket.spill	atomic: objects homed here and stored in the next
 *			buckets; raised before such a key is published,
 *			lowered after it is released.
 * sa_objval		besides the publish above, changed in place only
 *			while no free of the object can run, so a free reads
 *			it plainly: .bytes_req by an in-place resize and
 *			.site by a recharge (krealloc's, by the object's
 *			owner), all fields by an allocation that finds its
 *			pointer still in the table (sa_obj_missed(), before
 *			the allocator's caller has the object).
 * sa_objval.born	written with the value, before the key.  The detail
 *			file's scan reads a key, smp_rmb(), the value,
 *			smp_rmb(), the key again: the value belongs to that
 *			key (or to a twin allocated at the same address
 *			meanwhile, whose fields each are an object's).
 * sa_stats (per CPU)	only grow; the header subtracts sa_base, taken by
 *			reset under sa_ctl_lock.
 * sa_bulk_check	(sa_kprobes.c) used under sa_ctl_lock while a hook
 *			whose prototype the build could not check is checked
 *			at load: .checking is set before the kprobe is
 *			registered (which orders it before any handler runs)
 *			and cleared after the check.  .want, .task and .seen
 *			are the checking task's: a handler uses them only
 *			when current is .task in task context, i.e. in that
 *			task's own call, where program order holds; any other
 *			handler compares .task (READ_ONCE) with its own
 *			current, never equal, and counts itself missed.
 * sa_rules[] (sa_ctx.c) a capture rule's kind, range and name are written
 *			under sa_ctl_lock while its .armed is 0, then .armed
 *			set by smp_store_release(); probes read .armed with
 *			smp_load_acquire() and only then the rest.  Before a
 *			rule's fields change (a module's init text freed at
 *			MODULE_STATE_LIVE, its text gone at GOING, the rule
 *			dropped or its slot reused), .armed is cleared and
 *			synchronize_rcu() waits out every probe that may read
 *			it; a site added while a rule was disarmed is captured
 *			by the walk after it is armed again (after another
 *			synchronize_rcu(): the site is then published).
 * sa_stack.ready	(sa_stacks.c) 0 -> 1 once, by cmpxchg() after the
 *			stack's hash slot was set (the entry complete), by the
 *			CPU that stored it or one that found it first; that
 *			CPU alone counts it in the published stacks (an
 *			atomic_t the header reads, not a walk of the table).
 *			The stacks file reads .ready with smp_load_acquire().
 * sa_stack entry	(sa_stacks.c) its hash, frames and .first (the task
 *			context of the allocation storing it) written by the
 *			CPU that reserved the entry, before the cmpxchg() of
 *			the hash slot that publishes it (a full barrier),
 *			never after: a CPU that finds it through the slot (an
 *			address dependency) and the file (.ready's acquire)
 *			see it whole, .first.cgroup whole on 32-bit kernels
 *			too.  An entry kept as a CPU's spare was never
 *			published; it is filled again, all of it, for the
 *			stack it is then used for.
 *
 * On a 32-bit kernel every 64-bit value another CPU reads is read whole:
 * the per-CPU counters are atomic64 there (sa_arch.h), the shared ones
 * atomic64 everywhere, the clock from 64-bit jiffies.
 */
#ifndef SLAB_ACCOUNT_CORE_H
#define SLAB_ACCOUNT_CORE_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/types.h>
#include <linux/vmalloc.h>

#include "sa_arch.h"

#define SA_FORMAT_VERSION	"1.6"
#define SA_NAME_LEN		24	/* a cache's name as the row shows it */
#define SA_PROBE_BUCKETS	4	/* buckets an object may spill into */
#define SA_KEY_BUSY		1UL	/* slot claimed, key not yet published */
#define SA_MAX_OBJECTS		BIT(26)
#define SA_MAX_SITES		BIT(20)
/* Request sizes <= 8, <= 16, ... <= 8192, > 8192 bytes. */
#define SA_SIZE_BUCKETS		12

/* For cache allocations when the kernel does not say which cache. */
#define SA_CACHE_UNKNOWN	((const struct kmem_cache *)1UL)
/* No allocation has this cache argument: sa_site.fast of a mixed site. */
#define SA_FAST_NONE		((const struct kmem_cache *)2UL)

enum sa_site_type {
	SA_TYPE_KMALLOC	= BIT(0),
	SA_TYPE_CACHE	= BIT(1),
	SA_TYPE_MULTI	= BIT(2),	/* several caches */
	/*
	 * Under capture (sa_ctx.c): its allocations take the slow path,
	 * which counts them in the child row of their stack.  Set and
	 * cleared under sa_ctl_lock, or set before the site is published.
	 */
	SA_TYPE_CAPTURED = BIT(3),
};

/*
 * Request sizes counted in a CPU's array: <= 8, <= 16, ... <= 8192.  The
 * last of them counts the larger requests too; the site's .large says how
 * many of its requests were larger (sa_site_sizes()).
 */
#define SA_CPU_SIZES		(SA_SIZE_BUCKETS - 1)
#define SA_CPU_SIZES_MAX	8192

/*
 * A site's counters, per CPU, summed when the file is read: 16 counters,
 * 128 bytes, two whole cache lines of 64 bytes (the arrays are whole
 * pages).  Allocations are the sum of the size counts (each allocation
 * adds one to the count of its request's size, and nothing else counts
 * them), live objects allocations - frees, live requested bytes
 * bytes_req - freed_req, live bytes the site's live_alloc + live (the
 * notes on ordering).  A free writes only the first line.  Each CPU that
 * may run probes has an array of them, one per site of the table and one
 * for the vacant and retired sites (sa_sites.c): per-CPU memory follows
 * the CPUs that are present, not the CPUs the firmware says may come.
 */
struct sa_site_pcpu {
	sa_ctr_t bytes_alloc;
	sa_ctr_t bytes_req;	/* moved by in-place resizes too */
	sa_ctr_t live;		/* live bytes not yet folded: signed */
	sa_ctr_t frees;
	sa_ctr_t freed_req;	/* requested bytes of the frees */
	/* Allocations by request size (sa_site_count_size()). */
	sa_ctr_t sizes[SA_CPU_SIZES];
};

/* Their sums. */
struct sa_site_sum {
	u64 allocs, frees, bytes_alloc, bytes_req, freed_req;
	s64 live;	/* live_alloc and every CPU's live */
};

/*
 * The most live bytes a CPU holds at a site without folding them into
 * the site's live_alloc, either way, after an event of an object of b
 * bytes: SA_LIVE_BATCH, or the object when it is larger
 * (sa_live_batch()).  4096: a fold per 64 kmalloc(64)s that one CPU
 * allocates and another frees, where every event wrote the site's line;
 * one object when larger: an alloc+free pair of 8 KiB objects on one CPU
 * folds nothing.  A larger room is written only a step larger or twice
 * as large (the room's line is read by every event).
 */
#define SA_LIVE_BATCH		4096
#define SA_ROOM_STEP		1024

static __always_inline long sa_live_batch(unsigned long bytes_alloc)
{
	return max_t(long, SA_LIVE_BATCH, bytes_alloc);
}

/*
 * A site's first cache line holds what every event at it reads (the key,
 * the kind of allocation the fast path accepts, its per-CPU counters'
 * offset, the request extremes and the room, which a fold writes when it
 * changes, an allocation with a new extreme when it widens them); the
 * next what folds write (the live bytes folded, the peak) and the count
 * of requests larger than SA_CPU_SIZES_MAX (two 64-byte lines in all).
 */
struct sa_site {
	unsigned long call_site;
	/*
	 * The cache argument of allocations the fast path counts without a
	 * look at type and cache: NULL for a kmalloc-only site, the cache of
	 * a single-cache site, SA_FAST_NONE for a mixed or multi-cache one
	 * and for a site in an allocation helper.
	 */
	const struct kmem_cache *fast;
	const struct kmem_cache *cache;	/* first cache seen, compared only */
	unsigned long type;		/* enum sa_site_type bits */
	/*
	 * Requests since the last reset: the smallest and the largest
	 * (SA_REQ_MIN_NONE and 0 when none), widened by an allocation
	 * with a new extreme.
	 */
	u32 req_min;
	u32 req_max;
	long room;			/* of .live before the next fold */
	u32 ctr;			/* its counters' offset in a CPU's array */
	u32 off;			/* its byte offset in sa_sites */
	int ready;			/* published in the hash */
	/*
	 * 1 + the allocation helper (sa_unwrap.c) the site is in, set before
	 * it is published: its allocations go to the helper's caller.
	 */
	u8 helper;
	/* 1 + the helper whose caller this site is, once seen unwrapped. */
	u8 via;
	/* Retired (its code gone): 1 + the module load it was of, or 0. */
	u16 owner;

	atomic64_t live_alloc ____cacheline_aligned; /* folded from CPUs */
	atomic64_t peak;		/* of the live bytes, since the reset */
	/* Requests larger than SA_CPU_SIZES_MAX, less those taken back. */
	atomic64_t large;
};

/* What only the slow paths and the file read of a site: not in its lines. */
struct sa_site_cold {
	char name[SA_NAME_LEN];		/* the cache's name, made printable */
	u32 sym;			/* sa_names.c: its caller's name */
	/* Its name is a kretprobe's trampoline: the caller is hidden. */
	u8 hidden;
	/* Where the counters stood at the last reset (sa_ctl_lock). */
	u64 base_frees;
	u64 base_alloc;
	u64 base_req;
	u64 base_sizes[SA_CPU_SIZES];
	u64 base_large;
	/*
	 * The read of /proc/slab_account whose header counted this site
	 * (sa_proc.c, sa_ctl_lock): that read shows its row even when the
	 * site has become empty since, so that a whole file never has fewer
	 * rows than its header's number of callers.
	 */
	u32 read_gen;
	/*
	 * The lists the unload verdict walks (the notes on ordering,
	 * "sa_site_cold.children"), each link an index + 1 (0: none): the
	 * first of this site's child rows, and the next row of the list
	 * this one is on: its parent's children for a child row, its
	 * load's retired sites for a site of the hash.
	 */
	u32 children;
	u32 next;
};

/* What the file shows of a site (sa_site_view()). */
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
	u32 born;		/* sa_clock() when it was allocated */
};

/* Global event counters, per CPU, summed at read time. */
enum sa_stat {
	SA_STAT_FAILED,		/* allocation returned NULL */
	SA_STAT_UNKNOWN,	/* free of a pointer not in the table */
	SA_STAT_MISSED,		/* allocation of a pointer still in the table */
	SA_STAT_DROPPED_OBJS,	/* object table full */
	SA_STAT_DROPPED_SITES,	/* call-site table full */
	SA_STAT_RESIZED,	/* objects resized in place (krealloc) */
	SA_STAT_RESIZED_UNKNOWN, /* ... that the table did not hold */
	SA_STAT_TWICE,		/* allocations reported twice */
	SA_STAT_UNWRAP_FAILED,	/* helper's caller not found on the stack */
	SA_STAT_CTX_DROPPED,	/* no room for a context row: the parent's */
	SA_STAT_STACKS_DROPPED,	/* no room for a stack: the parent's row */
	SA_STAT_STACKS_UNSEEN,	/* the stack did not show the call site */
	SA_NR_STATS
};

struct sa_stats {
	sa_count_t n[SA_NR_STATS];
};

DECLARE_PER_CPU(struct sa_stats, sa_stats);

/* Count one event of @stat on this CPU. */
#define sa_stat_inc(stat)	sa_count_inc(sa_stats.n[stat])

/* Their sums. */
struct sa_stats_sum {
	u64 n[SA_NR_STATS];
};

/* The call-site table (sa_sites.c). */
extern struct sa_site *sa_sites;
extern struct sa_site_cold *sa_site_colds;
/* Open addressing; a vacant slot points to sa_site_vacant (notes above). */
extern struct sa_site **sa_site_hash;
extern unsigned int sa_site_cap;
extern unsigned long sa_site_hash_mask;

/* The object table (sa_objects.c). */
extern struct sa_bucket *sa_buckets;
extern struct sa_objval *sa_vals;
extern unsigned long sa_bucket_mask;
extern unsigned long sa_vals_stride;	/* bytes of a bucket's values */

/*
 * The site counters of each CPU present since the load: an array in
 * memory of that CPU's node, made by the load or by the CPU hotplug's
 * prepare step (sa_ctrs.c) before the CPU runs anything, kept when it
 * goes offline (its counts stay in the sums); NULL for a CPU never
 * present.
 */
DECLARE_PER_CPU(char *, sa_cpu_ctrs);

/* Control (sa_main.c): readers, reset, start and stop hold it. */
extern struct mutex sa_ctl_lock;

/* Zeroed tables; no allocation-failure splat: the caller says why. */
static inline void *sa_zalloc(size_t size)
{
	return __vmalloc(size, GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN |
			 __GFP_RETRY_MAYFAIL);
}

/*
 * The module's clock: 64-bit jiffies in units of 2^SA_CLOCK_SHIFT, at
 * most a quarter of a second, in 32 bits (no wrap in 17 years: ages are
 * differences modulo 2^32).  Shown rounded to the second.
 */
#define SA_CLOCK_SHIFT	ilog2(HZ / 4)
extern u64 sa_epoch;			/* 64-bit jiffies at load */

static __always_inline u32 sa_clock(void)
{
	return sa_jiffies() >> SA_CLOCK_SHIFT;
}

/* @t ticks of the clock in jiffies. */
static inline u64 sa_clock_jiffies(u32 t)
{
	return (u64)t << SA_CLOCK_SHIFT;
}

/*
 * A byte of a name the file shows (a cache's, a task's) as one token of
 * its line holds it: each byte outside '!'..'~' (0x21..0x7e: space,
 * control bytes and anything above ASCII, which the kernel's isprint()
 * passes as Latin-1) as '_', whatever bytes the name was given.
 */
static inline char sa_token_char(char c)
{
	unsigned char b = c;

	return b < 0x21 || b > 0x7e ? '_' : c;
}

/* The bucket of a request of @req bytes (> 0): <= 8, <= 16, ..., > 8192. */
static inline unsigned int sa_size_bucket(u32 req)
{
	return min_t(unsigned int, fls((req - 1) >> 3), SA_SIZE_BUCKETS - 1);
}

/* ---- call sites ------------------------------------------------------ */

/*
 * The smallest request of a site with none: above every request (at most
 * KMALLOC_MAX_SIZE), with bit 31 clear.  Older riscv64 kernels' 32-bit
 * cmpxchg compares the expected value, zero-extended, with the word lr.w
 * loads, sign-extended: with bit 31 set it never matches, and the
 * cmpxchg returns the expected value without storing (a later kernel fix
 * casts it through int).
 */
#define SA_REQ_MIN_NONE		((u32)S32_MAX)

/* Empty @e's request extremes: no request since (min > max). */
static inline void sa_site_range_empty(struct sa_site *e)
{
	WRITE_ONCE(e->req_min, SA_REQ_MIN_NONE);
	WRITE_ONCE(e->req_max, 0);
}

/* The site at byte offset @off: object values keep offsets, not indexes. */
static __always_inline struct sa_site *sa_site_of(u32 off)
{
	return (void *)((char *)sa_sites + off);
}

/*
 * The entry at @call_site's home slot in the hash: its own, another's, or
 * (a vacant slot) one of call site 0 and SA_FAST_NONE that no allocation
 * passes, so that the fast path makes no NULL test.  Fields are read
 * through the pointer: an address dependency.
 */
static __always_inline struct sa_site *sa_site_home(unsigned long call_site)
{
	return READ_ONCE(sa_site_hash[sa_hash(call_site, sa_site_hash_mask)]);
}

/*
 * This CPU's counters of @e.  Probes run with preemption off: the CPU
 * stays, and every update through the pointer is one local64 operation.
 */
static __always_inline struct sa_site_pcpu *sa_site_ctrs(const struct sa_site *e)
{
	return (void *)(__this_cpu_read(sa_cpu_ctrs) + e->ctr);
}

void sa_site_look(struct sa_site *e, s64 mine, size_t bytes_alloc);
void sa_site_note_slow(struct sa_site *e, s64 mine,
		       size_t bytes_alloc, size_t bytes_req);
void sa_site_fold_free(struct sa_site *e, s64 mine, unsigned long bytes);

/*
 * This CPU's count of the requests of @req bytes at @e: up to
 * SA_CPU_SIZES_MAX the size's own counter, larger ones the last, and the
 * site's count of them (rare: the page allocator's large kmallocs).
 */
static __always_inline void sa_site_count_size(struct sa_site *e,
					       struct sa_site_pcpu *c,
					       u32 req, int n)
{
	/*
	 * sa_size_bucket() by one bit scan: (req - 1) >> 3 is 0 for the
	 * first bucket, and its last bit set is the bucket after it; one
	 * bit lower, with bit 0 set, the same for each, and never 0.  A
	 * request of 0 (never made) wraps, counted with the large ones.
	 */
	unsigned long i = __fls(((req - 1) >> 2) | 1);

	if (likely(i < SA_CPU_SIZES)) {
		sa_ctr_add(&c->sizes[i], n);
		return;
	}
	sa_ctr_add(&c->sizes[SA_CPU_SIZES - 1], n);
	atomic64_add(n, &e->large);
}

/*
 * Count an allocation at @e; returns this CPU's unfolded live bytes of @e
 * after it (sa_site_note() compares them with the room).  Its size's
 * count is its count: allocations are the sum of them.
 */
static __always_inline s64 sa_site_count_alloc(struct sa_site *e,
					       size_t bytes_alloc,
					       size_t bytes_req)
{
	struct sa_site_pcpu *c = sa_site_ctrs(e);

	sa_site_count_size(e, c, bytes_req, 1);
	sa_ctr_add(&c->bytes_alloc, bytes_alloc);
	sa_ctr_add(&c->bytes_req, bytes_req);
	/* An add and a read back: no barrier, where an add_return has one. */
	sa_ctr_add(&c->live, bytes_alloc);
	return sa_ctr_read(&c->live);
}

/*
 * After an allocation of @req bytes left this CPU @mine unfolded bytes at
 * @e: past the room, a look at the peak (and a fold past the batch); a
 * request outside the site's extremes widens them.  When does not matter,
 * so callers do it last (a tail call).  @req is compared as the probe
 * received it; both tests read only the site's first line.  A site that
 * grows (past the room, within the extremes) calls the look alone.
 */
static __always_inline void sa_site_note(struct sa_site *e, s64 mine,
					 size_t bytes_alloc, size_t req)
{
	/*
	 * Plain loads, each used once (on x86 folded into the compare).
	 * The extremes are read apart (the notes on ordering).
	 */
	if (unlikely((u32)req < data_race(e->req_min) ||
		     /* Read apart from the minimum, as above. */
		     (u32)req > data_race(e->req_max)))
		goto slow;
	/* An aligned long, written whole: a plain load, as above. */
	if (unlikely(mine > data_race(e->room)))
		sa_site_look(e, mine, bytes_alloc);
	return;
slow:
	sa_site_note_slow(e, mine, bytes_alloc, req);
}

/* Subtract @bytes from this CPU's unfolded live bytes of @e. */
static __always_inline void sa_site_live_sub(struct sa_site *e,
					     struct sa_site_pcpu *c,
					     unsigned long bytes)
{
	s64 mine;

	sa_ctr_sub(&c->live, bytes);
	mine = sa_ctr_read(&c->live);
	/* sa_site_fold_free() folds below -sa_live_batch(@bytes). */
	if (unlikely(mine < -SA_LIVE_BATCH))
		sa_site_fold_free(e, mine, bytes);
}

/*
 * Take back an allocation counted at @e that was reported twice, or that
 * a recharge moves: on this CPU, whichever counted it (the notes on
 * ordering, "taken back").
 */
static __always_inline void sa_site_uncount_alloc(struct sa_site *e,
						  u32 bytes_alloc,
						  u32 bytes_req)
{
	struct sa_site_pcpu *c = sa_site_ctrs(e);

	sa_ctr_sub(&c->bytes_req, bytes_req);
	sa_ctr_sub(&c->bytes_alloc, bytes_alloc);
	sa_site_count_size(e, c, bytes_req, -1);
	sa_site_live_sub(e, c, bytes_alloc);
}

/* Count the free of an object of @e (after it left the table). */
static __always_inline void sa_site_count_free(struct sa_site *e,
					       unsigned long bytes_alloc,
					       unsigned long bytes_req)
{
	struct sa_site_pcpu *c = sa_site_ctrs(e);

	sa_ctr_add(&c->freed_req, bytes_req);
	sa_ctr_inc(&c->frees);
	sa_site_live_sub(e, c, bytes_alloc);
}

/* ---- objects ----------------------------------------------------------- */

/*
 * An object lives in its home bucket (by hash of the pointer) or, when
 * that is full, in one of the SA_PROBE_BUCKETS - 1 buckets after it; the
 * home bucket's spill counts those, so that a lookup in the common case
 * reads one cache line.
 */

/* Index of @key in @b, or SA_BUCKET_KEYS. */
static __always_inline unsigned int sa_bucket_find(struct sa_bucket *b,
						   unsigned long key)
{
	unsigned int j;

	/* Unrolled: the whole bucket is read for every allocation. */
#pragma GCC unroll 16
	for (j = 0; j < SA_BUCKET_KEYS; j++) {
		/*
		 * A plain load that the compiler may fold into the compare
		 * filters; the match is decided by a marked load, which the
		 * smp_rmb() orders before the value is read (the value was
		 * written before the key was published).
		 */
		if (data_race(b->key[j]) == key && READ_ONCE(b->key[j]) == key) {
			/* Pairs with the release that published the key. */
			smp_rmb();
			break;
		}
	}
	return j;
}

/*
 * Index of @key in @b from key @first on, or SA_BUCKET_KEYS, where @key is
 * expected: each key read once, by a marked load, which decides.
 */
static __always_inline unsigned long sa_bucket_find_hit(struct sa_bucket *b,
							unsigned long key,
							unsigned long first)
{
	unsigned long j;

#pragma GCC unroll 16
	for (j = first; j < SA_BUCKET_KEYS; j++) {
		if (READ_ONCE(b->key[j]) == key) {
			/* Pairs with the release that published the key. */
			smp_rmb();
			break;
		}
	}
	return j;
}

/*
 * The value of key @j of bucket @h: the same as &sa_vals[h * KEYS + j].
 * The bucket's stride is a variable so that it costs one multiplication,
 * not the chain of shifts and adds a constant would be turned into.
 */
static __always_inline struct sa_objval *sa_val_at(unsigned long h,
						   unsigned long j)
{
	struct sa_objval *vals = (void *)((char *)sa_vals +
					  h * sa_vals_stride);

	return vals + j;
}

/*
 * Publish a claimed slot: count the allocation at @e, fill the value,
 * then let the key be seen.  Counted before the key is seen, so before
 * any free of the object; the value is written before the key.  Returns
 * this CPU's unfolded live bytes of @e for sa_site_note().
 */
static __always_inline s64 sa_obj_publish(unsigned long *keyp,
					  struct sa_objval *val,
					  unsigned long key,
					  struct sa_site *e,
					  size_t bytes_alloc, size_t bytes_req)
{
	s64 live = sa_site_count_alloc(e, bytes_alloc, bytes_req);

	val->site = e->off;
	val->bytes_alloc = bytes_alloc;
	val->bytes_req = bytes_req;
	val->born = sa_clock();
	/* The value before the key (sa_bucket_find()'s smp_rmb()). */
	smp_store_release(keyp, key);
	return live;
}

/*
 * Take a found object out of the table and charge its free to its site:
 * the value is read before the slot can be claimed again.
 */
static __always_inline void sa_obj_release(unsigned long *keyp,
					   const struct sa_objval *val)
{
	unsigned long site = val->site;
	unsigned long bytes_alloc = val->bytes_alloc;
	unsigned long bytes_req = val->bytes_req;

	/* The value is read before the slot is free to be claimed. */
	smp_store_release(keyp, 0);
	sa_site_count_free(sa_site_of(site), bytes_alloc, bytes_req);
}

/*
 * The slow paths (sa_objects.c).  Their first argument is not used: the
 * others then are where the probes received theirs (a probe's own first
 * is its data pointer), and the tail call to them moves no register.
 */
void sa_account_alloc_slow(unsigned long unused, unsigned long call_site,
			   const void *ptr, size_t bytes_req,
			   size_t bytes_alloc, const struct kmem_cache *s);
void sa_account_free_slow(unsigned long unused, unsigned long call_site,
			  const void *ptr);
/*
 * A free that completes later (kfree_rcu() into a sheaf): the object
 * leaves the table now, held (its slot, or -1); then it is freed, or it
 * goes back.
 */
long sa_account_take(const void *ptr);
void sa_account_taken_free(const void *ptr, long slot);
void sa_account_taken_back(const void *ptr, long slot);
/* An object resized in place (krealloc): its requested bytes change. */
void sa_account_resize(const void *ptr, size_t new_req);
/* An object counted at the wrong call site goes to @call_site. */
void sa_account_recharge(const void *ptr, unsigned long call_site,
			 unsigned int via);

/*
 * An allocation.  The common case, done here: a known site of the same
 * kind, the pointer not in the table, nothing spilled from its home
 * bucket, a free slot there.  Few enough values live at once that the
 * probe saves no register (the code is shaped for that: check the
 * disassembly after a change); the slow paths are calls, tail calls
 * but in a tracepoint probe that must turn preemption back on after.  Everything else
 * goes to the slow path before any change.  @s is NULL for kmalloc, the
 * cache or SA_CACHE_UNKNOWN.
 */
static __always_inline void sa_account_alloc(unsigned long call_site,
					     const void *ptr, size_t bytes_req,
					     size_t bytes_alloc,
					     const struct kmem_cache *s)
{
	unsigned long key = (unsigned long)ptr;
	struct sa_bucket *home;
	struct sa_objval *val;
	unsigned long *keyp;
	struct sa_site *e;
	unsigned long h;
	s64 mine;

	if (unlikely(ZERO_OR_NULL_PTR(ptr)))
		goto slow;
	e = sa_site_home(call_site);
	if (unlikely(e->call_site != call_site))
		goto slow;
	/*
	 * .fast by a plain load the compiler folds into the compare: used
	 * once, any value it held lets pass only what needs no note.
	 */
	if (unlikely(data_race(e->fast) != s))
		goto slow;
	h = sa_hash(key, sa_bucket_mask);
	home = &sa_buckets[h];
	if (unlikely(sa_bucket_find(home, key) < SA_BUCKET_KEYS) ||
	    unlikely(atomic_long_read(&home->spill)))
		goto slow_known;
	/* The first free slot, by a pointer: home and index die here. */
	for (keyp = home->key; READ_ONCE(*keyp); keyp++)
		if (unlikely(keyp == &home->key[SA_BUCKET_KEYS - 1]))
			goto slow_known;
	val = sa_val_at(h, keyp - home->key);
	if (unlikely(cmpxchg(keyp, 0, SA_KEY_BUSY)))
		goto slow_known;
	/* What was handed out is at most KMALLOC_MAX_SIZE: 32 bits. */
	mine = sa_obj_publish(keyp, val, key, e, bytes_alloc, bytes_req);
	sa_site_note(e, mine, bytes_alloc, bytes_req);
	return;
slow:
	sa_account_alloc_slow(0, call_site, ptr, bytes_req, bytes_alloc, s);
	return;
slow_known:
	/*
	 * The same call site, from the entry: not kept in a register past
	 * the site's test (a marked load, so that the compiler does not
	 * put the argument back), the probe saves none.
	 */
	sa_account_alloc_slow(0, READ_ONCE(e->call_site), ptr, bytes_req,
			      bytes_alloc, s);
}

/* A free: the object in its home bucket here, anything else slow. */
static __always_inline void sa_account_free(unsigned long call_site,
					    const void *ptr)
{
	unsigned long key = (unsigned long)ptr;
	struct sa_bucket *home;
	unsigned long h, j;

	/* kfree(NULL): 0 and SA_KEY_BUSY would match free or busy slots. */
	if (unlikely(ZERO_OR_NULL_PTR(ptr)))
		return;
	h = sa_hash(key, sa_bucket_mask);
	home = &sa_buckets[h];
	/*
	 * Slot 0 on its own path, the common case: its key's and value's
	 * addresses need no index.
	 */
	if (likely(READ_ONCE(home->key[0]) == key)) {
		/* Pairs with the release that published the key. */
		smp_rmb();
		sa_obj_release(&home->key[0], sa_val_at(h, 0));
		return;
	}
	j = sa_bucket_find_hit(home, key, 1);
	if (unlikely(j == SA_BUCKET_KEYS)) {
		sa_account_free_slow(0, call_site, ptr);
		return;
	}
	sa_obj_release(&home->key[j], sa_val_at(h, j));
}

#endif /* SLAB_ACCOUNT_CORE_H */
