/* SPDX-License-Identifier: GPL-2.0 */
/* The compat layer's access to struct kmem_cache (sa_kmem_cache.c). */
#ifndef SLAB_ACCOUNT_KMEM_CACHE_H
#define SLAB_ACCOUNT_KMEM_CACHE_H

#include <linux/compiler.h>

struct kmem_cache;

/*
 * struct kmem_cache accessors: the bytes the allocator hands out for one
 * object of @s (what ftrace reports as bytes_alloc), the bytes a caller
 * asks for (bytes_req), and the cache's name.  The sizes are read by the
 * probes of every kmem_cache_alloc: inline, at the offsets Kbuild found
 * (the public header's or the BTF's, checked in sa_kmem_cache.c), where
 * it found both; else, and the name always, out of line.
 */
#if defined(SA_KC_SIZE_OFF) && defined(SA_KC_OBJSIZE_OFF)
#define SA_KC_SIZES_INLINE
static __always_inline unsigned int sa_cache_size(const struct kmem_cache *s)
{
	return *(const unsigned int *)((const char *)s + SA_KC_SIZE_OFF);
}

static __always_inline unsigned int
sa_cache_object_size(const struct kmem_cache *s)
{
	return *(const unsigned int *)((const char *)s + SA_KC_OBJSIZE_OFF);
}
#else
unsigned int sa_cache_size(const struct kmem_cache *s);
unsigned int sa_cache_object_size(const struct kmem_cache *s);
#endif
const char *sa_cache_name(const struct kmem_cache *s);

/*
 * At load, before any probe: do the accessors read this kernel's struct
 * kmem_cache?  Where its layout came from BTF, a cache made for the check
 * is read with fault-safe reads; 0, or -EINVAL with the reason logged.
 */
int sa_kmem_cache_check(void);

#endif /* SLAB_ACCOUNT_KMEM_CACHE_H */
