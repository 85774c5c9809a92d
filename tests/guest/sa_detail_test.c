// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/slab_account_detail against sa_age.ko's books: the kmalloc size
 * classes of the header against the kernel's kmalloc caches, request
 * extremes and size counts of sites of known sizes, the ages of a fixed
 * set, of a leak of one object a second and of a churn of short-lived
 * objects; every row against the format's rules and the main file; and,
 * with sa_test.ko, a site's sizes after a reset under its load.
 * Its own parser of the file: independent of slabacct's.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "sa_lib.h"

#define SA_DETAIL	"/proc/slab_account_detail"
#define SA_AGE_PROC	"/proc/sa_age"
#define NAGES		6
#define NSIZES		12
#define MAXCLASSES	64

struct drow {
	unsigned long long objs, bytes, req, oldest, byte_secs;
	unsigned long long ages[NAGES], req_min, req_max, sizes[NSIZES];
	char type[64];
	char caller[256];
};

struct detail {
	char *text;
	unsigned long long now, page_size, scanned;
	unsigned long long classes[MAXCLASSES];
	int nclasses;
	char age_bounds[128], size_bounds[128];
	struct drow *rows;
	size_t nrows;
};

static int parse_list(const char *s, unsigned long long *v, int max)
{
	int n = 0;

	while (*s) {
		char *end;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		if (n == max || !isdigit((unsigned char)*s))
			return -1;
		v[n++] = strtoull(s, &end, 10);
		s = end;
	}
	return n;
}

/* Read and parse strictly; 0 or -1 with @err. */
static int detail_read(struct detail *d, char *err, size_t errlen)
{
	size_t len, cap = 0;
	char *line, *save;
	int lineno = 0, legend = 0;

	memset(d, 0, sizeof(*d));
	if (sa_read_file(SA_DETAIL, &d->text, &len)) {
		snprintf(err, errlen, "cannot read %s", SA_DETAIL);
		return -1;
	}
	for (line = strtok_r(d->text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct drow *r;
		char *p = line, *end;
		int i;

		if (++lineno == 1) {
			if (strcmp(line, "slab_account detail - version: 1.0")) {
				snprintf(err, errlen, "version line '%s'", line);
				return -1;
			}
			continue;
		}
		if (!legend) {
			if (line[0] == '#') {
				legend = 1;
				continue;
			}
			if (!strncmp(line, "now: ", 5))
				d->now = strtoull(line + 5, NULL, 10);
			else if (!strncmp(line, "page size: ", 11))
				d->page_size = strtoull(line + 11, NULL, 10);
			else if (!strncmp(line, "objects scanned: ", 17))
				d->scanned = strtoull(line + 17, NULL, 10);
			else if (!strncmp(line, "kmalloc classes:", 16))
				d->nclasses = parse_list(line + 16, d->classes,
							 MAXCLASSES);
			else if (!strncmp(line, "age bounds:", 11))
				snprintf(d->age_bounds, sizeof(d->age_bounds),
					 "%s", line + 11);
			else if (!strncmp(line, "size bounds:", 12))
				snprintf(d->size_bounds,
					 sizeof(d->size_bounds), "%s",
					 line + 12);
			continue;
		}
		if (d->nrows == cap) {
			cap = cap ? 2 * cap : 64;
			d->rows = realloc(d->rows, cap * sizeof(*d->rows));
		}
		r = &d->rows[d->nrows++];
		memset(r, 0, sizeof(*r));
		{
			unsigned long long *f[5 + NAGES + 2 + NSIZES];
			int k = 0;

			f[k++] = &r->objs;
			f[k++] = &r->bytes;
			f[k++] = &r->req;
			f[k++] = &r->oldest;
			f[k++] = &r->byte_secs;
			for (i = 0; i < NAGES; i++)
				f[k++] = &r->ages[i];
			f[k++] = &r->req_min;
			f[k++] = &r->req_max;
			for (i = 0; i < NSIZES; i++)
				f[k++] = &r->sizes[i];
			for (i = 0; i < k; i++) {
				if (!isdigit((unsigned char)*p))
					goto bad;
				*f[i] = strtoull(p, &end, 10);
				if (*end != ' ')
					goto bad;
				p = end + 1;
			}
		}
		end = strchr(p, ' ');
		if (!end || end == p || (size_t)(end - p) >= sizeof(r->type))
			goto bad;
		memcpy(r->type, p, end - p);
		snprintf(r->caller, sizeof(r->caller), "%s", end + 1);
		if (!r->caller[0])
			goto bad;
		continue;
bad:
		snprintf(err, errlen, "bad row %d: '%s'", lineno, line);
		return -1;
	}
	if (!legend) {
		snprintf(err, errlen, "no legend line");
		return -1;
	}
	return 0;
}

static void detail_free(struct detail *d)
{
	free(d->text);
	free(d->rows);
}

static const struct drow *detail_row(const struct detail *d, const char *func,
				     int *count)
{
	const struct drow *found = NULL;
	size_t n = strlen(func);

	*count = 0;
	for (size_t i = 0; i < d->nrows; i++) {
		const char *c = d->rows[i].caller;

		if (!strncmp(c, func, n) && c[n] == '+') {
			found = &d->rows[i];
			(*count)++;
		}
	}
	return found;
}

/* sa_age's books. */
struct book {
	char func[32];
	unsigned long long allocs, live, req_min, req_max, age;
};

static int books_read(struct book *b, int max, unsigned long long *now)
{
	char *text, *line, *save;
	size_t len;
	int n = 0;

	if (sa_read_file(SA_AGE_PROC, &text, &len))
		return -1;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "now %llu", now) == 1)
			continue;
		if (n < max &&
		    sscanf(line, "%31s %llu %llu %llu %llu %llu", b[n].func,
			   &b[n].allocs, &b[n].live, &b[n].req_min,
			   &b[n].req_max, &b[n].age) == 6)
			n++;
	}
	free(text);
	return n;
}

static const struct book *book_of(const struct book *b, int n,
				  const char *func)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(b[i].func, func))
			return &b[i];
	return NULL;
}

/* The format's rules, on every row; and the rows are the main file's. */
static void check_rules(struct __test_metadata *_metadata,
			const struct detail *d)
{
	unsigned long long scanned = 0;
	char err[256];
	struct sa_snap s;

	for (size_t i = 0; i < d->nrows; i++) {
		const struct drow *r = &d->rows[i];
		unsigned long long sum = 0;

		for (int j = 0; j < NAGES; j++)
			sum += r->ages[j];
		EXPECT_EQ(r->objs, sum) TH_LOG("%s", r->caller);
		EXPECT_LE(r->req, r->bytes) TH_LOG("%s", r->caller);
		EXPECT_LE(r->req_min, r->req_max) TH_LOG("%s", r->caller);
		EXPECT_LE(r->oldest, d->now) TH_LOG("%s", r->caller);
		if (!r->objs) {
			EXPECT_EQ(0, r->bytes + r->req + r->oldest +
				  r->byte_secs) TH_LOG("%s", r->caller);
		}
		scanned += r->objs;
	}
	EXPECT_EQ(d->scanned, scanned);
	/* The main file, read after: the same sites, in the same order. */
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	for (size_t i = 0, j = 0; i < d->nrows; i++) {
		while (j < s.nrows && strcmp(s.rows[j].caller, d->rows[i].caller))
			j++;
		EXPECT_LT(j, s.nrows) TH_LOG("%s: not in the main file, or out of order",
					     d->rows[i].caller);
		if (j < s.nrows) {
			EXPECT_STREQ(s.rows[j].type, d->rows[i].type);
		}
	}
	sa_snap_free(&s);
}

/* The kernel's kmalloc-N caches, from /proc/slabinfo. */
static int kernel_classes(unsigned long long *c, int max)
{
	char *text, *line, *save;
	size_t len;
	int n = 0;

	if (sa_read_file("/proc/slabinfo", &text, &len))
		return -1;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v;
		char unit[4] = "";
		int i, k;

		if (strncmp(line, "kmalloc-", 8) || !isdigit((unsigned char)line[8]))
			continue;
		k = sscanf(line + 8, "%llu%3[k ]", &v, unit);
		if (k < 1)
			continue;
		if (unit[0] == 'k')
			v *= 1024;
		else if (unit[0] != ' ')
			continue;
		for (i = 0; i < n && c[i] != v; i++)
			;
		if (i == n && n < max)
			c[n++] = v;
	}
	free(text);
	/* Ascending. */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && c[j - 1] > c[j]; j--) {
			unsigned long long t = c[j];

			c[j] = c[j - 1];
			c[j - 1] = t;
		}
	return n;
}

/*
 * The CSV line of `slabacct ARGS` whose caller (last field) starts with
 * "@func+" and that holds @need (if not NULL), in @line; its 1-based
 * position among the rows, 0 if none.
 */
static int slabacct_line(const char *args, const char *func,
			 const char *need, char *line, size_t len)
{
	char cmd[512], buf[1024], key[80];
	int row = 0, found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "slabacct %s", args);
	snprintf(key, sizeof(key), ",%s+", func);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(buf, sizeof(buf), p)) {
		if (!row++)
			continue;	/* the CSV header */
		if (!found && strstr(buf, key) &&
		    (!need || !strncmp(buf, need, strlen(need)) ||
		     strstr(buf, need))) {
			found = row - 1;
			snprintf(line, len, "%s", buf);
		}
	}
	if (pclose(p))
		return 0;
	return found;
}

/* Field @n (0-based) of a CSV line without quoted fields before it. */
static void csv_field(const char *line, int n, char *out, size_t len)
{
	const char *p = line, *end;

	while (n-- > 0 && p)
		p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
	if (!p) {
		snprintf(out, len, "?");
		return;
	}
	end = strchr(p, ',');
	snprintf(out, len, "%.*s", (int)(end ? end - p : (ptrdiff_t)strlen(p)), p);
}

TEST(header_and_classes)
{
	unsigned long long k[MAXCLASSES];
	char err[256];
	struct detail d;
	int n;

	ASSERT_EQ(0, detail_read(&d, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ((unsigned long long)sysconf(_SC_PAGESIZE), d.page_size);
	EXPECT_STREQ(" 1 10 60 600 3600", d.age_bounds);
	EXPECT_STREQ(" 8 16 32 64 128 256 512 1024 2048 4096 8192",
		     d.size_bounds);
	ASSERT_GT(d.nclasses, 0);
	for (int i = 1; i < d.nclasses; i++)
		EXPECT_LT(d.classes[i - 1], d.classes[i]);
	n = kernel_classes(k, MAXCLASSES);
	ASSERT_GT(n, 0) TH_LOG("no kmalloc-N caches in /proc/slabinfo");
	{
		char a[512] = "", b[512] = "";

		for (int i = 0; i < d.nclasses; i++)
			snprintf(a + strlen(a), sizeof(a) - strlen(a), " %llu",
				 d.classes[i]);
		for (int i = 0; i < n; i++)
			snprintf(b + strlen(b), sizeof(b) - strlen(b), " %llu",
				 k[i]);
		ksft_print_msg("kmalloc classes:%s\n", a);
		EXPECT_STREQ(b, a);
	}
	check_rules(_metadata, &d);
	detail_free(&d);
}

struct want {
	const char *func;
	const char *type;		/* NULL: kmalloc */
	unsigned long long objs, req_min, req_max;
	int size_bucket;		/* all requests in it; -1: see below */
};

/* sa_age.ko's sites of fixed sizes, allocated at its load. */
static const struct want fixed[] = {
	{ "sa_age_fixed", NULL, 16, 700, 700, 7 },
	{ "sa_age_exact", NULL, 4, 100, 100, 4 },
	{ "sa_age_above", NULL, 4, 132, 132, 5 },
	{ "sa_age_padded", "cache:sa_age_padded", 4, 200, 200, 5 },
	{ "sa_age_var", NULL, 6, 10, 9000, -1 },
};

/* sa_age_var's 10, 20, 100, 1000, 5000, 9000 bytes. */
static const unsigned long long var_sizes[NSIZES] = {
	0, 1, 1, 0, 1, 0, 0, 1, 0, 0, 1, 1
};

TEST(sizes_of_known_sites)
{
	struct book b[16];
	unsigned long long now;
	char err[256];
	struct sa_snap s;
	struct detail d;
	int nb;

	if (sa_module_loaded("sa_age"))
		ASSERT_EQ(0, sa_module_unload("sa_age"));
	ASSERT_EQ(0, sa_module_load("sa_age", NULL));
	nb = books_read(b, 16, &now);
	ASSERT_GT(nb, 0);
	ASSERT_EQ(0, detail_read(&d, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		const struct want *w = &fixed[i];
		const struct book *k = book_of(b, nb, w->func);
		const struct sa_row *m;
		const struct drow *r;
		int n;

		ASSERT_NE(NULL, k);
		r = detail_row(&d, w->func, &n);
		ASSERT_NE(NULL, r) TH_LOG("no detail row for %s", w->func);
		EXPECT_EQ(1, n);
		m = sa_snap_row(&s, w->func, &n);
		ASSERT_NE(NULL, m);
		ksft_print_msg("%-14s objs %llu/%llu req %llu-%llu/%llu-%llu bytes %llu/%llu (detail/books, main file live)\n",
			       w->func, r->objs, k->live, r->req_min,
			       r->req_max, k->req_min, k->req_max, r->bytes,
			       m->live);
		EXPECT_EQ(w->objs, k->live);
		EXPECT_EQ(k->live, r->objs);
		EXPECT_EQ(k->req_min, r->req_min);
		EXPECT_EQ(k->req_max, r->req_max);
		EXPECT_EQ(w->req_min, r->req_min);
		EXPECT_EQ(w->req_max, r->req_max);
		/* The scan and the main file's counters agree when quiet. */
		EXPECT_EQ(m->live, r->bytes);
		EXPECT_EQ(m->live_req, r->req);
		EXPECT_EQ(m->objs, r->objs);
		/* The main file's type; 5.10 does not name caches. */
		EXPECT_STREQ(m->type, r->type);
		if (strcmp(r->type, "cache")) {
			EXPECT_STREQ(w->type ? w->type : "kmalloc", r->type);
		} else {
			EXPECT_NE(NULL, w->type);
		}
		for (int j = 0; j < NSIZES; j++) {
			unsigned long long want = w->size_bucket < 0 ?
				var_sizes[j] :
				(j == w->size_bucket ? w->objs : 0);

			EXPECT_EQ(want, r->sizes[j]) TH_LOG("%s size column %d",
							    w->func, j);
		}
		/* Allocated a moment ago. */
		EXPECT_LE(r->oldest, k->age + 1);
	}
	/*
	 * slabacct --advise on them, against the header's classes: a
	 * dedicated cache of the size rounded to 8 bytes, and a smaller
	 * request when it is at most max(8, N/8) bytes above a class.
	 */
	for (size_t i = 0; i < 2; i++) {
		const char *func = i ? "sa_age_above" : "sa_age_exact";
		unsigned long long n = i ? 132 : 100, c = 0, p = 0;
		char line[1024], f[64];

		for (int j = 0; j < d.nclasses; j++) {
			if (!c && d.classes[j] >= n)
				c = d.classes[j];
			if (d.classes[j] < n)
				p = d.classes[j];
		}
		ASSERT_NE(0, slabacct_line("--advise --csv", func, ",cache,",
					   line, sizeof(line)))
			TH_LOG("%s: no cache advice", func);
		ksft_print_msg("--advise: %s", line);
		csv_field(line, 4, f, sizeof(f));
		EXPECT_EQ(c - ((n + 7) & ~7ULL), strtoull(f, NULL, 10));
		csv_field(line, 5, f, sizeof(f));
		EXPECT_EQ(4 * (c - ((n + 7) & ~7ULL)), strtoull(f, NULL, 10));
		if (p && n - p <= (n / 8 > 8 ? n / 8 : 8)) {
			ASSERT_NE(0, slabacct_line("--advise --csv", func,
						   ",smaller,", line,
						   sizeof(line)));
			ksft_print_msg("--advise: %s", line);
			csv_field(line, 4, f, sizeof(f));
			EXPECT_EQ(c - p, strtoull(f, NULL, 10));
			csv_field(line, 5, f, sizeof(f));
			EXPECT_EQ(4 * (c - p), strtoull(f, NULL, 10));
		}
	}
	{
		char line[1024];

		ASSERT_NE(0, slabacct_line("--advise --csv", "sa_age_padded",
					   ",padded,", line, sizeof(line)));
		ksft_print_msg("--advise: %s", line);
		ASSERT_NE(0, slabacct_line("--advise --csv", "sa_age_var",
					   ",sizes,", line, sizeof(line)));
		ksft_print_msg("--advise: %s", line);
	}
	check_rules(_metadata, &d);
	sa_snap_free(&s);
	detail_free(&d);
}

static int save(const char *path)
{
	char *text;
	size_t len;
	FILE *f;
	int ok;

	if (sa_read_file(SA_DETAIL, &text, &len))
		return -1;
	f = fopen(path, "w");
	ok = f && fwrite(text, 1, len, f) == len;
	if (f)
		ok = !fclose(f) && ok;
	free(text);
	return ok ? 0 : -1;
}

/*
 * The detail file and sa_age's books of one quiet moment (the leak's), and
 * the most churn objects the detail file's scan can have seen: the scan is
 * one pass over the table while the churn goes on, so it may count objects
 * of a batch freed after it passed them and of the next allocated ahead of
 * it; never more than those live when it began and allocated while it ran.
 */
static int read_quiet(struct detail *d, struct book *b, int *nb,
		      unsigned long long *now, unsigned long long *churn_max,
		      char *err, size_t errlen)
{
	for (int tries = 0; tries < 20; tries++) {
		struct book a[16];
		unsigned long long t;
		int na;

		na = books_read(a, 16, &t);
		if (detail_read(d, err, errlen))
			return -1;
		*nb = books_read(b, 16, now);
		if (na == *nb && t == *now &&
		    book_of(a, na, "sa_age_leak")->live ==
		    book_of(b, *nb, "sa_age_leak")->live) {
			*churn_max = book_of(a, na, "sa_age_churn")->live +
				     book_of(b, *nb, "sa_age_churn")->allocs -
				     book_of(a, na, "sa_age_churn")->allocs;
			return 0;
		}
		detail_free(d);
	}
	snprintf(err, errlen, "never quiet");
	return -1;
}

TEST(leak_churn_and_fixed_ages)
{
	const struct book *leak, *fix;
	const struct drow *r;
	unsigned long long now, churn_max;
	struct book b[16];
	char err[256];
	struct detail d;
	int nb, n;

	ASSERT_TRUE(sa_module_loaded("sa_age"));
	ASSERT_EQ(0, sa_write(SA_AGE_PROC, "start", 5));
	sleep(12);
	ASSERT_EQ(0, save("/tmp/sa_detail.1"));
	sleep(12);
	ASSERT_EQ(0, save("/tmp/sa_detail.2"));
	ASSERT_EQ(0, read_quiet(&d, b, &nb, &now, &churn_max, err,
				sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, sa_write(SA_AGE_PROC, "stop", 4));

	leak = book_of(b, nb, "sa_age_leak");
	ASSERT_NE(NULL, leak);
	r = detail_row(&d, "sa_age_leak", &n);
	ASSERT_NE(NULL, r);
	ksft_print_msg("leak: objs %llu/%llu oldest %llu/%llu s (detail/books), ages %llu %llu %llu %llu %llu %llu\n",
		       r->objs, leak->live, r->oldest, leak->age, r->ages[0],
		       r->ages[1], r->ages[2], r->ages[3], r->ages[4],
		       r->ages[5]);
	EXPECT_EQ(leak->live, r->objs);
	EXPECT_GE(leak->live, 20);
	EXPECT_LE(r->oldest, leak->age + 1);
	EXPECT_GE(r->oldest + 1, leak->age);
	/* One a second: a few younger than 10 s, the rest older. */
	EXPECT_LE(r->ages[0], 2);
	EXPECT_GE(r->ages[1], 8);
	EXPECT_LE(r->ages[1], 11);
	EXPECT_EQ(512 * r->objs, r->req);

	r = detail_row(&d, "sa_age_churn", &n);
	ASSERT_NE(NULL, r);
	ksft_print_msg("churn: objs %llu (at most %llu), oldest %llu s, allocs %llu\n",
		       r->objs, churn_max, r->oldest,
		       book_of(b, nb, "sa_age_churn")->allocs);
	/* Each batch lives 100 ms: all younger than a second. */
	EXPECT_LE(r->objs, churn_max);
	EXPECT_EQ(r->objs, r->ages[0]);
	EXPECT_LE(r->oldest, 1);
	EXPECT_GE(book_of(b, nb, "sa_age_churn")->allocs, 1000);

	fix = book_of(b, nb, "sa_age_fixed");
	r = detail_row(&d, "sa_age_fixed", &n);
	ASSERT_NE(NULL, r);
	ksft_print_msg("fixed: objs %llu oldest %llu/%llu s\n", r->objs,
		       r->oldest, fix->age);
	EXPECT_EQ(16, r->objs);
	EXPECT_LE(r->oldest, fix->age + 1);
	EXPECT_GE(r->oldest + 1, fix->age);
	EXPECT_EQ(16 * 700, r->req);
	check_rules(_metadata, &d);
	detail_free(&d);

	/* slabacct --leaks on the two snapshots: the leak first, growing. */
	{
		static const struct { const char *func, *verdict; } v[] = {
			{ "sa_age_leak", "growing" },
			{ "sa_age_churn", "steady cache" },
			{ "sa_age_fixed", "old and flat" },
		};
		/* Among sa_age's sites: the kernel's own may grow too. */
		const char *args = "--leaks --csv -m sa_age /tmp/sa_detail.1 /tmp/sa_detail.2";
		char line[1024], f[64];

		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			int rank = slabacct_line(args, v[i].func, NULL, line,
						 sizeof(line));

			ASSERT_NE(0, rank) TH_LOG("%s: no row", v[i].func);
			ksft_print_msg("--leaks: %s", line);
			csv_field(line, 11, f, sizeof(f));
			EXPECT_STREQ(v[i].verdict, f) TH_LOG("%s", v[i].func);
			if (!i) {
				EXPECT_EQ(1, rank);
				csv_field(line, 6, f, sizeof(f));
				EXPECT_LT(0, atoi(f)) TH_LOG("no growth");
			}
		}
	}
}

/* sa_test's "hold" site: each request of 1500 bytes (tests/kmod/sa_test.c). */
#define HOLD_FUNC	"sa_test_alloc_hold"
#define HOLD_REQ	1500

/*
 * A reset while a site allocates on another CPU, the site then quiet
 * (issue 35, review item 6): its size columns add up to the allocations
 * the main file counts since the reset, and its request extremes are its
 * requests' (1500 bytes each), never 0.  A task pinned to the second CPU
 * holds and drops one object at a time at sa_test's hold site, as fast
 * as it can (64 holds in all per load of sa_test: it is loaded again
 * each time), while the first CPU resets, and a few milliseconds more,
 * twenty times; the site allocated since the reset in at least one of
 * them.
 */
TEST(sizes_after_reset_under_load)
{
	char ko[4096], err[256];
	struct detail d;
	struct sa_snap s;
	int checked = 0;

	snprintf(ko, sizeof(ko), "%s/sa_test.ko", sa_ko_dir());
	if (access(ko, R_OK))
		SKIP(return, "no sa_test.ko in %.900s", sa_ko_dir());
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU online: no reset under another CPU's load");
	for (int iter = 0; iter < 20; iter++) {
		const struct sa_row *mr;
		const struct drow *r;
		unsigned long long sum = 0;
		pid_t pid;
		int n;

		ASSERT_EQ(0, sa_test_fresh());
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			cpu_set_t one;

			CPU_ZERO(&one);
			CPU_SET(1, &one);
			if (sched_setaffinity(0, sizeof(one), &one))
				_exit(1);
			while (!sa_write(SA_TEST_PROC, "hold 1", 6) &&
			       !sa_write(SA_TEST_PROC, "drop 1", 6))
				;
			_exit(0);
		}
		usleep(2000);
		EXPECT_EQ(0, sa_write_on(0, SA_PROC, "reset", 5));
		usleep(5000);
		kill(pid, SIGKILL);
		ASSERT_EQ(pid, waitpid(pid, NULL, 0));

		/* Quiet now: the main file, then the detail file. */
		ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
		ASSERT_EQ(0, detail_read(&d, err, sizeof(err))) TH_LOG("%s", err);
		mr = sa_snap_row(&s, HOLD_FUNC, &n);
		r = detail_row(&d, HOLD_FUNC, &n);
		if (mr && mr->allocs) {
			ASSERT_NE(NULL, r) TH_LOG("no detail row for " HOLD_FUNC);
			for (int j = 0; j < NSIZES; j++)
				sum += r->sizes[j];
			ksft_print_msg("reset %d: allocs %llu, size columns %llu, req %llu-%llu\n",
				       iter, mr->allocs, sum, r->req_min,
				       r->req_max);
			EXPECT_EQ(mr->allocs, sum);
			EXPECT_EQ(HOLD_REQ, r->req_min);
			EXPECT_EQ(HOLD_REQ, r->req_max);
			checked++;
		}
		detail_free(&d);
		sa_snap_free(&s);
	}
	EXPECT_LT(0, checked) TH_LOG("no allocation after any of the resets");
	sa_write(SA_TEST_PROC, "free", 4);
	sa_module_unload("sa_test");
}

TEST(unload)
{
	ASSERT_EQ(0, sa_module_unload("sa_age"));
}

SA_SELFTEST_MAIN(0)
