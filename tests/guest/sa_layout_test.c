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

/*
 * The module in @dir/ is refused at load and logs @why; the right one then
 * loads again.  Where make check built none (@absent says why), a skip.
 */
static void refused(struct __test_metadata *_metadata, const char *dir,
		    const char *why, const char *absent)
{
	char ko[4096], mod[64];

	snprintf(ko, sizeof(ko), "%s/%s/slab_account.ko", sa_ko_dir(), dir);
	if (access(ko, R_OK))
		SKIP(return, "no %s/slab_account.ko: %s", dir, absent);
	snprintf(mod, sizeof(mod), "%s/slab_account", dir);
	if (sa_module_loaded("slab_account"))
		ASSERT_EQ(0, sa_module_unload("slab_account"));
	EXPECT_EQ(EINVAL, sa_module_load(mod, NULL));
	EXPECT_FALSE(sa_module_loaded("slab_account"));
	EXPECT_TRUE(logged(why));
	ASSERT_EQ(0, sa_module_load("slab_account", NULL));
}

TEST_F(layout, wrong_btf_is_refused)
{
	refused(_metadata, "badbtf", "is not this kernel's",
		"struct kmem_cache is public here");
}

TEST_F(layout, wrong_object_size_is_refused)
{
	refused(_metadata, "badobj", "the object size at offset",
		"no object size offset from BTF here");
}

SA_SELFTEST_MAIN(0)
