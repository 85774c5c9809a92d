// SPDX-License-Identifier: GPL-2.0
/*
 * sa_unloads - parser for /proc/slab_account_unloads, format version 1.x.
 * See sa_unloads.h and docs/format.md ("The unloads file").
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_unloads.h"

#include <stdlib.h>
#include <string.h>

#include "sa_caller.h"

#define HEADER_PREFIX SA_UNLOADS_HEADER_PREFIX
#define UNLOAD_LEGEND "when module load objs bytes req sites"
#define SITE_LEGEND "objs bytes req oldest type caller"

/* The keys of format 1.0: all required. */
enum { K_NOW, K_UNLOADS, K_KEPT, NKEYS };
static const char *const key_names[NKEYS] = { "now", "unloads", "kept" };

struct uparser {
	struct sa_unloads *u;
	size_t cap, site_cap;
	struct sa_where w;	/* name, line, message */
	struct sa_header hdr;	/* the keys read, each once */
	int seen[NKEYS];
	int legends;
};

#define fail(p, ...) sa_fail(&(p)->w, __VA_ARGS__)
#define bad_number(p, what, s, len) sa_fail_number(&(p)->w, what, s, len)

static int parse_key(struct uparser *p, const char *line)
{
	uint64_t *v[NKEYS] = { &p->u->now, &p->u->unloads, &p->u->kept };
	const char *key, *val;
	size_t k;

	if (sa_header_line(&p->hdr, &p->w, line, "", "the '#' legend lines", &key, &val))
		return -1;
	for (k = 0; k < NKEYS; k++)
		if (strcmp(key, key_names[k]) == 0)
			break;
	if (k == NKEYS)
		return 0;	/* a key of a later minor version */
	p->seen[k] = 1;
	if (sa_parse_u64(val, strlen(val), v[k]))
		return bad_number(p, key_names[k], val, strlen(val));
	return 0;
}

/* The next @n numbers of *@s into @v, named @names; 0 or -1. */
static int numbers(struct uparser *p, const char **s, uint64_t *v, size_t n,
		   const char *const *names, const char *what, const char *legend)
{
	const char *t;
	size_t i, len;

	for (i = 0; i < n; i++) {
		len = sa_token(s, &t);
		if (!len)
			return fail(p, "%s has no '%s' column (it is '%s')", what, names[i], legend);
		if (sa_parse_u64(t, len, &v[i]))
			return bad_number(p, names[i], t, len);
	}
	return 0;
}

static int bytes_req(struct uparser *p, uint64_t bytes, uint64_t req)
{
	if (req > bytes)
		return fail(p, "req %llu is more than bytes %llu (bytes >= req)",
			    (unsigned long long)req, (unsigned long long)bytes);
	return 0;
}

/* The unload just finished: its site lines against its numbers. */
static int check_unload(struct uparser *p, const struct sa_unload *e)
{
	uint64_t want = e->sites < SA_UNLOAD_SITES ? e->sites : SA_UNLOAD_SITES;
	uint64_t sum[3] = { 0, 0, 0 }, tot[3] = { e->objs, e->bytes, e->req };
	static const char *const what[3] = { "objs", "bytes", "req" };
	size_t i, k;

	if (e->nsite != want)
		return fail(p, "the unload of line %lu has %zu site lines, not %llu (min(sites, %d))",
			    e->line, e->nsite, (unsigned long long)want, SA_UNLOAD_SITES);
	for (i = 0; i < e->nsite; i++) {
		const uint64_t v[3] = { e->site[i].objs, e->site[i].bytes, e->site[i].req };

		for (k = 0; k < 3; k++)
			if (sa_add_u64(&sum[k], v[k]))
				sum[k] = UINT64_MAX;
	}
	for (k = 0; k < 3; k++) {
		if (sum[k] > tot[k] || (e->sites <= SA_UNLOAD_SITES && sum[k] != tot[k]))
			return fail(p, "the site lines of the unload of line %lu have %llu %s, %s %llu",
				    e->line, (unsigned long long)sum[k], what[k],
				    e->sites <= SA_UNLOAD_SITES ? "not its" : "more than its",
				    (unsigned long long)tot[k]);
	}
	return 0;
}

static int parse_unload(struct uparser *p, const char *line)
{
	static const char *const names[] = { "when", "module", "load", "objs", "bytes", "req", "sites" };
	struct sa_unloads *u = p->u;
	const char *s = line, *t;
	uint64_t v[5];
	struct sa_unload *e;
	size_t n, i;

	if (u->n && check_unload(p, &u->u[u->n - 1]))
		return -1;
	if (sa_grow(&u->u, &p->cap, u->n + 1, sizeof(*u->u)))
		return fail(p, "out of memory");
	e = &u->u[u->n++];
	memset(e, 0, sizeof(*e));
	p->site_cap = 0;
	e->line = p->w.lineno;
	if (numbers(p, &s, &e->when, 1, names, "an unload line", UNLOAD_LEGEND))
		return -1;
	n = sa_token(&s, &t);
	if (!n)
		return fail(p, "an unload line has no 'module' column (it is '" UNLOAD_LEGEND "')");
	e->module = sa_dup_range(t, n);
	if (!e->module)
		return fail(p, "out of memory");
	if (numbers(p, &s, v, 5, names + 2, "an unload line", UNLOAD_LEGEND))
		return -1;
	if (*(s + strspn(s, " \t")))
		return fail(p, "an unload line has more than 7 columns ('" UNLOAD_LEGEND "')");
	e->load = v[0];
	e->objs = v[1];
	e->bytes = v[2];
	e->req = v[3];
	e->sites = v[4];
	if (!e->load)
		return fail(p, "load 0: a module's loads count from 1");
	if (e->when > u->now)
		return fail(p, "when %llu is after now %llu", (unsigned long long)e->when,
			    (unsigned long long)u->now);
	if (u->n > 1 && e->when < e[-1].when)
		return fail(p, "when %llu is before the previous unload's %llu (unloads come in their order)",
			    (unsigned long long)e->when, (unsigned long long)e[-1].when);
	for (i = 0; i + 1 < u->n; i++)
		if (!strcmp(u->u[i].module, e->module) && u->u[i].load >= e->load)
			return fail(p, "%s's load %llu unloaded after its load %llu (line %lu): a module's loads only increase",
				    e->module, (unsigned long long)e->load,
				    (unsigned long long)u->u[i].load, u->u[i].line);
	if (!e->objs && (e->bytes || e->sites))
		return fail(p, "objs is 0 but bytes or sites is not");
	return bytes_req(p, e->bytes, e->req);
}

static int parse_site(struct uparser *p, const char *line)
{
	static const char *const names[] = { "objs", "bytes", "req", "oldest" };
	struct sa_unload *e = &p->u->u[p->u->n - 1];
	const char *s = line;
	struct sa_caller c;
	struct sa_usite *x;
	uint64_t v[4];

	if (e->nsite == SA_UNLOAD_SITES || e->nsite == e->sites)
		return fail(p, "one site line more than the unload of line %lu has (sites %llu, at most %d lines)",
			    e->line, (unsigned long long)e->sites, SA_UNLOAD_SITES);
	if (sa_grow(&e->site, &p->site_cap, e->nsite + 1, sizeof(*e->site)))
		return fail(p, "out of memory");
	x = &e->site[e->nsite++];
	memset(x, 0, sizeof(*x));
	x->site.line = p->w.lineno;
	if (numbers(p, &s, v, 4, names, "a site line", SITE_LEGEND))
		return -1;
	x->objs = v[0];
	x->bytes = v[1];
	x->req = v[2];
	x->oldest = v[3];
	if (sa_type_caller(&p->w, s, "a site line", " (it is '" SITE_LEGEND "')", &x->site.type_str,
			   &x->site.type, &x->site.cache, &x->site.caller))
		return -1;
	if (!x->objs)
		return fail(p, "a site line of 0 objects (the lines are sites with live objects)");
	if (x->oldest > e->when)
		return fail(p, "oldest %llu is more than the unload's when %llu",
			    (unsigned long long)x->oldest, (unsigned long long)e->when);
	sa_caller_split(x->site.caller, &c);
	if (!c.unloaded || !c.mod)
		return fail(p, "the caller does not end in ' [%s] unloaded#%llu' (the unload's module and load)",
			    e->module, (unsigned long long)e->load);
	if (c.mlen != strlen(e->module) || memcmp(c.mod, e->module, c.mlen) || c.unloaded != e->load)
		return fail(p, "the caller ends in ' [%.*s] unloaded#%llu', not ' [%s] unloaded#%llu' (the unload's module and load)",
			    (int)c.mlen, c.mod, (unsigned long long)c.unloaded, e->module,
			    (unsigned long long)e->load);
	return bytes_req(p, x->bytes, x->req);
}

/* A line after the header: a key, a legend, an unload or a site. */
static int parse_line(struct uparser *p, const char *line)
{
	size_t k;

	if (line[0] == '#') {
		if (p->legends == 2)
			return fail(p, "a third '#' legend line");
		for (k = 0; k < NKEYS; k++)
			if (!p->seen[k])
				return fail(p, "no '%s' line before the legend", key_names[k]);
		p->legends++;
		return 0;
	}
	if (p->legends < 2)
		return p->legends ? fail(p, "expected the second '#' legend line ('#  " SITE_LEGEND "')") :
				    parse_key(p, line);
	if (line[0] != ' ')
		return parse_unload(p, line);
	if (line[1] != ' ' || line[2] == ' ' || line[2] == '\t')
		return fail(p, "a site line starts with two blanks, an unload line with none");
	if (!p->u->n)
		return fail(p, "a site line before the first unload line");
	return parse_site(p, line + 2);
}

int sa_unloads_parse_buffer(struct sa_unloads *u, const char *buf, size_t len,
			    const char *name, char **err)
{
	struct uparser p = { .u = u, .w = { NULL, 0, err } };
	struct sa_lines l = { .buf = buf, .len = len };
	size_t plen = strlen(HEADER_PREFIX);
	int r, ret = -1;
	char *msg;

	memset(u, 0, sizeof(*u));
	*err = NULL;
	u->name = strdup(name);
	if (!u->name) {
		*err = strdup("out of memory");
		return -1;
	}
	p.w.name = u->name;
	while ((r = sa_lines_next(&l)) > 0) {
		p.w.lineno = l.lineno;
		if (l.lineno == 1 && (l.newline || l.n >= plen || memcmp(l.line, HEADER_PREFIX, l.n))) {
			/* the header first: what the file is not, whatever else is wrong */
			msg = sa_parse_version(l.line, l.n, HEADER_PREFIX, "slab_account unloads",
					       "unloads format", SA_UNLOADS_MAJOR, &u->major,
					       &u->minor);
			if (msg) {
				fail(&p, "%s", msg);
				free(msg);
				goto out;
			}
		}
		if (strlen(l.line) != l.n) {
			fail(&p, "NUL byte in line (not a text file?)");
			goto out;
		}
		if (!l.newline) {
			fail(&p, "line not terminated by a newline (truncated file?)");
			goto out;
		}
		if (l.lineno > 1 && l.line[strspn(l.line, " \t")] && parse_line(&p, l.line))
			goto out;
	}
	p.w.lineno = l.lineno + 1;
	if (r < 0)
		fail(&p, "out of memory");
	else if (!l.lineno)
		fail(&p, "empty file: expected the '" HEADER_PREFIX "1.x' header");
	else if (p.legends < 2)
		fail(&p, "unexpected end of file before the two '#' legend lines (truncated file?)");
	else if (u->n && check_unload(&p, &u->u[u->n - 1]))
		;
	else if (u->kept != u->n || u->kept > u->unloads)
		fail(&p, "kept %llu, unloads %llu: the file has %zu unload records (kept, at most unloads)",
		     (unsigned long long)u->kept, (unsigned long long)u->unloads, u->n);
	else
		ret = 0;
out:
	sa_lines_free(&l);
	sa_header_free(&p.hdr);
	if (ret)
		sa_unloads_free(u);
	return ret;
}

void sa_unloads_free(struct sa_unloads *u)
{
	size_t i, k;

	for (i = 0; i < u->n; i++) {
		for (k = 0; k < u->u[i].nsite; k++) {
			free(u->u[i].site[k].site.type_str);
			free(u->u[i].site[k].site.caller);
		}
		free(u->u[i].site);
		free(u->u[i].module);
	}
	free(u->u);
	free(u->name);
	memset(u, 0, sizeof(*u));
}
