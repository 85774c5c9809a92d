/* SPDX-License-Identifier: GPL-2.0 */
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

#endif /* SLAB_ACCOUNT_KMEM_CACHE_H */
