// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_watch - the --watch loop (see cmd_watch.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "cmd_watch.h"

#include <errno.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cmd_common.h"
#include "cmd_report.h"
#include "sa_esc.h"
#include "sa_out.h"

void sleep_seconds(double s)
{
	struct timespec ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Now, UTC, ISO 8601 with milliseconds: 2025-01-31T12:34:56.789Z */
static void timestamp(char *buf, size_t n)
{
	struct timeval tv;
	struct tm tm;
	char s[32];

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, n, "%s.%03dZ", s, (int)(tv.tv_usec / 1000));
}

/*
 * On a terminal, clear it and redraw; otherwise (a pipe, a file, -o,
 * --batch) append one report per refresh, each headed by its time, or
 * with --csv one CSV table whose first column is the time.  --delta reads
 * a first snapshot and then shows each refresh's changes since the last.
 */
int cmd_watch(const struct opts *o)
{
	const char *path = o->nargs ? o->args[0] : SA_DEFAULT_PATH;
	int tty = !o->batch && !o->output && isatty(STDOUT_FILENO);
	struct report_env env = { 1, NULL, 0 };
	struct sa_file prev, cur;
	char stamp[40];
	uint64_t i;
	int have_prev = 0, r = 0;

	if (o->delta) {
		if (cmd_load(o, &prev, path))
			return 1;
		have_prev = 1;
	}
	for (i = 0; !o->count || i < o->count; i++) {
		if (i || have_prev)
			sleep_seconds(o->interval);
		if (cmd_load(o, &cur, path)) {
			r = -1;
			break;
		}
		timestamp(stamp, sizeof(stamp));
		if (sa_out_begin(o->output)) {
			sa_file_free(&cur);
			r = -1;
			break;
		}
		if (o->fmt == FMT_CSV) {
			env.stamp = stamp;
			env.no_header = i && !o->output;
		} else if (o->fmt == FMT_TEXT) {
			if (tty)
				fputs("\033[H\033[2J", stdout);	/* home, clear screen */
			else if (i && !o->output)
				putchar('\n');
			printf("Every %gs: ", o->interval);
			sa_esc_str(stdout, cur.name, SA_ESC_TEXT);
			printf("%s  %s\n\n", o->delta ? " (changes since the last refresh)" : "", stamp);
		}
		r = report(o, &env, have_prev ? &prev : NULL, &cur);
		if (sa_out_end(o->output, !r) || fflush(stdout))
			r = -1;
		if (have_prev)
			sa_file_free(&prev);
		prev = cur;
		have_prev = o->delta;
		if (!have_prev)
			sa_file_free(&cur);
		if (r)
			break;
	}
	if (have_prev)
		sa_file_free(&prev);
	return r ? 1 : 0;
}
