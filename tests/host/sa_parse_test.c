// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the reader's parsers: userspace/sa_parse.c (the
 * /proc/slab_account v1.x parser), sa_detail.c, sa_unloads.c, sa_input.c,
 * sa_caller.c, sa_ctx.c, sa_cgroup.c and sa_stacks.c (1.6 contexts, cgroup
 * paths, stacks), the
 * line reader and header parser of sa_base.c, and the
 * JSON writer's nesting check (sa_json.c).
 * Prints "ok   parser: NAME" or "FAIL parser: NAME: why" per test (run_tests.sh
 * counts them); exits 1 if any failed.
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_base.h"
#include "sa_caller.h"
#include "sa_cgroup.h"
#include "sa_detail.h"
#include "sa_input.h"
#include "sa_json.h"
#include "sa_parse.h"
#include "sa_stacks.h"
#include "sa_unloads.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int failed_tests, passed_tests;
static int cur_failed;
static char cur_why[512];

#define CHECK(cond) check((cond), __LINE__, "%s", #cond)

static int check(int ok, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int check(int ok, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ok || cur_failed)
		return ok;
	cur_failed = 1;
	n = snprintf(cur_why, sizeof(cur_why), "line %d: ", line);
	va_start(ap, fmt);
	vsnprintf(cur_why + n, sizeof(cur_why) - (size_t)n, fmt, ap);
	va_end(ap);
	return ok;
}

static void check_str(const char *got, const char *want, int line)
{
	if (!got || strcmp(got, want))
		check(0, line, "got '%s', want '%s'", got ? got : "(null)", want);
}
#define CHECK_STR(got, want) check_str((got), (want), __LINE__)

static void run(const char *name, void (*fn)(void))
{
	cur_failed = 0;
	fn();
	if (cur_failed) {
		failed_tests++;
		printf("FAIL parser: %s: %s\n", name, cur_why);
	} else {
		passed_tests++;
		printf("ok   parser: %s\n", name);
	}
}

#define HDR "slab_account - version: 1.0\n"
#define LEGEND "#     total    slack      req     live live_req   objs     peak  allocs/frees type caller\n"
#define MINIMAL HDR "state: active\nnumber of callers: 1\n" LEGEND

static int parse(struct sa_file *f, const char *text, char **err)
{
	return sa_parse_buffer(f, text, strlen(text), "t.txt", err);
}

/* Parsing @text must fail with exactly @want. */
static void expect_error(const char *text, const char *want, int line)
{
	struct sa_file f;
	char *err = NULL;

	if (parse(&f, text, &err) == 0) {
		check(0, line, "parsed, want error '%s'", want);
		sa_file_free(&f);
		return;
	}
	check_str(err, want, line);
	check(f.nrows == 0 && f.rows == NULL && f.name == NULL, line,
	      "file not emptied after an error");
	free(err);
}
#define EXPECT_ERROR(text, want) expect_error((text), (want), __LINE__)

/* Parsing @text must succeed; the caller frees @f. */
static int expect_ok(struct sa_file *f, const char *text, int line)
{
	char *err = NULL;

	if (parse(f, text, &err)) {
		check(0, line, "unexpected error '%s'", err);
		free(err);
		return -1;
	}
	return 0;
}
#define EXPECT_OK(f, text) expect_ok((f), (text), __LINE__)

static void test_valid(void)
{
	struct sa_file f;
	const struct sa_summary *e;

	if (EXPECT_OK(&f, HDR "state: stopped\ntotal bytes allocated: 29316\n"
		      "table memory: 3801088\n" LEGEND
		      "     2436      232     2204     2436     2204     29     2436         29/0 kmalloc bio_kmalloc+0x33/0x80\n"
		      "    26880     1280    25600    13440    12800     20    14112        40/20 cache:sa_test_cache sa_test_cache_alloc+0x1c/0x50 [sa_test]\n"
		      "0 0 0 0 0 0 0 0/0 mixed\tfoo+0x1/0x2 \t\n"
		      "5 2 3 5 4 6 7 8/9 cache ffffffffc0a01234\n"))
		return;
	CHECK(f.major == 1 && f.minor == 0);
	CHECK_STR(f.name, "t.txt");
	CHECK(f.nsummary == 3);
	e = sa_summary_get(&f, "state");
	CHECK(e && !e->is_num);
	CHECK_STR(e ? e->value : NULL, "stopped");
	e = sa_summary_get(&f, "table memory");
	CHECK(e && e->is_num && e->num == 3801088);
	CHECK(sa_summary_get(&f, "missed frees") == NULL);
	CHECK(f.nrows == 4);
	if (f.nrows == 4) {
		const struct sa_row *r = f.rows;

		CHECK(r[0].v[SA_TOTAL] == 2436 && r[0].v[SA_SLACK] == 232 &&
		      r[0].v[SA_REQ] == 2204 && r[0].v[SA_LIVE] == 2436 &&
		      r[0].v[SA_LIVE_REQ] == 2204 && r[0].v[SA_OBJS] == 29 &&
		      r[0].v[SA_PEAK] == 2436 && r[0].v[SA_ALLOCS] == 29 &&
		      r[0].v[SA_FREES] == 0);
		CHECK(r[0].type == SA_TYPE_KMALLOC && r[0].cache == NULL);
		CHECK_STR(r[0].caller, "bio_kmalloc+0x33/0x80");
		CHECK(r[0].line == 6);
		CHECK(r[1].type == SA_TYPE_CACHE);
		CHECK_STR(r[1].cache, "sa_test_cache");
		CHECK_STR(r[1].type_str, "cache:sa_test_cache");
		CHECK_STR(r[1].caller, "sa_test_cache_alloc+0x1c/0x50 [sa_test]");
		CHECK(r[1].v[SA_ALLOCS] == 40 && r[1].v[SA_FREES] == 20);
		CHECK(r[2].type == SA_TYPE_MIXED);
		CHECK_STR(r[2].caller, "foo+0x1/0x2");
		CHECK(r[3].type == SA_TYPE_CACHE && r[3].cache == NULL);
		CHECK_STR(r[3].caller, "ffffffffc0a01234");
		CHECK(r[3].v[SA_PEAK] == 7 && r[3].v[SA_FREES] == 9);
	}
	sa_file_free(&f);
}

static void test_unknown_keys(void)
{
	struct sa_file f;
	const struct sa_summary *e;

	if (EXPECT_OK(&f, "slab_account - version: 1.7\nstate: active\n"
		      "future counter: 42\nfuture note: some text: here\n"
		      LEGEND))
		return;
	CHECK(f.major == 1 && f.minor == 7);
	e = sa_summary_get(&f, "future counter");
	CHECK(e && e->is_num && e->num == 42);
	e = sa_summary_get(&f, "future note");
	CHECK(e && !e->is_num);
	CHECK_STR(e ? e->value : NULL, "some text: here");
	CHECK(f.nrows == 0);
	sa_file_free(&f);
	EXPECT_ERROR(HDR "weird:value\n" LEGEND,
		     "t.txt:2: expected a 'key: value' summary line or the '#' legend line, got 'weird:value'");
}

static void test_versions(void)
{
	struct sa_file f;

	if (EXPECT_OK(&f, "slab_account - version: 1.1\n" LEGEND) == 0) {
		CHECK(f.major == 1 && f.minor == 1 && f.nsummary == 0);
		sa_file_free(&f);
	}
	EXPECT_ERROR("slab_account - version: 2.0\n" LEGEND,
		     "t.txt:1: unsupported format version 2.0 (this reader understands 1.x)");
	EXPECT_ERROR("slab_account - version: 0.9\n" LEGEND,
		     "t.txt:1: unsupported format version 0.9 (this reader understands 1.x)");
	EXPECT_ERROR("slab_account - version: 1\n" LEGEND,
		     "t.txt:1: malformed format version '1' (expected MAJOR.MINOR)");
	EXPECT_ERROR("slab_account - version: 1.0 \n" LEGEND,
		     "t.txt:1: malformed format version '1.0 ' (expected MAJOR.MINOR)");
	EXPECT_ERROR("slab_account - version: 1.x\n" LEGEND,
		     "t.txt:1: malformed format version '1.x' (expected MAJOR.MINOR)");
	EXPECT_ERROR("slab_account - version: 99999999999999999999.0\n" LEGEND,
		     "t.txt:1: malformed format version '99999999999999999999.0' (expected MAJOR.MINOR)");
	EXPECT_ERROR("slabinfo - version: 2.1\n",
		     "t.txt:1: not a slab_account file: expected 'slab_account - version: 1.x', got 'slabinfo - version: 2.1'");
}

static void test_numbers(void)
{
	struct sa_file f;
	uint64_t v;

	CHECK(sa_parse_u64("18446744073709551615", 20, &v) == 0 && v == UINT64_MAX);
	CHECK(sa_parse_u64("18446744073709551616", 20, &v) == -1);
	CHECK(sa_parse_u64("99999999999999999999", 20, &v) == -1);
	CHECK(sa_parse_u64("007", 3, &v) == 0 && v == 7);
	CHECK(sa_parse_u64("", 0, &v) == -1);
	CHECK(sa_parse_u64("-1", 2, &v) == -1);
	CHECK(sa_parse_u64("+1", 2, &v) == -1);
	CHECK(sa_parse_u64(" 1", 2, &v) == -1);
	CHECK(sa_parse_u64("0x10", 4, &v) == -1);

	if (EXPECT_OK(&f, MINIMAL "18446744073709551615 18446744073709551615 0 0 0 0 0 18446744073709551615/0 kmalloc a\n") == 0) {
		CHECK(f.rows[0].v[SA_TOTAL] == UINT64_MAX);
		CHECK(f.rows[0].v[SA_ALLOCS] == UINT64_MAX);
		sa_file_free(&f);
	}
	EXPECT_ERROR(MINIMAL "18446744073709551616 0 0 0 0 0 0 1/0 kmalloc a\n",
		     "t.txt:5: total '18446744073709551616' is out of range (more than 18446744073709551615)");
	EXPECT_ERROR(MINIMAL "1 -2 3 0 0 0 0 1/0 kmalloc a\n",
		     "t.txt:5: slack '-2' is not an unsigned decimal number");
	EXPECT_ERROR(MINIMAL "1 2 +3 0 0 0 0 1/0 kmalloc a\n",
		     "t.txt:5: req '+3' is not an unsigned decimal number");
	EXPECT_ERROR(MINIMAL "1 2 3 4x 0 0 0 1/0 kmalloc a\n",
		     "t.txt:5: live '4x' is not an unsigned decimal number");
	EXPECT_ERROR(MINIMAL "1 2 3 4 5.0 0 0 1/0 kmalloc a\n",
		     "t.txt:5: live_req '5.0' is not an unsigned decimal number");
	EXPECT_ERROR(MINIMAL "1 2 3 4 5 abc 0 1/0 kmalloc a\n",
		     "t.txt:5: objs 'abc' is not an unsigned decimal number");
	EXPECT_ERROR(MINIMAL "1 2 3 4 5 6 0x7 1/0 kmalloc a\n",
		     "t.txt:5: peak '0x7' is not an unsigned decimal number");
	EXPECT_ERROR(HDR "number of allocs: 12x\n" LEGEND,
		     "t.txt:2: value of 'number of allocs' '12x' is not an unsigned decimal number");
	EXPECT_ERROR(HDR "table memory: 99999999999999999999\n" LEGEND,
		     "t.txt:2: value of 'table memory' '99999999999999999999' is out of range (more than 18446744073709551615)");
	EXPECT_ERROR(HDR "current objects: -1\n" LEGEND,
		     "t.txt:2: value of 'current objects' '-1' is not an unsigned decimal number");
	EXPECT_ERROR(HDR "state: running\n" LEGEND,
		     "t.txt:2: state 'running' is neither 'active' nor 'stopped'");
	EXPECT_ERROR(HDR "state: active\nstate: active\n" LEGEND,
		     "t.txt:3: duplicate summary key 'state'");
}

static void test_allocs_frees(void)
{
	EXPECT_ERROR(MINIMAL "1 2 3 4 5 6 7 12 kmalloc a\n",
		     "t.txt:5: allocs/frees '12' is not written N/M");
	EXPECT_ERROR(MINIMAL "1 2 3 4 5 6 7 12/ kmalloc a\n",
		     "t.txt:5: frees '' is not an unsigned decimal number");
	EXPECT_ERROR(MINIMAL "1 2 3 4 5 6 7 /3 kmalloc a\n",
		     "t.txt:5: allocs '' is not an unsigned decimal number");
	EXPECT_ERROR(MINIMAL "1 2 3 4 5 6 7 1/2/3 kmalloc a\n",
		     "t.txt:5: frees '2/3' is not an unsigned decimal number");
	EXPECT_ERROR(MINIMAL "1 2 3 4 5 6 7 a/b kmalloc a\n",
		     "t.txt:5: allocs 'a' is not an unsigned decimal number");
	EXPECT_ERROR(MINIMAL "1 2 3 4 5 6 7 1/99999999999999999999 kmalloc a\n",
		     "t.txt:5: frees '99999999999999999999' is out of range (more than 18446744073709551615)");
}

static void test_columns(void)
{
	EXPECT_ERROR(MINIMAL "1 2 3 4 5\n",
		     "t.txt:5: row has no 'objs' column (a row is 'total slack req live live_req objs peak allocs/frees type caller')");
	EXPECT_ERROR(MINIMAL "1 2 3 4 5 6 7\n",
		     "t.txt:5: row has no 'allocs/frees' column (a row is 'total slack req live live_req objs peak allocs/frees type caller')");
	EXPECT_ERROR(MINIMAL "1 2 3 4 5 6 7 1/0\n",
		     "t.txt:5: row has no 'type' column (a row is 'total slack req live live_req objs peak allocs/frees type caller')");
	EXPECT_ERROR(MINIMAL "5 2 3 5 4 6 7 1/0 kmalloc   \n",
		     "t.txt:5: row has no 'caller' column (a row is 'total slack req live live_req objs peak allocs/frees type caller')");
	EXPECT_ERROR(MINIMAL "5 2 3 5 4 6 7 1/0 vmalloc a\n",
		     "t.txt:5: unknown type 'vmalloc' (expected kmalloc, cache, cache:NAME or mixed)");
	EXPECT_ERROR(MINIMAL "5 2 3 5 4 6 7 1/0 cache: a\n",
		     "t.txt:5: unknown type 'cache:' (expected kmalloc, cache, cache:NAME or mixed)");
	EXPECT_ERROR(MINIMAL "5 2 3 5 4 6 7 1/0 kmalloc a\n# again\n",
		     "t.txt:6: a second '#' legend line");
}

static void test_truncated(void)
{
	EXPECT_ERROR("", "t.txt:1: empty file: expected the 'slab_account - version: 1.x' header");
	EXPECT_ERROR(HDR, "t.txt:2: unexpected end of file before the '#' legend line (truncated file?)");
	EXPECT_ERROR(HDR "state: active\nnumber of frees: 3\n",
		     "t.txt:4: unexpected end of file before the '#' legend line (truncated file?)");
	EXPECT_ERROR(HDR "state: active\n1 2 3 4 5 6 7 1/0 kmalloc a\n",
		     "t.txt:3: a call-site row before the '#' legend line (missing legend?)");
	EXPECT_ERROR(HDR "state: active\nnumber of fr",
		     "t.txt:3: line not terminated by a newline (truncated file?)");
	EXPECT_ERROR(MINIMAL "5 2 3 5 4 6 7 1/0 kmalloc a\n5 2 3 5 4 6 7 1/0 kmalloc bio_kmal",
		     "t.txt:6: line not terminated by a newline (truncated file?)");
	EXPECT_ERROR(MINIMAL "5 2 3 5 4 6 7 1/0 kmalloc a\n     26880     12",
		     "t.txt:6: line not terminated by a newline (truncated file?)");
	EXPECT_ERROR("slab_account - vers",
		     "t.txt:1: line not terminated by a newline (truncated file?)");
	EXPECT_ERROR(HDR "state: active\nsomething odd\n",
		     "t.txt:3: expected a 'key: value' summary line or the '#' legend line, got 'something odd'");
}

static void test_nul_and_crlf(void)
{
	static const char nul[] = HDR "state: act\0ive\n" LEGEND;
	struct sa_file f;
	char *err = NULL;

	CHECK(sa_parse_buffer(&f, nul, sizeof(nul) - 1, "t.txt", &err) == -1);
	CHECK_STR(err, "t.txt:2: NUL byte in line (not a text file?)");
	free(err);

	if (EXPECT_OK(&f, "slab_account - version: 1.0\r\nstate: active\r\n"
		      "number of callers: 1\r\n#\r\n"
		      "5 2 3 5 4 6 7 8/9 kmalloc foo+0x1/0x2 [m]\r\n\r\n"))
		return;
	CHECK_STR(f.summary[0].value, "active");
	CHECK(f.nsummary == 2 && f.summary[1].num == 1);
	CHECK(f.nrows == 1);
	if (f.nrows == 1)
		CHECK_STR(f.rows[0].caller, "foo+0x1/0x2 [m]");
	sa_file_free(&f);
}

/* @n letters, then " [m]" */
static char *long_caller(size_t n)
{
	char *s = malloc(n + 5);
	size_t i;

	for (i = 0; i < n; i++)
		s[i] = (char)('a' + i % 26);
	strcpy(s + n, " [m]");
	return s;
}

static void test_long_lines(void)
{
	char *caller = long_caller(10000), *text;
	struct sa_file f;
	char *err = NULL;
	FILE *fp;
	size_t len;

	len = strlen(MINIMAL) + 64 + strlen(caller);
	text = malloc(len);
	snprintf(text, len, MINIMAL "5 2 3 5 4 6 7 8/9 kmalloc %s\n", caller);
	if (EXPECT_OK(&f, text) == 0) {
		CHECK(f.nrows == 1 && strlen(f.rows[0].caller) == 10004);
		CHECK_STR(f.rows[0].caller, caller);
		sa_file_free(&f);
	}
	/* the same through a stdio stream (getline) */
	fp = tmpfile();
	CHECK(fp != NULL);
	if (fp) {
		fputs(text, fp);
		rewind(fp);
		CHECK(sa_parse_stream(&f, fp, "s", &err) == 0);
		if (!err) {
			CHECK(f.nrows == 1);
			CHECK_STR(f.rows[0].caller, caller);
			sa_file_free(&f);
		}
		free(err);
		fclose(fp);
	}
	free(text);
	free(caller);
}

static void test_many_rows(void)
{
	size_t i, n = 5000, len = 0, cap = strlen(MINIMAL) + n * 64;
	char *text = malloc(cap);
	struct sa_file f;

	len = (size_t)snprintf(text, cap, "%s", MINIMAL);
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"%zu 0 %zu 0 0 0 0 1/0 kmalloc site%zu+0x1/0x2\n",
					i, i, i);
	if (EXPECT_OK(&f, text) == 0) {
		CHECK(f.nrows == n);
		CHECK(f.rows[n - 1].v[SA_TOTAL] == n - 1);
		CHECK_STR(f.rows[n - 1].caller, "site4999+0x1/0x2");
		CHECK(f.rows[n - 1].line == 4 + n);
		sa_file_free(&f);
	}
	free(text);
}

static void test_caller_module(void)
{
	size_t n = 0;
	const char *m;

	m = sa_caller_module("foo+0x1c/0x50 [sa_test]", &n);
	CHECK(m && n == 7 && strncmp(m, "sa_test", n) == 0);
	CHECK(sa_caller_module("foo+0x1c/0x50", &n) == NULL);
	CHECK(sa_caller_module("foo [a b]", &n) == NULL);
	CHECK(sa_caller_module("[x]", &n) == NULL);
	CHECK(sa_caller_module("foo []", &n) == NULL);
	CHECK(sa_caller_module("foo[x]", &n) == NULL);
	m = sa_caller_module("a [b] [c]", &n);
	CHECK(m && n == 1 && *m == 'c');
	/* 1.2: a caller unwrapped from an allocation helper. */
	m = sa_caller_module("foo+0x1c/0x50 [sa_test] via mempool_alloc", &n);
	CHECK(m && n == 7 && strncmp(m, "sa_test", n) == 0);
	m = sa_caller_via("foo+0x1c/0x50 [sa_test] via mempool_alloc", &n);
	CHECK(m && n == 13 && strncmp(m, "mempool_alloc", n) == 0);
	m = sa_caller_via("foo+0x1c/0x50 via kvmalloc_node", &n);
	CHECK(m && n == 13 && strncmp(m, "kvmalloc_node", n) == 0);
	CHECK(sa_caller_module("foo+0x1c/0x50 via kvmalloc_node", &n) == NULL);
	CHECK(sa_caller_via("foo+0x1c/0x50 [sa_test]", &n) == NULL);
	CHECK(sa_caller_via("foo+0x1c/0x50 via ", &n) == NULL);
	CHECK(sa_caller_via(" via x", &n) == NULL);
	CHECK(sa_caller_via("via x", &n) == NULL);
}

/* (1.3) retired sites: " unloaded#N" split off first, the load of every row */
static void test_retired(void)
{
	static const char text[] = HDR "module loads: 3\nreloaded sa_leak: 2\n" LEGEND
		"5 0 5 5 5 1 5 1/0 kmalloc f+0x1/0x2 [sa_leak] unloaded#1\n"
		"5 0 5 5 5 1 5 1/0 kmalloc f+0x1/0x2 [sa_leak]\n"
		"5 0 5 5 5 1 5 1/0 kmalloc g+0x1/0x2 [other] via kvmalloc_node unloaded#12\n"
		"5 0 5 5 5 1 5 1/0 kmalloc g+0x1/0x2 [other]\n"
		"5 0 5 5 5 1 5 1/0 kmalloc h+0x1/0x2\n";
	static const uint64_t loads[] = { 1, 2, 12, 1, 0 };
	struct sa_caller c;
	struct sa_file f;
	char name[64];
	size_t i;

	sa_caller_split("f+0x1/0x2 [m] via kvmalloc_node unloaded#7", &c);
	CHECK(c.unloaded == 7 && c.klen == 31 && c.slen == 9 && c.mlen == 1 && *c.mod == 'm' &&
	      c.vlen == 13 && !strncmp(c.via, "kvmalloc_node", 13) && c.flen == 1);
	CHECK(sa_caller_module_name(&c, name, sizeof(name)) == 20);
	CHECK_STR(name, "m (load 7, unloaded)");
	sa_caller_split("f+0x1/0x2 [m] unloaded#0", &c);
	CHECK(c.unloaded == 0 && c.bad_unloaded && c.mod == NULL);
	sa_caller_split("f+0x1/0x2 [m] unloaded#", &c);
	CHECK(c.unloaded == 0 && c.bad_unloaded);
	sa_caller_split("unloaded#3", &c);
	CHECK(c.unloaded == 0 && !c.bad_unloaded && c.klen == 10);
	sa_caller_split("f+0x1/0x2 [m]", &c);
	CHECK(sa_caller_module_name(&c, name, sizeof(name)) == 1 && !strcmp(name, "m"));
	sa_caller_split("f+0x1/0x2", &c);
	CHECK(sa_caller_module_name(&c, name, sizeof(name)) == 7 && !strcmp(name, "vmlinux"));
	if (EXPECT_OK(&f, text) == 0) {
		for (i = 0; i < f.nrows; i++)
			CHECK(f.rows[i].load == loads[i] && f.rows[i].retired == (i == 0 || i == 2));
		CHECK(f.rows[0].key_len == 19 && f.rows[2].key_len == 35);
		sa_file_free(&f);
	}
	EXPECT_ERROR(MINIMAL "5 0 5 5 5 1 5 1/0 kmalloc f+0x1/0x2 [m] unloaded#0\n",
		     "t.txt:5: caller 'f+0x1/0x2 [m] unloaded#0': a retired call site ends in ' [MODULE] unloaded#N' (N >= 1)");
	EXPECT_ERROR(MINIMAL "5 0 5 5 5 1 5 1/0 kmalloc f+0x1/0x2 unloaded#2\n",
		     "t.txt:5: caller 'f+0x1/0x2 unloaded#2': a retired call site ends in ' [MODULE] unloaded#N' (N >= 1)");
	EXPECT_ERROR(HDR "reloaded m: two\n" LEGEND,
		     "t.txt:2: value of 'reloaded m' 'two' is not an unsigned decimal number");
	/* A live load after the first: 0 and 1 are no such number. */
	EXPECT_ERROR(HDR "reloaded m: 0\n" LEGEND,
		     "t.txt:2: 'reloaded m' is 0: a load number after the first (2 or more)");
	EXPECT_ERROR(HDR "reloaded m: 1\n" LEGEND,
		     "t.txt:2: 'reloaded m' is 1: a load number after the first (2 or more)");
	EXPECT_ERROR(HDR "module unloads: -1\n" LEGEND,
		     "t.txt:2: value of 'module unloads' '-1' is not an unsigned decimal number");
}

static void check_io_error(const char *path, int errnum, const char *want,
			   int line)
{
	char *s = sa_io_error(path, errnum);

	check_str(s, want, line);
	free(s);
}
#define CHECK_IO_ERROR(path, errnum, want) check_io_error((path), (errnum), (want), __LINE__)

static void test_io_errors(void)
{
	CHECK_IO_ERROR("/proc/slab_account", EACCES,
		       "/proc/slab_account: Permission denied (run as root: the file is mode 0600)");
	CHECK_IO_ERROR("/proc/slab_account", EPERM,
		       "/proc/slab_account: Operation not permitted (run as root: the file is mode 0600)");
	CHECK_IO_ERROR("/proc/slab_account", ENOENT,
		       "/proc/slab_account: No such file or directory (is the module loaded? insmod slab_account.ko)");
	CHECK_IO_ERROR("before.txt", ENOENT, "before.txt: No such file or directory");
	CHECK_IO_ERROR("before.txt", EACCES, "before.txt: Permission denied");
	CHECK_IO_ERROR("-", EIO, "<stdin>: Input/output error");
	CHECK_STR(sa_display_name("-"), "<stdin>");
	CHECK_STR(sa_display_name("x"), "x");
}

/* sa_load(@path) must fail with "PATH: @what". */
static void check_load_error(const char *path, const char *what, int line)
{
	struct sa_file f;
	char *err = NULL, want[256];

	snprintf(want, sizeof(want), "%s: %s", path, what);
	check(sa_load(&f, path, &err) == -1, line, "sa_load(%s) succeeded", path);
	check_str(err, want, line);
	free(err);
}

static void test_load(void)
{
	char dir[] = "/tmp/sa_parse_test.XXXXXX", path[64];
	struct sa_file f;
	char *err = NULL;
	FILE *fp;

	if (!CHECK(mkdtemp(dir) != NULL))
		return;
	snprintf(path, sizeof(path), "%s/f", dir);
	fp = fopen(path, "w");
	if (CHECK(fp != NULL)) {
		fputs(MINIMAL "5 2 3 5 4 6 7 8/9 kmalloc a [m]\n", fp);
		fclose(fp);
		CHECK(sa_load(&f, path, &err) == 0);
		if (!err) {
			CHECK(f.nrows == 1);
			CHECK_STR(f.name, path);
			sa_file_free(&f);
		}
		free(err);
		err = NULL;
		unlink(path);
	}
	check_load_error(path, "No such file or directory", __LINE__);
	check_load_error(dir, "Is a directory", __LINE__);
	rmdir(dir);
}

static void test_read_fd_pipe(void)
{
	int fds[2];
	size_t i, len = 0, n = 200000;
	char *buf = NULL;

	if (!CHECK(pipe(fds) == 0))
		return;
	if (fork() == 0) {
		char chunk[1000];

		close(fds[0]);
		memset(chunk, 'x', sizeof(chunk));
		for (i = 0; i < n / sizeof(chunk); i++)
			if (write(fds[1], chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk))
				_exit(1);
		_exit(0);
	}
	close(fds[1]);
	CHECK(sa_read_fd(fds[0], &buf, &len) == 0);
	close(fds[0]);
	CHECK(len == n && buf && buf[n] == '\0' && buf[n - 1] == 'x');
	free(buf);
}

static void test_row_rules(void)
{
	struct sa_file f;

	EXPECT_ERROR(MINIMAL "1 0 3 0 0 0 0 1/0 kmalloc a\n",
		     "t.txt:5: req 3 is more than total 1 (a row has req <= total)");
	EXPECT_ERROR(MINIMAL "10 2 7 0 0 0 0 1/0 kmalloc a\n",
		     "t.txt:5: slack 2 is not total - req (10 - 7 = 3)");
	EXPECT_ERROR(MINIMAL "10 3 7 4 5 1 4 1/0 kmalloc a\n",
		     "t.txt:5: live_req 5 is more than live 4 (a row has live_req <= live)");
	/* the limits themselves are rows like any other */
	if (EXPECT_OK(&f, MINIMAL "7 0 7 7 7 1 7 1/0 kmalloc a\n0 0 0 0 0 0 0 0/0 kmalloc b\n") == 0) {
		CHECK(f.nrows == 2);
		sa_file_free(&f);
	}
}

static void test_check_sums(void)
{
	struct sa_file f;
	char buf[256];

	if (EXPECT_OK(&f, HDR "state: stopped\ntotal bytes allocated: 15\n"
		      "total bytes requested: 10\nslack bytes allocated: 5\n"
		      "current bytes allocated: 8\ncurrent bytes requested: 6\n"
		      "current objects: 2\nnumber of allocs: 3\nnumber of frees: 1\n"
		      "number of callers: 2\n" LEGEND
		      "10 3 7 4 3 1 4 2/1 kmalloc a\n5 2 3 4 3 1 4 1/0 kmalloc b\n") == 0) {
		CHECK(sa_check_sums(&f, buf, sizeof(buf)) == 0);
		CHECK_STR(buf, "");
		sa_file_free(&f);
	}
	if (EXPECT_OK(&f, HDR "state: stopped\ntotal bytes allocated: 15\n"
		      "number of callers: 3\nnumber of frees: 1\nfuture key: 9\n" LEGEND
		      "10 3 7 4 3 1 4 2/1 kmalloc a\n") == 0) {
		CHECK(sa_check_sums(&f, buf, sizeof(buf)) == 2);
		CHECK_STR(buf, "number of callers 3, rows 1; total bytes allocated 15, the rows' sum 10");
		CHECK(sa_check_sums(&f, buf, 12) == 2);
		CHECK_STR(buf, "number of c");
		sa_file_free(&f);
	}
}

/* A file that is not ours is said to be so after its first bytes. */
static void test_load_limits(void)
{
	char path[] = "/tmp/sa_parse_test.XXXXXX", *err = NULL;
	struct sa_file f;
	int fd = mkstemp(path);
	FILE *fp;
	size_t i;

	if (!CHECK(fd >= 0) || !CHECK((fp = fdopen(fd, "w")) != NULL))
		return;
	fputs(MINIMAL, fp);
	for (i = 0; i < 100; i++)
		fputs("5 2 3 5 4 6 7 8/9 kmalloc a_caller_of_some_length [m]\n", fp);
	fclose(fp);
	CHECK(sa_load_max(&f, path, 0, &err) == 0 && f.nrows == 100);
	sa_file_free(&f);
	CHECK(sa_load_max(&f, path, 8192, &err) == 0 && f.nrows == 100);
	sa_file_free(&f);
	CHECK(sa_load_max(&f, path, 1000, &err) == -1);
	if (err && strstr(err, ": more than 1000 bytes: too large for a slab_account file (--max-input raises the limit)") &&
	    strncmp(err, path, strlen(path)) == 0)
		;
	else
		check(0, __LINE__, "error '%s'", err ? err : "(null)");
	free(err);
	err = NULL;
	CHECK(sa_load(&f, "/dev/zero", &err) == -1);
	CHECK_STR(err, "/dev/zero:1: not a slab_account file: expected 'slab_account - version: 1.x', got '????????????????????????????????????????...'");
	free(err);
	unlink(path);
}

/* ---- the detail file (sa_detail.c) ---- */

#define DHEAD(classes) "slab_account detail - version: 1.0\nnow: 100\npage size: 4096\n" \
	"kmalloc classes: " classes "\nage bounds: 1 10 60 600 3600\n" \
	"size bounds: 8 16 32 64 128 256 512 1024 2048 4096 8192\n"
#define DLEGEND "# objs bytes req oldest byte_secs ...\n"
#define DROW "2 192 150 40 4000 0 1 1 0 0 0 72 78 0 0 0 0 5 0 0 0 0 0 0 0 kmalloc f+0x1/0x2 [m]\n"

static int dparse(struct sa_detail *d, const char *text, char **err)
{
	free(*err);
	*err = NULL;
	return sa_detail_parse_buffer(d, text, strlen(text), "t", err);
}

static void test_detail(void)
{
	struct sa_detail d;
	char *err = NULL;

	if (CHECK(dparse(&d, DHEAD("8 16 32 64 96 128 192 256 512 1024 2048 4096 8192")
			 "future key: 1 2 3\nobjects scanned: 2\n" DLEGEND DROW, &err) == 0)) {
		CHECK(d.now == 100 && d.page_size == 4096 && d.nclasses == 13);
		CHECK(d.nrows == 1 && d.rows[0].v[SA_D_REQ_MAX] == 78 &&
		      d.rows[0].v[SA_D_SIZE + 4] == 5 && d.rows[0].site.type == SA_TYPE_KMALLOC);
		CHECK_STR(d.rows[0].site.caller, "f+0x1/0x2 [m]");
		CHECK(sa_detail_alloc_size(&d, 1) == 8 && sa_detail_alloc_size(&d, 72) == 96 &&
		      sa_detail_alloc_size(&d, 8192) == 8192 &&
		      sa_detail_alloc_size(&d, 8193) == 16384 &&
		      sa_detail_alloc_size(&d, 16385) == 32768 && sa_detail_alloc_size(&d, 0) == 0);
		sa_detail_free(&d);
	}
	if (CHECK(dparse(&d, DHEAD("128 192 256 512 1024 2048 4096 8192")
			 "objects scanned: 2\r\n" DLEGEND "\n" DROW, &err) == 0)) {
		CHECK(sa_detail_alloc_size(&d, 8) == 128 && sa_detail_alloc_size(&d, 129) == 192);
		sa_detail_free(&d);
	}
	CHECK(dparse(&d, DHEAD("8 16") DLEGEND DROW, &err) == -1);
	CHECK_STR(err, "t:7: no 'objects scanned' line before the legend");
	CHECK(dparse(&d, DHEAD("8 16") "objects scanned: 3\n" DLEGEND DROW, &err) == -1);
	CHECK_STR(err, "t:10: objects scanned 3 is not the rows' sum of objs 2");
	CHECK(dparse(&d, DHEAD("16 8") "objects scanned: 2\n" DLEGEND DROW, &err) == -1);
	CHECK_STR(err, "t:4: 'kmalloc classes' is not strictly ascending (8 after 16)");
	CHECK(dparse(&d, DHEAD("8") "objects scanned: 2\n" DLEGEND
		     "2 192 150 101 4000 0 1 1 0 0 0 72 78 0 0 0 0 5 0 0 0 0 0 0 0 kmalloc f\n", &err) == -1);
	CHECK_STR(err, "t:9: oldest 101 is more than now 100");
	CHECK(dparse(&d, DHEAD("8") "objects scanned: 0\n" DLEGEND
		     "0 8 0 0 0 0 0 0 0 0 0 72 78 0 0 0 0 5 0 0 0 0 0 0 0 kmalloc f\n", &err) == -1);
	CHECK_STR(err, "t:9: objs is 0 but bytes, req, oldest or byte_secs is not");
	CHECK(dparse(&d, DHEAD("8") "objects scanned: 2\n" DLEGEND
		     "2 192 150 40 4000 0 1 1 0 0 0 79 78 0 0 0 0 5 0 0 0 0 0 0 0 kmalloc f\n", &err) == -1);
	CHECK_STR(err, "t:9: req_min 79 is more than req_max 78");
	CHECK(dparse(&d, DHEAD("8") "objects scanned: 2\n" DLEGEND
		     "2 192 150 40 4000 0 1 1 0 0 0 72 78 0 0 0 0 5 0 0 0 0 0 0 kmalloc f\n", &err) == -1);
	CHECK_STR(err, "t:9: size>8K 'kmalloc' is not an unsigned decimal number");
	CHECK(dparse(&d, DHEAD("8") "objects scanned: 2\n" DLEGEND
		     "2 192 150 40 4000 0 1 1 0 0 0 72 78 0 0 0 0 5 0 0 0 0 0 0 0 kmalloc\n", &err) == -1);
	CHECK_STR(err, "t:9: row has no 'caller' column");
	CHECK(dparse(&d, DHEAD("8") "objects scanned: 2\n" DLEGEND "2 192", &err) == -1);
	CHECK_STR(err, "t:9: line not terminated by a newline (truncated file?)");
	CHECK(dparse(&d, "slab_account detail - version: 3.1\n", &err) == -1);
	CHECK_STR(err, "t:1: unsupported detail format version 3.1 (this reader understands 1.x)");
	CHECK(dparse(&d, "", &err) == -1);
	CHECK_STR(err, "t:1: empty file: expected the 'slab_account detail - version: 1.x' header");
	free(err);
}

/* A descriptor open on a temporary file holding @len bytes of @s, or -1. */
static int temp_fd(const char *s, size_t len)
{
	FILE *fp = tmpfile();
	int fd;

	if (!fp)
		return -1;
	if (fwrite(s, 1, len, fp) != len || fflush(fp)) {
		fclose(fp);
		return -1;
	}
	fd = dup(fileno(fp));
	fclose(fp);
	if (fd >= 0 && lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The same text read from a buffer, a stream, a descriptor (its first byte
 * read already) and an sa_lines_fd() buffer alone gives the same lines.
 */
static void test_lines(void)
{
	static const char text[] = "a\r\n\nb\0c\r\nlast\r";
	static const struct { const char *s; size_t n; int nl; } want[] = {
		{ "a", 1, 1 }, { "", 0, 1 }, { "b", 3, 1 }, { "last", 4, 0 },
	};
	int pass;

	for (pass = 0; pass < 4; pass++) {
		struct sa_lines l = { .buf = text, .len = sizeof(text) - 1 };
		int fd = -1;
		size_t i;

		if (pass == 1 &&
		    !CHECK((l.fp = fmemopen((void *)text, sizeof(text) - 1, "r")) != NULL))
			return;
		if (pass == 2) {
			fd = temp_fd(text, sizeof(text) - 1);
			if (!CHECK(fd >= 0) || !CHECK(lseek(fd, 1, SEEK_SET) == 1) ||
			    !CHECK(sa_lines_fd(&l, fd, text, 1) == 0))
				return;
		}
		if (pass == 3 && !CHECK(sa_lines_fd(&l, -1, text, sizeof(text) - 1) == 0))
			return;
		for (i = 0; i < 4; i++) {
			CHECK(sa_lines_next(&l) == 1);
			CHECK(l.lineno == i + 1 && l.n == want[i].n && l.newline == want[i].nl &&
			      !strcmp(l.line, want[i].s));
		}
		CHECK(sa_lines_next(&l) == 0);
		if (l.fp)
			fclose(l.fp);
		if (fd >= 0)
			close(fd);
		sa_lines_free(&l);
	}
}

static void count_progress(void *arg, uint64_t done)
{
	uint64_t *last = arg;

	CHECK(done >= *last);
	*last = done;
}

/*
 * A descriptor's lines longer than its 64 KiB chunks are whole, the
 * progress callback ends at the file's size, and a line past l->max is an
 * error (too_long set) from every source, the lines before it read.
 */
static void test_lines_long(void)
{
	const size_t big = 200000;
	size_t len = big + 1 + 4 + big + 2;
	char *text = malloc(len);
	int pass;

	if (!CHECK(text != NULL))
		return;
	memset(text, 'x', len);
	text[big] = '\n';
	memcpy(text + big + 1, "ok\r\n", 4);
	text[len - 1] = '\n';
	for (pass = 0; pass < 2; pass++) {
		struct sa_lines l = { .progress = count_progress };
		uint64_t done = 0;
		int fd = temp_fd(text, len);

		if (!CHECK(fd >= 0))
			break;
		l.arg = &done;
		l.max = pass ? big : 0;
		if (!CHECK(sa_lines_fd(&l, fd, "", 0) == 0)) {
			close(fd);
			break;
		}
		CHECK(sa_lines_next(&l) == 1 && l.n == big && strlen(l.line) == big);
		CHECK(sa_lines_next(&l) == 1 && l.n == 2 && !strcmp(l.line, "ok"));
		if (pass) {
			CHECK(sa_lines_next(&l) == -1 && l.too_long && l.lineno == 2);
		} else {
			CHECK(sa_lines_next(&l) == 1 && l.n == big + 1 && l.line[big] == 'x');
			CHECK(sa_lines_next(&l) == 0 && done == len && l.lineno == 3);
		}
		close(fd);
		sa_lines_free(&l);
	}
	for (pass = 0; pass < 2; pass++) {
		struct sa_lines l = { .buf = text, .len = len, .max = big };

		if (pass && !CHECK((l.fp = fmemopen(text, len, "r")) != NULL))
			break;
		CHECK(sa_lines_next(&l) == 1 && l.n == big);
		CHECK(sa_lines_next(&l) == 1 && l.n == 2);
		CHECK(sa_lines_next(&l) == -1 && l.too_long && l.lineno == 2);
		if (l.fp)
			fclose(l.fp);
		sa_lines_free(&l);
	}
	free(text);
}

#define UHEAD "slab_account unloads - version: 1.0\n"
#define ULEGENDS "# when module load objs bytes req sites\n#   objs bytes req oldest type caller\n"

static int uparse(struct sa_unloads *u, const char *text, char **err)
{
	free(*err);
	*err = NULL;
	return sa_unloads_parse_buffer(u, text, strlen(text), "u", err);
}

/* The one header parser: each key once, in all three files; unknown keys ignored once. */
static void test_header_keys(void)
{
	struct sa_unloads u;
	struct sa_detail d;
	struct sa_file f;
	char *err = NULL;

	if (CHECK(uparse(&u, UHEAD "now: 5\nunloads: 0\nkept: 0\nlater: x\n" ULEGENDS, &err) == 0))
		sa_unloads_free(&u);
	CHECK(uparse(&u, UHEAD "now: 5\nunloads: 0\nnow: 6\n", &err) == -1);
	CHECK_STR(err, "u:4: duplicate key 'now'");
	CHECK(uparse(&u, UHEAD "now: 5\nlater: 1\nlater: 2\n", &err) == -1);
	CHECK_STR(err, "u:4: duplicate key 'later'");
	CHECK(uparse(&u, UHEAD "now 5\n", &err) == -1);
	CHECK_STR(err, "u:2: expected a 'key: value' line or the '#' legend lines, got 'now 5'");
	CHECK(dparse(&d, DHEAD("8") "page size: 4096\n", &err) == -1);
	CHECK_STR(err, "t:7: duplicate key 'page size'");
	CHECK(dparse(&d, DHEAD("8") "future: 1\nfuture: 1\n", &err) == -1);
	CHECK_STR(err, "t:8: duplicate key 'future'");
	CHECK(dparse(&d, DHEAD("8") ": 1\n", &err) == -1);
	CHECK_STR(err, "t:7: expected a 'key: value' line or the '#' legend line, got ': 1'");
	free(err);
	err = NULL;
	CHECK(parse(&f, HDR "later key: a\nlater key: b\n" LEGEND, &err) == -1);
	CHECK_STR(err, "t.txt:3: duplicate summary key 'later key'");
	free(err);
}

/* A JSON document nested SA_JSON_DEPTH deep is written; one level more stops. */
static void test_json_depth(void)
{
	int depth, status;

	for (depth = SA_JSON_DEPTH; depth <= SA_JSON_DEPTH + 1; depth++) {
		pid_t pid = fork();

		if (!CHECK(pid >= 0))
			return;
		if (pid == 0) {
			struct sa_json j;
			FILE *out = fopen("/dev/null", "w");
			int i;

			if (!out || !freopen("/dev/null", "w", stderr))
				_exit(3);
			sa_json_begin(&j, out);
			for (i = 1; i < depth; i++) {
				sa_json_key(&j, "k");
				sa_json_open(&j, '[', 0);
			}
			for (i = 1; i < depth; i++)
				sa_json_close(&j);
			sa_json_end(&j);
			_exit(0);
		}
		CHECK(waitpid(pid, &status, 0) == pid);
		if (depth <= SA_JSON_DEPTH)
			CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		else
			CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	}
}

/* (1.6) child rows: the context split off the caller, checked against `split` */
#define HDR16 "slab_account - version: 1.6\n"
static void test_ctx(void)
{
	static const char text[] = HDR16 "split: task\ncontext rows: 3\nnumber of callers: 4\n" LEGEND
		"5 0 5 5 5 1 5 1/0 kmalloc f+0x1/0x2 [m] via kvmalloc_node\n"
		"5 0 5 5 5 1 5 1/0 kmalloc f+0x1/0x2 [m] via kvmalloc_node @stack:12 @task:a@b\n"
		"5 0 5 5 5 1 5 1/0 kmalloc f+0x1/0x2 [m] unloaded#2 @irq\n"
		"5 0 5 5 5 1 5 1/0 kmalloc g+0x1/0x2 @stack:3\n";
	struct sa_file f;
	struct sa_caller c;
	char buf[256];

	/* a context (as the detail file writes it) is not part of the site */
	sa_caller_split("f+0x1/0x2 [m] via kvmalloc_node unloaded#2 @stack:4 @task:a_[b]", &c);
	CHECK(c.mod && c.mlen == 1 && *c.mod == 'm' && c.unloaded == 2 && c.vlen == 13 &&
	      c.klen == 31 && c.slen == 9);
	if (EXPECT_OK(&f, text) == 0) {
		const struct sa_row *r = f.rows;

		CHECK(f.nctx == 3 && r[0].ctx == NULL && r[0].cx.kind == SA_CTX_NONE);
		CHECK_STR(r[1].caller, "f+0x1/0x2 [m] via kvmalloc_node");
		CHECK_STR(r[1].ctx, "@stack:12 @task:a@b");
		CHECK(r[1].cx.stack == 12 && r[1].cx.kind == SA_CTX_TASK && r[1].cx.tlen == 3 &&
		      !strncmp(r[1].cx.task, "a@b", 3));
		CHECK(r[2].retired && r[2].load == 2 && r[2].cx.kind == SA_CTX_IRQ && !r[2].cx.stack);
		CHECK_STR(r[3].caller, "g+0x1/0x2");
		CHECK(r[3].cx.stack == 3 && r[3].cx.kind == SA_CTX_NONE);
		CHECK(sa_check_sums(&f, buf, sizeof(buf)) == 0);
		sa_file_free(&f);
	}
	/* Before 1.6 an '@' is part of the caller. */
	if (EXPECT_OK(&f, MINIMAL "5 0 5 5 5 1 5 1/0 kmalloc f+0x1/0x2 @node:1\n") == 0) {
		CHECK(f.nctx == 0 && f.rows[0].ctx == NULL);
		CHECK_STR(f.rows[0].caller, "f+0x1/0x2 @node:1");
		sa_file_free(&f);
	}
	/*
	 * `context rows` counts the table's child rows, the empty ones a
	 * reset left (not printed) too: fewer printed is no mismatch, more is.
	 */
	if (EXPECT_OK(&f, HDR16 "split: node\ncontext rows: 2\n" LEGEND
		      "5 0 5 5 5 1 5 1/0 kmalloc f+0x1/0x2 @node:1\n") == 0) {
		CHECK(f.rows[0].cx.kind == SA_CTX_NODE && f.rows[0].cx.id == 1);
		CHECK(sa_check_sums(&f, buf, sizeof(buf)) == 0);
		sa_file_free(&f);
	}
	if (EXPECT_OK(&f, HDR16 "split: node\ncontext rows: 1\n" LEGEND
		      "5 0 5 5 5 1 5 1/0 kmalloc f+0x1/0x2 @node:1\n"
		      "5 0 5 5 5 1 5 1/0 kmalloc f+0x1/0x2 @node:0\n") == 0) {
		CHECK(sa_check_sums(&f, buf, sizeof(buf)) == 1);
		CHECK_STR(buf, "context rows 1, child rows 2");
		sa_file_free(&f);
	}
	EXPECT_ERROR(HDR16 "split: cgroup\n" LEGEND "5 0 5 5 5 1 5 1/0 kmalloc f+0x1/0x2 @node:1\n",
		     "t.txt:4: context '@node:1' in a file whose split is 'cgroup'");
	EXPECT_ERROR(HDR16 "split: node\n" LEGEND "5 0 5 5 5 1 5 1/0 kmalloc f+0x1/0x2 @irq\n",
		     "t.txt:4: context '@irq' in a file whose split is 'node'");
	EXPECT_ERROR(HDR16 LEGEND "5 0 5 5 5 1 5 1/0 kmalloc f+0x1/0x2 @cgroup:5\n",
		     "t.txt:3: context '@cgroup:5' in a file whose split is '(not given)'");
	EXPECT_ERROR(HDR16 LEGEND "5 0 5 5 5 1 5 1/0 kmalloc f+0x1/0x2 @stack:0\n",
		     "t.txt:3: context '@stack:0': a stack id is a decimal number, 1 or more");
	EXPECT_ERROR(HDR16 "split: cgroup\n" LEGEND "5 0 5 5 5 1 5 1/0 kmalloc f @cgroup:x1\n",
		     "t.txt:4: context '@cgroup:x1': a cgroup id is a decimal number");
	EXPECT_ERROR(HDR16 "split: cgroup\n" LEGEND "5 0 5 5 5 1 5 1/0 kmalloc f @irq @x\n",
		     "t.txt:4: context '@irq @x': nothing may follow the split context");
	EXPECT_ERROR(HDR16 LEGEND "5 0 5 5 5 1 5 1/0 kmalloc f @pid:3\n",
		     "t.txt:3: context '@pid:3': expected @stack:ID, then one of @cgroup:ID, @node:N, @task:COMM or @irq");
	EXPECT_ERROR(HDR16 "split: task\n" LEGEND "5 0 5 5 5 1 5 1/0 kmalloc f @task:\n",
		     "t.txt:4: context '@task:': a task name is one word, not empty");
	EXPECT_ERROR(HDR16 "split: numa\n" LEGEND,
		     "t.txt:2: split 'numa' is not one of none, cgroup, node, task");
	EXPECT_ERROR(HDR16 "stacks: many\n" LEGEND,
		     "t.txt:2: value of 'stacks' 'many' is not an unsigned decimal number");
}

/* (1.6) cgroup ids to paths: the matching, then a real directory tree walked */
static void test_cgroups(void)
{
	struct sa_cgroup v[] = { { 1, (char *)"/" }, { 40, (char *)"/a" }, { 41, (char *)"/a/b" } };
	struct sa_cgroups c = { v, 3 }, t;
	char dir[] = "/tmp/sa_cgroup_testXXXXXX", path[64], *err = NULL;
	struct stat st;
	uint64_t id = 0;

	CHECK_STR(sa_cgroups_path(&c, 41), "/a/b");
	CHECK(sa_cgroups_path(&c, 42) == NULL && sa_cgroups_path(NULL, 1) == NULL);
	CHECK(sa_cgroups_id(&c, "/a/b", &id) == 0 && id == 41);
	CHECK(sa_cgroups_id(&c, "a/b/", &id) == 0 && id == 41);
	CHECK(sa_cgroups_id(&c, "/", &id) == 0 && id == 1);
	CHECK(sa_cgroups_id(&c, "/a/c", &id) == -1 && sa_cgroups_id(&c, "b", &id) == -1);
	if (!CHECK(mkdtemp(dir) != NULL))
		return;
	snprintf(path, sizeof(path), "%s/x", dir);
	CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof(path), "%s/x/y", dir);
	CHECK(mkdir(path, 0700) == 0);
	if (CHECK(sa_cgroups_load(&t, dir, &err) == 0) && CHECK(stat(path, &st) == 0)) {
		CHECK(t.n == 3);
		CHECK_STR(sa_cgroups_path(&t, (uint64_t)st.st_ino), "/x/y");
		CHECK(sa_cgroups_id(&t, "/x/y", &id) == 0 && id == (uint64_t)st.st_ino);
		sa_cgroups_free(&t);
	}
	rmdir(path);
	snprintf(path, sizeof(path), "%s/x", dir);
	rmdir(path);
	rmdir(dir);
	CHECK(sa_cgroups_load(&t, dir, &err) == -1 && err && strstr(err, "No such file"));
	free(err);
}

/* (1.6) the stacks file: records in id order, frames innermost first */
#define SHDR "slab_account stacks - version: 1.0\nstacks: 2\n# stack ID FRAMES\n"
static void test_stacks(void)
{
	static const char text[] = SHDR "stack 2 2\n  f+0x1/0x2 [m]\n  g+0x3/0x4  \nstack 7 1\n  h+0x1/0x2\n";
	struct sa_stacks st;
	char *err = NULL;
	size_t i;
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "slab_account stacks - version: 3.0\n# x\n",
		  "t:1: unsupported stacks format version 3.0 (this reader understands 1.x to 2.x)" },
		{ "slab_account stacks - version: 0.9\n# x\n",
		  "t:1: unsupported stacks format version 0.9 (this reader understands 1.x to 2.x)" },
		{ "slab_account - version: 1.6\n", "t:1: not a slab_account stacks file: expected 'slab_account stacks - version: 2.x', got 'slab_account - version: 1.6'" },
		{ SHDR "stack 0 1\n  f\n", "t:4: a stack id is a decimal number, 1 or more (a record is 'stack ID FRAMES', then FRAMES lines of two spaces and a frame)" },
		{ SHDR "stack 3 0\n", "t:4: stack 3: its number of frames is 1 to 1024 (a record is 'stack ID FRAMES', then FRAMES lines of two spaces and a frame)" },
		{ SHDR "stack 3 2\n  f\nstack 4 1\n", "t:6: stack 3: 1 frame lines missing (a record is 'stack ID FRAMES', then FRAMES lines of two spaces and a frame)" },
		{ SHDR "stack 3 2\n  f\n", "t:6: stack 3: 1 frame lines missing (truncated file?)" },
		{ SHDR "stack 3 1\n  f\nstack 3 1\n  f\n", "t:6: stack 3 after stack 3 (records come in id order, each id once)" },
		{ SHDR "stack 3 1\n   \n", "t:5: stack 3: an empty frame" },
		{ SHDR "stack 3 1\n  f\n  g\n", "t:6: a frame line after its record's frames (a record is 'stack ID FRAMES', then FRAMES lines of two spaces and a frame)" },
		{ SHDR "stack 3 1 x\n", "t:4: stack 3: more than an id and a number of frames (a record is 'stack ID FRAMES', then FRAMES lines of two spaces and a frame)" },
		{ "slab_account stacks - version: 1.0\nstacks: 1\n", "t:3: unexpected end of file before the '#' legend line (truncated file?)" },
		{ "slab_account stacks - version: 1.0\nstacks: 1\nstacks: 2\n# x\n", "t:3: duplicate key 'stacks'" },
		{ SHDR "stack 3 1\n  f", "t:5: line not terminated by a newline (truncated file?)" },
	};

	if (CHECK(sa_stacks_parse_buffer(&st, text, strlen(text), "t", &err) == 0)) {
		CHECK(st.major == 1 && st.n == 2 && st.v[0].id == 2 && st.v[0].n == 2);
		CHECK_STR(st.v[0].frames[0], "f+0x1/0x2 [m]");
		CHECK_STR(st.v[0].frames[1], "g+0x3/0x4");
		CHECK(sa_stacks_get(&st, 7) == &st.v[1] && sa_stacks_get(&st, 3) == NULL &&
		      sa_stacks_get(&st, 1) == NULL && sa_stacks_get(&st, 8) == NULL);
		sa_stacks_free(&st);
	}
	free(err);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = NULL;
		if (!CHECK(sa_stacks_parse_buffer(&st, bad[i].text, strlen(bad[i].text), "t", &err)))
			sa_stacks_free(&st);
		else if (CHECK(st.v == NULL && st.n == 0 && st.name == NULL))
			CHECK_STR(err, bad[i].want);
		free(err);
	}
}

/*
 * (2.x) each record's first allocation's context; in 2.0 nothing after it,
 * in a later minor words after it ignored
 */
#define SHDR20 "slab_account stacks - version: 2.0\nstacks: 4\n# stack ID FRAMES FIRST\n"
#define SHDR21 "slab_account stacks - version: 2.1\nstacks: 4\n# stack ID FRAMES FIRST\n"
#define FHINT " (2.x: a record is 'stack ID FRAMES FIRST', FIRST 'pid P tid T comm COMM [cgroup ID]' or 'irq')"
static void test_stacks_first(void)
{
	static const char text[] = SHDR20
		"stack 1 1 pid 412 tid 412 comm sa_run_a cgroup 7788\n  f+0x1/0x2\n"
		"stack 2 1 pid 413 tid 420 comm irq\n  g+0x1/0x2\n"
		"stack 5 1 irq\n  h+0x1/0x2\n"
		"stack 6 1 pid 4294967295 tid 2 comm 123456789012345 cgroup 18446744073709551615\n  i+0x1/0x2\n"
		"stack 7 1 irq  \t\n  j+0x1/0x2\n";
	static const char later[] = SHDR21
		"stack 6 1 pid 1 tid 2 comm x cgroup 3 node 3\n  i+0x1/0x2\n"
		"stack 7 1 irq later words\n  j+0x1/0x2\n"
		"stack 8 1 pid 1 tid 2 comm x later\n  k+0x1/0x2\n";
	static const char v10[] = SHDR "stack 2 1\n  f+0x1/0x2\n";
	static const char v11[] = "slab_account stacks - version: 1.1\n# x\nstack 2 1 pid 1\n  f\n";
	struct sa_stacks st;
	char *err = NULL;
	size_t i;
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ SHDR20 "stack 3 1\n  f\n", "t:4: stack 3: no first allocation's context" FHINT },
		{ SHDR20 "stack 3 1 pid 1 tid 1\n  f\n", "t:4: stack 3: no first allocation's context" FHINT },
		{ SHDR20 "stack 3 1 pid x tid 1 comm c\n  f\n", "t:4: stack 3: no first allocation's context" FHINT },
		{ SHDR20 "stack 3 1 tid 1 pid 1 comm c\n  f\n", "t:4: stack 3: no first allocation's context" FHINT },
		{ SHDR20 "stack 3 1 pid 1 tid 1 comm c cgroup -1\n  f\n", "t:4: stack 3: a cgroup id is a decimal number" FHINT },
		{ SHDR20 "stack 3 1 pid 1 tid 1 comm c cgroup\n  f\n", "t:4: stack 3: a cgroup id is a decimal number" FHINT },
		{ SHDR20 "stack 3 1 pid 4294967296 tid 1 comm c\n  f\n", "t:4: stack 3: a pid or tid above 4294967295" FHINT },
		{ SHDR20 "stack 3 1 pid 1 tid 4294967296 comm c\n  f\n", "t:4: stack 3: a pid or tid above 4294967295" FHINT },
		{ SHDR20 "stack 3 1 pid 1 tid 1 comm 1234567890123456\n  f\n", "t:4: stack 3: a comm longer than 15 bytes" FHINT },
		{ SHDR20 "stack 3 1 pid 1 tid 1 comm x y cgroup 6\n  f\n", "t:4: stack 3: more than its first allocation's context" FHINT },
		{ SHDR20 "stack 3 1 pid 1 tid 1 comm x cgroup 5 cgroup 6\n  f\n", "t:4: stack 3: more than its first allocation's context" FHINT },
		{ SHDR20 "stack 3 1 irq x\n  f\n", "t:4: stack 3: more than its first allocation's context" FHINT },
	};

	if (CHECK(sa_stacks_parse_buffer(&st, text, strlen(text), "t", &err) == 0)) {
		CHECK(st.major == 2 && st.minor == 0 && st.n == 5);
		CHECK(st.v[0].first.have && !st.v[0].first.irq && st.v[0].first.pid == 412 &&
		      st.v[0].first.tid == 412 && st.v[0].first.has_cgroup &&
		      st.v[0].first.cgroup == 7788);
		CHECK_STR(st.v[0].first.comm, "sa_run_a");
		/* a task named irq is a task; no cgroup: a kernel without them */
		CHECK(st.v[1].first.have && !st.v[1].first.irq && st.v[1].first.pid == 413 &&
		      st.v[1].first.tid == 420 && !st.v[1].first.has_cgroup &&
		      st.v[1].first.cgroup == 0);
		CHECK_STR(st.v[1].first.comm, "irq");
		CHECK(st.v[2].id == 5 && st.v[2].first.have && st.v[2].first.irq &&
		      st.v[2].first.comm == NULL && st.v[2].first.pid == 0);
		/* the largest: a u32 pid, a name of 15 bytes, a u64 cgroup id */
		CHECK(st.v[3].first.have && st.v[3].first.pid == UINT32_MAX &&
		      st.v[3].first.tid == 2 && st.v[3].first.cgroup == UINT64_MAX);
		CHECK_STR(st.v[3].first.comm, "123456789012345");
		CHECK(st.v[4].first.have && st.v[4].first.irq);
		CHECK_STR(st.v[4].frames[0], "j+0x1/0x2");
		sa_stacks_free(&st);
	}
	free(err);
	err = NULL;
	/* 2.1: words after FIRST are a later minor's */
	if (CHECK(sa_stacks_parse_buffer(&st, later, strlen(later), "t", &err) == 0)) {
		CHECK(st.major == 2 && st.minor == 1 && st.n == 3);
		CHECK(st.v[0].first.have && st.v[0].first.has_cgroup && st.v[0].first.cgroup == 3);
		CHECK(st.v[1].first.have && st.v[1].first.irq);
		CHECK(st.v[2].first.have && !st.v[2].first.has_cgroup);
		CHECK_STR(st.v[2].first.comm, "x");
		sa_stacks_free(&st);
	}
	free(err);
	err = NULL;
	/* 1.x: no first context; words after N are a later 1.x minor's */
	if (CHECK(sa_stacks_parse_buffer(&st, v10, strlen(v10), "t", &err) == 0)) {
		CHECK(st.major == 1 && st.minor == 0 && st.n == 1 && !st.v[0].first.have &&
		      !st.v[0].first.irq && st.v[0].first.comm == NULL);
		sa_stacks_free(&st);
	}
	free(err);
	err = NULL;
	if (CHECK(sa_stacks_parse_buffer(&st, v11, strlen(v11), "t", &err) == 0)) {
		CHECK(st.major == 1 && st.minor == 1 && st.n == 1 && !st.v[0].first.have);
		sa_stacks_free(&st);
	}
	free(err);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = NULL;
		if (!CHECK(sa_stacks_parse_buffer(&st, bad[i].text, strlen(bad[i].text), "t", &err)))
			sa_stacks_free(&st);
		else if (CHECK(st.v == NULL && st.n == 0 && st.name == NULL))
			CHECK_STR(err, bad[i].want);
		free(err);
	}
}

int main(void)
{
	run("valid file: kmalloc, cache:NAME, mixed, cache, module callers", test_valid);
	run("unknown summary keys are kept, not required", test_unknown_keys);
	run("version 1.x accepted, others rejected", test_versions);
	run("numbers: unsigned decimal, overflow, junk, summary values", test_numbers);
	run("allocs/frees written N/M", test_allocs_frees);
	run("missing columns, unknown types, second legend", test_columns);
	run("truncated input: empty, header only, no legend, cut rows", test_truncated);
	run("NUL bytes rejected, CRLF accepted", test_nul_and_crlf);
	run("callers longer than 4 KiB (buffer and stream)", test_long_lines);
	run("5000 rows", test_many_rows);
	run("module of a caller", test_caller_module);
	run("retired call sites (1.3): unloaded#N, loads, reloaded MODULE", test_retired);
	run("open/read error messages and hints", test_io_errors);
	run("sa_load from a file, a missing file, a directory", test_load);
	run("sa_read_fd reads a pipe to its end", test_read_fd_pipe);
	run("rows keep req <= total, slack = total - req, live_req <= live", test_row_rules);
	run("sa_check_sums compares the summary with the rows", test_check_sums);
	run("sa_load_max caps the input; /dev/zero is no header", test_load_limits);
	run("detail file: keys, rows, rules, alloc sizes", test_detail);
	run("one line reader: buffer, stream and descriptor alike, CRLF, NUL, no newline",
	    test_lines);
	run("one line reader: lines longer than a chunk, progress, a maximum length",
	    test_lines_long);
	run("one header parser: each key once in the main, detail and unloads files",
	    test_header_keys);
	run("JSON nested deeper than SA_JSON_DEPTH stops", test_json_depth);
	run("child rows (1.6): the context split off the caller, checked with split",
	    test_ctx);
	run("cgroup ids to paths: matching, and a directory tree walked", test_cgroups);
	run("stacks file (1.6): records in id order, frames, errors", test_stacks);
	run("stacks file 2.x: each record's first context, later minors' words ignored, errors",
	    test_stacks_first);
	return failed_tests ? 1 : 0;
}
