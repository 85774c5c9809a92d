// SPDX-License-Identifier: GPL-2.0
/*
 * Faults and bad input: absurd module parameters, a table allocation that
 * cannot succeed, tables exhausted on purpose, and /proc writes of random
 * bytes, over-long, split and concurrent writes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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

/*
 * The README: max_objects > 2^26 or max_sites > 2^20 -> EINVAL; a value
 * beyond the kernel's unsigned long (a 32-bit kernel, whose word the test
 * programs share) -> ERANGE, from the kernel's parsing of the parameter.
 */
TEST_F(unloaded, absurd_params_einval)
{
	static const struct {
		const char *params;
		int wide;	/* beyond 32 bits */
	} bad[] = {
		{ "max_objects=4294967296000", 1 }, { "max_sites=99999999", 0 },
		{ "max_objects=67108865", 0 }, { "max_sites=1048577", 0 },
		{ "max_objects=18446744073709551615", 1 },
		{ "max_objects=64 max_sites=4294967295", 0 },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int want = bad[i].wide && sizeof(long) == 4 ? ERANGE : EINVAL;

		EXPECT_EQ(want, sa_module_load("slab_account", bad[i].params))
			TH_LOG("%s", bad[i].params);
		EXPECT_TRUE(gone()) TH_LOG("left behind after %s", bad[i].params);
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
 * max_objects=2^26 is allowed but needs 2.75 GiB of tables (1.3 GiB on a
 * 32-bit kernel): in a guest with less memory the allocation fails, insmod
 * says ENOMEM, nothing is left and (checked by the boot's console scan)
 * nothing warns.  A 32-bit kernel refuses it before, with EINVAL: more than
 * a quarter of its vmalloc space.
 */
TEST_F(unloaded, table_allocation_failure)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	int err;

	err = sa_module_load("slab_account", "max_objects=67108864");
	if (sizeof(long) == 4) {
		EXPECT_EQ(EINVAL, err);
	} else if ((double)pages * psz < 2.0e9) {
		EXPECT_EQ(ENOMEM, err);
	} else if (!err) {
		EXPECT_EQ(0, sa_module_unload("slab_account"));
	}
	EXPECT_TRUE(gone());
	ksft_print_msg("report: fault: max_objects=67108864 with %ld MiB of RAM: %s\n",
		       pages * psz >> 20, err ? strerror(err) : "loaded");
}

#define FAILSLAB "/sys/kernel/debug/failslab"
/* Console markers, known to scripts/check-boot.sh. */
#define SA_FAILNTH_BEGIN "sa_fault_test: fail-nth begin"
#define SA_FAILNTH_END "sa_fault_test: fail-nth end"

/* Read a small debugfs/proc value into @buf (NUL-terminated, no '\n'). */
static int read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Count this module's init error messages in /dev/kmsg after @fd's mark. */
static void count_init_errors(int fd, unsigned long *tables,
			      unsigned long *proc, unsigned long *probes)
{
	char rec[2048];
	ssize_t n;

	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		rec[n] = '\0';
		if (strstr(rec, "slab_account: cannot allocate"))
			(*tables)++;
		else if (strstr(rec, "slab_account: cannot create /proc"))
			(*proc)++;
		else if (strstr(rec, "slab_account: cannot register kmem"))
			(*probes)++;
	}
}

/*
 * Every slab allocation of an insmod failed in turn, where the kernel
 * has fault injection (CONFIG_FAULT_INJECTION, CONFIG_FAILSLAB: the debug
 * kernel; Debian's kernels have neither): /proc/thread-self/fail-nth = N
 * fails the Nth allocation of the finit_module() call, for N = 1, 2, ...
 * until the call no longer reaches N.  Every failed load must leave
 * nothing behind; the module's messages show which of its own error
 * paths ran (tables, /proc, probe registration and its rollback).
 * Allocation-failure warnings of the kernel's own code are expected.
 * KASAN, lockdep and kmemleak watch the rollbacks on the debug kernel.
 * SA_REQUIRE_FAILSLAB=1 makes a kernel without fault injection a failure.
 * Since the kretprobes (64 instances each, one allocation apiece on 6.1)
 * an insmod makes over 500 allocations there, most of them survived: a
 * load and an unload each, about 0.55 s on the debug kernel.
 */
TEST_F_TIMEOUT(unloaded, init_fails_at_every_allocation, SA_TEST_TIMEOUT)
{
	const char *req = getenv("SA_REQUIRE_FAILSLAB");
	static const char * const knobs[] = {
		FAILSLAB "/ignore-gfp-wait", FAILSLAB "/verbose",
	};
	static const char * const set[] = { "N", "0" };
	char old[2][32], path[4096], nth[32];
	unsigned long n, failed = 0, loaded_anyway = 0;
	unsigned long tables = 0, proc = 0, probes = 0, errs[3] = { 0 };
	int kmsg, fnfd, done = 0;
	pid_t writer;

	if (access("/sys/kernel/debug/failslab", F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (access("/proc/thread-self/fail-nth", F_OK) ||
	    access(FAILSLAB, F_OK)) {
		ASSERT_FALSE(req && !strcmp(req, "1"))
			TH_LOG("SA_REQUIRE_FAILSLAB=1 but no fail-nth/failslab");
		ksft_print_msg("report: fault: no fault injection in this kernel (fail-nth, failslab): init failures are covered by max_objects=2^26 only\n");
		return;
	}
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, read_small(knobs[i], old[i], sizeof(old[i])));
		ASSERT_EQ(0, sa_write(knobs[i], set[i], strlen(set[i])));
	}
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, kmsg);
	lseek(kmsg, 0, SEEK_END);
	/*
	 * The kernel's own allocations in finit_module() warn when they
	 * fail (warn_alloc: a stack dump); check-boot.sh accepts those
	 * between these two lines, and nothing else.
	 */
	sa_write("/dev/kmsg", SA_FAILNTH_BEGIN, strlen(SA_FAILNTH_BEGIN));
	snprintf(path, sizeof(path), "%s/slab_account.ko", sa_ko_dir());

	/*
	 * A root writer races every load with writes: the file must not
	 * exist before the module is whole, nor after a failed init (probes
	 * on freed tables; the console checks).  Mostly "reset", a "stop"
	 * and a "start" now and then: each of those waits for grace periods,
	 * which under KASAN would stretch the loop past its time.
	 */
	writer = fork();
	ASSERT_LE(0, writer);
	if (!writer) {
		/* Gone with the test, whichever way it ends. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (unsigned int i = 0; ; i++) {
			const char *cmd = i % 64 == 31 ? "stop" :
					  i % 64 == 63 ? "start" : "reset";
			int w = open(SA_PROC, O_WRONLY);

			if (w >= 0) {
				if (write(w, cmd, strlen(cmd)) < 0)
					usleep(100);
				close(w);
			}
			usleep(500);
		}
	}
	fnfd = open("/proc/thread-self/fail-nth", O_RDWR);
	ASSERT_LE(0, fnfd);
	for (n = 1; n < 5000 && !done; n++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0, left;
		ssize_t len;

		ASSERT_LE(0, fd);
		len = snprintf(nth, sizeof(nth), "%lu", n);
		ASSERT_EQ(len, pwrite(fnfd, nth, len, 0));
		if (syscall(SYS_finit_module, fd, "", 0))
			err = errno;
		len = pread(fnfd, nth, sizeof(nth) - 1, 0);
		ASSERT_LT(0, len);
		nth[len] = '\0';
		left = atoi(nth);
		ASSERT_EQ(1, pwrite(fnfd, "0", 1, 0));
		close(fd);
		if (!err) {
			/* Loaded: the call did not reach N, or survived it. */
			if (left)
				done = 1;
			else
				loaded_anyway++;
			ASSERT_TRUE(sa_module_loaded("slab_account"));
			ASSERT_EQ(0, access(SA_PROC, R_OK));
			ASSERT_EQ(0, sa_module_unload("slab_account"));
			continue;
		}
		failed++;
		errs[err == ENOMEM ? 0 : err == EFAULT ? 1 : 2]++;
		ASSERT_EQ(0, left) TH_LOG("N=%lu failed (%s) without an injected fault",
					  n, strerror(err));
		ASSERT_TRUE(gone()) TH_LOG("left behind after failing allocation %lu (%s)",
					   n, strerror(err));
	}
	close(fnfd);
	kill(writer, SIGKILL);
	waitpid(writer, NULL, 0);
	sa_write("/dev/kmsg", SA_FAILNTH_END, strlen(SA_FAILNTH_END));
	for (int i = 0; i < 2; i++)
		sa_write(knobs[i], old[i], strlen(old[i]));
	count_init_errors(kmsg, &tables, &proc, &probes);
	close(kmsg);
	ASSERT_TRUE(done) TH_LOG("still failing after %lu allocations", n);

	ksft_print_msg("report: fault: insmod with each of its %lu slab allocations failed in turn: %lu failed cleanly (ENOMEM %lu, EFAULT %lu, other %lu), %lu loaded anyway; slab_account's init error paths: tables %lu, /proc %lu, probes %lu\n",
		       n - 2, failed, errs[0], errs[1], errs[2],
		       loaded_anyway, tables, proc, probes);
	/*
	 * Its allocations are reached on every run; which N hits which one
	 * shifts when debug code (debugobjects refilling its pool, say)
	 * allocates now and then, so the /proc failure can be skipped.
	 */
	EXPECT_LE(1, tables);
	EXPECT_LE(1, probes);
	/* And it still works: a load that counts. */
	ASSERT_EQ(0, sa_module_load("slab_account", NULL));
	ASSERT_EQ(0, access(SA_PROC, R_OK));
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
/* MemTotal in MiB, or 0. */
static unsigned long long mem_total_mib(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb / 1024;
}

/* The slots of a table for @objs objects: buckets of 7 keys (15). */
static unsigned long long table_slots(unsigned long long objs)
{
	unsigned long long keys = sizeof(long) == 8 ? 7 : 15, b = 1;

	while (b < (objs + keys - 1) / keys)
		b <<= 1;
	return (b < 4 ? 4 : b) * keys;
}

/*
 * 1.4: the max_objects the header advises when objects were dropped: room
 * for twice the objects tracked and dropped, at least twice the slots,
 * at most one per KiB of MemTotal (a power of two, 8192 to 2^26: the
 * automatic size's ceiling); 0 (no advice) when that gives no larger
 * table (module/sa_objects.c).
 */
static unsigned long long advised(unsigned long long want,
				  unsigned long long slots)
{
	unsigned long long n = 2 * (want > slots ? want : slots), p = 1;
	unsigned long long limit = mem_total_mib() * 1024, l = 1;

	if (limit < 8192)
		limit = 8192;
	if (limit > 1ULL << 26)
		limit = 1ULL << 26;
	while (l * 2 <= limit)
		l <<= 1;
	while (p < n)
		p <<= 1;
	if (p > l)
		p = l;
	return table_slots(p) > slots ? p : 0;
}

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
	if (sa_snap_key(&s, "dropped objects")) {
		unsigned long long want = advised(sa_snap_key(&s, "tracked objects") +
						  sa_snap_key(&s, "dropped objects"),
						  sa_snap_key(&s, "object capacity"));

		int has = sa_snap_has_key(&s, "advised max_objects");
		unsigned long long got = has ?
			sa_snap_key(&s, "advised max_objects") : 0;

		EXPECT_EQ(want != 0, has) TH_LOG("%s", phase);
		EXPECT_EQ(want, got) TH_LOG("%s", phase);
		/* Never beyond the automatic size's ceiling for this RAM. */
		EXPECT_GE(mem_total_mib() * 1024 < 8192 ? 8192 :
			  mem_total_mib() * 1024, got);
		ksft_print_msg("report: fault: %s: %llu tracked, %llu dropped: advised max_objects=%llu\n",
			       phase, sa_snap_key(&s, "tracked objects"),
			       sa_snap_key(&s, "dropped objects"), got);
	} else {
		EXPECT_FALSE(sa_snap_has_key(&s, "advised max_objects"))
			TH_LOG("%s", phase);
	}
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

static void exhaust(struct __test_metadata *_metadata, const char *params)
{
	static int fds[2 * 400];
	struct sa_truth t[32];
	int n, nt, cpus, count;
	char err[256];
	struct sa_snap s;

	ASSERT_EQ(0, sa_module_load("slab_account", params));
	ASSERT_EQ(0, sa_test_fresh());
	n = hold_pipes(fds, 400);
	ASSERT_EQ(400, n);
	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "run", 3));
	nt = sa_truth_read(t, 32, &cpus);
	ASSERT_LT(0, nt);
	/*
	 * Both tables tiny: which sites take the 16 entries decides whether
	 * the object table fills too (the tests of one tiny table each say
	 * that each fills).
	 */
	if (strstr(params, "max_objects") && strstr(params, "max_sites")) {
		EXPECT_LT(0, sa_key_now("dropped objects") +
			  sa_key_now("dropped sites"));
	} else if (strstr(params, "max_objects")) {
		EXPECT_LT(0, sa_key_now("dropped objects"));
	} else if (strstr(params, "max_sites")) {
		EXPECT_LT(0, sa_key_now("dropped sites"));
	}
	check_tables(_metadata, params, t, nt, 1);

	/* Every tracked object's free is found: rows go back to zero. */
	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "free", 4));
	close_pipes(fds, n);
	nt = sa_truth_read(t, 32, &cpus);
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

/*
 * Each accepted stop or start (re)registers the probes: up to a second
 * on the debug kernel (docs/testing.md), more than TEST()'s 30 s in all.
 */
FIXTURE(writes) {
};

FIXTURE_SETUP(writes)
{
}

FIXTURE_TEARDOWN(writes)
{
}

TEST_F_TIMEOUT(writes, random_writes, SA_TEST_TIMEOUT)
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
