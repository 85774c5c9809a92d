/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_account: what differs between 64-bit and 32-bit kernels, for the
 * core's inline code (sa_core.h): per-CPU counters that another CPU reads
 * whole (the global event counters, the sites' counters), the module's
 * clock from 64-bit jiffies, the multiplicative hash, and how many keys
 * fill a 64-byte bucket.
 */
#ifndef SLAB_ACCOUNT_ARCH_H
#define SLAB_ACCOUNT_ARCH_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/types.h>
#include <asm/local64.h>

/*
 * A per-CPU counter, written by its CPU with one operation and summed by
 * readers on any CPU.  64-bit: a u64 this_cpu operation (one instruction
 * on x86_64).  32-bit: a u64 is two words, which another CPU may read
 * between the writes of a carry (a byte counter passes 4 GiB in minutes):
 * an atomic64_t, read and written whole (ldrexd/strexd on ARMv7, no lock;
 * Kbuild refuses kernels whose atomic64 takes one, GENERIC_ATOMIC64),
 * at the writer's CPU's slot (were the writer moved to another CPU
 * meanwhile, the atomic add would still count once, at that slot).
 */
#if BITS_PER_LONG == 64
#define sa_count_t		u64
#define sa_count_inc(pcp)	this_cpu_inc(pcp)

static __always_inline u64 sa_count_read(const sa_count_t *c)
{
	return READ_ONCE(*c);
}
#else
#define sa_count_t		atomic64_t
#define sa_count_inc(pcp)	atomic64_inc(raw_cpu_ptr(&(pcp)))

static __always_inline u64 sa_count_read(const sa_count_t *c)
{
	return atomic64_read(c);
}
#endif

/*
 * A site's counter in its CPU's array (sa_core.h, sa_cpu_ctrs), written
 * through a pointer by that CPU with one operation safe against the
 * interrupts and NMIs that may count on it meanwhile, read whole by any
 * CPU: local64_t.  64-bit: a local_t, on x86_64 one add to memory without
 * a lock prefix (what this_cpu_add() was), elsewhere an atomic add without
 * a barrier; 32-bit: an atomic64_t, as sa_count_t.
 */
#define sa_ctr_t		local64_t
#define sa_ctr_add(p, v)	local64_add(v, p)
#define sa_ctr_sub(p, v)	local64_sub(v, p)
#define sa_ctr_inc(p)		local64_inc(p)
#define sa_ctr_dec(p)		local64_dec(p)
#define sa_ctr_xchg(p, v)	local64_xchg(p, v)

static __always_inline u64 sa_ctr_read(sa_ctr_t *c)
{
	return local64_read(c);
}

/*
 * jiffies in 64 bits.  A 32-bit kernel's jiffies wraps 5 minutes after
 * boot (INITIAL_JIFFIES): jiffies_64 is read under its seqcount there,
 * except in NMI context, where the writer may be the code interrupted.
 */
#if BITS_PER_LONG == 64
static __always_inline u64 sa_jiffies(void)
{
	return READ_ONCE(jiffies);
}
#else
u64 sa_jiffies_nmi(void);

static __always_inline u64 sa_jiffies(void)
{
	if (unlikely(in_nmi()))
		return sa_jiffies_nmi();
	return get_jiffies_64();
}
#endif

/*
 * A multiplicative hash as hash_64() (hash_32() on 32-bit), of the
 * product's bits from SA_HASH_SHIFT up: a fixed shift and a mask, not a
 * shift by a variable, which on x86 would tie up %cl, where the probes
 * receive an argument.
 */
#if BITS_PER_LONG == 64
#define SA_HASH_SHIFT	40

static __always_inline unsigned long sa_hash(unsigned long key,
					     unsigned long mask)
{
	return ((u64)key * GOLDEN_RATIO_64 >> SA_HASH_SHIFT) & mask;
}
#else
#define SA_HASH_SHIFT	8

static __always_inline unsigned long sa_hash(unsigned long key,
					     unsigned long mask)
{
	return (key * GOLDEN_RATIO_32 >> SA_HASH_SHIFT) & mask;
}
#endif
#define SA_HASH_BITS	(BITS_PER_LONG - SA_HASH_SHIFT)

/* Keys per object bucket: they and its spill count fill 64 bytes. */
#define SA_BUCKET_BYTES	64
#define SA_BUCKET_KEYS	((int)(SA_BUCKET_BYTES / sizeof(long)) - 1)

#endif /* SLAB_ACCOUNT_ARCH_H */
