// SPDX-License-Identifier: GPL-2.0
/*
 * A module load owns its call sites (the driver author's loop): sa_leak.ko
 * allocates at load from known sites and, with leak=1, leaves 5 objects
 * of 2 sites live when it unloads.  Its unload must give the kernel log
 * line and the record of /proc/slab_account_unloads with exactly those
 * numbers, its rows must stay (" unloaded#N", their objects still
 * theirs), a reload must give fresh rows, and another module loaded where
 * sa_leak was (sa_leak_b.ko, the same code under another name) must never
 * join sa_leak's rows.  `slabacct --check` must pass the fixed driver
 * (leak=0) and fail the leaking one, naming its sites, in its text, KTAP
 * and JUnit outputs (the host tests check those formats against the
 * kernel's KTAP parser and a JUnit schema).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sa_lib.h"

#define UNLOADS		"/proc/slab_account_unloads"
#define SLABACCT	"/usr/bin/slabacct"
#define NSITES		4

/*
 * a_load_with_many_rows's sizes: sa_tree's sites and levels, and the
 * tables slab_account loads with (max_objects 0: its default).  The usual
 * ones, or with SA_MANY_ROWS=max in the environment (scripts/ci.sh's
 * scale boot, on a guest with the memory and CPUs for it) the largest
 * site table slab_account takes, 2^20 sites, with 55 sites of 2^14 stacks
 * each, a row each (901,120 rows: context rows may take the table up to
 * its last eighth).
 */
struct tree_size {
	unsigned int sites, depth;
	unsigned long max_sites, max_stacks, max_objects;
};

static const struct tree_size tree_usual = {
	.sites = 1, .depth = 14, .max_sites = 65536, .max_stacks = 32768,
};

static const struct tree_size tree_max = {
	.sites = 55, .depth = 14, .max_sites = 1UL << 20,
	.max_stacks = 1UL << 20, .max_objects = 1UL << 21,
};

static const struct tree_size *tree_size(void)
{
	const char *v = getenv("SA_MANY_ROWS");

	return v && !strcmp(v, "max") ? &tree_max : &tree_usual;
}

/* sa_leak.c's sites, in its books' order, and what leak=1 leaves. */
static const struct {
	const char *func;
	const char *cache;	/* its cache's name after the module's */
	unsigned long long kept;
} sites[NSITES] = {
	{ "sa_leak_table", NULL, 3 },
	{ "sa_leak_buf", NULL, 2 },
	{ "sa_leak_ctx", "_ctx", 0 },
	{ "sa_leak_tmp", NULL, 0 },
};

/* The module's books, in the tracepoints' bytes (slab_size strides). */
static int books(const char *mod, struct sa_truth *t)
{
	char path[64], cache[64];
	int cpus = 0, n;

	snprintf(path, sizeof(path), "/proc/%s", mod);
	n = sa_truth_read_file(path, t, NSITES, &cpus);
	if (n != NSITES)
		return -1;
	for (int i = 0; i < NSITES; i++) {
		snprintf(cache, sizeof(cache), "%s%s", mod,
			 sites[i].cache ? sites[i].cache : "");
		if (strcmp(t[i].func, sites[i].func) ||
		    sa_truth_to_stride(&t[i], sites[i].cache ? cache : NULL))
			return -1;
	}
	return 0;
}

/*
 * The books @t (read while loaded) as the module's exit leaves them: it
 * frees every object but, with @leak, those sa_leak.c keeps.
 */
static void books_after_exit(struct sa_truth *t, int leak)
{
	for (int i = 0; i < NSITES; i++) {
		unsigned long long kept = leak ? sites[i].kept : 0;
		unsigned long long size, req;

		if (!t[i].objs || t[i].objs == kept)
			continue;
		size = t[i].live / t[i].objs;
		req = t[i].live_req / t[i].objs;
		t[i].frees += t[i].objs - kept;
		t[i].objs = kept;
		t[i].live = kept * size;
		t[i].live_req = kept * req;
	}
}

/* The load number slab_account gives @mod's live load. */
static unsigned int live_load(const struct sa_snap *s, const char *mod)
{
	char key[64];

	snprintf(key, sizeof(key), "reloaded %s", mod);
	return sa_snap_has_key(s, key) ? sa_snap_key(s, key) : 1;
}

/* Every row of @mod's load (@load 0: loaded) equals the books @t. */
static void rows_are_books(struct __test_metadata *_metadata,
			   const struct sa_snap *s, const char *mod,
			   unsigned int load, const struct sa_truth *t)
{
	char tail[80];

	snprintf(tail, sizeof(tail), " [%s]", mod);
	for (int i = 0; i < NSITES; i++) {
		int n;
		const struct sa_row *r = sa_snap_row_of(s, t[i].func, mod, load, &n);

		ASSERT_NE(NULL, r) TH_LOG("no row of %s (load %u)", t[i].func, load);
		EXPECT_EQ(1, n) TH_LOG("%s", t[i].func);
		EXPECT_NE(NULL, strstr(r->caller, tail)) TH_LOG("%s", r->caller);
		EXPECT_EQ(t[i].allocs, r->allocs) TH_LOG("%s", r->caller);
		EXPECT_EQ(t[i].frees, r->frees) TH_LOG("%s", r->caller);
		EXPECT_EQ(t[i].objs, r->objs) TH_LOG("%s", r->caller);
		EXPECT_EQ(t[i].total, r->total) TH_LOG("%s", r->caller);
		EXPECT_EQ(t[i].req, r->req) TH_LOG("%s", r->caller);
		EXPECT_EQ(t[i].live, r->live) TH_LOG("%s", r->caller);
		EXPECT_EQ(t[i].live_req, r->live_req) TH_LOG("%s", r->caller);
	}
}

static int matches(const char *text, const char *pattern)
{
	regex_t re;
	int ok;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | REG_NEWLINE))
		return 0;
	ok = !regexec(&re, text, 0, NULL, 0);
	regfree(&re);
	return ok;
}

/* The time unload_verdict()'s last unload took (reported, never judged). */
static double last_unload_secs;

/* Seconds of the monotonic clock (reported, never a verdict of a test). */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* /dev/kmsg open at its end: kmsg_since() reads the records after it. */
static int kmsg_from_now(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The messages of the records logged since kmsg_from_now() gave @fd, a
 * line each (malloc'd; NULL on an error); closes @fd.
 */
static char *kmsg_since(int fd)
{
	char rec[8192], *text = NULL, *more, *msg, *end;
	size_t len = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		end = strchr(msg, '\n');
		if (end)
			*end = '\0';
		more = realloc(text, len + strlen(msg) + 2);
		if (!more) {
			free(text);
			close(fd);
			return NULL;
		}
		text = more;
		len += sprintf(text + len, "%s\n", msg);
	}
	close(fd);
	if (n < 0 && errno != EAGAIN) {
		free(text);
		return NULL;
	}
	return text ? text : strdup("");
}

/* How many times @pattern matches in @text (-1: a bad pattern). */
static int times(const char *text, const char *pattern)
{
	regmatch_t m;
	regex_t re;
	int n = 0;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE))
		return -1;
	while (!regexec(&re, text, 1, &m, 0) && m.rm_eo > 0) {
		n++;
		text += m.rm_eo;
	}
	regfree(&re);
	return n;
}

/* A caller of @func in @mod as a regular expression, " unloaded#@load". */
static void caller_re(char *re, size_t n, const char *func, const char *mod,
		      unsigned int load)
{
	snprintf(re, n, "%s\\+0x[0-9a-f]+/0x[0-9a-f]+ \\[%s\\] unloaded#%u",
		 func, mod, load);
}

/*
 * Unload @mod (loaded with leak=@leak): its verdict in the log (only if it
 * left objects) and as the newest record of the unloads file, exactly as
 * its books @t say (the bytes in the tracepoints' strides).
 */
static void unload_verdict(struct __test_metadata *_metadata, const char *mod,
			   unsigned int load, const struct sa_truth *t,
			   int leak)
{
	unsigned long long objs = 0, bytes = 0, req = 0, nsites = 0;
	char *text, *last, re[1024], site[256];
	double secs;
	int kmsg, n;

	for (int i = 0; i < NSITES; i++) {
		/* What stays: the books' live objects, less what the exit frees. */
		unsigned long long kept = leak ? sites[i].kept : 0;

		if (!kept)
			continue;
		ASSERT_EQ(kept, t[i].objs) TH_LOG("%s", t[i].func);
		objs += kept;
		bytes += t[i].live;
		req += t[i].live_req;
		nsites++;
	}
	/*
	 * Load numbers start again with each load of slab_account: the log
	 * may hold the same line of an earlier one, so only the records the
	 * unload adds are read.
	 */
	if (!leak)
		snprintf(re, sizeof(re), "slab_account: %s \\(load %u\\) unloaded",
			 mod, load);
	else	/* sa_leak_buf holds more bytes than sa_leak_table: first. */
		snprintf(re, sizeof(re),
			 "slab_account: %s \\(load %u\\) unloaded with %llu objects still live \\(%llu bytes, %llu requested\\) from %llu call sites: sa_leak_buf\\+0x[0-9a-f]+/0x[0-9a-f]+ \\[%s\\] %llu objects %llu bytes oldest [0-9]+ s; sa_leak_table\\+0x[0-9a-f]+/0x[0-9a-f]+ \\[%s\\] %llu objects %llu bytes oldest [0-9]+ s\n",
			 mod, load, objs, bytes, req, nsites, mod, t[1].objs,
			 t[1].live, mod, t[0].objs, t[0].live);
	kmsg = kmsg_from_now();
	ASSERT_LE(0, kmsg);
	secs = now();
	ASSERT_EQ(0, sa_module_unload(mod));
	secs = now() - secs;
	last_unload_secs = secs;
	text = kmsg_since(kmsg);
	ASSERT_NE(NULL, text);
	n = times(text, re);
	if (!leak) {
		EXPECT_EQ(0, n) TH_LOG("a clean unload logged");
	} else {
		EXPECT_EQ(1, n) TH_LOG("not logged once: %s", re);
	}
	free(text);

	/* The newest record of the unloads file. */
	ASSERT_EQ(0, sa_read_file(UNLOADS, &text, NULL));
	ASSERT_EQ(0, strncmp(text, "slab_account unloads - version: 1.", 34));
	last = NULL;
	for (char *p = text; (p = strchr(p, '\n')); p++)
		if (p[1] >= '0' && p[1] <= '9')
			last = p;
	ASSERT_NE(NULL, last);
	snprintf(re, sizeof(re), "^\n[0-9]+ %s %u %llu %llu %llu %llu\n", mod, load,
		 objs, bytes, req, nsites);
	EXPECT_TRUE(matches(last, re)) TH_LOG("last record: %.200s; want %s", last, re);
	if (leak) {
		char buf_re[512], table_re[512];

		caller_re(site, sizeof(site), "sa_leak_buf", mod, load);
		snprintf(buf_re, sizeof(buf_re), "\n  %llu %llu %llu [0-9]+ kmalloc %s\n",
			 t[1].objs, t[1].live, t[1].live_req, site);
		caller_re(site, sizeof(site), "sa_leak_table", mod, load);
		snprintf(table_re, sizeof(table_re), "\n  %llu %llu %llu [0-9]+ kmalloc %s\n",
			 t[0].objs, t[0].live, t[0].live_req, site);
		EXPECT_TRUE(matches(last, buf_re)) TH_LOG("%s", buf_re);
		EXPECT_TRUE(matches(last, table_re)) TH_LOG("%s", table_re);
	}
	ksft_print_msg("report: unload: %s load %u: %llu objects, %llu bytes, %llu requested, %llu sites left live (its unload took %.3f s)\n",
		       mod, load, objs, bytes, req, nsites, secs);
	free(text);
}

/* The start of @mod's text, from sysfs; 0 if unknown. */
static unsigned long text_of(const char *mod)
{
	char path[128], *text;
	unsigned long a;

	snprintf(path, sizeof(path), "/sys/module/%s/sections/.text", mod);
	if (sa_read_file(path, &text, NULL))
		return 0;
	a = strtoul(text, NULL, 16);
	free(text);
	return a;
}

/*
 * sa_leak loaded with leak=1 (with @text, the start of its text then in
 * *@text), its books read into @t while it is loaded, its unload and the
 * verdict checked against them (unload_verdict()), and @t turned into the
 * books its exit leaves (books_after_exit()).  Returns the load number
 * slab_account gave it.  A failed ASSERT here ends the whole test, as in
 * the test's body (the 5.10 harness aborts the test's process, 6.1's and
 * 6.12's longjmp out of the test, 7.2's runs the teardown and aborts), so
 * callers need no check after the call.
 */
static unsigned int load_leaking_and_unload(struct __test_metadata *_metadata,
					    struct sa_truth *t,
					    unsigned long *text)
{
	unsigned int load;
	char err[256];
	struct sa_snap s;

	ASSERT_EQ(0, sa_module_load("sa_leak", "leak=1"));
	if (text)
		*text = text_of("sa_leak");
	ASSERT_EQ(0, books("sa_leak", t));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	load = live_load(&s, "sa_leak");
	sa_snap_free(&s);
	unload_verdict(_metadata, "sa_leak", load, t, 1);
	books_after_exit(t, 1);
	return load;
}

/* Run @cmd, its output (stdout and stderr) in @out; its exit status. */
static int run(const char *cmd, char *out, size_t n)
{
	FILE *p = popen(cmd, "r");
	size_t len = 0, got;
	int st;

	out[0] = '\0';
	if (!p)
		return -1;
	while (len + 1 < n && (got = fread(out + len, 1, n - 1 - len, p)) > 0)
		len += got;
	out[len] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

FIXTURE(unload) {
	int unused;
};

FIXTURE_SETUP(unload)
{
	if (sa_module_loaded("sa_leak"))
		ASSERT_EQ(0, sa_module_unload("sa_leak"));
	if (sa_module_loaded("sa_leak_b"))
		ASSERT_EQ(0, sa_module_unload("sa_leak_b"));
}

FIXTURE_TEARDOWN(unload)
{
	char *stacks;

	sa_module_unload("sa_leak");
	sa_module_unload("sa_leak_b");
	/* a_load_with_many_rows stopped part way: the usual load again. */
	if (sa_module_loaded("sa_tree"))
		sa_module_unload("sa_tree");
	if (!sa_read_file("/sys/module/slab_account/parameters/max_stacks",
			  &stacks, NULL)) {
		if (strtoul(stacks, NULL, 10) == tree_size()->max_stacks &&
		    !sa_module_unload("slab_account"))
			sa_restore();
		free(stacks);
	}
}

/*
 * The gate: the fixed driver (sa_leak_b, leak=0, never loaded leaking
 * before this test) passes; loaded leaking and unloaded, it fails,
 * naming the two sites that left objects, in every output.
 */
TEST_F(unload, gate_passes_the_fixed_driver_fails_the_leak)
{
	static const char rules[] =
		" -R 'no left-at-unload module sa_leak_b'"
		" -R 'no live-after-unload module sa_leak_b'";
	static char out[65536];
	struct sa_truth t[NSITES];
	char cmd[512], *xml;
	unsigned int load;
	struct sa_snap s;
	char err[256];

	if (access(SLABACCT, X_OK))
		SKIP(return, "no " SLABACCT);
	ASSERT_EQ(0, sa_module_load("sa_leak_b", "leak=0"));
	ASSERT_EQ(0, books("sa_leak_b", t));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	load = live_load(&s, "sa_leak_b");
	sa_snap_free(&s);
	unload_verdict(_metadata, "sa_leak_b", load, t, 0);
	snprintf(cmd, sizeof(cmd), SLABACCT " --check%s 2>&1", rules);
	EXPECT_EQ(0, run(cmd, out, sizeof(out))) TH_LOG("%s", out);
	ksft_print_msg("report: gate: the fixed driver: exit 0\n");

	ASSERT_EQ(0, sa_module_load("sa_leak_b", "leak=1"));
	ASSERT_EQ(0, books("sa_leak_b", t));
	unload_verdict(_metadata, "sa_leak_b", load + 1, t, 1);
	snprintf(cmd, sizeof(cmd), SLABACCT " --check%s 2>&1", rules);
	EXPECT_EQ(1, run(cmd, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "FAIL 1 no left-at-unload module sa_leak_b")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "FAIL 2 no live-after-unload module sa_leak_b")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "sa_leak_table+")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "sa_leak_buf+")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "sa_leak_ctx+")) TH_LOG("%s", out);

	snprintf(cmd, sizeof(cmd), SLABACCT " --check --ktap%s 2>&1", rules);
	EXPECT_EQ(1, run(cmd, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_EQ(0, strncmp(out, "KTAP version 1\n1..2\n", 20)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\nnot ok 1 no left-at-unload module sa_leak_b\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\nnot ok 2 no live-after-unload module sa_leak_b\n")) TH_LOG("%s", out);

	snprintf(cmd, sizeof(cmd), SLABACCT " --check --junit -o /tmp/sa_gate.xml%s 2>&1",
		 rules);
	EXPECT_EQ(1, run(cmd, out, sizeof(out))) TH_LOG("%s", out);
	ASSERT_EQ(0, sa_read_file("/tmp/sa_gate.xml", &xml, NULL));
	EXPECT_EQ(0, strncmp(xml, "<?xml", 5));
	EXPECT_NE(NULL, strstr(xml, "<testsuites")) TH_LOG("%s", xml);
	EXPECT_NE(NULL, strstr(xml, "<failure")) TH_LOG("%s", xml);
	EXPECT_NE(NULL, strstr(xml, "sa_leak_table+")) TH_LOG("%s", xml);
	EXPECT_NE(NULL, strstr(xml, "</testsuites>")) TH_LOG("%s", xml);
	free(xml);
	ksft_print_msg("report: gate: the leaking driver: exit 1, its sites named in text, KTAP and JUnit\n");
}

/* A leak at unload: said, kept, and the rows stay as they were. */
TEST_F(unload, leak_is_reported_and_rows_stay)
{
	struct sa_truth t[NSITES];
	unsigned int load;
	char err[256];
	struct sa_snap s;

	ASSERT_EQ(0, sa_module_load("sa_leak", "leak=1"));
	ASSERT_EQ(0, books("sa_leak", t));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	load = live_load(&s, "sa_leak");
	rows_are_books(_metadata, &s, "sa_leak", 0, t);
	sa_snap_free(&s);

	unload_verdict(_metadata, "sa_leak", load, t, 1);

	/* The rows of the load that went, their objects still theirs. */
	books_after_exit(t, 1);
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	rows_are_books(_metadata, &s, "sa_leak", load, t);
	for (int i = 0; i < NSITES; i++)
		EXPECT_EQ(NULL, sa_snap_row(&s, t[i].func, &(int){0}));
	sa_snap_free(&s);
}

/* Loaded again: fresh rows; the first load's stay as they were. */
TEST_F(unload, reload_gives_fresh_rows)
{
	struct sa_truth t1[NSITES], t2[NSITES];
	unsigned int load1, load2;
	char err[256];
	struct sa_snap s;

	load1 = load_leaking_and_unload(_metadata, t1, NULL);

	ASSERT_EQ(0, sa_module_load("sa_leak", "leak=0"));
	ASSERT_EQ(0, books("sa_leak", t2));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	load2 = live_load(&s, "sa_leak");
	EXPECT_EQ(load1 + 1, load2);
	rows_are_books(_metadata, &s, "sa_leak", 0, t2);
	rows_are_books(_metadata, &s, "sa_leak", load1, t1);
	sa_snap_free(&s);

	/* The fixed driver: a clean unload, its rows empty. */
	unload_verdict(_metadata, "sa_leak", load2, t2, 0);
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	for (int i = 0; i < NSITES; i++) {
		int n;
		const struct sa_row *r = sa_snap_row_of(&s, t2[i].func, "sa_leak", load2,
							    &n);

		ASSERT_NE(NULL, r) TH_LOG("%s", t2[i].func);
		EXPECT_EQ(0, r->objs) TH_LOG("%s", r->caller);
		EXPECT_EQ(r->allocs, r->frees) TH_LOG("%s", r->caller);
	}
	rows_are_books(_metadata, &s, "sa_leak", load1, t1);
	sa_snap_free(&s);
}

/*
 * sa_leak_b, the same code under another name, loaded where sa_leak was
 * (the module allocator gives the space back; tried a bounded number of
 * times): its rows are its own, sa_leak's stay as they were.  Each try
 * loads sa_leak again first: a lower hole that an earlier test's deferred
 * frees (a module's init memory, after a grace period) open between the
 * two loads takes sa_leak_b there once, and sa_leak the next time.
 */
TEST_F(unload, another_module_never_joins)
{
	struct sa_truth t[NSITES], tb[NSITES];
	unsigned long a = 0, b = 0;
	unsigned int load = 0;
	char err[256];
	struct sa_snap s;
	int tries;

	for (tries = 0; tries < 5; tries++) {
		load = load_leaking_and_unload(_metadata, t, &a);
		ASSERT_EQ(0, sa_module_load("sa_leak_b", "leak=0"));
		b = text_of("sa_leak_b");
		if (a && a == b)
			break;
		ASSERT_EQ(0, sa_module_unload("sa_leak_b"));
	}
	ksft_print_msg("report: unload: sa_leak's text at %#lx, sa_leak_b's at %#lx (%d tries)\n",
		       a, b, tries + 1);
	ASSERT_NE(0, a) TH_LOG("no /sys/module/sa_leak/sections/.text");
	ASSERT_EQ(a, b) TH_LOG("sa_leak_b never loaded where sa_leak was");
	ASSERT_EQ(0, books("sa_leak_b", tb));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	rows_are_books(_metadata, &s, "sa_leak_b", 0, tb);
	rows_are_books(_metadata, &s, "sa_leak", load, t);
	sa_snap_free(&s);
}

/*
 * The newest record of the unloads file (from its "\n" before), in
 * *@text (to free); NULL when there is none.
 */
static char *last_record(char **text)
{
	char *last = NULL;

	if (sa_read_file(UNLOADS, text, NULL))
		return NULL;
	for (char *p = *text; (p = strchr(p, '\n')); p++)
		if (p[1] >= '0' && p[1] <= '9')
			last = p;
	return last;
}

/*
 * A load that owns many rows: sa_tree.ko's sites under capture, each
 * reached by 2^depth stacks, a child row each (one object each, all left
 * live at its unload), in a table of max_sites rows (tree_size()).
 * Another module's unload (sa_leak, 5 objects) meanwhile gives its exact
 * verdict; sa_tree's own gives its exact verdict, one row per stack; and
 * the kernel log says nothing of a CPU held too long (soft lockup, RCU
 * stall, hung task) or of a lock or sleep in the wrong context (lockdep,
 * "sleeping function") from slab_account's load to the end.  The
 * unloads' times are reported: the verdict walks only the unloading
 * load's rows.
 */
TEST_F(unload, a_load_with_many_rows)
{
	const struct tree_size *z = tree_size();
	const char *extra = getenv("SA_LOAD_PARAMS");
	unsigned long long n = (unsigned long long)z->sites << z->depth;
	struct sa_truth tt, t[NSITES];
	char params[512], re[1024], *text, *last, objs[64] = "";
	double t_load, t_leak, t_tree;
	int kmsg, cpus = 0;

	if (z->max_objects)
		snprintf(objs, sizeof(objs), " max_objects=%lu", z->max_objects);
	snprintf(params, sizeof(params), "max_sites=%lu max_stacks=%lu%s%s%s",
		 z->max_sites, z->max_stacks, objs, extra ? " " : "",
		 extra ? extra : "");
	kmsg = kmsg_from_now();
	ASSERT_LE(0, kmsg);
	ASSERT_EQ(0, sa_module_unload("slab_account"));
	ASSERT_EQ(0, sa_module_load("slab_account", params)) TH_LOG("%s", params);
	/*
	 * A module rule names a loaded module and then waits for its next
	 * load: sa_tree's first load (one object, left live) makes it.
	 */
	ASSERT_EQ(0, sa_module_load("sa_tree", "depth=0"));
	ASSERT_EQ(0, sa_cmd("capture module:sa_tree"));
	ASSERT_EQ(0, sa_module_unload("sa_tree"));

	t_load = now();
	snprintf(params, sizeof(params), "sites=%u depth=%u", z->sites,
		 z->depth);
	ASSERT_EQ(0, sa_module_load("sa_tree", params));
	t_load = now() - t_load;
	ASSERT_EQ(1, sa_truth_read_file("/proc/sa_tree", &tt, 1, &cpus));
	ASSERT_EQ(0, sa_truth_to_stride(&tt, NULL));
	ASSERT_EQ(n, tt.objs);

	/* Another module's unload, slab_account's first load of it. */
	ASSERT_EQ(0, sa_module_load("sa_leak", "leak=1"));
	ASSERT_EQ(0, books("sa_leak", t));
	unload_verdict(_metadata, "sa_leak", 1, t, 1);
	t_leak = last_unload_secs;

	/* sa_tree's: every object, every row (one a stack). */
	t_tree = now();
	ASSERT_EQ(0, sa_module_unload("sa_tree"));
	t_tree = now() - t_tree;
	last = last_record(&text);
	ASSERT_NE(NULL, last);
	snprintf(re, sizeof(re), "^\n[0-9]+ sa_tree 2 %llu %llu %llu %llu\n",
		 n, tt.live, tt.live_req, n);
	EXPECT_TRUE(matches(last, re)) TH_LOG("last record: %.200s; want %s", last, re);
	free(text);

	text = kmsg_since(kmsg);
	ASSERT_NE(NULL, text);
	snprintf(re, sizeof(re),
		 "slab_account: sa_tree \\(load 2\\) unloaded with %llu objects still live \\(%llu bytes, %llu requested\\) from %llu call sites: sa_tree_site_[0-9]+\\+",
		 n, tt.live, tt.live_req, n);
	EXPECT_EQ(1, times(text, re)) TH_LOG("not logged once: %s", re);
	EXPECT_EQ(0, times(text, "soft lockup|hard LOCKUP|rcu.*stall|blocked for more than|BUG:|WARNING:|lockdep|sleeping function"))
		TH_LOG("the kernel log: %s", text);
	free(text);
	ksft_print_msg("report: many rows: %lu sites, sa_tree's %llu rows (one per stack, %u sites) made in %.3f s; sa_leak's unload (5 objects) %.3f s, sa_tree's (%llu objects) %.3f s; %d CPUs\n",
		       z->max_sites, n, z->sites, t_load, t_leak, n, t_tree,
		       (int)sysconf(_SC_NPROCESSORS_ONLN));

	ASSERT_EQ(0, sa_module_unload("slab_account"));
	ASSERT_EQ(0, sa_restore());
}

SA_SELFTEST_MAIN(0)
