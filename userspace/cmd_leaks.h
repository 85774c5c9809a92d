// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_leaks - --leaks: which call sites hold old objects and, given two
 * snapshots of the detail file, grow (docs/reader.md, "Leaks").
 */
#ifndef CMD_LEAKS_H
#define CMD_LEAKS_H

#include <stdint.h>

#include "cmd_opts.h"
#include "sa_detail.h"

/* --leaks [OLD NEW | --once [FILE]] (or --once --from-trace): the exit status. */
int cmd_leaks(const struct opts *o);

/* A site --leaks calls growing. */
struct leak_site {
	const char *caller, *type_str;
	uint64_t old_objs, objs, old_bytes, bytes;
	uint64_t oldest;	/* seconds */
	uint64_t secs;		/* NEW now - OLD now */
};

/*
 * Whether @old -> @new is a window long enough for a growing verdict
 * (--leaks-min-age, at least 10 s): 0, or -1 with the reason on stderr.
 */
int leaks_window(const struct opts *o, const struct sa_detail *old, const struct sa_detail *new);

/*
 * Call @fn for each site of @old -> @new that --leaks (with @o's
 * --leaks-min-age and filters) calls growing, ranked as it ranks them,
 * until @fn returns non-zero.  0, or -1 (a message on stderr, or @fn's
 * refusal).  A window too short (leaks_window()) is refused: no verdict
 * rather than none growing.
 */
int leaks_growing(const struct opts *o, const struct sa_detail *old, const struct sa_detail *new,
		  int (*fn)(void *ctx, const struct leak_site *s), void *ctx);

#endif /* CMD_LEAKS_H */
