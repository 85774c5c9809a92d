// SPDX-License-Identifier: GPL-2.0
/*
 * pr_report - the report's table (see pr_report.h): its columns, declared
 * once for every format and for the report's four modes, and each row's
 * cells.
 */
#include "pr_report.h"

#include <string.h>

/* The report's modes: a file, --diff, --by, --by with --diff. */
enum { M_PLAIN = 1, M_DIFF = 2, M_BY = 4, M_BYDIFF = 8, M_ALL = 15 };
#define M_ONE (M_PLAIN | M_BY)		/* one file's rows */
#define M_TWO (M_DIFF | M_BYDIFF)	/* deltas */

/*
 * The columns; fitted to a terminal's width (sa_table_text_fit()), the type
 * is cut first, then columns are dropped from the least telling (live_req,
 * the peak, frag%, req ...) to the most (slack, live, total), and the
 * caller stays.
 */
enum { C_FIELD, C_ALLOCS_FREES, C_FRAG, C_STATUS, C_UNLOADED, C_TYPE, C_CALLER };
static const struct sa_col report_cols[] = {
	/* title, name, text, csv, json, flags, id */
	{ "total", NULL, M_ALL, M_ALL, M_ALL, SA_COL_BYTES | SA_COL_DROP(12), SA_TOTAL },
	{ "slack", NULL, M_ALL, M_ALL, M_ALL, SA_COL_BYTES | SA_COL_DROP(10), SA_SLACK },
	{ "req", NULL, M_ALL, M_ALL, M_ALL, SA_COL_BYTES | SA_COL_DROP(4), SA_REQ },
	{ "live", NULL, M_ALL, M_ALL, M_ALL, SA_COL_BYTES | SA_COL_DROP(11), SA_LIVE },
	{ "live_req", NULL, M_ONE, M_ONE, M_ONE, SA_COL_BYTES | SA_COL_DROP(1), SA_LIVE_REQ },
	{ "objs", NULL, M_ALL, M_ALL, M_ALL, SA_COL_DROP(6), SA_OBJS },
	{ "peak", NULL, M_ONE, M_ONE, M_ONE, SA_COL_BYTES | SA_COL_DROP(2), SA_PEAK },
	{ "allocs/frees", NULL, M_ONE, 0, 0, SA_COL_DROP(5), 100 * C_ALLOCS_FREES },
	{ "allocs", NULL, M_TWO, M_ALL, M_ALL, SA_COL_DROP(5), SA_ALLOCS },
	{ "frees", NULL, M_TWO, M_ALL, M_ALL, SA_COL_DROP(5), SA_FREES },
	{ "frag%", "frag", M_ONE, M_ONE, M_ONE, SA_COL_DROP(3), 100 * C_FRAG },
	{ "sites", NULL, M_BY | M_BYDIFF, M_BY | M_BYDIFF, M_BY | M_BYDIFF, SA_COL_DROP(7),
	  SA_KEY_SITES },
	{ "status", NULL, M_TWO, M_TWO, M_TWO, SA_COL_LEFT | SA_COL_DROP(9), 100 * C_STATUS },
	/* (1.3) N of a retired row's " unloaded#N", else 0 (JSON only: the
	 * CSV's columns stay those scripts read by position) */
	{ "unloaded", NULL, 0, 0, M_PLAIN | M_DIFF, 0, 100 * C_UNLOADED },
	{ "type", NULL, M_PLAIN | M_DIFF, M_PLAIN | M_DIFF, M_PLAIN | M_DIFF,
	  SA_COL_LEFT | SA_COL_TRUNC | SA_COL_DROP(8), 100 * C_TYPE },
	{ "caller", NULL, M_ALL, M_ALL, M_ALL, SA_COL_LEFT, 100 * C_CALLER },
	{ NULL, NULL, 0, 0, 0, 0, 0 },
};

static const char *const status_names[] = { "", "common", "new", "gone" };

static void report_cell(const struct sa_table *t, size_t row, const struct sa_col *c,
			enum sa_fmt fmt, struct sa_cell *out)
{
	const struct sa_rows *r = t->ctx;
	const struct sa_item *it = &r->items[row];

	(void)fmt;
	switch (c->id / 100) {
	case C_FIELD:
		out->kind = SA_CELL_NUM;
		out->v = it->v[c->id];
		break;
	case C_ALLOCS_FREES:
		out->kind = SA_CELL_PAIR;
		out->v = it->v[SA_ALLOCS];
		out->v2 = it->v[SA_FREES];
		break;
	case C_FRAG:
		out->kind = SA_CELL_FLOAT;
		out->d = sa_item_frag(it);
		break;
	case C_STATUS:
		sa_cell_str(out, status_names[it->st]);
		break;
	case C_UNLOADED:
		sa_cell_u64(out, it->row->retired ? it->row->load : 0);
		break;
	case C_TYPE:
		sa_cell_str(out, it->row->type_str);
		break;
	default:
		sa_cell_str(out, it->row->caller);
		break;
	}
}

void pr_report_table(const struct sa_rows *r, int human, struct sa_table *t)
{
	const struct sa_select *s = r->sel;

	memset(t, 0, sizeof(*t));
	t->cols = report_cols;
	t->mode = s->by ? (r->old ? M_BYDIFF : M_BY) : r->old ? M_DIFF : M_PLAIN;
	t->nrows = r->n;
	t->cell = report_cell;
	t->last_title = s->by ? sa_by_names[s->by] : NULL;
	t->human = human;
	t->plus = r->old != NULL;
	t->ctx = r;
}
