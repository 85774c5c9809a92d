// SPDX-License-Identifier: GPL-2.0
/*
 * sa_trace - the account of a kmem trace (see sa_trace.h): the line reader,
 * the kmem event parser for every tracepoint era, the object and call-site
 * tables with the module's semantics, and --kallsyms.
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_trace.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HEADER_PREFIX "slab_account - version: "
#define CHUNK ((size_t)64 << 10)	/* bytes read at a time */
#define MAX_LINE ((size_t)1 << 20)	/* a longer line is not a trace's */
#define NAME_LEN 24			/* the module's SA_NAME_LEN */
#define LARGE_KMALLOC 8192		/* KMALLOC_MAX_CACHE_SIZE, 4 KiB pages */
#define PROGRESS_MIN ((off_t)64 << 20)	/* progress for files this large */
#define PROGRESS_NS 250000000LL		/* at most 4 updates a second */
#define ZERO_SIZE_PTR 16ULL

#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

static char *format(const char *fmt, ...) PRINTF_LIKE(1, 2);

static char *format(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(s = malloc((size_t)n + 1)))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

static int add64(uint64_t *a, uint64_t b)
{
	if (*a > UINT64_MAX - b)
		return -1;
	*a += b;
	return 0;
}

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

/* Hex digits s[0..n), optionally after 0x: 0 and *@v, or -1. */
static int parse_hex(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	if (n == 0 || n > 16)
		return -1;
	for (i = 0; i < n; i++) {
		int c = tolower((unsigned char)s[i]);

		if (c >= '0' && c <= '9')
			x = x << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			x = x << 4 | (uint64_t)(c - 'a' + 10);
		else
			return -1;
	}
	*v = x;
	return 0;
}

/* ---- --kallsyms ---- */

struct ksym {
	uint64_t addr;
	char *name;		/* "symbol" or "symbol\t[module]" split at load */
	char *mod;		/* NULL: vmlinux */
};

struct sa_kallsyms {
	struct ksym *v;		/* by address */
	size_t n;
	size_t *by_name;	/* indexes into v, by name */
};

static int ksym_cmp(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;

	return (a->addr > b->addr) - (a->addr < b->addr);
}

void sa_kallsyms_free(struct sa_kallsyms *ks)
{
	size_t i;

	if (!ks)
		return;
	for (i = 0; i < ks->n; i++) {
		free(ks->v[i].name);
		free(ks->v[i].mod);
	}
	free(ks->v);
	free(ks->by_name);
	free(ks);
}

static const struct sa_kallsyms *name_sort_ks;	/* qsort() has no context */

static int by_name_cmp(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	int c = strcmp(name_sort_ks->v[a].name, name_sort_ks->v[b].name);

	return c ? c : (a > b) - (a < b);
}

int sa_kallsyms_load(struct sa_kallsyms **out, const char *path, char **err)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	struct sa_kallsyms *ks;
	size_t cap = 0, cap_line = 0, lines = 0, nonzero = 0;
	char *line = NULL;
	ssize_t len;

	*out = NULL;
	if (!fp) {
		*err = format("%s: %s", path, strerror(errno));
		return -1;
	}
	ks = calloc(1, sizeof(*ks));
	if (!ks)
		goto oom;
	while ((len = getline(&line, &cap_line, fp)) >= 0) {
		char addr[32], type, name[512], mod[512];
		uint64_t a;
		int k;

		lines++;
		mod[0] = '\0';
		k = sscanf(line, "%31s %c %511s %511s", addr, &type, name, mod);
		if (k < 3 || parse_hex(addr, strlen(addr), &a)) {
			*err = format("%s:%zu: not a kallsyms line (ADDRESS TYPE SYMBOL [MODULE])",
				      path, lines);
			goto fail;
		}
		if (a)
			nonzero++;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (ks->n == cap) {
			struct ksym *v = realloc(ks->v, (cap ? cap * 2 : 4096) * sizeof(*v));

			if (!v)
				goto oom;
			ks->v = v;
			cap = cap ? cap * 2 : 4096;
		}
		ks->v[ks->n].addr = a;
		ks->v[ks->n].name = strdup(name);
		ks->v[ks->n].mod = NULL;
		if (!ks->v[ks->n].name)
			goto oom;
		if (k == 4 && mod[0] == '[') {
			size_t m = strlen(mod);

			if (m > 2 && mod[m - 1] == ']') {
				mod[m - 1] = '\0';
				ks->v[ks->n].mod = strdup(mod + 1);
				if (!ks->v[ks->n].mod) {
					ks->n++;
					goto oom;
				}
			}
		}
		ks->n++;
	}
	if (ferror(fp)) {
		*err = format("%s: read error: %s", path, strerror(errno));
		goto fail;
	}
	if (!lines || !ks->n) {
		*err = format("%s: no text symbols: not a copy of /proc/kallsyms", path);
		goto fail;
	}
	if (!nonzero) {
		*err = format("%s: every address is 0: the copy was read without root (or under kptr_restrict=2); copy /proc/kallsyms as root",
			      path);
		goto fail;
	}
	qsort(ks->v, ks->n, sizeof(*ks->v), ksym_cmp);
	ks->by_name = malloc(ks->n * sizeof(*ks->by_name));
	if (!ks->by_name)
		goto oom;
	for (cap = 0; cap < ks->n; cap++)
		ks->by_name[cap] = cap;
	name_sort_ks = ks;
	qsort(ks->by_name, ks->n, sizeof(*ks->by_name), by_name_cmp);
	free(line);
	if (fp != stdin)
		fclose(fp);
	*out = ks;
	return 0;
oom:
	*err = format("%s: out of memory", path);
fail:
	free(line);
	if (fp != stdin)
		fclose(fp);
	sa_kallsyms_free(ks);
	return -1;
}

/* Symbol @i at @addr inside it, as %pS writes it; 0, or -1 if its end is not known. */
static int ks_format(const struct sa_kallsyms *ks, size_t i, uint64_t addr,
		     char *buf, size_t n)
{
	size_t j;

	/* Its size: up to the next symbol at a higher address. */
	for (j = i + 1; j < ks->n && ks->v[j].addr == ks->v[i].addr; j++)
		;
	if (j == ks->n || addr >= ks->v[j].addr)
		return -1;	/* the last symbol: its end is not known */
	snprintf(buf, n, "%s+0x%" PRIx64 "/0x%" PRIx64 "%s%s%s", ks->v[i].name,
		 addr - ks->v[i].addr, ks->v[j].addr - ks->v[i].addr,
		 ks->v[i].mod ? " [" : "", ks->v[i].mod ? ks->v[i].mod : "",
		 ks->v[i].mod ? "]" : "");
	return 0;
}

/*
 * "symbol+0xoff" (trace-cmd report's call sites) completed to %pS's
 * "symbol+0xoff/0xlen [module]"; -1 when @s is not that or the symbol is
 * not in the copy or not unique.
 */
static int sa_kallsyms_complete(const struct sa_kallsyms *ks, const char *s,
				size_t len, char *buf, size_t n)
{
	const char *plus = memchr(s, '+', len);
	size_t nlen, lo = 0, hi = ks->n, i;
	uint64_t off;

	if (!plus || memchr(s, '/', len) || memchr(s, ' ', len) ||
	    parse_hex(plus + 1, (size_t)(s + len - plus - 1), &off) ||
	    plus[1] != '0')
		return -1;
	nlen = (size_t)(plus - s);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *m = ks->v[ks->by_name[mid]].name;
		int c = strncmp(m, s, nlen);

		if (!c && m[nlen])
			c = 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ks->n)
		return -1;
	i = ks->by_name[lo];
	if (strncmp(ks->v[i].name, s, nlen) || ks->v[i].name[nlen])
		return -1;
	if (lo + 1 < ks->n) {
		size_t k = ks->by_name[lo + 1];

		if (!strcmp(ks->v[k].name, ks->v[i].name) &&
		    ks->v[k].addr != ks->v[i].addr)
			return -1;	/* two functions of that name */
	}
	return ks_format(ks, i, ks->v[i].addr + off, buf, n);
}

int sa_kallsyms_name(const struct sa_kallsyms *ks, uint64_t addr, char *buf,
		     size_t n)
{
	size_t lo = 0, hi = ks->n;

	/* The last symbol at or below @addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !ks->v[lo - 1].addr)
		return -1;
	return ks_format(ks, lo - 1, addr, buf, n);
}

/* ---- the account ---- */

enum { T_KMALLOC = 1, T_CACHE = 2, T_MULTI = 4 };

struct tsite {
	char *caller;
	uint64_t v[SA_NFIELDS];
	uint64_t sizes[SA_NSIZES];	/* requests by size, as the detail file's */
	uint64_t req_min, req_max;	/* req_min > req_max: none */
	unsigned int type;
	char name[NAME_LEN];	/* the cache's name as the module shows it; "" none */
};

struct tobj {
	uint64_t ptr;		/* 0: empty slot */
	uint64_t ts;		/* allocation time, ns */
	uint32_t site, alloc, req;
	uint32_t cache;		/* allocated by kmem_cache_alloc */
};

enum { C_EVENTS, C_OTHER, C_FAILED, C_UNKNOWN, C_MISSED, C_TWICE, C_LOST,
       C_LOST_REPORTS, C_PTRVAL, C_NCOUNTERS };

struct tr {
	const char *name;
	const struct sa_trace_opts *o;
	unsigned long lineno;
	char **err;
	struct tsite *sites;
	size_t nsites, site_cap;
	size_t *site_hash;	/* index + 1; 0 empty */
	size_t site_hash_cap;
	struct tobj *objs;
	size_t nobjs, obj_cap;
	uint64_t c[C_NCOUNTERS];
	uint64_t first_ts, last_ts;
	int have_ts;
	int trace_cmd;		/* trace-cmd report's "cpus=N" line seen */
};

static int tfail(struct tr *t, const char *fmt, ...) PRINTF_LIKE(2, 3);

static int tfail(struct tr *t, const char *fmt, ...)
{
	va_list ap;
	char msg[512];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (t->lineno)
		*t->err = format("%s:%lu: %s", t->name, t->lineno, msg);
	else
		*t->err = format("%s: %s", t->name, msg);
	return -1;
}

static int oom(struct tr *t)
{
	return tfail(t, "out of memory");
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
	if (add64(&s->v[SA_TOTAL], alloc) || add64(&s->v[SA_REQ], req) ||
	    add64(&s->v[SA_LIVE], alloc) || add64(&s->v[SA_LIVE_REQ], req) ||
	    add64(&s->v[SA_ALLOCS], 1))
		return tfail(t, "a counter of %s would pass 2^64 - 1", s->caller);
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

/* ---- one line ---- */

enum ev { EV_KMALLOC, EV_CACHE_ALLOC, EV_KFREE, EV_CACHE_FREE, EV_OTHER };

static const struct {
	const char *name;
	enum ev ev;
} events[] = {
	{ "kmalloc", EV_KMALLOC }, { "kmalloc_node", EV_KMALLOC },
	{ "kmem_cache_alloc", EV_CACHE_ALLOC },
	{ "kmem_cache_alloc_node", EV_CACHE_ALLOC },
	{ "kfree", EV_KFREE }, { "kmem_cache_free", EV_CACHE_FREE },
};

static int starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* A trace line of another event: "... [CPU] ... TIMESTAMP: EVENT: ...". */
static int looks_like_event(const char *line)
{
	const char *p = strchr(line, '[');

	while (p) {
		size_t d = strspn(p + 1, "0123456789");

		if (d && p[1 + d] == ']' && strstr(p + 1 + d, ": "))
			return 1;
		p = strchr(p + 1, '[');
	}
	return 0;
}

/* "SECONDS.FRACTION" ending at @end (exclusive) into ns; 0 or -1. */
static int parse_ts(const char *start, const char *end, uint64_t *ns)
{
	const char *dot = memchr(start, '.', (size_t)(end - start));
	uint64_t sec, frac = 0;
	size_t nf, i;

	if (!dot || sa_parse_u64(start, (size_t)(dot - start), &sec) ||
	    sec > UINT64_MAX / 1000000000ULL)
		return -1;
	nf = (size_t)(end - dot - 1);
	if (!nf || nf > 9 || sa_parse_u64(dot + 1, nf, &frac))
		return -1;
	for (i = nf; i < 9; i++)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

/* The value of "KEY=" in [from, end): its start and length (to a blank); NULL if none. */
static const char *field(const char *from, const char *key, size_t *len)
{
	const char *p = from;
	size_t k = strlen(key);

	for (;;) {
		p = strstr(p, key);
		if (!p)
			return NULL;
		if (p == from || p[-1] == ' ' || p[-1] == '\t')
			break;
		p += k;
	}
	p += k;
	*len = strcspn(p, " \t");
	return p;
}

static int field_u64(struct tr *t, const char *from, const char *key, uint64_t *v)
{
	size_t n;
	const char *p = field(from, key, &n);

	if (!p)
		return tfail(t, "no %s field in a kmem allocation event", key);
	if (sa_parse_u64(p, n, v))
		return tfail(t, "%s'%.*s' is not an unsigned decimal number", key,
			     (int)(n > 40 ? 40 : n), p);
	if (*v > UINT32_MAX)
		return tfail(t, "%s%" PRIu64 " is more than a slab allocation can be", key, *v);
	return 0;
}

static int is_hex_site(const char *s, size_t n)
{
	uint64_t v;

	return n >= 8 && parse_hex(s, n, &v) == 0;
}

/*
 * "CPU:N [LOST M EVENTS]" or "CPU:N [LOST EVENTS]" (tracefs), "CPU:N [M
 * EVENTS DROPPED]" or "CPU:N [EVENTS DROPPED]" (trace-cmd report).
 */
static int lost_line(struct tr *t, const char *line)
{
	const char *p = strchr(line, '[');
	uint64_t n = 0;
	size_t d;

	if (!p || !strchr(p, ']'))
		return 0;
	p++;
	if (!strncmp(p, "LOST ", 5))
		p += 5;
	else if (!strstr(p, "EVENTS DROPPED]"))
		return 0;
	d = strspn(p, "0123456789");
	if (strncmp(p + d, d ? " EVENTS" : "EVENTS", d ? 7 : 6))
		return 0;
	t->c[C_LOST_REPORTS]++;
	if (d && !sa_parse_u64(p, d, &n) && add64(&t->c[C_LOST], n))
		t->c[C_LOST] = UINT64_MAX;
	return 1;
}

static int do_alloc(struct tr *t, enum ev ev, const char *cs, size_t cslen,
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
		return oom(t);
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
			return oom(t);
	}
	e->site = (uint32_t)(s - t->sites);
	e->alloc = (uint32_t)alloc;
	e->req = (uint32_t)req;
	e->ts = ts;
	e->cache = ev == EV_CACHE_ALLOC;
	return site_count(t, s, alloc, req);
}

static int do_free(struct tr *t, enum ev ev, uint64_t ptr, const char *cname,
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
static const char *cache_name(const char *from, size_t *len)
{
	const char *p = field(from, "name=", len), *end;

	if (!p)
		return NULL;
	end = strstr(p, " bytes_req=");
	if (!end)
		end = p + strlen(p);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*len = (size_t)(end - p);
	return p;
}

/*
 * The ':' that ends the event's name before the field at @field: "EVENT:
 * call_site=" (tracefs), "EVENT:   call_site=" (trace-cmd) or "EVENT:
 * (func+0xoff) call_site=" (trace-cmd's kmem plugin); NULL if none.
 */
static char *event_colon(char *line, char *field)
{
	char *q = field;

	if (q == line || (q[-1] != ' ' && q[-1] != '\t'))
		return NULL;
	while (q > line && (q[-1] == ' ' || q[-1] == '\t'))
		q--;
	if (q > line && q[-1] == ')') {
		char *open = q - 1;

		while (open > line && *open != '(')
			open--;
		if (*open != '(' || open == line || open[-1] != ' ')
			return NULL;
		q = open;
		while (q > line && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
	}
	return q > line && q[-1] == ':' ? q - 1 : NULL;
}

static int trace_line(struct tr *t, char *line, size_t n)
{
	char *cs = NULL, *p, *name_end = NULL, *name, *pp, *csend;
	const char *v, *cname;
	size_t i, vlen, cnlen = 0;
	uint64_t ptr, req = 0, alloc = 0, ts = 0;
	enum ev ev = EV_OTHER;
	char resolved[512];

	if (memchr(line, '\0', n))
		return tfail(t, "NUL byte in line (not a text file?)");
	if (n && line[n - 1] == '\r')
		line[--n] = '\0';
	if (line[strspn(line, " \t")] == '\0' || line[0] == '#')
		return 0;
	if (starts(line, "CPU:") && lost_line(t, line))
		return 0;
	/* trace-cmd report's own lines */
	if (starts(line, "cpus=")) {
		t->trace_cmd = 1;
		return 0;
	}
	if (starts(line, "version = ") ||
	    (starts(line, "CPU ") && strstr(line, " is empty")))
		return 0;

	for (p = strstr(line, "call_site="); p; p = strstr(p + 1, "call_site=")) {
		char *q = event_colon(line, p);

		if (q) {
			cs = p;
			name_end = q;
			break;
		}
	}
	if (!cs) {
		if (looks_like_event(line)) {
			t->c[C_OTHER]++;
			return 0;
		}
		if (t->lineno == 1 && starts(line, HEADER_PREFIX))
			return tfail(t, "a slab_account file, not a trace (read it without --from-trace)");
		return tfail(t, "not a trace line: expected 'TASK-PID [CPU] ... TIMESTAMP: EVENT: FIELDS', a '#' comment or 'CPU:N [LOST M EVENTS]'");
	}
	/* EVENT: the word before the ':' before call_site= */
	name = name_end;
	while (name > line && name[-1] != ' ' && name[-1] != '\t')
		name--;
	if (!strncmp(name, "kmem:", 5))
		name += 5;
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if ((size_t)(name_end - name) == strlen(events[i].name) &&
		    !memcmp(name, events[i].name, (size_t)(name_end - name)))
			ev = events[i].ev;
	if (ev == EV_OTHER) {
		t->c[C_OTHER]++;
		return 0;
	}
	t->c[C_EVENTS]++;
	/* TIMESTAMP: the word before EVENT, ending in ':' */
	p = name;
	while (p > line && p[-1] == ' ')
		p--;
	if (p > line && p[-1] == ':') {
		char *te = p - 1, *tsb = te;

		while (tsb > line && tsb[-1] != ' ' && tsb[-1] != '\t')
			tsb--;
		if (!parse_ts(tsb, te, &ts)) {
			if (!t->have_ts || ts < t->first_ts)
				t->first_ts = ts;	/* per-CPU clocks may disagree */
			t->have_ts = 1;
			if (ts > t->last_ts)
				t->last_ts = ts;
		}
	}

	cs += strlen("call_site=");
	pp = strstr(cs, " ptr=");
	if (!pp)
		return tfail(t, "no ptr field after call_site");
	csend = pp;
	while (csend > cs && csend[-1] == ' ')
		csend--;
	if (csend == cs)
		return tfail(t, "an empty call_site");
	v = pp + 5;
	vlen = strcspn(v, " \t");
	if (vlen && v[0] == '(') {
		if ((vlen == 6 && !strncmp(v, "(null)", 6)) ||
		    (vlen == 5 && !strncmp(v, "(nil)", 5))) {
			ptr = 0;
		} else {
			t->c[C_PTRVAL]++;	/* (____ptrval____): cannot be matched */
			return 0;
		}
	} else if (parse_hex(v, vlen, &ptr)) {
		return tfail(t, "ptr '%.*s' is not a pointer", (int)(vlen > 40 ? 40 : vlen), v);
	}
	cname = cache_name(v + vlen, &cnlen);
	if (ev == EV_KFREE || ev == EV_CACHE_FREE)
		return do_free(t, ev, ptr, cname, cnlen);
	if (t->o && t->o->ks) {
		const struct sa_kallsyms *ks = t->o->ks;
		size_t cn = (size_t)(csend - cs);
		uint64_t a;

		if ((is_hex_site(cs, cn) && !parse_hex(cs, cn, &a) &&
		     !sa_kallsyms_name(ks, a, resolved, sizeof(resolved))) ||
		    !sa_kallsyms_complete(ks, cs, cn, resolved, sizeof(resolved))) {
			cs = resolved;
			csend = resolved + strlen(resolved);
		}
	}
	if (field_u64(t, v + vlen, "bytes_req=", &req) ||
	    field_u64(t, v + vlen, "bytes_alloc=", &alloc))
		return -1;
	return do_alloc(t, ev, cs, (size_t)(csend - cs), ptr, alloc, req, ts,
			cname, cnlen);
}

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
	e->value = format("%" PRIu64, v);
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
		r->type_str = format("cache:%s", s->name);
	else
		r->type_str = strdup(s->type & T_CACHE ? "cache" : "kmalloc");
	return r->type_str ? sa_type_parse(r->type_str, &r->type, &r->cache) : -1;
}

static int build_file(struct tr *t, struct sa_file *f)
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
		f->nrows++;
		if (type_string(r, s))
			return -1;
		for (k = 0; k < SA_NFIELDS; k++)
			if (add64(&sum[k], r->v[k])) {
				tfail(t, "the sum of %s would pass 2^64 - 1",
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
static int build_detail(struct tr *t, const struct sa_file *f, struct sa_detail *d)
{
	size_t i, *row_of;

	memset(d, 0, sizeof(*d));
	if (!t->have_ts)
		return tfail(t, "no timestamps in the trace: no ages to compute");
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
		return oom(t);
	}
	for (i = 0; i < f->nrows; i++) {
		struct sa_drow *r = &d->rows[i];
		const struct tsite *s = &t->sites[f->rows[i].line - 1];
		size_t k;

		row_of[f->rows[i].line - 1] = i + 1;
		r->line = i + 1;
		r->type_str = strdup(f->rows[i].type_str);
		r->caller = strdup(f->rows[i].caller);
		d->nrows++;
		if (!r->type_str || !r->caller ||
		    sa_type_parse(r->type_str, &r->type, &r->cache)) {
			free(row_of);
			return oom(t);
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
		if (add64(&v[SA_D_BYTE_SECS], bs))
			v[SA_D_BYTE_SECS] = UINT64_MAX;
		d->objects_scanned++;
	}
	free(row_of);
	return 0;
}

static void tr_free(struct tr *t)
{
	size_t i;

	for (i = 0; i < t->nsites; i++)
		free(t->sites[i].caller);
	free(t->sites);
	free(t->site_hash);
	free(t->objs);
}

/* ---- reading ---- */

struct rd {
	int fd;			/* -1: the buffer only */
	char *buf;
	size_t cap, start, end;
	int eof;
	/* progress */
	uint64_t size, done;
	int progress;
	struct timespec last;
	const char *name;
};

static int64_t ns_since(const struct timespec *a, const struct timespec *b)
{
	return (int64_t)(b->tv_sec - a->tv_sec) * 1000000000LL +
	       (b->tv_nsec - a->tv_nsec);
}

static void progress(struct rd *r, int end)
{
	struct timespec now;

	if (!r->progress)
		return;
	if (end) {
		fputs("\r\033[K", stderr);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (ns_since(&r->last, &now) < PROGRESS_NS)
		return;
	r->last = now;
	fprintf(stderr, "\rslabacct: reading %s: %3u%%", r->name,
		(unsigned int)(r->size ? r->done * 100 / r->size : 0));
}

/* The next line (newline removed, NUL terminated) in *@line, *@n; 1, 0 at end, -1 error. */
static int rd_line(struct rd *r, struct tr *t, char **line, size_t *n)
{
	for (;;) {
		char *nl = r->end > r->start ?
			   memchr(r->buf + r->start, '\n', r->end - r->start) : NULL;
		ssize_t got;

		if (nl || (r->eof && r->end > r->start)) {
			size_t len = nl ? (size_t)(nl - (r->buf + r->start)) : r->end - r->start;

			if (len > MAX_LINE) {
				t->lineno++;
				return tfail(t, "a line longer than %zu bytes: not a trace",
					     MAX_LINE);
			}
			*line = r->buf + r->start;
			*n = len;
			(*line)[len] = '\0';	/* the newline, or the spare byte */
			r->start += len + (nl ? 1 : 0);
			return 1;
		}
		if (r->eof)
			return 0;
		if (r->start) {
			memmove(r->buf, r->buf + r->start, r->end - r->start);
			r->end -= r->start;
			r->start = 0;
		}
		if (r->end + CHUNK + 1 > r->cap) {
			size_t ncap = r->cap ? r->cap * 2 : CHUNK * 2;
			char *b;

			if (r->end > MAX_LINE) {
				t->lineno++;
				return tfail(t, "a line longer than %zu bytes: not a trace",
					     MAX_LINE);
			}
			b = realloc(r->buf, ncap);
			if (!b)
				return oom(t);
			r->buf = b;
			r->cap = ncap;
		}
		got = read(r->fd, r->buf + r->end, r->cap - r->end - 1);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			t->lineno = 0;
			return tfail(t, "%s", strerror(errno));
		}
		if (got == 0)
			r->eof = 1;
		r->end += (size_t)got;
		r->done += (uint64_t)got;
		progress(r, 0);
	}
}

static int run(struct tr *t, struct rd *r, struct sa_file *f)
{
	char *line = NULL;
	size_t n = 0;
	int k, ret = -1;

	while ((k = rd_line(r, t, &line, &n)) > 0) {
		t->lineno++;
		if (trace_line(t, line, n))
			goto out;
	}
	if (k < 0)
		goto out;
	t->lineno = 0;
	if (!t->c[C_EVENTS] && !t->c[C_OTHER] && !t->c[C_LOST_REPORTS] &&
	    !t->trace_cmd) {
		tfail(t, "no trace events: empty, or not a trace");
		goto out;
	}
	ret = build_file(t, f);
	if (ret == -1)
		oom(t);
	if (!ret && t->o && t->o->detail && build_detail(t, f, t->o->detail)) {
		sa_detail_free(t->o->detail);
		ret = -2;
	}
	if (ret)
		sa_file_free(f);
out:
	progress(r, 1);
	tr_free(t);
	return ret ? -1 : 0;
}

int sa_trace_parse_buffer(struct sa_file *f, const char *buf, size_t len,
			  const char *name, const struct sa_trace_opts *o,
			  char **err)
{
	struct tr t = { .name = name, .o = o, .err = err };
	struct rd r = { .fd = -1, .eof = 1 };
	int ret;

	memset(f, 0, sizeof(*f));
	*err = NULL;
	r.buf = malloc(len + 1);
	if (!r.buf) {
		*err = strdup("out of memory");
		return -1;
	}
	memcpy(r.buf, buf, len);
	r.end = len;
	r.cap = len + 1;
	ret = run(&t, &r, f);
	free(r.buf);
	return ret;
}

/* Read @fd as a trace, its first @plen bytes already in @pre. */
static int trace_fd(struct sa_file *f, int fd, const char *pre, size_t plen,
		    const char *name, const struct sa_trace_opts *o, char **err)
{
	struct tr t = { .name = name, .o = o, .err = err };
	struct rd r = { .fd = fd, .name = name };
	struct stat st;
	int ret;

	memset(f, 0, sizeof(*f));
	*err = NULL;
	r.cap = CHUNK * 2;
	r.buf = malloc(r.cap);
	if (!r.buf) {
		*err = strdup("out of memory");
		return -1;
	}
	memcpy(r.buf, pre, plen);
	r.end = plen;
	r.done = plen;
	if (o && o->progress && isatty(STDERR_FILENO) && !fstat(fd, &st) &&
	    S_ISREG(st.st_mode) && st.st_size >= PROGRESS_MIN) {
		r.progress = 1;
		r.size = (uint64_t)st.st_size;
	}
	ret = run(&t, &r, f);
	free(r.buf);
	return ret;
}

static int open_input(const char *path, char **err)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;

	if (fd < 0)
		*err = sa_io_error(path, errno);
	return fd;
}

int sa_trace_load(struct sa_file *f, const char *path,
		  const struct sa_trace_opts *o, char **err)
{
	int fd = open_input(path, err);
	int ret;

	memset(f, 0, sizeof(*f));
	if (fd < 0)
		return -1;
	ret = trace_fd(f, fd, "", 0, sa_display_name(path), o, err);
	if (fd != STDIN_FILENO)
		close(fd);
	return ret;
}

int sa_load_any(struct sa_file *f, const char *path, size_t max,
		const struct sa_trace_opts *o, int *is_trace, char **err)
{
	size_t plen = strlen(HEADER_PREFIX), len = 0, cap = 0;
	int fd = open_input(path, err), ret = -1;
	char *buf = NULL;

	memset(f, 0, sizeof(*f));
	*is_trace = 0;
	if (fd < 0)
		return -1;
	/* Enough of the start to tell a slab_account file from a trace. */
	cap = plen + 1;
	buf = malloc(cap);
	if (!buf) {
		*err = strdup("out of memory");
		goto out;
	}
	while (len < plen && !memchr(buf, '\n', len)) {
		ssize_t r = read(fd, buf + len, plen - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			*err = sa_io_error(path, errno);
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	if (len == plen && !memcmp(buf, HEADER_PREFIX, plen)) {
		char *rest;
		size_t rlen;

		if (sa_read_fd(fd, &rest, &rlen)) {
			*err = sa_io_error(path, errno);
			goto out;
		}
		if (max && plen + rlen > max) {
			free(rest);
			*err = format("%s: more than %zu bytes: too large for a slab_account file (--max-input raises the limit)",
				      sa_display_name(path), max);
			goto out;
		}
		free(buf);
		buf = malloc(plen + rlen + 1);
		if (!buf) {
			free(rest);
			*err = strdup("out of memory");
			goto out;
		}
		memcpy(buf, HEADER_PREFIX, plen);
		memcpy(buf + plen, rest, rlen);
		free(rest);
		ret = sa_parse_buffer(f, buf, plen + rlen, sa_display_name(path), err);
	} else {
		*is_trace = 1;
		ret = trace_fd(f, fd, buf, len, sa_display_name(path), o, err);
	}
out:
	free(buf);
	if (fd != STDIN_FILENO)
		close(fd);
	return ret;
}
