// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: where struct kmem_cache keeps its sizes and name.
 *
 * Part of the compat layer.  SLUB only: Kbuild refuses SLAB and SLOB
 * kernels, whose structure is another.  The offsets come from Kbuild
 * (sa_kmem_cache.h says from where), or, where it found none (a kernel of
 * 6.8 on, whose structure is private, without BTF or a kernel tree), are
 * measured here at load.  Either way they are checked here at load on
 * caches made for the purpose, of known sizes, alignments and names,
 * read with fault-safe reads, before any probe: offsets of another build
 * of the kernel (a stale BTF), or a measure that is not unambiguous, make
 * the load fail with a message saying what to do.
 *
 * Where slub_def.h is public (up to 6.7), the offsets Kbuild had the
 * compiler print are also checked at compile time against it; that
 * header ends with inline helpers that dereference struct slab, which only
 * mm/slab.h defines: this file, and only this file, gives those unused
 * helpers a minimal struct slab so that the header compiles.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

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

#ifdef SA_KC_FROM_SLUB_DEF
static_assert(offsetof(struct kmem_cache, size) == SA_KC_SIZE_OFF);
static_assert(offsetof(struct kmem_cache, object_size) == SA_KC_OBJSIZE_OFF);
static_assert(offsetof(struct kmem_cache, name) == SA_KC_NAME_OFF);
static_assert(sizeof(((struct kmem_cache *)0)->size) == sizeof(unsigned int));
static_assert(sizeof(((struct kmem_cache *)0)->object_size) ==
	      sizeof(unsigned int));
#endif
#endif /* SA_HAVE_SLUB_DEF */

#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "sa_kmem_cache.h"

/* Where the offsets come from, for the messages. */
#if defined(SA_KC_MEASURE)
#define SA_KC_SOURCE	"measured at load"
unsigned int sa_kc_size_off, sa_kc_objsize_off, sa_kc_name_off;
#elif defined(SA_KC_FROM_SLUB_DEF)
#define SA_KC_SOURCE	"slub_def.h"
#elif defined(SA_KC_FROM_TREE)
#define SA_KC_SOURCE	"the kernel tree's mm/slab.h"
#elif defined(SA_KC_FROM_BTF)
#define SA_KC_SOURCE	"BTF"
#else
#define SA_KC_SOURCE	"given by hand"
#endif

/*
 * The caches made to check (or find) the layout: odd object sizes (SLUB
 * rounds inuse and the free pointer's offset to a word, 4 bytes on 32-bit
 * kernels: no other field holds them) and alignments above them, so that
 * the handed-out size (a multiple of the alignment, at least the object
 * size) is the only such field; a constructor keeps each from being
 * merged.
 */
static const struct {
	const char *name;
	unsigned int size, align;
} sa_kc_probes[] = {
	{ "slab_account_layout_a", 197, 64 },
	{ "slab_account_layout_b", 1005, 128 },
	{ "slab_account_layout_c", 2997, 256 },
};

#define SA_KC_NPROBES	ARRAY_SIZE(sa_kc_probes)
/* What metadata a debugging slab may add to an object, at most. */
#define SA_KC_META	8192
/* The bytes of a struct kmem_cache looked at, at most. */
#define SA_KC_SCAN	1024

static void sa_kc_ctor(void *obj)
{
}

/* A probe cache and a copy of its first bytes, where fields are sought. */
struct sa_kc_copy {
	struct kmem_cache *c;
	unsigned int len;
	u8 bytes[SA_KC_SCAN];
};

static u32 sa_kc_u32(const struct sa_kc_copy *k, unsigned int off)
{
	u32 v;

	memcpy(&v, k->bytes + off, sizeof(v));
	return v;
}

/* Does the field at @off hold the size handed out for probe @i? */
static bool sa_kc_is_size(const struct sa_kc_copy *k, unsigned int off,
			  unsigned int i)
{
	u32 v = sa_kc_u32(k, off);

	return v >= sa_kc_probes[i].size &&
	       v <= sa_kc_probes[i].size + SA_KC_META &&
	       !(v % sa_kc_probes[i].align);
}

static bool sa_kc_is_objsize(const struct sa_kc_copy *k, unsigned int off,
			     unsigned int i)
{
	return sa_kc_u32(k, off) == sa_kc_probes[i].size;
}

/*
 * Does the pointer at @off point to the name of probe @i?  The name is
 * ours or a copy the slab made (kmalloc'd: in the linear map); no other
 * word is followed, which could be anything (a random canary, a device's
 * registers).  Read a byte at a time, fault-safe, up to the first that
 * differs (never past the end of a shorter string).  Not when it is the
 * name of the kobject SLUB embeds for sysfs, which may hold a copy of it:
 * a kobject in a kset is its parent's child.
 */
static bool sa_kc_is_name(const struct sa_kc_copy *k, unsigned int off,
			  unsigned int i)
{
	const char *want = sa_kc_probes[i].name, *name;
	const struct kobject *ko;
	unsigned int n;
	char ch;

	memcpy(&name, k->bytes + off, sizeof(name));
	if (!name || (name != want && !virt_addr_valid(name)))
		return false;
	for (n = 0; ; n++) {
		if (copy_from_kernel_nofault(&ch, name + n, 1) ||
		    ch != want[n])
			return false;
		if (!ch)
			break;
	}
	if (off < offsetof(struct kobject, name) ||
	    off - offsetof(struct kobject, name) + sizeof(*ko) > k->len)
		return true;
	ko = (const void *)(k->bytes + off - offsetof(struct kobject, name));
	return !(ko->kset && ko->parent == &ko->kset->kobj);
}

#ifdef SA_KC_MEASURE
/* Offsets where @is holds for every probe cache: how many, the first. */
static unsigned int sa_kc_find(const struct sa_kc_copy *k, unsigned int step,
			       unsigned int width,
			       bool (*is)(const struct sa_kc_copy *,
					  unsigned int, unsigned int),
			       unsigned int skip, unsigned int *found)
{
	unsigned int len = k[0].len, off, i, n = 0;

	for (i = 1; i < SA_KC_NPROBES; i++)
		len = min(len, k[i].len);
	for (off = 0; off + width <= len; off += step) {
		if (off == skip)
			continue;
		for (i = 0; i < SA_KC_NPROBES; i++)
			if (!is(&k[i], off, i))
				break;
		if (i == SA_KC_NPROBES && !n++)
			*found = off;
	}
	return n;
}

/* Find the three offsets; each must be the only one that fits. */
static int sa_kc_measure(const struct sa_kc_copy *k)
{
	unsigned int nobj, nsize, nname, obj = 0, size = 0, name = 0;

	nobj = sa_kc_find(k, sizeof(u32), sizeof(u32), sa_kc_is_objsize,
			  UINT_MAX, &obj);
	nsize = sa_kc_find(k, sizeof(u32), sizeof(u32), sa_kc_is_size, obj,
			   &size);
	nname = sa_kc_find(k, sizeof(void *), sizeof(void *), sa_kc_is_name,
			   UINT_MAX, &name);
	if (nobj != 1 || nsize != 1 || nname != 1) {
		pr_err("struct kmem_cache: no unambiguous layout (fields that fit: object size %u, size %u, name %u)\n",
		       nobj, nsize, nname);
		return -EINVAL;
	}
	sa_kc_size_off = size;
	sa_kc_objsize_off = obj;
	sa_kc_name_off = name;
	pr_info("struct kmem_cache measured: size at %u, object_size at %u, name at %u\n",
		size, obj, name);
	return 0;
}
#endif

/*
 * Copy the first bytes of probe cache @k's structure, as far as the
 * checks may look: its allocation (ksize()), at most SA_KC_SCAN, and
 * with known offsets no further than the name and, with sysfs, a
 * kobject's bytes after it (the checks read no more; the list and the
 * kobject that follow the name in the structure cover them).
 *
 * ksize() is the size of the slab object, which may pass the structure's
 * end (object_size): the cache of caches aligns its objects to cache
 * lines.  From 6.2 ksize() no longer unpoisons that tail for KASAN, and
 * under tag-based KASAN (arm64; newer kernels make only generic KASAN's
 * ksize() stop at object_size) it carries another tag than the
 * structure: a memcpy() there would be a tag-mismatch report, a panic
 * with kasan.fault=panic.  So the copy goes a word at a time through
 * copy_from_kernel_nofault(), whose hardware tag faults are fixed up
 * into an error, and stops at the first word it cannot read; with
 * offsets known it never reaches the tail.  Measured offsets (no layout
 * known) are sought in whatever was read: where copy_from_kernel_nofault()
 * checks its range with KASAN first (newer kernels), a measure under
 * software tag-based KASAN may still report the tail; offsets from BTF
 * or the tree avoid it.
 */
static void sa_kc_copy_of(struct sa_kc_copy *k)
{
	size_t want = min_t(size_t, ksize(k->c), SA_KC_SCAN);
	const char *src = (const char *)k->c;
	unsigned int n;

#ifndef SA_KC_MEASURE
	/* The name and the kobject after it, and the two sizes wherever. */
	want = min_t(size_t, want,
		     max_t(size_t, SA_KC_NAME_AT +
			   (IS_ENABLED(CONFIG_SYSFS) ? sizeof(struct kobject) :
						       sizeof(void *)),
			   max_t(size_t, SA_KC_SIZE_AT, SA_KC_OBJSIZE_AT) +
			   sizeof(unsigned int)));
#endif
	for (n = 0; n + sizeof(long) <= want; n += sizeof(long))
		if (copy_from_kernel_nofault(k->bytes + n, src + n,
					     sizeof(long)))
			break;
	k->len = n;
}

/* The offsets in use must read every probe cache right. */
static int sa_kc_verify(const struct sa_kc_copy *k)
{
	const unsigned int size = SA_KC_SIZE_AT, obj = SA_KC_OBJSIZE_AT;
	const unsigned int name = SA_KC_NAME_AT;
	unsigned int i;

	for (i = 0; i < SA_KC_NPROBES; i++) {
		if (obj + sizeof(u32) > k[i].len ||
		    !sa_kc_is_objsize(&k[i], obj, i)) {
			pr_err("struct kmem_cache: the object size at offset %u does not read %u\n",
			       obj, sa_kc_probes[i].size);
			return -EINVAL;
		}
		if (size + sizeof(u32) > k[i].len ||
		    !sa_kc_is_size(&k[i], size, i)) {
			pr_err("struct kmem_cache: the size at offset %u does not read the size of %u-byte objects aligned to %u\n",
			       size, sa_kc_probes[i].size,
			       sa_kc_probes[i].align);
			return -EINVAL;
		}
		if (name + sizeof(void *) > k[i].len ||
		    !sa_kc_is_name(&k[i], name, i)) {
			pr_err("struct kmem_cache: the name at offset %u is not the cache's name\n",
			       name);
			return -EINVAL;
		}
	}
	return 0;
}

int sa_kmem_cache_check(void)
{
	struct sa_kc_copy *k;
	unsigned int i;
	int ret = 0;

	k = kcalloc(SA_KC_NPROBES, sizeof(*k), GFP_KERNEL);
	if (!k)
		return -ENOMEM;
	for (i = 0; i < SA_KC_NPROBES; i++) {
		k[i].c = kmem_cache_create(sa_kc_probes[i].name,
					   sa_kc_probes[i].size,
					   sa_kc_probes[i].align, 0, sa_kc_ctor);
		if (!k[i].c) {
			ret = -ENOMEM;
			goto out;
		}
		sa_kc_copy_of(&k[i]);
	}
#ifdef SA_KC_MEASURE
	ret = sa_kc_measure(k);
	if (!ret)
		ret = sa_kc_verify(k);
	if (ret == -EINVAL)
		pr_err("build slab_account with this kernel's BTF (SA_BTF=<a copy of its /sys/kernel/btf/vmlinux>, pahole installed) or against its build tree (KDIR=<the tree, with mm/slab.h>)\n");
#else
	ret = sa_kc_verify(k);
	if (ret == -EINVAL)
		pr_err("the layout of struct kmem_cache this module was built with (%s) is not this kernel's: build it against this kernel (for BTF: SA_BTF=/sys/kernel/btf/vmlinux of this machine)\n",
		       SA_KC_SOURCE);
#endif
out:
	for (i = 0; i < SA_KC_NPROBES; i++)
		kmem_cache_destroy(k[i].c);
	kfree(k);
	return ret;
}
