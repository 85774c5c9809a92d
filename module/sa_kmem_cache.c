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
 *  - it is private (6.8 on): Kbuild reads the offsets of its size, name
 *    and object size from the kernel's BTF with pahole (SA_KC_SIZE_OFF,
 *    SA_KC_NAME_OFF, SA_KC_OBJSIZE_OFF); without the last, the object size
 *    comes from kmem_cache_size().
 *
 * The rest of the module never sees these definitions: it reads the two
 * sizes at the offsets Kbuild found (inline, sa_kmem_cache.h), checked
 * here at compile time against the public structure, or through this file
 * where Kbuild found no object size offset; the name always through it.
 * Offsets taken from a BTF are checked at load on a cache of known size
 * and name (sa_kmem_cache_check()): a BTF of another build of the kernel
 * must not make the probes read garbage.
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

#ifdef SA_KC_SIZES_INLINE
/* The offsets Kbuild had the compiler print for the inline accessors. */
static_assert(offsetof(struct kmem_cache, size) == SA_KC_SIZE_OFF);
static_assert(offsetof(struct kmem_cache, object_size) == SA_KC_OBJSIZE_OFF);
static_assert(sizeof(((struct kmem_cache *)0)->size) == sizeof(unsigned int));
static_assert(sizeof(((struct kmem_cache *)0)->object_size) ==
	      sizeof(unsigned int));
#else
unsigned int sa_cache_size(const struct kmem_cache *s)
{
	return s->size;
}

unsigned int sa_cache_object_size(const struct kmem_cache *s)
{
	return s->object_size;
}
#endif

const char *sa_cache_name(const struct kmem_cache *s)
{
	return s->name;
}

/* The structure is the kernel's own: nothing to check. */
int sa_kmem_cache_check(void)
{
	return 0;
}

#elif defined(SA_KC_SIZE_OFF)

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "sa_kmem_cache.h"

#ifndef SA_KC_SIZES_INLINE
unsigned int sa_cache_size(const struct kmem_cache *s)
{
	return *(const unsigned int *)((const char *)s + SA_KC_SIZE_OFF);
}

unsigned int sa_cache_object_size(const struct kmem_cache *s)
{
	return kmem_cache_size((struct kmem_cache *)s);
}
#endif

const char *sa_cache_name(const struct kmem_cache *s)
{
#ifdef SA_KC_NAME_OFF
	return *(const char * const *)((const char *)s + SA_KC_NAME_OFF);
#else
	return "";
#endif
}

#define SA_CHECK_NAME	"slab_account_layout"
#define SA_CHECK_SIZE	196

static void sa_check_ctor(void *obj)
{
}

int sa_kmem_cache_check(void)
{
	/* A constructor keeps the cache from being merged with another. */
	struct kmem_cache *c = kmem_cache_create(SA_CHECK_NAME, SA_CHECK_SIZE,
						 0, 0, sa_check_ctor);
	unsigned int size = 0, object_size = 0;
	const char *name = NULL;
	char buf[sizeof(SA_CHECK_NAME) + 1] = "";
	int ret = 0;

	if (!c)
		return -ENOMEM;
	if (copy_from_kernel_nofault(&size, (char *)c + SA_KC_SIZE_OFF,
				     sizeof(size)) ||
	    size < SA_CHECK_SIZE || size > SA_CHECK_SIZE + PAGE_SIZE) {
		pr_err("struct kmem_cache: the size at offset %d reads %u for a cache of %u-byte objects\n",
		       SA_KC_SIZE_OFF, size, SA_CHECK_SIZE);
		ret = -EINVAL;
	}
#ifdef SA_KC_OBJSIZE_OFF
	if (!ret &&
	    (copy_from_kernel_nofault(&object_size,
				      (char *)c + SA_KC_OBJSIZE_OFF,
				      sizeof(object_size)) ||
	     object_size != SA_CHECK_SIZE)) {
		pr_err("struct kmem_cache: the object size at offset %d reads %u for a cache of %u-byte objects\n",
		       SA_KC_OBJSIZE_OFF, object_size, SA_CHECK_SIZE);
		ret = -EINVAL;
	}
#endif
#ifdef SA_KC_NAME_OFF
	if (!ret &&
	    (copy_from_kernel_nofault(&name, (char *)c + SA_KC_NAME_OFF,
				      sizeof(name)) ||
	     copy_from_kernel_nofault(buf, name, sizeof(SA_CHECK_NAME)) ||
	     strcmp(buf, SA_CHECK_NAME))) {
		pr_err("struct kmem_cache: the name at offset %d is not the cache's name\n",
		       SA_KC_NAME_OFF);
		ret = -EINVAL;
	}
#endif
	if (ret)
		pr_err("the BTF this module was built with (SA_BTF) is not this kernel's: build it again with SA_BTF=/sys/kernel/btf/vmlinux of this machine\n");
	kmem_cache_destroy(c);
	return ret;
}

#else
/* Install pahole (dwarves); give the BTF: SA_BTF=<vmlinux or a copy of /sys/kernel/btf/vmlinux> */
#error "slab_account: struct kmem_cache is private and its layout unknown"
#endif
