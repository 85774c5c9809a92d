// SPDX-License-Identifier: GPL-2.0
/*
 * slabacct - read /proc/slab_account: sort, filter, diff and export the
 * per call site slab accounting of the slab_account module, or the same
 * account built from a kmem trace (--from-trace, sa_trace.c).
 */
#define _DEFAULT_SOURCE

#include "sa_detail.h"
#include "sa_parse.h"
#include "sa_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define SLABACCT_VERSION "1.0"
#define EXIT_USAGE 2
#define MAX_KEYS 4		/* -s a,b,c,d */
#define MIN_INTERVAL 0.1	/* seconds, as watch(1) */

/* ---- options ---- */

/*
 * Sort keys: an enum sa_field, or these.  KEY_SITES (--by: the call sites
 * in a group) is also the index of that count in an item's values.
 */
enum { KEY_SITES = SA_NFIELDS, KEY_FRAG, KEY_CALLER };
#define NVALUES (SA_NFIELDS + 1)	/* an item's values: the fields, then sites */

/* --by: how rows are grouped. */
enum by_key { BY_NONE, BY_MODULE, BY_FUNCTION, BY_CACHE, BY_TYPE };
static const char *const by_names[] = { "", "module", "function", "cache", "type" };
enum format { FMT_TEXT, FMT_CSV, FMT_JSON, FMT_METRICS, FMT_FOLDED, FMT_SVG };
#define SVG_TOP 30		/* --svg: call sites named when -n is not given */
#define SVG_W 1200
#define SVG_H 800
#define SVG_HEAD 28		/* the title line */
#define METRICS_TOP 50		/* --openmetrics: call sites when -n is not given */
enum summary_mode { SUM_BOTH, SUM_ONLY, SUM_NONE };

struct opts {
	int keys[MAX_KEYS];	/* sort keys: an enum sa_field, KEY_SITES, KEY_FRAG or KEY_CALLER */
	size_t nkeys;
	int reverse;
	uint64_t top;		/* 0: all rows */
	int only_kmalloc, only_cache;
	char *cache_name;	/* with only_cache: this cache only */
	const char *module;	/* "vmlinux": rows without a module */
	const char *grep;
	uint64_t min_size, max_size;	/* -z, -Z: average allocation; 0: none */
	int min_set;
	uint64_t min;		/* --min: the first sort key at least this */
	int human;
	enum format fmt;
	enum summary_mode summary;
	int diff, all;
	enum by_key by;		/* --by: group the rows */
	int watch, batch, delta;
	int in_watch;		/* a refresh of --watch is being written */
	double interval;
	uint64_t count;		/* watch refreshes; 0: forever */
	const char *output;	/* -o FILE, replaced atomically; NULL: stdout */
	const char *stamp;	/* --watch --csv: the refresh's time, a first column */
	int no_header;		/* --watch --csv: the header line was written */
	size_t max_input;
	int leaks, advise;	/* --leaks, --advise */
	int once;		/* --once */
	const char *detail;	/* --detail FILE */
	uint64_t min_age;	/* --leaks-min-age */
	const char *from_trace;	/* --from-trace FILE */
	const char *kallsyms;	/* --kallsyms FILE */
	struct sa_kallsyms *ks;	/* its symbols, loaded in main() */
};

static const struct {
	const char *name;
	int key;
} sort_keys[] = {
	{ "total", SA_TOTAL }, { "slack", SA_SLACK }, { "waste", SA_SLACK },
	{ "req", SA_REQ }, { "live", SA_LIVE }, { "live_req", SA_LIVE_REQ },
	{ "objs", SA_OBJS }, { "peak", SA_PEAK }, { "allocs", SA_ALLOCS },
	{ "hit", SA_ALLOCS }, { "frees", SA_FREES }, { "frag", KEY_FRAG },
	{ "caller", KEY_CALLER }, { "sites", KEY_SITES },
};

/* ---- numbers: a sign and a magnitude, so that deltas are exact ---- */

struct num {
	uint64_t mag;
	int neg;
};

static int num_cmp(struct num a, struct num b)
{
	if (a.neg != b.neg)
		return a.neg ? -1 : 1;
	if (a.mag == b.mag)
		return 0;
	return (a.mag < b.mag) != a.neg ? -1 : 1;
}

static struct num num_delta(uint64_t old, uint64_t new)
{
	struct num d = { new >= old ? new - old : old - new, new < old };

	return d;
}

static int is_bytes(int field)
{
	return field != SA_OBJS && field != SA_ALLOCS && field != SA_FREES &&
	       field != KEY_SITES;
}

/* @v with K/M/G/... suffixes (1024 base, one decimal); plain below 1024. */
static void human(char *buf, size_t n, uint64_t v)
{
	static const char units[] = "KMGTPE";
	uint64_t d = 1024, tenths;
	int u = 0;

	if (v < 1024) {
		snprintf(buf, n, "%" PRIu64, v);
		return;
	}
	while (u < 5 && v / d >= 1024) {
		d *= 1024;
		u++;
	}
	tenths = v / d * 10 + (v % d * 10 + d / 2) / d;
	if (tenths >= 10240 && u < 5) {		/* 1023.95K rounds to 1.0M */
		d *= 1024;
		u++;
		tenths = v / d * 10 + (v % d * 10 + d / 2) / d;
	}
	snprintf(buf, n, "%" PRIu64 ".%" PRIu64 "%c", tenths / 10, tenths % 10,
		 units[u]);
}

/* @v as text: human if asked and @bytes, '+' on positive deltas if @plus. */
static void fmt_num(char *buf, size_t n, struct num v, int bytes, int hum,
		    int plus)
{
	const char *sign = v.neg ? "-" : plus && v.mag ? "+" : "";
	char digits[32];

	if (hum && bytes)
		human(digits, sizeof(digits), v.mag);
	else
		snprintf(digits, sizeof(digits), "%" PRIu64, v.mag);
	/* (Not snprintf: some targets' gcc warns it may truncate.) */
	buf[0] = '\0';
	strncat(buf, sign, n - 1);
	strncat(buf, digits, n - 1 - strlen(buf));
}

/* ---- the rows to show: a file's rows, or the deltas of two files ---- */

enum status { ST_NONE, ST_COMMON, ST_NEW, ST_GONE };
static const char *const status_names[] = { "", "common", "new", "gone" };

struct item {
	const struct sa_row *row;	/* type and caller (OLD's for gone rows) */
	struct num v[NVALUES];	/* the fields, then (KEY_SITES) the call sites */
	enum status st;
	size_t order;
};

static double frag(const struct item *it)
{
	struct num t = it->v[SA_TOTAL], r = it->v[SA_REQ];

	if (t.neg || r.neg || t.mag == 0)
		return 0.0;
	return 100.0 - 100.0 * (double)r.mag / (double)t.mag;
}

/* A site's average allocation: total / allocs, or live / objs after a reset. */
static uint64_t avg_size(const struct sa_row *r)
{
	if (r->v[SA_ALLOCS])
		return r->v[SA_TOTAL] / r->v[SA_ALLOCS];
	return r->v[SA_OBJS] ? r->v[SA_LIVE] / r->v[SA_OBJS] : 0;
}

static int keep_row(const struct opts *o, const struct sa_row *r)
{
	size_t n;
	const char *mod;

	if (o->only_kmalloc && r->type != SA_TYPE_KMALLOC)
		return 0;
	if (o->only_cache && (r->type != SA_TYPE_CACHE ||
			      (o->cache_name && (!r->cache ||
						 strcmp(r->cache, o->cache_name)))))
		return 0;
	if (o->module) {
		mod = sa_caller_module(r->caller, &n);
		if (strcmp(o->module, "vmlinux") == 0 ? mod != NULL :
		    !mod || n != strlen(o->module) || memcmp(mod, o->module, n))
			return 0;
	}
	if (o->min_size || o->max_size) {
		uint64_t avg = avg_size(r);

		if (avg < o->min_size || (o->max_size && avg > o->max_size))
			return 0;
	}
	return !o->grep || strstr(r->caller, o->grep);
}

static const struct opts *sort_opts;	/* qsort() has no context argument */

static int key_cmp(const struct item *a, const struct item *b, int key)
{
	if (key == KEY_CALLER)
		return strcmp(a->row->caller, b->row->caller);
	if (key == KEY_FRAG) {
		double fa = frag(a), fb = frag(b);

		return (fa < fb) - (fa > fb);
	}
	return -num_cmp(a->v[key], b->v[key]);
}

static int item_cmp(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;
	size_t k;
	int c = 0;

	for (k = 0; k < sort_opts->nkeys && !c; k++)
		c = key_cmp(a, b, sort_opts->keys[k]);
	if (sort_opts->reverse)
		c = -c;
	if (!c)
		c = strcmp(a->row->caller, b->row->caller);
	if (!c)
		c = (a->order > b->order) - (a->order < b->order);
	return c;
}

/* How many rows passed the filters, by status, and how many of them were unchanged. */
struct counts {
	size_t status[4];
	size_t unchanged;
};

/* Is the item's first sort key at least --min? */
static int above_min(const struct opts *o, const struct item *it)
{
	struct num min = { o->min, 0 };

	if (o->keys[0] == KEY_FRAG)
		return frag(it) >= (double)o->min;
	return num_cmp(it->v[o->keys[0]], min) >= 0;
}

/* The number of call sites in a row of @f: a group's count with --by, else 1. */
static uint64_t row_sites(const struct sa_file *f, const uint64_t *sites,
			  const struct sa_row *r)
{
	return sites ? sites[r - f->rows] : 1;
}

/*
 * Add the item of @old -> @new (either may be NULL) if it passes the
 * filters.  With --by the rows are groups, which were built from the call
 * sites that passed the filters: only --min is left to apply.
 */
static void add_item(struct item *items, size_t *n, struct counts *cnt,
		     const struct opts *o, const struct sa_row *old,
		     const struct sa_row *new, uint64_t osites, uint64_t nsites)
{
	struct item *it = &items[*n];
	int i;

	it->row = new ? new : old;
	if (!o->by && !keep_row(o, it->row))
		return;
	it->st = !o->diff ? ST_NONE : !old ? ST_NEW : !new ? ST_GONE : ST_COMMON;
	for (i = 0; i < SA_NFIELDS; i++)
		it->v[i] = num_delta(old ? old->v[i] : 0, new ? new->v[i] : 0);
	it->v[KEY_SITES] = num_delta(old ? osites : 0, new ? nsites : 0);
	if (it->st == ST_COMMON) {
		for (i = 0; i < NVALUES && !it->v[i].mag; i++)
			;
		if (i == NVALUES) {
			cnt->unchanged++;
			if (!o->all)
				return;
		}
	}
	if (o->min_set && !above_min(o, it))
		return;
	cnt->status[it->st]++;
	it->order = (*n)++;
}

static int row_ptr_cmp(const void *pa, const void *pb)
{
	const struct sa_row *a = *(const struct sa_row *const *)pa;
	const struct sa_row *b = *(const struct sa_row *const *)pb;
	int c = strcmp(a->caller, b->caller);

	return c ? c : (a->line > b->line) - (a->line < b->line);
}

static const struct sa_row **sorted_rows(const struct sa_file *f)
{
	const struct sa_row **v = calloc(f->nrows + 1, sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < f->nrows; i++)
		v[i] = &f->rows[i];
	qsort(v, f->nrows, sizeof(*v), row_ptr_cmp);
	return v;
}

/*
 * The items to show: @new's rows, or with @old the per call site deltas
 * OLD -> NEW.  Sites are matched by caller string; should one caller appear
 * more than once in a file (raw addresses under kptr_restrict), the k-th
 * occurrence in OLD pairs with the k-th in NEW.
 */
static struct item *build_items(const struct opts *o, const struct sa_file *old,
				const struct sa_file *new, const uint64_t *osites,
				const uint64_t *nsites, size_t *nitems,
				struct counts *cnt)
{
	size_t max = new->nrows + (old ? old->nrows : 0), n = 0, i = 0, j = 0;
	struct item *items = calloc(max + 1, sizeof(*items));
	const struct sa_row **a = NULL, **b = NULL;

	if (!items)
		return NULL;
	if (!old) {
		for (i = 0; i < new->nrows; i++)
			add_item(items, &n, cnt, o, NULL, &new->rows[i], 0,
				 row_sites(new, nsites, &new->rows[i]));
	} else {
		a = sorted_rows(old);
		b = sorted_rows(new);
		if (!a || !b) {
			free(a);
			free(b);
			free(items);
			return NULL;
		}
		while (i < old->nrows || j < new->nrows) {
			int c = i == old->nrows ? 1 : j == new->nrows ? -1 :
				strcmp(a[i]->caller, b[j]->caller);

			add_item(items, &n, cnt, o, c <= 0 ? a[i] : NULL,
				 c >= 0 ? b[j] : NULL,
				 c <= 0 ? row_sites(old, osites, a[i]) : 0,
				 c >= 0 ? row_sites(new, nsites, b[j]) : 0);
			i += c <= 0;
			j += c >= 0;
		}
		free(a);
		free(b);
	}
	sort_opts = o;
	qsort(items, n, sizeof(*items), item_cmp);
	*nitems = o->top && o->top < n ? (size_t)o->top : n;
	return items;
}

/* ---- columns ---- */

enum col_kind { COL_FIELD, COL_ALLOCS_FREES, COL_FRAG, COL_STATUS, COL_TYPE, COL_CALLER };

struct column {
	const char *title;
	enum col_kind kind;
	int field;
};

static const struct column text_cols[] = {
	{ "total", COL_FIELD, SA_TOTAL }, { "slack", COL_FIELD, SA_SLACK },
	{ "req", COL_FIELD, SA_REQ }, { "live", COL_FIELD, SA_LIVE },
	{ "live_req", COL_FIELD, SA_LIVE_REQ }, { "objs", COL_FIELD, SA_OBJS },
	{ "peak", COL_FIELD, SA_PEAK }, { "allocs/frees", COL_ALLOCS_FREES, 0 },
	{ "frag%", COL_FRAG, 0 }, { "type", COL_TYPE, 0 },
	{ "caller", COL_CALLER, 0 }, { NULL, 0, 0 },
};
static const struct column machine_cols[] = {
	{ "total", COL_FIELD, SA_TOTAL }, { "slack", COL_FIELD, SA_SLACK },
	{ "req", COL_FIELD, SA_REQ }, { "live", COL_FIELD, SA_LIVE },
	{ "live_req", COL_FIELD, SA_LIVE_REQ }, { "objs", COL_FIELD, SA_OBJS },
	{ "peak", COL_FIELD, SA_PEAK }, { "allocs", COL_FIELD, SA_ALLOCS },
	{ "frees", COL_FIELD, SA_FREES }, { "frag", COL_FRAG, 0 },
	{ "type", COL_TYPE, 0 }, { "caller", COL_CALLER, 0 }, { NULL, 0, 0 },
};
/* A diff shows the deltas of these; text and machine formats alike. */
static const struct column diff_cols[] = {
	{ "total", COL_FIELD, SA_TOTAL }, { "slack", COL_FIELD, SA_SLACK },
	{ "req", COL_FIELD, SA_REQ }, { "live", COL_FIELD, SA_LIVE },
	{ "objs", COL_FIELD, SA_OBJS }, { "allocs", COL_FIELD, SA_ALLOCS },
	{ "frees", COL_FIELD, SA_FREES }, { "status", COL_STATUS, 0 },
	{ "type", COL_TYPE, 0 }, { "caller", COL_CALLER, 0 }, { NULL, 0, 0 },
};

/* --by: a group's columns; the last one is titled after the key (module, ...). */
static const struct column by_text_cols[] = {
	{ "total", COL_FIELD, SA_TOTAL }, { "slack", COL_FIELD, SA_SLACK },
	{ "req", COL_FIELD, SA_REQ }, { "live", COL_FIELD, SA_LIVE },
	{ "live_req", COL_FIELD, SA_LIVE_REQ }, { "objs", COL_FIELD, SA_OBJS },
	{ "peak", COL_FIELD, SA_PEAK }, { "allocs/frees", COL_ALLOCS_FREES, 0 },
	{ "frag%", COL_FRAG, 0 }, { "sites", COL_FIELD, KEY_SITES },
	{ "caller", COL_CALLER, 0 }, { NULL, 0, 0 },
};
static const struct column by_machine_cols[] = {
	{ "total", COL_FIELD, SA_TOTAL }, { "slack", COL_FIELD, SA_SLACK },
	{ "req", COL_FIELD, SA_REQ }, { "live", COL_FIELD, SA_LIVE },
	{ "live_req", COL_FIELD, SA_LIVE_REQ }, { "objs", COL_FIELD, SA_OBJS },
	{ "peak", COL_FIELD, SA_PEAK }, { "allocs", COL_FIELD, SA_ALLOCS },
	{ "frees", COL_FIELD, SA_FREES }, { "frag", COL_FRAG, 0 },
	{ "sites", COL_FIELD, KEY_SITES }, { "caller", COL_CALLER, 0 },
	{ NULL, 0, 0 },
};
static const struct column by_diff_cols[] = {
	{ "total", COL_FIELD, SA_TOTAL }, { "slack", COL_FIELD, SA_SLACK },
	{ "req", COL_FIELD, SA_REQ }, { "live", COL_FIELD, SA_LIVE },
	{ "objs", COL_FIELD, SA_OBJS }, { "allocs", COL_FIELD, SA_ALLOCS },
	{ "frees", COL_FIELD, SA_FREES }, { "sites", COL_FIELD, KEY_SITES },
	{ "status", COL_STATUS, 0 }, { "caller", COL_CALLER, 0 }, { NULL, 0, 0 },
};

/* A column's title: with --by the caller column is the group's name. */
static const char *col_title(const struct opts *o, const struct column *c)
{
	return o->by && c->kind == COL_CALLER ? by_names[o->by] : c->title;
}

static int is_string_col(const struct column *c)
{
	return c->kind >= COL_STATUS;
}

/*
 * The text of one cell: in @buf, or a string of the row.  @text: the table
 * (human units if asked, '+' on positive deltas); else a machine format
 * (raw numbers).
 */
static const char *cell(const struct opts *o, const struct item *it,
			const struct column *c, int text, char *buf, size_t n)
{
	int hum = text && o->human, plus = text && o->diff;
	char a[32], f[32];

	switch (c->kind) {
	case COL_FIELD:
		fmt_num(buf, n, it->v[c->field], is_bytes(c->field), hum, plus);
		return buf;
	case COL_ALLOCS_FREES:
		fmt_num(a, sizeof(a), it->v[SA_ALLOCS], 0, 0, plus);
		fmt_num(f, sizeof(f), it->v[SA_FREES], 0, 0, plus);
		snprintf(buf, n, "%s/%s", a, f);
		return buf;
	case COL_FRAG:
		snprintf(buf, n, text ? "%.1f" : "%.2f", frag(it));
		return buf;
	case COL_STATUS:
		return status_names[it->st];
	case COL_TYPE:
		return it->row->type_str;
	case COL_CALLER:
		return it->row->caller;
	}
	return "";
}

static const struct column *columns_for(const struct opts *o, int text)
{
	if (o->by)
		return o->diff ? by_diff_cols : text ? by_text_cols : by_machine_cols;
	return o->diff ? diff_cols : text ? text_cols : machine_cols;
}

static size_t utf8_len(const unsigned char *s);

/*
 * @s made safe for a terminal: control characters (C0, DEL, C1 as UTF-8)
 * and bytes that are not UTF-8 written as \xHH.  Returns @s itself when it
 * is safe, else a string in *@tmp (malloc()ed; free it) or "?" without memory.
 */
static const char *text_safe(const char *s, char **tmp)
{
	const unsigned char *p;
	char *d;
	size_t n;

	*tmp = NULL;
	for (p = (const unsigned char *)s; *p; p += n) {
		n = utf8_len(p);
		if (!n || *p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] < 0xa0))
			break;
	}
	if (!*p)
		return s;
	*tmp = d = malloc(strlen(s) * 4 + 1);
	if (!d)
		return "?";
	for (p = (const unsigned char *)s; *p; p += n) {
		n = utf8_len(p);
		if (!n || *p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] < 0xa0)) {
			size_t k, m = n ? n : 1;

			for (k = 0; k < m; k++)
				d += sprintf(d, "\\x%02x", p[k]);
			n = m;
		} else {
			memcpy(d, p, n);
			d += n;
		}
	}
	*d = '\0';
	return *tmp;
}

static void print_table(const struct opts *o, const struct item *items, size_t n)
{
	const struct column *cols = columns_for(o, 1), *c;
	size_t width[16] = { 0 }, i, k;
	char buf[64], *tmp;

	for (c = cols, k = 0; c->title; c++, k++) {
		width[k] = strlen(col_title(o, c));
		for (i = 0; i < n && c->kind != COL_CALLER; i++) {
			size_t w = strlen(text_safe(cell(o, &items[i], c, 1, buf, sizeof(buf)), &tmp));

			free(tmp);
			if (w > width[k])
				width[k] = w;
		}
	}
	for (i = 0; i <= n; i++) {
		for (c = cols, k = 0; c->title; c++, k++) {
			const char *s = i ? cell(o, &items[i - 1], c, 1, buf, sizeof(buf)) :
					col_title(o, c);
			int w = (int)width[k];

			s = text_safe(s, &tmp);
			if (c->kind == COL_CALLER)
				printf("%s\n", s);
			else if (is_string_col(c))
				printf("%-*s ", w, s);
			else
				printf("%*s ", w, s);
			free(tmp);
		}
	}
}

/* A file name in the text report. */
static void print_name(const char *name)
{
	char *tmp;

	fputs(text_safe(name, &tmp), stdout);
	free(tmp);
}

/* ---- machine formats ---- */

static void csv_string(const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void print_csv(const struct opts *o, const struct item *items, size_t n)
{
	const struct column *cols = columns_for(o, 0), *c;
	char buf[64];
	size_t i;

	for (i = o->no_header ? 1 : 0; i <= n; i++) {
		if (o->stamp)
			printf("%s,", i ? o->stamp : "time");
		for (c = cols; c->title; c++) {
			if (c != cols)
				putchar(',');
			if (!i)
				fputs(col_title(o, c), stdout);
			else
				csv_string(cell(o, &items[i - 1], c, 0, buf, sizeof(buf)));
		}
		putchar('\n');
	}
}

/* Length of the valid UTF-8 sequence at @s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* @s as a JSON string; bytes that are not UTF-8 become U+FFFD. */
static void json_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putchar('"');
	while (*p) {
		size_t n = utf8_len(p);

		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else if (n)
			fwrite(p, 1, n, stdout);
		else
			fputs("\\ufffd", stdout);
		p += n ? n : 1;
	}
	putchar('"');
}

static void json_value(const struct sa_summary *e)
{
	if (!e)
		fputs("null", stdout);
	else if (e->is_num)
		printf("%" PRIu64, e->num);
	else
		json_string(e->value);
}

static void json_summary(const struct sa_file *old, const struct sa_file *new)
{
	size_t i, k = 0;

	fputs("  \"summary\": {", stdout);
	for (i = 0; i < new->nsummary + (old ? old->nsummary : 0); i++) {
		const struct sa_summary *e = i < new->nsummary ? &new->summary[i] :
					     &old->summary[i - new->nsummary];
		const struct sa_summary *eo, *en;

		if (i >= new->nsummary && sa_summary_get(new, e->key))
			continue;	/* OLD's keys that NEW lacks come last */
		printf("%s\n    ", k++ ? "," : "");
		json_string(e->key);
		fputs(": ", stdout);
		if (!old) {
			json_value(e);
			continue;
		}
		eo = sa_summary_get(old, e->key);
		en = sa_summary_get(new, e->key);
		fputs("{\"old\": ", stdout);
		json_value(eo);
		fputs(", \"new\": ", stdout);
		json_value(en);
		if (eo && en && eo->is_num && en->is_num) {
			struct num d = num_delta(eo->num, en->num);

			printf(", \"delta\": %s%" PRIu64, d.neg ? "-" : "", d.mag);
		}
		putchar('}');
	}
	printf("%s}", k ? "\n  " : "");
}

static void print_json(const struct opts *o, const struct sa_file *old,
		       const struct sa_file *new, const struct item *items,
		       size_t n)
{
	const struct column *cols = columns_for(o, 0), *c;
	char buf[64];
	size_t i;

	fputs("{\n", stdout);
	if (old) {
		fputs("  \"old\": ", stdout);
		json_string(old->name);
		fputs(",\n  \"new\": ", stdout);
	} else {
		fputs("  \"file\": ", stdout);
	}
	json_string(new->name);
	printf(",\n  \"version\": \"%" PRIu64 ".%" PRIu64 "\"", new->major, new->minor);
	if (o->by)
		printf(",\n  \"by\": \"%s\"", by_names[o->by]);
	if (o->summary != SUM_NONE) {
		fputs(",\n", stdout);
		json_summary(old, new);
	}
	if (o->summary != SUM_ONLY) {
		fputs(",\n  \"rows\": [", stdout);
		for (i = 0; i < n; i++) {
			printf("%s\n    {", i ? "," : "");
			for (c = cols; c->title; c++) {
				const char *s = cell(o, &items[i], c, 0, buf, sizeof(buf));

				printf("%s\"%s\": ", c == cols ? "" : ", ", col_title(o, c));
				if (is_string_col(c))
					json_string(s);
				else
					fputs(s, stdout);
			}
			putchar('}');
		}
		printf("%s]", n ? "\n  " : "");
	}
	fputs("\n}\n", stdout);
}

/* ---- --openmetrics: the Prometheus text exposition format (0.0.4) ---- */

#define MP "slab_account_"

/* The summary lines as metrics; TYPE counter names end in _total. */
static const struct {
	const char *key, *name, *type, *help;
} metric_keys[] = {
	{ "total bytes allocated", MP "allocated_bytes_total", "counter", "Bytes allocated (slab object sizes) since load or reset, all call sites." },
	{ "total bytes requested", MP "requested_bytes_total", "counter", "Bytes requested by the callers since load or reset, all call sites." },
	{ "slack bytes allocated", MP "slack_bytes_total", "counter", "Bytes allocated beyond the request (allocated - requested) since load or reset." },
	{ "current bytes allocated", MP "live_bytes", "gauge", "Bytes of the objects allocated and not freed." },
	{ "current bytes requested", MP "live_requested_bytes", "gauge", "Requested bytes of the objects allocated and not freed." },
	{ "current objects", MP "live_objects", "gauge", "Objects allocated and not freed." },
	{ "number of allocs", MP "allocs_total", "counter", "Allocations since load or reset." },
	{ "number of frees", MP "frees_total", "counter", "Frees since load or reset." },
	{ "number of callers", MP "callers", "gauge", "Call sites in the file (rows)." },
	{ "failed allocs", MP "failed_allocs_total", "counter", "Allocation events that returned NULL (not tracked)." },
	{ "unknown frees", MP "unknown_frees_total", "counter", "Frees of pointers the object table did not hold." },
	{ "missed frees", MP "missed_frees_total", "counter", "Allocations of pointers still live in the table (their free was not seen)." },
	{ "dropped objects", MP "dropped_objects_total", "counter", "Allocations not tracked: the object table was full." },
	{ "dropped sites", MP "dropped_sites_total", "counter", "Allocations not tracked: the call-site table was full." },
	{ "tracked objects", MP "tracked_objects", "gauge", "Live objects in the object table." },
	{ "object capacity", MP "object_capacity", "gauge", "Slots in the object table (max_objects)." },
	{ "call sites", MP "call_sites", "gauge", "Call sites in the call-site table." },
	{ "call site capacity", MP "call_site_capacity", "gauge", "Slots in the call-site table (max_sites)." },
	{ "table memory", MP "table_memory_bytes", "gauge", "Bytes of memory the module's tables use." },
	{ "missed hook calls", MP "missed_hook_calls_total", "counter", "Calls of a hooked function its kprobe did not handle." },
	{ "resized in place", MP "resized_in_place_total", "counter", "krealloc() calls that kept the object in place." },
	{ "unknown resizes", MP "unknown_resizes_total", "counter", "Resizes in place of objects the table did not hold." },
	{ "reported twice", MP "reported_twice_total", "counter", "Allocations the kernel reported twice, counted once." },
	{ "trace events", MP "trace_events_total", "counter", "kmem events read from the trace (--from-trace)." },
	{ "lost events", MP "trace_lost_events_total", "counter", "Events the trace says it lost (the account is incomplete when not 0)." },
	{ "unmatched pointers", MP "trace_unmatched_pointers_total", "counter", "Trace events whose pointer was printed as (____ptrval____): not accounted." },
};

/* Per call site: the row's columns. */
static const struct {
	int field;
	const char *name, *type, *help;
} metric_fields[] = {
	{ SA_TOTAL, MP "site_allocated_bytes_total", "counter", "Bytes allocated by the call site since load or reset." },
	{ SA_REQ, MP "site_requested_bytes_total", "counter", "Bytes the call site requested since load or reset." },
	{ SA_SLACK, MP "site_slack_bytes_total", "counter", "Bytes allocated beyond the call site's requests since load or reset." },
	{ SA_LIVE, MP "site_live_bytes", "gauge", "Bytes of the call site's objects not freed." },
	{ SA_LIVE_REQ, MP "site_live_requested_bytes", "gauge", "Requested bytes of the call site's objects not freed." },
	{ SA_OBJS, MP "site_live_objects", "gauge", "The call site's objects not freed." },
	{ SA_PEAK, MP "site_peak_bytes", "gauge", "Most bytes the call site's objects held at once." },
	{ SA_ALLOCS, MP "site_allocs_total", "counter", "The call site's allocations since load or reset." },
	{ SA_FREES, MP "site_frees_total", "counter", "Frees of the call site's objects since load or reset." },
};

static void metric_head(const char *name, const char *type, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value: \ " and newline escaped; bytes that are not UTF-8 become U+FFFD. */
static void label_value(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	putchar('"');
	while (p < end) {
		size_t n = utf8_len(p);

		if (n > (size_t)(end - p))
			n = 0;
		if (*p == '\\' || *p == '"')
			printf("\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", stdout);
		else if (n)
			fwrite(p, 1, n, stdout);
		else
			fputs("\xef\xbf\xbd", stdout);
		p += n ? n : 1;
	}
	putchar('"');
}

/* The labels of a row: function (the symbol), module ("vmlinux" for the kernel), site (the caller), type. */
static void site_labels(const struct sa_row *r)
{
	size_t mlen, flen;
	const char *mod = r ? sa_caller_module(r->caller, &mlen) : NULL;

	if (!r) {
		fputs("{function=\"other\",module=\"other\",site=\"other\",type=\"other\"}", stdout);
		return;
	}
	flen = strcspn(r->caller, "+ ");
	fputs("{function=", stdout);
	label_value(r->caller, flen);
	fputs(",module=", stdout);
	if (mod)
		label_value(mod, mlen);
	else
		fputs("\"vmlinux\"", stdout);
	fputs(",site=", stdout);
	label_value(r->caller, strlen(r->caller));
	fputs(",type=", stdout);
	label_value(r->type_str, strlen(r->type_str));
	putchar('}');
}

static const struct sa_row *const *metric_sort_base;

static int metric_dup_cmp(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const struct sa_row *ra = metric_sort_base[a], *rb = metric_sort_base[b];
	int c = strcmp(ra->caller, rb->caller);

	if (!c)
		c = strcmp(ra->type_str, rb->type_str);
	return c ? c : (a > b) - (a < b);
}

static int print_metrics(const struct opts *o, const struct sa_file *f,
			 const struct item *items, size_t n)
{
	const struct sa_row **rows = calloc(n + 1, sizeof(*rows));
	uint64_t (*v)[SA_NFIELDS] = calloc(n + 1, sizeof(*v));
	uint64_t other[SA_NFIELDS] = { 0 };
	size_t *idx = calloc(n + 1, sizeof(*idx)), i, k, m = 0, emitted = 0;
	const struct sa_summary *e;
	int any_hooked = 0;

	if (!rows || !v || !idx) {
		free(rows);
		free(v);
		free(idx);
		fprintf(stderr, "slabacct: out of memory\n");
		return -1;
	}
	/* One sample per series: rows with the same caller and type (raw
	 * addresses under kptr_restrict) are added up into the first. */
	for (i = 0; i < n; i++) {
		rows[i] = items[i].row;
		idx[i] = i;
		for (k = 0; k < SA_NFIELDS; k++)
			v[i][k] = items[i].row->v[k];
	}
	metric_sort_base = rows;
	qsort(idx, n, sizeof(*idx), metric_dup_cmp);
	for (i = 1; i < n; i++) {
		size_t a = idx[m], b = idx[i];

		if (strcmp(rows[a]->caller, rows[b]->caller) ||
		    strcmp(rows[a]->type_str, rows[b]->type_str)) {
			m = i;
			continue;
		}
		for (k = 0; k < SA_NFIELDS; k++)
			v[a][k] += v[b][k];
		rows[b] = NULL;	/* counted in its first row */
	}
	for (i = 0; i < f->nrows; i++)
		for (k = 0; k < SA_NFIELDS; k++)
			other[k] += f->rows[i].v[k];
	for (i = 0; i < n; i++) {
		emitted++;
		for (k = 0; k < SA_NFIELDS; k++)
			other[k] -= items[i].row->v[k];
	}

	if (o->summary != SUM_NONE) {
		e = sa_summary_get(f, "state");
		if (e) {
			metric_head(MP "active", "gauge", "1 when the module accounts allocations, 0 when stopped.");
			printf(MP "active %d\n", strcmp(e->value, "active") == 0);
		}
		metric_head(MP "format_info", "gauge", "The version of the /proc/slab_account format read.");
		printf(MP "format_info{version=\"%" PRIu64 ".%" PRIu64 "\"} 1\n", f->major, f->minor);
		for (i = 0; i < sizeof(metric_keys) / sizeof(metric_keys[0]); i++) {
			e = sa_summary_get(f, metric_keys[i].key);
			if (!e || !e->is_num)
				continue;
			metric_head(metric_keys[i].name, metric_keys[i].type, metric_keys[i].help);
			printf("%s %" PRIu64 "\n", metric_keys[i].name, e->num);
		}
		for (i = 0; i < f->nsummary; i++) {
			e = &f->summary[i];
			if (strncmp(e->key, "hooked ", 7) || !e->is_num)
				continue;
			if (!any_hooked++)
				metric_head(MP "hooked", "gauge", "1 when the path, which the kmem tracepoints do not report, is hooked now.");
			fputs(MP "hooked{path=", stdout);
			label_value(e->key + 7, strlen(e->key + 7));
			printf("} %" PRIu64 "\n", e->num);
		}
	}
	if (o->summary != SUM_ONLY) {
		for (k = 0; k < sizeof(metric_fields) / sizeof(metric_fields[0]); k++) {
			int fld = metric_fields[k].field;

			if (!f->nrows)
				break;	/* no rows: no per-site families */
			metric_head(metric_fields[k].name, metric_fields[k].type, metric_fields[k].help);
			for (i = 0; i < n; i++) {
				if (!rows[i])
					continue;
				fputs(metric_fields[k].name, stdout);
				site_labels(rows[i]);
				printf(" %" PRIu64 "\n", v[i][fld]);
			}
			if (emitted < f->nrows) {
				fputs(metric_fields[k].name, stdout);
				site_labels(NULL);
				printf(" %" PRIu64 "\n", other[fld]);
			}
		}
	}
	free(rows);
	free(v);
	free(idx);
	return 0;
}

/* ---- --folded: module;function;site value, for flame graphs ---- */

/* A frame: @len bytes of @s, ';' (the separator) and control characters as '_'. */
static void frame(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		putchar(s[i] == ';' || (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '_' : s[i]);
}

static void print_folded(const struct opts *o, const struct item *items, size_t n)
{
	size_t i, mlen, clen, vlen;

	for (i = 0; i < n; i++) {
		const char *caller = items[i].row->caller;
		const char *mod = sa_caller_module(caller, &mlen);
		const char *via = sa_caller_via(caller, &vlen);
		uint64_t v = items[i].v[o->keys[0]].mag;

		if (!v)
			continue;	/* a flame graph has no room for it */
		/* The site: the symbol+offset, without [module] or via (1.2). */
		clen = mod ? (size_t)(mod - 2 - caller) :
		       via ? (size_t)(via - 5 - caller) : strlen(caller);
		if (mod)
			frame(mod, mlen);
		else
			fputs("vmlinux", stdout);
		putchar(';');
		frame(caller, strcspn(caller, "+ ") < clen ? strcspn(caller, "+ ") : clen);
		putchar(';');
		frame(caller, clen);
		printf(" %" PRIu64 "\n", v);
	}
}

/* ---- --svg FILE: a treemap, module -> function -> call site ---- */

struct leaf {
	const char *mod, *func, *site;
	size_t mlen, flen;
	double value, slack_pct;
	uint64_t raw;
	size_t nsites;		/* "other": how many call sites */
};

struct box {
	double x, y, w, h;
};

static int leaf_cmp(const void *pa, const void *pb)
{
	const struct leaf *a = pa, *b = pb;
	size_t n = a->mlen < b->mlen ? a->mlen : b->mlen;
	int c = memcmp(a->mod, b->mod, n);

	if (!c)
		c = (a->mlen > b->mlen) - (a->mlen < b->mlen);
	if (!c) {
		n = a->flen < b->flen ? a->flen : b->flen;
		c = memcmp(a->func, b->func, n);
		if (!c)
			c = (a->flen > b->flen) - (a->flen < b->flen);
	}
	if (!c)
		c = (a->value < b->value) - (a->value > b->value);
	return c;
}

/* A group of leaves [start, end) and its value. */
struct group {
	size_t start, end;
	double value;
};

static int group_cmp(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;

	return (a->value < b->value) - (a->value > b->value);
}

/* Worst aspect ratio of a row of areas summing to @s, max @hi, min @lo, along @side. */
static double worst(double s, double hi, double lo, double side)
{
	double a = side * side * hi / (s * s), b = s * s / (side * side * lo);

	return a > b ? a : b;
}

/* Squarified treemap (Bruls, Huizing, van Wijk): @v[n] sorted largest first into @r. */
static void squarify(const double *v, size_t n, struct box r, struct box *out)
{
	double total = 0, scale;
	size_t i = 0, j, k;

	for (j = 0; j < n; j++)
		total += v[j];
	if (total <= 0 || r.w <= 0 || r.h <= 0) {
		for (j = 0; j < n; j++)
			out[j] = (struct box){ r.x, r.y, 0, 0 };
		return;
	}
	scale = r.w * r.h / total;
	while (i < n) {
		double side = r.w < r.h ? r.w : r.h, s = v[i] * scale;
		double hi = s, lo = s, t, off;

		for (j = i + 1; j < n; j++) {
			double a = v[j] * scale;

			if (worst(s + a, hi, a, side) > worst(s, hi, lo, side))
				break;
			s += a;
			lo = a;
		}
		t = s / side;
		for (k = i, off = 0; k < j; k++) {
			double len = v[k] * scale / t;

			if (r.w >= r.h)
				out[k] = (struct box){ r.x, r.y + off, t, len };
			else
				out[k] = (struct box){ r.x + off, r.y, len, t };
			off += len;
		}
		if (r.w >= r.h) {
			r.x += t;
			r.w -= t;
		} else {
			r.y += t;
			r.h -= t;
		}
		i = j;
	}
}

/* Text for XML: & < > " escaped, control characters and non-UTF-8 bytes as U+FFFD. */
static void xml_text(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		size_t n = utf8_len(p);

		if (n > (size_t)(end - p))
			n = 0;
		if (*p == '&')
			fputs("&amp;", stdout);
		else if (*p == '<')
			fputs("&lt;", stdout);
		else if (*p == '>')
			fputs("&gt;", stdout);
		else if (*p == '"')
			fputs("&quot;", stdout);
		else if (n && (*p >= 0x20 || *p == '\t') && *p != 0x7f)
			fwrite(p, 1, n, stdout);
		else
			fputs("\xef\xbf\xbd", stdout);
		p += n ? n : 1;
	}
}

/* Lay the groups of @lv [from, to) out in @r, each into box[]. */
static size_t make_groups(const struct leaf *lv, size_t from, size_t to, int by_func,
			  struct group *g)
{
	size_t i, n = 0;

	for (i = from; i < to; i++) {
		if (n && !(lv[i].mlen == lv[g[n - 1].start].mlen &&
			   !memcmp(lv[i].mod, lv[g[n - 1].start].mod, lv[i].mlen) &&
			   (!by_func || (lv[i].flen == lv[g[n - 1].start].flen &&
					 !memcmp(lv[i].func, lv[g[n - 1].start].func, lv[i].flen))))) {
			g[n] = (struct group){ i, i + 1, lv[i].value };
			n++;
		} else if (n) {
			g[n - 1].end = i + 1;
			g[n - 1].value += lv[i].value;
		} else {
			g[n++] = (struct group){ i, i + 1, lv[i].value };
		}
	}
	qsort(g, n, sizeof(*g), group_cmp);
	return n;
}

static void svg_label(const struct box *b, const char *s, size_t len, int bold)
{
	size_t fit = (size_t)((b->w - 6) / 6.5);

	if (b->h < 13 || fit < 3)
		return;
	printf("<text x=\"%.1f\" y=\"%.1f\"%s>", b->x + 3, b->y + 11, bold ? " font-weight=\"bold\"" : "");
	if (len > fit) {
		xml_text(s, fit - 1);
		fputs("\xe2\x80\xa6", stdout);	/* ... */
	} else {
		xml_text(s, len);
	}
	fputs("</text>\n", stdout);
}

static const char *sort_name(int key)
{
	size_t i;

	for (i = 0; i < sizeof(sort_keys) / sizeof(sort_keys[0]); i++)
		if (sort_keys[i].key == key)
			return sort_keys[i].name;
	return "";
}

static int print_svg(const struct opts *o, const struct sa_file *f,
		     const struct item *items, size_t n, size_t nall)
{
	int key = o->keys[0];
	struct leaf *lv = calloc(n + 2, sizeof(*lv));
	struct group *mg = calloc(n + 2, sizeof(*mg)), *fg = calloc(n + 2, sizeof(*fg));
	struct box *mb = calloc(n + 2, sizeof(*mb)), *fb = calloc(n + 2, sizeof(*fb));
	struct box *sb = calloc(n + 2, sizeof(*sb));
	double *v = calloc(n + 2, sizeof(*v)), total = 0;
	size_t i, j, k, nl = 0, nm, nf;
	struct leaf other = { "other", "other", NULL, 5, 5, 0, 0, 0, 0 };
	uint64_t oslack = 0, ototal = 0;
	char vb[32];
	int ret = 0;

	if (!lv || !mg || !fg || !mb || !fb || !sb || !v) {
		fprintf(stderr, "slabacct: out of memory\n");
		ret = -1;
		goto out;
	}
	for (i = 0; i < nall; i++) {
		const struct sa_row *r = items[i].row;
		struct leaf *l = i < n ? &lv[nl] : &other;
		uint64_t val = items[i].v[key].mag;

		if (!val)
			continue;
		if (i >= n) {
			other.value += (double)val;
			other.raw += val;
			other.nsites++;
			oslack += r->v[SA_SLACK];
			ototal += r->v[SA_TOTAL];
			continue;
		}
		l->site = r->caller;
		l->mod = sa_caller_module(r->caller, &l->mlen);
		if (!l->mod) {
			l->mod = "vmlinux";
			l->mlen = 7;
		}
		l->func = r->caller;
		l->flen = strcspn(r->caller, "+ ");
		l->value = (double)val;
		l->raw = val;
		l->slack_pct = r->v[SA_TOTAL] ? 100.0 * (double)r->v[SA_SLACK] / (double)r->v[SA_TOTAL] : 0;
		nl++;
	}
	if (other.nsites) {
		other.slack_pct = ototal ? 100.0 * (double)oslack / (double)ototal : 0;
		lv[nl++] = other;
	}
	qsort(lv, nl, sizeof(*lv), leaf_cmp);
	for (i = 0; i < nl; i++)
		total += lv[i].value;

	printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	       "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
	       "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n"
	       "<text x=\"6\" y=\"18\" font-size=\"14\">slab_account: ",
	       SVG_W, SVG_H, SVG_W, SVG_H, SVG_W, SVG_H);
	xml_text(f->name, strlen(f->name));
	fmt_num(vb, sizeof(vb), (struct num){ (uint64_t)total, 0 }, is_bytes(key), 1, 0);
	printf(", area = %s (%s in %zu call sites), colour = slack %% of total (green 0, red 100)</text>\n",
	       sort_name(key), vb, nl ? (size_t)(nl - (other.nsites ? 1 : 0) + other.nsites) : 0);
	if (!nl) {
		printf("<text x=\"6\" y=\"48\">no call site has a %s above 0</text>\n", sort_name(key));
	}
	nm = make_groups(lv, 0, nl, 0, mg);
	for (i = 0; i < nm; i++)
		v[i] = mg[i].value;
	squarify(v, nm, (struct box){ 2, SVG_HEAD, SVG_W - 4, SVG_H - SVG_HEAD - 2 }, mb);
	for (i = 0; i < nm; i++) {
		struct box in = mb[i];
		const struct leaf *m = &lv[mg[i].start];

		printf("<g class=\"module\"><title>");
		xml_text(m->mod, m->mlen);
		fmt_num(vb, sizeof(vb), (struct num){ (uint64_t)mg[i].value, 0 }, is_bytes(key), 1, 0);
		printf(": %s %s</title>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#d8d8d8\" stroke=\"#333333\" stroke-width=\"1.5\"/>\n",
		       sort_name(key), vb, in.x, in.y, in.w, in.h);
		svg_label(&in, m->mod, m->mlen, 1);
		printf("</g>\n");
		if (in.h > 40 && in.w > 20) {
			in.y += 15;
			in.h -= 15;
		}
		in.x += 2;
		in.y += 1;
		in.w -= 4;
		in.h -= 3;
		nf = make_groups(lv, mg[i].start, mg[i].end, 1, fg);
		for (j = 0; j < nf; j++)
			v[j] = fg[j].value;
		squarify(v, nf, in, fb);
		for (j = 0; j < nf; j++) {
			size_t ns = fg[j].end - fg[j].start;

			for (k = 0; k < ns; k++)
				v[k] = lv[fg[j].start + k].value;	/* sorted largest first */
			squarify(v, ns, fb[j], sb);
			for (k = 0; k < ns; k++) {
				const struct leaf *l = &lv[fg[j].start + k];
				const struct box *b = &sb[k];
				double hue = 120.0 * (1.0 - (l->slack_pct > 100 ? 100 : l->slack_pct) / 100.0);
				char fill[48];

				if (l->site)
					snprintf(fill, sizeof(fill), "hsl(%.0f,70%%,55%%)", hue);
				else
					snprintf(fill, sizeof(fill), "#a0a0a0");

				printf("<g class=\"site\"><title>");
				if (l->site)
					xml_text(l->site, strlen(l->site));
				else
					printf("other: %zu call sites not named", l->nsites);
				fmt_num(vb, sizeof(vb), (struct num){ l->raw, 0 }, is_bytes(key), 1, 0);
				printf("\n%s %s (%" PRIu64 ", %.1f%% of all)\nslack %.1f%% of total</title>\n",
				       sort_name(key), vb, l->raw, total > 0 ? 100.0 * l->value / total : 0.0,
				       l->slack_pct);
				printf("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"0.5\"/>\n",
				       b->x, b->y, b->w, b->h, fill);
				if (l->site)
					svg_label(b, l->site, strcspn(l->site, " "), 0);
				else
					svg_label(b, "other", 5, 0);
				printf("</g>\n");
			}
		}
	}
	fputs("</svg>\n", stdout);
out:
	free(lv);
	free(mg);
	free(fg);
	free(mb);
	free(fb);
	free(sb);
	free(v);
	return ret;
}

/* ---- text summary ---- */

/* The summary lines the text report shows (JSON has them all). */
static const struct {
	const char *key;
	int bytes;
	int lost;	/* shown only when not zero */
} text_keys[] = {
	{ "total bytes allocated", 1, 0 }, { "total bytes requested", 1, 0 },
	{ "slack bytes allocated", 1, 0 }, { "current bytes allocated", 1, 0 },
	{ "current bytes requested", 1, 0 }, { "current objects", 0, 0 },
	{ "number of allocs", 0, 0 }, { "number of frees", 0, 0 },
	{ "number of callers", 0, 0 }, { "failed allocs", 0, 1 },
	{ "unknown frees", 0, 1 }, { "missed frees", 0, 1 },
	{ "dropped objects", 0, 1 }, { "dropped sites", 0, 1 },
	{ "lost events", 0, 1 }, { "unmatched pointers", 0, 1 },
};
#define KEY_WIDTH 25	/* "current bytes allocated: " */

static uint64_t summary_num(const struct sa_file *f, const char *key)
{
	const struct sa_summary *e = sa_summary_get(f, key);

	return e && e->is_num ? e->num : 0;
}

static void print_warnings(const struct sa_file *f)
{
	uint64_t objs = summary_num(f, "dropped objects");
	uint64_t sites = summary_num(f, "dropped sites");

	if (objs)
		printf("warning: %" PRIu64 " allocations not tracked: the object table was full (object capacity %" PRIu64 "; raise max_objects)\n",
		       objs, summary_num(f, "object capacity"));
	if (sites)
		printf("warning: %" PRIu64 " allocations not tracked: the call-site table was full (call site capacity %" PRIu64 "; raise max_sites)\n",
		       sites, summary_num(f, "call site capacity"));
	if (summary_num(f, "lost event reports"))
		printf("warning: the trace lost at least %" PRIu64 " events (%" PRIu64 " LOST or DROPPED lines): this account is incomplete\n",
		       summary_num(f, "lost events"), summary_num(f, "lost event reports"));
	if (summary_num(f, "unmatched pointers"))
		printf("warning: %" PRIu64 " events printed their pointer as (____ptrval____): not accounted\n",
		       summary_num(f, "unmatched pointers"));
}

static void print_key(const char *key)
{
	printf("%s:%*s", key, (int)(KEY_WIDTH - strlen(key) - 1), "");
}

static void print_summary(const struct opts *o, const struct sa_file *f)
{
	const struct sa_summary *state = sa_summary_get(f, "state");
	char buf[32];
	size_t i;

	if (state) {
		print_key("state");
		printf("%s\n", state->value);
	}
	for (i = 0; i < sizeof(text_keys) / sizeof(text_keys[0]); i++) {
		const struct sa_summary *e = sa_summary_get(f, text_keys[i].key);
		struct num v;

		if (!e || (text_keys[i].lost && !e->num))
			continue;
		v.mag = e->num;
		v.neg = 0;
		fmt_num(buf, sizeof(buf), v, text_keys[i].bytes, o->human, 0);
		print_key(e->key);
		printf("%s", buf);
		if (strcmp(e->key, "slack bytes allocated") == 0) {
			uint64_t total = summary_num(f, "total bytes allocated");

			if (total)
				printf(" (%.1f%% of total)", 100.0 * (double)e->num / (double)total);
		}
		putchar('\n');
	}
	print_warnings(f);
}

static void print_diff_summary(const struct opts *o, const struct sa_file *old,
			       const struct sa_file *new)
{
	const struct sa_summary *so = sa_summary_get(old, "state");
	const struct sa_summary *sn = sa_summary_get(new, "state");
	char a[32], b[32], d[32];
	size_t i;

	if (so && sn) {
		print_key("state");
		printf("%s -> %s\n", so->value, sn->value);
	}
	for (i = 0; i < sizeof(text_keys) / sizeof(text_keys[0]); i++) {
		const struct sa_summary *eo = sa_summary_get(old, text_keys[i].key);
		const struct sa_summary *en = sa_summary_get(new, text_keys[i].key);
		struct num vo = { 0, 0 }, vn = { 0, 0 };
		int bytes = text_keys[i].bytes;

		if (!eo || !en || (text_keys[i].lost && !eo->num && !en->num))
			continue;
		vo.mag = eo->num;
		vn.mag = en->num;
		fmt_num(a, sizeof(a), vo, bytes, o->human, 0);
		fmt_num(b, sizeof(b), vn, bytes, o->human, 0);
		fmt_num(d, sizeof(d), num_delta(eo->num, en->num), bytes, o->human, 1);
		print_key(en->key);
		printf("%s -> %s (%s)\n", a, b, d);
	}
	if (summary_num(new, "number of allocs") < summary_num(old, "number of allocs"))
		puts("note: the counters went down: the module was reset or reloaded in between");
	print_warnings(new);
}

/* ---- --by: the call sites grouped by module, function, cache or type ---- */

struct grouped {
	struct sa_file f;	/* one row per group; name, version, summary: the file's */
	uint64_t *sites;	/* the call sites in each group */
	size_t kept;		/* call sites that passed the filters */
	size_t total;		/* call sites in the file */
};

/* The name of @r's group (malloc()ed), or NULL without memory. */
static char *group_name(enum by_key by, const struct sa_row *r)
{
	size_t mlen = 0, flen;
	const char *mod = sa_caller_module(r->caller, &mlen);
	char *s;

	switch (by) {
	case BY_MODULE:
		return mod ? strndup(mod, mlen) : strdup("vmlinux");
	case BY_FUNCTION:	/* the symbol, without +0xoff/0xlen, and its module */
		flen = strcspn(r->caller, "+ ");
		s = malloc(flen + mlen + 4);
		if (s) {
			memcpy(s, r->caller, flen);
			s[flen] = '\0';
			if (mod)
				sprintf(s + flen, " [%.*s]", (int)mlen, mod);
		}
		return s;
	case BY_CACHE:		/* the type column as written */
		return strdup(r->type_str);
	case BY_TYPE:
		return strdup(r->type == SA_TYPE_KMALLOC ? "kmalloc" :
			      r->type == SA_TYPE_MIXED ? "mixed" :
			      r->cache && strcmp(r->cache, "*") == 0 ? "multi" : "cache");
	case BY_NONE:
		break;
	}
	return NULL;
}

struct named {
	char *name;
	size_t row;
};

static int named_cmp(const void *pa, const void *pb)
{
	const struct named *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	return c ? c : (a->row > b->row) - (a->row < b->row);
}

static void grouped_free(struct grouped *g)
{
	size_t i;

	for (i = 0; i < g->f.nrows; i++)
		free(g->f.rows[i].caller);
	free(g->f.rows);
	free(g->sites);
	memset(g, 0, sizeof(*g));
}

/*
 * Group the rows of @f that pass the filters by o->by into @g: each group
 * is a row whose caller is the group's name and whose numbers are its call
 * sites' sums (peak too: an upper bound of the group's peak).  Returns 0,
 * or -1 with a message (no memory, or a sum beyond 64 bits).
 */
static int group_file(const struct opts *o, const struct sa_file *f,
		      struct grouped *g)
{
	struct named *v = calloc(f->nrows + 1, sizeof(*v));
	size_t i, j, n = 0;
	int k, ret = -1;

	memset(g, 0, sizeof(*g));
	g->f.name = f->name;
	g->f.major = f->major;
	g->f.minor = f->minor;
	g->f.summary = f->summary;
	g->f.nsummary = f->nsummary;
	g->total = f->nrows;
	g->f.rows = calloc(f->nrows + 1, sizeof(*g->f.rows));
	g->sites = calloc(f->nrows + 1, sizeof(*g->sites));
	if (!v || !g->f.rows || !g->sites)
		goto nomem;
	for (i = 0; i < f->nrows; i++) {
		if (!keep_row(o, &f->rows[i]))
			continue;
		v[n].row = i;
		v[n].name = group_name(o->by, &f->rows[i]);
		if (!v[n++].name)
			goto nomem;
	}
	g->kept = n;
	qsort(v, n, sizeof(*v), named_cmp);
	for (i = 0; i < n; i = j) {
		struct sa_row *r = &g->f.rows[g->f.nrows];

		r->caller = v[i].name;
		v[i].name = NULL;
		r->type_str = r->caller;
		r->type = f->rows[v[i].row].type;
		r->line = f->rows[v[i].row].line;
		for (j = i; j < n && (j == i || strcmp(v[j].name, r->caller) == 0); j++) {
			const struct sa_row *s = &f->rows[v[j].row];

			for (k = 0; k < SA_NFIELDS; k++) {
				if (r->v[k] > UINT64_MAX - s->v[k]) {
					char *tmp;

					fprintf(stderr, "slabacct: %s: the %s of the group %s does not fit in 64 bits\n",
						f->name, sa_field_names[k], text_safe(r->caller, &tmp));
					free(tmp);
					g->f.nrows++;
					goto out;
				}
				r->v[k] += s->v[k];
			}
			g->sites[g->f.nrows]++;
		}
		g->f.nrows++;
	}
	ret = 0;
	goto out;
nomem:
	fprintf(stderr, "slabacct: out of memory\n");
out:
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	if (ret)
		grouped_free(g);
	return ret;
}

/* ---- the report ---- */

/*
 * A line saying which rows the table holds, unless it is simply all of
 * them; with --by (@g: the new file's groups) always, with the call sites.
 */
static void print_counts(const struct opts *o, const struct counts *cnt,
			 size_t shown, size_t nrows, const struct grouped *g)
{
	size_t matched;

	if (!o->diff && g) {
		if (shown == nrows && g->kept == g->total)
			printf("by %s: %zu groups of %zu call sites\n",
			       by_names[o->by], nrows, g->total);
		else
			printf("by %s: %zu of %zu groups shown, from %zu of %zu call sites\n",
			       by_names[o->by], shown, nrows, g->kept, g->total);
		return;
	}
	if (!o->diff) {
		if (shown != nrows)
			printf("call sites: %zu of %zu shown\n", shown, nrows);
		return;
	}
	matched = cnt->status[ST_COMMON] + cnt->status[ST_NEW] + cnt->status[ST_GONE];
	if (g)
		printf("groups by %s: ", by_names[o->by]);
	else
		fputs("call sites: ", stdout);
	printf("%zu changed, %zu new, %zu gone", cnt->status[ST_COMMON] -
	       (o->all ? cnt->unchanged : 0), cnt->status[ST_NEW], cnt->status[ST_GONE]);
	if (cnt->unchanged)
		printf(", %zu unchanged%s", cnt->unchanged,
		       o->all ? "" : " (not shown; --all shows them)");
	if (shown != matched)
		printf("; %zu shown", shown);
	putchar('\n');
}

/* The report of @new, or of @old -> @new; @g: the groups with --by. */
static int report_items(const struct opts *o, const struct sa_file *old,
			const struct sa_file *new, const struct grouped *gold,
			const struct grouped *g)
{
	struct counts cnt = { { 0 }, 0 };
	size_t n;
	struct item *items = build_items(o, old, new, gold ? gold->sites : NULL,
					 g ? g->sites : NULL, &n, &cnt);

	if (!items) {
		fprintf(stderr, "slabacct: out of memory\n");
		return -1;
	}
	if (o->fmt == FMT_SVG) {
		if (print_svg(o, new, items, n, cnt.status[ST_NONE])) {
			free(items);
			return -1;
		}
	} else if (o->fmt == FMT_FOLDED) {
		print_folded(o, items, n);
	} else if (o->fmt == FMT_METRICS) {
		if (print_metrics(o, new, items, n)) {
			free(items);
			return -1;
		}
	} else if (o->fmt == FMT_JSON) {
		print_json(o, old, new, items, n);
	} else if (o->fmt == FMT_CSV) {
		print_csv(o, items, n);
	} else {
		if (o->summary != SUM_NONE) {
			if (old) {
				if (!o->in_watch) {
					print_name(old->name);
					fputs(" -> ", stdout);
					print_name(new->name);
					putchar('\n');
				}
				print_diff_summary(o, old, new);
			} else {
				print_summary(o, new);
			}
		}
		if (o->summary == SUM_BOTH)
			putchar('\n');
		if (o->summary != SUM_ONLY) {
			print_counts(o, &cnt, n, new->nrows, g);
			print_table(o, items, n);
		}
	}
	free(items);
	return 0;
}

static int report(const struct opts *o, const struct sa_file *old,
		  const struct sa_file *new)
{
	struct grouped gold, gnew;
	int r;

	if (!o->by)
		return report_items(o, old, new, NULL, NULL);
	if (group_file(o, new, &gnew))
		return -1;
	if (old && group_file(o, old, &gold)) {
		grouped_free(&gnew);
		return -1;
	}
	r = report_items(o, old ? &gold.f : NULL, &gnew.f, old ? &gold : NULL, &gnew);
	if (old)
		grouped_free(&gold);
	grouped_free(&gnew);
	return r;
}

/*
 * Flag a summary that does not match the rows (docs/format.md: they agree
 * when nothing moves).  While stopped that is a warning; while active the
 * header and the rows are read at different moments, so only a number of
 * callers that differs is noted (sums always move on a busy system).
 */
static void check_sums(const struct sa_file *f)
{
	const struct sa_summary *state = sa_summary_get(f, "state");
	const struct sa_summary *callers = sa_summary_get(f, "number of callers");
	char buf[512], *tmp;

	if (!sa_check_sums(f, buf, sizeof(buf)))
		return;
	if (state && strcmp(state->value, "stopped") == 0) {
		fprintf(stderr, "slabacct: warning: %s: the summary does not match the rows though the module is stopped: %s\n",
			text_safe(f->name, &tmp), buf);
		free(tmp);
	} else if (callers && callers->is_num && callers->num != f->nrows) {
		fprintf(stderr, "slabacct: note: %s: number of callers %" PRIu64 ", rows %zu: read while allocations ran (the summary and the rows are read at different moments)\n",
			text_safe(f->name, &tmp), callers->num, f->nrows);
		free(tmp);
	}
}

/* What a trace's account cannot hold, said on stderr. */
static void trace_warnings(const struct sa_file *f)
{
	uint64_t lost = summary_num(f, "lost events");
	uint64_t reports = summary_num(f, "lost event reports");
	uint64_t ptrval = summary_num(f, "unmatched pointers");
	char *tmp;
	const char *name = text_safe(f->name, &tmp);

	if (reports)
		fprintf(stderr, "slabacct: warning: %s: the trace lost at least %" PRIu64 " events (%" PRIu64 " LOST or DROPPED lines): the account is incomplete\n",
			name, lost, reports);
	if (ptrval)
		fprintf(stderr, "slabacct: warning: %s: %" PRIu64 " events give their pointer as (____ptrval____) (traced before the pointer hash was ready): not accounted\n",
			name, ptrval);
	free(tmp);
}

/*
 * Load @path: a trace with --from-trace; with --diff a slab_account file
 * or a trace, told by its first line; else a slab_account file.
 */
static int load(const struct opts *o, struct sa_file *f, const char *path)
{
	struct sa_trace_opts to = { o->ks, 1, NULL };
	int is_trace = 0, r;
	char *err = NULL;

	if (o->from_trace) {
		is_trace = 1;
		r = sa_trace_load(f, path, &to, &err);
	} else if (o->diff) {
		r = sa_load_any(f, path, o->max_input, &to, &is_trace, &err);
	} else {
		r = sa_load_max(f, path, o->max_input, &err);
	}
	if (r == 0) {
		if (is_trace)
			trace_warnings(f);
		else
			check_sums(f);
		return 0;
	}
	fprintf(stderr, "slabacct: %s\n", err ? err : "out of memory");
	free(err);
	return -1;
}

/* ---- -o FILE: written to a temporary file, renamed over FILE at the end ---- */

static char *out_tmp;
static int out_saved = -1;
static mode_t out_mode = 0644;

static int out_begin(const struct opts *o)
{
	int fd;

	if (!o->output)
		return 0;
	out_tmp = malloc(strlen(o->output) + 8);
	if (!out_tmp) {
		fprintf(stderr, "slabacct: out of memory\n");
		return -1;
	}
	/* FILE.XXXXXX: not *.prom, so node_exporter's textfile collector skips it */
	sprintf(out_tmp, "%s.XXXXXX", o->output);
	fd = mkstemp(out_tmp);
	if (fd < 0 || fchmod(fd, out_mode) || fflush(stdout) ||
	    (out_saved = dup(STDOUT_FILENO)) < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		fprintf(stderr, "slabacct: %s: %s\n", o->output, strerror(errno));
		if (fd >= 0) {
			unlink(out_tmp);
			close(fd);
		}
		if (out_saved >= 0)
			close(out_saved);
		out_saved = -1;
		free(out_tmp);
		out_tmp = NULL;
		return -1;
	}
	close(fd);
	return 0;
}

/* Finish -o FILE: rename the temporary file over FILE if @ok and it was written. */
static int out_end(const struct opts *o, int ok)
{
	int err = 0;

	if (!out_tmp)
		return ok ? 0 : -1;
	errno = 0;
	if (fflush(stdout) || ferror(stdout) || fsync(STDOUT_FILENO))
		err = errno ? errno : EIO;
	clearerr(stdout);
	dup2(out_saved, STDOUT_FILENO);
	close(out_saved);
	out_saved = -1;
	if (ok && !err && rename(out_tmp, o->output))
		err = errno;
	if (err)
		fprintf(stderr, "slabacct: %s: %s\n", o->output, strerror(err));
	if (!ok || err)
		unlink(out_tmp);
	free(out_tmp);
	out_tmp = NULL;
	return ok && !err ? 0 : -1;
}

static void sleep_seconds(double s)
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
	snprintf(buf, n, "%s.%03uZ", s, (unsigned int)(tv.tv_usec / 1000) % 1000);
}

/*
 * --watch: on a terminal, clear it and redraw; otherwise (a pipe, a file,
 * -o, --batch) append one report per refresh, each headed by its time, or
 * with --csv one CSV table whose first column is the time.  --delta reads a
 * first snapshot and then shows each refresh's changes since the last.
 */
static int watch(const struct opts *go, const char *path)
{
	int tty = !go->batch && !go->output && isatty(STDOUT_FILENO);
	struct sa_file prev, cur;
	struct opts o = *go;
	char stamp[40];
	uint64_t i;
	int have_prev = 0, r = 0;

	o.in_watch = 1;
	if (o.delta) {
		if (load(&o, &prev, path))
			return 1;
		have_prev = 1;
		o.diff = 1;
	}
	for (i = 0; !o.count || i < o.count; i++) {
		if (i || have_prev)
			sleep_seconds(o.interval);
		if (load(&o, &cur, path)) {
			r = -1;
			break;
		}
		timestamp(stamp, sizeof(stamp));
		if (out_begin(&o)) {
			sa_file_free(&cur);
			r = -1;
			break;
		}
		if (o.fmt == FMT_CSV) {
			o.stamp = stamp;
			o.no_header = i && !o.output;
		} else if (o.fmt == FMT_TEXT) {
			if (tty)
				fputs("\033[H\033[2J", stdout);	/* home, clear screen */
			else if (i && !o.output)
				putchar('\n');
			printf("Every %gs: ", o.interval);
			print_name(cur.name);
			printf("%s  %s\n\n", o.delta ? " (changes since the last refresh)" : "", stamp);
		}
		r = report(&o, have_prev ? &prev : NULL, &cur);
		if (out_end(&o, !r) || fflush(stdout))
			r = -1;
		if (have_prev)
			sa_file_free(&prev);
		prev = cur;
		have_prev = o.delta;
		if (!have_prev)
			sa_file_free(&cur);
		if (r)
			break;
	}
	if (have_prev)
		sa_file_free(&prev);
	return r ? 1 : 0;
}

/* ---- --leaks and --advise: the detail file ---- */

static char *xfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *xfmt(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = sa_vformat(fmt, ap);
	va_end(ap);
	if (!s) {
		fprintf(stderr, "slabacct: out of memory\n");
		exit(1);
	}
	return s;
}

static int load_detail(const struct opts *o, struct sa_detail *d, const char *path)
{
	char *err = NULL;

	if (sa_detail_load(d, path, o->max_input, &err) == 0)
		return 0;
	fprintf(stderr, "slabacct: %s\n", err ? err : "out of memory");
	free(err);
	return -1;
}

/* *@a += @b; -1 on overflow. */
static int add_u64(uint64_t *a, uint64_t b)
{
	if (*a > UINT64_MAX - b)
		return -1;
	*a += b;
	return 0;
}

static int mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	if (a && b > UINT64_MAX / a)
		return -1;
	*out = a * b;
	return 0;
}

/* A call site of a detail file: its rows of one type and caller, merged. */
struct dsite {
	const struct sa_drow *r;	/* the first: type and caller */
	uint64_t v[SA_D_NFIELDS];
};

static int site_cmp(const char *ta, const char *ca, const char *tb, const char *cb)
{
	int c = strcmp(ca, cb);

	return c ? c : strcmp(ta, tb);
}

static int drow_ptr_cmp(const void *pa, const void *pb)
{
	const struct sa_drow *a = *(const struct sa_drow *const *)pa;
	const struct sa_drow *b = *(const struct sa_drow *const *)pb;
	int c = site_cmp(a->type_str, a->caller, b->type_str, b->caller);

	return c ? c : (a->line > b->line) - (a->line < b->line);
}

/*
 * @d's call sites sorted by caller and type; rows of the same caller and
 * type (raw addresses under kptr_restrict) are added up: counts and bytes
 * summed, oldest the largest, req_min/req_max the range of both.
 */
static struct dsite *detail_sites(const struct sa_detail *d, size_t *n)
{
	const struct sa_drow **v = calloc(d->nrows + 1, sizeof(*v));
	struct dsite *s = calloc(d->nrows + 1, sizeof(*s));
	size_t i, k = 0;
	int f;

	if (!v || !s) {
		fprintf(stderr, "slabacct: out of memory\n");
		exit(1);
	}
	for (i = 0; i < d->nrows; i++)
		v[i] = &d->rows[i];
	qsort(v, d->nrows, sizeof(*v), drow_ptr_cmp);
	for (i = 0; i < d->nrows; i++) {
		const uint64_t *r = v[i]->v;
		struct dsite *t;

		if (k && !site_cmp(s[k - 1].r->type_str, s[k - 1].r->caller,
				   v[i]->type_str, v[i]->caller)) {
			t = &s[k - 1];
			for (f = 0; f < SA_D_NFIELDS; f++) {
				if (f == SA_D_OLDEST || f == SA_D_REQ_MAX) {
					if (r[f] > t->v[f])
						t->v[f] = r[f];
				} else if (f == SA_D_REQ_MIN) {
					if (r[SA_D_REQ_MAX] && (!t->v[SA_D_REQ_MAX] || r[f] < t->v[f]))
						t->v[f] = r[f];
				} else if (add_u64(&t->v[f], r[f])) {
					fprintf(stderr, "slabacct: %s: the rows of caller '%s' add up to more than %" PRIu64 "\n",
						d->name, v[i]->caller, UINT64_MAX);
					free(v);
					free(s);
					return NULL;
				}
			}
			continue;
		}
		t = &s[k++];
		t->r = v[i];
		memcpy(t->v, r, sizeof(t->v));
	}
	free(v);
	*n = k;
	return s;
}

/* A detail row as a main-file row, for keep_row(): live bytes and objects. */
static void drow_as_row(const struct dsite *s, struct sa_row *r)
{
	memset(r, 0, sizeof(*r));
	r->type = s->r->type;
	r->type_str = s->r->type_str;
	r->cache = s->r->cache;
	r->caller = s->r->caller;
	r->v[SA_LIVE] = s->v[SA_D_BYTES];
	r->v[SA_LIVE_REQ] = s->v[SA_D_REQ];
	r->v[SA_OBJS] = s->v[SA_D_OBJS];
}

/* An age as people say it: 42s, 3m10s, 2h5m, 3d4h (zero parts after the first left out). */
static void fmt_age(char *buf, size_t n, uint64_t s)
{
	if (s < 60)
		snprintf(buf, n, "%" PRIu64 "s", s);
	else if (s < 3600)
		snprintf(buf, n, s % 60 ? "%" PRIu64 "m%" PRIu64 "s" : "%" PRIu64 "m",
			 s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, n, s % 3600 / 60 ? "%" PRIu64 "h%" PRIu64 "m" : "%" PRIu64 "h",
			 s / 3600, s % 3600 / 60);
	else
		snprintf(buf, n, s % 86400 / 3600 ? "%" PRIu64 "d%" PRIu64 "h" : "%" PRIu64 "d",
			 s / 86400, s % 86400 / 3600);
}

/* round(@d x @mult / @secs), half away from zero, in integers (saturating). */
static struct num per_time(struct num d, uint64_t secs, uint64_t mult)
{
	uint64_t q = d.mag / secs, r = d.mag % secs, a, b;
	struct num out = { UINT64_MAX, d.neg };

	if (mul_u64(q, mult, &a) || mul_u64(r, mult, &b))
		return out;	/* beyond any real rate */
	b = b / secs + (b % secs >= secs - secs / 2 ? 1 : 0);
	if (add_u64(&a, b))
		return out;
	out.mag = a;
	out.neg = d.neg && a;
	return out;
}

/* Tenths as text: -6.0, 60.0 (with '+' if @plus and positive). */
static void fmt_tenths(char *buf, size_t n, struct num t, int plus)
{
	snprintf(buf, n, "%s%" PRIu64 ".%" PRIu64, t.neg ? "-" : plus && t.mag ? "+" : "",
		 t.mag / 10, t.mag % 10);
}

enum verdict { V_GROWING, V_FLAT, V_STEADY, V_OLD, V_YOUNG };
static const char *const verdict_names[] = {
	"growing", "old and flat", "steady cache", "old", "young",
};

struct leak {
	const struct dsite *s;	/* in NEW */
	uint64_t old_objs, old_bytes;
	struct num dobjs, dbytes;
	enum verdict verdict;
};

static int leak_cmp(const void *pa, const void *pb)
{
	const struct leak *a = pa, *b = pb;
	const uint64_t *x = a->s->v, *y = b->s->v;

	if (a->verdict != b->verdict)
		return a->verdict < b->verdict ? -1 : 1;
	if (x[SA_D_BYTE_SECS] != y[SA_D_BYTE_SECS])
		return x[SA_D_BYTE_SECS] > y[SA_D_BYTE_SECS] ? -1 : 1;
	if (x[SA_D_BYTES] != y[SA_D_BYTES])
		return x[SA_D_BYTES] > y[SA_D_BYTES] ? -1 : 1;
	return site_cmp(a->s->r->type_str, a->s->r->caller, b->s->r->type_str, b->s->r->caller);
}

/*
 * A table: @ncols columns (the last one the caller, unpadded), a title
 * row and @nrows rows of cells (text, freed here); @left: the columns
 * aligned left.  @after[i], when not NULL, is printed after row i.
 */
static void print_grid(size_t ncols, const char *const *titles, const int *left,
		       char **cells, size_t nrows, char **after)
{
	size_t width[16] = { 0 }, i, k;
	char *tmp;

	for (k = 0; k < ncols; k++) {
		width[k] = strlen(titles[k]);
		for (i = 0; i < nrows; i++)
			if (strlen(cells[i * ncols + k]) > width[k])
				width[k] = strlen(cells[i * ncols + k]);
	}
	for (i = 0; i <= nrows; i++) {
		for (k = 0; k < ncols; k++) {
			const char *s = text_safe(i ? cells[(i - 1) * ncols + k] : titles[k], &tmp);

			if (k == ncols - 1)
				printf("%s\n", s);
			else
				printf(left[k] ? "%-*s " : "%*s ", (int)width[k], s);
			free(tmp);
		}
		if (i && after && after[i - 1])
			fputs(after[i - 1], stdout);
	}
	for (i = 0; i < nrows * ncols; i++)
		free(cells[i]);
}

static char *bytes_cell(const struct opts *o, uint64_t v)
{
	char buf[32];

	if (o->human)
		human(buf, sizeof(buf), v);
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return xfmt("%s", buf);
}

static void json_file(const char *key, const struct sa_detail *d)
{
	printf("  \"%s\": {\"file\": ", key);
	json_string(d->name);
	printf(", \"now\": %" PRIu64 "},\n", d->now);
}

/*
 * --leaks: @old (NULL with --once) and @new.  Sites holding no object in
 * NEW are left out; the others get a verdict and are ranked by verdict,
 * then byte_secs.
 */
static int report_leaks(const struct opts *o, const struct sa_detail *old,
			const struct sa_detail *new)
{
	size_t nn = 0, no = 0, i, j = 0, n = 0, total = 0, shown;
	struct dsite *ns = detail_sites(new, &nn), *os = NULL;
	uint64_t secs = old ? new->now - old->now : 0;
	struct leak *l;
	char a[32], b[32];

	if (!ns || (old && !(os = detail_sites(old, &no)))) {
		free(ns);
		return -1;
	}
	l = calloc(nn + 1, sizeof(*l));
	if (!l) {
		fprintf(stderr, "slabacct: out of memory\n");
		exit(1);
	}
	for (i = 0; i < nn; i++) {
		const struct dsite *s = &ns[i];
		struct leak *t = &l[n];
		struct sa_row row;
		int c = 1;

		while (os && j < no && (c = site_cmp(os[j].r->type_str, os[j].r->caller,
						     s->r->type_str, s->r->caller)) < 0)
			j++;
		if (!s->v[SA_D_OBJS])
			continue;
		total++;
		drow_as_row(s, &row);
		if (!keep_row(o, &row) || s->v[SA_D_BYTES] < o->min)
			continue;
		t->s = s;
		if (os && j < no && c == 0) {
			t->old_objs = os[j].v[SA_D_OBJS];
			t->old_bytes = os[j].v[SA_D_BYTES];
		}
		t->dobjs = num_delta(t->old_objs, s->v[SA_D_OBJS]);
		t->dbytes = num_delta(t->old_bytes, s->v[SA_D_BYTES]);
		if (!old)
			t->verdict = s->v[SA_D_OLDEST] >= o->min_age ? V_OLD : V_YOUNG;
		else if (s->v[SA_D_OLDEST] < o->min_age)
			t->verdict = V_STEADY;
		else if ((!t->dobjs.neg && t->dobjs.mag) ||
			 (!t->dobjs.mag && !t->dbytes.neg && t->dbytes.mag))
			t->verdict = V_GROWING;
		else
			t->verdict = V_FLAT;
		n++;
	}
	qsort(l, n, sizeof(*l), leak_cmp);
	shown = o->top && o->top < n ? (size_t)o->top : n;

	if (o->fmt == FMT_JSON) {
		printf("{\n");
		if (old)
			json_file("old", old);
		json_file("new", new);
		if (old)
			printf("  \"seconds\": %" PRIu64 ",\n", secs);
		printf("  \"min_age\": %" PRIu64 ",\n  \"age_bounds\": [", o->min_age);
		for (i = 0; i < SA_NAGES - 1; i++)
			printf("%s%" PRIu64, i ? ", " : "", new->age_bounds[i]);
		printf("],\n  \"sites\": [");
		for (i = 0; i < shown; i++) {
			const uint64_t *v = l[i].s->v;

			printf("%s\n    {\"rank\": %zu, \"held\": %" PRIu64 ", \"req\": %" PRIu64
			       ", \"objs\": %" PRIu64 ", \"oldest\": %" PRIu64 ", \"byte_secs\": %" PRIu64
			       ", \"ages\": [", i ? "," : "", i + 1, v[SA_D_BYTES], v[SA_D_REQ],
			       v[SA_D_OBJS], v[SA_D_OLDEST], v[SA_D_BYTE_SECS]);
			for (j = 0; j < SA_NAGES; j++)
				printf("%s%" PRIu64, j ? ", " : "", v[SA_D_AGE + j]);
			printf("], ");
			if (old) {
				fmt_tenths(a, sizeof(a), per_time(l[i].dobjs, secs, 600), 0);
				fmt_num(b, sizeof(b), per_time(l[i].dbytes, secs, 60), 0, 0, 0);
				printf("\"delta_objs\": %s%" PRIu64 ", \"delta_bytes\": %s%" PRIu64
				       ", \"objs_per_min\": %s, \"bytes_per_min\": %s, ",
				       l[i].dobjs.neg ? "-" : "", l[i].dobjs.mag,
				       l[i].dbytes.neg ? "-" : "", l[i].dbytes.mag, a, b);
			}
			printf("\"verdict\": \"%s\", \"type\": ", verdict_names[l[i].verdict]);
			json_string(l[i].s->r->type_str);
			printf(", \"caller\": ");
			json_string(l[i].s->r->caller);
			putchar('}');
		}
		printf("%s]\n}\n", shown ? "\n  " : "");
	} else if (o->fmt == FMT_CSV) {
		printf("rank,held,req,objs,oldest,byte_secs,%sverdict,type,caller\n",
		       old ? "delta_objs,delta_bytes,seconds,objs_per_min,bytes_per_min," : "");
		for (i = 0; i < shown; i++) {
			const uint64_t *v = l[i].s->v;

			printf("%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
			       i + 1, v[SA_D_BYTES], v[SA_D_REQ], v[SA_D_OBJS], v[SA_D_OLDEST],
			       v[SA_D_BYTE_SECS]);
			if (old) {
				fmt_tenths(a, sizeof(a), per_time(l[i].dobjs, secs, 600), 0);
				fmt_num(b, sizeof(b), per_time(l[i].dbytes, secs, 60), 0, 0, 0);
				printf("%s%" PRIu64 ",%s%" PRIu64 ",%" PRIu64 ",%s,%s,",
				       l[i].dobjs.neg ? "-" : "", l[i].dobjs.mag,
				       l[i].dbytes.neg ? "-" : "", l[i].dbytes.mag, secs, a, b);
			}
			printf("%s,", verdict_names[l[i].verdict]);
			csv_string(l[i].s->r->type_str);
			putchar(',');
			csv_string(l[i].s->r->caller);
			putchar('\n');
		}
	} else {
		static const char *const t2[] = { "rank", "held", "objs", "oldest", "objs/min",
						  "bytes/min", "byte_secs", "verdict", "caller" };
		static const char *const t1[] = { "rank", "held", "objs", "oldest",
						  "byte_secs", "verdict", "caller" };
		static const int l2[] = { 0, 0, 0, 0, 0, 0, 0, 1, 1 }, l1[] = { 0, 0, 0, 0, 0, 1, 1 };
		size_t nc = old ? 9 : 7, k;
		char **cells = calloc(shown * nc + 1, sizeof(*cells));

		if (!cells) {
			fprintf(stderr, "slabacct: out of memory\n");
			exit(1);
		}
		if (old) {
			print_name(old->name);
			printf(" (now %" PRIu64 ") -> ", old->now);
		}
		print_name(new->name);
		printf(" (now %" PRIu64 ")", new->now);
		if (old)
			printf(", %" PRIu64 " s apart", secs);
		fmt_age(a, sizeof(a), o->min_age);
		printf(old ? "; steady cache: oldest under %s\n" : "; young: oldest under %s\n", a);
		if (shown != total)
			printf("call sites holding objects: %zu of %zu shown\n", shown, total);
		putchar('\n');
		for (i = 0; i < shown; i++) {
			const uint64_t *v = l[i].s->v;

			k = i * nc;
			cells[k++] = xfmt("%zu", i + 1);
			cells[k++] = bytes_cell(o, v[SA_D_BYTES]);
			cells[k++] = xfmt("%" PRIu64, v[SA_D_OBJS]);
			fmt_age(a, sizeof(a), v[SA_D_OLDEST]);
			cells[k++] = xfmt("%s", a);
			if (old) {
				struct num bm = per_time(l[i].dbytes, secs, 60);

				fmt_tenths(a, sizeof(a), per_time(l[i].dobjs, secs, 600), 1);
				cells[k++] = xfmt("%s", a);
				fmt_num(b, sizeof(b), bm, 1, o->human, 1);
				cells[k++] = xfmt("%s", b);
			}
			cells[k++] = xfmt("%" PRIu64, v[SA_D_BYTE_SECS]);
			cells[k++] = xfmt("%s", verdict_names[l[i].verdict]);
			cells[k++] = xfmt("%s", l[i].s->r->caller);
		}
		print_grid(nc, old ? t2 : t1, old ? l2 : l1, cells, shown, NULL);
		free(cells);
	}
	free(l);
	free(ns);
	free(os);
	return 0;
}

/* --leaks --once --from-trace TRACE: the ages at the trace's end. */
static int run_trace_leaks(const struct opts *o)
{
	struct sa_detail d;
	struct sa_trace_opts to = { o->ks, 1, &d };
	struct sa_file f;
	char *err = NULL;
	int ret = 1;

	if (sa_trace_load(&f, o->from_trace, &to, &err)) {
		fprintf(stderr, "slabacct: %s\n", err ? err : "out of memory");
		free(err);
		return 1;
	}
	trace_warnings(&f);
	if (out_begin(o) == 0)
		ret = out_end(o, !report_leaks(o, NULL, &d)) ? 1 : 0;
	sa_detail_free(&d);
	sa_file_free(&f);
	return ret;
}

/* --leaks: OLD NEW, live (DETAIL twice, --interval apart), or --once [FILE]. */
static int run_leaks(const struct opts *o, int nargs, char **args)
{
	struct sa_detail old, new;
	const char *p0 = nargs ? args[0] : o->detail;
	const char *p1 = nargs == 2 ? args[1] : o->detail;
	int ret = 1;

	if (o->from_trace)
		return run_trace_leaks(o);
	if (load_detail(o, &old, p0))
		return 1;
	if (o->once) {
		if (out_begin(o) == 0)
			ret = out_end(o, !report_leaks(o, NULL, &old)) ? 1 : 0;
		sa_detail_free(&old);
		return ret;
	}
	if (!nargs)
		sleep_seconds(o->interval);
	if (load_detail(o, &new, p1)) {
		sa_detail_free(&old);
		return 1;
	}
	if (new.now <= old.now) {
		char *t1, *t2;

		if (new.now == old.now)
			fprintf(stderr, "slabacct: %s and %s were read in the same second (now %" PRIu64 "): no growth to measure%s\n",
				text_safe(old.name, &t1), text_safe(new.name, &t2), new.now,
				nargs ? "" : " (a longer --interval)");
		else
			fprintf(stderr, "slabacct: NEW %s (now %" PRIu64 ") is earlier than OLD %s (now %" PRIu64 "): the module was reloaded in between, or the files are swapped\n",
				text_safe(new.name, &t2), new.now, text_safe(old.name, &t1), old.now);
		free(t1);
		free(t2);
	} else if (out_begin(o) == 0) {
		ret = out_end(o, !report_leaks(o, &old, &new)) ? 1 : 0;
	}
	sa_detail_free(&new);
	sa_detail_free(&old);
	return ret;
}

/* ---- --advise ---- */

enum adv_kind { ADV_SMALLER, ADV_CACHE, ADV_PADDED, ADV_SIZES };
static const char *const adv_names[] = { "smaller", "cache", "padded", "sizes" };

struct advice {
	enum adv_kind kind;
	uint64_t object, target, per_object, now, churn;
	char *text;
};

struct asite {
	const struct sa_row *r;		/* the first main row: type and caller */
	uint64_t v[SA_NFIELDS];		/* the main rows of the site, added up */
	const struct dsite *d;
	struct advice adv[2];
	int nadv;
};

static int sa_row_ptr_cmp(const void *pa, const void *pb)
{
	const struct sa_row *a = *(const struct sa_row *const *)pa;
	const struct sa_row *b = *(const struct sa_row *const *)pb;
	int c = site_cmp(a->type_str, a->caller, b->type_str, b->caller);

	return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* A size the way kmalloc's caches are named: kmalloc-96, or for pages "16384 bytes of pages". */
static void size_name(char *buf, size_t n, const struct sa_detail *d, uint64_t size)
{
	if (size <= d->classes[d->nclasses - 1])
		snprintf(buf, n, "kmalloc-%" PRIu64, size);
	else
		snprintf(buf, n, "%" PRIu64 " bytes of pages", size);
}

/* The largest allocation size below @c (a class or a page block), or 0. */
static uint64_t prev_size(const struct sa_detail *d, uint64_t c)
{
	uint64_t top = d->classes[d->nclasses - 1], b;
	size_t i;

	if (c > top) {
		b = c >> 1;
		return b > top && b >= d->page_size ? b : top;
	}
	for (i = d->nclasses; i-- > 0;)
		if (d->classes[i] < c)
			return d->classes[i];
	return 0;
}

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

static int set_advice(struct asite *s, enum adv_kind kind, uint64_t object,
		      uint64_t target, char *text)
{
	struct advice *a = &s->adv[s->nadv++];

	a->kind = kind;
	a->object = object;
	a->target = target;
	a->per_object = object - target;
	a->text = text;
	if (mul_u64(a->per_object, s->v[SA_OBJS], &a->now) ||
	    mul_u64(a->per_object, s->v[SA_ALLOCS], &a->churn)) {
		fprintf(stderr, "slabacct: the saving of %s is more than %" PRIu64 " bytes\n",
			s->r->caller, UINT64_MAX);
		return -1;
	}
	return 0;
}

/* The percentage @part / @whole with one decimal, rounded half up. */
static void fmt_pct(char *buf, size_t n, uint64_t part, uint64_t whole)
{
	struct num d = { part, 0 };

	fmt_tenths(buf, n, whole ? per_time(d, whole, 1000) : d, 0);
}

/* A size bound as the detail file's legend writes it: 512, 1K. */
static void bound_name(char *buf, size_t n, uint64_t b)
{
	if (b >= 1024 && b % 1024 == 0)
		snprintf(buf, n, "%" PRIu64 "K", b / 1024);
	else
		snprintf(buf, n, "%" PRIu64, b);
}

/*
 * The allocation sizes the requests of size bucket @i (within
 * req_min..req_max) land in: from *@lo to *@hi.  0 if none.
 */
static int bucket_sizes(const struct sa_detail *d, const uint64_t *v, size_t i,
			uint64_t *lo, uint64_t *hi)
{
	uint64_t a = i ? d->size_bounds[i - 1] + 1 : 1;
	uint64_t b = i < SA_NSIZES - 1 ? d->size_bounds[i] : v[SA_D_REQ_MAX];

	if (!v[SA_D_SIZE + i])
		return 0;
	if (a < v[SA_D_REQ_MIN])
		a = v[SA_D_REQ_MIN];
	if (b > v[SA_D_REQ_MAX])
		b = v[SA_D_REQ_MAX];
	if (a > b)
		return 0;
	*lo = sa_detail_alloc_size(d, a);
	*hi = sa_detail_alloc_size(d, b);
	return *lo && *hi;
}

/* The allocation sizes (classes, page blocks) variable-size site @v hits: into @out, how many. */
static size_t sizes_hit(const struct sa_detail *d, const uint64_t *v, uint64_t *out, size_t max)
{
	size_t n = 0, i, k;
	uint64_t lo, hi, b;

	for (i = 0; i < SA_NSIZES; i++) {
		if (!bucket_sizes(d, v, i, &lo, &hi))
			continue;
		for (k = 0; k < d->nclasses + 64 && n < max; k++) {
			if (k < d->nclasses)
				b = d->classes[k];
			else if (k - d->nclasses < 63)
				b = d->page_size << (k - d->nclasses);
			else
				break;
			if (k >= d->nclasses && b <= d->classes[d->nclasses - 1])
				continue;
			if (b < lo || b > hi)
				continue;
			if (!n || out[n - 1] < b) {
				out[n++] = b;
			} else {	/* keep them sorted and unique */
				size_t m;

				for (m = 0; m < n && out[m] < b; m++)
					;
				if (out[m] != b) {
					memmove(out + m + 1, out + m, (n - m) * sizeof(*out));
					out[m] = b;
					n++;
				}
			}
		}
	}
	return n;
}

/* The advice for one site (docs/reader.md, "Advice: --advise"). */
static int advise_site(const struct sa_detail *d, struct asite *s)
{
	const uint64_t *v = s->d->v;
	uint64_t n = v[SA_D_REQ_MIN], allocs = s->v[SA_ALLOCS];
	char c1[48], c2[48];

	if (!v[SA_D_REQ_MAX] || !allocs)
		return 0;	/* nothing allocated since the reset */
	if (n == v[SA_D_REQ_MAX] && s->r->type == SA_TYPE_KMALLOC) {
		uint64_t c = sa_detail_alloc_size(d, n), p = c ? prev_size(d, c) : 0;
		uint64_t al = ALIGN_UP(n, 8);

		if (!c)
			return 0;
		size_name(c1, sizeof(c1), d, c);
		if (p && n - p <= (n / 8 > 8 ? n / 8 : 8)) {
			size_name(c2, sizeof(c2), d, p);
			if (set_advice(s, ADV_SMALLER, c, p,
				       xfmt("%" PRIu64 " bytes in %s: %" PRIu64 " bytes smaller fits %s",
					    n, c1, n - p, c2)))
				return -1;
		}
		if (c > al && set_advice(s, ADV_CACHE, c, al,
					 xfmt("%" PRIu64 " bytes in %s: a dedicated kmem_cache of %" PRIu64 " bytes",
					      n, c1, al)))
			return -1;
	} else if (n == v[SA_D_REQ_MAX] && s->r->type == SA_TYPE_CACHE &&
		   s->v[SA_TOTAL] % allocs == 0) {
		uint64_t sz = s->v[SA_TOTAL] / allocs, al = ALIGN_UP(n, 8), a;
		char why[160];

		if (sz <= al)
			return 0;	/* word alignment only: nothing to drop */
		for (a = 16; a <= sz && ALIGN_UP(n, a) != sz; a <<= 1)
			;
		if (sz - al == 8)
			/* SLUB's free pointer: outside the object of caches
			 * with a constructor or SLAB_TYPESAFE_BY_RCU. */
			snprintf(why, sizeof(why), "8 bytes after each object: SLUB's free pointer"
				 " if the cache has a constructor or is SLAB_TYPESAFE_BY_RCU (kept),"
				 " else an alignment");
		else if (a <= sz)
			snprintf(why, sizeof(why), "%" PRIu64 " is %" PRIu64 " rounded up to %" PRIu64
				 ": an alignment of %" PRIu64 " (SLAB_HWCACHE_ALIGN or an align argument)",
				 sz, n, a, a);
		else
			snprintf(why, sizeof(why), "not an alignment of %" PRIu64
				 ": a larger size given to the cache, debug metadata or a merged cache",
				 n);
		if (set_advice(s, ADV_PADDED, sz, al,
			       xfmt("objects of %" PRIu64 " bytes padded to %" PRIu64
				    " (%" PRIu64 " bytes each); %s; word aligned they take %" PRIu64,
				    n, sz, sz - n, why, al)))
			return -1;
	} else if (n < v[SA_D_REQ_MAX]) {
		uint64_t sum = 0, hit[64];
		size_t i, k, nh = sizes_hit(d, v, hit, 64);
		char *t, *u, pct[32], b[32];

		for (i = 0; i < SA_NSIZES; i++)
			if (add_u64(&sum, v[SA_D_SIZE + i])) {
				fprintf(stderr, "slabacct: the size counts of %s add up to more than %" PRIu64 "\n",
					s->r->caller, UINT64_MAX);
				return -1;
			}
		t = xfmt("sizes %" PRIu64 "..%" PRIu64 ":", n, v[SA_D_REQ_MAX]);
		for (i = k = 0; i < SA_NSIZES; i++) {
			if (!v[SA_D_SIZE + i])
				continue;
			fmt_pct(pct, sizeof(pct), v[SA_D_SIZE + i], sum);
			if (i < SA_NSIZES - 1)
				bound_name(b, sizeof(b), d->size_bounds[i]);
			else
				bound_name(b, sizeof(b), d->size_bounds[SA_NSIZES - 2]);
			u = xfmt("%s%s %s%s %s%%", t, k++ ? "," : "",
				 i < SA_NSIZES - 1 ? "<=" : ">", b, pct);
			free(t);
			t = u;
		}
		for (i = 0; i < nh; i++) {
			u = xfmt("%s%s%" PRIu64, t, i ? " " : "; classes ", hit[i]);
			free(t);
			t = u;
		}
		fmt_pct(pct, sizeof(pct), s->v[SA_SLACK], s->v[SA_TOTAL]);
		u = xfmt("%s; slack %" PRIu64 " of %" PRIu64 " bytes (%s%%)", t,
			 s->v[SA_SLACK], s->v[SA_TOTAL], pct);
		free(t);
		s->adv[0].kind = ADV_SIZES;
		s->adv[0].text = u;
		s->nadv = 1;
	}
	return 0;
}

static int asite_cmp(const void *pa, const void *pb)
{
	const struct asite *a = pa, *b = pb;
	uint64_t x[3] = { a->adv[0].now, a->adv[0].churn, a->v[SA_SLACK] };
	uint64_t y[3] = { b->adv[0].now, b->adv[0].churn, b->v[SA_SLACK] };
	int i;

	for (i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] > y[i] ? -1 : 1;
	return site_cmp(a->r->type_str, a->r->caller, b->r->type_str, b->r->caller);
}

static void free_asites(struct asite *s, size_t n)
{
	size_t i;
	int k;

	for (i = 0; i < n; i++)
		for (k = 0; k < s[i].nadv; k++)
			free(s[i].adv[k].text);
	free(s);
}

static void print_advise_json(const struct sa_file *f, const struct sa_detail *d,
			      const struct asite *s, size_t shown)
{
	size_t i, k;
	int a;

	printf("{\n  \"file\": ");
	json_string(f->name);
	printf(",\n  \"detail\": ");
	json_string(d->name);
	printf(",\n  \"page_size\": %" PRIu64 ",\n  \"kmalloc_classes\": [", d->page_size);
	for (i = 0; i < d->nclasses; i++)
		printf("%s%" PRIu64, i ? ", " : "", d->classes[i]);
	printf("],\n  \"size_bounds\": [");
	for (i = 0; i < SA_NSIZES - 1; i++)
		printf("%s%" PRIu64, i ? ", " : "", d->size_bounds[i]);
	printf("],\n  \"sites\": [");
	for (i = 0; i < shown; i++) {
		const uint64_t *v = s[i].v, *dv = s[i].d->v;

		printf("%s\n    {\"rank\": %zu, \"saved_now\": %" PRIu64 ", \"saved_churn\": %" PRIu64
		       ", \"objs\": %" PRIu64 ", \"allocs\": %" PRIu64 ", \"total\": %" PRIu64
		       ", \"slack\": %" PRIu64 ", \"live\": %" PRIu64 ", \"live_req\": %" PRIu64
		       ", \"req_min\": %" PRIu64 ", \"req_max\": %" PRIu64 ", \"sizes\": [",
		       i ? "," : "", i + 1, s[i].adv[0].now, s[i].adv[0].churn, v[SA_OBJS],
		       v[SA_ALLOCS], v[SA_TOTAL], v[SA_SLACK], v[SA_LIVE], v[SA_LIVE_REQ],
		       dv[SA_D_REQ_MIN], dv[SA_D_REQ_MAX]);
		for (k = 0; k < SA_NSIZES; k++)
			printf("%s%" PRIu64, k ? ", " : "", dv[SA_D_SIZE + k]);
		printf("], \"type\": ");
		json_string(s[i].r->type_str);
		printf(", \"caller\": ");
		json_string(s[i].r->caller);
		printf(",\n     \"advice\": [");
		for (a = 0; a < s[i].nadv; a++) {
			const struct advice *ad = &s[i].adv[a];

			printf("%s{\"kind\": \"%s\", ", a ? ", " : "", adv_names[ad->kind]);
			if (ad->kind != ADV_SIZES)
				printf("\"object\": %" PRIu64 ", \"target\": %" PRIu64
				       ", \"per_object\": %" PRIu64 ", \"saved_now\": %" PRIu64
				       ", \"saved_churn\": %" PRIu64 ", ", ad->object, ad->target,
				       ad->per_object, ad->now, ad->churn);
			printf("\"text\": ");
			json_string(ad->text);
			putchar('}');
		}
		printf("]}");
	}
	printf("%s]\n}\n", shown ? "\n  " : "");
}

static void print_advise_csv(const struct asite *s, size_t shown)
{
	size_t i;
	int a;

	printf("rank,kind,object,target,per_object,saved_now,saved_churn,objs,allocs,req_min,req_max,advice,type,caller\n");
	for (i = 0; i < shown; i++) {
		for (a = 0; a < s[i].nadv; a++) {
			const struct advice *ad = &s[i].adv[a];

			printf("%zu,%s,", i + 1, adv_names[ad->kind]);
			if (ad->kind != ADV_SIZES)
				printf("%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", ad->object,
				       ad->target, ad->per_object);
			else
				printf(",,,");
			printf("%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
			       ad->now, ad->churn, s[i].v[SA_OBJS], s[i].v[SA_ALLOCS],
			       s[i].d->v[SA_D_REQ_MIN], s[i].d->v[SA_D_REQ_MAX]);
			csv_string(ad->text);
			putchar(',');
			csv_string(s[i].r->type_str);
			putchar(',');
			csv_string(s[i].r->caller);
			putchar('\n');
		}
	}
}

static void print_advise_text(const struct opts *o, const struct sa_file *f,
			      const struct sa_detail *d, const struct asite *s,
			      size_t shown, size_t total)
{
	static const char *const titles[] = { "rank", "now", "churn", "objs", "allocs",
					      "type", "caller" };
	static const int left[] = { 0, 0, 0, 0, 0, 1, 1 };
	char **cells = calloc(shown * 7 + 1, sizeof(*cells));
	char **after = calloc(shown + 1, sizeof(*after));
	size_t i, k;

	if (!cells || !after) {
		fprintf(stderr, "slabacct: out of memory\n");
		exit(1);
	}
	print_name(f->name);
	fputs(" with ", stdout);
	print_name(d->name);
	printf(": kmalloc classes");
	for (i = 0; i < d->nclasses; i++)
		printf(" %" PRIu64, d->classes[i]);
	printf(", page size %" PRIu64 "\n", d->page_size);
	printf("bytes that could be saved: now (live objects), churn (every allocation since the reset)\n");
	if (shown != total)
		printf("call sites with advice: %zu of %zu shown\n", shown, total);
	putchar('\n');
	for (i = 0; i < shown; i++) {
		int a, sizes = s[i].adv[0].kind == ADV_SIZES;
		char *t, *u;

		k = i * 7;
		cells[k++] = xfmt("%zu", i + 1);
		cells[k++] = sizes ? xfmt("-") : bytes_cell(o, s[i].adv[0].now);
		cells[k++] = sizes ? xfmt("-") : bytes_cell(o, s[i].adv[0].churn);
		cells[k++] = xfmt("%" PRIu64, s[i].v[SA_OBJS]);
		cells[k++] = xfmt("%" PRIu64, s[i].v[SA_ALLOCS]);
		cells[k++] = xfmt("%s", s[i].r->type_str);
		cells[k++] = xfmt("%s", s[i].r->caller);
		t = xfmt("%s", "");
		for (a = 0; a < s[i].nadv; a++) {
			const struct advice *ad = &s[i].adv[a];

			if (ad->kind == ADV_SIZES)
				u = xfmt("%s     %s\n", t, ad->text);
			else
				u = xfmt("%s     %s: saves %" PRIu64 " bytes per object, %" PRIu64
					 " now, %" PRIu64 " churn\n", t, ad->text, ad->per_object,
					 ad->now, ad->churn);
			free(t);
			t = u;
		}
		after[i] = t;
	}
	print_grid(7, titles, left, cells, shown, after);
	for (i = 0; i < shown; i++)
		free(after[i]);
	free(after);
	free(cells);
}

/* --advise [FILE]: the main file and the detail file, joined by type and caller. */
static int report_advise(const struct opts *o, const struct sa_file *f,
			 const struct sa_detail *d)
{
	const struct sa_row **rows = calloc(f->nrows + 1, sizeof(*rows));
	struct asite *s = calloc(f->nrows + 1, sizeof(*s));
	size_t nd = 0, i, j = 0, n = 0, missing = 0, shown, total = 0;
	struct dsite *ds = detail_sites(d, &nd);
	int f2, ret = -1;

	if (!rows || !s) {
		fprintf(stderr, "slabacct: out of memory\n");
		exit(1);
	}
	if (!ds)
		goto out;
	for (i = 0; i < f->nrows; i++)
		rows[i] = &f->rows[i];
	qsort(rows, f->nrows, sizeof(*rows), sa_row_ptr_cmp);
	for (i = 0; i < f->nrows; i++) {
		struct asite *t;
		int c = 1;

		if (n && !site_cmp(s[n - 1].r->type_str, s[n - 1].r->caller,
				   rows[i]->type_str, rows[i]->caller)) {
			for (f2 = 0; f2 < SA_NFIELDS; f2++)
				if (add_u64(&s[n - 1].v[f2], rows[i]->v[f2])) {
					fprintf(stderr, "slabacct: %s: the rows of caller '%s' add up to more than %" PRIu64 "\n",
						f->name, rows[i]->caller, UINT64_MAX);
					goto out;
				}
			continue;
		}
		t = &s[n];
		memset(t, 0, sizeof(*t));
		t->r = rows[i];
		memcpy(t->v, rows[i]->v, sizeof(t->v));
		while (j < nd && (c = site_cmp(ds[j].r->type_str, ds[j].r->caller,
					       t->r->type_str, t->r->caller)) < 0)
			j++;
		if (j < nd && c == 0)
			t->d = &ds[j];
		n++;
	}
	/* now that the duplicates are added up: the advice, and the filters */
	for (i = j = 0; i < n; i++) {
		struct asite t = s[i];

		if (!t.d) {
			missing++;
			continue;
		}
		if (advise_site(d, &t)) {
			free_asites(s, j);
			s = NULL;
			for (f2 = 0; f2 < t.nadv; f2++)
				free(t.adv[f2].text);
			goto out;
		}
		if (!t.nadv)
			continue;
		if (t.nadv == 2 && t.adv[1].per_object > t.adv[0].per_object) {
			struct advice x = t.adv[0];

			t.adv[0] = t.adv[1];
			t.adv[1] = x;
		}
		total++;
		if (!keep_row(o, t.r) || t.adv[0].now < o->min) {
			for (f2 = 0; f2 < t.nadv; f2++)
				free(t.adv[f2].text);
			continue;
		}
		s[j++] = t;
	}
	n = j;
	if (missing) {
		char *t1, *t2;

		fprintf(stderr, "slabacct: note: %zu call site%s of %s %s not in %s (the files were read at different moments): no advice for %s\n",
			missing, missing == 1 ? "" : "s", text_safe(f->name, &t1),
			missing == 1 ? "is" : "are", text_safe(d->name, &t2),
			missing == 1 ? "it" : "them");
		free(t1);
		free(t2);
	}
	qsort(s, n, sizeof(*s), asite_cmp);
	shown = o->top && o->top < n ? (size_t)o->top : n;
	if (o->fmt == FMT_JSON)
		print_advise_json(f, d, s, shown);
	else if (o->fmt == FMT_CSV)
		print_advise_csv(s, shown);
	else
		print_advise_text(o, f, d, s, shown, total);
	ret = 0;
	free_asites(s, n);
	s = NULL;
out:
	if (s)
		free_asites(s, 0);
	free(rows);
	free(ds);
	return ret;
}

static int run_advise(const struct opts *o, const char *path)
{
	struct sa_detail d;
	struct sa_file f;
	int ret = 1;

	if (load(o, &f, path))
		return 1;
	if (load_detail(o, &d, o->detail) == 0) {
		if (out_begin(o) == 0)
			ret = out_end(o, !report_advise(o, &f, &d)) ? 1 : 0;
		sa_detail_free(&d);
	}
	sa_file_free(&f);
	return ret;
}

/* ---- command line ---- */

static void usage(FILE *fp)
{
	fprintf(fp, "Usage: slabacct [OPTIONS] [FILE]\n"
	      "       slabacct --diff [OPTIONS] OLD NEW\n"
	      "       slabacct --leaks [OPTIONS] [OLD NEW | --once [FILE]]\n"
	      "       slabacct --advise [OPTIONS] [FILE]\n"
	      "       slabacct --from-trace TRACE [OPTIONS]\n"
	      "Show the per call site slab accounting of the slab_account module.\n"
	      "FILE defaults to " SA_DEFAULT_PATH "; '-' reads standard input.\n"
	      "\n"
	      "Sorting and selection:\n"
	      "  -s, --sort KEYS      sort by KEYS (comma separated, descending; caller\n"
	      "                       ascending): total, slack (or waste), req, live,\n"
	      "                       live_req, objs, peak, allocs (or hit), frees, frag,\n"
	      "                       caller (default total; frag = 100 - 100 * req / total)\n"
	      "                       (sites: with --by, the call sites in a group)\n"
	      "  -r, --reverse        reverse the sort order\n"
	      "  -n, --top N          show only the first N rows\n"
	      "      --min N          only rows whose first sort key is at least N\n"
	      "      --kmalloc        only kmalloc rows\n"
	      "      --cache[=NAME]   only kmem_cache rows (of cache NAME)\n"
	      "  -m, --module NAME    only callers in module NAME ('vmlinux': not in a module)\n"
	      "  -g, --grep STR       only callers containing STR\n"
	      "  -b, --by KEY         one row per group of the call sites that pass the\n"
	      "                       filters, summed: KEY module, function, cache or\n"
	      "                       type; -n, --min and -s apply to the groups\n"
	      "  -z, --min-size SIZE  only call sites whose average allocation is >= SIZE\n"
	      "  -Z, --max-size SIZE  only call sites whose average allocation is <= SIZE\n"
	      "                       (sizes and N take K, M, G suffixes, 1024 based)\n"
	      "Output:\n"
	      "  -H, --human          sizes in K/M/G (1024 based) in the text output\n"
	      "      --csv            CSV: a header line, then one line per row (bytes)\n"
	      "      --json           JSON: the summary and the rows (bytes)\n"
	      "      --openmetrics    Prometheus text exposition (node_exporter's textfile\n"
	      "                       collector): the summary and the top call sites\n"
	      "                       (-n, default %d; --min), the rest as site=\"other\"\n"
	      "      --folded         folded stacks for flame graphs (flamegraph.pl, inferno,\n"
	      "                       speedscope): module;function;site VALUE, VALUE the\n"
	      "                       first sort key\n"
	      "      --svg FILE       a treemap picture (module, function, call site; area\n"
	      "                       the first sort key, colour the slack %%) into FILE;\n"
	      "                       the first -n sites (default %d) named, the rest grouped\n"
	      "      --summary-only   only the summary\n"
	      "      --no-summary     only the rows\n"
	      "  -o, --output FILE    write to FILE: a temporary file renamed over it when\n"
	      "                       complete (each refresh of --watch replaces it)\n"
	      "      --max-input SIZE\n"
	      "                       refuse input files larger than SIZE (default 256M)\n"
	      "Comparing two snapshots:\n"
	      "  -d, --diff           show NEW - OLD per call site (status common, new,\n"
	      "                       gone) and the summary changes\n"
	      "  -a, --all            with --diff: also the call sites that did not change\n"
	      "                       (OLD and NEW may be kmem traces: told by content)\n"
	      "Offline traces:\n"
	      "      --from-trace TRACE\n"
	      "                       the account of a kmem trace instead of FILE: ftrace's\n"
	      "                       trace or trace_pipe text, or trace-cmd report output\n"
	      "                       ('-': standard input), read in one pass; with\n"
	      "                       --leaks --once the ages of its live objects at its end\n"
	      "      --kallsyms FILE  name a trace's raw call site addresses with a copy\n"
	      "                       of the board's /proc/kallsyms (read as root)\n"
	      "Leaks and advice (the detail file, " SA_DETAIL_PATH "):\n"
	      "      --leaks          call sites holding old objects, and growing: reads the\n"
	      "                       detail file twice --interval apart (default 10 s), or\n"
	      "                       two saved snapshots OLD NEW, or with --once one\n"
	      "                       snapshot [FILE]; verdicts growing, old and flat,\n"
	      "                       steady cache (--once: old, young); ranked by verdict,\n"
	      "                       then bytes held x age (byte_secs)\n"
	      "      --leaks-min-age SECS\n"
	      "                       a site whose oldest object is younger is a steady\n"
	      "                       cache (--once: young); default 10\n"
	      "      --advise         what to change to waste less, per call site of FILE\n"
	      "                       (with the detail file): bytes saved now and over all\n"
	      "                       allocations since the reset (churn)\n"
	      "      --detail FILE    the detail file (default " SA_DETAIL_PATH ")\n"
	      "                       --leaks and --advise take -n, --min (bytes held; bytes\n"
	      "                       saved now), the filters, -H, --csv, --json and -o\n"
	      "Watching:\n"
	      "  -w, --watch          redraw the report every interval (on a terminal;\n"
	      "                       else append one report per refresh, with its time)\n"
	      "  -i, --interval SECS  seconds between refreshes (default 2, at least 0.1)\n"
	      "      --count N        exit after N refreshes\n"
	      "      --once           one refresh (slabtop's -o; the same as --count 1)\n"
	      "      --batch          append reports even on a terminal (no clearing)\n"
	      "      --delta          each refresh shows the changes since the last one\n"
	      "                       (--csv with --watch: a time series, first column time)\n"
	      "\n"
	      "  -h, --help           show this help and exit\n"
	      "  -V, --version        show the version and exit\n"
	      "\n"
	      "Exit status: 0 success, 1 a file could not be read or parsed, 2 usage error.\n",
	      METRICS_TOP, SVG_TOP);
}

static void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fputs("slabacct: ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fputs("Try 'slabacct --help' for more information.\n", stderr);
	exit(EXIT_USAGE);
}

static uint64_t positive(const char *opt, const char *arg)
{
	uint64_t v;

	if (sa_parse_u64(arg, strlen(arg), &v) || v == 0)
		usage_error("%s: '%s' is not a positive whole number", opt, arg);
	return v;
}

static int parse_sort_key(const char *arg, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(sort_keys) / sizeof(sort_keys[0]); i++)
		if (strlen(sort_keys[i].name) == len &&
		    strncmp(arg, sort_keys[i].name, len) == 0)
			return sort_keys[i].key;
	usage_error("unknown sort key '%.*s' (total, slack, waste, req, live, live_req, objs, peak, allocs, hit, frees, frag, caller, sites)",
		    (int)len, arg);
}

/* -s KEY[,KEY...] */
static void parse_sort_keys(struct opts *o, const char *arg)
{
	const char *p = arg;

	o->nkeys = 0;
	for (;;) {
		size_t len = strcspn(p, ",");

		if (o->nkeys == MAX_KEYS)
			usage_error("--sort: at most %d keys", MAX_KEYS);
		o->keys[o->nkeys++] = parse_sort_key(p, len);
		if (!p[len])
			break;
		p += len + 1;
	}
}

/* A size: digits, then optionally K, M, G, T, P or E (1024 based). */
static uint64_t parse_size(const char *opt, const char *arg)
{
	static const char units[] = "KMGTPE";
	size_t n = strlen(arg);
	char c = n ? (char)(arg[n - 1] & ~0x20) : 0;
	const char *u = c ? strchr(units, c) : NULL;
	uint64_t v;
	int shift = u ? 10 * (int)(u - units + 1) : 0;

	if (shift)
		n--;
	if (sa_parse_u64(arg, n, &v) || (shift && v > UINT64_MAX >> shift))
		usage_error("%s: '%s' is not a size (a whole number, optionally with K, M, G, T, P or E)",
			    opt, arg);
	return v << shift;
}

enum {
	OPT_KMALLOC = 256, OPT_CACHE, OPT_CSV, OPT_JSON, OPT_COUNT,
	OPT_SUMMARY_ONLY, OPT_NO_SUMMARY, OPT_ONCE, OPT_BATCH, OPT_DELTA,
	OPT_MIN, OPT_MAX_INPUT, OPT_METRICS, OPT_FOLDED, OPT_SVG,
	OPT_LEAKS, OPT_ADVISE, OPT_DETAIL, OPT_MIN_AGE, OPT_FROM_TRACE,
	OPT_KALLSYMS,
};

/* --by KEY */
static enum by_key parse_by(const char *arg)
{
	int i;

	for (i = BY_MODULE; i <= BY_TYPE; i++)
		if (strcmp(arg, by_names[i]) == 0)
			return (enum by_key)i;
	usage_error("--by: unknown key '%s' (module, function, cache or type)", arg);
}

static const struct option long_opts[] = {
	{ "sort", required_argument, NULL, 's' },
	{ "reverse", no_argument, NULL, 'r' },
	{ "top", required_argument, NULL, 'n' },
	{ "kmalloc", no_argument, NULL, OPT_KMALLOC },
	{ "cache", optional_argument, NULL, OPT_CACHE },
	{ "module", required_argument, NULL, 'm' },
	{ "grep", required_argument, NULL, 'g' },
	{ "human", no_argument, NULL, 'H' },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "openmetrics", no_argument, NULL, OPT_METRICS },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "summary-only", no_argument, NULL, OPT_SUMMARY_ONLY },
	{ "no-summary", no_argument, NULL, OPT_NO_SUMMARY },
	{ "diff", no_argument, NULL, 'd' },
	{ "all", no_argument, NULL, 'a' },
	{ "by", required_argument, NULL, 'b' },
	{ "watch", no_argument, NULL, 'w' },
	{ "interval", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "batch", no_argument, NULL, OPT_BATCH },
	{ "delta", no_argument, NULL, OPT_DELTA },
	{ "min", required_argument, NULL, OPT_MIN },
	{ "min-size", required_argument, NULL, 'z' },
	{ "max-size", required_argument, NULL, 'Z' },
	{ "output", required_argument, NULL, 'o' },
	{ "max-input", required_argument, NULL, OPT_MAX_INPUT },
	{ "leaks", no_argument, NULL, OPT_LEAKS },
	{ "advise", no_argument, NULL, OPT_ADVISE },
	{ "detail", required_argument, NULL, OPT_DETAIL },
	{ "leaks-min-age", required_argument, NULL, OPT_MIN_AGE },
	{ "from-trace", required_argument, NULL, OPT_FROM_TRACE },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void set_format(struct opts *o, enum format fmt)
{
	if (o->fmt != FMT_TEXT && o->fmt != fmt)
		usage_error("--csv, --json, --openmetrics, --folded and --svg exclude each other");
	o->fmt = fmt;
}

static void set_summary(struct opts *o, enum summary_mode m)
{
	if (o->summary != SUM_BOTH && o->summary != m)
		usage_error("--summary-only and --no-summary exclude each other");
	o->summary = m;
}

/* What --leaks and --advise take (docs/reader.md). */
static void parse_leaks_advise(struct opts *o, int nargs, char **args, int sort_set,
			       int interval_set, int once, int min_age_set)
{
	const char *m = o->leaks ? "--leaks" : "--advise", *bad = NULL;

	if (o->leaks && o->advise)
		usage_error("--leaks and --advise exclude each other");
	if (sort_set || o->reverse)
		bad = "--sort or --reverse (the ranking is fixed)";
	else if (o->diff || o->all)
		bad = "--diff or --all";
	else if (o->by)
		bad = "--by";
	else if (o->watch || o->batch || o->delta || (o->count && !once))
		bad = "--watch, --count, --batch or --delta";
	else if (o->summary != SUM_BOTH)
		bad = "--summary-only or --no-summary";
	else if (o->fmt != FMT_TEXT && o->fmt != FMT_CSV && o->fmt != FMT_JSON)
		bad = "--openmetrics, --folded or --svg";
	if (bad)
		usage_error("%s does not go with %s", m, bad);
	if (!o->detail)
		o->detail = SA_DETAIL_PATH;
	if (o->advise) {
		if (once || interval_set || min_age_set)
			usage_error("--once, --interval and --leaks-min-age go with --leaks");
		if (nargs > 1)
			usage_error("--advise reads one FILE (the detail file is --detail's)");
		if (nargs && !strcmp(args[0], "-") && !strcmp(o->detail, "-"))
			usage_error("--advise: FILE and --detail cannot both be standard input");
		return;
	}
	if (!min_age_set)
		o->min_age = 10;
	o->once = once;
	if (nargs > 2 || (once && nargs > 1) || (!once && nargs == 1))
		usage_error("--leaks takes two snapshots OLD NEW, none (it reads the detail file twice), or --once [FILE]");
	if (nargs && strcmp(o->detail, SA_DETAIL_PATH))
		usage_error("--detail names the file --leaks reads when no FILE is given");
	if (nargs == 2 && !strcmp(args[0], "-") && !strcmp(args[1], "-"))
		usage_error("--leaks: OLD and NEW cannot both be standard input");
	if (interval_set && (nargs || once))
		usage_error("--interval goes with a live --leaks (no FILE, no --once)");
	if (!interval_set)
		o->interval = 10.0;
	else if (o->interval < 1.0)
		usage_error("--leaks: --interval is at least 1 second (the module's clock counts seconds)");
	if (!nargs && !once && !strcmp(o->detail, "-"))
		usage_error("--leaks reads the detail file twice: it cannot read standard input");
}

static void parse_args(struct opts *o, int argc, char **argv)
{
	int c, interval_set = 0, once = 0, sort_set = 0, min_age_set = 0;
	const char *svg = NULL;
	char *end;
	size_t i;

	memset(o, 0, sizeof(*o));
	o->keys[0] = SA_TOTAL;
	o->nkeys = 1;
	o->interval = 2.0;
	o->max_input = SA_MAX_INPUT;
	argv[0] = (char *)"slabacct";	/* getopt's messages name the program */
	while ((c = getopt_long(argc, argv, "s:rn:m:g:Hdab:wi:hVz:Z:o:", long_opts, NULL)) != -1) {
		switch (c) {
		case 's':
			parse_sort_keys(o, optarg);
			sort_set = 1;
			break;
		case 'z':
			o->min_size = parse_size("--min-size", optarg);
			break;
		case 'Z':
			o->max_size = parse_size("--max-size", optarg);
			break;
		case OPT_MIN:
			o->min = parse_size("--min", optarg);
			o->min_set = 1;
			break;
		case OPT_MAX_INPUT:
			o->max_input = parse_size("--max-input", optarg);
			if (!o->max_input)
				usage_error("--max-input: '%s' is not a positive size", optarg);
			break;
		case 'o':
			if (optarg[0] == '-' && optarg[1])
				usage_error("--output: '%s' is not a file name (slabtop's -o is --once here)",
					    optarg);
			o->output = optarg[0] == '-' ? NULL : optarg;	/* '-': standard output */
			break;
		case OPT_ONCE:
			once = 1;
			break;
		case OPT_LEAKS:
			o->leaks = 1;
			break;
		case OPT_ADVISE:
			o->advise = 1;
			break;
		case OPT_DETAIL:
			o->detail = optarg;
			break;
		case OPT_MIN_AGE:
			if (sa_parse_u64(optarg, strlen(optarg), &o->min_age))
				usage_error("--leaks-min-age: '%s' is not a whole number of seconds", optarg);
			min_age_set = 1;
			break;
		case OPT_BATCH:
			o->batch = 1;
			break;
		case OPT_FROM_TRACE:
			o->from_trace = optarg;
			break;
		case OPT_KALLSYMS:
			o->kallsyms = optarg;
			break;
		case OPT_DELTA:
			o->delta = 1;
			break;
		case 'r':
			o->reverse = 1;
			break;
		case 'n':
			o->top = positive("--top", optarg);
			break;
		case OPT_KMALLOC:
			o->only_kmalloc = 1;
			break;
		case OPT_CACHE:
			o->only_cache = 1;
			free(o->cache_name);
			o->cache_name = NULL;
			if (optarg) {
				/* the file writes whitespace in names as '_' */
				o->cache_name = strdup(optarg);
				if (!o->cache_name)
					usage_error("out of memory");
				for (i = 0; o->cache_name[i]; i++)
					if (o->cache_name[i] == ' ' || o->cache_name[i] == '\t')
						o->cache_name[i] = '_';
			}
			break;
		case 'm':
			o->module = optarg;
			break;
		case 'g':
			o->grep = optarg;
			break;
		case 'H':
			o->human = 1;
			break;
		case OPT_CSV:
			set_format(o, FMT_CSV);
			break;
		case OPT_JSON:
			set_format(o, FMT_JSON);
			break;
		case OPT_METRICS:
			set_format(o, FMT_METRICS);
			break;
		case OPT_FOLDED:
			set_format(o, FMT_FOLDED);
			break;
		case OPT_SVG:
			set_format(o, FMT_SVG);
			svg = optarg;
			break;
		case OPT_SUMMARY_ONLY:
			set_summary(o, SUM_ONLY);
			break;
		case OPT_NO_SUMMARY:
			set_summary(o, SUM_NONE);
			break;
		case 'd':
			o->diff = 1;
			break;
		case 'a':
			o->all = 1;
			break;
		case 'b':
			o->by = parse_by(optarg);
			break;
		case 'w':
			o->watch = 1;
			break;
		case 'i':
			errno = 0;
			o->interval = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(o->interval) ||
			    o->interval < MIN_INTERVAL || o->interval > 86400)
				usage_error("--interval: '%s' is not a number of seconds (%g <= SECS <= 86400)",
					    optarg, MIN_INTERVAL);
			interval_set = 1;
			break;
		case OPT_COUNT:
			o->count = positive("--count", optarg);
			break;
		case 'h':
			usage(stdout);
			exit(fflush(stdout) ? 1 : 0);
		case 'V':
			printf("slabacct " SLABACCT_VERSION " (reads /proc/slab_account format %d.x)\n",
			       SA_FORMAT_MAJOR);
			exit(fflush(stdout) ? 1 : 0);
		default:
			usage_error(NULL);
		}
	}
	if (once) {
		if (o->count > 1)
			usage_error("--once and --count exclude each other");
		o->count = 1;
	}
	if (o->only_kmalloc && o->only_cache)
		usage_error("--kmalloc and --cache exclude each other");
	if (o->from_trace) {
		if (o->advise)
			usage_error("--advise needs the running kernel's size classes: not with --from-trace");
		if (o->leaks && !once)
			usage_error("--leaks with --from-trace takes --once (the ages at the trace's end)");
		if (o->detail)
			usage_error("--from-trace is the input: not with --detail");
		if (o->watch)
			usage_error("--from-trace reads a trace once: not with --watch");
		if (o->diff)
			usage_error("--diff takes traces as OLD or NEW (told by content): not with --from-trace");
		if (argc - optind)
			usage_error("--from-trace names the input: no FILE besides it");
	}
	if (o->kallsyms && !o->from_trace && !o->diff)
		usage_error("--kallsyms names the call sites of a trace: with --from-trace or --diff");
	if (o->kallsyms && !strcmp(o->kallsyms, "-") &&
	    ((o->from_trace && !strcmp(o->from_trace, "-")) ||
	     (o->diff && argc - optind == 2 &&
	      (!strcmp(argv[optind], "-") || !strcmp(argv[optind + 1], "-")))))
		usage_error("--kallsyms and the trace cannot both be standard input");
	if (o->leaks || o->advise) {
		parse_leaks_advise(o, argc - optind, argv + optind, sort_set,
				   interval_set, once, min_age_set);
		return;
	}
	if (o->detail || min_age_set)
		usage_error("--detail and --leaks-min-age go with --leaks or --advise");
	if ((interval_set || (o->count && !once) || o->batch || o->delta) && !o->watch)
		usage_error("--interval, --count, --batch and --delta go with --watch");
	if (o->min_set && o->keys[0] == KEY_CALLER)
		usage_error("--min needs a numeric first sort key (not caller)");
	if (o->all && !o->diff)
		usage_error("--all goes with --diff");
	for (i = 0; i < o->nkeys && !o->by; i++)
		if (o->keys[i] == KEY_SITES)
			usage_error("--sort: the key sites goes with --by");
	if (o->by && o->summary == SUM_ONLY)
		usage_error("--by groups the rows: --summary-only does not go with it");
	if (o->by && (svg || o->fmt == FMT_FOLDED))
		usage_error("--by does not go with --folded or --svg: they nest call sites in functions in modules already");
	if (o->by && o->fmt == FMT_METRICS)
		usage_error("--by does not go with --openmetrics: its series carry module and function labels (sum by (module) in PromQL)");
	if (o->watch && (o->diff || o->fmt == FMT_JSON))
		usage_error("--watch shows the text or CSV report of one file (no --diff or --json)");
	if (svg) {
		if (o->output)
			usage_error("--svg FILE names its file: not with -o");
		if (o->diff || o->watch)
			usage_error("--svg draws one file: not with --diff or --watch");
		if (o->keys[0] == KEY_FRAG || o->keys[0] == KEY_CALLER)
			usage_error("--svg sizes the areas by the first sort key: a number of bytes or a count (not frag or caller)");
		if (o->summary == SUM_ONLY)
			usage_error("--svg draws rows: --summary-only does not go with it");
		o->output = strcmp(svg, "-") ? svg : NULL;
		if (!o->top)
			o->top = SVG_TOP;
	}
	if (o->fmt == FMT_FOLDED && (o->diff || o->watch))
		usage_error("--folded writes one file's stacks: not with --diff or --watch");
	if (o->fmt == FMT_FOLDED && (o->keys[0] == KEY_FRAG || o->keys[0] == KEY_CALLER))
		usage_error("--folded weighs the stacks by the first sort key: a number of bytes or a count (not frag or caller)");
	if (o->fmt == FMT_FOLDED && o->summary == SUM_ONLY)
		usage_error("--folded has rows only: --summary-only does not go with it");
	if (o->fmt == FMT_METRICS && o->diff)
		usage_error("--openmetrics writes one file's metrics: not with --diff");
	if (o->fmt == FMT_METRICS && o->delta)
		usage_error("--openmetrics has counters: --delta does not go with it");
	if (o->fmt == FMT_METRICS && !o->top)
		o->top = METRICS_TOP;
	if (o->fmt == FMT_CSV && o->summary == SUM_ONLY)
		usage_error("--csv has rows only: --summary-only does not go with it");
	if (o->diff && argc - optind != 2)
		usage_error("--diff needs two files, OLD and NEW");
	if (o->diff && strcmp(argv[optind], "-") == 0 && strcmp(argv[optind + 1], "-") == 0)
		usage_error("--diff: OLD and NEW cannot both be standard input");
	if (!o->diff && argc - optind > 1)
		usage_error("one FILE at most (or --diff OLD NEW)");
	if (o->watch && optind < argc && strcmp(argv[optind], "-") == 0)
		usage_error("--watch rereads the file: it cannot read standard input");
}

int main(int argc, char **argv)
{
	struct sa_file old, new;
	struct opts o;
	int ret = 1;

	parse_args(&o, argc, argv);
	if (o.kallsyms) {
		char *err = NULL;

		if (sa_kallsyms_load(&o.ks, o.kallsyms, &err)) {
			fprintf(stderr, "slabacct: %s\n", err ? err : "out of memory");
			free(err);
			return 1;
		}
	}
	out_mode = umask(022);
	umask(out_mode);
	out_mode = 0666 & ~out_mode;
	if (o.leaks) {
		ret = run_leaks(&o, argc - optind, argv + optind);
	} else if (o.advise) {
		ret = run_advise(&o, optind < argc ? argv[optind] : SA_DEFAULT_PATH);
	} else if (o.watch) {
		ret = watch(&o, optind < argc ? argv[optind] : SA_DEFAULT_PATH);
	} else if (o.diff) {
		if (load(&o, &old, argv[optind]) == 0) {
			if (load(&o, &new, argv[optind + 1]) == 0) {
				if (out_begin(&o) == 0)
					ret = out_end(&o, !report(&o, &old, &new)) ? 1 : 0;
				sa_file_free(&new);
			}
			sa_file_free(&old);
		}
	} else if (load(&o, &new, o.from_trace ? o.from_trace :
			optind < argc ? argv[optind] : SA_DEFAULT_PATH) == 0) {
		if (out_begin(&o) == 0)
			ret = out_end(&o, !report(&o, NULL, &new)) ? 1 : 0;
		sa_file_free(&new);
	}
	free(o.cache_name);
	sa_kallsyms_free(o.ks);
	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "slabacct: write error%s%s\n", errno ? ": " : "",
			errno ? strerror(errno) : "");
		ret = 1;
	}
	return ret;
}
