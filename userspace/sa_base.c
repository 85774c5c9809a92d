// SPDX-License-Identifier: GPL-2.0
/*
 * sa_base - checked arithmetic, decimals, messages, arrays, the line
 * reader, the header parser and a sort with a context, for every file of
 * the reader (see sa_base.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_base.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sa_add_u64(uint64_t *a, uint64_t b)
{
	if (*a > UINT64_MAX - b)
		return -1;
	*a += b;
	return 0;
}

int sa_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	if (a && b > UINT64_MAX / a)
		return -1;
	*out = a * b;
	return 0;
}

int sa_parse_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (len == 0)
		return -1;
	for (i = 0; i < len; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return -1;
		d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* Hex digits s[0..n), optionally after 0x: 0 and *@v, or -1. */
int sa_parse_size(const char *s, size_t len, uint64_t *out)
{
	static const char units[] = "KMGTPE";
	char c = len ? (char)(s[len - 1] & ~0x20) : 0;
	const char *u = c ? strchr(units, c) : NULL;
	int shift = u ? 10 * (int)(u - units + 1) : 0;
	uint64_t v;

	if (shift)
		len--;
	if (sa_parse_u64(s, len, &v) || (shift && v > UINT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

int sa_parse_hex(const char *s, size_t n, uint64_t *v)
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

int sa_all_digits(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return len > 0;
}

char *sa_bad_number(const char *what, const char *s, size_t len)
{
	char q[SA_QUOTE_MAX + 4];

	sa_quote(q, s, len);
	if (sa_all_digits(s, len))
		return sa_format("%s '%s' is out of range (more than %llu)", what,
				 q, (unsigned long long)UINT64_MAX);
	return sa_format("%s '%s' is not an unsigned decimal number", what, q);
}

void sa_quote(char *dst, const char *s, size_t len)
{
	size_t i, n = len > SA_QUOTE_MAX ? SA_QUOTE_MAX : len;

	for (i = 0; i < n; i++)
		dst[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	strcpy(dst + n, len > n ? "..." : "");
}

char *sa_vformat(const char *fmt, va_list ap)
{
	va_list aq;
	int n;
	char *s;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return NULL;
	s = malloc((size_t)n + 1);
	if (s)
		vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

char *sa_format(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = sa_vformat(fmt, ap);
	va_end(ap);
	return s;
}

char *sa_verror(const char *name, unsigned long lineno, const char *fmt,
		va_list ap)
{
	char *msg = sa_vformat(fmt, ap), *s;

	s = sa_format("%s:%lu: %s", name, lineno, msg ? msg : "out of memory");
	free(msg);
	return s;
}

int sa_fail(struct sa_where *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*w->err = sa_verror(w->name, w->lineno, fmt, ap);
	va_end(ap);
	return -1;
}

int sa_fail_number(struct sa_where *w, const char *what, const char *s, size_t len)
{
	char *msg = sa_bad_number(what, s, len);
	int ret = sa_fail(w, "%s", msg ? msg : "out of memory");

	free(msg);
	return ret;
}

char *sa_dup_range(const char *s, size_t len)
{
	char *d = malloc(len + 1);

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

int sa_grow(void *arr, size_t *cap, size_t need, size_t size)
{
	void **p = arr;
	size_t ncap;
	void *n;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -1;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / size)
		return -1;
	n = realloc(*p, ncap * size);
	if (!n)
		return -1;
	*p = n;
	*cap = ncap;
	return 0;
}

#define SA_LINES_CHUNK ((size_t)64 << 10)	/* bytes read at a time */

int sa_lines_fd(struct sa_lines *l, int fd, const char *pre, size_t plen)
{
	size_t cap = fd < 0 ? plen + 1 : SA_LINES_CHUNK * 2;

	if (cap < plen + 1)
		cap = plen + 1;
	l->mem = malloc(cap);
	if (!l->mem)
		return -1;
	memcpy(l->mem, pre, plen);
	l->mcap = cap;
	l->start = 0;
	l->end = plen;
	l->done = plen;
	l->fd = fd;
	l->from_fd = 1;
	l->eof = fd < 0;
	return 0;
}

static int too_long(struct sa_lines *l)
{
	l->too_long = 1;
	errno = EMSGSIZE;
	return -1;
}

/* The next line of a descriptor's chunks in l->line, l->n, l->newline. */
static int fd_line(struct sa_lines *l)
{
	for (;;) {
		char *s = l->mem + l->start;
		char *nl = l->end > l->start ? memchr(s, '\n', l->end - l->start) : NULL;
		ssize_t got;

		if (nl || (l->eof && l->end > l->start)) {
			size_t n = nl ? (size_t)(nl - s) : l->end - l->start;

			if (l->max && n > l->max)
				return too_long(l);
			l->line = s;
			l->n = n;
			s[n] = '\0';	/* the newline, or the spare byte */
			l->start += n + (nl ? 1 : 0);
			l->newline = nl != NULL;
			return 1;
		}
		if (l->eof)
			return 0;
		if (l->start) {
			memmove(l->mem, s, l->end - l->start);
			l->end -= l->start;
			l->start = 0;
		}
		if (l->end + SA_LINES_CHUNK + 1 > l->mcap) {
			size_t ncap = l->mcap * 2;
			char *b;

			if (l->max && l->end > l->max)
				return too_long(l);
			b = realloc(l->mem, ncap);
			if (!b)
				return -1;
			l->mem = b;
			l->mcap = ncap;
		}
		got = read(l->fd, l->mem + l->end, l->mcap - l->end - 1);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (got == 0)
			l->eof = 1;
		l->end += (size_t)got;
		l->done += (uint64_t)got;
		if (l->progress)
			l->progress(l->arg, l->done);
	}
}

int sa_lines_next(struct sa_lines *l)
{
	const char *s, *nl = NULL;
	size_t n;

	if (l->from_fd) {
		int r = fd_line(l);

		if (r <= 0)
			return r;
		n = l->n;
	} else if (l->fp) {
		ssize_t r = getline(&l->line, &l->cap, l->fp);

		if (r < 0)
			return ferror(l->fp) ? -1 : 0;
		n = (size_t)r;
		if (n && l->line[n - 1] == '\n')
			nl = l->line + --n;
		if (l->max && n > l->max)
			return too_long(l);
		l->line[n] = '\0';
		l->newline = nl != NULL;
	} else {
		if (l->pos >= l->len)
			return 0;
		s = l->buf + l->pos;
		nl = memchr(s, '\n', l->len - l->pos);
		n = nl ? (size_t)(nl - s) : l->len - l->pos;
		if (l->max && n > l->max)
			return too_long(l);
		if (sa_grow(&l->line, &l->cap, n + 1, 1))
			return -1;
		memcpy(l->line, s, n);
		l->line[n] = '\0';
		l->pos = nl ? (size_t)(nl + 1 - l->buf) : l->len;
		l->newline = nl != NULL;
	}
	if (n && l->line[n - 1] == '\r')
		l->line[--n] = '\0';
	l->n = n;
	l->lineno++;
	return 1;
}

void sa_lines_free(struct sa_lines *l)
{
	if (l->from_fd)
		free(l->mem);
	else
		free(l->line);
	l->mem = NULL;
	l->line = NULL;
}

int sa_key_value(const char *line, size_t *klen, const char **val)
{
	const char *sep = strstr(line, ": ");

	if (!sep || sep == line || line[0] == ' ' || line[0] == '\t')
		return 0;
	*klen = (size_t)(sep - line);
	*val = sep + 2;
	return 1;
}

int sa_header_line(struct sa_header *h, struct sa_where *w, const char *line,
		   const char *kind, const char *legend, const char **key, const char **val)
{
	char q[SA_QUOTE_MAX + 4];
	size_t klen, i;
	char *k;

	if (!sa_key_value(line, &klen, val)) {
		sa_quote(q, line, strlen(line));
		return sa_fail(w, "expected a 'key: value' %sline or %s, got '%s'", kind, legend, q);
	}
	for (i = 0; i < h->n; i++) {
		if (strlen(h->keys[i]) == klen && !memcmp(h->keys[i], line, klen)) {
			sa_quote(q, line, klen);
			return sa_fail(w, "duplicate %skey '%s'", kind, q);
		}
	}
	if (sa_grow(&h->keys, &h->cap, h->n + 1, sizeof(*h->keys)))
		return sa_fail(w, "out of memory");
	k = sa_dup_range(line, klen);
	if (!k)
		return sa_fail(w, "out of memory");
	h->keys[h->n++] = k;
	*key = k;
	return 0;
}

void sa_header_free(struct sa_header *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		free(h->keys[i]);
	free(h->keys);
	memset(h, 0, sizeof(*h));
}

size_t sa_token(const char **s, const char **start)
{
	const char *t = *s + strspn(*s, " \t");
	size_t n = strcspn(t, " \t");

	*start = t;
	*s = t + n;
	return n;
}

/* Merge sort of v[0..n) using @tmp (n pointers); the result in @v. */
static void msort(void **v, void **tmp, size_t n, sa_cmp_fn cmp, void *ctx)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	if (n <= 8) {	/* insertion sort: stable, and quick on few */
		for (i = 1; i < n; i++) {
			void *x = v[i];

			for (j = i; j > 0 && cmp(v[j - 1], x, ctx) > 0; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		return;
	}
	msort(v, tmp, h, cmp, ctx);
	msort(v + h, tmp, n - h, cmp, ctx);
	if (cmp(v[h - 1], v[h], ctx) <= 0)
		return;		/* already in order */
	while (i < h && j < n)
		tmp[k++] = cmp(v[j], v[i], ctx) < 0 ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	memcpy(v, tmp, k * sizeof(*v));
}

int sa_sort(void **v, size_t n, sa_cmp_fn cmp, void *ctx)
{
	void **tmp;

	if (n < 2)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -1;
	msort(v, tmp, n, cmp, ctx);
	free(tmp);
	return 0;
}

int sa_sort_array(void *base, size_t n, size_t size, sa_cmp_fn cmp, void *ctx)
{
	void **p = malloc((n + 1) * sizeof(*p));
	char *b = base, *tmp = malloc(size + 1);
	size_t i, j, k;

	if (!p || !tmp)
		goto fail;
	for (i = 0; i < n; i++)
		p[i] = b + i * size;
	if (sa_sort(p, n, cmp, ctx))
		goto fail;
	/* element i goes where p says: follow each cycle once, one spare element */
	for (i = 0; i < n; i++) {
		if (p[i] == b + i * size)
			continue;
		memcpy(tmp, b + i * size, size);
		for (j = i; (k = (size_t)((char *)p[j] - b) / size) != i; j = k) {
			memcpy(b + j * size, b + k * size, size);
			p[j] = b + j * size;
		}
		memcpy(b + j * size, tmp, size);
		p[j] = b + j * size;
	}
	free(p);
	free(tmp);
	return 0;
fail:
	free(p);
	free(tmp);
	return -1;
}
