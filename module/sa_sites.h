/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call-site table's interface beyond the inline hot path of
 * sa_core.h: its slow paths and its sizing (sa_sites.c), and how the
 * files and reset see a site's counters (sa_ctrs.c).
 */
#ifndef SLAB_ACCOUNT_SITES_H
#define SLAB_ACCOUNT_SITES_H

#include <linux/seq_file.h>
#include "sa_core.h"

/*
 * Tables for @sites sites; their bytes in *@bytes, but for the per-CPU
 * counters, which each CPU online gets now and each later one when it
 * comes up (CPU hotplug).  0, -ENOMEM, or the hotplug's error.
 */
int sa_sites_alloc(unsigned long sites, size_t *bytes);
/* The bytes those tables take (without the counters). */
size_t sa_sites_bytes(unsigned long sites);
/* The bytes of the counters of @sites sites for the CPUs present now. */
size_t sa_sites_ctrs_bytes(unsigned long sites);
void sa_sites_free(void);

/*
 * sa_ctrs.c: each present CPU's counters, made now under the hotplug
 * lock, and each later CPU's by its hotplug prepare step; and freed.
 */
int sa_ctrs_alloc(unsigned long sites);
void sa_ctrs_free(void);

/* CPUs that have counters (present since the load), and their bytes. */
unsigned int sa_ctr_cpus_nr(void);
size_t sa_ctrs_memory(void);
/* At most how far a site's peak is from the most it had live (bytes). */
u64 sa_site_peak_bound(void);

/*
 * Slow paths of an allocation (any context): the site of @call_site,
 * added if new and its type noted; NULL when the table is full.
 */
struct sa_site *sa_site_get(unsigned long call_site,
			    const struct kmem_cache *s);

/*
 * The site of @caller, found by a walk out of helper @via (1-based): it
 * then says it was unwrapped.  NULL when the table is full.
 */
struct sa_site *sa_site_get_via(unsigned long caller,
				const struct kmem_cache *s, unsigned int via);

/*
 * Slow path of an allocation at @e, a site in an allocation helper: the
 * site of the helper's caller (added if new), or @e when the stack does
 * not show it (counted); NULL when the table is full.
 */
struct sa_site *sa_site_unwrap(struct sa_site *e, const struct kmem_cache *s);

/*
 * The kind @s says (NULL kmalloc, else its cache) noted at @e, and the
 * fast path's key made again; sa_site_set_fast() after a change of
 * SA_TYPE_CAPTURED (sa_core.h, the notes on ordering).
 */
void sa_site_note_type(struct sa_site *e, const struct kmem_cache *s);
void sa_site_set_fast(struct sa_site *e);

/*
 * Any context: an entry for a child row of @parent (sa_ctx.c), filled as
 * its parent's but for its counters, not yet published; NULL when the
 * table is full.  Published once it is in the child table (put on its
 * parent's list of children first), or given back as this CPU's spare
 * entry.
 */
struct sa_site *sa_site_new_child(struct sa_site *parent);
void sa_site_publish_child(struct sa_site *parent, struct sa_site *c);
void sa_site_spare(struct sa_site *c);

/*
 * Any context, for a site not yet published: does a capture rule
 * (sa_ctx.c) select it?
 */
bool sa_capture_match(const struct sa_site *e);

/* Entries handed out so far (some may be spares, not yet ready). */
unsigned int sa_sites_seen(void);

static inline struct sa_site *sa_site_at(unsigned int idx)
{
	return &sa_sites[idx];
}

static inline struct sa_site_cold *sa_site_cold(const struct sa_site *e)
{
	return &sa_site_colds[e - sa_sites];
}

/* A published entry; pairs with the release in sa_site_get_slow(). */
static inline bool sa_site_ready(struct sa_site *e)
{
	/* Pairs with the store release that publishes the entry. */
	return smp_load_acquire(&e->ready);
}

/* Under sa_ctl_lock: a site as the file shows it, since the last reset. */
void sa_site_view(struct sa_site *e, struct sa_site_view *v);
/* Nothing to show since the last reset. */
static inline bool sa_view_empty(const struct sa_site_view *v)
{
	return !v->allocs && !v->frees && !v->objs;
}

/*
 * Under sa_ctl_lock: the first site at index @idx or above, below @n, that
 * the files show (ready, and not empty or counted by the header of read
 * @gen, when @gen is not 0), its view in @v; sets *pos, the seq_file
 * position, to its index + 1 (@n + 1 when there is none).  It may sleep
 * (cond_resched() on long runs of empty sites).
 */
struct sa_site *sa_site_shown(unsigned int idx, unsigned int n, u32 gen,
			      loff_t *pos, struct sa_site_view *v);

/* The index after @v's, @v a site or SEQ_START_TOKEN (then 0). */
static inline unsigned int sa_site_next_idx(const void *v)
{
	return v == SEQ_START_TOKEN ? 0 : (const struct sa_site *)v - sa_sites + 1;
}

/* The requests of a site since the last reset. */
struct sa_site_sizes {
	u32 min, max;			/* both 0 when there was none */
	u64 count[SA_SIZE_BUCKETS];	/* by sa_size_bucket() */
};

/* Under sa_ctl_lock: @z of @e, which made @allocs since the reset. */
void sa_site_sizes(struct sa_site *e, u64 allocs, struct sa_site_sizes *z);

/* Under sa_ctl_lock: every site's counters start again from now. */
void sa_sites_reset(void);

/*
 * Under sa_ctl_lock, the code in [@start, @end) gone (load @owner's):
 * its sites leave the hash, marked @owner's (rows kept, never found by a
 * later allocation at their addresses), and go on the load's list of
 * retired sites, whose first is *@first (an index + 1, 0 for none; the
 * next is sa_site_cold.next).  Their child rows are marked @owner's too
 * (found through each site's own list, not by a walk of the table).
 */
void sa_sites_retire(unsigned long start, unsigned long end, u16 owner,
		     u32 *first);

/* An index + 1 of a list of rows (0: none) as the row, or NULL. */
static inline struct sa_site *sa_site_link(u32 link)
{
	return link ? sa_site_at(link - 1) : NULL;
}

#endif /* SLAB_ACCOUNT_SITES_H */
