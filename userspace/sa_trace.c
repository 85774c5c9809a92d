// SPDX-License-Identifier: GPL-2.0
/*
 * sa_trace - the kmem trace reader (see sa_trace.h): lines read by the one
 * line reader (sa_lines, with a maximum length and a progress display),
 * each told apart (an event, a comment, a lost-events line, trace-cmd's
 * own lines), the kmem events of every tracepoint era parsed into the
 * account of sa_tacct.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_kallsyms.h"
#include "sa_tacct.h"
#include "sa_trace.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HEADER_PREFIX SA_HEADER_PREFIX
#define MAX_LINE ((size_t)1 << 20)	/* a longer line is not a trace's */
#define PROGRESS_MIN ((off_t)64 << 20)	/* progress for files this large */
#define PROGRESS_NS 250000000LL		/* at most 4 updates a second */

static const struct {
	const char *name;
	enum ev ev;
} events[] = {
	{ "kmalloc", EV_KMALLOC }, { "kmalloc_node", EV_KMALLOC },
	{ "kmem_cache_alloc", EV_CACHE_ALLOC },
	{ "kmem_cache_alloc_node", EV_CACHE_ALLOC },
	{ "kfree", EV_KFREE }, { "kmem_cache_free", EV_CACHE_FREE },
};

static int starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* A trace line of another event: "... [CPU] ... TIMESTAMP: EVENT: ...". */
static int looks_like_event(const char *line)
{
	const char *p = strchr(line, '[');

	while (p) {
		size_t d = strspn(p + 1, "0123456789");

		if (d && p[1 + d] == ']' && strstr(p + 1 + d, ": "))
			return 1;
		p = strchr(p + 1, '[');
	}
	return 0;
}

int sa_trace_sniff(const char *line)
{
	if (line[strspn(line, " \t\r")] == '\0' || line[0] == '#' || starts(line, "CPU") ||
	    starts(line, "cpus=") || starts(line, "version = "))
		return 1;
	return looks_like_event(line) || strstr(line, "call_site=") != NULL;
}

/* "SECONDS.FRACTION" ending at @end (exclusive) into ns; 0 or -1. */
static int parse_ts(const char *start, const char *end, uint64_t *ns)
{
	const char *dot = memchr(start, '.', (size_t)(end - start));
	uint64_t sec, frac = 0;
	size_t nf, i;

	if (!dot || sa_parse_u64(start, (size_t)(dot - start), &sec) ||
	    sec > UINT64_MAX / 1000000000ULL)
		return -1;
	nf = (size_t)(end - dot - 1);
	if (!nf || nf > 9 || sa_parse_u64(dot + 1, nf, &frac))
		return -1;
	for (i = nf; i < 9; i++)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

/* The value of "KEY=" in [from, end): its start and length (to a blank); NULL if none. */
static const char *field(const char *from, const char *key, size_t *len)
{
	const char *p = from;
	size_t k = strlen(key);

	for (;;) {
		p = strstr(p, key);
		if (!p)
			return NULL;
		if (p == from || p[-1] == ' ' || p[-1] == '\t')
			break;
		p += k;
	}
	p += k;
	*len = strcspn(p, " \t");
	return p;
}

static int field_u64(struct tr *t, const char *from, const char *key, uint64_t *v)
{
	size_t n;
	const char *p = field(from, key, &n);

	if (!p)
		return sa_tr_fail(t, "no %s field in a kmem allocation event", key);
	if (sa_parse_u64(p, n, v))
		return sa_tr_fail(t, "%s'%.*s' is not an unsigned decimal number", key,
			     (int)(n > 40 ? 40 : n), p);
	if (*v > UINT32_MAX)
		return sa_tr_fail(t, "%s%" PRIu64 " is more than a slab allocation can be", key, *v);
	return 0;
}

static int is_hex_site(const char *s, size_t n)
{
	uint64_t v;

	return n >= 8 && sa_parse_hex(s, n, &v) == 0;
}

/*
 * "CPU:N [LOST M EVENTS]" or "CPU:N [LOST EVENTS]" (tracefs), "CPU:N [M
 * EVENTS DROPPED]" or "CPU:N [EVENTS DROPPED]" (trace-cmd report).
 */
static int lost_line(struct tr *t, const char *line)
{
	const char *p = strchr(line, '[');
	uint64_t n = 0;
	size_t d;

	if (!p || !strchr(p, ']'))
		return 0;
	p++;
	if (!strncmp(p, "LOST ", 5))
		p += 5;
	else if (!strstr(p, "EVENTS DROPPED]"))
		return 0;
	d = strspn(p, "0123456789");
	if (strncmp(p + d, d ? " EVENTS" : "EVENTS", d ? 7 : 6))
		return 0;
	t->c[C_LOST_REPORTS]++;
	if (d && !sa_parse_u64(p, d, &n) && sa_add_u64(&t->c[C_LOST], n))
		t->c[C_LOST] = UINT64_MAX;
	return 1;
}

static const char *cache_name(const char *from, size_t *len)
{
	const char *p = field(from, "name=", len), *end;

	if (!p)
		return NULL;
	end = strstr(p, " bytes_req=");
	if (!end)
		end = p + strlen(p);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*len = (size_t)(end - p);
	return p;
}

/*
 * The ':' that ends the event's name before the field at @field: "EVENT:
 * call_site=" (tracefs), "EVENT:   call_site=" (trace-cmd) or "EVENT:
 * (func+0xoff) call_site=" (trace-cmd's kmem plugin); NULL if none.
 */
static char *event_colon(char *line, char *field)
{
	char *q = field;

	if (q == line || (q[-1] != ' ' && q[-1] != '\t'))
		return NULL;
	while (q > line && (q[-1] == ' ' || q[-1] == '\t'))
		q--;
	if (q > line && q[-1] == ')') {
		char *open = q - 1;

		while (open > line && *open != '(')
			open--;
		if (*open != '(' || open == line || open[-1] != ' ')
			return NULL;
		q = open;
		while (q > line && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
	}
	return q > line && q[-1] == ':' ? q - 1 : NULL;
}

static int trace_line(struct tr *t, char *line, size_t n)
{
	char *cs = NULL, *p, *name_end = NULL, *name, *pp, *csend;
	const char *v, *cname;
	size_t i, vlen, cnlen = 0;
	uint64_t ptr, req = 0, alloc = 0, ts = 0;
	enum ev ev = EV_OTHER;
	char resolved[512];

	if (memchr(line, '\0', n))
		return sa_tr_fail(t, "NUL byte in line (not a text file?)");
	if (line[strspn(line, " \t")] == '\0' || line[0] == '#')
		return 0;
	if (starts(line, "CPU:") && lost_line(t, line))
		return 0;
	/* trace-cmd report's own lines */
	if (starts(line, "cpus=")) {
		t->trace_cmd = 1;
		return 0;
	}
	if (starts(line, "version = ") ||
	    (starts(line, "CPU ") && strstr(line, " is empty")))
		return 0;

	for (p = strstr(line, "call_site="); p; p = strstr(p + 1, "call_site=")) {
		char *q = event_colon(line, p);

		if (q) {
			cs = p;
			name_end = q;
			break;
		}
	}
	if (!cs) {
		if (looks_like_event(line)) {
			t->c[C_OTHER]++;
			return 0;
		}
		if (t->lineno == 1 && starts(line, HEADER_PREFIX))
			return sa_tr_fail(t, "a slab_account file, not a trace (read it without --from-trace)");
		return sa_tr_fail(t, "not a trace line: expected 'TASK-PID [CPU] ... TIMESTAMP: EVENT: FIELDS', a '#' comment or 'CPU:N [LOST M EVENTS]'");
	}
	/* EVENT: the word before the ':' before call_site= */
	name = name_end;
	while (name > line && name[-1] != ' ' && name[-1] != '\t')
		name--;
	if (!strncmp(name, "kmem:", 5))
		name += 5;
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if ((size_t)(name_end - name) == strlen(events[i].name) &&
		    !memcmp(name, events[i].name, (size_t)(name_end - name)))
			ev = events[i].ev;
	if (ev == EV_OTHER) {
		t->c[C_OTHER]++;
		return 0;
	}
	t->c[C_EVENTS]++;
	/* TIMESTAMP: the word before EVENT, ending in ':' */
	p = name;
	while (p > line && p[-1] == ' ')
		p--;
	if (p > line && p[-1] == ':') {
		char *te = p - 1, *tsb = te;

		while (tsb > line && tsb[-1] != ' ' && tsb[-1] != '\t')
			tsb--;
		if (!parse_ts(tsb, te, &ts)) {
			if (!t->have_ts || ts < t->first_ts)
				t->first_ts = ts;	/* per-CPU clocks may disagree */
			t->have_ts = 1;
			if (ts > t->last_ts)
				t->last_ts = ts;
		} else if (sa_all_digits(tsb, (size_t)(te - tsb))) {
			t->count_ts = 1;	/* trace_clock=counter or x86-tsc */
		}
	}

	cs += strlen("call_site=");
	pp = strstr(cs, " ptr=");
	if (!pp)
		return sa_tr_fail(t, "no ptr field after call_site");
	csend = pp;
	while (csend > cs && csend[-1] == ' ')
		csend--;
	if (csend == cs)
		return sa_tr_fail(t, "an empty call_site");
	v = pp + 5;
	vlen = strcspn(v, " \t");
	if (vlen && v[0] == '(') {
		if ((vlen == 6 && !strncmp(v, "(null)", 6)) ||
		    (vlen == 5 && !strncmp(v, "(nil)", 5))) {
			ptr = 0;
		} else {
			t->c[C_PTRVAL]++;	/* (____ptrval____): cannot be matched */
			return 0;
		}
	} else if (sa_parse_hex(v, vlen, &ptr)) {
		return sa_tr_fail(t, "ptr '%.*s' is not a pointer", (int)(vlen > 40 ? 40 : vlen), v);
	}
	cname = cache_name(v + vlen, &cnlen);
	if (ev == EV_KFREE || ev == EV_CACHE_FREE)
		return sa_tr_free_ptr(t, ev, ptr, cname, cnlen);
	if (t->o && t->o->ks) {
		const struct sa_kallsyms *ks = t->o->ks;
		size_t cn = (size_t)(csend - cs);
		uint64_t a;

		if ((is_hex_site(cs, cn) && !sa_parse_hex(cs, cn, &a) &&
		     !sa_kallsyms_name(ks, a, resolved, sizeof(resolved))) ||
		    !sa_kallsyms_complete(ks, cs, cn, resolved, sizeof(resolved))) {
			cs = resolved;
			csend = resolved + strlen(resolved);
		}
	}
	if (field_u64(t, v + vlen, "bytes_req=", &req) ||
	    field_u64(t, v + vlen, "bytes_alloc=", &alloc))
		return -1;
	return sa_tr_alloc(t, ev, cs, (size_t)(csend - cs), ptr, alloc, req, ts,
			cname, cnlen);
}

/* ---- reading ---- */

/* The progress shown while a large file is read. */
struct prog {
	uint64_t size;
	struct timespec last;
	const char *name;
};

static int64_t ns_since(const struct timespec *a, const struct timespec *b)
{
	return (int64_t)(b->tv_sec - a->tv_sec) * 1000000000LL +
	       (b->tv_nsec - a->tv_nsec);
}

/* The line reader's progress callback: @done bytes of the file read. */
static void progress(void *arg, uint64_t done)
{
	struct prog *p = arg;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (ns_since(&p->last, &now) < PROGRESS_NS)
		return;
	p->last = now;
	fprintf(stderr, "\rslabacct: reading %s: %3u%%", p->name,
		(unsigned int)(p->size ? done * 100 / p->size : 0));
}

static int run(struct tr *t, struct sa_lines *l, struct sa_file *f)
{
	int k, ret = -1;

	l->max = MAX_LINE;
	while ((k = sa_lines_next(l)) > 0) {
		t->lineno++;
		if (trace_line(t, l->line, l->n))
			goto out;
	}
	if (k < 0) {
		if (l->too_long) {
			t->lineno++;
			sa_tr_fail(t, "a line longer than %zu bytes: not a trace", MAX_LINE);
		} else if (errno == ENOMEM) {
			sa_tr_oom(t);
		} else {
			t->lineno = 0;
			sa_tr_fail(t, "%s", strerror(errno));
		}
		goto out;
	}
	t->lineno = 0;
	if (!t->c[C_EVENTS] && !t->c[C_OTHER] && !t->c[C_LOST_REPORTS] &&
	    !t->trace_cmd) {
		sa_tr_fail(t, "no trace events: empty, or not a trace");
		goto out;
	}
	ret = sa_tr_build_file(t, f);
	if (ret == -1)
		sa_tr_oom(t);
	if (!ret && t->o && t->o->detail && sa_tr_build_detail(t, f, t->o->detail)) {
		sa_detail_free(t->o->detail);
		ret = -2;
	}
	if (ret)
		sa_file_free(f);
out:
	if (l->progress)
		fputs("\r\033[K", stderr);
	sa_tr_free(t);
	return ret ? -1 : 0;
}

int sa_trace_parse_buffer(struct sa_file *f, const char *buf, size_t len,
			  const char *name, const struct sa_trace_opts *o,
			  char **err)
{
	struct tr t = { .name = name, .o = o, .err = err };
	struct sa_lines l = { 0 };
	int ret;

	memset(f, 0, sizeof(*f));
	*err = NULL;
	if (sa_lines_fd(&l, -1, buf, len)) {
		*err = strdup("out of memory");
		return -1;
	}
	ret = run(&t, &l, f);
	sa_lines_free(&l);
	return ret;
}

int sa_trace_fd(struct sa_file *f, int fd, const char *pre, size_t plen,
		    const char *name, const struct sa_trace_opts *o, char **err)
{
	struct tr t = { .name = name, .o = o, .err = err };
	struct prog p = { .name = name };
	struct sa_lines l = { 0 };
	struct stat st;
	int ret;

	memset(f, 0, sizeof(*f));
	*err = NULL;
	if (sa_lines_fd(&l, fd, pre, plen)) {
		*err = strdup("out of memory");
		return -1;
	}
	if (o && o->progress && isatty(STDERR_FILENO) && !fstat(fd, &st) &&
	    S_ISREG(st.st_mode) && st.st_size >= PROGRESS_MIN) {
		p.size = (uint64_t)st.st_size;
		l.progress = progress;
		l.arg = &p;
	}
	ret = run(&t, &l, f);
	sa_lines_free(&l);
	return ret;
}
