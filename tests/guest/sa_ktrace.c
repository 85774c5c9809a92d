// SPDX-License-Identifier: GPL-2.0
/*
 * The selftests' own account of a kmem trace, and its comparison with the
 * reader's import of the same trace (sa_ktrace.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sa_ktrace.h"

const char * const kt_events[KT_NR_EVENTS] = {
	"kmalloc", "kmalloc_node", "kmem_cache_alloc",
	"kmem_cache_alloc_node", "kfree", "kmem_cache_free",
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static size_t hash_ptr(const struct kt *o, unsigned long long p)
{
	return (size_t)((p * 0x9e3779b97f4a7c15ULL) >> 20) & (o->obj_cap - 1);
}

int kt_init(struct kt *o, int hashed)
{
	memset(o, 0, sizeof(*o));
	o->hashed = hashed;
	o->site_cap = 1 << 15;
	o->site_hash_cap = 1 << 16;
	o->obj_cap = 1 << 22;
	o->sites = calloc(o->site_cap, sizeof(*o->sites));
	o->site_hash = calloc(o->site_hash_cap, sizeof(*o->site_hash));
	o->objs = calloc(o->obj_cap, sizeof(*o->objs));
	return o->sites && o->site_hash && o->objs ? 0 : -1;
}

void kt_free(struct kt *o)
{
	for (size_t i = 0; i < o->nsites; i++)
		free(o->sites[i].caller);
	free(o->sites);
	free(o->site_hash);
	free(o->objs);
}

static size_t site_slot(const struct kt *o, const char *caller, int *found)
{
	size_t i = hash_str(caller) & (o->site_hash_cap - 1);

	for (;; i = (i + 1) & (o->site_hash_cap - 1)) {
		unsigned int idx = o->site_hash[i];

		*found = 0;
		if (!idx)
			return i;
		if (!strcmp(o->sites[idx - 1].caller, caller)) {
			*found = 1;
			return i;
		}
	}
}

const struct kt_site *kt_find(const struct kt *o, const char *caller)
{
	int found;
	size_t i = site_slot(o, caller, &found);

	return found ? &o->sites[o->site_hash[i] - 1] : NULL;
}

struct kt_site *kt_site(struct kt *o, const char *caller)
{
	int found;
	size_t i = site_slot(o, caller, &found);

	if (found)
		return &o->sites[o->site_hash[i] - 1];
	if (o->nsites == o->site_cap)
		return NULL;
	o->sites[o->nsites].caller = strdup(caller);
	if (!o->sites[o->nsites].caller)
		return NULL;
	o->site_hash[i] = ++o->nsites;
	return &o->sites[o->nsites - 1];
}

/* Linear probing; deletion shifts the run back (no tombstones). */
static struct kt_obj *obj_find(struct kt *o, unsigned long long p)
{
	for (size_t i = hash_ptr(o, p);; i = (i + 1) & (o->obj_cap - 1)) {
		if (o->objs[i].ptr == p)
			return &o->objs[i];
		if (!o->objs[i].ptr)
			return NULL;
	}
}

static int obj_add(struct kt *o, unsigned long long p, unsigned int site,
		   unsigned int alloc, unsigned int req)
{
	size_t i = hash_ptr(o, p);

	if (o->nobjs >= o->obj_cap / 2)
		return -1;
	while (o->objs[i].ptr)
		i = (i + 1) & (o->obj_cap - 1);
	o->objs[i] = (struct kt_obj){ p, site, alloc, req };
	o->nobjs++;
	return 0;
}

static void obj_del(struct kt *o, struct kt_obj *e)
{
	size_t mask = o->obj_cap - 1, i = e - o->objs, j = i;

	for (;;) {
		size_t h;

		j = (j + 1) & mask;
		if (!o->objs[j].ptr)
			break;
		h = hash_ptr(o, o->objs[j].ptr);
		/* Move j back to i unless its home lies in (i, j]. */
		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			o->objs[i] = o->objs[j];
			i = j;
		}
	}
	o->objs[i].ptr = 0;
	o->nobjs--;
}

static void site_free(struct kt_site *s, const struct kt_obj *e)
{
	s->frees++;
	s->live -= e->alloc;
	s->live_req -= e->req;
	s->objs--;
}

/* "(null)" (hashed %p of NULL) or hex; 0 for NULL. */
static int parse_ptr(const char *s, unsigned long long *p)
{
	char *end;

	if (!strncmp(s, "(null)", 6)) {
		*p = 0;
		return 0;
	}
	errno = 0;
	*p = strtoull(s, &end, 16);
	return errno || end == s || (*end && *end != ' ' && *end != '\n');
}

static int parse_field(const char *line, const char *key,
		       unsigned long long *v)
{
	const char *p = strstr(line, key);
	char *end;

	if (!p)
		return -1;
	errno = 0;
	*v = strtoull(p + strlen(key), &end, 10);
	return errno || end == p + strlen(key) ? -1 : 0;
}

/* The event's timestamp: the word before the event name, "ts:". */
static void note_ts(struct kt *o, const char *line, const char *ev)
{
	const char *end = ev - 1, *start;

	while (end > line && end[-1] == ' ')
		end--;
	if (end <= line || end[-1] != ':')
		return;
	end--;
	start = end;
	while (start > line && start[-1] != ' ')
		start--;
	if (end - start <= 0 || end - start >= (long)sizeof(o->last_ts))
		return;
	snprintf(o->last_ts, sizeof(o->last_ts), "%.*s", (int)(end - start),
		 start);
	if (!o->first_ts[0])
		snprintf(o->first_ts, sizeof(o->first_ts), "%s", o->last_ts);
}

int kt_line(struct kt *o, char *line)
{
	char *cs = strstr(line, ": call_site="), *ev, *pp, *nm;
	unsigned long long ptr, req, alloc;
	struct kt_site *site;
	struct kt_obj *e;
	int k;

	if (line[0] == '#')
		return 0;
	if (strstr(line, "LOST") && strstr(line, "EVENTS")) {
		o->lost_lines++;
		return 0;
	}
	if (!cs)
		return strspn(line, " \n") == strlen(line) ? 0 : -1;
	*cs = '\0';
	ev = strrchr(line, ' ');
	ev = ev ? ev + 1 : line;
	for (k = 0; k < KT_NR_EVENTS; k++)
		if (!strcmp(ev, kt_events[k]))
			break;
	if (k == KT_NR_EVENTS)
		return -1;
	o->events++;
	o->nevents[k]++;
	note_ts(o, line, ev);
	cs += strlen(": call_site=");
	pp = strstr(cs, " ptr=");
	if (!pp)
		return -1;
	*pp = '\0';
	if (parse_ptr(pp + 5, &ptr))
		return -1;

	if (k >= 4) {				/* kfree, kmem_cache_free */
		/* kfree(NULL), kfree(ZERO_SIZE_PTR): nothing was freed. */
		if (!ptr || (!o->hashed && ptr == 16))
			return 0;
		e = obj_find(o, ptr);
		if (!e) {
			o->unknown++;
			return 0;
		}
		site_free(&o->sites[e->site], e);
		o->frees++;
		obj_del(o, e);
		return 0;
	}

	if (parse_field(pp + 1, "bytes_req=", &req) ||
	    parse_field(pp + 1, "bytes_alloc=", &alloc))
		return -1;
	if (!ptr) {
		o->failed++;
		return 0;
	}
	if (!o->hashed && ptr == 16)
		return 0;
	/* The module never counts more requested than handed out. */
	if (req > alloc)
		req = alloc;
	site = kt_site(o, cs);
	if (!site)
		return -1;
	e = obj_find(o, ptr);
	if (e && alloc > KT_LARGE_KMALLOC && e->alloc == alloc && e->req == req) {
		/* From 6.10 a large kmalloc is reported twice, from inside
		 * the allocator and then at its caller: the first report is
		 * taken back (its site's peak stays), the second counts.
		 */
		struct kt_site *old = &o->sites[e->site];

		old->allocs--;
		old->total -= alloc;
		old->req -= req;
		old->live -= alloc;
		old->live_req -= req;
		old->objs--;
		o->allocs--;
		o->total -= alloc;
		o->req -= req;
		o->twice++;
		obj_del(o, e);
	} else if (e) {				/* its free was not seen */
		site_free(&o->sites[e->site], e);
		o->sites[e->site].missed++;
		o->frees++;
		o->missed++;
		obj_del(o, e);
	}
	if (obj_add(o, ptr, site - o->sites, alloc, req))
		return -1;
	if (k < 2) {
		site->kmalloc = 1;
	} else {
		/* No event before 6.1 names the cache; a later one might. */
		char name[64] = "";

		nm = strstr(pp + 1, " name=");
		if (nm)
			sscanf(nm + 6, "%63s", name);
		if (site->cache && strcmp(site->cache_name, name))
			site->many_caches = 1;
		site->cache = 1;
		snprintf(site->cache_name, sizeof(site->cache_name), "%s", name);
	}
	site->allocs++;
	site->total += alloc;
	site->req += req;
	site->live += alloc;
	site->live_req += req;
	site->objs++;
	if (site->live > site->peak)
		site->peak = site->live;
	o->allocs++;
	o->total += alloc;
	o->req += req;
	return 0;
}

void kt_type(const struct kt_site *s, char *buf, size_t len)
{
	if (s->kmalloc && s->cache)
		snprintf(buf, len, "mixed");
	else if (s->cache && s->many_caches)
		snprintf(buf, len, "cache:*");
	else if (s->cache)
		snprintf(buf, len, "cache%s%s", s->cache_name[0] ? ":" : "",
			 s->cache_name);
	else
		snprintf(buf, len, "kmalloc");
}

double kt_ts(const char *ts)
{
	return strtod(ts, NULL);
}

/* --- the reader's CSV --- */

#define KT_CSV_HEADER \
	"total,slack,req,live,live_req,objs,peak,allocs,frees,frag,type,caller"

/* Split one CSV line (RFC 4180 quotes) into @max fields in place. */
static int csv_split(char *line, char **f, int max)
{
	int n = 0;
	char *r = line, *w;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < max) {
		f[n++] = w = r;
		if (*r == '"') {
			r++;
			for (;;) {
				if (!*r)
					return -1;
				if (*r == '"' && r[1] == '"') {
					*w++ = '"';
					r += 2;
				} else if (*r == '"') {
					r++;
					break;
				} else {
					*w++ = *r++;
				}
			}
			if (*r && *r != ',')
				return -1;
		} else {
			while (*r && *r != ',')
				*w++ = *r++;
		}
		if (!*r) {
			*w = '\0';
			return n;
		}
		*w = '\0';
		r++;
	}
	return -1;
}

static int csv_num(const char *s, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end ? -1 : 0;
}

/* A decimal number at @s, followed by anything but a digit. */
static int csv_num_prefix(const char *s, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s ? -1 : 0;
}

long kt_csv_run(const char *cmd, struct kt_csv_row **rows, char *err,
		size_t errlen)
{
	size_t cap = 0, n = 0, lcap = 0;
	struct kt_csv_row *r = NULL;
	char *line = NULL, *f[12];
	long lineno = 0;
	FILE *p;
	int rc;

	*rows = NULL;
	p = popen(cmd, "r");
	if (!p) {
		snprintf(err, errlen, "popen %s: %s", cmd, strerror(errno));
		return -1;
	}
	while (getline(&line, &lcap, p) > 0) {
		struct kt_csv_row *x;
		unsigned long long *num[9];

		if (!lineno++) {
			if (strncmp(line, KT_CSV_HEADER "\n",
				    strlen(KT_CSV_HEADER) + 1)) {
				snprintf(err, errlen, "CSV header: %s", line);
				goto fail;
			}
			continue;
		}
		if (n == cap) {
			struct kt_csv_row *q;

			cap = cap ? 2 * cap : 1024;
			q = realloc(r, cap * sizeof(*r));
			if (!q) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			r = q;
		}
		x = &r[n];
		if (csv_split(line, f, 12) != 12) {
			snprintf(err, errlen, "CSV line %ld: not 12 fields", lineno);
			goto fail;
		}
		num[0] = &x->total; num[1] = &x->slack; num[2] = &x->req;
		num[3] = &x->live; num[4] = &x->live_req; num[5] = &x->objs;
		num[6] = &x->peak; num[7] = &x->allocs; num[8] = &x->frees;
		for (int i = 0; i < 9; i++)
			if (csv_num(f[i], num[i])) {
				snprintf(err, errlen, "CSV line %ld: field %d '%s'",
					 lineno, i + 1, f[i]);
				goto fail;
			}
		snprintf(x->frag, sizeof(x->frag), "%s", f[9]);
		snprintf(x->type, sizeof(x->type), "%s", f[10]);
		snprintf(x->caller, sizeof(x->caller), "%s", f[11]);
		n++;
	}
	free(line);
	line = NULL;
	rc = pclose(p);
	p = NULL;
	if (rc) {
		snprintf(err, errlen, "%s: exit status %d", cmd, rc);
		goto fail;
	}
	if (!lineno) {
		snprintf(err, errlen, "%s: no output", cmd);
		goto fail;
	}
	*rows = r;
	return n;
fail:
	free(line);
	if (p)
		pclose(p);
	free(r);
	return -1;
}

int kt_shown(const struct kt_site *s)
{
	return s->allocs || s->frees || s->objs;
}

size_t kt_nrows(const struct kt *o)
{
	size_t n = 0;

	for (size_t i = 0; i < o->nsites; i++)
		n += kt_shown(&o->sites[i]);
	return n;
}

/* The type's kind: what a trace can tell (no event names the cache it
 * allocates from; a reader may learn it from the frees).
 */
static void type_kind(const char *t, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strcspn(t, ":"), t);
}

unsigned long kt_compare(const struct kt *o, const struct kt_csv_row *rows,
			 size_t nrows)
{
	unsigned long bad = 0;
	size_t matched = 0;

#define KT_BAD(...) do {						\
		if (bad++ < 20)						\
			printf("# kt: " __VA_ARGS__);			\
	} while (0)

	for (size_t i = 0; i < nrows; i++) {
		const struct kt_csv_row *r = &rows[i];
		const struct kt_site *s = kt_find(o, r->caller);
		char type[96], k1[96], k2[96], frag[32];

		if (!s) {
			KT_BAD("reader's site %s is not in the trace's account\n",
			       r->caller);
			continue;
		}
		matched++;
#define KT_CMP(field, val)						\
		do {							\
			if ((val) != r->field)				\
				KT_BAD("%s: " #field " %llu (trace) vs %llu (reader)\n", \
				       r->caller, (unsigned long long)(val), \
				       r->field);			\
		} while (0)
		KT_CMP(allocs, s->allocs);
		KT_CMP(frees, s->frees);
		KT_CMP(total, s->total);
		KT_CMP(req, s->req);
		KT_CMP(slack, s->total - s->req);
		KT_CMP(live, s->live);
		KT_CMP(live_req, s->live_req);
		KT_CMP(objs, s->objs);
		KT_CMP(peak, s->peak);
#undef KT_CMP
		snprintf(frag, sizeof(frag), "%.2f", s->total ?
			 100.0 - 100.0 * (double)s->req / (double)s->total : 0.0);
		if (strcmp(frag, r->frag))
			KT_BAD("%s: frag %s (trace) vs %s (reader)\n", r->caller,
			       frag, r->frag);
		kt_type(s, type, sizeof(type));
		type_kind(type, k1, sizeof(k1));
		type_kind(r->type, k2, sizeof(k2));
		if (strcmp(k1, k2))
			KT_BAD("%s: type %s (trace) vs %s (reader)\n", r->caller,
			       type, r->type);
	}
	/* Callers are unique either side: all matched, none missing. */
	for (size_t i = 0; matched != kt_nrows(o) && i < o->nsites; i++) {
		size_t j;

		if (!kt_shown(&o->sites[i]))
			continue;

		for (j = 0; j < nrows; j++)
			if (!strcmp(rows[j].caller, o->sites[i].caller))
				break;
		if (j == nrows)
			KT_BAD("trace's site %s (%llu allocs) has no row in the reader's account\n",
			       o->sites[i].caller, o->sites[i].allocs);
	}
#undef KT_BAD
	return bad;
}

/* "KEY": N in a JSON text; 0 found, -1 not. */
static int json_num(const char *text, const char *key,
		    unsigned long long *v)
{
	char pat[96];
	const char *at;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	at = strstr(text, pat);
	if (!at)
		return -1;
	return csv_num_prefix(at + strlen(pat), v);
}

long kt_summary_compare(const struct kt *o, const char *cmd, int sites)
{
	const struct {
		const char *key;
		unsigned long long want;
	} k[] = {
		{ "trace events", o->events },
		{ "number of allocs", o->allocs },
		{ "number of frees", o->frees },
		{ "total bytes allocated", o->total },
		{ "total bytes requested", o->req },
		{ "failed allocs", o->failed },
		{ "unknown frees", o->unknown },
		{ "missed frees", o->missed },
		{ "current objects", o->nobjs },
		{ "number of callers", kt_nrows(o) },
		{ "reported twice", o->twice },
		{ "lost events", 0 },
		{ "unmatched pointers", 0 },
	};
	char buf[4096], *text = NULL;
	size_t len = 0, n;
	long bad = 0;
	FILE *p = popen(cmd, "r");

	if (!p)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0) {
		char *t = realloc(text, len + n + 1);

		if (!t) {
			free(text);
			pclose(p);
			return -1;
		}
		text = t;
		memcpy(text + len, buf, n);
		len += n;
		text[len] = '\0';
	}
	if (pclose(p) || !text) {
		free(text);
		return -1;
	}
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		unsigned long long v;

		if (!sites && !strcmp(k[i].key, "number of callers"))
			continue;
		if (json_num(text, k[i].key, &v)) {
			printf("# kt: no \"%s\" in the reader's summary\n", k[i].key);
			free(text);
			return -1;
		}
		if (v != k[i].want) {
			printf("# kt: summary \"%s\": %llu (reader) vs %llu (trace)\n",
			       k[i].key, v, k[i].want);
			bad++;
		}
	}
	free(text);
	return bad;
}
