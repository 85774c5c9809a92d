/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The selftests' own account of a kmem trace (ftrace's `trace` text):
 * call sites, live pointers, peaks and types with the module's semantics,
 * written independently of the slabacct reader so that the two check each
 * other; and the comparison of that account with `slabacct --from-trace
 * FILE --csv`.
 */
#ifndef SA_KTRACE_H
#define SA_KTRACE_H

#include <stddef.h>

#define KT_NR_EVENTS	6
/* KMALLOC_MAX_CACHE_SIZE with 4 KiB pages: larger kmallocs are pages. */
#define KT_LARGE_KMALLOC	8192

extern const char * const kt_events[KT_NR_EVENTS];

struct kt_site {
	char *caller;
	unsigned long long allocs, frees, total, req, live, live_req, objs;
	unsigned long long peak;
	unsigned long long missed;	/* its objects' frees not seen */
	int kmalloc, cache;		/* allocations of either kind seen */
	int many_caches;		/* cache allocations from several caches */
	char cache_name[64];		/* "" where the event names no cache */
};

struct kt_obj {
	unsigned long long ptr;		/* 0: empty slot */
	unsigned int site, alloc, req;
};

struct kt {
	struct kt_site *sites;
	size_t nsites, site_cap;
	unsigned int *site_hash;	/* index + 1; 0 = empty */
	size_t site_hash_cap;
	struct kt_obj *objs;
	size_t obj_cap, nobjs;
	unsigned long long allocs, frees, total, req;
	unsigned long long failed, unknown, missed, events, lost_lines;
	unsigned long long twice;	/* large kmallocs reported twice */
	unsigned long long nevents[KT_NR_EVENTS];
	/* Timestamps of the first and last event, as the trace writes them. */
	char first_ts[32], last_ts[32];
	int hashed;			/* pointers hashed (32 bits) */
};

int kt_init(struct kt *o, int hashed);
void kt_free(struct kt *o);
/* The site of that caller, made if new; NULL when the table is full. */
struct kt_site *kt_site(struct kt *o, const char *caller);
/* The site of that caller, NULL if none. */
const struct kt_site *kt_find(const struct kt *o, const char *caller);
/*
 * One line of the trace ("<task>-<pid> [cpu] flags ts: <event>:
 * call_site=<%pS> ptr=<%p> [bytes_req=N bytes_alloc=N ...]"): 0 (used or
 * ignored: comments, blank lines), or -1 on a line not understood.
 */
int kt_line(struct kt *o, char *line);
/* Does the site have a row (allocations, frees or live objects)? */
int kt_shown(const struct kt_site *s);
/* The number of sites with a row. */
size_t kt_nrows(const struct kt *o);
/* The module's type column for a site: kmalloc, cache:NAME, cache, ... */
void kt_type(const struct kt_site *s, char *buf, size_t len);

/* One row of `slabacct --csv`. */
struct kt_csv_row {
	unsigned long long total, slack, req, live, live_req, objs, peak;
	unsigned long long allocs, frees;
	char frag[32];
	char type[96];
	char caller[256];
};

/*
 * Run @cmd (a slabacct --csv command line) and parse its output: the
 * header must be the module file's CSV header.  The number of rows, or -1
 * with a message in @err.  Free *@rows.
 */
long kt_csv_run(const char *cmd, struct kt_csv_row **rows, char *err,
		size_t errlen);

/*
 * Compare the trace's own account @o with the reader's rows: every site
 * either side knows, every figure (allocs, frees, total, req, slack, live,
 * live_req, objs, peak, frag and the type).  Prints the first mismatches
 * ("# kt: ..."); returns how many figures differ.
 */
unsigned long kt_compare(const struct kt *o, const struct kt_csv_row *rows,
			 size_t nrows);

/*
 * Compare the summary of `slabacct --from-trace FILE --json --summary-only`
 * (@cmd) with @o: events, allocs, frees, bytes, failed allocs, unknown and
 * missed frees, live objects; no lost event, no unmatched pointer; with
 * @sites also the number of call sites.
 * Prints the differences ("# kt: ..."); returns how many, or -1 if the
 * command failed or a key is missing.
 */
long kt_summary_compare(const struct kt *o, const char *cmd, int sites);

/* Seconds of a trace timestamp ("12.345678"). */
double kt_ts(const char *ts);

#endif /* SA_KTRACE_H */
