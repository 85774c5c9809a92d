/* SPDX-License-Identifier: GPL-2.0 */
/* The compat layer's access to struct kmem_cache (sa_kmem_cache.c). */
#ifndef SLAB_ACCOUNT_KMEM_CACHE_H
#define SLAB_ACCOUNT_KMEM_CACHE_H

struct kmem_cache;

/*
 * struct kmem_cache accessors (sa_kmem_cache.c): the bytes the allocator
 * hands out for one object of @s (what ftrace reports as bytes_alloc), the
 * bytes a caller asks for (bytes_req), and the cache's name.
 */
unsigned int sa_cache_size(const struct kmem_cache *s);
unsigned int sa_cache_object_size(const struct kmem_cache *s);
const char *sa_cache_name(const struct kmem_cache *s);

/*
 * At load, before any probe: do the accessors read this kernel's struct
 * kmem_cache?  Where its layout came from BTF, a cache made for the check
 * is read with fault-safe reads; 0, or -EINVAL with the reason logged.
 */
int sa_kmem_cache_check(void);

#endif /* SLAB_ACCOUNT_KMEM_CACHE_H */
