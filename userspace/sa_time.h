// SPDX-License-Identifier: GPL-2.0
/*
 * sa_time - time for the commands that wait (--watch, --leaks over an
 * interval): sleeping a number of seconds through the signals that
 * interrupt it, each signal told to the caller.
 */
#ifndef SA_TIME_H
#define SA_TIME_H

/*
 * Sleep @s seconds.  A signal interrupting the sleep calls @woken (when
 * not NULL) with @ctx: the sleep ends early if it returns non-zero and
 * otherwise goes on for the time left.
 */
void sa_sleep(double s, int (*woken)(void *ctx), void *ctx);

#endif /* SA_TIME_H */
