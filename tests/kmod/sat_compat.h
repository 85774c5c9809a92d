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

/*
 * kvrealloc(@p, ..., @size) in whichever form the kernel has it; where it
 * has none (before 5.15), NULL, which the pattern takes for "no such
 * helper here".
 */
#if defined(SAT_KVREALLOC_OLDSIZE)
#define sat_kvrealloc(p, oldsize, size) kvrealloc(p, oldsize, size, GFP_KERNEL)
#elif defined(SAT_KVREALLOC_SIZE)
#define sat_kvrealloc(p, oldsize, size) kvrealloc(p, size, GFP_KERNEL)
#else
#define sat_kvrealloc(p, oldsize, size) ((void)(p), (void)(oldsize), NULL)
#endif

#endif /* SAT_COMPAT_H */
