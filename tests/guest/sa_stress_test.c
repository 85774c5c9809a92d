// SPDX-License-Identifier: GPL-2.0
/*
 * Load: sa_stress.ko's allocation storms on every CPU (kthreads, timers,
 * hard-irq hrtimers, irq_work, frees on other CPUs) while one process
 * reads /proc/slab_account continuously, one writes reset/stop/start and
 * one unloads and loads slab_account, for SA_STRESS_SECS seconds (default
 * 60) of guest time, the load cycles then until SA_CYCLES or a time budget
 * (below; each cycle's rmmod and insmod timed).  Nothing may crash and
 * every snapshot must parse with sane rows.
 *
 * Then the exact phase, on a freshly loaded slab_account (the chaos phase
 * leaves rows of objects freed while stopped, which no longer balance by
 * design; see README): the storm runs again with the reader reading, and
 * once it is stopped every sa_stress row must equal sa_stress's own books
 * exactly; meanwhile no counter of a row or of the header may ever go
 * backwards between two reads (a 64-bit counter read torn on a 32-bit
 * kernel would), and the big site's bytes pass 2^32.  Then resets taken
 * while the storm runs: each site of one size, quiet again, must read
 * exactly that size times its allocations, in bytes allocated and
 * requested.  Again after a reset while the storm's pools hold live
 * objects, after more storm, and after freeing everything.
 *
 * A second test runs the exact phase with slab_account split by task and
 * two sites captured from the load, a third site's capture turned on and
 * off under the storm: each site's own row plus its context rows must
 * equal the books exactly (split_and_capture_exact, below).
 *
 * Another test (taken_back_on_another_cpu_mid_read, below) reads the file
 * while an allocation is taken back on another CPU than the one that
 * counted it, between the reader's visits of the two CPUs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sa_lib.h"

#define SAS_PROC	"/proc/sa_stress"
/*
 * Load cycles: SA_STRESS_CYCLES (default SA_CYCLES), unless the chaos
 * phase's SA_STRESS_SECS and SA_CYCLE_EXTRA_SECS more have passed (a debug
 * kernel: seconds a cycle); at least SA_MIN_CYCLES (two with tiny tables)
 * or all of them if fewer, unless SA_CYCLE_FLOOR_SECS more have passed
 * too (a debug kernel beside other guests on a small host: tens of
 * seconds a cycle), which leaves the exact phase its time before the
 * test's timeout; then at least SA_FLOOR_CYCLES.
 */
#define SA_CYCLES	100
#define SA_MIN_CYCLES	20
#define SA_FLOOR_CYCLES	2
#define SA_CYCLE_EXTRA_SECS	300
#define SA_CYCLE_FLOOR_SECS	120
#define NR_SAS_SITES	10
/* The storm's sites of one size: their requests (sa_stress.c). */
static const struct {
	const char *func, *cache;
	unsigned long long req;
} one_size[] = {
	{ "sa_stress_fixed", NULL, 100 },
	{ "sa_stress_cache", "sa_stress_cache", 152 },
	{ "sa_stress_big", NULL, 1000 * 1000 },
};

struct chaos {
	volatile int stop;
	unsigned long want_cycles, min_cycles, floor_cycles;
	int monotone;			/* no reset or reload meanwhile */
	int split;			/* slab_account loaded with split=task */
	unsigned long backwards_checks;
	unsigned long ctx_rows;		/* sa_stress context rows checked */
	unsigned long reads, read_absent, rows;
	unsigned long writes[3], write_absent;
	unsigned long cycles, tiny_loads;
	double cycle_until;		/* when the cycles' time budget ends */
	double floor_until;		/* ... and when the floor gives way */
	/* The cycler's rmmod or insmod in progress (op 0: none) and since. */
	volatile int op;
	volatile unsigned long op_seq;
	volatile double op_since;
	double op_secs[2], op_max[2];	/* rmmod, insmod: sum and longest */
	char fail[1024];
};

static const char * const op_names[] = { "rmmod", "insmod" };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int sas_cmd(const char *cmd)
{
	return sa_write(SAS_PROC, cmd, strlen(cmd));
}

/* A missing file (module unloaded) or a file removed under us: EIO. */
static int absent(const char *err)
{
	char a[128], b[128];

	snprintf(a, sizeof(a), "%s: %s", SA_PROC, strerror(ENOENT));
	snprintf(b, sizeof(b), "%s: %s", SA_PROC, strerror(EIO));
	return !strcmp(err, a) || !strcmp(err, b);
}

/*
 * A row's counters that only grow while nothing resets, by caller: an
 * open-addressing table of SEEN_SLOTS callers.  sa_stress's rows: ten
 * sites; with a split and capture a row per site, stack and task, at
 * most the stack table's 4096 stacks (max_stacks' default) for the one
 * site captured in hard irqs (a stack per interrupted place) and a few
 * dozen more.
 */
#define SEEN_SLOTS	8192
struct seen {
	char caller[256];
	unsigned long long v[4];	/* total, allocs, frees, req */
};

/* @caller's slot in @seen, taken if new; NULL when the table is full. */
static struct seen *seen_slot(struct seen *seen, const char *caller)
{
	unsigned int h = 2166136261u;

	for (const char *p = caller; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	for (int i = 0; i < SEEN_SLOTS; i++) {
		struct seen *e = &seen[(h + i) % SEEN_SLOTS];

		if (!e->caller[0]) {
			snprintf(e->caller, sizeof(e->caller), "%s", caller);
			return e;
		}
		if (!strcmp(e->caller, caller))
			return e;
	}
	return NULL;
}

/*
 * Has a counter of @r gone backwards since @seen's last reading of its
 * caller (sa_stress's rows only: their requests never shrink)?  Then
 * @fail says which.  A row met for the first time is noted.
 */
static int went_back(struct seen *seen, const struct sa_row *r,
		     char *fail, size_t len)
{
	static const char * const names[] = { "total", "allocs", "frees", "req" };
	unsigned long long v[4] = { r->total, r->allocs, r->frees, r->req };
	struct seen *e;

	if (strncmp(r->caller, "sa_stress_", 10))
		return 0;
	e = seen_slot(seen, r->caller);
	if (!e) {
		snprintf(fail, len, "more than %d rows of the stress sites: %s not checked",
			 SEEN_SLOTS, r->caller);
		return 1;
	}
	for (int k = 0; k < 4; k++) {
		if (v[k] < e->v[k]) {
			snprintf(fail, len, "%s of %s went back from %llu to %llu",
				 names[k], r->caller, e->v[k], v[k]);
			return 1;
		}
		e->v[k] = v[k];
	}
	return 0;
}

/*
 * With the split on: the header's context keys in snapshot @s.  The
 * split is the one loaded; none of the counts of context rows and
 * stacks ever goes backwards (@prev: their last values); stacks dropped
 * only with the stack table full; no more context rows than call sites,
 * no more stacks than the stack table holds.  0, or 1 with @fail set.
 */
static int ctx_header(const struct sa_snap *s, unsigned long long *prev,
		      char *fail, size_t len)
{
	static const char * const grow[] = {
		"context rows", "context rows dropped", "stacks",
		"stacks dropped", "stacks unseen",
	};
	const char *split = sa_snap_text(s, "split");

	if (!split || strcmp(split, "task")) {
		snprintf(fail, len, "header: split %s, not task",
			 split ? split : "(none)");
		return 1;
	}
	for (int k = 0; k < 5; k++) {
		unsigned long long v = sa_snap_key(s, grow[k]);

		if (v < prev[k]) {
			snprintf(fail, len, "header: %s went back from %llu to %llu",
				 grow[k], prev[k], v);
			return 1;
		}
		prev[k] = v;
	}
	if (sa_snap_key(s, "context rows") > sa_snap_key(s, "call sites") ||
	    sa_snap_key(s, "stacks") > sa_snap_key(s, "stack capacity") ||
	    (sa_snap_key(s, "stacks dropped") &&
	     sa_snap_key(s, "stacks") != sa_snap_key(s, "stack capacity"))) {
		snprintf(fail, len, "header: context rows %llu of %llu call sites, stacks %llu of %llu, stacks dropped %llu",
			 sa_snap_key(s, "context rows"),
			 sa_snap_key(s, "call sites"), sa_snap_key(s, "stacks"),
			 sa_snap_key(s, "stack capacity"),
			 sa_snap_key(s, "stacks dropped"));
		return 1;
	}
	return 0;
}

/* Reads until told to stop; every snapshot must parse and be sane. */
static int reader(struct chaos *c)
{
	/*
	 * Of the header's sums only frees never go back: an allocation may
	 * be taken back from a site and counted at another (krealloc's
	 * caller, a large kmalloc reported twice), which a sum read between
	 * the two sees twice.
	 */
	static const char * const grow[] = { "number of frees" };
	unsigned long long head[1] = { 0 }, ctx_prev[5] = { 0 };
	struct seen *seen = calloc(SEEN_SLOTS, sizeof(*seen));

	if (!seen) {
		snprintf(c->fail, sizeof(c->fail), "reader: out of memory");
		return 1;
	}

	/*
	 * Until the chaos ends, and past it until one read found the module
	 * loaded (a debug kernel's first unload may outlast the chaos).
	 */
	while (!c->stop || (!c->reads && now() < c->floor_until)) {
		char err[256];
		struct sa_snap s;

		if (sa_snap_read(&s, err, sizeof(err))) {
			if (absent(err)) {
				/*
				 * A breath, not a spin: a task that never sleeps
				 * holds RCU Tasks grace periods back, which the
				 * kprobe optimizer waits for under kprobe_mutex
				 * (a debug kernel's loads took minutes).
				 */
				c->read_absent++;
				msleep(1);
				continue;
			}
			snprintf(c->fail, sizeof(c->fail), "read: %s", err);
			return 1;
		}
		c->reads++;
		c->rows += s.nrows;
		if (c->split &&
		    ctx_header(&s, ctx_prev, c->fail, sizeof(c->fail))) {
			sa_snap_free(&s);
			return 1;
		}
		for (size_t i = 0; i < s.nrows; i++) {
			const struct sa_row *r = &s.rows[i];

			if (c->monotone &&
			    went_back(seen, r, c->fail, sizeof(c->fail))) {
				sa_snap_free(&s);
				return 1;
			}
			c->ctx_rows += sa_row_context(r) &&
				       !strncmp(r->caller, "sa_stress_", 10);

			/*
			 * The format's own rules, under allocations, reads and
			 * resets at once: a counter gone below zero prints as
			 * a huge u64; slack = total - req (sa_snap_read()).
			 */
			if (r->objs >> 62 || r->live >> 62 ||
			    r->live_req >> 62 || r->live_req > r->live ||
			    r->allocs >> 62 || r->frees >> 62 ||
			    r->total >> 62 || r->req >> 62 ||
			    r->slack >> 62 || r->req > r->total ||
			    r->peak < r->live) {
				snprintf(c->fail, sizeof(c->fail),
					 "insane row: %llu/%llu objs %llu live %llu/%llu total %llu req %llu peak %llu %s",
					 r->allocs, r->frees, r->objs, r->live,
					 r->live_req, r->total, r->req, r->peak,
					 r->caller);
				sa_snap_free(&s);
				return 1;
			}
		}
		for (int k = 0; k < s.nkeys; k++) {
			if (s.keys[k].val >> 62) {
				snprintf(c->fail, sizeof(c->fail),
					 "insane header: %s: %llu",
					 s.keys[k].name, s.keys[k].val);
				sa_snap_free(&s);
				return 1;
			}
		}
		for (int k = 0; c->monotone && k < 1; k++) {
			unsigned long long v = sa_snap_key(&s, grow[k]);

			if (v < head[k]) {
				snprintf(c->fail, sizeof(c->fail),
					 "header: %s went back from %llu to %llu",
					 grow[k], head[k], v);
				sa_snap_free(&s);
				return 1;
			}
			head[k] = v;
		}
		c->backwards_checks += c->monotone;
		if (sa_snap_key(&s, "total bytes requested") >
		    sa_snap_key(&s, "total bytes allocated") ||
		    sa_snap_key(&s, "current bytes requested") >
		    sa_snap_key(&s, "current bytes allocated")) {
			snprintf(c->fail, sizeof(c->fail),
				 "insane header: requested > allocated");
			sa_snap_free(&s);
			return 1;
		}
		sa_snap_free(&s);
	}
	free(seen);
	return 0;
}

/* reset, stop and start at random, a few milliseconds apart. */
static int controller(struct chaos *c)
{
	static const char * const cmds[] = { "reset", "stop", "start" };
	unsigned int seed = 12345;

	while (!c->stop) {
		int k = rand_r(&seed) % 3, err = sa_cmd(cmds[k]);

		if (err == ENOENT || err == EIO) {
			c->write_absent++;
		} else if (err) {
			snprintf(c->fail, sizeof(c->fail), "write %s: %s",
				 cmds[k], strerror(err));
			return 1;
		} else {
			c->writes[k]++;
		}
		msleep(2 + rand_r(&seed) % 20);
	}
	return 0;
}

/* Time the cycler's @op (1 rmmod, 2 insmod) that began at @t0. */
static void op_done(struct chaos *c, int op, double t0, double t1)
{
	c->op = 0;
	c->op_secs[op - 1] += t1 - t0;
	if (t1 - t0 > c->op_max[op - 1])
		c->op_max[op - 1] = t1 - t0;
}

/* An rmmod or insmod in progress for over 20 s: its kernel stack. */
static void op_watch(struct chaos *c, pid_t pid, unsigned long *seen)
{
	double since = c->op_since;
	unsigned long seq = c->op_seq;
	int op = c->op;
	char path[64], line[256];
	FILE *f;

	if (!op || seq == *seen || now() - since < 20)
		return;
	*seen = seq;
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	f = fopen(path, "r");
	ksft_print_msg("load cycle %lu: %s for %.0f s so far; its stack:\n",
		       c->cycles, op_names[op - 1], now() - since);
	while (f && fgets(line, sizeof(line), f))
		ksft_print_msg("  %s", line);
	if (f)
		fclose(f);
}

static int unload_sa(void)
{
	int err, tries = 0;

	/* O_NONBLOCK: EAGAIN/EBUSY while a reference is held for a moment. */
	while ((err = sa_module_unload("slab_account")) == EAGAIN ||
	       err == EBUSY || err == EWOULDBLOCK) {
		if (++tries == 1000)
			break;
		msleep(1);
	}
	return err;
}

/* Unload and load slab_account, one load in ten with tiny tables. */
static int cycler(struct chaos *c)
{
	const char *extra = getenv("SA_LOAD_PARAMS");
	unsigned int seed = 777;
	char params[256];
	double t0;

	while (!c->stop ||
	       (c->cycles < c->min_cycles && now() < c->floor_until) ||
	       c->cycles < c->floor_cycles ||
	       (c->cycles < c->want_cycles && now() < c->cycle_until)) {
		int tiny = c->cycles % 10 == 5, err;

		snprintf(params, sizeof(params), "%s %s",
			 tiny ? "max_objects=64 max_sites=16" : "",
			 extra ? extra : "");
		c->op_since = t0 = now();
		c->op_seq++;
		c->op = 1;
		err = unload_sa();
		op_done(c, 1, t0, now());
		if (err) {
			snprintf(c->fail, sizeof(c->fail), "rmmod #%lu: %s",
				 c->cycles, strerror(err));
			return 1;
		}
		msleep(rand_r(&seed) % 20);
		c->op_since = t0 = now();
		c->op_seq++;
		c->op = 2;
		err = sa_module_load("slab_account", params);
		op_done(c, 2, t0, now());
		if (err) {
			snprintf(c->fail, sizeof(c->fail), "insmod #%lu: %s",
				 c->cycles, strerror(err));
			return 1;
		}
		c->cycles++;
		c->tiny_loads += tiny;
		msleep(100 + rand_r(&seed) % 300);
	}
	return 0;
}

/* A child that dies with the test (the harness's timeout kills the test). */
static pid_t spawn(struct chaos *c, int (*fn)(struct chaos *))
{
	pid_t ppid = getpid(), pid = fork();

	if (!pid) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != ppid)
			_exit(1);
		_exit(fn(c));
	}
	return pid;
}

/* Sum of sa_stress's allocs and frees so far. */
static void sas_totals(unsigned long long *allocs, unsigned long long *frees)
{
	struct sa_truth t[16];
	int cpus = 0, n = sa_truth_read_file(SAS_PROC, t, 16, &cpus);

	*allocs = *frees = 0;
	for (int i = 0; i < n; i++) {
		*allocs += t[i].allocs;
		*frees += t[i].frees;
	}
}

static int reload_sa(void)
{
	int err = unload_sa();

	return err ? err : sa_module_load("slab_account", NULL);
}

/*
 * slab_account loaded again as every other test expects it (sa_restore())
 * when it has a split or a capture rule now.
 */
static void sa_plain(void)
{
	const char *split;
	struct sa_snap s;
	char err[256];
	int plain;

	if (sa_snap_read(&s, err, sizeof(err)))
		return;
	split = sa_snap_text(&s, "split");
	plain = (!split || !strcmp(split, "none")) &&
		(!sa_snap_has_key(&s, "capture rules") ||
		 !sa_snap_key(&s, "capture rules"));
	sa_snap_free(&s);
	if (!plain && !unload_sa())
		sa_restore();
}

FIXTURE(stress) {
	struct chaos *c;
};

FIXTURE_SETUP(stress)
{
	if (sa_module_loaded("sa_stress")) {
		sas_cmd("stop");
		sas_cmd("free");
		ASSERT_EQ(0, sa_module_unload("sa_stress"));
	}
	ASSERT_EQ(0, sa_module_load("sa_stress", NULL));
	self->c = mmap(NULL, sizeof(*self->c), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->c);
	memset(self->c, 0, sizeof(*self->c));
}

FIXTURE_TEARDOWN(stress)
{
	sas_cmd("stop");
	sas_cmd("free");
	sa_module_unload("sa_stress");
	sa_plain();
	if (!sa_module_loaded("slab_account"))
		sa_module_load("slab_account", NULL);
	else
		sa_cmd("start");
	munmap(self->c, sizeof(*self->c));
}

/*
 * Every sa_stress site against the books: its own row plus its context
 * rows (none without a split or capture: then its own row alone), their
 * sum.  @balanced: no reset since the load, so allocs - frees = objs must
 * hold too, in the sum and in each of the rows.  @split: slab_account
 * split by task (context rows expected).  Returns the allocs seen.
 * Where the slab keeps metadata by each object (KASAN: the tracepoints'
 * bytes allocated are the stride, more than ksize()), bytes allocated can
 * only be checked to be at least the books' (the counts and requested
 * bytes stay exact; sa_oracle_test checks the bytes against ftrace).
 */
/*
 * Wait until sa_stress_rcu's frees are in: a kfree_rcu() of 6.x frees
 * after a grace period and a batch's delay (7.x counts it when the sheaf
 * takes it).  The books count it at the call, so the site's live objects
 * (its own row and its context rows, with a split or capture) agree once
 * every one has landed (objs survive resets, frees do not).
 * A bounded number of looks, half a second apart; then the comparison
 * says what is missing.
 */
static void settle_rcu(void)
{
	for (int i = 0; i < 120; i++) {
		struct sa_truth t[16];
		struct sa_row r;
		int cpus = 0, n, sites, done = 0;
		char err[256];
		struct sa_snap s;

		n = sa_truth_read_file(SAS_PROC, t, 16, &cpus);
		if (n < 0 || sa_snap_read(&s, err, sizeof(err)))
			return;
		for (int k = 0; k < n; k++) {
			if (strcmp(t[k].func, "sa_stress_rcu"))
				continue;
			/* Its own row and its context rows, if any. */
			sa_snap_sum(&s, t[k].func, &r, &sites);
			done = r.objs == t[k].objs;
		}
		sa_snap_free(&s);
		if (done)
			return;
		/* kfree_rcu() batches drain early under memory pressure. */
		sa_write("/proc/sys/vm/drop_caches", "3", 1);
		msleep(500);
	}
}

static unsigned long long compare(struct __test_metadata *_metadata,
				  const char *phase, int balanced, int split)
{
	struct sa_truth t[16];
	unsigned long long sum = 0;
	int cpus = 0, n, rows, sites, rc, stride = sa_slab_metadata();
	char err[256];
	struct sa_snap s;

	settle_rcu();
	n = sa_truth_read_file(SAS_PROC, t, 16, &cpus);
	EXPECT_EQ(NR_SAS_SITES, n);
	if (n != NR_SAS_SITES)
		return 0;
	rc = sa_snap_read(&s, err, sizeof(err));
	EXPECT_EQ(0, rc) TH_LOG("%s", err);
	if (rc)
		return 0;
	EXPECT_EQ(0, sa_snap_key(&s, "dropped objects"));
	EXPECT_EQ(0, sa_snap_key(&s, "dropped sites"));
	for (int i = 0; i < n; i++) {
		struct sa_row sum_row;
		const struct sa_row *r = &sum_row;

		rows = sa_snap_sum(&s, t[i].func, &sum_row, &sites);
		if (!t[i].allocs && !t[i].frees && !t[i].objs) {
			EXPECT_EQ(0, rows) TH_LOG("%s: %s", phase, t[i].func);
			continue;
		}
		/* One call site; with no split or capture, one row. */
		EXPECT_EQ(1, sites) TH_LOG("%s: %s", phase, t[i].func);
		if (!split)
			EXPECT_EQ(1, rows) TH_LOG("%s: %s", phase, t[i].func);
		ksft_print_msg("report: stress %s: %-18s rows %d allocs %llu/%llu frees %llu/%llu objs %llu/%llu total %llu/%llu req %llu/%llu live %llu/%llu live_req %llu/%llu (module/books)\n",
			       phase, t[i].func, rows, r->allocs, t[i].allocs,
			       r->frees, t[i].frees, r->objs, t[i].objs,
			       r->total, t[i].total, r->req, t[i].req,
			       r->live, t[i].live, r->live_req, t[i].live_req);
		EXPECT_EQ(t[i].allocs, r->allocs) TH_LOG("%s: %s", phase, t[i].func);
		EXPECT_EQ(t[i].frees, r->frees) TH_LOG("%s: %s", phase, t[i].func);
		EXPECT_EQ(t[i].objs, r->objs) TH_LOG("%s: %s", phase, t[i].func);
		if (stride) {
			/* Mixed sizes: the books cannot be converted. */
			EXPECT_GE(r->total, t[i].total) TH_LOG("%s: %s", phase, t[i].func);
			EXPECT_GE(r->live, t[i].live) TH_LOG("%s: %s", phase, t[i].func);
		} else {
			EXPECT_EQ(t[i].total, r->total) TH_LOG("%s: %s", phase, t[i].func);
			EXPECT_EQ(t[i].live, r->live) TH_LOG("%s: %s", phase, t[i].func);
		}
		EXPECT_EQ(t[i].req, r->req) TH_LOG("%s: %s", phase, t[i].func);
		EXPECT_EQ(t[i].live_req, r->live_req) TH_LOG("%s: %s", phase, t[i].func);
		if (balanced) {
			EXPECT_EQ(r->allocs - r->frees, r->objs)
				TH_LOG("%s: %s", phase, t[i].func);
		}
		sum += r->allocs;
	}
	/* Each row of the stress sites, context rows too, on its own. */
	for (size_t i = 0; i < s.nrows; i++) {
		const struct sa_row *r = &s.rows[i];

		if (strncmp(r->caller, "sa_stress_", 10) || sa_row_unloaded(r))
			continue;
		if (balanced)
			EXPECT_EQ(r->allocs - r->frees, r->objs)
				TH_LOG("%s: %s", phase, r->caller);
		EXPECT_LE(r->req, r->total) TH_LOG("%s: %s", phase, r->caller);
		EXPECT_LE(r->live_req, r->live) TH_LOG("%s: %s", phase, r->caller);
	}
	sa_snap_free(&s);
	return sum;
}

/* Run the storm for @secs with a reader reading; no control writes. */
static void storm(struct __test_metadata *_metadata, struct chaos *c,
		  int secs)
{
	pid_t rd;
	int st;

	c->stop = 0;
	c->monotone = 1;
	ASSERT_EQ(0, sas_cmd("start"));
	rd = spawn(c, reader);
	ASSERT_LT(0, rd);
	sleep(secs);
	ASSERT_EQ(0, sas_cmd("stop"));
	c->stop = 1;
	ASSERT_EQ(rd, waitpid(rd, &st, 0));
	c->monotone = 0;
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st)) TH_LOG("%s", c->fail);
}

/* Bytes allocated so far at sa_stress_big, by its books. */
static unsigned long long big_total(void)
{
	struct sa_truth t[16];
	int cpus = 0, n = sa_truth_read_file(SAS_PROC, t, 16, &cpus);

	for (int i = 0; i < n; i++)
		if (!strcmp(t[i].func, "sa_stress_big"))
			return t[i].total;
	return 0;
}

/*
 * Resets taken while the storm runs, each followed by more storm, then
 * the storm stopped: every site of one size must read that size times its
 * allocations since the reset, exactly.  A reset whose bases counted an
 * allocation in one counter and not in another (read while it was being
 * counted) would leave a quiet site off by it until the next reset.
 */
static void resets_under_storm(struct __test_metadata *_metadata,
			       struct chaos *c, int rounds)
{
	unsigned long long size[3] = { 0 }, checked = 0;
	struct sa_truth t[16];
	int cpus = 0, n;

	/* Each site's bytes handed out per object, as the events report. */
	n = sa_truth_read_file(SAS_PROC, t, 16, &cpus);
	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < n; i++) {
			if (strcmp(t[i].func, one_size[k].func) || !t[i].allocs)
				continue;
			ASSERT_EQ(0, sa_truth_to_stride(&t[i], one_size[k].cache))
				TH_LOG("%s: more than one size", t[i].func);
			size[k] = t[i].total / t[i].allocs;
		}
		ASSERT_NE(0, size[k]) TH_LOG("%s: no allocation", one_size[k].func);
	}
	for (int round = 0; round < rounds; round++) {
		char err[256];
		struct sa_snap s;
		int count;

		ASSERT_EQ(0, sas_cmd("start"));
		msleep(150);
		ASSERT_EQ(0, sa_cmd("reset"));
		msleep(150);
		ASSERT_EQ(0, sas_cmd("stop"));
		ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
		for (int k = 0; k < 3; k++) {
			const struct sa_row *r = sa_snap_row(&s, one_size[k].func,
							     &count);

			if (!r)
				continue;
			EXPECT_EQ(r->allocs * size[k], r->total)
				TH_LOG("reset %d: %s: %llu allocs, %llu bytes of %llu each",
				       round, r->caller, r->allocs, r->total, size[k]);
			EXPECT_EQ(r->allocs * one_size[k].req, r->req)
				TH_LOG("reset %d: %s: %llu allocs, %llu bytes requested of %llu each",
				       round, r->caller, r->allocs, r->req,
				       one_size[k].req);
			checked += r->allocs;
		}
		sa_snap_free(&s);
	}
	EXPECT_LT(0, checked) TH_LOG("no allocation at a site of one size");
	ksft_print_msg("report: stress resets under storm: %d resets, %llu allocations since them at the sites of one size, each site's bytes exact\n",
		       rounds, checked);
}

TEST_F_TIMEOUT(stress, chaos_then_exact, 1200)
{
	const char *env = getenv("SA_STRESS_SECS");
	int secs = env ? atoi(env) : 60;
	struct chaos *c = self->c;
	unsigned long long allocs, frees, n;
	pid_t pids[3];
	unsigned long watched = 0;
	double t0, t;
	pid_t w;
	int st;

	/* Phase 1: chaos. */
	ASSERT_EQ(0, sas_cmd("start"));
	t0 = now();
	c->cycle_until = t0 + secs + SA_CYCLE_EXTRA_SECS;
	c->floor_until = c->cycle_until + SA_CYCLE_FLOOR_SECS;
	env = getenv("SA_STRESS_CYCLES");
	c->want_cycles = env && atoi(env) > 0 ? atoi(env) : SA_CYCLES;
	c->min_cycles = c->want_cycles < SA_MIN_CYCLES ? c->want_cycles :
			SA_MIN_CYCLES;
	c->floor_cycles = c->want_cycles < SA_FLOOR_CYCLES ? c->want_cycles :
			  SA_FLOOR_CYCLES;
	pids[0] = spawn(c, reader);
	pids[1] = spawn(c, controller);
	pids[2] = spawn(c, cycler);
	for (int i = 0; i < 3; i++)
		ASSERT_LT(0, pids[i]);
	while ((t = now() - t0) < secs) {
		msleep(10000);
		sas_totals(&allocs, &frees);
		ksft_print_msg("chaos %3.0f s: storm allocs %llu frees %llu; reads %lu (absent %lu); writes reset %lu stop %lu start %lu (absent %lu); load cycles %lu\n",
			       now() - t0, allocs, frees, c->reads,
			       c->read_absent, c->writes[0], c->writes[1],
			       c->writes[2], c->write_absent, c->cycles);
		op_watch(c, pids[2], &watched);
		if (c->fail[0])
			break;
	}
	c->stop = 1;
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &st, 0));
		ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st))
			TH_LOG("child %d: %s", i, c->fail);
	}
	/* The cycler may have cycles to go: its progress every 10 s. */
	for (int i = 1; !(w = waitpid(pids[2], &st, WNOHANG)); i++) {
		msleep(1000);
		if (i % 10)
			continue;
		ksft_print_msg("chaos over at %.0f s: load cycles %lu\n",
			       now() - t0, c->cycles);
		op_watch(c, pids[2], &watched);
	}
	ASSERT_EQ(pids[2], w);
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st))
		TH_LOG("child 2: %s", c->fail);
	t = now() - t0;
	ASSERT_EQ(0, sas_cmd("stop"));
	sas_totals(&allocs, &frees);
	ksft_print_msg("report: stress chaos: %.0f s guest time, %ld online CPUs, storm allocs %llu frees %llu, %lu snapshots read (%lu rows, %lu while unloaded), control writes reset %lu stop %lu start %lu (%lu while unloaded), %lu rmmod/insmod cycles (%lu with max_objects=64 max_sites=16)\n",
		       t, sysconf(_SC_NPROCESSORS_ONLN), allocs, frees,
		       c->reads, c->rows, c->read_absent, c->writes[0],
		       c->writes[1], c->writes[2], c->write_absent, c->cycles,
		       c->tiny_loads);
	if (c->cycles)
		ksft_print_msg("report: stress load cycles: %lu of %lu in %.0f s%s; rmmod %.2f s on average (longest %.2f s), insmod %.2f s (longest %.2f s)\n",
			       c->cycles, c->want_cycles, t,
			       c->cycles < c->want_cycles ? " (the time budget ran out)" : "",
			       c->op_secs[0] / c->cycles, c->op_max[0],
			       c->op_secs[1] / c->cycles, c->op_max[1]);
	EXPECT_LE(secs, (int)t);
	if (c->cycles < c->min_cycles) {
		/* Slow cycles: the floor gave way to the time, not before. */
		ksft_print_msg("report: stress load cycles: %lu, short of %lu after %.0f s: a cycle took %.0f s on average\n",
			       c->cycles, c->min_cycles, t,
			       t / (c->cycles ? c->cycles : 1));
		EXPECT_LE(secs + SA_CYCLE_EXTRA_SECS + SA_CYCLE_FLOOR_SECS,
			  (int)t + 1);
		EXPECT_LE(c->floor_cycles, c->cycles);
	}
	if (c->cycles < c->want_cycles)
		EXPECT_LE(secs + SA_CYCLE_EXTRA_SECS, (int)t + 1);
	EXPECT_LT(0, c->reads);

	/* Phase 2: exact, on a fresh instance, the pools empty. */
	ASSERT_EQ(0, sas_cmd("free"));
	ASSERT_EQ(0, reload_sa());
	ASSERT_EQ(0, sas_cmd("zero"));
	storm(_metadata, c, 10);
	/*
	 * Past 2^32 bytes at the big site: more storm while it is below and
	 * the last storm added some (bounded by progress, not by time).
	 */
	for (unsigned long long was = 0, big = big_total();
	     big <= 1ULL << 32 && big > was; was = big, big = big_total())
		storm(_metadata, c, 5);
	n = compare(_metadata, "storm", 1, 0);
	ksft_print_msg("report: stress exact: %llu allocations at the stress sites, %lu snapshots read meanwhile, %lu of them checked for counters going backwards; sa_stress_big %llu bytes\n",
		       n, c->reads, c->backwards_checks, big_total());
	EXPECT_LT(10000, n);
	EXPECT_LT(1ULL << 32, big_total());

	resets_under_storm(_metadata, c, 12);

	/*
	 * A reset while the pools hold live objects, then more storm.  The
	 * kfree_rcu()s called before it must have freed first: the books
	 * count them at the call, the module when the slab frees.
	 */
	settle_rcu();
	ASSERT_EQ(0, sa_cmd("reset"));
	ASSERT_EQ(0, sas_cmd("zero"));
	compare(_metadata, "after reset", 0, 0);
	storm(_metadata, c, 3);
	compare(_metadata, "reset + 3 s", 0, 0);
	ASSERT_EQ(0, sas_cmd("free"));
	compare(_metadata, "all freed", 0, 0);
}

/* ---- the storm with a split and capture on ------------------------------ */

/* Seconds of storm with the split on (guest time). */
#define SA_CTX_SECS	10
/* How long a capture rule stays on, then off, while the storm runs (ms). */
#define SA_CTX_TOGGLE_MS	300

/* The CPUs sa_stress runs a kthread on (its "# running R cpus N"); -1. */
static int sas_cpus(void)
{
	char *text, *at;
	int n = -1;

	if (sa_read_file(SAS_PROC, &text, NULL))
		return -1;
	at = strstr(text, " cpus ");
	if (at)
		n = atoi(at + 6);
	free(text);
	return n;
}

/*
 * Can a capture rule name a function here?  Not without kprobes (the
 * header's "unhooked ...: no-kprobes", a board kernel's): functions are
 * found by name through them (docs/format.md, "Context rows").
 */
static int have_kprobes(void)
{
	struct sa_snap s;
	char err[256];
	int yes = 1;

	if (sa_snap_read(&s, err, sizeof(err)))
		return 1;
	for (int i = 0; i < s.nkeys; i++)
		if (!strncmp(s.keys[i].name, "unhooked ", 9) &&
		    !strcmp(s.keys[i].text, "no-kprobes"))
			yes = 0;
	sa_snap_free(&s);
	return yes;
}

/*
 * The storm for @secs with the reader reading (its context checks on), a
 * capture of @rule turned on and off meanwhile, SA_CTX_TOGGLE_MS each,
 * off at the end; returns how many times it was turned on.
 */
static unsigned long storm_capturing(struct __test_metadata *_metadata,
				     struct chaos *c, int secs,
				     const char *rule)
{
	char on[128], off[128];
	unsigned long pairs = 0;
	double t0;
	pid_t rd;
	int st;

	snprintf(on, sizeof(on), "capture %s", rule);
	snprintf(off, sizeof(off), "uncapture %s", rule);
	c->stop = 0;
	c->monotone = 1;
	c->split = 1;
	EXPECT_EQ(0, sas_cmd("start"));
	rd = spawn(c, reader);
	EXPECT_LT(0, rd);
	for (t0 = now(); now() - t0 < secs; pairs++) {
		EXPECT_EQ(0, sa_cmd(on)) TH_LOG("%s", on);
		msleep(SA_CTX_TOGGLE_MS);
		EXPECT_EQ(0, sa_cmd(off)) TH_LOG("%s", off);
		msleep(SA_CTX_TOGGLE_MS);
	}
	EXPECT_EQ(0, sas_cmd("stop"));
	c->stop = 1;
	if (rd > 0) {
		EXPECT_EQ(rd, waitpid(rd, &st, 0));
		EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st)) TH_LOG("%s", c->fail);
	}
	c->monotone = 0;
	c->split = 0;
	return pairs;
}

/* sa_stress's sites whose allocations run in its kthreads. */
static int kthread_site(const char *func)
{
	return strcmp(func, "sa_stress_softirq") &&
	       strcmp(func, "sa_stress_hardirq") &&
	       strcmp(func, "sa_stress_irqwork");
}

/*
 * Is @ctx (a split part: " @task:COMM" or " @irq") one that @func's
 * allocations can have?  A kthread's are its task's, "sa_stress/CPU";
 * the timers' and hrtimers' are outside task context; an irq_work's too,
 * or (PREEMPT_RT) its CPU's irq_work kthread's.
 */
static int ctx_fits(const char *func, const char *ctx)
{
	if (kthread_site(func))
		return !strncmp(ctx, " @task:sa_stress/", 17);
	if (!strcmp(ctx, " @irq"))
		return 1;
	return !strcmp(func, "sa_stress_irqwork") &&
	       !strncmp(ctx, " @task:irq_work/", 16);
}

/*
 * The context rows of the split and capture, once the storm is stopped:
 * each row of a stress site has a context its allocations can have; with
 * no context row dropped, the sites' own rows are empty (every
 * allocation has a context with a split chosen at load), but for a
 * captured site's allocations whose stack was dropped or unseen; each
 * kthread ran (one task row per CPU at sa_stress_small); the sites
 * captured from the load have stack rows; the header counts them.
 * @loaded: sites captured from the load; @toggled: the site whose
 * capture was turned on and off (NULL: a module rule, every site's).
 */
static void ctx_check(struct __test_metadata *_metadata, int cpus,
		      const char * const *loaded, int nloaded,
		      const char *toggled)
{
	unsigned long long own[16] = { 0 }, drops, ctx_rows = 0;
	unsigned int stacks[16] = { 0 };
	char tasks[64][32];
	int ntasks = 0, cpu_seen[64] = { 0 };
	struct sa_truth t[16];
	struct sa_snap s;
	char err[256];
	int n;

	n = sa_truth_read_file(SAS_PROC, t, 16, &(int){ 0 });
	ASSERT_EQ(NR_SAS_SITES, n);
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("task", sa_snap_text(&s, "split") ?: "");
	EXPECT_EQ(nloaded, sa_snap_key(&s, "capture rules"));
	/* Each rule from the load names one site; the toggled one is off. */
	EXPECT_EQ(nloaded, sa_snap_key(&s, "captured sites"));
	EXPECT_EQ(0, sa_snap_key(&s, "dropped sites"));
	if (sa_snap_key(&s, "context rows dropped")) {
		unsigned long long cap = sa_snap_key(&s, "call site capacity");

		/*
		 * Only with the table's room for context rows all taken (but
		 * for the entry each CPU may hold in reserve, not yet shown).
		 */
		EXPECT_LE(cap - cap / 8, sa_snap_key(&s, "call sites") +
			  sysconf(_SC_NPROCESSORS_CONF))
			TH_LOG("context rows dropped with room in the table");
	}
	if (sa_snap_key(&s, "stacks dropped"))
		EXPECT_EQ(sa_snap_key(&s, "stack capacity"),
			  sa_snap_key(&s, "stacks"));
	drops = sa_snap_key(&s, "stacks dropped") +
		sa_snap_key(&s, "stacks unseen");
	for (size_t i = 0; i < s.nrows; i++) {
		const struct sa_row *r = &s.rows[i];
		const char *ctx = sa_row_context(r), *split = ctx;
		int k;

		if (strncmp(r->caller, "sa_stress_", 10) || sa_row_unloaded(r))
			continue;
		for (k = 0; k < n; k++)
			if (!strncmp(r->caller, t[k].func, strlen(t[k].func)) &&
			    !strncmp(r->caller + strlen(t[k].func), "+0x", 3))
				break;
		ASSERT_GT(n, k) TH_LOG("%s: no site of the books", r->caller);
		if (!ctx) {
			own[k] += r->allocs;
			continue;
		}
		ctx_rows++;
		if (!strncmp(ctx, " @stack:", 8)) {
			stacks[k]++;
			split = strchr(ctx + 8, ' ');
		}
		/* With the split on, every context row has its task or @irq. */
		ASSERT_NE(NULL, split) TH_LOG("%s: no split part", r->caller);
		EXPECT_TRUE(ctx_fits(t[k].func, split)) TH_LOG("%s", r->caller);
		if (strcmp(t[k].func, "sa_stress_small") ||
		    strncmp(split, " @task:sa_stress/", 17))
			continue;
		/* sa_stress_small's tasks, each once. */
		for (int j = 0; j <= ntasks; j++) {
			if (j == ntasks && ntasks < 64) {
				snprintf(tasks[ntasks++], sizeof(tasks[0]), "%s",
					 split + 7);
				break;
			}
			if (j < ntasks && !strcmp(tasks[j], split + 7))
				break;
		}
	}
	EXPECT_LE(ctx_rows, sa_snap_key(&s, "context rows"));
	for (int k = 0; k < n; k++) {
		int captured = !toggled || !strcmp(t[k].func, toggled);

		for (int j = 0; j < nloaded; j++)
			captured |= !strcmp(t[k].func, loaded[j]);
		/*
		 * In the own row: allocations whose context row did not fit,
		 * and at a captured site those whose stack did not.
		 */
		if (!sa_snap_key(&s, "context rows dropped") &&
		    (!captured || !drops))
			EXPECT_EQ(0, own[k]) TH_LOG("%s's own row", t[k].func);
		for (int j = 0; j < nloaded; j++)
			if (!strcmp(t[k].func, loaded[j]))
				EXPECT_LT(0, stacks[k])
					TH_LOG("%s: no stack row", t[k].func);
		if (toggled && !strcmp(t[k].func, toggled) && !drops)
			EXPECT_LT(0, stacks[k]) TH_LOG("%s: no stack row", t[k].func);
		ksft_print_msg("report: stress contexts: %-18s own row allocs %llu, stack rows %u\n",
			       t[k].func, own[k], stacks[k]);
	}
	/* A task row per kthread: "sa_stress/CPU", every CPU's. */
	if (!sa_snap_key(&s, "context rows dropped")) {
		EXPECT_EQ(cpus, ntasks);
		for (int j = 0; j < ntasks; j++) {
			int cpu = atoi(tasks[j] + 10);

			EXPECT_TRUE(cpu >= 0 && cpu < 64 && !cpu_seen[cpu])
				TH_LOG("task %s", tasks[j]);
			if (cpu >= 0 && cpu < 64)
				cpu_seen[cpu] = 1;
		}
	}
	ksft_print_msg("report: stress contexts: %llu context rows of the stress sites (%llu in the table), %d kthread tasks at sa_stress_small; stacks %llu (of %llu), stacks dropped %llu, stacks unseen %llu, context rows dropped %llu\n",
		       ctx_rows, sa_snap_key(&s, "context rows"), ntasks,
		       sa_snap_key(&s, "stacks"),
		       sa_snap_key(&s, "stack capacity"),
		       sa_snap_key(&s, "stacks dropped"),
		       sa_snap_key(&s, "stacks unseen"),
		       sa_snap_key(&s, "context rows dropped"));
	sa_snap_free(&s);
}

/*
 * The exact books with a split and capture on: slab_account loaded
 * afresh with split=task and capture= of two sites (sa_stress_cache by
 * its cache, sa_stress_fixed by its function; the cache's alone where no
 * function can be named), the storm run for SA_CTX_SECS with the reader
 * reading (every row's rules, context rows too, the counters never going
 * backwards, the header's context keys) while a capture of
 * sa_stress_hardirq (module:sa_stress without kprobes) is turned on and
 * off; stopped, every site's own row plus its context rows must equal
 * the books exactly, each row balance, and the rows' contexts be those
 * the sites allocate in; again once the test has freed every object (its
 * frees charged to the kthreads' rows).
 */
TEST_F_TIMEOUT(stress, split_and_capture_exact, 900)
{
	static const char * const loaded[] = {
		"sa_stress_cache", "sa_stress_fixed",
	};
	struct chaos *c = self->c;
	int kprobes = have_kprobes(), cpus = sas_cpus(), nloaded = 1 + kprobes;
	const char *rule = kprobes ? "sa_stress_hardirq" : "module:sa_stress";
	char params[128];
	unsigned long long n;
	unsigned long pairs;
	double t0 = now();

	ASSERT_LT(0, cpus);
	snprintf(params, sizeof(params), "split=task capture=cache:%s%s%s",
		 loaded[0], kprobes ? "," : "", kprobes ? loaded[1] : "");
	ASSERT_EQ(0, unload_sa());
	ASSERT_EQ(0, sa_module_load("slab_account", params)) TH_LOG("%s", params);
	pairs = storm_capturing(_metadata, c, SA_CTX_SECS, rule);
	n = compare(_metadata, "split", 1, 1);
	ctx_check(_metadata, cpus, loaded, nloaded, kprobes ? rule : NULL);
	ksft_print_msg("report: stress split: %s, capture %s on and off %lu times under the storm: %llu allocations at the stress sites, %lu snapshots read meanwhile (%lu context rows of the stress sites checked)\n",
		       params, rule, pairs, n, c->reads, c->ctx_rows);
	EXPECT_LT(10000, n);
	EXPECT_LT(0, c->ctx_rows);
	ASSERT_EQ(0, sas_cmd("free"));
	compare(_metadata, "split, all freed", 1, 1);
	sa_plain();
	ksft_print_msg("report: stress split: %.0f s guest time\n", now() - t0);
}

/*
 * An allocation taken back on another CPU than the one that counted it,
 * read in between.  A krealloc() that moves its object is counted at
 * krealloc()'s own site on CPU 0 and taken back from it on CPU 1, where
 * sa_takeback.ko migrates the task before krealloc() returns; each time
 * this test's reads of /proc/slab_account have summed CPU 0's counters of
 * a site and look for the next CPU, the module holds the reader until one
 * such krealloc() is back.  So the reads see, at the site of krealloc(),
 * CPU 0 before the count and CPU 1 after the take-back: one allocation
 * fewer than were counted, below zero where every allocation there was
 * taken back.  Every row must still obey the format's rules: nothing
 * wrapped, frees <= allocs and objs = allocs - frees on a freshly loaded
 * slab_account, req <= total, live_req <= live, peak >= live.
 *
 * It needs a fully preemptible kernel (the mover must be migrated inside
 * krealloc()): PREEMPT_RT, or PREEMPT_DYNAMIC set to full for the test
 * and back after; three online CPUs; kprobes on x86-64 or arm64.
 * Elsewhere it skips and says why.
 */
#define SAT_PROC	"/proc/sa_takeback"
#define SAT_PREEMPT	"/sys/kernel/debug/sched/preempt"
#define SAT_READS	3
#define SAT_ATTEMPTS	5

/*
 * The preemption mode now: "rt", or the one in parentheses in
 * SAT_PREEMPT (PREEMPT_DYNAMIC), or "" when neither is known.
 */
static void preempt_mode(char *mode, size_t n)
{
	struct utsname u;
	char *text = NULL, *lp, *rp;

	*mode = '\0';
	if (!uname(&u) && strstr(u.version, "PREEMPT_RT")) {
		snprintf(mode, n, "rt");
		return;
	}
	if (access("/sys/kernel/debug/sched", F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (sa_read_file(SAT_PREEMPT, &text, NULL))
		return;
	lp = strchr(text, '(');
	rp = lp ? strchr(lp, ')') : NULL;
	if (rp && (size_t)(rp - lp) < n) {
		memcpy(mode, lp + 1, rp - lp - 1);
		mode[rp - lp - 1] = '\0';
	}
	free(text);
}

/* One row against the format's rules on a freshly loaded module. */
static int insane(const struct sa_row *r, char *why, size_t n)
{
	if (r->allocs >> 62 || r->frees >> 62 || r->objs >> 62 ||
	    r->total >> 62 || r->req >> 62 || r->slack >> 62 ||
	    r->live >> 62 || r->live_req >> 62 || r->peak >> 62 ||
	    r->frees > r->allocs || r->objs != r->allocs - r->frees ||
	    r->req > r->total || r->live_req > r->live || r->peak < r->live) {
		snprintf(why, n,
			 "%s: allocs %llu frees %llu objs %llu total %llu req %llu live %llu/%llu peak %llu",
			 r->caller, r->allocs, r->frees, r->objs, r->total,
			 r->req, r->live, r->live_req, r->peak);
		return 1;
	}
	return 0;
}

/*
 * What the test changed, for the teardown to put back whatever failed:
 * the preemption mode, the reader's CPUs, sa_takeback loaded.
 */
FIXTURE(takeback) {
	char mode[32];
	int set_full;
	int pinned;
	cpu_set_t was;
};

FIXTURE_SETUP(takeback)
{
	self->mode[0] = '\0';
	self->set_full = 0;
	self->pinned = 0;
}

FIXTURE_TEARDOWN(takeback)
{
	if (sa_module_loaded("sa_takeback")) {
		sa_write(SAT_PROC, "disarm", 6);
		sa_module_unload("sa_takeback");
	}
	if (self->pinned)
		sched_setaffinity(0, sizeof(self->was), &self->was);
	if (self->set_full)
		sa_write(SAT_PREEMPT, self->mode, strlen(self->mode));
	sa_restore();
}

/*
 * One attempt: arm, SAT_READS reads each row of which must be sane (the
 * first impossible one into @bad), disarm; sa_takeback's counts into
 * @st (pauses, moved, stayed, hold and move timeouts; -1 unread).
 */
static void takeback_reads(char *bad, size_t n, int st[5],
			   unsigned long long *rows,
			   unsigned long long *longest)
{
	char err[256], *stats = NULL;
	struct sa_snap s;
	int e;

	for (int k = 0; k < 5; k++)
		st[k] = -1;
	e = sa_write(SAT_PROC, "arm", 3);
	if (e) {
		snprintf(bad, n, "arm: %s", strerror(e));
		return;
	}
	for (int i = 0; i < SAT_READS && !*bad; i++) {
		if (sa_snap_read(&s, err, sizeof(err))) {
			snprintf(bad, n, "read %d: %s", i, err);
			break;
		}
		for (size_t j = 0; j < s.nrows && !*bad; j++)
			insane(&s.rows[j], bad, n);
		*rows += s.nrows;
		sa_snap_free(&s);
	}
	sa_write(SAT_PROC, "disarm", 6);
	if (!sa_read_file(SAT_PROC, &stats, NULL))
		sscanf(stats, "pauses %d moved %d stayed %d timeouts %d %d longest %llu",
		       &st[0], &st[1], &st[2], &st[3], &st[4], longest);
	free(stats);
}

TEST_F_TIMEOUT(takeback, taken_back_on_another_cpu_mid_read, 300)
{
	char err[256], bad[512] = "";
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long rows = 0, longest = 0, recharged = 0, cycles = 0;
	int st[5], attempt, n = 0, e;
	const struct sa_row *r;
	struct sa_snap s;
	cpu_set_t one;

	if (cpus < 3)
		SKIP(return, "%ld online CPUs: the reader needs a third beside CPUs 0 and 1",
		     cpus);
	preempt_mode(self->mode, sizeof(self->mode));
	if (!self->mode[0])
		SKIP(return, "no PREEMPT_RT and no %s: the kernel cannot be made fully preemptible",
		     SAT_PREEMPT);
	if (strcmp(self->mode, "rt") && strcmp(self->mode, "full")) {
		ASSERT_EQ(0, sa_write(SAT_PREEMPT, "full", 4));
		self->set_full = 1;
	}
	/*
	 * sa_takeback first (its kretprobe on krealloc() must be entered
	 * after slab_account's: sa_takeback.c), then a fresh slab_account:
	 * no reset, so frees <= allocs in every row.
	 */
	if (sa_module_loaded("slab_account"))
		ASSERT_EQ(0, sa_module_unload("slab_account"));
	e = sa_module_load("sa_takeback", NULL);
	if (e == EOPNOTSUPP)
		SKIP(return, "sa_takeback needs kprobes on x86-64 or arm64");
	ASSERT_EQ(0, e);
	ASSERT_EQ(0, sa_restore());

	/* The reader on the last online CPU, away from CPUs 0 and 1. */
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(self->was), &self->was));
	CPU_ZERO(&one);
	CPU_SET(cpus - 1, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	self->pinned = 1;
	/*
	 * A hold or a move that gives up (8 s: a vCPU of a busy host that
	 * did not get its turn) ends the holds of its attempt, which then
	 * may not have held every sum: another attempt, up to SAT_ATTEMPTS.
	 * Every row of every read must be sane all the same.
	 */
	for (attempt = 1; attempt <= SAT_ATTEMPTS && !*bad; attempt++) {
		takeback_reads(bad, sizeof(bad), st, &rows, &longest);
		ksft_print_msg("report: taken back, attempt %d: %d holds of the reader in %d reads (%llu rows so far; the longest %llu us), %d krealloc()s returned on CPU 1, %d elsewhere, timeouts %d holding, %d moving (preemption %s%s)\n",
			       attempt, st[0], SAT_READS, rows, longest, st[1],
			       st[2], st[3], st[4],
			       self->set_full ? "set to full from " : "",
			       self->mode);
		if (st[1] >= 0 && st[2] >= 0)
			cycles += st[1] + st[2];
		if (!st[3] && !st[4])
			break;
	}
	/* Every krealloc() was recharged to its caller, whichever CPU. */
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err)));
	r = sa_snap_row(&s, "sa_takeback_move", &n);
	if (r)
		recharged = r->allocs;
	sa_snap_free(&s);
	ksft_print_msg("report: taken back: %llu krealloc()s recharged to their caller, of %llu made in holds\n",
		       recharged, cycles);
	if (*bad)
		TH_LOG("impossible row: %s", bad);
	ASSERT_EQ(0, bad[0]);
	/*
	 * An attempt held the reader without giving up, and nearly every
	 * time the take-back was on CPU 1: every sum of every site read CPU
	 * 0 before a count and CPU 1 after a take-back (a krealloc() back
	 * elsewhere is allowed one in ten).
	 */
	ASSERT_LT(0, st[0]);
	ASSERT_EQ(0, st[3]);
	ASSERT_EQ(0, st[4]);
	ASSERT_LE(st[0] - st[0] / 10, st[1]);
	/*
	 * slab_account took each back: none stayed at the first site (a
	 * hold given up may leave one krealloc() made after the counts).
	 */
	ASSERT_EQ(1, n);
	ASSERT_LE(cycles, recharged);
}

SA_SELFTEST_MAIN(0)
