// SPDX-License-Identifier: GPL-2.0
/*
 * sa_gate - the rules judged (see sa_gate.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_gate.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sa_caller.h"
#include "sa_esc.h"
#include "sa_merge.h"

enum { F_LIVE, F_OBJS, F_TOTAL, F_SLACK, NF };	/* the numbers summed per item */


static const char *const type_names[] = { "kmalloc", "cache", "multi", "mixed" };

/* --by type's name of a type column: kmalloc, cache, multi or mixed. */
static const char *type_group(const char *type_str)
{
	enum sa_type t;
	const char *cache;

	if (sa_type_parse(type_str, &t, &cache))
		return "";
	return t == SA_TYPE_KMALLOC ? type_names[0] : t == SA_TYPE_MIXED ? type_names[3] :
	       cache && !strcmp(cache, "*") ? type_names[2] : type_names[1];
}

static int id_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* (1.6) Does context selector @s take @row (NULL: a row of no context)? */
static int ctx_selects(const struct sa_sel *s, const struct sa_row *row)
{
	const struct sa_ctx *c = row ? &row->cx : NULL;

	if (!c)
		return 0;
	switch (s->kind) {
	case SA_SEL_CGROUP:
		return s->irq ? c->kind == SA_CTX_IRQ : c->kind == SA_CTX_CGROUP && c->id == s->id;
	case SA_SEL_TASK:
		return s->irq ? c->kind == SA_CTX_IRQ :
		       c->kind == SA_CTX_TASK && c->tlen == strlen(s->arg) &&
		       !memcmp(c->task, s->arg, c->tlen);
	case SA_SEL_NODE:
		return c->kind == SA_CTX_NODE && c->id == s->id;
	case SA_SEL_STACK:
		return c->stack &&
		       bsearch(&c->stack, s->stacks, s->nstacks, sizeof(*s->stacks), id_cmp);
	default:
		return 0;
	}
}

int sa_gate_resolve(struct sa_rules *rs, const struct sa_cgroups *cg,
		    const struct sa_stacks *st, char **err)
{
	size_t i, k, f, n;

	*err = NULL;
	for (i = 0; i < rs->n; i++) {
		for (k = 0; k < rs->r[i].nsel; k++) {
			struct sa_sel *s = &rs->r[i].sel[k];
			const char *a = s->arg;

			if (s->kind == SA_SEL_TASK || s->kind == SA_SEL_CGROUP)
				s->irq = !strcmp(a, "irq");
			if (s->kind == SA_SEL_CGROUP && !s->irq &&
			    (strspn(a, "0123456789") != strlen(a) ? sa_cgroups_id(cg, a, &s->id) :
			     sa_parse_u64(a, strlen(a), &s->id))) {
				*err = sa_format("%s: rule '%s': no cgroup '%s' (a path under the cgroup root, an id or irq)",
						 rs->r[i].where, rs->r[i].text, a);
				return -1;
			}
			if (s->kind != SA_SEL_STACK)
				continue;
			/* the stacks with a frame in function a ("a+0x...", in id order) */
			s->stacks = calloc(st ? st->n + 1 : 1, sizeof(*s->stacks));
			if (!s->stacks)
				return -1;
			for (n = 0; st && n < st->n; n++)
				for (f = 0; f < st->v[n].n; f++) {
					const char *fr = st->v[n].frames[f];
					size_t al = strlen(a);

					if (!strncmp(fr, a, al) && (fr[al] == '+' || fr[al] == ' ' || !fr[al])) {
						s->stacks[s->nstacks++] = st->v[n].id;
						break;
					}
				}
		}
	}
	return 0;
}

int sa_gate_selects(const struct sa_rule *r, const char *caller, const char *type_str,
		    int retired, const struct sa_row *row)
{
	struct sa_caller c;
	size_t i;

	sa_caller_split(caller, &c);
	for (i = 0; i < r->nsel; i++) {
		const struct sa_sel *s = &r->sel[i];
		size_t n = s->arg ? strlen(s->arg) : 0;
		int m = 0;

		switch (s->kind) {
		case SA_SEL_MODULE:
			m = !strcmp(s->arg, "vmlinux") ? !c.mod :
			    c.mod && c.mlen == n && !memcmp(c.mod, s->arg, n);
			break;
		case SA_SEL_FUNCTION:
			m = c.flen == n && !memcmp(c.func, s->arg, n);
			break;
		case SA_SEL_SITE:	/* with or without its module and helper */
			m = (c.slen == n || c.klen == n) && !memcmp(caller, s->arg, n);
			break;
		case SA_SEL_CACHE:
			m = !strncmp(type_str, "cache:", 6) && !strcmp(type_str + 6, s->arg);
			break;
		case SA_SEL_TYPE:
			m = !strcmp(type_group(type_str), s->arg);
			break;
		case SA_SEL_UNLOADED:
			m = retired;
			break;
		case SA_SEL_LOADED:
			m = !retired;
			break;
		default:	/* (1.6) a context or a stack */
			m = ctx_selects(s, row);
			break;
		}
		if (m == s->neg)
			return 0;
	}
	return 1;
}

char *sa_gate_selection(const struct sa_rule *r)
{
	const char *const *words = sa_sel_words;
	size_t i, len = 1;
	char *t, *p;

	for (i = 0; i < r->nsel; i++)
		len += 4 + strlen(words[r->sel[i].kind]) + 1 +
		       (r->sel[i].arg ? strlen(r->sel[i].arg) + 1 : 0);
	if (!r->nsel)
		return strdup("all call sites");
	t = p = malloc(len);
	if (!t)
		return NULL;
	for (i = 0; i < r->nsel; i++) {
		const struct sa_sel *x = &r->sel[i];

		p += sprintf(p, "%s%s%s%s%s", i ? " " : "", x->neg ? "not " : "", words[x->kind],
			     x->arg ? " " : "", x->arg ? x->arg : "");
	}
	return t;
}

int sa_result_add(struct sa_result *res, char *name, char *detail, struct num v)
{
	if (!name || !detail || sa_grow(&res->off, &res->cap, res->noff + 1, sizeof(*res->off))) {
		free(name);
		free(detail);
		return -1;
	}
	res->off[res->noff].name = name;
	res->off[res->noff].detail = detail;
	res->off[res->noff++].v = v;
	return 0;
}

static int off_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct sa_offender *a = pa, *b = pb;
	int c = -num_cmp(a->v, b->v);

	(void)ctx;
	return c ? c : strcmp(a->name, b->name);
}

int sa_result_sort(struct sa_result *res)
{
	return sa_sort_array(res->off, res->noff, sizeof(*res->off), off_cmp, NULL);
}

void sa_result_free(struct sa_result *res)
{
	size_t i;

	for (i = 0; i < res->noff; i++) {
		free(res->off[i].name);
		free(res->off[i].detail);
	}
	free(res->off);
	free(res->summary);
	memset(res, 0, sizeof(*res));
}

int sa_gate_nothing(const struct sa_rule *r, struct sa_result *res, const char *what,
		    const char *where, const char *hint)
{
	char *sel = r->nsel ? sa_gate_selection(r) : NULL;

	if (r->nsel && !sel)
		return -1;
	res->pass = r->optional;
	res->summary = sa_format("no %s%s%s in %s: nothing to judge (%s)", what,
				 sel ? " of " : "", sel ? sel : "", where,
				 r->optional ? "optional: it holds" : hint);
	free(sel);
	return res->summary ? 0 : -1;
}

/* ---- budgets: live, objs, slack, growth ---- */

/* The name of @row's item for @scope (malloc()ed; NULL without memory). */
static char *scope_key(enum sa_rule_scope scope, const struct sa_row *row)
{
	struct sa_caller c;

	sa_caller_split(row->caller, &c);
	switch (scope) {
	case SA_S_SITE:		/* the site, its loads together */
		return sa_dup_range(row->caller, c.klen);
	case SA_S_FUNCTION:
		return c.mod ? sa_format("%.*s [%.*s]", (int)c.flen, c.func, (int)c.mlen, c.mod) :
			       sa_dup_range(c.func, c.flen);
	case SA_S_MODULE:
		return c.mod ? sa_dup_range(c.mod, c.mlen) : strdup("vmlinux");
	case SA_S_CACHE:
		return strdup(row->type_str);
	case SA_S_ALL:
		break;
	}
	return strdup("");
}

/* @f's selected rows merged into items by @r's scope, into @g (@in: the records, keys to free). */
static int items(const struct sa_rule *r, const struct sa_file *f, struct sa_merge_in **inp,
		 size_t *nin, uint64_t **vals, struct sa_groups *g)
{
	struct sa_merge_in *in = calloc(f->nrows + 1, sizeof(*in));
	uint64_t *v = calloc(f->nrows * NF + 1, sizeof(*v));
	struct sa_merge_err e;
	size_t i, n = 0;

	*inp = in;
	*vals = v;
	*nin = 0;
	memset(g, 0, sizeof(*g));
	if (!in || !v)
		return -1;
	for (i = 0; i < f->nrows; i++) {
		const struct sa_row *row = &f->rows[i];

		if (!sa_gate_selects(r, row->caller, row->type_str, row->retired, row))
			continue;
		v[n * NF + F_LIVE] = row->v[SA_LIVE];
		v[n * NF + F_OBJS] = row->v[SA_OBJS];
		v[n * NF + F_TOTAL] = row->v[SA_TOTAL];
		v[n * NF + F_SLACK] = row->v[SA_SLACK];
		in[n].v = v + n * NF;
		in[n].idx = i;
		in[n].key = scope_key(r->scope, row);
		*nin = ++n;
		if (!in[n - 1].key)
			return -1;
	}
	/* a sum past 2^64 - 1 is no file's: a budget's items keep to it */
	return sa_merge(in, n, NF, NULL, g, &e);
}

static void items_free(struct sa_merge_in *in, size_t n, uint64_t *v, struct sa_groups *g)
{
	size_t i;

	for (i = 0; in && i < n; i++)
		free((char *)in[i].key);
	free(in);
	free(v);
	sa_groups_free(g);
}

/* Is @part / @whole more than @limit hundredths of a percent?  (exact in integers when they fit) */
static int over_pct(uint64_t part, uint64_t whole, uint64_t limit)
{
	uint64_t a, b;

	if (!whole)
		return part != 0;
	if (!sa_mul_u64(part, 10000, &a) && !sa_mul_u64(limit, whole, &b))
		return a > b;
	return (double)part * 10000.0 > (double)limit * (double)whole;
}

/* An item's number against @r: *@v, the text of it (malloc()ed), and whether it is over. */
static char *measure(const struct sa_rule *r, const uint64_t *cur, const uint64_t *base,
		     struct num *v, int *over)
{
	char a[32], b[32];

	switch (r->qty) {
	case SA_Q_LIVE:
	case SA_Q_OBJS:
		v->mag = cur[r->qty == SA_Q_LIVE ? F_LIVE : F_OBJS];
		v->neg = 0;
		*over = v->mag > r->limit;
		return sa_format("%" PRIu64 " live %s", v->mag, r->qty == SA_Q_LIVE ? "bytes" : "objects");
	case SA_Q_SLACK:
		v->mag = cur[F_SLACK];
		v->neg = 0;
		fmt_pct(a, sizeof(a), cur[F_SLACK], cur[F_TOTAL]);
		*over = r->pct ? over_pct(cur[F_SLACK], cur[F_TOTAL], r->limit) : v->mag > r->limit;
		if (r->pct)	/* rank by the share, in hundredths */
			v->mag = cur[F_TOTAL] ? (uint64_t)((double)cur[F_SLACK] * 10000.0 /
							   (double)cur[F_TOTAL]) : 0;
		return sa_format("slack %s%% (%" PRIu64 " of %" PRIu64 " bytes allocated)", a,
				 cur[F_SLACK], cur[F_TOTAL]);
	case SA_Q_GROWTH:
		*v = num_delta(base[F_LIVE], cur[F_LIVE]);
		fmt_num(a, sizeof(a), *v, 0, 0, 1);
		if (!r->pct) {
			*over = !v->neg && v->mag > r->limit;
			return sa_format("%s live bytes (%" PRIu64 " -> %" PRIu64 ")", a,
					 base[F_LIVE], cur[F_LIVE]);
		}
		*over = !v->neg && over_pct(v->mag, base[F_LIVE], r->limit);
		if (!base[F_LIVE] && !v->neg && v->mag)
			return sa_format("%s live bytes, none in the baseline (0 -> %" PRIu64 ")", a,
					 cur[F_LIVE]);
		fmt_pct(b, sizeof(b), v->mag, base[F_LIVE]);
		return sa_format("%s%s%% live bytes (%" PRIu64 " -> %" PRIu64 ")",
				 v->neg ? "-" : v->mag ? "+" : "", b, base[F_LIVE], cur[F_LIVE]);
	}
	return NULL;
}

static int eval_limit(const struct sa_gate_in *in, const struct sa_rule *r, struct sa_result *res)
{
	static const uint64_t zero[NF];
	struct sa_merge_in *ci = NULL, *bi = NULL;
	uint64_t *cv = NULL, *bv = NULL;
	struct sa_groups cg, bg;
	size_t cn = 0, bn = 0, i = 0, j = 0, n = 0;
	char lim[32], *sel = NULL, *what = NULL;
	int ret = -1;

	memset(&bg, 0, sizeof(bg));
	if (items(r, in->cur, &ci, &cn, &cv, &cg) ||
	    (r->qty == SA_Q_GROWTH && items(r, in->base, &bi, &bn, &bv, &bg)))
		goto out;
	sa_rule_limit_text(r, lim, sizeof(lim));
	sel = sa_gate_selection(r);
	/* the items of either file, by name (growth: of the baseline too) */
	while (i < cg.n || (r->qty == SA_Q_GROWTH && j < bg.n)) {
		int c = i == cg.n ? 1 : j == bg.n ? -1 :
			strcmp(ci[cg.g[i].first_in].key, bi[bg.g[j].first_in].key);
		const uint64_t *cur = c <= 0 ? cg.g[i].v : zero, *base = c >= 0 && bg.n ? bg.g[j].v : zero;
		const char *key = c <= 0 ? ci[cg.g[i].first_in].key : bi[bg.g[j].first_in].key;
		struct num v;
		int over;

		if (r->qty != SA_Q_GROWTH)
			c = -1;
		i += c <= 0;
		j += c >= 0;
		n++;
		free(what);
		what = measure(r, cur, base, &v, &over);
		if (!what)
			goto out;
		if (over && sa_result_add(res, strdup(r->scope ? key : sel),
					  sa_format("%s, over %s%s", what, lim,
						    r->pct || r->qty == SA_Q_OBJS ? "" : " bytes"), v))
			goto out;
	}
	if (!n) {
		ret = sa_gate_nothing(r, res, "call site", r->qty == SA_Q_GROWTH ?
				      "the snapshot or the baseline" : "the snapshot",
				      SA_GATE_HINT_LOADED);
		goto out;
	}
	res->pass = !res->noff;
	if (!r->scope)
		res->summary = sa_format("%s: %s (limit %s)", sel, what, lim);
	else
		res->summary = sa_format("%zu of %zu %s%s of %s over %s", res->noff, n,
					 sa_scope_names[r->scope], n == 1 ? "" : "s", sel, lim);
	ret = res->summary && !sa_result_sort(res) ? 0 : -1;
out:
	free(what);
	free(sel);
	items_free(ci, cn, cv, &cg);
	items_free(bi, bn, bv, &bg);
	return ret;
}

/* ---- no growing: the live objects of each site, baseline -> current ---- */

static int eval_growing(const struct sa_gate_in *in, const struct sa_rule *r,
			struct sa_result *res)
{
	struct sa_rule site = *r;
	struct sa_merge_in *ci = NULL, *bi = NULL;
	uint64_t *cv = NULL, *bv = NULL;
	struct sa_groups cg, bg;
	size_t cn = 0, bn = 0, i, j = 0;
	char *sel = NULL;
	int ret = -1;

	memset(&bg, 0, sizeof(bg));
	site.scope = SA_S_SITE;
	if (items(&site, in->cur, &ci, &cn, &cv, &cg) || items(&site, in->base, &bi, &bn, &bv, &bg))
		goto out;
	for (i = 0; i < cg.n; i++) {
		const char *key = ci[cg.g[i].first_in].key;
		const uint64_t *c = cg.g[i].v, *b;
		static const uint64_t zero[NF];
		struct num dobjs, dlive;
		char x[32], y[32];

		while (j < bg.n && strcmp(bi[bg.g[j].first_in].key, key) < 0)
			j++;
		b = j < bg.n && !strcmp(bi[bg.g[j].first_in].key, key) ? bg.g[j].v : zero;
		dobjs = num_delta(b[F_OBJS], c[F_OBJS]);
		dlive = num_delta(b[F_LIVE], c[F_LIVE]);
		if (dobjs.neg || (!dobjs.mag && (dlive.neg || !dlive.mag)))
			continue;
		fmt_num(x, sizeof(x), dobjs, 0, 0, 1);
		fmt_num(y, sizeof(y), dlive, 0, 0, 1);
		if (sa_result_add(res, strdup(key),
				  sa_format("live objects %" PRIu64 " -> %" PRIu64 " (%s), live bytes %" PRIu64 " -> %" PRIu64 " (%s)",
					    b[F_OBJS], c[F_OBJS], x, b[F_LIVE], c[F_LIVE], y),
				  dlive))
			goto out;
	}
	if (!cg.n && !bg.n) {
		ret = sa_gate_nothing(r, res, "call site", "the snapshot or the baseline",
				      SA_GATE_HINT_LOADED);
		goto out;
	}
	sel = sa_gate_selection(r);
	res->pass = !res->noff;
	res->summary = sel ? sa_format("%zu of %zu call sites of %s hold more objects than in the baseline",
				       res->noff, cg.n, sel) : NULL;
	ret = res->summary && !sa_result_sort(res) ? 0 : -1;
out:
	free(sel);
	items_free(ci, cn, cv, &cg);
	items_free(bi, bn, bv, &bg);
	return ret;
}

/* ---- no left-at-unload: the unloads file's records ---- */

static int eval_left(const struct sa_gate_in *in, const struct sa_rule *r, struct sa_result *res)
{
	const struct sa_ujoin *uj = in->uj;
	uint64_t objs = 0, unloads = 0, judged = 0, of_module = 0, sites = 0;
	const struct sa_unload *last = NULL, *last_off = NULL, *last_mod = NULL;
	char *sel = NULL, age[32], old[32];
	size_t i, k;

	for (i = 0; i < uj->n; i++) {
		const struct sa_uitem *it = &uj->it[i];
		char *caller;
		int keep = 1;

		/* the module's selectors judge the unload; the others its sites (a
		 * rule that names sites leaves out the ones not listed) */
		for (k = 0; k < r->nsel; k++)
			if (r->sel[k].kind == SA_SEL_MODULE &&
			    (strcmp(r->sel[k].arg, it->u->module) == 0) == r->sel[k].neg)
				keep = 0;
		of_module += keep && it->u != last_mod;
		if (keep)
			last_mod = it->u;
		if (keep && it->s) {
			struct sa_rule site = *r;

			site.nsel = 0;
			site.sel = calloc(r->nsel + 1, sizeof(*site.sel));
			if (!site.sel)
				return -1;
			for (k = 0; k < r->nsel; k++)
				if (r->sel[k].kind != SA_SEL_MODULE)
					site.sel[site.nsel++] = r->sel[k];
			keep = sa_gate_selects(&site, it->s->site.caller, it->s->site.type_str, 1, NULL);
			free(site.sel);
			sites += keep;
		} else if (keep && it->rest && r->site_sel) {
			keep = 0;
		}
		if (!keep)
			continue;
		judged += it->u != last;
		last = it->u;
		if (!it->objs)
			continue;
		fmt_age(age, sizeof(age), uj->un->now - it->u->when);
		if (it->s)
			fmt_age(old, sizeof(old), it->s->oldest);
		caller = it->s ? strdup(it->s->site.caller) :
			 sa_format("%" PRIu64 " more call sites", it->rest);
		if (!caller)
			return -1;
		if (sa_result_add(res, sa_format("%s (load %" PRIu64 "), unloaded %s ago", it->u->module,
						 it->u->load, age),
				  it->joined ?
				  sa_format("%s: %" PRIu64 " object%s (%" PRIu64 " bytes) still live at the unload%s%s; since: %" PRIu64 " freed, %" PRIu64 " still live",
					    caller, it->objs, it->objs == 1 ? "" : "s", it->bytes,
					    it->s ? ", oldest " : "", it->s ? old : "",
					    it->objs > it->live ? it->objs - it->live : 0, it->live) :
				  sa_format("%s: %" PRIu64 " object%s (%" PRIu64 " bytes) still live at the unload%s%s",
					    caller, it->objs, it->objs == 1 ? "" : "s", it->bytes,
					    it->s ? ", oldest " : "", it->s ? old : ""),
				  (struct num){ it->bytes, 0 })) {
			free(caller);
			return -1;
		}
		free(caller);
		objs += it->objs;
		unloads += it->u != last_off;
		last_off = it->u;
	}
	/*
	 * Nothing seen: no unload of the modules named, or sites named that are
	 * neither among those unloads' sites nor retired rows of the snapshot.
	 * A rule that judged no unload selects nothing unless a retired row of
	 * the snapshot is one of its sites (a site that left nothing live is not
	 * listed in its unload's record), even without a site selector: a rule
	 * made only of 'not' selectors may leave out every site of the module.
	 */
	if (!of_module)
		return sa_gate_nothing(r, res, "unload", "the unloads file", SA_GATE_HINT_UNLOADED);
	for (i = 0; (r->site_sel || !judged) && !sites && uj->snap && i < uj->snap->nrows; i++)
		sites += uj->snap->rows[i].retired &&
			 sa_gate_selects(r, uj->snap->rows[i].caller, uj->snap->rows[i].type_str, 1,
					 NULL);
	if ((r->site_sel || !judged) && !sites)
		return sa_gate_nothing(r, res, "call site", "the unloads' sites or the snapshot's retired rows",
			       SA_GATE_HINT_UNLOADED);
	sel = sa_gate_selection(r);
	res->pass = !res->noff;
	res->summary = !sel ? NULL : res->noff ?
		sa_format("%" PRIu64 " of %" PRIu64 " unloads of %s left %" PRIu64 " object%s still live at the unload",
			  unloads, judged, sel, objs, objs == 1 ? "" : "s") :
		sa_format("none of %" PRIu64 " unload%s of %s left an object live", judged,
			  judged == 1 ? "" : "s", sel);
	free(sel);
	return res->summary && !sa_result_sort(res) ? 0 : -1;
}

/* ---- no live-after-unload: the current snapshot's retired rows ---- */

static int eval_live_after(const struct sa_gate_in *in, const struct sa_rule *r,
			   struct sa_result *res)
{
	uint64_t objs = 0, bytes = 0, rows = 0;
	char *sel;
	size_t i;

	for (i = 0; i < in->cur->nrows; i++) {
		const struct sa_row *row = &in->cur->rows[i];

		if (!row->retired || !sa_gate_selects(r, row->caller, row->type_str, 1, NULL))
			continue;
		rows++;
		if (!row->v[SA_OBJS])
			continue;
		if (sa_result_add(res, strdup(row->caller),
				  sa_format("%" PRIu64 " object%s (%" PRIu64 " bytes) still live after its module's load %" PRIu64 " unloaded",
					    row->v[SA_OBJS], row->v[SA_OBJS] == 1 ? "" : "s",
					    row->v[SA_LIVE], row->load),
				  (struct num){ row->v[SA_LIVE], 0 }))
			return -1;
		objs += row->v[SA_OBJS];
		bytes += row->v[SA_LIVE];
	}
	if (!rows)
		return sa_gate_nothing(r, res, "retired call site", "the snapshot", SA_GATE_HINT_UNLOADED);
	sel = sa_gate_selection(r);
	res->pass = !res->noff;
	res->summary = !sel ? NULL : res->noff ?
		sa_format("%zu of %" PRIu64 " retired call sites of %s still hold %" PRIu64 " object%s (%" PRIu64 " bytes)",
			  res->noff, rows, sel, objs, objs == 1 ? "" : "s", bytes) :
		sa_format("no object of the %" PRIu64 " retired call site%s of %s is still live", rows,
			  rows == 1 ? "" : "s", sel);
	free(sel);
	return res->summary && !sa_result_sort(res) ? 0 : -1;
}

int sa_gate_eval(const struct sa_gate_in *in, const struct sa_rule *r, struct sa_result *res)
{
	int ret = -1;

	memset(res, 0, sizeof(*res));
	res->rule = r;
	switch (r->kind) {
	case SA_R_LIMIT:
		ret = eval_limit(in, r, res);
		break;
	case SA_R_GROWING:
		ret = eval_growing(in, r, res);
		break;
	case SA_R_LEFT:
		ret = eval_left(in, r, res);
		break;
	case SA_R_LIVE_AFTER:
		ret = eval_live_after(in, r, res);
		break;
	}
	if (ret)
		sa_result_free(res);
	return ret;
}
