// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: read the sizes and name of a struct kmem_cache.
 *
 * On 6.1 the structure is public in <linux/slub_def.h>, but that header
 * ends with inline helpers that dereference struct slab, which only the
 * kernel's private mm/slab.h defines.  This file, and only this file,
 * gives those unused helpers a minimal struct slab so that the header
 * compiles; nothing here ever touches a struct slab.  The accessors are
 * out of line so the rest of the module never sees these definitions.
 */
#include <linux/stddef.h>
#include <linux/types.h>

/* Just enough for the unused inlines at the end of slub_def.h. */
struct slab {
	unsigned int objects;
};

static inline void *slab_address(const struct slab *slab)
{
	return NULL;
}

#include <linux/slab.h>
#include <linux/slub_def.h>

#include "sa_kmem_cache.h"

unsigned int sa_cache_size(const struct kmem_cache *s)
{
	return s->size;
}

unsigned int sa_cache_object_size(const struct kmem_cache *s)
{
	return s->object_size;
}

const char *sa_cache_name(const struct kmem_cache *s)
{
	return s->name;
}
