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
void sa_objects_free(void);
/* Its slots. */
unsigned long sa_objects_capacity(void);

/* The per-CPU event counters, summed. */
void sa_stats_sum(struct sa_stats *sum);

#endif /* SLAB_ACCOUNT_OBJECTS_H */
