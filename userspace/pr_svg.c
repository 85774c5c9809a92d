// SPDX-License-Identifier: GPL-2.0
/*
 * pr_svg - --svg FILE: a treemap of the rows, module -> function -> call
 * site (see pr_svg.h).
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

struct leaf {
	const char *mod, *func, *site;
	size_t mlen, flen;
	double value, slack_pct;
	uint64_t raw;
	size_t nsites;		/* "other": how many call sites */
};

struct box {
	double x, y, w, h;
};

static int leaf_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct leaf *a = pa, *b = pb;
	size_t n = a->mlen < b->mlen ? a->mlen : b->mlen;
	int c = memcmp(a->mod, b->mod, n);

	(void)ctx;

	if (!c)
		c = (a->mlen > b->mlen) - (a->mlen < b->mlen);
	if (!c) {
		n = a->flen < b->flen ? a->flen : b->flen;
		c = memcmp(a->func, b->func, n);
		if (!c)
			c = (a->flen > b->flen) - (a->flen < b->flen);
	}
	if (!c)
		c = (a->value < b->value) - (a->value > b->value);
	return c;
}

/* A group of leaves [start, end) and its value. */
struct group {
	size_t start, end;
	double value;
};

static int group_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct group *a = pa, *b = pb;

	(void)ctx;
	return (a->value < b->value) - (a->value > b->value);
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

static void xml_text(const char *s, size_t len)
{
	sa_esc(stdout, s, len, SA_ESC_XML);
}

/* Lay the groups of @lv [from, to) out in @r, each into box[]. */
static size_t make_groups(const struct leaf *lv, size_t from, size_t to, int by_func,
			  struct group *g)
{
	size_t i, n = 0;

	for (i = from; i < to; i++) {
		if (n && !(lv[i].mlen == lv[g[n - 1].start].mlen &&
			   !memcmp(lv[i].mod, lv[g[n - 1].start].mod, lv[i].mlen) &&
			   (!by_func || (lv[i].flen == lv[g[n - 1].start].flen &&
					 !memcmp(lv[i].func, lv[g[n - 1].start].func, lv[i].flen))))) {
			g[n] = (struct group){ i, i + 1, lv[i].value };
			n++;
		} else if (n) {
			g[n - 1].end = i + 1;
			g[n - 1].value += lv[i].value;
		} else {
			g[n++] = (struct group){ i, i + 1, lv[i].value };
		}
	}
	sa_sort_array(g, n, sizeof(*g), group_cmp, NULL);
	return n;
}

static void svg_label(const struct box *b, const char *s, size_t len, int bold)
{
	size_t fit = (size_t)((b->w - 6) / 6.5);

	if (b->h < 13 || fit < 3)
		return;
	printf("<text x=\"%.1f\" y=\"%.1f\"%s>", b->x + 3, b->y + 11, bold ? " font-weight=\"bold\"" : "");
	if (len > fit) {
		xml_text(s, fit - 1);
		fputs("\xe2\x80\xa6", stdout);	/* ... */
	} else {
		xml_text(s, len);
	}
	fputs("</text>\n", stdout);
}

int pr_svg(const struct sa_rows *rows)
{
	const struct sa_file *f = rows->new;
	const struct sa_item *items = rows->items;
	size_t n = rows->n, nall = rows->nall;
	int key = rows->sel->keys[0];
	struct leaf *lv = calloc(n + 2, sizeof(*lv));
	struct group *mg = calloc(n + 2, sizeof(*mg)), *fg = calloc(n + 2, sizeof(*fg));
	struct box *mb = calloc(n + 2, sizeof(*mb)), *fb = calloc(n + 2, sizeof(*fb));
	struct box *sb = calloc(n + 2, sizeof(*sb));
	double *v = calloc(n + 2, sizeof(*v)), total = 0;
	size_t i, j, k, nl = 0, nm, nf;
	struct leaf other = { "other", "other", NULL, 5, 5, 0, 0, 0, 0 };
	uint64_t oslack = 0, ototal = 0;
	char vb[32];
	int ret = 0;

	if (!lv || !mg || !fg || !mb || !fb || !sb || !v) {
		fprintf(stderr, "slabacct: out of memory\n");
		ret = -1;
		goto out;
	}
	for (i = 0; i < nall; i++) {
		const struct sa_row *r = items[i].row;
		struct leaf *l = i < n ? &lv[nl] : &other;
		uint64_t val = items[i].v[key].mag;
		struct sa_caller c;

		if (!val)
			continue;
		if (i >= n) {
			other.value += (double)val;
			other.raw += val;
			other.nsites++;
			oslack += r->v[SA_SLACK];
			ototal += r->v[SA_TOTAL];
			continue;
		}
		sa_caller_split(r->caller, &c);
		l->site = r->caller;
		l->mod = c.mod ? c.mod : "vmlinux";
		l->mlen = c.mod ? c.mlen : 7;
		l->func = c.func;
		l->flen = c.flen;
		l->value = (double)val;
		l->raw = val;
		l->slack_pct = r->v[SA_TOTAL] ? 100.0 * (double)r->v[SA_SLACK] / (double)r->v[SA_TOTAL] : 0;
		nl++;
	}
	if (other.nsites) {
		other.slack_pct = ototal ? 100.0 * (double)oslack / (double)ototal : 0;
		lv[nl++] = other;
	}
	sa_sort_array(lv, nl, sizeof(*lv), leaf_cmp, NULL);
	for (i = 0; i < nl; i++)
		total += lv[i].value;

	printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	       "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
	       "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n"
	       "<text x=\"6\" y=\"18\" font-size=\"14\">slab_account: ",
	       SVG_W, SVG_H, SVG_W, SVG_H, SVG_W, SVG_H);
	xml_text(f->name, strlen(f->name));
	fmt_num(vb, sizeof(vb), (struct num){ (uint64_t)total, 0 }, sa_is_bytes(key), 1, 0);
	printf(", area = %s (%s in %zu call sites), colour = slack %% of total (green 0, red 100)</text>\n",
	       sa_key_name(key), vb, nl ? (size_t)(nl - (other.nsites ? 1 : 0) + other.nsites) : 0);
	if (!nl) {
		printf("<text x=\"6\" y=\"48\">no call site has a %s above 0</text>\n", sa_key_name(key));
	}
	nm = make_groups(lv, 0, nl, 0, mg);
	for (i = 0; i < nm; i++)
		v[i] = mg[i].value;
	squarify(v, nm, (struct box){ 2, SVG_HEAD, SVG_W - 4, SVG_H - SVG_HEAD - 2 }, mb);
	for (i = 0; i < nm; i++) {
		struct box in = mb[i];
		const struct leaf *m = &lv[mg[i].start];

		printf("<g class=\"module\"><title>");
		xml_text(m->mod, m->mlen);
		fmt_num(vb, sizeof(vb), (struct num){ (uint64_t)mg[i].value, 0 }, sa_is_bytes(key), 1, 0);
		printf(": %s %s</title>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#d8d8d8\" stroke=\"#333333\" stroke-width=\"1.5\"/>\n",
		       sa_key_name(key), vb, in.x, in.y, in.w, in.h);
		svg_label(&in, m->mod, m->mlen, 1);
		printf("</g>\n");
		if (in.h > 40 && in.w > 20) {
			in.y += 15;
			in.h -= 15;
		}
		in.x += 2;
		in.y += 1;
		in.w -= 4;
		in.h -= 3;
		nf = make_groups(lv, mg[i].start, mg[i].end, 1, fg);
		for (j = 0; j < nf; j++)
			v[j] = fg[j].value;
		squarify(v, nf, in, fb);
		for (j = 0; j < nf; j++) {
			size_t ns = fg[j].end - fg[j].start;

			for (k = 0; k < ns; k++)
				v[k] = lv[fg[j].start + k].value;	/* sorted largest first */
			squarify(v, ns, fb[j], sb);
			for (k = 0; k < ns; k++) {
				const struct leaf *l = &lv[fg[j].start + k];
				const struct box *b = &sb[k];
				double hue = 120.0 * (1.0 - (l->slack_pct > 100 ? 100 : l->slack_pct) / 100.0);
				char fill[48];

				if (l->site)
					snprintf(fill, sizeof(fill), "hsl(%.0f,70%%,55%%)", hue);
				else
					snprintf(fill, sizeof(fill), "#a0a0a0");

				printf("<g class=\"site\"><title>");
				if (l->site)
					xml_text(l->site, strlen(l->site));
				else
					printf("other: %zu call sites not named", l->nsites);
				fmt_num(vb, sizeof(vb), (struct num){ l->raw, 0 }, sa_is_bytes(key), 1, 0);
				printf("\n%s %s (%" PRIu64 ", %.1f%% of all)\nslack %.1f%% of total</title>\n",
				       sa_key_name(key), vb, l->raw, total > 0 ? 100.0 * l->value / total : 0.0,
				       l->slack_pct);
				printf("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"0.5\"/>\n",
				       b->x, b->y, b->w, b->h, fill);
				if (l->site)
					svg_label(b, l->site, strcspn(l->site, " "), 0);
				else
					svg_label(b, "other", 5, 0);
				printf("</g>\n");
			}
		}
	}
	fputs("</svg>\n", stdout);
out:
	free(lv);
	free(mg);
	free(fg);
	free(mb);
	free(fb);
	free(sb);
	free(v);
	return ret;
}

