// SPDX-License-Identifier: GPL-2.0
/*
 * sa_advice - the rules of --advise (docs/reader.md, "Advice: --advise"):
 * from a call site's request sizes and the kernel's kmalloc classes, what
 * to change and the bytes it saves (see sa_advice.h).
 */
#include "sa_advice.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sa_num.h"

/* A size the way kmalloc's caches are named: kmalloc-96, or for pages "16384 bytes of pages". */
static void size_name(char *buf, size_t n, const struct sa_detail *d, uint64_t size)
{
	if (size <= d->classes[d->nclasses - 1])
		snprintf(buf, n, "kmalloc-%" PRIu64, size);
	else
		snprintf(buf, n, "%" PRIu64 " bytes of pages", size);
}

/* The largest allocation size below @c (a class or a page block), or 0. */
static uint64_t prev_size(const struct sa_detail *d, uint64_t c)
{
	uint64_t top = d->classes[d->nclasses - 1], b;
	size_t i;

	if (c > top) {
		b = c >> 1;
		return b > top && b >= d->page_size ? b : top;
	}
	for (i = d->nclasses; i-- > 0;)
		if (d->classes[i] < c)
			return d->classes[i];
	return 0;
}

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

static int set_advice(struct asite *s, enum adv_kind kind, uint64_t object,
		      uint64_t target, char *text, char **err)
{
	struct advice *a;

	if (!text)
		return -1;
	a = &s->adv[s->nadv++];

	a->kind = kind;
	a->object = object;
	a->target = target;
	a->per_object = object - target;
	a->text = text;
	if (sa_mul_u64(a->per_object, s->v[SA_OBJS], &a->now) ||
	    sa_mul_u64(a->per_object, s->v[SA_ALLOCS], &a->churn)) {
		*err = sa_format("the saving of %s is more than %" PRIu64 " bytes",
				 s->r->caller, UINT64_MAX);
		return -1;
	}
	return 0;
}

/* A size bound as the detail file's legend writes it: 512, 1K. */
static void bound_name(char *buf, size_t n, uint64_t b)
{
	if (b >= 1024 && b % 1024 == 0)
		snprintf(buf, n, "%" PRIu64 "K", b / 1024);
	else
		snprintf(buf, n, "%" PRIu64, b);
}

/*
 * The allocation sizes the requests of size bucket @i (within
 * req_min..req_max) land in: from *@lo to *@hi.  0 if none.
 */
static int bucket_sizes(const struct sa_detail *d, const uint64_t *v, size_t i,
			uint64_t *lo, uint64_t *hi)
{
	uint64_t a = i ? d->size_bounds[i - 1] + 1 : 1;
	uint64_t b = i < SA_NSIZES - 1 ? d->size_bounds[i] : v[SA_D_REQ_MAX];

	if (!v[SA_D_SIZE + i])
		return 0;
	if (a < v[SA_D_REQ_MIN])
		a = v[SA_D_REQ_MIN];
	if (b > v[SA_D_REQ_MAX])
		b = v[SA_D_REQ_MAX];
	if (a > b)
		return 0;
	*lo = sa_detail_alloc_size(d, a);
	*hi = sa_detail_alloc_size(d, b);
	return *lo && *hi;
}

/* The allocation sizes (classes, page blocks) variable-size site @v hits: into @out, how many. */
static size_t sizes_hit(const struct sa_detail *d, const uint64_t *v, uint64_t *out, size_t max)
{
	size_t n = 0, i, k;
	uint64_t lo, hi, b;

	for (i = 0; i < SA_NSIZES; i++) {
		if (!bucket_sizes(d, v, i, &lo, &hi))
			continue;
		for (k = 0; k < d->nclasses + 64 && n < max; k++) {
			if (k < d->nclasses)
				b = d->classes[k];
			else if (k - d->nclasses < 63)
				b = d->page_size << (k - d->nclasses);
			else
				break;
			if (k >= d->nclasses && b <= d->classes[d->nclasses - 1])
				continue;
			if (b < lo || b > hi)
				continue;
			if (!n || out[n - 1] < b) {
				out[n++] = b;
			} else {	/* keep them sorted and unique */
				size_t m;

				for (m = 0; m < n && out[m] < b; m++)
					;
				if (out[m] != b) {
					memmove(out + m + 1, out + m, (n - m) * sizeof(*out));
					out[m] = b;
					n++;
				}
			}
		}
	}
	return n;
}

/* The advice for one site (docs/reader.md, "Advice: --advise"). */
int advise_site(const struct sa_detail *d, struct asite *s, char **err)
{
	const uint64_t *v = s->d->v;
	uint64_t n = v[SA_D_REQ_MIN], allocs = s->v[SA_ALLOCS];
	char c1[48], c2[48];

	*err = NULL;
	if (!v[SA_D_REQ_MAX] || !allocs)
		return 0;	/* nothing allocated since the reset */
	if (n == v[SA_D_REQ_MAX] && s->r->type == SA_TYPE_KMALLOC) {
		uint64_t c = sa_detail_alloc_size(d, n), p = c ? prev_size(d, c) : 0;
		uint64_t al = ALIGN_UP(n, 8);

		if (!c)
			return 0;
		size_name(c1, sizeof(c1), d, c);
		if (p && n - p <= (n / 8 > 8 ? n / 8 : 8)) {
			size_name(c2, sizeof(c2), d, p);
			if (set_advice(s, ADV_SMALLER, c, p,
				       sa_format("%" PRIu64 " bytes in %s: %" PRIu64 " bytes smaller fits %s",
					    n, c1, n - p, c2), err))
				return -1;
		}
		if (c > al && set_advice(s, ADV_CACHE, c, al,
					 sa_format("%" PRIu64 " bytes in %s: a dedicated kmem_cache of %" PRIu64 " bytes",
					      n, c1, al), err))
			return -1;
	} else if (n == v[SA_D_REQ_MAX] && s->r->type == SA_TYPE_CACHE &&
		   s->v[SA_TOTAL] % allocs == 0) {
		uint64_t sz = s->v[SA_TOTAL] / allocs, al = ALIGN_UP(n, 8), a;
		char why[160];

		if (sz <= al)
			return 0;	/* word alignment only: nothing to drop */
		for (a = 16; a <= sz && ALIGN_UP(n, a) != sz; a <<= 1)
			;
		if (sz - al == 8)
			/* SLUB's free pointer: outside the object of caches
			 * with a constructor or SLAB_TYPESAFE_BY_RCU. */
			snprintf(why, sizeof(why), "8 bytes after each object: SLUB's free pointer"
				 " if the cache has a constructor or is SLAB_TYPESAFE_BY_RCU (kept),"
				 " else an alignment");
		else if (a <= sz)
			snprintf(why, sizeof(why), "%" PRIu64 " is %" PRIu64 " rounded up to %" PRIu64
				 ": an alignment of %" PRIu64 " (SLAB_HWCACHE_ALIGN or an align argument)",
				 sz, n, a, a);
		else
			snprintf(why, sizeof(why), "not an alignment of %" PRIu64
				 ": a larger size given to the cache, debug metadata or a merged cache",
				 n);
		if (set_advice(s, ADV_PADDED, sz, al,
			       sa_format("objects of %" PRIu64 " bytes padded to %" PRIu64
				    " (%" PRIu64 " bytes each); %s; word aligned they take %" PRIu64,
				    n, sz, sz - n, why, al), err))
			return -1;
	} else if (n < v[SA_D_REQ_MAX]) {
		uint64_t sum = 0, hit[64];
		size_t i, k, nh = sizes_hit(d, v, hit, 64);
		char *t, *u, pct[32], b[32];

		for (i = 0; i < SA_NSIZES; i++)
			if (sa_add_u64(&sum, v[SA_D_SIZE + i])) {
				*err = sa_format("the size counts of %s add up to more than %" PRIu64,
						 s->r->caller, UINT64_MAX);
				return -1;
			}
		t = sa_format("sizes %" PRIu64 "..%" PRIu64 ":", n, v[SA_D_REQ_MAX]);
		for (i = k = 0; t && i < SA_NSIZES; i++) {
			if (!v[SA_D_SIZE + i])
				continue;
			fmt_pct(pct, sizeof(pct), v[SA_D_SIZE + i], sum);
			if (i < SA_NSIZES - 1)
				bound_name(b, sizeof(b), d->size_bounds[i]);
			else
				bound_name(b, sizeof(b), d->size_bounds[SA_NSIZES - 2]);
			u = sa_format("%s%s %s%s %s%%", t, k++ ? "," : "",
				 i < SA_NSIZES - 1 ? "<=" : ">", b, pct);
			free(t);
			t = u;
		}
		for (i = 0; t && i < nh; i++) {
			u = sa_format("%s%s%" PRIu64, t, i ? " " : "; classes ", hit[i]);
			free(t);
			t = u;
		}
		fmt_pct(pct, sizeof(pct), s->v[SA_SLACK], s->v[SA_TOTAL]);
		u = t ? sa_format("%s; slack %" PRIu64 " of %" PRIu64 " bytes (%s%%)", t,
				  s->v[SA_SLACK], s->v[SA_TOTAL], pct) : NULL;
		free(t);
		if (!u)
			return -1;
		s->adv[0].kind = ADV_SIZES;
		s->adv[0].text = u;
		s->nadv = 1;
	}
	return 0;
}

