// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_leaks - leak suspects from the detail file (see cmd_leaks.h): each
 * site holding objects gets a verdict from its oldest object, its growth
 * and the window's length (growth over too short a window is no verdict),
 * and the sites are ranked by verdict, then byte_secs; printed as one
 * column table in text, CSV or JSON.
 */
#include "cmd_leaks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_common.h"
#include "sa_caller.h"
#include "sa_dsites.h"
#include "sa_esc.h"
#include "sa_input.h"
#include "sa_json.h"
#include "sa_out.h"
#include "sa_rows.h"
#include "sa_table.h"
#include "sa_time.h"

enum verdict { V_GROWING, V_UNLOADED, V_SHORT, V_FLAT, V_STEADY, V_OLD, V_YOUNG };
static const char *const verdict_names[] = {
	"growing", "left at unload", "too short to tell", "old and flat", "steady cache", "old",
	"young",
};

/*
 * The shortest window (NEW now - OLD now, in seconds) over which growth is
 * called growing: at least --leaks-min-age (objects added in a shorter
 * window have not had the time to become old), and never under
 * LEAKS_MIN_WINDOW (the module's clock counts whole seconds, and over a
 * few seconds one step of a workload, files created or a cache filling
 * up, reads as a rate).
 */
#define LEAKS_MIN_WINDOW 10

static uint64_t min_window(const struct opts *o)
{
	return o->min_age > LEAKS_MIN_WINDOW ? o->min_age : LEAKS_MIN_WINDOW;
}

struct leak {
	const struct dsite *s;	/* in NEW */
	uint64_t old_objs, old_bytes;
	struct num dobjs, dbytes;
	enum verdict verdict;
};

struct leaks {
	const struct opts *o;
	const struct sa_detail *old, *new;
	uint64_t secs;		/* NEW now - OLD now */
	struct leak *l;
	size_t n, shown, total;	/* sites listed, shown (-n), holding objects */
	size_t nshort;		/* sites too short to tell */
};

static int leak_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct leak *a = pa, *b = pb;
	const uint64_t *x = a->s->v, *y = b->s->v;

	(void)ctx;
	if (a->verdict != b->verdict)
		return a->verdict < b->verdict ? -1 : 1;
	if (x[SA_D_BYTE_SECS] != y[SA_D_BYTE_SECS])
		return x[SA_D_BYTE_SECS] > y[SA_D_BYTE_SECS] ? -1 : 1;
	if (x[SA_D_BYTES] != y[SA_D_BYTES])
		return x[SA_D_BYTES] > y[SA_D_BYTES] ? -1 : 1;
	return site_cmp(a->s->r->site.type_str, a->s->r->site.caller, b->s->r->site.type_str,
			b->s->r->site.caller);
}

/* ---- the table: one column list for text, CSV and JSON ---- */

enum { L_ONCE = 1, L_TWO = 2, L_ALL = 3 };
enum { C_RANK, C_HELD, C_REQ, C_OBJS, C_OLDEST, C_OBJS_MIN, C_BYTES_MIN,
       C_BYTE_SECS, C_AGES, C_DOBJS, C_DBYTES, C_SECONDS, C_VERDICT, C_TYPE,
       C_CALLER };

static const struct sa_col leak_cols[] = {
	/* title, name, text, csv, json, flags, id */
	{ "rank", NULL, L_ALL, L_ALL, L_ALL, 0, C_RANK },
	{ "held", NULL, L_ALL, L_ALL, L_ALL, SA_COL_BYTES, C_HELD },
	{ "req", NULL, 0, L_ALL, L_ALL, 0, C_REQ },
	{ "objs", NULL, L_ALL, L_ALL, L_ALL, 0, C_OBJS },
	{ "oldest", NULL, L_ALL, L_ALL, L_ALL, SA_COL_AGE, C_OLDEST },
	{ "objs/min", NULL, L_TWO, 0, 0, SA_COL_PLUS, C_OBJS_MIN },
	{ "bytes/min", NULL, L_TWO, 0, 0, SA_COL_PLUS | SA_COL_BYTES, C_BYTES_MIN },
	{ "byte_secs", NULL, L_ALL, L_ALL, L_ALL, 0, C_BYTE_SECS },
	{ "ages", NULL, 0, 0, L_ALL, 0, C_AGES },
	{ "delta_objs", NULL, 0, L_TWO, L_TWO, 0, C_DOBJS },
	{ "delta_bytes", NULL, 0, L_TWO, L_TWO, 0, C_DBYTES },
	{ "seconds", NULL, 0, L_TWO, 0, 0, C_SECONDS },
	{ "objs/min", "objs_per_min", 0, L_TWO, L_TWO, 0, C_OBJS_MIN },
	{ "bytes/min", "bytes_per_min", 0, L_TWO, L_TWO, 0, C_BYTES_MIN },
	{ "verdict", NULL, L_ALL, L_ALL, L_ALL, SA_COL_LEFT, C_VERDICT },
	{ "type", NULL, 0, L_ALL, L_ALL, SA_COL_LEFT, C_TYPE },
	{ "caller", NULL, L_ALL, L_ALL, L_ALL, SA_COL_LEFT, C_CALLER },
	{ NULL, NULL, 0, 0, 0, 0, 0 },
};

static void leak_cell(const struct sa_table *t, size_t row, const struct sa_col *c,
		      enum sa_fmt fmt, struct sa_cell *x)
{
	const struct leaks *L = t->ctx;
	const struct leak *l = &L->l[row];
	const uint64_t *v = l->s->v;

	(void)fmt;
	switch (c->id) {
	case C_RANK:
		sa_cell_u64(x, row + 1);
		break;
	case C_HELD:
		sa_cell_u64(x, v[SA_D_BYTES]);
		break;
	case C_REQ:
		sa_cell_u64(x, v[SA_D_REQ]);
		break;
	case C_OBJS:
		sa_cell_u64(x, v[SA_D_OBJS]);
		break;
	case C_OLDEST:
		sa_cell_u64(x, v[SA_D_OLDEST]);
		break;
	case C_OBJS_MIN:
		x->kind = SA_CELL_TENTHS;
		x->v = per_time(l->dobjs, L->secs, 600);
		break;
	case C_BYTES_MIN:
		x->kind = SA_CELL_NUM;
		x->v = per_time(l->dbytes, L->secs, 60);
		break;
	case C_BYTE_SECS:
		sa_cell_u64(x, v[SA_D_BYTE_SECS]);
		break;
	case C_AGES:
		x->kind = SA_CELL_LIST;
		x->list = v + SA_D_AGE;
		x->nlist = SA_NAGES;
		break;
	case C_DOBJS:
		x->kind = SA_CELL_NUM;
		x->v = l->dobjs;
		break;
	case C_DBYTES:
		x->kind = SA_CELL_NUM;
		x->v = l->dbytes;
		break;
	case C_SECONDS:
		sa_cell_u64(x, L->secs);
		break;
	case C_VERDICT:
		sa_cell_str(x, verdict_names[l->verdict]);
		break;
	case C_TYPE:
		sa_cell_str(x, l->s->r->site.type_str);
		break;
	default:
		sa_cell_str(x, l->s->r->site.caller);
		break;
	}
}

static void json_file(struct sa_json *j, const char *key, const struct sa_detail *d)
{
	sa_json_key(j, key);
	sa_json_open(j, '{', 0);
	sa_json_kstr(j, "file", d->name);
	sa_json_ku64(j, "now", d->now);
	sa_json_close(j);
}

static void print_leaks(const struct leaks *L)
{
	const struct opts *o = L->o;
	struct sa_table t = { leak_cols, L->old ? L_TWO : L_ONCE, L->shown, leak_cell,
			      NULL, NULL, o->human, 0, L };
	struct sa_json j;
	char a[32];

	if (o->fmt == FMT_JSON) {
		sa_json_begin(&j, stdout);
		if (L->old)
			json_file(&j, "old", L->old);
		json_file(&j, "new", L->new);
		if (L->old)
			sa_json_ku64(&j, "seconds", L->secs);
		sa_json_ku64(&j, "min_age", o->min_age);
		sa_json_klist(&j, "age_bounds", L->new->age_bounds, SA_NAGES - 1);
		sa_json_key(&j, "sites");
		sa_table_json(&t, &j);
		sa_json_end(&j);
		return;
	}
	if (o->fmt == FMT_CSV) {
		sa_table_csv(&t, NULL, 0);
		return;
	}
	if (L->old) {
		sa_esc_str(stdout, L->old->name, SA_ESC_TEXT);
		printf(" (now %" PRIu64 ") -> ", L->old->now);
	}
	sa_esc_str(stdout, L->new->name, SA_ESC_TEXT);
	printf(" (now %" PRIu64 ")", L->new->now);
	if (L->old)
		printf(", %" PRIu64 " s apart", L->secs);
	fmt_age(a, sizeof(a), o->min_age);
	printf(L->old ? "; steady cache: oldest under %s\n" : "; young: oldest under %s\n", a);
	if (L->nshort)
		printf("too short to tell: %zu call site%s grew in %" PRIu64 " s; growing needs %" PRIu64 " s or more (--leaks-min-age, at least %d s): read them further apart\n",
		       L->nshort, L->nshort == 1 ? "" : "s", L->secs, min_window(o), LEAKS_MIN_WINDOW);
	if (L->shown != L->total)
		printf("call sites holding objects: %zu of %zu shown\n", L->shown, L->total);
	putchar('\n');
	sa_table_text(&t);
}

/*
 * The leaks of @old (NULL with --once) -> @new into @L: sites holding no
 * object in NEW are left out; the others that pass the filters get a
 * verdict and are ranked by verdict, then byte_secs.  @ns and @os hold
 * the sites @L points into.  0, or -1 with the message on stderr.
 */
static int build_leaks(const struct opts *o, const struct sa_detail *old,
		       const struct sa_detail *new, struct leaks *L, struct dsites *ns,
		       struct dsites *os)
{
	size_t i, j = 0;
	char *err;

	memset(os, 0, sizeof(*os));
	L->o = o;
	L->old = old;
	L->new = new;
	L->secs = old ? new->now - old->now : 0;
	if (dsites_get(new, 0, ns, &err) || (old && dsites_get(old, 0, os, &err))) {
		cmd_error(err);
		return -1;
	}
	L->l = calloc(ns->n + 1, sizeof(*L->l));
	if (!L->l) {
		cmd_error(NULL);
		return -1;
	}
	for (i = 0; i < ns->n; i++) {
		const struct dsite *s = &ns->s[i];
		struct leak *t = &L->l[L->n];
		struct sa_row row;
		int c = 1;

		while (j < os->n && (c = site_cmp(os->s[j].r->site.type_str, os->s[j].r->site.caller,
						  s->r->site.type_str, s->r->site.caller)) < 0)
			j++;
		if (!s->v[SA_D_OBJS])
			continue;
		L->total++;
		dsite_as_row(s, &row);
		if (!sa_keep_row(&o->sel.filter, &row) || s->v[SA_D_BYTES] < o->sel.min)
			continue;
		t->s = s;
		if (j < os->n && c == 0) {
			t->old_objs = os->s[j].v[SA_D_OBJS];
			t->old_bytes = os->s[j].v[SA_D_BYTES];
		}
		t->dobjs = num_delta(t->old_objs, s->v[SA_D_OBJS]);
		t->dbytes = num_delta(t->old_bytes, s->v[SA_D_BYTES]);
		if (sa_caller_unloaded(s->r->site.caller))	/* (1.3) a retired site */
			t->verdict = V_UNLOADED;
		else if (!old)
			t->verdict = s->v[SA_D_OLDEST] >= o->min_age ? V_OLD : V_YOUNG;
		else if (s->v[SA_D_OLDEST] < o->min_age)
			t->verdict = V_STEADY;
		else if ((!t->dobjs.neg && t->dobjs.mag) ||
			 (!t->dobjs.mag && !t->dbytes.neg && t->dbytes.mag))
			t->verdict = L->secs >= min_window(o) ? V_GROWING : V_SHORT;
		else
			t->verdict = V_FLAT;
		L->nshort += t->verdict == V_SHORT;
		L->n++;
	}
	if (sa_sort_array(L->l, L->n, sizeof(*L->l), leak_cmp, NULL)) {
		cmd_error(NULL);
		return -1;
	}
	return 0;
}

/* --leaks: @old (NULL with --once) and @new, ranked and printed. */
static int report_leaks(const struct opts *o, const struct sa_detail *old,
			const struct sa_detail *new)
{
	struct leaks L = { o, old, new, 0, NULL, 0, 0, 0, 0 };
	struct dsites ns, os;
	int ret = -1;

	if (build_leaks(o, old, new, &L, &ns, &os) == 0) {
		L.shown = o->sel.top && o->sel.top < L.n ? (size_t)o->sel.top : L.n;
		print_leaks(&L);
		ret = 0;
	}
	free(L.l);
	dsites_free(&ns);
	dsites_free(&os);
	return ret;
}

int leaks_window(const struct opts *o, const struct sa_detail *old, const struct sa_detail *new)
{
	char *t1, *t2;

	if (new->now > old->now && new->now - old->now >= min_window(o))
		return 0;
	fprintf(stderr, "slabacct: %s and %s are %" PRIu64 " s apart: too short to tell growth from a burst (growing needs %" PRIu64 " s or more: --leaks-min-age, at least %d s)\n",
		sa_esc_text(old->name, &t1), sa_esc_text(new->name, &t2),
		new->now > old->now ? new->now - old->now : 0, min_window(o), LEAKS_MIN_WINDOW);
	free(t1);
	free(t2);
	return -1;
}

int leaks_growing(const struct opts *o, const struct sa_detail *old, const struct sa_detail *new,
		  int (*fn)(void *ctx, const struct leak_site *s), void *ctx)
{
	struct leaks L = { o, old, new, 0, NULL, 0, 0, 0, 0 };
	struct dsites ns, os;
	size_t i;
	int ret = -1;

	if (leaks_window(o, old, new))
		return -1;
	if (build_leaks(o, old, new, &L, &ns, &os) == 0) {
		for (i = 0; i < L.n && L.l[i].verdict == V_GROWING; i++) {
			const struct leak *l = &L.l[i];
			struct leak_site x = { l->s->r->site.caller, l->s->r->site.type_str, l->old_objs,
					       l->s->v[SA_D_OBJS], l->old_bytes, l->s->v[SA_D_BYTES],
					       l->s->v[SA_D_OLDEST], L.secs };

			if (fn(ctx, &x))
				break;
		}
		ret = i < L.n && L.l[i].verdict == V_GROWING ? -1 : 0;
	}
	free(L.l);
	dsites_free(&ns);
	dsites_free(&os);
	return ret;
}

/* Write the report of @old -> @new to the output. */
static int output(const struct opts *o, const struct sa_detail *old,
		  const struct sa_detail *new)
{
	if (sa_out_begin(o->output))
		return 1;
	return sa_out_end(o->output, !report_leaks(o, old, new)) ? 1 : 0;
}

/* --leaks --once --from-trace TRACE: the ages at the trace's end. */
static int trace_leaks(const struct opts *o)
{
	struct sa_detail d;
	struct sa_trace_opts to = { o->ks, 1, &d };
	struct sa_file f;
	char *err = NULL;
	int ret;

	if (sa_trace_load(&f, o->from_trace, &to, &err)) {
		cmd_error(err);
		return 1;
	}
	cmd_trace_warnings(&f);
	ret = output(o, NULL, &d);
	sa_detail_free(&d);
	sa_file_free(&f);
	return ret;
}

int cmd_leaks(const struct opts *o)
{
	struct sa_detail old, new;
	const char *p0 = o->nargs ? o->args[0] : o->detail;
	const char *p1 = o->nargs == 2 ? o->args[1] : o->detail;
	int ret = 1;

	if (o->from_trace)
		return trace_leaks(o);
	if (cmd_load_detail(o, &old, p0))
		return 1;
	if (o->once) {
		ret = output(o, NULL, &old);
		sa_detail_free(&old);
		return ret;
	}
	if (!o->nargs) {
		/* a person at a terminal is told why nothing happens for a while */
		int tty = isatty(STDERR_FILENO);
		char *tmp;

		if (tty)
			fprintf(stderr, "slabacct: --leaks: reading %s again in %g s (--interval), to see what grows...",
				sa_esc_text(p1, &tmp), o->interval), free(tmp);
		sa_sleep(o->interval, NULL, NULL);
		if (tty)
			fputs("\r\033[K", stderr);
	}
	if (cmd_load_detail(o, &new, p1)) {
		sa_detail_free(&old);
		return 1;
	}
	if (new.now <= old.now) {
		char *t1, *t2;
		const char *n1 = sa_esc_text(old.name, &t1), *n2 = sa_esc_text(new.name, &t2);

		if (new.now == old.now)
			fprintf(stderr, "slabacct: %s and %s were read in the same second (now %" PRIu64 "): no growth to measure%s\n",
				n1, n2, new.now, o->nargs ? "" : " (a longer --interval)");
		else
			fprintf(stderr, "slabacct: NEW %s (now %" PRIu64 ") is earlier than OLD %s (now %" PRIu64 "): the module was reloaded in between, or the files are swapped\n",
				n2, new.now, n1, old.now);
		free(t1);
		free(t2);
	} else {
		ret = output(o, &old, &new);
	}
	sa_detail_free(&new);
	sa_detail_free(&old);
	return ret;
}
