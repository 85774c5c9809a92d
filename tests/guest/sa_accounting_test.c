// SPDX-License-Identifier: GPL-2.0
/*
 * Exact accounting: sa_test.ko allocates and frees in a known pattern
 * from known call sites; every row of /proc/slab_account for those sites
 * must equal sa_test's own books (sizes from ksize()) and the counts the
 * pattern defines.  Where the slab keeps metadata by each object (KASAN,
 * slub_debug) the tracepoints report the cache's stride as bytes
 * allocated: the books are converted with /sys/kernel/slab's slab_size.
 * On a kernel where krealloc() cannot be hooked (no kprobes: the header
 * says `unhooked krealloc`), its resize in place is not seen: the site's
 * requested bytes stay those of its allocation, as the header warns.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sa_lib.h"

struct expect {
	const char *func;
	unsigned long long allocs, frees;
	const char *type;
};

/* The pattern documented at the top of tests/kmod/sa_test.c. */
static const struct expect after_run[] = {
	{ "sa_test_alloc_kmalloc100",	10, 6, "kmalloc" },
	{ "sa_test_alloc_cache",	 8, 3, "cache:sa_test_cache" },
	{ "sa_test_alloc_large",	 2, 1, "kmalloc" },
	{ "sa_test_alloc_softirq",	 4, 1, "kmalloc" },
	{ "sa_test_alloc_hardirq",	 2, 0, "kmalloc" },
	{ "sa_test_alloc_realloc",	 1, 1, "kmalloc" },
	{ "sa_test_alloc_realloc_grow",	 1, 0, "kmalloc" },
};

#define NR_SITES (sizeof(after_run) / sizeof(after_run[0]))

/* sa_test_alloc_large's kmalloc(20000): the page allocator's 32 KiB. */
#define SAT_LARGE		2

/* sa_test_alloc_realloc's kmalloc(50), resized in place to 60. */
#define SAT_REALLOC		5
#define SAT_REALLOC_RESIZE	(60 - 50)

/* The books as an unhooked krealloc() leaves them: no resize seen. */
static void unseen_resizes(struct sa_truth *truth)
{
	char err[256];
	struct sa_snap s;

	if (sa_snap_read(&s, err, sizeof(err)))
		return;
	if (sa_snap_text(&s, "unhooked krealloc")) {
		ksft_print_msg("krealloc is not hooked here (%s): its resize in place unseen\n",
			       sa_snap_text(&s, "unhooked krealloc"));
		truth[SAT_REALLOC].req -= SAT_REALLOC_RESIZE;
	}
	sa_snap_free(&s);
}

/* Books in the tracepoints' bytes (the same as ksize() without KASAN). */
static int to_stride(struct sa_truth *t, size_t i)
{
	const char *type = after_run[i].type;

	return sa_truth_to_stride(t, strncmp(type, "cache:", 6) ? NULL :
				  type + 6);
}

/*
 * The header's `peak bound` (issue 35): each CPU but one may hold a batch
 * of a site's live bytes unfolded, either way, and a batch is 4096 bytes
 * or the object when larger: (counter cpus - 1) times the largest batch
 * since the load, at least the object of @large (a site of the page
 * allocator's large kmallocs), whatever the kernel's own sites used.
 */
static void check_bound(struct __test_metadata *_metadata,
			const struct sa_snap *s, const struct sa_truth *large)
{
	unsigned long long cpus = sa_snap_key(s, "counter cpus");
	unsigned long long bound = sa_snap_key(s, "peak bound");
	unsigned long long obj;

	ASSERT_LT(0, large->allocs);
	obj = large->total / large->allocs;
	ksft_print_msg("peak bound %llu: %llu counter CPUs, %s's objects %llu bytes\n",
		       bound, cpus, large->func, obj);
	ASSERT_LT(0, cpus);
	EXPECT_EQ(0, bound % (cpus > 1 ? cpus - 1 : 1));
	EXPECT_LE((cpus - 1) * 4096, bound);
	EXPECT_LE((cpus - 1) * obj, bound);
	EXPECT_TRUE(cpus > 1 || !bound);
}

FIXTURE(sat) {
	struct sa_truth truth[32];
	int ntruth;
	int cpus;
};

FIXTURE_SETUP(sat)
{
	ASSERT_EQ(0, sa_test_fresh());
	/* Rows of an earlier sa_test load at the same addresses: zeroed. */
	ASSERT_EQ(0, sa_cmd("reset"));
	/*
	 * The pattern's allocations in the writer's own context (the
	 * cache, large and krealloc sites) on one CPU: a writer that moved
	 * to another CPU between them would leave the first CPU's bytes
	 * unfolded, and the peaks below are exact only when no other CPU
	 * holds any (`peak bound`, docs/format.md).
	 */
	ASSERT_EQ(0, sa_write_on(0, SA_TEST_PROC, "run", 3));
	/* The "run" pattern's sites come first (sa_test.c). */
	self->ntruth = sa_truth_read(self->truth, 32, &self->cpus);
	ASSERT_LE(NR_SITES, self->ntruth);
	for (size_t i = 0; i < NR_SITES; i++) {
		ASSERT_STREQ(after_run[i].func, self->truth[i].func);
		ASSERT_EQ(after_run[i].allocs, self->truth[i].allocs);
		ASSERT_EQ(after_run[i].frees, self->truth[i].frees);
		ASSERT_EQ(0, to_stride(&self->truth[i], i));
	}
	ASSERT_STREQ("sa_test_alloc_realloc", self->truth[SAT_REALLOC].func);
	unseen_resizes(self->truth);
	TH_LOG("online CPUs: %d", self->cpus);
}

FIXTURE_TEARDOWN(sat)
{
	sa_write(SA_TEST_PROC, "free", 4);
	sa_module_unload("sa_test");
}

/* The row for @t, checked to be the only one and to belong to sa_test. */
static const struct sa_row *row_of(struct __test_metadata *_metadata,
				   const struct sa_snap *s,
				   const struct sa_truth *t)
{
	const struct sa_row *r;
	const char *tail;
	int count;

	r = sa_snap_row(s, t->func, &count);
	EXPECT_EQ(1, count) {
		TH_LOG("%d rows for %s", count, t->func);
	}
	if (!r)
		return NULL;
	tail = r->caller + strlen(r->caller) - strlen(" [sa_test]");
	EXPECT_STREQ(" [sa_test]", tail);
	return r;
}

static void print_row(const struct sa_truth *t, const struct sa_row *r)
{
	ksft_print_msg("%-28s total %llu/%llu req %llu/%llu live %llu/%llu objs %llu/%llu allocs %llu/%llu frees %llu/%llu (module/truth)\n",
		       t->func, r->total, t->total, r->req, t->req, r->live,
		       t->live, r->objs, t->objs, r->allocs, t->allocs,
		       r->frees, t->frees);
}

TEST_F(sat, rows_after_run)
{
	char err[256];
	struct sa_snap s;
	int names = 0;

	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	/* Kernels before 6.1 do not tell which cache: rows say "cache". */
	for (size_t i = 0; i < s.nrows; i++)
		names |= !strncmp(s.rows[i].type, "cache:", 6);
	for (size_t i = 0; i < NR_SITES; i++) {
		const struct sa_truth *t = &self->truth[i];
		const struct sa_row *r = row_of(_metadata, &s, t);

		ASSERT_NE(NULL, r);
		print_row(t, r);
		EXPECT_EQ(t->allocs, r->allocs);
		EXPECT_EQ(t->frees, r->frees);
		EXPECT_EQ(t->total, r->total);
		EXPECT_EQ(t->req, r->req);
		EXPECT_EQ(t->total - t->req, r->slack);
		EXPECT_EQ(t->live, r->live);
		EXPECT_EQ(t->live_req, r->live_req);
		EXPECT_EQ(t->objs, r->objs);
		EXPECT_EQ(r->allocs - r->frees, r->objs);
		/* Every site of the pattern allocates all before it frees. */
		EXPECT_EQ(t->total, r->peak);
		if (strcmp(after_run[i].type, "kmalloc") && !names) {
			EXPECT_STREQ("cache", r->type);
		} else {
			EXPECT_STREQ(after_run[i].type, r->type);
		}
	}
	check_bound(_metadata, &s, &self->truth[SAT_LARGE]);
	sa_snap_free(&s);
}

TEST_F(sat, rows_after_free)
{
	char err[256];
	struct sa_snap s;

	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "free", 4));
	ASSERT_LE(NR_SITES, sa_truth_read(self->truth, 32, &self->cpus));
	for (size_t i = 0; i < NR_SITES; i++)
		ASSERT_EQ(0, to_stride(&self->truth[i], i));
	unseen_resizes(self->truth);
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	for (size_t i = 0; i < NR_SITES; i++) {
		const struct sa_truth *t = &self->truth[i];
		const struct sa_row *r = row_of(_metadata, &s, t);

		ASSERT_NE(NULL, r);
		print_row(t, r);
		EXPECT_EQ(after_run[i].allocs, r->allocs);
		EXPECT_EQ(after_run[i].allocs, r->frees);
		EXPECT_EQ(t->total, r->total);
		EXPECT_EQ(t->req, r->req);
		EXPECT_EQ(0, r->live);
		EXPECT_EQ(0, r->live_req);
		EXPECT_EQ(0, r->objs);
		EXPECT_EQ(t->total, r->peak);
	}
	sa_snap_free(&s);
}

TEST_F(sat, reset_keeps_live_objects)
{
	struct sa_truth before[32];
	char err[256];
	struct sa_snap s;

	memcpy(before, self->truth, sizeof(before));
	ASSERT_EQ(0, sa_cmd("reset"));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	for (size_t i = 0; i < NR_SITES; i++) {
		const struct sa_truth *t = &before[i];
		const struct sa_row *r = sa_snap_row(&s, t->func, &(int){0});

		if (!t->objs) {
			/* Nothing live, nothing since the reset: no row. */
			EXPECT_EQ(NULL, r);
			continue;
		}
		ASSERT_NE(NULL, r);
		EXPECT_EQ(0, r->allocs);
		EXPECT_EQ(0, r->frees);
		EXPECT_EQ(0, r->total);
		EXPECT_EQ(0, r->req);
		EXPECT_EQ(t->live, r->live);
		EXPECT_EQ(t->live_req, r->live_req);
		EXPECT_EQ(t->objs, r->objs);
		EXPECT_EQ(t->live, r->peak);
	}
	sa_snap_free(&s);

	/* Frees after the reset are still charged to the allocating sites. */
	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "free", 4));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	for (size_t i = 0; i < NR_SITES; i++) {
		const struct sa_truth *t = &before[i];
		const struct sa_row *r = sa_snap_row(&s, t->func, &(int){0});

		if (!t->objs)
			continue;
		ASSERT_NE(NULL, r);
		EXPECT_EQ(0, r->allocs);
		EXPECT_EQ(t->objs, r->frees);
		EXPECT_EQ(0, r->live);
		EXPECT_EQ(0, r->objs);
	}
	sa_snap_free(&s);
}

/* "hold N" or "drop N" written to sa_test from @cpu. */
static int hold_on(int cpu, const char *cmd)
{
	return sa_write_on(cpu, SA_TEST_PROC, cmd, strlen(cmd));
}

/* sa_test's books of its "hold" site, in the tracepoints' bytes. */
static int hold_truth(struct sa_truth *t)
{
	struct sa_truth all[32];
	int cpus, n = sa_truth_read(all, 32, &cpus);

	for (int i = 0; i < n; i++) {
		if (!strcmp(all[i].func, "sa_test_alloc_hold")) {
			*t = all[i];
			return sa_truth_to_stride(t, NULL);
		}
	}
	return -1;
}

/*
 * The hold site's row, its books, the header's peak bound; allocs and
 * frees counted from the books' @base (at the last reset).
 */
static void hold_now(struct __test_metadata *_metadata, struct sa_row *r,
		     struct sa_truth *t, const struct sa_truth *base,
		     unsigned long long *bound)
{
	const struct sa_row *row;
	char err[256];
	struct sa_snap s;

	ASSERT_EQ(0, hold_truth(t));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	row = sa_snap_row(&s, "sa_test_alloc_hold", &(int){0});
	ASSERT_NE(NULL, row);
	*r = *row;
	*bound = sa_snap_key(&s, "peak bound");
	/* At least a page per other CPU (check_bound() says more). */
	EXPECT_LE((sa_snap_key(&s, "counter cpus") - 1) * 4096, *bound);
	sa_snap_free(&s);
	ksft_print_msg("hold: live %llu/%llu objs %llu/%llu peak %llu (bound %llu)\n",
		       r->live, t->live, r->objs, t->objs, r->peak, *bound);
	EXPECT_EQ(t->live, r->live);
	EXPECT_EQ(t->objs, r->objs);
	EXPECT_EQ(t->allocs - base->allocs, r->allocs);
	EXPECT_EQ(t->frees - base->frees, r->frees);
}

/*
 * The peak (1.5): exact while one CPU at a time allocates and frees at a
 * site; with another CPU's unfolded bytes (objects it freed, fewer than a
 * page's worth since it last folded) within `peak bound` of the most
 * that was live.  Objects of 2 KiB held on one CPU, 11 of 12 freed on
 * another (which folds at every third: two stay unfolded there, -4096
 * bytes), more held again on the first; a reset (every CPU folds) makes
 * the peak exact again.
 */
TEST(peak_across_cpus)
{
	struct sa_truth t, base = { 0 };
	unsigned long long bound, most;
	struct sa_row r;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU online: peaks are exact, nothing to bound");
	ASSERT_EQ(0, sa_test_fresh());
	ASSERT_EQ(0, sa_cmd("reset"));

	ASSERT_EQ(0, hold_on(0, "hold 12"));
	hold_now(_metadata, &r, &t, &base, &bound);
	EXPECT_EQ(12, t.objs);
	EXPECT_EQ(t.live, r.peak);		/* one CPU: exact */
	most = t.live;

	/* Freed on the other CPU: live exact, the peak stays. */
	ASSERT_EQ(0, hold_on(1, "drop 11"));
	hold_now(_metadata, &r, &t, &base, &bound);
	EXPECT_EQ(1, r.objs);
	EXPECT_EQ(most, r.peak);

	/* More than before, on the first CPU: within the bound. */
	ASSERT_EQ(0, hold_on(0, "hold 16"));
	hold_now(_metadata, &r, &t, &base, &bound);
	most = t.live;
	ksft_print_msg("peak %llu for a most live of %llu: %+lld\n", r.peak,
		       most, (long long)(r.peak - most));
	EXPECT_LE(most, r.peak + bound);
	EXPECT_LE(r.peak, most + bound);
	EXPECT_LE(r.live, r.peak);

	/* A reset folds every CPU: the peak is the live bytes, then exact. */
	ASSERT_EQ(0, sa_cmd("reset"));
	ASSERT_EQ(0, hold_truth(&base));
	hold_now(_metadata, &r, &t, &base, &bound);
	EXPECT_EQ(t.live, r.peak);
	ASSERT_EQ(0, hold_on(1, "hold 2"));
	hold_now(_metadata, &r, &t, &base, &bound);
	EXPECT_EQ(t.live, r.peak);
	most = t.live;
	ASSERT_EQ(0, hold_on(1, "drop 10"));
	ASSERT_EQ(0, hold_on(1, "hold 4"));
	hold_now(_metadata, &r, &t, &base, &bound);
	EXPECT_EQ(most, r.peak);
	ASSERT_EQ(0, hold_on(1, "hold 7"));
	hold_now(_metadata, &r, &t, &base, &bound);
	EXPECT_EQ(t.live, r.peak);

	sa_write(SA_TEST_PROC, "free", 4);
	sa_module_unload("sa_test");
}

/*
 * One task at a time on two CPUs in turn (issue 35, review item 5): 10
 * objects held and freed on the first CPU, then 10 held on the second.
 * The first CPU freed what it allocated, of one size: it holds nothing
 * unfolded (its folds of allocations and of frees come at the same
 * count of objects), and the peak, looked at by the second CPU, is the
 * most that was live, exactly: 10 objects, not 10 plus what the first
 * CPU's frees left unfolded.
 */
TEST(peak_sequential_cpus)
{
	struct sa_truth t, base = { 0 };
	unsigned long long bound, most;
	struct sa_row r;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU online: nothing in turn");
	ASSERT_EQ(0, sa_test_fresh());
	ASSERT_EQ(0, sa_cmd("reset"));

	ASSERT_EQ(0, hold_on(0, "hold 10"));
	hold_now(_metadata, &r, &t, &base, &bound);
	EXPECT_EQ(10, t.objs);
	EXPECT_EQ(t.live, r.peak);
	most = t.live;
	ASSERT_EQ(0, hold_on(0, "drop 10"));
	hold_now(_metadata, &r, &t, &base, &bound);
	EXPECT_EQ(0, r.objs);
	EXPECT_EQ(most, r.peak);
	ASSERT_EQ(0, hold_on(1, "hold 10"));
	hold_now(_metadata, &r, &t, &base, &bound);
	EXPECT_EQ(most, t.live);
	EXPECT_EQ(most, r.peak);

	sa_write(SA_TEST_PROC, "free", 4);
	sa_module_unload("sa_test");
}


/*
 * A CPU's live bytes folded when it goes offline raise the peak (review
 * item 5): 1 object held on the second CPU (its look gives a room of
 * one object), 6 on the first, in whose looks the second CPU's object is
 * not seen and whose sixth passes its batch (2 KiB objects fold at every
 * third, objects of 2 to 4 KiB -- KASAN's or slub_debug's strides -- at
 * every second or third: either way the first CPU is left at 0, the peak
 * at its 6 objects, the second CPU's one hidden).  The second CPU then
 * goes offline: its fold raises the peak to the 7 objects live; all are
 * freed on the first CPU.  The peak is the 7 objects' bytes; without
 * the raise, 6 objects' once freed.
 */
TEST(peak_offline_fold)
{
	struct sa_truth t, base = { 0 };
	unsigned long long bound, most;
	struct sa_row r;
	char path[64];
	int err;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU online: none to take offline");
	sa_cpu_online_path(path, sizeof(path), 1);
	if (access(path, W_OK))
		SKIP(return, "no CPU hotplug in this kernel (no %s)", path);
	ASSERT_EQ(0, sa_test_fresh());
	ASSERT_EQ(0, sa_cmd("reset"));

	ASSERT_EQ(0, hold_on(1, "hold 1"));
	ASSERT_EQ(0, hold_on(0, "hold 6"));
	hold_now(_metadata, &r, &t, &base, &bound);
	EXPECT_EQ(7, t.objs);
	most = t.live;
	/* The file shows no peak below the live bytes. */
	EXPECT_EQ(most, r.peak);
	err = sa_cpu_online(1, 0);
	if (err) {
		sa_write(SA_TEST_PROC, "free", 4);
		sa_module_unload("sa_test");
		SKIP(return, "CPU 1 cannot go offline (error %d)", err);
	}
	hold_now(_metadata, &r, &t, &base, &bound);
	EXPECT_EQ(most, r.peak);
	EXPECT_EQ(0, sa_cpu_online(1, 1));
	ASSERT_EQ(0, hold_on(0, "drop 7"));
	hold_now(_metadata, &r, &t, &base, &bound);
	EXPECT_EQ(0, r.objs);
	EXPECT_EQ(most, r.peak);

	sa_write(SA_TEST_PROC, "free", 4);
	sa_module_unload("sa_test");
}

/* sa_test's cycle thread: N objects of kmalloc(1000) a round. */
#define CYCLE_FUNC	"sa_test_alloc_cycle"
#define CYCLE_N		32

/*
 * The cycle thread's objects after each of its events, replayed from its
 * books: @allocs allocations in rounds of @n (each round's objects
 * allocated, then all freed; the last round may stop short).  The point
 * after @allocs - @a allocations and @allocs - @f frees is where the
 * reset's pass read its CPU (the file's @a and @f since the reset): the
 * most objects held from there on, or -1 if no point of the run has
 * those counts (the file's allocs and frees are not of one moment).
 */
static long long cycle_most_since(unsigned long long allocs,
				  unsigned long long a, unsigned long long f,
				  unsigned int n)
{
	unsigned long long da = 0, df = 0, start = 0, round = 0;
	long long most = -1;

	if (a > allocs || f > allocs)
		return -1;
	for (;;) {
		long long held = da - df;

		if (most < 0 && da == allocs - a && df == allocs - f)
			most = held;
		if (most >= 0 && held > most)
			most = held;
		if (df == allocs)
			return most;
		if (da == df) {		/* a round begins */
			start = da;
			round = allocs - da < n ? allocs - da : n;
		}
		if (da - start < round)
			da++;
		else
			df++;
	}
}

/*
 * A reset while a site allocates and frees on another CPU (issue 35): the
 * peak is set before the CPUs' passes and raised at each pass's fold, so
 * that a most reached during the reset stays.  sa_test's cycle thread,
 * bound to the second CPU, allocates 32 objects and frees them, round
 * after round, as fast as it can; the first CPU resets, then stops the
 * thread (which frees what it holds), ten times.  One CPU allocates and
 * frees there: its counts since the reset (allocs, frees) say where its
 * pass read it in the thread's run, and the peak must be at least the
 * most the thread held from there on (before, a peak set after every
 * pass lost a most reached between that CPU's pass and its setting),
 * exactly the 32 objects' bytes when it held them all since, and never
 * more.
 */
TEST(peak_reset_under_load)
{
	unsigned int iter, checked = 0, full = 0;
	char ko[4096], err[256];

	snprintf(ko, sizeof(ko), "%s/sa_test.ko", sa_ko_dir());
	if (access(ko, R_OK))
		SKIP(return, "no sa_test.ko in %.900s", sa_ko_dir());
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU online: no reset under another CPU's load");
	for (iter = 0; iter < 10; iter++) {
		unsigned long long obj, bytes_most;
		struct sa_truth all[32], *t = NULL;
		const struct sa_row *r;
		long long most;
		struct sa_snap s;
		int cpus, n;

		ASSERT_EQ(0, sa_test_fresh());
		ASSERT_EQ(0, sa_write(SA_TEST_PROC, "cycle 32 1", 10));
		usleep(3000);
		EXPECT_EQ(0, sa_write_on(0, SA_PROC, "reset", 5));
		ASSERT_EQ(0, sa_write_on(0, SA_TEST_PROC, "stop", 4));

		n = sa_truth_read(all, 32, &cpus);
		for (int i = 0; i < n; i++)
			if (!strcmp(all[i].func, CYCLE_FUNC))
				t = &all[i];
		ASSERT_NE(NULL, t);
		ASSERT_EQ(0, sa_truth_to_stride(t, NULL));
		ASSERT_LT(0, t->allocs);
		EXPECT_EQ(t->allocs, t->frees);
		EXPECT_EQ(0, t->live);
		obj = t->total / t->allocs;
		ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
		r = sa_snap_row(&s, CYCLE_FUNC, &n);
		if (!r || !r->allocs) {
			ksft_print_msg("reset %u: no allocation after it\n", iter);
			sa_snap_free(&s);
			continue;
		}
		most = cycle_most_since(t->allocs, r->allocs, r->frees,
					CYCLE_N);
		bytes_most = most > 0 ? most * obj : 0;
		ksft_print_msg("reset %u: run of %llu allocs, %llu/%llu since the reset, peak %llu, most held since %lld x %llu\n",
			       iter, t->allocs, r->allocs, r->frees, r->peak,
			       most, obj);
		EXPECT_LE(0, most) TH_LOG("allocs and frees of no one moment");
		EXPECT_EQ(0, r->live);
		EXPECT_EQ(0, r->objs);
		EXPECT_LE(bytes_most, r->peak);
		EXPECT_LE(r->peak, CYCLE_N * obj);
		if (most == CYCLE_N) {
			EXPECT_EQ(CYCLE_N * obj, r->peak);
			full++;
		}
		checked++;
		sa_snap_free(&s);
	}
	ksft_print_msg("%u of 10 resets saw allocations after them, %u a whole round\n",
		       checked, full);
	EXPECT_LT(0, checked) TH_LOG("no allocation after any of the resets");
	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "free", 4));
	sa_module_unload("sa_test");
}

SA_SELFTEST_MAIN(1)
