// SPDX-License-Identifier: GPL-2.0
/*
 * sa_retired - an unloads file joined with a snapshot's retired rows (see
 * sa_retired.h).
 */
#include "sa_retired.h"

#include <stdlib.h>
#include <string.h>

#include "sa_caller.h"

const char *const sa_uverdict_names[] = {
	"clean", "left live", "still live", "partly freed", "freed since",
};

/* Can @snap tell what became of the objects of unload number @ordinal? */
static int joins(const struct sa_file *snap, uint64_t ordinal)
{
	const struct sa_summary *e = snap ? sa_summary_get(snap, "module unloads") : NULL;

	return e && e->is_num && e->num >= ordinal;
}

/* The objects and bytes still live in @snap's retired rows of @mod's load @load (@caller, @type: one site). */
static void live_now(const struct sa_file *snap, const char *mod, uint64_t load,
		     const char *caller, const char *type, uint64_t *objs, uint64_t *bytes)
{
	size_t i, mlen = strlen(mod);

	*objs = *bytes = 0;
	for (i = 0; i < snap->nrows; i++) {
		const struct sa_row *r = &snap->rows[i];
		size_t n;
		const char *m;

		if (!r->retired || r->load != load)
			continue;
		if (caller) {
			if (strcmp(r->caller, caller) || strcmp(r->type_str, type))
				continue;
		} else if (!(m = sa_caller_module(r->caller, &n)) || n != mlen || memcmp(m, mod, n)) {
			continue;
		}
		*objs += r->v[SA_OBJS];	/* no wrap: a file's objects are far fewer */
		*bytes += r->v[SA_LIVE];
	}
}

static void judge(struct sa_uitem *it)
{
	if (!it->objs)
		it->verdict = SA_UV_CLEAN;
	else if (!it->joined)
		it->verdict = SA_UV_LEFT;
	else if (!it->live)
		it->verdict = SA_UV_FREED;
	else
		it->verdict = it->live >= it->objs ? SA_UV_LIVE : SA_UV_PARTLY;
}

int sa_ujoin_build(struct sa_ujoin *j, const struct sa_unloads *un,
		   const struct sa_file *snap, const char *module)
{
	size_t i, k, max = 0;

	memset(j, 0, sizeof(*j));
	j->un = un;
	j->snap = snap;
	for (i = 0; i < un->n; i++)
		max += un->u[i].nsite + 2;
	j->it = calloc(max + 1, sizeof(*j->it));
	if (!j->it)
		return -1;
	for (i = 0; i < un->n; i++) {
		const struct sa_unload *u = &un->u[i];
		uint64_t ordinal = un->unloads - un->kept + i + 1, objs = 0, bytes = 0, req = 0;
		uint64_t all_live = 0, all_bytes = 0, site_live = 0, site_bytes = 0;
		int joined = joins(snap, ordinal);
		struct sa_uitem *it;

		if (module && strcmp(module, u->module))
			continue;
		j->older += snap && !joined;
		if (joined)
			live_now(snap, u->module, u->load, NULL, NULL, &all_live, &all_bytes);
		for (k = 0; k <= u->nsite; k++) {
			it = &j->it[j->n];
			it->u = u;
			it->ordinal = ordinal;
			it->joined = joined;
			if (k < u->nsite) {
				it->s = &u->site[k];
				it->objs = it->s->objs;
				it->bytes = it->s->bytes;
				it->req = it->s->req;
				if (joined)
					live_now(snap, u->module, u->load, it->s->site.caller,
						 it->s->site.type_str, &it->live, &it->live_bytes);
				objs += it->objs;
				bytes += it->bytes;
				req += it->req;
				site_live += it->live;
				site_bytes += it->live_bytes;
			} else if (!u->objs || u->sites > u->nsite) {
				/* a clean unload, or the sites beyond the listed ones */
				it->rest = u->objs ? u->sites - u->nsite : 0;
				it->objs = u->objs - objs;
				it->bytes = u->bytes - bytes;
				it->req = u->req - req;
				it->live = all_live > site_live ? all_live - site_live : 0;
				it->live_bytes = all_bytes > site_bytes ? all_bytes - site_bytes : 0;
			} else {
				break;
			}
			judge(it);
			j->n++;
		}
	}
	return 0;
}

void sa_ujoin_free(struct sa_ujoin *j)
{
	free(j->it);
	memset(j, 0, sizeof(*j));
}
