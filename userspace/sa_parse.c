// SPDX-License-Identifier: GPL-2.0
/*
 * sa_parse - parser for /proc/slab_account, format version 1.x.
 * See sa_parse.h and docs/format.md (the rules of the file for parsers).
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sa_caller.h"

#define HEADER_PREFIX SA_HEADER_PREFIX
#define LEGEND_HINT "total slack req live live_req objs peak allocs/frees type caller"

const char *const sa_field_names[SA_NFIELDS] = {
	[SA_TOTAL] = "total",
	[SA_SLACK] = "slack",
	[SA_REQ] = "req",
	[SA_LIVE] = "live",
	[SA_LIVE_REQ] = "live_req",
	[SA_OBJS] = "objs",
	[SA_PEAK] = "peak",
	[SA_ALLOCS] = "allocs",
	[SA_FREES] = "frees",
};

/* The numeric summary keys of format 1.0 (their values are validated). */
static const char *const known_numeric_keys[] = {
	"total bytes allocated", "total bytes requested",
	"slack bytes allocated", "current bytes allocated",
	"current bytes requested", "current objects", "number of allocs",
	"number of frees", "number of callers", "failed allocs",
	"unknown frees", "missed frees", "dropped objects", "dropped sites",
	"tracked objects", "object capacity", "call sites",
	"call site capacity", "table memory",
	/* 1.3 */
	"module loads", "module loads lost", "module unloads", "unwrap helpers",
	"hidden callers",
	/* 1.4 */
	"counter memory", "counter cpus", "advised max_objects",
	/* 1.5 */
	"peak bound",
	/* 1.6 */
	"captured sites", "capture rules", "context rows", "context rows dropped",
	"stack capacity", "stacks", "stacks dropped", "stack depth", "stack memory",
};

#define RELOADED "reloaded "	/* (1.3) `reloaded MODULE: N` */

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* ---- the parser ---- */

struct parser {
	struct sa_file *f;
	size_t sum_cap, row_cap;
	struct sa_where w;	/* name, line, message */
	struct sa_header hdr;	/* the summary's keys, each once */
};

#define fail(p, ...) sa_fail(&(p)->w, __VA_ARGS__)
#define bad_number(p, what, s, len) sa_fail_number(&(p)->w, what, s, len)

/* Does @line (of @n bytes) start as the header does? */
static int is_header(const char *line, size_t n)
{
	size_t plen = strlen(HEADER_PREFIX);

	return n >= plen && memcmp(line, HEADER_PREFIX, plen) == 0;
}

/* Is @line a header cut short (a truncated file)? */
static int is_header_start(const char *line, size_t n)
{
	return n < strlen(HEADER_PREFIX) && memcmp(line, HEADER_PREFIX, n) == 0;
}

char *sa_parse_version(const char *line, size_t n, const char *prefix,
		       const char *kind, const char *format_name, uint64_t major,
		       uint64_t *maj, uint64_t *min)
{
	return sa_parse_versions(line, n, prefix, kind, format_name, major, major, maj, min);
}

char *sa_parse_versions(const char *line, size_t n, const char *prefix,
			const char *kind, const char *format_name, uint64_t lo,
			uint64_t hi, uint64_t *maj, uint64_t *min)
{
	size_t plen = strlen(prefix);
	const char *ver = line + plen, *dot;
	char q[SA_QUOTE_MAX + 4];

	if (n < plen || memcmp(line, prefix, plen)) {
		sa_quote(q, line, n);
		return sa_format("not a %s file: expected '%s%llu.x', got '%s'", kind,
			      prefix, (unsigned long long)hi, q);
	}
	dot = memchr(ver, '.', n - plen);
	if (!dot || sa_parse_u64(ver, (size_t)(dot - ver), maj) ||
	    sa_parse_u64(dot + 1, (size_t)(line + n - dot - 1), min)) {
		sa_quote(q, ver, n - plen);
		return sa_format("malformed format version '%s' (expected MAJOR.MINOR)", q);
	}
	if (*maj < lo || *maj > hi) {
		sa_quote(q, ver, n - plen);
		if (lo == hi)
			return sa_format("unsupported %s version %s (this reader understands %llu.x)",
				      format_name, q, (unsigned long long)hi);
		return sa_format("unsupported %s version %s (this reader understands %llu.x to %llu.x)",
			      format_name, q, (unsigned long long)lo, (unsigned long long)hi);
	}
	return NULL;
}

static int parse_header(struct parser *p, const char *line, size_t n)
{
	char *msg = sa_parse_version(line, n, HEADER_PREFIX, "slab_account",
				     "format", SA_FORMAT_MAJOR, &p->f->major,
				     &p->f->minor);
	int ret = msg ? fail(p, "%s", msg) : 0;

	free(msg);
	return ret;
}

static int is_known_numeric(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(known_numeric_keys) / sizeof(known_numeric_keys[0]); i++)
		if (strcmp(key, known_numeric_keys[i]) == 0)
			return 1;
	return 0;
}

static int parse_summary(struct parser *p, const char *line)
{
	struct sa_file *f = p->f;
	struct sa_summary *e;
	const char *key, *val;
	char q[SA_QUOTE_MAX + 4];
	size_t klen;

	if (!sa_key_value(line, &klen, &val) && isdigit((unsigned char)line[strspn(line, " \t")]))
		return fail(p, "a call-site row before the '#' legend line (missing legend?)");
	if (sa_header_line(&p->hdr, &p->w, line, "summary ", "the '#' legend line", &key, &val))
		return -1;
	if (sa_grow(&f->summary, &p->sum_cap, f->nsummary + 1, sizeof(*f->summary)))
		return fail(p, "out of memory");
	e = &f->summary[f->nsummary++];
	e->key = strdup(key);
	e->value = strdup(val);
	if (!e->key || !e->value)
		return fail(p, "out of memory");
	e->is_num = sa_parse_u64(val, strlen(val), &e->num) == 0;
	if (!e->is_num)
		e->num = 0;
	if (strcmp(key, "split") == 0) {	/* (1.6) */
		if (strcmp(val, "none") && strcmp(val, "cgroup") && strcmp(val, "node") &&
		    strcmp(val, "task")) {
			sa_quote(q, val, strlen(val));
			return fail(p, "split '%s' is not one of none, cgroup, node, task", q);
		}
	} else if (strcmp(key, "state") == 0) {
		if (strcmp(val, "active") && strcmp(val, "stopped")) {
			sa_quote(q, val, strlen(val));
			return fail(p, "state '%s' is neither 'active' nor 'stopped'", q);
		}
	} else if (!e->is_num && (is_known_numeric(key) ||
				  strncmp(key, RELOADED, strlen(RELOADED)) == 0)) {
		char what[64];

		snprintf(what, sizeof(what), "value of '%s'", key);
		return bad_number(p, what, val, strlen(val));
	} else if (strncmp(key, RELOADED, strlen(RELOADED)) == 0 && e->num < 2) {
		/* A live load that is not the module's first: 2 or more. */
		sa_quote(q, key, strlen(key));
		return fail(p, "'%s' is %llu: a load number after the first (2 or more)", q,
			    (unsigned long long)e->num);
	}
	return 0;
}

int sa_type_parse(const char *s, enum sa_type *type, const char **cache)
{
	*cache = NULL;
	if (strcmp(s, "kmalloc") == 0) {
		*type = SA_TYPE_KMALLOC;
	} else if (strcmp(s, "mixed") == 0) {
		*type = SA_TYPE_MIXED;
	} else if (strcmp(s, "cache") == 0) {
		*type = SA_TYPE_CACHE;
	} else if (strncmp(s, "cache:", 6) == 0 && s[6]) {
		*type = SA_TYPE_CACHE;
		*cache = s + 6;
	} else {
		return -1;
	}
	return 0;
}

int sa_type_caller(struct sa_where *w, const char *s, const char *what, const char *hint,
		   char **type_str, enum sa_type *type, const char **cache, char **caller)
{
	char q[SA_QUOTE_MAX + 4];
	const char *t, *end;
	size_t n = sa_token(&s, &t);

	if (!n)
		return sa_fail(w, "%s has no 'type' column%s", what, hint);
	*type_str = sa_dup_range(t, n);
	if (!*type_str)
		return sa_fail(w, "out of memory");
	if (sa_type_parse(*type_str, type, cache)) {
		sa_quote(q, t, n);
		return sa_fail(w, "unknown type '%s' (expected kmalloc, cache, cache:NAME or mixed)", q);
	}
	s += strspn(s, " \t");
	end = s + strlen(s);
	while (end > s && is_blank(end[-1]))
		end--;
	if (end == s)
		return sa_fail(w, "%s has no 'caller' column%s", what, hint);
	*caller = sa_dup_range(s, (size_t)(end - s));
	return *caller ? 0 : sa_fail(w, "out of memory");
}

/* The rules every row keeps (docs/format.md, "What holds between the numbers"). */
static int check_row(struct parser *p, const struct sa_row *r)
{
	unsigned long long total = r->v[SA_TOTAL], req = r->v[SA_REQ];

	if (req > total)
		return fail(p, "req %llu is more than total %llu (a row has req <= total)",
			    req, total);
	if (r->v[SA_SLACK] != total - req)
		return fail(p, "slack %llu is not total - req (%llu - %llu = %llu)",
			    (unsigned long long)r->v[SA_SLACK], total, req, total - req);
	if (r->v[SA_LIVE_REQ] > r->v[SA_LIVE])
		return fail(p, "live_req %llu is more than live %llu (a row has live_req <= live)",
			    (unsigned long long)r->v[SA_LIVE_REQ],
			    (unsigned long long)r->v[SA_LIVE]);
	return 0;
}

int sa_row_key(struct sa_row *r, const struct sa_file *f)
{
	size_t i, plen = strlen(RELOADED);
	struct sa_caller c;

	sa_caller_split(r->caller, &c);
	r->key_len = c.klen;
	r->retired = c.unloaded != 0;
	r->load = c.unloaded;
	if (c.bad_unloaded || (c.unloaded && !c.mod))
		return -1;
	if (!c.mod || c.unloaded)
		return 0;
	r->load = 1;
	for (i = 0; i < f->nsummary; i++) {
		const struct sa_summary *e = &f->summary[i];

		if (!strncmp(e->key, RELOADED, plen) && strlen(e->key) == plen + c.mlen &&
		    !memcmp(e->key + plen, c.mod, c.mlen))
			r->load = e->num;
	}
	return 0;
}

/* (1.3) The row's key and load; a retired row's caller ends in " [MODULE] unloaded#N". */
static int row_load(struct parser *p, struct sa_row *r)
{
	char q[SA_QUOTE_MAX + 4];

	if (!sa_row_key(r, p->f))
		return 0;
	sa_quote(q, r->caller, strlen(r->caller));
	return fail(p, "caller '%s': a retired call site ends in ' [MODULE] unloaded#N' (N >= 1)", q);
}

/*
 * (1.6) Take a child row's context off its caller into r->ctx and r->cx;
 * the split context must be the header's `split` (@irq: cgroup or task).
 */
static int row_ctx(struct parser *p, struct sa_row *r)
{
	const struct sa_summary *split = sa_summary_get(p->f, "split");
	size_t off = sa_ctx_find(r->caller);
	char q[SA_QUOTE_MAX + 4];
	const char *why, *want;

	if (p->f->minor < 6 || !r->caller[off])
		return 0;
	if (!off)
		return fail(p, "a caller that is only a context");
	r->ctx = strdup(r->caller + off + 1);
	if (!r->ctx)
		return fail(p, "out of memory");
	r->caller[off] = '\0';
	p->f->nctx++;
	if (sa_ctx_parse(r->ctx, &r->cx, &why)) {
		sa_quote(q, r->ctx, strlen(r->ctx));
		return fail(p, "context '%s': %s", q, why);
	}
	if (r->cx.kind == SA_CTX_NONE)
		return 0;
	want = sa_ctx_kind_name(r->cx.kind);
	if (split && (r->cx.kind == SA_CTX_IRQ ? !strcmp(split->value, "cgroup") ||
			  !strcmp(split->value, "task") : !strcmp(split->value, want)))
		return 0;
	sa_quote(q, r->ctx, strlen(r->ctx));
	return fail(p, "context '%s' in a file whose split is '%s'", q,
		    split ? split->value : "(not given)");
}

static const char *const columns[] = {
	"total", "slack", "req", "live", "live_req", "objs", "peak", "allocs/frees",
};

static int parse_row(struct parser *p, const char *line)
{
	struct sa_file *f = p->f;
	const char *s = line, *t, *slash;
	char q[SA_QUOTE_MAX + 4];
	struct sa_row *r;
	size_t n, col;

	if (sa_grow(&f->rows, &p->row_cap, f->nrows + 1, sizeof(*f->rows)))
		return fail(p, "out of memory");
	r = &f->rows[f->nrows++];
	memset(r, 0, sizeof(*r));
	r->line = p->w.lineno;

	for (col = 0; col <= SA_PEAK; col++) {
		n = sa_token(&s, &t);
		if (!n)
			goto missing;
		if (sa_parse_u64(t, n, &r->v[col]))
			return bad_number(p, sa_field_names[col], t, n);
	}
	n = sa_token(&s, &t);
	if (!n)
		goto missing;
	slash = memchr(t, '/', n);
	if (!slash) {
		sa_quote(q, t, n);
		return fail(p, "allocs/frees '%s' is not written N/M", q);
	}
	if (sa_parse_u64(t, (size_t)(slash - t), &r->v[SA_ALLOCS]))
		return bad_number(p, "allocs", t, (size_t)(slash - t));
	if (sa_parse_u64(slash + 1, (size_t)(t + n - slash - 1), &r->v[SA_FREES]))
		return bad_number(p, "frees", slash + 1, (size_t)(t + n - slash - 1));

	if (sa_type_caller(&p->w, s, "row", " (a row is '" LEGEND_HINT "')", &r->type_str,
			   &r->type, &r->cache, &r->caller))
		return -1;
	return row_ctx(p, r) || check_row(p, r) || row_load(p, r);
missing:
	return fail(p, "row has no '%s' column (a row is '" LEGEND_HINT "')",
		    columns[col]);
}

static int parse_lines(struct sa_file *f, struct sa_lines *s, const char *name,
		       char **err)
{
	enum { HEADER, SUMMARY, ROWS } section = HEADER;
	struct parser p = { .f = f, .w = { NULL, 0, err } };
	int r, ret = -1;

	memset(f, 0, sizeof(*f));
	*err = NULL;
	f->name = strdup(name);
	if (!f->name) {
		*err = strdup("out of memory");
		return -1;
	}
	p.w.name = f->name;
	while ((r = sa_lines_next(s)) > 0) {
		const char *line = s->line;

		p.w.lineno = s->lineno;
		if (section == HEADER && !is_header(line, s->n) &&
		    !is_header_start(line, s->n) && parse_header(&p, line, s->n))
			goto out;	/* not our file: say so, whatever else is wrong */
		if (strlen(line) != s->n) {
			fail(&p, "NUL byte in line (not a text file?)");
			goto out;
		}
		if (!s->newline) {
			fail(&p, "line not terminated by a newline (truncated file?)");
			goto out;
		}
		if (section == HEADER) {
			if (parse_header(&p, line, s->n))
				goto out;
			section = SUMMARY;
			continue;
		}
		if (line[strspn(line, " \t")] == '\0')
			continue;	/* blank line */
		if (line[0] == '#') {
			if (section == ROWS) {
				fail(&p, "a second '#' legend line");
				goto out;
			}
			section = ROWS;
		} else if (section == SUMMARY ? parse_summary(&p, line) :
			   parse_row(&p, line)) {
			goto out;
		}
	}
	if (r < 0) {
		fail(&p, "read error: %s", strerror(errno));
		goto out;
	}
	p.w.lineno++;
	if (section == HEADER)
		fail(&p, "empty file: expected the '" HEADER_PREFIX "1.x' header");
	else if (section == SUMMARY)
		fail(&p, "unexpected end of file before the '#' legend line (truncated file?)");
	else
		ret = 0;
out:
	sa_lines_free(s);
	sa_header_free(&p.hdr);
	if (ret)
		sa_file_free(f);
	return ret;
}

int sa_parse_stream(struct sa_file *f, FILE *fp, const char *name, char **err)
{
	struct sa_lines s = { .fp = fp };

	return parse_lines(f, &s, name, err);
}

int sa_parse_buffer(struct sa_file *f, const char *buf, size_t len,
		    const char *name, char **err)
{
	struct sa_lines s = { .buf = buf, .len = len };

	return parse_lines(f, &s, name, err);
}

void sa_file_free(struct sa_file *f)
{
	size_t i;

	for (i = 0; i < f->nsummary; i++) {
		free(f->summary[i].key);
		free(f->summary[i].value);
	}
	for (i = 0; i < f->nrows; i++) {
		free(f->rows[i].type_str);
		free(f->rows[i].caller);
		free(f->rows[i].ctx);
	}
	free(f->summary);
	free(f->rows);
	free(f->name);
	memset(f, 0, sizeof(*f));
}

const struct sa_summary *sa_summary_get(const struct sa_file *f,
					const char *key)
{
	size_t i;

	for (i = 0; i < f->nsummary; i++)
		if (strcmp(f->summary[i].key, key) == 0)
			return &f->summary[i];
	return NULL;
}

size_t sa_check_sums(const struct sa_file *f, char *buf, size_t n)
{
	static const struct {
		const char *key;
		int field;	/* -1: the number of rows, -2: the child rows */
	} sums[] = {
		/*
		 * `context rows` counts the table's child rows, those left
		 * empty by a reset too, which are not printed: it bounds the
		 * child rows from above (a file read right after a reset has
		 * fewer).
		 */
		{ "number of callers", -1 },
		{ "context rows", -2 },
		{ "total bytes allocated", SA_TOTAL },
		{ "total bytes requested", SA_REQ },
		{ "slack bytes allocated", SA_SLACK },
		{ "current bytes allocated", SA_LIVE },
		{ "current bytes requested", SA_LIVE_REQ },
		{ "current objects", SA_OBJS },
		{ "number of allocs", SA_ALLOCS },
		{ "number of frees", SA_FREES },
	};
	size_t i, k, bad = 0, used = 0;

	if (n)
		buf[0] = '\0';
	for (i = 0; i < sizeof(sums) / sizeof(sums[0]); i++) {
		const struct sa_summary *e = sa_summary_get(f, sums[i].key);
		uint64_t sum = 0;
		int w;

		if (!e || !e->is_num)
			continue;
		if (sums[i].field < 0)
			sum = sums[i].field == -1 ? f->nrows : f->nctx;
		else
			for (k = 0; k < f->nrows; k++)
				sum += f->rows[k].v[sums[i].field];	/* wraps as the module's would not */
		if (sum == e->num || (sums[i].field == -2 && sum < e->num))
			continue;
		w = snprintf(buf + used, n > used ? n - used : 0, "%s%s %llu, %s %llu",
			     bad ? "; " : "", sums[i].key, (unsigned long long)e->num,
			     sums[i].field == -1 ? "rows" : sums[i].field == -2 ? "child rows" :
			     "the rows' sum",
			     (unsigned long long)sum);
		if (w > 0)
			used += (size_t)w;
		bad++;
	}
	return bad;
}
