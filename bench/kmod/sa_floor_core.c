// SPDX-License-Identifier: GPL-2.0
/*
 * sa_floor: the cheapest probe slab_account could have.
 *
 * It registers slab_account's own probe wrappers (module/sa_tracepoints.c,
 * compiled into this module) on the same kmem tracepoints, and they call
 * an accounting core that only increments a per-CPU counter in place of
 * module/sa_core.h's.  No kprobe: the paths module/sa_kprobes.c hooks
 * cost the floor nothing.  What slab_account costs above this floor
 * is the price of its tables; what this floor costs above no probe at all
 * is the price of the tracepoints themselves.
 *
 * The counts are printed when the module is unloaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include <linux/tracepoint.h>

static DEFINE_PER_CPU(unsigned long, sa_floor_allocs);
static DEFINE_PER_CPU(unsigned long, sa_floor_frees);

/* The core sa_tracepoints.c's probes expand, instead of sa_core.h's. */
#define SLAB_ACCOUNT_CORE_H
#define SA_CACHE_UNKNOWN	((const struct kmem_cache *)1UL)

static __always_inline void sa_account_alloc(unsigned long call_site,
					     const void *ptr,
					     size_t bytes_req,
					     size_t bytes_alloc,
					     const struct kmem_cache *s)
{
	this_cpu_inc(sa_floor_allocs);
}

static __always_inline void sa_account_free(unsigned long call_site,
					    const void *ptr)
{
	this_cpu_inc(sa_floor_frees);
}

#include "../../module/sa_tracepoints.c"

static int sa_floor_register(void)
{
	int ret;

	/* Frees first, as slab_account does (module/sa_probes.h). */
	ret = sa_tracepoints_register(false);
	if (ret)
		return ret;
	ret = sa_tracepoints_register(true);
	if (ret)
		sa_tracepoints_unregister(false);
	return ret;
}

static int __init sa_floor_init(void)
{
	int ret = sa_floor_register();

	if (ret) {
		tracepoint_synchronize_unregister();
		pr_err("cannot register kmem tracepoint probes: %d\n", ret);
	}
	return ret;
}

static void __exit sa_floor_exit(void)
{
	unsigned long allocs = 0, frees = 0;
	int cpu;

	sa_tracepoints_unregister(true);
	sa_tracepoints_unregister(false);
	tracepoint_synchronize_unregister();
	for_each_possible_cpu(cpu) {
		allocs += per_cpu(sa_floor_allocs, cpu);
		frees += per_cpu(sa_floor_frees, cpu);
	}
	pr_info("counted %lu allocs and %lu frees\n", allocs, frees);
}

module_init(sa_floor_init);
module_exit(sa_floor_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("slab_account benchmark floor: probes that only count");
