/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API differences the test modules meet, told apart by the
 * compile probes in tests/kmod/Kbuild.
 */
#ifndef SAT_COMPAT_H
#define SAT_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/timer.h>

#ifndef SAT_HAVE_HRTIMER_SETUP
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*fn)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = fn;
}
#endif

#ifndef SAT_HAVE_TIMER_DELETE_SYNC
static inline int timer_delete_sync(struct timer_list *timer)
{
	return del_timer_sync(timer);
}
#endif

#endif /* SAT_COMPAT_H */
