// SPDX-License-Identifier: GPL-2.0
/*
 * Faults and bad input: absurd module parameters, a table allocation that
 * cannot succeed, tables exhausted on purpose, and /proc writes of random
 * bytes, over-long, split and concurrent writes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sa_lib.h"

static int gone(void)
{
	return access(SA_PROC, F_OK) && !sa_module_loaded("slab_account");
}

FIXTURE(unloaded) {
	int unused;
};

FIXTURE_SETUP(unloaded)
{
	ASSERT_EQ(0, sa_module_unload("slab_account"));
}

FIXTURE_TEARDOWN(unloaded)
{
	if (!sa_module_loaded("slab_account"))
		sa_module_load("slab_account", NULL);
}

/* The README: max_objects > 2^26 or max_sites > 2^20 -> EINVAL. */
TEST_F(unloaded, absurd_params_einval)
{
	static const char * const bad[] = {
		"max_objects=4294967296000", "max_sites=99999999",
		"max_objects=67108865", "max_sites=1048577",
		"max_objects=18446744073709551615",
		"max_objects=64 max_sites=4294967295",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(EINVAL, sa_module_load("slab_account", bad[i]))
			TH_LOG("%s", bad[i]);
		EXPECT_TRUE(gone()) TH_LOG("left behind after %s", bad[i]);
	}
	ksft_print_msg("report: fault: %zu absurd parameter sets: EINVAL, nothing left\n",
		       sizeof(bad) / sizeof(bad[0]));
}

/* Values that are not numbers fail in the kernel's parameter parsing. */
TEST_F(unloaded, unparsable_params_fail)
{
	static const char * const bad[] = {
		"max_objects=-1", "max_objects=abc", "max_sites=",
		"max_objects=18446744073709551616", "max_sites=1e9",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = sa_module_load("slab_account", bad[i]);

		EXPECT_TRUE(err == EINVAL || err == ERANGE)
			TH_LOG("%s: %s", bad[i], strerror(err));
		EXPECT_TRUE(gone()) TH_LOG("left behind after %s", bad[i]);
	}
}

/*
 * max_objects=2^26 is allowed but needs over 1 GiB of tables: in a guest
 * with less memory the allocation fails, insmod says ENOMEM, nothing is
 * left and (checked by the boot's console scan) nothing warns.
 */
TEST_F(unloaded, table_allocation_failure)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	int err;

	err = sa_module_load("slab_account", "max_objects=67108864");
	if ((double)pages * psz < 1.0e9) {
		EXPECT_EQ(ENOMEM, err);
	} else if (!err) {
		EXPECT_EQ(0, sa_module_unload("slab_account"));
	}
	EXPECT_TRUE(gone());
	ksft_print_msg("report: fault: max_objects=67108864 with %ld MiB of RAM: %s\n",
		       pages * psz >> 20, err ? strerror(err) : "loaded");
}

/* Hold @n pipes open (2n descriptors); returns how many were opened. */
static int hold_pipes(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (pipe(fds + 2 * i))
			break;
	return i;
}

static void close_pipes(int *fds, int n)
{
	for (int i = 0; i < 2 * n; i++)
		close(fds[i]);
}

/*
 * Every row must balance (no reset since the load) and, while stopped,
 * the objects in rows must be the objects in the table.
 */
static void check_tables(struct __test_metadata *_metadata,
			 const char *phase, struct sa_truth *t, int nt,
			 int balanced)
{
	unsigned long long objs = 0;
	char err[256];
	struct sa_snap s;
	int count;

	ASSERT_EQ(0, sa_cmd("stop"));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	for (size_t i = 0; i < s.nrows; i++) {
		if (balanced) {
			EXPECT_EQ(s.rows[i].allocs - s.rows[i].frees,
				  s.rows[i].objs)
				TH_LOG("%s: %s", phase, s.rows[i].caller);
		}
		objs += s.rows[i].objs;
	}
	EXPECT_EQ(sa_snap_key(&s, "current objects"), objs);
	EXPECT_EQ(sa_snap_key(&s, "tracked objects"),
		  sa_snap_key(&s, "current objects")) TH_LOG("%s", phase);
	EXPECT_GE(sa_snap_key(&s, "object capacity"),
		  sa_snap_key(&s, "tracked objects"));
	EXPECT_GE(sa_snap_key(&s, "call site capacity"),
		  sa_snap_key(&s, "call sites"));
	for (int i = 0; i < nt; i++) {
		const struct sa_row *r = sa_snap_row(&s, t[i].func, &count);

		if (!r)
			continue;
		/* What was tracked of sa_test's objects, never more. */
		EXPECT_GE(t[i].allocs, r->allocs) TH_LOG("%s", t[i].func);
		EXPECT_GE(t[i].frees, r->frees) TH_LOG("%s", t[i].func);
		EXPECT_GE(t[i].total, r->total) TH_LOG("%s", t[i].func);
		EXPECT_GE(t[i].live, r->live) TH_LOG("%s", t[i].func);
	}
	ksft_print_msg("report: fault: %s: capacity %llu objects / %llu sites, tracked %llu, sites %llu, dropped objects %llu, dropped sites %llu, rows %zu\n",
		       phase, sa_snap_key(&s, "object capacity"),
		       sa_snap_key(&s, "call site capacity"),
		       sa_snap_key(&s, "tracked objects"),
		       sa_snap_key(&s, "call sites"),
		       sa_snap_key(&s, "dropped objects"),
		       sa_snap_key(&s, "dropped sites"), s.nrows);
	sa_snap_free(&s);
	ASSERT_EQ(0, sa_cmd("start"));
}

static unsigned long long key_now(const char *key)
{
	unsigned long long v;
	char err[256];
	struct sa_snap s;

	if (sa_snap_read(&s, err, sizeof(err)))
		return ~0ULL;
	v = sa_snap_key(&s, key);
	sa_snap_free(&s);
	return v;
}

static void exhaust(struct __test_metadata *_metadata, const char *params)
{
	static int fds[2 * 400];
	struct sa_truth t[16];
	int n, nt, cpus, count;
	char err[256];
	struct sa_snap s;

	ASSERT_EQ(0, sa_module_load("slab_account", params));
	ASSERT_EQ(0, sa_test_fresh());
	n = hold_pipes(fds, 400);
	ASSERT_EQ(400, n);
	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "run", 3));
	nt = sa_truth_read(t, 16, &cpus);
	ASSERT_LT(0, nt);
	if (strstr(params, "max_objects"))
		EXPECT_LT(0, key_now("dropped objects"));
	if (strstr(params, "max_sites"))
		EXPECT_LT(0, key_now("dropped sites"));
	check_tables(_metadata, params, t, nt, 1);

	/* Every tracked object's free is found: rows go back to zero. */
	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "free", 4));
	close_pipes(fds, n);
	nt = sa_truth_read(t, 16, &cpus);
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	for (int i = 0; i < nt; i++) {
		const struct sa_row *r = sa_snap_row(&s, t[i].func, &count);

		if (!r)
			continue;
		EXPECT_EQ(0, r->objs) TH_LOG("%s", t[i].func);
		EXPECT_EQ(0, r->live) TH_LOG("%s", t[i].func);
		EXPECT_EQ(r->allocs, r->frees) TH_LOG("%s", t[i].func);
	}
	sa_snap_free(&s);
	check_tables(_metadata, "after freeing", t, nt, 1);
	sa_module_unload("sa_test");
	ASSERT_EQ(0, sa_module_unload("slab_account"));
}

TEST_F(unloaded, tiny_object_table)
{
	exhaust(_metadata, "max_objects=64");
}

TEST_F(unloaded, tiny_site_table)
{
	exhaust(_metadata, "max_sites=16");
}

TEST_F(unloaded, tiny_tables)
{
	exhaust(_metadata, "max_objects=64 max_sites=16");
}

/* What a write must return: 0 for a command, else EINVAL. */
static int expected(const char *b, size_t n)
{
	static const char * const ok[] = { "reset", "stop", "start" };

	if (n && b[n - 1] == '\n')
		n--;
	for (size_t i = 0; i < 3; i++)
		if (n == strlen(ok[i]) && !memcmp(b, ok[i], n))
			return 0;
	return EINVAL;
}

static int state_active(void)
{
	char *t;
	int a;

	if (sa_read_file(SA_PROC, &t, NULL))
		return -1;
	a = !!strstr(t, "\nstate: active\n");
	free(t);
	return a;
}

TEST(random_writes)
{
	static const char * const cmds[] = { "reset", "stop", "start" };
	unsigned int seed = 4242, tried = 0, accepted = 0;
	int active = 1;
	char buf[4096];

	ASSERT_EQ(0, sa_cmd("start"));
	for (int i = 0; i < 3000; i++) {
		size_t n;
		int want, got;

		if (i % 3 == 0) {
			/* A command with one byte changed, cut or added. */
			const char *c = cmds[rand_r(&seed) % 3];

			n = strlen(c);
			memcpy(buf, c, n);
			switch (rand_r(&seed) % 4) {
			case 0: buf[rand_r(&seed) % n] = rand_r(&seed); break;
			case 1: n--; break;
			case 2: buf[n++] = "\n\r \0x"[rand_r(&seed) % 5]; break;
			}
		} else {
			n = 1 + rand_r(&seed) % (i % 7 ? 12 : sizeof(buf));
			for (size_t j = 0; j < n; j++)
				buf[j] = rand_r(&seed);
		}
		want = expected(buf, n);
		got = sa_write(SA_PROC, buf, n);
		ASSERT_EQ(want, got) TH_LOG("write #%d of %zu bytes", i, n);
		tried++;
		if (!got) {
			accepted++;
			if (buf[0] == 's')
				active = buf[2] == 'a';
		}
		if (i % 100 == 0)
			ASSERT_EQ(active, state_active()) TH_LOG("after #%d", i);
	}
	ASSERT_EQ(active, state_active());
	ASSERT_EQ(0, sa_cmd("start"));
	ksft_print_msg("report: fault: %u random writes (1..4096 bytes, mutated commands), %u accepted, every result as documented\n",
		       tried, accepted);
}

/* One write() is one command: split writes and iovecs are not. */
TEST(split_writes)
{
	struct iovec iov[2] = { { "st", 2 }, { "op", 2 } };
	int fd = open(SA_PROC, O_WRONLY);
	void *volatile unmapped = (void *)8;

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, write(fd, "sto", 3));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(fd, "p", 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, writev(fd, iov, 2));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(fd, unmapped, 4));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, pwrite(fd, "stop", 4, 1000));
	EXPECT_EQ(0, errno == EINVAL || errno == ESPIPE ? 0 : errno);
	EXPECT_EQ(1, state_active());
	close(fd);
}

/* Writers racing: every write succeeds or fails exactly as documented. */
TEST(concurrent_writers)
{
	pid_t pids[4];
	int st, fails = 0;

	for (int w = 0; w < 4; w++) {
		pids[w] = fork();
		if (!pids[w]) {
			static const char * const c[] = {
				"reset", "stop", "start", "start\n", "bogus",
				"stop\n\n",
			};
			unsigned int seed = w + 1;

			for (int i = 0; i < 150; i++) {
				const char *b = c[rand_r(&seed) % 6];

				if (sa_cmd(b) != expected(b, strlen(b)))
					_exit(1);
			}
			_exit(0);
		}
		ASSERT_LT(0, pids[w]);
	}
	for (int w = 0; w < 4; w++) {
		ASSERT_EQ(pids[w], waitpid(pids[w], &st, 0));
		fails += !WIFEXITED(st) || WEXITSTATUS(st);
	}
	EXPECT_EQ(0, fails);
	ASSERT_EQ(0, sa_cmd("start"));
	EXPECT_EQ(1, state_active());
	check_tables(_metadata, "after 600 concurrent writes", NULL, 0, 0);
}

SA_SELFTEST_MAIN(1)
