// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: read the sizes and name of a struct kmem_cache.
 *
 * Part of the compat layer.  Two ways, chosen at compile time:
 *
 *  - the structure is public in <linux/slub_def.h> (up to 6.7), but that
 *    header ends with inline helpers that dereference struct slab, which
 *    only mm/slab.h defines: this file, and only this file, gives those
 *    unused helpers a minimal struct slab so that the header compiles;
 *  - it is private (6.8 on): Kbuild reads the offsets of its size and name
 *    from the kernel's BTF with pahole (SA_KC_SIZE_OFF, SA_KC_NAME_OFF);
 *    the object size comes from kmem_cache_size().
 *
 * The accessors are out of line so the rest of the module never sees
 * these definitions.
 */
#include <linux/stddef.h>
#include <linux/types.h>

#ifdef SA_HAVE_SLUB_DEF

/* Just enough for the unused inlines at the end of slub_def.h. */
struct slab {
	unsigned int objects;
};

static inline void *slab_address(const struct slab *slab)
{
	return NULL;
}

#include <linux/mm.h>
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

#elif defined(SA_KC_SIZE_OFF)

#include <linux/slab.h>

#include "sa_kmem_cache.h"

unsigned int sa_cache_size(const struct kmem_cache *s)
{
	return *(const unsigned int *)((const char *)s + SA_KC_SIZE_OFF);
}

unsigned int sa_cache_object_size(const struct kmem_cache *s)
{
	return kmem_cache_size((struct kmem_cache *)s);
}

const char *sa_cache_name(const struct kmem_cache *s)
{
#ifdef SA_KC_NAME_OFF
	return *(const char * const *)((const char *)s + SA_KC_NAME_OFF);
#else
	return "";
#endif
}

#else
/* Install pahole (dwarves); give the BTF: SA_BTF=<vmlinux or a copy of /sys/kernel/btf/vmlinux> */
#error "slab_account: struct kmem_cache is private and its layout unknown"
#endif
