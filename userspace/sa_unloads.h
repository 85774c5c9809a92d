// SPDX-License-Identifier: GPL-2.0
/*
 * sa_unloads - parser for /proc/slab_account_unloads, format version 1.x
 * (docs/format.md, "The unloads file"): what each module load left live
 * from its call sites when it unloaded.
 *
 * The file is: a header line `slab_account unloads - version: MAJOR.MINOR`,
 * then `key: value` lines (now, unloads, kept: unsigned decimals, all
 * three required; keys this parser does not know are ignored; each key
 * at most once), then two legend lines starting with `#`, then one record
 * per unload, oldest first: an unload line (no leading blank)
 *
 *   when module load objs bytes req sites
 *
 * followed by its site lines (two leading blanks), the top sites by bytes:
 *
 *     objs bytes req oldest type caller
 *
 * Only major version 1 is accepted.  The rules checked: bytes >= req on
 * every line; when <= now and unload lines in the order of their when; a
 * module's loads increasing from one of its unloads to the next; load >=
 * 1; an unload of 0 objects has 0 bytes, 0 sites and no site line; the
 * site lines number min(sites, 8), each with objs >= 1, oldest <= when,
 * and a caller of the unload's module and load (`... [MODULE] unloaded#LOAD`,
 * sa_caller.h); their objs, bytes and req add up to at most the unload's
 * (exactly when sites <= 8); kept records, kept <= unloads.  Every error
 * names the file and line: "FILE:LINE: what".
 */
#ifndef SA_UNLOADS_H
#define SA_UNLOADS_H

#include <stddef.h>
#include <stdint.h>

#include "sa_parse.h"

#define SA_UNLOADS_PATH "/proc/slab_account_unloads"
#define SA_UNLOADS_HEADER_PREFIX "slab_account unloads - version: "
#define SA_UNLOADS_MAJOR 1
#define SA_UNLOAD_SITES 8	/* site lines per unload, at most */

/* A site of an unload: its objects still live at the unload. */
struct sa_usite {
	uint64_t objs, bytes, req;
	uint64_t oldest;	/* the age of the oldest, seconds, at the unload */
	/*
	 * Its call site, named as the main file's retired row of it is:
	 * site.type, type_str (as written), cache, caller (to the end of the
	 * line) and line (of this file); the rest zero.
	 */
	struct sa_row site;
};

/* An unload: what the module's load left live from its sites. */
struct sa_unload {
	uint64_t when;		/* seconds since slab_account loaded */
	char *module;
	uint64_t load;		/* the module's Nth load since slab_account loaded */
	uint64_t objs, bytes, req;
	uint64_t sites;		/* its sites with live objects then */
	struct sa_usite *site;	/* the top ones by bytes (at most SA_UNLOAD_SITES) */
	size_t nsite;
	unsigned long line;
};

struct sa_unloads {
	char *name;		/* file name used in messages */
	uint64_t major, minor;
	uint64_t now;		/* seconds since slab_account loaded */
	uint64_t unloads;	/* module unloads since then */
	uint64_t kept;		/* records in the file (the first unloads - kept dropped) */
	struct sa_unload *u;	/* in unload order */
	size_t n;
};

/*
 * Parse an unloads file from a buffer of @len bytes (need not be NUL
 * terminated); @name is used in messages.  0 and *@u filled (free it with
 * sa_unloads_free()), or -1 with *@u empty and *@err a malloc()ed message
 * "NAME:LINE: what" that the caller frees.
 */
int sa_unloads_parse_buffer(struct sa_unloads *u, const char *buf, size_t len,
			    const char *name, char **err);

void sa_unloads_free(struct sa_unloads *u);

#endif /* SA_UNLOADS_H */
