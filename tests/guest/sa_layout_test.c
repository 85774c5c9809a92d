// SPDX-License-Identifier: GPL-2.0
/*
 * struct kmem_cache's layout taken from a BTF that is not the running
 * kernel's: the module must refuse to load, say why, and not touch the
 * allocator (the console checks find any splat).  make check builds such
 * modules for kernels whose struct kmem_cache is private (badbtf/: the
 * offsets of the size and name shifted; badobj/: only the object size's);
 * elsewhere there is nothing to get wrong.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sa_lib.h"

FIXTURE(layout) {
	int unused;
};

FIXTURE_SETUP(layout)
{
}

FIXTURE_TEARDOWN(layout)
{
	if (!sa_module_loaded("slab_account"))
		sa_module_load("slab_account", NULL);
}

/* Does the kernel log hold @what? */
static int logged(const char *what)
{
	int n = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf;
	int found;

	if (n <= 0)
		return 0;
	buf = calloc(1, n + 1);
	if (!buf)
		return 0;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, n);
	found = n > 0 && strstr(buf, what);
	free(buf);
	return found;
}

TEST_F(layout, wrong_btf_is_refused)
{
	char ko[4096];

	snprintf(ko, sizeof(ko), "%s/badbtf/slab_account.ko", sa_ko_dir());
	if (access(ko, R_OK))
		SKIP(return, "no badbtf/slab_account.ko: struct kmem_cache is public here");
	if (sa_module_loaded("slab_account"))
		ASSERT_EQ(0, sa_module_unload("slab_account"));
	EXPECT_EQ(EINVAL, sa_module_load("badbtf/slab_account", NULL));
	EXPECT_FALSE(sa_module_loaded("slab_account"));
	EXPECT_TRUE(logged("is not this kernel's"));
	/* The right one still loads. */
	ASSERT_EQ(0, sa_module_load("slab_account", NULL));
}

TEST_F(layout, wrong_object_size_is_refused)
{
	char ko[4096];

	snprintf(ko, sizeof(ko), "%s/badobj/slab_account.ko", sa_ko_dir());
	if (access(ko, R_OK))
		SKIP(return, "no badobj/slab_account.ko: no object size offset from BTF here");
	if (sa_module_loaded("slab_account"))
		ASSERT_EQ(0, sa_module_unload("slab_account"));
	EXPECT_EQ(EINVAL, sa_module_load("badobj/slab_account", NULL));
	EXPECT_FALSE(sa_module_loaded("slab_account"));
	EXPECT_TRUE(logged("the object size at offset"));
	ASSERT_EQ(0, sa_module_load("slab_account", NULL));
}

SA_SELFTEST_MAIN(0)
