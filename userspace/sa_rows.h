// SPDX-License-Identifier: GPL-2.0
/*
 * sa_rows - the rows model: what a report shows.  The call sites of a file
 * that pass the filters (or, with --diff, the deltas of two files' call
 * sites, matched by caller), each with its 1.6 child rows summed in (or,
 * with --by cgroup|node|task|stack, the rows grouped by their context),
 * grouped and summed with --by, kept by --min, sorted by the sort keys
 * and cut by --top.  The report's table
 * (pr_report.c), the metrics, the flame graph and the treemap read them.
 */
#ifndef SA_ROWS_H
#define SA_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "sa_cgroup.h"
#include "sa_num.h"
#include "sa_parse.h"

#define SA_MAX_KEYS 4		/* -s a,b,c,d */

/*
 * Sort keys: an enum sa_field, or these.  SA_KEY_SITES (--by: the call
 * sites in a group) is also the index of that count in a row's values.
 */
enum { SA_KEY_SITES = SA_NFIELDS, SA_KEY_FRAG, SA_KEY_CALLER };
#define SA_NVALUES (SA_NFIELDS + 1)	/* a row's values: the fields, then sites */

/*
 * --by: how call sites are grouped.  (1.6) The last four group a file's
 * rows, child rows too, by their context (sa_ctx.h); the others group the
 * call sites, each the sum of its own row and its child rows.
 */
enum sa_by { SA_BY_NONE, SA_BY_MODULE, SA_BY_FUNCTION, SA_BY_CACHE, SA_BY_TYPE,
	     SA_BY_CGROUP, SA_BY_NODE, SA_BY_TASK, SA_BY_STACK };
#define SA_BY_CTX(by) ((by) >= SA_BY_CGROUP)
extern const char *const sa_by_names[];

/* Which call sites a report keeps (they combine). */
struct sa_filter {
	int only_kmalloc, only_cache;
	const char *cache_name;	/* with only_cache: this cache only */
	const char *module;	/* "vmlinux": callers without a module */
	const char *grep;
	uint64_t min_size, max_size;	/* -z, -Z: average allocation; 0: none */
	/* (1.6) the rows of one context: --cgroup (irq: @irq), --node, --task (irq: @irq) */
	int cgroup_set, cgroup_irq, node_set;
	uint64_t cgroup, node;
	const char *task;
};

/* The selection: filters, grouping, --min, the sort and --top. */
struct sa_select {
	struct sa_filter filter;
	enum sa_by by;
	int keys[SA_MAX_KEYS];	/* an enum sa_field, SA_KEY_SITES, SA_KEY_FRAG or SA_KEY_CALLER */
	size_t nkeys;
	int reverse;
	int min_set;
	uint64_t min;		/* --min: the first sort key at least this */
	uint64_t top;		/* 0: all rows */
	int all;		/* --diff: the unchanged rows too */
	const struct sa_cgroups *cg;	/* (1.6) cgroup ids to paths; NULL: none */
};

enum sa_status { SA_ST_NONE, SA_ST_COMMON, SA_ST_NEW, SA_ST_GONE };

struct sa_item {
	const struct sa_row *row;	/* type and caller (OLD's for gone rows) */
	struct num v[SA_NVALUES];	/* the fields, then (SA_KEY_SITES) the call sites */
	enum sa_status st;
	size_t order;
};

/* A file's call sites grouped by --by: a file of one row per group. */
struct sa_grouped {
	struct sa_file f;	/* name, version, summary: the file's */
	uint64_t *sites;	/* the call sites in each group */
	size_t kept;		/* call sites that passed the filters */
	size_t total;		/* call sites in the file */
};

struct sa_rows {
	const struct sa_select *sel;
	const struct sa_file *old, *new;	/* the files' rows (the groups with --by) */
	const struct sa_file *raw;		/* NEW as read (1.6: with its child rows) */
	struct sa_grouped gold, gnew;		/* --by */
	struct sa_grouped fold, fnew;		/* (1.6) the call sites, child rows summed in */
	struct sa_item *items;	/* sorted; n shown (after --top), nall in all */
	size_t n, nall;
	size_t status[4];	/* rows by status (after the filters and --min) */
	size_t unchanged;	/* common rows that did not change */
};

/* Does @r pass the filters (but the context's)? */
int sa_keep_row(const struct sa_filter *f, const struct sa_row *r);

/* (1.6) Does @r pass the context's filters (--cgroup, --node, --task)? */
int sa_keep_ctx(const struct sa_filter *f, const struct sa_row *r);

/* (1.6) Does @f filter by context? */
int sa_filter_ctx(const struct sa_filter *f);

/*
 * (1.6) The name of @r's context as --by @by shows it (malloc()ed; NULL
 * without memory): a cgroup's path (or `cgroup#ID` when @cg has none),
 * `node N`, the task's name, `irq`; with SA_BY_STACK the caller and its
 * ` @stack:ID`; `-` for a row without that context (a site's own row).
 */
char *sa_ctx_name(enum sa_by by, const struct sa_row *r, const struct sa_cgroups *cg);

/*
 * The rows of @new, or with @old the deltas OLD -> NEW, as @sel selects
 * them.  0, or -1 with *@err a malloc()ed message (NULL: no memory).
 */
int sa_rows_build(struct sa_rows *r, const struct sa_select *sel,
		  const struct sa_file *old, const struct sa_file *new, char **err);
void sa_rows_free(struct sa_rows *r);

/*
 * (1.6) The rows of NEW as read that make up the call site of item @it
 * (its own row and its child rows that pass the context's filters), in
 * file order, into *@out (malloc()ed, freed by the caller): how many, or
 * (size_t)-1 without memory.  0 when the rows were not folded into sites
 * (no child rows, --by, --diff).
 */
size_t sa_rows_site_rows(const struct sa_rows *r, const struct sa_item *it,
			 const struct sa_row ***out);

/* frag% of an item: 100 - 100 * req / total. */
double sa_item_frag(const struct sa_item *it);

/* Is @field (an enum sa_field or SA_KEY_*) a number of bytes? */
int sa_is_bytes(int field);

/* The name of sort key @key (total, live, ...). */
const char *sa_key_name(int key);

/* Sort key @name (@len bytes): 0 and *@key, or -1. */
int sa_key_parse(const char *name, size_t len, int *key);

/* The accepted sort keys, for messages: "total, slack, ..." */
extern const char sa_key_list[];

#endif /* SA_ROWS_H */
