// SPDX-License-Identifier: GPL-2.0
/*
 * pr_svg - --svg FILE: a self-contained SVG treemap of the rows, modules,
 * in them functions, in them call sites, with a legend; the area is the
 * first sort key (live bytes unless -s says otherwise).
 */
#ifndef PR_SVG_H
#define PR_SVG_H

#include "sa_rows.h"

#define PR_SVG_TOP 30		/* call sites drawn one by one at least, without -n */

/* The treemap of @r; 0, or -1 (a message said why). */
int pr_svg(const struct sa_rows *r);

#endif /* PR_SVG_H */
