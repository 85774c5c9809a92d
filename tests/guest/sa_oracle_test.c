// SPDX-License-Identifier: GPL-2.0
/*
 * Agreement with an independent oracle: ftrace.
 *
 * A private ftrace instance records the same kmem events slab_account
 * hooks (kmalloc, kmem_cache_alloc, kfree, kmem_cache_free, and the
 * *_node events where they exist) into its own ring buffer over the same
 * window: slab_account is loaded fresh and tracing switched on right
 * after; at the end slab_account is stopped and tracing switched off
 * right after.  In the window sa_test runs its pattern and frees part of
 * it, and a busy workload runs on two CPUs (files on tmpfs, pipes, unix
 * sockets, fork/exit), then RCU callbacks are given time to run.  The trace is then aggregated per call site with
 * the module's semantics (a free is charged to the site that allocated
 * the pointer; an allocation of a pointer still live counts a free of the
 * old object) and compared with /proc/slab_account:
 *   - sa_test's call sites: every figure equal;
 *   - every site with >= 100 allocations: allocs and frees within 1%;
 *   - the totals (allocs, frees, bytes allocated and requested): 0.5%.
 * The same recording, saved as text on /tmp, is imported by the reader
 * (`slabacct --from-trace FILE --csv`): every figure of every site must
 * equal this test's own account of it (sa_ktrace.c: they read the same
 * events), and its rows agree with the module's file as above (the
 * program is skipped where /usr/bin/slabacct is absent).
 * The figures are printed.  The instance is removed afterwards, so the
 * test does not disturb other users of ftrace on a board.  slab_account
 * is loaded with hooks=0 here: ftrace sees the tracepoints only, and the
 * paths beyond them are checked against sa_test's books (sa_paths_test).
 *
 * SA_ORACLE_ITERS (default 600) sets the workload's loop count per CPU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/membarrier.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sa_ktrace.h"
#include "sa_lib.h"

#define INSTANCE	"sa_oracle"
#define NR_EVENTS	KT_NR_EVENTS
#define kmem_events	kt_events
/* The recording as text, for the reader's import (tmpfs). */
#define TRACE_COPY	"/tmp/sa_oracle_trace.txt"
#define SLABACCT	"/usr/bin/slabacct"

static char trace_root[64];

static void inst_path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/instances/" INSTANCE "%s%s", trace_root,
		 *rel ? "/" : "", rel);
}

static int inst_write(const char *rel, const char *val)
{
	char p[256];

	inst_path(p, sizeof(p), rel);
	return sa_write(p, val, strlen(val));
}

static int inst_exists(const char *rel)
{
	char p[256];

	inst_path(p, sizeof(p), rel);
	return !access(p, F_OK);
}

/* --- the busy workload --- */

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int churn(int cpu, int iters)
{
	char name[64], buf[256];
	int fd, p[2], sv[2];
	struct stat st;

	pin(cpu);
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < iters; i++) {
		snprintf(name, sizeof(name), "/tmp/sa_oracle.%d.%d", cpu, i);
		fd = open(name, O_CREAT | O_RDWR | O_TRUNC, 0600);
		if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf) ||
		    fstat(fd, &st) || close(fd) || stat(name, &st) ||
		    unlink(name))
			return 1;
		if (mkdir(name, 0700) || rmdir(name))
			return 1;
		if (pipe(p) || write(p[1], buf, 64) != 64 ||
		    read(p[0], buf, 64) != 64 || close(p[0]) || close(p[1]))
			return 1;
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) ||
		    send(sv[0], buf, 100, 0) != 100 ||
		    recv(sv[1], buf, 100, 0) != 100 ||
		    close(sv[0]) || close(sv[1]))
			return 1;
		if (i % 4 == 0) {
			pid_t pid = fork();
			int status;

			if (pid < 0)
				return 1;
			if (!pid)
				_exit(0);
			if (waitpid(pid, &status, 0) != pid ||
			    !WIFEXITED(status))
				return 1;
		}
	}
	return 0;
}

static int workload(int iters)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1, failed = 0;
	pid_t pids[2];

	for (int c = 0; c < ncpu; c++) {
		pids[c] = fork();
		if (pids[c] < 0)
			return -1;
		if (!pids[c])
			_exit(churn(c, iters));
	}
	for (int c = 0; c < ncpu; c++) {
		int status;

		if (waitpid(pids[c], &status, 0) != pids[c] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	}
	return failed ? -1 : 0;
}

/*
 * Let the workload's deferred frees (files, inodes, creds and tasks are
 * freed by RCU callbacks) happen inside the window: otherwise they run
 * during the grace period that "stop" waits for, where ftrace still
 * records and slab_account no longer does.  MEMBARRIER_CMD_GLOBAL waits
 * for a grace period; the sleep lets the callbacks run.
 */
static void quiesce(void)
{
	for (int i = 0; i < 3; i++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0);
		nanosleep(&ts, NULL);
	}
}

/* --- the test --- */

/* Sum of "KEY N" over the instance's per-CPU stats files. */
static unsigned long long per_cpu_stat(const char *key)
{
	char dir[256];

	inst_path(dir, sizeof(dir), "");
	return sa_trace_stat_sum(dir, key);
}

static int close_enough(unsigned long long a, unsigned long long b,
			double pct)
{
	unsigned long long d = a > b ? a - b : b - a;
	unsigned long long m = a > b ? a : b;

	return d * 100.0 <= pct * m;
}

static double dev_pct(unsigned long long a, unsigned long long b)
{
	unsigned long long m = a > b ? a : b;

	return m ? 100.0 * (a > b ? a - b : b - a) / m : 0.0;
}

FIXTURE(oracle) {
	int hashed;
	int nenabled;
};

FIXTURE_SETUP(oracle)
{
	char p[256];
	char kb[32];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	inst_path(p, sizeof(p), "");
	if (!access(p, F_OK))
		ASSERT_EQ(0, rmdir(p)) TH_LOG("stale %s: %s", p, strerror(errno));
	ASSERT_EQ(0, mkdir(p, 0700)) TH_LOG("mkdir %s: %s", p, strerror(errno));

	/* 64 MiB of ring buffer in all, at least 8 MiB per CPU. */
	snprintf(kb, sizeof(kb), "%ld", ncpu > 8 ? 8192 : 65536 / (ncpu ?: 1));
	ASSERT_EQ(0, inst_write("buffer_size_kb", kb));
	ASSERT_EQ(0, inst_write("tracing_on", "0"));
	/* One clock for all CPUs: frees on another CPU sort after allocs. */
	ASSERT_EQ(0, inst_write("trace_clock", "global"));
	/* Full buffer: drop new events and count them, keep the old ones. */
	ASSERT_EQ(0, inst_write("options/overwrite", "0"));
	/* Real pointers (5.12 on); hashed %p values are 32 bits. */
	self->hashed = !inst_exists("options/hash-ptr") ||
		       inst_write("options/hash-ptr", "0");
	for (int k = 0; k < NR_EVENTS; k++) {
		char rel[96];

		snprintf(rel, sizeof(rel), "events/kmem/%s/enable",
			 kmem_events[k]);
		if (!inst_exists(rel))
			continue;
		ASSERT_EQ(0, inst_write(rel, "1")) TH_LOG("%s", rel);
		self->nenabled++;
	}
	ASSERT_LE(4, self->nenabled);
	ASSERT_EQ(0, sa_test_fresh());
}

FIXTURE_TEARDOWN(oracle)
{
	char p[256];

	inst_write("tracing_on", "0");
	for (int k = 0; k < NR_EVENTS; k++) {
		char rel[96];

		snprintf(rel, sizeof(rel), "events/kmem/%s/enable",
			 kmem_events[k]);
		if (inst_exists(rel))
			inst_write(rel, "0");
	}
	inst_path(p, sizeof(p), "");
	rmdir(p);
	sa_write(SA_TEST_PROC, "free", 4);
	sa_module_unload("sa_test");
	/* A fresh, active slab_account for the tests after this one. */
	if (sa_module_loaded("slab_account"))
		sa_module_unload("slab_account");
	sa_module_load("slab_account", NULL);
}

TEST_F_TIMEOUT(oracle, agrees_with_ftrace, SA_TEST_TIMEOUT)
{
	const char *env = getenv("SA_ORACLE_ITERS");
	int iters = env ? atoi(env) : 600;
	unsigned long long overrun, dropped, checked = 0, sat_sites = 0;
	unsigned long long sa_allocs, sa_frees, sa_total, sa_req;
	double worst_a = 0, worst_f = 0;
	const char *worst_a_site = "-", *worst_f_site = "-";
	char p[256], err[256], *line = NULL;
	int fd_on, fd_sa, bad_lines = 0;
	struct kt o;
	struct sa_snap s;
	size_t cap = 0;
	FILE *f, *copy;
	int copy_err = 0;
	struct kt_csv_row *rows = NULL;
	unsigned long mismatches;
	long nrows = 0;

	ASSERT_LT(0, iters);
	ASSERT_EQ(0, kt_init(&o, self->hashed));

	/* The window: fresh slab_account, then tracing, both stopped at
	 * the end in the same order; descriptors opened outside it.
	 */
	inst_path(p, sizeof(p), "tracing_on");
	fd_on = open(p, O_WRONLY);
	ASSERT_LE(0, fd_on);
	if (sa_module_loaded("slab_account"))
		ASSERT_EQ(0, sa_module_unload("slab_account"));
	ASSERT_EQ(0, sa_module_load("slab_account", "hooks=0"));
	ASSERT_EQ(1, write(fd_on, "1", 1));
	fd_sa = open(SA_PROC, O_WRONLY);
	ASSERT_LE(0, fd_sa);

	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "run", 3));
	ASSERT_EQ(0, workload(iters));
	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "free", 4));
	quiesce();

	ASSERT_EQ(4, write(fd_sa, "stop", 4));
	ASSERT_EQ(1, write(fd_on, "0", 1));
	close(fd_sa);
	close(fd_on);

	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_STREQ("stopped", s.state);
	overrun = per_cpu_stat("overrun: ");
	dropped = per_cpu_stat("dropped events: ");
	ASSERT_EQ(0, overrun + dropped)
		TH_LOG("the ring buffer lost events (overrun %llu, dropped %llu): "
		       "lower SA_ORACLE_ITERS", overrun, dropped);

	/* The recording is read once: aggregated here, copied for slabacct. */
	inst_path(p, sizeof(p), "trace");
	f = fopen(p, "r");
	ASSERT_NE(NULL, f);
	copy = fopen(TRACE_COPY, "w");
	ASSERT_NE(NULL, copy) TH_LOG("%s: %s", TRACE_COPY, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		if (fputs(line, copy) == EOF)
			copy_err = 1;
		if (kt_line(&o, line) && bad_lines++ < 5)
			TH_LOG("trace line not understood: %s", line);
	}
	free(line);
	fclose(f);
	if (fclose(copy))
		copy_err = 1;
	ASSERT_EQ(0, copy_err) TH_LOG("writing %s", TRACE_COPY);
	ASSERT_EQ(0, bad_lines);
	ASSERT_EQ(0, o.lost_lines);

	/* The reader's import of the same recording: every figure of every
	 * site equal to this test's own account, and (below) to the
	 * module's as the oracle is.
	 */
	nrows = kt_csv_run(SLABACCT " --from-trace " TRACE_COPY " --csv",
			   &rows, err, sizeof(err));
	ASSERT_LE(0, nrows) TH_LOG("%s", err);
	mismatches = kt_compare(&o, rows, nrows);
	printf("# slabacct --from-trace: %ld sites (the trace's own account: %zu), %lu figures differ\n",
	       nrows, kt_nrows(&o), mismatches);
	EXPECT_EQ(0, mismatches);
	EXPECT_EQ(kt_nrows(&o), (size_t)nrows);
	EXPECT_EQ(0, kt_summary_compare(&o, SLABACCT " --from-trace " TRACE_COPY
					" --json --summary-only", 1));
	unlink(TRACE_COPY);

	printf("# ftrace: %llu events (kmalloc %llu, kmalloc_node %llu, kmem_cache_alloc %llu, kmem_cache_alloc_node %llu, kfree %llu, kmem_cache_free %llu), pointers %s\n",
	       o.events, o.nevents[0], o.nevents[1], o.nevents[2],
	       o.nevents[3], o.nevents[4], o.nevents[5],
	       self->hashed ? "hashed (32 bits)" : "real (hash-ptr off)");
	printf("# oracle:       %zu sites, %llu allocs, %llu frees, %llu bytes allocated, %llu requested, %llu failed, %llu unknown frees, %llu missed frees\n",
	       o.nsites, o.allocs, o.frees, o.total, o.req, o.failed,
	       o.unknown, o.missed);
	sa_allocs = sa_snap_key(&s, "number of allocs");
	sa_frees = sa_snap_key(&s, "number of frees");
	sa_total = sa_snap_key(&s, "total bytes allocated");
	sa_req = sa_snap_key(&s, "total bytes requested");
	printf("# slab_account: %zu sites, %llu allocs, %llu frees, %llu bytes allocated, %llu requested, %llu failed, %llu unknown frees, %llu missed frees\n",
	       s.nrows, sa_allocs, sa_frees, sa_total, sa_req,
	       sa_snap_key(&s, "failed allocs"),
	       sa_snap_key(&s, "unknown frees"),
	       sa_snap_key(&s, "missed frees"));
	/* Where the frees the tracepoints did not report were (top 3). */
	for (int top = 0; top < 3; top++) {
		struct kt_site *m = NULL;

		for (size_t i = 0; i < o.nsites; i++)
			if (o.sites[i].missed && (!m || o.sites[i].missed > m->missed))
				m = &o.sites[i];
		if (!m)
			break;
		printf("# missed frees at %s: %llu of %llu allocs\n",
		       m->caller, m->missed, m->allocs);
		m->missed = 0;
	}
	EXPECT_EQ(0, sa_snap_key(&s, "dropped objects"));
	EXPECT_EQ(0, sa_snap_key(&s, "dropped sites"));

	/* Every site either side knows, matched by the %pS string. */
	for (size_t i = 0; i < s.nrows; i++)
		ASSERT_NE(NULL, kt_site(&o, s.rows[i].caller));
	for (size_t i = 0; i < o.nsites; i++) {
		const struct kt_site *os = &o.sites[i];
		struct sa_row zero = { 0 };
		const struct sa_row *r = &zero;
		static const struct kt_csv_row none;
		const struct kt_csv_row *x = &none;
		int sat;
		size_t n = strlen(os->caller);

		for (size_t j = 0; j < s.nrows; j++)
			if (!strcmp(s.rows[j].caller, os->caller))
				r = &s.rows[j];
		for (long j = 0; j < nrows; j++)
			if (!strcmp(rows[j].caller, os->caller))
				x = &rows[j];
		sat = n > 10 && !strcmp(os->caller + n - 10, " [sa_test]");
		if (sat) {
			/* The reader's import against the module's file. */
			EXPECT_EQ(x->allocs, r->allocs) TH_LOG("reader: %s", os->caller);
			EXPECT_EQ(x->frees, r->frees) TH_LOG("reader: %s", os->caller);
			EXPECT_EQ(x->total, r->total) TH_LOG("reader: %s", os->caller);
			EXPECT_EQ(x->req, r->req) TH_LOG("reader: %s", os->caller);
			EXPECT_EQ(x->slack, r->slack) TH_LOG("reader: %s", os->caller);
			EXPECT_EQ(x->live, r->live) TH_LOG("reader: %s", os->caller);
			EXPECT_EQ(x->live_req, r->live_req) TH_LOG("reader: %s", os->caller);
			EXPECT_EQ(x->objs, r->objs) TH_LOG("reader: %s", os->caller);
			EXPECT_EQ(x->peak, r->peak) TH_LOG("reader: %s", os->caller);
			sat_sites++;
			EXPECT_EQ(os->allocs, r->allocs) TH_LOG("%s", os->caller);
			EXPECT_EQ(os->frees, r->frees) TH_LOG("%s", os->caller);
			EXPECT_EQ(os->total, r->total) TH_LOG("%s", os->caller);
			EXPECT_EQ(os->req, r->req) TH_LOG("%s", os->caller);
			EXPECT_EQ(os->live, r->live) TH_LOG("%s", os->caller);
			EXPECT_EQ(os->live_req, r->live_req) TH_LOG("%s", os->caller);
			EXPECT_EQ(os->objs, r->objs) TH_LOG("%s", os->caller);
			EXPECT_EQ(os->peak, r->peak) TH_LOG("%s", os->caller);
			printf("# exact: %-40s allocs %llu/%llu frees %llu/%llu total %llu/%llu req %llu/%llu live %llu/%llu\n",
			       os->caller, os->allocs, r->allocs, os->frees,
			       r->frees, os->total, r->total, os->req, r->req,
			       os->live, r->live);
		}
		if (os->allocs < 100 && r->allocs < 100)
			continue;
		checked++;
		if (dev_pct(os->allocs, r->allocs) > worst_a) {
			worst_a = dev_pct(os->allocs, r->allocs);
			worst_a_site = os->caller;
		}
		if (dev_pct(os->frees, r->frees) > worst_f) {
			worst_f = dev_pct(os->frees, r->frees);
			worst_f_site = os->caller;
		}
		EXPECT_TRUE(close_enough(os->allocs, r->allocs, 1.0))
			TH_LOG("%s: allocs %llu (ftrace) vs %llu", os->caller,
			       os->allocs, r->allocs);
		EXPECT_TRUE(close_enough(os->frees, r->frees, 1.0))
			TH_LOG("%s: frees %llu (ftrace) vs %llu", os->caller,
			       os->frees, r->frees);
		EXPECT_TRUE(close_enough(x->allocs, r->allocs, 1.0))
			TH_LOG("%s: allocs %llu (reader) vs %llu", os->caller,
			       x->allocs, r->allocs);
		EXPECT_TRUE(close_enough(x->frees, r->frees, 1.0))
			TH_LOG("%s: frees %llu (reader) vs %llu", os->caller,
			       x->frees, r->frees);
	}
	printf("# sites with >= 100 allocs: %llu; worst allocs deviation %.3f%% (%s), worst frees deviation %.3f%% (%s)\n",
	       checked, worst_a, worst_a_site, worst_f, worst_f_site);
	printf("# totals deviation: allocs %.4f%%, frees %.4f%%, bytes allocated %.4f%%, requested %.4f%%\n",
	       dev_pct(o.allocs, sa_allocs), dev_pct(o.frees, sa_frees),
	       dev_pct(o.total, sa_total), dev_pct(o.req, sa_req));
	EXPECT_EQ(7, sat_sites);
	EXPECT_LE(20, checked);
	EXPECT_TRUE(close_enough(o.allocs, sa_allocs, 0.5));
	EXPECT_TRUE(close_enough(o.frees, sa_frees, 0.5));
	EXPECT_TRUE(close_enough(o.total, sa_total, 0.5));
	EXPECT_TRUE(close_enough(o.req, sa_req, 0.5));
	sa_snap_free(&s);
	kt_free(&o);
	free(rows);
}

int main(int argc, char **argv)
{
	char ko[4096];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid())
		ksft_exit_skip("needs root\n");
	if (access(SA_PROC, F_OK))
		ksft_exit_skip("no %s: load slab_account.ko first\n", SA_PROC);
	snprintf(ko, sizeof(ko), "%s/sa_test.ko", sa_ko_dir());
	if (access(ko, R_OK))
		ksft_exit_skip("no %s (set SA_KO_DIR)\n", ko);
	if (sa_tracefs(trace_root, sizeof(trace_root), "instances"))
		ksft_exit_skip("no tracefs with instances (CONFIG_FTRACE)\n");
	if (access(SLABACCT, X_OK))
		ksft_exit_skip("no %s: its import of the recording is part of the test\n",
			       SLABACCT);
	return test_harness_run(argc, argv);
}
