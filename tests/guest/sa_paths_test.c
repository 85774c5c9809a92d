// SPDX-License-Identifier: GPL-2.0
/*
 * Paths the kmem tracepoints may not report, found out on the running
 * kernel: kfree_rcu's batched frees (sa_test.ko's "paths").  The figures
 * are printed (the README lists them per kernel); the test asserts that
 * whatever the kernel reports is accounted consistently: the row moves by
 * exactly what was reported, nothing is counted twice or invented.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sa_lib.h"

static void report(const char *what, const struct sa_row *r)
{
	ksft_print_msg("%-22s allocs %llu frees %llu live objs %llu\n", what,
		       r ? r->allocs : 0, r ? r->frees : 0, r ? r->objs : 0);
}

/*
 * Objects whose free was not reported stay live in their rows (an earlier
 * run of this test leaves some): across a reset, a row's objs must move by
 * exactly allocs - frees.
 */
TEST(kfree_rcu)
{
	const struct sa_row *before, *after;
	struct sa_snap a, b;
	char err[256];
	int n;

	ASSERT_EQ(0, sa_test_fresh());
	ASSERT_EQ(0, sa_snap_read(&a, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, sa_cmd("reset"));
	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "paths", 5));
	ASSERT_EQ(0, sa_snap_read(&b, err, sizeof(err))) TH_LOG("%s", err);
	before = sa_snap_row(&a, "sa_test_alloc_rcu", &n);
	after = sa_snap_row(&b, "sa_test_alloc_rcu", &n);
	report("kmalloc + kfree_rcu", after);
	ASSERT_NE(NULL, after);		/* kmalloc is always reported */
	EXPECT_EQ(1, n);
	EXPECT_EQ(4, after->allocs);
	EXPECT_LE(after->frees, 4);
	EXPECT_EQ((before ? before->objs : 0) + after->allocs - after->frees,
		  after->objs);
	ksft_print_msg("kfree_rcu: %llu of 4 frees reported\n", after->frees);

	sa_snap_free(&a);
	sa_snap_free(&b);
	sa_module_unload("sa_test");
}

SA_SELFTEST_MAIN(1)
