// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_common - what the commands share: loading a file as the options say
 * (a snapshot, a trace, either), with the notes on stderr about what was
 * read (a summary that does not match its rows, a trace that lost
 * events), and the messages of errors.
 */
#ifndef CMD_COMMON_H
#define CMD_COMMON_H

#include "cmd_opts.h"
#include "sa_detail.h"
#include "sa_parse.h"

/* "slabacct: @err" on stderr (NULL: out of memory); frees @err. */
void cmd_error(char *err);

/*
 * Load @path: a trace with --from-trace; with --diff a slab_account file
 * or a trace, told by its first line; else a slab_account file.  0, or -1
 * with the message on stderr.
 */
int cmd_load(const struct opts *o, struct sa_file *f, const char *path);

/* The same, the error's message into *@err (malloc()ed; NULL: no memory). */
int cmd_load_err(const struct opts *o, struct sa_file *f, const char *path, char **err);

/*
 * Load the slab_account file @path as cmd_load() does, keeping the bytes
 * read in *@keep, *@keep_len (free it) when @keep is not NULL.
 */
int cmd_load_keep(const struct opts *o, struct sa_file *f, const char *path, char **keep,
		  size_t *keep_len);

/* Load the detail file @path; 0, or -1 with the message on stderr. */
int cmd_load_detail(const struct opts *o, struct sa_detail *d, const char *path);

/* What a trace's account cannot hold, said on stderr. */
void cmd_trace_warnings(const struct sa_file *f);

#endif /* CMD_COMMON_H */
