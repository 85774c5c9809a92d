// SPDX-License-Identifier: GPL-2.0
/*
 * struct kmem_cache's layout, checked at every load: one that is not the
 * running kernel's (a stale BTF) must make the module refuse to load, say
 * why, and not touch the allocator (the console checks find any splat);
 * one measured at load must be the kernel's.  make check builds modules
 * with shifted offsets (badbtf/: the size's and the name's; badobj/: the
 * object size's) where they come from BTF and on a few rows where
 * slub_def.h gives them, and says which offsets a measure must find where
 * they are measured and the headers have BTF (layout.btf).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sa_lib.h"

FIXTURE(layout) {
	int unused;
};

FIXTURE_SETUP(layout)
{
}

/*
 * Whatever a check left loaded on failing (a module built wrong on
 * purpose, sa_test), the suite goes on with the right one.
 */
FIXTURE_TEARDOWN(layout)
{
	if (sa_module_loaded("sa_test")) {
		sa_write(SA_TEST_PROC, "free", 4);
		sa_module_unload("sa_test");
	}
	if (sa_module_loaded("slab_account"))
		sa_module_unload("slab_account");
	sa_module_load("slab_account", NULL);
}

static int logged(const char *what)
{
	return sa_logged_times(what) > 0;
}

/*
 * The module in @dir/ is refused at load and logs @why; the right one then
 * loads again.
 */
static void refused(struct __test_metadata *_metadata, const char *dir,
		    const char *why)
{
	char mod[64];

	snprintf(mod, sizeof(mod), "%s/slab_account", dir);
	if (sa_module_loaded("slab_account"))
		ASSERT_EQ(0, sa_module_unload("slab_account"));
	EXPECT_EQ(EINVAL, sa_module_load(mod, NULL)) TH_LOG("%s", dir);
	EXPECT_FALSE(sa_module_loaded("slab_account"));
	EXPECT_TRUE(logged(why)) TH_LOG("%s: no '%s' logged", dir, why);
	ASSERT_EQ(0, sa_module_load("slab_account", NULL));
	ksft_print_msg("report: layout: %s/slab_account.ko refused: '%s'\n",
		       dir, why);
}

static int have(const char *file)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", sa_ko_dir(), file);
	return !access(path, R_OK);
}

/*
 * A module whose compile probe of kmem_cache_alloc_bulk's prototype
 * failed (SA_NO_PROTO makes it fail, as a broken probe would): the hook
 * checks the function's arguments at load with a call of its own, says
 * so, and counts sa_test's bulk allocations exactly (allocs, frees,
 * bytes, live), as with its prototype checked.
 */
static void noproto(struct __test_metadata *_metadata)
{
	static const char said[] =
		"whose prototype the build could not check: its arguments were checked at load with a call of our own";
	struct sa_truth t[64];
	const struct sa_row *r;
	int n, cpus = 0, count, found = 0, before = sa_logged_times(said);
	char err[256];
	struct sa_snap s;

	ASSERT_EQ(0, sa_module_unload("slab_account"));
	ASSERT_EQ(0, sa_module_load("noproto/slab_account", NULL));
	EXPECT_EQ(before + 1, sa_logged_times(said)) TH_LOG("not logged: %s", said);
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(1, sa_snap_key(&s, "hooked kmem_cache_alloc_bulk"));
	EXPECT_EQ(1, sa_snap_key(&s, "hooked kmem_cache_free_bulk"));
	EXPECT_EQ(1, sa_snap_key(&s, "hooked krealloc"));
	sa_snap_free(&s);
	ASSERT_EQ(0, sa_test_fresh());
	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "paths", 5));
	n = sa_truth_read(t, 64, &cpus);
	ASSERT_LT(0, n);
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	for (int i = 0; i < n; i++) {
		if (strcmp(t[i].func, "sa_test_alloc_bulk"))
			continue;
		found++;
		r = sa_snap_row(&s, t[i].func, &count);
		ASSERT_NE(NULL, r) TH_LOG("no row for sa_test_alloc_bulk");
		EXPECT_EQ(1, count);
		EXPECT_LT(0, t[i].allocs);
		EXPECT_EQ(t[i].allocs, r->allocs);
		EXPECT_EQ(t[i].frees, r->frees);
		EXPECT_EQ(t[i].objs, r->objs);
		EXPECT_EQ(t[i].req, r->req);
		EXPECT_EQ(t[i].live_req, r->live_req);
		if (!sa_slab_metadata()) {
			EXPECT_EQ(t[i].total, r->total);
			EXPECT_EQ(t[i].live, r->live);
		}
		ksft_print_msg("report: layout: a failed prototype probe: kmem_cache_alloc_bulk checked at load, sa_test_alloc_bulk allocs %llu/%llu frees %llu/%llu total %llu/%llu (module/books)\n",
			       r->allocs, t[i].allocs, r->frees, t[i].frees,
			       r->total, t[i].total);
	}
	EXPECT_EQ(1, found) TH_LOG("sa_test_alloc_bulk in sa_test's books");
	/* Others' bulk allocations while it checked are counted missed. */
	ksft_print_msg("report: layout: missed hook calls %llu\n",
		       sa_snap_key(&s, "missed hook calls"));
	sa_snap_free(&s);
	sa_write(SA_TEST_PROC, "free", 4);
	ASSERT_EQ(0, sa_module_unload("sa_test"));
	ASSERT_EQ(0, sa_module_unload("slab_account"));
	ASSERT_EQ(0, sa_module_load("slab_account", NULL));
}

/*
 * The same with the handler reading the arguments one place off
 * (SA_BULK_SKEW), as another prototype would give: the check at load
 * refuses the hook, the file says 'prototype', and sa_test's bulk
 * allocations are in no row, never counted as something else.
 */
static void badbulk(struct __test_metadata *_metadata)
{
	unsigned long long bulk = 0;
	struct sa_truth t[64];
	int n, cpus = 0;
	char err[256];
	struct sa_snap s;
	const char *why;

	ASSERT_EQ(0, sa_module_unload("slab_account"));
	ASSERT_EQ(0, sa_module_load("badbulk/slab_account", NULL));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(0, sa_snap_key(&s, "hooked kmem_cache_alloc_bulk"));
	why = sa_snap_text(&s, "unhooked kmem_cache_alloc_bulk");
	EXPECT_STREQ("prototype", why ? why : "(none)");
	EXPECT_EQ(1, sa_snap_key(&s, "hooked kmem_cache_free_bulk"));
	sa_snap_free(&s);
	ASSERT_EQ(0, sa_test_fresh());
	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "paths", 5));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(NULL, sa_snap_row(&s, "sa_test_alloc_bulk", &(int){0}));
	sa_snap_free(&s);
	/* ... while sa_test did allocate there. */
	n = sa_truth_read(t, 64, &cpus);
	for (int i = 0; i < n; i++)
		if (!strcmp(t[i].func, "sa_test_alloc_bulk"))
			bulk += t[i].allocs;
	EXPECT_LT(0, bulk);
	sa_write(SA_TEST_PROC, "free", 4);
	ASSERT_EQ(0, sa_module_unload("sa_test"));
	ASSERT_EQ(0, sa_module_unload("slab_account"));
	ASSERT_EQ(0, sa_module_load("slab_account", NULL));
	ksft_print_msg("report: layout: kmem_cache_alloc_bulk's arguments read one place off: refused by the check at load, the file says 'prototype'\n");
}

/*
 * Offsets built in (slub_def.h, a kernel tree, BTF): modules built with
 * them shifted (badbtf/: the size's and the name's; badobj/: the object
 * size's) are refused.  Offsets measured at load: where the kernel's BTF
 * is known (layout.btf, from the headers' vmlinux), the measure found
 * exactly its offsets, at every load.
 */
TEST_F(layout, checked_at_load)
{
	int checked = 0;

	if (have("badbtf/slab_account.ko")) {
		refused(_metadata, "badbtf", "is not this kernel's");
		checked++;
	}
	if (have("badobj/slab_account.ko")) {
		refused(_metadata, "badobj", "the object size at offset");
		checked++;
	}
	if (have("layout.btf")) {
		char path[4096], *btf, want[160];

		snprintf(path, sizeof(path), "%s/layout.btf", sa_ko_dir());
		ASSERT_EQ(0, sa_read_file(path, &btf, NULL));
		btf[strcspn(btf, "\n")] = '\0';
		snprintf(want, sizeof(want), "struct kmem_cache measured: %s\n",
			 btf);
		/* A fresh load, measured now. */
		ASSERT_EQ(0, sa_module_unload("slab_account"));
		ASSERT_EQ(0, sa_module_load("slab_account", NULL));
		/* Every measure logged since boot found the same. */
		EXPECT_LE(1, sa_logged_times(want)) TH_LOG("not logged: %s", want);
		EXPECT_EQ(sa_logged_times("struct kmem_cache measured: "),
			  sa_logged_times(want)) TH_LOG("another measure than %s", want);
		ksft_print_msg("report: layout: measured at load as BTF says: %s\n",
			       btf);
		free(btf);
		checked++;
	}
	if (have("noproto/slab_account.ko")) {
		noproto(_metadata);
		checked++;
	}
	if (have("badbulk/slab_account.ko")) {
		badbulk(_metadata);
		checked++;
	}
	if (!checked)
		SKIP(return, "nothing to check here (make check adds what a row has)");
}

SA_SELFTEST_MAIN(0)
