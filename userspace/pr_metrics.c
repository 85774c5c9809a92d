// SPDX-License-Identifier: GPL-2.0
/*
 * pr_metrics - the Prometheus text exposition format 0.0.4 (see
 * pr_metrics.h): one family per summary line and per column, HELP and
 * TYPE for each; per column, one series per call site of the top K (rows
 * of the same caller and type merged), then the rest summed per module
 * (K modules: those of the K sites first, then those holding most) and the
 * remainder as one series, so that the series add up to the summary and sum by (module) stays exact.
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
 * module "(other)" (no module's name: those are [A-Za-z0-9_]).
 */
static void site_labels(const struct sa_row *r, const char *mod)
{
	struct sa_caller c;

	if (!r) {
		fputs("{function=\"other\",module=", stdout);
		sa_esc_str(stdout, mod ? mod : "(other)", SA_ESC_LABEL);
		fputs(",site=\"other\",type=\"other\"}", stdout);
		return;
	}
	sa_caller_split(r->caller, &c);
	fputs("{function=", stdout);
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

int pr_metrics(const struct sa_rows *r, int summary, int rows, char **err)
{
	const struct sa_file *f = r->new;
	const struct sa_select *sel = r->sel;
	struct sa_merge_in *in = calloc(r->n + 1, sizeof(*in));
	const uint64_t **v = calloc(r->n + 1, sizeof(*v));	/* by item: its series' sums */
	char *shown = calloc(f->nrows + 1, 1);
	struct sa_merge_in *oin = calloc(f->nrows + 1, sizeof(*oin));	/* the other rows */
	char **onames = calloc(f->nrows + 1, sizeof(*onames));	/* and their modules */
	char **snames = calloc(r->n + 1, sizeof(*snames));	/* the modules of the K, sorted */
	struct mod_other *mods = NULL;
	uint64_t other[SA_NFIELDS] = { 0 };
	struct sa_groups g = { NULL, 0, NULL }, og = { NULL, 0, NULL };
	struct sa_merge_err e;
	uint64_t k_sites = sel->top ? sel->top : r->n;
	int rank = sel->keys[0] < SA_NFIELDS ? sel->keys[0] : SA_TOTAL;
	size_t i, k, nother = 0, nmods = 0, nsnames = 0;
	int ret = -1, rest = 0;

	*err = NULL;
	if (!in || !v || !shown || !oin || !onames || !snames)
		goto out;
	/* One sample per series: rows with the same caller and type (raw
	 * addresses under kptr_restrict) are added up into the first. */
	for (i = 0; i < r->n; i++) {
		in[i].key = r->items[i].row->caller;
		in[i].key2 = r->items[i].row->type_str;
		in[i].v = r->items[i].row->v;
		in[i].idx = i;
		shown[r->items[i].row - f->rows] = 1;
		snames[i] = module_dup(r->items[i].row);
		if (!snames[i])
			goto out;
		nsnames++;
	}
	qsort(snames, nsnames, sizeof(*snames), str_cmp);
	if (sa_merge(in, r->n, SA_NFIELDS, NULL, &g, &e)) {
		*err = sa_merge_message(&e, in, f->name, sa_field_names, "the series of site ");
		goto out;
	}
	for (i = 0; i < g.n; i++)
		v[g.g[i].first] = g.g[i].v;
	/* The other rows of the file (filtered out or past --top-k), summed
	 * per module. */
	for (i = 0; i < f->nrows; i++) {
		if (shown[i])
			continue;
		onames[nother] = module_dup(&f->rows[i]);
		if (!onames[nother])
			goto out;
		oin[nother].key = onames[nother];
		oin[nother].v = f->rows[i].v;
		oin[nother].idx = nother;
		nother++;
	}
	if (sa_merge(oin, nother, SA_NFIELDS, NULL, &og, &e)) {
		*err = sa_merge_message(&e, oin, f->name, sa_field_names,
					"the other call sites of module ");
		goto out;
	}
	/* K modules get a series each: those with a call site among the K
	 * (at most K: so a module's series always add up to all of its rows),
	 * then those holding most of the rest by the first sort key (total
	 * when it is frag or caller); the rest is one series. */
	mods = calloc(og.n + 1, sizeof(*mods));
	if (!mods)
		goto out;
	for (i = 0; i < og.n; i++) {
		mods[i].name = oin[og.g[i].first_in].key;
		mods[i].v = og.g[i].v;
		mods[i].has_site = bsearch(&mods[i].name, snames, nsnames, sizeof(*snames),
					   str_cmp) != NULL;
		mods[i].rank = og.g[i].v[rank];
		mods[i].order = i;
	}
	qsort(mods, og.n, sizeof(*mods), mod_other_cmp);
	nmods = og.n < k_sites ? og.n : (size_t)k_sites;
	for (i = nmods; i < og.n; i++) {
		rest = 1;
		for (k = 0; k < SA_NFIELDS; k++)
			if (sa_add_u64(&other[k], mods[i].v[k])) {
				*err = sa_format("%s: the %s of the other call sites (module=\"(other)\") does not fit in 64 bits",
						 f->name, sa_field_names[k]);
				goto out;
			}
	}
	if (summary)
		print_summary(f);
	for (k = 0; rows && f->nrows && k < sizeof(metric_fields) / sizeof(metric_fields[0]); k++) {
		int fld = metric_fields[k].field;

		printf("# HELP %s %s", metric_fields[k].name, metric_fields[k].help);
		print_bound(k_sites, sel->keys[0]);
		printf("\n# TYPE %s %s\n", metric_fields[k].name, metric_fields[k].type);
		for (i = 0; i < r->n; i++) {
			if (!v[i])
				continue;	/* counted in its series' first row */
			fputs(metric_fields[k].name, stdout);
			site_labels(r->items[i].row, NULL);
			printf(" %" PRIu64 "\n", v[i][fld]);
		}
		for (i = 0; i < nmods; i++) {
			fputs(metric_fields[k].name, stdout);
			site_labels(NULL, mods[i].name);
			printf(" %" PRIu64 "\n", mods[i].v[fld]);
		}
		if (rest) {
			fputs(metric_fields[k].name, stdout);
			site_labels(NULL, NULL);
			printf(" %" PRIu64 "\n", other[fld]);
		}
	}
	ret = 0;
out:
	sa_groups_free(&g);
	sa_groups_free(&og);
	for (i = 0; i < nother; i++)
		free(onames[i]);
	free(onames);
	for (i = 0; i < nsnames; i++)
		free(snames[i]);
	free(snames);
	free(oin);
	free(mods);
	free(in);
	free(v);
	free(shown);
	return ret;
}
