// SPDX-License-Identifier: GPL-2.0
/*
 * sa_rows - the rows model (see sa_rows.h): filters, --diff's join by
 * caller, --by's groups, --min, the sort and --top.
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_rows.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sa_caller.h"
#include "sa_esc.h"
#include "sa_merge.h"

const char *const sa_by_names[] = { "", "module", "function", "cache", "type",
				     "cgroup", "node", "task", "stack" };

static const struct {
	const char *name;
	int key;
} sort_keys[] = {
	{ "total", SA_TOTAL }, { "bytes", SA_TOTAL }, { "slack", SA_SLACK }, { "waste", SA_SLACK },
	{ "req", SA_REQ }, { "live", SA_LIVE }, { "live_req", SA_LIVE_REQ },
	{ "objs", SA_OBJS }, { "peak", SA_PEAK }, { "allocs", SA_ALLOCS },
	{ "hit", SA_ALLOCS }, { "frees", SA_FREES }, { "frag", SA_KEY_FRAG },
	{ "caller", SA_KEY_CALLER }, { "callsite", SA_KEY_CALLER }, { "sites", SA_KEY_SITES },
};

const char sa_key_list[] = "total, bytes, slack, waste, req, live, live_req, objs, peak, allocs, hit, frees, frag, caller, callsite, sites";

const char *sa_key_name(int key)
{
	size_t i;

	for (i = 0; i < sizeof(sort_keys) / sizeof(sort_keys[0]); i++)
		if (sort_keys[i].key == key)
			return sort_keys[i].name;
	return "";
}

int sa_key_parse(const char *name, size_t len, int *key)
{
	size_t i;

	for (i = 0; i < sizeof(sort_keys) / sizeof(sort_keys[0]); i++)
		if (strlen(sort_keys[i].name) == len &&
		    strncmp(name, sort_keys[i].name, len) == 0) {
			*key = sort_keys[i].key;
			return 0;
		}
	return -1;
}

int sa_is_bytes(int field)
{
	return field != SA_OBJS && field != SA_ALLOCS && field != SA_FREES &&
	       field != SA_KEY_SITES;
}

double sa_item_frag(const struct sa_item *it)
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

int sa_keep_row(const struct sa_filter *f, const struct sa_row *r)
{
	if (f->only_kmalloc && r->type != SA_TYPE_KMALLOC)
		return 0;
	if (f->only_cache && (r->type != SA_TYPE_CACHE ||
			      (f->cache_name && (!r->cache ||
						 strcmp(r->cache, f->cache_name)))))
		return 0;
	if (f->module) {
		size_t n;
		const char *mod = sa_caller_module(r->caller, &n);

		if (strcmp(f->module, "vmlinux") == 0 ? mod != NULL :
		    !mod || n != strlen(f->module) || memcmp(mod, f->module, n))
			return 0;
	}
	if (f->min_size || f->max_size) {
		uint64_t avg = avg_size(r);

		if (avg < f->min_size || (f->max_size && avg > f->max_size))
			return 0;
	}
	return !f->grep || strstr(r->caller, f->grep);
}

int sa_filter_ctx(const struct sa_filter *f)
{
	return f->cgroup_set || f->node_set || f->task;
}

int sa_keep_ctx(const struct sa_filter *f, const struct sa_row *r)
{
	const struct sa_ctx *c = &r->cx;

	if (f->cgroup_set && !(f->cgroup_irq ? c->kind == SA_CTX_IRQ :
			       c->kind == SA_CTX_CGROUP && c->id == f->cgroup))
		return 0;
	if (f->node_set && !(c->kind == SA_CTX_NODE && c->id == f->node))
		return 0;
	if (f->task && !(strcmp(f->task, "irq") == 0 ? c->kind == SA_CTX_IRQ :
			 c->kind == SA_CTX_TASK && c->tlen == strlen(f->task) &&
			 !memcmp(c->task, f->task, c->tlen)))
		return 0;
	return 1;
}

char *sa_ctx_name(enum sa_by by, const struct sa_row *r, const struct sa_cgroups *cg)
{
	const struct sa_ctx *c = &r->cx;
	const char *path;

	switch (by) {
	case SA_BY_CGROUP:
		if (c->kind == SA_CTX_CGROUP) {
			path = sa_cgroups_path(cg, c->id);
			return path ? strdup(path) : sa_format("cgroup#%" PRIu64, c->id);
		}
		break;
	case SA_BY_NODE:
		if (c->kind == SA_CTX_NODE)
			return sa_format("node %" PRIu64, c->id);
		break;
	case SA_BY_TASK:
		if (c->kind == SA_CTX_TASK)
			return sa_dup_range(c->task, c->tlen);
		break;
	case SA_BY_STACK:
		return c->stack ? sa_format("%s @stack:%" PRIu64, r->caller, c->stack) :
				  strdup(r->caller);
	default:
		return strdup("-");
	}
	return strdup(c->kind == SA_CTX_IRQ && by != SA_BY_NODE ? "irq" : "-");
}

/* ---- --by ---- */

/*
 * The name of @r's group (malloc()ed), or NULL without memory; with
 * SA_BY_NONE its call site's (1.6: the caller without the context).
 */
static char *group_name(enum sa_by by, const struct sa_row *r, const struct sa_cgroups *cg)
{
	struct sa_caller c;

	if (SA_BY_CTX(by))
		return sa_ctx_name(by, r, cg);
	sa_caller_split(r->caller, &c);
	switch (by) {
	case SA_BY_MODULE:	/* a retired load's rows: "MODULE (load N, unloaded)" */
		return sa_caller_module_dup(&c);
	case SA_BY_FUNCTION:	/* the symbol, without +0xoff/0xlen, and its module */
		if (c.unloaded)
			return sa_format("%.*s [%.*s] (load %" PRIu64 ", unloaded)", (int)c.flen,
					 c.func, (int)c.mlen, c.mod, c.unloaded);
		return c.mod ? sa_format("%.*s [%.*s]", (int)c.flen, c.func, (int)c.mlen, c.mod) :
			       sa_dup_range(c.func, c.flen);
	case SA_BY_CACHE:	/* the type column as written */
		return strdup(r->type_str);
	case SA_BY_TYPE:
		return strdup(r->type == SA_TYPE_KMALLOC ? "kmalloc" :
			      r->type == SA_TYPE_MIXED ? "mixed" :
			      r->cache && strcmp(r->cache, "*") == 0 ? "multi" : "cache");
	case SA_BY_NONE:
		return strdup(r->caller);
	default:
		break;
	}
	return NULL;
}

static void grouped_free(struct sa_grouped *g)
{
	size_t i;

	for (i = 0; i < g->f.nrows; i++)
		free(g->f.rows[i].caller);
	free(g->f.rows);
	free(g->sites);
	memset(g, 0, sizeof(*g));
}

/* Which filters group_file() applies. */
enum { F_ROW = 1, F_CTX = 2 };

/*
 * Group the rows of @f that pass the filters (@which) by @by into @g:
 * each group is a row whose caller is the group's name and whose numbers
 * are its rows' sums (peak too: an upper bound of the group's peak).
 * (1.6) With SA_BY_NONE, fold a file's child rows into their call sites:
 * a group is then a call site, its own row and its child rows, with the
 * site's caller, type and load.
 */
static int group_file(const struct sa_select *sel, enum sa_by by, int which,
		      const struct sa_file *f, struct sa_grouped *g, char **err)
{
	struct sa_merge_in *in = calloc(f->nrows + 1, sizeof(*in));
	struct sa_groups gs = { NULL, 0, NULL };
	struct sa_merge_err e;
	size_t i, n = 0;
	int ret = -1;

	memset(g, 0, sizeof(*g));
	g->f.name = f->name;
	g->f.major = f->major;
	g->f.minor = f->minor;
	g->f.summary = f->summary;
	g->f.nsummary = f->nsummary;
	g->total = f->nrows;
	if (!in)
		goto out;
	for (i = 0; i < f->nrows; i++) {
		if (((which & F_ROW) && !sa_keep_row(&sel->filter, &f->rows[i])) ||
		    ((which & F_CTX) && !sa_keep_ctx(&sel->filter, &f->rows[i])))
			continue;
		in[n].key = group_name(by, &f->rows[i], sel->cg);
		in[n].key2 = by ? NULL : f->rows[i].type_str;
		in[n].v = f->rows[i].v;
		in[n].idx = i;
		if (!in[n++].key)
			goto out;
	}
	g->kept = n;
	if (sa_merge(in, n, SA_NFIELDS, NULL, &gs, &e)) {
		*err = sa_merge_message(&e, in, f->name, sa_field_names,
					by ? "the group " : "the call site ");
		goto out;
	}
	g->f.rows = calloc(gs.n + 1, sizeof(*g->f.rows));
	g->sites = calloc(gs.n + 1, sizeof(*g->sites));
	if (!g->f.rows || !g->sites)
		goto out;
	for (i = 0; i < gs.n; i++) {
		struct sa_row *r = &g->f.rows[i];
		const struct sa_row *first = &f->rows[gs.g[i].first];

		r->caller = (char *)in[gs.g[i].first_in].key;
		in[gs.g[i].first_in].key = NULL;
		r->type_str = r->caller;
		r->type = first->type;
		r->line = first->line;
		if (!by) {	/* a call site: its type, its load */
			r->type_str = first->type_str;
			r->cache = first->cache;
			r->load = first->load;
			r->retired = first->retired;
			r->key_len = first->key_len;
		}
		memcpy(r->v, gs.g[i].v, sizeof(r->v));
		g->sites[i] = gs.g[i].count;
		g->f.nrows++;
	}
	ret = 0;
out:
	for (i = 0; i < n; i++)
		free((char *)in[i].key);
	free(in);
	sa_groups_free(&gs);
	if (ret)
		grouped_free(g);
	return ret;
}

/* ---- the items ---- */

static int key_cmp(const struct sa_item *a, const struct sa_item *b, int key)
{
	if (key == SA_KEY_CALLER)
		return strcmp(a->row->caller, b->row->caller);
	if (key == SA_KEY_FRAG) {
		double fa = sa_item_frag(a), fb = sa_item_frag(b);

		return (fa < fb) - (fa > fb);
	}
	return -num_cmp(a->v[key], b->v[key]);
}

static int item_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct sa_item *a = pa, *b = pb;
	const struct sa_select *s = ctx;
	size_t k;
	int c = 0;

	for (k = 0; k < s->nkeys && !c; k++)
		c = key_cmp(a, b, s->keys[k]);
	if (s->reverse)
		c = -c;
	if (!c)
		c = strcmp(a->row->caller, b->row->caller);
	if (!c)
		c = (a->order > b->order) - (a->order < b->order);
	return c;
}

/* Is the item's first sort key at least --min? */
static int above_min(const struct sa_select *s, const struct sa_item *it)
{
	struct num min = { s->min, 0 };

	if (s->keys[0] == SA_KEY_FRAG)
		return sa_item_frag(it) >= (double)s->min;
	return num_cmp(it->v[s->keys[0]], min) >= 0;
}

/*
 * Add the item of @old -> @new (either may be NULL) if it passes the
 * filters.  With --by the rows are groups, which were built from the call
 * sites that passed the filters: only --min is left to apply.
 */
static void add_item(struct sa_rows *r, const struct sa_row *old,
		     const struct sa_row *new, uint64_t osites, uint64_t nsites)
{
	const struct sa_select *s = r->sel;
	struct sa_item *it = &r->items[r->nall];
	int i;

	it->row = new ? new : old;
	if (!s->by && !sa_keep_row(&s->filter, it->row))
		return;
	it->st = !r->old ? SA_ST_NONE : !old ? SA_ST_NEW : !new ? SA_ST_GONE : SA_ST_COMMON;
	for (i = 0; i < SA_NFIELDS; i++)
		it->v[i] = num_delta(old ? old->v[i] : 0, new ? new->v[i] : 0);
	it->v[SA_KEY_SITES] = num_delta(old ? osites : 0, new ? nsites : 0);
	if (it->st == SA_ST_COMMON) {
		for (i = 0; i < SA_NVALUES && !it->v[i].mag; i++)
			;
		if (i == SA_NVALUES) {
			r->unchanged++;
			if (!s->all)
				return;
		}
	}
	if (s->min_set && !above_min(s, it))
		return;
	r->status[it->st]++;
	it->order = r->nall++;
}

/*
 * The order of two rows' keys: the caller without " unloaded#N", then the
 * module load (1.3), so that a live row of load N and its later retired
 * self ("... unloaded#N") are one key.  Grouped rows have no key_len:
 * their whole name.
 */
static int row_key_cmp(const struct sa_row *a, const struct sa_row *b)
{
	size_t la = a->key_len ? a->key_len : strlen(a->caller);
	size_t lb = b->key_len ? b->key_len : strlen(b->caller);
	int c = memcmp(a->caller, b->caller, la < lb ? la : lb);

	if (!c)
		c = (la > lb) - (la < lb);
	return c ? c : (a->load > b->load) - (a->load < b->load);
}

static int row_ptr_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct sa_row *a = pa, *b = pb;
	int c = row_key_cmp(a, b);

	(void)ctx;
	return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* @f's rows sorted by caller (then line); NULL without memory. */
static const struct sa_row **sorted_rows(const struct sa_file *f)
{
	const struct sa_row **v = calloc(f->nrows + 1, sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < f->nrows; i++)
		v[i] = &f->rows[i];
	if (sa_sort((void **)v, f->nrows, row_ptr_cmp, NULL)) {
		free(v);
		return NULL;
	}
	return v;
}

/* The number of call sites in row @k of @f: a group's count with --by, else 1. */
static uint64_t row_sites(const struct sa_file *f, const uint64_t *sites,
			  const struct sa_row *row)
{
	return sites ? sites[row - f->rows] : 1;
}

/*
 * The items: @new's rows, or with @old the per call site deltas OLD ->
 * NEW.  Sites are matched by caller string and module load (row_key_cmp:
 * a live row joins its later retired self); should one caller appear more
 * than once in a file (raw addresses under kptr_restrict), the k-th
 * occurrence in OLD pairs with the k-th in NEW.
 */
static int build_items(struct sa_rows *r, const uint64_t *osites,
		       const uint64_t *nsites)
{
	const struct sa_file *old = r->old, *new = r->new;
	size_t max = new->nrows + (old ? old->nrows : 0), i = 0, j = 0;
	const struct sa_row **a = NULL, **b = NULL;

	r->items = calloc(max + 1, sizeof(*r->items));
	if (!r->items)
		return -1;
	if (!old) {
		for (i = 0; i < new->nrows; i++)
			add_item(r, NULL, &new->rows[i], 0,
				 row_sites(new, nsites, &new->rows[i]));
	} else {
		a = sorted_rows(old);
		b = sorted_rows(new);
		if (!a || !b) {
			free(a);
			free(b);
			return -1;
		}
		while (i < old->nrows || j < new->nrows) {
			int c = i == old->nrows ? 1 : j == new->nrows ? -1 :
				row_key_cmp(a[i], b[j]);

			add_item(r, c <= 0 ? a[i] : NULL, c >= 0 ? b[j] : NULL,
				 c <= 0 ? row_sites(old, osites, a[i]) : 0,
				 c >= 0 ? row_sites(new, nsites, b[j]) : 0);
			i += c <= 0;
			j += c >= 0;
		}
		free(a);
		free(b);
	}
	if (sa_sort_array(r->items, r->nall, sizeof(*r->items), item_cmp, (void *)r->sel))
		return -1;
	r->n = r->sel->top && r->sel->top < r->nall ? (size_t)r->sel->top : r->nall;
	return 0;
}

/*
 * (1.6) NULL when @f can be grouped and filtered by context as @sel says,
 * else a malloc()ed message: --by cgroup and --cgroup need a file split by
 * cgroup, and so on.
 */
static char *ctx_refusal(const struct sa_select *sel, const struct sa_file *f)
{
	const struct sa_summary *split = sa_summary_get(f, "split");
	const struct sa_filter *fl = &sel->filter;
	const char *want = NULL, *what = NULL;

	if (sel->by == SA_BY_CGROUP || sel->by == SA_BY_NODE || sel->by == SA_BY_TASK) {
		want = sa_by_names[sel->by];
		what = sel->by == SA_BY_CGROUP ? "--by cgroup" :
		       sel->by == SA_BY_NODE ? "--by node" : "--by task";
	}
	if (!what || (split && !strcmp(split->value, want))) {
		want = fl->cgroup_set ? "cgroup" : fl->node_set ? "node" : fl->task ? "task" : NULL;
		what = fl->cgroup_set ? "--cgroup" : fl->node_set ? "--node" : "--task";
	}
	if (!want || (split && !strcmp(split->value, want)))
		return NULL;
	if (split)
		return sa_format("%s: %s needs a file split by %s; its split is %s", f->name, what,
				 want, split->value);
	return sa_format("%s: %s needs a file split by %s; a format %" PRIu64 ".%" PRIu64
			 " file has no split", f->name, what, want, f->major, f->minor);
}

int sa_rows_build(struct sa_rows *r, const struct sa_select *sel,
		  const struct sa_file *old, const struct sa_file *new, char **err)
{
	int fold = !SA_BY_CTX(sel->by) &&
		   (new->nctx || (old && old->nctx) || sa_filter_ctx(&sel->filter));

	memset(r, 0, sizeof(*r));
	*err = NULL;
	r->sel = sel;
	r->old = old;
	r->new = new;
	r->raw = new;
	*err = ctx_refusal(sel, new);
	if (!*err && old)
		*err = ctx_refusal(sel, old);
	if (*err)
		return -1;
	if (fold) {	/* (1.6) the call sites, each with its child rows summed in */
		if (group_file(sel, SA_BY_NONE, F_CTX, new, &r->fnew, err) ||
		    (old && group_file(sel, SA_BY_NONE, F_CTX, old, &r->fold, err))) {
			sa_rows_free(r);
			return -1;
		}
		r->new = &r->fnew.f;
		r->old = old ? &r->fold.f : NULL;
	}
	if (sel->by) {
		int which = F_ROW | (SA_BY_CTX(sel->by) ? F_CTX : 0);

		if (group_file(sel, sel->by, which, r->new, &r->gnew, err) ||
		    (old && group_file(sel, sel->by, which, r->old, &r->gold, err))) {
			sa_rows_free(r);
			return -1;
		}
		r->new = &r->gnew.f;
		r->old = old ? &r->gold.f : NULL;
	}
	if (build_items(r, old ? r->gold.sites : NULL, sel->by ? r->gnew.sites : NULL)) {
		sa_rows_free(r);
		return -1;
	}
	return 0;
}

size_t sa_rows_site_rows(const struct sa_rows *r, const struct sa_item *it,
			 const struct sa_row ***out)
{
	const struct sa_file *f = r->raw;
	const struct sa_row *site = it->row;
	size_t i, n = 0;

	*out = NULL;
	if (r->sel->by || r->old || !r->fnew.f.name || site < r->fnew.f.rows ||
	    site >= r->fnew.f.rows + r->fnew.f.nrows)
		return 0;
	*out = calloc(r->fnew.sites[site - r->fnew.f.rows] + 1, sizeof(**out));
	if (!*out)
		return (size_t)-1;
	for (i = 0; i < f->nrows && n < r->fnew.sites[site - r->fnew.f.rows]; i++)
		if (!strcmp(f->rows[i].caller, site->caller) &&
		    !strcmp(f->rows[i].type_str, site->type_str) &&
		    sa_keep_ctx(&r->sel->filter, &f->rows[i]))
			(*out)[n++] = &f->rows[i];
	return n;
}

void sa_rows_free(struct sa_rows *r)
{
	free(r->items);
	grouped_free(&r->gold);
	grouped_free(&r->gnew);
	grouped_free(&r->fold);
	grouped_free(&r->fnew);
	memset(r, 0, sizeof(*r));
}
