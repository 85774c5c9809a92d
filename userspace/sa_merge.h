// SPDX-License-Identifier: GPL-2.0
/*
 * sa_merge - the one merge by key: records with the same key (a group's
 * name for --by; a caller and its type for rows a file gives twice, raw
 * addresses under kptr_restrict) become one, their numbers summed (never
 * wrapped: a sum beyond 2^64 - 1 is an error) or folded as a field says.
 */
#ifndef SA_MERGE_H
#define SA_MERGE_H

#include <stddef.h>
#include <stdint.h>

enum sa_fold {
	SA_FOLD_SUM,		/* the sum (an error beyond 2^64 - 1) */
	SA_FOLD_MAX,		/* the largest */
	SA_FOLD_RANGE_MIN,	/* the smallest of the records that have a range:
				 * whose next field (the range's max) is not 0 */
};

struct sa_merge_in {
	const char *key, *key2;	/* key2 may be NULL */
	const uint64_t *v;	/* nfields numbers */
	size_t idx;		/* the record's place: equal keys, lower first */
};

struct sa_group {
	size_t first;		/* idx of the group's first record */
	size_t first_in;	/* and its index in the records given */
	size_t count;		/* how many records */
	uint64_t *v;		/* the folded numbers */
};

struct sa_groups {
	struct sa_group *g;	/* by key, key2 */
	size_t n;
	uint64_t *v;		/* the numbers of all groups */
};

struct sa_merge_err {
	size_t field;		/* the field whose sum did not fit */
	size_t first;		/* the idx of its group's first record */
	size_t first_in;	/* and its index in the records given */
	int nomem;		/* or: no memory */
};

/*
 * Merge the @n records @in of @nfields numbers each by key, key2: into
 * *@out (free it with sa_groups_free()) one group per key, in key order,
 * each field folded by @fold[field] (NULL: every field summed).  0, or -1
 * and *@e says why.
 */
int sa_merge(const struct sa_merge_in *in, size_t n, size_t nfields,
	     const enum sa_fold *fold, struct sa_groups *out,
	     struct sa_merge_err *e);

void sa_groups_free(struct sa_groups *g);

/*
 * The message of a sum that did not fit: "FILE: the FIELD of WHAT KEY does
 * not fit in 64 bits" (@names: the fields' names), malloc()ed; NULL for no
 * memory.
 */
char *sa_merge_message(const struct sa_merge_err *e, const struct sa_merge_in *in,
		       const char *file, const char *const *names, const char *what);

#endif /* SA_MERGE_H */
