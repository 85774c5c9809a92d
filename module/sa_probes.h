/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probes that feed the core: kmem tracepoints (sa_tracepoints.c) and
 * kprobes on the allocator functions the tracepoints do not report
 * (sa_kprobes.c).  Every difference between kernel versions lives in
 * those two files, the tracepoint probes' prototypes (sa_tp_probes.h),
 * sa_kmem_cache.c and Kbuild's compile probes.
 *
 * Each has two groups, registered frees first: an object allocated
 * while the free probes were being patched in would stay live for ever.
 */
#ifndef SLAB_ACCOUNT_PROBES_H
#define SLAB_ACCOUNT_PROBES_H

#include <linux/types.h>

/*
 * At load, before any probe: find whether this kernel calls tracepoint
 * probes preemptible, and if so (or if it cannot tell) have the probes
 * turn preemption off themselves.  Process context.
 */
void sa_tracepoints_detect(void);

/*
 * Tracepoints of one group (@allocs: the allocation events, else the
 * frees): all or none.  0 or an errno; after an unregister (or a failed
 * register) the caller waits for probes in flight.
 */
int sa_tracepoints_register(bool allocs);
void sa_tracepoints_unregister(bool allocs);

/* Paths the tracepoints do not report, hooked by kprobes when possible. */
enum sa_path {
	SA_PATH_FREE_BULK,	/* kmem_cache_free_bulk(), kfree_bulk() */
	SA_PATH_KREALLOC,	/* krealloc() in place */
	SA_PATH_ALLOC_BULK,	/* kmem_cache_alloc_bulk() */
	SA_PATH_RCU_SHEAF,	/* kfree_rcu() into a sheaf (7.x) */
	SA_PATH_KFREE_NOLOCK,	/* kfree_nolock() (7.x) */
	SA_PATH_KMALLOC_NOLOCK,	/* kmalloc_nolock() (7.x) */
	SA_NR_PATHS
};

/* Why a path is hooked or not (the file's `unhooked PATH:` words). */
enum sa_why {
	SA_WHY_HOOKED,
	SA_WHY_STOPPED,		/* by "stop" */
	SA_WHY_DISABLED,	/* hooks=0 */
	SA_WHY_NO_KPROBES,	/* the kernel has none (CONFIG_KPROBES) */
	SA_WHY_ARGS,		/* no way to read arguments on this arch */
	SA_WHY_ABSENT,		/* no function of any name it has had */
	SA_WHY_PROTOTYPE,	/* declared otherwise than the handler expects */
	SA_WHY_REFUSED,		/* by kprobes: blacklisted, not probeable */
	SA_WHY_FAILED,		/* another error */
	SA_NR_WHYS
};

/*
 * Hook a group's paths (@allocs: allocations, else frees and resizes);
 * a path that cannot be hooked is said at load and in the file, never an
 * error.  Unregistering waits for handlers in flight.
 */
void sa_kprobes_register(bool allocs);
void sa_kprobes_unregister(void);
/* Say at load which paths are hooked, absent, or could not be hooked. */
void sa_kprobes_report(void);
/* The path's name in the file; NULL when this kernel has no such API. */
const char *sa_path_name(enum sa_path path);
bool sa_path_hooked(enum sa_path path);
/* Why it is not (or "hooked"), as the file says it. */
const char *sa_path_why(enum sa_path path);
/* Hook calls not handled: recursion, or no free return instance. */
unsigned long sa_kprobes_missed(void);

#endif /* SLAB_ACCOUNT_PROBES_H */
