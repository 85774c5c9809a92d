// SPDX-License-Identifier: GPL-2.0
/*
 * sa_kallsyms - a copy of the board's /proc/kallsyms (--kallsyms FILE):
 * text symbols by address and by name, to name the raw call sites of a
 * kmem trace as %pS does (see sa_kallsyms.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_kallsyms.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ksym {
	uint64_t addr;
	char *name;		/* "symbol" or "symbol\t[module]" split at load */
	char *mod;		/* NULL: vmlinux */
};

struct sa_kallsyms {
	struct ksym *v;		/* by address */
	size_t n;
	struct ksym **by_name;	/* into v, by name (then address) */
};

static int ksym_cmp(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;

	return (a->addr > b->addr) - (a->addr < b->addr);
}

void sa_kallsyms_free(struct sa_kallsyms *ks)
{
	size_t i;

	if (!ks)
		return;
	for (i = 0; i < ks->n; i++) {
		free(ks->v[i].name);
		free(ks->v[i].mod);
	}
	free(ks->v);
	free(ks->by_name);
	free(ks);
}

static int by_name_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct ksym *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	(void)ctx;
	return c ? c : (a > b) - (a < b);
}

int sa_kallsyms_load(struct sa_kallsyms **out, const char *path, char **err)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	struct sa_lines l = { .fp = fp };
	struct sa_kallsyms *ks;
	size_t cap = 0, lines = 0, nonzero = 0;
	int r;

	*out = NULL;
	if (!fp) {
		*err = sa_format("%s: %s", path, strerror(errno));
		return -1;
	}
	ks = calloc(1, sizeof(*ks));
	if (!ks)
		goto oom;
	while ((r = sa_lines_next(&l)) > 0) {
		char addr[32], type, name[512], mod[512];
		uint64_t a;
		int k;

		lines++;
		mod[0] = '\0';
		k = sscanf(l.line, "%31s %c %511s %511s", addr, &type, name, mod);
		if (k < 3 || sa_parse_hex(addr, strlen(addr), &a)) {
			*err = sa_format("%s:%zu: not a kallsyms line (ADDRESS TYPE SYMBOL [MODULE])",
				      path, lines);
			goto fail;
		}
		if (a)
			nonzero++;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (ks->n == cap) {
			struct ksym *v = realloc(ks->v, (cap ? cap * 2 : 4096) * sizeof(*v));

			if (!v)
				goto oom;
			ks->v = v;
			cap = cap ? cap * 2 : 4096;
		}
		ks->v[ks->n].addr = a;
		ks->v[ks->n].name = strdup(name);
		ks->v[ks->n].mod = NULL;
		if (!ks->v[ks->n].name)
			goto oom;
		if (k == 4 && mod[0] == '[') {
			size_t m = strlen(mod);

			if (m > 2 && mod[m - 1] == ']') {
				mod[m - 1] = '\0';
				ks->v[ks->n].mod = strdup(mod + 1);
				if (!ks->v[ks->n].mod) {
					ks->n++;
					goto oom;
				}
			}
		}
		ks->n++;
	}
	if (r < 0) {
		*err = sa_format("%s: read error: %s", path, strerror(errno));
		goto fail;
	}
	if (!lines || !ks->n) {
		*err = sa_format("%s: no text symbols: not a copy of /proc/kallsyms", path);
		goto fail;
	}
	if (!nonzero) {
		*err = sa_format("%s: every address is 0: the copy was read without root (or under kptr_restrict=2); copy /proc/kallsyms as root",
			      path);
		goto fail;
	}
	qsort(ks->v, ks->n, sizeof(*ks->v), ksym_cmp);
	ks->by_name = malloc(ks->n * sizeof(*ks->by_name));
	if (!ks->by_name)
		goto oom;
	for (cap = 0; cap < ks->n; cap++)
		ks->by_name[cap] = &ks->v[cap];
	if (sa_sort((void **)ks->by_name, ks->n, by_name_cmp, NULL))
		goto oom;
	sa_lines_free(&l);
	if (fp != stdin)
		fclose(fp);
	*out = ks;
	return 0;
oom:
	*err = sa_format("%s: out of memory", path);
fail:
	sa_lines_free(&l);
	if (fp != stdin)
		fclose(fp);
	sa_kallsyms_free(ks);
	return -1;
}

/* Symbol @i at @addr inside it, as %pS writes it; 0, or -1 if its end is not known. */
static int ks_format(const struct sa_kallsyms *ks, size_t i, uint64_t addr,
		     char *buf, size_t n)
{
	size_t j;

	/* Its size: up to the next symbol at a higher address. */
	for (j = i + 1; j < ks->n && ks->v[j].addr == ks->v[i].addr; j++)
		;
	if (j == ks->n || addr >= ks->v[j].addr)
		return -1;	/* the last symbol: its end is not known */
	snprintf(buf, n, "%s+0x%" PRIx64 "/0x%" PRIx64 "%s%s%s", ks->v[i].name,
		 addr - ks->v[i].addr, ks->v[j].addr - ks->v[i].addr,
		 ks->v[i].mod ? " [" : "", ks->v[i].mod ? ks->v[i].mod : "",
		 ks->v[i].mod ? "]" : "");
	return 0;
}

/*
 * "symbol+0xoff" (trace-cmd report's call sites) completed to %pS's
 * "symbol+0xoff/0xlen [module]"; -1 when @s is not that or the symbol is
 * not in the copy or not unique.
 */
int sa_kallsyms_complete(const struct sa_kallsyms *ks, const char *s,
				size_t len, char *buf, size_t n)
{
	const char *plus = memchr(s, '+', len);
	size_t nlen, lo = 0, hi = ks->n, i;
	uint64_t off;

	if (!plus || memchr(s, '/', len) || memchr(s, ' ', len) ||
	    sa_parse_hex(plus + 1, (size_t)(s + len - plus - 1), &off) ||
	    plus[1] != '0')
		return -1;
	nlen = (size_t)(plus - s);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *m = ks->by_name[mid]->name;
		int c = strncmp(m, s, nlen);

		if (!c && m[nlen])
			c = 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ks->n)
		return -1;
	i = (size_t)(ks->by_name[lo] - ks->v);
	if (strncmp(ks->v[i].name, s, nlen) || ks->v[i].name[nlen])
		return -1;
	if (lo + 1 < ks->n) {
		const struct ksym *k = ks->by_name[lo + 1];

		if (!strcmp(k->name, ks->v[i].name) && k->addr != ks->v[i].addr)
			return -1;	/* two functions of that name */
	}
	return ks_format(ks, i, ks->v[i].addr + off, buf, n);
}

int sa_kallsyms_name(const struct sa_kallsyms *ks, uint64_t addr, char *buf,
		     size_t n)
{
	size_t lo = 0, hi = ks->n;

	/* The last symbol at or below @addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !ks->v[lo - 1].addr)
		return -1;
	return ks_format(ks, lo - 1, addr, buf, n);
}
