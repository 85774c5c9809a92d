// SPDX-License-Identifier: GPL-2.0
/*
 * The paths the kmem tracepoints do not report, which slab_account hooks
 * (sa_test.ko's "paths" pattern): kfree_rcu() batches, kmem_cache bulk
 * allocation and free, kfree_bulk(), krealloc() in place and moving.
 * Every row of the pattern must equal sa_test's books once the RCU frees
 * have settled, and come back to nothing live after "free".  The header
 * names each hooked path, and says why one is not; a kernel that cannot
 * hook them (no kprobes: many board kernels) skips what needs the hooks,
 * saying so.
 *
 * Allocation helpers (sa_test.ko's "helpers" pattern): allocations made
 * through kvmalloc() and mempools from distinct functions are rows of
 * those functions, each saying which helper it was unwrapped from, equal
 * to the books.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sa_lib.h"

struct expect {
	const char *func;
	unsigned long long allocs, frees;
	unsigned long long live_req;	/* after the pattern */
	const char *cache;		/* NULL for kmalloc */
};

/* The "paths" pattern documented at the top of tests/kmod/sa_test.c. */
static const struct expect paths[] = {
	{ "sa_test_alloc_rcu",	      2000, 2000, 0, NULL },
	{ "sa_test_alloc_bulk",		64, 64,   0, "sa_test_cache" },
	{ "sa_test_alloc_kfree_bulk",  300, 300,  0, NULL },
	{ "sa_test_alloc_grow",		 1,  0,  60, NULL },
	{ "sa_test_alloc_shrink",	 1,  0,  30, NULL },
	{ "sa_test_alloc_move",		 1,  1,   0, NULL },
	{ "sa_test_alloc_move_to",	 1,  0, 400, NULL },
};

#define NR_PATHS (sizeof(paths) / sizeof(paths[0]))

/* The hooks every kernel of the matrix must have. */
static const char * const needed[] = {
	"hooked kmem_cache_free_bulk", "hooked krealloc",
	"hooked kmem_cache_alloc_bulk",
};

/*
 * Why a path the matrix needs is not hooked, when this kernel cannot hook
 * it (no kprobes, or no arguments for them), else NULL; in @why.
 */
static const char *cannot_hook(const struct sa_snap *s, char *why, size_t n)
{
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		char key[64];
		const char *w;

		snprintf(key, sizeof(key), "un%s", needed[i]);
		w = sa_snap_text(s, key);
		if (w && (!strcmp(w, "no-kprobes") || !strcmp(w, "arguments"))) {
			snprintf(why, n, "%s: %s", key, w);
			return why;
		}
	}
	return NULL;
}

/* Skip the test when this kernel cannot hook the paths. */
#define SKIP_IF_CANNOT_HOOK() do {					\
	char __e[256], __why[96];					\
	struct sa_snap __s;						\
	const char *__w;						\
									\
	ASSERT_EQ(0, sa_snap_read(&__s, __e, sizeof(__e))) TH_LOG("%s", __e); \
	__w = cannot_hook(&__s, __why, sizeof(__why));			\
	sa_snap_free(&__s);						\
	if (__w)							\
		SKIP(return, "this kernel cannot hook the paths (%s)", __w); \
} while (0)

static const struct sa_truth *truth_of(const struct sa_truth *t, int n,
				       const char *func)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(t[i].func, func))
			return &t[i];
	return NULL;
}

/*
 * Every path the matrix's kernels have is hooked, or (a kernel without
 * kprobes) says why it cannot be.
 */
TEST(paths_are_named)
{
	char err[256], why[96];
	int cannot;
	struct sa_snap s;

	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	for (int i = 0; i < s.nkeys; i++)
		if (!strncmp(s.keys[i].name, "hooked ", 7))
			ksft_print_msg("%s: %llu\n", s.keys[i].name,
				       s.keys[i].val);
		else if (!strncmp(s.keys[i].name, "unhooked ", 9))
			ksft_print_msg("%s: %s\n", s.keys[i].name,
				       s.keys[i].text);
	cannot = cannot_hook(&s, why, sizeof(why)) != NULL;
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		char key[64];

		snprintf(key, sizeof(key), "un%s", needed[i]);
		ASSERT_TRUE(sa_snap_has_key(&s, needed[i]));
		EXPECT_NE(cannot, sa_snap_key(&s, needed[i]))
			TH_LOG("%s: %s", needed[i],
			       sa_snap_text(&s, key) ? sa_snap_text(&s, key) : "hooked");
	}
	ksft_print_msg("missed hook calls: %llu\n",
		       sa_snap_key(&s, "missed hook calls"));
	sa_snap_free(&s);
}

/* Read books and file until the RCU frees are in, at most @secs s. */
static int settle(struct sa_truth *t, int *nt, struct sa_snap *s, int secs)
{
	char err[256];
	int cpus;

	for (int i = 0; i <= secs * 2; i++) {
		const struct sa_row *r;
		int n;

		*nt = sa_truth_read(t, 32, &cpus);
		if (*nt < 0 || sa_snap_read(s, err, sizeof(err)))
			return -1;
		r = sa_snap_row(s, "sa_test_alloc_rcu", &n);
		if (r && r->frees == paths[0].frees)
			return i / 2;
		sa_snap_free(s);
		/* kfree_rcu() batches drain early under memory pressure. */
		sa_write("/proc/sys/vm/drop_caches", "3", 1);
		usleep(500 * 1000);
	}
	*nt = sa_truth_read(t, 32, &cpus);
	return sa_snap_read(s, err, sizeof(err)) ? -1 : secs;
}

static void check_rows(struct __test_metadata *_metadata,
		       const struct sa_snap *s, struct sa_truth *t, int nt,
		       int freed)
{
	for (size_t i = 0; i < NR_PATHS; i++) {
		struct sa_truth *b = (struct sa_truth *)truth_of(t, nt,
								 paths[i].func);
		const struct sa_row *r;
		int n;

		ASSERT_NE(NULL, b) TH_LOG("no books for %s", paths[i].func);
		ASSERT_EQ(0, sa_truth_to_stride(b, paths[i].cache));
		r = sa_snap_row(s, paths[i].func, &n);
		ASSERT_NE(NULL, r) TH_LOG("no row for %s", paths[i].func);
		EXPECT_EQ(1, n);
		ksft_print_msg("%-26s allocs %llu/%llu frees %llu/%llu total %llu/%llu req %llu/%llu live %llu/%llu live_req %llu/%llu (module/books)\n",
			       paths[i].func, r->allocs, b->allocs, r->frees,
			       b->frees, r->total, b->total, r->req, b->req,
			       r->live, b->live, r->live_req, b->live_req);
		EXPECT_EQ(paths[i].allocs, b->allocs);
		EXPECT_EQ(b->allocs, r->allocs);
		EXPECT_EQ(b->frees, r->frees);
		EXPECT_EQ(b->total, r->total);
		EXPECT_EQ(b->req, r->req);
		EXPECT_EQ(b->live, r->live);
		EXPECT_EQ(b->live_req, r->live_req);
		EXPECT_EQ(b->objs, r->objs);
		if (freed) {
			EXPECT_EQ(0, r->live);
			EXPECT_EQ(0, r->live_req);
			EXPECT_EQ(paths[i].allocs, r->frees);
		} else {
			EXPECT_EQ(paths[i].frees, r->frees);
			EXPECT_EQ(paths[i].live_req, r->live_req);
		}
	}
}

TEST(exact_on_every_path)
{
	struct sa_truth t[32];
	struct sa_snap s;
	int nt, secs;

	SKIP_IF_CANNOT_HOOK();
	ASSERT_EQ(0, sa_test_fresh());
	ASSERT_EQ(0, sa_cmd("reset"));
	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "paths", 5));
	secs = settle(t, &nt, &s, 30);
	ASSERT_LE(0, secs);
	ksft_print_msg("kfree_rcu frees settled after about %d s; reported twice %llu, resized in place %llu\n",
		       secs, sa_snap_key(&s, "reported twice"),
		       sa_snap_key(&s, "resized in place"));
	check_rows(_metadata, &s, t, nt, 0);
	sa_snap_free(&s);

	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "free", 4));
	ASSERT_EQ(0, settle(t, &nt, &s, 0) < 0);
	check_rows(_metadata, &s, t, nt, 1);
	sa_snap_free(&s);
	sa_module_unload("sa_test");
}

struct helper_site {
	const char *func;
	unsigned long long allocs, frees;
	const char *cache;	/* for the books' stride; NULL for kmalloc */
	const char *type;	/* the row's type, up to a cache's name */
	const char *via;	/* the helper's name holds this */
	int uniform;		/* objects of one size */
};

/* The "helpers" pattern documented at the top of tests/kmod/sa_test.c. */
static const struct helper_site helper_sites[] = {
	{ "sa_test_alloc_kv_a",   3, 1, NULL, "kmalloc", "kvmalloc", 1 },
	{ "sa_test_alloc_kv_b",   5, 2, NULL, "kmalloc", "kvmalloc", 1 },
	{ "sa_test_alloc_pool_a", 4, 1, NULL, "kmalloc", "mempool_", 1 },
	{ "sa_test_alloc_pool_b", 3, 1, "sa_test_pool", "cache", "mempool_", 1 },
	{ "sa_test_alloc_kpool",  4, 0, NULL, "kmalloc", "mempool_", 0 },
	{ "sa_test_alloc_spool",  4, 0, NULL, "mixed", "mempool_", 0 },
	/* As the kernel moved it or not: the books say (none before 5.15). */
	{ "sa_test_alloc_kvre",   0, 0, NULL, "kmalloc", "kvrealloc", 0 },
};

#define NR_HELPER_SITES (sizeof(helper_sites) / sizeof(helper_sites[0]))

static void check_helper_rows(struct __test_metadata *_metadata,
			      const struct sa_snap *s, int freed)
{
	int metadata = sa_slab_metadata();
	struct sa_truth t[32];
	int nt, cpus;

	nt = sa_truth_read(t, 32, &cpus);
	ASSERT_LT(0, nt);
	for (size_t i = 0; i < NR_HELPER_SITES; i++) {
		const struct helper_site *h = &helper_sites[i];
		struct sa_truth *b = (struct sa_truth *)truth_of(t, nt, h->func);
		const struct sa_row *r;
		const char *via;
		int n, exact;

		ASSERT_NE(NULL, b) TH_LOG("no books for %s", h->func);
		exact = h->uniform ? !sa_truth_to_stride(b, h->cache) : !metadata;
		r = sa_snap_row(s, h->func, &n);
		if (!h->allocs && !b->allocs) {
			/* The kernel has no such helper. */
			EXPECT_EQ(NULL, r) TH_LOG("%s", h->func);
			ksft_print_msg("%s: no such helper in this kernel\n",
				       h->func);
			continue;
		}
		ASSERT_NE(NULL, r) TH_LOG("no row for %s", h->func);
		EXPECT_EQ(1, n);
		via = strstr(r->caller, " via ");
		ksft_print_msg("%-22s allocs %llu/%llu frees %llu/%llu total %llu/%llu req %llu/%llu live %llu/%llu live_req %llu/%llu %s | %s\n",
			       h->func, r->allocs, b->allocs, r->frees,
			       b->frees, r->total, b->total, r->req, b->req,
			       r->live, b->live, r->live_req, b->live_req,
			       r->type, r->caller);
		EXPECT_EQ(0, strncmp(r->type, h->type, strlen(h->type)))
			TH_LOG("%s: type %s", h->func, r->type);
		/*
		 * kvmalloc() passes its caller's address on in some kernels
		 * (7.x): the row names it without being unwrapped.
		 */
		if (via) {
			EXPECT_NE(NULL, strstr(via + 5, h->via))
				TH_LOG("%s: %s", h->func, via);
		} else {
			EXPECT_EQ(0, strcmp(h->via, "kvmalloc"))
				TH_LOG("%s is not marked unwrapped", h->func);
		}
		if (h->allocs) {
			EXPECT_EQ(h->allocs, b->allocs);
			EXPECT_EQ(freed ? h->allocs : h->frees, r->frees);
		}
		EXPECT_EQ(b->allocs, r->allocs);
		EXPECT_EQ(b->frees, r->frees);
		EXPECT_EQ(b->objs, r->objs);
		if (!exact) {
			ksft_print_msg("%s: bytes not compared (slab metadata)\n",
				       h->func);
			continue;
		}
		EXPECT_EQ(b->total, r->total);
		EXPECT_EQ(b->req, r->req);
		EXPECT_EQ(b->live, r->live);
		EXPECT_EQ(b->live_req, r->live_req);
		if (freed)
			EXPECT_EQ(0, r->live);
	}
}

TEST(helpers_name_their_callers)
{
	char err[256];
	struct sa_snap s;

	/* The helpers are found by name through kprobes. */
	SKIP_IF_CANNOT_HOOK();
	ASSERT_EQ(0, sa_test_fresh());
	ASSERT_EQ(0, sa_cmd("reset"));
	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "helpers", 7));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_TRUE(sa_snap_has_key(&s, "unwrap failures"));
	ksft_print_msg("unwrap failures: %llu\n",
		       sa_snap_key(&s, "unwrap failures"));
	check_helper_rows(_metadata, &s, 0);
	sa_snap_free(&s);

	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "free", 4));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	check_helper_rows(_metadata, &s, 1);
	sa_snap_free(&s);
	sa_module_unload("sa_test");
}

/*
 * sa_test_alloc_init runs from sa_test's __init code, freed once the module
 * is live, and its object is freed at unload: the row keeps the name its
 * code had (not a bare address), before and after the unload, when it
 * says which load it was of (" unloaded#N"); each load has a row of its
 * own.
 */
TEST(names_outlive_their_code)
{
	const struct sa_row *r;
	char err[256], name[256], want[300];
	unsigned int load = 1;
	struct sa_snap s;
	int n;

	ASSERT_EQ(0, sa_test_fresh());
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	if (sa_snap_has_key(&s, "reloaded sa_test"))
		load = sa_snap_key(&s, "reloaded sa_test");
	r = sa_snap_row(&s, "sa_test_alloc_init", &n);
	ASSERT_NE(NULL, r) TH_LOG("no row for sa_test_alloc_init");
	EXPECT_EQ(1, n);
	EXPECT_EQ(1, r->allocs);
	EXPECT_EQ(1, r->objs);
	snprintf(name, sizeof(name), "%s", r->caller);
	ksft_print_msg("__init code's site: %s (load %u)\n", name, load);
	sa_snap_free(&s);

	ASSERT_EQ(0, sa_module_unload("sa_test"));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	r = sa_snap_row_of(&s, "sa_test_alloc_init", "sa_test", load, &n);
	ASSERT_NE(NULL, r) TH_LOG("the unloaded module's row lost its name");
	EXPECT_EQ(1, n);
	snprintf(want, sizeof(want), "%s unloaded#%u", name, load);
	EXPECT_STREQ(want, r->caller);
	EXPECT_EQ(1, r->allocs);
	EXPECT_EQ(1, r->frees);
	EXPECT_EQ(0, r->objs);
	EXPECT_EQ(NULL, sa_snap_row(&s, "sa_test_alloc_init", &n));
	sa_snap_free(&s);
}

SA_SELFTEST_MAIN(1)
