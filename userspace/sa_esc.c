// SPDX-License-Identifier: GPL-2.0
/*
 * sa_esc - the one escaper, and the width of its text on a terminal (see
 * sa_esc.h).
 */
#define _XOPEN_SOURCE 700	/* wcwidth() */

#include "sa_esc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

size_t sa_utf8_len(const unsigned char *s, size_t avail)
{
	size_t n, i;
	uint32_t cp;

	if (!avail)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n > avail)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

#define FFFD "\xef\xbf\xbd"	/* U+FFFD in UTF-8 */

/*
 * The sequence at @p (@avail bytes left) for @mode: how many bytes it
 * takes (*@used) and what stands for it, in @out (its length returned),
 * or 0 when it is written as it is.
 */
static size_t esc_one(const unsigned char *p, size_t avail, enum sa_esc mode,
		      char out[24], size_t *used)
{
	size_t n = sa_utf8_len(p, avail), k;
	int ctl = *p < 0x20 || *p == 0x7f || (n == 2 && p[0] == 0xc2 && p[1] < 0xa0);
	const char *s = NULL;

	*used = n ? n : 1;
	switch (mode) {
	case SA_ESC_TEXT:
		if (n && !ctl)
			return 0;
		for (k = 0; k < *used; k++)
			snprintf(out + 4 * k, 5, "\\x%02x", p[k]);
		return 4 * *used;
	case SA_ESC_CSV:
		*used = 1;
		return *p == '"' ? (size_t)snprintf(out, 3, "\"\"") : 0;
	case SA_ESC_JSON:
		if (*p == '"' || *p == '\\')
			return (size_t)snprintf(out, 3, "\\%c", *p);
		if (*p < 0x20)
			return (size_t)snprintf(out, 7, "\\u%04x", *p);
		s = n ? NULL : "\\ufffd";
		break;
	case SA_ESC_LABEL:
		if (*p == '"' || *p == '\\')
			return (size_t)snprintf(out, 3, "\\%c", *p);
		s = *p == '\n' ? "\\n" : n ? NULL : FFFD;
		break;
	case SA_ESC_FRAME:
		*used = 1;
		s = *p == ';' || *p < 0x20 || *p == 0x7f ? "_" : NULL;
		break;
	case SA_ESC_XML:
		s = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;" :
		    *p == '"' ? "&quot;" :
		    n && (*p >= 0x20 || *p == '\t') && *p != 0x7f ? NULL : FFFD;
		break;
	}
	if (!s)
		return 0;
	strcpy(out, s);
	return strlen(s);
}

/* Is @c (ASCII, printable) special in @mode?  (Else it is written as it is.) */
static int special(unsigned char c, enum sa_esc mode)
{
	switch (mode) {
	case SA_ESC_TEXT:
		return 0;
	case SA_ESC_CSV:
		return c == '"';
	case SA_ESC_JSON:
	case SA_ESC_LABEL:
		return c == '"' || c == '\\';
	case SA_ESC_FRAME:
		return c == ';';
	case SA_ESC_XML:
		return c == '&' || c == '<' || c == '>' || c == '"';
	}
	return 1;
}

/* The plain run at @p: printable ASCII bytes that @mode keeps as they are. */
static size_t plain(const unsigned char *p, size_t n, enum sa_esc mode)
{
	size_t i;

	for (i = 0; i < n && p[i] >= 0x20 && p[i] < 0x7f && !special(p[i], mode); i++)
		;
	return i;
}

static int quoted(const char *s, size_t len, enum sa_esc mode)
{
	size_t i;

	if (mode == SA_ESC_JSON || mode == SA_ESC_LABEL)
		return 1;
	if (mode != SA_ESC_CSV)
		return 0;
	for (i = 0; i < len; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n')
			return 1;
	return 0;
}

void sa_esc(FILE *fp, const char *s, size_t len, enum sa_esc mode)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len, *run = p;
	int q = quoted(s, len, mode);
	char out[24];

	if (mode == SA_ESC_CSV && !q) {	/* CSV changes nothing unquoted */
		fwrite(s, 1, len, fp);
		return;
	}
	if (q)
		putc('"', fp);
	while (p < end) {
		size_t used, n;

		p += plain(p, (size_t)(end - p), mode);
		if (p == end)
			break;
		n = esc_one(p, (size_t)(end - p), mode, out, &used);
		if (n) {
			fwrite(run, 1, (size_t)(p - run), fp);
			fwrite(out, 1, n, fp);
			run = p + used;
		}
		p += used;
	}
	fwrite(run, 1, (size_t)(end - run), fp);
	if (q)
		putc('"', fp);
}

void sa_esc_str(FILE *fp, const char *s, enum sa_esc mode)
{
	sa_esc(fp, s, strlen(s), mode);
}

const char *sa_esc_text(const char *s, char **tmp)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), used, n, i;
	char out[24], *d;

	*tmp = NULL;
	for (i = plain(p, len, SA_ESC_TEXT); i < len; i += used) {
		if (esc_one(p + i, len - i, SA_ESC_TEXT, out, &used))
			break;
		used += plain(p + i + used, len - i - used, SA_ESC_TEXT);
	}
	if (i == len)
		return s;
	*tmp = d = malloc(len * 4 + 1);
	if (!d)
		return "?";
	for (i = 0; i < len; i += used) {
		n = esc_one(p + i, len - i, SA_ESC_TEXT, out, &used);
		if (n) {
			memcpy(d, out, n);
			d += n;
		} else {
			memcpy(d, p + i, used);
			d += used;
		}
	}
	*d = '\0';
	return *tmp;
}

/* The columns of the character of @n bytes at @s (valid UTF-8) under LC_CTYPE. */
static size_t char_width(const char *s, size_t n)
{
	mbstate_t st;
	wchar_t wc;
	int w;

	memset(&st, 0, sizeof(st));
	if (mbrtowc(&wc, s, n, &st) != n)
		return 1;	/* the locale cannot decode it */
	w = wcwidth(wc);
	return w < 0 ? 1 : (size_t)w;
}

size_t sa_text_fit(const char *s, size_t cols, size_t *width)
{
	size_t i = 0, w = 0;

	while (s[i]) {
		const unsigned char *p = (const unsigned char *)s + i;
		size_t n = 1, cw = 1;

		if (*p >= 0x80) {	/* ASCII is one column: no call per character */
			n = sa_utf8_len(p, strnlen(s + i, 4));
			n = n ? n : 1;
			cw = char_width(s + i, n);
		}
		if (w + cw > cols)
			break;
		w += cw;
		i += n;
	}
	*width = w;
	return i;
}

size_t sa_text_width(const char *s)
{
	size_t w;

	sa_text_fit(s, SIZE_MAX, &w);
	return w;
}
