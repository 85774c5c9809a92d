// SPDX-License-Identifier: GPL-2.0
/*
 * sa_dsites - the model --leaks and --advise share: a detail file's call
 * sites (its rows of one caller and type merged), as rows the filters
 * read.
 */
#ifndef SA_DSITES_H
#define SA_DSITES_H

#include <stddef.h>
#include <stdint.h>

#include "sa_detail.h"
#include "sa_merge.h"
#include "sa_parse.h"

/* A call site of a detail file: its rows of one caller and type, merged. */
struct dsite {
	const struct sa_drow *r;	/* the first: type and caller */
	const char *caller;		/* the caller they were merged by */
	const uint64_t *v;		/* SA_D_NFIELDS numbers */
};

struct dsites {
	struct dsite *s;	/* by caller, then type */
	size_t n;
	struct sa_groups g;
	char **keys;		/* by_site: the callers without their context */
	size_t nkeys;
};

/*
 * @d's call sites, rows of the same caller and type (raw addresses under
 * kptr_restrict) added up: counts and bytes summed, oldest the largest,
 * req_min/req_max the range of both.  With @by_site (1.6) a child row
 * (` @stack:ID`, ` @cgroup:ID`, ...) is its site's: the rows are merged
 * by their caller without its context, as the main file's sites are; else
 * each child row is a site of its own.  0, or -1 with *@err a malloc()ed
 * message (NULL: out of memory).
 */
int dsites_get(const struct sa_detail *d, int by_site, struct dsites *out, char **err);
void dsites_free(struct dsites *s);

/* Order of two sites by caller, then type (the order of dsites). */
int site_cmp(const char *ta, const char *ca, const char *tb, const char *cb);

/* A detail site as a main-file row, for the filters: live bytes and objects. */
void dsite_as_row(const struct dsite *s, struct sa_row *r);

#endif /* SA_DSITES_H */
