// SPDX-License-Identifier: GPL-2.0
/*
 * sa_json - the JSON writer (see sa_json.h).
 */
#include "sa_json.h"

#include <inttypes.h>
#include <stdlib.h>

#include "sa_esc.h"

/*
 * The nesting is the code's, never the data's: a document deeper than
 * SA_JSON_DEPTH, or a close without an open, is a bug of the reader,
 * stopped here before it writes past the stack.
 */
static void nesting_bug(const char *what)
{
	fprintf(stderr, "slabacct: bug: JSON %s (at most %d levels)\n", what, SA_JSON_DEPTH);
	abort();
}

void sa_json_begin(struct sa_json *j, FILE *fp)
{
	j->fp = fp;
	j->depth = -1;
	sa_json_open(j, '{', 1);
}

void sa_json_end(struct sa_json *j)
{
	sa_json_close(j);
	putc('\n', j->fp);
}

void sa_json_key_sep(struct sa_json *j, const char *key, const char *sep)
{
	int d = j->depth, i;

	if (d < 0)
		nesting_bug("member outside the document");
	if (sep && j->s[d].count) {
		fputs(sep, j->fp);
	} else if (j->s[d].block) {
		fputs(j->s[d].count ? ",\n" : "\n", j->fp);
		for (i = 0; i <= d; i++)
			fputs("  ", j->fp);
	} else if (j->s[d].count) {
		fputs(", ", j->fp);
	}
	j->s[d].count++;
	if (key) {
		sa_esc_str(j->fp, key, SA_ESC_JSON);
		fputs(": ", j->fp);
	}
}

void sa_json_key(struct sa_json *j, const char *key)
{
	sa_json_key_sep(j, key, NULL);
}

void sa_json_open(struct sa_json *j, char open, int block)
{
	int d;

	if (j->depth + 1 >= SA_JSON_DEPTH)
		nesting_bug("nested too deep");
	d = ++j->depth;
	putc(open, j->fp);
	j->s[d].close = open == '{' ? '}' : ']';
	j->s[d].block = block;
	j->s[d].count = 0;
}

void sa_json_close(struct sa_json *j)
{
	int d, i;

	if (j->depth < 0)
		nesting_bug("closed more than opened");
	d = j->depth--;
	if (j->s[d].block && j->s[d].count) {
		putc('\n', j->fp);
		for (i = 0; i < d; i++)
			fputs("  ", j->fp);
	}
	putc(j->s[d].close, j->fp);
}

void sa_json_str(struct sa_json *j, const char *s)
{
	sa_esc_str(j->fp, s, SA_ESC_JSON);
}

void sa_json_u64(struct sa_json *j, uint64_t v)
{
	fprintf(j->fp, "%" PRIu64, v);
}

void sa_json_raw(struct sa_json *j, const char *s)
{
	fputs(s, j->fp);
}

void sa_json_kstr(struct sa_json *j, const char *key, const char *s)
{
	sa_json_key(j, key);
	sa_json_str(j, s);
}

void sa_json_ku64(struct sa_json *j, const char *key, uint64_t v)
{
	sa_json_key(j, key);
	sa_json_u64(j, v);
}

void sa_json_klist(struct sa_json *j, const char *key, const uint64_t *v, size_t n)
{
	sa_json_key(j, key);
	sa_json_klist_value(j, v, n);
}

void sa_json_klist_value(struct sa_json *j, const uint64_t *v, size_t n)
{
	size_t i;

	sa_json_open(j, '[', 0);
	for (i = 0; i < n; i++) {
		sa_json_key(j, NULL);
		sa_json_u64(j, v[i]);
	}
	sa_json_close(j);
}
