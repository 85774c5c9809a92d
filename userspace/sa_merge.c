// SPDX-License-Identifier: GPL-2.0
/*
 * sa_merge - records merged by key (see sa_merge.h).
 */
#include "sa_merge.h"

#include <stdlib.h>
#include <string.h>

#include "sa_base.h"
#include "sa_esc.h"

static int key_cmp(const struct sa_merge_in *a, const struct sa_merge_in *b)
{
	int c = strcmp(a->key, b->key);

	if (!c && a->key2 && b->key2)
		c = strcmp(a->key2, b->key2);
	return c;
}

static int in_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct sa_merge_in *a = pa, *b = pb;
	int c = key_cmp(a, b);

	(void)ctx;
	return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

int sa_merge(const struct sa_merge_in *in, size_t n, size_t nfields,
	     const enum sa_fold *fold, struct sa_groups *out,
	     struct sa_merge_err *e)
{
	const struct sa_merge_in **v = calloc(n + 1, sizeof(*v));
	size_t i, f, ngroups = 0;

	memset(out, 0, sizeof(*out));
	memset(e, 0, sizeof(*e));
	if (!v)
		goto nomem;
	for (i = 0; i < n; i++)
		v[i] = &in[i];
	if (sa_sort((void **)v, n, in_cmp, NULL))
		goto nomem;
	for (i = 0; i < n; i++)
		ngroups += !i || key_cmp(v[i - 1], v[i]);
	out->g = calloc(ngroups + 1, sizeof(*out->g));
	out->v = calloc(ngroups * nfields + 1, sizeof(*out->v));
	if (!out->g || !out->v)
		goto nomem;
	for (i = 0; i < n; i++) {
		struct sa_group *g = &out->g[out->n];
		const uint64_t *r = v[i]->v;

		if (out->n && !key_cmp(v[i], &in[out->g[out->n - 1].first_in])) {
			g = &out->g[out->n - 1];
			for (f = 0; f < nfields; f++) {
				enum sa_fold k = fold ? fold[f] : SA_FOLD_SUM;

				if (k == SA_FOLD_MAX) {
					if (r[f] > g->v[f])
						g->v[f] = r[f];
				} else if (k == SA_FOLD_RANGE_MIN) {
					if (f + 1 < nfields && r[f + 1] &&
					    (!g->v[f + 1] || r[f] < g->v[f]))
						g->v[f] = r[f];
				} else if (sa_add_u64(&g->v[f], r[f])) {
					e->field = f;
					e->first = g->first;
					e->first_in = g->first_in;
					free(v);
					sa_groups_free(out);
					return -1;
				}
			}
			g->count++;
			continue;
		}
		g->first = v[i]->idx;
		g->first_in = (size_t)(v[i] - in);
		g->count = 1;
		g->v = out->v + out->n * nfields;
		memcpy(g->v, r, nfields * sizeof(*r));
		out->n++;
	}
	free(v);
	return 0;
nomem:
	free(v);
	sa_groups_free(out);
	e->nomem = 1;
	return -1;
}

void sa_groups_free(struct sa_groups *g)
{
	free(g->g);
	free(g->v);
	memset(g, 0, sizeof(*g));
}

char *sa_merge_message(const struct sa_merge_err *e, const struct sa_merge_in *in,
		       const char *file, const char *const *names, const char *what)
{
	char *tmp, *msg;

	if (e->nomem)
		return NULL;
	msg = sa_format("%s: the %s of %s%s does not fit in 64 bits", file, names[e->field],
			what, sa_esc_text(in[e->first_in].key, &tmp));
	free(tmp);
	return msg;
}
