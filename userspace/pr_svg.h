// SPDX-License-Identifier: GPL-2.0
/*
 * pr_svg - --svg FILE: a self-contained SVG treemap of the rows, modules,
 * in them functions, in them call sites, with a legend; the area is the
 * first sort key (live bytes unless -s says otherwise).
 */
#ifndef PR_SVG_H
#define PR_SVG_H

#include "sa_rows.h"

/*
 * A call site drawn on its own has a share of the picture's area (before
 * the frames take theirs) of at least this many square pixels, about
 * 24 x 24; the smaller ones are counted in a tile per module.
 */
#define PR_SVG_MIN_AREA 600

/* The treemap of @r; 0, or -1 (a message said why). */
int pr_svg(const struct sa_rows *r);

#endif /* PR_SVG_H */
