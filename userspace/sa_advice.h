// SPDX-License-Identifier: GPL-2.0
/*
 * sa_advice - the model of --advise: the advice for one call site, a
 * smaller structure, a dedicated cache, a cache's padding, or its size
 * distribution, each with the bytes saved now and over the churn.
 */
#ifndef SA_ADVICE_H
#define SA_ADVICE_H

#include <stddef.h>
#include <stdint.h>

#include "sa_detail.h"
#include "sa_dsites.h"
#include "sa_parse.h"

enum adv_kind { ADV_SMALLER, ADV_CACHE, ADV_PADDED, ADV_SIZES };

struct advice {
	enum adv_kind kind;
	uint64_t object, target, per_object, now, churn;
	char *text;		/* malloc()ed */
};

struct asite {
	const struct sa_row *r;		/* the first main row: type and caller */
	const uint64_t *v;		/* the main rows of the site, added up */
	const struct dsite *d;		/* its detail */
	struct advice adv[2];
	int nadv;
};

/*
 * The advice for @s (its numbers and detail set) against @d's classes:
 * into s->adv (none when nothing is to be said).  0, or -1 with *@err a
 * malloc()ed message (a saving beyond 2^64 - 1; NULL: out of memory).
 */
int advise_site(const struct sa_detail *d, struct asite *s, char **err);

#endif /* SA_ADVICE_H */
