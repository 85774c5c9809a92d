// SPDX-License-Identifier: GPL-2.0
/*
 * sa_esc - the one escaper: a caller, type or file name written for a
 * terminal, CSV, JSON, a Prometheus label, a flame graph's frame or XML.
 * One walk over the UTF-8 sequences of the string; each mode says what
 * becomes of a control character, a byte that is not UTF-8 and its own
 * special characters.  And the width of such a string on a terminal.
 */
#ifndef SA_ESC_H
#define SA_ESC_H

#include <stddef.h>
#include <stdio.h>

enum sa_esc {
	SA_ESC_TEXT,	/* control characters (C0, DEL, C1) and non-UTF-8 bytes as \xHH */
	SA_ESC_CSV,	/* RFC 4180: quoted when it holds , " CR or LF; bytes kept */
	SA_ESC_JSON,	/* a JSON string, quoted; non-UTF-8 bytes as \ufffd */
	SA_ESC_LABEL,	/* a label value, quoted: \\ \" \n; non-UTF-8 as U+FFFD */
	SA_ESC_FRAME,	/* a folded stack's frame: ';' and control characters as '_' */
	SA_ESC_XML,	/* XML text: & < > " as entities; control, non-UTF-8 as U+FFFD */
};

/* The length of the valid UTF-8 sequence at @s (at most @avail bytes), or 0. */
size_t sa_utf8_len(const unsigned char *s, size_t avail);

/* Write @len bytes of @s to @fp escaped for @mode. */
void sa_esc(FILE *fp, const char *s, size_t len, enum sa_esc mode);

/* sa_esc() of a NUL terminated string. */
void sa_esc_str(FILE *fp, const char *s, enum sa_esc mode);

/*
 * @s (NUL terminated) escaped for a terminal (SA_ESC_TEXT): @s itself when
 * nothing needs escaping, else a malloc()ed string in *@tmp (free it), or
 * "?" without memory.
 */
const char *sa_esc_text(const char *s, char **tmp);

/*
 * The columns a terminal gives the string @s (as sa_esc_text() writes it:
 * valid UTF-8 without control characters) under the locale's LC_CTYPE:
 * the wcwidth() of each character, one column for a character the locale
 * cannot decode (the C locale: any byte above 0x7f).  Returns the bytes of
 * @s's longest prefix that takes at most @cols columns, its columns in
 * *@width; SIZE_MAX as @cols: all of @s.
 */
size_t sa_text_fit(const char *s, size_t cols, size_t *width);

/* The columns of @s on a terminal (sa_text_fit() of all of it). */
size_t sa_text_width(const char *s);

#endif /* SA_ESC_H */
