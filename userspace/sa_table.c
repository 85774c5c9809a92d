// SPDX-License-Identifier: GPL-2.0
/*
 * sa_table - the column table model's printers: text (as is, or fitted to
 * a terminal's width), CSV and JSON (see sa_table.h).
 */
#define _XOPEN_SOURCE 700	/* nl_langinfo() */

#include "sa_table.h"

#include <inttypes.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sa_esc.h"

#define MAX_COLS 24

void sa_cell_u64(struct sa_cell *x, uint64_t v)
{
	x->kind = SA_CELL_NUM;
	x->v.mag = v;
	x->v.neg = 0;
}

void sa_cell_str(struct sa_cell *x, const char *s)
{
	x->kind = SA_CELL_STR;
	x->s = s;
}

int sa_col_shown(const struct sa_table *t, const struct sa_col *c, enum sa_fmt fmt)
{
	unsigned int m = fmt == SA_FMT_TEXT ? c->text : fmt == SA_FMT_CSV ? c->csv : c->json;

	return (m & t->mode) != 0;
}

/* The columns of @t shown in @fmt, into @v; how many. */
static size_t shown(const struct sa_table *t, enum sa_fmt fmt, const struct sa_col **v)
{
	const struct sa_col *c;
	size_t n = 0;

	for (c = t->cols; c->title && n < MAX_COLS; c++)
		if (sa_col_shown(t, c, fmt))
			v[n++] = c;
	return n;
}

static const char *name_of(const struct sa_table *t, const struct sa_col *c, int last,
			   enum sa_fmt fmt)
{
	if (last && t->last_title)
		return t->last_title;
	return fmt != SA_FMT_TEXT && c->name ? c->name : c->title;
}

/* A cell as text (@fmt text or CSV, before CSV's quoting): in @buf, or a string of the row. */
static const char *cell_text(const struct sa_table *t, const struct sa_col *c,
			     const struct sa_cell *x, enum sa_fmt fmt, char *buf, size_t n)
{
	int text = fmt == SA_FMT_TEXT, plus = text && (t->plus || (c->flags & SA_COL_PLUS));
	char a[32], b[32];

	switch (x->kind) {
	case SA_CELL_NUM:
		if (text && (c->flags & SA_COL_AGE))
			fmt_age(buf, n, x->v.mag);
		else
			fmt_num(buf, n, x->v, (c->flags & SA_COL_BYTES) != 0,
				text && t->human, plus);
		return buf;
	case SA_CELL_PAIR:
		fmt_num(a, sizeof(a), x->v, 0, 0, plus);
		fmt_num(b, sizeof(b), x->v2, 0, 0, plus);
		snprintf(buf, n, "%s/%s", a, b);
		return buf;
	case SA_CELL_TENTHS:
		fmt_tenths(buf, n, x->v, plus);
		return buf;
	case SA_CELL_FLOAT:
		snprintf(buf, n, text ? "%.1f" : "%.2f", x->d);
		return buf;
	case SA_CELL_STR:
		return x->s;
	case SA_CELL_NONE:
		return text ? "-" : "";
	case SA_CELL_LIST:
	case SA_CELL_TABLE:
		break;
	}
	return "";
}

void sa_table_text(const struct sa_table *t)
{
	const struct sa_col *cols[MAX_COLS];
	size_t n = shown(t, SA_FMT_TEXT, cols), width[MAX_COLS], i, k;
	struct sa_cell x;
	char buf[64], *tmp;

	for (k = 0; k + 1 < n; k++) {
		width[k] = strlen(sa_esc_text(name_of(t, cols[k], 0, SA_FMT_TEXT), &tmp));
		free(tmp);
		for (i = 0; i < t->nrows; i++) {
			size_t w;

			t->cell(t, i, cols[k], SA_FMT_TEXT, &x);
			w = strlen(sa_esc_text(cell_text(t, cols[k], &x, SA_FMT_TEXT, buf,
							 sizeof(buf)), &tmp));
			free(tmp);
			if (w > width[k])
				width[k] = w;
		}
	}
	for (i = 0; i <= t->nrows; i++) {
		for (k = 0; k < n; k++) {
			const char *s;

			if (i) {
				t->cell(t, i - 1, cols[k], SA_FMT_TEXT, &x);
				s = cell_text(t, cols[k], &x, SA_FMT_TEXT, buf, sizeof(buf));
			} else {
				s = name_of(t, cols[k], k + 1 == n, SA_FMT_TEXT);
			}
			s = sa_esc_text(s, &tmp);
			if (k + 1 == n)
				printf("%s\n", s);
			else if (cols[k]->flags & SA_COL_LEFT)
				printf("%-*s ", (int)width[k], s);
			else
				printf("%*s ", (int)width[k], s);
			free(tmp);
		}
		if (i && t->after) {
			const char *a = t->after(t, i - 1);

			if (a)
				fputs(a, stdout);
		}
	}
}

/* The text of cell @i of column @c (@i 0: its title), escaped for a terminal (*@tmp: free it). */
static const char *text_at(const struct sa_table *t, size_t i, const struct sa_col *c, int last,
			   char *buf, size_t n, char **tmp)
{
	struct sa_cell x;

	if (!i)
		return sa_esc_text(name_of(t, c, last, SA_FMT_TEXT), tmp);
	t->cell(t, i - 1, c, SA_FMT_TEXT, &x);
	return sa_esc_text(cell_text(t, c, &x, SA_FMT_TEXT, buf, n), tmp);
}

/*
 * Fit columns of widths @w[@n] to @width: which to keep (@keep) and the
 * width each gets (@cut), as sa_table_text_fit() says.
 */
static void fit_columns(const struct sa_col *const *cols, size_t n, const size_t *w,
			size_t width, int *keep, size_t *cut)
{
	size_t need, k, best, extra;

	for (k = 0; k < n; k++) {
		keep[k] = 1;
		cut[k] = (cols[k]->flags & SA_COL_TRUNC) && w[k] > SA_TRUNC_MIN ? SA_TRUNC_MIN : w[k];
	}
	for (;;) {
		need = 0;
		for (k = 0; k < n; k++)
			need += keep[k] ? cut[k] + (need ? 1 : 0) : 0;
		if (need <= width)
			break;
		best = n;	/* the kept column of the lowest rank, never the last */
		for (k = 0; k + 1 < n; k++)
			if (keep[k] && SA_COL_RANK(cols[k]->flags) &&
			    (best == n || SA_COL_RANK(cols[k]->flags) < SA_COL_RANK(cols[best]->flags)))
				best = k;
		if (best == n)
			break;
		keep[best] = 0;
	}
	if (need <= width) {	/* the room left to the cut columns, in order */
		extra = width - need;
		for (k = 0; k < n; k++) {
			size_t add = keep[k] && w[k] - cut[k] < extra ? w[k] - cut[k] : extra;

			cut[k] += keep[k] ? add : 0;
			extra -= keep[k] ? add : 0;
		}
	} else if (n) {		/* the last column is cut to what is left */
		size_t others = need - cut[n - 1];

		cut[n - 1] = width > others + 4 ? width - others : 4;
	}
}

/*
 * Write @s in @cols columns, aligned left or right (@left), cut at its end
 * with the ellipsis @ell ("..." or one character of one column) when it is
 * wider; with @pad, spaces after it up to @cols.
 */
static void put_cell(const char *s, size_t cols, int left, int pad, const char *ell)
{
	size_t sw = sa_text_width(s), ew = strcmp(ell, "...") ? 1 : 3, len;

	if (sw > cols) {
		len = sa_text_fit(s, cols > ew ? cols - ew : cols, &sw);
		fwrite(s, 1, len, stdout);
		if (cols > ew) {
			fputs(ell, stdout);
			sw += ew;
		}
	} else {
		if (!left) {
			printf("%*s", (int)(cols - sw), "");
			sw = cols;
		}
		fputs(s, stdout);
	}
	if (pad && sw < cols)
		printf("%*s", (int)(cols - sw), "");
}

void sa_table_text_fit(const struct sa_table *t, size_t width)
{
	const struct sa_col *cols[MAX_COLS];
	size_t n, w[MAX_COLS], cut[MAX_COLS], i, k, last;
	int keep[MAX_COLS];
	const char *s, *ell;
	char buf[64], *tmp;

	if (!width) {
		sa_table_text(t);
		return;
	}
	ell = strcmp(nl_langinfo(CODESET), "UTF-8") ? "..." : "\xe2\x80\xa6";	/* U+2026 */
	n = shown(t, SA_FMT_TEXT, cols);
	for (k = 0; k < n; k++) {
		w[k] = 0;
		for (i = 0; i <= t->nrows; i++) {
			size_t sw = sa_text_width(text_at(t, i, cols[k], k + 1 == n, buf,
							  sizeof(buf), &tmp));

			free(tmp);
			w[k] = sw > w[k] ? sw : w[k];
		}
	}
	fit_columns(cols, n, w, width, keep, cut);
	for (last = n; last && !keep[last - 1]; last--)
		;
	for (i = 0; i <= t->nrows; i++) {
		int first = 1;

		for (k = 0; k < last; k++) {
			if (!keep[k])
				continue;
			if (!first)
				putchar(' ');
			first = 0;
			s = text_at(t, i, cols[k], k + 1 == n, buf, sizeof(buf), &tmp);
			put_cell(s, cut[k], k + 1 == last || (cols[k]->flags & SA_COL_LEFT),
				 k + 1 < last, ell);
			free(tmp);
		}
		putchar('\n');
		if (i && t->after) {
			const char *a = t->after(t, i - 1);

			if (a)
				fputs(a, stdout);
		}
	}
}

void sa_table_csv(const struct sa_table *t, const char *stamp, int no_header)
{
	const struct sa_col *cols[MAX_COLS];
	size_t n = shown(t, SA_FMT_CSV, cols), i, k;
	struct sa_cell x;
	char buf[64];

	for (i = no_header ? 1 : 0; i <= t->nrows; i++) {
		if (stamp)
			printf("%s,", i ? stamp : "time");
		for (k = 0; k < n; k++) {
			if (k)
				putchar(',');
			if (!i) {
				fputs(name_of(t, cols[k], k + 1 == n, SA_FMT_CSV), stdout);
				continue;
			}
			t->cell(t, i - 1, cols[k], SA_FMT_CSV, &x);
			if (x.kind == SA_CELL_STR)
				sa_esc_str(stdout, x.s, SA_ESC_CSV);
			else	/* a number: nothing to quote */
				fputs(cell_text(t, cols[k], &x, SA_FMT_CSV, buf, sizeof(buf)), stdout);
		}
		putchar('\n');
	}
}

void sa_table_json(const struct sa_table *t, struct sa_json *j)
{
	const struct sa_col *cols[MAX_COLS];
	size_t n = shown(t, SA_FMT_JSON, cols), i, k;
	struct sa_cell x;
	char buf[64];

	sa_json_open(j, '[', j->depth == 0);
	for (i = 0; i < t->nrows; i++) {
		sa_json_key(j, NULL);
		sa_json_open(j, '{', 0);
		for (k = 0; k < n; k++) {
			const char *name = name_of(t, cols[k], k + 1 == n, SA_FMT_JSON);

			t->cell(t, i, cols[k], SA_FMT_JSON, &x);
			if (x.kind == SA_CELL_NONE)
				continue;
			sa_json_key_sep(j, name, cols[k]->flags & SA_COL_BREAK ? ",\n     " : NULL);
			if (x.kind == SA_CELL_STR)
				sa_json_str(j, x.s);
			else if (x.kind == SA_CELL_LIST)
				sa_json_klist_value(j, x.list, x.nlist);
			else if (x.kind == SA_CELL_TABLE)
				sa_table_json(x.sub, j);
			else
				sa_json_raw(j, cell_text(t, cols[k], &x, SA_FMT_CSV, buf, sizeof(buf)));
		}
		sa_json_close(j);
	}
	sa_json_close(j);
}
