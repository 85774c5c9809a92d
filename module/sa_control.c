// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: start, stop and reset.
 *
 * Start registers the free probes before the allocation probes, so that
 * no object is seen allocated while its free could still go unseen; stop
 * unregisters everything and waits until no probe runs.  Reset records
 * where every counter stands; the file shows the difference.  Everything
 * here runs under sa_ctl_lock, as do the file's reads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "sa_control.h"
#include "sa_core.h"
#include "sa_objects.h"
#include "sa_probes.h"
#include "sa_sites.h"

/* Serialises start, stop, reset and the file's reads (sa_core.h). */
DEFINE_MUTEX(sa_ctl_lock);
static bool sa_active;
static struct sa_stats_sum sa_base;	/* the counters at the last reset */
bool sa_log_steps;		/* log_times=1, in init and exit (sa_main.c) */

u64 sa_step(const char *step, u64 since)
{
	u64 now = ktime_get_ns();

	if (sa_log_steps)
		pr_info("%s: %llu us\n", step,
			div_u64(now - since, NSEC_PER_USEC));
	return now;
}

int sa_start(void)
{
	u64 t = ktime_get_ns();
	int ret;

	lockdep_assert_held(&sa_ctl_lock);
	if (sa_active)
		return 0;
	ret = sa_tracepoints_register(false);
	if (ret)
		goto fail;
	t = sa_step("register the free tracepoints", t);
	sa_kprobes_register(false);
	t = sa_step("register the free kprobes", t);
	ret = sa_tracepoints_register(true);
	if (ret) {
		sa_kprobes_unregister();
		sa_tracepoints_unregister(false);
		tracepoint_synchronize_unregister();
		goto fail;
	}
	t = sa_step("register the allocation tracepoints", t);
	sa_kprobes_register(true);
	sa_step("register the allocation kprobes", t);
	WRITE_ONCE(sa_active, true);
	return 0;
fail:
	pr_err("cannot register kmem tracepoint probes: %d\n", ret);
	return ret;
}

void sa_stop(void)
{
	u64 t = ktime_get_ns();

	lockdep_assert_held(&sa_ctl_lock);
	if (!sa_active)
		return;
	sa_kprobes_unregister();
	t = sa_step("unregister the kprobes", t);
	sa_tracepoints_unregister(true);
	sa_tracepoints_unregister(false);
	t = sa_step("unregister the tracepoints", t);
	tracepoint_synchronize_unregister();
	sa_step("tracepoint_synchronize_unregister", t);
	WRITE_ONCE(sa_active, false);
}

bool sa_is_active(void)
{
	return READ_ONCE(sa_active);
}

void sa_reset(void)
{
	lockdep_assert_held(&sa_ctl_lock);
	sa_sites_reset();
	sa_stats_sum(&sa_base);
}

/* Each counter only grows: read after the base, never below it. */
void sa_stats_since_reset(struct sa_stats_sum *st)
{
	unsigned int i;

	lockdep_assert_held(&sa_ctl_lock);
	sa_stats_sum(st);
	for (i = 0; i < SA_NR_STATS; i++)
		st->n[i] = st->n[i] > sa_base.n[i] ? st->n[i] - sa_base.n[i] : 0;
}
