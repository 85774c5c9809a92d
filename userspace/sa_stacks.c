// SPDX-License-Identifier: GPL-2.0
/*
 * sa_stacks - parser for /proc/slab_account_stacks (see sa_stacks.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_stacks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sa_base.h"
#include "sa_parse.h"

#define RECORD_HINT " (a record is 'stack ID FRAMES', then FRAMES lines of two spaces and a frame)"
#define FIRST_HINT " (2.x: a record is 'stack ID FRAMES FIRST', FIRST 'pid P tid T comm COMM [cgroup ID]' or 'irq')"
/* The longest name a task has, as the kernel's TASK_COMM_LEN allows. */
#define COMM_MAX 15

struct parser {
	struct sa_stacks *s;
	size_t cap;
	struct sa_where w;
	struct sa_header hdr;
	size_t left;		/* frame lines the current record still needs */
};

#define fail(p, ...) sa_fail(&(p)->w, __VA_ARGS__)

/* Is the token @t (@len bytes) the word @w? */
static int word_is(const char *t, size_t len, const char *w)
{
	return len == strlen(w) && !strncmp(t, w, len);
}

/*
 * (2.x) The next token of *@q, which must be @w, then a decimal number
 * into *@v (when @v is not NULL) or a word into *@word.  0 or -1.
 */
static int named(const char **q, const char *w, uint64_t *v, const char **word, size_t *wlen)
{
	const char *t;
	size_t len = sa_token(q, &t);

	if (!word_is(t, len, w))
		return -1;
	len = sa_token(q, &t);
	if (!len)
		return -1;
	if (v)
		return sa_parse_u64(t, len, v) ? -1 : 0;
	*word = t;
	*wlen = len;
	return 0;
}

/*
 * (2.x) A record's FIRST, the rest of its line after N, into @f; in 2.0
 * nothing after it.
 */
static int parse_first(struct parser *p, uint64_t id, const char *q, struct sa_stack_first *f)
{
	const char *t, *comm = NULL, *save;
	size_t len, clen = 0;

	len = sa_token(&q, &t);
	if (word_is(t, len, "irq")) {
		f->have = f->irq = 1;
		goto end;
	}
	q = t;
	if (named(&q, "pid", &f->pid, NULL, NULL) || named(&q, "tid", &f->tid, NULL, NULL) ||
	    named(&q, "comm", NULL, &comm, &clen))
		return fail(p, "stack %llu: no first allocation's context" FIRST_HINT,
			    (unsigned long long)id);
	if (f->pid > UINT32_MAX || f->tid > UINT32_MAX)
		return fail(p, "stack %llu: a pid or tid above %lu" FIRST_HINT,
			    (unsigned long long)id, (unsigned long)UINT32_MAX);
	if (clen > COMM_MAX)
		return fail(p, "stack %llu: a comm longer than %d bytes" FIRST_HINT,
			    (unsigned long long)id, COMM_MAX);
	save = q;
	len = sa_token(&q, &t);
	if (word_is(t, len, "cgroup")) {
		q = save;
		if (named(&q, "cgroup", &f->cgroup, NULL, NULL))
			return fail(p, "stack %llu: a cgroup id is a decimal number" FIRST_HINT,
				    (unsigned long long)id);
		f->has_cgroup = 1;
	} else {
		q = save;
	}
	f->comm = sa_dup_range(comm, clen);
	if (!f->comm)
		return fail(p, "out of memory");
	f->have = 1;
end:
	if (!p->s->minor && q[strspn(q, " \t")])
		return fail(p, "stack %llu: more than its first allocation's context" FIRST_HINT,
			    (unsigned long long)id);
	return 0;
}

/* `stack ID N` (2.x: `stack ID N FIRST`): a new record. */
static int parse_record(struct parser *p, const char *line)
{
	struct sa_stacks *s = p->s;
	const char *t, *q = line + strlen("stack ");
	uint64_t id, n;
	size_t len;

	len = sa_token(&q, &t);
	if (!len || sa_parse_u64(t, len, &id) || !id)
		return fail(p, "a stack id is a decimal number, 1 or more" RECORD_HINT);
	len = sa_token(&q, &t);
	if (!len || sa_parse_u64(t, len, &n) || !n || n > 1024)
		return fail(p, "stack %llu: its number of frames is 1 to 1024" RECORD_HINT,
			    (unsigned long long)id);
	if (s->major == 1 && !s->minor && q[strspn(q, " \t")])
		return fail(p, "stack %llu: more than an id and a number of frames" RECORD_HINT,
			    (unsigned long long)id);
	if (s->n && id <= s->v[s->n - 1].id)
		return fail(p, "stack %llu after stack %llu (records come in id order, each id once)",
			    (unsigned long long)id, (unsigned long long)s->v[s->n - 1].id);
	if (sa_grow(&s->v, &p->cap, s->n + 1, sizeof(*s->v)))
		return fail(p, "out of memory");
	memset(&s->v[s->n], 0, sizeof(s->v[s->n]));
	s->v[s->n].id = id;
	s->v[s->n].frames = calloc((size_t)n, sizeof(char *));
	if (!s->v[s->n].frames)
		return fail(p, "out of memory");
	s->n++;
	if (s->major >= 2 && parse_first(p, id, q, &s->v[s->n - 1].first))
		return -1;
	p->left = (size_t)n;
	return 0;
}

/* `  FRAME`: the current record's next frame. */
static int parse_frame(struct parser *p, const char *line)
{
	struct sa_stack *st = &p->s->v[p->s->n - 1];
	const char *f = line + 2;
	size_t n = strlen(f);

	while (n && (f[n - 1] == ' ' || f[n - 1] == '\t'))
		n--;
	if (!n || f[0] == ' ' || f[0] == '\t')
		return fail(p, "stack %llu: an empty frame", (unsigned long long)st->id);
	st->frames[st->n] = sa_dup_range(f, n);
	if (!st->frames[st->n])
		return fail(p, "out of memory");
	st->n++;
	p->left--;
	return 0;
}

static int parse_line(struct parser *p, const char *line, int *legend)
{
	const char *key, *val;

	if (p->left) {
		if (strncmp(line, "  ", 2))
			return fail(p, "stack %llu: %zu frame lines missing" RECORD_HINT,
				    (unsigned long long)p->s->v[p->s->n - 1].id, p->left);
		return parse_frame(p, line);
	}
	if (!*legend) {
		if (line[0] == '#') {
			*legend = 1;
			return 0;
		}
		return sa_header_line(&p->hdr, &p->w, line, "", "the '#' legend line", &key, &val);
	}
	if (strncmp(line, "stack ", 6) == 0)
		return parse_record(p, line);
	if (strncmp(line, "  ", 2) == 0)
		return fail(p, "a frame line after its record's frames" RECORD_HINT);
	return fail(p, "expected 'stack ID FRAMES'" RECORD_HINT);
}

int sa_stacks_parse_buffer(struct sa_stacks *s, const char *buf, size_t len, const char *name,
			   char **err)
{
	struct sa_lines l = { .buf = buf, .len = len };
	struct parser p = { .s = s, .w = { NULL, 0, err } };
	int r, legend = 0, ret = -1;
	char *msg;

	memset(s, 0, sizeof(*s));
	*err = NULL;
	s->name = strdup(name);
	if (!s->name) {
		*err = strdup("out of memory");
		return -1;
	}
	p.w.name = s->name;
	r = sa_lines_next(&l);
	p.w.lineno = l.lineno;
	if (r <= 0) {
		fail(&p, "empty file: expected the '" SA_STACKS_HEADER_PREFIX "2.x' header");
		goto out;
	}
	msg = sa_parse_versions(l.line, l.n, SA_STACKS_HEADER_PREFIX, "slab_account stacks",
				"stacks format", SA_STACKS_MAJOR_MIN, SA_STACKS_MAJOR, &s->major,
				&s->minor);
	if (msg) {
		fail(&p, "%s", msg);
		free(msg);
		goto out;
	}
	while ((r = sa_lines_next(&l)) > 0) {
		p.w.lineno = l.lineno;
		if (strlen(l.line) != l.n) {
			fail(&p, "NUL byte in line (not a text file?)");
			goto out;
		}
		if (!l.newline) {
			fail(&p, "line not terminated by a newline (truncated file?)");
			goto out;
		}
		if (parse_line(&p, l.line, &legend))
			goto out;
	}
	p.w.lineno = l.lineno + 1;
	if (r < 0)
		fail(&p, "read error: %s", strerror(errno));
	else if (p.left)
		fail(&p, "stack %llu: %zu frame lines missing (truncated file?)",
		     (unsigned long long)s->v[s->n - 1].id, p.left);
	else if (!legend)
		fail(&p, "unexpected end of file before the '#' legend line (truncated file?)");
	else
		ret = 0;
out:
	sa_lines_free(&l);
	sa_header_free(&p.hdr);
	if (ret)
		sa_stacks_free(s);
	return ret;
}

const struct sa_stack *sa_stacks_get(const struct sa_stacks *s, uint64_t id)
{
	size_t lo = 0, hi = s ? s->n : 0;

	while (lo < hi) {	/* the records are in id order */
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].id == id)
			return &s->v[mid];
		if (s->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void sa_stacks_free(struct sa_stacks *s)
{
	size_t i, k;

	for (i = 0; i < s->n; i++) {
		for (k = 0; k < s->v[i].n; k++)
			free(s->v[i].frames[k]);
		free(s->v[i].frames);
		free(s->v[i].first.comm);
	}
	free(s->v);
	free(s->name);
	memset(s, 0, sizeof(*s));
}
