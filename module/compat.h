/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_account: every difference between kernel versions lives here.
 *
 * The accounting core (slab_account.c) knows two entry points,
 * sa_account_alloc() and sa_account_free(); this file turns the kmem
 * tracepoints of the running kernel's era into calls of those, and gives
 * the core the size and name of a struct kmem_cache.
 *
 * Era supported so far (see include/trace/events/kmem.h of each release):
 *   >= 6.1  kmalloc(call_site, ptr, bytes_req, bytes_alloc, gfp, node)
 *           kmem_cache_alloc(call_site, ptr, s, gfp, node)
 *           kfree(call_site, ptr)
 *           kmem_cache_free(call_site, ptr, s)
 *           no *_node events; struct kmem_cache is public (slub_def.h)
 */
#ifndef SLAB_ACCOUNT_COMPAT_H
#define SLAB_ACCOUNT_COMPAT_H

#include <linux/build_bug.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <trace/events/kmem.h>

#include "sa_kmem_cache.h"

/* The era is told by the tracepoints' own prototypes, not by a version. */
static_assert(__same_type(&trace_kmem_cache_alloc,
			  void (*)(unsigned long, const void *,
				   struct kmem_cache *, gfp_t, int)),
	      "slab_account: this kernel's kmem tracepoint era is not supported yet");
static_assert(__same_type(&trace_kmalloc,
			  void (*)(unsigned long, const void *, size_t, size_t,
				   gfp_t, int)),
	      "slab_account: this kernel's kmem tracepoint era is not supported yet");

#ifndef CONFIG_SLUB
#error "slab_account: needs SLUB (sa_kmem_cache.c reads struct kmem_cache)"
#endif

/* The core's entry points (slab_account.c). */
void sa_account_alloc(unsigned long call_site, const void *ptr,
		      size_t bytes_req, size_t bytes_alloc,
		      const struct kmem_cache *s);
void sa_account_free(unsigned long call_site, const void *ptr);

static void sa_probe_kmalloc(void *data, unsigned long call_site,
			     const void *ptr, size_t bytes_req,
			     size_t bytes_alloc, gfp_t gfp_flags, int node)
{
	sa_account_alloc(call_site, ptr, bytes_req, bytes_alloc, NULL);
}

static void sa_probe_kmem_cache_alloc(void *data, unsigned long call_site,
				      const void *ptr, struct kmem_cache *s,
				      gfp_t gfp_flags, int node)
{
	sa_account_alloc(call_site, ptr, sa_cache_object_size(s),
			 sa_cache_size(s), s);
}

static void sa_probe_kfree(void *data, unsigned long call_site,
			   const void *ptr)
{
	sa_account_free(call_site, ptr);
}

static void sa_probe_kmem_cache_free(void *data, unsigned long call_site,
				     const void *ptr,
				     const struct kmem_cache *s)
{
	sa_account_free(call_site, ptr);
}

/* Unregister every probe; the caller waits for probes in flight. */
static inline void sa_compat_unregister(void)
{
	unregister_trace_kmem_cache_free(sa_probe_kmem_cache_free, NULL);
	unregister_trace_kfree(sa_probe_kfree, NULL);
	unregister_trace_kmem_cache_alloc(sa_probe_kmem_cache_alloc, NULL);
	unregister_trace_kmalloc(sa_probe_kmalloc, NULL);
}

/*
 * Register all probes, or none: on failure the ones already registered
 * are removed again (the caller still has to wait for probes in flight).
 */
static inline int sa_compat_register(void)
{
	int ret;

	ret = register_trace_kmalloc(sa_probe_kmalloc, NULL);
	if (ret)
		return ret;
	ret = register_trace_kmem_cache_alloc(sa_probe_kmem_cache_alloc, NULL);
	if (ret)
		goto out_kmalloc;
	ret = register_trace_kfree(sa_probe_kfree, NULL);
	if (ret)
		goto out_cache_alloc;
	ret = register_trace_kmem_cache_free(sa_probe_kmem_cache_free, NULL);
	if (ret)
		goto out_kfree;
	return 0;

out_kfree:
	unregister_trace_kfree(sa_probe_kfree, NULL);
out_cache_alloc:
	unregister_trace_kmem_cache_alloc(sa_probe_kmem_cache_alloc, NULL);
out_kmalloc:
	unregister_trace_kmalloc(sa_probe_kmalloc, NULL);
	return ret;
}

#endif /* SLAB_ACCOUNT_COMPAT_H */
