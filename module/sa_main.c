// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: per call site accounting of kernel slab allocations.
 *
 * This file owns the module's lifecycle: its parameters, the sizing of
 * the tables, and init and exit.  The rest, one concern a file:
 *
 *   sa_core.h		structures, shared state, notes on ordering, and
 *			the inline hot path every probe expands
 *   sa_sites.c		the call-site table
 *   sa_objects.c	the object table and the global event counters
 *   sa_names.c		call sites' names, kept from first sight
 *   sa_loads.c		module loads, the owners of call sites
 *   sa_unloads.c	what a module left live when it unloaded, and
 *			/proc/slab_account_unloads
 *   sa_unwrap.c	allocation helpers, and the callers behind them
 *   sa_ctx.c		context rows: a site's rows split by cgroup, node
 *			or task, or by stack under capture; capture rules
 *   sa_stacks.c	the stacks of captured sites, and
 *			/proc/slab_account_stacks
 *   sa_tracepoints.c	the kmem tracepoint probes, for every era, each
 *			built twice by sa_tp_probes.h: with preemption
 *			turned off around the event and without
 *   sa_kprobes.c	the paths the tracepoints do not report
 *   sa_kmem_cache.c	struct kmem_cache's size and name, for every era
 *   sa_control.c	start, stop, reset
 *   sa_proc.c		/proc/slab_account
 *   sa_detail.c		/proc/slab_account_detail: ages and request sizes
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/tracepoint.h>
#include <linux/vmstat.h>

#include "sa_control.h"
#include "sa_core.h"
#include "sa_ctx.h"
#include "sa_detail.h"
#include "sa_kmem_cache.h"
#include "sa_loads.h"
#include "sa_names.h"
#include "sa_objects.h"
#include "sa_probes.h"
#include "sa_proc.h"
#include "sa_sites.h"
#include "sa_stacks.h"
#include "sa_unloads.h"
#include "sa_unwrap.h"

static unsigned long max_objects;
module_param(max_objects, ulong, 0444);
MODULE_PARM_DESC(max_objects,
		 "object table capacity (0 = auto: 1 per 2 KiB of RAM or per 256 B of slab in use, 8192..64M)");

static unsigned long max_sites;
module_param(max_sites, ulong, 0444);
MODULE_PARM_DESC(max_sites,
		 "call-site table capacity (0 = auto: 32 per MiB of RAM, 1024..16384)");

static bool log_times;
module_param(log_times, bool, 0444);
MODULE_PARM_DESC(log_times,
		 "log how long each step of the load and of the unload takes");

static size_t sa_table_bytes, sa_object_bytes;
u64 sa_epoch;			/* jiffies at load (the detail file) */

static unsigned long sa_clamp_pow2(unsigned long v, unsigned long lo,
				   unsigned long hi)
{
	return rounddown_pow_of_two(clamp(v, lo, hi));
}

/*
 * A 32-bit kernel's vmalloc space is a few hundred MiB for everything
 * (240 MiB by default on ARM): the tables take at most a quarter of it.
 * Sizes chosen automatically are halved until they fit; a size asked for
 * that does not fit is refused, saying what does.
 */
static int sa_fit_vmalloc(unsigned long *objs, unsigned long *sites,
			  bool auto_objs, bool auto_sites)
{
#if BITS_PER_LONG == 32
	const u64 room = VMALLOC_TOTAL / 4;
	u64 need;

	for (;;) {
		need = (u64)sa_objects_bytes(*objs) + sa_sites_bytes(*sites) +
		       sa_sites_ctrs_bytes(*sites) + sa_names_bytes(*sites) +
		       (sa_split ? sa_ctx_bytes(*sites) : 0);
		if (need <= room)
			return 0;
		if (auto_objs && *objs > 8192)
			*objs /= 2;
		else if (auto_sites && *sites > 1024)
			*sites /= 2;
		else
			break;
	}
	pr_err("max_objects=%lu and max_sites=%lu need %llu MiB of tables: more than a quarter of this kernel's %lu MiB of vmalloc space\n",
	       *objs, *sites, need >> 20, (unsigned long)(VMALLOC_TOTAL >> 20));
	return -EINVAL;
#else
	return 0;
#endif
}

static void sa_free_tables(void)
{
	sa_stacks_free();
	sa_ctx_free();
	sa_names_free();
	sa_sites_free();
	sa_objects_free();
}

/*
 * Slab memory in use now, in bytes: the objects allocated before the load
 * are not tracked, but as they are freed and allocated again the table
 * comes to hold about as many.
 */
static unsigned long sa_slab_bytes(void)
{
	return (global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B) +
		global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B)) << PAGE_SHIFT;
}

/*
 * The object table's automatic size: one object per 2 KiB of RAM, or, on
 * a machine whose slab holds more, one per 256 bytes of slab in use at the
 * load (1.75 slots each: a slot per 146 bytes), but no more than one per
 * KiB of RAM; 8192 to SA_MAX_OBJECTS.  The table takes 44 bytes per
 * object of that figure: about 2% of RAM, 4% at most.
 */
static unsigned long sa_auto_objects(unsigned long ram_mib)
{
	unsigned long by_ram = ram_mib * 512, by_slab = sa_slab_bytes() / 256;

	/* by_ram is below the ceiling: the ceiling caps the slab's share. */
	return min(sa_clamp_pow2(max(by_ram, by_slab), 8192, SA_MAX_OBJECTS),
		   sa_objects_ceiling());
}

static int sa_alloc_tables(void)
{
	unsigned long ram_mib = totalram_pages() >> (20 - PAGE_SHIFT);
	unsigned long objs = max_objects, sites = max_sites;
	size_t obj_bytes = 0, site_bytes = 0, name_bytes = 0;
	int ret;

	if (objs > SA_MAX_OBJECTS || sites > SA_MAX_SITES) {
		pr_err("max_objects must be <= %lu and max_sites <= %lu\n",
		       SA_MAX_OBJECTS, SA_MAX_SITES);
		return -EINVAL;
	}
	if (!objs)
		objs = sa_auto_objects(ram_mib);
	if (!sites)
		sites = sa_clamp_pow2(ram_mib * 32, 1024, 16384);
	ret = sa_fit_vmalloc(&objs, &sites, !max_objects, !max_sites);
	if (ret)
		return ret;

	ret = sa_objects_alloc(objs, &obj_bytes);
	if (!ret)
		ret = sa_sites_alloc(sites, &site_bytes);
	if (!ret)
		ret = sa_names_alloc(sites, &name_bytes);
	if (!ret)
		ret = sa_ctx_alloc(sites);
	/* The context rows' table is the header's to add (sa_proc.c). */
	sa_table_bytes = obj_bytes + site_bytes + name_bytes;
	sa_object_bytes = obj_bytes;
	if (ret) {
		pr_err("cannot allocate %zu bytes of tables and the counters of %u CPUs (max_objects=%lu max_sites=%lu): error %d\n",
		       sa_table_bytes, num_online_cpus(), objs, sites, ret);
		sa_free_tables();
	}
	return ret;
}

static int __init sa_init(void)
{
	u64 t0 = ktime_get_ns(), t;
	int ret;

	/* The object table keeps sizes in 32 bits. */
	BUILD_BUG_ON(KMALLOC_MAX_SIZE > U32_MAX);
	/* An empty minimum is above every request. */
	BUILD_BUG_ON(KMALLOC_MAX_SIZE >= SA_REQ_MIN_NONE);

	sa_log_steps = log_times;
	sa_epoch = get_jiffies_64();
	/* Before any probe: its own allocations are not accounted. */
	ret = sa_detail_measure();
	if (ret)
		return ret;
	ret = sa_kmem_cache_check();
	if (ret)
		return ret;
	/* split= and capture= against this kernel, before anything else. */
	ret = sa_ctx_check();
	if (ret)
		return ret;
	t = sa_step("check struct kmem_cache", t0);
	sa_tracepoints_detect();
	t = sa_step("ask how tracepoint probes are called", t);
	ret = sa_alloc_tables();
	if (ret)
		return ret;
	t = sa_step("allocate the tables", t);
	/* Before any probe: the probes read the helpers' table. */
	sa_unwrap_init();
	t = sa_step("find the allocation helpers", t);
	/*
	 * Before capture=: a module that comes, goes live or goes while its
	 * rules are made is seen by the notifier, which waits for
	 * sa_ctl_lock and then sets, clears or drops what they took of it.
	 */
	ret = sa_loads_watch();
	if (ret)
		goto out_tables;
	/* Before any probe: the sites capture= names are captured. */
	ret = sa_capture_load();
	if (ret)
		goto out_watch;
	t = sa_step("apply capture=", t);

	t = ktime_get_ns();
	mutex_lock(&sa_ctl_lock);
	t = sa_step("take sa_ctl_lock", t);
	ret = sa_start();
	mutex_unlock(&sa_ctl_lock);
	if (ret)
		goto out_watch;
	t = ktime_get_ns();

	/* Last: nothing can write "start" or "stop" before this point. */
	ret = sa_proc_create(sa_table_bytes);
	if (ret) {
		pr_err("cannot create /proc/slab_account\n");
		goto out_stop;
	}
	ret = sa_detail_create();
	if (ret) {
		pr_err("cannot create /proc/slab_account_detail\n");
		goto out_proc;
	}
	ret = sa_unloads_create();
	if (ret) {
		pr_err("cannot create /proc/slab_account_unloads\n");
		goto out_detail;
	}
	ret = sa_stacks_create();
	if (ret) {
		pr_err("cannot create /proc/slab_account_stacks\n");
		goto out_unloads;
	}
	sa_step("create the /proc files", t);
	sa_step("load", t0);
	sa_log_steps = false;

	pr_info("tracking up to %lu objects and %u call sites in %zu bytes (object table %zu, call sites %zu, counters of %u CPUs %zu)\n",
		sa_objects_capacity(), sa_site_cap,
		sa_table_bytes + sa_ctrs_memory(), sa_object_bytes,
		sa_table_bytes - sa_object_bytes, sa_ctr_cpus_nr(),
		sa_ctrs_memory());
	sa_kprobes_report();
	return 0;

out_unloads:
	sa_unloads_remove();
out_detail:
	sa_detail_remove();
out_proc:
	sa_proc_remove();
out_stop:
	mutex_lock(&sa_ctl_lock);
	sa_stop();
	mutex_unlock(&sa_ctl_lock);
out_watch:
	sa_loads_unwatch();
	sa_unloads_free();
out_tables:
	sa_free_tables();
	return ret;
}

static void __exit sa_exit(void)
{
	u64 t0 = ktime_get_ns(), t;

	sa_log_steps = log_times;
	sa_stacks_remove();
	sa_unloads_remove();
	sa_detail_remove();
	sa_proc_remove();
	t = sa_step("remove the /proc files", t0);
	mutex_lock(&sa_ctl_lock);
	t = sa_step("take sa_ctl_lock", t);
	sa_stop();
	mutex_unlock(&sa_ctl_lock);
	t = ktime_get_ns();
	sa_loads_unwatch();
	sa_unloads_free();
	sa_free_tables();
	t = sa_step("free the tables", t);
	/*
	 * The kernel frees what it kept for our probes (kretprobe instances,
	 * tracepoint probe arrays) in RCU callbacks, the arrays then in
	 * tracepoint_srcu's: let them run, so that an unload leaves nothing
	 * of ours in flight (kmemleak).
	 */
	rcu_barrier();
	t = sa_step("rcu_barrier", t);
	srcu_barrier(&tracepoint_srcu);
	sa_step("srcu_barrier", t);
	sa_step("unload", t0);
}

module_init(sa_init);
module_exit(sa_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("slab_account developers");
MODULE_DESCRIPTION("Per call site accounting of kernel slab allocations");
