// SPDX-License-Identifier: GPL-2.0
/*
 * sa_detail - parser for /proc/slab_account_detail, format version 1.x
 * (docs/format.md, "The detail file").
 *
 * The file is: a header line `slab_account detail - version: MAJOR.MINOR`,
 * then `key: value` lines (now, page size, kmalloc classes, age bounds,
 * size bounds, objects scanned; keys this parser does not know are
 * ignored; each key at most once), then a legend line starting with `#`,
 * then one row per call site:
 *
 *   objs bytes req oldest byte_secs <6 age counts> req_min req_max
 *   <12 size counts> type caller
 *
 * Only major version 1 is accepted.  Every row must keep the format's rules
 * (bytes >= req; the age counts add up to objs; objs = 0 implies bytes =
 * req = oldest = byte_secs = 0; req_min <= req_max; oldest <= now) and the
 * rows' objs must add up to `objects scanned`.  Every error names the file
 * and line: "FILE:LINE: what".
 */
#ifndef SA_DETAIL_H
#define SA_DETAIL_H

#include <stddef.h>
#include <stdint.h>

#include "sa_parse.h"

#define SA_DETAIL_PATH "/proc/slab_account_detail"
#define SA_DETAIL_HEADER_PREFIX "slab_account detail - version: "
#define SA_DETAIL_MAJOR 1
#define SA_NAGES 6		/* age columns */
#define SA_NSIZES 12		/* request size columns */

/* The numeric columns of a row, in file order. */
enum sa_dfield {
	SA_D_OBJS,
	SA_D_BYTES,
	SA_D_REQ,
	SA_D_OLDEST,
	SA_D_BYTE_SECS,
	SA_D_AGE,				/* SA_NAGES age counts */
	SA_D_REQ_MIN = SA_D_AGE + SA_NAGES,
	SA_D_REQ_MAX,
	SA_D_SIZE,				/* SA_NSIZES size counts */
	SA_D_NFIELDS = SA_D_SIZE + SA_NSIZES
};

/* The columns' names, as the legend writes them. */
extern const char *const sa_detail_field_names[SA_D_NFIELDS];

struct sa_drow {
	uint64_t v[SA_D_NFIELDS];
	/*
	 * Its call site, named as the main file's row of it is: site.type,
	 * type_str, cache, caller and line (of this file); the rest zero.
	 */
	struct sa_row site;
};

struct sa_detail {
	char *name;		/* file name used in messages */
	uint64_t major, minor;
	uint64_t now;		/* seconds on the module's clock at the scan */
	uint64_t page_size;
	uint64_t *classes;	/* kmalloc classes, ascending */
	size_t nclasses;
	uint64_t age_bounds[SA_NAGES - 1];	/* seconds */
	uint64_t size_bounds[SA_NSIZES - 1];	/* bytes */
	uint64_t objects_scanned;
	struct sa_drow *rows;
	size_t nrows;
};

/*
 * Parse a detail file from a buffer of @len bytes (need not be NUL
 * terminated); @name is used in messages.  0 and *@d filled (free it with
 * sa_detail_free()), or -1 with *@d empty and *@err a malloc()ed message
 * "NAME:LINE: what" (no newline) that the caller frees.
 */
int sa_detail_parse_buffer(struct sa_detail *d, const char *buf, size_t len,
			   const char *name, char **err);

void sa_detail_free(struct sa_detail *d);

/*
 * The bytes a request of @n bytes takes: the smallest kmalloc class >= @n,
 * or above the largest class page_size << order (the smallest power-of-two
 * number of pages that holds it).  0 if @n is 0 or the result overflows.
 */
uint64_t sa_detail_alloc_size(const struct sa_detail *d, uint64_t n);

#endif /* SA_DETAIL_H */
