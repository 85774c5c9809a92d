// SPDX-License-Identifier: GPL-2.0
/*
 * sa_tacct - the account of a kmem trace, inside the trace reader: its
 * tables and counters (struct tr), the events that change them, and the
 * files it becomes.  Only sa_trace.c uses it.
 */
#ifndef SA_TACCT_H
#define SA_TACCT_H

#include <stddef.h>
#include <stdint.h>

#include "sa_detail.h"
#include "sa_parse.h"

struct sa_trace_opts;	/* sa_trace.h (the account keeps only a pointer) */

#define NAME_LEN 24			/* the module's SA_NAME_LEN */

enum { T_KMALLOC = 1, T_CACHE = 2, T_MULTI = 4 };

struct tsite {
	char *caller;
	uint64_t v[SA_NFIELDS];
	uint64_t sizes[SA_NSIZES];	/* requests by size, as the detail file's */
	uint64_t req_min, req_max;	/* req_min > req_max: none */
	unsigned int type;
	char name[NAME_LEN];	/* the cache's name as the module shows it; "" none */
};

struct tobj {
	uint64_t ptr;		/* 0: empty slot */
	uint64_t ts;		/* allocation time, ns */
	uint32_t site, alloc, req;
	uint32_t cache;		/* allocated by kmem_cache_alloc */
};

enum { C_EVENTS, C_OTHER, C_FAILED, C_UNKNOWN, C_MISSED, C_TWICE, C_LOST,
       C_LOST_REPORTS, C_PTRVAL, C_NCOUNTERS };

struct tr {
	const char *name;
	const struct sa_trace_opts *o;
	unsigned long lineno;
	char **err;
	struct tsite *sites;
	size_t nsites, site_cap;
	size_t *site_hash;	/* index + 1; 0 empty */
	size_t site_hash_cap;
	struct tobj *objs;
	size_t nobjs, obj_cap;
	uint64_t c[C_NCOUNTERS];
	uint64_t first_ts, last_ts;
	int have_ts;
	int count_ts;		/* timestamps that are counts, not seconds, seen */
	int trace_cmd;		/* trace-cmd report's "cpus=N" line seen */
};


enum ev { EV_KMALLOC, EV_CACHE_ALLOC, EV_KFREE, EV_CACHE_FREE, EV_OTHER };

/* "NAME:LINE: what" (or "NAME: what" at line 0) into *t->err; -1. */
int sa_tr_fail(struct tr *t, const char *fmt, ...) SA_PRINTF(2, 3);
int sa_tr_oom(struct tr *t);

/*
 * An allocation event @ev at call site @cs (@cslen bytes) of @ptr, @alloc
 * bytes for a request of @req, at @ts ns; @cname (@cnlen bytes) the cache's
 * name when the event gives it.  0, or -1 with the message set.
 */
int sa_tr_alloc(struct tr *t, enum ev ev, const char *cs, size_t cslen,
		uint64_t ptr, uint64_t alloc, uint64_t req, uint64_t ts,
		const char *cname, size_t cnlen);

/* A free event of @ptr; @cname as for sa_tr_alloc(). */
int sa_tr_free_ptr(struct tr *t, enum ev ev, uint64_t ptr, const char *cname,
		   size_t cnlen);

/* The account as a slab_account file: 0, -1 without memory, -2 with the message set. */
int sa_tr_build_file(struct tr *t, struct sa_file *f);

/* Its detail file (ages at the last timestamp); 0 or -1 with the message set. */
int sa_tr_build_detail(struct tr *t, const struct sa_file *f, struct sa_detail *d);

void sa_tr_free(struct tr *t);

#endif /* SA_TACCT_H */
