/* SPDX-License-Identifier: GPL-2.0 */
/* The compat layer's access to struct kmem_cache (sa_kmem_cache.c). */
#ifndef SLAB_ACCOUNT_KMEM_CACHE_H
#define SLAB_ACCOUNT_KMEM_CACHE_H

#include <linux/compiler.h>

struct kmem_cache;

/*
 * Where struct kmem_cache keeps the bytes the allocator hands out for one
 * object (what ftrace reports as bytes_alloc), the bytes a caller asks
 * for (bytes_req) and the cache's name: offsets Kbuild found (the
 * compiler's for the public structure up to 6.7 or a kernel tree's
 * mm/slab.h, pahole's from BTF), or, where it found none, offsets
 * measured at load (SA_KC_MEASURE).  Either way checked at load, before
 * any probe (sa_kmem_cache_check()).  The probes of every
 * kmem_cache_alloc read the two sizes inline.
 */
#ifdef SA_KC_MEASURE
extern unsigned int sa_kc_size_off, sa_kc_objsize_off, sa_kc_name_off;
#define SA_KC_SIZE_AT		sa_kc_size_off
#define SA_KC_OBJSIZE_AT	sa_kc_objsize_off
#define SA_KC_NAME_AT		sa_kc_name_off
#elif defined(SA_KC_SIZE_OFF) && defined(SA_KC_OBJSIZE_OFF) && \
	defined(SA_KC_NAME_OFF)
#define SA_KC_SIZE_AT		SA_KC_SIZE_OFF
#define SA_KC_OBJSIZE_AT	SA_KC_OBJSIZE_OFF
#define SA_KC_NAME_AT		SA_KC_NAME_OFF
#else
#error "slab_account: no struct kmem_cache layout (Kbuild gives offsets or SA_KC_MEASURE)"
#endif

static __always_inline unsigned int sa_cache_size(const struct kmem_cache *s)
{
	return *(const unsigned int *)((const char *)s + SA_KC_SIZE_AT);
}

static __always_inline unsigned int
sa_cache_object_size(const struct kmem_cache *s)
{
	return *(const unsigned int *)((const char *)s + SA_KC_OBJSIZE_AT);
}

static inline const char *sa_cache_name(const struct kmem_cache *s)
{
	return *(const char * const *)((const char *)s + SA_KC_NAME_AT);
}

/*
 * At load, before any probe: make sure the accessors read this kernel's
 * struct kmem_cache (or, with SA_KC_MEASURE, find where they must), on
 * caches made for the purpose, with fault-safe reads; 0, or -EINVAL
 * with the reason logged.
 */
int sa_kmem_cache_check(void);

#endif /* SLAB_ACCOUNT_KMEM_CACHE_H */
