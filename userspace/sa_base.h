// SPDX-License-Identifier: GPL-2.0
/*
 * sa_base - what every file of the reader may use, the parsers first:
 * checked 64-bit arithmetic, unsigned decimals, malloc()ed printf and
 * messages, growing arrays, the one line reader and the one "key: value"
 * header parser, tokens, and a stable sort with a context (qsort() has
 * none, so no comparator keeps state in a global).
 */
#ifndef SA_BASE_H
#define SA_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SA_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* *@a += @b, or -1 (and *@a unchanged) when the sum passes 2^64 - 1. */
int sa_add_u64(uint64_t *a, uint64_t b);

/* *@out = @a x @b, or -1 when the product passes 2^64 - 1. */
int sa_mul_u64(uint64_t a, uint64_t b, uint64_t *out);

/* Parse an unsigned decimal with no sign, junk or overflow; 0 or -1. */
int sa_parse_u64(const char *s, size_t len, uint64_t *out);

/*
 * A size: digits, then optionally K, M, G, T, P or E (1024 based; either
 * case), @len bytes of @s.  0 and *@out, or -1.
 */
int sa_parse_size(const char *s, size_t len, uint64_t *out);

/* Hex digits s[0..n), optionally after 0x (16 at most): 0 and *@v, or -1. */
int sa_parse_hex(const char *s, size_t n, uint64_t *v);

/* Is s[0..len) made of digits only (so a failed parse means overflow)? */
int sa_all_digits(const char *s, size_t len);

/* Messages quote at most this many characters of a token. */
#define SA_QUOTE_MAX 40

/*
 * @s (@len bytes) as a message quotes it into @dst (SA_QUOTE_MAX + 4
 * bytes): printable characters only, "..." when cut.
 */
void sa_quote(char *dst, const char *s, size_t len);

/*
 * Why @s (@len bytes), the value of @what, is not an unsigned decimal:
 * "WHAT 'S' is out of range (...)" or "... is not an unsigned decimal
 * number", malloc()ed (NULL without memory).
 */
char *sa_bad_number(const char *what, const char *s, size_t len);

/* printf into a malloc()ed string; NULL when memory runs out. */
char *sa_vformat(const char *fmt, va_list ap) SA_PRINTF(1, 0);
char *sa_format(const char *fmt, ...) SA_PRINTF(1, 2);

/* "NAME:LINE: message", malloc()ed (NULL only when memory runs out). */
char *sa_verror(const char *name, unsigned long lineno, const char *fmt,
		va_list ap) SA_PRINTF(3, 0);

/* Where a parser is: the input's name, the line, where its message goes. */
struct sa_where {
	const char *name;
	unsigned long lineno;
	char **err;
};

/* *@w->err = "NAME:LINE: message" (NULL without memory); returns -1. */
int sa_fail(struct sa_where *w, const char *fmt, ...) SA_PRINTF(2, 3);

/* sa_fail() with sa_bad_number()'s message. */
int sa_fail_number(struct sa_where *w, const char *what, const char *s, size_t len);

/* A copy of @len bytes of @s, NUL terminated; NULL without memory. */
char *sa_dup_range(const char *s, size_t len);

/*
 * Grow the array *@arr (of @size-byte elements, *@cap of them) so that it
 * holds @need; 0, or -1 without memory (the array is kept).
 */
int sa_grow(void *arr, size_t *cap, size_t need, size_t size);

/*
 * The one line reader of the parsers: the lines of a buffer (@buf, @len),
 * of a stdio stream when @fp is set, or of a file descriptor read in
 * chunks (set up by sa_lines_fd()), one at a time: @line NUL terminated
 * (its newline and a CR before it removed: CRLF copies read as the file),
 * @n its length (strlen(line) < n: it holds a NUL byte), @newline whether
 * it ended in one, @lineno counting from 1.  With @max set, a line longer
 * than @max bytes (its CR counted) is an error that sets @too_long; with
 * @progress set, it is called with @arg and the bytes read so far after
 * every read of a descriptor.
 */
struct sa_lines {
	FILE *fp;
	const char *buf;
	size_t len, pos;
	char *line;
	size_t cap, n;
	int newline;
	unsigned long lineno;
	size_t max;
	int too_long;
	void (*progress)(void *arg, uint64_t done);
	void *arg;
	/* a descriptor's: its chunks in mem[start, end) of mcap bytes */
	int fd, from_fd, eof;
	char *mem;
	size_t start, end, mcap;
	uint64_t done;
};

/*
 * Set @l up to read the lines of descriptor @fd after the @plen bytes of
 * @pre (read from it already), or with @fd -1 the lines of @pre alone;
 * @l's other fields are kept.  The lines are not copied: l->line points
 * into the chunk read.  0, or -1 without memory.
 */
int sa_lines_fd(struct sa_lines *l, int fd, const char *pre, size_t plen);

/*
 * The next line of @l: 1, 0 at the end, -1 on a read error or without
 * memory (errno says which) or on a line longer than l->max (l->too_long
 * set).  Free @l with sa_lines_free() after.
 */
int sa_lines_next(struct sa_lines *l);

/* Free what @l allocated. */
void sa_lines_free(struct sa_lines *l);

/*
 * The one "key: value" header parser: the lines between a file's version
 * line and its '#' legend, each key at most once (the keys read so far
 * are kept here, malloc()ed).
 */
struct sa_header {
	char **keys;
	size_t n, cap;
};

/*
 * Is @line "key: value" (a key neither empty nor starting with a blank)?
 * 1 with the key line[0..*@klen) and *@val after ": ", or 0.
 */
int sa_key_value(const char *line, size_t *klen, const char **val);

/*
 * Read @line as a line of @h at @w: 0 with *@key (NUL terminated, kept by
 * @h) and *@val; or -1 with @w's message: a line that is not "key: value"
 * ("expected a 'key: value' KINDline or LEGEND, got 'LINE'"), a key read
 * before ("duplicate KINDkey 'KEY'"), no memory.  @kind: "" or "summary ".
 */
int sa_header_line(struct sa_header *h, struct sa_where *w, const char *line,
		   const char *kind, const char *legend, const char **key, const char **val);

void sa_header_free(struct sa_header *h);

/* The next blank-separated token of *@s: its start and length; 0 if none. */
size_t sa_token(const char **s, const char **start);

typedef int (*sa_cmp_fn)(const void *a, const void *b, void *ctx);

/*
 * Sort the @n pointers of @v by @cmp (given two of the pointers and @ctx),
 * stably.  0, or -1 without memory (@v is then as it was).
 */
int sa_sort(void **v, size_t n, sa_cmp_fn cmp, void *ctx);

/*
 * Sort the array @base of @n elements of @size bytes by @cmp (given
 * pointers to two elements), stably.  0, or -1 without memory (unsorted).
 */
int sa_sort_array(void *base, size_t n, size_t size, sa_cmp_fn cmp, void *ctx);

#endif /* SA_BASE_H */
