// SPDX-License-Identifier: GPL-2.0
/*
 * Context rows (format 1.6): a captured site's stack rows and the rows of
 * a split by cgroup, task or NUMA node, each compared with sa_ctx's own
 * books (tests/kmod/sa_ctx.c: one site, sa_ctx_site, reached from
 * sa_ctx_a, sa_ctx_b and sa_ctx_c), and the refusals of capture and
 * split, and (the stacks file 2.0) the task context each stack names as
 * its first.  slab_account is loaded again with each split (the one /init
 * loaded has none); the split=cgroup load needs cgroup2 mounted, which
 * this test does itself (and undoes) at /sys/fs/cgroup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sa_lib.h"

#define CTX_PROC	"/proc/sa_ctx"
#define CTX_STACKS	"/proc/slab_account_stacks"
#define CTX_DETAIL	"/proc/slab_account_detail"
/* sa_ctx's long-named cache, and the 23 bytes of it a row shows. */
#define CTX_CACHE	"sa_ctx_cache_with_a_long_name"
#define CTX_CACHE_SHOWN	"sa_ctx_cache_with_a_lon"
#define CTX_CACHE_SITE	"sa_ctx_cache_site"
#define CTX_SITE	"sa_ctx_site"
#define CG_ROOT		"/sys/fs/cgroup"
#define CTX_ANY		(-1)

/* A command to sa_ctx; 0 or the errno of the write. */
static int ctx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int ctx(const char *fmt, ...)
{
	char cmd[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return sa_write(CTX_PROC, cmd, strlen(cmd));
}

/* sa_ctx loaded afresh: its site's rows of an earlier load are unloaded#N. */
static int ctx_fresh(void)
{
	if (sa_module_loaded("sa_ctx")) {
		sa_write(CTX_PROC, "load stop", 9);
		sa_write(CTX_PROC, "free all", 8);
		if (sa_module_unload("sa_ctx"))
			return -1;
	}
	return sa_module_load("sa_ctx", NULL);
}

static void ctx_gone(void)
{
	if (sa_module_loaded("sa_ctx")) {
		sa_write(CTX_PROC, "load stop", 9);
		sa_write(CTX_PROC, "free all", 8);
		sa_module_unload("sa_ctx");
	}
}

/* slab_account loaded again with @params; 0 or the errno of the load. */
static int sa_reload(const char *params)
{
	ctx_gone();
	if (sa_module_loaded("slab_account") && sa_module_unload("slab_account"))
		return EBUSY;
	return sa_module_load("slab_account", params);
}

/* Back to the load every other test program expects. */
static void sa_back(void)
{
	ctx_gone();
	if (sa_module_loaded("slab_account"))
		sa_module_unload("slab_account");
	sa_restore();
}

static void sum_add(struct sa_truth *s, const struct sa_truth *t)
{
	s->allocs += t->allocs;
	s->frees += t->frees;
	s->total += t->total;
	s->req += t->req;
	s->live += t->live;
	s->live_req += t->live_req;
	s->objs += t->objs;
}

static void sum_row(struct sa_truth *s, const struct sa_row *r)
{
	struct sa_truth t = {
		.allocs = r->allocs, .frees = r->frees, .total = r->total,
		.req = r->req, .live = r->live, .live_req = r->live_req,
		.objs = r->objs,
	};

	sum_add(s, &t);
}

/*
 * sa_ctx's books summed over the lines of @caller ('a', 'b', 'c' or 0 for
 * any), @tag and @node (CTX_ANY: any), each line turned into the
 * tracepoints' figures first (one size per line: the test asks for one
 * size per caller and tag).  -1 if unreadable.
 */
static int truth(struct sa_truth *s, char caller, int tag, int node)
{
	struct sa_truth t[128];
	int n = sa_truth_read_file(CTX_PROC, t, 128, &(int){ 0 });

	memset(s, 0, sizeof(*s));
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		char c;
		int tg, nd;

		if (sscanf(t[i].func, "sa_ctx_%c/%d/n%d", &c, &tg, &nd) != 3)
			return -1;
		if ((caller && c != caller) || (tag != CTX_ANY && tg != tag) ||
		    (node != CTX_ANY && nd != node))
			continue;
		if (sa_truth_to_stride(&t[i], NULL))
			return -1;
		sum_add(s, &t[i]);
	}
	return 0;
}

/* The load's allocations so far (sa_ctx's "# load allocs N"). */
static unsigned long long load_allocs(void)
{
	unsigned long long n = 0;
	char *text, *at;

	if (sa_read_file(CTX_PROC, &text, NULL))
		return 0;
	at = strstr(text, "# load allocs ");
	if (at)
		n = strtoull(at + 14, NULL, 10);
	free(text);
	return n;
}

#define EXPECT_SUMS(want, got, what) do {				\
	EXPECT_EQ((want).allocs, (got).allocs) TH_LOG("%s: allocs", what); \
	EXPECT_EQ((want).frees, (got).frees) TH_LOG("%s: frees", what);	\
	EXPECT_EQ((want).total, (got).total) TH_LOG("%s: total", what);	\
	EXPECT_EQ((want).req, (got).req) TH_LOG("%s: req", what);	\
	EXPECT_EQ((want).live, (got).live) TH_LOG("%s: live", what);	\
	EXPECT_EQ((want).live_req, (got).live_req)			\
		TH_LOG("%s: live_req", what);				\
	EXPECT_EQ((want).objs, (got).objs) TH_LOG("%s: objs", what);	\
} while (0)

/* Is @r a row of the site, of sa_ctx as loaded now? */
static int site_row(const struct sa_row *r)
{
	return !strncmp(r->caller, CTX_SITE "+0x", strlen(CTX_SITE) + 3) &&
	       strstr(r->caller, " [sa_ctx]") && !sa_row_unloaded(r);
}

/*
 * The site's rows whose context is @ctx exactly (" @cgroup:12", " @irq";
 * NULL: the own row) summed into @s; returns how many there were.
 */
static int ctx_rows(const struct sa_snap *snap, const char *want,
		    struct sa_truth *s)
{
	int n = 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < snap->nrows; i++) {
		const struct sa_row *r = &snap->rows[i];
		const char *c;

		if (!site_row(r))
			continue;
		c = sa_row_context(r);
		if (want ? !c || strcmp(c, want) : !!c)
			continue;
		sum_row(s, r);
		n++;
	}
	return n;
}

/* Every row of the site, own and context rows, summed; how many. */
static int all_rows(const struct sa_snap *snap, struct sa_truth *s)
{
	int n = 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < snap->nrows; i++) {
		if (site_row(&snap->rows[i])) {
			sum_row(s, &snap->rows[i]);
			n++;
		}
	}
	return n;
}

/* ---- the stacks file --------------------------------------------------- */

#define MAX_STACKS 64

struct stack_rec {
	unsigned int id, frames;
	char frame1[128], frame2[128], last[128];
	/* (2.0) the record line after `stack ID N`: " pid ...", " irq" */
	char first[128];
};

/*
 * /proc/slab_account_stacks parsed into @st (its records' first two
 * frames, their last and how many, and what its record line says after
 * the number of frames); the number of records, or -1 with a message in
 * @err.
 */
static int stacks_read(struct stack_rec *st, int max, char *err, size_t n)
{
	char *text, *line, *save = NULL;
	int lineno = 0, nst = 0, left = 0, frame = 0;

	if (sa_read_file(CTX_STACKS, &text, NULL)) {
		snprintf(err, n, "%s: %s", CTX_STACKS, strerror(errno));
		return -1;
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int id, frames;
		int end = 0;

		lineno++;
		if (lineno == 1) {
			if (strncmp(line, "slab_account stacks - version: 2.", 33)) {
				snprintf(err, n, "line 1: '%s'", line);
				goto bad;
			}
		} else if (left) {
			if (strncmp(line, "  ", 2) || line[2] == ' ') {
				snprintf(err, n, "line %d: not a frame: '%s'",
					 lineno, line);
				goto bad;
			}
			frame++;
			if (frame == 1)
				snprintf(st[nst - 1].frame1,
					 sizeof(st->frame1), "%s", line + 2);
			else if (frame == 2)
				snprintf(st[nst - 1].frame2,
					 sizeof(st->frame2), "%s", line + 2);
			if (left == 1)
				snprintf(st[nst - 1].last,
					 sizeof(st->last), "%s", line + 2);
			left--;
		} else if (sscanf(line, "stack %u %u%n", &id, &frames, &end) == 2) {
			if (nst == max || !frames) {
				snprintf(err, n, "line %d: '%s'", lineno, line);
				goto bad;
			}
			memset(&st[nst], 0, sizeof(st[nst]));
			snprintf(st[nst].first, sizeof(st->first), "%s", line + end);
			st[nst].frames = frames;
			st[nst++].id = id;
			left = frames;
			frame = 0;
		} else if (nst) {
			snprintf(err, n, "line %d: '%s' after a record",
				 lineno, line);
			goto bad;
		}
	}
	free(text);
	if (left) {
		snprintf(err, n, "the last record is cut short");
		return -1;
	}
	return nst;
bad:
	free(text);
	return -1;
}

/* The caller ('a', 'b', 'c') the second frame of stack @id names; 0. */
static char stack_caller(const struct stack_rec *st, int n, unsigned int id)
{
	for (int i = 0; i < n; i++) {
		if (st[i].id != id)
			continue;
		if (strncmp(st[i].frame1, CTX_SITE "+0x", strlen(CTX_SITE) + 3))
			return 0;
		if (!strncmp(st[i].frame2, "sa_ctx_", 7) &&
		    strchr("abc", st[i].frame2[7]) && st[i].frame2[8] == '+')
			return st[i].frame2[7];
		return 0;
	}
	return 0;
}

/* The site's stack rows of caller @c summed into @s; how many. */
static int caller_rows(const struct sa_snap *snap, const struct stack_rec *st,
		       int nst, char c, struct sa_truth *s)
{
	int n = 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < snap->nrows; i++) {
		const struct sa_row *r = &snap->rows[i];
		const char *at = sa_row_context(r);

		if (!site_row(r) || !at || strncmp(at, " @stack:", 8))
			continue;
		if (stack_caller(st, nst, strtoul(at + 8, NULL, 10)) != c)
			continue;
		sum_row(s, r);
		n++;
	}
	return n;
}

/*
 * An online CPU other than the one this task runs on; -1 if none.  From
 * this task's affinity (every online CPU): a kernel without CPU hotplug
 * has no cpuN/online files to read.
 */
static int other_cpu(void)
{
	int me = sched_getcpu();
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (cpu != me && CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

/* ---- capture ----------------------------------------------------------- */

/*
 * The rule that captures the site: by its function, found by name through
 * kprobes; where the kernel has none (the header's "unhooked ...:
 * no-kprobes", a board kernel's), no function can be named, and the
 * module's rule captures the site (sa_ctx's only one).
 */
static const char *site_spec(void)
{
	const char *spec = CTX_SITE;
	struct sa_snap snap;
	char err[256];

	if (sa_snap_read(&snap, err, sizeof(err)))
		return spec;
	for (int i = 0; i < snap.nkeys; i++)
		if (!strncmp(snap.keys[i].name, "unhooked ", 9) &&
		    !strcmp(snap.keys[i].text, "no-kprobes"))
			spec = "module:sa_ctx";
	sa_snap_free(&snap);
	return spec;
}

TEST(capture_refusals)
{
	ASSERT_EQ(0, ctx_fresh());
	EXPECT_EQ(ENOENT, sa_cmd("capture sa_ctx_no_such_function"));
	EXPECT_EQ(ENOENT, sa_cmd("capture module:sa_no_such_module"));
	EXPECT_EQ(ENOENT, sa_cmd("capture cache:sa_no_such_cache"));
	EXPECT_EQ(ENOENT, sa_cmd("uncapture " CTX_SITE));
	EXPECT_EQ(EINVAL, sa_cmd("capture"));
	EXPECT_EQ(EINVAL, sa_cmd("capture "));
	EXPECT_EQ(EINVAL, sa_cmd("capture module:"));
	EXPECT_EQ(EINVAL, sa_cmd("capture cache:"));
	EXPECT_EQ(EINVAL, sa_cmd("capture " CTX_SITE " " CTX_SITE));
	EXPECT_EQ(EINVAL, sa_cmd("capture " CTX_SITE "+0xzz"));
	EXPECT_EQ(EINVAL, sa_cmd("uncapture"));
	/* Nothing of the refused writes stayed. */
	EXPECT_EQ(0, sa_key_now("capture rules"));
	EXPECT_EQ(0, sa_key_now("captured sites"));
	ctx_gone();
}

/*
 * Objects before the capture stay in the own row; under capture each
 * caller's objects make one stack row, exact, whatever context frees
 * them; the rows sum to the site's books.
 */
TEST(three_callers_three_stacks)
{
	struct stack_rec st[MAX_STACKS];
	struct sa_truth want, got;
	struct sa_snap snap;
	char err[256], rule[64];
	int nst, cpu = other_cpu();

	ASSERT_LE(0, cpu) TH_LOG("no second CPU online");
	ASSERT_EQ(0, ctx_fresh());
	/* Before the capture: tag 7, the own row's. */
	ASSERT_EQ(0, ctx("alloc a 5 100 tag=7"));
	/* "uncapture SPEC"; "capture SPEC" from its third byte. */
	snprintf(rule, sizeof(rule), "uncapture %s", site_spec());
	ASSERT_EQ(0, sa_cmd(rule + 2)) TH_LOG("%s", rule + 2);
	EXPECT_EQ(1, sa_key_now("capture rules"));
	EXPECT_LE(1, sa_key_now("captured sites"));
	ASSERT_EQ(0, ctx("alloc a 10 100 tag=1"));
	ASSERT_EQ(0, ctx("alloc b 7 200 tag=1"));
	ASSERT_EQ(0, ctx("alloc c 3 3000 tag=1"));
	/* Frees here, on the other CPU, from RCU and from a hard irq. */
	ASSERT_EQ(0, ctx("free a 4 tag=1"));
	ASSERT_EQ(0, ctx("free b 2 tag=1 cpu=%d", cpu));
	ASSERT_EQ(0, ctx("free b 1 tag=1 irq"));
	ASSERT_EQ(0, ctx("free c 1 tag=1 rcu"));
	ASSERT_EQ(0, ctx("free a 1 tag=1 rcu"));
	ASSERT_EQ(0, ctx("free a 2 tag=1 irq"));

	ASSERT_EQ(0, sa_snap_read(&snap, err, sizeof(err))) TH_LOG("%s", err);
	nst = stacks_read(st, MAX_STACKS, err, sizeof(err));
	ASSERT_LE(0, nst) TH_LOG("%s", err);
	EXPECT_LE(3, sa_snap_key(&snap, "stacks"));
	EXPECT_EQ(16, sa_snap_key(&snap, "stack depth"));
	for (const char *c = "abc"; *c; c++) {
		char what[32];

		snprintf(what, sizeof(what), "caller %c's stack row", *c);
		EXPECT_EQ(1, caller_rows(&snap, st, nst, *c, &got))
			TH_LOG("%s: not exactly one", what);
		ASSERT_EQ(0, truth(&want, *c, 1, CTX_ANY));
		EXPECT_SUMS(want, got, what);
	}
	/* Three context rows in all, each a stack. */
	EXPECT_EQ(3, all_rows(&snap, &got) - ctx_rows(&snap, NULL, &want));
	/* The own row: the objects from before the capture, alone. */
	ASSERT_EQ(0, truth(&want, 0, 7, CTX_ANY));
	EXPECT_EQ(1, ctx_rows(&snap, NULL, &got));
	EXPECT_SUMS(want, got, "own row");
	/* The site's figure: own row and stack rows, the books' whole. */
	all_rows(&snap, &got);
	ASSERT_EQ(0, truth(&want, 0, CTX_ANY, CTX_ANY));
	EXPECT_SUMS(want, got, "site (own + stacks)");
	sa_snap_free(&snap);

	/* Objects from before, freed under capture: the own row's frees. */
	ASSERT_EQ(0, ctx("free a 5 tag=7"));
	ASSERT_EQ(0, sa_snap_read(&snap, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, truth(&want, 0, 7, CTX_ANY));
	EXPECT_EQ(5, want.frees);
	ctx_rows(&snap, NULL, &got);
	EXPECT_SUMS(want, got, "own row after its frees");
	for (const char *c = "abc"; *c; c++) {
		caller_rows(&snap, st, nst, *c, &got);
		ASSERT_EQ(0, truth(&want, *c, 1, CTX_ANY));
		EXPECT_SUMS(want, got, "stack rows after the own row's frees");
	}
	sa_snap_free(&snap);

	/* An allocation in a hard irq: a stack of its own, exact. */
	ASSERT_EQ(0, ctx("alloc c 2 100 tag=2 irq"));
	ASSERT_EQ(0, sa_snap_read(&snap, err, sizeof(err))) TH_LOG("%s", err);
	nst = stacks_read(st, MAX_STACKS, err, sizeof(err));
	ASSERT_LE(0, nst) TH_LOG("%s", err);
	EXPECT_EQ(2, caller_rows(&snap, st, nst, 'c', &got));
	ASSERT_EQ(0, truth(&want, 'c', CTX_ANY, CTX_ANY));
	EXPECT_SUMS(want, got, "caller c's two stack rows");
	sa_snap_free(&snap);

	EXPECT_EQ(0, sa_cmd(rule)) TH_LOG("%s", rule);
	EXPECT_EQ(0, sa_key_now("capture rules"));
	EXPECT_EQ(0, sa_key_now("captured sites"));
	ctx_gone();
}

/*
 * The stacks file: each caller's objects under one stack whose frames
 * are the site, then that caller; the three stacks distinct.
 */
TEST(stacks_name_the_callers)
{
	struct stack_rec st[MAX_STACKS];
	unsigned int ids[3] = { 0 };
	struct sa_truth got;
	struct sa_snap snap;
	char err[256];
	int nst;

	ASSERT_EQ(0, ctx_fresh());
	ASSERT_EQ(0, sa_cmd("capture module:sa_ctx"));
	ASSERT_EQ(0, ctx("alloc a 1 64"));
	ASSERT_EQ(0, ctx("alloc b 1 64"));
	ASSERT_EQ(0, ctx("alloc c 1 64"));
	ASSERT_EQ(0, sa_snap_read(&snap, err, sizeof(err))) TH_LOG("%s", err);
	nst = stacks_read(st, MAX_STACKS, err, sizeof(err));
	ASSERT_LE(3, nst) TH_LOG("%s", nst < 0 ? err : "fewer than 3 stacks");
	for (size_t i = 0; i < snap.nrows; i++) {
		const struct sa_row *r = &snap.rows[i];
		const char *at = sa_row_context(r);
		unsigned int id;
		char c;

		if (!site_row(r) || !at)
			continue;
		ASSERT_EQ(0, strncmp(at, " @stack:", 8)) TH_LOG("%s", r->caller);
		id = strtoul(at + 8, NULL, 10);
		c = stack_caller(st, nst, id);
		ASSERT_NE(0, c) TH_LOG("stack %u names no caller", id);
		EXPECT_EQ(0, ids[c - 'a']) TH_LOG("caller %c twice", c);
		ids[c - 'a'] = id;
	}
	for (int i = 0; i < 3; i++) {
		EXPECT_NE(0, ids[i]) TH_LOG("no stack row of caller %c", 'a' + i);
		EXPECT_EQ(1, caller_rows(&snap, st, nst, 'a' + i, &got));
		EXPECT_EQ(1, got.objs);
	}
	EXPECT_NE(ids[0], ids[1]);
	EXPECT_NE(ids[1], ids[2]);
	EXPECT_NE(ids[0], ids[2]);
	sa_snap_free(&snap);
	EXPECT_EQ(0, sa_cmd("uncapture module:sa_ctx"));
	ctx_gone();
}

/*
 * Does the kernel cut a stack at its interrupt's entry for slab_account:
 * filter_irq_stacks() beside stack_trace_save() (5.17 on, so any 6.x)
 * and an architecture whose interrupt handlers are in the irqentry text
 * (x86's entry stubs, the GIC's handler on 32- and 64-bit ARM).
 */
static int irq_stacks_cut(void)
{
	struct utsname u;

	if (uname(&u) || atoi(u.release) < 6)
		return 0;
	return !strcmp(u.machine, "x86_64") || !strcmp(u.machine, "aarch64") ||
	       !strncmp(u.machine, "armv7", 5);
}

/*
 * Allocations in a hard irq (a softirq on PREEMPT_RT) that comes in
 * wherever this CPU is, mostly in a child's reads of the file beside
 * this task: where the kernel cuts a stack at its interrupt's entry,
 * every stack of them ends at the same frame, the entry's, and they are
 * few (an entry may call its handler from more than one place: x86's
 * on the interrupt stack or switching to it); without the cut the frames
 * beyond would differ nearly every time and make a stack of each (33 of
 * 40 on 6.1).  Exact either way.
 */
TEST(irq_stacks_end_at_the_entry)
{
	struct stack_rec st[MAX_STACKS];
	struct sa_truth want, got;
	struct sa_snap snap;
	cpu_set_t one, all;
	char err[256], rule[64];
	int nst, n, status;
	pid_t child;

	ASSERT_EQ(0, ctx_fresh());
	/* "uncapture SPEC"; "capture SPEC" from its third byte. */
	snprintf(rule, sizeof(rule), "uncapture %s", site_spec());
	ASSERT_EQ(0, sa_cmd(rule + 2)) TH_LOG("%s", rule + 2);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		for (;;) {
			char *buf;
			size_t len;

			if (!sa_read_file(SA_PROC, &buf, &len))
				free(buf);
		}
	}
	/* Fired 0.25 to 2 ms on: mostly in the child's reads. */
	for (int i = 0; i < 40; i++)
		if (ctx("alloc c 1 100 tag=4 irq=%d", 250 * (i % 8 + 1)))
			break;
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(all), &all));

	ASSERT_EQ(0, sa_snap_read(&snap, err, sizeof(err))) TH_LOG("%s", err);
	nst = stacks_read(st, MAX_STACKS, err, sizeof(err));
	ASSERT_LE(0, nst) TH_LOG("%s", err);
	n = caller_rows(&snap, st, nst, 'c', &got);
	ASSERT_EQ(0, truth(&want, 'c', CTX_ANY, CTX_ANY));
	EXPECT_EQ(40, want.allocs);
	EXPECT_SUMS(want, got, "caller c's stack rows");
	ksft_print_msg("40 allocations in an interrupt: %d stack rows\n", n);
	if (irq_stacks_cut()) {
		const char *last = NULL;
		int cut = 1;

		/* The stacks of caller c's rows: this test's alone. */
		for (size_t i = 0; i < snap.nrows; i++) {
			const char *at = sa_row_context(&snap.rows[i]);
			unsigned int id;

			if (!site_row(&snap.rows[i]) || !at ||
			    strncmp(at, " @stack:", 8))
				continue;
			id = strtoul(at + 8, NULL, 10);
			if (stack_caller(st, nst, id) != 'c')
				continue;
			for (int k = 0; k < nst; k++) {
				if (st[k].id != id)
					continue;
				if (!last)
					last = st[k].last;
				cut &= !strcmp(last, st[k].last);
			}
		}
		EXPECT_LE(1, n);
		EXPECT_GE(4, n);
		EXPECT_TRUE(cut) {
			char *buf;
			size_t len;

			/* The stacks, to see where they part. */
			if (!sa_read_file(CTX_STACKS, &buf, &len)) {
				ksft_print_msg("%s", buf);
				free(buf);
			}
		}
	} else {
		EXPECT_LE(1, n);
	}
	sa_snap_free(&snap);
	EXPECT_EQ(0, sa_cmd(rule)) TH_LOG("%s", rule);
	ctx_gone();
}

/*
 * Capture turned on and off while a kthread allocates and frees at the
 * site: once quiet, every row's allocs - frees is its objs and the rows
 * sum to the books; the objects from before stay in the own row.
 */
TEST(capture_on_off_under_load)
{
	struct sa_truth want, got, own;
	struct sa_snap snap;
	char err[256], rule[64];

	ASSERT_EQ(0, ctx_fresh());
	/* "uncapture SPEC"; "capture SPEC" from its third byte. */
	snprintf(rule, sizeof(rule), "uncapture %s", site_spec());
	ASSERT_EQ(0, ctx("alloc b 6 500 tag=7"));
	ASSERT_EQ(0, ctx("load start a 64 tag=3"));
	for (int i = 0; i < 20; i++) {
		unsigned long long from = load_allocs();

		/* The load moves between two switches (bounded by count). */
		for (int tries = 0; load_allocs() < from + 20 && tries < 10000;
		     tries++)
			usleep(1000);
		ASSERT_LE(from + 20, load_allocs());
		ASSERT_EQ(0, sa_cmd(i % 2 ? rule : rule + 2))
			TH_LOG("%s", i % 2 ? rule : rule + 2);
	}
	ASSERT_EQ(0, ctx("load stop"));
	ASSERT_EQ(0, sa_snap_read(&snap, err, sizeof(err))) TH_LOG("%s", err);
	for (size_t i = 0; i < snap.nrows; i++) {
		const struct sa_row *r = &snap.rows[i];

		if (!site_row(r))
			continue;
		EXPECT_EQ(r->objs, r->allocs - r->frees) TH_LOG("%s", r->caller);
		EXPECT_LE(r->live_req, r->live) TH_LOG("%s", r->caller);
		EXPECT_LE(r->req, r->total) TH_LOG("%s", r->caller);
	}
	EXPECT_LE(2, all_rows(&snap, &got));
	ASSERT_EQ(0, truth(&want, 0, CTX_ANY, CTX_ANY));
	EXPECT_SUMS(want, got, "site under load (own + stacks)");
	ctx_rows(&snap, NULL, &own);
	sa_snap_free(&snap);

	/* The six objects from before are the own row's: so are their frees. */
	ASSERT_EQ(0, ctx("free b 6 tag=7"));
	ASSERT_EQ(0, sa_snap_read(&snap, err, sizeof(err))) TH_LOG("%s", err);
	ctx_rows(&snap, NULL, &got);
	EXPECT_EQ(own.frees + 6, got.frees);
	EXPECT_EQ(own.objs - 6, got.objs);
	EXPECT_EQ(own.allocs, got.allocs);
	all_rows(&snap, &got);
	ASSERT_EQ(0, truth(&want, 0, CTX_ANY, CTX_ANY));
	EXPECT_SUMS(want, got, "site after the frees");
	sa_snap_free(&snap);
	EXPECT_EQ(0, sa_cmd("uncapture all"));
	EXPECT_EQ(0, sa_key_now("captured sites"));
	ctx_gone();
}

/*
 * A function rule on a module's code is dropped when that module goes
 * (its code gone, another module could be loaded where it was): said in
 * the kernel log, no more in `capture rules`, and the module loaded again
 * is not captured by it.  A module rule waits for the module's next load
 * and captures it again.
 */
TEST(module_rules_across_reloads)
{
	struct stack_rec st[MAX_STACKS];
	struct sa_truth want, got;
	struct sa_snap snap;
	char err[256];
	int nst, logged;

	ASSERT_EQ(0, ctx_fresh());
	if (strcmp(site_spec(), CTX_SITE)) {
		TH_LOG("no kprobes: no function can be named, that part not tried");
	} else {
		ASSERT_EQ(0, sa_cmd("capture " CTX_SITE));
		EXPECT_EQ(1, sa_key_now("capture rules"));
		logged = sa_logged_times("capture " CTX_SITE ": dropped");
		ctx_gone();
		EXPECT_EQ(0, sa_key_now("capture rules"));
		EXPECT_EQ(logged + 1,
			  sa_logged_times("capture " CTX_SITE ": dropped"));
		EXPECT_EQ(ENOENT, sa_cmd("uncapture " CTX_SITE));
		ASSERT_EQ(0, ctx_fresh());
		ASSERT_EQ(0, ctx("alloc a 2 64 tag=1"));
		ASSERT_EQ(0, sa_snap_read(&snap, err, sizeof(err)))
			TH_LOG("%s", err);
		EXPECT_EQ(1, all_rows(&snap, &got));
		ASSERT_EQ(0, truth(&want, 0, CTX_ANY, CTX_ANY));
		EXPECT_EQ(1, ctx_rows(&snap, NULL, &got));
		EXPECT_SUMS(want, got, "own row, the rule dropped");
		EXPECT_EQ(0, sa_snap_key(&snap, "captured sites"));
		sa_snap_free(&snap);
	}

	ASSERT_EQ(0, sa_cmd("capture module:sa_ctx"));
	ctx_gone();
	EXPECT_EQ(1, sa_key_now("capture rules"));
	ASSERT_EQ(0, ctx_fresh());
	ASSERT_EQ(0, ctx("alloc b 3 64 tag=2"));
	ASSERT_EQ(0, sa_snap_read(&snap, err, sizeof(err))) TH_LOG("%s", err);
	nst = stacks_read(st, MAX_STACKS, err, sizeof(err));
	ASSERT_LE(0, nst) TH_LOG("%s", err);
	EXPECT_EQ(1, caller_rows(&snap, st, nst, 'b', &got));
	ASSERT_EQ(0, truth(&want, 'b', 2, CTX_ANY));
	EXPECT_SUMS(want, got, "caller b's stack row after the reload");
	EXPECT_EQ(0, ctx_rows(&snap, NULL, &got));
	sa_snap_free(&snap);
	EXPECT_EQ(0, sa_cmd("uncapture module:sa_ctx"));
	ctx_gone();
}

/* "# cache allocs N objs M" of sa_ctx; -1 if unreadable. */
static int cache_books(unsigned long long *allocs, unsigned long long *objs)
{
	char *text, *at;
	int ret = -1;

	if (sa_read_file(CTX_PROC, &text, NULL))
		return -1;
	at = strstr(text, "# cache allocs ");
	if (at && sscanf(at, "# cache allocs %llu objs %llu", allocs, objs) == 2)
		ret = 0;
	free(text);
	return ret;
}

/*
 * A cache name longer than a row shows (29 bytes, 23 shown) is captured,
 * by its whole name; one longer than a rule keeps (64 bytes) is refused.
 */
TEST(capture_long_cache_name)
{
	unsigned long long allocs, objs, own = 0, stacked = 0, frees = 0;
	unsigned long long live_objs = 0;
	struct sa_snap snap;
	char err[256], type[64] = "";
	int named;

	ASSERT_EQ(0, ctx_fresh());
	EXPECT_EQ(EINVAL, sa_cmd("capture cache:"
				 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));
	ASSERT_EQ(0, sa_cmd("capture cache:" CTX_CACHE));
	EXPECT_EQ(1, sa_key_now("capture rules"));
	ASSERT_EQ(0, ctx("cache alloc 5"));
	ASSERT_EQ(0, ctx("cache free"));
	ASSERT_EQ(0, ctx("cache alloc 3"));
	ASSERT_EQ(0, cache_books(&allocs, &objs));
	ASSERT_EQ(8, allocs);
	ASSERT_EQ(3, objs);
	ASSERT_EQ(0, sa_snap_read(&snap, err, sizeof(err))) TH_LOG("%s", err);
	for (size_t i = 0; i < snap.nrows; i++) {
		const struct sa_row *r = &snap.rows[i];
		const char *at = sa_row_context(r);

		if (strncmp(r->caller, CTX_CACHE_SITE "+0x",
			    strlen(CTX_CACHE_SITE) + 3) ||
		    !strstr(r->caller, " [sa_ctx]") || sa_row_unloaded(r))
			continue;
		snprintf(type, sizeof(type), "%s", r->type);
		if (!at) {
			own += r->allocs;
		} else {
			EXPECT_EQ(0, strncmp(at, " @stack:", 8)) TH_LOG("%s", r->caller);
			stacked += r->allocs;
			frees += r->frees;
			live_objs += r->objs;
		}
	}
	sa_snap_free(&snap);
	/* A kernel whose events do not name the cache (5.10): no rule matches. */
	named = strcmp(type, "cache") != 0;
	if (named) {
		EXPECT_STREQ("cache:" CTX_CACHE_SHOWN, type);
		EXPECT_EQ(0, own);
		EXPECT_EQ(allocs, stacked);
		EXPECT_EQ(5, frees);
		EXPECT_EQ(objs, live_objs);
	} else {
		TH_LOG("the kernel does not name the cache: nothing captured");
		EXPECT_EQ(allocs, own);
	}
	ASSERT_EQ(0, ctx("cache free"));
	EXPECT_EQ(0, sa_cmd("uncapture cache:" CTX_CACHE));
	ctx_gone();
}

/* max_stacks out of range fails the load, whether or not anything captures. */
TEST(max_stacks_checked_at_load)
{
	int logged = sa_logged_times("max_stacks=0: must be 1..1048576");

	EXPECT_EQ(EINVAL, sa_reload("max_stacks=0"));
	EXPECT_EQ(logged + 1, sa_logged_times("max_stacks=0: must be 1..1048576"));
	EXPECT_EQ(EINVAL, sa_reload("max_stacks=1048577"));
	EXPECT_EQ(0, sa_module_loaded("slab_account"));
	sa_back();
	EXPECT_EQ(1, sa_module_loaded("slab_account"));
}

/*
 * A stack table of two: the first two callers' stacks fit, the third's
 * allocations are counted in `stacks dropped` and in the site's own row,
 * exactly.
 */
TEST(full_stack_table)
{
	struct stack_rec st[MAX_STACKS];
	struct sa_truth want, got;
	struct sa_snap snap;
	char err[256], rule[64];
	int nst;

	ASSERT_EQ(0, sa_reload("max_stacks=2"));
	ASSERT_EQ(0, ctx_fresh());
	snprintf(rule, sizeof(rule), "capture %s", site_spec());
	ASSERT_EQ(0, sa_cmd(rule)) TH_LOG("%s", rule);
	ASSERT_EQ(0, ctx("alloc a 3 100 tag=1"));
	ASSERT_EQ(0, ctx("alloc b 2 100 tag=2"));
	ASSERT_EQ(0, ctx("alloc c 4 100 tag=3"));
	ASSERT_EQ(0, ctx("free c 1 tag=3"));
	ASSERT_EQ(0, sa_snap_read(&snap, err, sizeof(err))) TH_LOG("%s", err);
	nst = stacks_read(st, MAX_STACKS, err, sizeof(err));
	ASSERT_LE(0, nst) TH_LOG("%s", err);
	EXPECT_EQ(2, nst);
	EXPECT_EQ(2, sa_snap_key(&snap, "stack capacity"));
	EXPECT_EQ(2, sa_snap_key(&snap, "stacks"));
	EXPECT_EQ(4, sa_snap_key(&snap, "stacks dropped"));
	EXPECT_EQ(0, sa_snap_key(&snap, "stacks unseen"));
	EXPECT_EQ(1, caller_rows(&snap, st, nst, 'a', &got));
	ASSERT_EQ(0, truth(&want, 'a', 1, CTX_ANY));
	EXPECT_SUMS(want, got, "caller a's stack row");
	EXPECT_EQ(1, caller_rows(&snap, st, nst, 'b', &got));
	ASSERT_EQ(0, truth(&want, 'b', 2, CTX_ANY));
	EXPECT_SUMS(want, got, "caller b's stack row");
	EXPECT_EQ(0, caller_rows(&snap, st, nst, 'c', &got));
	EXPECT_EQ(1, ctx_rows(&snap, NULL, &got));
	ASSERT_EQ(0, truth(&want, 'c', 3, CTX_ANY));
	EXPECT_SUMS(want, got, "own row: caller c's, whose stack did not fit");
	sa_snap_free(&snap);
	sa_back();
}

/* ---- ages in the detail file ------------------------------------------- */

struct drow {
	unsigned long long objs, oldest, ages[6];
	char caller[256];
};

/*
 * The detail file's rows of the site that have a stack context, into @d
 * (at most @max); how many, or -1.
 */
static int detail_stack_rows(struct drow *d, int max)
{
	char *text, *line, *save = NULL;
	int n = 0, legend = 0;

	if (sa_read_file(CTX_DETAIL, &text, NULL))
		return -1;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v[25];
		char *p = line, *end;
		int i;

		if (!legend) {
			legend = line[0] == '#';
			continue;
		}
		for (i = 0; i < 25; i++) {
			v[i] = strtoull(p, &end, 10);
			if (end == p || *end != ' ')
				break;
			p = end + 1;
		}
		if (i < 25 || !(p = strchr(p, ' ')))
			continue;
		p++;
		if (strncmp(p, CTX_SITE "+0x", strlen(CTX_SITE) + 3) ||
		    !strstr(p, " [sa_ctx]") || !strstr(p, " @stack:") ||
		    strstr(p, " unloaded#") || n == max)
			continue;
		d[n].objs = v[0];
		d[n].oldest = v[3];
		memcpy(d[n].ages, &v[5], sizeof(d[n].ages));
		snprintf(d[n].caller, sizeof(d[n].caller), "%s", p);
		n++;
	}
	free(text);
	return n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Each stack row has the ages of its own objects in the detail file:
 * caller a's, allocated 3 s before caller b's, are all 1 to 10 s old;
 * caller b's less than a second.
 */
TEST(stack_row_ages)
{
	struct stack_rec st[MAX_STACKS];
	struct drow d[8];
	char err[256], rule[64];
	double t0, t1;
	int nst, nd, seen_a = 0, seen_b = 0;

	ASSERT_EQ(0, ctx_fresh());
	snprintf(rule, sizeof(rule), "capture %s", site_spec());
	ASSERT_EQ(0, sa_cmd(rule)) TH_LOG("%s", rule);
	ASSERT_EQ(0, ctx("alloc a 4 100 tag=1"));
	sleep(3);
	t0 = now_s();
	ASSERT_EQ(0, ctx("alloc b 3 100 tag=2"));
	nd = detail_stack_rows(d, 8);
	t1 = now_s();
	ASSERT_LE(0, nd);
	nst = stacks_read(st, MAX_STACKS, err, sizeof(err));
	ASSERT_LE(0, nst) TH_LOG("%s", err);
	for (int i = 0; i < nd; i++) {
		const char *at = strstr(d[i].caller, " @stack:");
		char c = stack_caller(st, nst, strtoul(at + 8, NULL, 10));

		TH_LOG("%c: objs %llu oldest %llu ages %llu %llu %llu %llu %llu %llu",
		       c ? c : '?', d[i].objs, d[i].oldest, d[i].ages[0],
		       d[i].ages[1], d[i].ages[2], d[i].ages[3], d[i].ages[4],
		       d[i].ages[5]);
		if (c == 'a') {
			seen_a++;
			EXPECT_EQ(4, d[i].objs);
			EXPECT_EQ(4, d[i].ages[1]);
			EXPECT_LE(3, d[i].oldest);
			EXPECT_GT(10, d[i].oldest);
		} else if (c == 'b') {
			seen_b++;
			EXPECT_EQ(3, d[i].objs);
			/* Rounded to the second: younger than 0.5 s is 0. */
			if (t1 - t0 < 0.5) {
				EXPECT_EQ(3, d[i].ages[0]);
				EXPECT_EQ(0, d[i].oldest);
			} else {
				TH_LOG("b's read took %.2f s: its ages not checked",
				       t1 - t0);
				EXPECT_EQ(3, d[i].ages[0] + d[i].ages[1]);
			}
		}
	}
	EXPECT_EQ(1, seen_a);
	EXPECT_EQ(1, seen_b);
	EXPECT_EQ(0, sa_cmd("uncapture all"));
	ctx_gone();
}

/* ---- split ------------------------------------------------------------- */

/* Is a cgroup2 file system mounted at CG_ROOT? */
static int cgroup2_mounted(void)
{
	char *text;
	int yes;

	if (sa_read_file("/proc/mounts", &text, NULL))
		return 0;
	yes = strstr(text, " " CG_ROOT " cgroup2 ") != NULL;
	free(text);
	return yes;
}

/* Does the kernel have a cgroup2 file system? */
static int cgroup2_in_kernel(void)
{
	char *text;
	int yes;

	if (sa_read_file("/proc/filesystems", &text, NULL))
		return 0;
	yes = strstr(text, "\tcgroup2\n") != NULL;
	free(text);
	return yes;
}

static int online_nodes(void)
{
	char *text;
	int a = 0, b = -1, n;

	if (sa_read_file("/sys/devices/system/node/online", &text, NULL))
		return 1;
	n = sscanf(text, "%d-%d", &a, &b);
	free(text);
	return n == 2 ? b - a + 1 : 1;
}

/* The split word of the header now; "" if unreadable. */
static void split_now(char *word, size_t n)
{
	struct sa_snap snap;
	char err[256];

	word[0] = '\0';
	if (sa_snap_read(&snap, err, sizeof(err)))
		return;
	snprintf(word, n, "%s", sa_snap_text(&snap, "split") ?: "");
	sa_snap_free(&snap);
}

TEST(split_refusals)
{
	EXPECT_EQ(EINVAL, sa_reload("split=bogus"));
	EXPECT_EQ(EINVAL, sa_reload("split="));
	EXPECT_EQ(EINVAL, sa_reload("split=cgroup,task"));
	/* Without cgroup2 mounted (where this test can take it away). */
	if (cgroup2_mounted())
		umount2(CG_ROOT, 0);
	if (!cgroup2_mounted()) {
		EXPECT_EQ(EINVAL, sa_reload("split=cgroup"));
	} else {
		TH_LOG("cgroup2 stays mounted at %s: its refusal not tried",
		       CG_ROOT);
	}
	sa_back();
	EXPECT_EQ(1, sa_module_loaded("slab_account"));
}

/*
 * A child that moves into @cgroup and takes the name @comm (each if not
 * NULL), then writes @cmd to sa_ctx; waited for, its pid in *@child when
 * @child is not NULL.  Its exit status: 0, or the step that failed.
 */
static int run_child_pid(const char *cgroup, const char *comm, const char *cmd,
			 pid_t *child)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (child)
		*child = pid;
	if (!pid) {
		char path[256], me[32];

		if (cgroup) {
			snprintf(path, sizeof(path), "%s/%s/cgroup.procs",
				 CG_ROOT, cgroup);
			snprintf(me, sizeof(me), "%d", getpid());
			if (sa_write(path, me, strlen(me)))
				_exit(2);
		}
		if (comm && prctl(PR_SET_NAME, comm, 0, 0, 0))
			_exit(3);
		_exit(sa_write(CTX_PROC, cmd, strlen(cmd)) ? 4 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int run_child(const char *cgroup, const char *comm, const char *cmd)
{
	return run_child_pid(cgroup, comm, cmd, NULL);
}

TEST(split_cgroup)
{
	static const char * const cg[] = { "sactx_one", "sactx_two" };
	unsigned long long id[2];
	struct sa_truth want, got;
	struct sa_snap snap;
	char err[256], path[256], ctxname[64], word[16];
	int mounted = 0;

	/* A kernel without cgroups: the load refused. */
	if (!cgroup2_in_kernel()) {
		EXPECT_EQ(EINVAL, sa_reload("split=cgroup"));
		sa_back();
		return;
	}
	if (!cgroup2_mounted()) {
		ASSERT_EQ(0, mount("none", CG_ROOT, "cgroup2", 0, NULL))
			TH_LOG("mount cgroup2: %s", strerror(errno));
		mounted = 1;
	}
	for (int i = 0; i < 2; i++) {
		union {
			struct file_handle fh;
			char room[sizeof(struct file_handle) + 16];
		} h;
		struct stat sb;
		int mnt;

		snprintf(path, sizeof(path), "%s/%s", CG_ROOT, cg[i]);
		rmdir(path);
		ASSERT_EQ(0, mkdir(path, 0755)) TH_LOG("%s: %s", path,
						       strerror(errno));
		ASSERT_EQ(0, stat(path, &sb));
		/*
		 * A cgroup2 id is 64 bits, which its file handle holds whole;
		 * the inode number is only its low 32 bits on a 32-bit
		 * kernel, where the high 32 are a generation (not 0).
		 */
		h.fh.handle_bytes = sizeof(h.room) - sizeof(h.fh);
		ASSERT_EQ(0, name_to_handle_at(AT_FDCWD, path, &h.fh, &mnt, 0))
			TH_LOG("%s: %s", path, strerror(errno));
		ASSERT_EQ(sizeof(id[i]), h.fh.handle_bytes);
		memcpy(&id[i], h.fh.f_handle, sizeof(id[i]));
		ASSERT_EQ((uint32_t)id[i], (uint32_t)sb.st_ino);
	}
	ASSERT_EQ(0, sa_reload("split=cgroup"));
	split_now(word, sizeof(word));
	EXPECT_STREQ("cgroup", word);
	ASSERT_EQ(0, ctx_fresh());
	ASSERT_EQ(0, run_child(cg[0], NULL, "alloc a 9 100 tag=1"));
	ASSERT_EQ(0, run_child(cg[1], NULL, "alloc a 4 100 tag=2"));
	/* Freed elsewhere (this task, another cgroup): still their rows'. */
	ASSERT_EQ(0, ctx("free a 2 tag=1"));
	ASSERT_EQ(0, run_child(cg[1], NULL, "free a 1 tag=2"));
	ASSERT_EQ(0, ctx("alloc b 3 100 tag=3 irq"));
	ASSERT_EQ(0, ctx("free b 1 tag=3"));

	ASSERT_EQ(0, sa_snap_read(&snap, err, sizeof(err))) TH_LOG("%s", err);
	for (int i = 0; i < 2; i++) {
		snprintf(ctxname, sizeof(ctxname), " @cgroup:%llu", id[i]);
		EXPECT_EQ(1, ctx_rows(&snap, ctxname, &got)) TH_LOG("%s", ctxname);
		ASSERT_EQ(0, truth(&want, 'a', i + 1, CTX_ANY));
		EXPECT_SUMS(want, got, ctxname);
	}
	EXPECT_EQ(1, ctx_rows(&snap, " @irq", &got));
	ASSERT_EQ(0, truth(&want, 'b', 3, CTX_ANY));
	EXPECT_SUMS(want, got, "@irq");
	all_rows(&snap, &got);
	ASSERT_EQ(0, truth(&want, 0, CTX_ANY, CTX_ANY));
	EXPECT_SUMS(want, got, "site (own + contexts)");
	sa_snap_free(&snap);

	sa_back();
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", CG_ROOT, cg[i]);
		EXPECT_EQ(0, rmdir(path)) TH_LOG("%s: %s", path, strerror(errno));
	}
	if (mounted)
		EXPECT_EQ(0, umount2(CG_ROOT, 0));
}

TEST(split_task)
{
	struct sa_truth want, got;
	struct sa_snap snap;
	char err[256], word[16];

	ASSERT_EQ(0, sa_reload("split=task"));
	split_now(word, sizeof(word));
	EXPECT_STREQ("task", word);
	ASSERT_EQ(0, ctx_fresh());
	ASSERT_EQ(0, run_child(NULL, "sactx one", "alloc c 5 300 tag=4"));
	ASSERT_EQ(0, run_child(NULL, "sactx@two", "alloc c 8 300 tag=5"));
	/* A space, a control byte and a two-byte UTF-8 letter (é). */
	ASSERT_EQ(0, run_child(NULL, "sa x\x01\xc3\xa9", "alloc c 2 300 tag=6"));
	ASSERT_EQ(0, ctx("free c 2 tag=4"));
	ASSERT_EQ(0, ctx("free c 3 tag=5 cpu=%d", other_cpu()));
	ASSERT_EQ(0, sa_snap_read(&snap, err, sizeof(err))) TH_LOG("%s", err);
	/* Whitespace in a name is written '_'; '@' stays. */
	EXPECT_EQ(1, ctx_rows(&snap, " @task:sactx_one", &got));
	ASSERT_EQ(0, truth(&want, 'c', 4, CTX_ANY));
	EXPECT_SUMS(want, got, "@task:sactx_one");
	EXPECT_EQ(1, ctx_rows(&snap, " @task:sactx@two", &got));
	ASSERT_EQ(0, truth(&want, 'c', 5, CTX_ANY));
	EXPECT_SUMS(want, got, "@task:sactx@two");
	/* Every byte outside 0x21..0x7e is written '_': one token. */
	EXPECT_EQ(1, ctx_rows(&snap, " @task:sa_x___", &got));
	ASSERT_EQ(0, truth(&want, 'c', 6, CTX_ANY));
	EXPECT_SUMS(want, got, "@task:sa_x___");
	all_rows(&snap, &got);
	ASSERT_EQ(0, truth(&want, 0, CTX_ANY, CTX_ANY));
	EXPECT_SUMS(want, got, "site (own + contexts)");
	sa_snap_free(&snap);
	sa_back();
}

/* The site's rows with the stack of caller @c and the task @comm, summed. */
static int stack_task_rows(const struct sa_snap *snap, const struct stack_rec *st,
			   int nst, char c, const char *comm, struct sa_truth *s)
{
	char tail[64];
	int n = 0;

	snprintf(tail, sizeof(tail), " @task:%s", comm);
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < snap->nrows; i++) {
		const struct sa_row *r = &snap->rows[i];
		const char *at = sa_row_context(r);
		char *task;

		if (!site_row(r) || !at || strncmp(at, " @stack:", 8))
			continue;
		/* " @stack:ID @task:COMM", the task last. */
		task = strstr(at, " @task:");
		if (!task || strcmp(task, tail) ||
		    stack_caller(st, nst, strtoul(at + 8, NULL, 10)) != c)
			continue;
		sum_row(s, r);
		n++;
	}
	return n;
}

/* Capture and split=task at once: a row per (stack, task), each exact. */
TEST(capture_and_split_task)
{
	static const struct {
		char caller;
		const char *comm;
		int tag;
	} want_rows[] = {
		{ 'a', "sactx_one", 1 }, { 'b', "sactx_two", 2 },
		{ 'b', "sactx_one", 3 },
	};
	struct stack_rec st[MAX_STACKS];
	struct sa_truth want, got;
	struct sa_snap snap;
	char err[256], rule[64];
	int nst;

	ASSERT_EQ(0, sa_reload("split=task"));
	ASSERT_EQ(0, ctx_fresh());
	snprintf(rule, sizeof(rule), "capture %s", site_spec());
	ASSERT_EQ(0, sa_cmd(rule)) TH_LOG("%s", rule);
	ASSERT_EQ(0, run_child(NULL, "sactx_one", "alloc a 4 100 tag=1"));
	ASSERT_EQ(0, run_child(NULL, "sactx_two", "alloc b 3 200 tag=2"));
	ASSERT_EQ(0, run_child(NULL, "sactx_one", "alloc b 2 300 tag=3"));
	/* Freed by another task: still the allocating rows'. */
	ASSERT_EQ(0, ctx("free b 1 tag=2"));
	ASSERT_EQ(0, ctx("free a 3 tag=1"));
	ASSERT_EQ(0, sa_snap_read(&snap, err, sizeof(err))) TH_LOG("%s", err);
	nst = stacks_read(st, MAX_STACKS, err, sizeof(err));
	ASSERT_LE(0, nst) TH_LOG("%s", err);
	for (size_t i = 0; i < sizeof(want_rows) / sizeof(want_rows[0]); i++) {
		char what[64];

		snprintf(what, sizeof(what), "@stack of %c @task:%s",
			 want_rows[i].caller, want_rows[i].comm);
		EXPECT_EQ(1, stack_task_rows(&snap, st, nst, want_rows[i].caller,
					     want_rows[i].comm, &got))
			TH_LOG("%s: not exactly one row", what);
		ASSERT_EQ(0, truth(&want, want_rows[i].caller, want_rows[i].tag,
				   CTX_ANY));
		EXPECT_SUMS(want, got, what);
	}
	/* Three context rows, nothing in the own row. */
	EXPECT_EQ(3, all_rows(&snap, &got) - ctx_rows(&snap, NULL, &want));
	EXPECT_EQ(0, want.allocs);
	all_rows(&snap, &got);
	ASSERT_EQ(0, truth(&want, 0, CTX_ANY, CTX_ANY));
	EXPECT_SUMS(want, got, "site (own + stack and task rows)");
	sa_snap_free(&snap);
	sa_back();
}

/*
 * The cgroup v2 id of directory @path: the 64 bits its file handle holds
 * (the inode number is only its low 32 bits on a 32-bit kernel).  0, or
 * -1 with errno.
 */
static int cgroup_id_of(const char *path, unsigned long long *id)
{
	union {
		struct file_handle fh;
		char room[sizeof(struct file_handle) + 16];
	} h;
	int mnt;

	h.fh.handle_bytes = sizeof(h.room) - sizeof(h.fh);
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mnt, 0))
		return -1;
	if (h.fh.handle_bytes != sizeof(*id)) {
		errno = EPROTO;
		return -1;
	}
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

/* The cgroup v2 id of this task's cgroup (/proc/self/cgroup's "0::PATH"). */
static int my_cgroup_id(unsigned long long *id)
{
	char *text, *at, *nl, path[512];
	int ret;

	if (sa_read_file("/proc/self/cgroup", &text, NULL))
		return -1;
	at = strstr(text, "0::");
	if (at && (at == text || at[-1] == '\n')) {
		nl = strchr(at, '\n');
		if (nl)
			*nl = '\0';
		snprintf(path, sizeof(path), "%s%s", CG_ROOT, at + 3);
		ret = cgroup_id_of(path, id);
	} else {
		errno = ENOENT;
		ret = -1;
	}
	free(text);
	return ret;
}

/* A thread of this task named @comm that writes @cmd to sa_ctx. */
struct named_thread {
	const char *comm, *cmd;
	pid_t tid;
	int ret;
};

static void *named_thread_run(void *arg)
{
	struct named_thread *t = arg;

	t->tid = syscall(SYS_gettid);
	t->ret = prctl(PR_SET_NAME, t->comm, 0, 0, 0) ? 3 :
		 sa_write(CTX_PROC, t->cmd, strlen(t->cmd)) ? 4 : 0;
	return NULL;
}

/*
 * What a 2.0 record line says after `stack ID N` for an allocation by
 * thread @tid of process @pid named @comm (as the file writes it) in
 * cgroup @cg (when the kernel has cgroups: @has_cg).
 */
static void first_of(char *buf, size_t n, pid_t pid, pid_t tid, const char *comm,
		     int has_cg, unsigned long long cg)
{
	int len = snprintf(buf, n, " pid %d tid %d comm %s", (int)pid, (int)tid, comm);

	if (has_cg && len > 0 && (size_t)len < n)
		snprintf(buf + len, n - len, " cgroup %llu", cg);
}

/* The stacks of caller @c in @st: how many, the first's index in *@first. */
static int caller_stacks(const struct stack_rec *st, int nst, char c, int *first)
{
	int n = 0;

	for (int i = 0; i < nst; i++) {
		if (stack_caller(st, nst, st[i].id) != c)
			continue;
		if (!n++)
			*first = i;
	}
	return n;
}

/*
 * Each stack names the task context of the allocation that stored it
 * (the stacks file 2.0): two named children (known pids), each in a
 * cgroup of its own where the kernel has cgroups, reach callers a and b
 * first; later allocations of other tasks at those stacks change
 * nothing.  An allocation in a hard irq stores caller c's stacks first:
 * `irq`; then a named thread of this task reaches c in task context, a
 * stack of its own: its pid, its tid, its name.
 */
TEST(stacks_name_their_first_task)
{
	static const char * const cg[] = { "sactx_one", "sactx_two" };
	unsigned long long id[2] = { 0, 0 }, mine = 0;
	struct named_thread thr = { "sactx thr", "alloc c 2 100 tag=4", 0, -1 };
	struct stack_rec st[MAX_STACKS];
	char err[256], path[256], rule[64], want[128];
	int nst, i, k = 0, n, nirq, mounted = 0, has_cg = cgroup2_in_kernel();
	pthread_t t;
	pid_t pid[2];

	if (has_cg) {
		if (!cgroup2_mounted()) {
			ASSERT_EQ(0, mount("none", CG_ROOT, "cgroup2", 0, NULL))
				TH_LOG("mount cgroup2: %s", strerror(errno));
			mounted = 1;
		}
		for (i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/%s", CG_ROOT, cg[i]);
			rmdir(path);
			ASSERT_EQ(0, mkdir(path, 0755)) TH_LOG("%s: %s", path, strerror(errno));
			ASSERT_EQ(0, cgroup_id_of(path, &id[i]))
				TH_LOG("%s: %s", path, strerror(errno));
		}
		ASSERT_EQ(0, my_cgroup_id(&mine)) TH_LOG("%s", strerror(errno));
		ASSERT_NE(id[0], id[1]);
		ASSERT_NE(id[0], mine);
	}
	/*
	 * A stack table of its own: the stacks of earlier tests (sa_ctx
	 * loaded again at the same address) would have their firsts.
	 */
	ASSERT_EQ(0, sa_reload(getenv("SA_LOAD_PARAMS")));
	ASSERT_EQ(0, ctx_fresh());
	snprintf(rule, sizeof(rule), "capture %s", site_spec());
	ASSERT_EQ(0, sa_cmd(rule)) TH_LOG("%s", rule);
	/* Firsts: a by child one, b by child two (a space in its name). */
	ASSERT_EQ(0, run_child_pid(has_cg ? cg[0] : NULL, "sactx_one",
				   "alloc a 3 100 tag=1", &pid[0]));
	ASSERT_EQ(0, run_child_pid(has_cg ? cg[1] : NULL, "sactx two",
				   "alloc b 2 200 tag=2", &pid[1]));
	ASSERT_NE(pid[0], pid[1]);
	/* Later ones at the same stacks, by others: the firsts stay. */
	ASSERT_EQ(0, ctx("alloc a 1 100 tag=3"));
	ASSERT_EQ(0, ctx("alloc b 1 200 tag=3"));
	ASSERT_EQ(0, run_child(has_cg ? cg[1] : NULL, "sactx two", "alloc a 1 100 tag=3"));
	/* c first in a hard irq, then by a thread of this task. */
	ASSERT_EQ(0, ctx("alloc c 2 100 tag=5 irq"));
	ASSERT_EQ(0, pthread_create(&t, NULL, named_thread_run, &thr));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, thr.ret);
	ASSERT_NE(getpid(), thr.tid);

	nst = stacks_read(st, MAX_STACKS, err, sizeof(err));
	ASSERT_LE(0, nst) TH_LOG("%s", err);
	ASSERT_EQ(1, caller_stacks(st, nst, 'a', &k));
	first_of(want, sizeof(want), pid[0], pid[0], "sactx_one", has_cg, id[0]);
	EXPECT_STREQ(want, st[k].first);
	ASSERT_EQ(1, caller_stacks(st, nst, 'b', &k));
	first_of(want, sizeof(want), pid[1], pid[1], "sactx_two", has_cg, id[1]);
	EXPECT_STREQ(want, st[k].first);
	/*
	 * c: the irq's stacks (few: an entry may call its handler from more
	 * than one place), each `irq`, and the thread's one.
	 */
	n = caller_stacks(st, nst, 'c', &k);
	first_of(want, sizeof(want), getpid(), thr.tid, "sactx_thr", has_cg, mine);
	for (i = k, k = nirq = 0; i < nst; i++) {
		if (stack_caller(st, nst, st[i].id) != 'c')
			continue;
		if (!strcmp(st[i].first, " irq")) {
			nirq++;
			continue;
		}
		EXPECT_STREQ(want, st[i].first) TH_LOG("stack %u", st[i].id);
		k++;
	}
	EXPECT_LE(1, nirq) TH_LOG("no stack of caller c says irq");
	EXPECT_EQ(1, k) TH_LOG("caller c's stacks stored in task context");
	EXPECT_EQ(n, nirq + k);
	sa_back();
	if (has_cg) {
		for (i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/%s", CG_ROOT, cg[i]);
			EXPECT_EQ(0, rmdir(path)) TH_LOG("%s: %s", path, strerror(errno));
		}
		if (mounted)
			EXPECT_EQ(0, umount2(CG_ROOT, 0));
	}
}

/* A child named @comm that reads the main file and goes; 0 or -1. */
static int fill_child(const char *comm)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid) {
		char *text;

		if (prctl(PR_SET_NAME, comm, 0, 0, 0) ||
		    sa_read_file(SA_PROC, &text, NULL))
			_exit(1);
		free(text);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status) ? -1 : 0;
}

/*
 * A full context table: split=task in a site table of 1024, filled by
 * tasks of new names (each makes a row at every site it allocates at)
 * until context rows are refused; then a task of a new name allocates
 * at the site: no row of its own, its allocations in `context rows
 * dropped` and in the site's own row, exactly.
 */
TEST(full_context_table)
{
	struct sa_truth want, got, first;
	unsigned long long dropped;
	struct sa_snap snap;
	char err[256], comm[16];
	int i, own_rows;

	ASSERT_EQ(0, sa_reload("split=task max_sites=1024"));
	ASSERT_EQ(1024, sa_key_now("call site capacity"));
	ASSERT_EQ(0, ctx_fresh());
	/* The site's own row made first: it is a call site of its own. */
	ASSERT_EQ(0, ctx("alloc a 1 100 tag=1"));
	for (i = 0; i < 2000 && !sa_key_now("context rows dropped"); i++) {
		snprintf(comm, sizeof(comm), "sactx_fill%d", i);
		ASSERT_EQ(0, fill_child(comm));
	}
	ASSERT_LT(0, sa_key_now("context rows dropped"))
		TH_LOG("%d tasks did not fill the table", i);
	TH_LOG("%d tasks filled the table", i);
	dropped = sa_key_now("context rows dropped");
	ASSERT_EQ(0, run_child(NULL, "sactx_full", "alloc a 6 100 tag=2"));
	ASSERT_EQ(0, ctx("free a 2 tag=2"));
	ASSERT_EQ(0, sa_snap_read(&snap, err, sizeof(err))) TH_LOG("%s", err);
	/* Other tasks' allocations may be dropped meanwhile too. */
	EXPECT_LE(dropped + 6, sa_snap_key(&snap, "context rows dropped"));
	EXPECT_EQ(0, ctx_rows(&snap, " @task:sactx_full", &got));
	/* The own row: the new task's, and the first's if it had no row. */
	own_rows = ctx_rows(&snap, NULL, &got);
	EXPECT_EQ(1, own_rows);
	ASSERT_EQ(0, truth(&want, 'a', 2, CTX_ANY));
	if (!ctx_rows(&snap, " @task:sa_context_test", &first)) {
		ASSERT_EQ(0, truth(&first, 'a', 1, CTX_ANY));
		sum_add(&want, &first);
	}
	EXPECT_SUMS(want, got, "own row of a full table");
	all_rows(&snap, &got);
	ASSERT_EQ(0, truth(&want, 0, CTX_ANY, CTX_ANY));
	EXPECT_SUMS(want, got, "site (own + contexts)");
	sa_snap_free(&snap);
	sa_back();
}

TEST(split_node)
{
	struct sa_truth want, got;
	struct sa_snap snap;
	char err[256], word[16];

	/* (The NUMA boot of scripts/ci.sh looks for this line.) */
	printf("# split_node: %d NUMA nodes online\n", online_nodes());
	/* One node: nothing to split, the load refused. */
	if (online_nodes() < 2) {
		EXPECT_EQ(EINVAL, sa_reload("split=node"));
		EXPECT_LE(1, sa_logged_times("one NUMA node"));
		sa_back();
		return;
	}
	ASSERT_EQ(0, sa_reload("split=node"));
	split_now(word, sizeof(word));
	EXPECT_STREQ("node", word);
	ASSERT_EQ(0, ctx_fresh());
	ASSERT_EQ(0, ctx("alloc a 6 1000 tag=1 node=0"));
	ASSERT_EQ(0, ctx("alloc a 4 1000 tag=2 node=1"));
	ASSERT_EQ(0, ctx("alloc b 3 20000 tag=3 node=1"));
	ASSERT_EQ(0, ctx("free a 1 tag=1"));
	ASSERT_EQ(0, ctx("free a 2 tag=2 irq"));
	ASSERT_EQ(0, ctx("free b 1 tag=3"));
	/* The memory came from the nodes asked for. */
	ASSERT_EQ(0, truth(&want, 0, 1, 0));
	EXPECT_EQ(6, want.allocs);
	ASSERT_EQ(0, truth(&want, 0, 2, 1));
	EXPECT_EQ(4, want.allocs);
	ASSERT_EQ(0, sa_snap_read(&snap, err, sizeof(err))) TH_LOG("%s", err);
	for (int node = 0; node < 2; node++) {
		char name[32];

		snprintf(name, sizeof(name), " @node:%d", node);
		EXPECT_EQ(1, ctx_rows(&snap, name, &got)) TH_LOG("%s", name);
		ASSERT_EQ(0, truth(&want, 0, CTX_ANY, node));
		EXPECT_SUMS(want, got, name);
	}
	all_rows(&snap, &got);
	ASSERT_EQ(0, truth(&want, 0, CTX_ANY, CTX_ANY));
	EXPECT_SUMS(want, got, "site (own + nodes)");
	sa_snap_free(&snap);
	sa_back();
}

SA_SELFTEST_MAIN(0)
