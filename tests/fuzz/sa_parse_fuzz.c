// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the reader's parser (userspace/sa_parse.c).
 *
 * Each input is parsed from memory (sa_parse_buffer) and from a stream
 * (sa_parse_stream through fmemopen); both must agree on success or
 * failure and, on success, on every summary line and row.  A parsed file
 * must hold together: the version is 1.x, every row has a type and a
 * caller (NUL terminated strings, read to the end) and keeps the format's
 * rules (req <= total, slack = total - req, live_req <= live); a retired
 * row (1.3, " unloaded#N") is of a module and a load N >= 1, a module's
 * live row of a load >= 1, a built-in row of none, and its key the caller
 * less " unloaded#N"; (1.6) a child row's context is off its caller (no
 * " @" left there) and the child rows are counted; and sa_check_sums()
 * finds no more differences than it has keys.  ASan/UBSan
 * report memory and undefined-behaviour errors.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sa_caller.h"
#include "sa_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same(const struct sa_file *a, const struct sa_file *b)
{
	if (a->major != b->major || a->minor != b->minor ||
	    a->nsummary != b->nsummary || a->nrows != b->nrows)
		abort();
	for (size_t i = 0; i < a->nsummary; i++) {
		if (strcmp(a->summary[i].key, b->summary[i].key) ||
		    strcmp(a->summary[i].value, b->summary[i].value) ||
		    a->summary[i].is_num != b->summary[i].is_num ||
		    (a->summary[i].is_num &&
		     a->summary[i].num != b->summary[i].num))
			abort();
	}
	for (size_t i = 0; i < a->nrows; i++) {
		const struct sa_row *r = &a->rows[i], *s = &b->rows[i];

		if (memcmp(r->v, s->v, sizeof(r->v)) || r->type != s->type ||
		    strcmp(r->type_str, s->type_str) ||
		    strcmp(r->caller, s->caller) || r->line != s->line ||
		    r->load != s->load || r->retired != s->retired || r->key_len != s->key_len ||
		    !r->cache != !s->cache ||
		    (r->cache && strcmp(r->cache, s->cache)))
			abort();
	}
}

static void sane(const struct sa_file *f)
{
	if (f->major != SA_FORMAT_MAJOR)
		abort();
	for (size_t i = 0; i < f->nrows; i++) {
		const struct sa_row *r = &f->rows[i];

		if (!r->caller[0] || !r->type_str[0] ||
		    (r->cache && r->cache < r->type_str) ||
		    r->v[SA_REQ] > r->v[SA_TOTAL] ||
		    r->v[SA_SLACK] != r->v[SA_TOTAL] - r->v[SA_REQ] ||
		    r->v[SA_LIVE_REQ] > r->v[SA_LIVE])
			abort();
		struct sa_caller c;

		sa_caller_split(r->caller, &c);
		if (c.bad_unloaded || r->retired != (c.unloaded != 0) ||
		    (r->retired && (!c.mod || r->load != c.unloaded)) ||
		    (!c.mod && r->load) || (c.mod && !r->load) || r->key_len != c.klen ||
		    (r->retired && r->key_len + strlen(" unloaded#") >= strlen(r->caller)))
			abort();
	}
	/* (1.6) the child rows: their context taken off the caller, counted */
	size_t nctx = 0;
	for (size_t i = 0; i < f->nrows; i++) {
		const struct sa_row *r = &f->rows[i];

		if (!r->ctx)
			continue;
		nctx++;
		if (f->minor < 6 || strstr(r->caller, " @") || r->ctx[0] != '@' ||
		    (!r->cx.stack && r->cx.kind == SA_CTX_NONE))
			abort();
	}
	if (nctx != f->nctx)
		abort();
	char msg[64];
	/* ten sums: number of callers, context rows and the eight columns' */
	if (sa_check_sums(f, msg, sizeof(msg)) > 10 || strlen(msg) >= sizeof(msg))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sa_file a, b;
	char *ea = NULL, *eb = NULL;
	int ra, rb;
	FILE *fp;

	ra = sa_parse_buffer(&a, (const char *)data, size, "fuzz", &ea);
	if (ra == 0)
		sane(&a);
	else if (!ea || strncmp(ea, "fuzz", 4))
		abort();		/* every error names the file */

	/* fmemopen() of a zero-length buffer fails on older glibc. */
	fp = size ? fmemopen((void *)data, size, "r") : NULL;
	if (fp) {
		rb = sa_parse_stream(&b, fp, "fuzz", &eb);
		fclose(fp);
		if (ra != rb)
			abort();
		if (!rb) {
			same(&a, &b);
			sa_file_free(&b);
		}
		free(eb);
	}
	if (!ra)
		sa_file_free(&a);
	free(ea);
	return 0;
}
