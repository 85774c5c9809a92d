// SPDX-License-Identifier: GPL-2.0
/*
 * sa_input - the reader's inputs from their paths (`-` is standard input):
 * a slab_account file, a detail file, an unloads file, a stacks file or a
 * kmem trace read and handed to its parser (sa_parse, sa_detail,
 * sa_unloads, sa_stacks, sa_trace), at
 * most a given number of bytes
 * for the files read whole, with the messages of open and read errors
 * ("PATH: strerror", with a hint for the usual /proc cases).
 */
#ifndef SA_INPUT_H
#define SA_INPUT_H

#include <stddef.h>

#include "sa_detail.h"
#include "sa_parse.h"
#include "sa_stacks.h"
#include "sa_trace.h"
#include "sa_unloads.h"

/*
 * Read @path completely (`-` is standard input) with read() until end of
 * file, then parse it.  Errors as for sa_parse_stream(); open and read
 * errors give "PATH: strerror" with a hint for the usual /proc cases.
 * At most SA_MAX_INPUT bytes are read (see sa_load_max()).
 */
int sa_load(struct sa_file *f, const char *path, char **err);

/*
 * sa_load() with a limit: a file longer than @max bytes (0: no limit) fails
 * with "PATH: more than MAX bytes: ...".  Reading stops early when the first
 * bytes are not a slab_account header (the parse then says so).
 */
int sa_load_max(struct sa_file *f, const char *path, size_t max, char **err);

/* sa_load_max() that keeps the bytes read (with @keep: *@keep, *@keep_len; free it). */
int sa_load_keep(struct sa_file *f, const char *path, size_t max, char **keep, size_t *keep_len,
		 char **err);

/*
 * Read @path whole (`-`: standard input) as a detail file and parse it; at
 * most @max bytes (0: no limit).  Errors as sa_load()'s.
 */
int sa_detail_load(struct sa_detail *d, const char *path, size_t max, char **err);

/*
 * (1.6) Read @path whole (`-`: standard input) as a stacks file and parse
 * it; at most @max bytes (0: no limit).  Errors as sa_load()'s.
 */
int sa_stacks_load(struct sa_stacks *s, const char *path, size_t max, char **err);

/*
 * Read @path whole (`-`: standard input) as an unloads file and parse it;
 * at most @max bytes (0: no limit).  Errors as sa_load()'s.
 */
int sa_unloads_load(struct sa_unloads *u, const char *path, size_t max, char **err);

/*
 * Read the kmem trace @path (`-`: standard input) and build its account
 * into @f (free it with sa_file_free()).  0, or -1 with *@err a malloc()ed
 * message "NAME:LINE: what" or "PATH: strerror".
 */
int sa_trace_load(struct sa_file *f, const char *path,
		  const struct sa_trace_opts *o, char **err);

/*
 * Read @path as a slab_account file (at most @max bytes, 0: no limit) or,
 * when its first line is not the slab_account header, as a kmem trace;
 * *@is_trace says which.  Errors as sa_load() and sa_trace_load().
 */
int sa_load_any(struct sa_file *f, const char *path, size_t max,
		const struct sa_trace_opts *o, int *is_trace, char **err);

/*
 * Read everything from @fd into a malloc()ed buffer (*@buf, *@len; the
 * buffer gets a terminating NUL that @len does not count).  Returns 0, or
 * -1 with errno set.
 */
int sa_read_fd(int fd, char **buf, size_t *len);

/*
 * Read @path ("-": standard input) into *@bufp (NUL terminated, *@lenp
 * bytes without it), at most @max bytes (0: no limit), stopping early when
 * the start shows it does not begin with @prefix (NULL: never).  0, or -1
 * with a malloc()ed message in *@err naming a file of @kind when too large
 * (and errno the error's).
 */
int sa_read_path(const char *path, size_t max, const char *prefix,
		 const char *kind, char **bufp, size_t *lenp, char **err);

/* The message sa_load() gives when opening or reading @path fails with @errnum. */
char *sa_io_error(const char *path, int errnum);

/* The name of @path in messages: "<stdin>" for "-". */
const char *sa_display_name(const char *path);

#endif /* SA_INPUT_H */
