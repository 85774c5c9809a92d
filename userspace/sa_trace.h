// SPDX-License-Identifier: GPL-2.0
/*
 * sa_trace - the account of a kmem trace: ftrace's kmem events as text
 * (tracefs `trace` and `trace_pipe`, `trace-cmd report`) turned into the
 * same struct sa_file that sa_parse builds from /proc/slab_account, with
 * the module's semantics (docs/reader.md, "Offline traces").
 *
 * One pass over the input; memory grows with the live objects and the
 * call sites, never with the length of the trace.  `--kallsyms FILE`
 * (sa_kallsyms_*) names call sites the trace gives as raw addresses.
 */
#ifndef SA_TRACE_H
#define SA_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "sa_detail.h"
#include "sa_parse.h"

/* A copy of /proc/kallsyms: text symbols by address. */
struct sa_kallsyms;

/*
 * Read @path (a copy of the board's /proc/kallsyms).  0 and *@ks (free it
 * with sa_kallsyms_free()), or -1 and *@err a malloc()ed message: also
 * for a file whose addresses are all zero (read without root).
 */
int sa_kallsyms_load(struct sa_kallsyms **ks, const char *path, char **err);
void sa_kallsyms_free(struct sa_kallsyms *ks);

/*
 * @addr as %pS writes it, `symbol+0xoff/0xlen [module]`, into @buf (@n
 * bytes); 0, or -1 when no text symbol holds @addr.
 */
int sa_kallsyms_name(const struct sa_kallsyms *ks, uint64_t addr, char *buf,
		     size_t n);

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
 * The same from a buffer of @len bytes (tests and the fuzzer): the trace
 * parser alone.
 */
int sa_trace_parse_buffer(struct sa_file *f, const char *buf, size_t len,
			  const char *name, const struct sa_trace_opts *o,
			  char **err);

#endif /* SA_TRACE_H */
