// SPDX-License-Identifier: GPL-2.0
/*
 * pr_metrics - the Prometheus text exposition format 0.0.4 (see
 * pr_metrics.h): one family per summary line and per column, HELP and
 * TYPE for each; per column, one series per call site of the top K (rows
 * of the same caller and type merged), then the rest summed per module
 * (K modules: those of the K sites first, then those holding most) and the
 * remainder as one series, so that the series add up to the summary and sum by (module) stays exact.
 * (1.6) A file split by cgroup, node or task has those series per context,
 * each with a label of the split's name: the top K, the modules and the
 * remainder within each context, for the K contexts holding most, the
 * others' rows together as the context "(other)"; so that sum by (module)
 * and sum by (cgroup) stay exact.
 */
#include "pr_metrics.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_summary.h"
#include "sa_caller.h"
#include "sa_esc.h"
#include "sa_merge.h"

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
	{ "counter memory", MP "percpu_memory_bytes", "gauge", "Bytes of per-CPU counters (in table memory), for the CPUs online since load." },
	{ "counter cpus", MP "percpu_cpus", "gauge", "CPUs with counters: those online since load." },
	{ "advised max_objects", MP "advised_max_objects", "gauge", "The max_objects to load with: objects were dropped (absent otherwise)." },
	{ "peak bound", MP "peak_bound_bytes", "gauge", "Bytes a row's peak may be off the most its live bytes reached: 0 when exact (one CPU)." },
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

/*
 * The labels of a row: function (the symbol), module ("vmlinux" for the
 * kernel), site (the caller), type.  Without a row, the labels of a sum of
 * the other call sites: of module @mod, or with @mod NULL of all the rest,
 * module "(other)" (no module's name: those are [A-Za-z0-9_]).  (1.6)
 * With @lname, first the label @lname="@lval": the row's context.
 */
static void site_labels(const struct sa_row *r, const char *mod, const char *lname,
			const char *lval)
{
	struct sa_caller c;

	putchar('{');
	if (lname) {	/* (1.6) the split's context */
		printf("%s=", lname);
		sa_esc_str(stdout, lval, SA_ESC_LABEL);
		putchar(',');
	}
	if (!r) {
		fputs("function=\"other\",module=", stdout);
		sa_esc_str(stdout, mod ? mod : "(other)", SA_ESC_LABEL);
		fputs(",site=\"other\",type=\"other\"}", stdout);
		return;
	}
	sa_caller_split(r->caller, &c);
	fputs("function=", stdout);
	sa_esc(stdout, c.func, c.flen, SA_ESC_LABEL);
	fputs(",module=", stdout);
	if (c.mod)
		sa_esc(stdout, c.mod, c.mlen, SA_ESC_LABEL);
	else
		fputs("\"vmlinux\"", stdout);
	fputs(",site=", stdout);
	sa_esc_str(stdout, r->caller, SA_ESC_LABEL);
	fputs(",type=", stdout);
	sa_esc_str(stdout, r->type_str, SA_ESC_LABEL);
	putchar('}');
}

static void print_up(int up)
{
	metric_head(MP "up", "gauge", "1 when the file was read; 0 when slabacct --watch could not read it (its other metrics are left out until it can).");
	printf(MP "up %d\n", up);
}

void pr_metrics_down(void)
{
	print_up(0);
}

static void print_summary(const struct sa_file *f)
{
	const struct sa_summary *e = sa_summary_get(f, "state");
	int any_hooked = 0;
	size_t i;

	print_up(1);
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
		sa_esc_str(stdout, e->key + 7, SA_ESC_LABEL);
		printf("} %" PRIu64 "\n", e->num);
	}
}

/* The other call sites of one module, summed. */
struct mod_other {
	const char *name;	/* the module, "vmlinux" for the kernel */
	const uint64_t *v;	/* its sums */
	int has_site;		/* it has a call site among the K */
	uint64_t rank;		/* what it is ranked by */
	size_t order;		/* its place in module name order */
};

/*
 * The modules with a call site among the K first, then the most first;
 * equal ones in module name order.
 */
static int mod_other_cmp(const void *a, const void *b)
{
	const struct mod_other *x = a, *y = b;

	if (x->has_site != y->has_site)
		return y->has_site - x->has_site;
	if (x->rank != y->rank)
		return x->rank < y->rank ? 1 : -1;
	return (x->order > y->order) - (x->order < y->order);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The name of @row's module, malloc()ed: MODULE, or "vmlinux". */
static char *module_dup(const struct sa_row *row)
{
	struct sa_caller c;
	const char *m;
	size_t len;
	char *s;

	sa_caller_split(row->caller, &c);
	m = c.mod ? c.mod : "vmlinux";
	len = c.mod ? c.mlen : strlen(m);
	s = malloc(len + 1);
	if (s) {
		memcpy(s, m, len);
		s[len] = '\0';
	}
	return s;
}

/*
 * The bound said in each call-site family's HELP: @k sites by the sort
 * key @key, the rest per module (@k at most), then one series.
 */
static void print_bound(uint64_t k, int key)
{
	printf(" Bound: K=%" PRIu64 " call sites by %s (--top-k), then site=\"other\" per module"
	       " for K modules (theirs first, then those holding most), then module=\"(other)\".",
	       k, sa_key_name(key));
}

/* One context's call-site series (without a split, the whole file's). */
struct series {
	const char *ctx;		/* the context's name (label value), or NULL */
	const struct sa_rows *r;
	struct sa_merge_in *in, *oin;	/* the rows shown, the other rows */
	const uint64_t **v;		/* by item: its series' sums */
	char *shown;
	char **onames, **snames;	/* the other rows' modules, those of the K (sorted) */
	size_t nother, nsnames, nmods;
	struct mod_other *mods;
	uint64_t other[SA_NFIELDS];
	int rest;
	struct sa_groups g, og;
};

static void series_free(struct series *s)
{
	size_t i;

	sa_groups_free(&s->g);
	sa_groups_free(&s->og);
	for (i = 0; i < s->nother; i++)
		free(s->onames[i]);
	free(s->onames);
	for (i = 0; i < s->nsnames; i++)
		free(s->snames[i]);
	free(s->snames);
	free(s->oin);
	free(s->mods);
	free(s->in);
	free(s->v);
	free(s->shown);
	memset(s, 0, sizeof(*s));
}

/* @r's series: the top K, K modules' other sites, the rest.  0, or -1 (*@err). */
static int series_build(struct series *s, const struct sa_rows *r, uint64_t k_sites,
			char **err)
{
	const struct sa_file *f = r->new;
	const struct sa_select *sel = r->sel;
	struct sa_merge_err e;
	int rank = sel->keys[0] < SA_NFIELDS ? sel->keys[0] : SA_TOTAL;
	size_t i, k;

	s->r = r;
	s->in = calloc(r->n + 1, sizeof(*s->in));
	s->v = calloc(r->n + 1, sizeof(*s->v));
	s->shown = calloc(f->nrows + 1, 1);
	s->oin = calloc(f->nrows + 1, sizeof(*s->oin));
	s->onames = calloc(f->nrows + 1, sizeof(*s->onames));
	s->snames = calloc(r->n + 1, sizeof(*s->snames));
	if (!s->in || !s->v || !s->shown || !s->oin || !s->onames || !s->snames)
		return -1;
	/* One sample per series: rows with the same caller and type (raw
	 * addresses under kptr_restrict) are added up into the first. */
	for (i = 0; i < r->n; i++) {
		s->in[i].key = r->items[i].row->caller;
		s->in[i].key2 = r->items[i].row->type_str;
		s->in[i].v = r->items[i].row->v;
		s->in[i].idx = i;
		s->shown[r->items[i].row - f->rows] = 1;
		s->snames[i] = module_dup(r->items[i].row);
		if (!s->snames[i])
			return -1;
		s->nsnames++;
	}
	qsort(s->snames, s->nsnames, sizeof(*s->snames), str_cmp);
	if (sa_merge(s->in, r->n, SA_NFIELDS, NULL, &s->g, &e)) {
		*err = sa_merge_message(&e, s->in, f->name, sa_field_names, "the series of site ");
		return -1;
	}
	for (i = 0; i < s->g.n; i++)
		s->v[s->g.g[i].first] = s->g.g[i].v;
	/* The other rows of the file (filtered out or past --top-k), summed
	 * per module. */
	for (i = 0; i < f->nrows; i++) {
		if (s->shown[i])
			continue;
		s->onames[s->nother] = module_dup(&f->rows[i]);
		if (!s->onames[s->nother])
			return -1;
		s->oin[s->nother].key = s->onames[s->nother];
		s->oin[s->nother].v = f->rows[i].v;
		s->oin[s->nother].idx = s->nother;
		s->nother++;
	}
	if (sa_merge(s->oin, s->nother, SA_NFIELDS, NULL, &s->og, &e)) {
		*err = sa_merge_message(&e, s->oin, f->name, sa_field_names,
					"the other call sites of module ");
		return -1;
	}
	/* K modules get a series each: those with a call site among the K
	 * (at most K: so a module's series always add up to all of its rows),
	 * then those holding most of the rest by the first sort key (total
	 * when it is frag or caller); the rest is one series. */
	s->mods = calloc(s->og.n + 1, sizeof(*s->mods));
	if (!s->mods)
		return -1;
	for (i = 0; i < s->og.n; i++) {
		s->mods[i].name = s->oin[s->og.g[i].first_in].key;
		s->mods[i].v = s->og.g[i].v;
		s->mods[i].has_site = bsearch(&s->mods[i].name, s->snames, s->nsnames,
					      sizeof(*s->snames), str_cmp) != NULL;
		s->mods[i].rank = s->og.g[i].v[rank];
		s->mods[i].order = i;
	}
	qsort(s->mods, s->og.n, sizeof(*s->mods), mod_other_cmp);
	s->nmods = s->og.n < k_sites ? s->og.n : (size_t)k_sites;
	for (i = s->nmods; i < s->og.n; i++) {
		s->rest = 1;
		for (k = 0; k < SA_NFIELDS; k++)
			if (sa_add_u64(&s->other[k], s->mods[i].v[k])) {
				*err = sa_format("%s: the %s of the other call sites (module=\"(other)\") does not fit in 64 bits",
						 f->name, sa_field_names[k]);
				return -1;
			}
	}
	return 0;
}

/* The samples of family @k of @s (with the label @lname = its context). */
static void series_print(const struct series *s, size_t k, const char *lname)
{
	int fld = metric_fields[k].field;
	size_t i;

	for (i = 0; i < s->r->n; i++) {
		if (!s->v[i])
			continue;	/* counted in its series' first row */
		fputs(metric_fields[k].name, stdout);
		site_labels(s->r->items[i].row, NULL, lname, s->ctx);
		printf(" %" PRIu64 "\n", s->v[i][fld]);
	}
	for (i = 0; i < s->nmods; i++) {
		fputs(metric_fields[k].name, stdout);
		site_labels(NULL, s->mods[i].name, lname, s->ctx);
		printf(" %" PRIu64 "\n", s->mods[i].v[fld]);
	}
	if (s->rest) {
		fputs(metric_fields[k].name, stdout);
		site_labels(NULL, NULL, lname, s->ctx);
		printf(" %" PRIu64 "\n", s->other[fld]);
	}
}

/* (1.6) The contexts of a split file: each one's rows, as a file of them, and its series. */
struct ctxs {
	struct sa_select sel;	/* the report's, less the context's filters */
	struct sa_file *files;
	struct sa_rows *rows;
	struct series *s;
	char **names;		/* each row's context */
	size_t n;
};

static void ctxs_free(struct ctxs *c, size_t nrows)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		series_free(&c->s[i]);
		sa_rows_free(&c->rows[i]);
		free(c->files[i].rows);
	}
	for (i = 0; c->names && i < nrows; i++)
		free(c->names[i]);
	free(c->names);
	free(c->files);
	free(c->rows);
	free(c->s);
}

static int name_cmp(const void *pa, const void *pb, void *ctx)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	char **names = ctx;
	int c = strcmp(names[a], names[b]);

	return c ? c : (a > b) - (a < b);
}

/* A context's rows: idx[first, first + n), weighing w by the first sort key. */
struct cseg {
	size_t first, n;
	uint64_t w;
};

/* The heaviest first; equals in name order. */
static int cseg_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct cseg *a = pa, *b = pb;

	(void)ctx;
	if (a->w != b->w)
		return a->w < b->w ? 1 : -1;
	return (a->first > b->first) - (a->first < b->first);
}

static int first_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct cseg *a = pa, *b = pb;

	(void)ctx;
	return (a->first > b->first) - (a->first < b->first);
}

static int idx_cmp(const void *pa, const void *pb, void *ctx)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

	(void)ctx;
	return (a > b) - (a < b);
}

/*
 * Context @name's file of the @n rows @idx of @f (a site's stacks in it
 * summed into the site by sa_rows_build()) and its series, into @c.
 */
static int ctx_add(struct ctxs *c, const struct sa_file *f, const size_t *idx, size_t n,
		   const char *name, uint64_t k_sites, char **err)
{
	struct sa_file *t = &c->files[c->n];

	*t = *f;	/* its name, version and summary */
	t->rows = calloc(n + 1, sizeof(*t->rows));
	if (!t->rows)
		return -1;
	for (t->nrows = t->nctx = 0; t->nrows < n; t->nrows++) {
		t->rows[t->nrows] = f->rows[idx[t->nrows]];
		t->nctx += t->rows[t->nrows].ctx != NULL;
	}
	c->s[c->n].ctx = name;
	c->n++;
	if (sa_rows_build(&c->rows[c->n - 1], &c->sel, NULL, t, err))
		return -1;
	return series_build(&c->s[c->n - 1], &c->rows[c->n - 1], k_sites, err);
}

/*
 * (1.6) Split @r's file as read by context (@by) into @c: the K contexts
 * holding most by the first sort key, in name order, then the others'
 * rows together as the context "(other)"; each with its series.  0, or -1
 * (*@err; NULL: no memory).
 */
static int ctxs_build(struct ctxs *c, const struct sa_rows *r, enum sa_by by, uint64_t k_sites,
		      char **err)
{
	const struct sa_file *f = r->raw;
	int rank = r->sel->keys[0] < SA_NFIELDS ? r->sel->keys[0] : SA_TOTAL;
	size_t *idx = calloc(f->nrows + 1, sizeof(*idx)), *rest = NULL;
	struct cseg *sg = calloc(f->nrows + 1, sizeof(*sg));
	size_t i, k, n = 0, ns = 0, keep, nrest = 0;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->sel = *r->sel;
	c->sel.filter.cgroup_set = c->sel.filter.node_set = 0;
	c->sel.filter.task = NULL;
	c->names = calloc(f->nrows + 1, sizeof(*c->names));
	c->files = calloc(f->nrows + 1, sizeof(*c->files));
	c->rows = calloc(f->nrows + 1, sizeof(*c->rows));
	c->s = calloc(f->nrows + 1, sizeof(*c->s));
	if (!idx || !sg || !c->names || !c->files || !c->rows || !c->s)
		goto out;
	for (i = 0; i < f->nrows; i++) {
		if (!sa_keep_ctx(&r->sel->filter, &f->rows[i]))
			continue;
		c->names[i] = sa_ctx_name(by, &f->rows[i], r->sel->cg);
		if (!c->names[i])
			goto out;
		idx[n++] = i;
	}
	if (sa_sort_array(idx, n, sizeof(*idx), name_cmp, c->names))
		goto out;
	for (i = 0; i < n; i++) {
		if (!i || strcmp(c->names[idx[i]], c->names[idx[i - 1]]))
			sg[ns++].first = i;
		sg[ns - 1].n++;
		sg[ns - 1].w += f->rows[idx[i]].v[rank];	/* no wrap: the file's sums fit */
	}
	keep = ns < k_sites ? ns : (size_t)k_sites;
	if (sa_sort_array(sg, ns, sizeof(*sg), cseg_cmp, NULL) ||
	    sa_sort_array(sg, keep, sizeof(*sg), first_cmp, NULL))
		goto out;
	for (k = 0; k < keep; k++)
		if (ctx_add(c, f, idx + sg[k].first, sg[k].n, c->names[idx[sg[k].first]], k_sites,
			    err))
			goto out;
	if (keep == ns) {
		ret = 0;
		goto out;
	}
	/* the other contexts' rows, in file order, as one */
	rest = calloc(n + 1, sizeof(*rest));
	if (!rest)
		goto out;
	for (k = keep; k < ns; k++)
		for (i = 0; i < sg[k].n; i++)
			rest[nrest++] = idx[sg[k].first + i];
	if (sa_sort_array(rest, nrest, sizeof(*rest), idx_cmp, NULL) ||
	    ctx_add(c, f, rest, nrest, "(other)", k_sites, err))
		goto out;
	ret = 0;
out:
	free(rest);
	free(sg);
	free(idx);
	return ret;
}

int pr_metrics(const struct sa_rows *r, int summary, int rows, char **err)
{
	const struct sa_summary *split = sa_summary_get(r->raw, "split");
	enum sa_by by = !split ? SA_BY_NONE : !strcmp(split->value, "cgroup") ? SA_BY_CGROUP :
			!strcmp(split->value, "node") ? SA_BY_NODE :
			!strcmp(split->value, "task") ? SA_BY_TASK : SA_BY_NONE;
	uint64_t k_sites = r->sel->top ? r->sel->top : r->n;
	struct ctxs c = { .n = 0 };
	struct series one = { .ctx = NULL };
	const char *lname = by ? sa_by_names[by] : NULL;
	size_t i, k;
	int ret = -1;

	*err = NULL;
	if (by ? ctxs_build(&c, r, by, k_sites, err) : series_build(&one, r, k_sites, err))
		goto out;
	if (summary)
		print_summary(r->raw);
	for (k = 0; rows && r->raw->nrows && k < sizeof(metric_fields) / sizeof(metric_fields[0]); k++) {
		printf("# HELP %s %s", metric_fields[k].name, metric_fields[k].help);
		print_bound(k_sites, r->sel->keys[0]);
		if (by)
			printf(" The file is split by %s (label %s): the bound applies within each of the K %ss holding most, the others together as %s=\"(other)\".",
			       lname, lname, lname, lname);
		printf("\n# TYPE %s %s\n", metric_fields[k].name, metric_fields[k].type);
		if (!by)
			series_print(&one, k, NULL);
		for (i = 0; i < c.n; i++)
			series_print(&c.s[i], k, lname);
	}
	ret = 0;
out:
	series_free(&one);
	ctxs_free(&c, r->raw->nrows);
	return ret;
}
