// SPDX-License-Identifier: GPL-2.0
/*
 * The boot-time trace recipe (docs/kernels.md, "Boot-time coverage"):
 * a kernel booted with trace_event=kmem:... trace_buf_size=... has
 * recorded the kmem events in the top-level ftrace buffer since early
 * boot.  This test stops the events (tracing_on is usually 0 already:
 * scripts/init.sh stops it before anything of ours runs), checks that the
 * buffer lost nothing (no overrun: the earliest events are still there),
 * reads it as text into /tmp, makes its own account of it (sa_ktrace.c)
 * and checks `slabacct --from-trace FILE --csv` against that account:
 * every figure of every call site, the row rules of the format, and the
 * number of events equal to the buffer's entries.  The first event must
 * be no later than the kernel's "NR_IRQS:" log line (start_kernel()
 * enables the events just before it): the buffer holds the boot from
 * there.  It prints the first and last event's time and the kernel's
 * "NR_IRQS:" and "Run /init" times.  Then it
 * diffs the import with a snapshot of /proc/slab_account
 * (`slabacct --diff --all --csv TRACE SNAPSHOT`): each call site of either
 * view once, with the right status and deltas.  Where the guest has
 * trace-cmd, the buffer is also extracted with it and the import of
 * `trace-cmd report` must give the same summary.  At the end the events
 * are off, the buffer is cleared and shrunk (buffer_size_kb), and tracing
 * is on again, as on a kernel booted without the recipe.
 *
 * Skipped when the kernel was not booted with the kmem events enabled
 * (no recipe on the command line) or /usr/bin/slabacct is absent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sa_ktrace.h"
#include "sa_lib.h"

#define TRACE_FILE	"/tmp/sa_boot_trace.txt"
#define SNAP_FILE	"/tmp/sa_boot_snapshot.txt"
#define SLABACCT	"/usr/bin/slabacct"
#define TRACE_CMD	"/usr/bin/trace-cmd"
#define TRACE_DAT	"/tmp/sa_boot_trace.dat"
#define TRACE_REPORT	"/tmp/sa_boot_trace.report"
/* What the buffer is shrunk to at the end, per CPU. */
#define SMALL_KB	"4"

static char root[64];

static void tpath(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", root, rel);
}

static int twrite(const char *rel, const char *val)
{
	char p[256];

	tpath(p, sizeof(p), rel);
	return sa_write(p, val, strlen(val));
}

/* The first character of a tracefs file ('0', '1'), 0 if unreadable. */
static char tread1(const char *rel)
{
	char p[256], *text;
	char c;

	tpath(p, sizeof(p), rel);
	if (sa_read_file(p, &text, NULL))
		return 0;
	c = text[0];
	free(text);
	return c;
}

static int kmem_enabled(const char *ev)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "events/kmem/%s/enable", ev);
	return tread1(rel) == '1';
}

/* The kernel log's time of its first record holding @what (us), or -1. */
static long long kmsg_usecs(const char *what)
{
	char buf[8192];
	long long t = -1;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -1;
	/* One record per read(); the records since boot, then EAGAIN. */
	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		unsigned long long us;
		char *semi;

		if (n <= 0)
			continue;
		buf[n] = '\0';
		semi = strchr(buf, ';');
		if (semi && strstr(semi, what) &&
		    sscanf(buf, "%*u,%*u,%llu", &us) == 1) {
			t = us;
			break;
		}
	}
	close(fd);
	return t;
}

static void events_off(void)
{
	for (int k = 0; k < KT_NR_EVENTS; k++) {
		char rel[96];

		snprintf(rel, sizeof(rel), "events/kmem/%s/enable",
			 kt_events[k]);
		if (kmem_enabled(kt_events[k]))
			twrite(rel, "0");
	}
}

/* The row rules of the file's format (docs/format.md) on one import row. */
static int row_rules(const struct kt_csv_row *r)
{
	return r->slack == r->total - r->req && r->req <= r->total &&
	       r->live_req <= r->live && r->live <= r->peak &&
	       r->objs <= r->allocs && r->allocs - r->frees == r->objs &&
	       r->live <= r->total;
}

/* The diff's CSV: total,slack,req,live,objs,allocs,frees,status,type,caller */
struct drow {
	long long d[7];
	char status[16];
	char caller[256];
};

static long diff_run(const char *cmd, struct drow **out, char *err,
		     size_t errlen)
{
	static const char header[] =
		"total,slack,req,live,objs,allocs,frees,status,type,caller\n";
	size_t cap = 0, n = 0, lcap = 0;
	struct drow *d = NULL;
	char *line = NULL;
	long lineno = 0;
	FILE *p = popen(cmd, "r");

	if (!p) {
		snprintf(err, errlen, "popen: %s", strerror(errno));
		return -1;
	}
	while (getline(&line, &lcap, p) > 0) {
		char *f, *q;
		int i;

		if (!lineno++) {
			if (strcmp(line, header)) {
				snprintf(err, errlen, "diff CSV header: %s", line);
				goto fail;
			}
			continue;
		}
		if (n == cap) {
			struct drow *x;

			cap = cap ? 2 * cap : 1024;
			x = realloc(d, cap * sizeof(*d));
			if (!x)
				goto fail;
			d = x;
		}
		line[strcspn(line, "\n")] = '\0';
		f = line;
		for (i = 0; i < 7; i++) {
			d[n].d[i] = strtoll(f, &q, 10);
			if (q == f || *q != ',') {
				snprintf(err, errlen, "diff CSV line %ld: %s", lineno, line);
				goto fail;
			}
			f = q + 1;
		}
		q = strchr(f, ',');
		if (!q)
			goto bad;
		snprintf(d[n].status, sizeof(d[n].status), "%.*s", (int)(q - f), f);
		f = q + 1;
		/* The type, then the caller (quoted if it holds a comma). */
		if (*f == '"')
			goto bad;
		q = strchr(f, ',');
		if (!q)
			goto bad;
		f = q + 1;
		if (*f == '"') {
			size_t l = strlen(f);

			if (l < 2 || f[l - 1] != '"' || strstr(f + 1, "\"\""))
				goto bad;
			snprintf(d[n].caller, sizeof(d[n].caller), "%.*s",
				 (int)(l - 2), f + 1);
		} else {
			snprintf(d[n].caller, sizeof(d[n].caller), "%s", f);
		}
		n++;
		continue;
bad:
		snprintf(err, errlen, "diff CSV line %ld: %s", lineno, line);
		goto fail;
	}
	free(line);
	line = NULL;
	if (pclose(p)) {
		p = NULL;
		snprintf(err, errlen, "%s failed", cmd);
		goto fail;
	}
	*out = d;
	return n;
fail:
	free(line);
	if (p)
		pclose(p);
	free(d);
	return -1;
}

FIXTURE(boottrace) {
	int hashed;
};

FIXTURE_SETUP(boottrace)
{
	char hp[256];

	/* Real pointers in the text where the kernel can (5.12 on; also
	 * what no_hash_pointers on the command line gives).
	 */
	tpath(hp, sizeof(hp), "options/hash-ptr");
	self->hashed = !strstr(sa_cmdline(), "no_hash_pointers") &&
		       (access(hp, F_OK) || twrite("options/hash-ptr", "0"));
}

FIXTURE_TEARDOWN(boottrace)
{
	/* As a kernel booted without the recipe: no event, a small buffer,
	 * tracing on.
	 */
	events_off();
	twrite("trace", "");
	twrite("buffer_size_kb", SMALL_KB);
	twrite("tracing_on", "1");
	unlink(TRACE_FILE);
	unlink(SNAP_FILE);
}

TEST_F_TIMEOUT(boottrace, import_and_diff, SA_TEST_TIMEOUT)
{
	unsigned long long entries, overrun, lines = 0, bad_rules = 0;
	unsigned long long r_allocs = 0, r_frees = 0, r_total = 0, r_req = 0;
	unsigned long mismatches;
	struct kt_csv_row *rows = NULL;
	struct drow *drows = NULL;
	long nrows, ndiff, run_init, nr_irqs;
	char p[256], err[256], *line = NULL;
	struct sa_snap s;
	struct kt o;
	size_t cap = 0, seen_common = 0, seen_new = 0, seen_gone = 0;
	int bad_lines = 0, copy_err = 0;
	FILE *f, *copy;

	/* Stop the events and the recording. */
	events_off();
	ASSERT_EQ(0, twrite("tracing_on", "0"));
	ASSERT_EQ(0, kt_init(&o, self->hashed));

	entries = sa_trace_stat_sum(root, "entries: ");
	overrun = sa_trace_stat_sum(root, "overrun: ");
	tpath(p, sizeof(p), "buffer_size_kb");
	if (sa_read_file(p, &line, NULL))
		line = NULL;
	printf("# buffer: %llu entries, %llu overwritten; buffer_size_kb (per CPU): %.*s\n",
	       entries, overrun, line ? (int)strcspn(line, "\n") : 1,
	       line ? line : "?");
	free(line);
	line = NULL;
	EXPECT_EQ(0, overrun)
		TH_LOG("the buffer overflowed: the earliest events are lost (raise trace_buf_size=)");
	ASSERT_LT(0, entries);

	tpath(p, sizeof(p), "trace");
	f = fopen(p, "r");
	ASSERT_NE(NULL, f);
	copy = fopen(TRACE_FILE, "w");
	ASSERT_NE(NULL, copy) TH_LOG("%s: %s", TRACE_FILE, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		if (fputs(line, copy) == EOF)
			copy_err = 1;
		lines++;
		if (kt_line(&o, line) && bad_lines++ < 5)
			TH_LOG("trace line not understood: %s", line);
	}
	free(line);
	fclose(f);
	if (fclose(copy))
		copy_err = 1;
	ASSERT_EQ(0, copy_err);
	EXPECT_EQ(0, bad_lines);
	EXPECT_EQ(0, o.lost_lines);
	/* Only the kmem events were on: one line per entry. */
	EXPECT_EQ(entries, o.events);

	run_init = kmsg_usecs("Run /init as init process");
	nr_irqs = kmsg_usecs("NR_IRQS: ");
	printf("# trace: %llu lines, %llu events (kmalloc %llu, kmalloc_node %llu, kmem_cache_alloc %llu, kmem_cache_alloc_node %llu, kfree %llu, kmem_cache_free %llu), pointers %s\n",
	       lines, o.events, o.nevents[0], o.nevents[1], o.nevents[2],
	       o.nevents[3], o.nevents[4], o.nevents[5],
	       o.hashed ? "hashed (32 bits)" : "real");
	printf("# report: boot trace from %s s to %s s; the kernel's NR_IRQS line at %ld.%06ld s, /init at %ld.%06ld s\n",
	       o.first_ts, o.last_ts, nr_irqs / 1000000, nr_irqs % 1000000,
	       run_init / 1000000, run_init % 1000000);
	printf("# account: %zu sites, %llu allocs, %llu frees, %llu bytes allocated, %llu requested, %llu failed, %llu unknown frees, %llu missed frees, %llu reported twice\n",
	       kt_nrows(&o), o.allocs, o.frees, o.total, o.req, o.failed,
	       o.unknown, o.missed, o.twice);
	/*
	 * The recording starts in start_kernel(): trace_init() enables the
	 * events before early_irq_init() logs "NR_IRQS: ..." (5.10 to 7.x),
	 * and nothing reset the buffer since (printk and the global trace
	 * clock both read sched_clock).
	 */
	ASSERT_NE(0, o.first_ts[0]);
	ASSERT_LE(0, run_init);
	ASSERT_LE(0, nr_irqs);
	EXPECT_LE(kt_ts(o.first_ts) * 1e6, (double)nr_irqs + 0.5)
		TH_LOG("the first event (%s s) is after the kernel's NR_IRQS line: the early boot is not in the buffer",
		       o.first_ts);
	EXPECT_LT(kt_ts(o.first_ts) * 1e6, (double)run_init);

	/* The reader's import: every figure of every site. */
	nrows = kt_csv_run(SLABACCT " --from-trace " TRACE_FILE " --csv",
			   &rows, err, sizeof(err));
	ASSERT_LE(0, nrows) TH_LOG("%s", err);
	mismatches = kt_compare(&o, rows, nrows);
	for (long i = 0; i < nrows; i++) {
		r_allocs += rows[i].allocs;
		r_frees += rows[i].frees;
		r_total += rows[i].total;
		r_req += rows[i].req;
		if (!row_rules(&rows[i]) && bad_rules++ < 5)
			printf("# row breaks the format's rules: %s\n", rows[i].caller);
	}
	printf("# slabacct --from-trace: %ld sites, %llu allocs, %llu frees, %llu bytes allocated, %llu requested; %lu figures differ from the test's account\n",
	       nrows, r_allocs, r_frees, r_total, r_req, mismatches);
	EXPECT_EQ(0, mismatches);
	EXPECT_EQ(kt_nrows(&o), (size_t)nrows);
	EXPECT_EQ(o.allocs, r_allocs);
	EXPECT_EQ(o.frees, r_frees);
	EXPECT_EQ(o.total, r_total);
	EXPECT_EQ(o.req, r_req);
	EXPECT_EQ(0, bad_rules);
	EXPECT_EQ(0, kt_summary_compare(&o, SLABACCT " --from-trace " TRACE_FILE
					" --json --summary-only", 1));

	/*
	 * trace-cmd where the guest has it (amd64 rows): the same buffer
	 * extracted to a trace.dat (this consumes it: after the text was
	 * read), `trace-cmd report` of it imported: the same summary.  Its
	 * call sites are written without /0xlen and [module], which can
	 * give two sites one name (632 for 633 on a 6.1 boot): the sites
	 * are not compared.
	 */
	if (!access(TRACE_CMD, X_OK)) {
		long bad;

		ASSERT_EQ(0, system(TRACE_CMD " extract -o " TRACE_DAT
				    " > /dev/null 2>&1"));
		ASSERT_EQ(0, system(TRACE_CMD " report -i " TRACE_DAT " > "
				    TRACE_REPORT " 2> /dev/null"));
		bad = kt_summary_compare(&o, SLABACCT " --from-trace "
					 TRACE_REPORT " --json --summary-only", 0);
		printf("# trace-cmd extract and report: the import's summary %s the text's account\n",
		       bad ? "differs from" : "equals");
		EXPECT_EQ(0, bad);
		unlink(TRACE_DAT);
		unlink(TRACE_REPORT);
	} else {
		printf("# no %s in this guest: trace-cmd's report not checked\n",
		       TRACE_CMD);
	}

	/* The module's view now, against the boot's. */
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	f = fopen(SNAP_FILE, "w");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(s.len, fwrite(s.text, 1, s.len, f));
	ASSERT_EQ(0, fclose(f));
	ndiff = diff_run(SLABACCT " --diff --all --csv " TRACE_FILE " " SNAP_FILE,
			 &drows, err, sizeof(err));
	ASSERT_LE(0, ndiff) TH_LOG("%s", err);
	mismatches = 0;
	for (long i = 0; i < ndiff; i++) {
		const struct drow *d = &drows[i];
		const struct kt_site *t = kt_find(&o, d->caller);
		const struct sa_row *m = NULL;
		long long want[7];
		const char *st;

		if (t && !kt_shown(t))
			t = NULL;	/* a site with no row in the import */
		for (size_t j = 0; j < s.nrows; j++)
			if (!strcmp(s.rows[j].caller, d->caller))
				m = &s.rows[j];
		st = t && m ? "common" : m ? "new" : t ? "gone" : "?";
		seen_common += !strcmp(st, "common");
		seen_new += !strcmp(st, "new");
		seen_gone += !strcmp(st, "gone");
		want[0] = (m ? (long long)m->total : 0) - (t ? (long long)t->total : 0);
		want[1] = (m ? (long long)m->slack : 0) -
			  (t ? (long long)(t->total - t->req) : 0);
		want[2] = (m ? (long long)m->req : 0) - (t ? (long long)t->req : 0);
		want[3] = (m ? (long long)m->live : 0) - (t ? (long long)t->live : 0);
		want[4] = (m ? (long long)m->objs : 0) - (t ? (long long)t->objs : 0);
		want[5] = (m ? (long long)m->allocs : 0) - (t ? (long long)t->allocs : 0);
		want[6] = (m ? (long long)m->frees : 0) - (t ? (long long)t->frees : 0);
		if (strcmp(st, d->status) || memcmp(want, d->d, sizeof(want))) {
			if (mismatches++ < 5)
				printf("# diff row %s: status %s (want %s), total %lld (want %lld), allocs %lld (want %lld)\n",
				       d->caller, d->status, st, d->d[0], want[0],
				       d->d[5], want[5]);
		}
	}
	printf("# slabacct --diff TRACE SNAPSHOT: %ld sites: %zu in both, %zu only in the module's file, %zu only in the boot trace; %lu rows wrong\n",
	       ndiff, seen_common, seen_new, seen_gone, mismatches);
	EXPECT_EQ(0, mismatches);
	/* Every site of either view once. */
	EXPECT_EQ(kt_nrows(&o) + s.nrows - seen_common, (size_t)ndiff);
	EXPECT_EQ(s.nrows, seen_common + seen_new);
	EXPECT_EQ(kt_nrows(&o), seen_common + seen_gone);
	free(drows);
	free(rows);
	sa_snap_free(&s);
	kt_free(&o);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid())
		ksft_exit_skip("needs root\n");
	if (access(SA_PROC, F_OK))
		ksft_exit_skip("no %s: load slab_account.ko first\n", SA_PROC);
	if (access(SLABACCT, X_OK))
		ksft_exit_skip("no %s\n", SLABACCT);
	if (!strstr(sa_cmdline(), "trace_event=") ||
	    sa_tracefs(root, sizeof(root), "events/kmem") ||
	    !kmem_enabled("kmalloc"))
		ksft_exit_skip("not booted with the kmem events on (trace_event=kmem:kmalloc,...: docs/kernels.md)\n");
	return test_harness_run(argc, argv);
}
