// SPDX-License-Identifier: GPL-2.0
/*
 * pr_stacks - --stacks: captured call sites as trees of their stacks (see
 * pr_stacks.h).  The lines are gathered first, then printed in columns.
 */
#include "pr_stacks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sa_esc.h"
#include "sa_json.h"

enum { C_TOTAL, C_LIVE, C_OBJS, C_ALLOCS, C_FREES, NCOLS };
static const int fields[NCOLS] = { SA_TOTAL, SA_LIVE, SA_OBJS, SA_ALLOCS, SA_FREES };

struct line {
	uint64_t v[NCOLS];
	uint64_t oldest;	/* seconds: the oldest live object of its rows (aged) */
	int aged;		/* the detail file has a row of them */
	size_t depth;		/* 0: the site */
	const char *label;	/* a frame, the site's caller, or NULL: its own row */
	int gap;		/* a blank line before it (a new site) */
	/* (2.0) the stacks that end here, each with its first context */
	const struct sa_stack **ends;
	size_t nends, capends;
};

struct out {
	struct line *l;
	size_t n, cap;
	int key;		/* the first sort key: the branches' order */
	const struct sa_detail *d;	/* the detail file, or NULL */
	const struct sa_cgroups *cg;	/* cgroup ids to paths */
};

/* A stack's row and its stack. */
struct ent {
	const struct sa_row *row;
	const struct sa_stack *s;
};

/* A new line of @o (NULL without memory); it may move o->l: keep no line pointer across it. */
static struct line *add(struct out *o, size_t depth, const char *label)
{
	struct line *l;

	if (sa_grow(&o->l, &o->cap, o->n + 1, sizeof(*o->l)))
		return NULL;
	l = &o->l[o->n++];
	memset(l, 0, sizeof(*l));
	l->depth = depth;
	l->label = label;
	return l;
}

/*
 * The detail file's row of main-file row @r: the same type and caller,
 * its context after a blank as the detail file writes a child row's.
 */
static const struct sa_drow *detail_row(const struct sa_detail *d, const struct sa_row *r)
{
	size_t i, n = strlen(r->caller);

	for (i = 0; d && i < d->nrows; i++) {
		const char *c = d->rows[i].site.caller;

		if (strncmp(c, r->caller, n) || strcmp(d->rows[i].site.type_str, r->type_str))
			continue;
		if (r->ctx ? c[n] == ' ' && !strcmp(c + n + 1, r->ctx) : !c[n])
			return &d->rows[i];
	}
	return NULL;
}

/* Add row @r to line @l (of @o): its numbers, the age of its oldest object. */
static void sum(const struct out *o, struct line *l, const struct sa_row *r)
{
	const struct sa_drow *dr = detail_row(o->d, r);
	int c;

	for (c = 0; c < NCOLS; c++)
		l->v[c] += r->v[fields[c]];
	if (dr && dr->v[SA_D_OBJS]) {
		if (!l->aged || dr->v[SA_D_OLDEST] > l->oldest)
			l->oldest = dr->v[SA_D_OLDEST];
		l->aged = 1;
	}
}

/*
 * (2.0) Note on line @l the stacks of @e[0..@n) that end at depth @d (of
 * @d + 1 frames) and have a first context, each once.  0, or -1 without
 * memory.
 */
static int ends_here(struct line *l, const struct ent *e, size_t n, size_t d)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		if (e[i].s->n != d + 1 || !e[i].s->first.have)
			continue;
		for (k = 0; k < l->nends && l->ends[k] != e[i].s; k++)
			;
		if (k < l->nends)
			continue;
		if (sa_grow(&l->ends, &l->capends, l->nends + 1, sizeof(*l->ends)))
			return -1;
		l->ends[l->nends++] = e[i].s;
	}
	return 0;
}

/* (2.0) A cgroup id as --by names it: its path, or cgroup#ID. */
static void cgroup_name(const struct sa_cgroups *cg, uint64_t id, char *buf, size_t n,
			const char **name)
{
	*name = sa_cgroups_path(cg, id);
	if (!*name) {
		snprintf(buf, n, "cgroup#%" PRIu64, id);
		*name = buf;
	}
}

/* (2.0) `stack ID, first: pid P[ tid T] comm C[ cgroup PATH]` or `..., first: irq`. */
static void print_first(const struct out *o, const struct sa_stack *s)
{
	const struct sa_stack_first *f = &s->first;
	const char *cgn;
	char buf[32];

	printf("stack %" PRIu64 ", first: ", s->id);
	if (f->irq) {
		fputs("irq", stdout);
		return;
	}
	printf("pid %" PRIu64, f->pid);
	if (f->tid != f->pid)
		printf(" tid %" PRIu64, f->tid);
	fputs(" comm ", stdout);
	sa_esc_str(stdout, f->comm, SA_ESC_TEXT);
	if (f->has_cgroup) {
		cgroup_name(o->cg, f->cgroup, buf, sizeof(buf), &cgn);
		fputs(" cgroup ", stdout);
		sa_esc_str(stdout, cgn, SA_ESC_TEXT);
	}
}

static int by_frame(const void *pa, const void *pb, void *ctx)
{
	const struct ent *a = pa, *b = pb;
	const size_t *d = ctx;

	return strcmp(a->s->frames[*d], b->s->frames[*d]);
}

struct seg {
	size_t beg, len;
	uint64_t w;
};

/* Heaviest first; equals in frame order. */
static int seg_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct seg *a = pa, *b = pb;

	(void)ctx;
	if (a->w != b->w)
		return a->w < b->w ? 1 : -1;
	return (a->beg > b->beg) - (a->beg < b->beg);
}

/* One branch of each distinct frame @d of @e's stacks (those that reach it), heaviest first. */
static int branches(struct out *o, struct ent *e, size_t n, size_t d)
{
	struct seg *sg;
	size_t i, k, ns = 0;
	int ret = -1;

	/* the stacks that end above depth d have no branch here */
	for (i = k = 0; i < n; i++)
		if (e[i].s->n > d)
			e[k++] = e[i];
	n = k;
	if (!n)
		return 0;
	if (sa_sort_array(e, n, sizeof(*e), by_frame, &d))
		return -1;
	sg = calloc(n, sizeof(*sg));
	if (!sg)
		return -1;
	for (i = 0; i < n; i++) {
		if (!i || strcmp(e[i].s->frames[d], e[i - 1].s->frames[d]))
			sg[ns++].beg = i;
		sg[ns - 1].len++;
		sg[ns - 1].w += e[i].row->v[o->key];
	}
	if (sa_sort_array(sg, ns, sizeof(*sg), seg_cmp, NULL))
		goto out;
	for (k = 0; k < ns; k++) {
		struct line *l = add(o, d, e[sg[k].beg].s->frames[d]);

		if (!l)
			goto out;
		for (i = 0; i < sg[k].len; i++)
			sum(o, l, e[sg[k].beg + i].row);
		if (ends_here(l, e + sg[k].beg, sg[k].len, d))
			goto out;
		if (branches(o, e + sg[k].beg, sg[k].len, d + 1))
			goto out;
	}
	ret = 0;
out:
	free(sg);
	return ret;
}

/*
 * Item @it's tree into @o if it has child rows with a stack.  0, or -1
 * (said on stderr).
 */
static int site_tree(struct out *o, const struct sa_rows *r, const struct sa_item *it,
		     const struct sa_stacks *st)
{
	const struct sa_row **rows;
	size_t n = sa_rows_site_rows(r, it, &rows), i, ne = 0;
	struct line sl, ol, *l;
	struct ent *e = NULL;
	int ret = -1, own = 0;

	if (n == (size_t)-1)
		goto nomem;
	e = calloc(n + 1, sizeof(*e));
	if (!e)
		goto nomem;
	for (i = 0; i < n; i++) {
		if (!rows[i]->cx.stack)
			continue;
		e[ne].row = rows[i];
		e[ne].s = sa_stacks_get(st, rows[i]->cx.stack);
		if (!e[ne++].s) {
			fprintf(stderr, "slabacct: %s:%lu: stack %" PRIu64 " is not in %s (read the two files together)\n",
				r->raw->name, rows[i]->line, rows[i]->cx.stack, st->name);
			goto out;
		}
	}
	ret = 0;
	if (!ne)
		goto out;	/* not captured */
	/* the site's sums and those of its rows without a stack, then their lines */
	memset(&sl, 0, sizeof(sl));
	memset(&ol, 0, sizeof(ol));
	for (i = 0; i < n; i++) {
		sum(o, &sl, rows[i]);
		if (!rows[i]->cx.stack) {
			sum(o, &ol, rows[i]);
			own = 1;
		}
	}
	l = add(o, 0, it->row->caller);
	if (!l)
		goto nomem;
	memcpy(l->v, sl.v, sizeof(l->v));
	l->oldest = sl.oldest;
	l->aged = sl.aged;
	l->gap = o->n > 1;
	/* a stack of the call site alone ends at the site's line */
	if (ends_here(l, e, ne, 0))
		goto nomem;
	if (own) {
		l = add(o, 1, NULL);
		if (!l)
			goto nomem;
		memcpy(l->v, ol.v, sizeof(l->v));
		l->oldest = ol.oldest;
		l->aged = ol.aged;
	}
	/* frame 0 is the site itself: the branches start at its caller */
	if (branches(o, e, ne, 1) == 0)
		goto out;
nomem:
	fputs("slabacct: out of memory\n", stderr);
	ret = -1;
out:
	free(e);
	free(rows);
	return ret;
}

int pr_stacks(const struct sa_rows *r, const struct sa_stacks *st, const struct sa_detail *d,
	      const struct sa_cgroups *cg)
{
	static const char *const titles[NCOLS] = { "total", "live", "objs", "allocs", "frees" };
	struct out o = { NULL, 0, 0, r->sel->keys[0], d, cg };
	size_t i, k, w[NCOLS], wo = strlen("oldest"), trees = 0, before;
	int c, ret = 0;
	char age[32];

	/* -n N: the first N captured sites (the others show no tree) */
	for (i = 0; i < r->nall && !ret && (!r->sel->top || trees < r->sel->top); i++) {
		before = o.n;
		ret = site_tree(&o, r, &r->items[i], st);
		trees += o.n > before;
	}
	for (c = 0; c < NCOLS; c++) {
		w[c] = strlen(titles[c]);
		for (i = 0; i < o.n; i++) {
			int len = snprintf(NULL, 0, "%" PRIu64, o.l[i].v[c]);

			if ((size_t)len > w[c])
				w[c] = (size_t)len;
		}
	}
	for (i = 0; d && i < o.n; i++) {
		int len = snprintf(NULL, 0, "%" PRIu64 "s", o.l[i].oldest);

		if ((size_t)len > wo)
			wo = (size_t)len;
	}
	if (!ret) {
		for (c = 0; c < NCOLS; c++)
			printf("%*s ", (int)w[c], titles[c]);
		if (d)
			printf("%*s ", (int)wo, "oldest");
		puts("stack");
	}
	for (i = 0; i < o.n && !ret; i++) {
		const struct line *l = &o.l[i];

		if (l->gap)
			putchar('\n');
		for (c = 0; c < NCOLS; c++)
			printf("%*" PRIu64 " ", (int)w[c], l->v[c]);
		if (d) {
			if (l->aged)
				snprintf(age, sizeof(age), "%" PRIu64 "s", l->oldest);
			printf("%*s ", (int)wo, l->aged ? age : "-");
		}
		printf("%*s", (int)(2 * l->depth), "");
		if (l->label)
			sa_esc_str(stdout, l->label, SA_ESC_TEXT);
		else
			fputs("(not captured: the rows without a stack)", stdout);
		for (k = 0; k < l->nends; k++) {
			fputs(k ? "; " : "  [", stdout);
			print_first(&o, l->ends[k]);
		}
		if (l->nends)
			putchar(']');
		putchar('\n');
	}
	for (i = 0; i < o.n; i++)
		free(o.l[i].ends);
	free(o.l);
	return ret;
}

/* ---- --stacks --json ---------------------------------------------------- */

/* A stack's rows summed, for the JSON view. */
struct jstack {
	const struct sa_stack *s;
	struct line sum;
	uint64_t w;		/* its rows' first sort key, as the tree weighs */
};

/* Heaviest first by the first sort key, as the tree; equals by id. */
static int jstack_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct jstack *a = pa, *b = pb;

	(void)ctx;
	if (a->w != b->w)
		return a->w < b->w ? 1 : -1;
	return (a->s->id > b->s->id) - (a->s->id < b->s->id);
}

/* The numbers of @l as members of the open object (with @d its oldest). */
static void json_nums(struct sa_json *j, const struct line *l, const struct sa_detail *d)
{
	static const char *const names[NCOLS] = { "total", "live", "objs", "allocs", "frees" };
	int c;

	for (c = 0; c < NCOLS; c++)
		sa_json_ku64(j, names[c], l->v[c]);
	if (d && l->aged)
		sa_json_ku64(j, "oldest", l->oldest);
}

/* (2.0) A stack's first context as the value of the last key. */
static void json_first(struct sa_json *j, const struct out *o, const struct sa_stack_first *f)
{
	const char *cgn;
	char buf[32];

	sa_json_open(j, '{', 0);
	if (f->irq) {
		sa_json_key(j, "irq");
		sa_json_raw(j, "true");
	} else {
		sa_json_ku64(j, "pid", f->pid);
		sa_json_ku64(j, "tid", f->tid);
		sa_json_kstr(j, "comm", f->comm);
		if (f->has_cgroup) {
			cgroup_name(o->cg, f->cgroup, buf, sizeof(buf), &cgn);
			sa_json_ku64(j, "cgroup_id", f->cgroup);
			sa_json_kstr(j, "cgroup", cgn);
		}
	}
	sa_json_close(j);
}

/*
 * Item @it as a member of the open "sites" array if it has rows with a
 * stack: 1 if so, 0 if not, -1 without memory.
 */
static int site_json(struct sa_json *j, struct out *o, const struct sa_rows *r,
		     const struct sa_item *it, const struct sa_stacks *st)
{
	const struct sa_row **rows;
	size_t n = sa_rows_site_rows(r, it, &rows), i, k, ns = 0;
	struct jstack *js = NULL;
	struct line sl, ol;
	int own = 0, ret = -1;

	if (n == (size_t)-1)
		return -1;
	js = calloc(n + 1, sizeof(*js));
	if (!js)
		goto out;
	memset(&sl, 0, sizeof(sl));
	memset(&ol, 0, sizeof(ol));
	for (i = 0; i < n; i++) {
		const struct sa_stack *s;

		sum(o, &sl, rows[i]);
		if (!rows[i]->cx.stack) {
			sum(o, &ol, rows[i]);
			own = 1;
			continue;
		}
		/* load_stacks() found every row's stack */
		s = sa_stacks_get(st, rows[i]->cx.stack);
		for (k = 0; k < ns && js[k].s != s; k++)
			;
		if (k == ns)
			js[ns++].s = s;
		sum(o, &js[k].sum, rows[i]);
		js[k].w += rows[i]->v[o->key];
	}
	ret = 0;
	if (!ns)
		goto out;
	if (sa_sort_array(js, ns, sizeof(*js), jstack_cmp, NULL)) {
		ret = -1;
		goto out;
	}
	sa_json_key(j, NULL);
	sa_json_open(j, '{', 1);
	sa_json_kstr(j, "caller", it->row->caller);
	sa_json_kstr(j, "type", it->row->type_str);
	json_nums(j, &sl, o->d);
	if (own) {
		sa_json_key(j, "not_captured");
		sa_json_open(j, '{', 0);
		json_nums(j, &ol, o->d);
		sa_json_close(j);
	}
	sa_json_key(j, "stacks");
	sa_json_open(j, '[', 1);
	for (k = 0; k < ns; k++) {
		const struct sa_stack *s = js[k].s;

		sa_json_key(j, NULL);
		sa_json_open(j, '{', 0);
		sa_json_ku64(j, "id", s->id);
		json_nums(j, &js[k].sum, o->d);
		if (s->first.have) {
			sa_json_key(j, "first");
			json_first(j, o, &s->first);
		}
		sa_json_key(j, "frames");
		sa_json_open(j, '[', 0);
		for (i = 0; i < s->n; i++) {
			sa_json_key(j, NULL);
			sa_json_str(j, s->frames[i]);
		}
		sa_json_close(j);
		sa_json_close(j);
	}
	sa_json_close(j);
	sa_json_close(j);
	ret = 1;
out:
	free(js);
	free(rows);
	return ret;
}

int pr_stacks_json(const struct sa_rows *r, const struct sa_stacks *st,
		   const struct sa_detail *d, const struct sa_cgroups *cg)
{
	struct out o = { NULL, 0, 0, r->sel->keys[0], d, cg };
	size_t i, trees = 0;
	struct sa_json j;
	char v[48];
	int ret = 0;

	sa_json_begin(&j, stdout);
	sa_json_kstr(&j, "file", r->raw->name);
	sa_json_kstr(&j, "stacks_file", st->name);
	snprintf(v, sizeof(v), "%" PRIu64 ".%" PRIu64, st->major, st->minor);
	sa_json_kstr(&j, "stacks_version", v);
	sa_json_key(&j, "sites");
	sa_json_open(&j, '[', 1);
	/* -n N: the first N captured sites */
	for (i = 0; i < r->nall && (!r->sel->top || trees < r->sel->top); i++) {
		ret = site_json(&j, &o, r, &r->items[i], st);
		if (ret < 0)
			break;
		trees += (size_t)ret;
		ret = 0;
	}
	sa_json_close(&j);
	sa_json_end(&j);
	if (ret)
		fputs("slabacct: out of memory\n", stderr);
	return ret;
}
