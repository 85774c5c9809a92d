// SPDX-License-Identifier: GPL-2.0
/*
 * sa_detail - parser for /proc/slab_account_detail, format version 1.x.
 * See sa_detail.h and docs/format.md ("The detail file").
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_detail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_PREFIX SA_DETAIL_HEADER_PREFIX

const char *const sa_detail_field_names[SA_D_NFIELDS] = {
	"objs", "bytes", "req", "oldest", "byte_secs",
	"age<1s", "age<10s", "age<1m", "age<10m", "age<1h", "older",
	"req_min", "req_max",
	"size<=8", "size<=16", "size<=32", "size<=64", "size<=128", "size<=256",
	"size<=512", "size<=1K", "size<=2K", "size<=4K", "size<=8K", "size>8K",
};

/* The header keys of format 1.0: all required. */
enum { K_NOW, K_PAGE, K_CLASSES, K_AGES, K_SIZES, K_SCANNED, NKEYS };
static const char *const key_names[NKEYS] = {
	"now", "page size", "kmalloc classes", "age bounds", "size bounds",
	"objects scanned",
};

struct dparser {
	struct sa_detail *d;
	struct sa_where w;	/* name, line, message */
	struct sa_header hdr;	/* the keys read, each once */
	size_t row_cap;
	int seen[NKEYS];
};

#define fail(p, ...) sa_fail(&(p)->w, __VA_ARGS__)
#define bad_number(p, what, s, len) sa_fail_number(&(p)->w, what, s, len)

/* A list of unsigned decimals; *@n in, the most; out, how many. */
static int parse_list(struct dparser *p, const char *key, const char *s,
		      uint64_t *out, size_t *n)
{
	size_t max = *n, k = 0, len;
	const char *t;

	while ((len = sa_token(&s, &t)) > 0) {
		uint64_t v;

		if (sa_parse_u64(t, len, &v))
			return bad_number(p, key, t, len);
		if (k == max)
			return fail(p, "'%s' has more than %zu values", key, max);
		if (k && v <= out[k - 1])
			return fail(p, "'%s' is not strictly ascending (%llu after %llu)", key,
				    (unsigned long long)v, (unsigned long long)out[k - 1]);
		if (v == 0)
			return fail(p, "'%s' holds 0", key);
		out[k++] = v;
	}
	*n = k;
	return 0;
}

static int parse_key(struct dparser *p, const char *line)
{
	struct sa_detail *d = p->d;
	const char *key, *val;
	size_t k, n;

	if (sa_header_line(&p->hdr, &p->w, line, "", "the '#' legend line", &key, &val))
		return -1;
	for (k = 0; k < NKEYS; k++)
		if (strcmp(key, key_names[k]) == 0)
			break;
	if (k == NKEYS)
		return 0;	/* a key of a later minor version */
	p->seen[k] = 1;
	switch (k) {
	case K_NOW:
	case K_PAGE:
	case K_SCANNED: {
		uint64_t *v = k == K_NOW ? &d->now : k == K_PAGE ? &d->page_size :
			      &d->objects_scanned;

		if (sa_parse_u64(val, strlen(val), v))
			return bad_number(p, key_names[k], val, strlen(val));
		if (k == K_PAGE && (*v < 8 || (*v & (*v - 1))))
			return fail(p, "page size %llu is not a power of two",
				    (unsigned long long)*v);
		return 0;
	}
	case K_CLASSES:
		n = 1;
		for (const char *s = val; *s; s++)
			n += *s == ' ' || *s == '\t';
		d->classes = calloc(n, sizeof(*d->classes));
		if (!d->classes)
			return fail(p, "out of memory");
		if (parse_list(p, key_names[k], val, d->classes, &n))
			return -1;
		d->nclasses = n;
		if (!n)
			return fail(p, "'kmalloc classes' is empty");
		return 0;
	case K_AGES:
	case K_SIZES: {
		size_t want = k == K_AGES ? SA_NAGES - 1 : SA_NSIZES - 1;

		n = want;
		if (parse_list(p, key_names[k], val,
			       k == K_AGES ? d->age_bounds : d->size_bounds, &n))
			return -1;
		if (n != want)
			return fail(p, "'%s' has %zu values, not %zu", key_names[k], n, want);
		return 0;
	}
	}
	return 0;
}

/* The rules of the format (docs/format.md) for one row. */
static int check_row(struct dparser *p, const struct sa_drow *r)
{
	const uint64_t *v = r->v;
	uint64_t sum = 0;
	int i;

	if (v[SA_D_REQ] > v[SA_D_BYTES])
		return fail(p, "req %llu is more than bytes %llu (a row has req <= bytes)",
			    (unsigned long long)v[SA_D_REQ], (unsigned long long)v[SA_D_BYTES]);
	for (i = 0; i < SA_NAGES; i++) {
		if (sum > UINT64_MAX - v[SA_D_AGE + i])
			return fail(p, "the age counts add up to more than %llu",
				    (unsigned long long)UINT64_MAX);
		sum += v[SA_D_AGE + i];
	}
	if (sum != v[SA_D_OBJS])
		return fail(p, "the age counts add up to %llu, not objs %llu",
			    (unsigned long long)sum, (unsigned long long)v[SA_D_OBJS]);
	if (!v[SA_D_OBJS] && (v[SA_D_BYTES] || v[SA_D_OLDEST] || v[SA_D_BYTE_SECS]))
		return fail(p, "objs is 0 but bytes, req, oldest or byte_secs is not");
	if (v[SA_D_REQ_MIN] > v[SA_D_REQ_MAX])
		return fail(p, "req_min %llu is more than req_max %llu",
			    (unsigned long long)v[SA_D_REQ_MIN],
			    (unsigned long long)v[SA_D_REQ_MAX]);
	if (v[SA_D_OLDEST] > p->d->now)
		return fail(p, "oldest %llu is more than now %llu",
			    (unsigned long long)v[SA_D_OLDEST], (unsigned long long)p->d->now);
	return 0;
}

static int parse_row(struct dparser *p, const char *line)
{
	struct sa_detail *d = p->d;
	const char *s = line, *t;
	struct sa_drow *r;
	size_t n, i;

	if (d->nrows == p->row_cap) {
		size_t cap = p->row_cap ? 2 * p->row_cap : 64;
		void *m = cap < SIZE_MAX / sizeof(*r) ? realloc(d->rows, cap * sizeof(*r)) : NULL;

		if (!m)
			return fail(p, "out of memory");
		d->rows = m;
		p->row_cap = cap;
	}
	r = &d->rows[d->nrows++];
	memset(r, 0, sizeof(*r));
	r->site.line = p->w.lineno;
	for (i = 0; i < SA_D_NFIELDS; i++) {
		n = sa_token(&s, &t);
		if (!n)
			return fail(p, "row has no '%s' column (a row has %d numbers, type, caller)",
				    sa_detail_field_names[i], SA_D_NFIELDS);
		if (sa_parse_u64(t, n, &r->v[i]))
			return bad_number(p, sa_detail_field_names[i], t, n);
	}
	if (sa_type_caller(&p->w, s, "row", "", &r->site.type_str, &r->site.type, &r->site.cache,
			   &r->site.caller))
		return -1;
	return check_row(p, r);
}

static int parse_header(struct dparser *p, const char *line)
{
	char *msg = sa_parse_version(line, strlen(line), HEADER_PREFIX,
				     "slab_account detail", "detail format",
				     SA_DETAIL_MAJOR, &p->d->major,
				     &p->d->minor);
	int ret = msg ? fail(p, "%s", msg) : 0;

	free(msg);
	return ret;
}

int sa_detail_parse_buffer(struct sa_detail *d, const char *buf, size_t len,
			   const char *name, char **err)
{
	enum { HEADER, KEYS, ROWS } section = HEADER;
	struct dparser p = { .d = d, .w = { NULL, 0, err } };
	struct sa_lines l = { .buf = buf, .len = len };
	uint64_t sum = 0;
	int r, ret = -1;
	size_t k;

	memset(d, 0, sizeof(*d));
	*err = NULL;
	d->name = strdup(name);
	if (!d->name) {
		*err = strdup("out of memory");
		return -1;
	}
	p.w.name = d->name;
	while ((r = sa_lines_next(&l)) > 0) {
		const char *line = l.line;
		size_t n = l.n;

		p.w.lineno = l.lineno;
		if (section == HEADER && strncmp(line, HEADER_PREFIX, n < strlen(HEADER_PREFIX) ?
						 n : strlen(HEADER_PREFIX)) &&
		    parse_header(&p, line))
			goto out;	/* not our file: say so first */
		if (strlen(line) != n) {
			fail(&p, "NUL byte in line (not a text file?)");
			goto out;
		}
		if (!l.newline) {
			fail(&p, "line not terminated by a newline (truncated file?)");
			goto out;
		}
		if (section == HEADER) {
			if (parse_header(&p, line))
				goto out;
			section = KEYS;
			continue;
		}
		if (line[strspn(line, " \t")] == '\0')
			continue;
		if (line[0] == '#') {
			if (section == ROWS) {
				fail(&p, "a second '#' legend line");
				goto out;
			}
			for (k = 0; k < NKEYS; k++)
				if (!p.seen[k]) {
					fail(&p, "no '%s' line before the legend", key_names[k]);
					goto out;
				}
			section = ROWS;
		} else if (section == KEYS ? parse_key(&p, line) : parse_row(&p, line)) {
			goto out;
		}
	}
	p.w.lineno = l.lineno + 1;
	if (r < 0) {
		fail(&p, "out of memory");
		goto out;
	}
	if (section == HEADER) {
		fail(&p, "empty file: expected the '" HEADER_PREFIX "1.x' header");
		goto out;
	}
	if (section == KEYS) {
		fail(&p, "unexpected end of file before the '#' legend line (truncated file?)");
		goto out;
	}
	for (k = 0; k < d->nrows; k++) {
		if (sum > UINT64_MAX - d->rows[k].v[SA_D_OBJS]) {
			fail(&p, "the rows' objs add up to more than %llu",
			     (unsigned long long)UINT64_MAX);
			goto out;
		}
		sum += d->rows[k].v[SA_D_OBJS];
	}
	if (sum != d->objects_scanned) {
		fail(&p, "objects scanned %llu is not the rows' sum of objs %llu",
		     (unsigned long long)d->objects_scanned, (unsigned long long)sum);
		goto out;
	}
	ret = 0;
out:
	sa_lines_free(&l);
	sa_header_free(&p.hdr);
	if (ret)
		sa_detail_free(d);
	return ret;
}

void sa_detail_free(struct sa_detail *d)
{
	size_t i;

	for (i = 0; i < d->nrows; i++) {
		free(d->rows[i].site.type_str);
		free(d->rows[i].site.caller);
	}
	free(d->rows);
	free(d->classes);
	free(d->name);
	memset(d, 0, sizeof(*d));
}

uint64_t sa_detail_alloc_size(const struct sa_detail *d, uint64_t n)
{
	uint64_t b;
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < d->nclasses; i++)
		if (d->classes[i] >= n)
			return d->classes[i];
	for (b = d->page_size; b && b < n; b <<= 1)
		if (b > UINT64_MAX / 2)
			return 0;
	return b;
}
