// SPDX-License-Identifier: GPL-2.0
/*
 * Unloading slab_account while objects it tracks are live, loading it
 * again, and freeing those objects afterwards.
 */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sa_lib.h"

/* Objects sa_test still holds after "run" (tests/kmod/sa_test.c). */
#define SAT_LIVE_AFTER_RUN 16

FIXTURE(reload) {
	int unused;
};

FIXTURE_SETUP(reload)
{
	ASSERT_EQ(0, sa_test_fresh());
}

FIXTURE_TEARDOWN(reload)
{
	sa_write(SA_TEST_PROC, "free", 4);
	sa_module_unload("sa_test");
	/* Whatever happened, leave slab_account loaded for the next test. */
	if (!sa_module_loaded("slab_account"))
		sa_module_load("slab_account", NULL);
}

TEST_F(reload, rmmod_with_live_objects_then_free)
{
	struct sa_truth t[32];
	unsigned long long unknown;
	char err[256];
	struct sa_snap s;
	int cpus, live = 0, n;

	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "run", 3));
	n = sa_truth_read(t, 32, &cpus);
	ASSERT_LT(0, n);
	for (int i = 0; i < n; i++)
		live += t[i].objs;
	ASSERT_EQ(SAT_LIVE_AFTER_RUN, live);

	ASSERT_EQ(0, sa_module_unload("slab_account"));
	ASSERT_NE(0, access(SA_PROC, F_OK));
	ASSERT_EQ(0, sa_module_load("slab_account", NULL));

	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	unknown = sa_snap_key(&s, "unknown frees");
	sa_snap_free(&s);

	/* The new instance never saw them: their frees are unknown frees. */
	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "free", 4));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_GE(sa_snap_key(&s, "unknown frees"), unknown + SAT_LIVE_AFTER_RUN);
	for (int i = 0; i < n; i++) {
		int count;

		EXPECT_EQ(NULL, sa_snap_row(&s, t[i].func, &count))
			TH_LOG("row for %s", t[i].func);
	}
	sa_snap_free(&s);
}

/* Load and unload in a loop while the system allocates. */
TEST_F(reload, cycles)
{
	char err[256];
	struct sa_snap s;

	for (int i = 0; i < 20; i++) {
		int p[2];

		ASSERT_EQ(0, sa_module_unload("slab_account")) TH_LOG("cycle %d", i);
		ASSERT_EQ(0, pipe(p));
		ASSERT_EQ(0, sa_module_load("slab_account", NULL)) TH_LOG("cycle %d", i);
		close(p[0]);
		close(p[1]);
	}
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("active", s.state);
	sa_snap_free(&s);
}

SA_SELFTEST_MAIN(1)
