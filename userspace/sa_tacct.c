// SPDX-License-Identifier: GPL-2.0
/*
 * sa_tacct - the account a kmem trace builds, with the module's semantics
 * (docs/reader.md, "Offline traces"): call sites and live objects in hash
 * tables, allocations and frees counted as the module counts them, and the
 * struct sa_file (and detail file) the account becomes.  sa_trace.c reads
 * the events; see sa_tacct.h.
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_tacct.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LARGE_KMALLOC 8192		/* KMALLOC_MAX_CACHE_SIZE, 4 KiB pages */
#define ZERO_SIZE_PTR 16ULL

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static uint64_t hash_u64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdULL;
	v ^= v >> 33;
	return v;
}

int sa_tr_fail(struct tr *t, const char *fmt, ...) SA_PRINTF(2, 3);

int sa_tr_fail(struct tr *t, const char *fmt, ...)
{
	va_list ap;
	char msg[512];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (t->lineno)
		*t->err = sa_format("%s:%lu: %s", t->name, t->lineno, msg);
	else
		*t->err = sa_format("%s: %s", t->name, msg);
	return -1;
}

int sa_tr_oom(struct tr *t)
{
	return sa_tr_fail(t, "out of memory");
}

static struct tsite *site_get(struct tr *t, const char *caller, size_t len)
{
	size_t i, mask;
	struct tsite *s;

	if (t->nsites * 2 >= t->site_hash_cap) {
		size_t ncap = t->site_hash_cap ? t->site_hash_cap * 2 : 1024, k;
		size_t *h = calloc(ncap, sizeof(*h));

		if (!h)
			return NULL;
		for (k = 0; k < t->nsites; k++) {
			const char *c = t->sites[k].caller;

			i = hash_bytes(c, strlen(c)) & (ncap - 1);
			while (h[i])
				i = (i + 1) & (ncap - 1);
			h[i] = k + 1;
		}
		free(t->site_hash);
		t->site_hash = h;
		t->site_hash_cap = ncap;
	}
	mask = t->site_hash_cap - 1;
	for (i = hash_bytes(caller, len) & mask; t->site_hash[i]; i = (i + 1) & mask) {
		s = &t->sites[t->site_hash[i] - 1];
		if (strlen(s->caller) == len && !memcmp(s->caller, caller, len))
			return s;
	}
	if (t->nsites == t->site_cap) {
		size_t ncap = t->site_cap ? t->site_cap * 2 : 256;
		struct tsite *v = realloc(t->sites, ncap * sizeof(*v));

		if (!v)
			return NULL;
		t->sites = v;
		t->site_cap = ncap;
	}
	s = &t->sites[t->nsites];
	memset(s, 0, sizeof(*s));
	s->req_min = UINT64_MAX;
	s->caller = malloc(len + 1);
	if (!s->caller)
		return NULL;
	memcpy(s->caller, caller, len);
	s->caller[len] = '\0';
	t->site_hash[i] = ++t->nsites;
	return s;
}

static int obj_grow(struct tr *t)
{
	size_t ncap = t->obj_cap ? t->obj_cap * 2 : 4096, i;
	struct tobj *v = calloc(ncap, sizeof(*v));

	if (!v)
		return -1;
	for (i = 0; i < t->obj_cap; i++) {
		size_t k;

		if (!t->objs[i].ptr)
			continue;
		k = hash_u64(t->objs[i].ptr) & (ncap - 1);
		while (v[k].ptr)
			k = (k + 1) & (ncap - 1);
		v[k] = t->objs[i];
	}
	free(t->objs);
	t->objs = v;
	t->obj_cap = ncap;
	return 0;
}

static struct tobj *obj_find(struct tr *t, uint64_t ptr)
{
	size_t mask = t->obj_cap - 1, i;

	if (!t->obj_cap)
		return NULL;
	for (i = hash_u64(ptr) & mask; t->objs[i].ptr; i = (i + 1) & mask)
		if (t->objs[i].ptr == ptr)
			return &t->objs[i];
	return NULL;
}

/* A slot for @ptr (not in the table). */
static struct tobj *obj_add(struct tr *t, uint64_t ptr)
{
	size_t mask, i;

	if ((t->nobjs + 1) * 2 > t->obj_cap && obj_grow(t))
		return NULL;
	mask = t->obj_cap - 1;
	for (i = hash_u64(ptr) & mask; t->objs[i].ptr; i = (i + 1) & mask)
		;
	t->objs[i].ptr = ptr;
	t->nobjs++;
	return &t->objs[i];
}

/* Linear probing: deletion moves the rest of the run back. */
static void obj_del(struct tr *t, struct tobj *e)
{
	size_t mask = t->obj_cap - 1, i = (size_t)(e - t->objs), j = i;

	for (;;) {
		size_t h;

		j = (j + 1) & mask;
		if (!t->objs[j].ptr)
			break;
		h = hash_u64(t->objs[j].ptr) & mask;
		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			t->objs[i] = t->objs[j];
			i = j;
		}
	}
	t->objs[i].ptr = 0;
	t->nobjs--;
}

/* The cache name @s (@n bytes) as the module shows it. */
static void note_cache(struct tsite *s, const char *name, size_t n)
{
	char shown[NAME_LEN];
	size_t i;

	if (n > NAME_LEN - 1)
		n = NAME_LEN - 1;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		shown[i] = isspace(c) || !isprint(c) ? '_' : (char)c;
	}
	shown[n] = '\0';
	if (!n || (s->type & T_MULTI))
		return;
	if (!s->name[0])
		memcpy(s->name, shown, n + 1);
	else if (strcmp(s->name, shown))
		s->type |= T_MULTI;
}

static void site_free(struct tsite *s, const struct tobj *e)
{
	s->v[SA_FREES]++;
	s->v[SA_LIVE] -= e->alloc;
	s->v[SA_LIVE_REQ] -= e->req;
	s->v[SA_OBJS]--;
}

/* The module's size bucket of a request (sa_size_bucket(), 32-bit arithmetic). */
static unsigned int size_bucket(uint32_t req)
{
	uint32_t x = (req - 1) >> 3;
	unsigned int fls = 0;

	while (x) {
		fls++;
		x >>= 1;
	}
	return fls < SA_NSIZES - 1 ? fls : SA_NSIZES - 1;
}

static void site_uncount(struct tsite *s, const struct tobj *e)
{
	s->sizes[size_bucket(e->req)]--;
	s->v[SA_ALLOCS]--;
	s->v[SA_TOTAL] -= e->alloc;
	s->v[SA_REQ] -= e->req;
	s->v[SA_LIVE] -= e->alloc;
	s->v[SA_LIVE_REQ] -= e->req;
	s->v[SA_OBJS]--;
}

static int site_count(struct tr *t, struct tsite *s, uint64_t alloc, uint64_t req)
{
	if (sa_add_u64(&s->v[SA_TOTAL], alloc) || sa_add_u64(&s->v[SA_REQ], req) ||
	    sa_add_u64(&s->v[SA_LIVE], alloc) || sa_add_u64(&s->v[SA_LIVE_REQ], req) ||
	    sa_add_u64(&s->v[SA_ALLOCS], 1))
		return sa_tr_fail(t, "a counter of %s would pass 2^64 - 1", s->caller);
	s->v[SA_OBJS]++;
	s->sizes[size_bucket((uint32_t)req)]++;
	if (req < s->req_min)
		s->req_min = req;
	if (req > s->req_max)
		s->req_max = req;
	if (s->v[SA_LIVE] > s->v[SA_PEAK])
		s->v[SA_PEAK] = s->v[SA_LIVE];
	return 0;
}

int sa_tr_alloc(struct tr *t, enum ev ev, const char *cs, size_t cslen,
		    uint64_t ptr, uint64_t alloc, uint64_t req, uint64_t ts,
		    const char *cname, size_t cnlen)
{
	struct tsite *s;
	struct tobj *e;

	if (!ptr) {
		t->c[C_FAILED]++;
		return 0;
	}
	if (ptr == ZERO_SIZE_PTR)
		return 0;	/* kmalloc(0): nothing handed out */
	if (req > alloc)
		req = alloc;	/* never more requested than handed out */
	s = site_get(t, cs, cslen);
	if (!s)
		return sa_tr_oom(t);
	s->type |= ev == EV_KMALLOC ? T_KMALLOC : T_CACHE;
	if (ev == EV_CACHE_ALLOC && cname)
		note_cache(s, cname, cnlen);
	e = obj_find(t, ptr);
	if (e) {
		struct tsite *old = &t->sites[e->site];

		if (alloc > LARGE_KMALLOC && e->alloc == alloc && e->req == req) {
			site_uncount(old, e);	/* a large kmalloc reported twice */
			t->c[C_TWICE]++;
		} else {
			site_free(old, e);	/* its free was not seen */
			t->c[C_MISSED]++;
		}
	} else {
		e = obj_add(t, ptr);
		if (!e)
			return sa_tr_oom(t);
	}
	e->site = (uint32_t)(s - t->sites);
	e->alloc = (uint32_t)alloc;
	e->req = (uint32_t)req;
	e->ts = ts;
	e->cache = ev == EV_CACHE_ALLOC;
	return site_count(t, s, alloc, req);
}

int sa_tr_free_ptr(struct tr *t, enum ev ev, uint64_t ptr, const char *cname,
		   size_t cnlen)
{
	struct tobj *e;
	struct tsite *s;

	if (!ptr || ptr == ZERO_SIZE_PTR)
		return 0;	/* kfree(NULL), kfree(ZERO_SIZE_PTR) */
	e = obj_find(t, ptr);
	if (!e) {
		t->c[C_UNKNOWN]++;
		return 0;
	}
	s = &t->sites[e->site];
	site_free(s, e);
	if (ev == EV_CACHE_FREE && cname && e->cache)
		note_cache(s, cname, cnlen);
	obj_del(t, e);
	return 0;
}

/* A cache's name: "name=" up to " bytes_req=" (7.x allocations) or the end. */
/* ---- the file the account becomes ---- */

static int put_summary(struct sa_file *f, size_t *cap, const char *key,
		       uint64_t v)
{
	struct sa_summary *e;

	if (f->nsummary == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		struct sa_summary *s = realloc(f->summary, ncap * sizeof(*s));

		if (!s)
			return -1;
		f->summary = s;
		*cap = ncap;
	}
	e = &f->summary[f->nsummary];
	e->key = strdup(key);
	e->value = sa_format("%" PRIu64, v);
	e->num = v;
	e->is_num = 1;
	if (!e->key || !e->value) {
		free(e->key);
		free(e->value);
		return -1;
	}
	f->nsummary++;
	return 0;
}

static int type_string(struct sa_row *r, const struct tsite *s)
{
	if ((s->type & T_KMALLOC) && (s->type & T_CACHE))
		r->type_str = strdup("mixed");
	else if (s->type & T_MULTI)
		r->type_str = strdup("cache:*");
	else if ((s->type & T_CACHE) && s->name[0])
		r->type_str = sa_format("cache:%s", s->name);
	else
		r->type_str = strdup(s->type & T_CACHE ? "cache" : "kmalloc");
	return r->type_str ? sa_type_parse(r->type_str, &r->type, &r->cache) : -1;
}

int sa_tr_build_file(struct tr *t, struct sa_file *f)
{
	uint64_t sum[SA_NFIELDS] = { 0 };
	size_t i, k, cap = 0;

	memset(f, 0, sizeof(*f));
	f->name = strdup(t->name);
	f->major = SA_FORMAT_MAJOR;
	f->minor = 2;
	f->rows = calloc(t->nsites + 1, sizeof(*f->rows));
	if (!f->name || !f->rows)
		return -1;
	for (i = 0; i < t->nsites; i++) {
		struct tsite *s = &t->sites[i];
		struct sa_row *r = &f->rows[f->nrows];

		if (!s->v[SA_ALLOCS] && !s->v[SA_FREES] && !s->v[SA_OBJS])
			continue;	/* only reports taken back (reported twice) */
		memcpy(r->v, s->v, sizeof(r->v));
		r->v[SA_SLACK] = r->v[SA_TOTAL] - r->v[SA_REQ];
		r->line = i + 1;
		r->caller = s->caller;
		s->caller = NULL;
		sa_row_key(r, f);	/* a trace has no retired sites: load 1 */
		f->nrows++;
		if (type_string(r, s))
			return -1;
		for (k = 0; k < SA_NFIELDS; k++)
			if (sa_add_u64(&sum[k], r->v[k])) {
				sa_tr_fail(t, "the sum of %s would pass 2^64 - 1",
				      sa_field_names[k]);
				return -2;
			}
	}
	if (put_summary(f, &cap, "total bytes allocated", sum[SA_TOTAL]) ||
	    put_summary(f, &cap, "total bytes requested", sum[SA_REQ]) ||
	    put_summary(f, &cap, "slack bytes allocated", sum[SA_SLACK]) ||
	    put_summary(f, &cap, "current bytes allocated", sum[SA_LIVE]) ||
	    put_summary(f, &cap, "current bytes requested", sum[SA_LIVE_REQ]) ||
	    put_summary(f, &cap, "current objects", sum[SA_OBJS]) ||
	    put_summary(f, &cap, "number of allocs", sum[SA_ALLOCS]) ||
	    put_summary(f, &cap, "number of frees", sum[SA_FREES]) ||
	    put_summary(f, &cap, "number of callers", f->nrows) ||
	    put_summary(f, &cap, "failed allocs", t->c[C_FAILED]) ||
	    put_summary(f, &cap, "unknown frees", t->c[C_UNKNOWN]) ||
	    put_summary(f, &cap, "missed frees", t->c[C_MISSED]) ||
	    put_summary(f, &cap, "dropped objects", 0) ||
	    put_summary(f, &cap, "dropped sites", 0) ||
	    put_summary(f, &cap, "tracked objects", t->nobjs) ||
	    put_summary(f, &cap, "call sites", t->nsites) ||
	    put_summary(f, &cap, "reported twice", t->c[C_TWICE]) ||
	    put_summary(f, &cap, "trace events", t->c[C_EVENTS]) ||
	    put_summary(f, &cap, "other events", t->c[C_OTHER]) ||
	    put_summary(f, &cap, "lost events", t->c[C_LOST]) ||
	    put_summary(f, &cap, "lost event reports", t->c[C_LOST_REPORTS]) ||
	    put_summary(f, &cap, "unmatched pointers", t->c[C_PTRVAL]))
		return -1;
	return 0;
}

static const uint64_t age_bounds[SA_NAGES - 1] = { 1, 10, 60, 600, 3600 };

/* The detail file of the account in @f: ages at the trace's last timestamp. */
int sa_tr_build_detail(struct tr *t, const struct sa_file *f, struct sa_detail *d)
{
	size_t i, *row_of;

	memset(d, 0, sizeof(*d));
	if (!t->have_ts)
		return sa_tr_fail(t, t->count_ts ?
				  "the trace's timestamps are counts, not seconds (trace_clock counter or x86-tsc): no ages to compute (trace with trace_clock local, global, mono or boot)" :
				  "no timestamps in the trace: no ages to compute");
	d->name = strdup(t->name);
	d->major = SA_DETAIL_MAJOR;
	d->now = (t->last_ts - t->first_ts) / 1000000000ULL;
	d->page_size = 4096;
	memcpy(d->age_bounds, age_bounds, sizeof(age_bounds));
	for (i = 0; i < SA_NSIZES - 1; i++)
		d->size_bounds[i] = 8ULL << i;
	d->rows = calloc(f->nrows + 1, sizeof(*d->rows));
	row_of = calloc(t->nsites + 1, sizeof(*row_of));	/* site -> row + 1 */
	if (!d->name || !d->rows || !row_of) {
		free(row_of);
		return sa_tr_oom(t);
	}
	for (i = 0; i < f->nrows; i++) {
		struct sa_drow *r = &d->rows[i];
		const struct tsite *s = &t->sites[f->rows[i].line - 1];
		size_t k;

		row_of[f->rows[i].line - 1] = i + 1;
		r->site.line = i + 1;
		r->site.type_str = strdup(f->rows[i].type_str);
		r->site.caller = strdup(f->rows[i].caller);
		d->nrows++;
		if (!r->site.type_str || !r->site.caller ||
		    sa_type_parse(r->site.type_str, &r->site.type, &r->site.cache)) {
			free(row_of);
			return sa_tr_oom(t);
		}
		if (s->req_min <= s->req_max) {
			r->v[SA_D_REQ_MIN] = s->req_min;
			r->v[SA_D_REQ_MAX] = s->req_max;
		}
		for (k = 0; k < SA_NSIZES; k++)
			r->v[SA_D_SIZE + k] = s->sizes[k];
	}
	for (i = 0; i < t->obj_cap; i++) {
		const struct tobj *e = &t->objs[i];
		uint64_t age, secs, bs, born;
		uint64_t *v;
		size_t k;

		if (!e->ptr || !row_of[e->site])
			continue;
		v = d->rows[row_of[e->site] - 1].v;
		/* an event without a timestamp of its own: born at the first */
		born = e->ts < t->first_ts ? t->first_ts : e->ts;
		age = t->last_ts > born ? t->last_ts - born : 0;
		secs = age / 1000000000ULL;
		for (k = 0; k < SA_NAGES - 1 && secs >= age_bounds[k]; k++)
			;
		v[SA_D_AGE + k]++;
		v[SA_D_OBJS]++;
		v[SA_D_BYTES] += e->alloc;
		v[SA_D_REQ] += e->req;
		if (secs > v[SA_D_OLDEST])
			v[SA_D_OLDEST] = secs;
		bs = (uint64_t)e->alloc * secs;
		if (sa_add_u64(&v[SA_D_BYTE_SECS], bs))
			v[SA_D_BYTE_SECS] = UINT64_MAX;
		d->objects_scanned++;
	}
	free(row_of);
	return 0;
}

void sa_tr_free(struct tr *t)
{
	size_t i;

	for (i = 0; i < t->nsites; i++)
		free(t->sites[i].caller);
	free(t->sites);
	free(t->site_hash);
	free(t->objs);
}

