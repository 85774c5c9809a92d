// SPDX-License-Identifier: GPL-2.0
/*
 * pr_svg - --svg FILE: a treemap of the rows (see pr_svg.h).  Modules are
 * framed and named, the functions of a module with several call sites
 * framed and named inside it, the call sites tiled inside those; a tile's
 * area is its first sort key (live bytes by default: what holds memory
 * now), its colour the share of it that is slack (green 0% to red 50% and
 * more, a scale in the legend, which says so when every tile has the same
 * share), its label and tooltip the values, the type (the cache) and the
 * objects.  The call sites too small to draw one by one (under
 * PR_SVG_MIN_AREA) are one paler tile per module, counted.
 */
#include "pr_svg.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sa_caller.h"
#include "sa_esc.h"

#define SVG_W 1200
#define SVG_H 800
#define SVG_HEAD 28		/* the title line */
#define SVG_FOOT 34		/* the legend */
#define DRAW_MAX 300		/* call sites drawn one by one, at most (without -n) */
#define PLOT_W (SVG_W - 4)
#define PLOT_H (SVG_H - SVG_HEAD - SVG_FOOT)

struct leaf {
	const char *mod, *func, *site;	/* site NULL: the module's rest */
	const char *type;		/* the type column (NULL: the rest) */
	size_t mlen, flen, slen;
	uint64_t val;			/* the area's number */
	uint64_t waste, of;		/* slack bytes of @of bytes (the colour) */
	uint64_t objs, allocs, frees;	/* the rest: summed, 0 if beyond 2^64 - 1 */
	size_t nsites;			/* the rest: how many call sites */
};

struct box {
	double x, y, w, h;
};

/* A run of leaves [start, end) (a module or a function) and its value. */
struct group {
	size_t start, end;
	uint64_t val;
};

static int same(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && !memcmp(a, b, an);
}

static int leaf_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct leaf *a = pa, *b = pb;
	size_t n = a->mlen < b->mlen ? a->mlen : b->mlen;
	int c = memcmp(a->mod, b->mod, n);

	(void)ctx;
	if (!c)
		c = (a->mlen > b->mlen) - (a->mlen < b->mlen);
	if (!c)
		c = (!a->site) - (!b->site);	/* a module's rest last */
	if (!c && a->site) {
		n = a->flen < b->flen ? a->flen : b->flen;
		c = memcmp(a->func, b->func, n);
		if (!c)
			c = (a->flen > b->flen) - (a->flen < b->flen);
	}
	if (!c)
		c = (a->val < b->val) - (a->val > b->val);
	return c;
}

static int group_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct group *a = pa, *b = pb;

	(void)ctx;
	if (a->val != b->val)
		return a->val < b->val ? 1 : -1;
	return (a->start > b->start) - (a->start < b->start);
}

/* Worst aspect ratio of a row of areas summing to @s, max @hi, min @lo, along @side. */
static double worst(double s, double hi, double lo, double side)
{
	double a = side * side * hi / (s * s), b = s * s / (side * side * lo);

	return a > b ? a : b;
}

/* Squarified treemap (Bruls, Huizing, van Wijk): @v[n] sorted largest first into @r. */
static void squarify(const double *v, size_t n, struct box r, struct box *out)
{
	double total = 0, scale;
	size_t i = 0, j, k;

	for (j = 0; j < n; j++)
		total += v[j];
	if (total <= 0 || r.w <= 0 || r.h <= 0) {
		for (j = 0; j < n; j++)
			out[j] = (struct box){ r.x, r.y, 0, 0 };
		return;
	}
	scale = r.w * r.h / total;
	while (i < n) {
		double side = r.w < r.h ? r.w : r.h, s = v[i] * scale;
		double hi = s, lo = s, t, off;

		for (j = i + 1; j < n; j++) {
			double a = v[j] * scale;

			if (worst(s + a, hi, a, side) > worst(s, hi, lo, side))
				break;
			s += a;
			lo = a;
		}
		t = s / side;
		for (k = i, off = 0; k < j; k++) {
			double len = v[k] * scale / t;

			if (r.w >= r.h)
				out[k] = (struct box){ r.x, r.y + off, t, len };
			else
				out[k] = (struct box){ r.x + off, r.y, len, t };
			off += len;
		}
		if (r.w >= r.h) {
			r.x += t;
			r.w -= t;
		} else {
			r.y += t;
			r.h -= t;
		}
		i = j;
	}
}

/* The runs of @lv [from, to) of one module (@by_func: one function), largest first. */
static size_t make_groups(const struct leaf *lv, size_t from, size_t to, int by_func,
			  struct group *g)
{
	size_t i, n = 0;

	for (i = from; i < to; i++) {
		const struct leaf *p = n ? &lv[g[n - 1].start] : NULL;

		if (p && same(lv[i].mod, lv[i].mlen, p->mod, p->mlen) &&
		    (!by_func || (!lv[i].site == !p->site &&
				  (!p->site || same(lv[i].func, lv[i].flen, p->func, p->flen))))) {
			g[n - 1].end = i + 1;
			g[n - 1].val += lv[i].val;	/* within the checked total */
		} else {
			g[n++] = (struct group){ i, i + 1, lv[i].val };
		}
	}
	sa_sort_array(g, n, sizeof(*g), group_cmp, NULL);	/* unsorted still draws */
	return n;
}

struct svg {
	int key, bytes, live;	/* the area's key; a number of bytes; colour of live */
	uint64_t total;
	const char *kname;
	double lo, hi;		/* the least and most slack share of the tiles */
};

static void value_text(const struct svg *s, char *buf, size_t n, uint64_t v)
{
	fmt_num(buf, n, (struct num){ v, 0 }, s->bytes, 1, 0);
}

static double share(uint64_t waste, uint64_t of)
{
	return of ? (double)waste / (double)of : 0;
}

/* green (0% slack) to red (50% and more) */
static double hue(uint64_t waste, uint64_t of)
{
	double p = share(waste, of);

	return 120.0 * (1.0 - (p > 0.5 ? 0.5 : p) / 0.5);
}

/* Every tile's slack share the same to a tenth of a percent: one colour. */
static int uniform(const struct svg *s)
{
	return (long)(1000 * s->lo + 0.5) == (long)(1000 * s->hi + 0.5);
}

/*
 * A label in @b: @a (@alen bytes) cut to fit, and @v under it when there
 * is room (@inline: beside it, a frame's head).
 */
static void label(const struct box *b, const char *a, size_t alen, const char *v, int bold,
		  int inline_v)
{
	size_t fit = b->w > 8 ? (size_t)((b->w - 6) / 6.2) : 0;

	if (b->h < 13 || fit < 3)
		return;
	printf("<text x=\"%.1f\" y=\"%.1f\"%s>", b->x + 3, b->y + 11,
	       bold ? " font-weight=\"bold\"" : "");
	if (alen > fit) {
		sa_esc(stdout, a, fit - 1, SA_ESC_XML);
		fputs("\xe2\x80\xa6", stdout);	/* ... */
	} else {
		sa_esc(stdout, a, alen, SA_ESC_XML);
	}
	if (v && !inline_v && b->h >= 26 && strlen(v) <= fit)
		printf("<tspan x=\"%.1f\" dy=\"12\">%s</tspan>", b->x + 3, v);
	else if (v && alen + strlen(v) + 2 <= fit)
		printf("  %s", v);
	fputs("</text>\n", stdout);
}

static void tile(const struct svg *s, const struct leaf *l, const struct box *b)
{
	char v[32], fill[48];

	value_text(s, v, sizeof(v), l->val);
	/* the rest of a module: paler, hatched */
	snprintf(fill, sizeof(fill), l->site ? "hsl(%.0f,70%%,55%%)" : "hsl(%.0f,40%%,78%%)",
		 hue(l->waste, l->of));
	printf("<g class=\"%s\"><title>", l->site ? "site" : "rest");
	if (l->site) {
		sa_esc_str(stdout, l->site, SA_ESC_XML);
		putchar('\n');
		sa_esc_str(stdout, l->type, SA_ESC_XML);
	} else {
		printf("%zu more call site%s of ", l->nsites, l->nsites == 1 ? "" : "s");
		sa_esc(stdout, l->mod, l->mlen, SA_ESC_XML);
	}
	printf("\n%s %s (%" PRIu64 ", %.1f%% of all)\nlive objects %" PRIu64 ", allocs/frees %" PRIu64 "/%" PRIu64 "\nslack %.1f%% of %s</title>\n",
	       s->kname, v, l->val, s->total ? 100.0 * (double)l->val / (double)s->total : 0.0,
	       l->objs, l->allocs, l->frees, 100.0 * share(l->waste, l->of), s->live ? "live" : "total");
	printf("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"0.6\"/>\n",
	       b->x, b->y, b->w, b->h, fill);
	if (l->site) {
		char vt[96];
		const char *c = !strncmp(l->type, "cache:", 6) ? l->type + 6 : l->type;

		/* the value, and the cache (or type) where the tile is wide enough */
		snprintf(vt, sizeof(vt), "%s %s", v, c);
		label(b, l->site, l->slen, strlen(vt) <= 40 && (size_t)((b->w - 6) / 6.2) >= strlen(vt) ?
		      vt : v, 0, 0);
	} else {
		char t[48];

		printf("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"url(#rest)\"/>\n",
		       b->x, b->y, b->w, b->h);
		snprintf(t, sizeof(t), "%zu more site%s", l->nsites, l->nsites == 1 ? "" : "s");
		label(b, t, strlen(t), v, 0, 0);
	}
	fputs("</g>\n", stdout);
}

/* A frame (module or function) with its name and value on top; the box left inside. */
static struct box frame(const struct svg *s, const char *cls, const char *name, size_t len,
			uint64_t val, struct box b, const char *stroke, double head)
{
	char v[32];

	value_text(s, v, sizeof(v), val);
	printf("<g class=\"%s\"><title>", cls);
	sa_esc(stdout, name, len, SA_ESC_XML);
	printf(": %s %s</title>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#e8e8e8\" stroke=\"%s\" stroke-width=\"%s\"/>\n",
	       s->kname, v, b.x, b.y, b.w, b.h, stroke, head > 14 ? "1.5" : "1");
	if (b.h > head + 12 && b.w > 30) {
		label(&b, name, len, v, head > 14, 1);
		b.y += head;
		b.h -= head;
	}
	fputs("</g>\n", stdout);
	b.x += 1.5;
	b.y += 1;
	b.w -= 3;
	b.h -= 2.5;
	return b;
}

/*
 * The legend: the colour scale (or, when every tile has the same slack
 * share, that it is uniform), the call sites drawn one by one, those in
 * the paler tiles and those with a value of 0, not drawn.
 */
static void legend(const struct svg *s, size_t drawn, size_t rest, size_t zero)
{
	double y = SVG_H - SVG_FOOT + 8;

	printf("<defs><pattern id=\"rest\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
	       "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#ffffff\" stroke-width=\"2\"/></pattern>"
	       "<linearGradient id=\"slack\"><stop offset=\"0\" stop-color=\"hsl(120,70%%,55%%)\"/>"
	       "<stop offset=\"0.5\" stop-color=\"hsl(60,70%%,55%%)\"/><stop offset=\"1\" stop-color=\"hsl(0,70%%,55%%)\"/></linearGradient></defs>\n");
	if (uniform(s)) {
		printf("<g class=\"legend\"><text x=\"6\" y=\"%.1f\">colour: slack is %.1f%% of the %s bytes on every tile: uniform, the colour tells none apart</text>\n",
		       y + 10, 100.0 * s->lo, s->live ? "live" : "allocated");
	} else {
		printf("<g class=\"legend\"><text x=\"6\" y=\"%.1f\">colour: slack, the share of the %sbytes allocated beyond the request</text>\n"
		       "<rect x=\"420\" y=\"%.1f\" width=\"200\" height=\"12\" fill=\"url(#slack)\" stroke=\"#333333\" stroke-width=\"0.5\"/>\n"
		       "<text x=\"420\" y=\"%.1f\">0%%</text><text x=\"508\" y=\"%.1f\">25%%</text><text x=\"592\" y=\"%.1f\">50%%+</text>\n",
		       y + 10, s->live ? "live " : "", y, y + 24, y + 24, y + 24);
		printf("<text x=\"6\" y=\"%.1f\">tiles from %.1f%% to %.1f%%</text>\n",
		       y + 24, 100.0 * s->lo, 100.0 * s->hi);
	}
	if (rest)
		printf("<rect x=\"650\" y=\"%.1f\" width=\"16\" height=\"12\" fill=\"hsl(60,40%%,78%%)\"/>"
		       "<rect x=\"650\" y=\"%.1f\" width=\"16\" height=\"12\" fill=\"url(#rest)\"/>"
		       "<text x=\"672\" y=\"%.1f\">%zu call site%s under %d px\xc2\xb2 each: a paler tile per module</text>\n",
		       y, y, y + 10, rest, rest == 1 ? "" : "s", PR_SVG_MIN_AREA);
	else
		printf("<text x=\"650\" y=\"%.1f\">every call site drawn one by one</text>\n", y + 10);
	printf("<text x=\"650\" y=\"%.1f\">area: %s; %zu call site%s drawn", y + 24, s->kname, drawn,
	       drawn == 1 ? "" : "s");
	if (zero)
		printf(", %zu with %s 0 left out", zero, s->kname);
	fputs("; tooltips give the numbers</text></g>\n", stdout);
}

int pr_svg(const struct sa_rows *rows)
{
	const struct sa_file *f = rows->new;
	const struct sa_item *items = rows->items;
	struct svg s = { rows->sel->keys[0], 0, 0, 0, NULL, 1, 0 };
	size_t n = rows->nall, nl = 0, i, j, k, nm, nf, ntop, rest = 0, zero = 0, nsites;
	struct leaf *lv = calloc(n + 1, sizeof(*lv));
	struct group *mg = calloc(n + 1, sizeof(*mg)), *fg = calloc(n + 1, sizeof(*fg));
	struct box *mb = calloc(n + 1, sizeof(*mb)), *fb = calloc(n + 1, sizeof(*fb));
	struct box *sb = calloc(n + 1, sizeof(*sb));
	double *v = calloc(n + 1, sizeof(*v));
	char **names = calloc(n + 1, sizeof(*names));	/* retired loads' module names */
	char vb[32], *tmp;
	int ret = -1;

	s.bytes = sa_is_bytes(s.key);
	s.live = s.key == SA_LIVE || s.key == SA_LIVE_REQ || s.key == SA_OBJS || s.key == SA_PEAK;
	s.kname = sa_key_name(s.key);
	if (!lv || !mg || !fg || !mb || !fb || !sb || !v || !names) {
		fprintf(stderr, "slabacct: out of memory\n");
		goto out;
	}
	for (i = 0; i < n; i++)
		if (sa_add_u64(&s.total, items[i].v[s.key].mag)) {
			fprintf(stderr, "slabacct: %s: the %s of the call sites drawn does not fit in 64 bits\n",
				sa_esc_text(f->name, &tmp), s.kname);
			free(tmp);
			goto out;
		}
	/*
	 * Drawn one by one: of the first -n (without -n, 300), those whose
	 * share of the picture is PR_SVG_MIN_AREA square pixels at least.
	 */
	ntop = rows->sel->top ? rows->n : DRAW_MAX;
	for (i = 0; i < n; i++) {
		const struct sa_row *r = items[i].row;
		struct leaf *l = &lv[nl];
		struct sa_caller c;

		if (!items[i].v[s.key].mag) {
			zero++;
			continue;
		}
		sa_caller_split(r->caller, &c);
		l->mod = c.mod ? c.mod : "vmlinux";
		l->mlen = c.mod ? c.mlen : 7;
		if (c.unloaded) {	/* (1.3) a retired load: a module of its own */
			names[i] = sa_caller_module_dup(&c);
			if (!names[i]) {
				fprintf(stderr, "slabacct: out of memory\n");
				goto out;
			}
			l->mod = names[i];
			l->mlen = strlen(names[i]);
		}
		l->func = c.func;
		l->flen = c.flen;
		l->val = items[i].v[s.key].mag;
		l->waste = s.live ? r->v[SA_LIVE] - r->v[SA_LIVE_REQ] : r->v[SA_SLACK];
		l->of = s.live ? r->v[SA_LIVE] : r->v[SA_TOTAL];
		l->objs = r->v[SA_OBJS];
		l->allocs = r->v[SA_ALLOCS];
		l->frees = r->v[SA_FREES];
		if (i < ntop && (double)l->val * PLOT_W * PLOT_H >=
				(double)PR_SVG_MIN_AREA * (double)s.total) {
			l->site = r->caller;
			l->slen = c.slen;
			l->type = r->type_str;
		} else {
			l->nsites = 1;
			rest++;
		}
		nl++;
	}
	if (sa_sort_array(lv, nl, sizeof(*lv), leaf_cmp, NULL)) {
		fprintf(stderr, "slabacct: out of memory\n");
		goto out;
	}
	/* the rest of a module: one tile */
	for (i = j = 0; i < nl; i++) {
		if (j && !lv[i].site && !lv[j - 1].site &&
		    same(lv[i].mod, lv[i].mlen, lv[j - 1].mod, lv[j - 1].mlen)) {
			lv[j - 1].val += lv[i].val;
			lv[j - 1].nsites++;
			if (sa_add_u64(&lv[j - 1].waste, lv[i].waste) || sa_add_u64(&lv[j - 1].of, lv[i].of))
				lv[j - 1].waste = lv[j - 1].of = 0;	/* no colour: grey anyway */
			if (sa_add_u64(&lv[j - 1].objs, lv[i].objs) ||
			    sa_add_u64(&lv[j - 1].allocs, lv[i].allocs) ||
			    sa_add_u64(&lv[j - 1].frees, lv[i].frees))
				lv[j - 1].objs = lv[j - 1].allocs = lv[j - 1].frees = 0;
			continue;
		}
		lv[j++] = lv[i];
	}
	nsites = nl;
	nl = j;
	/* the range of the tiles' slack shares (the legend's) */
	for (i = 0; i < nl; i++) {
		double p = share(lv[i].waste, lv[i].of);

		s.lo = p < s.lo ? p : s.lo;
		s.hi = p > s.hi ? p : s.hi;
	}
	if (!nl)
		s.lo = 0;

	printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	       "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
	       "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n"
	       "<text x=\"6\" y=\"18\" font-size=\"14\">slab_account: ",
	       SVG_W, SVG_H, SVG_W, SVG_H, SVG_W, SVG_H);
	sa_esc_str(stdout, f->name, SA_ESC_XML);
	value_text(&s, vb, sizeof(vb), s.total);
	printf(", %s %s in %zu call sites, by module and function</text>\n", s.kname, vb,
	       nsites);
	if (!nl)
		printf("<text x=\"6\" y=\"48\">no call site has a %s above 0</text>\n", s.kname);
	nm = make_groups(lv, 0, nl, 0, mg);
	for (i = 0; i < nm; i++)
		v[i] = (double)mg[i].val;
	squarify(v, nm, (struct box){ 2, SVG_HEAD, PLOT_W, PLOT_H }, mb);
	for (i = 0; i < nm; i++) {
		const struct leaf *m = &lv[mg[i].start];
		struct box in = frame(&s, "module", m->mod, m->mlen, mg[i].val, mb[i], "#333333", 15);

		nf = make_groups(lv, mg[i].start, mg[i].end, 1, fg);
		for (j = 0; j < nf; j++)
			v[j] = (double)fg[j].val;
		squarify(v, nf, in, fb);
		for (j = 0; j < nf; j++) {
			size_t ns = fg[j].end - fg[j].start;
			const struct leaf *fl = &lv[fg[j].start];
			struct box fin = fb[j];

			if (ns > 1 && fl->site)		/* a function of several sites: framed */
				fin = frame(&s, "function", fl->func, fl->flen, fg[j].val, fb[j],
					    "#777777", 13);
			for (k = 0; k < ns; k++)
				v[k] = (double)lv[fg[j].start + k].val;	/* largest first */
			squarify(v, ns, fin, sb);
			for (k = 0; k < ns; k++)
				tile(&s, &lv[fg[j].start + k], &sb[k]);
		}
	}
	legend(&s, nsites - rest, rest, zero);
	fputs("</svg>\n", stdout);
	ret = 0;
out:
	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(lv);
	free(mg);
	free(fg);
	free(mb);
	free(fb);
	free(sb);
	free(v);
	return ret;
}
