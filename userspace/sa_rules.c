// SPDX-License-Identifier: GPL-2.0
/*
 * sa_rules - the gate's rules parsed (see sa_rules.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_rules.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sa_base.h"

#define MAX_WORDS 32
#define RULE_FORMS "'no growing|left-at-unload|live-after-unload ...' or 'live|objs|slack|growth <= LIMIT ...'"
#define SELECTORS "per, module, function, site, cache, type, unloaded, loaded, cgroup, task, node, stack, not or optional"

const char *const sa_scope_names[] = { "", "site", "function", "module", "cache" };

static const char *const nouns[] = { "growing", "left-at-unload", "live-after-unload" };
static const char *const qtys[] = { "live", "objs", "slack", "growth" };
const char *const sa_sel_words[] = { "module", "function", "site", "cache", "type", "unloaded",
				     "loaded", "cgroup", "task", "node", "stack" };
static const char *const types[] = { "kmalloc", "cache", "multi", "mixed" };

struct word {
	const char *s;
	size_t n;
	size_t col;	/* 1-based */
};

struct rparser {
	const char *text, *where;
	struct word w[MAX_WORDS];
	size_t nw;
	char **err;
};

static int fail(struct rparser *p, size_t col, const char *fmt, ...) SA_PRINTF(3, 4);

static int fail(struct rparser *p, size_t col, const char *fmt, ...)
{
	const char *t = p->text + strspn(p->text, " \t");
	size_t n = strlen(t);
	char *what, q[SA_QUOTE_MAX * 2 + 4];
	va_list ap;

	va_start(ap, fmt);
	what = sa_vformat(fmt, ap);
	va_end(ap);
	while (n && (t[n - 1] == ' ' || t[n - 1] == '\t'))
		n--;
	/* the rule quoted whole (its blanks around it left out) when it is short */
	if (n <= 2 * SA_QUOTE_MAX)
		snprintf(q, sizeof(q), "%.*s", (int)n, t);
	else
		snprintf(q, sizeof(q), "%.*s...", 2 * SA_QUOTE_MAX, t);
	*p->err = what ? sa_format("%s:%zu: rule '%s': %s", p->where, col, q, what) : NULL;
	free(what);
	return -1;
}

static int is(const struct word *w, const char *s)
{
	return w->n == strlen(s) && !memcmp(w->s, s, w->n);
}

/* The index of @w in @list (@n names), or -1. */
static int which(const struct word *w, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (is(w, list[i]))
			return (int)i;
	return -1;
}

/* A percentage: digits, optionally '.' and one or two digits, then '%': hundredths. */
static int parse_pct(const struct word *w, uint64_t *v)
{
	const char *dot = memchr(w->s, '.', w->n - 1);
	size_t ilen = dot ? (size_t)(dot - w->s) : w->n - 1, flen = dot ? w->n - 2 - ilen : 0;
	uint64_t i, f = 0;

	if (sa_parse_u64(w->s, ilen, &i) || i > 1000000 || (dot && (!flen || flen > 2)) ||
	    (flen && sa_parse_u64(dot + 1, flen, &f)))
		return -1;
	*v = i * 100 + (flen == 1 ? f * 10 : f);
	return 0;
}

static int parse_limit(struct rparser *p, struct sa_rule *r, const struct word *w)
{
	if (w->n > 1 && w->s[w->n - 1] == '%') {
		if (parse_pct(w, &r->limit))
			return fail(p, w->col, "'%.*s' is not a percentage; expected digits with at most two decimals and '%%' (12.5%%)",
				    (int)w->n, w->s);
		if (r->qty == SA_Q_LIVE || r->qty == SA_Q_OBJS)
			return fail(p, w->col, "%s takes a number of %s, not a percentage; expected a limit such as 64K",
				    qtys[r->qty], r->qty == SA_Q_LIVE ? "bytes" : "objects");
		r->pct = 1;
		return 0;
	}
	if (sa_parse_size(w->s, w->n, &r->limit))
		return fail(p, w->col, "'%.*s' is not a limit; expected a size (64K, 2M: K, M, G, T, P, E, 1024 based)%s",
			    (int)w->n, w->s, r->qty == SA_Q_SLACK || r->qty == SA_Q_GROWTH ?
			    " or a percentage (10%)" : "");
	return 0;
}

/* The words after the assertion: scope and selectors, from word @i. */
static int parse_rest(struct rparser *p, struct sa_rule *r, size_t i)
{
	size_t scope_col = 1;
	int neg = 0, k;

	r->sel = calloc(p->nw + 1, sizeof(*r->sel));
	if (!r->sel)
		return fail(p, 1, "out of memory");
	for (; i < p->nw; i++) {
		const struct word *w = &p->w[i];
		struct sa_sel *s;

		if (is(w, "per") && !neg) {
			if (r->scope)
				return fail(p, w->col, "a second 'per'; expected one scope at most");
			if (i + 1 == p->nw || (k = which(&w[1], sa_scope_names + 1, 4)) < 0)
				return fail(p, i + 1 < p->nw ? w[1].col : w->col + w->n,
					    "'per' without a scope; expected site, function, module or cache after it");
			r->scope = (enum sa_rule_scope)(k + 1);
			scope_col = w->col;
			i++;
			continue;
		}
		if (is(w, "not") && !neg) {
			neg = 1;
			continue;
		}
		if (is(w, "optional") && !neg) {
			if (r->optional)
				return fail(p, w->col, "a second 'optional'; expected it once at most");
			r->optional = 1;
			continue;
		}
		k = which(w, sa_sel_words, sizeof(sa_sel_words) / sizeof(sa_sel_words[0]));
		if (k < 0)
			return fail(p, w->col, "'%.*s' is not a selector; expected %s",
				    (int)w->n, w->s, neg ? "module, function, site, cache, type, cgroup, task, node or stack after 'not'" :
				    SELECTORS);
		s = &r->sel[r->nsel++];
		s->kind = (enum sa_sel_kind)k;
		s->neg = neg;
		if (k == SA_SEL_UNLOADED || k == SA_SEL_LOADED) {
			if (neg)
				return fail(p, w->col, "'not %s'; expected %s instead", sa_sel_words[k],
					    sa_sel_words[k == SA_SEL_UNLOADED ? SA_SEL_LOADED : SA_SEL_UNLOADED]);
			/* these rules judge the sites of unloaded modules only */
			if (k == SA_SEL_LOADED && r->kind >= SA_R_LEFT)
				return fail(p, w->col, "'no %s' judges the call sites of modules that unloaded: 'loaded' would select none; expected no 'loaded'",
					    nouns[r->kind - 1]);
		} else {
			if (i + 1 == p->nw)
				return fail(p, w->col + w->n, "'%s' without its %s; expected it after '%s'",
					    sa_sel_words[k], k == SA_SEL_SITE ? "SITE" : k == SA_SEL_TYPE ?
					    "TYPE" : k == SA_SEL_NODE ? "N" : k == SA_SEL_STACK ? "FUNCTION" :
					    k == SA_SEL_CGROUP ? "PATH" : "NAME", sa_sel_words[k]);
			i++;
			if (k == SA_SEL_TYPE && which(&w[1], types, 4) < 0)
				return fail(p, w[1].col, "type '%.*s'; expected kmalloc, cache, multi or mixed",
					    (int)w[1].n, w[1].s);
			if (k == SA_SEL_NODE && sa_parse_u64(w[1].s, w[1].n, &s->id))
				return fail(p, w[1].col, "node '%.*s'; expected a node number",
					    (int)w[1].n, w[1].s);
			if (k >= SA_SEL_CGROUP && r->kind != SA_R_LIMIT)
				return fail(p, w->col, "'no %s' judges call sites, not the rows of a context or a stack; expected no '%s'",
					    nouns[r->kind - 1], sa_sel_words[k]);
			r->ctx_sel |= k >= SA_SEL_CGROUP;
			s->arg = sa_dup_range(w[1].s, w[1].n);
			if (!s->arg)
				return fail(p, 1, "out of memory");
			r->site_sel |= !neg && k != SA_SEL_MODULE && k < SA_SEL_CGROUP;
		}
		neg = 0;
	}
	if (neg)
		return fail(p, p->w[p->nw - 1].col, "'not' at the end; expected a selector after it");
	if (r->scope > SA_S_SITE && r->kind != SA_R_LIMIT)
		return fail(p, scope_col, "'no %s' judges %s; expected no 'per' (or 'per site')",
			    nouns[r->kind - 1], r->kind == SA_R_LEFT ? "each unload's sites" : "call sites");
	return 0;
}

static int parse_rule(struct rparser *p, struct sa_rule *r)
{
	const struct word *w = p->w;
	int k;

	if (!p->nw)
		return fail(p, 1, "an empty rule; expected %s", RULE_FORMS);
	if (is(&w[0], "no")) {
		if (p->nw < 2 || (k = which(&w[1], nouns, 3)) < 0)
			return fail(p, p->nw < 2 ? w[0].col + 2 : w[1].col,
				    "'no' without what; expected growing, left-at-unload or live-after-unload after it");
		r->kind = (enum sa_rule_kind)(k + 1);
		return parse_rest(p, r, 2);
	}
	k = which(&w[0], qtys, 4);
	if (k < 0)
		return fail(p, w[0].col, "'%.*s' starts no rule; expected %s", (int)w[0].n, w[0].s,
			    RULE_FORMS);
	r->kind = SA_R_LIMIT;
	r->qty = (enum sa_rule_qty)k;
	if (p->nw < 2 || !is(&w[1], "<="))
		return fail(p, p->nw < 2 ? w[0].col + w[0].n : w[1].col,
			    "expected '<=' after '%s' (a rule is '%s <= LIMIT ...')", qtys[k], qtys[k]);
	if (p->nw < 3)
		return fail(p, w[1].col + 2, "no limit; expected a size (64K)%s after '<='",
			    k >= SA_Q_SLACK ? " or a percentage (10%)" : "");
	if (parse_limit(p, r, &w[2]))
		return -1;
	return parse_rest(p, r, 3);
}

static void rule_free(struct sa_rule *r)
{
	size_t i;

	for (i = 0; i < r->nsel; i++) {
		free(r->sel[i].arg);
		free(r->sel[i].stacks);
	}
	free(r->sel);
	free(r->text);
	free(r->where);
}

int sa_rule_add(struct sa_rules *rs, const char *text, const char *where, char **err)
{
	struct rparser p = { text, where, { { NULL, 0, 0 } }, 0, err };
	const char *s = text, *t;
	struct sa_rule *r;
	size_t n, len = 0;
	char *j;

	*err = NULL;
	while ((n = sa_token(&s, &t)) > 0) {
		if (p.nw == MAX_WORDS)
			return fail(&p, (size_t)(t - text) + 1, "more than %d words; expected a shorter rule",
				    MAX_WORDS);
		p.w[p.nw].s = t;
		p.w[p.nw].n = n;
		p.w[p.nw++].col = (size_t)(t - text) + 1;
		len += n + 1;
	}
	if (strchr(text, '#'))
		return fail(&p, (size_t)(strchr(text, '#') - text) + 1,
			    "'#' in a rule; expected none (in a rules file it starts a comment)");
	if (sa_grow(&rs->r, &rs->cap, rs->n + 1, sizeof(*rs->r)))
		return fail(&p, 1, "out of memory");
	r = &rs->r[rs->n];
	memset(r, 0, sizeof(*r));
	if (parse_rule(&p, r)) {
		rule_free(r);
		return -1;
	}
	r->where = strdup(where);
	r->text = j = malloc(len + 1);
	if (!r->where || !j) {
		rule_free(r);
		return fail(&p, 1, "out of memory");
	}
	for (n = 0; n < p.nw; n++) {
		memcpy(j, p.w[n].s, p.w[n].n);
		j += p.w[n].n;
		*j++ = n + 1 < p.nw ? ' ' : '\0';
	}
	rs->n++;
	return 0;
}

int sa_rules_parse_buffer(struct sa_rules *rs, const char *buf, size_t len, const char *name,
			  char **err)
{
	struct sa_lines l = { .buf = buf, .len = len };
	size_t before = rs->n;
	char *where, *hash;
	int r;

	*err = NULL;
	while ((r = sa_lines_next(&l)) > 0) {
		if (strlen(l.line) != l.n) {
			*err = sa_format("%s:%lu: NUL byte in line (not a rules file?)", name, l.lineno);
			break;
		}
		hash = strchr(l.line, '#');
		if (hash)
			*hash = '\0';	/* a comment */
		if (!l.line[strspn(l.line, " \t")])
			continue;
		where = sa_format("%s:%lu", name, l.lineno);
		if (!where || sa_rule_add(rs, l.line, where, err)) {
			free(where);
			r = -1;
			break;
		}
		free(where);
	}
	sa_lines_free(&l);
	if (!r && !*err && rs->n == before)
		*err = sa_format("%s: no rule in the file (one rule per line; '#' starts a comment)",
				 name);
	return r < 0 || *err ? -1 : 0;
}

void sa_rules_free(struct sa_rules *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		rule_free(&rs->r[i]);
	free(rs->r);
	memset(rs, 0, sizeof(*rs));
}

void sa_rule_limit_text(const struct sa_rule *r, char *buf, size_t n)
{
	if (r->pct && r->limit % 100)
		snprintf(buf, n, "%" PRIu64 ".%0*" PRIu64 "%%", r->limit / 100,
			 r->limit % 10 ? 2 : 1, r->limit % 10 ? r->limit % 100 : r->limit % 100 / 10);
	else if (r->pct)
		snprintf(buf, n, "%" PRIu64 "%%", r->limit / 100);
	else
		snprintf(buf, n, "%" PRIu64, r->limit);
}
