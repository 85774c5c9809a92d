// SPDX-License-Identifier: GPL-2.0
/*
 * sa_parse - parser for /proc/slab_account, format version 1.x.
 *
 * The file is: a header line `slab_account - version: MAJOR.MINOR`, then
 * `key: value` summary lines, then a legend line starting with `#`, then one
 * row per call site:
 *
 *   total slack req live live_req objs peak allocs/frees type caller
 *
 * Only major version 1 is accepted; rows must keep the format's rules
 * (req <= total, slack = total - req, live_req <= live), and a caller
 * whose last word starts with `unloaded#` must be a retired site's (1.3:
 * `... [MODULE] unloaded#N`, N >= 1); summary keys this parser does not
 * know are kept (as strings, and as numbers when they are numbers) but
 * never required; each key at most once.  (1.6) A child row's caller ends
 * in its context (sa_ctx.h), which must agree with the header's `split`.  Every error names the file and line: "FILE:LINE: what".
 */
#ifndef SA_PARSE_H
#define SA_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sa_base.h"
#include "sa_ctx.h"

#define SA_DEFAULT_PATH "/proc/slab_account"
#define SA_HEADER_PREFIX "slab_account - version: "
#define SA_FORMAT_MAJOR 1
/* sa_load() (sa_input.h) reads at most this many bytes (a file of 1M call sites is ~200 MiB). */
#define SA_MAX_INPUT ((size_t)256 << 20)

/* The numeric columns of a row, in file order (allocs/frees is one column). */
enum sa_field {
	SA_TOTAL,
	SA_SLACK,
	SA_REQ,
	SA_LIVE,
	SA_LIVE_REQ,
	SA_OBJS,
	SA_PEAK,
	SA_ALLOCS,
	SA_FREES,
	SA_NFIELDS
};

/* Column names as the legend and the reader's machine formats spell them. */
extern const char *const sa_field_names[SA_NFIELDS];

enum sa_type {
	SA_TYPE_KMALLOC,	/* `kmalloc` */
	SA_TYPE_CACHE,		/* `cache` or `cache:NAME` */
	SA_TYPE_MIXED,		/* `mixed` */
};

struct sa_row {
	uint64_t v[SA_NFIELDS];
	enum sa_type type;
	char *type_str;		/* the type column as written */
	const char *cache;	/* NAME of `cache:NAME` (inside type_str), or NULL */
	char *caller;		/* rest of the line, trailing blanks removed */
	unsigned long line;	/* line number in the file */
	/*
	 * (1.3) The module load the row is of: N of a retired row's
	 * " unloaded#N"; for a live row of module M, `reloaded M`'s N or 1;
	 * 0 for built-in code (no " [MODULE]").  key_len: the caller's
	 * length without " unloaded#N" (a site's rows of several loads share
	 * it; with the load it keys the row).
	 */
	uint64_t load;
	int retired;
	size_t key_len;
	/*
	 * (1.6) A child row's context: the part of its caller after the
	 * site's (" @stack:ID @cgroup:ID", ...), malloc()ed without its
	 * leading blank, NULL for a site's own row; caller is then the
	 * site's caller without it (the row joins its site by it), and cx
	 * its fields (cx.task points into ctx).
	 */
	char *ctx;
	struct sa_ctx cx;
};

struct sa_summary {
	char *key;
	char *value;		/* as written */
	uint64_t num;		/* value, when is_num */
	int is_num;
};

struct sa_file {
	char *name;		/* file name used in messages */
	uint64_t major, minor;	/* format version */
	struct sa_summary *summary;
	size_t nsummary;
	struct sa_row *rows;
	size_t nrows;
	size_t nctx;		/* (1.6) the child rows among them (ctx set) */
};

/*
 * Parse a whole file from @fp.  @name is used in error messages.  On success
 * returns 0 and fills @f (free it with sa_file_free()).  On failure returns
 * -1, leaves @f empty and sets *@err to a malloc()ed message "NAME:LINE: what"
 * (without a trailing newline) that the caller frees.
 */
int sa_parse_stream(struct sa_file *f, FILE *fp, const char *name, char **err);

/* The same, from a buffer of @len bytes (need not be NUL terminated). */
int sa_parse_buffer(struct sa_file *f, const char *buf, size_t len,
		    const char *name, char **err);

void sa_file_free(struct sa_file *f);

/* The summary entry for @key, or NULL. */
const struct sa_summary *sa_summary_get(const struct sa_file *f,
					const char *key);

/*
 * Compare the summary's sums (number of callers, total/req/slack, current
 * bytes and objects, allocs, frees) with the rows.  They agree when nothing
 * moved while the file was read (docs/format.md).  Returns how many keys
 * differ; describes them in @buf ("KEY S, the rows' sum R; ..."; cut to @n).
 */
size_t sa_check_sums(const struct sa_file *f, char *buf, size_t n);

/*
 * The first line of a file of @kind (e.g. "slab_account detail"): @prefix
 * then MAJOR.MINOR, MAJOR @major.  NULL and *@maj, *@min set, or a
 * malloc()ed message for a line that is not one ("not a KIND file ...",
 * "malformed format version ...", "unsupported FORMAT version ...",
 * @format_name naming the format in the last).
 */
char *sa_parse_version(const char *line, size_t n, const char *prefix,
		       const char *kind, const char *format_name, uint64_t major,
		       uint64_t *maj, uint64_t *min);
/* The same for a reader of the majors @lo to @hi. */
char *sa_parse_versions(const char *line, size_t n, const char *prefix,
			const char *kind, const char *format_name, uint64_t lo,
			uint64_t hi, uint64_t *maj, uint64_t *min);

/*
 * The last two columns of a row at @s: the type (*@type_str malloc()ed,
 * *@type, *@cache inside it) and the caller, the rest of the line less
 * its blanks around (*@caller, malloc()ed).  0; or -1 with @w's message:
 * "WHAT has no 'type' column HINT", an unknown type, no memory.
 */
int sa_type_caller(struct sa_where *w, const char *s, const char *what, const char *hint,
		   char **type_str, enum sa_type *type, const char **cache, char **caller);

/*
 * (1.3) Set @r's key_len, load and retired from its caller and the
 * `reloaded MODULE` keys of @f's summary (see struct sa_row).  0, or -1
 * when the caller's last word starts with `unloaded#` but is not a
 * retired site's ` [MODULE] unloaded#N`.
 */
int sa_row_key(struct sa_row *r, const struct sa_file *f);

/*
 * The type column @s (NUL terminated): *@type, and *@cache the NAME of
 * `cache:NAME` (inside @s) or NULL.  0, or -1 for an unknown type.
 */
int sa_type_parse(const char *s, enum sa_type *type, const char **cache);

#endif /* SA_PARSE_H */
