// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: the kmem tracepoint probes, for every era of their
 * arguments, turned into the core's sa_account_alloc() and
 * sa_account_free(), which are inlined here.
 *
 * Eras, told apart by Kbuild's compile probes (SA_TP_*), not by versions:
 *
 * >= 6.1 (SA_TP_CACHE_ALLOC_ARG): kmalloc(call_site, ptr, bytes_req,
 *	bytes_alloc, gfp, node); kmem_cache_alloc(call_site, ptr, s, gfp,
 *	node), the sizes are s->object_size and s->size as ftrace reports them;
 *	kfree(call_site, ptr); kmem_cache_free(call_site, ptr, s).
 * <= 6.0 (SA_TP_NODE_EVENTS): kmalloc and kmem_cache_alloc(call_site, ptr,
 *	bytes_req, bytes_alloc, gfp) plus *_node events with a node; the
 *	cache is not given (rows say "cache"); kfree(call_site, ptr);
 *	kmem_cache_free(call_site, ptr), or (call_site, ptr, name) from 5.12
 *	(SA_TP_FREE_NAME_ARG).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cache.h>
#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <trace/events/kmem.h>

#include "sa_core.h"
#include "sa_kmem_cache.h"
#include "sa_probes.h"

/*
 * Whether the kernel calls tracepoint probes with preemption on: up to
 * 6.x it turns preemption off around them (PREEMPT_RT too); 7.x calls
 * them under SRCU, preemptible, and the SRCU-fast tracepoints (2026)
 * keep preemption on under PREEMPT_RT only, with the header's text the
 * same for both.  Neither the version nor the header says it: the
 * kernel's own code does, so sa_tracepoints_detect() asks it at load,
 * before any probe is registered, with a kfree() of its own seen by a
 * probe of the kfree event.  Where the probes are called preemptible,
 * the probes registered turn preemption off around each event, as the
 * kprobes' handlers run with it off: all its updates on one CPU (the
 * notes on ordering; reset's bases rely on it).  Elsewhere the probes
 * registered are built without that, and test nothing for it.  Set once,
 * at load, before any probe is registered, and read-only after the
 * module's init: a probe is unregistered as the one it registered.
 */
static bool sa_tp_preemptible __ro_after_init;

static __always_inline void sa_tp_alloc(bool pe, unsigned long call_site,
					const void *ptr, size_t bytes_req,
					size_t bytes_alloc,
					const struct kmem_cache *s)
{
	if (pe)
		preempt_disable_notrace();
	sa_account_alloc(call_site, ptr, bytes_req, bytes_alloc, s);
	if (pe)
		preempt_enable_notrace();
}

static __always_inline void sa_tp_free(bool pe, unsigned long call_site,
				       const void *ptr)
{
	if (pe)
		preempt_disable_notrace();
	sa_account_free(call_site, ptr);
	if (pe)
		preempt_enable_notrace();
}

/*
 * The probes, in two builds (sa_tp_probes.h): sa_probe_<event>, and
 * sa_probe_<event>_pe, which turns preemption off around the event.
 */
#define SA_TP_PE		false
#define SA_TP_PROBE(event)	sa_probe_##event
#include "sa_tp_probes.h"
#undef SA_TP_PE
#undef SA_TP_PROBE
#define SA_TP_PE		true
#define SA_TP_PROBE(event)	sa_probe_##event##_pe
#include "sa_tp_probes.h"
#undef SA_TP_PE
#undef SA_TP_PROBE

/* What the probe of sa_tracepoints_detect() saw of its task's kfree(). */
struct sa_tp_seen {
	struct task_struct *task;
	const void *ptr;
	bool seen, preemptible;
};

static void sa_tp_detect_kfree(void *data, unsigned long call_site,
			       const void *ptr)
{
	struct sa_tp_seen *t = data;

	/* Only the test's own free: the address may be reused meanwhile. */
	if (ptr != t->ptr || current != t->task || t->seen)
		return;
	t->preemptible = preemptible();
	t->seen = true;
}

void sa_tracepoints_detect(void)
{
	struct sa_tp_seen t = { .task = current };
	bool caller = false;
	void *p;

	/* A kernel without preempt_count() is not preempted in a probe. */
	if (!IS_ENABLED(CONFIG_PREEMPT_COUNT))
		return;
	p = kmalloc(1, GFP_KERNEL);
	t.ptr = p;
	if (p && !register_trace_kfree(sa_tp_detect_kfree, &t)) {
		caller = preemptible();
		kfree(p);
		unregister_trace_kfree(sa_tp_detect_kfree, &t);
		tracepoint_synchronize_unregister();
	} else {
		kfree(p);
	}
	if (t.seen && caller && !t.preemptible)
		return;
	/* Called preemptible, or not known: off in the probes, to be safe. */
	if (t.seen && caller)
		pr_info("tracepoint probes are called preemptible: the probes turn preemption off\n");
	else
		pr_info("cannot tell whether tracepoint probes are called preemptible: the probes turn preemption off\n");
	sa_tp_preemptible = true;
}

/*
 * Registration of the build of sa_probe_<tp> that this load uses, as a
 * pair of functions for the table.
 */
#define SA_TRACEPOINT(tp)						\
static int sa_reg_##tp(void)						\
{									\
	return register_trace_##tp(sa_tp_preemptible ?			\
				   sa_probe_##tp##_pe : sa_probe_##tp,	\
				   NULL);				\
}									\
static void sa_unreg_##tp(void)						\
{									\
	unregister_trace_##tp(sa_tp_preemptible ?			\
			      sa_probe_##tp##_pe : sa_probe_##tp, NULL);	\
}

SA_TRACEPOINT(kmalloc)
SA_TRACEPOINT(kmem_cache_alloc)
#ifdef SA_TP_NODE_EVENTS
SA_TRACEPOINT(kmalloc_node)
SA_TRACEPOINT(kmem_cache_alloc_node)
#endif
SA_TRACEPOINT(kfree)
SA_TRACEPOINT(kmem_cache_free)

struct sa_tracepoint {
	int (*reg)(void);
	void (*unreg)(void);
};

static const struct sa_tracepoint sa_free_tps[] = {
	{ sa_reg_kfree, sa_unreg_kfree },
	{ sa_reg_kmem_cache_free, sa_unreg_kmem_cache_free },
};

static const struct sa_tracepoint sa_alloc_tps[] = {
	{ sa_reg_kmalloc, sa_unreg_kmalloc },
	{ sa_reg_kmem_cache_alloc, sa_unreg_kmem_cache_alloc },
#ifdef SA_TP_NODE_EVENTS
	{ sa_reg_kmalloc_node, sa_unreg_kmalloc_node },
	{ sa_reg_kmem_cache_alloc_node, sa_unreg_kmem_cache_alloc_node },
#endif
};

int sa_tracepoints_register(bool allocs)
{
	const struct sa_tracepoint *tps = allocs ? sa_alloc_tps : sa_free_tps;
	int i, n = allocs ? ARRAY_SIZE(sa_alloc_tps) : ARRAY_SIZE(sa_free_tps);
	int ret;

	for (i = 0; i < n; i++) {
		ret = tps[i].reg();
		if (ret) {
			while (i--)
				tps[i].unreg();
			return ret;
		}
	}
	return 0;
}

void sa_tracepoints_unregister(bool allocs)
{
	const struct sa_tracepoint *tps = allocs ? sa_alloc_tps : sa_free_tps;
	int i, n = allocs ? ARRAY_SIZE(sa_alloc_tps) : ARRAY_SIZE(sa_free_tps);

	for (i = 0; i < n; i++)
		tps[i].unreg();
}
