// SPDX-License-Identifier: GPL-2.0
/*
 * sa_dsites - a detail file's call sites, for --leaks and --advise (see
 * sa_dsites.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_dsites.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sa_ctx.h"

int site_cmp(const char *ta, const char *ca, const char *tb, const char *cb)
{
	int c = strcmp(ca, cb);

	return c ? c : strcmp(ta, tb);
}

int dsites_get(const struct sa_detail *d, int by_site, struct dsites *out, char **err)
{
	static enum sa_fold fold[SA_D_NFIELDS];
	struct sa_merge_in *in = calloc(d->nrows + 1, sizeof(*in));
	struct sa_merge_err e;
	size_t i;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	fold[SA_D_OLDEST] = SA_FOLD_MAX;
	fold[SA_D_REQ_MIN] = SA_FOLD_RANGE_MIN;
	fold[SA_D_REQ_MAX] = SA_FOLD_MAX;
	if (!in)
		return -1;
	if (by_site) {
		out->keys = calloc(d->nrows + 1, sizeof(*out->keys));
		if (!out->keys) {
			free(in);
			return -1;
		}
	}
	for (i = 0; i < d->nrows; i++) {
		const char *caller = d->rows[i].site.caller;

		if (by_site) {
			out->keys[i] = strndup(caller, sa_ctx_find(caller));
			if (!out->keys[i]) {
				free(in);
				dsites_free(out);
				return -1;
			}
			out->nkeys++;
			caller = out->keys[i];
		}
		in[i].key = caller;
		in[i].key2 = d->rows[i].site.type_str;
		in[i].v = d->rows[i].v;
		in[i].idx = i;
	}
	if (sa_merge(in, d->nrows, SA_D_NFIELDS, fold, &out->g, &e)) {
		*err = sa_merge_message(&e, in, d->name, sa_detail_field_names,
					"the rows of caller ");
		free(in);
		dsites_free(out);
		return -1;
	}
	free(in);
	out->s = calloc(out->g.n + 1, sizeof(*out->s));
	if (!out->s) {
		dsites_free(out);
		return -1;
	}
	for (i = 0; i < out->g.n; i++) {
		size_t first = out->g.g[i].first;

		out->s[i].r = &d->rows[first];
		out->s[i].caller = by_site ? out->keys[first] : d->rows[first].site.caller;
		out->s[i].v = out->g.g[i].v;
	}
	out->n = out->g.n;
	return 0;
}

void dsites_free(struct dsites *s)
{
	size_t i;

	for (i = 0; i < s->nkeys; i++)
		free(s->keys[i]);
	free(s->keys);
	free(s->s);
	sa_groups_free(&s->g);
	memset(s, 0, sizeof(*s));
}

void dsite_as_row(const struct dsite *s, struct sa_row *r)
{
	*r = s->r->site;
	r->v[SA_LIVE] = s->v[SA_D_BYTES];
	r->v[SA_LIVE_REQ] = s->v[SA_D_REQ];
	r->v[SA_OBJS] = s->v[SA_D_OBJS];
}
