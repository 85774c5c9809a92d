// SPDX-License-Identifier: GPL-2.0
/*
 * sa_trace - the account of a kmem trace: ftrace's kmem events as text
 * (tracefs `trace` and `trace_pipe`, `trace-cmd report`) turned into the
 * same struct sa_file that sa_parse builds from /proc/slab_account, with
 * the module's semantics (docs/reader.md, "Offline traces").
 *
 * One pass over the input; memory grows with the live objects and the
 * call sites, never with the length of the trace.  `--kallsyms FILE`
 * (sa_kallsyms.h) names call sites the trace gives as raw addresses.
 */
#ifndef SA_TRACE_H
#define SA_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "sa_detail.h"
#include "sa_parse.h"

struct sa_kallsyms;	/* sa_kallsyms.h */

struct sa_trace_opts {
	const struct sa_kallsyms *ks;	/* NULL: call sites as the trace gives them */
	int progress;	/* show progress on stderr if it is a terminal and the input a large file */
	/*
	 * Not NULL: also the detail file's account of the trace, its rows
	 * those of the file, ages taken at the trace's last timestamp
	 * (free it with sa_detail_free()).  A trace without timestamps is
	 * then an error.
	 */
	struct sa_detail *detail;
};

/*
 * Read the kmem trace on @fd (its first @plen bytes already read, in @pre)
 * into @f (free it with sa_file_free()); @name names it in messages.  0,
 * or -1 with *@err a malloc()ed message "NAME:LINE: what" or "NAME: what".
 * sa_trace_load() (sa_input.h) opens a path.
 */
int sa_trace_fd(struct sa_file *f, int fd, const char *pre, size_t plen,
		const char *name, const struct sa_trace_opts *o, char **err);

/*
 * Could @line (NUL terminated) be a trace's: blank, a comment, trace-cmd's
 * or a lost-events line, or an event?  (A first line that is none of these
 * is not a trace's.)
 */
int sa_trace_sniff(const char *line);

/* The same from a buffer of @len bytes (tests and the fuzzer). */
int sa_trace_parse_buffer(struct sa_file *f, const char *buf, size_t len,
			  const char *name, const struct sa_trace_opts *o,
			  char **err);

#endif /* SA_TRACE_H */
