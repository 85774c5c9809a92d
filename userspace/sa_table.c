// SPDX-License-Identifier: GPL-2.0
/*
 * sa_table - the column table model's printers: text, CSV and JSON (see
 * sa_table.h).
 */
#include "sa_table.h"

#include <inttypes.h>
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
