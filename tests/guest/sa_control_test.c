// SPDX-License-Identifier: GPL-2.0
/*
 * Writes: reset, stop and start do what the README says; anything else
 * fails with EINVAL and changes nothing.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sa_lib.h"

static char *text_now(struct __test_metadata *_metadata)
{
	char *t = NULL;

	EXPECT_EQ(0, sa_read_file(SA_PROC, &t, NULL));
	return t;
}

TEST(bad_writes_are_einval_and_change_nothing)
{
	static const struct { const char *buf; size_t len; } bad[] = {
		{ "", 0 }, { "\n", 1 }, { "x", 1 }, { "Reset", 5 },
		{ "RESET", 5 }, { "reset\n\n", 7 }, { " reset", 6 },
		{ "reset ", 6 }, { "reset\r\n", 7 }, { "stop\0", 5 },
		{ "st\0op", 5 }, { "resetstop", 9 }, { "start\nstop", 10 },
		{ "rese", 4 }, { "0", 1 }, { "1", 1 }, { "clear", 5 },
		{ "\xff\xfe", 2 },
	};
	char *big = malloc(65536), *before, *after;

	ASSERT_NE(NULL, big);
	memset(big, 'r', 65536);
	/* Stopped, nothing moves: the whole file must stay the same. */
	ASSERT_EQ(0, sa_cmd("stop"));
	before = text_now(_metadata);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(EINVAL, sa_write(SA_PROC, bad[i].buf, bad[i].len))
			TH_LOG("write #%zu (%zu bytes)", i, bad[i].len);
	}
	EXPECT_EQ(EINVAL, sa_write(SA_PROC, big, 65536));
	memcpy(big, "reset", 5);
	EXPECT_EQ(EINVAL, sa_write(SA_PROC, big, 4096));
	after = text_now(_metadata);
	EXPECT_STREQ(before, after);
	free(before);
	free(after);

	/* Active: still EINVAL, still active. */
	ASSERT_EQ(0, sa_cmd("start"));
	EXPECT_EQ(EINVAL, sa_write(SA_PROC, "stopp", 5));
	after = text_now(_metadata);
	EXPECT_NE(NULL, strstr(after, "\nstate: active\n"));
	free(after);
	free(big);
}

TEST(stop_freezes_start_resumes)
{
	char err[256];
	struct sa_snap a, b;
	int fd;

	ASSERT_EQ(0, sa_cmd("stop\n"));
	ASSERT_EQ(0, sa_cmd("stop"));		/* idempotent */
	ASSERT_EQ(0, sa_snap_read(&a, err, sizeof(err))) TH_LOG("%s", err);
	/* Allocate: open files, a pipe. */
	for (int i = 0; i < 50; i++) {
		int p[2];

		ASSERT_EQ(0, pipe(p));
		close(p[0]);
		close(p[1]);
	}
	ASSERT_EQ(0, sa_snap_read(&b, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("stopped", a.state);
	EXPECT_STREQ(a.text, b.text);
	sa_snap_free(&a);
	sa_snap_free(&b);

	ASSERT_EQ(0, sa_cmd("start\n"));
	ASSERT_EQ(0, sa_cmd("start"));		/* idempotent */
	ASSERT_EQ(0, sa_snap_read(&a, err, sizeof(err))) TH_LOG("%s", err);
	for (int i = 0; i < 50; i++) {
		fd = open("/proc/self/status", O_RDONLY);
		ASSERT_LE(0, fd);
		close(fd);
	}
	ASSERT_EQ(0, sa_snap_read(&b, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("active", b.state);
	EXPECT_GT(sa_snap_key(&b, "number of allocs"),
		  sa_snap_key(&a, "number of allocs"));
	sa_snap_free(&a);
	sa_snap_free(&b);
}

TEST(reset_clears_cumulative_keeps_live)
{
	static const char * const zeroed[] = {
		"total bytes allocated", "total bytes requested",
		"slack bytes allocated", "number of allocs",
		"number of frees", "failed allocs", "unknown frees",
		"missed frees", "dropped objects", "dropped sites",
	};
	static const char * const kept[] = {
		"current bytes allocated", "current bytes requested",
		"current objects", "tracked objects",
	};
	char err[256];
	struct sa_snap a, b;

	ASSERT_EQ(0, sa_cmd("stop"));
	ASSERT_EQ(0, sa_snap_read(&a, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, sa_cmd("reset\n"));
	ASSERT_EQ(0, sa_snap_read(&b, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, sa_cmd("start"));

	EXPECT_GT(sa_snap_key(&a, "number of allocs"), 0);
	for (size_t i = 0; i < sizeof(zeroed) / sizeof(zeroed[0]); i++) {
		EXPECT_EQ(0, sa_snap_key(&b, zeroed[i])) TH_LOG("%s", zeroed[i]);
	}
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		EXPECT_EQ(sa_snap_key(&a, kept[i]), sa_snap_key(&b, kept[i]))
			TH_LOG("%s", kept[i]);
	}
	for (size_t i = 0; i < b.nrows; i++) {
		const struct sa_row *r = &b.rows[i];

		EXPECT_EQ(0, r->allocs);
		EXPECT_EQ(0, r->frees);
		EXPECT_EQ(0, r->total);
		EXPECT_EQ(0, r->req);
		EXPECT_GT(r->objs, 0);
		EXPECT_EQ(r->live, r->peak);
	}
	sa_snap_free(&a);
	sa_snap_free(&b);
}

SA_SELFTEST_MAIN(0)
