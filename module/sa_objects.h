/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The object table's interface beyond the inline hot path of sa_core.h:
 * its sizing and the global event counters (sa_objects.c).
 */
#ifndef SLAB_ACCOUNT_OBJECTS_H
#define SLAB_ACCOUNT_OBJECTS_H

#include "sa_core.h"

/* A table for about @objs objects; its bytes in *@bytes.  0 or -ENOMEM. */
int sa_objects_alloc(unsigned long objs, size_t *bytes);
/* The bytes that table takes. */
size_t sa_objects_bytes(unsigned long objs);
void sa_objects_free(void);
/* Its slots. */
unsigned long sa_objects_capacity(void);
/*
 * The automatic max_objects' ceiling: one per KiB of RAM, a power of two,
 * 8192 to SA_MAX_OBJECTS (sa_main.c sizes by it, the advice stops at it).
 */
unsigned long sa_objects_ceiling(void);
/*
 * The max_objects to load with when @want objects (those tracked and
 * those dropped) did not fit: room for twice as many, at least twice
 * the slots of now, at most the automatic size's ceiling (one per KiB of
 * RAM, at most SA_MAX_OBJECTS); 0 when that gives no larger table.
 */
unsigned long sa_objects_advice(u64 want);

/* The detail file's age columns: 6, by bounds in seconds. */
#define SA_AGE_BUCKETS	6

/* What a scan of the object table found of one site's live objects. */
struct sa_obj_ages {
	u64 bytes, req;
	u64 byte_ticks;		/* sum of bytes x age, saturated */
	u32 objs;
	u32 oldest;		/* age, in sa_clock() ticks */
	u32 ages[SA_AGE_BUCKETS];
};

/* The age bounds: ages below each, then the rest. */
extern const u32 sa_age_bounds[SA_AGE_BUCKETS - 1];

/*
 * Every live object in the table, into @acc[site index] for the first
 * @nsites sites (zeroed by the caller), with its age when it was read.
 * Process context; a moment's picture of a busy table.
 */
void sa_objects_scan(struct sa_obj_ages *acc, unsigned int nsites);

/* The per-CPU event counters, summed. */
void sa_stats_sum(struct sa_stats_sum *sum);

#endif /* SLAB_ACCOUNT_OBJECTS_H */
