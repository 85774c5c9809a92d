// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF side of sa_bpf, the eBPF peer of slab_account in
 * the bench.  Raw tracepoints (raw_tp) on the kmem events kmalloc,
 * kmem_cache_alloc, kfree and kmem_cache_free of kernels 6.1 on, CO-RE
 * against the kernel's BTF.
 *
 * Raw tracepoints rather than classic ones: a classic tracepoint program
 * runs after the kernel has built the event's record (perf_trace_*: the
 * fields copied into a per-CPU buffer), a raw tracepoint program is called
 * with the tracepoint's arguments directly, so the peer pays only for its
 * own work.  kmem_cache_alloc's sizes are then read where the event takes
 * them from: bytes_req = s->object_size, bytes_alloc = s->size (CO-RE
 * reads).  The BTF-typed flavour (tp_btf), the same path, is refused by
 * 6.12's verifier for these events: their pointer argument is a
 * const void *, which it cannot type ("arg1 type UNKNOWN is not a struct").
 * The classic tracepoint programs (tp/kmem/...; sa_bpf --classic) are
 * here to measure that difference: they read the event's record, with
 * kmem_cache_alloc's bytes_req and bytes_alloc fields.
 *
 * sums mode: per call site (the event's call_site) allocs, bytes
 * allocated and requested, and frees counted at the site of the free.
 * pointers mode (track_ptrs): also a hash of live pointers, so that a free
 * is charged to the site that allocated the pointer, with live objects
 * and bytes per site (BCC memleak's design).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "sa_bpf.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Set by the loader before load: the verifier drops the unused branch
 * (volatile: libbpf's read-only data, which the compiler must not fold).
 */
const volatile bool track_ptrs;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, SA_BPF_MAX_SITES);
	__type(key, __u64);
	__type(value, struct sa_bpf_site);
} sites SEC(".maps");

/* Resized to 1 entry by the loader in sums mode. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SA_BPF_MAX_PTRS);
	__type(key, __u64);
	__type(value, struct sa_bpf_ptr);
} ptrs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SA_BPF_NR_LOSSES);
	__type(key, __u32);
	__type(value, __u64);
} losses SEC(".maps");

static __always_inline void lose(__u32 what)
{
	__u64 *n = bpf_map_lookup_elem(&losses, &what);

	if (n)
		*n += 1;
}

/* This CPU's value of a call site, created on its first event. */
static __always_inline struct sa_bpf_site *site_of(__u64 site)
{
	static const struct sa_bpf_site zero;
	struct sa_bpf_site *s;

	s = bpf_map_lookup_elem(&sites, &site);
	if (s)
		return s;
	/* -EEXIST: another CPU created it meanwhile (then this CPU's is 0). */
	bpf_map_update_elem(&sites, &site, &zero, BPF_NOEXIST);
	s = bpf_map_lookup_elem(&sites, &site);
	if (!s)
		lose(SA_BPF_DROPPED_SITES);
	return s;
}

/* The free of a live pointer, charged to the site that allocated it. */
static __always_inline void charge_free(const struct sa_bpf_ptr *p)
{
	struct sa_bpf_site *s = bpf_map_lookup_elem(&sites, &p->site);

	/* Its site got a slot when the pointer was stored: only a site
	 * created on another CPU first is missing on this one.
	 */
	if (!s)
		s = site_of(p->site);
	if (!s)
		return;
	s->frees += 1;
	s->live -= 1;
	s->live_bytes -= p->bytes_alloc;
}

static __always_inline void on_alloc(__u64 call_site, const void *ptr,
				     __u64 bytes_req, __u64 bytes_alloc)
{
	struct sa_bpf_site *s;
	__u64 key = (__u64)ptr;

	if (!ptr) {
		lose(SA_BPF_FAILED_ALLOCS);
		return;
	}
	s = site_of(call_site);
	if (!s)
		return;
	if (track_ptrs) {
		struct sa_bpf_ptr *old = bpf_map_lookup_elem(&ptrs, &key);
		struct sa_bpf_ptr p = {
			.site = call_site,
			.bytes_alloc = bytes_alloc,
		};

		if (old) {
			/* Its free was not reported: freed by its site now. */
			lose(SA_BPF_MISSED_FREES);
			charge_free(old);
			old->site = call_site;
			old->bytes_alloc = bytes_alloc;
		} else if (bpf_map_update_elem(&ptrs, &key, &p, BPF_NOEXIST)) {
			lose(SA_BPF_DROPPED_PTRS);
			return;
		}
		s->live += 1;
		s->live_bytes += bytes_alloc;
	}
	s->allocs += 1;
	s->bytes_alloc += bytes_alloc;
	s->bytes_req += bytes_req;
}

static __always_inline void on_free(__u64 call_site, const void *ptr)
{
	struct sa_bpf_site *s;
	__u64 key = (__u64)ptr;

	/* kfree(NULL) and kfree(ZERO_SIZE_PTR) report an event too. */
	if (key <= 16)
		return;
	if (track_ptrs) {
		struct sa_bpf_ptr *p = bpf_map_lookup_elem(&ptrs, &key);

		if (!p) {
			lose(SA_BPF_UNKNOWN_FREES);
			return;
		}
		charge_free(p);
		bpf_map_delete_elem(&ptrs, &key);
		return;
	}
	s = site_of(call_site);
	if (s)
		s->frees += 1;
}

SEC("raw_tp/kmalloc")
int BPF_PROG(sa_kmalloc, unsigned long call_site, const void *ptr,
	     size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags, int node)
{
	on_alloc(call_site, ptr, bytes_req, bytes_alloc);
	return 0;
}

SEC("raw_tp/kmem_cache_alloc")
int BPF_PROG(sa_kmem_cache_alloc, unsigned long call_site, const void *ptr,
	     struct kmem_cache *s, gfp_t gfp_flags, int node)
{
	on_alloc(call_site, ptr, BPF_CORE_READ(s, object_size),
		 BPF_CORE_READ(s, size));
	return 0;
}

SEC("raw_tp/kfree")
int BPF_PROG(sa_kfree, unsigned long call_site, const void *ptr)
{
	on_free(call_site, ptr);
	return 0;
}

SEC("raw_tp/kmem_cache_free")
int BPF_PROG(sa_kmem_cache_free, unsigned long call_site, const void *ptr,
	     const struct kmem_cache *s)
{
	on_free(call_site, ptr);
	return 0;
}

/* The same on the classic tracepoints: the event's record. */
SEC("tp/kmem/kmalloc")
int sa_tp_kmalloc(struct trace_event_raw_kmalloc *ctx)
{
	on_alloc(ctx->call_site, ctx->ptr, ctx->bytes_req, ctx->bytes_alloc);
	return 0;
}

SEC("tp/kmem/kmem_cache_alloc")
int sa_tp_kmem_cache_alloc(struct trace_event_raw_kmem_cache_alloc *ctx)
{
	on_alloc(ctx->call_site, ctx->ptr, ctx->bytes_req, ctx->bytes_alloc);
	return 0;
}

SEC("tp/kmem/kfree")
int sa_tp_kfree(struct trace_event_raw_kfree *ctx)
{
	on_free(ctx->call_site, ctx->ptr);
	return 0;
}

SEC("tp/kmem/kmem_cache_free")
int sa_tp_kmem_cache_free(struct trace_event_raw_kmem_cache_free *ctx)
{
	on_free(ctx->call_site, ctx->ptr);
	return 0;
}
