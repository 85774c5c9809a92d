// SPDX-License-Identifier: GPL-2.0
/*
 * sa_retired - the unloads model: an unloads file's records (what each
 * module load left live from its call sites when it unloaded), joined with
 * a later snapshot's retired rows (format 1.3: the same caller strings,
 * ending in " unloaded#N") to tell how many of those objects were freed
 * since and how many are still live.  One item per site line of an
 * unload, one for a clean unload, and one for the sites beyond the top 8
 * an unload line counts; --unloads prints them (cmd_unloads.c) and the
 * gate's left-at-unload rule judges them (sa_gate.c).
 */
#ifndef SA_RETIRED_H
#define SA_RETIRED_H

#include <stddef.h>
#include <stdint.h>

#include "sa_parse.h"
#include "sa_unloads.h"

enum sa_uverdict {
	SA_UV_CLEAN,		/* nothing left live at the unload */
	SA_UV_LEFT,		/* left live (no snapshot to tell what became of it) */
	SA_UV_LIVE,		/* still live now, all of it */
	SA_UV_PARTLY,		/* some freed since, some still live */
	SA_UV_FREED,		/* all freed since */
};
extern const char *const sa_uverdict_names[];

struct sa_uitem {
	const struct sa_unload *u;	/* its unload */
	uint64_t ordinal;	/* the unload's number since slab_account loaded (1: the first) */
	const struct sa_usite *s;	/* its site line; NULL: a clean unload, or the rest */
	uint64_t rest;		/* the rest: the sites beyond the listed ones (0: not the rest) */
	uint64_t objs, bytes, req;	/* still live at the unload */
	int joined;		/* the snapshot tells what became of them: */
	uint64_t live, live_bytes;	/* still live now (objects, bytes) */
	enum sa_uverdict verdict;
};

struct sa_ujoin {
	const struct sa_unloads *un;
	const struct sa_file *snap;	/* or NULL */
	struct sa_uitem *it;
	size_t n;
	size_t older;	/* unloads after the snapshot (its `module unloads` is less) */
};

/*
 * The items of @un (those of unloads of module @module only, unless NULL),
 * joined with @snap (NULL: not joined): a site's objects still live now
 * are its retired row's (same caller and type), an unload's those of all
 * the retired rows of its module and load.  A snapshot earlier than an
 * unload (its `module unloads` less than the unload's number) or of a
 * format before 1.3 does not join it.  0, or -1 without memory.
 */
int sa_ujoin_build(struct sa_ujoin *j, const struct sa_unloads *un,
		   const struct sa_file *snap, const char *module);
void sa_ujoin_free(struct sa_ujoin *j);

#endif /* SA_RETIRED_H */
