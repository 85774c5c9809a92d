// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_common - what the commands share: loading a file as the options say
 * (a snapshot, a trace, either), with the notes on stderr about what was
 * read (a file cut short, a summary that does not match its rows, a trace
 * that lost events), and the messages of errors.
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
 * read in *@keep, *@keep_len (free it) when @keep is not NULL: for the gate
 * and its baselines, where a file cut short (cmd_truncated()) is an error.
 * 0, or -1 with *@err a malloc()ed message (NULL: out of memory).
 */
int cmd_load_keep(const struct opts *o, struct sa_file *f, const char *path, char **keep,
		  size_t *keep_len, char **err);

/*
 * (1.6) For --by cgroup, --cgroup and --prometheus: the cgroup tree under --cgroup-root
 * (default /sys/fs/cgroup, which may be absent: ids are then shown as
 * cgroup#ID) into o->cg and o->sel.cg, and --cgroup's PATH, ID or `irq`
 * into the filter.  0, or -1 having said why: a --cgroup-root that cannot
 * be read, a --cgroup PATH that no directory has.
 */
int cmd_cgroups(struct opts *o);

/*
 * Is the slab_account file @f cut short?  The module counts in `number of
 * callers` the call sites it shows when it writes the header, and writes
 * a row for every site shown when its walk reaches it.  A site once shown
 * stays shown until a reset (its allocs and frees only grow, sites are
 * never taken out of the table) and sites added meanwhile add rows, so a
 * whole file has at least as many rows as callers, unless slab_account
 * was reset between the read() calls of one read.  1 for fewer rows, with
 * *@msg a malloc()ed message saying the file is truncated (NULL: out of
 * memory); else 0.
 */
int cmd_truncated(const struct sa_file *f, char **msg);

/* Load the detail file @path; 0, or -1 with the message on stderr. */
int cmd_load_detail(const struct opts *o, struct sa_detail *d, const char *path);

/* What a trace's account cannot hold, said on stderr. */
void cmd_trace_warnings(const struct sa_file *f);

#endif /* CMD_COMMON_H */
