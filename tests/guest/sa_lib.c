// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sa_lib.h"

int sa_read_file(const char *path, char **buf, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *p = malloc(cap);
	int fd, err;

	if (!p)
		return ENOMEM;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		err = errno;
		free(p);
		return err;
	}
	for (;;) {
		ssize_t r;

		if (cap - n < 4096) {
			char *q = realloc(p, cap * 2);

			if (!q) {
				err = ENOMEM;
				goto fail;
			}
			p = q;
			cap *= 2;
		}
		r = read(fd, p + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			goto fail;
		}
		if (!r)
			break;
		n += r;
	}
	close(fd);
	p[n] = '\0';
	*buf = p;
	if (len)
		*len = n;
	return 0;
fail:
	close(fd);
	free(p);
	return err;
}

int sa_write(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY);
	ssize_t r;
	int err = 0;

	if (fd < 0)
		return errno;
	r = write(fd, buf, len);
	if (r < 0)
		err = errno;
	else if ((size_t)r != len)
		err = EIO;
	close(fd);
	return err;
}

int sa_cmd(const char *cmd)
{
	return sa_write(SA_PROC, cmd, strlen(cmd));
}

int sa_write_on(int cpu, const char *path, const void *buf, size_t len)
{
	cpu_set_t all, one;
	int err;

	if (sched_getaffinity(0, sizeof(all), &all))
		return errno;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return errno;
	err = sa_write(path, buf, len);
	if (sched_setaffinity(0, sizeof(all), &all) && !err)
		err = errno;
	return err;
}

static int parse_u64(const char *s, char **end, unsigned long long *v)
{
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, end, 10);
	return errno ? -1 : 0;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); goto bad; } while (0)

static int parse_row(char *line, struct sa_row *r)
{
	int pos = -1;

	memset(r, 0, sizeof(*r));
	if (sscanf(line, "%llu %llu %llu %llu %llu %llu %llu %llu/%llu %63s %n",
		   &r->total, &r->slack, &r->req, &r->live, &r->live_req,
		   &r->objs, &r->peak, &r->allocs, &r->frees, r->type,
		   &pos) != 10 || pos < 0 || !line[pos] ||
	    strlen(line + pos) >= sizeof(r->caller))
		return -1;
	snprintf(r->caller, sizeof(r->caller), "%s", line + pos);
	return 0;
}

int sa_snap_read(struct sa_snap *s, char *err, size_t errlen)
{
	char *copy = NULL, *line, *next;
	int lineno = 0, legend = 0;
	size_t cap = 0;
	int rc;

	memset(s, 0, sizeof(*s));
	rc = sa_read_file(SA_PROC, &s->text, &s->len);
	if (rc) {
		snprintf(err, errlen, "%s: %s", SA_PROC, strerror(rc));
		return -1;
	}
	if (!s->len || s->text[s->len - 1] != '\n')
		FAIL("empty or unterminated file");
	/* Parse a copy: tests compare s->text byte for byte. */
	copy = strdup(s->text);
	if (!copy)
		FAIL("out of memory");
	for (line = copy; *line; line = next) {
		char *nl = strchr(line, '\n');

		*nl = '\0';
		next = nl + 1;
		lineno++;
		if (lineno == 1) {
			/* Format 1.x: 1.1 adds keys, which readers ignore. */
			if (strncmp(line, "slab_account - version: 1.", 26) ||
			    !line[26] ||
			    strspn(line + 26, "0123456789") != strlen(line + 26))
				FAIL("line 1: bad header '%s'", line);
		} else if (!legend && line[0] == '#') {
			legend = 1;
		} else if (!legend) {
			char *colon = strstr(line, ": ");
			struct sa_key *k;
			char *end;

			if (!colon || s->nkeys == 96 ||
			    (size_t)(colon - line) >= sizeof(k->name))
				FAIL("line %d: bad summary line '%s'", lineno, line);
			*colon = '\0';
			if (!strcmp(line, "state")) {
				snprintf(s->state, sizeof(s->state), "%s", colon + 2);
				continue;
			}
			k = &s->keys[s->nkeys++];
			snprintf(k->name, sizeof(k->name), "%s", line);
			/* 1.3: why a path is not hooked; 1.6: the split. */
			if (!strncmp(line, "unhooked ", 9) || !strcmp(line, "split")) {
				if (strlen(colon + 2) >= sizeof(k->text) ||
				    strspn(colon + 2, "abcdefghijklmnopqrstuvwxyz-") !=
				    strlen(colon + 2))
					FAIL("line %d: bad word for '%s'", lineno, line);
				snprintf(k->text, sizeof(k->text), "%s", colon + 2);
				continue;
			}
			if (parse_u64(colon + 2, &end, &k->val) || *end)
				FAIL("line %d: bad value for '%s'", lineno, line);
		} else {
			if (s->nrows == cap) {
				void *q;

				cap = cap ? cap * 2 : 256;
				q = realloc(s->rows, cap * sizeof(*s->rows));
				if (!q)
					FAIL("out of memory");
				s->rows = q;
			}
			if (parse_row(line, &s->rows[s->nrows]))
				FAIL("line %d: bad row '%s'", lineno, line);
			if (s->rows[s->nrows].slack !=
			    s->rows[s->nrows].total - s->rows[s->nrows].req)
				FAIL("line %d: slack != total - req", lineno);
			s->nrows++;
		}
	}
	if (!legend)
		FAIL("no legend line");
	free(copy);
	return 0;
bad:
	free(copy);
	sa_snap_free(s);
	return -1;
}

void sa_snap_free(struct sa_snap *s)
{
	free(s->text);
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

int sa_snap_has_key(const struct sa_snap *s, const char *key)
{
	for (int i = 0; i < s->nkeys; i++)
		if (!strcmp(s->keys[i].name, key))
			return 1;
	return 0;
}

const char *sa_snap_text(const struct sa_snap *s, const char *key)
{
	for (int i = 0; i < s->nkeys; i++)
		if (!strcmp(s->keys[i].name, key))
			return s->keys[i].text;
	return NULL;
}

unsigned long long sa_snap_key(const struct sa_snap *s, const char *key)
{
	for (int i = 0; i < s->nkeys; i++)
		if (!strcmp(s->keys[i].name, key))
			return s->keys[i].val;
	fprintf(stderr, "# summary key '%s' missing\n", key);
	abort();
}

unsigned long long sa_key_now(const char *key)
{
	unsigned long long v;
	char err[256];
	struct sa_snap s;

	if (sa_snap_read(&s, err, sizeof(err)))
		return ~0ULL;
	v = sa_snap_key(&s, key);
	sa_snap_free(&s);
	return v;
}

/* The load a row's caller says it was of (" unloaded#N"), or 0. */
unsigned int sa_row_unloaded(const struct sa_row *r)
{
	const char *at = strstr(r->caller, " unloaded#");

	return at ? (unsigned int)strtoul(at + 10, NULL, 10) : 0;
}

const char *sa_row_context(const struct sa_row *r)
{
	static const char * const marks[] = {
		" @stack:", " @cgroup:", " @node:", " @task:", " @irq",
	};
	const char *first = NULL;

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		const char *at = strstr(r->caller, marks[i]);

		/* " @irq" ends the line; the others are followed by a value. */
		if (at && i == 4 && at[5])
			at = NULL;
		if (at && (!first || at < first))
			first = at;
	}
	return first;
}

const struct sa_row *sa_snap_row_of(const struct sa_snap *s, const char *func,
				    const char *mod, unsigned int load,
				    int *count)
{
	const struct sa_row *found = NULL;
	size_t n = strlen(func);
	char tail[80];

	snprintf(tail, sizeof(tail), " [%s]", mod ? mod : "");
	*count = 0;
	for (size_t i = 0; i < s->nrows; i++) {
		const char *c = s->rows[i].caller;

		if (!strncmp(c, func, n) && !strncmp(c + n, "+0x", 3) &&
		    (!mod || strstr(c, tail)) && !sa_row_context(&s->rows[i]) &&
		    sa_row_unloaded(&s->rows[i]) == load) {
			found = &s->rows[i];
			(*count)++;
		}
	}
	return found;
}

const struct sa_row *sa_snap_row(const struct sa_snap *s, const char *func,
				 int *count)
{
	return sa_snap_row_of(s, func, NULL, 0, count);
}

/* Is @r a row of a site in @func, of code still loaded? */
static int sa_row_in(const struct sa_row *r, const char *func, size_t n)
{
	return !strncmp(r->caller, func, n) && !strncmp(r->caller + n, "+0x", 3) &&
	       !sa_row_unloaded(r);
}

/* The length of @r's caller without its context. */
static size_t sa_row_base(const struct sa_row *r)
{
	const char *at = sa_row_context(r);

	return at ? (size_t)(at - r->caller) : strlen(r->caller);
}

int sa_snap_sum(const struct sa_snap *s, const char *func, struct sa_row *sum,
		int *sites)
{
	size_t n = strlen(func);
	int rows = 0;

	memset(sum, 0, sizeof(*sum));
	*sites = 0;
	for (size_t i = 0; i < s->nrows; i++) {
		const struct sa_row *r = &s->rows[i];
		size_t len = sa_row_base(r);
		int seen = 0;

		if (!sa_row_in(r, func, n))
			continue;
		if (!rows++) {
			snprintf(sum->type, sizeof(sum->type), "%s", r->type);
			snprintf(sum->caller, sizeof(sum->caller), "%s", r->caller);
		}
		sum->total += r->total;
		sum->slack += r->slack;
		sum->req += r->req;
		sum->live += r->live;
		sum->live_req += r->live_req;
		sum->objs += r->objs;
		sum->peak += r->peak;
		sum->allocs += r->allocs;
		sum->frees += r->frees;
		/* A site not met in an earlier row of the function: a new one. */
		for (size_t k = 0; k < i && !seen; k++)
			seen = sa_row_in(&s->rows[k], func, n) &&
			       sa_row_base(&s->rows[k]) == len &&
			       !strncmp(s->rows[k].caller, r->caller, len);
		*sites += !seen;
	}
	return rows;
}

int sa_truth_read(struct sa_truth *t, int max, int *online_cpus)
{
	return sa_truth_read_file(SA_TEST_PROC, t, max, online_cpus);
}

int sa_truth_read_file(const char *path, struct sa_truth *t, int max,
		       int *online_cpus)
{
	char *text, *line, *save = NULL;
	int n = 0, rc, remote;

	rc = sa_read_file(path, &text, NULL);
	if (rc)
		return -1;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "# remote_cpu %d online_cpus %d", &remote,
			   online_cpus) == 2)
			continue;
		if (line[0] == '#')
			continue;
		if (n == max || sscanf(line, "%63s %llu %llu %llu %llu %llu %llu %llu",
				       t[n].func, &t[n].allocs, &t[n].frees,
				       &t[n].total, &t[n].req, &t[n].live,
				       &t[n].live_req, &t[n].objs) != 8) {
			n = -1;
			break;
		}
		n++;
	}
	free(text);
	return n;
}

/* A cache's stride; 0 if unknown (no SLUB sysfs, no such cache). */
static unsigned long long slab_stride(const char *cache)
{
	char path[256], *text, *end;
	unsigned long long v;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/slab_size", cache);
	if (sa_read_file(path, &text, NULL))
		return 0;
	v = strtoull(text, &end, 10);
	if (end == text)
		v = 0;
	free(text);
	return v;
}

int sa_slab_metadata(void)
{
	unsigned long long st = slab_stride("kmalloc-128");

	return st && st != 128;
}

int sa_truth_to_stride(struct sa_truth *t, const char *cache)
{
	unsigned long long ks, st;
	char name[64];

	if (!t->allocs)
		return 0;
	if (t->total % t->allocs || (t->objs && t->live % t->objs))
		return -1;
	ks = t->total / t->allocs;
	if (t->objs && t->live / t->objs != ks)
		return -1;
	if (cache)
		snprintf(name, sizeof(name), "%s", cache);
	else if (ks > 8192)
		return 0;		/* from the page allocator */
	else if (ks >= 1024)
		snprintf(name, sizeof(name), "kmalloc-%lluk", ks / 1024);
	else
		snprintf(name, sizeof(name), "kmalloc-%llu", ks);
	st = slab_stride(name);
	if (!st)
		return 0;
	t->total = t->allocs * st;
	t->live = t->objs * st;
	return 0;
}

const char *sa_ko_dir(void)
{
	const char *d = getenv("SA_KO_DIR");

	return d && *d ? d : "/lib/slab_account";
}

int sa_module_load(const char *name, const char *params)
{
	char path[4096];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s.ko", sa_ko_dir(), name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (syscall(SYS_finit_module, fd, params ? params : "", 0))
		err = errno;
	close(fd);
	return err;
}

int sa_module_unload(const char *name)
{
	/*
	 * A module still in its init (an insmod of a test that was killed:
	 * the call goes on) or on its way out cannot be unloaded yet: try
	 * again, a bounded number of times (not a wall clock).
	 */
	for (int tries = 0; ; tries++) {
		if (!syscall(SYS_delete_module, name, O_NONBLOCK))
			return 0;
		if ((errno != EBUSY && errno != EAGAIN) || tries == 600)
			return errno;
		usleep(100000);
	}
}

int sa_restore(void)
{
	char ko[4096];

	if (sa_module_loaded("slab_account") && !access(SA_PROC, F_OK))
		return 0;
	snprintf(ko, sizeof(ko), "%s/slab_account.ko", sa_ko_dir());
	if (access(ko, R_OK))
		return ENOENT;
	/* Half there (being loaded or unloaded): out first. */
	if (sa_module_loaded("slab_account"))
		sa_module_unload("slab_account");
	return sa_module_load("slab_account", getenv("SA_LOAD_PARAMS"));
}

int sa_module_loaded(const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return !stat(path, &st);
}

int sa_test_fresh(void)
{
	int err;

	if (sa_module_loaded("sa_test")) {
		sa_write(SA_TEST_PROC, "free", 4);
		err = sa_module_unload("sa_test");
		if (err)
			return err;
	}
	return sa_module_load("sa_test", NULL);
}

const char *sa_cmdline(void)
{
	static char *text;

	if (!text && sa_read_file("/proc/cmdline", &text, NULL))
		return "";
	return text;
}

int sa_tracefs(char *root, size_t n, const char *need)
{
	static const char * const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char p[128];

	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/%s", dirs[i], need);
		if (!access(p, F_OK)) {
			snprintf(root, n, "%s", dirs[i]);
			return 0;
		}
	}
	if (mount("tracefs", dirs[0], "tracefs", 0, NULL))
		return -1;
	snprintf(root, n, "%s", dirs[0]);
	snprintf(p, sizeof(p), "%s/%s", dirs[0], need);
	return access(p, F_OK) ? -1 : 0;
}

unsigned long long sa_trace_stat_sum(const char *dir, const char *key)
{
	unsigned long long sum = 0;

	for (int cpu = 0; cpu < 4096; cpu++) {
		char p[320], *text, *at;

		snprintf(p, sizeof(p), "%s/per_cpu/cpu%d/stats", dir, cpu);
		if (access(p, F_OK))
			continue;
		if (sa_read_file(p, &text, NULL))
			continue;
		at = strstr(text, key);
		if (at)
			sum += strtoull(at + strlen(key), NULL, 10);
		free(text);
	}
	return sum;
}

int sa_logged_times(const char *what)
{
	int n = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0), times = 0;
	char *buf, *at;

	if (n <= 0)
		return 0;
	buf = calloc(1, n + 1);
	if (!buf)
		return 0;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, n);
	for (at = n > 0 ? strstr(buf, what) : NULL; at; at = strstr(at + 1, what))
		times++;
	free(buf);
	return times;
}

void sa_cpu_online_path(char *buf, size_t len, int cpu)
{
	snprintf(buf, len, "/sys/devices/system/cpu/cpu%d/online", cpu);
}

int sa_cpu_online(int cpu, int on)
{
	char path[64];

	sa_cpu_online_path(path, sizeof(path), cpu);
	return sa_write(path, on ? "1" : "0", 1);
}
