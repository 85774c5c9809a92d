// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_advise - the advice of a main file and its detail file (see
 * cmd_advise.h): the sites joined, advised (cmd_advice.c), ranked, and
 * printed as column tables: text (a row per site, its advice below), CSV
 * (a row per advice) or JSON (sites, each with its advice).
 */
#define _POSIX_C_SOURCE 200809L

#include "cmd_advise.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_common.h"
#include "sa_advice.h"
#include "sa_esc.h"
#include "sa_json.h"
#include "sa_merge.h"
#include "sa_out.h"
#include "sa_table.h"

static const char *const adv_names[] = { "smaller", "cache", "padded", "sizes" };

struct advise {
	const struct opts *o;
	const struct sa_file *f;
	const struct sa_detail *d;
	struct asite *s;	/* ranked */
	size_t n, shown, total;	/* sites with advice: listed, shown (-n), before the filters */
	char **after;		/* text: the advice lines of each site shown */
	struct sa_table *sub;	/* JSON: each site's advice */
	size_t (*flat)[2];	/* CSV: (site, advice) of each line */
	size_t nflat;
};

/* ---- the tables: sites (text, JSON) and advice (CSV; JSON in a site) ---- */

enum { A_SITES = 1, A_FLAT = 2, A_NESTED = 4 };
enum { C_RANK, C_NOW, C_CHURN, C_OBJS, C_ALLOCS, C_TOTAL, C_SLACK, C_LIVE,
       C_LIVE_REQ, C_REQ_MIN, C_REQ_MAX, C_SIZES, C_TYPE, C_CALLER, C_ADVICE,
       C_KIND, C_OBJECT, C_TARGET, C_PER_OBJECT, C_TEXT };

static const struct sa_col site_cols[] = {
	/* title, name, text, csv, json, flags, id */
	{ "rank", NULL, A_SITES, 0, A_SITES, 0, C_RANK },
	{ "now", "saved_now", A_SITES, 0, A_SITES, SA_COL_BYTES, C_NOW },
	{ "churn", "saved_churn", A_SITES, 0, A_SITES, SA_COL_BYTES, C_CHURN },
	{ "objs", NULL, A_SITES, 0, A_SITES, 0, C_OBJS },
	{ "allocs", NULL, A_SITES, 0, A_SITES, 0, C_ALLOCS },
	{ "total", NULL, 0, 0, A_SITES, 0, C_TOTAL },
	{ "slack", NULL, 0, 0, A_SITES, 0, C_SLACK },
	{ "live", NULL, 0, 0, A_SITES, 0, C_LIVE },
	{ "live_req", NULL, 0, 0, A_SITES, 0, C_LIVE_REQ },
	{ "req_min", NULL, 0, 0, A_SITES, 0, C_REQ_MIN },
	{ "req_max", NULL, 0, 0, A_SITES, 0, C_REQ_MAX },
	{ "sizes", NULL, 0, 0, A_SITES, 0, C_SIZES },
	{ "type", NULL, A_SITES, 0, A_SITES, SA_COL_LEFT, C_TYPE },
	{ "caller", NULL, A_SITES, 0, A_SITES, SA_COL_LEFT, C_CALLER },
	{ "advice", NULL, 0, 0, A_SITES, SA_COL_BREAK, C_ADVICE },
	{ NULL, NULL, 0, 0, 0, 0, 0 },
};

static const struct sa_col advice_cols[] = {
	{ "rank", NULL, 0, A_FLAT, 0, 0, C_RANK },
	{ "kind", NULL, 0, A_FLAT, A_NESTED, 0, C_KIND },
	{ "object", NULL, 0, A_FLAT, A_NESTED, 0, C_OBJECT },
	{ "target", NULL, 0, A_FLAT, A_NESTED, 0, C_TARGET },
	{ "per_object", NULL, 0, A_FLAT, A_NESTED, 0, C_PER_OBJECT },
	{ "saved_now", NULL, 0, A_FLAT, A_NESTED, 0, C_NOW },
	{ "saved_churn", NULL, 0, A_FLAT, A_NESTED, 0, C_CHURN },
	{ "objs", NULL, 0, A_FLAT, 0, 0, C_OBJS },
	{ "allocs", NULL, 0, A_FLAT, 0, 0, C_ALLOCS },
	{ "req_min", NULL, 0, A_FLAT, 0, 0, C_REQ_MIN },
	{ "req_max", NULL, 0, A_FLAT, 0, 0, C_REQ_MAX },
	{ "advice", NULL, 0, A_FLAT, 0, 0, C_TEXT },
	{ "text", NULL, 0, 0, A_NESTED, 0, C_TEXT },
	{ "type", NULL, 0, A_FLAT, 0, 0, C_TYPE },
	{ "caller", NULL, 0, A_FLAT, 0, 0, C_CALLER },
	{ NULL, NULL, 0, 0, 0, 0, 0 },
};

/* What a site and its advice both show. */
static int site_cell(const struct asite *s, int id, struct sa_cell *x)
{
	switch (id) {
	case C_OBJS:
		sa_cell_u64(x, s->v[SA_OBJS]);
		return 1;
	case C_ALLOCS:
		sa_cell_u64(x, s->v[SA_ALLOCS]);
		return 1;
	case C_REQ_MIN:
		sa_cell_u64(x, s->d->v[SA_D_REQ_MIN]);
		return 1;
	case C_REQ_MAX:
		sa_cell_u64(x, s->d->v[SA_D_REQ_MAX]);
		return 1;
	case C_TYPE:
		sa_cell_str(x, s->r->type_str);
		return 1;
	case C_CALLER:
		sa_cell_str(x, s->r->caller);
		return 1;
	}
	return 0;
}

static void sites_cell(const struct sa_table *t, size_t row, const struct sa_col *c,
		       enum sa_fmt fmt, struct sa_cell *x)
{
	const struct advise *A = t->ctx;
	const struct asite *s = &A->s[row];
	const uint64_t *v = s->v;

	if (site_cell(s, c->id, x))
		return;
	switch (c->id) {
	case C_RANK:
		sa_cell_u64(x, row + 1);
		break;
	case C_NOW:
	case C_CHURN:
		if (fmt == SA_FMT_TEXT && s->adv[0].kind == ADV_SIZES)
			x->kind = SA_CELL_NONE;		/* no saving claimed */
		else
			sa_cell_u64(x, c->id == C_NOW ? s->adv[0].now : s->adv[0].churn);
		break;
	case C_TOTAL:
	case C_SLACK:
	case C_LIVE:
	case C_LIVE_REQ:
		sa_cell_u64(x, v[c->id == C_TOTAL ? SA_TOTAL : c->id == C_SLACK ? SA_SLACK :
			     c->id == C_LIVE ? SA_LIVE : SA_LIVE_REQ]);
		break;
	case C_SIZES:
		x->kind = SA_CELL_LIST;
		x->list = s->d->v + SA_D_SIZE;
		x->nlist = SA_NSIZES;
		break;
	case C_ADVICE:
		x->kind = SA_CELL_TABLE;
		x->sub = &A->sub[row];
		break;
	}
}

/* A_FLAT: a row per advice of the sites shown; A_NESTED: one site's advice. */
static void advice_cell(const struct sa_table *t, size_t row, const struct sa_col *c,
			enum sa_fmt fmt, struct sa_cell *x)
{
	const struct advise *A = t->mode == A_FLAT ? t->ctx : NULL;
	const struct asite *s = A ? &A->s[A->flat[row][0]] : t->ctx;
	const struct advice *a = A ? &s->adv[A->flat[row][1]] : &s->adv[row];
	int sizes = a->kind == ADV_SIZES;

	(void)fmt;
	if (site_cell(s, c->id, x))
		return;
	switch (c->id) {
	case C_RANK:
		sa_cell_u64(x, A->flat[row][0] + 1);
		break;
	case C_KIND:
		sa_cell_str(x, adv_names[a->kind]);
		break;
	case C_OBJECT:
	case C_TARGET:
	case C_PER_OBJECT:
		if (sizes)
			x->kind = SA_CELL_NONE;
		else
			sa_cell_u64(x, c->id == C_OBJECT ? a->object : c->id == C_TARGET ?
				   a->target : a->per_object);
		break;
	case C_NOW:
	case C_CHURN:
		if (sizes && !A)
			x->kind = SA_CELL_NONE;
		else
			sa_cell_u64(x, c->id == C_NOW ? a->now : a->churn);
		break;
	case C_TEXT:
		sa_cell_str(x, a->text);
		break;
	}
}

static const char *sites_after(const struct sa_table *t, size_t row)
{
	const struct advise *A = t->ctx;

	return A->after[row];
}

/* The advice lines under site @s in the text table; NULL without memory. */
static char *after_text(const struct asite *s)
{
	char *t = strdup(""), *u;
	int a;

	for (a = 0; t && a < s->nadv; a++) {
		const struct advice *ad = &s->adv[a];

		if (ad->kind == ADV_SIZES)
			u = sa_format("%s     %s\n", t, ad->text);
		else
			u = sa_format("%s     %s: saves %" PRIu64 " bytes per object, %" PRIu64
				      " now, %" PRIu64 " churn\n", t, ad->text, ad->per_object,
				      ad->now, ad->churn);
		free(t);
		t = u;
	}
	return t;
}

static int print_advise(struct advise *A)
{
	const struct opts *o = A->o;
	const struct sa_detail *d = A->d;
	struct sa_table t = { site_cols, A_SITES, A->shown, sites_cell, sites_after,
			      NULL, o->human, 0, A };
	struct sa_json j;
	size_t i;
	int a;

	if (o->fmt == FMT_CSV) {
		A->flat = calloc(2 * A->shown + 1, sizeof(*A->flat));
		if (!A->flat)
			return -1;
		for (i = 0; i < A->shown; i++)
			for (a = 0; a < A->s[i].nadv; a++) {
				A->flat[A->nflat][0] = i;
				A->flat[A->nflat++][1] = (size_t)a;
			}
		t.cols = advice_cols;
		t.mode = A_FLAT;
		t.nrows = A->nflat;
		t.cell = advice_cell;
		sa_table_csv(&t, NULL, 0);
		return 0;
	}
	if (o->fmt == FMT_JSON) {
		A->sub = calloc(A->shown + 1, sizeof(*A->sub));
		if (!A->sub)
			return -1;
		for (i = 0; i < A->shown; i++) {
			struct sa_table sub = { advice_cols, A_NESTED, (size_t)A->s[i].nadv,
						advice_cell, NULL, NULL, 0, 0, &A->s[i] };

			A->sub[i] = sub;
		}
		sa_json_begin(&j, stdout);
		sa_json_kstr(&j, "file", A->f->name);
		sa_json_kstr(&j, "detail", d->name);
		sa_json_ku64(&j, "page_size", d->page_size);
		sa_json_klist(&j, "kmalloc_classes", d->classes, d->nclasses);
		sa_json_klist(&j, "size_bounds", d->size_bounds, SA_NSIZES - 1);
		sa_json_key(&j, "sites");
		sa_table_json(&t, &j);
		sa_json_end(&j);
		return 0;
	}
	A->after = calloc(A->shown + 1, sizeof(*A->after));
	if (!A->after)
		return -1;
	for (i = 0; i < A->shown; i++)
		if (!(A->after[i] = after_text(&A->s[i])))
			return -1;
	sa_esc_str(stdout, A->f->name, SA_ESC_TEXT);
	fputs(" with ", stdout);
	sa_esc_str(stdout, d->name, SA_ESC_TEXT);
	printf(": kmalloc classes");
	for (i = 0; i < d->nclasses; i++)
		printf(" %" PRIu64, d->classes[i]);
	printf(", page size %" PRIu64 "\n", d->page_size);
	printf("bytes that could be saved: now (live objects), churn (every allocation since the reset)\n");
	if (A->shown != A->total)
		printf("call sites with advice: %zu of %zu shown\n", A->shown, A->total);
	putchar('\n');
	sa_table_text(&t);
	return 0;
}

/* ---- the sites, joined and ranked ---- */

static int asite_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct asite *a = pa, *b = pb;
	uint64_t x[3] = { a->adv[0].now, a->adv[0].churn, a->v[SA_SLACK] };
	uint64_t y[3] = { b->adv[0].now, b->adv[0].churn, b->v[SA_SLACK] };
	int i;

	(void)ctx;
	for (i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] > y[i] ? -1 : 1;
	return site_cmp(a->r->type_str, a->r->caller, b->r->type_str, b->r->caller);
}

static void free_advice(struct asite *s)
{
	int k;

	for (k = 0; k < s->nadv; k++)
		free(s->adv[k].text);
	s->nadv = 0;
}

/* The main file's call sites (rows of one caller and type merged), joined with @ds. */
static int join(struct advise *A, const struct dsites *ds, struct sa_groups *g,
		size_t *missing)
{
	const struct sa_file *f = A->f;
	struct sa_merge_in *in = calloc(f->nrows + 1, sizeof(*in));
	struct sa_merge_err e;
	size_t i, j = 0;

	if (!in)
		return -1;
	for (i = 0; i < f->nrows; i++) {
		in[i].key = f->rows[i].caller;
		in[i].key2 = f->rows[i].type_str;
		in[i].v = f->rows[i].v;
		in[i].idx = i;
	}
	if (sa_merge(in, f->nrows, SA_NFIELDS, NULL, g, &e)) {
		cmd_error(sa_merge_message(&e, in, f->name, sa_field_names, "the rows of caller "));
		free(in);
		return -2;
	}
	free(in);
	A->s = calloc(g->n + 1, sizeof(*A->s));
	if (!A->s)
		return -1;
	for (i = 0; i < g->n; i++) {
		struct asite *t = &A->s[A->n];
		int c = 1;

		t->r = &f->rows[g->g[i].first];
		t->v = g->g[i].v;
		while (j < ds->n && (c = site_cmp(ds->s[j].r->site.type_str, ds->s[j].caller,
						  t->r->type_str, t->r->caller)) < 0)
			j++;
		if (j < ds->n && c == 0)
			t->d = &ds->s[j];
		else
			(*missing)++;
		A->n += t->d != NULL;
	}
	return 0;
}

/* --advise [FILE]: the main file and the detail file, joined by type and caller. */
static int report_advise(const struct opts *o, const struct sa_file *f,
			 const struct sa_detail *d)
{
	struct advise A = { o, f, d, NULL, 0, 0, 0, NULL, NULL, NULL, 0 };
	struct sa_groups g = { NULL, 0, NULL };
	struct dsites ds;
	size_t i, k, missing = 0;
	int ret = -1, r;
	char *err;

	/* (1.6) a site's child rows are its own, as in the main file's report */
	if (dsites_get(d, 1, &ds, &err)) {
		cmd_error(err);
		return -1;
	}
	r = join(&A, &ds, &g, &missing);
	if (r) {
		if (r == -1)
			cmd_error(NULL);
		goto out;
	}
	if (g.n && !A.n) {
		char *t1, *t2;

		fprintf(stderr, "slabacct: none of the %zu call sites of %s is in %s: they were not read from one load of the module\n",
			g.n, sa_esc_text(f->name, &t1), sa_esc_text(d->name, &t2));
		free(t1);
		free(t2);
		goto out;
	}
	/* now that the duplicates are added up: the advice, and the filters */
	for (i = k = 0; i < A.n; i++) {
		struct asite t = A.s[i];

		if (advise_site(d, &t, &err)) {
			cmd_error(err);
			free_advice(&t);
			A.n = k;
			goto out;
		}
		if (!t.nadv)
			continue;
		if (t.nadv == 2 && t.adv[1].per_object > t.adv[0].per_object) {
			struct advice x = t.adv[0];

			t.adv[0] = t.adv[1];
			t.adv[1] = x;
		}
		A.total++;
		if (!sa_keep_row(&o->sel.filter, t.r) || t.adv[0].now < o->sel.min) {
			free_advice(&t);
			continue;
		}
		A.s[k++] = t;
	}
	A.n = k;
	if (missing) {
		char *t1, *t2;

		fprintf(stderr, "slabacct: note: %zu call site%s of %s %s not in %s (the files were read at different moments): no advice for %s\n",
			missing, missing == 1 ? "" : "s", sa_esc_text(f->name, &t1),
			missing == 1 ? "is" : "are", sa_esc_text(d->name, &t2),
			missing == 1 ? "it" : "them");
		free(t1);
		free(t2);
	}
	if (sa_sort_array(A.s, A.n, sizeof(*A.s), asite_cmp, NULL)) {
		cmd_error(NULL);
		goto out;
	}
	A.shown = o->sel.top && o->sel.top < A.n ? (size_t)o->sel.top : A.n;
	ret = print_advise(&A);
	if (ret)
		cmd_error(NULL);
out:
	for (i = 0; i < A.n; i++)
		free_advice(&A.s[i]);
	for (i = 0; A.after && i < A.shown; i++)
		free(A.after[i]);
	free(A.after);
	free(A.sub);
	free(A.flat);
	free(A.s);
	sa_groups_free(&g);
	dsites_free(&ds);
	return ret;
}

int cmd_advise(const struct opts *o)
{
	struct sa_detail d;
	struct sa_file f;
	int ret = 1;

	if (cmd_load(o, &f, o->nargs ? o->args[0] : SA_DEFAULT_PATH))
		return 1;
	if (cmd_load_detail(o, &d, o->detail) == 0) {
		if (sa_out_begin(o->output) == 0)
			ret = sa_out_end(o->output, !report_advise(o, &f, &d)) ? 1 : 0;
		sa_detail_free(&d);
	}
	sa_file_free(&f);
	return ret;
}
