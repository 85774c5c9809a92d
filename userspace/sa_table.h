// SPDX-License-Identifier: GPL-2.0
/*
 * sa_table - the one column table model, and its printers: an aligned
 * text table, CSV and the rows of a JSON document.  A table is a list of
 * columns and a function that gives a row's cell in a column; each column
 * says in which of the owner's modes (the report's plain, --diff, --by ...)
 * it is part of the text table, of CSV and of JSON.  The report, --leaks
 * and --advise declare their columns once; every format prints them.
 */
#ifndef SA_TABLE_H
#define SA_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "sa_json.h"
#include "sa_num.h"

enum sa_fmt { SA_FMT_TEXT, SA_FMT_CSV, SA_FMT_JSON };

/* Column flags. */
#define SA_COL_BYTES	0x01	/* a number of bytes: K/M/G with -H (text) */
#define SA_COL_PLUS	0x02	/* '+' before positive numbers (text; t->plus: every column) */
#define SA_COL_LEFT	0x04	/* aligned left (text) */
#define SA_COL_AGE	0x08	/* a number of seconds, as 3m10s (text) */
#define SA_COL_BREAK	0x10	/* JSON: on a line of its own */
#define SA_COL_TRUNC	0x20	/* text fitted to a width: cut (with an ellipsis) before any drop */
/*
 * Text fitted to a width: the columns of rank 1 are dropped first, then
 * those of rank 2 ... up to 15; a column without a rank is never dropped.
 */
#define SA_COL_DROP(rank)	((unsigned int)(rank) << 8)
#define SA_COL_RANK(flags)	(((flags) >> 8) & 0xf)

struct sa_col {
	const char *title;	/* text title and CSV/JSON name (unless @name) */
	const char *name;	/* CSV/JSON name when it differs; NULL: @title */
	unsigned int text, csv, json;	/* modes (bits) it is shown in, per format */
	unsigned int flags;
	int id;			/* the owner's meaning, for its cell function */
};

enum sa_cell_kind {
	SA_CELL_NUM,	/* v: a signed number */
	SA_CELL_PAIR,	/* v and v2 as "v/v2" (text) */
	SA_CELL_TENTHS,	/* v: tenths, written with one decimal */
	SA_CELL_FLOAT,	/* d with 1 decimal in text, 2 in CSV/JSON */
	SA_CELL_STR,	/* s */
	SA_CELL_LIST,	/* list[nlist]: a JSON array */
	SA_CELL_TABLE,	/* sub: a JSON array of objects */
	SA_CELL_NONE,	/* text "-", CSV empty, no JSON member */
};

struct sa_table;

struct sa_cell {
	enum sa_cell_kind kind;
	struct num v, v2;
	double d;
	const char *s;
	const uint64_t *list;
	size_t nlist;
	const struct sa_table *sub;
};

struct sa_table {
	const struct sa_col *cols;	/* ended by a column without title */
	unsigned int mode;		/* the owner's mode: one bit */
	size_t nrows;
	/* the cell of row @row in column @c, for format @fmt */
	void (*cell)(const struct sa_table *t, size_t row, const struct sa_col *c,
		     enum sa_fmt fmt, struct sa_cell *out);
	/* text: what to print after row @row (lines), or NULL */
	const char *(*after)(const struct sa_table *t, size_t row);
	const char *last_title;		/* text/CSV/JSON name of the last column, if not NULL */
	int human;			/* -H */
	int plus;			/* text: '+' before every positive number */
	const void *ctx;		/* the owner's */
};

/* A cell of a number, of a string. */
void sa_cell_u64(struct sa_cell *x, uint64_t v);
void sa_cell_str(struct sa_cell *x, const char *s);

/* Is column @c shown in format @fmt of table @t? */
int sa_col_shown(const struct sa_table *t, const struct sa_col *c, enum sa_fmt fmt);

/* The text table: a title line, then the rows; the last column unpadded. */
void sa_table_text(const struct sa_table *t);

/*
 * The text table fitted to @width columns of a terminal (0: not fitted,
 * sa_table_text()), aligned by display width (sa_text_width()): when its
 * lines are wider, the SA_COL_TRUNC columns are cut to SA_TRUNC_MIN
 * columns at least, then columns are dropped by rank until the lines fit
 * (the cut columns then get back the room left, in order); the last column
 * is never dropped, and cut (at its end, with an ellipsis) only when it
 * cannot fit with every droppable column dropped.
 */
void sa_table_text_fit(const struct sa_table *t, size_t width);
#define SA_TRUNC_MIN 10

/*
 * CSV: the header line (unless @no_header) and the rows; with @stamp a
 * first column "time" holding it.
 */
void sa_table_csv(const struct sa_table *t, const char *stamp, int no_header);

/* The rows as a JSON array of inline objects (the value of the current key). */
void sa_table_json(const struct sa_table *t, struct sa_json *j);

#endif /* SA_TABLE_H */
