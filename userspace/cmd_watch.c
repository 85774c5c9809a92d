// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_watch - the --watch loop (see cmd_watch.h): on a terminal each
 * refresh is drawn to fit the screen (a compact summary, the columns
 * fitted to its width, the rows that fit, lines cut to its width) and
 * drawn again when the terminal is resized; a refresh that
 * cannot read the file (a module reloaded) says so once, marks the
 * metrics (slab_account_up 0) and the watch goes on until it can.
 */
#define _POSIX_C_SOURCE 200809L

#include "cmd_watch.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cmd_common.h"
#include "cmd_report.h"
#include "cmd_term.h"
#include "pr_metrics.h"
#include "sa_esc.h"
#include "sa_input.h"
#include "sa_out.h"
#include "sa_time.h"

/* Now, UTC, ISO 8601 with milliseconds: 2025-01-31T12:34:56.789Z */
static void timestamp(char *buf, size_t n)
{
	struct timeval tv;
	struct tm tm;
	char s[32];

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, n, "%s.%03uZ", s, (unsigned int)(tv.tv_usec / 1000) % 1000);
}

static volatile sig_atomic_t resized;

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

/* What a refresh shows: the files read (or the error), when. */
struct watch {
	const struct opts *o;
	const char *path;
	int tty;
	struct sa_file prev, cur;
	int have_prev, have_cur;
	char *err;		/* the last refresh's error, or NULL */
	char stamp[40];
	uint64_t refresh;
};

/*
 * Write @buf (@len bytes, NUL terminated) to the terminal: @rows lines at
 * most, each cut to @cols columns (display widths: a wide character takes
 * two).  The lines are NUL terminated in place.
 */
static void clip(char *buf, size_t len, unsigned int rows, unsigned int cols)
{
	char *p = buf, *end = buf + len;
	unsigned int line = 0;
	size_t w;

	while (p < end && line < rows) {
		char *nl = memchr(p, '\n', (size_t)(end - p));

		if (nl)
			*nl = '\0';
		fwrite(p, 1, sa_text_fit(p, cols, &w), stdout);
		fputs(++line < rows && nl ? "\n" : "", stdout);
		p = nl ? nl + 1 : end;
	}
}

/*
 * The header line and the report (or the error) of this refresh, to
 * standard output: in @max_lines lines (0: any), the table fitted to
 * @width columns (0: not fitted); on a terminal or fitted, the summary
 * compact (unless --full-summary).
 */
static int draw(struct watch *w, size_t max_lines, size_t width)
{
	const struct opts *o = w->o;
	struct report_env env = { 1, NULL, 0, max_lines, 2, width, 0 };
	char *tmp;

	env.compact = (w->tty || width) && !o->full_summary && o->summary == SUM_BOTH;

	if (o->fmt == FMT_CSV) {
		env.stamp = w->stamp;
		env.no_header = w->refresh && !o->output;
	} else if (o->fmt == FMT_TEXT) {
		printf("Every %gs: %s%s  %s\n\n", o->interval, sa_esc_text(w->have_cur ?
			w->cur.name : sa_display_name(w->path), &tmp),
		       o->delta ? " (changes since the last refresh)" : "", w->stamp);
		free(tmp);
	}
	if (w->err) {
		if (o->fmt == FMT_PROM)
			pr_metrics_down();
		else if (o->fmt == FMT_TEXT)
			printf("slabacct: %s (read again every %gs)\n", sa_esc_text(w->err, &tmp),
			       o->interval), free(tmp);
		return 0;
	}
	if (o->delta && !w->have_prev) {
		if (o->fmt == FMT_TEXT)
			puts("the file was read again: the changes show from the next refresh");
		return 0;
	}
	return report(o, &env, w->have_prev ? &w->prev : NULL, &w->cur);
}

/* On a terminal: clear it and draw the refresh to fit it. */
static int draw_tty(struct watch *w)
{
	unsigned int rows = 0, cols = 0;
	FILE *m = tmpfile();
	int saved = -1, r = -1;
	char *buf = NULL;
	long len;

	cmd_term_size(&rows, &cols);	/* $LINES, $COLUMNS when it does not say */
	rows = rows ? rows : 24;
	cols = cols ? cols : 80;
	/* the refresh into a file, then to the screen, clipped */
	if (!m || fflush(stdout) || (saved = dup(STDOUT_FILENO)) < 0 ||
	    dup2(fileno(m), STDOUT_FILENO) < 0)
		goto out;
	r = draw(w, rows - 1, w->o->width_set ? w->o->width : cols);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	len = ftell(m);
	if (len < 0 || !(buf = malloc((size_t)len + 1)) || fseek(m, 0, SEEK_SET) ||
	    fread(buf, 1, (size_t)len, m) != (size_t)len) {
		r = -1;
		goto out;
	}
	buf[len] = '\0';
	fputs("\033[H\033[2J", stdout);	/* home, clear screen */
	clip(buf, (size_t)len, rows - 1, cols);
	fflush(stdout);
out:
	if (saved >= 0)
		close(saved);
	if (m)
		fclose(m);
	free(buf);
	return r;
}

/* Read the file for a refresh: 0, or -1 (w->err says why; said once). */
static int reread(struct watch *w)
{
	char *err = NULL, *tmp;

	if (w->have_prev && !w->o->delta) {
		sa_file_free(&w->prev);
		w->have_prev = 0;
	}
	if (w->have_cur && w->o->delta) {
		if (w->have_prev)
			sa_file_free(&w->prev);
		w->prev = w->cur;
		w->have_prev = 1;
	} else if (w->have_cur) {
		sa_file_free(&w->cur);
	}
	w->have_cur = 0;
	if (cmd_load_err(w->o, &w->cur, w->path, &err) == 0) {
		if (w->err)
			fprintf(stderr, "slabacct: note: %s: read again\n",
				sa_esc_text(sa_display_name(w->path), &tmp)), free(tmp);
		free(w->err);
		w->err = NULL;
		w->have_cur = 1;
		return 0;
	}
	if (!err)
		err = strdup("out of memory");
	if (!w->err || !err || strcmp(err, w->err))
		fprintf(stderr, "slabacct: %s (--watch reads it again every %gs)\n",
			err ? err : "out of memory", w->o->interval);
	free(w->err);
	w->err = err;
	if (w->have_prev) {	/* --delta: the next read is a new start */
		sa_file_free(&w->prev);
		w->have_prev = 0;
	}
	return -1;
}

/* A signal during the wait: on a terminal resized, draw again (and wait on). */
static int on_signal(void *ctx)
{
	struct watch *w = ctx;

	if (w->tty && resized) {
		resized = 0;
		draw_tty(w);
	}
	return 0;
}

/* Wait @s seconds; on a terminal, draw again when it is resized. */
static void wait_refresh(struct watch *w, double s)
{
	sa_sleep(s, on_signal, w);
}

/*
 * On a terminal, clear it and redraw; otherwise (a pipe, a file, -o,
 * --batch) append one report per refresh, each headed by its time, or
 * with --csv one CSV table whose first column is the time.  --delta reads
 * a first snapshot and then shows each refresh's changes since the last.
 * The first read must succeed; a later one that fails is said and the
 * watch goes on.
 */
int cmd_watch(const struct opts *o)
{
	struct watch w;
	struct sigaction sa;
	int r = 0;

	memset(&w, 0, sizeof(w));
	w.o = o;
	w.path = o->nargs ? o->args[0] : SA_DEFAULT_PATH;
	w.tty = !o->batch && !o->output && isatty(STDOUT_FILENO) && o->fmt == FMT_TEXT;
	if (o->fmt == FMT_TEXT && (w.tty || o->width))
		cmd_term_locale();	/* the display widths of the fitted table */
	if (w.tty) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_winch;	/* no SA_RESTART: the wait is interrupted */
		sigemptyset(&sa.sa_mask);
		sigaction(SIGWINCH, &sa, NULL);
	}
	if (cmd_load(o, &w.cur, w.path))
		return 1;
	w.have_cur = 1;
	for (w.refresh = 0; !o->count || w.refresh < o->count; w.refresh++) {
		if (w.refresh || o->delta) {
			wait_refresh(&w, o->interval);
			reread(&w);
		}
		timestamp(w.stamp, sizeof(w.stamp));
		if (w.tty) {
			r = draw_tty(&w);
		} else {
			if (w.err && o->fmt != FMT_PROM)
				continue;	/* said on stderr */
			if (sa_out_begin(o->output))
				r = -1;
			else {
				if (o->fmt == FMT_TEXT && w.refresh && !o->output)
					putchar('\n');
				r = draw(&w, 0, o->width_set ? o->width : 0);
				if (sa_out_end(o->output, !r) || fflush(stdout))
					r = -1;
			}
		}
		if (r)
			break;
	}
	if (w.have_prev)
		sa_file_free(&w.prev);
	if (w.have_cur)
		sa_file_free(&w.cur);
	r = r || w.err;
	free(w.err);
	return r ? 1 : 0;
}
