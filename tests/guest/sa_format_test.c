// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/slab_account as a file: mode, header, keys, and (while stopped, so
 * nothing moves) a summary that equals the sum of the rows, read the same
 * in any read() chunk size.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sa_lib.h"

static const char * const keys[] = {
	"total bytes allocated", "total bytes requested",
	"slack bytes allocated", "current bytes allocated",
	"current bytes requested", "current objects", "number of allocs",
	"number of frees", "number of callers", "failed allocs",
	"unknown frees", "missed frees", "dropped objects", "dropped sites",
	"tracked objects", "object capacity", "call sites",
	"call site capacity", "table memory",
	/* 1.1 */
	"hooked kmem_cache_free_bulk", "hooked krealloc",
	"hooked kmem_cache_alloc_bulk", "hooked kfree_rcu_sheaf",
	"missed hook calls", "resized in place", "unknown resizes",
	"reported twice",
	/* 1.2 */
	"unwrap failures",
	/* 1.3 */
	"unwrap helpers", "hidden callers",
	/* 1.4 */
	"counter memory", "counter cpus",
	/* 1.5 */
	"peak bound",
};

/* 1.3: every path's "hooked PATH" is 1, or its "unhooked PATH" says why. */
static const char * const whys[] = {
	"stopped", "disabled", "no-kprobes", "arguments", "absent",
	"prototype", "refused", "failed",
};

TEST(mode_is_0600_root)
{
	struct stat st;

	ASSERT_EQ(0, stat(SA_PROC, &st));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
}

TEST(header_and_keys)
{
	char err[256];
	struct sa_snap s;

	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("active", s.state);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		EXPECT_TRUE(sa_snap_has_key(&s, keys[i])) TH_LOG("no '%s'", keys[i]);
	}
	ASSERT_EQ(0, strncmp(s.text, "slab_account - version: 1.6\n", 28));
	for (int i = 0; i < s.nkeys; i++) {
		const char *name = s.keys[i].name, *why;
		char un[64];
		size_t w;

		if (strncmp(name, "hooked ", 7))
			continue;
		snprintf(un, sizeof(un), "unhooked %s", name + 7);
		why = sa_snap_text(&s, un);
		EXPECT_EQ(!s.keys[i].val, why != NULL) TH_LOG("%s", name);
		for (w = 0; why && w < sizeof(whys) / sizeof(whys[0]); w++)
			if (!strcmp(why, whys[w]))
				break;
		EXPECT_TRUE(!why || w < sizeof(whys) / sizeof(whys[0]))
			TH_LOG("%s: '%s'", un, why);
		if (why)
			ksft_print_msg("%s: %s\n", un, why);
	}
	EXPECT_GT(sa_snap_key(&s, "object capacity"), 0);
	EXPECT_GT(sa_snap_key(&s, "call site capacity"), 0);
	EXPECT_GT(sa_snap_key(&s, "table memory"), 0);
	/*
	 * Counters for each CPU present since the load (every one is online
	 * here), none for CPUs that only may come: 128 bytes (sixteen
	 * 64-bit counters, two cache lines) per site of the table and the
	 * vacant one.
	 */
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_ONLN),
		  (long)sa_snap_key(&s, "counter cpus"));
	/* 1.5: each other CPU may hold a page of a site's live bytes. */
	EXPECT_EQ((sa_snap_key(&s, "counter cpus") - 1) * 4096,
		  sa_snap_key(&s, "peak bound"));
	EXPECT_EQ(sa_snap_key(&s, "counter cpus") * 128 *
		  (sa_snap_key(&s, "call site capacity") + 1),
		  sa_snap_key(&s, "counter memory"));
	EXPECT_GT(sa_snap_key(&s, "table memory"),
		  sa_snap_key(&s, "counter memory"));
	/* Advice only where objects were dropped. */
	EXPECT_TRUE(sa_snap_key(&s, "dropped objects") ||
		    !sa_snap_has_key(&s, "advised max_objects"));
	ksft_print_msg("counters: %llu CPUs of %ld possible, %llu bytes\n",
		       sa_snap_key(&s, "counter cpus"),
		       sysconf(_SC_NPROCESSORS_CONF),
		       sa_snap_key(&s, "counter memory"));
	/* Sites in the table, each printed or idle since a reset. */
	EXPECT_GE(sa_snap_key(&s, "call sites"),
		  sa_snap_key(&s, "number of callers"));
	EXPECT_GT(s.nrows, 0);
	ksft_print_msg("%zu rows, %llu tracked objects of %llu, %llu bytes of tables\n",
		       s.nrows, sa_snap_key(&s, "tracked objects"),
		       sa_snap_key(&s, "object capacity"),
		       sa_snap_key(&s, "table memory"));
	sa_snap_free(&s);
}

/* A number from a file (@key's line of it when @key is set), or -1. */
static long long file_num(const char *path, const char *key)
{
	char line[256];
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (key && strncmp(line, key, strlen(key)))
			continue;
		v = strtoll(line + (key ? strlen(key) : 0), NULL, 10);
		break;
	}
	fclose(f);
	return v;
}

static unsigned long long pow2_down(unsigned long long v)
{
	unsigned long long p = 1;

	while (p * 2 <= v)
		p *= 2;
	return p;
}

/* max_objects chosen at load from @ram_mib and @slab_bytes (sa_main.c). */
static unsigned long long auto_objects(unsigned long long ram_mib,
				       unsigned long long slab_bytes)
{
	unsigned long long by_slab = slab_bytes / 256, objs = ram_mib * 512;

	if (by_slab > ram_mib * 1024)
		by_slab = ram_mib * 1024;
	if (by_slab > objs)
		objs = by_slab;
	if (objs < 8192)
		objs = 8192;
	if (objs > 1ULL << 26)
		objs = 1ULL << 26;
	return pow2_down(objs);
}

/* The slots of a table for @objs: buckets of @keys, a power of two. */
static unsigned long long slots(unsigned long long objs, unsigned int keys)
{
	unsigned long long buckets = 1;

	while (buckets < (objs + keys - 1) / keys)
		buckets *= 2;
	return buckets * keys;
}

TEST(callers_are_symbols)
{
	char err[256];
	struct sa_snap s;
	regex_t re;

	/*
	 * %pS: symbol+0xoff/0xlen, then " [module]" for module code; then
	 * (1.2) " via HELPER" for the caller of an allocation helper.
	 */
	ASSERT_EQ(0, regcomp(&re, "^[A-Za-z0-9_.$]+\\+0x[0-9a-f]+/0x[0-9a-f]+( \\[[A-Za-z0-9_]+\\])?( via [A-Za-z0-9_.$]+)?$",
			     REG_EXTENDED | REG_NOSUB));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	for (size_t i = 0; i < s.nrows; i++) {
		EXPECT_EQ(0, regexec(&re, s.rows[i].caller, 0, NULL, 0))
			TH_LOG("caller '%s'", s.rows[i].caller);
	}
	regfree(&re);
	sa_snap_free(&s);
}

static unsigned long long sum(const struct sa_snap *s, size_t off)
{
	unsigned long long t = 0;

	for (size_t i = 0; i < s->nrows; i++)
		t += *(const unsigned long long *)((const char *)&s->rows[i] + off);
	return t;
}

#define SUM(s, field) sum(s, offsetof(struct sa_row, field))

TEST(stopped_summary_matches_rows)
{
	struct sa_snap a, b;
	char err[256];

	ASSERT_EQ(0, sa_cmd("stop"));
	ASSERT_EQ(0, sa_snap_read(&a, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, sa_snap_read(&b, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, sa_cmd("start"));

	EXPECT_STREQ("stopped", a.state);
	EXPECT_EQ(a.len, b.len);
	EXPECT_EQ(0, strcmp(a.text, b.text));
	EXPECT_EQ(a.nrows, sa_snap_key(&a, "number of callers"));
	EXPECT_EQ(SUM(&a, total), sa_snap_key(&a, "total bytes allocated"));
	EXPECT_EQ(SUM(&a, req), sa_snap_key(&a, "total bytes requested"));
	EXPECT_EQ(SUM(&a, slack), sa_snap_key(&a, "slack bytes allocated"));
	EXPECT_EQ(SUM(&a, live), sa_snap_key(&a, "current bytes allocated"));
	EXPECT_EQ(SUM(&a, live_req), sa_snap_key(&a, "current bytes requested"));
	EXPECT_EQ(SUM(&a, objs), sa_snap_key(&a, "current objects"));
	EXPECT_EQ(SUM(&a, allocs), sa_snap_key(&a, "number of allocs"));
	EXPECT_EQ(SUM(&a, frees), sa_snap_key(&a, "number of frees"));
	/* Every tracked object belongs to exactly one site. */
	EXPECT_EQ(SUM(&a, objs), sa_snap_key(&a, "tracked objects"));
	EXPECT_LE(sa_snap_key(&a, "number of callers"),
		  sa_snap_key(&a, "call sites"));
	EXPECT_LE(sa_snap_key(&a, "tracked objects"),
		  sa_snap_key(&a, "object capacity"));
	for (size_t i = 0; i < a.nrows; i++) {
		EXPECT_GE(a.rows[i].peak, a.rows[i].live);
	}
	sa_snap_free(&a);
	sa_snap_free(&b);
}

/* The same bytes whatever the read() size: the walk keeps its position. */
TEST(read_chunk_sizes)
{
	static const size_t sizes[] = { 1, 7, 100, 4096, 1 << 20 };
	char *whole;
	size_t len;

	ASSERT_EQ(0, sa_cmd("stop"));
	ASSERT_EQ(0, sa_read_file(SA_PROC, &whole, &len));
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *buf = malloc(len + 1), *chunk = malloc(sizes[i]);
		int fd = open(SA_PROC, O_RDONLY);
		size_t n = 0;
		ssize_t r;

		ASSERT_NE(NULL, buf);
		ASSERT_NE(NULL, chunk);
		ASSERT_LE(0, fd);
		while ((r = read(fd, chunk, sizes[i])) > 0) {
			ASSERT_LE(n + r, len);
			memcpy(buf + n, chunk, r);
			n += r;
		}
		close(fd);
		EXPECT_EQ(len, n);
		EXPECT_EQ(0, memcmp(whole, buf, len)) TH_LOG("chunk %zu", sizes[i]);
		free(buf);
		free(chunk);
	}
	free(whole);
	ASSERT_EQ(0, sa_cmd("start"));
}

/*
 * The object table's automatic size (README, docs/format.md): one object
 * per 2 KiB of MemTotal, or one per 256 bytes of slab in use at the load
 * where that is more (at most one per KiB), a power of two, 8192 to 2^26;
 * then buckets of 7 keys (15 of 4 bytes on a 32-bit kernel), a power of
 * two of them.  slab_account loaded again here (last: the tests above
 * read the instance /init loaded), the slab read just before and after:
 * where both give one size the capacity is exact.
 */
TEST(auto_object_capacity)
{
	long long total_kb = file_num("/proc/meminfo", "MemTotal:");
	unsigned int keys = sizeof(long) == 8 ? 7 : 15;
	unsigned long long lo, hi, cap;
	long long slab0, slab1;
	char err[256];
	struct sa_snap s;

	ASSERT_LT(0, total_kb);
	ASSERT_EQ(0, sa_module_unload("slab_account"));
	slab0 = file_num("/proc/meminfo", "Slab:");
	ASSERT_EQ(0, sa_module_load("slab_account", NULL));
	slab1 = file_num("/proc/meminfo", "Slab:");
	ASSERT_LT(0, slab0);
	ASSERT_LT(0, slab1);
	lo = slots(auto_objects(total_kb / 1024,
				(slab0 < slab1 ? slab0 : slab1) * 1024), keys);
	hi = slots(auto_objects(total_kb / 1024,
				(slab0 < slab1 ? slab1 : slab0) * 1024), keys);
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	cap = sa_snap_key(&s, "object capacity");
	sa_snap_free(&s);
	if (sizeof(long) == 8) {
		EXPECT_LE(lo, cap) TH_LOG("MemTotal %lld kB, Slab %lld-%lld kB",
					  total_kb, slab0, slab1);
		EXPECT_GE(hi, cap) TH_LOG("MemTotal %lld kB, Slab %lld-%lld kB",
					  total_kb, slab0, slab1);
	} else {
		/* A 32-bit kernel's tables may have been halved to fit. */
		EXPECT_GE(hi, cap);
	}
	ksft_print_msg("MemTotal %lld kB, Slab %lld-%lld kB at the load: %llu slots (%s)\n",
		       total_kb, slab0, slab1, cap,
		       lo == hi ? "exact" : "between the slab's bounds");
}

SA_SELFTEST_MAIN(0)
