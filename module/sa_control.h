/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Start, stop and reset, and the state they leave (sa_control.c).  All
 * under sa_ctl_lock.
 */
#ifndef SLAB_ACCOUNT_CONTROL_H
#define SLAB_ACCOUNT_CONTROL_H

#include <linux/types.h>

#include "sa_core.h"

/* Register every probe, frees first; 0 or an errno (then none is). */
int sa_start(void);
/* Unregister every probe and wait for those in flight. */
void sa_stop(void);
/* Cumulative counters start again from now; live objects stay. */
void sa_reset(void);
bool sa_is_active(void);
/*
 * With sa_log_steps (log_times=1, while loading and unloading), log how
 * long @step took since @since (ktime_get_ns()); returns the time now.
 */
extern bool sa_log_steps;
u64 sa_step(const char *step, u64 since);
/* The global event counters since the last reset. */
void sa_stats_since_reset(struct sa_stats_sum *st);

#endif /* SLAB_ACCOUNT_CONTROL_H */
