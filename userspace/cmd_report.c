// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_report - the report in every format (see cmd_report.h): the rows
 * model built once, then the format's printer.
 */
#include "cmd_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_common.h"
#include "cmd_term.h"
#include "pr_folded.h"
#include "pr_metrics.h"
#include "pr_report.h"
#include "pr_stacks.h"
#include "pr_summary.h"
#include "pr_svg.h"
#include "sa_base.h"
#include "sa_esc.h"
#include "sa_input.h"
#include "sa_json.h"
#include "sa_out.h"
#include "sa_rows.h"

struct report_ctx {
	const struct opts *o;
	const struct report_env *env;
	const struct sa_file *old, *new;	/* as read (their summaries) */
	const struct sa_rows *rows;
};

/*
 * A line saying which rows the table holds, unless it is simply all of
 * them; with --by always, with the call sites.
 */
static void print_counts(const struct report_ctx *c)
{
	const struct sa_rows *r = c->rows;
	const struct sa_select *s = r->sel;
	size_t shown = r->n, nrows = r->new->nrows, matched;
	const char *by = sa_by_names[s->by];
	/* (1.6) a context's groups hold rows: a site's child rows and its own */
	const char *what = SA_BY_CTX(s->by) ? "rows" : "call sites";

	if (!r->old && s->by) {
		if (shown == nrows && r->gnew.kept == r->gnew.total)
			printf("by %s: %zu groups of %zu %s\n", by, nrows, r->gnew.total, what);
		else
			printf("by %s: %zu of %zu groups shown, from %zu of %zu %s\n",
			       by, shown, nrows, r->gnew.kept, r->gnew.total, what);
		return;
	}
	if (!r->old) {
		if (shown != nrows)
			printf("call sites: %zu of %zu shown\n", shown, nrows);
		return;
	}
	matched = r->status[SA_ST_COMMON] + r->status[SA_ST_NEW] + r->status[SA_ST_GONE];
	if (s->by)
		printf("groups by %s: ", by);
	else
		fputs("call sites: ", stdout);
	printf("%zu changed, %zu new, %zu gone", r->status[SA_ST_COMMON] -
	       (s->all ? r->unchanged : 0), r->status[SA_ST_NEW], r->status[SA_ST_GONE]);
	if (r->unchanged)
		printf(", %zu unchanged%s", r->unchanged,
		       s->all ? "" : " (not shown; --all shows them)");
	if (shown != matched)
		printf("; %zu shown", shown);
	putchar('\n');
}

static void print_name(const char *name)
{
	sa_esc_str(stdout, name, SA_ESC_TEXT);
}

static int print_text(const struct report_ctx *c)
{
	const struct opts *o = c->o;
	struct sa_rows fit = *c->rows;
	size_t used = c->env->lines_before;
	struct report_ctx cf = *c;
	struct sa_table t;

	if (o->summary != SUM_NONE && c->env->compact) {
		used += (size_t)pr_summary_compact(c->old, c->new, o->human, c->env->width);
	} else if (o->summary != SUM_NONE) {
		if (c->old) {
			if (!c->env->in_watch) {
				print_name(c->old->name);
				fputs(" -> ", stdout);
				print_name(c->new->name);
				putchar('\n');
				used++;
			}
			used += (size_t)pr_summary_diff(c->old, c->new, o->human);
		} else {
			used += (size_t)pr_summary_text(c->new, o->human);
		}
	}
	if (o->summary == SUM_BOTH) {
		putchar('\n');
		used++;
	}
	if (o->summary != SUM_ONLY) {
		/* on a terminal, the rows that fit under the counts and titles */
		if (c->env->max_lines && fit.n + used + 2 > c->env->max_lines)
			fit.n = c->env->max_lines > used + 2 ? c->env->max_lines - used - 2 : 0;
		cf.rows = &fit;
		print_counts(&cf);
		pr_report_table(&fit, o->human, &t);
		sa_table_text_fit(&t, c->env->width);
	}
	return 0;
}

static int print_csv(const struct report_ctx *c)
{
	struct sa_table t;

	pr_report_table(c->rows, 0, &t);
	sa_table_csv(&t, c->env->stamp, c->env->no_header);
	return 0;
}

static int print_json(const struct report_ctx *c)
{
	const struct opts *o = c->o;
	struct sa_table t;
	struct sa_json j;
	char v[48];

	sa_json_begin(&j, stdout);
	if (c->old) {
		sa_json_kstr(&j, "old", c->old->name);
		sa_json_kstr(&j, "new", c->new->name);
	} else {
		sa_json_kstr(&j, "file", c->new->name);
	}
	snprintf(v, sizeof(v), "%" PRIu64 ".%" PRIu64, c->new->major, c->new->minor);
	sa_json_kstr(&j, "version", v);
	if (o->sel.by)
		sa_json_kstr(&j, "by", sa_by_names[o->sel.by]);
	if (o->summary != SUM_NONE)
		pr_summary_json(&j, c->old, c->new);
	if (o->summary != SUM_ONLY) {
		pr_report_table(c->rows, 0, &t);
		sa_json_key(&j, "rows");
		sa_table_json(&t, &j);
	}
	sa_json_end(&j);
	return 0;
}

static int print_prom(const struct report_ctx *c)
{
	char *err = NULL;

	if (pr_metrics(c->rows, c->o->summary != SUM_NONE, c->o->summary != SUM_ONLY, &err) == 0)
		return 0;
	cmd_error(err);
	return -1;
}

/* (1.6) Does @f have child rows with a stack? */
static int has_stacks(const struct sa_file *f)
{
	size_t i;

	for (i = 0; i < f->nrows; i++)
		if (f->rows[i].cx.stack)
			return 1;
	return 0;
}

/*
 * (1.6) The stacks file (--stacks-file, or /proc/slab_account_stacks)
 * into @st, holding every stack of @f's rows (else nothing is printed).
 * 0, or -1 having said why.
 */
static int load_stacks(const struct opts *o, const struct sa_file *f, struct sa_stacks *st)
{
	char *err = NULL;
	size_t i;

	if (sa_stacks_load(st, o->stacks_file ? o->stacks_file : SA_STACKS_PATH, o->max_input,
			   &err)) {
		cmd_error(err);
		return -1;
	}
	for (i = 0; i < f->nrows; i++) {
		if (!f->rows[i].cx.stack || sa_stacks_get(st, f->rows[i].cx.stack))
			continue;
		fprintf(stderr, "slabacct: %s:%lu: stack %" PRIu64 " is not in %s (read the two files together)\n",
			f->name, f->rows[i].line, f->rows[i].cx.stack, st->name);
		sa_stacks_free(st);
		return -1;
	}
	return 0;
}

/* --folded: with the stacks file when the file has child rows with a stack. */
static int print_folded(const struct report_ctx *c)
{
	struct sa_stacks st;
	int ret;

	if (!has_stacks(c->new))
		return pr_folded(c->rows, NULL);
	if (load_stacks(c->o, c->new, &st))
		return -1;
	ret = pr_folded(c->rows, &st);
	sa_stacks_free(&st);
	return ret;
}

/*
 * (2.0) The cgroups under --cgroup-root (default /sys/fs/cgroup) into
 * @cg when a stack of @st names a cgroup: a root that cannot be read
 * leaves the ids as cgroup#ID, unless --cgroup-root named it.  0, or -1
 * having said why.
 */
static int stacks_cgroups(const struct opts *o, const struct sa_stacks *st,
			  struct sa_cgroups *cg)
{
	char *err = NULL;
	size_t i;

	memset(cg, 0, sizeof(*cg));
	for (i = 0; i < st->n && !st->v[i].first.has_cgroup; i++)
		;
	if (i == st->n)
		return 0;
	if (!sa_cgroups_load(cg, o->cgroup_root ? o->cgroup_root : SA_CGROUP_ROOT, &err))
		return 0;
	if (!err || o->cgroup_root) {
		cmd_error(err ? sa_format("--cgroup-root: %s", err) : NULL);
		free(err);
		return -1;
	}
	free(err);
	return 0;
}

/*
 * --stacks: the trees of the captured sites (--json: the sites and their
 * stacks), with --detail FILE their oldest objects; a file without any is
 * refused.
 */
static int print_stacks(const struct report_ctx *c)
{
	struct sa_cgroups cg;
	struct sa_detail d;
	struct sa_stacks st;
	int ret;

	if (!has_stacks(c->new)) {
		fprintf(stderr, "slabacct: %s: no call site under capture (no row has a ' @stack:ID'): nothing to show\n",
			c->new->name);
		return -1;
	}
	if (load_stacks(c->o, c->new, &st))
		return -1;
	if (c->o->detail && cmd_load_detail(c->o, &d, c->o->detail)) {
		sa_stacks_free(&st);
		return -1;
	}
	ret = stacks_cgroups(c->o, &st, &cg);
	if (!ret && c->o->fmt == FMT_JSON)
		ret = pr_stacks_json(c->rows, &st, c->o->detail ? &d : NULL, &cg);
	else if (!ret)
		ret = pr_stacks(c->rows, &st, c->o->detail ? &d : NULL, &cg);
	sa_cgroups_free(&cg);
	if (c->o->detail)
		sa_detail_free(&d);
	sa_stacks_free(&st);
	return ret;
}

static int print_svg(const struct report_ctx *c)
{
	return pr_svg(c->rows);
}

/* The report's printer of each format. */
static int (*const printers[FMT_N])(const struct report_ctx *c) = {
	[FMT_TEXT] = print_text, [FMT_CSV] = print_csv, [FMT_JSON] = print_json,
	[FMT_PROM] = print_prom, [FMT_FOLDED] = print_folded, [FMT_SVG] = print_svg,
};

int report(const struct opts *o, const struct report_env *env,
	   const struct sa_file *old, const struct sa_file *new)
{
	struct report_ctx c = { o, env, old, new, NULL };
	struct sa_rows rows;
	char *err = NULL;
	int r;

	if (sa_rows_build(&rows, &o->sel, old, new, &err)) {
		cmd_error(err);
		return -1;
	}
	c.rows = &rows;
	r = o->stacks ? print_stacks(&c) : printers[o->fmt](&c);
	sa_rows_free(&rows);
	return r;
}

int cmd_report(const struct opts *o)
{
	struct report_env once = { 0, NULL, 0, 0, 0, 0, 0 };
	struct sa_file old, new;
	int ret = 1;

	if (o->fmt == FMT_TEXT)
		once.width = cmd_fit_width(o);	/* a terminal's, or --width */

	if (o->cmd == CMD_DIFF) {
		if (cmd_load(o, &old, o->args[0]))
			return 1;
		if (cmd_load(o, &new, o->args[1]) == 0) {
			if (sa_out_begin(o->output) == 0)
				ret = sa_out_end(o->output, !report(o, &once, &old, &new)) ? 1 : 0;
			sa_file_free(&new);
		}
		sa_file_free(&old);
		return ret;
	}
	if (cmd_load(o, &new, o->from_trace ? o->from_trace :
		     o->nargs ? o->args[0] : SA_DEFAULT_PATH))
		return 1;
	if (sa_out_begin(o->output) == 0)
		ret = sa_out_end(o->output, !report(o, &once, NULL, &new)) ? 1 : 0;
	sa_file_free(&new);
	return ret;
}
