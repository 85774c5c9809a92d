/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_account: the kmem tracepoint probes of each era, included twice by
 * sa_tracepoints.c (no include guard): with SA_TP_PE false and
 * SA_TP_PROBE(event) naming sa_probe_<event>, then with SA_TP_PE true
 * and the names sa_probe_<event>_pe, the build that turns preemption
 * off around each event.
 */

#if defined(SA_TP_CACHE_ALLOC_ARG) && !defined(SA_TP_NODE_EVENTS)

static void SA_TP_PROBE(kmalloc)(void *data, unsigned long call_site,
				 const void *ptr, size_t bytes_req,
				 size_t bytes_alloc, gfp_t gfp_flags,
				 int node)
{
	sa_tp_alloc(SA_TP_PE, call_site, ptr, bytes_req, bytes_alloc, NULL);
}

static void SA_TP_PROBE(kmem_cache_alloc)(void *data,
					  unsigned long call_site,
					  const void *ptr,
					  struct kmem_cache *s,
					  gfp_t gfp_flags, int node)
{
	sa_tp_alloc(SA_TP_PE, call_site, ptr, sa_cache_object_size(s),
		    sa_cache_size(s), s);
}

static void SA_TP_PROBE(kmem_cache_free)(void *data,
					 unsigned long call_site,
					 const void *ptr,
					 const struct kmem_cache *s)
{
	sa_tp_free(SA_TP_PE, call_site, ptr);
}

#elif defined(SA_TP_NODE_EVENTS) && !defined(SA_TP_CACHE_ALLOC_ARG)

static void SA_TP_PROBE(kmalloc)(void *data, unsigned long call_site,
				 const void *ptr, size_t bytes_req,
				 size_t bytes_alloc, gfp_t gfp_flags)
{
	sa_tp_alloc(SA_TP_PE, call_site, ptr, bytes_req, bytes_alloc, NULL);
}

static void SA_TP_PROBE(kmem_cache_alloc)(void *data,
					  unsigned long call_site,
					  const void *ptr, size_t bytes_req,
					  size_t bytes_alloc,
					  gfp_t gfp_flags)
{
	sa_tp_alloc(SA_TP_PE, call_site, ptr, bytes_req, bytes_alloc,
		    SA_CACHE_UNKNOWN);
}

static void SA_TP_PROBE(kmalloc_node)(void *data, unsigned long call_site,
				      const void *ptr, size_t bytes_req,
				      size_t bytes_alloc, gfp_t gfp_flags,
				      int node)
{
	sa_tp_alloc(SA_TP_PE, call_site, ptr, bytes_req, bytes_alloc, NULL);
}

static void SA_TP_PROBE(kmem_cache_alloc_node)(void *data,
					       unsigned long call_site,
					       const void *ptr,
					       size_t bytes_req,
					       size_t bytes_alloc,
					       gfp_t gfp_flags, int node)
{
	sa_tp_alloc(SA_TP_PE, call_site, ptr, bytes_req, bytes_alloc,
		    SA_CACHE_UNKNOWN);
}

#ifdef SA_TP_FREE_NAME_ARG
static void SA_TP_PROBE(kmem_cache_free)(void *data,
					 unsigned long call_site,
					 const void *ptr, const char *name)
{
	sa_tp_free(SA_TP_PE, call_site, ptr);
}
#else
static void SA_TP_PROBE(kmem_cache_free)(void *data,
					 unsigned long call_site,
					 const void *ptr)
{
	sa_tp_free(SA_TP_PE, call_site, ptr);
}
#endif

#else
#error "slab_account: this kernel's kmem tracepoint era is not supported"
#endif

static void SA_TP_PROBE(kfree)(void *data, unsigned long call_site,
			       const void *ptr)
{
	sa_tp_free(SA_TP_PE, call_site, ptr);
}
