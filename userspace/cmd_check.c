// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_check - the gate (see cmd_check.h): the rules read and checked
 * against the inputs they need, the inputs loaded (the live files of
 * /proc when no snapshot is named), what the inputs say about each other
 * noted, each rule judged (sa_gate.c; the growing verdict of two detail
 * files from --leaks), the results printed (pr_gate.c).  When it cannot
 * run (a bad rule, an input missing, unreadable, malformed or cut short,
 * no memory) the message goes to stderr and, when a report was asked for,
 * into an error report; the exit status is then 2.
 */
#define _POSIX_C_SOURCE 200809L

#include "cmd_check.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_common.h"
#include "cmd_leaks.h"
#include "pr_gate.h"
#include "sa_caller.h"
#include "sa_esc.h"
#include "sa_gate.h"
#include "sa_input.h"
#include "sa_out.h"
#include "sa_retired.h"
#include "sa_rules.h"

#define MAX_NOTES 16
#define EXIT_ERROR EXIT_USAGE	/* the gate could not run: a usage error's status */

struct check {
	const struct opts *o;
	struct sa_rules rules;
	const char *cur_path, *base_path, *unloads_path, *detail_path, *bdetail_path;
	struct sa_file cur, base;
	struct sa_unloads un;
	struct sa_detail dcur, dbase;
	int have_base, have_un, have_dcur, have_dbase;
	char *keep;		/* the current snapshot's bytes, for --save-baseline */
	size_t keep_len;
	struct sa_ujoin uj;
	char *notes[MAX_NOTES];
	size_t nnotes;
	struct sa_result *res;
	size_t nres;
	int failed;		/* the gate could not run: */
	char *error;		/* why (NULL: out of memory, or said on stderr already) */
};

/*
 * The gate cannot run: @msg (malloc()ed; NULL: out of memory) on stderr,
 * the first one kept for the report.  -1.
 */
static int cannot_run(struct check *C, char *msg)
{
	fprintf(stderr, "slabacct: %s\n", msg ? msg : "out of memory");
	if (C->failed) {
		free(msg);
	} else {
		C->failed = 1;
		C->error = msg;
	}
	return -1;
}

static int read_rules(struct check *C)
{
	const struct opts *o = C->o;
	char *err = NULL, *where, *buf;
	size_t i, len;

	for (i = 0; i < o->nrules; i++) {
		where = sa_format("--rule %zu", i + 1);
		if (!where || sa_rule_add(&C->rules, o->rules[i], where, &err)) {
			free(where);
			return cannot_run(C, err);
		}
		free(where);
	}
	if (!o->rules_file)
		return 0;
	if (sa_read_path(o->rules_file, o->max_input, NULL, "rules", &buf, &len, &err))
		return cannot_run(C, err);
	i = sa_rules_parse_buffer(&C->rules, buf, len, sa_display_name(o->rules_file), &err);
	free(buf);
	return i ? cannot_run(C, err) : 0;
}

/*
 * (1.6) The rules' context selectors resolved: a cgroup PATH through the
 * cgroup tree (--cgroup-root, default /sys/fs/cgroup), a stack's FUNCTION
 * through the stacks file (--stacks-file, default
 * /proc/slab_account_stacks), each read only when a rule needs it.  0, or
 * -1 (cannot_run()).
 */
static int resolve(struct check *C)
{
	const struct opts *o = C->o;
	int need_cg = 0, need_st = 0, ret;
	struct sa_cgroups cg = { NULL, 0 };
	struct sa_stacks st;
	char *err = NULL;
	size_t i, k;

	memset(&st, 0, sizeof(st));
	for (i = 0; i < C->rules.n; i++)
		for (k = 0; k < C->rules.r[i].nsel; k++) {
			const struct sa_sel *s = &C->rules.r[i].sel[k];

			need_cg |= s->kind == SA_SEL_CGROUP && strcmp(s->arg, "irq") &&
				   strspn(s->arg, "0123456789") != strlen(s->arg);
			need_st |= s->kind == SA_SEL_STACK;
		}
	if (need_cg && sa_cgroups_load(&cg, o->cgroup_root ? o->cgroup_root : SA_CGROUP_ROOT,
				       &err)) {
		char *msg = err ? sa_format("--cgroup-root: %s", err) : NULL;

		free(err);
		return cannot_run(C, msg);
	}
	if (need_st && sa_stacks_load(&st, o->stacks_file ? o->stacks_file : SA_STACKS_PATH,
				      o->max_input, &err)) {
		sa_cgroups_free(&cg);
		return cannot_run(C, err);
	}
	ret = sa_gate_resolve(&C->rules, need_cg ? &cg : NULL, need_st ? &st : NULL, &err);
	sa_cgroups_free(&cg);
	sa_stacks_free(&st);
	return ret ? cannot_run(C, err) : 0;
}

/* Where the snapshots come from (before the rules are read: the error report names them). */
static void paths(struct check *C)
{
	const struct opts *o = C->o;

	C->cur_path = !o->nargs ? SA_DEFAULT_PATH : o->args[o->nargs - 1];
	C->base_path = o->baseline;
	C->bdetail_path = o->baseline_detail;
}

/* Which inputs the rules need, and where they come from: 0, or -1 (cannot_run()). */
static int plan(struct check *C)
{
	const struct opts *o = C->o;
	int live = !o->nargs;
	size_t i;

	if (o->detail && !o->baseline_detail)
		return cannot_run(C, sa_format("--detail names the current detail file of --baseline-detail's pair (the growing verdict): give both"));
	if (o->baseline_detail) {
		C->detail_path = o->detail ? o->detail : live ? SA_DETAIL_PATH : NULL;
		if (!C->detail_path)
			return cannot_run(C, sa_format("--baseline-detail needs the current detail file: --detail FILE (" SA_DETAIL_PATH " when no snapshot is named)"));
	}
	for (i = 0; i < C->rules.n; i++) {
		const struct sa_rule *r = &C->rules.r[i];

		if (((r->kind == SA_R_LIMIT && r->qty == SA_Q_GROWTH) ||
		     (r->kind == SA_R_GROWING && !C->bdetail_path)) && !C->base_path)
			return cannot_run(C, sa_format("%s: rule '%s' compares with a baseline: give BASELINE CURRENT, --baseline FILE%s",
						       r->where, r->text, r->kind == SA_R_GROWING ?
						       " or --baseline-detail FILE (two detail files)" : ""));
		if (r->kind == SA_R_LEFT && !o->unloads && !live)
			return cannot_run(C, sa_format("%s: rule '%s' reads the unloads file: give --unloads-file FILE (" SA_UNLOADS_PATH " when no snapshot is named)",
						       r->where, r->text));
		if (r->kind == SA_R_LEFT)
			C->unloads_path = o->unloads ? o->unloads : SA_UNLOADS_PATH;
	}
	return 0;
}

static void note(struct check *C, char *msg)
{
	if (msg && C->nnotes < MAX_NOTES)
		C->notes[C->nnotes++] = msg;
	else
		free(msg);
}

static uint64_t num(const struct sa_file *f, const char *key, uint64_t dflt)
{
	const struct sa_summary *e = sa_summary_get(f, key);

	return e && e->is_num ? e->num : dflt;
}

/* @mod's live load in @f: its `reloaded MODULE`, 1 with live rows of it, 0 without. */
static uint64_t live_load(const struct sa_file *f, const char *mod)
{
	size_t i, n, mlen = strlen(mod);
	const char *m;
	char *key = sa_format("reloaded %s", mod);
	uint64_t v = key ? num(f, key, 0) : 0;

	free(key);
	for (i = 0; !v && i < f->nrows; i++)
		if (!f->rows[i].retired && (m = sa_caller_module(f->rows[i].caller, &n)) &&
		    n == mlen && !memcmp(m, mod, n))
			v = 1;
	return v;
}

/* What the baseline and the current snapshot say about each other: a reset, reloads. */
static void pair_notes(struct check *C)
{
	const struct sa_file *b = &C->base, *c = &C->cur;
	uint64_t ba = num(b, "number of allocs", 0), ca = num(c, "number of allocs", 0);
	size_t i;

	if (ca < ba)
		note(C, sa_format("the current snapshot has fewer allocs than the baseline (%" PRIu64 " < %" PRIu64 "): slab_account was reset or reloaded in between; live objects and bytes are compared as they are",
				  ca, ba));
	/* the modules either file says were reloaded, once each */
	for (i = 0; i < c->nsummary + b->nsummary; i++) {
		const char *key = i < c->nsummary ? c->summary[i].key : b->summary[i - c->nsummary].key;
		uint64_t now, then;

		if (strncmp(key, "reloaded ", 9) || (i >= c->nsummary && sa_summary_get(c, key)))
			continue;
		now = live_load(c, key + 9);
		then = live_load(b, key + 9);
		if (now != then)
			note(C, sa_format("%s was reloaded since the baseline: its live load is %" PRIu64 " now, %" PRIu64 " then (0: not loaded); a site's rows of all its loads count as one site",
					  key + 9, now, then));
	}
}

static int load_all(struct check *C)
{
	const struct opts *o = C->o;
	char *err = NULL;

	if (cmd_load_keep(o, &C->cur, C->cur_path, o->save ? &C->keep : NULL, &C->keep_len, &err))
		return cannot_run(C, err);
	if (C->base_path) {
		if (cmd_load_keep(o, &C->base, C->base_path, NULL, NULL, &err))
			return cannot_run(C, err);
		C->have_base = 1;
		pair_notes(C);
	}
	if (C->unloads_path) {
		if (sa_unloads_load(&C->un, C->unloads_path, o->max_input, &err))
			return cannot_run(C, err);
		C->have_un = 1;
		if (sa_ujoin_build(&C->uj, &C->un, &C->cur, NULL))
			return cannot_run(C, NULL);
		if (C->uj.older)
			note(C, sa_format("the current snapshot was read before %zu of the unloads: what became of their objects is not known",
					  C->uj.older));
	}
	if (C->bdetail_path) {
		if (sa_detail_load(&C->dbase, C->bdetail_path, o->max_input, &err))
			return cannot_run(C, err);
		C->have_dbase = 1;
		if (sa_detail_load(&C->dcur, C->detail_path, o->max_input, &err))
			return cannot_run(C, err);
		C->have_dcur = 1;
		if (C->dcur.now <= C->dbase.now)
			return cannot_run(C, sa_format("the detail file %s (now %" PRIu64 ") is not later than the baseline's %s (now %" PRIu64 "): the module was reloaded in between, or the files are swapped",
						       C->dcur.name, C->dcur.now, C->dbase.name,
						       C->dbase.now));
		if (leaks_window(o, &C->dbase, &C->dcur))
			return -1;
	}
	return 0;
}

struct grow_ctx {
	const struct sa_rule *r;
	struct sa_result *res;
};

static int grow_site(void *ctx, const struct leak_site *s)
{
	struct grow_ctx *g = ctx;
	char age[32];

	if (!sa_gate_selects(g->r, s->caller, s->type_str, sa_caller_unloaded(s->caller) != 0,
			     NULL))
		return 0;
	fmt_age(age, sizeof(age), s->oldest);
	return sa_result_add(g->res, strdup(s->caller),
			     sa_format("growing: live objects %" PRIu64 " -> %" PRIu64 ", bytes %" PRIu64 " -> %" PRIu64 " in %" PRIu64 " s, oldest %s",
				       s->old_objs, s->objs, s->old_bytes, s->bytes, s->secs, age),
			     num_delta(s->old_bytes, s->bytes));
}

/* How many call sites of @d @r selects. */
static size_t detail_selected(const struct sa_rule *r, const struct sa_detail *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->nrows; i++)
		n += sa_gate_selects(r, d->rows[i].site.caller, d->rows[i].site.type_str,
				     sa_caller_unloaded(d->rows[i].site.caller) != 0, NULL);
	return n;
}

/* no growing over two detail files: --leaks' verdict. */
static int eval_growing_detail(struct check *C, const struct sa_rule *r, struct sa_result *res)
{
	struct opts lo = *C->o;
	struct grow_ctx g = { r, res };
	char *sel;

	memset(res, 0, sizeof(*res));
	res->rule = r;
	if (!detail_selected(r, &C->dbase) && !detail_selected(r, &C->dcur))
		return sa_gate_nothing(r, res, "call site", "the detail files", SA_GATE_HINT_LOADED);
	memset(&lo.sel, 0, sizeof(lo.sel));
	if (leaks_growing(&lo, &C->dbase, &C->dcur, grow_site, &g) || sa_result_sort(res))
		return -1;
	sel = sa_gate_selection(r);
	res->pass = !res->noff;
	res->summary = sel ? sa_format("%zu call site%s of %s growing (--leaks: more live objects, the oldest %" PRIu64 " s or older)",
				       res->noff, res->noff == 1 ? "" : "s", sel, C->o->min_age) : NULL;
	free(sel);
	return res->summary ? 0 : -1;
}

static int judge(struct check *C)
{
	struct sa_gate_in in = { &C->cur, C->have_base ? &C->base : NULL, C->have_un ? &C->uj : NULL };
	size_t i;

	C->res = calloc(C->rules.n + 1, sizeof(*C->res));
	for (i = 0; C->res && i < C->rules.n; i++) {
		const struct sa_rule *r = &C->rules.r[i];

		if (r->kind == SA_R_GROWING && C->have_dbase ? eval_growing_detail(C, r, &C->res[i]) :
		    sa_gate_eval(&in, r, &C->res[i]))
			break;
		C->nres++;
	}
	if (C->res && C->nres == C->rules.n)
		return 0;
	return cannot_run(C, NULL);
}

/* An input's name: the file's as read, else its path's (the error report). */
static const char *name_of(int have, const char *name, const char *path)
{
	return have ? name : path ? sa_display_name(path) : NULL;
}

static int print(const struct check *C)
{
	struct pr_gate g = { name_of(C->cur.name != NULL, C->cur.name, C->cur_path),
			     name_of(C->have_base, C->base.name, C->base_path),
			     name_of(C->have_un, C->un.name, C->unloads_path),
			     name_of(C->have_dcur, C->dcur.name, C->detail_path),
			     name_of(C->have_dbase, C->dbase.name, C->bdetail_path),
			     (const char *const *)C->notes, C->nnotes, C->res, C->failed ? 0 : C->nres,
			     !C->failed ? NULL : C->error ? C->error :
			     "the gate could not run (standard error says why)" };

	switch (C->o->fmt) {
	case FMT_KTAP:
		pr_gate_ktap(&g);
		break;
	case FMT_JUNIT:
		pr_gate_junit(&g);
		break;
	case FMT_JSON:
		return pr_gate_json(&g);
	default:
		pr_gate_text(&g);
		break;
	}
	return 0;
}

/*
 * The report to stdout or -o's FILE: 0, or -1 with a message on stderr.  A
 * report that cannot be written is the gate's error (it could not run), not
 * a failed rule: on stdout the write error is found here, by a flush, and
 * cleared once reported (the failed flush dropped what it could not write,
 * so main()'s final flush has nothing left to report).
 */
static int output(const struct check *C)
{
	int ok;

	if (sa_out_begin(C->o->output))
		return -1;
	ok = !print(C);
	if (!ok)
		cmd_error(NULL);
	if (ok && !C->o->output && sa_out_flush())
		ok = 0;
	return sa_out_end(C->o->output, ok) || !ok ? -1 : 0;
}

/* Write @buf (@len bytes) to @path as -o writes: replaced whole. */
static int save(const char *path, const char *buf, size_t len)
{
	if (sa_out_begin(path))
		return -1;
	return sa_out_end(path, fwrite(buf, 1, len, stdout) == len);
}

static void check_free(struct check *C)
{
	size_t i;

	for (i = 0; i < C->nres; i++)
		sa_result_free(&C->res[i]);
	free(C->res);
	for (i = 0; i < C->nnotes; i++)
		free(C->notes[i]);
	sa_ujoin_free(&C->uj);
	sa_file_free(&C->cur);
	if (C->have_base)
		sa_file_free(&C->base);
	if (C->have_un)
		sa_unloads_free(&C->un);
	if (C->have_dcur)
		sa_detail_free(&C->dcur);
	if (C->have_dbase)
		sa_detail_free(&C->dbase);
	free(C->keep);
	free(C->error);
	sa_rules_free(&C->rules);
}

int cmd_check(const struct opts *o)
{
	struct check C;
	size_t i;
	int ret;

	memset(&C, 0, sizeof(C));
	C.o = o;
	paths(&C);
	if (read_rules(&C) || plan(&C) || resolve(&C) || load_all(&C) || judge(&C)) {
		/*
		 * A step that wrote its own message keeps none: the report
		 * then points at stderr.  The report is written when one was
		 * asked for (text only with -o: on stdout, stderr says it).
		 */
		C.failed = 1;
		if (o->output || o->fmt != FMT_TEXT)
			output(&C);
		check_free(&C);
		return EXIT_ERROR;
	}
	ret = output(&C) ? EXIT_ERROR : 0;
	for (i = 0; i < C.nres && !ret; i++)
		ret = !C.res[i].pass;
	if (o->save && save(o->save, C.keep, C.keep_len))
		ret = EXIT_ERROR;
	check_free(&C);
	return ret;
}

int cmd_save(const struct opts *o)
{
	struct sa_file f;
	size_t len;
	char *buf, *err;
	int ret;

	if (cmd_load_keep(o, &f, o->nargs ? o->args[0] : SA_DEFAULT_PATH, &buf, &len, &err)) {
		cmd_error(err);
		return 1;
	}
	ret = save(o->save, buf, len) ? 1 : 0;
	free(buf);
	sa_file_free(&f);
	return ret;
}
