// SPDX-License-Identifier: GPL-2.0
/*
 * sa_time - sleeping through signals (see sa_time.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_time.h"

#include <errno.h>
#include <time.h>

void sa_sleep(double s, int (*woken)(void *ctx), void *ctx)
{
	struct timespec ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		if (woken && woken(ctx))
			break;
}
